/* SPDX-License-Identifier: MIT */
/* CUB baselines (NVIDIA builds): DeviceReduce::Max and ::ArgMax for yamr-bench sweep,
 * DeviceSegmentedReduce::Max and ::ArgMax for yamr-bench rows. */
#include <cstddef>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "sweep_gpu.h"

template <typename T>
static cudaError_t run(int argmax, const void *in, long long n, void *temp, size_t *temp_bytes,
                       void *value, long long *index, cudaStream_t stream)
{
    const T *typed = (const T *)in;
    if (argmax)
        return cub::DeviceReduce::ArgMax(temp, *temp_bytes, typed, (T *)value, (int64_t *)index,
                                         (int64_t)n, stream);
    return cub::DeviceReduce::Max(temp, *temp_bytes, typed, (T *)value, (int64_t)n, stream);
}

extern "C" const char *baseline_name(void) { return "cub"; }

extern "C" int baseline_cub_available(void) { return 1; }

extern "C" int baseline_segmented_available(void) { return 1; }

extern "C" int baseline_cub(yamr_dtype dtype, int argmax, const void *in, long long n, void *temp,
                            size_t *temp_bytes, void *value, long long *index, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    cudaError_t e = cudaErrorInvalidValue;
    switch (dtype) {
    case YAMR_DTYPE_F32: e = run<float>(argmax, in, n, temp, temp_bytes, value, index, s); break;
    case YAMR_DTYPE_F64: e = run<double>(argmax, in, n, temp, temp_bytes, value, index, s); break;
    case YAMR_DTYPE_F16: e = run<__half>(argmax, in, n, temp, temp_bytes, value, index, s); break;
    case YAMR_DTYPE_BF16: e = run<__nv_bfloat16>(argmax, in, n, temp, temp_bytes, value, index, s); break;
    case YAMR_DTYPE_I32: e = run<int32_t>(argmax, in, n, temp, temp_bytes, value, index, s); break;
    case YAMR_DTYPE_U32: e = run<uint32_t>(argmax, in, n, temp, temp_bytes, value, index, s); break;
    case YAMR_DTYPE_I64: e = run<int64_t>(argmax, in, n, temp, temp_bytes, value, index, s); break;
    }
    return e == cudaSuccess ? 0 : (int)e;
}

/* ArgMax writes cub::KeyValuePair<int, float>; the C side reads it as baseline_cub_argmax_pair. */
using cub_argmax_pair = cub::KeyValuePair<int, float>;
static_assert(sizeof(cub_argmax_pair) == sizeof(baseline_cub_argmax_pair) &&
                  offsetof(cub_argmax_pair, key) == offsetof(baseline_cub_argmax_pair, index) &&
                  offsetof(cub_argmax_pair, value) == offsetof(baseline_cub_argmax_pair, value),
              "cub::KeyValuePair<int, float> is not {int32_t index; float value;}");

extern "C" int baseline_cub_segmented(int argmax, const float *in, const int64_t *begin,
                                      const int64_t *end, long long segments, void *temp,
                                      size_t *temp_bytes, void *out, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    const cudaError_t e =
        argmax ? cub::DeviceSegmentedReduce::ArgMax(temp, *temp_bytes, in,
                                                    (cub_argmax_pair *)out,
                                                    (int64_t)segments, begin, end, s)
               : cub::DeviceSegmentedReduce::Max(temp, *temp_bytes, in, (float *)out,
                                                 (int64_t)segments, begin, end, s);
    return e == cudaSuccess ? 0 : (int)e;
}
