/* SPDX-License-Identifier: MIT */
// The public header compiles alone as C++.
#include "yamr.h"
