/* SPDX-License-Identifier: MIT */
/* The race lab on the GPU: the library's single-block kernels and the seed kernel, instantiated
 * with the probe. */
#include <algorithm>
#include <math.h>
#include <string.h>
#include <vector>

#include "block_reduce.hpp"
#include "race_lab.h"
#include "seed_kernel.hpp"

#define TRY(call)                                                                              \
    do {                                                                                       \
        hipError_t e_ = (call);                                                                \
        if (e_ != hipSuccess) {                                                                \
            snprintf(err, errlen, "%s: %s", #call, hipGetErrorString(e_));                     \
            return YAMR_ERROR_DEVICE;                                                          \
        }                                                                                      \
    } while (0)

template <int WarpSize, bool Probe>
static void launch(yamr_variant v, int blocks, int threads, const float *in, int n,
                   yamr__result *out, yamr__race_probe *probe)
{
    if (v == YAMR_VARIANT_RACY) { /* the seed kernel is its own kernel */
        yamr_max_racy_kernel<WarpSize, Probe><<<blocks, threads>>>(in, n, out, probe);
        return;
    }
    yamr__with_block_variant(v, [&](auto block) {
        yamr_block_reduce_kernel<YAMR_DTYPE_F32, decltype(block)::value, WarpSize, Probe>
            <<<blocks, threads>>>((const uint32_t *)in, n, 0, 0, out, probe);
    });
}

template <bool Probe>
static void launch_any(int warp_size, yamr_variant v, int blocks, int threads, const float *in,
                       int n, yamr__result *out, yamr__race_probe *probe)
{
    yamr__with_warp_width(warp_size, [&](auto width) {
        launch<decltype(width)::value, Probe>(v, blocks, threads, in, n, out, probe);
    });
}

static yamr_race_sim_dist dist_of(std::vector<int> &x)
{
    yamr_race_sim_dist d = {0, 0, 0, 0, 0};
    if (x.empty()) return d;
    std::sort(x.begin(), x.end());
    double sum = 0, sq = 0;
    for (int v : x) sum += v;
    d.mean = sum / x.size();
    for (int v : x) sq += (v - d.mean) * (v - d.mean);
    d.variance = x.size() > 1 ? sq / (x.size() - 1) : 0;
    auto rank = [&](double p) { return x[std::min(x.size() - 1, (size_t)ceil(p * x.size()) - 1)]; };
    d.p50 = rank(0.50);
    d.p99 = rank(0.99);
    d.max = x.back();
    return d;
}

extern "C" yamr_status race_gpu_measure(int device, yamr_variant v, int threads,
                                        yamr_race_sim_order order, int64_t trials, uint64_t seed,
                                        race_measure *m, char *err, size_t errlen)
{
    TRY(hipSetDevice(device));
    hipDeviceProp_t p;
    TRY(hipGetDeviceProperties(&p, device));
    const int warp = p.warpSize, n = threads;
    const int launched = yamr__block_threads(v, n, warp);
    const int warps = (launched + warp - 1) / warp;
    const int64_t chunk = std::min<int64_t>(trials, 16384);

    std::vector<float> host((size_t)chunk * n);
    std::vector<yamr__result> results(chunk);
    std::vector<yamr__race_probe> probes(chunk);
    float *d_in = NULL;
    yamr__result *d_out = NULL;
    yamr__race_probe *d_probe = NULL;
    TRY(hipMalloc((void **)&d_in, host.size() * sizeof(float)));
    TRY(hipMalloc((void **)&d_out, chunk * sizeof(yamr__result)));
    TRY(hipMalloc((void **)&d_probe, chunk * sizeof(yamr__race_probe)));

    uint64_t rng = seed;
    std::vector<int> first, all;
    std::vector<double> cycles;
    int64_t wrong = 0, done = 0;
    double stores = 0;
    while (done < trials) {
        const int blocks = (int)std::min<int64_t>(chunk, trials - done);
        for (int b = 0; b < blocks; ++b) yamr_race_sim_fill(order, n, &host[(size_t)b * n], &rng);
        TRY(hipMemcpy(d_in, host.data(), (size_t)blocks * n * sizeof(float), hipMemcpyHostToDevice));
        TRY(hipMemset(d_out, 0xff, blocks * sizeof(yamr__result))); /* poison */
        TRY(hipMemset(d_probe, 0, blocks * sizeof(yamr__race_probe)));
        launch_any<true>(warp, v, blocks, launched, d_in, n, d_out, d_probe);
        TRY(hipGetLastError());
        TRY(hipMemcpy(results.data(), d_out, blocks * sizeof(yamr__result), hipMemcpyDeviceToHost));
        TRY(hipMemcpy(probes.data(), d_probe, blocks * sizeof(yamr__race_probe), hipMemcpyDeviceToHost));
        for (int b = 0; b < blocks; ++b) {
            const float *x = &host[(size_t)b * n];
            float truth = x[0];
            for (int i = 1; i < n; ++i) truth = std::max(truth, x[i]);
            float got;
            uint32_t bits = (uint32_t)results[b].value_bits;
            memcpy(&got, &bits, 4);
            wrong += got != truth;
            const bool racy_loop = v == YAMR_VARIANT_RACY || v == YAMR_VARIANT_RACY_VOLATILE ||
                                   v == YAMR_VARIANT_RACY_ITS;
            if (racy_loop) {
                first.push_back((int)probes[b].passes[0]);
                for (int w = 0; w < warps; ++w) all.push_back((int)probes[b].passes[w]);
            }
            stores += probes[b].stores;
            cycles.push_back((double)probes[b].cycles);
        }
        done += blocks;
    }

    /* Launch-to-launch time: back-to-back single-block launches without the probe. */
    hipEvent_t start, stop;
    TRY(hipEventCreate(&start));
    TRY(hipEventCreate(&stop));
    const int reps = 200;
    for (int i = 0; i < 20; ++i) launch_any<false>(warp, v, 1, launched, d_in, n, d_out, NULL);
    TRY(hipEventRecord(start, 0));
    for (int i = 0; i < reps; ++i) launch_any<false>(warp, v, 1, launched, d_in, n, d_out, NULL);
    TRY(hipEventRecord(stop, 0));
    TRY(hipEventSynchronize(stop));
    TRY(hipGetLastError());
    float ms = 0;
    TRY(hipEventElapsedTime(&ms, start, stop));
    TRY(hipEventDestroy(start));
    TRY(hipEventDestroy(stop));
    TRY(hipFree(d_in));
    TRY(hipFree(d_out));
    TRY(hipFree(d_probe));

    std::sort(cycles.begin(), cycles.end());
    m->trials = trials;
    m->wrong = wrong;
    m->writes_mean = stores / trials;
    m->first_warp = dist_of(first);
    m->all_warps = dist_of(all);
    m->cycles_median = cycles[cycles.size() / 2];
    m->launch_us = 1000.0 * ms / reps;
    return YAMR_SUCCESS;
}
