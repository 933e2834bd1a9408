/* yamr-bench mpi in a build without the MPI layer (YAMR_WITH_MPI off, or no MPI found). */
#include <stdio.h>

#include "bench_common.h"

int run_mpi(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "yamr-bench mpi: this build has no MPI layer (configure with MPI installed, "
                    "or -DYAMR_WITH_MPI=ON)\n");
    return 2;
}
