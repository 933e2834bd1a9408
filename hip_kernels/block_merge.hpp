/* The block layer of the batched kernels: every thread's accumulator merged into thread 0's. */
#ifndef YAMR_BLOCK_MERGE_HPP
#define YAMR_BLOCK_MERGE_HPP

#include "dtype_traits.hpp"
#include "yamr_internal.h"

/* Merges every thread's accumulator into thread 0's. Ends with a barrier, so that a block may
 * call it again at once (for its next row). blockDim.x == YAMR__ROWS_THREADS. */
template <int WarpSize, typename Acc>
__device__ inline void yamr__block_merge(Acc &acc)
{
    constexpr int warps = YAMR__ROWS_THREADS / WarpSize;
    __shared__ Acc per_warp[warps];
    const int lane = threadIdx.x % WarpSize, warp = threadIdx.x / WarpSize;
    acc.template warp_merge<WarpSize>();
    if (lane == 0) per_warp[warp] = acc;
    __syncthreads(); /* every warp's result is in per_warp */
    if (warp == 0) { /* the whole warp, which lets accumulators vote */
        if (lane < warps)
            acc = per_warp[lane];
        else
            acc.clear(); /* the identity */
        acc.template warp_merge<WarpSize, WarpSize, warps>();
    }
    __syncthreads(); /* per_warp is free for the next call */
}

#endif /* YAMR_BLOCK_MERGE_HPP */
