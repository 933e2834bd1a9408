/* SPDX-License-Identifier: MIT */
/* Row-wise reductions of matrices (yamr_reduce_rows), and the report naming the last call. */
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

/* Fills the matrix (host_in) and its padding; copies it to the context. */
static void fill_matrix(const matrix_case *m, yamr_dtype t, int mode, uint64_t *rng)
{
    const size_t total = matrix_elems(m);
    for (size_t i = 0; i < total; ++i) store_bits(t, host_in, i, poison_element(t, i));
    for (size_t r = 0; r < m->rows; ++r)
        fill(mode, t, host_in + (m->skew + r * m->ld) * yamr_dtype_size(t), m->cols, rng);
    assert_int_equal(yamr_copy_to_device(ctx, ctx_in, host_in, total * yamr_dtype_size(t)),
                     YAMR_SUCCESS);
}

static void check_rows_call(const matrix_case *m, yamr_op op, yamr_dtype t, int policy, int async,
                            const char *what_base)
{
    const size_t elem = yamr_dtype_size(t);
    const int needs_index = op == YAMR_OP_ARGMAX || op == YAMR_OP_ARGMIN;
    const int with_index = needs_index || async; /* MAX/MIN: NULL indices when synchronous */
    char what[200];
    snprintf(what, sizeof what, "%s %s %s", what_base, op_name(op), async ? "async" : "sync");
    poison_outputs();
    const void *in = (const unsigned char *)ctx_in + m->skew * elem;
    yamr_status s = (async ? yamr_reduce_rows_async
                           : yamr_reduce_rows)(ctx, op, t, in, m->rows, m->cols, m->ld, ctx_values,
                                               with_index ? (int64_t *)ctx_second : NULL);
    if (s != YAMR_SUCCESS) {
        failf("%s: %s (%s)", what, yamr_status_string(s), yamr_last_error(ctx));
        return;
    }
    note_shape(YAMR_CALL_ROWS, op, t, m->rows, m->cols, what);
    fetch_outputs();
    if (!untouched(host_values, m->rows * elem, (m->rows + GUARD) * 8))
        failf("%s: wrote past the last value", what);
    if (!untouched(host_second, with_index ? m->rows * 8 : 0, (m->rows + GUARD) * 8))
        failf("%s: wrote %s", what,
              with_index ? "past the last index" : "indices it was not given");
    for (size_t r = 0; r < m->rows; ++r) {
        ref_result want = ref_reduce(op, t, (yamr_nan_policy)policy,
                                     host_in + (m->skew + r * m->ld) * elem, m->cols);
        int64_t got_index = 0;
        memcpy(&got_index, host_second + r * 8, 8);
        check_answer(what, r, t, want, load_bits(t, host_values, r), got_index, with_index);
    }
}

void test_rows_reduce(void **state)
{
    (void)state;
    uint64_t rng = test_seed();
    int calls = 0;
    for (size_t mi = 0; mi < matrix_count; ++mi) {
        const matrix_case *m = &matrices[mi];
        const int large = matrix_elems(m) > 30000;
        for (int t = 0; t < YAMR_DTYPE_COUNT; ++t)
            for (int mode = 0; mode <= PATTERN_COUNT; ++mode) {
                if (mode < PATTERN_COUNT && !pattern_applies((data_pattern)mode, (yamr_dtype)t))
                    continue;
                if (large && mode != PATTERN_MIXED && mode != PATTERN_COUNT) continue; /* time */
                fill_matrix(m, (yamr_dtype)t, mode, &rng);
                for (int p = 0; p <= YAMR_NAN_IGNORE; ++p) {
                    assert_int_equal(yamr_set_nan_policy(ctx, (yamr_nan_policy)p), YAMR_SUCCESS);
                    char what[160];
                    snprintf(what, sizeof what, "rows %zux%zu ld %zu skew %zu %s %s nan=%s",
                             m->rows, m->cols, m->ld, m->skew, yamr_dtype_name((yamr_dtype)t),
                             mode_name(mode), policy_name(p));
                    for (int op = 0; op < YAMR_OP_COUNT; ++op)
                        for (int async = 0; async < 2; ++async) {
                            check_rows_call(m, (yamr_op)op, (yamr_dtype)t, p, async, what);
                            ++calls;
                        }
                }
            }
    }
    assert_int_equal(yamr_set_nan_policy(ctx, YAMR_NAN_PROPAGATE), YAMR_SUCCESS);
    printf("  rows: %d calls checked\n", calls);
    if (device != YAMR_DEVICE_CPU) {
        printf("  shapes exercised: warp_per_row %d, block_per_row %d, blocks_per_row %d calls\n",
               shape_used[0], shape_used[1], shape_used[2]);
        for (int s = 0; s < YAMR_ROWS_SHAPE_COUNT; ++s)
            if (!shape_used[s])
                failf("rows: shape %s never ran", yamr_rows_shape_name((yamr_rows_shape)s));
    }
    end_test("rows");
}

/* The report names the last batched call on any backend. */
void test_report_names_last_batch(void **state)
{
    (void)state;
    const float x[6] = {1, 5, 2, 7, 7, 0};
    assert_int_equal(yamr_copy_to_device(ctx, ctx_in, x, sizeof x), YAMR_SUCCESS);
    assert_int_equal(yamr_reduce_rows(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, ctx_in, 2, 3, 3,
                                      ctx_values, (int64_t *)ctx_second),
                     YAMR_SUCCESS);
    const char *line = strstr(yamr_report(ctx), "last call:");
    assert_non_null(line);
    assert_non_null(strstr(line, "rows f32 argmax, 2 x 3"));
    printf("  %.*s\n", (int)strcspn(line, "\n"), line);
    float v[2];
    int64_t i[2];
    assert_int_equal(yamr_copy_to_host(ctx, v, ctx_values, sizeof v), YAMR_SUCCESS);
    assert_int_equal(yamr_copy_to_host(ctx, i, ctx_second, sizeof i), YAMR_SUCCESS);
    assert_true(v[0] == 5 && i[0] == 1 && v[1] == 7 && i[1] == 0);
}
