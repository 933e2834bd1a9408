/* SPDX-License-Identifier: MIT */
/*
 * The seed kernel as written: the race lab's exhibit, kept out of libyamr (YAMR_VARIANT_RACY is
 * LAB_ONLY in the variant table). One block of n threads per segment, float32 max, with the
 * probe of block_reduce.hpp.
 */
#ifndef YAMR_SEED_KERNEL_HPP
#define YAMR_SEED_KERNEL_HPP

#include "block_reduce.hpp"

/* The seed kernel as written (plain shared float, no volatile), with the seed's float_min.
 * Then the first index equal to the result, so that its output has the common shape. */
__device__ const float yamr__seed_float_min = -3.402e+38;

template <int WarpSize, bool Probe>
__global__ void yamr_max_racy_kernel(const float *in, int n, yamr__result *out,
                                     yamr__race_probe *probe)
{
    if (!yamr__warp_width_matches<WarpSize>()) return;
    in += (size_t)blockIdx.x * n;
    if (Probe) probe += blockIdx.x;
    __shared__ int first_index;
    int i = threadIdx.x;
    __shared__ float max_value;

    if (i == 0) max_value = yamr__seed_float_min;
    if (i == 0) first_index = INT_MAX;

    float v = in[i];
    __syncthreads();
    long long start = 0;
    if (Probe && i == 0) start = clock64();
    unsigned passes = 0;

    while (max_value < v) {
        max_value = v;
        if (Probe) ++passes;
    }

    __syncthreads();
    if (Probe && i == 0) probe->cycles = clock64() - start;
    yamr__probe_passes<Probe>(probe, i / WarpSize, passes);
    const float result = max_value;
    if (v == result) atomicMin(&first_index, i);
    __syncthreads();
    if (i == 0) {
        yamr__result r;
        r.value_bits = __float_as_uint(result);
        r.index = first_index == INT_MAX ? -1 : first_index;
        out[blockIdx.x] = r;
    }
}

#endif /* YAMR_SEED_KERNEL_HPP */
