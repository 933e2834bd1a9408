/* SPDX-License-Identifier: MIT */
/* The element at p[i] as a key in 16, 32 or 64 bits, in yamr_keys.h's split form (flip: 0 for
 * MAX, all ones for MIN; nan_key: what a NaN becomes), for the CPU backend's scans. */
#ifndef YAMR_CPU_KEYS_H
#define YAMR_CPU_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "cpu_backend.h"
#include "yamr_keys.h"

YAMR__CPU_INLINE uint16_t yamr__cpu_key16(yamr_dtype t, const void *p, size_t i, uint16_t flip,
                                uint16_t nan_key)
{
    const uint16_t bits = ((const uint16_t *)p)[i];
    const int nan = yamr__is_nan_half(bits, t == YAMR_DTYPE_BF16 ? YAMR_BF16_INF : YAMR_F16_INF);
    const uint16_t nan_mask = (uint16_t)(0u - (unsigned)nan);
    return (uint16_t)(((yamr__ord_half16(bits) ^ flip) & ~nan_mask) | (nan_key & nan_mask));
}

YAMR__CPU_INLINE uint32_t yamr__cpu_key32(yamr_dtype t, const void *p, size_t i, uint32_t flip,
                                uint32_t nan_key)
{
    const uint32_t bits = ((const uint32_t *)p)[i];
    if (t == YAMR_DTYPE_U32) return bits ^ flip;
    if (t == YAMR_DTYPE_I32) return yamr__ord_i32(bits) ^ flip;
    const uint32_t nan_mask = 0u - (uint32_t)yamr__is_nan_f32(bits);
    return ((yamr__ord_f32(bits) ^ flip) & ~nan_mask) | (nan_key & nan_mask);
}

YAMR__CPU_INLINE uint64_t yamr__cpu_key64(yamr_dtype t, const void *p, size_t i, uint64_t flip,
                                uint64_t nan_key)
{
    const uint64_t bits = ((const uint64_t *)p)[i];
    if (t == YAMR_DTYPE_I64) return yamr__ord_i64(bits) ^ flip;
    const uint64_t nan_mask = 0u - (uint64_t)yamr__is_nan_f64(bits);
    return ((yamr__ord_f64(bits) ^ flip) & ~nan_mask) | (nan_key & nan_mask);
}

#endif /* YAMR_CPU_KEYS_H */
