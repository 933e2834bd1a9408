/* The CPU backend: one pass over the keys of yamr_keys.h, any n. */
#include <string.h>

#include "yamr_internal.h"
#include "yamr_keys.h"

uint64_t yamr__host_key(yamr_dtype t, const void *in, size_t i, int is_min, int nan_ignore)
{
    const unsigned char *p = (const unsigned char *)in + i * yamr_dtype_size(t);
    uint16_t b16;
    uint32_t b32;
    uint64_t b64;
    switch (t) {
    case YAMR_DTYPE_F32: memcpy(&b32, p, 4); return yamr__key_f32(b32, is_min, nan_ignore);
    case YAMR_DTYPE_F64: memcpy(&b64, p, 8); return yamr__key_f64(b64, is_min, nan_ignore);
    case YAMR_DTYPE_F16:
        memcpy(&b16, p, 2);
        return yamr__key_half(b16, YAMR_F16_INF, is_min, nan_ignore);
    case YAMR_DTYPE_BF16:
        memcpy(&b16, p, 2);
        return yamr__key_half(b16, YAMR_BF16_INF, is_min, nan_ignore);
    case YAMR_DTYPE_I32: memcpy(&b32, p, 4); return yamr__key_i32(b32, is_min);
    case YAMR_DTYPE_U32: memcpy(&b32, p, 4); return yamr__key_u32(b32, is_min);
    case YAMR_DTYPE_I64: memcpy(&b64, p, 8); return yamr__key_i64(b64, is_min);
    }
    return YAMR_KEY_BOTTOM;
}

void yamr__cpu_reduce(yamr_dtype t, int is_min, int nan_ignore, const void *in, size_t n,
                      yamr__result *res)
{
    uint64_t best = yamr__host_key(t, in, 0, is_min, nan_ignore);
    size_t best_index = 0;
    for (size_t i = 1; i < n; ++i) {
        uint64_t k = yamr__host_key(t, in, i, is_min, nan_ignore);
        if (k > best) { /* strictly greater: the first index keeps ties */
            best = k;
            best_index = i;
        }
    }
    res->key = best;
    res->index = (int64_t)best_index;
    res->value_bits = 0;
    memcpy(&res->value_bits, (const unsigned char *)in + best_index * yamr_dtype_size(t),
           yamr_dtype_size(t));
}
