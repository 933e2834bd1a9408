/* SPDX-License-Identifier: MIT */
/*
 * yamr-bench's subcommands. Each parses its own argv (argv[0] is the subcommand's name) with
 * cli.h and returns the exit status: 0, 1 when the run failed, CLI_USAGE (2) when the command
 * line was refused (before any work). The *_command forms are what `report` runs: the tables go
 * to `out`, the device report only when `device_report` is set, and what the summary needs is
 * kept in `kept` (when not NULL; the caller frees its rows).
 */
#ifndef YAMR_BENCH_COMMANDS_H
#define YAMR_BENCH_COMMANDS_H

#include <stdio.h>

#include "bench_common.h"
#include "race_lab.h"

typedef struct {
    FILE *out;
    int device_report;
} bench_output;

/* ---- race (lab/race/race.c) ---- */

typedef struct {
    identity id;
    char source[16];  /* "gpu" or "simulator" */
    char variant[40]; /* a yamr variant, or the simulator's sim_<mode>[_<policy>] */
    int threads;
    char order[16];
    race_measure m;
} race_row;

typedef struct {
    race_row *rows;
    int count;
    int on_gpu;
} race_results;

int race_command(int argc, char **argv, const bench_output *o, race_results *kept);
int run_race(int argc, char **argv);
int run_merge(int argc, char **argv);
/* The merge of race result files into `dir` (table and plots), as `merge` does; says what it
 * wrote on `out`. 0, CLI_USAGE for a file that is not race results (nothing written), or 1. */
int race_merge_files(const char *dir, char **files, int nfiles, FILE *out);

/* ---- sweep (bench/sweep.c) ---- */

/* A case whose median call took this many times its fastest one was timed on a busy machine
 * (on a quiet one the two are within a few tens of percent): flagged, and said in the summary. */
#define BUSY_SPREAD 1.5

typedef struct {
    char dtype[8], op[8], impl[24];
    size_t n;
    double median_us, min_us, max_us, mean_us, gbps, pct_copy, vs_baseline;
    int reps;
    size_t copies; /* of the input that the calls rotate over (0: reads none) */
    int busy;      /* the median over BUSY_SPREAD times the fastest call: a busy machine */
    int in_cache;  /* the inputs the calls rotate over fit the last-level cache (the L2 of a
                      GPU): the row may pass the copy ceiling, which is memory's */
} sweep_row;

typedef struct {
    sweep_row *rows;
    int count;
    int on_gpu;
    double copy_gbps;
    int copy_busy; /* the copy ceiling's spread said the machine was busy */
    char baseline[32]; /* "cub", or "" without a vendor baseline */
    char timing[16];
} sweep_results;

int sweep_command(int argc, char **argv, const bench_output *o, sweep_results *kept);
int run_sweep(int argc, char **argv);

/* ---- rows (bench/rows.c) ---- */

int run_rows(int argc, char **argv);

/* ---- topk (bench/topk.c) ---- */

int run_topk(int argc, char **argv);

/* ---- latency (bench/latency.c) ---- */

int run_latency(int argc, char **argv);

/* ---- mpi (bench/mpi.c; bench/mpi_none.c in builds without the MPI layer) ---- */

int run_mpi(int argc, char **argv);

#endif
