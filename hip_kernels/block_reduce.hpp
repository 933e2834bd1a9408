/* SPDX-License-Identifier: MIT */
/*
 * The single-block YAMR family: one block reduces one segment of n <= blockDim.x elements.
 *
 * Every variant but `racy` runs the library's block layer (block_merge.hpp) on a best accumulator
 * holding one element per thread (the identity past n): the variant's block algorithm, then for
 * key algorithms the first index holding the best key. `racy`, the seed kernel as written, is
 * the lab's own (lab/race/seed_kernel.hpp).
 *
 * Launched with one block per segment: block b reduces in[b*n .. b*n+n) into out[b]. The library
 * launches one block (YAMR_KERNEL_SINGLE_BLOCK); the race lab launches one block per trial.
 *
 * With Probe, a kernel also records per block: passes per warp of the racy loop (the largest
 * number of loop bodies a lane of the warp executed), stores to the shared value, and clock64
 * cycles from the barrier after the loads to the end of the block merge (for `racy`: to the
 * barrier that publishes the block's value). The probe adds a register counter to the loop and
 * one barrier before the timed region.
 */
#ifndef YAMR_BLOCK_REDUCE_HPP
#define YAMR_BLOCK_REDUCE_HPP

#include "acc_best.hpp"
#include "block_merge.hpp"

/* Max/min/argmax/argmin of the n <= blockDim.x elements at `in` into *out by one block: a thread
 * per element, merged by the library's block layer (block_merge.hpp) with variant Variant. */
template <yamr_dtype Dtype, yamr_variant Variant, int WarpSize, bool Probe>
__device__ inline void yamr__single_block(const typename yamr__dtype_traits<Dtype>::storage *in,
                                          int n, int is_min, int nan_ignore, yamr__result *out,
                                          yamr__race_probe *probe)
{
    const int tid = threadIdx.x;
    yamr__best_acc<Dtype, int> acc = yamr__best_acc<Dtype, int>::identity(is_min, nan_ignore);
    if (tid < n) acc.element(in[tid], tid);

    long long start = 0;
    if (Probe) {
        __syncthreads();
        start = clock64();
    }
    yamr__block_merge<Variant, WarpSize, YAMR_MAX_BLOCK_THREADS, Probe>(acc, probe);
    if (tid == 0) {
        if (Probe) probe->cycles = clock64() - start;
        yamr__result r;
        const long long index = acc.index;
        r.index = yamr__dtype_is_float<Dtype>() && acc.key == YAMR_KEY_BOTTOM ? -1 : index;
        r.value_bits = acc.bits;
        *out = r;
    }
}

/* One segment per block, variant and dtype as template arguments: the race lab's kernel
 * (lab/race/), which times each variant's own instance. */
template <yamr_dtype Dtype, yamr_variant Variant, int WarpSize, bool Probe>
__global__ void yamr_block_reduce_kernel(const typename yamr__dtype_traits<Dtype>::storage *in,
                                         int n, int is_min, int nan_ignore, yamr__result *out,
                                         yamr__race_probe *probe)
{
    if (!yamr__warp_width_matches<WarpSize>()) return;
    yamr__single_block<Dtype, Variant, WarpSize, Probe>(in + (size_t)blockIdx.x * n, n, is_min,
                                                        nan_ignore, out + blockIdx.x,
                                                        Probe ? probe + blockIdx.x : probe);
}

/* Whether libyamr runs variant V one block of a thread per element (include/yamr.h, "What a
 * variant set with yamr_set_variant() runs"): it has a block algorithm, and the variant table
 * marks it neither GRID_WIDE (the split kernel runs it) nor LAB_ONLY. */
template <yamr_variant V>
struct yamr__single_block_variant {
    static constexpr bool value = yamr__block_algorithm<V>::exists &&
                                  !(yamr__variant_flags(V) & (YAMR__GRID_WIDE | YAMR__LAB_ONLY));
};

/* The element of variant `variant` (run time) for dtype Dtype. */
template <yamr_dtype Dtype, int WarpSize>
__device__ inline void yamr__single_block_any(const void *in, int n, int variant, int is_min,
                                              int nan_ignore, yamr__result *out)
{
    typedef const typename yamr__dtype_traits<Dtype>::storage *input;
    switch (variant) {
#define YAMR__SINGLE_CASE(id, name, widths, flags, correctness)                                \
    case id:                                                                                   \
        if constexpr (yamr__single_block_variant<id>::value)                                   \
            yamr__single_block<Dtype, id, WarpSize, false>((input)in, n, is_min, nan_ignore,   \
                                                           out, (yamr__race_probe *)0);        \
        break;
        YAMR__VARIANT_TABLE(YAMR__SINGLE_CASE)
#undef YAMR__SINGLE_CASE
    default: break;
    }
}

/*
 * The library's single-block kernel (YAMR_KERNEL_SINGLE_BLOCK): one instance per storage width,
 * with the dtype and the variant run-time arguments (sm_90: 3 instances, not 7 dtypes x 4
 * variants = 28). It runs only explicit variants on calls of at most max_block_threads elements,
 * where no time is at stake; the lab times each variant's own yamr_block_reduce_kernel.
 */
template <int Bytes, int WarpSize>
__global__ void yamr_single_block_kernel(const void *in, int n, int dtype, int variant,
                                         int is_min, int nan_ignore, yamr__result *out)
{
    if (!yamr__warp_width_matches<WarpSize>()) return;
#define YAMR__SINGLE_DTYPE(D)                                                                  \
    if constexpr (sizeof(typename yamr__dtype_traits<D>::storage) == Bytes)                    \
        yamr__single_block_any<D, WarpSize>(in, n, variant, is_min, nan_ignore, out);
    YAMR_DISPATCH_DTYPE((yamr_dtype)dtype, YAMR__SINGLE_DTYPE)
#undef YAMR__SINGLE_DTYPE
}

#endif /* YAMR_BLOCK_REDUCE_HPP */
