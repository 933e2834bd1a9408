/* What yamr-bench's commands share: who measured (every row carries it). */
#ifndef YAMR_BENCH_COMMON_H
#define YAMR_BENCH_COMMON_H

#include <stdio.h>

#include "sweep_gpu.h"
#include "yamr.h"

#ifndef YAMR_BENCH_COMPILER
#define YAMR_BENCH_COMPILER "unknown"
#endif

typedef struct {
    char vendor[16];
    char device[256]; /* commas and quotes replaced: safe in CSV and JSON */
    char arch[64];
    int warp_size;
    int its;
} identity;

void identity_of(const yamr_device_info *d, identity *id);

/* Who measured, at the start of a result row: the identity, compiler, library version and git
 * revision (HEAD when yamr-bench was built, with -dirty for changes) as CSV fields (each followed
 * by a comma), or as the opening of a JSON object ("  {" and the fields, each followed by ", "). */
void csv_identity(FILE *f, const identity *id);
void json_identity(FILE *f, const identity *id);

/* Writes "key": v in `format` (a printf format of one double), then `sep`; null for NaN (JSON has
 * no NaN: an unmeasured number). */
void json_number(FILE *f, const char *key, double v, const char *format, const char *sep);
/* The timing fields of sweep and rows rows: median_us, min_us, gbps, pct_copy, each then ", ". */
void json_timing(FILE *f, double median_us, double min_us, double gbps, double pct_copy);
/* v in `format`, or nothing for NaN (an unmeasured number), then `sep`: a CSV field. */
void csv_number(FILE *f, double v, const char *format, const char *sep);
/* The same timing fields as CSV, each then a comma. */
void csv_timing(FILE *f, double median_us, double min_us, double gbps, double pct_copy);

/* n elements of dtype t at p (host memory) for the CPU backend, in the value ranges of the GPU
 * fill (sweep_fill): floats in [-1, 1), integers over their whole range. */
void host_fill(yamr_dtype t, void *p, size_t n, unsigned long long seed);

/* Opens PREFIX.csv and PREFIX.json for writing, both or neither; says why on failure. */
int open_results(const char *prefix, FILE **csv, FILE **json);

/* Opens GPU `device`, or the CPU backend when there is none; prints the report. */
yamr_status bench_open(int device, yamr_context **ctx, identity *id, int *on_gpu);

/* --timing isolated|queued (sweep_time's queued 0 or 1): 0, or 1 for another word. */
int bench_parse_timing(const char *word, int *queued);
/* The timing column of the results: --timing's word on a GPU, host_clock on the CPU backend. */
const char *bench_timing_name(int on_gpu, int queued);

/* Times the launch floor (sweep_launch_floor: an empty kernel, timed as the calls are) and
 * prints its line; returns 0, or 1 with the reason printed under the command's name. */
int bench_launch_floor(const char *command, int warmup, int reps, int queued, double *median_us,
                       double *min_us);

/* Times `reps` calls after `warmup` untimed ones by the host's clock (the CPU backend's calls
 * return when done); median and minimum in microseconds. Returns 0, or 1 with err set. */
int bench_time_host(sweep_call call, void *arg, int warmup, int reps, double *median_us,
                    double *min_us, char *err, size_t errlen);

/* yamr-bench sweep [options] */
int run_sweep(int argc, char **argv);
/* yamr-bench rows [options]: the batched reductions (rows.c) */
int run_rows(int argc, char **argv);
/* yamr-bench mpi [options], under mpiexec: the MPI layer against a user's MAXLOC (mpi.c) */
int run_mpi(int argc, char **argv);

#endif
