/* SPDX-License-Identifier: MIT */
/*
 * The policy table at compile time (src/policy.h): the rows as constants, so that a launcher
 * turns the plan's row into a kernel instance whose template arguments are the row's values.
 * yamr__with_policy() is the one switch from a run-time row to a compile-time one; it makes the
 * rows of this build's vendor only. Instances are made per distinct set of values: rows that
 * share their values (sm_70, sm_80 and sm_90; CDNA and RDNA but for the warp width) share them.
 */
#ifndef YAMR_POLICY_HPP
#define YAMR_POLICY_HPP

#include <type_traits>

#include "acc_best.hpp"
#include "acc_softmax.hpp"
#include "policy.h"
#include "yamr_internal.h"
#include "yamr_port.h"

inline constexpr yamr__policy yamr__policy_rows[YAMR__POLICY_COUNT] = {
    YAMR__POLICY_NONE_ROW YAMR__POLICY_TABLE(YAMR__POLICY_INIT)};

constexpr yamr_vendor yamr__family_vendor_cx(int f)
{
#define YAMR__FAMILY_VENDOR(fam, name, vendor, width, basis) f == fam ? vendor:
    return YAMR__FAMILY_TABLE(YAMR__FAMILY_VENDOR) YAMR_VENDOR_CPU;
#undef YAMR__FAMILY_VENDOR
}

constexpr int yamr__family_width_cx(int f)
{
#define YAMR__FAMILY_WIDTH(fam, name, vendor, width, basis) f == fam ? width:
    return YAMR__FAMILY_TABLE(YAMR__FAMILY_WIDTH) 0;
#undef YAMR__FAMILY_WIDTH
}

/* yamr__policy_find() at compile time. */
constexpr int yamr__policy_find_cx(int family, int esize, int acc, int shape)
{
    for (int i = 1; i < YAMR__POLICY_COUNT; ++i) {
        const yamr__policy &p = yamr__policy_rows[i];
        if ((p.families >> family & 1u) && (p.esize == 0 || p.esize == esize) &&
            (p.acc == YAMR__ACC_ANY || p.acc == acc) && p.shape == shape)
            return i;
    }
    return YAMR__POLICY_NONE;
}

/* The warp width of row P's families (one width a row: checked below), its vendor. */
constexpr int yamr__policy_warp_width(int P)
{
    for (int f = 0; f < YAMR__FAMILY_COUNT; ++f)
        if (yamr__policy_rows[P].families >> f & 1u) return yamr__family_width_cx(f);
    return 0;
}

/* Every row: one warp width and one vendor over its families; a GPU row's kernels are written
 * for YAMR__BLOCK_THREADS threads (the single-block row's threads follow its variant). */
constexpr bool yamr__policy_rows_consistent()
{
    for (int P = 1; P < YAMR__POLICY_COUNT; ++P) {
        const yamr__policy &p = yamr__policy_rows[P];
        int vendor = -1;
        for (int f = 0; f < YAMR__FAMILY_COUNT; ++f) {
            if (!(p.families >> f & 1u)) continue;
            if (yamr__family_width_cx(f) != yamr__policy_warp_width(P)) return false;
            if (vendor >= 0 && vendor != (int)yamr__family_vendor_cx(f)) return false;
            vendor = (int)yamr__family_vendor_cx(f);
        }
        const bool gpu = p.shape != YAMR__SHAPE_CPU && p.shape != YAMR__SHAPE_SINGLE_BLOCK;
        if (vendor < 0 || (gpu && p.threads != YAMR__BLOCK_THREADS)) return false;
    }
    return true;
}
static_assert(yamr__policy_rows_consistent(),
              "a policy row spans families of two warp widths or vendors, or has threads other "
              "than YAMR__BLOCK_THREADS");

/* Whether this build makes row P's instances: a GPU row of this build's vendor. */
constexpr bool yamr__policy_built(int P)
{
    for (int f = 0; f < YAMR__FAMILY_COUNT; ++f)
        if (yamr__policy_rows[P].families >> f & 1u)
            return yamr__family_vendor_cx(f) == YAMR_BUILD_VENDOR;
    return false;
}

/* Whether row P is the row of some family of its own for an accumulator of `acc` over elements
 * of `esize` bytes: a launcher instantiates a row only for the accumulators it is found for,
 * which keeps a general row (esize 0) from making instances a specific row above it serves. */
constexpr bool yamr__policy_serves(int P, int esize, int acc)
{
    for (int f = 0; f < YAMR__FAMILY_COUNT; ++f)
        if ((yamr__policy_rows[P].families >> f & 1u) &&
            yamr__policy_find_cx(f, esize, acc, yamr__policy_rows[P].shape) == P)
            return true;
    return false;
}

/* The accumulator kind of Acc (policy.h's YAMR__ACC_*). */
template <typename Acc>
struct yamr__acc_kind;
template <yamr_dtype D, typename I>
struct yamr__acc_kind<yamr__best_acc<D, I>> : std::integral_constant<int, YAMR__ACC_BEST> {
};
template <yamr_dtype D, typename I>
struct yamr__acc_kind<yamr__minmax_acc<D, I>> : std::integral_constant<int, YAMR__ACC_MINMAX> {
};
template <typename T>
struct yamr__acc_kind<yamr__softmax_acc<T>> : std::integral_constant<int, YAMR__ACC_SOFTMAX> {
};

/* Whether row P serves Acc (its element size and kind). */
template <int P, typename Acc>
constexpr bool yamr__policy_serves_acc()
{
    return yamr__policy_serves(P, (int)sizeof(typename Acc::storage), yamr__acc_kind<Acc>::value);
}

/* Calls use(std::integral_constant<int, P>()) for the run-time row `policy` when this build
 * makes its instances; false (nothing called) otherwise. Made from the table. */
template <typename Use>
inline bool yamr__with_policy(int policy, Use &&use)
{
    switch (policy) {
#define YAMR__POLICY_CASE(id, ...)                                                             \
    case YAMR__POLICY_##id:                                                                    \
        if constexpr (yamr__policy_built(YAMR__POLICY_##id)) {                                 \
            use(std::integral_constant<int, YAMR__POLICY_##id>());                             \
            return true;                                                                       \
        }                                                                                      \
        return false;
        YAMR__POLICY_TABLE(YAMR__POLICY_CASE)
#undef YAMR__POLICY_CASE
    default: return false;
    }
}

#endif /* YAMR_POLICY_HPP */
