// The split tail's protocols side by side, f32 argmax (docs/performance.md, "The split tail,
// phase by phase"). A harness, not part of the library: each mode is the same scan and block
// merge (warp shuffles) followed by another way to merge the blocks' partials.
//   m0  no tail: each block stores its partial (the floor, not an answer)
//   m1  yamr's protocol: partials in 64-bit slots (high half 0 = written), a relaxed arrival,
//       the last block loads every partial and merges them
//   m2  no arrival: the block with the last index waits on slots tagged with the launch's number
//   m3  a packed 64-bit (key, ~index) atomicMax, then an acq_rel arrival; the last block loads
//       the packed word (correct, but it drops the element's bits, which yamr must return)
//   m4  m3 with a relaxed arrival: not ordered, its cost only
//   m5  m1 with one packed slot a partial;  m6, m7  m5 merged by the first warp alone
//   m8  m2 with block 0 waiting;  m9  m1 with every block loading the slots during its arrival
//   m11 the arrival at the kernel's start; the elected block waits on the slots after its scan
//   m12 m1 where a block that may be last loads the slots beside its arrival: each thread reads
//       the counter before the block merge and, if at least parts - K blocks had arrived, loads
//       its share of the slots after the merge, beside thread 0's arrival (m12kK; K = parts: all;
//       K = -1: no read of the counter, no early loads). MODES12=1 runs m0, m1, m9 and m12 at
//       several K; DIAG=1 adds, per K, what 200 last blocks found in the slots they loaded early.
// Times: median of 400 event pairs, each call queued behind a held stream (as yamr-bench sweep
// --timing queued). ROTATE=1 rotates the input over 256 MiB (from HBM), else one input (in L2).
// Built with -DWITH_YAMR (and yamr's include folders, -lyamr), each line also times the library's
// own call, yamr_reduce_async argmax of the same inputs, the same way ("yamr").
// Note: this scan is not yamr's (ptxas interleaves its loads with its compares); it measures the
// tails. At 6cf59c1 yamr's own scan measured 0.3-0.6 us slower (docs/performance.md, "Copies
// loaded, not predicated").
//   nvcc -O3 -arch=sm_90 -std=c++17 -o tail-protocols tail-protocols.cu
//   ./tail-protocols; ROTATE=1 ./tail-protocols
#include <cstdio>
#include <cstdlib>
#include <climits>
#include <cmath>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#ifdef WITH_YAMR
#include "yamr.h"
#endif
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1);} } while (0)
#define TH 256
struct Acc { float v; int i; };
__device__ inline void better(Acc &a, const Acc &b) { if (b.v > a.v || (b.v == a.v && b.i < a.i)) a = b; }
__device__ inline void warp_merge(Acc &a) {
#pragma unroll
  for (int o = 16; o; o >>= 1) { Acc b; b.v = __shfl_down_sync(~0u, a.v, o); b.i = __shfl_down_sync(~0u, a.i, o); better(a, b); }
}
__device__ inline void block_merge(Acc &a) {
  __shared__ Acc w[TH / 32];
  warp_merge(a);
  if (threadIdx.x % 32 == 0) w[threadIdx.x / 32] = a;
  __syncthreads();
  if (threadIdx.x < 32) { a = threadIdx.x < TH / 32 ? w[threadIdx.x] : Acc{-INFINITY, INT_MAX}; warp_merge(a); }
  __syncthreads();
}
template <int U>
__device__ inline Acc scan(const float4 *vec, int nvec, int lane, int lanes) {
  Acc a{-INFINITY, INT_MAX};
  int v = lane;
  for (; v + (U - 1) * lanes < nvec; v += U * lanes) {
    float4 r[U];
#pragma unroll
    for (int u = 0; u < U; ++u) { const float4 *q = vec + v + u * lanes; asm volatile("ld.global.nc.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(r[u].x), "=f"(r[u].y), "=f"(r[u].z), "=f"(r[u].w) : "l"(q)); }
    float best = r[0].x; int at = 0;
#pragma unroll
    for (int u = 0; u < U; ++u) {
      float e[4] = {r[u].x, r[u].y, r[u].z, r[u].w};
#pragma unroll
      for (int k = 0; k < 4; ++k) if (e[k] > best) { best = e[k]; at = u * 4 + k; }
    }
    if (best > a.v || a.i == INT_MAX) { a.v = best; a.i = (v + at / 4 * lanes) * 4 + at % 4; }
  }
  for (; v < nvec; v += lanes) {
    float4 r = vec[v]; float e[4] = {r.x, r.y, r.z, r.w};
    for (int k = 0; k < 4; ++k) if (e[k] > a.v || a.i == INT_MAX) { a.v = e[k]; a.i = v * 4 + k; }
  }
  return a;
}
__device__ inline void st_relaxed(unsigned long long *p, unsigned long long v) { asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory"); }
__device__ inline unsigned long long ld_relaxed(const unsigned long long *p) { unsigned long long v; asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory"); return v; }
__device__ inline unsigned long long ld_acquire(const unsigned long long *p) { unsigned long long v; asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory"); return v; }
__device__ inline unsigned add_relaxed(unsigned *p) { unsigned o; asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], 1;" : "=r"(o) : "l"(p) : "memory"); return o; }
__device__ inline unsigned add_acq_rel(unsigned *p) { unsigned o; asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(o) : "l"(p) : "memory"); return o; }
__device__ inline unsigned okey(float v) { unsigned b = __float_as_uint(v); return b & 0x80000000u ? ~b : b | 0x80000000u; }
__device__ inline float unkey(unsigned k) { return __uint_as_float(k & 0x80000000u ? k & 0x7fffffffu : ~k); }

__device__ inline unsigned long long packk(const Acc &a) { return ((unsigned long long)okey(a.v) << 32) | (0xffffffffu - (unsigned)a.i); }
__device__ inline Acc unpackk(unsigned long long p) { return Acc{unkey((unsigned)(p >> 32)), (int)(0xffffffffu - (unsigned)p)}; }
__device__ inline unsigned long long warp_max64(unsigned long long p) {
#pragma unroll
  for (int o = 16; o; o >>= 1) { unsigned long long q = __shfl_xor_sync(~0u, p, o); p = q > p ? q : p; }
  return p;
}
__device__ inline unsigned long long warp_max64_redux(unsigned long long p) {
  const unsigned hi = __reduce_max_sync(~0u, (unsigned)(p >> 32));
  const unsigned lo = __reduce_max_sync(~0u, (unsigned)(p >> 32) == hi ? (unsigned)p : 0u);
  return ((unsigned long long)hi << 32) | lo;
}
struct Ws { unsigned long long *slots; unsigned *count; unsigned long long *packed; unsigned long long *res; unsigned long long *parts_out; unsigned *diag; };
__device__ inline unsigned long long pack_vi(const Acc &a) { return ((unsigned long long)__float_as_uint(a.v) << 32) | (unsigned)a.i; }
// A partial as two 64-bit slots (the value's bits, the index), each word's high half `tag`.
__device__ inline void publish(const Ws &ws, int parts, int part, const Acc &a, unsigned long long tag) {
  st_relaxed(ws.slots + part, tag << 32 | __float_as_uint(a.v)); st_relaxed(ws.slots + parts + part, tag << 32 | (unsigned)a.i);
}
// Block b's partial from slots already loaded as s0, s1: loaded again until both carry `tag`.
__device__ inline Acc settle(const Ws &ws, int parts, int b, unsigned long long s0, unsigned long long s1, unsigned long long tag) {
  while ((s0 >> 32) != tag) s0 = ld_relaxed(ws.slots + b);
  while ((s1 >> 32) != tag) s1 = ld_relaxed(ws.slots + parts + b);
  return Acc{__uint_as_float((unsigned)s0), (int)(unsigned)s1};
}
// Block b's partial, its slots already loaded as s0, s1, once written (high halves 0); its slots
// are left empty (all ones).
__device__ inline Acc take_loaded(const Ws &ws, int parts, int b, unsigned long long s0, unsigned long long s1) {
  const Acc t = settle(ws, parts, b, s0, s1, 0);
  st_relaxed(ws.slots + b, ~0ull); st_relaxed(ws.slots + parts + b, ~0ull);
  return t;
}
// The same, its slots loaded here.
__device__ inline Acc take(const Ws &ws, int parts, int b) {
  return take_loaded(ws, parts, b, ld_relaxed(ws.slots + b), ld_relaxed(ws.slots + parts + b));
}
// The last block: its threads' partials merged, the answer stored, the counter reset.
__device__ inline void answer(Acc a, int parts, const Ws &ws) {
  if (parts <= 32) { if (threadIdx.x < 32) warp_merge(a); } else block_merge(a);
  if (threadIdx.x == 0) { *ws.res = pack_vi(a); *ws.count = 0; }
}

// MODE: the protocols of the header.
template <int U, int MODE>
__global__ void __launch_bounds__(TH) k(const float4 *vec, int nvec, Ws ws, unsigned tag, int spec_k) {
  const int parts = gridDim.x, part = blockIdx.x;
  __shared__ bool elected;
  unsigned ticket = 0;
  if (MODE == 11 && threadIdx.x == 0) ticket = add_relaxed(ws.count);
  Acc a = scan<U>(vec, nvec, part * TH + threadIdx.x, parts * TH);
  if (MODE == 11 && threadIdx.x == 0) elected = ticket == (unsigned)parts - 1;
  unsigned peek = 0;
  if (MODE == 12 && spec_k >= 0) asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(peek) : "l"(ws.count) : "memory");
  block_merge(a);
  if (MODE == 0) { if (threadIdx.x == 0) ws.parts_out[part] = pack_vi(a); return; }
  if (parts == 1) { if (threadIdx.x == 0) *ws.res = pack_vi(a); return; }
  if (MODE == 9) {
    // m1 with speculative loads: every block loads the others' slots while its arrival is in flight
    __shared__ bool last;
    const int b0 = threadIdx.x;
    unsigned long long s0 = 0, s1 = 0;
    const bool mine = b0 < parts && b0 != part;
    if (mine) { s0 = ld_relaxed(ws.slots + b0); s1 = ld_relaxed(ws.slots + parts + b0); }
    if (threadIdx.x == 0) {
      publish(ws, parts, part, a, 0);
      last = add_relaxed(ws.count) == (unsigned)parts - 1;
    }
    __syncthreads();
    if (!last) return;
    if (threadIdx.x == 0) { st_relaxed(ws.slots + part, ~0ull); st_relaxed(ws.slots + parts + part, ~0ull); }
    else a = Acc{-INFINITY, INT_MAX};
    if (mine) {
      better(a, take_loaded(ws, parts, b0, s0, s1));
    }
    for (int b = threadIdx.x + TH; b < parts; b += TH)
      if (b != part) better(a, take(ws, parts, b));
    answer(a, parts, ws);
    return;
  }
  if (MODE == 12) {
    __shared__ bool last;
    const int b0 = threadIdx.x;
    unsigned long long s0 = ~0ull, s1 = ~0ull;
    if (threadIdx.x == 0) {
      publish(ws, parts, part, a, 0);
      last = add_relaxed(ws.count) == (unsigned)parts - 1;
    }
    const bool spec = spec_k >= 0 && peek + (unsigned)spec_k >= (unsigned)parts;
    if (spec && b0 < parts) { s0 = ld_relaxed(ws.slots + b0); s1 = ld_relaxed(ws.slots + parts + b0); }
    __syncthreads();
    if (!last) return;
    a = Acc{-INFINITY, INT_MAX};
    if (b0 < parts) {
      if (ws.diag) {
        if (spec) atomicAdd(ws.diag + 1, 1u);
        if (b0 == 0) atomicAdd(ws.diag, 1u);
      }
      if (!spec) { s0 = ld_relaxed(ws.slots + b0); s1 = ld_relaxed(ws.slots + parts + b0); }
      const bool polls = ws.diag && ((s0 >> 32) != 0 || (s1 >> 32) != 0);
      unsigned long long t0 = 0, t1;
      if (polls) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0) :: "memory");
      better(a, take_loaded(ws, parts, b0, s0, s1));
      if (polls) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1) :: "memory");
        atomicAdd(ws.diag + 2, 1u); atomicMax(ws.diag + 3, (unsigned)(t1 - t0)); atomicAdd(ws.diag + 4, (unsigned)(t1 - t0));
      }
    }
    for (int b = threadIdx.x + TH; b < parts; b += TH) better(a, take(ws, parts, b));
    answer(a, parts, ws);
    return;
  }
  if (MODE == 11) {
    if (threadIdx.x == 0) publish(ws, parts, part, a, 0);
    if (!elected) return; /* written before the scan's barriers */
    a = Acc{-INFINITY, INT_MAX};
    for (int b = threadIdx.x; b < parts; b += TH) better(a, take(ws, parts, b));
    answer(a, parts, ws);
    return;
  }
  if (MODE == 1) {
    __shared__ bool last;
    if (threadIdx.x == 0) {
      publish(ws, parts, part, a, 0);
      last = add_relaxed(ws.count) == (unsigned)parts - 1;
    }
    __syncthreads();
    if (!last) return;
    a = Acc{-INFINITY, INT_MAX};
    for (int b = threadIdx.x; b < parts; b += TH) better(a, take(ws, parts, b));
    answer(a, parts, ws);
  } else if (MODE == 2 || MODE == 8) {
    const int waiter = MODE == 8 ? 0 : parts - 1;
    if (part != waiter) {
      if (threadIdx.x == 0) publish(ws, parts, part, a, tag);
      return;
    }
    if (parts <= 32) {
      if (threadIdx.x < 32) {
        if (threadIdx.x != 0) a = Acc{-INFINITY, INT_MAX};
        const int b = threadIdx.x + (MODE == 8);
        if (b < parts - (MODE != 8))
          better(a, settle(ws, parts, b, ld_relaxed(ws.slots + b), ld_relaxed(ws.slots + parts + b), tag));
        warp_merge(a);
      }
    } else {
      if (threadIdx.x != 0) a = Acc{-INFINITY, INT_MAX};
      for (int b = threadIdx.x + (MODE == 8); b < parts - (MODE != 8); b += TH)
        better(a, settle(ws, parts, b, ld_relaxed(ws.slots + b), ld_relaxed(ws.slots + parts + b), tag));
      block_merge(a);
    }
    if (threadIdx.x == 0) *ws.res = pack_vi(a);
  } else if (MODE >= 5) {
    // packed u64 slot (0 = empty), merge as u64 max
    if (MODE == 5) {
      __shared__ bool last;
      if (threadIdx.x == 0) { st_relaxed(ws.slots + part, packk(a)); last = add_relaxed(ws.count) == (unsigned)parts - 1; }
      __syncthreads();
      if (!last) return;
      unsigned long long p = 0;
      for (int b = threadIdx.x; b < parts; b += TH) {
        unsigned long long s0 = ld_relaxed(ws.slots + b);
        while (!s0) s0 = ld_relaxed(ws.slots + b);
        st_relaxed(ws.slots + b, 0);
        p = s0 > p ? s0 : p;
      }
      __shared__ unsigned long long wm[TH / 32];
      p = warp_max64(p);
      if (parts > 32) {
        if (threadIdx.x % 32 == 0) wm[threadIdx.x / 32] = p;
        __syncthreads();
        if (threadIdx.x < 32) p = warp_max64(threadIdx.x < TH / 32 ? wm[threadIdx.x] : 0);
      }
      if (threadIdx.x == 0) { *ws.res = pack_vi(unpackk(p)); *ws.count = 0; }
    } else {
      if (threadIdx.x >= 32) return;
      unsigned last = 0;
      if (threadIdx.x == 0) { st_relaxed(ws.slots + part, packk(a)); last = add_relaxed(ws.count) == (unsigned)parts - 1; }
      if (!__shfl_sync(~0u, last, 0)) return;
      constexpr int K = 8;
      unsigned long long s[K];
#pragma unroll
      for (int k = 0; k < K; ++k) { const int b = threadIdx.x + 32 * k; s[k] = b < parts ? ld_relaxed(ws.slots + b) : 1; }
      unsigned long long p = 0;
#pragma unroll
      for (int k = 0; k < K; ++k) { const int b = threadIdx.x + 32 * k; if (b < parts) { while (!s[k]) s[k] = ld_relaxed(ws.slots + b); st_relaxed(ws.slots + b, 0); p = s[k] > p ? s[k] : p; } }
      for (int b = threadIdx.x + 32 * K; b < parts; b += 32) { unsigned long long q = ld_relaxed(ws.slots + b); while (!q) q = ld_relaxed(ws.slots + b); st_relaxed(ws.slots + b, 0); p = q > p ? q : p; }
      p = MODE == 6 ? warp_max64_redux(p) : warp_max64(p);
      if (threadIdx.x == 0) { *ws.res = pack_vi(unpackk(p)); *ws.count = 0; }
    }
  } else {
    if (threadIdx.x == 0) {
      atomicMax(ws.packed, ((unsigned long long)okey(a.v) << 32) | (0xffffffffu - (unsigned)a.i));
      const unsigned old = MODE == 3 ? add_acq_rel(ws.count) : add_relaxed(ws.count);
      if (old == (unsigned)parts - 1) {
        const unsigned long long p = ld_acquire(ws.packed);
        Acc r{unkey((unsigned)(p >> 32)), (int)(0xffffffffu - (unsigned)p)};
        *ws.res = pack_vi(r); *ws.packed = 0; *ws.count = 0;
      }
    }
  }
}
__global__ void readk(const uint4 *p, size_t vectors, unsigned *sink) {
  const size_t base = (size_t)blockIdx.x * 1024 + threadIdx.x; uint4 r[4];
  for (int u = 0; u < 4; ++u) { size_t i = base + u * 256; r[u] = i < vectors ? p[i] : make_uint4(0,0,0,0); }
  unsigned x = 0; for (int u = 0; u < 4; ++u) x ^= r[u].x ^ r[u].y ^ r[u].z ^ r[u].w;
  if (x == 0x9e3779b9u) *sink = x;
}
__global__ void emptyk() {}

static cudaEvent_t ev[2][400];
static volatile int *hflag; static int *dflag;
__global__ void holdk(volatile int *go) { while (!*go) {} }
template <typename F> static float med_us(F f, int reps = 400) {
  std::vector<float> t;
  for (int r = 0; r < 50; ++r) f();
  for (int r = 0; r < reps; ++r) {
    if (r % 16 == 0) { *hflag = 0; holdk<<<1, 1>>>(dflag); }
    CK(cudaEventRecord(ev[0][r])); f(); CK(cudaEventRecord(ev[1][r]));
    if (r % 16 == 15) { __atomic_store_n((int *)hflag, 1, __ATOMIC_SEQ_CST); CK(cudaEventSynchronize(ev[1][r])); }
  }
  CK(cudaDeviceSynchronize());
  for (int r = 0; r < reps; ++r) { float ms; CK(cudaEventElapsedTime(&ms, ev[0][r], ev[1][r])); t.push_back(ms * 1e3f); }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
int main() {
  for (auto &a : ev) for (auto &e : a) CK(cudaEventCreate(&e));
  CK(cudaHostAlloc((void **)&hflag, 4, cudaHostAllocMapped)); CK(cudaHostGetDevicePointer((void **)&dflag, (void *)hflag, 0));
  const int maxn = 1 << 24;
  std::vector<float> h(maxn);
  srand(7);
  for (auto &x : h) x = (float)(rand() % 2000000) - 1000000.f;
  const size_t pool_bytes = (size_t)256 << 20; float *pool; CK(cudaMalloc(&pool, pool_bytes));
  float *d = pool; CK(cudaMemcpy(d, h.data(), (size_t)maxn * 4, cudaMemcpyHostToDevice));
  Ws ws; CK(cudaMalloc(&ws.slots, 4096 * 8)); CK(cudaMemset(ws.slots, 0xff, 4096 * 8));
  CK(cudaMalloc(&ws.count, 4)); CK(cudaMemset(ws.count, 0, 4)); CK(cudaMalloc(&ws.packed, 8)); CK(cudaMemset(ws.packed, 0, 8));
  CK(cudaMalloc(&ws.res, 8)); ws.diag = nullptr; CK(cudaMalloc(&ws.diag, 32)); CK(cudaMalloc(&ws.parts_out, 4096 * 8)); unsigned *sink; CK(cudaMalloc(&sink, 4));
  unsigned long long *tagslots; CK(cudaMalloc(&tagslots, 4096 * 8)); CK(cudaMemset(tagslots, 0, 4096 * 8));
  unsigned long long *zslots; CK(cudaMalloc(&zslots, 4096 * 8)); CK(cudaMemset(zslots, 0, 4096 * 8));
  unsigned tag = 0; int bad = 0;
#ifdef WITH_YAMR
  yamr_context *ctx;
  if (yamr_create(&ctx, 0) != YAMR_SUCCESS) { printf("yamr_create failed\n"); return 1; }
  float *dval; int64_t *didx; CK(cudaMalloc(&dval, 4)); CK(cudaMalloc(&didx, 8));
#endif
  printf("empty %.2f us\n", med_us([&] { emptyk<<<1, 32>>>(); }));
  struct Case { int lg, grid, u; };
  const int rotate = getenv("ROTATE") != NULL;
  const Case cases[] = {{14, 2, 8}, {16, 16, 4}, {18, 32, 8}, {20, 128, 8}, {20, 256, 4}, {22, 256, 8}, {22, 512, 8}};
  for (int round = 0; round < 1; ++round)
  for (const Case &c : cases) {
    const int n = 1 << c.lg, nvec = n / 4;
    int best = 0; for (int i = 1; i < n; ++i) if (h[i] > h[best]) best = i;
    int rot = 1; const size_t stride = (size_t)n * 4;
    if (rotate) { rot = (int)(pool_bytes / stride); if (rot > 64) rot = 64; }
    for (int r = 0; r < rot; ++r) CK(cudaMemcpy((char *)pool + r * stride, h.data(), stride, cudaMemcpyHostToDevice));
    int ri = 0; const float4 *v = (const float4 *)d;
    printf("2^%d grid %4d x %d vec: read %.2f", c.lg, c.grid, c.u, med_us([&] { readk<<<(nvec + 1023) / 1024, 256>>>((const uint4 *)((char *)pool + (size_t)(ri++ % rot) * stride), nvec, sink); }));
    auto run = [&](int mode, int spec_k = 0) {
      Ws w = ws; w.diag = nullptr; if (mode == 2 || mode == 8) w.slots = tagslots; if (mode >= 5 && mode <= 7) w.slots = zslots;
      auto launch = [&] {
        ++tag; v = (const float4 *)((char *)pool + (size_t)(ri++ % rot) * stride);
#define L(U) switch (mode) { case 0: k<U,0><<<c.grid, TH>>>(v, nvec, w, tag, spec_k); break; case 1: k<U,1><<<c.grid, TH>>>(v, nvec, w, tag, spec_k); break; \
        case 2: k<U,2><<<c.grid, TH>>>(v, nvec, w, tag, spec_k); break; case 3: k<U,3><<<c.grid, TH>>>(v, nvec, w, tag, spec_k); break; case 4: k<U,4><<<c.grid, TH>>>(v, nvec, w, tag, spec_k); break; \
        case 5: k<U,5><<<c.grid, TH>>>(v, nvec, w, tag, spec_k); break; case 6: k<U,6><<<c.grid, TH>>>(v, nvec, w, tag, spec_k); break; case 7: k<U,7><<<c.grid, TH>>>(v, nvec, w, tag, spec_k); break; case 9: k<U,9><<<c.grid, TH>>>(v, nvec, w, tag, spec_k); break; case 11: k<U,11><<<c.grid, TH>>>(v, nvec, w, tag, spec_k); break; case 12: k<U,12><<<c.grid, TH>>>(v, nvec, w, tag, spec_k); break; default: k<U,8><<<c.grid, TH>>>(v, nvec, w, tag, spec_k); }
        if (c.u == 2) { L(2) } else if (c.u == 4) { L(4) } else if (c.u == 8) { L(8) } else if (c.u == 16) { L(16) } else { L(32) }
      };
      const float us = med_us(launch);
      if (mode) {
        CK(cudaMemset(ws.res, 0xff, 8)); launch(); unsigned long long r; CK(cudaMemcpy(&r, ws.res, 8, cudaMemcpyDeviceToHost));
        if ((int)(unsigned)r != best) { ++bad; printf(" [mode %d WRONG %d != %d]", mode, (int)(unsigned)r, best); }
      }
      if (mode == 12) printf("  m12k%d %.2f", spec_k, us); else printf("  m%d %.2f", mode, us);
      if (mode == 12 && getenv("DIAG")) {
        CK(cudaMemset(ws.diag, 0, 20)); w.diag = ws.diag;
        for (int r = 0; r < 200; ++r) launch();
        unsigned dg[5]; CK(cudaMemcpy(dg, ws.diag, 20, cudaMemcpyDeviceToHost)); w.diag = nullptr;
        printf(" [%u last blocks: %u slots loaded beside the arrival; %u slots not yet written when first loaded, waited on for %.0f ns on average, %u at most]",
               dg[0], dg[1], dg[2], dg[2] ? (double)dg[4] / dg[2] : 0.0, dg[3]);
      }
    };
#ifdef WITH_YAMR
    auto time_yamr = [&] {
      auto call = [&] {
        v = (const float4 *)((char *)pool + (size_t)(ri++ % rot) * stride);
        if (yamr_reduce_async(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, v, n, dval, didx) != YAMR_SUCCESS) { printf("yamr: %s\n", yamr_last_error(ctx)); exit(1); }
      };
      const float us = med_us(call);
      int64_t got = -1; CK(cudaMemcpy(&got, didx, 8, cudaMemcpyDeviceToHost));
      if (got != best) { ++bad; printf(" [yamr WRONG %lld != %d]", (long long)got, best); }
      printf("  yamr %.2f", us);
    };
    time_yamr();
#endif
    if (getenv("MODES12")) {
      for (int m : {0, 1, 9}) run(m);
      for (int kk : {-1, 0, 4, 16, c.grid / 8, c.grid / 4}) run(12, kk);
      run(12, c.grid);
      run(1);
    } else {
      for (int m : {0, 1, 3, 4, 5, 2, 11, 9}) run(m);
    }
#ifdef WITH_YAMR
    time_yamr();
#endif
    printf("\n"); fflush(stdout);
  }
  printf("%s\n", bad ? "SOME WRONG" : "all right");
#ifdef WITH_YAMR
  yamr_destroy(ctx);
#endif
  return bad != 0;
}
