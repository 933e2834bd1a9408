/* SPDX-License-Identifier: MIT */
/*
 * Top-k of each row (yamr_topk_rows): every dtype, both NaN policies, both orders, k from 1 to
 * cols, rows of 1 to 2^20 elements, against a host stable sort (reference.c); entry 0 against
 * yamr_reduce_rows(); outputs poisoned and checked untouched past the answer and on failure; a
 * table of bad arguments; plans.
 *
 * Usage: test_topk cpu | gpu [long]. `gpu` exits 77 (skipped) when there is no GPU; `gpu long`
 * runs rows of 2^31 + 4099 and 2^32 + 4099 bf16 elements (8 GiB) and exits 77 too when the
 * GPU or the host has no room for them. YAMR_TEST_MAX_N and YAMR_TEST_MIN_N leave out the rows
 * longer and shorter than that; YAMR_TEST_MAX_ROWS takes the first that many rows of a shape
 * with more.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "context.h"
#include "reference.h"
#include "yamr.h"

#define MAX_ELEMS ((size_t)3 << 19) /* input elements, any dtype */
#define MAX_OUT 65536               /* output entries (rows x k) */
#define GUARD 8                     /* poisoned entries past the answer */
#define POISON 0xa5

static int device = YAMR_DEVICE_CPU;
static yamr_context *ctx;
static unsigned char *host_in, *host_values, *host_indices;
static void *ctx_in, *ctx_values, *ctx_indices;
static int64_t *order; /* reference positions of one row */
static int64_t *row_index; /* yamr_reduce_rows() answers */
static unsigned char *row_value;
static int failures;

static void failf(const char *fmt, ...)
{
    if (++failures > 40) return;
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

static void end_test(const char *name)
{
    if (failures) printf("%s: %d failing cases\n", name, failures);
    assert_int_equal(failures, 0);
}

static int setup(void **state)
{
    (void)state;
    if (yamr_create(&ctx, device) != YAMR_SUCCESS) return -1;
    host_in = (unsigned char *)malloc(MAX_ELEMS * 8);
    host_values = (unsigned char *)malloc((MAX_OUT + GUARD) * 8);
    host_indices = (unsigned char *)malloc((MAX_OUT + GUARD) * 8);
    order = (int64_t *)malloc(MAX_ELEMS * sizeof *order);
    row_index = (int64_t *)malloc(MAX_OUT * sizeof *row_index);
    row_value = (unsigned char *)malloc(MAX_OUT * 8);
    if (!host_in || !host_values || !host_indices || !order || !row_index || !row_value) return -1;
    if (yamr_device_alloc(ctx, MAX_ELEMS * 8, &ctx_in) != YAMR_SUCCESS ||
        yamr_device_alloc(ctx, (MAX_OUT + GUARD) * 8, &ctx_values) != YAMR_SUCCESS ||
        yamr_device_alloc(ctx, (MAX_OUT + GUARD) * 8, &ctx_indices) != YAMR_SUCCESS)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    yamr_device_free(ctx, ctx_in);
    yamr_device_free(ctx, ctx_values);
    yamr_device_free(ctx, ctx_indices);
    yamr_destroy(ctx);
    free(host_in), free(host_values), free(host_indices), free(order), free(row_index);
    free(row_value);
    return 0;
}

static int is_float(yamr_dtype t)
{
    return t == YAMR_DTYPE_F32 || t == YAMR_DTYPE_F64 || t == YAMR_DTYPE_F16 ||
           t == YAMR_DTYPE_BF16;
}

static uint64_t empty_bits(yamr_dtype t)
{
    switch (t) {
    case YAMR_DTYPE_F32: return 0x7fc00000u;
    case YAMR_DTYPE_F64: return 0x7ff8000000000000ull;
    case YAMR_DTYPE_F16: return 0x7e00u;
    case YAMR_DTYPE_BF16: return 0x7fc0u;
    default: return 0;
    }
}

static void store_bits(yamr_dtype t, void *base, size_t i, uint64_t b)
{
    memcpy((unsigned char *)base + i * yamr_dtype_size(t), &b, yamr_dtype_size(t));
}

/* Poisons the first `entries` + GUARD entries of both outputs. */
static void poison_outputs(size_t entries)
{
    const size_t bytes = (entries + GUARD) * 8;
    memset(host_values, POISON, bytes);
    memset(host_indices, POISON, bytes);
    assert_int_equal(yamr_copy_to_device(ctx, ctx_values, host_values, bytes), YAMR_SUCCESS);
    assert_int_equal(yamr_copy_to_device(ctx, ctx_indices, host_indices, bytes), YAMR_SUCCESS);
}

static void fetch_outputs(size_t entries)
{
    const size_t bytes = (entries + GUARD) * 8;
    assert_int_equal(yamr_copy_to_host(ctx, host_values, ctx_values, bytes), YAMR_SUCCESS);
    assert_int_equal(yamr_copy_to_host(ctx, host_indices, ctx_indices, bytes), YAMR_SUCCESS);
}

static int untouched(const unsigned char *p, size_t from, size_t to)
{
    for (size_t i = from; i < to; ++i)
        if (p[i] != POISON) return 0;
    return 1;
}

/* ---- Data: reference.c's patterns and the sorted and constant rows of this file ---- */

enum { MODE_ASCENDING = PATTERN_COUNT, MODE_DESCENDING, MODE_ALL_EQUAL, MODE_WIDE, MODE_COUNT };

static const char *mode_name(int mode)
{
    switch (mode) {
    case MODE_ASCENDING: return "ascending";
    case MODE_DESCENDING: return "descending";
    case MODE_ALL_EQUAL: return "all_equal";
    case MODE_WIDE: return "wide";
    default: return pattern_name((data_pattern)mode);
    }
}

static int mode_applies(int mode, yamr_dtype t)
{
    return mode >= PATTERN_COUNT || pattern_applies((data_pattern)mode, t);
}

/* Bits of t for a small integer v (|v| < 2048, exact in every dtype; u32 gets v + 2048). */
static uint64_t small_bits(yamr_dtype t, int64_t v)
{
    uint64_t b = 0;
    float f = (float)v;
    double d = (double)v;
    uint32_t u;
    switch (t) {
    case YAMR_DTYPE_F32: memcpy(&u, &f, 4); b = u; break;
    case YAMR_DTYPE_F64: memcpy(&b, &d, 8); break;
    case YAMR_DTYPE_BF16: memcpy(&u, &f, 4); b = u >> 16; break;
    case YAMR_DTYPE_F16: {
        /* half: exact for integers below 2048 */
        if (v == 0) return 0;
        const uint32_t sign = v < 0 ? 0x8000u : 0;
        uint32_t a = (uint32_t)(v < 0 ? -v : v), e = 0;
        while ((a >> e) > 1) ++e;
        b = sign | ((e + 15) << 10) | (((a << 10) >> e) & 1023u);
        break;
    }
    case YAMR_DTYPE_I32: b = (uint32_t)(int32_t)v; break;
    case YAMR_DTYPE_U32: b = (uint32_t)(v + 2048); break;
    case YAMR_DTYPE_I64: b = (uint64_t)v; break;
    }
    return b;
}

static void fill_row(int mode, yamr_dtype t, void *out, size_t n, uint64_t *rng)
{
    if (mode < PATTERN_COUNT) {
        fill_pattern((data_pattern)mode, t, out, n, rng);
        return;
    }
    for (size_t i = 0; i < n; ++i) {
        uint64_t b;
        switch (mode) {
        case MODE_ASCENDING: b = small_bits(t, (int64_t)(i % 4000) / 2 - 1000); break;
        case MODE_DESCENDING: b = small_bits(t, 1000 - (int64_t)(i % 4000) / 2); break;
        case MODE_ALL_EQUAL: b = small_bits(t, 7); break;
        default: {
            /* few ties: a wide random value of the dtype, never NaN */
            const uint64_t r = rng_next(rng);
            switch (t) {
            case YAMR_DTYPE_F32: {
                const float f = (float)((double)(int64_t)(r >> 11) / 9007199254740992.0);
                uint32_t u;
                memcpy(&u, &f, 4);
                b = u;
                break;
            }
            case YAMR_DTYPE_F64: {
                const double d = (double)(int64_t)(r >> 11) / 9007199254740992.0 - 0.5;
                memcpy(&b, &d, 8);
                break;
            }
            case YAMR_DTYPE_F16:
            case YAMR_DTYPE_BF16: b = small_bits(t, (int64_t)(r % 4001) - 2000); break;
            default: b = r; break;
            }
        }
        }
        store_bits(t, out, i, b);
    }
}

/* ---- Matching a call against the reference ---- */

typedef struct {
    size_t rows, cols, ld, skew;
} shape;

/* Short, odd, around a warp and a block, ld > cols, misaligned, many rows, long rows (the
 * last ones split over threads on the CPU). */
static const shape shapes[] = {
    {1, 1, 1, 0},      {3, 2, 2, 0},       {2, 31, 33, 1},     {4, 32, 32, 0},
    {3, 33, 40, 0},    {2, 255, 255, 0},   {2, 257, 261, 3},   {5, 1000, 1003, 1},
    {64, 128, 128, 0}, {400, 100, 100, 0}, {1, 4099, 4099, 0}, {2, 70001, 70001, 0},
    /* a GPU warp's row seeded from its first loads (k <= 32 for 4 bytes), and from the whole
     * row (k 100; 2-byte elements) */
    {3, 4000, 4003, 2},
    /* a GPU warp's row of two slots (4-byte elements, k 33 to 64) seeded from its first two
     * loads: 16 KiB, the most a warp takes, and the least two slots seed from their first */
    {3, 4096, 4096, 0},
    /* a GPU block per row for 2-byte elements too (4099 of them take a warp: 16 KiB a warp) */
    {2, 12000, 12000, 0},
    /* rows of several chunks of the CPU's AVX-512 pass (cpu_topk.c), not split */
    {3, 20000, 20011, 1},
    /* the shortest row the CPU splits over 2 threads (2 ranges of 65536 or more): under ASan
     * (scripts/test.sh) the rows above it are left out (YAMR_TEST_MAX_N), not the split */
    {1, 140001, 140001, 0},
    {1, (size_t)1 << 20, (size_t)1 << 20, 0},
};

static size_t shape_elems(const shape *s) { return s->skew + (s->rows - 1) * s->ld + s->cols; }

/* The k of a shape: 1, 2, a warp, a block, cols - 1, cols (those that fit, each once); on a GPU
 * also 100, the largest list size of the warp select kernel (hip_kernels/topk.hpp: 4 slots per
 * lane) on long rows, where a block's warps merge their lists, 1000, 5 and 8, lane rows of
 * 16 lanes a row (32 on rows over 512 elements; 1 and 2 take fewer), and 64, a warp select of
 * two slots; on the CPU also 4, the largest k whose short f32 rows go in groups of rows
 * (cpu_topk.c). */
#define SHAPE_KS_MAX 11
static size_t shape_ks(size_t cols, size_t ks[SHAPE_KS_MAX])
{
    /* GPU: 1000 too, rounds of the shared list for 8-byte ranks (topk.hpp: 512 a round) */
    const int gpu = device != YAMR_DEVICE_CPU;
    const size_t want[SHAPE_KS_MAX] = {1, 2, 32, 256, cols - 1, cols, gpu ? 100 : 1,
                                       gpu ? 1000 : 1, gpu ? 5 : 4, gpu ? 8 : 1, gpu ? 64 : 1};
    size_t count = 0;
    for (int i = 0; i < SHAPE_KS_MAX; ++i) {
        if (want[i] < 1 || want[i] > cols) continue;
        int seen = 0;
        for (size_t j = 0; j < count; ++j) seen |= ks[j] == want[i];
        if (!seen) ks[count++] = want[i];
    }
    return count;
}

static uint64_t bits_at(yamr_dtype t, const void *base, size_t i) { return load_bits(t, base, i); }

/* Runs one call and checks it; the reference order of each row is computed by the caller once
 * per op direction (orders[r] for row r, counts[r] valid entries). */
static void check_call(const shape *s, yamr_dtype t, yamr_op op, yamr_nan_policy p, size_t k,
                       int async, int64_t *const *orders, const size_t *counts, const char *what)
{
    const size_t elem = yamr_dtype_size(t);
    const int with_index = op == YAMR_OP_ARGMAX || op == YAMR_OP_ARGMIN || async;
    poison_outputs(s->rows * k);
    const unsigned char *in = (const unsigned char *)ctx_in + s->skew * elem;
    const yamr_status st = (async ? yamr_topk_rows_async : yamr_topk_rows)(
        ctx, op, t, in, s->rows, s->cols, s->ld, k, ctx_values,
        with_index ? (int64_t *)ctx_indices : NULL);
    if (st != YAMR_SUCCESS) {
        failf("%s k %zu %s: %s (%s)", what, k, async ? "async" : "sync", yamr_status_string(st),
              yamr_last_error(ctx));
        return;
    }
    const size_t entries = s->rows * k;
    fetch_outputs(entries);
    if (!untouched(host_values, entries * elem, (entries + GUARD) * 8))
        failf("%s k %zu: wrote past the last value", what, k);
    if (!untouched(host_indices, with_index ? entries * 8 : 0, (entries + GUARD) * 8))
        failf("%s k %zu: wrote %s", what, k, with_index ? "past the last index" : "indices");
    yamr_plan plan;
    if (yamr_last_plan(ctx, &plan) != YAMR_SUCCESS || plan.call != YAMR_CALL_TOPK ||
        plan.k != k || plan.rows != s->rows || plan.cols != s->cols)
        failf("%s k %zu: the last plan is not this call's", what, k);
    const unsigned char *host_rows = host_in + s->skew * elem;
    for (size_t r = 0; r < s->rows; ++r) {
        const unsigned char *row = host_rows + r * s->ld * elem;
        for (size_t j = 0; j < k; ++j) {
            const size_t at = r * k + j;
            const uint64_t got = bits_at(t, host_values, at);
            int64_t got_index = 0;
            if (with_index) memcpy(&got_index, host_indices + at * 8, 8);
            const int64_t want_index = j < counts[r] ? orders[r][j] : -1;
            const uint64_t want = want_index >= 0 ? bits_at(t, row, (size_t)want_index)
                                                  : empty_bits(t);
            if (got != want || (with_index && got_index != want_index)) {
                failf("%s k %zu: row %zu entry %zu: got %#llx at %lld, want %#llx at %lld", what,
                      k, r, j, (unsigned long long)got, (long long)got_index,
                      (unsigned long long)want, (long long)want_index);
                return;
            }
        }
        /* entry 0 is what yamr_reduce_rows() gives (a NaN-only row under IGNORE: index -1 in
         * both, the value canonical in top-k and the first NaN's bits in reduce_rows) */
        if (with_index && s->rows <= MAX_OUT) {
            int64_t i0;
            memcpy(&i0, host_indices + r * k * 8, 8);
            if (i0 != row_index[r] ||
                (i0 >= 0 && bits_at(t, host_values, r * k) != bits_at(t, row_value, r)))
                failf("%s k %zu: row %zu entry 0 (%lld) is not yamr_reduce_rows()'s (%lld)",
                      what, k, r, (long long)i0, (long long)row_index[r]);
        }
    }
}

/* Every k of ks[nk] that fits and every op, of one shape, dtype, data and policy. */
static void check_shape_ks(const shape *s, yamr_dtype t, yamr_nan_policy p, const char *what,
                           const size_t *ks, size_t nk)
{
    const size_t elem = yamr_dtype_size(t);
    const unsigned char *host_rows = host_in + s->skew * elem;
    int64_t **orders = (int64_t **)malloc(s->rows * sizeof *orders);
    size_t *counts = (size_t *)malloc(s->rows * sizeof *counts);
    assert_non_null(orders);
    assert_non_null(counts);
    for (int dir = 0; dir < 2; ++dir) {
        const yamr_op index_op = dir ? YAMR_OP_ARGMIN : YAMR_OP_ARGMAX;
        /* references: every row's order, in `order` (rows x cols <= MAX_ELEMS) */
        for (size_t r = 0; r < s->rows; ++r) {
            orders[r] = order + r * s->cols;
            counts[r] = ref_topk_order(index_op, t, p, host_rows + r * s->ld * elem, s->cols,
                                       orders[r]);
            assert_true(counts[r] != (size_t)-1);
        }
        const void *in = (const unsigned char *)ctx_in + s->skew * elem;
        assert_int_equal(yamr_reduce_rows(ctx, index_op, t, in, s->rows, s->cols, s->ld,
                                          ctx_values, (int64_t *)ctx_indices),
                         YAMR_SUCCESS);
        assert_int_equal(yamr_copy_to_host(ctx, row_value, ctx_values, s->rows * elem),
                         YAMR_SUCCESS);
        assert_int_equal(yamr_copy_to_host(ctx, row_index, ctx_indices, s->rows * 8),
                         YAMR_SUCCESS);
        for (size_t ki = 0; ki < nk; ++ki) {
            if (ks[ki] > s->cols || s->rows * ks[ki] > MAX_OUT) continue;
            char w[240];
            snprintf(w, sizeof w, "%s %s", what, yamr_dtype_name(t));
            const yamr_op value_op = dir ? YAMR_OP_MIN : YAMR_OP_MAX;
            check_call(s, t, index_op, p, ks[ki], 0, orders, counts, w);
            check_call(s, t, value_op, p, ks[ki], ki == 0, orders, counts, w);
        }
    }
    free(orders);
    free(counts);
}

/* Every k of the shape (shape_ks). */
static void check_shape(const shape *s, yamr_dtype t, yamr_nan_policy p, const char *what)
{
    size_t ks[SHAPE_KS_MAX];
    const size_t nk = shape_ks(s->cols, ks);
    check_shape_ks(s, t, p, what, ks, nk);
}

/* Whether every call check_shape makes of the shape plans what one thread plans. */
static int one_thread_plan(const shape *s, yamr_dtype t)
{
    size_t ks[SHAPE_KS_MAX];
    const size_t nk = shape_ks(s->cols, ks);
    int same = 1;
    for (size_t ki = 0; ki < nk; ++ki)
        for (int op = 0; op < YAMR_OP_COUNT; ++op) {
            yamr_plan any, one;
            assert_int_equal(yamr_plan_for_topk(ctx, (yamr_op)op, t, s->rows, s->cols, ks[ki], &any),
                             YAMR_SUCCESS);
            assert_int_equal(yamr_set_cpu_threads(ctx, 1), YAMR_SUCCESS);
            assert_int_equal(yamr_plan_for_topk(ctx, (yamr_op)op, t, s->rows, s->cols, ks[ki], &one),
                             YAMR_SUCCESS);
            assert_int_equal(yamr_set_cpu_threads(ctx, 0), YAMR_SUCCESS);
            same &= memcmp(any.internal, one.internal, sizeof any.internal) == 0;
        }
    return same;
}

/* The limits the environment sets: YAMR_TEST_MAX_N leaves out rows longer than that
 * (compute-sanitizer's runs, scripts/gpu.sh, and ASan's); YAMR_TEST_MIN_N shorter
 * (topk_cpu_threads: the rows the CPU splits); YAMR_TEST_MAX_ROWS takes the first rows (the
 * sanitizer builds' topk_cpu, test/CMakeLists.txt). */
static size_t env_size(const char *name, size_t otherwise)
{
    const char *v = getenv(name);
    return v && *v ? (size_t)strtoull(v, NULL, 10) : otherwise;
}

/* Every shape of min_cols to max_cols columns (its first max_rows rows), every dtype and NaN
 * policy, every pattern (or, where !all_modes, the mixed one and all-equal), against the
 * reference. */
static void check_shapes(size_t min_cols, size_t max_cols, size_t max_rows, int all_modes,
                         uint64_t *rng_state)
{
    uint64_t rng = *rng_state;
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; ++si) {
        const shape *s = &shapes[si];
        if (s->cols > max_cols || s->cols < min_cols) continue;
        shape first_rows;
        if (s->rows > max_rows) {
            first_rows = *s;
            first_rows.rows = max_rows;
            s = &first_rows;
        }
        const size_t n = shape_elems(s);
        const int long_rows = s->cols > 5000;
        for (int t = 0; t < YAMR_DTYPE_COUNT; ++t) {
            /* long rows: a float of each width and an integer, few patterns (CPU time) */
            if (long_rows && t != YAMR_DTYPE_F32 && t != YAMR_DTYPE_I64) continue;
            for (int mode = 0; mode < MODE_COUNT; ++mode) {
                if (!mode_applies(mode, (yamr_dtype)t)) continue;
                if (!all_modes && mode != PATTERN_MIXED && mode != MODE_ALL_EQUAL) continue;
                if (long_rows && mode != PATTERN_MIXED &&
                    (t != YAMR_DTYPE_F32 || s->cols > 100000 ||
                     (mode != MODE_ASCENDING && mode != MODE_ALL_EQUAL && mode != MODE_WIDE)))
                    continue;
                const size_t elem = yamr_dtype_size((yamr_dtype)t);
                memset(host_in, 0, n * elem);
                for (size_t r = 0; r < s->rows; ++r)
                    fill_row(mode, (yamr_dtype)t, host_in + (s->skew + r * s->ld) * elem, s->cols,
                             &rng);
                assert_int_equal(yamr_copy_to_device(ctx, ctx_in, host_in, n * elem),
                                 YAMR_SUCCESS);
                for (int p = 0; p <= YAMR_NAN_IGNORE; ++p) {
                    if (!is_float((yamr_dtype)t) && p == YAMR_NAN_IGNORE && long_rows) continue;
                    assert_int_equal(yamr_set_nan_policy(ctx, (yamr_nan_policy)p), YAMR_SUCCESS);
                    char what[200];
                    snprintf(what, sizeof what, "%zux%zu ld %zu skew %zu %s nan=%s", s->rows,
                             s->cols, s->ld, s->skew, mode_name(mode),
                             p ? "ignore" : "propagate");
                    check_shape(s, (yamr_dtype)t, (yamr_nan_policy)p, what);
                    /* the long rows again on one thread: the split and the whole row agree
                     * (where the plan has more than one thread: else the same calls again) */
                    if (long_rows && device == YAMR_DEVICE_CPU && mode == PATTERN_MIXED &&
                        t == YAMR_DTYPE_F32 && !one_thread_plan(s, (yamr_dtype)t)) {
                        assert_int_equal(yamr_set_cpu_threads(ctx, 1), YAMR_SUCCESS);
                        char one[220];
                        snprintf(one, sizeof one, "%s threads=1", what);
                        check_shape(s, (yamr_dtype)t, (yamr_nan_policy)p, one);
                        assert_int_equal(yamr_set_cpu_threads(ctx, 0), YAMR_SUCCESS);
                    }
                }
            }
        }
    }
    assert_int_equal(yamr_set_nan_policy(ctx, YAMR_NAN_PROPAGATE), YAMR_SUCCESS);
    *rng_state = rng;
}

static void test_topk_matches_reference(void **state)
{
    (void)state;
    uint64_t rng = test_seed();
    check_shapes(env_size("YAMR_TEST_MIN_N", 0), env_size("YAMR_TEST_MAX_N", SIZE_MAX),
                 env_size("YAMR_TEST_MAX_ROWS", SIZE_MAX), 1, &rng);
    end_test("topk_matches_reference");
}

/* The CPU backend's other instruction sets: cpu_topk.c has a body for each, and a context runs
 * the best this CPU has, so the others run only here. Rows up to 4099 elements (several of the
 * block filter's blocks), every dtype and NaN policy, mixed and all-equal rows, in each set this
 * CPU runs. */
static void test_topk_every_isa(void **state)
{
    (void)state;
    uint64_t rng = test_seed();
    const yamr__cpu_isa best = ctx->cpu.isa;
    int ran = 0;
    for (int isa = 0; isa < YAMR__CPU_ISA_COUNT; ++isa) {
        if (isa == (int)best || !yamr__cpu_isa_runs_here((yamr__cpu_isa)isa)) continue;
        ctx->cpu.isa = (yamr__cpu_isa)isa;
        printf("  instruction set %s\n", yamr__cpu_isa_name((yamr__cpu_isa)isa));
        const size_t max_cols = env_size("YAMR_TEST_MAX_N", SIZE_MAX);
        check_shapes(env_size("YAMR_TEST_MIN_N", 0), max_cols < 4099 ? max_cols : 4099,
                     env_size("YAMR_TEST_MAX_ROWS", SIZE_MAX), 0, &rng);
        ++ran;
    }
    ctx->cpu.isa = best;
    printf("  %d instruction set(s) besides %s\n", ran, yamr__cpu_isa_name(best));
    end_test("topk_every_isa");
}

/* ---- The floor of the shared-list kernel (hip_kernels/topk.hpp) ----
 *
 * k above the warp select's slots (k > 128 on NVIDIA) on rows that one block takes, that a few
 * blocks take (each counts its own part) and that many blocks take (the whole row's counts, two
 * levels): whole rows rising and falling (ties where the dtype rounds), equal, all NaN, rising
 * with NaN and +-inf planted, rising with large values hidden between the positions that the
 * guess of the bin to refine samples (topk.hpp: cols / 4096 apart, from 0; the guess misses and
 * a second pass counts), rising with the row's largest values planted at exactly those positions
 * (the sample sees only them: the first count's cut leaves fewer keys than k, and the scan
 * starts from no floor), rising with every 64th element the row's largest value (ties spread
 * over every block's part, fewer than k in each: more candidates than the place kernel holds
 * until it raises its threshold to a bound of the first lists), wide random values; k of rounds
 * (1000: 8-byte ranks; 2048). */

enum { FLOOR_RISING, FLOOR_FALLING, FLOOR_EQUAL, FLOOR_ALL_NAN, FLOOR_PLANTED, FLOOR_HIDDEN,
       FLOOR_SAMPLED, FLOOR_TIED, FLOOR_WIDE, FLOOR_MODES };
static const char *const floor_mode_names[FLOOR_MODES] = {
    "rising", "falling", "equal", "all_nan", "planted", "hidden", "sampled", "tied", "wide"};

/* Bits of t for an integer v (|v| < 2^24; bf16 truncates, which keeps the order). */
static uint64_t integer_bits(yamr_dtype t, int64_t v)
{
    const float f = (float)v;
    const double d = (double)v;
    uint32_t u;
    uint64_t b = 0;
    switch (t) {
    case YAMR_DTYPE_F32: memcpy(&u, &f, 4); b = u; break;
    case YAMR_DTYPE_BF16: memcpy(&u, &f, 4); b = u >> 16; break;
    case YAMR_DTYPE_F64: memcpy(&b, &d, 8); break;
    default: b = (uint64_t)v; break; /* I64 */
    }
    return b;
}

static uint64_t inf_bits(yamr_dtype t, int negative)
{
    switch (t) {
    case YAMR_DTYPE_F32: return negative ? 0xff800000u : 0x7f800000u;
    case YAMR_DTYPE_BF16: return negative ? 0xff80u : 0x7f80u;
    default: return negative ? 0xfff0000000000000ull : 0x7ff0000000000000ull; /* F64 */
    }
}

static void fill_floor_row(int mode, yamr_dtype t, void *out, size_t n, uint64_t *rng)
{
    if (mode == FLOOR_EQUAL || mode == FLOOR_WIDE) {
        fill_row(mode == FLOOR_EQUAL ? MODE_ALL_EQUAL : MODE_WIDE, t, out, n, rng);
        return;
    }
    if (mode == FLOOR_ALL_NAN) {
        fill_pattern(PATTERN_ALL_NAN, t, out, n, rng);
        return;
    }
    for (size_t i = 0; i < n; ++i) {
        const int64_t v = (int64_t)i - (int64_t)(n / 2);
        store_bits(t, out, i, integer_bits(t, mode == FLOOR_FALLING ? -v : v));
    }
    if (mode == FLOOR_PLANTED && n > 9) {
        store_bits(t, out, 3, empty_bits(t));
        store_bits(t, out, n / 2, empty_bits(t));
        store_bits(t, out, n - 1, empty_bits(t));
        store_bits(t, out, 5, inf_bits(t, 0));
        store_bits(t, out, 7, inf_bits(t, 1));
        store_bits(t, out, n - 3, inf_bits(t, 1));
    }
    if (mode == FLOOR_TIED)
        for (size_t i = 5; i < n; i += 64) store_bits(t, out, i, integer_bits(t, 1000000));
    if ((mode == FLOOR_HIDDEN || mode == FLOOR_SAMPLED) && n >= 4096 * 2) {
        const size_t stride = n / 4096;
        for (size_t i = mode == FLOOR_HIDDEN ? stride / 2 : 0; i < n; i += stride)
            store_bits(t, out, i, integer_bits(t, 1000000 + (int64_t)(i % 1000)));
    }
}

static void test_topk_floor(void **state)
{
    (void)state;
    if (device == YAMR_DEVICE_CPU) {
        printf("SKIPPED: the floor is the GPU's shared-list kernel's\n");
        skip();
    }
    /* on an H100 (132 multiprocessors): 1 x 600000 is split over 9 to 73 blocks (the row's
     * counts), 2 x 300000 over 36 and 9 blocks, or 4 (each block's own part) for k 2048,
     * 150 x 4000 a block a row, 1 x 140001 over 2 blocks for k 2048 (the merge by rank, in
     * rounds of 1024) */
    const shape floor_shapes[] = {{1, 600000, 600000, 0},
                                  {2, 300000, 300011, 1},
                                  {150, 4000, 4000, 0},
                                  {1, 140001, 140001, 0}};
    const size_t ks[] = {129, 256, 1000, 2048};
    const yamr_dtype types[] = {YAMR_DTYPE_F32, YAMR_DTYPE_BF16, YAMR_DTYPE_F64, YAMR_DTYPE_I64};
    /* YAMR_TEST_MAX_N: leave out rows longer than that, as test_topk_matches_reference does */
    const char *max_env = getenv("YAMR_TEST_MAX_N");
    const size_t max_cols = max_env && *max_env ? (size_t)strtoull(max_env, NULL, 10) : SIZE_MAX;
    uint64_t rng = test_seed();
    for (size_t si = 0; si < sizeof floor_shapes / sizeof floor_shapes[0]; ++si) {
        const shape *s = &floor_shapes[si];
        const size_t n = shape_elems(s);
        if (s->cols > max_cols) continue;
        for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ++ti) {
            const yamr_dtype t = types[ti];
            if (si == 1 && t != YAMR_DTYPE_F32) continue; /* host time: the reference sorts */
            for (int mode = 0; mode < FLOOR_MODES; ++mode) {
                if (!is_float(t) && (mode == FLOOR_ALL_NAN || mode == FLOOR_PLANTED)) continue;
                const size_t elem = yamr_dtype_size(t);
                memset(host_in, 0, n * elem);
                for (size_t r = 0; r < s->rows; ++r)
                    fill_floor_row(mode, t, host_in + (s->skew + r * s->ld) * elem, s->cols, &rng);
                assert_int_equal(yamr_copy_to_device(ctx, ctx_in, host_in, n * elem),
                                 YAMR_SUCCESS);
                for (int p = 0; p <= (is_float(t) ? YAMR_NAN_IGNORE : YAMR_NAN_PROPAGATE); ++p) {
                    assert_int_equal(yamr_set_nan_policy(ctx, (yamr_nan_policy)p), YAMR_SUCCESS);
                    char what[200];
                    snprintf(what, sizeof what, "floor %zux%zu ld %zu skew %zu %s nan=%s",
                             s->rows, s->cols, s->ld, s->skew, floor_mode_names[mode],
                             p ? "ignore" : "propagate");
                    check_shape_ks(s, t, (yamr_nan_policy)p, what, ks, sizeof ks / sizeof ks[0]);
                }
            }
        }
    }
    assert_int_equal(yamr_set_nan_policy(ctx, YAMR_NAN_PROPAGATE), YAMR_SUCCESS);
    end_test("topk_floor");
}

/* ---- f32 rows of every k up to 128 (the CPU's AVX2 rows, cpu_topk.c) ----
 *
 * Every k from 1 to 128 on rows of 37, 100, 128, 1000 and 4096 f32, so that the candidates of
 * a row (about 1.25k) come in every count modulo 32 (the rank takes 32 at a time), and short
 * rows with a partial vector take k <= 4 (8 candidates at most in one vector): distinct values
 * (the rank of 32-bit keys), distinct values with one NaN, +-inf, +-FLT_MAX, -0.0, a subnormal
 * and a tie planted at random positions, and the patterns with ties, NaN and +-0.0 (the rank
 * of 64-bit words), both NaN policies. */
static void test_topk_f32_every_k(void **state)
{
    (void)state;
    const shape f32_shapes[] = {{6, 128, 128, 0},   {5, 100, 103, 1},    {4, 37, 37, 0},
                                {4, 1000, 1001, 1}, {3, 4096, 4096, 0}};
    const uint32_t planted[] = {0x7fc00000u, 0x7f800000u, 0xff800000u, 0x7f7fffffu,
                                0xff7fffffu, 0x80000000u, 0x00000001u};
    size_t ks[128];
    for (size_t k = 1; k <= 128; ++k) ks[k - 1] = k;
    uint64_t rng = test_seed();
    /* a pattern, and how many of the planted values (with a tie past them) */
    const struct {
        int mode;
        size_t specials;
        int tie;
    } datas[] = {{MODE_WIDE, 0, 0},     {MODE_WIDE, 7, 0},       {MODE_WIDE, 7, 1},
                 {PATTERN_MIXED, 0, 0}, {PATTERN_FEW_NAN, 0, 0}, {PATTERN_SIGNED_ZEROS, 0, 0}};
    for (size_t si = 0; si < sizeof f32_shapes / sizeof f32_shapes[0]; ++si) {
        const shape *s = &f32_shapes[si];
        const size_t n = shape_elems(s);
        for (size_t di = 0; di < sizeof datas / sizeof datas[0]; ++di) {
            memset(host_in, 0, n * 4);
            for (size_t r = 0; r < s->rows; ++r) {
                unsigned char *row = host_in + (s->skew + r * s->ld) * 4;
                fill_row(datas[di].mode, YAMR_DTYPE_F32, row, s->cols, &rng);
                for (size_t j = 0; j < datas[di].specials; ++j)
                    store_bits(YAMR_DTYPE_F32, row, rng_next(&rng) % s->cols, planted[j]);
                if (datas[di].tie) {
                    const size_t from = rng_next(&rng) % s->cols, to = rng_next(&rng) % s->cols;
                    store_bits(YAMR_DTYPE_F32, row, to, load_bits(YAMR_DTYPE_F32, row, from));
                }
            }
            assert_int_equal(yamr_copy_to_device(ctx, ctx_in, host_in, n * 4), YAMR_SUCCESS);
            for (int p = 0; p <= YAMR_NAN_IGNORE; ++p) {
                assert_int_equal(yamr_set_nan_policy(ctx, (yamr_nan_policy)p), YAMR_SUCCESS);
                char what[200];
                snprintf(what, sizeof what, "f32 every k %zux%zu ld %zu %s specials %zu%s nan=%s",
                         s->rows, s->cols, s->ld, mode_name(datas[di].mode), datas[di].specials,
                         datas[di].tie ? " tie" : "", p ? "ignore" : "propagate");
                check_shape_ks(s, YAMR_DTYPE_F32, (yamr_nan_policy)p, what, ks, 128);
            }
        }
    }
    assert_int_equal(yamr_set_nan_policy(ctx, YAMR_NAN_PROPAGATE), YAMR_SUCCESS);
    end_test("topk_f32_every_k");
}

/* ---- Bad arguments: each refused with its status, nothing written ---- */

typedef struct {
    const char *name;
    int null_ctx;
    yamr_op op;
    yamr_dtype dtype;
    int null_in, null_values, null_indices;
    size_t rows, cols, ld, k;
    yamr_status want;
} bad_case;

static void test_bad_arguments_write_nothing(void **state)
{
    (void)state;
    const yamr_op amax = YAMR_OP_ARGMAX;
    const yamr_dtype f32 = YAMR_DTYPE_F32;
    const size_t huge = (size_t)1 << 61;
    const bad_case cases[] = {
        {"NULL context", 1, amax, f32, 0, 0, 0, 2, 8, 8, 2, YAMR_ERROR_INVALID_VALUE},
        {"op out of range", 0, (yamr_op)YAMR_OP_COUNT, f32, 0, 0, 0, 2, 8, 8, 2,
         YAMR_ERROR_INVALID_VALUE},
        {"dtype out of range", 0, amax, (yamr_dtype)YAMR_DTYPE_COUNT, 0, 0, 0, 2, 8, 8, 2,
         YAMR_ERROR_INVALID_VALUE},
        {"NULL in", 0, amax, f32, 1, 0, 0, 2, 8, 8, 2, YAMR_ERROR_INVALID_VALUE},
        {"NULL values", 0, amax, f32, 0, 1, 0, 2, 8, 8, 2, YAMR_ERROR_INVALID_VALUE},
        {"NULL indices for ARGMAX", 0, amax, f32, 0, 0, 1, 2, 8, 8, 2, YAMR_ERROR_INVALID_VALUE},
        {"NULL indices for ARGMIN", 0, YAMR_OP_ARGMIN, f32, 0, 0, 1, 2, 8, 8, 2,
         YAMR_ERROR_INVALID_VALUE},
        {"rows 0", 0, amax, f32, 0, 0, 0, 0, 8, 8, 2, YAMR_ERROR_INVALID_VALUE},
        {"cols 0", 0, amax, f32, 0, 0, 0, 2, 0, 8, 1, YAMR_ERROR_INVALID_VALUE},
        {"ld < cols", 0, amax, f32, 0, 0, 0, 2, 8, 7, 2, YAMR_ERROR_INVALID_VALUE},
        {"k 0", 0, amax, f32, 0, 0, 0, 2, 8, 8, 0, YAMR_ERROR_INVALID_VALUE},
        {"k > cols", 0, amax, f32, 0, 0, 0, 2, 8, 8, 9, YAMR_ERROR_INVALID_VALUE},
        {"k > cols < ld", 0, amax, f32, 0, 0, 0, 2, 8, 16, 9, YAMR_ERROR_INVALID_VALUE},
        {"matrix overflows", 0, amax, f32, 0, 0, 0, huge, 8, 8, 2, YAMR_ERROR_INVALID_VALUE},
        {"rows x k indices overflow", 0, YAMR_OP_MAX, YAMR_DTYPE_F16, 0, 0, 0, huge, 1, 1, 1,
         YAMR_ERROR_INVALID_VALUE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const bad_case *c = &cases[i];
        poison_outputs(64);
        for (int async = 0; async < 2; ++async) {
            const yamr_status s = (async ? yamr_topk_rows_async : yamr_topk_rows)(
                c->null_ctx ? NULL : ctx, c->op, c->dtype, c->null_in ? NULL : ctx_in, c->rows,
                c->cols, c->ld, c->k, c->null_values ? NULL : ctx_values,
                c->null_indices ? NULL : (int64_t *)ctx_indices);
            if (s != c->want)
                failf("%s (%s): %s, want %s", c->name, async ? "async" : "sync",
                      yamr_status_string(s), yamr_status_string(c->want));
        }
        fetch_outputs(64);
        if (!untouched(host_values, 0, 64 * 8) || !untouched(host_indices, 0, 64 * 8))
            failf("%s: wrote to the outputs", c->name);
        /* yamr_plan_for_topk() refuses the same sizes */
        if (!c->null_ctx && !c->null_in && !c->null_values && !c->null_indices) {
            yamr_plan plan;
            memset(&plan, POISON, sizeof plan);
            const yamr_status s =
                yamr_plan_for_topk(ctx, c->op, c->dtype, c->rows, c->cols, c->k, &plan);
            if (c->ld == c->cols && s != c->want)
                failf("%s: yamr_plan_for_topk %s", c->name, yamr_status_string(s));
            if (s != YAMR_SUCCESS && !untouched((const unsigned char *)&plan, 0, sizeof plan))
                failf("%s: yamr_plan_for_topk wrote the plan", c->name);
        }
    }
    end_test("bad_arguments_write_nothing");
}

/* ---- Plans and the report ---- */

static void test_plan_and_report(void **state)
{
    (void)state;
    yamr_plan plan;
    assert_int_equal(yamr_plan_for(ctx, YAMR_CALL_TOPK, YAMR_OP_MAX, YAMR_DTYPE_F32, 4, 100, &plan),
                     YAMR_ERROR_INVALID_VALUE);
    assert_int_equal(yamr_plan_for_topk(NULL, YAMR_OP_MAX, YAMR_DTYPE_F32, 4, 100, 5, &plan),
                     YAMR_ERROR_INVALID_VALUE);
    assert_int_equal(yamr_plan_for_topk(ctx, YAMR_OP_MAX, YAMR_DTYPE_F32, 4, 100, 5, NULL),
                     YAMR_ERROR_INVALID_VALUE);
    assert_int_equal(yamr_plan_for_topk(ctx, YAMR_OP_ARGMIN, YAMR_DTYPE_F16, 4, 100, 5, &plan),
                     YAMR_SUCCESS);
    assert_int_equal(plan.call, YAMR_CALL_TOPK);
    assert_int_equal(plan.op, YAMR_OP_ARGMIN);
    assert_int_equal(plan.dtype, YAMR_DTYPE_F16);
    assert_int_equal(plan.rows, 4);
    assert_int_equal(plan.cols, 100);
    assert_int_equal(plan.k, 5);
    char line[512] = "";
    assert_int_equal(yamr_plan_describe(ctx, &plan, line, sizeof line), YAMR_SUCCESS);
    assert_true(strstr(line, "topk") != NULL);
    if (device == YAMR_DEVICE_CPU) assert_int_equal(plan.kernel, YAMR_KERNEL_CPU);
    /* other calls' plans carry k = 0 */
    assert_int_equal(yamr_plan_for(ctx, YAMR_CALL_ROWS, YAMR_OP_MAX, YAMR_DTYPE_F32, 4, 100, &plan),
                     YAMR_SUCCESS);
    assert_int_equal(plan.k, 0);
    /* the report names the last call, k included */
    memset(host_in, 0, 64 * 4);
    assert_int_equal(yamr_copy_to_device(ctx, ctx_in, host_in, 64 * 4), YAMR_SUCCESS);
    assert_int_equal(yamr_topk_rows(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, ctx_in, 2, 32, 32, 3,
                                    ctx_values, (int64_t *)ctx_indices),
                     YAMR_SUCCESS);
    const char *report = yamr_report(ctx);
    if (!strstr(report, "topk f32 argmax, 2 x 32, k = 3")) {
        printf("%s\n", report);
        fail_msg("the report does not name the last top-k call");
    }
}

/* ---- Rows of 2^31 + 4099 and 2^32 + 4099 bf16 elements on a GPU (8 GiB): 32-bit positions
 * past 2^31, and 64-bit ranks of 16-bit keys (the shared list: src/topk_shape.c) ---- */

/* The top k of h[0, n) (a prefix of the row, as a row of its own) are the planted positions in
 * it, by value (descending), then position; its minimum's first place is min_at. */
static void check_long_row(const uint16_t *h, const void *dev_in, size_t n, size_t k,
                           const size_t *planted, size_t np, size_t min_at)
{
    int64_t want[120];
    size_t nw = 0;
    for (size_t i = 0; i < np; ++i)
        if (planted[i] < n) want[nw++] = (int64_t)planted[i];
    for (size_t i = 1; i < nw; ++i)
        for (size_t j = i; j > 0; --j) {
            const uint16_t a = h[want[j]], b = h[want[j - 1]];
            if (a > b || (a == b && want[j] < want[j - 1])) {
                const int64_t x = want[j];
                want[j] = want[j - 1];
                want[j - 1] = x;
            } else {
                break;
            }
        }
    poison_outputs(k);
    assert_int_equal(yamr_topk_rows(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_BF16, dev_in, 1, n, n, k,
                                    ctx_values, (int64_t *)ctx_indices),
                     YAMR_SUCCESS);
    fetch_outputs(k);
    for (size_t j = 0; j < k && j < nw; ++j) {
        int64_t got;
        memcpy(&got, host_indices + j * 8, 8);
        if (got != want[j])
            failf("row of %zu: entry %zu: index %lld, want %lld", n, j, (long long)got,
                  (long long)want[j]);
    }
    assert_int_equal(yamr_topk_rows(ctx, YAMR_OP_ARGMIN, YAMR_DTYPE_BF16, dev_in, 1, n, n, 1,
                                    ctx_values, (int64_t *)ctx_indices),
                     YAMR_SUCCESS);
    fetch_outputs(1);
    int64_t got;
    memcpy(&got, host_indices, 8);
    if (got != (int64_t)min_at) failf("row of %zu: min at index %lld", n, (long long)got);
}

static uint16_t bf16_of(float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    return (uint16_t)(u >> 16);
}

/* The long row's elements; main() checks that the GPU and the host have room for them. */
#define LONG_ROW_N (((size_t)1 << 32) + 4099)

static void test_long_row(void **state)
{
    (void)state;
    const size_t n1 = ((size_t)1 << 31) + 4099, n = LONG_ROW_N, k = 64;
    void *dev_in = NULL;
    assert_int_equal(yamr_device_alloc(ctx, n * 2, &dev_in), YAMR_SUCCESS);
    uint16_t *h = (uint16_t *)malloc(n * 2);
    assert_non_null(h);
    /* background: values in [-1, 1) in steps of 1/64 (bf16 0xbf80..0x3f7c), ties everywhere;
     * planted: values 2 + j / 8 for j < 40, past 2^31 and past 2^32, a few twice below 2^31
     * (ties between the parts); -4 at the end of each row for MIN (the whole row's first at the
     * prefix's end) */
    uint64_t rng = test_seed();
    for (size_t i = 0; i < n; ++i)
        h[i] = bf16_of((float)((int)(rng_next(&rng) % 128) - 64) / 64.0f);
    size_t planted[120];
    size_t np = 0;
    for (int j = 0; j < 40; ++j) {
        const uint16_t v = bf16_of(2.0f + (float)j / 8.0f);
        const size_t at1 = ((size_t)1 << 31) + 7 * (size_t)j + 3;
        const size_t at2 = (size_t)j * 53000017u % ((size_t)1 << 31);
        const size_t at3 = ((size_t)1 << 32) + 11 * (size_t)j + 5;
        h[at1] = h[at3] = v;
        planted[np++] = at1;
        planted[np++] = at3;
        if (j % 2 == 0) {
            h[at2] = v;
            planted[np++] = at2;
        }
    }
    h[n1 - 1] = h[n - 1] = bf16_of(-4.0f);
    assert_int_equal(yamr_copy_to_device(ctx, dev_in, h, n * 2), YAMR_SUCCESS);
    check_long_row(h, dev_in, n1, k, planted, np, n1 - 1);
    yamr_plan plan;
    assert_int_equal(yamr_plan_for_topk(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_BF16, 1, n, k, &plan),
                     YAMR_SUCCESS);
    if (plan.index_bits != 64) failf("a row of %zu: %d-bit positions", n, plan.index_bits);
    check_long_row(h, dev_in, n, k, planted, np, n1 - 1);
    free(h);
    yamr_device_free(ctx, dev_in);
    end_test("long_row");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_arguments_write_nothing),
        cmocka_unit_test(test_plan_and_report),
        cmocka_unit_test(test_topk_matches_reference),
        cmocka_unit_test(test_topk_floor),
    };
    const struct CMUnitTest long_tests[] = {cmocka_unit_test(test_long_row)};
    if (argc > 1 && strcmp(argv[1], "gpu") == 0) {
        yamr_context *probe;
        const yamr_status s = yamr_create(&probe, 0);
        if (s != YAMR_SUCCESS) {
            printf("SKIPPED: no GPU (%s); the GPU top-k tests need one\n", yamr_status_string(s));
            return 77;
        }
        device = 0;
        if (argc > 2 && strcmp(argv[2], "long") == 0) {
            void *room = NULL, *host = malloc(LONG_ROW_N * 2);
            const int fits =
                host && yamr_device_alloc(probe, LONG_ROW_N * 2, &room) == YAMR_SUCCESS;
            free(host);
            yamr_device_free(probe, room);
            yamr_destroy(probe);
            if (!fits) {
                printf("SKIPPED: no room for %zu bf16 elements (%zu bytes) on the %s\n",
                       LONG_ROW_N, LONG_ROW_N * 2, host ? "GPU" : "host");
                return 77;
            }
            return cmocka_run_group_tests_name("topk long (gpu)", long_tests, setup, teardown);
        }
        yamr_destroy(probe);
        return cmocka_run_group_tests_name("topk (gpu)", tests, setup, teardown);
    }
    const struct CMUnitTest cpu_tests[] = {
        cmocka_unit_test(test_bad_arguments_write_nothing),
        cmocka_unit_test(test_plan_and_report),
        cmocka_unit_test(test_topk_matches_reference),
        cmocka_unit_test(test_topk_floor),
        cmocka_unit_test(test_topk_every_isa),
        cmocka_unit_test(test_topk_f32_every_k),
    };
    return cmocka_run_group_tests_name("topk (cpu)", cpu_tests, setup, teardown);
}
