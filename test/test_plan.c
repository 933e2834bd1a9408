/* SPDX-License-Identifier: MIT */
/* The shape choice and the policy rows on made-up devices (pure C), as the plan makes them. */
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
#include "context.h"
#include "topk.h"
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

/* ---- the policy table (src/policy.h) and the row the planner names, on made-up devices ---- */

typedef struct {
    const char *arch;
    yamr_vendor vendor;
    int warp_size, multiprocessors;
    yamr__family family;
    const char *grid_f32; /* the row of a grid-wide f32 argmax */
} made_up_device;

static const made_up_device made_up[] = {
    {"sm_70", YAMR_VENDOR_NVIDIA, 32, 80, YAMR__FAMILY_SM70, "nv_grid_e4_best"},
    {"sm_75", YAMR_VENDOR_NVIDIA, 32, 40, YAMR__FAMILY_SM70, "nv_grid_e4_best"},
    {"sm_80", YAMR_VENDOR_NVIDIA, 32, 108, YAMR__FAMILY_SM80, "nv_grid_e4_best"},
    {"sm_89", YAMR_VENDOR_NVIDIA, 32, 128, YAMR__FAMILY_SM80, "nv_grid_e4_best"},
    {"sm_90", YAMR_VENDOR_NVIDIA, 32, 132, YAMR__FAMILY_SM90, "nv_grid_e4_best"},
    {"sm_120", YAMR_VENDOR_NVIDIA, 32, 170, YAMR__FAMILY_SM90, "nv_grid_e4_best"},
    {"gfx90a", YAMR_VENDOR_AMD, 64, 110, YAMR__FAMILY_CDNA, "cdna_grid_e4_best"},
    {"gfx942", YAMR_VENDOR_AMD, 64, 304, YAMR__FAMILY_CDNA, "cdna_grid_e4_best"},
    {"gfx1100", YAMR_VENDOR_AMD, 32, 96, YAMR__FAMILY_RDNA, "rdna_grid_e4_best"},
    {"gfx1030", YAMR_VENDOR_AMD, 64, 80, YAMR__FAMILY_CDNA, "cdna_grid_e4_best"}, /* wave64 */
};

/* The row find() gives must exist, be the family's, of the shape, and serve the key. */
static const yamr__policy *expect_row(yamr__family f, int esize, int acc, int shape)
{
    const yamr__policy_id id = yamr__policy_find(f, esize, acc, shape);
    if (id == YAMR__POLICY_NONE)
        failf("family %s: no row for element size %d, accumulator %d, shape %d",
              yamr__family_name(f), esize, acc, shape);
    const yamr__policy *row = yamr__policy_row(id);
    if (!(row->families & YAMR__FAM(f)) || row->shape != shape ||
        (row->esize && row->esize != esize) || (row->acc != YAMR__ACC_ANY && row->acc != acc))
        failf("family %s: row %s does not serve its key", yamr__family_name(f), row->name);
    if (shape != YAMR__SHAPE_CPU && shape != YAMR__SHAPE_SINGLE_BLOCK &&
        row->threads != YAMR__BLOCK_THREADS)
        failf("row %s: %d threads, the kernels are written for %d", row->name, row->threads,
              YAMR__BLOCK_THREADS);
    if (!row->reason || !row->reason[0]) failf("row %s: no reason", row->name);
    return row;
}

/* Every GPU family has a row for every shape, element size and accumulator its calls take, and
 * each row's values fit what its kernel and the planner assume. */
static void every_family_has_its_rows(void)
{
    static const int esizes[] = {2, 4, 8};
    for (int f = YAMR__FAMILY_SM70; f < YAMR__FAMILY_COUNT; ++f) {
        const int w = yamr__family_warp_width((yamr__family)f);
        if (w != 32 && w != 64) failf("family %s: warp width %d", yamr__family_name(f), w);
        if (!strstr(yamr__family_basis((yamr__family)f), f == YAMR__FAMILY_SM90 ? "measured"
                                                                                 : "derived"))
            failf("family %s: its basis says neither measured nor derived", yamr__family_name(f));
        expect_row((yamr__family)f, 4, YAMR__ACC_BEST, YAMR__SHAPE_SINGLE_BLOCK);
        for (int e = 0; e < 3; ++e) {
            const int esize = esizes[e];
            for (int acc = YAMR__ACC_BEST; acc <= YAMR__ACC_MINMAX; ++acc) {
                const yamr__policy *g = expect_row((yamr__family)f, esize, acc, YAMR__SHAPE_GRID);
                if (g->vectors < 1 || g->vectors_one_block < g->vectors || g->vectors_spread < 1 ||
                    g->vectors_spread > g->vectors || g->min_blocks < 1 ||
                    g->min_blocks_one_block < 1 || g->min_blocks_wide < 1)
                    failf("row %s: vectors or bounds out of range", g->name);
            }
            for (int acc = YAMR__ACC_BEST; acc <= YAMR__ACC_SOFTMAX; acc += 2) {
                if (acc == YAMR__ACC_SOFTMAX && esize == 2) continue; /* f32 and f64 only */
                const yamr__policy *l = expect_row((yamr__family)f, esize, acc, YAMR__SHAPE_LANES);
                if (l->lanes < 1 || w % l->lanes || l->warp_count < YAMR__ROWS_WARP_MAX_PER_LANE)
                    failf("row %s: a group must divide the warp, and a warp lane take the %d "
                          "elements the shape choice gives it",
                          l->name, YAMR__ROWS_WARP_MAX_PER_LANE);
                expect_row((yamr__family)f, esize, acc, YAMR__SHAPE_BLOCK);
                expect_row((yamr__family)f, esize, acc, YAMR__SHAPE_SPLIT);
            }
            const yamr__policy *s =
                expect_row((yamr__family)f, esize, YAMR__ACC_BEST, YAMR__SHAPE_SEGMENTS);
            if (s->lanes < 1 || w % s->lanes || YAMR__BLOCK_THREADS % s->lanes || s->vectors < 1)
                failf("row %s: groups must divide the warp and the block", s->name);
            const yamr__policy *ts =
                expect_row((yamr__family)f, esize, YAMR__ACC_TOPK, YAMR__SHAPE_TOPK_SELECT);
            if (ts->topk.slots < 1 || (ts->topk.slots & (ts->topk.slots - 1)) || ts->vectors < 1 ||
                ts->min_blocks < 1 || ts->topk.min_blocks_most_slots < 1 ||
                ts->topk.scan_copies < 1 || ts->topk.scan_copies > 2 || ts->topk.warp_bytes < 1 ||
                ts->topk.split_min < 1 || ts->topk.split_per_k < 1 ||
                ts->topk.split_blocks < 1 || ts->topk.lane_k < 0 || ts->count < 1 ||
                ts->count > YAMR__TOPK_LANE_ELEMENTS ||
                (ts->topk.lane_k > 0 && esize <= 4 && ts->topk.lane_half_blocks < 1))
                failf("row %s: slots (a power of two), vectors, bounds, scan copies (1 or 2), "
                      "lane rows (up to %d elements a lane) or split sizes out of range",
                      ts->name, YAMR__TOPK_LANE_ELEMENTS);
            const yamr__policy *tl =
                expect_row((yamr__family)f, esize, YAMR__ACC_TOPK, YAMR__SHAPE_TOPK_LIST);
            if (tl->count < 4 || tl->count % 4 || tl->min_blocks < 1 || tl->topk.slots != 0 ||
                tl->topk.split_min < 1 || tl->topk.split_per_k < 1 ||
                tl->topk.split_blocks != tl->min_blocks || tl->topk.floor_ratio < 1 ||
                tl->topk.floor_own_blocks < 1 || tl->topk.own_split_blocks < 1 ||
                tl->topk.own_split_blocks > tl->topk.split_blocks)
                failf("row %s: a thread's loads must be whole groups of 4 appends (topk.hpp, "
                      "YAMR__TOPK_GROUP_N), bounds and split sizes positive, a split's blocks "
                      "an SM its bound, its own parts' split at most that",
                      tl->name);
        }
    }
    expect_row(YAMR__FAMILY_CPU, 4, YAMR__ACC_BEST, YAMR__SHAPE_CPU);
    if (expect_row(YAMR__FAMILY_CPU, 4, YAMR__ACC_TOPK, YAMR__SHAPE_CPU) !=
        &yamr__policies[YAMR__POLICY_cpu_topk])
        failf("the CPU's top-k row is not cpu_topk");
    /* row names are unique, and each id names its row */
    for (int i = 1; i < YAMR__POLICY_COUNT; ++i)
        for (int j = i + 1; j < YAMR__POLICY_COUNT; ++j)
            if (!strcmp(yamr__policies[i].name, yamr__policies[j].name))
                failf("two rows named %s", yamr__policies[i].name);
    if (yamr__policy_row(YAMR__POLICY_nv_grid_e4_best) != &yamr__policies[YAMR__POLICY_nv_grid_e4_best] ||
        strcmp(yamr__policy_row(YAMR__POLICY_nv_grid_e4_best)->name, "nv_grid_e4_best") ||
        yamr__policy_row(-1) != &yamr__policies[0] ||
        yamr__policy_row(YAMR__POLICY_COUNT) != &yamr__policies[0])
        failf("yamr__policy_row");
}

/* The values a kernel takes as template arguments are never the other warp width:
 * test/amd/check_isa.py tells an AMD instance's width by the one 32 or 64 among them (a
 * TOPK_SELECT row's count, its lane rows' elements a lane, is a plan value, not one). */
static void rows_keep_the_width_readable(void)
{
    for (int i = 1; i < YAMR__POLICY_COUNT; ++i) {
        const yamr__policy *r = &yamr__policies[i];
        if (r->shape == YAMR__SHAPE_CPU) continue;
        int f = 0;
        while (!(r->families & YAMR__FAM(f))) ++f;
        const int other = yamr__family_warp_width((yamr__family)f) == 32 ? 64 : 32;
        const int args[] = {r->vectors, r->vectors_one_block, r->lanes,
                            r->shape == YAMR__SHAPE_SEGMENTS      ? r->lanes * r->count
                            : r->shape == YAMR__SHAPE_TOPK_SELECT ? 0
                                                                  : r->count,
                            r->warp_count, r->min_blocks, r->min_blocks_one_block,
                            r->min_blocks_wide, r->topk.slots, r->topk.min_blocks_most_slots,
                            r->topk.scan_copies};
        for (size_t a = 0; a < sizeof args / sizeof args[0]; ++a)
            if (args[a] == other)
                failf("row %s: a template argument of %d, the other warp width", r->name, other);
    }
}

/* The registry holds the instance of every row a family's calls can name, in the build of its
 * vendor, and none of the other vendor's (yamr__gpu_policy_held; -1 in a CPU build). */
static void registry_holds_every_row(void)
{
    int built[YAMR__FAMILY_COUNT];
    for (int f = YAMR__FAMILY_SM70; f < YAMR__FAMILY_COUNT; ++f) {
        built[f] = -2;
        for (int d = 0; d < YAMR_DTYPE_COUNT; ++d) {
            const int esize = (int)yamr_dtype_size((yamr_dtype)d);
            const int is_float = d == YAMR_DTYPE_F32 || d == YAMR_DTYPE_F64;
            static const int shapes[] = {YAMR__SHAPE_GRID,  YAMR__SHAPE_SINGLE_BLOCK,
                                         YAMR__SHAPE_LANES, YAMR__SHAPE_BLOCK,
                                         YAMR__SHAPE_SPLIT, YAMR__SHAPE_SEGMENTS};
            for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k)
                for (int acc = YAMR__ACC_BEST; acc <= YAMR__ACC_SOFTMAX; ++acc) {
                    const int shape = shapes[k];
                    if (acc == YAMR__ACC_MINMAX && shape != YAMR__SHAPE_GRID) continue;
                    if (acc == YAMR__ACC_SOFTMAX &&
                        (!is_float || (shape != YAMR__SHAPE_LANES && shape != YAMR__SHAPE_BLOCK &&
                                       shape != YAMR__SHAPE_SPLIT)))
                        continue;
                    if (acc != YAMR__ACC_BEST && shape == YAMR__SHAPE_SINGLE_BLOCK) continue;
                    const yamr__policy_id id =
                        yamr__policy_find((yamr__family)f, esize, acc, shape);
                    const int held = yamr__gpu_policy_held(id, (yamr_dtype)d, acc);
                    if (held < 0) return; /* no GPU backend: no registry */
                    if (built[f] == -2) built[f] = held;
                    if (held != built[f])
                        failf("family %s: row %s for %s is %s, the family's first was %s",
                              yamr__family_name((yamr__family)f), yamr__policy_row(id)->name,
                              yamr_dtype_name((yamr_dtype)d), held ? "held" : "not held",
                              built[f] ? "held" : "not");
                }
        }
    }
    /* top-k: the select and list rows of every element size (topk.hip) */
    for (int f = YAMR__FAMILY_SM70; f < YAMR__FAMILY_COUNT; ++f)
        for (int d = 0; d < YAMR_DTYPE_COUNT; ++d)
            for (int shape = YAMR__SHAPE_TOPK_SELECT; shape <= YAMR__SHAPE_TOPK_LIST; ++shape) {
                const yamr__policy_id id = yamr__policy_find(
                    (yamr__family)f, (int)yamr_dtype_size((yamr_dtype)d), YAMR__ACC_TOPK, shape);
                if (yamr__gpu_policy_held(id, (yamr_dtype)d, YAMR__ACC_TOPK) != built[f])
                    failf("family %s: top-k row %s for %s is %s, the family's reductions' %s",
                          yamr__family_name((yamr__family)f), yamr__policy_row(id)->name,
                          yamr_dtype_name((yamr_dtype)d), built[f] ? "not held" : "held",
                          built[f] ? "are" : "are not");
            }
    if (built[YAMR__FAMILY_SM70] != built[YAMR__FAMILY_SM90] ||
        built[YAMR__FAMILY_SM80] != built[YAMR__FAMILY_SM90] ||
        built[YAMR__FAMILY_CDNA] != built[YAMR__FAMILY_RDNA] ||
        built[YAMR__FAMILY_SM90] == built[YAMR__FAMILY_CDNA])
        failf("the registry holds the rows of exactly one vendor's families");
    printf("  registry: the %s rows' instances are held\n",
           built[YAMR__FAMILY_SM90] ? "NVIDIA" : "AMD");
}

/* sm_90's rows hold the constants measured on an H100 (docs/performance.md, "Tuning
 * constants"): a change here is a retune, to be measured. */
static void sm90_rows_are_the_measured_ones(void)
{
    const yamr__family f = YAMR__FAMILY_SM90;
    const yamr__policy *g2 = expect_row(f, 2, YAMR__ACC_BEST, YAMR__SHAPE_GRID);
    const yamr__policy *g4 = expect_row(f, 4, YAMR__ACC_BEST, YAMR__SHAPE_GRID);
    const yamr__policy *g4m = expect_row(f, 4, YAMR__ACC_MINMAX, YAMR__SHAPE_GRID);
    const yamr__policy *g8 = expect_row(f, 8, YAMR__ACC_BEST, YAMR__SHAPE_GRID);
    const yamr__policy *g8m = expect_row(f, 8, YAMR__ACC_MINMAX, YAMR__SHAPE_GRID);
    if (g2->vectors != 4 || g2->vectors_one_block != 4 || g2->min_blocks != 1 ||
        g4->vectors != 8 || g4->vectors_one_block != 16 || g4->vectors_spread != 4 ||
        g4->min_blocks != 3 || g4->min_blocks_one_block != 1 || g4m->min_blocks != 1 ||
        g8->vectors != 8 || g8->vectors_spread != 8 || g8->min_blocks != 4 ||
        g8->min_blocks_one_block != 4 || g8m->min_blocks != 1 || g4->min_blocks_wide != 1)
        failf("sm_90 GRID rows differ from the measured constants");
    const yamr__policy *l4 = expect_row(f, 4, YAMR__ACC_BEST, YAMR__SHAPE_LANES);
    const yamr__policy *l8 = expect_row(f, 8, YAMR__ACC_BEST, YAMR__SHAPE_LANES);
    const yamr__policy *b = expect_row(f, 4, YAMR__ACC_BEST, YAMR__SHAPE_BLOCK);
    const yamr__policy *sp = expect_row(f, 4, YAMR__ACC_BEST, YAMR__SHAPE_SPLIT);
    const yamr__policy *s2 = expect_row(f, 2, YAMR__ACC_BEST, YAMR__SHAPE_SEGMENTS);
    const yamr__policy *s4 = expect_row(f, 4, YAMR__ACC_BEST, YAMR__SHAPE_SEGMENTS);
    const yamr__policy *s8 = expect_row(f, 8, YAMR__ACC_BEST, YAMR__SHAPE_SEGMENTS);
    if (l4->lanes != 8 || l4->count != 16 || l4->warp_count != 8 || l4->min_blocks != 6 ||
        l8->min_blocks != 4 || b->vectors != 4 || b->min_blocks != 0 || sp->vectors != 4 ||
        sp->min_blocks_wide != 1 || s2->lanes != 4 || s2->min_blocks != 6 || s4->lanes != 4 ||
        s4->count != 32 || s4->warp_count != 16 || s4->min_blocks != 5 || s8->lanes != 8 ||
        s8->count != 16 || s8->min_blocks != 4)
        failf("sm_90 batched rows differ from the measured constants");
    const yamr__policy *ts = expect_row(f, 4, YAMR__ACC_TOPK, YAMR__SHAPE_TOPK_SELECT);
    const yamr__policy *ts8 = expect_row(f, 8, YAMR__ACC_TOPK, YAMR__SHAPE_TOPK_SELECT);
    const yamr__policy *tl = expect_row(f, 4, YAMR__ACC_TOPK, YAMR__SHAPE_TOPK_LIST);
    const yamr__policy *tl2 = expect_row(f, 2, YAMR__ACC_TOPK, YAMR__SHAPE_TOPK_LIST);
    const yamr__policy *tl8 = expect_row(f, 8, YAMR__ACC_TOPK, YAMR__SHAPE_TOPK_LIST);
    if (ts->threads != 256 || ts->vectors != 4 || ts->topk.slots != 4 || ts->min_blocks != 4 ||
        ts->topk.min_blocks_most_slots != 2 || ts->topk.split_blocks != 3 ||
        ts8->min_blocks != 3 || ts8->topk.split_blocks != 3 || ts->topk.scan_copies != 2 ||
        ts->topk.warp_bytes != 16384 || ts8->topk.warp_bytes != 32768 || ts->topk.lane_k != 16 ||
        ts->count != 32 || ts->topk.lane_half_blocks != 5 ||
        ts->topk.split_min != 8192 || ts->topk.split_per_k != 32 ||
        tl->count != 8 || tl2 != tl || tl8 != tl || tl->min_blocks != 4 ||
        tl->topk.split_min != 8192 || tl->topk.split_per_k != 32 ||
        tl->topk.floor_ratio != 4 || tl->topk.floor_own_blocks != 8 ||
        tl->topk.own_split_blocks != 2)
        failf("sm_90 top-k rows differ from the measured constants");
}

/* A context with made-up device facts, for the planner only: no call reaches its `gpu` (grid-wide
 * calls of one block ask no occupancy; batched calls ask nothing). */
static void made_up_context(yamr_context *ctx, const made_up_device *d, yamr__gpu *gpu)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->device = 0;
    ctx->info.vendor = d->vendor;
    snprintf(ctx->info.arch, sizeof ctx->info.arch, "%s", d->arch);
    ctx->info.warp_size = d->warp_size;
    ctx->info.independent_thread_scheduling = d->vendor == YAMR_VENDOR_NVIDIA;
    ctx->info.multiprocessors = d->multiprocessors;
    ctx->info.max_block_threads = 1024;
    ctx->family = yamr__device_family(&ctx->info);
    ctx->gpu = gpu;
    ctx->variant = YAMR_VARIANT_AUTO;
}

/* The plan of (call, dtype, rows x cols) on ctx names `want` (found in the table for the family,
 * the element size, the accumulator and the shape), with its threads. */
static void expect_plan_row(yamr_context *ctx, yamr_call call, yamr_dtype dtype, size_t rows,
                            size_t cols, int acc, int shape)
{
    yamr_plan plan;
    char err[128];
    const yamr_op op = call == YAMR_CALL_SOFTMAX_STATS ? YAMR_OP_MAX : YAMR_OP_ARGMAX;
    const yamr_status s =
        yamr__make_plan(ctx, call, op, dtype, rows, cols, 1, &plan, err, sizeof err);
    if (s != YAMR_SUCCESS)
        failf("%s: plan of call %d, %s, %zu x %zu: %s", ctx->info.arch, (int)call,
              yamr_dtype_name(dtype), rows, cols, yamr_status_string(s));
    const yamr__policy_id want =
        yamr__policy_find(ctx->family, (int)yamr_dtype_size(dtype), acc, shape);
    if (YAMR__PLAN_POLICY(&plan) != (uint32_t)want)
        failf("%s: call %d, %s, %zu x %zu: the plan names row %s, the table says %s",
              ctx->info.arch, (int)call, yamr_dtype_name(dtype), rows, cols,
              yamr__policy_row((int)YAMR__PLAN_POLICY(&plan))->name, yamr__policy_row(want)->name);
    const yamr__policy *row = yamr__policy_row(want);
    if (shape != YAMR__SHAPE_SINGLE_BLOCK && plan.block_threads != row->threads)
        failf("%s: row %s has %d threads, the plan %d", ctx->info.arch, row->name, row->threads,
              plan.block_threads);
    if (shape == YAMR__SHAPE_LANES || shape == YAMR__SHAPE_SEGMENTS) {
        char line[640];
        yamr__describe_plan(ctx, &plan, line, sizeof line);
        if (!strstr(line, row->name) || !strstr(line, yamr__family_name(ctx->family)))
            failf("%s: the description does not name row %s: %s", ctx->info.arch, row->name, line);
    }
}

/* A top-k plan on ctx names the row the table has for its family, element size and the kernel
 * k needs (warp select where the select slots hold k and the ranks are one word, else the shared
 * list), with its threads and, for the shared list, the floor `floor` (a yamr__topk_floor_mode;
 * for the select kernel none, or SEED_FIRST: its warp rows' seed), and its description says so. */
static void expect_topk_row(yamr_context *ctx, yamr_dtype dtype, size_t rows, size_t cols,
                            size_t k, unsigned floor)
{
    yamr_plan plan;
    const yamr_status s = yamr_plan_for_topk(ctx, YAMR_OP_ARGMAX, dtype, rows, cols, k, &plan);
    if (s != YAMR_SUCCESS)
        failf("%s: top-k plan of %s, %zu x %zu, k %zu: %s", ctx->info.arch,
              yamr_dtype_name(dtype), rows, cols, k, yamr_status_string(s));
    const int wide_narrow = yamr_dtype_size(dtype) <= 4 && cols >= (size_t)UINT32_MAX;
    const int shape = yamr__topk_select_slots(&ctx->info, k) && !wide_narrow
                          ? YAMR__SHAPE_TOPK_SELECT
                          : YAMR__SHAPE_TOPK_LIST;
    const yamr__policy_id want =
        yamr__policy_find(ctx->family, (int)yamr_dtype_size(dtype), YAMR__ACC_TOPK, shape);
    const yamr__policy *row = yamr__policy_row(want);
    if (want == YAMR__POLICY_NONE || YAMR__PLAN_POLICY(&plan) != (uint32_t)want ||
        yamr__plan_policy(&plan) != (int)want || row->shape != shape)
        failf("%s: top-k %s, %zu x %zu, k %zu: the plan names row %s, the table says %s",
              ctx->info.arch, yamr_dtype_name(dtype), rows, cols, k,
              yamr__policy_row((int)YAMR__PLAN_POLICY(&plan))->name, row->name);
    /* slots: a select plan's, but lane rows' (a lanes-per-row plan of none) */
    if (plan.block_threads != row->threads ||
        (shape == YAMR__SHAPE_TOPK_LIST && YAMR__PLAN_TOPK_SLOTS(&plan) != 0) ||
        (shape == YAMR__SHAPE_TOPK_SELECT && YAMR__PLAN_TOPK_SLOTS(&plan) == 0 &&
         plan.kernel != YAMR_KERNEL_LANES_PER_ROW))
        failf("%s: row %s: %d threads, the plan %d; slots %u", ctx->info.arch, row->name,
              row->threads, plan.block_threads, (unsigned)YAMR__PLAN_TOPK_SLOTS(&plan));
    /* a select plan has no floor: none, or its warp rows' seed (the caller's SEED_FIRST) */
    if (shape == YAMR__SHAPE_TOPK_SELECT && floor != YAMR__TOPK_SEED_FIRST)
        floor = YAMR__TOPK_FLOOR_NONE;
    if (YAMR__PLAN_TOPK_FLOOR(&plan) != floor || (plan.index_bits != (wide_narrow ? 64 : 32) &&
                                                      yamr_dtype_size(dtype) <= 4))
        failf("%s: top-k %s, %zu x %zu, k %zu: floor %u (want %u), %d-bit indices",
              ctx->info.arch, yamr_dtype_name(dtype), rows, cols, k,
              (unsigned)YAMR__PLAN_TOPK_FLOOR(&plan), floor, plan.index_bits);
    char line[640];
    yamr__describe_plan(ctx, &plan, line, sizeof line);
    if (!strstr(line, row->name) || !strstr(line, yamr__family_name(ctx->family)))
        failf("%s: the top-k description does not name row %s: %s", ctx->info.arch, row->name,
              line);
    if (!strcmp(ctx->info.arch, "sm_90") && cols == 128256) printf("  %s\n", line);
}

/* Lane rows: a select plan of one-word ranks and k up to the row's lane_k whose rows `count`
 * elements a lane cover with at most a warp's lanes, and 2k lanes, takes that many (a power of
 * two) and no slots; others a warp (the warp select). */
static void expect_topk_lanes(yamr_context *ctx, yamr_dtype dtype, size_t rows, size_t cols,
                              size_t k, unsigned lanes, int lane_rows)
{
    yamr_plan plan;
    if (yamr_plan_for_topk(ctx, YAMR_OP_MAX, dtype, rows, cols, k, &plan) !=
            YAMR_SUCCESS ||
        plan.kernel != YAMR_KERNEL_LANES_PER_ROW || YAMR__PLAN_LANES_PER_ROW(&plan) != lanes ||
        (YAMR__PLAN_TOPK_SLOTS(&plan) == 0) != lane_rows ||
        plan.grid_blocks != (rows * lanes + (size_t)plan.block_threads - 1) /
                                (size_t)plan.block_threads)
        failf("%s: top-k %zu x %zu, k %zu: kernel %s, %u lanes a row (want %u), %u slots, %u "
              "blocks", ctx->info.arch, rows, cols, k, yamr_kernel_name(plan.kernel),
              (unsigned)YAMR__PLAN_LANES_PER_ROW(&plan), lanes,
              (unsigned)YAMR__PLAN_TOPK_SLOTS(&plan), plan.grid_blocks);
    char line[640];
    yamr__describe_plan(ctx, &plan, line, sizeof line);
    if (lane_rows != (strstr(line, "lanes per row") != NULL))
        failf("%s: top-k %zu x %zu, k %zu: the description does not say its lanes: %s",
              ctx->info.arch, rows, cols, k, line);
}

/* A top-k plan on ctx splits each row over `bpr` blocks, counting by `floor` (none: a select
 * plan). */
static void expect_topk_split(yamr_context *ctx, yamr_dtype dtype, size_t rows, size_t cols,
                              size_t k, int bpr, unsigned floor)
{
    yamr_plan plan;
    if (yamr_plan_for_topk(ctx, YAMR_OP_MAX, dtype, rows, cols, k, &plan) != YAMR_SUCCESS ||
        plan.blocks_per_row != bpr || YAMR__PLAN_TOPK_FLOOR(&plan) != floor)
        failf("%s: top-k %zu x %zu, k %zu: %d blocks a row (want %d), floor %u (want %u)",
              ctx->info.arch, rows, cols, k, plan.blocks_per_row, bpr,
              (unsigned)YAMR__PLAN_TOPK_FLOOR(&plan), floor);
}

void test_policy_table(void **state)
{
    (void)state;
    every_family_has_its_rows();
    rows_keep_the_width_readable();
    sm90_rows_are_the_measured_ones();
    registry_holds_every_row();
    static yamr__gpu *const fake_gpu = (yamr__gpu *)&made_up; /* never dereferenced */
    for (size_t i = 0; i < sizeof made_up / sizeof made_up[0]; ++i) {
        const made_up_device *d = &made_up[i];
        yamr_context ctx;
        made_up_context(&ctx, d, fake_gpu);
        if (ctx.family != d->family)
            failf("%s: family %s, expected %s", d->arch, yamr__family_name(ctx.family),
                  yamr__family_name(d->family));
        if (strcmp(yamr__policy_row(yamr__policy_find(ctx.family, 4, YAMR__ACC_BEST,
                                                      YAMR__SHAPE_GRID))->name,
                   d->grid_f32))
            failf("%s: the grid-wide f32 row is not %s", d->arch, d->grid_f32);
        /* grid-wide calls of one block (no occupancy to ask) */
        expect_plan_row(&ctx, YAMR_CALL_REDUCE, YAMR_DTYPE_F32, 1, 1000, YAMR__ACC_BEST,
                        YAMR__SHAPE_GRID);
        expect_plan_row(&ctx, YAMR_CALL_REDUCE, YAMR_DTYPE_BF16, 1, 3000, YAMR__ACC_BEST,
                        YAMR__SHAPE_GRID);
        expect_plan_row(&ctx, YAMR_CALL_MINMAX, YAMR_DTYPE_F64, 1, 1000, YAMR__ACC_MINMAX,
                        YAMR__SHAPE_GRID);
        /* the batched shapes */
        expect_plan_row(&ctx, YAMR_CALL_ROWS, YAMR_DTYPE_F32, 65536, 128, YAMR__ACC_BEST,
                        YAMR__SHAPE_LANES);
        expect_plan_row(&ctx, YAMR_CALL_ROWS, YAMR_DTYPE_I64, 1000, 200, YAMR__ACC_BEST,
                        YAMR__SHAPE_LANES);
        expect_plan_row(&ctx, YAMR_CALL_ROWS, YAMR_DTYPE_F16, 10000, 4096, YAMR__ACC_BEST,
                        YAMR__SHAPE_BLOCK);
        expect_plan_row(&ctx, YAMR_CALL_ROWS, YAMR_DTYPE_F32, 4, (size_t)1 << 24, YAMR__ACC_BEST,
                        YAMR__SHAPE_SPLIT);
        expect_plan_row(&ctx, YAMR_CALL_SOFTMAX_STATS, YAMR_DTYPE_F64, 1024, 64,
                        YAMR__ACC_SOFTMAX, YAMR__SHAPE_LANES);
        expect_plan_row(&ctx, YAMR_CALL_SEGMENTS, YAMR_DTYPE_F16, 1000000, 0, YAMR__ACC_BEST,
                        YAMR__SHAPE_SEGMENTS);
        expect_plan_row(&ctx, YAMR_CALL_SEGMENTS, YAMR_DTYPE_I64, 1000000, 0, YAMR__ACC_BEST,
                        YAMR__SHAPE_SEGMENTS);
        expect_plan_row(&ctx, YAMR_CALL_SEGMENTS, YAMR_DTYPE_F32, 3, 0, YAMR__ACC_BEST,
                        YAMR__SHAPE_SPLIT);
        /* top-k: warp select (a warp per row, a block per row, a split row; no floor), the
         * shared list: a block's own counts (a row of a few blocks, a row of one), the row's counts
         * (a split over every multiprocessor), no floor (k above a quarter of the row); wide
         * ranks of 4-byte keys: the shared list whatever k */
        expect_topk_row(&ctx, YAMR_DTYPE_F32, 65536, 128, 4, YAMR__TOPK_FLOOR_NONE);
        expect_topk_row(&ctx, YAMR_DTYPE_F32, 1024, 32000, 8, YAMR__TOPK_FLOOR_NONE);
        expect_topk_row(&ctx, YAMR_DTYPE_BF16, 64, 128256, 50, YAMR__TOPK_FLOOR_NONE);
        expect_topk_row(&ctx, YAMR_DTYPE_F64, 128, 32000, 256, YAMR__TOPK_FLOOR_OWN);
        expect_topk_row(&ctx, YAMR_DTYPE_I32, 1, (size_t)1 << 26, 1024, YAMR__TOPK_FLOOR_ROW);
        expect_topk_row(&ctx, YAMR_DTYPE_F16, 16, 5000, 300, YAMR__TOPK_FLOOR_OWN);
        expect_topk_row(&ctx, YAMR_DTYPE_F32, 2, 1000, 300, YAMR__TOPK_FLOOR_NONE);
        expect_topk_row(&ctx, YAMR_DTYPE_U32, 1, ((size_t)1 << 32) + 5, 8, YAMR__TOPK_FLOOR_ROW);
        /* a split of the blocks' own counts fills a wave of own_split_blocks an SM (128 rows on
         * 132: 2 blocks a row where split_blocks give 3), one of the row's counts split_blocks */
        if (!strcmp(ctx.info.arch, "sm_90")) {
            expect_topk_split(&ctx, YAMR_DTYPE_F32, 128, 32000, 256, 2, YAMR__TOPK_FLOOR_OWN);
            expect_topk_split(&ctx, YAMR_DTYPE_F32, 64, 128256, 300, 4, YAMR__TOPK_FLOOR_OWN);
            expect_topk_split(&ctx, YAMR_DTYPE_F32, 1, (size_t)1 << 26, 1024, 528,
                              YAMR__TOPK_FLOOR_ROW);
            /* one-slot select splits: parts of split_min (8192), half that where the lists
             * still fit a group of the register merge a warp (64 on 8 warps); a row of one
             * block stays one */
            expect_topk_split(&ctx, YAMR_DTYPE_F32, 1, 140001, 16, 34, YAMR__TOPK_FLOOR_NONE);
            expect_topk_split(&ctx, YAMR_DTYPE_F32, 2, 70001, 8, 17, YAMR__TOPK_FLOOR_NONE);
            expect_topk_split(&ctx, YAMR_DTYPE_F32, 1, 500000, 16, 61, YAMR__TOPK_FLOOR_NONE);
            expect_topk_split(&ctx, YAMR_DTYPE_F32, 1, (size_t)1 << 20, 16, 128,
                              YAMR__TOPK_FLOOR_NONE);
            expect_topk_split(&ctx, YAMR_DTYPE_F32, 1, 140001, 64, 17, YAMR__TOPK_FLOOR_NONE);
            expect_topk_split(&ctx, YAMR_DTYPE_F32, 2, 12000, 4, 1, YAMR__TOPK_FLOOR_NONE);
        }
        /* a warp's row seeds from its first loads where it holds seed_first_bytes a slot (16 KiB
         * for k 64 on 32-lane warps, 8 KiB on 64-lane waves), else from the whole row */
        expect_topk_row(&ctx, YAMR_DTYPE_F32, 4096, 4096, 64, YAMR__TOPK_SEED_FIRST);
        expect_topk_row(&ctx, YAMR_DTYPE_F32, 300, 2000, 100, YAMR__TOPK_FLOOR_NONE);
        expect_topk_row(&ctx, YAMR_DTYPE_BF16, 300, 4000, 8, YAMR__TOPK_FLOOR_NONE);
        /* lane rows (32 elements a lane, 2k lanes at least where the row has 2k vectors, k up
         * to 16, at most a warp's lanes), else the warp select, a warp per row */
        const unsigned w = (unsigned)ctx.info.warp_size;
        expect_topk_lanes(&ctx, YAMR_DTYPE_F32, 65536, 128, 4, 8, 1);
        expect_topk_lanes(&ctx, YAMR_DTYPE_F32, 65536, 128, 8, 16, 1);
        expect_topk_lanes(&ctx, YAMR_DTYPE_F32, 65536, 128, 9, 32, 1);
        expect_topk_lanes(&ctx, YAMR_DTYPE_F32, 65536, 128, 17, w, 0);
        expect_topk_lanes(&ctx, YAMR_DTYPE_F32, 1000, 1, 1, 1, 1);
        expect_topk_lanes(&ctx, YAMR_DTYPE_F32, 3, 17, 2, 4, 1);
        expect_topk_lanes(&ctx, YAMR_DTYPE_F32, 3, 8, 8, 2, 1);
        expect_topk_lanes(&ctx, YAMR_DTYPE_F32, 1000, 256, 5, 16, 1);
        expect_topk_lanes(&ctx, YAMR_DTYPE_F32, 1000, 257, 5, 16, 1);
        expect_topk_lanes(&ctx, YAMR_DTYPE_F32, 1000, 1000, 10, 32, 1);
        expect_topk_lanes(&ctx, YAMR_DTYPE_F32, 1000, 1025, 5, w, w == 64);
        expect_topk_lanes(&ctx, YAMR_DTYPE_F32, 1000, 2049, 5, w, 0);
        expect_topk_lanes(&ctx, YAMR_DTYPE_BF16, 65536, 128, 4, 8, 1);
        expect_topk_lanes(&ctx, YAMR_DTYPE_F64, 65536, 128, 4, w, 0);
        /* a variant libyamr holds no split instance of: one block of a thread per element */
        ctx.variant = YAMR_VARIANT_SHARED_TREE;
        expect_plan_row(&ctx, YAMR_CALL_REDUCE, YAMR_DTYPE_F32, 1, 100, YAMR__ACC_BEST,
                        YAMR__SHAPE_SINGLE_BLOCK);
    }
    /* the CPU backend's row */
    yamr_context *cpu;
    assert_int_equal(yamr_create(&cpu, YAMR_DEVICE_CPU), YAMR_SUCCESS);
    assert_int_equal(cpu->family, YAMR__FAMILY_CPU);
    yamr_plan plan;
    assert_int_equal(yamr_plan_for(cpu, YAMR_CALL_ROWS, YAMR_OP_MAX, YAMR_DTYPE_F32, 10, 10, &plan),
                     YAMR_SUCCESS);
    assert_int_equal(yamr__plan_policy(&plan), YAMR__POLICY_cpu);
    char line[640];
    assert_int_equal(yamr_plan_describe(cpu, &plan, line, sizeof line), YAMR_SUCCESS);
    if (!strstr(line, "policy cpu")) failf("the CPU plan's description: %s", line);
    assert_int_equal(yamr_plan_for_topk(cpu, YAMR_OP_MAX, YAMR_DTYPE_F32, 10, 100, 5, &plan),
                     YAMR_SUCCESS);
    assert_int_equal(yamr__plan_policy(&plan), YAMR__POLICY_cpu_topk);
    assert_int_equal(yamr_plan_describe(cpu, &plan, line, sizeof line), YAMR_SUCCESS);
    if (!strstr(line, "policy cpu_topk")) failf("the CPU top-k plan's description: %s", line);
    yamr_destroy(cpu);
    end_test("policy table");
}
