/* SPDX-License-Identifier: MIT */
/*
 * The agent: what every kernel shape runs over one range (a row, a segment, a grid-wide call's
 * array) with one team of threads, as CUB's kernels are shells over AgentReduce:
 *
 *     Acc acc = Acc::identity(args);
 *     yamr__consume(team, p, n, args.vectorize, acc);  // full tiles, then the short tile
 *     team.merge(acc);                                 // the team's merge
 *     if (team.leader()) acc.write(r, out);            // the write (completion: its output)
 *
 * A kernel shape only says which ranges its blocks take and with which team:
 *  - yamr__lanes_team<W, Lanes, Count>: a group of Lanes lanes of a warp (Lanes = W: the whole
 *    warp) over a range of at most Lanes * Count elements, which is one short tile: no full
 *    tile, every load in one memory round trip; merged by shuffles (lane 0 of the group gets
 *    it). The lanes-per-row kernel, and the segment kernel's group and warp teams.
 *  - yamr__blocks_team<Variant, W, Unroll, PadLast, Tree>: `parts` blocks (one: the block) as
 *    one team of parts * YAMR__BLOCK_THREADS lanes over a range of any length: full tiles of
 *    Unroll vectors a lane, then the short tile; each block merged by the variant's block
 *    algorithm (thread 0 gets it). The block-per-row kernel, the segment kernel's block team and
 *    the split kernel (whose team of several blocks then merges in the row's last block:
 *    split_reduce.hpp, yamr__last_block_merge).
 *
 * The tiles themselves (which element each lane loads, in which order) are tile_scan.hpp's.
 */
#ifndef YAMR_AGENT_REDUCE_HPP
#define YAMR_AGENT_REDUCE_HPP

#include "block_merge.hpp"
#include "tile_scan.hpp"

/* A group of Lanes lanes of a warp, Count elements a lane at most (Lanes = WarpSize: the warp).
 * Every lane of the warp calls merge(), since shuffles need the whole warp. */
template <int WarpSize, int Lanes, int Count>
struct yamr__lanes_team {
    static constexpr bool one_tile = true; /* a range is at most lanes * count elements */
    static constexpr int lanes = Lanes, count = Count;
    int lane; /* in the group */
    __device__ explicit yamr__lanes_team(int group_lane) : lane(group_lane) {}
    template <typename Acc>
    __device__ inline void merge(Acc &acc) const
    {
        acc.template warp_merge<WarpSize, Lanes>();
    }
    __device__ inline bool leader() const { return lane == 0; }
};

/* `lanes` threads of one or more whole blocks, this one lane `lane` of them (block `part` holds
 * lanes part * YAMR__BLOCK_THREADS on, so that at each step the blocks read adjacent vectors).
 * Unroll: 16-byte vectors in flight a thread (a full tile); PadLast and Tree: yamr__full_tiles'.
 * Every thread of the block calls merge(). */
template <yamr_variant Variant, int WarpSize, int Unroll, bool PadLast = false, bool Tree = false>
struct yamr__blocks_team {
    static constexpr bool one_tile = false;
    static constexpr int unroll = Unroll;
    static constexpr bool pad_last = PadLast, tree = Tree;
    int lane, lanes;
    /* one block */
    __device__ yamr__blocks_team() : lane((int)threadIdx.x), lanes(YAMR__BLOCK_THREADS) {}
    /* block `part` of `parts` */
    __device__ yamr__blocks_team(int part, int parts)
        : lane(part * YAMR__BLOCK_THREADS + (int)threadIdx.x), lanes(parts * YAMR__BLOCK_THREADS)
    {
    }
    template <typename Acc>
    __device__ static inline void merge(Acc &acc)
    {
        yamr__block_merge<Variant, WarpSize, YAMR__BLOCK_THREADS>(acc);
    }
    __device__ static inline bool leader() { return threadIdx.x == 0; }
};

/*
 * The one consume: every element of p[0, n) that this lane of the team owns, handed to acc in
 * increasing index order (indices count from p), in 16-byte vectors where `vectorize` (p aligned
 * to its element). A range the team covers in one tile is that tile alone, all its loads in one
 * round trip; a longer one is its head, its full tiles, then its short tile (tile_scan.hpp).
 */
template <typename Team, typename Storage, typename Length, typename Acc>
__device__ inline void yamr__consume(const Team &team, const Storage *__restrict__ p, Length length,
                                     int vectorize, Acc &acc)
{
    if constexpr (Team::one_tile) {
        if (vectorize)
            yamr__one_tile_vectors<Team::count, Team::lanes>(p, (int)length, team.lane, acc);
        else
            yamr__one_tile_elements<Team::count, Team::lanes>(p, (int)length, team.lane, acc);
    } else {
        yamr__tiles<Team::unroll, Team::pad_last, Team::tree>(p, length, team.lane, team.lanes,
                                                              vectorize, acc);
    }
}

#endif /* YAMR_AGENT_REDUCE_HPP */
