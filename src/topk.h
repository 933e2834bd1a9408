/* SPDX-License-Identifier: MIT */
/*
 * Top-k of each row: the internal call shared by the entry points and the CPU backend (src/) and
 * the GPU launcher (hip_kernels/topk.hip, or gpu_none.c).
 *
 * Order: entry j of a row is position j of a stable sort of the row, largest first for
 * `largest`, smallest first otherwise (ties by the smaller index; -0.0 equals +0.0, each entry
 * keeps its own element's bits). Under YAMR_NAN_PROPAGATE NaNs rank before every number (for
 * both orders), among themselves by index; under YAMR_NAN_IGNORE they are skipped and a row
 * with fewer than k other elements fills its last entries with index -1 and
 * yamr__empty_value_bits(dtype).
 */
#ifndef YAMR_TOPK_H
#define YAMR_TOPK_H

#include <stddef.h>
#include <stdint.h>

#include "yamr_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    yamr_dtype dtype;
    int largest;           /* MAX/ARGMAX: the k largest first; MIN/ARGMIN: the k smallest first */
    int nan_ignore;
    const void *in;        /* rows x cols, row r at element r * ld; the context's memory */
    size_t rows, cols, ld; /* rows >= 1, 1 <= k <= cols <= ld */
    size_t k;
    void *values;          /* rows x k elements of dtype, row r's at r * k; the context's memory */
    int64_t *indices;      /* rows x k, likewise, or NULL */
    const yamr_plan *plan; /* what to launch (GPU: yamr__topk_gpu_shape()) */
    int synchronous;       /* GPU: wait on the stream before returning */
} yamr__topk_call;

/* GPU backend (hip_kernels/topk.hip; gpu_none.c without a GPU backend). */
yamr_status yamr__gpu_topk(yamr__gpu *gpu, const yamr__topk_call *call, char *err, size_t errlen);

/* A row split over several blocks takes at most this many: the merge kernel reads a position of
 * every block's list in one group of its appends (YAMR__TOPK_THREADS x YAMR__TOPK_GROUP_N,
 * hip_kernels/topk.hpp; topk.hip checks it). */
#define YAMR__TOPK_MAX_BLOCKS_PER_ROW 1024
/* Lane rows (yamr_topk_lane_kernel, hip_kernels/topk.hpp: a TOPK_SELECT plan of no slots) hold at
 * most this many elements a lane (a lane's candidates are one word's bits); a TOPK_SELECT row's
 * count is at most this. */
#define YAMR__TOPK_LANE_ELEMENTS 32
/* A row's part of a lane kernel's buffer: this many candidates a lane of the row (lanes are 2k at
 * least where the row has 2k vectors: a random row has about k + k/4, hip_kernels/topk.hpp). */
#define YAMR__TOPK_LANE_PART 4
/* The select kernel's register merge (hip_kernels/topk.hpp, yamr__topk_reg_merge_lists): the lists
 * of one slot a warp of a split row's last block loads at once; src/topk_shape.c halves the
 * parts of a split whose lists still fit one such group a warp. */
#define YAMR__TOPK_REG_MERGE_GROUP 8
/* Grid cap: the kernels stride over their rows. */
#define YAMR__TOPK_MAX_GRID ((size_t)1 << 20)

/* How a top-k kernel bounds its scan from below, the plan's YAMR__PLAN_TOPK_FLOOR: the shared-list
 * kernel's floor (hip_kernels/topk.hpp: NONE, OWN or ROW; COUNT1 and COUNT2 are the launches that
 * count a whole row's keys before a ROW scan), or the select kernel's seed for a warp's row (NONE:
 * from the whole row's group maxima; SEED_FIRST: from each lane's first loads). */
typedef enum {
    YAMR__TOPK_FLOOR_NONE,   /* the scan's threshold starts at the seed */
    YAMR__TOPK_FLOOR_OWN,    /* each block counts its own part first, in the same launch */
    YAMR__TOPK_FLOOR_COUNT1, /* each block adds its part's level-1 counts to its row's; no scan */
    YAMR__TOPK_FLOOR_COUNT2, /* each block adds its part's level-2 counts to its row's; no scan */
    YAMR__TOPK_FLOOR_ROW,    /* each block takes the floor from its row's counts */
    YAMR__TOPK_SEED_FIRST    /* a warp's row: the seed from its lanes' first loads, one read */
} yamr__topk_floor_mode;
/* Positions of a row sampled for the guess of the bin to refine (whole rows' counts); shorter
 * rows count each block's own part. */
#define YAMR__TOPK_FLOOR_SAMPLE 4096

/*
 * The GPU plan of a top-k call (src/topk_shape.c, pure: tests call it with made-up devices):
 * the policy row (YAMR__PLAN_POLICY: the family's TOPK_SELECT row where k fits a warp's list
 * of its most slots, else its TOPK_LIST row, src/policy.h) and, from that row's values, the
 * device's facts, the shape and k: plan->kernel, blocks_per_row, grid_blocks, block_threads,
 * index_bits, vector_loads, YAMR__PLAN_TOPK_SLOTS and YAMR__PLAN_TOPK_FLOOR. plan->call, op,
 * dtype, rows, cols and the rest are the caller's.
 */
void yamr__topk_gpu_shape(const yamr_device_info *dev, size_t rows, size_t cols, size_t k,
                          size_t elem_size, yamr_plan *plan);
/* Slots per lane of the select kernel's warp lists for k (a power of two), or 0 where k needs
 * more than the family's TOPK_SELECT row allows (the shared-list kernel runs). */
unsigned yamr__topk_select_slots(const yamr_device_info *dev, size_t k);

#ifdef __cplusplus
}
#endif

#endif /* YAMR_TOPK_H */
