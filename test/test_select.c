/* SPDX-License-Identifier: MIT */
/* AUTO's decision from faked device properties, on the CPU: it never picks a variant whose
 * correctness on that hardware is not established. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "yamr_internal.h"

static yamr_device_info fake(yamr_vendor vendor, int warp_size, int its)
{
    yamr_device_info d;
    memset(&d, 0, sizeof d);
    d.vendor = vendor;
    d.warp_size = warp_size;
    d.independent_thread_scheduling = its;
    d.max_block_threads = 1024;
    return d;
}

/* AUTO's pick for every op and dtype: `expected` in general, `one_block` for a call that runs
 * one block where that row is preferred. */
static void expect_picks(yamr_device_info d, yamr_variant expected, yamr_variant one_block)
{
    for (int small = 0; small < 2; ++small)
        for (int op = 0; op < YAMR_OP_COUNT; ++op)
            for (int t = 0; t < YAMR_DTYPE_COUNT; ++t) {
                const char *reason = NULL;
                const yamr__variant_info *v =
                    yamr__select_variant(&d, (yamr_op)op, (yamr_dtype)t, small, &reason);
                assert_non_null(v);
                assert_non_null(reason);
                assert_int_equal(v->id, small ? one_block : expected);
                assert_false(v->flags & YAMR__RACY);
                assert_true(yamr__variant_runs_on(v, &d, (yamr_op)op, (yamr_dtype)t));
                /* libyamr holds the split instances of what AUTO picks (yamr_internal.h) */
                assert_true(v->flags & (small ? YAMR__GRID_WIDE | YAMR__ONE_BLOCK_FIRST
                                              : YAMR__GRID_WIDE));
            }
}

static void expect_pick(yamr_device_info d, yamr_variant expected)
{
    expect_picks(d, expected, YAMR_VARIANT_ATOMIC);
}

static void test_nvidia_its_32(void **state)
{
    (void)state;
    expect_pick(fake(YAMR_VENDOR_NVIDIA, 32, 1), YAMR_VARIANT_WARP_SHUFFLE);
}

static void test_lockstep_32(void **state)
{
    (void)state;
    expect_pick(fake(YAMR_VENDOR_NVIDIA, 32, 0), YAMR_VARIANT_WARP_SHUFFLE);
    expect_pick(fake(YAMR_VENDOR_AMD, 32, 0), YAMR_VARIANT_WARP_SHUFFLE);
}

static void test_wavefront_64(void **state)
{
    (void)state;
    expect_pick(fake(YAMR_VENDOR_AMD, 64, 0), YAMR_VARIANT_WARP_SHUFFLE);
}

static void test_unknown_width_and_cpu_pick_nothing(void **state)
{
    (void)state;
    const char *reason = NULL;
    yamr_device_info odd = fake(YAMR_VENDOR_AMD, 16, 0);
    for (int small = 0; small < 2; ++small) {
        assert_null(yamr__select_variant(&odd, YAMR_OP_MAX, YAMR_DTYPE_F32, small, &reason));
        assert_non_null(reason);
        yamr_device_info cpu = fake(YAMR_VENDOR_CPU, 1, 0);
        assert_null(yamr__select_variant(&cpu, YAMR_OP_MAX, YAMR_DTYPE_F32, small, &reason));
    }
}

static void test_racy_variants_are_never_picked_and_seed_is_f32_max_only(void **state)
{
    (void)state;
    yamr_device_info d = fake(YAMR_VENDOR_NVIDIA, 32, 1);
    const yamr__variant_info *racy = yamr__variant_lookup(YAMR_VARIANT_RACY);
    assert_non_null(racy);
    assert_true(racy->flags & YAMR__RACY);
    assert_true(yamr__variant_lookup(YAMR_VARIANT_RACY_VOLATILE)->flags & YAMR__RACY);
    assert_false(yamr__variant_lookup(YAMR_VARIANT_RACY_ITS)->flags & YAMR__RACY);
    /* the seed kernel lives in the lab (lab/race/): libyamr runs it nowhere */
    assert_true(racy->flags & YAMR__LAB_ONLY);
    assert_false(yamr__variant_runs_on(racy, &d, YAMR_OP_MAX, YAMR_DTYPE_F32));
    assert_false(yamr__variant_runs_on(racy, &d, YAMR_OP_ARGMAX, YAMR_DTYPE_F32));
    assert_false(yamr__variant_runs_on(racy, &d, YAMR_OP_MAX, YAMR_DTYPE_F64));
    /* every variant has a row */
    for (int v = YAMR_VARIANT_RACY; v < YAMR_VARIANT_COUNT; ++v)
        assert_non_null(yamr__variant_lookup((yamr_variant)v));
    assert_int_equal(yamr__variant_count, YAMR_VARIANT_COUNT - 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nvidia_its_32),
        cmocka_unit_test(test_lockstep_32),
        cmocka_unit_test(test_wavefront_64),
        cmocka_unit_test(test_unknown_width_and_cpu_pick_nothing),
        cmocka_unit_test(test_racy_variants_are_never_picked_and_seed_is_f32_max_only),
    };
    return cmocka_run_group_tests_name("select", tests, NULL, NULL);
}
