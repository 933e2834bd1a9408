/* SPDX-License-Identifier: MIT */
/*
 * The CPU backend: what a CPU context decides once (instruction set, thread cap) and the scans
 * that execute it. cpu_backend.c decides, cpu_scan.c scans one array, cpu_batch.c spreads rows,
 * segments and softmax rows over threads.
 */
#ifndef YAMR_CPU_BACKEND_H
#define YAMR_CPU_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "yamr_internal.h"

/* The scans' small helpers: inlined into each instruction set's copy of its caller. */
#if defined(__GNUC__) || defined(__clang__)
#define YAMR__CPU_INLINE static inline __attribute__((always_inline))
#else
#define YAMR__CPU_INLINE static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Where the compiler can build functions for other x86 instruction sets than its default. */
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define YAMR__CPU_HAVE_AVX2 1
#define YAMR__CPU_HAVE_AVX512 1
#else
#define YAMR__CPU_HAVE_AVX2 0
#define YAMR__CPU_HAVE_AVX512 0
#endif

/* The instruction sets the scans are compiled for; the context picks the best one the CPU has. */
typedef enum {
    YAMR__CPU_ISA_BASELINE = 0, /* the compiler's default target (SSE2 on x86-64) */
    YAMR__CPU_ISA_AVX2,         /* x86-64 with AVX2 (compiled only where the compiler can) */
    YAMR__CPU_ISA_AVX512,       /* x86-64 with AVX-512 F, BW and VL (the same) */
    YAMR__CPU_ISA_COUNT
} yamr__cpu_isa;

/* A CPU context's settings, fixed at creation except max_threads (yamr_set_cpu_threads()). */
typedef struct {
    yamr__cpu_isa isa;
    int max_threads; /* 0: OpenMP's own count (OMP_NUM_THREADS, else the cores) */
    int node_share;  /* with max_threads 0: at most this many threads (0: no cap), the cores'
                        share of one of the ranks an MPI launcher started on this node */
    /* A batch whose answers (values and indices) take at least this many bytes writes them with
     * non-temporal stores where the pass can (they would not stay in the caches anyway, and a
     * store through the cache first reads the line). */
    size_t stream_answer_bytes;
} yamr__cpu_config;

/* stream_answer_bytes of a new context: beyond the L2 of a core. */
#define YAMR__CPU_STREAM_ANSWER_BYTES ((size_t)4 << 20)

/* Elements per block of the scans: the block's best key is found first, then, only when it beats
 * the best so far, its first index in a second pass over the block while it is in L1. */
#define YAMR__CPU_BLOCK 2048
/* A thread gets at least this many bytes to read: below, starting it costs more than it saves. */
#define YAMR__CPU_MIN_BYTES_PER_THREAD (256u * 1024u)
/* Rows (segments) up to this many elements take the fused pass of cpu_short.c; longer ones the
 * block scan. At most 65535: a half row's offsets are 16 bits. */
#define YAMR__CPU_SHORT_ROW 4096
/* A long array is split in chunks of whole blocks that threads take in turn: about this many
 * per thread, and at least YAMR__CPU_CHUNK_BLOCKS blocks each. */
#define YAMR__CPU_CHUNKS_PER_THREAD 16
#define YAMR__CPU_CHUNK_BLOCKS 16
/* The most threads one call uses (the per-thread partial results live on the stack). */
#define YAMR__CPU_MAX_THREADS 256
/* Batched calls: below this many rows per thread a spread leaves threads idle at the end, so
 * rows are split instead. */
#define YAMR__CPU_ROWS_PER_THREAD 4
/* Rows (segments) a thread takes at a time: about this many elements. Large, because each grab
 * is a new stream that the hardware prefetchers learn only after a few KiB (docs/performance.md:
 * small grabs left two threads no faster than one on memory-sized batches). */
#define YAMR__CPU_ELEMENTS_PER_GRAB 131072
/* Top-k: a row is split over threads only when each range holds at least this many elements and
 * 16 per entry of k. */
#define YAMR__CPU_TOPK_SPLIT_MIN 65536

/* The best instruction set this CPU runs that the library was compiled for. */
yamr__cpu_isa yamr__cpu_detect_isa(void);
/* Whether `isa` was compiled in and this CPU runs it. */
int yamr__cpu_isa_runs_here(yamr__cpu_isa isa);
const char *yamr__cpu_isa_name(yamr__cpu_isa isa);
/* Whether the library was built with OpenMP (else every call runs on the calling thread). */
int yamr__cpu_with_openmp(void);
/* Threads for a call reading `bytes`: 1 without OpenMP; else OpenMP's count, capped by the
 * context and by one thread per YAMR__CPU_MIN_BYTES_PER_THREAD. */
int yamr__cpu_threads_for(const yamr__cpu_config *cfg, size_t bytes);
/* node_share of a new context: OpenMP's count over the ranks on this node that the launcher's
 * environment names (Open MPI's OMPI_COMM_WORLD_LOCAL_SIZE, MPICH's MPI_LOCALNRANKS), at least
 * 1; 0 when OMP_NUM_THREADS is set or no launcher says so. */
int yamr__cpu_node_share(void);

/*
 * The CPU plan: how a call goes over threads, decided once by yamr__cpu_plan() and kept in
 * yamr_plan.internal of a YAMR_KERNEL_CPU plan (the GPU kernels use the slots otherwise).
 */
/* Threads the call runs on, >= 1 (1: the calling thread alone). */
#define YAMR__PLAN_CPU_THREADS(plan) ((plan)->internal[0])
/* 1: each row (the one array of a reduce) is cut into ranges over the threads and their answers
 * merged; 0: threads take whole rows. */
#define YAMR__PLAN_CPU_SPLIT(plan) ((plan)->internal[1])
/* Threads taking whole rows: rows a thread takes at a time. A split reduce or row: blocks of
 * YAMR__CPU_BLOCK per chunk that threads take in turn (segments: 0, per segment by its length). */
#define YAMR__PLAN_CPU_GRAB(plan) ((plan)->internal[2])
/* Rows and segments: 1 when the answers go by non-temporal stores, where the pass can. */
#define YAMR__PLAN_CPU_STREAM(plan) ((plan)->internal[3])

/* Fills the CPU slots of plan (call, op, dtype, rows, cols, k already set) for a call over
 * `total` elements (rows x cols; ignored for segments, planned without their lengths). */
void yamr__cpu_plan(const yamr__cpu_config *cfg, size_t total, yamr_plan *plan);
/* Segments spread over threads: the elements they hold, estimated from the first of them once
 * they are enough for every thread (only the threads and grabs depend on it, never an answer);
 * SIZE_MAX when it overflows. */
size_t yamr__cpu_segments_total(const yamr__cpu_config *cfg, yamr_dtype t,
                                const int64_t *offsets, size_t segments);
/* Rows a thread takes at a time when `rows` rows of `total` elements in all go over `threads`. */
size_t yamr__cpu_rows_grab(size_t rows, size_t total, int threads);
/* Blocks of YAMR__CPU_BLOCK per chunk when one array of n elements is split over `threads`. */
size_t yamr__cpu_chunk_blocks(size_t n, int threads);
/* Why the plan, into why[cap] (yamr_plan_describe()). */
void yamr__cpu_explain(const yamr__cpu_config *cfg, const yamr_plan *plan, char *why, size_t cap);

/* The best (largest key, first index on ties) of one array; index counts from the array. */
typedef struct {
    uint64_t key;
    size_t index;
} yamr__cpu_best;

/*
 * One array of n >= 1 elements, single-threaded: best[0] for `is_min` (slots == 1), or best[0]
 * MAX and best[1] MIN in one pass (slots == 2).
 */
void yamr__cpu_scan(yamr__cpu_isa isa, yamr_dtype t, int slots, int is_min, int nan_ignore,
                    const void *in, size_t n, yamr__cpu_best best[2]);
/* The answer of a scan: value and index (-1 for a float array of NaNs only under IGNORE). */
yamr__result yamr__cpu_result(yamr_dtype t, const void *in, yamr__cpu_best best);

/* One array of n >= 1 elements over `threads` threads (1: on the calling thread), in chunks of
 * chunk_blocks blocks: res[0] for `is_min` (slots == 1), or res[0] MAX and res[1] MIN
 * (slots == 2). Identical for any thread count. */
void yamr__cpu_reduce(yamr__cpu_isa isa, int threads, size_t chunk_blocks, yamr_dtype t, int slots,
                      int is_min, int nan_ignore, const void *in, size_t n, yamr__result res[2]);

/* Batched calls (cpu_batch.c): rows and segments (kind ROWS or SEGMENTS), softmax statistics,
 * as c->plan says (yamr__cpu_plan()). */
void yamr__cpu_rows(const yamr__cpu_config *cfg, const yamr__gpu_batch *c);
/* Rows (segments) [begin, end) of a max/min/argmax/argmin batch on the calling thread, in one
 * fused pass (cpu_short.c): values and indices written as yamr__cpu_rows() writes them; with
 * `stream`, where the pass can, by non-temporal stores (fenced before it returns). */
void yamr__cpu_short_rows(yamr__cpu_isa isa, const yamr__gpu_batch *c, size_t begin, size_t end,
                          int stream);
void yamr__cpu_softmax(const yamr__cpu_config *cfg, const yamr__gpu_batch *c);

/* Softmax statistics of one row of n >= 1 f32 or f64 elements (cpu_softmax.c), in double. */
void yamr__cpu_softmax_row(yamr__cpu_isa isa, yamr_dtype t, int nan_ignore, const void *row,
                           size_t cols, double *row_max, double *row_sum);

/* Length of the segment [begin, end): end - begin, 0 when end <= begin, for any int64 values.
 * Inline: the batched calls take it once per segment. Unsigned subtraction is defined for every
 * pair; for end > begin it is the true length. */
static inline uint64_t yamr__segment_length(int64_t begin, int64_t end)
{
    return end > begin ? (uint64_t)end - (uint64_t)begin : 0;
}

#ifdef __cplusplus
}
#endif

#endif /* YAMR_CPU_BACKEND_H */
