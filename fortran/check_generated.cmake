# SPDX-License-Identifier: MIT
# cmake -DFYPP=<fypp> -DINPUT=<yamr.fypp> -DOUTPUT=<file> [-DCOMPARE=<yamr.f90>] -P this file:
# runs fypp on INPUT into OUTPUT; with COMPARE, fails when OUTPUT differs from it (the checked-in
# fortran/yamr.f90 must be what fortran/yamr.fypp generates).
execute_process(COMMAND ${FYPP} ${INPUT} ${OUTPUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fypp failed (${rc}) on ${INPUT}")
endif()
if(DEFINED COMPARE)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUTPUT} ${COMPARE}
                  RESULT_VARIABLE differs)
  if(differs)
    message(FATAL_ERROR "${COMPARE} is not what ${INPUT} generates (${OUTPUT}): edit the .fypp "
                        "file, then regenerate with `cmake --build <build> --target "
                        "fortran_regenerate`")
  endif()
  message(STATUS "${COMPARE} is what ${INPUT} generates")
endif()
