/* SPDX-License-Identifier: MIT */
/*
 * yamr over MPI: reductions of one array (or of column-split rows) spread over the ranks of a
 * communicator, with the semantics of one context on the whole data.
 *
 * Built when CMake finds MPI (option YAMR_WITH_MPI); target yamr::mpi
 * (`find_package(yamr COMPONENTS mpi)`), pkg-config module yamr-mpi. Uses only yamr.h and MPI.
 *
 * Semantics: every result equals, bit for bit, what one context with the same NaN policy gives
 * on the concatenated array (or the whole rows): the first global index on ties, whichever rank
 * holds it; -0.0 == +0.0 with the element at the first index reported; YAMR_NAN_PROPAGATE gives
 * the first NaN and its global index, YAMR_NAN_IGNORE skips NaNs and gives NaN and -1 when every
 * element is NaN. Softmax sums agree to rounding (they are merged in double:
 * m = max(m1, m2), s = s1 * exp(m1 - m) + s2 * exp(m2 - m)). Global indices are 64-bit.
 * Every rank receives the same result.
 *
 * Collective calls: every rank of `comm` calls the same function, each with its own context
 * (one rank per GPU; ranks may share a GPU, each with its own context). A rank that calls
 * another yamr_mpi_* function than the others gets YAMR_ERROR_INVALID_VALUE, as every rank does.
 *
 * CPU threads: on a CPU context the local call runs on at most max(1, cores the process may run
 * on / ranks of comm on its node) threads, so that the ranks of a node do not oversubscribe
 * it, unless OMP_NUM_THREADS is set or yamr_set_cpu_threads() capped the context
 * (docs/cluster.md, "Ranks and threads on one node").
 *
 * Errors: a bad argument on any rank (NULL pointers, a total size of 0, an enum out of range,
 * ld < cols_local, a size that overflows int64_t), or ranks that disagree on op, dtype, rows or
 * NaN policy, give the same status on every rank (the largest status code any rank saw,
 * YAMR_ERROR_INVALID_VALUE for a disagreement), write nothing on any rank, and leave no rank
 * waiting. So does a failure of the local yamr call or of an allocation on one rank (out of
 * memory, a device error): the failing rank joins the exchange with its status. A failed MPI
 * call gives YAMR_ERROR_COMMUNICATION (MPI calls fail with a status only under the
 * MPI_ERRORS_RETURN error handler; MPI's default aborts the job). The rows functions compute the
 * local answers into the context's scratch memory (yamr_context_scratch()) and write their
 * outputs only once the exchange has shown that every rank succeeded; a device error while
 * writing them, after the exchange, is reported on the rank where it happened only.
 *
 * Cost: each call makes one MPI_Allreduce of 65 40-byte cells (the status and agreement check
 * with the candidates, a user-defined operation applied in rank order, so that no table of local
 * sizes travels) and allocates nothing. Every function posts that count whatever its arguments
 * (MPI needs every rank to post the same count, and ranks that disagree on the function or
 * rows must not hang): reduce and minmax pad their answers to it, the rows functions send up to
 * 64 rows in it. A rows call with more rows sends the rest in a second MPI_Allreduce once the
 * first has shown that the ranks agree, and allocates host memory for them. The rows functions'
 * copies are those of the local call plus an MPI_Allreduce of the row answers: the local
 * answers to the host, the merged ones back. The context's scratch memory, about 16 bytes a row,
 * is allocated on a context's first rows call and again only when `rows` grows past what it
 * holds; it stays with the context until yamr_destroy(). The first call on a communicator also
 * splits it by node (MPI_Comm_split_type), once, for the thread count above.
 */
#ifndef YAMR_MPI_H
#define YAMR_MPI_H

#include <mpi.h>

#include "yamr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Collective over comm. Rank r holds elements [offset_r, offset_r + n_local) of one global
 * array, offset_r = the sum of n_local over the ranks below r in comm. Every rank receives the
 * result; `value`/`index` are host memory as for yamr_reduce(). The global index counts from 0
 * over the whole array. n_local may be 0 on some ranks (then `in` may be NULL). */
YAMR_API yamr_status yamr_mpi_reduce(yamr_context *ctx, MPI_Comm comm, yamr_op op,
                                     yamr_dtype dtype, const void *in, size_t n_local,
                                     void *value, int64_t *index);
/* yamr_minmax() over comm: both values required, either index may be NULL. */
YAMR_API yamr_status yamr_mpi_minmax(yamr_context *ctx, MPI_Comm comm, yamr_dtype dtype,
                                     const void *in, size_t n_local, void *min_value,
                                     int64_t *min_index, void *max_value, int64_t *max_index);
/* A rows x cols matrix split by columns: rank r holds columns [col_offset_r, col_offset_r +
 * cols_local) of every row, row-major with leading dimension ld, where col_offset_r = the sum of
 * cols_local below r. Outputs (`rows` entries each) live in the context's memory, as for
 * yamr_reduce_rows(); indices are global column indices. cols_local may be 0 on some ranks. */
YAMR_API yamr_status yamr_mpi_reduce_rows(yamr_context *ctx, MPI_Comm comm, yamr_op op,
                                          yamr_dtype dtype, const void *in, size_t rows,
                                          size_t cols_local, size_t ld, void *values,
                                          int64_t *indices);
/* Softmax statistics of column-split rows (vocabulary-parallel logsumexp), the (max, sum) pairs
 * of all ranks merged in one data exchange: row_max and row_sum as yamr_softmax_stats_rows()
 * would give for the whole rows (dtype F32 or F64; row_max and row_sum in the context's
 * memory). */
YAMR_API yamr_status yamr_mpi_softmax_stats_rows(yamr_context *ctx, MPI_Comm comm,
                                                 yamr_dtype dtype, const void *in, size_t rows,
                                                 size_t cols_local, size_t ld, void *row_max,
                                                 void *row_sum);

/*
 * Top-k of column-split rows (the split of yamr_mpi_reduce_rows()): values and indices as
 * yamr_topk_rows() would give for the whole rows (rows x k each, in the context's memory; indices
 * may be NULL for MAX/MIN), indices global column indices. A rank may hold fewer than k columns,
 * or none; k must not exceed the total of cols_local (YAMR_ERROR_INVALID_VALUE on every rank).
 * Errors as for the other calls (k is agreed on too); rows x k above 2^31 - 1, on one rank or
 * all together, gives YAMR_ERROR_UNSUPPORTED (MPI counts are ints).
 * Cost: the local yamr_topk_rows() into the context's scratch memory, then, besides the
 * status exchange, an MPI_Allgather of cols_local, an MPI_Allreduce that agrees on the host
 * allocations, and an MPI_Allgatherv of every rank's lists (16 bytes an entry, rows x
 * min(k, cols_local) entries a rank), which every rank merges.
 */
YAMR_API yamr_status yamr_mpi_topk_rows(yamr_context *ctx, MPI_Comm comm, yamr_op op,
                                        yamr_dtype dtype, const void *in, size_t rows,
                                        size_t cols_local, size_t ld, size_t k, void *values,
                                        int64_t *indices);

#ifdef __cplusplus
}
#endif

#endif /* YAMR_MPI_H */
