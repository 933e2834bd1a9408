/* SPDX-License-Identifier: MIT */
/*
 * yamr-bench mpi: the MPI layer (yamr_mpi.h) against what a user writes without it, in one run,
 * under mpiexec at any number of ranks:
 *
 *     mpiexec -n R yamr-bench mpi [--reps N] [--warmup N] [--device D|cpu] [--out DIR]
 *
 * Cases (every rank holds its part; f32):
 *  - argmax of n_local = 1 and 2^20 elements per rank: yamr_mpi_reduce(ARGMAX) against the
 *    local yamr_argmax_f32 then MPI_Allreduce of one MPI_FLOAT_INT with MPI_MAXLOC (an `int`
 *    global index, no NaN or -0.0 rules, ties to the lowest index as MAXLOC defines);
 *  - the same at 2^28 per rank (1 GiB), for weak scaling (its time at R ranks over its time at
 *    one): on GPUs only, and only while the global index fits MAXLOC's `int` (R <= 8);
 *  - vocabulary-parallel rows, 64 rows x 65536 columns per rank (64 x 65536 R in all):
 *    yamr_mpi_reduce_rows(ARGMAX) against the local yamr_reduce_rows, the 64 pairs to the host,
 *    one MPI_Allreduce of 64 MPI_FLOAT_INT with MPI_MAXLOC and the answers back to the context's
 *    memory; and yamr_mpi_softmax_stats_rows against the local yamr_softmax_stats_rows, the
 *    (max, sum) pairs to the host, one MPI_Allreduce with a user operation merging the pairs in
 *    float (m = max, s = s1 exp(m1 - m) + s2 exp(m2 - m)), and back.
 * Each rep: MPI_Barrier, then the call timed by MPI_Wtime on every rank; a rep's time is the
 * largest over the ranks; yamr's reps and the baseline's alternate. The table gives the median
 * and minimum over --reps (default 200, after --warmup 20) and yamr's median over the
 * baseline's. Results are checked against the
 * baseline before timing.
 *
 * Device: on a machine with GPUs, the node-local rank (MPI_Comm_split_type with
 * MPI_COMM_TYPE_SHARED) modulo the number of GPUs, so that ranks spread over the GPUs of a node
 * (and share them when there are more ranks); --device D puts every rank on GPU D; --device cpu
 * (or --cpu, its older spelling), or no GPU, uses the CPU backend.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "bench_common.h"
#include "cli.h"
#include "commands.h"
#include "yamr.h"
#include "yamr_mpi.h"

#define ROWS 64
#define ROW_COLS 65536

typedef struct {
    float value;
    int index;
} float_int;

typedef struct {
    MPI_Comm comm;
    int rank, ranks;
    yamr_context *ctx;
} bench_mpi;

typedef struct {
    bench_mpi *b;
    void *in;               /* this rank's part, context memory */
    size_t n_local;         /* argmax: elements; rows: columns */
    void *values, *second;  /* rows outputs, context memory */
    float host_values[ROWS];
    float host_second[ROWS]; /* softmax sums */
    int64_t host_indices[ROWS];
    float_int pairs[ROWS];
    MPI_Datatype pair_type; /* softmax baseline: two floats */
    MPI_Op pair_merge;
    /* answers, for the checks */
    float value;
    int64_t index;
} bench_case;

typedef yamr_status (*bench_call)(bench_case *c);

/* ---- The calls ---- */

static yamr_status yamr_argmax_call(bench_case *c)
{
    return yamr_mpi_reduce(c->b->ctx, c->b->comm, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, c->in,
                           c->n_local, &c->value, &c->index);
}

static yamr_status baseline_argmax_call(bench_case *c)
{
    float_int mine, best;
    int64_t local_index;
    yamr_status s = yamr_argmax_f32(c->b->ctx, (const float *)c->in, c->n_local, &mine.value,
                                    &local_index);
    if (s != YAMR_SUCCESS) return s;
    mine.index = (int)((int64_t)c->b->rank * (int64_t)c->n_local + local_index);
    if (MPI_Allreduce(&mine, &best, 1, MPI_FLOAT_INT, MPI_MAXLOC, c->b->comm) != MPI_SUCCESS)
        return YAMR_ERROR_COMMUNICATION;
    c->value = best.value;
    c->index = best.index;
    return YAMR_SUCCESS;
}

static yamr_status yamr_rows_call(bench_case *c)
{
    return yamr_mpi_reduce_rows(c->b->ctx, c->b->comm, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, c->in,
                                ROWS, c->n_local, c->n_local, c->values, (int64_t *)c->second);
}

static yamr_status baseline_rows_call(bench_case *c)
{
    yamr_context *ctx = c->b->ctx;
    yamr_status s = yamr_reduce_rows(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, c->in, ROWS,
                                     c->n_local, c->n_local, c->values, (int64_t *)c->second);
    if (s == YAMR_SUCCESS) s = yamr_copy_to_host(ctx, c->host_values, c->values, sizeof c->host_values);
    if (s == YAMR_SUCCESS) s = yamr_copy_to_host(ctx, c->host_indices, c->second, sizeof c->host_indices);
    if (s != YAMR_SUCCESS) return s;
    const int64_t offset = (int64_t)c->b->rank * (int64_t)c->n_local;
    for (int r = 0; r < ROWS; ++r) {
        c->pairs[r].value = c->host_values[r];
        c->pairs[r].index = (int)(offset + c->host_indices[r]);
    }
    if (MPI_Allreduce(MPI_IN_PLACE, c->pairs, ROWS, MPI_FLOAT_INT, MPI_MAXLOC, c->b->comm) !=
        MPI_SUCCESS)
        return YAMR_ERROR_COMMUNICATION;
    for (int r = 0; r < ROWS; ++r) {
        c->host_values[r] = c->pairs[r].value;
        c->host_indices[r] = c->pairs[r].index;
    }
    s = yamr_copy_to_device(ctx, c->values, c->host_values, sizeof c->host_values);
    if (s == YAMR_SUCCESS) s = yamr_copy_to_device(ctx, c->second, c->host_indices, sizeof c->host_indices);
    return s;
}

static yamr_status yamr_softmax_call(bench_case *c)
{
    return yamr_mpi_softmax_stats_rows(c->b->ctx, c->b->comm, YAMR_DTYPE_F32, c->in, ROWS,
                                       c->n_local, c->n_local, c->values, c->second);
}

/* What a user writes for the pairs: float, no special cases. */
static void merge_pairs(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const float *x = (const float *)in;
    float *y = (float *)inout;
    for (int i = 0; i < *len; ++i) {
        const float m = x[2 * i] > y[2 * i] ? x[2 * i] : y[2 * i];
        y[2 * i + 1] = x[2 * i + 1] * expf(x[2 * i] - m) + y[2 * i + 1] * expf(y[2 * i] - m);
        y[2 * i] = m;
    }
}

static yamr_status baseline_softmax_call(bench_case *c)
{
    yamr_context *ctx = c->b->ctx;
    float pairs[2 * ROWS];
    yamr_status s = yamr_softmax_stats_rows(ctx, YAMR_DTYPE_F32, c->in, ROWS, c->n_local,
                                            c->n_local, c->values, c->second);
    if (s == YAMR_SUCCESS) s = yamr_copy_to_host(ctx, c->host_values, c->values, sizeof c->host_values);
    if (s == YAMR_SUCCESS) s = yamr_copy_to_host(ctx, c->host_second, c->second, sizeof c->host_second);
    if (s != YAMR_SUCCESS) return s;
    for (int r = 0; r < ROWS; ++r) {
        pairs[2 * r] = c->host_values[r];
        pairs[2 * r + 1] = c->host_second[r];
    }
    if (MPI_Allreduce(MPI_IN_PLACE, pairs, ROWS, c->pair_type, c->pair_merge, c->b->comm) !=
        MPI_SUCCESS)
        return YAMR_ERROR_COMMUNICATION;
    for (int r = 0; r < ROWS; ++r) {
        c->host_values[r] = pairs[2 * r];
        c->host_second[r] = pairs[2 * r + 1];
    }
    s = yamr_copy_to_device(ctx, c->values, c->host_values, sizeof c->host_values);
    if (s == YAMR_SUCCESS) s = yamr_copy_to_device(ctx, c->second, c->host_second, sizeof c->host_second);
    return s;
}

/* ---- Timing ---- */

static int compare_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void median_min(double *t, int reps, double *median_us, double *min_us)
{
    qsort(t, (size_t)reps, sizeof *t, compare_double);
    *median_us = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    *min_us = t[0];
}

/* yamr's call and the baseline's, alternating rep by rep so that both see the same machine (a
 * shared or oversubscribed one changes by the second): median and minimum over reps of the
 * slowest rank's time, in microseconds. Returns 1 when a call failed on any rank. */
static int time_pair(bench_case *c, bench_call yamr_call, bench_call baseline_call, int warmup,
                     int reps, double out[4])
{
    double *t = (double *)malloc(4 * (size_t)reps * sizeof *t), *slowest = t + 2 * reps;
    int failed = 0, any_failed = 0;
    for (int i = 0; i < warmup; ++i) {
        failed |= yamr_call(c) != YAMR_SUCCESS;
        failed |= baseline_call(c) != YAMR_SUCCESS;
    }
    for (int i = 0; i < reps; ++i)
        for (int k = 0; k < 2; ++k) {
            MPI_Barrier(c->b->comm);
            const double t0 = MPI_Wtime();
            failed |= (k == 0 ? yamr_call : baseline_call)(c) != YAMR_SUCCESS;
            t[k * reps + i] = (MPI_Wtime() - t0) * 1e6;
        }
    MPI_Allreduce(t, slowest, 2 * reps, MPI_DOUBLE, MPI_MAX, c->b->comm);
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, c->b->comm);
    median_min(slowest, reps, &out[0], &out[1]);
    median_min(slowest + reps, reps, &out[2], &out[3]);
    free(t);
    return any_failed;
}

/* ---- Data and checks ---- */

/* Distinct values (no ties, no NaN), so that MAXLOC and yamr agree: element i of the global array
 * (or of a global row) is a fixed permutation of i scaled into [-1, 1). */
static float value_at(uint64_t global, uint64_t total)
{
    const uint64_t p = (global * 2654435761ull + 12345ull) % total;
    return (float)((double)p / (double)total * 2.0 - 1.0);
}

static int same_everywhere(bench_mpi *b, int ok)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, b->comm);
    return all;
}

typedef struct {
    const char *name;
    const char *shape;
    bench_call yamr_call, baseline_call;
    int rows; /* 0: argmax of n_local; 1: argmax rows; 2: softmax rows */
    size_t n_local;
} case_row;

static int run_case(bench_mpi *b, const case_row *k, int warmup, int reps, FILE *csv,
                    const char *device)
{
    bench_case c;
    memset(&c, 0, sizeof c);
    c.b = b;
    c.n_local = k->n_local;
    const size_t count = k->rows ? (size_t)ROWS * k->n_local : k->n_local;
    float *host = (float *)malloc(count * sizeof *host);
    const uint64_t total_cols = (uint64_t)k->n_local * (uint64_t)b->ranks;
    for (size_t i = 0; i < count; ++i) {
        if (k->rows) {
            const size_t r = i / k->n_local, col = i % k->n_local;
            host[i] = value_at((uint64_t)b->rank * k->n_local + col + r * 7919u, total_cols);
        } else {
            host[i] = value_at((uint64_t)b->rank * k->n_local + i, total_cols);
        }
    }
    yamr_status s = yamr_device_alloc(b->ctx, count * sizeof *host, &c.in);
    if (s == YAMR_SUCCESS) s = yamr_copy_to_device(b->ctx, c.in, host, count * sizeof *host);
    if (s == YAMR_SUCCESS) s = yamr_device_alloc(b->ctx, ROWS * sizeof(float), &c.values);
    if (s == YAMR_SUCCESS) s = yamr_device_alloc(b->ctx, ROWS * sizeof(int64_t), &c.second);
    free(host);
    MPI_Type_contiguous(2, MPI_FLOAT, &c.pair_type);
    MPI_Type_commit(&c.pair_type);
    MPI_Op_create(merge_pairs, 1, &c.pair_merge);

    /* check: yamr and the baseline agree (the data has no ties and no special values) */
    int ok = s == YAMR_SUCCESS;
    float want_values[ROWS], want_second[ROWS];
    int64_t want_indices[ROWS];
    if (ok) ok = k->baseline_call(&c) == YAMR_SUCCESS;
    if (ok && !k->rows) {
        const float v = c.value;
        const int64_t idx = c.index;
        ok = yamr_argmax_call(&c) == YAMR_SUCCESS && c.value == v && c.index == idx;
    } else if (ok) {
        memcpy(want_values, c.host_values, sizeof want_values);
        memcpy(want_indices, c.host_indices, sizeof want_indices);
        memcpy(want_second, c.host_second, sizeof want_second);
        ok = k->yamr_call(&c) == YAMR_SUCCESS &&
             yamr_copy_to_host(b->ctx, c.host_values, c.values, sizeof c.host_values) ==
                 YAMR_SUCCESS &&
             yamr_copy_to_host(b->ctx, k->rows == 1 ? (void *)c.host_indices : (void *)c.host_second,
                               c.second, k->rows == 1 ? sizeof c.host_indices : sizeof c.host_second) ==
                 YAMR_SUCCESS;
        for (int r = 0; ok && r < ROWS; ++r) {
            ok = c.host_values[r] == want_values[r];
            if (k->rows == 1) ok = ok && c.host_indices[r] == want_indices[r];
            else ok = ok && fabsf(c.host_second[r] - want_second[r]) <= 1e-4f * want_second[r];
        }
    }
    int rc = 0;
    if (!same_everywhere(b, ok)) {
        if (b->rank == 0)
            fprintf(stderr, "yamr-bench mpi: %s %s: yamr and the baseline disagree, or a call "
                    "failed: not timed\n", k->name, k->shape);
        rc = 1;
    } else {
        double t[4];
        const int failed = time_pair(&c, k->yamr_call, k->baseline_call, warmup, reps, t);
        const double y_med = t[0], y_min = t[1], b_med = t[2], b_min = t[3];
        if (b->rank == 0) {
            printf("%-14s %-22s %5d  %10.2f %10.2f  %10.2f %10.2f  %6.2f%s\n", k->name, k->shape,
                   b->ranks, y_med, y_min, b_med, b_min, y_med / b_med,
                   failed ? "  (a timed call failed)" : "");
            if (csv)
                fprintf(csv, "%s,%s,%d,%s,%.3f,%.3f,%.3f,%.3f,%.4f\n", k->name, k->shape,
                        b->ranks, device, y_med, y_min, b_med, b_min, y_med / b_med);
        }
        rc = failed;
    }
    MPI_Op_free(&c.pair_merge);
    MPI_Type_free(&c.pair_type);
    yamr_device_free(b->ctx, c.in);
    yamr_device_free(b->ctx, c.values);
    yamr_device_free(b->ctx, c.second);
    return rc;
}

/* --device as given (a GPU ordinal or the CPU), or when left out the GPU of the node-local rank
 * modulo the GPUs present, else the CPU. */
static int pick_device(MPI_Comm comm, int device)
{
    MPI_Comm node;
    int local_rank = 0, count = 0;
    if (device != CLI_DEVICE_ANY) return device;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_free(&node);
    for (yamr_context *probe; count < 64 && yamr_create(&probe, count) == YAMR_SUCCESS; ++count)
        yamr_destroy(probe);
    return count ? local_rank % count : YAMR_DEVICE_CPU;
}

enum { OPT_REPS = CLI_OPT_FIRST_OWN, OPT_WARMUP, OPT_CPU };

static void usage(void)
{
    printf("usage: mpiexec -n R yamr-bench mpi [--reps N] [--warmup N] [--device D|cpu]\n"
           "                                     [--out DIR]\n"
           "The MPI layer (yamr_mpi.h) against what a user writes otherwise: the local call, then\n"
           "one MPI_Allreduce (MPI_FLOAT_INT with MPI_MAXLOC for argmax; the row pairs for rows\n"
           "and softmax statistics). Each rank takes the GPU of its node-local rank (mod the\n"
           "GPUs present), GPU D on every rank with --device D, or the CPU backend with\n"
           "--device cpu (--cpu is the same) or without a GPU. Median and min of N\n"
           "reps after the warm-up, the slowest rank's time per rep. Argmax at 2^28 per rank\n"
           "(weak scaling) runs on GPUs at up to 8 ranks. Defaults: --reps 200 --warmup 20.\n"
           "--out writes DIR/mpi.csv (rank 0).\n");
}

int run_mpi(int argc, char **argv)
{
    static const struct option options[] = {CLI_OPTION_HELP, CLI_OPTION_OUT, CLI_OPTION_DEVICE,
                                            {"reps", required_argument, NULL, OPT_REPS},
                                            {"warmup", required_argument, NULL, OPT_WARMUP},
                                            {"cpu", no_argument, NULL, OPT_CPU}, CLI_OPTION_END};
    int warmup = 20, reps = 200, device = CLI_DEVICE_ANY, reset = 1, opt;
    long long n;
    const char *out = NULL;
    while ((opt = cli_next("mpi", argc, argv, options, &reset)) != -1) {
        switch (opt) {
        case CLI_OPT_HELP: usage(); return 0;
        case CLI_OPT_OUT: out = optarg; break;
        case OPT_REPS:
            if (cli_int("mpi", "--reps", optarg, 1, 1000000, &n)) return CLI_USAGE;
            reps = (int)n;
            break;
        case OPT_WARMUP:
            if (cli_int("mpi", "--warmup", optarg, 0, 1000000, &n)) return CLI_USAGE;
            warmup = (int)n;
            break;
        case CLI_OPT_DEVICE:
            if (cli_device("mpi", optarg, &device)) return CLI_USAGE;
            break;
        case OPT_CPU: device = YAMR_DEVICE_CPU; break;
        default: return CLI_USAGE;
        }
    }
    if (cli_no_operands("mpi", argc, argv, optind)) return CLI_USAGE;
    MPI_Init(NULL, NULL);
    bench_mpi b = {MPI_COMM_WORLD, 0, 0, NULL};
    MPI_Comm_rank(b.comm, &b.rank);
    MPI_Comm_size(b.comm, &b.ranks);
    MPI_Comm_set_errhandler(b.comm, MPI_ERRORS_RETURN);
    /* rank 0 alone checks the --out folder (made when it writes there); the ranks agree on
     * whether it could before any goes on, so that none is left waiting in a collective */
    if (!same_everywhere(&b, !out || b.rank != 0 || !cli_out_dir("mpi", out))) {
        MPI_Finalize();
        return CLI_USAGE;
    }
    const int named = device;
    device = pick_device(b.comm, device);
    char why[512] = "";
    yamr_status s = yamr_create_ex(&b.ctx, device, why, sizeof why);
    if (!same_everywhere(&b, s == YAMR_SUCCESS)) {
        /* a GPU named with --device that does not open is a refusal, as in every command */
        if (b.rank == 0 && named >= 0)
            cli_refuse("mpi", "--device %d: %s", named, s == YAMR_SUCCESS ? "not on every rank" : why);
        else if (b.rank == 0)
            fprintf(stderr, "yamr-bench mpi: a rank could not open its device\n");
        if (b.ctx) yamr_destroy(b.ctx);
        MPI_Finalize();
        return named >= 0 ? CLI_USAGE : 1;
    }
    yamr_device_info info;
    yamr_get_device_info(b.ctx, &info);
    identity id;
    identity_of(&info, &id);
    FILE *csv = NULL;
    if (out && b.rank == 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s/mpi.csv", out);
        csv = cli_make_out_dir("mpi", out) ? NULL : fopen(path, "w");
        if (csv)
            fprintf(csv, "case,shape,ranks,device,yamr_median_us,yamr_min_us,baseline_median_us,"
                         "baseline_min_us,ratio\n");
        else
            fprintf(stderr, "yamr-bench mpi: cannot write %s: %s\n", path, strerror(errno));
    }
    if (!same_everywhere(&b, !out || b.rank != 0 || csv)) {
        yamr_destroy(b.ctx);
        MPI_Finalize();
        return 1;
    }
    if (b.rank == 0) {
        char name[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        MPI_Get_library_version(name, &len);
        name[strcspn(name, "\n")] = 0;
        printf("yamr-bench mpi: %d ranks on %s (%s), %s; median and min of %d reps after %d, "
               "the slowest rank's time per rep, in us\n",
               b.ranks, id.device, device == YAMR_DEVICE_CPU ? "CPU backend" : "rank's GPU", name,
               reps, warmup);
        printf("%-14s %-22s %5s  %10s %10s  %10s %10s  %6s\n", "case", "shape", "ranks",
               "yamr_med", "yamr_min", "base_med", "base_min", "ratio");
    }
    char shape_rows[64];
    snprintf(shape_rows, sizeof shape_rows, "%dx%d/rank", ROWS, ROW_COLS);
    const size_t large = (size_t)1 << 28; /* the weak-scaling case, last in the table */
    const case_row cases[] = {
        {"argmax", "1/rank", yamr_argmax_call, baseline_argmax_call, 0, 1},
        {"argmax", "1048576/rank", yamr_argmax_call, baseline_argmax_call, 0, (size_t)1 << 20},
        {"rows_argmax", shape_rows, yamr_rows_call, baseline_rows_call, 1, ROW_COLS},
        {"softmax_stats", shape_rows, yamr_softmax_call, baseline_softmax_call, 2, ROW_COLS},
        {"argmax", "268435456/rank", yamr_argmax_call, baseline_argmax_call, 0, large},
    };
    const size_t count = sizeof cases / sizeof cases[0];
    /* the last global index, (ranks x large) - 1, must fit MAXLOC's int */
    const int with_large = device != YAMR_DEVICE_CPU && (uint64_t)b.ranks * large - 1 <= INT_MAX;
    int rc = 0;
    for (size_t k = 0; k < count - !with_large; ++k)
        rc |= run_case(&b, &cases[k], warmup, reps, csv, id.device);
    if (!with_large && b.rank == 0)
        printf("(%s %s not run: %s)\n", cases[count - 1].name, cases[count - 1].shape,
               device == YAMR_DEVICE_CPU ? "GPUs only" : "its global index passes MAXLOC's int");
    if (csv) fclose(csv);
    yamr_destroy(b.ctx);
    MPI_Finalize();
    return rc;
}
