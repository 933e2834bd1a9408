/* SPDX-License-Identifier: MIT */
/*
 * yamr-bench topk: yamr_topk_rows() on the shapes of issue 35 and a few more, next to yamr's own
 * rows argmax on the same input (the ceiling a top-k can reach: it reads the same bytes) and,
 * in the same run, numpy (np.argpartition, then sorting the k; CPU) or torch.topk(sorted=True)
 * (GPU, when PyTorch imports) through bench/topk_baselines.py.
 *
 *   yamr-bench topk [--device D|cpu] [--threads N] [--reps R] [--warmup W] [--quick]
 *                   [--dtype T] [--data random|ascending|descending|equal|nan]
 *                   [--shapes R:C:K,...] [--no-baselines] [--out DIR]
 *
 * --shapes runs the given shapes (rows:cols:k, comma-separated) in place of the table below.
 * --dtype runs every case in another dtype (f32 by default; random data only, filled as
 * yamr-bench fills every dtype; the baselines take the same values).
 *
 * Each case's answer is checked before it is timed: entry 0 against the rows argmax on every
 * row, and on a GPU the whole output against a CPU context's. Times: the host clock around each
 * call on the CPU backend (--threads N caps its threads, yamr_set_cpu_threads; 0: OpenMP's
 * count), CUDA/HIP event pairs around each asynchronous call on a GPU (one copy of the input:
 * the shapes here are larger than the L2 but for the smallest); median and minimum of --reps
 * after --warmup. The ratio column is the median over the rows argmax's median on the same
 * input. --out writes DIR/topk.csv.
 * Issue 35's CPU targets (within 2x of the rows argmax for k <= 100, one thread and all):
 *   yamr-bench topk --device cpu --threads 1;  yamr-bench topk --device cpu
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "cli.h"
#include "commands.h"
#include "sweep_gpu.h"
#include "yamr.h"

#ifndef YAMR_BENCH_SOURCE_DIR
#define YAMR_BENCH_SOURCE_DIR "."
#endif

typedef struct {
    size_t rows, cols, k;
} topk_case;

/* The table, then: k = 1 (argmax's own work), a beam-search width, a long k. */
static const topk_case cases[] = {
    {64, 128256, 50},    {1024, 32000, 8},          {16384, 1000, 10},
    {1, (size_t)1 << 26, 100}, {1, (size_t)1 << 26, 1024}, {4096, 4096, 64},
    {65536, 128, 4},     {1, (size_t)1 << 20, 16},  {1, (size_t)1 << 26, 1},
    {128, 32000, 256},
};
#define CASE_COUNT (sizeof cases / sizeof cases[0])
#define MAX_SHAPES 32

/* --shapes: "rows:cols:k,..." into `out` (at most MAX_SHAPES); the count, or -1 (refused). */
static int parse_shapes(const char *list, topk_case *out)
{
    const size_t len = strlen(list);
    if (!len || strspn(list, "0123456789:,") != len || list[len - 1] == ',') return -1;
    int count = 0;
    for (const char *s = list; *s;) {
        unsigned long long r, c, k;
        int used = 0;
        if (count == MAX_SHAPES || sscanf(s, "%llu:%llu:%llu%n", &r, &c, &k, &used) != 3 ||
            !r || !c || !k || k > c || (s[used] && s[used] != ','))
            return -1;
        out[count++] = (topk_case){(size_t)r, (size_t)c, (size_t)k};
        s += used + (s[used] == ',');
    }
    return count ? count : -1;
}

enum { DATA_RANDOM, DATA_ASCENDING, DATA_DESCENDING, DATA_EQUAL, DATA_NAN, DATA_COUNT };
static const char *const data_names[DATA_COUNT] = {"random", "ascending", "descending", "equal",
                                                    "nan"};

typedef struct {
    yamr_context *ctx;
    yamr_dtype dtype;
    const void *in;
    size_t rows, cols, k;
    void *values;
    int64_t *indices;
    int argmax; /* time the rows argmax instead */
} call_arg;

static int one_call(void *p, int rep)
{
    (void)rep;
    const call_arg *a = (const call_arg *)p;
    const yamr_status s =
        a->argmax ? yamr_reduce_rows_async(a->ctx, YAMR_OP_ARGMAX, a->dtype, a->in, a->rows,
                                           a->cols, a->cols, a->values, a->indices)
                  : yamr_topk_rows_async(a->ctx, YAMR_OP_ARGMAX, a->dtype, a->in, a->rows,
                                         a->cols, a->cols, a->k, a->values, a->indices);
    return s != YAMR_SUCCESS;
}

/* Random data in any dtype; ordered data in f32 (run_topk refuses the rest). */
static void fill(int data, yamr_dtype t, void *p, size_t rows, size_t cols)
{
    if (data == DATA_RANDOM) {
        host_fill(t, p, rows * cols, 4242);
        return;
    }
    float *x = (float *)p;
    for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < cols; ++c) {
            float v = 0.5f;
            if (data == DATA_ASCENDING) v = (float)c;
            if (data == DATA_DESCENDING) v = -(float)c;
            if (data == DATA_NAN) v = nanf("");
            x[r * cols + c] = v;
        }
}

/* Entry 0 of every row against the rows argmax; on a GPU, everything against a CPU context. */
static int verify(yamr_context *ctx, int on_gpu, const void *host, const call_arg *a,
                  char *err, size_t errlen)
{
    const size_t entries = a->rows * a->k, es = yamr_dtype_size(a->dtype);
    void *v = malloc(entries * es), *av = malloc(a->rows * es);
    int64_t *ix = (int64_t *)malloc(entries * 8), *ai = (int64_t *)malloc(a->rows * 8);
    int bad = !v || !ix || !av || !ai;
    call_arg b = *a;
    if (!bad) bad = one_call(&b, 0);
    if (!bad) bad = yamr_copy_to_host(ctx, v, a->values, entries * es) ||
                    yamr_copy_to_host(ctx, ix, a->indices, entries * 8);
    b.argmax = 1;
    if (!bad) bad = one_call(&b, 0) || yamr_copy_to_host(ctx, av, a->values, a->rows * es) ||
                    yamr_copy_to_host(ctx, ai, a->indices, a->rows * 8);
    for (size_t r = 0; !bad && r < a->rows; ++r)
        if (ix[r * a->k] != ai[r]) {
            snprintf(err, errlen, "row %zu: entry 0 at %lld, the rows argmax at %lld", r,
                     (long long)ix[r * a->k], (long long)ai[r]);
            bad = 2;
        }
    if (!bad && on_gpu) {
        yamr_context *cpu;
        void *cv = malloc(entries * es);
        int64_t *ci = (int64_t *)malloc(entries * 8);
        bad = !cv || !ci || yamr_create(&cpu, YAMR_DEVICE_CPU) != YAMR_SUCCESS;
        if (!bad) {
            bad = yamr_topk_rows(cpu, YAMR_OP_ARGMAX, a->dtype, host, a->rows, a->cols, a->cols,
                                 a->k, cv, ci) != YAMR_SUCCESS;
            yamr_destroy(cpu);
        }
        if (!bad && (memcmp(cv, v, entries * es) || memcmp(ci, ix, entries * 8))) {
            snprintf(err, errlen, "the GPU's top-k differs from the CPU backend's");
            bad = 2;
        }
        free(cv);
        free(ci);
    }
    if (bad == 1) snprintf(err, errlen, "a call failed: %s", yamr_last_error(ctx));
    free(v), free(ix), free(av), free(ai);
    return bad;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: yamr-bench topk [--device D|cpu] [--threads N] [--reps R] [--warmup W]\n"
            "                       [--quick] [--dtype T]\n"
            "                       [--data random|ascending|descending|equal|nan]\n"
            "                       [--shapes R:C:K,...] [--no-baselines] [--out DIR]\n"
            "yamr_topk_rows (ARGMAX) against yamr's rows argmax on the same input, and\n"
            "numpy (CPU) or torch.topk (GPU) from bench/topk_baselines.py in the same run.\n"
            "  --threads N   CPU backend: at most N threads (0, default: OpenMP's count)\n"
            "  --quick       1/16 of the rows (of the columns for one-row shapes)\n"
            "  --dtype T     f32 (default), f64, f16, bf16, i32, u32 or i64; random data only\n"
            "  --shapes L    these rows:cols:k shapes (comma-separated), not the built-in table\n");
}

int run_topk(int argc, char **argv)
{
    int device = CLI_DEVICE_ANY, threads = 0, reps = 0, warmup = -1, quick = 0, baselines = 1;
    int data = DATA_RANDOM, d;
    yamr_dtype dtype = YAMR_DTYPE_F32;
    const char *dtype_names[YAMR_DTYPE_COUNT];
    for (d = 0; d < YAMR_DTYPE_COUNT; ++d) dtype_names[d] = yamr_dtype_name((yamr_dtype)d);
    const char *out_dir = NULL;
    topk_case shape_list[MAX_SHAPES];
    const topk_case *run_cases = cases;
    int case_count = (int)CASE_COUNT;
    for (int i = 1; i < argc; ++i) {
        const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(opt, "--quick")) {
            quick = 1;
        } else if (!strcmp(opt, "--no-baselines")) {
            baselines = 0;
        } else if (val && !strcmp(opt, "--device")) {
            device = !strcmp(val, "cpu") ? YAMR_DEVICE_CPU : atoi(val);
            ++i;
        } else if (val && !strcmp(opt, "--threads")) {
            threads = atoi(val), ++i;
        } else if (val && !strcmp(opt, "--reps")) {
            reps = atoi(val), ++i;
        } else if (val && !strcmp(opt, "--warmup")) {
            warmup = atoi(val), ++i;
        } else if (val && !strcmp(opt, "--out")) {
            out_dir = val, ++i;
        } else if (val && !strcmp(opt, "--dtype")) {
            if (cli_name("topk", "--dtype", val, dtype_names, YAMR_DTYPE_COUNT, &d))
                return CLI_USAGE;
            dtype = (yamr_dtype)d, ++i;
        } else if (val && !strcmp(opt, "--shapes")) {
            case_count = parse_shapes(val, shape_list);
            if (case_count < 0)
                return cli_refuse("topk", "--shapes takes rows:cols:k,... (k <= cols, at most %d)",
                                  MAX_SHAPES);
            run_cases = shape_list, ++i;
        } else if (val && !strcmp(opt, "--data")) {
            data = -1;
            for (int d = 0; d < DATA_COUNT; ++d)
                if (!strcmp(val, data_names[d])) data = d;
            if (data < 0) return cli_refuse("topk", "unknown --data '%s'", val);
            ++i;
        } else {
            usage(stderr);
            return CLI_USAGE;
        }
    }
    if (threads < 0 || reps < 0) return cli_refuse("topk", "--threads and --reps take N >= 0");
    if (dtype != YAMR_DTYPE_F32 && data != DATA_RANDOM)
        return cli_refuse("topk", "--data %s is f32 only; --dtype %s takes random data",
                          data_names[data], dtype_names[dtype]);
    if (out_dir && cli_out_dir("topk", out_dir)) return CLI_USAGE;
    yamr_context *ctx;
    identity id;
    int on_gpu;
    int rc = bench_open("topk", device, stdout, 0, &ctx, &id, &on_gpu);
    if (rc) return rc;
    if (!reps) reps = on_gpu ? 50 : 7;
    if (warmup < 0) warmup = on_gpu ? 10 : 1;
    if (!on_gpu && threads) yamr_set_cpu_threads(ctx, threads);
    FILE *csv = NULL;
    if (out_dir) {
        char path[1024];
        snprintf(path, sizeof path, "%s/topk.csv", out_dir);
        csv = cli_make_out_dir("topk", out_dir) ? NULL : fopen(path, "w");
        if (!csv) {
            fprintf(stderr, "yamr-bench topk: cannot write %s\n", path);
            yamr_destroy(ctx);
            return 1;
        }
        fprintf(csv, "vendor,device,arch,warp_size,its,compiler,library_version,git_rev,"
                     "case,dtype,data,rows,cols,k,impl,threads,timing,median_us,min_us,"
                     "vs_argmax\n");
    }
    printf("yamr-bench topk on %s (%s), %s, data %s, %s, median and min of %d after %d\n",
           id.device, id.arch, dtype_names[dtype], data_names[data],
           on_gpu ? "event pairs" : "host clock", reps, warmup);
    if (!on_gpu) printf("CPU threads: %s\n", threads ? "capped by --threads" : "OpenMP's count");
    printf("%-22s %-10s %12s %12s %10s\n", "case", "impl", "median us", "min us", "x argmax");
    char shapes[MAX_SHAPES * 64] = "";
    for (int ci = 0; ci < case_count && !rc; ++ci) {
        topk_case c = run_cases[ci];
        if (quick) {
            if (c.rows >= 16) c.rows /= 16;
            else if (c.cols / 16 >= c.k) c.cols /= 16;
        }
        const size_t n = c.rows * c.cols, es = yamr_dtype_size(dtype);
        void *host = malloc(n * es);
        void *in = NULL, *values = NULL, *indices = NULL;
        int ok = host && yamr_device_alloc(ctx, n * es, &in) == YAMR_SUCCESS &&
                 yamr_device_alloc(ctx, c.rows * c.k * es, &values) == YAMR_SUCCESS &&
                 yamr_device_alloc(ctx, c.rows * c.k * 8, &indices) == YAMR_SUCCESS;
        if (ok) {
            fill(data, dtype, host, c.rows, c.cols);
            ok = yamr_copy_to_device(ctx, in, host, n * es) == YAMR_SUCCESS;
        }
        char name[64], err[256] = "";
        snprintf(name, sizeof name, "%zux%zu k%zu", c.rows, c.cols, c.k);
        call_arg a = {ctx, dtype, in, c.rows, c.cols, c.k, values, (int64_t *)indices, 0};
        if (!ok || verify(ctx, on_gpu, host, &a, err, sizeof err)) {
            fprintf(stderr, "yamr-bench topk: %s: %s\n", name, ok ? err : "out of memory");
            rc = 1;
        }
        double median[2] = {0, 0}; /* top-k, the rows argmax */
        for (int which = 1; which >= 0 && !rc; --which) {
            a.argmax = which;
            sweep_times t;
            const int failed = on_gpu ? sweep_time(one_call, &a, warmup, reps, 0, &t, err,
                                                   sizeof err)
                                      : bench_time_host(one_call, &a, warmup, reps, &t, err,
                                                        sizeof err);
            if (failed) {
                fprintf(stderr, "yamr-bench topk: %s: %s\n", name, err);
                rc = 1;
                break;
            }
            median[which] = t.median_us;
            const char *impl = which ? "argmax" : "yamr";
            printf("%-22s %-10s %12.1f %12.1f %10.2f\n", name, impl, t.median_us, t.min_us,
                   t.median_us / median[1]);
            if (csv) {
                csv_identity(csv, &id);
                fprintf(csv, "%s,%s,%s,%zu,%zu,%zu,%s,%d,%s,%.3f,%.3f,%.3f\n", name,
                        dtype_names[dtype], data_names[data], c.rows, c.cols, c.k,
                        which ? "yamr_rows_argmax" : "yamr_topk", threads,
                        on_gpu ? "events" : "host_clock", t.median_us, t.min_us,
                        t.median_us / median[1]);
            }
        }
        if (!rc) {
            const size_t used = strlen(shapes);
            snprintf(shapes + used, sizeof shapes - used, "%s%zu:%zu:%zu", used ? "," : "",
                     c.rows, c.cols, c.k);
        }
        free(host);
        yamr_device_free(ctx, in);
        yamr_device_free(ctx, values);
        yamr_device_free(ctx, indices);
    }
    yamr_destroy(ctx);
    if (csv) fclose(csv);
    if (!rc && baselines) {
        /* Debian's numpy lives under /usr/bin/python3; elsewhere the first python3 on PATH */
        char cmd[MAX_SHAPES * 64 + 1024];
        snprintf(cmd, sizeof cmd,
                 "P=/usr/bin/python3; [ -x $P ] && $P -c 'import numpy' 2>/dev/null || P=python3; "
                 "$P '%s/bench/topk_baselines.py' --%s --shapes %s --dtype %s --data %s "
                 "--reps %d --warmup %d%s%s",
                 YAMR_BENCH_SOURCE_DIR, on_gpu ? "torch" : "numpy", shapes, dtype_names[dtype],
                 data_names[data], reps, warmup, out_dir ? " --csv " : "", out_dir ? out_dir : "");
        fflush(stdout);
        if (system(cmd) != 0) printf("(baselines: bench/topk_baselines.py did not run)\n");
    }
    return rc;
}
