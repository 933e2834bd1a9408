/* SPDX-License-Identifier: MIT */
/* Per-dtype device traits: the storage type read from memory and its order-preserving key. */
#ifndef YAMR_DTYPE_TRAITS_HPP
#define YAMR_DTYPE_TRAITS_HPP

#include <limits>

#include "yamr_port.h"

/* YAMR_KEY_BOTTOM; the host's keys, which the device keys match (and top-k's 2-byte keys use) */
#define YAMR_KEY_FN static inline __host__ __device__
#include "yamr_keys.h"

/* The two run-time choices of a key (yamr_keys.h), folded into masks once per kernel. */
template <typename Key>
struct yamr__key_mode {
    Key flip;    /* all ones for MIN: its key is the complement of the MAX key */
    Key nan_key; /* top under YAMR_NAN_PROPAGATE (NaN wins), bottom under YAMR_NAN_IGNORE */
};

template <typename Key>
__device__ inline yamr__key_mode<Key> yamr__key_mode_of(int is_min, int nan_ignore)
{
    yamr__key_mode<Key> m = {is_min ? ~(Key)0 : (Key)0, nan_ignore ? (Key)0 : ~(Key)0};
    return m;
}

/*
 * Device keys, in as few instructions as the hot loop allows; they order elements exactly as the
 * keys of yamr_keys.h do (the tests compare every variant with the host reference). Floats: adding
 * +0.0 turns -0.0 into +0.0 (IEEE round-to-nearest; no other value changes, and compilers keep
 * the add without fast-math), then the sign flip makes the bits ordered. Half types are widened to
 * float exactly first, so their device keys are float keys.
 */
__device__ inline uint32_t yamr__device_key_f32(float x, const yamr__key_mode<uint32_t> &m)
{
    const uint32_t c = __float_as_uint(x + 0.0f);
    const uint32_t ord = c ^ ((uint32_t)((int32_t)c >> 31) | 0x80000000u);
    return x != x ? m.nan_key : ord ^ m.flip;
}

__device__ inline unsigned long long yamr__device_key_f64(double x,
                                                        const yamr__key_mode<unsigned long long> &m)
{
    const unsigned long long c = (unsigned long long)__double_as_longlong(x + 0.0);
    const unsigned long long ord = c ^ ((unsigned long long)((long long)c >> 63) | 0x8000000000000000ull);
    return x != x ? m.nan_key : ord ^ m.flip;
}

template <yamr_dtype T>
struct yamr__dtype_traits;

/*
 * storage: the bits in memory; value: what they compare as in the dtype's own order (half types
 * widened to float, exactly), with to_value and its exact inverse from_value; key: the
 * order-preserving key (yamr_keys.h), which also places NaNs and the zeros' signs.
 */
#define YAMR_DTYPE_TRAITS(dtype, Storage, Value, value_expr, from_value_expr, Key, key_expr)     \
    template <>                                                                                \
    struct yamr__dtype_traits<dtype> {                                                          \
        typedef Storage storage;                                                               \
        typedef Value value;                                                                   \
        typedef Key key;                                                                       \
        __device__ static inline Value to_value(Storage b) { return value_expr; }              \
        __device__ static inline Storage from_value(Value v) { return from_value_expr; }       \
        __device__ static inline Key to_key(Storage b, const yamr__key_mode<Key> &m)            \
        {                                                                                      \
            return key_expr;                                                                   \
        }                                                                                      \
    };

YAMR_DTYPE_TRAITS(YAMR_DTYPE_F32, uint32_t, float, __uint_as_float(b), __float_as_uint(v),
                  uint32_t, yamr__device_key_f32(to_value(b), m))
YAMR_DTYPE_TRAITS(YAMR_DTYPE_F64, uint64_t, double, __longlong_as_double((long long)b),
                  (uint64_t)__double_as_longlong(v), unsigned long long,
                  yamr__device_key_f64(to_value(b), m))
YAMR_DTYPE_TRAITS(YAMR_DTYPE_F16, uint16_t, float, yamr__half_to_float(b), yamr__float_to_half(v),
                  uint32_t, yamr__device_key_f32(to_value(b), m))
YAMR_DTYPE_TRAITS(YAMR_DTYPE_BF16, uint16_t, float, __uint_as_float((uint32_t)b << 16),
                  (uint16_t)(__float_as_uint(v) >> 16), uint32_t,
                  yamr__device_key_f32(to_value(b), m))
YAMR_DTYPE_TRAITS(YAMR_DTYPE_I32, uint32_t, int32_t, (int32_t)b, (uint32_t)v, uint32_t,
                  (b ^ 0x80000000u) ^ m.flip)
YAMR_DTYPE_TRAITS(YAMR_DTYPE_U32, uint32_t, uint32_t, b, v, uint32_t, b ^ m.flip)
YAMR_DTYPE_TRAITS(YAMR_DTYPE_I64, uint64_t, long long, (long long)b, (uint64_t)v,
                  unsigned long long, ((unsigned long long)b ^ 0x8000000000000000ull) ^ m.flip)

#undef YAMR_DTYPE_TRAITS

/*
 * The first best of e[0, N) by value, in the dtype's own order (the smallest under Min), into
 * `best`; returns where it is. A later element replaces only when strictly better, so the first
 * of equals stays; -0.0 and +0.0 compare equal, as their keys do. NaN compares neither better
 * nor worse, so `nan` says whether e holds one (or both infinities: a sum of e tells, in one add
 * per element), and then the caller must go the key way, which places NaNs by the policy.
 * Tree, for float types of up to 4 bytes: pairs merge, then pairs of pairs (each right side,
 * the later indices, replacing the left only when strictly better), a chain of log2(N) steps
 * instead of N - 1 but more registers; the others always go in index order
 * (docs/performance.md, "Tuning constants").
 */
template <yamr_dtype Dtype, bool Min, bool Tree, int N>
__device__ inline int yamr__best_of(const typename yamr__dtype_traits<Dtype>::storage (&e)[N],
                                   typename yamr__dtype_traits<Dtype>::value &best, bool &nan)
{
    typedef yamr__dtype_traits<Dtype> traits;
    typedef typename traits::value value;
    constexpr bool has_nan = std::numeric_limits<value>::has_quiet_NaN;
    if constexpr (!Tree || !has_nan || sizeof(e[0]) > 4) {
        best = traits::to_value(e[0]);
        value probe = best;
        int at = 0;
#pragma unroll
        for (int j = 1; j < N; ++j) {
            const value x = traits::to_value(e[j]);
            if (has_nan) probe += x;
            const bool better = Min ? x < best : x > best;
            at = better ? j : at;
            best = better ? x : best;
        }
        nan = probe != probe;
        return at;
    } else {
        value v[N], sum[N];
        int at[N];
#pragma unroll
        for (int j = 0; j < N; ++j) {
            v[j] = sum[j] = traits::to_value(e[j]);
            at[j] = j;
        }
#pragma unroll
        for (int w = 1; w < N; w *= 2) {
#pragma unroll
            for (int j = 0; j + w < N; j += 2 * w) {
                const bool better = Min ? v[j + w] < v[j] : v[j + w] > v[j];
                at[j] = better ? at[j + w] : at[j];
                v[j] = better ? v[j + w] : v[j];
                sum[j] += sum[j + w];
            }
        }
        best = v[0];
        nan = sum[0] != sum[0];
        return at[0];
    }
}

template <yamr_dtype Dtype>
__device__ constexpr bool yamr__dtype_is_float()
{
    return Dtype == YAMR_DTYPE_F32 || Dtype == YAMR_DTYPE_F64 || Dtype == YAMR_DTYPE_F16 ||
           Dtype == YAMR_DTYPE_BF16;
}

/* Expands MACRO(dtype) for the runtime dtype t. */
#define YAMR_DISPATCH_DTYPE(t, MACRO)                                                          \
    switch (t) {                                                                               \
    case YAMR_DTYPE_F32: MACRO(YAMR_DTYPE_F32); break;                                         \
    case YAMR_DTYPE_F64: MACRO(YAMR_DTYPE_F64); break;                                         \
    case YAMR_DTYPE_F16: MACRO(YAMR_DTYPE_F16); break;                                         \
    case YAMR_DTYPE_BF16: MACRO(YAMR_DTYPE_BF16); break;                                       \
    case YAMR_DTYPE_I32: MACRO(YAMR_DTYPE_I32); break;                                         \
    case YAMR_DTYPE_U32: MACRO(YAMR_DTYPE_U32); break;                                         \
    case YAMR_DTYPE_I64: MACRO(YAMR_DTYPE_I64); break;                                         \
    }

#endif /* YAMR_DTYPE_TRAITS_HPP */
