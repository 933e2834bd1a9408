/* SPDX-License-Identifier: MIT */
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

/*
 * The same keys split in two, for loops that compilers vectorize (the CPU backend): for a MAX
 * key `flip` is 0, for a MIN key all ones, and
 *     key = is_nan ? (nan_ignore ? 0 : all ones) : ord ^ flip,
 * ord being the MAX order of a non-NaN value. For f32, f64, i32, u32 and i64 that is the key
 * of the functions above. Halves keep 16-bit keys (yamr__ord_half16), so that a vector holds as
 * many keys as elements: a non-NaN key is its yamr__key_half key minus 1, in the same order, and
 * stays inside (0, 0xffff) (ord runs from -inf's 0x03ff, bf16 0x007f, to +inf's 0xfc00, bf16
 * 0xff80). test_cpu checks every form against the functions above.
 */
YAMR_KEY_FN uint32_t yamr__ord_f32(uint32_t bits)
{
    const uint32_t b = (bits & 0x7fffffffu) ? bits : 0u; /* -0.0 as +0.0 */
    return b ^ ((0u - (b >> 31)) | 0x80000000u);
}
YAMR_KEY_FN int yamr__is_nan_f32(uint32_t bits) { return (bits & 0x7fffffffu) > 0x7f800000u; }

YAMR_KEY_FN uint64_t yamr__ord_f64(uint64_t bits)
{
    const uint64_t b = (bits & 0x7fffffffffffffffull) ? bits : 0u;
    return b ^ ((0u - (b >> 63)) | 0x8000000000000000ull);
}
YAMR_KEY_FN int yamr__is_nan_f64(uint64_t bits)
{
    return (bits & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
}

/* 16-bit operations only, so that halves are processed as 16-bit lanes. */
YAMR_KEY_FN uint16_t yamr__ord_half16(uint16_t bits)
{
    const uint16_t b = (bits & 0x7fffu) ? bits : (uint16_t)0;
    return (uint16_t)(b ^ ((uint16_t)(0u - (b >> 15)) | 0x8000u));
}
YAMR_KEY_FN int yamr__is_nan_half(uint16_t bits, uint16_t inf_bits)
{
    return (bits & 0x7fffu) > inf_bits;
}

YAMR_KEY_FN uint32_t yamr__ord_i32(uint32_t bits) { return bits ^ 0x80000000u; }
YAMR_KEY_FN uint64_t yamr__ord_i64(uint64_t bits) { return bits ^ 0x8000000000000000ull; }

#endif /* YAMR_KEYS_H */
