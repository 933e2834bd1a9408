/* The grid-wide launcher: executes the plan (src/plan.c) of a grid-wide call with the split
 * kernel over one row (split_reduce.hpp), or with the seed kernel for `racy`. */
#include <type_traits>

#include "gpu.h"

/* Calls use(kernel, accumulator type tag) with Acc's split kernel instance of a grid-wide call
 * for the device's warp width, the variant's block algorithm, the index width (32 or 64 bits:
 * the plan's index_bits), the grid (one block: the instance with no last-block code) and, for one
 * block, the vectors a thread loads at once (the plan's chunk_vectors). */
template <typename Acc, int W, yamr_variant V, typename Use>
static void with_index_width(int index_bits, bool one_block, int chunk_vectors, Use &&use)
{
    constexpr int esize = sizeof(typename Acc::storage);
    constexpr int unroll = YAMR__GRID_VECTORS(esize);
    constexpr int one_block_unroll = YAMR__GRID_ONE_BLOCK_VECTORS(esize);
    constexpr int bound = YAMR__GRID_MIN_BLOCKS(esize, Acc::slots, true);
    constexpr int one_block_bound = YAMR__GRID_MIN_BLOCKS(esize, Acc::slots, false);
    typedef typename Acc::template with_index<int> Narrow;
    if (index_bits == 32 && one_block) {
        if constexpr (one_block_unroll != unroll)
            if (chunk_vectors == one_block_unroll)
                return use(yamr_split_kernel<Narrow, V, W, one_block_unroll, yamr__matrix_layout,
                                             one_block_bound, false>,
                           (Narrow *)NULL);
        use(yamr_split_kernel<Narrow, V, W, unroll, yamr__matrix_layout, one_block_bound, false>,
            (Narrow *)NULL);
    } else if (index_bits == 32)
        use(yamr_split_kernel<Narrow, V, W, unroll, yamr__matrix_layout, bound>, (Narrow *)NULL);
    else
        use(yamr_split_kernel<Acc, V, W, unroll, yamr__matrix_layout>, (Acc *)NULL);
}

/* with_index_width for the dtype and the slot count (two: min+max); false (nothing called) for a
 * variant without a block algorithm. */
template <typename Use>
static bool with_grid_kernel(const yamr__gpu *gpu, yamr_dtype dtype, yamr_variant variant,
                             int slots, int index_bits, bool one_block, int chunk_vectors,
                             Use &&use)
{
    bool found = false;
    yamr__with_warp_width(gpu->warp_size, [&](auto width) {
        found = yamr__with_block_variant(variant, [&](auto block) {
            constexpr int W = decltype(width)::value;
            constexpr yamr_variant V = decltype(block)::value;
#define YAMR_USE_DTYPE(D)                                                                      \
    {                                                                                          \
        if (slots == 2)                                                                        \
            with_index_width<yamr__minmax_acc<D>, W, V>(index_bits, one_block, chunk_vectors, \
                                                         use);                                 \
        else                                                                                   \
            with_index_width<yamr__best_acc<D>, W, V>(index_bits, one_block, chunk_vectors,   \
                                                       use);                                   \
    }
            YAMR_DISPATCH_DTYPE(dtype, YAMR_USE_DTYPE)
#undef YAMR_USE_DTYPE
        });
    });
    return found;
}

extern "C" yamr_status yamr__gpu_grid_blocks_per_unit(yamr__gpu *gpu, yamr_dtype dtype,
                                                      yamr_variant variant, int slots,
                                                      int index_bits, int *blocks, char *err,
                                                      size_t errlen)
{
    int &cached = gpu->grid_blocks_per_unit[dtype][variant][slots - 1][index_bits == 64];
    if (!cached) {
        const yamr__device_scope on_device(gpu->device);
        YAMR_HIP_TRY(on_device.status(), err, errlen);
        hipError_t e = hipSuccess;
        if (!with_grid_kernel(gpu, dtype, variant, slots, index_bits, false, 0,
                              [&](auto kernel, auto) {
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
 * answer words. */
static yamr__best_output slot_output(const yamr__gpu *gpu, const yamr__gpu_call *call, int k)
{
    if (call->value_out[0]) return {call->value_out[k], (long long *)call->index_out[k], NULL};
    return {NULL, NULL, gpu->d_answer + k * YAMR__ANSWER_WORDS};
}

template <yamr_dtype D, typename I>
static yamr__best_output output_of(yamr__best_acc<D, I> *, const yamr__gpu *gpu,
                                   const yamr__gpu_call *call)
{
    return slot_output(gpu, call, 0);
}

template <yamr_dtype D, typename I>
static typename yamr__minmax_acc<D, I>::output output_of(yamr__minmax_acc<D, I> *,
                                                         const yamr__gpu *gpu,
                                                         const yamr__gpu_call *call)
{
    return {{slot_output(gpu, call, 0), slot_output(gpu, call, 1)}};
}

/* Polls of the answer between two looks at the stream (a few microseconds of polling). */
#define YAMR__ANSWER_POLLS 4096

/*
 * Waits until the call's kernel has stored its answer's words (yamr__store_answer) and takes
 * them into res. A kernel that fails never stores them: the
 * stream's state, asked every YAMR__ANSWER_POLLS polls, ends the wait with its error, or with an
 * error of its own if the stream ran dry with no answer.
 */
static yamr_status wait_for_answer(const yamr__gpu *gpu, int slots, yamr__result *res,
                                   char *err, size_t errlen)
{
    for (unsigned polls = 1;; ++polls) {
        if (yamr__take_answers(gpu->h_answer, slots, res)) return YAMR_SUCCESS;
        if (polls % YAMR__ANSWER_POLLS) continue;
        const hipError_t e = hipStreamQuery(gpu->stream);
        if (e == hipErrorNotReady) continue;
        YAMR_HIP_TRY(e, err, errlen);
        if (yamr__take_answers(gpu->h_answer, slots, res)) return YAMR_SUCCESS;
        snprintf(err, errlen, "the grid-wide kernel ended without its answer");
        return YAMR_ERROR_DEVICE;
    }
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
        const yamr__batch_args args = yamr__args_of(gpu, plan, call->is_min, call->nan_ignore);
        /* synchronous: no word of this call's slots holds the mark until its kernel stores it
         * (the last call's kernel stored all of its words before that call returned) */
        if (!call->value_out[0])
            memset(gpu->h_answer, 0, (size_t)slots * YAMR__ANSWER_WORDS * sizeof *gpu->h_answer);
        const long long n = (long long)call->n;
        const yamr__matrix_layout one_row = {n, n};
        if (!with_grid_kernel(gpu, call->dtype, plan->variant, slots, plan->index_bits,
                              plan->blocks_per_row == 1, plan->chunk_vectors,
                              [&](auto kernel, auto acc) {
                typedef typename std::remove_pointer<decltype(acc)>::type Acc;
                kernel<<<plan->grid_blocks, plan->block_threads, 0, gpu->stream>>>(
                    (const typename Acc::storage *)call->in, one_row, args,
                    output_of(acc, gpu, call));
            }))
            return YAMR_ERROR_UNSUPPORTED;
    }
    YAMR_HIP_TRY(hipGetLastError(), err, errlen);
    if (call->value_out[0]) return YAMR_SUCCESS; /* asynchronous: the results stay on the device */
    /* the kernel writes the answer to mapped host memory: the seed kernel's is there once the
     * stream is done; the split kernel's words carry the mark */
    if (plan->kernel != YAMR_KERNEL_SEED) return wait_for_answer(gpu, slots, res, err, errlen);
    YAMR_HIP_TRY(hipStreamSynchronize(gpu->stream), err, errlen);
    res[0] = gpu->h_result[0];
    return YAMR_SUCCESS;
}
