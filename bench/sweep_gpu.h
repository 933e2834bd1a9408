/* SPDX-License-Identifier: MIT */
/* GPU helpers of yamr-bench sweep and rows: event timing, device fill, the launch floor, and the
 * vendor baselines. */
#ifndef YAMR_SWEEP_GPU_H
#define YAMR_SWEEP_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "yamr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One timed call: returns 0 on success. */
typedef int (*sweep_call)(void *arg, int rep);

/* What the timing of `reps` calls gives, in microseconds. */
typedef struct {
    double median_us, min_us, max_us, mean_us;
} sweep_times;

/* t from the times of n >= 1 calls, us[0..n) (sorted here, in place); bench_common.c. */
void sweep_times_of(double *us, int n, sweep_times *t);

/* Times `reps` calls after `warmup` untimed ones, with an event pair around each (default
 * stream). queued 0: each call is timed as it is launched,
 * so its time includes whatever of the host's launch the device waits for. queued 1: a kernel
 * holds the stream while up to 16 calls and their events are queued behind it, then the host
 * releases it, so each call's time is the device's alone (what a call costs in a stream that
 * is kept busy). Returns 0, or nonzero with err set. */
int sweep_time(sweep_call call, void *arg, int warmup, int reps, int queued, sweep_times *t,
               char *err, size_t errlen);
/* Fills n elements of dtype at dev with values in [-1, 1) (floats) or random integers. */
int sweep_fill(yamr_dtype dtype, void *dev, size_t n, unsigned long long seed, char *err, size_t errlen);
/* Device-to-device copy on the default stream. */
int sweep_copy(void *dst, const void *src, size_t bytes);
/* The read ceiling: one plain kernel that reads `bytes` (rounded down to 16) at src, 16-byte
 * loads, and does nothing else; default stream. Returns 0, or 1 on a launch error. */
int sweep_read(const void *src, size_t bytes);
/* The device's L2 size in bytes. */
size_t sweep_l2_bytes(int device);
/* The launch floor: an empty kernel (one block of 32 threads that does nothing) launched on the
 * default stream and timed as sweep_time times a yamr call, one event pair around one launch.
 * Returns 0, or nonzero with err set (always in a build without a GPU backend). */
int sweep_launch_floor(int warmup, int reps, int queued, double *median_us, double *min_us,
                       char *err, size_t errlen);

/* The synchronous floor: an empty kernel launched on the default stream, then the stream
 * synchronized, as a synchronous call ends. Returns 0, or nonzero (always in a build without a
 * GPU backend). */
int sweep_empty_launch_sync(void);

/* One call queued on `stream` (a hipStream_t / cudaStream_t): returns 0 on success. */
typedef int (*sweep_stream_call)(void *arg, void *stream);
/* Graph replay: `calls` calls of call(arg, stream) captured from a new stream into one graph,
 * which is launched once untimed, then `replays` times, each between two events on that stream.
 * *us_per_call: the median replay's time over `calls`. Returns 0, or nonzero with err set
 * (always in a build without a GPU backend). */
int sweep_graph_time(sweep_stream_call call, void *arg, int calls, int replays,
                     double *us_per_call, char *err, size_t errlen);

/* The vendor baseline of this build: "cub" (NVIDIA: CUB of the CUDA toolkit), "rocprim" (AMD:
 * rocPRIM's reduce, in CUB's place; bench/baseline_rocprim.hip) or "none". */
const char *baseline_name(void);
/* CUB DeviceReduce::Max or ::ArgMax, or rocPRIM's reduce with maximum / arg_max; temp NULL asks
 * for temp_bytes. Returns 0, or a runtime error code. */
int baseline_cub_available(void);
int baseline_cub(yamr_dtype dtype, int argmax, const void *in, long long n, void *temp,
                 size_t *temp_bytes, void *value, long long *index, void *stream);

/* One segment's answer from baseline_cub_segmented's ArgMax: cub::KeyValuePair<int, float>,
 * the index counted from the start of the segment. An empty segment gives {1, -FLT_MAX}. */
typedef struct {
    int32_t index;
    float value;
} baseline_cub_argmax_pair;

/* Whether baseline_cub_segmented runs in this build (CUB only). */
int baseline_segmented_available(void);
/* CUB DeviceSegmentedReduce::Max (argmax 0: `out` gets `segments` floats) or ::ArgMax (argmax 1:
 * `out` gets `segments` baseline_cub_argmax_pair) over the f32 segments
 * in[begin[s] .. end[s]), with begin and end `segments` int64 device offsets each (end may be
 * begin + 1 for CSR offsets). ArgMax counts in int: every offset must be below 2^31. temp NULL
 * asks for temp_bytes. Returns 0, or a runtime error code; -1 in a build without CUB. */
int baseline_cub_segmented(int argmax, const float *in, const int64_t *begin, const int64_t *end,
                           long long segments, void *temp, size_t *temp_bytes, void *out,
                           void *stream);

#ifdef __cplusplus
}
#endif

#endif
