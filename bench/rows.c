/* SPDX-License-Identifier: MIT */
/*
 * yamr-bench rows: the batched reductions on the shapes of their issue, next to a copy.
 *
 *   rowmax and rowargmax f32 1024 x 4096; rowmax 65536 x 128; rowmax 4096 x 32768;
 *   rowargmax 4 x 2^24; argmax over 2^20 segments of random length 0..127;
 *   softmax statistics f32 1024 x 4096.
 *
 * --dtype runs the matrix and segment cases in another dtype (float32 by default; softmax
 * statistics and CUB only in float32), named NAME_DTYPE in the results.
 *
 * Every result is checked against the CPU backend before it is timed. GPU times are event pairs
 * around each asynchronous call (median and minimum of --reps after --warmup calls), each call
 * timed as it is launched or, with --timing queued, all launched behind a held stream; inputs
 * smaller than twice the L2 rotate over several copies so that the L2 does not serve them
 * (--inputs resident keeps one copy, which the L2 may serve from the second call on, as when the
 * kernel before the call wrote it; the results' column copies says how many). GB/s
 * counts the bytes of input read (the offsets too, for segments). Without a GPU the CPU backend
 * is timed by wall clock on shapes with 1/16 of the rows (--quick does the same on a GPU).
 * bench/rows_torch.py prints the same table for PyTorch.
 *
 * In builds with CUB (NVIDIA), the max and argmax cases also time cub::DeviceSegmentedReduce
 * (impl cub, shape segmented) on the same device buffers, after checking that it agrees with
 * yamr; yamr's row says CUB's median over its own (above 1: yamr is faster). Softmax statistics
 * have no CUB counterpart. The launch floor (an empty kernel timed the same way) is printed
 * under the copy ceiling and recorded as a row of impl empty_kernel. On a GPU, each case also
 * times the read ceiling (impl read, shape ceiling): one plain kernel that reads the case's
 * elements from the same rotations and computes nothing, what any reduction of that input
 * measures at best this way.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"
#include "cli.h"
#include "commands.h"
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
    char name[32], size[32], impl[16], shape[24];
    double median_us, min_us, gbps, pct_copy;
    double cub_over_yamr; /* CUB's median over yamr's for a yamr row beside a CUB row; else NaN */
    size_t copies;        /* of the input that the calls rotate over (0: reads none) */
    int in_cache;         /* those copies fit the last-level cache (a GPU's L2): the row may
                             pass the copy ceiling, which is memory's */
} result_row;

typedef struct {
    yamr_context *ctx;
    const rows_case *c;
    yamr_dtype dtype; /* of the input and the values */
    size_t rows, cols;
    char *pool; /* rotations copies of the input, `stride` bytes apart */
    size_t stride, rotations;
    const int64_t *offsets;
    void *values, *second;
    /* what one_call runs: yamr's call, the CUB baseline, or the read ceiling (a plain read of
     * read_bytes of the input) */
    enum { RUN_YAMR, RUN_CUB, RUN_READ } run;
    size_t read_bytes;
    const int64_t *cub_begin, *cub_end; /* device, `rows` offsets each */
    void *cub_temp, *cub_out;
    size_t cub_temp_bytes;
    cli_timing timing; /* --reps, --warmup, --timing (sweep_time's queued), --inputs */
} call_arg;

static int one_call(void *p, int rep)
{
    call_arg *a = (call_arg *)p;
    const char *in = a->pool + (size_t)rep % a->rotations * a->stride;
    yamr_status s;
    if (a->run == RUN_READ) return sweep_read(in, a->read_bytes);
    if (a->run == RUN_CUB) {
        size_t temp_bytes = a->cub_temp_bytes;
        return baseline_cub_segmented(a->c->op == YAMR_OP_ARGMAX, (const float *)in, a->cub_begin,
                                      a->cub_end, (long long)a->rows, a->cub_temp, &temp_bytes,
                                      a->cub_out, NULL) != 0;
    }
    switch (a->c->kind) {
    case CASE_SEGMENTS:
        s = yamr_reduce_segments_async(a->ctx, a->c->op, a->dtype, in, a->offsets, a->rows,
                                       a->values, (int64_t *)a->second);
        break;
    case CASE_SOFTMAX:
        s = yamr_softmax_stats_rows_async(a->ctx, a->dtype, in, a->rows, a->cols, a->cols,
                                          a->values, a->second);
        break;
    default:
        s = yamr_reduce_rows_async(a->ctx, a->c->op, a->dtype, in, a->rows, a->cols, a->cols,
                                   a->values,
                                   a->c->op == YAMR_OP_ARGMAX ? (int64_t *)a->second : NULL);
    }
    return s != YAMR_SUCCESS;
}

static int time_calls(call_arg *a, int on_gpu, double *median, double *min, char *err,
                      size_t errlen)
{
    sweep_times t;
    const cli_timing *c = &a->timing;
    const int failed = on_gpu
                           ? sweep_time(one_call, a, c->warmup, c->reps, c->queued, &t, err, errlen)
                           : bench_time_host(one_call, a, c->warmup, c->reps, &t, err, errlen);
    *median = t.median_us;
    *min = t.min_us;
    return failed;
}

/* Times what `run` names into row `r`, a copy of `like` under impl:shape; GB/s of `bytes`. */
static int time_row(call_arg *a, int run, int on_gpu, const result_row *like, const char *impl,
                    const char *shape, size_t bytes, double copy_gbps, result_row *r, char *err,
                    size_t errlen)
{
    *r = *like;
    snprintf(r->impl, sizeof r->impl, "%s", impl);
    snprintf(r->shape, sizeof r->shape, "%s", shape);
    r->cub_over_yamr = NAN;
    r->copies = a->rotations;
    a->run = run;
    const int failed = time_calls(a, on_gpu, &r->median_us, &r->min_us, err, errlen);
    a->run = RUN_YAMR;
    r->gbps = (double)bytes / r->median_us / 1e3;
    r->pct_copy = 100.0 * r->gbps / copy_gbps;
    return failed;
}

static unsigned long long mix(unsigned long long x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The case's answer on the CPU backend from the host copy `host`, against the GPU's. */
static int verify(yamr_context *ctx, yamr_context *cpu, const call_arg *a, const void *host,
                  const int64_t *host_offsets, const char *what)
{
    const size_t n = a->rows, bytes = n * 8, esize = yamr_dtype_size(a->dtype);
    char *want_v = (char *)malloc(bytes), *want_s = (char *)malloc(bytes);
    char *got_v = (char *)malloc(bytes), *got_s = (char *)malloc(bytes);
    int bad = !want_v || !want_s || !got_v || !got_s;
    yamr_status s = YAMR_SUCCESS;
    if (!bad) {
        memset(want_s, 0, bytes);
        memset(got_s, 0, bytes);
        switch (a->c->kind) {
        case CASE_SEGMENTS:
            s = yamr_reduce_segments(cpu, a->c->op, a->dtype, host, host_offsets, n, want_v,
                                     (int64_t *)want_s);
            break;
        case CASE_SOFTMAX:
            s = yamr_softmax_stats_rows(cpu, a->dtype, host, n, a->cols, a->cols, want_v,
                                        want_s);
            break;
        default:
            s = yamr_reduce_rows(cpu, a->c->op, a->dtype, host, n, a->cols, a->cols, want_v,
                                 (int64_t *)want_s);
        }
        if (s == YAMR_SUCCESS && one_call((void *)a, 0)) s = YAMR_ERROR_DEVICE;
        if (s == YAMR_SUCCESS) s = yamr_copy_to_host(ctx, got_v, a->values, n * esize);
        if (s == YAMR_SUCCESS && a->c->op == YAMR_OP_ARGMAX)
            s = yamr_copy_to_host(ctx, got_s, a->second, bytes);
        if (s == YAMR_SUCCESS && a->c->kind == CASE_SOFTMAX)
            s = yamr_copy_to_host(ctx, got_s, a->second, n * 4);
        bad = s != YAMR_SUCCESS;
    }
    for (size_t r = 0; r < n && !bad; ++r) {
        if (a->c->kind == CASE_SOFTMAX) { /* float32 only */
            const float wv = ((float *)want_v)[r], gv = ((float *)got_v)[r];
            const float ws = ((float *)want_s)[r], gs = ((float *)got_s)[r];
            bad = wv != gv || fabsf(gs - ws) > 1e-5f * ws;
        } else {
            bad = memcmp(want_v + r * esize, got_v + r * esize, esize) != 0 ||
                  (a->c->op == YAMR_OP_ARGMAX && ((int64_t *)want_s)[r] != ((int64_t *)got_s)[r]);
        }
        if (bad) {
            unsigned long long wb = 0, gb = 0; /* the values' bits */
            memcpy(&wb, want_v + r * esize, esize);
            memcpy(&gb, got_v + r * esize, esize);
            fprintf(stderr, "VERIFY FAILED %s row %zu: got 0x%llx / %lld, expected 0x%llx / %lld\n",
                    what, r, gb, (long long)((int64_t *)got_s)[r], wb,
                    (long long)((int64_t *)want_s)[r]);
        }
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

/* Whether the case has a CUB baseline here: max and argmax of rows or segments on a GPU build
 * with CUB. CUB's ArgMax counts offsets in int, so its input must stay below 2^31 elements. */
static int cub_fits(const rows_case *c, size_t elems)
{
    return c->kind != CASE_SOFTMAX && (c->op == YAMR_OP_MAX || c->op == YAMR_OP_ARGMAX) &&
           (c->op != YAMR_OP_ARGMAX || elems < ((size_t)1 << 31));
}

/* Gives CUB the case's segments and its temp storage, before anything is timed. A matrix row r
 * is [r * ld, r * ld + cols) (ld = cols, as yamr is called), built into bounds_dev (2 x rows
 * int64); a segment case uses yamr's own offsets (end = begin + 1). The temp storage only grows
 * (the largest case's stays until the end). */
static int cub_prepare(yamr_context *ctx, call_arg *a, int64_t *host_bounds, void *bounds_dev,
                       char *err, size_t errlen)
{
    if (a->c->kind == CASE_SEGMENTS) {
        a->cub_begin = a->offsets;
        a->cub_end = a->offsets + 1;
    } else {
        for (size_t r = 0; r < a->rows; ++r) {
            host_bounds[r] = (int64_t)(r * a->cols);
            host_bounds[a->rows + r] = (int64_t)(r * a->cols + a->cols);
        }
        yamr_status s = yamr_copy_to_device(ctx, bounds_dev, host_bounds, 2 * a->rows * 8);
        if (s != YAMR_SUCCESS) {
            snprintf(err, errlen, "CUB offsets: %s %s", yamr_status_string(s),
                     yamr_last_error(ctx));
            return 1;
        }
        a->cub_begin = (const int64_t *)bounds_dev;
        a->cub_end = (const int64_t *)bounds_dev + a->rows;
    }
    size_t need = 0;
    const int e = baseline_cub_segmented(a->c->op == YAMR_OP_ARGMAX, (const float *)a->pool,
                                         a->cub_begin, a->cub_end, (long long)a->rows, NULL, &need,
                                         a->cub_out, NULL);
    if (e) {
        snprintf(err, errlen, "CUB DeviceSegmentedReduce temp-storage query: runtime error %d", e);
        return 1;
    }
    if (need + 256 > a->cub_temp_bytes) { /* never NULL: a NULL temp makes CUB only ask the size */
        yamr_device_free(ctx, a->cub_temp);
        a->cub_temp = NULL;
        a->cub_temp_bytes = 0;
        yamr_status s = yamr_device_alloc(ctx, need + 256, &a->cub_temp);
        if (s != YAMR_SUCCESS) {
            snprintf(err, errlen, "CUB temp storage of %zu bytes: %s", need + 256,
                     yamr_last_error(ctx));
            return 1;
        }
        a->cub_temp_bytes = need + 256;
    }
    return 0;
}

/* CUB's answer on the first input copy against yamr's, which verify() left in a->values and
 * a->second from the same copy; values bit for bit, and indices. The data are NaN-free
 * ([-1, 1)): CUB has no NaN policy (around a NaN its > comparisons give an order-dependent
 * answer), so only NaN-free data can be compared. On ties both give the first index
 * (cub::ArgMax keeps the smaller key). Empty segments are skipped: CUB writes {1, -FLT_MAX}
 * there, yamr NaN and -1. */
static int verify_cub(yamr_context *ctx, const call_arg *a, const int64_t *host_offsets,
                      const char *what, char *err, size_t errlen)
{
    const size_t n = a->rows;
    const int argmax = a->c->op == YAMR_OP_ARGMAX;
    float *yamr_v = (float *)malloc(n * 4);
    int64_t *yamr_i = (int64_t *)malloc(n * 8);
    void *cub = malloc(n * 8);
    call_arg b = *a;
    b.run = RUN_CUB;
    int bad = !yamr_v || !yamr_i || !cub;
    if (bad) snprintf(err, errlen, "out of host memory");
    int e = bad ? 0 : one_call(&b, 0);
    if (e) {
        snprintf(err, errlen, "CUB DeviceSegmentedReduce::%s on %s failed",
                 argmax ? "ArgMax" : "Max", what);
        bad = 1;
    }
    yamr_status s = YAMR_SUCCESS;
    if (!bad) s = yamr_copy_to_host(ctx, cub, a->cub_out, n * (argmax ? 8 : 4));
    if (s == YAMR_SUCCESS && !bad) s = yamr_copy_to_host(ctx, yamr_v, a->values, n * 4);
    if (s == YAMR_SUCCESS && !bad && argmax) s = yamr_copy_to_host(ctx, yamr_i, a->second, n * 8);
    if (s != YAMR_SUCCESS) {
        snprintf(err, errlen, "CUB check on %s: %s %s", what, yamr_status_string(s),
                 yamr_last_error(ctx));
        bad = 1;
    }
    for (size_t r = 0; r < n && !bad; ++r) {
        if (a->c->kind == CASE_SEGMENTS && host_offsets[r + 1] <= host_offsets[r]) continue;
        const baseline_cub_argmax_pair *pairs = (const baseline_cub_argmax_pair *)cub;
        const float cv = argmax ? pairs[r].value : ((const float *)cub)[r];
        const long long ci = argmax ? pairs[r].index : -1, yi = argmax ? (long long)yamr_i[r] : -1;
        if (memcmp(&cv, &yamr_v[r], 4) != 0 || ci != yi) {
            fprintf(stderr,
                    "VERIFY FAILED cub:segmented %s row %zu: CUB %g / %lld, yamr %g / %lld\n", what,
                    r, cv, ci, yamr_v[r], yi);
            snprintf(err, errlen, "the CUB baseline disagrees with yamr on %s", what);
            bad = 1;
        }
    }
    free(yamr_v);
    free(yamr_i);
    free(cub);
    return bad;
}

/* Earlier result files' columns come first, in their order, so that they merge (timing, then
 * copies were added last); the CUB ratio is not a column (it is the cub row's median over the
 * yamr row's of the same case and size). An unmeasured number is an empty CSV field, null in
 * JSON. */
static int write_results(const char *dir, const identity *id, const result_row *rows, int count,
                         double copy_gbps, const char *timing)
{
    char prefix[1024];
    snprintf(prefix, sizeof prefix, "%s/rows", dir);
    FILE *csv, *json;
    if (open_results(prefix, &csv, &json)) return 1;
    fprintf(
        csv,
        "vendor,device,arch,warp_size,its,compiler,library_version,git_rev,case,size,impl,shape,"
        "median_us,min_us,gbps,pct_copy,copy_gbps,timing,copies\n");
    fprintf(json, "[\n");
    for (int i = 0; i < count; ++i) {
        const result_row *r = &rows[i];
        csv_identity(csv, id);
        fprintf(csv, "%s,%s,%s,%s,", r->name, r->size, r->impl, r->shape);
        csv_timing(csv, r->median_us, r->min_us, r->gbps, r->pct_copy);
        csv_number(csv, copy_gbps, "%.1f", ",");
        fprintf(csv, "%s,%zu\n", timing, r->copies);
        json_identity(json, id);
        fprintf(json, "\"case\": \"%s\", \"size\": \"%s\", \"impl\": \"%s\", \"shape\": \"%s\", ",
                r->name, r->size, r->impl, r->shape);
        json_timing(json, r->median_us, r->min_us, r->gbps, r->pct_copy);
        json_number(json, "copy_gbps", copy_gbps, "%.1f", ", ");
        fprintf(json, "\"timing\": \"%s\", \"copies\": %zu", timing, r->copies);
        fprintf(json, "}%s\n", i == count - 1 ? "" : ",");
    }
    fprintf(json, "]\n");
    fclose(csv);
    fclose(json);
    printf("wrote %s.csv and %s.json (%d rows)\n", prefix, prefix, count);
    return 0;
}

static void print_row(const result_row *r)
{
    char impl[48], ratio[16] = "-";
    snprintf(impl, sizeof impl, "%s:%s", r->impl, r->shape);
    if (!isnan(r->cub_over_yamr)) snprintf(ratio, sizeof ratio, "%.2f", r->cub_over_yamr);
    const int busy = r->median_us > BUSY_SPREAD * r->min_us;
    printf("%-14s %-16s %-20s %10.2f %10.2f %9.1f %7.1f %8s %s%s%s\n", r->name, r->size, impl,
           r->median_us, r->min_us, r->gbps, r->pct_copy, ratio, busy ? "busy" : "",
           busy && r->in_cache ? "," : "", r->in_cache ? "cache" : "");
}

/* One copy in the context's memory as a timed call: on the device, or memcpy split over the
 * CPU backend's threads (as yamr-bench sweep measures its ceiling). */
typedef struct {
    char *dst, *src;
    size_t bytes;
    int on_gpu;
} copy_arg;

static int copy_call(void *p, int rep)
{
    (void)rep;
    const copy_arg *c = (const copy_arg *)p;
    if (c->on_gpu) return sweep_copy(c->dst, c->src, c->bytes);
    host_copy(c->dst, c->src, c->bytes); /* with the threads yamr's calls get */
    return 0;
}

static void usage(void)
{
    printf("usage: yamr-bench rows [--reps N] [--warmup N] [--dtype T] [--quick]\n"
           "                       [--timing isolated|queued] [--inputs rotated|resident]\n"
           "                       [--device D|cpu] [--out DIR]\n"
           "Times the batched reductions (rows, segments, softmax statistics) on the shapes of\n"
           "their issue, next to CUB's DeviceSegmentedReduce (NVIDIA builds), a copy, the launch\n"
           "floor (an empty kernel timed the same way; impl empty_kernel) and, per case on a GPU,\n"
           "the read ceiling (a plain read of the same input; impl read).\n"
           "  --quick         divides the row and segment counts by 16\n"
           "  --dtype T       runs the row and segment cases in T (f32, f64, f16, bf16, i32,\n"
           "                  u32, i64), named NAME_T in the results; softmax statistics and CUB\n"
           "                  run in f32 only (default f32)\n"
           "  --reps N        timed calls, 1..100000 (default 50; 5 on the CPU)\n"
           "  --warmup N      untimed calls first, 0..100000 (default 20; 2 on the CPU)\n"
           CLI_USAGE_TIMING
           "  --device D      GPU ordinal D, or cpu (default: GPU 0 when there is one)\n"
           "  --out DIR       writes DIR/rows.csv and DIR/rows.json\n"
           "Without a GPU: the CPU backend, --quick, 5 reps, 2 warm-up calls.\n"
           "Columns: GB/s counts the input read once (the offsets too, for segments); %% copy is\n"
           "that over the copy ceiling; cub/yamr is CUB's median over yamr's (above 1: yamr is\n"
           "faster).\n");
}

enum { OPT_QUICK = CLI_OPT_FIRST_OWN, OPT_DTYPE };

int run_rows(int argc, char **argv)
{
    static const struct option options[] = {
        CLI_OPTION_HELP, CLI_OPTION_OUT, CLI_OPTION_DEVICE, CLI_OPTIONS_TIMING,
        {"quick", no_argument, NULL, OPT_QUICK},
        {"dtype", required_argument, NULL, OPT_DTYPE},
        CLI_OPTION_END};
    cli_timing timing = {.reps = 50, .warmup = 20}; /* isolated, rotated */
    int dev = CLI_DEVICE_ANY, quick = 0;
    const char *out = NULL;
    yamr_dtype dtype = YAMR_DTYPE_F32;
    const char *dtype_names[YAMR_DTYPE_COUNT];
    for (int d = 0; d < YAMR_DTYPE_COUNT; ++d) dtype_names[d] = yamr_dtype_name((yamr_dtype)d);
    int reset = 1, opt, d;
    while ((opt = cli_next("rows", argc, argv, options, &reset)) != -1) {
        switch (opt) {
        case CLI_OPT_HELP: usage(); return 0;
        case CLI_OPT_OUT: out = optarg; break;
        case CLI_OPT_DEVICE:
            if (cli_device("rows", optarg, &dev)) return CLI_USAGE;
            break;
        case OPT_QUICK: quick = 1; break;
        case OPT_DTYPE:
            if (cli_name("rows", "--dtype", optarg, dtype_names, YAMR_DTYPE_COUNT, &d))
                return CLI_USAGE;
            dtype = (yamr_dtype)d;
            break;
        default:
            if (cli_timing_option("rows", opt, optarg, &timing)) return CLI_USAGE;
        }
    }
    if (cli_no_operands("rows", argc, argv, optind)) return CLI_USAGE;
    if (out && cli_out_dir("rows", out)) return CLI_USAGE;
    yamr_context *ctx, *cpu;
    identity id;
    int on_gpu;
    const int opened = bench_open("rows", dev, stdout, 1, &ctx, &id, &on_gpu);
    if (opened) return opened;
    if (dev == CLI_DEVICE_ANY) dev = 0;
    if (yamr_create(&cpu, YAMR_DEVICE_CPU) != YAMR_SUCCESS) return 1;
    if (!on_gpu) {
        printf("No GPU: timing the CPU backend (wall clock per call) on 1/16 of the rows.\n");
        quick = 1;
        if (timing.reps > 5) timing.reps = 5;
        if (timing.warmup > 2) timing.warmup = 2;
    }
    const size_t divide = quick ? 16 : 1;

    /* the largest input, and the pool that holds its rotations */
    size_t max_bytes = 0, max_rows = 0;
    for (size_t i = 0; i < CASE_COUNT; ++i) {
        const size_t rows = cases[i].rows / divide ? cases[i].rows / divide : 1;
        const size_t b = rows * cases[i].cols * yamr_dtype_size(dtype);
        if (b > max_bytes) max_bytes = b;
        if (rows > max_rows) max_rows = rows;
    }
    /* as yamr-bench sweep: inputs rotate past the cache (the CPU's last level, a GPU's L2), and
     * the copy ceiling (half the pool) is past it whatever the cases' sizes */
    const size_t l2 = on_gpu ? sweep_l2_bytes(dev) : host_cache_bytes(), mib = (size_t)1 << 20;
    const size_t cpu_copy = l2 < 64 * mib ? 64 * mib : l2 > 256 * mib ? 256 * mib : l2;
    const size_t least_pool = on_gpu ? 8 * l2 : 2 * cpu_copy;
    size_t pool_bytes = max_bytes > least_pool ? max_bytes : least_pool;
    pool_bytes = (pool_bytes + 255) / 256 * 256;
    const size_t esize = yamr_dtype_size(dtype);
    void *host = malloc(max_bytes);
    int64_t *host_offsets = (int64_t *)malloc((max_rows + 1) * sizeof *host_offsets);
    call_arg a;
    memset(&a, 0, sizeof a);
    a.ctx = ctx;
    a.timing = timing;
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
    /* CUB: its output (a float or an {int, float} pair per row) and the matrix rows' bounds */
    const int cub = on_gpu && baseline_segmented_available();
    int64_t *host_bounds = NULL;
    void *bounds_dev = NULL;
    if (cub && (!(host_bounds = (int64_t *)malloc(2 * max_rows * sizeof *host_bounds)) ||
                yamr_device_alloc(ctx, 2 * max_rows * 8, &bounds_dev) != YAMR_SUCCESS ||
                yamr_device_alloc(ctx, max_rows * 8, &a.cub_out) != YAMR_SUCCESS)) {
        fprintf(stderr, "yamr-bench rows: cannot allocate CUB's buffers: %s\n",
                yamr_last_error(ctx));
        return 1;
    }
    a.dtype = dtype;
    if (on_gpu ? sweep_fill(dtype, a.pool, pool_bytes / esize, 4242, err, sizeof err)
               : (host_fill(dtype, a.pool, pool_bytes / esize, 4242), 0)) {
        fprintf(stderr, "yamr-bench rows: fill: %s\n", err);
        return 1;
    }

    /* the bandwidth ceiling: one large copy, bytes read plus bytes written */
    copy_arg c = {a.pool + pool_bytes / 2, a.pool, pool_bytes / 2, on_gpu};
    sweep_times copy_times;
    if (on_gpu ? sweep_time(copy_call, &c, 2, 10, timing.queued, &copy_times, err, sizeof err)
               : bench_time_host(copy_call, &c, 2, 10, &copy_times, err, sizeof err)) {
        fprintf(stderr, "yamr-bench rows: copy: %s\n", err);
        return 1;
    }
    const double copy_gbps = 2.0 * (double)c.bytes / copy_times.median_us / 1e3;
    printf("copy ceiling: %.1f GB/s (%s of %zu MiB%s, read + write)%s%s\n", copy_gbps,
           on_gpu ? "device-to-device copy" : "memcpy in host memory", c.bytes >> 20,
           on_gpu ? "" : ", yamr's threads",
           cub ? "; baseline: CUB DeviceSegmentedReduce" : "; no vendor baseline in this build",
           copy_times.median_us > BUSY_SPREAD * copy_times.min_us ? "; busy: the machine was busy"
                                                                   : "");
    /* yamr and CUB for each case, and the launch floor */
    result_row rows[3 * CASE_COUNT + 1];
    int count = 0, failed = 0;
    if (on_gpu) { /* the least a one-launch call measures; a row of the results, not the table */
        result_row *r = &rows[count++];
        memset(r, 0, sizeof *r);
        if (bench_launch_floor("rows", stdout, timing.warmup, timing.reps, timing.queued,
                               &r->median_us, &r->min_us))
            return 1;
        snprintf(r->name, sizeof r->name, "launch_floor");
        snprintf(r->size, sizeof r->size, "-");
        snprintf(r->impl, sizeof r->impl, "empty_kernel");
        snprintf(r->shape, sizeof r->shape, "-");
        r->cub_over_yamr = NAN; /* GB/s and % copy stay 0: it reads nothing */
    }
    printf("inputs: %s\n\n",
           timing.resident ? "resident (one copy of each, which the cache may hold)"
           : on_gpu        ? "rotated (inputs under twice the L2 rotate over copies)"
                           : "rotated (inputs under twice the last-level cache rotate over copies)");
    printf("GB/s: input bytes read per second (median call; segments: the offsets too); %% copy: "
           "of the\ncopy ceiling; cub/yamr: CUB's median over yamr's (above 1: yamr is faster); "
           "impl read: the read\nceiling; shape: the kernel shape yamr picked; busy: the median "
           "is over %.1fx the fastest\ncall, so the machine was busy (rerun on a quiet one); "
           "cache: the inputs fit the cache, which\nmay pass the copy ceiling (memory's).\n",
           BUSY_SPREAD);
    printf("%-14s %-16s %-20s %10s %10s %9s %7s %8s %s\n", "case", "size", "impl:shape",
           "median us", "min us", "GB/s", "% copy", "cub/yamr", "note");

    cli_progress progress;
    cli_progress_start(&progress, "rows", "cases", (int)CASE_COUNT);
    for (size_t i = 0; i < CASE_COUNT && !failed; ++i) {
        const rows_case *c = &cases[i];
        if (c->kind == CASE_SOFTMAX && dtype != YAMR_DTYPE_F32) {
            cli_progress_step(&progress);
            continue;
        }
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
            read_bytes = elems * esize + (a.rows + 1) * 8;
            snprintf(size, sizeof size, "%zu segs", a.rows);
        } else {
            read_bytes = elems * esize;
            snprintf(size, sizeof size, "%zux%zu", a.rows, a.cols);
        }
        a.stride = (elems * esize + 255) / 256 * 256;
        a.rotations = !timing.resident && elems * esize < 2 * l2 ? pool_bytes / a.stride : 1;
        if (a.rotations > 64) a.rotations = 64;
        if (a.rotations < 1) a.rotations = 1;
        char what[96];
        char name[32]; /* the case, and the dtype unless float32 */
        if (dtype == YAMR_DTYPE_F32)
            snprintf(name, sizeof name, "%s", c->name);
        else
            snprintf(name, sizeof name, "%s_%s", c->name, yamr_dtype_name(dtype));
        snprintf(what, sizeof what, "%s %s", name, size);
        if (yamr_copy_to_host(ctx, host, a.pool, elems * esize) != YAMR_SUCCESS ||
            verify(ctx, cpu, &a, host, host_offsets, what)) {
            failed = 1;
            break;
        }
        const int cub_here = cub && dtype == YAMR_DTYPE_F32 && cub_fits(c, elems);
        if (cub_here && (cub_prepare(ctx, &a, host_bounds, bounds_dev, err, sizeof err) ||
                         verify_cub(ctx, &a, host_offsets, what, err, sizeof err))) {
            failed = 1;
            break;
        }
        result_row named;
        memset(&named, 0, sizeof named);
        snprintf(named.name, sizeof named.name, "%s", name);
        snprintf(named.size, sizeof named.size, "%s", size);
        named.in_cache = a.rotations * a.stride < l2;
        /* the kernel the verified call ran */
        yamr_plan plan;
        char shape[32] = "?";
        if (yamr_last_plan(ctx, &plan) == YAMR_SUCCESS)
            snprintf(shape, sizeof shape, "%s", yamr_kernel_name(plan.kernel));
        result_row *r = &rows[count++];
        if (time_row(&a, RUN_YAMR, on_gpu, &named, "yamr", shape, read_bytes, copy_gbps, r, err,
                     sizeof err)) {
            failed = 1;
            break;
        }
        /* CUB: GB/s of the same bytes as yamr's (not CUB's row bounds), as the times */
        result_row *base = cub_here ? &rows[count++] : NULL;
        if (base && (failed = time_row(&a, RUN_CUB, on_gpu, &named, "cub", "segmented",
                                       read_bytes, copy_gbps, base, err, sizeof err)))
            break;
        if (base) r->cub_over_yamr = base->median_us / r->median_us;
        /* the read ceiling: the same rotations of the input, elements only (not the offsets) */
        result_row *ceiling = on_gpu ? &rows[count++] : NULL;
        a.read_bytes = elems * esize;
        if (ceiling && (failed = time_row(&a, RUN_READ, on_gpu, &named, "read", "ceiling",
                                          a.read_bytes, copy_gbps, ceiling, err, sizeof err)))
            break;
        cli_progress_clear(&progress);
        print_row(r);
        if (base) print_row(base);
        if (ceiling) print_row(ceiling);
        fflush(stdout);
        cli_progress_step(&progress);
    }
    cli_progress_clear(&progress);
    if (failed)
        fprintf(stderr, "yamr-bench rows: stopped: %s\n", err[0] ? err : "verification failed");
    int rc = failed;
    if (!failed && out)
        rc = write_results(out, &id, rows, count, copy_gbps,
                           bench_timing_name(on_gpu, timing.queued));
    free(host);
    free(host_offsets);
    free(host_bounds);
    yamr_device_free(ctx, bounds_dev);
    yamr_device_free(ctx, a.cub_out);
    yamr_device_free(ctx, a.cub_temp);
    yamr_device_free(ctx, a.pool);
    yamr_device_free(ctx, offsets_dev);
    yamr_device_free(ctx, a.values);
    yamr_device_free(ctx, a.second);
    yamr_destroy(cpu);
    yamr_destroy(ctx);
    return rc;
}
