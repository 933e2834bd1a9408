/* SPDX-License-Identifier: MIT */
/* The grid-wide launcher: executes the plan (src/plan.c) of a grid-wide call with the split
 * kernel over one row (split_reduce.hpp), or, for a variant's call that libyamr holds no split
 * instance of, with one block of a thread per element (block_reduce.hpp). */
#include <type_traits>

#include "completion.hpp"
#include "gpu.h"

/* Calls use(kernel, accumulator type tag) with Acc's split kernel instance of a grid-wide call
 * by GRID row P (src/policy.h: its warp width, chunk of vectors and register bounds) for the
 * variant's block algorithm, the index width (32 or 64 bits: the plan's index_bits), the grid
 * (one block: the instance with no last-block code) and, for one block, the vectors a thread
 * loads at once (the plan's chunk_vectors: the row's vectors or its one-block vectors). Only the
 * instances the variant's row holds are made (yamr_internal.h): every one for a GRID_WIDE row,
 * the one-block instances of one slot and elements of at most 4 bytes for a ONE_BLOCK_FIRST row;
 * and only for the accumulators row P serves. False (nothing called) for an instance not held. */
template <int P, typename Acc, yamr_variant V, typename Use>
static bool with_index_width(int index_bits, bool one_block, int chunk_vectors, Use &&use)
{
    if constexpr (!yamr__policy_serves_acc<P, Acc>()) {
        return false;
    } else {
        constexpr yamr__policy row = yamr__policy_rows[P];
        constexpr int W = yamr__policy_warp_width(P);
        constexpr int esize = sizeof(typename Acc::storage);
        constexpr bool grid_wide = yamr__variant_flags(V) & YAMR__GRID_WIDE;
        constexpr bool one_block_held =
            grid_wide ||
            ((yamr__variant_flags(V) & YAMR__ONE_BLOCK_FIRST) && Acc::slots == 1 && esize <= 4);
        typedef typename Acc::template with_index<int> Narrow;
        if constexpr (one_block_held) {
            if (index_bits == 32 && one_block) {
                if constexpr (row.vectors_one_block != row.vectors)
                    if (chunk_vectors == row.vectors_one_block) {
                        use(yamr_split_kernel<Narrow, V, W, row.vectors_one_block,
                                              yamr__matrix_layout, row.min_blocks_one_block, false>,
                            (Narrow *)NULL);
                        return true;
                    }
                use(yamr_split_kernel<Narrow, V, W, row.vectors, yamr__matrix_layout,
                                      row.min_blocks_one_block, false>,
                    (Narrow *)NULL);
                return true;
            }
        }
        if constexpr (grid_wide) {
            if (index_bits == 32)
                use(yamr_split_kernel<Narrow, V, W, row.vectors, yamr__matrix_layout,
                                      row.min_blocks>,
                    (Narrow *)NULL);
            else
                use(yamr_split_kernel<Acc, V, W, row.vectors, yamr__matrix_layout,
                                      row.min_blocks_wide>,
                    (Acc *)NULL);
            return true;
        }
        return false;
    }
}

/* with_index_width for the GRID row `policy`, the dtype and the slot count (two: min+max); false
 * (nothing called) for a row this build does not make, a variant without a block algorithm or
 * an instance its row does not hold. */
template <typename Use>
static bool with_grid_kernel(int policy, yamr_dtype dtype, yamr_variant variant, int slots,
                             int index_bits, bool one_block, int chunk_vectors, Use &&use)
{
    bool found = false;
    yamr__with_policy(policy, [&](auto row_id) {
        constexpr int P = decltype(row_id)::value;
        if constexpr (yamr__policy_rows[P].shape == YAMR__SHAPE_GRID) {
            yamr__with_block_variant(variant, [&](auto block) {
                constexpr yamr_variant V = decltype(block)::value;
#define YAMR_USE_DTYPE(D)                                                                      \
    {                                                                                          \
        if (slots == 2)                                                                        \
            found = with_index_width<P, yamr__minmax_acc<D>, V>(index_bits, one_block,        \
                                                                 chunk_vectors, use);          \
        else                                                                                   \
            found = with_index_width<P, yamr__best_acc<D>, V>(index_bits, one_block,          \
                                                               chunk_vectors, use);            \
    }
                YAMR_DISPATCH_DTYPE(dtype, YAMR_USE_DTYPE)
#undef YAMR_USE_DTYPE
            });
        }
    });
    return found;
}

/* Asks the runtime, once per context at yamr_create(), how many blocks of each split kernel
 * instance a grid of several blocks can run (the GRID row of the device's family for every dtype
 * and both slot counts, a GRID_WIDE variant's, both index widths) fit on one multiprocessor; the
 * planner reads the answers. */
extern "C" yamr_status yamr__gpu_ask_occupancy(yamr__gpu *gpu, char *err, size_t errlen)
{
    for (int i = 0; i < yamr__variant_count; ++i) {
        if (!(yamr__variants[i].flags & YAMR__GRID_WIDE)) continue;
        const yamr_variant variant = yamr__variants[i].id;
        for (int dtype = 0; dtype < YAMR_DTYPE_COUNT; ++dtype)
            for (int slots = 1; slots <= 2; ++slots) {
                const int policy = yamr__policy_find(
                    gpu->family, (int)yamr_dtype_size((yamr_dtype)dtype),
                    slots == 2 ? YAMR__ACC_MINMAX : YAMR__ACC_BEST, YAMR__SHAPE_GRID);
                for (int wide = 0; wide < 2; ++wide) {
                    int &blocks = gpu->grid_blocks_per_unit[dtype][variant][slots - 1][wide];
                    hipError_t e = hipSuccess;
                    if (with_grid_kernel(policy, (yamr_dtype)dtype, variant, slots,
                                         wide ? 64 : 32, false, 0, [&](auto kernel, auto) {
                            e = hipOccupancyMaxActiveBlocksPerMultiprocessor(
                                &blocks, kernel, YAMR__BLOCK_THREADS, 0);
                        }))
                        YAMR_HIP_TRY(e, err, errlen);
                }
            }
    }
    return YAMR_SUCCESS;
}

/* The batched shapes' half of yamr__gpu_policy_held (rows_reduce.hip), and top-k's (topk.hip). */
bool yamr__gpu_batch_policy_held(int policy, yamr_dtype dtype, int acc);
bool yamr__gpu_topk_policy_held(int policy, yamr_dtype dtype);

extern "C" int yamr__gpu_policy_held(int policy, yamr_dtype dtype, int acc)
{
    const yamr__policy *row = yamr__policy_row(policy);
    const auto held = [](auto, auto) {};
    switch (row->shape) {
    case YAMR__SHAPE_GRID: {
        const int slots = acc == YAMR__ACC_MINMAX ? 2 : 1;
        const yamr_variant v = YAMR_VARIANT_WARP_SHUFFLE;
        return with_grid_kernel(policy, dtype, v, slots, 32, false, 0, held) &&
               with_grid_kernel(policy, dtype, v, slots, 64, false, 0, held) &&
               with_grid_kernel(policy, dtype, v, slots, 32, true, row->vectors, held) &&
               with_grid_kernel(policy, dtype, v, slots, 32, true, row->vectors_one_block, held);
    }
    case YAMR__SHAPE_SINGLE_BLOCK:
        return yamr__with_policy(policy, [](auto) {});
    case YAMR__SHAPE_CPU: return 0;
    case YAMR__SHAPE_TOPK_SELECT:
    case YAMR__SHAPE_TOPK_LIST:
        return acc == YAMR__ACC_TOPK && yamr__gpu_topk_policy_held(policy, dtype);
    default: return yamr__gpu_batch_policy_held(policy, dtype, acc);
    }
}

extern "C" yamr_status yamr__gpu_grid_blocks_per_unit(yamr__gpu *gpu, yamr_dtype dtype,
                                                      yamr_variant variant, int slots,
                                                      int index_bits, int *blocks, char *err,
                                                      size_t errlen)
{
    (void)err;
    (void)errlen;
    const int cached = gpu->grid_blocks_per_unit[dtype][variant][slots - 1][index_bits == 64];
    if (!cached) return YAMR_ERROR_UNSUPPORTED; /* no split instance of a grid of several blocks */
    *blocks = cached;
    return YAMR_SUCCESS;
}

/* One block of a thread per element (YAMR_KERNEL_SINGLE_BLOCK) for a variant that is neither
 * GRID_WIDE nor LAB_ONLY: slot k's result goes to the mapped result slot k (min+max: two
 * launches, MAX then MIN). False (nothing launched) for a variant with no such instance. */
static bool launch_single_block(yamr__gpu *gpu, const yamr__gpu_call *call, int slots)
{
    bool runs = false;
    yamr__with_block_variant(call->plan->variant, [&](auto block) {
        runs = yamr__single_block_variant<decltype(block)::value>::value;
    });
    bool found = false;
    yamr__with_policy((int)YAMR__PLAN_POLICY(call->plan), [&](auto row_id) {
        constexpr int P = decltype(row_id)::value;
        if constexpr (yamr__policy_rows[P].shape == YAMR__SHAPE_SINGLE_BLOCK) {
            constexpr int W = yamr__policy_warp_width(P);
            if (!runs) return;
            for (int k = 0; k < slots; ++k) {
                const int is_min = call->minmax ? k == 1 : call->is_min;
                const size_t bytes = yamr_dtype_size(call->dtype);
                const auto kernel = bytes == 2   ? yamr_single_block_kernel<2, W>
                                    : bytes == 4 ? yamr_single_block_kernel<4, W>
                                                 : yamr_single_block_kernel<8, W>;
                kernel<<<1, call->plan->block_threads, 0, gpu->stream>>>(
                    call->in, (int)call->n, (int)call->dtype, (int)call->plan->variant, is_min,
                    call->nan_ignore, gpu->d_result + k);
            }
            found = true;
        }
    });
    return found;
}

/* The output of Acc's write by the call's completion (completion.hpp). */
template <yamr_dtype D, typename I>
static yamr__best_output output_of(yamr__best_acc<D, I> *, const yamr__gpu *gpu,
                                   const yamr__completion &done)
{
    return yamr__completion_output(gpu, done, 0);
}

template <yamr_dtype D, typename I>
static typename yamr__minmax_acc<D, I>::output output_of(yamr__minmax_acc<D, I> *,
                                                         const yamr__gpu *gpu,
                                                         const yamr__completion &done)
{
    return {{yamr__completion_output(gpu, done, 0), yamr__completion_output(gpu, done, 1)}};
}

extern "C" yamr_status yamr__gpu_reduce(yamr__gpu *gpu, const yamr__gpu_call *call,
                                        yamr__result *res, char *err, size_t errlen)
{
    const yamr__device_scope on_device(gpu->device);
    YAMR_HIP_TRY(on_device.status(), err, errlen);
    const int slots = call->minmax ? 2 : 1;
    const yamr_plan *plan = call->plan;
    /* asynchronous calls name their outputs in device memory */
    const yamr__completion done =
        yamr__completion_of(plan, !call->value_out[0], slots, call->value_out, call->index_out,
                            yamr_dtype_size(call->dtype));
    if (plan->kernel == YAMR_KERNEL_SINGLE_BLOCK) {
        if (!launch_single_block(gpu, call, slots)) return YAMR_ERROR_UNSUPPORTED;
        return yamr__complete(gpu, done, res, err, errlen);
    }
    const yamr__batch_args args = yamr__args_of(gpu, plan, call->is_min, call->nan_ignore);
    yamr__completion_begin(gpu, done);
    const long long n = (long long)call->n;
    const yamr__matrix_layout one_row = {n, n};
    if (!with_grid_kernel((int)YAMR__PLAN_POLICY(plan), call->dtype, plan->variant, slots,
                          plan->index_bits,
                          plan->blocks_per_row == 1, (int)YAMR__PLAN_CHUNK_VECTORS(plan),
                          [&](auto kernel, auto acc) {
            typedef typename std::remove_pointer<decltype(acc)>::type Acc;
            kernel<<<plan->grid_blocks, plan->block_threads, 0, gpu->stream>>>(
                (const typename Acc::storage *)call->in, one_row, args,
                output_of(acc, gpu, done));
        }))
        return YAMR_ERROR_UNSUPPORTED;
    return yamr__complete(gpu, done, res, err, errlen);
}
