/* SPDX-License-Identifier: MIT */
/* The CPU backend of top-k (cpu_topk.c). */
#ifndef YAMR_CPU_TOPK_H
#define YAMR_CPU_TOPK_H

#include "cpu_backend.h"
#include "topk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs c on the CPU as c->plan says (c->in, values and indices are host memory).
 * YAMR_ERROR_OUT_OF_MEMORY, having written nothing, when its buffers cannot be allocated. */
yamr_status yamr__cpu_topk(const yamr__cpu_config *cfg, const yamr__topk_call *c);

#ifdef __cplusplus
}
#endif

#endif /* YAMR_CPU_TOPK_H */
