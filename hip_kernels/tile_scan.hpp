/* SPDX-License-Identifier: MIT */
/* The scans: every element of a row that one thread (or one lane of a group) owns, handed to
 * an accumulator in increasing index order, in 16-byte vectors where the row allows. */
#ifndef YAMR_TILE_SCAN_HPP
#define YAMR_TILE_SCAN_HPP

#include "dtype_traits.hpp"
#include "yamr_internal.h"

/*
 * Thread `lane` of `lanes` visits elements lane, lane + lanes, ... of p[0, n), with index
 * `first` + i. With `vectorize`, the elements from the first 16-byte boundary to the last are
 * read as 16-byte vectors (lane owns vectors lane, lane + lanes, ...), Unroll at a time (the
 * accumulator's chunk()), the few before the boundary and after the last vector one by one:
 * head, vectors, tail come in that index order, so each thread's indices increase. PadLast
 * (accumulators whose chunks take repeats, Acc::pads_with_repeats) also loads a lane's last 3 to
 * Unroll - 1 vectors as one chunk, for kernels whose lanes often end on such a remainder. Tree
 * (the accumulator's chunk order, yamr__best_of): for kernels that wait on each thread's chain
 * more than they need registers (the split kernel). With
 * `vectorize`, lanes >= 16 / sizeof(Storage): the head and the tail, each shorter than a
 * vector, take one element per lane at most (no loop: fewer instructions before the loads).
 * Offsets and counts are Acc::index_type (32 bits where the plan says every index fits): then
 * n + 64 * lanes must fit an int (the furthest a lane's index arithmetic reaches).
 */
template <typename Storage, int Unroll, bool PadLast = false, bool Tree = false, typename Acc>
__device__ inline void yamr__rows_scan(const Storage *__restrict__ p, long long row_n,
                                      long long row_first, int lane, int lanes, int vectorize,
                                      Acc &acc)
{
    typedef typename Acc::index_type Offset;
    constexpr int per_vec = 16 / sizeof(Storage);
    const Offset n = (Offset)row_n, first = (Offset)row_first;
    if (!vectorize) {
        for (Offset i = lane; i < n; i += lanes) acc.element(p[i], first + i);
        return;
    }
    const int misaligned = (int)(((uintptr_t)p / sizeof(Storage)) % per_vec);
    Offset head = misaligned ? per_vec - misaligned : 0;
    if (head > n) head = n;
    if (lane < head) acc.element(p[lane], first + lane);
    if (head == n) return;
    const uint4 *vec = (const uint4 *)(p + head);
    const Offset vectors = (n - head) / per_vec;
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
            acc.template chunk<Tree>(raw, first + head + v * per_vec, (Offset)lanes * per_vec);
        }
    } else {
        for (; v + (Offset)(Unroll - 1) * lanes < vectors; v += (Offset)Unroll * lanes) {
            uint4 raw[Unroll];
#pragma unroll
            for (int u = 0; u < Unroll; ++u) raw[u] = vec[v + u * lanes];
            acc.template chunk<Tree>(raw, first + head + v * per_vec, (Offset)lanes * per_vec);
        }
    }
#pragma unroll 1 /* fewer than Unroll vectors are left (measured: docs/performance.md) */
    for (; v < vectors; v += lanes) acc.template vector<Tree>(vec[v], first + head + v * per_vec);
    const Offset tail = head + vectors * per_vec + lane;
    if (tail < n) acc.element(p[tail], first + tail);
}

/*
 * A short row, n <= Count * Lanes, in one memory round trip: thread `lane` of Lanes loads all its
 * elements lane, lane + Lanes, ... before it uses any (the general scan's head, vectors and tail
 * would cost up to three round trips, one after the other). Loads of consecutive lanes are
 * adjacent. Indices count from p.
 */
template <int Count, int Lanes, typename Storage, typename Acc>
__device__ inline void yamr__rows_scan_short(const Storage *__restrict__ p, int n, int lane,
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
 * yamr__rows_scan_short in 16-byte vectors, for `p` aligned to its element: the elements before
 * the first 16-byte boundary (head) and after the last whole vector (tail), fewer than a vector
 * each, are loaded as many per lane as Lanes lanes need (lane, lane + Lanes, ...), the vectors
 * between by lanes in turn, all in the same round trip. Each lane uses its head elements, its
 * vectors, then its tail elements: increasing indices.
 */
template <int Count, int Lanes, typename Storage, typename Acc>
__device__ inline void yamr__rows_scan_short_vectors(const Storage *__restrict__ p, int n, int lane,
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

/* The short scan, in vectors when the elements are aligned (`vectorize`). */
template <int Count, int Lanes, typename Storage, typename Acc>
__device__ inline void yamr__rows_scan_short_any(const Storage *__restrict__ p, int n, int lane,
                                                int vectorize, Acc &acc)
{
    if (vectorize)
        yamr__rows_scan_short_vectors<Count, Lanes>(p, n, lane, acc);
    else
        yamr__rows_scan_short<Count, Lanes>(p, n, lane, acc);
}

#endif /* YAMR_TILE_SCAN_HPP */
