/* The GPU backend's state and the runtime-call check shared by the launchers. */
#ifndef YAMR_GPU_H
#define YAMR_GPU_H

#include "grid_reduce.hpp"
#include "rows_reduce.hpp"
#include "yamr_internal.h"
#include "yamr_port.h"

/* Grid workspace capacity: blocks per multiprocessor (at least the occupancy of any kernel). */
#define YAMR_MAX_BLOCKS_PER_UNIT 16

struct yamr__gpu {
    int device;
    int warp_size;
    int multiprocessors;
    hipStream_t stream;
    yamr__result *d_result;         /* two result slots (min+max) on the device */
    yamr__result *h_result;         /* and their pinned host copy */
    yamr_grid_workspace workspace;  /* owned for the context's lifetime: no allocation per call */
    yamr_rows_workspace rows_workspace; /* the batched split shape's partials and row counters */
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
