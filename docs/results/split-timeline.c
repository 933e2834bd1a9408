/*
 * The split kernel's blocks on a time line (docs/performance.md, "The split tail, phase by
 * phase"): synchronous (no argument) or asynchronous (any argument) f32 argmax calls at 2^20
 * and 2^22 over inputs rotating through 1 GiB, with a library built from this tree plus
 * split-timeline.patch, which stamps %globaltimer into a device array at each block's start,
 * after its block merge and after its arrival, and in the last block after each step of its
 * merge. Per call: the stamps from the first block's start, in ns; printed: their medians over
 * 180 calls. YAMR_EXP_PER_UNIT=3 keeps the plan of the unpatched kernel (the stamps change its
 * registers, so that 4 blocks fit a multiprocessor instead of 3).
 *     patch -p1 < docs/results/split-timeline.patch
 *     cmake -S . -B build/tl -G Ninja -DYAMR_PLATFORM=nvidia -DYAMR_CUDA_ARCHS=90
 *     cmake --build build/tl --target yamr
 *     gcc -O2 -I include -I build/tl/include docs/results/split-timeline.c -o tl \
 *         -Lbuild/tl -lyamr -Wl,-rpath,$PWD/build/tl
 *     YAMR_EXP_PER_UNIT=3 ./tl async
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "yamr.h"
int yamr__tl_dump(void *host);
static unsigned long long tl[5][4096];
static int cmp(const void *a, const void *b) { long long x = *(const long long *)a, y = *(const long long *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv)
{
    yamr_context *ctx;
    if (yamr_create(&ctx, 0) != YAMR_SUCCESS) return 1;
    const size_t pool = (size_t)1 << 30;
    char *d; if (yamr_device_alloc(ctx, pool, (void **)&d)) return 1;
    const int async = argc > 1;
    char *dout; if (yamr_device_alloc(ctx, 64, (void **)&dout)) return 1;
    float *h = malloc((size_t)1 << 26);
    for (size_t i = 0; i < ((size_t)1 << 24); ++i) h[i] = (float)rand() / RAND_MAX;
    for (int lg = 20; lg <= 22; lg += 2) {
        const size_t n = (size_t)1 << lg, bytes = n * 4;
        int rot = (int)(pool / bytes); if (rot > 64) rot = 64;
        for (int r = 0; r < rot; ++r) yamr_copy_to_device(ctx, d + r * bytes, h, bytes);
        yamr_plan plan; float v; int64_t ix;
        const int calls = 200;
        long long q2[200], q3[200], q4[200], q5[200], st_max[200], scan_med[200], scan_max[200], arr_last[200], end[200], dur_med[200], dur_max[200], merged[200];
        int parts = 0;
        for (int c = 0; c < calls; ++c) {
            if (async) {
                if (yamr_argmax_f32_async(ctx, (const float *)(d + (c % rot) * bytes), n, (float *)dout, (int64_t *)(dout + 8))) return 2;
                char res[16]; if (yamr_copy_to_host(ctx, res, dout, 16)) return 3;
            } else if (yamr_argmax_f32(ctx, (const float *)(d + (c % rot) * bytes), n, &v, &ix)) return 2;
            yamr__tl_dump(tl);
            yamr_last_plan(ctx, &plan);
            parts = plan.grid_blocks;
            unsigned long long t0 = ~0ull;
            for (int b = 0; b < parts; ++b) if (tl[0][b] < t0) t0 = tl[0][b];
            long long st[4096], sc[4096], du[4096]; long long am = 0;
            for (int b = 0; b < parts; ++b) { st[b] = tl[0][b] - t0; sc[b] = tl[1][b] - t0; du[b] = tl[1][b] - tl[0][b]; if ((long long)(tl[2][b] - t0) > am) am = tl[2][b] - t0; }
            qsort(st, parts, 8, cmp); qsort(sc, parts, 8, cmp); qsort(du, parts, 8, cmp);
            st_max[c] = st[parts - 1]; scan_med[c] = sc[parts / 2]; scan_max[c] = sc[parts - 1];
            dur_med[c] = du[parts / 2]; dur_max[c] = du[parts - 1];
            arr_last[c] = am; end[c] = tl[3][0] - t0; merged[c] = tl[3][1] - t0; q2[c] = tl[3][2] - t0; q3[c] = tl[3][3] - t0; q4[c] = tl[3][4] - t0; q5[c] = tl[3][5] - t0;
        }
        long long *all[] = {st_max, dur_med, dur_max, scan_med, scan_max, arr_last, q2, q3, q4, q5, merged, end};
        const char *names[] = {"start_max", "dur_med", "dur_max", "scan_med", "scan_max", "arrive_last", "synced", "loaded", "loaded_all", "block_merged", "merged", "end"};
        printf("2^%d blocks %d (ns, median over %d calls after 20):", lg, parts, calls - 20);
        for (int k = 0; k < 12; ++k) { qsort(all[k] + 20, calls - 20, 8, cmp); printf(" %s %lld", names[k], all[k][20 + (calls - 20) / 2]); }
        /* SM spread of the last call */
        int per_sm[256] = {0}; for (int b = 0; b < parts; ++b) per_sm[tl[4][b] & 255]++;
        int hist[8] = {0}; for (int s = 0; s < 132; ++s) hist[per_sm[s] < 7 ? per_sm[s] : 7]++;
        printf(" | SMs with 0..4 blocks: %d %d %d %d %d\n", hist[0], hist[1], hist[2], hist[3], hist[4]);
    }
    yamr_destroy(ctx);
    return 0;
}
