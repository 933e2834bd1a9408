/* GPU helpers of yamr-bench sweep: event timing, device fill, and the vendor baselines. */
#ifndef YAMR_SWEEP_GPU_H
#define YAMR_SWEEP_GPU_H

#include <stddef.h>

#include "yamr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One timed call: returns 0 on success. */
typedef int (*sweep_call)(void *arg, int rep);

/* Times `reps` calls after `warmup` untimed ones, with an event pair around each (default
 * stream); median and minimum in microseconds. Returns 0, or nonzero with err set. */
int sweep_time(sweep_call call, void *arg, int warmup, int reps, double *median_us, double *min_us,
               char *err, size_t errlen);
/* Fills n elements of dtype at dev with values in [-1, 1) (floats) or random integers. */
int sweep_fill(yamr_dtype dtype, void *dev, size_t n, unsigned long long seed, char *err, size_t errlen);
/* Device-to-device copy on the default stream. */
int sweep_copy(void *dst, const void *src, size_t bytes);
/* The device's L2 size in bytes. */
size_t sweep_l2_bytes(int device);

/* CUB (NVIDIA) / hipCUB (AMD) DeviceReduce::Max or ::ArgMax; temp NULL asks for temp_bytes.
 * Returns 0, or a runtime error code. */
int baseline_cub_available(void);
int baseline_cub(yamr_dtype dtype, int argmax, const void *in, long long n, void *temp,
                 size_t *temp_bytes, void *value, long long *index, void *stream);

#ifdef __cplusplus
}
#endif

#endif
