/* The library's launcher: the grid kernel for every variant, the seed kernel for `racy`. */
#include "gpu.h"
#include "grid_reduce.hpp"

template <yamr_dtype Dtype, yamr_variant Variant, int WarpSize, int Slots>
static yamr_status launch_grid(yamr__gpu *gpu, const yamr__gpu_call *call, yamr_grid_out out,
                               char *err, size_t errlen)
{
    typedef typename yamr_dtype_traits<Dtype>::storage Storage;
    const auto kernel = yamr_grid_argmax_kernel<Dtype, Variant, WarpSize, Slots>;
    /* Blocks that fit on the device at once, asked once per kernel instance. */
    static int blocks_per_unit = 0;
    if (!blocks_per_unit)
        YAMR_HIP_TRY(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_unit, kernel,
                                                                  YAMR_GRID_THREADS, 0));
    const int aligned = ((uintptr_t)call->in % 16) == 0;
    const long long per_thread =
        aligned ? (long long)(16 / sizeof(Storage)) * yamr_grid_unroll<Storage>::vectors : 1;
    const long long wanted = ((long long)call->n + per_thread * YAMR_GRID_THREADS - 1) /
                             (per_thread * YAMR_GRID_THREADS);
    long long blocks = (long long)blocks_per_unit * gpu->multiprocessors;
    if (blocks > gpu->workspace.max_blocks) blocks = gpu->workspace.max_blocks;
    if (blocks > wanted) blocks = wanted;
    if (blocks < 1) blocks = 1;
    kernel<<<(unsigned)blocks, YAMR_GRID_THREADS, 0, gpu->stream>>>(
        (const Storage *)call->in, (long long)call->n, call->is_min, call->nan_ignore, aligned,
        gpu->workspace, out);
    return YAMR_SUCCESS;
}

template <yamr_dtype Dtype, int WarpSize, int Slots>
static yamr_status launch_variant(yamr__gpu *gpu, const yamr__gpu_call *call, yamr_grid_out out,
                                  char *err, size_t errlen)
{
    switch (call->variant) {
    case YAMR_VARIANT_RACY_VOLATILE:
        return launch_grid<Dtype, YAMR_VARIANT_RACY_VOLATILE, WarpSize, Slots>(gpu, call, out, err, errlen);
    case YAMR_VARIANT_RACY_ITS:
        return launch_grid<Dtype, YAMR_VARIANT_RACY_ITS, WarpSize, Slots>(gpu, call, out, err, errlen);
    case YAMR_VARIANT_ATOMIC:
        return launch_grid<Dtype, YAMR_VARIANT_ATOMIC, WarpSize, Slots>(gpu, call, out, err, errlen);
    case YAMR_VARIANT_SHARED_TREE:
        return launch_grid<Dtype, YAMR_VARIANT_SHARED_TREE, WarpSize, Slots>(gpu, call, out, err, errlen);
    default:
        return launch_grid<Dtype, YAMR_VARIANT_WARP_SHUFFLE, WarpSize, Slots>(gpu, call, out, err, errlen);
    }
}

template <yamr_dtype Dtype>
static yamr_status launch_dtype(yamr__gpu *gpu, const yamr__gpu_call *call, yamr_grid_out out,
                                char *err, size_t errlen)
{
    if (gpu->warp_size == 64)
        return call->minmax ? launch_variant<Dtype, 64, 2>(gpu, call, out, err, errlen)
                            : launch_variant<Dtype, 64, 1>(gpu, call, out, err, errlen);
    return call->minmax ? launch_variant<Dtype, 32, 2>(gpu, call, out, err, errlen)
                        : launch_variant<Dtype, 32, 1>(gpu, call, out, err, errlen);
}

/* The seed kernel: one block of n threads, float32 max; its result slot is d_result[0]. */
static void launch_racy(yamr__gpu *gpu, const yamr__gpu_call *call)
{
    if (gpu->warp_size == 64)
        yamr_max_racy_kernel<64, false><<<1, (int)call->n, 0, gpu->stream>>>(
            (const float *)call->in, (int)call->n, gpu->d_result, NULL);
    else
        yamr_max_racy_kernel<32, false><<<1, (int)call->n, 0, gpu->stream>>>(
            (const float *)call->in, (int)call->n, gpu->d_result, NULL);
}

extern "C" yamr_status yamr__gpu_reduce(yamr__gpu *gpu, const yamr__gpu_call *call,
                                        yamr__result *res, char *err, size_t errlen)
{
    int current = -1;
    YAMR_HIP_TRY(hipGetDevice(&current));
    if (current != gpu->device) YAMR_HIP_TRY(hipSetDevice(gpu->device));
    const int slots = call->minmax ? 2 : 1;
    if (call->variant == YAMR_VARIANT_RACY) {
        launch_racy(gpu, call);
    } else {
        yamr_grid_out out;
        for (int k = 0; k < 2; ++k) {
            const int to_user = call->value_out[k] != NULL;
            out.value[k] = to_user ? call->value_out[k] : (void *)&gpu->d_result[k].value_bits;
            out.index[k] = to_user ? (long long *)call->index_out[k] : (long long *)&gpu->d_result[k].index;
        }
        yamr_status s = YAMR_SUCCESS;
#define YAMR_LAUNCH_DTYPE(D) s = launch_dtype<D>(gpu, call, out, err, errlen)
        YAMR_DISPATCH_DTYPE(call->dtype, YAMR_LAUNCH_DTYPE)
#undef YAMR_LAUNCH_DTYPE
        if (s != YAMR_SUCCESS) return s;
    }
    YAMR_HIP_TRY(hipGetLastError());
    if (call->value_out[0]) return YAMR_SUCCESS; /* asynchronous: the results stay on the device */
    YAMR_HIP_TRY(hipMemcpyAsync(gpu->h_result, gpu->d_result, slots * sizeof(yamr__result),
                                hipMemcpyDeviceToHost, gpu->stream));
    YAMR_HIP_TRY(hipStreamSynchronize(gpu->stream));
    for (int k = 0; k < slots; ++k) res[k] = gpu->h_result[k];
    return YAMR_SUCCESS;
}
