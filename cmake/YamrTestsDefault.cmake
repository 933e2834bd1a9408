# SPDX-License-Identifier: MIT
# YAMR_BUILD_TESTS: ON, OFF or AUTO (the default for the top-level project): AUTO builds the
# tests when cmocka is found and otherwise configures the library alone, saying why in one line;
# ON asked for explicitly fails without cmocka. The cache keeps what the user asked for; the
# normal variable YAMR_BUILD_TESTS, which the rest of the build reads, holds the ON/OFF answer.
if(YAMR_TOP_LEVEL)
  set(YAMR_BUILD_TESTS AUTO CACHE STRING "Build the cmocka tests: ON, OFF or AUTO (when cmocka is found)")
else()
  set(YAMR_BUILD_TESTS OFF CACHE STRING "Build the cmocka tests: ON, OFF or AUTO (when cmocka is found)")
endif()
set_property(CACHE YAMR_BUILD_TESTS PROPERTY STRINGS AUTO ON OFF)
if(YAMR_BUILD_TESTS STREQUAL "AUTO")
  find_package(cmocka CONFIG QUIET)
  if(cmocka_FOUND)
    set(YAMR_BUILD_TESTS ON)
  else()
    set(YAMR_BUILD_TESTS OFF)
    message(STATUS "yamr: tests off: cmocka not found (Debian: libcmocka-dev); "
                   "-DYAMR_BUILD_TESTS=ON makes that an error")
  endif()
elseif(YAMR_BUILD_TESTS)
  find_package(cmocka CONFIG QUIET)
  if(NOT cmocka_FOUND)
    message(FATAL_ERROR "yamr: YAMR_BUILD_TESTS=${YAMR_BUILD_TESTS} needs cmocka (Debian: "
                        "libcmocka-dev), which CMake did not find; -DCMAKE_PREFIX_PATH=<its "
                        "prefix> points to it")
  endif()
  set(YAMR_BUILD_TESTS ON)
else()
  set(YAMR_BUILD_TESTS OFF)
endif()
# For scripts that read a build folder (scripts/test.sh): whether this one has the tests.
set(YAMR_TESTS_BUILT ${YAMR_BUILD_TESTS} CACHE INTERNAL "whether YAMR_BUILD_TESTS resolved to ON")
