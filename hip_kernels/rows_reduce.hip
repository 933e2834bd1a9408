/* SPDX-License-Identifier: MIT */
/* The batched launchers: rows, segments and softmax statistics, as the plan says (src/plan.c). */
#include "gpu.h"
#include "rows_reduce.hpp"

/* The split kernel of a batched call (a grid-wide call's is grid_reduce.hip's). */
template <typename Acc, int WarpSize, typename Layout>
static void launch_split(yamr__gpu *gpu, const yamr_plan *p, const typename Acc::storage *in,
                         Layout layout, const yamr__batch_args &args,
                         const typename Acc::output &out)
{
    yamr_split_kernel<Acc, YAMR_VARIANT_WARP_SHUFFLE, WarpSize, YAMR__ROWS_BLOCK_UNROLL, Layout>
        <<<p->grid_blocks, p->block_threads, 0, gpu->stream>>>(in, layout, args, out);
}

/* A matrix: the plan's kernel, lanes per row and index width. */
template <typename Acc, int WarpSize>
static void launch_plan(yamr__gpu *gpu, const yamr__gpu_batch *c, yamr__matrix_layout layout,
                        const yamr__batch_args &args, const typename Acc::output &out)
{
    const typename Acc::storage *in = (const typename Acc::storage *)c->in;
    const yamr_plan *p = c->plan;
    const long long rows = (long long)c->rows;
    const hipStream_t st = gpu->stream;
    switch (p->kernel) {
    case YAMR_KERNEL_BLOCKS_PER_ROW:
        launch_split<Acc, WarpSize>(gpu, p, in, layout, args, out);
        break;
    case YAMR_KERNEL_LANES_PER_ROW:
        if (YAMR__PLAN_LANES_PER_ROW(p) == YAMR__ROWS_GROUP_LANES)
            yamr_rows_lanes_kernel<Acc, WarpSize, YAMR__ROWS_GROUP_LANES, YAMR__ROWS_GROUP_COUNT>
                <<<p->grid_blocks, p->block_threads, 0, st>>>(in, rows, layout, args, out);
        else
            yamr_rows_lanes_kernel<Acc, WarpSize, WarpSize, YAMR__ROWS_WARP_MAX_PER_LANE>
                <<<p->grid_blocks, p->block_threads, 0, st>>>(in, rows, layout, args, out);
        break;
    default: /* YAMR_KERNEL_BLOCK_PER_ROW */
        if (p->index_bits == 32)
            yamr_rows_block_kernel<typename Acc::template with_index<int>, WarpSize>
                <<<p->grid_blocks, p->block_threads, 0, st>>>(in, rows, layout, args, out);
        else
            yamr_rows_block_kernel<Acc, WarpSize>
                <<<p->grid_blocks, p->block_threads, 0, st>>>(in, rows, layout, args, out);
        break;
    }
}

/* Segments: the plan's segment kernel, or the split for few segments. */
template <typename Acc, int WarpSize>
static void launch_plan(yamr__gpu *gpu, const yamr__gpu_batch *c, yamr__segment_layout layout,
                        const yamr__batch_args &args, const typename Acc::output &out)
{
    const typename Acc::storage *in = (const typename Acc::storage *)c->in;
    const yamr_plan *p = c->plan;
    if (p->kernel == YAMR_KERNEL_BLOCKS_PER_ROW)
        launch_split<Acc, WarpSize>(gpu, p, in, layout, args, out);
    else
        yamr_segments_kernel<Acc, WarpSize><<<p->grid_blocks, p->block_threads, 0, gpu->stream>>>(
            in, (long long)c->rows, layout, args, out);
}

template <typename Acc, typename Layout>
static void launch_width(yamr__gpu *gpu, const yamr__gpu_batch *c, Layout layout,
                         const yamr__batch_args &args, const typename Acc::output &out)
{
    yamr__with_warp_width(gpu->warp_size, [&](auto width) {
        launch_plan<Acc, decltype(width)::value>(gpu, c, layout, args, out);
    });
}

static yamr__batch_args args_of(const yamr__gpu *gpu, const yamr__gpu_batch *c)
{
    return yamr__args_of(gpu, c->plan, c->is_min, c->nan_ignore);
}

/* After the launch: the launch's error and, for synchronous calls, the stream's. */
static yamr_status finish(yamr__gpu *gpu, const yamr__gpu_batch *c, char *err, size_t errlen)
{
    YAMR_HIP_TRY(hipGetLastError(), err, errlen);
    if (c->synchronous) YAMR_HIP_TRY(hipStreamSynchronize(gpu->stream), err, errlen);
    return YAMR_SUCCESS;
}

extern "C" yamr_status yamr__gpu_rows(yamr__gpu *gpu, const yamr__gpu_batch *c, char *err,
                                      size_t errlen)
{
    const yamr__device_scope on_device(gpu->device);
    YAMR_HIP_TRY(on_device.status(), err, errlen);
    const yamr__batch_args args = args_of(gpu, c);
    const yamr__matrix_layout layout = {(long long)c->ld, (long long)c->cols};
    const yamr__best_output out = {c->values, (long long *)c->second, NULL};
#define YAMR_LAUNCH_ROWS(D) launch_width<yamr__best_acc<D>>(gpu, c, layout, args, out)
    YAMR_DISPATCH_DTYPE(c->dtype, YAMR_LAUNCH_ROWS)
#undef YAMR_LAUNCH_ROWS
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
#define YAMR_LAUNCH_SEGMENTS(D) launch_width<yamr__best_acc<D>>(gpu, c, layout, args, out)
    YAMR_DISPATCH_DTYPE(c->dtype, YAMR_LAUNCH_SEGMENTS)
#undef YAMR_LAUNCH_SEGMENTS
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
    if (c->dtype == YAMR_DTYPE_F64)
        launch_width<yamr__softmax_acc<double>>(gpu, c, layout, args, {out.row_max, out.row_sum});
    else /* the host allows F32 and F64 only */
        launch_width<yamr__softmax_acc<float>>(gpu, c, layout, args, out);
    return finish(gpu, c, err, errlen);
}
