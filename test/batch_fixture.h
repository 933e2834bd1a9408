/* SPDX-License-Identifier: MIT */
/*
 * The batched tests' fixture (test_rows): one context on the CPU backend or GPU 0, its buffers,
 * the failure log, the data patterns, the poisoning of outputs and the answer checks shared by
 * the rows, segments, softmax, bad-argument and plan tests.
 */
#ifndef YAMR_TEST_BATCH_FIXTURE_H
#define YAMR_TEST_BATCH_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "reference.h"
#include "yamr.h"

#define MAX_ELEMS 1100000 /* input elements, any dtype */
#define MAX_ROWS 4096     /* output entries */
#define GUARD 4           /* poisoned entries past the last row */
#define POISON 0xa5

extern int device; /* YAMR_DEVICE_CPU or 0 */
extern yamr_context *ctx;
extern unsigned char *host_in;   /* MAX_ELEMS * 8 */
extern int64_t *host_offsets;    /* MAX_ROWS + 1 */
extern void *ctx_in, *ctx_values, *ctx_second, *ctx_offsets; /* the context's memory */
extern unsigned char *host_values, *host_second;
extern int shape_used[YAMR_ROWS_SHAPE_COUNT];

/* One line per failing case (the first 60 printed); end_test fails the test if any case did. */
void failf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
void end_test(const char *name);

const char *op_name(yamr_op op);
const char *policy_name(int p);
int is_float(yamr_dtype t);
void store_bits(yamr_dtype t, void *base, size_t i, uint64_t b);
uint64_t poison_element(yamr_dtype t, size_t i);
uint64_t empty_bits(yamr_dtype t);
void fill(int mode, yamr_dtype t, void *out, size_t n, uint64_t *rng);
const char *mode_name(int mode);
void poison_outputs(void);
void fetch_outputs(void);
int untouched(const unsigned char *p, size_t from, size_t to);
void check_answer(const char *what, size_t row, yamr_dtype t, ref_result r, uint64_t got,
                  int64_t got_index, int with_index);
void note_shape(yamr_call call, yamr_op op, yamr_dtype t, size_t rows, size_t cols,
                const char *what);

typedef struct {
    size_t rows, cols, ld;
    size_t skew; /* elements between the allocation's start and `in`: misaligned rows */
} matrix_case;
/* One column, one row, around warp widths, ld > cols, misaligned rows, long and many rows. */
extern const matrix_case matrices[];
extern const size_t matrix_count;
/* Elements from the allocation's start to the end of the last row. */
size_t matrix_elems(const matrix_case *m);

/* The tests, one file per area. */
void test_rows_reduce(void **state);
void test_report_names_last_batch(void **state);
void test_segments_reduce(void **state);
void test_softmax_stats(void **state);
void test_bad_arguments_write_nothing(void **state);
void test_shape_choice(void **state);
void test_policy_table(void **state);

#endif
