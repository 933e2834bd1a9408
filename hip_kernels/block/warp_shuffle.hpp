/* Warp shuffles within each warp, then the first warp over the per-warp results (seed 003).
 * blockDim.x is a multiple of W. */
#ifndef YAMR_BLOCK_WARP_SHUFFLE_HPP
#define YAMR_BLOCK_WARP_SHUFFLE_HPP

#include "block_common.hpp"

template <>
struct yamr__block_algorithm<YAMR_VARIANT_WARP_SHUFFLE> {
    static constexpr bool exists = true;
    template <typename Key, int WarpSize, bool Probe>
    static __device__ Key max_key(Key key, yamr__race_probe *)
    {
        __shared__ Key warp_best[YAMR_MAX_BLOCK_THREADS / WarpSize];
        __shared__ Key block_best;
        const int lane = threadIdx.x % WarpSize, warp = threadIdx.x / WarpSize;
#pragma unroll
        for (int d = WarpSize / 2; d > 0; d /= 2) key = yamr__key_max(key, yamr__shfl_down<WarpSize>(key, d));
        if (lane == 0) warp_best[warp] = key;
        __syncthreads();
        if (warp == 0) {
            key = lane < (int)(blockDim.x / WarpSize) ? warp_best[lane] : (Key)YAMR_KEY_BOTTOM;
#pragma unroll
            for (int d = WarpSize / 2; d > 0; d /= 2)
                key = yamr__key_max(key, yamr__shfl_down<WarpSize>(key, d));
            if (lane == 0) block_best = key;
        }
        __syncthreads();
        return block_best;
    }
};

#endif /* YAMR_BLOCK_WARP_SHUFFLE_HPP */
