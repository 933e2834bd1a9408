/* The batched launchers: rows, segments and softmax statistics, as the plan says (src/plan.c). */
#include "gpu.h"
#include "rows_reduce.hpp"

/* A matrix: the plan's kernel, lanes per row and index width. */
template <typename Acc, int WarpSize>
static void launch_plan(yamr__gpu *gpu, const yamr__gpu_batch *c, yamr__matrix_layout layout,
                        const yamr__batch_args &args)
{
    const typename Acc::storage *in = (const typename Acc::storage *)c->in;
    const yamr_plan *p = c->plan;
    const long long rows = (long long)c->rows;
    const hipStream_t st = gpu->stream;
    switch (p->kernel) {
    case YAMR_KERNEL_BLOCKS_PER_ROW:
        yamr_rows_split_kernel<Acc, WarpSize>
            <<<p->grid_blocks, p->block_threads, 0, st>>>(in, rows, layout, args);
        break;
    case YAMR_KERNEL_LANES_PER_ROW:
        if (p->lanes_per_row == YAMR__ROWS_GROUP_LANES)
            yamr_rows_lanes_kernel<Acc, WarpSize, YAMR__ROWS_GROUP_LANES, YAMR__ROWS_GROUP_COUNT>
                <<<p->grid_blocks, p->block_threads, 0, st>>>(in, rows, layout, args);
        else
            yamr_rows_lanes_kernel<Acc, WarpSize, WarpSize, YAMR__ROWS_WARP_MAX_PER_LANE>
                <<<p->grid_blocks, p->block_threads, 0, st>>>(in, rows, layout, args);
        break;
    default: /* YAMR_KERNEL_BLOCK_PER_ROW */
        if (p->index_bits == 32)
            yamr_rows_block_kernel<typename Acc::template with_index<int>, WarpSize>
                <<<p->grid_blocks, p->block_threads, 0, st>>>(in, rows, layout, args);
        else
            yamr_rows_block_kernel<Acc, WarpSize>
                <<<p->grid_blocks, p->block_threads, 0, st>>>(in, rows, layout, args);
        break;
    }
}

/* Segments: the plan's segment kernel, or the split for few segments. */
template <typename Acc, int WarpSize>
static void launch_plan(yamr__gpu *gpu, const yamr__gpu_batch *c, yamr__segment_layout layout,
                        const yamr__batch_args &args)
{
    const typename Acc::storage *in = (const typename Acc::storage *)c->in;
    const yamr_plan *p = c->plan;
    const long long segments = (long long)c->rows;
    if (p->kernel == YAMR_KERNEL_BLOCKS_PER_ROW)
        yamr_rows_split_kernel<Acc, WarpSize>
            <<<p->grid_blocks, p->block_threads, 0, gpu->stream>>>(in, segments, layout, args);
    else
        yamr_segments_kernel<Acc, WarpSize>
            <<<p->grid_blocks, p->block_threads, 0, gpu->stream>>>(in, segments, layout, args);
}

template <typename Acc, typename Layout>
static void launch_width(yamr__gpu *gpu, const yamr__gpu_batch *c, Layout layout,
                         const yamr__batch_args &args)
{
    yamr__with_warp_width(gpu->warp_size, [&](auto width) {
        launch_plan<Acc, decltype(width)::value>(gpu, c, layout, args);
    });
}

static yamr__batch_args args_of(const yamr__gpu *gpu, const yamr__gpu_batch *c, size_t elem)
{
    yamr__batch_args a;
    a.is_min = c->is_min;
    a.nan_ignore = c->nan_ignore;
    a.vectorize = ((uintptr_t)c->in % elem) == 0;
    a.blocks_per_row = c->plan->blocks_per_row;
    a.out_a = c->values;
    a.out_b = c->second;
    a.ws = gpu->rows_workspace;
    return a;
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
    const yamr__batch_args args = args_of(gpu, c, yamr_dtype_size(c->dtype));
    const yamr__matrix_layout layout = {(long long)c->ld, (long long)c->cols};
#define YAMR_LAUNCH_ROWS(D) launch_width<yamr__rows_best<D>>(gpu, c, layout, args)
    YAMR_DISPATCH_DTYPE(c->dtype, YAMR_LAUNCH_ROWS)
#undef YAMR_LAUNCH_ROWS
    return finish(gpu, c, err, errlen);
}

extern "C" yamr_status yamr__gpu_segments(yamr__gpu *gpu, const yamr__gpu_batch *c, char *err,
                                          size_t errlen)
{
    const yamr__device_scope on_device(gpu->device);
    YAMR_HIP_TRY(on_device.status(), err, errlen);
    const yamr__batch_args args = args_of(gpu, c, yamr_dtype_size(c->dtype));
    const yamr__segment_layout layout = {(const long long *)c->offsets};
#define YAMR_LAUNCH_SEGMENTS(D) launch_width<yamr__rows_best<D>>(gpu, c, layout, args)
    YAMR_DISPATCH_DTYPE(c->dtype, YAMR_LAUNCH_SEGMENTS)
#undef YAMR_LAUNCH_SEGMENTS
    return finish(gpu, c, err, errlen);
}

extern "C" yamr_status yamr__gpu_softmax_stats(yamr__gpu *gpu, const yamr__gpu_batch *c, char *err,
                                               size_t errlen)
{
    const yamr__device_scope on_device(gpu->device);
    YAMR_HIP_TRY(on_device.status(), err, errlen);
    const yamr__batch_args args = args_of(gpu, c, yamr_dtype_size(c->dtype));
    const yamr__matrix_layout layout = {(long long)c->ld, (long long)c->cols};
    if (c->dtype == YAMR_DTYPE_F64)
        launch_width<yamr__softmax_acc<double>>(gpu, c, layout, args);
    else
        launch_width<yamr__softmax_acc<float>>(gpu, c, layout, args); /* the host allows F32, F64 */
    return finish(gpu, c, err, errlen);
}
