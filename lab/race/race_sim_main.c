/* SPDX-License-Identifier: MIT */
/*
 * yamr-race-sim: prints, as Markdown tables, what the race simulator (race_sim.h) gives for the
 * seed's racy max loop next to the closed forms. docs/race-behaviour.md quotes its output.
 *
 *     yamr-race-sim [--trials N] [--seed S]
 *
 * One splitmix64 stream, seeded by S, runs through every row in the printed order, so the whole
 * output is a function of (N, S).
 */
#include "race_sim.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int yamr_race_sim_widths[] = {32, 64};
static const int yamr_race_sim_blocks[] = {64, 137, 256, 1024};

static int yamr_race_sim_cli_run(int warp_width, int threads, yamr_race_sim_mode mode,
                                 yamr_race_sim_write_policy policy, yamr_race_sim_order order,
                                 int64_t trials, uint64_t *rng, yamr_race_sim_stats *stats)
{
    yamr_race_sim_config cfg;
    int status;
    cfg.warp_width = warp_width;
    cfg.threads = threads;
    cfg.mode = mode;
    cfg.policy = policy;
    cfg.initial = -FLT_MAX;
    status = yamr_race_sim_trials(&cfg, order, trials, rng, stats);
    if (status != YAMR_RACE_SIM_OK)
        fprintf(stderr, "yamr-race-sim: simulation failed (status %d)\n", status);
    return status;
}

static int yamr_race_sim_parse_u64(const char *text, uint64_t *value)
{
    char *end;
    unsigned long long v;
    errno = 0;
    v = strtoull(text, &end, 0);
    if (errno || end == text || *end != '\0' || text[0] == '-')
        return 0;
    *value = (uint64_t)v;
    return 1;
}

int main(int argc, char **argv)
{
    uint64_t trials = 20000, seed = 1, rng;
    yamr_race_sim_stats st;
    int i, p, o, w;

    for (i = 1; i < argc; i++) {
        if (i + 1 < argc && strcmp(argv[i], "--trials") == 0 &&
            yamr_race_sim_parse_u64(argv[i + 1], &trials) && trials >= 1 && trials <= INT64_MAX) {
            i++;
        } else if (i + 1 < argc && strcmp(argv[i], "--seed") == 0 &&
                   yamr_race_sim_parse_u64(argv[i + 1], &seed)) {
            i++;
        } else {
            fprintf(stderr, "usage: %s [--trials N] [--seed S]\n", argv[0]);
            return 2;
        }
    }
    rng = seed;
    printf("yamr-race-sim --trials %" PRIu64 " --seed %" PRIu64 "\n\n", trials, seed);

    printf("### One lockstep warp, distinct values in random order\n\n");
    printf("| W | policy | mean passes | sd | p50 | p99 | max | H_W | theory sd | wrong | writes |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (w = 0; w < 2; w++) {
        const int W = yamr_race_sim_widths[w];
        for (p = 0; p < YAMR_RACE_SIM_POLICY_COUNT; p++) {
            if (yamr_race_sim_cli_run(W, W, YAMR_RACE_SIM_LOCKSTEP, (yamr_race_sim_write_policy)p,
                                      YAMR_RACE_SIM_ORDER_RANDOM, (int64_t)trials, &rng, &st))
                return 1;
            printf("| %d | %s | %.4f | %.4f | %d | %d | %d | %.4f | %.4f | %" PRId64 " | %.2f |\n",
                   W, yamr_race_sim_policy_name((yamr_race_sim_write_policy)p), st.first_warp.mean,
                   sqrt(st.first_warp.variance), st.first_warp.p50, st.first_warp.p99,
                   st.first_warp.max,
                   yamr_race_sim_expected_passes(YAMR_RACE_SIM_ORDER_RANDOM,
                                                 (yamr_race_sim_write_policy)p, W),
                   sqrt(yamr_race_sim_passes_variance(YAMR_RACE_SIM_ORDER_RANDOM,
                                                      (yamr_race_sim_write_policy)p, W)),
                   st.wrong, st.writes_mean);
        }
    }

    printf("\n### One lockstep warp, other orders: mean passes (closed form)\n\n");
    printf("| order | policy | W=32 | W=64 |\n|---|---|---|---|\n");
    for (o = 1; o < YAMR_RACE_SIM_ORDER_COUNT; o++) {
        for (p = 0; p < YAMR_RACE_SIM_POLICY_COUNT; p++) {
            printf("| %s | %s |", yamr_race_sim_order_name((yamr_race_sim_order)o),
                   yamr_race_sim_policy_name((yamr_race_sim_write_policy)p));
            for (w = 0; w < 2; w++) {
                const int W = yamr_race_sim_widths[w];
                if (yamr_race_sim_cli_run(W, W, YAMR_RACE_SIM_LOCKSTEP,
                                          (yamr_race_sim_write_policy)p, (yamr_race_sim_order)o,
                                          (int64_t)trials, &rng, &st))
                    return 1;
                printf(" %.4f (%.4f)%s |", st.first_warp.mean,
                       yamr_race_sim_expected_passes((yamr_race_sim_order)o,
                                                     (yamr_race_sim_write_policy)p, W),
                       st.wrong ? " WRONG" : "");
            }
            printf("\n");
        }
    }

    printf("\n### Blocks of several warps, random order: LOCKSTEP warps, random warp scheduler\n\n");
    printf("| W | threads | warps | policy | warp 0 mean | warp 0 p99 | all warps mean | all p99 |"
           " all max | slowest warp mean | wrong | wrong %% | writes |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (w = 0; w < 2; w++) {
        const int W = yamr_race_sim_widths[w];
        for (i = 0; i < 4; i++) {
            const int threads = yamr_race_sim_blocks[i];
            if (threads <= W)
                continue;
            for (p = 0; p < YAMR_RACE_SIM_POLICY_COUNT; p++) {
                if (yamr_race_sim_cli_run(W, threads, YAMR_RACE_SIM_LOCKSTEP,
                                          (yamr_race_sim_write_policy)p,
                                          YAMR_RACE_SIM_ORDER_RANDOM, (int64_t)trials, &rng, &st))
                    return 1;
                printf("| %d | %d | %d | %s | %.3f | %d | %.3f | %d | %d | %.3f | %" PRId64
                       " | %.2f | %.1f |\n",
                       W, threads, (threads + W - 1) / W,
                       yamr_race_sim_policy_name((yamr_race_sim_write_policy)p), st.first_warp.mean,
                       st.first_warp.p99, st.any_warp.mean, st.any_warp.p99, st.any_warp.max,
                       st.slowest_warp.mean, st.wrong, 100.0 * (double)st.wrong / (double)trials,
                       st.writes_mean);
            }
        }
    }

    printf("\n### Independent thread scheduling (random thread scheduler), random order\n\n");
    printf("| W | threads | warp 0 mean | warp 0 p99 | all warps mean | all p99 | all max |"
           " wrong | wrong %% | writes |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|\n");
    for (w = 0; w < 2; w++) {
        const int W = yamr_race_sim_widths[w];
        for (i = -1; i < 4; i++) {
            const int threads = i < 0 ? W : yamr_race_sim_blocks[i];
            if (i >= 0 && threads <= W)
                continue;
            if (yamr_race_sim_cli_run(W, threads, YAMR_RACE_SIM_ITS, YAMR_RACE_SIM_LOWEST_LANE,
                                      YAMR_RACE_SIM_ORDER_RANDOM, (int64_t)trials, &rng, &st))
                return 1;
            printf("| %d | %d | %.3f | %d | %.3f | %d | %d | %" PRId64 " | %.2f | %.1f |\n", W,
                   threads, st.first_warp.mean, st.first_warp.p99, st.any_warp.mean,
                   st.any_warp.p99, st.any_warp.max, st.wrong,
                   100.0 * (double)st.wrong / (double)trials, st.writes_mean);
        }
    }
    return 0;
}
