/* SPDX-License-Identifier: MIT */
/*
 * Plans: what a call runs, decided once by the host before any work (include/yamr.h, "Plans").
 * The launchers in hip_kernels/ execute a plan; nothing after this file chooses a kernel, a
 * grid or an index width.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "context.h"
#include "topk.h"

const char *yamr_kernel_name(yamr_kernel kernel)
{
    static const char *const names[YAMR_KERNEL_COUNT] = {
        "cpu", "single_block", "lanes_per_row", "block_per_row", "blocks_per_row", "segments"};
    return (unsigned)kernel < YAMR_KERNEL_COUNT ? names[kernel] : "invalid";
}

static const char *op_name(yamr_op op)
{
    static const char *const names[YAMR_OP_COUNT] = {"max", "min", "argmax", "argmin"};
    return names[op];
}

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

/* ---- The variant of a grid-wide call ---- */

yamr_status yamr__resolve_variant(const yamr_context *ctx, yamr_op op, yamr_dtype dtype,
                                  int one_block, yamr_variant *variant)
{
    if (ctx->info.vendor == YAMR_VENDOR_CPU) {
        *variant = YAMR_VARIANT_AUTO; /* the CPU backend has a single algorithm */
        return YAMR_SUCCESS;
    }
    if (ctx->variant == YAMR_VARIANT_AUTO) {
        const char *reason;
        const yamr__variant_info *pick =
            yamr__select_variant(&ctx->info, op, dtype, one_block, &reason);
        if (!pick) return YAMR_ERROR_UNSUPPORTED;
        *variant = pick->id;
        return YAMR_SUCCESS;
    }
    if (!yamr__variant_runs_on(yamr__variant_lookup(ctx->variant), &ctx->info, op, dtype))
        return YAMR_ERROR_UNSUPPORTED;
    *variant = ctx->variant;
    return YAMR_SUCCESS;
}

/* ---- Sizes a call accepts ---- */

/* ---- Grids ---- */

/* The index width of a row of `cols` elements scanned by `lanes` threads: 32 bits where every
 * index, `none` (INT_MAX) and the scan's furthest offset (cols + 64 * lanes, tile_scan.hpp) fit
 * an int. */
static int index_bits_for(size_t cols, size_t lanes)
{
    return 64 * lanes < (size_t)INT_MAX && cols < (size_t)INT_MAX - 64 * lanes ? 32 : 64;
}

/* Blocks a grid-wide call of `cols` elements of esize bytes needs for every thread to take at
 * most `vectors` 16-byte vectors, or one element where the input is not aligned to its element. */
static size_t grid_blocks_for(size_t cols, size_t esize, int aligned, size_t vectors,
                              size_t threads)
{
    const size_t per_block = (aligned ? (16 / esize) * vectors : 1) * threads;
    return (cols + per_block - 1) / per_block;
}

/* The accumulator of a grid-wide call (policy.h). */
static int grid_acc(yamr_call call)
{
    return call == YAMR_CALL_MINMAX ? YAMR__ACC_MINMAX : YAMR__ACC_BEST;
}

/* The GRID row of a grid-wide call on ctx (NULL on the CPU). */
static const yamr__policy *grid_row(const yamr_context *ctx, yamr_call call, yamr_dtype dtype)
{
    const yamr__policy_id id = yamr__policy_find(ctx->family, (int)yamr_dtype_size(dtype),
                                                 grid_acc(call), YAMR__SHAPE_GRID);
    return id == YAMR__POLICY_NONE ? NULL : yamr__policy_row(id);
}

/* Whether a grid-wide call of `cols` elements of esize bytes runs one block: every thread takes
 * at most the row's one-block chunk. */
static int one_block_fits(const yamr__policy *row, size_t cols, size_t esize, int aligned)
{
    return grid_blocks_for(cols, esize, aligned, (size_t)row->vectors_one_block,
                           (size_t)row->threads) == 1;
}

/* Whether a grid-wide call is one for which AUTO prefers the ONE_BLOCK_FIRST row: a max, min,
 * argmax or argmin (one slot) of elements of at most 4 bytes that runs one block. There
 * `atomic` measured faster than `warp_shuffle` on an H100; for min+max and the 8-byte types it
 * did not (docs/variants.md). */
static int one_block_call(const yamr_context *ctx, yamr_call call, yamr_dtype dtype, size_t cols,
                          int aligned)
{
    const size_t esize = yamr_dtype_size(dtype);
    if (call != YAMR_CALL_REDUCE || esize > 4) return 0;
    const yamr__policy *row = grid_row(ctx, call, dtype);
    return row && one_block_fits(row, cols, esize, aligned);
}

/* Blocks for `rows` rows at `per_block` rows per block, the grid-striding shapes' cap. */
static unsigned grid_for(size_t rows, size_t per_block)
{
    const size_t blocks = (rows + per_block - 1) / per_block;
    return (unsigned)(blocks < YAMR__ROWS_MAX_GRID ? blocks : YAMR__ROWS_MAX_GRID);
}

/* A grid-wide call (the row's GRID recipe): the split kernel over one row, in as few rounds of
 * the row's chunk of vectors per thread as the blocks that fit on the device at once (and in the
 * context's workspace) allow, and with as many blocks as give every thread that many whole
 * chunks: no thread ends on a few vectors, one round trip each, while the others wait. A grid of
 * a few blocks of one chunk a thread spreads over more multiprocessors, the row's spread vectors
 * a thread, up to a warp's width of blocks (the last block's first warp merges that many). A
 * call that one chunk of the row's one-block vectors a thread covers (4-byte types: up to 2^14
 * elements) runs one block of such chunks instead: no last-block merge. */
static yamr_status plan_grid(const yamr_context *ctx, const yamr__policy *row, int slots,
                             int aligned, yamr_plan *p, char *err, size_t errlen)
{
    const size_t threads = (size_t)row->threads;
    const size_t most = (size_t)YAMR__GRID_MAX_BLOCKS_PER_UNIT * (size_t)ctx->info.multiprocessors;
    p->index_bits = index_bits_for(p->cols, most * threads);
    const size_t esize = yamr_dtype_size(p->dtype);
    const size_t wanted = grid_blocks_for(p->cols, esize, aligned, (size_t)row->vectors, threads);
    size_t blocks = 1;
    YAMR__PLAN_CHUNK_VECTORS(p) = (uint32_t)row->vectors;
    if (one_block_fits(row, p->cols, esize, aligned)) {
        /* one block: no occupancy to ask (the variant may have no split instance) */
        if (wanted > 1) YAMR__PLAN_CHUNK_VECTORS(p) = (uint32_t)row->vectors_one_block;
    } else {
        int per_unit = 0;
        yamr_status s = yamr__gpu_grid_blocks_per_unit(ctx->gpu, p->dtype, p->variant, slots,
                                                       p->index_bits, &per_unit, err, errlen);
        if (s != YAMR_SUCCESS) return s;
        size_t fit = (size_t)per_unit * (size_t)ctx->info.multiprocessors;
        if (fit > most) fit = most;
        if (fit < 1) fit = 1;
        const size_t chunks = (wanted + fit - 1) / fit; /* per thread; wanted >= 1 */
        blocks = (wanted + chunks - 1) / chunks;
        if (aligned && chunks == 1 && blocks > 1) {
            size_t spread =
                grid_blocks_for(p->cols, esize, aligned, (size_t)row->vectors_spread, threads);
            if (spread > (size_t)ctx->info.warp_size) spread = (size_t)ctx->info.warp_size;
            if (spread > fit) spread = fit;
            if (spread > blocks) blocks = spread;
        }
    }
    p->kernel = YAMR_KERNEL_BLOCKS_PER_ROW;
    p->shape = YAMR_ROWS_BLOCKS_PER_ROW;
    p->blocks_per_row = (int)blocks;
    p->grid_blocks = (unsigned)blocks;
    p->block_threads = row->threads;
    YAMR__PLAN_POLICY(p) = (uint32_t)(row - yamr__policies);
    return YAMR_SUCCESS;
}

/* Whether libyamr holds the split kernel instance of this grid-wide call for the variant (the
 * table's flags, yamr_internal.h): every call for a GRID_WIDE row; a call AUTO gives a
 * ONE_BLOCK_FIRST row (one slot, elements of at most 4 bytes, one block) for such a row. */
static int split_instance_held(const yamr_context *ctx, const yamr__variant_info *v,
                               yamr_call call, yamr_dtype dtype, size_t cols, int aligned)
{
    if (v->flags & YAMR__GRID_WIDE) return 1;
    return (v->flags & YAMR__ONE_BLOCK_FIRST) && one_block_call(ctx, call, dtype, cols, aligned);
}

/* One block of a thread per element (the race lab's kernel): a variant's call that libyamr holds
 * no split instance for, of at most max_block_threads elements. */
static yamr_status plan_single_block(const yamr_context *ctx, yamr_plan *p)
{
    if (p->cols > (size_t)ctx->info.max_block_threads) return YAMR_ERROR_UNSUPPORTED;
    p->kernel = YAMR_KERNEL_SINGLE_BLOCK;
    YAMR__PLAN_POLICY(p) =
        yamr__policy_find(ctx->family, 0, YAMR__ACC_ANY, YAMR__SHAPE_SINGLE_BLOCK);
    p->grid_blocks = 1;
    p->block_threads = yamr__single_block_threads(p->variant, (int)p->cols, ctx->info.warp_size);
    p->index_bits = 32;
    p->vector_loads = 0;
    return YAMR_SUCCESS;
}

/* The row of a batched call's shape on ctx (a row exists for every GPU family and shape:
 * test/test_plan.c). */
static const yamr__policy *batch_row(const yamr_context *ctx, const yamr_plan *p, int shape)
{
    const int acc = p->call == YAMR_CALL_SOFTMAX_STATS ? YAMR__ACC_SOFTMAX : YAMR__ACC_BEST;
    const yamr__policy_id id =
        yamr__policy_find(ctx->family, (int)yamr_dtype_size(p->dtype), acc, shape);
    return yamr__policy_row(id);
}

/* A matrix of rows x cols on a GPU. */
static void plan_rows(const yamr_context *ctx, yamr_plan *p)
{
    const int mp = ctx->info.multiprocessors, w = ctx->info.warp_size;
    p->variant = YAMR_VARIANT_WARP_SHUFFLE;
    p->shape = yamr__rows_shape(p->rows, p->cols, mp, w);
    const yamr__policy *row;
    switch (p->shape) {
    case YAMR_ROWS_WARP_PER_ROW:
        row = batch_row(ctx, p, YAMR__SHAPE_LANES);
        p->kernel = YAMR_KERNEL_LANES_PER_ROW;
        YAMR__PLAN_LANES_PER_ROW(p) =
            p->cols <= (size_t)row->lanes * (size_t)row->count ? (uint32_t)row->lanes : (uint32_t)w;
        p->grid_blocks = grid_for(p->rows, (size_t)(row->threads / (int)YAMR__PLAN_LANES_PER_ROW(p)));
        p->index_bits = 32;
        break;
    case YAMR_ROWS_BLOCKS_PER_ROW:
        row = batch_row(ctx, p, YAMR__SHAPE_SPLIT);
        p->kernel = YAMR_KERNEL_BLOCKS_PER_ROW;
        p->blocks_per_row = yamr__rows_blocks_per_row(p->rows, p->cols, mp);
        p->grid_blocks = (unsigned)(p->rows * (size_t)p->blocks_per_row);
        p->index_bits = 64;
        break;
    default:
        row = batch_row(ctx, p, YAMR__SHAPE_BLOCK);
        p->kernel = YAMR_KERNEL_BLOCK_PER_ROW;
        p->grid_blocks = grid_for(p->rows, 1);
        p->index_bits = index_bits_for(p->cols, (size_t)row->threads);
        break;
    }
    p->block_threads = row->threads;
    YAMR__PLAN_POLICY(p) = (uint32_t)(row - yamr__policies);
}

/* Segments on a GPU: the segment kernel, or the split for few segments. */
static void plan_segments(const yamr_context *ctx, yamr_plan *p)
{
    const int mp = ctx->info.multiprocessors;
    p->shape = yamr__segments_shape(p->rows, mp);
    p->variant = YAMR_VARIANT_WARP_SHUFFLE;
    p->index_bits = 64;
    const yamr__policy *row;
    if (p->shape == YAMR_ROWS_BLOCKS_PER_ROW) {
        row = batch_row(ctx, p, YAMR__SHAPE_SPLIT);
        p->kernel = YAMR_KERNEL_BLOCKS_PER_ROW;
        p->blocks_per_row = yamr__rows_blocks_per_row(p->rows, 0, mp);
        p->grid_blocks = (unsigned)(p->rows * (size_t)p->blocks_per_row);
    } else {
        row = batch_row(ctx, p, YAMR__SHAPE_SEGMENTS);
        p->kernel = YAMR_KERNEL_SEGMENTS;
        YAMR__PLAN_LANES_PER_ROW(p) = (uint32_t)row->lanes;
        p->grid_blocks = grid_for(p->rows, (size_t)(row->threads / row->lanes));
    }
    p->block_threads = row->threads;
    YAMR__PLAN_POLICY(p) = (uint32_t)(row - yamr__policies);
}

yamr_status yamr__make_plan(const yamr_context *ctx, yamr_call call, yamr_op op, yamr_dtype dtype,
                            size_t rows, size_t cols, int aligned, yamr_plan *plan, char *err,
                            size_t errlen)
{
    yamr_plan p;
    memset(&p, 0, sizeof p);
    p.call = call;
    p.op = op;
    p.dtype = dtype;
    p.rows = rows;
    p.cols = cols;
    p.variant = YAMR_VARIANT_AUTO;
    p.kernel = YAMR_KERNEL_CPU;
    p.shape = YAMR_ROWS_WARP_PER_ROW;
    p.blocks_per_row = 1;
    p.index_bits = 64;
    p.vector_loads = ctx->gpu && aligned;
    if (call == YAMR_CALL_REDUCE || call == YAMR_CALL_MINMAX) {
        yamr_status s = yamr__resolve_variant(
            ctx, op, dtype, ctx->gpu && one_block_call(ctx, call, dtype, cols, aligned),
            &p.variant);
        if (s != YAMR_SUCCESS) return s;
        const yamr__policy *row = ctx->gpu ? grid_row(ctx, call, dtype) : NULL;
        if (!ctx->gpu) {
            yamr__cpu_plan(&ctx->cpu, cols, &p);
        } else if (!row) {
            return YAMR_ERROR_UNSUPPORTED; /* no GRID row for the family (test_plan.c: none) */
        } else if (split_instance_held(ctx, yamr__variant_lookup(p.variant), call, dtype, cols,
                                       aligned)) {
            s = plan_grid(ctx, row, call == YAMR_CALL_MINMAX ? 2 : 1, aligned, &p, err, errlen);
            if (s != YAMR_SUCCESS) return s;
        } else {
            s = plan_single_block(ctx, &p);
            if (s != YAMR_SUCCESS) return s;
        }
    } else if (!ctx->gpu) {
        yamr__cpu_plan(&ctx->cpu, rows * cols, &p); /* segments: cols is 0, unused */
    } else if (call == YAMR_CALL_SEGMENTS) {
        plan_segments(ctx, &p);
    } else {
        plan_rows(ctx, &p);
    }
    *plan = p;
    return YAMR_SUCCESS;
}

/* Why a top-k plan: the CPU's split, or the GPU kernel and where its lists live, by the plan's
 * row (TOPK_SELECT or TOPK_LIST). */
static void topk_explain(const yamr_context *ctx, const yamr_plan *p, char *why, size_t cap)
{
    if (p->kernel == YAMR_KERNEL_CPU) {
        yamr__cpu_explain(&ctx->cpu, p, why, cap);
    } else {
        const yamr__policy *row = yamr__policy_row(yamr__plan_policy(p));
        const unsigned slots = YAMR__PLAN_TOPK_SLOTS(p);
        char lists[128];
        if (slots)
            snprintf(lists, sizeof lists, "each warp's own list in registers (%u slots per "
                                          "lane; the row's most, %d, hold k up to %d)",
                     slots, row->topk.slots, row->topk.slots * ctx->info.warp_size);
        else
            snprintf(lists, sizeof lists, "a block's list in shared memory, in rounds%s",
                     YAMR__PLAN_TOPK_FLOOR(p) == YAMR__TOPK_FLOOR_OWN
                         ? ", from a floor of each block's key counts"
                     : YAMR__PLAN_TOPK_FLOOR(p) == YAMR__TOPK_FLOOR_ROW
                         ? ", from a floor of the row's key counts (two counting launches first)"
                         : "");
        if (p->blocks_per_row > 1)
            snprintf(why, cap, "%d blocks per row, merged (%zu rows too few to fill %d "
                               "multiprocessors); %s", p->blocks_per_row, p->rows,
                     ctx->info.multiprocessors, lists);
        else if (p->kernel == YAMR_KERNEL_LANES_PER_ROW && !slots)
            snprintf(why, cap, "%u lanes per row, the row in registers, candidates over the "
                               "k-th of the lanes' maxima placed by rank (k up to %d, at most "
                               "%d elements a lane)",
                     (unsigned)YAMR__PLAN_LANES_PER_ROW(p), row->topk.lane_k, row->count);
        else if (p->kernel == YAMR_KERNEL_LANES_PER_ROW)
            snprintf(why, cap, "a warp per row (rows of at most %d bytes), seeded from %s; %s",
                     row->topk.warp_bytes,
                     YAMR__PLAN_TOPK_FLOOR(p) == YAMR__TOPK_SEED_FIRST
                         ? "its lanes' first loads (one read of the row)"
                         : "the whole row's group maxima (the row read twice)",
                     lists);
        else
            snprintf(why, cap, "a block per row; %s", lists);
    }
}

/* Why ctx chose the plan, from the plan and the device facts, into why[cap] (not on a call's
 * path: only when a person or a program asks). */
static void explain(const yamr_context *ctx, const yamr_plan *p, char *why, size_t cap)
{
    const int mp = ctx->info.multiprocessors, w = ctx->info.warp_size;
    const size_t warp_cols = (size_t)YAMR__ROWS_WARP_MAX_PER_LANE * (size_t)w;
    const yamr__policy *row = yamr__policy_row(yamr__plan_policy(p));
    const int group_cols = row->lanes * row->count;
    const char *unit = p->call == YAMR_CALL_SEGMENTS ? "segment" : "row";
    if (p->call == YAMR_CALL_TOPK) {
        topk_explain(ctx, p, why, cap);
        return;
    }
    switch (p->kernel) {
    case YAMR_KERNEL_CPU: yamr__cpu_explain(&ctx->cpu, p, why, cap); break;
    case YAMR_KERNEL_SINGLE_BLOCK:
        snprintf(why, cap, "%s: one block, a thread per element (libyamr holds no split "
                           "instance of this call for it: yamr.h, \"Variants\")",
                 yamr_variant_name(p->variant));
        break;
    case YAMR_KERNEL_LANES_PER_ROW:
        snprintf(why, cap,
                 "rows of at most %d elements take a group of %d lanes, up to %zu a %d-wide warp",
                 group_cols, row->lanes, warp_cols, w);
        break;
    case YAMR_KERNEL_BLOCKS_PER_ROW:
        if (p->call == YAMR_CALL_REDUCE || p->call == YAMR_CALL_MINMAX) {
            int per_unit = 0;
            char err[64], fit[64] = "one block";
            if (yamr__gpu_grid_blocks_per_unit(ctx->gpu, p->dtype, p->variant,
                                               p->call == YAMR_CALL_MINMAX ? 2 : 1,
                                               p->index_bits, &per_unit, err,
                                               sizeof err) == YAMR_SUCCESS)
                snprintf(fit, sizeof fit, "%d blocks fit per multiprocessor x %d", per_unit, mp);
            const yamr__variant_info *v = yamr__variant_lookup(p->variant);
            snprintf(why, cap, "one row; %s (%s: %s); %s", yamr_variant_name(p->variant),
                     ctx->variant == YAMR_VARIANT_AUTO ? "AUTO's pick" : "set on the context",
                     v ? v->correctness : "", fit);
        } else {
            snprintf(why, cap, "%d blocks per %s: fewer than %d %ss per multiprocessor x %d",
                     p->blocks_per_row, unit, YAMR__ROWS_FEW_PER_UNIT, unit, mp);
        }
        break;
    case YAMR_KERNEL_BLOCK_PER_ROW:
        snprintf(why, cap, "rows longer than %zu; %s", warp_cols,
                 p->rows >= (size_t)YAMR__ROWS_FEW_PER_UNIT * (size_t)mp
                     ? "enough rows to fill the multiprocessors"
                 : p->rows > YAMR__ROWS_SPLIT_MAX_ROWS ? "more rows than the split workspace holds"
                                                       : "rows too short to split");
        break;
    case YAMR_KERNEL_SEGMENTS:
        snprintf(why, cap,
                 "a group of %d lanes per segment of at most %d elements, a warp up to %d, the "
                 "block for longer ones, decided per segment on the device",
                 row->lanes, group_cols, row->warp_count * w);
        break;
    }
}

yamr_status yamr_plan_for(const yamr_context *ctx, yamr_call call, yamr_op op, yamr_dtype dtype,
                          size_t rows, size_t cols, yamr_plan *plan)
{
    /* The call's own checks (checks.h), so that a plan is refused exactly where the call is; the
     * messages go to the thread's yamr_last_error(NULL), as ctx is const. */
    static const char fn[] = "yamr_plan_for";
    if (!ctx) return yamr__fail(YAMR_ERROR_INVALID_VALUE, NULL, 0, "%s: ctx is NULL", fn);
    if (!plan) return yamr__fail(YAMR_ERROR_INVALID_VALUE, NULL, 0, "%s: plan is NULL", fn);
    yamr_status checked = yamr__check_op(fn, op, NULL, 0);
    switch (checked == YAMR_SUCCESS ? (int)call : -1) {
    case -1: break;
    case YAMR_CALL_REDUCE:
    case YAMR_CALL_MINMAX:
        checked = rows != 1 ? yamr__fail(YAMR_ERROR_INVALID_VALUE, NULL, 0,
                                         "%s: rows (%zu) is not 1 for a reduce or minmax", fn, rows)
                            : yamr__check_reduce(fn, op, dtype, cols, NULL, 0);
        break;
    case YAMR_CALL_ROWS:
        checked = yamr__check_rows(fn, op, dtype, rows, cols, cols, NULL, 0);
        break;
    case YAMR_CALL_SEGMENTS: checked = yamr__check_segments(fn, op, dtype, rows, NULL, 0); break;
    case YAMR_CALL_TOPK: /* needs k */
        checked = yamr__fail(YAMR_ERROR_INVALID_VALUE, NULL, 0,
                             "%s: a top-k plan needs k: use yamr_plan_for_topk()", fn);
        break;
    case YAMR_CALL_SOFTMAX_STATS:
        checked = yamr__check_softmax(fn, dtype, rows, cols, cols, NULL, 0);
        break;
    default:
        checked = yamr__fail(YAMR_ERROR_INVALID_VALUE, NULL, 0,
                             "%s: call (%d) is not a yamr_call (0 to %d)", fn, (int)call,
                             YAMR_CALL_COUNT - 1);
        break;
    }
    if (checked != YAMR_SUCCESS) return checked;
    const yamr_op planned = call == YAMR_CALL_MINMAX          ? YAMR_OP_ARGMAX
                            : call == YAMR_CALL_SOFTMAX_STATS ? YAMR_OP_MAX
                                                              : op;
    char err[256]; /* a runtime message is not kept: yamr_plan_for() leaves the context alone */
    yamr_status s = yamr__make_plan(ctx, call, planned, dtype, rows, cols, 1, plan, err, sizeof err);
    return s;
}

yamr_status yamr_last_plan(const yamr_context *ctx, yamr_plan *plan)
{
    static const char fn[] = "yamr_last_plan";
    if (!ctx) return yamr__fail(YAMR_ERROR_INVALID_VALUE, NULL, 0, "%s: ctx is NULL", fn);
    if (!plan) return yamr__fail(YAMR_ERROR_INVALID_VALUE, NULL, 0, "%s: plan is NULL", fn);
    if (!ctx->has_plan)
        return yamr__fail(YAMR_ERROR_INVALID_VALUE, NULL, 0, "%s: ctx has no call yet", fn);
    *plan = ctx->last_plan;
    return YAMR_SUCCESS;
}

yamr_status yamr_plan_describe(const yamr_context *ctx, const yamr_plan *plan, char *buf,
                               size_t len)
{
    if (!ctx || !plan || !buf || len == 0 || (unsigned)plan->call >= YAMR_CALL_COUNT ||
        (unsigned)plan->kernel >= YAMR_KERNEL_COUNT || (unsigned)plan->dtype >= YAMR_DTYPE_COUNT ||
        (unsigned)plan->op >= YAMR_OP_COUNT)
        return YAMR_ERROR_INVALID_VALUE;
    yamr__describe_plan(ctx, plan, buf, len);
    return YAMR_SUCCESS;
}

void yamr__describe_plan(const yamr_context *ctx, const yamr_plan *p, char *out, size_t cap)
{
    char why[320];
    explain(ctx, p, why, sizeof why);
    static const char *const calls[YAMR_CALL_COUNT] = {"reduce", "minmax", "rows", "segments",
                                                       "softmax_stats", "topk"};
    const char *what = p->call == YAMR_CALL_SOFTMAX_STATS ? "softmax_stats"
                       : p->call == YAMR_CALL_MINMAX       ? "minmax"
                                                           : op_name(p->op);
    char size[64];
    if (p->call == YAMR_CALL_SEGMENTS)
        snprintf(size, sizeof size, "%zu segments", p->rows);
    else if (p->call == YAMR_CALL_ROWS || p->call == YAMR_CALL_SOFTMAX_STATS)
        snprintf(size, sizeof size, "%zu x %zu", p->rows, p->cols);
    else if (p->call == YAMR_CALL_TOPK)
        snprintf(size, sizeof size, "%zu x %zu, k = %zu", p->rows, p->cols, p->k);
    else
        snprintf(size, sizeof size, "n = %zu", p->cols);
    char chunks[40] = "";
    if (p->call != YAMR_CALL_TOPK && YAMR__PLAN_CHUNK_VECTORS(p))
        snprintf(chunks, sizeof chunks, ", chunks of %d vectors", (int)YAMR__PLAN_CHUNK_VECTORS(p));
    /* the policy row by name, and the family's basis: measured, or derived from which facts */
    char policy[96] = "";
    if (yamr__plan_policy(p))
        snprintf(policy, sizeof policy, "; policy %s (%s)",
                 yamr__policy_row(yamr__plan_policy(p))->name, yamr__family_name(ctx->family));
    if (p->kernel == YAMR_KERNEL_CPU)
        snprintf(out, cap, "%s %s %s, %s: %s%s", calls[p->call], yamr_dtype_name(p->dtype), what,
                 size, why, policy);
    else
        snprintf(out, cap, "%s %s %s, %s: %s, %u x %d threads, %d-bit indices%s; %s%s",
                 calls[p->call], yamr_dtype_name(p->dtype), what, size,
                 yamr_kernel_name(p->kernel), p->grid_blocks, p->block_threads, p->index_bits,
                 chunks, why, policy);
}
