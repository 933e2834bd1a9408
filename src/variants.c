/* SPDX-License-Identifier: MIT */
/* The variant registry and AUTO's selection. Tests and benchmarks iterate over the same table. */
#include <stddef.h>

#include "yamr_internal.h"

const yamr__variant_info yamr__variants[] = {
#define YAMR__VARIANT_ROW(id, name, widths, flags, correctness)                                \
    {id, name, widths, flags, correctness},
    YAMR__VARIANT_TABLE(YAMR__VARIANT_ROW)
#undef YAMR__VARIANT_ROW
};
const int yamr__variant_count = (int)(sizeof yamr__variants / sizeof yamr__variants[0]);

const yamr__variant_info *yamr__variant_lookup(yamr_variant v)
{
    for (int i = 0; i < yamr__variant_count; ++i)
        if (yamr__variants[i].id == v) return &yamr__variants[i];
    return NULL;
}

static unsigned warp_width_bit(int warp_size)
{
    return (warp_size == 32 || warp_size == 64) ? (unsigned)warp_size : 0u;
}

int yamr__variant_runs_on(const yamr__variant_info *v, const yamr_device_info *dev, yamr_op op,
                          yamr_dtype dtype)
{
    if (dev->vendor == YAMR_VENDOR_CPU || (v->flags & YAMR__LAB_ONLY)) return 0;
    if (!(v->warp_widths & warp_width_bit(dev->warp_size))) return 0;
    if ((v->flags & YAMR__F32_MAX_ONLY) && !(op == YAMR_OP_MAX && dtype == YAMR_DTYPE_F32))
        return 0;
    return 1;
}

const yamr__variant_info *yamr__select_variant(const yamr_device_info *dev, yamr_op op,
                                               yamr_dtype dtype, int one_block,
                                               const char **reason)
{
    /* first the ONE_BLOCK_FIRST rows (for a one-block call), then every row, in order */
    for (int pass = one_block ? 0 : 1; pass < 2; ++pass)
        for (int i = 0; i < yamr__variant_count; ++i) {
            const yamr__variant_info *v = &yamr__variants[i];
            if (v->flags & YAMR__RACY) continue;
            if (pass == 0 && !(v->flags & YAMR__ONE_BLOCK_FIRST)) continue;
            if (!yamr__variant_runs_on(v, dev, op, dtype)) continue;
            *reason = v->correctness;
            return v;
        }
    *reason = dev->vendor == YAMR_VENDOR_CPU ? "the CPU backend has one algorithm"
                                              : "no variant is built for this warp width";
    return NULL;
}
