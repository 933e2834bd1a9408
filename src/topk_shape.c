/* SPDX-License-Identifier: MIT */
/* The GPU plan of a top-k call (src/topk.h): its policy row (src/policy.h: TOPK_SELECT or
 * TOPK_LIST, by k) and the shape that row's values give; the kernels are hip_kernels/topk.hpp's,
 * launched with the row's constants (hip_kernels/topk.hip). */
#include "topk.h"

/* The top-k row of a device's family for elements of `elem_size` bytes and a shape. */
static const yamr__policy *topk_row(const yamr_device_info *dev, size_t elem_size, int shape)
{
    return yamr__policy_row(
        yamr__policy_find(yamr__device_family(dev), (int)elem_size, YAMR__ACC_TOPK, shape));
}

/* Slots per lane (a power of two) of a warp's list of at least k ranks, or 0 where that takes
 * more than `most`. */
static unsigned select_slots(unsigned most, int warp_size, size_t k)
{
    unsigned q = 1;
    while ((size_t)q * (size_t)warp_size < k) q *= 2;
    return q <= most ? q : 0;
}

unsigned yamr__topk_select_slots(const yamr_device_info *dev, size_t k)
{
    /* every element size has the same select row (test_plan.c checks each has one) */
    const yamr__policy *row = topk_row(dev, 4, YAMR__SHAPE_TOPK_SELECT);
    return select_slots((unsigned)row->topk.slots, dev->warp_size, k);
}

/* How the shared-list kernel bounds its scan from below (hip_kernels/topk.hpp, the floor): not
 * for the select kernel (slots: its warps have seeds of their own), nor where a row has fewer
 * than the row's floor_ratio times k elements (its scan is short whatever the order), nor where a
 * block's part has 2^32 elements or more (its counts are 32-bit); rows of at most
 * floor_own_blocks blocks (or shorter than the guess's sample) count each block's own part in
 * the same launch (a second read of the part, in the L2 where the parts of all blocks fit; a
 * part's floor holds k ranks), longer splits count the whole row first (two launches before the
 * rounds, and a floor near the row's k-th, so that a block's list holds only a few ranks). */
static uint32_t floor_mode(const yamr__policy *row, unsigned slots, size_t cols, size_t k,
                           size_t bpr)
{
    const size_t part = (cols + bpr - 1) / bpr;
    if (slots || cols / (size_t)row->topk.floor_ratio < k || part > (size_t)UINT32_MAX)
        return YAMR__TOPK_FLOOR_NONE;
    return bpr <= (size_t)row->topk.floor_own_blocks || cols < YAMR__TOPK_FLOOR_SAMPLE
               ? YAMR__TOPK_FLOOR_OWN
               : YAMR__TOPK_FLOOR_ROW;
}

void yamr__topk_gpu_shape(const yamr_device_info *dev, size_t rows, size_t cols, size_t k,
                          size_t elem_size, yamr_plan *plan)
{
    size_t grid;
    const yamr__policy *select = topk_row(dev, elem_size, YAMR__SHAPE_TOPK_SELECT);
    const unsigned most = (unsigned)select->topk.slots;
    unsigned slots = select_slots(most, dev->warp_size, k);
    /* a rank is a key and a column in one word where both fit: 32-bit keys (elements of up to 4
     * bytes), columns below 2^32 - 1 (the bottom's complement) */
    plan->index_bits = elem_size <= 4 && cols < (size_t)UINT32_MAX ? 32 : 64;
    /* wide ranks of narrow keys: the shared list, whatever k (topk.hpp, yamr__topk_select_holds) */
    if (elem_size <= 4 && plan->index_bits == 64) slots = 0;
    const yamr__policy *row = slots > 0 ? select : topk_row(dev, elem_size, YAMR__SHAPE_TOPK_LIST);
    YAMR__PLAN_POLICY(plan) = (uint32_t)(row - yamr__policies);
    plan->block_threads = row->threads;
    plan->vector_loads = slots > 0;
    YAMR__PLAN_TOPK_SLOTS(plan) = slots;
    /* lane rows, for one-word ranks and k up to lane_k: the fewest lanes (a power of two, up to
     * a warp's) of at most `count` elements each, and 2k at least where the row has that many
     * vectors (the bound is the k-th of the lanes' largest keys: at 2k lanes about k + k/4
     * elements of a random row reach it, at k lanes twice as many); else the warp select */
    const size_t per_vec = 16 / elem_size;
    size_t lanes = 1;
    while ((lanes * (size_t)row->count < cols || (lanes < 2 * k && lanes * per_vec < cols)) &&
           lanes < (size_t)dev->warp_size)
        lanes *= 2;
    const int lane_rows = slots > 0 && k <= (size_t)row->topk.lane_k &&
                          lanes * (size_t)row->count >= cols && plan->index_bits == 32;
    if (!lane_rows) lanes = (size_t)dev->warp_size;
    if (slots > 0 && cols * elem_size <= (size_t)row->topk.warp_bytes) {
        /* lanes of a row: lane rows (no warp list: 0 slots), or a warp (the warp select) */
        plan->kernel = YAMR_KERNEL_LANES_PER_ROW;
        plan->shape = YAMR_ROWS_WARP_PER_ROW;
        YAMR__PLAN_LANES_PER_ROW(plan) = (uint32_t)lanes;
        if (lane_rows) YAMR__PLAN_TOPK_SLOTS(plan) = 0;
        plan->blocks_per_row = 1;
        grid = (rows * lanes + (size_t)row->threads - 1) / (size_t)row->threads;
    } else {
        const size_t per_k = (size_t)row->topk.split_per_k * k;
        const size_t per_block = (size_t)row->topk.split_min > per_k ? (size_t)row->topk.split_min
                                                                     : per_k;
        /* one wave: the row's blocks a multiprocessor (the select kernel's with the most slots:
         * as many as their own bound lets stay resident) */
        const int resident =
            slots == most ? row->topk.min_blocks_most_slots : row->topk.split_blocks;
        /* rounded down: a grid of one wave, not one and a bit */
        const size_t want = (size_t)dev->multiprocessors * (size_t)resident / rows;
        const size_t fit = cols / per_block;
        size_t bpr = want < fit ? want : fit;
        if (bpr > YAMR__TOPK_MAX_BLOCKS_PER_ROW) bpr = YAMR__TOPK_MAX_BLOCKS_PER_ROW;
        if (bpr < 1) bpr = 1;
        /* a split of one-slot lists, merged by the row's last block a group of loads a warp
         * (YAMR__TOPK_REG_MERGE_GROUP): parts half as long where their lists still fit one
         * group a warp (H200: 2 x 70001 k8 15.0 -> 13.0 us, 1 x 140001 k16 14.0 -> 13.2; at
         * two groups a warp, longer parts: 1 x 2^20 k16 15.1 us against 18.7; a row of one
         * block stays one: 2 x 12000 k4 9.9 us against 12.1 in two) */
        if (slots == 1 && bpr > 1) {
            const size_t group =
                (size_t)YAMR__TOPK_REG_MERGE_GROUP * (size_t)(row->threads / dev->warp_size);
            const size_t half_fit = cols / (per_block / 2);
            const size_t more = want < half_fit ? want : half_fit;
            if (more > bpr && more <= group) bpr = more;
        }
        /* a split whose blocks count their own parts: one wave of fewer, longer parts */
        if (bpr > 1 && floor_mode(row, slots, cols, k, bpr) == YAMR__TOPK_FLOOR_OWN) {
            const size_t own =
                (size_t)dev->multiprocessors * (size_t)row->topk.own_split_blocks / rows;
            if (own < bpr) bpr = own > 1 ? own : 1;
        }
        plan->kernel = bpr > 1 ? YAMR_KERNEL_BLOCKS_PER_ROW : YAMR_KERNEL_BLOCK_PER_ROW;
        plan->shape = bpr > 1 ? YAMR_ROWS_BLOCKS_PER_ROW : YAMR_ROWS_BLOCK_PER_ROW;
        YAMR__PLAN_LANES_PER_ROW(plan) = 0;
        plan->blocks_per_row = (int)bpr;
        grid = rows * bpr;
    }
    YAMR__PLAN_TOPK_FLOOR(plan) = floor_mode(row, slots, cols, k, (size_t)plan->blocks_per_row);
    /* a warp's row (the warp select) seeds from its first loads where it is long for its slots:
     * the whole row's seed reads it twice, from memory where the rows resident at once outgrow
     * the L2; its first loads' seed flushes more candidates, in sorts of the slots' length */
    if (plan->kernel == YAMR_KERNEL_LANES_PER_ROW && YAMR__PLAN_TOPK_SLOTS(plan) &&
        row->topk.seed_first_bytes &&
        cols * elem_size >= (size_t)row->topk.seed_first_bytes * YAMR__PLAN_TOPK_SLOTS(plan))
        YAMR__PLAN_TOPK_FLOOR(plan) = YAMR__TOPK_SEED_FIRST;
    plan->grid_blocks = (unsigned)(grid < YAMR__TOPK_MAX_GRID ? grid : YAMR__TOPK_MAX_GRID);
}
