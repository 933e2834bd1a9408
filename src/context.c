/* SPDX-License-Identifier: MIT */
/* Context lifetime, settings and the device report. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "context.h"

/* The reason a context was not made: to `why` (may be NULL) for yamr_create_ex(), and to the
 * thread's yamr_last_error(NULL) as "yamr_create: <reason>". */
static yamr_status create_failed(yamr_status s, char *why, size_t why_len, const char *reason)
{
    if (why && why_len) snprintf(why, why_len, "%s", reason);
    return yamr__fail(s, NULL, 0, "yamr_create: %s", reason);
}

yamr_status yamr_create(yamr_context **ctx, int device)
{
    return yamr_create_ex(ctx, device, NULL, 0);
}

yamr_status yamr_create_ex(yamr_context **ctx, int device, char *why, size_t why_len)
{
    if (why && why_len) why[0] = '\0';
    if (!ctx) return create_failed(YAMR_ERROR_INVALID_VALUE, why, why_len, "ctx is NULL");
    if (device < YAMR_DEVICE_CPU) {
        char reason[128];
        snprintf(reason, sizeof reason,
                 "device (%d) is neither a GPU ordinal (0 and up) nor YAMR_DEVICE_CPU (-1)",
                 device);
        return create_failed(YAMR_ERROR_INVALID_VALUE, why, why_len, reason);
    }
    yamr_context *c = (yamr_context *)calloc(1, sizeof *c);
    if (!c)
        return create_failed(YAMR_ERROR_OUT_OF_MEMORY, why, why_len,
                             "out of host memory for the context");
    c->device = device;
    c->variant = YAMR_VARIANT_AUTO;
    c->nan_policy = YAMR_NAN_PROPAGATE;
    c->cpu.isa = yamr__cpu_detect_isa();
    c->cpu.node_share = yamr__cpu_node_share();
    c->cpu.stream_answer_bytes = YAMR__CPU_STREAM_ANSWER_BYTES;
    if (device == YAMR_DEVICE_CPU) {
        c->info.vendor = YAMR_VENDOR_CPU;
        strcpy(c->info.name, "cpu");
        strcpy(c->info.arch, "cpu");
        c->info.warp_size = 1;
        c->info.multiprocessors = 1;
        c->info.max_block_threads = 1;
    } else {
        yamr_status s = yamr__gpu_open(device, &c->gpu, &c->info, c->error, sizeof c->error);
        if (s != YAMR_SUCCESS) {
            create_failed(s, why, why_len, c->error);
            free(c);
            return s;
        }
    }
    c->family = yamr__device_family(&c->info);
    *ctx = c;
    return YAMR_SUCCESS;
}

void yamr_destroy(yamr_context *ctx)
{
    if (!ctx) return;
    yamr_device_free(ctx, ctx->scratch); /* nothing to report to; NULL is a no-op */
    if (ctx->gpu) yamr__gpu_close(ctx->gpu);
    free(ctx);
}

const char *yamr_last_error(const yamr_context *ctx)
{
    return ctx ? ctx->error : yamr__thread_error();
}

/* A NULL context: the message goes to the thread's buffer. */
#define NULL_CTX(fn) yamr__fail(YAMR_ERROR_INVALID_VALUE, NULL, 0, fn ": ctx is NULL")

yamr_status yamr_set_variant(yamr_context *ctx, yamr_variant v)
{
    if (!ctx) return NULL_CTX("yamr_set_variant");
    if (v < YAMR_VARIANT_AUTO || v >= YAMR_VARIANT_COUNT)
        return yamr__fail(YAMR_ERROR_INVALID_VALUE, ctx->error, sizeof ctx->error,
                          "yamr_set_variant: v (%d) is not a yamr_variant (0 to %d)", (int)v,
                          YAMR_VARIANT_COUNT - 1);
    if (v != YAMR_VARIANT_AUTO) {
        const yamr__variant_info *row = yamr__variant_lookup(v);
        int runs_somewhere = 0;
        for (int op = 0; op < YAMR_OP_COUNT && !runs_somewhere; ++op)
            runs_somewhere = yamr__variant_runs_on(row, &ctx->info, (yamr_op)op, YAMR_DTYPE_F32);
        if (!runs_somewhere) return YAMR_ERROR_UNSUPPORTED;
    }
    ctx->variant = v;
    return YAMR_SUCCESS;
}

yamr_status yamr_set_nan_policy(yamr_context *ctx, yamr_nan_policy p)
{
    if (!ctx) return NULL_CTX("yamr_set_nan_policy");
    if (p != YAMR_NAN_PROPAGATE && p != YAMR_NAN_IGNORE)
        return yamr__fail(YAMR_ERROR_INVALID_VALUE, ctx->error, sizeof ctx->error,
                          "yamr_set_nan_policy: p (%d) is not a yamr_nan_policy (0 or 1)", (int)p);
    ctx->nan_policy = p;
    return YAMR_SUCCESS;
}

yamr_status yamr_get_nan_policy(const yamr_context *ctx, yamr_nan_policy *p)
{
    if (!ctx) return NULL_CTX("yamr_get_nan_policy");
    if (!p) return yamr__fail(YAMR_ERROR_INVALID_VALUE, NULL, 0, "yamr_get_nan_policy: p is NULL");
    *p = ctx->nan_policy;
    return YAMR_SUCCESS;
}

yamr_status yamr_get_device_info(const yamr_context *ctx, yamr_device_info *info)
{
    if (!ctx) return NULL_CTX("yamr_get_device_info");
    if (!info)
        return yamr__fail(YAMR_ERROR_INVALID_VALUE, NULL, 0, "yamr_get_device_info: info is NULL");
    *info = ctx->info;
    return YAMR_SUCCESS;
}

static const char *vendor_name(yamr_vendor v)
{
    switch (v) {
    case YAMR_VENDOR_NVIDIA: return "NVIDIA";
    case YAMR_VENDOR_AMD: return "AMD";
    default: return "CPU";
    }
}

/* Appends to a bounded text buffer; output past its end is dropped. */
static void append(char *buf, size_t cap, size_t *used, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    int w = vsnprintf(buf + *used, cap - *used, fmt, args);
    va_end(args);
    if (w > 0) *used = (size_t)w < cap - *used ? *used + (size_t)w : cap - 1;
}

const char *yamr_report(yamr_context *ctx)
{
    if (!ctx) return "";
    const yamr_device_info *d = &ctx->info;
    char *out = ctx->report;
    const size_t cap = sizeof ctx->report;
    size_t used = 0;
    out[0] = '\0';
    append(out, cap, &used, "yamr %s (%s build)\n", YAMR_VERSION_STRING, YAMR_PLATFORM_STRING);
    if (!ctx->gpu) { /* warps, blocks and the GPU variants mean nothing here */
        const int threads = yamr__cpu_threads_for(&ctx->cpu, (size_t)-1);
        append(out, cap, &used, "device:      the CPU backend, %s vectors\n",
               yamr__cpu_isa_name(ctx->cpu.isa));
        append(out, cap, &used, "threads:     %d per call at most (%s)\n", threads,
               ctx->cpu.max_threads          ? "yamr_set_cpu_threads"
               : yamr__cpu_with_openmp()     ? "OpenMP: OMP_NUM_THREADS, else the cores"
                                             : "built without OpenMP");
        append(out, cap, &used, "nan policy:  %s\n",
               ctx->nan_policy == YAMR_NAN_PROPAGATE ? "propagate" : "ignore");
    } else {
        append(out, cap, &used, "device:      %s (%s), arch %s\n", d->name,
               vendor_name(d->vendor), d->arch);
        append(out, cap, &used, "warp width:  %d lanes, %s\n", d->warp_size,
               d->independent_thread_scheduling ? "independent thread scheduling"
                                                : "lockstep (no independent thread scheduling)");
        append(out, cap, &used, "units:       %d multiprocessors, %d threads per block\n",
               d->multiprocessors, d->max_block_threads);
        append(out, cap, &used, "policies:    the %s rows: %s\n", yamr__family_name(ctx->family),
               yamr__family_basis(ctx->family));
        append(out, cap, &used, "nan policy:  %s\n",
               ctx->nan_policy == YAMR_NAN_PROPAGATE ? "propagate" : "ignore");
        append(out, cap, &used, "variant set: %s\n", yamr_variant_name(ctx->variant));
    }
    for (int i = 0; i < yamr__variant_count && ctx->gpu; ++i) {
        const yamr__variant_info *v = &yamr__variants[i];
        append(out, cap, &used, "  %-14s %s%s\n", v->name,
               yamr__variant_runs_on(v, d, YAMR_OP_MAX, YAMR_DTYPE_F32) ? "runs here" : "not here",
               (v->flags & YAMR__RACY) ? ", racy: never picked by AUTO" : "");
    }
    const char *reason = "";
    const yamr__variant_info *pick =
        yamr__select_variant(d, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, 0, &reason);
    append(out, cap, &used, "AUTO picks:  %s (%s)\n", pick ? pick->name : "the CPU backend",
           reason);
    const yamr__variant_info *small = yamr__select_variant(d, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, 1,
                                                           &reason);
    if (small && small != pick)
        append(out, cap, &used, "             %s for a max/min/argmax/argmin of elements of at "
                                "most 4 bytes that runs one block\n",
               small->name);
    yamr_plan plan;
    char line[512] = "no call yet";
    if (yamr_last_plan(ctx, &plan) == YAMR_SUCCESS) yamr__describe_plan(ctx, &plan, line, sizeof line);
    append(out, cap, &used, "last call:   %s\n", line);
    if (ctx->has_plan && yamr__plan_policy(&plan))
        append(out, cap, &used, "             policy %s: %s\n",
               yamr__policy_row(yamr__plan_policy(&plan))->name,
               yamr__policy_row(yamr__plan_policy(&plan))->reason);
    return out;
}
