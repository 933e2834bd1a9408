/* SPDX-License-Identifier: MIT */
/* Segmented reductions (yamr_reduce_segments): uneven, empty and decreasing segments. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "batch_fixture.h"
#include "yamr_internal.h"

/* ---- segments ---- */

typedef struct {
    const char *name;
    size_t segments;
    int kind; /* 0: random lengths 0..300 with empties and a few long; 1: listed lengths */
    int64_t lengths[8];
} segment_case;

static const segment_case segment_cases[] = {
    {"many random", 1500, 0, {0}},
    {"few, mixed lengths", 6, 1, {0, 1, 3000, 17, 9000, 0}},
    {"one empty", 1, 1, {0}},
    {"one long", 1, 1, {70001}},
    {"decreasing pair", 3, 1, {10, -5, 15}}, /* offsets 3, 13, 8, 23: the middle one is empty */
    {"empty and tiny", 7, 1, {0, 0, 1, 0, 2, 33, 0}},
};
#define SEGMENT_CASE_COUNT (sizeof segment_cases / sizeof segment_cases[0])

/* Lays out the segments in host_offsets (starting at element 3) and fills host_in: data in the
 * segments, poison around them. Returns the elements used. */
static size_t layout_segments(const segment_case *c, yamr_dtype t, int mode, uint64_t *rng)
{
    int64_t at = 3;
    host_offsets[0] = at;
    for (size_t s = 0; s < c->segments; ++s) {
        int64_t len;
        if (c->kind == 0) {
            const uint64_t pick = rng_next(rng) % 100;
            len = pick < 10   ? 0
                  : pick < 12 ? 1500 + (int64_t)(rng_next(rng) % 3500)
                              : (int64_t)(rng_next(rng) % 301);
        } else {
            len = c->lengths[s];
        }
        at += len;
        host_offsets[s + 1] = at;
    }
    int64_t end = 0;
    for (size_t s = 0; s <= c->segments; ++s) end = host_offsets[s] > end ? host_offsets[s] : end;
    const size_t total = (size_t)end + 3;
    assert_true(total <= MAX_ELEMS);
    for (size_t i = 0; i < total; ++i) store_bits(t, host_in, i, poison_element(t, i));
    for (size_t s = 0; s < c->segments; ++s)
        if (host_offsets[s + 1] > host_offsets[s])
            fill(mode, t, host_in + (size_t)host_offsets[s] * yamr_dtype_size(t),
                 (size_t)(host_offsets[s + 1] - host_offsets[s]), rng);
    assert_int_equal(yamr_copy_to_device(ctx, ctx_in, host_in, total * yamr_dtype_size(t)),
                     YAMR_SUCCESS);
    assert_int_equal(yamr_copy_to_device(ctx, ctx_offsets, host_offsets, (c->segments + 1) * 8),
                     YAMR_SUCCESS);
    return total;
}

static void check_segments_call(const segment_case *c, yamr_op op, yamr_dtype t, int policy,
                                int async, const char *what_base)
{
    const size_t elem = yamr_dtype_size(t);
    const int with_index = op == YAMR_OP_ARGMAX || op == YAMR_OP_ARGMIN || async;
    char what[200];
    snprintf(what, sizeof what, "%s %s %s", what_base, op_name(op), async ? "async" : "sync");
    poison_outputs();
    yamr_status s = (async ? yamr_reduce_segments_async : yamr_reduce_segments)(
        ctx, op, t, ctx_in, (const int64_t *)ctx_offsets, c->segments, ctx_values,
        with_index ? (int64_t *)ctx_second : NULL);
    if (s != YAMR_SUCCESS) {
        failf("%s: %s (%s)", what, yamr_status_string(s), yamr_last_error(ctx));
        return;
    }
    note_shape(YAMR_CALL_SEGMENTS, op, t, c->segments, 0, what);
    fetch_outputs();
    if (!untouched(host_values, c->segments * elem, (c->segments + GUARD) * 8))
        failf("%s: wrote past the last value", what);
    if (!untouched(host_second, with_index ? c->segments * 8 : 0, (c->segments + GUARD) * 8))
        failf("%s: wrote %s", what,
              with_index ? "past the last index" : "indices it was not given");
    for (size_t i = 0; i < c->segments; ++i) {
        const int64_t begin = host_offsets[i], end = host_offsets[i + 1];
        int64_t got_index = 0;
        memcpy(&got_index, host_second + i * 8, 8);
        const uint64_t got = load_bits(t, host_values, i);
        if (end <= begin) {
            if (got != empty_bits(t))
                failf("%s segment %zu (empty): value bits %llx, expected %llx", what, i,
                      (unsigned long long)got, (unsigned long long)empty_bits(t));
            if (with_index && got_index != -1)
                failf("%s segment %zu (empty): index %lld, expected -1", what, i,
                      (long long)got_index);
            continue;
        }
        ref_result want = ref_reduce(op, t, (yamr_nan_policy)policy, host_in + (size_t)begin * elem,
                                     (size_t)(end - begin));
        check_answer(what, i, t, want, got, got_index, with_index);
    }
}

void test_segments_reduce(void **state)
{
    (void)state;
    uint64_t rng = test_seed() ^ 0x5e9;
    int calls = 0;
    for (size_t ci = 0; ci < SEGMENT_CASE_COUNT; ++ci) {
        const segment_case *c = &segment_cases[ci];
        for (int t = 0; t < YAMR_DTYPE_COUNT; ++t)
            for (int mode = 0; mode <= PATTERN_COUNT; ++mode) {
                if (mode < PATTERN_COUNT && !pattern_applies((data_pattern)mode, (yamr_dtype)t))
                    continue;
                if (c->kind == 0 && mode != PATTERN_MIXED && mode != PATTERN_COUNT)
                    continue; /* time */
                layout_segments(c, (yamr_dtype)t, mode, &rng);
                for (int p = 0; p <= YAMR_NAN_IGNORE; ++p) {
                    assert_int_equal(yamr_set_nan_policy(ctx, (yamr_nan_policy)p), YAMR_SUCCESS);
                    char what[160];
                    snprintf(what, sizeof what, "segments '%s' (%zu) %s %s nan=%s", c->name,
                             c->segments, yamr_dtype_name((yamr_dtype)t), mode_name(mode),
                             policy_name(p));
                    for (int op = 0; op < YAMR_OP_COUNT; ++op)
                        for (int async = 0; async < 2; ++async) {
                            check_segments_call(c, (yamr_op)op, (yamr_dtype)t, p, async, what);
                            ++calls;
                        }
                    if (device != YAMR_DEVICE_CPU && p == 0 && t == 0 && mode == 0)
                        printf("  %s\n", strstr(yamr_report(ctx), "last call:"));
                }
            }
    }
    assert_int_equal(yamr_set_nan_policy(ctx, YAMR_NAN_PROPAGATE), YAMR_SUCCESS);
    printf("  segments: %d calls checked\n", calls);
    end_test("segments");
}
