/* SPDX-License-Identifier: MIT */
/*
 * Softmax statistics of one row on the CPU, block by block: the block's largest element (float
 * compares; the scan of cpu_scan.c for a block with a NaN, so the NaN policy comes from the
 * keys), then the sum of exp(x - max) over the block while it is in L1, with an exp written so
 * that compilers vectorize it (libm's exp is a call per element). f32 terms in float, f64 in
 * double, sums in double; compiled once per instruction set.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "cpu_backend.h"

/* The polynomials of the exps below, highest degree first (Horner): the Taylor series of exp to
 * r^13 / 13! for double; Cephes' expf for float, whose last step is p r^2 + r + 1. */
enum { EXP_TAYLOR_TERMS = 14, EXPF_CEPHES_TERMS = 6 };
static const double exp_taylor[EXP_TAYLOR_TERMS] = {
    1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0,
    1.0 / 40320.0,      1.0 / 5040.0,      1.0 / 720.0,      1.0 / 120.0,     1.0 / 24.0,
    1.0 / 6.0,          0.5,               1.0,              1.0};
static const float expf_cephes[EXPF_CEPHES_TERMS] = {1.9875691500e-4f, 1.3981999507e-3f,
                                                     8.3334519073e-3f, 4.1665795894e-2f,
                                                     1.6666665459e-1f, 5.0000001201e-1f};

/* exp(d) for d <= 0 or NaN (a NaN comes back NaN), within a few ulp: d = k ln2 + r with
 * |r| <= ln2 / 2, a degree-13 Taylor polynomial in r (its first omitted term is below 2^-56 of
 * the result), and 2^k from the exponent bits. Below -709 k is -1023, whose exponent bits make
 * 2^k exactly 0: next to the maximum's term 1 such a term is far below double's rounding, and
 * -inf lands there too. d == 0 gives exactly 1 (k = 0, r = 0). No select on the result, so that
 * the vector loop has no masks. */
YAMR__CPU_INLINE double exp_nonpositive(double d)
{
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    const double x = d < -709.0 ? -709.0 : d;
    /* k = round(x / ln2): adding 1.5 * 2^52 rounds to an integer and leaves k in the low bits
     * (no floor(), which is a libm call on the baseline target). */
    const double shifted = x * 1.44269504088896338700 + 6755399441055744.0;
    const double k = shifted - 6755399441055744.0;
    const double r = (x - k * ln2_hi) - k * ln2_lo;
    double p = exp_taylor[0];
    for (int j = 1; j < EXP_TAYLOR_TERMS; ++j) p = p * r + exp_taylor[j];
    uint64_t k_bits;
    memcpy(&k_bits, &shifted, sizeof k_bits);
    const uint64_t scale_bits = (k_bits + 1023u) << 52; /* k in [-1023, 0]; -1023: 0.0 */
    double scale;
    memcpy(&scale, &scale_bits, sizeof scale);
    return p * scale;
}

/* The same in float for f32 rows (yamr.h: float arithmetic, as on the GPU): Cephes' expf
 * reduction and degree-7 polynomial (about 1 ulp on |r| <= ln2 / 2), twice the lanes of double
 * and half the terms. Below -88 k is -127 and 2^k exactly 0. */
YAMR__CPU_INLINE float expf_nonpositive(float d)
{
    const float x = d < -88.0f ? -88.0f : d;
    const float shifted = x * 1.44269504088896341f + 12582912.0f; /* 1.5 * 2^23 */
    const float k = shifted - 12582912.0f;
    const float r = (x - k * 0.693359375f) - k * -2.12194440e-4f; /* ln2 in two parts */
    float p = expf_cephes[0];
    for (int j = 1; j < EXPF_CEPHES_TERMS; ++j) p = p * r + expf_cephes[j];
    p = p * (r * r) + r + 1.0f;
    uint32_t k_bits;
    memcpy(&k_bits, &shifted, sizeof k_bits);
    const uint32_t scale_bits = (k_bits + 127u) << 23; /* k in [-127, 0]; -127: 0.0f */
    float scale;
    memcpy(&scale, &scale_bits, sizeof scale);
    return p * scale;
}

YAMR__CPU_INLINE double element(yamr_dtype t, const void *row, size_t i)
{
    return t == YAMR_DTYPE_F64 ? ((const double *)row)[i] : (double)((const float *)row)[i];
}

/* The largest element of a block by float compares, into *hi; 0 (the caller takes the scan of
 * cpu_scan.c) when the block holds a NaN or its largest is the lowest finite value: OpenMP
 * starts each lane of a max there, not at -inf, so a block of -inf only comes back as it. */
#define YAMR__SOFTMAX_DEFINE_BLOCK_MAX(Suffix, Float, LOWEST)                                 \
    YAMR__CPU_INLINE int block_max_##Suffix(const Float *x, size_t n, double *hi)              \
    {                                                                                          \
        Float m = -INFINITY;                                                                   \
        int nan = 0;                                                                           \
        _Pragma("omp simd reduction(max : m) reduction(| : nan)")                              \
        for (size_t i = 0; i < n; ++i) {                                                       \
            m = x[i] > m ? x[i] : m;                                                           \
            nan |= x[i] != x[i];                                                               \
        }                                                                                      \
        *hi = m;                                                                               \
        return !nan && m != -(LOWEST);                                                         \
    }
YAMR__SOFTMAX_DEFINE_BLOCK_MAX(f32, float, FLT_MAX)
YAMR__SOFTMAX_DEFINE_BLOCK_MAX(f64, double, DBL_MAX)

#if defined(__GNUC__) || defined(__clang__)
/*
 * The exp loops as GCC/Clang vectors of 64 bytes (one AVX-512 register, two AVX2 or four SSE2
 * ones: the compiler splits them). GCC 12 vectorizes no loop that turns float terms into a
 * double sum, `omp simd` or not, and without that the terms are scalar calls of the inlined exp.
 */
#define YAMR__SOFTMAX_VECTORS 1
/* Vectors pass only between inlined functions: no ABI to warn about. */
#pragma GCC diagnostic ignored "-Wpsabi"
typedef float vf32 __attribute__((vector_size(64)));
typedef float vf32_half __attribute__((vector_size(32)));
typedef uint32_t vu32 __attribute__((vector_size(64)));
typedef double vf64 __attribute__((vector_size(64)));
typedef uint64_t vu64 __attribute__((vector_size(64)));
enum { PER32 = 16, PER64 = 8 };
/* f32 terms summed in float for this many elements (PER32 / 2 to a lane), then in double: a
 * float sum of 8 terms rounds by at most 8 ulp of float, 5e-7, well under yamr.h's 1e-5. */
#define YAMR__SOFTMAX_FLOAT_RUN (16 * PER32)

/* expf_nonpositive on a vector; a NaN lane comes back NaN. */
YAMR__CPU_INLINE vf32 vexpf_nonpositive(vf32 d)
{
    const vu32 low = (vu32)(d < -88.0f);
    const vf32 x = (vf32)(((vu32)d & ~low) | (low & 0xc2b00000u)); /* -88.0f */
    const vf32 shifted = x * 1.44269504088896341f + 12582912.0f;
    const vf32 k = shifted - 12582912.0f;
    const vf32 r = (x - k * 0.693359375f) - k * -2.12194440e-4f;
    vf32 p = r * expf_cephes[0] + expf_cephes[1];
    for (int j = 2; j < EXPF_CEPHES_TERMS; ++j) p = p * r + expf_cephes[j];
    p = p * (r * r) + r + 1.0f;
    return p * (vf32)(((vu32)shifted + 127u) << 23);
}

/* exp_nonpositive on a vector. */
YAMR__CPU_INLINE vf64 vexp_nonpositive(vf64 d)
{
    const vu64 low = (vu64)(d < -709.0);
    const vf64 x = (vf64)(((vu64)d & ~low) | (low & 0xc086280000000000u)); /* -709.0 */
    const vf64 shifted = x * 1.44269504088896338700 + 6755399441055744.0;
    const vf64 k = shifted - 6755399441055744.0;
    const vf64 r = (x - k * 6.93147180369123816490e-01) - k * 1.90821492927058770002e-10;
    vf64 p = r * exp_taylor[0] + exp_taylor[1];
    for (int j = 2; j < EXP_TAYLOR_TERMS; ++j) p = p * r + exp_taylor[j];
    return p * (vf64)(((vu64)shifted + 1023u) << 52);
}

/* exp(x - m) of one vector of f32 elements, 0 for a NaN x when `skip_nan`. */
YAMR__CPU_INLINE vf32 vterm_f32(const float *x, vf32 m, int skip_nan)
{
    vf32 v;
    memcpy(&v, x, sizeof v);
    const vf32 e = vexpf_nonpositive(v - m);
    return skip_nan ? (vf32)((vu32)e & (vu32)(v == v)) : e;
}

YAMR__CPU_INLINE vf64 vterm_f64(const double *x, vf64 m, int skip_nan)
{
    vf64 v;
    memcpy(&v, x, sizeof v);
    const vf64 e = vexp_nonpositive(v - m);
    return skip_nan ? (vf64)((vu64)e & (vu64)(v == v)) : e;
}

/* sum of exp(x - m) over a block, m finite and at least every x; with `skip_nan`, NaN elements
 * are dropped (else the block holds none). f32: the terms in float (yamr.h: float arithmetic, as
 * on the GPU), their sums in double in runs of YAMR__SOFTMAX_FLOAT_RUN. Lane sums are added in
 * a fixed order: the same for any thread count. The tail is read into a vector of -inf, whose
 * terms are 0. */
YAMR__CPU_INLINE double sum_exp_f32(const float *x, size_t n, double m, int skip_nan)
{
    vf32 mv = {0};
    mv += (float)m; /* an element: exact */
    vf64 sum0 = {0}, sum1 = {0};
    size_t i = 0;
    for (;;) {
        const size_t run = n - i < YAMR__SOFTMAX_FLOAT_RUN ? n - i : YAMR__SOFTMAX_FLOAT_RUN;
        if (run == 0) break;
        vf32 acc0 = {0}, acc1 = {0};
        size_t j = 0;
        for (; run - j >= 2 * PER32; j += 2 * PER32) {
            acc0 += vterm_f32(x + i + j, mv, skip_nan);
            acc1 += vterm_f32(x + i + j + PER32, mv, skip_nan);
        }
        if (run - j >= PER32) {
            acc0 += vterm_f32(x + i + j, mv, skip_nan);
            j += PER32;
        }
        if (run > j) {
            float tail[PER32];
            for (size_t l = 0; l < PER32; ++l) tail[l] = l < run - j ? x[i + j + l] : -INFINITY;
            acc1 += vterm_f32(tail, mv, skip_nan);
        }
        acc0 += acc1;
        vf32_half lo, hi;
        memcpy(&lo, &acc0, sizeof lo);
        memcpy(&hi, (const unsigned char *)&acc0 + sizeof lo, sizeof hi);
        sum0 += __builtin_convertvector(lo, vf64);
        sum1 += __builtin_convertvector(hi, vf64);
        i += run;
    }
    sum0 += sum1;
    double s = 0;
    for (int l = 0; l < PER64; ++l) s += sum0[l];
    return s;
}

YAMR__CPU_INLINE double sum_exp_f64(const double *x, size_t n, double m, int skip_nan)
{
    vf64 mv = {0};
    mv += m;
    vf64 acc0 = {0}, acc1 = {0};
    size_t i = 0;
    for (; n - i >= 2 * PER64; i += 2 * PER64) {
        acc0 += vterm_f64(x + i, mv, skip_nan);
        acc1 += vterm_f64(x + i + PER64, mv, skip_nan);
    }
    if (n - i >= PER64) {
        acc0 += vterm_f64(x + i, mv, skip_nan);
        i += PER64;
    }
    if (n > i) {
        double tail[PER64];
        for (size_t l = 0; l < PER64; ++l) tail[l] = l < n - i ? x[i + l] : -INFINITY;
        acc1 += vterm_f64(tail, mv, skip_nan);
    }
    acc0 += acc1;
    double s = 0;
    for (int l = 0; l < PER64; ++l) s += acc0[l];
    return s;
}
#else
/* Without vector extensions: one term at a time, in the same arithmetic. */
YAMR__CPU_INLINE double sum_exp_f32(const float *x, size_t n, double m, int skip_nan)
{
    const float mf = (float)m;
    double s = 0;
    for (size_t i = 0; i < n; ++i)
        if (!skip_nan || x[i] == x[i]) s += expf_nonpositive(x[i] - mf);
    return s;
}

YAMR__CPU_INLINE double sum_exp_f64(const double *x, size_t n, double m, int skip_nan)
{
    double s = 0;
    for (size_t i = 0; i < n; ++i)
        if (!skip_nan || x[i] == x[i]) s += exp_nonpositive(x[i] - m);
    return s;
}
#endif

#if YAMR__CPU_HAVE_AVX2
#include <immintrin.h>

#define YAMR__SOFTMAX_TARGET_AVX2 __attribute__((target("avx2")))

/*
 * sum_exp_f32 and sum_exp_f64 in AVX2 intrinsics: the same arithmetic as the vector extensions'
 * (multiplies and adds, no FMA), lanes and order of sums, each logical vector of 64 bytes as
 * two of 32, so the sums equal the baseline copy's bit for bit. GCC keeps the extensions' 64-byte
 * vectors in memory on AVX2 and compares them one element at a time: 1024 x 4096 f32 took 16.3
 * ms on one core, 1.0 GB/s.
 */
/* vexpf_nonpositive on 8 lanes (the clamp's max keeps a NaN d: max returns its second operand). */
YAMR__SOFTMAX_TARGET_AVX2 YAMR__CPU_INLINE __m256 exp8_avx2(__m256 d)
{
    const __m256 x = _mm256_max_ps(_mm256_set1_ps(-88.0f), d);
    const __m256 shifted = _mm256_add_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                         _mm256_set1_ps(12582912.0f));
    const __m256 k = _mm256_sub_ps(shifted, _mm256_set1_ps(12582912.0f));
    const __m256 r = _mm256_sub_ps(_mm256_sub_ps(x, _mm256_mul_ps(k, _mm256_set1_ps(0.693359375f))),
                                   _mm256_mul_ps(k, _mm256_set1_ps(-2.12194440e-4f)));
    __m256 p = _mm256_add_ps(_mm256_mul_ps(r, _mm256_set1_ps(expf_cephes[0])),
                             _mm256_set1_ps(expf_cephes[1]));
    for (int j = 2; j < EXPF_CEPHES_TERMS; ++j)
        p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(expf_cephes[j]));
    p = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(p, _mm256_mul_ps(r, r)), r),
                      _mm256_set1_ps(1.0f));
    const __m256i scale =
        _mm256_slli_epi32(_mm256_add_epi32(_mm256_castps_si256(shifted), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(scale));
}

/* vexp_nonpositive on 4 lanes. */
YAMR__SOFTMAX_TARGET_AVX2 YAMR__CPU_INLINE __m256d exp4_avx2(__m256d d)
{
    const __m256d x = _mm256_max_pd(_mm256_set1_pd(-709.0), d);
    const __m256d shifted = _mm256_add_pd(_mm256_mul_pd(x, _mm256_set1_pd(1.44269504088896338700)),
                                          _mm256_set1_pd(6755399441055744.0));
    const __m256d k = _mm256_sub_pd(shifted, _mm256_set1_pd(6755399441055744.0));
    const __m256d r =
        _mm256_sub_pd(_mm256_sub_pd(x, _mm256_mul_pd(k, _mm256_set1_pd(6.93147180369123816490e-01))),
                      _mm256_mul_pd(k, _mm256_set1_pd(1.90821492927058770002e-10)));
    __m256d p = _mm256_add_pd(_mm256_mul_pd(r, _mm256_set1_pd(exp_taylor[0])),
                              _mm256_set1_pd(exp_taylor[1]));
    for (int j = 2; j < EXP_TAYLOR_TERMS; ++j)
        p = _mm256_add_pd(_mm256_mul_pd(p, r), _mm256_set1_pd(exp_taylor[j]));
    const __m256i scale = _mm256_slli_epi64(
        _mm256_add_epi64(_mm256_castpd_si256(shifted), _mm256_set1_epi64x(1023)), 52);
    return _mm256_mul_pd(p, _mm256_castsi256_pd(scale));
}

/* vterm_f32 on 8 lanes: exp(x - m), 0 for a NaN x when `skip_nan`. */
YAMR__SOFTMAX_TARGET_AVX2 YAMR__CPU_INLINE __m256 term8_avx2(__m256 v, __m256 m, int skip_nan)
{
    const __m256 e = exp8_avx2(_mm256_sub_ps(v, m));
    return skip_nan ? _mm256_and_ps(e, _mm256_cmp_ps(v, v, _CMP_ORD_Q)) : e;
}

YAMR__SOFTMAX_TARGET_AVX2 YAMR__CPU_INLINE __m256d term4_avx2(__m256d v, __m256d m, int skip_nan)
{
    const __m256d e = exp4_avx2(_mm256_sub_pd(v, m));
    return skip_nan ? _mm256_and_pd(e, _mm256_cmp_pd(v, v, _CMP_ORD_Q)) : e;
}

/* 16 f32 lanes (PER32) as two halves, 8 f64 lanes (PER64) likewise. */
typedef struct {
    __m256 lo, hi;
} yamr__f32x16;
typedef struct {
    __m256d lo, hi;
} yamr__f64x8;

YAMR__SOFTMAX_TARGET_AVX2 YAMR__CPU_INLINE yamr__f32x16 term16_avx2(const float *x, __m256 m,
                                                                   int skip_nan)
{
    yamr__f32x16 t;
    t.lo = term8_avx2(_mm256_loadu_ps(x), m, skip_nan);
    t.hi = term8_avx2(_mm256_loadu_ps(x + 8), m, skip_nan);
    return t;
}

YAMR__SOFTMAX_TARGET_AVX2 YAMR__CPU_INLINE void add16(yamr__f32x16 *acc, yamr__f32x16 t)
{
    acc->lo = _mm256_add_ps(acc->lo, t.lo);
    acc->hi = _mm256_add_ps(acc->hi, t.hi);
}

YAMR__SOFTMAX_TARGET_AVX2 YAMR__CPU_INLINE yamr__f64x8 term8d_avx2(const double *x, __m256d m,
                                                                  int skip_nan)
{
    yamr__f64x8 t;
    t.lo = term4_avx2(_mm256_loadu_pd(x), m, skip_nan);
    t.hi = term4_avx2(_mm256_loadu_pd(x + 4), m, skip_nan);
    return t;
}

YAMR__SOFTMAX_TARGET_AVX2 YAMR__CPU_INLINE void add8d(yamr__f64x8 *acc, yamr__f64x8 t)
{
    acc->lo = _mm256_add_pd(acc->lo, t.lo);
    acc->hi = _mm256_add_pd(acc->hi, t.hi);
}

/* The sum of the 8 lanes of `acc`, lane 0 first (the extensions' loop). */
YAMR__SOFTMAX_TARGET_AVX2 YAMR__CPU_INLINE double lanes_sum(yamr__f64x8 acc)
{
    double lanes[PER64], s = 0;
    _mm256_storeu_pd(lanes, acc.lo);
    _mm256_storeu_pd(lanes + 4, acc.hi);
    for (int l = 0; l < PER64; ++l) s += lanes[l];
    return s;
}

YAMR__SOFTMAX_TARGET_AVX2 YAMR__CPU_INLINE double sum_exp_f32_avx2(const float *x, size_t n,
                                                                  double m, int skip_nan)
{
    const __m256 mv = _mm256_set1_ps((float)m); /* an element: exact */
    const __m256d zero = _mm256_setzero_pd();
    yamr__f64x8 sum0 = {zero, zero}, sum1 = sum0;
    size_t i = 0;
    for (;;) {
        const size_t run = n - i < YAMR__SOFTMAX_FLOAT_RUN ? n - i : YAMR__SOFTMAX_FLOAT_RUN;
        if (run == 0) break;
        yamr__f32x16 acc0 = {_mm256_setzero_ps(), _mm256_setzero_ps()}, acc1 = acc0;
        size_t j = 0;
        for (; run - j >= 2 * PER32; j += 2 * PER32) {
            add16(&acc0, term16_avx2(x + i + j, mv, skip_nan));
            add16(&acc1, term16_avx2(x + i + j + PER32, mv, skip_nan));
        }
        if (run - j >= PER32) {
            add16(&acc0, term16_avx2(x + i + j, mv, skip_nan));
            j += PER32;
        }
        if (run > j) {
            float tail[PER32];
            for (size_t l = 0; l < PER32; ++l) tail[l] = l < run - j ? x[i + j + l] : -INFINITY;
            add16(&acc1, term16_avx2(tail, mv, skip_nan));
        }
        add16(&acc0, acc1);
        /* lanes 0-7 to sum0, 8-15 to sum1, in double */
        sum0.lo = _mm256_add_pd(sum0.lo, _mm256_cvtps_pd(_mm256_castps256_ps128(acc0.lo)));
        sum0.hi = _mm256_add_pd(sum0.hi, _mm256_cvtps_pd(_mm256_extractf128_ps(acc0.lo, 1)));
        sum1.lo = _mm256_add_pd(sum1.lo, _mm256_cvtps_pd(_mm256_castps256_ps128(acc0.hi)));
        sum1.hi = _mm256_add_pd(sum1.hi, _mm256_cvtps_pd(_mm256_extractf128_ps(acc0.hi, 1)));
        i += run;
    }
    add8d(&sum0, sum1);
    return lanes_sum(sum0);
}

YAMR__SOFTMAX_TARGET_AVX2 YAMR__CPU_INLINE double sum_exp_f64_avx2(const double *x, size_t n,
                                                                  double m, int skip_nan)
{
    const __m256d mv = _mm256_set1_pd(m), zero = _mm256_setzero_pd();
    yamr__f64x8 acc0 = {zero, zero}, acc1 = acc0;
    size_t i = 0;
    for (; n - i >= 2 * PER64; i += 2 * PER64) {
        add8d(&acc0, term8d_avx2(x + i, mv, skip_nan));
        add8d(&acc1, term8d_avx2(x + i + PER64, mv, skip_nan));
    }
    if (n - i >= PER64) {
        add8d(&acc0, term8d_avx2(x + i, mv, skip_nan));
        i += PER64;
    }
    if (n > i) {
        double tail[PER64];
        for (size_t l = 0; l < PER64; ++l) tail[l] = l < n - i ? x[i + l] : -INFINITY;
        add8d(&acc1, term8d_avx2(tail, mv, skip_nan));
    }
    add8d(&acc0, acc1);
    return lanes_sum(acc0);
}
#endif

#if YAMR__CPU_HAVE_AVX512
#include <immintrin.h>

#define YAMR__SOFTMAX_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl")))

/* block_max_f32 in AVX-512: four max chains (one would wait on vmaxps's latency), a NaN flagged
 * by an unordered compare of each pair of loads, the tail in a masked load of -inf. Starting at
 * -inf, a block of -inf only comes back as -inf with no fallback. */
YAMR__SOFTMAX_TARGET_AVX512 YAMR__CPU_INLINE int block_max_f32_avx512(const float *x, size_t n,
                                                                      double *hi)
{
    const __m512 lowest = _mm512_set1_ps(-INFINITY);
    __m512 m0 = lowest, m1 = lowest, m2 = lowest, m3 = lowest;
    __mmask16 nan = 0;
    size_t i = 0;
    for (; n - i >= 64; i += 64) {
        const __m512 v0 = _mm512_loadu_ps(x + i), v1 = _mm512_loadu_ps(x + i + 16);
        const __m512 v2 = _mm512_loadu_ps(x + i + 32), v3 = _mm512_loadu_ps(x + i + 48);
        nan |= _mm512_cmp_ps_mask(v0, v1, _CMP_UNORD_Q) | _mm512_cmp_ps_mask(v2, v3, _CMP_UNORD_Q);
        m0 = _mm512_max_ps(v0, m0); /* a NaN v leaves m: the flag has it */
        m1 = _mm512_max_ps(v1, m1);
        m2 = _mm512_max_ps(v2, m2);
        m3 = _mm512_max_ps(v3, m3);
    }
    for (; n - i >= 16; i += 16) {
        const __m512 v = _mm512_loadu_ps(x + i);
        nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
        m0 = _mm512_max_ps(v, m0);
    }
    if (i < n) {
        const __m512 v = _mm512_mask_loadu_ps(lowest, (__mmask16)((1u << (n - i)) - 1), x + i);
        nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
        m1 = _mm512_max_ps(v, m1);
    }
    *hi = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_max_ps(m0, m1), _mm512_max_ps(m2, m3)));
    return !nan;
}

/* exp(d) on 16 lanes of d = x - m <= 0, in AVX-512, in fewer instructions than
 * vexpf_nonpositive: k = round(d / ln2) by vrndscaleps; r = d - k ln2 in one FMA with ln2 in
 * one float (the FMA makes k ln2 exact, so r is off by k times ln2's rounding, 1.9e-9 |k|: 2.4e-7
 * relative at the smallest counted terms, 4e-8 at k = -20); exp(r) = 1 + r q(r) with q of degree
 * 4 fitted to the relative error on |r| <= ln2 / 2 (1.7e-7 at most in float, where Cephes' takes
 * 7 FMAs; r = 0 still gives exactly 1); 2^k by vscalefps. Lanes with d <= -86 (exp(d) < 5e-38
 * next to the maximum's term 1), -inf and NaN give 0 by the scalef's zero mask, so no clamp and
 * no denormal. */
YAMR__SOFTMAX_TARGET_AVX512 YAMR__CPU_INLINE __m512 exp16_avx512(__m512 d)
{
    const __mmask16 counted = _mm512_cmp_ps_mask(d, _mm512_set1_ps(-86.0f), _CMP_GT_OQ);
    const __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(d, _mm512_set1_ps(1.44269504088896341f)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0.693147182f), d);
    __m512 p = _mm512_fmadd_ps(r, _mm512_set1_ps(8.29031505e-3f), _mm512_set1_ps(4.18979302e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.66676357e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.99991506e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(9.99999702e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    return _mm512_maskz_scalef_ps(counted, p, k);
}

/* sum_exp_f32 in AVX-512: the same runs and order of sums; NaN elements give 0 whatever
 * skip_nan (only a row under IGNORE brings them here), the tail is a masked load of -inf. */
YAMR__SOFTMAX_TARGET_AVX512 YAMR__CPU_INLINE double sum_exp_f32_avx512(const float *x, size_t n,
                                                                      double m, int skip_nan)
{
    (void)skip_nan;
    const __m512 mv = _mm512_set1_ps((float)m); /* an element: exact */
    __m512d sum0 = _mm512_setzero_pd(), sum1 = sum0;
    size_t i = 0;
    for (;;) {
        const size_t run = n - i < YAMR__SOFTMAX_FLOAT_RUN ? n - i : YAMR__SOFTMAX_FLOAT_RUN;
        if (run == 0) break;
        __m512 acc0 = _mm512_setzero_ps(), acc1 = acc0;
        size_t j = 0;
        for (; run - j >= 2 * PER32; j += 2 * PER32) {
            acc0 = _mm512_add_ps(acc0, exp16_avx512(_mm512_sub_ps(_mm512_loadu_ps(x + i + j), mv)));
            acc1 = _mm512_add_ps(acc1, exp16_avx512(_mm512_sub_ps(_mm512_loadu_ps(x + i + j + PER32), mv)));
        }
        if (run - j >= PER32) {
            acc0 = _mm512_add_ps(acc0, exp16_avx512(_mm512_sub_ps(_mm512_loadu_ps(x + i + j), mv)));
            j += PER32;
        }
        if (run > j) {
            const __m512 v = _mm512_mask_loadu_ps(_mm512_set1_ps(-INFINITY),
                                                  (__mmask16)((1u << (run - j)) - 1), x + i + j);
            acc1 = _mm512_add_ps(acc1, exp16_avx512(_mm512_sub_ps(v, mv)));
        }
        acc0 = _mm512_add_ps(acc0, acc1);
        sum0 = _mm512_add_pd(sum0, _mm512_cvtps_pd(_mm512_castps512_ps256(acc0)));
        sum1 = _mm512_add_pd(sum1, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(acc0), 1))));
        i += run;
    }
    sum0 = _mm512_add_pd(sum0, sum1);
    double lanes[PER64], s = 0;
    _mm512_storeu_pd(lanes, sum0);
    for (int l = 0; l < PER64; ++l) s += lanes[l];
    return s;
}
#endif

/* The number of elements equal to m (an infinity) in [begin, end). */
YAMR__CPU_INLINE double count_equal(yamr_dtype t, const void *row, size_t begin, size_t end,
                                    double m)
{
    double count = 0;
    for (size_t i = begin; i < end; ++i) count += element(t, row, i) == m;
    return count;
}

/* Block by block, one read of the row: the block's largest element (float compares, or the scan
 * of cpu_scan.c when the block holds a NaN or only -inf, so the NaN policy comes from the keys);
 * a larger one rescales the running sum (s * exp(m_old - m)); then the block's terms, while it
 * is in L1. An infinite maximum counts its equals (yamr.h: +inf counts the +inf elements; a row
 * of -inf only counts them all, and finite elements later drop them, exp(-inf) being 0). */
#define YAMR__SOFTMAX_DEFINE_ROW(Suffix, Target, BlockMaxF32, SumExpF32, SumExpF64)            \
    Target YAMR__CPU_INLINE void softmax_row_any##Suffix(yamr__cpu_isa isa, yamr_dtype t,      \
                                                         int nan_ignore, const void *row,      \
                                                         size_t cols, double *row_max,         \
                                                         double *row_sum)                      \
    {                                                                                          \
        const size_t elem = yamr_dtype_size(t);                                                \
        double m = -INFINITY, s = 0;                                                           \
        for (size_t begin = 0; begin < cols; begin += YAMR__CPU_BLOCK) {                       \
            const size_t n = cols - begin < YAMR__CPU_BLOCK ? cols - begin : YAMR__CPU_BLOCK;  \
            const void *block = (const unsigned char *)row + begin * elem;                     \
            double x;                                                                          \
            const int no_nan = t == YAMR_DTYPE_F64                                             \
                                   ? block_max_f64((const double *)block, n, &x)               \
                                   : BlockMaxF32((const float *)block, n, &x);                 \
            if (!no_nan) {                                                                     \
                yamr__cpu_best best[2];                                                        \
                yamr__cpu_scan(isa, t, 1, 0, nan_ignore, block, n, best);                      \
                x = element(t, block, best[0].index);                                          \
                if (x != x) {                                                                  \
                    if (nan_ignore) continue; /* NaNs only in this block */                    \
                    *row_max = *row_sum = x;  /* a NaN: nothing changes it */                  \
                    return;                                                                    \
                }                                                                              \
            }                                                                                  \
            if (x > m) {                                                                       \
                s = isinf(x) || isinf(m) ? 0.0 : s * exp_nonpositive(m - x);                   \
                m = x;                                                                         \
            }                                                                                  \
            if (isinf(m))                                                                      \
                s += count_equal(t, block, 0, n, m);                                           \
            else if (t == YAMR_DTYPE_F64) /* a constant dtype inside: one vector loop each */  \
                s += no_nan ? SumExpF64((const double *)block, n, m, 0)                        \
                            : SumExpF64((const double *)block, n, m, 1);                       \
            else                                                                               \
                s += no_nan ? SumExpF32((const float *)block, n, m, 0)                         \
                            : SumExpF32((const float *)block, n, m, 1);                        \
        }                                                                                      \
        *row_max = s == 0 ? NAN : m; /* no element counted: NaNs only, ignored */              \
        *row_sum = s;                                                                          \
    }

YAMR__SOFTMAX_DEFINE_ROW(, , block_max_f32, sum_exp_f32, sum_exp_f64)
#if YAMR__CPU_HAVE_AVX2
YAMR__SOFTMAX_DEFINE_ROW(_avx2, YAMR__SOFTMAX_TARGET_AVX2, block_max_f32, sum_exp_f32_avx2,
                         sum_exp_f64_avx2)
#endif
#if YAMR__CPU_HAVE_AVX512
YAMR__SOFTMAX_DEFINE_ROW(_avx512, YAMR__SOFTMAX_TARGET_AVX512, block_max_f32_avx512,
                         sum_exp_f32_avx512, sum_exp_f64)
#endif

static void softmax_row_baseline(yamr__cpu_isa isa, yamr_dtype t, int nan_ignore,
                                 const void *row, size_t cols, double *row_max, double *row_sum)
{
    softmax_row_any(isa, t, nan_ignore, row, cols, row_max, row_sum);
}

#if YAMR__CPU_HAVE_AVX2
YAMR__SOFTMAX_TARGET_AVX2 static void softmax_row_avx2(yamr__cpu_isa isa, yamr_dtype t,
                                                       int nan_ignore, const void *row,
                                                       size_t cols, double *row_max,
                                                       double *row_sum)
{
    softmax_row_any_avx2(isa, t, nan_ignore, row, cols, row_max, row_sum);
}
#endif

#if YAMR__CPU_HAVE_AVX512
__attribute__((target("avx512f,avx512bw,avx512vl"))) static void
softmax_row_avx512(yamr__cpu_isa isa, yamr_dtype t, int nan_ignore, const void *row, size_t cols,
                   double *row_max, double *row_sum)
{
    softmax_row_any_avx512(isa, t, nan_ignore, row, cols, row_max, row_sum);
}
#endif

void yamr__cpu_softmax_row(yamr__cpu_isa isa, yamr_dtype t, int nan_ignore, const void *row,
                           size_t cols, double *row_max, double *row_sum)
{
#if YAMR__CPU_HAVE_AVX512
    if (isa == YAMR__CPU_ISA_AVX512) {
        softmax_row_avx512(isa, t, nan_ignore, row, cols, row_max, row_sum);
        return;
    }
#endif
#if YAMR__CPU_HAVE_AVX2
    if (isa == YAMR__CPU_ISA_AVX2) {
        softmax_row_avx2(isa, t, nan_ignore, row, cols, row_max, row_sum);
        return;
    }
#endif
    softmax_row_baseline(isa, t, nan_ignore, row, cols, row_max, row_sum);
}
