/* SPDX-License-Identifier: MIT */
/* yamr_mpi.h compiles alone as C99. */
#include "yamr_mpi.h"
