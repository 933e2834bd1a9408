/* SPDX-License-Identifier: MIT */
/* yamr-bench mpi in a build without the MPI layer (YAMR_WITH_MPI off, or no MPI found). */
#include <stdio.h>

#include "cli.h"
#include "commands.h"

int run_mpi(int argc, char **argv)
{
    (void)argc, (void)argv;
    return cli_refuse("mpi", "this build has no MPI layer (configure with MPI installed, or "
                             "-DYAMR_WITH_MPI=ON)");
}
