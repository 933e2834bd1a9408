/* SPDX-License-Identifier: MIT */
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

/* The threads the CPU backend gives a call that reads `bytes` (its own rule, cpu_backend.h:
 * OpenMP's count, at most one per 256 KiB; 1 without OpenMP). The ceilings below use as many, so
 * that yamr is compared with a read or a copy that has the same threads. */
int host_threads_for(size_t bytes);

/* The last-level cache of this CPU in bytes (sysconf; 32 MiB when it does not say). */
size_t host_cache_bytes(void);

/* Reads `bytes` of host memory at src and nothing else, split over host_threads_for(bytes)
 * threads as the CPU backend splits an array: the CPU backend's read ceiling. Returns the XOR of
 * the 8-byte words it read, so that the reads are not optimised away (this file is compiled apart
 * from its callers). */
uint64_t host_read(const void *src, size_t bytes);

/* memcpy of `bytes`, split over host_threads_for(bytes) threads: the CPU's copy ceiling. */
void host_copy(void *dst, const void *src, size_t bytes);

/* Opens PREFIX.csv and PREFIX.json for writing, both or neither, creating PREFIX's folder (the
 * --out folder) when missing; says why on failure. */
int open_results(const char *prefix, FILE **csv, FILE **json);

/* Opens `device` as cli_open() does (cli.h: a GPU named with --device must open) and fills id;
 * prints the device report on `out` when `device_report` is set. 0, CLI_USAGE or 1. */
int bench_open(const char *command, int device, FILE *out, int device_report, yamr_context **ctx,
               identity *id, int *on_gpu);

/* The timing column of the results: --timing's word on a GPU, host_clock on the CPU backend. */
const char *bench_timing_name(int on_gpu, int queued);

/* Times the launch floor (sweep_launch_floor: an empty kernel, timed as the calls are) and
 * prints its lines on `out`; returns 0, or 1 with the reason printed under the command's name. */
int bench_launch_floor(const char *command, FILE *out, int warmup, int reps, int queued,
                       double *median_us, double *min_us);

/* Times `reps` calls after `warmup` untimed ones by the host's clock (the CPU backend's calls
 * return when done), in microseconds. Returns 0, or 1 with err set. */
int bench_time_host(sweep_call call, void *arg, int warmup, int reps, sweep_times *t, char *err,
                    size_t errlen);

#endif
