/* Internal declarations shared by the host code (src/) and the device launchers (hip_kernels/). */
#ifndef YAMR_INTERNAL_H
#define YAMR_INTERNAL_H

#include <stdint.h>

#include "yamr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Variant registry (variants.c): one row per single-block algorithm. ---- */

enum {
    YAMR__RACY = 1u << 0,           /* correctness not established anywhere: never AUTO */
    YAMR__NEEDS_LOCKSTEP = 1u << 1, /* correct only where a warp's lanes run in lockstep */
    YAMR__F32_MAX_ONLY = 1u << 2    /* the seed kernel: float32 MAX, nothing else */
};

typedef struct {
    yamr_variant id;
    const char *name;
    unsigned warp_widths; /* bit mask of the warp widths it is instantiated for: 32, 64 */
    unsigned flags;
    const char *correctness; /* one line: why it is (or is not) correct, and where */
} yamr__variant_info;

/* Rows in AUTO's order of preference (fastest first, as measured: docs/variants.md). */
extern const yamr__variant_info yamr__variants[];
extern const int yamr__variant_count;

const yamr__variant_info *yamr__variant_lookup(yamr_variant v);
/* Whether `v` can run `op` on `dtype` on a device with these facts (CPU: never). */
int yamr__variant_runs_on(const yamr__variant_info *v, const yamr_device_info *dev, yamr_op op,
                          yamr_dtype dtype);
/* The variant AUTO picks for these facts, and why, or NULL when none is established there. */
const yamr__variant_info *yamr__select_variant(const yamr_device_info *dev, yamr_op op,
                                               yamr_dtype dtype, const char **reason);

/* ---- The reduction result every backend produces. ---- */

typedef struct {
    int64_t index;       /* first index of the answer; -1 when a float input was all NaN
                            under YAMR_NAN_IGNORE */
    uint64_t value_bits; /* the answer's element (the first element when index is -1), in the
                            low bytes */
} yamr__result;

/* Whether the dtype is a floating-point type (has NaN). */
int yamr__dtype_is_float(yamr_dtype t);

/* CPU backend (cpu_backend.c): any n >= 1. */
void yamr__cpu_reduce(yamr_dtype t, int is_min, int nan_ignore, const void *in, size_t n,
                      yamr__result *res);

/* ---- GPU backend (hip_kernels/, or gpu_none.c when built without one). ---- */

typedef struct yamr__gpu yamr__gpu;

typedef struct {
    yamr_variant variant; /* never AUTO */
    yamr_dtype dtype;
    int is_min;     /* the op of a single-slot call */
    int minmax;     /* two slots: 0 is MAX, 1 is MIN */
    int nan_ignore;
    const void *in; /* device memory */
    size_t n;       /* >= 1; <= max_block_threads for `racy` */
    /* Asynchronous calls: where each slot's value and index go (device memory; an index may be
     * NULL). Synchronous calls: value_out[0] is NULL and the results come back in res[]. */
    void *value_out[2];
    int64_t *index_out[2];
} yamr__gpu_call;

/* Each returns YAMR_SUCCESS or an error, with the runtime's message in err[errlen]. */
yamr_status yamr__gpu_open(int device, yamr__gpu **gpu, yamr_device_info *info, char *err,
                           size_t errlen);
void yamr__gpu_close(yamr__gpu *gpu);
yamr_status yamr__gpu_alloc(yamr__gpu *gpu, size_t bytes, void **ptr, char *err, size_t errlen);
yamr_status yamr__gpu_free(yamr__gpu *gpu, void *ptr, char *err, size_t errlen);
/* to_device: host src to device dst; else device src to host dst. */
yamr_status yamr__gpu_copy(yamr__gpu *gpu, void *dst, const void *src, size_t bytes, int to_device,
                           char *err, size_t errlen);
/* res[] holds one result per slot (synchronous calls only). */
yamr_status yamr__gpu_reduce(yamr__gpu *gpu, const yamr__gpu_call *call, yamr__result *res,
                             char *err, size_t errlen);
yamr_status yamr__gpu_set_stream(yamr__gpu *gpu, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* YAMR_INTERNAL_H */
