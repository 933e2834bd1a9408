/* SPDX-License-Identifier: MIT */
/*
 * The CPU backend's batched calls: rows, segments and softmax statistics, as the plan says
 * (cpu_backend.c, yamr__cpu_plan()). Many rows (segments) are spread over threads in grabs of
 * whole rows, each grab one call of the fused pass (cpu_short.c); few long rows are taken one
 * after another, each split over the threads. Every row's answer is the same either way.
 */
#include <string.h>

#include "cpu_backend.h"

/* Row or segment r: where it starts and how long it is. */
static const unsigned char *row_at(const yamr__gpu_batch *c, size_t r, size_t *n)
{
    const size_t elem = yamr_dtype_size(c->dtype);
    if (c->kind == YAMR__BATCH_SEGMENTS) {
        /* A length that cannot be a buffer's is the caller's to avoid (yamr.h); it only has to
         * compute without undefined behaviour here. */
        *n = (size_t)yamr__segment_length(c->offsets[r], c->offsets[r + 1]);
        if (*n == 0) return (const unsigned char *)c->in; /* empty: nothing is read */
        return (const unsigned char *)c->in + (size_t)c->offsets[r] * elem;
    }
    *n = c->cols;
    return (const unsigned char *)c->in + r * c->ld * elem;
}

/* Row (segment) r split over the plan's threads (few long rows); a segment takes fewer when it
 * is short (yamr__cpu_threads_for()), in chunks by its length. */
static void reduce_row_split(const yamr__cpu_config *cfg, const yamr__gpu_batch *c, size_t r)
{
    const size_t elem = yamr_dtype_size(c->dtype);
    const yamr_plan *plan = c->plan;
    size_t n;
    const unsigned char *row = row_at(c, r, &n);
    yamr__result res[2];
    if (n == 0) {
        res[0].index = -1;
        res[0].value_bits = yamr__empty_value_bits(c->dtype);
    } else {
        int threads = (int)YAMR__PLAN_CPU_THREADS(plan);
        size_t chunk_blocks = YAMR__PLAN_CPU_GRAB(plan);
        if (c->kind == YAMR__BATCH_SEGMENTS) {
            const int useful = yamr__cpu_threads_for(cfg, n * elem);
            if (useful < threads) threads = useful;
            chunk_blocks = yamr__cpu_chunk_blocks(n, threads);
        }
        yamr__cpu_reduce(cfg->isa, threads, chunk_blocks, c->dtype, 1, c->is_min, c->nan_ignore,
                         row, n, res);
    }
    memcpy((unsigned char *)c->values + r * elem, &res[0].value_bits, elem); /* little-endian */
    if (c->second) ((int64_t *)c->second)[r] = res[0].index;
}

void yamr__cpu_rows(const yamr__cpu_config *cfg, const yamr__gpu_batch *c)
{
    const yamr_plan *plan = c->plan;
    const int stream = (int)YAMR__PLAN_CPU_STREAM(plan);
    int threads = (int)YAMR__PLAN_CPU_THREADS(plan);
    size_t grab = YAMR__PLAN_CPU_GRAB(plan);
    if (YAMR__PLAN_CPU_SPLIT(plan)) {
        for (size_t r = 0; r < c->rows; ++r) reduce_row_split(cfg, c, r);
        return;
    }
    if (threads > 1 && c->kind == YAMR__BATCH_SEGMENTS) {
        /* the plan's most threads, as many as the segments' lengths make useful */
        const size_t elem = yamr_dtype_size(c->dtype);
        const size_t total = yamr__cpu_segments_total(cfg, c->dtype, c->offsets, c->rows);
        const int useful =
            yamr__cpu_threads_for(cfg, total > (size_t)-1 / elem ? (size_t)-1 : total * elem);
        threads = useful < threads ? useful : threads;
        if (threads > 1) grab = yamr__cpu_rows_grab(c->rows, total, threads);
    }
    if (threads > 1) {
#ifdef _OPENMP
        /* Grabs of `grab` rows; a signed loop variable: OpenMP 2.5 (MSVC) takes no other. */
        const long long grabs = (long long)((c->rows + grab - 1) / grab);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
        for (long long g = 0; g < grabs; ++g) {
            const size_t begin = (size_t)g * grab;
            const size_t end = c->rows - begin < grab ? c->rows : begin + grab;
            yamr__cpu_short_rows(cfg->isa, c, begin, end, stream);
        }
        return;
#endif
    }
    yamr__cpu_short_rows(cfg->isa, c, 0, c->rows, stream);
}

static void softmax_one(const yamr__cpu_config *cfg, const yamr__gpu_batch *c, size_t r)
{
    double m, s;
    yamr__cpu_softmax_row(cfg->isa, c->dtype, c->nan_ignore,
                          (const unsigned char *)c->in + r * c->ld * yamr_dtype_size(c->dtype),
                          c->cols, &m, &s);
    if (c->dtype == YAMR_DTYPE_F64) {
        ((double *)c->values)[r] = m;
        ((double *)c->second)[r] = s;
    } else {
        ((float *)c->values)[r] = (float)m;
        ((float *)c->second)[r] = (float)s;
    }
}

void yamr__cpu_softmax(const yamr__cpu_config *cfg, const yamr__gpu_batch *c)
{
    const int threads = (int)YAMR__PLAN_CPU_THREADS(c->plan);
    if (threads > 1) {
#ifdef _OPENMP
        /* Grabs taken dynamically, so that a thread whose core another process holds leaves its
         * rows to the others; a row's answer does not depend on which thread computes it. */
        const long long rows = (long long)c->rows;
        const int grab = (int)YAMR__PLAN_CPU_GRAB(c->plan);
#pragma omp parallel for num_threads(threads) schedule(dynamic, grab)
        for (long long r = 0; r < rows; ++r) softmax_one(cfg, c, (size_t)r);
        return;
#endif
    }
    for (size_t r = 0; r < c->rows; ++r) softmax_one(cfg, c, r);
}
