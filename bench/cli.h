/* SPDX-License-Identifier: MIT */
/*
 * yamr-bench's command line, one way for every subcommand: getopt_long underneath, and one style
 * of refusal (one line on stderr naming the subcommand, exit status 2, before any work starts).
 *
 *   - numbers are whole words in a stated range ("10x", "-5" and "abc" are refused);
 *   - lists are comma-separated, each item checked, none given twice;
 *   - --out is a folder, checked writable (or creatable: its parent must exist) before any
 *     work, and created only when the first result is written;
 *   - --device names a GPU that must open (or "cpu"); left out, GPU 0 when it opens, else the
 *     CPU backend, with one line saying why;
 *   - progress is one line on stderr while stderr is a terminal, nothing otherwise.
 */
#ifndef YAMR_BENCH_CLI_H
#define YAMR_BENCH_CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

#include "yamr.h"

/* The exit status of a refused command line. */
#define CLI_USAGE 2

/* --device left out: GPU 0 when it opens, else the CPU backend. */
#define CLI_DEVICE_ANY (-2)

/* The value getopt_long returns for the options every subcommand shares (--help is also -h), then
 * for the timing options of the subcommands that time calls (below). */
enum {
    CLI_OPT_HELP = 'h',
    CLI_OPT_OUT = 1000,
    CLI_OPT_DEVICE,
    CLI_OPT_REPS,
    CLI_OPT_WARMUP,
    CLI_OPT_TIMING,
    CLI_OPT_INPUTS,
    CLI_OPT_FIRST_OWN
};

/* The shared options' rows of a subcommand's getopt_long table. */
#define CLI_OPTION_HELP {"help", no_argument, NULL, CLI_OPT_HELP}
#define CLI_OPTION_OUT {"out", required_argument, NULL, CLI_OPT_OUT}
#define CLI_OPTION_DEVICE {"device", required_argument, NULL, CLI_OPT_DEVICE}
#define CLI_OPTION_END {NULL, 0, NULL, 0}

/*
 * The timing options of sweep and rows: --reps N (timed calls, 1..100000), --warmup N (untimed
 * calls first, 0..100000), --timing isolated|queued (sweep_time's queued 0 or 1) and --inputs
 * rotated|resident. The subcommand sets the defaults before the parse and documents --reps and
 * --warmup (their defaults differ); CLI_USAGE_TIMING is the usage of the other two.
 */
typedef struct {
    int reps, warmup, queued, resident;
} cli_timing;
#define CLI_OPTIONS_TIMING                                                                       \
    {"reps", required_argument, NULL, CLI_OPT_REPS},                                             \
        {"warmup", required_argument, NULL, CLI_OPT_WARMUP},                                     \
        {"timing", required_argument, NULL, CLI_OPT_TIMING},                                     \
        {"inputs", required_argument, NULL, CLI_OPT_INPUTS}
#define CLI_USAGE_TIMING                                                                         \
    "  --timing T      isolated (default): an event pair around each call as it is launched;\n" \
    "                  queued: the stream is held while the calls are launched, so that no\n"   \
    "                  call waits for the host (sweep_gpu.h)\n"                                  \
    "  --inputs I      rotated (default): inputs under twice the L2 (the CPU's last-level\n"   \
    "                  cache) rotate over copies it cannot hold; resident: one copy, which\n"   \
    "                  the cache may hold\n"
/* Takes option `opt` (cli_next's value) with its value `text` into *t: 0, or CLI_USAGE when it is
 * refused (said as cli_int and cli_name do) or is not a timing option. */
int cli_timing_option(const char *command, int opt, const char *text, cli_timing *t);

/*
 * The next option of `argv` (argv[0] is the subcommand's name), as getopt_long gives it, or -1
 * after the last one; an unknown option or one without its value prints one line under
 * `command` and gives '?'. Call with *optind_reset set to 1 before the first call of a parse
 * (getopt's state is reset then); the operands (non-options) are argv[optind..argc) afterwards.
 */
int cli_next(const char *command, int argc, char **argv, const struct option *options,
             int *optind_reset);

/* Refuses the operands argv[first..argc) of a subcommand that takes none; 0 when there are none. */
int cli_no_operands(const char *command, int argc, char **argv, int first);

/* Prints "yamr-bench COMMAND: <message>" on stderr and returns CLI_USAGE. */
int cli_refuse(const char *command, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* `text` as a whole decimal integer in [lo, hi], or a refusal naming `option`: 0 or 1. */
int cli_int(const char *command, const char *option, const char *text, long long lo, long long hi,
            long long *value);
/* A comma-separated list of such integers: at most `max`, at least one. */
int cli_int_list(const char *command, const char *option, const char *text, long long lo,
                 long long hi, long long *values, int max, int *count);
/* A comma-separated list of names out of names[0..name_count) (NULL entries are not offered):
 * their indices, at most `max`, at least one. */
int cli_name_list(const char *command, const char *option, const char *text,
                  const char *const *names, int name_count, int *values, int max, int *count);
/* One name out of names[0..name_count): its index. */
int cli_name(const char *command, const char *option, const char *text, const char *const *names,
             int name_count, int *value);

/* --device: a GPU ordinal (0 and up) or "cpu" (YAMR_DEVICE_CPU). */
int cli_device(const char *command, const char *text, int *device);

/* Checks that `dir` is a folder this process can write into, or a missing one it can create
 * (its parent exists and is writable): 0, or a refusal (CLI_USAGE) with the reason. Creates
 * nothing: a command makes the folder when it writes its first result (cli_make_out_dir), so
 * that a refused or failed run leaves no empty folder behind. */
int cli_out_dir(const char *command, const char *dir);
/* Creates `dir` (checked by cli_out_dir) when missing: 0, or 1 with the reason on stderr. */
int cli_make_out_dir(const char *command, const char *dir);

/* The reason a GPU did not open, as a report says it: the library's words, or in a CPU-only
 * build "a CPU-only build of yamr" (asking it for a GPU is no error to explain). */
const char *cli_no_gpu_why(const char *why);

/* Opens `device` (CLI_DEVICE_ANY, YAMR_DEVICE_CPU or a GPU ordinal). A GPU named with --device
 * that does not open is a refusal (CLI_USAGE) with the library's reason; CLI_DEVICE_ANY falls
 * back to the CPU backend and says so, and why, in one line on `say`. 0, CLI_USAGE or 1 (the
 * CPU backend failed too). */
int cli_open(const char *command, int device, FILE *say, yamr_context **ctx, int *on_gpu);

/* One line of progress on stderr: "COMMAND: done/total WHAT, elapsed s", redrawn in place, while
 * stderr is a terminal; nothing otherwise. Clear it before printing to a terminal's stdout. */
typedef struct {
    const char *command, *what;
    int done, total, tty;
    double started; /* seconds, monotonic */
} cli_progress;

void cli_progress_start(cli_progress *p, const char *command, const char *what, int total);
void cli_progress_step(cli_progress *p);
/* Erases the line (it is drawn again at the next step). */
void cli_progress_clear(const cli_progress *p);

#endif
