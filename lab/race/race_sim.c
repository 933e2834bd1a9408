/* SPDX-License-Identifier: MIT */
/* race_sim: see race_sim.h for the model and the definitions. */
#include "race_sim.h"

#include <stdlib.h>
#include <string.h>

#define YAMR_RACE_SIM_MAX_WARP_WIDTH 64
#define YAMR_RACE_SIM_MAX_THREADS (1 << 24) /* values 1..n are exact floats up to 2^24 */

enum { YAMR_RACE_SIM_PHASE_COMPARE, YAMR_RACE_SIM_PHASE_STORE, YAMR_RACE_SIM_PHASE_DONE };

uint64_t yamr_race_sim_rng_next(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

uint32_t yamr_race_sim_rng_below(uint64_t *state, uint32_t bound)
{
    uint64_t m = (yamr_race_sim_rng_next(state) >> 32) * (uint64_t)bound;
    if ((uint32_t)m < bound) {
        const uint32_t threshold = (uint32_t)(-bound) % bound; /* 2^32 mod bound */
        while ((uint32_t)m < threshold)
            m = (yamr_race_sim_rng_next(state) >> 32) * (uint64_t)bound;
    }
    return (uint32_t)(m >> 32);
}

static int yamr_race_sim_config_valid(const yamr_race_sim_config *cfg)
{
    return cfg != NULL && cfg->warp_width >= 1 && cfg->warp_width <= YAMR_RACE_SIM_MAX_WARP_WIDTH &&
           cfg->threads >= 1 && cfg->threads <= YAMR_RACE_SIM_MAX_THREADS &&
           (unsigned)cfg->mode < YAMR_RACE_SIM_MODE_COUNT &&
           (unsigned)cfg->policy < YAMR_RACE_SIM_POLICY_COUNT;
}

int yamr_race_sim_warp_count(const yamr_race_sim_config *cfg)
{
    if (!yamr_race_sim_config_valid(cfg))
        return YAMR_RACE_SIM_INVALID_ARGUMENT;
    return (cfg->threads + cfg->warp_width - 1) / cfg->warp_width;
}

/* A scheduling unit is a warp in LOCKSTEP mode and a thread in ITS mode. */
typedef struct {
    const yamr_race_sim_config *cfg;
    const float *values;
    uint64_t *rng;
    float shared;
    int64_t writes;
    unsigned char *unit_phase; /* per unit */
    unsigned char *in_loop;    /* per thread, LOCKSTEP only: 1 while the lane has not left */
    int *lane_passes;          /* per thread */
} yamr_race_sim_state;

/* Invariant: the lanes of warp w with in_loop set are exactly those that compared true at the
 * warp's last compare step (all lanes before the first one), so they all store together. */
static void yamr_race_sim_lockstep_step(yamr_race_sim_state *s, int w)
{
    const int lo = w * s->cfg->warp_width;
    const int hi = lo + s->cfg->warp_width < s->cfg->threads ? lo + s->cfg->warp_width
                                                             : s->cfg->threads;
    int i;
    if (s->unit_phase[w] == YAMR_RACE_SIM_PHASE_COMPARE) {
        const float seen = s->shared; /* one read for the whole warp */
        int remaining = 0;
        for (i = lo; i < hi; i++) {
            if (!s->in_loop[i])
                continue;
            if (seen < s->values[i])
                remaining++;
            else
                s->in_loop[i] = 0;
        }
        s->unit_phase[w] = remaining ? YAMR_RACE_SIM_PHASE_STORE : YAMR_RACE_SIM_PHASE_DONE;
    } else {
        int storers = 0, landed = -1;
        for (i = lo; i < hi; i++) {
            if (!s->in_loop[i])
                continue;
            s->lane_passes[i]++;
            storers++;
            if (landed < 0 || s->cfg->policy == YAMR_RACE_SIM_HIGHEST_LANE)
                landed = i;
        }
        if (s->cfg->policy == YAMR_RACE_SIM_RANDOM_LANE) {
            int skip = (int)yamr_race_sim_rng_below(s->rng, (uint32_t)storers);
            for (i = lo; i < hi; i++) {
                if (s->in_loop[i] && skip-- == 0) {
                    landed = i;
                    break;
                }
            }
        }
        s->writes += storers;
        s->shared = s->values[landed];
        s->unit_phase[w] = YAMR_RACE_SIM_PHASE_COMPARE;
    }
}

static void yamr_race_sim_its_step(yamr_race_sim_state *s, int t)
{
    if (s->unit_phase[t] == YAMR_RACE_SIM_PHASE_COMPARE) {
        s->unit_phase[t] = s->shared < s->values[t] ? YAMR_RACE_SIM_PHASE_STORE
                                                    : YAMR_RACE_SIM_PHASE_DONE;
    } else {
        s->shared = s->values[t];
        s->lane_passes[t]++;
        s->writes++;
        s->unit_phase[t] = YAMR_RACE_SIM_PHASE_COMPARE;
    }
}

int yamr_race_sim_run(const yamr_race_sim_config *cfg, const float *values, uint64_t *rng_state,
                      yamr_race_sim_result *out, int *passes_per_warp)
{
    yamr_race_sim_state s;
    int *live;
    int i, w, warps, units, live_count;
    int64_t steps = 0;
    float sequential;

    if (!yamr_race_sim_config_valid(cfg) || values == NULL || rng_state == NULL || out == NULL)
        return YAMR_RACE_SIM_INVALID_ARGUMENT;
    warps = yamr_race_sim_warp_count(cfg);
    units = cfg->mode == YAMR_RACE_SIM_LOCKSTEP ? warps : cfg->threads;

    s.cfg = cfg;
    s.values = values;
    s.rng = rng_state;
    s.shared = cfg->initial; /* thread 0's store, ordered before every read by the barrier */
    s.writes = 0;
    s.unit_phase = malloc((size_t)units);
    s.in_loop = malloc((size_t)cfg->threads);
    s.lane_passes = calloc((size_t)cfg->threads, sizeof *s.lane_passes);
    live = malloc((size_t)units * sizeof *live);
    if (!s.unit_phase || !s.in_loop || !s.lane_passes || !live) {
        free(s.unit_phase);
        free(s.in_loop);
        free(s.lane_passes);
        free(live);
        return YAMR_RACE_SIM_OUT_OF_MEMORY;
    }
    memset(s.unit_phase, YAMR_RACE_SIM_PHASE_COMPARE, (size_t)units);
    memset(s.in_loop, 1, (size_t)cfg->threads);

    /* live[0..live_count-1] holds the unfinished units; each step picks one uniformly. */
    for (i = 0; i < units; i++)
        live[i] = i;
    live_count = units;
    while (live_count > 0) {
        const int slot = live_count == 1 ? 0
                                         : (int)yamr_race_sim_rng_below(rng_state, (uint32_t)live_count);
        const int unit = live[slot];
        if (cfg->mode == YAMR_RACE_SIM_LOCKSTEP)
            yamr_race_sim_lockstep_step(&s, unit);
        else
            yamr_race_sim_its_step(&s, unit);
        steps++;
        if (s.unit_phase[unit] == YAMR_RACE_SIM_PHASE_DONE)
            live[slot] = live[--live_count];
    }

    sequential = cfg->initial;
    for (i = 0; i < cfg->threads; i++)
        if (sequential < values[i])
            sequential = values[i];

    out->result = s.shared;
    out->correct = s.shared == sequential || (s.shared != s.shared && sequential != sequential);
    out->warps = warps;
    out->first_warp_passes = 0;
    out->max_warp_passes = 0;
    out->writes = s.writes;
    out->steps = steps;
    for (w = 0; w < warps; w++) {
        const int lo = w * cfg->warp_width;
        const int hi = lo + cfg->warp_width < cfg->threads ? lo + cfg->warp_width : cfg->threads;
        int p = 0;
        for (i = lo; i < hi; i++)
            if (s.lane_passes[i] > p)
                p = s.lane_passes[i];
        if (w == 0)
            out->first_warp_passes = p;
        if (p > out->max_warp_passes)
            out->max_warp_passes = p;
        if (passes_per_warp)
            passes_per_warp[w] = p;
    }

    free(s.unit_phase);
    free(s.in_loop);
    free(s.lane_passes);
    free(live);
    return YAMR_RACE_SIM_OK;
}

static void yamr_race_sim_shuffle(float *values, int n, uint64_t *rng)
{
    int i;
    for (i = n - 1; i > 0; i--) {
        const int j = (int)yamr_race_sim_rng_below(rng, (uint32_t)i + 1u);
        const float t = values[i];
        values[i] = values[j];
        values[j] = t;
    }
}

int yamr_race_sim_fill(yamr_race_sim_order order, int n, float *values, uint64_t *rng_state)
{
    int i, at;
    float t;
    if (n < 1 || n > YAMR_RACE_SIM_MAX_THREADS || values == NULL || rng_state == NULL ||
        (unsigned)order >= YAMR_RACE_SIM_ORDER_COUNT)
        return YAMR_RACE_SIM_INVALID_ARGUMENT;
    for (i = 0; i < n; i++) {
        switch (order) {
        case YAMR_RACE_SIM_ORDER_DESCENDING: values[i] = (float)(n - i); break;
        case YAMR_RACE_SIM_ORDER_ALL_EQUAL:
        case YAMR_RACE_SIM_ORDER_SPIKE: values[i] = 1.0f; break;
        default: values[i] = (float)(i + 1); break;
        }
    }
    switch (order) {
    case YAMR_RACE_SIM_ORDER_RANDOM: yamr_race_sim_shuffle(values, n, rng_state); break;
    case YAMR_RACE_SIM_ORDER_ONE_LARGE:
        /* Small values 1..n-1 shuffled; then n swapped to a uniform position. The swap is a fixed
         * rearrangement given the position, so the small values stay in uniform random order. */
        yamr_race_sim_shuffle(values, n - 1, rng_state);
        at = (int)yamr_race_sim_rng_below(rng_state, (uint32_t)n);
        t = values[at];
        values[at] = values[n - 1];
        values[n - 1] = t;
        break;
    case YAMR_RACE_SIM_ORDER_SPIKE:
        values[yamr_race_sim_rng_below(rng_state, (uint32_t)n)] = 2.0f;
        break;
    default: break;
    }
    return YAMR_RACE_SIM_OK;
}

/* Histogram of non-negative passes counts; count grows on demand. */
typedef struct {
    int64_t *count;
    int size;
    int64_t samples;
    double sum;
} yamr_race_sim_hist;

static int yamr_race_sim_hist_add(yamr_race_sim_hist *h, int x)
{
    if (x >= h->size) {
        const int size = x + 1 > 2 * h->size ? x + 1 : 2 * h->size;
        int64_t *count = realloc(h->count, (size_t)size * sizeof *count);
        if (!count)
            return YAMR_RACE_SIM_OUT_OF_MEMORY;
        memset(count + h->size, 0, (size_t)(size - h->size) * sizeof *count);
        h->count = count;
        h->size = size;
    }
    h->count[x]++;
    h->samples++;
    h->sum += x;
    return YAMR_RACE_SIM_OK;
}

/* Smallest x with at least ceil(samples * percent / 100) samples <= x. */
static int yamr_race_sim_hist_percentile(const yamr_race_sim_hist *h, int percent)
{
    const int64_t rank = (h->samples * percent + 99) / 100;
    int64_t seen = 0;
    int x;
    for (x = 0; x < h->size; x++) {
        seen += h->count[x];
        if (seen >= rank && seen > 0)
            return x;
    }
    return 0;
}

static void yamr_race_sim_hist_dist(const yamr_race_sim_hist *h, yamr_race_sim_dist *d)
{
    double squares = 0.0;
    int x;
    d->mean = h->samples ? h->sum / (double)h->samples : 0.0;
    d->max = 0;
    for (x = 0; x < h->size; x++) {
        squares += (double)h->count[x] * (x - d->mean) * (x - d->mean);
        if (h->count[x])
            d->max = x;
    }
    d->variance = h->samples > 1 ? squares / (double)(h->samples - 1) : 0.0;
    d->p50 = yamr_race_sim_hist_percentile(h, 50);
    d->p99 = yamr_race_sim_hist_percentile(h, 99);
}

int yamr_race_sim_trials(const yamr_race_sim_config *cfg, yamr_race_sim_order order,
                         int64_t trials, uint64_t *rng_state, yamr_race_sim_stats *out)
{
    yamr_race_sim_hist first = {0}, any = {0}, slowest = {0};
    yamr_race_sim_result r;
    float *values;
    int *passes;
    int64_t t, wrong = 0;
    double writes = 0.0;
    int w, warps, status = YAMR_RACE_SIM_OK;

    warps = yamr_race_sim_warp_count(cfg);
    if (warps < 0 || trials < 1 || rng_state == NULL || out == NULL ||
        (unsigned)order >= YAMR_RACE_SIM_ORDER_COUNT)
        return YAMR_RACE_SIM_INVALID_ARGUMENT;
    values = malloc((size_t)cfg->threads * sizeof *values);
    passes = malloc((size_t)warps * sizeof *passes);
    if (!values || !passes)
        status = YAMR_RACE_SIM_OUT_OF_MEMORY;
    for (t = 0; t < trials && status == YAMR_RACE_SIM_OK; t++) {
        status = yamr_race_sim_fill(order, cfg->threads, values, rng_state);
        if (status == YAMR_RACE_SIM_OK)
            status = yamr_race_sim_run(cfg, values, rng_state, &r, passes);
        if (status != YAMR_RACE_SIM_OK)
            break;
        wrong += !r.correct;
        writes += (double)r.writes;
        if (yamr_race_sim_hist_add(&first, r.first_warp_passes) ||
            yamr_race_sim_hist_add(&slowest, r.max_warp_passes))
            status = YAMR_RACE_SIM_OUT_OF_MEMORY;
        for (w = 0; w < warps && status == YAMR_RACE_SIM_OK; w++)
            status = yamr_race_sim_hist_add(&any, passes[w]);
    }
    if (status == YAMR_RACE_SIM_OK) {
        out->trials = trials;
        out->wrong = wrong;
        out->writes_mean = writes / (double)trials;
        yamr_race_sim_hist_dist(&first, &out->first_warp);
        yamr_race_sim_hist_dist(&any, &out->any_warp);
        yamr_race_sim_hist_dist(&slowest, &out->slowest_warp);
    }
    free(first.count);
    free(any.count);
    free(slowest.count);
    free(values);
    free(passes);
    return status;
}

/* sum_{k=1..n} 1/k^power, summed from the small terms up. */
static double yamr_race_sim_harmonic(int n, int power)
{
    double sum = 0.0;
    int k;
    for (k = n; k >= 1; k--)
        sum += power == 1 ? 1.0 / k : 1.0 / ((double)k * k);
    return sum;
}

/* 1 if (order, policy) makes the passes of one warp a fixed number, written to *passes. */
static int yamr_race_sim_deterministic(yamr_race_sim_order order, yamr_race_sim_write_policy policy,
                                       int n, int *passes)
{
    switch (order) {
    case YAMR_RACE_SIM_ORDER_ALL_EQUAL: *passes = 1; return 1;
    case YAMR_RACE_SIM_ORDER_ASCENDING:
    case YAMR_RACE_SIM_ORDER_DESCENDING:
        if (policy == YAMR_RACE_SIM_RANDOM_LANE)
            return 0;
        /* Every storing lane is a record, seen from the landing end: n stores if the landing
         * lane holds the smallest remaining value, else 1. */
        *passes = (order == YAMR_RACE_SIM_ORDER_ASCENDING) == (policy == YAMR_RACE_SIM_LOWEST_LANE)
                      ? n
                      : 1;
        return 1;
    default: return 0;
    }
}

static int yamr_race_sim_closed_form_args_valid(yamr_race_sim_order order,
                                                yamr_race_sim_write_policy policy, int n)
{
    return n >= 1 && (unsigned)order < YAMR_RACE_SIM_ORDER_COUNT &&
           (unsigned)policy < YAMR_RACE_SIM_POLICY_COUNT;
}

double yamr_race_sim_expected_passes(yamr_race_sim_order order, yamr_race_sim_write_policy policy,
                                     int n)
{
    int passes;
    if (!yamr_race_sim_closed_form_args_valid(order, policy, n))
        return -1.0;
    if (yamr_race_sim_deterministic(order, policy, n, &passes))
        return passes;
    if (order == YAMR_RACE_SIM_ORDER_SPIKE)
        return 2.0 - 1.0 / n; /* 1 pass iff the first landed store is the large value */
    return yamr_race_sim_harmonic(n, 1);
}

double yamr_race_sim_passes_variance(yamr_race_sim_order order, yamr_race_sim_write_policy policy,
                                     int n)
{
    int passes;
    if (!yamr_race_sim_closed_form_args_valid(order, policy, n))
        return -1.0;
    if (yamr_race_sim_deterministic(order, policy, n, &passes))
        return 0.0;
    if (order == YAMR_RACE_SIM_ORDER_SPIKE)
        return (1.0 / n) * (1.0 - 1.0 / n);
    return yamr_race_sim_harmonic(n, 1) - yamr_race_sim_harmonic(n, 2);
}

double yamr_race_sim_passes_probability(int n, int k)
{
    /* p[j] after step m is P(m-permutation has j cycles): p_m(j) = p_{m-1}(j-1)/m
     * + p_{m-1}(j)(m-1)/m, from whether element m is a fixed point. */
    double *p, result;
    int m, j;
    if (n < 1 || k < 1 || k > n)
        return 0.0;
    p = calloc((size_t)n + 1, sizeof *p);
    if (!p)
        return -1.0;
    p[0] = 1.0;
    for (m = 1; m <= n; m++) {
        for (j = m; j >= 1; j--)
            p[j] = p[j - 1] / m + p[j] * (m - 1) / m;
        p[0] = 0.0;
    }
    result = p[k];
    free(p);
    return result;
}

double yamr_race_sim_expected_writes(int n)
{
    /* A round with k lanes storing lands a value of uniform rank among them, leaving U uniform
     * on {0..k-1} lanes above it: W_k = k + W_U, whose mean solves to 2k - H_k. */
    if (n < 1)
        return -1.0;
    return 2.0 * n - yamr_race_sim_harmonic(n, 1);
}

const char *yamr_race_sim_policy_name(yamr_race_sim_write_policy policy)
{
    static const char *const names[] = {"lowest", "highest", "random"};
    return (unsigned)policy < YAMR_RACE_SIM_POLICY_COUNT ? names[policy] : "?";
}

const char *yamr_race_sim_mode_name(yamr_race_sim_mode mode)
{
    static const char *const names[] = {"lockstep", "its"};
    return (unsigned)mode < YAMR_RACE_SIM_MODE_COUNT ? names[mode] : "?";
}

const char *yamr_race_sim_order_name(yamr_race_sim_order order)
{
    static const char *const names[] = {"random", "ascending", "descending",
                                        "all-equal", "one-large", "spike"};
    return (unsigned)order < YAMR_RACE_SIM_ORDER_COUNT ? names[order] : "?";
}
