/*
 * Batched reductions: one answer per row of a matrix or per segment of an array, in three kernel
 * shapes (the host plans one per call: src/plan.c).
 *
 *  - warp per row: yamr_rows_lanes_kernel for a matrix, a group of 8 lanes (or the warp) per
 *    row; rows are short, so a block holds many and shuffles finish each one with no barrier.
 *    yamr_segments_kernel for segments, the same, except that a segment too long for one warp
 *    is left by its warp and reduced by the whole block after the warps' turn; the choice is made
 *    per segment from the offsets.
 *  - yamr_rows_block_kernel: a block per matrix row, reduced with shuffles then one warp over the
 *    per-warp results.
 *  - yamr_rows_split_kernel: several blocks per row for few long rows. Each block reduces a chunk
 *    into the context's workspace; the last block of a row to finish (a per-row counter it resets
 *    for the next launch) merges the row's partials and writes the answer.
 *
 * What is reduced is an accumulator (Acc): yamr_rows_best, the (key, first index, element) of the
 * order-preserving keys of yamr_keys.h, for max / min / argmax / argmin; or yamr_softmax_acc, the
 * running (max, sum of exp(x - max)) of the online softmax. Each thread visits its elements in
 * increasing index order, so a strictly larger key keeps the first index; merges between threads
 * and blocks break key ties on the index. No step depends on which warp or block runs when, so
 * results are identical from run to run.
 */
#ifndef YAMR_ROWS_REDUCE_HPP
#define YAMR_ROWS_REDUCE_HPP

#include <limits>
#include <type_traits>

#include "dtype_traits.hpp"
#include "yamr_internal.h"

#define YAMR_ROWS_BLOCK_UNROLL 4 /* 16-byte loads in flight per thread, block shapes */

/* The split shape's device memory, owned by the context (runtime.hip). */
struct yamr_rows_workspace {
    unsigned long long *partial_a; /* [YAMR__ROWS_SPLIT_MAX_PARTIALS]: a key, or a max's bits */
    unsigned long long *partial_b; /* an index, or a sum's bits */
    unsigned int *rows_done; /* [YAMR__ROWS_SPLIT_MAX_ROWS], 0 between launches */
};

/* Everything a batched kernel needs besides the input and the layout. */
struct yamr_batch_args {
    int is_min, nan_ignore;
    int vectorize; /* `in` is aligned to its element: 16-byte loads between boundaries */
    int blocks_per_row; /* split shape */
    void *out_a; /* values, or row maxima: one element per row */
    void *out_b; /* int64 indices (may be NULL), or row sums */
    yamr_rows_workspace ws;
};

/* ---- Layouts: where row r starts and how long it is. ---- */

struct yamr_matrix_layout {
    long long ld, cols;
    __device__ inline void extent(long long r, long long &begin, long long &length) const
    {
        begin = r * ld;
        length = cols;
    }
};

/* A decreasing pair of offsets is an empty segment: no element outside [begin, end) is read. */
struct yamr_segment_layout {
    const long long *offsets;
    __device__ inline void extent(long long s, long long &begin, long long &length) const
    {
        begin = offsets[s];
        const long long end = offsets[s + 1];
        length = end > begin ? end - begin : 0;
    }
};

/* ---- The scan: every element of a row that one thread owns, in increasing index order. ---- */

/*
 * Thread `lane` of `lanes` visits elements lane, lane + lanes, ... of p[0, n), with index
 * `first` + i. With `vectorize`, the elements from the first 16-byte boundary to the last are
 * read as 16-byte vectors (lane owns vectors lane, lane + lanes, ...), Unroll at a time (the
 * accumulator's chunk()), the few before the boundary and after the last vector one by one:
 * head, vectors, tail come in that index order, so each thread's indices increase.
 */
template <typename Storage, int Unroll, typename Acc>
__device__ inline void yamr_rows_scan(const Storage *__restrict__ p, long long n, long long first,
                                      int lane, int lanes, int vectorize, Acc &acc)
{
    constexpr int per_vec = 16 / sizeof(Storage);
    long long head = n;
    if (vectorize) {
        const int misaligned = (int)(((uintptr_t)p / sizeof(Storage)) % per_vec);
        head = misaligned ? per_vec - misaligned : 0;
        if (head > n) head = n;
    }
    for (long long i = lane; i < head; i += lanes) acc.element(p[i], first + i);
    if (head == n) return;
    const uint4 *vec = (const uint4 *)(p + head);
    const long long vectors = (n - head) / per_vec;
    long long v = lane;
    for (; v + (long long)(Unroll - 1) * lanes < vectors; v += (long long)Unroll * lanes) {
        uint4 raw[Unroll];
#pragma unroll
        for (int u = 0; u < Unroll; ++u) raw[u] = vec[v + u * lanes];
        acc.chunk(raw, first + head + v * per_vec, (long long)lanes * per_vec);
    }
    for (; v < vectors; v += lanes) acc.vector(vec[v], first + head + v * per_vec);
    for (long long i = head + vectors * per_vec + lane; i < n; i += lanes)
        acc.element(p[i], first + i);
}

/*
 * A short row, n <= Count * Lanes, in one memory round trip: thread `lane` of Lanes loads all its
 * elements lane, lane + Lanes, ... before it uses any (the general scan's head, vectors and tail
 * would cost up to three round trips, one after the other). Loads of consecutive lanes are
 * adjacent. Indices count from p.
 */
template <int Count, int Lanes, typename Storage, typename Acc>
__device__ inline void yamr_rows_scan_short(const Storage *__restrict__ p, int n, int lane,
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
 * yamr_rows_scan_short in 16-byte vectors, for `p` aligned to its element: the elements before
 * the first 16-byte boundary (head) and after the last whole vector (tail), fewer than a vector
 * each, are loaded as many per lane as Lanes lanes need (lane, lane + Lanes, ...), the vectors
 * between by lanes in turn, all in the same round trip. Each lane uses its head elements, its
 * vectors, then its tail elements: increasing indices.
 */
template <int Count, int Lanes, typename Storage, typename Acc>
__device__ inline void yamr_rows_scan_short_vectors(const Storage *__restrict__ p, int n, int lane,
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
__device__ inline void yamr_rows_scan_short_any(const Storage *__restrict__ p, int n, int lane,
                                                int vectorize, Acc &acc)
{
    if (vectorize)
        yamr_rows_scan_short_vectors<Count, Lanes>(p, n, lane, acc);
    else
        yamr_rows_scan_short<Count, Lanes>(p, n, lane, acc);
}

/* ---- Accumulators ---- */

template <yamr_dtype Dtype>
__device__ inline typename yamr_dtype_traits<Dtype>::storage yamr_empty_value()
{
    switch (Dtype) {
    case YAMR_DTYPE_F32: return (typename yamr_dtype_traits<Dtype>::storage)YAMR__QUIET_NAN_F32;
    case YAMR_DTYPE_F64: return (typename yamr_dtype_traits<Dtype>::storage)YAMR__QUIET_NAN_F64;
    case YAMR_DTYPE_F16: return (typename yamr_dtype_traits<Dtype>::storage)YAMR__QUIET_NAN_F16;
    case YAMR_DTYPE_BF16: return (typename yamr_dtype_traits<Dtype>::storage)YAMR__QUIET_NAN_BF16;
    default: return 0;
    }
}

/* Max / min / argmax / argmin: the best key, the first index holding it and that element's bits
 * (carried along, so that writing the answer needs no second read of the row). The identity is
 * (bottom key, `none`), which every element beats or ties with a smaller index. Indices count
 * from the row's (segment's) first element; Index is int where the row is known to be short
 * (fewer registers and one shuffle less per merge step), long long elsewhere. */
template <yamr_dtype Dtype, typename Index = long long>
struct yamr_rows_best {
    typedef yamr_dtype_traits<Dtype> traits;
    typedef typename traits::storage storage;
    typedef typename traits::value value;
    typedef typename traits::key Key;
    /* the same accumulator with another index type */
    template <typename I>
    using with_index = yamr_rows_best<Dtype, I>;
    static constexpr Index none = std::numeric_limits<Index>::max(); /* a thread that saw none */
    /* Whether the short scans hand a lane's vectors to one chunk(), those past the row's end
     * padded with copies of its first: a copy comes after its original, so it never beats it.
     * 4-byte types only: as one chunk, bf16 segments measured 205 us against 132 and f64
     * 65536 x 128 64 us against 35 (H100); again at the 8-byte bound of 4 blocks per SM, f64
     * segments 248 us against 225 (i64 216 against 229). */
    static constexpr bool pads_with_repeats = sizeof(storage) == 4;
    /* what a shuffle moves the element's bits as */
    typedef typename std::conditional<sizeof(storage) == 8, unsigned long long, unsigned>::type
        bits_word;
    yamr_key_mode<Key> mode;
    Key key;
    Index index;
    storage bits;

    __device__ static inline yamr_rows_best identity(const yamr_batch_args &a)
    {
        yamr_rows_best b;
        b.mode = yamr_key_mode_of<Key>(a.is_min, a.nan_ignore);
        b.clear();
        return b;
    }
    __device__ inline void clear()
    {
        key = (Key)YAMR_KEY_BOTTOM;
        index = none;
        bits = 0;
    }
    /* Within a thread: indices arrive in increasing order, so only a larger key replaces. */
    __device__ inline void consider(Key k, Index i, storage b)
    {
        if (k > key || index == none) {
            key = k;
            index = i;
            bits = b;
        }
    }
    __device__ inline void element(storage b, Index i) { consider(traits::to_key(b, mode), i, b); }
    /*
     * Unroll vectors in index order, vector u starting `step` elements after vector u - 1: the
     * best element by value first (yamr_best_of), then one key and one index update; a chunk
     * holding a NaN goes element by element, where the key places it by the NaN policy. Half
     * types take one vector at a time (32 elements held as floats took the block kernel to
     * 78-104 registers).
     */
    template <int Unroll>
    __device__ inline void chunk(const uint4 (&raw)[Unroll], long long first, long long step)
    {
        if constexpr (Unroll > 1 && sizeof(storage) == 2) {
#pragma unroll
            for (int u = 0; u < Unroll; ++u) vector(raw[u], (Index)(first + u * step));
            return;
        }
        constexpr int per_vec = 16 / sizeof(storage), count = Unroll * per_vec;
        storage e[count];
        memcpy(e, raw, sizeof raw);
        value best;
        bool nan;
        const int at = mode.flip ? yamr_best_of<Dtype, true>(e, best, nan)
                                 : yamr_best_of<Dtype, false>(e, best, nan);
        if (!nan) {
            const storage b = traits::from_value(best);
            consider(traits::to_key(b, mode), (Index)(first + at / per_vec * step + at % per_vec), b);
            return;
        }
#pragma unroll
        for (int j = 0; j < count; ++j)
            element(e[j], (Index)(first + j / per_vec * step + j % per_vec));
    }
    __device__ inline void vector(const uint4 raw, Index first)
    {
        const uint4 one[1] = {raw};
        chunk(one, first, 0);
    }
    /* Between threads or blocks: ties go to the smaller index. */
    __device__ inline void take(Key k, Index i, storage b)
    {
        if (k > key || (k == key && i < index)) {
            key = k;
            index = i;
            bits = b;
        }
    }
    /*
     * Lane 0 of every group of Lanes lanes gets its group's merge (Lanes = WarpSize: the warp's),
     * where only the first Filled lanes of a group may hold more than the identity. A whole warp
     * with 32-bit keys and indices votes instead, and every lane gets the merge: the best key,
     * the first index among the lanes holding it, and the bits of the lane holding both.
     */
    template <int WarpSize, int Lanes = WarpSize, int Filled = Lanes>
    __device__ inline void warp_merge()
    {
        if constexpr (Lanes == WarpSize && sizeof(Key) == 4 && sizeof(Index) == 4) {
            const Key top = yamr_warp_extreme<WarpSize, true>(key);
            const uint32_t first =
                yamr_warp_extreme<WarpSize, false>(key == top ? (uint32_t)index : (uint32_t)none);
            const int holder = yamr_first_lane<WarpSize>(key == top && (uint32_t)index == first);
            bits = (storage)yamr_shfl<WarpSize>((bits_word)bits, holder);
            key = top;
            index = (Index)first;
        } else {
#pragma unroll
            for (int d = Filled / 2; d > 0; d /= 2) {
                const Key k = yamr_shfl_down<WarpSize>(key, d);
                const Index i = yamr_shfl_down<WarpSize>(index, d);
                const storage b = (storage)yamr_shfl_down<WarpSize>((bits_word)bits, d);
                take(k, i, b);
            }
        }
    }
    /* Partials (split shape) hold the key and the index; the row's last block reads the bits of
     * the winner again (reload). */
    __device__ inline void to_partial(unsigned long long &a, unsigned long long &b) const
    {
        a = key;
        b = (unsigned long long)index;
    }
    __device__ inline void take_partial(unsigned long long a, unsigned long long b)
    {
        take((Key)a, (Index)b, 0);
    }
    __device__ inline void reload(const storage *row)
    {
        if (index != none) bits = row[index];
    }
    /* Row r's answer: the element at the index; -1 for NaNs only (float, ignore) or no element. */
    __device__ inline void write(long long r, const yamr_batch_args &a) const
    {
        const bool empty = index == none;
        ((storage *)a.out_a)[r] = empty ? yamr_empty_value<Dtype>() : bits;
        if (a.out_b)
            ((long long *)a.out_b)[r] =
                empty || (yamr_dtype_is_float<Dtype>() && key == (Key)YAMR_KEY_BOTTOM)
                    ? -1
                    : (long long)index;
    }
};

/* float: e^x as the hardware's 2^(x log2(e)) (yamr_exp2_fast; as __expf, within 2 + 1.2|x| ulp
 * above 2^-126, zero below). Only x <= 0 reaches it, and a term with |x| large enough for that
 * bound to matter, or below 2^-126, is below 1e-6 of the sum (which is >= 1), so the row sum stays
 * well inside the documented 1e-5 relative agreement; the exact expf made softmax statistics
 * compute-bound. */
__device__ inline float yamr_exp(float x) { return yamr_exp2_fast(x * 1.44269504088896341f); }
__device__ inline double yamr_exp(double x) { return exp(x); }

/*
 * Online softmax statistics: m, the largest element so far, and s, the sum of exp(x - m) over
 * the elements so far. exp(x - m) is taken as exactly 1 when x == m, which defines the infinite
 * cases (yamr.h): an element equal to the maximum always counts 1, so s >= 1 once any element
 * counted, and s == 0 means none did (NaNs only, ignored). Identity: (-inf, 0). Under
 * YAMR_NAN_PROPAGATE a NaN makes (NaN, NaN), which no later element or merge changes.
 */
template <typename T>
struct yamr_softmax_acc {
    typedef yamr_dtype_traits<sizeof(T) == 4 ? YAMR_DTYPE_F32 : YAMR_DTYPE_F64> traits;
    typedef typename traits::storage storage;
    template <typename I>
    using with_index = yamr_softmax_acc; /* it keeps no index */
    static constexpr bool pads_with_repeats = false; /* a repeat would add to the sum */
    T m, s;
    int nan_ignore;

    __device__ static inline yamr_softmax_acc identity(const yamr_batch_args &a)
    {
        yamr_softmax_acc acc;
        acc.nan_ignore = a.nan_ignore;
        acc.clear();
        return acc;
    }
    __device__ inline void clear()
    {
        m = -(T)INFINITY;
        s = 0;
    }
    __device__ static inline T weight(T x, T max) { return x == max ? (T)1 : yamr_exp(x - max); }
    __device__ inline void add(T x)
    {
        if (x != x) {
            if (!nan_ignore) m = s = x;
            return;
        }
        if (x > m) {
            s = s * yamr_exp(m - x) + (T)1; /* m = -inf: exp(-inf) = 0 drops the -inf elements */
            m = x;
        } else {
            s += weight(x, m); /* m NaN: s stays NaN */
        }
    }
    __device__ inline void element(storage b, long long) { add(to_value(b)); }
    /* One rescale per vector: the vector's maximum first (NaNs go the one-by-one way). */
    __device__ inline void vector(const uint4 raw, long long)
    {
        constexpr int per_vec = 16 / sizeof(storage);
        storage e[per_vec];
        memcpy(e, &raw, sizeof raw);
        T x[per_vec];
        bool nan = false;
        T vmax = to_value(e[0]);
#pragma unroll
        for (int j = 0; j < per_vec; ++j) {
            x[j] = to_value(e[j]);
            nan |= x[j] != x[j];
            vmax = x[j] > vmax ? x[j] : vmax;
        }
        if (nan || m != m) {
#pragma unroll
            for (int j = 0; j < per_vec; ++j) add(x[j]);
            return;
        }
        if (vmax > m) {
            s *= yamr_exp(m - vmax);
            m = vmax;
        }
#pragma unroll
        for (int j = 0; j < per_vec; ++j) s += weight(x[j], m);
    }
    /*
     * Several vectors with one rescale: their maximum first, then one exponential per element.
     * When the new maximum is finite and nothing is NaN, exp(x - max) is exactly what add() takes
     * (exp(0) = 1 for x == max, 0 for x = -inf); otherwise (an infinite maximum, a NaN) the
     * vectors go the vector() way, which defines those cases.
     */
    template <int Unroll>
    __device__ inline void chunk(const uint4 (&raw)[Unroll], long long, long long)
    {
        constexpr int per_vec = 16 / sizeof(storage);
        T x[Unroll * per_vec];
        memcpy(x, raw, sizeof raw);
        T top = m;
#pragma unroll
        for (int j = 0; j < Unroll * per_vec; ++j) top = fmax(top, x[j]); /* NaN-blind */
        T sum = 0;
        if (isfinite(top)) {
#pragma unroll
            for (int j = 0; j < Unroll * per_vec; ++j) sum += yamr_exp(x[j] - top);
        }
        if (!isfinite(top) || sum != sum || m != m) { /* the defined slow way */
#pragma unroll
            for (int u = 0; u < Unroll; ++u) vector(raw[u], 0);
            return;
        }
        s = s * yamr_exp(m - top) + sum; /* m = -inf: exp(-inf) = 0, and s is 0 then */
        m = top;
    }
    __device__ inline void take(T m2, T s2)
    {
        if (m != m) return;
        if (m2 != m2) {
            m = m2;
            s = s2;
            return;
        }
        const T top = m2 > m ? m2 : m;
        s = s * weight(m, top) + s2 * weight(m2, top);
        m = top;
    }
    /* In two phases, with one exponential per lane instead of two per step: the group's maximum,
     * which every lane gets (a NaN wins, as in take()); then each lane's sum rescaled to it, and
     * the sums of the first Filled lanes (the others hold the identity) added up in lane 0. */
    template <int WarpSize, int Lanes = WarpSize, int Filled = Lanes>
    __device__ inline void warp_merge()
    {
        const T top = group_max<WarpSize, Lanes>(m);
        s *= weight(m, top); /* top NaN: NaN */
#pragma unroll
        for (int d = Filled / 2; d > 0; d /= 2) s += yamr_shfl_down<WarpSize>(s, d);
        m = top;
    }
    /* The largest x of a group of Lanes lanes, a NaN if any, in every lane. float over a whole
     * warp: the warp's largest order-preserving key (yamr_keys.h, NaN the top key), one vote. */
    template <int WarpSize, int Lanes>
    __device__ static inline T group_max(T x)
    {
        if constexpr (Lanes == WarpSize && sizeof(T) == 4) {
            const yamr_key_mode<uint32_t> max_propagate = {0u, ~0u};
            const uint32_t k =
                yamr_warp_extreme<WarpSize, true>(yamr_device_key_f32(x, max_propagate));
            return k == ~0u ? (T)NAN : __uint_as_float(k & 0x80000000u ? k & 0x7fffffffu : ~k);
        } else {
#pragma unroll
            for (int d = Lanes / 2; d > 0; d /= 2) {
                const T o = yamr_shfl_xor<WarpSize>(x, d);
                x = o != o || o > x ? o : x;
            }
            return x;
        }
    }
    __device__ static inline T to_value(storage b) { return traits::to_value(b); }
    __device__ inline void to_partial(unsigned long long &a, unsigned long long &b) const
    {
        a = traits::from_value(m);
        b = traits::from_value(s);
    }
    __device__ inline void take_partial(unsigned long long a, unsigned long long b)
    {
        take(to_value((storage)a), to_value((storage)b));
    }
    __device__ inline void reload(const storage *) {}
    __device__ inline void write(long long r, const yamr_batch_args &a) const
    {
        ((T *)a.out_a)[r] = s == (T)0 ? (T)NAN : m; /* no element counted: NaNs only, ignored */
        ((T *)a.out_b)[r] = s;
    }
};

/* ---- Block-wide merge ---- */

/* Merges every thread's accumulator into thread 0's. Ends with a barrier, so that a block may
 * call it again at once (for its next row). blockDim.x == YAMR__ROWS_THREADS. */
template <int WarpSize, typename Acc>
__device__ inline void yamr_block_merge(Acc &acc)
{
    constexpr int warps = YAMR__ROWS_THREADS / WarpSize;
    __shared__ Acc per_warp[warps];
    const int lane = threadIdx.x % WarpSize, warp = threadIdx.x / WarpSize;
    acc.template warp_merge<WarpSize>();
    if (lane == 0) per_warp[warp] = acc;
    __syncthreads(); /* every warp's result is in per_warp */
    if (warp == 0) { /* the whole warp, which lets accumulators vote */
        if (lane < warps)
            acc = per_warp[lane];
        else
            acc.clear(); /* the identity */
        acc.template warp_merge<WarpSize, WarpSize, warps>();
    }
    __syncthreads(); /* per_warp is free for the next call */
}

/* ---- Kernels ---- */

/*
 * The warp shape for a matrix, whose rows all have one length: a group of Lanes lanes per row,
 * Count elements per lane at most (cols <= Lanes * Count: the host picks Lanes = 8 for rows of
 * at most YAMR__ROWS_GROUP_LANES * YAMR__ROWS_GROUP_COUNT elements, else the warp). The groups of
 * a warp reduce their rows side by side in one memory round trip and finish them with shuffles;
 * rounds of a block's YAMR__ROWS_THREADS / Lanes rows stride over the grid.
 */
/* Blocks per multiprocessor the register budget must allow (YAMR_MIN_BLOCKS), from H100 runs,
 * by element size: `half` for 2 bytes, `narrow` for 4, `wide` for 8 (which need more registers).
 * A definition of the constants below at compile time overrides each, for such measurements. */
#define YAMR_ROWS_BOUND(storage, half, narrow, wide)                                           \
    YAMR_MIN_BLOCKS(YAMR__ROWS_THREADS, sizeof(storage) == 2   ? (half)                          \
                                        : sizeof(storage) == 4 ? (narrow)                        \
                                                               : (wide))

/* 65536 x 128 f32: 16.0 us at 6, 16.1 at 7 and at 8 (within the noise; 21.6 at 8 before the
 * value-first chunks). f64: 35.5 us at 6 (40 registers, spilling), 28.5 at 5, 27.4 at 4; i64:
 * 34.0, 28.2, 27.0 (read ceiling 25.1). */
#ifndef YAMR_ROWS_LANES_MIN_BLOCKS
#define YAMR_ROWS_LANES_MIN_BLOCKS 6
#endif
#ifndef YAMR_ROWS_LANES_MIN_BLOCKS_WIDE
#define YAMR_ROWS_LANES_MIN_BLOCKS_WIDE 4
#endif

template <typename Acc, int WarpSize, int Lanes, int Count>
__global__ void __launch_bounds__(YAMR__ROWS_THREADS,
                                  YAMR_ROWS_BOUND(typename Acc::storage, YAMR_ROWS_LANES_MIN_BLOCKS,
                                                  YAMR_ROWS_LANES_MIN_BLOCKS,
                                                  YAMR_ROWS_LANES_MIN_BLOCKS_WIDE))
yamr_rows_lanes_kernel(const typename Acc::storage *__restrict__ in, long long rows,
                       yamr_matrix_layout layout, yamr_batch_args args)
{
    typedef typename Acc::template with_index<int> Narrow; /* cols <= Lanes * Count */
    if (!yamr_warp_width_matches<WarpSize>()) return;
    constexpr int per_block = YAMR__ROWS_THREADS / Lanes;
    const int lane = threadIdx.x % Lanes, slot = threadIdx.x / Lanes;
    const int n = (int)layout.cols;
    /* `first` is the same for every lane of a warp: the shuffles see the whole warp */
    for (long long first = (long long)blockIdx.x * per_block; first < rows;
         first += (long long)gridDim.x * per_block) {
        const long long r = first + slot;
        Narrow acc = Narrow::identity(args);
        if (r < rows)
            yamr_rows_scan_short_any<Count, Lanes>(in + r * layout.ld, n, lane, args.vectorize,
                                                   acc);
        acc.template warp_merge<WarpSize, Lanes>();
        if (r < rows && lane == 0) acc.write(r, args);
    }
}

/*
 * The segment kernel: each block takes yamr_segments_per_block() consecutive segments per round,
 * one per group of YAMR__SEGMENT_GROUP_LANES(element size) lanes, and every segment goes to the
 * smallest of three teams that it fits, decided per segment from the offsets:
 *  1. its group, for segments of at most YAMR__ROWS_GROUP_LANES * YAMR__ROWS_GROUP_COUNT elements:
 *     the groups of a warp reduce their segments side by side (one memory round trip for all);
 *  2. the whole warp, for segments up to YAMR__SEGMENT_WARP_MAX_PER_LANE elements per lane, one
 *     after another;
 *  3. the whole block, for longer ones, one after another.
 * A warp learns which of its groups' segments need it by a vote, a block which need it by a
 * barrier, so that rounds with short segments only (the common case) skip teams 2 and 3 with a
 * few instructions. Rounds stride over the grid.
 */
template <typename Storage>
__host__ __device__ constexpr int yamr_segments_per_block()
{
    return YAMR__ROWS_THREADS / YAMR__SEGMENT_GROUP_LANES(sizeof(Storage));
}

/* As YAMR_ROWS_LANES_MIN_BLOCKS, by element size: 2, 4 and 8 bytes. 2^20 segments of 0..127
 * elements, H100: f32 in groups of 4 lanes 108 us at 5 (48 registers), 114 at 4, 180 at 6 (40
 * registers, spilling); in groups of 8 lanes, 126 at 7. bf16 in groups of 4: 99 us at 6 (40
 * registers), 102 at 5, 135 at 7 (32 registers, spilling); in groups of 8, 125 at 7, 128 at 6,
 * 134 at 5, 146 at 4. f64: 1005 us at 7 (2268 bytes of spill stores), 379 at 6, 271 at 5, 235
 * at 4 (64 registers, none spilled); i64: 715, 385, 229, 234 (read ceiling 172). */
#ifndef YAMR_SEGMENTS_MIN_BLOCKS_HALF
#define YAMR_SEGMENTS_MIN_BLOCKS_HALF 6
#endif
#ifndef YAMR_SEGMENTS_MIN_BLOCKS
#define YAMR_SEGMENTS_MIN_BLOCKS 5
#endif
#ifndef YAMR_SEGMENTS_MIN_BLOCKS_WIDE
#define YAMR_SEGMENTS_MIN_BLOCKS_WIDE 4
#endif
template <typename Acc, int WarpSize>
__global__ void __launch_bounds__(YAMR__ROWS_THREADS,
                                  YAMR_ROWS_BOUND(typename Acc::storage,
                                                  YAMR_SEGMENTS_MIN_BLOCKS_HALF,
                                                  YAMR_SEGMENTS_MIN_BLOCKS,
                                                  YAMR_SEGMENTS_MIN_BLOCKS_WIDE))
yamr_segments_kernel(const typename Acc::storage *__restrict__ in, long long segments,
                     yamr_segment_layout layout, yamr_batch_args args)
{
    typedef typename Acc::storage Storage;
    typedef typename Acc::template with_index<int> Narrow; /* teams 1 and 2: short segments */
    if (!yamr_warp_width_matches<WarpSize>()) return;
    constexpr long long group_max = YAMR__ROWS_GROUP_LANES * YAMR__ROWS_GROUP_COUNT;
    constexpr int glanes = YAMR__SEGMENT_GROUP_LANES(sizeof(Storage));
    constexpr int gcount = (int)group_max / glanes; /* elements per lane */
    constexpr int groups = WarpSize / glanes; /* per warp */
    constexpr int per_block = yamr_segments_per_block<Storage>();
    constexpr int warp_count = YAMR__SEGMENT_WARP_MAX_PER_LANE;
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
        Narrow acc = Narrow::identity(args);
        if (my_team == 1)
            yamr_rows_scan_short_any<gcount, glanes>(in + begin, (int)n, group_lane,
                                                     args.vectorize, acc);
        acc.template warp_merge<WarpSize, glanes>();
        if (my_team == 1 && group_lane == 0) acc.write(r, args);

        /* team 2: the warp, over its groups' segments that need it, lowest group first */
        for (yamr_lane_mask want = yamr_ballot<WarpSize>(group_lane == 0 && my_team == 2); want;
             want &= want - 1) {
            const int s = warp * groups + yamr_lowest_lane(want) / glanes;
            const long long wr = first + s;
            long long wbegin, wn;
            layout.extent(wr, wbegin, wn);
            Narrow w = Narrow::identity(args);
            yamr_rows_scan_short_any<warp_count, WarpSize>(in + wbegin, (int)wn, lane,
                                                           args.vectorize, w);
            w.template warp_merge<WarpSize, WarpSize>();
            if (lane == 0) w.write(wr, args);
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
                Acc b = Acc::identity(args);
                yamr_rows_scan<Storage, YAMR_ROWS_BLOCK_UNROLL>(
                    in + bbegin, bn, 0, threadIdx.x, YAMR__ROWS_THREADS, args.vectorize, b);
                yamr_block_merge<WarpSize>(b);
                if (threadIdx.x == 0) b.write(br, args);
            }
            __syncthreads(); /* block_team is read by all before the next round writes it */
        }
    }
}

/* A block per row of a matrix; rows stride over the grid. */
template <typename Acc, int WarpSize>
__global__ void __launch_bounds__(YAMR__ROWS_THREADS)
yamr_rows_block_kernel(const typename Acc::storage *__restrict__ in, long long rows,
                       yamr_matrix_layout layout, yamr_batch_args args)
{
    if (!yamr_warp_width_matches<WarpSize>()) return;
    for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
        Acc acc = Acc::identity(args);
        yamr_rows_scan<typename Acc::storage, YAMR_ROWS_BLOCK_UNROLL>(
            in + r * layout.ld, layout.cols, 0, threadIdx.x, YAMR__ROWS_THREADS, args.vectorize,
            acc);
        yamr_block_merge<WarpSize>(acc);
        if (threadIdx.x == 0) acc.write(r, args);
    }
}

/*
 * args.blocks_per_row blocks per row: block b reduces chunk b % blocks_per_row of row
 * b / blocks_per_row into partial b; the row's last block to arrive merges its partials in chunk
 * order and writes the answer. Grid: rows * blocks_per_row <= YAMR__ROWS_SPLIT_MAX_PARTIALS, and
 * rows <= YAMR__ROWS_SPLIT_MAX_ROWS. A chunk may be empty (a short segment): its partial is the
 * identity.
 */
template <typename Acc, int WarpSize, typename Layout>
__global__ void __launch_bounds__(YAMR__ROWS_THREADS)
yamr_rows_split_kernel(const typename Acc::storage *__restrict__ in, long long rows, Layout layout,
                       yamr_batch_args args)
{
    if (!yamr_warp_width_matches<WarpSize>()) return;
    const int parts = args.blocks_per_row;
    const long long r = blockIdx.x / parts;
    const int part = blockIdx.x % parts;
    long long begin, n;
    layout.extent(r, begin, n);
    /* chunks of a multiple of 64 elements: every chunk but the first starts 16-byte aligned
     * when the row does */
    const long long chunk = ((n + parts - 1) / parts + 63) / 64 * 64;
    long long lo = (long long)part * chunk, hi = lo + chunk;
    if (lo > n) lo = n;
    if (hi > n) hi = n;
    Acc acc = Acc::identity(args);
    yamr_rows_scan<typename Acc::storage, YAMR_ROWS_BLOCK_UNROLL>(
        in + begin + lo, hi - lo, lo, threadIdx.x, YAMR__ROWS_THREADS, args.vectorize, acc);
    yamr_block_merge<WarpSize>(acc);

    __shared__ bool last_block;
    if (threadIdx.x == 0) {
        acc.to_partial(args.ws.partial_a[blockIdx.x], args.ws.partial_b[blockIdx.x]);
        __threadfence(); /* the partial is visible before the counter moves */
        last_block = atomicAdd(&args.ws.rows_done[r], 1u) == (unsigned)parts - 1;
    }
    __syncthreads();
    if (!last_block) return;
    __threadfence(); /* the other blocks' partials are read after their counter increments */

    acc = Acc::identity(args);
    const volatile unsigned long long *pa = args.ws.partial_a + r * parts;
    const volatile unsigned long long *pb = args.ws.partial_b + r * parts;
    for (int b = threadIdx.x; b < parts; b += YAMR__ROWS_THREADS) acc.take_partial(pa[b], pb[b]);
    yamr_block_merge<WarpSize>(acc);
    if (threadIdx.x == 0) {
        acc.reload(in + begin);
        acc.write(r, args);
        args.ws.rows_done[r] = 0; /* ready for the next launch on this stream */
    }
}

#endif /* YAMR_ROWS_REDUCE_HPP */
