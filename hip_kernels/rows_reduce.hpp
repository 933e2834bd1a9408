/* SPDX-License-Identifier: MIT */
/*
 * Batched reductions: one answer per row of a matrix or per segment of an array. The kernels for
 * many rows are here; the split kernel for few long rows is split_reduce.hpp (the host plans one
 * per call: src/plan.c). Each kernel is a shell over the agent (agent_reduce.hpp: identity, one
 * consume of a range by a team, the team's merge, the write); the layers are in their own
 * files: batch_layout.hpp (arguments, layouts), tile_scan.hpp (the tiles), acc_best.hpp and
 * acc_softmax.hpp (the accumulators), block_merge.hpp (the block layer; the batched kernels
 * merge by warp_shuffle).
 *
 *  - warp per row: yamr_rows_lanes_kernel for a matrix, a group of lanes (or the warp) per
 *    row; rows are short, so a block holds many and shuffles finish each one with no barrier.
 *    yamr_segments_kernel for segments, the same, except that a segment too long for one warp
 *    is left by its warp and reduced by the whole block after the warps' turn; the choice is made
 *    per segment from the offsets.
 *  - yamr_rows_block_kernel: a block per matrix row, reduced with shuffles then one warp over the
 *    per-warp results.
 *
 * What is reduced is an accumulator (Acc): yamr__best_acc, the (key, first index, element) of the
 * order-preserving keys of yamr_keys.h, for max / min / argmax / argmin; or yamr__softmax_acc, the
 * running (max, sum of exp(x - max)) of the online softmax. Each thread visits its elements in
 * increasing index order, so a strictly larger key keeps the first index; merges between threads
 * and blocks break key ties on the index. No step depends on which warp or block runs when, so
 * results are identical from run to run.
 */
#ifndef YAMR_ROWS_REDUCE_HPP
#define YAMR_ROWS_REDUCE_HPP

#include "acc_best.hpp"
#include "acc_softmax.hpp"
#include "agent_reduce.hpp"
#include "batch_layout.hpp"
#include "block_merge.hpp"
#include "split_reduce.hpp"
#include "tile_scan.hpp"

/*
 * The warp shape for a matrix, whose rows all have one length: a group of Lanes lanes per row,
 * Count elements per lane at most (cols <= Lanes * Count: the host picks the LANES row's group
 * for rows of at most lanes * count elements, else the warp with its warp_count; src/policy.h).
 * The groups of a warp reduce their rows side by side in one memory round trip and finish them
 * with shuffles; rounds of a block's YAMR__BLOCK_THREADS / Lanes rows stride over the grid.
 * MinBlocks: the row's register bound (blocks per multiprocessor).
 */
template <typename Acc, int WarpSize, int Lanes, int Count, int MinBlocks>
__global__ void __launch_bounds__(YAMR__BLOCK_THREADS,
                                  YAMR_MIN_BLOCKS(YAMR__BLOCK_THREADS, MinBlocks))
yamr_rows_lanes_kernel(const typename Acc::storage *__restrict__ in, long long rows,
                       yamr__matrix_layout layout, yamr__batch_args args,
                       typename Acc::output out)
{
    typedef typename Acc::template with_index<int> Narrow; /* cols <= Lanes * Count */
    if (!yamr__warp_width_matches<WarpSize>()) return;
    constexpr int per_block = YAMR__BLOCK_THREADS / Lanes;
    const int lane = threadIdx.x % Lanes, slot = threadIdx.x / Lanes;
    const int n = (int)layout.cols;
    /* `first` is the same for every lane of a warp: the shuffles see the whole warp */
    for (long long first = (long long)blockIdx.x * per_block; first < rows;
         first += (long long)gridDim.x * per_block) {
        const long long r = first + slot;
        const yamr__lanes_team<WarpSize, Lanes, Count> team(lane);
        Narrow acc = Narrow::identity(args);
        if (r < rows) yamr__consume(team, in + r * layout.ld, n, args.vectorize, acc);
        team.merge(acc);
        if (r < rows && team.leader()) acc.write(r, out);
    }
}

/*
 * The segment kernel (a SEGMENTS row, src/policy.h): each block takes YAMR__BLOCK_THREADS /
 * GroupLanes consecutive segments per round, one per group of GroupLanes lanes, and every segment
 * goes to the smallest of three teams that it fits, decided per segment from the offsets:
 *  1. its group, for segments of at most GroupElements elements (GroupElements / GroupLanes a
 *     lane): the groups of a warp reduce their segments side by side (one memory round trip for
 *     all), with 32-bit indices;
 *  2. the whole warp, for segments up to WarpCount elements per lane, one after another, with
 *     32-bit indices;
 *  3. the whole block, for longer ones, one after another, Unroll vectors in flight a thread,
 *     with the plan's 64-bit indices.
 * A warp learns which of its groups' segments need it by a vote, a block which need it by a
 * barrier, so that rounds with short segments only (the common case) skip teams 2 and 3 with a
 * few instructions. Rounds stride over the grid. MinBlocks: the row's register bound.
 */
template <typename Acc, int WarpSize, int GroupLanes, int GroupElements, int WarpCount, int Unroll,
          int MinBlocks>
__global__ void __launch_bounds__(YAMR__BLOCK_THREADS,
                                  YAMR_MIN_BLOCKS(YAMR__BLOCK_THREADS, MinBlocks))
yamr_segments_kernel(const typename Acc::storage *__restrict__ in, long long segments,
                     yamr__segment_layout layout, yamr__batch_args args,
                     typename Acc::output out)
{
    typedef typename Acc::template with_index<int> Narrow; /* teams 1 and 2: short segments */
    if (!yamr__warp_width_matches<WarpSize>()) return;
    static_assert(GroupElements % GroupLanes == 0, "whole elements a lane");
    constexpr long long group_max = GroupElements;
    constexpr int glanes = GroupLanes;
    constexpr int gcount = GroupElements / GroupLanes; /* elements per lane */
    constexpr int groups = WarpSize / glanes; /* per warp */
    constexpr int per_block = YAMR__BLOCK_THREADS / GroupLanes;
    constexpr int warp_count = WarpCount;
    constexpr long long warp_max = (long long)warp_count * WarpSize;
    const int lane = threadIdx.x % WarpSize, warp = threadIdx.x / WarpSize;
    const int group_lane = lane % glanes;
    const int slot = threadIdx.x / glanes; /* the segment of this group */
    __shared__ bool block_team[per_block]; /* whether segment `slot` of the round is team 3's */

    for (long long first = (long long)blockIdx.x * per_block; first < segments;
         first += (long long)gridDim.x * per_block) {
        const long long r = first + slot;
        long long begin = 0, n = 0;
        if (r < segments) layout.extent(r, begin, n);
        int my_team = 0;
        if (r < segments) my_team = n <= group_max ? 1 : (n > warp_max ? 3 : 2);

        /* team 1: every lane runs the group merge, since shuffles need the whole warp */
        const yamr__lanes_team<WarpSize, glanes, gcount> group(group_lane);
        Narrow acc = Narrow::identity(args);
        if (my_team == 1) yamr__consume(group, in + begin, n, args.vectorize, acc);
        group.merge(acc);
        if (my_team == 1 && group.leader()) acc.write(r, out);

        /* team 2: the warp, over its groups' segments that need it, lowest group first */
        for (yamr__lane_mask want = yamr__ballot<WarpSize>(group_lane == 0 && my_team == 2); want;
             want &= want - 1) {
            const int s = warp * groups + yamr__lowest_lane(want) / glanes;
            const long long wr = first + s;
            long long wbegin, wn;
            layout.extent(wr, wbegin, wn);
            const yamr__lanes_team<WarpSize, WarpSize, warp_count> whole_warp(lane);
            Narrow w = Narrow::identity(args);
            yamr__consume(whole_warp, in + wbegin, wn, args.vectorize, w);
            whole_warp.merge(w);
            if (whole_warp.leader()) w.write(wr, out);
        }

        /* team 3: the block, over every long segment of the round; the barrier completes
         * block_team, and the loop runs only when a segment needs the block */
        if (group_lane == 0) block_team[slot] = my_team == 3;
        if (__syncthreads_or(my_team == 3)) {
            for (int s = 0; s < per_block; ++s) {
                if (!block_team[s]) continue; /* uniform over the block */
                const long long br = first + s;
                long long bbegin, bn;
                layout.extent(br, bbegin, bn);
                const yamr__blocks_team<YAMR_VARIANT_WARP_SHUFFLE, WarpSize, Unroll> block;
                Acc b = Acc::identity(args);
                yamr__consume(block, in + bbegin, bn, args.vectorize, b);
                block.merge(b);
                if (block.leader()) b.write(br, out);
            }
            __syncthreads(); /* block_team is read by all before the next round writes it */
        }
    }
}

/* A block per row of a matrix; rows stride over the grid. Unroll: 16-byte loads in flight per
 * thread; MinBlocks: the row's register bound (0: none, as `__launch_bounds__(threads)`). */
template <typename Acc, int WarpSize, int Unroll, int MinBlocks>
__global__ void __launch_bounds__(YAMR__BLOCK_THREADS,
                                  YAMR_MIN_BLOCKS(YAMR__BLOCK_THREADS, MinBlocks))
yamr_rows_block_kernel(const typename Acc::storage *__restrict__ in, long long rows,
                       yamr__matrix_layout layout, yamr__batch_args args,
                       typename Acc::output out)
{
    if (!yamr__warp_width_matches<WarpSize>()) return;
    for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
        const yamr__blocks_team<YAMR_VARIANT_WARP_SHUFFLE, WarpSize, Unroll> team;
        Acc acc = Acc::identity(args);
        yamr__consume(team, in + r * layout.ld, layout.cols, args.vectorize, acc);
        team.merge(acc);
        if (team.leader()) acc.write(r, out);
    }
}

#endif /* YAMR_ROWS_REDUCE_HPP */
