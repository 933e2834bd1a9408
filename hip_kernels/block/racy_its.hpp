/* SPDX-License-Identifier: MIT */
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
#ifndef YAMR_BLOCK_RACY_ITS_HPP
#define YAMR_BLOCK_RACY_ITS_HPP

#include "block_common.hpp"

template <>
struct yamr__block_algorithm<YAMR_VARIANT_RACY_ITS> {
    static constexpr bool exists = true;
    static constexpr bool merges_accumulators = false;
    template <typename Key, int WarpSize, bool Probe>
    static __device__ Key max_key(Key key, yamr__race_probe *probe)
    {
        Key &shared_best = yamr__shared_best_reset<Key>();
        volatile Key *best = &shared_best;
        unsigned passes = 0;
#if YAMR_HAS_ITS
        const int warp_first = (int)threadIdx.x / WarpSize * WarpSize;
        const yamr__lane_mask lanes = yamr__lane_mask_first<WarpSize>((int)blockDim.x - warp_first);
#endif
        do {
#if YAMR_HAS_ITS
            for (;;) {
                const bool above = *best < key;
                if (!yamr__any<WarpSize>(lanes, above)) break;
                if (above) {
                    *best = key;
                    if (Probe) ++passes;
                }
                yamr__warp_sync(lanes);
            }
#else
            passes += yamr__racy_loop<Probe>(best, key);
#endif
            __syncthreads(); /* every store of the round has landed */
        } while (__syncthreads_or(*best < key));
        yamr__probe_passes<Probe>(probe, threadIdx.x / WarpSize, passes);
        return shared_best;
    }
};

#endif /* YAMR_BLOCK_RACY_ITS_HPP */
