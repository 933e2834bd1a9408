/* SPDX-License-Identifier: MIT */
/*
 * The policy table: how each kernel shape runs on each architecture family, as data (the model:
 * CUB's per-architecture policies in cub/device/dispatch/tuning/tuning_reduce.cuh, rocPRIM's
 * per-target configs). The planner (src/plan.c) picks a row for a call and names it in the plan
 * (YAMR__PLAN_POLICY); the launchers (hip_kernels/) look the kernel instance up from that row,
 * whose constants are the kernel templates' arguments (hip_kernels/policy.hpp). Nothing after the
 * plan decides again.
 *
 * A row is keyed by (families, element size, accumulator, shape); the first row in table order
 * whose key matches a call is its row (esize 0 and YAMR__ACC_ANY match any). Several families
 * share a row where they share its values: a kernel instance is made per distinct set of
 * constants, so a row of its own for a family costs the library new instances only where its
 * values differ.
 */
#ifndef YAMR_POLICY_H
#define YAMR_POLICY_H

#include "yamr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Architecture families: what a context's device facts select (yamr__device_family). ---- */

typedef enum {
    YAMR__FAMILY_CPU = 0,
    YAMR__FAMILY_SM70, /* NVIDIA compute capability 7.x (and older): Volta, Turing */
    YAMR__FAMILY_SM80, /* 8.x: Ampere, Ada */
    YAMR__FAMILY_SM90, /* 9.0 and later: Hopper, Blackwell */
    YAMR__FAMILY_CDNA, /* AMD with 64-lane wavefronts: gfx9 (GCN 5, CDNA 1-3), or any wave64 build */
    YAMR__FAMILY_RDNA, /* AMD with 32-lane wavefronts: gfx10-12 (RDNA 1-4) */
    YAMR__FAMILY_COUNT
} yamr__family;

/* X(family, name, vendor, warp width, what the rows rest on) */
#define YAMR__FAMILY_TABLE(X)                                                                  \
    X(YAMR__FAMILY_CPU, "cpu", YAMR_VENDOR_CPU, 1, "the host's cores (src/cpu/cpu_backend.h)") \
    X(YAMR__FAMILY_SM70, "sm_70", YAMR_VENDOR_NVIDIA, 32,                                      \
      "derived, not measured: sm_90's rows, since an SM has the same 64K 32-bit registers "    \
      "and 2048 threads (sm_75: 1024, which YAMR_MIN_BLOCKS caps), so the same bounds give "   \
      "the same registers a thread; 8 vectors in flight a thread cover 900 GB/s as they do "  \
      "3.35 TB/s")                                                                             \
    X(YAMR__FAMILY_SM80, "sm_80", YAMR_VENDOR_NVIDIA, 32,                                      \
      "derived, not measured: sm_90's rows, since an SM has the same 64K 32-bit registers "    \
      "and 2048 threads (sm_86/89: 1536, which YAMR_MIN_BLOCKS caps), so the same bounds "     \
      "give the same registers a thread")                                                      \
    X(YAMR__FAMILY_SM90, "sm_90", YAMR_VENDOR_NVIDIA, 32,                                      \
      "measured on an H100 and H200 (docs/performance.md, \"Tuning constants\")")             \
    X(YAMR__FAMILY_CDNA, "cdna_wave64", YAMR_VENDOR_AMD, 64,                                   \
      "derived, not measured: 64-lane waves, 4 SIMDs a CU, 64 KiB LDS a CU, 8 MB L2 a die "    \
      "(MI250X), 4 MB an XCD (MI300X)")                                                        \
    X(YAMR__FAMILY_RDNA, "rdna_wave32", YAMR_VENDOR_AMD, 32,                                   \
      "derived, not measured: 32-lane waves, 2 SIMD32s a CU, 64 KiB LDS a CU, 4-6 MB L2")

#define YAMR__FAM(f) (1u << (f))
#define YAMR__NV (YAMR__FAM(YAMR__FAMILY_SM70) | YAMR__FAM(YAMR__FAMILY_SM80) | YAMR__FAM(YAMR__FAMILY_SM90))
#define YAMR__CDNA YAMR__FAM(YAMR__FAMILY_CDNA)
#define YAMR__RDNA YAMR__FAM(YAMR__FAMILY_RDNA)
#define YAMR__CPU YAMR__FAM(YAMR__FAMILY_CPU)

/* ---- The key's other parts, and what a row says of its kernel. ---- */

/* The accumulator: one best (max, min, argmax, argmin), min+max, softmax statistics, or the k
 * best ranks of a top-k call (src/topk.h). */
enum { YAMR__ACC_ANY = 0, YAMR__ACC_BEST, YAMR__ACC_MINMAX, YAMR__ACC_SOFTMAX, YAMR__ACC_TOPK };

/* The kernel shapes (one kernel template each; hip_kernels/). */
enum {
    YAMR__SHAPE_CPU = 0,      /* the CPU backend */
    YAMR__SHAPE_GRID,         /* a grid-wide call: the split kernel over one row, or one block */
    YAMR__SHAPE_SINGLE_BLOCK, /* one block of a thread per element (block_reduce.hpp) */
    YAMR__SHAPE_LANES,        /* rows: a group of lanes, or a warp, per row */
    YAMR__SHAPE_BLOCK,        /* rows: a block per row */
    YAMR__SHAPE_SPLIT,        /* rows or segments: several blocks per row, the last merges */
    YAMR__SHAPE_SEGMENTS,     /* segments: a group, a warp or the block per segment */
    YAMR__SHAPE_TOPK_SELECT,  /* top-k, k up to `slots` warps' width: each warp its own list in
                                 registers (yamr_topk_select_kernel), a warp or blocks per row */
    YAMR__SHAPE_TOPK_LIST,    /* top-k, larger k: a block's list in shared memory, in rounds of
                                 its capacity (yamr_topk_kernel), a block or blocks per row */
    YAMR__SHAPE_COUNT
};

/* Index width rules: FIT, 32 bits where every index and the scan's furthest offset fit an int
 * (plan.c, index_bits_for), else 64; TEAM, 32 in the group and warp teams (short segments), 64
 * in the block team; RANK (top-k), one-word ranks (a 32-bit key and column) where the keys are 32
 * bits and every column is below 2^32 - 1 (topk_shape.c), else a 64-bit key and column. */
enum { YAMR__INDEX_32 = 0, YAMR__INDEX_64, YAMR__INDEX_FIT, YAMR__INDEX_TEAM, YAMR__INDEX_RANK };
/* How the threads' results meet: shuffles within a group or warp; the block layer; the block
 * layer, then the last block of a row merges the partials (split_reduce.hpp); TEAM: by the
 * team a segment takes; TOPK: a team's sorted list (a block's warps merge theirs pairwise), and
 * a row split over several blocks is merged by yamr_topk_merge_kernel, a block per row (or
 * yamr_topk_place_kernel, several, under a floor of the row's counts). */
enum { YAMR__MERGE_NONE = 0, YAMR__MERGE_WARP, YAMR__MERGE_BLOCK, YAMR__MERGE_LAST_BLOCK,
       YAMR__MERGE_TEAM, YAMR__MERGE_TOPK };
/* How a synchronous call learns that it is done: ANSWER, its answer in marked words of mapped
 * host memory that the host polls (acc_best.hpp); SLOT, mapped result slots read after a stream
 * synchronize; STREAM, a stream synchronize (the outputs are the caller's device memory). An
 * asynchronous call writes the caller's device memory and returns at the launch. */
enum { YAMR__DONE_HOST = 0, YAMR__DONE_ANSWER, YAMR__DONE_SLOT, YAMR__DONE_STREAM };

/*
 * One row. What each field means by shape (0 where it means nothing):
 *  - threads: per block (every GPU kernel is written for YAMR__BLOCK_THREADS; a launcher
 *    refuses to compile another value).
 *  - vectors: 16-byte vectors a thread loads at once (the scan's Unroll): GRID's chunk; BLOCK,
 *    SPLIT and the block team of SEGMENTS.
 *  - vectors_one_block: GRID: the chunk of a call that fits one block at it but not at `vectors`
 *    (no second block, no last-block merge).
 *  - vectors_spread: GRID: a thread's vectors when a grid of a few one-chunk blocks spreads over
 *    more multiprocessors, up to a warp's width of blocks.
 *  - lanes, count: LANES and SEGMENTS: a row (segment) of at most lanes * count elements takes a
 *    group of `lanes` lanes, `count` elements each; warp_count: elements a lane of a whole warp
 *    takes (LANES: rows up to warp_count * W take the warp; SEGMENTS: longer segments take the
 *    block).
 *  - min_blocks, min_blocks_one_block, min_blocks_wide: blocks per multiprocessor the registers
 *    are bounded for (__launch_bounds__' second argument through YAMR_MIN_BLOCKS; 0: no bound;
 *    HIP reads it as waves per SIMD): the 32-bit-index instance (GRID: the split one), GRID's
 *    one-block instances, the 64-bit-index instance.
 *  - block: the block algorithm, YAMR_VARIANT_AUTO for the plan's variant (AUTO's pick from
 *    the variant table, or the context's setting).
 *  - top-k (hip_kernels/topk.hpp): TOPK_SELECT's vectors are the select scan's 16-byte vectors a
 *    thread loads at once, its min_blocks the bound of the instances with fewer than the most
 *    slots; TOPK_LIST's count is the positions a thread loads at once (whole groups of
 *    YAMR__TOPK_GROUP_N appends), its min_blocks its bound; the rest is `topk`'s.
 */

/* A top-k row's own values (0 in every other row). */
typedef struct {
    int slots;                 /* TOPK_SELECT: slots per lane of a warp's list at most: k up to
                                  slots warps' width takes the select kernel */
    int min_blocks_most_slots; /* TOPK_SELECT: the bound of the instance with the most slots */
    int scan_copies;           /* TOPK_SELECT: 2, the select scan written out once for a warp per
                                  row and once for a block's part (each with its lanes a
                                  constant), or 1; a device pass before sm_80 takes 1
                                  (yamr__topk_scan_copies) */
    int warp_bytes;            /* TOPK_SELECT: rows of at most this many bytes take a warp */
    int lane_k;                /* TOPK_SELECT: k up to this takes lane rows where a row needs a
                                  warp's lanes or fewer, at `count` elements a lane
                                  (YAMR__TOPK_LANE_ELEMENTS at most; hip_kernels/topk.hpp) */
    int split_min, split_per_k; /* a block of a row split over several reads at least split_min
                                   elements and split_per_k per k */
    int split_blocks;          /* a row split over several blocks: as many blocks as this many a
                                  multiprocessor fill (one wave), for every instance but the select
                                  kernel's with the most slots (min_blocks_most_slots) */
    int floor_ratio;           /* TOPK_LIST: a floor (src/topk.h) where a row holds this many
                                  times k elements or more (shorter: the scan is short anyway) */
    int floor_own_blocks;      /* TOPK_LIST: rows split over at most this many blocks count each
                                  block's own part (in the L2), more count the whole row first */
    int own_split_blocks;      /* TOPK_LIST: a split whose blocks count their own parts fills one
                                  wave of this many blocks a multiprocessor (split_blocks at most:
                                  fewer, longer parts) */
    int seed_first_bytes;      /* TOPK_SELECT: a warp's row of at least this many bytes a slot
                                  seeds from its lanes' first loads (one read of the row), a
                                  shorter one from the whole row (two); 0: always the whole row */
    int lane_half_blocks;      /* TOPK_SELECT: the bound of the lane rows of at most half the
                                  row's count elements a lane (fewer registers); the row's own
                                  (min_blocks) bounds lane rows of more */
} yamr__topk_tuning;
#define YAMR__TOPK(slots, mb_most, copies, warp_bytes, lane_k, split_min, split_per_k,         \
                   split_blocks, floor_ratio, floor_own_blocks, own_split_blocks,              \
                   seed_first_bytes, lane_half_blocks)                                         \
    {slots, mb_most, copies, warp_bytes, lane_k, split_min, split_per_k, split_blocks,         \
     floor_ratio, floor_own_blocks, own_split_blocks, seed_first_bytes, lane_half_blocks}
#define YAMR__NO_TOPK YAMR__TOPK(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

typedef struct {
    const char *name;
    unsigned families; /* YAMR__FAM(family) bits */
    int esize;         /* element bytes it serves: 2, 4, 8; 0: any */
    int acc;           /* YAMR__ACC_* */
    int shape;         /* YAMR__SHAPE_* */
    yamr_variant block;
    int threads;
    int vectors, vectors_one_block, vectors_spread;
    int lanes, count, warp_count;
    int min_blocks, min_blocks_one_block, min_blocks_wide;
    int index; /* YAMR__INDEX_* */
    int merge; /* YAMR__MERGE_* */
    int done;  /* YAMR__DONE_* */
    yamr__topk_tuning topk;
    const char *reason; /* one line: the measurement that set it, or the facts it is derived from */
} yamr__policy;

/* One helper per shape: the row's key, then its values in the order the shape reads them. The
 * generic X(id, families, esize, acc, shape, block, threads, vectors, vectors_one_block,
 * vectors_spread, lanes, count, warp_count, min_blocks, min_blocks_one_block, min_blocks_wide,
 * index, merge, done, topk, reason) is what the table's users see. */
#define YAMR__ROW_GRID(X, id, fam, esize, acc, threads, vectors, one_block, spread, mb,       \
                       mb_one_block, mb_wide, why)                                            \
    X(id, fam, esize, acc, YAMR__SHAPE_GRID, YAMR_VARIANT_AUTO, threads, vectors, one_block,   \
      spread, 0, 0, 0, mb, mb_one_block, mb_wide, YAMR__INDEX_FIT, YAMR__MERGE_LAST_BLOCK,     \
      YAMR__DONE_ANSWER, YAMR__NO_TOPK, why)
#define YAMR__ROW_SINGLE_BLOCK(X, id, fam, why)                                                \
    X(id, fam, 0, YAMR__ACC_ANY, YAMR__SHAPE_SINGLE_BLOCK, YAMR_VARIANT_AUTO, 0, 0, 0, 0, 0, 0, \
      0, 0, 0, 0, YAMR__INDEX_32, YAMR__MERGE_BLOCK, YAMR__DONE_SLOT, YAMR__NO_TOPK, why)
#define YAMR__ROW_LANES(X, id, fam, esize, threads, lanes, count, warp_count, mb, why)        \
    X(id, fam, esize, YAMR__ACC_ANY, YAMR__SHAPE_LANES, YAMR_VARIANT_WARP_SHUFFLE, threads, 0, \
      0, 0, lanes, count, warp_count, mb, 0, 0, YAMR__INDEX_32, YAMR__MERGE_WARP,              \
      YAMR__DONE_STREAM, YAMR__NO_TOPK, why)
#define YAMR__ROW_BLOCK(X, id, fam, threads, vectors, mb, mb_wide, why)                        \
    X(id, fam, 0, YAMR__ACC_ANY, YAMR__SHAPE_BLOCK, YAMR_VARIANT_WARP_SHUFFLE, threads,        \
      vectors, 0, 0, 0, 0, 0, mb, 0, mb_wide, YAMR__INDEX_FIT, YAMR__MERGE_BLOCK,              \
      YAMR__DONE_STREAM, YAMR__NO_TOPK, why)
#define YAMR__ROW_SPLIT(X, id, fam, threads, vectors, mb_wide, why)                            \
    X(id, fam, 0, YAMR__ACC_ANY, YAMR__SHAPE_SPLIT, YAMR_VARIANT_WARP_SHUFFLE, threads,        \
      vectors, 0, 0, 0, 0, 0, 0, 0, mb_wide, YAMR__INDEX_64, YAMR__MERGE_LAST_BLOCK,           \
      YAMR__DONE_STREAM, YAMR__NO_TOPK, why)
#define YAMR__ROW_SEGMENTS(X, id, fam, esize, threads, lanes, count, warp_count, vectors, mb,  \
                           why)                                                                \
    X(id, fam, esize, YAMR__ACC_ANY, YAMR__SHAPE_SEGMENTS, YAMR_VARIANT_WARP_SHUFFLE, threads, \
      vectors, 0, 0, lanes, count, warp_count, mb, 0, 0, YAMR__INDEX_TEAM, YAMR__MERGE_TEAM,   \
      YAMR__DONE_STREAM, YAMR__NO_TOPK, why)
#define YAMR__ROW_CPU(X, id, acc, why)                                                         \
    X(id, YAMR__CPU, 0, acc, YAMR__SHAPE_CPU, YAMR_VARIANT_AUTO, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,   \
      YAMR__INDEX_64, YAMR__MERGE_NONE, YAMR__DONE_HOST, YAMR__NO_TOPK, why)
/* Top-k: the plan's variant is warp_shuffle, as every batched call's; the kernels merge with
 * their own sorting networks, not a block algorithm. */
#define YAMR__ROW_TOPK_SELECT(X, id, fam, esize, threads, vectors, slots, mb, mb_most, copies,  \
                              warp_bytes, lane_k, lane_count, split_min, split_per_k,          \
                              split_blocks, seed_first_bytes, lane_half_blocks, why)           \
    X(id, fam, esize, YAMR__ACC_TOPK, YAMR__SHAPE_TOPK_SELECT, YAMR_VARIANT_WARP_SHUFFLE,      \
      threads, vectors, 0, 0, 0, lane_count, 0, mb, 0, 0, YAMR__INDEX_RANK, YAMR__MERGE_TOPK,   \
      YAMR__DONE_STREAM,                                                                       \
      YAMR__TOPK(slots, mb_most, copies, warp_bytes, lane_k, split_min, split_per_k,           \
                 split_blocks, 0, 0, 0, seed_first_bytes, lane_half_blocks),                   \
      why)
#define YAMR__ROW_TOPK_LIST(X, id, fam, esize, threads, count, mb, split_min, split_per_k,      \
                            floor_ratio, floor_own_blocks, own_split_blocks, why)              \
    X(id, fam, esize, YAMR__ACC_TOPK, YAMR__SHAPE_TOPK_LIST, YAMR_VARIANT_WARP_SHUFFLE, threads, \
      0, 0, 0, 0, count, 0, mb, 0, 0, YAMR__INDEX_RANK, YAMR__MERGE_TOPK, YAMR__DONE_STREAM,    \
      YAMR__TOPK(0, 0, 0, 0, 0, split_min, split_per_k, mb, floor_ratio, floor_own_blocks,     \
                 own_split_blocks, 0, 0),                                                      \
      why)

/* The reasons the AMD rows share (each row adds its own fact). */
#define YAMR__AMD_THREADS "256 threads: 4 waves of 64, one a SIMD of a CDNA CU"
#define YAMR__RDNA_THREADS                                                                     \
    "256 threads: 8 waves of 32 over a CU's 2 SIMD32s (a WGP's 4 in WGP mode)"
#define YAMR__AMD_BOUND                                                                        \
    "HIP passes the bound as waves per SIMD (amdgpu_waves_per_eu)"

/*
 * The table, in lookup order (within a family and shape, the specific rows before the ones
 * with esize 0 or YAMR__ACC_ANY). GRID: threads, vectors, one-block vectors, spread vectors,
 * bounds (split 32-bit, one block, 64-bit). LANES: threads, group lanes, elements a group lane,
 * elements a warp lane, bound. BLOCK: threads, vectors, bounds (32-, 64-bit). SPLIT: threads,
 * vectors, bound. SEGMENTS: threads, group lanes, elements a group lane, elements a warp lane,
 * block-team vectors, bound. TOPK_SELECT: element size (0: any), threads, vectors, most slots,
 * bounds (fewer slots, the most), scan copies, warp rows' bytes, lane rows' k (at most) and
 * elements a lane, split block's elements (at least, per k), a split's blocks an SM (fewer
 * slots), a warp row's bytes a slot from which it seeds from its first loads, the bound of
 * lane rows of half the elements a lane. TOPK_LIST:
 * element size, threads, positions a thread loads at once, bound (also a split's blocks an SM),
 * split block's elements (at least, per k), the floor's (a row's elements per k at least, most
 * blocks a row that count their own parts), a split's blocks an SM where they count their own.
 */
#define YAMR__POLICY_TABLE(X)                                                                  \
    /* ---- the CPU backend: yamr__cpu_plan (src/cpu/) puts its threads and splits in the plan */ \
    YAMR__ROW_CPU(X, cpu_topk, YAMR__ACC_TOPK,                                                 \
                  "a threshold filter per row, a block's vectorized max first (cpu_topk.c); "  \
                  "rows spread over threads, a few long rows cut into a range per thread of "  \
                  "YAMR__CPU_TOPK_SPLIT_MIN elements and 16 per k at least (cpu_backend.c)")  \
    YAMR__ROW_CPU(X, cpu, YAMR__ACC_ANY,                                                       \
                  "block scans of YAMR__CPU_BLOCK elements in index order; threads for at "    \
                  "least 256 KiB each, an array split in chunks of 16 blocks (5cae3b7)")       \
    /* ---- NVIDIA: measured on sm_90; sm_70 and sm_80 share the rows (YAMR__FAMILY_TABLE) */ \
    YAMR__ROW_GRID(X, nv_grid_e2, YAMR__NV, 2, YAMR__ACC_ANY, 256, 4, 4, 4, 1, 1, 1,           \
                   "4 vectors: half types' 8 keys a vector cost registers (6b69e70); bound 1: "\
                   "registers planned for one block measured faster than none (7f8ccc1)")      \
    YAMR__ROW_GRID(X, nv_grid_e4_best, YAMR__NV, 4, YAMR__ACC_BEST, 256, 8, 16, 4, 3, 1, 1,    \
                   "8 vectors in flight (6b69e70); 16 keep up to 2^14 in one block (49b68fa); "\
                   "4 spread over up to 32 blocks (d70dd50); split at 3 blocks: 69 registers, "\
                   "2^26-2^28 1.7-2% faster (031e977)")                                        \
    YAMR__ROW_GRID(X, nv_grid_e4_minmax, YAMR__NV, 4, YAMR__ACC_MINMAX, 256, 8, 16, 4, 1, 1, 1,\
                   "as e4_best; two slots' registers: bound 1 (7f8ccc1)")                      \
    YAMR__ROW_GRID(X, nv_grid_e8_best, YAMR__NV, 8, YAMR__ACC_BEST, 256, 8, 8, 8, 4, 4, 1,     \
                   "8 vectors (6b69e70), no spread (fewer would take a round trip each: "      \
                   "d70dd50); bound 4: no spills where it took 3 blocks' worth (7f8ccc1)")     \
    YAMR__ROW_GRID(X, nv_grid_e8_minmax, YAMR__NV, 8, YAMR__ACC_MINMAX, 256, 8, 8, 8, 1, 1, 1, \
                   "8 vectors (6b69e70); two slots' registers: bound 1 (7f8ccc1)")             \
    YAMR__ROW_SINGLE_BLOCK(X, nv_single_block, YAMR__NV,                                       \
                           "a thread per element, threads by the variant "                    \
                           "(yamr__single_block_threads): the race lab's shape, not tuned")    \
    YAMR__ROW_LANES(X, nv_lanes_e8, YAMR__NV, 8, 256, 8, 16, 8, 4,                             \
                    "groups of 8 lanes (40f952b); bound 4: 8-byte keys' registers (b12442d)")  \
    YAMR__ROW_LANES(X, nv_lanes, YAMR__NV, 0, 256, 8, 16, 8, 6,                                \
                    "groups of 8 lanes: 4 measured slower at 65536 x 128 (40f952b); bound 6: " \
                    "6 blocks an SM at 40 registers (f7c7018)")                                \
    YAMR__ROW_BLOCK(X, nv_block, YAMR__NV, 256, 4, 0, 0,                                       \
                    "4 vectors in flight a thread, no bound (6f0f539, 5779b41); the 1024 x "   \
                    "4096 case waits at the block barrier, not on loads (docs/performance.md)") \
    YAMR__ROW_SPLIT(X, nv_split, YAMR__NV, 256, 4, 1,                                          \
                    "4 vectors as the block kernel; bound 1, the split kernel's (5779b41)")    \
    YAMR__ROW_SEGMENTS(X, nv_segments_e2, YAMR__NV, 2, 256, 4, 32, 16, 4, 6,                   \
                       "groups of 4 lanes (fba1520); bound 6 (fba1520)")                       \
    YAMR__ROW_SEGMENTS(X, nv_segments_e4, YAMR__NV, 4, 256, 4, 32, 16, 4, 5,                   \
                       "groups of 4 lanes: the kernel issues per group, 132 -> 108 us "        \
                       "(bfd0bba); bound 5 (bfd0bba)")                                         \
    YAMR__ROW_SEGMENTS(X, nv_segments_e8, YAMR__NV, 8, 256, 8, 16, 16, 4, 4,                   \
                       "groups of 8: 4 would hold 64 registers of elements a lane (bfd0bba); " \
                       "bound 4 (b12442d)")                                                    \
    YAMR__ROW_TOPK_SELECT(X, nv_topk_select_e8, YAMR__NV, 8, 256, 4, 4, 3, 2, 2, 32768, 8, 32, \
                          8192, 32, 3, 0, 0,                                                   \
                          "as nv_topk_select, but bound 3: at 4 a split row ran 5-15% slower " \
                          "(H200: 64 x 128256 k50, 1 x 2^26 k1); rows to 4096 a warp, seeded " \
                          "from the whole row (the first loads' seed not measured here); no "  \
                          "lane rows (one-word ranks only)")                                   \
    YAMR__ROW_TOPK_SELECT(X, nv_topk_select, YAMR__NV, 0, 256, 4, 4, 4, 2, 2, 16384, 16, 32,   \
                          8192, 32, 3, 8192, 5,                                                \
                          "4 slots (k <= 128): 8 took 183 us on 128 x 32000 k256, the shared " \
                          "list 124 (818be90); bounds 4 and 2: 64 and 128 registers (4, not "  \
                          "3: rows a warp or a block 2-25% faster, H200: 4096 x 4096 k8 62.7 " \
                          "-> 47.0 us); a split fills one wave of 3 blocks an SM (4: 3% "      \
                          "slower on 64 x 128256 k50; ac80388); 2 scan copies 2-5% faster "    \
                          "(3f068b8); rows to 16 KiB a warp (4096 f32: 2048 or 65536 slower, "\
                          "ac80388; 8192 bf16: 2048 x 8000 k32 71.2 -> 49.8 us, H100); "      \
                          "lane rows of 2k lanes (H200, 65536 x 128 k4: 24.8 us, where 4k "    \
                          "lanes took 36.4 and k lanes of 32 elements, f32 spilling at bound " \
                          "4, 42.4; then 20.2, the lane lists 34.3), up to 32 elements a lane "\
                          "and k 16 (16384 x 1000 k10 50.1 -> 33.0 us; its instance at bound " \
                          "3: 33.9); warp rows of 8 KiB a slot seed from their first loads "   \
                          "(H100: 4096 x 4096 k8 55.6 -> 33.8 us, k64 67.1 -> 58.0, 16384 x "  \
                          "2048 k32 99.4 -> 84.9; slower at 4 KiB a slot: bf16 4096 x 4096 "   \
                          "k64 44.0 -> 52.4, f32 k128 105.1 -> 114.8); the 4-slot bound 3 "    \
                          "(H100): 1024 x 32000 k100 109 -> 97 us, but 4096 x 4096 k128 104 "  \
                          "-> 117, 64 x 128256 k100 34 -> 37, 1 x 2^26 k100 148 -> 147; lane " \
                          "rows of 16 elements a lane at bound 5 (48 registers; 6 spills), "   \
                          "H200 f32: 65536 x 128 k4 18.7 -> 17.9 us, 32768 x 256 k8 19.8 -> "  \
                          "18.8, bf16 the same")                                               \
    YAMR__ROW_TOPK_LIST(X, nv_topk_list, YAMR__NV, 0, 256, 8, 4, 8192, 32, 4, 8, 2,            \
                        "8 positions a thread at once (16: 2-7% slower on 2- and 4-byte "      \
                        "elements, H100: 1 x 2^24 k300 131.8 -> 122.8 us), bound 4: set with " \
                        "the kernel (ebf7351); a split one wave of 4 blocks an SM (9867452: "  \
                        "64 x 128256 k50 96.7 -> 72.8 us; at 2, H100: 1 x 2^26 k1024 264 -> " \
                        "288), of 2 where its blocks count their own parts (H100: 128 x "     \
                        "32000 k256 39.0 -> 35.4 us, 64 x 128256 k300 71.7 -> 61.6; 128 x "    \
                        "32000 k256 at 4 a row 44.5)")                                         \
    /* ---- AMD wave64 (CDNA): derived from the facts, not measured */                        \
    YAMR__ROW_GRID(X, cdna_grid_e2, YAMR__CDNA, 2, YAMR__ACC_ANY, 256, 4, 4, 4, 1, 1, 1,       \
                   "derived, not measured: " YAMR__AMD_THREADS "; the loads and bounds of "   \
                   "nv_grid_e2 (a wave's registers scale with its 64 lanes)")                 \
    YAMR__ROW_GRID(X, cdna_grid_e4_best, YAMR__CDNA, 4, YAMR__ACC_BEST, 256, 8, 16, 4, 3, 1, 1,\
                   "derived, not measured: bound 3 = 3 waves a SIMD (one wave a SIMD a "      \
                   "block), " YAMR__AMD_BOUND "; 512 VGPRs a lane leave 170 each")            \
    YAMR__ROW_GRID(X, cdna_grid_e4_minmax, YAMR__CDNA, 4, YAMR__ACC_MINMAX, 256, 8, 16, 4, 1,  \
                   1, 1, "derived, not measured: as nv_grid_e4_minmax, " YAMR__AMD_THREADS)    \
    YAMR__ROW_GRID(X, cdna_grid_e8_best, YAMR__CDNA, 8, YAMR__ACC_BEST, 256, 8, 8, 8, 4, 4, 1, \
                   "derived, not measured: bound 4 = 4 waves a SIMD, " YAMR__AMD_BOUND)         \
    YAMR__ROW_GRID(X, cdna_grid_e8_minmax, YAMR__CDNA, 8, YAMR__ACC_MINMAX, 256, 8, 8, 8, 1, 1,\
                   1, "derived, not measured: as nv_grid_e8_minmax, " YAMR__AMD_THREADS)       \
    YAMR__ROW_SINGLE_BLOCK(X, cdna_single_block, YAMR__CDNA,                                   \
                           "derived, not measured: whole 64-lane waves of a thread per element")\
    YAMR__ROW_LANES(X, cdna_lanes_e8, YAMR__CDNA, 8, 256, 8, 16, 8, 4,                         \
                    "derived, not measured: 8 groups of 8 a wave of 64; bound 4 waves a SIMD") \
    YAMR__ROW_LANES(X, cdna_lanes, YAMR__CDNA, 0, 256, 8, 16, 8, 6,                            \
                    "derived, not measured: 8 groups of 8 a wave of 64 (a warp-wide row: 512 " \
                    "elements); bound 6 waves a SIMD")                                         \
    YAMR__ROW_BLOCK(X, cdna_block, YAMR__CDNA, 256, 4, 0, 0,                                   \
                    "derived, not measured: " YAMR__AMD_THREADS "; 4 vectors in flight")       \
    YAMR__ROW_SPLIT(X, cdna_split, YAMR__CDNA, 256, 4, 1,                                      \
                    "derived, not measured: as cdna_block; the workspace is the same")         \
    YAMR__ROW_SEGMENTS(X, cdna_segments_e2, YAMR__CDNA, 2, 256, 4, 32, 16, 4, 6,               \
                       "derived, not measured: 16 groups of 4 a wave of 64; bound 6")          \
    YAMR__ROW_SEGMENTS(X, cdna_segments_e4, YAMR__CDNA, 4, 256, 4, 32, 16, 4, 5,               \
                       "derived, not measured: 16 groups of 4 a wave of 64; bound 5")          \
    YAMR__ROW_SEGMENTS(X, cdna_segments_e8, YAMR__CDNA, 8, 256, 8, 16, 16, 4, 4,               \
                       "derived, not measured: 8 groups of 8 a wave of 64; bound 4")           \
    YAMR__ROW_TOPK_SELECT(X, cdna_topk_select, YAMR__CDNA, 0, 256, 4, 4, 3, 2, 1, 16384, 16, 32, \
                          8192, 32, 3, 8192, 3,                                                \
                          "derived, not measured: nv_topk_select's values, bound 3 (as "      \
                          "nv_topk_select_e8), k up to 256 in "                                \
                          "64-lane waves; " YAMR__AMD_BOUND "; one scan copy for the "         \
                          "compiler's time (3f068b8)")                                         \
    YAMR__ROW_TOPK_LIST(X, cdna_topk_list, YAMR__CDNA, 0, 256, 8, 4, 8192, 32, 4, 8, 2,        \
                        "derived, not measured: nv_topk_list's values; a list and buffer "     \
                        "take 24 or 40 KiB of a CU's 64 KiB LDS, so 2 or 1 blocks a CU, not "  \
                        "the 4 a split plans for")                                             \
    /* ---- AMD wave32 (RDNA): derived from the facts, not measured */                        \
    YAMR__ROW_GRID(X, rdna_grid_e2, YAMR__RDNA, 2, YAMR__ACC_ANY, 256, 4, 4, 4, 1, 1, 1,       \
                   "derived, not measured: " YAMR__RDNA_THREADS "; the loads of nv_grid_e2")  \
    YAMR__ROW_GRID(X, rdna_grid_e4_best, YAMR__RDNA, 4, YAMR__ACC_BEST, 256, 8, 16, 4, 3, 1, 1,\
                   "derived, not measured: " YAMR__RDNA_THREADS "; " YAMR__AMD_BOUND ", so 3 " \
                   "is milder than 3 blocks a CU; kept until measured")                       \
    YAMR__ROW_GRID(X, rdna_grid_e4_minmax, YAMR__RDNA, 4, YAMR__ACC_MINMAX, 256, 8, 16, 4, 1,  \
                   1, 1, "derived, not measured: as nv_grid_e4_minmax, " YAMR__RDNA_THREADS)   \
    YAMR__ROW_GRID(X, rdna_grid_e8_best, YAMR__RDNA, 8, YAMR__ACC_BEST, 256, 8, 8, 8, 4, 4, 1, \
                   "derived, not measured: " YAMR__AMD_BOUND ", a milder bound than 4 "       \
                   "blocks a CU; kept until measured")                                         \
    YAMR__ROW_GRID(X, rdna_grid_e8_minmax, YAMR__RDNA, 8, YAMR__ACC_MINMAX, 256, 8, 8, 8, 1, 1,\
                   1, "derived, not measured: as nv_grid_e8_minmax, " YAMR__RDNA_THREADS)      \
    YAMR__ROW_SINGLE_BLOCK(X, rdna_single_block, YAMR__RDNA,                                   \
                           "derived, not measured: whole 32-lane waves of a thread per element")\
    YAMR__ROW_LANES(X, rdna_lanes_e8, YAMR__RDNA, 8, 256, 8, 16, 8, 4,                         \
                    "derived, not measured: 4 groups of 8 a wave of 32, as an NVIDIA warp")    \
    YAMR__ROW_LANES(X, rdna_lanes, YAMR__RDNA, 0, 256, 8, 16, 8, 6,                            \
                    "derived, not measured: 4 groups of 8 a wave of 32, as an NVIDIA warp")    \
    YAMR__ROW_BLOCK(X, rdna_block, YAMR__RDNA, 256, 4, 0, 0,                                   \
                    "derived, not measured: " YAMR__RDNA_THREADS "; 4 vectors in flight")      \
    YAMR__ROW_SPLIT(X, rdna_split, YAMR__RDNA, 256, 4, 1,                                      \
                    "derived, not measured: as rdna_block; the workspace is the same")         \
    YAMR__ROW_SEGMENTS(X, rdna_segments_e2, YAMR__RDNA, 2, 256, 4, 32, 16, 4, 6,               \
                       "derived, not measured: 8 groups of 4 a wave of 32, as an NVIDIA warp") \
    YAMR__ROW_SEGMENTS(X, rdna_segments_e4, YAMR__RDNA, 4, 256, 4, 32, 16, 4, 5,               \
                       "derived, not measured: 8 groups of 4 a wave of 32, as an NVIDIA warp") \
    YAMR__ROW_SEGMENTS(X, rdna_segments_e8, YAMR__RDNA, 8, 256, 8, 16, 16, 4, 4,               \
                       "derived, not measured: 4 groups of 8 a wave of 32, as an NVIDIA warp") \
    YAMR__ROW_TOPK_SELECT(X, rdna_topk_select, YAMR__RDNA, 0, 256, 4, 4, 3, 2, 1, 16384, 16, 32, \
                          8192, 32, 3, 8192, 3,                                                \
                          "derived, not measured: nv_topk_select's values, bound 3 (as "      \
                          "nv_topk_select_e8), 32-lane waves as "                              \
                          "an NVIDIA warp; one scan copy for the compiler's time (3f068b8)")   \
    YAMR__ROW_TOPK_LIST(X, rdna_topk_list, YAMR__RDNA, 0, 256, 8, 4, 8192, 32, 4, 8, 2,        \
                        "derived, not measured: nv_topk_list's values; a list and buffer "     \
                        "take 24 or 40 KiB of a CU's 64 KiB LDS (a WGP's 128 KiB)")

/* Row ids: YAMR__POLICY_<id>, in table order from 1; 0 is no row (a plan made without one). */
typedef enum {
    YAMR__POLICY_NONE = 0,
#define YAMR__POLICY_ENUM(id, ...) YAMR__POLICY_##id,
    YAMR__POLICY_TABLE(YAMR__POLICY_ENUM)
#undef YAMR__POLICY_ENUM
    YAMR__POLICY_COUNT
} yamr__policy_id;

/* The row's initializer. */
#define YAMR__POLICY_INIT(id, fam, esize, acc, shape, block, threads, v, v1, vs, lanes, count,  \
                          wcount, mb, mb1, mbw, index, merge, done, topk, why)                 \
    {#id, fam, esize, acc, shape, block, threads, v, v1, vs, lanes, count, wcount, mb, mb1, mbw, \
     index, merge, done, topk, why},

/* The empty row of YAMR__POLICY_NONE, yamr__policies[0]. */
#define YAMR__POLICY_NONE_ROW                                                                  \
    {"none", 0u, 0, YAMR__ACC_ANY, YAMR__SHAPE_CPU, YAMR_VARIANT_AUTO, 0, 0, 0, 0, 0, 0, 0, 0, \
     0, 0, YAMR__INDEX_64, YAMR__MERGE_NONE, YAMR__DONE_HOST, YAMR__NO_TOPK, "no policy row"},

/* The rows by id. */
extern const yamr__policy yamr__policies[YAMR__POLICY_COUNT];

/* The family of a device with these facts: CPU for the CPU; NVIDIA by the compute capability
 * in `arch` ("sm_86"); AMD by the warp width (64: CDNA, and any AMD GPU built for wave64; 32:
 * RDNA). */
yamr__family yamr__device_family(const yamr_device_info *dev);
const char *yamr__family_name(yamr__family f);
/* What the family's rows rest on: measured, or derived from which facts. */
const char *yamr__family_basis(yamr__family f);
int yamr__family_warp_width(yamr__family f);
/* The row a call of this family, element size, accumulator and shape runs: the first in table
 * order that matches; YAMR__POLICY_NONE where none does. */
yamr__policy_id yamr__policy_find(yamr__family f, int esize, int acc, int shape);
/* The row of an id (the empty row for YAMR__POLICY_NONE or an id out of range). */
const yamr__policy *yamr__policy_row(int id);

#ifdef __cplusplus
}
#endif

#endif /* YAMR_POLICY_H */
