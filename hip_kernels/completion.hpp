/* SPDX-License-Identifier: MIT */
/*
 * Completion, an output policy of the write: how a call's kernel hands its answers over and how
 * the host learns that it is done, by the plan's policy row (src/policy.h, `done`), the same
 * code for every launcher:
 *  - ANSWER (GRID rows): a synchronous call's kernel stores its answers as marked words in mapped
 *    host memory (answer_words.hpp), which the host zeroes before the launch and polls after it;
 *  - SLOT (SINGLE_BLOCK rows): the kernel writes the mapped result slots; a synchronous call reads
 *    them once the stream is done, an asynchronous one copies them on the stream to the caller's
 *    device memory;
 *  - STREAM (the batched shapes): the kernel writes the caller's device memory; a synchronous
 *    call waits on the stream.
 * An asynchronous ANSWER or STREAM call's kernel writes the caller's device memory, and the call
 * returns at the launch.
 */
#ifndef YAMR_COMPLETION_HPP
#define YAMR_COMPLETION_HPP

#include <string.h>

#include "answer_words.hpp"
#include "gpu.h"

struct yamr__completion {
    int done; /* YAMR__DONE_* of the plan's row */
    bool synchronous;
    int slots; /* answers a call has: 2 for min+max */
    /* an asynchronous call's outputs (device memory), per slot; an index may be NULL */
    void *const *value_out;
    int64_t *const *index_out;
    size_t esize; /* bytes of a value */
};

/* The completion of a call by `plan` (its row's `done`). */
static inline yamr__completion yamr__completion_of(const yamr_plan *plan, bool synchronous,
                                                   int slots, void *const *value_out = NULL,
                                                   int64_t *const *index_out = NULL,
                                                   size_t esize = 0)
{
    const int done = yamr__policy_row((int)YAMR__PLAN_POLICY(plan))->done;
    return {done, synchronous, slots, value_out, index_out, esize};
}

/* Before the launch: no answer word of a synchronous ANSWER call holds the mark until its kernel
 * stores it (the last call's kernel stored all of its words before that call returned). */
static inline void yamr__completion_begin(const yamr__gpu *gpu, const yamr__completion &c)
{
    if (c.done == YAMR__DONE_ANSWER && c.synchronous)
        memset(gpu->h_answer, 0, (size_t)c.slots * YAMR__ANSWER_WORDS * sizeof *gpu->h_answer);
}

/* Where slot k's answer of a best accumulator goes: the answer words of a synchronous ANSWER
 * call, else the caller's device memory. */
static inline yamr__best_output yamr__completion_output(const yamr__gpu *gpu,
                                                        const yamr__completion &c, int k)
{
    if (c.done == YAMR__DONE_ANSWER && c.synchronous)
        return {NULL, NULL, gpu->d_answer + k * YAMR__ANSWER_WORDS};
    return {c.value_out[k], (long long *)c.index_out[k], NULL};
}

/* Polls of the answer between two looks at the stream (a few microseconds of polling). */
#define YAMR__ANSWER_POLLS 4096

/*
 * Waits until the call's kernel has stored its answer's words (yamr__store_answer) and takes
 * them into res. A kernel that fails never stores them: the stream's state, asked every
 * YAMR__ANSWER_POLLS polls, ends the wait with its error, or with an error of its own if the
 * stream ran dry with no answer.
 */
static inline yamr_status yamr__wait_for_answer(const yamr__gpu *gpu, int slots,
                                                yamr__result *res, char *err, size_t errlen)
{
    for (unsigned polls = 1;; ++polls) {
        if (yamr__take_answers(gpu->h_answer, slots, res)) return YAMR_SUCCESS;
        if (polls % YAMR__ANSWER_POLLS) continue;
        const hipError_t e = hipStreamQuery(gpu->stream);
        if (e == hipErrorNotReady) continue;
        YAMR_HIP_TRY(e, err, errlen);
        if (yamr__take_answers(gpu->h_answer, slots, res)) return YAMR_SUCCESS;
        snprintf(err, errlen, "the grid-wide kernel ended without its answer");
        return YAMR_ERROR_DEVICE;
    }
}

/* The mapped result slots: copied on the stream to the caller's device memory (asynchronous),
 * else read once the stream is done. */
static inline yamr_status yamr__take_slots(yamr__gpu *gpu, const yamr__completion &c,
                                           yamr__result *res, char *err, size_t errlen)
{
    if (!c.synchronous) {
        for (int k = 0; k < c.slots; ++k) {
            YAMR_HIP_TRY(hipMemcpyAsync(c.value_out[k], &gpu->d_result[k].value_bits, c.esize,
                                        hipMemcpyDefault, gpu->stream),
                         err, errlen);
            if (c.index_out[k])
                YAMR_HIP_TRY(hipMemcpyAsync(c.index_out[k], &gpu->d_result[k].index,
                                            sizeof(int64_t), hipMemcpyDefault, gpu->stream),
                             err, errlen);
        }
        return YAMR_SUCCESS;
    }
    YAMR_HIP_TRY(hipStreamSynchronize(gpu->stream), err, errlen);
    for (int k = 0; k < c.slots; ++k) res[k] = gpu->h_result[k];
    return YAMR_SUCCESS;
}

/* After the launch: the launch's error, then the row's completion (res: a synchronous ANSWER or
 * SLOT call's answers; NULL for the others). */
static inline yamr_status yamr__complete(yamr__gpu *gpu, const yamr__completion &c,
                                         yamr__result *res, char *err, size_t errlen)
{
    YAMR_HIP_TRY(hipGetLastError(), err, errlen);
    switch (c.done) {
    case YAMR__DONE_ANSWER:
        return c.synchronous ? yamr__wait_for_answer(gpu, c.slots, res, err, errlen)
                             : YAMR_SUCCESS;
    case YAMR__DONE_SLOT: return yamr__take_slots(gpu, c, res, err, errlen);
    default: /* STREAM */
        if (c.synchronous) YAMR_HIP_TRY(hipStreamSynchronize(gpu->stream), err, errlen);
        return YAMR_SUCCESS;
    }
}

#endif /* YAMR_COMPLETION_HPP */
