/* The variant registry and AUTO's selection. Tests and benchmarks iterate over the same table. */
#include <stddef.h>

#include "yamr_internal.h"

#define W32 32u
#define W64 64u

/* In AUTO's order of preference: the in-block cycles measured on an H100 (docs/variants.md), fastest
 * first. RACY rows come last and are never picked. */
const yamr__variant_info yamr__variants[] = {
    {YAMR_VARIANT_ATOMIC, "atomic", W32 | W64, 0,
     "atomic max on an order-preserving key is exact whatever the interleaving"},
    {YAMR_VARIANT_WARP_SHUFFLE, "warp_shuffle", W32 | W64, 0,
     "shuffles move values between lanes of one warp; barriers order the per-warp results"},
    {YAMR_VARIANT_SHARED_TREE, "shared_tree", W32 | W64, 0,
     "a barrier (or a warp barrier in the last warp) separates every tree level"},
    {YAMR_VARIANT_RACY_ITS, "racy_its", W32 | W64, 0,
     "racy loop, then a block-wide vote after a barrier retries until no thread holds a larger key"},
    {YAMR_VARIANT_RACY_VOLATILE, "racy_volatile", W32 | W64, YAMR__RACY,
     "wrong in 2-9% of multi-warp blocks on an H100: a stale store lands after another warp's last check"},
    {YAMR_VARIANT_RACY, "racy", W32 | W64, YAMR__RACY | YAMR__F32_MAX_ONLY,
     "the seed kernel as written: the compiler keeps the shared value in a register; wrong in 97-100%"},
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
    if (dev->vendor == YAMR_VENDOR_CPU) return 0;
    if (!(v->warp_widths & warp_width_bit(dev->warp_size))) return 0;
    if ((v->flags & YAMR__F32_MAX_ONLY) && !(op == YAMR_OP_MAX && dtype == YAMR_DTYPE_F32))
        return 0;
    return 1;
}

const yamr__variant_info *yamr__select_variant(const yamr_device_info *dev, yamr_op op,
                                               yamr_dtype dtype, const char **reason)
{
    for (int i = 0; i < yamr__variant_count; ++i) {
        const yamr__variant_info *v = &yamr__variants[i];
        if (v->flags & YAMR__RACY) continue;
        if (!yamr__variant_runs_on(v, dev, op, dtype)) continue;
        *reason = v->correctness;
        return v;
    }
    *reason = dev->vendor == YAMR_VENDOR_CPU ? "the CPU backend has one algorithm"
                                              : "no variant is built for this warp width";
    return NULL;
}
