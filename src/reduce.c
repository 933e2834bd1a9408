/* The reduction entry points: argument checks, dispatch to a backend, and the final write. */
#include <string.h>

#include "context.h"
#include "yamr_keys.h"

static int op_is_min(yamr_op op) { return op == YAMR_OP_MIN || op == YAMR_OP_ARGMIN; }
static int op_needs_index(yamr_op op) { return op == YAMR_OP_ARGMAX || op == YAMR_OP_ARGMIN; }

static yamr_status resolve_variant(const yamr_context *ctx, yamr_op op, yamr_dtype dtype,
                                   yamr_variant *variant)
{
    if (ctx->info.vendor == YAMR_VENDOR_CPU) {
        *variant = YAMR_VARIANT_AUTO; /* the CPU backend has a single algorithm */
        return YAMR_SUCCESS;
    }
    if (ctx->variant == YAMR_VARIANT_AUTO) {
        const char *reason;
        const yamr__variant_info *pick = yamr__select_variant(&ctx->info, op, dtype, &reason);
        if (!pick) return YAMR_ERROR_UNSUPPORTED;
        *variant = pick->id;
        return YAMR_SUCCESS;
    }
    if (!yamr__variant_runs_on(yamr__variant_lookup(ctx->variant), &ctx->info, op, dtype))
        return YAMR_ERROR_UNSUPPORTED;
    *variant = ctx->variant;
    return YAMR_SUCCESS;
}

yamr_status yamr_resolved_variant(const yamr_context *ctx, yamr_op op, yamr_dtype dtype,
                                  yamr_variant *variant)
{
    if (!ctx || !variant || (unsigned)op >= YAMR_OP_COUNT || (unsigned)dtype >= YAMR_DTYPE_COUNT)
        return YAMR_ERROR_INVALID_VALUE;
    return resolve_variant(ctx, op, dtype, variant);
}

yamr_status yamr_reduce(yamr_context *ctx, yamr_op op, yamr_dtype dtype, const void *in, size_t n,
                        void *value, int64_t *index)
{
    if (!ctx) return YAMR_ERROR_INVALID_VALUE;
    if ((unsigned)op >= YAMR_OP_COUNT || (unsigned)dtype >= YAMR_DTYPE_COUNT || !in || n == 0 ||
        !value || (op_needs_index(op) && !index))
        return YAMR_ERROR_INVALID_VALUE;
    yamr_variant variant;
    yamr_status s = resolve_variant(ctx, op, dtype, &variant);
    if (s != YAMR_SUCCESS) return s;

    const int is_min = op_is_min(op), nan_ignore = ctx->nan_policy == YAMR_NAN_IGNORE;
    yamr__result res;
    if (ctx->info.vendor == YAMR_VENDOR_CPU) {
        yamr__cpu_reduce(dtype, is_min, nan_ignore, in, n, &res);
    } else {
        if (n > ctx->info.max_single_block) return YAMR_ERROR_UNSUPPORTED;
        const yamr__gpu_call call = {variant, dtype, is_min, nan_ignore, in, n};
        s = yamr__gpu_reduce(ctx->gpu, &call, &res, ctx->error, sizeof ctx->error);
        if (s != YAMR_SUCCESS) return s;
    }
    /* A float reduction whose best key is the bottom saw only NaNs (YAMR_NAN_IGNORE): the value
     * is that NaN (the first element) and there is no index. */
    const int all_nan = yamr__dtype_is_float(dtype) && res.key == YAMR_KEY_BOTTOM;
    memcpy(value, &res.value_bits, yamr_dtype_size(dtype)); /* little-endian low bytes */
    if (index) *index = all_nan ? -1 : res.index;
    return YAMR_SUCCESS;
}

#define YAMR_TYPED_ENTRY_POINTS(suffix, ctype, dtype)                                          \
    yamr_status yamr_max_##suffix(yamr_context *ctx, const ctype *in, size_t n, ctype *out)    \
    {                                                                                          \
        return yamr_reduce(ctx, YAMR_OP_MAX, dtype, in, n, out, NULL);                         \
    }                                                                                          \
    yamr_status yamr_min_##suffix(yamr_context *ctx, const ctype *in, size_t n, ctype *out)    \
    {                                                                                          \
        return yamr_reduce(ctx, YAMR_OP_MIN, dtype, in, n, out, NULL);                         \
    }                                                                                          \
    yamr_status yamr_argmax_##suffix(yamr_context *ctx, const ctype *in, size_t n, ctype *out, \
                                     int64_t *index)                                           \
    {                                                                                          \
        return yamr_reduce(ctx, YAMR_OP_ARGMAX, dtype, in, n, out, index);                     \
    }                                                                                          \
    yamr_status yamr_argmin_##suffix(yamr_context *ctx, const ctype *in, size_t n, ctype *out, \
                                     int64_t *index)                                           \
    {                                                                                          \
        return yamr_reduce(ctx, YAMR_OP_ARGMIN, dtype, in, n, out, index);                     \
    }

YAMR_TYPED_ENTRY_POINTS(f32, float, YAMR_DTYPE_F32)
YAMR_TYPED_ENTRY_POINTS(f64, double, YAMR_DTYPE_F64)
YAMR_TYPED_ENTRY_POINTS(i32, int32_t, YAMR_DTYPE_I32)
