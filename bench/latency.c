/* SPDX-License-Identifier: MIT */
/*
 * yamr-bench latency: a synchronous call as an HPC loop makes it, timed by the host's clock from
 * the call to the answer in host memory. Per size, in one run: the floor (an empty kernel
 * launched and the stream synchronized), yamr's synchronous argmax, and the vendor baseline as a
 * user would call it (CUB's or rocPRIM's ArgMax, then one copy each of the value and the index
 * to the host). The answers are checked against the CPU backend before timing. Then the same
 * argmax as an asynchronous call captured in a graph on a user stream, replayed, next to the
 * baseline captured the same way (per call, GRAPH_CALLS calls per graph).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "cli.h"
#include "commands.h"
#include "sweep_gpu.h"

enum { OPT_SIZES = CLI_OPT_FIRST_OWN, OPT_REPS };

#define GRAPH_CALLS 100
#define GRAPH_REPLAYS 200

static void usage(void)
{
    printf("usage: yamr-bench latency [--sizes E,E,...] [--reps N] [--device D] [--out DIR]\n"
           "Host wall clock of one synchronous float32 argmax of 2^E elements, from the call to\n"
           "the answer in host memory (median of N calls), next to the floor (an empty kernel\n"
           "launch and a stream synchronize) and the vendor baseline with its two copies to the\n"
           "host. Then the asynchronous argmax captured %d times in a graph on a user stream,\n"
           "replayed %d times (per call, median), next to the baseline captured the same way.\n"
           "Defaults: --sizes 10,16,20 --reps 2000. Needs a GPU. --out writes\n"
           "DIR/latency.csv.\n",
           GRAPH_CALLS, GRAPH_REPLAYS);
}

typedef struct {
    yamr_context *ctx;
    const float *in;
    long long n;
    void *temp, *dvalue;
    long long *dindex;
    size_t temp_bytes;
    float value;
    int64_t index;
    int what; /* RUN_* of the timed calls */
} latency_args;

enum { RUN_FLOOR, RUN_YAMR, RUN_BASELINE };


static int run_once(latency_args *a, int what)
{
    switch (what) {
    case RUN_FLOOR: return sweep_empty_launch_sync();
    case RUN_YAMR:
        return yamr_argmax_f32(a->ctx, a->in, (size_t)a->n, &a->value, &a->index) != YAMR_SUCCESS;
    default: {
        long long index = -1;
        size_t temp_bytes = a->temp_bytes;
        if (baseline_cub(YAMR_DTYPE_F32, 1, a->in, a->n, a->temp, &temp_bytes, a->dvalue,
                         a->dindex, NULL))
            return 1;
        if (yamr_copy_to_host(a->ctx, &a->value, a->dvalue, sizeof a->value) != YAMR_SUCCESS ||
            yamr_copy_to_host(a->ctx, &index, a->dindex, sizeof index) != YAMR_SUCCESS)
            return 1;
        a->index = index;
        return 0;
    }
    }
}

/* One captured call of sweep_graph_time: yamr's asynchronous argmax on the stream. */
static int graph_yamr(void *arg, void *stream)
{
    latency_args *a = (latency_args *)arg;
    return yamr_set_stream(a->ctx, stream) != YAMR_SUCCESS ||
           yamr_argmax_f32_async(a->ctx, a->in, (size_t)a->n, (float *)a->dvalue,
                                 (int64_t *)a->dindex) != YAMR_SUCCESS;
}

/* The baseline's ArgMax, captured the same way. */
static int graph_baseline(void *arg, void *stream)
{
    latency_args *a = (latency_args *)arg;
    size_t temp_bytes = a->temp_bytes;
    return baseline_cub(YAMR_DTYPE_F32, 1, a->in, a->n, a->temp, &temp_bytes, a->dvalue,
                        a->dindex, stream) != 0;
}

/* Per call of a replayed graph of `call`, in us; -1 on failure or when the replays' last answer
 * (the index at a->dindex) is not want_index. */
static double graph_us(latency_args *a, sweep_stream_call call, int64_t want_index, char *err,
                       size_t errlen)
{
    double us = -1;
    long long index = -1;
    const yamr_status cleared = yamr_copy_to_device(a->ctx, a->dindex, &index, sizeof index);
    const int failed = cleared != YAMR_SUCCESS ||
                       sweep_graph_time(call, a, GRAPH_CALLS, GRAPH_REPLAYS, &us, err, errlen);
    (void)yamr_set_stream(a->ctx, NULL);
    if (failed || yamr_copy_to_host(a->ctx, &index, a->dindex, sizeof index) != YAMR_SUCCESS)
        return -1;
    if (index != want_index) {
        snprintf(err, errlen, "a replayed graph's answer disagrees with the CPU backend");
        return -1;
    }
    return us;
}

/* One timed call of bench_time_host. */
static int timed_call(void *arg, int rep)
{
    (void)rep;
    latency_args *a = (latency_args *)arg;
    return run_once(a, a->what);
}

/* The median of `reps` host-timed calls of `what` after `reps / 10` untimed ones, in us; -1 on
 * failure. */
static double median_us(latency_args *a, int what, int reps)
{
    sweep_times t;
    char err[64];
    a->what = what;
    return bench_time_host(timed_call, a, reps / 10 + 1, reps, &t, err, sizeof err) ? -1
                                                                                   : t.median_us;
}

int run_latency(int argc, char **argv)
{
    static const struct option options[] = {CLI_OPTION_HELP, CLI_OPTION_OUT, CLI_OPTION_DEVICE,
                                            {"sizes", required_argument, NULL, OPT_SIZES},
                                            {"reps", required_argument, NULL, OPT_REPS},
                                            CLI_OPTION_END};
    long long sizes[16] = {10, 16, 20}, n;
    int size_count = 3, reps = 2000, dev = CLI_DEVICE_ANY, reset = 1, opt;
    const char *out = NULL;
    while ((opt = cli_next("latency", argc, argv, options, &reset)) != -1) {
        switch (opt) {
        case CLI_OPT_HELP: usage(); return 0;
        case CLI_OPT_OUT: out = optarg; break;
        case CLI_OPT_DEVICE:
            if (cli_device("latency", optarg, &dev)) return CLI_USAGE;
            break;
        case OPT_SIZES:
            if (cli_int_list("latency", "--sizes", optarg, 0, 30, sizes, 16, &size_count))
                return CLI_USAGE;
            break;
        case OPT_REPS:
            if (cli_int("latency", "--reps", optarg, 10, 1000000, &n)) return CLI_USAGE;
            reps = (int)n;
            break;
        default: return CLI_USAGE;
        }
    }
    if (cli_no_operands("latency", argc, argv, optind)) return CLI_USAGE;
    if (dev == YAMR_DEVICE_CPU) return cli_refuse("latency", "needs a GPU (--device cpu given)");
    if (out && cli_out_dir("latency", out)) return CLI_USAGE;
    /* no GPU is a refusal, as --device cpu is: one line, before any output */
    yamr_context *ctx;
    char why[512];
    if (yamr_create_ex(&ctx, dev == CLI_DEVICE_ANY ? 0 : dev, why, sizeof why) != YAMR_SUCCESS)
        return dev == CLI_DEVICE_ANY
                   ? cli_refuse("latency", "needs a GPU, and none opened (%s)", cli_no_gpu_why(why))
                   : cli_refuse("latency", "--device %d: %s", dev, why);
    identity id;
    yamr_device_info info;
    yamr_get_device_info(ctx, &info);
    identity_of(&info, &id);
    printf("%s\n", yamr_report(ctx));
    const int baseline = baseline_cub_available();
    long long most = 0;
    for (int k = 0; k < size_count; ++k)
        if (sizes[k] > most) most = sizes[k];
    double graph[16][2]; /* per size: yamr, baseline; us per replayed call */
    latency_args a;
    memset(&a, 0, sizeof a);
    a.ctx = ctx;
    void *in = NULL, *dvalue = NULL, *dindex = NULL;
    float *host = (float *)malloc(((size_t)1 << most) * sizeof *host);
    yamr_context *cpu = NULL;
    char err[256] = "";
    int failed = !host || yamr_create(&cpu, YAMR_DEVICE_CPU) != YAMR_SUCCESS ||
                 yamr_device_alloc(ctx, ((size_t)1 << most) * sizeof(float), &in) != YAMR_SUCCESS ||
                 yamr_device_alloc(ctx, 16, &dvalue) != YAMR_SUCCESS ||
                 yamr_device_alloc(ctx, 16, &dindex) != YAMR_SUCCESS;
    a.dvalue = dvalue;
    a.dindex = (long long *)dindex;
    FILE *csv = NULL;
    if (!failed && out) {
        char path[4096];
        snprintf(path, sizeof path, "%s/latency.csv", out);
        csv = cli_make_out_dir("latency", out) ? NULL : fopen(path, "w");
        if (!csv) {
            snprintf(err, sizeof err, "cannot write %s", path);
            failed = 1;
        }
        else
            fprintf(csv, "vendor,device,arch,warp_size,its,compiler,library_version,git_rev,n,"
                         "floor_us,yamr_us,baseline,baseline_us,reps,graph_yamr_us,graph_baseline_us\n");
    }
    printf("synchronous float32 argmax, host wall clock from the call to the answer in host "
           "memory,\nmedian of %d calls (floor: an empty kernel launch + stream synchronize; %s: "
           "its ArgMax + two copies to the host)\n\n",
           reps, baseline ? baseline_name() : "no baseline");
    printf("%10s %10s %10s %11s %10s %14s\n", "n", "floor us", "yamr us", "yamr/floor",
           baseline ? baseline_name() : "-", baseline ? "baseline/yamr" : "");
    for (int k = 0; k < size_count && !failed; ++k) {
        a.n = 1ll << sizes[k];
        a.in = (const float *)in;
        if (sweep_fill(YAMR_DTYPE_F32, in, (size_t)a.n, 7 + (unsigned long long)k, err,
                       sizeof err) ||
            yamr_copy_to_host(ctx, host, in, (size_t)a.n * sizeof *host) != YAMR_SUCCESS) {
            failed = 1;
            break;
        }
        float want = 0;
        int64_t want_index = -1;
        a.temp = NULL;
        a.temp_bytes = 0;
        if (yamr_argmax_f32(cpu, host, (size_t)a.n, &want, &want_index) != YAMR_SUCCESS ||
            run_once(&a, RUN_YAMR) || a.index != want_index) {
            snprintf(err, sizeof err, "yamr's argmax of 2^%lld disagrees with the CPU backend",
                     sizes[k]);
            failed = 1;
            break;
        }
        double base = -1;
        if (baseline) {
            if (baseline_cub(YAMR_DTYPE_F32, 1, in, a.n, NULL, &a.temp_bytes, dvalue, a.dindex,
                             NULL) ||
                yamr_device_alloc(ctx, a.temp_bytes ? a.temp_bytes : 1, &a.temp) != YAMR_SUCCESS ||
                run_once(&a, RUN_BASELINE) || a.index != want_index) {
                snprintf(err, sizeof err, "the baseline's argmax of 2^%lld failed or disagrees",
                         sizes[k]);
                failed = 1;
                break;
            }
            base = median_us(&a, RUN_BASELINE, reps);
        }
        const double floor_us = median_us(&a, RUN_FLOOR, reps);
        const double yamr_us = median_us(&a, RUN_YAMR, reps);
        graph[k][0] = graph_us(&a, graph_yamr, want_index, err, sizeof err);
        graph[k][1] = baseline ? graph_us(&a, graph_baseline, want_index, err, sizeof err) : 0;
        yamr_device_free(ctx, a.temp);
        if (floor_us < 0 || yamr_us < 0 || graph[k][0] < 0 || graph[k][1] < 0) {
            if (!err[0]) snprintf(err, sizeof err, "a timed call failed");
            failed = 1;
            break;
        }
        char base_text[32] = "-", ratio_text[32] = "";
        if (base >= 0) {
            snprintf(base_text, sizeof base_text, "%.2f", base);
            snprintf(ratio_text, sizeof ratio_text, "%.2f", base / yamr_us);
        }
        printf("%10lld %10.2f %10.2f %11.2f %10s %14s\n", a.n, floor_us, yamr_us,
               yamr_us / floor_us, base_text, ratio_text);
        if (csv) {
            csv_identity(csv, &id);
            fprintf(csv, "%lld,%.3f,%.3f,%s,%s,%d,%.3f,", a.n, floor_us, yamr_us,
                    baseline_name(), base >= 0 ? base_text : "", reps, graph[k][0]);
            if (baseline) fprintf(csv, "%.3f", graph[k][1]);
            fprintf(csv, "\n");
        }
    }
    if (!failed) {
        printf("\nasynchronous float32 argmax captured %d times in a graph on a user stream, "
               "replayed %d times:\nus per call (median replay / %d)\n\n",
               GRAPH_CALLS, GRAPH_REPLAYS, GRAPH_CALLS);
        printf("%10s %10s %10s %14s\n", "n", "yamr us", baseline ? baseline_name() : "-",
               baseline ? "baseline/yamr" : "");
        for (int k = 0; k < size_count; ++k) {
            printf("%10lld %10.2f", 1ll << sizes[k], graph[k][0]);
            if (baseline) printf(" %10.2f %14.2f", graph[k][1], graph[k][1] / graph[k][0]);
            printf("\n");
        }
    }
    if (failed) fprintf(stderr, "yamr-bench latency: %s\n", err[0] ? err : "setup failed");
    if (csv) fclose(csv);
    yamr_device_free(ctx, in);
    yamr_device_free(ctx, dvalue);
    yamr_device_free(ctx, dindex);
    yamr_destroy(cpu);
    yamr_destroy(ctx);
    free(host);
    return failed;
}
