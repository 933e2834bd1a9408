/* SPDX-License-Identifier: MIT */
/*
 * The CPU backend's own paths against the host reference (reference.c): every instruction set
 * compiled in that this CPU runs (baseline, AVX2, AVX-512), 1, 2 and 3 threads (the cap; ctest
 * runs this with OMP_NUM_THREADS=3 so that 3 are there, and again with OMP_NUM_THREADS=1), sizes
 * around the vector widths, the scan block and the thread-split thresholds, +-1. Also the split
 * key forms of yamr_keys.h against the reference keys, the segment length for any offsets, the
 * refusal of sizes whose bytes overflow size_t, and yamr_set_cpu_threads(). The fused pass of
 * short rows and segments (cpu_short.c) on every length 1..70 and around its limit. Softmax
 * statistics of one row (cpu_softmax.c) on every instruction set against a double reference.
 *   test_cpu [OMP_THREADS [threads]]   OMP_THREADS: the thread count OMP_NUM_THREADS set
 *                                      (checked); `threads`: only the tests of the count found
 *                                      and of the plans under each cap
 * ctest's cpu_omp1 runs `test_cpu 1 threads` with OMP_NUM_THREADS=1: every cap then plans one
 * thread, so the other tests would repeat cpu_threads' cap-1 calls on the same data (test_seed).
 * Outputs are poisoned before every call; every answer is also compared with the one-thread
 * baseline answer, which must be identical.
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
#include "yamr_keys.h"

static yamr_context *ctx;
static unsigned char *data;
static int expected_omp_threads; /* from the command line; 0: not checked */
static const int caps[] = {1, 2, 3};
#define CAP_COUNT 3
static int all_threads; /* yamr__cpu_threads_for() a long array without a cap: OpenMP's count */

/* Cap c plans what the cap before it plans when that one already allows every thread there is
 * (yamr__cpu_threads_for: the least of the cap and OpenMP's threads; 1 without OpenMP): the same
 * calls again, left out. cpu_threads (OMP_NUM_THREADS=3) runs every cap; test_threads_setting and
 * test_plan_is_what_runs check the clamp itself for every cap. */
static int cap_repeats(int c) { return c > 0 && caps[c - 1] >= all_threads; }

/* The largest size below: 3 thread shares of the narrowest dtype, and a block more. */
#define MAX_N (4 * (YAMR__CPU_MIN_BYTES_PER_THREAD / 2) + 2 * YAMR__CPU_BLOCK + 64)

static int setup(void **state)
{
    (void)state;
    if (yamr_create(&ctx, YAMR_DEVICE_CPU) != YAMR_SUCCESS) return -1;
    all_threads = yamr__cpu_threads_for(&ctx->cpu, (size_t)-1);
    data = (unsigned char *)malloc((size_t)MAX_N * 8);
    return data ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    free(data);
    yamr_destroy(ctx);
    return 0;
}

static uint64_t mask_of(yamr_dtype t)
{
    return yamr_dtype_size(t) == 8 ? ~0ull : ((1ull << (8 * yamr_dtype_size(t))) - 1);
}

/* ---- Keys: the split forms equal the reference keys ---- */

static uint32_t split_key32(uint32_t ord, int nan, int is_min, int nan_ignore)
{
    return nan ? (nan_ignore ? 0u : ~0u) : ord ^ (is_min ? ~0u : 0u);
}

static uint64_t split_key64(uint64_t ord, int nan, int is_min, int nan_ignore)
{
    return nan ? (nan_ignore ? 0u : ~0ull) : ord ^ (is_min ? ~0ull : 0u);
}

static void test_keys(void **state)
{
    (void)state;
    /* Halves, every bit pattern: the 16-bit key is the 32-bit one minus 1, NaN at the ends. */
    for (int bf = 0; bf < 2; ++bf) {
        const uint16_t inf = bf ? YAMR_BF16_INF : YAMR_F16_INF;
        for (uint32_t b = 0; b < 0x10000u; ++b)
            for (int v = 0; v < 4; ++v) {
                const int is_min = v & 1, ignore = v >> 1;
                const uint32_t ref = yamr__key_half(b, inf, is_min, ignore);
                const int nan = yamr__is_nan_half((uint16_t)b, inf);
                const uint16_t k = nan ? (uint16_t)(ignore ? 0u : 0xffffu)
                                       : (uint16_t)(yamr__ord_half16((uint16_t)b) ^ (is_min ? 0xffffu : 0u));
                const uint32_t want = ref == 0 ? 0u : ref == 0xffffffffu ? 0xffffu : ref - 1;
                if (k != want)
                    fail_msg("%s bits %04x min %d ignore %d: key %04x, want %04x",
                             bf ? "bf16" : "f16", b, is_min, ignore, k, want);
                if (!nan && (k == 0 || k == 0xffff)) fail_msg("a non-NaN half at the ends");
            }
    }
    /* 32 and 64 bits: specials, then random patterns. */
    static const uint64_t specials[] = {0, 0x8000000000000000ull, 1, 0x7fffffffffffffffull,
                                        0xffffffffffffffffull, 0x7ff0000000000000ull,
                                        0xfff0000000000000ull, 0x7ff0000000000001ull,
                                        0x7ff8000000000000ull, 0x7f800000u, 0xff800000u,
                                        0x7f800001u, 0x7fc00000u, 0x80000000u, 0xffffffffu};
    uint64_t rng = test_seed();
    for (int i = 0; i < 2000000; ++i) {
        const uint64_t b64 = i < 15 ? specials[i] : rng_next(&rng);
        const uint32_t b32 = (uint32_t)(i < 15 ? specials[i] : b64 >> 17);
        for (int v = 0; v < 4; ++v) {
            const int is_min = v & 1, ig = v >> 1;
            if (split_key32(yamr__ord_f32(b32), yamr__is_nan_f32(b32), is_min, ig) !=
                yamr__key_f32(b32, is_min, ig))
                fail_msg("f32 %08x min %d ignore %d", b32, is_min, ig);
            if (split_key32(yamr__ord_i32(b32), 0, is_min, ig) != yamr__key_i32(b32, is_min))
                fail_msg("i32 %08x min %d", b32, is_min);
            if (split_key32(b32, 0, is_min, ig) != yamr__key_u32(b32, is_min))
                fail_msg("u32 %08x min %d", b32, is_min);
            if (split_key64(yamr__ord_f64(b64), yamr__is_nan_f64(b64), is_min, ig) !=
                yamr__key_f64(b64, is_min, ig))
                fail_msg("f64 %016llx min %d ignore %d", (unsigned long long)b64, is_min, ig);
            if (split_key64(yamr__ord_i64(b64), 0, is_min, ig) != yamr__key_i64(b64, is_min))
                fail_msg("i64 %016llx min %d", (unsigned long long)b64, is_min);
        }
    }
}

/* ---- The scans: instruction sets x thread caps x sizes ---- */

typedef struct {
    uint64_t bits;
    int64_t index;
} answer;

/* One call (op < YAMR_OP_COUNT; YAMR_OP_COUNT: min+max, answer[0] MIN and [1] MAX) with
 * poisoned outputs; fails on a bad status or a write past a value. */
static void call(int op, yamr_dtype t, size_t n, answer out[2], const char *what)
{
    union {
        uint64_t bits;
        unsigned char bytes[8];
    } v[2];
    memset(v, 0xa5, sizeof v);
    int64_t index[2] = {0x7a5a5a5a5a5a5a5all, 0x7a5a5a5a5a5a5a5all};
    yamr_status s;
    if (op == YAMR_OP_COUNT)
        s = yamr_minmax(ctx, t, data, n, v[0].bytes, &index[0], v[1].bytes, &index[1]);
    else
        s = yamr_reduce(ctx, (yamr_op)op, t, data, n, v[0].bytes, &index[0]);
    if (s != YAMR_SUCCESS) fail_msg("%s: %s", what, yamr_status_string(s));
    for (int k = 0; k < 2; ++k) {
        for (size_t b = yamr_dtype_size(t); b < 8; ++b)
            if (v[k].bytes[b] != 0xa5) fail_msg("%s: wrote past the value", what);
        out[k].bits = v[k].bits & mask_of(t);
        out[k].index = index[k];
    }
}

static void expect_ref(yamr_dtype t, ref_result r, answer got, const char *what)
{
    if (got.index != r.index)
        fail_msg("%s: index %lld, expected %lld", what, (long long)got.index, (long long)r.index);
    if (r.index < 0 ? !bits_are_nan(t, got.bits) : got.bits != r.value_bits)
        fail_msg("%s: value bits %llx, expected %llx", what, (unsigned long long)got.bits,
                 (unsigned long long)r.value_bits);
}

/* Every op and min+max, both NaN policies, on data[0, n) of dtype t: the reference once, then
 * every instruction set and thread cap. Returns the checks made. */
static int check_all_paths(yamr_dtype t, size_t n, const char *pattern)
{
    int checks = 0;
    for (int p = 0; p <= YAMR_NAN_IGNORE; ++p) {
        assert_int_equal(yamr_set_nan_policy(ctx, (yamr_nan_policy)p), YAMR_SUCCESS);
        ref_result ref[YAMR_OP_COUNT];
        for (int op = 0; op < YAMR_OP_COUNT; ++op)
            ref[op] = ref_reduce((yamr_op)op, t, (yamr_nan_policy)p, data, n);
        for (int isa = 0; isa < YAMR__CPU_ISA_COUNT; ++isa) {
            if (!yamr__cpu_isa_runs_here((yamr__cpu_isa)isa)) continue;
            ctx->cpu.isa = (yamr__cpu_isa)isa;
            for (int c = 0; c < CAP_COUNT; ++c) {
                if (cap_repeats(c)) continue;
                assert_int_equal(yamr_set_cpu_threads(ctx, caps[c]), YAMR_SUCCESS);
                for (int op = 0; op <= YAMR_OP_COUNT; ++op) {
                    char what[160];
                    snprintf(what, sizeof what, "%s %s n=%zu op=%d nan=%d isa=%s threads<=%d",
                             yamr_dtype_name(t), pattern, n, op, p,
                             yamr__cpu_isa_name((yamr__cpu_isa)isa), caps[c]);
                    answer got[2];
                    call(op, t, n, got, what);
                    if (op < YAMR_OP_COUNT) {
                        expect_ref(t, ref[op], got[0], what);
                    } else {
                        expect_ref(t, ref[YAMR_OP_ARGMIN], got[0], what);
                        expect_ref(t, ref[YAMR_OP_ARGMAX], got[1], what);
                    }
                    ++checks;
                }
            }
        }
    }
    ctx->cpu.isa = yamr__cpu_detect_isa();
    assert_int_equal(yamr_set_cpu_threads(ctx, 0), YAMR_SUCCESS);
    return checks;
}

/* YAMR_TEST_MAX_N bounds the sizes (the sanitizer runs use it). */
static size_t max_n(void)
{
    const char *env = getenv("YAMR_TEST_MAX_N");
    return env ? (size_t)strtoull(env, NULL, 0) : (size_t)MAX_N;
}

static void test_scan_paths(void **state)
{
    (void)state;
    uint64_t rng = test_seed();
    const size_t limit = max_n();
    int checks = 0;
    for (int ti = 0; ti < YAMR_DTYPE_COUNT; ++ti) {
        const yamr_dtype t = (yamr_dtype)ti;
        const size_t share = YAMR__CPU_MIN_BYTES_PER_THREAD / yamr_dtype_size(t);
        const size_t block = YAMR__CPU_BLOCK;
        /* Vector widths (8 to 32 lanes, the find's chunks), the block, the thread shares. */
        const size_t sizes[] = {1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65,
                                block - 1, block, block + 1, 2 * block + 17,
                                share + 1, 2 * share - 1, 2 * share, /* 1 | 2 threads */
                                2 * share + 1, 3 * share - 1, 3 * share, 3 * share + 1, /* 3 */
                                3 * share + block + 33};
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
            const size_t n = sizes[si];
            if (n > limit) continue;
            for (int pat = 0; pat < PATTERN_COUNT; ++pat) {
                if (!pattern_applies((data_pattern)pat, t)) continue;
                if (n > 5000 && pat != PATTERN_MIXED && pat != PATTERN_FEW_NAN) continue;
                fill_pattern((data_pattern)pat, t, data, n, &rng);
                checks += check_all_paths(t, n, pattern_name((data_pattern)pat));
            }
        }
        /* The best value twice, in the second and third thread's shares, and at the very end:
         * the first one wins across the split. */
        const size_t n = 3 * share + 5;
        if (n <= limit) {
            if (pattern_applies(PATTERN_ALL_NEGATIVE, t))
                fill_pattern(PATTERN_ALL_NEGATIVE, t, data, n, &rng);
            else
                memset(data, 0, n * yamr_dtype_size(t));
            const size_t size = yamr_dtype_size(t);
            const size_t at[] = {share + 3, 2 * share + 1, n - 1};
            for (int k = 0; k < 3; ++k) { /* the largest finite element of each dtype */
                unsigned char top[8] = {0};
                switch (t) {
                case YAMR_DTYPE_F32: { const uint32_t b = 0x7f7fffffu; memcpy(top, &b, 4); break; }
                case YAMR_DTYPE_F64: { const uint64_t b = 0x7fefffffffffffffull; memcpy(top, &b, 8); break; }
                case YAMR_DTYPE_F16: { const uint16_t b = 0x7bffu; memcpy(top, &b, 2); break; }
                case YAMR_DTYPE_BF16: { const uint16_t b = 0x7f7fu; memcpy(top, &b, 2); break; }
                case YAMR_DTYPE_I32: { const uint32_t b = 0x7fffffffu; memcpy(top, &b, 4); break; }
                case YAMR_DTYPE_U32: { const uint32_t b = 0xffffffffu; memcpy(top, &b, 4); break; }
                case YAMR_DTYPE_I64: { const uint64_t b = 0x7fffffffffffffffull; memcpy(top, &b, 8); break; }
                }
                memcpy(data + at[k] * size, top, size);
            }
            checks += check_all_paths(t, n, "ties across the split");
        }
        /* Ascending values: every block beats the best so far (the find runs on each). */
        const size_t m = 2 * share + 3;
        if (m <= limit && (t == YAMR_DTYPE_F32 || t == YAMR_DTYPE_I64 || t == YAMR_DTYPE_U32)) {
            for (size_t i = 0; i < m; ++i) {
                if (t == YAMR_DTYPE_F32) ((float *)data)[i] = (float)i;
                else if (t == YAMR_DTYPE_I64) ((int64_t *)data)[i] = (int64_t)i - 100000;
                else ((uint32_t *)data)[i] = (uint32_t)i;
            }
            checks += check_all_paths(t, m, "ascending");
        }
    }
    printf("  %d checks passed\n", checks);
    assert_true(checks > 0);
}

/* ---- Batched calls: rows and segments spread or split over 1, 2 and 3 threads ---- */

static void check_rows_case(yamr_dtype t, size_t rows, size_t cols, size_t ld, uint64_t *rng)
{
    const size_t elem = yamr_dtype_size(t);
    fill_pattern(PATTERN_MIXED, t, data, (rows - 1) * ld + cols, rng);
    unsigned char values[64 * 8 + 8];
    int64_t indices[64 + 1];
    for (int p = 0; p <= YAMR_NAN_IGNORE; ++p) {
        assert_int_equal(yamr_set_nan_policy(ctx, (yamr_nan_policy)p), YAMR_SUCCESS);
        for (int c = 0; c < CAP_COUNT; ++c) {
            if (cap_repeats(c)) continue;
            assert_int_equal(yamr_set_cpu_threads(ctx, caps[c]), YAMR_SUCCESS);
            for (int op = 0; op < YAMR_OP_COUNT; ++op) {
                memset(values, 0xa5, sizeof values);
                memset(indices, 0xa5, sizeof indices);
                assert_int_equal(yamr_reduce_rows(ctx, (yamr_op)op, t, data, rows, cols, ld,
                                                  values, indices),
                                 YAMR_SUCCESS);
                if (values[rows * elem] != 0xa5 || indices[rows] != (int64_t)0xa5a5a5a5a5a5a5a5ull)
                    fail_msg("rows: wrote past the last row");
                for (size_t r = 0; r < rows; ++r) {
                    char what[160];
                    snprintf(what, sizeof what, "rows %s %zu x %zu ld %zu row %zu op %d nan %d threads<=%d",
                             yamr_dtype_name(t), rows, cols, ld, r, op, p, caps[c]);
                    const ref_result ref =
                        ref_reduce((yamr_op)op, t, (yamr_nan_policy)p, data + r * ld * elem, cols);
                    answer got = {load_bits(t, values, r), indices[r]};
                    if (op == YAMR_OP_MAX || op == YAMR_OP_MIN) got.index = ref.index;
                    expect_ref(t, ref, got, what);
                }
            }
        }
    }
    assert_int_equal(yamr_set_cpu_threads(ctx, 0), YAMR_SUCCESS);
}

static void test_rows_paths(void **state)
{
    (void)state;
    uint64_t rng = test_seed();
    const size_t limit = max_n();
    const size_t share = YAMR__CPU_MIN_BYTES_PER_THREAD / 4;
    /* few long rows (each split), many short rows (spread), both around the thresholds */
    const size_t shapes[][3] = {{1, 3 * share + 1, 3 * share + 1}, {2, share + 1, share + 9},
                                {3, 2 * share - 1, 2 * share}, {11, share / 4 + 3, share / 4 + 3},
                                {64, 129, 131}, {64, 2 * share / 64 + 1, 2 * share / 64 + 1},
                                {13, 1, 1}, {5, 1000, 1000}};
    for (int ti = 0; ti < YAMR_DTYPE_COUNT; ++ti)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
            if ((shapes[s][0] - 1) * shapes[s][2] + shapes[s][1] <= limit)
                check_rows_case((yamr_dtype)ti, shapes[s][0], shapes[s][1], shapes[s][2], &rng);
}

/* ---- Short rows and segments: the fused pass of cpu_short.c ---- */

/* The reference answer of every op on each of `rows` rows (segments) of data, under policy p. */
static void short_reference(yamr_dtype t, yamr_nan_policy p, size_t rows, const int64_t *offsets,
                            size_t cols, size_t ld, ref_result *ref)
{
    const size_t elem = yamr_dtype_size(t);
    for (size_t r = 0; r < rows; ++r) {
        const size_t begin = offsets ? (size_t)offsets[r] : r * ld;
        const size_t n = offsets ? (size_t)(offsets[r + 1] - offsets[r]) : cols;
        for (int op = 0; op < YAMR_OP_COUNT; ++op) {
            ref_result empty = {-1, yamr__empty_value_bits(t)};
            ref[r * YAMR_OP_COUNT + (size_t)op] =
                n ? ref_reduce((yamr_op)op, t, p, data + begin * elem, n) : empty;
        }
    }
}

/* Every op, both NaN policies, every instruction set and thread cap on rows x cols (ld) or on
 * `rows` segments (offsets non-NULL, non-decreasing); each answer against the reference. */
static void check_short_case(yamr_dtype t, size_t rows, size_t cols, size_t ld,
                             const int64_t *offsets, const char *pattern)
{
    const size_t elem = yamr_dtype_size(t);
    ref_result *ref = (ref_result *)malloc(rows * YAMR_OP_COUNT * sizeof *ref);
    /* The outputs start `shift` elements into their buffers, a different shift each call, so
     * that the streamed answers (cpu_short.c) start at every offset in a 64-byte line. */
    static unsigned calls;
    const size_t shift = calls++ % 16;
    unsigned char *values_buffer = (unsigned char *)malloc((rows + 1 + shift) * 8);
    int64_t *indices_buffer = (int64_t *)malloc((rows + 1 + shift) * sizeof *indices_buffer);
    assert_non_null(ref);
    assert_non_null(values_buffer);
    assert_non_null(indices_buffer);
    unsigned char *values = values_buffer + shift * elem;
    int64_t *indices = indices_buffer + shift;
    /* Below two threads' worth of bytes every cap runs one thread: one cap is enough. */
    const size_t bytes = (offsets ? (size_t)offsets[rows] : rows * ld) * elem;
    const int cap_count = bytes < 2 * (size_t)YAMR__CPU_MIN_BYTES_PER_THREAD ? 1 : CAP_COUNT;
    for (int p = 0; p <= YAMR_NAN_IGNORE; ++p) {
        assert_int_equal(yamr_set_nan_policy(ctx, (yamr_nan_policy)p), YAMR_SUCCESS);
        short_reference(t, (yamr_nan_policy)p, rows, offsets, cols, ld, ref);
        for (int isa = 0; isa < YAMR__CPU_ISA_COUNT; ++isa) {
            if (!yamr__cpu_isa_runs_here((yamr__cpu_isa)isa)) continue;
            ctx->cpu.isa = (yamr__cpu_isa)isa;
            /* Matrix rows also with every answer streamed (non-temporal stores). */
            for (int cs = 0; cs < cap_count * (offsets ? 1 : 2); ++cs) {
                const int c = cs % cap_count, streamed = cs >= cap_count;
                if (cap_repeats(c)) continue;
                ctx->cpu.stream_answer_bytes = streamed ? 0 : YAMR__CPU_STREAM_ANSWER_BYTES;
                assert_int_equal(yamr_set_cpu_threads(ctx, caps[c]), YAMR_SUCCESS);
                for (int op = 0; op < YAMR_OP_COUNT; ++op) {
                    memset(values_buffer, 0xa5, (rows + 1 + shift) * 8);
                    memset(indices_buffer, 0xa5, (rows + 1 + shift) * sizeof *indices_buffer);
                    const yamr_status s =
                        offsets ? yamr_reduce_segments(ctx, (yamr_op)op, t, data, offsets, rows,
                                                       values, indices)
                                : yamr_reduce_rows(ctx, (yamr_op)op, t, data, rows, cols, ld,
                                                   values, indices);
                    assert_int_equal(s, YAMR_SUCCESS);
                    if (values[rows * elem] != 0xa5 ||
                        indices[rows] != (int64_t)0xa5a5a5a5a5a5a5a5ull)
                        fail_msg("short rows: wrote past the last row");
                    for (size_t k = 0; k < shift; ++k)
                        if (values_buffer[k * elem] != 0xa5 ||
                            indices_buffer[k] != (int64_t)0xa5a5a5a5a5a5a5a5ull)
                            fail_msg("short rows: wrote before the first row");
                    for (size_t r = 0; r < rows; ++r) {
                        const ref_result want = ref[r * YAMR_OP_COUNT + (size_t)op];
                        answer got = {load_bits(t, values, r), indices[r]};
                        if (op == YAMR_OP_MAX || op == YAMR_OP_MIN) got.index = want.index;
                        if (offsets && offsets[r + 1] == offsets[r]) { /* empty segment */
                            if (got.index != -1 || got.bits != yamr__empty_value_bits(t))
                                fail_msg("empty segment %zu gave %llx@%lld", r,
                                         (unsigned long long)got.bits, (long long)got.index);
                            continue;
                        }
                        /* The message only for a failure: it costs more than the check. */
                        if (got.index == want.index && (want.index < 0 ? bits_are_nan(t, got.bits)
                                                                       : got.bits == want.value_bits))
                            continue;
                        char what[200];
                        snprintf(what, sizeof what,
                                 "short %s %s %s %zu (of %zu) cols %zu op %d nan %d isa %s "
                                 "threads<=%d streamed %d shift %zu",
                                 offsets ? "segments" : "rows", yamr_dtype_name(t), pattern, r,
                                 rows, offsets ? (size_t)(offsets[r + 1] - offsets[r]) : cols, op,
                                 p, yamr__cpu_isa_name((yamr__cpu_isa)isa), caps[c], streamed,
                                 shift);
                        expect_ref(t, want, got, what);
                    }
                }
            }
        }
    }
    ctx->cpu.isa = yamr__cpu_detect_isa();
    ctx->cpu.stream_answer_bytes = YAMR__CPU_STREAM_ANSWER_BYTES;
    assert_int_equal(yamr_set_cpu_threads(ctx, 0), YAMR_SUCCESS);
    free(ref);
    free(values_buffer);
    free(indices_buffer);
}

/* Rows of every length 1..70 (the vectors hold 8 to 64 lanes; rows under a vector's lanes are
 * taken many rows at a time), around 128 and 256 and the fused pass's limit, every pattern
 * (NaN, ties, -0.0 and +0.0, all lowest, all NaN); more rows than lanes, an odd count, and a
 * padded leading dimension. Then, long enough to spread over threads, rows of 5, 16, 100, 128. */
static void test_short_rows(void **state)
{
    (void)state;
    uint64_t rng = test_seed();
    const size_t limit = max_n();
    size_t lengths[96];
    size_t count = 0;
    for (size_t n = 1; n <= 70; ++n) lengths[count++] = n;
    /* 1023-1025 and 1151: the chunks of 8 vectors (cpu_short.c), a partial last one */
    const size_t more[] = {127, 128, 129, 255, 257, 1023, 1024, 1025, 1151,
                           YAMR__CPU_SHORT_ROW - 1, YAMR__CPU_SHORT_ROW, YAMR__CPU_SHORT_ROW + 1};
    for (size_t k = 0; k < sizeof more / sizeof more[0]; ++k) lengths[count++] = more[k];
    for (int ti = 0; ti < YAMR_DTYPE_COUNT; ++ti) {
        const yamr_dtype t = (yamr_dtype)ti;
        for (size_t k = 0; k < count; ++k) {
            const size_t cols = lengths[k];
            const size_t rows = cols > 300 ? 5 : 133, ld = cols + (k % 3 == 1 ? 3 : 0);
            if ((rows - 1) * ld + cols > limit) continue;
            for (int pat = 0; pat < PATTERN_COUNT; ++pat) {
                if (!pattern_applies((data_pattern)pat, t)) continue;
                if (cols > YAMR__CPU_SHORT_ROW && pat != PATTERN_MIXED && pat != PATTERN_FEW_NAN)
                    continue;
                fill_pattern((data_pattern)pat, t, data, (rows - 1) * ld + cols, &rng);
                check_short_case(t, rows, cols, ld, NULL, pattern_name((data_pattern)pat));
            }
        }
        const size_t share = YAMR__CPU_MIN_BYTES_PER_THREAD / yamr_dtype_size(t);
        static const size_t spread_cols[] = {5, 16, 100, 128}; /* 16, 128: cpu_short.c's groups */
        for (int k = 0; k < 4; ++k) {
            const size_t cols = spread_cols[k], rows = 3 * share / cols + 67;
            if (rows * cols > limit) continue;
            fill_pattern(PATTERN_MIXED, t, data, rows * cols, &rng);
            check_short_case(t, rows, cols, cols, NULL, "mixed, spread");
        }
    }
}

/* Segments of every length 0..70 in random order, then long enough to spread over threads. */
static void test_short_segments(void **state)
{
    (void)state;
    uint64_t rng = test_seed();
    const size_t limit = max_n();
    for (int ti = 0; ti < YAMR_DTYPE_COUNT; ++ti) {
        const yamr_dtype t = (yamr_dtype)ti;
        const size_t share = YAMR__CPU_MIN_BYTES_PER_THREAD / yamr_dtype_size(t);
        for (int big = 0; big < 2; ++big) {
            const size_t segments = big ? 3 * share / 35 + 71 : 3 * 71;
            int64_t *offsets = (int64_t *)malloc((segments + 1) * sizeof *offsets);
            assert_non_null(offsets);
            offsets[0] = 3;
            for (size_t s = 0; s < segments; ++s) {
                const size_t len = big ? (size_t)(rng_next(&rng) % 71) : (s * 37) % 71;
                offsets[s + 1] = offsets[s] + (int64_t)len;
            }
            if ((size_t)offsets[segments] <= limit) {
                for (int pat = 0; pat < PATTERN_COUNT; ++pat) {
                    if (!pattern_applies((data_pattern)pat, t)) continue;
                    if (big && pat != PATTERN_MIXED) continue;
                    fill_pattern((data_pattern)pat, t, data, (size_t)offsets[segments], &rng);
                    check_short_case(t, segments, 0, 0, offsets, pattern_name((data_pattern)pat));
                }
            }
            free(offsets);
        }
    }
}

static void test_segments_paths(void **state)
{
    (void)state;
    uint64_t rng = test_seed();
    const size_t limit = max_n();
    enum { SEGMENTS = 61 };
    int64_t offsets[SEGMENTS + 1];
    for (int ti = 0; ti < YAMR_DTYPE_COUNT; ++ti) {
        const yamr_dtype t = (yamr_dtype)ti;
        const size_t elem = yamr_dtype_size(t);
        /* two segments long enough to split, the others short, some empty or decreasing */
        const uint64_t share = YAMR__CPU_MIN_BYTES_PER_THREAD / elem;
        offsets[0] = 7;
        for (int s = 0; s < SEGMENTS; ++s) {
            const uint64_t r = rng_next(&rng);
            const int64_t len = s < 2   ? (int64_t)(share - 1 + r % (share / 2)) /* split */
                                : r % 5 == 0 ? 0
                                : r % 7 == 0 ? -3
                                             : (int64_t)(r % 300);
            offsets[s + 1] = offsets[s] + len;
            if (offsets[s + 1] < 0) offsets[s + 1] = 0;
        }
        int64_t end = 0;
        for (int s = 0; s <= SEGMENTS; ++s) end = offsets[s] > end ? offsets[s] : end;
        if ((size_t)end > limit) continue;
        fill_pattern(PATTERN_MIXED, t, data, (size_t)end, &rng);
        unsigned char values[SEGMENTS * 8];
        int64_t indices[SEGMENTS];
        for (int p = 0; p <= YAMR_NAN_IGNORE; ++p) {
            assert_int_equal(yamr_set_nan_policy(ctx, (yamr_nan_policy)p), YAMR_SUCCESS);
            for (int c = 0; c < CAP_COUNT; ++c) {
                if (cap_repeats(c)) continue;
                assert_int_equal(yamr_set_cpu_threads(ctx, caps[c]), YAMR_SUCCESS);
                memset(values, 0xa5, sizeof values);
                assert_int_equal(yamr_reduce_segments(ctx, YAMR_OP_ARGMAX, t, data, offsets,
                                                      SEGMENTS, values, indices),
                                 YAMR_SUCCESS);
                for (int s = 0; s < SEGMENTS; ++s) {
                    char what[160];
                    snprintf(what, sizeof what, "segments %s #%d [%lld, %lld) nan %d threads<=%d",
                             yamr_dtype_name(t), s, (long long)offsets[s],
                             (long long)offsets[s + 1], p, caps[c]);
                    answer got = {load_bits(t, values, (size_t)s), indices[s]};
                    if (offsets[s + 1] <= offsets[s]) {
                        if (got.index != -1 || got.bits != yamr__empty_value_bits(t))
                            fail_msg("%s: empty segment gave %llx@%lld", what,
                                     (unsigned long long)got.bits, (long long)got.index);
                        continue;
                    }
                    expect_ref(t, ref_reduce(YAMR_OP_ARGMAX, t, (yamr_nan_policy)p,
                                             data + (size_t)offsets[s] * elem,
                                             (size_t)(offsets[s + 1] - offsets[s])),
                               got, what);
                }
            }
        }
    }
    assert_int_equal(yamr_set_cpu_threads(ctx, 0), YAMR_SUCCESS);
}

/* Softmax rows over 1, 2 and 3 threads: the same per-row arithmetic, so the same bits. */
static void test_softmax_threads(void **state)
{
    (void)state;
    uint64_t rng = test_seed();
    const size_t rows = 37, cols = 3001;
    for (int ti = 0; ti < 2; ++ti) {
        const yamr_dtype t = ti ? YAMR_DTYPE_F64 : YAMR_DTYPE_F32;
        fill_pattern(PATTERN_FEW_NAN, t, data, rows * cols, &rng);
        double first[2][37], got[2][37];
        for (int c = 0; c < CAP_COUNT; ++c) {
            assert_int_equal(yamr_set_cpu_threads(ctx, caps[c]), YAMR_SUCCESS);
            memset(got, 0xa5, sizeof got);
            assert_int_equal(yamr_softmax_stats_rows(ctx, t, data, rows, cols, cols, got[0], got[1]),
                             YAMR_SUCCESS);
            if (c == 0) memcpy(first, got, sizeof got);
            else if (memcmp(first, got, sizeof got) != 0)
                fail_msg("softmax %s: %d threads differ from 1", yamr_dtype_name(t), caps[c]);
        }
    }
    assert_int_equal(yamr_set_cpu_threads(ctx, 0), YAMR_SUCCESS);
}

/* One softmax row of every instruction set against the reference: lengths around the vector
 * widths, the float runs of the sum and the block, every pattern plus values in [-20, 20] (where
 * most terms count) with -inf among them, both NaN policies. */
static void test_softmax_paths(void **state)
{
    (void)state;
    uint64_t rng = test_seed() ^ 0x50f7;
    static const size_t lengths[] = {1,    2,    7,    8,    9,    15,   16,   17,   31,   32,
                                     33,   63,   64,   65,   255,  256,  257,  1000, 2047, 2048,
                                     2049, 4095, 4096, 4097, 6001};
    for (int ti = 0; ti < 2; ++ti) {
        const yamr_dtype t = ti ? YAMR_DTYPE_F64 : YAMR_DTYPE_F32;
        const double tol = ti ? 1e-12 : 1e-5;
        for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; ++li) {
            const size_t n = lengths[li];
            for (int p = 0; p <= PATTERN_COUNT; ++p) {
                if (p < PATTERN_COUNT) {
                    fill_pattern((data_pattern)p, t, data, n, &rng);
                } else {
                    for (size_t i = 0; i < n; ++i) {
                        const uint64_t r = rng_next(&rng);
                        const double v = r % 11 == 0 ? -INFINITY
                                                     : (double)(r >> 11) * 0x1p-53 * 40.0 - 20.0;
                        if (ti) ((double *)data)[i] = v;
                        else ((float *)data)[i] = (float)v;
                    }
                }
                for (int ignore = 0; ignore < 2; ++ignore) {
                    double want_m, want_s;
                    ref_softmax_row(t, data, n, ignore, &want_m, &want_s);
                    double base_m = 0, base_s = 0;
                    for (int isa = 0; isa < YAMR__CPU_ISA_COUNT; ++isa) {
                        if (!yamr__cpu_isa_runs_here((yamr__cpu_isa)isa)) continue;
                        double got_m, got_s;
                        yamr__cpu_softmax_row((yamr__cpu_isa)isa, t, ignore, data, n, &got_m,
                                              &got_s);
                        if (isa == YAMR__CPU_ISA_BASELINE) base_m = got_m, base_s = got_s;
                        /* AVX2 sums in the baseline's arithmetic (the maximum's zero may
                         * take either sign: the copies' vector widths differ) */
                        if (isa == YAMR__CPU_ISA_AVX2 &&
                            (!(got_m == base_m || (got_m != got_m && base_m != base_m)) ||
                             memcmp(&got_s, &base_s, sizeof got_s) != 0))
                            fail_msg("softmax avx2 %s n %zu pattern %d nan=%s: max %.17g sum "
                                     "%.17g, the baseline's %.17g %.17g",
                                     yamr_dtype_name(t), n, p, ignore ? "ignore" : "propagate",
                                     got_m, got_s, base_m, base_s);
                        const int max_ok = want_m != want_m ? got_m != got_m : got_m == want_m;
                        const int sum_ok = want_s != want_s ? got_s != got_s
                                           : want_s == 0 || isinf(want_s)
                                               ? got_s == want_s
                                               : fabs(got_s - want_s) <= tol * want_s;
                        if (!max_ok || !sum_ok)
                            fail_msg("softmax %s %s n %zu pattern %d nan=%s: max %.17g sum %.17g, "
                                     "expected %.17g %.17g",
                                     yamr__cpu_isa_name((yamr__cpu_isa)isa), yamr_dtype_name(t), n,
                                     p, ignore ? "ignore" : "propagate", got_m, got_s, want_m,
                                     want_s);
                    }
                }
            }
        }
    }
}

/* ---- Sizes, offsets and settings ---- */

static void test_size_overflow(void **state)
{
    (void)state;
    for (int ti = 0; ti < YAMR_DTYPE_COUNT; ++ti) {
        const yamr_dtype t = (yamr_dtype)ti;
        const size_t n = SIZE_MAX / yamr_dtype_size(t) + 1; /* n * size wraps */
        unsigned char v[8], w[8];
        int64_t i = 42, j = 43;
        memset(v, 0xa5, sizeof v);
        memset(w, 0xa5, sizeof w);
        assert_int_equal(yamr_reduce(ctx, YAMR_OP_ARGMAX, t, data, n, v, &i), YAMR_ERROR_INVALID_VALUE);
        assert_non_null(strstr(yamr_last_error(ctx), "yamr_reduce: n ("));
        assert_non_null(strstr(yamr_last_error(ctx), "overflow size_t"));
        assert_int_equal(yamr_reduce_async(ctx, YAMR_OP_MAX, t, data, n, v, &i),
                         YAMR_ERROR_INVALID_VALUE);
        assert_int_equal(yamr_minmax(ctx, t, data, n, v, &i, w, &j), YAMR_ERROR_INVALID_VALUE);
        assert_int_equal(yamr_minmax(ctx, t, data, SIZE_MAX, v, &i, w, &j), YAMR_ERROR_INVALID_VALUE);
        assert_non_null(strstr(yamr_last_error(ctx), "yamr_minmax: n ("));
        for (int b = 0; b < 8; ++b) assert_int_equal(v[b] & w[b], 0xa5);
        assert_int_equal(i, 42);
        assert_int_equal(j, 43);
    }
}

static void test_segment_length(void **state)
{
    (void)state;
    assert_true(yamr__segment_length(-1, INT64_MAX) == (uint64_t)1 << 63);
    assert_true(yamr__segment_length(INT64_MIN, INT64_MAX) == UINT64_MAX);
    assert_true(yamr__segment_length(INT64_MIN, -1) == (uint64_t)INT64_MAX);
    assert_true(yamr__segment_length(INT64_MAX, INT64_MIN) == 0);
    assert_true(yamr__segment_length(INT64_MIN, INT64_MIN) == 0);
    assert_true(yamr__segment_length(5, 5) == 0);
    assert_true(yamr__segment_length(5, 3) == 0);
    assert_true(yamr__segment_length(0, 7) == 7);
    assert_true(yamr__segment_length(-9, -2) == 7);
    /* Empty segments at extreme offsets read nothing and give the empty answer. */
    const int64_t offsets[] = {INT64_MAX, 5, 5, -1, -5, INT64_MIN, INT64_MIN}; /* non-increasing */
    const size_t segments = sizeof offsets / sizeof offsets[0] - 1;
    float values[8];
    int64_t indices[8];
    for (int c = 0; c < CAP_COUNT; ++c) {
        assert_int_equal(yamr_set_cpu_threads(ctx, caps[c]), YAMR_SUCCESS);
        memset(indices, 0, sizeof indices);
        assert_int_equal(yamr_reduce_segments(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, data, offsets,
                                              segments, values, indices),
                         YAMR_SUCCESS);
        for (size_t s = 0; s < segments; ++s) {
            uint32_t bits;
            memcpy(&bits, &values[s], 4);
            assert_int_equal(indices[s], -1);
            assert_int_equal(bits, YAMR__QUIET_NAN_F32);
        }
    }
    assert_int_equal(yamr_set_cpu_threads(ctx, 0), YAMR_SUCCESS);
}

static void test_threads_setting(void **state)
{
    (void)state;
    assert_int_equal(yamr_set_cpu_threads(NULL, 1), YAMR_ERROR_INVALID_VALUE);
    assert_string_equal(yamr_last_error(NULL), "yamr_set_cpu_threads: ctx is NULL");
    assert_int_equal(yamr_set_cpu_threads(ctx, -1), YAMR_ERROR_INVALID_VALUE);
    assert_string_equal(yamr_last_error(ctx), "yamr_set_cpu_threads: threads (-1) < 0");
    assert_int_equal(ctx->cpu.max_threads, 0); /* kept on failure */
    const size_t big = (size_t)1 << 40;
    const int all = yamr__cpu_threads_for(&ctx->cpu, big);
    printf("  OpenMP: %s; threads for a long array: %d; instruction set: %s\n",
           yamr__cpu_with_openmp() ? "yes" : "no", all, yamr__cpu_isa_name(ctx->cpu.isa));
    if (!yamr__cpu_with_openmp()) assert_int_equal(all, 1);
    else if (expected_omp_threads > 0) assert_int_equal(all, expected_omp_threads);
    assert_int_equal(yamr__cpu_threads_for(&ctx->cpu, 1), 1); /* too short to split */
    for (int n = 1; n <= 3; ++n) {
        assert_int_equal(yamr_set_cpu_threads(ctx, n), YAMR_SUCCESS);
        const int got = yamr__cpu_threads_for(&ctx->cpu, big);
        assert_true(got >= 1 && got <= n && got <= all);
        if (yamr__cpu_with_openmp() && n <= all) assert_int_equal(got, n);
    }
    assert_int_equal(yamr_set_cpu_threads(ctx, 0), YAMR_SUCCESS);
    assert_int_equal(yamr__cpu_threads_for(&ctx->cpu, big), all);
    /* The report of a batched call names the instruction set. */
    float v;
    assert_int_equal(yamr_reduce_rows(ctx, YAMR_OP_MAX, YAMR_DTYPE_F32, data, 1, 1, 1, &v, NULL),
                     YAMR_SUCCESS);
    assert_non_null(strstr(yamr_report(ctx), yamr__cpu_isa_name(ctx->cpu.isa)));
    for (int isa = 0; isa < YAMR__CPU_ISA_COUNT; ++isa)
        printf("  %s: %s\n", yamr__cpu_isa_name((yamr__cpu_isa)isa),
               yamr__cpu_isa_runs_here((yamr__cpu_isa)isa) ? "tested"
                                                           : "skipped (not compiled in or not on this CPU)");
}

/* ---- The CPU plan is what runs ---- */

/* After a call, yamr_last_plan() is yamr_plan_for()'s plan (want), threads and splits included,
 * and within the cap. */
static void expect_plan_ran(const yamr_plan *want, const char *what, int cap)
{
    yamr_plan got;
    assert_int_equal(yamr_last_plan(ctx, &got), YAMR_SUCCESS);
    char a[320], b[320];
    yamr_plan_describe(ctx, &got, a, sizeof a);
    yamr_plan_describe(ctx, want, b, sizeof b);
    if (got.kernel != YAMR_KERNEL_CPU || memcmp(got.internal, want->internal, sizeof got.internal))
        fail_msg("%s, cap %d: ran \"%s\", yamr_plan_for says \"%s\"", what, cap, a, b);
    const unsigned threads = YAMR__PLAN_CPU_THREADS(&got);
    if (threads < 1 || (cap > 0 && threads > (unsigned)cap))
        fail_msg("%s, cap %d: %u threads (%s)", what, cap, threads, a);
}

static void test_plan_is_what_runs(void **state)
{
    (void)state;
    const size_t n = (size_t)1 << 20; /* 4 MiB of f32: MAX_N * 8 bytes hold it */
    const int all = yamr__cpu_threads_for(&ctx->cpu, (size_t)-1);
    static double values[2048 * 10], second[2048];
    static int64_t indices[2048 * 10], offsets[4] = {0, 400000, 400001, 1000000};
    memset(data, 0, n * 4); /* plans only: any data */
    for (int c = 0; c <= CAP_COUNT; ++c) {
        const int cap = c < CAP_COUNT ? caps[c] : 0;
        assert_int_equal(yamr_set_cpu_threads(ctx, cap), YAMR_SUCCESS);
        yamr_plan want;
        assert_int_equal(yamr_plan_for(ctx, YAMR_CALL_REDUCE, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, 1, n,
                                       &want), YAMR_SUCCESS);
        assert_int_equal(yamr_reduce(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, data, n, values, indices),
                         YAMR_SUCCESS);
        expect_plan_ran(&want, "reduce 2^20", cap);
        /* a split grid-wide call: every thread the cap allows */
        const int most = cap > 0 && cap < all ? cap : all;
        assert_int_equal((int)YAMR__PLAN_CPU_THREADS(&want), most);
        assert_int_equal((int)YAMR__PLAN_CPU_SPLIT(&want), most > 1);

        static const size_t shapes[][2] = {{2, 500000}, {1000, 1000}, {2048, 100}, {7, 100000}};
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i) {
            const size_t rows = shapes[i][0], cols = shapes[i][1];
            char what[64];
            snprintf(what, sizeof what, "rows %zu x %zu", rows, cols);
            assert_int_equal(yamr_plan_for(ctx, YAMR_CALL_ROWS, YAMR_OP_ARGMIN, YAMR_DTYPE_F32,
                                           rows, cols, &want), YAMR_SUCCESS);
            assert_int_equal(yamr_reduce_rows(ctx, YAMR_OP_ARGMIN, YAMR_DTYPE_F32, data, rows,
                                              cols, cols, values, indices), YAMR_SUCCESS);
            expect_plan_ran(&want, what, cap);
            snprintf(what, sizeof what, "softmax %zu x %zu", rows, cols);
            assert_int_equal(yamr_plan_for(ctx, YAMR_CALL_SOFTMAX_STATS, YAMR_OP_MAX,
                                           YAMR_DTYPE_F32, rows, cols, &want), YAMR_SUCCESS);
            assert_int_equal(yamr_softmax_stats_rows(ctx, YAMR_DTYPE_F32, data, rows, cols, cols,
                                                     values, second), YAMR_SUCCESS);
            expect_plan_ran(&want, what, cap);
            snprintf(what, sizeof what, "topk %zu x %zu k 10", rows, cols);
            assert_int_equal(yamr_plan_for_topk(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, rows, cols, 10,
                                                &want), YAMR_SUCCESS);
            assert_int_equal(yamr_topk_rows(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, data, rows, cols,
                                            cols, 10, values, indices), YAMR_SUCCESS);
            expect_plan_ran(&want, what, cap);
            /* two long rows: each split over every thread; many: spread */
            if (i == 0) assert_int_equal((int)YAMR__PLAN_CPU_SPLIT(&want), most > 1);
            if (i == 1) assert_int_equal((int)YAMR__PLAN_CPU_SPLIT(&want), 0);
            if (i == 1) assert_int_equal((int)YAMR__PLAN_CPU_THREADS(&want), most);
        }
        assert_int_equal(yamr_plan_for(ctx, YAMR_CALL_SEGMENTS, YAMR_OP_MAX, YAMR_DTYPE_F32, 3, 0,
                                       &want), YAMR_SUCCESS);
        assert_int_equal(yamr_reduce_segments(ctx, YAMR_OP_MAX, YAMR_DTYPE_F32, data, offsets, 3,
                                              values, NULL), YAMR_SUCCESS);
        expect_plan_ran(&want, "segments 3", cap);
    }
    assert_int_equal(yamr_set_cpu_threads(ctx, 0), YAMR_SUCCESS);
}

int main(int argc, char **argv)
{
    expected_omp_threads = argc > 1 ? atoi(argv[1]) : 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_setting), cmocka_unit_test(test_keys),
        cmocka_unit_test(test_size_overflow),   cmocka_unit_test(test_segment_length),
        cmocka_unit_test(test_scan_paths),      cmocka_unit_test(test_rows_paths),
        cmocka_unit_test(test_segments_paths),  cmocka_unit_test(test_softmax_threads),
        cmocka_unit_test(test_softmax_paths),
        cmocka_unit_test(test_short_rows),      cmocka_unit_test(test_short_segments),
        cmocka_unit_test(test_plan_is_what_runs),
    };
    const struct CMUnitTest thread_tests[] = {
        cmocka_unit_test(test_threads_setting),
        cmocka_unit_test(test_plan_is_what_runs),
    };
    if (argc > 2 && strcmp(argv[2], "threads") == 0)
        return cmocka_run_group_tests_name("cpu backend threads", thread_tests, setup, teardown);
    return cmocka_run_group_tests_name("cpu backend", tests, setup, teardown);
}
