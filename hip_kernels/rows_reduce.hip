/* The batched launchers: rows, segments and softmax statistics, in the shape the host chose. */
#include <limits.h>

#include "gpu.h"
#include "rows_reduce.hpp"

/* Grid cap of the grid-striding shapes (warp and block per row). */
#define YAMR_ROWS_MAX_GRID (1ll << 20)

static unsigned grid_for(long long rows, long long per_block)
{
    const long long blocks = (rows + per_block - 1) / per_block;
    return (unsigned)(blocks < YAMR_ROWS_MAX_GRID ? blocks : YAMR_ROWS_MAX_GRID);
}

/* A matrix: the host's shape, except that the warp shape takes only rows it can hold. */
template <typename Acc, int WarpSize>
static void launch_shape(yamr__gpu *gpu, const yamr__gpu_batch *c, yamr_matrix_layout layout,
                         const yamr_batch_args &args)
{
    const typename Acc::storage *in = (const typename Acc::storage *)c->in;
    const long long rows = (long long)c->rows;
    constexpr long long group_max = YAMR_ROWS_GROUP_LANES * YAMR_ROWS_GROUP_COUNT;
    constexpr long long warp_max = (long long)YAMR__ROWS_WARP_MAX_PER_LANE * WarpSize;
    const hipStream_t st = gpu->stream;
    if (c->shape == YAMR_ROWS_BLOCKS_PER_ROW) { /* the host keeps it within the workspace */
        yamr_rows_split_kernel<Acc, WarpSize><<<(unsigned)(rows * args.blocks_per_row),
                                                YAMR__ROWS_THREADS, 0, st>>>(in, rows, layout,
                                                                             args);
    } else if (c->shape == YAMR_ROWS_WARP_PER_ROW && layout.cols <= group_max) {
        yamr_rows_lanes_kernel<Acc, WarpSize, YAMR_ROWS_GROUP_LANES, YAMR_ROWS_GROUP_COUNT>
            <<<grid_for(rows, YAMR__ROWS_THREADS / YAMR_ROWS_GROUP_LANES), YAMR__ROWS_THREADS, 0,
               st>>>(in, rows, layout, args);
    } else if (c->shape == YAMR_ROWS_WARP_PER_ROW && layout.cols <= warp_max) {
        yamr_rows_lanes_kernel<Acc, WarpSize, WarpSize, YAMR__ROWS_WARP_MAX_PER_LANE>
            <<<grid_for(rows, YAMR__ROWS_THREADS / WarpSize), YAMR__ROWS_THREADS, 0, st>>>(
                in, rows, layout, args);
    } else if (layout.cols < INT_MAX) { /* indices fit an int, `none` excepted */
        yamr_rows_block_kernel<typename Acc::template with_index<int>, WarpSize>
            <<<grid_for(rows, 1), YAMR__ROWS_THREADS, 0, st>>>(in, rows, layout, args);
    } else {
        yamr_rows_block_kernel<Acc, WarpSize>
            <<<grid_for(rows, 1), YAMR__ROWS_THREADS, 0, st>>>(in, rows, layout, args);
    }
}

/* Segments: the segment kernel, or the split for few segments. */
template <typename Acc, int WarpSize>
static void launch_shape(yamr__gpu *gpu, const yamr__gpu_batch *c, yamr_segment_layout layout,
                         const yamr_batch_args &args)
{
    const typename Acc::storage *in = (const typename Acc::storage *)c->in;
    const long long segments = (long long)c->rows;
    if (c->shape == YAMR_ROWS_BLOCKS_PER_ROW)
        yamr_rows_split_kernel<Acc, WarpSize>
            <<<(unsigned)(segments * args.blocks_per_row), YAMR__ROWS_THREADS, 0, gpu->stream>>>(
                in, segments, layout, args);
    else
        yamr_segments_kernel<Acc, WarpSize>
            <<<grid_for(segments, yamr_segments_per_block<typename Acc::storage>()),
               YAMR__ROWS_THREADS, 0, gpu->stream>>>(in, segments, layout, args);
}

template <typename Acc, typename Layout>
static void launch_width(yamr__gpu *gpu, const yamr__gpu_batch *c, Layout layout,
                         const yamr_batch_args &args)
{
    if (gpu->warp_size == 64)
        launch_shape<Acc, 64>(gpu, c, layout, args);
    else
        launch_shape<Acc, 32>(gpu, c, layout, args);
}

static yamr_batch_args args_of(const yamr__gpu *gpu, const yamr__gpu_batch *c, size_t elem)
{
    yamr_batch_args a;
    a.is_min = c->is_min;
    a.nan_ignore = c->nan_ignore;
    a.vectorize = ((uintptr_t)c->in % elem) == 0;
    a.blocks_per_row = c->shape == YAMR_ROWS_BLOCKS_PER_ROW ? c->blocks_per_row : 1;
    a.out_a = c->values;
    a.out_b = c->second;
    a.ws = gpu->rows_workspace;
    return a;
}

/* On the context's device; after the launch, the launch's error and for synchronous calls the
 * stream's. */
static yamr_status begin(yamr__gpu *gpu, char *err, size_t errlen)
{
    int current = -1;
    YAMR_HIP_TRY(hipGetDevice(&current));
    if (current != gpu->device) YAMR_HIP_TRY(hipSetDevice(gpu->device));
    return YAMR_SUCCESS;
}

static yamr_status finish(yamr__gpu *gpu, const yamr__gpu_batch *c, char *err, size_t errlen)
{
    YAMR_HIP_TRY(hipGetLastError());
    if (c->synchronous) YAMR_HIP_TRY(hipStreamSynchronize(gpu->stream));
    return YAMR_SUCCESS;
}

extern "C" yamr_status yamr__gpu_rows(yamr__gpu *gpu, const yamr__gpu_batch *c, char *err,
                                      size_t errlen)
{
    yamr_status s = begin(gpu, err, errlen);
    if (s != YAMR_SUCCESS) return s;
    const yamr_batch_args args = args_of(gpu, c, yamr_dtype_size(c->dtype));
    const yamr_matrix_layout layout = {(long long)c->ld, (long long)c->cols};
#define YAMR_LAUNCH_ROWS(D) launch_width<yamr_rows_best<D>>(gpu, c, layout, args)
    YAMR_DISPATCH_DTYPE(c->dtype, YAMR_LAUNCH_ROWS)
#undef YAMR_LAUNCH_ROWS
    return finish(gpu, c, err, errlen);
}

extern "C" yamr_status yamr__gpu_segments(yamr__gpu *gpu, const yamr__gpu_batch *c, char *err,
                                          size_t errlen)
{
    yamr_status s = begin(gpu, err, errlen);
    if (s != YAMR_SUCCESS) return s;
    const yamr_batch_args args = args_of(gpu, c, yamr_dtype_size(c->dtype));
    const yamr_segment_layout layout = {(const long long *)c->offsets};
#define YAMR_LAUNCH_SEGMENTS(D) launch_width<yamr_rows_best<D>>(gpu, c, layout, args)
    YAMR_DISPATCH_DTYPE(c->dtype, YAMR_LAUNCH_SEGMENTS)
#undef YAMR_LAUNCH_SEGMENTS
    return finish(gpu, c, err, errlen);
}

extern "C" yamr_status yamr__gpu_softmax_stats(yamr__gpu *gpu, const yamr__gpu_batch *c, char *err,
                                               size_t errlen)
{
    yamr_status s = begin(gpu, err, errlen);
    if (s != YAMR_SUCCESS) return s;
    const yamr_batch_args args = args_of(gpu, c, yamr_dtype_size(c->dtype));
    const yamr_matrix_layout layout = {(long long)c->ld, (long long)c->cols};
    if (c->dtype == YAMR_DTYPE_F64)
        launch_width<yamr_softmax_acc<double>>(gpu, c, layout, args);
    else
        launch_width<yamr_softmax_acc<float>>(gpu, c, layout, args); /* the host allows F32, F64 */
    return finish(gpu, c, err, errlen);
}
