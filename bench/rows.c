/*
 * yamr-bench rows: the batched reductions on the shapes of their issue, next to a copy.
 *
 *   rowmax and rowargmax f32 1024 x 4096; rowmax 65536 x 128; rowmax 4096 x 32768;
 *   rowargmax 4 x 2^24; argmax over 2^20 segments of random length 0..128;
 *   softmax statistics f32 1024 x 4096.
 *
 * Every result is checked against the CPU backend before it is timed. GPU times are event pairs
 * around each asynchronous call (median and minimum of --reps after --warmup calls); inputs
 * smaller than twice the L2 rotate over several copies so that the L2 does not serve them. GB/s
 * counts the bytes of input read (the offsets too, for segments). Without a GPU the CPU backend
 * is timed by wall clock on shapes with 1/16 of the rows (--quick does the same on a GPU).
 * bench/rows_torch.py prints the same table for PyTorch.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"
#include "sweep_gpu.h"
#include "yamr.h"

typedef enum { CASE_ROWS, CASE_SEGMENTS, CASE_SOFTMAX } case_kind;

typedef struct {
    const char *name;
    case_kind kind;
    yamr_op op;
    size_t rows, cols; /* segments: count, and the longest segment + 1 */
} rows_case;

static const rows_case cases[] = {
    {"rowmax", CASE_ROWS, YAMR_OP_MAX, 1024, 4096},
    {"rowargmax", CASE_ROWS, YAMR_OP_ARGMAX, 1024, 4096},
    {"rowmax", CASE_ROWS, YAMR_OP_MAX, 65536, 128},
    {"rowmax", CASE_ROWS, YAMR_OP_MAX, 4096, 32768},
    {"rowargmax", CASE_ROWS, YAMR_OP_ARGMAX, 4, (size_t)1 << 24},
    {"segargmax", CASE_SEGMENTS, YAMR_OP_ARGMAX, (size_t)1 << 20, 129},
    {"softmax_stats", CASE_SOFTMAX, YAMR_OP_MAX, 1024, 4096},
};
#define CASE_COUNT (sizeof cases / sizeof cases[0])

typedef struct {
    char name[32], size[32], shape[24];
    double median_us, min_us, gbps, pct_copy;
} result_row;

typedef struct {
    yamr_context *ctx;
    const rows_case *c;
    size_t rows, cols;
    char *pool; /* rotations copies of the input, `stride` bytes apart */
    size_t stride, rotations;
    const int64_t *offsets;
    void *values, *second;
} call_arg;

static int one_call(void *p, int rep)
{
    call_arg *a = (call_arg *)p;
    const char *in = a->pool + (size_t)rep % a->rotations * a->stride;
    yamr_status s;
    switch (a->c->kind) {
    case CASE_SEGMENTS:
        s = yamr_reduce_segments_async(a->ctx, a->c->op, YAMR_DTYPE_F32, in, a->offsets, a->rows,
                                       a->values, (int64_t *)a->second);
        break;
    case CASE_SOFTMAX:
        s = yamr_softmax_stats_rows_async(a->ctx, YAMR_DTYPE_F32, in, a->rows, a->cols, a->cols,
                                          a->values, a->second);
        break;
    default:
        s = yamr_reduce_rows_async(a->ctx, a->c->op, YAMR_DTYPE_F32, in, a->rows, a->cols, a->cols,
                                   a->values,
                                   a->c->op == YAMR_OP_ARGMAX ? (int64_t *)a->second : NULL);
    }
    return s != YAMR_SUCCESS;
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

static int time_calls(call_arg *a, int on_gpu, int warmup, int reps, double *median, double *min,
                      char *err, size_t errlen)
{
    if (on_gpu) return sweep_time(one_call, a, warmup, reps, median, min, err, errlen);
    double *us = (double *)malloc((size_t)reps * sizeof *us);
    if (!us) return 1;
    for (int i = 0; i < warmup; ++i) one_call(a, i);
    for (int i = 0; i < reps; ++i) {
        const double t0 = now_us();
        if (one_call(a, i)) {
            free(us);
            snprintf(err, errlen, "call failed");
            return 1;
        }
        us[i] = now_us() - t0;
    }
    qsort(us, (size_t)reps, sizeof *us, cmp_double);
    *median = us[reps / 2];
    *min = us[0];
    free(us);
    return 0;
}

static unsigned long long mix(unsigned long long x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Values in [-1, 1), as sweep_fill makes them on a GPU. */
static void host_fill(float *p, size_t n, unsigned long long seed)
{
    for (size_t i = 0; i < n; ++i) p[i] = (float)(mix(seed ^ i) >> 40) / (float)(1ull << 23) - 1.0f;
}

/* The case's answer on the CPU backend from the host copy `host`, against the GPU's. */
static int verify(yamr_context *ctx, yamr_context *cpu, const call_arg *a, const float *host,
                  const int64_t *host_offsets, const char *what)
{
    const size_t n = a->rows, bytes = n * 8;
    char *want_v = (char *)malloc(bytes), *want_s = (char *)malloc(bytes);
    char *got_v = (char *)malloc(bytes), *got_s = (char *)malloc(bytes);
    int bad = !want_v || !want_s || !got_v || !got_s;
    yamr_status s = YAMR_SUCCESS;
    if (!bad) {
        memset(want_s, 0, bytes);
        memset(got_s, 0, bytes);
        switch (a->c->kind) {
        case CASE_SEGMENTS:
            s = yamr_reduce_segments(cpu, a->c->op, YAMR_DTYPE_F32, host, host_offsets, n, want_v,
                                     (int64_t *)want_s);
            break;
        case CASE_SOFTMAX:
            s = yamr_softmax_stats_rows(cpu, YAMR_DTYPE_F32, host, n, a->cols, a->cols, want_v,
                                        want_s);
            break;
        default:
            s = yamr_reduce_rows(cpu, a->c->op, YAMR_DTYPE_F32, host, n, a->cols, a->cols, want_v,
                                 (int64_t *)want_s);
        }
        if (s == YAMR_SUCCESS && one_call((void *)a, 0)) s = YAMR_ERROR_DEVICE;
        if (s == YAMR_SUCCESS) s = yamr_copy_to_host(ctx, got_v, a->values, n * 4);
        if (s == YAMR_SUCCESS && a->c->op == YAMR_OP_ARGMAX)
            s = yamr_copy_to_host(ctx, got_s, a->second, bytes);
        if (s == YAMR_SUCCESS && a->c->kind == CASE_SOFTMAX)
            s = yamr_copy_to_host(ctx, got_s, a->second, n * 4);
        bad = s != YAMR_SUCCESS;
    }
    for (size_t r = 0; r < n && !bad; ++r) {
        const float wv = ((float *)want_v)[r], gv = ((float *)got_v)[r];
        if (a->c->kind == CASE_SOFTMAX) {
            const float ws = ((float *)want_s)[r], gs = ((float *)got_s)[r];
            bad = wv != gv || fabsf(gs - ws) > 1e-5f * ws;
        } else {
            bad = memcmp(&wv, &gv, 4) != 0 ||
                  (a->c->op == YAMR_OP_ARGMAX && ((int64_t *)want_s)[r] != ((int64_t *)got_s)[r]);
        }
        if (bad)
            fprintf(stderr, "VERIFY FAILED %s row %zu: got %g / %lld, expected %g / %lld\n", what,
                    r, gv, (long long)((int64_t *)got_s)[r], wv, (long long)((int64_t *)want_s)[r]);
    }
    if (s != YAMR_SUCCESS)
        fprintf(stderr, "VERIFY FAILED %s: %s %s\n", what, yamr_status_string(s),
                yamr_last_error(ctx));
    free(want_v);
    free(want_s);
    free(got_v);
    free(got_s);
    return bad;
}

static int write_results(const char *prefix, const identity *id, const result_row *rows, int count,
                         double copy_gbps)
{
    char path[1024];
    snprintf(path, sizeof path, "%s.csv", prefix);
    FILE *csv = fopen(path, "w");
    snprintf(path, sizeof path, "%s.json", prefix);
    FILE *json = fopen(path, "w");
    if (!csv || !json) {
        fprintf(stderr, "yamr-bench rows: cannot write %s.{csv,json}: %s\n", prefix,
                strerror(errno));
        if (csv) fclose(csv);
        if (json) fclose(json);
        return 1;
    }
    fprintf(
        csv,
        "vendor,device,arch,warp_size,its,compiler,library_version,git_rev,case,size,impl,shape,"
        "median_us,min_us,gbps,pct_copy,copy_gbps\n");
    fprintf(json, "[\n");
    for (int i = 0; i < count; ++i) {
        const result_row *r = &rows[i];
        fprintf(csv, "%s,%s,%s,%d,%d,%s,%s,%s,%s,%s,yamr,%s,%.3f,%.3f,%.1f,%.2f,%.1f\n", id->vendor,
                id->device, id->arch, id->warp_size, id->its, YAMR_BENCH_COMPILER,
                YAMR_VERSION_STRING, YAMR_BENCH_GIT_REV, r->name, r->size, r->shape, r->median_us,
                r->min_us, r->gbps, r->pct_copy, copy_gbps);
        fprintf(json,
                "  {\"vendor\": \"%s\", \"device\": \"%s\", \"arch\": \"%s\", \"warp_size\": %d, "
                "\"its\": %d, "
                "\"compiler\": \"%s\", \"library_version\": \"%s\", \"git_rev\": \"%s\", \"case\": "
                "\"%s\", "
                "\"size\": \"%s\", \"impl\": \"yamr\", \"shape\": \"%s\", \"median_us\": %.3f, "
                "\"min_us\": %.3f, "
                "\"gbps\": %.1f, \"pct_copy\": %.2f, \"copy_gbps\": %.1f}%s\n",
                id->vendor, id->device, id->arch, id->warp_size, id->its, YAMR_BENCH_COMPILER,
                YAMR_VERSION_STRING, YAMR_BENCH_GIT_REV, r->name, r->size, r->shape, r->median_us,
                r->min_us, r->gbps, r->pct_copy, copy_gbps, i == count - 1 ? "" : ",");
    }
    fprintf(json, "]\n");
    fclose(csv);
    fclose(json);
    printf("wrote %s.csv and %s.json (%d rows)\n", prefix, prefix, count);
    return 0;
}

/* One device-to-device copy as a timed call (sweep_time). */
typedef struct {
    char *dst, *src;
    size_t bytes;
} copy_arg;

static int copy_call(void *p, int rep)
{
    (void)rep;
    const copy_arg *c = (const copy_arg *)p;
    return sweep_copy(c->dst, c->src, c->bytes);
}

static void usage(void)
{
    printf("usage: yamr-bench rows [--reps N] [--warmup N] [--device D] [--quick] [--out PREFIX]\n"
           "Times the batched reductions (rows, segments, softmax statistics) on the shapes of\n"
           "their issue; --quick divides the row and segment counts by 16. Defaults: --reps 50\n"
           "--warmup 20. Without a GPU: the CPU backend, --quick, 5 reps, 2 warm-up calls.\n");
}

int run_rows(int argc, char **argv)
{
    int reps = 50, warmup = 20, dev = 0, quick = 0;
    const char *out = NULL;
    for (int i = 0; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help")) {
            usage();
            return 0;
        }
        if (!strcmp(a, "--quick")) {
            quick = 1;
            continue;
        }
        if (!v) {
            fprintf(stderr, "yamr-bench rows: option '%s' needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "--reps"))
            reps = atoi(v);
        else if (!strcmp(a, "--warmup"))
            warmup = atoi(v);
        else if (!strcmp(a, "--device"))
            dev = atoi(v);
        else if (!strcmp(a, "--out"))
            out = v;
        else {
            fprintf(stderr, "yamr-bench rows: unknown option '%s'\n", a);
            return 2;
        }
        ++i;
    }
    if (reps < 1 || warmup < 0) return 2;
    yamr_context *ctx, *cpu;
    identity id;
    int on_gpu;
    if (bench_open(dev, &ctx, &id, &on_gpu) != YAMR_SUCCESS) return 1;
    if (yamr_create(&cpu, YAMR_DEVICE_CPU) != YAMR_SUCCESS) return 1;
    if (!on_gpu) {
        printf("No GPU: timing the CPU backend (wall clock per call) on 1/16 of the rows.\n");
        quick = 1;
        if (reps > 5) reps = 5;
        if (warmup > 2) warmup = 2;
    }
    const size_t divide = quick ? 16 : 1;

    /* the largest input, and the pool that holds its rotations */
    size_t max_bytes = 0, max_rows = 0;
    for (size_t i = 0; i < CASE_COUNT; ++i) {
        const size_t rows = cases[i].rows / divide ? cases[i].rows / divide : 1;
        const size_t b = rows * cases[i].cols * 4;
        if (b > max_bytes) max_bytes = b;
        if (rows > max_rows) max_rows = rows;
    }
    const size_t l2 = on_gpu ? sweep_l2_bytes(dev) : 0;
    size_t pool_bytes = max_bytes > 8 * l2 ? max_bytes : 8 * l2;
    pool_bytes = (pool_bytes + 255) / 256 * 256;
    float *host = (float *)malloc(max_bytes);
    int64_t *host_offsets = (int64_t *)malloc((max_rows + 1) * sizeof *host_offsets);
    call_arg a;
    memset(&a, 0, sizeof a);
    a.ctx = ctx;
    char err[512] = "";
    void *offsets_dev = NULL;
    if (!host || !host_offsets ||
        yamr_device_alloc(ctx, pool_bytes, (void **)&a.pool) != YAMR_SUCCESS ||
        yamr_device_alloc(ctx, (max_rows + 1) * 8, &offsets_dev) != YAMR_SUCCESS ||
        yamr_device_alloc(ctx, max_rows * 8, &a.values) != YAMR_SUCCESS ||
        yamr_device_alloc(ctx, max_rows * 8, &a.second) != YAMR_SUCCESS) {
        fprintf(stderr, "yamr-bench rows: cannot allocate %zu bytes: %s\n", pool_bytes,
                yamr_last_error(ctx));
        return 1;
    }
    a.offsets = (const int64_t *)offsets_dev;
    if (on_gpu ? sweep_fill(YAMR_DTYPE_F32, a.pool, pool_bytes / 4, 4242, err, sizeof err)
               : (host_fill((float *)a.pool, pool_bytes / 4, 4242), 0)) {
        fprintf(stderr, "yamr-bench rows: fill: %s\n", err);
        return 1;
    }

    /* the bandwidth ceiling: one large copy, bytes read plus bytes written */
    double copy_gbps = NAN;
    if (on_gpu) {
        copy_arg c = {a.pool + pool_bytes / 2, a.pool, pool_bytes / 2};
        double med = 0, mn = 0;
        if (sweep_time(copy_call, &c, 2, 10, &med, &mn, err, sizeof err)) {
            fprintf(stderr, "yamr-bench rows: copy: %s\n", err);
            return 1;
        }
        copy_gbps = 2.0 * (double)c.bytes / med / 1e3;
        printf("copy ceiling: %.1f GB/s (device-to-device copy of %zu MiB, read + write)\n\n",
               copy_gbps, c.bytes >> 20);
    }
    printf("%-14s %-16s %-15s %10s %10s %9s %7s\n", "case", "size", "impl:shape", "median us",
           "min us", "GB/s", "% copy");

    result_row rows[CASE_COUNT];
    int count = 0, failed = 0;
    for (size_t i = 0; i < CASE_COUNT && !failed; ++i) {
        const rows_case *c = &cases[i];
        a.c = c;
        a.rows = c->rows / divide ? c->rows / divide : 1;
        a.cols = c->cols;
        size_t elems = a.rows * a.cols, read_bytes;
        char size[32];
        if (c->kind == CASE_SEGMENTS) {
            unsigned long long h = 99;
            host_offsets[0] = 0;
            for (size_t s = 0; s < a.rows; ++s) {
                h = mix(h);
                host_offsets[s + 1] = host_offsets[s] + (int64_t)(h % c->cols);
            }
            elems = (size_t)host_offsets[a.rows];
            if (yamr_copy_to_device(ctx, offsets_dev, host_offsets, (a.rows + 1) * 8) !=
                YAMR_SUCCESS)
                return 1;
            read_bytes = elems * 4 + (a.rows + 1) * 8;
            snprintf(size, sizeof size, "%zu segs", a.rows);
        } else {
            read_bytes = elems * 4;
            snprintf(size, sizeof size, "%zux%zu", a.rows, a.cols);
        }
        a.stride = (elems * 4 + 255) / 256 * 256;
        a.rotations = on_gpu && elems * 4 < 2 * l2 ? pool_bytes / a.stride : 1;
        if (a.rotations > 64) a.rotations = 64;
        if (a.rotations < 1) a.rotations = 1;
        char what[96];
        snprintf(what, sizeof what, "%s %s", c->name, size);
        if (yamr_copy_to_host(ctx, host, a.pool, elems * 4) != YAMR_SUCCESS ||
            verify(ctx, cpu, &a, host, host_offsets, what)) {
            failed = 1;
            break;
        }
        result_row *r = &rows[count++];
        snprintf(r->name, sizeof r->name, "%s", c->name);
        snprintf(r->size, sizeof r->size, "%s", size);
        const char *line = strstr(yamr_report(ctx), "batched:");
        const char *shapes[] = {"blocks_per_row", "block_per_row", "warp_per_row", "CPU backend"};
        snprintf(r->shape, sizeof r->shape, "?");
        for (int k = 0; k < 4 && line; ++k) {
            const char *hit = strstr(line, shapes[k]);
            if (hit && hit < line + strcspn(line, "\n")) {
                snprintf(r->shape, sizeof r->shape, "%s", k == 3 ? "cpu" : shapes[k]);
                break;
            }
        }
        if (time_calls(&a, on_gpu, warmup, reps, &r->median_us, &r->min_us, err, sizeof err)) {
            failed = 1;
            break;
        }
        r->gbps = (double)read_bytes / r->median_us / 1e3;
        r->pct_copy = 100.0 * r->gbps / copy_gbps;
        char impl[40];
        snprintf(impl, sizeof impl, "yamr:%s", r->shape);
        printf("%-14s %-16s %-15s %10.2f %10.2f %9.1f %7.1f\n", r->name, r->size, impl,
               r->median_us, r->min_us, r->gbps, r->pct_copy);
    }
    if (failed)
        fprintf(stderr, "yamr-bench rows: stopped: %s\n", err[0] ? err : "verification failed");
    int rc = failed;
    if (!failed && out) rc = write_results(out, &id, rows, count, copy_gbps);
    free(host);
    free(host_offsets);
    yamr_device_free(ctx, a.pool);
    yamr_device_free(ctx, offsets_dev);
    yamr_device_free(ctx, a.values);
    yamr_device_free(ctx, a.second);
    yamr_destroy(cpu);
    yamr_destroy(ctx);
    return rc;
}
