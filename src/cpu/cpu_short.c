/* SPDX-License-Identifier: MIT */
/*
 * The fused pass for short rows and segments: a range of rows (segments) in one function compiled
 * per instruction set, each row read once, its answer kept in registers and written out, with no
 * call or dispatch per row. Per row, 128 bytes of lanes (two AVX-512 vectors, four AVX2 ones,
 * eight of the baseline's) each keep their best and the first offset of it (a strictly larger
 * one replaces, so a lane keeps its first); the row's answer is
 * the largest lane best and the least offset among the lanes that hold it: the first index of
 * the best. f32 and f64 rows compare floats (MIN compares negated values) and take the keys when
 * the row holds a NaN; halves and integers compare yamr_keys.h's split keys; so ties, -0.0 and
 * both NaN policies are those of every other path. The lanes are written with GCC/Clang vector
 * extensions (compilers do not vectorize a loop that tracks the index of its best) and, on
 * AVX-512, with intrinsics for what the extensions cannot say (mask registers, vpmax, masked
 * moves). Matrix rows shorter than the lanes are taken LANES rows at a time, lane j walking row
 * j, with no per-row reduction. Rows (segments) longer than YAMR__CPU_SHORT_ROW take the block
 * scan of cpu_scan.c, one call each.
 */
#include <math.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_keys.h"
#include "yamr_keys.h"

/* Lanes per row: 128 bytes of keys (two AVX-512 vectors, four AVX2 ones, eight SSE2 or NEON
 * ones), so that independent compare-and-select chains hide each other's latency. */
#define LANES16 64
#define LANES32 32
#define LANES64 16


#if defined(__GNUC__) || defined(__clang__)
/*
 * The lanes as GCC/Clang vectors of B bytes: the same key arithmetic as yamr__cpu_key##W on
 * whole vectors. Compilers do not vectorize a loop that tracks an index of the best, so the
 * vectors are written out. B is the copy's vector width: 32 for AVX2,
 * 16 for the baseline (SSE2, NEON); the AVX-512 copy takes the key arithmetic on 64 bytes and
 * writes the rest in intrinsics. A vector wider than the target's costs far more than its
 * pieces: GCC 12 keeps it in memory and compares it one element at a time (64-byte lanes on
 * AVX2 ran the rows argmax of 16384 x 1000 f32 at about a tenth of the read).
 */
#define YAMR__CPU_VECTORS 1
/* Vectors pass only between inlined functions, by pointer: no ABI to warn about. */
#pragma GCC diagnostic ignored "-Wpsabi"

/* vec##W##_##B: keys of W bits in a vector of B bytes; vkey_bits##W##_##B: the keys of such a
 * vector of elements' bits. */
#define YAMR__CPU_DEFINE_VKEY_BITS(B)                                                          \
    typedef uint16_t vec16_##B __attribute__((vector_size(B)));                                \
    typedef uint32_t vec32_##B __attribute__((vector_size(B)));                                \
    typedef uint64_t vec64_##B __attribute__((vector_size(B)));                                \
    YAMR__CPU_INLINE void vkey_bits16_##B(yamr_dtype t, const vec16_##B *loaded, uint16_t flip, \
                                          uint16_t nan_key, vec16_##B *key)                    \
    {                                                                                          \
        const vec16_##B bits = *loaded;                                                        \
        const uint16_t inf = t == YAMR_DTYPE_BF16 ? YAMR_BF16_INF : YAMR_F16_INF;              \
        const vec16_##B magnitude = bits & 0x7fff;                                             \
        const vec16_##B nan = (vec16_##B)(magnitude > inf);                                    \
        const vec16_##B b = bits & (vec16_##B)(magnitude != 0); /* -0.0 as +0.0 */             \
        const vec16_##B ord = b ^ ((vec16_##B)(b - b - (b >> 15)) | 0x8000);                   \
        *key = ((ord ^ flip) & ~nan) | (nan_key & nan);                                        \
    }                                                                                          \
    YAMR__CPU_INLINE void vkey_bits32_##B(yamr_dtype t, const vec32_##B *loaded, uint32_t flip, \
                                          uint32_t nan_key, vec32_##B *key)                    \
    {                                                                                          \
        const vec32_##B bits = *loaded;                                                        \
        if (t == YAMR_DTYPE_U32) {                                                             \
            *key = bits ^ flip;                                                                \
            return;                                                                            \
        }                                                                                      \
        if (t == YAMR_DTYPE_I32) {                                                             \
            *key = bits ^ (0x80000000u ^ flip);                                                \
            return;                                                                            \
        }                                                                                      \
        const vec32_##B magnitude = bits & 0x7fffffffu;                                        \
        const vec32_##B nan = (vec32_##B)(magnitude > 0x7f800000u);                            \
        const vec32_##B b = bits & (vec32_##B)(magnitude != 0);                                \
        const vec32_##B ord = b ^ ((vec32_##B)(b - b - (b >> 31)) | 0x80000000u);              \
        *key = ((ord ^ flip) & ~nan) | (nan_key & nan);                                        \
    }                                                                                          \
    YAMR__CPU_INLINE void vkey_bits64_##B(yamr_dtype t, const vec64_##B *loaded, uint64_t flip, \
                                          uint64_t nan_key, vec64_##B *key)                    \
    {                                                                                          \
        const vec64_##B bits = *loaded;                                                        \
        if (t == YAMR_DTYPE_I64) {                                                             \
            *key = bits ^ ((uint64_t)0x8000000000000000ull ^ flip);                            \
            return;                                                                            \
        }                                                                                      \
        const vec64_##B magnitude = bits & (uint64_t)0x7fffffffffffffffull;                    \
        const vec64_##B nan = (vec64_##B)(magnitude > (uint64_t)0x7ff0000000000000ull);        \
        const vec64_##B b = bits & (vec64_##B)(magnitude != 0);                                \
        const vec64_##B ord =                                                                  \
            b ^ ((vec64_##B)(b - b - (b >> 63)) | (uint64_t)0x8000000000000000ull);            \
        *key = ((ord ^ flip) & ~nan) | (nan_key & nan);                                        \
    }

/* The keys of the B bytes at element i of p. */
#define YAMR__CPU_DEFINE_VKEY(W, Key, B)                                                       \
    YAMR__CPU_INLINE void vkey##W##_##B(yamr_dtype t, const void *p, size_t i, Key flip,       \
                                        Key nan_key, vec##W##_##B *key)                        \
    {                                                                                          \
        vec##W##_##B bits;                                                                     \
        memcpy(&bits, (const Key *)p + i, sizeof bits);                                        \
        vkey_bits##W##_##B(t, &bits, flip, nan_key, key);                                      \
    }

/*
 * A row's lanes: 128 bytes of elements a step, in NV = 128 / B vectors of PER = B / sizeof(Key)
 * lanes (NV independent compare-and-select chains). Lane j of vector v keeps its best and the
 * start of the step where it took it (a strictly larger one replaces, so a lane keeps its
 * first); its element is at that start + v PER + j. Lanes that never took keep start 0, and
 * hold the row's best only when every key before the rest is the bottom (the keys) or -inf
 * (floats), and then offset 0 is the answer.
 *  - first_held##W##_##B: the least offset among the lanes marked in `holds`;
 *  - vector_lanes##W##_##B: the keys' lanes over [0, n - n % 128 bytes): the largest lane key
 *    and the least offset of it; returns where the steps stopped;
 *  - float_row##W##_##B: f32 and f64 rows without NaN, the same lanes with float compares (MIN
 *    compares negated values: the sign bit flipped), a third of the key arithmetic. A float
 *    compare ties -0.0 with +0.0 as the keys do, and the value written is the element's own.
 *    Returns 0 (the caller takes the keys) when the row holds a NaN; else 1 and the row's first
 *    index of its best in *index.
 */
#define YAMR__CPU_DEFINE_LANES(W, Key, B)                                                      \
    YAMR__CPU_DEFINE_VKEY(W, Key, B)                                                           \
    YAMR__CPU_INLINE Key first_held##W##_##B(const vec##W##_##B *at, const vec##W##_##B *holds) \
    {                                                                                          \
        typedef vec##W##_##B vec;                                                              \
        enum { PER = B / sizeof(Key), NV = 128 / B };                                          \
        vec least = (vec){0} + (Key)~(Key)0, lane;                                             \
        for (int j = 0; j < PER; ++j) lane[j] = (Key)j;                                        \
        for (int v = 0; v < NV; ++v) {                                                         \
            const vec o = (at[v] + lane + (Key)(v * PER)) | ~holds[v];                         \
            const vec less = (vec)(o < least);                                                 \
            least = (o & less) | (least & ~less);                                              \
        }                                                                                      \
        Key m = (Key)~(Key)0;                                                                  \
        for (int j = 0; j < PER; ++j) m = least[j] < m ? least[j] : m;                         \
        return m;                                                                              \
    }                                                                                          \
    YAMR__CPU_INLINE size_t vector_lanes##W##_##B(yamr_dtype t, Key flip, Key nan_key,         \
                                                  const void *in, size_t n, Key *key,          \
                                                  Key *offset)                                 \
    {                                                                                          \
        typedef vec##W##_##B vec;                                                              \
        enum { PER = B / sizeof(Key), NV = 128 / B };                                          \
        vec best[NV], at[NV];                                                                  \
        for (int v = 0; v < NV; ++v) best[v] = at[v] = (vec){0};                               \
        size_t i = 0;                                                                          \
        for (; n - i >= NV * PER; i += NV * PER) {                                             \
            const vec start = (vec){0} + (Key)i;                                               \
            _Pragma("GCC unroll 8")                                                            \
            for (int v = 0; v < NV; ++v) {                                                     \
                vec k;                                                                         \
                vkey##W##_##B(t, in, i + (size_t)v * PER, flip, nan_key, &k);                  \
                const vec better = (vec)(k > best[v]);                                         \
                best[v] = (k & better) | (best[v] & ~better);                                  \
                at[v] = (start & better) | (at[v] & ~better);                                  \
            }                                                                                  \
        }                                                                                      \
        vec top = best[0], holds[NV];                                                          \
        for (int v = 1; v < NV; ++v) {                                                         \
            const vec more = (vec)(best[v] > top);                                             \
            top = (best[v] & more) | (top & ~more);                                            \
        }                                                                                      \
        Key most = 0;                                                                          \
        for (int j = 0; j < PER; ++j) most = top[j] > most ? top[j] : most;                    \
        for (int v = 0; v < NV; ++v) holds[v] = (vec)(best[v] == most);                        \
        *key = most;                                                                           \
        *offset = first_held##W##_##B(at, holds);                                              \
        return i;                                                                              \
    }
#define YAMR__CPU_DEFINE_FLOAT_LANES(W, Float, Key, Dtype, B)                                  \
    YAMR__CPU_INLINE int float_row##W##_##B(yamr_dtype t, Key sign, const void *in, size_t n,  \
                                            size_t *index)                                     \
    {                                                                                          \
        typedef vec##W##_##B vec;                                                              \
        typedef Float vfloat __attribute__((vector_size(B)));                                  \
        enum { PER = B / sizeof(Key), NV = 128 / B };                                          \
        if (t != Dtype) return 0;                                                              \
        const Key *x = (const Key *)in;                                                        \
        vfloat best[NV];                                                                       \
        vec at[NV], nan = {0}, holds[NV];                                                      \
        for (int v = 0; v < NV; ++v) {                                                         \
            best[v] = (vfloat){0} - (Float)INFINITY;                                           \
            at[v] = (vec){0};                                                                  \
        }                                                                                      \
        size_t i = 0;                                                                          \
        for (; n - i >= NV * PER; i += NV * PER) {                                             \
            const vec start = (vec){0} + (Key)i;                                               \
            _Pragma("GCC unroll 8")                                                            \
            for (int v = 0; v < NV; ++v) {                                                     \
                vec b;                                                                         \
                memcpy(&b, x + i + (size_t)v * PER, sizeof b);                                 \
                const vfloat e = (vfloat)(b ^ sign);                                           \
                const vec better = (vec)(e > best[v]);                                         \
                nan |= (vec)(e != e);                                                          \
                best[v] = (vfloat)(((vec)e & better) | ((vec)best[v] & ~better));              \
                at[v] = (start & better) | (at[v] & ~better);                                  \
            }                                                                                  \
        }                                                                                      \
        Key any_nan = 0;                                                                       \
        for (int j = 0; j < PER; ++j) any_nan |= nan[j];                                       \
        if (any_nan) return 0;                                                                 \
        vfloat top = best[0];                                                                  \
        for (int v = 1; v < NV; ++v) {                                                         \
            const vec more = (vec)(best[v] > top);                                             \
            top = (vfloat)(((vec)best[v] & more) | ((vec)top & ~more));                        \
        }                                                                                      \
        Float most = -(Float)INFINITY;                                                         \
        for (int j = 0; j < PER; ++j) most = top[j] > most ? top[j] : most;                    \
        for (int v = 0; v < NV; ++v) holds[v] = (vec)(best[v] == most);                        \
        size_t at_most = first_held##W##_##B(at, holds);                                       \
        for (; i < n; ++i) {                                                                   \
            const Key b = x[i] ^ sign;                                                         \
            Float v;                                                                           \
            memcpy(&v, &b, sizeof v);                                                          \
            if (v != v) return 0;                                                              \
            if (v > most) {                                                                    \
                most = v;                                                                      \
                at_most = i;                                                                   \
            }                                                                                  \
        }                                                                                      \
        *index = at_most;                                                                      \
        return 1;                                                                              \
    }
/* The widths: the AVX-512 copy's key arithmetic, AVX2's lanes, the baseline's lanes. */
YAMR__CPU_DEFINE_VKEY_BITS(64)
YAMR__CPU_DEFINE_VKEY_BITS(32)
YAMR__CPU_DEFINE_VKEY_BITS(16)
YAMR__CPU_DEFINE_VKEY(16, uint16_t, 64)
YAMR__CPU_DEFINE_VKEY(32, uint32_t, 64)
YAMR__CPU_DEFINE_VKEY(64, uint64_t, 64)
#define YAMR__CPU_DEFINE_LANES_OF(B)                                                           \
    YAMR__CPU_DEFINE_LANES(16, uint16_t, B)                                                    \
    YAMR__CPU_DEFINE_LANES(32, uint32_t, B)                                                    \
    YAMR__CPU_DEFINE_LANES(64, uint64_t, B)                                                    \
    YAMR__CPU_DEFINE_FLOAT_LANES(32, float, uint32_t, YAMR_DTYPE_F32, B)                       \
    YAMR__CPU_DEFINE_FLOAT_LANES(64, double, uint64_t, YAMR_DTYPE_F64, B)
YAMR__CPU_DEFINE_LANES_OF(32)
YAMR__CPU_DEFINE_LANES_OF(16)
/* The whole vectors of a row: where they stopped, their best in `best` and `at`. */
#define YAMR__CPU_ROW_VECTORS(W, B) vector_lanes##W##_##B(t, flip, nan_key, in, n, &best, &at)
#else
/* Without vectors: always the keys. */
#define YAMR__CPU_DEFINE_NO_FLOAT_LANES(W, Key, B)                                             \
    YAMR__CPU_INLINE int float_row##W##_##B(yamr_dtype t, Key sign, const void *in, size_t n,  \
                                            size_t *index)                                     \
    {                                                                                          \
        (void)t, (void)sign, (void)in, (void)n, (void)index;                                   \
        return 0;                                                                              \
    }
YAMR__CPU_DEFINE_NO_FLOAT_LANES(32, uint32_t, 16)
YAMR__CPU_DEFINE_NO_FLOAT_LANES(64, uint64_t, 16)
#define YAMR__CPU_ROW_VECTORS(W, B) 0
#endif
/* Halves have no C float type: always the keys. */
YAMR__CPU_INLINE int float_row16(yamr_dtype t, uint16_t sign, const void *in, size_t n,
                                 size_t *index)
{
    (void)t, (void)sign, (void)in, (void)n, (void)index;
    return 0;
}

/*
 * For keys of W bits (type Key, which also holds a short row's offsets, so that offsets fill a
 * vector as keys do):
 *  - row##W##_##B: one row of n >= 1 elements: whole vectors of lanes of B bytes, then the rest
 *    one by one, a strictly larger key replacing (the rest lies after every vector element);
 *  - across##W: LANES rows of `cols` < LANES elements, `ld` apart, lane j walking row j.
 */
#define YAMR__CPU_DEFINE_ROW(W, Key, B)                                                        \
    YAMR__CPU_INLINE size_t row##W##_##B(yamr_dtype t, Key flip, Key nan_key, const void *in,  \
                                         size_t n, Key *key)                                   \
    {                                                                                          \
        Key best = 0, at = 0;                                                                  \
        size_t i = YAMR__CPU_ROW_VECTORS(W, B);                                                \
        for (; i < n; ++i) {                                                                   \
            const Key k = yamr__cpu_key##W(t, in, i, flip, nan_key);                           \
            if (k > best) {                                                                    \
                best = k;                                                                      \
                at = (Key)i;                                                                   \
            }                                                                                  \
        }                                                                                      \
        *key = best;                                                                           \
        return at;                                                                             \
    }
#define YAMR__CPU_DEFINE_SHORT(W, Key)                                                         \
    YAMR__CPU_DEFINE_ROW(W, Key, 16)                                                           \
    YAMR__CPU_DEFINE_ROW(W, Key, 32)                                                           \
    YAMR__CPU_INLINE void across##W(yamr_dtype t, Key flip, Key nan_key, const void *in,       \
                                    size_t ld, size_t cols, Key best[LANES##W],                \
                                    Key at[LANES##W])                                          \
    {                                                                                          \
        for (int j = 0; j < LANES##W; ++j) {                                                   \
            best[j] = 0;                                                                       \
            at[j] = 0;                                                                         \
        }                                                                                      \
        for (size_t c = 0; c < cols; ++c)                                                      \
            for (int j = 0; j < LANES##W; ++j) {                                               \
                const Key k = yamr__cpu_key##W(t, in, (size_t)j * ld + c, flip, nan_key);      \
                const int better = k > best[j];                                                \
                best[j] = better ? k : best[j];                                                \
                at[j] = better ? (Key)c : at[j];                                               \
            }                                                                                  \
    }

YAMR__CPU_DEFINE_SHORT(16, uint16_t)
YAMR__CPU_DEFINE_SHORT(32, uint32_t)
YAMR__CPU_DEFINE_SHORT(64, uint64_t)

#if YAMR__CPU_HAVE_AVX512
#include <immintrin.h>

#define YAMR__CPU_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl")))

/*
 * Rows shorter than two vectors (n < 2 * PER), on AVX-512: the row in two masked loads (the
 * masked-off lanes read nothing and are set to -inf, or to the bottom key), the largest lane,
 * then the first lane that holds it (the lowest set bit of an equality mask): no loop, no
 * per-lane offsets. small_float_row##W returns 0 for a row with a NaN (the caller takes
 * small_key_row##W); small_key_row##W also gives the best key.
 */
YAMR__CPU_TARGET_AVX512 YAMR__CPU_INLINE uint16_t yamr__cpu_max_epu16(__m512i v)
{
    const __m256i a = _mm256_max_epu16(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    const __m128i b = _mm_max_epu16(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
    /* phminposuw finds the least of eight: the largest is the complement of the complements'. */
    const __m128i least = _mm_minpos_epu16(_mm_xor_si128(b, _mm_set1_epi16(-1)));
    return (uint16_t)~(unsigned)_mm_extract_epi16(least, 0);
}
#define YAMR__CPU_MAX_16(v) yamr__cpu_max_epu16(v)
#define YAMR__CPU_MAX_32(v) _mm512_reduce_max_epu32(v)
#define YAMR__CPU_MAX_64(v) _mm512_reduce_max_epu64(v)

/* The first set bit of the pair (mask0, mask1) of PER lanes each; one of them is not 0. */
#define YAMR__CPU_FIRST_LANE(mask0, mask1, PER)                                                \
    ((mask0) ? (size_t)__builtin_ctz((unsigned)(mask0))                                        \
             : (size_t)(PER) + (size_t)__builtin_ctz((unsigned)(mask1)))

#define YAMR__CPU_DEFINE_SMALL_KEY_ROW_AVX512(W, Key, epu, epi, Mask, PER)                     \
    YAMR__CPU_TARGET_AVX512 YAMR__CPU_INLINE size_t small_key_row##W##_avx512(                 \
        yamr_dtype t, Key flip, Key nan_key, const void *in, size_t n, Key *key)               \
    {                                                                                          \
        const Mask all = (Mask)~(Mask)0;                                                       \
        const Mask m0 = n >= PER ? all : (Mask)(((Mask)1 << n) - 1);                           \
        const Mask m1 = n > PER ? (Mask)(((Mask)1 << (n - PER)) - 1) : (Mask)0;                \
        const Key *x = (const Key *)in;                                                        \
        const __m512i b0 = _mm512_maskz_loadu_##epi(m0, (const void *)x);                      \
        const __m512i b1 = _mm512_maskz_loadu_##epi(m1, (const void *)(x + PER));              \
        vec##W##_64 bits0 = (vec##W##_64)b0, bits1 = (vec##W##_64)b1, key0, key1;             \
        vkey_bits##W##_64(t, &bits0, flip, nan_key, &key0);                                     \
        vkey_bits##W##_64(t, &bits1, flip, nan_key, &key1);                                     \
        const __m512i k0 = _mm512_maskz_mov_##epi(m0, (__m512i)key0);                         \
        const __m512i k1 = _mm512_maskz_mov_##epi(m1, (__m512i)key1);                          \
        const Key most = (Key)YAMR__CPU_MAX_##W(_mm512_max_##epu(k0, k1));                     \
        const __m512i top = _mm512_set1_##epi((Key)most);                                      \
        const Mask e0 = (Mask)(_mm512_cmpeq_##epu##_mask(k0, top) & m0);                       \
        const Mask e1 = (Mask)(_mm512_cmpeq_##epu##_mask(k1, top) & m1);                       \
        *key = most;                                                                           \
        return YAMR__CPU_FIRST_LANE(e0, e1, PER);                                              \
    }

YAMR__CPU_DEFINE_SMALL_KEY_ROW_AVX512(16, uint16_t, epu16, epi16, __mmask32, 32)
YAMR__CPU_DEFINE_SMALL_KEY_ROW_AVX512(32, uint32_t, epu32, epi32, __mmask16, 16)
YAMR__CPU_DEFINE_SMALL_KEY_ROW_AVX512(64, uint64_t, epu64, epi64, __mmask8, 8)

#define YAMR__CPU_DEFINE_SMALL_FLOAT_ROW_AVX512(W, Float, Key, Dtype, Vec, ps, epi, Mask, PER)  \
    YAMR__CPU_TARGET_AVX512 YAMR__CPU_INLINE int small_float_row##W##_avx512(                  \
        yamr_dtype t, Key sign, const void *in, size_t n, size_t *index)                       \
    {                                                                                          \
        if (t != Dtype) return 0;                                                              \
        const Mask all = (Mask)~(Mask)0;                                                       \
        const Mask m0 = n >= PER ? all : (Mask)(((Mask)1 << n) - 1);                           \
        const Mask m1 = n > PER ? (Mask)(((Mask)1 << (n - PER)) - 1) : (Mask)0;                \
        const Key *x = (const Key *)in;                                                        \
        const __m512i flip = _mm512_set1_##epi((Key)sign);                                     \
        const Vec lowest = _mm512_set1_##ps(-(Float)INFINITY);                                 \
        const __m512i b0 = _mm512_maskz_loadu_##epi(m0, (const void *)x);                      \
        const __m512i b1 = _mm512_maskz_loadu_##epi(m1, (const void *)(x + PER));              \
        const Vec v0 =                                                                         \
            _mm512_mask_mov_##ps(lowest, m0, _mm512_castsi512_##ps(_mm512_xor_si512(b0, flip))); \
        const Vec v1 =                                                                         \
            _mm512_mask_mov_##ps(lowest, m1, _mm512_castsi512_##ps(_mm512_xor_si512(b1, flip))); \
        if (_mm512_cmp_##ps##_mask(v0, v1, _CMP_UNORD_Q)) return 0;                            \
        const Vec top = _mm512_set1_##ps(_mm512_reduce_max_##ps(_mm512_max_##ps(v0, v1)));     \
        const Mask e0 = (Mask)(_mm512_cmp_##ps##_mask(v0, top, _CMP_EQ_OQ) & m0);              \
        const Mask e1 = (Mask)(_mm512_cmp_##ps##_mask(v1, top, _CMP_EQ_OQ) & m1);              \
        *index = YAMR__CPU_FIRST_LANE(e0, e1, PER);                                            \
        return 1;                                                                              \
    }

YAMR__CPU_DEFINE_SMALL_FLOAT_ROW_AVX512(32, float, uint32_t, YAMR_DTYPE_F32, __m512, ps, epi32,
                                        __mmask16, 16)
YAMR__CPU_DEFINE_SMALL_FLOAT_ROW_AVX512(64, double, uint64_t, YAMR_DTYPE_F64, __m512d, pd, epi64,
                                        __mmask8, 8)
YAMR__CPU_TARGET_AVX512 YAMR__CPU_INLINE int small_float_row16_avx512(yamr_dtype t,
                                                                      uint16_t sign,
                                                                      const void *in, size_t n,
                                                                      size_t *index)
{
    (void)t, (void)sign, (void)in, (void)n, (void)index;
    return 0;
}

/*
 * float_row##W with AVX-512 instructions, which the vector extensions do not reach: the compare
 * goes to a mask register, the best to vmaxps (max(v, best) is best on ties, on signed zeros and
 * on a NaN v, so it is exactly "v if v > best"), the offset to a masked move of the iteration's
 * start (the lane's own offset is added at the end), and one unordered compare of the two loads
 * flags a NaN in either. Same answers as float_row##W.
 */
#define YAMR__CPU_DEFINE_FLOAT_ROW_AVX512(W, Float, Key, Dtype, Vec, ps, epi, Mask, PER)       \
    /* one step of the lanes: the two vectors of elements at offsets i + lane */               \
    YAMR__CPU_TARGET_AVX512 YAMR__CPU_INLINE void float_step##W##_avx512(                      \
        Vec v0, Vec v1, Key i, Vec *best0, Vec *best1, __m512i *at0, __m512i *at1, Mask *nan)  \
    {                                                                                          \
        const Mask better0 = _mm512_cmp_##ps##_mask(v0, *best0, _CMP_GT_OQ);                  \
        const Mask better1 = _mm512_cmp_##ps##_mask(v1, *best1, _CMP_GT_OQ);                  \
        *nan |= _mm512_cmp_##ps##_mask(v0, v1, _CMP_UNORD_Q);                                 \
        *best0 = _mm512_max_##ps(v0, *best0);                                                  \
        *best1 = _mm512_max_##ps(v1, *best1);                                                  \
        const __m512i start = _mm512_set1_##epi(i);                                            \
        *at0 = _mm512_mask_mov_##epi(*at0, better0, start);                                    \
        *at1 = _mm512_mask_mov_##epi(*at1, better1, start);                                    \
    }                                                                                          \
    YAMR__CPU_TARGET_AVX512 YAMR__CPU_INLINE int float_row##W##_avx512(                        \
        yamr_dtype t, Key sign, const void *in, size_t n, size_t *index)                       \
    {                                                                                          \
        if (t != Dtype) return 0;                                                              \
        const Key *x = (const Key *)in;                                                        \
        const __m512i flip = _mm512_set1_##epi((Key)sign);                                     \
        Vec best0 = _mm512_set1_##ps(-(Float)INFINITY), best1 = best0;                  \
        __m512i at0 = _mm512_setzero_si512(), at1 = at0;                                       \
        Mask nan = 0;                                                                          \
        size_t i = 0;                                                                          \
        for (; n - i >= 2 * PER; i += 2 * PER) {                                               \
            const Vec v0 = _mm512_castsi512_##ps(                                       \
                _mm512_xor_si512(_mm512_loadu_si512((const void *)(x + i)), flip));            \
            const Vec v1 = _mm512_castsi512_##ps(                                       \
                _mm512_xor_si512(_mm512_loadu_si512((const void *)(x + i + PER)), flip));      \
            float_step##W##_avx512(v0, v1, (Key)i, &best0, &best1, &at0, &at1, &nan);            \
        }                                                                                      \
        if (i < n) { /* the rest, shorter than the two vectors: masked loads of -inf */         \
            const Mask all = (Mask)~(Mask)0;                                                   \
            const Mask m0 = n - i >= PER ? all : (Mask)(((Mask)1 << (n - i)) - 1);             \
            const Mask m1 = n - i > PER ? (Mask)(((Mask)1 << (n - i - PER)) - 1) : (Mask)0;    \
            const Vec lowest = _mm512_set1_##ps(-(Float)INFINITY);                             \
            const Vec v0 = _mm512_mask_mov_##ps(                                               \
                lowest, m0, _mm512_castsi512_##ps(_mm512_xor_si512(                            \
                                _mm512_maskz_loadu_##epi(m0, (const void *)(x + i)), flip)));  \
            const Vec v1 = _mm512_mask_mov_##ps(                                               \
                lowest, m1, _mm512_castsi512_##ps(_mm512_xor_si512(                            \
                                _mm512_maskz_loadu_##epi(m1, (const void *)(x + i + PER)), flip))); \
            float_step##W##_avx512(v0, v1, (Key)i, &best0, &best1, &at0, &at1, &nan);            \
        }                                                                                      \
        if (nan) return 0;                                                                     \
        Float most = _mm512_reduce_max_##ps(_mm512_max_##ps(best0, best1));                    \
        /* Lanes that never took an element hold offset 0 + lane: they hold `most` only when   \
         * it is -inf, every element -inf, and then lane 0's offset 0 is the answer. */         \
        Key lane[2 * PER];                                                                     \
        for (int j = 0; j < 2 * PER; ++j) lane[j] = (Key)j;                                    \
        const __m512i o0 = _mm512_add_##epi(at0, _mm512_loadu_si512((const void *)lane));      \
        const __m512i o1 = _mm512_add_##epi(at1, _mm512_loadu_si512((const void *)(lane + PER))); \
        const __m512i none = _mm512_set1_##epi((Key)~(Key)0);                                  \
        const Vec top = _mm512_set1_##ps(most);                                         \
        const Mask holds0 = _mm512_cmp_##ps##_mask(best0, top, _CMP_EQ_OQ);                    \
        const Mask holds1 = _mm512_cmp_##ps##_mask(best1, top, _CMP_EQ_OQ);                    \
        const __m512i h0 = _mm512_mask_mov_##epi(none, holds0, o0);                            \
        const __m512i h1 = _mm512_mask_mov_##epi(none, holds1, o1);                            \
        *index = (size_t)YAMR__CPU_REDUCE_MIN_##W(h0, h1);                                     \
        return 1;                                                                              \
    }

#define YAMR__CPU_REDUCE_MIN_32(a, b) _mm512_reduce_min_epu32(_mm512_min_epu32(a, b))
#define YAMR__CPU_REDUCE_MIN_64(a, b) _mm512_reduce_min_epu64(_mm512_min_epu64(a, b))
YAMR__CPU_DEFINE_FLOAT_ROW_AVX512(32, float, uint32_t, YAMR_DTYPE_F32, __m512, ps, epi32,
                                  __mmask16, 16)
YAMR__CPU_DEFINE_FLOAT_ROW_AVX512(64, double, uint64_t, YAMR_DTYPE_F64, __m512d, pd, epi64,
                                  __mmask8, 8)

/*
 * float_row##W##_avx512 in chunks: per chunk of 8 vectors only the lanes' best (a tree of
 * vmaxps or vminps, MIN on its own compare rather than on negated values, so no xor), and per
 * lane the start of the first chunk where its best rose (a strict compare: a tie keeps the
 * earlier chunk); the last, partial chunk in masked loads of the worst value. Then the row's
 * best M, the least chunk start among the lanes that hold it (the first chunk that holds M),
 * and that chunk read again, in L1, for its first element equal to M (a float compare: -0.0
 * equals +0.0, as the keys tie them). About a third of the instructions a vector of
 * float_row##W##_avx512, which keeps offsets per element. Same answers; 0 when the row holds a
 * NaN.
 */
#define YAMR__CPU_DEFINE_FLOAT_CHUNKS_AVX512(W, Float, Key, Dtype, Vec, ps, epi, Mask, PER)    \
    YAMR__CPU_TARGET_AVX512 YAMR__CPU_INLINE Vec best_of##W(int is_min, Vec a, Vec b)          \
    {                                                                                          \
        return is_min ? _mm512_min_##ps(a, b) : _mm512_max_##ps(a, b);                        \
    }                                                                                          \
                                                                                               \
    /* The vectors of the chunk at `start` (masked when short) and their lanes' best. */       \
    YAMR__CPU_TARGET_AVX512 YAMR__CPU_INLINE Vec chunk_best##W(int is_min, const Float *x,     \
                                                             size_t start, size_t n,           \
                                                             Mask *nan)                        \
    {                                                                                          \
        const Vec worst = _mm512_set1_##ps(is_min ? (Float)INFINITY : -(Float)INFINITY);       \
        Vec v[8];                                                                              \
        if (n - start >= 8 * PER) {                                                            \
            for (int j = 0; j < 8; ++j) v[j] = _mm512_loadu_##ps(x + start + (size_t)j * PER); \
        } else {                                                                               \
            for (int j = 0; j < 8; ++j) {                                                      \
                const size_t at = start + (size_t)j * PER;                                     \
                const size_t left = n > at ? n - at : 0;                                       \
                const Mask m = left >= PER ? (Mask)~(Mask)0 : (Mask)(((Mask)1 << left) - 1);   \
                v[j] = _mm512_mask_loadu_##ps(worst, m, x + (at < n ? at : start));            \
            }                                                                                  \
        }                                                                                      \
        for (int j = 0; j < 8; j += 2) *nan |= _mm512_cmp_##ps##_mask(v[j], v[j + 1], _CMP_UNORD_Q); \
        /* a NaN v lands in no best (vmax/vmin keep the second operand): the flag has it */    \
        const Vec a = best_of##W(is_min, v[0], v[4]), b = best_of##W(is_min, v[1], v[5]);      \
        const Vec c = best_of##W(is_min, v[2], v[6]), d = best_of##W(is_min, v[3], v[7]);      \
        return best_of##W(is_min, best_of##W(is_min, a, c), best_of##W(is_min, b, d));        \
    }                                                                                          \
                                                                                               \
    YAMR__CPU_TARGET_AVX512 YAMR__CPU_INLINE int float_chunks_body##W(int is_min,              \
                                                                      const Float *x, size_t n, \
                                                                      size_t *index)           \
    {                                                                                          \
        const Vec worst = _mm512_set1_##ps(is_min ? (Float)INFINITY : -(Float)INFINITY);       \
        Vec best = worst;                                                                      \
        __m512i first = _mm512_setzero_si512();                                                \
        Mask nan = 0;                                                                          \
        for (size_t start = 0; start < n; start += 8 * PER) {                                  \
            const Vec c = chunk_best##W(is_min, x, start, n, &nan);                            \
            const Mask rose = is_min ? _mm512_cmp_##ps##_mask(c, best, _CMP_LT_OQ)             \
                                     : _mm512_cmp_##ps##_mask(c, best, _CMP_GT_OQ);            \
            best = _mm512_mask_mov_##ps(best, rose, c);                                        \
            first = _mm512_mask_mov_##epi(first, rose, _mm512_set1_##epi((Key)start));         \
        }                                                                                      \
        if (nan) return 0;                                                                     \
        const Float most = is_min ? _mm512_reduce_min_##ps(best) : _mm512_reduce_max_##ps(best); \
        const Vec top = _mm512_set1_##ps(most);                                                \
        /* Lanes that never rose hold chunk 0: they hold `most` only when it is the worst      \
         * value, every element that, and chunk 0 holds it too. */                             \
        const __m512i none = _mm512_set1_##epi((Key)~(Key)0);                                  \
        const __m512i held = _mm512_mask_mov_##epi(                                            \
            none, _mm512_cmp_##ps##_mask(best, top, _CMP_EQ_OQ), first);                      \
        const size_t start = (size_t)YAMR__CPU_REDUCE_MIN1_##W(held);                          \
        for (size_t at = start;; at += PER) {                                                  \
            const size_t left = n - at;                                                        \
            const Mask m = left >= PER ? (Mask)~(Mask)0 : (Mask)(((Mask)1 << left) - 1);       \
            const Mask e = (Mask)(_mm512_mask_cmp_##ps##_mask(                                 \
                m, _mm512_maskz_loadu_##ps(m, x + at), top, _CMP_EQ_OQ));                      \
            if (e) {                                                                           \
                *index = at + (size_t)__builtin_ctz((unsigned)e);                              \
                return 1;                                                                      \
            }                                                                                  \
        }                                                                                      \
    }                                                                                          \
                                                                                               \
    YAMR__CPU_TARGET_AVX512 YAMR__CPU_INLINE int float_chunks##W##_avx512(                     \
        yamr_dtype t, Key sign, const void *in, size_t n, size_t *index)                       \
    {                                                                                          \
        if (t != Dtype) return 0;                                                              \
        if (n < YAMR__CPU_CHUNKED_ROW) return float_row##W##_avx512(t, sign, in, n, index);    \
        return sign ? float_chunks_body##W(1, (const Float *)in, n, index)                     \
                    : float_chunks_body##W(0, (const Float *)in, n, index);                    \
    }

/* Rows at least this long take the chunks: below, the row's last steps (two reductions, a
 * branch on where the best lies that the predictor cannot learn) cost more than the chunks
 * save, and float_row##W##_avx512 keeps consecutive rows overlapping. */
#define YAMR__CPU_CHUNKED_ROW 1024
#define YAMR__CPU_REDUCE_MIN1_32(a) _mm512_reduce_min_epu32(a)
#define YAMR__CPU_REDUCE_MIN1_64(a) _mm512_reduce_min_epu64(a)
YAMR__CPU_DEFINE_FLOAT_CHUNKS_AVX512(32, float, uint32_t, YAMR_DTYPE_F32, __m512, ps, epi32,
                                     __mmask16, 16)
YAMR__CPU_DEFINE_FLOAT_CHUNKS_AVX512(64, double, uint64_t, YAMR_DTYPE_F64, __m512d, pd, epi64,
                                     __mmask8, 8)

/*
 * row##W with AVX-512 instructions: the keys of vkey##W, an unsigned compare to a mask register,
 * vpmaxu for the best (the larger key, the old one on ties) and a masked move of the iteration's
 * start for the offset, as above. Same answers as row##W.
 */
#define YAMR__CPU_DEFINE_KEY_ROW_AVX512(W, Key, epu, epi, Mask, PER)                           \
    /* one step of the lanes: the keys of the elements at offsets i + lane */                  \
    YAMR__CPU_TARGET_AVX512 YAMR__CPU_INLINE void key_step##W##_avx512(                        \
        __m512i k0, __m512i k1, Key i, __m512i *best0, __m512i *best1, __m512i *at0,           \
        __m512i *at1)                                                                          \
    {                                                                                          \
        const Mask better0 = _mm512_cmpgt_##epu##_mask(k0, *best0);                            \
        const Mask better1 = _mm512_cmpgt_##epu##_mask(k1, *best1);                            \
        *best0 = _mm512_max_##epu(k0, *best0);                                                 \
        *best1 = _mm512_max_##epu(k1, *best1);                                                 \
        const __m512i start = _mm512_set1_##epi(i);                                            \
        *at0 = _mm512_mask_mov_##epi(*at0, better0, start);                                    \
        *at1 = _mm512_mask_mov_##epi(*at1, better1, start);                                    \
    }                                                                                          \
    YAMR__CPU_TARGET_AVX512 YAMR__CPU_INLINE size_t key_row##W##_avx512(                       \
        yamr_dtype t, Key flip, Key nan_key, const void *in, size_t n, Key *key)               \
    {                                                                                          \
        __m512i best0 = _mm512_setzero_si512(), best1 = best0, at0 = best0, at1 = best0;       \
        size_t i = 0;                                                                          \
        for (; n - i >= 2 * PER; i += 2 * PER) {                                               \
            vec##W##_64 key0, key1;                                                             \
            vkey##W##_64(t, in, i, flip, nan_key, &key0);                                       \
            vkey##W##_64(t, in, i + PER, flip, nan_key, &key1);                                 \
            const __m512i k0 = (__m512i)key0, k1 = (__m512i)key1;                              \
            key_step##W##_avx512(k0, k1, (Key)i, &best0, &best1, &at0, &at1);                   \
        }                                                                                      \
        if (i < n) { /* the rest, shorter than the two vectors: masked loads, bottom keys */   \
            const Mask all = (Mask)~(Mask)0;                                                   \
            const Mask m0 = n - i >= PER ? all : (Mask)(((Mask)1 << (n - i)) - 1);             \
            const Mask m1 = n - i > PER ? (Mask)(((Mask)1 << (n - i - PER)) - 1) : (Mask)0;    \
            const Key *x = (const Key *)in + i;                                                \
            vec##W##_64 bits0 = (vec##W##_64)_mm512_maskz_loadu_##epi(m0, (const void *)x);     \
            vec##W##_64 bits1 =                                                                 \
                (vec##W##_64)_mm512_maskz_loadu_##epi(m1, (const void *)(x + PER));             \
            vec##W##_64 key0, key1;                                                             \
            vkey_bits##W##_64(t, &bits0, flip, nan_key, &key0);                                 \
            vkey_bits##W##_64(t, &bits1, flip, nan_key, &key1);                                 \
            const __m512i k0 = _mm512_maskz_mov_##epi(m0, (__m512i)key0);                     \
            const __m512i k1 = _mm512_maskz_mov_##epi(m1, (__m512i)key1);                     \
            key_step##W##_avx512(k0, k1, (Key)i, &best0, &best1, &at0, &at1);                   \
        }                                                                                      \
        Key lanes[PER];                                                                        \
        _mm512_storeu_si512((void *)lanes, _mm512_max_##epu(best0, best1));                    \
        Key most = 0;                                                                          \
        for (int j = 0; j < PER; ++j) most = lanes[j] > most ? lanes[j] : most;                \
        /* Lanes that never took an element hold offset 0 + lane: they hold `most` only when   \
         * it is the bottom, every key the bottom, and then lane 0's offset 0 is the answer. */ \
        Key lane[2 * PER];                                                                     \
        for (int j = 0; j < 2 * PER; ++j) lane[j] = (Key)j;                                    \
        const __m512i o0 = _mm512_add_##epi(at0, _mm512_loadu_si512((const void *)lane));      \
        const __m512i o1 = _mm512_add_##epi(at1, _mm512_loadu_si512((const void *)(lane + PER))); \
        const __m512i none = _mm512_set1_##epi((Key)~(Key)0), top = _mm512_set1_##epi(most);   \
        const __m512i h0 = _mm512_mask_mov_##epi(none, _mm512_cmpeq_##epu##_mask(best0, top), o0); \
        const __m512i h1 = _mm512_mask_mov_##epi(none, _mm512_cmpeq_##epu##_mask(best1, top), o1); \
        _mm512_storeu_si512((void *)lanes, _mm512_min_##epu(h0, h1));                          \
        Key least = (Key)~(Key)0;                                                              \
        for (int j = 0; j < PER; ++j) least = lanes[j] < least ? lanes[j] : least;             \
        *key = most;                                                                           \
        return least;                                                                          \
    }

YAMR__CPU_DEFINE_KEY_ROW_AVX512(16, uint16_t, epu16, epi16, __mmask32, 32)
YAMR__CPU_DEFINE_KEY_ROW_AVX512(32, uint32_t, epu32, epi32, __mmask16, 16)
YAMR__CPU_DEFINE_KEY_ROW_AVX512(64, uint64_t, epu64, epi64, __mmask8, 8)

/*
 * Matrix rows of exactly 16 elements of 32 bits (one vector each) on AVX-512, 16 rows at a
 * time, in a tree of 4 levels over the 16 vectors with no per-row reduction. Each level pairs
 * two vectors, takes the even lanes of the pair as X and the odd lanes as Y (vpermt2d), and keeps
 * Y only where Y > X: every lane of X covers the elements just before its Y's, so a tie keeps
 * the earlier element, and the blend keeps the element's own bits (-0.0 against +0.0). The lane
 * offsets travel through the same permutes. After the 4 levels lane j holds row j's answer.
 * A group with a NaN (f32) takes the rows one by one. The answers go out a vector at a time
 * through yamr__cpu_stream (non-temporal when the plan asks).
 */

/* A stream of 64-byte vectors to consecutive addresses from `at` (4-byte aligned), written as
 * whole aligned lines: each put shifts the stream by the start's misalignment (vpermt2d of the
 * previous vector and this one), streams the line when `nt`, and stores the partial first and
 * last lines with masked stores, so no byte outside the stream is written. */
typedef struct {
    unsigned char *line; /* the aligned line the next put writes */
    __m512i shift;       /* dword k of a line: dword 16 - s + k of (previous, current) */
    __m512i previous;
    unsigned s;          /* the start's offset in its line, in dwords */
    int first, nt;
} yamr__cpu_stream;

YAMR__CPU_TARGET_AVX512 YAMR__CPU_INLINE void stream_begin(yamr__cpu_stream *w, void *at, int nt)
{
    const uintptr_t a = (uintptr_t)at;
    w->line = (unsigned char *)(a & ~(uintptr_t)63);
    w->s = (unsigned)((a & 63) >> 2);
    w->shift = _mm512_add_epi32(_mm512_set1_epi32((int)(16 - w->s)),
                                _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    w->previous = _mm512_setzero_si512();
    w->first = 1;
    w->nt = nt;
}

YAMR__CPU_TARGET_AVX512 YAMR__CPU_INLINE void stream_put(yamr__cpu_stream *w, __m512i v)
{
    const __m512i out = _mm512_permutex2var_epi32(w->previous, w->shift, v);
    if (w->first && w->s) {
        _mm512_mask_storeu_epi32((void *)w->line, (__mmask16)(0xffffu << w->s), out);
    } else if (w->nt) {
        _mm512_stream_si512((void *)w->line, out);
    } else {
        _mm512_store_si512((void *)w->line, out);
    }
    w->first = 0;
    w->previous = v;
    w->line += 64;
}

/* The rest of the last vector put (nothing when the stream started aligned). */
YAMR__CPU_TARGET_AVX512 YAMR__CPU_INLINE void stream_end(yamr__cpu_stream *w)
{
    if (w->first || !w->s) return;
    const __m512i out = _mm512_permutex2var_epi32(w->previous, w->shift, _mm512_setzero_si512());
    _mm512_mask_storeu_epi32((void *)w->line, (__mmask16)((1u << w->s) - 1), out);
}

/* Y > X for 32-bit lanes of dtype t (f32 compares floats, NaN already excluded). */
YAMR__CPU_TARGET_AVX512 YAMR__CPU_INLINE __mmask16 greater32(yamr_dtype t, __m512i y, __m512i x)
{
    if (t == YAMR_DTYPE_F32)
        return _mm512_cmp_ps_mask(_mm512_castsi512_ps(y), _mm512_castsi512_ps(x), _CMP_GT_OQ);
    if (t == YAMR_DTYPE_I32) return _mm512_cmpgt_epi32_mask(y, x);
    return _mm512_cmpgt_epu32_mask(y, x);
}

/* Y == X for 32-bit lanes of dtype t (f32: -0.0 equals +0.0). */
YAMR__CPU_TARGET_AVX512 YAMR__CPU_INLINE __mmask16 equal32(yamr_dtype t, __m512i y, __m512i x)
{
    if (t == YAMR_DTYPE_F32)
        return _mm512_cmp_ps_mask(_mm512_castsi512_ps(y), _mm512_castsi512_ps(x), _CMP_EQ_OQ);
    return _mm512_cmpeq_epi32_mask(y, x);
}

/* One level of the tree: the pair (a, b) with lane offsets (ai, bi) to one vector. With `wide`
 * (rows of several vectors, whose lanes are not in element order) a tie goes to the smaller
 * offset; else X's elements always come first and the compare alone decides. */
YAMR__CPU_TARGET_AVX512 YAMR__CPU_INLINE void pair32(yamr_dtype t, int wide, __m512i a,
                                                      __m512i ai, __m512i b, __m512i bi,
                                                      __m512i *c, __m512i *ci)
{
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
    const __m512i x = _mm512_permutex2var_epi32(a, even, b);
    const __m512i y = _mm512_permutex2var_epi32(a, odd, b);
    const __m512i xi = _mm512_permutex2var_epi32(ai, even, bi);
    const __m512i yi = _mm512_permutex2var_epi32(ai, odd, bi);
    __mmask16 later = greater32(t, y, x);
    if (wide) later |= _mm512_mask_cmplt_epu32_mask(equal32(t, y, x), yi, xi);
    *c = _mm512_mask_blend_epi32(later, x, y);
    *ci = _mm512_mask_blend_epi32(later, xi, yi);
}

/* Row r's answer one row at a time (a group with a NaN): the value's bits and the index (-1: a
 * float row of NaNs only under IGNORE). */
YAMR__CPU_TARGET_AVX512 YAMR__CPU_INLINE void one_row32(yamr_dtype t, uint32_t flip,
                                                        uint32_t nan_key, uint32_t sign,
                                                        const uint32_t *row, size_t n,
                                                        uint32_t *bits, int64_t *at)
{
    size_t index;
    if (n < 32 ? small_float_row32_avx512(t, sign, row, n, &index)
               : float_row32_avx512(t, sign, row, n, &index)) {
        *bits = row[index];
        *at = (int64_t)index;
        return;
    }
    uint32_t key;
    index = n < 32 ? small_key_row32_avx512(t, flip, nan_key, row, n, &key)
                   : key_row32_avx512(t, flip, nan_key, row, n, &key);
    *bits = row[index];
    *at = yamr__dtype_is_float(t) && key == 0 ? -1 : (int64_t)index;
}

/* Matrix rows of 16 x `vectors` elements, 16 rows [r, r + 16) at a time: each row's vectors to
 * one by lanes (a strictly larger element replaces, so each lane keeps its first best, and its
 * offset), then the tree. Returns 0 for a group with a NaN (f32): nothing written. */
YAMR__CPU_TARGET_AVX512 YAMR__CPU_INLINE int group32(yamr_dtype t, int wide, size_t vectors,
                                                      const uint32_t *first, size_t ld,
                                                      __m512i flips, __m512i *best, __m512i *at)
{
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i one = _mm512_set1_epi32(1);
    __m512i v[16], vi[16];
    __mmask16 nan = 0;
    for (int j = 0; j < 16; ++j) {
        const uint32_t *row = first + (size_t)j * ld;
        v[j] = _mm512_xor_si512(_mm512_loadu_si512((const void *)row), flips);
        vi[j] = iota;
        for (size_t k = 1; k < vectors; ++k) {
            const __m512i y = _mm512_xor_si512(_mm512_loadu_si512((const void *)(row + 16 * k)), flips);
            if (t == YAMR_DTYPE_F32)
                nan |= _mm512_cmp_ps_mask(_mm512_castsi512_ps(y), _mm512_castsi512_ps(y), _CMP_UNORD_Q);
            const __mmask16 later = greater32(t, y, v[j]);
            v[j] = _mm512_mask_blend_epi32(later, v[j], y);
            vi[j] = _mm512_mask_mov_epi32(vi[j], later, _mm512_add_epi32(iota, _mm512_set1_epi32((int)(16 * k))));
        }
    }
    if (t == YAMR_DTYPE_F32)
        for (int j = 0; j < 16; j += 2)
            nan |= _mm512_cmp_ps_mask(_mm512_castsi512_ps(v[j]), _mm512_castsi512_ps(v[j + 1]),
                                      _CMP_UNORD_Q);
    if (nan) return 0;
    if (!wide) { /* level 1 with constant offsets: X's are the even lanes, Y's the next */
        const __m512i even_offsets =
            _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 0, 2, 4, 6, 8, 10, 12, 14);
        const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        for (int j = 0; j < 8; ++j) {
            const __m512i x = _mm512_permutex2var_epi32(v[2 * j], even, v[2 * j + 1]);
            const __m512i y = _mm512_permutex2var_epi32(v[2 * j], _mm512_add_epi32(even, one),
                                                        v[2 * j + 1]);
            const __mmask16 later = greater32(t, y, x);
            v[j] = _mm512_mask_blend_epi32(later, x, y);
            vi[j] = _mm512_mask_add_epi32(even_offsets, later, even_offsets, one);
        }
    } else {
        for (int j = 0; j < 8; ++j)
            pair32(t, 1, v[2 * j], vi[2 * j], v[2 * j + 1], vi[2 * j + 1], v + j, vi + j);
    }
    for (int j = 0; j < 4; ++j) pair32(t, wide, v[2 * j], vi[2 * j], v[2 * j + 1], vi[2 * j + 1], v + j, vi + j);
    for (int j = 0; j < 2; ++j) pair32(t, wide, v[2 * j], vi[2 * j], v[2 * j + 1], vi[2 * j + 1], v + j, vi + j);
    pair32(t, wide, v[0], vi[0], v[1], vi[1], best, at);
    return 1;
}

/* Rows [r, end) of a matrix of 16, 32, ... YAMR__CPU_GROUP_COLS columns of 32 bits, 16 rows at a
 * time; returns where it stopped. */
#define YAMR__CPU_GROUP_COLS 128
YAMR__CPU_TARGET_AVX512 YAMR__CPU_INLINE size_t groups32_avx512(yamr_dtype t,
                                                                const yamr__gpu_batch *c,
                                                                size_t r, size_t end, int nt)
{
    if (c->kind == YAMR__BATCH_SEGMENTS || c->cols == 0 || c->cols % 16 ||
        c->cols > YAMR__CPU_GROUP_COLS || end - r < 16)
        return r;
    const int is_float = yamr__dtype_is_float(t);
    const uint32_t flip = c->is_min ? (is_float ? 0x80000000u : ~0u) : 0u;
    const uint32_t key_flip = c->is_min ? ~0u : 0u;
    const uint32_t nan_key = is_float && !c->nan_ignore ? ~0u : 0u;
    const uint32_t sign = c->is_min ? 0x80000000u : 0u;
    /* The streams need the outputs' natural alignment; without it, no groups. */
    if (((uintptr_t)c->values & 3) || ((uintptr_t)c->second & 7)) return r;
    const __m512i flips = _mm512_set1_epi32((int)flip);
    const size_t vectors = c->cols / 16;
    yamr__cpu_stream values, indices;
    memset(&indices, 0, sizeof indices); /* used only with c->second */
    stream_begin(&values, (uint32_t *)c->values + r, nt);
    if (c->second) stream_begin(&indices, (int64_t *)c->second + r, nt);
    for (; end - r >= 16; r += 16) {
        const uint32_t *first = (const uint32_t *)c->in + r * c->ld;
        __m512i best, at;
        const int done = vectors == 1 ? group32(t, 0, 1, first, c->ld, flips, &best, &at)
                                      : group32(t, 1, vectors, first, c->ld, flips, &best, &at);
        if (!done) { /* one row at a time, the answers gathered into the same vectors */
            uint32_t b[16];
            int64_t a[16];
            for (int j = 0; j < 16; ++j)
                one_row32(t, key_flip, nan_key, sign, first + (size_t)j * c->ld, c->cols, b + j,
                          a + j);
            stream_put(&values, _mm512_loadu_si512((const void *)b));
            if (c->second) {
                stream_put(&indices, _mm512_loadu_si512((const void *)a));
                stream_put(&indices, _mm512_loadu_si512((const void *)(a + 8)));
            }
            continue;
        }
        stream_put(&values, _mm512_xor_si512(best, flips));
        if (c->second) {
            stream_put(&indices, _mm512_cvtepu32_epi64(_mm512_castsi512_si256(at)));
            stream_put(&indices, _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(at, 1)));
        }
    }
    stream_end(&values);
    if (c->second) stream_end(&indices);
    if (nt) _mm_sfence(); /* the streamed lines are globally visible before the threads join */
    return r;
}
#endif

/* Row or segment r of the batch: where it starts and how long it is (cpu_batch.c's row_at). */
YAMR__CPU_INLINE const unsigned char *short_row_at(const yamr__gpu_batch *c, size_t elem,
                                                   size_t r, size_t *n)
{
    if (c->kind == YAMR__BATCH_SEGMENTS) {
        *n = (size_t)yamr__segment_length(c->offsets[r], c->offsets[r + 1]);
        if (*n == 0) return (const unsigned char *)c->in;
        return (const unsigned char *)c->in + (size_t)c->offsets[r] * elem;
    }
    *n = c->cols;
    return (const unsigned char *)c->in + r * c->ld * elem;
}

/* Writes row r's answer: the element at `index` of `row`, or the empty answer (n == 0), or a
 * float row of NaNs only under IGNORE (best key the bottom): its first element and -1. */
YAMR__CPU_INLINE void put(const yamr__gpu_batch *c, size_t elem, size_t r,
                          const unsigned char *row, size_t n, int is_float, int bottom,
                          size_t index)
{
    uint64_t bits = 0;
    int64_t at = (int64_t)index;
    if (n == 0) {
        bits = yamr__empty_value_bits(c->dtype);
        at = -1;
    } else {
        memcpy(&bits, row + index * elem, elem); /* little-endian */
        if (is_float && bottom) at = -1;
    }
    memcpy((unsigned char *)c->values + r * elem, &bits, elem);
    if (c->second) ((int64_t *)c->second)[r] = at;
}

/* Rows [begin, end) of the batch, dtype t (a constant inside each instruction set's copy).
 * Target: the instruction set of the copy where its functions need one; FloatRow and KeyRow: its
 * row functions (the vector extensions' or AVX-512's); Small: whether it has SmallFloatRow and
 * SmallKeyRow for rows shorter than the lanes. */
#define YAMR__CPU_DEFINE_SHORT_ROWS(W, Key, Suffix, Target, FloatRow, KeyRow, Small,            \
                                    SmallFloatRow, SmallKeyRow, Groups)                       \
    Target YAMR__CPU_INLINE void short_rows##W##Suffix(yamr__cpu_isa isa, yamr_dtype t,        \
                                                       const yamr__gpu_batch *c, size_t begin, \
                                                       size_t end, int stream)                 \
    {                                                                                          \
        const size_t elem = sizeof(Key);                                                       \
        const int is_float = yamr__dtype_is_float(t);                                          \
        const Key flip = c->is_min ? (Key)~(Key)0 : 0;                                         \
        const Key nan_key = is_float && !c->nan_ignore ? (Key)~(Key)0 : 0;                     \
        const Key sign = c->is_min ? (Key)((Key)1 << (8 * sizeof(Key) - 1)) : 0;               \
        (void)sign;                                                                            \
        (void)stream;                                                                          \
        size_t r = Groups(t, c, begin, end, stream);                                           \
        /* Matrix rows under a quarter of the lanes: many rows at a time (with Small, longer   \
         * ones are a row at a time). */                                                       \
        const size_t across_below = Small ? LANES##W / 4 : LANES##W;                           \
        if (c->kind != YAMR__BATCH_SEGMENTS && c->cols > 0 && c->cols < across_below)          \
            for (; end - r >= LANES##W; r += LANES##W) {                                       \
                Key best[LANES##W];                                                            \
                Key at[LANES##W];                                                           \
                const unsigned char *first = (const unsigned char *)c->in + r * c->ld * elem;  \
                across##W(t, flip, nan_key, first, c->ld, c->cols, best, at);                  \
                for (int j = 0; j < LANES##W; ++j)                                             \
                    put(c, elem, r + (size_t)j, first + (size_t)j * c->ld * elem, c->cols,     \
                        is_float, best[j] == 0, at[j]);                                        \
            }                                                                                  \
        for (; r < end; ++r) {                                                                 \
            size_t n;                                                                          \
            const unsigned char *row = short_row_at(c, elem, r, &n);                           \
            if (n == 0) {                                                                      \
                put(c, elem, r, row, 0, is_float, 0, 0);                                       \
            } else if (n <= YAMR__CPU_SHORT_ROW) {                                             \
                /* rows shorter than a vector take the masked forms */                         \
                const int small = Small && n < LANES##W;                                       \
                size_t index;                                                                  \
                if (small ? SmallFloatRow(t, sign, row, n, &index)                             \
                          : FloatRow(t, sign, row, n, &index)) {                               \
                    put(c, elem, r, row, n, is_float, 0, index);                               \
                    continue;                                                                  \
                }                                                                              \
                Key key;                                                                       \
                index = small ? SmallKeyRow(t, flip, nan_key, row, n, &key)                    \
                              : KeyRow(t, flip, nan_key, row, n, &key);                        \
                put(c, elem, r, row, n, is_float, key == 0, index);                            \
            } else {                                                                           \
                yamr__cpu_best best[2];                                                        \
                yamr__cpu_scan(isa, t, 1, c->is_min, c->nan_ignore, row, n, best);             \
                put(c, elem, r, row, n, is_float, best[0].key == YAMR_KEY_BOTTOM,              \
                    best[0].index);                                                            \
            }                                                                                  \
        }                                                                                      \
    }

/* Every dtype: a switch to constants, so that each dtype gets its own loops. */
#define YAMR__CPU_DEFINE_SHORT_ROWS_ANY(Suffix, Target)                                        \
    Target YAMR__CPU_INLINE void short_rows_any##Suffix(yamr__cpu_isa isa,                     \
                                                        const yamr__gpu_batch *c,              \
                                                        size_t begin, size_t end, int stream) \
    {                                                                                          \
        switch (c->dtype) {                                                                    \
        case YAMR_DTYPE_F32: short_rows32##Suffix(isa, YAMR_DTYPE_F32, c, begin, end, stream); break;  \
        case YAMR_DTYPE_I32: short_rows32##Suffix(isa, YAMR_DTYPE_I32, c, begin, end, stream); break;  \
        case YAMR_DTYPE_U32: short_rows32##Suffix(isa, YAMR_DTYPE_U32, c, begin, end, stream); break;  \
        case YAMR_DTYPE_F16: short_rows16##Suffix(isa, YAMR_DTYPE_F16, c, begin, end, stream); break;  \
        case YAMR_DTYPE_BF16: short_rows16##Suffix(isa, YAMR_DTYPE_BF16, c, begin, end, stream); break; \
        case YAMR_DTYPE_F64: short_rows64##Suffix(isa, YAMR_DTYPE_F64, c, begin, end, stream); break;  \
        case YAMR_DTYPE_I64: short_rows64##Suffix(isa, YAMR_DTYPE_I64, c, begin, end, stream); break;  \
        }                                                                                      \
    }

/* No groups: rows start where they start. */
YAMR__CPU_INLINE size_t no_groups(yamr_dtype t, const yamr__gpu_batch *c, size_t r, size_t end,
                                  int stream)
{
    (void)t, (void)c, (void)end, (void)stream;
    return r;
}

/* The baseline's lanes are 16 bytes, AVX2's 32 (YAMR__CPU_DEFINE_LANES). */
YAMR__CPU_DEFINE_SHORT_ROWS(16, uint16_t, _portable, , float_row16, row16_16, 0, float_row16,
                            row16_16, no_groups)
YAMR__CPU_DEFINE_SHORT_ROWS(32, uint32_t, _portable, , float_row32_16, row32_16, 0,
                            float_row32_16, row32_16, no_groups)
YAMR__CPU_DEFINE_SHORT_ROWS(64, uint64_t, _portable, , float_row64_16, row64_16, 0,
                            float_row64_16, row64_16, no_groups)
YAMR__CPU_DEFINE_SHORT_ROWS_ANY(_portable, )

#if YAMR__CPU_HAVE_AVX2
#define YAMR__CPU_TARGET_AVX2 __attribute__((target("avx2")))
YAMR__CPU_DEFINE_SHORT_ROWS(16, uint16_t, _avx2, YAMR__CPU_TARGET_AVX2, float_row16, row16_32, 0,
                            float_row16, row16_32, no_groups)
YAMR__CPU_DEFINE_SHORT_ROWS(32, uint32_t, _avx2, YAMR__CPU_TARGET_AVX2, float_row32_32, row32_32,
                            0, float_row32_32, row32_32, no_groups)
YAMR__CPU_DEFINE_SHORT_ROWS(64, uint64_t, _avx2, YAMR__CPU_TARGET_AVX2, float_row64_32, row64_32,
                            0, float_row64_32, row64_32, no_groups)
YAMR__CPU_DEFINE_SHORT_ROWS_ANY(_avx2, YAMR__CPU_TARGET_AVX2)
#endif

#if YAMR__CPU_HAVE_AVX512
YAMR__CPU_DEFINE_SHORT_ROWS(16, uint16_t, _avx512, YAMR__CPU_TARGET_AVX512, float_row16,
                            key_row16_avx512, 1, small_float_row16_avx512, small_key_row16_avx512,
                            no_groups)
YAMR__CPU_DEFINE_SHORT_ROWS(32, uint32_t, _avx512, YAMR__CPU_TARGET_AVX512, float_chunks32_avx512,
                            key_row32_avx512, 1, small_float_row32_avx512, small_key_row32_avx512,
                            groups32_avx512)
YAMR__CPU_DEFINE_SHORT_ROWS(64, uint64_t, _avx512, YAMR__CPU_TARGET_AVX512, float_chunks64_avx512,
                            key_row64_avx512, 1, small_float_row64_avx512, small_key_row64_avx512,
                            no_groups)
YAMR__CPU_DEFINE_SHORT_ROWS_ANY(_avx512, YAMR__CPU_TARGET_AVX512)
#endif

static void short_rows_baseline(yamr__cpu_isa isa, const yamr__gpu_batch *c, size_t begin,
                                size_t end, int stream)
{
    short_rows_any_portable(isa, c, begin, end, stream);
}

#if YAMR__CPU_HAVE_AVX2
YAMR__CPU_TARGET_AVX2 static void short_rows_avx2(yamr__cpu_isa isa, const yamr__gpu_batch *c,
                                                  size_t begin, size_t end, int stream)
{
    short_rows_any_avx2(isa, c, begin, end, stream);
}
#endif

#if YAMR__CPU_HAVE_AVX512
__attribute__((target("avx512f,avx512bw,avx512vl"))) static void
short_rows_avx512(yamr__cpu_isa isa, const yamr__gpu_batch *c, size_t begin, size_t end,
                  int stream)
{
    short_rows_any_avx512(isa, c, begin, end, stream);
}
#endif

void yamr__cpu_short_rows(yamr__cpu_isa isa, const yamr__gpu_batch *c, size_t begin, size_t end,
                          int stream)
{
#if YAMR__CPU_HAVE_AVX512
    if (isa == YAMR__CPU_ISA_AVX512) {
        short_rows_avx512(isa, c, begin, end, stream);
        return;
    }
#endif
#if YAMR__CPU_HAVE_AVX2
    if (isa == YAMR__CPU_ISA_AVX2) {
        short_rows_avx2(isa, c, begin, end, stream);
        return;
    }
#endif
    short_rows_baseline(isa, c, begin, end, stream);
}
