/* SPDX-License-Identifier: MIT */
/*
 * Top-k of each row (src/topk.h gives the order and the NaN rules).
 *
 * Every element becomes a rank: its order-preserving key (yamr_keys.h; MIN complements it, a NaN
 * is the top key under YAMR_NAN_PROPAGATE) with its column, so that a larger rank is a larger
 * key or an equal key at a smaller column. Ranks are unique within a row, so "the k largest
 * ranks, largest first" is exactly the stable order the API promises, whatever order threads
 * see the elements in.
 *
 * Two ways to keep the best ranks seen so far (src/topk_shape.c picks by k; each is a shape of
 * the policy table, src/policy.h, whose row's values are the kernels' template arguments):
 *  - warp select (TOPK_SELECT, k <= the row's slots warps' width): each warp keeps its own sorted
 *    list in registers and its own candidate buffer, and no step of a scan waits for another
 *    warp. A thread compares what it loaded with the threshold (floats by value, the rest by
 *    key); the rare hits go to the buffer at once (a prefix sum of the lanes' counts), and a
 *    full buffer is sorted and merged into the list with shuffles. The threshold is the best
 *    lower bound of the answer's k-th known: the warp's own k-th, a seed from group maxima (of
 *    a warp's whole row or, where the plan says so, its first loads; of all the block's warps'
 *    first loads), and the words the block's other warps and the row's other blocks publish. A
 *    block's warps merge their lists at the end.
 *  - a block's shared list (larger k): a list of a power of two >= k ranks in shared memory and
 *    a shared buffer of candidates, flushed by a bitonic sort of the whole block; k above its
 *    capacity goes in rounds of that capacity, each taking the best ranks strictly below the
 *    last rank of the round before (kept per row in the workspace). Its threshold starts at a
 *    floor from counts of the keys' top bits (the part's or the whole row's), the same whatever
 *    the order of the data.
 * Short rows of small k take lane rows instead (a few lanes a row, the row in registers, its
 * candidates placed by rank: no list). Either way, a row is a warp's (short rows), a block's, or
 * several blocks' (few long rows):
 * then each leaves its sorted list in the workspace and the row's last block (few lists, or
 * lists of one slot) or yamr_topk_merge_kernel (a block per row) merges them and writes the
 * answer; lists under a floor of the whole row's counts (a few ranks each) go to
 * yamr_topk_place_kernel instead (several blocks a row, each rank placed by a count). On random
 * data almost every element fails one compare from the start, so the scan runs near the speed
 * of the read; ordered data costs more flushes, never a different result.
 */
#ifndef YAMR_TOPK_HPP
#define YAMR_TOPK_HPP

#include "dtype_traits.hpp"
#include "tile_scan.hpp"
#include "topk.h"
#include "yamr_internal.h"
#include "yamr_port.h"

/* The tuning is the policy rows' (src/policy.h, TOPK_SELECT and TOPK_LIST): topk.hip passes a
 * row's values as the kernels' template arguments. What stays here is what the kernels are
 * written around: the block (every GPU row has YAMR__BLOCK_THREADS, policy.hpp checks), the
 * group of appends between two flush checks (a team's buffer holds two; the merge kernel reads
 * a position of every list in one, so YAMR__TOPK_MAX_BLOCKS_PER_ROW lists at most), and a list's
 * capacity in shared memory (the ranks' list_max). */
#define YAMR__TOPK_THREADS YAMR__BLOCK_THREADS
/* Positions a thread appends between two flush checks; a team's buffer holds two such groups. */
#define YAMR__TOPK_GROUP_N 4
/* The floor (yamr_topk_kernel): bins of each level of the key counts, as bits of the key. */
#define YAMR__TOPK_FLOOR_BITS 11
/* The counts refine the floor's bin by the key's next bits where it holds more than this many
 * times the elements the floor stands for (a second count of the row; 1, not 4: sorting up to
 * 4k candidates costs more than that count, H200: 128 x 32000 k512 86 -> 76 us, 64 x 128256
 * k1000 143 -> 122). */
#define YAMR__TOPK_FLOOR_REFINE 1
/* The whole row's first count takes keys at or above the cut of a sample's 2 share + this many
 * elements (yamr__topk_count_row; share: the sample's part of k, at least 1). */
#define YAMR__TOPK_FLOOR_CUT_MARGIN 8
/* Select kernel instances bound to at most this many blocks a multiprocessor (registers to
 * spare) load a thread's next batch of vectors before they test the current one (H100, 4 slots
 * at bound 2: 1 x 2^26 k100 148 -> 134 us, 1024 x 32000 k100 109 -> 99; at bound 4 the loads
 * ahead took 1024 x 32000 k8 from 62 to 97 us). */
#define YAMR__TOPK_AHEAD_BOUND 2
/* The place kernel's blocks (yamr_topk_place_kernel): this many a multiprocessor over the rows,
 * one a row at least (H100: 1 and 2 level; at 4 each block's searches and copies cost more than
 * they spread: 1 x 2^26 k1024 267 -> 285 us, 16 x 1000000 k200 118 -> 126). */
#define YAMR__TOPK_PLACE_BLOCKS_PER_SM 2
/* Which floor a call takes is its plan's (src/topk_shape.c, by the TOPK_LIST row's floor_ratio and
 * floor_own_blocks); the modes and the guess's sample are src/topk.h's. */

/* ---- Ranks ---- */

/* A 32-bit key and a column below 2^32 - 1 in one word: the key above the column's complement.
 * The bottom (0) is below every element's rank, since no column is 2^32 - 1. */
struct yamr__rank32 {
    unsigned long long w;
    static constexpr int list_max = 1024; /* a block's list: 8 KiB, its buffer 16 KiB */
};

/* Any key with a 64-bit column: compared as (key, complement of the column). */
struct yamr__rank64 {
    unsigned long long key, ncol;
    static constexpr int list_max = 512; /* a block's list: 8 KiB, its buffer 32 KiB */
};

__device__ inline bool yamr__rank_gt(yamr__rank32 a, yamr__rank32 b) { return a.w > b.w; }
__device__ inline bool yamr__rank_gt(yamr__rank64 a, yamr__rank64 b)
{
    return a.key > b.key || (a.key == b.key && a.ncol > b.ncol);
}
__device__ inline void yamr__rank_make(yamr__rank32 &r, unsigned long long key, long long col)
{
    r.w = (key << 32) | (unsigned long long)(~(uint32_t)col);
}
__device__ inline void yamr__rank_make(yamr__rank64 &r, unsigned long long key, long long col)
{
    r.key = key;
    r.ncol = ~(unsigned long long)col;
}
template <typename R>
__device__ inline R yamr__rank_bottom()
{
    R r;
    memset(&r, 0, sizeof r);
    return r;
}
/* The column of a rank, or -1 for the bottom (no element). */
__device__ inline long long yamr__rank_col(yamr__rank32 r)
{
    return r.w == 0 ? -1 : (long long)(uint32_t)~(uint32_t)r.w;
}
__device__ inline long long yamr__rank_col(yamr__rank64 r)
{
    return (r.key | r.ncol) == 0 ? -1 : (long long)~r.ncol;
}
template <typename R>
__device__ inline R yamr__rank_max(R a, R b)
{
    return yamr__rank_gt(b, a) ? b : a;
}
template <int WarpSize>
__device__ inline yamr__rank32 yamr__rank_shfl(yamr__rank32 r, int lane, bool xor_lane)
{
    r.w = xor_lane ? yamr__shfl_xor<WarpSize>(r.w, lane) : yamr__shfl<WarpSize>(r.w, lane);
    return r;
}
template <int WarpSize>
__device__ inline yamr__rank64 yamr__rank_shfl(yamr__rank64 r, int lane, bool xor_lane)
{
    r.key = xor_lane ? yamr__shfl_xor<WarpSize>(r.key, lane) : yamr__shfl<WarpSize>(r.key, lane);
    r.ncol = xor_lane ? yamr__shfl_xor<WarpSize>(r.ncol, lane) : yamr__shfl<WarpSize>(r.ncol, lane);
    return r;
}

/* Puts the larger of a and b first where `descending`, else last. */
template <typename R>
__device__ inline void yamr__rank_order(R &a, R &b, bool descending)
{
    if (yamr__rank_gt(b, a) == descending) {
        const R t = a;
        a = b;
        b = t;
    }
}

/* Set lanes of a warp's mask. */
__device__ inline int yamr__popc_mask(yamr__lane_mask m)
{
    if constexpr (sizeof(m) == 8)
        return __popcll((unsigned long long)m);
    else
        return __popc((unsigned)m);
}

/* ---- Teams: the threads that share one list ---- */

struct yamr__topk_block_team {
    static constexpr int size = YAMR__TOPK_THREADS;
    __device__ static int rank() { return threadIdx.x; }
    __device__ static void sync() { __syncthreads(); }
    __device__ static bool sync_or(bool p) { return __syncthreads_or(p) != 0; }
};

template <int WarpSize>
struct yamr__topk_warp_team {
    static constexpr int size = WarpSize;
    __device__ static int rank() { return threadIdx.x % WarpSize; }
    __device__ static void sync() { yamr__warp_sync(~(yamr__lane_mask)0); }
    __device__ static bool sync_or(bool p)
    {
        const bool any = yamr__any<WarpSize>(~(yamr__lane_mask)0, p);
        sync();
        return any;
    }
};

/* What a team keeps in shared memory. */
template <typename R>
struct yamr__topk_state {
    R *list;    /* list_size ranks, largest first */
    R *buffer;  /* two groups of candidates, in no order */
    int *count; /* candidates in the buffer */
    int list_size;
};

/* Buffer ranks of a team: two groups of appends. */
template <typename Team>
__host__ __device__ constexpr int yamr__topk_buffer()
{
    return 2 * Team::size * YAMR__TOPK_GROUP_N;
}

/* A team's state at `smem` (list_size + yamr__topk_buffer ranks), empty. */
template <typename Team, typename R>
__device__ inline yamr__topk_state<R> yamr__topk_open(R *smem, int *count, int list_size)
{
    yamr__topk_state<R> st;
    st.list = smem;
    st.buffer = smem + list_size;
    st.count = count;
    st.list_size = list_size;
    for (int i = Team::rank(); i < list_size; i += Team::size) st.list[i] = yamr__rank_bottom<R>();
    if (Team::rank() == 0) *count = 0;
    Team::sync();
    return st;
}

/* Sorts s[0, n) (n a power of two) largest first; the whole team takes part. */
template <typename Team, typename R>
__device__ inline void yamr__topk_sort(R *s, int n)
{
    for (int size = 2; size <= n; size *= 2) {
        for (int stride = size / 2; stride > 0; stride /= 2) {
            for (int t = Team::rank(); t < n / 2; t += Team::size) {
                const int i = 2 * t - (t & (stride - 1)); /* pairs (i, i + stride) */
                yamr__rank_order(s[i], s[i + stride], (i & size) == 0);
            }
            Team::sync();
        }
    }
}

/* Sorts the buffer and merges it into the list, keeping the list's size of the best; empties
 * the buffer. Called by the whole team, after a sync; ends with one. */
template <typename Team, typename R>
__device__ inline void yamr__topk_flush(const yamr__topk_state<R> &st)
{
    const int n = *st.count;
    int p = 1;
    while (p < n) p *= 2;
    for (int i = n + Team::rank(); i < p; i += Team::size) st.buffer[i] = yamr__rank_bottom<R>();
    Team::sync();
    yamr__topk_sort<Team>(st.buffer, p);
    /* The larger of list[i] and buffer[L - 1 - i] (both sorted largest first) is, over all i,
     * the best L of both, as one bitonic sequence; half-cleaners sort it. */
    const int L = st.list_size;
    for (int i = Team::rank(); i < L; i += Team::size) {
        const int j = L - 1 - i;
        if (j < p && yamr__rank_gt(st.buffer[j], st.list[i])) st.list[i] = st.buffer[j];
    }
    Team::sync();
    for (int stride = L / 2; stride > 0; stride /= 2) {
        for (int t = Team::rank(); t < L / 2; t += Team::size) {
            const int i = 2 * t - (t & (stride - 1));
            yamr__rank_order(st.list[i], st.list[i + stride], true);
        }
        Team::sync();
    }
    if (Team::rank() == 0) *st.count = 0;
    Team::sync();
}

/* Appends r to the buffer where `pass`; every lane of the warp takes part. */
template <int WarpSize, typename R>
__device__ inline void yamr__topk_append(const yamr__topk_state<R> &st, bool pass, const R &r)
{
    const yamr__lane_mask m = yamr__ballot<WarpSize>(pass);
    if (m == 0) return;
    const int lane = threadIdx.x % WarpSize;
    const int leader = yamr__lowest_lane(m);
    int base = 0;
    if (lane == leader) base = atomicAdd(st.count, yamr__popc_mask(m));
    base = yamr__shfl<WarpSize>(base, leader);
    if (pass) {
        const yamr__lane_mask below = (((yamr__lane_mask)1) << lane) - 1;
        st.buffer[base + yamr__popc_mask(m & below)] = r;
    }
}

/* The buffer's count at which a team flushes: early, while the threshold is weak, a flush of a
 * few hundred candidates raises it for a fraction of what sorting a full buffer costs (bitonic:
 * n log^2 n); at most half the buffer, so that another group of appends always fits. */
template <typename Team>
__device__ inline int yamr__topk_flush_at(int list_size)
{
    const int want = 2 * list_size > 256 ? 2 * list_size : 256;
    return want < yamr__topk_buffer<Team>() / 2 ? want : yamr__topk_buffer<Team>() / 2;
}

/* After a group of appends: the buffer's count, read by every thread before any appends again
 * (hence the second sync); a flush when it reaches `flush_at` (yamr__topk_flush_at, or half the
 * buffer). Returns the threshold. */
template <typename Team, typename R>
__device__ inline R yamr__topk_settle(const yamr__topk_state<R> &st, int k, R threshold,
                                      int flush_at)
{
    Team::sync();
    const int count = *st.count;
    Team::sync();
    if (count >= flush_at) {
        yamr__topk_flush<Team>(st);
        threshold = st.list[k - 1];
    }
    return threshold;
}

/* Sorts the warp's N * WarpSize ranks, largest first: rank e = j * WarpSize + lane is v[j] of
 * that lane. Bitonic: strides of a warp or more compare a lane's own slots, smaller ones go
 * through shuffles. */
template <int WarpSize, int N, typename R>
__device__ inline void yamr__topk_warp_sort(R (&v)[N])
{
    const int lane = threadIdx.x % WarpSize;
#pragma unroll
    for (int size = 2; size <= N * WarpSize; size *= 2) {
#pragma unroll
        for (int stride = size / 2; stride > 0; stride /= 2) {
#pragma unroll
            for (int j = 0; j < N; ++j) {
                const int e = j * WarpSize + lane;
                const bool descending = (e & size) == 0;
                if (stride >= WarpSize) {
                    const int partner = j ^ (stride / WarpSize);
                    if (partner > j) yamr__rank_order(v[j], v[partner], descending);
                } else {
                    const R o = yamr__rank_shfl<WarpSize>(v[j], stride, true);
                    const bool keep_larger = ((lane & stride) == 0) == descending;
                    if (yamr__rank_gt(o, v[j]) == keep_larger) v[j] = o;
                }
            }
        }
    }
}

/*
 * The first threshold: ranks below it cannot be in the answer. Each lane takes the ranks of the
 * first YAMR__TOPK_SEED_N positions it reads; for k <= WarpSize the warp sorts the lanes' best
 * of them, else (k <= YAMR__TOPK_SEED_N * WarpSize) all of them, and takes the k-th. The largest
 * over the team's warps is a lower bound of the team's k-th best (that warp alone holds k
 * ranks at least as large). Larger k: the bottom, and the first flush makes the threshold.
 */
#define YAMR__TOPK_SEED_N 4
/* Entry e (= j * WarpSize + lane in v[j]) of a warp's sorted ranks, in every lane. */
template <int WarpSize, int N, typename R>
__device__ inline R yamr__reg_at(const R (&v)[N], int e)
{
    R x = yamr__rank_bottom<R>();
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const R t = yamr__rank_shfl<WarpSize>(v[j], e % WarpSize, false);
        if (j == e / WarpSize) x = t;
    }
    return x;
}

template <int WarpSize, int N, typename R>
__device__ inline R yamr__topk_warp_kth(R (&v)[N], int k)
{
    yamr__topk_warp_sort<WarpSize>(v);
    return yamr__reg_at<WarpSize>(v, k - 1);
}

/* The k-th of a warp's sample (positions offset + j * stride, j < YAMR__TOPK_SEED_N, for each
 * lane's offset), or the bottom for k > YAMR__TOPK_SEED_N * WarpSize. */
template <int WarpSize, typename R, typename Source>
__device__ inline R yamr__topk_warp_seed(long long n, int k, bool has_bound, R bound,
                                         const Source &src, long long offset, long long stride)
{
    if (k > YAMR__TOPK_SEED_N * WarpSize) return yamr__rank_bottom<R>();
    R v[YAMR__TOPK_SEED_N];
#pragma unroll
    for (int j = 0; j < YAMR__TOPK_SEED_N; ++j) {
        const long long i = offset + j * stride;
        v[j] = yamr__rank_bottom<R>();
        R r;
        if (i < n && src.rank(src.load(i), i, r) && (!has_bound || yamr__rank_gt(bound, r)))
            v[j] = r;
    }
    if (k <= WarpSize) {
        R best[1] = {v[0]};
#pragma unroll
        for (int j = 1; j < YAMR__TOPK_SEED_N; ++j) best[0] = yamr__rank_max(best[0], v[j]);
        return yamr__topk_warp_kth<WarpSize>(best, k);
    }
    return yamr__topk_warp_kth<WarpSize>(v, k);
}

template <typename Team, int WarpSize, typename R, typename Source>
__device__ inline R yamr__topk_seed(const yamr__topk_state<R> &st, long long n, int k,
                                    bool has_bound, R bound, const Source &src)
{
    const R kth =
        yamr__topk_warp_seed<WarpSize>(n, k, has_bound, bound, src, Team::rank(), Team::size);
    if (Team::size == WarpSize) return kth;
    const int warps = Team::size / WarpSize;
    if (Team::rank() % WarpSize == 0) st.buffer[Team::rank() / WarpSize] = kth;
    Team::sync();
    R best = st.buffer[0];
    for (int w = 1; w < warps; ++w) best = yamr__rank_max(best, st.buffer[w]);
    Team::sync(); /* the buffer is the appends' again */
    return best;
}

/* A team's tile at `base`: position base + u * Team::size + the thread's rank into e[u], for
 * u < Unroll, those below n (the scan's loads). */
template <typename Team, int Unroll, typename Source>
__device__ inline void yamr__topk_load_tile(const Source &src, long long base, long long n,
                                            typename Source::item (&e)[Unroll])
{
#pragma unroll
    for (int u = 0; u < Unroll; ++u) {
        const long long i = base + u * Team::size + Team::rank();
        if (i < n) e[u] = src.load(i);
    }
}

/* Bit u: position base + u * Team::size + the thread's rank of a tile (e[u], loaded by
 * yamr__topk_load_tile) is an element whose rank is not below `least` (and below `bound` where
 * has_bound). */
template <typename Team, int Unroll, typename R, typename Source>
__device__ inline unsigned yamr__topk_tile_passes(const Source &src,
                                                  const typename Source::item (&e)[Unroll],
                                                  long long base, long long n, R least,
                                                  bool has_bound, R bound)
{
    unsigned passes = 0;
#pragma unroll
    for (int u = 0; u < Unroll; ++u) {
        const long long i = base + u * Team::size + Team::rank();
        R r;
        if (i < n && src.rank(e[u], i, r) && !yamr__rank_gt(least, r) &&
            (!has_bound || yamr__rank_gt(bound, r)))
            passes |= 1u << u;
    }
    return passes;
}

/*
 * The scan: the ranks of positions [0, n) of `src` (src.load(i), then src.rank(item, i, &r):
 * false for no element, a NaN under YAMR_NAN_IGNORE), those at or above `bound` left out where
 * has_bound, into the list, whose k-th rank is the threshold. The threshold starts at the larger
 * of the seed and `floor` (a lower bound of the list's k-th: yamr__topk_floor, or the bottom).
 * Unroll positions a thread loads at once; the team first asks whether any of them passes (one
 * barrier), and only then appends them in groups of YAMR__TOPK_GROUP_N, each followed by the
 * flush check. The threshold only rises, and only at a flush check, so a position that fails
 * the first test fails in its group too, and the test is exact. A rank passes when it is not
 * below the threshold: ranks are unique and each is seen once, so a rank equal to the threshold
 * is the seed's own and belongs to the candidates (a floor is no element's rank).
 */
template <typename Team, int WarpSize, int Unroll, typename R, typename Source>
__device__ inline void yamr__topk_scan(const yamr__topk_state<R> &st, long long n, int k,
                                       bool has_bound, R bound, R floor, const Source &src)
{
    static_assert(Unroll % YAMR__TOPK_GROUP_N == 0, "appends go in whole groups");
    static_assert(Unroll <= 32, "a thread's passes are one word");
    R threshold =
        yamr__rank_max(yamr__topk_seed<Team, WarpSize>(st, n, k, has_bound, bound, src), floor);
    /* from a floor the threshold is near the list's k-th already: no early flushes */
    const int flush_at = yamr__rank_gt(floor, yamr__rank_bottom<R>())
                             ? yamr__topk_buffer<Team>() / 2
                             : yamr__topk_flush_at<Team>(st.list_size);
    const long long step = (long long)Unroll * Team::size;
    typename Source::item next[Unroll];
    yamr__topk_load_tile<Team, Unroll>(src, 0, n, next);
    for (long long base = 0; base < n; base += step) {
        typename Source::item e[Unroll];
#pragma unroll
        for (int u = 0; u < Unroll; ++u) e[u] = next[u];
        /* the next tile's loads in flight during this one's tests and barriers */
        if (base + step < n) yamr__topk_load_tile<Team, Unroll>(src, base + step, n, next);
        /* bit u: position u passes the threshold as it stands */
        const unsigned passes =
            yamr__topk_tile_passes<Team, Unroll>(src, e, base, n, threshold, has_bound, bound);
        if (!Team::sync_or(passes != 0)) continue; /* the same for the whole team */
#pragma unroll
        for (int g = 0; g < Unroll; g += YAMR__TOPK_GROUP_N) {
            if (base + (long long)g * Team::size >= n) break; /* the same for the whole team */
#pragma unroll
            for (int u = g; u < g + YAMR__TOPK_GROUP_N; ++u) {
                const long long i = base + u * Team::size + Team::rank();
                R r = yamr__rank_bottom<R>();
                const bool pass = ((passes >> u) & 1u) && src.rank(e[u], i, r) &&
                                  !yamr__rank_gt(threshold, r);
                yamr__topk_append<WarpSize>(st, pass, r);
            }
            threshold = yamr__topk_settle<Team>(st, k, threshold, flush_at);
        }
    }
    if (*st.count > 0) yamr__topk_flush<Team>(st); /* settle's syncs ordered the last appends */
}

/* The inclusive prefix sum of v over the warp's lanes, in lane `lane`. */
template <int WarpSize>
__device__ inline int yamr__lanes_sum(int v, int lane)
{
#pragma unroll
    for (int d = 1; d < WarpSize; d *= 2) {
        const int o = yamr__shfl<WarpSize>(v, lane >= d ? lane - d : 0);
        if (lane >= d) v += o;
    }
    return v;
}

/* ---- Warp select: each warp its own list, in registers ----
 *
 * For k up to Q * WarpSize (Q <= the TOPK_SELECT row's slots), each warp keeps its own list of
 * Q * WarpSize ranks sorted largest first in registers (entry e = j * WarpSize + lane is v[j] of
 * that lane) and its own candidate buffer in shared memory, so that no step of a scan waits for
 * another warp. A thread first compares only what it loaded with the threshold (equal keys pass;
 * floats by value, yamr__float_hits): most loads of random data end there, at the cost of an
 * argmax's compare.
 * Candidates go to the buffer by ballot; a full buffer is sorted a list's length at a time and
 * merged into the list, all in registers and shuffles. The threshold is the largest lower bound
 * of the answer's k-th rank known: the warp's own k-th, a seed from the warp's first loads (a
 * block's part: from all its warps' first loads, eight times a warp's, so that its warps flush
 * fewer times), and the words other warps of the block and other blocks of the row publish (each
 * warp's k-th alone is such a bound: that warp holds k ranks at least as large). A stale word is
 * still a bound, so words are read without a barrier.
 */

/* The word a rank publishes (rank32: the rank; rank64: its key), and the least rank of a word
 * or of a key: at or below every rank that has it. */
__device__ inline unsigned long long yamr__rank_word(yamr__rank32 r) { return r.w; }
__device__ inline unsigned long long yamr__rank_word(yamr__rank64 r) { return r.key; }
__device__ inline void yamr__rank_of_word(yamr__rank32 &r, unsigned long long w) { r.w = w; }
__device__ inline void yamr__rank_of_word(yamr__rank64 &r, unsigned long long w)
{
    r.key = w;
    r.ncol = 0;
}
__device__ inline void yamr__rank_of_key(yamr__rank32 &r, unsigned long long key) { r.w = key << 32; }
__device__ inline void yamr__rank_of_key(yamr__rank64 &r, unsigned long long key)
{
    r.key = key;
    r.ncol = 0;
}
__device__ inline unsigned long long yamr__rank_key(yamr__rank32 r) { return r.w >> 32; }
__device__ inline unsigned long long yamr__rank_key(yamr__rank64 r) { return r.key; }

/* Whether the select kernel serves ranks R of keys of `Bytes`-byte elements: not the wide ranks of
 * narrow keys (rows of 2^32 - 1 elements or more, memory-bound), which take the shared list
 * whatever k (src/topk_shape.c plans so): the largest select instances are not built for them. */
template <int Bytes, typename R>
__host__ __device__ constexpr bool yamr__topk_select_holds()
{
    return Bytes == 8 || sizeof(R) == 8;
}

/* A bitonic sequence of the warp's Q * WarpSize ranks, sorted largest first. */
template <int WarpSize, int Q, typename R>
__device__ inline void yamr__reg_clean(R (&v)[Q])
{
    const int lane = threadIdx.x % WarpSize;
#pragma unroll
    for (int stride = Q * WarpSize / 2; stride > 0; stride /= 2) {
#pragma unroll
        for (int j = 0; j < Q; ++j) {
            if (stride >= WarpSize) {
                const int partner = j ^ (stride / WarpSize);
                if (partner > j) yamr__rank_order(v[j], v[partner], true);
            } else {
                const R o = yamr__rank_shfl<WarpSize>(v[j], stride, true);
                if (yamr__rank_gt(o, v[j]) == ((lane & stride) == 0)) v[j] = o;
            }
        }
    }
}

/* v becomes the best Q * WarpSize of v and s, both sorted largest first: the larger of v's entry
 * e and s's entry L - 1 - e is, over all e, the best L of both, as one bitonic sequence. */
template <int WarpSize, int Q, typename R>
__device__ inline void yamr__reg_merge(R (&v)[Q], const R (&s)[Q])
{
    const int lane = threadIdx.x % WarpSize;
#pragma unroll
    for (int j = 0; j < Q; ++j)
        v[j] = yamr__rank_max(v[j], yamr__rank_shfl<WarpSize>(s[Q - 1 - j], WarpSize - 1 - lane,
                                                              false));
    yamr__reg_clean<WarpSize>(v);
}

/* The counted seed (yamr__warp_select::seed_counted): k from YAMR__TOPK_SEED_COUNTED_K (for
 * k = 1 a warp's own seed, its exact maximum, beats a counted one, 16 bits of a key), and a
 * 16-bit digest of a key of `Bytes`-byte elements in the keys' order (a larger key's is not
 * smaller): the whole key of 2 bytes (NaN's top key as the largest), else its top 16 bits; the
 * least key of a digest is at or below every key that has it. */
#define YAMR__TOPK_SEED_COUNTED_K 2
template <int Bytes, typename Key>
__device__ inline unsigned yamr__seed_digest(Key key)
{
    if constexpr (Bytes == 2) return key > 0xffffu ? 0xffffu : (unsigned)key;
    else return (unsigned)(key >> (8 * Bytes - 16));
}
template <int Bytes>
__device__ inline unsigned long long yamr__seed_key(unsigned digest)
{
    return (unsigned long long)digest << (Bytes == 2 ? 0 : 8 * Bytes - 16);
}

/* The largest bin b of counts[0, 256) whose count with the bins above it reaches `need`, in every
 * lane of the warp, and `need` less the bins above b; -1 where all of them hold fewer. */
template <int WarpSize>
__device__ inline int yamr__seed_bin(const unsigned *counts, int &need)
{
    constexpr int per = 256 / WarpSize;
    const int lane = threadIdx.x % WarpSize;
    unsigned c[per], mine = 0;
#pragma unroll
    for (int j = 0; j < per; ++j) {
        c[j] = counts[lane * per + j];
        mine += c[j];
    }
    unsigned from = mine; /* this lane's bins and those of the lanes above */
#pragma unroll
    for (int d = 1; d < WarpSize; d *= 2) {
        const unsigned o = yamr__shfl<WarpSize>(from, lane + d < WarpSize ? lane + d : lane);
        if (lane + d < WarpSize) from += o;
    }
    const unsigned want = (unsigned)need;
    const yamr__lane_mask m = yamr__ballot<WarpSize>(from - mine < want && from >= want);
    if (m == 0) return -1;
    int bin = 0, rest = 0;
    unsigned run = from - mine;
#pragma unroll
    for (int j = per - 1; j >= 0; --j) {
        if (run < want && run + c[j] >= want) {
            bin = lane * per + j;
            rest = (int)(want - run);
        }
        run += c[j];
    }
    const int at = yamr__lowest_lane(m);
    need = yamr__shfl<WarpSize>(rest, at);
    return yamr__shfl<WarpSize>(bin, at);
}

/* One warp's list, buffer and threshold. Every member function is called by the whole warp. */
/* Candidates a warp appends between two checks of its buffer's room: a whole vector's, at most
 * 4 per lane. */
template <typename Storage>
__host__ __device__ constexpr int yamr__select_group()
{
    return 16 / sizeof(Storage) < 4 ? 16 / sizeof(Storage) : 4;
}

/* One warp's list, buffer and threshold. Every member function is called by the whole warp. */
template <int WarpSize, int Q, typename R, typename Storage>
struct yamr__warp_select {
    static constexpr int list = Q * WarpSize;
    /* a buffer with at most `list` candidates takes a group and one more warp's width */
    static constexpr int buffer = list + (yamr__select_group<Storage>() + 1) * WarpSize;
    R v[Q];
    R threshold; /* no rank below it is in the answer */
    R *buf;      /* `buffer` ranks of shared memory */
    int count;   /* candidates in buf, the same in every lane */
    int k;
    unsigned long long *team; /* the block's word (shared memory), or NULL */
    unsigned long long *row;  /* the row's word (global memory), or NULL */

    __device__ inline void open(R *b, int k_, unsigned long long *team_, unsigned long long *row_)
    {
#pragma unroll
        for (int j = 0; j < Q; ++j) v[j] = yamr__rank_bottom<R>();
        threshold = yamr__rank_bottom<R>();
        buf = b;
        count = 0;
        k = k_;
        team = team_;
        row = row_;
    }
    __device__ inline void raise(const R &r) { threshold = yamr__rank_max(threshold, r); }
    /* The block's word, as it stands. */
    __device__ inline void refresh()
    {
        if (!team) return;
        R t;
        yamr__rank_of_word(t, *(volatile unsigned long long *)team);
        raise(t);
    }
    /* Offers the threshold's word to the block and the row, and takes theirs. */
    __device__ inline void publish()
    {
        unsigned long long w = yamr__rank_word(threshold), was = 0;
        const int lane = threadIdx.x % WarpSize;
        if (row && lane == 0) was = atomicMax(row, w);
        if (team && lane == 0) {
            const unsigned long long t = atomicMax(team, w > was ? w : was);
            was = was > t ? was : t;
        }
        w = yamr__shfl<WarpSize>(was, 0);
        R t;
        yamr__rank_of_word(t, w);
        raise(t);
    }
    /* Merges the buffer into the list, a list's length at a time, each round's k-th raising the
     * threshold. Where not `all`, once what is left fits a list's length it stays in the buffer
     * (at its start, those below the risen threshold dropped) for a later flush: a round sorts
     * a whole list's length however few it holds, and the next appends may fill it. */
    __device__ inline void flush(bool all)
    {
        const int lane = threadIdx.x % WarpSize;
        yamr__warp_sync(~(yamr__lane_mask)0); /* the appends are seen */
        int s0 = 0;
#pragma unroll 1
        for (; s0 < count; s0 += list) {
            R s[Q];
#pragma unroll
            for (int j = 0; j < Q; ++j) {
                const int e = s0 + j * WarpSize + lane;
                s[j] = e < count ? buf[e] : yamr__rank_bottom<R>();
            }
            yamr__topk_warp_sort<WarpSize>(s);
            yamr__reg_merge<WarpSize>(v, s);
            raise(yamr__reg_at<WarpSize>(v, k - 1));
            if (!all && count - (s0 + list) <= list) break;
        }
        yamr__warp_sync(~(yamr__lane_mask)0); /* the rounds' reads are done */
        int left = 0; /* the rest, [s0 + list, count): a list's length at most, past [0, list) */
#pragma unroll
        for (int j = 0; j < Q; ++j) {
            const int e = s0 + list + j * WarpSize + lane;
            const R r = e < count ? buf[e] : yamr__rank_bottom<R>();
            const bool keep = e < count && !yamr__rank_gt(threshold, r);
            const yamr__lane_mask m = yamr__ballot<WarpSize>(keep);
            if (keep) buf[left + yamr__popc_mask(m & ((((yamr__lane_mask)1) << lane) - 1))] = r;
            left += yamr__popc_mask(m);
        }
        yamr__warp_sync(~(yamr__lane_mask)0); /* read before the next appends */
        count = left;
        publish();
    }
    /* Appends r where `pass` (the caller made room). */
    __device__ inline void append(bool pass, const R &r)
    {
        const yamr__lane_mask m = yamr__ballot<WarpSize>(pass);
        const int lane = threadIdx.x % WarpSize;
        if (pass) buf[count + yamr__popc_mask(m & ((((yamr__lane_mask)1) << lane) - 1))] = r;
        count += yamr__popc_mask(m);
    }
    /* The counted seed, in place of seed() for k from YAMR__TOPK_SEED_COUNTED_K: the k-th
     * largest of the group maxima, found without a sort by counts of the keys' digests
     * (yamr__seed_digest), the top byte, then the next byte within the top byte's bin of the
     * k-th; that bin's digest gives its least key. Where Block, every thread of the block calls
     * it and the maxima are all its warps' (a bound as a warp's own is and higher: the block's
     * first loads are its warps' together), `counts` 512 words of shared memory, zero on entry;
     * else the warp's own, `counts` 256 words of the warp's, cleared here for each byte. */
    template <bool Block, int G, typename Key>
    __device__ inline void seed_counted(const Key (&group_max)[G], unsigned *counts)
    {
        constexpr int bytes = sizeof(Storage);
        const int lane = threadIdx.x % WarpSize;
        const auto sync = [] {
            if constexpr (Block) __syncthreads();
            else yamr__warp_sync(~(yamr__lane_mask)0);
        };
        const auto clear = [&] {
            if constexpr (!Block) {
                sync(); /* the last counts are read */
                for (int i = lane; i < 256; i += WarpSize) counts[i] = 0;
                sync();
            }
        };
        clear();
#pragma unroll
        for (int j = 0; j < G; ++j)
            atomicAdd(&counts[yamr__seed_digest<bytes>(group_max[j]) >> 8], 1u);
        sync();
        int need = k;
        const int top = yamr__seed_bin<WarpSize>(counts, need);
        clear();
        unsigned *const second = Block ? counts + 256 : counts;
#pragma unroll
        for (int j = 0; j < G; ++j) {
            const unsigned d = yamr__seed_digest<bytes>(group_max[j]);
            if ((int)(d >> 8) == top) atomicAdd(&second[d & 255u], 1u);
        }
        sync();
        /* the same in every warp, which read the same counts */
        const int next = top < 0 ? -1 : yamr__seed_bin<WarpSize>(second, need);
        if constexpr (!Block) sync(); /* read before the buffer takes ranks */
        if (next >= 0) {
            R r;
            yamr__rank_of_key(r, yamr__seed_key<bytes>((unsigned)(top << 8 | next)));
            raise(r);
        }
        publish();
    }
    /* The seed: the k-th largest of G maxima per lane (of disjoint groups of elements; 0 where a
     * group has none; G >= Q) is at or below k elements' keys, so its least rank is a bound. */
    template <int G, typename Key>
    __device__ inline void seed(const Key (&group_max)[G])
    {
        R s[G];
#pragma unroll
        for (int j = 0; j < G; ++j) yamr__rank_of_key(s[j], (unsigned long long)group_max[j]);
        yamr__topk_warp_sort<WarpSize>(s);
        raise(yamr__reg_at<WarpSize>(s, k - 1));
        publish();
    }
};

/* The 16-byte vector's element c. */
template <typename Storage>
__device__ inline Storage yamr__vector_element(const uint4 &raw, int c)
{
    Storage e[16 / sizeof(Storage)];
    memcpy(e, &raw, sizeof e);
    return e[c];
}

/* The 16-byte vector's element c, c not a constant: selects, not a copy to local memory. */
template <typename Storage>
__device__ inline Storage yamr__vector_element_at(const uint4 &raw, int c)
{
    if constexpr (sizeof(Storage) == 8) {
        return (Storage)(c == 0 ? (unsigned long long)raw.y << 32 | raw.x
                                : (unsigned long long)raw.w << 32 | raw.z);
    } else {
        constexpr int per_word = 4 / sizeof(Storage);
        const int i = c / per_word;
        uint32_t w = raw.x;
        w = i == 1 ? raw.y : w;
        w = i == 2 ? raw.z : w;
        w = i == 3 ? raw.w : w;
        return (Storage)(w >> (8 * sizeof(Storage) * (c % per_word)));
    }
}

/* Element b of vectors raw[V] (bit u * per_vec + c: element c of raw[u]), b not a constant:
 * selects, not a copy to local memory. */
template <int V, typename Storage>
__device__ inline Storage yamr__vectors_element_at(const uint4 (&raw)[V], int b)
{
    constexpr int per_vec = 16 / sizeof(Storage);
    const int u = b / per_vec;
    uint4 x = raw[0];
#pragma unroll
    for (int j = 1; j < V; ++j)
        if (u == j) x = raw[j];
    return yamr__vector_element_at<Storage>(x, b % per_vec);
}

/* Element c of a vector of floats of `Bytes` bytes (bf16 where Bf16, else f16 for 2) as a float,
 * and a float's bits back in that width (exact for what the first gives). */
template <int Bytes, bool Bf16>
__device__ inline float yamr__float_element(const uint4 &raw, int c)
{
    if constexpr (Bytes == 4) {
        return __uint_as_float(yamr__vector_element<uint32_t>(raw, c));
    } else {
        const uint16_t b = yamr__vector_element<uint16_t>(raw, c);
        return Bf16 ? __uint_as_float((uint32_t)b << 16) : yamr__half_to_float(b);
    }
}
template <int Bytes, bool Bf16>
__device__ inline uint32_t yamr__float_bits(float v)
{
    if constexpr (Bytes == 4) return __float_as_uint(v);
    else return Bf16 ? __float_as_uint(v) >> 16 : yamr__float_to_half(v);
}

/* Floats (f32, f16, bf16: Bytes and Bf16): which elements of the vectors in_range (bit u: raw[u])
 * may be candidates, as yamr__select_scan's hits, by float compares of their values (times
 * `sign`: -1 for MIN) with t (yamr__topk_elements::float_threshold) in place of each element's
 * key: a compare an element (and a shift or a conversion for 2 bytes), where a 2-byte key takes
 * a dozen instructions and the scan of 8 elements a vector is bound by them. NaN passes where
 * NanPasses (YAMR_NAN_PROPAGATE: the unordered compare); +-0 compare equal, as their keys do. */
template <int Unroll, int Bytes, bool Bf16, bool NanPasses>
__device__ inline unsigned yamr__float_hits(const uint4 (&raw)[Unroll], unsigned in_range, float t,
                                            float sign)
{
    constexpr int per_vec = 16 / Bytes;
    unsigned hits = 0;
#pragma unroll
    for (int u = 0; u < Unroll; ++u) {
        if (!((in_range >> u) & 1u)) continue;
#pragma unroll
        for (int c = 0; c < per_vec; ++c) {
            const float v = sign * yamr__float_element<Bytes, Bf16>(raw[u], c);
            if (NanPasses ? !(v < t) : v >= t) hits |= 1u << (u * per_vec + c);
        }
    }
    return hits;
}

/* The seed's vectors of a thread (yamr__select_scan): its first `batches` of Unroll, or all of
 * them where batches is 0, each to take(raw, u), u its place in its batch. */
template <int Unroll, typename Take>
__device__ inline void yamr__seed_vectors(const uint4 *vec, long long vectors, int tid, int lanes,
                                          int batches, const Take &take)
{
    for (long long b0 = 0; b0 < vectors; b0 += (long long)Unroll * lanes) {
#pragma unroll
        for (int u = 0; u < Unroll; ++u) {
            const long long v = b0 + (long long)u * lanes + tid;
            if (v >= vectors) continue;
            const uint4 raw = vec[v]; /* one 16-byte load */
            take(raw, u);
        }
        if (--batches == 0) break;
    }
}

/* The seed's groups: group j of a thread holds element c of its vector u (yamr__seed_vectors)
 * where (u * per_vec + c) % Groups is j; its largest key, 0 where it has none. Floats take the
 * largest value (times -1 for MIN) by float max, then its key: a NaN is skipped, as is a group
 * of NaNs alone (0), which lowers the seed at most, still a bound. */
template <int Groups, int Bytes, bool Bf16, int Unroll, typename Source>
__device__ inline void yamr__float_group_max(const uint4 *vec, long long vectors, int tid,
                                             int lanes, int batches, const Source &src,
                                             typename Source::key_type (&group_max)[Groups])
{
    typedef typename Source::item S;
    constexpr int per_vec = 16 / Bytes;
    const float sign = src.mode.flip ? -1.0f : 1.0f;
    float m[Groups];
#pragma unroll
    for (int j = 0; j < Groups; ++j) m[j] = -INFINITY;
    const auto take = [&](const uint4 &raw, int u) {
#pragma unroll
        for (int c = 0; c < per_vec; ++c) {
            float &g = m[(u * per_vec + c) % Groups];
            g = fmaxf(g, sign * yamr__float_element<Bytes, Bf16>(raw, c));
        }
    };
    yamr__seed_vectors<Unroll>(vec, vectors, tid, lanes, batches, take);
#pragma unroll
    for (int j = 0; j < Groups; ++j)
        group_max[j] =
            m[j] == -INFINITY ? 0 : src.key((S)yamr__float_bits<Bytes, Bf16>(sign * m[j]));
}
template <int Unroll, int Groups, typename Source>
__device__ inline void yamr__group_max(const uint4 *vec, long long vectors, int tid, int lanes,
                                       int batches, const Source &src,
                                       typename Source::key_type (&group_max)[Groups])
{
    typedef typename Source::item S;
    typedef typename Source::key_type Key;
    constexpr int per_vec = 16 / sizeof(S);
    if constexpr (sizeof(S) <= 4) {
        if (sizeof(S) == 2 || src.floats) { /* bf16 or f16 by the rule's infinity, or f32 */
            constexpr bool two = sizeof(S) == 2;
            if (two && src.inf == YAMR_BF16_INF)
                yamr__float_group_max<Groups, sizeof(S), two, Unroll>(vec, vectors, tid, lanes,
                                                                      batches, src, group_max);
            else
                yamr__float_group_max<Groups, sizeof(S), false, Unroll>(vec, vectors, tid, lanes,
                                                                        batches, src, group_max);
            return;
        }
    }
    if constexpr (sizeof(S) != 2) { /* integers and 8 bytes: the keys */
#pragma unroll
        for (int j = 0; j < Groups; ++j) group_max[j] = 0;
        const auto take = [&](const uint4 &raw, int u) {
#pragma unroll
            for (int c = 0; c < per_vec; ++c) {
                const Key key = src.key(yamr__vector_element<S>(raw, c));
                Key &g = group_max[(u * per_vec + c) % Groups];
                g = key > g ? key : g;
            }
        };
        yamr__seed_vectors<Unroll>(vec, vectors, tid, lanes, batches, take);
    }
}

/* The select scan's hits: bit u * per_vec + c where element c of vector raw[u] (u in in_range)
 * has a key at or above `least` and counts; floats by yamr__float_hits, the rest by their keys. */
template <int Unroll, typename Source>
__device__ inline unsigned yamr__select_hits(const uint4 (&raw)[Unroll], unsigned in_range,
                                             typename Source::key_type least, const Source &src)
{
    typedef typename Source::item S;
    constexpr int per_vec = 16 / sizeof(S);
    if constexpr (sizeof(S) <= 4) {
        if (sizeof(S) == 2 || src.floats) {
            const float t = src.float_threshold(least), sign = src.mode.flip ? -1.0f : 1.0f;
            constexpr bool two = sizeof(S) == 2; /* bf16 or f16, by the rule's infinity */
            constexpr int b = sizeof(S);
            const bool nan = src.mode.nan_key != 0; /* passes: YAMR_NAN_PROPAGATE */
            if (two && src.inf == YAMR_BF16_INF)
                return nan ? yamr__float_hits<Unroll, b, two, true>(raw, in_range, t, sign)
                           : yamr__float_hits<Unroll, b, two, false>(raw, in_range, t, sign);
            return nan ? yamr__float_hits<Unroll, b, false, true>(raw, in_range, t, sign)
                       : yamr__float_hits<Unroll, b, false, false>(raw, in_range, t, sign);
        }
    }
    unsigned hits = 0; /* integers and 8 bytes: the keys */
#pragma unroll
    for (int u = 0; u < Unroll; ++u) {
        if (!((in_range >> u) & 1u)) continue;
#pragma unroll
        for (int c = 0; c < per_vec; ++c) {
            const typename Source::key_type key = src.key(yamr__vector_element<S>(raw[u], c));
            if (key >= least && src.counts(key)) hits |= 1u << (u * per_vec + c);
        }
    }
    return hits;
}

/*
 * The select scan: the elements [0, n) of `src` into a warp's select; thread `tid` of `lanes`
 * (a multiple of the warp) reads 16-byte vectors tid, tid + lanes, ... between the row's first
 * and last 16-byte boundaries, Unroll at a time, and the few elements before and after them
 * (fewer than a vector each, so all of them fit the empty buffer of the first warp) one each,
 * first. A thread's key compare is the whole work for a load with no candidate in its warp.
 * The seed's groups hold every element where `seed_all` (a warp's row whose plan is not
 * YAMR__TOPK_SEED_FIRST: two reads of the row), else the first loads (a warp's own row of two
 * slots or more: its first two batches), whose maxima the block's warps count together where
 * `seed_counts` (seed_counted).
 * Where Ahead, a thread's next batch is loaded before the current one is tested (the loads of
 * one batch in flight during the other's compares and appends).
 * The flush is written out three times, and the sorts once each, since every copy of their
 * unrolled networks costs the compiler time: with a copy at each of its five call sites, sm_75's
 * ptxas took over 13 CPU minutes on this file.
 */
template <int WarpSize, int Q, int Unroll, bool Ahead, typename R, typename Source>
__device__ inline void
yamr__select_scan(yamr__warp_select<WarpSize, Q, R, typename Source::item> &sel, long long n,
                  const Source &src, int tid, int lanes, bool seed_all, unsigned *seed_counts)
{
    typedef typename Source::item S;
    typedef typename Source::key_type Key;
    constexpr int per_vec = 16 / sizeof(S), group = yamr__select_group<S>();
    constexpr int seed_groups = 2 * Q, groups = Unroll * per_vec / group;
    static_assert(Unroll * per_vec <= 32, "a lane's hits are one word");
    static_assert(group == per_vec || 2 * group == per_vec, "a group is a vector or half");
    const int lane = threadIdx.x % WarpSize;
    const S *p = src.row;
    const long long head = yamr__head_of(p, n);
    const long long vectors = (n - head) / per_vec;
    const long long tail = head + vectors * per_vec;
    const uint4 *vec = (const uint4 *)(p + head);
    Key group_max[seed_groups];
    const int batches = seed_all ? 0 : lanes == WarpSize && Q >= 2 ? 2 : 1;
    yamr__group_max<Unroll>(vec, vectors, tid, lanes, batches, src, group_max);
    /* counted: the block's counts, or a warp's of two slots or more in its buffer (empty until
     * the seed is found; a warp of one slot sorts its maxima faster) */
    static_assert(yamr__warp_select<WarpSize, Q, R, S>::buffer * sizeof(R) >=
                      256 * sizeof(unsigned),
                  "a buffer holds 256 counts");
    if (sel.k >= YAMR__TOPK_SEED_COUNTED_K && seed_counts)
        sel.template seed_counted<true>(group_max, seed_counts);
    else if (sel.k >= YAMR__TOPK_SEED_COUNTED_K && Q >= 2)
        sel.template seed_counted<false>(group_max, (unsigned *)sel.buf);
    else
        sel.seed(group_max);
    { /* the buffer is empty: room for a warp's width */
        const long long t = tid < head ? tid : tail + tid - head;
        R r = yamr__rank_bottom<R>();
        sel.append(t < n && src.rank(p[t], t, r), r);
    }
    const auto load = [&](uint4 (&r)[Unroll], long long b) {
#pragma unroll
        for (int u = 0; u < Unroll; ++u) {
            const long long v = b + (long long)u * lanes + tid;
            r[u] = v < vectors ? vec[v] : make_uint4(0, 0, 0, 0);
        }
    };
    uint4 next[Unroll];
    if (Ahead) load(next, 0);
    for (long long b0 = 0; b0 < vectors; b0 += (long long)Unroll * lanes) {
        uint4 raw[Unroll];
        if (Ahead) {
#pragma unroll
            for (int u = 0; u < Unroll; ++u) raw[u] = next[u];
            load(next, b0 + (long long)Unroll * lanes);
        } else {
            load(raw, b0);
        }
        sel.refresh();
        const Key least = (Key)yamr__rank_key(sel.threshold);
        unsigned in_range = 0; /* bit u: vector u is the part's */
#pragma unroll
        for (int u = 0; u < Unroll; ++u)
            if (b0 + (long long)u * lanes + tid < vectors) in_range |= 1u << u;
        /* bit u * per_vec + c: element c of vector u may be a candidate */
        const unsigned hits = yamr__select_hits<Unroll>(raw, in_range, least, src);
        if (!yamr__any<WarpSize>(~(yamr__lane_mask)0, hits != 0)) continue;
        const int mine = __popc(hits);
        const int below = yamr__lanes_sum<WarpSize>(mine, lane);
        const int total = yamr__shfl<WarpSize>(below, WarpSize - 1);
        /* Step -1: every hit at once where the buffer takes them, each lane's at its offset.
         * Else (a weak threshold: ordered or equal data) steps 0, 1, ...: a group of a vector
         * at a time, checked against the threshold as it rises. */
#pragma unroll 1
        for (int step = total <= sel.buffer - sel.list ? -1 : 0; step < groups; ++step) {
            if (step < 0 ? sel.count + total > sel.buffer : sel.count > sel.list) sel.flush(false);
            if (step < 0) {
                /* a hit of each lane at a time: hits are few, and a branch per element
                 * would take every element where any lane of the warp has a hit */
                int at = sel.count + below - mine;
#pragma unroll 1
                for (unsigned rest = hits; rest; rest &= rest - 1) {
                    const int b = __ffs(rest) - 1, u = b / per_vec, c = b % per_vec;
                    R r;
                    src.rank(yamr__vectors_element_at<Unroll, S>(raw, b),
                             head + (b0 + (long long)u * lanes + tid) * per_vec + c, r);
                    sel.buf[at++] = r;
                }
                sel.count += total;
                if (sel.count > sel.list) sel.flush(false); /* early: the threshold rises sooner */
                break;
            }
            const int u = step * group / per_vec, c0 = step * group % per_vec;
            uint4 x = raw[0];
#pragma unroll
            for (int j = 1; j < Unroll; ++j)
                if (u == j) x = raw[j];
            if (c0 != 0) { /* the group's elements first (a group is half a vector, or all) */
                x.x = x.z;
                x.y = x.w;
            }
            const long long first = head + (b0 + (long long)u * lanes + tid) * per_vec + c0;
#pragma unroll
            for (int c = 0; c < group; ++c) {
                R r = yamr__rank_bottom<R>();
                sel.append(((hits >> (step * group + c)) & 1u) &&
                               src.rank(yamr__vector_element<S>(x, c), first + c, r) &&
                               !yamr__rank_gt(sel.threshold, r),
                           r);
            }
        }
    }
    if (sel.count > 0) sel.flush(true);
}

/* ---- Kernels ---- */

/*
 * Top-k keys: kernel instances per element width, not per dtype. 2 bytes: floats (f16, bf16:
 * yamr__key_half of yamr_keys.h, the infinity's bits as data); 4 bytes (f32, i32, u32) and
 * 8 bytes (f64, i64): a float's key (dtype_traits.hpp) or an integer's (the sign mask as data),
 * which one as data, or for the shared list of 4 bytes an instance each (yamr__topk_keys). Keys
 * order elements as yamr_keys.h does, so the tests' host reference checks them.
 */
struct yamr__topk_key_rule {
    unsigned long long sign_mask;
    unsigned inf;
    int floats; /* 4 and 8 bytes: f32, f64 (else an integer) */
};

/* The rule of a dtype (host). */
inline yamr__topk_key_rule yamr__topk_key_rule_of(yamr_dtype t)
{
    yamr__topk_key_rule k = {0, 0, 0};
    switch (t) {
    case YAMR_DTYPE_F16: k.inf = YAMR_F16_INF; break;
    case YAMR_DTYPE_BF16: k.inf = YAMR_BF16_INF; break;
    case YAMR_DTYPE_I32: k.sign_mask = 0x80000000ull; break;
    case YAMR_DTYPE_I64: k.sign_mask = 0x8000000000000000ull; break;
    case YAMR_DTYPE_F32:
    case YAMR_DTYPE_F64: k.floats = 1; break;
    default: break;
    }
    return k;
}

/* The storage of a width, and its key: 32 bits up to 4 bytes, else 64. */
template <int Bytes>
struct yamr__topk_width;
template <>
struct yamr__topk_width<2> {
    typedef uint16_t storage;
    typedef uint32_t key;
};
template <>
struct yamr__topk_width<4> {
    typedef uint32_t storage;
    typedef uint32_t key;
};
template <>
struct yamr__topk_width<8> {
    typedef uint64_t storage;
    typedef unsigned long long key;
};

/* What every top-k kernel is told: 128 bytes at most (nvcc keeps the fields of a larger kernel
 * argument in parameter memory and reads them through a pointer: the 2-byte select kernel ran
 * 15% slower at 136 bytes). */
struct yamr__topk_args {
    long long rows, cols, ld;
    int k;               /* entries this round (<= list_size) */
    int list_size;       /* a power of two >= k */
    int blocks_per_row;  /* > 1: partial lists to `partials`, a merge kernel follows */
    int is_min, nan_ignore;
    long long out_k;     /* entries per row of the outputs (the call's k) */
    long long out_first; /* this round's first entry */
    void *partials;      /* rows * blocks_per_row * k ranks */
    void *bounds;        /* rows ranks: the last rank of the round before (NULL in the first) */
    int write_bounds;    /* a later round follows: keep this round's last rank */
    int lanes_per_row;   /* select kernel: the lanes of a row: the warp's width, fewer (lane
                            lists), or 0 (a block or blocks per row) */
    void *row_words;     /* blocks_per_row > 1, 0 between calls: the select kernel's rows
                            threshold words and rows arrival words, or the shared-list
                            kernel's rows arrival words (its own merge), or NULL */
    yamr__topk_key_rule key; /* the dtype's key */
    int floor;           /* yamr_topk_kernel: a yamr__topk_floor_mode */
    int merge_blocks;    /* yamr_topk_place_kernel: blocks a row (topk.hip) */
    void *counts;        /* YAMR__TOPK_FLOOR_COUNT1, _COUNT2, _ROW: rows x 2 x bins counts */
};
static_assert(sizeof(yamr__topk_args) <= 128, "the kernels' argument fits 128 bytes");

/* The answer of one row from its team's sorted list: values from the input at each rank's
 * column (the empty value where no element), indices (may be NULL). */
template <typename Team, int Bytes, typename R>
__device__ inline void yamr__topk_write(const yamr__topk_state<R> &st, const yamr__topk_args &a,
                                        long long row,
                                        const typename yamr__topk_width<Bytes>::storage *in_row,
                                        typename yamr__topk_width<Bytes>::storage *values,
                                        long long *indices,
                                        typename yamr__topk_width<Bytes>::storage empty)
{
    const long long out = row * a.out_k + a.out_first;
    for (int j = Team::rank(); j < a.k; j += Team::size) {
        const long long col = yamr__rank_col(st.list[j]);
        values[out + j] = col < 0 ? empty : in_row[col];
        if (indices) indices[out + j] = col;
    }
    if (a.write_bounds && Team::rank() == 0) ((R *)a.bounds)[row] = st.list[a.k - 1];
}

/* The answer of one row from a warp's register list (as yamr__topk_write). */
template <int WarpSize, int N, int Bytes, typename R>
__device__ inline void yamr__reg_write(const R (&v)[N], const yamr__topk_args &a, long long row,
                                       const typename yamr__topk_width<Bytes>::storage *in_row,
                                       typename yamr__topk_width<Bytes>::storage *values,
                                       long long *indices,
                                       typename yamr__topk_width<Bytes>::storage empty)
{
    const long long out = row * a.out_k + a.out_first;
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const int e = j * WarpSize + (int)(threadIdx.x % WarpSize);
        if (e >= a.k) continue;
        const long long col = yamr__rank_col(v[j]);
        values[out + e] = col < 0 ? empty : in_row[col];
        if (indices) indices[out + e] = col;
    }
}

/* Which key an instance computes: a float's, an integer's, or either (the dtype's, as data). The
 * select kernels take either (one instance a width: they wait on memory, the choice costs
 * nothing measurable); the shared-list kernel, bound by its instructions, takes the dtype's own
 * for 4 bytes (either: 1 x 2^26 k 1024 9% slower on an H100, f32 and i32 alike). */
enum yamr__topk_keys { YAMR__KEYS_FLOAT, YAMR__KEYS_INT, YAMR__KEYS_EITHER };

/* The element ranks of a row: false for a NaN under YAMR_NAN_IGNORE. */
template <int Bytes, int Keys, typename R>
struct yamr__topk_elements {
    typedef typename yamr__topk_width<Bytes>::storage item;
    typedef typename yamr__topk_width<Bytes>::key key_type;
    const item *row;
    long long first; /* the column of row[0] */
    yamr__key_mode<key_type> mode; /* MIN's flip; the NaN key (top: PROPAGATE, bottom: IGNORE) */
    key_type sign_mask; /* integers: the sign bit (signed) or 0 (unsigned) */
    key_type inf;       /* 2-byte floats: the infinity's bits */
    bool floats;        /* 4 and 8 bytes: f32's or f64's key, else an integer's */
    bool skip_bottom;   /* floats under YAMR_NAN_IGNORE: the bottom key is a NaN */
    __device__ inline item load(long long i) const { return row[i]; }
    __device__ inline key_type key(item x) const
    {
        if constexpr (Bytes == 2) { /* the host's 16-bit key (yamr_keys.h) */
            return yamr__key_half(x, inf, mode.flip != 0, mode.nan_key == 0);
        } else if (Keys == YAMR__KEYS_INT || (Keys == YAMR__KEYS_EITHER && !floats)) {
            return (key_type)x ^ sign_mask ^ mode.flip;
        } else if constexpr (Bytes == 4) {
            return yamr__device_key_f32(__uint_as_float(x), mode);
        } else {
            return yamr__device_key_f64(__longlong_as_double((long long)x), mode);
        }
    }
    /* Elements of up to 4 bytes: an element below or at every element by value and by key, for
     * places of no element (-inf, +inf for MIN; an integer of key 0). */
    __device__ inline item pad() const
    {
        if constexpr (Bytes == 2) {
            return (item)(inf | (mode.flip ? 0u : 0x8000u));
        } else if constexpr (Bytes == 4) {
            if (floats) return (item)(mode.flip ? 0x7f800000u : 0xff800000u);
            return (item)(sign_mask ^ mode.flip);
        } else {
            return 0;
        }
    }
    /* Whether an element of this key is one (a NaN under YAMR_NAN_IGNORE is not). */
    __device__ inline bool counts(key_type key) const { return !(skip_bottom && key == 0); }
    /* Floats of up to 4 bytes: the float t such that an element's value, times -1 for MIN,
     * reaches t where its key reaches `least` (yamr__float_hits): the key's bits back (the
     * inverse of yamr__key_half, or of the f32 key); -inf for the bottom, +inf for the NaN key
     * (the NaNs, and +inf, pass: an extra candidate costs only its place in the buffer), and for
     * a key no number has, the infinity on its side. */
    __device__ inline float float_threshold(key_type least) const
    {
        float v;
        key_type mid;
        if constexpr (Bytes == 2) {
            if (least == 0) return -INFINITY;
            if (least > 0xffffu) return INFINITY;
            const uint32_t ord = mode.flip ? 0xffffu - (least - 1u) : least - 1u;
            const uint32_t bits = (ord & 0x8000u) ? (ord & 0x7fffu) : (~ord & 0xffffu);
            v = inf == YAMR_BF16_INF ? __uint_as_float(bits << 16)
                                     : yamr__half_to_float((uint16_t)bits);
            mid = 0x8000u;
        } else {
            if (least == 0) return -INFINITY;
            if (least == ~(key_type)0) return INFINITY;
            const uint32_t ord = (uint32_t)(least ^ mode.flip);
            v = __uint_as_float((ord & 0x80000000u) ? (ord ^ 0x80000000u) : ~ord);
            mid = (key_type)0x80000000u;
        }
        const float t = mode.flip ? -v : v;
        return t == t ? t : least > mid ? INFINITY : -INFINITY;
    }
    __device__ inline bool rank(item x, long long i, R &r) const
    {
        const key_type k = key(x);
        yamr__rank_make(r, (unsigned long long)k, first + i);
        return counts(k);
    }
};

/* skip_bottom: the launcher passes nan_ignore only for float dtypes (an integer's bottom key is an
 * element). */
template <int Bytes, int Keys, typename R>
__device__ inline yamr__topk_elements<Bytes, Keys, R>
yamr__topk_elements_of(const yamr__topk_args &a,
                       const typename yamr__topk_width<Bytes>::storage *in, long long row,
                       long long first)
{
    typedef typename yamr__topk_width<Bytes>::key key_type;
    yamr__topk_elements<Bytes, Keys, R> at;
    at.row = in + row * a.ld + first;
    at.first = first;
    at.mode = yamr__key_mode_of<key_type>(a.is_min, a.nan_ignore);
    at.sign_mask = (key_type)a.key.sign_mask;
    at.inf = (key_type)a.key.inf;
    at.floats = a.key.floats != 0;
    at.skip_bottom = a.nan_ignore;
    return at;
}

/* The round's bound of a row, if any. */
template <typename R>
__device__ inline R yamr__topk_bound(const yamr__topk_args &a, long long row, bool &has_bound)
{
    has_bound = a.bounds && a.out_first > 0;
    return has_bound ? ((const R *)a.bounds)[row] : yamr__rank_bottom<R>();
}

/* Work item w: part w % blocks_per_row of row w / blocks_per_row, its elements [first, first +
 * n) (n <= 0: none; a warp per row has one part, the whole row). */
struct yamr__topk_part {
    long long row, first, n;
};
__device__ inline yamr__topk_part yamr__topk_part_of(const yamr__topk_args &a, long long w)
{
    const long long chunk = (a.cols + a.blocks_per_row - 1) / a.blocks_per_row;
    yamr__topk_part p;
    p.row = w / a.blocks_per_row;
    p.first = (w % a.blocks_per_row) * chunk;
    p.n = p.first + chunk < a.cols ? chunk : a.cols - p.first;
    return p;
}

/* ---- The floor: a lower bound of a list's k-th rank from counts of the keys ----
 *
 * The threshold of the shared-list scan rises only as candidates come, so on ascending rows
 * nearly every element is one and the block sorts its buffer again and again. The floor makes
 * the first threshold as good whatever the order. Count the elements that rank (a NaN under
 * YAMR_NAN_IGNORE does not) by the top YAMR__TOPK_FLOOR_BITS bits of their key (level 1). Keys
 * are order-preserving (a larger key ranks higher; MIN's complement and the NaN key are in the
 * key) and a key's bin is monotone in the key, so for a target t: where bins b and above hold at
 * least t elements, at least t elements have keys >= lowest(b), so the t-th largest rank is at or
 * above yamr__rank_of_key(lowest(b)), which is below every rank of that key and is no element's
 * rank. The largest such b is the floor of the counts. Where b itself holds more than
 * YAMR__TOPK_FLOOR_REFINE * t elements (sorted or narrow data, where one bin of level 1 holds
 * much of the row, or a wide bin of random data), a second count takes only b's elements, by the
 * next bits (level 2): with `above` the elements of the bins above b, and c the largest level-2
 * bin such that c and above hold at least t - above (b holds that many, so c exists), at least t
 * elements have keys >= lowest(b, c).
 *
 * Bins: key_bits is the key's width (2-byte keys: 17 bits for yamr__key_half's 0..0x10000, the
 * NaN key 0xffffffff of YAMR_NAN_PROPAGATE clamped into the top bin); s1 = key_bits - BITS,
 * s2 = max(s1 - BITS, 0); level 1: min(key >> s1, top), level 2 in bin b: min((key - (b << s1))
 * >> s2, top), lowest(b, c) = (b << s1) + (c << s2). Both are monotone and every key is at or
 * above its bin's lowest. Only the top level-1 bin clamps: in any other, key - (b << s1) <
 * 2^s1, so c << s2 < 2^s1 and lowest(b, c) is below every key of the bins above b.
 *
 * The target: a round takes the ranks at positions [out_first, out_first + k) of the call's
 * answer, all below `bound` (the rounds before took the first out_first); with t = out_first + k
 * each is at or above the t-th rank, so the floor bounds the round's last rank from below.
 * Counts of a block's own part (YAMR__TOPK_FLOOR_OWN): of the t or more part elements at or
 * above the floor, at most out_first are at or above the bound, so at least k remain below it
 * and the block's list (the best k of its part below the bound) is exactly what it is without a
 * floor. Counts of the whole row (YAMR__TOPK_FLOOR_ROW, several blocks a row): a block's part may
 * hold fewer than k ranks at or above the floor, so its list may end in bottoms; it still holds
 * every rank of the row's answer that its part has (each is above the floor and among the part's
 * best k below the bound), and where its k-th is no bottom, that is the part's own k-th below the
 * bound. The merge kernel skips bottoms and takes the lists' k-th ranks as lower bounds of the
 * answer's, as before (a bottom is below everything), so it runs unchanged.
 *
 * The whole row's counts come from the blocks of the row, each adding its part's counts from
 * shared memory into the row's 64-bit counts in the workspace (zeroed by the launcher, in stream
 * order; yamr__topk_row_counts): a launch of yamr_topk_kernel with YAMR__TOPK_FLOOR_COUNT1, then
 * one with _COUNT2, then the rounds with _ROW. COUNT1 counts level 1 and, in the same pass, level
 * 2 of a guessed bin g, only keys at or above a cut: both from a sample of
 * YAMR__TOPK_FLOOR_SAMPLE positions spread over the row (the same sample, so the same g and cut,
 * in every block of the row), the cut a little below the sample's share of the call's k and g
 * its bin. Counts of fewer keys are still counts of elements, so every floor they give is still
 * a bound; the keys above the cut are all counted, so bins above g's are exact, g's level 2 is
 * exact from the cut up, and g's level 1 holds the keys above the cut. Where the refined bin
 * holds a large share of the row (sorted, equal or narrow data: the case that needs level 2),
 * the sample sees it and g is that bin, and the row is read twice in all, not three times.
 * COUNT2: every block finds the same bin b for t = the call's k from the level-1 counts; where b
 * is to be refined and is not g, it counts level 2 of b (a second pass). _ROW: each block finds
 * the floor of its round's target; level 2 (g's or b's counts, whichever is b's) serves a round
 * whose level-1 bin is b (the same test, so the same decision as COUNT2's), and always where b
 * is g under a cut (g's level 1 is not all of g). Where the keys above the cut are fewer than the
 * target, no bin reaches it, and the scan starts from no floor.
 */
/* The bins of a key width (Bytes of the element). */
template <int Bytes>
struct yamr__topk_floor_bins {
    static constexpr int bins = 1 << YAMR__TOPK_FLOOR_BITS;
    static constexpr int key_bits = Bytes == 2 ? 17 : 8 * Bytes;
    static constexpr int s1 = key_bits - YAMR__TOPK_FLOOR_BITS;
    static constexpr int s2 = s1 > YAMR__TOPK_FLOOR_BITS ? s1 - YAMR__TOPK_FLOOR_BITS : 0;
    template <typename Key>
    __device__ static int level1(Key key)
    {
        const Key b = key >> s1;
        return b < (Key)(bins - 1) ? (int)b : bins - 1;
    }
    template <typename Key>
    __device__ static int level2(Key key, int b)
    {
        const Key c = (key - ((Key)b << s1)) >> s2;
        return c < (Key)(bins - 1) ? (int)c : bins - 1;
    }
    __device__ static unsigned long long lowest(int b, int c)
    {
        return ((unsigned long long)b << s1) + ((unsigned long long)c << s2);
    }
};

/* A row's counts in the workspace (YAMR__TOPK_FLOOR_ROW; 64-bit words): level 1; level 2 of the
 * guessed bin, counted with level 1; level 2 of the floor's bin where the guess missed; the
 * guessed bin + 1 (0: none); the cut (0: none), below which no key was counted. */
struct yamr__topk_row_counts {
    unsigned long long *level1, *guessed, *missed, *guess, *cut;
};
__host__ __device__ constexpr size_t yamr__topk_floor_row_bytes()
{
    return (3 * ((size_t)1 << YAMR__TOPK_FLOOR_BITS) + 2) * sizeof(unsigned long long);
}
__device__ inline yamr__topk_row_counts yamr__topk_row_counts_of(const yamr__topk_args &a,
                                                                 long long row)
{
    constexpr int bins = 1 << YAMR__TOPK_FLOOR_BITS;
    unsigned long long *p =
        (unsigned long long *)((char *)a.counts + row * yamr__topk_floor_row_bytes());
    yamr__topk_row_counts c = {p, p + bins, p + 2 * bins, p + 3 * bins, p + 3 * bins + 1};
    return c;
}

/* A thread's run of equal bins, added to counts (shared memory) at once: on sorted and equal rows,
 * where a warp's lanes hit one bin, few shared atomics, not one per element on one address. */
struct yamr__topk_run {
    int bin = 0;
    unsigned n = 0;
    /* b, where `on` (predicated: no branch a position) */
    __device__ inline void add(unsigned *counts, int b, bool on = true)
    {
        const bool other = on && b != bin;
        if (other && n) atomicAdd(&counts[bin], n);
        n = other ? 1u : n + (unsigned)on;
        bin = other ? b : bin;
    }
    __device__ inline void end(unsigned *counts)
    {
        if (n) atomicAdd(&counts[bin], n);
    }
};

/* Every element of p[0, n) to take(element), in order within a thread: the 16-byte vectors
 * between the first and last 16-byte boundaries, as many a thread at once as Unroll elements'
 * bytes (the scan's), and the few before and after them one each, first (a load and its
 * address a vector, not an element: the counts' loop is bound by its instructions). */
template <typename Team, int Unroll, typename S, typename Take>
__device__ inline void yamr__topk_each(const S *p, long long n, const Take &take)
{
    constexpr int per_vec = 16 / sizeof(S);
    constexpr int V = Unroll * (int)sizeof(S) >= 16 ? Unroll * (int)sizeof(S) / 16 : 1;
    static_assert(2 * per_vec <= Team::size, "a thread an element of the head and tail");
    const long long head = yamr__head_of(p, n);
    const long long vectors = (n - head) / per_vec;
    const long long tail = head + vectors * per_vec;
    const int t = Team::rank();
    if (t < head + (n - tail)) take(p[t < head ? t : tail + t - head]);
    const uint4 *vec = (const uint4 *)(p + head);
    for (long long b0 = 0; b0 < vectors; b0 += (long long)V * Team::size) {
        uint4 raw[V];
#pragma unroll
        for (int u = 0; u < V; ++u) {
            const long long v = b0 + (long long)u * Team::size + t;
            if (v < vectors) raw[u] = vec[v];
        }
#pragma unroll
        for (int u = 0; u < V; ++u) {
            if (b0 + (long long)u * Team::size + t >= vectors) break;
#pragma unroll
            for (int c = 0; c < per_vec; ++c) take(yamr__vector_element<S>(raw[u], c));
        }
    }
}

/*
 * Counts the elements of positions [0, n) of `src` (shared memory, bins words each; 32 bits, as a
 * part has fewer than 2^32 elements: topk.hip sees to it): all of them into level1 by level 1
 * where Level1, and those of level-1 bin in_bin into level2 by level 2 (none where in_bin < 0);
 * where Cut, only keys at or above `cut` (a warp whose keys are all below it skips the counts).
 * Called by the whole team after a barrier (the counts may alias the last user's memory); ends
 * with one.
 */
template <typename Team, int Unroll, bool Level1, bool Cut = false, typename Source>
__device__ inline void yamr__topk_count(unsigned *level1, unsigned *level2, int in_bin,
                                        long long n, const Source &src,
                                        typename Source::key_type cut = 0)
{
    typedef yamr__topk_floor_bins<(int)sizeof(typename Source::item)> Bins;
    typedef typename Source::key_type Key;
    for (int j = Team::rank(); j < Bins::bins; j += Team::size) {
        if (Level1) level1[j] = 0;
        if (in_bin >= 0) level2[j] = 0;
    }
    Team::sync();
    yamr__topk_run run1, run2;
    yamr__topk_each<Team, Unroll>(src.row, n, [&](typename Source::item x) {
        const Key key = src.key(x);
        if (Cut && key < cut) return;
        const bool counts = src.counts(key);
        const int bin = Bins::level1(key);
        if (Level1) run1.add(level1, bin, counts);
        if (in_bin >= 0) run2.add(level2, Bins::level2(key, in_bin), counts && bin == in_bin);
    });
    if (Level1) run1.end(level1);
    if (in_bin >= 0) run2.end(level2);
    Team::sync();
}

/* A bin of counts for a target: bin -1 where all bins hold fewer than the target. */
struct yamr__topk_floor_bin {
    int bin;
    unsigned long long above, in_bin; /* elements of the bins above it, and its own */
};

/*
 * The largest bin b of counts[bins] (shared or global memory) whose bins b and above hold at
 * least `target` (>= 1) elements, in every thread of the team. Thread t takes bins/size bins
 * (thread 0 the top ones); a scan of their sums over the threads, from the top, finds the one
 * thread where the running sum reaches the target. `scratch`: Team::size / WarpSize + 3 words of
 * shared memory. Called by the whole team; ends with a barrier.
 */
template <typename Team, int WarpSize, typename Count>
__device__ inline yamr__topk_floor_bin yamr__topk_find_bin(const Count *counts,
                                                           unsigned long long target,
                                                           unsigned long long *scratch)
{
    constexpr int bins = 1 << YAMR__TOPK_FLOOR_BITS, per = bins / Team::size;
    constexpr int warps = Team::size / WarpSize;
    static_assert(bins % Team::size == 0 && per > 0, "every thread takes whole bins");
    const int t = Team::rank(), lane = t % WarpSize, warp = t / WarpSize;
    const int top = bins - 1 - per * t;
    unsigned long long mine = 0;
#pragma unroll
    for (int j = 0; j < per; ++j) mine += counts[top - j];
    unsigned long long sum = mine; /* inclusive, over the lanes */
#pragma unroll
    for (int d = 1; d < WarpSize; d *= 2) {
        const unsigned long long o = yamr__shfl<WarpSize>(sum, lane >= d ? lane - d : 0);
        if (lane >= d) sum += o;
    }
    if (lane == WarpSize - 1) scratch[warp] = sum;
    if (t == 0) scratch[warps] = ~0ull; /* no bin, until the thread that finds one */
    Team::sync();
    for (int w = 0; w < warp; ++w) sum += scratch[w];
    unsigned long long run = sum - mine;
    if (run < target && sum >= target) { /* one thread */
        for (int j = 0; j < per; ++j) { /* its bins again, from the top */
            const unsigned long long c = counts[top - j];
            if (run + c >= target) {
                scratch[warps] = (unsigned long long)(top - j);
                scratch[warps + 1] = run;
                scratch[warps + 2] = c;
                break;
            }
            run += c;
        }
    }
    Team::sync();
    yamr__topk_floor_bin f;
    f.bin = scratch[warps] == ~0ull ? -1 : (int)scratch[warps];
    f.above = scratch[warps + 1];
    f.in_bin = scratch[warps + 2];
    Team::sync(); /* scratch is free again */
    return f;
}

/* Whether the counts refine bin f for target t (the same test in every launch of a call). */
__device__ inline bool yamr__topk_refines(const yamr__topk_floor_bin &f, unsigned long long t)
{
    return f.bin >= 0 && f.in_bin > (unsigned long long)YAMR__TOPK_FLOOR_REFINE * t;
}

/* The floors an instance of yamr_topk_kernel holds: a part's own counts or none (and the
 * gather, and the merge by a split row's last block), the whole row's counts (and the counting
 * launches before them), or any, chosen at run time. One-word ranks have an instance of each of
 * the first two, so that neither holds the other's code (one instance of both ran the row
 * counts' launches 4-8% slower, H100: 1 x 2^24 k300 115 -> 124 us; ptxas: spills 12/120 ->
 * 72/256 bytes stored/loaded, 0/0 in each of the two); wide ranks (f64 and i64, or rows of 2^32
 * elements or more) one of any (scripts/library-cost.sh: 153 kernel instances for sm_90 with
 * two each, over the limit of 150). */
enum { YAMR__TOPK_FLOORS_OWN, YAMR__TOPK_FLOORS_ROW, YAMR__TOPK_FLOORS_ANY };

/* The floor of a work item (a.floor: YAMR__TOPK_FLOOR_OWN or _ROW, as the instance's Floors
 * allows), its elements [0, n) of `src`; `counts`: bins words of shared memory (OWN).
 * `at_floor`: how many elements rank at or above the floor where the counts are the part's own
 * (OWN), else ~0 (unknown). Called by the whole block. */
template <typename Team, int WarpSize, int Unroll, int Floors, typename R, typename Source>
__device__ inline R yamr__topk_floor(const yamr__topk_args &a, long long row, long long n,
                                     const Source &src, unsigned *counts,
                                     unsigned long long *scratch, unsigned long long &at_floor)
{
    typedef yamr__topk_floor_bins<(int)sizeof(typename Source::item)> Bins;
    const unsigned long long target = (unsigned long long)(a.out_first + a.k);
    R floor = yamr__rank_bottom<R>();
    unsigned long long key;
    at_floor = ~0ull;
    if (Floors == YAMR__TOPK_FLOORS_OWN ||
        (Floors == YAMR__TOPK_FLOORS_ANY && a.floor == YAMR__TOPK_FLOOR_OWN)) {
        yamr__topk_count<Team, Unroll, true>(counts, NULL, -1, n, src);
        const yamr__topk_floor_bin f = yamr__topk_find_bin<Team, WarpSize>(counts, target, scratch);
        if (f.bin < 0) return floor;
        key = Bins::lowest(f.bin, 0);
        at_floor = f.above + f.in_bin;
        if (yamr__topk_refines(f, target)) {
            yamr__topk_count<Team, Unroll, false>(NULL, counts, f.bin, n, src);
            const yamr__topk_floor_bin g =
                yamr__topk_find_bin<Team, WarpSize>(counts, target - f.above, scratch);
            if (g.bin >= 0) {
                key = Bins::lowest(f.bin, g.bin);
                at_floor = f.above + g.above + g.in_bin;
            }
        }
    } else {
        const yamr__topk_row_counts rc = yamr__topk_row_counts_of(a, row);
        const unsigned long long *level1 = rc.level1;
        const yamr__topk_floor_bin f = yamr__topk_find_bin<Team, WarpSize>(level1, target, scratch);
        if (f.bin < 0) return floor;
        key = Bins::lowest(f.bin, 0);
        const unsigned long long whole = (unsigned long long)a.out_k;
        const yamr__topk_floor_bin w =
            target == whole ? f : yamr__topk_find_bin<Team, WarpSize>(level1, whole, scratch);
        /* the cut's bin: its level 1 holds only the keys above the cut, its level 2 all of them */
        const bool cut_bin = *rc.cut != 0 && *rc.guess == (unsigned long long)f.bin + 1;
        if ((w.bin == f.bin && yamr__topk_refines(w, whole)) || cut_bin) {
            const unsigned long long *level2 =
                *rc.guess == (unsigned long long)f.bin + 1 ? rc.guessed : rc.missed;
            const yamr__topk_floor_bin g =
                yamr__topk_find_bin<Team, WarpSize>(level2, target - f.above, scratch);
            if (g.bin >= 0) key = Bins::lowest(f.bin, g.bin);
        }
    }
    yamr__rank_of_key(floor, key);
    return floor;
}

/* Adds a block's counts (shared memory) to a row's (global memory). */
template <typename Team>
__device__ inline void yamr__topk_add_counts(unsigned long long *into, const unsigned *counts)
{
    for (int j = Team::rank(); j < (1 << YAMR__TOPK_FLOOR_BITS); j += Team::size)
        if (counts[j]) atomicAdd(into + j, (unsigned long long)counts[j]);
}

/* YAMR__TOPK_FLOOR_COUNT1 and _COUNT2: a block adds its part's counts (positions [0, n) of `src`,
 * whose position 0 is the row's column `first`) to its row's; `counts`: 2 x bins words of shared
 * memory. */
template <typename Team, int WarpSize, int Unroll, typename Source>
__device__ inline void yamr__topk_count_row(const yamr__topk_args &a, long long row,
                                            long long first, long long n, const Source &src,
                                            unsigned *counts, unsigned long long *scratch)
{
    typedef yamr__topk_floor_bins<(int)sizeof(typename Source::item)> Bins;
    typedef typename Source::key_type Key;
    const yamr__topk_row_counts rc = yamr__topk_row_counts_of(a, row);
    unsigned *const level1 = counts, *const level2 = counts + Bins::bins;
    const unsigned long long whole = (unsigned long long)a.out_k;
    if (a.floor == YAMR__TOPK_FLOOR_COUNT2) {
        const yamr__topk_floor_bin w = yamr__topk_find_bin<Team, WarpSize>(rc.level1, whole, scratch);
        /* the same for the whole block: nothing to refine, or counted with level 1 */
        if (!yamr__topk_refines(w, whole) || *rc.guess == (unsigned long long)w.bin + 1) return;
        yamr__topk_count<Team, Unroll, false>(NULL, level2, w.bin, n, src);
        yamr__topk_add_counts<Team>(rc.missed, level2);
        return;
    }
    /* the sample: positions j * (cols / S) of the row (the launcher sends only rows of S or
     * more), by level 1, then (in_bin >= 0) those of level-1 bin in_bin by level 2 */
    constexpr long long S = YAMR__TOPK_FLOOR_SAMPLE;
    const auto sample = [&](int in_bin) {
        for (int j = Team::rank(); j < Bins::bins; j += Team::size) level2[j] = 0;
        Team::sync();
        const long long stride = a.cols / S;
        yamr__topk_run run;
        for (long long j = Team::rank(); j < S; j += Team::size) {
            const Key key = src.key(src.load(j * stride - first));
            const int bin = Bins::level1(key);
            if (in_bin < 0) run.add(level2, bin, src.counts(key));
            else run.add(level2, Bins::level2(key, in_bin), src.counts(key) && bin == in_bin);
        }
        run.end(level2);
        Team::sync();
    };
    sample(-1);
    /* The cut: the key of the sample's (2 share + YAMR__TOPK_FLOOR_CUT_MARGIN)-th element,
     * share = whole x S / cols rounded up (the sample's part of the call's k), by its two
     * levels. The count takes only keys at or above it, so that most warps count nothing
     * (random rows, a long row: a few thousandths of it); the guess is its bin, whose level 2
     * holds every key above the cut. Where the row holds fewer than `whole` keys above it (a
     * sample that saw the row's largest elements only), the counts find no floor and the scan
     * starts from none: slower, not wrong (yamr__topk_floor). */
    const unsigned long long share = (whole * (unsigned long long)S + a.cols - 1) / a.cols;
    const unsigned long long want = 2 * share + YAMR__TOPK_FLOOR_CUT_MARGIN;
    const yamr__topk_floor_bin c1 = yamr__topk_find_bin<Team, WarpSize>(level2, want, scratch);
    int guess = c1.bin;
    Key cut = 0;
    if (c1.bin >= 0) {
        sample(c1.bin);
        const int c2 = yamr__topk_find_bin<Team, WarpSize>(level2, want - c1.above, scratch).bin;
        cut = (Key)Bins::lowest(c1.bin, c2 > 0 ? c2 : 0); /* c2 exists: c1 holds that many */
    } else { /* a sample of fewer elements (NaNs under YAMR_NAN_IGNORE): the share's bin */
        guess = yamr__topk_find_bin<Team, WarpSize>(level2, share, scratch).bin;
    }
    yamr__topk_count<Team, Unroll, true, true>(level1, level2, guess, n, src, cut);
    yamr__topk_add_counts<Team>(rc.level1, level1);
    if (guess >= 0) yamr__topk_add_counts<Team>(rc.guessed, level2);
    if (first == 0 && Team::rank() == 0) {
        *rc.guess = (unsigned long long)(guess + 1);
        *rc.cut = (unsigned long long)cut;
    }
}

/* How many ranks of a sorted list (largest first) are above x. */
template <typename R>
__device__ inline int yamr__ranks_above(const R *list, int n, R x)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (yamr__rank_gt(list[mid], x)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* A rank that another block stored in this launch, loaded whole from where the device's
 * multiprocessors agree (yamr__load_word), not from a cache of this one that may hold an older
 * line. */
__device__ inline yamr__rank32 yamr__rank_load_shared_by_blocks(const yamr__rank32 *p)
{
    yamr__rank32 r;
    r.w = yamr__load_word(&p->w);
    return r;
}
__device__ inline yamr__rank64 yamr__rank_load_shared_by_blocks(const yamr__rank64 *p)
{
    yamr__rank64 r;
    r.key = yamr__load_word(&p->key);
    r.ncol = yamr__load_word(&p->ncol);
    return r;
}

/* The merge of few lists (YAMR__TOPK_RANK_MERGE_LISTS at most) into the team's list: a rank's
 * place in the answer is its place in its own list plus the ranks above it in each other list
 * (binary searches in shared memory; no two ranks are equal, the lists' columns differ), and its
 * thread puts it there: two block syncs where the sorts of yamr__topk_sort_merge take dozens. A
 * rank costs (lists - 1) searches, so many lists (one long row) keep the sorts. Places no rank
 * takes keep the list's bottoms (yamr__topk_open). yamr__topk_place_lists: `lists` sorted lists
 * of n ranks (largest first, bottoms last) side by side in the buffer, the first `keep` places
 * of the answer; yamr__topk_rank_merge: k-rank lists from `ranks`, stored by other blocks of
 * this launch (a split row's last block: yamr__rank_load_shared_by_blocks), into the buffer
 * first. */
#define YAMR__TOPK_RANK_MERGE_LISTS 8
template <typename Team, typename R>
__device__ inline void yamr__topk_place_lists(const yamr__topk_state<R> &st, int lists, int n,
                                              int keep)
{
    const int total = lists * n;
    for (int i = Team::rank(); i < total; i += Team::size) {
        const R x = st.buffer[i];
        if (yamr__rank_col(x) < 0) continue;
        const int own = i / n;
        int place = i - own * n;
        for (int m = 0; m < lists && place < keep; ++m)
            if (m != own) place += yamr__ranks_above(st.buffer + m * n, n, x);
        if (place < keep) st.list[place] = x;
    }
    Team::sync();
}
template <typename Team, typename R>
__device__ inline void yamr__topk_rank_merge(const yamr__topk_state<R> &st, const R *ranks,
                                             int lists, int k)
{
    for (int i = Team::rank(); i < lists * k; i += Team::size)
        st.buffer[i] = yamr__rank_load_shared_by_blocks(ranks + i);
    Team::sync();
    yamr__topk_place_lists<Team>(st, lists, k, k);
}

/* Whether a row's blocks split in `lists` merge their lists of k ranks themselves (the row's
 * last block, by rank, with `room` ranks of shared memory besides the list), not the merge
 * kernel: no second launch, and the merge of a row overlaps the other rows' scans. The
 * shared-list kernel's room is its buffer; the select kernel's, yamr__topk_select_room. */
__host__ __device__ constexpr bool yamr__topk_merges_own(long long lists, long long k,
                                                         long long room)
{
    return lists > 1 && lists <= YAMR__TOPK_RANK_MERGE_LISTS && lists * k <= room;
}

/* Whether this block is the last of its row's `parts` blocks to store its list: each block's
 * threads store, fence and meet, then one counts the block in (the row's word `arrived`); the
 * last resets the word for the next launch and fences before its threads load the others'
 * lists. Called by the whole block. */
__device__ inline bool yamr__topk_last_block(unsigned long long *arrived, int parts)
{
    __shared__ bool last;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        last = atomicAdd(arrived, 1ull) == (unsigned long long)parts - 1;
        if (last) *arrived = 0; /* every block of the row has counted itself in */
    }
    __syncthreads();
    if (last) __threadfence();
    return last;
}

/* The scan where the part's own counts say how many ranks are at or above the floor and the
 * buffer holds them all (yamr__topk_floor's at_floor): each goes to the buffer in one pass (those
 * below the bound where has_bound), with no barrier, no threshold and no flush, in place of the
 * scan's tests against a rising threshold and its appends in groups between barriers. Then the
 * buffer goes into the list: up to two ranks a thread, each warp sorts a run of two a lane in
 * registers and each rank takes its place among the runs by binary searches, two barriers in
 * all; more, the block's sort. The list is then what yamr__topk_scan leaves: the best ranks at or
 * above the floor, and bottoms. Called by the whole team after yamr__topk_open; ends with a
 * barrier. */
template <typename Team, int WarpSize, int Unroll, typename R, typename Source>
__device__ inline void yamr__topk_gather(const yamr__topk_state<R> &st, long long n,
                                         bool has_bound, R bound, R floor, const Source &src)
{
    const long long step = (long long)Unroll * Team::size;
    const int lane = Team::rank() % WarpSize;
    for (long long base = 0; base < n; base += step) {
        typename Source::item e[Unroll];
        yamr__topk_load_tile<Team, Unroll>(src, base, n, e);
        /* bit u: position u is a candidate */
        const unsigned passes =
            yamr__topk_tile_passes<Team, Unroll>(src, e, base, n, floor, has_bound, bound);
        /* a floor near the k-th leaves a candidate in most warps' tiles: one atomic a warp, its
         * lanes' candidates at the offsets of a prefix sum of their counts */
        if (!yamr__any<WarpSize>(~(yamr__lane_mask)0, passes != 0)) continue;
        const int mine = __popc(passes);
        const int below = yamr__lanes_sum<WarpSize>(mine, lane);
        int at = 0;
        if (lane == WarpSize - 1) at = atomicAdd(st.count, below);
        at = yamr__shfl<WarpSize>(at, WarpSize - 1) + below - mine;
#pragma unroll
        for (int u = 0; u < Unroll; ++u) {
            if (!((passes >> u) & 1u)) continue;
            R r;
            src.rank(e[u], base + u * Team::size + Team::rank(), r);
            st.buffer[at++] = r;
        }
    }
    Team::sync();
    if (*st.count > 2 * Team::size) {
        yamr__topk_flush<Team>(st);
        return;
    }
    /* few: each warp sorts its run of 2 x WarpSize in registers, then each rank takes its place
     * among the runs (yamr__topk_place_lists): no sort a barrier a step */
    R v[2];
    R *run = st.buffer + Team::rank() / WarpSize * 2 * WarpSize;
#pragma unroll
    for (int j = 0; j < 2; ++j) {
        const int e = (Team::rank() / WarpSize * 2 + j) * WarpSize + lane;
        v[j] = e < *st.count ? run[j * WarpSize + lane] : yamr__rank_bottom<R>();
    }
    yamr__topk_warp_sort<WarpSize>(v);
#pragma unroll
    for (int j = 0; j < 2; ++j) run[j * WarpSize + lane] = v[j];
    Team::sync();
    yamr__topk_place_lists<Team>(st, Team::size / WarpSize, 2 * WarpSize, st.list_size);
}

/* Blocks stride over (row, part of the row) pairs: the answer, or a partial list (merged by the
 * row's last block where yamr__topk_merges_own). A TOPK_LIST row's values: Unroll positions a
 * thread loads at once, MinBlocks its bound, Floors the floors it holds (topk.hip picks). */
template <int Bytes, int Keys, typename R, int WarpSize, int Unroll, int MinBlocks, int Floors>
__global__ void __launch_bounds__(YAMR__TOPK_THREADS, MinBlocks)
yamr_topk_kernel(const typename yamr__topk_width<Bytes>::storage *__restrict__ in,
                 yamr__topk_args a, typename yamr__topk_width<Bytes>::storage *values,
                 long long *indices, typename yamr__topk_width<Bytes>::storage empty)
{
    typedef yamr__topk_block_team Team;
    constexpr int unroll = Unroll;
    /* a block's counts (the floor) take the shared memory of its list and buffer first */
    static_assert(2 * ((size_t)1 << YAMR__TOPK_FLOOR_BITS) * sizeof(unsigned) <=
                      yamr__topk_buffer<Team>() * sizeof(R),
                  "two levels of counts fit the buffer");
    if (!yamr__warp_width_matches<WarpSize>()) return;
    extern __shared__ unsigned long long yamr__topk_smem[];
    __shared__ int count;
    __shared__ unsigned long long floor_scratch[YAMR__TOPK_THREADS / WarpSize + 3];
    unsigned *const counts = (unsigned *)yamr__topk_smem;
    const bool counting = a.floor == YAMR__TOPK_FLOOR_COUNT1 || a.floor == YAMR__TOPK_FLOOR_COUNT2;
    for (long long w = blockIdx.x; w < a.rows * a.blocks_per_row; w += gridDim.x) {
        const yamr__topk_part part = yamr__topk_part_of(a, w);
        const long long row = part.row, first = part.first, n = part.n > 0 ? part.n : 0;
        const yamr__topk_elements<Bytes, Keys, R> src =
            yamr__topk_elements_of<Bytes, Keys, R>(a, in, row, first);
        if (Floors != YAMR__TOPK_FLOORS_OWN && counting) {
            yamr__topk_count_row<Team, WarpSize, unroll>(a, row, first, n, src, counts,
                                                         floor_scratch);
        } else {
            unsigned long long at_floor = ~0ull;
            const R floor = a.floor == YAMR__TOPK_FLOOR_NONE
                                ? yamr__rank_bottom<R>()
                                : yamr__topk_floor<Team, WarpSize, unroll, Floors, R>(
                                      a, row, n, src, counts, floor_scratch, at_floor);
            const yamr__topk_state<R> st =
                yamr__topk_open<Team>((R *)yamr__topk_smem, &count, a.list_size);
            bool has_bound;
            const R bound = yamr__topk_bound<R>(a, row, has_bound);
            if (Floors != YAMR__TOPK_FLOORS_ROW &&
                at_floor <= (unsigned long long)yamr__topk_buffer<Team>())
                yamr__topk_gather<Team, WarpSize, unroll>(st, n, has_bound, bound, floor, src);
            else
                yamr__topk_scan<Team, WarpSize, unroll>(st, n, a.k, has_bound, bound, floor, src);
            if (a.blocks_per_row == 1) {
                yamr__topk_write<Team, Bytes>(st, a, row, in + row * a.ld, values, indices, empty);
            } else {
                R *lists = (R *)a.partials + row * a.blocks_per_row * a.k;
                for (int j = threadIdx.x; j < a.k; j += blockDim.x)
                    lists[(w - row * a.blocks_per_row) * a.k + j] = st.list[j];
                if (Floors != YAMR__TOPK_FLOORS_ROW && a.row_words &&
                    yamr__topk_last_block((unsigned long long *)a.row_words + row,
                                          a.blocks_per_row)) {
                    /* topk.hip sends row words only where yamr__topk_merges_own */
                    const yamr__topk_state<R> merged =
                        yamr__topk_open<Team>((R *)yamr__topk_smem, &count, a.list_size);
                    yamr__topk_rank_merge<Team>(merged, lists, a.blocks_per_row, a.k);
                    yamr__topk_write<Team, Bytes>(merged, a, row, in + row * a.ld, values,
                                                  indices, empty);
                }
            }
        }
        __syncthreads(); /* the shared state is made anew for the next pair */
    }
}

/* ---- Lane rows: a few lanes per short row, the row in registers ----
 *
 * For rows of at most `lanes` x the TOPK_SELECT row's count elements (YAMR__TOPK_LANE_ELEMENTS at
 * most) and k up to its lane_k, a warp's select costs more than the row's read: its seed and its
 * flush each sort a warp's width of ranks per row. Here `lanes` lanes (a power of two, 2k at
 * least where the row has 2k vectors, up to the warp's width: src/topk_shape.c) take a row, and
 * a warp WarpSize / lanes rows at once; each lane loads all its elements (16-byte vectors g,
 * g + lanes, ... of the row, g its place among the row's lanes) at once. The k-th largest of the
 * row's lanes' largest keys (a sort of one key a lane) is at or below k elements' keys, so no
 * element below it is in the answer: on random rows about k + k/4 elements reach it (floats
 * compare by value, as in the select scan). Their columns go to the row's part of the warp's
 * buffer (a prefix sum of the lanes' counts), then their ranks (each element loaded again), and
 * each is placed by its rank among them (how many are larger): no list, no sort of them. Where
 * a row has more candidates than its part holds (ordered or equal data), its warp takes each
 * row's k best one at a time instead, by a max across the row's lanes.
 */

/* Lane g's vectors of a row of n (< 2^31) elements (g, g + lanes, ..., V at most) into raw,
 * element c of vector u at bit u * per_vec + c of the returned mask of the row's elements, the
 * rest `pad`; a row off a 16-byte boundary, and its last vector where partial, load element by
 * element. */
template <int V, typename S>
__device__ inline unsigned yamr__lane_load(const S *row, int n, int g, int lanes, S pad,
                                           uint4 (&raw)[V])
{
    constexpr int per_vec = 16 / sizeof(S);
    const bool aligned = (uintptr_t)row % 16 == 0;
    unsigned valid = 0;
#pragma unroll
    for (int u = 0; u < V; ++u) {
        const int v = g + u * lanes, first = v * per_vec;
        if (aligned && first + per_vec <= n) {
            raw[u] = ((const uint4 *)row)[v];
            valid |= ((1u << per_vec) - 1u) << (u * per_vec);
        } else {
            S e[per_vec];
#pragma unroll
            for (int c = 0; c < per_vec; ++c) {
                e[c] = first + c < n ? row[first + c] : pad;
                if (first + c < n) valid |= 1u << (u * per_vec + c);
            }
            memcpy(&raw[u], e, sizeof e);
        }
    }
    return valid;
}

/* The largest key of the elements of raw that count (a pad is below or at every element), 0
 * where none: floats by the float max of their values (the min for MIN; NaN skipped, which lowers
 * the bound at most), the rest by their keys. */
template <int V, int Bytes, bool Bf16, typename Source>
__device__ inline typename Source::key_type yamr__lane_float_most(const uint4 (&raw)[V],
                                                                  const Source &src)
{
    typedef typename Source::item S;
    constexpr int per_vec = 16 / Bytes;
    const bool is_min = src.mode.flip != 0;
    float m = is_min ? INFINITY : -INFINITY;
    if (is_min) {
#pragma unroll
        for (int u = 0; u < V; ++u)
#pragma unroll
            for (int c = 0; c < per_vec; ++c)
                m = fminf(m, yamr__float_element<Bytes, Bf16>(raw[u], c));
    } else {
#pragma unroll
        for (int u = 0; u < V; ++u)
#pragma unroll
            for (int c = 0; c < per_vec; ++c)
                m = fmaxf(m, yamr__float_element<Bytes, Bf16>(raw[u], c));
    }
    return m == (is_min ? INFINITY : -INFINITY) ? 0
                                                 : src.key((S)yamr__float_bits<Bytes, Bf16>(m));
}
template <int V, typename Source>
__device__ inline typename Source::key_type yamr__lane_most(const uint4 (&raw)[V],
                                                            const Source &src)
{
    typedef typename Source::item S;
    typedef typename Source::key_type Key;
    constexpr int per_vec = 16 / sizeof(S);
    constexpr bool two = sizeof(S) == 2;
    if (two || src.floats) { /* bf16 or f16 by the rule's infinity, or f32 */
        if (two && src.inf == YAMR_BF16_INF)
            return yamr__lane_float_most<V, sizeof(S), two>(raw, src);
        return yamr__lane_float_most<V, sizeof(S), false>(raw, src);
    }
    Key most = 0; /* integers: the keys */
#pragma unroll
    for (int u = 0; u < V; ++u)
#pragma unroll
        for (int c = 0; c < per_vec; ++c) {
            const Key key = src.key(yamr__vector_element<S>(raw[u], c));
            most = key > most ? key : most;
        }
    return most;
}

/* The k-th largest of the row's lanes' keys m (lane g of the row holds one), in every lane of
 * the row; 0 (below or at every key) where the row has fewer lanes than k. The row's lanes sort
 * their keys largest first (a bitonic network of shuffles over the row's lanes, a power of two;
 * equal keys in any order: only the k-th's key is taken), then read lane k - 1's. */
template <int WarpSize, typename Key>
__device__ inline Key yamr__lane_kth(Key m, int lanes, int k)
{
    const int lane = threadIdx.x % WarpSize, g = lane & (lanes - 1);
#pragma unroll
    for (int size = 2; size <= WarpSize; size *= 2) {
        if (size > lanes) break; /* the same in every lane */
#pragma unroll
        for (int stride = size / 2; stride > 0; stride /= 2) {
            const Key o = yamr__shfl_xor<WarpSize>(m, stride);
            /* the lower lane of a pair keeps the larger where this run goes largest first */
            const bool larger = ((g & stride) == 0) == ((g & size) == 0);
            if ((o > m) == larger) m = o;
        }
    }
    const Key kth = yamr__shfl<WarpSize>(m, lane - g + (k <= lanes ? k - 1 : 0));
    return k <= lanes ? kth : (Key)0;
}

/* Each element of lane g's vectors (yamr__lane_load) to take(b, element, column), b its bit, in
 * order: the elements' places are constants, the vectors stay in registers. */
template <int V, typename S, typename Take>
__device__ inline void yamr__lane_elements(const uint4 (&raw)[V], int g, int lanes,
                                           const Take &take)
{
    constexpr int per_vec = 16 / sizeof(S);
#pragma unroll
    for (int u = 0; u < V; ++u) {
        const int first = (g + u * lanes) * per_vec;
#pragma unroll
        for (int c = 0; c < per_vec; ++c)
            take(u * per_vec + c, yamr__vector_element<S>(raw[u], c), first + c);
    }
}

/* The rows of a lane kernel: Count elements a lane at most; `buf`: the warp's buffer of `buffer`
 * ranks, a part of buffer / (WarpSize / lanes) for each of its rows; `cols`: as many columns,
 * in the same parts. */
template <int WarpSize, int Bytes, int Count, typename R>
__device__ inline void yamr__lane_rows(const yamr__topk_args &a,
                                       const typename yamr__topk_width<Bytes>::storage *in,
                                       typename yamr__topk_width<Bytes>::storage *values,
                                       long long *indices,
                                       typename yamr__topk_width<Bytes>::storage empty, R *buf,
                                       int *cols, int buffer)
{
    typedef typename yamr__topk_width<Bytes>::storage S;
    typedef typename yamr__topk_width<Bytes>::key Key;
    constexpr int per_vec = 16 / sizeof(S), warps = YAMR__TOPK_THREADS / WarpSize;
    constexpr int V = Count / per_vec;
    static_assert(V * per_vec == Count && Count <= 32, "a lane's candidates are one word");
    /* lanes is a power of two: shifts, not divisions */
    const int lanes = a.lanes_per_row, lane = threadIdx.x % WarpSize, g = lane & (lanes - 1);
    const int shift = __ffs(lanes) - 1;
    const int cap = buffer / WarpSize * lanes;
    R *const part = buf + (lane >> shift) * cap;
    int *const part_cols = cols + (lane >> shift) * cap;
    const long long per_warp = WarpSize >> shift;
    const long long stride = (long long)gridDim.x * warps * per_warp;
    for (long long base = ((long long)blockIdx.x * warps + threadIdx.x / WarpSize) * per_warp;
         base < a.rows; base += stride) { /* the same trips in every lane of the warp */
        const long long row = base + (lane >> shift);
        const bool mine = row < a.rows;
        const yamr__topk_elements<Bytes, YAMR__KEYS_EITHER, R> src =
            yamr__topk_elements_of<Bytes, YAMR__KEYS_EITHER, R>(a, in, mine ? row : 0, 0);
        uint4 raw[V];
        const S pad = src.pad();
        const unsigned valid = yamr__lane_load(src.row, mine ? (int)a.cols : 0, g, lanes, pad, raw);
        const Key least = yamr__lane_kth<WarpSize>(yamr__lane_most(raw, src), lanes, a.k);
        /* (a pad may pass: not an element) */
        const unsigned hits = yamr__select_hits<V>(raw, (1u << V) - 1u, least, src) & valid;
        const int own = __popc(hits);
        int below = own; /* inclusive prefix sum over the row's lanes */
#pragma unroll 1
        for (int d = 1; d < lanes; d *= 2) {
            const int o = yamr__shfl<WarpSize>(below, lane >= d ? lane - d : 0);
            if (g >= d) below += o;
        }
        const int total = yamr__shfl<WarpSize>(below, (lane - g) + lanes - 1);
        const long long out = row * a.out_k + a.out_first;
        const S *in_row = in + (mine ? row : 0) * a.ld;
        if (!yamr__any<WarpSize>(~(yamr__lane_mask)0, total > cap)) {
            /* a hit of each lane at a time, its column only: hits are few, and a branch per
             * element would take every element where any lane of the warp has a hit; then each
             * candidate's rank, from its element loaded again (from the L1), not picked from a
             * lane's vectors (selects of them all) */
            int at = below - own;
            for (unsigned rest = hits; rest; rest &= rest - 1) {
                const int b = __ffs(rest) - 1;
                part_cols[at++] = (g + b / per_vec * lanes) * per_vec + b % per_vec;
            }
            yamr__warp_sync(~(yamr__lane_mask)0); /* the row's columns are seen */
            for (int i = g; i < total; i += lanes) {
                const int col = part_cols[i];
                src.rank(src.load(col), col, part[i]);
            }
            yamr__warp_sync(~(yamr__lane_mask)0); /* the row's candidates are seen */
            for (int i = g; mine && i < total; i += lanes) {
                const R x = part[i];
                int rank = 0; /* the candidates above x: its place in the answer */
                for (int j = 0; j < total; ++j) rank += yamr__rank_gt(part[j], x) ? 1 : 0;
                if (rank >= a.k) continue;
                const long long col = yamr__rank_col(x);
                values[out + rank] = in_row[col];
                if (indices) indices[out + rank] = col;
            }
            for (int j = total + g; mine && j < a.k; j += lanes) { /* fewer than k elements */
                values[out + j] = empty;
                if (indices) indices[out + j] = -1;
            }
            yamr__warp_sync(~(yamr__lane_mask)0); /* read before the next rows' candidates */
            continue;
        }
        /* A row of the warp has more candidates than its part: each row's best left, k times:
         * a lane's is its first element of the largest key (its elements go by column). */
        unsigned left = hits;
#pragma unroll 1
        for (int j = 0; j < a.k; ++j) {
            Key most = 0;
            int at = -1, at_col = 0;
            yamr__lane_elements<V, S>(raw, g, lanes, [&](int b, S x, int col) {
                /* the pad in place of an element gone: keys of this round, not kept in
                 * registers over the rounds */
                const bool live = (left >> b) & 1u;
                const Key key = src.key(live ? x : pad);
                if (live && (at < 0 || key > most)) {
                    most = key;
                    at = b;
                    at_col = col;
                }
            });
            R best = yamr__rank_bottom<R>(), top;
            if (at >= 0) yamr__rank_make(best, (unsigned long long)most, at_col);
            top = best;
#pragma unroll 1
            for (int d = 1; d < lanes; d *= 2)
                top = yamr__rank_max(top, yamr__rank_shfl<WarpSize>(top, d, true));
            if (at >= 0 && !yamr__rank_gt(top, best)) left &= ~(1u << at); /* ranks are unique */
            if (mine && g == 0) {
                const long long col = yamr__rank_col(top);
                values[out + j] = col < 0 ? empty : in_row[col];
                if (indices) indices[out + j] = col;
            }
        }
    }
}

/* Lane rows (a TOPK_SELECT plan of no slots, one-word ranks: src/topk_shape.c plans so): Count
 * elements a lane at most (the row's count or half); MinBlocks, the row's bound. */
template <int Bytes, int WarpSize, int Count, int MinBlocks>
__global__ void __launch_bounds__(YAMR__TOPK_THREADS, MinBlocks)
yamr_topk_lane_kernel(const typename yamr__topk_width<Bytes>::storage *__restrict__ in,
                      yamr__topk_args a, typename yamr__topk_width<Bytes>::storage *values,
                      long long *indices, typename yamr__topk_width<Bytes>::storage empty)
{
    constexpr int warps = YAMR__TOPK_THREADS / WarpSize;
    constexpr int buffer = YAMR__TOPK_LANE_PART * WarpSize;
    if (!yamr__warp_width_matches<WarpSize>()) return;
    __shared__ yamr__rank32 candidates[warps * buffer];
    __shared__ int candidate_cols[warps * buffer];
    const int at = threadIdx.x / WarpSize * buffer;
    yamr__lane_rows<WarpSize, Bytes, Count>(a, in, values, indices, empty, candidates + at,
                                            candidate_cols + at, buffer);
}

/* Copies of the select scan in a select kernel: the row's (2: a warp per row and a block's part,
 * each with its lanes a constant) in a device pass for sm_80 or later, where two were measured
 * faster; one elsewhere, whose unrolled sorts cost the compiler a quarter of the time (sm_75
 * ptxas: 3.8 CPU minutes for this file with two). */
__host__ __device__ constexpr int yamr__topk_scan_copies(int row_copies)
{
#if defined(YAMR_DEVICE_SM80_OR_LATER)
    return row_copies;
#else
    return row_copies < 1 ? row_copies : 1; /* at most one */
#endif
}

/* The ranks of a select kernel's shared memory (its warps' buffers) besides a list of k <= Q x
 * WarpSize: the room of a split row's last block that merges the row's lists
 * (yamr__topk_merges_own). */
template <int Bytes, int WarpSize, int Q, typename R>
__host__ __device__ constexpr long long yamr__topk_select_room()
{
    return (long long)(YAMR__TOPK_THREADS / WarpSize) *
               yamr__warp_select<WarpSize, Q, R,
                                 typename yamr__topk_width<Bytes>::storage>::buffer -
           (long long)Q * WarpSize;
}

/* The block's warps merge their register lists v pairwise (log2 warps steps) through `lists` (a
 * warp's Stride ranks of shared memory each); warp 0's is the block's. Called by the whole
 * block. */
template <int WarpSize, int Q, int Stride, typename R>
__device__ inline void yamr__reg_merge_warps(R (&v)[Q], R *lists)
{
    constexpr int warps = YAMR__TOPK_THREADS / WarpSize;
    const int warp = threadIdx.x / WarpSize, lane = threadIdx.x % WarpSize;
#pragma unroll 1
    for (int h = warps / 2; h >= 1; h /= 2) {
        if (warp >= h && warp < 2 * h) {
#pragma unroll
            for (int j = 0; j < Q; ++j) lists[warp * Stride + j * WarpSize + lane] = v[j];
        }
        __syncthreads();
        if (warp < h) {
            R s[Q];
#pragma unroll
            for (int j = 0; j < Q; ++j) s[j] = lists[(warp + h) * Stride + j * WarpSize + lane];
            yamr__reg_merge<WarpSize>(v, s);
        }
    }
}

/* The register merge of a split row's lists of one slot (k <= WarpSize) by its last block, for
 * more lists than the rank merge takes (YAMR__TOPK_RANK_MERGE_LISTS) and up to
 * YAMR__TOPK_REG_MERGE_LISTS a warp: warp w loads lists w, w + warps, ... a group at a time
 * (YAMR__TOPK_REG_MERGE_GROUP, src/topk.h: their loads in flight together, the next group's
 * while it merges this one), merges the group pairwise in a tree of bitonic merges
 * (yamr__reg_merge) and the tree's into its own list; then
 * the block's warps merge theirs (yamr__reg_merge_warps). No barrier but the warps' merge's, no
 * dependent load but a group's: the merge kernel's sample, threshold, appends and places take a
 * chain of both (1 x 2^20 k16, 128 lists). */
#define YAMR__TOPK_REG_MERGE_LISTS (2 * YAMR__TOPK_REG_MERGE_GROUP)
template <int WarpSize, int Stride, typename R>
__device__ inline void yamr__topk_reg_merge_lists(R (&v)[1], const R *ranks, int lists, int k,
                                                  R *scratch)
{
    constexpr int warps = YAMR__TOPK_THREADS / WarpSize, group = YAMR__TOPK_REG_MERGE_GROUP;
    const int warp = threadIdx.x / WarpSize, lane = threadIdx.x % WarpSize;
    const auto load = [&](R (&s)[group][1], int first) {
#pragma unroll
        for (int c = 0; c < group; ++c) {
            const int l = first + c * warps;
            s[c][0] = l < lists && lane < k
                          ? yamr__rank_load_shared_by_blocks(ranks + (long long)l * k + lane)
                          : yamr__rank_bottom<R>();
        }
    };
    v[0] = yamr__rank_bottom<R>();
    R next[group][1];
    load(next, warp);
#pragma unroll 1
    for (int first = warp; first < lists; first += group * warps) {
        R s[group][1];
#pragma unroll
        for (int c = 0; c < group; ++c) s[c][0] = next[c][0];
        if (first + group * warps < lists) load(next, first + group * warps); /* in flight */
        static_assert(group == 8, "a tree of three levels");
#pragma unroll
        for (int c = 0; c < 4; ++c) yamr__reg_merge<WarpSize>(s[c], s[c + 4]);
#pragma unroll
        for (int c = 0; c < 2; ++c) yamr__reg_merge<WarpSize>(s[c], s[c + 2]);
        yamr__reg_merge<WarpSize>(s[0], s[1]);
        yamr__reg_merge<WarpSize>(v, s[0]);
    }
    yamr__reg_merge_warps<WarpSize, 1, Stride>(v, scratch);
}

/* Whether a select kernel's split row of `lists` lists of k ranks merges them in its last block
 * (no merge kernel): few (yamr__topk_merges_own), or of one slot, up to
 * YAMR__TOPK_REG_MERGE_LISTS a warp (yamr__topk_reg_merge_lists). */
template <int Bytes, int WarpSize, int Q, typename R>
__host__ __device__ constexpr bool yamr__topk_select_merges_own(long long lists, long long k)
{
    return yamr__topk_merges_own(lists, k, yamr__topk_select_room<Bytes, WarpSize, Q, R>()) ||
           (Q == 1 && lists > 1 &&
            lists <= (long long)YAMR__TOPK_REG_MERGE_LISTS * (YAMR__TOPK_THREADS / WarpSize));
}

/*
 * Warp select (k <= Q * WarpSize): with a.lanes_per_row the warp's width, each warp of a block
 * takes rows in turn and writes each answer from its list (lane rows are another kernel's,
 * yamr_topk_lane_kernel); else blocks stride over (row, part of the row) pairs as
 * yamr_topk_kernel does, the block's warps scan the part side by side, then merge their lists
 * pairwise (log2 warps steps) and write the answer or the part's list. A TOPK_SELECT row's
 * values: Vectors a thread loads at once, ScanCopies, and MinBlocks, the bound for Q slots.
 */
template <int Bytes, typename R, int WarpSize, int Q, int Vectors, int ScanCopies,
          int MinBlocks>
__global__ void __launch_bounds__(YAMR__TOPK_THREADS, MinBlocks)
yamr_topk_select_kernel(const typename yamr__topk_width<Bytes>::storage *__restrict__ in,
                        yamr__topk_args a, typename yamr__topk_width<Bytes>::storage *values,
                        long long *indices, typename yamr__topk_width<Bytes>::storage empty)
{
    typedef yamr__warp_select<WarpSize, Q, R, typename yamr__topk_width<Bytes>::storage> Select;
    constexpr int warps = YAMR__TOPK_THREADS / WarpSize;
    constexpr int unroll = Vectors;
    constexpr bool ahead = MinBlocks <= YAMR__TOPK_AHEAD_BOUND;
    if (!yamr__warp_width_matches<WarpSize>()) return;
    extern __shared__ unsigned long long yamr__topk_smem[];
    __shared__ unsigned long long team_word;
    __shared__ unsigned seed_counts[512]; /* the block seed's (yamr__warp_select::seed_counted) */
    __shared__ int merge_count;           /* a split row's last block: its merge's state */
    const int warp = threadIdx.x / WarpSize, lane = threadIdx.x % WarpSize;
    R *const lists = (R *)yamr__topk_smem;
    const bool by_warp = a.lanes_per_row != 0;
    /* a warp's row: the seed's groups hold the whole row, or its first loads (the plan's) */
    const bool seed_all = a.floor != YAMR__TOPK_SEED_FIRST;
    /* the work items: rows a warp each, or (row, part) pairs a block each; one scan, written
     * once, for both */
    const long long start = by_warp ? (long long)blockIdx.x * warps + warp : blockIdx.x;
    const long long stride = by_warp ? (long long)gridDim.x * warps : gridDim.x;
    Select sel;
    for (long long w = start; w < a.rows * a.blocks_per_row; w += stride) {
        /* a warp's row is its work item (no 64-bit division per row) */
        const yamr__topk_part part = by_warp ? yamr__topk_part{w, 0, a.cols} : yamr__topk_part_of(a, w);
        const long long row = part.row, first = part.first, n = part.n;
        if (!by_warp) {
            if (threadIdx.x == 0) team_word = 0;
            for (int i = threadIdx.x; i < 512; i += YAMR__TOPK_THREADS) seed_counts[i] = 0;
            __syncthreads();
        }
        sel.open(lists + warp * Select::buffer, a.k, by_warp ? NULL : &team_word,
                 a.blocks_per_row > 1 ? (unsigned long long *)a.row_words + row : NULL);
        const yamr__topk_elements<Bytes, YAMR__KEYS_EITHER, R> src =
            yamr__topk_elements_of<Bytes, YAMR__KEYS_EITHER, R>(a, in, row, first);
        if constexpr (yamr__topk_scan_copies(ScanCopies) == 2) {
            if (by_warp)
                yamr__select_scan<WarpSize, Q, unroll, ahead>(sel, n, src, lane, WarpSize,
                                                              seed_all, nullptr);
            else
                yamr__select_scan<WarpSize, Q, unroll, ahead>(sel, n > 0 ? n : 0, src,
                                                              (int)threadIdx.x, YAMR__TOPK_THREADS,
                                                              false, seed_counts);
        } else {
            yamr__select_scan<WarpSize, Q, unroll, ahead>(
                sel, n > 0 ? n : 0, src, by_warp ? lane : (int)threadIdx.x,
                by_warp ? WarpSize : YAMR__TOPK_THREADS, by_warp && seed_all,
                by_warp ? nullptr : seed_counts);
        }
        if (!by_warp) yamr__reg_merge_warps<WarpSize, Q, Select::buffer>(sel.v, lists);
        if (by_warp || warp == 0) {
            if (a.blocks_per_row == 1) {
                yamr__reg_write<WarpSize, Q, Bytes>(sel.v, a, row, in + row * a.ld, values,
                                                    indices, empty);
            } else {
                R *list = (R *)a.partials + w * a.k;
#pragma unroll
                for (int j = 0; j < Q; ++j)
                    if (j * WarpSize + lane < a.k) list[j * WarpSize + lane] = sel.v[j];
            }
        }
        /* a split row: its last block merges the lists where they are few (by rank) or of one
         * slot (in registers; yamr__topk_select_merges_own), and clears the row's threshold
         * word as the merge kernel does (the arrivals: the row words' second half) */
        const bool by_rank =
            !by_warp && yamr__topk_merges_own(a.blocks_per_row, a.k,
                                              yamr__topk_select_room<Bytes, WarpSize, Q, R>());
        if (!by_warp &&
            yamr__topk_select_merges_own<Bytes, WarpSize, Q, R>(a.blocks_per_row, a.k) &&
            yamr__topk_last_block((unsigned long long *)a.row_words + a.rows + row,
                                  a.blocks_per_row)) {
            if (threadIdx.x == 0) ((unsigned long long *)a.row_words)[row] = 0;
            const R *ranks = (const R *)a.partials + row * a.blocks_per_row * a.k;
            if (by_rank) {
                const yamr__topk_state<R> st =
                    yamr__topk_open<yamr__topk_block_team>(lists, &merge_count, a.list_size);
                yamr__topk_rank_merge<yamr__topk_block_team>(st, ranks, a.blocks_per_row, a.k);
                yamr__topk_write<yamr__topk_block_team, Bytes>(st, a, row, in + row * a.ld,
                                                               values, indices, empty);
            } else if constexpr (Q == 1) {
                yamr__topk_reg_merge_lists<WarpSize, Select::buffer>(sel.v, ranks,
                                                                      a.blocks_per_row, a.k,
                                                                      lists);
                if (warp == 0)
                    yamr__reg_write<WarpSize, Q, Bytes>(sel.v, a, row, in + row * a.ld, values,
                                                        indices, empty);
            }
        }
        if (!by_warp) __syncthreads(); /* the lists are made anew for the next pair */
    }
}

/* Shared memory of a select kernel. */
template <int Bytes, int WarpSize, int Q, typename R>
__host__ __device__ constexpr size_t yamr__topk_select_smem()
{
    return (size_t)(YAMR__TOPK_THREADS / WarpSize) *
           yamr__warp_select<WarpSize, Q, R,
                             typename yamr__topk_width<Bytes>::storage>::buffer *
           sizeof(R);
}

/* The k-th largest of the first (block's warps) x N x WarpSize ranks of a row's partial lists
 * (`ranks`) in depth-first order (every list's first, then every list's second, ...), or the
 * bottom: any k of the lists' ranks are k elements of the row (or bottoms), so it is at or below
 * the answer's k-th. Each warp sorts its window of N x WarpSize in registers, then the warps merge
 * their windows pairwise keeping the best N x WarpSize (yamr__reg_merge_warps). A warp's window
 * alone (as before: warp 0's, a list's first rank of 128 lists at most for k 100) left the merge of
 * 1 x 2^26 k100 about 400 candidates, and its flushes took 17 us (ncu, H100); the block's window
 * (k 100: the first two ranks of 264 lists) holds nearly all of the row's best k. k <= N x
 * WarpSize; called by the whole block; `scratch`: shared memory of (block's warps) x N x WarpSize
 * ranks. */
template <int WarpSize, int N, typename R>
__device__ inline R yamr__topk_sample_kth(const R *ranks, const yamr__topk_args &a, R *scratch)
{
    constexpr int per = N * WarpSize;
    const int warp = (int)threadIdx.x / WarpSize, lane = (int)threadIdx.x % WarpSize;
    const long long lists = a.blocks_per_row, total = lists * a.k;
    R v[N];
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const long long i = (long long)warp * per + j * WarpSize + lane;
        v[j] = i < total ? ranks[(i % lists) * a.k + i / lists] : yamr__rank_bottom<R>();
    }
    yamr__topk_warp_sort<WarpSize>(v);
    yamr__reg_merge_warps<WarpSize, N, per>(v, scratch);
    if (warp == 0) {
        const R t = yamr__reg_at<WarpSize>(v, a.k - 1);
        if (lane == 0) scratch[0] = t;
    }
    __syncthreads();
    const R t = scratch[0];
    __syncthreads(); /* scratch is free again */
    return t;
}

/* yamr__topk_sort_merge: up to this many candidates, none flushed before, take their places by
 * counting the candidates above each (the block's threads read the same word of shared memory at
 * once) in place of the block's bitonic sort, a barrier a step. The buffer stays at most half
 * full before each group of appends, as with yamr__topk_flush_at. */
#define YAMR__TOPK_COUNT_PLACE 512
static_assert(YAMR__TOPK_COUNT_PLACE <= YAMR__TOPK_THREADS * YAMR__TOPK_GROUP_N,
              "the candidates kept and a group of appends fit the buffer");

/* The merge of many lists (or long ones) into the team's list. Each list alone holds k ranks at
 * least as large as its k-th: the largest k-th is a lower bound of the answer's k-th. So is the
 * k-th of a sample (yamr__topk_sample_kth): where the lists are many (a long row, small k) or k
 * is near their total, it is near the answer's k-th and the largest k-th far below it, and every
 * rank above the threshold goes through the block's sort. The lists are sorted, so they are read
 * depth first (every list's first rank, then every list's second, ...), a group of positions at a
 * time; a group holds a position of every list (blocks per row are at most a group), so once no
 * rank of a group passes the threshold, no later one can: each is below its list's rank in that
 * group, and the threshold only rises. A rank passes when not below the threshold, since the
 * first threshold is a list's own rank. */
template <int WarpSize, typename R>
__device__ inline void yamr__topk_sort_merge(const yamr__topk_state<R> &st, const R *ranks,
                                             const yamr__topk_args &a)
{
    typedef yamr__topk_block_team Team;
    const long long lists = a.blocks_per_row, total = lists * a.k;
    R threshold = yamr__rank_bottom<R>();
    for (long long l = threadIdx.x; l < lists; l += Team::size)
        threshold = yamr__rank_max(threshold, ranks[l * a.k + a.k - 1]);
#pragma unroll
    for (int d = WarpSize / 2; d > 0; d /= 2)
        threshold = yamr__rank_max(threshold, yamr__rank_shfl<WarpSize>(threshold, d, true));
    if (a.k <= WarpSize)
        threshold = yamr__rank_max(threshold,
                                   yamr__topk_sample_kth<WarpSize, 1>(ranks, a, st.buffer));
    else if (a.k <= YAMR__TOPK_SEED_N * WarpSize)
        threshold = yamr__rank_max(
            threshold, yamr__topk_sample_kth<WarpSize, YAMR__TOPK_SEED_N>(ranks, a, st.buffer));
    if (threadIdx.x % WarpSize == 0) st.buffer[threadIdx.x / WarpSize] = threshold;
    __syncthreads();
    for (int w = 0; w < Team::size / WarpSize; ++w)
        threshold = yamr__rank_max(threshold, st.buffer[w]);
    __syncthreads(); /* the buffer is the appends' again */
    bool sorted = false; /* whether a flush has put ranks in the list */
    for (long long base = 0; base < total; base += (long long)Team::size * YAMR__TOPK_GROUP_N) {
        bool any = false;
#pragma unroll
        for (int u = 0; u < YAMR__TOPK_GROUP_N; ++u) {
            const long long i = base + u * Team::size + threadIdx.x;
            R r = yamr__rank_bottom<R>();
            if (i < total) r = ranks[(i % lists) * a.k + i / lists];
            const bool pass = yamr__rank_col(r) >= 0 && !yamr__rank_gt(threshold, r);
            any |= pass;
            yamr__topk_append<WarpSize>(st, pass, r);
        }
        if (!Team::sync_or(any)) break;
        const int count = *st.count;
        Team::sync();
        if (count >= yamr__topk_flush_at<Team>(st.list_size) &&
            (sorted || count > YAMR__TOPK_COUNT_PLACE)) {
            yamr__topk_flush<Team>(st);
            threshold = st.list[a.k - 1];
            sorted = true;
        }
    }
    const int n = *st.count;
    if (sorted || n > YAMR__TOPK_COUNT_PLACE) {
        if (n > 0) yamr__topk_flush<Team>(st);
        return;
    }
    /* every candidate is in the buffer: a rank's place is the count of those above it */
    for (int i = Team::rank(); i < n; i += Team::size) {
        const R x = st.buffer[i];
        int place = 0;
        for (int j = 0; j < n; ++j) place += yamr__rank_gt(st.buffer[j], x);
        if (place < a.k) st.list[place] = x;
    }
    Team::sync();
}

/* Lists a thread of the place merge searches (YAMR__TOPK_MAX_BLOCKS_PER_ROW over the block). */
#define YAMR__TOPK_PLACE_LISTS (YAMR__TOPK_MAX_BLOCKS_PER_ROW / YAMR__TOPK_THREADS)
static_assert(YAMR__TOPK_PLACE_LISTS * YAMR__TOPK_THREADS == YAMR__TOPK_MAX_BLOCKS_PER_ROW,
              "the place merge's threads hold every list");
/* The place merge's bounds from the first 1, 2, 4, ... lists: up to all of a row's. */
#define YAMR__TOPK_PLACE_BOUNDS 11
static_assert((1 << (YAMR__TOPK_PLACE_BOUNDS - 1)) >= YAMR__TOPK_MAX_BLOCKS_PER_ROW,
              "the place merge's bounds reach every list");

/* The place merge of a row's partial lists (a floor of the row's counts keeps them short), by
 * `parts` blocks of the row, this one `part`. A rank not below the largest of the lists' k-th is
 * a candidate (that k-th is at or below the answer's: its list holds k ranks at or above it).
 * Every block finds each list's candidates (a sorted list's first ones: a binary search a list,
 * YAMR__TOPK_PLACE_LISTS lists a thread side by side) and copies all of them into `cand` (shared
 * memory, `cap` ranks, list by list); candidate c is part c % parts's. Each warp takes the block's
 * in turn: a candidate's place in the answer is the count of candidates above it (ranks are
 * unique), and the warp writes it there when that is below k. No sort: the n^2 compares are
 * spread over the row's blocks, where one block's sorts took 41 us of 1 x 2^26 k1024's merge
 * (ncu, H100). Where the candidates outnumber `cap`, the threshold rises once (the bounds of the
 * lists' first 1, 2, 4, ..., below); returns false, having written nothing, where they still do
 * (the same in every block of the row). */
template <int WarpSize, int Bytes, typename R>
__device__ inline bool
yamr__topk_place_merge(R *cand, int cap, const R *ranks, const yamr__topk_args &a, long long row,
                       int part, int parts,
                       const typename yamr__topk_width<Bytes>::storage *in_row,
                       typename yamr__topk_width<Bytes>::storage *values, long long *indices,
                       typename yamr__topk_width<Bytes>::storage empty)
{
    typedef yamr__topk_block_team Team;
    constexpr int warps = Team::size / WarpSize, per = YAMR__TOPK_PLACE_LISTS;
    __shared__ R warp_best[warps];
    __shared__ int warp_least[warps], warp_sum[warps];
    __shared__ int bound_taken[warps][YAMR__TOPK_PLACE_BOUNDS];
    __shared__ R bound_least[warps][YAMR__TOPK_PLACE_BOUNDS];
    __shared__ int first[YAMR__TOPK_MAX_BLOCKS_PER_ROW]; /* list l's first candidate */
    const int warp = (int)threadIdx.x / WarpSize, lane = (int)threadIdx.x % WarpSize;
    const int lists = a.blocks_per_row, k = a.k;
    R t = yamr__rank_bottom<R>();
    for (int l = (int)threadIdx.x; l < lists; l += Team::size)
        t = yamr__rank_max(t, ranks[(long long)l * k + k - 1]);
#pragma unroll
    for (int d = WarpSize / 2; d > 0; d /= 2)
        t = yamr__rank_max(t, yamr__rank_shfl<WarpSize>(t, d, true));
    if (lane == 0) warp_best[warp] = t;
    Team::sync();
    for (int w = 0; w < warps; ++w) t = yamr__rank_max(t, warp_best[w]);
    /* list l = per * thread + q: its candidates are positions [0, lo[q]); the first probe at
     * the position where the lists' candidates would outnumber `cap` were all that deep (short
     * lists end their searches soon; after the raise, full ones tell at once that the place
     * merge is out) */
    const int probe = cap / lists < k ? cap / lists : k - 1;
    int lo[per], n = 0, at = 0;
    for (int round = 0;; ++round) {
        int hi[per], least = 0;
#pragma unroll
        for (int q = 0; q < per; ++q) {
            const int l = per * (int)threadIdx.x + q;
            lo[q] = 0;
            hi[q] = 0;
            if (l >= lists) continue;
            const R r = ranks[(long long)l * k + probe];
            if (yamr__rank_col(r) >= 0 && !yamr__rank_gt(t, r)) lo[q] = probe + 1, hi[q] = k;
            else hi[q] = probe;
            least += lo[q];
        }
#pragma unroll
        for (int d = WarpSize / 2; d > 0; d /= 2) least += yamr__shfl_xor<WarpSize>(least, d);
        if (lane == 0) warp_least[warp] = least;
        Team::sync();
        least = 0;
        for (int w = 0; w < warps; ++w) least += warp_least[w];
        if (least > cap && round > 0) return false;
        for (bool more = true; more;) {
            more = false;
#pragma unroll
            for (int q = 0; q < per; ++q) {
                if (lo[q] >= hi[q]) continue;
                more = true;
                const int mid = (lo[q] + hi[q]) / 2;
                const R r = ranks[(long long)(per * (int)threadIdx.x + q) * k + mid];
                if (yamr__rank_col(r) >= 0 && !yamr__rank_gt(t, r)) lo[q] = mid + 1;
                else hi[q] = mid;
            }
        }
        int mine = 0; /* exclusive prefix sums of the counts, over the block */
#pragma unroll
        for (int q = 0; q < per; ++q) mine += lo[q];
        int incl = mine;
#pragma unroll
        for (int d = 1; d < WarpSize; d *= 2) {
            const int o = yamr__shfl<WarpSize>(incl, lane >= d ? lane - d : lane);
            if (lane >= d) incl += o;
        }
        if (lane == WarpSize - 1) warp_sum[warp] = incl;
        Team::sync();
        at = incl - mine;
        n = 0;
        for (int w = 0; w < warps; ++w) {
            at += w < warp ? warp_sum[w] : 0;
            n += warp_sum[w];
        }
        if (n <= cap) break;
        if (round > 0) return false;
        /* Too many: raise t to the best bound of the lists' first m (1, 2, 4, ...), each of
         * which holds ceil(k / m) of its candidates at most: where those are k or more, the least
         * of them is at or below the answer's k-th (as bf16's ties at the top of a long row,
         * whose lists in order are the ties in rank order). */
        int taken[YAMR__TOPK_PLACE_BOUNDS];
        R least_of[YAMR__TOPK_PLACE_BOUNDS];
#pragma unroll
        for (int j = 0; j < YAMR__TOPK_PLACE_BOUNDS; ++j) {
            taken[j] = 0;
            least_of[j] = yamr__rank_bottom<R>();
        }
#pragma unroll
        for (int q = 0; q < per; ++q) {
            const int l = per * (int)threadIdx.x + q;
#pragma unroll
            for (int j = 0; j < YAMR__TOPK_PLACE_BOUNDS; ++j) {
                const int m = 1 << j, each = (k + m - 1) / m, c = each < lo[q] ? each : lo[q];
                if (l >= m || c == 0) continue;
                taken[j] += c;
                const R r = ranks[(long long)l * k + c - 1];
                if (yamr__rank_col(least_of[j]) < 0 || yamr__rank_gt(least_of[j], r))
                    least_of[j] = r;
            }
        }
#pragma unroll
        for (int j = 0; j < YAMR__TOPK_PLACE_BOUNDS; ++j) {
#pragma unroll
            for (int d = WarpSize / 2; d > 0; d /= 2) {
                taken[j] += yamr__shfl_xor<WarpSize>(taken[j], d);
                const R o = yamr__rank_shfl<WarpSize>(least_of[j], d, true);
                if (yamr__rank_col(least_of[j]) < 0 ||
                    (yamr__rank_col(o) >= 0 && yamr__rank_gt(least_of[j], o)))
                    least_of[j] = o;
            }
            if (lane == 0) {
                bound_taken[warp][j] = taken[j];
                bound_least[warp][j] = least_of[j];
            }
        }
        Team::sync();
        for (int j = 0; j < YAMR__TOPK_PLACE_BOUNDS; ++j) {
            int all = 0;
            R x = yamr__rank_bottom<R>();
            for (int w = 0; w < warps; ++w) {
                all += bound_taken[w][j];
                const R o = bound_least[w][j];
                if (yamr__rank_col(x) < 0 || (yamr__rank_col(o) >= 0 && yamr__rank_gt(x, o)))
                    x = o;
            }
            if (all >= k && yamr__rank_gt(x, t)) t = x;
        }
    }
#pragma unroll
    for (int q = 0; q < per; ++q) {
        const int l = per * (int)threadIdx.x + q;
        if (l < lists) first[l] = at;
        at += lo[q];
    }
    Team::sync();
    for (int c = (int)threadIdx.x; c < n; c += Team::size) { /* its list: the last first <= c */
        int l0 = 0, l1 = lists - 1;
        while (l0 < l1) {
            const int m = (l0 + l1 + 1) / 2;
            if (first[m] <= c) l0 = m;
            else l1 = m - 1;
        }
        cand[c] = ranks[(long long)l0 * k + (c - first[l0])];
    }
    Team::sync();
    const long long out = row * a.out_k + a.out_first;
    for (int c = part + warp * parts; c < n; c += parts * warps) {
        const R x = cand[c];
        int above = 0;
        for (int j = lane; j < n; j += WarpSize) above += yamr__rank_gt(cand[j], x) ? 1 : 0;
#pragma unroll
        for (int d = WarpSize / 2; d > 0; d /= 2) above += yamr__shfl_xor<WarpSize>(above, d);
        if (lane == 0 && above < k) {
            const long long col = yamr__rank_col(x);
            values[out + above] = in_row[col];
            if (indices) indices[out + above] = col;
            if (a.write_bounds && above == k - 1) ((R *)a.bounds)[row] = x;
        }
    }
    if (part == 0) { /* fewer than k candidates: the row has fewer than k elements */
        for (int j = n + (int)threadIdx.x; j < k; j += Team::size) {
            values[out + j] = empty;
            if (indices) indices[out + j] = -1;
        }
        if (a.write_bounds && n < k && threadIdx.x == 0)
            ((R *)a.bounds)[row] = yamr__rank_bottom<R>();
    }
    return true;
}

/* A block per row merges the row's partial lists through the sorts and writes the answer: rows
 * of more lists than their own last block merges (yamr__topk_merges_own). */
template <int Bytes, typename R, int WarpSize>
__global__ void __launch_bounds__(YAMR__TOPK_THREADS)
yamr_topk_merge_kernel(const typename yamr__topk_width<Bytes>::storage *__restrict__ in,
                       yamr__topk_args a, typename yamr__topk_width<Bytes>::storage *values,
                       long long *indices, typename yamr__topk_width<Bytes>::storage empty)
{
    typedef yamr__topk_block_team Team;
    if (!yamr__warp_width_matches<WarpSize>()) return;
    extern __shared__ unsigned long long yamr__topk_smem[];
    __shared__ int count;
    const long long lists = a.blocks_per_row, total = lists * a.k;
    for (long long row = blockIdx.x; row < a.rows; row += gridDim.x) {
        const yamr__topk_state<R> st =
            yamr__topk_open<Team>((R *)yamr__topk_smem, &count, a.list_size);
        const R *ranks = (const R *)a.partials + row * total;
        if (a.row_words && threadIdx.x == 0) ((unsigned long long *)a.row_words)[row] = 0;
        yamr__topk_sort_merge<WarpSize>(st, ranks, a);
        yamr__topk_write<Team, Bytes>(st, a, row, in + row * a.ld, values, indices, empty);
        __syncthreads();
    }
}

/* The merge of lists under a floor of the row's counts (YAMR__TOPK_FLOOR_ROW: few ranks each):
 * work item w is part w % parts of row w / parts (parts: a.merge_blocks), merged by place
 * (yamr__topk_place_merge); where a row's candidates do not fit, its part 0 merges them through
 * the sorts. */
template <int Bytes, typename R, int WarpSize>
__global__ void __launch_bounds__(YAMR__TOPK_THREADS)
yamr_topk_place_kernel(const typename yamr__topk_width<Bytes>::storage *__restrict__ in,
                       yamr__topk_args a, typename yamr__topk_width<Bytes>::storage *values,
                       long long *indices, typename yamr__topk_width<Bytes>::storage empty)
{
    typedef yamr__topk_block_team Team;
    if (!yamr__warp_width_matches<WarpSize>()) return;
    extern __shared__ unsigned long long yamr__topk_smem[];
    __shared__ int count;
    const int parts = a.merge_blocks;
    for (long long w = blockIdx.x; w < a.rows * parts; w += gridDim.x) {
        const long long row = w / parts;
        const int part = (int)(w - row * parts);
        const R *ranks = (const R *)a.partials + row * a.blocks_per_row * a.k;
        const typename yamr__topk_width<Bytes>::storage *in_row = in + row * a.ld;
        if (!yamr__topk_place_merge<WarpSize, Bytes>(
                (R *)yamr__topk_smem, a.list_size + yamr__topk_buffer<Team>(), ranks, a, row,
                part, parts, in_row, values, indices, empty) &&
            part == 0) {
            __syncthreads(); /* the candidates' shared memory is the list's */
            const yamr__topk_state<R> st =
                yamr__topk_open<Team>((R *)yamr__topk_smem, &count, a.list_size);
            yamr__topk_sort_merge<WarpSize>(st, ranks, a);
            yamr__topk_write<Team, Bytes>(st, a, row, in_row, values, indices, empty);
        }
        __syncthreads();
    }
}

#endif /* YAMR_TOPK_HPP */
