/*
 * yamr-bench sweep: max, argmax and min+max over sizes, dtypes and variants, next to the vendor
 * baseline (CUB on NVIDIA builds), a device-to-device copy and the launch floor (an empty kernel
 * timed the same way: what a call of one launch measures before any work), all in one run.
 *
 * Every result, CUB's too, is checked against the CPU backend before it is timed. GPU times are
 * event pairs around each call (median and minimum of --reps after --warmup calls), each timed as
 * it is launched or, with --timing queued, all launched behind a held stream; inputs smaller
 * than twice the L2 rotate over several copies so that the L2 does not serve them. On the CPU
 * backend the times are wall-clock per call.
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

#define MAX_LIST 32
#define OP_MINMAX (-1) /* a sweep "op" beside yamr_op: min+max in one call */

typedef struct {
    int device, reps, warmup, queued;
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

typedef struct {
    char dtype[8], op[8], impl[24];
    size_t n;
    double median_us, min_us, gbps, pct_copy, vs_baseline;
} sweep_row;

/* ---- one timed call ---- */

typedef struct {
    yamr_context *ctx;
    int on_gpu;
    int op; /* yamr_op or OP_MINMAX */
    int baseline; /* 1: CUB; 2: copy */
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
    if (a->baseline == 2) {
        if (a->on_gpu) return sweep_copy(a->copy_dst, in, bytes);
        memcpy(a->copy_dst, in, bytes);
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

static int time_calls(call_arg *a, const sweep_options *o, double *median, double *min, char *err,
                      size_t errlen)
{
    return a->on_gpu
               ? sweep_time(one_call, a, o->warmup, o->reps, o->queued, median, min, err, errlen)
               : bench_time_host(one_call, a, o->warmup, o->reps, median, min, err, errlen);
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

static void print_row(const sweep_row *r)
{
    char vs[16] = "-";
    if (!isnan(r->vs_baseline)) snprintf(vs, sizeof vs, "%.2f", r->vs_baseline);
    printf("%-5s %-7s %12zu %-14s %10.2f %10.2f %9.1f %7.1f %8s\n", r->dtype, r->op, r->n, r->impl,
           r->median_us, r->min_us, r->gbps, r->pct_copy, vs);
}

static int write_rows(const char *prefix, const identity *id, const sweep_row *rows, int count,
                      double copy_gbps, const char *timing)
{
    FILE *csv, *json;
    if (open_results(prefix, &csv, &json)) return 1;
    fprintf(csv, "vendor,device,arch,warp_size,its,compiler,library_version,git_rev,dtype,op,n,impl,"
                 "median_us,min_us,gbps,pct_copy,baseline_over_impl,copy_gbps,timing\n");
    fprintf(json, "[\n");
    for (int i = 0; i < count; ++i) {
        const sweep_row *r = &rows[i];
        csv_identity(csv, id);
        fprintf(csv, "%s,%s,%zu,%s,", r->dtype, r->op, r->n, r->impl);
        csv_timing(csv, r->median_us, r->min_us, r->gbps, r->pct_copy);
        csv_number(csv, r->vs_baseline, "%.4f", ",");
        csv_number(csv, copy_gbps, "%.1f", ",");
        fprintf(csv, "%s\n", timing);
        json_identity(json, id);
        fprintf(json, "\"dtype\": \"%s\", \"op\": \"%s\", \"n\": %zu, \"impl\": \"%s\", ", r->dtype,
                r->op, r->n, r->impl);
        json_timing(json, r->median_us, r->min_us, r->gbps, r->pct_copy);
        json_number(json, "baseline_over_impl", r->vs_baseline, "%.4f", ", ");
        json_number(json, "copy_gbps", copy_gbps, "%.1f", ", ");
        fprintf(json, "\"timing\": \"%s\"", timing);
        fprintf(json, "}%s\n", i == count - 1 ? "" : ",");
    }
    fprintf(json, "]\n");
    fclose(csv);
    fclose(json);
    printf("wrote %s.csv and %s.json (%d rows)\n", prefix, prefix, count);
    return 0;
}

/* ---- options ---- */

static void usage(void)
{
    printf("usage: yamr-bench sweep [--sizes E,E,...] [--dtypes f32,...] [--variants auto,atomic,...]\n"
           "                        [--ops max,argmax,minmax] [--reps N] [--warmup N] [--device D]\n"
           "                        [--timing isolated|queued] [--out PREFIX]\n"
           "Times each op, dtype, size (2^E elements; an E above 31 is taken as 2^31 + 2^20 + 3)\n"
           "and variant, next to CUB's DeviceReduce (NVIDIA builds), a device-to-device copy and\n"
           "the launch floor (an empty kernel timed the same way; impl empty_kernel in --out).\n"
           "--timing queued holds the stream while the timed calls are launched, so that no call\n"
           "waits for the host (sweep_gpu.h). Defaults: --sizes 10,12,...,28 --dtypes f32\n"
           "--variants auto --ops max,argmax,minmax --reps 50 --warmup 5 --timing isolated.\n"
           "Without a GPU: the CPU backend, sizes up to 2^24.\n");
}

static int parse_sweep(int argc, char **argv, sweep_options *o)
{
    memset(o, 0, sizeof *o);
    o->reps = 50;
    o->warmup = 5;
    for (int e = 10; e <= 28; e += 2) o->sizes[o->size_count++] = (size_t)1 << e;
    o->dtypes[o->dtype_count++] = YAMR_DTYPE_F32;
    o->variants[o->variant_count++] = YAMR_VARIANT_AUTO;
    o->ops[0] = YAMR_OP_MAX, o->ops[1] = YAMR_OP_ARGMAX, o->ops[2] = OP_MINMAX, o->op_count = 3;
    for (int i = 0; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help")) {
            usage();
            exit(0);
        }
        if (!v) {
            fprintf(stderr, "yamr-bench sweep: option '%s' needs a value\n", a);
            return 1;
        }
        char buf[512];
        snprintf(buf, sizeof buf, "%s", v);
        if (!strcmp(a, "--sizes")) {
            o->size_count = 0;
            for (char *t = strtok(buf, ","); t && o->size_count < MAX_LIST; t = strtok(NULL, ",")) {
                int e = atoi(t);
                if (e < 0 || e > 40) return 1;
                o->sizes[o->size_count++] = e > 31 ? ((size_t)1 << 31) + ((size_t)1 << 20) + 3 : (size_t)1 << e;
            }
        } else if (!strcmp(a, "--dtypes")) {
            o->dtype_count = 0;
            for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
                int found = 0;
                for (int d = 0; d < YAMR_DTYPE_COUNT; ++d)
                    if (!strcmp(t, yamr_dtype_name((yamr_dtype)d)) && o->dtype_count < YAMR_DTYPE_COUNT)
                        o->dtypes[o->dtype_count++] = (yamr_dtype)d, found = 1;
                if (!found) {
                    fprintf(stderr, "yamr-bench sweep: unknown dtype '%s'\n", t);
                    return 1;
                }
            }
        } else if (!strcmp(a, "--variants")) {
            o->variant_count = 0;
            for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
                int found = 0;
                for (int x = 0; x < YAMR_VARIANT_COUNT; ++x)
                    if (!strcmp(t, yamr_variant_name((yamr_variant)x)) && x != YAMR_VARIANT_RACY &&
                        o->variant_count < YAMR_VARIANT_COUNT)
                        o->variants[o->variant_count++] = (yamr_variant)x, found = 1;
                if (!found) {
                    fprintf(stderr, "yamr-bench sweep: unknown variant '%s' (racy is single-block only)\n", t);
                    return 1;
                }
            }
        } else if (!strcmp(a, "--ops")) {
            o->op_count = 0;
            for (char *t = strtok(buf, ","); t && o->op_count < 3; t = strtok(NULL, ",")) {
                if (!strcmp(t, "max")) o->ops[o->op_count++] = YAMR_OP_MAX;
                else if (!strcmp(t, "argmax")) o->ops[o->op_count++] = YAMR_OP_ARGMAX;
                else if (!strcmp(t, "minmax")) o->ops[o->op_count++] = OP_MINMAX;
                else {
                    fprintf(stderr, "yamr-bench sweep: unknown op '%s'\n", t);
                    return 1;
                }
            }
        } else if (!strcmp(a, "--reps")) o->reps = atoi(v);
        else if (!strcmp(a, "--warmup")) o->warmup = atoi(v);
        else if (!strcmp(a, "--device")) o->device = atoi(v);
        else if (!strcmp(a, "--out")) o->out = v;
        else if (!strcmp(a, "--timing")) {
            if (bench_parse_timing(v, &o->queued)) {
                fprintf(stderr, "yamr-bench sweep: --timing is isolated or queued, not '%s'\n", v);
                return 1;
            }
        } else {
            fprintf(stderr, "yamr-bench sweep: unknown option '%s'\n", a);
            return 1;
        }
        ++i;
    }
    if (o->reps < 1 || o->warmup < 0 || !o->size_count || !o->dtype_count || !o->variant_count || !o->op_count) {
        fprintf(stderr, "yamr-bench sweep: empty list or bad --reps/--warmup\n");
        return 1;
    }
    return 0;
}

int run_sweep(int argc, char **argv)
{
    sweep_options o;
    if (parse_sweep(argc, argv, &o)) return 2;
    yamr_context *ctx, *cpu;
    identity id;
    int on_gpu;
    if (bench_open(o.device, &ctx, &id, &on_gpu) != YAMR_SUCCESS) return 1;
    if (yamr_create(&cpu, YAMR_DEVICE_CPU) != YAMR_SUCCESS) return 1;
    if (!on_gpu) {
        printf("No GPU: timing the CPU backend (wall clock per call), sizes up to 2^24.\n");
        int kept = 0;
        for (int i = 0; i < o.size_count; ++i)
            if (o.sizes[i] <= ((size_t)1 << 24)) o.sizes[kept++] = o.sizes[i];
        o.size_count = kept;
        if (o.reps > 11) o.reps = 11;
    }
    const int cub = on_gpu && baseline_cub_available();
    size_t max_bytes = 0;
    for (int d = 0; d < o.dtype_count; ++d)
        for (int i = 0; i < o.size_count; ++i) {
            size_t b = o.sizes[i] * yamr_dtype_size(o.dtypes[d]);
            if (b > max_bytes) max_bytes = b;
        }
    const size_t l2 = on_gpu ? sweep_l2_bytes(o.device) : 0;
    size_t pool_bytes = max_bytes > 8 * l2 ? max_bytes : 8 * l2;
    pool_bytes = (pool_bytes + 255) / 256 * 256;
    const size_t copy_bytes = max_bytes < ((size_t)1 << 30) ? max_bytes : ((size_t)1 << 30);

    call_arg a;
    memset(&a, 0, sizeof a);
    a.ctx = ctx;
    a.on_gpu = on_gpu;
    char err[512] = "";
    void *host = malloc(max_bytes);
    if (!host || yamr_device_alloc(ctx, pool_bytes, (void **)&a.pool) != YAMR_SUCCESS ||
        yamr_device_alloc(ctx, copy_bytes, (void **)&a.copy_dst) != YAMR_SUCCESS ||
        yamr_device_alloc(ctx, 64, (void **)&a.out) != YAMR_SUCCESS) {
        fprintf(stderr, "yamr-bench sweep: cannot allocate %zu bytes: %s\n", pool_bytes, yamr_last_error(ctx));
        return 1;
    }

    /* The bandwidth ceiling: one large copy, bytes read plus bytes written. */
    double copy_us = 0, copy_min = 0;
    a.baseline = 2, a.dtype = YAMR_DTYPE_F32, a.n = copy_bytes / 4, a.rotations = 1;
    if (time_calls(&a, &o, &copy_us, &copy_min, err, sizeof err)) {
        fprintf(stderr, "yamr-bench sweep: copy: %s\n", err);
        return 1;
    }
    const double copy_gbps = 2.0 * (double)copy_bytes / copy_us / 1e3;
    printf("copy ceiling: %.1f GB/s (device-to-device copy of %zu MiB, read + write)%s\n", copy_gbps,
           copy_bytes >> 20, cub ? "; baseline: CUB DeviceReduce" : "; no vendor baseline in this build");
    const int max_rows = 1 + o.dtype_count * o.size_count * o.op_count * (o.variant_count + 2);
    sweep_row *rows = (sweep_row *)calloc((size_t)max_rows, sizeof *rows);
    int count = 0, failed = 0;
    if (!rows) return 1;
    if (on_gpu) { /* the least a one-launch call measures; a row of the results, not the table */
        sweep_row *r = &rows[count++];
        if (bench_launch_floor("sweep", o.warmup, o.reps, o.queued, &r->median_us, &r->min_us))
            return 1;
        snprintf(r->dtype, sizeof r->dtype, "-");
        snprintf(r->op, sizeof r->op, "launch");
        snprintf(r->impl, sizeof r->impl, "empty_kernel");
        r->vs_baseline = NAN; /* n, GB/s and % copy stay 0: it reads nothing */
    }
    printf("\n%-5s %-7s %12s %-14s %10s %10s %9s %7s %8s\n", "dtype", "op", "n", "impl", "median us",
           "min us", "GB/s", "% copy", "base/us");

    for (int d = 0; d < o.dtype_count && !failed; ++d) {
        const yamr_dtype t = o.dtypes[d];
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
            for (int si = 0; si < o.size_count; ++si)
                if (o.sizes[si] > largest) largest = o.sizes[si];
            if (baseline_cub(t, 0, a.pool, (long long)largest, NULL, &need, a.out, NULL, NULL) ||
                baseline_cub(t, 1, a.pool, (long long)largest, NULL, &amax, a.out, NULL, NULL) ||
                yamr_device_alloc(ctx, (need > amax ? need : amax) + 1024, &a.temp) != YAMR_SUCCESS) {
                fprintf(stderr, "yamr-bench sweep: cannot size or allocate CUB's temporary "
                                "storage for %s\n", yamr_dtype_name(t));
                return 1;
            }
            a.temp_bytes = (need > amax ? need : amax) + 1024;
        }
        for (int si = 0; si < o.size_count && !failed; ++si) {
            const size_t n = o.sizes[si], bytes = n * yamr_dtype_size(t);
            a.n = n;
            a.stride = (bytes + 255) / 256 * 256;
            a.rotations = bytes < 2 * l2 ? pool_bytes / a.stride : 1;
            if (a.rotations > 64) a.rotations = 64;
            if (a.rotations < 1) a.rotations = 1;
            yamr_copy_to_host(ctx, host, a.pool, bytes);
            for (int oi = 0; oi < o.op_count && !failed; ++oi) {
                const int op = o.ops[oi];
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
                    if (time_calls(&a, &o, &r->median_us, &r->min_us, err, sizeof err)) failed = 1;
                    snprintf(r->impl, sizeof r->impl, "cub");
                    base_us = r->median_us;
                    r->vs_baseline = 1.0;
                }
                for (int vi = 0; vi < o.variant_count && !failed; ++vi) {
                    char what[96];
                    snprintf(what, sizeof what, "%s %s n=%zu %s", yamr_dtype_name(t), op_name(op), n,
                             yamr_variant_name(o.variants[vi]));
                    if (yamr_set_variant(ctx, on_gpu ? o.variants[vi] : YAMR_VARIANT_AUTO) != YAMR_SUCCESS ||
                        verify(ctx, cpu, op, t, a.pool, host, n, what)) {
                        failed = 1;
                        break;
                    }
                    sweep_row *r = &rows[count++];
                    a.baseline = 0, a.op = op;
                    if (time_calls(&a, &o, &r->median_us, &r->min_us, err, sizeof err)) failed = 1;
                    yamr_plan plan; /* what the timed calls ran */
                    yamr_variant resolved = YAMR_VARIANT_AUTO;
                    if (yamr_last_plan(ctx, &plan) == YAMR_SUCCESS) resolved = plan.variant;
                    snprintf(r->impl, sizeof r->impl, "%s%s%s", yamr_variant_name(o.variants[vi]),
                             o.variants[vi] == YAMR_VARIANT_AUTO && on_gpu ? ":" : "",
                             o.variants[vi] == YAMR_VARIANT_AUTO && on_gpu ? yamr_variant_name(resolved) : "");
                    r->vs_baseline = base_us / r->median_us;
                }
                for (int k = count - (cub && op != OP_MINMAX) - o.variant_count; k < count; ++k) {
                    sweep_row *r = &rows[k];
                    snprintf(r->dtype, sizeof r->dtype, "%s", yamr_dtype_name(t));
                    snprintf(r->op, sizeof r->op, "%s", op_name(op));
                    r->n = n;
                    r->gbps = (double)bytes / r->median_us / 1e3;
                    r->pct_copy = 100.0 * r->gbps / copy_gbps;
                    print_row(r);
                }
            }
        }
        yamr_device_free(ctx, a.temp);
        a.temp = NULL;
    }
    if (failed) fprintf(stderr, "yamr-bench sweep: stopped: %s\n", err[0] ? err : "verification failed");
    int rc = failed;
    if (!failed && o.out)
        rc = write_rows(o.out, &id, rows, count, copy_gbps, bench_timing_name(on_gpu, o.queued));
    free(rows);
    free(host);
    yamr_device_free(ctx, a.pool);
    yamr_device_free(ctx, a.copy_dst);
    yamr_device_free(ctx, a.out);
    yamr_destroy(cpu);
    yamr_destroy(ctx);
    return rc;
}
