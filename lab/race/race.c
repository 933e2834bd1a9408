/* SPDX-License-Identifier: MIT */
/*
 * yamr-bench race and merge: the race lab.
 *
 * race runs each variant of the YAMR family and the conventional single-block reductions
 * (float32 max, one block per trial) on the GPU, next to the lockstep simulator's predictions
 * (race_sim.h) for the device's warp width; without a GPU, the simulator alone, for 32- and
 * 64-wide warps. merge joins the race results of several machines into one table and plots.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "commands.h"
#include "race_lab.h"
#include "race_sim.h"
#include "yamr.h"

/* ---- One result row, written as CSV and JSON. ---- */

static const char csv_header[] =
    "vendor,device,arch,warp_size,its,compiler,library_version,git_rev,source,variant,threads,"
    "order,trials,wrong,wrong_rate,writes_mean,first_warp_mean,first_warp_p50,first_warp_p99,"
    "first_warp_max,all_warps_mean,all_warps_p50,all_warps_p99,all_warps_max,cycles_median,"
    "launch_us";

/* The column count of csv_header. */
#define RACE_CSV_FIELDS 26

static void write_csv_row(FILE *f, const race_row *r)
{
    const race_measure *m = &r->m;
    csv_identity(f, &r->id);
    fprintf(f, "%s,%s,%d,%s,%lld,%lld,%.6g,%.4f,%.4f,%d,%d,%d,%.4f,%d,%d,%d,", r->source,
            r->variant, r->threads, r->order, (long long)m->trials, (long long)m->wrong,
            (double)m->wrong / (double)m->trials, m->writes_mean, m->first_warp.mean,
            m->first_warp.p50, m->first_warp.p99, m->first_warp.max, m->all_warps.mean,
            m->all_warps.p50, m->all_warps.p99, m->all_warps.max);
    csv_number(f, m->cycles_median, "%.1f", ",");
    csv_number(f, m->launch_us, "%.3f", "\n");
}

static void write_json_row(FILE *f, const race_row *r, int last)
{
    const race_measure *m = &r->m;
    json_identity(f, &r->id);
    fprintf(f, "\"source\": \"%s\", \"variant\": \"%s\", \"threads\": %d, \"order\": \"%s\", "
               "\"trials\": %lld, \"wrong\": %lld, ",
            r->source, r->variant, r->threads, r->order, (long long)m->trials, (long long)m->wrong);
    json_number(f, "writes_mean", m->writes_mean, "%.6g", ", ");
    fprintf(f, "\"first_warp\": {\"mean\": %.4f, \"p50\": %d, \"p99\": %d, \"max\": %d}, ",
            m->first_warp.mean, m->first_warp.p50, m->first_warp.p99, m->first_warp.max);
    fprintf(f, "\"all_warps\": {\"mean\": %.4f, \"p50\": %d, \"p99\": %d, \"max\": %d}, ",
            m->all_warps.mean, m->all_warps.p50, m->all_warps.p99, m->all_warps.max);
    json_number(f, "cycles_median", m->cycles_median, "%.6g", ", ");
    json_number(f, "launch_us", m->launch_us, "%.6g", "");
    fprintf(f, "}%s\n", last ? "" : ",");
}

static int write_results(const char *dir, const race_row *rows, int count, FILE *out)
{
    char prefix[1024];
    snprintf(prefix, sizeof prefix, "%s/race", dir);
    FILE *csv, *json;
    if (open_results(prefix, &csv, &json)) return 1;
    fprintf(csv, "%s\n", csv_header);
    fprintf(json, "[\n");
    for (int i = 0; i < count; ++i) {
        write_csv_row(csv, &rows[i]);
        write_json_row(json, &rows[i], i == count - 1);
    }
    fprintf(json, "]\n");
    fclose(csv);
    fclose(json);
    fprintf(out, "wrote %s.csv and %s.json (%d rows)\n", prefix, prefix, count);
    return 0;
}

static void print_header(FILE *out)
{
    fprintf(out,
            "wrong %%: trials whose block result was not the largest value. passes: how many "
            "times a warp\nran the racy loop's body (>= 1; 0 for variants without the loop): "
            "warp 0's mean/p50/p99/max,\nand every warp's mean/p99/max. writes: stores to the "
            "shared value per block. cycles: clock64\ncycles of the reduction (median). launch "
            "us: launch-to-launch time of one single-block\nlaunch. '-': not measured (the "
            "simulator has no clock).\n\n");
    fprintf(out, "%-9s %3s %-22s %7s %-10s %8s %9s | %-27s | %-22s | %8s %10s %9s\n", "source",
            "W", "variant", "threads", "order", "trials", "wrong %",
            "passes, warp 0 mean/p50/p99/max", "all warps mean/p99/max", "writes", "cycles",
            "launch us");
}

static void print_row(FILE *out, const race_row *r)
{
    const race_measure *m = &r->m;
    char first[64], all[64], cycles[32] = "-", launch[32] = "-";
    snprintf(first, sizeof first, "%.2f/%d/%d/%d", m->first_warp.mean, m->first_warp.p50,
             m->first_warp.p99, m->first_warp.max);
    snprintf(all, sizeof all, "%.2f/%d/%d", m->all_warps.mean, m->all_warps.p99, m->all_warps.max);
    if (!isnan(m->cycles_median)) snprintf(cycles, sizeof cycles, "%.0f", m->cycles_median);
    if (!isnan(m->launch_us)) snprintf(launch, sizeof launch, "%.2f", m->launch_us);
    fprintf(out, "%-9s %3d %-22s %7d %-10s %8lld %9.4f | %-31s | %-22s | %8.1f %10s %9s\n",
            r->source, r->id.warp_size, r->variant, r->threads, r->order, (long long)m->trials,
            100.0 * (double)m->wrong / (double)m->trials, first, all, m->writes_mean, cycles,
            launch);
}

/* ---- race ---- */

#define RACE_MAX_THREADS 16

typedef struct {
    int device;
    int64_t trials;
    uint64_t seed;
    int threads[RACE_MAX_THREADS];
    int thread_count;
    yamr_variant variants[YAMR_VARIANT_COUNT];
    int variant_count;
    yamr_race_sim_order orders[YAMR_RACE_SIM_ORDER_COUNT];
    int order_count;
    int simulate; /* also the simulator's rows for the device's warp width */
    int variants_given; /* --variants: GPU rows asked for */
    const char *out;
} race_options;

static void simulate_rows(const race_options *o, const identity *gpu, int warp_size, int threads,
                          yamr_race_sim_order order, race_row *rows, int *count)
{
    for (int mode = 0; mode < YAMR_RACE_SIM_MODE_COUNT; ++mode)
        for (int pol = 0; pol < YAMR_RACE_SIM_POLICY_COUNT; ++pol) {
            if (mode == YAMR_RACE_SIM_ITS && pol > 0) continue; /* stores never coincide */
            const yamr_race_sim_config cfg = {warp_size, threads, (yamr_race_sim_mode)mode,
                                              (yamr_race_sim_write_policy)pol, -FLT_MAX};
            yamr_race_sim_stats st;
            uint64_t rng = o->seed;
            if (yamr_race_sim_trials(&cfg, order, o->trials, &rng, &st) != YAMR_RACE_SIM_OK)
                continue;
            race_row *r = &rows[(*count)++];
            memset(r, 0, sizeof *r);
            r->id = *gpu;
            snprintf(r->id.device, sizeof r->id.device, "simulator");
            r->id.warp_size = warp_size;
            r->id.its = mode == YAMR_RACE_SIM_ITS;
            snprintf(r->source, sizeof r->source, "simulator");
            snprintf(r->variant, sizeof r->variant, "sim_%s%s%s", yamr_race_sim_mode_name(cfg.mode),
                     mode == YAMR_RACE_SIM_ITS ? "" : "_",
                     mode == YAMR_RACE_SIM_ITS ? "" : yamr_race_sim_policy_name(cfg.policy));
            r->threads = threads;
            snprintf(r->order, sizeof r->order, "%s", yamr_race_sim_order_name(order));
            r->m.trials = st.trials;
            r->m.wrong = st.wrong;
            r->m.writes_mean = st.writes_mean;
            r->m.first_warp = st.first_warp;
            r->m.all_warps = st.any_warp;
            r->m.cycles_median = NAN;
            r->m.launch_us = NAN;
        }
}

static int race_execute(const race_options *o, const bench_output *out, race_results *kept)
{
    /* --variants and --no-sim ask for GPU rows: without a GPU that is a refusal, not a run of
     * the simulator's rows alone */
    const char *needs_gpu = o->variants_given ? "--variants" : !o->simulate ? "--no-sim" : NULL;
    if (needs_gpu && o->device == YAMR_DEVICE_CPU)
        return cli_refuse("race", "%s needs a GPU (--device cpu given); without one, race runs "
                                  "the simulator alone", needs_gpu);
    yamr_context *ctx = NULL;
    char why[512];
    if (needs_gpu) {
        if (yamr_create_ex(&ctx, o->device == CLI_DEVICE_ANY ? 0 : o->device, why, sizeof why) !=
            YAMR_SUCCESS)
            return o->device == CLI_DEVICE_ANY
                       ? cli_refuse("race", "%s needs a GPU, and none opened (%s); without one, race "
                                            "runs the simulator alone", needs_gpu, cli_no_gpu_why(why))
                       : cli_refuse("race", "--device %d: %s", o->device, why);
        yamr_destroy(ctx);
    }
    identity id;
    int on_gpu;
    int rc = bench_open("race", o->device, out->out, out->device_report, &ctx, &id, &on_gpu);
    if (rc) return rc;
    yamr_device_info info;
    yamr_get_device_info(ctx, &info);
    if (!on_gpu)
        fprintf(out->out, "No GPU: the race lab shows the simulator's predictions for 32- and "
                          "64-wide warps.\n\n");

    const int widths_cpu[] = {32, 64};
    const int width_count = on_gpu ? 1 : 2;
    const int max_rows = o->thread_count * o->order_count * (o->variant_count + 8);
    race_row *rows = (race_row *)calloc((size_t)max_rows, sizeof *rows);
    if (!rows) {
        yamr_destroy(ctx);
        return 1;
    }
    int count = 0;
    cli_progress progress;
    cli_progress_start(&progress, "race", "block sizes x orders", o->thread_count * o->order_count);
    print_header(out->out);
    for (int t = 0; t < o->thread_count; ++t)
        for (int k = 0; k < o->order_count; ++k) {
            const int first_row = count;
            const int threads = o->threads[t];
            for (int v = 0; on_gpu && threads <= info.max_block_threads && v < o->variant_count;
                 ++v) {
                race_row *r = &rows[count];
                memset(r, 0, sizeof *r);
                char err[512];
                yamr_status s = race_gpu_measure(o->device == CLI_DEVICE_ANY ? 0 : o->device,
                                                 o->variants[v], threads, o->orders[k], o->trials,
                                                 o->seed, &r->m, err, sizeof err);
                if (s != YAMR_SUCCESS) {
                    cli_progress_clear(&progress);
                    fprintf(stderr, "yamr-bench race: %s: %s\n", yamr_status_string(s), err);
                    free(rows);
                    yamr_destroy(ctx);
                    return 1;
                }
                r->id = id;
                snprintf(r->source, sizeof r->source, "gpu");
                snprintf(r->variant, sizeof r->variant, "%s", yamr_variant_name(o->variants[v]));
                r->threads = threads;
                snprintf(r->order, sizeof r->order, "%s", yamr_race_sim_order_name(o->orders[k]));
                ++count;
            }
            if (o->simulate || !on_gpu)
                for (int w = 0; w < width_count; ++w)
                    simulate_rows(o, &id, on_gpu ? info.warp_size : widths_cpu[w], threads,
                                  o->orders[k], rows, &count);
            cli_progress_clear(&progress);
            for (int i = first_row; i < count; ++i) print_row(out->out, &rows[i]);
            fflush(out->out);
            cli_progress_step(&progress);
        }
    rc = o->out ? write_results(o->out, rows, count, out->out) : 0;
    if (kept) {
        kept->rows = rows;
        kept->count = count;
        kept->on_gpu = on_gpu;
    } else {
        free(rows);
    }
    yamr_destroy(ctx);
    return rc;
}

static void race_usage(FILE *f)
{
    fprintf(f,
            "usage: yamr-bench race [--trials N] [--threads T,T,...] [--variants V,V,...]\n"
            "                       [--orders O,O,...] [--seed S] [--no-sim] [--device D|cpu]\n"
            "                       [--out DIR]\n"
            "Runs each variant of the YAMR family and the conventional single-block reductions\n"
            "(float32 max) on one block per trial, for each block size and input order: wrong\n"
            "results, passes per warp of the racy loop (warp 0 and all warps), stores to the\n"
            "shared value, clock64 cycles of the reduction (median) and launch-to-launch time.\n"
            "Next to them, the lockstep simulator's rows for the device's warp width (--no-sim:\n"
            "not). Without a GPU, the simulator alone, for 32- and 64-wide warps.\n"
            "  --trials N     blocks per configuration, 1..100000000 (default 10000)\n"
            "  --threads T,.. threads per block, each 1..1024 (default 32,64,137,256,1024)\n"
            "  --variants V,. of:");
    for (int v = YAMR_VARIANT_RACY; v < YAMR_VARIANT_COUNT; ++v)
        fprintf(f, " %s", yamr_variant_name((yamr_variant)v));
    fprintf(f, " (default: all)\n  --orders O,..  of:");
    for (int k = 0; k < YAMR_RACE_SIM_ORDER_COUNT; ++k)
        fprintf(f, " %s", yamr_race_sim_order_name((yamr_race_sim_order)k));
    fprintf(f, "\n                 (default: all but spike)\n"
               "  --seed S       0..2^63-1 (default 1)\n"
               "  --device D     GPU ordinal D, or cpu (default: GPU 0 when there is one)\n"
               "  --out DIR      writes DIR/race.csv and DIR/race.json (DIR is created)\n");
}

enum {
    OPT_TRIALS = CLI_OPT_FIRST_OWN,
    OPT_THREADS,
    OPT_VARIANTS,
    OPT_ORDERS,
    OPT_SEED,
    OPT_NO_SIM
};

static const struct option race_long_options[] = {
    CLI_OPTION_HELP, CLI_OPTION_OUT, CLI_OPTION_DEVICE,
    {"trials", required_argument, NULL, OPT_TRIALS},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"variants", required_argument, NULL, OPT_VARIANTS},
    {"orders", required_argument, NULL, OPT_ORDERS},
    {"seed", required_argument, NULL, OPT_SEED},
    {"no-sim", no_argument, NULL, OPT_NO_SIM},
    CLI_OPTION_END};

/* 0 to run, -1 after --help (exit 0), or CLI_USAGE. */
static int race_parse(int argc, char **argv, race_options *o)
{
    static const int default_threads[] = {32, 64, 137, 256, 1024};
    memset(o, 0, sizeof *o);
    o->device = CLI_DEVICE_ANY;
    o->trials = 10000;
    o->seed = 1;
    o->thread_count = 5;
    memcpy(o->threads, default_threads, sizeof default_threads);
    for (int v = YAMR_VARIANT_RACY; v < YAMR_VARIANT_COUNT; ++v)
        o->variants[o->variant_count++] = (yamr_variant)v;
    for (int k = 0; k < YAMR_RACE_SIM_ORDER_COUNT; ++k)
        if (k != YAMR_RACE_SIM_ORDER_SPIKE) o->orders[o->order_count++] = (yamr_race_sim_order)k;
    o->simulate = 1;
    const char *variant_names[YAMR_VARIANT_COUNT] = {NULL}; /* AUTO is not a variant to race */
    for (int v = YAMR_VARIANT_RACY; v < YAMR_VARIANT_COUNT; ++v)
        variant_names[v] = yamr_variant_name((yamr_variant)v);
    const char *order_names[YAMR_RACE_SIM_ORDER_COUNT];
    for (int k = 0; k < YAMR_RACE_SIM_ORDER_COUNT; ++k)
        order_names[k] = yamr_race_sim_order_name((yamr_race_sim_order)k);
    long long n, list[RACE_MAX_THREADS];
    int idx[YAMR_RACE_SIM_ORDER_COUNT + YAMR_VARIANT_COUNT], reset = 1, c;
    while ((c = cli_next("race", argc, argv, race_long_options, &reset)) != -1) {
        switch (c) {
        case CLI_OPT_HELP: race_usage(stdout); return -1;
        case CLI_OPT_OUT: o->out = optarg; break;
        case CLI_OPT_DEVICE:
            if (cli_device("race", optarg, &o->device)) return CLI_USAGE;
            break;
        case OPT_TRIALS:
            if (cli_int("race", "--trials", optarg, 1, 100000000, &n)) return CLI_USAGE;
            o->trials = n;
            break;
        case OPT_SEED:
            if (cli_int("race", "--seed", optarg, 0, INT64_MAX, &n)) return CLI_USAGE;
            o->seed = (uint64_t)n;
            break;
        case OPT_THREADS:
            if (cli_int_list("race", "--threads", optarg, 1, 1024, list, RACE_MAX_THREADS,
                             &o->thread_count))
                return CLI_USAGE;
            for (int t = 0; t < o->thread_count; ++t) o->threads[t] = (int)list[t];
            break;
        case OPT_VARIANTS:
            if (cli_name_list("race", "--variants", optarg, variant_names, YAMR_VARIANT_COUNT, idx,
                              YAMR_VARIANT_COUNT, &o->variant_count))
                return CLI_USAGE;
            for (int v = 0; v < o->variant_count; ++v) o->variants[v] = (yamr_variant)idx[v];
            o->variants_given = 1;
            break;
        case OPT_ORDERS:
            if (cli_name_list("race", "--orders", optarg, order_names, YAMR_RACE_SIM_ORDER_COUNT,
                              idx, YAMR_RACE_SIM_ORDER_COUNT, &o->order_count))
                return CLI_USAGE;
            for (int k = 0; k < o->order_count; ++k) o->orders[k] = (yamr_race_sim_order)idx[k];
            break;
        case OPT_NO_SIM: o->simulate = 0; break;
        default: return CLI_USAGE;
        }
    }
    if (cli_no_operands("race", argc, argv, optind)) return CLI_USAGE;
    if (o->out && cli_out_dir("race", o->out)) return CLI_USAGE;
    return 0;
}

int race_command(int argc, char **argv, const bench_output *out, race_results *kept)
{
    race_options o;
    const int parsed = race_parse(argc, argv, &o);
    if (parsed) return parsed < 0 ? 0 : parsed;
    return race_execute(&o, out, kept);
}

int run_race(int argc, char **argv)
{
    const bench_output out = {stdout, 1};
    return race_command(argc, argv, &out, NULL);
}

/* ---- merge ---- */

typedef struct {
    char line[1024]; /* the CSV row as read */
    char device[256], arch[64], source[16], variant[40], order[16];
    int warp_size, threads;
    double wrong_rate, first_mean, all_mean, cycles, launch_us;
} merged_row;

/* Splits a CSV line (no quoted fields) in place; returns the field count. */
static int split_csv(char *line, char **fields, int max)
{
    int n = 0;
    for (char *p = line; n < max;) {
        fields[n++] = p;
        char *comma = strchr(p, ',');
        if (!comma) break;
        *comma = '\0';
        p = comma + 1;
    }
    return n;
}

/* A CSV number, or NaN for an unmeasured one (an empty field, or "nan" in older files). */
static double csv_value(const char *field)
{
    return !*field || !strcmp(field, "nan") ? NAN : atof(field);
}

/* Appends the rows of race result file `path`: 0, CLI_USAGE (said why) for a file that cannot be
 * read or is not one, 1 when out of memory. */
static int read_rows(const char *path, merged_row **rows, int *count, int *cap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "yamr-bench merge: cannot read %s: %s\n", path, strerror(errno));
        return CLI_USAGE;
    }
    char line[1024];
    int ok = fgets(line, sizeof line, f) != NULL;
    if (ok) line[strcspn(line, "\r\n")] = '\0';
    if (!ok || strcmp(line, csv_header) != 0) {
        fprintf(stderr, "yamr-bench merge: %s is not a race result file (its first line is not "
                        "race.csv's header; yamr-bench race --out DIR writes DIR/race.csv)\n",
                path);
        fclose(f);
        return CLI_USAGE;
    }
    for (int line_no = 2; fgets(line, sizeof line, f); ++line_no) {
        if (*count == *cap) {
            *cap = *cap ? 2 * *cap : 256;
            merged_row *grown = (merged_row *)realloc(*rows, (size_t)*cap * sizeof **rows);
            if (!grown) {
                fclose(f);
                return 1;
            }
            *rows = grown;
        }
        merged_row *r = &(*rows)[*count];
        snprintf(r->line, sizeof r->line, "%s", line);
        char *fld[RACE_CSV_FIELDS + 1];
        line[strcspn(line, "\r\n")] = '\0';
        const int fields = split_csv(line, fld, RACE_CSV_FIELDS + 1);
        if (fields != RACE_CSV_FIELDS) {
            fprintf(stderr, "yamr-bench merge: %s line %d has %d fields, a race row %d\n", path,
                    line_no, fields, RACE_CSV_FIELDS);
            fclose(f);
            return CLI_USAGE;
        }
        snprintf(r->device, sizeof r->device, "%s", fld[1]);
        snprintf(r->arch, sizeof r->arch, "%s", fld[2]);
        r->warp_size = atoi(fld[3]);
        snprintf(r->source, sizeof r->source, "%s", fld[8]);
        snprintf(r->variant, sizeof r->variant, "%s", fld[9]);
        r->threads = atoi(fld[10]);
        snprintf(r->order, sizeof r->order, "%s", fld[11]);
        r->wrong_rate = atof(fld[14]);
        r->first_mean = atof(fld[16]);
        r->all_mean = atof(fld[20]);
        r->cycles = csv_value(fld[24]);
        r->launch_us = csv_value(fld[25]);
        ++*count;
    }
    fclose(f);
    return 0;
}

static int racy_loop(const merged_row *r)
{
    return strncmp(r->variant, "racy", 4) == 0 || strncmp(r->variant, "sim_", 4) == 0;
}

/* A series' legend: the simulator's rows by warp width and variant alone (the same prediction
 * from several files is one series; the first file's points are drawn), a GPU's by device
 * (without the vendor's word), warp width and variant. */
static void series_title(const merged_row *r, char *title, size_t size)
{
    if (!strcmp(r->source, "simulator")) {
        snprintf(title, size, "W%d %s", r->warp_size, r->variant);
        return;
    }
    const char *device = r->device;
    if (!strncmp(device, "NVIDIA ", 7)) device += 7;
    if (!strncmp(device, "AMD ", 4)) device += 4;
    snprintf(title, size, "%s W%d %s", device, r->warp_size, r->variant);
}

/* Colours for up to 16 series, each distinct (gnuplot's default cycle repeats after 8). */
static const char *const series_colours[] = {
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
    "#000000", "#bcbd22", "#7f7f7f", "#aec7e8", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94"};
#define SERIES_MAX 16

/* One plot, one question: y(r) against threads, uniformly random input order, one series per
 * title (series_title) among the rows that `keep` (a series is drawn whole once one of its rows
 * is kept). Every series has its own colour; W64 lines are dashed and W32 solid, GPU points
 * filled and the simulator's open, so that lines that coincide (the simulator's ITS rows for
 * both warp widths) stay visible. The legend sits below the plot. */
static void write_plot(const char *dir, const char *name, const char *question,
                       const char *note, const char *ylabel, const merged_row *rows, int count,
                       int (*keep)(const merged_row *), double (*y)(const merged_row *), int logy)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.dat", dir, name);
    FILE *dat = fopen(path, "w");
    if (!dat) return;
    char titles[SERIES_MAX][160];
    int widths[SERIES_MAX], simulated[SERIES_MAX], series = 0, dropped = 0;
    for (int i = 0; i < count; ++i) {
        const merged_row *r = &rows[i];
        if (strcmp(r->order, "random") != 0 || !keep(r)) continue;
        char title[160];
        series_title(r, title, sizeof title);
        int seen = 0;
        for (int s = 0; s < series; ++s) seen |= strcmp(titles[s], title) == 0;
        if (seen) continue;
        if (series == SERIES_MAX) {
            ++dropped;
            continue;
        }
        widths[series] = r->warp_size;
        simulated[series] = !strcmp(r->source, "simulator");
        snprintf(titles[series++], sizeof titles[0], "%s", title);
        fprintf(dat, "\"%s\" \"%s\"\n", title, ylabel);
        int done[RACE_MAX_THREADS * 4], done_count = 0; /* threads drawn: the first file's */
        for (int j = 0; j < count; ++j) {
            const merged_row *q = &rows[j];
            char t2[160];
            series_title(q, t2, sizeof t2);
            if (strcmp(q->order, "random") != 0 || strcmp(t2, title) != 0 || isnan(y(q))) continue;
            int again = 0;
            for (int k = 0; k < done_count; ++k) again |= done[k] == q->threads;
            if (again) continue;
            if (done_count < (int)(sizeof done / sizeof done[0])) done[done_count++] = q->threads;
            fprintf(dat, "%d %g\n", q->threads, y(q));
        }
        fprintf(dat, "\n\n");
    }
    fclose(dat);
    if (dropped)
        fprintf(stderr, "yamr-bench merge: %s: %d series past the first %d not drawn\n", name,
                dropped, SERIES_MAX);
    if (!series) { /* nothing to plot (no GPU rows for cycles): no files */
        remove(path);
        return;
    }
    snprintf(path, sizeof path, "%s/%s.gp", dir, name);
    FILE *gp = fopen(path, "w");
    if (!gp) return;
    for (int fmt = 0; fmt < 2; ++fmt) {
        /* noenhanced: legends hold names such as sm_90 and racy_volatile, which gnuplot's
         * enhanced text would set with subscripts */
        fprintf(gp,
                "set terminal %s size 1100,700\nset termoption noenhanced\n"
                "set output '%s/%s.%s'\n",
                fmt ? "pngcairo" : "svg", dir, name, fmt ? "png" : "svg");
        fprintf(gp, "set title \"%s\\nuniformly random input order%s%s\" noenhanced\n"
                    "set logscale x 2\nset xlabel 'threads per block'\nset ylabel '%s'\n%s"
                    "set key outside below center horizontal maxcols 3 font ',9' height 1.5 noenhanced\n"
                    "set grid\nset offsets graph 0.02, graph 0.02, graph 0.05, 0\n",
                question, *note ? "; " : "", note, ylabel,
                logy ? "set logscale y\n" : "set yrange [0:*]\n");
        fprintf(gp, "plot \\\n");
        for (int k = 0; k < series; ++k)
            fprintf(gp,
                    "  '%s/%s.dat' index %d using 1:2 with linespoints lw 2 lc rgb '%s' dt %d "
                    "pt %d ps 1.2 title columnheader(1)%s\n",
                    dir, name, k, series_colours[k], widths[k] == 64 ? 2 : 1,
                    simulated[k] ? (widths[k] == 64 ? 8 : 6) : 7, k + 1 < series ? ", \\" : "");
    }
    fclose(gp);
    char cmd[2200];
    snprintf(cmd, sizeof cmd, "gnuplot '%s' 2>/dev/null", path);
    if (system(cmd) != 0)
        fprintf(stderr, "yamr-bench merge: gnuplot failed for %s (is gnuplot installed?)\n",
                name);
}

/* The simulator's lockstep policies lowest and highest stay in race-matrix.md: their passes and
 * wrong rates lie within a few percent of random's, whose line would hide them. */
static int plotted_sim(const merged_row *r)
{
    return strcmp(r->variant, "sim_lockstep_lowest") && strcmp(r->variant, "sim_lockstep_highest");
}
static int keep_racy(const merged_row *r) { return racy_loop(r) && plotted_sim(r); }
static int keep_gpu(const merged_row *r) { return strcmp(r->source, "gpu") == 0; }
/* wrong results: the racy loop's rows, and any other that was ever wrong (the others are the
 * 0% line, said in the title) */
static int keep_wrong(const merged_row *r)
{
    return plotted_sim(r) && (racy_loop(r) || r->wrong_rate > 0);
}
static double y_passes(const merged_row *r) { return r->first_mean; }
static double y_wrong(const merged_row *r) { return 100.0 * r->wrong_rate; }
static double y_cycles(const merged_row *r) { return r->cycles; }

int race_merge_files(const char *dir, char **files, int nfiles, FILE *out)
{
    merged_row *rows = NULL;
    int count = 0, cap = 0;
    for (int i = 0; i < nfiles; ++i) {
        const int refused = read_rows(files[i], &rows, &count, &cap);
        if (refused) {
            free(rows);
            return refused;
        }
    }
    if (cli_make_out_dir("merge", dir)) {
        free(rows);
        return 1;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/race-merged.csv", dir);
    FILE *csv = fopen(path, "w");
    snprintf(path, sizeof path, "%s/race-matrix.md", dir);
    FILE *md = fopen(path, "w");
    if (!csv || !md) {
        fprintf(stderr, "yamr-bench merge: cannot write under %s: %s\n", dir, strerror(errno));
        if (csv) fclose(csv);
        if (md) fclose(md);
        free(rows);
        return 1;
    }
    fprintf(csv, "%s\n", csv_header);
    fprintf(md, "Uniformly random input order. wrong %%: trials whose result was not the largest "
                "value; passes: times a warp ran the racy loop's body (mean); cycles: clock64 "
                "cycles of the reduction; launch us: launch-to-launch time; -: not measured.\n\n");
    fprintf(md, "| device | arch | W | source | variant | threads | wrong %% | passes, first warp | "
                "passes, all warps | cycles (median) | launch us |\n"
                "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (int i = 0; i < count; ++i) {
        const merged_row *r = &rows[i];
        fputs(r->line, csv);
        if (strcmp(r->order, "random") != 0) continue;
        char cyc[32] = "-", launch[32] = "-", p1[32] = "-", pa[32] = "-";
        if (!isnan(r->cycles)) snprintf(cyc, sizeof cyc, "%.0f", r->cycles);
        if (!isnan(r->launch_us)) snprintf(launch, sizeof launch, "%.2f", r->launch_us);
        if (racy_loop(r)) {
            snprintf(p1, sizeof p1, "%.2f", r->first_mean);
            snprintf(pa, sizeof pa, "%.2f", r->all_mean);
        }
        fprintf(md, "| %s | %s | %d | %s | %s | %d | %.3f | %s | %s | %s | %s |\n", r->device,
                r->arch, r->warp_size, r->source, r->variant, r->threads, 100.0 * r->wrong_rate,
                p1, pa, cyc, launch);
    }
    fclose(csv);
    fclose(md);
    const char *sims = "sim_*: the simulator";
    write_plot(dir, "race-passes", "How many times does warp 0 run the racy loop?", sims,
               "passes of warp 0 (mean)", rows, count, keep_racy, y_passes, 0);
    int other_wrong = 0;
    for (int i = 0; i < count; ++i) other_wrong |= !racy_loop(&rows[i]) && rows[i].wrong_rate > 0;
    write_plot(dir, "race-wrong",
               other_wrong ? "How often is each variant wrong?" : "How often is the racy loop wrong?",
               other_wrong ? "sim_*: the simulator; variants never wrong: not drawn"
                           : "sim_*: the simulator; the other variants were never wrong",
               "wrong results (% of trials)", rows, count, keep_wrong, y_wrong, 0);
    write_plot(dir, "race-cycles", "How long does one block reduction take on the GPU?", "",
               "cycles per block reduction (clock64, median)", rows, count, keep_gpu, y_cycles, 1);
    fprintf(out, "merged %d rows from %d file(s) into %s/race-merged.csv, %s/race-matrix.md and "
                 "plots %s/race-*.png\n", count, nfiles, dir, dir, dir);
    free(rows);
    return 0;
}

static void merge_usage(FILE *f)
{
    fprintf(f, "usage: yamr-bench merge [--out DIR] RACE.csv...\n"
               "Joins race result files (DIR/race.csv of yamr-bench race --out DIR) of several\n"
               "machines into DIR/race-merged.csv, a markdown matrix DIR/race-matrix.md and plots\n"
               "DIR/race-{passes,wrong,cycles}.{svg,png} (gnuplot). Refuses files that are not\n"
               "race results.\n"
               "  --out DIR   where the merge goes (default: the current folder; DIR is "
               "created)\n");
}

int run_merge(int argc, char **argv)
{
    static const struct option options[] = {CLI_OPTION_HELP, CLI_OPTION_OUT, CLI_OPTION_END};
    const char *dir = ".";
    int reset = 1, c;
    while ((c = cli_next("merge", argc, argv, options, &reset)) != -1) {
        switch (c) {
        case CLI_OPT_HELP: merge_usage(stdout); return 0;
        case CLI_OPT_OUT: dir = optarg; break;
        default: return CLI_USAGE;
        }
    }
    if (optind >= argc)
        return cli_refuse("merge", "no race result file given (yamr-bench merge --help)");
    if (cli_out_dir("merge", dir)) return CLI_USAGE;
    /* a file given twice (by any path) would double its rows */
    for (int i = optind; i < argc; ++i) {
        struct stat si, sj;
        if (stat(argv[i], &si) != 0) continue; /* read_rows says why */
        for (int j = optind; j < i; ++j)
            if (stat(argv[j], &sj) == 0 && si.st_dev == sj.st_dev && si.st_ino == sj.st_ino)
                return strcmp(argv[i], argv[j])
                           ? cli_refuse("merge", "%s and %s are the same file: its rows would "
                                                 "count twice", argv[j], argv[i])
                           : cli_refuse("merge", "%s given twice: its rows would count twice",
                                        argv[i]);
    }
    return race_merge_files(dir, argv + optind, argc - optind, stdout);
}
