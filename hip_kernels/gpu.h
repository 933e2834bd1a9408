/* SPDX-License-Identifier: MIT */
/* The GPU backend's state and the runtime-call check shared by the launchers. */
#ifndef YAMR_GPU_H
#define YAMR_GPU_H

#include "block_reduce.hpp"
#include "policy.hpp"
#include "rows_reduce.hpp"
#include "yamr_internal.h"
#include "yamr_port.h"

struct yamr__gpu {
    int device;
    int warp_size;
    int multiprocessors;
    yamr__family family; /* which policy rows run here (src/policy.h) */
    hipStream_t stream;
    /* Pinned host memory mapped into the device's address space (h_ as the host reads it, d_
     * as kernels write it), so that a synchronous call's answer needs no copy after its
     * kernel: the result slots of a single-block call (two: min+max), which the host reads
     * once the stream is done; and the marked answer words of a grid-wide call's two slots (min+max), which the host
     * polls (yamr__take_answers). */
    yamr__result *h_result;
    yamr__result *d_result;
    unsigned long long *h_answer;
    unsigned long long *d_answer;
    /* the split kernel's partials and row counters, owned for the context's lifetime: no
     * allocation per call */
    yamr__split_workspace split_workspace;
    /* Blocks of each grid-wide split kernel instance (dtype, variant, slots - 1, 64-bit
     * indices) that fit on one multiprocessor of this device, asked at yamr_create(); 0 for an
     * instance the library does not hold. */
    int grid_blocks_per_unit[YAMR_DTYPE_COUNT][YAMR_VARIANT_COUNT][2][2];
    /* top-k's partial lists and round bounds (topk.hip): grown by the first call that needs
     * more, kept for the context's lifetime */
    void *topk_workspace;
    size_t topk_workspace_bytes;
    /* a split's words per row (topk.hpp: the select kernel's thresholds, the blocks' arrivals
     * for a merge by the row's last block): zero between calls */
    unsigned long long *topk_row_words;
    size_t topk_row_words_n;
};

/* Records the runtime's message and returns the status for a failed runtime call. */
static inline yamr_status yamr__gpu_fail(hipError_t e, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: %s", what, hipGetErrorString(e));
    return e == hipErrorMemoryAllocation ? YAMR_ERROR_OUT_OF_MEMORY : YAMR_ERROR_DEVICE;
}

/* Returns from the enclosing launcher with the failed call's status and message in
 * err[errlen]. */
#define YAMR_HIP_TRY(call, err, errlen)                                                        \
    do {                                                                                       \
        hipError_t yamr_e_ = (call);                                                           \
        if (yamr_e_ != hipSuccess) return yamr__gpu_fail(yamr_e_, #call, err, errlen);         \
    } while (0)

/* The arguments of a planned kernel that are not its input, layout or output. */
static inline yamr__batch_args yamr__args_of(const yamr__gpu *gpu, const yamr_plan *plan,
                                             int is_min, int nan_ignore)
{
    yamr__batch_args a;
    a.is_min = is_min;
    a.nan_ignore = nan_ignore;
    a.vectorize = plan->vector_loads;
    a.blocks_per_row = plan->blocks_per_row;
    a.ws = gpu->split_workspace;
    return a;
}

/* Makes a context's device current for one call and gives the caller's current device back on
 * the way out: a call leaves the calling thread's device as it found it. */
class yamr__device_scope {
  public:
    explicit yamr__device_scope(int device) : device_(device)
    {
        status_ = hipGetDevice(&previous_);
        if (status_ == hipSuccess && previous_ != device_) status_ = hipSetDevice(device_);
    }
    ~yamr__device_scope()
    {
        if (status_ == hipSuccess && previous_ != device_) (void)hipSetDevice(previous_);
    }
    yamr__device_scope(const yamr__device_scope &) = delete;
    yamr__device_scope &operator=(const yamr__device_scope &) = delete;
    /* hipSuccess when the device is current. */
    hipError_t status() const { return status_; }

  private:
    int device_, previous_ = -1;
    hipError_t status_;
};

#endif /* YAMR_GPU_H */
