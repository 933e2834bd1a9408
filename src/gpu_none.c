/* SPDX-License-Identifier: MIT */
/* The GPU backend of a build without one: every GPU context is refused. */
#include <stdio.h>

#include "topk.h"
#include "yamr_internal.h"

yamr_status yamr__gpu_open(int device, yamr__gpu **gpu, yamr_device_info *info, char *err,
                           size_t errlen)
{
    (void)gpu;
    (void)info;
    snprintf(err, errlen, "yamr was built without a GPU backend (device %d)", device);
    return YAMR_ERROR_NO_DEVICE;
}

void yamr__gpu_close(yamr__gpu *gpu) { (void)gpu; }

yamr_status yamr__gpu_alloc(yamr__gpu *gpu, size_t bytes, void **ptr, char *err, size_t errlen)
{
    (void)gpu, (void)bytes, (void)ptr, (void)err, (void)errlen;
    return YAMR_ERROR_NO_DEVICE;
}

yamr_status yamr__gpu_free(yamr__gpu *gpu, void *ptr, char *err, size_t errlen)
{
    (void)gpu, (void)ptr, (void)err, (void)errlen;
    return YAMR_ERROR_NO_DEVICE;
}

yamr_status yamr__gpu_copy(yamr__gpu *gpu, void *dst, const void *src, size_t bytes, int to_device,
                           char *err, size_t errlen)
{
    (void)gpu, (void)dst, (void)src, (void)bytes, (void)to_device, (void)err, (void)errlen;
    return YAMR_ERROR_NO_DEVICE;
}

yamr_status yamr__gpu_reduce(yamr__gpu *gpu, const yamr__gpu_call *call, yamr__result *res,
                             char *err, size_t errlen)
{
    (void)gpu, (void)call, (void)res, (void)err, (void)errlen;
    return YAMR_ERROR_NO_DEVICE;
}

yamr_status yamr__gpu_set_stream(yamr__gpu *gpu, void *stream)
{
    (void)gpu, (void)stream;
    return YAMR_ERROR_NO_DEVICE;
}

yamr_status yamr__gpu_grid_blocks_per_unit(yamr__gpu *gpu, yamr_dtype dtype, yamr_variant variant,
                                           int slots, int index_bits, int *blocks, char *err,
                                           size_t errlen)
{
    (void)gpu, (void)dtype, (void)variant, (void)slots, (void)index_bits, (void)blocks, (void)err,
        (void)errlen;
    return YAMR_ERROR_NO_DEVICE;
}

int yamr__gpu_policy_held(int policy, yamr_dtype dtype, int acc)
{
    (void)policy, (void)dtype, (void)acc;
    return -1;
}

yamr_status yamr__gpu_rows(yamr__gpu *gpu, const yamr__gpu_batch *call, char *err, size_t errlen)
{
    (void)gpu, (void)call, (void)err, (void)errlen;
    return YAMR_ERROR_NO_DEVICE;
}

yamr_status yamr__gpu_segments(yamr__gpu *gpu, const yamr__gpu_batch *call, char *err,
                               size_t errlen)
{
    (void)gpu, (void)call, (void)err, (void)errlen;
    return YAMR_ERROR_NO_DEVICE;
}

yamr_status yamr__gpu_softmax_stats(yamr__gpu *gpu, const yamr__gpu_batch *call, char *err,
                                    size_t errlen)
{
    (void)gpu, (void)call, (void)err, (void)errlen;
    return YAMR_ERROR_NO_DEVICE;
}

yamr_status yamr__gpu_topk(yamr__gpu *gpu, const yamr__topk_call *call, char *err, size_t errlen)
{
    (void)gpu, (void)call, (void)err, (void)errlen;
    return YAMR_ERROR_NO_DEVICE;
}
