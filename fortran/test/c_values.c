/* SPDX-License-Identifier: MIT */
/* The C values of every constant the Fortran module mirrors, in the order test_fortran.f90
 * lists them, so that a change to an enum in yamr.h that the module misses fails the test. */
#include <yamr.h>

int yamr_ftest_c_constants(int *out, int capacity);
void yamr_ftest_c_version(int *major, int *minor, int *patch);

int yamr_ftest_c_constants(int *out, int capacity)
{
    const int values[] = {
        YAMR_DEVICE_CPU,
        YAMR_SUCCESS, YAMR_ERROR_INVALID_VALUE, YAMR_ERROR_NO_DEVICE, YAMR_ERROR_UNSUPPORTED,
        YAMR_ERROR_OUT_OF_MEMORY, YAMR_ERROR_DEVICE,
        YAMR_NAN_PROPAGATE, YAMR_NAN_IGNORE,
        YAMR_VARIANT_AUTO, YAMR_VARIANT_RACY, YAMR_VARIANT_RACY_VOLATILE, YAMR_VARIANT_RACY_ITS,
        YAMR_VARIANT_ATOMIC, YAMR_VARIANT_SHARED_TREE, YAMR_VARIANT_WARP_SHUFFLE,
        YAMR_DTYPE_F32, YAMR_DTYPE_F64, YAMR_DTYPE_F16, YAMR_DTYPE_BF16, YAMR_DTYPE_I32,
        YAMR_DTYPE_U32, YAMR_DTYPE_I64,
        YAMR_OP_MAX, YAMR_OP_MIN, YAMR_OP_ARGMAX, YAMR_OP_ARGMIN,
        YAMR_VENDOR_CPU, YAMR_VENDOR_NVIDIA, YAMR_VENDOR_AMD,
        (int)sizeof(yamr_device_info),
    };
    const int count = (int)(sizeof values / sizeof values[0]);
    for (int i = 0; i < count && i < capacity; ++i) out[i] = values[i];
    return count;
}

/* The version in the header this test was compiled with, for yamr_version() to match. */
void yamr_ftest_c_version(int *major, int *minor, int *patch)
{
    *major = YAMR_VERSION_MAJOR;
    *minor = YAMR_VERSION_MINOR;
    *patch = YAMR_VERSION_PATCH;
}
