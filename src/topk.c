/* SPDX-License-Identifier: MIT */
/*
 * Top-k of each row (include/yamr.h, yamr_topk_rows()): argument checks, the plan, and the
 * dispatch to the GPU launcher (yamr__gpu_topk) or the CPU backend (cpu/cpu_topk.c). The argument
 * rules are yamr_reduce_rows()'s, plus k.
 */
#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "context.h"
#include "cpu/cpu_topk.h"
#include "topk.h"

/* The plan of a top-k call (arguments already checked). */
static void make_topk_plan(const yamr_context *ctx, yamr_op op, yamr_dtype dtype, size_t rows,
                           size_t cols, size_t k, int aligned, yamr_plan *plan)
{
    yamr_plan p;
    memset(&p, 0, sizeof p);
    p.call = YAMR_CALL_TOPK;
    p.op = op;
    p.dtype = dtype;
    p.rows = rows;
    p.cols = cols;
    p.k = k;
    p.variant = YAMR_VARIANT_AUTO;
    p.kernel = YAMR_KERNEL_CPU;
    p.shape = YAMR_ROWS_WARP_PER_ROW;
    p.blocks_per_row = 1;
    p.index_bits = 64;
    if (ctx->gpu) {
        p.variant = YAMR_VARIANT_WARP_SHUFFLE; /* as every batched call */
        p.vector_loads = aligned;
        yamr__topk_gpu_shape(&ctx->info, rows, cols, k, yamr_dtype_size(dtype), &p);
    } else {
        yamr__cpu_plan(&ctx->cpu, rows * cols, &p); /* the matrix checks bound rows * cols */
    }
    *plan = p;
}

static yamr_status topk_rows(const char *fn, yamr_context *ctx, yamr_op op, yamr_dtype dtype,
                             const void *in, size_t rows, size_t cols, size_t ld, size_t k,
                             void *values, int64_t *indices, int async)
{
    if (!ctx) return yamr__fail(YAMR_ERROR_INVALID_VALUE, NULL, 0, "%s: ctx is NULL", fn);
    char *err = ctx->error;
    const size_t errlen = sizeof ctx->error;
    err[0] = '\0'; /* yamr_last_error(): this call's message, or none */
    yamr_status checked = yamr__check_topk(fn, op, dtype, rows, cols, ld, k, err, errlen);
    if (checked == YAMR_SUCCESS)
        checked = yamr__check_op_outputs(fn, op, in, values, indices, err, errlen);
    if (checked != YAMR_SUCCESS) return checked;
    yamr_plan plan;
    const int aligned = ((uintptr_t)in % yamr_dtype_size(dtype)) == 0;
    make_topk_plan(ctx, op, dtype, rows, cols, k, aligned, &plan);
    yamr__topk_call c;
    memset(&c, 0, sizeof c);
    c.dtype = dtype;
    c.largest = op == YAMR_OP_MAX || op == YAMR_OP_ARGMAX;
    c.nan_ignore = ctx->nan_policy == YAMR_NAN_IGNORE;
    c.in = in;
    c.rows = rows;
    c.cols = cols;
    c.ld = ld;
    c.k = k;
    c.values = values;
    c.indices = indices;
    c.plan = &plan;
    c.synchronous = !async;
    const yamr_status s = ctx->gpu ? yamr__gpu_topk(ctx->gpu, &c, ctx->error, sizeof ctx->error)
                                   : yamr__cpu_topk(&ctx->cpu, &c);
    if (s == YAMR_SUCCESS) {
        ctx->last_plan = plan;
        ctx->has_plan = 1;
    }
    return s;
}

yamr_status yamr_topk_rows(yamr_context *ctx, yamr_op op, yamr_dtype dtype, const void *in,
                           size_t rows, size_t cols, size_t ld, size_t k, void *values,
                           int64_t *indices)
{
    return topk_rows("yamr_topk_rows", ctx, op, dtype, in, rows, cols, ld, k, values, indices, 0);
}

yamr_status yamr_topk_rows_async(yamr_context *ctx, yamr_op op, yamr_dtype dtype, const void *in,
                                 size_t rows, size_t cols, size_t ld, size_t k, void *values,
                                 int64_t *indices)
{
    return topk_rows("yamr_topk_rows_async", ctx, op, dtype, in, rows, cols, ld, k, values,
                     indices, 1);
}

yamr_status yamr_plan_for_topk(const yamr_context *ctx, yamr_op op, yamr_dtype dtype, size_t rows,
                               size_t cols, size_t k, yamr_plan *plan)
{
    static const char fn[] = "yamr_plan_for_topk";
    if (!ctx) return yamr__fail(YAMR_ERROR_INVALID_VALUE, NULL, 0, "%s: ctx is NULL", fn);
    if (!plan) return yamr__fail(YAMR_ERROR_INVALID_VALUE, NULL, 0, "%s: plan is NULL", fn);
    const yamr_status checked = yamr__check_topk(fn, op, dtype, rows, cols, cols, k, NULL, 0);
    if (checked != YAMR_SUCCESS) return checked;
    yamr_plan p;
    make_topk_plan(ctx, op, dtype, rows, cols, k, 1, &p);
    *plan = p;
    return YAMR_SUCCESS;
}
