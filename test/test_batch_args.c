/* SPDX-License-Identifier: MIT */
/* Bad arguments of the batched calls: the status, and nothing written. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "batch_fixture.h"
#include "yamr_internal.h"

/* ---- bad arguments: the status, and nothing written ---- */

typedef enum { API_ROWS, API_SEGMENTS, API_SOFTMAX } api_kind;

enum { NULL_CTX = 1, NULL_IN = 2, NULL_VALUES = 4, NULL_SECOND = 8, NULL_OFFSETS = 16 };

typedef struct {
    const char *what;
    api_kind api;
    yamr_status expect;
    int nulls; /* which pointers are NULL */
    int op, dtype;
    size_t rows, cols, ld; /* segments: rows is the count */
} bad_case;

#define INVALID YAMR_ERROR_INVALID_VALUE
#define F32 YAMR_DTYPE_F32
#define OK_ROWS 4, 8, 8
static const bad_case bad_cases[] = {
    {"rows: NULL context", API_ROWS, INVALID, NULL_CTX, YAMR_OP_MAX, F32, OK_ROWS},
    {"rows: op out of range", API_ROWS, INVALID, 0, YAMR_OP_COUNT, F32, OK_ROWS},
    {"rows: negative op", API_ROWS, INVALID, 0, -1, F32, OK_ROWS},
    {"rows: dtype out of range", API_ROWS, INVALID, 0, YAMR_OP_MAX, YAMR_DTYPE_COUNT, OK_ROWS},
    {"rows: NULL input", API_ROWS, INVALID, NULL_IN, YAMR_OP_MAX, F32, OK_ROWS},
    {"rows: NULL values", API_ROWS, INVALID, NULL_VALUES, YAMR_OP_ARGMAX, F32, OK_ROWS},
    {"rows: argmax without indices", API_ROWS, INVALID, NULL_SECOND, YAMR_OP_ARGMAX, F32, OK_ROWS},
    {"rows: argmin without indices", API_ROWS, INVALID, NULL_SECOND, YAMR_OP_ARGMIN, YAMR_DTYPE_I64,
     OK_ROWS},
    {"rows: rows == 0", API_ROWS, INVALID, 0, YAMR_OP_MAX, F32, 0, 8, 8},
    {"rows: cols == 0", API_ROWS, INVALID, 0, YAMR_OP_MAX, F32, 4, 0, 8},
    {"rows: ld < cols", API_ROWS, INVALID, 0, YAMR_OP_MAX, F32, 4, 8, 7},
    {"rows: size overflows", API_ROWS, INVALID, 0, YAMR_OP_MAX, YAMR_DTYPE_F64, 1u << 20, 8,
     (size_t)1 << 44},
    {"segments: NULL context", API_SEGMENTS, INVALID, NULL_CTX, YAMR_OP_MAX, F32, 4, 0, 0},
    {"segments: op out of range", API_SEGMENTS, INVALID, 0, YAMR_OP_COUNT, F32, 4, 0, 0},
    {"segments: dtype out of range", API_SEGMENTS, INVALID, 0, YAMR_OP_MAX, -1, 4, 0, 0},
    {"segments: NULL input", API_SEGMENTS, INVALID, NULL_IN, YAMR_OP_MAX, F32, 4, 0, 0},
    {"segments: NULL offsets", API_SEGMENTS, INVALID, NULL_OFFSETS, YAMR_OP_MAX, F32, 4, 0, 0},
    {"segments: segments == 0", API_SEGMENTS, INVALID, 0, YAMR_OP_MAX, F32, 0, 0, 0},
    {"segments: NULL values", API_SEGMENTS, INVALID, NULL_VALUES, YAMR_OP_MIN, YAMR_DTYPE_U32, 4, 0,
     0},
    {"segments: argmax without indices", API_SEGMENTS, INVALID, NULL_SECOND, YAMR_OP_ARGMAX,
     YAMR_DTYPE_BF16, 4, 0, 0},
    {"softmax: NULL context", API_SOFTMAX, INVALID, NULL_CTX, 0, F32, OK_ROWS},
    {"softmax: dtype out of range", API_SOFTMAX, INVALID, 0, 0, YAMR_DTYPE_COUNT, OK_ROWS},
    {"softmax: NULL input", API_SOFTMAX, INVALID, NULL_IN, 0, YAMR_DTYPE_F64, OK_ROWS},
    {"softmax: NULL row_max", API_SOFTMAX, INVALID, NULL_VALUES, 0, F32, OK_ROWS},
    {"softmax: NULL row_sum", API_SOFTMAX, INVALID, NULL_SECOND, 0, F32, OK_ROWS},
    {"softmax: rows == 0", API_SOFTMAX, INVALID, 0, 0, F32, 0, 8, 8},
    {"softmax: cols == 0", API_SOFTMAX, INVALID, 0, 0, F32, 4, 0, 8},
    {"softmax: ld < cols", API_SOFTMAX, INVALID, 0, 0, YAMR_DTYPE_F64, 4, 8, 2},
    {"softmax: i32 input", API_SOFTMAX, YAMR_ERROR_UNSUPPORTED, 0, 0, YAMR_DTYPE_I32, OK_ROWS},
    {"softmax: f16 input", API_SOFTMAX, YAMR_ERROR_UNSUPPORTED, 0, 0, YAMR_DTYPE_F16, OK_ROWS},
    {"softmax: i32, rows == 0 (arguments first)", API_SOFTMAX, INVALID, 0, 0, YAMR_DTYPE_I32, 0, 8,
     8},
};
#define BAD_CASE_COUNT (sizeof bad_cases / sizeof bad_cases[0])

/* What yamr_last_error() says for a case, by the end of its name. */
static const char *message_of(const char *what)
{
    static const struct {
        const char *what_ends, *says;
    } messages[] = {
        {"NULL context", "ctx is NULL"},      {"op out of range", "op (4)"},
        {"negative op", "op (-1)"},           {"dtype out of range", "dtype ("},
        {"NULL input", "in is NULL"},         {"NULL values", "values is NULL"},
        {"without indices", "indices is NULL"}, {"rows == 0", "rows is 0"},
        {"rows == 0 (arguments first)", "rows is 0"}, {"cols == 0", "cols is 0"},
        {"ld < cols", "ld ("},                {"size overflows", "overflow"},
        {"NULL offsets", "offsets is NULL"},  {"segments == 0", "segments is 0"},
        {"NULL row_max", "row_max is NULL"},  {"NULL row_sum", "row_sum is NULL"},
        {"input", "is not supported"},
    };
    const size_t len = strlen(what);
    for (size_t k = 0; k < sizeof messages / sizeof messages[0]; ++k) {
        const size_t end = strlen(messages[k].what_ends);
        if (len >= end && strcmp(what + len - end, messages[k].what_ends) == 0)
            return messages[k].says;
    }
    return "(no message listed for this case)";
}

void test_bad_arguments_write_nothing(void **state)
{
    (void)state;
    for (size_t k = 0; k < 4 * 8; ++k) store_bits(YAMR_DTYPE_F32, host_in, k, 0x3f800000u);
    assert_int_equal(yamr_copy_to_device(ctx, ctx_in, host_in, 4 * 8 * 4), YAMR_SUCCESS);
    const int64_t offsets[5] = {0, 1, 2, 3, 4};
    assert_int_equal(yamr_copy_to_device(ctx, ctx_offsets, offsets, sizeof offsets), YAMR_SUCCESS);
    for (size_t i = 0; i < BAD_CASE_COUNT; ++i)
        for (int async = 0; async < 2; ++async) {
            const bad_case *c = &bad_cases[i];
            yamr_context *x = c->nulls & NULL_CTX ? NULL : ctx;
            const void *in = c->nulls & NULL_IN ? NULL : ctx_in;
            void *values = c->nulls & NULL_VALUES ? NULL : ctx_values;
            void *second = c->nulls & NULL_SECOND ? NULL : ctx_second;
            const int64_t *offs = c->nulls & NULL_OFFSETS ? NULL : (const int64_t *)ctx_offsets;
            poison_outputs();
            yamr_status s = YAMR_SUCCESS;
            switch (c->api) {
            case API_ROWS:
                s = (async ? yamr_reduce_rows_async
                           : yamr_reduce_rows)(x, (yamr_op)c->op, (yamr_dtype)c->dtype, in, c->rows,
                                               c->cols, c->ld, values, (int64_t *)second);
                break;
            case API_SEGMENTS:
                s = (async ? yamr_reduce_segments_async
                           : yamr_reduce_segments)(x, (yamr_op)c->op, (yamr_dtype)c->dtype, in,
                                                   offs, c->rows, values, (int64_t *)second);
                break;
            case API_SOFTMAX:
                s = (async ? yamr_softmax_stats_rows_async : yamr_softmax_stats_rows)(
                    x, (yamr_dtype)c->dtype, in, c->rows, c->cols, c->ld, values, second);
                break;
            }
            if (s != c->expect)
                failf("%s (%s): got %s, expected %s", c->what, async ? "async" : "sync",
                      yamr_status_string(s), yamr_status_string(c->expect));
            /* yamr_last_error() names the function and the argument */
            static const char *const fns[3] = {"yamr_reduce_rows", "yamr_reduce_segments",
                                               "yamr_softmax_stats_rows"};
            char fn[64];
            snprintf(fn, sizeof fn, "%s%s: ", fns[c->api], async ? "_async" : "");
            const char *msg = yamr_last_error(x);
            if (!strstr(msg, fn) || !strstr(msg, message_of(c->what)))
                failf("%s (%s): yamr_last_error() says \"%s\", expected \"%s...%s\"", c->what,
                      async ? "async" : "sync", msg, fn, message_of(c->what));
            fetch_outputs();
            if (!untouched(host_values, 0, (MAX_ROWS + GUARD) * 8) ||
                !untouched(host_second, 0, (MAX_ROWS + GUARD) * 8))
                failf("%s (%s): wrote to an output", c->what, async ? "async" : "sync");
        }
    end_test("bad arguments");
}
