/*
 * The single-block YAMR family: one block reduces one segment of n <= blockDim.x elements.
 *
 * Every variant but `racy` reduces order-preserving keys (yamr_keys.h): each thread holds the key
 * of its element (the bottom key past n), the variant finds the block's largest key, and a common
 * step finds the first index holding it. `racy` is the seed kernel as written, on floats.
 *
 * Launched with one block per segment: block b reduces in[b*n .. b*n+n) into out[b]. The library
 * launches one block; the race lab launches one block per trial.
 *
 * With Probe, a kernel also records per block: passes per warp of the racy loop (the largest
 * number of loop bodies a lane of the warp executed), stores to the shared value, and clock64
 * cycles from the barrier after the loads to the barrier that publishes the block's key. The
 * probe adds a register counter to the loop and one barrier before the timed region.
 */
#ifndef YAMR_BLOCK_REDUCE_HPP
#define YAMR_BLOCK_REDUCE_HPP

#include <type_traits>

#include "block/atomic.hpp"
#include "block/block_common.hpp"
#include "block/racy_its.hpp"
#include "block/racy_volatile.hpp"
#include "block/shared_tree.hpp"
#include "block/warp_shuffle.hpp"

/* Host side: calls use(std::integral_constant<yamr_variant, V>()) for the run-time variant v
 * when it has a block algorithm; false (nothing called) otherwise. The one switch from a variant
 * to a template argument, made from the variant table (YAMR__VARIANT_TABLE). */
template <typename Use>
inline bool yamr__with_block_variant(yamr_variant v, Use &&use)
{
    switch (v) {
#define YAMR__BLOCK_CASE(id, name, widths, flags, correctness)                                 \
    case id:                                                                                   \
        if constexpr (yamr__block_algorithm<id>::exists) {                                    \
            use(std::integral_constant<yamr_variant, id>());                                   \
            return true;                                                                       \
        }                                                                                      \
        return false;
        YAMR__VARIANT_TABLE(YAMR__BLOCK_CASE)
#undef YAMR__BLOCK_CASE
    default: return false;
    }
}

/* Max/min/argmax/argmin of one segment per block, for every variant but `racy`. */
template <yamr_dtype Dtype, yamr_variant Variant, int WarpSize, bool Probe>
__global__ void yamr_block_reduce_kernel(const typename yamr__dtype_traits<Dtype>::storage *in,
                                         int n, int is_min, int nan_ignore, yamr__result *out,
                                         yamr__race_probe *probe)
{
    typedef yamr__dtype_traits<Dtype> traits;
    typedef typename traits::key Key;
    if (!yamr__warp_width_matches<WarpSize>()) return;
    in += (size_t)blockIdx.x * n;
    if (Probe) probe += blockIdx.x;
    __shared__ int first_index;
    const int tid = threadIdx.x;
    if (tid == 0) first_index = INT_MAX;
    const Key key = tid < n ? traits::to_key(in[tid], yamr__key_mode_of<Key>(is_min, nan_ignore))
                            : (Key)YAMR_KEY_BOTTOM;

    long long start = 0;
    if (Probe) {
        __syncthreads();
        start = clock64();
    }
    const Key best = yamr__block_algorithm<Variant>::template max_key<Key, WarpSize, Probe>(key, probe);
    if (Probe && tid == 0) probe->cycles = clock64() - start;

    /* The first index holding the best key. first_index was set before the variant's barriers. */
    if (tid < n && key == best) atomicMin(&first_index, tid);
    __syncthreads();
    if (tid == 0) {
        yamr__result r;
        r.index = yamr__dtype_is_float<Dtype>() && best == (Key)YAMR_KEY_BOTTOM ? -1 : first_index;
        r.value_bits = in[first_index];
        out[blockIdx.x] = r;
    }
}

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

#endif /* YAMR_BLOCK_REDUCE_HPP */
