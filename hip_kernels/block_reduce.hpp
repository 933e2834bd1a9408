/* SPDX-License-Identifier: MIT */
/*
 * The single-block YAMR family: one block reduces one segment of n <= blockDim.x elements.
 *
 * Every variant but `racy` runs the library's block layer (block_merge.hpp) on a best accumulator
 * holding one element per thread (the identity past n): the variant's block algorithm, then for
 * key algorithms the first index holding the best key. `racy`, the seed kernel as written, is
 * the lab's own (lab/race/seed_kernel.hpp).
 *
 * Launched with one block per segment: block b reduces in[b*n .. b*n+n) into out[b]. The library
 * launches one block (YAMR_KERNEL_SINGLE_BLOCK); the race lab launches one block per trial.
 *
 * With Probe, a kernel also records per block: passes per warp of the racy loop (the largest
 * number of loop bodies a lane of the warp executed), stores to the shared value, and clock64
 * cycles from the barrier after the loads to the end of the block merge (for `racy`: to the
 * barrier that publishes the block's value). The probe adds a register counter to the loop and
 * one barrier before the timed region.
 */
#ifndef YAMR_BLOCK_REDUCE_HPP
#define YAMR_BLOCK_REDUCE_HPP

#include "acc_best.hpp"
#include "block_merge.hpp"

/* Max/min/argmax/argmin of one segment per block, for every variant but `racy`: a thread per
 * element, merged by the library's block layer (block_merge.hpp). */
template <yamr_dtype Dtype, yamr_variant Variant, int WarpSize, bool Probe>
__global__ void yamr_block_reduce_kernel(const typename yamr__dtype_traits<Dtype>::storage *in,
                                         int n, int is_min, int nan_ignore, yamr__result *out,
                                         yamr__race_probe *probe)
{
    if (!yamr__warp_width_matches<WarpSize>()) return;
    in += (size_t)blockIdx.x * n;
    if (Probe) probe += blockIdx.x;
    const int tid = threadIdx.x;
    yamr__best_acc<Dtype, int> acc = yamr__best_acc<Dtype, int>::identity(is_min, nan_ignore);
    if (tid < n) acc.element(in[tid], tid);

    long long start = 0;
    if (Probe) {
        __syncthreads();
        start = clock64();
    }
    yamr__block_merge<Variant, WarpSize, YAMR_MAX_BLOCK_THREADS, Probe>(acc, probe);
    if (tid == 0) {
        if (Probe) probe->cycles = clock64() - start;
        yamr__result r;
        const long long index = acc.index;
        r.index = yamr__dtype_is_float<Dtype>() && acc.key == YAMR_KEY_BOTTOM ? -1 : index;
        r.value_bits = acc.bits;
        out[blockIdx.x] = r;
    }
}

#endif /* YAMR_BLOCK_REDUCE_HPP */
