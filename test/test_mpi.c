/* SPDX-License-Identifier: MIT */
/*
 * The MPI layer (include/yamr_mpi.h) against one context on the whole data, run under mpiexec
 * at any number of ranks:
 *   mpiexec -n 4 test_mpi cpu    every rank on the CPU backend
 *   mpiexec -n 2 test_mpi gpu    every rank its own context on GPU (node-local rank modulo the
 *                                GPU count); exits 77 (skipped) on every rank without a GPU
 * Every rank builds the same global data from a fixed seed, takes its part, calls the MPI
 * function, and compares with what its own context gives on the whole array or the whole rows:
 * value bits, global index, status. Error cases: one rank (the first, then the last) passes a
 * bad argument or disagrees with the others; every rank must get the same status and find its
 * poisoned outputs untouched. The rows functions' outputs are also checked at every exchange of
 * every call, failing or not: still poisoned, since nothing may be written before every rank is
 * known to have succeeded (the layer computes into the context's scratch memory). The layer
 * leaves `in` and ld to the local yamr call, so null_in and ld_small fail inside the local call
 * on one rank: the path every local failure takes (a host or scratch allocation, a device
 * error), which the counters of collectives check joins the one exchange on every rank. A check that fails prints one line and the run goes on, so that no
 * rank leaves the others waiting in a collective; the ranks sum their failures at the end.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yamr.h"
#include "yamr_mpi.h"

#define SEED 20261123u
#define POISON 0xa5
#define MAX_RANKS 64
#define ROWS_IN_ONE_EXCHANGE 64 /* yamr_mpi.h, "Cost" */

typedef struct {
    MPI_Comm comm;
    int rank, ranks;
    yamr_context *ctx;
    long checks, failures;
    const char *what; /* the case, for failure lines */
    long allreduce_mark, other_mark; /* the counters below at count_begin() */
} harness;

static void failf(harness *h, const char *fmt, ...)
{
    if (h->failures < 40) {
        va_list args;
        va_start(args, fmt);
        printf("FAILED rank %d/%d [%s]: ", h->rank, h->ranks, h->what);
        vprintf(fmt, args);
        printf("\n");
        fflush(stdout);
        va_end(args);
    }
    ++h->failures;
}

#define CHECK(h, cond, ...)                                                                    \
    do {                                                                                       \
        ++(h)->checks;                                                                         \
        if (!(cond)) failf((h), __VA_ARGS__);                                                  \
    } while (0)

/* ---- Counting the layer's collectives ----
 * MPI's profiling interface: the program's own MPI_Allreduce (and the other collectives a layer
 * could use) replace the library's, which stays reachable as PMPI_*. Each call of the layer must
 * make exactly one MPI_Allreduce (two for more rows than
 * ROWS_IN_ONE_EXCHANGE) and no other
 * collective, on every rank, whatever failed where. */

static long allreduce_calls, other_collective_calls;
/* Runs at each MPI_Allreduce while set (watch_outputs() below). */
static void (*at_allreduce)(void *arg);
static void *at_allreduce_arg;

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    ++allreduce_calls;
    if (at_allreduce) at_allreduce(at_allreduce_arg);
    return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}
int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm, MPI_Request *request)
{
    ++other_collective_calls;
    return PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request);
}
int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm)
{
    ++other_collective_calls;
    return PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm);
}
int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    ++other_collective_calls;
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
int MPI_Bcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    ++other_collective_calls;
    return PMPI_Bcast(buffer, count, type, root, comm);
}
int MPI_Barrier(MPI_Comm comm)
{
    ++other_collective_calls;
    return PMPI_Barrier(comm);
}

static void count_begin(harness *h)
{
    h->allreduce_mark = allreduce_calls;
    h->other_mark = other_collective_calls;
}

static void count_check(harness *h, long want, const char *which)
{
    const long made = allreduce_calls - h->allreduce_mark;
    const long others = other_collective_calls - h->other_mark;
    CHECK(h, made == want && others == 0, "%s: %ld MPI_Allreduce and %ld other collectives, want %ld and 0",
          which, made, others, want);
}

/* ---- Deterministic data ---- */

static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* IEEE binary16 / bfloat16 bits of a float that either holds exactly (halves of small
 * integers, +-0, +-inf). */
static uint16_t to_half(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    const uint32_t sign = (b >> 16) & 0x8000u, e = (b >> 23) & 0xffu, mant = b & 0x7fffffu;
    if (e == 0) return (uint16_t)sign;
    if (e == 0xff) return (uint16_t)(sign | 0x7c00u);
    return (uint16_t)(sign | ((e - 127 + 15) << 10) | (mant >> 13));
}
static uint16_t to_bf16(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return (uint16_t)(b >> 16);
}

/* A distinct NaN for each position, so that which NaN came back is checked too. */
static uint64_t nan_bits(int dtype, uint64_t i)
{
    switch (dtype) {
    case YAMR_DTYPE_F32: return 0x7fc00000u | (i & 0xffffu);
    case YAMR_DTYPE_F64: return 0x7ff8000000000000ull | (i & 0xffffffull);
    case YAMR_DTYPE_F16: return 0x7e00u | (i & 0xffu);
    default: return 0x7fc0u | (i & 0x3fu); /* bf16 */
    }
}

static uint64_t float_bits(int dtype, float f)
{
    uint64_t bits = 0;
    switch (dtype) {
    case YAMR_DTYPE_F32: memcpy(&bits, &f, 4); break;
    case YAMR_DTYPE_F64: {
        const double d = f;
        memcpy(&bits, &d, 8);
        break;
    }
    case YAMR_DTYPE_F16: bits = to_half(f); break;
    default: bits = to_bf16(f); break;
    }
    return bits;
}

static int is_float(int dtype) { return dtype <= YAMR_DTYPE_BF16; }

typedef enum {
    DATA_TIES,      /* few distinct values: ties within and across ranks; -0.0 and +0.0 */
    DATA_SPECIAL,   /* ties with +-inf, and NaNs in one rank's part */
    DATA_NAN_ALL,   /* NaNs only (distinct payloads) */
    DATA_ZEROS,     /* -0.0 and +0.0 only */
    DATA_NEG_INF,   /* -inf only; integers: the type's smallest value */
    DATA_KINDS
} data_kind;
static const char *const data_names[DATA_KINDS] = {"ties", "special", "nan_all", "zeros",
                                                   "neg_inf"};

/* One element of the global array (little-endian bits). nan_lo..nan_hi: the global positions
 * that hold NaNs for DATA_SPECIAL (one rank's part). */
static uint64_t element(int dtype, data_kind kind, uint64_t i, uint64_t *rng, uint64_t nan_lo,
                        uint64_t nan_hi)
{
    const uint64_t r = next_random(rng);
    if (is_float(dtype)) {
        switch (kind) {
        case DATA_NAN_ALL: return nan_bits(dtype, i);
        case DATA_ZEROS: return float_bits(dtype, (r & 1) ? -0.0f : 0.0f);
        case DATA_NEG_INF: return float_bits(dtype, -INFINITY);
        case DATA_SPECIAL:
            if (i >= nan_lo && i < nan_hi && (r >> 8) % 3 == 0) return nan_bits(dtype, i);
            if ((r >> 16) % 13 == 0) return float_bits(dtype, (r >> 20) & 1 ? INFINITY : -INFINITY);
            /* fall through */
        default: {
            const int k = (int)((r >> 24) % 13) - 6;
            if (k == 0) return float_bits(dtype, (r >> 40) & 1 ? -0.0f : 0.0f);
            return float_bits(dtype, (float)k * 0.5f);
        }
        }
    }
    const int k = (int)((r >> 24) % 7) - 3;
    int extreme = kind == DATA_NEG_INF || (kind == DATA_SPECIAL && (r >> 16) % 11 == 0);
    switch (dtype) {
    case YAMR_DTYPE_I32:
        if (extreme) return (uint32_t)((r >> 20) & 1 && kind != DATA_NEG_INF ? INT32_MAX : INT32_MIN);
        return (uint32_t)(int32_t)k;
    case YAMR_DTYPE_U32:
        if (extreme) return (r >> 20) & 1 && kind != DATA_NEG_INF ? UINT32_MAX : 0u;
        return (uint32_t)(k + 3);
    default:
        if (extreme) return (uint64_t)((r >> 20) & 1 && kind != DATA_NEG_INF ? INT64_MAX : INT64_MIN);
        return (uint64_t)(int64_t)k * 0x100000001ull; /* beyond 32 bits */
    }
}

/* ---- Partitions: each rank's local size ---- */

enum { PART_EVEN, PART_UNEVEN, PART_EMPTY_EVEN_RANKS, PART_LAST_ONLY, PART_ONE, PART_LARGE,
       PART_COUNT };
static const char *const part_names[PART_COUNT] = {"even", "uneven", "empty_even_ranks",
                                                   "last_rank_only", "one_element", "large"};

static size_t part_size(int part, int r, int ranks)
{
    switch (part) {
    case PART_EVEN: return 37;
    case PART_UNEVEN: return 1 + (size_t)(r * 13) % 29;
    case PART_EMPTY_EVEN_RANKS: return r % 2 ? 20 + (size_t)r : (ranks == 1 ? 9 : 0);
    case PART_LAST_ONLY: return r == ranks - 1 ? 50 : 0;
    case PART_ONE: return r == 0 ? 1 : 0;
    default: return 3000 + (size_t)r * 333;
    }
}

/* ---- The context's memory ---- */

static void *upload(harness *h, const void *host, size_t bytes)
{
    void *p = NULL;
    if (bytes == 0) return NULL;
    if (yamr_device_alloc(h->ctx, bytes, &p) != YAMR_SUCCESS ||
        yamr_copy_to_device(h->ctx, p, host, bytes) != YAMR_SUCCESS) {
        fprintf(stderr, "rank %d: cannot allocate or copy %zu bytes\n", h->rank, bytes);
        MPI_Abort(h->comm, 2);
    }
    return p;
}

static void download(harness *h, void *host, const void *p, size_t bytes)
{
    if (yamr_copy_to_host(h->ctx, host, p, bytes) != YAMR_SUCCESS) {
        fprintf(stderr, "rank %d: cannot copy %zu bytes back\n", h->rank, bytes);
        MPI_Abort(h->comm, 2);
    }
}

static void set_policy(harness *h, int nan_ignore)
{
    yamr_set_nan_policy(h->ctx, nan_ignore ? YAMR_NAN_IGNORE : YAMR_NAN_PROPAGATE);
}

/* ---- yamr_mpi_reduce and yamr_mpi_minmax ---- */

typedef struct {
    unsigned char *global; /* the whole array */
    size_t total, offset, n_local;
    void *local;           /* this rank's part in the context's memory (NULL when empty) */
    void *whole;           /* the whole array in the context's memory */
} array_case;

static void make_array(harness *h, int dtype, data_kind kind, int part, uint64_t seed,
                       array_case *a)
{
    const size_t elem = yamr_dtype_size((yamr_dtype)dtype);
    size_t offsets[MAX_RANKS + 1];
    offsets[0] = 0;
    for (int r = 0; r < h->ranks; ++r) offsets[r + 1] = offsets[r] + part_size(part, r, h->ranks);
    a->total = offsets[h->ranks];
    a->offset = offsets[h->rank];
    a->n_local = offsets[h->rank + 1] - offsets[h->rank];
    /* NaNs in the part of the middle rank that holds elements */
    int nan_rank = h->ranks / 2;
    while (nan_rank < h->ranks && offsets[nan_rank + 1] == offsets[nan_rank]) ++nan_rank;
    if (nan_rank == h->ranks) nan_rank = 0;
    a->global = (unsigned char *)malloc(a->total * elem);
    uint64_t rng = seed;
    for (size_t i = 0; i < a->total; ++i) {
        const uint64_t bits = element(dtype, kind, i, &rng, offsets[nan_rank], offsets[nan_rank + 1]);
        memcpy(a->global + i * elem, &bits, elem);
    }
    a->local = upload(h, a->global + a->offset * elem, a->n_local * elem);
    a->whole = upload(h, a->global, a->total * elem);
}

static void free_array(harness *h, array_case *a)
{
    yamr_device_free(h->ctx, a->local);
    yamr_device_free(h->ctx, a->whole);
    free(a->global);
}

static void check_answer(harness *h, int dtype, yamr_status got, uint64_t got_bits,
                         int64_t got_index, yamr_status want, uint64_t want_bits,
                         int64_t want_index, const char *which)
{
    CHECK(h, got == want, "%s: status %s, want %s", which, yamr_status_string(got),
          yamr_status_string(want));
    const uint64_t mask = yamr_dtype_size((yamr_dtype)dtype) == 8
                              ? ~0ull
                              : (1ull << (8 * yamr_dtype_size((yamr_dtype)dtype))) - 1;
    CHECK(h, (got_bits & mask) == (want_bits & mask), "%s: value bits 0x%llx, want 0x%llx", which,
          (unsigned long long)(got_bits & mask), (unsigned long long)(want_bits & mask));
    CHECK(h, got_index == want_index, "%s: index %lld, want %lld", which, (long long)got_index,
          (long long)want_index);
}

static void test_reduce(harness *h)
{
    char what[160];
    h->what = what;
    uint64_t seed = SEED;
    for (int part = 0; part < PART_COUNT; ++part)
        for (int kind = 0; kind < DATA_KINDS; ++kind)
            for (int dtype = 0; dtype < YAMR_DTYPE_COUNT; ++dtype) {
                if (!is_float(dtype) && (kind == DATA_NAN_ALL || kind == DATA_ZEROS)) continue;
                array_case a;
                make_array(h, dtype, (data_kind)kind, part, ++seed, &a);
                for (int nan_ignore = 0; nan_ignore < 2; ++nan_ignore) {
                    set_policy(h, nan_ignore);
                    for (int op = 0; op < YAMR_OP_COUNT; ++op) {
                        snprintf(what, sizeof what, "reduce %s %s %s %s, %zu of %zu",
                                 yamr_dtype_name((yamr_dtype)dtype),
                                 (const char *[]){"max", "min", "argmax", "argmin"}[op],
                                 nan_ignore ? "ignore" : "propagate", part_names[part], a.n_local,
                                 a.total);
                        h->what = what;
                        uint64_t want = 0, got = 0;
                        int64_t want_index = -7, got_index = -7;
                        const yamr_status ws = yamr_reduce(h->ctx, (yamr_op)op, (yamr_dtype)dtype,
                                                           a.whole, a.total, &want, &want_index);
                        count_begin(h);
                        const yamr_status gs =
                            yamr_mpi_reduce(h->ctx, h->comm, (yamr_op)op, (yamr_dtype)dtype,
                                            a.local, a.n_local, &got, &got_index);
                        count_check(h, 1, "reduce");
                        check_answer(h, dtype, gs, got, got_index, ws, want, want_index, "reduce");
                    }
                    snprintf(what, sizeof what, "minmax %s %s %s %s, %zu of %zu",
                             yamr_dtype_name((yamr_dtype)dtype), data_names[kind],
                             nan_ignore ? "ignore" : "propagate", part_names[part], a.n_local,
                             a.total);
                    h->what = what;
                    uint64_t want[2] = {0, 0}, got[2] = {0, 0};
                    int64_t want_index[2] = {-7, -7}, got_index[2] = {-7, -7};
                    const yamr_status ws = yamr_minmax(h->ctx, (yamr_dtype)dtype, a.whole, a.total,
                                                       &want[0], &want_index[0], &want[1],
                                                       &want_index[1]);
                    count_begin(h);
                    const yamr_status gs =
                        yamr_mpi_minmax(h->ctx, h->comm, (yamr_dtype)dtype, a.local, a.n_local,
                                        &got[0], &got_index[0], &got[1], &got_index[1]);
                    count_check(h, 1, "minmax");
                    check_answer(h, dtype, gs, got[0], got_index[0], ws, want[0], want_index[0],
                                 "min");
                    check_answer(h, dtype, gs, got[1], got_index[1], ws, want[1], want_index[1],
                                 "max");
                }
                free_array(h, &a);
            }
    set_policy(h, 0);
}

/* ---- Rows, split by columns ---- */

typedef struct {
    size_t rows, cols, col_offset, cols_local, ld;
    unsigned char *global; /* rows x cols, ld cols */
    void *local;           /* rows x cols_local with leading dimension ld, context memory */
    void *whole;
} matrix_case;

static size_t cols_size(int part, int r, int ranks)
{
    switch (part) {
    case 0: return 40;                                          /* even */
    case 1: return 1 + (size_t)(r * 17) % 45;                   /* uneven */
    case 2: return r % 2 ? 33 + (size_t)r : (ranks == 1 ? 7 : 0); /* empty on even ranks */
    case 3: return r == ranks - 1 ? 70 : 0;                     /* the last rank only */
    default: return 700 + (size_t)r * 91;                       /* longer rows */
    }
}
#define COL_PARTS 5
static const char *const col_part_names[COL_PARTS] = {"even", "uneven", "empty_even_ranks",
                                                      "last_rank_only", "long"};

static void make_matrix(harness *h, int dtype, int part, size_t rows, uint64_t seed,
                        matrix_case *m)
{
    const size_t elem = yamr_dtype_size((yamr_dtype)dtype);
    size_t offsets[MAX_RANKS + 1];
    offsets[0] = 0;
    for (int r = 0; r < h->ranks; ++r) offsets[r + 1] = offsets[r] + cols_size(part, r, h->ranks);
    m->rows = rows;
    m->cols = offsets[h->ranks];
    m->col_offset = offsets[h->rank];
    m->cols_local = offsets[h->rank + 1] - offsets[h->rank];
    m->ld = m->cols_local + (size_t)(h->rank % 3); /* ld > cols_local on some ranks */
    m->global = (unsigned char *)malloc(rows * m->cols * elem);
    uint64_t rng = seed;
    int nan_rank = h->ranks / 2;
    while (nan_rank < h->ranks && offsets[nan_rank + 1] == offsets[nan_rank]) ++nan_rank;
    if (nan_rank == h->ranks) nan_rank = 0;
    for (size_t r = 0; r < rows; ++r) {
        /* each row its own kind: ties, special (NaNs in one rank's columns), NaNs only, zeros,
         * -inf only, cycling */
        const data_kind kind = (data_kind)(r % DATA_KINDS);
        for (size_t c = 0; c < m->cols; ++c) {
            const uint64_t bits =
                element(dtype, is_float(dtype) ? kind : DATA_TIES, r * m->cols + c, &rng,
                        r * m->cols + offsets[nan_rank], r * m->cols + offsets[nan_rank + 1]);
            memcpy(m->global + (r * m->cols + c) * elem, &bits, elem);
        }
    }
    unsigned char *local = (unsigned char *)malloc(rows * m->ld * elem + 1);
    memset(local, POISON, rows * m->ld * elem + 1); /* padding past cols_local: never read */
    for (size_t r = 0; r < rows; ++r)
        memcpy(local + r * m->ld * elem, m->global + (r * m->cols + m->col_offset) * elem,
               m->cols_local * elem);
    m->local = upload(h, local, rows * m->ld * elem);
    m->whole = upload(h, m->global, rows * m->cols * elem);
    free(local);
}

static void free_matrix(harness *h, matrix_case *m)
{
    yamr_device_free(h->ctx, m->local);
    yamr_device_free(h->ctx, m->whole);
    free(m->global);
}

/* Context-memory outputs, poisoned. */
typedef struct {
    void *values, *second;
    unsigned char *host_values, *host_second, *poison;
    size_t bytes; /* each buffer */
} outputs;

static void make_outputs(harness *h, size_t rows, outputs *o)
{
    o->bytes = rows * 8;
    o->poison = (unsigned char *)malloc(o->bytes);
    memset(o->poison, POISON, o->bytes);
    o->values = upload(h, o->poison, o->bytes);
    o->second = upload(h, o->poison, o->bytes);
    o->host_values = (unsigned char *)malloc(o->bytes);
    o->host_second = (unsigned char *)malloc(o->bytes);
}

static void poison_outputs(harness *h, outputs *o)
{
    if (yamr_copy_to_device(h->ctx, o->values, o->poison, o->bytes) != YAMR_SUCCESS ||
        yamr_copy_to_device(h->ctx, o->second, o->poison, o->bytes) != YAMR_SUCCESS)
        MPI_Abort(h->comm, 2);
}

static void fetch_outputs(harness *h, outputs *o)
{
    download(h, o->host_values, o->values, o->bytes);
    download(h, o->host_second, o->second, o->bytes);
}

static int outputs_untouched(harness *h, outputs *o)
{
    fetch_outputs(h, o);
    return memcmp(o->host_values, o->poison, o->bytes) == 0 &&
           memcmp(o->host_second, o->poison, o->bytes) == 0;
}

/* The rows functions must not write their outputs before every exchange of the call is done
 * (only then does a rank know that all succeeded): between watch_outputs() and unwatch_outputs()
 * each MPI_Allreduce first checks, on this rank, that the poisoned outputs are still poisoned. */
typedef struct {
    harness *h;
    outputs *o;
} watched_outputs;
static watched_outputs watched;

static void check_watched(void *arg)
{
    watched_outputs *w = (watched_outputs *)arg;
    CHECK(w->h, outputs_untouched(w->h, w->o), "outputs written before an exchange");
}

static void watch_outputs(harness *h, outputs *o)
{
    watched.h = h;
    watched.o = o;
    at_allreduce_arg = &watched;
    at_allreduce = check_watched;
}

static void unwatch_outputs(void) { at_allreduce = NULL; }

static void free_outputs(harness *h, outputs *o)
{
    yamr_device_free(h->ctx, o->values);
    yamr_device_free(h->ctx, o->second);
    free(o->poison);
    free(o->host_values);
    free(o->host_second);
}

/* Softmax sums are right to rounding only, but every rank must get the same bits: an FNV-1a
 * hash of both outputs, its largest and smallest over the ranks equal. */
static int same_on_every_rank(harness *h, const unsigned char *a, const unsigned char *b,
                              size_t bytes)
{
    uint64_t hash = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < 2 * bytes; ++i)
        hash = (hash ^ (i < bytes ? a[i] : b[i - bytes])) * 0x100000001b3ull;
    uint64_t range[2] = {hash, ~hash}, all[2];
    MPI_Allreduce(range, all, 2, MPI_UINT64_T, MPI_MAX, h->comm);
    return all[0] == ~all[1];
}

/* Exchanges a successful rows call makes (yamr_mpi.h). */
static long rows_exchanges(size_t rows) { return rows <= ROWS_IN_ONE_EXCHANGE ? 1 : 2; }

static void test_rows(harness *h, size_t rows)
{
    char what[160];
    h->what = what;
    outputs want, got;
    make_outputs(h, rows, &want);
    make_outputs(h, rows, &got);
    uint64_t seed = SEED * 3;
    for (int part = 0; part < COL_PARTS; ++part)
        for (int dtype = 0; dtype < YAMR_DTYPE_COUNT; ++dtype) {
            matrix_case m;
            make_matrix(h, dtype, part, rows, ++seed, &m);
            const size_t elem = yamr_dtype_size((yamr_dtype)dtype);
            for (int nan_ignore = 0; nan_ignore < 2; ++nan_ignore) {
                set_policy(h, nan_ignore);
                for (int op = 0; op < YAMR_OP_COUNT; ++op) {
                    snprintf(what, sizeof what, "rows %s %s %s %s, %zu x %zu of %zu (ld %zu)",
                             yamr_dtype_name((yamr_dtype)dtype),
                             (const char *[]){"max", "min", "argmax", "argmin"}[op],
                             nan_ignore ? "ignore" : "propagate", col_part_names[part], rows,
                             m.cols_local, m.cols, m.ld);
                    poison_outputs(h, &got);
                    const yamr_status ws =
                        yamr_reduce_rows(h->ctx, (yamr_op)op, (yamr_dtype)dtype, m.whole, rows,
                                         m.cols, m.cols, want.values, (int64_t *)want.second);
                    count_begin(h);
                    watch_outputs(h, &got);
                    const yamr_status gs = yamr_mpi_reduce_rows(
                        h->ctx, h->comm, (yamr_op)op, (yamr_dtype)dtype,
                        m.cols_local ? m.local : NULL, rows, m.cols_local, m.ld, got.values,
                        (int64_t *)got.second);
                    unwatch_outputs();
                    count_check(h, rows_exchanges(rows), "rows");
                    CHECK(h, gs == ws && ws == YAMR_SUCCESS, "status %s, want %s",
                          yamr_status_string(gs), yamr_status_string(ws));
                    fetch_outputs(h, &want);
                    fetch_outputs(h, &got);
                    for (size_t r = 0; r < rows; ++r) {
                        int64_t wi, gi;
                        memcpy(&wi, want.host_second + r * 8, 8);
                        memcpy(&gi, got.host_second + r * 8, 8);
                        CHECK(h, memcmp(want.host_values + r * elem, got.host_values + r * elem,
                                        elem) == 0 && wi == gi,
                              "row %zu: index %lld, want %lld (value bits differ: %d)", r,
                              (long long)gi, (long long)wi,
                              memcmp(want.host_values + r * elem, got.host_values + r * elem,
                                     elem) != 0);
                    }
                    CHECK(h, memcmp(got.host_values + rows * elem, got.poison, got.bytes - rows * elem) == 0,
                          "values written past the last row");
                    /* MAX / MIN without indices */
                    if (op == YAMR_OP_MAX || op == YAMR_OP_MIN) {
                        poison_outputs(h, &got);
                        watch_outputs(h, &got);
                        const yamr_status s = yamr_mpi_reduce_rows(
                            h->ctx, h->comm, (yamr_op)op, (yamr_dtype)dtype,
                            m.cols_local ? m.local : NULL, rows, m.cols_local, m.ld, got.values,
                            NULL);
                        unwatch_outputs();
                        fetch_outputs(h, &got);
                        CHECK(h, s == YAMR_SUCCESS &&
                                     memcmp(want.host_values, got.host_values, rows * elem) == 0 &&
                                     memcmp(got.host_second, got.poison, got.bytes) == 0,
                              "without indices: status %s, values equal %d",
                              yamr_status_string(s),
                              memcmp(want.host_values, got.host_values, rows * elem) == 0);
                    }
                }
                if (dtype == YAMR_DTYPE_F32 || dtype == YAMR_DTYPE_F64) {
                    snprintf(what, sizeof what, "softmax %s %s %s, %zu x %zu of %zu (ld %zu)",
                             yamr_dtype_name((yamr_dtype)dtype),
                             nan_ignore ? "ignore" : "propagate", col_part_names[part], rows,
                             m.cols_local, m.cols, m.ld);
                    poison_outputs(h, &got);
                    const yamr_status ws = yamr_softmax_stats_rows(
                        h->ctx, (yamr_dtype)dtype, m.whole, rows, m.cols, m.cols, want.values,
                        want.second);
                    count_begin(h);
                    watch_outputs(h, &got);
                    const yamr_status gs = yamr_mpi_softmax_stats_rows(
                        h->ctx, h->comm, (yamr_dtype)dtype, m.cols_local ? m.local : NULL, rows,
                        m.cols_local, m.ld, got.values, got.second);
                    unwatch_outputs();
                    count_check(h, rows_exchanges(rows), "softmax");
                    CHECK(h, gs == ws && ws == YAMR_SUCCESS, "status %s, want %s",
                          yamr_status_string(gs), yamr_status_string(ws));
                    fetch_outputs(h, &want);
                    fetch_outputs(h, &got);
                    CHECK(h, same_on_every_rank(h, got.host_values, got.host_second, rows * elem),
                          "the ranks got different bits");
                    const double tolerance = dtype == YAMR_DTYPE_F32 ? 1e-5 : 1e-12;
                    for (size_t r = 0; r < rows; ++r) {
                        double wm, ws_, gm, gs_;
                        if (dtype == YAMR_DTYPE_F64) {
                            memcpy(&wm, want.host_values + r * 8, 8);
                            memcpy(&ws_, want.host_second + r * 8, 8);
                            memcpy(&gm, got.host_values + r * 8, 8);
                            memcpy(&gs_, got.host_second + r * 8, 8);
                        } else {
                            float f[4];
                            memcpy(&f[0], want.host_values + r * 4, 4);
                            memcpy(&f[1], want.host_second + r * 4, 4);
                            memcpy(&f[2], got.host_values + r * 4, 4);
                            memcpy(&f[3], got.host_second + r * 4, 4);
                            wm = f[0], ws_ = f[1], gm = f[2], gs_ = f[3];
                        }
                        /* row_max: the same element (either zero when it is zero); NaN for
                         * NaN. row_sum: to rounding. */
                        const int max_ok = (isnan(wm) && isnan(gm)) || wm == gm;
                        const int sum_ok = (isnan(ws_) && isnan(gs_)) || ws_ == gs_ ||
                                           fabs(ws_ - gs_) <= tolerance * fabs(ws_);
                        CHECK(h, max_ok && sum_ok, "row %zu: (%.17g, %.17g), want (%.17g, %.17g)",
                              r, gm, gs_, wm, ws_);
                    }
                }
            }
            set_policy(h, 0);
            free_matrix(h, &m);
        }
    free_outputs(h, &want);
    free_outputs(h, &got);
}

/* ---- Top-k of column-split rows against yamr_topk_rows() on the whole rows ---- */

static void test_topk(harness *h, size_t rows)
{
    char what[160];
    h->what = what;
    const size_t max_k = 64; /* of the ks below, at most 64 columns in the even, uneven parts */
    uint64_t seed = SEED * 5;
    for (int part = 0; part < COL_PARTS; ++part)
        for (int dtype = 0; dtype < YAMR_DTYPE_COUNT; ++dtype) {
            matrix_case m;
            make_matrix(h, dtype, part, rows, ++seed, &m);
            const size_t elem = yamr_dtype_size((yamr_dtype)dtype);
            const size_t ks[4] = {1, 3, m.cols < max_k ? m.cols : max_k, m.cols};
            outputs want, got;
            make_outputs(h, rows * m.cols, &want);
            make_outputs(h, rows * m.cols, &got);
            for (int nan_ignore = 0; nan_ignore < 2; ++nan_ignore) {
                set_policy(h, nan_ignore);
                for (int op = 0; op < YAMR_OP_COUNT; ++op)
                    for (int ki = 0; ki < 4; ++ki) {
                        const size_t k = ks[ki];
                        if (k > m.cols || (ki > 0 && k == ks[ki - 1])) continue;
                        snprintf(what, sizeof what,
                                 "topk %s %s %s %s k %zu, %zu x %zu of %zu (ld %zu)",
                                 yamr_dtype_name((yamr_dtype)dtype),
                                 (const char *[]){"max", "min", "argmax", "argmin"}[op],
                                 nan_ignore ? "ignore" : "propagate", col_part_names[part], k,
                                 rows, m.cols_local, m.cols, m.ld);
                        poison_outputs(h, &got);
                        const yamr_status ws = yamr_topk_rows(
                            h->ctx, (yamr_op)op, (yamr_dtype)dtype, m.whole, rows, m.cols, m.cols,
                            k, want.values, (int64_t *)want.second);
                        const int with_index = op >= YAMR_OP_ARGMAX || ki == 1;
                        const yamr_status gs = yamr_mpi_topk_rows(
                            h->ctx, h->comm, (yamr_op)op, (yamr_dtype)dtype,
                            m.cols_local ? m.local : NULL, rows, m.cols_local, m.ld, k,
                            got.values, with_index ? (int64_t *)got.second : NULL);
                        CHECK(h, gs == ws && ws == YAMR_SUCCESS, "status %s, want %s",
                              yamr_status_string(gs), yamr_status_string(ws));
                        fetch_outputs(h, &want);
                        fetch_outputs(h, &got);
                        CHECK(h, memcmp(want.host_values, got.host_values, rows * k * elem) == 0,
                              "values differ");
                        CHECK(h, with_index ? memcmp(want.host_second, got.host_second,
                                                     rows * k * 8) == 0
                                            : memcmp(got.host_second, got.poison, got.bytes) == 0,
                              with_index ? "indices differ" : "wrote indices it was not given");
                        CHECK(h, memcmp(got.host_values + rows * k * elem, got.poison,
                                        got.bytes - rows * k * elem) == 0,
                              "values written past the last row");
                    }
            }
            /* k beyond the total columns, and one rank asking another k: the same
             * YAMR_ERROR_INVALID_VALUE everywhere, nothing written */
            set_policy(h, 0);
            for (int bad = 0; bad < 2; ++bad) {
                snprintf(what, sizeof what, "topk %s %s: %s", yamr_dtype_name((yamr_dtype)dtype),
                         col_part_names[part], bad ? "disagree_k" : "k_above_cols");
                const size_t k = bad ? (h->rank == h->ranks - 1 ? 2 : 1) : m.cols + 1;
                if (bad && h->ranks == 1) continue;
                poison_outputs(h, &got);
                const yamr_status gs = yamr_mpi_topk_rows(
                    h->ctx, h->comm, YAMR_OP_ARGMAX, (yamr_dtype)dtype,
                    m.cols_local ? m.local : NULL, rows, m.cols_local, m.ld,
                    k <= m.cols ? k : m.cols + 1, got.values, (int64_t *)got.second);
                CHECK(h, gs == YAMR_ERROR_INVALID_VALUE, "status %s", yamr_status_string(gs));
                CHECK(h, outputs_untouched(h, &got), "outputs written");
            }
            free_outputs(h, &want);
            free_outputs(h, &got);
            free_matrix(h, &m);
        }
}

/* ---- Errors: one rank differs; every rank gets the same status and keeps its outputs ---- */

typedef enum {
    BAD_NONE,
    BAD_CTX,        /* a NULL context */
    BAD_IN,         /* in NULL with n_local > 0 */
    BAD_VALUE,      /* value (values, row_max) NULL */
    BAD_INDEX,      /* index NULL for ARGMAX (row_sum NULL for softmax) */
    BAD_OP,         /* op out of range */
    BAD_DTYPE,      /* dtype out of range */
    BAD_LD,         /* ld < cols_local */
    DISAGREE_OP,    /* ARGMIN where the others ask for ARGMAX */
    DISAGREE_DTYPE, /* I32 (softmax: F64) where the others ask for F32 */
    DISAGREE_NAN,   /* YAMR_NAN_IGNORE where the others propagate */
    DISAGREE_ROWS,  /* one row more */
    ALL_EMPTY,      /* every rank n_local == 0 (or cols_local == 0): a total of 0 */
    ALL_UNSUPPORTED,/* softmax of I32 on every rank */
    BAD_OP_NEG,     /* op -1 (which once read as minmax: another exchange count) */
    BAD_DTYPE_NEG,  /* dtype -1 */
    BAD_NAN,        /* yamr_set_nan_policy(-1) and (2) refused, the policy kept: all agree */
    OTHER_FN,       /* another yamr_mpi_* function than the others (other_fn below) */
    BAD_COUNT
} bad_kind;
static const char *const bad_names[BAD_COUNT] = {
    "none",          "null_ctx",     "null_in",        "null_value",   "null_index",
    "op_range",      "dtype_range",  "ld_small",       "disagree_op",  "disagree_dtype",
    "disagree_nan",  "disagree_rows", "all_empty",     "all_unsupported", "op_negative",
    "dtype_negative", "nan_policy_range", "other_function"};
/* The function a rank calls instead in OTHER_FN: reduce, minmax, rows, softmax in turn, each
 * against one whose first exchange once had another count. */
static const int other_fn[4] = {2, 0, 0, 1};

/* rows: of the rows functions; rows_only: leave out reduce and minmax. */
static void test_errors(harness *h, size_t rows, int rows_only)
{
    char what[160];
    h->what = what;
    const size_t n = 16;
    /* rows x n f32, ld n; room for f64 (a rank that disagrees) */
    const size_t host_count = 2 * rows * n;
    float *host = (float *)malloc(host_count * sizeof *host);
    for (size_t i = 0; i < host_count; ++i) host[i] = (float)((i * 7) % 11) - 5.0f;
    void *in = upload(h, host, host_count * sizeof *host);
    free(host);
    outputs o;
    make_outputs(h, rows, &o);
    const int bad_ranks[2] = {0, h->ranks - 1};
    for (int b = 0; b < BAD_COUNT; ++b)
        for (int which = 0; which < (h->ranks > 1 ? 2 : 1); ++which)
            for (int fn = rows_only ? 2 : 0; fn < 4; ++fn) { /* reduce, minmax, rows, softmax */
                const bad_kind bad = (bad_kind)b;
                const int me = h->rank == bad_ranks[which];
                if (h->ranks == 1 && bad >= DISAGREE_OP && bad <= DISAGREE_ROWS) continue;
                if (h->ranks == 1 && bad == OTHER_FN) continue;
                if ((fn <= 1 && (bad == BAD_LD || bad == DISAGREE_ROWS)) ||
                    (fn != 3 && bad == ALL_UNSUPPORTED) ||
                    ((fn == 1 || fn == 3) &&
                     (bad == BAD_OP || bad == BAD_OP_NEG || bad == DISAGREE_OP)) ||
                    (fn == 1 && bad == BAD_INDEX)) /* minmax takes NULL indices */
                    continue;
                /* the function this rank calls */
                const int call = me && bad == OTHER_FN ? other_fn[fn] : fn;
                static const char *const fn_names[4] = {"reduce", "minmax", "rows", "softmax"};
                snprintf(what, sizeof what, "error %s %s on rank %d, %zu rows", fn_names[fn],
                         bad_names[bad], bad_ranks[which], rows);
                yamr_context *ctx = me && bad == BAD_CTX ? NULL : h->ctx;
                const void *src = me && bad == BAD_IN ? NULL : in;
                yamr_op op = me && bad == BAD_OP ? (yamr_op)YAMR_OP_COUNT
                             : me && bad == BAD_OP_NEG ? (yamr_op)-1
                             : me && bad == DISAGREE_OP ? YAMR_OP_ARGMIN
                                                        : YAMR_OP_ARGMAX;
                yamr_dtype dtype = me && bad == BAD_DTYPE ? (yamr_dtype)YAMR_DTYPE_COUNT
                                   : me && bad == BAD_DTYPE_NEG ? (yamr_dtype)-1
                                   : me && bad == DISAGREE_DTYPE
                                       ? (fn == 3 ? YAMR_DTYPE_F64 : YAMR_DTYPE_I32)
                                   : bad == ALL_UNSUPPORTED ? YAMR_DTYPE_I32
                                                            : YAMR_DTYPE_F32;
                size_t count = bad == ALL_EMPTY ? 0 : n;
                size_t ld = me && bad == BAD_LD ? n - 1 : n;
                size_t nrows = me && bad == DISAGREE_ROWS ? rows - 1 : rows;
                set_policy(h, me && bad == DISAGREE_NAN);
                if (me && bad == BAD_NAN)
                    CHECK(h, yamr_set_nan_policy(h->ctx, (yamr_nan_policy)-1) ==
                                     YAMR_ERROR_INVALID_VALUE &&
                                 yamr_set_nan_policy(h->ctx, (yamr_nan_policy)2) ==
                                     YAMR_ERROR_INVALID_VALUE,
                          "yamr_set_nan_policy took a policy out of range");
                const yamr_status want = bad == BAD_NONE || bad == BAD_NAN ? YAMR_SUCCESS
                                         : bad == ALL_UNSUPPORTED ? YAMR_ERROR_UNSUPPORTED
                                                                  : YAMR_ERROR_INVALID_VALUE;
                yamr_status s;
                uint64_t v[2];
                int64_t idx[2];
                memset(v, POISON, sizeof v);
                memset(idx, POISON, sizeof idx);
                if (call > 1) {
                    poison_outputs(h, &o);
                    watch_outputs(h, &o);
                }
                count_begin(h);
                if (call <= 1) {
                    if (call == 0)
                        s = yamr_mpi_reduce(ctx, h->comm, op, dtype, src, count,
                                            me && bad == BAD_VALUE ? NULL : &v[0],
                                            me && bad == BAD_INDEX ? NULL : &idx[0]);
                    else
                        s = yamr_mpi_minmax(ctx, h->comm, dtype, src, count,
                                            me && bad == BAD_VALUE ? NULL : &v[0], &idx[0],
                                            &v[1], &idx[1]);
                    count_check(h, 1, "every rank in the one exchange");
                    unsigned char p[sizeof v];
                    memset(p, POISON, sizeof p);
                    CHECK(h, s == want, "status %s, want %s", yamr_status_string(s),
                          yamr_status_string(want));
                    if (want != YAMR_SUCCESS)
                        CHECK(h, memcmp(v, p, sizeof v) == 0 && memcmp(idx, p, sizeof idx) == 0,
                              "outputs written on failure");
                } else {
                    if (call == 2)
                        s = yamr_mpi_reduce_rows(ctx, h->comm, op, dtype, count ? src : NULL,
                                                 nrows, count, ld,
                                                 me && bad == BAD_VALUE ? NULL : o.values,
                                                 me && bad == BAD_INDEX ? NULL
                                                                        : (int64_t *)o.second);
                    else
                        s = yamr_mpi_softmax_stats_rows(ctx, h->comm, dtype, count ? src : NULL,
                                                        nrows, count, ld,
                                                        me && bad == BAD_VALUE ? NULL : o.values,
                                                        me && bad == BAD_INDEX ? NULL : o.second);
                    unwatch_outputs();
                    /* a failure is known after the first exchange, on every rank */
                    count_check(h, want == YAMR_SUCCESS ? rows_exchanges(rows) : 1,
                                "every rank in the one exchange");
                    CHECK(h, s == want, "status %s, want %s", yamr_status_string(s),
                          yamr_status_string(want));
                    if (want != YAMR_SUCCESS)
                        CHECK(h, outputs_untouched(h, &o), "outputs written on failure");
                }
            }
    set_policy(h, 0);
    /* MPI_COMM_NULL: not a collective; this rank alone gets the status. */
    h->what = "error MPI_COMM_NULL";
    uint64_t v = 0;
    int64_t idx = 0;
    count_begin(h);
    CHECK(h, yamr_mpi_reduce(h->ctx, MPI_COMM_NULL, YAMR_OP_MAX, YAMR_DTYPE_F32, in, n, &v, &idx) ==
                 YAMR_ERROR_INVALID_VALUE,
          "a null communicator");
    count_check(h, 0, "a null communicator");
    yamr_device_free(h->ctx, in);
    free_outputs(h, &o);
}

/* ---- main ---- */

/* The GPU of this rank: node-local rank modulo the number of GPUs yamr can open. */
static int pick_gpu(MPI_Comm comm)
{
    MPI_Comm node;
    int local_rank = 0, count = 0;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_free(&node);
    for (yamr_context *probe; count < 64 && yamr_create(&probe, count) == YAMR_SUCCESS; ++count)
        yamr_destroy(probe);
    return count ? local_rank % count : -2;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    harness h = {MPI_COMM_WORLD, 0, 0, NULL, 0, 0, ""};
    MPI_Comm_rank(h.comm, &h.rank);
    MPI_Comm_size(h.comm, &h.ranks);
    MPI_Comm_set_errhandler(h.comm, MPI_ERRORS_RETURN);
    if (h.ranks > MAX_RANKS) {
        if (h.rank == 0) fprintf(stderr, "test_mpi: at most %d ranks\n", MAX_RANKS);
        MPI_Finalize();
        return 2;
    }
    const int gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    /* The ranks the launcher started (ctest passes them): a launcher of another MPI than the
     * one the test links starts that many singletons, each of which would pass alone. */
    const int launched = argc > 2 ? atoi(argv[2]) : h.ranks;
    if (launched != h.ranks) {
        printf("test_mpi: FAILED: launched as %d ranks, but this process sees %d (the mpiexec "
               "and the MPI library it links do not match)\n", launched, h.ranks);
        MPI_Finalize();
        return 1;
    }
    int device = YAMR_DEVICE_CPU;
    if (gpu) device = pick_gpu(h.comm);
    int opened = device >= YAMR_DEVICE_CPU && yamr_create(&h.ctx, device) == YAMR_SUCCESS, all = 0;
    MPI_Allreduce(&opened, &all, 1, MPI_INT, MPI_MIN, h.comm);
    if (!all) {
        if (h.rank == 0) printf("test_mpi %s: SKIPPED (no GPU on some rank)\n", gpu ? "gpu" : "cpu");
        if (h.ctx) yamr_destroy(h.ctx);
        MPI_Finalize();
        return gpu ? 77 : 1;
    }
    int devices[MAX_RANKS];
    const int gathered = MPI_Gather(&device, 1, MPI_INT, devices, 1, MPI_INT, 0, h.comm);
    if (h.rank == 0) {
        printf("test_mpi %s: %d ranks, seed %u", gpu ? "gpu" : "cpu", h.ranks, SEED);
        if (gathered == MPI_SUCCESS) {
            printf("; devices by rank:");
            for (int r = 0; r < h.ranks; ++r)
                if (devices[r] == YAMR_DEVICE_CPU)
                    printf(" cpu");
                else
                    printf(" GPU %d", devices[r]);
        }
        printf("\n");
    }

    test_reduce(&h);
    /* rows: fewer than travel in the one exchange, and more (the rest in a second) */
    test_rows(&h, 2 * DATA_KINDS + 1);
    test_rows(&h, 150);
    test_errors(&h, 3, 0);
    test_errors(&h, 150, 1);
    test_topk(&h, 2 * DATA_KINDS + 1);

    long counts[2] = {h.checks, h.failures}, sums[2] = {0, 0};
    MPI_Allreduce(counts, sums, 2, MPI_LONG, MPI_SUM, h.comm);
    if (h.rank == 0)
        printf("test_mpi %s, %d ranks: %ld checks, %ld failed: %s\n", gpu ? "gpu" : "cpu",
               h.ranks, sums[0], sums[1], sums[1] ? "FAILED" : "PASSED");
    yamr_destroy(h.ctx);
    MPI_Finalize();
    return sums[1] ? 1 : 0;
}
