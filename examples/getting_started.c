/* SPDX-License-Identifier: MIT */
/*
 * The program of docs/getting-started.md, whole: every snippet of that page is a piece of this
 * file (test/cli/check_snippets.sh checks it). It runs on GPU 0, or on the CPU backend when there
 * is none, and checks each answer against one it knows.
 *
 * Exit status: 0 when every answer is the expected one, 1 otherwise.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include <yamr.h>

/* Prints what failed and why; returns 1 (the exit status of a failed step). */
static int report_failure(const char *what, yamr_status s, const yamr_context *ctx)
{
    fprintf(stderr, "%s: %s %s\n", what, yamr_status_string(s), ctx ? yamr_last_error(ctx) : "");
    return 1;
}

/* Stops main at the first call that fails (a walk-through, not a pattern for libraries). */
#define CHECK(call)                                                                            \
    do {                                                                                       \
        yamr_status check_status = (call);                                                     \
        if (check_status != YAMR_SUCCESS) return report_failure(#call, check_status, ctx);     \
    } while (0)

/* The data: ties, a NaN-free mix of signs; the largest value 9.5 first at index 3, the smallest
 * -4.0 at index 5. */
static const float data[] = {1.5f, -2.0f, 0.0f, 9.5f, 3.25f, -4.0f, 9.5f, 7.0f};
#define N (sizeof data / sizeof data[0])

/* A 3 x 4 matrix for the batched calls. */
static const float matrix[3][4] = {{1, 5, 2, 5}, {-1, -3, -2, -7}, {0, 0, 0, 0}};

static int expect(int ok, const char *what)
{
    printf("%-44s %s\n", what, ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}

int main(void)
{
    int wrong = 0;

    /* ---- 1. A CPU context: no GPU needed ---- */
    {
        // [cpu-context]
        yamr_context *ctx = NULL;
        char why[256];
        yamr_status s = yamr_create_ex(&ctx, YAMR_DEVICE_CPU, why, sizeof why);
        if (s != YAMR_SUCCESS) {
            fprintf(stderr, "yamr_create_ex: %s: %s\n", yamr_status_string(s), why);
            return 1;
        }
        float max = 0.0f;
        int64_t index = -1;
        CHECK(yamr_argmax_f32(ctx, data, N, &max, &index)); /* host memory on a CPU context */
        printf("argmax on the CPU: %g at %lld\n", max, (long long)index);
        yamr_destroy(ctx);
        // [end]
        wrong += expect(max == 9.5f && index == 3, "CPU argmax: 9.5 at 3 (the first of two)");
    }

    /* ---- 2. A GPU context, or the CPU when there is none, and its memory ---- */
    // [open-gpu]
    yamr_context *ctx = NULL;
    char why[256];
    yamr_status s = yamr_create_ex(&ctx, 0, why, sizeof why);
    if (s != YAMR_SUCCESS) {
        printf("no GPU 0 (%s): the CPU backend\n", why);
        s = yamr_create_ex(&ctx, YAMR_DEVICE_CPU, why, sizeof why);
    }
    if (s != YAMR_SUCCESS) {
        fprintf(stderr, "yamr_create_ex: %s: %s\n", yamr_status_string(s), why);
        return 1;
    }
    fputs(yamr_report(ctx), stdout); /* device, warp width, the variant AUTO picks and why */
    // [end]

    // [device-memory]
    float *in = NULL;
    CHECK(yamr_device_alloc(ctx, sizeof data, (void **)&in));
    CHECK(yamr_copy_to_device(ctx, in, data, sizeof data));
    // [end]

    /* ---- 3. Typed and generic calls ---- */
    // [typed-and-generic]
    float max = 0.0f, min = 0.0f;
    int64_t max_at = -1, min_at = -1;
    CHECK(yamr_argmax_f32(ctx, in, N, &max, &max_at));           /* typed */
    CHECK(yamr_reduce(ctx, YAMR_OP_ARGMIN, YAMR_DTYPE_F32, in, N, /* generic: a dtype tag */
                      &min, &min_at));
    float lo = 0.0f, hi = 0.0f;
    CHECK(yamr_minmax(ctx, YAMR_DTYPE_F32, in, N, &lo, NULL, &hi, NULL)); /* both in one pass */
    // [end]
    wrong += expect(max == 9.5f && max_at == 3, "typed argmax: 9.5 at 3");
    wrong += expect(min == -4.0f && min_at == 5, "generic argmin: -4 at 5");
    wrong += expect(lo == -4.0f && hi == 9.5f, "minmax: -4 and 9.5");

    /* ---- 4. Asynchronous calls: results stay in the context's memory ---- */
    // [async]
    void *out = NULL; /* a float, then an int64_t at byte 8: the context's memory */
    CHECK(yamr_device_alloc(ctx, 16, &out));
    CHECK(yamr_argmax_f32_async(ctx, in, N, (float *)out, (int64_t *)((char *)out + 8)));
    /* ...more work on the same stream could be queued here... */
    float async_max = 0.0f;
    int64_t async_at = -1;
    CHECK(yamr_copy_to_host(ctx, &async_max, out, sizeof async_max)); /* waits for the call */
    CHECK(yamr_copy_to_host(ctx, &async_at, (char *)out + 8, sizeof async_at));
    // [end]
    wrong += expect(async_max == 9.5f && async_at == 3, "async argmax: 9.5 at 3");

    /* ---- 5. Batched calls: one answer per row ---- */
    // [batched]
    float *m = NULL, *row_max = NULL;
    int64_t *row_at = NULL;
    CHECK(yamr_device_alloc(ctx, sizeof matrix, (void **)&m));
    CHECK(yamr_device_alloc(ctx, 3 * sizeof *row_max, (void **)&row_max));
    CHECK(yamr_device_alloc(ctx, 3 * sizeof *row_at, (void **)&row_at));
    CHECK(yamr_copy_to_device(ctx, m, matrix, sizeof matrix));
    CHECK(yamr_reduce_rows(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, m, 3, 4, 4, row_max, row_at));
    float host_max[3];
    int64_t host_at[3];
    CHECK(yamr_copy_to_host(ctx, host_max, row_max, sizeof host_max)); /* outputs are arrays */
    CHECK(yamr_copy_to_host(ctx, host_at, row_at, sizeof host_at));    /* in the context's memory */
    // [end]
    wrong += expect(host_max[0] == 5 && host_at[0] == 1 && host_max[1] == -1 && host_at[1] == 0 &&
                        host_max[2] == 0 && host_at[2] == 0,
                    "row argmax: 5@1, -1@0, 0@0");

    /* ---- 5b. Top-k: sampling the next token from the k best logits ---- */
    // [topk]
    enum { VOCAB = 8, K = 3 };
    static const float logits[2][VOCAB] = {{0.1f, 2.0f, -1.0f, 3.5f, 2.0f, 0.0f, -2.0f, 1.0f},
                                           {1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f}};
    float *dev_logits = NULL, *top = NULL, *top_max = NULL, *top_sum = NULL;
    int64_t *top_at = NULL;
    CHECK(yamr_device_alloc(ctx, sizeof logits, (void **)&dev_logits));
    CHECK(yamr_device_alloc(ctx, 2 * K * sizeof *top, (void **)&top));
    CHECK(yamr_device_alloc(ctx, 2 * K * sizeof *top_at, (void **)&top_at));
    CHECK(yamr_device_alloc(ctx, 2 * sizeof *top_max, (void **)&top_max));
    CHECK(yamr_device_alloc(ctx, 2 * sizeof *top_sum, (void **)&top_sum));
    CHECK(yamr_copy_to_device(ctx, dev_logits, logits, sizeof logits));
    /* the K largest logits of each row, largest first, ties by the smaller token id */
    CHECK(yamr_topk_rows(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, dev_logits, 2, VOCAB, VOCAB, K,
                         top, top_at));
    /* softmax over the K kept logits: the top values are a 2 x K matrix of their own */
    CHECK(yamr_softmax_stats_rows(ctx, YAMR_DTYPE_F32, top, 2, K, K, top_max, top_sum));
    float host_top[2][K], host_top_max[2], host_top_sum[2];
    int64_t host_top_at[2][K];
    CHECK(yamr_copy_to_host(ctx, host_top, top, sizeof host_top));
    CHECK(yamr_copy_to_host(ctx, host_top_at, top_at, sizeof host_top_at));
    CHECK(yamr_copy_to_host(ctx, host_top_max, top_max, sizeof host_top_max));
    CHECK(yamr_copy_to_host(ctx, host_top_sum, top_sum, sizeof host_top_sum));
    const double u = 0.7; /* a uniform draw in [0, 1), from your sampler */
    int64_t token = host_top_at[0][K - 1];
    double cumulative = 0.0;
    for (int j = 0; j < K; ++j) { /* p_j = exp(v_j - max) / sum */
        cumulative += exp(host_top[0][j] - host_top_max[0]) / host_top_sum[0];
        if (u < cumulative) {
            token = host_top_at[0][j];
            break;
        }
    }
    printf("row 0: tokens %lld %lld %lld, sampled %lld\n", (long long)host_top_at[0][0],
           (long long)host_top_at[0][1], (long long)host_top_at[0][2], (long long)token);
    yamr_device_free(ctx, top_sum);
    yamr_device_free(ctx, top_max);
    yamr_device_free(ctx, top_at);
    yamr_device_free(ctx, top);
    yamr_device_free(ctx, dev_logits);
    // [end]
    wrong += expect(host_top_at[0][0] == 3 && host_top_at[0][1] == 1 && host_top_at[0][2] == 4 &&
                        host_top_at[1][0] == 0 && host_top_at[1][1] == 1 &&
                        host_top_at[1][2] == 2 && token == 1,
                    "top-3: 3, 1, 4 (tie by token id) and 0, 1, 2; sampled 1");

    /* ---- 6. Errors: a status from every call, nothing written on failure ---- */
    // [errors]
    float untouched = 42.0f;
    int64_t untouched_at = 42;
    s = yamr_argmax_f32(ctx, in, 0, &untouched, &untouched_at); /* n == 0 is refused */
    printf("n = 0: %s\n", yamr_status_string(s));               /* YAMR_ERROR_INVALID_VALUE */
    if (s == YAMR_ERROR_DEVICE) printf("the GPU said: %s\n", yamr_last_error(ctx));
    // [end]
    wrong += expect(s == YAMR_ERROR_INVALID_VALUE && untouched == 42.0f && untouched_at == 42,
                    "n = 0: INVALID_VALUE, outputs untouched");

    // [cleanup]
    yamr_device_free(ctx, row_at);
    yamr_device_free(ctx, row_max);
    yamr_device_free(ctx, m);
    yamr_device_free(ctx, out);
    yamr_device_free(ctx, in);
    yamr_destroy(ctx);
    // [end]
    printf("%s\n", wrong ? "SOME ANSWERS WERE WRONG" : "all answers as expected");
    return wrong ? 1 : 0;
}
