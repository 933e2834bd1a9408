/* SPDX-License-Identifier: MIT */
/* The batched launchers: rows, segments and softmax statistics, as the plan says (src/plan.c). */
#include "completion.hpp"
#include "gpu.h"
#include "rows_reduce.hpp"

/* The split kernel of a batched call by SPLIT row P (a grid-wide call's is grid_reduce.hip's). */
template <typename Acc, int P, typename Layout>
static void launch_split(yamr__gpu *gpu, const yamr_plan *p, const typename Acc::storage *in,
                         Layout layout, const yamr__batch_args &args,
                         const typename Acc::output &out)
{
    constexpr yamr__policy row = yamr__policy_rows[P];
    yamr_split_kernel<Acc, row.block, yamr__policy_warp_width(P), row.vectors, Layout,
                      row.min_blocks_wide><<<p->grid_blocks, p->block_threads, 0, gpu->stream>>>(
        in, layout, args, out);
}

/* A matrix by row P: SPLIT, LANES (its group, or the warp, as the plan's lanes per row say) or
 * BLOCK (the plan's index width). */
template <typename Acc, int P>
static void launch_plan(yamr__gpu *gpu, const yamr__gpu_batch *c, yamr__matrix_layout layout,
                        const yamr__batch_args &args, const typename Acc::output &out)
{
    constexpr yamr__policy row = yamr__policy_rows[P];
    constexpr int W = yamr__policy_warp_width(P);
    const typename Acc::storage *in = (const typename Acc::storage *)c->in;
    const yamr_plan *p = c->plan;
    const long long rows = (long long)c->rows;
    const hipStream_t st = gpu->stream;
    if constexpr (row.shape == YAMR__SHAPE_SPLIT) {
        launch_split<Acc, P>(gpu, p, in, layout, args, out);
    } else if constexpr (row.shape == YAMR__SHAPE_LANES) {
        if (YAMR__PLAN_LANES_PER_ROW(p) == (uint32_t)row.lanes)
            yamr_rows_lanes_kernel<Acc, W, row.lanes, row.count, row.min_blocks>
                <<<p->grid_blocks, p->block_threads, 0, st>>>(in, rows, layout, args, out);
        else
            yamr_rows_lanes_kernel<Acc, W, W, row.warp_count, row.min_blocks>
                <<<p->grid_blocks, p->block_threads, 0, st>>>(in, rows, layout, args, out);
    } else if constexpr (row.shape == YAMR__SHAPE_BLOCK) {
        if (p->index_bits == 32)
            yamr_rows_block_kernel<typename Acc::template with_index<int>, W, row.vectors,
                                   row.min_blocks>
                <<<p->grid_blocks, p->block_threads, 0, st>>>(in, rows, layout, args, out);
        else
            yamr_rows_block_kernel<Acc, W, row.vectors, row.min_blocks_wide>
                <<<p->grid_blocks, p->block_threads, 0, st>>>(in, rows, layout, args, out);
    }
}

/* Segments by row P: SEGMENTS, or SPLIT for few segments. */
template <typename Acc, int P>
static void launch_plan(yamr__gpu *gpu, const yamr__gpu_batch *c, yamr__segment_layout layout,
                        const yamr__batch_args &args, const typename Acc::output &out)
{
    constexpr yamr__policy row = yamr__policy_rows[P];
    const typename Acc::storage *in = (const typename Acc::storage *)c->in;
    const yamr_plan *p = c->plan;
    if constexpr (row.shape == YAMR__SHAPE_SPLIT)
        launch_split<Acc, P>(gpu, p, in, layout, args, out);
    else if constexpr (row.shape == YAMR__SHAPE_SEGMENTS)
        /* a group's elements, not a lane's: test/amd/check_isa.py tells the warp width by the
         * one 32 or 64 among a kernel's template arguments */
        yamr_segments_kernel<Acc, yamr__policy_warp_width(P), row.lanes, row.lanes * row.count,
                             row.warp_count, row.vectors, row.min_blocks>
            <<<p->grid_blocks, p->block_threads, 0, gpu->stream>>>(in, (long long)c->rows,
                                                                   layout, args, out);
}

/* The plan's row, for the rows this build makes that serve Acc; false (nothing launched) for
 * another. */
template <typename Acc, typename Layout>
static bool launch_policy(yamr__gpu *gpu, const yamr__gpu_batch *c, Layout layout,
                          const yamr__batch_args &args, const typename Acc::output &out)
{
    bool found = false;
    yamr__with_policy((int)YAMR__PLAN_POLICY(c->plan), [&](auto row_id) {
        constexpr int P = decltype(row_id)::value;
        if constexpr (yamr__policy_serves_acc<P, Acc>()) {
            launch_plan<Acc, P>(gpu, c, layout, args, out);
            found = true;
        }
    });
    return found;
}

/* Whether launch_policy() has row `policy`'s kernel for dtype's accumulator `acc` (best or
 * softmax statistics): yamr__gpu_policy_held (grid_reduce.hip). */
template <typename Acc>
static bool batch_held(int policy)
{
    bool found = false;
    yamr__with_policy(policy, [&](auto row_id) {
        found = yamr__policy_serves_acc<decltype(row_id)::value, Acc>();
    });
    return found;
}

bool yamr__gpu_batch_policy_held(int policy, yamr_dtype dtype, int acc)
{
    if (acc == YAMR__ACC_SOFTMAX)
        return dtype == YAMR_DTYPE_F64   ? batch_held<yamr__softmax_acc<double>>(policy)
               : dtype == YAMR_DTYPE_F32 ? batch_held<yamr__softmax_acc<float>>(policy)
                                         : false;
    if (acc != YAMR__ACC_BEST) return false;
    bool found = false;
#define YAMR_HELD_DTYPE(D) found = batch_held<yamr__best_acc<D>>(policy)
    YAMR_DISPATCH_DTYPE(dtype, YAMR_HELD_DTYPE)
#undef YAMR_HELD_DTYPE
    return found;
}

static yamr__batch_args args_of(const yamr__gpu *gpu, const yamr__gpu_batch *c)
{
    return yamr__args_of(gpu, c->plan, c->is_min, c->nan_ignore);
}

/* After the launch: the launch's error and the row's completion (STREAM: for synchronous calls,
 * the stream's). */
static yamr_status finish(yamr__gpu *gpu, const yamr__gpu_batch *c, char *err, size_t errlen)
{
    return yamr__complete(gpu, yamr__completion_of(c->plan, c->synchronous != 0, 1), NULL, err,
                          errlen);
}

extern "C" yamr_status yamr__gpu_rows(yamr__gpu *gpu, const yamr__gpu_batch *c, char *err,
                                      size_t errlen)
{
    const yamr__device_scope on_device(gpu->device);
    YAMR_HIP_TRY(on_device.status(), err, errlen);
    const yamr__batch_args args = args_of(gpu, c);
    const yamr__matrix_layout layout = {(long long)c->ld, (long long)c->cols};
    const yamr__best_output out = {c->values, (long long *)c->second, NULL};
    bool found = false;
#define YAMR_LAUNCH_ROWS(D) found = launch_policy<yamr__best_acc<D>>(gpu, c, layout, args, out)
    YAMR_DISPATCH_DTYPE(c->dtype, YAMR_LAUNCH_ROWS)
#undef YAMR_LAUNCH_ROWS
    if (!found) return YAMR_ERROR_UNSUPPORTED;
    return finish(gpu, c, err, errlen);
}

extern "C" yamr_status yamr__gpu_segments(yamr__gpu *gpu, const yamr__gpu_batch *c, char *err,
                                          size_t errlen)
{
    const yamr__device_scope on_device(gpu->device);
    YAMR_HIP_TRY(on_device.status(), err, errlen);
    const yamr__batch_args args = args_of(gpu, c);
    const yamr__segment_layout layout = {(const long long *)c->offsets};
    const yamr__best_output out = {c->values, (long long *)c->second, NULL};
    bool found = false;
#define YAMR_LAUNCH_SEGMENTS(D) found = launch_policy<yamr__best_acc<D>>(gpu, c, layout, args, out)
    YAMR_DISPATCH_DTYPE(c->dtype, YAMR_LAUNCH_SEGMENTS)
#undef YAMR_LAUNCH_SEGMENTS
    if (!found) return YAMR_ERROR_UNSUPPORTED;
    return finish(gpu, c, err, errlen);
}

extern "C" yamr_status yamr__gpu_softmax_stats(yamr__gpu *gpu, const yamr__gpu_batch *c, char *err,
                                               size_t errlen)
{
    const yamr__device_scope on_device(gpu->device);
    YAMR_HIP_TRY(on_device.status(), err, errlen);
    const yamr__batch_args args = args_of(gpu, c);
    const yamr__matrix_layout layout = {(long long)c->ld, (long long)c->cols};
    const typename yamr__softmax_acc<float>::output out = {c->values, c->second};
    const bool found =
        c->dtype == YAMR_DTYPE_F64
            ? launch_policy<yamr__softmax_acc<double>>(gpu, c, layout, args,
                                                      {out.row_max, out.row_sum})
            : launch_policy<yamr__softmax_acc<float>>(gpu, c, layout, args, out); /* F32 */
    if (!found) return YAMR_ERROR_UNSUPPORTED;
    return finish(gpu, c, err, errlen);
}
