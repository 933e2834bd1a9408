/* SPDX-License-Identifier: MIT */
// yamr_mpi.h compiles alone as C++.
#include "yamr_mpi.h"
