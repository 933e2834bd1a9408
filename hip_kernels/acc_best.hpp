/* The thread layer of max / min / argmax / argmin: yamr__rows_best, the best key of
 * yamr_keys.h, the first index holding it and that element's bits. */
#ifndef YAMR_ACC_BEST_HPP
#define YAMR_ACC_BEST_HPP

#include <limits>
#include <type_traits>

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

/* Max / min / argmax / argmin: the best key, the first index holding it and that element's bits
 * (carried along, so that writing the answer needs no second read of the row). The identity is
 * (bottom key, `none`), which every element beats or ties with a smaller index. Indices count
 * from the row's (segment's) first element; Index is int where the row is known to be short
 * (fewer registers and one shuffle less per merge step), long long elsewhere. */
template <yamr_dtype Dtype, typename Index = long long>
struct yamr__rows_best {
    typedef yamr__dtype_traits<Dtype> traits;
    typedef typename traits::storage storage;
    typedef typename traits::value value;
    typedef typename traits::key Key;
    /* the same accumulator with another index type */
    template <typename I>
    using with_index = yamr__rows_best<Dtype, I>;
    static constexpr Index none = std::numeric_limits<Index>::max(); /* a thread that saw none */
    /* Whether the short scans hand a lane's vectors to one chunk(), those past the row's end
     * padded with copies of its first: a copy comes after its original, so it never beats it.
     * 4-byte types only (measured: docs/performance.md, "Tuning constants"). */
    static constexpr bool pads_with_repeats = sizeof(storage) == 4;
    /* what a shuffle moves the element's bits as */
    typedef typename std::conditional<sizeof(storage) == 8, unsigned long long, unsigned>::type
        bits_word;
    yamr__key_mode<Key> mode;
    Key key;
    Index index;
    storage bits;

    __device__ static inline yamr__rows_best identity(const yamr__batch_args &a)
    {
        yamr__rows_best b;
        b.mode = yamr__key_mode_of<Key>(a.is_min, a.nan_ignore);
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
     * types take one vector at a time (32 elements held as floats took the block kernel to
     * 78-104 registers).
     */
    template <int Unroll>
    __device__ inline void chunk(const uint4 (&raw)[Unroll], long long first, long long step)
    {
        if constexpr (Unroll > 1 && sizeof(storage) == 2) {
#pragma unroll
            for (int u = 0; u < Unroll; ++u) vector(raw[u], (Index)(first + u * step));
            return;
        }
        constexpr int per_vec = 16 / sizeof(storage), count = Unroll * per_vec;
        storage e[count];
        memcpy(e, raw, sizeof raw);
        value best;
        bool nan;
        const int at = mode.flip ? yamr__best_of<Dtype, true>(e, best, nan)
                                 : yamr__best_of<Dtype, false>(e, best, nan);
        if (!nan) {
            const storage b = traits::from_value(best);
            consider(traits::to_key(b, mode), (Index)(first + at / per_vec * step + at % per_vec), b);
            return;
        }
#pragma unroll
        for (int j = 0; j < count; ++j)
            element(e[j], (Index)(first + j / per_vec * step + j % per_vec));
    }
    __device__ inline void vector(const uint4 raw, Index first)
    {
        const uint4 one[1] = {raw};
        chunk(one, first, 0);
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
    /* Partials (split shape) hold the key and the index; the row's last block reads the bits of
     * the winner again (reload). */
    __device__ inline void to_partial(unsigned long long &a, unsigned long long &b) const
    {
        a = key;
        b = (unsigned long long)index;
    }
    __device__ inline void take_partial(unsigned long long a, unsigned long long b)
    {
        take((Key)a, (Index)b, 0);
    }
    __device__ inline void reload(const storage *row)
    {
        if (index != none) bits = row[index];
    }
    /* Row r's answer: the element at the index; -1 for NaNs only (float, ignore) or no element. */
    __device__ inline void write(long long r, const yamr__batch_args &a) const
    {
        const bool empty = index == none;
        ((storage *)a.out_a)[r] = empty ? yamr__empty_value<Dtype>() : bits;
        if (a.out_b)
            ((long long *)a.out_b)[r] =
                empty || (yamr__dtype_is_float<Dtype>() && key == (Key)YAMR_KEY_BOTTOM)
                    ? -1
                    : (long long)index;
    }
};

#endif /* YAMR_ACC_BEST_HPP */
