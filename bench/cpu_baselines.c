/* SPDX-License-Identifier: MIT */
/*
 * yamr-cpu-baselines: the CPU backend next to its baselines, in one process, on the same bytes:
 * yamr's calls, a plain first-index argmax loop in C (this file's compiler and flags: -O3 in a
 * Release build), and the read ceiling (every thread summing the same bytes as 64-bit words; for
 * f32 also two other forms of the read, two streams per thread and a software prefetch, to see
 * whether any reads faster).
 * bench/cpu_baselines.sh runs it beside numpy and prints one table.
 *
 *     yamr-cpu-baselines [--n N] [--reps R] [--quick]
 *     yamr-cpu-baselines --in-cache [--reps R]
 *
 * One tab-separated line per measurement: case, dtype, size, impl, threads, best ms, bytes read.
 * Every yamr argmax answer (grid-wide, and every row or segment of a batched argmax) is checked
 * against a plain loop before it is timed. Times are the best of R
 * wall-clock runs (default 9) after one untimed run; the measurements of one dtype (one shape)
 * take turns, so that they see the machine alike. --quick: small sizes, for a smoke test.
 * --in-cache: the one-thread scan of 16384 elements (in L1 and L2) with every instruction set
 * compiled in that this CPU runs, argmax and min+max per dtype, in GB/s: the kernels' speed
 * without memory in the way.
 * The input lives on transparent huge pages where the kernel allows them (as numpy's arrays do).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "cpu/cpu_backend.h" /* the scans by instruction set: --in-cache */
#include "yamr.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int max_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t next_random(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Random values of the dtype: floats in (-1, 1), integers over their whole range. */
static void fill(yamr_dtype t, void *p, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        const uint64_t r = next_random();
        const double u = (double)(r >> 11) * (2.0 / 9007199254740992.0) - 1.0;
        switch (t) {
        case YAMR_DTYPE_F32: ((float *)p)[i] = (float)u; break;
        case YAMR_DTYPE_F64: ((double *)p)[i] = u; break;
        case YAMR_DTYPE_F16: { /* finite halves: exponent below 31 */
            uint16_t h = (uint16_t)(r & 0xffff);
            if ((h & 0x7c00) == 0x7c00) h &= 0xbfff;
            ((uint16_t *)p)[i] = h;
            break;
        }
        case YAMR_DTYPE_BF16: {
            uint16_t h = (uint16_t)(r & 0xffff);
            if ((h & 0x7f80) == 0x7f80) h &= 0xbfff;
            ((uint16_t *)p)[i] = h;
            break;
        }
        case YAMR_DTYPE_I32:
        case YAMR_DTYPE_U32: ((uint32_t *)p)[i] = (uint32_t)r; break;
        case YAMR_DTYPE_I64: ((uint64_t *)p)[i] = r; break;
        }
    }
}

/* The plain loop a user writes: first index of the largest element (no NaN in the data). */
static size_t plain_argmax(yamr_dtype t, const void *p, size_t n)
{
    size_t best = 0;
#define PLAIN_LOOP(ctype)                                                                      \
    {                                                                                          \
        const ctype *x = (const ctype *)p;                                                     \
        ctype v = x[0];                                                                        \
        for (size_t i = 1; i < n; ++i)                                                         \
            if (x[i] > v) {                                                                    \
                v = x[i];                                                                      \
                best = i;                                                                      \
            }                                                                                  \
    }
    switch (t) {
    case YAMR_DTYPE_F32: PLAIN_LOOP(float) break;
    case YAMR_DTYPE_F64: PLAIN_LOOP(double) break;
    case YAMR_DTYPE_I32: PLAIN_LOOP(int32_t) break;
    case YAMR_DTYPE_U32: PLAIN_LOOP(uint32_t) break;
    case YAMR_DTYPE_I64: PLAIN_LOOP(int64_t) break;
    default: break;
    }
#undef PLAIN_LOOP
    return best;
}

/* Buffers on transparent huge pages where the kernel offers them on request (madvise), as numpy
 * does for large arrays: with 4 KiB pages a streaming read spends its time on TLB misses. */
static void *alloc_buffer(size_t bytes)
{
    const size_t huge = (size_t)2 << 20;
    bytes = (bytes + huge - 1) / huge * huge;
    void *p = NULL;
    if (posix_memalign(&p, huge, bytes) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    if (p) madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}

/* How much of [p, p + bytes) the kernel backs with huge pages (Linux: /proc/self/smaps), in KiB;
 * -1 where that cannot be read. */
static long huge_kib(const void *p, size_t bytes)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    const uintptr_t lo = (uintptr_t)p, hi = lo + bytes;
    char line[256];
    int inside = 0;
    long total = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long a, b;
        long kib;
        if (sscanf(line, "%llx-%llx ", &a, &b) == 2 && strchr(line, '-') < strchr(line, ' '))
            inside = a < hi && b > lo;
        else if (inside && sscanf(line, "AnonHugePages: %ld kB", &kib) == 1)
            total += kib;
    }
    fclose(f);
    return total;
}

static volatile uint64_t sink;

/* One thread's share of the read: 64-bit words summed into 8 independent sums (a cache line per
 * step, no chain of dependent adds), so that memory and not the adds sets its speed even in the
 * compiler's baseline instruction set. */
static inline uint64_t sum_words(const uint64_t *w, size_t count)
{
    uint64_t lane[8] = {0};
    size_t i = 0;
    for (; count - i >= 8; i += 8)
        for (int k = 0; k < 8; ++k) lane[k] += w[i + (size_t)k];
    uint64_t sum = 0;
    for (; i < count; ++i) sum += w[i];
    for (int k = 0; k < 8; ++k) sum += lane[k];
    return sum;
}

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
/* The same sum with the vector registers yamr's scans get on this CPU, for a fair ceiling. */
__attribute__((target("avx512f"))) static uint64_t sum_words_avx512(const uint64_t *w, size_t n)
{
    return sum_words(w, n);
}
__attribute__((target("avx2"))) static uint64_t sum_words_avx2(const uint64_t *w, size_t n)
{
    return sum_words(w, n);
}
static uint64_t sum_words_best(const uint64_t *w, size_t n)
{
    if (__builtin_cpu_supports("avx512f")) return sum_words_avx512(w, n);
    if (__builtin_cpu_supports("avx2")) return sum_words_avx2(w, n);
    return sum_words(w, n);
}
#else
static uint64_t sum_words_best(const uint64_t *w, size_t n) { return sum_words(w, n); }
#endif

/* Other forms of the same read, to see whether any reads faster than the plain one: each
 * thread's share read as two halves in turn (two streams for the prefetchers), or with a software
 * prefetch 4 KiB ahead into L2 on every cache line. */
typedef enum { READ_PLAIN, READ_TWO_STREAMS, READ_PREFETCH } read_form;

static uint64_t sum_words_form(const uint64_t *w, size_t count, read_form form)
{
    if (form == READ_TWO_STREAMS) {
        const size_t half = count / 2 / 8 * 8;
        const uint64_t *a = w, *b = w + half;
        uint64_t lane[16] = {0};
        for (size_t i = 0; i < half; i += 8)
            for (int k = 0; k < 8; ++k) {
                lane[k] += a[i + (size_t)k];
                lane[8 + k] += b[i + (size_t)k];
            }
        uint64_t sum = sum_words_best(w + 2 * half, count - 2 * half);
        for (int k = 0; k < 16; ++k) sum += lane[k];
        return sum;
    }
    if (form == READ_PREFETCH) {
        uint64_t sum = 0;
        const size_t step = 512; /* words: 4 KiB, a prefetch per cache line */
        for (size_t i = 0; i < count; i += step) {
            const size_t end = count - i < step ? count : i + step;
            for (size_t j = i; j < end; j += 8) __builtin_prefetch(w + j + step, 0, 2);
            sum += sum_words_best(w + i, end - i);
        }
        return sum;
    }
    return sum_words_best(w, count);
}

/* The read ceiling: all threads sum `bytes` (a multiple of 8) as 64-bit words, each a
 * contiguous share, as the scans split an array. */
static void read_all(const void *p, size_t bytes, read_form form)
{
    const uint64_t *w = (const uint64_t *)p;
    const size_t words = bytes / 8;
    uint64_t sum = 0;
#pragma omp parallel reduction(+ : sum)
    {
        size_t id = 0, count = 1;
#ifdef _OPENMP
        id = (size_t)omp_get_thread_num();
        count = (size_t)omp_get_num_threads();
#endif
        const size_t lo = words * id / count, hi = words * (id + 1) / count;
        sum += sum_words_form(w + lo, hi - lo, form);
    }
    sink = sum;
}

typedef enum {
    JOB_REDUCE,
    JOB_MINMAX,
    JOB_PLAIN,
    JOB_READ,
    JOB_READ_TWO_STREAMS,
    JOB_READ_PREFETCH,
    JOB_ROWS,
    JOB_SEGMENTS,
    JOB_SOFTMAX
} job_kind;

typedef struct {
    job_kind kind;
    yamr_context *ctx;
    yamr_op op;
    yamr_dtype t;
    const void *in;
    size_t n, rows, cols;
    const int64_t *offsets;
    void *values;
    int64_t *indices;
    void *second;
} job;

static int run_job(const job *j)
{
    unsigned char v[8], w[8];
    int64_t i0 = 0, i1 = 0;
    switch (j->kind) {
    case JOB_REDUCE: return yamr_reduce(j->ctx, j->op, j->t, j->in, j->n, v, &i0) != YAMR_SUCCESS;
    case JOB_MINMAX:
        return yamr_minmax(j->ctx, j->t, j->in, j->n, v, &i0, w, &i1) != YAMR_SUCCESS;
    case JOB_PLAIN: sink = plain_argmax(j->t, j->in, j->n); return 0;
    case JOB_READ: read_all(j->in, j->n, READ_PLAIN); return 0;
    case JOB_READ_TWO_STREAMS: read_all(j->in, j->n, READ_TWO_STREAMS); return 0;
    case JOB_READ_PREFETCH: read_all(j->in, j->n, READ_PREFETCH); return 0;
    case JOB_ROWS:
        return yamr_reduce_rows(j->ctx, j->op, j->t, j->in, j->rows, j->cols, j->cols, j->values,
                                j->indices) != YAMR_SUCCESS;
    case JOB_SEGMENTS:
        return yamr_reduce_segments(j->ctx, j->op, j->t, j->in, j->offsets, j->rows, j->values,
                                    j->indices) != YAMR_SUCCESS;
    case JOB_SOFTMAX:
        return yamr_softmax_stats_rows(j->ctx, j->t, j->in, j->rows, j->cols, j->cols, j->values,
                                       j->second) != YAMR_SUCCESS;
    }
    return 1;
}

static int reps = 9;

/* One measurement of a group: what runs, how its line is labelled, its best time. */
typedef struct {
    job j;
    const char *name, *impl;
    size_t bytes;
    double best;
} timed;

/* Times a group of jobs on the same data in turn, `reps` rounds after one untimed run of each,
 * so that a moment when another process held a core falls on all of them alike; prints each
 * one's best. */
static int time_group(timed *g, int count, const char *size)
{
    for (int k = 0; k < count; ++k) {
        if (run_job(&g[k].j)) {
            fprintf(stderr, "%s %s %s: the call failed\n", g[k].name, size, g[k].impl);
            return 1;
        }
        g[k].best = 1e300;
    }
    for (int r = 0; r < reps; ++r)
        for (int k = 0; k < count; ++k) {
            const double t0 = now_ms();
            run_job(&g[k].j);
            const double dt = now_ms() - t0;
            if (dt < g[k].best) g[k].best = dt;
        }
    for (int k = 0; k < count; ++k)
        printf("%s\t%s\t%s\t%s\t%d\t%.4f\t%zu\n", g[k].name, yamr_dtype_name(g[k].j.t), size,
               g[k].impl, g[k].j.kind == JOB_PLAIN ? 1 : max_threads(), g[k].best, g[k].bytes);
    fflush(stdout);
    return 0;
}

static int check_argmax(yamr_context *ctx, yamr_dtype t, const void *in, size_t n)
{
    if (t == YAMR_DTYPE_F16 || t == YAMR_DTYPE_BF16) return 0; /* no C type: the tests cover it */
    unsigned char v[8];
    int64_t index = -1;
    if (yamr_reduce(ctx, YAMR_OP_ARGMAX, t, in, n, v, &index) != YAMR_SUCCESS) return 1;
    const size_t want = plain_argmax(t, in, n);
    if (index != (int64_t)want) {
        fprintf(stderr, "VERIFY FAILED %s argmax: %lld, the plain loop %zu\n", yamr_dtype_name(t),
                (long long)index, want);
        return 1;
    }
    return 0;
}

/* --in-cache: the kernels' speed per instruction set, data in cache. */
static int in_cache(void)
{
    const size_t n = 16384, calls = 200;
    uint64_t *x = (uint64_t *)malloc(n * 8);
    if (!x) return 1;
    printf("# dtype\top\tisa\tGB/s (one thread, %zu elements, best of %d x %zu calls)\n", n, reps,
           calls);
    for (int t = 0; t < YAMR_DTYPE_COUNT; ++t) {
        fill((yamr_dtype)t, x, n);
        for (int slots = 1; slots <= 2; ++slots)
            for (int isa = 0; isa < YAMR__CPU_ISA_COUNT; ++isa) {
                if (!yamr__cpu_isa_runs_here((yamr__cpu_isa)isa)) continue;
                double best = 1e300;
                for (int r = 0; r < reps; ++r) {
                    const double t0 = now_ms();
                    for (size_t c = 0; c < calls; ++c) {
                        yamr__cpu_best b[2];
                        yamr__cpu_scan((yamr__cpu_isa)isa, (yamr_dtype)t, slots, 0, 0, x, n, b);
                        sink += b[0].index;
                    }
                    const double dt = now_ms() - t0;
                    if (dt < best) best = dt;
                }
                printf("%s\t%s\t%s\t%.1f\n", yamr_dtype_name((yamr_dtype)t),
                       slots == 1 ? "argmax" : "minmax", yamr__cpu_isa_name((yamr__cpu_isa)isa),
                       (double)(n * yamr_dtype_size((yamr_dtype)t) * calls) / best / 1e6);
            }
    }
    free(x);
    return 0;
}

int main(int argc, char **argv)
{
    size_t n = (size_t)1 << 26;
    int quick = 0;
    for (int a = 1; a < argc; ++a) {
        if (!strcmp(argv[a], "--n") && a + 1 < argc) n = (size_t)strtoull(argv[++a], NULL, 0);
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc) reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--quick")) quick = 1;
        else if (!strcmp(argv[a], "--in-cache")) quick = -1;
        else {
            fprintf(stderr, "usage: yamr-cpu-baselines [--n N] [--reps R] [--quick | --in-cache]\n");
            return 2;
        }
    }
    if (reps < 1) reps = 1;
    if (quick < 0) return in_cache();
    if (quick) n = (size_t)1 << 16;
    yamr_context *ctx;
    if (yamr_create(&ctx, YAMR_DEVICE_CPU) != YAMR_SUCCESS) return 1;
    const size_t cap = n * 8 > ((size_t)1 << 31) ? n * 8 : ((size_t)1 << 31);
    void *buf = alloc_buffer(quick ? (n * 8 > ((size_t)1 << 24) ? n * 8 : ((size_t)1 << 24)) : cap);
    void *values = malloc((size_t)1 << 24);
    int64_t *indices = (int64_t *)malloc((size_t)1 << 23);
    void *second = malloc((size_t)1 << 24);
    if (!buf || !values || !indices || !second) return 1;
    { /* the plan of a batched call, which names the instruction set */
        yamr_plan plan;
        char why[512];
        if (yamr_plan_for(ctx, YAMR_CALL_ROWS, YAMR_OP_MAX, YAMR_DTYPE_F32, 1, 1, &plan) ==
                YAMR_SUCCESS &&
            yamr_plan_describe(ctx, &plan, why, sizeof why) == YAMR_SUCCESS)
            printf("# plan: %s\n", why);
    }
    printf("# case\tdtype\tsize\timpl\tthreads\tbest_ms\tbytes\n");
    char size[48];
    snprintf(size, sizeof size, "%zu", n);
    int rc = 0;
    for (int t = 0; t < YAMR_DTYPE_COUNT && !rc; ++t) {
        const yamr_dtype dt = (yamr_dtype)t;
        const size_t bytes = n * yamr_dtype_size(dt);
        fill(dt, buf, n);
        if (t == 0)
            printf("# input: %zu KiB, filled before any timing, in a mapping with %ld KiB on huge "
                   "pages\n", bytes / 1024, huge_kib(buf, bytes));
        rc |= check_argmax(ctx, dt, buf, n);
        const job j = {JOB_REDUCE, ctx, YAMR_OP_ARGMAX, dt, buf, n, 0, 0, NULL, NULL, NULL, NULL};
        timed g[7];
        int count = 0;
        g[count++] = (timed){j, "argmax", "yamr", bytes, 0};
        g[count] = g[0];
        g[count].name = "max";
        g[count++].j.op = YAMR_OP_MAX;
        g[count] = g[0];
        g[count].name = "minmax";
        g[count++].j.kind = JOB_MINMAX;
        if (dt != YAMR_DTYPE_F16 && dt != YAMR_DTYPE_BF16) {
            g[count] = g[0];
            g[count].impl = "c_loop";
            g[count++].j.kind = JOB_PLAIN;
        }
        g[count] = g[0];
        g[count].impl = "read";
        g[count].j.kind = JOB_READ;
        g[count++].j.n = bytes;
        if (dt == YAMR_DTYPE_F32) { /* the other read forms, once */
            g[count] = g[count - 1];
            g[count].impl = "read_two_streams";
            g[count++].j.kind = JOB_READ_TWO_STREAMS;
            g[count] = g[count - 1];
            g[count].impl = "read_prefetch";
            g[count++].j.kind = JOB_READ_PREFETCH;
        }
        rc |= time_group(g, count, size);
    }
    /* The batched shapes of yamr-bench rows (bench/rows.c), f32. */
    static const struct {
        const char *name;
        job_kind kind;
        yamr_op op;
        size_t rows, cols;
    } shapes[] = {
        {"rowmax", JOB_ROWS, YAMR_OP_MAX, 1024, 4096},
        {"rowargmax", JOB_ROWS, YAMR_OP_ARGMAX, 1024, 4096},
        {"rowmax", JOB_ROWS, YAMR_OP_MAX, 65536, 128},
        {"rowargmax", JOB_ROWS, YAMR_OP_ARGMAX, 65536, 128},
        {"rowargmax", JOB_ROWS, YAMR_OP_ARGMAX, (size_t)1 << 20, 16},
        {"rowmax", JOB_ROWS, YAMR_OP_MAX, 4096, 32768},
        {"rowargmax", JOB_ROWS, YAMR_OP_ARGMAX, 4, (size_t)1 << 24},
        {"segargmax", JOB_SEGMENTS, YAMR_OP_ARGMAX, (size_t)1 << 20, 129},
        {"softmax_stats", JOB_SOFTMAX, YAMR_OP_MAX, 1024, 4096},
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0] && !rc; ++s) {
        size_t rows = shapes[s].rows, cols = shapes[s].cols;
        if (quick) rows = rows / 64 ? rows / 64 : 1;
        if (quick && cols > 4096) cols = 4096;
        job j = {shapes[s].kind, ctx, shapes[s].op, YAMR_DTYPE_F32, buf, 0, rows, cols, NULL,
                 values, indices, second};
        size_t elems = rows * cols;
        int64_t *offsets = NULL;
        if (shapes[s].kind == JOB_SEGMENTS) { /* lengths 0 .. 2 * cols - 2, mean cols - 1 */
            offsets = (int64_t *)malloc((rows + 1) * sizeof *offsets);
            if (!offsets) return 1;
            offsets[0] = 0;
            for (size_t r = 0; r < rows; ++r)
                offsets[r + 1] = offsets[r] + (int64_t)(next_random() % (2 * cols - 1));
            elems = (size_t)offsets[rows];
            j.offsets = offsets;
            snprintf(size, sizeof size, "%zu segs, %zu elems", rows, elems);
        } else {
            snprintf(size, sizeof size, "%zu x %zu", rows, cols);
        }
        fill(YAMR_DTYPE_F32, buf, elems);
        if (shapes[s].op == YAMR_OP_ARGMAX) { /* every row's index against the plain loop */
            if (run_job(&j)) return 1;
            for (size_t r = 0; r < rows; ++r) {
                const size_t begin = offsets ? (size_t)offsets[r] : r * cols;
                const size_t len = offsets ? (size_t)(offsets[r + 1] - offsets[r]) : cols;
                const int64_t want = len ? (int64_t)plain_argmax(YAMR_DTYPE_F32,
                                                                 (const float *)buf + begin, len)
                                         : -1;
                if (indices[r] != want) {
                    fprintf(stderr, "VERIFY FAILED %s %s row %zu: %lld, the plain loop %lld\n",
                            shapes[s].name, size, r, (long long)indices[r], (long long)want);
                    return 1;
                }
            }
        }
        timed g[2] = {{j, shapes[s].name, "yamr", elems * 4, 0}, {j, shapes[s].name, "read", elems * 4, 0}};
        g[1].j.kind = JOB_READ;
        g[1].j.n = elems * 4;
        rc |= time_group(g, 2, size);
        free(offsets);
    }
    free(buf);
    free(values);
    free(indices);
    free(second);
    yamr_destroy(ctx);
    return rc;
}
