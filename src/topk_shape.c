/* The GPU plan of a top-k call (src/topk.h). */
#include "topk.h"

/* Threads of a top-k block. */
#define YAMR__TOPK_BLOCK_THREADS 256
/* A block of a row split over several reads at least this many elements, and 32 per k. */
#define YAMR__TOPK_SPLIT_MIN 8192
/* Blocks a split aims for per multiprocessor, all rows together; the most per row. */
#define YAMR__TOPK_BLOCKS_PER_UNIT 4
#define YAMR__TOPK_MAX_BLOCKS_PER_ROW 1024

void yamr__topk_gpu_shape(const yamr_device_info *dev, size_t rows, size_t cols, size_t k,
                          size_t elem_size, yamr_plan *plan)
{
    (void)elem_size;
    size_t per_block = YAMR__TOPK_SPLIT_MIN > 32 * k ? YAMR__TOPK_SPLIT_MIN : 32 * k;
    size_t want = ((size_t)dev->multiprocessors * YAMR__TOPK_BLOCKS_PER_UNIT + rows - 1) / rows;
    size_t fit = cols / per_block;
    size_t bpr = want < fit ? want : fit;
    if (bpr > YAMR__TOPK_MAX_BLOCKS_PER_ROW) bpr = YAMR__TOPK_MAX_BLOCKS_PER_ROW;
    if (bpr < 1) bpr = 1;
    plan->kernel = bpr > 1 ? YAMR_KERNEL_BLOCKS_PER_ROW : YAMR_KERNEL_BLOCK_PER_ROW;
    plan->shape = bpr > 1 ? YAMR_ROWS_BLOCKS_PER_ROW : YAMR_ROWS_BLOCK_PER_ROW;
    plan->blocks_per_row = (int)bpr;
    plan->block_threads = YAMR__TOPK_BLOCK_THREADS;
    plan->index_bits = cols <= (size_t)INT32_MAX ? 32 : 64;
    size_t grid = rows * bpr;
    plan->grid_blocks = grid < ((size_t)1 << 20) ? (unsigned)grid : 1u << 20;
}
