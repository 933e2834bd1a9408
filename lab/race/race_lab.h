/* SPDX-License-Identifier: MIT */
/* The race lab's measurement of one configuration, on the GPU (race_gpu.hip) or in the
 * simulator (race_sim.h), in one row shape so that both land in the same tables. */
#ifndef YAMR_RACE_LAB_H
#define YAMR_RACE_LAB_H

#include <stdint.h>

#include "race_sim.h"
#include "yamr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int64_t trials;
    int64_t wrong;
    double writes_mean;           /* stores to the shared value per block, all lanes */
    yamr_race_sim_dist first_warp; /* passes of warp 0, per trial */
    yamr_race_sim_dist all_warps;  /* passes of every warp of every trial */
    double cycles_median;         /* clock64 cycles of the reduction step; NaN in the simulator */
    double launch_us;             /* launch-to-launch time of one single-block launch; NaN in the simulator */
} race_measure;

/* Runs `trials` blocks of `threads` threads of variant v on GPU `device`, each on fresh values in
 * `order` (yamr_race_sim_fill), one block per trial in as few launches as memory allows.
 * Variants without a racy loop report passes as 0. Returns YAMR_SUCCESS or an error with err set. */
yamr_status race_gpu_measure(int device, yamr_variant v, int threads, yamr_race_sim_order order,
                             int64_t trials, uint64_t seed, race_measure *m, char *err,
                             size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
