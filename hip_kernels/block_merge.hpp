/* SPDX-License-Identifier: MIT */
/*
 * The block layer: every thread's accumulator merged into thread 0's by the variant's block
 * algorithm (one file each under block/, chosen by a template parameter).
 *
 * A block algorithm either merges whole accumulators (warp_shuffle) or finds the block's largest
 * key (every other variant); for those, a common step takes the smallest index holding that key
 * (atomicMin in shared memory) and the element of the thread holding both, which gives "first
 * index on ties" whatever the variant. Key algorithms merge keyed accumulators only (acc_best.hpp:
 * Acc::slots of them, each merged in turn); softmax statistics go by warp_shuffle.
 */
#ifndef YAMR_BLOCK_MERGE_HPP
#define YAMR_BLOCK_MERGE_HPP

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

/* The variant's flags in the table (YAMR__GRID_WIDE, YAMR__ONE_BLOCK_FIRST, ...), at compile
 * time: which instances libyamr holds for it (yamr_internal.h). */
constexpr unsigned yamr__variant_flags(yamr_variant v)
{
#define YAMR__FLAGS_OF(id, name, widths, flags, correctness) v == id ? (unsigned)(flags) :
    return YAMR__VARIANT_TABLE(YAMR__FLAGS_OF) 0u;
#undef YAMR__FLAGS_OF
}

/* One best accumulator (acc_best.hpp) by a key algorithm. A key algorithm returns after at least
 * one barrier, which orders thread 0's reset of `first` before every thread's atomicMin. Every
 * thread reads the algorithm's shared state, `first` and `bits` before a barrier that a next call
 * cannot pass before writing them again, so calls may follow each other with no barrier. */
template <typename Algorithm, int WarpSize, bool Probe, typename Best>
__device__ inline void yamr__merge_by_key(Best &b, yamr__race_probe *probe)
{
    typedef typename Best::Key Key;
    typedef typename Best::index_type Index;
    typedef typename std::conditional<sizeof(Index) == 8, unsigned long long, unsigned>::type Word;
    __shared__ Word first; /* the smallest index holding the best key; `none` for no element */
    __shared__ typename Best::storage bits;
    if (threadIdx.x == 0) first = (Word)Best::none;
    const Key best = Algorithm::template max_key<Key, WarpSize, Probe>(b.key, probe);
    const bool holds = b.index != Best::none && b.key == best;
    if (holds) atomicMin(&first, (Word)b.index);
    __syncthreads(); /* first is complete */
    const Index at = (Index)first;
    if (holds && b.index == at) bits = b.bits; /* indices are distinct: one thread */
    __syncthreads(); /* bits is written */
    b.key = best;
    b.index = at;
    b.bits = bits;
}

/* Merges every thread's accumulator into thread 0's. A block may call it again at once (for its
 * next row). blockDim.x is a multiple of W, at most BlockThreads; every thread calls it. */
template <yamr_variant Variant, int WarpSize, int BlockThreads, bool Probe = false, typename Acc>
__device__ inline void yamr__block_merge(Acc &acc, yamr__race_probe *probe = NULL)
{
    typedef yamr__block_algorithm<Variant> algorithm;
    if constexpr (algorithm::merges_accumulators) {
        algorithm::template merge<WarpSize, BlockThreads>(acc);
    } else {
        static_assert(Acc::slots > 0, "a key algorithm merges keyed accumulators only");
#pragma unroll
        for (int k = 0; k < Acc::slots; ++k)
            yamr__merge_by_key<algorithm, WarpSize, Probe>(acc.slot(k), probe);
    }
}

#endif /* YAMR_BLOCK_MERGE_HPP */
