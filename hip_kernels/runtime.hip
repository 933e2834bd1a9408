/* Opening and closing a GPU: the device facts a context caches, and the memory it owns. */
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

extern "C" yamr_status yamr__gpu_open(int device, yamr__gpu **gpu, yamr_device_info *info,
                                      char *err, size_t errlen)
{
    int count = 0;
    if (hipGetDeviceCount(&count) != hipSuccess || device >= count) {
        (void)hipGetLastError(); /* "no device" is not sticky; clear it */
        snprintf(err, errlen, "no GPU with ordinal %d (%d found)", device, count);
        return YAMR_ERROR_NO_DEVICE;
    }
    YAMR_HIP_TRY(hipSetDevice(device));
    hipDeviceProp_t p;
    YAMR_HIP_TRY(hipGetDeviceProperties(&p, device));

    yamr_device_info d;
    memset(&d, 0, sizeof d);
    d.vendor = YAMR_BUILD_VENDOR;
    snprintf(d.name, sizeof d.name, "%s", p.name);
    yamr_arch_name(&p, d.arch, sizeof d.arch);
    d.warp_size = p.warpSize;
    d.independent_thread_scheduling = yamr_arch_has_its(&p);
    d.multiprocessors = p.multiProcessorCount;
    d.max_block_threads = p.maxThreadsPerBlock < 1024 ? p.maxThreadsPerBlock : 1024;
    d.max_single_block = (size_t)d.max_block_threads;

    yamr__gpu *g = (yamr__gpu *)calloc(1, sizeof *g);
    if (!g) return YAMR_ERROR_OUT_OF_MEMORY;
    g->device = device;
    g->warp_size = p.warpSize;
    g->stream = 0;
    hipError_t e = hipMalloc((void **)&g->d_result, sizeof(yamr__result));
    if (e != hipSuccess) {
        free(g);
        return yamr__gpu_fail(e, "hipMalloc(result)", err, errlen);
    }
    *info = d;
    *gpu = g;
    return YAMR_SUCCESS;
}

extern "C" void yamr__gpu_close(yamr__gpu *gpu)
{
    if (!gpu) return;
    (void)hipSetDevice(gpu->device);
    (void)hipFree(gpu->d_result); /* nothing to report to from a destructor */
    free(gpu);
}

extern "C" yamr_status yamr__gpu_alloc(yamr__gpu *gpu, size_t bytes, void **ptr, char *err,
                                       size_t errlen)
{
    YAMR_HIP_TRY(hipSetDevice(gpu->device));
    YAMR_HIP_TRY(hipMalloc(ptr, bytes));
    return YAMR_SUCCESS;
}

extern "C" yamr_status yamr__gpu_free(yamr__gpu *gpu, void *ptr, char *err, size_t errlen)
{
    YAMR_HIP_TRY(hipSetDevice(gpu->device));
    YAMR_HIP_TRY(hipFree(ptr));
    return YAMR_SUCCESS;
}

extern "C" yamr_status yamr__gpu_copy(yamr__gpu *gpu, void *dst, const void *src, size_t bytes,
                                      int to_device, char *err, size_t errlen)
{
    YAMR_HIP_TRY(hipSetDevice(gpu->device));
    YAMR_HIP_TRY(hipMemcpy(dst, src, bytes, to_device ? hipMemcpyHostToDevice : hipMemcpyDeviceToHost));
    return YAMR_SUCCESS;
}
