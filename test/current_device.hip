/* SPDX-License-Identifier: MIT */
/* current_device.h on the GPU runtime. */
#include "current_device.h"
#include "yamr_port.h"

extern "C" int test_current_device(void)
{
    int device = -1;
    return hipGetDevice(&device) == hipSuccess ? device : -1;
}

extern "C" int test_set_current_device(int device)
{
    return hipSetDevice(device) == hipSuccess ? 0 : -1;
}
