/* SPDX-License-Identifier: MIT */
/*
 * yamr-bench: the benchmark and the race lab, one subcommand each (the table below), every one
 * parsed the same way (cli.h). `report` is the main job: it runs the race lab and the sweep,
 * writes their tables, results and plots under one folder and prints a summary.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "cli.h"
#include "commands.h"
#include "yamr.h"
/* YAMR_BENCH_GIT_REV (bench/CMakeLists.txt) */
#include "yamr_bench_rev.h"

static int run_report(int argc, char **argv);

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand's name */
    const char *summary;
} subcommand;

static const subcommand subcommands[] = {
    {"report", run_report, "the main job: race lab and sweep, a summary, tables and plots"},
    {"sweep", run_sweep, "max, argmax, min+max over sizes and dtypes, against CUB and a read"},
    {"rows", run_rows, "the batched reductions (rows, segments, softmax statistics)"},
    {"topk", run_topk, "top-k of rows against the rows argmax, numpy or torch.topk"},
    {"latency", run_latency, "a synchronous call's host wall clock, against the floor and CUB"},
    {"mpi", run_mpi, "under mpiexec: reductions across ranks against MPI_MAXLOC (MPI builds)"},
    {"race", run_race, "the racy loop and the other single-block reductions, and the simulator"},
    {"merge", run_merge, "joins race results of several machines: one table and plots"},
};
#define SUBCOMMAND_COUNT (int)(sizeof subcommands / sizeof subcommands[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: yamr-bench COMMAND [options]    "
               "(yamr-bench COMMAND --help for its options; yamr-bench --version)\n\n");
    for (int i = 0; i < SUBCOMMAND_COUNT; ++i)
        fprintf(f, "  %-8s %s\n", subcommands[i].name, subcommands[i].summary);
    fprintf(f, "\nEvery command takes --help; --out DIR names a folder (created when missing) and\n"
               "--device D a GPU that must exist (or cpu; left out: GPU 0, else the CPU backend).\n"
               "A refused command line exits with status 2 before any work.\n");
}

/* ---- report ---- */

/* The summary's rows of the sweep at size n: yamr's row for op (AUTO), CUB's and the read. */
static void summary_speed_row(FILE *f, const sweep_results *s, const char *op, size_t n)
{
    const sweep_row *yamr = NULL, *cub = NULL, *read = NULL;
    for (int i = 0; i < s->count; ++i) {
        const sweep_row *r = &s->rows[i];
        if (r->n != n || strcmp(r->dtype, "f32")) continue;
        if (!strcmp(r->impl, "read")) read = r;
        if (strcmp(r->op, op)) continue;
        if (s->baseline[0] && !strcmp(r->impl, s->baseline)) cub = r;
        if (!strncmp(r->impl, "auto", 4)) yamr = r;
    }
    if (!yamr) return;
    char exponent[16], cub_gbps[16] = "-", vs_cub[16] = "-", read_gbps[16] = "-", pct[16] = "-";
    const double e = log2((double)n);
    if (e == floor(e))
        snprintf(exponent, sizeof exponent, "2^%.0f", e);
    else
        snprintf(exponent, sizeof exponent, "%zu", n);
    if (cub) snprintf(cub_gbps, sizeof cub_gbps, "%.1f", cub->gbps);
    if (!isnan(yamr->vs_baseline)) snprintf(vs_cub, sizeof vs_cub, "%.2f", yamr->vs_baseline);
    if (read) snprintf(read_gbps, sizeof read_gbps, "%.1f", read->gbps);
    if (read) snprintf(pct, sizeof pct, "%.0f%%", 100.0 * yamr->gbps / read->gbps);
    const int busy = yamr->busy || (cub && cub->busy) || (read && read->busy);
    fprintf(f, "  %-7s %-6s %9.1f %9s %9s %9s %9s %10.2f %10.2f %s\n", op, exponent, yamr->gbps,
            cub_gbps, vs_cub, read_gbps, pct, yamr->min_us, yamr->max_us, busy ? "busy" : "");
}

/* How many of the sweep's timed rows say the machine was busy (their median over BUSY_SPREAD
 * times their fastest call). */
static int busy_rows(const sweep_results *s, int *timed)
{
    int busy = 0;
    *timed = 0;
    for (int i = 0; i < s->count; ++i) {
        if (!s->rows[i].n) continue; /* the launch floor */
        ++*timed;
        busy += s->rows[i].busy;
    }
    return busy;
}

/* One row of the race headline: wrong % and warp 0's mean passes for each block size. */
static void summary_race_row(FILE *f, const race_results *r, int warp_size, const char *variant,
                             const int *threads, int thread_count)
{
    char line[256];
    int used = snprintf(line, sizeof line, "  %3d %-22s", warp_size, variant), found = 0;
    for (int t = 0; t < thread_count; ++t) {
        const race_row *hit = NULL;
        for (int i = 0; i < r->count && !hit; ++i) {
            const race_row *q = &r->rows[i];
            if (q->id.warp_size == warp_size && q->threads == threads[t] &&
                !strcmp(q->variant, variant) && !strcmp(q->order, "random"))
                hit = q;
        }
        if (hit)
            used += snprintf(line + used, sizeof line - (size_t)used, " %5.1f%% %4.1f",
                             100.0 * (double)hit->m.wrong / (double)hit->m.trials,
                             hit->m.first_warp.mean);
        else
            used += snprintf(line + used, sizeof line - (size_t)used, " %11s", "-");
        found |= hit != NULL;
        if (used >= (int)sizeof line) break;
    }
    if (found) fprintf(f, "%s\n", line);
}

static void print_summary(FILE *f, yamr_context *ctx, int on_gpu, const char *no_gpu_why,
                          const sweep_results *s, const race_results *r, int64_t trials)
{
    yamr_device_info d;
    yamr_get_device_info(ctx, &d);
    fprintf(f, "yamr %s (%s build), revision %s\n", YAMR_VERSION_STRING, YAMR_PLATFORM_STRING,
            YAMR_BENCH_GIT_REV);
    if (on_gpu)
        fprintf(f, "device:  %s, %s, %d-wide warps, %s, %d multiprocessors\n", d.name, d.arch,
                d.warp_size, d.independent_thread_scheduling ? "independent thread scheduling"
                                                             : "lockstep warps",
                d.multiprocessors);
    else
        fprintf(f, "device:  the CPU backend (%s)\n", cli_no_gpu_why(no_gpu_why));
    yamr_plan plan; /* what an f32 argmax of 2^20 runs here, and why */
    char why[512];
    if (yamr_plan_for(ctx, YAMR_CALL_REDUCE, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, 1, (size_t)1 << 20,
                      &plan) == YAMR_SUCCESS &&
        yamr_plan_describe(ctx, &plan, why, sizeof why) == YAMR_SUCCESS)
        fprintf(f, "plan:    f32 argmax of 2^20: %s kernel, %s\n", yamr_kernel_name(plan.kernel),
                why);

    size_t largest = 0;
    for (int i = 0; i < s->count; ++i)
        if (!strcmp(s->rows[i].dtype, "f32") && s->rows[i].n > largest) largest = s->rows[i].n;
    const size_t mid = (size_t)1 << 20;
    fprintf(f, "\nspeed: float32, GB/s of input read, median of %d calls (%s)\n",
            s->count ? s->rows[s->count - 1].reps : 0,
            on_gpu ? (strcmp(s->timing, "queued") ? "GPU events around each call"
                                                  : "GPU events, calls queued")
                   : "wall clock per call");
    const char *base = strcmp(s->baseline, "rocprim") ? "CUB" : "rocPRIM";
    char vs_base[16];
    snprintf(vs_base, sizeof vs_base, "vs %s", base);
    fprintf(f, "  %-7s %-6s %9s %9s %9s %9s %9s %10s %10s\n", "op", "n", "yamr", base, vs_base,
            "read", "% read", "min us", "max us");
    const char *ops[] = {"max", "argmax", "minmax"};
    for (int k = 0; k < 2; ++k) {
        const size_t n = k ? largest : mid;
        if (!k && (mid >= largest)) continue;
        for (int i = 0; i < 3; ++i) summary_speed_row(f, s, ops[i], n);
    }
    fprintf(f, "  %s: %s's time over yamr's (above 1: yamr is faster; '-': not in this "
               "build).\n  read: a plain read of the same input, the ceiling of any reduction; "
               "%% read: yamr's over it\n  (the same threads as yamr on the CPU). min, max: "
               "yamr's fastest and slowest call.\n", vs_base, base);
    int timed = 0;
    const int busy = busy_rows(s, &timed);
    if (busy || s->copy_busy)
        fprintf(f, "  busy: %d of %d timed cases%s had a median call over %.1fx their fastest: "
                   "the machine\n  was busy, and these are not its speeds (rerun when it is "
                   "quiet; report.txt marks them).\n",
                busy, timed, s->copy_busy ? " and the copy ceiling" : "", BUSY_SPREAD);

    int threads[16], thread_count = 0;
    for (int i = 0; i < r->count && thread_count < 16; ++i) {
        int seen = 0;
        for (int t = 0; t < thread_count; ++t) seen |= threads[t] == r->rows[i].threads;
        if (!seen) threads[thread_count++] = r->rows[i].threads;
    }
    fprintf(f, "\nrace: the seed's racy max loop, random input order, %lld blocks each%s;\n"
               "  each cell: wrong %% and mean passes of warp 0, for each block size (threads)\n",
            (long long)trials, on_gpu ? "" : " (simulated: no GPU)");
    fprintf(f, "  %3s %-22s", "W", "loop");
    for (int t = 0; t < thread_count; ++t) fprintf(f, " %11d", threads[t]);
    fprintf(f, "\n");
    const char *racy = yamr_variant_name(YAMR_VARIANT_RACY);
    const char *racy_volatile = yamr_variant_name(YAMR_VARIANT_RACY_VOLATILE);
    const int widths[] = {32, 64};
    for (int w = 0; w < 2; ++w) {
        const int width = on_gpu ? d.warp_size : widths[w];
        if (on_gpu && w) break;
        summary_race_row(f, r, width, racy, threads, thread_count);
        summary_race_row(f, r, width, racy_volatile, threads, thread_count);
        summary_race_row(f, r, width, "sim_lockstep_random", threads, thread_count);
        summary_race_row(f, r, width, "sim_its", threads, thread_count);
    }
    fprintf(f, "  wrong %%: blocks whose result was not the largest value; passes: times warp 0 "
               "ran the loop.\n  racy, racy_volatile: the GPU; sim_*: the simulator "
               "(docs/race-behaviour.md), named as in\n  race.csv and the plots: "
               "sim_lockstep_random, lockstep warps where a random lane's store wins;\n  sim_its, "
               "independent lanes.\n");
}

static void report_usage(FILE *f)
{
    fprintf(f, "usage: yamr-bench report [--trials N] [--sizes E,E,...] [--device D|cpu]\n"
               "                         [--out DIR]\n"
               "The main job: the device report, the race lab (yamr-bench race) and the sweep\n"
               "(yamr-bench sweep) on whatever this machine has (the CPU backend and the\n"
               "simulator when there is no GPU). Prints a summary; every table goes to\n"
               "DIR/report.txt, the results (CSV, JSON, BabelStream CSV) and plots under DIR.\n"
               "  --trials N   blocks per race configuration, 1..100000000 (default 10000)\n"
               "  --sizes E,.. the sweep's sizes, 2^E elements (default: the sweep's)\n"
               "  --device D   GPU ordinal D, or cpu (default: GPU 0 when there is one)\n"
               "  --out DIR    the folder for everything (default results; created)\n");
}

enum { OPT_TRIALS = CLI_OPT_FIRST_OWN, OPT_SIZES };

static int run_report(int argc, char **argv)
{
    static const struct option options[] = {CLI_OPTION_HELP, CLI_OPTION_OUT, CLI_OPTION_DEVICE,
                                            {"trials", required_argument, NULL, OPT_TRIALS},
                                            {"sizes", required_argument, NULL, OPT_SIZES},
                                            CLI_OPTION_END};
    const char *dir = "results", *device_text = NULL, *sizes = NULL;
    char trials[32] = "10000";
    long long n = 10000;
    int device = CLI_DEVICE_ANY, reset = 1, c;
    while ((c = cli_next("report", argc, argv, options, &reset)) != -1) {
        switch (c) {
        case CLI_OPT_HELP: report_usage(stdout); return 0;
        case CLI_OPT_OUT: dir = optarg; break;
        case CLI_OPT_DEVICE:
            if (cli_device("report", optarg, &device)) return CLI_USAGE;
            device_text = optarg;
            break;
        case OPT_TRIALS:
            if (cli_int("report", "--trials", optarg, 1, 100000000, &n)) return CLI_USAGE;
            snprintf(trials, sizeof trials, "%lld", n);
            break;
        case OPT_SIZES: { /* checked here as the sweep checks it, before any work */
            long long exps[32];
            int count;
            if (cli_int_list("report", "--sizes", optarg, 0, 32, exps, 32, &count))
                return CLI_USAGE;
            sizes = optarg;
            break;
        }
        default: return CLI_USAGE;
        }
    }
    if (cli_no_operands("report", argc, argv, optind) || cli_out_dir("report", dir))
        return CLI_USAGE;

    /* the device, once: its report goes to the log, its line to the summary */
    char why[512] = "";
    yamr_context *ctx = NULL;
    const yamr_status opened = yamr_create_ex(&ctx, device == CLI_DEVICE_ANY ? 0 : device, why,
                                              sizeof why);
    const int on_gpu = opened == YAMR_SUCCESS && device != YAMR_DEVICE_CPU;
    if (device == YAMR_DEVICE_CPU) snprintf(why, sizeof why, "chosen with --device cpu");
    if (opened != YAMR_SUCCESS) {
        if (device != CLI_DEVICE_ANY)
            return cli_refuse("report", "--device %s: %s", device_text, why);
        char cpu_why[512];
        if (yamr_create_ex(&ctx, YAMR_DEVICE_CPU, cpu_why, sizeof cpu_why) != YAMR_SUCCESS) {
            fprintf(stderr, "yamr-bench report: the CPU backend: %s\n", cpu_why);
            return 1;
        }
    }
    char path[1100];
    snprintf(path, sizeof path, "%s/report.txt", dir);
    FILE *log = cli_make_out_dir("report", dir) ? NULL : fopen(path, "w");
    if (!log) {
        yamr_destroy(ctx);
        return cli_refuse("report", "cannot write %s", path);
    }
    fprintf(log, "%s\n", yamr_report(ctx));
    if (!on_gpu) fprintf(log, "The CPU backend and the simulator (%s).\n\n", cli_no_gpu_why(why));

    /* the same device for every part: the one just opened */
    const char *dev = on_gpu ? (device_text ? device_text : "0") : "cpu";
    const bench_output out = {log, 0};
    race_results race = {NULL, 0, 0};
    sweep_results sweep;
    memset(&sweep, 0, sizeof sweep);
    char *race_args[] = {"race", "--trials", trials, "--out", (char *)dir, "--device", (char *)dev};
    int rc = race_command(7, race_args, &out, &race);
    fprintf(log, "\n");
    snprintf(path, sizeof path, "%s/race.csv", dir);
    char *files[] = {path};
    if (!rc) rc = race_merge_files(dir, files, 1, log);
    fprintf(log, "\n");
    char *sweep_args[] = {"sweep", "--out", (char *)dir, "--device", (char *)dev, "--sizes",
                          (char *)sizes};
    if (!rc) rc = sweep_command(sizes ? 7 : 5, sweep_args, &out, &sweep);
    fclose(log);
    if (!rc) {
        print_summary(stdout, ctx, on_gpu, why, &sweep, &race, n);
        printf("\ndetails in %s/: report.txt (every table, the device report, the columns "
               "explained),\n  race-matrix.md and race-{wrong,passes%s}.png (plots), race.csv, "
               "sweep.csv,\n  sweep-babelstream.csv (BabelStream's CSV layout), and the same as "
               "JSON\n",
               dir, on_gpu ? ",cycles" : "");
    } else {
        fprintf(stderr, "yamr-bench report: stopped; what was done is in %s/report.txt\n", dir);
    }
    free(race.rows);
    free(sweep.rows);
    yamr_destroy(ctx);
    return rc;
}

int main(int argc, char **argv)
{
    /* a row at a time, also into a file or a pipe: a run killed midway leaves what it printed */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) { /* the library's, and the header's it was built with */
        printf("yamr-bench %s (%s build), libyamr %s\n", YAMR_VERSION_STRING, YAMR_PLATFORM_STRING,
               yamr_version(NULL, NULL, NULL));
        return 0;
    }
    for (int i = 0; i < SUBCOMMAND_COUNT; ++i)
        if (!strcmp(argv[1], subcommands[i].name)) return subcommands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "yamr-bench: unknown command '%s' (commands:", argv[1]);
    for (int i = 0; i < SUBCOMMAND_COUNT; ++i) fprintf(stderr, " %s", subcommands[i].name);
    fprintf(stderr, "; yamr-bench --help)\n");
    return CLI_USAGE;
}
