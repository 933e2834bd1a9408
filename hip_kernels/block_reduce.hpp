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

#include <limits.h>

#include "dtype_traits.hpp"
#include "yamr_internal.h"

#define YAMR_MAX_BLOCK_THREADS 1024

struct yamr_race_probe {
    unsigned long long cycles;
    unsigned int stores;
    unsigned int passes[YAMR_MAX_BLOCK_THREADS / 32]; /* per warp */
};

template <typename Key>
__device__ inline Key yamr_key_max(Key a, Key b)
{
    return a > b ? a : b;
}

/* Threads a variant launches for a segment of n elements on warps of width W. */
static inline int yamr_block_threads(yamr_variant v, int n, int warp_size)
{
    switch (v) {
    case YAMR_VARIANT_RACY:
    case YAMR_VARIANT_RACY_VOLATILE:
    case YAMR_VARIANT_RACY_ITS: return n; /* the seed's shape: one thread per element, any n */
    case YAMR_VARIANT_SHARED_TREE: {
        int t = warp_size; /* a power of two for the halving tree */
        while (t < n) t *= 2;
        return t;
    }
    default: return (n + warp_size - 1) / warp_size * warp_size;
    }
}

template <bool Probe>
__device__ inline void yamr_probe_passes(yamr_race_probe *probe, int warp, unsigned passes)
{
    if (Probe) {
        atomicMax(&probe->passes[warp], passes);
        atomicAdd(&probe->stores, passes);
    }
}

/* ---- The variants: each returns the block's largest key to every thread. ---- */

/* The seed's loop with a fresh read of the shared value on every pass. Correct for one lockstep
 * warp (the warp's last compare saw a value no smaller than any of its keys, and only the warp
 * itself stores). Across warps a warp can store a smaller key after another warp's last compare:
 * not correct, and so never picked by AUTO. */
template <typename Key, int WarpSize, bool Probe>
__device__ Key yamr_block_max_racy_volatile(Key key, yamr_race_probe *probe)
{
    __shared__ Key shared_best;
    if (threadIdx.x == 0) shared_best = YAMR_KEY_BOTTOM;
    __syncthreads();
    volatile Key *best = &shared_best;
    unsigned passes = 0;
    while (*best < key) {
        *best = key;
        if (Probe) ++passes;
    }
    __syncthreads();
    yamr_probe_passes<Probe>(probe, threadIdx.x / WarpSize, passes);
    return shared_best;
}

/*
 * The racy loop made correct on any hardware. Round: every thread runs the racy loop; a barrier
 * ends all stores; then every thread checks the settled value against its key and the block votes.
 * A store only ever writes a key larger than a value the shared variable held during the round,
 * and every such value is at least the value at the round's start, so the settled value grows
 * strictly from round to round while any thread votes yes: the loop ends, with the maximum.
 *
 * With Independent Thread Scheduling the lanes of a warp are not in lockstep, so the #if path
 * makes each pass warp-uniform (all lanes compare, the lanes above store, the warp syncs): the
 * passes per warp then mean what they mean on lockstep hardware. Lockstep warps and AMD
 * wavefronts run the seed's loop as it is, with a volatile read per pass.
 */
template <typename Key, int WarpSize, bool Probe>
__device__ Key yamr_block_max_racy_its(Key key, yamr_race_probe *probe)
{
    __shared__ Key shared_best;
    if (threadIdx.x == 0) shared_best = YAMR_KEY_BOTTOM;
    __syncthreads();
    volatile Key *best = &shared_best;
    unsigned passes = 0;
#if YAMR_HAS_ITS
    const int warp_first = (int)threadIdx.x / WarpSize * WarpSize;
    const yamr_lane_mask lanes = yamr_lane_mask_first<WarpSize>((int)blockDim.x - warp_first);
#endif
    do {
#if YAMR_HAS_ITS
        for (;;) {
            const bool above = *best < key;
            if (!yamr_any<WarpSize>(lanes, above)) break;
            if (above) {
                *best = key;
                if (Probe) ++passes;
            }
            yamr_warp_sync(lanes);
        }
#else
        while (*best < key) {
            *best = key;
            if (Probe) ++passes;
        }
#endif
        __syncthreads(); /* every store of the round has landed */
    } while (__syncthreads_or(*best < key));
    yamr_probe_passes<Probe>(probe, threadIdx.x / WarpSize, passes);
    return shared_best;
}

/* Shared-memory atomic max: exact under any interleaving. */
template <typename Key>
__device__ Key yamr_block_max_atomic(Key key)
{
    __shared__ Key shared_best;
    if (threadIdx.x == 0) shared_best = YAMR_KEY_BOTTOM;
    __syncthreads();
    atomicMax(&shared_best, key);
    __syncthreads();
    return shared_best;
}

/* Sequential-addressing tree (seed 004): a barrier between levels while more than one warp
 * holds data, then the last warp unrolled with a warp barrier between levels (a no-op ordering
 * point on lockstep wavefronts, __syncwarp under ITS). blockDim.x is a power of two >= W. */
template <typename Key, int WarpSize>
__device__ Key yamr_block_max_shared_tree(Key key)
{
    __shared__ Key keys[YAMR_MAX_BLOCK_THREADS];
    const unsigned tid = threadIdx.x;
    keys[tid] = key;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride >= WarpSize; stride /= 2) {
        if (tid < stride) keys[tid] = yamr_key_max(keys[tid], keys[tid + stride]);
        __syncthreads();
    }
    if (tid < WarpSize) {
        volatile Key *warp_keys = keys;
        const yamr_lane_mask all = ~(yamr_lane_mask)0;
#pragma unroll
        for (unsigned stride = WarpSize / 2; stride > 0; stride /= 2) {
            if (tid < stride) warp_keys[tid] = yamr_key_max(warp_keys[tid], warp_keys[tid + stride]);
            yamr_warp_sync(all);
        }
    }
    __syncthreads();
    return keys[0];
}

/* Warp shuffles within each warp, then the first warp over the per-warp results (seed 003).
 * blockDim.x is a multiple of W. */
template <typename Key, int WarpSize>
__device__ Key yamr_block_max_warp_shuffle(Key key)
{
    __shared__ Key warp_best[YAMR_MAX_BLOCK_THREADS / WarpSize];
    __shared__ Key block_best;
    const int lane = threadIdx.x % WarpSize, warp = threadIdx.x / WarpSize;
#pragma unroll
    for (int d = WarpSize / 2; d > 0; d /= 2) key = yamr_key_max(key, yamr_shfl_down<WarpSize>(key, d));
    if (lane == 0) warp_best[warp] = key;
    __syncthreads();
    if (warp == 0) {
        key = lane < (int)(blockDim.x / WarpSize) ? warp_best[lane] : (Key)YAMR_KEY_BOTTOM;
#pragma unroll
        for (int d = WarpSize / 2; d > 0; d /= 2)
            key = yamr_key_max(key, yamr_shfl_down<WarpSize>(key, d));
        if (lane == 0) block_best = key;
    }
    __syncthreads();
    return block_best;
}

template <yamr_variant Variant, typename Key, int WarpSize, bool Probe>
__device__ inline Key yamr_block_max_key(Key key, yamr_race_probe *probe)
{
    switch (Variant) {
    case YAMR_VARIANT_RACY_VOLATILE: return yamr_block_max_racy_volatile<Key, WarpSize, Probe>(key, probe);
    case YAMR_VARIANT_RACY_ITS: return yamr_block_max_racy_its<Key, WarpSize, Probe>(key, probe);
    case YAMR_VARIANT_ATOMIC: return yamr_block_max_atomic<Key>(key);
    case YAMR_VARIANT_SHARED_TREE: return yamr_block_max_shared_tree<Key, WarpSize>(key);
    default: return yamr_block_max_warp_shuffle<Key, WarpSize>(key);
    }
}

/* Max/min/argmax/argmin of one segment per block, for every variant but `racy`. */
template <yamr_dtype Dtype, yamr_variant Variant, int WarpSize, bool Probe>
__global__ void yamr_block_argmax_kernel(const typename yamr_dtype_traits<Dtype>::storage *in,
                                         int n, int is_min, int nan_ignore, yamr__result *out,
                                         yamr_race_probe *probe)
{
    typedef yamr_dtype_traits<Dtype> traits;
    typedef typename traits::key Key;
    if (!yamr_warp_width_matches<WarpSize>()) return;
    in += (size_t)blockIdx.x * n;
    if (Probe) probe += blockIdx.x;
    __shared__ int first_index;
    const int tid = threadIdx.x;
    if (tid == 0) first_index = INT_MAX;
    const Key key = tid < n ? traits::to_key(in[tid], yamr_key_mode_of<Key>(is_min, nan_ignore))
                            : (Key)YAMR_KEY_BOTTOM;

    long long start = 0;
    if (Probe) {
        __syncthreads();
        start = clock64();
    }
    const Key best = yamr_block_max_key<Variant, Key, WarpSize, Probe>(key, probe);
    if (Probe && tid == 0) probe->cycles = clock64() - start;

    /* The first index holding the best key. first_index was set before the variant's barriers. */
    if (tid < n && key == best) atomicMin(&first_index, tid);
    __syncthreads();
    if (tid == 0) {
        yamr__result r;
        r.index = yamr_dtype_is_float<Dtype>() && best == (Key)YAMR_KEY_BOTTOM ? -1 : first_index;
        r.value_bits = in[first_index];
        out[blockIdx.x] = r;
    }
}

/* The seed kernel as written (plain shared float, no volatile), with the seed's float_min.
 * Then the first index equal to the result, so that its output has the common shape. */
__device__ const float yamr_seed_float_min = -3.402e+38;

template <int WarpSize, bool Probe>
__global__ void yamr_max_racy_kernel(const float *in, int n, yamr__result *out,
                                     yamr_race_probe *probe)
{
    if (!yamr_warp_width_matches<WarpSize>()) return;
    in += (size_t)blockIdx.x * n;
    if (Probe) probe += blockIdx.x;
    __shared__ int first_index;
    int i = threadIdx.x;
    __shared__ float max_value;

    if (i == 0) max_value = yamr_seed_float_min;
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
    yamr_probe_passes<Probe>(probe, i / WarpSize, passes);
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
