/* SPDX-License-Identifier: MIT */
/* The tiles: which elements of a range each lane of a team loads, in 16-byte vectors where the
 * range allows, and in which order it hands them to its accumulator (increasing indices). The
 * agent's one consume (agent_reduce.hpp, yamr__consume) is their only caller: a range of one
 * tile (yamr__one_tile_*), or any range (yamr__tiles: head, full tiles, short tile). */
#ifndef YAMR_TILE_SCAN_HPP
#define YAMR_TILE_SCAN_HPP

#include "dtype_traits.hpp"
#include "yamr_internal.h"

/*
 * The tiles of a range of any length that a team of `lanes` threads consumes. Lane `lane` owns elements lane, lane + lanes,
 * ... of p[0, n); with `vectorize`, the elements from the first 16-byte boundary to the last are
 * read as 16-byte vectors (lane owns vectors lane, lane + lanes, ...). Its elements come to the
 * accumulator in increasing index order: the head (the elements before the first boundary, one
 * per lane at most: lanes >= 16 / sizeof(Storage)), its full tiles, then its short tile. Offsets
 * and counts are Acc::index_type (32 bits where the plan says every index fits): then
 * n + 64 * lanes must fit an int (the furthest a lane's index arithmetic reaches).
 */

/* The elements before p's first 16-byte boundary, at most n. */
template <typename Offset, typename Storage>
__device__ inline Offset yamr__head_of(const Storage *p, Offset n)
{
    constexpr int per_vec = 16 / sizeof(Storage);
    const int misaligned = (int)(((uintptr_t)p / sizeof(Storage)) % per_vec);
    Offset head = misaligned ? per_vec - misaligned : 0;
    if (head > n) head = n;
    return head;
}

/*
 * The full tiles of a lane: Unroll of its vectors at a time (the accumulator's chunk()), from
 * vector `lane` of vec[0, vectors), whose elements start at index `first`; returns the lane's
 * first vector left. PadLast (accumulators whose chunks take repeats, Acc::pads_with_repeats) also
 * takes a lane's last 3 to Unroll - 1 vectors as one tile, for kernels whose lanes often end on
 * such a remainder. Tree (the accumulator's chunk order, yamr__best_of): for kernels that wait on
 * each thread's chain more than they need registers (the split kernel).
 */
template <int Unroll, bool PadLast, bool Tree, typename Offset, typename Acc>
__device__ inline Offset yamr__full_tiles(const uint4 *vec, Offset vectors, Offset first,
                                          int lane, int lanes, Acc &acc)
{
    constexpr int per_vec = 16 / sizeof(typename Acc::storage);
    Offset v = lane;
    if constexpr (PadLast) {
        /* Three vectors or more left: one chunk, the vectors past the last standing in as
         * copies of the first (a copy comes after its original, so it never beats it): a lane's
         * last few vectors are one round trip, not one each. Fewer go one by one (a chunk of
         * mostly copies measured slower than two round trips: docs/performance.md). A copy is
         * loaded from the first's address: every load is issued, none predicated (predicated
         * loads measured slower: docs/performance.md, "Copies loaded, not predicated"). */
        for (; v + (Offset)2 * lanes < vectors; v += (Offset)Unroll * lanes) {
            uint4 raw[Unroll];
#pragma unroll
            for (int u = 0; u < Unroll; ++u)
                raw[u] = vec[v + u * lanes < vectors ? v + u * lanes : v];
            acc.template chunk<Tree>(raw, first + v * per_vec, (Offset)lanes * per_vec);
        }
    } else {
        for (; v + (Offset)(Unroll - 1) * lanes < vectors; v += (Offset)Unroll * lanes) {
            uint4 raw[Unroll];
#pragma unroll
            for (int u = 0; u < Unroll; ++u) raw[u] = vec[v + u * lanes];
            acc.template chunk<Tree>(raw, first + v * per_vec, (Offset)lanes * per_vec);
        }
    }
    return v;
}

/* The short tile after a lane's full tiles: its vectors left from v, fewer than Unroll, one by
 * one, then its element after the last whole vector (the tail, one per lane at most). */
template <bool Tree, typename Storage, typename Offset, typename Acc>
__device__ inline void yamr__last_tile(const Storage *__restrict__ p, Offset n, const uint4 *vec,
                                       Offset vectors, Offset head, Offset v, int lane, int lanes,
                                       Acc &acc)
{
    constexpr int per_vec = 16 / sizeof(Storage);
#pragma unroll 1 /* fewer than Unroll vectors are left (measured: docs/performance.md) */
    for (; v < vectors; v += lanes) acc.template vector<Tree>(vec[v], head + v * per_vec);
    const Offset tail = head + vectors * per_vec + lane;
    if (tail < n) acc.element(p[tail], tail);
}

/* A range of any length: the head, the full tiles, then the short tile (one element at a time
 * where the range is not aligned to its element). */
template <int Unroll, bool PadLast, bool Tree, typename Storage, typename Acc>
__device__ inline void yamr__tiles(const Storage *__restrict__ p, long long length, int lane,
                                   int lanes, int vectorize, Acc &acc)
{
    typedef typename Acc::index_type Offset;
    constexpr int per_vec = 16 / sizeof(Storage);
    const Offset n = (Offset)length;
    if (!vectorize) {
        for (Offset i = lane; i < n; i += lanes) acc.element(p[i], i);
        return;
    }
    const Offset head = yamr__head_of(p, n);
    if (lane < head) acc.element(p[lane], lane);
    if (head == n) return;
    const uint4 *vec = (const uint4 *)(p + head);
    const Offset vectors = (n - head) / per_vec;
    const Offset v = yamr__full_tiles<Unroll, PadLast, Tree>(vec, vectors, head, lane, lanes, acc);
    yamr__last_tile<Tree>(p, n, vec, vectors, head, v, lane, lanes, acc);
}

/*
 * A range that is one short tile, n <= Count * Lanes, in one memory round trip: thread `lane` of
 * Lanes loads all its elements lane, lane + Lanes, ... before it uses any (the head, full tiles
 * and short tile of a longer range would cost up to three round trips, one after the other).
 * Loads of consecutive lanes are adjacent. Indices count from p.
 */
template <int Count, int Lanes, typename Storage, typename Acc>
__device__ inline void yamr__one_tile_elements(const Storage *__restrict__ p, int n, int lane,
                                            Acc &acc)
{
    Storage v[Count];
#pragma unroll
    for (int k = 0; k < Count; ++k) {
        const int i = lane + k * Lanes;
        v[k] = i < n ? p[i] : (Storage)0;
    }
#pragma unroll
    for (int k = 0; k < Count; ++k) {
        const int i = lane + k * Lanes;
        if (i < n) acc.element(v[k], i);
    }
}

/*
 * yamr__one_tile_elements in 16-byte vectors, for `p` aligned to its element: the elements before
 * the first 16-byte boundary (head) and after the last whole vector (tail), fewer than a vector
 * each, are loaded as many per lane as Lanes lanes need (lane, lane + Lanes, ...), the vectors
 * between by lanes in turn, all in the same round trip. Each lane uses its head elements, its
 * vectors, then its tail elements: increasing indices.
 */
template <int Count, int Lanes, typename Storage, typename Acc>
__device__ inline void yamr__one_tile_vectors(const Storage *__restrict__ p, int n, int lane,
                                                    Acc &acc)
{
    constexpr int per_vec = 16 / sizeof(Storage);
    constexpr int vec_count = (Count + per_vec - 1) / per_vec;
    constexpr int edge = (per_vec - 2 + Lanes) / Lanes; /* per lane: head, tail < per_vec each */
    const int misaligned = (int)(((uintptr_t)p / sizeof(Storage)) % per_vec);
    int head = misaligned ? per_vec - misaligned : 0;
    if (head > n) head = n;
    const int vectors = (n - head) / per_vec;
    const int tail_at = head + vectors * per_vec, tail = n - tail_at;
    const uint4 *vec = (const uint4 *)(p + head);
    Storage h[edge], t[edge];
#pragma unroll
    for (int k = 0; k < edge; ++k)
        h[k] = lane + k * Lanes < head ? p[lane + k * Lanes] : (Storage)0;
    uint4 raw[vec_count];
#pragma unroll
    for (int k = 0; k < vec_count; ++k) {
        const int v = lane + k * Lanes;
        raw[k] = v < vectors ? vec[v] : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int k = 0; k < edge; ++k)
        t[k] = lane + k * Lanes < tail ? p[tail_at + lane + k * Lanes] : (Storage)0;
#pragma unroll
    for (int k = 0; k < edge; ++k)
        if (lane + k * Lanes < head) acc.element(h[k], lane + k * Lanes);
    if constexpr (Acc::pads_with_repeats) {
        /* one chunk: a lane's vectors past the last stand in as copies of its first */
        if (lane < vectors) {
#pragma unroll
            for (int k = 1; k < vec_count; ++k)
                if (lane + k * Lanes >= vectors) raw[k] = raw[0];
            acc.chunk(raw, head + lane * per_vec, (long long)Lanes * per_vec);
        }
    } else {
#pragma unroll
        for (int k = 0; k < vec_count; ++k) {
            const int v = lane + k * Lanes;
            if (v < vectors) acc.vector(raw[k], head + v * per_vec);
        }
    }
#pragma unroll
    for (int k = 0; k < edge; ++k)
        if (lane + k * Lanes < tail) acc.element(t[k], tail_at + lane + k * Lanes);
}

#endif /* YAMR_TILE_SCAN_HPP */
