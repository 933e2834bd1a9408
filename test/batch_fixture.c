/* SPDX-License-Identifier: MIT */
/*
 * Batched reductions (include/yamr.h: rows, segments, softmax statistics) against a host
 * reference (reference.c, row by row; softmax statistics in double, two passes), on one backend:
 *   test_rows cpu [FILTER]
 *                   the CPU backend, and the shape choice on made-up devices
 *   test_rows gpu [FILTER]
 *                   GPU 0; exits 77 (skipped) when there is no GPU
 * FILTER: only the tests whose name matches it (e.g. '*softmax*').
 * Every failing case prints one line naming it (dtype, op, NaN policy, matrix, sync or async,
 * row) with what came back and what was expected; a test fails at its end if any case did.
 * Outputs are poisoned before every call, with guard entries past the last row.
 * This file: the fixture and main; the tests are in test_rows_matrix.c, test_segments.c,
 * test_softmax.c, test_batch_args.c and test_plan.c.
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

#include "batch_fixture.h"
#include "yamr_internal.h"

int device = YAMR_DEVICE_CPU;
yamr_context *ctx;
unsigned char *host_in; /* MAX_ELEMS * 8 */
int64_t *host_offsets; /* MAX_ROWS + 1 */
void *ctx_in, *ctx_values, *ctx_second, *ctx_offsets; /* the context's memory */
unsigned char *host_values, *host_second;
int shape_used[YAMR_ROWS_SHAPE_COUNT];

/* ---- failure log: one line per failing case, the first 60 printed ---- */

int failures;

void failf(const char *fmt, ...)
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

void end_test(const char *name)
{
    const int f = failures;
    failures = 0;
    if (f) fail_msg("%s: %d case(s) failed (the lines above)", name, f);
}

int setup(void **state)
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

int teardown(void **state)
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

const char *op_name(yamr_op op)
{
    static const char *const names[] = {"max", "min", "argmax", "argmin"};
    return names[op];
}

const char *policy_name(int p) { return p == YAMR_NAN_PROPAGATE ? "propagate" : "ignore"; }

int is_float(yamr_dtype t)
{
    return t == YAMR_DTYPE_F32 || t == YAMR_DTYPE_F64 || t == YAMR_DTYPE_F16 ||
           t == YAMR_DTYPE_BF16;
}

void store_bits(yamr_dtype t, void *base, size_t i, uint64_t b)
{
    memcpy((unsigned char *)base + i * yamr_dtype_size(t), &b, yamr_dtype_size(t));
}

/* Elements that change any answer if read: NaN, +inf, -inf for floats; the largest and the
 * smallest value for integers. Written between cols and ld, and around segments. */
uint64_t poison_element(yamr_dtype t, size_t i)
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
uint64_t empty_bits(yamr_dtype t)
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
void fill(int mode, yamr_dtype t, void *out, size_t n, uint64_t *rng)
{
    data_pattern p = (data_pattern)mode;
    if (mode == PATTERN_COUNT) do
            p = (data_pattern)(rng_next(rng) % PATTERN_COUNT);
        while (!pattern_applies(p, t));
    fill_pattern(p, t, out, n, rng);
}

const char *mode_name(int mode)
{
    return mode == PATTERN_COUNT ? "per_row" : pattern_name((data_pattern)mode);
}

void poison_outputs(void)
{
    memset(host_values, POISON, (MAX_ROWS + GUARD) * 8);
    memset(host_second, POISON, (MAX_ROWS + GUARD) * 8);
    assert_int_equal(yamr_copy_to_device(ctx, ctx_values, host_values, (MAX_ROWS + GUARD) * 8),
                     YAMR_SUCCESS);
    assert_int_equal(yamr_copy_to_device(ctx, ctx_second, host_second, (MAX_ROWS + GUARD) * 8),
                     YAMR_SUCCESS);
}

void fetch_outputs(void)
{
    assert_int_equal(yamr_copy_to_host(ctx, host_values, ctx_values, (MAX_ROWS + GUARD) * 8),
                     YAMR_SUCCESS);
    assert_int_equal(yamr_copy_to_host(ctx, host_second, ctx_second, (MAX_ROWS + GUARD) * 8),
                     YAMR_SUCCESS);
}

/* Bytes [from, to) of a fetched output still hold the poison. */
int untouched(const unsigned char *p, size_t from, size_t to)
{
    for (size_t b = from; b < to; ++b)
        if (p[b] != POISON) return 0;
    return 1;
}

/* One answer against the reference: value bits (NaN for an all-NaN row) and, if asked, index. */
void check_answer(const char *what, size_t row, yamr_dtype t, ref_result r, uint64_t got,
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
void note_shape(yamr_call call, yamr_op op, yamr_dtype t, size_t rows, size_t cols,
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
        last.grid_blocks != asked.grid_blocks || YAMR__PLAN_LANES_PER_ROW(&last) != YAMR__PLAN_LANES_PER_ROW(&asked) ||
        last.blocks_per_row != asked.blocks_per_row || last.index_bits != asked.index_bits)
    {
        char ran[512], says[512];
        yamr_plan_describe(ctx, &last, ran, sizeof ran);
        yamr_plan_describe(ctx, &asked, says, sizeof says);
        failf("%s: the call ran %s, yamr_plan_for says %s", what, ran, says);
    }
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

/* ---- the matrices of the rows and softmax tests ---- */

/* One column, one row, around warp widths, ld > cols, long rows that few rows split over blocks
 * on a GPU, many rows, and enough rows longer than one round of the block kernel's loads (4096
 * floats) that a GPU of up to 132 multiprocessors gives each its own block. */
const matrix_case matrices[] = {
    {1, 1, 1, 0},        {1000, 1, 1, 0},        {257, 1, 3, 1},       {1, 31, 31, 0},
    {1, 1000, 1000, 1},  {37, 31, 31, 0},        {40, 32, 32, 0},      {33, 33, 35, 3},
    {50, 100, 100, 0},   {20, 100, 101, 1},      {64, 255, 255, 0},    {300, 257, 257, 2},
    {17, 1000, 1000, 0}, {9, 1000, 1003, 1},     {3, 5000, 5000, 0},   {2, 5000, 5003, 1},
    {5, 4100, 4100, 0},  {1, 100003, 100003, 0}, {2, 70001, 70007, 5}, {600, 300, 300, 0},
    {3000, 40, 41, 0},   {264, 4100, 4104, 0},
};
const size_t matrix_count = sizeof matrices / sizeof matrices[0];

size_t matrix_elems(const matrix_case *m)
{
    return m->skew + (m->rows - 1) * m->ld + m->cols;
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shape_choice),
        cmocka_unit_test(test_policy_table),
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
    if (argc > 2) cmocka_set_test_filter(argv[2]);
    return cmocka_run_group_tests_name("batched (cpu)", tests, setup, teardown);
}
