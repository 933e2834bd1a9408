/* SPDX-License-Identifier: MIT */
/* The calling thread's current GPU, for tests that check that a call leaves it as it found it. */
#ifndef YAMR_TEST_CURRENT_DEVICE_H
#define YAMR_TEST_CURRENT_DEVICE_H

#ifdef __cplusplus
extern "C" {
#endif

/* The current GPU ordinal; -1 when the runtime cannot say (or in a build without a GPU). */
int test_current_device(void);
/* 0 when `device` is now current. */
int test_set_current_device(int device);

#ifdef __cplusplus
}
#endif

#endif
