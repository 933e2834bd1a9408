/* SPDX-License-Identifier: MIT */
/*
 * Embedding yamr in a C program: open GPU 0 (or the CPU backend when there is no GPU), print
 * what the context found, and take the argmax of a fixed array whose answer is known.
 *
 * The reduction reads the context's own memory (device memory on a GPU), so the data goes
 * through yamr_device_alloc() and yamr_copy_to_device(); on a CPU context those are malloc and
 * memcpy, and the same code runs unchanged. No GPU header is needed.
 *
 * Exit status: 0 when the result matches the expected one, 1 otherwise.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include <yamr.h>

/* Negatives, a tie and -0.0: the largest value is zero, held by -0.0 at index 1 and by +0.0 at
 * indices 3 and 6. -0.0 and +0.0 compare equal and the smallest index wins, so the answer is
 * index 1 and the value reported is that element, -0.0. */
static const float data[] = {-3.5f, -0.0f, -7.25f, 0.0f, -1.0f, -0.5f, 0.0f, -12.0f};
#define DATA_N (sizeof data / sizeof data[0])
#define EXPECTED_INDEX 1

static int fail(const char *what, yamr_status s, const yamr_context *ctx)
{
    fprintf(stderr, "embed: %s: %s %s\n", what, yamr_status_string(s),
            ctx ? yamr_last_error(ctx) : "");
    return 1;
}

int main(void)
{
    yamr_context *ctx = NULL;
    char why[256];
    yamr_status s = yamr_create_ex(&ctx, 0, why, sizeof why);
    if (s == YAMR_ERROR_NO_DEVICE) {
        printf("embed: no GPU 0 (%s); using the CPU backend\n", why);
        s = yamr_create_ex(&ctx, YAMR_DEVICE_CPU, why, sizeof why);
    }
    if (s != YAMR_SUCCESS) {
        fprintf(stderr, "embed: yamr_create_ex: %s: %s\n", yamr_status_string(s), why);
        return 1;
    }
    fputs(yamr_report(ctx), stdout);

    int rc = 1;
    void *in = NULL;
    float value = 0.0f;
    int64_t index = -1;
    if ((s = yamr_device_alloc(ctx, sizeof data, &in)) != YAMR_SUCCESS) {
        fail("yamr_device_alloc", s, ctx);
    } else if ((s = yamr_copy_to_device(ctx, in, data, sizeof data)) != YAMR_SUCCESS) {
        fail("yamr_copy_to_device", s, ctx);
    } else if ((s = yamr_argmax_f32(ctx, (const float *)in, DATA_N, &value, &index)) !=
               YAMR_SUCCESS) {
        fail("yamr_argmax_f32", s, ctx);
    } else {
        int ok = index == EXPECTED_INDEX && value == 0.0f && signbit(value);
        printf("argmax: value %g at index %lld (expected -0 at index %d): %s\n", value,
               (long long)index, EXPECTED_INDEX, ok ? "ok" : "MISMATCH");
        rc = ok ? 0 : 1;
    }
    yamr_device_free(ctx, in);
    yamr_destroy(ctx);
    return rc;
}
