/* The context object: device facts cached once at creation, and the caller's settings. */
#ifndef YAMR_CONTEXT_H
#define YAMR_CONTEXT_H

#include "cpu_backend.h"
#include "yamr_internal.h"

struct yamr_context {
    int device; /* GPU ordinal or YAMR_DEVICE_CPU */
    yamr_device_info info;
    yamr__gpu *gpu; /* NULL for the CPU backend */
    yamr__cpu_config cpu; /* the CPU backend's instruction set and thread cap */
    yamr_variant variant;
    yamr_nan_policy nan_policy;
    char error[512];   /* the last device runtime message */
    char report[4096]; /* yamr_report()'s text */
    char batch_note[320]; /* the last batched call's kernel shape and why (rows.c) */
};

#endif /* YAMR_CONTEXT_H */
