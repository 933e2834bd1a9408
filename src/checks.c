/* SPDX-License-Identifier: MIT */
/* The messages of refused arguments (checks.h). */
#include <stdarg.h>
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
