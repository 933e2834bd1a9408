/* SPDX-License-Identifier: MIT */
/*
 * The CPU backend's batched calls: rows, segments and softmax statistics. Many rows (segments)
 * are spread over threads in grabs of whole rows, each grab one call of the fused pass
 * (cpu_short.c); fewer rows than YAMR__CPU_ROWS_PER_THREAD per thread are taken one after
 * another, each split over the threads when it is long enough. Every row's answer is the same
 * either way.
 */
#include <string.h>

#include "cpu_backend.h"

/* Below this many rows per thread a spread leaves threads idle at the end: split rows instead. */
#define YAMR__CPU_ROWS_PER_THREAD 4
/* Rows (segments) a thread takes at a time: about this many elements. Large, because each grab
 * is a new stream that the hardware prefetchers learn only after a few KiB (docs/performance.md:
 * small grabs left two threads no faster than one on memory-sized batches). */
#define YAMR__CPU_ELEMENTS_PER_GRAB 131072

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

/* Segments the plan reads at least before it estimates the rest from them. */
#define YAMR__CPU_SEGMENTS_SAMPLED 4096

/* The elements all rows (segments) hold together, saturating at SIZE_MAX. For segments, this
 * runs on one thread before any other starts: once the first YAMR__CPU_SEGMENTS_SAMPLED
 * segments hold `enough` elements, the rest are taken to be as long on average. Only the thread
 * count and the grab size come from it, and no answer depends on those. */
static size_t total_elements(const yamr__gpu_batch *c, size_t enough)
{
    if (c->kind != YAMR__BATCH_SEGMENTS) return c->rows * c->cols; /* matrix_ok() bounds it */
    size_t total = 0, r = 0;
    for (; r < c->rows; ++r) {
        if (r >= YAMR__CPU_SEGMENTS_SAMPLED && total >= enough) break;
        const size_t n = (size_t)yamr__segment_length(c->offsets[r], c->offsets[r + 1]);
        total = n > (size_t)-1 - total ? (size_t)-1 : total + n;
    }
    if (r == c->rows) return total;
    const size_t per_row = total / r;
    return per_row > (size_t)-1 / c->rows ? (size_t)-1 : per_row * c->rows;
}

/* How the rows go over threads: `spread` threads each taking `grab` rows at a time, or (spread
 * 1) one row after another with `split` set when a row may use several threads itself. */
typedef struct {
    int spread;
    size_t grab;
    int split;
    int stream; /* answers by non-temporal stores (the fused pass, where it can) */
} rows_plan;

static rows_plan plan_rows(const yamr__cpu_config *cfg, const yamr__gpu_batch *c)
{
    rows_plan p = {1, 1, 0, 0};
    const size_t elem = yamr_dtype_size(c->dtype);
    const size_t answer = elem + (c->second ? sizeof(int64_t) : 0);
    p.stream = c->rows >= cfg->stream_answer_bytes / answer;
    /* enough for every thread this call may start */
    const size_t most_threads = (size_t)yamr__cpu_threads_for(cfg, (size_t)-1);
    const size_t total =
        total_elements(c, most_threads * (YAMR__CPU_MIN_BYTES_PER_THREAD / elem));
    const int threads =
        yamr__cpu_threads_for(cfg, total > (size_t)-1 / elem ? (size_t)-1 : total * elem);
    if (threads <= 1) return p;
    if (c->rows < (size_t)YAMR__CPU_ROWS_PER_THREAD * (size_t)threads) {
        p.split = 1;
        return p;
    }
    p.spread = threads;
    const size_t per_row = total / c->rows;
    p.grab = per_row >= YAMR__CPU_ELEMENTS_PER_GRAB ? 1 : YAMR__CPU_ELEMENTS_PER_GRAB / (per_row + 1);
    const size_t fair = c->rows / ((size_t)threads * YAMR__CPU_ROWS_PER_THREAD);
    if (p.grab > fair) p.grab = fair < 1 ? 1 : fair;
    /* Whole groups of rows for the fused pass, which takes rows shorter than a vector's lanes
     * 64 at a time. */
    if (p.grab > 64) p.grab -= p.grab % 64;
    return p;
}

/* Row (segment) r split over the threads when it is long enough (few rows). */
static void reduce_row_split(const yamr__cpu_config *cfg, const yamr__gpu_batch *c, size_t r)
{
    const size_t elem = yamr_dtype_size(c->dtype);
    size_t n;
    const unsigned char *row = row_at(c, r, &n);
    yamr__result res[2];
    if (n == 0) {
        res[0].index = -1;
        res[0].value_bits = yamr__empty_value_bits(c->dtype);
    } else {
        yamr__cpu_reduce(cfg, c->dtype, 1, c->is_min, c->nan_ignore, row, n, res);
    }
    memcpy((unsigned char *)c->values + r * elem, &res[0].value_bits, elem); /* little-endian */
    if (c->second) ((int64_t *)c->second)[r] = res[0].index;
}

void yamr__cpu_rows(const yamr__cpu_config *cfg, const yamr__gpu_batch *c)
{
    const rows_plan p = plan_rows(cfg, c);
    if (p.split) {
        for (size_t r = 0; r < c->rows; ++r) reduce_row_split(cfg, c, r);
        return;
    }
    if (p.spread > 1) {
#ifdef _OPENMP
        /* Grabs of p.grab rows; a signed loop variable: OpenMP 2.5 (MSVC) takes no other. */
        const long long grabs = (long long)((c->rows + p.grab - 1) / p.grab);
#pragma omp parallel for num_threads(p.spread) schedule(dynamic, 1)
        for (long long g = 0; g < grabs; ++g) {
            const size_t begin = (size_t)g * p.grab;
            const size_t end = c->rows - begin < p.grab ? c->rows : begin + p.grab;
            yamr__cpu_short_rows(cfg->isa, c, begin, end, p.stream);
        }
#endif
        return;
    }
    yamr__cpu_short_rows(cfg->isa, c, 0, c->rows, p.stream);
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
    /* exp() per element makes a row cost more than its read: spread rows even when few. */
    const size_t elem = yamr_dtype_size(c->dtype);
    const size_t bytes = c->rows * c->cols * elem; /* matrix_ok() bounds it */
    int threads = yamr__cpu_threads_for(cfg, bytes > (size_t)-1 / 16 ? (size_t)-1 : bytes * 16);
    if ((size_t)threads > c->rows) threads = (int)c->rows;
    if (threads > 1) {
#ifdef _OPENMP
        /* Grabs taken dynamically, about YAMR__CPU_CHUNKS_PER_THREAD per thread, so that a
         * thread whose core another process holds leaves its rows to the others; a row's answer
         * does not depend on which thread computes it. */
        const long long rows = (long long)c->rows;
        const size_t per = c->rows / ((size_t)threads * YAMR__CPU_CHUNKS_PER_THREAD);
        const int grab = per < 1 ? 1 : per > 65536 ? 65536 : (int)per;
#pragma omp parallel for num_threads(threads) schedule(dynamic, grab)
        for (long long r = 0; r < rows; ++r) softmax_one(cfg, c, (size_t)r);
#endif
        return;
    }
    for (size_t r = 0; r < c->rows; ++r) softmax_one(cfg, c, r);
}
