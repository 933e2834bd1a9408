/* SPDX-License-Identifier: MIT */
/* The policy table's rows and their lookup (src/policy.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

const yamr__policy yamr__policies[YAMR__POLICY_COUNT] = {
    YAMR__POLICY_NONE_ROW YAMR__POLICY_TABLE(YAMR__POLICY_INIT)};

typedef struct {
    const char *name;
    yamr_vendor vendor;
    int warp_width;
    const char *basis;
} family_info;

static const family_info families[YAMR__FAMILY_COUNT] = {
#define YAMR__FAMILY_ROW(f, name, vendor, width, basis) {name, vendor, width, basis},
    YAMR__FAMILY_TABLE(YAMR__FAMILY_ROW)
#undef YAMR__FAMILY_ROW
};

yamr__family yamr__device_family(const yamr_device_info *dev)
{
    switch (dev->vendor) {
    case YAMR_VENDOR_NVIDIA: {
        /* "sm_86": the major version is every digit but the last */
        const char *digits = strncmp(dev->arch, "sm_", 3) == 0 ? dev->arch + 3 : dev->arch;
        const long cc = strtol(digits, NULL, 10);
        return cc >= 90 ? YAMR__FAMILY_SM90 : cc >= 80 ? YAMR__FAMILY_SM80 : YAMR__FAMILY_SM70;
    }
    case YAMR_VENDOR_AMD:
        return dev->warp_size == 64 ? YAMR__FAMILY_CDNA : YAMR__FAMILY_RDNA;
    default: return YAMR__FAMILY_CPU;
    }
}

const char *yamr__family_name(yamr__family f)
{
    return (unsigned)f < YAMR__FAMILY_COUNT ? families[f].name : "invalid";
}

const char *yamr__family_basis(yamr__family f)
{
    return (unsigned)f < YAMR__FAMILY_COUNT ? families[f].basis : "";
}

int yamr__family_warp_width(yamr__family f)
{
    return (unsigned)f < YAMR__FAMILY_COUNT ? families[f].warp_width : 0;
}

yamr__policy_id yamr__policy_find(yamr__family f, int esize, int acc, int shape)
{
    for (int i = 1; i < YAMR__POLICY_COUNT; ++i) {
        const yamr__policy *p = &yamr__policies[i];
        if ((p->families & YAMR__FAM(f)) && (p->esize == 0 || p->esize == esize) &&
            (p->acc == YAMR__ACC_ANY || p->acc == acc) && p->shape == shape)
            return (yamr__policy_id)i;
    }
    return YAMR__POLICY_NONE;
}

const yamr__policy *yamr__policy_row(int id)
{
    return &yamr__policies[(unsigned)id < YAMR__POLICY_COUNT ? id : 0];
}
