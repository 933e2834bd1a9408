/* SPDX-License-Identifier: MIT */
/* The context object: device facts cached once at creation, and the caller's settings. */
#ifndef YAMR_CONTEXT_H
#define YAMR_CONTEXT_H

#include "cpu/cpu_backend.h"
#include "yamr_internal.h"

struct yamr_context {
    int device; /* GPU ordinal or YAMR_DEVICE_CPU */
    yamr_device_info info;
    yamr__family family; /* which policy rows its calls run (src/policy.h) */
    yamr__gpu *gpu; /* NULL for the CPU backend */
    yamr__cpu_config cpu; /* the CPU backend's instruction set, thread cap, answer streaming */
    yamr_variant variant;
    yamr_nan_policy nan_policy;
    char error[512];   /* the last device runtime message */
    char report[4096]; /* yamr_report()'s text */
    yamr_plan last_plan; /* the plan of the last successful call (plan.c) */
    int has_plan;
    void *scratch; /* yamr_context_scratch(): context memory for layers over yamr, or NULL */
    size_t scratch_bytes;
};

/* The plan of a call (plan.c); `aligned`: the input is 16-byte aligned. The runtime's message
 * of a failed device query goes to err[errlen]. */
yamr_status yamr__make_plan(const yamr_context *ctx, yamr_call call, yamr_op op, yamr_dtype dtype,
                            size_t rows, size_t cols, int aligned, yamr_plan *plan, char *err,
                            size_t errlen);
/* The variant a grid-wide call with op and dtype runs on ctx (AUTO resolved; one_block: as
 * yamr__select_variant). */
yamr_status yamr__resolve_variant(const yamr_context *ctx, yamr_op op, yamr_dtype dtype,
                                  int one_block, yamr_variant *variant);
/* One line: the plan's call, size, kernel, grid, tuning and why (yamr_report(),
 * yamr_plan_describe()). */
void yamr__describe_plan(const yamr_context *ctx, const yamr_plan *plan, char *out, size_t cap);

#endif /* YAMR_CONTEXT_H */
