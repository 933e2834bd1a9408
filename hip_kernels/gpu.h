/* The GPU backend's state and the runtime-call check shared by the launchers. */
#ifndef YAMR_GPU_H
#define YAMR_GPU_H

#include "yamr_port.h"
#include "yamr_internal.h"

struct yamr__gpu {
    int device;
    int warp_size;
    hipStream_t stream;
    yamr__result *d_result; /* one result slot, owned for the context's lifetime */
};

/* Records the runtime's message and returns the status for a failed runtime call. */
static inline yamr_status yamr__gpu_fail(hipError_t e, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: %s", what, hipGetErrorString(e));
    return e == hipErrorMemoryAllocation ? YAMR_ERROR_OUT_OF_MEMORY : YAMR_ERROR_DEVICE;
}

#define YAMR_HIP_TRY(call)                                                                     \
    do {                                                                                       \
        hipError_t yamr_e_ = (call);                                                           \
        if (yamr_e_ != hipSuccess) return yamr__gpu_fail(yamr_e_, #call, err, errlen);         \
    } while (0)

#endif /* YAMR_GPU_H */
