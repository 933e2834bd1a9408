/* SPDX-License-Identifier: MIT */
/*
 * yamr over MPI (include/yamr_mpi.h): the local answer from yamr's public API, then one
 * MPI_Allreduce of self-describing 40-byte cells with a user-defined operation that MPI applies
 * in rank order.
 *
 * Cells, each merged with its counterpart from the other ranks by its own kind (MPI may hand the
 * operation any slice of the buffer, so no cell depends on another):
 *  - AGREE: the status (largest wins), a word every rank must agree on, kept as max(word) and
 *    max(~word) (the ranks agree when the two are complements), and the total size (a sum).
 *  - ARG: a candidate (order key, value bits, index) and the number of elements of the span of
 *    ranks it stands for. The key is yamr's own order-preserving key (src/yamr_keys.h, a header
 *    of inline functions), so the order across ranks is the order within a context.
 *  - SOFTMAX: a (max, sum) pair in double, merged as in yamr_softmax_stats_rows().
 *  - NONE: padding, left alone.
 *
 * Why the operation is declared non-commutative. A global index is the winner's local index
 * plus the sizes of the ranks below it. With a commutative operation MPI may merge any subsets
 * of ranks in any order, and a partial result cannot know the sizes of the ranks below its
 * winner that are not in its subset: every cell would have to carry the whole table of local
 * sizes (ranks / 3 cells; the first version of this file did so), or a second exchange an
 * exclusive prefix sum. Declared non-commutative, MPI combines the contributions in rank order
 * (MPI 4.0, 6.9.5: `in` holds lower ranks than `inout`, any bracketing): an ARG cell then stands
 * for a contiguous span of ranks, and the merge of a left span and a right span is the left's
 * winner on ties or when better (the smallest global index), else the right's winner with its
 * index shifted by the left span's size. No buffer depends on the communicator's size: reduce
 * and minmax send 2 or 3 cells from the stack at any number of ranks (2-rank cost in
 * docs/performance.md, "MPI").
 *
 * Every local failure (an argument the layer or the local yamr call refuses, a failed host or
 * scratch allocation, a device error) becomes this rank's status in the AGREE cell of the first
 * exchange. Every function posts that exchange with the same count (YAMR__FIRST_CELLS), whatever
 * its arguments, so a rank that passes another op, dtype or size, or calls another function,
 * still meets the others there: every rank gets the same status and none waits. Only an
 * exchange after that one, once every rank knows that all agree, has a size that depends on the
 * arguments.
 *
 * CPU threads: ranks of one node share its cores. On a CPU context with no thread cap of the
 * user's (yamr_set_cpu_threads(), OMP_NUM_THREADS), the local call runs on at most
 * max(1, cores this process may run on / ranks of comm on this node) threads.
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "yamr_keys.h"
#include "yamr_mpi.h"

typedef enum {
    YAMR__CELL_NONE = 0,
    YAMR__CELL_AGREE,
    YAMR__CELL_ARG,
    YAMR__CELL_SOFTMAX
} yamr__cell_kind;

typedef struct {
    uint64_t a;     /* AGREE: max word; ARG: key; SOFTMAX: bits of the max */
    uint64_t b;     /* AGREE: max ~word; ARG: value bits; SOFTMAX: bits of the sum */
    uint64_t c;     /* AGREE: total size; ARG: index within the span */
    uint64_t d;     /* ARG: elements in the span (0: no candidate) */
    int32_t status; /* AGREE: the status */
    int32_t kind;   /* yamr__cell_kind */
} yamr__mpi_cell;

/* Rows that travel in the one exchange; a call with more sends the rest in a second (see
 * rows_common for why the count is fixed). */
#define YAMR__ROWS_INLINE 64
/* The count of the first exchange of every function: the agreement and the inline rows (reduce
 * and minmax pad their two answers to it). */
#define YAMR__FIRST_CELLS (1 + YAMR__ROWS_INLINE)
/* A size sum past INT64_MAX: saturates, so that the sum stays associative. */
#define YAMR__SIZE_OVERFLOW UINT64_MAX

/* ---- The merge ---- */

static uint64_t add_sizes(uint64_t x, uint64_t y)
{
    const uint64_t limit = (uint64_t)INT64_MAX;
    return x > limit || y > limit || x + y > limit ? YAMR__SIZE_OVERFLOW : x + y;
}

static double bits_to_double(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static uint64_t double_to_bits(double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return bits;
}

/* left: the lower ranks' span; right (the result): the higher ranks' span, adjacent to it. */
static void arg_merge(const yamr__mpi_cell *left, yamr__mpi_cell *right)
{
    if (left->d == 0) return;
    if (right->d != 0 && right->a > left->a) {
        right->c = add_sizes(left->d, right->c);
    } else { /* ties go left: the smaller global index */
        right->a = left->a;
        right->b = left->b;
        right->c = left->c;
    }
    right->d = add_sizes(left->d, right->d);
}

/* A pair that counted no element: an empty part, or NaNs only under YAMR_NAN_IGNORE (sum 0). */
static int softmax_empty(double s) { return s == 0; }

/* A NaN under YAMR_NAN_PROPAGATE: the sum is NaN. */
static int softmax_poisoned(double m, double s) { return isnan(s) || (isnan(m) && s != 0); }

static void softmax_merge(const yamr__mpi_cell *left, yamr__mpi_cell *right)
{
    const double ml = bits_to_double(left->a), sl = bits_to_double(left->b);
    const double mr = bits_to_double(right->a), sr = bits_to_double(right->b);
    if (softmax_poisoned(ml, sl) || softmax_poisoned(mr, sr)) {
        if (softmax_poisoned(ml, sl)) *right = *left; /* the first NaN */
        return;
    }
    if (softmax_empty(sl) || softmax_empty(sr)) {
        if (softmax_empty(sr) && !softmax_empty(sl)) *right = *left;
        return;
    }
    const double m = ml >= mr ? ml : mr; /* equal maxima (-0.0, +0.0): the first */
    /* exp(x - m) is exactly 1 for a part whose max is m (also when m is +-inf) */
    const double s = (ml == m ? sl : sl * exp(ml - m)) + (mr == m ? sr : sr * exp(mr - m));
    right->a = double_to_bits(m);
    right->b = double_to_bits(s);
}

/* inout[i] = in[i] o inout[i], `in` from the lower ranks (a non-commutative MPI_Op). */
static void merge_cells(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const yamr__mpi_cell *x = (const yamr__mpi_cell *)in;
    yamr__mpi_cell *y = (yamr__mpi_cell *)inout;
    for (int i = 0; i < *len; ++i) {
        switch (y[i].kind) {
        case YAMR__CELL_AGREE:
            if (x[i].a > y[i].a) y[i].a = x[i].a;
            if (x[i].b > y[i].b) y[i].b = x[i].b;
            y[i].c = add_sizes(x[i].c, y[i].c);
            if (x[i].status > y[i].status) y[i].status = x[i].status;
            break;
        case YAMR__CELL_ARG: arg_merge(&x[i], &y[i]); break;
        case YAMR__CELL_SOFTMAX: softmax_merge(&x[i], &y[i]); break;
        default: break;
        }
    }
}

/*
 * ---- The exchange's datatype and operation: one immutable pair per process ----
 * They describe a C struct and a C function, the same for every communicator, context, device
 * and thread, so they are process-wide constants rather than state: made once (pthread_once) at
 * the first call, never changed, and freed by MPI_Finalize (which deletes MPI_COMM_SELF's
 * attributes first, while MPI still works; one of them is ours). Made per call they cost as much
 * as the exchange itself; cached per communicator they would need a process-wide keyval all the
 * same (docs/performance.md, "MPI", has the numbers).
 */

typedef struct {
    MPI_Datatype cell;
    MPI_Op merge;
    int threads_keyval; /* a communicator's thread share (threads_for()), cached on it */
    int made; /* 1 when all are usable */
} exchange;

static exchange yamr__mpi_exchange = {MPI_DATATYPE_NULL, MPI_OP_NULL, MPI_KEYVAL_INVALID, 0};
static pthread_once_t yamr__mpi_exchange_once = PTHREAD_ONCE_INIT;

static int free_exchange(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)value;
    (void)extra;
    /* copies: the process-wide handles keep their values; no call may follow MPI_Finalize */
    MPI_Op merge = yamr__mpi_exchange.merge;
    MPI_Datatype cell = yamr__mpi_exchange.cell;
    int threads_keyval = yamr__mpi_exchange.threads_keyval;
    MPI_Op_free(&merge);
    MPI_Type_free(&cell);
    MPI_Comm_free_keyval(&threads_keyval); /* attributes still set keep it until they go */
    MPI_Comm_free_keyval(&keyval);
    return MPI_SUCCESS;
}

static void make_exchange(void)
{
    const int lengths[6] = {1, 1, 1, 1, 1, 1};
    const MPI_Aint displacements[6] = {
        offsetof(yamr__mpi_cell, a), offsetof(yamr__mpi_cell, b), offsetof(yamr__mpi_cell, c),
        offsetof(yamr__mpi_cell, d), offsetof(yamr__mpi_cell, status),
        offsetof(yamr__mpi_cell, kind)};
    const MPI_Datatype types[6] = {MPI_UINT64_T, MPI_UINT64_T, MPI_UINT64_T,
                                   MPI_UINT64_T, MPI_INT32_T,  MPI_INT32_T};
    MPI_Datatype packed, cell = MPI_DATATYPE_NULL;
    MPI_Op merge = MPI_OP_NULL;
    int keyval = MPI_KEYVAL_INVALID;
    int rc = MPI_Type_create_struct(6, lengths, displacements, types, &packed);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Type_create_resized(packed, 0, sizeof(yamr__mpi_cell), &cell);
        MPI_Type_free(&packed);
    }
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&cell);
    if (rc == MPI_SUCCESS) rc = MPI_Op_create(merge_cells, 0 /* in rank order */, &merge);
    int threads_keyval = MPI_KEYVAL_INVALID;
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
                                    &threads_keyval, NULL);
    yamr__mpi_exchange.cell = cell;
    yamr__mpi_exchange.merge = merge;
    yamr__mpi_exchange.threads_keyval = threads_keyval;
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_exchange, &keyval, NULL);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL);
    yamr__mpi_exchange.made = rc == MPI_SUCCESS;
}

/* One MPI_Allreduce of `count` cells in place; YAMR_ERROR_COMMUNICATION when MPI fails, or could
 * not make the datatype and operation (an MPI that cannot make a struct type is broken; there is
 * no way to tell the other ranks). */
static yamr_status exchange_cells(MPI_Comm comm, yamr__mpi_cell *cells, int count)
{
    pthread_once(&yamr__mpi_exchange_once, make_exchange);
    const exchange *x = &yamr__mpi_exchange;
    if (!x->made ||
        MPI_Allreduce(MPI_IN_PLACE, cells, count, x->cell, x->merge, comm) != MPI_SUCCESS)
        return YAMR_ERROR_COMMUNICATION;
    return YAMR_SUCCESS;
}

/* ---- CPU threads: the ranks of a node share its cores ---- */

/* The threads one rank of comm may use: the cores this process may run on, shared with comm's
 * other ranks on this node. Found by a collective (MPI_Comm_split_type) at the first call on
 * comm, which every function makes before its exchange, and cached on comm. */
static int threads_for(MPI_Comm comm)
{
    const exchange *x = &yamr__mpi_exchange;
    void *cached = NULL;
    int flag = 0;
    if (!x->made) return 1;
    if (MPI_Comm_get_attr(comm, x->threads_keyval, &cached, &flag) == MPI_SUCCESS && flag)
        return (int)(intptr_t)cached;
    int cores = 0;
#ifdef CPU_COUNT
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) cores = CPU_COUNT(&set);
#endif
    if (cores < 1) cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    int local_ranks = 1;
    MPI_Comm node;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_size(node, &local_ranks);
        MPI_Comm_free(&node);
    }
    const int threads = local_ranks > 0 && cores / local_ranks > 1 ? cores / local_ranks : 1;
    MPI_Comm_set_attr(comm, x->threads_keyval, (void *)(intptr_t)threads);
    return threads;
}

/* Caps a CPU context's threads at the rank's share for one local call, unless the user chose a
 * count (a cap of their own, or OMP_NUM_THREADS). Returns 1 when it set the cap, which
 * uncap() then lifts. */
static int cap_threads(yamr_context *ctx, int threads)
{
    int set = 0;
    const char *omp = getenv("OMP_NUM_THREADS");
    if (!ctx || (omp && *omp) || yamr_get_cpu_threads(ctx, &set) != YAMR_SUCCESS || set != 0)
        return 0;
    return yamr_set_cpu_threads(ctx, threads) == YAMR_SUCCESS;
}

static void uncap(yamr_context *ctx, int capped)
{
    if (capped) yamr_set_cpu_threads(ctx, 0);
}

/* ---- Building and reading cells ---- */

static int dtype_is_float(yamr_dtype t)
{
    return t == YAMR_DTYPE_F32 || t == YAMR_DTYPE_F64 || t == YAMR_DTYPE_F16 ||
           t == YAMR_DTYPE_BF16;
}

/* The key yamr's backends give the element `bits` (little-endian, as the value outputs hold). */
static uint64_t key_of(yamr_dtype t, uint64_t bits, int is_min, int nan_ignore)
{
    switch (t) {
    case YAMR_DTYPE_F32: return yamr__key_f32((uint32_t)bits, is_min, nan_ignore);
    case YAMR_DTYPE_F64: return yamr__key_f64(bits, is_min, nan_ignore);
    case YAMR_DTYPE_F16: return yamr__key_half((uint32_t)bits, YAMR_F16_INF, is_min, nan_ignore);
    case YAMR_DTYPE_BF16: return yamr__key_half((uint32_t)bits, YAMR_BF16_INF, is_min, nan_ignore);
    case YAMR_DTYPE_I32: return yamr__key_i32((uint32_t)bits, is_min);
    case YAMR_DTYPE_U32: return yamr__key_u32((uint32_t)bits, is_min);
    case YAMR_DTYPE_I64: return yamr__key_i64(bits, is_min);
    }
    return 0;
}

/* The word every rank must agree on: which call, op, dtype, NaN policy (enums as passed, so a
 * value out of range disagrees too) and rows (below 2^32: the rows functions check). */
static uint64_t call_word(int call, int op, int dtype, int nan_policy, uint64_t rows)
{
    return (uint64_t)(call & 0xff) << 56 | (uint64_t)(op & 0xff) << 48 |
           (uint64_t)(dtype & 0xff) << 40 | (uint64_t)(nan_policy & 0xff) << 32 |
           (rows & 0xffffffffu);
}

enum { CALL_REDUCE = 1, CALL_MINMAX, CALL_ROWS, CALL_SOFTMAX, CALL_TOPK };

/* This rank's status, its word and its local size (counted only when the rank succeeded). */
static yamr__mpi_cell agree_cell(uint64_t word, yamr_status status, uint64_t size)
{
    yamr__mpi_cell c = {word, ~word, status == YAMR_SUCCESS ? size : 0, 0, (int32_t)status,
                        YAMR__CELL_AGREE};
    return c;
}

/* The merged status: the largest any rank had; else YAMR_ERROR_INVALID_VALUE when the words
 * disagree or the total size is 0 or beyond INT64_MAX. */
static yamr_status read_agree(const yamr__mpi_cell *c)
{
    if (c->status != YAMR_SUCCESS) return (yamr_status)c->status;
    if (c->a != ~c->b || c->c == 0 || c->c == YAMR__SIZE_OVERFLOW) return YAMR_ERROR_INVALID_VALUE;
    return YAMR_SUCCESS;
}

static yamr__mpi_cell no_candidate(void)
{
    yamr__mpi_cell c = {YAMR_KEY_BOTTOM, 0, 0, 0, 0, YAMR__CELL_ARG};
    return c;
}

/* A local answer over `size` elements (value bits, index within the local part; -1 for NaNs
 * only under YAMR_NAN_IGNORE, whose key is the bottom) as a candidate. */
static yamr__mpi_cell arg_cell(yamr_dtype t, int is_min, int nan_ignore, uint64_t bits,
                               int64_t index, uint64_t size)
{
    yamr__mpi_cell c = {key_of(t, bits, is_min, nan_ignore), bits,
                        index < 0 ? 0 : (uint64_t)index, size, 0, YAMR__CELL_ARG};
    return c;
}

/* The winner as (value bits, global index) of one context on the whole data. */
static void read_arg(const yamr__mpi_cell *c, yamr_dtype t, uint64_t *bits, int64_t *index)
{
    *bits = c->b;
    *index = dtype_is_float(t) && c->a == YAMR_KEY_BOTTOM ? -1 /* NaNs only, ignored */
                                                          : (int64_t)c->c;
}

/* The context's NaN policy, 0xff without one (which then disagrees). */
static int nan_policy_of(yamr_context *ctx)
{
    yamr_nan_policy p;
    return ctx && yamr_get_nan_policy(ctx, &p) == YAMR_SUCCESS ? (int)p : 0xff;
}

static void store_value(void *out, yamr_dtype t, uint64_t bits)
{
    memcpy(out, &bits, yamr_dtype_size(t)); /* little-endian, as yamr's backends */
}

/* ---- yamr_mpi_reduce, yamr_mpi_minmax ---- */

/* minmax: two answers (min, then max); else one, of op. The layer checks what it uses itself
 * (context, enums, outputs); the local call checks `in`. */
static yamr_status reduce_common(yamr_context *ctx, MPI_Comm comm, int minmax, yamr_op op,
                                 yamr_dtype dtype, const void *in, size_t n_local,
                                 void *out_value[2], int64_t *out_index[2])
{
    if (comm == MPI_COMM_NULL) return YAMR_ERROR_INVALID_VALUE;
    pthread_once(&yamr__mpi_exchange_once, make_exchange);
    const int threads = threads_for(comm);
    const int answers = minmax ? 2 : 1;
    const int nan = nan_policy_of(ctx);
    yamr_status local = YAMR_SUCCESS;
    const int op_ok = minmax || (unsigned)op < YAMR_OP_COUNT;
    if (!ctx || !op_ok || (unsigned)dtype >= YAMR_DTYPE_COUNT || n_local > (size_t)INT64_MAX ||
        !out_value[0] || (answers == 2 && !out_value[1]) ||
        (!minmax && (op == YAMR_OP_ARGMAX || op == YAMR_OP_ARGMIN) && !out_index[0]))
        local = YAMR_ERROR_INVALID_VALUE;

    yamr__mpi_cell cells[YAMR__FIRST_CELLS];
    yamr__mpi_cell *arg = cells + 1;
    arg[0] = arg[1] = no_candidate();
    for (int k = 1 + answers; k < YAMR__FIRST_CELLS; ++k) {
        const yamr__mpi_cell none = {0, 0, 0, 0, 0, YAMR__CELL_NONE};
        cells[k] = none;
    }
    if (local == YAMR_SUCCESS && n_local > 0) {
        uint64_t bits[2] = {0, 0};
        int64_t index[2] = {-1, -1};
        const int capped = cap_threads(ctx, threads);
        if (minmax)
            local = yamr_minmax(ctx, dtype, in, n_local, &bits[0], &index[0], &bits[1], &index[1]);
        else
            local = yamr_reduce(ctx, op, dtype, in, n_local, &bits[0], &index[0]);
        uncap(ctx, capped);
        for (int k = 0; local == YAMR_SUCCESS && k < answers; ++k) {
            const int is_min = minmax ? k == 0 : (op == YAMR_OP_MIN || op == YAMR_OP_ARGMIN);
            arg[k] = arg_cell(dtype, is_min, nan == YAMR_NAN_IGNORE, bits[k], index[k],
                              (uint64_t)n_local);
        }
    }
    cells[0] = agree_cell(call_word(minmax ? CALL_MINMAX : CALL_REDUCE, minmax ? 0 : (int)op,
                                    (int)dtype, nan, 0),
                          local, (uint64_t)n_local);

    yamr_status s = exchange_cells(comm, cells, YAMR__FIRST_CELLS);
    if (s == YAMR_SUCCESS) s = read_agree(&cells[0]);
    if (s != YAMR_SUCCESS) return s;
    for (int k = 0; k < answers; ++k) {
        uint64_t bits;
        int64_t index;
        read_arg(&arg[k], dtype, &bits, &index);
        store_value(out_value[k], dtype, bits);
        if (out_index[k]) *out_index[k] = index;
    }
    return YAMR_SUCCESS;
}

yamr_status yamr_mpi_reduce(yamr_context *ctx, MPI_Comm comm, yamr_op op, yamr_dtype dtype,
                            const void *in, size_t n_local, void *value, int64_t *index)
{
    void *values[2] = {value, NULL};
    int64_t *indices[2] = {index, NULL};
    return reduce_common(ctx, comm, 0, op, dtype, in, n_local, values, indices);
}

yamr_status yamr_mpi_minmax(yamr_context *ctx, MPI_Comm comm, yamr_dtype dtype, const void *in,
                            size_t n_local, void *min_value, int64_t *min_index, void *max_value,
                            int64_t *max_index)
{
    void *values[2] = {min_value, max_value};
    int64_t *indices[2] = {min_index, max_index};
    return reduce_common(ctx, comm, 1, YAMR_OP_MAX, dtype, in, n_local, values, indices);
}

/* ---- The rows functions ---- */

typedef struct {
    int softmax;
    yamr_op op;
    yamr_dtype dtype;
    const void *in;
    size_t rows, cols_local, ld;
    void *values;     /* values or row_max, context memory */
    void *second;     /* indices or row_sum, context memory; indices may be NULL */
} rows_call;

/* Host memory of one call: the answers on their way (the local ones, then the merged ones). */
typedef struct {
    unsigned char *values, *second;
    yamr__mpi_cell *rest; /* the rows past YAMR__ROWS_INLINE */
} rows_host;

/* Where the second answer starts in the scratch memory: past the values, at an offset as
 * aligned as the runtime's own allocations. */
#define YAMR__SCRATCH_ALIGN 256

static size_t second_size(const rows_call *c)
{
    return c->softmax ? yamr_dtype_size(c->dtype) : sizeof(int64_t);
}

/* The local answers, computed into the context's scratch memory (yamr_context_scratch(): it
 * allocates only on the first call, or when rows grow) and copied to the host. The caller's
 * outputs are not touched: only a call that succeeded on every rank writes them. */
static yamr_status rows_local(yamr_context *ctx, const rows_call *c, const rows_host *h,
                              int threads)
{
    const size_t value_bytes = c->rows * yamr_dtype_size(c->dtype);
    const size_t second_offset =
        (value_bytes + YAMR__SCRATCH_ALIGN - 1) / YAMR__SCRATCH_ALIGN * YAMR__SCRATCH_ALIGN;
    const size_t second_bytes = c->second ? c->rows * second_size(c) : 0;
    void *scratch = NULL;
    yamr_status s = yamr_context_scratch(ctx, second_offset + second_bytes, &scratch);
    if (s != YAMR_SUCCESS) return s;
    void *values = scratch;
    void *second = c->second ? (unsigned char *)scratch + second_offset : NULL;
    const int capped = cap_threads(ctx, threads);
    if (c->softmax)
        s = yamr_softmax_stats_rows(ctx, c->dtype, c->in, c->rows, c->cols_local, c->ld, values,
                                    second);
    else
        s = yamr_reduce_rows(ctx, c->op, c->dtype, c->in, c->rows, c->cols_local, c->ld, values,
                             (int64_t *)second);
    uncap(ctx, capped);
    if (s == YAMR_SUCCESS) s = yamr_copy_to_host(ctx, h->values, values, value_bytes);
    if (s == YAMR_SUCCESS && second) s = yamr_copy_to_host(ctx, h->second, second, second_bytes);
    return s;
}

/* Row r's candidate from this rank's local answers (`have`: there are some). */
static yamr__mpi_cell row_cell(const rows_call *c, int nan, int have, const rows_host *h,
                               size_t r)
{
    const size_t elem = yamr_dtype_size(c->dtype);
    if (c->softmax) {
        double m = -INFINITY, sum = 0; /* an empty part counts no element */
        if (have && c->dtype == YAMR_DTYPE_F64) {
            memcpy(&m, h->values + r * 8, 8);
            memcpy(&sum, h->second + r * 8, 8);
        } else if (have) {
            float m32, s32;
            memcpy(&m32, h->values + r * 4, 4);
            memcpy(&s32, h->second + r * 4, 4);
            m = m32;
            sum = s32;
        }
        const yamr__mpi_cell pair = {double_to_bits(m), double_to_bits(sum), 0, 0, 0,
                                     YAMR__CELL_SOFTMAX};
        return pair;
    }
    if (!have) return no_candidate();
    const int is_min = c->op == YAMR_OP_MIN || c->op == YAMR_OP_ARGMIN;
    uint64_t bits = 0;
    int64_t index = 0; /* MAX, MIN without indices: ties go to the lower rank all the same */
    memcpy(&bits, h->values + r * elem, elem);
    if (c->second) memcpy(&index, h->second + r * 8, 8);
    return arg_cell(c->dtype, is_min, nan == YAMR_NAN_IGNORE, bits, index, c->cols_local);
}

/* The merged row into the host buffers, in the outputs' layout. */
static void read_row(const rows_call *c, const yamr__mpi_cell *cell, const rows_host *h, size_t r)
{
    const size_t elem = yamr_dtype_size(c->dtype);
    if (c->softmax) {
        const double sum = bits_to_double(cell->b);
        const double m = sum == 0 ? NAN : bits_to_double(cell->a); /* NaNs only, ignored */
        if (c->dtype == YAMR_DTYPE_F64) {
            memcpy(h->values + r * 8, &m, 8);
            memcpy(h->second + r * 8, &sum, 8);
        } else {
            const float m32 = (float)m, s32 = (float)sum;
            memcpy(h->values + r * 4, &m32, 4);
            memcpy(h->second + r * 4, &s32, 4);
        }
        return;
    }
    uint64_t bits;
    int64_t index;
    read_arg(cell, c->dtype, &bits, &index);
    memcpy(h->values + r * elem, &bits, elem);
    memcpy(h->second + r * 8, &index, 8);
}

/*
 * One exchange, of a count that does not depend on the arguments. MPI requires every rank to
 * post the same count, and one rank may pass another `rows` than the others (the call must then
 * fail everywhere, not hang or read past a buffer), so the count cannot be `rows`. It is 1 +
 * YAMR__ROWS_INLINE cells on every rank, padded; the agreement in the first cell says whether
 * the rows fit. A call with more rows, once that exchange has told every rank that they agree,
 * sends the rest in a second of rows - YAMR__ROWS_INLINE cells: one exchange cannot carry an
 * unbounded number of rows at a count fixed in advance.
 *
 * The local call runs before the exchange (its answers travel in it), into the context's
 * scratch memory rather than the outputs: the outputs are written only after the exchange has
 * shown that every rank succeeded, so a failure anywhere leaves them as they were. (Computing
 * into the outputs instead needs their old contents saved and put back on failure: two
 * synchronous copies more than a local call and an MPI_Allreduce make; docs/performance.md,
 * "MPI", has what they cost.) A scratch allocation that fails is this rank's local status.
 */
static yamr_status rows_common(yamr_context *ctx, MPI_Comm comm, const rows_call *c)
{
    if (comm == MPI_COMM_NULL) return YAMR_ERROR_INVALID_VALUE;
    pthread_once(&yamr__mpi_exchange_once, make_exchange);
    const int threads = threads_for(comm);
    const int nan = nan_policy_of(ctx);
    const size_t elem = yamr_dtype_size(c->dtype);
    const int needs_second = c->softmax || c->op == YAMR_OP_ARGMAX || c->op == YAMR_OP_ARGMIN;
    yamr_status local = YAMR_SUCCESS;
    /* The rest of the arguments (in, ld, sizes) the local call checks. */
    if (!ctx || (!c->softmax && (unsigned)c->op >= YAMR_OP_COUNT) || elem == 0 || !c->values ||
        (needs_second && !c->second) || c->rows == 0 || c->rows > (size_t)INT32_MAX ||
        c->cols_local > (size_t)INT64_MAX)
        local = YAMR_ERROR_INVALID_VALUE;
    else if (c->softmax && c->dtype != YAMR_DTYPE_F32 && c->dtype != YAMR_DTYPE_F64)
        local = YAMR_ERROR_UNSUPPORTED;

    /* Host memory: on the stack for the rows that travel inline, else one allocation whose
     * failure is this rank's status like any other. */
    const size_t rows = local == YAMR_SUCCESS ? c->rows : 0;
    const size_t extra = rows > YAMR__ROWS_INLINE ? rows - YAMR__ROWS_INLINE : 0;
    yamr__mpi_cell cells[YAMR__FIRST_CELLS];
    uint64_t stack[2][YAMR__ROWS_INLINE]; /* 8 bytes a row each, aligned for any output */
    rows_host h = {(unsigned char *)stack[0], (unsigned char *)stack[1], NULL};
    void *heap = NULL;
    if (extra > 0) {
        heap = malloc(rows * 8 * 2 + extra * sizeof(yamr__mpi_cell));
        if (heap) {
            h.rest = (yamr__mpi_cell *)heap;
            h.values = (unsigned char *)(h.rest + extra);
            h.second = h.values + rows * 8;
        } else {
            local = YAMR_ERROR_OUT_OF_MEMORY;
        }
    }

    const int have = local == YAMR_SUCCESS && c->cols_local > 0;
    if (have) local = rows_local(ctx, c, &h, threads);

    const int call = c->softmax ? CALL_SOFTMAX : CALL_ROWS;
    cells[0] = agree_cell(call_word(call, c->softmax ? 0 : (int)c->op, (int)c->dtype, nan,
                                    (uint64_t)c->rows),
                          local, (uint64_t)c->cols_local);
    const int ok = local == YAMR_SUCCESS;
    for (size_t r = 0; r < YAMR__ROWS_INLINE; ++r) {
        const yamr__mpi_cell none = {0, 0, 0, 0, 0, YAMR__CELL_NONE};
        cells[1 + r] = ok && r < rows ? row_cell(c, nan, have, &h, r) : none;
    }
    for (size_t r = 0; ok && r < extra; ++r)
        h.rest[r] = row_cell(c, nan, have, &h, YAMR__ROWS_INLINE + r);

    yamr_status s = exchange_cells(comm, cells, YAMR__FIRST_CELLS);
    if (s == YAMR_SUCCESS) s = read_agree(&cells[0]);
    /* Every rank now knows that all agree on rows: the same count for the rest. */
    if (s == YAMR_SUCCESS && extra > 0) s = exchange_cells(comm, h.rest, (int)extra);

    if (s == YAMR_SUCCESS) {
        for (size_t r = 0; r < rows; ++r)
            read_row(c, r < YAMR__ROWS_INLINE ? &cells[1 + r] : &h.rest[r - YAMR__ROWS_INLINE],
                     &h, r);
        s = yamr_copy_to_device(ctx, c->values, h.values, rows * elem);
        if (s == YAMR_SUCCESS && c->second)
            s = yamr_copy_to_device(ctx, c->second, h.second, rows * second_size(c));
    }
    free(heap);
    return s;
}

yamr_status yamr_mpi_reduce_rows(yamr_context *ctx, MPI_Comm comm, yamr_op op, yamr_dtype dtype,
                                 const void *in, size_t rows, size_t cols_local, size_t ld,
                                 void *values, int64_t *indices)
{
    const rows_call c = {0, op, dtype, in, rows, cols_local, ld, values, indices};
    return rows_common(ctx, comm, &c);
}

yamr_status yamr_mpi_softmax_stats_rows(yamr_context *ctx, MPI_Comm comm, yamr_dtype dtype,
                                        const void *in, size_t rows, size_t cols_local, size_t ld,
                                        void *row_max, void *row_sum)
{
    const rows_call c = {1, YAMR_OP_MAX, dtype, in, rows, cols_local, ld, row_max, row_sum};
    return rows_common(ctx, comm, &c);
}

/* ---- yamr_mpi_topk_rows ----
 *
 * Each rank's top min(k, cols_local) of every row, by the local yamr_topk_rows() into the
 * context's scratch memory and then to the host, holds every element of its columns that can be
 * in the global top k: the global order (key, then global index) restricted to one rank's
 * columns is the local order. The lists travel whole, so that every rank merges them itself:
 * 1. one exchange of two AGREE cells (the call word, then k; the total of cols_local) with every
 *    local failure in it, as the other calls make;
 * 2. MPI_Allgather of cols_local (the column offsets, and so each rank's list length);
 * 3. the host buffers for all lists and the merged rows, their allocation agreed on by an
 *    MPI_Allreduce of a flag (a rank that could not allocate says so; none waits);
 * 4. MPI_Allgatherv of the lists: rows x min(k, cols_local) (local index, value bits) per rank;
 * 5. per row a merge of the ranks' sorted lists (yamr_keys.h's keys, the smaller global index
 *    on ties), the rest filled as yamr_topk_rows() fills it, written to the outputs.
 */

/* The call word's kind for top-k; other calls use 1 to 4. */

typedef struct {
    int64_t index; /* within the rank's columns; -1: a fill entry (NaNs only, ignored) */
    uint64_t bits;
} topk_entry;

/* What yamr_topk_rows() writes past a row's last element under YAMR_NAN_IGNORE (yamr.h). */
static uint64_t topk_empty_bits(yamr_dtype t)
{
    switch (t) {
    case YAMR_DTYPE_F32: return 0x7fc00000u;
    case YAMR_DTYPE_F64: return 0x7ff8000000000000ull;
    case YAMR_DTYPE_F16: return 0x7e00u;
    case YAMR_DTYPE_BF16: return 0x7fc0u;
    default: return 0;
    }
}

/* This rank's lists into `mine` (rows x k_local entries), through the context's scratch. */
static yamr_status topk_local(yamr_context *ctx, yamr_op op, yamr_dtype dtype, const void *in,
                              size_t rows, size_t cols_local, size_t ld, size_t k_local,
                              topk_entry *mine)
{
    const size_t elem = yamr_dtype_size(dtype), entries = rows * k_local;
    const size_t value_bytes = entries * elem;
    const size_t index_offset =
        (value_bytes + YAMR__SCRATCH_ALIGN - 1) / YAMR__SCRATCH_ALIGN * YAMR__SCRATCH_ALIGN;
    void *scratch = NULL;
    yamr_status s = yamr_context_scratch(ctx, index_offset + entries * 8, &scratch);
    if (s != YAMR_SUCCESS) return s;
    const int is_min = op == YAMR_OP_MIN || op == YAMR_OP_ARGMIN;
    int64_t *scratch_indices = (int64_t *)((unsigned char *)scratch + index_offset);
    s = yamr_topk_rows(ctx, is_min ? YAMR_OP_ARGMIN : YAMR_OP_ARGMAX, dtype, in, rows, cols_local,
                       ld, k_local, scratch, scratch_indices);
    /* the values, then the indices, both staged in `mine` before it is laid out as entries */
    unsigned char *values = (unsigned char *)mine;
    int64_t *indices = (int64_t *)malloc(entries * 8);
    if (s == YAMR_SUCCESS && !indices) s = YAMR_ERROR_OUT_OF_MEMORY;
    if (s == YAMR_SUCCESS) s = yamr_copy_to_host(ctx, values, scratch, value_bytes);
    if (s == YAMR_SUCCESS) s = yamr_copy_to_host(ctx, indices, scratch_indices, entries * 8);
    if (s == YAMR_SUCCESS)
        for (size_t e = entries; e-- > 0;) { /* from the end: an entry is wider than a value */
            uint64_t bits = 0;
            memcpy(&bits, values + e * elem, elem);
            mine[e].index = indices[e];
            mine[e].bits = bits;
        }
    free(indices);
    return s;
}

yamr_status yamr_mpi_topk_rows(yamr_context *ctx, MPI_Comm comm, yamr_op op, yamr_dtype dtype,
                               const void *in, size_t rows, size_t cols_local, size_t ld,
                               size_t k, void *values, int64_t *indices)
{
    if (comm == MPI_COMM_NULL) return YAMR_ERROR_INVALID_VALUE;
    int ranks = 0;
    if (MPI_Comm_size(comm, &ranks) != MPI_SUCCESS) return YAMR_ERROR_COMMUNICATION;
    pthread_once(&yamr__mpi_exchange_once, make_exchange);
    const int threads = threads_for(comm);
    const int nan = nan_policy_of(ctx);
    const size_t elem = (unsigned)dtype < YAMR_DTYPE_COUNT ? yamr_dtype_size(dtype) : 0;
    const int is_min = op == YAMR_OP_MIN || op == YAMR_OP_ARGMIN;
    yamr_status local = YAMR_SUCCESS;
    /* `in` and ld the local call checks */
    if (!ctx || (unsigned)op >= YAMR_OP_COUNT || elem == 0 || !values ||
        ((op == YAMR_OP_ARGMAX || op == YAMR_OP_ARGMIN) && !indices) || rows == 0 ||
        rows > (size_t)INT32_MAX || k == 0 || k > (size_t)INT64_MAX || cols_local > (size_t)INT64_MAX)
        local = YAMR_ERROR_INVALID_VALUE;
    else if (k > (size_t)INT32_MAX / rows) /* MPI counts of entries are ints */
        local = YAMR_ERROR_UNSUPPORTED;

    /* Host memory known before the exchange: this rank's lists and the per-rank tables. */
    const size_t k_local = local == YAMR_SUCCESS ? (cols_local < k ? cols_local : k) : 0;
    topk_entry *mine = NULL;
    uint64_t *cols_all = (uint64_t *)malloc((size_t)ranks * sizeof *cols_all);
    int *counts = (int *)malloc((size_t)ranks * 2 * sizeof *counts);
    size_t *at = (size_t *)malloc((size_t)ranks * sizeof *at); /* the merge's list heads */
    if (local == YAMR_SUCCESS && (!cols_all || !counts || !at)) local = YAMR_ERROR_OUT_OF_MEMORY;
    if (local == YAMR_SUCCESS && k_local > 0) {
        mine = (topk_entry *)malloc(rows * k_local * sizeof *mine);
        const int capped = cap_threads(ctx, threads);
        local = mine ? topk_local(ctx, is_min ? YAMR_OP_ARGMIN : YAMR_OP_ARGMAX, dtype, in, rows,
                                  cols_local, ld, k_local, mine)
                     : YAMR_ERROR_OUT_OF_MEMORY;
        uncap(ctx, capped);
    }

    /* 1. status and agreement: the call word (op, dtype, policy, rows), then k, in the first
     * exchange's count that every function posts */
    yamr__mpi_cell cells[YAMR__FIRST_CELLS];
    cells[0] = agree_cell(call_word(CALL_TOPK, (int)op, (int)dtype, nan, (uint64_t)rows),
                          local, (uint64_t)cols_local);
    cells[1] = agree_cell((uint64_t)k, local, (uint64_t)cols_local);
    for (int c = 2; c < YAMR__FIRST_CELLS; ++c) {
        const yamr__mpi_cell none = {0, 0, 0, 0, 0, YAMR__CELL_NONE};
        cells[c] = none;
    }
    yamr_status s = exchange_cells(comm, cells, YAMR__FIRST_CELLS);
    if (s == YAMR_SUCCESS) s = read_agree(&cells[0]);
    if (s == YAMR_SUCCESS) s = read_agree(&cells[1]);
    if (s == YAMR_SUCCESS && cells[0].c < (uint64_t)k) s = YAMR_ERROR_INVALID_VALUE; /* k > cols */

    /* 2. every rank's columns: the offsets and list lengths, the same on every rank */
    const uint64_t mine_cols = (uint64_t)cols_local;
    if (s == YAMR_SUCCESS &&
        MPI_Allgather(&mine_cols, 1, MPI_UINT64_T, cols_all, 1, MPI_UINT64_T, comm) != MPI_SUCCESS)
        s = YAMR_ERROR_COMMUNICATION;
    size_t total = 0; /* entries of all lists */
    for (int r = 0; s == YAMR_SUCCESS && r < ranks; ++r) {
        const size_t kr = cols_all[r] < k ? (size_t)cols_all[r] : k;
        if (rows * kr > (size_t)INT32_MAX - total) {
            s = YAMR_ERROR_UNSUPPORTED;
            break;
        }
        counts[r] = (int)(rows * kr);
        counts[ranks + r] = (int)total; /* displacements */
        total += rows * kr;
    }

    /* 3. the buffers, agreed on */
    topk_entry *all = NULL;
    unsigned char *out = NULL;
    if (s == YAMR_SUCCESS) {
        all = (topk_entry *)malloc(total * sizeof *all);
        out = (unsigned char *)malloc(rows * k * (elem + 8));
        int failed = !all || !out, any = 0;
        if (MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
            s = YAMR_ERROR_COMMUNICATION;
        else if (any)
            s = YAMR_ERROR_OUT_OF_MEMORY;
    }

    /* 4. the lists */
    if (s == YAMR_SUCCESS) {
        MPI_Datatype entry_type;
        int rc = MPI_Type_contiguous((int)sizeof(topk_entry), MPI_BYTE, &entry_type);
        if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&entry_type);
        if (rc == MPI_SUCCESS) {
            rc = MPI_Allgatherv(mine, (int)(rows * k_local), entry_type, all, counts,
                                counts + ranks, entry_type, comm);
            MPI_Type_free(&entry_type);
        }
        if (rc != MPI_SUCCESS) s = YAMR_ERROR_COMMUNICATION;
    }

    /* 5. the merge of each row's sorted lists, rank by rank in column order */
    if (s == YAMR_SUCCESS) {
        int64_t *out_indices = (int64_t *)out; /* first: aligned for int64_t whatever elem is */
        unsigned char *out_values = out + rows * k * sizeof *out_indices;
        const int nan_ignore = nan == YAMR_NAN_IGNORE;
        const uint64_t empty = topk_empty_bits(dtype);
        for (size_t row = 0; row < rows; ++row) {
            for (int r = 0; r < ranks; ++r) at[r] = 0;
            for (size_t j = 0; j < k; ++j) {
                int best = -1;
                uint64_t best_key = 0;
                int64_t best_index = 0;
                uint64_t offset = 0;
                for (int r = 0; r < ranks; offset += cols_all[r], ++r) {
                    const size_t kr = (size_t)counts[r] / rows;
                    if (at[r] >= kr) continue;
                    const topk_entry *e = all + counts[ranks + r] + row * kr + at[r];
                    if (e->index < 0) continue; /* the rest of this list is fill */
                    const uint64_t key = key_of(dtype, e->bits, is_min, nan_ignore);
                    const int64_t index = e->index + (int64_t)offset;
                    /* ranks come in column order: an equal key keeps the lower rank's */
                    if (best < 0 || key > best_key) {
                        best = r;
                        best_key = key;
                        best_index = index;
                    }
                }
                uint64_t bits = empty;
                if (best >= 0) {
                    const size_t kr = (size_t)counts[best] / rows;
                    bits = all[counts[ranks + best] + row * kr + at[best]].bits;
                    ++at[best];
                } else {
                    best_index = -1;
                }
                memcpy(out_values + (row * k + j) * elem, &bits, elem); /* little-endian */
                out_indices[row * k + j] = best_index;
            }
        }
        s = yamr_copy_to_device(ctx, values, out_values, rows * k * elem);
        if (s == YAMR_SUCCESS && indices)
            s = yamr_copy_to_device(ctx, indices, out_indices, rows * k * 8);
    }
    free(mine);
    free(cols_all);
    free(counts);
    free(at);
    free(all);
    free(out);
    return s;
}
