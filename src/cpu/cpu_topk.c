/* SPDX-License-Identifier: MIT */
/*
 * The CPU backend of top-k (src/topk.h): exact, ordered, stable, about one read of the input.
 *
 * Each element maps to yamr_keys.h's order-preserving key (the MIN key is the complement, a NaN
 * the top key under YAMR_NAN_PROPAGATE and the bottom one, skipped, under YAMR_NAN_IGNORE), so
 * that the k best of a row are the k largest keys, ties by the smaller index. A row is read in
 * index order:
 *  - the first k elements (that count) fill a candidate buffer, and T is the least key among them;
 *  - from then on an element can only enter the top k with a key > T: an equal key loses to the
 *    k earlier elements with keys >= T. Per block of YAMR__TOPK_CPU_BLOCK elements a vectorized
 *    max of the keys rules out the whole block at once (most blocks, once T has risen); a block
 *    that may hold a candidate marks its elements with key > T, again vectorized, and appends
 *    the marked ones;
 *  - when the buffer is full it keeps its k best (a selection) and T rises to the least of them.
 * At the end the buffer's k best are sorted. Ascending rows, where every element is a candidate,
 * cost a selection per buffer's worth: O(n) still, with a larger constant.
 * On AVX-512, rows and ranges of 32-bit keys up to 2^16 elements (k <= 256) take a two-pass
 * form instead (rows32_wide, below), which reads a row once from memory and once from the cache.
 * As the plan says (cpu_backend.c), many rows go over threads a row at a time; a few long rows
 * are each cut into one range per thread, whose top k lists are merged (the union's k best,
 * sorted). Every answer is the same
 * for any thread count: the order is total (key, then index).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "cpu_backend.h"
#include "cpu_topk.h"
#include "yamr_keys.h"

/* Elements per filter block: long enough that the block's max (a horizontal reduction at its
 * end) costs little per element. A block that may hold a candidate is marked in sub-blocks of
 * YAMR__TOPK_CPU_MARKS elements, each against the threshold as it stands then, so that T rises
 * within the block (short rows, where T is still low). */
#define YAMR__TOPK_CPU_BLOCK 512
#define YAMR__TOPK_CPU_MARKS 64
#define YAMR__TOPK_CPU_BLOCK_F32 128
/* Candidates a buffer holds beyond 2k before it keeps its k best: few, so that T rises early
 * (each keep costs O(2k + slack) per k + slack candidates, a constant per candidate). */
#define YAMR__TOPK_CPU_SLACK 32
/* A range of at most this many bytes of keys is read twice: first its lane maxima, whose k-th
 * largest is a floor that most elements fail from the start (a short row's running threshold
 * would rise too late), then the filter, from the cache. A longer range takes the lane floor of
 * its first this many bytes (still a floor: k elements of the range reach it), so that its
 * running threshold starts high. */
#define YAMR__TOPK_CPU_SHORT_BYTES 65536
/* A short range takes the segment floor for k up to YAMR__TOPK_CPU_SEGMENT_K when its k
 * segments hold at least YAMR__TOPK_CPU_SEGMENT_MIN elements each (a vector's width or more:
 * the horizontal maxima stay a small part of the pass). For a larger k the lane floor rules out
 * more (the least of many short segments' maxima is low). */
#define YAMR__TOPK_CPU_SEGMENT_MIN 16
#define YAMR__TOPK_CPU_SEGMENT_K 8
/* The most lanes of that first pass (the buffer must hold as many entries). */
#define YAMR__TOPK_CPU_LANES_MAX 1024

typedef struct {
    uint64_t key;
    uint64_t pos; /* the element's index in its row */
} entry;

/* The total order of the output: larger key first, then smaller index. */
YAMR__CPU_INLINE int better(entry a, entry b)
{
    return a.key > b.key || (a.key == b.key && a.pos < b.pos);
}

/* ---- Selection and sort of candidates (every order is total: positions differ) ---- */

static void swap_entries(entry *a, entry *b)
{
    const entry t = *a;
    *a = *b;
    *b = t;
}

/* Heap with the worst entry at the root (a "min-heap" under better()). */
static void sift_down_worst(entry *e, size_t n, size_t i)
{
    for (;;) {
        size_t w = i, l = 2 * i + 1, r = l + 1;
        if (l < n && better(e[w], e[l])) w = l;
        if (r < n && better(e[w], e[r])) w = r;
        if (w == i) return;
        swap_entries(&e[i], &e[w]);
        i = w;
    }
}

/* Sorts e[0, n) best first, in place (the introsort fallback). */
static void heap_sort(entry *e, size_t n)
{
    for (size_t i = n / 2; i-- > 0;) sift_down_worst(e, n, i);
    /* the root is the worst: move it to the end, repeatedly */
    for (size_t end = n; end > 1; --end) {
        swap_entries(&e[0], &e[end - 1]);
        sift_down_worst(e, end - 1, 0);
    }
}

static void insertion_sort(entry *e, size_t n)
{
    for (size_t i = 1; i < n; ++i) {
        const entry x = e[i];
        size_t j = i;
        for (; j > 0 && better(x, e[j - 1]); --j) e[j] = e[j - 1];
        e[j] = x;
    }
}

/* Partitions e[0, n) (n >= 3) around the median of three: returns p with e[0, p) better than
 * or equal to the pivot... and e[p, n) not better; both sides non-empty. */
static size_t partition(entry *e, size_t n)
{
    const size_t mid = n / 2;
    if (better(e[mid], e[0])) swap_entries(&e[mid], &e[0]);
    if (better(e[n - 1], e[0])) swap_entries(&e[n - 1], &e[0]);
    if (better(e[n - 1], e[mid])) swap_entries(&e[n - 1], &e[mid]);
    /* e[0] >= pivot >= e[n - 1] in the output order: sentinels for Hoare's scans */
    const entry pivot = e[mid];
    size_t i = 0, j = n - 1;
    for (;;) {
        do ++i; while (better(e[i], pivot));
        do --j; while (better(pivot, e[j]));
        if (i >= j) return j + 1;
        swap_entries(&e[i], &e[j]);
    }
}

static unsigned depth_limit(size_t n)
{
    unsigned d = 0;
    while (n > 1) n >>= 1, d += 2;
    return d + 8;
}

/* Sorts e[0, n) best first: quicksort, insertion sort for short ranges, heap sort past a depth. */
static void sort_entries(entry *e, size_t n)
{
    unsigned budget = depth_limit(n);
    while (n > 16) {
        if (budget-- == 0) {
            heap_sort(e, n);
            return;
        }
        const size_t p = partition(e, n);
        /* recurse into the smaller side, loop on the larger */
        if (p < n - p) {
            sort_entries(e, p);
            e += p;
            n -= p;
        } else {
            sort_entries(e + p, n - p);
            n = p;
        }
    }
    insertion_sort(e, n);
}

/* Moves the k best of e[0, n) (k < n) to e[0, k), in any order: quickselect, or past a depth a
 * heap of the k best so far. */
static void select_entries(entry *e, size_t n, size_t k)
{
    unsigned budget = depth_limit(n);
    while (n > 16 && k > 0 && k < n) {
        if (budget-- == 0) {
            for (size_t i = k / 2; i-- > 0;) sift_down_worst(e, k, i);
            for (size_t i = k; i < n; ++i)
                if (better(e[i], e[0])) {
                    swap_entries(&e[0], &e[i]);
                    sift_down_worst(e, k, 0);
                }
            return;
        }
        const size_t p = partition(e, n);
        if (k <= p) {
            n = p; /* the k best are all on the left */
        } else {
            e += p; /* the left p are all among them */
            n -= p;
            k -= p;
        }
    }
    if (k > 0 && k < n) insertion_sort(e, n);
}

/* Keeps the k best of e[0, n) in e[0, k) and returns the least key among them. */
static uint64_t keep_best(entry *e, size_t n, size_t k)
{
    select_entries(e, n, k);
    uint64_t least = e[0].key;
    for (size_t i = 1; i < k; ++i) least = e[i].key < least ? e[i].key : least;
    return least;
}


/* Index of the lowest set bit of w != 0. */
YAMR__CPU_INLINE unsigned lowest_bit(uint64_t w)
{
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctzll(w);
#else
    unsigned b = 0;
    while (!(w & 1u)) w >>= 1, ++b;
    return b;
#endif
}

/* Whether any of 64 marks (bytes 0 or 1) is set. */
YAMR__CPU_INLINE int any_mark(const unsigned char *marks)
{
    uint64_t any = 0;
    for (int w = 0; w < 8; ++w) {
        uint64_t word;
        memcpy(&word, marks + 8 * w, 8);
        any |= word;
    }
    return any != 0;
}

/* Moves the min(count, k) best of e[0, count) to its front, sorted best first, and returns how
 * many. For k up to 16, by insertion into the sorted first k (few candidates get past the
 * k-th). Up to YAMR__TOPK_CPU_RANK_MAX candidates (a short row's usual count), by rank: an
 * entry's rank is the number of entries better than it (all differ: positions do), counted
 * without a branch in vectorized passes, where a sort's compares mispredict about every other
 * time; else a selection, then a sort. Inline: vectorized for each instruction set. */
#define YAMR__TOPK_CPU_RANK_MAX 128
YAMR__CPU_INLINE size_t best_sorted(entry *e, size_t count, size_t k)
{
    const size_t kept = count < k ? count : k;
    if (k <= 16) { /* insertion into the sorted first k: few candidates get past the k-th */
        insertion_sort(e, kept);
        for (size_t i = kept; i < count; ++i) {
            if (!better(e[i], e[kept - 1])) continue;
            const entry x = e[i];
            size_t j = kept - 1;
            for (; j > 0 && better(x, e[j - 1]); --j) e[j] = e[j - 1];
            e[j] = x;
        }
        return kept;
    }
    if (count <= YAMR__TOPK_CPU_RANK_MAX) {
        uint64_t key[YAMR__TOPK_CPU_RANK_MAX], pos[YAMR__TOPK_CPU_RANK_MAX];
        entry out[YAMR__TOPK_CPU_RANK_MAX];
        for (size_t i = 0; i < count; ++i) {
            key[i] = e[i].key;
            pos[i] = e[i].pos;
        }
        for (size_t i = 0; i < count; ++i) {
            const uint64_t ki = key[i], pi = pos[i];
            uint64_t rank = 0;
            _Pragma("omp simd reduction(+ : rank)")
            for (size_t j = 0; j < count; ++j)
                rank += (uint64_t)((key[j] > ki) | ((key[j] == ki) & (pos[j] < pi)));
            if (rank < kept) out[rank] = e[i];
        }
        memcpy(e, out, kept * sizeof(entry));
        return kept;
    }
    select_entries(e, count, k);
    sort_entries(e, kept);
    return kept;
}

/* Candidates a buffer takes before it keeps its k best (> k). */
static size_t keep_trigger(size_t k) { return 2 * k + YAMR__TOPK_CPU_SLACK; }

/* most[l] = the largest (MIN: least) number of f32 elements begin + l, begin + l + L, ...
 * below end, NaNs skipped by the compare's order; -inf (MIN: +inf) where a lane has none. */
YAMR__CPU_INLINE void f32_lane_extremes(const void *row, size_t begin, size_t end, int is_min,
                                        size_t lanes, float *most)
{
    const float *x = (const float *)row;
    for (size_t l = 0; l < lanes; ++l) most[l] = is_min ? HUGE_VALF : -HUGE_VALF;
    size_t i = begin;
    if (!is_min) {
        for (; end - i >= lanes; i += lanes) {
            _Pragma("omp simd")
            for (size_t l = 0; l < lanes; ++l) most[l] = x[i + l] > most[l] ? x[i + l] : most[l];
        }
        for (size_t l = 0; i + l < end; ++l) most[l] = x[i + l] > most[l] ? x[i + l] : most[l];
    } else {
        for (; end - i >= lanes; i += lanes) {
            _Pragma("omp simd")
            for (size_t l = 0; l < lanes; ++l) most[l] = x[i + l] < most[l] ? x[i + l] : most[l];
        }
        for (size_t l = 0; i + l < end; ++l) most[l] = x[i + l] < most[l] ? x[i + l] : most[l];
    }
}

/*
 * yamr__cpu_key##W as a rule of constants, so that one body serves several dtypes of a width:
 * key = b ^ (b's sign spread & neg) ^ base, where b is the bits with a zero magnitude (-0.0) as
 * 0, then a NaN (a magnitude above nan_above) as nan_key. Floats: neg = the magnitude's bits (a
 * negative's bits complemented), base = the sign bit; signed integers: neg = 0, base = the sign
 * bit; u32: neg = 0, base = 0; base carries the MIN flip. For an integer dtype (`integer`, a
 * constant in each copy) the key is bits ^ base alone. Built from a constant dtype, the rule
 * folds into yamr__cpu_key##W's code; from a run-time one (f16 and bf16; i32 and u32), it costs
 * a compare per element at most.
 */
#define YAMR__CPU_DEFINE_KEY_RULE(W, Key)                                                      \
    typedef struct {                                                                           \
        Key magnitude, nan_above, neg, base, nan_key;                                          \
        int integer;                                                                           \
    } key_rule##W;                                                                             \
    YAMR__CPU_INLINE key_rule##W key_rule##W##_for(yamr_dtype t, int integer, int is_min,      \
                                                   int nan_ignore)                             \
    {                                                                                          \
        const Key sign = (Key)((Key)1 << (W - 1)), all = (Key)~(Key)0;                         \
        const int is_float = t == YAMR_DTYPE_F32 || t == YAMR_DTYPE_F64 ||                     \
                             t == YAMR_DTYPE_F16 || t == YAMR_DTYPE_BF16;                      \
        key_rule##W r;                                                                         \
        r.magnitude = is_float ? (Key)(sign - 1) : all;                                        \
        r.nan_above = t == YAMR_DTYPE_F32    ? (Key)0x7f800000u                                \
                      : t == YAMR_DTYPE_F16  ? (Key)YAMR_F16_INF                               \
                      : t == YAMR_DTYPE_BF16 ? (Key)YAMR_BF16_INF                              \
                      : t == YAMR_DTYPE_F64  ? (Key)(0x7ff0000000000000ull)                    \
                                             : all;                                            \
        r.neg = is_float ? (Key)(sign - 1) : 0;                                                \
        r.base = (Key)((t == YAMR_DTYPE_U32 ? 0 : sign) ^ (is_min ? all : 0));                 \
        r.nan_key = is_float && !nan_ignore ? all : 0;                                         \
        r.integer = integer;                                                                   \
        return r;                                                                              \
    }                                                                                          \
    YAMR__CPU_INLINE Key key##W(key_rule##W r, const void *row, size_t i)                      \
    {                                                                                          \
        const Key bits = ((const Key *)row)[i];                                                \
        if (r.integer) return (Key)(bits ^ r.base);                                            \
        const Key magnitude = (Key)(bits & r.magnitude);                                       \
        const Key b = magnitude ? bits : 0;                                                    \
        const Key ord = (Key)(b ^ ((Key)(0u - (Key)(b >> (W - 1))) & r.neg) ^ r.base);         \
        return magnitude > r.nan_above ? r.nan_key : ord;                                      \
    }
YAMR__CPU_DEFINE_KEY_RULE(16, uint16_t)
YAMR__CPU_DEFINE_KEY_RULE(32, uint32_t)
YAMR__CPU_DEFINE_KEY_RULE(64, uint64_t)

/*
 * Lane maxima: lane l of L keeps the largest key of elements begin + l, begin + l + L, ...; the
 * k-th largest of them (k <= L) is a floor for the top k: those k lanes' maxima are k distinct
 * elements with keys at least that large, so no element below it ranks among the k best.
 */
#define YAMR__CPU_DEFINE_LANE_FLOOR(W, Key, L)                                                 \
    YAMR__CPU_INLINE uint64_t lane_floor##W##_##L(key_rule##W rule, int f32, int is_min,        \
                                                  const void *row, size_t begin, size_t end,   \
                                                  size_t k)                                    \
    {                                                                                          \
        Key lane[L];                                                                           \
        for (size_t l = 0; l < L; ++l) lane[l] = 0;                                            \
        size_t i = begin;                                                                      \
        if (W == 32 && f32) {                                                                  \
            /* in f32's own order, then L keys (a lane of NaNs only: -inf, a lower floor) */    \
            float most[L];                                                                     \
            f32_lane_extremes(row, begin, end, is_min, L, most);                               \
            for (size_t l = 0; l < L; ++l) {                                                   \
                uint32_t bits;                                                                 \
                memcpy(&bits, &most[l], 4);                                                    \
                lane[l] = (Key)(yamr__ord_f32(bits) ^ (is_min ? ~0u : 0u));                    \
            }                                                                                  \
            i = end;                                                                           \
        }                                                                                      \
        for (; end - i >= L; i += L) {                                                         \
            _Pragma("omp simd")                                                                \
            for (size_t l = 0; l < L; ++l) {                                                   \
                const Key key = key##W(rule, row, i + l);                                          \
                lane[l] = key > lane[l] ? key : lane[l];                                       \
            }                                                                                  \
        }                                                                                      \
        for (size_t l = 0; i + l < end; ++l) {                                                 \
            const Key key = key##W(rule, row, i + l);                                              \
            lane[l] = key > lane[l] ? key : lane[l];                                           \
        }                                                                                      \
        /* The k-th largest lane maximum, bit by bit from the top: the largest v with at least  \
         * k lanes >= v. Counts vectorize and nothing branches on the data. Only the top 16     \
         * bits are searched: v with its low bits 0 is still a floor, and 16 bits of a key      \
         * (a float's sign, exponent and 7 bits of mantissa) already rule out nearly as much. */ \
        Key v = 0;                                                                             \
        const Key last_bit = (Key)((Key)1 << (W > 16 ? W - 16 : 0));                           \
        for (Key bit = (Key)((Key)1 << (W - 1)); bit >= last_bit; bit >>= 1) {                \
            const Key try_v = (Key)(v | bit);                                                  \
            unsigned at_least = 0;                                                             \
            _Pragma("omp simd reduction(+ : at_least)")                                        \
            for (size_t l = 0; l < L; ++l) at_least += lane[l] >= try_v;                       \
            v = (size_t)at_least >= k ? try_v : v;                                             \
        }                                                                                      \
        return v;                                                                              \
    }

/*
 * Segment floor: the least of the maxima of k contiguous segments of [begin, end) (each at least
 * one element): those k maxima are k distinct elements with keys at least that large, so it is a
 * floor as the lane floor is. It costs one vectorized max pass and k horizontal maxima, where
 * the lane floor's bit-by-bit search costs as much as a short row's whole read.
 */
#define YAMR__CPU_DEFINE_SEGMENT_FLOOR(W, Key)                                                 \
    YAMR__CPU_INLINE Key segment_floor##W(key_rule##W rule, const void *row, size_t begin,      \
                                          size_t end, size_t k)                                \
    {                                                                                          \
        const size_t per = (end - begin) / k;                                                  \
        Key least = (Key)~(Key)0;                                                              \
        for (size_t s = 0; s < k; ++s) {                                                       \
            const size_t lo = begin + s * per, hi = s + 1 == k ? end : lo + per;               \
            Key m = 0;                                                                         \
            _Pragma("omp simd reduction(max : m)")                                             \
            for (size_t i = lo; i < hi; ++i) {                                                 \
                const Key key = key##W(rule, row, i);                                          \
                m = key > m ? key : m;                                                         \
            }                                                                                  \
            least = m < least ? m : least;                                                     \
        }                                                                                      \
        return least;                                                                          \
    }

/*
 * f32 in its own order: the float bound equivalent to "key >= floor" over numbers (MAX: x >=
 * *bound, MIN: x <= *bound), where a float compare or max costs an instruction and the key
 * several. Returns 0 when no number has such a key (only NaNs do, under YAMR_NAN_PROPAGATE).
 * Exact but for MIN at key(+0) - 1, where the bound -0.0 also passes the zeros: a superset,
 * which every caller re-checks or ranks.
 */
YAMR__CPU_INLINE int f32_bound(uint32_t floor, int is_min, float *bound)
{
    const uint32_t ord_neg_inf = 0x007fffffu, ord_pos_inf = 0xff800000u;
    const uint32_t ord = is_min ? ~floor : floor; /* MAX: ord(x) >= ord; MIN: ord(x) <= ord */
    if (is_min ? ord < ord_neg_inf : ord > ord_pos_inf) return 0;
    if (is_min ? ord >= ord_pos_inf : ord <= ord_neg_inf) {
        *bound = is_min ? HUGE_VALF : -HUGE_VALF;
        return 1;
    }
    const uint32_t bits = (ord & 0x80000000u) ? ord & 0x7fffffffu : ~ord;
    memcpy(bound, &bits, 4);
    return 1;
}

/* Whether f32 elements [i, i + len) may hold a key >= floor: any at or above f32_bound (MIN: at
 * or below), and under YAMR_NAN_PROPAGATE any NaN, in one pass of compares (an unordered compare
 * takes the NaNs: no second pass for them). A superset: the caller marks by key. */
YAMR__CPU_INLINE int f32_block_may_pass(const void *row, size_t i, size_t len, int is_min,
                                        int nan_ignore, uint32_t floor)
{
    const float *x = (const float *)row + i;
    float bound;
    int any = 0;
    if (!f32_bound(floor, is_min, &bound)) {
        if (nan_ignore) return 0;
        _Pragma("omp simd reduction(| : any)")
        for (size_t j = 0; j < len; ++j) any |= x[j] != x[j];
    } else if (!is_min && nan_ignore) {
        _Pragma("omp simd reduction(| : any)")
        for (size_t j = 0; j < len; ++j) any |= x[j] >= bound;
    } else if (!is_min) {
        _Pragma("omp simd reduction(| : any)")
        for (size_t j = 0; j < len; ++j) any |= !(x[j] < bound);
    } else if (nan_ignore) {
        _Pragma("omp simd reduction(| : any)")
        for (size_t j = 0; j < len; ++j) any |= x[j] <= bound;
    } else {
        _Pragma("omp simd reduction(| : any)")
        for (size_t j = 0; j < len; ++j) any |= !(x[j] > bound);
    }
    return any;
}

/* marks[j] = whether f32 element i + j may have a key >= floor (f32_block_may_pass's
 * superset, element by element). */
YAMR__CPU_INLINE void f32_marks(const void *row, size_t i, size_t len, int is_min,
                                int nan_ignore, uint32_t floor, unsigned char *marks)
{
    const float *x = (const float *)row + i;
    float bound;
    const int numbers = f32_bound(floor, is_min, &bound);
    const unsigned char nan_passes = (unsigned char)!nan_ignore;
    if (!numbers) {
        _Pragma("omp simd")
        for (size_t j = 0; j < len; ++j) marks[j] = (unsigned char)(nan_passes & (x[j] != x[j]));
    } else if (!is_min) {
        _Pragma("omp simd")
        for (size_t j = 0; j < len; ++j)
            marks[j] = (unsigned char)((x[j] >= bound) | (nan_passes & (x[j] != x[j])));
    } else {
        _Pragma("omp simd")
        for (size_t j = 0; j < len; ++j)
            marks[j] = (unsigned char)((x[j] <= bound) | (nan_passes & (x[j] != x[j])));
    }
}

/*
 * range##W: the k best of row elements [begin, end) (positions count from the row's start), in
 * buf[0, returned count), best first; the count is k, or fewer when fewer elements count (NaNs
 * skipped under YAMR_NAN_IGNORE). buf holds cap entries: cap > k and at least
 * YAMR__TOPK_CPU_LANES_MAX, or every element of the range; it keeps its k best whenever it
 * holds keep_trigger(k) of them.
 * `skip_bottom`: a bottom key is a skipped NaN (floats under YAMR_NAN_IGNORE); integer keys use
 * the whole range. Only elements with key >= `floor` are candidates: at first every one that
 * counts (or, for a short range, the lane maxima's floor), then, once the buffer has been full,
 * the least kept key + 1 (an equal key loses to the k earlier elements that hold it).
 */
#define YAMR__CPU_DEFINE_TOPK_RANGE(W, Key)                                                    \
    YAMR__CPU_DEFINE_SEGMENT_FLOOR(W, Key)                                                     \
    YAMR__CPU_DEFINE_LANE_FLOOR(W, Key, 32)                                                    \
    YAMR__CPU_DEFINE_LANE_FLOOR(W, Key, 64)                                                    \
    YAMR__CPU_DEFINE_LANE_FLOOR(W, Key, 256)                                                   \
    YAMR__CPU_DEFINE_LANE_FLOOR(W, Key, 1024)                                                  \
    YAMR__CPU_INLINE size_t range##W(yamr_dtype t, int f32, int integer, int is_min,          \
                                     int nan_ignore, int skip_bottom, const void *row,         \
                                     size_t begin, size_t end, size_t k, entry *buf,           \
                                     size_t cap)                                               \
    {                                                                                          \
        const key_rule##W rule = key_rule##W##_for(t, integer, is_min, nan_ignore);            \
        const size_t n = end - begin;                                                          \
        const size_t trigger = keep_trigger(k) < cap ? keep_trigger(k) : cap;                  \
        Key floor = skip_bottom ? 1 : 0;                                                       \
        const int short_range = n * sizeof(Key) <= YAMR__TOPK_CPU_SHORT_BYTES;                 \
        {   /* the lane floor of the range, or of its first SHORT_BYTES for a long one */       \
            const size_t m = short_range ? n : YAMR__TOPK_CPU_SHORT_BYTES / sizeof(Key);       \
            const size_t stop = begin + m;                                                     \
            uint64_t lanes_floor = 0;                                                          \
            if (short_range && k <= YAMR__TOPK_CPU_SEGMENT_K &&                                \
                m / k >= YAMR__TOPK_CPU_SEGMENT_MIN)                                           \
                lanes_floor = segment_floor##W(rule, row, begin, stop, k);                     \
            else if (2 * k <= 32 && m >= 4 * 32)                                               \
                lanes_floor = lane_floor##W##_32(rule, f32, is_min, row, begin, stop, k);       \
            else if (2 * k <= 64 && m >= 4 * 64)                                               \
                lanes_floor = lane_floor##W##_64(rule, f32, is_min, row, begin, stop, k);       \
            else if (2 * k <= 256 && m >= 4 * 256)                                             \
                lanes_floor = lane_floor##W##_256(rule, f32, is_min, row, begin, stop, k);      \
            else if (2 * k <= 1024 && m >= 4 * 1024)                                           \
                lanes_floor = lane_floor##W##_1024(rule, f32, is_min, row, begin, stop, k);     \
            if ((Key)lanes_floor > floor) floor = (Key)lanes_floor;                            \
        }                                                                                      \
        size_t count = 0;                                                                      \
        int closed = 0; /* k kept keys at the top key: nothing can enter any more */           \
        /* a short range is one block, marked at once against its floor */                   \
        unsigned char marks[YAMR__TOPK_CPU_SHORT_BYTES / sizeof(Key) + 8];                     \
        const size_t block = short_range        ? n                                            \
                             : W == 32 && f32 ? YAMR__TOPK_CPU_BLOCK_F32                       \
                                              : YAMR__TOPK_CPU_BLOCK;                          \
        const size_t mark_step = short_range ? n : YAMR__TOPK_CPU_MARKS;                       \
        for (size_t i = begin; i < end && !closed;) {                                          \
            const size_t len = end - i < block ? end - i : block;                              \
            int may_pass = 1; /* a short range's floor passes most blocks: no max */          \
            if (!short_range && W == 32 && f32) {                              \
                may_pass = f32_block_may_pass(row, i, len, is_min, nan_ignore, (uint32_t)floor); \
            } else if (!short_range) {                                                         \
                Key m = 0;                                                                     \
                _Pragma("omp simd reduction(max : m)")                                         \
                for (size_t j = 0; j < len; ++j) {                                             \
                    const Key key = key##W(rule, row, i + j);                                      \
                    m = key > m ? key : m;                                                     \
                }                                                                              \
                may_pass = m >= floor;                                                         \
            }                                                                                  \
            for (size_t sub = 0; may_pass && !closed && sub < len; sub += mark_step) {         \
                const size_t at0 = i + sub;                                                    \
                const size_t sublen = len - sub < mark_step ? len - sub : mark_step;           \
                const Key threshold = floor;                                                   \
                if (W == 32 && f32) {                                                          \
                    f32_marks(row, at0, sublen, is_min, nan_ignore, (uint32_t)threshold, marks); \
                } else {                                                                       \
                    _Pragma("omp simd")                                                        \
                    for (size_t j = 0; j < sublen; ++j)                                        \
                        marks[j] = key##W(rule, row, at0 + j) >= threshold;                    \
                }                                                                              \
                for (size_t j = sublen; j % 8; ++j) marks[j] = 0;                              \
                for (size_t w = 0; w < sublen && !closed; w += 8) {                            \
                    uint64_t word;                                                             \
                    if (w % 64 == 0 && sublen - w >= 64 && !any_mark(marks + w)) {             \
                        w += 56; /* 64 marks, none set: a short row's usual case */            \
                        continue;                                                              \
                    }                                                                          \
                    memcpy(&word, marks + w, 8);                                               \
                    while (word) {                                                             \
                        const size_t at = at0 + w + lowest_bit(word) / 8;                      \
                        word &= word - 1;                                                      \
                        const Key key = key##W(rule, row, at);                                     \
                        if (key < floor) continue; /* the floor rose in this sub-block */     \
                        if (count == trigger) {                                                \
                            const Key least = (Key)keep_best(buf, count, k);                   \
                            count = k;                                                         \
                            if (least == (Key)~(Key)0) {                                       \
                                closed = 1;                                                    \
                                break;                                                         \
                            }                                                                  \
                            floor = (Key)(least + 1);                                          \
                            if (key < floor) continue;                                         \
                        }                                                                      \
                        buf[count].key = key;                                                  \
                        buf[count].pos = at;                                                   \
                        ++count;                                                               \
                    }                                                                          \
                }                                                                              \
            }                                                                                  \
            i += len;                                                                          \
        }                                                                                      \
        return best_sorted(buf, count, k);                                                     \
    }

YAMR__CPU_DEFINE_TOPK_RANGE(16, uint16_t)
YAMR__CPU_DEFINE_TOPK_RANGE(32, uint32_t)
YAMR__CPU_DEFINE_TOPK_RANGE(64, uint64_t)

/* One body per instruction set: f32 (its own compares), f64 and i64 with the dtype a constant;
 * i32 and u32 as one, f16 and bf16 as one, with their dtype's key rule at run time. */
YAMR__CPU_INLINE size_t range_any(yamr_dtype t, int is_min, int nan_ignore, const void *row,
                                  size_t begin, size_t end, size_t k, entry *buf, size_t cap)
{
    switch (t) {
    case YAMR_DTYPE_F32:
        return range32(YAMR_DTYPE_F32, 1, 0, is_min, nan_ignore, nan_ignore, row, begin, end, k,
                       buf, cap);
    case YAMR_DTYPE_I32:
    case YAMR_DTYPE_U32: return range32(t, 0, 1, is_min, 0, 0, row, begin, end, k, buf, cap);
    case YAMR_DTYPE_F16:
    case YAMR_DTYPE_BF16:
        return range16(t, 0, 0, is_min, nan_ignore, nan_ignore, row, begin, end, k, buf, cap);
    case YAMR_DTYPE_F64:
        return range64(YAMR_DTYPE_F64, 0, 0, is_min, nan_ignore, nan_ignore, row, begin, end, k,
                       buf, cap);
    default:
        return range64(YAMR_DTYPE_I64, 0, 1, is_min, 0, 0, row, begin, end, k, buf, cap);
    }
}

#if YAMR__CPU_HAVE_AVX512
#include <immintrin.h>

/*
 * 32-bit keys on AVX-512 (f32, i32, u32: every row of the issue's table), k up to
 * YAMR__TOPK_CPU_WIDE_K, ranges up to YAMR__TOPK_CPU_WIDE_MAX elements cut into chunks of
 * YAMR__TOPK_CPU_CHUNK (a short row is one chunk), each read twice, the second time from the
 * cache (the first pass keeps the keys it computed):
 *  1. lane maxima: L = 16 LV lanes (LV vectors, L >= 2k where k allows) keep the largest key of
 *     their elements; the largest of them is the chunk's max: a chunk whose max is below the
 *     floor F holds no candidate and is done. In the range's first chunk, the k-th largest lane
 *     maximum (counted by rank, branch-free) is a floor: those k lanes' maxima are k distinct
 *     elements with keys at least that large. With L = 2k about k elements reach it;
 *  2. every element with key >= F is appended (compressed keys and positions, no branch), so
 *     a vector costs the same whether it holds 0 or 5 candidates; a range of several chunks
 *     also keeps each group of YAMR__TOPK_CPU_GROUP elements' max and skips the groups below F;
 *  3. past YAMR__TOPK_CPU_KEEP(k) candidates, the k best are kept and F rises to the least of
 *     them + 1 (a later element with an equal key loses to the k earlier ones).
 * The k best of the candidates, ordered by (key, then smaller position) as one 64-bit word
 * (key << 32 | ~position), are placed by rank: an entry's rank is the count of larger words
 * (all differ: positions do), a vector compare per 8 words; many candidates (an all-equal row)
 * go through the selection and the sort of entries. Rows of many-row calls are a call per
 * block of rows, written directly, and prefetch the rows YAMR__TOPK_CPU_AHEAD bytes ahead.
 */
#define YAMR__TOPK_CPU_CHUNK 8192
#define YAMR__TOPK_CPU_GROUP 256
/* The longest range it takes: longer ones go faster through the block filter (range32), whose
 * threshold rises within a chunk. */
#define YAMR__TOPK_CPU_WIDE_MAX (8 * YAMR__TOPK_CPU_CHUNK)
#define YAMR__TOPK_CPU_WIDE_K 256
#define YAMR__TOPK_CPU_KEEP(k) (2 * (k) + 32)
#define YAMR__TOPK_CPU_WIDE_RANK_MAX 256
/* Short f32 rows (at most 256 elements) of k up to SHORT_GROUP_K are taken a step at a time for
 * SHORT_GROUP rows, each row's candidates in its own SHORT_SLOTS (its elements and a vector's
 * overhang). A larger k has more than 8 candidates a row, mostly, whose placing (best_wide)
 * measured faster a row at a time. */
#define YAMR__TOPK_CPU_SHORT_GROUP 4
#define YAMR__TOPK_CPU_SHORT_GROUP_K 4
#define YAMR__TOPK_CPU_SHORT_SLOTS 288
/* How far ahead (bytes) the rows' second passes prefetch. */
#define YAMR__TOPK_CPU_AHEAD 16384
/* Candidate slots: the candidates before a keep, a chunk's worth and a vector's overhang. */
#define YAMR__TOPK_CPU_WIDE_SLOTS(k) (YAMR__TOPK_CPU_KEEP(k) + YAMR__TOPK_CPU_CHUNK + 16)
/* The scratch of one thread, in entries: a slot's entry (a keep's selection), key and
 * position, and three arrays of words (the rank's input, its sorted output, the ranks). */
#define YAMR__TOPK_CPU_WIDE_WORDS (YAMR__TOPK_CPU_WIDE_K + YAMR__TOPK_CPU_WIDE_RANK_MAX + 8)
#define YAMR__TOPK_CPU_WIDE_ENTRIES(k) \
    (YAMR__TOPK_CPU_WIDE_SLOTS(k) * 3 / 2 + 3 * YAMR__TOPK_CPU_WIDE_WORDS / 2 + \
     (YAMR__TOPK_CPU_CHUNK + 16 + YAMR__TOPK_CPU_CHUNK / 16 + 16) / 4 + 1)
#define YAMR__TOPK_CPU_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,popcnt")))

typedef struct {
    entry *spill;    /* slots */
    uint32_t *key;   /* slots */
    uint32_t *pos;   /* slots */
    uint64_t *word;  /* YAMR__TOPK_CPU_WIDE_WORDS */
    uint64_t *best;  /* YAMR__TOPK_CPU_WIDE_WORDS: the answer, best first */
    uint32_t *cache; /* YAMR__TOPK_CPU_CHUNK + 16: a chunk's keys, from the first pass */
    uint32_t *group; /* YAMR__TOPK_CPU_CHUNK / 16 + 16: its groups' lane maxima */
} wide_scratch;

static wide_scratch wide_scratch_at(entry *buf, size_t k)
{
    const size_t slots = YAMR__TOPK_CPU_WIDE_SLOTS(k);
    wide_scratch s;
    s.spill = buf;
    s.key = (uint32_t *)(void *)(buf + slots);
    s.pos = s.key + slots;
    s.word = (uint64_t *)(void *)(s.pos + slots + (slots & 1)); /* 8-byte aligned */
    s.best = s.word + YAMR__TOPK_CPU_WIDE_WORDS;
    s.cache = (uint32_t *)(void *)(s.best + 2 * YAMR__TOPK_CPU_WIDE_WORDS);
    s.group = s.cache + YAMR__TOPK_CPU_CHUNK + 16;
    return s;
}

/* yamr__cpu_key32 as a rule of constants, so that one body serves f32, i32 and u32 (the same
 * instructions for each): key = b ^ (b's sign spread & neg) ^ base, where b is the bits with a
 * zero magnitude (-0.0) as 0, then a NaN (a magnitude above nan_above) as nan_key. f32: neg =
 * 0x7fffffff (a negative's bits complemented), base = 0x80000000; i32: neg = 0, base =
 * 0x80000000; u32: neg = 0, base = 0; integers have no NaN (nan_above = ~0) and b = bits. base
 * carries the MIN flip. */
typedef struct {
    __m512i magnitude, nan_above, neg, base, nan_key;
    int integer; /* i32 or u32: the key is bits ^ base */
} wide_keys;

YAMR__TOPK_CPU_TARGET_AVX512 static wide_keys wide_keys_for(yamr_dtype t, int is_min,
                                                            int nan_ignore)
{
    const int is_float = t == YAMR_DTYPE_F32;
    const uint32_t flip = is_min ? ~0u : 0u;
    wide_keys r;
    r.magnitude = _mm512_set1_epi32(is_float ? 0x7fffffff : -1);
    r.nan_above = _mm512_set1_epi32(is_float ? 0x7f800000 : -1);
    r.neg = _mm512_set1_epi32(is_float ? 0x7fffffff : 0);
    r.base = _mm512_set1_epi32((int)((t == YAMR_DTYPE_U32 ? 0u : 0x80000000u) ^ flip));
    r.nan_key = _mm512_set1_epi32(is_float && !nan_ignore ? -1 : 0);
    r.integer = !is_float;
    return r;
}

/* The keys of 16 elements whose bits are `bits` (yamr__cpu_key32 on a vector). */
YAMR__TOPK_CPU_TARGET_AVX512 YAMR__CPU_INLINE __m512i keys32_avx512(const wide_keys *r,
                                                                   __m512i bits)
{
    if (r->integer) return _mm512_xor_si512(bits, r->base);
    const __m512i magnitude = _mm512_and_si512(bits, r->magnitude);
    const __mmask16 nan = _mm512_cmpgt_epu32_mask(magnitude, r->nan_above);
    const __mmask16 nonzero = _mm512_test_epi32_mask(magnitude, magnitude);
    const __m512i b = _mm512_maskz_mov_epi32(nonzero, bits); /* -0.0 as +0.0 */
    /* b ^ (sign spread & neg) ^ base in one instruction (truth table 0x78: a ^ (b & c)) */
    const __m512i ord = _mm512_xor_si512(
        _mm512_ternarylogic_epi32(b, _mm512_srai_epi32(b, 31), r->neg, 0x78), r->base);
    return _mm512_mask_mov_epi32(ord, nan, r->nan_key);
}

/* The lanes of a vector at an element with `left` elements left (left may exceed 16). */
YAMR__TOPK_CPU_TARGET_AVX512 YAMR__CPU_INLINE __mmask16 lanes_left(size_t left)
{
    return left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1u);
}

/* The k-th largest of the L = 16 LV lane maxima m (k <= L): the least lane maximum that fewer
 * than k lanes exceed (each lane's count of larger lanes, a compare and masked add per pair of
 * a lane and a vector). */
YAMR__TOPK_CPU_TARGET_AVX512 YAMR__CPU_INLINE uint32_t kth_lane_max(const __m512i *m, int lv,
                                                                   size_t k)
{
    if (lv >= 4) {
        /* Many lanes: the pairs' 256 L^2 compares cost more than the row's read. Instead, bit by
         * bit from the top, the largest v with at least k lanes >= v (a compare and a popcount
         * per vector and bit), over the top 20 bits: v with its low bits 0 is still a floor,
         * and 20 bits of a key pass few more elements than the exact one. */
        uint32_t v = 0;
        for (int bit = 31; bit >= 12; --bit) {
            const uint32_t try_v = v | (uint32_t)1u << bit;
            const __m512i t = _mm512_set1_epi32((int)try_v);
            unsigned at_least = 0;
            for (int u = 0; u < lv; ++u)
                at_least += (unsigned)__builtin_popcount(_mm512_cmpge_epu32_mask(m[u], t));
            v = at_least >= k ? try_v : v;
        }
        return v;
    }
    uint32_t all[16 * 16];
    __m512i above[16];
    for (int v = 0; v < lv; ++v) {
        _mm512_storeu_si512((void *)(all + 16 * v), m[v]);
        above[v] = _mm512_setzero_si512();
    }
    const __m512i one = _mm512_set1_epi32(1);
    const __m512i kv = _mm512_set1_epi32((int)k);
    for (int i = 0; i < 16 * lv; ++i) {
        const __m512i x = _mm512_set1_epi32((int)all[i]);
        for (int v = 0; v < lv; ++v)
            above[v] = _mm512_mask_add_epi32(above[v], _mm512_cmpgt_epu32_mask(x, m[v]), above[v],
                                             one);
    }
    __m512i least = _mm512_set1_epi32(-1);
    for (int v = 0; v < lv; ++v)
        least = _mm512_mask_min_epu32(least, _mm512_cmplt_epu32_mask(above[v], kv), least, m[v]);
    return (uint32_t)_mm512_reduce_min_epu32(least);
}

/* One step of the candidate pass: of the 16 cached keys (lanes `in`), those at or above
 * `at_least` and their positions (`at`) go to key and pos from `count`; with `in_registers`,
 * the first 16 candidates also to the lanes of few_keys and few_at. Returns the new count. */
YAMR__TOPK_CPU_TARGET_AVX512 YAMR__CPU_INLINE size_t pass16(const uint32_t *keys, __mmask16 in,
                                                           __m512i at_least, __m512i at,
                                                           uint32_t *key, uint32_t *pos,
                                                           size_t count, int in_registers,
                                                           __m512i iota, __m512i *few_keys,
                                                           __m512i *few_at)
{
    const __m512i k16 = _mm512_loadu_si512((const void *)keys);
    const __mmask16 pass = _mm512_mask_cmpge_epu32_mask(in, k16, at_least);
    const __m512i pass_keys = _mm512_maskz_compress_epi32(pass, k16);
    const __m512i pass_at = _mm512_maskz_compress_epi32(pass, at);
    _mm512_storeu_si512((void *)(key + count), pass_keys);
    _mm512_storeu_si512((void *)(pos + count), pass_at);
    const unsigned passed = (unsigned)__builtin_popcount(pass);
    if (in_registers) { /* lanes [count, count + passed), from the new's lane 0 */
        const __mmask16 place =
            count < 16 ? (__mmask16)(((1u << passed) - 1u) << count) : (__mmask16)0;
        const __m512i from = _mm512_sub_epi32(iota, _mm512_set1_epi32((int)count));
        *few_keys = _mm512_mask_permutexvar_epi32(*few_keys, place, from, pass_keys);
        *few_at = _mm512_mask_permutexvar_epi32(*few_at, place, from, pass_at);
    }
    return count + passed;
}

/* Keeps the k best of the count candidates in key, pos [0, k) (through s->spill); returns the
 * least key kept. */
static uint32_t keep_wide(const wide_scratch *s, size_t count, size_t k)
{
    entry *e = s->spill;
    for (size_t i = 0; i < count; ++i) {
        e[i].key = s->key[i];
        e[i].pos = s->pos[i];
    }
    select_entries(e, count, k);
    uint32_t least = (uint32_t)~0u;
    for (size_t i = 0; i < k; ++i) {
        s->key[i] = (uint32_t)e[i].key;
        s->pos[i] = (uint32_t)e[i].pos;
        least = s->key[i] < least ? s->key[i] : least;
    }
    return least;
}

/* The min(count, k) best of the candidates, best first, as words in s->best. */
YAMR__TOPK_CPU_TARGET_AVX512 YAMR__CPU_INLINE size_t best_wide(const wide_scratch *s,
                                                              size_t count, size_t k)
{
    const size_t kept = count < k ? count : k;
    if (count > YAMR__TOPK_CPU_WIDE_RANK_MAX) {
        entry *e = s->spill;
        for (size_t i = 0; i < count; ++i) {
            e[i].key = s->key[i];
            e[i].pos = s->pos[i];
        }
        select_entries(e, count, k);
        sort_entries(e, kept);
        for (size_t i = 0; i < kept; ++i) s->best[i] = e[i].key << 32 | (uint32_t)~e[i].pos;
        return kept;
    }
    /* words, padded to whole vectors with 0 (below every candidate: ~position is never 0) */
    const size_t vectors = (count + 7) / 8;
    uint64_t *word = s->word;
    for (size_t v = 0; v < vectors; ++v) {
        const __mmask8 in = (__mmask8)(count - 8 * v >= 8 ? 0xff : (1u << (count - 8 * v)) - 1u);
        const __m512i key = _mm512_cvtepu32_epi64(
            _mm256_maskz_loadu_epi32(in, (const void *)(s->key + 8 * v)));
        const __m512i pos = _mm512_cvtepu32_epi64(
            _mm256_maskz_loadu_epi32(in, (const void *)(s->pos + 8 * v)));
        const __m512i w = _mm512_or_si512(_mm512_slli_epi64(key, 32),
                                          _mm512_xor_si512(pos, _mm512_set1_epi64(0xffffffff)));
        _mm512_storeu_si512((void *)(word + 8 * v), _mm512_maskz_mov_epi64(in, w));
    }
    _mm512_storeu_si512((void *)(word + 8 * vectors), _mm512_setzero_si512()); /* pairs below */
    /* every candidate's rank (the count of larger words; ranks differ), then each to its
     * rank: the first kept are the answer. Few vectors: a popcount per vector and candidate;
     * more: ranks counted in vectors (half the instructions, but a store of the ranks that the
     * scalar loads wait on) */
    if (vectors <= 2) {
        for (size_t i = 0; i < count; ++i) {
            const __m512i x = _mm512_set1_epi64((long long)word[i]);
            unsigned rank = 0;
            for (size_t v = 0; v < vectors; ++v)
                rank += (unsigned)__builtin_popcount(_mm512_cmpgt_epu64_mask(
                    _mm512_loadu_si512((const void *)(word + 8 * v)), x));
            s->best[rank] = word[i];
        }
        return kept;
    }
    uint64_t *at = s->best + YAMR__TOPK_CPU_WIDE_WORDS; /* ranks, then the words by rank */
    const __m512i one = _mm512_set1_epi64(1);
    for (size_t v = 0; v < vectors; v += 2) { /* two vectors' ranks in registers */
        const __m512i w0 = _mm512_loadu_si512((const void *)(word + 8 * v));
        const __m512i w1 = _mm512_loadu_si512((const void *)(word + 8 * v + 8));
        __m512i rank0 = _mm512_setzero_si512(), rank1 = _mm512_setzero_si512();
        for (size_t i = 0; i < count; ++i) {
            const __m512i x = _mm512_set1_epi64((long long)word[i]);
            rank0 = _mm512_mask_add_epi64(rank0, _mm512_cmplt_epu64_mask(w0, x), rank0, one);
            rank1 = _mm512_mask_add_epi64(rank1, _mm512_cmplt_epu64_mask(w1, x), rank1, one);
        }
        _mm512_storeu_si512((void *)(at + 8 * v), rank0);
        _mm512_storeu_si512((void *)(at + 8 * v + 8), rank1);
    }
    for (size_t i = 0; i < count; ++i) s->best[at[i]] = word[i];
    return kept;
}

/* One compare-exchange step of an 8-lane sorting network: each lane and its partner `other`
 * (lane ^ j), the larger to the lanes of `take_max`. */
YAMR__TOPK_CPU_TARGET_AVX512 YAMR__CPU_INLINE __m512i exchange8(__m512i v, __m512i other,
                                                               __mmask8 take_max)
{
    return _mm512_mask_blend_epi64(take_max, _mm512_min_epu64(v, other),
                                   _mm512_max_epu64(v, other));
}

/* best_wide for at most 8 candidates, keys and positions in the first lanes of `keys` and `at`,
 * in registers: their words sorted, largest first, by a bitonic network of 6 steps whose
 * partners are in-lane shuffles (no load waits on a store, no rank and inverse permutation:
 * 24 permutes). Pads are 0, below every word: they sort last. */
YAMR__TOPK_CPU_TARGET_AVX512 YAMR__CPU_INLINE size_t best_few(const wide_scratch *s, __m512i keys,
                                                             __m512i at, size_t count, size_t k)
{
    const __mmask8 real = (__mmask8)((1u << count) - 1u);
    __m512i w = _mm512_maskz_mov_epi64(
        real, _mm512_or_si512(
                  _mm512_slli_epi64(_mm512_cvtepu32_epi64(_mm512_castsi512_si256(keys)), 32),
                  _mm512_xor_si512(_mm512_cvtepu32_epi64(_mm512_castsi512_si256(at)),
                                   _mm512_set1_epi64(0xffffffff))));
    /* blocks of 2, then 4, then 8 sorted, alternately descending and ascending below 8 */
    w = exchange8(w, _mm512_shuffle_epi32(w, _MM_PERM_BADC), 0x99);
    w = exchange8(w, _mm512_permutex_epi64(w, 0x4e), 0xc3);
    w = exchange8(w, _mm512_shuffle_epi32(w, _MM_PERM_BADC), 0xa5);
    w = exchange8(w, _mm512_shuffle_i64x2(w, w, 0x4e), 0x0f);
    w = exchange8(w, _mm512_permutex_epi64(w, 0x4e), 0x33);
    w = exchange8(w, _mm512_shuffle_epi32(w, _MM_PERM_BADC), 0x55);
    _mm512_storeu_si512((void *)s->best, w);
    return count < k ? count : k;
}

/*
 * range32_wide for a short f32 range (lv 1, k <= 8, at most 256 elements: many short rows),
 * without keys but for its few candidates: pass 1 keeps the lanes' f32 extremes (max, MIN: min;
 * a NaN is skipped by the instruction's order; a lane without a number stays at -inf, MIN +inf,
 * a floor only lower), whose k-th best, by float compares, is the bound; pass 2 takes a word of
 * compare masks against it per 64 elements (a NaN passes too under YAMR_NAN_PROPAGATE: the
 * unordered predicates), then the word's few set bits one by one, as bits and positions to
 * key_out and pos_out; up to 8 are then placed from registers (best_few). Against the keyed form
 * (a key per element, a cache of the keys, a compress and its placing per vector) about a third
 * fewer instructions a row.
 */
#define YAMR__TOPK_CPU_F32_FEW(cmp)                                                            \
    for (size_t w0 = begin; w0 < end; w0 += 64) {                                              \
        uint64_t word = 0;                                                                     \
        if (end - w0 >= 64) { /* a whole word: no lane masks */                                \
            for (size_t v = 0; v < 4; ++v)                                                     \
                word |= (uint64_t)_mm512_cmp_ps_mask(                                          \
                            _mm512_loadu_ps((const void *)(x + w0 + 16 * v)), bound, cmp)      \
                        << (16 * v);                                                           \
        } else {                                                                               \
            for (size_t v = 0; w0 + 16 * v < end; ++v) {                                       \
                const __mmask16 in = lanes_left(end - (w0 + 16 * v));                          \
                const __m512 x16 = _mm512_maskz_loadu_ps(in, (const void *)(x + w0 + 16 * v)); \
                word |= (uint64_t)_mm512_mask_cmp_ps_mask(in, x16, bound, cmp) << (16 * v);    \
            }                                                                                  \
        }                                                                                      \
        while (word) {                                                                         \
            const size_t p = w0 + lowest_bit(word);                                            \
            word &= word - 1;                                                                  \
            key_out[count] = bits[p];                                                          \
            pos_out[count] = (uint32_t)p;                                                      \
            ++count;                                                                           \
        }                                                                                      \
        for (size_t line = 0; line < 64; line += 16) /* the same lines of a row to come */    \
            _mm_prefetch((const char *)((const uint32_t *)ahead + w0 + line), _MM_HINT_T0);    \
    }
/* The k-th largest of the 16 lanes of m (no NaN; k <= 16), by float compares, in every lane:
 * the least lane that fewer than k lanes exceed (each lane's count of larger lanes: a rotation
 * of m, a compare and a masked add per other lane, in two sums; no scalar on the way, as the
 * row's latency bounds it). */
YAMR__TOPK_CPU_TARGET_AVX512 YAMR__CPU_INLINE __m512 kth_lane_f32(__m512 m, size_t k)
{
    const __m512i one = _mm512_set1_epi32(1);
    const __m512i mi = _mm512_castps_si512(m);
    __m512i above = _mm512_setzero_si512(), above2 = _mm512_setzero_si512();
#define YAMR__TOPK_CPU_ROTATED(j, acc)                                                         \
    acc = _mm512_mask_add_epi32(                                                               \
        acc, _mm512_cmp_ps_mask(_mm512_castsi512_ps(_mm512_alignr_epi32(mi, mi, j)), m,        \
                                _CMP_GT_OQ),                                                   \
        acc, one)
    YAMR__TOPK_CPU_ROTATED(1, above); YAMR__TOPK_CPU_ROTATED(2, above2);
    YAMR__TOPK_CPU_ROTATED(3, above); YAMR__TOPK_CPU_ROTATED(4, above2);
    YAMR__TOPK_CPU_ROTATED(5, above); YAMR__TOPK_CPU_ROTATED(6, above2);
    YAMR__TOPK_CPU_ROTATED(7, above); YAMR__TOPK_CPU_ROTATED(8, above2);
    YAMR__TOPK_CPU_ROTATED(9, above); YAMR__TOPK_CPU_ROTATED(10, above2);
    YAMR__TOPK_CPU_ROTATED(11, above); YAMR__TOPK_CPU_ROTATED(12, above2);
    YAMR__TOPK_CPU_ROTATED(13, above); YAMR__TOPK_CPU_ROTATED(14, above2);
    YAMR__TOPK_CPU_ROTATED(15, above);
#undef YAMR__TOPK_CPU_ROTATED
    above = _mm512_add_epi32(above, above2);
    /* the least of the lanes fewer than k exceed, in every lane (a butterfly of minima) */
    __m512 v = _mm512_mask_mov_ps(_mm512_set1_ps(HUGE_VALF),
                                  _mm512_cmplt_epi32_mask(above, _mm512_set1_epi32((int)k)), m);
    v = _mm512_min_ps(v, _mm512_permute_ps(v, 0xb1));
    v = _mm512_min_ps(v, _mm512_permute_ps(v, 0x4e));
    v = _mm512_min_ps(v, _mm512_shuffle_f32x4(v, v, 0xb1));
    return _mm512_min_ps(v, _mm512_shuffle_f32x4(v, v, 0x4e));
}

/* acc's lanes and x's, the larger of each (MIN: the smaller); a NaN in x is skipped (the
 * instruction returns its second operand). */
YAMR__TOPK_CPU_TARGET_AVX512 YAMR__CPU_INLINE __m512 most_f32(int is_min, __m512 acc, __m512 x)
{
    return is_min ? _mm512_min_ps(x, acc) : _mm512_max_ps(x, acc);
}

/* Pass 1 of a short f32 range: the floor's bound, in every lane. */
YAMR__TOPK_CPU_TARGET_AVX512 YAMR__CPU_INLINE __m512 short_f32_bound(int is_min, const float *x,
                                                                    size_t begin, size_t end,
                                                                    size_t k)
{
    /* four chains of vectors (the row's latency, not its throughput, bounds it) */
    const __m512 none = _mm512_set1_ps(is_min ? HUGE_VALF : -HUGE_VALF);
    __m512 a0 = none, a1 = none, a2 = none, a3 = none;
    size_t i = begin;
    for (; end - i >= 64; i += 64) {
        a0 = most_f32(is_min, a0, _mm512_loadu_ps((const void *)(x + i)));
        a1 = most_f32(is_min, a1, _mm512_loadu_ps((const void *)(x + i + 16)));
        a2 = most_f32(is_min, a2, _mm512_loadu_ps((const void *)(x + i + 32)));
        a3 = most_f32(is_min, a3, _mm512_loadu_ps((const void *)(x + i + 48)));
    }
    for (; end - i >= 16; i += 16)
        a0 = most_f32(is_min, a0, _mm512_loadu_ps((const void *)(x + i)));
    if (i < end) {
        const __mmask16 in = lanes_left(end - i);
        const __m512 x16 = _mm512_maskz_loadu_ps(in, (const void *)(x + i));
        a1 = is_min ? _mm512_mask_min_ps(a1, in, x16, a1) : _mm512_mask_max_ps(a1, in, x16, a1);
    }
    a0 = most_f32(is_min, a0, a1);
    a2 = most_f32(is_min, a2, a3);
    a0 = most_f32(is_min, a0, a2);
    /* the floor in f32's own order (MIN: the k-th smallest, as the k-th largest negated);
     * -0.0 and +0.0 compare equal, as their keys do */
    const __m512i sign = _mm512_set1_epi32(is_min ? (int)0x80000000u : 0);
    const __m512 kth =
        kth_lane_f32(_mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(a0), sign)), k);
    return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(kth), sign));
}

/* Pass 2 of a short f32 range: its candidates against `bound`, as bits and positions to
 * key_out and pos_out (at most end - begin of each); returns their count. */
YAMR__TOPK_CPU_TARGET_AVX512 YAMR__CPU_INLINE size_t
short_f32_candidates(int is_min, int nan_ignore, const uint32_t *bits, size_t begin, size_t end,
                     __m512 bound, uint32_t *key_out, uint32_t *pos_out, const void *ahead)
{
    const float *x = (const float *)(const void *)bits;
    size_t count = 0;
    if (!is_min) {
        if (nan_ignore) YAMR__TOPK_CPU_F32_FEW(_CMP_GE_OQ)
        else YAMR__TOPK_CPU_F32_FEW(_CMP_NLT_UQ)
    } else {
        if (nan_ignore) YAMR__TOPK_CPU_F32_FEW(_CMP_LE_OQ)
        else YAMR__TOPK_CPU_F32_FEW(_CMP_NGT_UQ)
    }
    return count;
}

/* The k best of a short f32 range's count candidates (their bits in key, positions in pos),
 * keyed, placed by best_few (up to 8) or best_wide (which reads s->key and s->pos). */
YAMR__TOPK_CPU_TARGET_AVX512 YAMR__CPU_INLINE size_t short_f32_place(const wide_keys *keys,
                                                                    uint32_t *key,
                                                                    const uint32_t *pos,
                                                                    size_t count, size_t k,
                                                                    const wide_scratch *s)
{
    if (count <= 8)
        return best_few(s, keys32_avx512(keys, _mm512_loadu_si512((const void *)key)),
                        _mm512_loadu_si512((const void *)pos), count, k);
    for (size_t j = 0; j < count; j += 16) { /* to s->key and s->pos, keyed (slots hold a
                                              * vector's overhang) */
        _mm512_storeu_si512((void *)(s->key + j),
                            keys32_avx512(keys, _mm512_loadu_si512((const void *)(key + j))));
        if (pos != s->pos)
            _mm512_storeu_si512((void *)(s->pos + j), _mm512_loadu_si512((const void *)(pos + j)));
    }
    return best_wide(s, count, k);
}

/* range32_wide for a short f32 range (lv 1, at most 256 elements): its bound, candidates and
 * their placing. */
YAMR__TOPK_CPU_TARGET_AVX512 YAMR__CPU_INLINE size_t range32_short_f32(const wide_keys *keys,
                                                                      int is_min, int nan_ignore,
                                                                      const uint32_t *x,
                                                                      size_t begin, size_t end,
                                                                      size_t k,
                                                                      const wide_scratch *s,
                                                                      const void *ahead)
{
    const __m512 bound = short_f32_bound(is_min, (const float *)(const void *)x, begin, end, k);
    const size_t count =
        short_f32_candidates(is_min, nan_ignore, x, begin, end, bound, s->key, s->pos, ahead);
    return short_f32_place(keys, s->key, s->pos, count, k, s);
}

/* The k best of [begin, end) of a row of 32-bit dtype t, as words in s->best; positions below
 * 2^32 - 1, k <= YAMR__TOPK_CPU_WIDE_K, LV lane vectors. The second pass prefetches the same
 * elements of `ahead` (a row to come), a line per vector: memory works while the row's
 * candidates are placed. */
YAMR__TOPK_CPU_TARGET_AVX512 YAMR__CPU_INLINE size_t range32_wide(yamr_dtype t, int is_min,
                                                                 int nan_ignore,
                                                                 const void *row, size_t begin,
                                                                 size_t end, size_t k,
                                                                 const wide_scratch *s,
                                                                 const int lv,
                                                                 const void *ahead)
{
    const uint32_t *x = (const uint32_t *)row;
    const int is_float = t == YAMR_DTYPE_F32;
    const wide_keys keys = wide_keys_for(t, is_min, nan_ignore);
    const size_t lanes = 16 * (size_t)lv;
    /* a range of several chunks keeps its groups' maxima and skips groups below the floor */
    const int grouped = end - begin > YAMR__TOPK_CPU_CHUNK;
    /* the scratch in locals: a vector store (may alias anything) would reload s's fields */
    uint32_t *const key = s->key, *const pos = s->pos;
    uint32_t *const cache = s->cache, *const group = s->group;
    uint32_t floor = is_float && nan_ignore ? 1u : 0u;
    size_t count = 0;
    int in_registers = 0;
    __m512i few_keys = _mm512_setzero_si512(), few_at = _mm512_setzero_si512();
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    if (is_float && lv == 1 && end - begin <= 256)
        return range32_short_f32(&keys, is_min, nan_ignore, x, begin, end, k, s, ahead);
    for (size_t c = begin; c < end;) {
        const size_t stop = end - c <= YAMR__TOPK_CPU_CHUNK ? end : c + YAMR__TOPK_CPU_CHUNK;
        __m512i m[16];
        for (int v = 0; v < lv; ++v) m[v] = _mm512_setzero_si512();
        size_t i = c;
        if (!grouped) {
            for (; stop - i >= lanes; i += lanes)
                for (int v = 0; v < lv; ++v) {
                    const __m512i k16 =
                        keys32_avx512(&keys, _mm512_loadu_si512(
                                                 (const void *)(x + i + 16 * (size_t)v)));
                    _mm512_storeu_si512((void *)(cache + (i - c) + 16 * (size_t)v), k16);
                    m[v] = _mm512_max_epu32(m[v], k16);
                }
            for (int v = 0; v < lv && i + 16 * (size_t)v < stop; ++v) {
                const size_t at = i + 16 * (size_t)v;
                const __mmask16 in = lanes_left(stop - at);
                const __m512i k16 =
                    keys32_avx512(&keys, _mm512_maskz_loadu_epi32(in, (const void *)(x + at)));
                _mm512_storeu_si512((void *)(cache + (at - c)), k16);
                m[v] = _mm512_mask_max_epu32(m[v], in, m[v], k16);
            }
        } else {
            /* groups of YAMR__TOPK_CPU_GROUP elements (16 vectors, vector j to lane vector j % LV:
             * LV divides 16), each group's max kept for the second pass */
            for (; stop - i >= YAMR__TOPK_CPU_GROUP; i += YAMR__TOPK_CPU_GROUP) {
                __m512i most = _mm512_setzero_si512();
                _Pragma("GCC unroll 16")
                for (int j = 0; j < 16; ++j) {
                    const __m512i k16 =
                        keys32_avx512(&keys, _mm512_loadu_si512(
                                                 (const void *)(x + i + 16 * (size_t)j)));
                    _mm512_storeu_si512((void *)(cache + (i - c) + 16 * (size_t)j), k16);
                    m[j % lv] = _mm512_max_epu32(m[j % lv], k16);
                    most = _mm512_max_epu32(most, k16);
                }
                _mm512_storeu_si512((void *)(group + (i - c) / 16), most);
            }
            if (i < stop) { /* the last, partial group: every vector to lane vector 0 */
                __m512i most = _mm512_setzero_si512();
                for (size_t at = i; at < stop; at += 16) {
                    const __mmask16 in = lanes_left(stop - at);
                    const __m512i k16 =
                        keys32_avx512(&keys, _mm512_maskz_loadu_epi32(in, (const void *)(x + at)));
                    _mm512_storeu_si512((void *)(cache + (at - c)), k16);
                    most = _mm512_mask_max_epu32(most, in, most, k16);
                }
                m[0] = _mm512_max_epu32(m[0], most);
                _mm512_storeu_si512((void *)(group + (i - c) / 16), most);
            }
        }
        if (c == begin) {
            const uint32_t lane_floor = k <= lanes ? kth_lane_max(m, lv, k) : 0;
            floor = lane_floor > floor ? lane_floor : floor;
        } else {
            __m512i most = m[0];
            for (int v = 1; v < lv; ++v) most = _mm512_max_epu32(most, m[v]);
            if ((uint32_t)_mm512_reduce_max_epu32(most) < floor) { /* nothing here enters */
                c = stop;
                continue;
            }
        }
        const __m512i at_least = _mm512_set1_epi32((int)floor);
        __m512i at = _mm512_add_epi32(iota, _mm512_set1_epi32((int)c));
        const __m512i step = _mm512_set1_epi32(16);
        /* a one-chunk row of small k and few elements also gathers its first 16 candidates in
         * registers (best_few: no load waits on the compressed stores) */
        in_registers = lv == 1 && begin == c && stop == end && end - begin <= 256;
        if (!grouped) {
            for (i = c; i < stop; i += 16) {
                count = pass16(cache + (i - c), lanes_left(stop - i), at_least, at, key, pos,
                               count, in_registers, iota, &few_keys, &few_at);
                at = _mm512_add_epi32(at, step);
                _mm_prefetch((const char *)((const uint32_t *)ahead + i), _MM_HINT_T0);
            }
        } else {
            for (size_t g = c; g < stop; g += YAMR__TOPK_CPU_GROUP) {
                const size_t group_stop =
                    stop - g < YAMR__TOPK_CPU_GROUP ? stop : g + YAMR__TOPK_CPU_GROUP;
                const __m512i most = _mm512_loadu_si512((const void *)(group + (g - c) / 16));
                if (!_mm512_cmpge_epu32_mask(most, at_least)) { /* no candidate in the group */
                    if (ahead)
                        for (i = g; i < group_stop; i += 16)
                            _mm_prefetch((const char *)((const uint32_t *)ahead + i), _MM_HINT_T0);
                    at = _mm512_add_epi32(at, _mm512_set1_epi32((int)YAMR__TOPK_CPU_GROUP));
                    continue;
                }
                for (i = g; i < group_stop; i += 16) {
                    count = pass16(cache + (i - c), lanes_left(group_stop - i), at_least, at,
                                   key, pos, count, in_registers, iota, &few_keys, &few_at);
                    at = _mm512_add_epi32(at, step);
                    if (ahead)
                        _mm_prefetch((const char *)((const uint32_t *)ahead + i), _MM_HINT_T0);
                }
            }
        }
        c = stop;
        if (count >= YAMR__TOPK_CPU_KEEP(k) && c < end) {
            const uint32_t least = keep_wide(s, count, k);
            count = k;
            if (least == (uint32_t)~0u) break; /* k kept at the top key: nothing can enter */
            const uint32_t next = least + 1u;
            floor = next > floor ? next : floor;
        }
    }
    if (in_registers && count <= 8) return best_few(s, few_keys, few_at, count, k);
    return best_wide(s, count, k);
}

/* Lane vectors for k: L = 16 LV >= 2k, at most 16 vectors. */
#define YAMR__TOPK_CPU_WIDE_LV(k) \
    ((k) <= 8 ? 1 : (k) <= 16 ? 2 : (k) <= 32 ? 4 : (k) <= 64 ? 8 : 16)

/* Whether range32_wide takes this range. */
static int takes_wide(yamr_dtype t, size_t begin, size_t end, size_t k)
{
    return (t == YAMR_DTYPE_F32 || t == YAMR_DTYPE_I32 || t == YAMR_DTYPE_U32) &&
           k <= YAMR__TOPK_CPU_WIDE_K && end < (size_t)0xffffffffu &&
           end - begin <= YAMR__TOPK_CPU_WIDE_MAX;
}

/* One copy of range32_wide per LV (its lane vectors stay in registers), shared by every 32-bit
 * dtype, MIN and MAX, both NaN policies and the rows' and the ranges' callers: a call per row
 * costs little against the row, and each copy is compiled once. */
#define YAMR__TOPK_CPU_DEFINE_WIDE_LV(LV)                                                      \
    YAMR__TOPK_CPU_TARGET_AVX512 __attribute__((noinline)) static size_t range32_wide_##LV(     \
        yamr_dtype t, int is_min, int nan_ignore, const void *row, size_t begin, size_t end,   \
        size_t k, const wide_scratch *s, const void *ahead)                                    \
    {                                                                                          \
        return range32_wide(t, is_min, nan_ignore, row, begin, end, k, s, LV, ahead);          \
    }
YAMR__TOPK_CPU_DEFINE_WIDE_LV(1)
YAMR__TOPK_CPU_DEFINE_WIDE_LV(2)
YAMR__TOPK_CPU_DEFINE_WIDE_LV(4)
YAMR__TOPK_CPU_DEFINE_WIDE_LV(8)
YAMR__TOPK_CPU_DEFINE_WIDE_LV(16)

typedef size_t (*range32_wide_fn)(yamr_dtype t, int is_min, int nan_ignore, const void *row,
                                  size_t begin, size_t end, size_t k, const wide_scratch *s,
                                  const void *ahead);

/* The copy for k (YAMR__TOPK_CPU_WIDE_LV). */
static range32_wide_fn range32_wide_for(size_t k)
{
    switch (YAMR__TOPK_CPU_WIDE_LV(k)) {
    case 1: return range32_wide_1;
    case 2: return range32_wide_2;
    case 4: return range32_wide_4;
    case 8: return range32_wide_8;
    default: return range32_wide_16;
    }
}

/* Row r's n best (the words in s->best) and the fill of the rest, to c's outputs. */
YAMR__CPU_INLINE void write_wide_row(const yamr__topk_call *c, size_t r, const uint32_t *row,
                                     const wide_scratch *s, size_t n, uint32_t empty)
{
    const size_t k = c->k;
    uint32_t *values = (uint32_t *)c->values + r * k;
    int64_t *indices = c->indices ? c->indices + r * k : NULL;
    for (size_t j = 0; j < n; ++j) {
        const uint32_t at = (uint32_t)~(uint32_t)s->best[j];
        values[j] = row[at];
        if (indices) indices[j] = (int64_t)at;
    }
    for (size_t j = n; j < k; ++j) {
        values[j] = empty;
        if (indices) indices[j] = -1;
    }
}

/* Rows [r0, r1) of c, each written out, prefetching the row about YAMR__TOPK_CPU_AHEAD bytes
 * ahead (at least the next one) where rows are one chunk: a long row's own stream is the
 * hardware prefetcher's. Short f32 rows of k <= 8 (many rows) have the row's work inlined. */
YAMR__TOPK_CPU_TARGET_AVX512 static void rows32_wide(const yamr__topk_call *c, size_t r0,
                                                     size_t r1, const wide_scratch *s)
{
    const size_t k = c->k;
    const int is_min = !c->largest, nan_ignore = c->nan_ignore;
    const uint32_t empty = (uint32_t)yamr__empty_value_bits(c->dtype);
    const size_t row_bytes = c->ld * 4 + 1;
    const size_t ahead = (YAMR__TOPK_CPU_AHEAD + row_bytes - 1) / row_bytes;
    const int prefetch = c->cols <= YAMR__TOPK_CPU_CHUNK;
    if (c->dtype == YAMR_DTYPE_F32 && k <= YAMR__TOPK_CPU_SHORT_GROUP_K && c->cols <= 256) {
        /* A row's steps are a chain (bound, candidates, placing) longer than the core's window
         * holds: each step is taken for a group of rows before the next, so that the rows'
         * chains overlap. Row g's candidates go to its own slots. */
        const wide_keys keys = wide_keys_for(YAMR_DTYPE_F32, is_min, nan_ignore);
        const size_t n = c->cols;
        for (size_t g0 = r0; g0 < r1; g0 += YAMR__TOPK_CPU_SHORT_GROUP) {
            const size_t rows = r1 - g0 < YAMR__TOPK_CPU_SHORT_GROUP ? r1 - g0
                                                                    : YAMR__TOPK_CPU_SHORT_GROUP;
            __m512 bound[YAMR__TOPK_CPU_SHORT_GROUP];
            size_t count[YAMR__TOPK_CPU_SHORT_GROUP];
            for (size_t g = 0; g < rows; ++g)
                bound[g] = short_f32_bound(is_min, (const float *)c->in + (g0 + g) * c->ld, 0, n, k);
            for (size_t g = 0; g < rows; ++g) {
                const size_t r = g0 + g;
                const size_t later = c->rows - r > ahead ? r + ahead : c->rows - 1;
                count[g] = short_f32_candidates(
                    is_min, nan_ignore, (const uint32_t *)c->in + r * c->ld, 0, n, bound[g],
                    s->key + g * YAMR__TOPK_CPU_SHORT_SLOTS, s->pos + g * YAMR__TOPK_CPU_SHORT_SLOTS,
                    (const uint32_t *)c->in + later * c->ld);
            }
            for (size_t g = 0; g < rows; ++g) {
                const uint32_t *row = (const uint32_t *)c->in + (g0 + g) * c->ld;
                const size_t got = short_f32_place(&keys, s->key + g * YAMR__TOPK_CPU_SHORT_SLOTS,
                                                   s->pos + g * YAMR__TOPK_CPU_SHORT_SLOTS,
                                                   count[g], k, s);
                write_wide_row(c, g0 + g, row, s, got, empty);
            }
        }
        return;
    }
    if (c->dtype == YAMR_DTYPE_F32 && YAMR__TOPK_CPU_WIDE_LV(k) == 1 && c->cols <= 256) {
        const wide_keys keys = wide_keys_for(YAMR_DTYPE_F32, is_min, nan_ignore);
        for (size_t r = r0; r < r1; ++r) {
            const uint32_t *row = (const uint32_t *)c->in + r * c->ld;
            const size_t later = c->rows - r > ahead ? r + ahead : c->rows - 1;
            const size_t n = range32_short_f32(&keys, is_min, nan_ignore, row, 0, c->cols, k, s,
                                               (const uint32_t *)c->in + later * c->ld);
            write_wide_row(c, r, row, s, n, empty);
        }
        return;
    }
    const range32_wide_fn range = range32_wide_for(k);
    for (size_t r = r0; r < r1; ++r) {
        const uint32_t *row = (const uint32_t *)c->in + r * c->ld;
        const size_t later = c->rows - r > ahead ? r + ahead : c->rows - 1;
        const void *row_ahead = prefetch ? (const uint32_t *)c->in + later * c->ld : NULL;
        const size_t n = range(c->dtype, is_min, nan_ignore, row, 0, c->cols, k, s, row_ahead);
        write_wide_row(c, r, row, s, n, empty);
    }
}

/* range_isa's form: the k best of [begin, end) as entries in buf[0, returned count), the
 * scratch past k entries (buf holds k + YAMR__TOPK_CPU_WIDE_ENTRIES(k)). */
static size_t range_wide_avx512(yamr_dtype t, int is_min, int nan_ignore, const void *row,
                                size_t begin, size_t end, size_t k, entry *buf)
{
    const wide_scratch s = wide_scratch_at(buf + k, k);
    const size_t n = range32_wide_for(k)(t, is_min, nan_ignore, row, begin, end, k, &s, NULL);
    for (size_t j = 0; j < n; ++j) {
        buf[j].key = s.best[j] >> 32;
        buf[j].pos = (uint32_t)~(uint32_t)s.best[j];
    }
    return n;
}

static void rows_wide_avx512(const yamr__topk_call *c, size_t r0, size_t r1, entry *buf)
{
    const wide_scratch s = wide_scratch_at(buf, c->k);
    rows32_wide(c, r0, r1, &s);
}
#endif

static size_t range_baseline(yamr_dtype t, int is_min, int nan_ignore, const void *row,
                             size_t begin, size_t end, size_t k, entry *buf, size_t cap)
{
    return range_any(t, is_min, nan_ignore, row, begin, end, k, buf, cap);
}

#if YAMR__CPU_HAVE_AVX2
__attribute__((target("avx2"))) static size_t range_avx2(yamr_dtype t, int is_min,
                                                         int nan_ignore, const void *row,
                                                         size_t begin, size_t end, size_t k,
                                                         entry *buf, size_t cap)
{
    return range_any(t, is_min, nan_ignore, row, begin, end, k, buf, cap);
}
#endif

#if YAMR__CPU_HAVE_AVX512
__attribute__((target("avx512f,avx512bw,avx512vl"))) static size_t
range_avx512(yamr_dtype t, int is_min, int nan_ignore, const void *row, size_t begin, size_t end,
             size_t k, entry *buf, size_t cap)
{
    return range_any(t, is_min, nan_ignore, row, begin, end, k, buf, cap);
}
#endif

static size_t range_isa(yamr__cpu_isa isa, yamr_dtype t, int is_min, int nan_ignore,
                        const void *row, size_t begin, size_t end, size_t k, entry *buf,
                        size_t cap)
{
#if YAMR__CPU_HAVE_AVX512
    /* (the buffers were sized for it only where every range takes it) */
    if (isa == YAMR__CPU_ISA_AVX512 && takes_wide(t, begin, end, k) &&
        cap >= k + YAMR__TOPK_CPU_WIDE_ENTRIES(k))
        return range_wide_avx512(t, is_min, nan_ignore, row, begin, end, k, buf);
    if (isa == YAMR__CPU_ISA_AVX512)
        return range_avx512(t, is_min, nan_ignore, row, begin, end, k, buf, cap);
#endif
#if YAMR__CPU_HAVE_AVX2
    if (isa == YAMR__CPU_ISA_AVX2)
        return range_avx2(t, is_min, nan_ignore, row, begin, end, k, buf, cap);
#endif
    (void)isa;
    return range_baseline(t, is_min, nan_ignore, row, begin, end, k, buf, cap);
}

/* ---- Rows over threads ---- */

/* Entries a buffer for a range of `len` elements holds: every element when that is fewer than
 * 2k + slack, else 2k + slack (> k, so that keeping the k best makes room). */
static size_t buffer_entries(size_t len, size_t k)
{
    size_t want = 2 * k + YAMR__TOPK_CPU_SLACK;
    if (want < YAMR__TOPK_CPU_LANES_MAX) want = YAMR__TOPK_CPU_LANES_MAX;
    return len < want ? (len > k ? len : k) : want;
}

/* Writes row r's count best (buf) and the fill of the rest. */
static void write_row(const yamr__topk_call *c, size_t r, const entry *buf, size_t count)
{
    const size_t elem = yamr_dtype_size(c->dtype);
    const unsigned char *row = (const unsigned char *)c->in + r * c->ld * elem;
    unsigned char *values = (unsigned char *)c->values + r * c->k * elem;
    int64_t *indices = c->indices ? c->indices + r * c->k : NULL;
    /* the element size a constant in each loop: a copy, not a call */
    switch (elem) {
    case 2:
        for (size_t j = 0; j < count; ++j) memcpy(values + j * 2, row + buf[j].pos * 2, 2);
        break;
    case 4:
        for (size_t j = 0; j < count; ++j) memcpy(values + j * 4, row + buf[j].pos * 4, 4);
        break;
    default:
        for (size_t j = 0; j < count; ++j) memcpy(values + j * 8, row + buf[j].pos * 8, 8);
        break;
    }
    if (indices)
        for (size_t j = 0; j < count; ++j) indices[j] = (int64_t)buf[j].pos;
    const uint64_t empty = yamr__empty_value_bits(c->dtype);
    for (size_t j = count; j < c->k; ++j) {
        memcpy(values + j * elem, &empty, elem); /* little-endian */
        if (indices) indices[j] = -1;
    }
}

#if YAMR__CPU_HAVE_AVX2
#include <immintrin.h>

/*
 * f32 rows of up to YAMR__TOPK_CPU_AVX2_MAX elements on AVX2 (k <= YAMR__TOPK_CPU_AVX2_K), read
 * twice, the second time from the cache, with float compares only:
 *  1. lane maxima (MIN: minima): L >= 2k lanes (a power of two, at least a vector's 8; two
 *     chains at least) keep the largest number of their elements (vmaxps skips a NaN); the k-th
 *     largest lane maximum is a bound: those k lanes' maxima are k distinct elements at least
 *     that large. At L = 2k about k + k/4 elements of a random row reach it (avx2_bound);
 *  2. every element at or above the bound (under YAMR_NAN_PROPAGATE the unordered compare also
 *     takes every NaN) appends its position, without a branch: per half vector, a table of the
 *     set lanes' order and a permute (AVX2 has no compress); a row of fewer candidates (at
 *     least YAMR__TOPK_CPU_AVX2_FEW k elements) picks them from a step's mask, and a sparse one
 *     (YAMR__TOPK_CPU_AVX2_SPARSE k) skips the steps of 32 that hold none;
 *  3. the candidates' keys, then their k best in order (avx2_rank32: a rank of 32-bit keys;
 *     where two keys tie, avx2_best: a rank of 64-bit words with the positions).
 * Short rows of k <= 4 take pass 2 and the order in a form of fixed steps (avx2_tiny_row).
 * Every candidate is kept, so the buffers hold a whole row (an all-equal row passes entirely).
 */
/* Rows up to 512 KiB of f32 (a Zen 3 core's L2): 64 x 128256 k 100 1.6x the rows argmax where
 * the block filter took 2.4-2.8x, 64 x 32768 k 50 1.3x where it took 4-5x (one thread). */
#define YAMR__TOPK_CPU_AVX2_MAX 131072
#define YAMR__TOPK_CPU_AVX2_K 128
/* Rows of at least this many times k elements test 32 elements before appending them. */
#define YAMR__TOPK_CPU_AVX2_SPARSE 128
/* Rows of at least this many times k elements (under one candidate a step of 32) take the
 * positions of a step's candidates from its mask, YAMR__TOPK_CPU_AVX2_PICKS without a branch,
 * then a loop for the rest (rare). */
#define YAMR__TOPK_CPU_AVX2_FEW 32
#define YAMR__TOPK_CPU_AVX2_PICKS 2
/* The most lane vectors (L = 8 LV >= 2k). */
#define YAMR__TOPK_CPU_AVX2_LV (2 * YAMR__TOPK_CPU_AVX2_K / 8)
#define YAMR__TOPK_CPU_TARGET_AVX2 __attribute__((target("avx2,popcnt")))

/* For each mask of 4 lanes, the set lanes' indices in order, a byte each. */
static const uint32_t avx2_lanes_of[16] = {
    0x0, 0x0, 0x1, 0x100, 0x2, 0x200, 0x201, 0x20100,
    0x3, 0x300, 0x301, 0x30100, 0x302, 0x30200, 0x30201, 0x3020100,
};

/* Whether rows_f32_avx2 takes the rows of call c. */
static int takes_avx2(const yamr__topk_call *c)
{
    return c->dtype == YAMR_DTYPE_F32 && c->k <= YAMR__TOPK_CPU_AVX2_K &&
           c->cols <= YAMR__TOPK_CPU_AVX2_MAX;
}

/* Entries a thread's buffer holds for rows_f32_avx2: a row's candidates as entries, then as
 * positions (4 bytes each, a vector's overhang). */
static size_t avx2_entries(size_t cols) { return cols + (cols + 8) / 4 + 2; }

/* The float bound of rows_f32_avx2 from its L = 8 lv lane maxima (MIN: minima) `most` (no
 * NaN among them; -inf, MIN +inf, for a lane without a number): MAX: the k-th largest (k <= L),
 * at most the k-th best number's value; MIN: the k-th smallest. Returns 0 where it is not a
 * float (only NaNs reach the floor of the many-lane form): then no number is a floor. */
YAMR__TOPK_CPU_TARGET_AVX2 YAMR__CPU_INLINE int avx2_bound(const __m256 *most, const size_t lv,
                                                          int is_min, size_t k, float *bound)
{
    /* MIN: negated, so that the k-th largest is the k-th smallest negated */
    const __m256 flip = _mm256_set1_ps(is_min ? -0.0f : 0.0f);
    __m256 m[YAMR__TOPK_CPU_AVX2_LV];
    for (size_t v = 0; v < lv; ++v) m[v] = _mm256_xor_ps(most[v], flip);
    if (lv <= 4) {
        /* Few lanes: each lane's count of larger lanes (a compare and a subtract of its mask
         * per lane and vector), then the least lane that fewer than k lanes exceed. */
        float all[8 * 4];
        __m256i above[4];
        for (size_t v = 0; v < lv; ++v) {
            _mm256_storeu_ps(all + 8 * v, m[v]);
            above[v] = _mm256_setzero_si256();
        }
        for (size_t i = 0; i < 8 * lv; ++i) {
            const __m256 x = _mm256_broadcast_ss(all + i);
            for (size_t v = 0; v < lv; ++v)
                above[v] = _mm256_sub_epi32(
                    above[v], _mm256_castps_si256(_mm256_cmp_ps(x, m[v], _CMP_GT_OQ)));
        }
        const __m256i below_k = _mm256_set1_epi32((int)k);
        __m256 least = _mm256_set1_ps(HUGE_VALF);
        for (size_t v = 0; v < lv; ++v)
            least = _mm256_blendv_ps(least, _mm256_min_ps(least, m[v]),
                                     _mm256_castsi256_ps(_mm256_cmpgt_epi32(below_k, above[v])));
        least = _mm256_min_ps(least, _mm256_permute2f128_ps(least, least, 1));
        least = _mm256_min_ps(least, _mm256_permute_ps(least, 0x4e));
        least = _mm256_min_ps(least, _mm256_permute_ps(least, 0xb1));
        *bound = _mm_cvtss_f32(_mm256_castps256_ps128(_mm256_xor_ps(least, flip)));
        return 1;
    }
    /* Many lanes: the pairs cost more than the row. Instead, the keys (yamr__ord_f32, the sign
     * bit then flipped again, so that signed compares order them as unsigned ones) and bit by
     * bit from the top the largest key v with at least k lanes >= v, over the top 20 bits (v
     * with its low bits 0 is still a floor, and passes few more elements than the exact one);
     * f32_bound turns it into a float. */
    __m256i key[YAMR__TOPK_CPU_AVX2_LV];
    const __m256i sign = _mm256_set1_epi32((int)0x80000000u);
    for (size_t v = 0; v < lv; ++v) {
        const __m256i bits = _mm256_castps_si256(m[v]);
        const __m256i zero = _mm256_cmpeq_epi32(_mm256_andnot_si256(sign, bits),
                                                _mm256_setzero_si256());
        const __m256i b = _mm256_andnot_si256(zero, bits); /* -0.0 as +0.0 */
        const __m256i ord = _mm256_xor_si256(b, _mm256_or_si256(_mm256_srai_epi32(b, 31), sign));
        key[v] = _mm256_xor_si256(ord, sign);
    }
    uint32_t found = 0;
    for (int bit = 31; bit >= 12; bit -= 2) {
        /* two bits a step, their three nonzero values counted at once: half the steps of a
         * chain (a step waits for the last one's count) */
        const uint32_t t1 = found | (uint32_t)1u << (bit - 1);
        const uint32_t t2 = found | (uint32_t)2u << (bit - 1);
        const uint32_t t3 = found | (uint32_t)3u << (bit - 1);
        /* key >= try_v: the flipped key above flipped try_v - 1 (try_v > 0) */
        const __m256i s1 = _mm256_set1_epi32((int)((t1 ^ 0x80000000u) - 1u));
        const __m256i s2 = _mm256_set1_epi32((int)((t2 ^ 0x80000000u) - 1u));
        const __m256i s3 = _mm256_set1_epi32((int)((t3 ^ 0x80000000u) - 1u));
        __m256i c1 = _mm256_setzero_si256(), c2 = c1, c3 = c1;
        for (size_t v = 0; v < lv; ++v) {
            c1 = _mm256_sub_epi32(c1, _mm256_cmpgt_epi32(key[v], s1));
            c2 = _mm256_sub_epi32(c2, _mm256_cmpgt_epi32(key[v], s2));
            c3 = _mm256_sub_epi32(c3, _mm256_cmpgt_epi32(key[v], s3));
        }
        /* the three horizontal sums at once: sum's lanes are c1's, c2's, c3's, c3's */
        const __m256i h12 = _mm256_hadd_epi32(c1, c2), h3 = _mm256_hadd_epi32(c3, c3);
        const __m256i h = _mm256_hadd_epi32(h12, h3);
        const __m128i sum =
            _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
        const unsigned a1 = (unsigned)_mm_cvtsi128_si32(sum);
        const unsigned a2 = (unsigned)_mm_extract_epi32(sum, 1);
        const unsigned a3 = (unsigned)_mm_extract_epi32(sum, 2);
        found = a3 >= k ? t3 : a2 >= k ? t2 : a1 >= k ? t1 : found;
    }
    /* the keys are of the negated values for MIN: as MAX's, then negated back */
    if (!f32_bound(found, 0, bound)) return 0;
    *bound = is_min ? -*bound : *bound;
    return 1;
}

/* Appends the positions at + j of the lanes j set in `pass` (8 lanes) to pos[count...] (8 slots
 * written); returns the new count. */
YAMR__TOPK_CPU_TARGET_AVX2 YAMR__CPU_INLINE size_t avx2_append(unsigned pass, __m256i at,
                                                              uint32_t *pos, size_t count)
{
    const __m128i lo = _mm256_castsi256_si128(at), hi = _mm256_extracti128_si256(at, 1);
    const __m128i pick_lo = _mm_cvtepu8_epi32(_mm_cvtsi32_si128((int)avx2_lanes_of[pass & 15]));
    const __m128i pick_hi = _mm_cvtepu8_epi32(_mm_cvtsi32_si128((int)avx2_lanes_of[pass >> 4]));
    _mm_storeu_si128((__m128i *)(void *)(pos + count),
                     _mm_castps_si128(_mm_permutevar_ps(_mm_castsi128_ps(lo), pick_lo)));
    count += (size_t)__builtin_popcount(pass & 15);
    _mm_storeu_si128((__m128i *)(void *)(pos + count),
                     _mm_castps_si128(_mm_permutevar_ps(_mm_castsi128_ps(hi), pick_hi)));
    return count + (size_t)__builtin_popcount(pass >> 4);
}

/* Pass 2 for one compare predicate: the positions of [0, n) that pass against `bound`, 32
 * elements a step; a sparse row's step appends only where one of them passes (a branch that
 * mispredicts about once per candidate, against four appends). Each step prefetches the same
 * elements of `ahead`, a row to come, a line at a time. */
#define YAMR__TOPK_CPU_AVX2_PASS(cmp)                                                          \
    do {                                                                                       \
        const __m256 b8 = _mm256_set1_ps(bound);                                               \
        const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);                        \
        const __m256i step = _mm256_set1_epi32(8);                                             \
        size_t i = 0;                                                                          \
        for (; n - i >= 32; i += 32) {                                                         \
            _mm_prefetch((const char *)(ahead + i), _MM_HINT_T0);                              \
            _mm_prefetch((const char *)(ahead + i + 16), _MM_HINT_T0);                         \
            unsigned pass[4];                                                                  \
            for (int v = 0; v < 4; ++v)                                                        \
                pass[v] = (unsigned)_mm256_movemask_ps(                                        \
                    _mm256_cmp_ps(_mm256_loadu_ps(x + i + 8 * v), b8, cmp));                   \
            if (sparse && !(pass[0] | pass[1] | pass[2] | pass[3])) continue;                  \
            if (few) {                                                                         \
                uint32_t m = pass[0] | pass[1] << 8 | pass[2] << 16 | pass[3] << 24;           \
                for (int t = 0; t < YAMR__TOPK_CPU_AVX2_PICKS; ++t) {                          \
                    pos[count] = (uint32_t)i + (uint32_t)__builtin_ctzll(m | 1ull << 32);      \
                    count += m != 0;                                                           \
                    m &= m - 1;                                                                \
                }                                                                              \
                for (; m; m &= m - 1) pos[count++] = (uint32_t)i + (uint32_t)__builtin_ctz(m); \
                continue;                                                                      \
            }                                                                                  \
            __m256i at = _mm256_add_epi32(iota, _mm256_set1_epi32((int)i));                    \
            for (int v = 0; v < 4; ++v) {                                                      \
                count = avx2_append(pass[v], at, pos, count);                                  \
                at = _mm256_add_epi32(at, step);                                               \
            }                                                                                  \
        }                                                                                      \
        for (; n - i >= 8; i += 8) {                                                           \
            const unsigned pass = (unsigned)_mm256_movemask_ps(                                \
                _mm256_cmp_ps(_mm256_loadu_ps(x + i), b8, cmp));                               \
            count = avx2_append(pass, _mm256_add_epi32(iota, _mm256_set1_epi32((int)i)), pos,  \
                                count);                                                        \
        }                                                                                      \
        for (; i < n; ++i) {                                                                   \
            const __m128 e = _mm_set_ss(x[i]);                                                 \
            if (_mm_movemask_ps(_mm_cmp_ps(e, _mm256_castps256_ps128(b8), cmp)) & 1)           \
                pos[count++] = (uint32_t)i;                                                    \
        }                                                                                      \
    } while (0)

/* best_sorted for up to YAMR__TOPK_CPU_AVX2_RANK_MAX candidates of 32-bit keys, to out, by
 * rank: each candidate as one 64-bit word (key << 32 | ~position, the sign bit flipped: signed
 * compares order the words as unsigned ones; all differ), its rank the count of larger words,
 * counted for 8 words at once (two vectors) per word broadcast: a compare and a subtract per 4
 * pairs, where best_sorted's rank takes three compares and three logic operations. */
#define YAMR__TOPK_CPU_AVX2_RANK_MAX 256
YAMR__TOPK_CPU_TARGET_AVX2 YAMR__CPU_INLINE size_t avx2_best(const entry *e, size_t count,
                                                             size_t k, entry *out)
{
    long long word[YAMR__TOPK_CPU_AVX2_RANK_MAX + 8];
    long long rank[YAMR__TOPK_CPU_AVX2_RANK_MAX + 8];
    for (size_t i = 0; i < count; ++i)
        word[i] = (long long)((e[i].key << 32 | (uint32_t)~(uint32_t)e[i].pos) ^ (1ull << 63));
    for (size_t i = count; i % 8; ++i) word[i] = LLONG_MIN; /* below every word: ranked last */
    for (size_t v = 0; v < count; v += 8) {
        const __m256i w0 = _mm256_loadu_si256((const __m256i *)(const void *)(word + v));
        const __m256i w1 = _mm256_loadu_si256((const __m256i *)(const void *)(word + v + 4));
        __m256i r0 = _mm256_setzero_si256(), r1 = r0;
        for (size_t j = 0; j < count; ++j) {
            const __m256i x = _mm256_set1_epi64x(word[j]);
            r0 = _mm256_sub_epi64(r0, _mm256_cmpgt_epi64(x, w0));
            r1 = _mm256_sub_epi64(r1, _mm256_cmpgt_epi64(x, w1));
        }
        _mm256_storeu_si256((__m256i *)(void *)(rank + v), r0);
        _mm256_storeu_si256((__m256i *)(void *)(rank + v + 4), r1);
    }
    /* the ranks are 0..count - 1: every candidate to its place, no branch (out holds count) */
    for (size_t i = 0; i < count; ++i) out[rank[i]] = e[i];
    return count < k ? count : k;
}

/* Row r's answer from the positions of its count candidates in the output order: the first k,
 * then (fewer numbers than k: NaNs skipped) the empty value and index -1. Inlined, of the AVX2
 * copy: as a call of its own (baseline code) 65536 x 128 k 4 took 4.6x the rows argmax, 1.6x
 * inlined. */
YAMR__TOPK_CPU_TARGET_AVX2 YAMR__CPU_INLINE void avx2_write(const yamr__topk_call *c, size_t r,
                                                            const float *x,
                                                            const uint32_t *order, size_t count)
{
    const size_t k = c->k, got = count < k ? count : k;
    float *values = (float *)c->values + r * k;
    int64_t *indices = c->indices ? c->indices + r * k : NULL;
    for (size_t j = 0; j < got; ++j) values[j] = x[order[j]];
    if (indices)
        for (size_t j = 0; j < got; ++j) indices[j] = (int64_t)order[j];
    const uint32_t empty = (uint32_t)yamr__empty_value_bits(YAMR_DTYPE_F32);
    for (size_t j = got; j < k; ++j) {
        memcpy(values + j, &empty, 4);
        if (indices) indices[j] = -1;
    }
}

/* The keys of f32 elements x[at] (yamr_keys.h's key, the sign bit flipped: signed compares
 * order them), a NaN's the top one (only YAMR_NAN_PROPAGATE's pass a bound). */
YAMR__TOPK_CPU_TARGET_AVX2 YAMR__CPU_INLINE __m256i avx2_keys32(const float *x, __m256i at,
                                                               int is_min)
{
    const __m256i magnitude = _mm256_set1_epi32(0x7fffffff);
    const __m256i bits = _mm256_castps_si256(_mm256_i32gather_ps(x, at, 4));
    const __m256i mag = _mm256_and_si256(bits, magnitude);
    /* -0.0 as +0.0; a negative's magnitude bits complemented; MIN: all complemented */
    const __m256i b = _mm256_andnot_si256(_mm256_cmpeq_epi32(mag, _mm256_setzero_si256()), bits);
    const __m256i k32 =
        _mm256_xor_si256(_mm256_xor_si256(b, _mm256_and_si256(_mm256_srai_epi32(b, 31), magnitude)),
                         _mm256_set1_epi32(is_min ? -1 : 0));
    return _mm256_blendv_epi8(k32, magnitude,
                              _mm256_cmpgt_epi32(mag, _mm256_set1_epi32(0x7f800000)));
}

/* The ranks of g <= 4 vectors of signed keys `key + v` among key[0, count): how many keys are
 * larger, a compare and a subtract per 8 pairs (the g vectors and their counts in registers,
 * 8 of 16). */
YAMR__TOPK_CPU_TARGET_AVX2 YAMR__CPU_INLINE __m256i avx2_rank32_group(const int32_t *key,
                                                                     size_t count, size_t v,
                                                                     int32_t *rank, const int g)
{
    __m256i mine[4], above[4];
    for (int j = 0; j < g; ++j) {
        mine[j] = _mm256_loadu_si256((const __m256i *)(const void *)(key + v + 8 * j));
        above[j] = _mm256_setzero_si256();
    }
    for (size_t i = 0; i < count; ++i) {
        const __m256i other = _mm256_set1_epi32(key[i]);
        for (int j = 0; j < g; ++j)
            above[j] = _mm256_sub_epi32(above[j], _mm256_cmpgt_epi32(other, mine[j]));
    }
    /* and their sum, lanes past count left out */
    __m256i sum = _mm256_setzero_si256();
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (int j = 0; j < g; ++j) {
        _mm256_storeu_si256((__m256i *)(void *)(rank + v + 8 * j), above[j]);
        const __m256i in = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(count - v - 8 * j)), lane);
        sum = _mm256_add_epi32(sum, _mm256_and_si256(in, above[j]));
    }
    return sum;
}

/* The candidates' positions pos[0, count) (ascending; pos holds 8 more slots) in the output
 * order, to order[0, count), by rank over 32-bit keys: each candidate's key (yamr_keys.h's,
 * the sign bit flipped for signed compares), its rank the count of larger keys, for 32
 * candidates at once per key broadcast, half the work of the 64-bit words of avx2_best. Ties
 * need the position, which a 32-bit key has no room for: where two keys are equal the ranks
 * are not a permutation (their sum falls short of count (count - 1) / 2), and it returns 0 for
 * avx2_best (rare in data of many values: the equal keys must both pass the bound). */
YAMR__TOPK_CPU_TARGET_AVX2 YAMR__CPU_INLINE int avx2_rank32(const float *x, uint32_t *pos,
                                                           size_t count, int is_min,
                                                           uint32_t *order)
{
    int32_t key[YAMR__TOPK_CPU_AVX2_RANK_MAX + 32], rank[YAMR__TOPK_CPU_AVX2_RANK_MAX + 32];
    /* the keys; past count, position 0's (their ranks are not read) */
    _mm256_storeu_si256((__m256i *)(void *)(pos + count), _mm256_setzero_si256());
    for (size_t v = 0; v < count; v += 8) {
        const __m256i at = _mm256_loadu_si256((const __m256i *)(const void *)(pos + v));
        _mm256_storeu_si256((__m256i *)(void *)(key + v), avx2_keys32(x, at, is_min));
    }
    __m256i sums = _mm256_setzero_si256();
    for (size_t v = 0; v < count; v += 32) {
        __m256i part;
        switch ((count - v + 7) / 8) {
        case 1: part = avx2_rank32_group(key, count, v, rank, 1); break;
        case 2: part = avx2_rank32_group(key, count, v, rank, 2); break;
        case 3: part = avx2_rank32_group(key, count, v, rank, 3); break;
        default: part = avx2_rank32_group(key, count, v, rank, 4); break;
        }
        sums = _mm256_add_epi32(sums, part);
    }
    __m128i sum = _mm_add_epi32(_mm256_castsi256_si128(sums), _mm256_extracti128_si256(sums, 1));
    sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, 0x4e));
    sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, 0xb1));
    if ((uint32_t)_mm_cvtsi128_si32(sum) != (uint32_t)(count * (count - 1) / 2)) return 0;
    for (size_t i = 0; i < count; ++i) order[rank[i]] = pos[i];
    return 1;
}

/* Pass 2 of a short row (n <= YAMR__TOPK_CPU_AVX2_TINY_N) for one compare predicate: the mask
 * of the elements that pass against `bound`, bit i of word0 (i < 64) or word1, and a prefetch
 * of the same bytes of `ahead` a line at a time. Unrolled, so that the words stay in registers
 * (the vectors past the row's last are skipped by a branch that goes the same way every row). */
#define YAMR__TOPK_CPU_AVX2_TINY_MASK(cmp)                                                     \
    do {                                                                                       \
        const __m256 b8 = _mm256_set1_ps(bound);                                               \
        const size_t full = n / 8;                                                             \
        _Pragma("GCC unroll 16")                                                               \
        for (size_t v = 0; v < YAMR__TOPK_CPU_AVX2_TINY_N / 8; ++v) {                          \
            uint64_t m = 0;                                                                    \
            if (v % 2 == 0 && 8 * v < n)                                                       \
                _mm_prefetch((const char *)(ahead + 8 * v), _MM_HINT_T0);                      \
            if (v < full) {                                                                    \
                m = (unsigned)_mm256_movemask_ps(                                              \
                    _mm256_cmp_ps(_mm256_loadu_ps(x + 8 * v), b8, cmp));                       \
            } else if (v == full && n % 8) {                                                   \
                const __m256i in = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n % 8)),         \
                                                      _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)); \
                m = (unsigned)_mm256_movemask_ps(_mm256_and_ps(                                \
                    _mm256_castsi256_ps(in),                                                   \
                    _mm256_cmp_ps(_mm256_maskload_ps(x + 8 * v, in), b8, cmp)));               \
            }                                                                                  \
            if (v < 8) word0 |= m << (8 * v);                                                  \
            else word1 |= m << (8 * (v - 8));                                                  \
        }                                                                                      \
    } while (0)

/* Pass 2 and the order of a short row of k <= 4 (one lane vector: about k + k/4 candidates),
 * written out, with a fixed number of steps (no loop that ends with the data, no branch on it
 * but one that is rarely taken): the positions of the row's mask (two 64-bit words, 8 picks
 * from each), their keys in one vector, and each one's rank among the 8, ties by the lane (the
 * positions ascend), so that no tie needs another pass. Returns 0, having written nothing, for
 * more than 8 candidates (avx2_row goes on). */
#define YAMR__TOPK_CPU_AVX2_TINY_N 128
#define YAMR__TOPK_CPU_AVX2_TINY_K 4
YAMR__TOPK_CPU_TARGET_AVX2 YAMR__CPU_INLINE int avx2_tiny_row(const yamr__topk_call *c, size_t r,
                                                             const float *x, const float *ahead,
                                                             float bound)
{
    const size_t n = c->cols;
    const int is_min = !c->largest;
    uint64_t word0 = 0, word1 = 0;
    if (!is_min) {
        if (c->nan_ignore) YAMR__TOPK_CPU_AVX2_TINY_MASK(_CMP_GE_OQ);
        else YAMR__TOPK_CPU_AVX2_TINY_MASK(_CMP_NLT_UQ);
    } else {
        if (c->nan_ignore) YAMR__TOPK_CPU_AVX2_TINY_MASK(_CMP_LE_OQ);
        else YAMR__TOPK_CPU_AVX2_TINY_MASK(_CMP_NGT_UQ);
    }
    const unsigned low = (unsigned)__builtin_popcountll(word0);
    const unsigned count = low + (unsigned)__builtin_popcountll(word1);
    if (count > 8) return 0;
    /* the positions in order: word 0's from slot 0, word 1's from slot `low` (the picks past a
     * word's last take position 63 of it, in the row or clamped below; later picks overwrite
     * them, or they fall past count) */
    uint32_t at[16];
    uint64_t w = word0;
    for (int t = 0; t < 8; ++t) {
        at[t] = (uint32_t)__builtin_ctzll(w | 1ull << 63);
        w &= w - 1;
    }
    w = word1;
    for (int t = 0; t < 8; ++t) {
        at[low + t] = 64u + (uint32_t)__builtin_ctzll(w | 1ull << 63);
        w &= w - 1;
    }
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i pos = _mm256_min_epu32(_mm256_loadu_si256((const __m256i *)(const void *)at),
                                         _mm256_set1_epi32((int)(n - 1)));
    /* lanes past count: the least key, below every element's (a NaN is the top key) */
    const __m256i key = _mm256_blendv_epi8(_mm256_set1_epi32(INT_MIN),
                                           avx2_keys32(x, pos, is_min),
                                           _mm256_cmpgt_epi32(_mm256_set1_epi32((int)count), lane));
    /* rank: larger keys, and equal ones in earlier lanes (a permutation of 0..7) */
    __m256i above = _mm256_setzero_si256(), tied = above;
    for (int j = 0; j < 8; ++j) {
        const __m256i other = _mm256_permutevar8x32_epi32(key, _mm256_set1_epi32(j));
        const __m256i later = _mm256_cmpgt_epi32(lane, _mm256_set1_epi32(j));
        above = _mm256_sub_epi32(above, _mm256_cmpgt_epi32(other, key));
        tied = _mm256_sub_epi32(tied, _mm256_and_si256(later, _mm256_cmpeq_epi32(other, key)));
    }
    const __m256i rank = _mm256_add_epi32(above, tied);
    uint32_t rk[8], p[8], order[8];
    _mm256_storeu_si256((__m256i *)(void *)rk, rank);
    _mm256_storeu_si256((__m256i *)(void *)p, pos);
    for (int i = 0; i < 8; ++i) order[rk[i]] = p[i];
    avx2_write(c, r, x, order, count);
    return 1;
}

/* Row r of c (takes_avx2), written out, with L = 8 lv lanes (lv a constant: the lanes stay in
 * registers); buf holds avx2_entries(c->cols). */
YAMR__TOPK_CPU_TARGET_AVX2 YAMR__CPU_INLINE void avx2_row(const yamr__topk_call *c, size_t r,
                                                         key_rule32 rule, entry *buf,
                                                         const size_t lv, int sparse,
                                                         int few, int tiny, size_t ahead_rows)
{
    const size_t n = c->cols, k = c->k, lanes = 8 * lv;
    const int is_min = !c->largest, nan_ignore = c->nan_ignore;
    const float *x = (const float *)c->in + r * c->ld;
    const float *ahead = (const float *)c->in +
                         (c->rows - r > ahead_rows ? r + ahead_rows : c->rows - 1) * c->ld;
    uint32_t *pos = (uint32_t *)(void *)(buf + n);
    /* two chains at least: one lane vector is two in the pass, then one again (element i in
     * lane i mod 8 still) */
    const size_t pv = lv < 2 ? 2 : lv, step = 8 * pv;
    __m256 most[YAMR__TOPK_CPU_AVX2_LV];
    for (size_t v = 0; v < pv; ++v) most[v] = _mm256_set1_ps(is_min ? HUGE_VALF : -HUGE_VALF);
    size_t i = 0;
    if (!is_min) {
        for (; n - i >= step; i += step)
            for (size_t v = 0; v < pv; ++v)
                most[v] = _mm256_max_ps(_mm256_loadu_ps(x + i + 8 * v), most[v]);
    } else {
        for (; n - i >= step; i += step)
            for (size_t v = 0; v < pv; ++v)
                most[v] = _mm256_min_ps(_mm256_loadu_ps(x + i + 8 * v), most[v]);
    }
    if (i < n) { /* the rest, fewer than a step: lane by lane (a NaN fails both compares) */
        float lane[8 * YAMR__TOPK_CPU_AVX2_LV];
        for (size_t v = 0; v < pv; ++v) _mm256_storeu_ps(lane + 8 * v, most[v]);
        for (size_t l = 0; i + l < n; ++l)
            if (is_min ? x[i + l] < lane[l] : x[i + l] > lane[l]) lane[l] = x[i + l];
        for (size_t v = 0; v < pv; ++v) most[v] = _mm256_loadu_ps(lane + 8 * v);
    }
    if (pv > lv)
        most[0] = is_min ? _mm256_min_ps(most[0], most[1]) : _mm256_max_ps(most[0], most[1]);
    /* fewer lanes than k (a short row): no floor, every number passes; a floor no number
     * reaches (only NaNs do): the infinities pass too, a superset */
    float bound = is_min ? HUGE_VALF : -HUGE_VALF;
    if (k <= lanes && !avx2_bound(most, lv, is_min, k, &bound)) bound = -bound;
    if (lv == 1 && tiny && avx2_tiny_row(c, r, x, ahead, bound)) return;
    size_t count = 0;
    if (!is_min) {
        if (nan_ignore) YAMR__TOPK_CPU_AVX2_PASS(_CMP_GE_OQ);
        else YAMR__TOPK_CPU_AVX2_PASS(_CMP_NLT_UQ);
    } else {
        if (nan_ignore) YAMR__TOPK_CPU_AVX2_PASS(_CMP_LE_OQ);
        else YAMR__TOPK_CPU_AVX2_PASS(_CMP_NGT_UQ);
    }
    if (count <= YAMR__TOPK_CPU_AVX2_RANK_MAX) {
        uint32_t order[YAMR__TOPK_CPU_AVX2_RANK_MAX];
        if (avx2_rank32(x, pos, count, is_min, order)) {
            avx2_write(c, r, x, order, count);
            return;
        }
    }
    for (size_t j = 0; j < count; ++j) {
        buf[j].key = key32(rule, x, pos[j]);
        buf[j].pos = pos[j];
    }
    if (count > YAMR__TOPK_CPU_AVX2_RANK_MAX) {
        write_row(c, r, buf, best_sorted(buf, count, k));
    } else {
        entry best[YAMR__TOPK_CPU_AVX2_RANK_MAX];
        write_row(c, r, best, avx2_best(buf, count, k, best));
    }
}

/* Rows [r0, r1) of c (takes_avx2), each written out; buf holds avx2_entries(c->cols). */
YAMR__TOPK_CPU_TARGET_AVX2 static void rows_f32_avx2(const yamr__topk_call *c, size_t r0,
                                                     size_t r1, entry *buf)
{
    const size_t n = c->cols, k = c->k;
    const key_rule32 rule = key_rule32_for(YAMR_DTYPE_F32, 0, !c->largest, c->nan_ignore);
    /* L = 8 lv >= 2k, where the row has 2 elements a lane */
    size_t lv = 1;
    while (8 * lv < 2 * k && 32 * lv <= n) lv *= 2;
    /* about 1.25k candidates a row: few against its steps of 32 */
    const int sparse = n >= YAMR__TOPK_CPU_AVX2_SPARSE * k;
    const int few = n >= YAMR__TOPK_CPU_AVX2_FEW * k;
    const int tiny = n <= YAMR__TOPK_CPU_AVX2_TINY_N && k <= YAMR__TOPK_CPU_AVX2_TINY_K;
    const size_t ahead = (YAMR__TOPK_CPU_AHEAD + 4 * c->ld - 1) / (4 * c->ld);
#define YAMR__TOPK_CPU_AVX2_ROWS(LV)                                                           \
    case LV:                                                                                   \
        for (size_t r = r0; r < r1; ++r)                                                       \
            avx2_row(c, r, rule, buf, LV, sparse, few, tiny, ahead);                           \
        break
    switch (lv) {
        YAMR__TOPK_CPU_AVX2_ROWS(1);
        YAMR__TOPK_CPU_AVX2_ROWS(2);
        YAMR__TOPK_CPU_AVX2_ROWS(4);
        YAMR__TOPK_CPU_AVX2_ROWS(8);
        YAMR__TOPK_CPU_AVX2_ROWS(16);
    default: YAMR__TOPK_CPU_AVX2_ROWS(32);
    }
#undef YAMR__TOPK_CPU_AVX2_ROWS
}
#endif

/* Rows [r0, r1) through the instruction set's form that takes whole rows (the `wide` ones of
 * yamr__cpu_topk: rows32_wide, rows_f32_avx2). */
static void rows_whole(const yamr__cpu_config *cfg, const yamr__topk_call *c, size_t r0,
                       size_t r1, entry *buf)
{
#if YAMR__CPU_HAVE_AVX512
    if (cfg->isa == YAMR__CPU_ISA_AVX512) {
        rows_wide_avx512(c, r0, r1, buf);
        return;
    }
#endif
#if YAMR__CPU_HAVE_AVX2
    if (cfg->isa == YAMR__CPU_ISA_AVX2) rows_f32_avx2(c, r0, r1, buf);
#endif
    (void)cfg, (void)c, (void)r0, (void)r1, (void)buf;
}

yamr_status yamr__cpu_topk(const yamr__cpu_config *cfg, const yamr__topk_call *c)
{
    const size_t elem = yamr_dtype_size(c->dtype), k = c->k;
    const int is_min = !c->largest;
    const int split = (int)YAMR__PLAN_CPU_SPLIT(c->plan);
    const size_t threads = YAMR__PLAN_CPU_THREADS(c->plan);
    const size_t range_len = split ? (c->cols + threads - 1) / threads : c->cols;
    size_t cap = buffer_entries(range_len, k);
    int wide = 0; /* rows_whole takes the rows */
#if YAMR__CPU_HAVE_AVX512
    wide = cfg->isa == YAMR__CPU_ISA_AVX512 && takes_wide(c->dtype, 0, range_len, k) &&
           c->cols < (size_t)0xffffffffu;
    /* a split's ranges take buf's first k entries for their answer (range_wide_avx512) */
    if (wide && cap < k + YAMR__TOPK_CPU_WIDE_ENTRIES(k)) cap = k + YAMR__TOPK_CPU_WIDE_ENTRIES(k);
    wide = wide && !split;
#endif
#if YAMR__CPU_HAVE_AVX2
    if (cfg->isa == YAMR__CPU_ISA_AVX2 && takes_avx2(c) && !split) {
        wide = 1;
        if (cap < avx2_entries(c->cols)) cap = avx2_entries(c->cols);
    }
#endif
    /* Every buffer before any work, so that a failed allocation writes nothing: one per thread,
     * and for a split the union of the ranges' lists. */
    const size_t merge = split ? threads * k : 0;
    if (cap > ((size_t)-1 / sizeof(entry) - merge) / threads) return YAMR_ERROR_OUT_OF_MEMORY;
    entry *all = (entry *)malloc((threads * cap + merge) * sizeof(entry));
    if (!all) return YAMR_ERROR_OUT_OF_MEMORY;
    if (split) {
        entry *lists = all + threads * cap;
        size_t counts[YAMR__CPU_MAX_THREADS];
        for (size_t r = 0; r < c->rows; ++r) {
            const void *row = (const unsigned char *)c->in + r * c->ld * elem;
#ifdef _OPENMP
#pragma omp parallel for num_threads((int)threads) schedule(static, 1)
#endif
            for (long long s = 0; s < (long long)threads; ++s) {
                const size_t begin = (size_t)s * range_len;
                const size_t end = c->cols - begin < range_len ? c->cols : begin + range_len;
                entry *buf = all + (size_t)s * cap;
                const size_t n = begin < end ? range_isa(cfg->isa, c->dtype, is_min, c->nan_ignore,
                                                         row, begin, end, k, buf, cap)
                                             : 0;
                memcpy(lists + (size_t)s * k, buf, n * sizeof(entry));
                counts[s] = n;
            }
            size_t total = 0;
            for (size_t s = 0; s < threads; ++s) {
                memmove(lists + total, lists + s * k, counts[s] * sizeof(entry));
                total += counts[s];
            }
            if (total > k) select_entries(lists, total, k);
            const size_t count = total < k ? total : k;
            sort_entries(lists, count);
            write_row(c, r, lists, count);
        }
    } else if (threads > 1) {
#ifdef _OPENMP
        const int grab = (int)YAMR__PLAN_CPU_GRAB(c->plan);
#pragma omp parallel num_threads((int)threads)
        {
            entry *buf = all + (size_t)omp_get_thread_num() * cap;
            /* rows32_wide: blocks of `grab` rows, each a call */
            const long long blocks = (long long)((c->rows + (size_t)grab - 1) / (size_t)grab);
#pragma omp for schedule(dynamic, 1)
            for (long long b = 0; b < (wide ? blocks : 0); ++b) {
                const size_t r0 = (size_t)b * (size_t)grab;
                const size_t r1 = c->rows - r0 < (size_t)grab ? c->rows : r0 + (size_t)grab;
                rows_whole(cfg, c, r0, r1, buf);
            }
#pragma omp for schedule(dynamic, grab)
            for (long long r = 0; r < (wide ? 0 : (long long)c->rows); ++r) {
                const void *row = (const unsigned char *)c->in + (size_t)r * c->ld * elem;
                const size_t n = range_isa(cfg->isa, c->dtype, is_min, c->nan_ignore, row, 0,
                                           c->cols, k, buf, cap);
                write_row(c, (size_t)r, buf, n);
            }
        }
#endif
    } else if (wide) {
        rows_whole(cfg, c, 0, c->rows, all);
    } else {
        for (size_t r = 0; r < c->rows; ++r) {
            const void *row = (const unsigned char *)c->in + r * c->ld * elem;
            const size_t n =
                range_isa(cfg->isa, c->dtype, is_min, c->nan_ignore, row, 0, c->cols, k, all, cap);
            write_row(c, r, all, n);
        }
    }
    free(all);
    return YAMR_SUCCESS;
}
