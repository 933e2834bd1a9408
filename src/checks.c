/* SPDX-License-Identifier: MIT */
/* The argument checks of every call and the messages of refused arguments (checks.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "checks.h"

#if defined(_MSC_VER)
#define YAMR__THREAD_LOCAL __declspec(thread)
#else
#define YAMR__THREAD_LOCAL __thread
#endif

/* Like errno: per thread, so that threads with contexts of their own never see each other's. */
static YAMR__THREAD_LOCAL char thread_error[512];

const char *yamr__thread_error(void) { return thread_error; }

yamr_status yamr__fail(yamr_status status, char *err, size_t errlen, const char *fmt, ...)
{
    if (!err) {
        err = thread_error;
        errlen = sizeof thread_error;
    }
    va_list args;
    va_start(args, fmt);
    vsnprintf(err, errlen, fmt, args);
    va_end(args);
    return status;
}

yamr_status yamr__check_op(const char *fn, yamr_op op, char *err, size_t errlen)
{
    if ((unsigned)op < YAMR_OP_COUNT) return YAMR_SUCCESS;
    return yamr__fail(YAMR_ERROR_INVALID_VALUE, err, errlen,
                      "%s: op (%d) is not a yamr_op (0 to %d)", fn, (int)op, YAMR_OP_COUNT - 1);
}

yamr_status yamr__check_dtype(const char *fn, yamr_dtype dtype, char *err, size_t errlen)
{
    if ((unsigned)dtype < YAMR_DTYPE_COUNT) return YAMR_SUCCESS;
    return yamr__fail(YAMR_ERROR_INVALID_VALUE, err, errlen,
                      "%s: dtype (%d) is not a yamr_dtype (0 to %d)", fn, (int)dtype,
                      YAMR_DTYPE_COUNT - 1);
}

/* ---- Sizes a call accepts ---- */

/* rows x cols with leading dimension ld: every offset, (rows - 1) * ld + cols elements in bytes,
 * fits an int64_t (and so size_t) */
int yamr__matrix_ok(size_t rows, size_t cols, size_t ld, size_t elem)
{
    if (rows == 0 || cols == 0 || ld < cols || elem == 0) return 0;
    const size_t limit = (size_t)INT64_MAX / elem;
    if (cols > limit) return 0;
    return rows == 1 || ld <= (limit - cols) / (rows - 1);
}

/* ---- Each call's checks (plan.c's yamr_plan_for uses them too) ---- */

yamr_status yamr__check_reduce(const char *fn, yamr_op op, yamr_dtype dtype, size_t n, char *err,
                               size_t errlen)
{
    yamr_status s = yamr__check_op(fn, op, err, errlen);
    if (s == YAMR_SUCCESS) s = yamr__check_dtype(fn, dtype, err, errlen);
    if (s != YAMR_SUCCESS) return s;
    if (n == 0) return yamr__fail(YAMR_ERROR_INVALID_VALUE, err, errlen, "%s: n is 0", fn);
    if (n > SIZE_MAX / yamr_dtype_size(dtype)) /* no buffer holds it */
        return yamr__fail(YAMR_ERROR_INVALID_VALUE, err, errlen,
                          "%s: n (%zu) elements of %s overflow size_t", fn, n,
                          yamr_dtype_name(dtype));
    return YAMR_SUCCESS;
}

static int op_needs_index(yamr_op op) { return op == YAMR_OP_ARGMAX || op == YAMR_OP_ARGMIN; }

#define INVALID(...) yamr__fail(YAMR_ERROR_INVALID_VALUE, err, errlen, __VA_ARGS__)

/* A rows x cols matrix with leading dimension ld: each way it can be refused, by name. */
static yamr_status check_matrix(const char *fn, yamr_dtype dtype, size_t rows, size_t cols,
                                size_t ld, char *err, size_t errlen)
{
    if (rows == 0) return INVALID("%s: rows is 0", fn);
    if (cols == 0) return INVALID("%s: cols is 0", fn);
    if (ld < cols) return INVALID("%s: ld (%zu) < cols (%zu)", fn, ld, cols);
    if (!yamr__matrix_ok(rows, cols, ld, yamr_dtype_size(dtype)))
        return INVALID("%s: %zu rows of ld %zu elements of %s overflow a 64-bit offset", fn, rows,
                       ld, yamr_dtype_name(dtype));
    return YAMR_SUCCESS;
}

yamr_status yamr__check_rows(const char *fn, yamr_op op, yamr_dtype dtype, size_t rows,
                             size_t cols, size_t ld, char *err, size_t errlen)
{
    yamr_status s = yamr__check_op(fn, op, err, errlen);
    if (s == YAMR_SUCCESS) s = yamr__check_dtype(fn, dtype, err, errlen);
    if (s == YAMR_SUCCESS) s = check_matrix(fn, dtype, rows, cols, ld, err, errlen);
    return s;
}

yamr_status yamr__check_segments(const char *fn, yamr_op op, yamr_dtype dtype, size_t segments,
                                 char *err, size_t errlen)
{
    yamr_status s = yamr__check_op(fn, op, err, errlen);
    if (s == YAMR_SUCCESS) s = yamr__check_dtype(fn, dtype, err, errlen);
    if (s != YAMR_SUCCESS) return s;
    if (segments == 0) return INVALID("%s: segments is 0", fn);
    if (segments > (size_t)INT64_MAX - 1)
        return INVALID("%s: segments (%zu) + 1 offsets overflow int64_t", fn, segments);
    return YAMR_SUCCESS;
}

yamr_status yamr__check_topk(const char *fn, yamr_op op, yamr_dtype dtype, size_t rows,
                             size_t cols, size_t ld, size_t k, char *err, size_t errlen)
{
    yamr_status s = yamr__check_rows(fn, op, dtype, rows, cols, ld, err, errlen);
    if (s != YAMR_SUCCESS) return s;
    if (k == 0) return INVALID("%s: k is 0", fn);
    if (k > cols) return INVALID("%s: k (%zu) > cols (%zu)", fn, k, cols);
    if (!yamr__matrix_ok(rows, k, k, sizeof(int64_t)))
        return INVALID("%s: rows (%zu) x k (%zu) outputs overflow", fn, rows, k);
    return YAMR_SUCCESS;
}

yamr_status yamr__check_softmax(const char *fn, yamr_dtype dtype, size_t rows, size_t cols,
                                size_t ld, char *err, size_t errlen)
{
    yamr_status s = yamr__check_dtype(fn, dtype, err, errlen);
    if (s == YAMR_SUCCESS) s = check_matrix(fn, dtype, rows, cols, ld, err, errlen);
    if (s == YAMR_SUCCESS && dtype != YAMR_DTYPE_F32 && dtype != YAMR_DTYPE_F64)
        s = yamr__fail(YAMR_ERROR_UNSUPPORTED, err, errlen,
                       "%s: dtype %s is not supported (f32 or f64)", fn, yamr_dtype_name(dtype));
    return s;
}

yamr_status yamr__check_op_outputs(const char *fn, yamr_op op, const void *in, void *values,
                                   int64_t *indices, char *err, size_t errlen)
{
    if (!in) return INVALID("%s: in is NULL", fn);
    if (!values) return INVALID("%s: values is NULL", fn);
    if (op_needs_index(op) && !indices)
        return INVALID("%s: indices is NULL (an argmax or argmin needs it)", fn);
    return YAMR_SUCCESS;
}
