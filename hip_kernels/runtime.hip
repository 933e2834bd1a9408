/* SPDX-License-Identifier: MIT */
/* Opening and closing a GPU: the device facts a context caches, and the memory it owns. */
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

/* The context's memory: the mapped result slot and answer words, and the split kernel's
 * workspace with room for the partials of a grid-wide call's largest grid (`max_blocks`) and of
 * a batched split. */
static yamr_status yamr__gpu_own_memory(yamr__gpu *g, size_t max_blocks, char *err, size_t errlen)
{
    const size_t answer_bytes = 2 * YAMR__ANSWER_WORDS * sizeof *g->h_answer;
    YAMR_HIP_TRY(hipHostMalloc((void **)&g->h_result, 2 * sizeof(yamr__result) + answer_bytes,
                               YAMR__HOST_MAPPED_FLAGS),
                 err, errlen);
    YAMR_HIP_TRY(hipHostGetDevicePointer((void **)&g->d_result, g->h_result, 0), err, errlen);
    g->h_answer = (unsigned long long *)(g->h_result + 2);
    g->d_answer = (unsigned long long *)(g->d_result + 2);
    yamr__split_workspace *w = &g->split_workspace;
    const size_t partials =
        max_blocks > YAMR__ROWS_SPLIT_MAX_PARTIALS ? max_blocks : YAMR__ROWS_SPLIT_MAX_PARTIALS;
    const size_t rows = YAMR__ROWS_SPLIT_MAX_ROWS;
    const size_t slot_bytes = partials * YAMR__SPLIT_PARTIAL_WORDS * sizeof *w->partials;
    YAMR_HIP_TRY(hipMalloc((void **)&w->partials, slot_bytes), err, errlen);
    YAMR_HIP_TRY(hipMemset(w->partials, 0xff, slot_bytes), err, errlen); /* every slot empty */
    YAMR_HIP_TRY(hipMalloc((void **)&w->rows_done, rows * sizeof *w->rows_done), err, errlen);
    YAMR_HIP_TRY(hipMemset(w->rows_done, 0, rows * sizeof *w->rows_done), err, errlen);
    /* done before any stream of the caller's (which may not wait for the null stream) runs */
    YAMR_HIP_TRY(hipStreamSynchronize(0), err, errlen);
    return YAMR_SUCCESS;
}

extern "C" void yamr__gpu_close(yamr__gpu *gpu);

extern "C" yamr_status yamr__gpu_open(int device, yamr__gpu **gpu, yamr_device_info *info,
                                      char *err, size_t errlen)
{
    int count = 0;
    const hipError_t counted = hipGetDeviceCount(&count);
    if (counted != hipSuccess || device >= count) {
        (void)hipGetLastError(); /* "no device" is not sticky; clear it */
        int driver = -1; /* 0: no driver at all, which CUDA calls "driver version insufficient" */
        if (counted != hipSuccess && hipDriverGetVersion(&driver) == hipSuccess && driver == 0)
            snprintf(err, errlen, "no GPU with ordinal %d: no %s driver found", device,
                     YAMR_BUILD_VENDOR == YAMR_VENDOR_NVIDIA ? "NVIDIA" : "AMD GPU");
        else if (counted != hipSuccess) /* the runtime's reason: a driver too old, ... */
            snprintf(err, errlen, "no GPU with ordinal %d: %s", device, hipGetErrorString(counted));
        else
            snprintf(err, errlen, "no GPU with ordinal %d (%d found)", device, count);
        return YAMR_ERROR_NO_DEVICE;
    }
    const yamr__device_scope on_device(device);
    YAMR_HIP_TRY(on_device.status(), err, errlen);
    hipDeviceProp_t p;
    YAMR_HIP_TRY(hipGetDeviceProperties(&p, device), err, errlen);

    yamr_device_info d;
    memset(&d, 0, sizeof d);
    d.vendor = YAMR_BUILD_VENDOR;
    snprintf(d.name, sizeof d.name, "%s", p.name);
    yamr__arch_name(&p, d.arch, sizeof d.arch);
    d.warp_size = p.warpSize;
    d.independent_thread_scheduling = yamr__arch_has_its(&p);
    d.multiprocessors = p.multiProcessorCount;
    d.max_block_threads = p.maxThreadsPerBlock < 1024 ? p.maxThreadsPerBlock : 1024;

    yamr__gpu *g = (yamr__gpu *)calloc(1, sizeof *g);
    if (!g) return YAMR_ERROR_OUT_OF_MEMORY;
    g->device = device;
    g->warp_size = p.warpSize;
    g->multiprocessors = p.multiProcessorCount;
    g->family = yamr__device_family(&d);
    g->stream = 0;
    const size_t max_blocks = (size_t)YAMR__GRID_MAX_BLOCKS_PER_UNIT * p.multiProcessorCount;
    yamr_status s = yamr__gpu_own_memory(g, max_blocks, err, errlen);
    if (s == YAMR_SUCCESS) s = yamr__gpu_ask_occupancy(g, err, errlen);
    if (s != YAMR_SUCCESS) {
        yamr__gpu_close(g);
        return s;
    }
    *info = d;
    *gpu = g;
    return YAMR_SUCCESS;
}

extern "C" void yamr__gpu_close(yamr__gpu *gpu)
{
    if (!gpu) return;
    const yamr__device_scope on_device(gpu->device);
    /* Nothing to report to from a destructor; hipFree(NULL) is a no-op. hipHostFree waits for
     * the device's work (an implicit device synchronization), so no kernel of this context
     * still runs when its memory goes: a synchronous call returns once its answer has
     * arrived, a few instructions before its kernel ends. */
    (void)hipHostFree(gpu->h_result);
    (void)hipFree(gpu->split_workspace.partials);
    (void)hipFree(gpu->split_workspace.rows_done);
    (void)hipFree(gpu->topk_workspace);
    (void)hipFree(gpu->topk_row_words);
    free(gpu);
}

extern "C" yamr_status yamr__gpu_alloc(yamr__gpu *gpu, size_t bytes, void **ptr, char *err,
                                       size_t errlen)
{
    const yamr__device_scope on_device(gpu->device);
    YAMR_HIP_TRY(on_device.status(), err, errlen);
    YAMR_HIP_TRY(hipMalloc(ptr, bytes), err, errlen);
    return YAMR_SUCCESS;
}

extern "C" yamr_status yamr__gpu_free(yamr__gpu *gpu, void *ptr, char *err, size_t errlen)
{
    const yamr__device_scope on_device(gpu->device);
    YAMR_HIP_TRY(on_device.status(), err, errlen);
    YAMR_HIP_TRY(hipFree(ptr), err, errlen);
    return YAMR_SUCCESS;
}

extern "C" yamr_status yamr__gpu_copy(yamr__gpu *gpu, void *dst, const void *src, size_t bytes,
                                      int to_device, char *err, size_t errlen)
{
    const yamr__device_scope on_device(gpu->device);
    YAMR_HIP_TRY(on_device.status(), err, errlen);
    YAMR_HIP_TRY(hipMemcpy(dst, src, bytes,
                           to_device ? hipMemcpyHostToDevice : hipMemcpyDeviceToHost),
                 err, errlen);
    return YAMR_SUCCESS;
}

extern "C" yamr_status yamr__gpu_set_stream(yamr__gpu *gpu, void *stream)
{
    gpu->stream = (hipStream_t)stream;
    return YAMR_SUCCESS;
}
