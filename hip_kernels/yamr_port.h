/* SPDX-License-Identifier: MIT */
/*
 * The portability layer: the only file that tests vendor and architecture macros.
 *
 * Provides, for every .hip source:
 *  - the HIP runtime API: AMD's HIP, HIP's own NVIDIA backend when its headers compile with the
 *    CUDA toolkit at hand (CMake checks and defines __HIP_PLATFORM_NVIDIA__), or else the
 *    project's mapping of the HIP subset it uses onto CUDA (hip_cuda_compat.h);
 *  - YAMR_PLATFORM_NVIDIA / YAMR_PLATFORM_AMD for host code that must tell vendors apart;
 *  - yamr__warp_width_matches<W>(): whether W is the warp width of the device pass being compiled;
 *    yamr__platform_has_warp_width<W>(): whether a GPU of this platform can have warps of W;
 *    yamr__with_warp_width(): the host's run-time width to a template argument;
 *  - YAMR_HAS_ITS: 1 when lanes of a warp are scheduled independently (NVIDIA sm_70 and later);
 *  - yamr__lane_mask (32-bit on NVIDIA, 64-bit on AMD), yamr__shfl_down<W>(), yamr__shfl_xor<W>(),
 *    yamr__shfl<W>(), yamr__warp_extreme<W>(), yamr__first_lane<W>(), yamr__warp_sync(),
 *    yamr__any<W>();
 *  - yamr__count_arrival(), yamr__store_word(), yamr__load_word(): device-scope relaxed
 *    atomics (a counter increment; 64-bit stores and loads); yamr__store_host_word(), a whole
 *    64-bit store to mapped host memory, unordered; YAMR__HOST_MAPPED_FLAGS;
 *  - yamr__exp2_fast(); YAMR_MIN_BLOCKS(): a __launch_bounds__ occupancy that the architecture
 *    can hold.
 */
#ifndef YAMR_PORT_H
#define YAMR_PORT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <type_traits>

#include "yamr.h"

#if defined(__HIP_PLATFORM_AMD__) || (defined(__HIP__) && !defined(__HIP_PLATFORM_NVIDIA__))
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
#define YAMR_PLATFORM_AMD 1
#elif defined(__HIP_PLATFORM_NVIDIA__)
#include <hip/hip_runtime.h>
#include <cuda_fp16.h>
#define YAMR_PLATFORM_NVIDIA 1
#elif defined(__CUDACC__)
#include "hip_cuda_compat.h"
#include <cuda_fp16.h>
#define YAMR_PLATFORM_NVIDIA 1
#else
#error "yamr_port.h: compile with hipcc (AMD) or nvcc (NVIDIA)"
#endif

#if defined(YAMR_PLATFORM_NVIDIA)
typedef uint32_t yamr__lane_mask;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
#define YAMR_HAS_ITS 1
#endif
/* A device pass for sm_80 or later (tuning that was measured there only). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define YAMR_DEVICE_SM80_OR_LATER 1
#endif
#else
typedef uint64_t yamr__lane_mask;
/* The wave width of an AMD device pass. GCN and CDNA (gfx6-gfx9: gfx90a, gfx942, ...) run wave64
 * only, so the architecture tells it to the preprocessor, and the instances for the other width
 * fold away in the front end with every compiler. RDNA targets run wave32 or, with
 * -mwavefrontsize64, wave64, so the architecture alone does not tell: yamr's build says which
 * (YAMR_RDNA_WAVE_WIDTH, 64 where its hipcc flags hold -mwavefrontsize64, else 32;
 * cmake/YamrPlatform.cmake), and the other width's instances fold away in the front end too. A
 * device pass compiled outside that build takes the compiler's word: a current clang's
 * __builtin_amdgcn_wavefrontsize(), a constant the backend folds (late: the other width's bodies
 * are still optimized and compiled, twice the code and compile time), or on older ones (ROCm < 6,
 * no builtin) __AMDGCN_WAVEFRONT_SIZE, which ROCm 6.3 deprecated and ROCm 7.2 removed. Neither:
 * stop here rather than compile kernels that do nothing. warpSize is never used (not constexpr
 * from ROCm 7.0 on). */
#if defined(__HIP_DEVICE_COMPILE__)
#if defined(__GFX6__) || defined(__GFX7__) || defined(__GFX8__) || defined(__GFX9__)
#define YAMR__AMD_WAVE_WIDTH() 64
#elif defined(YAMR_RDNA_WAVE_WIDTH)
#if YAMR_RDNA_WAVE_WIDTH != 32 && YAMR_RDNA_WAVE_WIDTH != 64
#error "yamr_port.h: YAMR_RDNA_WAVE_WIDTH must be 32 or 64"
#elif defined(__AMDGCN_WAVEFRONT_SIZE) && __AMDGCN_WAVEFRONT_SIZE != YAMR_RDNA_WAVE_WIDTH
#error "yamr_port.h: YAMR_RDNA_WAVE_WIDTH is not the compiler's wave width (__AMDGCN_WAVEFRONT_SIZE): give -mwavefrontsize64 through YAMR_HIP_FLAGS"
#endif
#define YAMR__AMD_WAVE_WIDTH() (YAMR_RDNA_WAVE_WIDTH)
#define YAMR__AMD_WAVE_WIDTH_GIVEN 1
#elif __has_builtin(__builtin_amdgcn_wavefrontsize)
#define YAMR__AMD_WAVE_WIDTH() ((int)__builtin_amdgcn_wavefrontsize())
#elif defined(__AMDGCN_WAVEFRONT_SIZE)
#define YAMR__AMD_WAVE_WIDTH() (__AMDGCN_WAVEFRONT_SIZE)
#else
#error "yamr_port.h: cannot tell this AMD target's wave width: the compiler has neither __builtin_amdgcn_wavefrontsize() nor __AMDGCN_WAVEFRONT_SIZE"
#endif
#endif
#endif
#ifndef YAMR_HAS_ITS
#define YAMR_HAS_ITS 0
#endif

/* The warp widths a GPU of this platform can have: NVIDIA 32; AMD 64 on CDNA/GCN, 32 or 64 on
 * RDNA. Kernels are instantiated for these only. */
template <int WarpSize>
constexpr bool yamr__platform_has_warp_width()
{
#if defined(YAMR_PLATFORM_NVIDIA)
    return WarpSize == 32;
#else
    return WarpSize == 32 || WarpSize == 64;
#endif
}

/* Host side: calls launch(std::integral_constant<int, W>()) for the device's warp width W, the
 * one place that turns the run-time width into a template argument. False (nothing called) for
 * a width this platform cannot have. */
template <typename Launch>
inline bool yamr__with_warp_width(int warp_size, Launch &&launch)
{
    if constexpr (yamr__platform_has_warp_width<64>()) {
        if (warp_size == 64) {
            launch(std::integral_constant<int, 64>());
            return true;
        }
    }
    if (warp_size != 32) return false;
    launch(std::integral_constant<int, 32>());
    return true;
}

/* Whether a kernel instance for warp width W is meaningful in this device pass. On AMD, instances
 * for both widths are compiled for every target (one source serves wave32 and wave64 targets);
 * the comparison is a constant the backend folds, so the instance for the other width compiles
 * to an empty body. The host never launches it (it picks W from the device's properties). */
template <int WarpSize>
__device__ inline bool yamr__warp_width_matches()
{
#if defined(YAMR_PLATFORM_NVIDIA)
    return WarpSize == 32;
#elif defined(__HIP_DEVICE_COMPILE__)
#if defined(YAMR__AMD_WAVE_WIDTH_GIVEN) && __has_builtin(__builtin_amdgcn_wavefrontsize)
    /* The build's width, checked against the compiler's where it has the builtin: an instance
     * the build dropped but the device runs (-mwavefrontsize64 given some other way than
     * YAMR_HIP_FLAGS) traps rather than return nothing; folded away where they agree. */
    if (WarpSize != YAMR__AMD_WAVE_WIDTH()) {
        if (__builtin_amdgcn_wavefrontsize() == WarpSize) __builtin_trap();
        return false;
    }
    return true;
#else
    return WarpSize == YAMR__AMD_WAVE_WIDTH();
#endif
#else
    return false; /* host pass: device code is never run there */
#endif
}

/*
 * Device-scope relaxed atomics, which order nothing else: the last-block-done protocol
 * (split_reduce.hpp) needs no fence, since each partial carries its own validity in every word.
 * yamr__count_arrival() adds 1 to *counter and returns the old value; yamr__store_word() and
 * yamr__load_word() store and load one 64-bit word whole. NVIDIA sm_70 and later: the PTX
 * .relaxed.gpu forms; AMD: the HIP atomics at agent scope; otherwise atomicAdd and volatile
 * accesses (which bypass the non-coherent caches there).
 */
#if defined(YAMR_PLATFORM_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
#define YAMR__RELAXED_PTX 1
#elif defined(YAMR_PLATFORM_AMD) && defined(__HIP_DEVICE_COMPILE__) && \
    __has_builtin(__hip_atomic_fetch_add) && __has_builtin(__hip_atomic_load) && \
    __has_builtin(__hip_atomic_store)
#define YAMR__RELAXED_HIP 1
#endif

__device__ inline unsigned yamr__count_arrival(unsigned *counter)
{
#if defined(YAMR__RELAXED_PTX)
    unsigned old;
    asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], 1;"
                 : "=r"(old)
                 : "l"(counter)
                 : "memory");
    return old;
#elif defined(YAMR__RELAXED_HIP)
    return __hip_atomic_fetch_add(counter, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
#else
    return atomicAdd(counter, 1u);
#endif
}

__device__ inline void yamr__store_word(unsigned long long *p, unsigned long long v)
{
#if defined(YAMR__RELAXED_PTX)
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" : : "l"(p), "l"(v) : "memory");
#elif defined(YAMR__RELAXED_HIP)
    __hip_atomic_store(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
#else
    *(volatile unsigned long long *)p = v;
#endif
}

__device__ inline unsigned long long yamr__load_word(const unsigned long long *p)
{
#if defined(YAMR__RELAXED_PTX)
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
#elif defined(YAMR__RELAXED_HIP)
    return __hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
#else
    return *(const volatile unsigned long long *)p;
#endif
}

/* Stores v at *p, host memory mapped into the device, as one 64-bit word (a relaxed store at
 * system scope: the host loads it whole, never half of it), ordered after nothing. How a
 * synchronous call hands the host its answer (yamr__store_answer, batch_layout.hpp). */
__device__ inline void yamr__store_host_word(unsigned long long *p, unsigned long long v)
{
#if defined(YAMR__RELAXED_PTX)
    asm volatile("st.relaxed.sys.global.u64 [%0], %1;" : : "l"(p), "l"(v) : "memory");
#elif defined(YAMR__RELAXED_HIP)
    __hip_atomic_store(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
#else
    *(volatile unsigned long long *)p = v;
#endif
}

/* Flags for host memory that kernels write while the host reads it (hipHostMalloc): mapped, and
 * on AMD fine-grained (coherent), so that the host sees a store before the kernel ends. */
#if defined(YAMR_PLATFORM_AMD)
#define YAMR__HOST_MAPPED_FLAGS (hipHostMallocMapped | hipHostMallocCoherent)
#else
#define YAMR__HOST_MAPPED_FLAGS hipHostMallocMapped
#endif

/* Lanes [0, active) of a warp of width W. */
template <int WarpSize>
__device__ inline yamr__lane_mask yamr__lane_mask_first(int active)
{
    return active >= WarpSize ? ~(yamr__lane_mask)0 : (((yamr__lane_mask)1 << active) - 1);
}

/* The vendor's shuffles over a warp of width WarpSize, every lane taking part:
 * yamr__shfl_down(v, d) gives lane + d's v, yamr__shfl_xor(v, d) lane ^ d's, yamr__shfl(v, d)
 * lane d's. */
#if defined(YAMR_PLATFORM_NVIDIA)
#define YAMR_SHUFFLE(name, nvidia, amd)                                                        \
    template <int WarpSize, typename T>                                                        \
    __device__ inline T name(T v, int d)                                                       \
    {                                                                                          \
        return nvidia(0xffffffffu, v, d, WarpSize);                                            \
    }
#else
#define YAMR_SHUFFLE(name, nvidia, amd)                                                        \
    template <int WarpSize, typename T>                                                        \
    __device__ inline T name(T v, int d)                                                       \
    {                                                                                          \
        return amd(v, d, WarpSize);                                                            \
    }
#endif
YAMR_SHUFFLE(yamr__shfl_down, __shfl_down_sync, __shfl_down)
YAMR_SHUFFLE(yamr__shfl_xor, __shfl_xor_sync, __shfl_xor)
YAMR_SHUFFLE(yamr__shfl, __shfl_sync, __shfl)
#undef YAMR_SHUFFLE

/* The largest (Max) or smallest v over the whole warp, in every lane: one instruction on NVIDIA
 * sm_80 and later (redux.sync), a butterfly of shuffles elsewhere. */
template <int WarpSize, bool Max>
__device__ inline uint32_t yamr__warp_extreme(uint32_t v)
{
#if defined(YAMR_PLATFORM_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return Max ? __reduce_max_sync(0xffffffffu, v) : __reduce_min_sync(0xffffffffu, v);
#else
#pragma unroll
    for (int d = WarpSize / 2; d > 0; d /= 2) {
        const uint32_t o = yamr__shfl_xor<WarpSize>(v, d);
        v = (Max ? o > v : o < v) ? o : v;
    }
    return v;
#endif
}

/* The lanes of the warp where pred holds, every lane taking part. */
template <int WarpSize>
__device__ inline yamr__lane_mask yamr__ballot(bool pred)
{
#if defined(YAMR_PLATFORM_NVIDIA)
    return __ballot_sync(0xffffffffu, pred);
#else
    return (yamr__lane_mask)__ballot(pred);
#endif
}

/* The lowest lane in a nonzero mask. */
__device__ inline int yamr__lowest_lane(yamr__lane_mask m)
{
#if defined(YAMR_PLATFORM_NVIDIA)
    return __ffs(m) - 1;
#else
    return __ffsll((unsigned long long)m) - 1;
#endif
}

/* The lowest lane of the warp where pred holds (pred must hold somewhere). */
template <int WarpSize>
__device__ inline int yamr__first_lane(bool pred)
{
    return yamr__lowest_lane(yamr__ballot<WarpSize>(pred));
}

/* Any lane of `mask` with pred true; every lane of `mask` must call it. */
template <int WarpSize>
__device__ inline bool yamr__any(yamr__lane_mask mask, bool pred)
{
#if defined(YAMR_PLATFORM_NVIDIA)
    return __any_sync(mask, pred) != 0;
#else
    (void)mask; /* a wavefront votes as a whole; inactive lanes contribute false */
    return __any(pred) != 0;
#endif
}

/* IEEE binary16 bits to float, exactly (one conversion instruction on both vendors). */
__device__ inline float yamr__half_to_float(uint16_t bits) { return __half2float(__ushort_as_half(bits)); }

/* float to IEEE binary16 bits, rounding to nearest: exact for every value a half holds. */
__device__ inline uint16_t yamr__float_to_half(float x) { return __half_as_ushort(__float2half_rn(x)); }

/* 2^x by the hardware's approximation, results below 2^-126 flushed to zero (NVIDIA:
 * ex2.approx.ftz, 2 ulp, one instruction; __expf adds denormal fix-ups around it unless the
 * whole file is compiled with -ftz=true). */
__device__ inline float yamr__exp2_fast(float x)
{
#if defined(YAMR_PLATFORM_NVIDIA)
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
#else
    return exp2f(x);
#endif
}

/* Orders shared-memory accesses among the lanes of `mask` of one warp. */
__device__ inline void yamr__warp_sync(yamr__lane_mask mask)
{
#if defined(YAMR_PLATFORM_NVIDIA)
    __syncwarp(mask);
#else
    (void)mask;
    __builtin_amdgcn_wave_barrier();
#endif
}

/* The second argument of __launch_bounds__ for blocks of `threads`: `want` blocks per
 * multiprocessor, or as many as the architecture being compiled holds (sm_75: 1024 threads;
 * sm_86, 87, 89, 120, 121: 1536), where ptxas would otherwise drop the bound with a warning.
 * HIP on AMD reads the argument as waves per SIMD, a milder bound. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define YAMR_SM_MAX_THREADS 1024
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 ||             \
                                 __CUDA_ARCH__ == 890 || __CUDA_ARCH__ == 1200 ||            \
                                 __CUDA_ARCH__ == 1210)
#define YAMR_SM_MAX_THREADS 1536
#else
#define YAMR_SM_MAX_THREADS 2048
#endif
#define YAMR_MIN_BLOCKS(threads, want)                                                         \
    ((want) * (threads) <= YAMR_SM_MAX_THREADS ? (want) : YAMR_SM_MAX_THREADS / (threads))

/* ---- Host side: what the device properties mean on each vendor. ---- */

#if defined(YAMR_PLATFORM_NVIDIA)
#define YAMR_BUILD_VENDOR YAMR_VENDOR_NVIDIA
/* "sm_90"; Volta (7.0) and later schedule the lanes of a warp independently. */
static inline void yamr__arch_name(const hipDeviceProp_t *p, char *buf, size_t len)
{
    snprintf(buf, len, "sm_%d%d", p->major, p->minor);
}
static inline int yamr__arch_has_its(const hipDeviceProp_t *p) { return p->major >= 7; }
#else
#define YAMR_BUILD_VENDOR YAMR_VENDOR_AMD
/* "gfx90a" from "gfx90a:sramecc+:xnack-"; wavefronts run in lockstep. */
static inline void yamr__arch_name(const hipDeviceProp_t *p, char *buf, size_t len)
{
    snprintf(buf, len, "%.*s", (int)strcspn(p->gcnArchName, ":"), p->gcnArchName);
}
static inline int yamr__arch_has_its(const hipDeviceProp_t *p)
{
    (void)p;
    return 0;
}
#endif

#endif /* YAMR_PORT_H */
