# SPDX-License-Identifier: MIT
# The one rule for YAMR_PLATFORM=auto, used by the configure step (cmake/YamrPlatform.cmake) and
# by scripts/report.sh (`cmake -P cmake/YamrDetectPlatform.cmake` prints "<platform>|<why>"):
# NVIDIA when `nvidia-smi -L` lists a GPU, /dev/nvidia0 exists and nvcc is found; AMD when
# /dev/kfd exists, rocminfo lists a gfx agent and hipcc is found; else the CPU. A compiler alone
# is not a GPU: a login node with the CUDA toolkit and no GPU builds the CPU backend (name the
# platform, -DYAMR_PLATFORM=nvidia, to build for GPUs that node does not have).
function(yamr_detect_platform out_platform out_why)
  find_program(_yamr_nvcc nvcc HINTS /usr/local/cuda/bin)
  find_program(_yamr_hipcc hipcc)
  find_program(_yamr_nvidia_smi nvidia-smi)
  find_program(_yamr_rocminfo rocminfo)
  set(nvidia_gpus 0)
  if(_yamr_nvidia_smi)
    execute_process(COMMAND ${_yamr_nvidia_smi} -L OUTPUT_VARIABLE listed ERROR_QUIET
                    RESULT_VARIABLE rc TIMEOUT 30)
    if(rc EQUAL 0)
      string(REGEX MATCHALL "(^|\n)GPU [0-9]+" found "${listed}")
      list(LENGTH found nvidia_gpus)
    endif()
  endif()
  set(amd_gpus 0)
  if(_yamr_rocminfo AND EXISTS /dev/kfd)
    execute_process(COMMAND ${_yamr_rocminfo} OUTPUT_VARIABLE listed ERROR_QUIET
                    RESULT_VARIABLE rc TIMEOUT 30)
    if(rc EQUAL 0)
      string(REGEX MATCHALL "Name: *gfx" found "${listed}")
      list(LENGTH found amd_gpus)
    endif()
  endif()
  if(nvidia_gpus GREATER 0 AND EXISTS /dev/nvidia0 AND (_yamr_nvcc OR CMAKE_CUDA_COMPILER))
    set(platform nvidia)
    set(why "nvidia-smi -L lists ${nvidia_gpus} GPU(s)")
  elseif(amd_gpus GREATER 0 AND _yamr_hipcc)
    set(platform amd)
    set(why "rocminfo lists ${amd_gpus} gfx agent(s)")
  else()
    set(platform cpu)
    set(why "nvidia-smi -L and rocminfo list no GPU")
    if(_yamr_nvcc OR _yamr_hipcc)
      string(APPEND why "; a GPU compiler alone is not one")
    endif()
  endif()
  set(${out_platform} ${platform} PARENT_SCOPE)
  set(${out_why} "${why}" PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  yamr_detect_platform(platform why)
  execute_process(COMMAND ${CMAKE_COMMAND} -E echo "${platform}|${why}")
endif()
