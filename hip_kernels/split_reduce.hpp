/* SPDX-License-Identifier: MIT */
/*
 * The split kernel: several blocks per row (or segment), for few long rows. A grid-wide reduction
 * is this kernel over one row.
 *
 * The blocks_per_row blocks of a row scan it as one team (agent_reduce.hpp, yamr__blocks_team:
 * lane l of the team takes vectors l, l + lanes, ..., so that at each step the team reads
 * adjacent vectors, the whole row in order), and the variant's block algorithm merges each
 * block's threads. With one block per row that is the answer; with more, each block leaves its
 * accumulator in the context's workspace, and the row's last block to finish (a per-row counter
 * it resets for the next launch) merges the row's partials and writes the answer. No step depends on which block
 * runs when, so results are identical from run to run.
 *
 * No fence: a partial travels as 32-bit words, each in a 64-bit slot whose high half is 0 once
 * written and all ones when empty, stored and loaded whole with relaxed atomics. The last block
 * knows every block has stored its partial (each stores before it counts itself in) and loads
 * each slot until it is written, then empties it for the next launch. A release and an acquire
 * around the counter instead cost a round trip (docs/performance.md, "A last block with no
 * fence").
 */
#ifndef YAMR_SPLIT_REDUCE_HPP
#define YAMR_SPLIT_REDUCE_HPP

#include "acc_best.hpp"
#include "acc_softmax.hpp"
#include "agent_reduce.hpp"
#include "batch_layout.hpp"
#include "block_merge.hpp"

/* A partial's 32-bit words, each in a 64-bit slot of the workspace. */
template <typename T>
struct yamr__slots_of {
    static_assert(sizeof(T) % sizeof(unsigned) == 0, "whole words");
    static constexpr int words = sizeof(T) / sizeof(unsigned);
    static_assert(words <= YAMR__SPLIT_PARTIAL_WORDS, "the workspace's partials");
};

/* An empty slot: all ones, as runtime.hip sets every slot when the context opens. */
constexpr unsigned long long yamr__slot_empty = ~0ull;

/* Stores t into its slots p[0], p[stride], ..., each word with a high half of 0 (written). Word
 * w of a row's partials sits at w * parts + part, so that lanes taking adjacent partials load
 * adjacent slots. */
template <typename T>
__device__ inline void yamr__publish(unsigned long long *p, int stride, const T &t)
{
    unsigned words[yamr__slots_of<T>::words];
    memcpy(words, &t, sizeof t);
#pragma unroll
    for (int w = 0; w < yamr__slots_of<T>::words; ++w) yamr__store_word(p + w * stride, words[w]);
}

/* The partial another block publishes at p (yamr__publish) during this launch, once every slot
 * is written (all are loaded at once, then the few not yet written again); the slots are left
 * empty. */
template <typename T>
__device__ inline T yamr__take_published(unsigned long long *p, int stride)
{
    constexpr int n = yamr__slots_of<T>::words;
    unsigned long long slot[n];
#pragma unroll
    for (int w = 0; w < n; ++w) slot[w] = yamr__load_word(p + w * stride);
    unsigned words[n];
#pragma unroll
    for (int w = 0; w < n; ++w) {
        while (slot[w] >> 32) slot[w] = yamr__load_word(p + w * stride);
        words[w] = (unsigned)slot[w];
        yamr__store_word(p + w * stride, yamr__slot_empty);
    }
    T t;
    memcpy(&t, words, sizeof t);
    return t;
}

/*
 * The last-block-done protocol of row r, split in `parts` blocks: thread 0's accumulator (the
 * block's merge) becomes partial `part`; the row's last block to arrive gets true
 * and, in thread 0, the merge of every partial; the others get false. Every thread calls it.
 * Up to a warp's width of partials, the first warp alone merges them, with shuffles and no
 * barrier; more, every thread loads its share at once and the block merges them (a warp loading
 * them in turn waits once per partial per lane).
 */
template <int WarpSize, typename Acc>
__device__ inline bool yamr__last_block_merge(Acc &acc, const yamr__split_workspace &ws,
                                              long long r, int parts, int part)
{
    typedef typename Acc::partial partial;
    constexpr int words = yamr__slots_of<partial>::words;
    unsigned long long *slots = ws.partials + r * parts * words;
    __shared__ bool last_block;
    if (threadIdx.x == 0) {
        yamr__publish(slots + part, parts, acc.to_partial());
        last_block = yamr__count_arrival(&ws.rows_done[r]) == (unsigned)parts - 1;
    }
    __syncthreads(); /* last_block is written */
    if (!last_block) return false;
    acc.clear();
    if (parts <= WarpSize) {
        if (threadIdx.x < (unsigned)parts)
            acc.take_partial(yamr__take_published<partial>(slots + threadIdx.x, parts));
        if (threadIdx.x < WarpSize) acc.template warp_merge<WarpSize>();
    } else {
        for (int b = threadIdx.x; b < parts; b += blockDim.x)
            acc.take_partial(yamr__take_published<partial>(slots + b, parts));
        yamr__block_merge<YAMR_VARIANT_WARP_SHUFFLE, WarpSize, YAMR__BLOCK_THREADS>(acc);
    }
    if (threadIdx.x == 0) ws.rows_done[r] = 0; /* ready for the next launch on this stream */
    return true;
}

/*
 * Grid: rows * args.blocks_per_row blocks (rows <= YAMR__ROWS_SPLIT_MAX_ROWS, and the grid at
 * most the workspace's partials when blocks_per_row > 1). A block may see no element (a short
 * segment): its partial is the identity. Unroll: 16-byte loads in flight per thread. MinBlocks:
 * blocks per multiprocessor the registers are bounded for. Split false: an instance for
 * blocks_per_row 1 only, with no last-block code.
 */
template <typename Acc, yamr_variant Variant, int WarpSize, int Unroll, typename Layout,
          int MinBlocks = 1, bool Split = true>
__global__ void __launch_bounds__(YAMR__BLOCK_THREADS, MinBlocks)
yamr_split_kernel(const typename Acc::storage *__restrict__ in, Layout layout,
                  yamr__batch_args args, typename Acc::output out)
{
    if (!yamr__warp_width_matches<WarpSize>()) return;
    const int parts = Split ? args.blocks_per_row : 1;
    /* one row (every grid-wide call) needs no division */
    const bool one_row = !Split || gridDim.x == (unsigned)parts; /* !Split: one block */
    const long long r = one_row ? 0 : blockIdx.x / parts;
    const int part = !Split ? 0 : one_row ? (int)blockIdx.x : (int)(blockIdx.x % parts);
    long long begin, n;
    layout.extent(r, begin, n);
    /* the row's blocks scan it as one team of lanes (agent_reduce.hpp); Tree: this kernel waits
     * on each thread's chain more than it needs registers */
    Acc acc = Acc::identity(args);
    const typename Acc::storage *row = in + begin;
    const yamr__blocks_team<Variant, WarpSize, Unroll, Acc::pads_with_repeats, true> team(part,
                                                                                         parts);
    yamr__consume(team, row, n, args.vectorize, acc);
    team.merge(acc);
    /* a team of several blocks merges in two steps: each block, then the row's last block
     * merges the blocks' partials */
    if constexpr (Split)
        if (parts > 1 && !yamr__last_block_merge<WarpSize>(acc, args.ws, r, parts, part))
            return;
    /* team.leader(), spelled out: called here, nvcc laid out the last-block path otherwise */
    if (threadIdx.x == 0) acc.write(r, out);
}

#endif /* YAMR_SPLIT_REDUCE_HPP */
