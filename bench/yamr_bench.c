/*
 * yamr-bench: the race lab, the sweep and the report.
 *
 *   yamr-bench race   [options]           measure the YAMR race on the GPU, next to the simulator
 *   yamr-bench sweep  [options]           max/argmax/min+max over sizes and dtypes, against CUB
 *   yamr-bench merge  [--out DIR] CSV...  join race results of several machines: table and plots
 *   yamr-bench report [options]           the main job: device report, race lab and sweep on the
 *                                         GPU when there is one (the simulator's predictions and
 *                                         the CPU backend otherwise), results under --out
 * Run `yamr-bench --help` for the options.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_common.h"
#include "race_lab.h"
#include "race_sim.h"
#include "yamr.h"

/* ---- One result row, written as CSV and JSON. ---- */

typedef struct {
    identity id;
    char source[16];  /* "gpu" or "simulator" */
    char variant[40]; /* a yamr variant, or the simulator's mode/policy */
    int threads;
    char order[16];
    race_measure m;
} race_row;

static const char csv_header[] =
    "vendor,device,arch,warp_size,its,compiler,library_version,git_rev,source,variant,threads,"
    "order,trials,wrong,wrong_rate,writes_mean,first_warp_mean,first_warp_p50,first_warp_p99,"
    "first_warp_max,all_warps_mean,all_warps_p50,all_warps_p99,all_warps_max,cycles_median,"
    "launch_us";

static void write_csv_row(FILE *f, const race_row *r)
{
    const race_measure *m = &r->m;
    csv_identity(f, &r->id);
    fprintf(f, "%s,%s,%d,%s,%lld,%lld,%.6g,%.4f,%.4f,%d,%d,%d,%.4f,%d,%d,%d,%.1f,%.3f\n",
            r->source, r->variant, r->threads, r->order,
            (long long)m->trials, (long long)m->wrong, (double)m->wrong / (double)m->trials,
            m->writes_mean, m->first_warp.mean, m->first_warp.p50, m->first_warp.p99,
            m->first_warp.max, m->all_warps.mean, m->all_warps.p50, m->all_warps.p99,
            m->all_warps.max, m->cycles_median, m->launch_us);
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

static int write_results(const char *prefix, const race_row *rows, int count)
{
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
    printf("wrote %s.csv and %s.json (%d rows)\n", prefix, prefix, count);
    return 0;
}

static void print_header(void)
{
    printf("%-9s %3s %-22s %7s %-10s %8s %9s | %-27s | %-22s | %8s %10s %9s\n", "source", "W",
           "variant", "threads", "order", "trials", "wrong %", "first warp mean/p50/p99/max",
           "all warps mean/p99/max", "writes", "cycles", "launch us");
}

static void print_row(const race_row *r)
{
    const race_measure *m = &r->m;
    char first[64], all[64];
    snprintf(first, sizeof first, "%.2f/%d/%d/%d", m->first_warp.mean, m->first_warp.p50,
             m->first_warp.p99, m->first_warp.max);
    snprintf(all, sizeof all, "%.2f/%d/%d", m->all_warps.mean, m->all_warps.p99, m->all_warps.max);
    printf("%-9s %3d %-22s %7d %-10s %8lld %9.4f | %-27s | %-22s | %8.1f %10.0f %9.2f\n", r->source,
           r->id.warp_size, r->variant, r->threads, r->order, (long long)m->trials,
           100.0 * (double)m->wrong / (double)m->trials, first, all, m->writes_mean,
           m->cycles_median, m->launch_us);
}

static void progress(int done, int total)
{
    const int width = 40, filled = total ? width * done / total : width;
    fprintf(stderr, "\r[%.*s%*s] %d/%d", filled, "########################################",
            width - filled, "", done, total);
    if (done == total) fputc('\n', stderr);
    fflush(stderr);
}

/* ---- race ---- */

typedef struct {
    int device;
    int64_t trials;
    uint64_t seed;
    int threads[16];
    int thread_count;
    yamr_variant variants[YAMR_VARIANT_COUNT];
    int variant_count;
    yamr_race_sim_order orders[YAMR_RACE_SIM_ORDER_COUNT];
    int order_count;
    int simulate; /* also the simulator's rows for the device's warp width */
    const char *out;
} race_options;

static const yamr_race_sim_order default_orders[] = {
    YAMR_RACE_SIM_ORDER_RANDOM, YAMR_RACE_SIM_ORDER_ASCENDING, YAMR_RACE_SIM_ORDER_DESCENDING,
    YAMR_RACE_SIM_ORDER_ALL_EQUAL, YAMR_RACE_SIM_ORDER_ONE_LARGE};

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
            if (yamr_race_sim_trials(&cfg, order, o->trials, &rng, &st) != YAMR_RACE_SIM_OK) continue;
            race_row *r = &rows[(*count)++];
            memset(r, 0, sizeof *r);
            r->id = *gpu;
            snprintf(r->id.device, sizeof r->id.device, "simulator");
            r->id.warp_size = warp_size;
            r->id.its = mode == YAMR_RACE_SIM_ITS;
            snprintf(r->source, sizeof r->source, "simulator");
            snprintf(r->variant, sizeof r->variant, "sim_%s%s%s", yamr_race_sim_mode_name(cfg.mode),
                     mode == YAMR_RACE_SIM_ITS ? "" : "_", mode == YAMR_RACE_SIM_ITS ? "" : yamr_race_sim_policy_name(cfg.policy));
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

static int run_race(const race_options *o)
{
    yamr_context *ctx = NULL;
    identity id;
    int on_gpu;
    if (bench_open(o->device, &ctx, &id, &on_gpu) != YAMR_SUCCESS) return 1;
    yamr_device_info info;
    yamr_get_device_info(ctx, &info);
    if (!on_gpu) printf("No GPU: the race lab shows the simulator's predictions for 32- and 64-wide warps.\n\n");

    const int widths_cpu[] = {32, 64};
    const int width_count = on_gpu ? 1 : 2;
    const int max_rows = o->thread_count * o->order_count * (o->variant_count + 8);
    race_row *rows = (race_row *)calloc((size_t)max_rows, sizeof *rows);
    if (!rows) return 1;
    int count = 0, step = 0;
    const int steps = o->thread_count * o->order_count;
    print_header();
    for (int t = 0; t < o->thread_count; ++t)
        for (int k = 0; k < o->order_count; ++k) {
            const int first_row = count;
            const int threads = o->threads[t];
            if (threads > (on_gpu ? info.max_block_threads : 1024)) continue;
            for (int v = 0; on_gpu && v < o->variant_count; ++v) {
                race_row *r = &rows[count];
                memset(r, 0, sizeof *r);
                char err[512];
                yamr_status s = race_gpu_measure(o->device, o->variants[v], threads, o->orders[k],
                                                 o->trials, o->seed, &r->m, err, sizeof err);
                if (s != YAMR_SUCCESS) {
                    fprintf(stderr, "\nyamr-bench: %s: %s\n", yamr_status_string(s), err);
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
            if (isatty(2)) progress(++step, steps);
            if (isatty(2)) fputs("\r", stderr);
            for (int i = first_row; i < count; ++i) print_row(&rows[i]);
        }
    int rc = o->out ? write_results(o->out, rows, count) : 0;
    free(rows);
    yamr_destroy(ctx);
    return rc;
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

static int read_rows(const char *path, merged_row **rows, int *count, int *cap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "yamr-bench merge: cannot read %s: %s\n", path, strerror(errno));
        return 1;
    }
    char line[1024];
    if (!fgets(line, sizeof line, f) || strncmp(line, csv_header, 20) != 0) {
        fprintf(stderr, "yamr-bench merge: %s is not a race CSV\n", path);
        fclose(f);
        return 1;
    }
    while (fgets(line, sizeof line, f)) {
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
        char *fld[32];
        line[strcspn(line, "\n")] = '\0';
        if (split_csv(line, fld, 32) != 26) continue;
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
        r->cycles = strcmp(fld[24], "nan") ? atof(fld[24]) : NAN;
        r->launch_us = strcmp(fld[25], "nan") ? atof(fld[25]) : NAN;
        ++*count;
    }
    fclose(f);
    return 0;
}

static int racy_loop(const merged_row *r)
{
    return strncmp(r->variant, "racy", 4) == 0 || strncmp(r->variant, "sim_", 4) == 0;
}

/* One plot: y(r) against threads, uniform random order, one series per (device, arch, W, variant). */
static void write_plot(const char *dir, const char *name, const char *ylabel, const merged_row *rows,
                       int count, int (*keep)(const merged_row *), double (*y)(const merged_row *),
                       int logy)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.dat", dir, name);
    FILE *dat = fopen(path, "w");
    if (!dat) return;
    char titles[64][160];
    int series = 0;
    for (int i = 0; i < count; ++i) {
        const merged_row *r = &rows[i];
        if (strcmp(r->order, "random") != 0 || !keep(r)) continue;
        char title[160];
        snprintf(title, sizeof title, "%s %s W%d %s", r->device, r->arch, r->warp_size, r->variant);
        int seen = 0;
        for (int s = 0; s < series; ++s) seen |= strcmp(titles[s], title) == 0;
        if (seen || series == 64) continue;
        snprintf(titles[series++], sizeof titles[0], "%s", title);
        fprintf(dat, "\"%s\" \"%s\"\n", title, ylabel);
        for (int j = 0; j < count; ++j) {
            const merged_row *q = &rows[j];
            char t2[160];
            snprintf(t2, sizeof t2, "%s %s W%d %s", q->device, q->arch, q->warp_size, q->variant);
            if (strcmp(q->order, "random") == 0 && strcmp(t2, title) == 0 && !isnan(y(q)))
                fprintf(dat, "%d %g\n", q->threads, y(q));
        }
        fprintf(dat, "\n\n");
    }
    fclose(dat);
    if (!series) return;
    snprintf(path, sizeof path, "%s/%s.gp", dir, name);
    FILE *gp = fopen(path, "w");
    if (!gp) return;
    for (int fmt = 0; fmt < 2; ++fmt) {
        fprintf(gp, "set terminal %s size 1000,600\nset output '%s/%s.%s'\n",
                fmt ? "pngcairo" : "svg", dir, name, fmt ? "png" : "svg");
        fprintf(gp, "set logscale x 2\nset xlabel 'threads per block'\nset ylabel '%s'\n%s"
                    "set key outside right top font ',8' noenhanced\nset grid\nset termoption noenhanced\n",
                ylabel, logy ? "set logscale y\n" : "");
        fprintf(gp, "plot for [i=0:%d] '%s/%s.dat' index i using 1:2 with linespoints title columnheader(1)\n",
                series - 1, dir, name);
    }
    fclose(gp);
    char cmd[2200];
    snprintf(cmd, sizeof cmd, "gnuplot '%s' 2>/dev/null", path);
    if (system(cmd) != 0) fprintf(stderr, "yamr-bench merge: gnuplot failed for %s (is gnuplot installed?)\n", name);
}

static int keep_racy(const merged_row *r) { return racy_loop(r); }
static int keep_gpu(const merged_row *r) { return strcmp(r->source, "gpu") == 0; }
static int keep_any(const merged_row *r) { (void)r; return 1; }
static double y_passes(const merged_row *r) { return r->first_mean; }
static double y_wrong(const merged_row *r) { return 100.0 * r->wrong_rate; }
static double y_cycles(const merged_row *r) { return r->cycles; }

static int run_merge(const char *dir, char **files, int nfiles)
{
    merged_row *rows = NULL;
    int count = 0, cap = 0;
    for (int i = 0; i < nfiles; ++i)
        if (read_rows(files[i], &rows, &count, &cap)) {
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
        free(rows);
        return 1;
    }
    fprintf(csv, "%s\n", csv_header);
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
    write_plot(dir, "race-passes", "passes per warp (first warp, mean)", rows, count, keep_racy, y_passes, 0);
    write_plot(dir, "race-wrong", "wrong results (%)", rows, count, keep_any, y_wrong, 0);
    write_plot(dir, "race-cycles", "cycles per block reduction (median)", rows, count, keep_gpu, y_cycles, 1);
    printf("merged %d rows from %d file(s) into %s/race-merged.csv, %s/race-matrix.md and plots\n",
           count, nfiles, dir, dir);
    free(rows);
    return 0;
}

/* ---- options ---- */

static int parse_list(const char *text, int *out, int max)
{
    int n = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *tok = strtok(buf, ","); tok && n < max; tok = strtok(NULL, ",")) out[n++] = atoi(tok);
    return n;
}

static int parse_variants(const char *text, race_options *o)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    o->variant_count = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int found = 0;
        for (int v = YAMR_VARIANT_RACY; v < YAMR_VARIANT_COUNT; ++v)
            if (strcmp(tok, yamr_variant_name((yamr_variant)v)) == 0) {
                o->variants[o->variant_count++] = (yamr_variant)v;
                found = 1;
            }
        if (!found) {
            fprintf(stderr, "yamr-bench: unknown variant '%s'\n", tok);
            return 1;
        }
    }
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: yamr-bench race   [--trials N] [--threads 32,64,...] [--variants a,b,...]\n"
            "                         [--seed S] [--device D] [--no-sim] [--out PREFIX]\n"
            "       yamr-bench sweep  [options]   (yamr-bench sweep --help)\n"
            "       mpiexec -n R yamr-bench mpi [--reps N] [--warmup N] [--cpu] [--out PREFIX]\n"
            "       yamr-bench merge  [--out DIR] RESULTS.csv...\n"
            "       yamr-bench report [--trials N] [--out DIR]\n"
            "\n"
            "race    Runs each variant of the YAMR family and the conventional single-block\n"
            "        reductions (float32 max) on one block per trial, for each block size and input\n"
            "        order (random, ascending, descending, all_equal, one_large): wrong results,\n"
            "        passes per warp of the racy loop (first warp and all warps), stores to the\n"
            "        shared value, clock64 cycles of the reduction (median) and launch-to-launch\n"
            "        time. Next to them, the lockstep simulator's rows for the device's warp width.\n"
            "        Without a GPU, the simulator alone, for 32- and 64-wide warps.\n"
            "        Defaults: --trials 10000 --threads 32,64,137,256,1024 --variants all --seed 1.\n"
            "        Writes PREFIX.csv and PREFIX.json when --out is given.\n"
            "merge   Joins race CSVs of several machines into DIR/race-merged.csv, a markdown\n"
            "        matrix DIR/race-matrix.md and plots DIR/race-{passes,wrong,cycles}.{svg,png}.\n"
            "sweep   Max, argmax and min+max over sizes and dtypes, against CUB and a copy.\n"
            "report  The main job: the device report, the race lab and the sweep on whatever\n"
            "        this machine has (the CPU backend and the simulator when there is no GPU);\n"
            "        results and plots under DIR (default: results).\n");
}

static int race_from_args(int argc, char **argv, race_options *o)
{
    o->device = 0;
    o->trials = 10000;
    o->seed = 1;
    o->thread_count = parse_list("32,64,137,256,1024", o->threads, 16);
    o->variant_count = 0;
    for (int v = YAMR_VARIANT_RACY; v < YAMR_VARIANT_COUNT; ++v) o->variants[o->variant_count++] = (yamr_variant)v;
    o->order_count = (int)(sizeof default_orders / sizeof default_orders[0]);
    memcpy(o->orders, default_orders, sizeof default_orders);
    o->simulate = 1;
    o->out = NULL;
    for (int i = 0; i < argc; ++i) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--no-sim")) {
            o->simulate = 0;
            continue;
        }
        if (!next) {
            fprintf(stderr, "yamr-bench: unknown or incomplete option '%s'\n", a);
            return 1;
        }
        if (!strcmp(a, "--trials")) o->trials = atoll(next);
        else if (!strcmp(a, "--threads")) o->thread_count = parse_list(next, o->threads, 16);
        else if (!strcmp(a, "--variants")) { if (parse_variants(next, o)) return 1; }
        else if (!strcmp(a, "--seed")) o->seed = strtoull(next, NULL, 0);
        else if (!strcmp(a, "--device")) o->device = atoi(next);
        else if (!strcmp(a, "--out")) o->out = next;
        else {
            fprintf(stderr, "yamr-bench: unknown option '%s'\n", a);
            return 1;
        }
        ++i;
    }
    for (int t = 0; t < o->thread_count; ++t)
        if (o->threads[t] < 1 || o->threads[t] > 1024) {
            fprintf(stderr, "yamr-bench: --threads takes 1..1024\n");
            return 1;
        }
    if (o->trials < 1 || o->thread_count < 1) {
        fprintf(stderr, "yamr-bench: --trials and --threads need positive values\n");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    race_options o;
    if (!strcmp(argv[1], "race")) {
        if (race_from_args(argc - 2, argv + 2, &o)) return 2;
        return run_race(&o);
    }
    if (!strcmp(argv[1], "sweep")) return run_sweep(argc - 2, argv + 2);
    if (!strcmp(argv[1], "rows")) return run_rows(argc - 2, argv + 2);
    if (!strcmp(argv[1], "mpi")) return run_mpi(argc - 2, argv + 2);
    if (!strcmp(argv[1], "merge")) {
        const char *dir = ".";
        int first = 2;
        if (argc > 3 && !strcmp(argv[2], "--out")) {
            dir = argv[3];
            first = 4;
        }
        if (first >= argc) {
            usage(stderr);
            return 2;
        }
        return run_merge(dir, argv + first, argc - first);
    }
    if (!strcmp(argv[1], "report")) {
        const char *dir = "results";
        char trials[32] = "10000";
        for (int i = 2; i < argc; i += 2) {
            if (!strcmp(argv[i], "--help")) {
                usage(stdout);
                return 0;
            }
            if (i + 1 == argc) { /* an option without its value: not a report run */
                usage(stderr);
                return 2;
            }
            if (!strcmp(argv[i], "--out")) dir = argv[i + 1];
            else if (!strcmp(argv[i], "--trials")) snprintf(trials, sizeof trials, "%s", argv[i + 1]);
            else {
                usage(stderr);
                return 2;
            }
        }
        char prefix[1024];
        snprintf(prefix, sizeof prefix, "%s/race", dir);
        char *args[] = {"--trials", trials, "--out", prefix};
        if (race_from_args(4, args, &o)) return 2;
        char cmd[1100];
        snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
        if (system(cmd) != 0) return 1;
        if (run_race(&o)) return 1;
        char csv[1100];
        snprintf(csv, sizeof csv, "%s.csv", prefix);
        char *files[] = {csv};
        if (run_merge(dir, files, 1)) return 1;
        char sweep_prefix[1100];
        snprintf(sweep_prefix, sizeof sweep_prefix, "%s/sweep", dir);
        char *sweep_args[] = {"--out", sweep_prefix};
        return run_sweep(2, sweep_args);
    }
    usage(stderr);
    return 2;
}
