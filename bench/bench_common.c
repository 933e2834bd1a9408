/* SPDX-License-Identifier: MIT */
#include "bench_common.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli.h"
#include "cpu/cpu_backend.h" /* yamr__cpu_threads_for: the ceilings use the threads yamr's calls do */
#include "sweep_gpu.h"
/* YAMR_BENCH_GIT_REV, rewritten at build time when the revision changes (bench/CMakeLists.txt):
 * included here alone, so that a new revision recompiles this file only. */
#include "yamr_bench_rev.h"

void identity_of(const yamr_device_info *d, identity *id)
{
    static const char *const vendors[] = {"cpu", "nvidia", "amd"};
    snprintf(id->vendor, sizeof id->vendor, "%s", vendors[d->vendor]);
    snprintf(id->device, sizeof id->device, "%s", d->name);
    for (char *c = id->device; *c; ++c)
        if (*c == ',' || *c == '"') *c = ' ';
    snprintf(id->arch, sizeof id->arch, "%s", d->arch);
    id->warp_size = d->warp_size;
    id->its = d->independent_thread_scheduling;
}

int bench_open(const char *command, int device, FILE *out, int device_report, yamr_context **ctx,
               identity *id, int *on_gpu)
{
    const int rc = cli_open(command, device, out, ctx, on_gpu);
    if (rc) return rc;
    yamr_device_info info;
    yamr_get_device_info(*ctx, &info);
    identity_of(&info, id);
    if (device_report) fprintf(out, "%s\n", yamr_report(*ctx));
    return 0;
}

void csv_identity(FILE *f, const identity *id)
{
    fprintf(f, "%s,%s,%s,%d,%d,%s,%s,%s,", id->vendor, id->device, id->arch, id->warp_size, id->its,
            YAMR_BENCH_COMPILER, YAMR_VERSION_STRING, YAMR_BENCH_GIT_REV);
}

void json_identity(FILE *f, const identity *id)
{
    fprintf(f,
            "  {\"vendor\": \"%s\", \"device\": \"%s\", \"arch\": \"%s\", \"warp_size\": %d, "
            "\"its\": %d, \"compiler\": \"%s\", \"library_version\": \"%s\", \"git_rev\": \"%s\", ",
            id->vendor, id->device, id->arch, id->warp_size, id->its, YAMR_BENCH_COMPILER,
            YAMR_VERSION_STRING, YAMR_BENCH_GIT_REV);
}

void json_number(FILE *f, const char *key, double v, const char *format, const char *sep)
{
    fprintf(f, "\"%s\": ", key);
    if (isnan(v))
        fprintf(f, "null");
    else
        fprintf(f, format, v);
    fprintf(f, "%s", sep);
}

void json_timing(FILE *f, double median_us, double min_us, double gbps, double pct_copy)
{
    json_number(f, "median_us", median_us, "%.3f", ", ");
    json_number(f, "min_us", min_us, "%.3f", ", ");
    json_number(f, "gbps", gbps, "%.1f", ", ");
    json_number(f, "pct_copy", pct_copy, "%.2f", ", ");
}

void csv_number(FILE *f, double v, const char *format, const char *sep)
{
    if (!isnan(v)) fprintf(f, format, v);
    fprintf(f, "%s", sep);
}

void csv_timing(FILE *f, double median_us, double min_us, double gbps, double pct_copy)
{
    csv_number(f, median_us, "%.3f", ",");
    csv_number(f, min_us, "%.3f", ",");
    csv_number(f, gbps, "%.1f", ",");
    csv_number(f, pct_copy, "%.2f", ",");
}

int open_results(const char *prefix, FILE **csv, FILE **json)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", prefix);
    char *slash = strrchr(path, '/');
    if (slash) { /* the --out folder, made at the first result written (cli_out_dir) */
        *slash = '\0';
        if (cli_make_out_dir("results", path)) {
            *csv = *json = NULL;
            return 1;
        }
    }
    snprintf(path, sizeof path, "%s.csv", prefix);
    *csv = fopen(path, "w");
    snprintf(path, sizeof path, "%s.json", prefix);
    *json = fopen(path, "w");
    if (*csv && *json) return 0;
    fprintf(stderr, "yamr-bench: cannot write %s.{csv,json}: %s\n", prefix, strerror(errno));
    if (*csv) fclose(*csv);
    if (*json) fclose(*json);
    return 1;
}

const char *bench_timing_name(int on_gpu, int queued)
{
    return !on_gpu ? "host_clock" : queued ? "queued" : "isolated";
}

int bench_launch_floor(const char *command, FILE *out, int warmup, int reps, int queued,
                       double *median_us, double *min_us)
{
    char err[512] = "";
    if (sweep_launch_floor(warmup, reps, queued, median_us, min_us, err, sizeof err)) {
        fprintf(stderr, "yamr-bench %s: launch floor: %s\n", command, err);
        return 1;
    }
    fprintf(out, "launch floor: %.2f us (median of an empty kernel, timed as the calls are)\n",
            *median_us);
    fprintf(out, "timing: %s\n", queued ? "queued (an event pair around each call, all launched behind a "
                                     "held stream: the device's time alone)"
                                   : "isolated (an event pair around each call as it is launched)");
    return 0;
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e6 * (double)t.tv_sec + 1e-3 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void sweep_times_of(double *us, int n, sweep_times *t)
{
    qsort(us, (size_t)n, sizeof *us, cmp_double);
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += us[i];
    t->median_us = us[n / 2];
    t->min_us = us[0];
    t->max_us = us[n - 1];
    t->mean_us = sum / n;
}

int bench_time_host(sweep_call call, void *arg, int warmup, int reps, sweep_times *t, char *err,
                    size_t errlen)
{
    double *us = (double *)malloc((size_t)reps * sizeof *us);
    if (!us) {
        snprintf(err, errlen, "out of host memory");
        return 1;
    }
    for (int i = 0; i < warmup; ++i) call(arg, i);
    for (int i = 0; i < reps; ++i) {
        const double t0 = now_us();
        if (call(arg, i)) {
            free(us);
            snprintf(err, errlen, "call failed");
            return 1;
        }
        us[i] = now_us() - t0;
    }
    sweep_times_of(us, reps, t);
    free(us);
    return 0;
}

void host_fill(yamr_dtype t, void *p, size_t n, unsigned long long seed)
{
    /* each element from its index alone: the threads' shares need no order */
#pragma omp parallel for schedule(static) num_threads(host_threads_for(n))
    for (size_t i = 0; i < n; ++i) {
        unsigned long long h = (seed ^ i) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
        h *= 0xbf58476d1ce4e5b9ull;
        h ^= h >> 32;
        const float f = (float)(h >> 40) / (float)(1ull << 23) - 1.0f;
        uint32_t u;
        memcpy(&u, &f, 4);
        switch (t) {
        case YAMR_DTYPE_F32: ((float *)p)[i] = f; break;
        case YAMR_DTYPE_F64: ((double *)p)[i] = (double)f; break;
        case YAMR_DTYPE_F16: ((uint16_t *)p)[i] = (uint16_t)((h >> 20) & 0x3bffu) | (uint16_t)((h & 1) << 15); break;
        case YAMR_DTYPE_BF16: ((uint16_t *)p)[i] = (uint16_t)(u >> 16); break;
        case YAMR_DTYPE_I32: ((int32_t *)p)[i] = (int32_t)(h >> 32); break;
        case YAMR_DTYPE_U32: ((uint32_t *)p)[i] = (uint32_t)(h >> 32); break;
        case YAMR_DTYPE_I64: ((int64_t *)p)[i] = (int64_t)h; break;
        }
    }
}

int host_threads_for(size_t bytes)
{
    const yamr__cpu_config config = {YAMR__CPU_ISA_BASELINE, 0, 0}; /* max_threads 0: OpenMP's */
    return yamr__cpu_threads_for(&config, bytes);
}

size_t host_cache_bytes(void)
{
    long size = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
    size = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (size <= 0) size = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return size > 0 ? (size_t)size : (size_t)32 << 20; /* unknown: a common last level */
}

/* XOR of `words` 8-byte words, eight at a time: vectorized, and cloned for the vector widths
 * yamr's scans use on x86-64 (its ceiling must not read narrower than yamr does). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
static uint64_t xor_words(const uint64_t *w, size_t words)
{
    uint64_t lane[8] = {0};
    size_t i = 0;
    for (; i + 8 <= words; i += 8)
        for (int k = 0; k < 8; ++k) lane[k] ^= w[i + (size_t)k];
    uint64_t x = 0;
    for (; i < words; ++i) x ^= w[i];
    for (int k = 0; k < 8; ++k) x ^= lane[k];
    return x;
}

uint64_t host_read(const void *src, size_t bytes)
{
    const unsigned char *p = (const unsigned char *)src;
    const size_t words = bytes / 8;
    uint64_t x = 0;
    const int threads = host_threads_for(bytes);
    if (threads == 1 && ((uintptr_t)p & 7) == 0) /* no parallel region: yamr starts none either */
        x = xor_words((const uint64_t *)(const void *)p, words);
    else
#pragma omp parallel num_threads(threads) reduction(^ : x)
    {
        size_t id = 0, count = 1;
#ifdef _OPENMP
        id = (size_t)omp_get_thread_num();
        count = (size_t)omp_get_num_threads();
#endif
        /* contiguous shares, as the CPU backend splits an array; 8-byte aligned as yamr's pools */
        const size_t lo = words * id / count, hi = words * (id + 1) / count;
        uint64_t w[1];
        if (((uintptr_t)p & 7) == 0) {
            x ^= xor_words((const uint64_t *)(const void *)p + lo, hi - lo);
        } else {
            for (size_t i = lo; i < hi; ++i) {
                memcpy(w, p + 8 * i, 8);
                x ^= w[0];
            }
        }
    }
    for (size_t i = 8 * words; i < bytes; ++i) x ^= p[i];
    return x;
}

void host_copy(void *dst, const void *src, size_t bytes)
{
    const int threads = host_threads_for(bytes);
    if (threads == 1) {
        memcpy(dst, src, bytes);
        return;
    }
#pragma omp parallel num_threads(threads)
    {
        size_t id = 0, count = 1;
#ifdef _OPENMP
        id = (size_t)omp_get_thread_num();
        count = (size_t)omp_get_num_threads();
#endif
        const size_t lo = bytes * id / count / 64 * 64;
        const size_t hi = id + 1 == count ? bytes : bytes * (id + 1) / count / 64 * 64;
        memcpy((char *)dst + lo, (const char *)src + lo, hi - lo);
    }
}
