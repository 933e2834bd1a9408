/* Per-dtype device traits: the storage type read from memory and its order-preserving key. */
#ifndef YAMR_DTYPE_TRAITS_HPP
#define YAMR_DTYPE_TRAITS_HPP

#include "yamr_port.h"

#define YAMR_KEY_FN __host__ __device__ static inline
#include "yamr_keys.h"

template <yamr_dtype T>
struct yamr_dtype_traits;

#define YAMR_DTYPE_TRAITS(dtype, Storage, Key, key_expr)                                       \
    template <>                                                                                \
    struct yamr_dtype_traits<dtype> {                                                          \
        typedef Storage storage;                                                               \
        typedef Key key;                                                                       \
        __device__ static inline Key to_key(Storage b, int is_min, int nan_ignore)             \
        {                                                                                      \
            (void)nan_ignore;                                                                  \
            return key_expr;                                                                   \
        }                                                                                      \
    };

YAMR_DTYPE_TRAITS(YAMR_DTYPE_F32, uint32_t, uint32_t, yamr__key_f32(b, is_min, nan_ignore))
YAMR_DTYPE_TRAITS(YAMR_DTYPE_F64, uint64_t, unsigned long long,
                  yamr__key_f64(b, is_min, nan_ignore))
YAMR_DTYPE_TRAITS(YAMR_DTYPE_F16, uint16_t, uint32_t,
                  yamr__key_half(b, YAMR_F16_INF, is_min, nan_ignore))
YAMR_DTYPE_TRAITS(YAMR_DTYPE_BF16, uint16_t, uint32_t,
                  yamr__key_half(b, YAMR_BF16_INF, is_min, nan_ignore))
YAMR_DTYPE_TRAITS(YAMR_DTYPE_I32, uint32_t, uint32_t, yamr__key_i32(b, is_min))
YAMR_DTYPE_TRAITS(YAMR_DTYPE_U32, uint32_t, uint32_t, yamr__key_u32(b, is_min))
YAMR_DTYPE_TRAITS(YAMR_DTYPE_I64, uint64_t, unsigned long long, yamr__key_i64(b, is_min))

#undef YAMR_DTYPE_TRAITS

template <yamr_dtype Dtype>
__device__ constexpr bool yamr_dtype_is_float()
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
