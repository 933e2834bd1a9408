/* SPDX-License-Identifier: MIT */
/* The shape choice on made-up devices (pure C), as the plan makes it. */
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

/* ---- the shape choice, on made-up devices (pure C) ---- */

static void expect_shape(size_t rows, size_t cols, int mp, int w, yamr_rows_shape want,
                         int want_blocks)
{
    const yamr_rows_shape got = yamr__rows_shape(rows, cols, mp, w);
    const int blocks =
        got == YAMR_ROWS_BLOCKS_PER_ROW ? yamr__rows_blocks_per_row(rows, cols, mp) : 1;
    if (got != want || (want_blocks && blocks != want_blocks))
        failf("shape of %zu x %zu on %d units, W%d: %s with %d blocks per row, expected %s with %d",
              rows, cols, mp, w, yamr_rows_shape_name(got), blocks, yamr_rows_shape_name(want),
              want_blocks);
}

void test_shape_choice(void **state)
{
    (void)state;
    /* the cases of the issue on an H100 (132 SMs, W32) */
    expect_shape(1024, 4096, 132, 32, YAMR_ROWS_BLOCK_PER_ROW, 0);
    expect_shape(65536, 128, 132, 32, YAMR_ROWS_WARP_PER_ROW, 0);
    expect_shape(4096, 32768, 132, 32, YAMR_ROWS_BLOCK_PER_ROW, 0);
    expect_shape(4, (size_t)1 << 24, 132, 32, YAMR_ROWS_BLOCKS_PER_ROW, 132);
    /* warp per row up to 8 elements per lane, W32 and W64 */
    expect_shape(1, 1, 132, 32, YAMR_ROWS_WARP_PER_ROW, 0);
    expect_shape(3, 256, 132, 32, YAMR_ROWS_WARP_PER_ROW, 0);
    expect_shape(100000, 257, 132, 32, YAMR_ROWS_BLOCK_PER_ROW, 0);
    expect_shape(100000, 512, 104, 64, YAMR_ROWS_WARP_PER_ROW, 0);
    expect_shape(100000, 513, 104, 64, YAMR_ROWS_BLOCK_PER_ROW, 0);
    /* splitting: few rows, each long enough for two blocks of YAMR__ROWS_SPLIT_MIN_PER_BLOCK */
    expect_shape(3, 5000, 132, 32, YAMR_ROWS_BLOCKS_PER_ROW, 2);
    expect_shape(1, 4095, 132, 32, YAMR_ROWS_BLOCK_PER_ROW, 0);
    expect_shape(1, 4096, 132, 32, YAMR_ROWS_BLOCKS_PER_ROW, 2);
    expect_shape(1, 100003, 132, 32, YAMR_ROWS_BLOCKS_PER_ROW, 48);
    expect_shape(1, (size_t)1 << 30, 132, 32, YAMR_ROWS_BLOCKS_PER_ROW,
                 YAMR__ROWS_SPLIT_MAX_BLOCKS_PER_ROW);
    expect_shape(263, (size_t)1 << 20, 132, 32, YAMR_ROWS_BLOCKS_PER_ROW, 3);
    expect_shape(264, (size_t)1 << 20, 132, 32, YAMR_ROWS_BLOCK_PER_ROW, 0);
    expect_shape(5000, (size_t)1 << 20, 4000, 32, YAMR_ROWS_BLOCK_PER_ROW,
                 0); /* past the workspace */

    /* invariants over a grid of made-up devices and sizes */
    static const size_t rows_list[] = {1, 2, 3, 7, 31, 100, 263, 264, 1000, 4096, 4097, 100000};
    static const size_t cols_list[] = {
        1, 31, 256, 257, 512, 513, 4095, 4096, 5000, 100003, (size_t)1 << 26};
    static const int mp_list[] = {1, 20, 80, 132, 304, 4000};
    static const int w_list[] = {32, 64};
    for (size_t a = 0; a < sizeof rows_list / sizeof rows_list[0]; ++a)
        for (size_t b = 0; b < sizeof cols_list / sizeof cols_list[0]; ++b)
            for (size_t c = 0; c < sizeof mp_list / sizeof mp_list[0]; ++c)
                for (size_t d = 0; d < 2; ++d) {
                    const size_t rows = rows_list[a], cols = cols_list[b];
                    const int mp = mp_list[c], w = w_list[d];
                    const yamr_rows_shape s = yamr__rows_shape(rows, cols, mp, w);
                    const int bpr = yamr__rows_blocks_per_row(rows, cols, mp);
                    const int warp = cols <= (size_t)YAMR__ROWS_WARP_MAX_PER_LANE * (size_t)w;
                    if ((s == YAMR_ROWS_WARP_PER_ROW) != warp)
                        failf("%zu x %zu, %d units, W%d: warp per row exactly for short rows", rows,
                              cols, mp, w);
                    if (!warp && (s == YAMR_ROWS_BLOCKS_PER_ROW) != (bpr >= 2))
                        failf("%zu x %zu, %d units, W%d: split exactly when two blocks per row pay",
                              rows, cols, mp, w);
                    if (bpr < 1 || bpr > YAMR__ROWS_SPLIT_MAX_BLOCKS_PER_ROW ||
                        (bpr >= 2 && ((size_t)bpr * rows > YAMR__ROWS_SPLIT_MAX_PARTIALS ||
                                      rows > YAMR__ROWS_SPLIT_MAX_ROWS ||
                                      cols / (size_t)bpr < YAMR__ROWS_SPLIT_MIN_PER_BLOCK ||
                                      rows >= (size_t)YAMR__ROWS_FEW_PER_UNIT * (size_t)mp)))
                        failf("%zu x %zu, %d units: %d blocks per row breaks a workspace or size "
                              "bound",
                              rows, cols, mp, bpr);
                }
    /* segments: split for few, else the warp kernel that hands long segments to the block */
    if (yamr__segments_shape(1000000, 132) != YAMR_ROWS_WARP_PER_ROW ||
        yamr__segments_shape(264, 132) != YAMR_ROWS_WARP_PER_ROW ||
        yamr__segments_shape(5, 132) != YAMR_ROWS_BLOCKS_PER_ROW ||
        yamr__segments_shape(1, 1) != YAMR_ROWS_BLOCKS_PER_ROW)
        failf("segments shape: few segments split, many take a warp each");
    const int bpr5 = yamr__rows_blocks_per_row(5, 0, 132);
    if (bpr5 != 106) failf("5 segments on 132 units: %d blocks per segment, expected 106", bpr5);
    if (strcmp(yamr_rows_shape_name(YAMR_ROWS_WARP_PER_ROW), "warp_per_row") ||
        strcmp(yamr_rows_shape_name(YAMR_ROWS_BLOCK_PER_ROW), "block_per_row") ||
        strcmp(yamr_rows_shape_name(YAMR_ROWS_BLOCKS_PER_ROW), "blocks_per_row") ||
        strcmp(yamr_rows_shape_name((yamr_rows_shape)YAMR_ROWS_SHAPE_COUNT), "invalid"))
        failf("yamr_rows_shape_name");
    end_test("shape choice");
}
