/* SPDX-License-Identifier: MIT */
/* The top-k launcher: the plan's policy row (TOPK_SELECT or TOPK_LIST, src/policy.h), whose
 * values are the kernel instance's template arguments, and its blocks per row, in rounds of a
 * list's capacity (topk.hpp). */
#include "gpu.h"
#include "policy.hpp"
#include "topk.h"
#include "topk.hpp"

static_assert(YAMR__TOPK_MAX_BLOCKS_PER_ROW <= YAMR__TOPK_THREADS * YAMR__TOPK_GROUP_N,
              "the merge kernel reads a position of every list in one group of appends");

/* The context's top-k workspace holds at least `bytes`; it grows, never shrinks. hipFree waits
 * for the device, so no earlier call still uses what it frees. */
static yamr_status topk_workspace(yamr__gpu *gpu, size_t bytes, char *err, size_t errlen)
{
    if (bytes <= gpu->topk_workspace_bytes) return YAMR_SUCCESS;
    YAMR_HIP_TRY(hipFree(gpu->topk_workspace), err, errlen);
    gpu->topk_workspace = NULL;
    gpu->topk_workspace_bytes = 0;
    YAMR_HIP_TRY(hipMalloc(&gpu->topk_workspace, bytes), err, errlen);
    gpu->topk_workspace_bytes = bytes;
    return YAMR_SUCCESS;
}

/* A split row's words hold at least `rows` words, all zero (each launch leaves those it used
 * zero: the threshold words by the merge kernel or the row's last block, the arrival words by
 * the last block). */
static yamr_status topk_row_words(yamr__gpu *gpu, size_t rows, char *err, size_t errlen)
{
    if (rows <= gpu->topk_row_words_n) return YAMR_SUCCESS;
    YAMR_HIP_TRY(hipFree(gpu->topk_row_words), err, errlen);
    gpu->topk_row_words = NULL;
    gpu->topk_row_words_n = 0;
    YAMR_HIP_TRY(hipMalloc(&gpu->topk_row_words, rows * sizeof(unsigned long long)), err, errlen);
    YAMR_HIP_TRY(hipMemsetAsync(gpu->topk_row_words, 0, rows * sizeof(unsigned long long),
                                gpu->stream),
                 err, errlen);
    gpu->topk_row_words_n = rows;
    return YAMR_SUCCESS;
}

/* The select kernel of TOPK_SELECT row P with `slots` (a power of two, at most the row's);
 * whether a split row's last block merges the row's lists (yamr__topk_select_merges_own), so
 * that no merge kernel follows. */
template <int Bytes, typename R, int P, int Q = yamr__policy_rows[P].topk.slots>
static bool launch_select(const yamr_plan *p, unsigned slots, hipStream_t stream,
                          const typename yamr__topk_width<Bytes>::storage *in,
                          const yamr__topk_args &a,
                          typename yamr__topk_width<Bytes>::storage *values, long long *indices,
                          typename yamr__topk_width<Bytes>::storage empty)
{
    constexpr yamr__policy row = yamr__policy_rows[P];
    constexpr int W = yamr__policy_warp_width(P);
    if constexpr (Q > 1) {
        if (slots < (unsigned)Q)
            return launch_select<Bytes, R, P, Q / 2>(p, slots, stream, in, a, values, indices,
                                                     empty);
    }
    /* the bound: the most slots' registers, or fewer slots' */
    constexpr int min_blocks =
        Q == row.topk.slots ? row.topk.min_blocks_most_slots : row.min_blocks;
    yamr_topk_select_kernel<Bytes, R, W, Q, row.vectors, row.topk.scan_copies, min_blocks>
        <<<p->grid_blocks, row.threads, yamr__topk_select_smem<Bytes, W, Q, R>(), stream>>>(
            in, a, values, indices, empty);
    return a.lanes_per_row == 0 &&
           yamr__topk_select_merges_own<Bytes, W, Q, R>(a.blocks_per_row, a.k);
}

/* The lane kernel of TOPK_SELECT row P (planned for one-word ranks only): the instance of half
 * the row's count of elements a lane where that covers a row at the plan's lanes (fewer
 * registers: short rows of many lanes a warp; the row's lane_half_blocks), else of the row's
 * count (its min_blocks). */
template <int Bytes, typename R, int P>
static void launch_lanes(const yamr_plan *p, hipStream_t stream,
                         const typename yamr__topk_width<Bytes>::storage *in,
                         const yamr__topk_args &a,
                         typename yamr__topk_width<Bytes>::storage *values, long long *indices,
                         typename yamr__topk_width<Bytes>::storage empty)
{
    constexpr yamr__policy row = yamr__policy_rows[P];
    constexpr int W = yamr__policy_warp_width(P);
    if constexpr (Bytes <= 4 && std::is_same<R, yamr__rank32>::value) {
        if (a.cols <= (long long)a.lanes_per_row * (row.count / 2))
            yamr_topk_lane_kernel<Bytes, W, row.count / 2, row.topk.lane_half_blocks>
                <<<p->grid_blocks, row.threads, 0, stream>>>(in, a, values, indices, empty);
        else
            yamr_topk_lane_kernel<Bytes, W, row.count, row.min_blocks>
                <<<p->grid_blocks, row.threads, 0, stream>>>(in, a, values, indices, empty);
    }
}

/* Row P's kernel (TOPK_SELECT: the select kernel; TOPK_LIST: the shared list, computing Keys),
 * then for a split row the merge kernel. */
template <int Bytes, int Keys, typename R, int P>
static yamr_status launch_topk(yamr__gpu *gpu, const yamr__topk_call *c, char *err, size_t errlen)
{
    typedef typename yamr__topk_width<Bytes>::storage storage;
    constexpr yamr__policy row = yamr__policy_rows[P];
    constexpr int W = yamr__policy_warp_width(P);
    const yamr_plan *p = c->plan;
    const unsigned slots = YAMR__PLAN_TOPK_SLOTS(p);
    const size_t list_max = slots ? c->k : (size_t)R::list_max;
    const size_t round_k = c->k < list_max ? c->k : list_max;
    const size_t rounds = (c->k + list_max - 1) / list_max;
    const size_t bpr = (size_t)p->blocks_per_row;
    const size_t partial_bytes = bpr > 1 ? c->rows * bpr * round_k * sizeof(R) : 0;
    const size_t bound_bytes = rounds > 1 ? c->rows * sizeof(R) : 0;
    const int floor = (int)YAMR__PLAN_TOPK_FLOOR(p);
    const size_t count_bytes =
        floor == YAMR__TOPK_FLOOR_ROW ? c->rows * yamr__topk_floor_row_bytes() : 0;
    /* a split row's words: the select kernel's published thresholds, then its blocks'
     * arrivals (for a merge by the row's last block), or the shared-list kernel's arrivals
     * where its blocks merge their lists themselves (a floor of the row's counts merges in the
     * place kernel) */
    const bool row_words =
        bpr > 1 &&
        (slots || (floor != YAMR__TOPK_FLOOR_ROW &&
                   yamr__topk_merges_own((long long)bpr, (long long)round_k,
                                         yamr__topk_buffer<yamr__topk_block_team>())));
    yamr_status s = topk_workspace(gpu, partial_bytes + bound_bytes + count_bytes, err, errlen);
    if (s == YAMR_SUCCESS && row_words)
        s = topk_row_words(gpu, slots ? 2 * c->rows : c->rows, err, errlen);
    if (s != YAMR_SUCCESS) return s;

    yamr__topk_args a;
    a.rows = (long long)c->rows;
    a.cols = (long long)c->cols;
    a.ld = (long long)c->ld;
    a.blocks_per_row = (int)bpr;
    a.is_min = !c->largest;
    a.nan_ignore = c->nan_ignore && yamr__dtype_is_float(c->dtype);
    a.out_k = (long long)c->k;
    a.partials = gpu->topk_workspace;
    a.bounds = rounds > 1 ? (char *)gpu->topk_workspace + partial_bytes : NULL;
    a.lanes_per_row = p->kernel == YAMR_KERNEL_LANES_PER_ROW ? (int)YAMR__PLAN_LANES_PER_ROW(p) : 0;
    a.row_words = row_words ? gpu->topk_row_words : NULL;
    a.key = yamr__topk_key_rule_of(c->dtype);
    a.floor = floor;
    a.counts = count_bytes ? (char *)gpu->topk_workspace + partial_bytes + bound_bytes : NULL;
    if (count_bytes) /* the row counts start at zero; the count launches follow in stream order */
        YAMR_HIP_TRY(hipMemsetAsync(a.counts, 0, count_bytes, gpu->stream), err, errlen);
    const storage empty = (storage)yamr__empty_value_bits(c->dtype);
    const storage *in = (const storage *)c->in;
    storage *values = (storage *)c->values;
    long long *indices = (long long *)c->indices;
    for (size_t round = 0; round < rounds; ++round) {
        a.out_first = (long long)(round * list_max);
        a.k = (int)(c->k - round * list_max < list_max ? c->k - round * list_max : list_max);
        a.list_size = 1;
        while (a.list_size < a.k) a.list_size *= 2;
        a.write_bounds = round + 1 < rounds;
        /* the merge: a block a row, or the place kernel's blocks a row for lists under a floor
         * of the row's counts, YAMR__TOPK_PLACE_BLOCKS_PER_SM deep over the multiprocessors */
        const size_t parts =
            (size_t)gpu->multiprocessors * YAMR__TOPK_PLACE_BLOCKS_PER_SM / c->rows;
        a.merge_blocks = floor != YAMR__TOPK_FLOOR_ROW || parts < 1 ? 1 : (int)parts;
        const size_t merge_items = c->rows * (size_t)a.merge_blocks;
        const unsigned merge_grid = merge_items < (1u << 20) ? (unsigned)merge_items : 1u << 20;
        {
            const size_t smem =
                ((size_t)a.list_size + yamr__topk_buffer<yamr__topk_block_team>()) * sizeof(R);
            /* whether a split row is merged by then: by its own blocks (a select or shared-list
             * kernel's last block) or by the place kernel; else the merge kernel follows */
            bool merged = false;
            if constexpr (row.shape == YAMR__SHAPE_TOPK_SELECT) {
                static_assert(yamr__topk_select_holds<Bytes, R>(), "launch_class() makes none");
                if (slots == 0) /* lane rows */
                    launch_lanes<Bytes, R, P>(p, gpu->stream, in, a, values, indices, empty);
                else
                    merged = launch_select<Bytes, R, P>(p, slots, gpu->stream, in, a, values,
                                                        indices, empty);
            } else {
                /* one-word ranks: the instance of the row's counts or of the part's own (or
                 * none); wide ranks: one of any (topk.hpp, YAMR__TOPK_FLOORS_ANY) */
                constexpr bool wide = std::is_same<R, yamr__rank64>::value;
                constexpr int row_floors = wide ? YAMR__TOPK_FLOORS_ANY : YAMR__TOPK_FLOORS_ROW;
                constexpr int own_floors = wide ? YAMR__TOPK_FLOORS_ANY : YAMR__TOPK_FLOORS_OWN;
                /* the whole row's counts, once: level 1, then level 2 (topk.hpp, the floor) */
                for (int phase = YAMR__TOPK_FLOOR_COUNT1;
                     round == 0 && floor == YAMR__TOPK_FLOOR_ROW && phase <= YAMR__TOPK_FLOOR_COUNT2;
                     ++phase) {
                    yamr__topk_args counting = a;
                    counting.floor = phase;
                    yamr_topk_kernel<Bytes, Keys, R, W, row.count, row.min_blocks, row_floors>
                        <<<p->grid_blocks, row.threads, smem, gpu->stream>>>(in, counting, values,
                                                                           indices, empty);
                }
                if (floor == YAMR__TOPK_FLOOR_ROW)
                    yamr_topk_kernel<Bytes, Keys, R, W, row.count, row.min_blocks, row_floors>
                        <<<p->grid_blocks, row.threads, smem, gpu->stream>>>(in, a, values,
                                                                           indices, empty);
                else
                    yamr_topk_kernel<Bytes, Keys, R, W, row.count, row.min_blocks, own_floors>
                        <<<p->grid_blocks, row.threads, smem, gpu->stream>>>(in, a, values,
                                                                           indices, empty);
            }
            if constexpr (row.shape == YAMR__SHAPE_TOPK_LIST) {
                if (bpr > 1 && floor == YAMR__TOPK_FLOOR_ROW) {
                    yamr_topk_place_kernel<Bytes, R, W>
                        <<<merge_grid, row.threads, smem, gpu->stream>>>(in, a, values,
                                                                       indices, empty);
                    merged = true;
                }
                /* row words: its blocks merge (yamr__topk_merges_own of the first round's k,
                 * so of every round's) */
                merged = merged || row_words;
            }
            if (bpr > 1 && !merged)
                yamr_topk_merge_kernel<Bytes, R, W>
                    <<<merge_grid, row.threads, smem, gpu->stream>>>(in, a, values,
                                                                   indices, empty);
        }
        YAMR_HIP_TRY(hipGetLastError(), err, errlen);
    }
    if (c->synchronous) YAMR_HIP_TRY(hipStreamSynchronize(gpu->stream), err, errlen);
    return YAMR_SUCCESS;
}

/* Whether row P is a top-k row that elements of `bytes` bytes find (in some family of its own):
 * the rows whose instances the launcher makes for them. */
constexpr bool yamr__topk_serves(int P, int bytes)
{
    return (yamr__policy_rows[P].shape == YAMR__SHAPE_TOPK_SELECT ||
            yamr__policy_rows[P].shape == YAMR__SHAPE_TOPK_LIST) &&
           yamr__policy_serves(P, bytes, YAMR__ACC_TOPK);
}

/* One instance per element width (topk.hpp's key rules; the shared list's per key, Keys) and
 * row of this build's vendor that serves it; one-word ranks where the plan's index width is 32
 * bits (32-bit keys, every column below 2^32 - 1); no select kernel for wide ranks of narrow
 * keys (yamr__topk_select_holds). Unsupported (nothing launched) for a row the build does not
 * hold. */
template <int Bytes, int Keys>
static yamr_status launch_class(yamr__gpu *gpu, const yamr__topk_call *c, char *err, size_t errlen)
{
    yamr_status s = YAMR_ERROR_UNSUPPORTED;
    yamr__with_policy((int)YAMR__PLAN_POLICY(c->plan), [&](auto row_id) {
        constexpr int P = decltype(row_id)::value;
        if constexpr (yamr__topk_serves(P, Bytes)) {
            if constexpr (Bytes <= 4) {
                if (c->plan->index_bits == 32) {
                    s = launch_topk<Bytes, Keys, yamr__rank32, P>(gpu, c, err, errlen);
                    return;
                }
            }
            if constexpr (yamr__policy_rows[P].shape != YAMR__SHAPE_TOPK_SELECT ||
                          yamr__topk_select_holds<Bytes, yamr__rank64>())
                s = launch_topk<Bytes, Keys, yamr__rank64, P>(gpu, c, err, errlen);
        }
    });
    return s;
}

/* Whether launch_class() holds row `policy` for dtype: yamr__gpu_policy_held (grid_reduce.hip). */
bool yamr__gpu_topk_policy_held(int policy, yamr_dtype dtype)
{
    bool found = false;
    yamr__with_policy(policy, [&](auto row_id) {
        found = yamr__topk_serves(decltype(row_id)::value, (int)yamr_dtype_size(dtype));
    });
    return found;
}

extern "C" yamr_status yamr__gpu_topk(yamr__gpu *gpu, const yamr__topk_call *c, char *err,
                                      size_t errlen)
{
    const yamr__device_scope on_device(gpu->device);
    YAMR_HIP_TRY(on_device.status(), err, errlen);
    switch (c->dtype) {
    case YAMR_DTYPE_F16:
    case YAMR_DTYPE_BF16: return launch_class<2, YAMR__KEYS_FLOAT>(gpu, c, err, errlen);
    case YAMR_DTYPE_F32: return launch_class<4, YAMR__KEYS_FLOAT>(gpu, c, err, errlen);
    case YAMR_DTYPE_I32:
    case YAMR_DTYPE_U32: return launch_class<4, YAMR__KEYS_INT>(gpu, c, err, errlen);
    case YAMR_DTYPE_F64:
    case YAMR_DTYPE_I64: return launch_class<8, YAMR__KEYS_EITHER>(gpu, c, err, errlen);
    }
    return YAMR_ERROR_UNSUPPORTED;
}
