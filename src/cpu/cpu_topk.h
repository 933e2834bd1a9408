/* SPDX-License-Identifier: MIT */
/* The CPU backend of top-k (cpu_topk.c). */
#ifndef YAMR_CPU_TOPK_H
#define YAMR_CPU_TOPK_H

#include "cpu_backend.h"
#include "topk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a top-k call goes over threads: `threads` (>= 1) taking whole rows, or with `split` each
 * row cut into one range per thread and the ranges' lists merged (a few long rows). */
typedef struct {
    int threads;
    int split;
} yamr__cpu_topk_split;

yamr__cpu_topk_split yamr__cpu_topk_plan(const yamr__cpu_config *cfg, size_t rows, size_t cols,
                                         size_t k, size_t elem);

/* Runs c on the CPU (c->in, values and indices are host memory). YAMR_ERROR_OUT_OF_MEMORY,
 * having written nothing, when its buffers cannot be allocated. */
yamr_status yamr__cpu_topk(const yamr__cpu_config *cfg, const yamr__topk_call *c);

#ifdef __cplusplus
}
#endif

#endif /* YAMR_CPU_TOPK_H */
