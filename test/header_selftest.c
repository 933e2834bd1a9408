/* SPDX-License-Identifier: MIT */
/* The public header compiles alone as C99. */
#include "yamr.h"
