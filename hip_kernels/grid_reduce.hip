/* The grid-wide launcher: executes the plan (src/plan.c) of a grid-wide call with the split
 * kernel over one row (split_reduce.hpp), or with the seed kernel for `racy`. */
#include <type_traits>

#include "gpu.h"

/* Calls use(kernel, accumulator type tag) with the split kernel instance of a grid-wide call for
 * the device's warp width, the variant's block algorithm, the dtype and the slot count (two:
 * min+max); false (nothing called) for a variant without a block algorithm. */
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
        constexpr int unroll = YAMR__GRID_VECTORS(sizeof(typename yamr__best_acc<D>::storage)); \
        if (slots == 2)                                                                        \
            use(yamr_split_kernel<yamr__minmax_acc<D>, V, W, unroll, yamr__matrix_layout>,     \
                (yamr__minmax_acc<D> *)NULL);                                                  \
        else                                                                                   \
            use(yamr_split_kernel<yamr__best_acc<D>, V, W, unroll, yamr__matrix_layout>,       \
                (yamr__best_acc<D> *)NULL);                                                    \
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
                                                                 YAMR__BLOCK_THREADS, 0);
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

/* Where slot k's answer goes: the caller's device memory (asynchronous calls), else the mapped
 * result slot. */
static yamr__best_output slot_output(const yamr__gpu *gpu, const yamr__gpu_call *call, int k)
{
    if (call->value_out[0]) return {call->value_out[k], (long long *)call->index_out[k]};
    return {&gpu->d_result[k].value_bits, (long long *)&gpu->d_result[k].index};
}

template <yamr_dtype D>
static yamr__best_output output_of(yamr__best_acc<D> *, const yamr__gpu *gpu,
                                   const yamr__gpu_call *call)
{
    return slot_output(gpu, call, 0);
}

template <yamr_dtype D>
static typename yamr__minmax_acc<D>::output output_of(yamr__minmax_acc<D> *, const yamr__gpu *gpu,
                                                      const yamr__gpu_call *call)
{
    return {{slot_output(gpu, call, 0), slot_output(gpu, call, 1)}};
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
        yamr__batch_args args;
        args.is_min = call->is_min;
        args.nan_ignore = call->nan_ignore;
        args.vectorize = plan->vector_loads;
        const long long n = (long long)call->n;
        args.blocks_per_row = plan->blocks_per_row;
        args.ws = gpu->split_workspace;
        const yamr__matrix_layout one_row = {n, n};
        if (!with_grid_kernel(gpu, call->dtype, plan->variant, slots, [&](auto kernel, auto acc) {
                typedef typename std::remove_pointer<decltype(acc)>::type Acc;
                kernel<<<plan->grid_blocks, plan->block_threads, 0, gpu->stream>>>(
                    (const typename Acc::storage *)call->in, one_row, args,
                    output_of(acc, gpu, call));
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
