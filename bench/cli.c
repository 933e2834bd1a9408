/* SPDX-License-Identifier: MIT */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int cli_refuse(const char *command, const char *format, ...)
{
    va_list args;
    fprintf(stderr, "yamr-bench %s: ", command);
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    return CLI_USAGE;
}

/* Whether the long option name[0..end) (a prefix, as getopt_long takes it) is one of `options`
 * that takes no value: "--help=x" is refused as such rather than as getopt's "-h". */
static int takes_no_value(const struct option *options, const char *name, const char *end)
{
    const size_t length = (size_t)(end - name);
    for (const struct option *o = options; o->name; ++o)
        if (!strncmp(o->name, name, length) && o->has_arg == no_argument) return 1;
    return 0;
}

int cli_next(const char *command, int argc, char **argv, const struct option *options,
             int *optind_reset)
{
    if (*optind_reset) {
        optind = 0; /* glibc: 0 re-initialises getopt's whole state (1 keeps its scan position) */
        *optind_reset = 0;
    }
    opterr = 0;
    /* ':' first: a missing value gives ':' rather than '?', so the two are told apart */
    const int c = getopt_long(argc, argv, ":h", options, NULL);
    if (c == '?' || c == ':') {
        const char *word = argv[optind - 1];
        const char *equals = strchr(word, '=');
        if (c == ':')
            cli_refuse(command, "option '%s' needs a value", word);
        else if (!strncmp(word, "--", 2) && equals && takes_no_value(options, word + 2, equals))
            cli_refuse(command, "option '%.*s' takes no value (yamr-bench %s --help lists them)",
                       (int)(equals - word), word, command);
        else if (!strncmp(word, "--", 2))
            cli_refuse(command, "unknown option '%s' (yamr-bench %s --help lists them)", word,
                       command);
        else if (optopt && optopt != '?')
            cli_refuse(command, "unknown option '-%c' (yamr-bench %s --help lists them)", optopt,
                       command);
        else
            cli_refuse(command, "unknown option '%s' (yamr-bench %s --help lists them)", word,
                       command);
        return '?';
    }
    return c;
}

int cli_no_operands(const char *command, int argc, char **argv, int first)
{
    if (first >= argc) return 0;
    cli_refuse(command, "unexpected argument '%s' (yamr-bench %s --help lists the options)",
               argv[first], command);
    return CLI_USAGE;
}

static int parse_whole(const char *text, long long *value)
{
    char *end;
    errno = 0;
    const long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end) return 1;
    *value = v;
    return 0;
}

int cli_int(const char *command, const char *option, const char *text, long long lo, long long hi,
            long long *value)
{
    long long v;
    if (parse_whole(text, &v) || v < lo || v > hi) {
        cli_refuse(command, "%s takes a whole number in %lld..%lld, not '%s'", option, lo, hi,
                   text);
        return 1;
    }
    *value = v;
    return 0;
}

/* Calls item(i, word) for each comma-separated word of text; 1 at the first that fails. */
static int each_item(const char *command, const char *option, const char *text, int max,
                     int *count, int (*item)(void *, int, const char *), void *arg)
{
    char *copy = strdup(text);
    if (!copy) return 1;
    int n = 0, failed = 0;
    char *word = copy;
    for (;;) {
        char *comma = strchr(word, ',');
        if (comma) *comma = '\0';
        if (!*word) {
            cli_refuse(command, "%s: an empty item in '%s'", option, text);
            failed = 1;
        } else if (n == max) {
            cli_refuse(command, "%s takes at most %d items", option, max);
            failed = 1;
        } else {
            failed = item(arg, n++, word);
        }
        if (failed || !comma) break;
        word = comma + 1;
    }
    free(copy);
    *count = n;
    return failed;
}

typedef struct {
    const char *command, *option;
    long long lo, hi, *values;
    const char *const *names;
    int name_count, *indices;
} item_arg;

static int int_item(void *p, int i, const char *word)
{
    item_arg *a = (item_arg *)p;
    return cli_int(a->command, a->option, word, a->lo, a->hi, &a->values[i]);
}

int cli_int_list(const char *command, const char *option, const char *text, long long lo,
                 long long hi, long long *values, int max, int *count)
{
    item_arg a = {command, option, lo, hi, values, NULL, 0, NULL};
    if (each_item(command, option, text, max, count, int_item, &a)) return 1;
    for (int i = 1; i < *count; ++i)
        for (int j = 0; j < i; ++j)
            if (values[i] == values[j]) {
                cli_refuse(command, "%s: %lld given twice in '%s'", option, values[i], text);
                return 1;
            }
    return 0;
}

int cli_name(const char *command, const char *option, const char *text, const char *const *names,
             int name_count, int *value)
{
    for (int i = 0; i < name_count; ++i)
        if (names[i] && !strcmp(text, names[i])) {
            *value = i;
            return 0;
        }
    char offered[512] = "";
    size_t used = 0;
    for (int i = 0; i < name_count; ++i)
        if (names[i] && used < sizeof offered) {
            const int w = snprintf(offered + used, sizeof offered - used, "%s%s", used ? ", " : "",
                                   names[i]);
            used += w > 0 ? (size_t)w : 0;
        }
    cli_refuse(command, "%s: unknown name '%s' (one of: %s)", option, text, offered);
    return 1;
}

static int name_item(void *p, int i, const char *word)
{
    item_arg *a = (item_arg *)p;
    return cli_name(a->command, a->option, word, a->names, a->name_count, &a->indices[i]);
}

int cli_name_list(const char *command, const char *option, const char *text,
                  const char *const *names, int name_count, int *values, int max, int *count)
{
    item_arg a = {command, option, 0, 0, NULL, names, name_count, values};
    if (each_item(command, option, text, max, count, name_item, &a)) return 1;
    for (int i = 1; i < *count; ++i)
        for (int j = 0; j < i; ++j)
            if (values[i] == values[j]) {
                cli_refuse(command, "%s: '%s' given twice in '%s'", option, names[values[i]], text);
                return 1;
            }
    return 0;
}

int cli_timing_option(const char *command, int opt, const char *text, cli_timing *t)
{
    static const char *const timing_names[] = {"isolated", "queued"};
    static const char *const input_names[] = {"rotated", "resident"};
    long long n;
    switch (opt) {
    case CLI_OPT_REPS:
        if (cli_int(command, "--reps", text, 1, 100000, &n)) return CLI_USAGE;
        t->reps = (int)n;
        return 0;
    case CLI_OPT_WARMUP:
        if (cli_int(command, "--warmup", text, 0, 100000, &n)) return CLI_USAGE;
        t->warmup = (int)n;
        return 0;
    case CLI_OPT_TIMING:
        return cli_name(command, "--timing", text, timing_names, 2, &t->queued) ? CLI_USAGE : 0;
    case CLI_OPT_INPUTS:
        return cli_name(command, "--inputs", text, input_names, 2, &t->resident) ? CLI_USAGE : 0;
    default: return CLI_USAGE;
    }
}

int cli_device(const char *command, const char *text, int *device)
{
    long long d;
    if (!strcmp(text, "cpu")) {
        *device = YAMR_DEVICE_CPU;
        return 0;
    }
    if (parse_whole(text, &d) || d < 0 || d > INT_MAX) {
        cli_refuse(command, "--device takes a GPU ordinal (0, 1, ...) or 'cpu', not '%s'", text);
        return 1;
    }
    *device = (int)d;
    return 0;
}

int cli_out_dir(const char *command, const char *dir)
{
    struct stat st;
    if (!*dir) return cli_refuse(command, "--out needs a folder name");
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return cli_refuse(command,
                              "--out %s: not a folder (--out names the folder results go to)", dir);
        if (access(dir, W_OK | X_OK) != 0)
            return cli_refuse(command, "--out %s: cannot write into it: %s", dir, strerror(errno));
        return 0;
    }
    /* missing: its parent must be a folder this process can create it in (it is created when
     * the first result is written, cli_make_out_dir, so that a refused or failed run leaves none) */
    int why = errno;
    if (why == ENOENT) {
        char parent[4096];
        snprintf(parent, sizeof parent, "%s", dir);
        size_t end = strlen(parent);
        while (end > 1 && parent[end - 1] == '/') parent[--end] = '\0';
        char *slash = strrchr(parent, '/');
        if (!slash)
            snprintf(parent, sizeof parent, ".");
        else
            slash[slash == parent] = '\0'; /* "/x": the parent is "/" */
        if (stat(parent, &st) != 0)
            why = errno;
        else if (!S_ISDIR(st.st_mode))
            why = ENOTDIR;
        else if (access(parent, W_OK | X_OK) != 0)
            why = errno;
        else
            return 0;
    }
    return cli_refuse(command, "--out %s: cannot create the folder: %s%s", dir, strerror(why),
                      why == ENOENT ? " (its parent folder must exist)" : "");
}

int cli_make_out_dir(const char *command, const char *dir)
{
    if (mkdir(dir, 0777) == 0 || errno == EEXIST) return 0;
    fprintf(stderr, "yamr-bench %s: cannot create the folder %s: %s\n", command, dir,
            strerror(errno));
    return 1;
}

const char *cli_no_gpu_why(const char *why)
{
    return strcmp(YAMR_PLATFORM_STRING, "cpu") ? why : "a CPU-only build of yamr";
}

int cli_open(const char *command, int device, FILE *say, yamr_context **ctx, int *on_gpu)
{
    char why[512];
    const int want = device == CLI_DEVICE_ANY ? 0 : device;
    yamr_status s = yamr_create_ex(ctx, want, why, sizeof why);
    *on_gpu = want != YAMR_DEVICE_CPU && s == YAMR_SUCCESS;
    if (s == YAMR_SUCCESS) return 0;
    if (device != CLI_DEVICE_ANY)
        return cli_refuse(command, "--device %d: %s", device, why);
    fprintf(say, "No GPU (%s): the CPU backend.\n", cli_no_gpu_why(why));
    s = yamr_create_ex(ctx, YAMR_DEVICE_CPU, why, sizeof why);
    if (s == YAMR_SUCCESS) return 0;
    fprintf(stderr, "yamr-bench %s: the CPU backend: %s (%s)\n", command, why,
            yamr_status_string(s));
    return 1;
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void cli_progress_start(cli_progress *p, const char *command, const char *what, int total)
{
    p->command = command;
    p->what = what;
    p->done = 0;
    p->total = total;
    p->tty = isatty(STDERR_FILENO);
    p->started = seconds_now();
}

void cli_progress_step(cli_progress *p)
{
    ++p->done;
    if (!p->tty) return;
    fprintf(stderr, "\r\033[K%s: %d/%d %s, %.0f s", p->command, p->done, p->total, p->what,
            seconds_now() - p->started);
    if (p->done == p->total) fputs("\r\033[K", stderr);
    fflush(stderr);
}

void cli_progress_clear(const cli_progress *p)
{
    if (!p->tty) return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
}
