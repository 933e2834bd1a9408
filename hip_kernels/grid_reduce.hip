/* The grid launcher: executes the plan (src/plan.c) of a grid-wide call with the grid kernel,
 * or with the seed kernel for `racy`. */
#include "gpu.h"
#include "grid_reduce.hpp"

/* Calls use(kernel, storage pointer type tag) with the grid kernel instance for the device's
 * warp width, the variant's block algorithm, the dtype and the slot count; false (nothing
 * called) for a variant without a block algorithm. */
template <typename Use>
static bool with_grid_kernel(const yamr__gpu *gpu, yamr_dtype dtype, yamr_variant variant,
                             int slots, Use &&use)
{
    bool found = false;
    yamr__with_warp_width(gpu->warp_size, [&](auto width) {
        found = yamr__with_block_variant(variant, [&](auto block) {
            constexpr int W = decltype(width)::value;
            constexpr yamr_variant V = decltype(block)::value;
#define YAMR_USE_DTYPE(D)                                                                      \
    {                                                                                          \
        typedef typename yamr__dtype_traits<D>::storage Storage;                               \
        if (slots == 2)                                                                        \
            use(yamr_grid_reduce_kernel<D, V, W, 2>, (const Storage *)NULL);                   \
        else                                                                                   \
            use(yamr_grid_reduce_kernel<D, V, W, 1>, (const Storage *)NULL);                   \
    }
            YAMR_DISPATCH_DTYPE(dtype, YAMR_USE_DTYPE)
#undef YAMR_USE_DTYPE
        });
    });
    return found;
}

extern "C" yamr_status yamr__gpu_grid_blocks_per_unit(yamr__gpu *gpu, yamr_dtype dtype,
                                                      yamr_variant variant, int slots,
                                                      int *blocks, char *err, size_t errlen)
{
    int &cached = gpu->grid_blocks_per_unit[dtype][variant][slots - 1];
    if (!cached) {
        const yamr__device_scope on_device(gpu->device);
        YAMR_HIP_TRY(on_device.status(), err, errlen);
        hipError_t e = hipSuccess;
        if (!with_grid_kernel(gpu, dtype, variant, slots, [&](auto kernel, auto) {
                e = hipOccupancyMaxActiveBlocksPerMultiprocessor(&cached, kernel,
                                                                 YAMR__GRID_THREADS, 0);
            }))
            return YAMR_ERROR_UNSUPPORTED;
        YAMR_HIP_TRY(e, err, errlen);
    }
    *blocks = cached;
    return YAMR_SUCCESS;
}

/* The seed kernel: one block of n threads, float32 max; its result slot is d_result[0]. */
static void launch_seed(yamr__gpu *gpu, const yamr__gpu_call *call)
{
    yamr__with_warp_width(gpu->warp_size, [&](auto width) {
        yamr_max_racy_kernel<decltype(width)::value, false>
            <<<1, call->plan->block_threads, 0, gpu->stream>>>((const float *)call->in,
                                                                (int)call->n, gpu->d_result, NULL);
    });
}

extern "C" yamr_status yamr__gpu_reduce(yamr__gpu *gpu, const yamr__gpu_call *call,
                                        yamr__result *res, char *err, size_t errlen)
{
    const yamr__device_scope on_device(gpu->device);
    YAMR_HIP_TRY(on_device.status(), err, errlen);
    const int slots = call->minmax ? 2 : 1;
    const yamr_plan *plan = call->plan;
    if (plan->kernel == YAMR_KERNEL_SEED) {
        launch_seed(gpu, call);
    } else {
        yamr__grid_out out;
        for (int k = 0; k < 2; ++k) {
            const int to_user = call->value_out[k] != NULL;
            out.value[k] = to_user ? call->value_out[k] : (void *)&gpu->d_result[k].value_bits;
            out.index[k] = to_user ? (long long *)call->index_out[k]
                                   : (long long *)&gpu->d_result[k].index;
        }
        if (!with_grid_kernel(gpu, call->dtype, plan->variant, slots,
                              [&](auto kernel, auto storage) {
                                  kernel<<<plan->grid_blocks, plan->block_threads, 0,
                                           gpu->stream>>>((decltype(storage))call->in,
                                                          (long long)call->n, call->is_min,
                                                          call->nan_ignore, plan->vector_loads,
                                                          gpu->workspace, out);
                              }))
            return YAMR_ERROR_UNSUPPORTED;
    }
    YAMR_HIP_TRY(hipGetLastError(), err, errlen);
    if (call->value_out[0]) return YAMR_SUCCESS; /* asynchronous: the results stay on the device */
    /* the kernel wrote the answer to mapped host memory: visible once the stream is done */
    YAMR_HIP_TRY(hipStreamSynchronize(gpu->stream), err, errlen);
    for (int k = 0; k < slots; ++k) res[k] = gpu->h_result[k];
    return YAMR_SUCCESS;
}
