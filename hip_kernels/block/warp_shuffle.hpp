/* SPDX-License-Identifier: MIT */
/* Warp shuffles within each warp, then the first warp over the per-warp results (seed 003), on
 * whole accumulators: each step moves the key, the index and the element together (or the
 * softmax pair), so the first index and the element need no step of their own. The one block
 * algorithm of the batched kernels, which merge accumulators that are not keys. */
#ifndef YAMR_BLOCK_WARP_SHUFFLE_HPP
#define YAMR_BLOCK_WARP_SHUFFLE_HPP

#include "block_common.hpp"

template <>
struct yamr__block_algorithm<YAMR_VARIANT_WARP_SHUFFLE> {
    static constexpr bool exists = true;
    static constexpr bool merges_accumulators = true;
    /* blockDim.x is a multiple of W and at most BlockThreads. */
    template <int WarpSize, int BlockThreads, typename Acc>
    static __device__ void merge(Acc &acc)
    {
        constexpr int most_warps = BlockThreads / WarpSize;
        __shared__ Acc per_warp[most_warps];
        const int lane = threadIdx.x % WarpSize, warp = threadIdx.x / WarpSize;
        acc.template warp_merge<WarpSize>();
        if (lane == 0) per_warp[warp] = acc;
        __syncthreads(); /* every warp's result is in per_warp */
        if (warp == 0) { /* the whole warp, which lets accumulators vote */
            if (lane < (int)(blockDim.x / WarpSize))
                acc = per_warp[lane];
            else
                acc.clear(); /* the identity */
            acc.template warp_merge<WarpSize, WarpSize, most_warps>();
        }
        __syncthreads(); /* per_warp is free for a next call */
    }
};

#endif /* YAMR_BLOCK_WARP_SHUFFLE_HPP */
