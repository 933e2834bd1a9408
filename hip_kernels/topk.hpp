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
 * A team (a block, or a warp) keeps the best ranks seen so far, sorted, in shared memory (the
 * list: a power of two >= k) and the k-th of them as a threshold. Its threads read their
 * elements in coalesced steps and append only the ranks not below the threshold to a shared
 * buffer; when the buffer may not hold another group of appends, the team sorts it (bitonic) and
 * merges it into the list, which raises the threshold. The first threshold comes from a sample
 * (yamr__topk_seed), so that on random data almost every element fails one compare from the
 * start and the scan runs at the speed of the read; ordered data costs more flushes, never a
 * different result.
 *
 * A warp per short row keeps its list in registers instead (yamr__reg_*, k of at most two
 * warps' width) and inserts the rare candidate above its k-th directly: no shared memory, no
 * sync, no sort (on a block's longer parts, where early candidates are many, the inserts'
 * one-at-a-time cost lost to the buffer's sorts).
 *
 * Kernels (the plan's kernel and blocks_per_row, src/topk_shape.c): a warp per row for short
 * rows and small k; a block per row; several blocks per row, each leaving its sorted list in the
 * workspace, and a second kernel (a block per row) merging those lists and writing the answer.
 * k above a list's capacity is answered in rounds of that capacity: each round takes the best
 * ranks strictly below the last rank of the round before, kept per row in the workspace.
 */
#ifndef YAMR_TOPK_HPP
#define YAMR_TOPK_HPP

#include "dtype_traits.hpp"
#include "yamr_port.h"

#define YAMR__TOPK_THREADS 256
/* Blocks per multiprocessor the registers of the top-k kernels allow. */
#define YAMR__TOPK_MIN_BLOCKS 4
/* Positions a thread appends between two flush checks; a team's buffer holds two such groups. */
#define YAMR__TOPK_GROUP_N 4

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
 * (hence the second sync); a flush when it reaches the team's flush count. Returns the
 * threshold. */
template <typename Team, typename R>
__device__ inline R yamr__topk_settle(const yamr__topk_state<R> &st, int k, R threshold)
{
    Team::sync();
    const int count = *st.count;
    Team::sync();
    if (count >= yamr__topk_flush_at<Team>(st.list_size)) {
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

/*
 * The scan: the ranks of positions [0, n) of `src` (src.load(i), then src.rank(item, i, &r):
 * false for no element, a NaN under YAMR_NAN_IGNORE), those at or above `bound` left out where
 * has_bound, into the list, whose k-th rank is the threshold. Unroll positions a thread loads at
 * once; appends go in groups of YAMR__TOPK_GROUP_N, each followed by the flush check. A rank
 * passes when it is not below the threshold: ranks are unique and each is seen once, so a rank
 * equal to the threshold is the seed's own and belongs to the candidates.
 */
template <typename Team, int WarpSize, int Unroll, typename R, typename Source>
__device__ inline void yamr__topk_scan(const yamr__topk_state<R> &st, long long n, int k,
                                       bool has_bound, R bound, const Source &src)
{
    static_assert(Unroll % YAMR__TOPK_GROUP_N == 0, "appends go in whole groups");
    R threshold = yamr__topk_seed<Team, WarpSize>(st, n, k, has_bound, bound, src);
    for (long long base = 0; base < n; base += (long long)Unroll * Team::size) {
        typename Source::item e[Unroll];
#pragma unroll
        for (int u = 0; u < Unroll; ++u) {
            const long long i = base + u * Team::size + Team::rank();
            if (i < n) e[u] = src.load(i);
        }
#pragma unroll
        for (int g = 0; g < Unroll; g += YAMR__TOPK_GROUP_N) {
            if (base + (long long)g * Team::size >= n) break; /* the same for the whole team */
#pragma unroll
            for (int u = g; u < g + YAMR__TOPK_GROUP_N; ++u) {
                const long long i = base + u * Team::size + Team::rank();
                R r;
                const bool pass = i < n && src.rank(e[u], i, r) && !yamr__rank_gt(threshold, r) &&
                                  (!has_bound || yamr__rank_gt(bound, r));
                yamr__topk_append<WarpSize>(st, pass, r);
            }
            threshold = yamr__topk_settle<Team>(st, k, threshold);
        }
    }
    if (*st.count > 0) yamr__topk_flush<Team>(st); /* settle's syncs ordered the last appends */
}

/* ---- Register lists: for k <= N * WarpSize, a warp keeps its best N * WarpSize ranks sorted
 * in registers, rank e = j * WarpSize + lane in v[j] of that lane. A candidate above the k-th
 * (rare once the threshold settles) is inserted by every lane at once: no shared memory, no
 * sync, no sort. ---- */

/* Inserts x (the same in every lane, not in the list) where it belongs; the last entry goes. */
template <int WarpSize, int N, typename R>
__device__ inline void yamr__reg_insert(R (&v)[N], const R &x)
{
    const int lane = threadIdx.x % WarpSize;
    int pos = 0;
#pragma unroll
    for (int j = 0; j < N; ++j)
        pos += yamr__popc_mask(yamr__ballot<WarpSize>(yamr__rank_gt(v[j], x)));
    R t[N]; /* entry e - 1, for lanes > 0; lane 0 takes slot j - 1's from lane WarpSize - 1 */
#pragma unroll
    for (int j = 0; j < N; ++j)
        t[j] = yamr__rank_shfl<WarpSize>(v[j], (lane + WarpSize - 1) % WarpSize, false);
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const int e = j * WarpSize + lane;
        const R before = lane > 0 ? t[j] : j > 0 ? t[j - 1] : x;
        if (e == pos)
            v[j] = x;
        else if (e > pos)
            v[j] = before;
    }
}

/* Offers every lane's candidate where `pass` to the list; kth and threshold follow it. */
template <int WarpSize, int N, typename R>
__device__ inline void yamr__reg_offer(R (&v)[N], int k, bool pass, const R &r, R &kth, R &threshold)
{
    yamr__lane_mask m = yamr__ballot<WarpSize>(pass);
    while (m) { /* the same mask in every lane */
        const R x = yamr__rank_shfl<WarpSize>(r, yamr__lowest_lane(m), false);
        m &= m - 1;
        if (yamr__rank_gt(x, kth)) {
            yamr__reg_insert<WarpSize>(v, x);
            kth = yamr__reg_at<WarpSize>(v, k - 1);
            threshold = yamr__rank_max(threshold, kth);
        }
    }
}

/* yamr__topk_scan for one warp and a register list (empty at the start). */
template <int WarpSize, int N, int Unroll, typename R, typename Source>
__device__ inline void yamr__topk_reg_scan(R (&v)[N], long long n, int k, bool has_bound, R bound,
                                           const Source &src)
{
    const int lane = threadIdx.x % WarpSize;
    R threshold = yamr__topk_warp_seed<WarpSize>(n, k, has_bound, bound, src, lane, WarpSize);
    R kth = yamr__rank_bottom<R>();
    for (long long base = 0; base < n; base += (long long)Unroll * WarpSize) {
        typename Source::item e[Unroll];
#pragma unroll
        for (int u = 0; u < Unroll; ++u) {
            const long long i = base + u * WarpSize + lane;
            if (i < n) e[u] = src.load(i);
        }
#pragma unroll
        for (int u = 0; u < Unroll; ++u) {
            const long long i = base + u * WarpSize + lane;
            R r = yamr__rank_bottom<R>();
            const bool pass = i < n && src.rank(e[u], i, r) && !yamr__rank_gt(threshold, r) &&
                              (!has_bound || yamr__rank_gt(bound, r));
            yamr__reg_offer<WarpSize>(v, k, pass, r, kth, threshold);
        }
    }
}

/* Slots of a register list: k up to 2 warps' width. */
#define YAMR__TOPK_REG_N 2

/* ---- Kernels ---- */

/* What every top-k kernel is told. */
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
};

/* The answer of one row from its team's sorted list: values from the input at each rank's
 * column (the empty value where no element), indices (may be NULL). */
template <typename Team, yamr_dtype Dtype, typename R>
__device__ inline void yamr__topk_write(const yamr__topk_state<R> &st, const yamr__topk_args &a,
                                        long long row,
                                        const typename yamr__dtype_traits<Dtype>::storage *in_row,
                                        typename yamr__dtype_traits<Dtype>::storage *values,
                                        long long *indices,
                                        typename yamr__dtype_traits<Dtype>::storage empty)
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
template <int WarpSize, int N, yamr_dtype Dtype, typename R>
__device__ inline void yamr__reg_write(const R (&v)[N], const yamr__topk_args &a, long long row,
                                       const typename yamr__dtype_traits<Dtype>::storage *in_row,
                                       typename yamr__dtype_traits<Dtype>::storage *values,
                                       long long *indices,
                                       typename yamr__dtype_traits<Dtype>::storage empty)
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

/* The element ranks of a row: false for a NaN under YAMR_NAN_IGNORE. */
template <yamr_dtype Dtype, typename R>
struct yamr__topk_elements {
    typedef yamr__dtype_traits<Dtype> traits;
    typedef typename traits::storage item;
    const item *row;
    long long first; /* the column of row[0] */
    yamr__key_mode<typename traits::key> mode;
    bool skip_bottom; /* floats under YAMR_NAN_IGNORE: the bottom key is a NaN */
    __device__ inline item load(long long i) const { return row[i]; }
    __device__ inline bool rank(item x, long long i, R &r) const
    {
        const typename traits::key key = traits::to_key(x, mode);
        yamr__rank_make(r, (unsigned long long)key, first + i);
        return !(skip_bottom && key == 0);
    }
};

template <yamr_dtype Dtype, typename R>
__device__ inline yamr__topk_elements<Dtype, R>
yamr__topk_elements_of(const yamr__topk_args &a,
                       const typename yamr__dtype_traits<Dtype>::storage *in, long long row,
                       long long first)
{
    typedef yamr__dtype_traits<Dtype> traits;
    yamr__topk_elements<Dtype, R> at;
    at.row = in + row * a.ld + first;
    at.first = first;
    at.mode = yamr__key_mode_of<typename traits::key>(a.is_min, a.nan_ignore);
    at.skip_bottom = yamr__dtype_is_float<Dtype>() && a.nan_ignore;
    return at;
}

/* Elements a thread loads at once: 64 bytes of them. */
template <yamr_dtype Dtype>
__host__ __device__ constexpr int yamr__topk_unroll()
{
    return sizeof(typename yamr__dtype_traits<Dtype>::storage) >= 8 ? 8 : 16;
}

/* The round's bound of a row, if any. */
template <typename R>
__device__ inline R yamr__topk_bound(const yamr__topk_args &a, long long row, bool &has_bound)
{
    has_bound = a.bounds && a.out_first > 0;
    return has_bound ? ((const R *)a.bounds)[row] : yamr__rank_bottom<R>();
}

/* Blocks stride over (row, part of the row) pairs: the answer, or a partial list. */
template <yamr_dtype Dtype, typename R, int WarpSize>
__global__ void __launch_bounds__(YAMR__TOPK_THREADS, YAMR__TOPK_MIN_BLOCKS)
yamr_topk_kernel(const typename yamr__dtype_traits<Dtype>::storage *__restrict__ in,
                 yamr__topk_args a, typename yamr__dtype_traits<Dtype>::storage *values,
                 long long *indices, typename yamr__dtype_traits<Dtype>::storage empty)
{
    typedef yamr__topk_block_team Team;
    if (!yamr__warp_width_matches<WarpSize>()) return;
    extern __shared__ unsigned long long yamr__topk_smem[];
    __shared__ int count;
    const long long work = a.rows * a.blocks_per_row;
    const long long chunk = (a.cols + a.blocks_per_row - 1) / a.blocks_per_row;
    for (long long w = blockIdx.x; w < work; w += gridDim.x) {
        const long long row = w / a.blocks_per_row;
        const long long first = (w % a.blocks_per_row) * chunk;
        const long long n = first + chunk < a.cols ? chunk : a.cols - first;
        const yamr__topk_state<R> st =
            yamr__topk_open<Team>((R *)yamr__topk_smem, &count, a.list_size);
        bool has_bound;
        const R bound = yamr__topk_bound<R>(a, row, has_bound);
        yamr__topk_scan<Team, WarpSize, yamr__topk_unroll<Dtype>()>(
            st, n > 0 ? n : 0, a.k, has_bound, bound,
            yamr__topk_elements_of<Dtype, R>(a, in, row, first));
        if (a.blocks_per_row == 1) {
            yamr__topk_write<Team, Dtype>(st, a, row, in + row * a.ld, values, indices, empty);
        } else {
            R *part = (R *)a.partials + w * a.k;
            for (int j = threadIdx.x; j < a.k; j += blockDim.x) part[j] = st.list[j];
        }
        __syncthreads(); /* the shared state is made anew for the next pair */
    }
}

/* Each warp of a block takes rows in turn, with a register list of its own (k <= a register
 * list, src/topk_shape.c). */
template <yamr_dtype Dtype, typename R, int WarpSize>
__global__ void __launch_bounds__(YAMR__TOPK_THREADS, YAMR__TOPK_MIN_BLOCKS)
yamr_topk_warp_kernel(const typename yamr__dtype_traits<Dtype>::storage *__restrict__ in,
                      yamr__topk_args a, typename yamr__dtype_traits<Dtype>::storage *values,
                      long long *indices, typename yamr__dtype_traits<Dtype>::storage empty)
{
    constexpr int warps = YAMR__TOPK_THREADS / WarpSize;
    if (!yamr__warp_width_matches<WarpSize>()) return;
    const int warp = threadIdx.x / WarpSize;
    for (long long row = (long long)blockIdx.x * warps + warp; row < a.rows;
         row += (long long)gridDim.x * warps) {
        R v[YAMR__TOPK_REG_N];
#pragma unroll
        for (int j = 0; j < YAMR__TOPK_REG_N; ++j) v[j] = yamr__rank_bottom<R>();
        bool has_bound;
        const R bound = yamr__topk_bound<R>(a, row, has_bound);
        yamr__topk_reg_scan<WarpSize, YAMR__TOPK_REG_N, yamr__topk_unroll<Dtype>()>(
            v, a.cols, a.k, has_bound, bound, yamr__topk_elements_of<Dtype, R>(a, in, row, 0));
        yamr__reg_write<WarpSize, YAMR__TOPK_REG_N, Dtype>(v, a, row, in + row * a.ld, values,
                                                          indices, empty);
    }
}

/*
 * A block per row merges the row's partial lists and writes the answer. The lists are sorted, so
 * they are read depth first (every list's first rank, then every list's second, ...), a group of
 * positions at a time; a group holds a position of every list (blocks per row are at most a
 * group), so once no rank of a group passes the threshold, no later one can: each is below its
 * list's rank in that group, and the threshold only rises. A rank passes when not below the
 * threshold, since the first threshold is a list's own rank.
 */
template <yamr_dtype Dtype, typename R, int WarpSize>
__global__ void __launch_bounds__(YAMR__TOPK_THREADS)
yamr_topk_merge_kernel(const typename yamr__dtype_traits<Dtype>::storage *__restrict__ in,
                       yamr__topk_args a, typename yamr__dtype_traits<Dtype>::storage *values,
                       long long *indices, typename yamr__dtype_traits<Dtype>::storage empty)
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
        /* Each list alone holds k ranks at least as large as its k-th: the largest k-th is a
         * lower bound of the answer's k-th. */
        R threshold = yamr__rank_bottom<R>();
        for (long long l = threadIdx.x; l < lists; l += Team::size)
            threshold = yamr__rank_max(threshold, ranks[l * a.k + a.k - 1]);
#pragma unroll
        for (int d = WarpSize / 2; d > 0; d /= 2)
            threshold = yamr__rank_max(threshold, yamr__rank_shfl<WarpSize>(threshold, d, true));
        if (threadIdx.x % WarpSize == 0) st.buffer[threadIdx.x / WarpSize] = threshold;
        __syncthreads();
        for (int w = 0; w < Team::size / WarpSize; ++w)
            threshold = yamr__rank_max(threshold, st.buffer[w]);
        __syncthreads(); /* the buffer is the appends' again */
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
            threshold = yamr__topk_settle<Team>(st, a.k, threshold);
        }
        if (count > 0) yamr__topk_flush<Team>(st);
        yamr__topk_write<Team, Dtype>(st, a, row, in + row * a.ld, values, indices, empty);
        __syncthreads();
    }
}

#endif /* YAMR_TOPK_HPP */
