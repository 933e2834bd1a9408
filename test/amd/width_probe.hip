/* SPDX-License-Identifier: MIT */
/* One kernel instantiated for both wave widths as yamr's are (the width a template argument, the
 * body behind yamr__warp_width_matches): scripts/test.sh compiles it to check yamr_port.h's
 * other width paths (the builtin alone; a build width the device does not run) in a second,
 * where a kernel file of the library takes half a minute. */
#include "yamr_port.h"

template <int WarpSize>
__global__ void yamr_width_probe(const float *in, float *out)
{
    if (!yamr__warp_width_matches<WarpSize>()) return;
    out[threadIdx.x] = 2.0f * in[threadIdx.x];
}

template __global__ void yamr_width_probe<32>(const float *, float *);
template __global__ void yamr_width_probe<64>(const float *, float *);
