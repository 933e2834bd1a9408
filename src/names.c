/* SPDX-License-Identifier: MIT */
/* Status, variant and dtype names. */
#include "yamr_internal.h"

/* X-macro: one list generates the strings. */
#define YAMR_STATUS_LIST(X)                                                                    \
    X(YAMR_SUCCESS, "success")                                                                 \
    X(YAMR_ERROR_INVALID_VALUE, "invalid value: NULL pointer, n == 0 or enum out of range")    \
    X(YAMR_ERROR_NO_DEVICE, "no such GPU, or built without GPU support")                      \
    X(YAMR_ERROR_UNSUPPORTED, "not supported by this context (variant, dtype or size)")       \
    X(YAMR_ERROR_OUT_OF_MEMORY, "out of memory")                                              \
    X(YAMR_ERROR_DEVICE, "GPU runtime error (see yamr_last_error)")                         \
    X(YAMR_ERROR_COMMUNICATION, "an MPI call failed")

const char *yamr_status_string(yamr_status s)
{
    switch (s) {
#define YAMR_STATUS_CASE(code, text)                                                           \
    case code: return #code ": " text;
        YAMR_STATUS_LIST(YAMR_STATUS_CASE)
#undef YAMR_STATUS_CASE
    }
    return "unknown yamr_status";
}

const char *yamr_variant_name(yamr_variant v)
{
    if (v == YAMR_VARIANT_AUTO) return "auto";
    const yamr__variant_info *row = yamr__variant_lookup(v);
    return row ? row->name : "invalid";
}

static const struct {
    const char *name;
    size_t size;
    int is_float;
} dtypes[YAMR_DTYPE_COUNT] = {
    [YAMR_DTYPE_F32] = {"f32", 4, 1}, [YAMR_DTYPE_F64] = {"f64", 8, 1},
    [YAMR_DTYPE_F16] = {"f16", 2, 1}, [YAMR_DTYPE_BF16] = {"bf16", 2, 1},
    [YAMR_DTYPE_I32] = {"i32", 4, 0}, [YAMR_DTYPE_U32] = {"u32", 4, 0},
    [YAMR_DTYPE_I64] = {"i64", 8, 0},
};

const char *yamr_dtype_name(yamr_dtype t)
{
    return (unsigned)t < YAMR_DTYPE_COUNT ? dtypes[t].name : "invalid";
}

size_t yamr_dtype_size(yamr_dtype t) { return (unsigned)t < YAMR_DTYPE_COUNT ? dtypes[t].size : 0; }

int yamr__dtype_is_float(yamr_dtype t) { return (unsigned)t < YAMR_DTYPE_COUNT && dtypes[t].is_float; }

const char *yamr_version(int *major, int *minor, int *patch)
{
    if (major) *major = YAMR_VERSION_MAJOR;
    if (minor) *minor = YAMR_VERSION_MINOR;
    if (patch) *patch = YAMR_VERSION_PATCH;
    return YAMR_VERSION_STRING;
}
