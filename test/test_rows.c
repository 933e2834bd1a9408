/*
 * Batched reductions (include/yamr.h: rows, segments, softmax statistics) against a host
 * reference (reference.c, row by row; softmax statistics in double, two passes), on one backend:
 *   test_rows cpu   the CPU backend, and the shape choice on made-up devices
 *   test_rows gpu [FILTER]
 *                   GPU 0 (only the tests whose name matches FILTER, e.g. '*softmax*', when
 *                   given); exits 77 (skipped) when there is no GPU
 * Every failing case prints one line naming it (dtype, op, NaN policy, matrix, sync or async,
 * row) with what came back and what was expected; a test fails at its end if any case did.
 * Outputs are poisoned before every call, with guard entries past the last row.
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

#include "reference.h"
#include "yamr.h"
#include "yamr_internal.h"

#define MAX_ELEMS 1100000 /* input elements, any dtype */
#define MAX_ROWS 4096 /* output entries */
#define GUARD 4 /* poisoned entries past the last row */
#define POISON 0xa5

static int device = YAMR_DEVICE_CPU;
static yamr_context *ctx;
static unsigned char *host_in; /* MAX_ELEMS * 8 */
static int64_t *host_offsets; /* MAX_ROWS + 1 */
static void *ctx_in, *ctx_values, *ctx_second, *ctx_offsets; /* the context's memory */
static unsigned char *host_values, *host_second;
static int shape_used[YAMR_ROWS_SHAPE_COUNT];

/* ---- failure log: one line per failing case, the first 60 printed ---- */

static int failures;

static void failf(const char *fmt, ...)
{
    if (failures < 60) {
        va_list args;
        va_start(args, fmt);
        printf("FAILED: ");
        vprintf(fmt, args);
        printf("\n");
        va_end(args);
    } else if (failures == 60) {
        printf("FAILED: ... (further failures not printed)\n");
    }
    ++failures;
}

static void end_test(const char *name)
{
    const int f = failures;
    failures = 0;
    if (f) fail_msg("%s: %d case(s) failed (the lines above)", name, f);
}

static int setup(void **state)
{
    (void)state;
    if (yamr_create(&ctx, device) != YAMR_SUCCESS) return -1;
    host_in = (unsigned char *)malloc(MAX_ELEMS * 8);
    host_offsets = (int64_t *)malloc((MAX_ROWS + 1) * sizeof *host_offsets);
    host_values = (unsigned char *)malloc((MAX_ROWS + GUARD) * 8);
    host_second = (unsigned char *)malloc((MAX_ROWS + GUARD) * 8);
    if (!host_in || !host_offsets || !host_values || !host_second) return -1;
    if (yamr_device_alloc(ctx, MAX_ELEMS * 8 + 64, &ctx_in) != YAMR_SUCCESS ||
        yamr_device_alloc(ctx, (MAX_ROWS + GUARD) * 8, &ctx_values) != YAMR_SUCCESS ||
        yamr_device_alloc(ctx, (MAX_ROWS + GUARD) * 8, &ctx_second) != YAMR_SUCCESS ||
        yamr_device_alloc(ctx, (MAX_ROWS + 1) * 8, &ctx_offsets) != YAMR_SUCCESS)
        return -1;
    printf("%s", yamr_report(ctx));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    yamr_device_free(ctx, ctx_in);
    yamr_device_free(ctx, ctx_values);
    yamr_device_free(ctx, ctx_second);
    yamr_device_free(ctx, ctx_offsets);
    free(host_in);
    free(host_offsets);
    free(host_values);
    free(host_second);
    yamr_destroy(ctx);
    return 0;
}

/* ---- helpers ---- */

static const char *op_name(yamr_op op)
{
    static const char *const names[] = {"max", "min", "argmax", "argmin"};
    return names[op];
}

static const char *policy_name(int p) { return p == YAMR_NAN_PROPAGATE ? "propagate" : "ignore"; }

static int is_float(yamr_dtype t)
{
    return t == YAMR_DTYPE_F32 || t == YAMR_DTYPE_F64 || t == YAMR_DTYPE_F16 ||
           t == YAMR_DTYPE_BF16;
}

static void store_bits(yamr_dtype t, void *base, size_t i, uint64_t b)
{
    memcpy((unsigned char *)base + i * yamr_dtype_size(t), &b, yamr_dtype_size(t));
}

/* Elements that change any answer if read: NaN, +inf, -inf for floats; the largest and the
 * smallest value for integers. Written between cols and ld, and around segments. */
static uint64_t poison_element(yamr_dtype t, size_t i)
{
    static const uint64_t f32[] = {0x7fc00001u, 0x7f800000u, 0xff800000u};
    static const uint64_t f64[] = {0x7ff8000000000001ull, 0x7ff0000000000000ull,
                                   0xfff0000000000000ull};
    static const uint64_t f16[] = {0x7e01u, 0x7c00u, 0xfc00u};
    static const uint64_t bf16[] = {0x7fc1u, 0x7f80u, 0xff80u};
    switch (t) {
    case YAMR_DTYPE_F32: return f32[i % 3];
    case YAMR_DTYPE_F64: return f64[i % 3];
    case YAMR_DTYPE_F16: return f16[i % 3];
    case YAMR_DTYPE_BF16: return bf16[i % 3];
    case YAMR_DTYPE_I32: return i % 2 ? 0x80000000u : 0x7fffffffu;
    case YAMR_DTYPE_U32: return i % 2 ? 0u : 0xffffffffu;
    case YAMR_DTYPE_I64: return i % 2 ? 0x8000000000000000ull : 0x7fffffffffffffffull;
    }
    return 0;
}

/* The value an empty segment yields (yamr.h). */
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

/* Fills n elements at out: pattern `mode`, or with mode == PATTERN_COUNT a pattern drawn per call. */
static void fill(int mode, yamr_dtype t, void *out, size_t n, uint64_t *rng)
{
    data_pattern p = (data_pattern)mode;
    if (mode == PATTERN_COUNT) do
            p = (data_pattern)(rng_next(rng) % PATTERN_COUNT);
        while (!pattern_applies(p, t));
    fill_pattern(p, t, out, n, rng);
}

static const char *mode_name(int mode)
{
    return mode == PATTERN_COUNT ? "per_row" : pattern_name((data_pattern)mode);
}

static void poison_outputs(void)
{
    memset(host_values, POISON, (MAX_ROWS + GUARD) * 8);
    memset(host_second, POISON, (MAX_ROWS + GUARD) * 8);
    assert_int_equal(yamr_copy_to_device(ctx, ctx_values, host_values, (MAX_ROWS + GUARD) * 8),
                     YAMR_SUCCESS);
    assert_int_equal(yamr_copy_to_device(ctx, ctx_second, host_second, (MAX_ROWS + GUARD) * 8),
                     YAMR_SUCCESS);
}

static void fetch_outputs(void)
{
    assert_int_equal(yamr_copy_to_host(ctx, host_values, ctx_values, (MAX_ROWS + GUARD) * 8),
                     YAMR_SUCCESS);
    assert_int_equal(yamr_copy_to_host(ctx, host_second, ctx_second, (MAX_ROWS + GUARD) * 8),
                     YAMR_SUCCESS);
}

/* Bytes [from, to) of a fetched output still hold the poison. */
static int untouched(const unsigned char *p, size_t from, size_t to)
{
    for (size_t b = from; b < to; ++b)
        if (p[b] != POISON) return 0;
    return 1;
}

/* One answer against the reference: value bits (NaN for an all-NaN row) and, if asked, index. */
static void check_answer(const char *what, size_t row, yamr_dtype t, ref_result r, uint64_t got,
                         int64_t got_index, int with_index)
{
    if (r.index < 0) {
        if (!bits_are_nan(t, got))
            failf("%s row %zu: value bits %llx, expected a NaN (NaNs only, ignored)", what, row,
                  (unsigned long long)got);
    } else if (got != r.value_bits) {
        failf("%s row %zu: value bits %llx, expected %llx (at index %lld)", what, row,
              (unsigned long long)got, (unsigned long long)r.value_bits, (long long)r.index);
    }
    if (with_index && got_index != r.index)
        failf("%s row %zu: index %lld, expected %lld", what, row, (long long)got_index,
              (long long)r.index);
}

/* The last call's plan is the one yamr_plan_for() gives for the same call, and the report
 * prints it. */
static void note_shape(yamr_call call, yamr_op op, yamr_dtype t, size_t rows, size_t cols,
                       const char *what)
{
    yamr_plan last, asked;
    if (yamr_last_plan(ctx, &last) != YAMR_SUCCESS ||
        yamr_plan_for(ctx, call, op, t, rows, cols, &asked) != YAMR_SUCCESS) {
        failf("%s: no plan", what);
        return;
    }
    if (last.call != call || last.rows != rows || (call != YAMR_CALL_SEGMENTS && last.cols != cols) ||
        last.kernel != asked.kernel || last.shape != asked.shape ||
        last.grid_blocks != asked.grid_blocks || last.lanes_per_row != asked.lanes_per_row ||
        last.blocks_per_row != asked.blocks_per_row || last.index_bits != asked.index_bits)
        failf("%s: the call ran %s x %u (%s), yamr_plan_for says %s x %u (%s)", what,
              yamr_kernel_name(last.kernel), last.grid_blocks, last.why,
              yamr_kernel_name(asked.kernel), asked.grid_blocks, asked.why);
    if (device == YAMR_DEVICE_CPU) {
        if (last.kernel != YAMR_KERNEL_CPU) failf("%s: a CPU context planned a GPU kernel", what);
        return;
    }
    ++shape_used[last.shape];
    const char *line = strstr(yamr_report(ctx), "last call:");
    if (!line || !strstr(line, yamr_kernel_name(last.kernel)))
        failf("%s: the report does not name kernel %s:\n%s", what, yamr_kernel_name(last.kernel),
              yamr_report(ctx));
}

/* ---- rows ---- */

typedef struct {
    size_t rows, cols, ld;
    size_t skew; /* elements between the allocation's start and `in`: misaligned rows */
} matrix_case;

/* One column, one row, around warp widths, ld > cols, long rows that few rows split over blocks
 * on a GPU, many rows, and enough rows longer than one round of the block kernel's loads (4096
 * floats) that a GPU of up to 132 multiprocessors gives each its own block. */
static const matrix_case matrices[] = {
    {1, 1, 1, 0},        {1000, 1, 1, 0},        {257, 1, 3, 1},       {1, 31, 31, 0},
    {1, 1000, 1000, 1},  {37, 31, 31, 0},        {40, 32, 32, 0},      {33, 33, 35, 3},
    {50, 100, 100, 0},   {20, 100, 101, 1},      {64, 255, 255, 0},    {300, 257, 257, 2},
    {17, 1000, 1000, 0}, {9, 1000, 1003, 1},     {3, 5000, 5000, 0},   {2, 5000, 5003, 1},
    {5, 4100, 4100, 0},  {1, 100003, 100003, 0}, {2, 70001, 70007, 5}, {600, 300, 300, 0},
    {3000, 40, 41, 0},   {264, 4100, 4104, 0},
};
#define MATRIX_COUNT (sizeof matrices / sizeof matrices[0])

static size_t matrix_elems(const matrix_case *m)
{
    return m->skew + (m->rows - 1) * m->ld + m->cols;
}

/* Fills the matrix (host_in) and its padding; copies it to the context. */
static void fill_matrix(const matrix_case *m, yamr_dtype t, int mode, uint64_t *rng)
{
    const size_t total = matrix_elems(m);
    for (size_t i = 0; i < total; ++i) store_bits(t, host_in, i, poison_element(t, i));
    for (size_t r = 0; r < m->rows; ++r)
        fill(mode, t, host_in + (m->skew + r * m->ld) * yamr_dtype_size(t), m->cols, rng);
    assert_int_equal(yamr_copy_to_device(ctx, ctx_in, host_in, total * yamr_dtype_size(t)),
                     YAMR_SUCCESS);
}

static void check_rows_call(const matrix_case *m, yamr_op op, yamr_dtype t, int policy, int async,
                            const char *what_base)
{
    const size_t elem = yamr_dtype_size(t);
    const int needs_index = op == YAMR_OP_ARGMAX || op == YAMR_OP_ARGMIN;
    const int with_index = needs_index || async; /* MAX/MIN: NULL indices when synchronous */
    char what[200];
    snprintf(what, sizeof what, "%s %s %s", what_base, op_name(op), async ? "async" : "sync");
    poison_outputs();
    const void *in = (const unsigned char *)ctx_in + m->skew * elem;
    yamr_status s = (async ? yamr_reduce_rows_async
                           : yamr_reduce_rows)(ctx, op, t, in, m->rows, m->cols, m->ld, ctx_values,
                                               with_index ? (int64_t *)ctx_second : NULL);
    if (s != YAMR_SUCCESS) {
        failf("%s: %s (%s)", what, yamr_status_string(s), yamr_last_error(ctx));
        return;
    }
    note_shape(YAMR_CALL_ROWS, op, t, m->rows, m->cols, what);
    fetch_outputs();
    if (!untouched(host_values, m->rows * elem, (m->rows + GUARD) * 8))
        failf("%s: wrote past the last value", what);
    if (!untouched(host_second, with_index ? m->rows * 8 : 0, (m->rows + GUARD) * 8))
        failf("%s: wrote %s", what,
              with_index ? "past the last index" : "indices it was not given");
    for (size_t r = 0; r < m->rows; ++r) {
        ref_result want = ref_reduce(op, t, (yamr_nan_policy)policy,
                                     host_in + (m->skew + r * m->ld) * elem, m->cols);
        int64_t got_index = 0;
        memcpy(&got_index, host_second + r * 8, 8);
        check_answer(what, r, t, want, load_bits(t, host_values, r), got_index, with_index);
    }
}

static void test_rows_reduce(void **state)
{
    (void)state;
    uint64_t rng = test_seed();
    int calls = 0;
    for (size_t mi = 0; mi < MATRIX_COUNT; ++mi) {
        const matrix_case *m = &matrices[mi];
        const int large = matrix_elems(m) > 30000;
        for (int t = 0; t < YAMR_DTYPE_COUNT; ++t)
            for (int mode = 0; mode <= PATTERN_COUNT; ++mode) {
                if (mode < PATTERN_COUNT && !pattern_applies((data_pattern)mode, (yamr_dtype)t))
                    continue;
                if (large && mode != PATTERN_MIXED && mode != PATTERN_COUNT) continue; /* time */
                fill_matrix(m, (yamr_dtype)t, mode, &rng);
                for (int p = 0; p <= YAMR_NAN_IGNORE; ++p) {
                    assert_int_equal(yamr_set_nan_policy(ctx, (yamr_nan_policy)p), YAMR_SUCCESS);
                    char what[160];
                    snprintf(what, sizeof what, "rows %zux%zu ld %zu skew %zu %s %s nan=%s",
                             m->rows, m->cols, m->ld, m->skew, yamr_dtype_name((yamr_dtype)t),
                             mode_name(mode), policy_name(p));
                    for (int op = 0; op < YAMR_OP_COUNT; ++op)
                        for (int async = 0; async < 2; ++async) {
                            check_rows_call(m, (yamr_op)op, (yamr_dtype)t, p, async, what);
                            ++calls;
                        }
                }
            }
    }
    assert_int_equal(yamr_set_nan_policy(ctx, YAMR_NAN_PROPAGATE), YAMR_SUCCESS);
    printf("  rows: %d calls checked\n", calls);
    if (device != YAMR_DEVICE_CPU) {
        printf("  shapes exercised: warp_per_row %d, block_per_row %d, blocks_per_row %d calls\n",
               shape_used[0], shape_used[1], shape_used[2]);
        for (int s = 0; s < YAMR_ROWS_SHAPE_COUNT; ++s)
            if (!shape_used[s])
                failf("rows: shape %s never ran", yamr_rows_shape_name((yamr_rows_shape)s));
    }
    end_test("rows");
}

/* ---- segments ---- */

typedef struct {
    const char *name;
    size_t segments;
    int kind; /* 0: random lengths 0..300 with empties and a few long; 1: listed lengths */
    int64_t lengths[8];
} segment_case;

static const segment_case segment_cases[] = {
    {"many random", 1500, 0, {0}},
    {"few, mixed lengths", 6, 1, {0, 1, 3000, 17, 9000, 0}},
    {"one empty", 1, 1, {0}},
    {"one long", 1, 1, {70001}},
    {"decreasing pair", 3, 1, {10, -5, 15}}, /* offsets 3, 13, 8, 23: the middle one is empty */
    {"empty and tiny", 7, 1, {0, 0, 1, 0, 2, 33, 0}},
};
#define SEGMENT_CASE_COUNT (sizeof segment_cases / sizeof segment_cases[0])

/* Lays out the segments in host_offsets (starting at element 3) and fills host_in: data in the
 * segments, poison around them. Returns the elements used. */
static size_t layout_segments(const segment_case *c, yamr_dtype t, int mode, uint64_t *rng)
{
    int64_t at = 3;
    host_offsets[0] = at;
    for (size_t s = 0; s < c->segments; ++s) {
        int64_t len;
        if (c->kind == 0) {
            const uint64_t pick = rng_next(rng) % 100;
            len = pick < 10   ? 0
                  : pick < 12 ? 1500 + (int64_t)(rng_next(rng) % 3500)
                              : (int64_t)(rng_next(rng) % 301);
        } else {
            len = c->lengths[s];
        }
        at += len;
        host_offsets[s + 1] = at;
    }
    int64_t end = 0;
    for (size_t s = 0; s <= c->segments; ++s) end = host_offsets[s] > end ? host_offsets[s] : end;
    const size_t total = (size_t)end + 3;
    assert_true(total <= MAX_ELEMS);
    for (size_t i = 0; i < total; ++i) store_bits(t, host_in, i, poison_element(t, i));
    for (size_t s = 0; s < c->segments; ++s)
        if (host_offsets[s + 1] > host_offsets[s])
            fill(mode, t, host_in + (size_t)host_offsets[s] * yamr_dtype_size(t),
                 (size_t)(host_offsets[s + 1] - host_offsets[s]), rng);
    assert_int_equal(yamr_copy_to_device(ctx, ctx_in, host_in, total * yamr_dtype_size(t)),
                     YAMR_SUCCESS);
    assert_int_equal(yamr_copy_to_device(ctx, ctx_offsets, host_offsets, (c->segments + 1) * 8),
                     YAMR_SUCCESS);
    return total;
}

static void check_segments_call(const segment_case *c, yamr_op op, yamr_dtype t, int policy,
                                int async, const char *what_base)
{
    const size_t elem = yamr_dtype_size(t);
    const int with_index = op == YAMR_OP_ARGMAX || op == YAMR_OP_ARGMIN || async;
    char what[200];
    snprintf(what, sizeof what, "%s %s %s", what_base, op_name(op), async ? "async" : "sync");
    poison_outputs();
    yamr_status s = (async ? yamr_reduce_segments_async : yamr_reduce_segments)(
        ctx, op, t, ctx_in, (const int64_t *)ctx_offsets, c->segments, ctx_values,
        with_index ? (int64_t *)ctx_second : NULL);
    if (s != YAMR_SUCCESS) {
        failf("%s: %s (%s)", what, yamr_status_string(s), yamr_last_error(ctx));
        return;
    }
    note_shape(YAMR_CALL_SEGMENTS, op, t, c->segments, 0, what);
    fetch_outputs();
    if (!untouched(host_values, c->segments * elem, (c->segments + GUARD) * 8))
        failf("%s: wrote past the last value", what);
    if (!untouched(host_second, with_index ? c->segments * 8 : 0, (c->segments + GUARD) * 8))
        failf("%s: wrote %s", what,
              with_index ? "past the last index" : "indices it was not given");
    for (size_t i = 0; i < c->segments; ++i) {
        const int64_t begin = host_offsets[i], end = host_offsets[i + 1];
        int64_t got_index = 0;
        memcpy(&got_index, host_second + i * 8, 8);
        const uint64_t got = load_bits(t, host_values, i);
        if (end <= begin) {
            if (got != empty_bits(t))
                failf("%s segment %zu (empty): value bits %llx, expected %llx", what, i,
                      (unsigned long long)got, (unsigned long long)empty_bits(t));
            if (with_index && got_index != -1)
                failf("%s segment %zu (empty): index %lld, expected -1", what, i,
                      (long long)got_index);
            continue;
        }
        ref_result want = ref_reduce(op, t, (yamr_nan_policy)policy, host_in + (size_t)begin * elem,
                                     (size_t)(end - begin));
        check_answer(what, i, t, want, got, got_index, with_index);
    }
}

static void test_segments_reduce(void **state)
{
    (void)state;
    uint64_t rng = test_seed() ^ 0x5e9;
    int calls = 0;
    for (size_t ci = 0; ci < SEGMENT_CASE_COUNT; ++ci) {
        const segment_case *c = &segment_cases[ci];
        for (int t = 0; t < YAMR_DTYPE_COUNT; ++t)
            for (int mode = 0; mode <= PATTERN_COUNT; ++mode) {
                if (mode < PATTERN_COUNT && !pattern_applies((data_pattern)mode, (yamr_dtype)t))
                    continue;
                if (c->kind == 0 && mode != PATTERN_MIXED && mode != PATTERN_COUNT)
                    continue; /* time */
                layout_segments(c, (yamr_dtype)t, mode, &rng);
                for (int p = 0; p <= YAMR_NAN_IGNORE; ++p) {
                    assert_int_equal(yamr_set_nan_policy(ctx, (yamr_nan_policy)p), YAMR_SUCCESS);
                    char what[160];
                    snprintf(what, sizeof what, "segments '%s' (%zu) %s %s nan=%s", c->name,
                             c->segments, yamr_dtype_name((yamr_dtype)t), mode_name(mode),
                             policy_name(p));
                    for (int op = 0; op < YAMR_OP_COUNT; ++op)
                        for (int async = 0; async < 2; ++async) {
                            check_segments_call(c, (yamr_op)op, (yamr_dtype)t, p, async, what);
                            ++calls;
                        }
                    if (device != YAMR_DEVICE_CPU && p == 0 && t == 0 && mode == 0)
                        printf("  %s\n", strstr(yamr_report(ctx), "last call:"));
                }
            }
    }
    assert_int_equal(yamr_set_nan_policy(ctx, YAMR_NAN_PROPAGATE), YAMR_SUCCESS);
    printf("  segments: %d calls checked\n", calls);
    end_test("segments");
}

/* ---- softmax statistics ---- */

typedef enum {
    ROW_NORMAL,
    ROW_ONE_NAN,
    ROW_ONE_INF,
    ROW_TWO_INF,
    ROW_ALL_NEG_INF,
    ROW_SOME_NEG_INF,
    ROW_ALL_NAN,
    ROW_INF_AND_NAN,
    ROW_WIDE,
    ROW_KIND_COUNT
} row_kind;

static double softmax_value(row_kind k, size_t i, size_t n, uint64_t *rng)
{
    const double v = (double)(rng_next(rng) % 4000001) / 100000.0 - 20.0; /* [-20, 20] */
    switch (k) {
    case ROW_ONE_NAN: return i == n / 2 ? NAN : v;
    case ROW_ONE_INF: return i == n / 3 ? INFINITY : v;
    case ROW_TWO_INF: return (i == 0 || i == n - 1) ? INFINITY : v;
    case ROW_ALL_NEG_INF: return -INFINITY;
    case ROW_SOME_NEG_INF: return rng_next(rng) % 3 == 0 ? -INFINITY : v;
    case ROW_ALL_NAN: return NAN;
    case ROW_INF_AND_NAN: return i == 0 ? INFINITY : i == n - 1 ? NAN : v;
    case ROW_WIDE: return v * 1e3; /* most terms underflow to 0 */
    default: return rng_next(rng) % 7 == 0 ? -0.0 : v;
    }
}

/* Two passes in double over the row as stored (so f32 inputs are exact). */
static void softmax_reference(yamr_dtype t, const unsigned char *row, size_t n, int nan_ignore,
                              double *max_out, double *sum_out)
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
    if (!counted) {
        *max_out = NAN;
        *sum_out = 0;
        return;
    }
    double s = 0;
    for (size_t i = 0; i < n; ++i) {
        const double x = t == YAMR_DTYPE_F64 ? ((const double *)row)[i] : ((const float *)row)[i];
        if (!isnan(x)) s += x == m ? 1.0 : exp(x - m);
    }
    *max_out = m;
    *sum_out = s;
}

static void test_softmax_stats(void **state)
{
    (void)state;
    uint64_t rng = test_seed() ^ 0x50f7;
    int calls = 0;
    for (int ti = 0; ti < 2; ++ti) {
        const yamr_dtype t = ti ? YAMR_DTYPE_F64 : YAMR_DTYPE_F32;
        const size_t elem = yamr_dtype_size(t);
        const double tol = t == YAMR_DTYPE_F64 ? 1e-12 : 1e-5;
        for (size_t mi = 0; mi < MATRIX_COUNT; ++mi) {
            const matrix_case *m = &matrices[mi];
            const size_t total = matrix_elems(m);
            for (size_t i = 0; i < total; ++i) store_bits(t, host_in, i, poison_element(t, i));
            for (size_t r = 0; r < m->rows; ++r) {
                /* row 0 normal, then every kind in turn, then mostly normal rows */
                const row_kind k = r < ROW_KIND_COUNT ? (row_kind)r
                                   : rng_next(&rng) % 2
                                       ? ROW_NORMAL
                                       : (row_kind)(rng_next(&rng) % ROW_KIND_COUNT);
                unsigned char *row = host_in + (m->skew + r * m->ld) * elem;
                for (size_t i = 0; i < m->cols; ++i) {
                    const double v = softmax_value(k, i, m->cols, &rng);
                    if (t == YAMR_DTYPE_F64)
                        ((double *)row)[i] = v;
                    else
                        ((float *)row)[i] = (float)v;
                }
            }
            assert_int_equal(yamr_copy_to_device(ctx, ctx_in, host_in, total * elem), YAMR_SUCCESS);
            const void *in = (const unsigned char *)ctx_in + m->skew * elem;
            for (int p = 0; p <= YAMR_NAN_IGNORE; ++p) {
                assert_int_equal(yamr_set_nan_policy(ctx, (yamr_nan_policy)p), YAMR_SUCCESS);
                for (int async = 0; async < 2; ++async) {
                    char what[200];
                    snprintf(what, sizeof what,
                             "softmax_stats %zux%zu ld %zu skew %zu %s nan=%s %s", m->rows, m->cols,
                             m->ld, m->skew, yamr_dtype_name(t), policy_name(p),
                             async ? "async" : "sync");
                    poison_outputs();
                    yamr_status s =
                        (async ? yamr_softmax_stats_rows_async : yamr_softmax_stats_rows)(
                            ctx, t, in, m->rows, m->cols, m->ld, ctx_values, ctx_second);
                    ++calls;
                    if (s != YAMR_SUCCESS) {
                        failf("%s: %s (%s)", what, yamr_status_string(s), yamr_last_error(ctx));
                        continue;
                    }
                    note_shape(YAMR_CALL_SOFTMAX_STATS, YAMR_OP_MAX, t, m->rows, m->cols, what);
                    fetch_outputs();
                    if (!untouched(host_values, m->rows * elem, (m->rows + GUARD) * 8) ||
                        !untouched(host_second, m->rows * elem, (m->rows + GUARD) * 8))
                        failf("%s: wrote past the last row", what);
                    for (size_t r = 0; r < m->rows; ++r) {
                        double want_m, want_s, got_m, got_s;
                        softmax_reference(t, host_in + (m->skew + r * m->ld) * elem, m->cols, p,
                                          &want_m, &want_s);
                        got_m = t == YAMR_DTYPE_F64 ? ((double *)host_values)[r]
                                                    : ((float *)host_values)[r];
                        got_s = t == YAMR_DTYPE_F64 ? ((double *)host_second)[r]
                                                    : ((float *)host_second)[r];
                        const int max_ok = isnan(want_m) ? isnan(got_m) : got_m == want_m;
                        const int sum_ok = isnan(want_s) ? isnan(got_s)
                                           : isinf(want_s) || want_s == 0
                                               ? got_s == want_s
                                               : fabs(got_s - want_s) <= tol * want_s;
                        if (!max_ok || !sum_ok)
                            failf("%s row %zu (kind %d): max %.17g sum %.17g, expected max %.17g "
                                  "sum %.17g "
                                  "(relative error %.3g)",
                                  what, r, r < ROW_KIND_COUNT ? (int)r : -1, got_m, got_s, want_m,
                                  want_s, want_s != 0 ? fabs(got_s - want_s) / want_s : 0.0);
                    }
                }
            }
        }
    }
    assert_int_equal(yamr_set_nan_policy(ctx, YAMR_NAN_PROPAGATE), YAMR_SUCCESS);
    printf("  softmax statistics: %d calls checked\n", calls);
    end_test("softmax statistics");
}

/* ---- bad arguments: the status, and nothing written ---- */

typedef enum { API_ROWS, API_SEGMENTS, API_SOFTMAX } api_kind;

enum { NULL_CTX = 1, NULL_IN = 2, NULL_VALUES = 4, NULL_SECOND = 8, NULL_OFFSETS = 16 };

typedef struct {
    const char *what;
    api_kind api;
    yamr_status expect;
    int nulls; /* which pointers are NULL */
    int op, dtype;
    size_t rows, cols, ld; /* segments: rows is the count */
} bad_case;

#define INVALID YAMR_ERROR_INVALID_VALUE
#define F32 YAMR_DTYPE_F32
#define OK_ROWS 4, 8, 8
static const bad_case bad_cases[] = {
    {"rows: NULL context", API_ROWS, INVALID, NULL_CTX, YAMR_OP_MAX, F32, OK_ROWS},
    {"rows: op out of range", API_ROWS, INVALID, 0, YAMR_OP_COUNT, F32, OK_ROWS},
    {"rows: negative op", API_ROWS, INVALID, 0, -1, F32, OK_ROWS},
    {"rows: dtype out of range", API_ROWS, INVALID, 0, YAMR_OP_MAX, YAMR_DTYPE_COUNT, OK_ROWS},
    {"rows: NULL input", API_ROWS, INVALID, NULL_IN, YAMR_OP_MAX, F32, OK_ROWS},
    {"rows: NULL values", API_ROWS, INVALID, NULL_VALUES, YAMR_OP_ARGMAX, F32, OK_ROWS},
    {"rows: argmax without indices", API_ROWS, INVALID, NULL_SECOND, YAMR_OP_ARGMAX, F32, OK_ROWS},
    {"rows: argmin without indices", API_ROWS, INVALID, NULL_SECOND, YAMR_OP_ARGMIN, YAMR_DTYPE_I64,
     OK_ROWS},
    {"rows: rows == 0", API_ROWS, INVALID, 0, YAMR_OP_MAX, F32, 0, 8, 8},
    {"rows: cols == 0", API_ROWS, INVALID, 0, YAMR_OP_MAX, F32, 4, 0, 8},
    {"rows: ld < cols", API_ROWS, INVALID, 0, YAMR_OP_MAX, F32, 4, 8, 7},
    {"rows: size overflows", API_ROWS, INVALID, 0, YAMR_OP_MAX, YAMR_DTYPE_F64, 1u << 20, 8,
     (size_t)1 << 44},
    {"segments: NULL context", API_SEGMENTS, INVALID, NULL_CTX, YAMR_OP_MAX, F32, 4, 0, 0},
    {"segments: op out of range", API_SEGMENTS, INVALID, 0, YAMR_OP_COUNT, F32, 4, 0, 0},
    {"segments: dtype out of range", API_SEGMENTS, INVALID, 0, YAMR_OP_MAX, -1, 4, 0, 0},
    {"segments: NULL input", API_SEGMENTS, INVALID, NULL_IN, YAMR_OP_MAX, F32, 4, 0, 0},
    {"segments: NULL offsets", API_SEGMENTS, INVALID, NULL_OFFSETS, YAMR_OP_MAX, F32, 4, 0, 0},
    {"segments: segments == 0", API_SEGMENTS, INVALID, 0, YAMR_OP_MAX, F32, 0, 0, 0},
    {"segments: NULL values", API_SEGMENTS, INVALID, NULL_VALUES, YAMR_OP_MIN, YAMR_DTYPE_U32, 4, 0,
     0},
    {"segments: argmax without indices", API_SEGMENTS, INVALID, NULL_SECOND, YAMR_OP_ARGMAX,
     YAMR_DTYPE_BF16, 4, 0, 0},
    {"softmax: NULL context", API_SOFTMAX, INVALID, NULL_CTX, 0, F32, OK_ROWS},
    {"softmax: dtype out of range", API_SOFTMAX, INVALID, 0, 0, YAMR_DTYPE_COUNT, OK_ROWS},
    {"softmax: NULL input", API_SOFTMAX, INVALID, NULL_IN, 0, YAMR_DTYPE_F64, OK_ROWS},
    {"softmax: NULL row_max", API_SOFTMAX, INVALID, NULL_VALUES, 0, F32, OK_ROWS},
    {"softmax: NULL row_sum", API_SOFTMAX, INVALID, NULL_SECOND, 0, F32, OK_ROWS},
    {"softmax: rows == 0", API_SOFTMAX, INVALID, 0, 0, F32, 0, 8, 8},
    {"softmax: cols == 0", API_SOFTMAX, INVALID, 0, 0, F32, 4, 0, 8},
    {"softmax: ld < cols", API_SOFTMAX, INVALID, 0, 0, YAMR_DTYPE_F64, 4, 8, 2},
    {"softmax: i32 input", API_SOFTMAX, YAMR_ERROR_UNSUPPORTED, 0, 0, YAMR_DTYPE_I32, OK_ROWS},
    {"softmax: f16 input", API_SOFTMAX, YAMR_ERROR_UNSUPPORTED, 0, 0, YAMR_DTYPE_F16, OK_ROWS},
    {"softmax: i32, rows == 0 (arguments first)", API_SOFTMAX, INVALID, 0, 0, YAMR_DTYPE_I32, 0, 8,
     8},
};
#define BAD_CASE_COUNT (sizeof bad_cases / sizeof bad_cases[0])

static void test_bad_arguments_write_nothing(void **state)
{
    (void)state;
    for (size_t k = 0; k < 4 * 8; ++k) store_bits(YAMR_DTYPE_F32, host_in, k, 0x3f800000u);
    assert_int_equal(yamr_copy_to_device(ctx, ctx_in, host_in, 4 * 8 * 4), YAMR_SUCCESS);
    const int64_t offsets[5] = {0, 1, 2, 3, 4};
    assert_int_equal(yamr_copy_to_device(ctx, ctx_offsets, offsets, sizeof offsets), YAMR_SUCCESS);
    for (size_t i = 0; i < BAD_CASE_COUNT; ++i)
        for (int async = 0; async < 2; ++async) {
            const bad_case *c = &bad_cases[i];
            yamr_context *x = c->nulls & NULL_CTX ? NULL : ctx;
            const void *in = c->nulls & NULL_IN ? NULL : ctx_in;
            void *values = c->nulls & NULL_VALUES ? NULL : ctx_values;
            void *second = c->nulls & NULL_SECOND ? NULL : ctx_second;
            const int64_t *offs = c->nulls & NULL_OFFSETS ? NULL : (const int64_t *)ctx_offsets;
            poison_outputs();
            yamr_status s = YAMR_SUCCESS;
            switch (c->api) {
            case API_ROWS:
                s = (async ? yamr_reduce_rows_async
                           : yamr_reduce_rows)(x, (yamr_op)c->op, (yamr_dtype)c->dtype, in, c->rows,
                                               c->cols, c->ld, values, (int64_t *)second);
                break;
            case API_SEGMENTS:
                s = (async ? yamr_reduce_segments_async
                           : yamr_reduce_segments)(x, (yamr_op)c->op, (yamr_dtype)c->dtype, in,
                                                   offs, c->rows, values, (int64_t *)second);
                break;
            case API_SOFTMAX:
                s = (async ? yamr_softmax_stats_rows_async : yamr_softmax_stats_rows)(
                    x, (yamr_dtype)c->dtype, in, c->rows, c->cols, c->ld, values, second);
                break;
            }
            if (s != c->expect)
                failf("%s (%s): got %s, expected %s", c->what, async ? "async" : "sync",
                      yamr_status_string(s), yamr_status_string(c->expect));
            fetch_outputs();
            if (!untouched(host_values, 0, (MAX_ROWS + GUARD) * 8) ||
                !untouched(host_second, 0, (MAX_ROWS + GUARD) * 8))
                failf("%s (%s): wrote to an output", c->what, async ? "async" : "sync");
        }
    end_test("bad arguments");
}

/* ---- the shape choice, on made-up devices (pure C) ---- */

static void expect_shape(size_t rows, size_t cols, int mp, int w, yamr_rows_shape want,
                         int want_blocks)
{
    const yamr_rows_shape got = yamr__rows_shape(rows, cols, mp, w);
    const int blocks =
        got == YAMR_ROWS_BLOCKS_PER_ROW ? yamr__rows_blocks_per_row(rows, cols, mp) : 1;
    if (got != want || (want_blocks && blocks != want_blocks))
        failf("shape of %zu x %zu on %d units, W%d: %s with %d blocks per row, expected %s with %d",
              rows, cols, mp, w, yamr_rows_shape_name(got), blocks, yamr_rows_shape_name(want),
              want_blocks);
}

static void test_shape_choice(void **state)
{
    (void)state;
    /* the cases of the issue on an H100 (132 SMs, W32) */
    expect_shape(1024, 4096, 132, 32, YAMR_ROWS_BLOCK_PER_ROW, 0);
    expect_shape(65536, 128, 132, 32, YAMR_ROWS_WARP_PER_ROW, 0);
    expect_shape(4096, 32768, 132, 32, YAMR_ROWS_BLOCK_PER_ROW, 0);
    expect_shape(4, (size_t)1 << 24, 132, 32, YAMR_ROWS_BLOCKS_PER_ROW, 132);
    /* warp per row up to 8 elements per lane, W32 and W64 */
    expect_shape(1, 1, 132, 32, YAMR_ROWS_WARP_PER_ROW, 0);
    expect_shape(3, 256, 132, 32, YAMR_ROWS_WARP_PER_ROW, 0);
    expect_shape(100000, 257, 132, 32, YAMR_ROWS_BLOCK_PER_ROW, 0);
    expect_shape(100000, 512, 104, 64, YAMR_ROWS_WARP_PER_ROW, 0);
    expect_shape(100000, 513, 104, 64, YAMR_ROWS_BLOCK_PER_ROW, 0);
    /* splitting: few rows, each long enough for two blocks of YAMR__ROWS_SPLIT_MIN_PER_BLOCK */
    expect_shape(3, 5000, 132, 32, YAMR_ROWS_BLOCKS_PER_ROW, 2);
    expect_shape(1, 4095, 132, 32, YAMR_ROWS_BLOCK_PER_ROW, 0);
    expect_shape(1, 4096, 132, 32, YAMR_ROWS_BLOCKS_PER_ROW, 2);
    expect_shape(1, 100003, 132, 32, YAMR_ROWS_BLOCKS_PER_ROW, 48);
    expect_shape(1, (size_t)1 << 30, 132, 32, YAMR_ROWS_BLOCKS_PER_ROW,
                 YAMR__ROWS_SPLIT_MAX_BLOCKS_PER_ROW);
    expect_shape(263, (size_t)1 << 20, 132, 32, YAMR_ROWS_BLOCKS_PER_ROW, 3);
    expect_shape(264, (size_t)1 << 20, 132, 32, YAMR_ROWS_BLOCK_PER_ROW, 0);
    expect_shape(5000, (size_t)1 << 20, 4000, 32, YAMR_ROWS_BLOCK_PER_ROW,
                 0); /* past the workspace */

    /* invariants over a grid of made-up devices and sizes */
    static const size_t rows_list[] = {1, 2, 3, 7, 31, 100, 263, 264, 1000, 4096, 4097, 100000};
    static const size_t cols_list[] = {
        1, 31, 256, 257, 512, 513, 4095, 4096, 5000, 100003, (size_t)1 << 26};
    static const int mp_list[] = {1, 20, 80, 132, 304, 4000};
    static const int w_list[] = {32, 64};
    for (size_t a = 0; a < sizeof rows_list / sizeof rows_list[0]; ++a)
        for (size_t b = 0; b < sizeof cols_list / sizeof cols_list[0]; ++b)
            for (size_t c = 0; c < sizeof mp_list / sizeof mp_list[0]; ++c)
                for (size_t d = 0; d < 2; ++d) {
                    const size_t rows = rows_list[a], cols = cols_list[b];
                    const int mp = mp_list[c], w = w_list[d];
                    const yamr_rows_shape s = yamr__rows_shape(rows, cols, mp, w);
                    const int bpr = yamr__rows_blocks_per_row(rows, cols, mp);
                    const int warp = cols <= (size_t)YAMR__ROWS_WARP_MAX_PER_LANE * (size_t)w;
                    if ((s == YAMR_ROWS_WARP_PER_ROW) != warp)
                        failf("%zu x %zu, %d units, W%d: warp per row exactly for short rows", rows,
                              cols, mp, w);
                    if (!warp && (s == YAMR_ROWS_BLOCKS_PER_ROW) != (bpr >= 2))
                        failf("%zu x %zu, %d units, W%d: split exactly when two blocks per row pay",
                              rows, cols, mp, w);
                    if (bpr < 1 || bpr > YAMR__ROWS_SPLIT_MAX_BLOCKS_PER_ROW ||
                        (bpr >= 2 && ((size_t)bpr * rows > YAMR__ROWS_SPLIT_MAX_PARTIALS ||
                                      rows > YAMR__ROWS_SPLIT_MAX_ROWS ||
                                      cols / (size_t)bpr < YAMR__ROWS_SPLIT_MIN_PER_BLOCK ||
                                      rows >= (size_t)YAMR__ROWS_FEW_PER_UNIT * (size_t)mp)))
                        failf("%zu x %zu, %d units: %d blocks per row breaks a workspace or size "
                              "bound",
                              rows, cols, mp, bpr);
                }
    /* segments: split for few, else the warp kernel that hands long segments to the block */
    if (yamr__segments_shape(1000000, 132) != YAMR_ROWS_WARP_PER_ROW ||
        yamr__segments_shape(264, 132) != YAMR_ROWS_WARP_PER_ROW ||
        yamr__segments_shape(5, 132) != YAMR_ROWS_BLOCKS_PER_ROW ||
        yamr__segments_shape(1, 1) != YAMR_ROWS_BLOCKS_PER_ROW)
        failf("segments shape: few segments split, many take a warp each");
    const int bpr5 = yamr__rows_blocks_per_row(5, 0, 132);
    if (bpr5 != 106) failf("5 segments on 132 units: %d blocks per segment, expected 106", bpr5);
    if (strcmp(yamr_rows_shape_name(YAMR_ROWS_WARP_PER_ROW), "warp_per_row") ||
        strcmp(yamr_rows_shape_name(YAMR_ROWS_BLOCK_PER_ROW), "block_per_row") ||
        strcmp(yamr_rows_shape_name(YAMR_ROWS_BLOCKS_PER_ROW), "blocks_per_row") ||
        strcmp(yamr_rows_shape_name((yamr_rows_shape)YAMR_ROWS_SHAPE_COUNT), "invalid"))
        failf("yamr_rows_shape_name");
    end_test("shape choice");
}

/* The report names the last batched call on any backend. */
static void test_report_names_last_batch(void **state)
{
    (void)state;
    const float x[6] = {1, 5, 2, 7, 7, 0};
    assert_int_equal(yamr_copy_to_device(ctx, ctx_in, x, sizeof x), YAMR_SUCCESS);
    assert_int_equal(yamr_reduce_rows(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, ctx_in, 2, 3, 3,
                                      ctx_values, (int64_t *)ctx_second),
                     YAMR_SUCCESS);
    const char *line = strstr(yamr_report(ctx), "last call:");
    assert_non_null(line);
    assert_non_null(strstr(line, "rows f32 argmax, 2 x 3"));
    printf("  %.*s\n", (int)strcspn(line, "\n"), line);
    float v[2];
    int64_t i[2];
    assert_int_equal(yamr_copy_to_host(ctx, v, ctx_values, sizeof v), YAMR_SUCCESS);
    assert_int_equal(yamr_copy_to_host(ctx, i, ctx_second, sizeof i), YAMR_SUCCESS);
    assert_true(v[0] == 5 && i[0] == 1 && v[1] == 7 && i[1] == 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shape_choice),
        cmocka_unit_test(test_bad_arguments_write_nothing),
        cmocka_unit_test(test_report_names_last_batch),
        cmocka_unit_test(test_rows_reduce),
        cmocka_unit_test(test_segments_reduce),
        cmocka_unit_test(test_softmax_stats),
    };
    if (argc > 1 && strcmp(argv[1], "gpu") == 0) {
        yamr_context *probe;
        yamr_status s = yamr_create(&probe, 0);
        if (s != YAMR_SUCCESS) {
            printf("SKIPPED: no GPU (%s); the GPU batched tests need one\n", yamr_status_string(s));
            return 77;
        }
        yamr_destroy(probe);
        device = 0;
        if (argc > 2) cmocka_set_test_filter(argv[2]);
        return cmocka_run_group_tests_name("batched (gpu)", tests, setup, teardown);
    }
    return cmocka_run_group_tests_name("batched (cpu)", tests, setup, teardown);
}
