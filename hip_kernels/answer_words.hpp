/* SPDX-License-Identifier: MIT */
/* The answer words: the write of a GRID row's synchronous call (completion ANSWER, src/policy.h),
 * stored by the kernel (yamr__store_answer) and taken by the host (yamr__take_answers,
 * completion.hpp). */
#ifndef YAMR_ANSWER_WORDS_HPP
#define YAMR_ANSWER_WORDS_HPP

#include "yamr_internal.h"
#include "yamr_port.h"

/*
 * A synchronous grid-wide call's answer goes to mapped host memory that the host polls
 * (completion.hpp): per slot, YAMR__ANSWER_WORDS 64-bit words holding the 32-bit halves of the
 * index and of the element's bits, each with YAMR__ANSWER_MARK in its high half. The host zeroes
 * a call's words before its launch, and a word is stored whole, so the answer is complete once
 * every word carries the mark, and no store waits for another (a flag after a system-scope
 * release did: docs/performance.md).
 */
#define YAMR__ANSWER_WORDS 4
#define YAMR__ANSWER_MARK 0x79616d72ull /* "yamr"; any value but 0 */

__device__ inline void yamr__store_answer(unsigned long long *words, long long index,
                                          unsigned long long bits)
{
    const unsigned long long mark = YAMR__ANSWER_MARK << 32;
    const unsigned long long u = (unsigned long long)index;
    yamr__store_host_word(words + 0, mark | (u & 0xffffffffu));
    yamr__store_host_word(words + 1, mark | (u >> 32));
    yamr__store_host_word(words + 2, mark | (bits & 0xffffffffu));
    yamr__store_host_word(words + 3, mark | (bits >> 32));
}

/* Whether every word of `slots` answers carries the mark; the answers in res[0, slots) if so. */
static inline bool yamr__take_answers(const unsigned long long *words, int slots,
                                      yamr__result *res)
{
    unsigned long long w[2 * YAMR__ANSWER_WORDS];
    for (int k = 0; k < slots * YAMR__ANSWER_WORDS; ++k) {
        w[k] = __atomic_load_n(words + k, __ATOMIC_RELAXED);
        if (w[k] >> 32 != YAMR__ANSWER_MARK) return false;
    }
    for (int s = 0; s < slots; ++s) {
        const unsigned long long *x = w + s * YAMR__ANSWER_WORDS;
        res[s].index = (int64_t)((x[0] & 0xffffffffu) | (x[1] << 32));
        res[s].value_bits = (x[2] & 0xffffffffu) | (x[3] << 32);
    }
    return true;
}

#endif /* YAMR_ANSWER_WORDS_HPP */
