/* SPDX-License-Identifier: MIT */
/* current_device.h in a build without a GPU: there is no current GPU. */
#include "current_device.h"

int test_current_device(void) { return -1; }

int test_set_current_device(int device)
{
    (void)device;
    return -1;
}
