/* SPDX-License-Identifier: MIT */
/* What the block algorithms (one file each under block/) share: the race lab's probe, the threads a variant
 * launches, and the algorithm template each variant specializes. */
#ifndef YAMR_BLOCK_COMMON_HPP
#define YAMR_BLOCK_COMMON_HPP

#include <limits.h>

#include "../dtype_traits.hpp"
#include "yamr_internal.h"

#define YAMR_MAX_BLOCK_THREADS 1024

struct yamr__race_probe {
    unsigned long long cycles;
    unsigned int stores;
    unsigned int passes[YAMR_MAX_BLOCK_THREADS / 32]; /* per warp */
};

template <typename Key>
__device__ inline Key yamr__key_max(Key a, Key b)
{
    return a > b ? a : b;
}

/* Threads a variant launches for a segment of n elements on warps of width W. */
static inline int yamr__block_threads(yamr_variant v, int n, int warp_size)
{
    return yamr__single_block_threads(v, n, warp_size);
}

template <bool Probe>
__device__ inline void yamr__probe_passes(yamr__race_probe *probe, int warp, unsigned passes)
{
    if (Probe) {
        atomicMax(&probe->passes[warp], passes);
        atomicAdd(&probe->stores, passes);
    }
}

/* The block's shared best key for the variants that race on it or take atomics there: set to the
 * bottom key, and every thread past the barrier that makes it so. */
template <typename Key>
__device__ inline Key &yamr__shared_best_reset()
{
    __shared__ Key shared_best;
    if (threadIdx.x == 0) shared_best = YAMR_KEY_BOTTOM;
    __syncthreads();
    return shared_best;
}

/* The seed's racy loop on the block's shared best key: while the value read there is below key,
 * store key, reading it afresh each pass. Returns the passes (stores) made, counted with Probe. */
template <bool Probe, typename Key>
__device__ inline unsigned yamr__racy_loop(volatile Key *best, Key key)
{
    unsigned passes = 0;
    while (*best < key) {
        *best = key;
        if (Probe) ++passes;
    }
    return passes;
}

/*
 * The block algorithm of a single-block variant: one specialization per variant, in its own file
 * under block/, with
 *     template <typename Key, int WarpSize, bool Probe>
 *     static __device__ Key max_key(Key key, yamr__race_probe *probe);
 * which returns the block's largest key to every thread of the block (each thread brings one
 * key; a thread past the data brings the bottom key). The seed kernel (`racy`) has none: it is
 * its own kernel.
 */
template <yamr_variant Variant>
struct yamr__block_algorithm {
    static constexpr bool exists = false;
};

#endif /* YAMR_BLOCK_COMMON_HPP */
