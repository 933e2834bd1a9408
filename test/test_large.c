/* SPDX-License-Identifier: MIT */
/*
 * n above 2^31 on the GPU (64-bit indices end to end): float32 argmax/argmin/min+max under both
 * NaN policies on 2^31 + 2^20 + 3 elements (8.6 GB), with answers known by construction.
 * Exits 77 (skipped) without a GPU or without the memory.
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

#include "reference.h" /* test_seed */
#include "yamr.h"

static const size_t n = (1ull << 31) + (1ull << 20) + 3;
static yamr_context *ctx;
static float *host;
static void *dev;

/* Built so that the answers are known: values in [-0.5, 0.5) with ties, the maximum 2.0 first at
 * 2^31 + 5 (tied again later), the minimum -2.0 first at 2^31 + 12 (tied at n - 2), NaN last. */
static const size_t max_at = (1ull << 31) + 5, min_at = (1ull << 31) + 12;

static void expect_f32(yamr_op op, yamr_nan_policy p, float value, int64_t index)
{
    assert_int_equal(yamr_set_nan_policy(ctx, p), YAMR_SUCCESS);
    float v = 12345.0f;
    int64_t i = -7;
    assert_int_equal(yamr_reduce(ctx, op, YAMR_DTYPE_F32, dev, n, &v, &i), YAMR_SUCCESS);
    printf("  op %d nan %d: value %g index %lld (expected %g at %lld)\n", op, p, v, (long long)i,
           value, (long long)index);
    assert_int_equal(i, index);
    assert_true(isnan(value) ? isnan(v) : v == value);
    yamr_plan plan;
    assert_int_equal(yamr_last_plan(ctx, &plan), YAMR_SUCCESS);
    assert_int_equal(plan.index_bits, 64); /* indices past INT_MAX */
}

static void test_above_2_31(void **state)
{
    (void)state;
    expect_f32(YAMR_OP_ARGMAX, YAMR_NAN_IGNORE, 2.0f, (int64_t)max_at);
    expect_f32(YAMR_OP_ARGMIN, YAMR_NAN_IGNORE, -2.0f, (int64_t)min_at);
    expect_f32(YAMR_OP_ARGMAX, YAMR_NAN_PROPAGATE, NAN, (int64_t)n - 1);
    float lo, hi;
    int64_t ilo, ihi;
    assert_int_equal(yamr_set_nan_policy(ctx, YAMR_NAN_IGNORE), YAMR_SUCCESS);
    assert_int_equal(yamr_minmax(ctx, YAMR_DTYPE_F32, dev, n, &lo, &ilo, &hi, &ihi), YAMR_SUCCESS);
    assert_true(lo == -2.0f && ilo == (int64_t)min_at && hi == 2.0f && ihi == (int64_t)max_at);
}

int main(void)
{
    if (yamr_create(&ctx, 0) != YAMR_SUCCESS) {
        printf("SKIPPED: no GPU; the above-2^31 test needs one\n");
        return 77;
    }
    host = (float *)malloc(n * sizeof *host);
    if (!host || yamr_device_alloc(ctx, n * sizeof *host, &dev) != YAMR_SUCCESS) {
        printf("SKIPPED: not enough host or device memory for %zu floats\n", n);
        free(host);
        yamr_destroy(ctx);
        return 77;
    }
    const uint32_t seed = (uint32_t)test_seed();
    for (size_t i = 0; i < n; ++i) /* a multiplicative hash: cheap, and ties everywhere */
        host[i] = (float)(((uint32_t)i * 2654435761u + seed) >> 20) / 4096.0f - 0.5f;
    host[max_at] = 2.0f;
    host[max_at + 1000] = 2.0f;
    host[min_at] = -2.0f;
    host[n - 2] = -2.0f;
    host[n - 1] = NAN;
    assert_int_equal(yamr_copy_to_device(ctx, dev, host, n * sizeof *host), YAMR_SUCCESS);
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_above_2_31)};
    int rc = cmocka_run_group_tests_name("large (gpu)", tests, NULL, NULL);
    yamr_device_free(ctx, dev);
    free(host);
    yamr_destroy(ctx);
    return rc;
}
