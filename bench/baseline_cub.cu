/* CUB baselines for yamr-bench sweep (NVIDIA builds): DeviceReduce::Max and ::ArgMax. */
#include <cub/device/device_reduce.cuh>
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

extern "C" int baseline_cub_available(void) { return 1; }

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
