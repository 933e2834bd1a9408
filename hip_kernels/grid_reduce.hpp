/*
 * Grid-wide max / min / argmax / argmin (and min+max together) in one pass and one launch.
 *
 * Each thread walks its share of the input in index order with 16-byte loads (when `in` is
 * 16-byte aligned), keeping the best key and its first index per slot (yamr_keys.h). The block
 * reduces the keys with the selected in-block variant (block_reduce.hpp) and takes the smallest
 * index holding the best key. Block results go to the context's workspace; the last block to
 * finish (a counter it resets for the next launch) reduces them the same way and writes the
 * answer. No step depends on which block runs when, so results are identical from run to run.
 *
 * Slots: with Slots == 1 the slot computes MAX or MIN (is_min at run time); with Slots == 2,
 * slot 0 is MAX and slot 1 is MIN.
 */
#ifndef YAMR_GRID_REDUCE_HPP
#define YAMR_GRID_REDUCE_HPP

#include "block_reduce.hpp"

#define YAMR_NO_INDEX LLONG_MAX

/* Device memory a context owns for the grid kernels. */
struct yamr__grid_workspace {
    unsigned long long *partial_key; /* [2][max_blocks] */
    long long *partial_index;        /* [2][max_blocks], YAMR_NO_INDEX when a block saw nothing */
    unsigned int *blocks_done;       /* 0 between launches: the last block resets it */
    int max_blocks;
};

/* Where the answer goes (device memory). index -1: every element was NaN (YAMR_NAN_IGNORE). */
struct yamr__grid_out {
    void *value[2];
    long long *index[2]; /* may be NULL */
};

template <typename Key, int Slots>
struct yamr__slots {
    Key key[Slots];
    long long index[Slots]; /* YAMR_NO_INDEX until the thread sees an element */
};

/* Block-wide: the best key of each slot and the smallest index holding it, to every thread.
 * Threads whose index is YAMR_NO_INDEX hold the bottom key and never supply an index. */
template <yamr_variant Variant, typename Key, int WarpSize, int Slots>
__device__ inline void yamr__block_best(yamr__slots<Key, Slots> &s)
{
    __shared__ unsigned long long first[Slots];
#pragma unroll
    for (int k = 0; k < Slots; ++k) {
        if (threadIdx.x == 0) first[k] = YAMR_NO_INDEX;
        const Key best = yamr__block_algorithm<Variant>::template max_key<Key, WarpSize, false>(s.key[k], NULL);
        if (s.index[k] != YAMR_NO_INDEX && s.key[k] == best)
            atomicMin(&first[k], (unsigned long long)s.index[k]);
        s.key[k] = best;
        __syncthreads(); /* first[k] is complete; the variant's shared state may be reused */
        s.index[k] = (long long)first[k];
    }
}

template <yamr_dtype Dtype, yamr_variant Variant, int WarpSize, int Slots>
__global__ void __launch_bounds__(YAMR__GRID_THREADS)
yamr_grid_reduce_kernel(const typename yamr__dtype_traits<Dtype>::storage *__restrict__ in,
                        long long n, int is_min, int nan_ignore, int aligned,
                        yamr__grid_workspace ws, yamr__grid_out out)
{
    typedef yamr__dtype_traits<Dtype> traits;
    typedef typename traits::storage Storage;
    typedef typename traits::key Key;
    if (!yamr__warp_width_matches<WarpSize>()) return;

    yamr__key_mode<Key> mode[Slots];
#pragma unroll
    for (int k = 0; k < Slots; ++k) mode[k] = yamr__key_mode_of<Key>(Slots == 2 ? k : is_min, nan_ignore);
    yamr__slots<Key, Slots> s;
#pragma unroll
    for (int k = 0; k < Slots; ++k) {
        s.key[k] = (Key)YAMR_KEY_BOTTOM;
        s.index[k] = YAMR_NO_INDEX;
    }
    /* Indices arrive in increasing order per thread: a strictly larger key (or the first
     * element) replaces the best, so each thread keeps its first index of its best key. */
    auto consider = [&](int k, Key key, long long i) {
        if (key > s.key[k] || s.index[k] == YAMR_NO_INDEX) {
            s.key[k] = key;
            s.index[k] = i;
        }
    };
    /* A 16-byte vector: the best of its elements first, then one 64-bit index update per
     * vector. Half types compare the elements by value (yamr__best_of) and key only the winner,
     * unless the vector holds a NaN; wider types key every element in 32-bit arithmetic, which
     * measured faster (docs/performance.md, "Tuning constants"). */
    constexpr int per_vec = 16 / sizeof(Storage);
    auto consider_vector = [&](const uint4 raw, long long first) { /* by value: a register copy */
        Storage e[per_vec];
        memcpy(e, &raw, sizeof raw);
        if constexpr (sizeof(Storage) == 2) {
            typename traits::value best[Slots];
            int where[Slots];
            bool nan = false;
#pragma unroll
            for (int k = 0; k < Slots; ++k)
                where[k] = (Slots == 2 ? k == 1 : is_min)
                               ? yamr__best_of<Dtype, true>(e, best[k], nan)
                               : yamr__best_of<Dtype, false>(e, best[k], nan);
            if (!nan) {
#pragma unroll
                for (int k = 0; k < Slots; ++k)
                    consider(k, traits::to_key(traits::from_value(best[k]), mode[k]),
                             first + where[k]);
                return;
            }
        }
#pragma unroll
        for (int k = 0; k < Slots; ++k) {
            Key best = traits::to_key(e[0], mode[k]);
            int at = 0;
#pragma unroll
            for (int j = 1; j < per_vec; ++j) {
                const Key key = traits::to_key(e[j], mode[k]);
                at = key > best ? j : at;
                best = key > best ? key : best;
            }
            consider(k, best, first + at);
        }
    };

    const long long thread = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long stride = (long long)gridDim.x * blockDim.x;
    if (aligned) {
        const uint4 *vec = (const uint4 *)in;
        const long long vectors = n / per_vec;
        long long v = thread;
        constexpr int unroll = YAMR__GRID_VECTORS(sizeof(Storage));
        for (; v + (unroll - 1) * stride < vectors; v += unroll * stride) {
            uint4 raw[unroll];
#pragma unroll
            for (int u = 0; u < unroll; ++u) raw[u] = vec[v + u * stride];
#pragma unroll
            for (int u = 0; u < unroll; ++u) consider_vector(raw[u], (v + u * stride) * per_vec);
        }
        for (; v < vectors; v += stride) consider_vector(vec[v], v * per_vec);
        for (long long i = vectors * per_vec + thread; i < n; i += stride)
#pragma unroll
            for (int k = 0; k < Slots; ++k)
                consider(k, traits::to_key(in[i], mode[k]), i);
    } else {
        for (long long i = thread; i < n; i += stride)
#pragma unroll
            for (int k = 0; k < Slots; ++k)
                consider(k, traits::to_key(in[i], mode[k]), i);
    }

    yamr__block_best<Variant, Key, WarpSize, Slots>(s);

    /* Publish this block's result; the last block to arrive reduces all of them. A grid of one
     * block is its own last block and skips the round trip through the workspace. */
    if (gridDim.x > 1) {
        __shared__ bool last_block;
        if (threadIdx.x == 0) {
#pragma unroll
            for (int k = 0; k < Slots; ++k) {
                ws.partial_key[k * ws.max_blocks + blockIdx.x] = s.key[k];
                ws.partial_index[k * ws.max_blocks + blockIdx.x] = s.index[k];
            }
            __threadfence(); /* the partials are visible before the counter moves */
            last_block = atomicAdd(ws.blocks_done, 1u) == gridDim.x - 1;
        }
        __syncthreads();
        if (!last_block) return;
        __threadfence();

#pragma unroll
        for (int k = 0; k < Slots; ++k) {
            s.key[k] = (Key)YAMR_KEY_BOTTOM;
            s.index[k] = YAMR_NO_INDEX;
            const volatile unsigned long long *keys = ws.partial_key + k * ws.max_blocks;
            const volatile long long *indices = ws.partial_index + k * ws.max_blocks;
            for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
                const Key key = (Key)keys[b];
                const long long index = indices[b];
                /* blocks are not in index order: break ties on the index */
                if (index != YAMR_NO_INDEX && (s.index[k] == YAMR_NO_INDEX || key > s.key[k] ||
                                               (key == s.key[k] && index < s.index[k]))) {
                    s.key[k] = key;
                    s.index[k] = index;
                }
            }
        }
        yamr__block_best<Variant, Key, WarpSize, Slots>(s);
        if (threadIdx.x == 0) *ws.blocks_done = 0;
    }
    if (threadIdx.x == 0) {
#pragma unroll
        for (int k = 0; k < Slots; ++k) {
            const long long index = s.index[k];
            *(Storage *)out.value[k] = in[index];
            if (out.index[k])
                *out.index[k] =
                    yamr__dtype_is_float<Dtype>() && s.key[k] == (Key)YAMR_KEY_BOTTOM ? -1 : index;
        }
    }
}

#endif /* YAMR_GRID_REDUCE_HPP */
