/* SPDX-License-Identifier: MIT */
/*
 * What the MPI layer's exchange costs by itself, against MPI_MAXLOC: MPI_Allreduce of 40-byte
 * cells (mpi/yamr_mpi.c's layout) with a user-defined operation, the datatype and operation
 * made once, made per call, or looked up per call as a communicator attribute; the operation
 * declared commutative or not; 2, 3 and 65 cells. Built beside yamr-bench where the MPI layer
 * is (it links MPI only), for docs/performance.md ("MPI"):
 *
 *     mpiexec -n 2 build/bench/yamr-mpi-exchange-cost 5000
 *
 * Each rep: MPI_Barrier, then one call timed by MPI_Wtime; the rep's time is the slowest rank's;
 * the cases alternate within a rep. Prints the median and minimum in microseconds.
 */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    uint64_t a, b, c, d;
    int32_t status, kind;
} cell;

static void merge(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const cell *x = (const cell *)in;
    cell *y = (cell *)inout;
    for (int i = 0; i < *len; ++i)
        if (x[i].a > y[i].a) y[i] = x[i];
}

static void make(MPI_Datatype *type, MPI_Op *op, int commute)
{
    const int lengths[6] = {1, 1, 1, 1, 1, 1};
    const MPI_Aint displacements[6] = {offsetof(cell, a), offsetof(cell, b),
                                       offsetof(cell, c), offsetof(cell, d),
                                       offsetof(cell, status), offsetof(cell, kind)};
    const MPI_Datatype types[6] = {MPI_UINT64_T, MPI_UINT64_T, MPI_UINT64_T,
                                   MPI_UINT64_T, MPI_INT32_T,  MPI_INT32_T};
    MPI_Datatype packed;
    MPI_Type_create_struct(6, lengths, displacements, types, &packed);
    MPI_Type_create_resized(packed, 0, sizeof(cell), type);
    MPI_Type_free(&packed);
    MPI_Type_commit(type);
    MPI_Op_create(merge, commute, op);
}

static int compare(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum { MAXLOC, COMMUTATIVE_2, ORDERED_2, COMMUTATIVE_3, PER_CALL_2, ATTRIBUTE_2, ORDERED_65,
       CASES };
static const char *const names[CASES] = {
    "MPI_FLOAT_INT MAXLOC", "2 cells, commutative", "2 cells, rank order",
    "3 cells, commutative", "2 cells, made per call", "2 cells, attribute lookup",
    "65 cells, rank order"};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const int reps = argc > 1 ? atoi(argv[1]) : 3000, warmup = 200;
    MPI_Datatype type;
    MPI_Op commutative, ordered;
    make(&type, &commutative, 1);
    MPI_Datatype ordered_type;
    make(&ordered_type, &ordered, 0);
    int keyval;
    static int attribute;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, &attribute);
    double *t = (double *)malloc(sizeof(double) * CASES * (size_t)reps);
    double *slowest = (double *)malloc(sizeof(double) * CASES * (size_t)reps);
    for (int i = -warmup; i < reps; ++i)
        for (int k = 0; k < CASES; ++k) {
            cell cells[65] = {{0}};
            struct {
                float value;
                int index;
            } mine = {(float)rank, rank}, best;
            for (int j = 0; j < 65; ++j) cells[j].a = (uint64_t)(rank + j);
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = MPI_Wtime();
            switch (k) {
            case MAXLOC:
                MPI_Allreduce(&mine, &best, 1, MPI_FLOAT_INT, MPI_MAXLOC, MPI_COMM_WORLD);
                break;
            case COMMUTATIVE_2:
                MPI_Allreduce(MPI_IN_PLACE, cells, 2, type, commutative, MPI_COMM_WORLD);
                break;
            case ORDERED_2:
                MPI_Allreduce(MPI_IN_PLACE, cells, 2, ordered_type, ordered, MPI_COMM_WORLD);
                break;
            case COMMUTATIVE_3:
                MPI_Allreduce(MPI_IN_PLACE, cells, 3, type, commutative, MPI_COMM_WORLD);
                break;
            case PER_CALL_2: {
                MPI_Datatype fresh_type;
                MPI_Op fresh_op;
                make(&fresh_type, &fresh_op, 0);
                MPI_Allreduce(MPI_IN_PLACE, cells, 2, fresh_type, fresh_op, MPI_COMM_WORLD);
                MPI_Op_free(&fresh_op);
                MPI_Type_free(&fresh_type);
                break;
            }
            case ATTRIBUTE_2: {
                void *value;
                int found;
                MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &value, &found);
                MPI_Allreduce(MPI_IN_PLACE, cells, 2, ordered_type, ordered, MPI_COMM_WORLD);
                break;
            }
            default:
                MPI_Allreduce(MPI_IN_PLACE, cells, 65, ordered_type, ordered, MPI_COMM_WORLD);
                break;
            }
            if (i >= 0) t[k * reps + i] = (MPI_Wtime() - t0) * 1e6;
        }
    MPI_Reduce(t, slowest, CASES * reps, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%d ranks, %d reps: median and min, us\n", ranks, reps);
        for (int k = 0; k < CASES; ++k) {
            double *s = slowest + (size_t)k * reps;
            qsort(s, (size_t)reps, sizeof *s, compare);
            printf("%-28s %8.3f %8.3f\n", names[k], s[reps / 2], s[0]);
        }
    }
    MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
    MPI_Comm_free_keyval(&keyval);
    MPI_Op_free(&commutative);
    MPI_Op_free(&ordered);
    MPI_Type_free(&type);
    MPI_Type_free(&ordered_type);
    free(t);
    free(slowest);
    MPI_Finalize();
    return 0;
}
