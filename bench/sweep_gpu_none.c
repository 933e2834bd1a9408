/* SPDX-License-Identifier: MIT */
/* yamr-bench sweep's GPU helpers in a build without a GPU backend: the sweep times the CPU. */
#include <stdio.h>

#include "sweep_gpu.h"

int sweep_time(sweep_call call, void *arg, int warmup, int reps, int queued, sweep_times *t,
               char *err, size_t errlen)
{
    (void)call, (void)arg, (void)warmup, (void)reps, (void)queued, (void)t;
    snprintf(err, errlen, "built without a GPU backend");
    return 1;
}

int sweep_fill(yamr_dtype dtype, void *dev, size_t n, unsigned long long seed, char *err, size_t errlen)
{
    (void)dtype, (void)dev, (void)n, (void)seed;
    snprintf(err, errlen, "built without a GPU backend");
    return 1;
}

int sweep_copy(void *dst, const void *src, size_t bytes)
{
    (void)dst, (void)src, (void)bytes;
    return 1;
}

int sweep_read(const void *src, size_t bytes)
{
    (void)src, (void)bytes;
    return 1;
}

size_t sweep_l2_bytes(int device)
{
    (void)device;
    return 0;
}

int sweep_launch_floor(int warmup, int reps, int queued, double *median_us, double *min_us,
                       char *err, size_t errlen)
{
    (void)warmup, (void)reps, (void)queued, (void)median_us, (void)min_us;
    snprintf(err, errlen, "built without a GPU backend");
    return 1;
}

int sweep_empty_launch_sync(void) { return 1; }

int sweep_graph_time(sweep_stream_call call, void *arg, int calls, int replays,
                     double *us_per_call, char *err, size_t errlen)
{
    (void)call, (void)arg, (void)calls, (void)replays, (void)us_per_call;
    snprintf(err, errlen, "built without a GPU backend");
    return 1;
}
