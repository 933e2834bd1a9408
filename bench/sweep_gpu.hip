/* SPDX-License-Identifier: MIT */
/* yamr-bench sweep and rows, device side: event timing, input generation, the launch floor. */
#include <algorithm>
#include <vector>

#include "sweep_gpu.h"
#include "yamr_port.h"

#define TRY(call)                                                                              \
    do {                                                                                       \
        hipError_t e_ = (call);                                                                \
        if (e_ != hipSuccess) {                                                                \
            snprintf(err, errlen, "%s: %s", #call, hipGetErrorString(e_));                     \
            return 1;                                                                          \
        }                                                                                      \
    } while (0)

/* Holds the default stream until the host sets *go, or until about 2^34 cycles (several seconds)
 * have passed; then it sets *timed_out. */
__global__ void sweep_hold_kernel(volatile int *go, int *timed_out)
{
    const long long start = clock64();
    while (!*go)
        if (clock64() - start > (1ll << 34)) {
            *timed_out = 1;
            return;
        }
}

/* Calls queued behind one hold: at most this many, so that the launch queue never fills while
 * the stream is held. */
#define SWEEP_QUEUED_BATCH 16

extern "C" int sweep_time(sweep_call call, void *arg, int warmup, int reps, int queued,
                          sweep_times *t, char *err, size_t errlen)
{
    for (int i = 0; i < warmup; ++i)
        if (call(arg, i)) {
            snprintf(err, errlen, "warm-up call failed");
            return 1;
        }
    int *flags = NULL, *dev_flags = NULL; /* go, timed_out: host memory the device reads */
    if (queued) {
        TRY(hipHostMalloc((void **)&flags, 2 * sizeof *flags, hipHostMallocMapped));
        TRY(hipHostGetDevicePointer((void **)&dev_flags, flags, 0));
        flags[1] = 0;
    }
    std::vector<hipEvent_t> ev(2 * (size_t)reps);
    for (auto &e : ev) TRY(hipEventCreate(&e));
    int failed = 0;
    for (int i = 0; i < reps && !failed; ++i) {
        if (queued && i % SWEEP_QUEUED_BATCH == 0) {
            *(volatile int *)&flags[0] = 0;
            sweep_hold_kernel<<<1, 1>>>(dev_flags, dev_flags + 1);
            TRY(hipGetLastError());
        }
        TRY(hipEventRecord(ev[2 * i], 0));
        failed = call(arg, i);
        TRY(hipEventRecord(ev[2 * i + 1], 0));
        const int batch_ends = i % SWEEP_QUEUED_BATCH == SWEEP_QUEUED_BATCH - 1 || i == reps - 1;
        if (queued && (failed || batch_ends)) {
            __atomic_store_n(&flags[0], 1, __ATOMIC_SEQ_CST); /* release the held calls */
            TRY(hipEventSynchronize(ev[2 * i + 1]));
        }
    }
    if (failed) snprintf(err, errlen, "timed call failed");
    if (!failed) TRY(hipEventSynchronize(ev.back()));
    TRY(hipGetLastError());
    if (queued && flags[1]) {
        snprintf(err, errlen, "the stream was held past its time limit");
        failed = 1;
    }
    if (queued) TRY(hipHostFree(flags));
    std::vector<double> us(reps);
    for (int i = 0; i < reps && !failed; ++i) {
        float ms = 0;
        TRY(hipEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
        us[i] = 1000.0 * ms;
    }
    for (auto &e : ev) TRY(hipEventDestroy(e));
    if (failed) return 1;
    sweep_times_of(us.data(), reps, t);
    return 0;
}

__device__ inline unsigned long long sweep_hash(unsigned long long x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

__global__ void sweep_fill_kernel(yamr_dtype dtype, void *dev, size_t n, unsigned long long seed)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const unsigned long long h = sweep_hash(seed ^ i);
        const float f = (float)(h >> 40) / (float)(1ull << 23) - 1.0f; /* [-1, 1) */
        switch (dtype) {
        case YAMR_DTYPE_F32: ((float *)dev)[i] = f; break;
        case YAMR_DTYPE_F64: ((double *)dev)[i] = (double)(h >> 11) / (double)(1ull << 52) - 1.0; break;
        case YAMR_DTYPE_F16: { /* binary16 of f, through its exponent: |f| < 1 */
            const unsigned s = f < 0 ? 0x8000u : 0u;
            const float a = fabsf(f);
            int e;
            const float m = frexpf(a, &e);
            ((unsigned short *)dev)[i] = a < 6.2e-5f ? (unsigned short)s
                                                     : (unsigned short)(s | ((e + 14) << 10) | ((unsigned)(m * 2048.0f) & 1023u));
            break;
        }
        case YAMR_DTYPE_BF16: ((unsigned short *)dev)[i] = (unsigned short)(__float_as_uint(f) >> 16); break;
        case YAMR_DTYPE_I32: ((int *)dev)[i] = (int)(h >> 32); break;
        case YAMR_DTYPE_U32: ((unsigned *)dev)[i] = (unsigned)(h >> 32); break;
        case YAMR_DTYPE_I64: ((long long *)dev)[i] = (long long)h; break;
        }
    }
}

extern "C" int sweep_fill(yamr_dtype dtype, void *dev, size_t n, unsigned long long seed, char *err,
                          size_t errlen)
{
    sweep_fill_kernel<<<4096, 256>>>(dtype, dev, n, seed);
    TRY(hipGetLastError());
    TRY(hipDeviceSynchronize());
    return 0;
}

extern "C" int sweep_copy(void *dst, const void *src, size_t bytes)
{
    return hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToDevice, 0) != hipSuccess;
}

extern "C" size_t sweep_l2_bytes(int device)
{
    hipDeviceProp_t p;
    if (hipGetDeviceProperties(&p, device) != hipSuccess) return 0;
    return (size_t)p.l2CacheSize;
}

/* Does nothing: what is left of a timed call when the work is taken out. */
__global__ void sweep_empty_kernel() {}

/* Launched and checked as yamr's launchers do: the launch, then hipGetLastError. */
static int launch_empty(void *arg, int rep)
{
    (void)arg, (void)rep;
    sweep_empty_kernel<<<1, 32>>>();
    return hipGetLastError() != hipSuccess;
}

extern "C" int sweep_launch_floor(int warmup, int reps, int queued, double *median_us,
                                  double *min_us, char *err, size_t errlen)
{
    sweep_times t;
    if (sweep_time(launch_empty, NULL, warmup, reps, queued, &t, err, errlen)) return 1;
    *median_us = t.median_us;
    *min_us = t.min_us;
    return 0;
}

extern "C" int sweep_empty_launch_sync(void)
{
    sweep_empty_kernel<<<1, 32>>>();
    return hipGetLastError() != hipSuccess || hipStreamSynchronize(0) != hipSuccess;
}

/* The graph's state, released on every path out of sweep_graph_time. */
struct sweep_graph {
    hipStream_t stream = NULL;
    hipGraph_t graph = NULL;
    hipGraphExec_t exec = NULL;
    hipEvent_t start = NULL, stop = NULL;
    ~sweep_graph()
    {
        if (start) (void)hipEventDestroy(start);
        if (stop) (void)hipEventDestroy(stop);
        if (exec) (void)hipGraphExecDestroy(exec);
        if (graph) (void)hipGraphDestroy(graph);
        if (stream) (void)hipStreamDestroy(stream);
    }
};

extern "C" int sweep_graph_time(sweep_stream_call call, void *arg, int calls, int replays,
                                double *us_per_call, char *err, size_t errlen)
{
    sweep_graph g;
    TRY(hipStreamCreate(&g.stream));
    TRY(hipEventCreate(&g.start));
    TRY(hipEventCreate(&g.stop));
    TRY(hipStreamBeginCapture(g.stream, hipStreamCaptureModeThreadLocal));
    int failed = 0;
    for (int i = 0; i < calls && !failed; ++i) failed = call(arg, (void *)g.stream);
    TRY(hipStreamEndCapture(g.stream, &g.graph)); /* ends the capture on every path */
    if (failed) {
        snprintf(err, errlen, "a call failed while the stream was captured");
        return 1;
    }
    TRY(hipGraphInstantiateWithFlags(&g.exec, g.graph, 0));
    TRY(hipGraphLaunch(g.exec, g.stream)); /* untimed: the first launch uploads the graph */
    TRY(hipStreamSynchronize(g.stream));
    std::vector<double> us((size_t)replays);
    for (int r = 0; r < replays; ++r) {
        TRY(hipEventRecord(g.start, g.stream));
        TRY(hipGraphLaunch(g.exec, g.stream));
        TRY(hipEventRecord(g.stop, g.stream));
        TRY(hipEventSynchronize(g.stop));
        float ms = 0;
        TRY(hipEventElapsedTime(&ms, g.start, g.stop));
        us[(size_t)r] = 1e3 * ms / calls;
    }
    sweep_times t;
    sweep_times_of(us.data(), replays, &t);
    *us_per_call = t.median_us;
    return 0;
}

/* The read ceiling: a plain streaming read, 16-byte loads, four in flight per thread, each block
 * a contiguous 16 KiB (the best of the layouts tried on the H100: grid-striding, 128 to 1024
 * threads, 2 to 16 loads per thread, all within 3% at 16 MiB to 1 GiB). The XOR of what it reads
 * goes to sweep_sink when it equals one arbitrary value (harmless if it does): the loads stay. */
#define SWEEP_READ_THREADS 256
#define SWEEP_READ_UNROLL 4
__device__ unsigned sweep_sink;

__global__ void __launch_bounds__(SWEEP_READ_THREADS)
sweep_read_kernel(const uint4 *__restrict__ p, size_t vectors)
{
    const size_t base = (size_t)blockIdx.x * SWEEP_READ_THREADS * SWEEP_READ_UNROLL + threadIdx.x;
    uint4 r[SWEEP_READ_UNROLL];
#pragma unroll
    for (int u = 0; u < SWEEP_READ_UNROLL; ++u) {
        const size_t i = base + (size_t)u * SWEEP_READ_THREADS;
        r[u] = i < vectors ? p[i] : make_uint4(0, 0, 0, 0);
    }
    unsigned x = 0;
#pragma unroll
    for (int u = 0; u < SWEEP_READ_UNROLL; ++u) x ^= r[u].x ^ r[u].y ^ r[u].z ^ r[u].w;
    if (x == 0x9e3779b9u) sweep_sink = x;
}

extern "C" int sweep_read(const void *src, size_t bytes)
{
    const size_t vectors = bytes / 16;
    const size_t per_block = (size_t)SWEEP_READ_THREADS * SWEEP_READ_UNROLL;
    const size_t blocks = (vectors + per_block - 1) / per_block;
    if (blocks == 0 || blocks > 0x7fffffffu) return 1;
    sweep_read_kernel<<<(unsigned)blocks, SWEEP_READ_THREADS>>>((const uint4 *)src, vectors);
    return hipGetLastError() != hipSuccess;
}
