/*
 * Batched reductions (rows, segments, softmax statistics): argument checks, the kernel shape
 * chosen per call, and the dispatch to a backend (the CPU one: cpu_batch.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "context.h"

/* ---- The shape choice: pure, so that the tests can ask it about made-up devices. ---- */

int yamr__rows_blocks_per_row(size_t rows, size_t cols, int multiprocessors)
{
    if (multiprocessors < 1) multiprocessors = 1;
    if (rows == 0 || rows >= (size_t)YAMR__ROWS_FEW_PER_UNIT * (size_t)multiprocessors ||
        rows > YAMR__ROWS_SPLIT_MAX_ROWS)
        return 1;
    const size_t target = (size_t)YAMR__ROWS_SPLIT_BLOCKS_PER_UNIT * (size_t)multiprocessors;
    size_t per_row = (target + rows - 1) / rows;
    if (cols && per_row > cols / YAMR__ROWS_SPLIT_MIN_PER_BLOCK)
        per_row = cols / YAMR__ROWS_SPLIT_MIN_PER_BLOCK;
    if (per_row > YAMR__ROWS_SPLIT_MAX_BLOCKS_PER_ROW)
        per_row = YAMR__ROWS_SPLIT_MAX_BLOCKS_PER_ROW;
    if (per_row * rows > YAMR__ROWS_SPLIT_MAX_PARTIALS)
        per_row = YAMR__ROWS_SPLIT_MAX_PARTIALS / rows;
    return per_row < 2 ? 1 : (int)per_row;
}

yamr_rows_shape yamr__rows_shape(size_t rows, size_t cols, int multiprocessors, int warp_size)
{
    if (warp_size < 1) warp_size = 1;
    if (cols <= (size_t)YAMR__ROWS_WARP_MAX_PER_LANE * (size_t)warp_size)
        return YAMR_ROWS_WARP_PER_ROW;
    if (yamr__rows_blocks_per_row(rows, cols, multiprocessors) >= 2)
        return YAMR_ROWS_BLOCKS_PER_ROW;
    return YAMR_ROWS_BLOCK_PER_ROW;
}

yamr_rows_shape yamr__segments_shape(size_t segments, int multiprocessors)
{
    return yamr__rows_blocks_per_row(segments, 0, multiprocessors) >= 2 ? YAMR_ROWS_BLOCKS_PER_ROW
                                                                        : YAMR_ROWS_WARP_PER_ROW;
}

const char *yamr_rows_shape_name(yamr_rows_shape shape)
{
    switch (shape) {
    case YAMR_ROWS_WARP_PER_ROW: return "warp_per_row";
    case YAMR_ROWS_BLOCK_PER_ROW: return "block_per_row";
    case YAMR_ROWS_BLOCKS_PER_ROW: return "blocks_per_row";
    }
    return "invalid";
}

yamr_status yamr_rows_shape_for(const yamr_context *ctx, size_t rows, size_t cols,
                                yamr_rows_shape *shape)
{
    if (!ctx || !shape || rows == 0 || cols == 0) return YAMR_ERROR_INVALID_VALUE;
    if (!ctx->gpu) return YAMR_ERROR_UNSUPPORTED;
    *shape = yamr__rows_shape(rows, cols, ctx->info.multiprocessors, ctx->info.warp_size);
    return YAMR_SUCCESS;
}

uint64_t yamr__empty_value_bits(yamr_dtype t)
{
    switch (t) {
    case YAMR_DTYPE_F32: return YAMR__QUIET_NAN_F32;
    case YAMR_DTYPE_F64: return YAMR__QUIET_NAN_F64;
    case YAMR_DTYPE_F16: return YAMR__QUIET_NAN_F16;
    case YAMR_DTYPE_BF16: return YAMR__QUIET_NAN_BF16;
    default: return 0;
    }
}

/* ---- The report's line about the last batched call. ---- */

static const char *op_name(yamr_op op)
{
    static const char *const names[YAMR_OP_COUNT] = {"max", "min", "argmax", "argmin"};
    return names[op];
}

/* Records on ctx which shape the call gets and why (yamr_report() prints it). */
static void note_shape(yamr_context *ctx, const yamr__gpu_batch *c, const char *what)
{
    char *note = ctx->batch_note;
    const size_t cap = sizeof ctx->batch_note;
    const int mp = ctx->info.multiprocessors, w = ctx->info.warp_size;
    const size_t few = (size_t)YAMR__ROWS_FEW_PER_UNIT * (size_t)mp;
    if (!ctx->gpu) {
        if (c->kind == YAMR__BATCH_SEGMENTS)
            snprintf(note, cap, "%zu segments, %s: the CPU backend (%s), segments over threads",
                     c->rows, what, yamr__cpu_isa_name(ctx->cpu.isa));
        else
            snprintf(note, cap, "%zu x %zu (ld %zu), %s: the CPU backend (%s), rows over threads",
                     c->rows, c->cols, c->ld, what, yamr__cpu_isa_name(ctx->cpu.isa));
        return;
    }
    const char *shape = yamr_rows_shape_name(c->shape);
    if (c->kind == YAMR__BATCH_SEGMENTS) {
        if (c->shape == YAMR_ROWS_BLOCKS_PER_ROW)
            snprintf(note, cap,
                     "%zu segments, %s: %s, %d blocks per segment (fewer than %d segments per "
                     "multiprocessor x %d)",
                     c->rows, what, shape, c->blocks_per_row, YAMR__ROWS_FEW_PER_UNIT, mp);
        else
            snprintf(note, cap,
                     "%zu segments, %s: %s, a group of %d lanes per segment of at most %d "
                     "elements, a warp up to %d, the block for longer ones, decided per segment "
                     "on the device",
                     c->rows, what, shape,
                     YAMR__SEGMENT_GROUP_LANES(yamr_dtype_size(c->dtype)),
                     YAMR__ROWS_GROUP_LANES * YAMR__ROWS_GROUP_COUNT,
                     YAMR__SEGMENT_WARP_MAX_PER_LANE * w);
        return;
    }
    const int n =
        snprintf(note, cap, "%zu x %zu (ld %zu), %s: %s", c->rows, c->cols, c->ld, what, shape);
    if (n < 0 || (size_t)n >= cap) return;
    char *rest = note + n;
    const size_t left = cap - (size_t)n;
    const size_t warp_cols = (size_t)YAMR__ROWS_WARP_MAX_PER_LANE * (size_t)w;
    switch (c->shape) {
    case YAMR_ROWS_WARP_PER_ROW:
        snprintf(rest, left,
                 " (rows of at most %zu elements: %d per lane of a %d-wide warp; up to "
                 "%d, a group of %d lanes per row)",
                 warp_cols, YAMR__ROWS_WARP_MAX_PER_LANE, w,
                 YAMR__ROWS_GROUP_LANES * YAMR__ROWS_GROUP_COUNT, YAMR__ROWS_GROUP_LANES);
        break;
    case YAMR_ROWS_BLOCKS_PER_ROW:
        snprintf(rest, left,
                 ", %d blocks per row (rows longer than %zu, fewer than %d per "
                 "multiprocessor x %d)",
                 c->blocks_per_row, warp_cols, YAMR__ROWS_FEW_PER_UNIT, mp);
        break;
    default:
        snprintf(rest, left, " (rows longer than %zu; %s)", warp_cols,
                 c->rows >= few                        ? "enough rows to fill the multiprocessors"
                 : c->rows > YAMR__ROWS_SPLIT_MAX_ROWS ? "more rows than the split workspace holds"
                                                       : "rows too short to split");
        break;
    }
}

/* ---- Argument checks ---- */

static int op_needs_index(yamr_op op) { return op == YAMR_OP_ARGMAX || op == YAMR_OP_ARGMIN; }

/* rows x cols with leading dimension ld: every offset, (rows - 1) * ld + cols elements in bytes,
 * fits an int64_t (and so size_t) */
static int matrix_ok(size_t rows, size_t cols, size_t ld, size_t elem)
{
    if (rows == 0 || cols == 0 || ld < cols || elem == 0) return 0;
    const size_t limit = (size_t)INT64_MAX / elem;
    if (cols > limit) return 0;
    return rows == 1 || ld <= (limit - cols) / (rows - 1);
}

/* ---- Entry points: context, arguments, then the backend. Nothing is written on failure. ---- */

static yamr_status run_batch(yamr_context *ctx, yamr__gpu_batch *c, const char *what)
{
    if (ctx->gpu) {
        if (c->kind == YAMR__BATCH_SEGMENTS) {
            c->shape = yamr__segments_shape(c->rows, ctx->info.multiprocessors);
            c->blocks_per_row = yamr__rows_blocks_per_row(c->rows, 0, ctx->info.multiprocessors);
        } else {
            c->shape =
                yamr__rows_shape(c->rows, c->cols, ctx->info.multiprocessors, ctx->info.warp_size);
            c->blocks_per_row =
                yamr__rows_blocks_per_row(c->rows, c->cols, ctx->info.multiprocessors);
        }
        note_shape(ctx, c, what);
        switch (c->kind) {
        case YAMR__BATCH_ROWS: return yamr__gpu_rows(ctx->gpu, c, ctx->error, sizeof ctx->error);
        case YAMR__BATCH_SEGMENTS:
            return yamr__gpu_segments(ctx->gpu, c, ctx->error, sizeof ctx->error);
        default: return yamr__gpu_softmax_stats(ctx->gpu, c, ctx->error, sizeof ctx->error);
        }
    }
    note_shape(ctx, c, what);
    if (c->kind == YAMR__BATCH_SOFTMAX)
        yamr__cpu_softmax(&ctx->cpu, c);
    else
        yamr__cpu_rows(&ctx->cpu, c);
    return YAMR_SUCCESS;
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

static yamr_status reduce_rows(yamr_context *ctx, yamr_op op, yamr_dtype dtype, const void *in,
                               size_t rows, size_t cols, size_t ld, void *values, int64_t *indices,
                               int async)
{
    if (!ctx) return YAMR_ERROR_INVALID_VALUE;
    if ((unsigned)op >= YAMR_OP_COUNT || (unsigned)dtype >= YAMR_DTYPE_COUNT || !in || !values ||
        (op_needs_index(op) && !indices) || !matrix_ok(rows, cols, ld, yamr_dtype_size(dtype)))
        return YAMR_ERROR_INVALID_VALUE;
    yamr__gpu_batch c = op_batch(ctx, YAMR__BATCH_ROWS, op, dtype, in, rows, values, indices, async);
    c.cols = cols;
    c.ld = ld;
    char what[48];
    snprintf(what, sizeof what, "%s %s", yamr_dtype_name(dtype), op_name(op));
    return run_batch(ctx, &c, what);
}

yamr_status yamr_reduce_rows(yamr_context *ctx, yamr_op op, yamr_dtype dtype, const void *in,
                             size_t rows, size_t cols, size_t ld, void *values, int64_t *indices)
{
    return reduce_rows(ctx, op, dtype, in, rows, cols, ld, values, indices, 0);
}

yamr_status yamr_reduce_rows_async(yamr_context *ctx, yamr_op op, yamr_dtype dtype, const void *in,
                                   size_t rows, size_t cols, size_t ld, void *values,
                                   int64_t *indices)
{
    return reduce_rows(ctx, op, dtype, in, rows, cols, ld, values, indices, 1);
}

static yamr_status reduce_segments(yamr_context *ctx, yamr_op op, yamr_dtype dtype, const void *in,
                                   const int64_t *offsets, size_t segments, void *values,
                                   int64_t *indices, int async)
{
    if (!ctx) return YAMR_ERROR_INVALID_VALUE;
    if ((unsigned)op >= YAMR_OP_COUNT || (unsigned)dtype >= YAMR_DTYPE_COUNT || !in || !offsets ||
        segments == 0 || segments > (size_t)INT64_MAX - 1 || !values ||
        (op_needs_index(op) && !indices))
        return YAMR_ERROR_INVALID_VALUE;
    yamr__gpu_batch c =
        op_batch(ctx, YAMR__BATCH_SEGMENTS, op, dtype, in, segments, values, indices, async);
    c.offsets = offsets;
    char what[48];
    snprintf(what, sizeof what, "%s %s", yamr_dtype_name(dtype), op_name(op));
    return run_batch(ctx, &c, what);
}

yamr_status yamr_reduce_segments(yamr_context *ctx, yamr_op op, yamr_dtype dtype, const void *in,
                                 const int64_t *offsets, size_t segments, void *values,
                                 int64_t *indices)
{
    return reduce_segments(ctx, op, dtype, in, offsets, segments, values, indices, 0);
}

yamr_status yamr_reduce_segments_async(yamr_context *ctx, yamr_op op, yamr_dtype dtype,
                                       const void *in, const int64_t *offsets, size_t segments,
                                       void *values, int64_t *indices)
{
    return reduce_segments(ctx, op, dtype, in, offsets, segments, values, indices, 1);
}

static yamr_status softmax_stats(yamr_context *ctx, yamr_dtype dtype, const void *in, size_t rows,
                                 size_t cols, size_t ld, void *row_max, void *row_sum, int async)
{
    if (!ctx) return YAMR_ERROR_INVALID_VALUE;
    if ((unsigned)dtype >= YAMR_DTYPE_COUNT || !in || !row_max || !row_sum ||
        !matrix_ok(rows, cols, ld, yamr_dtype_size(dtype)))
        return YAMR_ERROR_INVALID_VALUE;
    if (dtype != YAMR_DTYPE_F32 && dtype != YAMR_DTYPE_F64) return YAMR_ERROR_UNSUPPORTED;
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
    char what[48];
    snprintf(what, sizeof what, "%s softmax_stats", yamr_dtype_name(dtype));
    return run_batch(ctx, &c, what);
}

yamr_status yamr_softmax_stats_rows(yamr_context *ctx, yamr_dtype dtype, const void *in,
                                    size_t rows, size_t cols, size_t ld, void *row_max,
                                    void *row_sum)
{
    return softmax_stats(ctx, dtype, in, rows, cols, ld, row_max, row_sum, 0);
}

yamr_status yamr_softmax_stats_rows_async(yamr_context *ctx, yamr_dtype dtype, const void *in,
                                          size_t rows, size_t cols, size_t ld, void *row_max,
                                          void *row_sum)
{
    return softmax_stats(ctx, dtype, in, rows, cols, ld, row_max, row_sum, 1);
}
