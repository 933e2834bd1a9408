# SPDX-License-Identifier: MIT
# Resolves YAMR_PLATFORM (auto, nvidia, amd, cpu) and provides yamr_add_hip_sources(), which
# compiles .hip files for that platform: with nvcc as CUDA on NVIDIA, with hipcc on AMD.
include(CheckLanguage)

set(YAMR_PLATFORM "auto" CACHE STRING "GPU platform: auto, nvidia, amd or cpu")
set_property(CACHE YAMR_PLATFORM PROPERTY STRINGS auto nvidia amd cpu)
set(YAMR_CUDA_ARCHS "" CACHE STRING "Default CUDA architectures, when CMAKE_CUDA_ARCHITECTURES is not given (empty: 70-real;80-real;90, or 75-real;80-real;90 for CUDA >= 13: machine code for each, PTX for the newest)")
set(YAMR_HIP_ARCHS "gfx90a;gfx1030" CACHE STRING "Default AMD offload architectures (wave64 and wave32), when neither CMAKE_HIP_ARCHITECTURES nor GPU_TARGETS is given")
set(YAMR_HIP_FLAGS "" CACHE STRING "More hipcc flags, e.g. -mwavefrontsize64 for RDNA in wave64 mode")
set(YAMR_CUDA_COMPRESS "size" CACHE STRING "NVIDIA device code compression, nvcc's --compress-mode: size (the smallest library), balance, speed, default (nvcc's own) or none; before CUDA 13, default and none leave nvcc's default and the others compress every image")

find_program(YAMR_HIPCC hipcc)
if(YAMR_PLATFORM STREQUAL "auto")
  # The GPU this machine has, not the compilers it has (cmake/YamrDetectPlatform.cmake; the same
  # rule as scripts/report.sh's).
  include(YamrDetectPlatform)
  yamr_detect_platform(YAMR_RESOLVED_PLATFORM _yamr_why)
  set(_yamr_why ", ${_yamr_why}")
else()
  set(YAMR_RESOLVED_PLATFORM ${YAMR_PLATFORM})
  set(_yamr_why "")
endif()
if(NOT YAMR_RESOLVED_PLATFORM MATCHES "^(nvidia|amd|cpu)$")
  message(FATAL_ERROR "YAMR_PLATFORM must be auto, nvidia, amd or cpu (got ${YAMR_PLATFORM})")
endif()
message(STATUS "yamr: GPU platform ${YAMR_RESOLVED_PLATFORM} (YAMR_PLATFORM=${YAMR_PLATFORM}${_yamr_why})")
unset(_yamr_why)

# ---- Architecture lists: what a user sets the CMake (or ROCm) way wins; YAMR_*_ARCHS are the
# defaults. The normal variables YAMR_CUDA_ARCHS and YAMR_HIP_ARCHS hold the answer from here on.
# CUDA: CMAKE_CUDA_ARCHITECTURES (or the CUDAARCHS environment variable that initialises it).
# enable_language(CUDA) caches a compiler default in CMAKE_CUDA_ARCHITECTURES when it is unset,
# so a value is the user's only when it differs from the one yamr stored there itself
# (YAMR__CUDA_ARCHS_STORED, "" when yamr stored none), as it does below once it has picked its
# default. A build folder configured before yamr kept that record holds CMake's default under
# CMake's help string "CUDA architectures": that is not the user's either.
set(YAMR__CUDA_ARCHS_FROM "YAMR_CUDA_ARCHS")
if(DEFINED CACHE{CMAKE_CUDA_ARCHITECTURES} AND NOT DEFINED YAMR__CUDA_ARCHS_STORED)
  get_property(_yamr_help CACHE CMAKE_CUDA_ARCHITECTURES PROPERTY HELPSTRING)
  if(_yamr_help STREQUAL "CUDA architectures")
    set(YAMR__CUDA_ARCHS_STORED "${CMAKE_CUDA_ARCHITECTURES}")
  endif()
  unset(_yamr_help)
endif()
if(DEFINED CMAKE_CUDA_ARCHITECTURES
   AND NOT "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "${YAMR__CUDA_ARCHS_STORED}")
  set(YAMR_CUDA_ARCHS "${CMAKE_CUDA_ARCHITECTURES}")
  set(YAMR__CUDA_ARCHS_FROM "CMAKE_CUDA_ARCHITECTURES")
elseif(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT "$ENV{CUDAARCHS}" STREQUAL "")
  set(YAMR_CUDA_ARCHS "$ENV{CUDAARCHS}")
  set(YAMR__CUDA_ARCHS_FROM "the CUDAARCHS environment variable")
endif()
# AMD: CMAKE_HIP_ARCHITECTURES, or GPU_TARGETS as the ROCm libraries take it; both given must agree.
set(YAMR__HIP_ARCHS_FROM "YAMR_HIP_ARCHS")
if(DEFINED CMAKE_HIP_ARCHITECTURES AND DEFINED GPU_TARGETS
   AND NOT "${CMAKE_HIP_ARCHITECTURES}" STREQUAL "${GPU_TARGETS}")
  message(FATAL_ERROR "yamr: CMAKE_HIP_ARCHITECTURES (${CMAKE_HIP_ARCHITECTURES}) and GPU_TARGETS "
                      "(${GPU_TARGETS}) differ: give one of them")
elseif(DEFINED CMAKE_HIP_ARCHITECTURES)
  set(YAMR_HIP_ARCHS "${CMAKE_HIP_ARCHITECTURES}")
  set(YAMR__HIP_ARCHS_FROM "CMAKE_HIP_ARCHITECTURES")
elseif(DEFINED GPU_TARGETS)
  set(YAMR_HIP_ARCHS "${GPU_TARGETS}")
  set(YAMR__HIP_ARCHS_FROM "GPU_TARGETS")
endif()

set(YAMR_HIP_INCLUDE_DIRS
    ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/hip_kernels
    ${PROJECT_BINARY_DIR}/include)

if(YAMR_RESOLVED_PLATFORM STREQUAL "nvidia")
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  if(YAMR__CUDA_ARCHS_FROM STREQUAL "YAMR_CUDA_ARCHS")
    if(NOT YAMR_CUDA_ARCHS)
      if(CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 13)
        # CUDA 13 dropped sm_70 (Volta); Turing is the oldest ITS arch left. PTX only for the
        # newest, which later GPUs compile at load: the older PTX would serve no GPU (each of
        # them runs its own machine code or sm_90's PTX), and it cost a third of the fat
        # binaries' compression time and size.
        set(YAMR_CUDA_ARCHS "75-real;80-real;90")
      else()
        set(YAMR_CUDA_ARCHS "70-real;80-real;90")
      endif()
    endif()
    # The cache shows the list in use; a later value other than this one is the user's.
    set(CMAKE_CUDA_ARCHITECTURES "${YAMR_CUDA_ARCHS}" CACHE STRING "CUDA architectures" FORCE)
    set(YAMR__CUDA_ARCHS_STORED "${YAMR_CUDA_ARCHS}" CACHE INTERNAL "yamr's default, as stored")
  else()
    set(YAMR__CUDA_ARCHS_STORED "" CACHE INTERNAL "yamr's default, as stored")
  endif()
  message(STATUS "yamr: CUDA ${CMAKE_CUDA_COMPILER_VERSION}, architectures ${YAMR_CUDA_ARCHS} (from ${YAMR__CUDA_ARCHS_FROM})")

  # Use HIP's NVIDIA backend headers only when they compile with this CUDA toolkit.
  find_path(YAMR_HIP_INCLUDE_DIR hip/hip_runtime.h)
  set(YAMR_HIP_HEADERS_WORK FALSE)
  if(YAMR_HIP_INCLUDE_DIR)
    set(_probe ${PROJECT_BINARY_DIR}/yamr_hip_probe.cu)
    file(WRITE ${_probe} "#include <hip/hip_runtime.h>\n__global__ void k(int *p) { p[0] = __shfl_down_sync(0xffffffffu, 1, 1); }\nint main() { hipDeviceProp_t p; return hipGetDeviceProperties(&p, 0) == hipSuccess ? 0 : (int)hipMalloc((void **)0, 4); }\n")
    try_compile(YAMR_HIP_HEADERS_WORK ${PROJECT_BINARY_DIR}/yamr_hip_probe SOURCES ${_probe}
                CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${YAMR_HIP_INCLUDE_DIR}"
                COMPILE_DEFINITIONS -D__HIP_PLATFORM_NVIDIA__
                OUTPUT_VARIABLE _probe_log NO_CACHE)
  endif()
  if(YAMR_HIP_HEADERS_WORK)
    message(STATUS "yamr: HIP runtime API from ${YAMR_HIP_INCLUDE_DIR}/hip (HIP's NVIDIA backend)")
  else()
    if(YAMR_HIP_INCLUDE_DIR)
      set(_why "HIP's NVIDIA headers in ${YAMR_HIP_INCLUDE_DIR} do not compile with CUDA ${CMAKE_CUDA_COMPILER_VERSION}")
    else()
      set(_why "no HIP headers found")
    endif()
    message(STATUS "yamr: HIP runtime API from hip_kernels/hip_cuda_compat.h (${_why})")
  endif()
elseif(YAMR_RESOLVED_PLATFORM STREQUAL "amd")
  if(NOT YAMR_HIPCC)
    message(FATAL_ERROR "YAMR_PLATFORM=amd needs hipcc (Debian: apt-get install hipcc libamdhip64-dev rocm-device-libs)")
  endif()
  find_library(YAMR_AMDHIP64 amdhip64 REQUIRED)
  message(STATUS "yamr: hipcc ${YAMR_HIPCC}, architectures ${YAMR_HIP_ARCHS} (from ${YAMR__HIP_ARCHS_FROM}), "
                 "flags '${YAMR_HIP_FLAGS}'")
endif()

# yamr_add_hip_sources(<target> <file.hip>...): compiles the files for the resolved platform
# and adds them to <target>.
function(yamr_add_hip_sources target)
  if(YAMR_RESOLVED_PLATFORM STREQUAL "nvidia")
    set_source_files_properties(${ARGN} PROPERTIES LANGUAGE CUDA)
    target_sources(${target} PRIVATE ${ARGN})
    set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${YAMR_CUDA_ARCHS}"
                                               CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-x cu>)
    # Every image of the fat binary compressed (nvcc's default packs the PTX only); the driver
    # unpacks an image when a process first loads it (docs/architecture.md, "The product and the
    # lab": sm_90 11.9 -> 6.2 MB).
    if(CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 13)
      target_compile_options(${target} PRIVATE
                             $<$<COMPILE_LANGUAGE:CUDA>:--compress-mode=${YAMR_CUDA_COMPRESS}>)
    elseif(NOT YAMR_CUDA_COMPRESS MATCHES "^(default|none)$")
      target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xfatbin=-compress-all>)
    endif()
    if(YAMR_HIP_HEADERS_WORK)
      target_compile_definitions(${target} PRIVATE __HIP_PLATFORM_NVIDIA__)
      target_include_directories(${target} PRIVATE ${YAMR_HIP_INCLUDE_DIR})
    endif()
  elseif(YAMR_RESOLVED_PLATFORM STREQUAL "amd")
    # CMake's HIP language does not configure against Debian's ROCm layout: call hipcc directly.
    separate_arguments(_flags UNIX_COMMAND "${YAMR_HIP_FLAGS}")
    list(PREPEND _flags -std=c++17 -O3 -fPIC -fvisibility=hidden)
    foreach(_arch IN LISTS YAMR_HIP_ARCHS)
      list(APPEND _flags --offload-arch=${_arch})
    endforeach()
    # An RDNA target's wave width, for the device pass's preprocessor (hip_kernels/yamr_port.h):
    # 64 where the flags ask for -mwavefrontsize64 (the last of it and -mno-wavefrontsize64), else
    # 32. A compiler with only the late-folded builtin (ROCm >= 7.2) otherwise compiles the other
    # width's kernel bodies too (docs/amd.md).
    set(_rdna_width 32)
    foreach(_flag IN LISTS _flags)
      if(_flag STREQUAL "-mwavefrontsize64")
        set(_rdna_width 64)
      elseif(_flag STREQUAL "-mno-wavefrontsize64")
        set(_rdna_width 32)
      endif()
    endforeach()
    list(APPEND _flags -DYAMR_RDNA_WAVE_WIDTH=${_rdna_width})
    foreach(_dir IN LISTS YAMR_HIP_INCLUDE_DIRS)
      list(APPEND _flags -I${_dir})
    endforeach()
    foreach(_src IN LISTS ARGN)
      get_filename_component(_abs ${_src} ABSOLUTE)
      get_filename_component(_name ${_src} NAME_WE)
      set(_obj ${CMAKE_CURRENT_BINARY_DIR}/${target}_hip/${_name}.o)
      file(GLOB _deps ${PROJECT_SOURCE_DIR}/hip_kernels/*.h*
           ${PROJECT_SOURCE_DIR}/hip_kernels/block/*.hpp ${PROJECT_SOURCE_DIR}/src/*.h
           ${PROJECT_SOURCE_DIR}/include/*.h)
      add_custom_command(OUTPUT ${_obj}
                         COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/${target}_hip
                         COMMAND ${YAMR_HIPCC} ${_flags} -x hip -c ${_abs} -o ${_obj}
                         DEPENDS ${_abs} ${_deps}
                         COMMENT "hipcc ${_name}.hip (${YAMR_HIP_ARCHS})" VERBATIM)
      target_sources(${target} PRIVATE ${_obj})
      # $<TARGET_OBJECTS> of an OBJECT library leaves out objects it did not compile itself:
      # record them so that the libraries made from ${target} can link them too.
      set_property(TARGET ${target} APPEND PROPERTY YAMR_EXTERNAL_OBJECTS ${_obj})
    endforeach()
  else()
    message(FATAL_ERROR "yamr_add_hip_sources: no GPU platform in this build")
  endif()
endfunction()

# The GPU runtime a target links when it holds .hip objects.
function(yamr_link_gpu_runtime target scope)
  if(YAMR_RESOLVED_PLATFORM STREQUAL "nvidia")
    target_link_libraries(${target} ${scope} CUDA::cudart_static)
  elseif(YAMR_RESOLVED_PLATFORM STREQUAL "amd")
    target_link_libraries(${target} ${scope} ${YAMR_AMDHIP64})
  endif()
  # The .hip objects are C++: a static library's C consumers must link the C++ runtime too.
  get_target_property(_type ${target} TYPE)
  if(_type STREQUAL "STATIC_LIBRARY" AND NOT YAMR_RESOLVED_PLATFORM STREQUAL "cpu")
    target_link_libraries(${target} INTERFACE stdc++)
  endif()
endfunction()
