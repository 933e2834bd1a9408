/* SPDX-License-Identifier: MIT */
/* The API contract on the CPU backend: bad arguments, statuses, names, hand-checked answers;
 * the context scratch memory also on GPU 0 when there is one. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "yamr.h"

/* A refusal that says which argument: status INVALID_VALUE, and yamr_last_error(where) (where:
 * the context, or NULL for the thread's message) names the function and holds `says`. */
#define expect_named(status, where, fn, says)                                                  \
    do {                                                                                       \
        const yamr_status expect_named_s_ = (status);                                          \
        const char *expect_named_m_ = yamr_last_error(where);                                  \
        if (expect_named_s_ != YAMR_ERROR_INVALID_VALUE || !strstr(expect_named_m_, fn ": ") ||  \
            !strstr(expect_named_m_, says))                                                    \
            fail_msg("%s: got %s, \"%s\"; want INVALID_VALUE naming \"%s\"", #status,           \
                     yamr_status_string(expect_named_s_), expect_named_m_, says);              \
    } while (0)

static void test_create_rejects_bad_arguments(void **state)
{
    (void)state;
    yamr_context *ctx = (yamr_context *)&ctx; /* a sentinel that must survive failures */
    expect_named(yamr_create(NULL, YAMR_DEVICE_CPU), NULL, "yamr_create", "ctx is NULL");
    expect_named(yamr_create(&ctx, -2), NULL, "yamr_create", "device (-2)");
    expect_named(yamr_create(&ctx, -7), NULL, "yamr_create", "device (-7)");
    assert_ptr_equal(ctx, (yamr_context *)&ctx);
    assert_int_equal(yamr_create(&ctx, 4096), YAMR_ERROR_NO_DEVICE);
    assert_ptr_equal(ctx, (yamr_context *)&ctx);
    yamr_destroy(NULL); /* a no-op */
}

/* yamr_create_ex: a reason for every failure, "" on success, cut to the buffer, NULL allowed. */
static void test_create_ex_says_why(void **state)
{
    (void)state;
    yamr_context *ctx = (yamr_context *)&ctx; /* a sentinel that must survive failures */
    char why[256];
    memset(why, 0, sizeof why);
    expect_named(yamr_create_ex(NULL, YAMR_DEVICE_CPU, why, sizeof why), NULL, "yamr_create",
                 "ctx is NULL");
    assert_true(why[0] != '\0' && strlen(why) < sizeof why);
    memset(why, 0, sizeof why);
    expect_named(yamr_create_ex(&ctx, -2, why, sizeof why), NULL, "yamr_create", "device (-2)");
    assert_true(why[0] != '\0');
    assert_ptr_equal(ctx, (yamr_context *)&ctx);
    memset(why, 0, sizeof why);
    assert_int_equal(yamr_create_ex(&ctx, 4096, why, sizeof why), YAMR_ERROR_NO_DEVICE);
    assert_ptr_equal(ctx, (yamr_context *)&ctx);
    assert_non_null(strstr(why, "4096")); /* "no GPU with ordinal 4096 ..." or "... (device 4096)" */
    char tiny[4] = {'x', 'x', 'x', 'x'};
    assert_int_equal(yamr_create_ex(&ctx, 4096, tiny, sizeof tiny), YAMR_ERROR_NO_DEVICE);
    assert_int_equal(tiny[3], '\0'); /* cut to fit, terminated */
    assert_int_equal(yamr_create_ex(&ctx, 4096, NULL, 0), YAMR_ERROR_NO_DEVICE);
    why[0] = 'q';
    assert_int_equal(yamr_create_ex(&ctx, 4096, why, 0), YAMR_ERROR_NO_DEVICE);
    assert_int_equal(why[0], 'q'); /* a zero-length buffer is not written */
    assert_ptr_equal(ctx, (yamr_context *)&ctx);
    memset(why, 'x', sizeof why);
    assert_int_equal(yamr_create_ex(&ctx, YAMR_DEVICE_CPU, why, sizeof why), YAMR_SUCCESS);
    assert_string_equal(why, "");
    yamr_destroy(ctx);
}

typedef struct {
    const char *what;
    int null_ctx;
    yamr_op op;
    yamr_dtype dtype;
    int null_in;
    size_t n;
    int null_value;
    int null_index;
    const char *says; /* in yamr_last_error() */
} bad_case;

static void test_reduce_rejects_bad_arguments_and_writes_nothing(void **state)
{
    (void)state;
    static const bad_case cases[] = {
        {"NULL context", 1, YAMR_OP_MAX, YAMR_DTYPE_F32, 0, 4, 0, 0, "ctx is NULL"},
        {"op out of range", 0, (yamr_op)YAMR_OP_COUNT, YAMR_DTYPE_F32, 0, 4, 0, 0, "op (4)"},
        {"negative op", 0, (yamr_op)-1, YAMR_DTYPE_F32, 0, 4, 0, 0, "op (-1)"},
        {"dtype out of range", 0, YAMR_OP_MAX, (yamr_dtype)YAMR_DTYPE_COUNT, 0, 4, 0, 0,
         "dtype (7)"},
        {"NULL input", 0, YAMR_OP_MAX, YAMR_DTYPE_F32, 1, 4, 0, 0, "in is NULL"},
        {"n == 0", 0, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, 0, 0, 0, 0, "n is 0"},
        {"NULL value", 0, YAMR_OP_MAX, YAMR_DTYPE_F32, 0, 4, 1, 0, "value is NULL"},
        {"argmax without index", 0, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, 0, 4, 0, 1, "index is NULL"},
        {"argmin without index", 0, YAMR_OP_ARGMIN, YAMR_DTYPE_I64, 0, 4, 0, 1, "index is NULL"},
    };
    yamr_context *ctx;
    assert_int_equal(yamr_create(&ctx, YAMR_DEVICE_CPU), YAMR_SUCCESS);
    const double in[4] = {1, 2, 3, 4};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const bad_case *c = &cases[i];
        unsigned char value[8];
        memset(value, 0x5a, sizeof value);
        int64_t index = 12345;
        yamr_status s = yamr_reduce(c->null_ctx ? NULL : ctx, c->op, c->dtype, c->null_in ? NULL : in,
                                    c->n, c->null_value ? NULL : value, c->null_index ? NULL : &index);
        const char *msg = yamr_last_error(c->null_ctx ? NULL : ctx);
        if (s != YAMR_ERROR_INVALID_VALUE || !strstr(msg, "yamr_reduce: ") || !strstr(msg, c->says))
            fail_msg("%s: got %s, \"%s\"", c->what, yamr_status_string(s), msg);
        for (size_t b = 0; b < sizeof value; ++b)
            if (value[b] != 0x5a) fail_msg("%s: value written on failure", c->what);
        if (index != 12345) fail_msg("%s: index written on failure", c->what);
    }
    yamr_destroy(ctx);
}

static void test_settings(void **state)
{
    (void)state;
    yamr_context *ctx;
    assert_int_equal(yamr_create(&ctx, YAMR_DEVICE_CPU), YAMR_SUCCESS);
    expect_named(yamr_set_variant(NULL, YAMR_VARIANT_AUTO), NULL, "yamr_set_variant", "ctx is NULL");
    expect_named(yamr_set_variant(ctx, (yamr_variant)YAMR_VARIANT_COUNT), ctx, "yamr_set_variant",
                 "v (7)");
    expect_named(yamr_set_variant(ctx, (yamr_variant)-1), ctx, "yamr_set_variant", "v (-1)");
    for (int v = YAMR_VARIANT_RACY; v < YAMR_VARIANT_COUNT; ++v) /* GPU algorithms */
        assert_int_equal(yamr_set_variant(ctx, (yamr_variant)v), YAMR_ERROR_UNSUPPORTED);
    assert_int_equal(yamr_set_variant(ctx, YAMR_VARIANT_AUTO), YAMR_SUCCESS);
    expect_named(yamr_set_nan_policy(ctx, (yamr_nan_policy)2), ctx, "yamr_set_nan_policy", "p (2)");
    expect_named(yamr_set_nan_policy(NULL, YAMR_NAN_IGNORE), NULL, "yamr_set_nan_policy",
                 "ctx is NULL");
    yamr_nan_policy policy = (yamr_nan_policy)7;
    expect_named(yamr_get_nan_policy(NULL, &policy), NULL, "yamr_get_nan_policy", "ctx is NULL");
    expect_named(yamr_get_nan_policy(ctx, NULL), NULL, "yamr_get_nan_policy", "p is NULL");
    assert_int_equal(policy, 7);
    assert_int_equal(yamr_get_nan_policy(ctx, &policy), YAMR_SUCCESS);
    assert_int_equal(policy, YAMR_NAN_PROPAGATE);
    assert_int_equal(yamr_set_nan_policy(ctx, YAMR_NAN_IGNORE), YAMR_SUCCESS);
    assert_int_equal(yamr_get_nan_policy(ctx, &policy), YAMR_SUCCESS);
    assert_int_equal(policy, YAMR_NAN_IGNORE);
    assert_int_equal(yamr_set_nan_policy(ctx, YAMR_NAN_PROPAGATE), YAMR_SUCCESS);
    yamr_device_info info;
    expect_named(yamr_get_device_info(ctx, NULL), NULL, "yamr_get_device_info", "info is NULL");
    int threads = -5;
    expect_named(yamr_get_cpu_threads(ctx, NULL), NULL, "yamr_get_cpu_threads", "threads is NULL");
    assert_int_equal(yamr_get_cpu_threads(ctx, &threads), YAMR_SUCCESS);
    assert_int_equal(threads, 0);
    assert_int_equal(yamr_set_cpu_threads(ctx, 3), YAMR_SUCCESS);
    assert_int_equal(yamr_get_cpu_threads(ctx, &threads), YAMR_SUCCESS);
    assert_int_equal(threads, 3);
    assert_int_equal(yamr_set_cpu_threads(ctx, 0), YAMR_SUCCESS);
    assert_int_equal(yamr_get_device_info(ctx, &info), YAMR_SUCCESS);
    assert_int_equal(info.vendor, YAMR_VENDOR_CPU);
    assert_string_equal(info.arch, "cpu");
    assert_non_null(strstr(yamr_report(ctx), "AUTO picks"));
    yamr_plan plan;
    memset(&plan, 0x5a, sizeof plan);
    assert_int_equal(yamr_plan_for(ctx, YAMR_CALL_REDUCE, YAMR_OP_MAX, YAMR_DTYPE_F32, 1, 100,
                                   &plan),
                     YAMR_SUCCESS);
    assert_int_equal(plan.variant, YAMR_VARIANT_AUTO);
    assert_int_equal(plan.kernel, YAMR_KERNEL_CPU);
    assert_true(plan.cols == 100 && plan.rows == 1 && plan.grid_blocks == 0);
    char line[512] = "untouched";
    assert_int_equal(yamr_plan_describe(NULL, &plan, line, sizeof line), YAMR_ERROR_INVALID_VALUE);
    assert_int_equal(yamr_plan_describe(ctx, NULL, line, sizeof line), YAMR_ERROR_INVALID_VALUE);
    assert_int_equal(yamr_plan_describe(ctx, &plan, NULL, sizeof line), YAMR_ERROR_INVALID_VALUE);
    assert_int_equal(yamr_plan_describe(ctx, &plan, line, 0), YAMR_ERROR_INVALID_VALUE);
    assert_string_equal(line, "untouched");
    assert_int_equal(yamr_plan_describe(ctx, &plan, line, sizeof line), YAMR_SUCCESS);
    assert_non_null(strstr(line, "CPU backend"));
    assert_int_equal(yamr_plan_describe(ctx, &plan, line, 8), YAMR_SUCCESS);
    assert_int_equal(strlen(line), 7); /* cut to fit */
    yamr_destroy(ctx);
}

/* yamr_plan_for() refuses what the call would refuse and writes nothing then; yamr_last_plan()
 * says what the last call ran. */
static void test_plans(void **state)
{
    (void)state;
    yamr_context *ctx = NULL;
    assert_int_equal(yamr_create(&ctx, YAMR_DEVICE_CPU), YAMR_SUCCESS);
    yamr_plan plan;
    memset(&plan, 0x5a, sizeof plan);
    const yamr_plan poisoned = plan;
    const struct {
        yamr_call call;
        int op, dtype;
        size_t rows, cols;
        yamr_status expect;
    } bad[] = {
        {YAMR_CALL_REDUCE, YAMR_OP_MAX, YAMR_DTYPE_F32, 2, 10, YAMR_ERROR_INVALID_VALUE},
        {YAMR_CALL_REDUCE, YAMR_OP_MAX, YAMR_DTYPE_F32, 1, 0, YAMR_ERROR_INVALID_VALUE},
        {YAMR_CALL_ROWS, YAMR_OP_MAX, YAMR_DTYPE_F32, 0, 10, YAMR_ERROR_INVALID_VALUE},
        {YAMR_CALL_ROWS, YAMR_OP_MAX, YAMR_DTYPE_F64, 3, SIZE_MAX / 4, YAMR_ERROR_INVALID_VALUE},
        {YAMR_CALL_SEGMENTS, YAMR_OP_MAX, YAMR_DTYPE_F32, 0, 0, YAMR_ERROR_INVALID_VALUE},
        {YAMR_CALL_SOFTMAX_STATS, YAMR_OP_MAX, YAMR_DTYPE_I32, 2, 2, YAMR_ERROR_UNSUPPORTED},
        {(yamr_call)YAMR_CALL_COUNT, YAMR_OP_MAX, YAMR_DTYPE_F32, 1, 1, YAMR_ERROR_INVALID_VALUE},
        {YAMR_CALL_REDUCE, YAMR_OP_COUNT, YAMR_DTYPE_F32, 1, 1, YAMR_ERROR_INVALID_VALUE},
        {YAMR_CALL_REDUCE, YAMR_OP_MAX, YAMR_DTYPE_COUNT, 1, 1, YAMR_ERROR_INVALID_VALUE},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        assert_int_equal(yamr_plan_for(ctx, bad[k].call, (yamr_op)bad[k].op,
                                       (yamr_dtype)bad[k].dtype, bad[k].rows, bad[k].cols, &plan),
                         bad[k].expect);
        assert_memory_equal(&plan, &poisoned, sizeof plan);
        assert_non_null(strstr(yamr_last_error(NULL), "yamr_plan_for: "));
    }
    expect_named(yamr_plan_for(NULL, YAMR_CALL_REDUCE, YAMR_OP_MAX, YAMR_DTYPE_F32, 1, 1, &plan),
                 NULL, "yamr_plan_for", "ctx is NULL");
    expect_named(yamr_plan_for(ctx, YAMR_CALL_REDUCE, YAMR_OP_MAX, YAMR_DTYPE_F32, 1, 1, NULL),
                 NULL, "yamr_plan_for", "plan is NULL");
    expect_named(yamr_last_plan(ctx, &plan), NULL, "yamr_last_plan", "no call yet");
    expect_named(yamr_last_plan(NULL, &plan), NULL, "yamr_last_plan", "ctx is NULL");
    assert_memory_equal(&plan, &poisoned, sizeof plan);
    assert_non_null(strstr(yamr_report(ctx), "last call:   no call yet"));

    const int32_t x[5] = {3, -1, 9, 9, 2};
    int32_t v = 0;
    int64_t i = -1;
    assert_int_equal(yamr_argmax_i32(ctx, x, 5, &v, &i), YAMR_SUCCESS);
    assert_int_equal(yamr_last_plan(ctx, &plan), YAMR_SUCCESS);
    assert_true(plan.call == YAMR_CALL_REDUCE && plan.op == YAMR_OP_ARGMAX &&
                plan.dtype == YAMR_DTYPE_I32 && plan.rows == 1 && plan.cols == 5 &&
                plan.kernel == YAMR_KERNEL_CPU);
    assert_non_null(strstr(yamr_report(ctx), "last call:   reduce i32 argmax, n = 5"));
    assert_int_equal(yamr_minmax(ctx, YAMR_DTYPE_I32, x, 5, &v, NULL, &v, NULL), YAMR_SUCCESS);
    assert_int_equal(yamr_last_plan(ctx, &plan), YAMR_SUCCESS);
    assert_int_equal(plan.call, YAMR_CALL_MINMAX);
    /* a refused call leaves the last plan as it was */
    expect_named(yamr_argmax_i32(ctx, x, 0, &v, &i), ctx, "yamr_reduce", "n is 0");
    assert_int_equal(yamr_last_plan(ctx, &plan), YAMR_SUCCESS);
    assert_int_equal(plan.call, YAMR_CALL_MINMAX);
    assert_string_equal(yamr_kernel_name(YAMR_KERNEL_LANES_PER_ROW), "lanes_per_row");
    assert_string_equal(yamr_kernel_name((yamr_kernel)YAMR_KERNEL_COUNT), "invalid");
    yamr_destroy(ctx);
}

/* yamr_plan_for() refuses exactly what each call refuses, with the same status: every call kind
 * and dtype, sizes at and past each limit. A size that both accept is run when it is small
 * enough to have a buffer (larger ones only plan: their checks are the call's own function). */
static void test_plan_for_refuses_what_the_call_refuses(void **state)
{
    (void)state;
    yamr_context *ctx = NULL;
    assert_int_equal(yamr_create(&ctx, YAMR_DEVICE_CPU), YAMR_SUCCESS);
    enum { SMALL = 6 };
    double in[SMALL * SMALL], values[SMALL], second[SMALL];
    int64_t offsets[SMALL + 1];
    for (int k = 0; k < SMALL * SMALL; ++k) in[k] = 0;
    for (int k = 0; k <= SMALL; ++k) offsets[k] = k;
    long ran = 0, planned_only = 0;
    for (int call = 0; call < YAMR_CALL_COUNT; ++call)
        for (int dtype = -1; dtype <= YAMR_DTYPE_COUNT; ++dtype)
            for (int op = -1; op <= YAMR_OP_COUNT; op += op == 0 ? 3 : 1) { /* -1, 0, 3, 4 */
                const size_t size = yamr_dtype_size((yamr_dtype)dtype), elem = size ? size : 1;
                const size_t sizes[] = {0, 1, 2, SMALL, SIZE_MAX, SIZE_MAX / elem,
                                        SIZE_MAX / elem + 1, (size_t)INT64_MAX / elem,
                                        (size_t)INT64_MAX / elem + 1, (size_t)INT64_MAX - 1,
                                        (size_t)INT64_MAX};
                const size_t count = sizeof sizes / sizeof sizes[0];
                for (size_t r = 0; r < count; ++r)
                    for (size_t c = 0; c < count; ++c) {
                        const size_t rows = sizes[r], cols = sizes[c];
                        yamr_plan plan;
                        const yamr_status planned = yamr_plan_for(
                            ctx, (yamr_call)call, (yamr_op)op, (yamr_dtype)dtype, rows, cols, &plan);
                        const int small = rows <= SMALL && cols <= SMALL;
                        if (planned == YAMR_SUCCESS && !small) {
                            ++planned_only;
                            continue;
                        }
                        /* the call of that kind: a reduce or minmax has rows 1 (n = cols) */
                        yamr_status s = YAMR_ERROR_INVALID_VALUE;
                        const yamr_dtype t = (yamr_dtype)dtype;
                        switch ((yamr_call)call) {
                        case YAMR_CALL_REDUCE:
                            if (rows == 1)
                                s = yamr_reduce(ctx, (yamr_op)op, t, in, cols, values,
                                                (int64_t *)second);
                            break;
                        case YAMR_CALL_MINMAX:
                            /* minmax takes no op; plan_for refuses one out of range all the same */
                            if (rows == 1 && op >= 0 && op < YAMR_OP_COUNT)
                                s = yamr_minmax(ctx, t, in, cols, values, NULL, second, NULL);
                            break;
                        case YAMR_CALL_ROWS:
                            s = yamr_reduce_rows(ctx, (yamr_op)op, t, in, rows, cols, cols, values,
                                                 (int64_t *)second);
                            break;
                        case YAMR_CALL_SEGMENTS:
                            s = yamr_reduce_segments(ctx, (yamr_op)op, t, in, offsets, rows, values,
                                                     (int64_t *)second);
                            break;
                        case YAMR_CALL_SOFTMAX_STATS:
                            if (op >= 0 && op < YAMR_OP_COUNT)
                                s = yamr_softmax_stats_rows(ctx, t, in, rows, cols, cols, values,
                                                            second);
                            break;
                        }
                        ++ran;
                        if (s != planned)
                            fail_msg("call %d, op %d, dtype %d, %zu x %zu: yamr_plan_for %s, the "
                                     "call %s",
                                     call, op, dtype, rows, cols, yamr_status_string(planned),
                                     yamr_status_string(s));
                    }
            }
    printf("  plan_for against the call: %ld cases run, %ld accepted too large to run\n", ran,
           planned_only);
    yamr_destroy(ctx);
}

static void test_names(void **state)
{
    (void)state;
    for (int s = YAMR_SUCCESS; s <= YAMR_ERROR_COMMUNICATION; ++s) {
        const char *text = yamr_status_string((yamr_status)s);
        assert_non_null(text);
        assert_int_equal(strncmp(text, "YAMR_", 5), 0);
        for (int o = YAMR_SUCCESS; o < s; ++o) assert_string_not_equal(text, yamr_status_string((yamr_status)o));
    }
    assert_string_equal(yamr_status_string((yamr_status)99), "unknown yamr_status");
    assert_string_equal(yamr_variant_name(YAMR_VARIANT_RACY), "racy");
    assert_string_equal(yamr_variant_name(YAMR_VARIANT_WARP_SHUFFLE), "warp_shuffle");
    assert_string_equal(yamr_variant_name((yamr_variant)99), "invalid");
    assert_int_equal(yamr_dtype_size(YAMR_DTYPE_BF16), 2);
    assert_int_equal(yamr_dtype_size(YAMR_DTYPE_I64), 8);
    assert_int_equal(yamr_dtype_size((yamr_dtype)99), 0);
}

/* Answers worked out by hand: ties, signed zeros, NaN policies, all-NaN. */
static void test_hand_checked_answers(void **state)
{
    (void)state;
    yamr_context *ctx;
    assert_int_equal(yamr_create(&ctx, YAMR_DEVICE_CPU), YAMR_SUCCESS);
    const float a[] = {-3.0f, 5.0f, -0.0f, 5.0f, 0.0f, -7.0f};
    float v;
    int64_t i;
    assert_int_equal(yamr_argmax_f32(ctx, a, 6, &v, &i), YAMR_SUCCESS);
    assert_true(v == 5.0f && i == 1); /* first of the tie */
    assert_int_equal(yamr_argmin_f32(ctx, a, 6, &v, &i), YAMR_SUCCESS);
    assert_true(v == -7.0f && i == 5);
    const float zeros[] = {-0.0f, 0.0f};
    assert_int_equal(yamr_argmax_f32(ctx, zeros, 2, &v, &i), YAMR_SUCCESS);
    assert_true(i == 0 && signbit(v)); /* -0.0 == +0.0: the first wins */
    const float with_nan[] = {1.0f, NAN, 9.0f, NAN};
    assert_int_equal(yamr_argmax_f32(ctx, with_nan, 4, &v, &i), YAMR_SUCCESS);
    assert_true(isnan(v) && i == 1);
    assert_int_equal(yamr_set_nan_policy(ctx, YAMR_NAN_IGNORE), YAMR_SUCCESS);
    assert_int_equal(yamr_argmax_f32(ctx, with_nan, 4, &v, &i), YAMR_SUCCESS);
    assert_true(v == 9.0f && i == 2);
    assert_int_equal(yamr_min_f32(ctx, with_nan, 4, &v), YAMR_SUCCESS);
    assert_true(v == 1.0f);
    const double all_nan[] = {NAN, NAN, NAN};
    double d;
    assert_int_equal(yamr_argmin_f64(ctx, all_nan, 3, &d, &i), YAMR_SUCCESS);
    assert_true(isnan(d) && i == -1);
    const int32_t ints[] = {INT32_MIN, -1, INT32_MAX, INT32_MAX, INT32_MIN};
    int32_t k;
    assert_int_equal(yamr_argmax_i32(ctx, ints, 5, &k, &i), YAMR_SUCCESS);
    assert_true(k == INT32_MAX && i == 2);
    assert_int_equal(yamr_argmin_i32(ctx, ints, 5, &k, &i), YAMR_SUCCESS);
    assert_true(k == INT32_MIN && i == 0);
    const uint16_t half[] = {0xfc00 /* -inf */, 0x3c00 /* 1 */, 0xbc00 /* -1 */, 0x3c00};
    uint16_t h;
    assert_int_equal(yamr_reduce(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_F16, half, 4, &h, &i), YAMR_SUCCESS);
    assert_true(h == 0x3c00 && i == 1);
    assert_int_equal(yamr_reduce(ctx, YAMR_OP_MIN, YAMR_DTYPE_F16, half, 4, &h, NULL), YAMR_SUCCESS);
    assert_true(h == 0xfc00);
    yamr_destroy(ctx);
}

static void test_memory_helpers(void **state)
{
    (void)state;
    yamr_context *ctx;
    assert_int_equal(yamr_create(&ctx, YAMR_DEVICE_CPU), YAMR_SUCCESS);
    void *p = (void *)&p;
    expect_named(yamr_device_alloc(ctx, 0, &p), ctx, "yamr_device_alloc", "bytes is 0");
    expect_named(yamr_device_alloc(ctx, 8, NULL), ctx, "yamr_device_alloc", "ptr is NULL");
    expect_named(yamr_device_alloc(NULL, 8, &p), NULL, "yamr_device_alloc", "ctx is NULL");
    assert_ptr_equal(p, (void *)&p);
    assert_int_equal(yamr_device_alloc(ctx, 16, &p), YAMR_SUCCESS);
    const int src[4] = {1, 2, 3, 4};
    int back[4] = {0};
    assert_int_equal(yamr_copy_to_device(ctx, p, src, sizeof src), YAMR_SUCCESS);
    assert_int_equal(yamr_copy_to_host(ctx, back, p, sizeof back), YAMR_SUCCESS);
    assert_memory_equal(src, back, sizeof src);
    expect_named(yamr_copy_to_device(ctx, NULL, src, 4), ctx, "yamr_copy_to_device", "dst is NULL");
    expect_named(yamr_copy_to_host(ctx, back, NULL, 4), ctx, "yamr_copy_to_host", "src is NULL");
    expect_named(yamr_device_free(NULL, p), NULL, "yamr_device_free", "ctx is NULL");
    assert_int_equal(yamr_device_free(ctx, p), YAMR_SUCCESS);
    assert_int_equal(yamr_device_free(ctx, NULL), YAMR_SUCCESS);
    yamr_destroy(ctx);
}

/* yamr_context_scratch() on ctx: arguments, growth, a request for less keeping the pointer and
 * its contents, alignment, and yamr's own calls leaving it alone. `gpu`: a GPU context, which
 * can also be asked for more than the device has without aborting the process (ASan aborts on
 * an impossible malloc). */
static void check_scratch(yamr_context *ctx, int gpu)
{
    void *p = (void *)&p, *q = (void *)&q; /* sentinels that must survive failures */
    expect_named(yamr_context_scratch(NULL, 16, &p), NULL, "yamr_context_scratch", "ctx is NULL");
    expect_named(yamr_context_scratch(ctx, 16, NULL), ctx, "yamr_context_scratch", "ptr is NULL");
    expect_named(yamr_context_scratch(ctx, 0, &p), ctx, "yamr_context_scratch", "bytes is 0");
    assert_ptr_equal(p, (void *)&p);

    unsigned char pattern[4096], back[4096];
    for (size_t i = 0; i < sizeof pattern; ++i) pattern[i] = (unsigned char)(i * 37 + 11);
    assert_int_equal(yamr_context_scratch(ctx, 100, &p), YAMR_SUCCESS);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 8, 0); /* aligned for any dtype */
    assert_int_equal(yamr_copy_to_device(ctx, p, pattern, 100), YAMR_SUCCESS);
    /* no more than it holds: the same memory, contents kept */
    assert_int_equal(yamr_context_scratch(ctx, 40, &q), YAMR_SUCCESS);
    assert_ptr_equal(q, p);
    assert_int_equal(yamr_context_scratch(ctx, 100, &q), YAMR_SUCCESS);
    assert_ptr_equal(q, p);
    memset(back, 0, sizeof back);
    assert_int_equal(yamr_copy_to_host(ctx, back, q, 100), YAMR_SUCCESS);
    assert_memory_equal(back, pattern, 100);

    /* yamr's own calls do not use it */
    float *rows_in = NULL, *rows_out = NULL;
    const float host_in[6] = {1, 5, 2, -1, -7, 3};
    assert_int_equal(yamr_device_alloc(ctx, sizeof host_in, (void **)&rows_in), YAMR_SUCCESS);
    assert_int_equal(yamr_device_alloc(ctx, 2 * sizeof(float), (void **)&rows_out), YAMR_SUCCESS);
    assert_int_equal(yamr_copy_to_device(ctx, rows_in, host_in, sizeof host_in), YAMR_SUCCESS);
    assert_int_equal(yamr_reduce_rows(ctx, YAMR_OP_MAX, YAMR_DTYPE_F32, rows_in, 2, 3, 3,
                                      rows_out, NULL),
                     YAMR_SUCCESS);
    float maxima[2] = {0, 0};
    assert_int_equal(yamr_copy_to_host(ctx, maxima, rows_out, sizeof maxima), YAMR_SUCCESS);
    assert_true(maxima[0] == 5 && maxima[1] == 3);
    assert_int_equal(yamr_copy_to_host(ctx, back, p, 100), YAMR_SUCCESS);
    assert_memory_equal(back, pattern, 100);
    yamr_device_free(ctx, rows_in);
    yamr_device_free(ctx, rows_out);

    /* more: new memory of the new size (the old pointer is invalid; it may be reused) */
    assert_int_equal(yamr_context_scratch(ctx, sizeof pattern, &q), YAMR_SUCCESS);
    assert_non_null(q);
    assert_int_equal((uintptr_t)q % 8, 0);
    assert_int_equal(yamr_copy_to_device(ctx, q, pattern, sizeof pattern), YAMR_SUCCESS);
    assert_int_equal(yamr_copy_to_host(ctx, back, q, sizeof back), YAMR_SUCCESS);
    assert_memory_equal(back, pattern, sizeof pattern);
    assert_int_equal(yamr_context_scratch(ctx, 1, &p), YAMR_SUCCESS);
    assert_ptr_equal(p, q);

    if (gpu) { /* a failed allocation: *ptr untouched, and the next request starts afresh */
        void *r = (void *)&r;
        const yamr_status s = yamr_context_scratch(ctx, SIZE_MAX / 2, &r);
        assert_true(s == YAMR_ERROR_OUT_OF_MEMORY || s == YAMR_ERROR_DEVICE);
        assert_ptr_equal(r, (void *)&r);
        assert_int_equal(yamr_context_scratch(ctx, 64, &r), YAMR_SUCCESS);
        assert_non_null(r);
        assert_int_equal(yamr_copy_to_device(ctx, r, pattern, 64), YAMR_SUCCESS);
    }
}

static void test_context_scratch_cpu(void **state)
{
    (void)state;
    yamr_context *ctx;
    assert_int_equal(yamr_create(&ctx, YAMR_DEVICE_CPU), YAMR_SUCCESS);
    check_scratch(ctx, 0);
    yamr_destroy(ctx); /* frees the scratch (ASan's leak check in CI) */
    /* a context that never asked for scratch memory holds none */
    assert_int_equal(yamr_create(&ctx, YAMR_DEVICE_CPU), YAMR_SUCCESS);
    yamr_destroy(ctx);
}

static void test_context_scratch_gpu(void **state)
{
    (void)state;
    yamr_context *ctx;
    const yamr_status s = yamr_create(&ctx, 0);
    if (s != YAMR_SUCCESS) {
        printf("SKIPPED: no GPU (%s); the GPU part of the scratch test needs one\n",
               yamr_status_string(s));
        skip();
    }
    check_scratch(ctx, 1);
    yamr_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_rejects_bad_arguments),
        cmocka_unit_test(test_create_ex_says_why),
        cmocka_unit_test(test_reduce_rejects_bad_arguments_and_writes_nothing),
        cmocka_unit_test(test_settings),
        cmocka_unit_test(test_plans), cmocka_unit_test(test_names),
        cmocka_unit_test(test_plan_for_refuses_what_the_call_refuses),
        cmocka_unit_test(test_hand_checked_answers),
        cmocka_unit_test(test_memory_helpers),
        cmocka_unit_test(test_context_scratch_cpu),
        cmocka_unit_test(test_context_scratch_gpu),
    };
    return cmocka_run_group_tests_name("api", tests, NULL, NULL);
}
