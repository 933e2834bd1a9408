/* SPDX-License-Identifier: MIT */
/* The race lab's GPU side in a build without a GPU backend: the simulator still runs. */
#include <stdio.h>

#include "race_lab.h"

yamr_status race_gpu_measure(int device, yamr_variant v, int threads, yamr_race_sim_order order,
                             int64_t trials, uint64_t seed, race_measure *m, char *err,
                             size_t errlen)
{
    (void)v, (void)threads, (void)order, (void)trials, (void)seed, (void)m;
    snprintf(err, errlen, "built without a GPU backend (device %d)", device);
    return YAMR_ERROR_NO_DEVICE;
}
