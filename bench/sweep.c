/* SPDX-License-Identifier: MIT */
/*
 * yamr-bench sweep: max, argmax and min+max over sizes, dtypes and variants, next to the vendor
 * baseline (CUB on NVIDIA builds), the read ceiling (a plain read of the same input, per size), a
 * copy and the launch floor (an empty kernel timed the same way: what a call of one launch
 * measures before any work), all in one run.
 *
 * Every result, CUB's too, is checked against the CPU backend before it is timed. GPU times are
 * event pairs around each call (median and minimum of --reps after --warmup calls), each timed as
 * it is launched or, with --timing queued, all launched behind a held stream; inputs smaller
 * than twice the L2 rotate over several copies so that the L2 does not serve them (--inputs
 * resident keeps one copy, which the L2 may serve; the results' column copies says how many,
 * as in yamr-bench rows). On the CPU
 * backend the times are wall-clock per call and the inputs rotate past the last-level cache
 * alike; the copy is memcpy and the read a plain loop, each split over the threads the CPU
 * backend's own calls get (bench_common.h). The copy ceiling is measured past the cache (the L2
 * of a GPU), whatever sizes were asked. Each row gives min, median and max of its calls, and says
 * "busy" when the median is over BUSY_SPREAD times the fastest (a busy machine).
 *
 * --out DIR writes DIR/sweep.csv and DIR/sweep.json, and the same times in BabelStream's CSV
 * layout (DIR/sweep-babelstream.csv: function,num_times,n_elements,sizeof,max_mbytes_per_sec,
 * min_runtime,max_runtime,avg_runtime; seconds, and 10^6 bytes per second from the fastest call,
 * as BabelStream's --csv prints them), so that the rows sit beside that benchmark's.
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

#define MAX_LIST 32
#define OP_MINMAX (-1) /* a sweep "op" beside yamr_op: min+max in one call */

typedef struct {
    int device;
    cli_timing timing;
    size_t sizes[MAX_LIST];
    int size_count;
    yamr_dtype dtypes[YAMR_DTYPE_COUNT];
    int dtype_count;
    yamr_variant variants[YAMR_VARIANT_COUNT];
    int variant_count;
    int ops[3];
    int op_count;
    const char *out;
} sweep_options;

/* ---- one timed call ---- */

typedef struct {
    yamr_context *ctx;
    int on_gpu;
    int op; /* yamr_op or OP_MINMAX */
    int baseline; /* 1: CUB; 2: copy; 3: the read ceiling */
    yamr_dtype dtype;
    char *pool;
    size_t n, stride, rotations;
    char *out; /* value/index slots in the context's memory */
    void *temp;
    size_t temp_bytes;
    char *copy_dst;
} call_arg;

static int one_call(void *p, int rep)
{
    call_arg *a = (call_arg *)p;
    const char *in = a->pool + (size_t)rep % a->rotations * a->stride;
    const size_t bytes = a->n * yamr_dtype_size(a->dtype);
    if (a->baseline == 3) {
        if (a->on_gpu) return sweep_read(in, bytes);
        (void)host_read(in, bytes);
        return 0;
    }
    if (a->baseline == 2) {
        if (a->on_gpu) return sweep_copy(a->copy_dst, in, bytes);
        host_copy(a->copy_dst, in, bytes);
        return 0;
    }
    if (a->baseline == 1) {
        size_t temp_bytes = a->temp_bytes;
        return baseline_cub(a->dtype, a->op == YAMR_OP_ARGMAX, in, (long long)a->n, a->temp,
                            &temp_bytes, a->out, (long long *)(a->out + 8), NULL);
    }
    if (a->op == OP_MINMAX)
        return yamr_minmax_async(a->ctx, a->dtype, in, a->n, a->out + 16, (int64_t *)(a->out + 24),
                                 a->out, (int64_t *)(a->out + 8)) != YAMR_SUCCESS;
    return yamr_reduce_async(a->ctx, (yamr_op)a->op, a->dtype, in, a->n, a->out,
                             a->op == YAMR_OP_ARGMAX ? (int64_t *)(a->out + 8) : NULL) != YAMR_SUCCESS;
}

static int time_calls(call_arg *a, const sweep_options *o, sweep_row *r, char *err, size_t errlen)
{
    sweep_times t;
    const cli_timing *c = &o->timing;
    const int failed = a->on_gpu
                           ? sweep_time(one_call, a, c->warmup, c->reps, c->queued, &t, err, errlen)
                           : bench_time_host(one_call, a, c->warmup, c->reps, &t, err, errlen);
    if (failed) return 1;
    r->median_us = t.median_us;
    r->min_us = t.min_us;
    r->busy = r->median_us > BUSY_SPREAD * r->min_us;
    r->max_us = t.max_us;
    r->mean_us = t.mean_us;
    r->reps = o->timing.reps;
    r->copies = a->rotations;
    return 0;
}

/* ---- checks before timing ---- */

/* The CPU backend's answer for `op` on host data. */
static int reference(yamr_context *cpu, int op, yamr_dtype t, const void *host, size_t n,
                     uint64_t value[2], int64_t index[2])
{
    if (op == OP_MINMAX)
        return yamr_minmax(cpu, t, host, n, &value[1], &index[1], &value[0], &index[0]) != YAMR_SUCCESS;
    index[0] = -2;
    return yamr_reduce(cpu, (yamr_op)op, t, host, n, &value[0], &index[0]) != YAMR_SUCCESS;
}

static int verify(yamr_context *ctx, yamr_context *cpu, int op, yamr_dtype t, const void *dev,
                  const void *host, size_t n, const char *what)
{
    uint64_t want[2] = {0, 0}, got[2] = {0, 0};
    int64_t want_i[2] = {-2, -2}, got_i[2] = {-2, -2};
    if (reference(cpu, op, t, host, n, want, want_i)) return 1;
    yamr_status s = op == OP_MINMAX
                        ? yamr_minmax(ctx, t, dev, n, &got[1], &got_i[1], &got[0], &got_i[0])
                        : yamr_reduce(ctx, (yamr_op)op, t, dev, n, &got[0], op == YAMR_OP_MAX ? NULL : &got_i[0]);
    if (op == YAMR_OP_MAX) got_i[0] = want_i[0] = -2;
    const int slots = op == OP_MINMAX ? 2 : 1;
    for (int k = 0; k < slots && s == YAMR_SUCCESS; ++k)
        if (got[k] != want[k] || got_i[k] != want_i[k]) {
            fprintf(stderr, "VERIFY FAILED %s: got %llx@%lld, expected %llx@%lld\n", what,
                    (unsigned long long)got[k], (long long)got_i[k], (unsigned long long)want[k],
                    (long long)want_i[k]);
            return 1;
        }
    if (s != YAMR_SUCCESS) fprintf(stderr, "VERIFY FAILED %s: %s\n", what, yamr_status_string(s));
    return s != YAMR_SUCCESS;
}

/* The sign bit of a float dtype's element read into the low bytes of a uint64_t (little-endian,
 * as all the bits compared below are); 0 for an integer dtype. */
static uint64_t float_sign_bit(yamr_dtype t)
{
    switch (t) {
    case YAMR_DTYPE_F32: return (uint64_t)1 << 31;
    case YAMR_DTYPE_F64: return (uint64_t)1 << 63;
    case YAMR_DTYPE_F16:
    case YAMR_DTYPE_BF16: return (uint64_t)1 << 15;
    default: return 0;
    }
}

/* Whether `bits` (one element of t) is a NaN: above infinity once the sign is cleared. */
static int is_nan_bits(yamr_dtype t, uint64_t bits)
{
    const uint64_t magnitude = bits & ~float_sign_bit(t);
    switch (t) {
    case YAMR_DTYPE_F32: return magnitude > UINT64_C(0x7f800000);
    case YAMR_DTYPE_F64: return magnitude > UINT64_C(0x7ff0000000000000);
    case YAMR_DTYPE_F16: return magnitude > UINT64_C(0x7c00);
    case YAMR_DTYPE_BF16: return magnitude > UINT64_C(0x7f80);
    default: return 0;
    }
}

/* CUB's max (argmax) of the first rotation against the CPU backend's, both on the same host copy.
 * cub::DeviceReduce::ArgMax keeps the smaller index on ties (cub::ArgMax) and compares with >, so
 * -0.0 == +0.0 as in yamr: its index must be yamr's and its value the same bits. ::Max keeps
 * either of -0.0 and +0.0 (order-dependent), so its value must be yamr's bits or, when yamr's is a
 * zero, the other zero. CUB has no NaN policy: input with a NaN (a NaN answer under the CPU
 * context's default YAMR_NAN_PROPAGATE) is refused. The outputs are set to all-ones first, so that
 * a CUB call that wrote nothing cannot pass on an earlier answer. */
static int verify_cub(call_arg *a, yamr_context *cpu, const void *host, const char *what)
{
    const size_t elem = yamr_dtype_size(a->dtype);
    const int argmax = a->op == YAMR_OP_ARGMAX;
    uint64_t want[2] = {0, 0}, got = 0;
    int64_t want_i[2] = {-2, -2}, got_i = -2;
    if (reference(cpu, a->op, a->dtype, host, a->n, want, want_i)) {
        fprintf(stderr, "VERIFY FAILED %s: the CPU backend's reference failed\n", what);
        return 1;
    }
    if (is_nan_bits(a->dtype, want[0])) {
        fprintf(stderr, "VERIFY FAILED %s: the input holds a NaN, and CUB has no NaN policy to "
                        "check against\n", what);
        return 1;
    }
    unsigned char ones[16];
    memset(ones, 0xff, sizeof ones);
    a->baseline = 1;
    const int failed = yamr_copy_to_device(a->ctx, a->out, ones, sizeof ones) || one_call(a, 0) ||
                       yamr_copy_to_host(a->ctx, &got, a->out, elem) ||
                       yamr_copy_to_host(a->ctx, &got_i, a->out + 8, 8);
    a->baseline = 0;
    if (failed) {
        fprintf(stderr, "VERIFY FAILED %s: the CUB call or its copy back failed\n", what);
        return 1;
    }
    const uint64_t sign = float_sign_bit(a->dtype);
    const int both_zero = sign && !(got & ~sign) && !(want[0] & ~sign);
    const int value_ok = got == want[0] || (!argmax && both_zero);
    if (!value_ok || (argmax && got_i != want_i[0])) {
        fprintf(stderr, "VERIFY FAILED %s: CUB gave %llx@%lld, the CPU backend %llx@%lld\n", what,
                (unsigned long long)got, argmax ? (long long)got_i : -1LL,
                (unsigned long long)want[0], argmax ? (long long)want_i[0] : -1LL);
        return 1;
    }
    return 0;
}

/* ---- output ---- */

static const char *op_name(int op)
{
    return op == OP_MINMAX ? "minmax" : op == YAMR_OP_ARGMAX ? "argmax" : op == YAMR_OP_MAX ? "max" : "min";
}

static void print_row(FILE *out, const sweep_row *r)
{
    char vs[16] = "-";
    if (!isnan(r->vs_baseline)) snprintf(vs, sizeof vs, "%.2f", r->vs_baseline);
    fprintf(out, "%-5s %-7s %12zu %-14s %10.2f %10.2f %10.2f %9.1f %7.1f %8s %s%s%s\n", r->dtype,
            r->op, r->n, r->impl, r->min_us, r->median_us, r->max_us, r->gbps, r->pct_copy, vs,
            r->busy ? "busy" : "", r->busy && r->in_cache ? "," : "", r->in_cache ? "cache" : "");
}

static int write_rows(const char *dir, const identity *id, const sweep_row *rows, int count,
                      double copy_gbps, const char *timing, FILE *out)
{
    char prefix[1024];
    snprintf(prefix, sizeof prefix, "%s/sweep", dir);
    FILE *csv, *json;
    if (open_results(prefix, &csv, &json)) return 1;
    fprintf(csv, "vendor,device,arch,warp_size,its,compiler,library_version,git_rev,dtype,op,n,impl,"
                 "median_us,min_us,gbps,pct_copy,baseline_over_impl,copy_gbps,timing,copies,"
                 "max_us,busy,in_cache\n");
    fprintf(json, "[\n");
    for (int i = 0; i < count; ++i) {
        const sweep_row *r = &rows[i];
        csv_identity(csv, id);
        fprintf(csv, "%s,%s,%zu,%s,", r->dtype, r->op, r->n, r->impl);
        csv_timing(csv, r->median_us, r->min_us, r->gbps, r->pct_copy);
        csv_number(csv, r->vs_baseline, "%.4f", ",");
        csv_number(csv, copy_gbps, "%.1f", ",");
        fprintf(csv, "%s,%zu,", timing, r->copies);
        csv_number(csv, r->max_us, "%.3f", ",");
        fprintf(csv, "%d,%d\n", r->busy, r->in_cache);
        json_identity(json, id);
        fprintf(json, "\"dtype\": \"%s\", \"op\": \"%s\", \"n\": %zu, \"impl\": \"%s\", ", r->dtype,
                r->op, r->n, r->impl);
        json_timing(json, r->median_us, r->min_us, r->gbps, r->pct_copy);
        json_number(json, "baseline_over_impl", r->vs_baseline, "%.4f", ", ");
        json_number(json, "copy_gbps", copy_gbps, "%.1f", ", ");
        fprintf(json, "\"timing\": \"%s\", \"copies\": %zu, ", timing, r->copies);
        json_number(json, "max_us", r->max_us, "%.3f", ", ");
        fprintf(json, "\"busy\": %d, \"in_cache\": %d", r->busy, r->in_cache);
        fprintf(json, "}%s\n", i == count - 1 ? "" : ",");
    }
    fprintf(json, "]\n");
    fclose(csv);
    fclose(json);

    /* BabelStream's layout: one row per timed thing that reads an input (not the launch floor) */
    char path[1100];
    snprintf(path, sizeof path, "%s-babelstream.csv", prefix);
    FILE *bs = fopen(path, "w");
    if (!bs) {
        fprintf(stderr, "yamr-bench sweep: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    fprintf(bs, "function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_runtime,"
                "avg_runtime\n");
    for (int i = 0; i < count; ++i) {
        const sweep_row *r = &rows[i];
        if (!r->n) continue;
        size_t elem = 0;
        for (int d = 0; d < YAMR_DTYPE_COUNT; ++d)
            if (!strcmp(r->dtype, yamr_dtype_name((yamr_dtype)d)))
                elem = yamr_dtype_size((yamr_dtype)d);
        char function[64];
        if (!strcmp(r->impl, "read"))
            snprintf(function, sizeof function, "read_%s", r->dtype);
        else
            snprintf(function, sizeof function, "%s_%s_%s", r->op, r->dtype, r->impl);
        for (char *c = function; *c; ++c)
            if (*c == ':') *c = '_';
        fprintf(bs, "%s,%d,%zu,%zu,%.3f,%.9f,%.9f,%.9f\n", function, r->reps, r->n, elem,
                (double)(r->n * elem) / r->min_us, 1e-6 * r->min_us, 1e-6 * r->max_us,
                1e-6 * r->mean_us);
    }
    fclose(bs);
    fprintf(out, "wrote %s.csv, %s.json and %s (%d rows)\n", prefix, prefix, path, count);
    return 0;
}

/* ---- options ---- */

/* --sizes: 2^E elements; E = SIZE_EXP_PAST_INT32 is past 32-bit indexing instead. */
#define SIZE_EXP_PAST_INT32 32
#define CPU_MAX_SIZE ((size_t)1 << 24)

static size_t size_of_exponent(long long e)
{
    return e == SIZE_EXP_PAST_INT32 ? ((size_t)1 << 31) + ((size_t)1 << 20) + 3 : (size_t)1 << e;
}

static void sweep_usage(FILE *f)
{
    fprintf(f,
            "usage: yamr-bench sweep [--sizes E,E,...] [--dtypes T,...] [--variants V,...]\n"
            "                        [--ops max,argmax,minmax] [--reps N] [--warmup N]\n"
            "                        [--timing isolated|queued] [--inputs rotated|resident]\n"
            "                        [--device D|cpu] [--out DIR]\n"
            "Times each op, dtype, size and variant, next to CUB's DeviceReduce (NVIDIA builds),\n"
            "the read ceiling (a plain read of the same input: impl read), a copy (the ceiling\n"
            "that '%% copy' compares with) and the launch floor (an empty kernel timed the same\n"
            "way; impl empty_kernel in the results). Each result is checked against the CPU\n"
            "backend before it is timed. Without a GPU: the CPU backend, sizes up to 2^24.\n"
            "  --sizes E,..    2^E elements, E in 0..32; 32 means 2^31 + 2^20 + 3 (past 32-bit\n"
            "                  indices). Default 10,12,...,28\n"
            "  --dtypes T,..   of:");
    for (int d = 0; d < YAMR_DTYPE_COUNT; ++d) fprintf(f, " %s", yamr_dtype_name((yamr_dtype)d));
    fprintf(f, " (default f32)\n  --variants V,.. of:");
    for (int v = 0; v < YAMR_VARIANT_COUNT; ++v)
        if (v != YAMR_VARIANT_RACY) fprintf(f, " %s", yamr_variant_name((yamr_variant)v));
    fprintf(f, " (default auto;\n                  racy is single-block only: yamr-bench race)\n"
               "  --ops O,..      of: max argmax minmax (default: all three)\n"
               "  --reps N        timed calls, 1..100000 (default 50; 11 at most on the CPU)\n"
               "  --warmup N      untimed calls first, 0..100000 (default 5)\n"
               CLI_USAGE_TIMING
               "  --device D      GPU ordinal D, or cpu (default: GPU 0 when there is one)\n"
               "  --out DIR       writes DIR/sweep.{csv,json} and DIR/sweep-babelstream.csv\n"
               "Columns: GB/s counts the input read once; %% copy is that over the copy ceiling;\n"
               "base/us is the baseline's median over the row's (above 1: the row is faster); the\n"
               "baseline is CUB on NVIDIA builds, rocPRIM on AMD builds (impl cub, rocprim).\n");
}

enum { OPT_SIZES = CLI_OPT_FIRST_OWN, OPT_DTYPES, OPT_VARIANTS, OPT_OPS };

/* 0 to run, -1 after --help (exit 0), or CLI_USAGE. */
static int sweep_parse(int argc, char **argv, sweep_options *o)
{
    static const struct option options[] = {
        CLI_OPTION_HELP, CLI_OPTION_OUT, CLI_OPTION_DEVICE,
        {"sizes", required_argument, NULL, OPT_SIZES},
        {"dtypes", required_argument, NULL, OPT_DTYPES},
        {"variants", required_argument, NULL, OPT_VARIANTS},
        {"ops", required_argument, NULL, OPT_OPS},
        CLI_OPTIONS_TIMING,
        CLI_OPTION_END};
    static const char *const op_names[] = {"max", "argmax", "minmax"};
    static const int op_values[] = {YAMR_OP_MAX, YAMR_OP_ARGMAX, OP_MINMAX};
    memset(o, 0, sizeof *o);
    o->device = CLI_DEVICE_ANY;
    o->timing.reps = 50;
    o->timing.warmup = 5;
    for (int e = 10; e <= 28; e += 2) o->sizes[o->size_count++] = (size_t)1 << e;
    o->dtypes[o->dtype_count++] = YAMR_DTYPE_F32;
    o->variants[o->variant_count++] = YAMR_VARIANT_AUTO;
    o->ops[0] = YAMR_OP_MAX, o->ops[1] = YAMR_OP_ARGMAX, o->ops[2] = OP_MINMAX, o->op_count = 3;
    const char *dtype_names[YAMR_DTYPE_COUNT], *variant_names[YAMR_VARIANT_COUNT];
    for (int d = 0; d < YAMR_DTYPE_COUNT; ++d) dtype_names[d] = yamr_dtype_name((yamr_dtype)d);
    for (int v = 0; v < YAMR_VARIANT_COUNT; ++v)
        variant_names[v] = v == YAMR_VARIANT_RACY ? NULL : yamr_variant_name((yamr_variant)v);
    long long exps[MAX_LIST];
    int idx[MAX_LIST], reset = 1, c;
    while ((c = cli_next("sweep", argc, argv, options, &reset)) != -1) {
        switch (c) {
        case CLI_OPT_HELP: sweep_usage(stdout); return -1;
        case CLI_OPT_OUT: o->out = optarg; break;
        case CLI_OPT_DEVICE:
            if (cli_device("sweep", optarg, &o->device)) return CLI_USAGE;
            break;
        case OPT_SIZES:
            if (cli_int_list("sweep", "--sizes", optarg, 0, SIZE_EXP_PAST_INT32, exps, MAX_LIST,
                             &o->size_count))
                return CLI_USAGE;
            for (int i = 0; i < o->size_count; ++i) o->sizes[i] = size_of_exponent(exps[i]);
            break;
        case OPT_DTYPES:
            if (cli_name_list("sweep", "--dtypes", optarg, dtype_names, YAMR_DTYPE_COUNT, idx,
                              YAMR_DTYPE_COUNT, &o->dtype_count))
                return CLI_USAGE;
            for (int i = 0; i < o->dtype_count; ++i) o->dtypes[i] = (yamr_dtype)idx[i];
            break;
        case OPT_VARIANTS:
            if (cli_name_list("sweep", "--variants", optarg, variant_names, YAMR_VARIANT_COUNT, idx,
                              YAMR_VARIANT_COUNT, &o->variant_count))
                return CLI_USAGE;
            for (int i = 0; i < o->variant_count; ++i) o->variants[i] = (yamr_variant)idx[i];
            break;
        case OPT_OPS:
            if (cli_name_list("sweep", "--ops", optarg, op_names, 3, idx, 3, &o->op_count))
                return CLI_USAGE;
            for (int i = 0; i < o->op_count; ++i) o->ops[i] = op_values[idx[i]];
            break;
        default:
            if (cli_timing_option("sweep", c, optarg, &o->timing)) return CLI_USAGE;
        }
    }
    if (cli_no_operands("sweep", argc, argv, optind)) return CLI_USAGE;
    if (o->out && cli_out_dir("sweep", o->out)) return CLI_USAGE;
    return 0;
}

static int sweep_execute(sweep_options *o, const bench_output *out, sweep_results *kept)
{
    FILE *log = out->out;
    yamr_context *ctx, *cpu;
    identity id;
    int on_gpu;
    int rc = bench_open("sweep", o->device, log, 0, &ctx, &id, &on_gpu);
    if (rc) return rc;
    if (!on_gpu) {
        int kept_sizes = 0;
        for (int i = 0; i < o->size_count; ++i)
            if (o->sizes[i] <= CPU_MAX_SIZE) o->sizes[kept_sizes++] = o->sizes[i];
        if (!kept_sizes) {
            yamr_destroy(ctx);
            return cli_refuse("sweep", "--sizes: the CPU backend times sizes up to 2^24 only");
        }
        if (kept_sizes < o->size_count)
            fprintf(log, "The CPU backend: sizes up to 2^24 (%d of %d kept), wall clock per "
                         "call.\n", kept_sizes, o->size_count);
        o->size_count = kept_sizes;
        if (o->timing.reps > 11) o->timing.reps = 11;
    }
    if (out->device_report) fprintf(log, "%s\n", yamr_report(ctx));
    if (yamr_create(&cpu, YAMR_DEVICE_CPU) != YAMR_SUCCESS) {
        yamr_destroy(ctx);
        return 1;
    }
    const int cub = on_gpu && baseline_cub_available();
    size_t max_bytes = 0;
    for (int d = 0; d < o->dtype_count; ++d)
        for (int i = 0; i < o->size_count; ++i) {
            size_t b = o->sizes[i] * yamr_dtype_size(o->dtypes[d]);
            if (b > max_bytes) max_bytes = b;
        }
    /* The copy ceiling reads and writes buffers past the last-level cache (the L2 of a GPU),
     * whatever sizes were asked: a ceiling measured in the cache is no ceiling for memory. The
     * pool the inputs rotate over holds at least that copy's source. */
    const size_t cache = on_gpu ? sweep_l2_bytes(o->device == CLI_DEVICE_ANY ? 0 : o->device)
                                : host_cache_bytes();
    const size_t mib = (size_t)1 << 20;
    size_t copy_bytes, pool_bytes;
    if (on_gpu) {
        pool_bytes = max_bytes > 8 * cache ? max_bytes : 8 * cache;
        copy_bytes = pool_bytes < 1024 * mib ? pool_bytes : 1024 * mib;
    } else { /* source and destination together twice the cache, each within 64..256 MiB */
        copy_bytes = cache < 64 * mib ? 64 * mib : cache > 256 * mib ? 256 * mib : cache;
        pool_bytes = max_bytes > copy_bytes ? max_bytes : copy_bytes;
    }
    copy_bytes = copy_bytes / 256 * 256;
    pool_bytes = (pool_bytes + 255) / 256 * 256;

    call_arg a;
    memset(&a, 0, sizeof a);
    a.ctx = ctx;
    a.on_gpu = on_gpu;
    char err[512] = "";
    void *host = malloc(max_bytes);
    yamr_status s = host ? YAMR_SUCCESS : YAMR_ERROR_OUT_OF_MEMORY;
    size_t asked = max_bytes;
    if (s == YAMR_SUCCESS) s = yamr_device_alloc(ctx, asked = pool_bytes, (void **)&a.pool);
    if (s == YAMR_SUCCESS) s = yamr_device_alloc(ctx, asked = copy_bytes, (void **)&a.copy_dst);
    if (s == YAMR_SUCCESS) s = yamr_device_alloc(ctx, asked = 64, (void **)&a.out);
    if (s != YAMR_SUCCESS) {
        fprintf(stderr, "yamr-bench sweep: cannot allocate %zu bytes: %s %s\n", asked,
                yamr_status_string(s), yamr_last_error(ctx));
        return 1;
    }

    /* Host memory never written reads as the kernel's zero page (from the cache) and faults on
     * its first write: both buffers are written once before the copy is timed. */
    if (!on_gpu) {
        memset(a.pool, 1, pool_bytes);
        memset(a.copy_dst, 0, copy_bytes);
    }
    /* The bandwidth ceiling: one large copy, bytes read plus bytes written. */
    sweep_row copy;
    a.baseline = 2, a.dtype = YAMR_DTYPE_F32, a.n = copy_bytes / 4, a.rotations = 1;
    if (time_calls(&a, o, &copy, err, sizeof err)) {
        fprintf(stderr, "yamr-bench sweep: copy: %s\n", err);
        return 1;
    }
    const double copy_gbps = 2.0 * (double)copy_bytes / copy.median_us / 1e3;
    char how[160];
    if (on_gpu)
        snprintf(how, sizeof how, "device-to-device copy of %zu MiB; L2 %zu MiB", copy_bytes / mib,
                 cache / mib);
    else
        snprintf(how, sizeof how, "memcpy in host memory of %zu MiB, %d thread(s) as yamr's; "
                 "last-level cache %zu MiB", copy_bytes / mib, host_threads_for(copy_bytes),
                 cache / mib);
    fprintf(log, "copy ceiling: %.1f GB/s (%s; read + write)%s\n", copy_gbps, how,
            cub ? (strcmp(baseline_name(), "cub") ? "; baseline: rocPRIM reduce"
                                                  : "; baseline: CUB DeviceReduce")
                : "; no vendor baseline in this build");
    if (copy.busy)
        fprintf(log, "copy ceiling: busy (its median copy took %.1fx the fastest): the machine "
                     "was busy, and so is every ratio to it\n", copy.median_us / copy.min_us);
    const int max_rows =
        1 + o->dtype_count * o->size_count * (1 + o->op_count * (o->variant_count + 1));
    sweep_row *rows = (sweep_row *)calloc((size_t)max_rows, sizeof *rows);
    int count = 0, failed = 0;
    if (!rows) return 1;
    if (on_gpu) { /* the least a one-launch call measures; a row of the results, not the table */
        sweep_row *r = &rows[count++];
        if (bench_launch_floor("sweep", log, o->timing.warmup, o->timing.reps, o->timing.queued,
                               &r->median_us, &r->min_us))
            return 1;
        snprintf(r->dtype, sizeof r->dtype, "-");
        snprintf(r->op, sizeof r->op, "launch");
        snprintf(r->impl, sizeof r->impl, "empty_kernel");
        r->vs_baseline = NAN; /* n, GB/s and % copy stay 0: it reads nothing */
        r->max_us = NAN;
    }
    fprintf(log, "inputs: %s\n",
            o->timing.resident ? "resident (one copy of each, which the cache may hold)"
            : on_gpu           ? "rotated (inputs under twice the L2 rotate over copies)"
                               : "rotated (inputs under twice the last-level cache rotate over "
                                 "copies)");
    fprintf(log, "\nGB/s: input bytes read per second (median call); %% copy: of the copy "
                 "ceiling; base/us: the\nbaseline's median over the row's (above 1: the row is "
                 "faster); impl read: the read ceiling, with\nthe threads yamr uses. min, median, "
                 "max: of the timed calls. busy: the median is over %.1fx the\nfastest call, so "
                 "the machine was busy (rerun on a quiet one); cache: the inputs fit the cache,\n"
                 "which may pass the copy ceiling (memory's).\n", BUSY_SPREAD);
    fprintf(log, "%-5s %-7s %12s %-14s %10s %10s %10s %9s %7s %8s %s\n", "dtype", "op", "n", "impl",
            "min us", "median us", "max us", "GB/s", "% copy", "base/us", "note");

    cli_progress progress;
    cli_progress_start(&progress, "sweep", "dtypes x sizes", o->dtype_count * o->size_count);
    for (int d = 0; d < o->dtype_count && !failed; ++d) {
        const yamr_dtype t = o->dtypes[d];
        a.dtype = t;
        if (on_gpu ? sweep_fill(t, a.pool, pool_bytes / yamr_dtype_size(t), 1234 + d, err, sizeof err)
                   : (host_fill(t, a.pool, pool_bytes / yamr_dtype_size(t), 1234 + d), 0)) {
            fprintf(stderr, "yamr-bench sweep: fill: %s\n", err);
            return 1;
        }
        if (cub) { /* temp storage for the largest size, asked once per dtype */
            a.temp = NULL;
            a.temp_bytes = 0;
            size_t largest = 0, need = 0, amax = 0;
            for (int si = 0; si < o->size_count; ++si)
                if (o->sizes[si] > largest) largest = o->sizes[si];
            if (baseline_cub(t, 0, a.pool, (long long)largest, NULL, &need, a.out, NULL, NULL) ||
                baseline_cub(t, 1, a.pool, (long long)largest, NULL, &amax, a.out, NULL, NULL) ||
                yamr_device_alloc(ctx, (need > amax ? need : amax) + 1024, &a.temp) != YAMR_SUCCESS) {
                fprintf(stderr, "yamr-bench sweep: cannot size or allocate CUB's temporary "
                                "storage for %s\n", yamr_dtype_name(t));
                return 1;
            }
            a.temp_bytes = (need > amax ? need : amax) + 1024;
        }
        for (int si = 0; si < o->size_count && !failed; ++si) {
            const size_t n = o->sizes[si], bytes = n * yamr_dtype_size(t);
            const int first_row = count;
            a.n = n;
            a.stride = (bytes + 255) / 256 * 256;
            a.rotations = !o->timing.resident && bytes < 2 * cache ? pool_bytes / a.stride : 1;
            if (a.rotations > 64) a.rotations = 64;
            if (a.rotations < 1) a.rotations = 1;
            const int in_cache = a.rotations * a.stride < cache;
            yamr_copy_to_host(ctx, host, a.pool, bytes);
            { /* the read ceiling of this input */
                sweep_row *r = &rows[count++];
                a.baseline = 3;
                if (time_calls(&a, o, r, err, sizeof err)) failed = 1;
                snprintf(r->impl, sizeof r->impl, "read");
                snprintf(r->op, sizeof r->op, "read");
                r->vs_baseline = NAN;
            }
            for (int oi = 0; oi < o->op_count && !failed; ++oi) {
                const int op = o->ops[oi];
                double base_us = NAN;
                if (cub && op != OP_MINMAX) {
                    char what[96];
                    snprintf(what, sizeof what, "%s %s n=%zu cub", yamr_dtype_name(t), op_name(op), n);
                    a.op = op;
                    if (verify_cub(&a, cpu, host, what)) {
                        failed = 1;
                        break;
                    }
                    sweep_row *r = &rows[count++];
                    a.baseline = 1;
                    if (time_calls(&a, o, r, err, sizeof err)) failed = 1;
                    snprintf(r->impl, sizeof r->impl, "%s", baseline_name());
                    snprintf(r->op, sizeof r->op, "%s", op_name(op));
                    base_us = r->median_us;
                    r->vs_baseline = 1.0;
                }
                for (int vi = 0; vi < o->variant_count && !failed; ++vi) {
                    char what[96];
                    snprintf(what, sizeof what, "%s %s n=%zu %s", yamr_dtype_name(t), op_name(op), n,
                             yamr_variant_name(o->variants[vi]));
                    if (yamr_set_variant(ctx, on_gpu ? o->variants[vi] : YAMR_VARIANT_AUTO) != YAMR_SUCCESS ||
                        verify(ctx, cpu, op, t, a.pool, host, n, what)) {
                        failed = 1;
                        break;
                    }
                    sweep_row *r = &rows[count++];
                    a.baseline = 0, a.op = op;
                    if (time_calls(&a, o, r, err, sizeof err)) failed = 1;
                    yamr_plan plan; /* what the timed calls ran */
                    yamr_variant resolved = YAMR_VARIANT_AUTO;
                    if (yamr_last_plan(ctx, &plan) == YAMR_SUCCESS) resolved = plan.variant;
                    snprintf(r->impl, sizeof r->impl, "%s%s%s", yamr_variant_name(o->variants[vi]),
                             o->variants[vi] == YAMR_VARIANT_AUTO && on_gpu ? ":" : "",
                             o->variants[vi] == YAMR_VARIANT_AUTO && on_gpu ? yamr_variant_name(resolved) : "");
                    snprintf(r->op, sizeof r->op, "%s", op_name(op));
                    r->vs_baseline = base_us / r->median_us;
                }
            }
            cli_progress_clear(&progress);
            for (int k = first_row; k < count; ++k) {
                sweep_row *r = &rows[k];
                snprintf(r->dtype, sizeof r->dtype, "%s", yamr_dtype_name(t));
                r->n = n;
                r->gbps = (double)bytes / r->median_us / 1e3;
                r->pct_copy = 100.0 * r->gbps / copy_gbps;
                r->in_cache = in_cache;
                if (!failed) print_row(log, r);
            }
            fflush(log);
            cli_progress_step(&progress);
        }
        yamr_device_free(ctx, a.temp);
        a.temp = NULL;
    }
    cli_progress_clear(&progress);
    if (failed)
        fprintf(stderr, "yamr-bench sweep: stopped: %s\n", err[0] ? err : "verification failed");
    rc = failed;
    const char *timing = bench_timing_name(on_gpu, o->timing.queued);
    if (!failed && o->out) rc = write_rows(o->out, &id, rows, count, copy_gbps, timing, log);
    if (kept && !failed) {
        kept->rows = rows;
        kept->count = count;
        kept->on_gpu = on_gpu;
        kept->copy_gbps = copy_gbps;
        kept->copy_busy = copy.busy;
        snprintf(kept->baseline, sizeof kept->baseline, "%s", cub ? baseline_name() : "");
        snprintf(kept->timing, sizeof kept->timing, "%s", timing);
    } else {
        free(rows);
    }
    free(host);
    yamr_device_free(ctx, a.pool);
    yamr_device_free(ctx, a.copy_dst);
    yamr_device_free(ctx, a.out);
    yamr_destroy(cpu);
    yamr_destroy(ctx);
    return rc;
}

int sweep_command(int argc, char **argv, const bench_output *out, sweep_results *kept)
{
    sweep_options o;
    const int parsed = sweep_parse(argc, argv, &o);
    if (parsed) return parsed < 0 ? 0 : parsed;
    return sweep_execute(&o, out, kept);
}

int run_sweep(int argc, char **argv)
{
    const bench_output out = {stdout, 1};
    return sweep_command(argc, argv, &out, NULL);
}
