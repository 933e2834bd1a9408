/* SPDX-License-Identifier: MIT */
/* The CPU backend's decisions: which instruction set a context scans with, and how many threads a
 * call gets. The scans themselves are in cpu_scan.c and cpu_batch.c. */
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
