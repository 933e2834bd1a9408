/* SPDX-License-Identifier: MIT */
/* The thread layer of softmax statistics: the running (max, sum of exp(x - max)). */
#ifndef YAMR_ACC_SOFTMAX_HPP
#define YAMR_ACC_SOFTMAX_HPP

#include <type_traits>

#include "batch_layout.hpp"
#include "dtype_traits.hpp"

/* float: e^x as the hardware's 2^(x log2(e)) (yamr__exp2_fast; as __expf, within 2 + 1.2|x| ulp
 * above 2^-126, zero below). Only x <= 0 reaches it, and a term with |x| large enough for that
 * bound to matter, or below 2^-126, is below 1e-6 of the sum (which is >= 1), so the row sum stays
 * well inside the documented 1e-5 relative agreement; the exact expf made softmax statistics
 * compute-bound. */
__device__ inline float yamr__exp(float x) { return yamr__exp2_fast(x * 1.44269504088896341f); }
__device__ inline double yamr__exp(double x) { return exp(x); }

/*
 * Online softmax statistics: m, the largest element so far, and s, the sum of exp(x - m) over
 * the elements so far. exp(x - m) is taken as exactly 1 when x == m, which defines the infinite
 * cases (yamr.h): an element equal to the maximum always counts 1, so s >= 1 once any element
 * counted, and s == 0 means none did (NaNs only, ignored). Identity: (-inf, 0). Under
 * YAMR_NAN_PROPAGATE a NaN makes (NaN, NaN), which no later element or merge changes.
 */
template <typename T>
struct yamr__softmax_acc {
    typedef yamr__dtype_traits<sizeof(T) == 4 ? YAMR_DTYPE_F32 : YAMR_DTYPE_F64> traits;
    typedef typename traits::storage storage;
    template <typename I>
    using with_index = yamr__softmax_acc; /* it keeps no index */
    typedef long long index_type;           /* the scans' offsets in its rows (tile_scan.hpp) */
    static constexpr bool pads_with_repeats = false; /* a repeat would add to the sum */
    static constexpr int slots = 0; /* no keys: only the shuffle merge takes it (block_merge.hpp) */
    /* Where the answers go (device memory), one T per row each. */
    struct output {
        void *row_max, *row_sum;
    };
    struct partial {
        T m, s;
    };
    T m, s;
    int nan_ignore;

    __device__ static inline yamr__softmax_acc identity(const yamr__batch_args &a)
    {
        yamr__softmax_acc acc;
        acc.nan_ignore = a.nan_ignore;
        acc.clear();
        return acc;
    }
    __device__ inline void clear()
    {
        m = -(T)INFINITY;
        s = 0;
    }
    __device__ static inline T weight(T x, T max) { return x == max ? (T)1 : yamr__exp(x - max); }
    __device__ inline void add(T x)
    {
        if (x != x) {
            if (!nan_ignore) m = s = x;
            return;
        }
        if (x > m) {
            s = s * yamr__exp(m - x) + (T)1; /* m = -inf: exp(-inf) = 0 drops the -inf elements */
            m = x;
        } else {
            s += weight(x, m); /* m NaN: s stays NaN */
        }
    }
    __device__ inline void element(storage b, long long) { add(to_value(b)); }
    /* One rescale per vector: the vector's maximum first (NaNs go the one-by-one way). */
    template <bool Tree = false>
    __device__ inline void vector(const uint4 raw, long long)
    {
        constexpr int per_vec = 16 / sizeof(storage);
        storage e[per_vec];
        memcpy(e, &raw, sizeof raw);
        T x[per_vec];
        bool nan = false;
        T vmax = to_value(e[0]);
#pragma unroll
        for (int j = 0; j < per_vec; ++j) {
            x[j] = to_value(e[j]);
            nan |= x[j] != x[j];
            vmax = x[j] > vmax ? x[j] : vmax;
        }
        if (nan || m != m) {
#pragma unroll
            for (int j = 0; j < per_vec; ++j) add(x[j]);
            return;
        }
        if (vmax > m) {
            s *= yamr__exp(m - vmax);
            m = vmax;
        }
#pragma unroll
        for (int j = 0; j < per_vec; ++j) s += weight(x[j], m);
    }
    /*
     * Several vectors with one rescale: their maximum first, then one exponential per element.
     * When the new maximum is finite and nothing is NaN, exp(x - max) is exactly what add() takes
     * (exp(0) = 1 for x == max, 0 for x = -inf); otherwise (an infinite maximum, a NaN) the
     * vectors go the vector() way, which defines those cases.
     */
    template <bool Tree = false, int Unroll> /* Tree: the best accumulators' chunk order */
    __device__ inline void chunk(const uint4 (&raw)[Unroll], long long, long long)
    {
        constexpr int per_vec = 16 / sizeof(storage);
        T x[Unroll * per_vec];
        memcpy(x, raw, sizeof raw);
        T top = m;
#pragma unroll
        for (int j = 0; j < Unroll * per_vec; ++j) top = fmax(top, x[j]); /* NaN-blind */
        T sum = 0;
        if (isfinite(top)) {
#pragma unroll
            for (int j = 0; j < Unroll * per_vec; ++j) sum += yamr__exp(x[j] - top);
        }
        if (!isfinite(top) || sum != sum || m != m) { /* the defined slow way */
#pragma unroll
            for (int u = 0; u < Unroll; ++u) vector(raw[u], 0);
            return;
        }
        s = s * yamr__exp(m - top) + sum; /* m = -inf: exp(-inf) = 0, and s is 0 then */
        m = top;
    }
    __device__ inline void take(T m2, T s2)
    {
        if (m != m) return;
        if (m2 != m2) {
            m = m2;
            s = s2;
            return;
        }
        const T top = m2 > m ? m2 : m;
        s = s * weight(m, top) + s2 * weight(m2, top);
        m = top;
    }
    /* In two phases, with one exponential per lane instead of two per step: the group's maximum,
     * which every lane gets (a NaN wins, as in take()); then each lane's sum rescaled to it, and
     * the sums of the first Filled lanes (the others hold the identity) added up in lane 0. */
    template <int WarpSize, int Lanes = WarpSize, int Filled = Lanes>
    __device__ inline void warp_merge()
    {
        const T top = group_max<WarpSize, Lanes>(m);
        s *= weight(m, top); /* top NaN: NaN */
#pragma unroll
        for (int d = Filled / 2; d > 0; d /= 2) s += yamr__shfl_down<WarpSize>(s, d);
        m = top;
    }
    /* The largest x of a group of Lanes lanes, a NaN if any, in every lane. float over a whole
     * warp: the warp's largest order-preserving key (yamr_keys.h, NaN the top key), one vote. */
    template <int WarpSize, int Lanes>
    __device__ static inline T group_max(T x)
    {
        if constexpr (Lanes == WarpSize && sizeof(T) == 4) {
            const yamr__key_mode<uint32_t> max_propagate = {0u, ~0u};
            const uint32_t k =
                yamr__warp_extreme<WarpSize, true>(yamr__device_key_f32(x, max_propagate));
            return k == ~0u ? (T)NAN : __uint_as_float(k & 0x80000000u ? k & 0x7fffffffu : ~k);
        } else {
#pragma unroll
            for (int d = Lanes / 2; d > 0; d /= 2) {
                const T o = yamr__shfl_xor<WarpSize>(x, d);
                x = o != o || o > x ? o : x;
            }
            return x;
        }
    }
    __device__ static inline T to_value(storage b) { return traits::to_value(b); }
    __device__ inline partial to_partial() const { return {m, s}; }
    __device__ inline void take_partial(const partial &p) { take(p.m, p.s); }
    __device__ inline void write(long long r, const output &out) const
    {
        ((T *)out.row_max)[r] = s == (T)0 ? (T)NAN : m; /* no element counted: NaNs only, ignored */
        ((T *)out.row_sum)[r] = s;
    }
};

#endif /* YAMR_ACC_SOFTMAX_HPP */
