/* SPDX-License-Identifier: MIT */
/*
 * Batched reductions (rows, segments, softmax statistics): argument checks, the plan, and the
 * dispatch to a backend (the CPU one: cpu/cpu_batch.c).
 */
#include <string.h>

#include "checks.h"
#include "context.h"

const char *yamr_rows_shape_name(yamr_rows_shape shape)
{
    switch (shape) {
    case YAMR_ROWS_WARP_PER_ROW: return "warp_per_row";
    case YAMR_ROWS_BLOCK_PER_ROW: return "block_per_row";
    case YAMR_ROWS_BLOCKS_PER_ROW: return "blocks_per_row";
    }
    return "invalid";
}

#define INVALID(...) yamr__fail(YAMR_ERROR_INVALID_VALUE, err, errlen, __VA_ARGS__)

/* ---- Entry points: context, arguments, then the backend. Nothing is written on failure. ---- */

static yamr_status run_batch(yamr_context *ctx, yamr__gpu_batch *c, yamr_call call, yamr_op op)
{
    yamr_plan plan;
    const int aligned = ((uintptr_t)c->in % yamr_dtype_size(c->dtype)) == 0;
    yamr_status s = yamr__make_plan(ctx, call, op, c->dtype, c->rows, c->cols, aligned, &plan,
                                    ctx->error, sizeof ctx->error);
    if (s != YAMR_SUCCESS) return s;
    c->plan = &plan;
    if (ctx->gpu) {
        switch (c->kind) {
        case YAMR__BATCH_ROWS: s = yamr__gpu_rows(ctx->gpu, c, ctx->error, sizeof ctx->error); break;
        case YAMR__BATCH_SEGMENTS:
            s = yamr__gpu_segments(ctx->gpu, c, ctx->error, sizeof ctx->error);
            break;
        default: s = yamr__gpu_softmax_stats(ctx->gpu, c, ctx->error, sizeof ctx->error); break;
        }
    } else if (c->kind == YAMR__BATCH_SOFTMAX) {
        yamr__cpu_softmax(&ctx->cpu, c);
    } else {
        yamr__cpu_rows(&ctx->cpu, c);
    }
    if (s == YAMR_SUCCESS) {
        ctx->last_plan = plan;
        ctx->has_plan = 1;
    }
    return s;
}

/* A max/min/argmax/argmin batch of `count` rows or segments, as far as both kinds share it. */
static yamr__gpu_batch op_batch(const yamr_context *ctx, yamr__batch_kind kind, yamr_op op,
                                yamr_dtype dtype, const void *in, size_t count, void *values,
                                int64_t *indices, int async)
{
    yamr__gpu_batch c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.dtype = dtype;
    c.is_min = op == YAMR_OP_MIN || op == YAMR_OP_ARGMIN;
    c.nan_ignore = ctx->nan_policy == YAMR_NAN_IGNORE;
    c.in = in;
    c.rows = count;
    c.values = values;
    c.second = indices;
    c.synchronous = !async;
    return c;
}

static yamr_status reduce_rows(const char *fn, yamr_context *ctx, yamr_op op, yamr_dtype dtype,
                               const void *in, size_t rows, size_t cols, size_t ld, void *values,
                               int64_t *indices, int async)
{
    if (!ctx) return yamr__fail(YAMR_ERROR_INVALID_VALUE, NULL, 0, "%s: ctx is NULL", fn);
    char *err = ctx->error;
    const size_t errlen = sizeof ctx->error;
    err[0] = '\0'; /* yamr_last_error(): this call's message, or none */
    yamr_status s = yamr__check_rows(fn, op, dtype, rows, cols, ld, err, errlen);
    if (s == YAMR_SUCCESS) s = yamr__check_op_outputs(fn, op, in, values, indices, err, errlen);
    if (s != YAMR_SUCCESS) return s;
    yamr__gpu_batch c = op_batch(ctx, YAMR__BATCH_ROWS, op, dtype, in, rows, values, indices, async);
    c.cols = cols;
    c.ld = ld;
    return run_batch(ctx, &c, YAMR_CALL_ROWS, op);
}

yamr_status yamr_reduce_rows(yamr_context *ctx, yamr_op op, yamr_dtype dtype, const void *in,
                             size_t rows, size_t cols, size_t ld, void *values, int64_t *indices)
{
    return reduce_rows("yamr_reduce_rows", ctx, op, dtype, in, rows, cols, ld, values, indices,
                       0);
}

yamr_status yamr_reduce_rows_async(yamr_context *ctx, yamr_op op, yamr_dtype dtype, const void *in,
                                   size_t rows, size_t cols, size_t ld, void *values,
                                   int64_t *indices)
{
    return reduce_rows("yamr_reduce_rows_async", ctx, op, dtype, in, rows, cols, ld, values,
                       indices, 1);
}

static yamr_status reduce_segments(const char *fn, yamr_context *ctx, yamr_op op,
                                   yamr_dtype dtype, const void *in, const int64_t *offsets,
                                   size_t segments, void *values, int64_t *indices, int async)
{
    if (!ctx) return yamr__fail(YAMR_ERROR_INVALID_VALUE, NULL, 0, "%s: ctx is NULL", fn);
    char *err = ctx->error;
    const size_t errlen = sizeof ctx->error;
    err[0] = '\0'; /* yamr_last_error(): this call's message, or none */
    yamr_status s = yamr__check_segments(fn, op, dtype, segments, err, errlen);
    if (s == YAMR_SUCCESS && !offsets) s = INVALID("%s: offsets is NULL", fn);
    if (s == YAMR_SUCCESS) s = yamr__check_op_outputs(fn, op, in, values, indices, err, errlen);
    if (s != YAMR_SUCCESS) return s;
    yamr__gpu_batch c =
        op_batch(ctx, YAMR__BATCH_SEGMENTS, op, dtype, in, segments, values, indices, async);
    c.offsets = offsets;
    return run_batch(ctx, &c, YAMR_CALL_SEGMENTS, op);
}

yamr_status yamr_reduce_segments(yamr_context *ctx, yamr_op op, yamr_dtype dtype, const void *in,
                                 const int64_t *offsets, size_t segments, void *values,
                                 int64_t *indices)
{
    return reduce_segments("yamr_reduce_segments", ctx, op, dtype, in, offsets, segments, values,
                           indices, 0);
}

yamr_status yamr_reduce_segments_async(yamr_context *ctx, yamr_op op, yamr_dtype dtype,
                                       const void *in, const int64_t *offsets, size_t segments,
                                       void *values, int64_t *indices)
{
    return reduce_segments("yamr_reduce_segments_async", ctx, op, dtype, in, offsets, segments,
                           values, indices, 1);
}

static yamr_status softmax_stats(const char *fn, yamr_context *ctx, yamr_dtype dtype,
                                 const void *in, size_t rows, size_t cols, size_t ld,
                                 void *row_max, void *row_sum, int async)
{
    if (!ctx) return yamr__fail(YAMR_ERROR_INVALID_VALUE, NULL, 0, "%s: ctx is NULL", fn);
    char *err = ctx->error;
    const size_t errlen = sizeof ctx->error;
    err[0] = '\0'; /* yamr_last_error(): this call's message, or none */
    /* a NULL pointer is refused before a dtype that is in range but unsupported */
    yamr_status s = YAMR_SUCCESS;
    if (!in) s = INVALID("%s: in is NULL", fn);
    else if (!row_max) s = INVALID("%s: row_max is NULL", fn);
    else if (!row_sum) s = INVALID("%s: row_sum is NULL", fn);
    if (s == YAMR_SUCCESS) s = yamr__check_softmax(fn, dtype, rows, cols, ld, err, errlen);
    if (s != YAMR_SUCCESS) return s;
    yamr__gpu_batch c;
    memset(&c, 0, sizeof c);
    c.kind = YAMR__BATCH_SOFTMAX;
    c.dtype = dtype;
    c.nan_ignore = ctx->nan_policy == YAMR_NAN_IGNORE;
    c.in = in;
    c.rows = rows;
    c.cols = cols;
    c.ld = ld;
    c.values = row_max;
    c.second = row_sum;
    c.synchronous = !async;
    return run_batch(ctx, &c, YAMR_CALL_SOFTMAX_STATS, YAMR_OP_MAX);
}

yamr_status yamr_softmax_stats_rows(yamr_context *ctx, yamr_dtype dtype, const void *in,
                                    size_t rows, size_t cols, size_t ld, void *row_max,
                                    void *row_sum)
{
    return softmax_stats("yamr_softmax_stats_rows", ctx, dtype, in, rows, cols, ld, row_max,
                         row_sum, 0);
}

yamr_status yamr_softmax_stats_rows_async(yamr_context *ctx, yamr_dtype dtype, const void *in,
                                          size_t rows, size_t cols, size_t ld, void *row_max,
                                          void *row_sum)
{
    return softmax_stats("yamr_softmax_stats_rows_async", ctx, dtype, in, rows, cols, ld, row_max,
                         row_sum, 1);
}
