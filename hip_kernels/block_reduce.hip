/* The library's launcher for the single-block family. */
#include "block_reduce.hpp"
#include "gpu.h"

template <yamr_dtype Dtype, int WarpSize>
static void launch_block(const yamr__gpu *gpu, const yamr__gpu_call *call)
{
    typedef typename yamr_dtype_traits<Dtype>::storage Storage;
    const Storage *in = (const Storage *)call->in;
    const int n = (int)call->n;
    const int threads = yamr_block_threads(call->variant, n, WarpSize);
#define YAMR_LAUNCH(V)                                                                         \
    yamr_block_argmax_kernel<Dtype, V, WarpSize, false><<<1, threads, 0, gpu->stream>>>(       \
        in, n, call->is_min, call->nan_ignore, gpu->d_result, NULL)
    switch (call->variant) {
    case YAMR_VARIANT_RACY:
        yamr_max_racy_kernel<WarpSize, false>
            <<<1, threads, 0, gpu->stream>>>((const float *)call->in, n, gpu->d_result, NULL);
        break;
    case YAMR_VARIANT_RACY_VOLATILE: YAMR_LAUNCH(YAMR_VARIANT_RACY_VOLATILE); break;
    case YAMR_VARIANT_RACY_ITS: YAMR_LAUNCH(YAMR_VARIANT_RACY_ITS); break;
    case YAMR_VARIANT_ATOMIC: YAMR_LAUNCH(YAMR_VARIANT_ATOMIC); break;
    case YAMR_VARIANT_SHARED_TREE: YAMR_LAUNCH(YAMR_VARIANT_SHARED_TREE); break;
    default: YAMR_LAUNCH(YAMR_VARIANT_WARP_SHUFFLE); break;
    }
#undef YAMR_LAUNCH
}

extern "C" yamr_status yamr__gpu_reduce(yamr__gpu *gpu, const yamr__gpu_call *call,
                                        yamr__result *res, char *err, size_t errlen)
{
    YAMR_HIP_TRY(hipSetDevice(gpu->device));
#define YAMR_LAUNCH_DTYPE(D)                                                                   \
    if (gpu->warp_size == 64)                                                                  \
        launch_block<D, 64>(gpu, call);                                                        \
    else                                                                                       \
        launch_block<D, 32>(gpu, call)
    YAMR_DISPATCH_DTYPE(call->dtype, YAMR_LAUNCH_DTYPE)
#undef YAMR_LAUNCH_DTYPE
    YAMR_HIP_TRY(hipGetLastError());
    YAMR_HIP_TRY(hipMemcpyAsync(res, gpu->d_result, sizeof *res, hipMemcpyDeviceToHost, gpu->stream));
    YAMR_HIP_TRY(hipStreamSynchronize(gpu->stream));
    return YAMR_SUCCESS;
}
