/*
 * Softmax statistics of one row on the CPU, block by block: the block's largest element (the scan
 * of cpu_scan.c, so the NaN policy comes from the keys), then the sum of exp(x - max) over the
 * block while it is in L1, with an exp written so that compilers vectorize it (libm's exp is a
 * call per element). Arithmetic in double for both dtypes; compiled once per instruction set.
 */
#include <math.h>
#include <string.h>

#include "cpu_backend.h"

#if defined(__GNUC__) || defined(__clang__)
#define YAMR__CPU_INLINE static inline __attribute__((always_inline))
#else
#define YAMR__CPU_INLINE static inline
#endif

/* exp(d) for d <= 0 (NaN excluded), within a few ulp: d = k ln2 + r with |r| <= ln2 / 2, a
 * degree-13 Taylor polynomial in r (its first omitted term is below 2^-56 of the result), and
 * 2^k from the exponent bits. Below -708 the result (under 2^-1021) is taken as 0: next to the
 * maximum's term 1 it is far below double's rounding, and -inf lands there too. */
YAMR__CPU_INLINE double exp_nonpositive(double d)
{
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    const double x = d < -708.0 ? -708.0 : d;
    /* k = round(x / ln2): adding 1.5 * 2^52 rounds to an integer and leaves k in the low bits
     * (no floor(), which is a libm call on the baseline target). */
    const double shifted = x * 1.44269504088896338700 + 6755399441055744.0;
    const double k = shifted - 6755399441055744.0;
    const double r = (x - k * ln2_hi) - k * ln2_lo;
    double p = 1.0 / 6227020800.0; /* 1/13! */
    p = p * r + 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    uint64_t k_bits;
    memcpy(&k_bits, &shifted, sizeof k_bits);
    const uint64_t scale_bits = (k_bits + 1023u) << 52; /* k in [-1022, 0] */
    double scale;
    memcpy(&scale, &scale_bits, sizeof scale);
    return d < -708.0 ? 0.0 : p * scale;
}

YAMR__CPU_INLINE double element(yamr_dtype t, const void *row, size_t i)
{
    return t == YAMR_DTYPE_F64 ? ((const double *)row)[i] : (double)((const float *)row)[i];
}

/* sum over the non-NaN x of exp(x - m), m finite and the row's largest element. The simd
 * reduction lets the compiler keep one partial sum per lane (the library is built with
 * -fopenmp-simd or -fopenmp where the compiler has them); the order is fixed by the build, so a
 * row's sum does not depend on the thread count. */
YAMR__CPU_INLINE double sum_exp(yamr_dtype t, const void *row, size_t cols, double m)
{
    double s = 0;
#pragma omp simd reduction(+ : s)
    for (size_t i = 0; i < cols; ++i) {
        const double x = element(t, row, i);
        const double e = exp_nonpositive(x != x ? 0.0 : x - m); /* NaN: any d, dropped */
        s += x != x ? 0.0 : x == m ? 1.0 : e;
    }
    return s;
}

/* The number of elements equal to m (an infinity) in [begin, end). */
YAMR__CPU_INLINE double count_equal(yamr_dtype t, const void *row, size_t begin, size_t end,
                                    double m)
{
    double count = 0;
    for (size_t i = begin; i < end; ++i) count += element(t, row, i) == m;
    return count;
}

/* Block by block, one read of the row: the block's largest element from the scan; a larger one
 * rescales the running sum (s * exp(m_old - m)); then the block's terms, while it is in L1. An
 * infinite maximum counts its equals (yamr.h: +inf counts the +inf elements; a row of -inf only
 * counts them all, and finite elements later drop them, exp(-inf) being 0). */
YAMR__CPU_INLINE void softmax_row_any(yamr__cpu_isa isa, yamr_dtype t, int nan_ignore,
                                      const void *row, size_t cols, double *row_max,
                                      double *row_sum)
{
    const size_t elem = yamr_dtype_size(t);
    double m = -INFINITY, s = 0;
    for (size_t begin = 0; begin < cols; begin += YAMR__CPU_BLOCK) {
        const size_t end = cols - begin < YAMR__CPU_BLOCK ? cols : begin + YAMR__CPU_BLOCK;
        const void *block = (const unsigned char *)row + begin * elem;
        yamr__cpu_best best[2];
        yamr__cpu_scan(isa, t, 1, 0, nan_ignore, block, end - begin, best);
        const double x = element(t, block, best[0].index);
        if (x != x) {
            if (nan_ignore) continue; /* NaNs only in this block */
            *row_max = *row_sum = x;  /* a NaN: nothing changes it */
            return;
        }
        if (x > m) {
            s = isinf(x) || isinf(m) ? 0.0 : s * exp_nonpositive(m - x);
            m = x;
        }
        if (isinf(m))
            s += count_equal(t, block, 0, end - begin, m);
        else if (t == YAMR_DTYPE_F64) /* a constant dtype inside: one vector loop each */
            s += sum_exp(YAMR_DTYPE_F64, block, end - begin, m);
        else
            s += sum_exp(YAMR_DTYPE_F32, block, end - begin, m);
    }
    *row_max = s == 0 ? NAN : m; /* no element counted: NaNs only, ignored */
    *row_sum = s;
}

static void softmax_row_baseline(yamr__cpu_isa isa, yamr_dtype t, int nan_ignore,
                                 const void *row, size_t cols, double *row_max, double *row_sum)
{
    softmax_row_any(isa, t, nan_ignore, row, cols, row_max, row_sum);
}

#if YAMR__CPU_HAVE_AVX2
__attribute__((target("avx2"))) static void
softmax_row_avx2(yamr__cpu_isa isa, yamr_dtype t, int nan_ignore, const void *row, size_t cols,
                 double *row_max, double *row_sum)
{
    softmax_row_any(isa, t, nan_ignore, row, cols, row_max, row_sum);
}
#endif

#if YAMR__CPU_HAVE_AVX512
__attribute__((target("avx512f,avx512bw,avx512vl"))) static void
softmax_row_avx512(yamr__cpu_isa isa, yamr_dtype t, int nan_ignore, const void *row, size_t cols,
                   double *row_max, double *row_sum)
{
    softmax_row_any(isa, t, nan_ignore, row, cols, row_max, row_sum);
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
