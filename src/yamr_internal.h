/* SPDX-License-Identifier: MIT */
/* Internal declarations shared by the host code (src/) and the device launchers (hip_kernels/). */
#ifndef YAMR_INTERNAL_H
#define YAMR_INTERNAL_H

#include <stdint.h>

#include "policy.h"
#include "yamr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Variant registry (variants.c): one row per single-block algorithm. ---- */

enum {
    YAMR__RACY = 1u << 0,           /* correctness not established anywhere: never AUTO */
    YAMR__NEEDS_LOCKSTEP = 1u << 1, /* correct only where a warp's lanes run in lockstep */
    YAMR__F32_MAX_ONLY = 1u << 2,   /* the seed kernel: float32 MAX, nothing else */
    YAMR__ONE_BLOCK_FIRST = 1u << 3, /* AUTO's pick, ahead of the order, for a small call that
                                        runs one block (yamr__select_variant); libyamr holds
                                        its instances for those calls */
    YAMR__GRID_WIDE = 1u << 4,      /* libyamr holds its instances for every grid-wide call */
    YAMR__LAB_ONLY = 1u << 5        /* libyamr holds no instance: only the lab (lab/) runs it */
};

/* Warp widths a variant is instantiated for, as a bit mask. */
#define YAMR__W32 32u
#define YAMR__W64 64u

/*
 * The variant table: X(id, name, warp widths, flags, correctness) per single-block algorithm, in
 * AUTO's order of preference (grid-wide calls timed on an H100, docs/variants.md, fastest
 * first), but for calls that run one block, where a ONE_BLOCK_FIRST row goes first; RACY rows
 * come last and are never picked. variants.c makes the registry of it and the
 * launchers (hip_kernels/block_merge.hpp, yamr__with_block_variant) their one switch from a
 * run-time variant to a block algorithm. A new variant is a row here, its block algorithm (one
 * file under hip_kernels/block/) and its enum value in yamr.h.
 *
 * What libyamr runs of each (the flags; include/yamr.h says the same to users): a GRID_WIDE row
 * every call; a ONE_BLOCK_FIRST row the calls AUTO gives it (one slot, elements of at most 4
 * bytes, one block of the split kernel); every row but a LAB_ONLY one, any other call of at most
 * max_block_threads elements as one block of a thread per element (the race lab's kernel,
 * YAMR_KERNEL_SINGLE_BLOCK); nothing else (YAMR_ERROR_UNSUPPORTED). The seed kernel (`racy`)
 * and the probed instances live in the lab (lab/race/).
 */
#define YAMR__VARIANT_TABLE(X)                                                                 \
    X(YAMR_VARIANT_WARP_SHUFFLE, "warp_shuffle", YAMR__W32 | YAMR__W64, YAMR__GRID_WIDE,       \
      "shuffles move values between lanes of one warp; barriers order the per-warp results")   \
    X(YAMR_VARIANT_ATOMIC, "atomic", YAMR__W32 | YAMR__W64, YAMR__ONE_BLOCK_FIRST,             \
      "atomic max on an order-preserving key is exact whatever the interleaving")              \
    X(YAMR_VARIANT_SHARED_TREE, "shared_tree", YAMR__W32 | YAMR__W64, 0,                       \
      "a barrier (or a warp barrier in the last warp) separates every tree level")             \
    X(YAMR_VARIANT_RACY_ITS, "racy_its", YAMR__W32 | YAMR__W64, 0,                             \
      "racy loop, then a block-wide vote after a barrier retries until no thread holds a "    \
      "larger key")                                                                            \
    X(YAMR_VARIANT_RACY_VOLATILE, "racy_volatile", YAMR__W32 | YAMR__W64, YAMR__RACY,          \
      "wrong in 2-9% of multi-warp blocks on an H100: a stale store lands after another "     \
      "warp's last check")                                                                     \
    X(YAMR_VARIANT_RACY, "racy", YAMR__W32 | YAMR__W64,                                        \
      YAMR__RACY | YAMR__F32_MAX_ONLY | YAMR__LAB_ONLY,                                        \
      "the seed kernel as written: the compiler keeps the shared value in a register; wrong "  \
      "in 97-100%")

typedef struct {
    yamr_variant id;
    const char *name;
    unsigned warp_widths; /* bit mask of the warp widths it is instantiated for: YAMR__W32/W64 */
    unsigned flags;
    const char *correctness; /* one line: why it is (or is not) correct, and where */
} yamr__variant_info;

/* Threads one block of a thread per element launches for n elements on warps of warp_size lanes
 * (YAMR_KERNEL_SINGLE_BLOCK and the race lab): n for the racy loops (the seed's shape), a power of
 * two for shared_tree's halving tree, whole warps elsewhere. */
static inline int yamr__single_block_threads(yamr_variant v, int n, int warp_size)
{
    switch (v) {
    case YAMR_VARIANT_RACY:
    case YAMR_VARIANT_RACY_VOLATILE:
    case YAMR_VARIANT_RACY_ITS: return n;
    case YAMR_VARIANT_SHARED_TREE: {
        int t = warp_size;
        while (t < n) t *= 2;
        return t;
    }
    default: return (n + warp_size - 1) / warp_size * warp_size;
    }
}

/* The rows of YAMR__VARIANT_TABLE, in its order. */
extern const yamr__variant_info yamr__variants[];
extern const int yamr__variant_count;

const yamr__variant_info *yamr__variant_lookup(yamr_variant v);
/* Whether `v` can run `op` on `dtype` on a device with these facts (CPU: never). */
int yamr__variant_runs_on(const yamr__variant_info *v, const yamr_device_info *dev, yamr_op op,
                          yamr_dtype dtype);
/* The variant AUTO picks for these facts, and why, or NULL when none is established there.
 * one_block: the call is one of those that run one block where a ONE_BLOCK_FIRST row is the
 * faster (src/plan.c says which). */
const yamr__variant_info *yamr__select_variant(const yamr_device_info *dev, yamr_op op,
                                               yamr_dtype dtype, int one_block,
                                               const char **reason);

/* ---- The plan's tuning, in yamr_plan.internal (not API: yamr_plan_describe() tells it). ---- */
/* These are the GPU kernels'; a YAMR_KERNEL_CPU plan holds the CPU's (src/cpu/cpu_backend.h). */

/* LANES_PER_ROW and SEGMENTS: lanes that reduce one row (segment); else 0. */
#define YAMR__PLAN_LANES_PER_ROW(plan) ((plan)->internal[0])
/* BLOCKS_PER_ROW grid-wide calls: 16-byte vectors a thread loads at once (which split kernel
 * instance runs); else 0. */
#define YAMR__PLAN_CHUNK_VECTORS(plan) ((plan)->internal[1])
/* Top-k calls: how the shared-list kernel bounds its scan from below (a yamr__topk_floor_mode of
 * src/topk.h: NONE, OWN or ROW). */
#define YAMR__PLAN_TOPK_FLOOR(plan) ((plan)->internal[1])
/* Top-k calls: slots per lane of each warp's own list (the select kernel, hip_kernels/topk.hpp),
 * or 0 for none: lane rows (a TOPK_SELECT row's plan) or the shared list of a block (a TOPK_LIST
 * row's, in rounds of its capacity). */
#define YAMR__PLAN_TOPK_SLOTS(plan) ((plan)->internal[2])
/* GPU plans: the policy row the call runs (src/policy.h: a yamr__policy_id; 0 for a plan made
 * without one): the launchers take the kernel instance's constants from it. A CPU plan's words
 * are the CPU backend's (src/cpu/cpu_backend.h); its row is a CPU row (cpu_topk for a top-k
 * call, else cpu): yamr__plan_policy(). */
#define YAMR__PLAN_POLICY(plan) ((plan)->internal[3])
static inline int yamr__plan_policy(const yamr_plan *plan)
{
    if (plan->kernel == YAMR_KERNEL_CPU)
        return plan->call == YAMR_CALL_TOPK ? (int)YAMR__POLICY_cpu_topk : (int)YAMR__POLICY_cpu;
    return (int)YAMR__PLAN_POLICY(plan);
}

/* ---- The reduction result every backend produces. ---- */

typedef struct {
    int64_t index;       /* first index of the answer; -1 when a float input was all NaN
                            under YAMR_NAN_IGNORE */
    uint64_t value_bits; /* the answer's element (the first element when index is -1), in the
                            low bytes */
} yamr__result;

/* Whether the dtype is a floating-point type (has NaN). */
int yamr__dtype_is_float(yamr_dtype t);

/* The CPU backend: cpu/cpu_backend.h. */

/* ---- GPU backend (hip_kernels/, or gpu_none.c when built without one). ---- */

typedef struct yamr__gpu yamr__gpu;

/*
 * What stays outside the policy table (src/policy.h, which says how each kernel shape runs on
 * each family): the threads every kernel is written for, and the workspace a context owns.
 */

/* Threads per block of every kernel but the race lab's single-block ones. */
#define YAMR__BLOCK_THREADS 256
/* The largest grid of a grid-wide call, in blocks per multiprocessor (the split workspace holds
 * that many partials). */
#define YAMR__GRID_MAX_BLOCKS_PER_UNIT 16

typedef struct {
    const yamr_plan *plan; /* kernel GRID or SEED; its variant is never AUTO */
    yamr_dtype dtype;
    int is_min;     /* the op of a single-slot call */
    int minmax;     /* two slots: 0 is MAX, 1 is MIN */
    int nan_ignore;
    const void *in; /* device memory */
    size_t n;       /* >= 1; <= max_block_threads for `racy` */
    /* Asynchronous calls: where each slot's value and index go (device memory; an index may be
     * NULL). Synchronous calls: value_out[0] is NULL and the results come back in res[]. */
    void *value_out[2];
    int64_t *index_out[2];
} yamr__gpu_call;

/* Each returns YAMR_SUCCESS or an error, with the runtime's message in err[errlen]. */
yamr_status yamr__gpu_open(int device, yamr__gpu **gpu, yamr_device_info *info, char *err,
                           size_t errlen);
void yamr__gpu_close(yamr__gpu *gpu);
yamr_status yamr__gpu_alloc(yamr__gpu *gpu, size_t bytes, void **ptr, char *err, size_t errlen);
yamr_status yamr__gpu_free(yamr__gpu *gpu, void *ptr, char *err, size_t errlen);
/* to_device: host src to device dst; else device src to host dst. */
yamr_status yamr__gpu_copy(yamr__gpu *gpu, void *dst, const void *src, size_t bytes, int to_device,
                           char *err, size_t errlen);
/* res[] holds one result per slot (synchronous calls only). */
yamr_status yamr__gpu_reduce(yamr__gpu *gpu, const yamr__gpu_call *call, yamr__result *res,
                             char *err, size_t errlen);
yamr_status yamr__gpu_set_stream(yamr__gpu *gpu, void *stream);
/* At yamr_create(): the occupancy of every split kernel instance of a grid of several blocks. */
yamr_status yamr__gpu_ask_occupancy(yamr__gpu *gpu, char *err, size_t errlen);
/* Blocks of a grid-wide call's split kernel for (dtype, variant, slots, index bits: 32 or 64)
 * that fit on one multiprocessor, as asked of the runtime at yamr_create()
 * (yamr__gpu_ask_occupancy); YAMR_ERROR_UNSUPPORTED where the library holds no such instance.
 * Asks nothing at call time. */
yamr_status yamr__gpu_grid_blocks_per_unit(yamr__gpu *gpu, yamr_dtype dtype, yamr_variant variant,
                                           int slots, int index_bits, int *blocks, char *err,
                                           size_t errlen);
/* Whether this build holds the kernel instances that policy row `policy` runs for dtype's
 * accumulator `acc` (YAMR__ACC_*): GRID, warp_shuffle's at both index widths and one block of
 * each chunk; SINGLE_BLOCK, the row; the batched shapes, the row's kernel. -1 in a build with no
 * GPU backend. Launches nothing (test/test_plan.c asks it for every family's rows). */
int yamr__gpu_policy_held(int policy, yamr_dtype dtype, int acc);

/* ---- Batched reductions (rows.c; hip_kernels/rows_reduce.hip). ---- */

/* Dispatch thresholds: which shape a batched call takes (src/plan.c); the policy row of the
 * shape then says how it runs. */
/* Rows no longer than this many elements per lane of a warp get a warp each (the LANES rows'
 * warp_count covers them: test/test_plan.c checks it). */
#define YAMR__ROWS_WARP_MAX_PER_LANE 8
/* Grid cap of the grid-striding batched kernels (lanes and block per row, segments). */
#define YAMR__ROWS_MAX_GRID ((size_t)1 << 20)
/* Rows or segments are "too few to fill the device" below this many per multiprocessor. */
#define YAMR__ROWS_FEW_PER_UNIT 2
/* A split block reads at least this many elements (so 2 * this is the shortest split row). */
#define YAMR__ROWS_SPLIT_MIN_PER_BLOCK 2048
/* Blocks a split aims for per multiprocessor, all rows together. */
#define YAMR__ROWS_SPLIT_BLOCKS_PER_UNIT 4
/* The split workspace a GPU context owns: a counter per row, a partial result per block. */
#define YAMR__ROWS_SPLIT_MAX_ROWS 4096
#define YAMR__ROWS_SPLIT_MAX_BLOCKS_PER_ROW 256
#define YAMR__ROWS_SPLIT_MAX_PARTIALS 16384 /* rows x blocks per row, all rows together */
/* The largest partial a split block leaves (min+max: two keys, indices and elements), in 32-bit
 * words; each word travels in a 64-bit workspace slot with its validity (split_reduce.hpp). */
#define YAMR__SPLIT_PARTIAL_WORDS 12

/* What an empty segment yields (yamr.h): index -1 and the canonical quiet NaN of a float dtype,
 * 0 for an integer dtype. */
#define YAMR__QUIET_NAN_F32 0x7fc00000u
#define YAMR__QUIET_NAN_F64 0x7ff8000000000000ull
#define YAMR__QUIET_NAN_F16 0x7e00u
#define YAMR__QUIET_NAN_BF16 0x7fc0u
/* Inline beside its constants: the CPU backend (src/cpu/) and the entry points (rows.c) both
 * take it, and neither may import it from the other (the backend sits below the entry points). */
static inline uint64_t yamr__empty_value_bits(yamr_dtype t)
{
    switch (t) {
    case YAMR_DTYPE_F32: return YAMR__QUIET_NAN_F32;
    case YAMR_DTYPE_F64: return YAMR__QUIET_NAN_F64;
    case YAMR_DTYPE_F16: return YAMR__QUIET_NAN_F16;
    case YAMR_DTYPE_BF16: return YAMR__QUIET_NAN_BF16;
    default: return 0;
    }
}

/*
 * The kernel shape for `rows` rows of `cols` elements on a device with these facts (plan.c; pure:
 * the tests call it with made-up devices). Warp per row when a row is at most
 * YAMR__ROWS_WARP_MAX_PER_LANE elements per lane; several blocks per row when the rows are fewer
 * than YAMR__ROWS_FEW_PER_UNIT per multiprocessor, at most YAMR__ROWS_SPLIT_MAX_ROWS, and long
 * enough for two blocks; else a block per row.
 */
yamr_rows_shape yamr__rows_shape(size_t rows, size_t cols, int multiprocessors, int warp_size);
/* Blocks per row of a BLOCKS_PER_ROW shape (>= 2, within the workspace); 1 for other shapes.
 * cols == 0 means "unknown" (segments): only the row count and the workspace decide. */
int yamr__rows_blocks_per_row(size_t rows, size_t cols, int multiprocessors);
/* The shape of a segmented call: BLOCKS_PER_ROW for few segments, else WARP_PER_ROW (the
 * segment kernel, which hands long segments to the whole block). */
yamr_rows_shape yamr__segments_shape(size_t segments, int multiprocessors);

typedef enum { YAMR__BATCH_ROWS = 0, YAMR__BATCH_SEGMENTS, YAMR__BATCH_SOFTMAX } yamr__batch_kind;

/* One batched call for the GPU backend. Every pointer is device memory. */
typedef struct {
    yamr__batch_kind kind;
    yamr_dtype dtype;
    int is_min;
    int nan_ignore;
    const void *in;
    size_t rows;              /* rows, or segments */
    size_t cols, ld;          /* rows and softmax */
    const int64_t *offsets;   /* segments: rows + 1 entries */
    const yamr_plan *plan;    /* what to launch (plan.c) */
    void *values;             /* reductions: values; softmax: row_max */
    void *second;             /* reductions: int64_t indices or NULL; softmax: row_sum */
    int synchronous;          /* wait on the stream before returning */
} yamr__gpu_batch;

yamr_status yamr__gpu_rows(yamr__gpu *gpu, const yamr__gpu_batch *call, char *err, size_t errlen);
yamr_status yamr__gpu_segments(yamr__gpu *gpu, const yamr__gpu_batch *call, char *err,
                               size_t errlen);
yamr_status yamr__gpu_softmax_stats(yamr__gpu *gpu, const yamr__gpu_batch *call, char *err,
                                    size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* YAMR_INTERNAL_H */
