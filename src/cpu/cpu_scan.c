/* SPDX-License-Identifier: MIT */
/*
 * The CPU scans of one array. Per block of YAMR__CPU_BLOCK elements, the block's best key first:
 * a max over order-preserving integer keys (yamr_keys.h), which compilers vectorize; then, only
 * when that key beats the best so far, the first index of it in a second pass over the block while
 * it is in L1 (rare on most data, once per block on ascending data). Ties keep the earlier block,
 * so the first index wins. Each function is compiled once per instruction set (the baseline and,
 * on x86, AVX2) from the same inline bodies, and yamr__cpu_scan() runs the one the context chose.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "cpu_backend.h"
#include "yamr_keys.h"

/* ---- Keys in 16, 32 and 64 bits, so that a vector holds as many keys as elements ---- */

YAMR__CPU_INLINE uint16_t ord16(yamr_dtype t, const void *in, size_t i, int *nan)
{
    const uint16_t bits = ((const uint16_t *)in)[i];
    *nan = yamr__is_nan_half(bits, t == YAMR_DTYPE_BF16 ? YAMR_BF16_INF : YAMR_F16_INF);
    return yamr__ord_half16(bits);
}

YAMR__CPU_INLINE uint32_t ord32(yamr_dtype t, const void *in, size_t i, int *nan)
{
    const uint32_t bits = ((const uint32_t *)in)[i];
    *nan = t == YAMR_DTYPE_F32 && yamr__is_nan_f32(bits);
    switch (t) {
    case YAMR_DTYPE_I32: return yamr__ord_i32(bits);
    case YAMR_DTYPE_U32: return bits;
    default: return yamr__ord_f32(bits);
    }
}

YAMR__CPU_INLINE uint64_t ord64(yamr_dtype t, const void *in, size_t i, int *nan)
{
    const uint64_t bits = ((const uint64_t *)in)[i];
    *nan = t == YAMR_DTYPE_F64 && yamr__is_nan_f64(bits);
    return t == YAMR_DTYPE_I64 ? yamr__ord_i64(bits) : yamr__ord_f64(bits);
}

/*
 * Floats without NaN: the block's largest and smallest values by float compares, a third of the
 * key arithmetic, then their keys. Returns 0 (the caller takes the key loop) for other dtypes and
 * for a block holding a NaN. The sign of a zero does not matter: both zeros have one key, and the
 * find looks for the key. The simd reductions let the compiler keep a max per lane.
 */
#define YAMR__CPU_DEFINE_FLOAT_BLOCK(W, Float, Key, Dtype, Ord, Largest)                       \
    YAMR__CPU_INLINE int float_block##W(yamr_dtype t, int slots, int is_min, const void *in,   \
                                        size_t begin, size_t end, Key flip0, Key *m0, Key *m1) \
    {                                                                                          \
        if (t != Dtype) return 0;                                                              \
        const Float *x = (const Float *)in;                                                    \
        Float hi = -(Float)INFINITY, lo = (Float)INFINITY;                                     \
        int nan = 0;                                                                           \
        if (slots == 2) {                                                                      \
            _Pragma("omp simd reduction(max : hi) reduction(min : lo) reduction(| : nan)")     \
            for (size_t i = begin; i < end; ++i) {                                             \
                const Float v = x[i];                                                          \
                hi = v > hi ? v : hi;                                                          \
                lo = v < lo ? v : lo;                                                          \
                nan |= v != v;                                                                 \
            }                                                                                  \
        } else if (is_min) {                                                                   \
            _Pragma("omp simd reduction(min : lo) reduction(| : nan)")                         \
            for (size_t i = begin; i < end; ++i) {                                             \
                const Float v = x[i];                                                          \
                lo = v < lo ? v : lo;                                                          \
                nan |= v != v;                                                                 \
            }                                                                                  \
        } else {                                                                               \
            _Pragma("omp simd reduction(max : hi) reduction(| : nan)")                         \
            for (size_t i = begin; i < end; ++i) {                                             \
                const Float v = x[i];                                                          \
                hi = v > hi ? v : hi;                                                          \
                nan |= v != v;                                                                 \
            }                                                                                  \
        }                                                                                      \
        /* OpenMP starts each lane of a max at the lowest finite value, not -inf: a block of   \
         * -inf only (and of +inf only for a min) comes back as that value, which the block    \
         * need not hold. Those blocks, and blocks that hold it, take the key loop. */          \
        if (nan || hi == -Largest || lo == Largest) return 0;                                  \
        Key bits;                                                                              \
        const Float first = slots == 1 && is_min ? lo : hi;                                    \
        memcpy(&bits, &first, sizeof bits);                                                    \
        *m0 = (Key)(Ord(bits) ^ flip0);                                                        \
        memcpy(&bits, &lo, sizeof bits);                                                       \
        *m1 = (Key)~Ord(bits);                                                                 \
        return 1;                                                                              \
    }

YAMR__CPU_DEFINE_FLOAT_BLOCK(32, float, uint32_t, YAMR_DTYPE_F32, yamr__ord_f32, FLT_MAX)
YAMR__CPU_DEFINE_FLOAT_BLOCK(64, double, uint64_t, YAMR_DTYPE_F64, yamr__ord_f64, DBL_MAX)

/* Halves have no C type to compare: always the key loop. */
YAMR__CPU_INLINE int float_block16(yamr_dtype t, int slots, int is_min, const void *in,
                                   size_t begin, size_t end, uint16_t flip0, uint16_t *m0,
                                   uint16_t *m1)
{
    (void)t, (void)slots, (void)is_min, (void)in, (void)begin, (void)end, (void)flip0;
    (void)m0, (void)m1;
    return 0;
}

/*
 * Defines, for the keys of ord##W (W bits, type Key: yamr_keys.h's split form, with `flip` 0 for
 * MAX and all ones for MIN, and `nan_key` the key of a NaN; Offset: an unsigned type of W bits
 * that holds a block's length):
 *  - find##W: the first i in [begin, end) whose key is `key`, which the caller knows is there:
 *    the least offset among the lanes that hold it (a min-reduction compilers vectorize, where a
 *    loop that stops at the first hit is scalar);
 *  - scan##W: the best key of [0, n) and its first index, block by block (the file's comment);
 *    min+max (slots == 2) takes both keys from one ord.
 */
#define YAMR__CPU_DEFINE_SCAN(W, Key, Offset)                                                  \
    YAMR__CPU_INLINE size_t find##W(yamr_dtype t, const void *in, size_t begin, size_t end,    \
                                    Key flip, Key nan_key, Key key)                            \
    {                                                                                          \
        const Offset length = (Offset)(end - begin);                                           \
        Offset first = length;                                                                 \
        for (Offset j = 0; j < length; ++j) {                                                  \
            int nan;                                                                           \
            const Key ord = ord##W(t, in, begin + j, &nan);                                    \
            const Key k = nan ? nan_key : (Key)(ord ^ flip);                                   \
            const Offset at = k == key ? j : length;                                           \
            first = at < first ? at : first;                                                   \
        }                                                                                      \
        return begin + first;                                                                  \
    }                                                                                          \
                                                                                               \
    YAMR__CPU_INLINE void scan##W(yamr_dtype t, int slots, int is_min, int nan_ignore,         \
                                  const void *in, size_t n, yamr__cpu_best best[2])            \
    {                                                                                          \
        const Key flip0 = slots == 1 && is_min ? (Key)~(Key)0 : 0, flip1 = (Key)~(Key)0;       \
        const Key nan_key = nan_ignore ? 0 : (Key)~(Key)0;                                     \
        Key top0 = YAMR_KEY_BOTTOM, top1 = YAMR_KEY_BOTTOM; /* index 0 holds a bottom key */   \
        size_t at0 = 0, at1 = 0;                                                               \
        for (size_t begin = 0; begin < n; begin += YAMR__CPU_BLOCK) {                          \
            const size_t end = n - begin < YAMR__CPU_BLOCK ? n : begin + YAMR__CPU_BLOCK;      \
            Key m0 = YAMR_KEY_BOTTOM, m1 = YAMR_KEY_BOTTOM;                                    \
            const int fast = float_block##W(t, slots, is_min, in, begin, end, flip0, &m0, &m1); \
            for (size_t i = begin; !fast && i < end; ++i) {                                    \
                int nan;                                                                       \
                const Key ord = ord##W(t, in, i, &nan);                                        \
                const Key nan_mask = (Key)((Key)0 - (Key)nan);                                 \
                const Key k0 = (Key)(((ord ^ flip0) & ~nan_mask) | (nan_key & nan_mask));      \
                m0 = k0 > m0 ? k0 : m0;                                                        \
                if (slots == 2) {                                                              \
                    const Key k1 = (Key)(((ord ^ flip1) & ~nan_mask) | (nan_key & nan_mask));  \
                    m1 = k1 > m1 ? k1 : m1;                                                    \
                }                                                                              \
            }                                                                                  \
            if (m0 > top0) {                                                                   \
                top0 = m0;                                                                     \
                at0 = find##W(t, in, begin, end, flip0, nan_key, m0);                          \
            }                                                                                  \
            if (slots == 2 && m1 > top1) {                                                     \
                top1 = m1;                                                                     \
                at1 = find##W(t, in, begin, end, flip1, nan_key, m1);                          \
            }                                                                                  \
        }                                                                                      \
        best[0].key = top0;                                                                    \
        best[0].index = at0;                                                                   \
        best[1].key = top1;                                                                    \
        best[1].index = at1;                                                                   \
    }

YAMR__CPU_DEFINE_SCAN(16, uint16_t, uint16_t)
YAMR__CPU_DEFINE_SCAN(32, uint32_t, uint32_t)
YAMR__CPU_DEFINE_SCAN(64, uint64_t, uint64_t)

/* ---- One body per instruction set: the dtype and slot count become constants inside ---- */

YAMR__CPU_INLINE void scan_any(yamr_dtype t, int slots, int is_min, int nan_ignore,
                               const void *in, size_t n, yamr__cpu_best best[2])
{
    const int two = slots == 2;
    switch (t) {
    case YAMR_DTYPE_F32:
        if (two) scan32(YAMR_DTYPE_F32, 2, 0, nan_ignore, in, n, best);
        else scan32(YAMR_DTYPE_F32, 1, is_min, nan_ignore, in, n, best);
        break;
    case YAMR_DTYPE_F16:
        if (two) scan16(YAMR_DTYPE_F16, 2, 0, nan_ignore, in, n, best);
        else scan16(YAMR_DTYPE_F16, 1, is_min, nan_ignore, in, n, best);
        break;
    case YAMR_DTYPE_BF16:
        if (two) scan16(YAMR_DTYPE_BF16, 2, 0, nan_ignore, in, n, best);
        else scan16(YAMR_DTYPE_BF16, 1, is_min, nan_ignore, in, n, best);
        break;
    case YAMR_DTYPE_I32:
        if (two) scan32(YAMR_DTYPE_I32, 2, 0, 0, in, n, best);
        else scan32(YAMR_DTYPE_I32, 1, is_min, 0, in, n, best);
        break;
    case YAMR_DTYPE_U32:
        if (two) scan32(YAMR_DTYPE_U32, 2, 0, 0, in, n, best);
        else scan32(YAMR_DTYPE_U32, 1, is_min, 0, in, n, best);
        break;
    case YAMR_DTYPE_F64:
        if (two) scan64(YAMR_DTYPE_F64, 2, 0, nan_ignore, in, n, best);
        else scan64(YAMR_DTYPE_F64, 1, is_min, nan_ignore, in, n, best);
        break;
    case YAMR_DTYPE_I64:
        if (two) scan64(YAMR_DTYPE_I64, 2, 0, 0, in, n, best);
        else scan64(YAMR_DTYPE_I64, 1, is_min, 0, in, n, best);
        break;
    }
}

static void scan_baseline(yamr_dtype t, int slots, int is_min, int nan_ignore, const void *in,
                          size_t n, yamr__cpu_best best[2])
{
    scan_any(t, slots, is_min, nan_ignore, in, n, best);
}

#if YAMR__CPU_HAVE_AVX2
__attribute__((target("avx2"))) static void scan_avx2(yamr_dtype t, int slots, int is_min,
                                                      int nan_ignore, const void *in, size_t n,
                                                      yamr__cpu_best best[2])
{
    scan_any(t, slots, is_min, nan_ignore, in, n, best);
}
#endif

#if YAMR__CPU_HAVE_AVX512
__attribute__((target("avx512f,avx512bw,avx512vl"))) static void
scan_avx512(yamr_dtype t, int slots, int is_min, int nan_ignore, const void *in, size_t n,
            yamr__cpu_best best[2])
{
    scan_any(t, slots, is_min, nan_ignore, in, n, best);
}
#endif

void yamr__cpu_scan(yamr__cpu_isa isa, yamr_dtype t, int slots, int is_min, int nan_ignore,
                    const void *in, size_t n, yamr__cpu_best best[2])
{
#if YAMR__CPU_HAVE_AVX512
    if (isa == YAMR__CPU_ISA_AVX512) {
        scan_avx512(t, slots, is_min, nan_ignore, in, n, best);
        return;
    }
#endif
#if YAMR__CPU_HAVE_AVX2
    if (isa == YAMR__CPU_ISA_AVX2) {
        scan_avx2(t, slots, is_min, nan_ignore, in, n, best);
        return;
    }
#endif
    (void)isa;
    scan_baseline(t, slots, is_min, nan_ignore, in, n, best);
}

yamr__result yamr__cpu_result(yamr_dtype t, const void *in, yamr__cpu_best best)
{
    const size_t elem = yamr_dtype_size(t);
    yamr__result r;
    /* A float array whose best key is the bottom held only NaNs under YAMR_NAN_IGNORE. */
    r.index = yamr__dtype_is_float(t) && best.key == YAMR_KEY_BOTTOM ? -1 : (int64_t)best.index;
    r.value_bits = 0;
    memcpy(&r.value_bits, (const unsigned char *)in + best.index * elem, elem); /* little-endian */
    return r;
}

/* ---- Splitting one array over threads ---- */

#ifdef _OPENMP
/* a replaces b when its key is larger, or equal at a smaller index: the first index of the best
 * key whatever the order partial bests arrive in. */
static int beats(yamr__cpu_best a, yamr__cpu_best b)
{
    return a.key > b.key || (a.key == b.key && a.index < b.index);
}
#endif

void yamr__cpu_reduce(yamr__cpu_isa isa, int threads, size_t chunk_blocks, yamr_dtype t, int slots,
                      int is_min, int nan_ignore, const void *in, size_t n, yamr__result res[2])
{
    yamr__cpu_best best[2];
#ifdef _OPENMP
    const size_t elem = yamr_dtype_size(t);
    if (threads > 1) {
        /* Whole blocks taken a chunk at a time (dynamic): a thread that loses its core to another
         * process for a while leaves its chunks to the others instead of holding up the call. */
        const size_t chunk = (chunk_blocks ? chunk_blocks : 1) * YAMR__CPU_BLOCK;
        const long long chunks = (long long)((n + chunk - 1) / chunk);
        yamr__cpu_best part[YAMR__CPU_MAX_THREADS][2];
        int used = 1;
#pragma omp parallel num_threads(threads)
        {
            const int id = omp_get_thread_num();
            yamr__cpu_best mine[2] = {{YAMR_KEY_BOTTOM, (size_t)-1}, {YAMR_KEY_BOTTOM, (size_t)-1}};
#pragma omp for schedule(dynamic, 1) nowait
            for (long long k = 0; k < chunks; ++k) {
                const size_t lo = (size_t)k * chunk, hi = n - lo < chunk ? n : lo + chunk;
                yamr__cpu_best got[2];
                yamr__cpu_scan(isa, t, slots, is_min, nan_ignore,
                               (const unsigned char *)in + lo * elem, hi - lo, got);
                for (int s = 0; s < slots; ++s) {
                    got[s].index += lo;
                    if (beats(got[s], mine[s])) mine[s] = got[s];
                }
            }
            part[id][0] = mine[0];
            part[id][1] = mine[1];
            if (id == 0) used = omp_get_num_threads();
        }
        best[0] = part[0][0];
        best[1] = part[0][1];
        for (int i = 1; i < used; ++i)
            for (int s = 0; s < slots; ++s)
                if (beats(part[i][s], best[s])) best[s] = part[i][s];
    } else
#else
    (void)threads;
    (void)chunk_blocks;
#endif
    {
        yamr__cpu_scan(isa, t, slots, is_min, nan_ignore, in, n, best);
    }
    for (int k = 0; k < slots; ++k) res[k] = yamr__cpu_result(t, in, best[k]);
}
