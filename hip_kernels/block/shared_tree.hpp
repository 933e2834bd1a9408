/* SPDX-License-Identifier: MIT */
/* Sequential-addressing tree (seed 004): a barrier between levels while more than one warp
 * holds data, then the last warp unrolled with a warp barrier between levels (a no-op ordering
 * point on lockstep wavefronts, __syncwarp under ITS). blockDim.x is a power of two >= W. */
#ifndef YAMR_BLOCK_SHARED_TREE_HPP
#define YAMR_BLOCK_SHARED_TREE_HPP

#include "block_common.hpp"

template <>
struct yamr__block_algorithm<YAMR_VARIANT_SHARED_TREE> {
    static constexpr bool exists = true;
    static constexpr bool merges_accumulators = false;
    template <typename Key, int WarpSize, bool Probe>
    static __device__ Key max_key(Key key, yamr__race_probe *)
    {
        __shared__ Key keys[YAMR_MAX_BLOCK_THREADS];
        const unsigned tid = threadIdx.x;
        keys[tid] = key;
        __syncthreads();
        for (unsigned stride = blockDim.x / 2; stride >= WarpSize; stride /= 2) {
            if (tid < stride) keys[tid] = yamr__key_max(keys[tid], keys[tid + stride]);
            __syncthreads();
        }
        if (tid < WarpSize) {
            volatile Key *warp_keys = keys;
            const yamr__lane_mask all = ~(yamr__lane_mask)0;
#pragma unroll
            for (unsigned stride = WarpSize / 2; stride > 0; stride /= 2) {
                if (tid < stride) warp_keys[tid] = yamr__key_max(warp_keys[tid], warp_keys[tid + stride]);
                yamr__warp_sync(all);
            }
        }
        __syncthreads();
        return keys[0];
    }
};

#endif /* YAMR_BLOCK_SHARED_TREE_HPP */
