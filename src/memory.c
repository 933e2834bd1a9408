/* SPDX-License-Identifier: MIT */
/* Memory helpers: the context's own memory, so that C codes need no GPU header. */
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "context.h"

/* ctx, ptr and bytes of an allocating call `fn`, each refused by name. */
static yamr_status check_alloc(const char *fn, yamr_context *ctx, size_t bytes, void **ptr)
{
    if (!ctx) return yamr__fail(YAMR_ERROR_INVALID_VALUE, NULL, 0, "%s: ctx is NULL", fn);
    if (!ptr) return yamr__fail(YAMR_ERROR_INVALID_VALUE, ctx->error, sizeof ctx->error,
                                "%s: ptr is NULL", fn);
    if (bytes == 0) return yamr__fail(YAMR_ERROR_INVALID_VALUE, ctx->error, sizeof ctx->error,
                                      "%s: bytes is 0", fn);
    return YAMR_SUCCESS;
}

yamr_status yamr_device_alloc(yamr_context *ctx, size_t bytes, void **ptr)
{
    yamr_status s = check_alloc("yamr_device_alloc", ctx, bytes, ptr);
    if (s != YAMR_SUCCESS) return s;
    if (ctx->gpu) return yamr__gpu_alloc(ctx->gpu, bytes, ptr, ctx->error, sizeof ctx->error);
    void *p = malloc(bytes);
    if (!p) return YAMR_ERROR_OUT_OF_MEMORY;
    *ptr = p;
    return YAMR_SUCCESS;
}

yamr_status yamr_device_free(yamr_context *ctx, void *ptr)
{
    if (!ctx) return yamr__fail(YAMR_ERROR_INVALID_VALUE, NULL, 0, "yamr_device_free: ctx is NULL");
    if (!ptr) return YAMR_SUCCESS;
    if (ctx->gpu) return yamr__gpu_free(ctx->gpu, ptr, ctx->error, sizeof ctx->error);
    free(ptr);
    return YAMR_SUCCESS;
}

yamr_status yamr_context_scratch(yamr_context *ctx, size_t bytes, void **ptr)
{
    yamr_status s = check_alloc("yamr_context_scratch", ctx, bytes, ptr);
    if (s != YAMR_SUCCESS) return s;
    if (bytes > ctx->scratch_bytes) {
        /* Freed before the new allocation, so that growing never holds both. */
        void *old = ctx->scratch;
        ctx->scratch = NULL;
        ctx->scratch_bytes = 0;
        s = yamr_device_free(ctx, old);
        void *p = NULL;
        if (s == YAMR_SUCCESS) s = yamr_device_alloc(ctx, bytes, &p);
        if (s != YAMR_SUCCESS) return s;
        ctx->scratch = p;
        ctx->scratch_bytes = bytes;
    }
    *ptr = ctx->scratch;
    return YAMR_SUCCESS;
}

static yamr_status copy(yamr_context *ctx, void *dst, const void *src, size_t bytes, int to_device)
{
    const char *fn = to_device ? "yamr_copy_to_device" : "yamr_copy_to_host";
    if (!ctx) return yamr__fail(YAMR_ERROR_INVALID_VALUE, NULL, 0, "%s: ctx is NULL", fn);
    if (!dst || !src)
        return yamr__fail(YAMR_ERROR_INVALID_VALUE, ctx->error, sizeof ctx->error, "%s: %s is NULL",
                          fn, dst ? "src" : "dst");
    if (bytes == 0) return YAMR_SUCCESS;
    if (ctx->gpu)
        return yamr__gpu_copy(ctx->gpu, dst, src, bytes, to_device, ctx->error, sizeof ctx->error);
    memcpy(dst, src, bytes);
    return YAMR_SUCCESS;
}

yamr_status yamr_copy_to_device(yamr_context *ctx, void *dst, const void *src, size_t bytes)
{
    return copy(ctx, dst, src, bytes, 1);
}

yamr_status yamr_copy_to_host(yamr_context *ctx, void *dst, const void *src, size_t bytes)
{
    return copy(ctx, dst, src, bytes, 0);
}
