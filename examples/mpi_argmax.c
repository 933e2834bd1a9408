/* SPDX-License-Identifier: MIT */
/*
 * The argmax of one array spread over the ranks of MPI_COMM_WORLD, one GPU per rank, with yamr's
 * MPI layer (yamr_mpi.h). Uses only the public API; links yamr::mpi.
 *
 *     mpiexec -n 4 ./yamr_example_mpi_argmax [n_local]
 *
 * Each rank picks its GPU from its node-local rank (MPI_Comm_split_type with
 * MPI_COMM_TYPE_SHARED) modulo the GPUs it can open, and uses the CPU backend when there are
 * none. Rank r holds elements [r * n_local, (r + 1) * n_local) of x[i] = -|i - peak| with the
 * peak near the end of the array, so the answer is known: the peak's global index (a 64-bit
 * index: it may exceed what one rank holds, and the total may exceed 2^31).
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "yamr.h"
#include "yamr_mpi.h"

/* node-local rank modulo the number of GPUs; YAMR_DEVICE_CPU when yamr opens none */
static int pick_device(MPI_Comm comm)
{
    MPI_Comm node;
    int local_rank = 0, count = 0;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_free(&node);
    for (yamr_context *probe; count < 64 && yamr_create(&probe, count) == YAMR_SUCCESS; ++count)
        yamr_destroy(probe);
    return count ? local_rank % count : YAMR_DEVICE_CPU;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    /* every rank reads the same argv, so all refuse alike (and none waits in a collective) */
    size_t n_local = 1000000;
    if (argc > 1) {
        char *end = NULL;
        const long long n = strtoll(argv[1], &end, 10);
        if (argc > 2 || end == argv[1] || *end || n < 1 || n > (1ll << 40)) {
            if (rank == 0)
                fprintf(stderr, "usage: mpiexec -n R %s [n_local]: n_local is the elements per "
                                "rank, a whole number in 1..2^40 (default 1000000), not '%s'\n",
                        argv[0], argc > 2 ? argv[2] : argv[1]);
            MPI_Finalize();
            return 2;
        }
        n_local = (size_t)n;
    }
    const int64_t total = (int64_t)n_local * ranks, peak = total - total / 7 - 1;

    yamr_context *ctx = NULL;
    const int device = pick_device(MPI_COMM_WORLD);
    yamr_status s = yamr_create(&ctx, device);
    float *host = (float *)malloc(n_local * sizeof *host);
    void *in = NULL;
    if (s == YAMR_SUCCESS && !host) s = YAMR_ERROR_OUT_OF_MEMORY;
    if (s == YAMR_SUCCESS) {
        for (size_t i = 0; i < n_local; ++i) {
            const int64_t global = (int64_t)rank * (int64_t)n_local + (int64_t)i;
            const int64_t distance = global > peak ? global - peak : peak - global;
            host[i] = distance ? -(float)distance : 0.0f; /* +0.0 at the peak */
        }
        s = yamr_device_alloc(ctx, n_local * sizeof *host, &in);
    }
    if (s == YAMR_SUCCESS) s = yamr_copy_to_device(ctx, in, host, n_local * sizeof *host);
    if (s != YAMR_SUCCESS) {
        fprintf(stderr, "rank %d: %s\n", rank, yamr_status_string(s));
        MPI_Abort(MPI_COMM_WORLD, 1); /* the others are about to wait in the collective */
    }

    float max = 0.0f;
    int64_t index = -1;
    s = yamr_mpi_reduce(ctx, MPI_COMM_WORLD, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, in, n_local, &max,
                        &index);
    if (rank == 0) {
        yamr_device_info info;
        yamr_get_device_info(ctx, &info);
        printf("%d ranks x %zu elements on %s: argmax %g at %lld (expected 0 at %lld): %s\n",
               ranks, n_local, info.name, max, (long long)index, (long long)peak,
               yamr_status_string(s));
    }
    const int ok = s == YAMR_SUCCESS && max == 0.0f && index == peak;
    yamr_device_free(ctx, in);
    yamr_destroy(ctx);
    free(host);
    MPI_Finalize();
    return ok ? 0 : 1;
}
