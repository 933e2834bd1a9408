/* SPDX-License-Identifier: MIT */
/* The vendor baseline in builds without one (the CPU backend; AMD builds without rocPRIM). */
#include "sweep_gpu.h"

const char *baseline_name(void) { return "none"; }

int baseline_cub_available(void) { return 0; }

int baseline_segmented_available(void) { return 0; }

int baseline_cub(yamr_dtype dtype, int argmax, const void *in, long long n, void *temp,
                 size_t *temp_bytes, void *value, long long *index, void *stream)
{
    (void)dtype, (void)argmax, (void)in, (void)n, (void)temp, (void)temp_bytes, (void)value,
        (void)index, (void)stream;
    return -1;
}

int baseline_cub_segmented(int argmax, const float *in, const int64_t *begin, const int64_t *end,
                           long long segments, void *temp, size_t *temp_bytes, void *out,
                           void *stream)
{
    (void)argmax, (void)in, (void)begin, (void)end, (void)segments, (void)temp, (void)temp_bytes,
        (void)out, (void)stream;
    return -1;
}
