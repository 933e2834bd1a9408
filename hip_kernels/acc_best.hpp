/* SPDX-License-Identifier: MIT */
/* The thread layer of max / min / argmax / argmin: yamr__best_acc, the best key of yamr_keys.h,
 * the first index holding it and that element's bits; yamr__minmax_acc, a pair of them. */
#ifndef YAMR_ACC_BEST_HPP
#define YAMR_ACC_BEST_HPP

#include <limits>
#include <type_traits>

#include "answer_words.hpp"
#include "batch_layout.hpp"
#include "dtype_traits.hpp"

template <yamr_dtype Dtype>
__device__ inline typename yamr__dtype_traits<Dtype>::storage yamr__empty_value()
{
    switch (Dtype) {
    case YAMR_DTYPE_F32: return (typename yamr__dtype_traits<Dtype>::storage)YAMR__QUIET_NAN_F32;
    case YAMR_DTYPE_F64: return (typename yamr__dtype_traits<Dtype>::storage)YAMR__QUIET_NAN_F64;
    case YAMR_DTYPE_F16: return (typename yamr__dtype_traits<Dtype>::storage)YAMR__QUIET_NAN_F16;
    case YAMR_DTYPE_BF16: return (typename yamr__dtype_traits<Dtype>::storage)YAMR__QUIET_NAN_BF16;
    default: return 0;
    }
}

/* Where the answers of a best accumulator go: device memory, values[r] and indices[r] unless
 * NULL; or, where `answer` is not NULL (a synchronous grid-wide call), mapped host memory as
 * above. */
struct yamr__best_output {
    void *values;
    long long *indices;
    unsigned long long *answer;
};

/* Max / min / argmax / argmin: the best key, the first index holding it and that element's bits
 * (carried along, so that writing the answer needs no second read of the row). The identity is
 * (bottom key, `none`), which every element beats or ties with a smaller index. Indices count
 * from the row's (segment's) first element; Index is int where the row is known to be short
 * (fewer registers and one shuffle less per merge step), long long elsewhere. */
template <yamr_dtype Dtype, typename Index = long long>
struct yamr__best_acc {
    typedef yamr__dtype_traits<Dtype> traits;
    typedef typename traits::storage storage;
    typedef typename traits::value value;
    typedef typename traits::key Key;
    typedef Index index_type;
    typedef yamr__best_output output;
    /* What a split block leaves for the row's last block (split_reduce.hpp). */
    struct partial {
        Key key;
        Index index;
        storage bits;
    };
    /* the same accumulator with another index type */
    template <typename I>
    using with_index = yamr__best_acc<Dtype, I>;
    static constexpr Index none = std::numeric_limits<Index>::max(); /* a thread that saw none */
    /* Whether the short scans hand a lane's vectors to one chunk(), those past the row's end
     * padded with copies of its first: a copy comes after its original, so it never beats it.
     * 4-byte types only (measured: docs/performance.md, "Tuning constants"). */
    static constexpr bool pads_with_repeats = sizeof(storage) == 4;
    /* what a shuffle moves the element's bits as */
    typedef typename std::conditional<sizeof(storage) == 8, unsigned long long, unsigned>::type
        bits_word;
    /* The block layer's view (block_merge.hpp): the best accumulators this one holds. */
    static constexpr int slots = 1;
    __device__ inline yamr__best_acc &slot(int) { return *this; }
    yamr__key_mode<Key> mode;
    Key key;
    Index index;
    storage bits;

    __device__ static inline yamr__best_acc identity(const yamr__batch_args &a)
    {
        return identity(a.is_min, a.nan_ignore);
    }
    __device__ static inline yamr__best_acc identity(int is_min, int nan_ignore)
    {
        yamr__best_acc b;
        b.mode = yamr__key_mode_of<Key>(is_min, nan_ignore);
        b.clear();
        return b;
    }
    __device__ inline void clear()
    {
        key = (Key)YAMR_KEY_BOTTOM;
        index = none;
        bits = 0;
    }
    /* Within a thread: indices arrive in increasing order, so only a larger key replaces. */
    __device__ inline void consider(Key k, Index i, storage b)
    {
        if (k > key || index == none) {
            key = k;
            index = i;
            bits = b;
        }
    }
    __device__ inline void element(storage b, Index i) { consider(traits::to_key(b, mode), i, b); }
    /*
     * Unroll vectors in index order, vector u starting `step` elements after vector u - 1: the
     * best element by value first (yamr__best_of), then one key and one index update; a chunk
     * holding a NaN goes element by element, where the key places it by the NaN policy. Half
     * types take one vector at a time (32 elements held as floats cost the block kernel too many
     * registers: docs/performance.md, "Half types in the batched kernels").
     */
    template <bool Tree = false, int Unroll>
    __device__ inline void chunk(const uint4 (&raw)[Unroll], Index first, Index step)
    {
        if constexpr (Unroll > 1 && sizeof(storage) == 2) {
#pragma unroll
            for (int u = 0; u < Unroll; ++u) vector<Tree>(raw[u], (Index)(first + u * step));
            return;
        }
        constexpr int per_vec = 16 / sizeof(storage), count = Unroll * per_vec;
        storage e[count];
        memcpy(e, raw, sizeof raw);
        value best;
        bool nan;
        const int at = mode.flip ? yamr__best_of<Dtype, true, Tree>(e, best, nan)
                                 : yamr__best_of<Dtype, false, Tree>(e, best, nan);
        if (!nan) {
            const storage b = traits::from_value(best);
            consider(traits::to_key(b, mode), (Index)(first + at / per_vec * step + at % per_vec), b);
            return;
        }
#pragma unroll
        for (int j = 0; j < count; ++j)
            element(e[j], (Index)(first + j / per_vec * step + j % per_vec));
    }
    template <bool Tree = false>
    __device__ inline void vector(const uint4 raw, Index first)
    {
        const uint4 one[1] = {raw};
        chunk<Tree>(one, first, 0);
    }
    /* Between threads or blocks: ties go to the smaller index. */
    __device__ inline void take(Key k, Index i, storage b)
    {
        if (k > key || (k == key && i < index)) {
            key = k;
            index = i;
            bits = b;
        }
    }
    /*
     * Lane 0 of every group of Lanes lanes gets its group's merge (Lanes = WarpSize: the warp's),
     * where only the first Filled lanes of a group may hold more than the identity. A whole warp
     * with 32-bit keys and indices votes instead, and every lane gets the merge: the best key,
     * the first index among the lanes holding it, and the bits of the lane holding both.
     */
    template <int WarpSize, int Lanes = WarpSize, int Filled = Lanes>
    __device__ inline void warp_merge()
    {
        if constexpr (Lanes == WarpSize && sizeof(Key) == 4 && sizeof(Index) == 4) {
            const Key top = yamr__warp_extreme<WarpSize, true>(key);
            const uint32_t first =
                yamr__warp_extreme<WarpSize, false>(key == top ? (uint32_t)index : (uint32_t)none);
            const int holder = yamr__first_lane<WarpSize>(key == top && (uint32_t)index == first);
            bits = (storage)yamr__shfl<WarpSize>((bits_word)bits, holder);
            key = top;
            index = (Index)first;
        } else {
#pragma unroll
            for (int d = Filled / 2; d > 0; d /= 2) {
                const Key k = yamr__shfl_down<WarpSize>(key, d);
                const Index i = yamr__shfl_down<WarpSize>(index, d);
                const storage b = (storage)yamr__shfl_down<WarpSize>((bits_word)bits, d);
                take(k, i, b);
            }
        }
    }
    __device__ inline partial to_partial() const { return {key, index, bits}; }
    __device__ inline void take_partial(const partial &p) { take(p.key, p.index, p.bits); }
    /* Row r's answer: the element at the index; -1 for NaNs only (float, ignore) or no element. */
    __device__ inline void write(long long r, const output &out) const
    {
        const bool empty = index == none;
        const storage v = empty ? yamr__empty_value<Dtype>() : bits;
        const long long i =
            empty || (yamr__dtype_is_float<Dtype>() && key == (Key)YAMR_KEY_BOTTOM)
                ? -1
                : (long long)index;
        if (out.answer) {
            yamr__store_answer(out.answer, i, (bits_word)v);
            return;
        }
        ((storage *)out.values)[r] = v;
        if (out.indices) out.indices[r] = i;
    }
};

/* Min and max together: slot 0 is the max, slot 1 the min, each a yamr__best_acc. */
template <yamr_dtype Dtype, typename Index = long long>
struct yamr__minmax_acc {
    typedef yamr__best_acc<Dtype, Index> best;
    typedef typename best::storage storage;
    typedef Index index_type;
    template <typename I>
    using with_index = yamr__minmax_acc<Dtype, I>;
    static constexpr bool pads_with_repeats = best::pads_with_repeats;
    struct output {
        yamr__best_output slot[2];
    };
    struct partial {
        typename best::partial slot[2];
    };
    static constexpr int slots = 2;
    best s[2];
    __device__ inline best &slot(int k) { return s[k]; }

    __device__ static inline yamr__minmax_acc identity(const yamr__batch_args &a)
    {
        yamr__minmax_acc m;
        m.s[0] = best::identity(0, a.nan_ignore);
        m.s[1] = best::identity(1, a.nan_ignore);
        return m;
    }
    __device__ inline void clear()
    {
        s[0].clear();
        s[1].clear();
    }
    __device__ inline void element(storage b, Index i)
    {
        s[0].element(b, i);
        s[1].element(b, i);
    }
    /* Half types vector by vector, both slots on one vector's widened elements before the next
     * (both slots over every vector held 32 widened elements and doubled the registers). */
    template <bool Tree = false, int Unroll>
    __device__ inline void chunk(const uint4 (&raw)[Unroll], Index first, Index step)
    {
        if constexpr (sizeof(storage) == 2) {
#pragma unroll
            for (int u = 0; u < Unroll; ++u) vector<Tree>(raw[u], (Index)(first + u * step));
        } else {
            s[0].template chunk<Tree>(raw, first, step);
            s[1].template chunk<Tree>(raw, first, step);
        }
    }
    /* One vector: the largest and the smallest element by value in one pass with one NaN test,
     * then a key and an index update per slot; a vector holding a NaN goes element by element. */
    template <bool Tree = false>
    __device__ inline void vector(const uint4 raw, Index first)
    {
        constexpr int per_vec = 16 / sizeof(storage);
        storage e[per_vec];
        memcpy(e, &raw, sizeof raw);
        typename best::value hi, lo;
        bool nan;
        const int at_hi = yamr__best_of<Dtype, false, Tree>(e, hi, nan);
        const int at_lo = yamr__best_of<Dtype, true, Tree>(e, lo, nan);
        if (!nan) {
            const storage bhi = best::traits::from_value(hi), blo = best::traits::from_value(lo);
            s[0].consider(best::traits::to_key(bhi, s[0].mode), (Index)(first + at_hi), bhi);
            s[1].consider(best::traits::to_key(blo, s[1].mode), (Index)(first + at_lo), blo);
            return;
        }
#pragma unroll
        for (int j = 0; j < per_vec; ++j) element(e[j], (Index)(first + j));
    }
    template <int WarpSize, int Lanes = WarpSize, int Filled = Lanes>
    __device__ inline void warp_merge()
    {
        s[0].template warp_merge<WarpSize, Lanes, Filled>();
        s[1].template warp_merge<WarpSize, Lanes, Filled>();
    }
    __device__ inline partial to_partial() const { return {{s[0].to_partial(), s[1].to_partial()}}; }
    __device__ inline void take_partial(const partial &p)
    {
        s[0].take_partial(p.slot[0]);
        s[1].take_partial(p.slot[1]);
    }
    __device__ inline void write(long long r, const output &out) const
    {
        s[0].write(r, out.slot[0]);
        s[1].write(r, out.slot[1]);
    }
};

#endif /* YAMR_ACC_BEST_HPP */
