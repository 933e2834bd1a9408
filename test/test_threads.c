/* SPDX-License-Identifier: MIT */
/*
 * Independent contexts used from several threads at once (include/yamr.h: "a context is used by
 * one thread at a time; distinct contexts are independent"):
 *   test_threads cpu   YAMR_TEST_THREADS threads (default 4), each with its own CPU context
 *   test_threads gpu   the same with GPU contexts spread over every GPU present (thread t on
 *                      GPU t mod count); exits 77 (skipped) when there is no GPU
 * Each thread runs calls of every kind (reduce with each op, min+max, rows, segments, the async
 * forms) on fresh random data of a random dtype and size, and checks every result against the
 * host reference. Before its calls a thread makes another GPU current (when there are several);
 * after each call that device must still be current. The CPU build runs under ThreadSanitizer
 * in CI (scripts/test.sh).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "current_device.h"
#include "reference.h"
#include "yamr.h"

#define MAX_N 50000
#define ROWS 7
#define ROUNDS 12

typedef struct {
    int thread;
    int device;       /* a GPU ordinal or YAMR_DEVICE_CPU */
    int foreign;      /* the GPU this thread keeps current between calls (-1 on the CPU) */
    uint64_t rng;
    int failures;
    char first_failure[256];
} worker;

static void failf(worker *w, const char *fmt, ...)
{
    if (w->failures++ == 0) {
        va_list args;
        va_start(args, fmt);
        vsnprintf(w->first_failure, sizeof w->first_failure, fmt, args);
        va_end(args);
    }
}

static void check_status(worker *w, yamr_status s, const char *what)
{
    if (s != YAMR_SUCCESS) failf(w, "%s: %s", what, yamr_status_string(s));
    if (w->foreign >= 0 && test_current_device() != w->foreign)
        failf(w, "%s moved the thread's current GPU from %d to %d", what, w->foreign,
              test_current_device());
}

static void check_result(worker *w, const char *what, yamr_dtype t, uint64_t got_bits,
                         int64_t got_index, ref_result want, int with_index)
{
    const int value_ok = got_bits == want.value_bits ||
                         (bits_are_nan(t, got_bits) && bits_are_nan(t, want.value_bits));
    if (!value_ok || (with_index && got_index != want.index))
        failf(w, "%s %s: got %#llx at %lld, expected %#llx at %lld", what, yamr_dtype_name(t),
              (unsigned long long)got_bits, (long long)got_index,
              (unsigned long long)want.value_bits, (long long)want.index);
}

/* One round: a random dtype, size and pattern; every kind of call on it. */
static void run_round(worker *w, yamr_context *ctx, void *dev_in, void *dev_out, void *dev_index,
                      void *dev_offsets, unsigned char *host)
{
    const yamr_dtype t = (yamr_dtype)(rng_next(&w->rng) % YAMR_DTYPE_COUNT);
    const size_t n = 1 + rng_next(&w->rng) % MAX_N, size = yamr_dtype_size(t);
    data_pattern p = (data_pattern)(rng_next(&w->rng) % PATTERN_COUNT);
    if (!pattern_applies(p, t)) p = PATTERN_MIXED;
    fill_pattern(p, t, host, n, &w->rng);
    check_status(w, yamr_copy_to_device(ctx, dev_in, host, n * size), "copy_to_device");
    const yamr_nan_policy policy = (yamr_nan_policy)(rng_next(&w->rng) % 2);
    check_status(w, yamr_set_nan_policy(ctx, policy), "set_nan_policy");

    for (int op = 0; op < 4; ++op) {
        uint64_t bits = 0;
        int64_t index = -7;
        const int with_index = op == YAMR_OP_ARGMAX || op == YAMR_OP_ARGMIN;
        check_status(w, yamr_reduce(ctx, (yamr_op)op, t, dev_in, n, &bits,
                                    with_index ? &index : NULL),
                     "reduce");
        check_result(w, "reduce", t, bits, index, ref_reduce((yamr_op)op, t, policy, host, n),
                     with_index);
        /* the async form: results in the context's memory (poisoned first), read back in
         * stream order */
        static const unsigned char poison[8] = {0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5};
        check_status(w, yamr_copy_to_device(ctx, dev_out, poison, 8), "copy_to_device");
        check_status(w, yamr_copy_to_device(ctx, dev_index, poison, 8), "copy_to_device");
        check_status(w, yamr_reduce_async(ctx, (yamr_op)op, t, dev_in, n, dev_out, dev_index),
                     "reduce_async");
        uint64_t async_bits = 0;
        int64_t async_index = -7;
        check_status(w, yamr_copy_to_host(ctx, &async_bits, dev_out, size), "copy_to_host");
        check_status(w, yamr_copy_to_host(ctx, &async_index, dev_index, sizeof async_index),
                     "copy_to_host");
        check_result(w, "reduce_async", t, async_bits, async_index,
                     ref_reduce((yamr_op)op, t, policy, host, n), with_index);
    }

    uint64_t lo = 0, hi = 0;
    int64_t ilo = -7, ihi = -7;
    check_status(w, yamr_minmax(ctx, t, dev_in, n, &lo, &ilo, &hi, &ihi), "minmax");
    check_result(w, "minmax (min)", t, lo, ilo, ref_reduce(YAMR_OP_ARGMIN, t, policy, host, n), 1);
    check_result(w, "minmax (max)", t, hi, ihi, ref_reduce(YAMR_OP_ARGMAX, t, policy, host, n), 1);

    /* ROWS rows of cols = n / ROWS elements (row-major, ld = cols), then the same elements as
     * ROWS segments of uneven lengths */
    const size_t cols = n / ROWS;
    uint64_t values[ROWS];
    int64_t indices[ROWS];
    if (cols > 0) {
        check_status(w, yamr_reduce_rows(ctx, YAMR_OP_ARGMAX, t, dev_in, ROWS, cols, cols, dev_out,
                                         dev_index),
                     "reduce_rows");
        memset(values, 0, sizeof values);
        check_status(w, yamr_copy_to_host(ctx, values, dev_out, ROWS * size), "copy_to_host");
        check_status(w, yamr_copy_to_host(ctx, indices, dev_index, sizeof indices),
                     "copy_to_host");
        for (int r = 0; r < ROWS; ++r)
            check_result(w, "reduce_rows", t, load_bits(t, values, (size_t)r), indices[r],
                         ref_reduce(YAMR_OP_ARGMAX, t, policy, host + r * cols * size, cols), 1);
    }
    int64_t offsets[ROWS + 1];
    offsets[0] = 0;
    for (int s = 1; s < ROWS; ++s) offsets[s] = (int64_t)(rng_next(&w->rng) % (n + 1));
    offsets[ROWS] = (int64_t)n;
    for (int s = 1; s < ROWS; ++s) /* sorted: segments of uneven lengths, some empty */
        for (int k = s; k > 0 && offsets[k] < offsets[k - 1]; --k) {
            const int64_t x = offsets[k];
            offsets[k] = offsets[k - 1];
            offsets[k - 1] = x;
        }
    check_status(w, yamr_copy_to_device(ctx, dev_offsets, offsets, sizeof offsets),
                 "copy_to_device");
    check_status(w, yamr_reduce_segments(ctx, YAMR_OP_ARGMIN, t, dev_in, dev_offsets, ROWS,
                                         dev_out, dev_index),
                 "reduce_segments");
    check_status(w, yamr_copy_to_host(ctx, values, dev_out, ROWS * size), "copy_to_host");
    check_status(w, yamr_copy_to_host(ctx, indices, dev_index, sizeof indices), "copy_to_host");
    for (int s = 0; s < ROWS; ++s) {
        const size_t len = (size_t)(offsets[s + 1] - offsets[s]);
        if (len == 0) {
            if (indices[s] != -1) failf(w, "empty segment %d: index %lld", s, (long long)indices[s]);
            continue;
        }
        check_result(w, "reduce_segments", t, load_bits(t, values, (size_t)s), indices[s],
                     ref_reduce(YAMR_OP_ARGMIN, t, policy, host + (size_t)offsets[s] * size, len),
                     1);
    }
}

static void *work(void *arg)
{
    worker *w = (worker *)arg;
    if (w->foreign >= 0 && test_set_current_device(w->foreign) != 0) {
        failf(w, "cannot make GPU %d current", w->foreign);
        return NULL;
    }
    yamr_context *ctx = NULL;
    yamr_status s = yamr_create(&ctx, w->device);
    check_status(w, s, "create");
    if (s != YAMR_SUCCESS) return NULL;
    unsigned char *host = (unsigned char *)malloc(MAX_N * 8);
    void *dev_in = NULL, *dev_out = NULL, *dev_index = NULL, *dev_offsets = NULL;
    if (!host || yamr_device_alloc(ctx, MAX_N * 8, &dev_in) != YAMR_SUCCESS ||
        yamr_device_alloc(ctx, ROWS * 8, &dev_out) != YAMR_SUCCESS ||
        yamr_device_alloc(ctx, ROWS * 8, &dev_index) != YAMR_SUCCESS ||
        yamr_device_alloc(ctx, (ROWS + 1) * 8, &dev_offsets) != YAMR_SUCCESS) {
        failf(w, "allocation failed");
    } else {
        for (int round = 0; round < ROUNDS && w->failures == 0; ++round)
            run_round(w, ctx, dev_in, dev_out, dev_index, dev_offsets, host);
    }
    yamr_device_free(ctx, dev_in);
    yamr_device_free(ctx, dev_out);
    yamr_device_free(ctx, dev_index);
    yamr_device_free(ctx, dev_offsets);
    yamr_destroy(ctx);
    if (w->foreign >= 0 && test_current_device() != w->foreign)
        failf(w, "create/free/destroy moved the current GPU to %d", test_current_device());
    free(host);
    return NULL;
}

static int gpu_mode;
static int gpu_count;

static void test_contexts_in_threads(void **state)
{
    (void)state;
    const char *env = getenv("YAMR_TEST_THREADS");
    const int threads = env && atoi(env) > 0 ? atoi(env) : 4;
    worker *w = (worker *)calloc((size_t)threads, sizeof *w);
    pthread_t *id = (pthread_t *)calloc((size_t)threads, sizeof *id);
    assert_non_null(w);
    assert_non_null(id);
    const uint64_t seed = test_seed();
    for (int t = 0; t < threads; ++t) {
        w[t].thread = t;
        w[t].device = gpu_mode ? t % gpu_count : YAMR_DEVICE_CPU;
        w[t].foreign = gpu_mode ? (t + 1) % gpu_count : -1;
        w[t].rng = seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(t + 1));
        assert_int_equal(pthread_create(&id[t], NULL, work, &w[t]), 0);
    }
    int failed = 0;
    for (int t = 0; t < threads; ++t) {
        assert_int_equal(pthread_join(id[t], NULL), 0);
        printf("thread %d on %s %d: %s%s\n", t, gpu_mode ? "GPU" : "CPU", w[t].device,
               w[t].failures ? "FAILED: " : "every result checked", w[t].first_failure);
        failed += w[t].failures != 0;
    }
    free(w);
    free(id);
    assert_int_equal(failed, 0);
}

int main(int argc, char **argv)
{
    gpu_mode = argc > 1 && strcmp(argv[1], "gpu") == 0;
    if (gpu_mode) {
        yamr_context *probe = NULL;
        while (gpu_count < 64 && yamr_create(&probe, gpu_count) == YAMR_SUCCESS) {
            yamr_destroy(probe);
            ++gpu_count;
        }
        if (gpu_count == 0) {
            printf("SKIPPED: no GPU; the GPU thread test needs one\n");
            return 77;
        }
        printf("%d GPU(s)\n", gpu_count);
    }
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_contexts_in_threads)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
