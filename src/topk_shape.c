/* SPDX-License-Identifier: MIT */
/* The GPU plan of a top-k call (src/topk.h); the kernels are hip_kernels/topk.hpp's. */
#include "topk.h"

/* Threads of a top-k block (YAMR__TOPK_THREADS in topk.hpp). */
#define YAMR__TOPK_BLOCK_THREADS 256
/* Rows of at most this many elements take a warp each; longer ones a block or several. */
#define YAMR__TOPK_WARP_COLS 4096
/* A block of a row split over several reads at least this many elements, and 32 per k. */
#define YAMR__TOPK_SPLIT_MIN 8192
/* The most blocks per row: a group of the merge kernel's appends (256 threads x 4). */
#define YAMR__TOPK_MAX_BLOCKS_PER_ROW 1024
/* Grid cap: the kernels stride over their rows. */
#define YAMR__TOPK_MAX_GRID ((size_t)1 << 20)

/* Slots per lane of the select kernel's lists, at most (yamr__topk_select_slots() in topk.hpp). */
#define YAMR__TOPK_SELECT_SLOTS 4

/* Blocks a split aims for per multiprocessor, all rows together: one wave of the kernel that
 * runs, as many as its launch bounds let stay resident (topk.hpp: YAMR__TOPK_MIN_BLOCKS for the
 * shared list, yamr__topk_select_min_blocks() for warp select). */
static size_t blocks_per_unit(unsigned slots)
{
    return slots == 0 ? 4 : slots <= 2 ? 3 : 2;
}

unsigned yamr__topk_select_slots(const yamr_device_info *dev, size_t k)
{
    unsigned q = 1;
    while ((size_t)q * (size_t)dev->warp_size < k) q *= 2;
    return q <= YAMR__TOPK_SELECT_SLOTS ? q : 0;
}

void yamr__topk_gpu_shape(const yamr_device_info *dev, size_t rows, size_t cols, size_t k,
                          size_t elem_size, yamr_plan *plan)
{
    size_t grid;
    unsigned slots = yamr__topk_select_slots(dev, k);
    plan->block_threads = YAMR__TOPK_BLOCK_THREADS;
    /* a rank is a key and a column in one word where both fit: 32-bit keys (elements of up to 4
     * bytes), columns below 2^32 - 1 (the bottom's complement) */
    plan->index_bits = elem_size <= 4 && cols < (size_t)UINT32_MAX ? 32 : 64;
    /* wide ranks of narrow keys: the select kernel only with the most slots (topk.hpp,
     * yamr__topk_slots_held) */
    if (slots > 0 && elem_size <= 4 && plan->index_bits == 64) slots = YAMR__TOPK_SELECT_SLOTS;
    plan->vector_loads = slots > 0;
    YAMR__PLAN_TOPK_SLOTS(plan) = slots;
    if (slots > 0 && cols <= YAMR__TOPK_WARP_COLS) {
        const size_t warps = YAMR__TOPK_BLOCK_THREADS / (size_t)dev->warp_size;
        plan->kernel = YAMR_KERNEL_LANES_PER_ROW;
        plan->shape = YAMR_ROWS_WARP_PER_ROW;
        YAMR__PLAN_LANES_PER_ROW(plan) = (uint32_t)dev->warp_size;
        plan->blocks_per_row = 1;
        grid = (rows + warps - 1) / warps;
    } else {
        const size_t per_block = YAMR__TOPK_SPLIT_MIN > 32 * k ? YAMR__TOPK_SPLIT_MIN : 32 * k;
        /* rounded down: a grid of one wave, not one and a bit */
        const size_t want = (size_t)dev->multiprocessors * blocks_per_unit(slots) / rows;
        const size_t fit = cols / per_block;
        size_t bpr = want < fit ? want : fit;
        if (bpr > YAMR__TOPK_MAX_BLOCKS_PER_ROW) bpr = YAMR__TOPK_MAX_BLOCKS_PER_ROW;
        if (bpr < 1) bpr = 1;
        plan->kernel = bpr > 1 ? YAMR_KERNEL_BLOCKS_PER_ROW : YAMR_KERNEL_BLOCK_PER_ROW;
        plan->shape = bpr > 1 ? YAMR_ROWS_BLOCKS_PER_ROW : YAMR_ROWS_BLOCK_PER_ROW;
        YAMR__PLAN_LANES_PER_ROW(plan) = 0;
        plan->blocks_per_row = (int)bpr;
        grid = rows * bpr;
    }
    plan->grid_blocks = (unsigned)(grid < YAMR__TOPK_MAX_GRID ? grid : YAMR__TOPK_MAX_GRID);
}
