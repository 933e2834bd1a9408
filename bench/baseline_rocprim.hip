/* SPDX-License-Identifier: MIT */
/* rocPRIM baselines (AMD builds; Debian's librocprim-dev): rocprim::reduce with maximum for
 * yamr-bench sweep's max, and with arg_max over an arg_index_iterator for its argmax, in CUB's
 * place. rocprim::arg_max keeps the smaller index on ties and compares with >, as yamr does
 * (-0.0 == +0.0); sweep checks every answer against the CPU backend before timing it. No
 * segmented baseline here: yamr-bench rows runs without one on AMD. */
#include <cstddef>
#include <cstdint>
#include <iterator>

#include <hip/hip_bfloat16.h>
#include <hip/hip_fp16.h>
#include <rocprim/rocprim.hpp>
#include <rocprim/thread/thread_operators.hpp> /* arg_max: not in rocprim.hpp */

#include "sweep_gpu.h"

/* An output iterator that stores a key_value_pair<int64_t, T> as its value and its index in two
 * places (sweep's layout: the value at `value`, the index at `index`), so that no extra kernel
 * splits the pair. rocprim::reduce writes its result as output[0] = pair. */
template <typename T>
struct split_pair_output {
    using value_type = rocprim::key_value_pair<int64_t, T>;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using iterator_category = std::random_access_iterator_tag;
    struct proxy {
        T *value;
        int64_t *index;
        __host__ __device__ proxy &operator=(const value_type &pair)
        {
            *value = pair.value;
            *index = pair.key;
            return *this;
        }
    };
    using reference = proxy;

    T *value;
    int64_t *index;

    __host__ __device__ proxy operator*() const { return proxy{value, index}; }
    __host__ __device__ proxy operator[](difference_type i) const
    {
        return proxy{value + i, index + i};
    }
    __host__ __device__ split_pair_output operator+(difference_type i) const
    {
        return split_pair_output{value + i, index + i};
    }
};

template <typename T>
static hipError_t run(int argmax, const void *in, long long n, void *temp, size_t *temp_bytes,
                      void *value, long long *index, hipStream_t stream)
{
    const T *typed = (const T *)in;
    if (argmax) {
        rocprim::arg_index_iterator<const T *, int64_t> pairs(typed);
        split_pair_output<T> out{(T *)value, (int64_t *)index};
        return rocprim::reduce(temp, *temp_bytes, pairs, out, (size_t)n, rocprim::arg_max(),
                               stream);
    }
    return rocprim::reduce(temp, *temp_bytes, typed, (T *)value, (size_t)n,
                           rocprim::maximum<T>(), stream);
}

extern "C" const char *baseline_name(void) { return "rocprim"; }

extern "C" int baseline_cub_available(void) { return 1; }

extern "C" int baseline_cub(yamr_dtype dtype, int argmax, const void *in, long long n, void *temp,
                            size_t *temp_bytes, void *value, long long *index, void *stream)
{
    hipStream_t s = (hipStream_t)stream;
    hipError_t e = hipErrorInvalidValue;
    switch (dtype) {
    case YAMR_DTYPE_F32: e = run<float>(argmax, in, n, temp, temp_bytes, value, index, s); break;
    case YAMR_DTYPE_F64: e = run<double>(argmax, in, n, temp, temp_bytes, value, index, s); break;
    case YAMR_DTYPE_F16: e = run<__half>(argmax, in, n, temp, temp_bytes, value, index, s); break;
    case YAMR_DTYPE_BF16:
        e = run<hip_bfloat16>(argmax, in, n, temp, temp_bytes, value, index, s);
        break;
    case YAMR_DTYPE_I32: e = run<int32_t>(argmax, in, n, temp, temp_bytes, value, index, s); break;
    case YAMR_DTYPE_U32: e = run<uint32_t>(argmax, in, n, temp, temp_bytes, value, index, s); break;
    case YAMR_DTYPE_I64: e = run<int64_t>(argmax, in, n, temp, temp_bytes, value, index, s); break;
    }
    return e == hipSuccess ? 0 : (int)e;
}

extern "C" int baseline_segmented_available(void) { return 0; }

extern "C" int baseline_cub_segmented(int argmax, const float *in, const int64_t *begin,
                                      const int64_t *end, long long segments, void *temp,
                                      size_t *temp_bytes, void *out, void *stream)
{
    (void)argmax, (void)in, (void)begin, (void)end, (void)segments, (void)temp, (void)temp_bytes,
        (void)out, (void)stream;
    return -1;
}
