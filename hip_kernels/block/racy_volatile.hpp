/* SPDX-License-Identifier: MIT */
/* The seed's loop with a fresh read of the shared value on every pass. Correct for one lockstep
 * warp (the warp's last compare saw a value no smaller than any of its keys, and only the warp
 * itself stores). Across warps a warp can store a smaller key after another warp's last compare:
 * not correct, and so never picked by AUTO. */
#ifndef YAMR_BLOCK_RACY_VOLATILE_HPP
#define YAMR_BLOCK_RACY_VOLATILE_HPP

#include "block_common.hpp"

template <>
struct yamr__block_algorithm<YAMR_VARIANT_RACY_VOLATILE> {
    static constexpr bool exists = true;
    static constexpr bool merges_accumulators = false;
    template <typename Key, int WarpSize, bool Probe>
    static __device__ Key max_key(Key key, yamr__race_probe *probe)
    {
        Key &shared_best = yamr__shared_best_reset<Key>();
        const unsigned passes = yamr__racy_loop<Probe>((volatile Key *)&shared_best, key);
        __syncthreads();
        yamr__probe_passes<Probe>(probe, threadIdx.x / WarpSize, passes);
        return shared_best;
    }
};

#endif /* YAMR_BLOCK_RACY_VOLATILE_HPP */
