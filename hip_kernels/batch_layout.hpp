/* SPDX-License-Identifier: MIT */
/* What a kernel is given besides its input and its output: the split workspace, the arguments,
 * and the layouts that say where row (or segment) r starts and how long it is. */
#ifndef YAMR_BATCH_LAYOUT_HPP
#define YAMR_BATCH_LAYOUT_HPP

#include <limits.h>

#include "dtype_traits.hpp"
#include "yamr_internal.h"

/* The split kernel's device memory, owned by the context (runtime.hip). */
struct yamr__split_workspace {
    /* At least YAMR__ROWS_SPLIT_MAX_PARTIALS partials of YAMR__SPLIT_PARTIAL_WORDS slots each
     * (the largest Acc::partial), the blocks of all rows together; every slot empty (all ones)
     * between launches */
    unsigned long long *partials;
    unsigned int *rows_done; /* [YAMR__ROWS_SPLIT_MAX_ROWS], 0 between launches */
};

/* Everything a kernel needs besides the input, the layout and the output. */
struct yamr__batch_args {
    int is_min, nan_ignore;
    int vectorize; /* `in` is aligned to its element: 16-byte loads between boundaries */
    int blocks_per_row; /* split kernel */
    yamr__split_workspace ws;
};

/* ---- Layouts: where row r starts and how long it is. ---- */

struct yamr__matrix_layout {
    long long ld, cols;
    __device__ inline void extent(long long r, long long &begin, long long &length) const
    {
        begin = r * ld;
        length = cols;
    }
};

/* A decreasing pair of offsets is an empty segment: no element outside [begin, end) is read. */
struct yamr__segment_layout {
    const long long *offsets;
    __device__ inline void extent(long long s, long long &begin, long long &length) const
    {
        begin = offsets[s];
        const long long end = offsets[s + 1];
        /* in unsigned arithmetic: no pair of offsets overflows ({-1, LLONG_MAX} is 2^63) */
        const unsigned long long span = (unsigned long long)end - (unsigned long long)begin;
        length = end <= begin                          ? 0
                 : span > (unsigned long long)LLONG_MAX ? LLONG_MAX
                                                        : (long long)span;
    }
};

#endif /* YAMR_BATCH_LAYOUT_HPP */
