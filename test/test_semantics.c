/* SPDX-License-Identifier: MIT */
/*
 * Every semantic of include/yamr.h against the host reference (reference.c), for every dtype, op,
 * NaN policy, data pattern and size, on one backend:
 *   test_semantics cpu   the CPU backend
 *   test_semantics gpu [VARIANT]
 *                        GPU 0, every variant of the registry that runs there (or only VARIANT)
 *                        and AUTO; exits 77 (skipped) when there is no GPU. The RACY variants
 *                        (`racy`, `racy_volatile`) are reported as skipped: their correctness is
 *                        not established, and the race lab measures how often they are wrong.
 *                        A variant runs the calls libyamr holds for it (include/yamr.h): the
 *                        others must be YAMR_ERROR_UNSUPPORTED and are left out.
 * Outputs are poisoned before every call.
 */
#include <limits.h>
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

/* Around warp, block and vector widths; past the grid's per-thread unroll; lanes ending on 2 and
 * on 3 vectors (2563, 4-byte types: the split scan's last chunk); around the largest call of
 * 4-byte types that runs one block (2^14); a large odd size. */
static const size_t sizes[] = {1, 2, 7, 31, 32, 33, 64, 137, 255, 256, 1000, 1024, 1025, 2563,
                               4099, 12289, 16383, 16384, 16385, 65537, 1000003};
#define SIZE_COUNT (sizeof sizes / sizeof sizes[0])
#define MAX_N 1000003

static int device = YAMR_DEVICE_CPU;
static yamr_context *ctx;
static void *host_data;
static void *ctx_data; /* the context's memory */
static void *ctx_out;  /* async outputs, in the context's memory */

static int setup(void **state)
{
    (void)state;
    if (yamr_create(&ctx, device) != YAMR_SUCCESS) return -1;
    host_data = malloc(MAX_N * 8);
    if (!host_data) return -1;
    if (yamr_device_alloc(ctx, MAX_N * 8, &ctx_data) != YAMR_SUCCESS) return -1;
    if (yamr_device_alloc(ctx, 16, &ctx_out) != YAMR_SUCCESS) return -1;
    printf("%s", yamr_report(ctx));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    yamr_device_free(ctx, ctx_data);
    yamr_device_free(ctx, ctx_out);
    free(host_data);
    yamr_destroy(ctx);
    return 0;
}

static uint64_t dtype_mask(yamr_dtype t)
{
    return yamr_dtype_size(t) == 8 ? ~0ull : ((1ull << (8 * yamr_dtype_size(t))) - 1);
}

/* Checks one answer (value bits and index, -1 meaning all NaN) against the reference. */
static void expect(const char *what, yamr_dtype t, ref_result r, uint64_t got, int64_t index,
                   int check_index)
{
    got &= dtype_mask(t);
    if (r.index < 0) {
        if (!bits_are_nan(t, got)) fail_msg("%s: all-NaN input gave a non-NaN", what);
    } else if (got != r.value_bits) {
        fail_msg("%s: value bits %llx, expected %llx (index %lld)", what, (unsigned long long)got,
                 (unsigned long long)r.value_bits, (long long)r.index);
    }
    if (check_index && index != r.index)
        fail_msg("%s: index %lld, expected %lld", what, (long long)index, (long long)r.index);
}

typedef union {
    uint64_t bits;
    unsigned char bytes[8];
} value_slot;

/* The synchronous call into poisoned host outputs; nothing may be written past the value. */
static void check_sync(yamr_op op, yamr_dtype t, ref_result r, size_t n, const char *what)
{
    value_slot value;
    memset(value.bytes, 0xa5, sizeof value.bytes);
    int64_t index = 0x7a5a5a5a5a5a5a5all;
    const int want_index = op == YAMR_OP_ARGMAX || op == YAMR_OP_ARGMIN;
    yamr_status s = yamr_reduce(ctx, op, t, ctx_data, n, value.bytes, want_index ? &index : NULL);
    if (s != YAMR_SUCCESS) fail_msg("%s: %s (%s)", what, yamr_status_string(s), yamr_last_error(ctx));
    for (size_t b = yamr_dtype_size(t); b < 8; ++b)
        if (value.bytes[b] != 0xa5) fail_msg("%s: wrote past the value", what);
    expect(what, t, r, value.bits, index, want_index);
}

/* The asynchronous call into poisoned outputs in the context's memory. */
static void check_async(yamr_op op, yamr_dtype t, ref_result r, size_t n, const char *what)
{
    struct {
        value_slot value;
        int64_t index;
    } out;
    memset(&out, 0xa5, sizeof out);
    assert_int_equal(yamr_copy_to_device(ctx, ctx_out, &out, sizeof out), YAMR_SUCCESS);
    yamr_status s = yamr_reduce_async(ctx, op, t, ctx_data, n, ctx_out,
                                      (int64_t *)((char *)ctx_out + 8));
    if (s != YAMR_SUCCESS) fail_msg("%s async: %s (%s)", what, yamr_status_string(s), yamr_last_error(ctx));
    assert_int_equal(yamr_copy_to_host(ctx, &out, ctx_out, sizeof out), YAMR_SUCCESS);
    for (size_t b = yamr_dtype_size(t); b < 8; ++b)
        if (out.value.bytes[b] != 0xa5) fail_msg("%s async: wrote past the value", what);
    expect(what, t, r, out.value.bits, out.index, 1);
}

static void check_minmax(yamr_dtype t, yamr_nan_policy p, size_t n, const char *what)
{
    value_slot lo, hi;
    memset(&lo, 0xa5, sizeof lo);
    memset(&hi, 0xa5, sizeof hi);
    int64_t ilo = -7, ihi = -7;
    yamr_status s = yamr_minmax(ctx, t, ctx_data, n, lo.bytes, &ilo, hi.bytes, &ihi);
    if (s != YAMR_SUCCESS) fail_msg("%s minmax: %s (%s)", what, yamr_status_string(s), yamr_last_error(ctx));
    expect(what, t, ref_reduce(YAMR_OP_ARGMIN, t, p, host_data, n), lo.bits, ilo, 1);
    expect(what, t, ref_reduce(YAMR_OP_ARGMAX, t, p, host_data, n), hi.bits, ihi, 1);
}

/* All dtypes x patterns x sizes x ops x policies on the current variant. */
/* YAMR_TEST_MAX_N bounds the sizes (the sanitizer runs use it: they slow kernels 10-100x). */
static size_t max_n(void)
{
    const char *env = getenv("YAMR_TEST_MAX_N");
    return env ? (size_t)strtoull(env, NULL, 0) : MAX_N;
}

/* Whether the context's variant runs a call of `kind` on n aligned elements of t here; where it
 * does not, only because the variant's row holds no split instance of the call and n is past
 * one block of a thread per element (include/yamr.h, "What a variant ... runs"). */
static int runs_here(yamr_call kind, yamr_dtype t, size_t n)
{
    yamr_plan plan;
    const yamr_status s = yamr_plan_for(ctx, kind, YAMR_OP_ARGMAX, t, 1, n, &plan);
    if (s == YAMR_SUCCESS) return 1;
    yamr_device_info info;
    assert_int_equal(yamr_get_device_info(ctx, &info), YAMR_SUCCESS);
    assert_int_equal(s, YAMR_ERROR_UNSUPPORTED);
    assert_true(n > (size_t)info.max_block_threads);
    return 0;
}

static void sweep(const char *variant)
{
    uint64_t rng = test_seed();
    const size_t limit = max_n();
    int ran = 0;
    for (int t = 0; t < YAMR_DTYPE_COUNT; ++t)
        for (int pat = 0; pat < PATTERN_COUNT; ++pat) {
            if (!pattern_applies((data_pattern)pat, (yamr_dtype)t)) continue;
            for (size_t si = 0; si < SIZE_COUNT; ++si) {
                size_t n = sizes[si];
                if (n > limit || (n > 5000 && pat != PATTERN_MIXED && pat != PATTERN_FEW_NAN)) continue;
                fill_pattern((data_pattern)pat, (yamr_dtype)t, host_data, n, &rng);
                assert_int_equal(yamr_copy_to_device(ctx, ctx_data, host_data, n * yamr_dtype_size((yamr_dtype)t)),
                                 YAMR_SUCCESS);
                for (int p = 0; p <= YAMR_NAN_IGNORE; ++p) {
                    char what[160];
                    assert_int_equal(yamr_set_nan_policy(ctx, (yamr_nan_policy)p), YAMR_SUCCESS);
                    for (int op = 0; op < YAMR_OP_COUNT && runs_here(YAMR_CALL_REDUCE, t, n);
                         ++op) {
                        snprintf(what, sizeof what, "%s %s %s n=%zu op=%d nan=%s", variant,
                                 yamr_dtype_name((yamr_dtype)t), pattern_name((data_pattern)pat), n, op,
                                 p == YAMR_NAN_PROPAGATE ? "propagate" : "ignore");
                        ref_result r = ref_reduce((yamr_op)op, (yamr_dtype)t, (yamr_nan_policy)p, host_data, n);
                        check_sync((yamr_op)op, (yamr_dtype)t, r, n, what);
                        check_async((yamr_op)op, (yamr_dtype)t, r, n, what);
                        ran += 2;
                    }
                    if (!runs_here(YAMR_CALL_MINMAX, t, n)) continue;
                    check_minmax((yamr_dtype)t, (yamr_nan_policy)p, n, what);
                    ++ran;
                }
            }
        }
    printf("  %s: %d checks passed\n", variant, ran);
    assert_true(ran > 0);
}

/* Inputs that start 1 to 3 elements past an aligned address: the kernels read 16-byte vectors
 * between the first and the last 16-byte boundary and the elements around them one by one. */
static void misaligned(void)
{
    static const size_t lengths[] = {1, 7, 33, 1025, 65537, MAX_N - 3};
    uint64_t rng = test_seed();
    int ran = 0;
    assert_int_equal(yamr_set_nan_policy(ctx, YAMR_NAN_PROPAGATE), YAMR_SUCCESS);
    for (int t = 0; t < YAMR_DTYPE_COUNT; ++t) {
        const size_t esize = yamr_dtype_size((yamr_dtype)t);
        fill_pattern(PATTERN_MIXED, (yamr_dtype)t, host_data, MAX_N, &rng);
        assert_int_equal(yamr_copy_to_device(ctx, ctx_data, host_data, MAX_N * esize), YAMR_SUCCESS);
        for (size_t skip = 1; skip <= 3 && skip * esize < 16; ++skip)
            for (size_t li = 0; li < sizeof lengths / sizeof *lengths; ++li) {
                const size_t n = lengths[li];
                const void *in = (const char *)ctx_data + skip * esize;
                const void *ref_in = (const char *)host_data + skip * esize;
                char what[96];
                snprintf(what, sizeof what, "%s n=%zu starting %zu elements in",
                         yamr_dtype_name((yamr_dtype)t), n, skip);
                for (int op = 0; op < YAMR_OP_COUNT; ++op) {
                    value_slot value;
                    memset(value.bytes, 0xa5, sizeof value.bytes);
                    int64_t index = -7;
                    yamr_status s = yamr_reduce(ctx, (yamr_op)op, (yamr_dtype)t, in, n,
                                                value.bytes, &index);
                    if (s != YAMR_SUCCESS) fail_msg("%s: %s", what, yamr_status_string(s));
                    expect(what, (yamr_dtype)t,
                           ref_reduce((yamr_op)op, (yamr_dtype)t, YAMR_NAN_PROPAGATE, ref_in, n),
                           value.bits, index, 1);
                    ++ran;
                }
                value_slot lo, hi;
                int64_t ilo = -7, ihi = -7;
                assert_int_equal(yamr_minmax(ctx, (yamr_dtype)t, in, n, lo.bytes, &ilo, hi.bytes,
                                             &ihi),
                                 YAMR_SUCCESS);
                expect(what, (yamr_dtype)t,
                       ref_reduce(YAMR_OP_ARGMIN, (yamr_dtype)t, YAMR_NAN_PROPAGATE, ref_in, n),
                       lo.bits, ilo, 1);
                expect(what, (yamr_dtype)t,
                       ref_reduce(YAMR_OP_ARGMAX, (yamr_dtype)t, YAMR_NAN_PROPAGATE, ref_in, n),
                       hi.bits, ihi, 1);
                ++ran;
            }
    }
    printf("  misaligned starts: %d checks passed\n", ran);
}

/* A grid-wide call's plan on a GPU: the split kernel over one row, with the variant that ran,
 * 32-bit indices (every size here is small), and 64-bit ones planned for arrays whose indices
 * come near INT_MAX. */
static void expect_grid_plan(yamr_variant variant)
{
    yamr_plan plan;
    assert_int_equal(yamr_last_plan(ctx, &plan), YAMR_SUCCESS);
    assert_int_equal(plan.kernel, YAMR_KERNEL_BLOCKS_PER_ROW);
    assert_int_equal(plan.blocks_per_row, (int)plan.grid_blocks);
    assert_true(plan.grid_blocks >= 1 && plan.block_threads > 0);
    if (variant != YAMR_VARIANT_AUTO) assert_int_equal(plan.variant, variant);
    assert_int_not_equal(plan.variant, YAMR_VARIANT_AUTO);
    assert_int_equal(plan.index_bits, 32);
    const size_t wide[] = {(size_t)INT_MAX - 1, (size_t)INT_MAX + 1, (size_t)1 << 40};
    for (size_t k = 0; k < sizeof wide / sizeof *wide; ++k) {
        assert_int_equal(yamr_plan_for(ctx, YAMR_CALL_REDUCE, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, 1,
                                       wide[k], &plan),
                         YAMR_SUCCESS);
        assert_int_equal(plan.index_bits, 64);
    }
}

static void test_cpu_backend(void **state)
{
    (void)state;
    sweep("cpu");
    misaligned();
}

static void test_gpu_variant(void **state)
{
    const yamr__variant_info *v = (const yamr__variant_info *)*state;
    if (v->flags & YAMR__RACY) {
        printf("  %s: racy, not asserted (yamr-bench race measures it)\n", v->name);
        skip();
    }
    yamr_status s = yamr_set_variant(ctx, v->id);
    if (s == YAMR_ERROR_UNSUPPORTED) {
        printf("  %s: not built for this device's warp width, skipped\n", v->name);
        skip();
    }
    assert_int_equal(s, YAMR_SUCCESS);
    sweep(v->name);
    if (v->flags & YAMR__GRID_WIDE) {
        expect_grid_plan(v->id);
        return;
    }
    /* no split instance for a grid of several blocks: one block of a thread per element up to
     * max_block_threads elements, nothing past it */
    yamr_device_info info;
    yamr_plan plan;
    assert_int_equal(yamr_get_device_info(ctx, &info), YAMR_SUCCESS);
    assert_int_equal(yamr_plan_for(ctx, YAMR_CALL_MINMAX, YAMR_OP_ARGMAX, YAMR_DTYPE_F64, 1,
                                   (size_t)info.max_block_threads, &plan),
                     YAMR_SUCCESS);
    assert_int_equal(plan.kernel, YAMR_KERNEL_SINGLE_BLOCK);
    assert_int_equal(plan.variant, v->id);
    assert_int_equal(plan.grid_blocks, 1);
    assert_int_equal(yamr_plan_for(ctx, YAMR_CALL_REDUCE, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, 1,
                                   (size_t)1 << 20, &plan),
                     YAMR_ERROR_UNSUPPORTED);
}

/* AUTO's variant in the plan of a grid-wide call of n elements, against the registry's pick
 * for the device (one_block: the call runs one block and is one for which AUTO prefers the
 * ONE_BLOCK_FIRST row, src/plan.c). */
static void expect_auto_variant(yamr_call call, yamr_dtype dtype, size_t n, int one_block)
{
    yamr_device_info info;
    assert_int_equal(yamr_get_device_info(ctx, &info), YAMR_SUCCESS);
    const char *reason;
    const yamr__variant_info *pick =
        yamr__select_variant(&info, YAMR_OP_ARGMAX, dtype, one_block, &reason);
    assert_non_null(pick);
    yamr_plan plan;
    assert_int_equal(yamr_plan_for(ctx, call, YAMR_OP_ARGMAX, dtype, 1, n, &plan), YAMR_SUCCESS);
    assert_int_equal(plan.variant, pick->id);
    if (one_block) assert_int_equal(plan.grid_blocks, 1);
}

/* The plan of a grid-wide argmax (or min+max) of n aligned elements: `chunk` vectors a thread,
 * and one block where that is 16. */
static void expect_grid_chunks(yamr_call call, yamr_dtype dtype, size_t n, int chunk)
{
    yamr_plan plan;
    assert_int_equal(yamr_plan_for(ctx, call, YAMR_OP_ARGMAX, dtype, 1, n, &plan), YAMR_SUCCESS);
    assert_int_equal(YAMR__PLAN_CHUNK_VECTORS(&plan), chunk);
    if (chunk == 16) assert_int_equal(plan.grid_blocks, 1);
}

static void test_gpu_auto(void **state)
{
    (void)state;
    assert_int_equal(yamr_set_variant(ctx, YAMR_VARIANT_AUTO), YAMR_SUCCESS);
    sweep("auto");
    misaligned();
    expect_grid_plan(YAMR_VARIANT_AUTO);
    /* one block (every thread the GRID row's vectors_one_block or fewer: 2^14 4-byte
     * elements): the one-block pick for a single slot of elements of at most 4 bytes; the
     * table's first pick for more blocks, min+max and 8 bytes */
    expect_auto_variant(YAMR_CALL_REDUCE, YAMR_DTYPE_F32, 1000, 1);
    expect_auto_variant(YAMR_CALL_REDUCE, YAMR_DTYPE_F32, (size_t)1 << 14, 1);
    expect_auto_variant(YAMR_CALL_REDUCE, YAMR_DTYPE_F32, ((size_t)1 << 14) + 1, 0);
    /* the chunk a thread loads at once: 8 vectors, or 16 where that keeps a call in one block */
    expect_grid_chunks(YAMR_CALL_REDUCE, YAMR_DTYPE_F32, (size_t)1 << 13, 8);
    expect_grid_chunks(YAMR_CALL_MINMAX, YAMR_DTYPE_F32, ((size_t)1 << 13) + 1, 16);
    expect_grid_chunks(YAMR_CALL_REDUCE, YAMR_DTYPE_I32, (size_t)1 << 14, 16);
    expect_grid_chunks(YAMR_CALL_REDUCE, YAMR_DTYPE_F32, ((size_t)1 << 14) + 1, 8);
    expect_grid_chunks(YAMR_CALL_REDUCE, YAMR_DTYPE_F64, (size_t)1 << 13, 8);
    expect_auto_variant(YAMR_CALL_REDUCE, YAMR_DTYPE_F16, 1000, 1);
    expect_auto_variant(YAMR_CALL_REDUCE, YAMR_DTYPE_F32, (size_t)1 << 20, 0);
    expect_auto_variant(YAMR_CALL_REDUCE, YAMR_DTYPE_F64, 1000, 0);
    expect_auto_variant(YAMR_CALL_MINMAX, YAMR_DTYPE_F32, 1000, 0);
}

int main(int argc, char **argv)
{
    const int gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    if (!gpu) {
        const struct CMUnitTest tests[] = {cmocka_unit_test(test_cpu_backend)};
        return cmocka_run_group_tests_name("semantics (cpu)", tests, setup, teardown);
    }
    yamr_context *probe;
    yamr_status s = yamr_create(&probe, 0);
    if (s != YAMR_SUCCESS) {
        printf("SKIPPED: no GPU (%s: %s); GPU semantics tests need one\n", yamr_status_string(s),
               s == YAMR_ERROR_NO_DEVICE ? "none found or built without a GPU backend" : "");
        return 77;
    }
    yamr_destroy(probe);
    device = 0;
    struct CMUnitTest tests[YAMR_VARIANT_COUNT + 1];
    int count = 0;
    const char *only = argc > 2 ? argv[2] : NULL;
    for (int i = 0; i < yamr__variant_count; ++i) {
        if (only && strcmp(only, yamr__variants[i].name) != 0) continue;
        struct CMUnitTest t = {yamr__variants[i].name, test_gpu_variant, NULL, NULL,
                               (void *)&yamr__variants[i]};
        tests[count++] = t;
    }
    struct CMUnitTest a = {"auto", test_gpu_auto, NULL, NULL, NULL};
    if (!only || strcmp(only, "auto") == 0) tests[count++] = a;
    return _cmocka_run_group_tests("semantics (gpu)", tests, (size_t)count, setup, teardown);
}
