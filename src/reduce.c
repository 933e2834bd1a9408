/* SPDX-License-Identifier: MIT */
/* The reduction entry points: argument checks, dispatch to a backend, and the final write. */
#include <stdint.h>
#include <string.h>

#include "checks.h"
#include "context.h"

static int op_is_min(yamr_op op) { return op == YAMR_OP_MIN || op == YAMR_OP_ARGMIN; }
static int op_needs_index(yamr_op op) { return op == YAMR_OP_ARGMAX || op == YAMR_OP_ARGMIN; }

/* Writes one slot's answer to host memory. */
static void write_result(yamr_dtype dtype, const yamr__result *r, void *value, int64_t *index)
{
    memcpy(value, &r->value_bits, yamr_dtype_size(dtype)); /* little-endian low bytes */
    if (index) *index = r->index;
}

/*
 * One or two slots (slots == 2: min+max, slot 0 MAX and slot 1 MIN) with the order of checks
 * of every entry point: context, arguments, variant, then the backend. Outputs are written only
 * on success.
 */
static yamr_status run(const char *fn, yamr_context *ctx, yamr_op op, int slots, yamr_dtype dtype,
                       const void *in, size_t n, void *value[2], int64_t *index[2], int async)
{
    if (!ctx) return yamr__fail(YAMR_ERROR_INVALID_VALUE, NULL, 0, "%s: ctx is NULL", fn);
    char *err = ctx->error;
    const size_t errlen = sizeof ctx->error;
    err[0] = '\0'; /* yamr_last_error(): this call's message, or none */
    yamr_status s = yamr__check_reduce(fn, op, dtype, n, err, errlen);
    if (s != YAMR_SUCCESS) return s;
    if (!in) return yamr__fail(YAMR_ERROR_INVALID_VALUE, err, errlen, "%s: in is NULL", fn);
    static const char *const value_names[2][2] = {{"value", ""}, {"max_value", "min_value"}};
    for (int k = 0; k < slots; ++k)
        if (!value[k])
            return yamr__fail(YAMR_ERROR_INVALID_VALUE, err, errlen, "%s: %s is NULL", fn,
                              value_names[slots - 1][k]);
    if (slots == 1 && op_needs_index(op) && !index[0])
        return yamr__fail(YAMR_ERROR_INVALID_VALUE, err, errlen,
                          "%s: index is NULL (an argmax or argmin needs it)", fn);
    const yamr_call kind = slots == 2 ? YAMR_CALL_MINMAX : YAMR_CALL_REDUCE;
    yamr_plan plan;
    s = yamr__make_plan(ctx, kind, slots == 2 ? YAMR_OP_ARGMAX : op, dtype, 1, n,
                                    ((uintptr_t)in % yamr_dtype_size(dtype)) == 0, &plan, ctx->error,
                                    sizeof ctx->error);
    if (s != YAMR_SUCCESS) return s;

    const int nan_ignore = ctx->nan_policy == YAMR_NAN_IGNORE;
    yamr__result res[2];
    if (ctx->info.vendor == YAMR_VENDOR_CPU) {
        yamr__cpu_reduce(ctx->cpu.isa, (int)YAMR__PLAN_CPU_THREADS(&plan),
                         YAMR__PLAN_CPU_GRAB(&plan), dtype, slots, op_is_min(op), nan_ignore, in,
                         n, res);
    } else {
        yamr__gpu_call call = {&plan, dtype, op_is_min(op), slots == 2, nan_ignore, in, n,
                               {NULL, NULL}, {NULL, NULL}};
        if (async)
            for (int k = 0; k < slots; ++k) {
                call.value_out[k] = value[k];
                call.index_out[k] = index[k];
            }
        s = yamr__gpu_reduce(ctx->gpu, &call, res, ctx->error, sizeof ctx->error);
        if (s != YAMR_SUCCESS) return s;
    }
    ctx->last_plan = plan;
    ctx->has_plan = 1;
    if (ctx->gpu && async) return YAMR_SUCCESS; /* the results stay in device memory */
    for (int k = 0; k < slots; ++k) write_result(dtype, &res[k], value[k], index[k]);
    return YAMR_SUCCESS;
}

yamr_status yamr_reduce(yamr_context *ctx, yamr_op op, yamr_dtype dtype, const void *in, size_t n,
                        void *value, int64_t *index)
{
    void *v[2] = {value, NULL};
    int64_t *i[2] = {index, NULL};
    return run("yamr_reduce", ctx, op, 1, dtype, in, n, v, i, 0);
}

yamr_status yamr_reduce_async(yamr_context *ctx, yamr_op op, yamr_dtype dtype, const void *in,
                              size_t n, void *value, int64_t *index)
{
    void *v[2] = {value, NULL};
    int64_t *i[2] = {index, NULL};
    return run("yamr_reduce_async", ctx, op, 1, dtype, in, n, v, i, 1);
}

yamr_status yamr_minmax(yamr_context *ctx, yamr_dtype dtype, const void *in, size_t n,
                        void *min_value, int64_t *min_index, void *max_value, int64_t *max_index)
{
    void *v[2] = {max_value, min_value};
    int64_t *i[2] = {max_index, min_index};
    return run("yamr_minmax", ctx, YAMR_OP_MAX, 2, dtype, in, n, v, i, 0);
}

yamr_status yamr_minmax_async(yamr_context *ctx, yamr_dtype dtype, const void *in, size_t n,
                              void *min_value, int64_t *min_index, void *max_value,
                              int64_t *max_index)
{
    void *v[2] = {max_value, min_value};
    int64_t *i[2] = {max_index, min_index};
    return run("yamr_minmax_async", ctx, YAMR_OP_MAX, 2, dtype, in, n, v, i, 1);
}

yamr_status yamr_set_stream(yamr_context *ctx, void *stream)
{
    if (!ctx) return yamr__fail(YAMR_ERROR_INVALID_VALUE, NULL, 0, "yamr_set_stream: ctx is NULL");
    if (!ctx->gpu) return YAMR_ERROR_UNSUPPORTED;
    return yamr__gpu_set_stream(ctx->gpu, stream);
}

#define YAMR_TYPED_OP(name, op, suffix, ctype, dtype, entry)                                   \
    yamr_status yamr_##name##_##suffix(yamr_context *ctx, const ctype *in, size_t n, ctype *out) \
    {                                                                                          \
        return entry(ctx, op, dtype, in, n, out, NULL);                                        \
    }
#define YAMR_TYPED_ARG_OP(name, op, suffix, ctype, dtype, entry)                               \
    yamr_status yamr_##name##_##suffix(yamr_context *ctx, const ctype *in, size_t n, ctype *out, \
                                       int64_t *index)                                         \
    {                                                                                          \
        return entry(ctx, op, dtype, in, n, out, index);                                       \
    }
#define YAMR_TYPED_ENTRY_POINTS(t, ctype, dtype)                                               \
    YAMR_TYPED_OP(max, YAMR_OP_MAX, t, ctype, dtype, yamr_reduce)                              \
    YAMR_TYPED_OP(min, YAMR_OP_MIN, t, ctype, dtype, yamr_reduce)                              \
    YAMR_TYPED_ARG_OP(argmax, YAMR_OP_ARGMAX, t, ctype, dtype, yamr_reduce)                    \
    YAMR_TYPED_ARG_OP(argmin, YAMR_OP_ARGMIN, t, ctype, dtype, yamr_reduce)                    \
    YAMR_TYPED_OP(max, YAMR_OP_MAX, t##_async, ctype, dtype, yamr_reduce_async)                \
    YAMR_TYPED_OP(min, YAMR_OP_MIN, t##_async, ctype, dtype, yamr_reduce_async)                \
    YAMR_TYPED_ARG_OP(argmax, YAMR_OP_ARGMAX, t##_async, ctype, dtype, yamr_reduce_async)      \
    YAMR_TYPED_ARG_OP(argmin, YAMR_OP_ARGMIN, t##_async, ctype, dtype, yamr_reduce_async)

YAMR_TYPED_ENTRY_POINTS(f32, float, YAMR_DTYPE_F32)
YAMR_TYPED_ENTRY_POINTS(f64, double, YAMR_DTYPE_F64)
YAMR_TYPED_ENTRY_POINTS(f16, uint16_t, YAMR_DTYPE_F16)
YAMR_TYPED_ENTRY_POINTS(bf16, uint16_t, YAMR_DTYPE_BF16)
YAMR_TYPED_ENTRY_POINTS(i32, int32_t, YAMR_DTYPE_I32)
YAMR_TYPED_ENTRY_POINTS(u32, uint32_t, YAMR_DTYPE_U32)
YAMR_TYPED_ENTRY_POINTS(i64, int64_t, YAMR_DTYPE_I64)
