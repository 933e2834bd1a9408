/* SPDX-License-Identifier: MIT */
/* The CPU backend's decisions: which instruction set a context scans with, and the plan of a call
 * (its threads, and whether they split rows or take whole ones). cpu_scan.c, cpu_batch.c and
 * cpu_topk.c execute the plan. */
#include <stdio.h>
#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "checks.h"
#include "context.h"

int yamr__cpu_isa_runs_here(yamr__cpu_isa isa)
{
    switch (isa) {
    case YAMR__CPU_ISA_BASELINE: return 1;
#if YAMR__CPU_HAVE_AVX2
    case YAMR__CPU_ISA_AVX2: return __builtin_cpu_supports("avx2") != 0;
#endif
#if YAMR__CPU_HAVE_AVX512
    case YAMR__CPU_ISA_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vl");
#endif
    default: return 0;
    }
}

yamr__cpu_isa yamr__cpu_detect_isa(void)
{
    for (int isa = YAMR__CPU_ISA_COUNT - 1; isa > YAMR__CPU_ISA_BASELINE; --isa)
        if (yamr__cpu_isa_runs_here((yamr__cpu_isa)isa)) return (yamr__cpu_isa)isa;
    return YAMR__CPU_ISA_BASELINE;
}

const char *yamr__cpu_isa_name(yamr__cpu_isa isa)
{
    switch (isa) {
    case YAMR__CPU_ISA_BASELINE: return "baseline";
    case YAMR__CPU_ISA_AVX2: return "avx2";
    case YAMR__CPU_ISA_AVX512: return "avx512";
    default: return "invalid";
    }
}

int yamr__cpu_with_openmp(void)
{
#ifdef _OPENMP
    return 1;
#else
    return 0;
#endif
}

int yamr__cpu_node_share(void)
{
#ifdef _OPENMP
    const char *omp = getenv("OMP_NUM_THREADS");
    if (omp && *omp) return 0; /* the user's count */
    static const char *const local_size[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"};
    for (size_t k = 0; k < sizeof local_size / sizeof local_size[0]; ++k) {
        const char *v = getenv(local_size[k]);
        const int ranks = v ? atoi(v) : 0;
        if (ranks > 1) {
            const int share = omp_get_max_threads() / ranks; /* cores the process may run on */
            return share > 1 ? share : 1;
        }
    }
#endif
    return 0;
}

int yamr__cpu_threads_for(const yamr__cpu_config *cfg, size_t bytes)
{
#ifdef _OPENMP
    int threads = omp_get_max_threads(); /* OMP_NUM_THREADS, omp_set_num_threads(), or the cores */
    if (cfg->max_threads > 0 && cfg->max_threads < threads) threads = cfg->max_threads;
    if (cfg->max_threads == 0 && cfg->node_share > 0 && cfg->node_share < threads)
        threads = cfg->node_share;
    if (threads > YAMR__CPU_MAX_THREADS) threads = YAMR__CPU_MAX_THREADS;
    const size_t useful = bytes / YAMR__CPU_MIN_BYTES_PER_THREAD;
    if (useful < (size_t)threads) threads = useful < 1 ? 1 : (int)useful;
    return threads;
#else
    (void)cfg;
    (void)bytes;
    return 1;
#endif
}

/* ---- The plan of a call ---- */

size_t yamr__cpu_chunk_blocks(size_t n, int threads)
{
    /* About YAMR__CPU_CHUNKS_PER_THREAD chunks per thread, taken dynamically so that a thread
     * whose core another process holds leaves its chunks to the others; at least
     * YAMR__CPU_CHUNK_BLOCKS blocks each. */
    const size_t blocks = (n + YAMR__CPU_BLOCK - 1) / YAMR__CPU_BLOCK;
    const size_t per = blocks / ((size_t)(threads > 1 ? threads : 1) * YAMR__CPU_CHUNKS_PER_THREAD);
    if (per < YAMR__CPU_CHUNK_BLOCKS) return YAMR__CPU_CHUNK_BLOCKS;
    return per > UINT32_MAX ? UINT32_MAX : per; /* a plan slot holds 32 bits */
}

/* Segments the plan reads at least before it estimates the rest from them. */
#define YAMR__CPU_SEGMENTS_SAMPLED 4096

size_t yamr__cpu_segments_total(const yamr__cpu_config *cfg, yamr_dtype t,
                                const int64_t *offsets, size_t segments)
{
    /* enough for every thread this call may start */
    const size_t most = (size_t)yamr__cpu_threads_for(cfg, (size_t)-1);
    const size_t enough = most * (YAMR__CPU_MIN_BYTES_PER_THREAD / yamr_dtype_size(t));
    size_t total = 0, r = 0;
    for (; r < segments; ++r) {
        if (r >= YAMR__CPU_SEGMENTS_SAMPLED && total >= enough) break;
        const size_t n = (size_t)yamr__segment_length(offsets[r], offsets[r + 1]);
        total = n > (size_t)-1 - total ? (size_t)-1 : total + n;
    }
    if (r == segments) return total;
    const size_t per_row = total / r;
    return per_row > (size_t)-1 / segments ? (size_t)-1 : per_row * segments;
}

/* Bytes of `count` elements of elem bytes, saturating. */
static size_t bytes_of(size_t count, size_t elem)
{
    return count > (size_t)-1 / elem ? (size_t)-1 : count * elem;
}

size_t yamr__cpu_rows_grab(size_t rows, size_t total, int threads)
{
    const size_t per_row = total / rows;
    size_t grab = per_row >= YAMR__CPU_ELEMENTS_PER_GRAB ? 1
                                                         : YAMR__CPU_ELEMENTS_PER_GRAB / (per_row + 1);
    const size_t fair = rows / ((size_t)threads * YAMR__CPU_ROWS_PER_THREAD);
    if (grab > fair) grab = fair < 1 ? 1 : fair;
    /* Whole groups of rows for the fused pass, which takes rows shorter than a vector's lanes
     * 64 at a time. */
    if (grab > 64) grab -= grab % 64;
    return grab;
}

/* Rows and segments: spread whole rows in grabs of about YAMR__CPU_ELEMENTS_PER_GRAB elements,
 * or, with fewer than YAMR__CPU_ROWS_PER_THREAD rows per thread, split each row. Segments are
 * planned without their lengths (as on a GPU): up to the most threads, the call fitting the
 * threads and grabs to the lengths (cpu_batch.c). */
static void plan_rows(const yamr__cpu_config *cfg, size_t total, yamr_plan *p)
{
    const size_t elem = yamr_dtype_size(p->dtype);
    const int arg = p->op == YAMR_OP_ARGMAX || p->op == YAMR_OP_ARGMIN;
    const int segments = p->call == YAMR_CALL_SEGMENTS;
    YAMR__PLAN_CPU_STREAM(p) = p->rows >= cfg->stream_answer_bytes / (elem + (arg ? 8u : 0u));
    int threads = yamr__cpu_threads_for(cfg, segments ? (size_t)-1 : bytes_of(total, elem));
    if (threads <= 1) return;
    if (p->rows < (size_t)YAMR__CPU_ROWS_PER_THREAD * (size_t)threads) {
        if (segments) {
            YAMR__PLAN_CPU_THREADS(p) = (uint32_t)threads;
            YAMR__PLAN_CPU_SPLIT(p) = 1;
            return;
        }
        const int per_row = yamr__cpu_threads_for(cfg, bytes_of(p->cols, elem));
        if (per_row > 1) {
            YAMR__PLAN_CPU_THREADS(p) = (uint32_t)per_row;
            YAMR__PLAN_CPU_SPLIT(p) = 1;
            YAMR__PLAN_CPU_GRAB(p) = (uint32_t)yamr__cpu_chunk_blocks(p->cols, per_row);
            return;
        }
        /* rows too short to split one by one: whole rows, one at a time */
        if ((size_t)threads > p->rows) threads = (int)p->rows;
        YAMR__PLAN_CPU_THREADS(p) = (uint32_t)threads;
        YAMR__PLAN_CPU_GRAB(p) = 1;
        return;
    }
    YAMR__PLAN_CPU_THREADS(p) = (uint32_t)threads;
    YAMR__PLAN_CPU_GRAB(p) = segments ? 0 : (uint32_t)yamr__cpu_rows_grab(p->rows, total, threads);
}

/* Softmax statistics: exp() per element makes a row cost more than its read, so rows are spread
 * even when few, in grabs of about 1/YAMR__CPU_CHUNKS_PER_THREAD of a thread's share. */
static void plan_softmax(const yamr__cpu_config *cfg, size_t total, yamr_plan *p)
{
    const size_t bytes = bytes_of(total, yamr_dtype_size(p->dtype));
    int threads = yamr__cpu_threads_for(cfg, bytes > (size_t)-1 / 16 ? (size_t)-1 : bytes * 16);
    if ((size_t)threads > p->rows) threads = (int)p->rows;
    if (threads <= 1) return;
    const size_t per = p->rows / ((size_t)threads * YAMR__CPU_CHUNKS_PER_THREAD);
    YAMR__PLAN_CPU_THREADS(p) = (uint32_t)threads;
    YAMR__PLAN_CPU_GRAB(p) = (uint32_t)(per < 1 ? 1 : per > 65536 ? 65536 : per);
}

/* Top-k: rows spread, or a few long rows each cut into one range per thread (lists merged). */
static void plan_topk(const yamr__cpu_config *cfg, size_t total, yamr_plan *p)
{
    int threads = yamr__cpu_threads_for(cfg, bytes_of(total, yamr_dtype_size(p->dtype)));
    if (threads <= 1) return;
    const size_t per_range = p->cols / (size_t)threads;
    const size_t need = 16 * p->k > YAMR__CPU_TOPK_SPLIT_MIN ? 16 * p->k : YAMR__CPU_TOPK_SPLIT_MIN;
    if (p->rows < 4 * (size_t)threads && per_range >= need && p->k <= per_range / 16) {
        YAMR__PLAN_CPU_THREADS(p) = (uint32_t)threads;
        YAMR__PLAN_CPU_SPLIT(p) = 1;
        return;
    }
    if ((size_t)threads > p->rows) threads = (int)p->rows;
    const size_t per = p->rows / ((size_t)threads * YAMR__CPU_CHUNKS_PER_THREAD);
    YAMR__PLAN_CPU_THREADS(p) = (uint32_t)threads;
    YAMR__PLAN_CPU_GRAB(p) = (uint32_t)(per < 1 ? 1 : per > 4096 ? 4096 : per);
}

void yamr__cpu_plan(const yamr__cpu_config *cfg, size_t total, yamr_plan *p)
{
    YAMR__PLAN_CPU_THREADS(p) = 1;
    YAMR__PLAN_CPU_SPLIT(p) = 0;
    YAMR__PLAN_CPU_GRAB(p) = 0;
    YAMR__PLAN_CPU_STREAM(p) = 0;
    switch (p->call) {
    case YAMR_CALL_REDUCE:
    case YAMR_CALL_MINMAX: {
        const int threads = yamr__cpu_threads_for(cfg, bytes_of(total, yamr_dtype_size(p->dtype)));
        if (threads > 1) {
            YAMR__PLAN_CPU_THREADS(p) = (uint32_t)threads;
            YAMR__PLAN_CPU_SPLIT(p) = 1;
            YAMR__PLAN_CPU_GRAB(p) = (uint32_t)yamr__cpu_chunk_blocks(total, threads);
        }
        break;
    }
    case YAMR_CALL_ROWS:
    case YAMR_CALL_SEGMENTS: plan_rows(cfg, total, p); break;
    case YAMR_CALL_SOFTMAX_STATS: plan_softmax(cfg, total, p); break;
    default: plan_topk(cfg, total, p); break;
    }
}

void yamr__cpu_explain(const yamr__cpu_config *cfg, const yamr_plan *p, char *why, size_t cap)
{
    const unsigned threads = YAMR__PLAN_CPU_THREADS(p), grab = YAMR__PLAN_CPU_GRAB(p);
    const char *unit = p->call == YAMR_CALL_SEGMENTS ? "segment" : "row";
    const char *filter = p->call == YAMR_CALL_TOPK ? "a threshold filter per row; " : "";
    char how[160];
    if (p->call == YAMR_CALL_REDUCE || p->call == YAMR_CALL_MINMAX) {
        if (YAMR__PLAN_CPU_SPLIT(p))
            snprintf(how, sizeof how, "block scans in index order, split over %u threads in "
                                      "chunks of %u blocks of %d",
                     threads, grab, YAMR__CPU_BLOCK);
        else
            snprintf(how, sizeof how, "block scans in index order on one thread");
    } else if (YAMR__PLAN_CPU_SPLIT(p)) {
        snprintf(how, sizeof how, "%seach %s split over %s%u threads%s", filter, unit,
                 p->call == YAMR_CALL_SEGMENTS ? "up to " : "", threads,
                 p->call == YAMR_CALL_TOPK ? ", the ranges' lists merged" : "");
    } else if (threads > 1 && p->call == YAMR_CALL_SEGMENTS) {
        snprintf(how, sizeof how, "segments spread over up to %u threads, in grabs by their "
                                  "lengths", threads);
    } else if (threads > 1) {
        snprintf(how, sizeof how, "%s%ss spread over %u threads, %u at a time", filter, unit,
                 threads, grab);
    } else {
        snprintf(how, sizeof how, "%s%ss on one thread", filter, unit);
    }
    snprintf(why, cap, "the CPU backend (%s): %s%s", yamr__cpu_isa_name(cfg->isa), how,
             YAMR__PLAN_CPU_STREAM(p) ? "; answers by non-temporal stores" : "");
}

yamr_status yamr_set_cpu_threads(yamr_context *ctx, int threads)
{
    if (!ctx)
        return yamr__fail(YAMR_ERROR_INVALID_VALUE, NULL, 0, "yamr_set_cpu_threads: ctx is NULL");
    if (threads < 0)
        return yamr__fail(YAMR_ERROR_INVALID_VALUE, ctx->error, sizeof ctx->error,
                          "yamr_set_cpu_threads: threads (%d) < 0", threads);
    if (ctx->gpu)
        return yamr__fail(YAMR_ERROR_UNSUPPORTED, ctx->error, sizeof ctx->error,
                          "yamr_set_cpu_threads: a GPU context has no CPU threads");
    ctx->cpu.max_threads = threads;
    return YAMR_SUCCESS;
}

yamr_status yamr_get_cpu_threads(const yamr_context *ctx, int *threads)
{
    static const char fn[] = "yamr_get_cpu_threads";
    if (!ctx) return yamr__fail(YAMR_ERROR_INVALID_VALUE, NULL, 0, "%s: ctx is NULL", fn);
    if (!threads) return yamr__fail(YAMR_ERROR_INVALID_VALUE, NULL, 0, "%s: threads is NULL", fn);
    if (ctx->gpu) return YAMR_ERROR_UNSUPPORTED;
    *threads = ctx->cpu.max_threads;
    return YAMR_SUCCESS;
}
