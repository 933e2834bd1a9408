/* SPDX-License-Identifier: MIT */
/* The tests' host reference: plain comparisons on decoded values, independent of yamr_keys.h. */
#ifndef YAMR_TEST_REFERENCE_H
#define YAMR_TEST_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "yamr.h"

typedef struct {
    int64_t index;       /* -1 when every element is NaN under YAMR_NAN_IGNORE */
    uint64_t value_bits; /* the element at index (element 0 when index is -1) */
} ref_result;

ref_result ref_reduce(yamr_op op, yamr_dtype t, yamr_nan_policy p, const void *in, size_t n);

/* Top-k's order: the positions of row in[0, n) as a stable sort ranks them for op (largest
 * first for MAX/ARGMAX, smallest first for MIN/ARGMIN, NaNs first under YAMR_NAN_PROPAGATE and
 * left out under YAMR_NAN_IGNORE, ties by position), into order[0, returned count); the first k
 * are top-k's answer. (size_t)-1 when out of memory. Not reentrant (qsort's comparator). */
size_t ref_topk_order(yamr_op op, yamr_dtype t, yamr_nan_policy p, const void *in, size_t n,
                      int64_t *order);

/* Softmax statistics of one f32 or f64 row as stored (f32 inputs are exact in double): two
 * passes in double with libm's exp. NaN under propagate: both NaN; no element counted (every
 * element NaN under ignore): max NaN, sum 0. */
void ref_softmax_row(yamr_dtype t, const void *row, size_t n, int nan_ignore, double *max_out,
                     double *sum_out);

/* Test data. Patterns generate n elements of dtype t into out (n * size bytes). */
typedef enum {
    PATTERN_MIXED,         /* signed values with ties, and for floats NaN, +-inf, +-0.0 */
    PATTERN_FEW_NAN,       /* random signed values, a NaN or two somewhere (floats) */
    PATTERN_ALL_NEGATIVE,  /* every value < 0 */
    PATTERN_ALL_LOWEST,    /* every value -inf (floats) or the type's minimum (integers) */
    PATTERN_ALL_NAN,       /* floats only */
    PATTERN_SIGNED_ZEROS,  /* -0.0 and +0.0 (floats), 0 (integers), and negatives */
    PATTERN_COUNT
} data_pattern;

const char *pattern_name(data_pattern p);
int pattern_applies(data_pattern p, yamr_dtype t);
void fill_pattern(data_pattern p, yamr_dtype t, void *out, size_t n, uint64_t *rng);

uint64_t test_seed(void); /* YAMR_TEST_SEED, else a fixed seed; printed once */
uint64_t rng_next(uint64_t *state);

/* Whether bits of dtype t encode a NaN. */
int bits_are_nan(yamr_dtype t, uint64_t bits);
uint64_t load_bits(yamr_dtype t, const void *in, size_t i);

#endif
