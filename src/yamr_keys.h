/*
 * Order-preserving keys: the one encoding every backend reduces.
 *
 * Each element maps to an unsigned key such that the answer of MAX, MIN, ARGMAX and ARGMIN under
 * either NaN policy is the element with the largest key, the smallest index winning ties:
 *  - non-NaN floats: sign-magnitude bits flipped into unsigned order, -0.0 first made +0.0 so
 *    that the zeros tie; integers: the sign bit flipped;
 *  - MIN: the bitwise complement of the MAX key;
 *  - NaN: the top key under YAMR_NAN_PROPAGATE (NaN wins, first NaN by index), the bottom key
 *    (YAMR_KEY_BOTTOM, also the identity) under YAMR_NAN_IGNORE.
 * Keys of non-NaN floats never reach the top or the bottom, so a float reduction whose best key is
 * the bottom saw only NaNs. Integer keys use the whole range; integers have no NaN.
 * Types of up to 32 bits use 32-bit keys; f64 and i64 use 64-bit keys.
 *
 * Plain C, included by the C backend and by the device code; the includer may define
 * YAMR_KEY_FN (the device code makes it host+device).
 */
#ifndef YAMR_KEYS_H
#define YAMR_KEYS_H

#include <stdint.h>

#ifndef YAMR_KEY_FN
#define YAMR_KEY_FN static inline
#endif

#define YAMR_KEY_BOTTOM 0u

YAMR_KEY_FN uint32_t yamr__key_f32(uint32_t bits, int is_min, int nan_ignore)
{
    uint32_t magnitude = bits & 0x7fffffffu;
    if (magnitude > 0x7f800000u) return nan_ignore ? 0u : 0xffffffffu;
    if (magnitude == 0) bits = 0;
    uint32_t ord = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
    return is_min ? ~ord : ord;
}

YAMR_KEY_FN uint64_t yamr__key_f64(uint64_t bits, int is_min, int nan_ignore)
{
    const uint64_t sign = 0x8000000000000000ull;
    uint64_t magnitude = bits & ~sign;
    if (magnitude > 0x7ff0000000000000ull) return nan_ignore ? 0u : ~0ull;
    if (magnitude == 0) bits = 0;
    uint64_t ord = (bits & sign) ? ~bits : (bits | sign);
    return is_min ? ~ord : ord;
}

/* binary16 and bfloat16 differ only in where infinity sits. The 16-bit order lives in the low
 * half of a 32-bit key; the complement for MIN stays inside (0, top). */
YAMR_KEY_FN uint32_t yamr__key_half(uint32_t bits, uint32_t inf_bits, int is_min, int nan_ignore)
{
    uint32_t magnitude = bits & 0x7fffu;
    if (magnitude > inf_bits) return nan_ignore ? 0u : 0xffffffffu;
    if (magnitude == 0) bits = 0;
    uint32_t ord = (bits & 0x8000u) ? (~bits & 0xffffu) : (bits | 0x8000u);
    return is_min ? (0xffffu - ord) + 1u : ord + 1u;
}
#define YAMR_F16_INF 0x7c00u
#define YAMR_BF16_INF 0x7f80u

YAMR_KEY_FN uint32_t yamr__key_i32(uint32_t bits, int is_min)
{
    uint32_t ord = bits ^ 0x80000000u;
    return is_min ? ~ord : ord;
}

YAMR_KEY_FN uint32_t yamr__key_u32(uint32_t bits, int is_min) { return is_min ? ~bits : bits; }

YAMR_KEY_FN uint64_t yamr__key_i64(uint64_t bits, int is_min)
{
    uint64_t ord = bits ^ 0x8000000000000000ull;
    return is_min ? ~ord : ord;
}

#endif /* YAMR_KEYS_H */
