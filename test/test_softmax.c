/* SPDX-License-Identifier: MIT */
/* Softmax statistics (yamr_softmax_stats_rows) against a double-precision reference. */
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

/* ---- softmax statistics ---- */

typedef enum {
    ROW_NORMAL,
    ROW_ONE_NAN,
    ROW_ONE_INF,
    ROW_TWO_INF,
    ROW_ALL_NEG_INF,
    ROW_SOME_NEG_INF,
    ROW_ALL_NAN,
    ROW_INF_AND_NAN,
    ROW_WIDE,
    ROW_KIND_COUNT
} row_kind;

static double softmax_value(row_kind k, size_t i, size_t n, uint64_t *rng)
{
    const double v = (double)(rng_next(rng) % 4000001) / 100000.0 - 20.0; /* [-20, 20] */
    switch (k) {
    case ROW_ONE_NAN: return i == n / 2 ? NAN : v;
    case ROW_ONE_INF: return i == n / 3 ? INFINITY : v;
    case ROW_TWO_INF: return (i == 0 || i == n - 1) ? INFINITY : v;
    case ROW_ALL_NEG_INF: return -INFINITY;
    case ROW_SOME_NEG_INF: return rng_next(rng) % 3 == 0 ? -INFINITY : v;
    case ROW_ALL_NAN: return NAN;
    case ROW_INF_AND_NAN: return i == 0 ? INFINITY : i == n - 1 ? NAN : v;
    case ROW_WIDE: return v * 1e3; /* most terms underflow to 0 */
    default: return rng_next(rng) % 7 == 0 ? -0.0 : v;
    }
}

void test_softmax_stats(void **state)
{
    (void)state;
    uint64_t rng = test_seed() ^ 0x50f7;
    int calls = 0;
    for (int ti = 0; ti < 2; ++ti) {
        const yamr_dtype t = ti ? YAMR_DTYPE_F64 : YAMR_DTYPE_F32;
        const size_t elem = yamr_dtype_size(t);
        const double tol = t == YAMR_DTYPE_F64 ? 1e-12 : 1e-5;
        for (size_t mi = 0; mi < matrix_count; ++mi) {
            const matrix_case *m = &matrices[mi];
            const size_t total = matrix_elems(m);
            for (size_t i = 0; i < total; ++i) store_bits(t, host_in, i, poison_element(t, i));
            for (size_t r = 0; r < m->rows; ++r) {
                /* row 0 normal, then every kind in turn, then mostly normal rows */
                const row_kind k = r < ROW_KIND_COUNT ? (row_kind)r
                                   : rng_next(&rng) % 2
                                       ? ROW_NORMAL
                                       : (row_kind)(rng_next(&rng) % ROW_KIND_COUNT);
                unsigned char *row = host_in + (m->skew + r * m->ld) * elem;
                for (size_t i = 0; i < m->cols; ++i) {
                    const double v = softmax_value(k, i, m->cols, &rng);
                    if (t == YAMR_DTYPE_F64)
                        ((double *)row)[i] = v;
                    else
                        ((float *)row)[i] = (float)v;
                }
            }
            assert_int_equal(yamr_copy_to_device(ctx, ctx_in, host_in, total * elem), YAMR_SUCCESS);
            const void *in = (const unsigned char *)ctx_in + m->skew * elem;
            for (int p = 0; p <= YAMR_NAN_IGNORE; ++p) {
                assert_int_equal(yamr_set_nan_policy(ctx, (yamr_nan_policy)p), YAMR_SUCCESS);
                for (int async = 0; async < 2; ++async) {
                    char what[200];
                    snprintf(what, sizeof what,
                             "softmax_stats %zux%zu ld %zu skew %zu %s nan=%s %s", m->rows, m->cols,
                             m->ld, m->skew, yamr_dtype_name(t), policy_name(p),
                             async ? "async" : "sync");
                    poison_outputs();
                    yamr_status s =
                        (async ? yamr_softmax_stats_rows_async : yamr_softmax_stats_rows)(
                            ctx, t, in, m->rows, m->cols, m->ld, ctx_values, ctx_second);
                    ++calls;
                    if (s != YAMR_SUCCESS) {
                        failf("%s: %s (%s)", what, yamr_status_string(s), yamr_last_error(ctx));
                        continue;
                    }
                    note_shape(YAMR_CALL_SOFTMAX_STATS, YAMR_OP_MAX, t, m->rows, m->cols, what);
                    fetch_outputs();
                    if (!untouched(host_values, m->rows * elem, (m->rows + GUARD) * 8) ||
                        !untouched(host_second, m->rows * elem, (m->rows + GUARD) * 8))
                        failf("%s: wrote past the last row", what);
                    for (size_t r = 0; r < m->rows; ++r) {
                        double want_m, want_s, got_m, got_s;
                        ref_softmax_row(t, host_in + (m->skew + r * m->ld) * elem, m->cols, p,
                                          &want_m, &want_s);
                        got_m = t == YAMR_DTYPE_F64 ? ((double *)host_values)[r]
                                                    : ((float *)host_values)[r];
                        got_s = t == YAMR_DTYPE_F64 ? ((double *)host_second)[r]
                                                    : ((float *)host_second)[r];
                        const int max_ok = isnan(want_m) ? isnan(got_m) : got_m == want_m;
                        const int sum_ok = isnan(want_s) ? isnan(got_s)
                                           : isinf(want_s) || want_s == 0
                                               ? got_s == want_s
                                               : fabs(got_s - want_s) <= tol * want_s;
                        if (!max_ok || !sum_ok)
                            failf("%s row %zu (kind %d): max %.17g sum %.17g, expected max %.17g "
                                  "sum %.17g "
                                  "(relative error %.3g)",
                                  what, r, r < ROW_KIND_COUNT ? (int)r : -1, got_m, got_s, want_m,
                                  want_s, want_s != 0 ? fabs(got_s - want_s) / want_s : 0.0);
                    }
                }
            }
        }
    }
    assert_int_equal(yamr_set_nan_policy(ctx, YAMR_NAN_PROPAGATE), YAMR_SUCCESS);
    printf("  softmax statistics: %d calls checked\n", calls);
    end_test("softmax statistics");
}
