/* SPDX-License-Identifier: MIT */
/*
 * Argument checks that name what they refuse. A failed check writes "<function>: <argument and
 * why>" where yamr_last_error() finds it: the context's buffer, or the calling thread's own when
 * there is no context to hold it (a NULL ctx, yamr_create(), yamr_plan_for()'s const context).
 * The size and enum checks of each call are one function, which the call and yamr_plan_for()
 * both use, so that a plan is refused exactly where the call is.
 */
#ifndef YAMR_CHECKS_H
#define YAMR_CHECKS_H

#include <stddef.h>
#include <stdint.h>

#include "yamr.h"

#if defined(__GNUC__)
#define YAMR__PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define YAMR__PRINTF(fmt, args)
#endif

/* Returns `status` after writing the message to err[errlen], or to this thread's buffer when err
 * is NULL. */
yamr_status yamr__fail(yamr_status status, char *err, size_t errlen, const char *fmt, ...)
    YAMR__PRINTF(4, 5);
/* The thread's buffer: yamr_last_error(NULL). */
const char *yamr__thread_error(void);

/* Whether a rows x cols matrix with leading dimension ld of elem-byte elements is a size the
 * batched calls accept (every offset fits an int64_t). */
int yamr__matrix_ok(size_t rows, size_t cols, size_t ld, size_t elem);
/* The checks of each call that need no pointer: enums, sizes (and for softmax statistics the
 * dtypes it supports). `fn` names the entry point in the message. */
yamr_status yamr__check_reduce(const char *fn, yamr_op op, yamr_dtype dtype, size_t n, char *err,
                               size_t errlen); /* reduce.c; minmax too */
yamr_status yamr__check_rows(const char *fn, yamr_op op, yamr_dtype dtype, size_t rows,
                             size_t cols, size_t ld, char *err, size_t errlen); /* rows.c */
yamr_status yamr__check_segments(const char *fn, yamr_op op, yamr_dtype dtype, size_t segments,
                                 char *err, size_t errlen); /* rows.c */
yamr_status yamr__check_softmax(const char *fn, yamr_dtype dtype, size_t rows, size_t cols,
                                size_t ld, char *err, size_t errlen); /* rows.c */
/* yamr__check_rows, then 1 <= k <= cols and a rows x k output (8-byte entries) that fits. */
yamr_status yamr__check_topk(const char *fn, yamr_op op, yamr_dtype dtype, size_t rows,
                             size_t cols, size_t ld, size_t k, char *err, size_t errlen); /* rows.c */
/* The pointers every op call needs: `in`, `values`, and `indices` for an argmax or argmin. */
yamr_status yamr__check_op_outputs(const char *fn, yamr_op op, const void *in, void *values,
                                   int64_t *indices, char *err, size_t errlen); /* rows.c */
/* op and dtype in range, with the messages the checks above give. */
yamr_status yamr__check_op(const char *fn, yamr_op op, char *err, size_t errlen);
yamr_status yamr__check_dtype(const char *fn, yamr_dtype dtype, char *err, size_t errlen);

#endif /* YAMR_CHECKS_H */
