/* SPDX-License-Identifier: MIT */
/* Shared-memory atomic max: exact under any interleaving. */
#ifndef YAMR_BLOCK_ATOMIC_HPP
#define YAMR_BLOCK_ATOMIC_HPP

#include "block_common.hpp"

template <>
struct yamr__block_algorithm<YAMR_VARIANT_ATOMIC> {
    static constexpr bool exists = true;
    static constexpr bool merges_accumulators = false;
    template <typename Key, int WarpSize, bool Probe>
    static __device__ Key max_key(Key key, yamr__race_probe *)
    {
        Key &shared_best = yamr__shared_best_reset<Key>();
        atomicMax(&shared_best, key);
        __syncthreads();
        return shared_best;
    }
};

#endif /* YAMR_BLOCK_ATOMIC_HPP */
