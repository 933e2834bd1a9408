/* SPDX-License-Identifier: MIT */
/*
 * race_sim: a step-level simulator of the seed kernel's racy max loop, and its closed forms.
 *
 * The loop, run by every thread of one block after a barrier, with `shared` set to `initial`:
 *
 *     while (shared < v) shared = v;
 *
 * Each pass of a thread is two steps: (1) read `shared` and compare it with v, (2) if the compare
 * was true, store v and go back to (1); if false, leave the loop. `shared` is re-read on every
 * pass (the loop as if `shared` were volatile; whether a compiler keeps that load is a separate
 * question, see docs/race-behaviour.md).
 *
 * Definitions shared with the GPU instrumentation:
 *  - passes of a lane: how many times that lane executed the store (the loop body).
 *  - passes of a warp: the maximum of its lanes' passes. In LOCKSTEP mode a warp's set of lanes
 *    still in the loop only shrinks, so this equals the number of rounds in which the warp stored.
 *  - writes: stores executed, counted per lane (k lanes storing at once count k, although one lands).
 *  - correct: the final `shared` equals what one thread running the loop over all values in
 *    order would leave: the largest value by IEEE <, or `initial` if no value exceeds it
 *    (NaN never compares greater, so NaNs are skipped, as in the seed).
 *
 * Scheduling models (yamr_race_sim_mode):
 *  - LOCKSTEP: the lanes of a warp execute together. A compare step reads `shared` once for all
 *    the warp's lanes still in the loop; lanes whose compare is false leave. A store step stores
 *    from every remaining lane at once; exactly one store lands, chosen by the write policy.
 *    Warps are interleaved by a scheduler that picks a uniformly random unfinished warp for each
 *    step, so a warp can be preempted between its compare and its store. With two or more warps
 *    this can end with a wrong result (a stale store lands after the warp holding the maximum
 *    has re-read it and left).
 *  - ITS (Independent Thread Scheduling): every lane is its own thread; the scheduler picks a
 *    uniformly random unfinished thread for each step. Stores never coincide, so the write
 *    policy has no effect. Wrong results are possible inside one warp.
 * Lanes at or past `threads` (in the last warp) do not exist. Every schedule terminates: a lane
 * stores again only after a smaller value landed since its previous store, so by induction on the
 * value's rank each lane stores finitely often.
 *
 * All randomness comes from one splitmix64 state (a uint64_t the caller seeds and owns), so a run
 * is a deterministic function of (config, values, seed). Pure C99, libc and libm only.
 */
#ifndef YAMR_RACE_SIM_H
#define YAMR_RACE_SIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    YAMR_RACE_SIM_OK = 0,
    YAMR_RACE_SIM_INVALID_ARGUMENT = -1, /**< NULL pointer, size or enum out of range */
    YAMR_RACE_SIM_OUT_OF_MEMORY = -2
};

/** Which of several simultaneous stores of one LOCKSTEP warp lands. */
typedef enum {
    YAMR_RACE_SIM_LOWEST_LANE = 0,
    YAMR_RACE_SIM_HIGHEST_LANE,
    YAMR_RACE_SIM_RANDOM_LANE /**< uniform among the storing lanes */
} yamr_race_sim_write_policy;
#define YAMR_RACE_SIM_POLICY_COUNT 3

typedef enum { YAMR_RACE_SIM_LOCKSTEP = 0, YAMR_RACE_SIM_ITS } yamr_race_sim_mode;
#define YAMR_RACE_SIM_MODE_COUNT 2

/** Input orders for yamr_race_sim_fill(); every value is positive and finite. */
typedef enum {
    YAMR_RACE_SIM_ORDER_RANDOM = 0, /**< 1..n in a uniformly random order (only ranks matter, so
                                         this is i.i.d. continuous data without ties) */
    YAMR_RACE_SIM_ORDER_ASCENDING,  /**< 1, 2, ..., n */
    YAMR_RACE_SIM_ORDER_DESCENDING, /**< n, ..., 2, 1 */
    YAMR_RACE_SIM_ORDER_ALL_EQUAL,  /**< every value 1 */
    YAMR_RACE_SIM_ORDER_ONE_LARGE,  /**< 1..n-1 in random order, and n at a uniform position */
    YAMR_RACE_SIM_ORDER_SPIKE       /**< every value 1 but one 2, at a uniform position */
} yamr_race_sim_order;
#define YAMR_RACE_SIM_ORDER_COUNT 6

typedef struct {
    int warp_width; /**< lanes per warp, 1..64 (32 on NVIDIA, 64 on AMD GCN/CDNA) */
    int threads;    /**< block size, >= 1; need not be a multiple of warp_width */
    yamr_race_sim_mode mode;
    yamr_race_sim_write_policy policy;
    float initial;  /**< the value thread 0 stores first: the seed uses -3.402e+38f, a little above
                         -FLT_MAX; -INFINITY is the true identity */
} yamr_race_sim_config;

typedef struct {
    float result;          /**< final value of `shared` */
    int correct;           /**< 1 if result is what a sequential loop gives, else 0 */
    int warps;             /**< ceil(threads / warp_width) */
    int first_warp_passes; /**< passes of warp 0 */
    int max_warp_passes;   /**< largest passes over the block's warps */
    int64_t writes;        /**< stores executed, per lane */
    int64_t steps;         /**< scheduler steps (warp steps in LOCKSTEP, thread steps in ITS) */
} yamr_race_sim_result;

/** Distribution of a passes count over samples; p50 and p99 are nearest-rank percentiles. */
typedef struct {
    double mean;
    double variance; /**< sample variance (divides by samples - 1) */
    int p50;
    int p99;
    int max;
} yamr_race_sim_dist;

typedef struct {
    int64_t trials;
    int64_t wrong;                   /**< trials whose result was not correct */
    double writes_mean;              /**< per trial */
    yamr_race_sim_dist first_warp;   /**< passes of warp 0, one sample per trial */
    yamr_race_sim_dist any_warp;     /**< passes of every warp of every trial */
    yamr_race_sim_dist slowest_warp; /**< max passes over the block's warps, one sample per trial */
} yamr_race_sim_stats;

/** splitmix64: advances *state, returns 64 random bits. */
uint64_t yamr_race_sim_rng_next(uint64_t *state);
/** Uniform integer in [0, bound), bound >= 1, without modulo bias (Lemire's method). */
uint32_t yamr_race_sim_rng_below(uint64_t *state, uint32_t bound);

/** ceil(threads / warp_width), or YAMR_RACE_SIM_INVALID_ARGUMENT if the config is invalid. */
int yamr_race_sim_warp_count(const yamr_race_sim_config *cfg);

/**
 * Simulates one block. values[0..threads-1] are the lanes' v. passes_per_warp, if not NULL, gets
 * yamr_race_sim_warp_count(cfg) entries. Returns YAMR_RACE_SIM_OK, or a negative status with
 * *out and passes_per_warp untouched.
 */
int yamr_race_sim_run(const yamr_race_sim_config *cfg, const float *values, uint64_t *rng_state,
                      yamr_race_sim_result *out, int *passes_per_warp);

/** Writes n >= 1 values in the given order. Returns YAMR_RACE_SIM_OK or a negative status. */
int yamr_race_sim_fill(yamr_race_sim_order order, int n, float *values, uint64_t *rng_state);

/** Runs `trials` >= 1 blocks, each on fresh values of the given order, and summarises them. */
int yamr_race_sim_trials(const yamr_race_sim_config *cfg, yamr_race_sim_order order,
                         int64_t trials, uint64_t *rng_state, yamr_race_sim_stats *out);

/*
 * Closed forms for ONE LOCKSTEP warp of n >= 1 lanes (threads == n <= warp_width) on values from
 * yamr_race_sim_fill(order, n), initial below every value. With distinct values in random order
 * the passes count has the law of the number of cycles of a uniform random permutation of n
 * (for every policy): mean H_n = sum_{k<=n} 1/k, variance H_n - sum_{k<=n} 1/k^2.
 * docs/race-behaviour.md derives them. Invalid arguments give -1.0.
 */
double yamr_race_sim_expected_passes(yamr_race_sim_order order, yamr_race_sim_write_policy policy,
                                     int n);
double yamr_race_sim_passes_variance(yamr_race_sim_order order, yamr_race_sim_write_policy policy,
                                     int n);
/** P(passes == k) for ORDER_RANDOM, any policy: |s(n,k)| / n! (unsigned Stirling, first kind). */
double yamr_race_sim_passes_probability(int n, int k);
/** Mean writes (stores executed) for ORDER_RANDOM, any policy: 2n - H_n. */
double yamr_race_sim_expected_writes(int n);

const char *yamr_race_sim_policy_name(yamr_race_sim_write_policy policy);
const char *yamr_race_sim_mode_name(yamr_race_sim_mode mode);
const char *yamr_race_sim_order_name(yamr_race_sim_order order);

#ifdef __cplusplus
}
#endif

#endif /* YAMR_RACE_SIM_H */
