/*
 * yamr over MPI (include/yamr_mpi.h): the local answer from yamr's public API, then an
 * MPI_Allreduce of self-describing 32-byte cells with a commutative user-defined operation (one
 * for reduce and minmax; the rows functions agree on `rows` first, see rows_common).
 *
 * Cells, each merged with its counterpart from the other ranks by its own kind (MPI may hand the
 * operation any slice of the buffer, so no cell depends on another):
 *  - AGREE: the status (largest wins) and a word every rank must agree on, kept as max(word) and
 *    max(~word): the ranks agree when the two are complements.
 *  - SIZES: three ranks' local sizes (each rank fills its own slot, the merge sums), so that each
 *    rank knows every offset and turns the winner's (rank, local index) into a global index.
 *  - ARG: a candidate (order key, value bits, rank, local index). The largest key wins, then the
 *    smallest (rank, local index), which is the smallest global index since offsets grow with
 *    the rank. The key is yamr's own order-preserving key (src/yamr_keys.h, a header of inline
 *    functions), so the order across ranks is the order within a context.
 *  - SOFTMAX: a (max, sum) pair in double, merged as in yamr_softmax_stats_rows().
 */
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "yamr_keys.h"
#include "yamr_mpi.h"

typedef enum {
    YAMR__CELL_AGREE = 1,
    YAMR__CELL_SIZES,
    YAMR__CELL_ARG,
    YAMR__CELL_SOFTMAX
} yamr__cell_kind;

typedef struct {
    uint64_t a;     /* AGREE: max word; SIZES: slot 0; ARG: key; SOFTMAX: bits of the max */
    uint64_t b;     /* AGREE: max ~word; SIZES: slot 1; ARG: value bits; SOFTMAX: bits of the sum */
    uint64_t c;     /* SIZES: slot 2; ARG: local index */
    int32_t rank;   /* AGREE: status; ARG, SOFTMAX: the rank the candidate came from */
    int32_t kind;   /* yamr__cell_kind */
} yamr__mpi_cell;

#define YAMR__SIZES_PER_CELL 3
#define YAMR__STACK_RANKS 96 /* a multiple of YAMR__SIZES_PER_CELL */
#define YAMR__NO_RANK INT32_MAX

/* ---- The merge ---- */

static uint64_t slot_get(const yamr__mpi_cell *c, int slot)
{
    return slot == 0 ? c->a : slot == 1 ? c->b : c->c;
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

static int arg_better(const yamr__mpi_cell *x, const yamr__mpi_cell *y)
{
    if (x->a != y->a) return x->a > y->a;
    if (x->rank != y->rank) return x->rank < y->rank;
    return x->c < y->c;
}

/* A pair that counted no element: an empty part, or NaNs only under YAMR_NAN_IGNORE (sum 0). */
static int softmax_empty(double m, double s)
{
    (void)m;
    return s == 0;
}

/* A NaN under YAMR_NAN_PROPAGATE: the sum is NaN. */
static int softmax_poisoned(double m, double s) { return isnan(s) || (isnan(m) && s != 0); }

/* Symmetric in x and y bit for bit (ties go to the lower rank), so that every rank, whatever
 * order MPI merges in, ends with the same bits. */
static void softmax_merge(const yamr__mpi_cell *x, yamr__mpi_cell *y)
{
    const double mx = bits_to_double(x->a), sx = bits_to_double(x->b);
    const double my = bits_to_double(y->a), sy = bits_to_double(y->b);
    const int x_first = x->rank < y->rank;
    if (softmax_poisoned(mx, sx) || softmax_poisoned(my, sy)) {
        if (!softmax_poisoned(my, sy) || (softmax_poisoned(mx, sx) && x_first)) *y = *x;
        return;
    }
    if (softmax_empty(mx, sx) || softmax_empty(my, sy)) {
        if (softmax_empty(my, sy) && (!softmax_empty(mx, sx) || x_first)) *y = *x;
        return;
    }
    const double m = (mx > my || (mx == my && x_first)) ? mx : my;
    /* exp(x - m) is exactly 1 for a part whose max is m (also when m is +-inf) */
    const double s = (mx == m ? sx : sx * exp(mx - m)) + (my == m ? sy : sy * exp(my - m));
    y->a = double_to_bits(m);
    y->b = double_to_bits(s);
    if (x_first) y->rank = x->rank;
}

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
            if (x[i].rank > y[i].rank) y[i].rank = x[i].rank;
            break;
        case YAMR__CELL_SIZES:
            y[i].a += x[i].a;
            y[i].b += x[i].b;
            y[i].c += x[i].c;
            break;
        case YAMR__CELL_ARG:
            if (arg_better(&x[i], &y[i])) y[i] = x[i];
            break;
        case YAMR__CELL_SOFTMAX: softmax_merge(&x[i], &y[i]); break;
        default: break;
        }
    }
}

/*
 * ---- The exchange's datatype and operation: made once per process ----
 * They are the same for every communicator, context and thread, and depend on no device, so they
 * are made once (pthread_once) rather than per call, where they cost as much as the exchange of a
 * one-element reduction itself (docs/performance.md, "MPI"). MPI_Finalize frees them: it deletes
 * MPI_COMM_SELF's attributes first, while MPI still works, and one of them is ours.
 */

typedef struct {
    MPI_Datatype cell;
    MPI_Op merge;
    int made; /* 1 when both are usable */
} exchange;

static exchange yamr__mpi_exchange = {MPI_DATATYPE_NULL, MPI_OP_NULL, 0};
static pthread_once_t yamr__mpi_exchange_once = PTHREAD_ONCE_INIT;

static int free_exchange(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)value;
    (void)extra;
    exchange *x = &yamr__mpi_exchange;
    x->made = 0;
    if (x->merge != MPI_OP_NULL) MPI_Op_free(&x->merge);
    if (x->cell != MPI_DATATYPE_NULL) MPI_Type_free(&x->cell);
    MPI_Comm_free_keyval(&keyval);
    return MPI_SUCCESS;
}

static void make_exchange(void)
{
    const int lengths[5] = {1, 1, 1, 1, 1};
    const MPI_Aint displacements[5] = {
        offsetof(yamr__mpi_cell, a), offsetof(yamr__mpi_cell, b), offsetof(yamr__mpi_cell, c),
        offsetof(yamr__mpi_cell, rank), offsetof(yamr__mpi_cell, kind)};
    const MPI_Datatype types[5] = {MPI_UINT64_T, MPI_UINT64_T, MPI_UINT64_T, MPI_INT32_T,
                                   MPI_INT32_T};
    exchange *x = &yamr__mpi_exchange;
    MPI_Datatype packed;
    int keyval = MPI_KEYVAL_INVALID;
    int rc = MPI_Type_create_struct(5, lengths, displacements, types, &packed);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Type_create_resized(packed, 0, sizeof(yamr__mpi_cell), &x->cell);
        MPI_Type_free(&packed);
    }
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&x->cell);
    if (rc == MPI_SUCCESS) rc = MPI_Op_create(merge_cells, 1, &x->merge);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_exchange, &keyval, NULL);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL);
    x->made = rc == MPI_SUCCESS;
}

/* The process's datatype and operation; YAMR_ERROR_COMMUNICATION when MPI could not make them. */
static yamr_status get_exchange(const exchange **x)
{
    pthread_once(&yamr__mpi_exchange_once, make_exchange);
    *x = &yamr__mpi_exchange;
    return yamr__mpi_exchange.made ? YAMR_SUCCESS : YAMR_ERROR_COMMUNICATION;
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

static yamr__mpi_cell agree_cell(uint64_t word, yamr_status status)
{
    yamr__mpi_cell c = {word, ~word, 0, (int32_t)status, YAMR__CELL_AGREE};
    return c;
}

static yamr__mpi_cell empty_arg_cell(void)
{
    yamr__mpi_cell c = {YAMR_KEY_BOTTOM, 0, UINT64_MAX, YAMR__NO_RANK, YAMR__CELL_ARG};
    return c;
}

/* A local answer (value bits, index within the local part; -1 for NaNs only under
 * YAMR_NAN_IGNORE, whose key is the bottom: the part's first element then stands for it, as in
 * one context) as a candidate. */
static yamr__mpi_cell arg_cell(yamr_dtype t, int is_min, int nan_ignore, uint64_t bits,
                               int64_t index, int rank)
{
    yamr__mpi_cell c = {key_of(t, bits, is_min, nan_ignore), bits,
                        index < 0 ? 0 : (uint64_t)index, rank, YAMR__CELL_ARG};
    return c;
}

/* Layout: cells [first, first + sizes_cells(ranks)) hold the local sizes. */
static int sizes_cells(int ranks) { return (ranks + YAMR__SIZES_PER_CELL - 1) / YAMR__SIZES_PER_CELL; }

static void put_size(yamr__mpi_cell *sizes, int ranks, int rank, uint64_t n)
{
    for (int i = 0; i < sizes_cells(ranks); ++i) {
        yamr__mpi_cell c = {0, 0, 0, 0, YAMR__CELL_SIZES};
        sizes[i] = c;
    }
    yamr__mpi_cell *mine = &sizes[rank / YAMR__SIZES_PER_CELL];
    switch (rank % YAMR__SIZES_PER_CELL) {
    case 0: mine->a = n; break;
    case 1: mine->b = n; break;
    default: mine->c = n; break;
    }
}

/* offsets[r] = the sum of the sizes below r; YAMR_ERROR_INVALID_VALUE for a total of 0 or one
 * beyond INT64_MAX. */
static yamr_status read_offsets(const yamr__mpi_cell *sizes, int ranks, int64_t *offsets)
{
    uint64_t total = 0;
    for (int r = 0; r < ranks; ++r) {
        const uint64_t n = slot_get(&sizes[r / YAMR__SIZES_PER_CELL], r % YAMR__SIZES_PER_CELL);
        offsets[r] = (int64_t)total;
        if (n > (uint64_t)INT64_MAX - total) return YAMR_ERROR_INVALID_VALUE;
        total += n;
    }
    return total == 0 ? YAMR_ERROR_INVALID_VALUE : YAMR_SUCCESS;
}

/* The merged status: the largest any rank had, else INVALID_VALUE when the words disagree. */
static yamr_status read_agree(const yamr__mpi_cell *c)
{
    if (c->rank != YAMR_SUCCESS) return (yamr_status)c->rank;
    return c->a == ~c->b ? YAMR_SUCCESS : YAMR_ERROR_INVALID_VALUE;
}

/* The winner as (value bits, global index) of one context on the whole data. */
static void read_arg(const yamr__mpi_cell *c, yamr_dtype t, const int64_t *offsets,
                     uint64_t *bits, int64_t *index)
{
    *bits = c->b;
    if (dtype_is_float(t) && c->a == YAMR_KEY_BOTTOM)
        *index = -1; /* NaNs only, ignored */
    else
        *index = offsets[c->rank] + (int64_t)c->c;
}

/* The word every rank must agree on: which call, op, dtype, NaN policy (enums as passed, so a
 * value out of range disagrees too). */
static uint64_t call_word(int call, int op, int dtype, int nan_policy)
{
    return (uint64_t)(call & 0xff) << 48 | (uint64_t)(op & 0xff) << 24 |
           (uint64_t)(dtype & 0xff) << 16 | (uint64_t)(nan_policy & 0xff);
}

enum { CALL_REDUCE = 1, CALL_MINMAX, CALL_ROWS, CALL_SOFTMAX };

typedef struct {
    int rank, ranks;
    yamr_nan_policy nan;
} comm_facts;

/* The caller's rank and size, and the context's NaN policy (0xff without a context). */
static yamr_status facts(yamr_context *ctx, MPI_Comm comm, comm_facts *f)
{
    if (comm == MPI_COMM_NULL) return YAMR_ERROR_INVALID_VALUE;
    if (MPI_Comm_rank(comm, &f->rank) != MPI_SUCCESS ||
        MPI_Comm_size(comm, &f->ranks) != MPI_SUCCESS)
        return YAMR_ERROR_COMMUNICATION;
    if (!ctx || yamr_get_nan_policy(ctx, &f->nan) != YAMR_SUCCESS) f->nan = (yamr_nan_policy)0xff;
    return YAMR_SUCCESS;
}

static void store_value(void *out, yamr_dtype t, uint64_t bits)
{
    memcpy(out, &bits, yamr_dtype_size(t)); /* little-endian, as yamr's backends */
}

/* ---- yamr_mpi_reduce, yamr_mpi_minmax: one exchange ---- */

/* op is MAX/MIN/ARGMAX/ARGMIN for one answer, or -1 for minmax (two answers: min, then max). */
static yamr_status reduce_common(yamr_context *ctx, MPI_Comm comm, int op, yamr_dtype dtype,
                                 const void *in, size_t n_local, void *out_value[2],
                                 int64_t *out_index[2])
{
    comm_facts f;
    yamr_status s = facts(ctx, comm, &f);
    if (s != YAMR_SUCCESS) return s;
    const int minmax = op < 0, answers = minmax ? 2 : 1;
    const int n_sizes = sizes_cells(f.ranks), count = 1 + n_sizes + answers;
    /* On the stack up to YAMR__STACK_RANKS ranks: no allocation in the latency-bound case. */
    yamr__mpi_cell stack_cells[1 + YAMR__STACK_RANKS / YAMR__SIZES_PER_CELL + 2];
    int64_t stack_offsets[YAMR__STACK_RANKS];
    const int on_stack = f.ranks <= YAMR__STACK_RANKS;
    yamr__mpi_cell *cells =
        on_stack ? stack_cells : (yamr__mpi_cell *)malloc((size_t)count * sizeof *cells);
    int64_t *offsets =
        on_stack ? stack_offsets : (int64_t *)malloc((size_t)f.ranks * sizeof *offsets);
    yamr_status local = YAMR_SUCCESS;
    if (!cells || !offsets) {
        if (!on_stack) {
            free(cells);
            free(offsets);
        }
        return YAMR_ERROR_OUT_OF_MEMORY; /* a few bytes per rank: the peers will wait */
    }

    const int op_ok = minmax || (op >= 0 && op < YAMR_OP_COUNT);
    if (!ctx || !op_ok || (unsigned)dtype >= YAMR_DTYPE_COUNT || (n_local > 0 && !in) ||
        n_local > (size_t)INT64_MAX || !out_value[0] || (answers == 2 && !out_value[1]) ||
        (!minmax && (op == YAMR_OP_ARGMAX || op == YAMR_OP_ARGMIN) && !out_index[0]))
        local = YAMR_ERROR_INVALID_VALUE;

    yamr__mpi_cell *arg = cells + 1 + n_sizes;
    for (int k = 0; k < answers; ++k) arg[k] = empty_arg_cell();
    if (local == YAMR_SUCCESS && n_local > 0) {
        const int nan_ignore = f.nan == YAMR_NAN_IGNORE;
        uint64_t bits[2] = {0, 0};
        int64_t index[2] = {-1, -1};
        if (minmax)
            local = yamr_minmax(ctx, dtype, in, n_local, &bits[0], &index[0], &bits[1], &index[1]);
        else
            local = yamr_reduce(ctx, (yamr_op)op, dtype, in, n_local, &bits[0], &index[0]);
        for (int k = 0; local == YAMR_SUCCESS && k < answers; ++k) {
            const int is_min = minmax ? k == 0 : (op == YAMR_OP_MIN || op == YAMR_OP_ARGMIN);
            arg[k] = arg_cell(dtype, is_min, nan_ignore, bits[k], index[k], f.rank);
        }
    }
    cells[0] = agree_cell(call_word(minmax ? CALL_MINMAX : CALL_REDUCE, minmax ? 0 : op,
                                    (int)dtype, (int)f.nan),
                          local);
    put_size(cells + 1, f.ranks, f.rank, local == YAMR_SUCCESS ? (uint64_t)n_local : 0);

    const exchange *x;
    s = get_exchange(&x);
    if (s == YAMR_SUCCESS &&
        MPI_Allreduce(MPI_IN_PLACE, cells, count, x->cell, x->merge, comm) != MPI_SUCCESS)
        s = YAMR_ERROR_COMMUNICATION;
    if (s == YAMR_SUCCESS) s = read_agree(&cells[0]);
    if (s == YAMR_SUCCESS) s = read_offsets(cells + 1, f.ranks, offsets);
    if (s == YAMR_SUCCESS) {
        for (int k = 0; k < answers; ++k) {
            uint64_t bits;
            int64_t index;
            read_arg(&arg[k], dtype, offsets, &bits, &index);
            store_value(out_value[k], dtype, bits);
            if (out_index[k]) *out_index[k] = index;
        }
    }
    if (!on_stack) {
        free(cells);
        free(offsets);
    }
    return s;
}

yamr_status yamr_mpi_reduce(yamr_context *ctx, MPI_Comm comm, yamr_op op, yamr_dtype dtype,
                            const void *in, size_t n_local, void *value, int64_t *index)
{
    void *values[2] = {value, NULL};
    int64_t *indices[2] = {index, NULL};
    return reduce_common(ctx, comm, (int)op, dtype, in, n_local, values, indices);
}

yamr_status yamr_mpi_minmax(yamr_context *ctx, MPI_Comm comm, yamr_dtype dtype, const void *in,
                            size_t n_local, void *min_value, int64_t *min_index, void *max_value,
                            int64_t *max_index)
{
    void *values[2] = {min_value, max_value};
    int64_t *indices[2] = {min_index, max_index};
    return reduce_common(ctx, comm, -1, dtype, in, n_local, values, indices);
}

/* ---- The rows functions: agreement (in flight during the local call), then the rows ---- */

/* rows x cols_local with leading dimension ld fits int64_t offsets in bytes */
static int matrix_ok(size_t rows, size_t cols, size_t ld, size_t elem)
{
    if (rows == 0 || ld < cols || elem == 0 || rows > (size_t)INT64_MAX) return 0;
    if (cols == 0) return 1;
    const size_t limit = (size_t)INT64_MAX / elem;
    if (cols > limit) return 0;
    return rows == 1 || ld <= (limit - cols) / (rows - 1);
}

typedef struct {
    int softmax;
    yamr_op op;
    yamr_dtype dtype;
    const void *in;
    size_t rows, cols_local, ld;
    void *values;     /* values or row_max, context memory */
    void *second;     /* indices or row_sum, context memory; indices may be NULL */
} rows_call;

/* The local answers, written into the caller's outputs (which hold the final answers later), then
 * copied to host buffers: the outputs are the scratch, so that a call allocates no device
 * memory. Indices only where the caller asked for them: without them, each rank's one candidate
 * per row is ordered by rank alone. */
static yamr_status rows_local(yamr_context *ctx, const rows_call *c, void *host_values,
                              void *host_second)
{
    const size_t elem = yamr_dtype_size(c->dtype);
    yamr_status s;
    if (c->softmax)
        s = yamr_softmax_stats_rows(ctx, c->dtype, c->in, c->rows, c->cols_local, c->ld,
                                    c->values, c->second);
    else
        s = yamr_reduce_rows(ctx, c->op, c->dtype, c->in, c->rows, c->cols_local, c->ld,
                             c->values, (int64_t *)c->second);
    if (s == YAMR_SUCCESS) s = yamr_copy_to_host(ctx, host_values, c->values, c->rows * elem);
    if (s == YAMR_SUCCESS && c->second)
        s = yamr_copy_to_host(ctx, host_second, c->second,
                              c->rows * (c->softmax ? elem : sizeof(int64_t)));
    return s;
}

/* One row's candidate from this rank's local answer (or the empty one). */
static yamr__mpi_cell row_cell(const rows_call *c, const comm_facts *f, int have,
                               const unsigned char *host_values, const unsigned char *host_second,
                               size_t r)
{
    const size_t elem = yamr_dtype_size(c->dtype);
    if (c->softmax) {
        double m = -INFINITY, sum = 0; /* an empty part counts no element */
        if (have && c->dtype == YAMR_DTYPE_F64) {
            memcpy(&m, host_values + r * 8, 8);
            memcpy(&sum, host_second + r * 8, 8);
        } else if (have) {
            float m32, s32;
            memcpy(&m32, host_values + r * 4, 4);
            memcpy(&s32, host_second + r * 4, 4);
            m = m32;
            sum = s32;
        }
        const yamr__mpi_cell pair = {double_to_bits(m), double_to_bits(sum), 0,
                                     have ? f->rank : YAMR__NO_RANK, YAMR__CELL_SOFTMAX};
        return pair;
    }
    if (!have) return empty_arg_cell();
    const int is_min = c->op == YAMR_OP_MIN || c->op == YAMR_OP_ARGMIN;
    uint64_t bits = 0;
    int64_t index = 0;
    memcpy(&bits, host_values + r * elem, elem);
    if (c->second) memcpy(&index, host_second + r * 8, 8);
    return arg_cell(c->dtype, is_min, f->nan == YAMR_NAN_IGNORE, bits, index, f->rank);
}

/* The merged row into the host buffers, in the outputs' layout. */
static void read_row(const rows_call *c, const yamr__mpi_cell *cell, const int64_t *offsets,
                     unsigned char *host_values, unsigned char *host_second, size_t r)
{
    const size_t elem = yamr_dtype_size(c->dtype);
    if (c->softmax) {
        const double sum = bits_to_double(cell->b);
        const double m = sum == 0 ? NAN : bits_to_double(cell->a); /* NaNs only, ignored */
        if (c->dtype == YAMR_DTYPE_F64) {
            memcpy(host_values + r * 8, &m, 8);
            memcpy(host_second + r * 8, &sum, 8);
        } else {
            const float m32 = (float)m, s32 = (float)sum;
            memcpy(host_values + r * 4, &m32, 4);
            memcpy(host_second + r * 4, &s32, 4);
        }
        return;
    }
    uint64_t bits;
    int64_t index;
    read_arg(cell, c->dtype, offsets, &bits, &index);
    memcpy(host_values + r * elem, &bits, elem);
    memcpy(host_second + r * 8, &index, 8);
}

/*
 * Two exchanges, since the second's size is `rows`, which the ranks must be known to agree on
 * before any of them posts it (MPI requires matching counts). The first also carries the local
 * sizes, and completes before the local call, so that a bad argument or a disagreement anywhere
 * leaves every output untouched. The second carries the local call's status with the rows.
 */
static yamr_status rows_common(yamr_context *ctx, MPI_Comm comm, const rows_call *c)
{
    comm_facts f;
    yamr_status s = facts(ctx, comm, &f);
    if (s != YAMR_SUCCESS) return s;

    yamr_status local = YAMR_SUCCESS;
    const size_t elem = yamr_dtype_size(c->dtype);
    const int needs_second = c->softmax || c->op == YAMR_OP_ARGMAX || c->op == YAMR_OP_ARGMIN;
    if (!ctx || (!c->softmax && (unsigned)c->op >= YAMR_OP_COUNT) || elem == 0 ||
        (c->cols_local > 0 && !c->in) || !c->values || (needs_second && !c->second) ||
        !matrix_ok(c->rows, c->cols_local, c->ld, elem) || c->rows > (size_t)INT32_MAX - 1)
        local = YAMR_ERROR_INVALID_VALUE; /* the last: an MPI count is an int */
    else if (c->softmax && c->dtype != YAMR_DTYPE_F32 && c->dtype != YAMR_DTYPE_F64)
        local = YAMR_ERROR_UNSUPPORTED;

    /* Host memory for every step, allocated before the first exchange so that its failure is
     * part of the agreement. */
    const int n_sizes = sizes_cells(f.ranks), head_count = 2 + n_sizes;
    const size_t rows = local == YAMR_SUCCESS ? c->rows : 0;
    yamr__mpi_cell *head = (yamr__mpi_cell *)malloc((size_t)head_count * sizeof *head);
    int64_t *offsets = (int64_t *)malloc((size_t)f.ranks * sizeof *offsets);
    if (!head || !offsets) {
        free(head);
        free(offsets);
        return YAMR_ERROR_OUT_OF_MEMORY; /* a few bytes per rank: the peers will wait */
    }
    yamr__mpi_cell *data = NULL;
    unsigned char *host_values = NULL, *host_second = NULL;
    if (local == YAMR_SUCCESS) {
        data = (yamr__mpi_cell *)malloc((rows + 1) * sizeof *data);
        host_values = (unsigned char *)malloc(rows * elem);
        host_second = (unsigned char *)malloc(rows * 8);
        if (!data || !host_values || !host_second) local = YAMR_ERROR_OUT_OF_MEMORY;
    }

    /* Exchange 1: the status, the call, rows, and the local sizes. */
    const int call = c->softmax ? CALL_SOFTMAX : CALL_ROWS;
    head[0] = agree_cell(call_word(call, c->softmax ? 0 : (int)c->op, (int)c->dtype, (int)f.nan),
                         local);
    head[1] = agree_cell((uint64_t)c->rows, YAMR_SUCCESS);
    put_size(head + 2, f.ranks, f.rank, local == YAMR_SUCCESS ? (uint64_t)c->cols_local : 0);
    const exchange *x;
    s = get_exchange(&x);
    if (s == YAMR_SUCCESS &&
        MPI_Allreduce(MPI_IN_PLACE, head, head_count, x->cell, x->merge, comm) != MPI_SUCCESS)
        s = YAMR_ERROR_COMMUNICATION;
    if (s == YAMR_SUCCESS) s = read_agree(&head[0]);
    if (s == YAMR_SUCCESS) s = read_agree(&head[1]);
    if (s == YAMR_SUCCESS) s = read_offsets(head + 2, f.ranks, offsets);

    /* The local call, then exchange 2: its status and one cell per row. */
    if (s == YAMR_SUCCESS) {
        const int have = c->cols_local > 0;
        yamr_status computed = have ? rows_local(ctx, c, host_values, host_second) : YAMR_SUCCESS;
        data[0] = agree_cell(0, computed);
        for (size_t r = 0; r < rows; ++r)
            data[1 + r] = row_cell(c, &f, have && computed == YAMR_SUCCESS, host_values,
                                   host_second, r);
        if (MPI_Allreduce(MPI_IN_PLACE, data, (int)rows + 1, x->cell, x->merge, comm) !=
            MPI_SUCCESS)
            s = YAMR_ERROR_COMMUNICATION;
        if (s == YAMR_SUCCESS) s = read_agree(&data[0]);
    }

    /* The answers into the outputs in the context's memory. */
    if (s == YAMR_SUCCESS) {
        for (size_t r = 0; r < rows; ++r)
            read_row(c, &data[1 + r], offsets, host_values, host_second, r);
        s = yamr_copy_to_device(ctx, c->values, host_values, rows * elem);
        if (s == YAMR_SUCCESS && c->second)
            s = yamr_copy_to_device(ctx, c->second, host_second,
                                    rows * (c->softmax ? elem : sizeof(int64_t)));
    }

    free(head);
    free(offsets);
    free(data);
    free(host_values);
    free(host_second);
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
