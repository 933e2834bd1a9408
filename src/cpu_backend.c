/* The CPU backend: one pass over the keys of yamr_keys.h, any n. */
#include <string.h>

#include "yamr_internal.h"
#include "yamr_keys.h"

/* One loop per dtype: KEY(bits) gives the key of one element of storage type STORAGE. */
#define YAMR_CPU_SCAN(STORAGE, KEY)                                                            \
    do {                                                                                       \
        const STORAGE *x = (const STORAGE *)in;                                                \
        STORAGE bits = x[0];                                                                   \
        best = KEY;                                                                            \
        for (size_t i = 1; i < n; ++i) {                                                       \
            bits = x[i];                                                                       \
            const uint64_t k = KEY;                                                            \
            if (k > best) { /* strictly greater: the first index keeps ties */                 \
                best = k;                                                                      \
                best_index = i;                                                                \
            }                                                                                  \
        }                                                                                      \
    } while (0)

void yamr__cpu_reduce(yamr_dtype t, int is_min, int nan_ignore, const void *in, size_t n,
                      yamr__result *res)
{
    uint64_t best = YAMR_KEY_BOTTOM;
    size_t best_index = 0;
    switch (t) {
    case YAMR_DTYPE_F32: YAMR_CPU_SCAN(uint32_t, yamr__key_f32(bits, is_min, nan_ignore)); break;
    case YAMR_DTYPE_F64: YAMR_CPU_SCAN(uint64_t, yamr__key_f64(bits, is_min, nan_ignore)); break;
    case YAMR_DTYPE_F16:
        YAMR_CPU_SCAN(uint16_t, yamr__key_half(bits, YAMR_F16_INF, is_min, nan_ignore));
        break;
    case YAMR_DTYPE_BF16:
        YAMR_CPU_SCAN(uint16_t, yamr__key_half(bits, YAMR_BF16_INF, is_min, nan_ignore));
        break;
    case YAMR_DTYPE_I32: YAMR_CPU_SCAN(uint32_t, yamr__key_i32(bits, is_min)); break;
    case YAMR_DTYPE_U32: YAMR_CPU_SCAN(uint32_t, yamr__key_u32(bits, is_min)); break;
    case YAMR_DTYPE_I64: YAMR_CPU_SCAN(uint64_t, yamr__key_i64(bits, is_min)); break;
    }
    /* A float input whose best key is the bottom was all NaN under YAMR_NAN_IGNORE. */
    res->index = yamr__dtype_is_float(t) && best == YAMR_KEY_BOTTOM ? -1 : (int64_t)best_index;
    res->value_bits = 0;
    memcpy(&res->value_bits, (const unsigned char *)in + best_index * yamr_dtype_size(t),
           yamr_dtype_size(t));
}
