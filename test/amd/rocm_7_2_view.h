/* SPDX-License-Identifier: MIT */
/*
 * Force-included (-include) into AMD builds to show yamr what a ROCm >= 7.2 device pass sees,
 * on Debian's HIP 5.2: no __AMDGCN_WAVEFRONT_SIZE. HIP 5.2's own headers still need the macro
 * (their warpSize is a constexpr made from it) and refuse wave64 on gfx10 targets, so they are
 * included first, under a wave32 value on RDNA, and the macro is removed before any yamr code.
 * That leaves HIP 5.2's warpSize wrong in wave64 mode; yamr never reads warpSize on the device
 * (its kernels take the width as a template parameter), which is what this build checks.
 */
#ifndef YAMR_TEST_ROCM_7_2_VIEW_H
#define YAMR_TEST_ROCM_7_2_VIEW_H
#if defined(__AMDGCN__)
#if defined(__GFX10__) || defined(__GFX11__) || defined(__GFX12__)
#undef __AMDGCN_WAVEFRONT_SIZE
#define __AMDGCN_WAVEFRONT_SIZE 32
#endif
#include <hip/hip_runtime.h>
#undef __AMDGCN_WAVEFRONT_SIZE
#undef __AMDGCN_WAVEFRONT_SIZE__
#endif
#endif
