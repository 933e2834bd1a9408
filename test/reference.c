/* SPDX-License-Identifier: MIT */
#include "reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t rng_next(uint64_t *s) /* splitmix64 */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t test_seed(void)
{
    static int printed;
    const char *env = getenv("YAMR_TEST_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 0) : 20261122ull;
    if (!printed) {
        printf("test seed: %llu (set YAMR_TEST_SEED to change)\n", (unsigned long long)seed);
        printed = 1;
    }
    return seed;
}

/* Loads of a known width (the reference runs them once an element: in the ASan build a load of
 * a width known at compile time is one checked read, not a call to memcpy). */
uint64_t load_bits(yamr_dtype t, const void *in, size_t i)
{
    const unsigned char *p = (const unsigned char *)in;
    uint64_t b64;
    uint32_t b32;
    uint16_t b16;
    switch (yamr_dtype_size(t)) {
    case 8: memcpy(&b64, p + i * 8, 8); return b64;
    case 4: memcpy(&b32, p + i * 4, 4); return b32;
    case 2: memcpy(&b16, p + i * 2, 2); return b16;
    default: return 0; /* no dtype */
    }
}

static double half_to_double(uint32_t h)
{
    int sign = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return sign ? -v : v;
}

static double bf16_to_double(uint32_t h)
{
    uint32_t b = h << 16;
    float f;
    memcpy(&f, &b, 4);
    return f;
}

/* A decoded element: floats as double (exact for every float dtype), integers as int64. */
typedef struct {
    int is_nan;
    double f;
    int64_t i;
} decoded;

static decoded decode(yamr_dtype t, uint64_t b)
{
    decoded d = {0, 0.0, 0};
    float f32;
    double f64;
    uint32_t b32 = (uint32_t)b;
    switch (t) {
    case YAMR_DTYPE_F32: memcpy(&f32, &b32, 4); d.f = f32; break;
    case YAMR_DTYPE_F64: memcpy(&f64, &b, 8); d.f = f64; break;
    case YAMR_DTYPE_F16: d.f = half_to_double(b32); break;
    case YAMR_DTYPE_BF16: d.f = bf16_to_double(b32); break;
    case YAMR_DTYPE_I32: d.i = (int32_t)b32; break;
    case YAMR_DTYPE_U32: d.i = b32; break;
    case YAMR_DTYPE_I64: d.i = (int64_t)b; break;
    }
    d.is_nan = isnan(d.f);
    return d;
}

int bits_are_nan(yamr_dtype t, uint64_t bits) { return decode(t, bits).is_nan; }

/* a strictly better than b for op */
static int better(yamr_op op, yamr_dtype t, decoded a, decoded b)
{
    int is_min = op == YAMR_OP_MIN || op == YAMR_OP_ARGMIN;
    if (t == YAMR_DTYPE_I32 || t == YAMR_DTYPE_U32 || t == YAMR_DTYPE_I64)
        return is_min ? a.i < b.i : a.i > b.i;
    return is_min ? a.f < b.f : a.f > b.f;
}

ref_result ref_reduce(yamr_op op, yamr_dtype t, yamr_nan_policy p, const void *in, size_t n)
{
    ref_result r = {-1, load_bits(t, in, 0)};
    decoded best = {0, 0.0, 0};
    for (size_t i = 0; i < n; ++i) {
        decoded x = decode(t, load_bits(t, in, i));
        if (x.is_nan) {
            if (p == YAMR_NAN_IGNORE) continue;
            r.index = (int64_t)i; /* the first NaN decides */
            r.value_bits = load_bits(t, in, i);
            return r;
        }
        if (r.index < 0 || better(op, t, x, best)) {
            best = x;
            r.index = (int64_t)i;
        }
    }
    if (r.index >= 0) r.value_bits = load_bits(t, in, (size_t)r.index);
    return r;
}

/* ---- data ---- */

static const char *const pattern_names[PATTERN_COUNT] = {
    "mixed", "few_nan", "all_negative", "all_lowest", "all_nan", "signed_zeros"};

const char *pattern_name(data_pattern p) { return pattern_names[p]; }

static int is_float(yamr_dtype t)
{
    return t == YAMR_DTYPE_F32 || t == YAMR_DTYPE_F64 || t == YAMR_DTYPE_F16 ||
           t == YAMR_DTYPE_BF16;
}

int pattern_applies(data_pattern p, yamr_dtype t)
{
    return is_float(t) || (p != PATTERN_FEW_NAN && p != PATTERN_ALL_NAN);
}

/* Bits of dtype t holding the real value v (a small integer or a special); u32 takes |v|. */
static uint64_t encode(yamr_dtype t, double v)
{
    uint64_t b = 0;
    float f = (float)v;
    uint32_t u;
    switch (t) {
    case YAMR_DTYPE_F32: memcpy(&u, &f, 4); b = u; break;
    case YAMR_DTYPE_F64: memcpy(&b, &v, 8); break;
    case YAMR_DTYPE_BF16: memcpy(&u, &f, 4); b = u >> 16; break; /* exact for small values */
    case YAMR_DTYPE_F16: {
        /* values used here: NaN, +-inf, +-0, and multiples of 1/4 with |v| < 2048 */
        uint32_t sign = signbit(v) ? 0x8000u : 0;
        double a = fabs(v);
        if (isnan(v)) b = 0x7e00u;
        else if (isinf(v)) b = sign | 0x7c00u;
        else if (a == 0) b = sign;
        else {
            int e;
            double m = frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
            b = sign | (uint32_t)((e + 14) << 10) | ((uint32_t)(m * 2048.0) & 1023u);
        }
        break;
    }
    case YAMR_DTYPE_I32: b = (uint32_t)(int32_t)v; break;
    case YAMR_DTYPE_U32: b = (uint32_t)fabs(v); break;
    case YAMR_DTYPE_I64: b = (uint64_t)(int64_t)v; break;
    }
    return b;
}

static uint64_t lowest_bits(yamr_dtype t)
{
    switch (t) {
    case YAMR_DTYPE_I32: return 0x80000000u;
    case YAMR_DTYPE_U32: return 0;
    case YAMR_DTYPE_I64: return 0x8000000000000000ull;
    default: return encode(t, -INFINITY);
    }
}

static void store(yamr_dtype t, void *out, size_t i, uint64_t b)
{
    memcpy((unsigned char *)out + i * yamr_dtype_size(t), &b, yamr_dtype_size(t));
}

void fill_pattern(data_pattern p, yamr_dtype t, void *out, size_t n, uint64_t *rng)
{
    for (size_t i = 0; i < n; ++i) {
        uint64_t r = rng_next(rng);
        /* quarter steps in [-1000, 1000): many ties among n up to a few thousand */
        double v = (double)((int64_t)(r % 8000) - 4000) / 4.0;
        if (!is_float(t)) v = (double)((int64_t)(r % 2001) - 1000);
        uint64_t b = encode(t, v);
        switch (p) {
        case PATTERN_MIXED:
            if (is_float(t)) {
                unsigned pick = (unsigned)(r >> 40) % 64;
                if (pick == 0) b = encode(t, NAN);
                else if (pick == 1) b = encode(t, INFINITY);
                else if (pick == 2) b = encode(t, -INFINITY);
                else if (pick == 3) b = encode(t, -0.0);
                else if (pick == 4) b = encode(t, 0.0);
            } else if (((r >> 40) % 64) == 0) {
                b = lowest_bits(t);
            }
            break;
        case PATTERN_FEW_NAN:
            if (((r >> 40) % 97) == 0) b = encode(t, NAN);
            break;
        case PATTERN_ALL_NEGATIVE:
            b = encode(t, -(fabs(v) + 1.0));
            if (t == YAMR_DTYPE_U32) b = encode(t, fabs(v) + 1.0); /* no negatives: positives */
            break;
        case PATTERN_ALL_LOWEST: b = lowest_bits(t); break;
        case PATTERN_ALL_NAN: b = encode(t, NAN); break;
        case PATTERN_SIGNED_ZEROS: {
            unsigned pick = (unsigned)(r >> 40) % 3;
            b = encode(t, pick == 0 ? -0.0 : pick == 1 ? 0.0 : -(fabs(v) + 1.0));
            if (!is_float(t) && pick == 2 && t == YAMR_DTYPE_U32) b = encode(t, 0.0);
            break;
        }
        default: break;
        }
        store(t, out, i, b);
    }
}

void ref_softmax_row(yamr_dtype t, const void *row, size_t n, int nan_ignore, double *max_out,
                     double *sum_out)
{
    double m = -INFINITY;
    int counted = 0, nan = 0;
    for (size_t i = 0; i < n; ++i) {
        const double x = t == YAMR_DTYPE_F64 ? ((const double *)row)[i] : ((const float *)row)[i];
        if (isnan(x)) {
            nan = 1;
            continue;
        }
        counted = 1;
        if (x > m) m = x;
    }
    if (nan && !nan_ignore) {
        *max_out = *sum_out = NAN;
        return;
    }
    double s = 0;
    for (size_t i = 0; i < n; ++i) {
        const double x = t == YAMR_DTYPE_F64 ? ((const double *)row)[i] : ((const float *)row)[i];
        if (!isnan(x)) s += x == m ? 1.0 : exp(x - m);
    }
    *max_out = counted ? m : NAN;
    *sum_out = s;
}

/* ---- top-k: a stable sort of the row's positions ---- */

typedef struct {
    decoded d;
    size_t pos;
} ranked;

static yamr_op topk_op;
static yamr_dtype topk_dtype;

/* qsort's comparator: NaNs first (propagate; under ignore they are not in the array), then
 * better values, then smaller positions. */
static int topk_compare(const void *pa, const void *pb)
{
    const ranked *a = (const ranked *)pa, *b = (const ranked *)pb;
    if (a->d.is_nan != b->d.is_nan) return a->d.is_nan ? -1 : 1;
    if (!a->d.is_nan) {
        if (better(topk_op, topk_dtype, a->d, b->d)) return -1;
        if (better(topk_op, topk_dtype, b->d, a->d)) return 1;
    }
    return a->pos < b->pos ? -1 : a->pos > b->pos ? 1 : 0;
}

size_t ref_topk_order(yamr_op op, yamr_dtype t, yamr_nan_policy p, const void *in, size_t n,
                      int64_t *order)
{
    ranked *r = (ranked *)malloc((n ? n : 1) * sizeof *r);
    if (!r) return (size_t)-1;
    size_t count = 0;
    for (size_t i = 0; i < n; ++i) {
        decoded d = decode(t, load_bits(t, in, i));
        if (d.is_nan && p == YAMR_NAN_IGNORE) continue;
        r[count].d = d;
        r[count].pos = i;
        ++count;
    }
    topk_op = op;
    topk_dtype = t;
    qsort(r, count, sizeof *r, topk_compare);
    for (size_t i = 0; i < count; ++i) order[i] = (int64_t)r[i].pos;
    free(r);
    return count;
}
