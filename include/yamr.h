/* SPDX-License-Identifier: MIT */
/*
 * yamr: max / min / argmax / argmin reductions on NVIDIA and AMD GPUs (HIP) and on the CPU.
 *
 * The whole public C API. C99; compiles alone as C and as C++; includes no GPU header.
 *
 * Semantics (every backend, every variant except YAMR_VARIANT_RACY, which is an exhibit):
 *  - Values compare with < and >, so -0.0 equals +0.0. On ties the smallest index wins, and the
 *    value reported is the element at that index (so max of {-0.0, +0.0} is -0.0, index 0).
 *  - YAMR_NAN_PROPAGATE (default): any NaN makes the result that NaN and the index that of the
 *    first NaN. YAMR_NAN_IGNORE: NaNs are skipped; if every element is NaN the value is NaN
 *    and the index is -1.
 *  - Failure (any status but YAMR_SUCCESS) writes nothing to the outputs.
 *  - Indices are 64-bit and count elements from 0.
 *
 * Memory: `in` lives in the memory the context computes on: device memory of the context's GPU,
 * or host memory for a YAMR_DEVICE_CPU context. Synchronous calls write results (`value`,
 * `index`) to host memory and return when they are written (on a GPU, once the kernel's
 * answer has reached host memory, when it has read all of `in`: its last instructions may
 * still be running, and work queued after it on the context's stream waits for them as usual). The
 * `_async` forms write them to the context's memory, in stream order on the context's stream,
 * and return at once (on the CPU they run to completion before returning). Any n >= 1 works on
 * every backend; indices are 64-bit. A `value` output is aligned for its dtype.
 *
 * Threads: a context is used by one thread at a time; distinct contexts are independent.
 */
#ifndef YAMR_H
#define YAMR_H

#include <stddef.h>
#include <stdint.h>

#include "yamr_export.h"
#include "yamr_version.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Device ordinal that selects the CPU backend in yamr_create(). */
#define YAMR_DEVICE_CPU (-1)

typedef enum {
    YAMR_SUCCESS = 0,         /**< the call did what it says */
    YAMR_ERROR_INVALID_VALUE, /**< NULL pointer, n == 0, an enum value out of range, a size the
                                   call refuses: yamr_last_error() names which */
    YAMR_ERROR_NO_DEVICE,     /**< no GPU with that ordinal, or the library was built without GPU support */
    YAMR_ERROR_UNSUPPORTED,   /**< valid request this context cannot run (variant, dtype or size) */
    YAMR_ERROR_OUT_OF_MEMORY, /**< host or device allocation failed */
    YAMR_ERROR_DEVICE,        /**< the GPU runtime reported an error: see yamr_last_error() */
    YAMR_ERROR_COMMUNICATION  /**< an MPI call failed (yamr_mpi.h only) */
} yamr_status;

typedef enum { YAMR_NAN_PROPAGATE = 0, YAMR_NAN_IGNORE } yamr_nan_policy;

/**
 * Single-block reduction algorithms (docs/variants.md gives each one's correctness argument).
 * AUTO picks, from the device's warp width, scheduling model and vendor (and, for a call small
 * enough to run one block, the element size and op), the fastest variant whose correctness on
 * that hardware is established; it never picks RACY or RACY_VOLATILE.
 *
 * What a variant set with yamr_set_variant() runs on a GPU (other calls: YAMR_ERROR_UNSUPPORTED):
 * - WARP_SHUFFLE: every call.
 * - ATOMIC: the calls AUTO gives it (a max, min, argmax or argmin of elements of at most 4 bytes
 *   that runs one block: up to 2^14 elements of 4 bytes), and any other call of at most
 *   max_block_threads elements (yamr_device_info) as one block of a thread per element.
 * - SHARED_TREE, RACY_ITS, RACY_VOLATILE: calls of at most max_block_threads elements, every
 *   dtype and call (min+max, asynchronous), as one block of a thread per element: the race lab's
 *   kernel, so that the race behaviour compares across warp and wavefront hardware.
 * - RACY: nothing in the library (yamr_set_variant() refuses it); `yamr-bench race` runs it.
 */
typedef enum {
    YAMR_VARIANT_AUTO = 0,
    YAMR_VARIANT_RACY,          /**< the seed kernel as written: float32 max only, not correct */
    YAMR_VARIANT_RACY_VOLATILE, /**< the seed loop, re-reading the shared value every pass */
    YAMR_VARIANT_RACY_ITS,      /**< the racy loop with a block-wide verify-and-retry: correct anywhere */
    YAMR_VARIANT_ATOMIC,        /**< shared-memory atomic max on an order-preserving integer key */
    YAMR_VARIANT_SHARED_TREE,   /**< tree in shared memory, sequential addressing, unrolled last warp */
    YAMR_VARIANT_WARP_SHUFFLE   /**< warp shuffles, then one warp over the per-warp results */
} yamr_variant;
#define YAMR_VARIANT_COUNT 7

typedef enum {
    YAMR_DTYPE_F32 = 0,
    YAMR_DTYPE_F64,
    YAMR_DTYPE_F16,  /**< IEEE binary16, passed as uint16_t storage */
    YAMR_DTYPE_BF16, /**< bfloat16, passed as uint16_t storage */
    YAMR_DTYPE_I32,
    YAMR_DTYPE_U32,
    YAMR_DTYPE_I64
} yamr_dtype;
#define YAMR_DTYPE_COUNT 7

typedef enum { YAMR_OP_MAX = 0, YAMR_OP_MIN, YAMR_OP_ARGMAX, YAMR_OP_ARGMIN } yamr_op;
#define YAMR_OP_COUNT 4

typedef enum { YAMR_VENDOR_CPU = 0, YAMR_VENDOR_NVIDIA, YAMR_VENDOR_AMD } yamr_vendor;

/** What a context found out about its device, read once at yamr_create(). */
typedef struct {
    yamr_vendor vendor;
    char name[256];         /**< e.g. "NVIDIA H100 80GB HBM3", or "cpu" */
    char arch[64];          /**< e.g. "sm_90", "gfx90a", or "cpu" */
    int warp_size;          /**< lanes per warp / wavefront (1 for the CPU) */
    int independent_thread_scheduling; /**< 1 when the lanes of a warp need not run in lockstep */
    int multiprocessors;    /**< SMs / CUs (1 for the CPU) */
    int max_block_threads;  /**< threads per block; also the largest n a single-block variant takes */
} yamr_device_info;

typedef struct yamr_context yamr_context;

/** Opens `device` (a GPU ordinal, or YAMR_DEVICE_CPU). On failure *ctx is left untouched. */
YAMR_API yamr_status yamr_create(yamr_context **ctx, int device);
/**
 * yamr_create() that says why it failed, since a context that was never made has no
 * yamr_last_error(). `why` (NULL, or `why_len` bytes of host memory) receives a NUL-terminated
 * reason, cut to fit: "" on success; otherwise e.g. "no GPU with ordinal 3 (1 found)", "yamr
 * was built without a GPU backend (device 0)" or the GPU runtime's own message (a driver older
 * than the runtime, a device that is busy or lost).
 */
YAMR_API yamr_status yamr_create_ex(yamr_context **ctx, int device, char *why, size_t why_len);
/** Releases the context and everything it owns. NULL is a no-op. */
YAMR_API void yamr_destroy(yamr_context *ctx);

/** A static, never NULL string naming the status ("YAMR_ERROR_DEVICE: ..."). */
YAMR_API const char *yamr_status_string(yamr_status s);
/**
 * What went wrong, in a line that names the function and the argument, e.g. "yamr_reduce_rows:
 * ld (19) < cols (20)", or the GPU runtime's message of a YAMR_ERROR_DEVICE. With a context: the
 * last failure of a call on it that took it non-const (the reductions, settings, memory
 * helpers; a reduction that succeeds clears it), "" if none; owned by ctx. With NULL: the last
 * failure on the calling thread that had no context to hold it (a NULL ctx, yamr_create(),
 * yamr_create_ex(), and the calls that take a const context: yamr_plan_for(), the yamr_get_*
 * functions), kept per thread. Every YAMR_ERROR_INVALID_VALUE writes one of the two.
 */
YAMR_API const char *yamr_last_error(const yamr_context *ctx);
/**
 * The library's version, "0.6.0", as a static string; each of major, minor and patch that is not
 * NULL receives its number. Compare with YAMR_VERSION_STRING (yamr_version.h), the version of
 * the header a program was compiled with. Before 1.0 each minor version is a new ABI (soname
 * libyamr.so.0.<minor>).
 */
YAMR_API const char *yamr_version(int *major, int *minor, int *patch);
/** "racy", "warp_shuffle", ...; "invalid" for a value out of range. */
YAMR_API const char *yamr_variant_name(yamr_variant v);
YAMR_API const char *yamr_dtype_name(yamr_dtype t);
/** Size in bytes of one element of `t`, or 0 when out of range. */
YAMR_API size_t yamr_dtype_size(yamr_dtype t);

/**
 * Chooses the algorithm. YAMR_ERROR_UNSUPPORTED when this context's device cannot run `v`
 * (a CPU context accepts only AUTO; a GPU context refuses a variant built for no warp width the
 * device has). The setting is kept on failure.
 */
YAMR_API yamr_status yamr_set_variant(yamr_context *ctx, yamr_variant v);
YAMR_API yamr_status yamr_set_nan_policy(yamr_context *ctx, yamr_nan_policy p);
/** The context's NaN policy (layers over yamr, such as yamr_mpi.h, check that peers agree). */
YAMR_API yamr_status yamr_get_nan_policy(const yamr_context *ctx, yamr_nan_policy *p);
/**
 * The GPU stream every call of ctx runs on: a cudaStream_t or hipStream_t passed as void *.
 * NULL (the default) is the default stream. Calls on one context are ordered on that stream,
 * since they share the context's workspace. YAMR_ERROR_UNSUPPORTED on a CPU context.
 */
YAMR_API yamr_status yamr_set_stream(yamr_context *ctx, void *stream);
/**
 * The most threads a call on this CPU context may use: 0 (the default) leaves the count to
 * OpenMP (OMP_NUM_THREADS, else one per core, shared among the ranks an MPI launcher started on
 * this node as its environment names them: Open MPI's OMPI_COMM_WORLD_LOCAL_SIZE, MPICH's
 * MPI_LOCALNRANKS; read at yamr_create()); n >= 1 caps it at n. A call uses fewer threads
 * when its data is too short to pay for them; results never depend on the count. A library built
 * without OpenMP (YAMR_WITH_OPENMP=OFF, or no OpenMP found) runs every call on the calling
 * thread. YAMR_ERROR_UNSUPPORTED on a GPU context; YAMR_ERROR_INVALID_VALUE for n < 0.
 */
YAMR_API yamr_status yamr_set_cpu_threads(yamr_context *ctx, int threads);
/** The cap yamr_set_cpu_threads() set (0: none). YAMR_ERROR_UNSUPPORTED on a GPU context. */
YAMR_API yamr_status yamr_get_cpu_threads(const yamr_context *ctx, int *threads);

YAMR_API yamr_status yamr_get_device_info(const yamr_context *ctx, yamr_device_info *info);
/**
 * A multi-line, human-readable report: vendor, device, arch, warp width, scheduling model, the
 * architecture family whose tuning rows the calls run (and whether they were measured or are
 * derived), the variant set and the one AUTO picks with its reason, and the plan of the last
 * call with its tuning row and that row's reason. Owned by ctx; valid until the next call on
 * ctx.
 */
YAMR_API const char *yamr_report(yamr_context *ctx);

/**
 * Memory the context computes on (device memory of its GPU; host memory for a CPU context), so
 * that a C code needs no GPU header. Allocation is not on the reduction path: allocate once.
 * On failure *ptr is left untouched.
 */
YAMR_API yamr_status yamr_device_alloc(yamr_context *ctx, size_t bytes, void **ptr);
/** Frees what yamr_device_alloc() returned. NULL is a no-op. */
YAMR_API yamr_status yamr_device_free(yamr_context *ctx, void *ptr);
/** Copies host memory to the context's memory, and back. Synchronous. */
YAMR_API yamr_status yamr_copy_to_device(yamr_context *ctx, void *dst, const void *src,
                                         size_t bytes);
YAMR_API yamr_status yamr_copy_to_host(yamr_context *ctx, void *dst, const void *src, size_t bytes);
/**
 * Scratch memory owned by the context, for layers built over yamr (such as yamr_mpi.h) that
 * stage results without allocating on every call. *ptr receives at least `bytes` of the
 * context's memory (device memory of its GPU; host memory for a CPU context), aligned for any
 * dtype and freed by yamr_destroy(). Only a request for more than the context holds allocates:
 * the memory held so far is freed first (its contents are lost and earlier pointers invalid,
 * even when the new allocation then fails); a request for no more returns the same pointer,
 * contents kept. yamr's own calls never use it. YAMR_ERROR_INVALID_VALUE for a NULL ctx or ptr
 * or bytes == 0; YAMR_ERROR_OUT_OF_MEMORY (or YAMR_ERROR_DEVICE) when the allocation fails.
 * On failure *ptr is left untouched.
 */
YAMR_API yamr_status yamr_context_scratch(yamr_context *ctx, size_t bytes, void **ptr);

/**
 * The generic entry point, for codes that dispatch on their own type tags.
 * `in`: n elements of `dtype` (see Memory above). `value`: host memory for one element of
 * `dtype`, never NULL. `index`: host int64_t; may be NULL for MAX/MIN, required for
 * ARGMAX/ARGMIN.
 */
YAMR_API yamr_status yamr_reduce(yamr_context *ctx, yamr_op op, yamr_dtype dtype, const void *in,
                                 size_t n, void *value, int64_t *index);
/** yamr_reduce() with `value` and `index` in the context's memory, in stream order. */
YAMR_API yamr_status yamr_reduce_async(yamr_context *ctx, yamr_op op, yamr_dtype dtype,
                                       const void *in, size_t n, void *value, int64_t *index);

/**
 * Min and max together in one pass: values (never NULL) and their first indices (each may be
 * NULL), the same semantics as YAMR_OP_ARGMIN and YAMR_OP_ARGMAX.
 */
YAMR_API yamr_status yamr_minmax(yamr_context *ctx, yamr_dtype dtype, const void *in, size_t n,
                                 void *min_value, int64_t *min_index, void *max_value,
                                 int64_t *max_index);
YAMR_API yamr_status yamr_minmax_async(yamr_context *ctx, yamr_dtype dtype, const void *in,
                                       size_t n, void *min_value, int64_t *min_index,
                                       void *max_value, int64_t *max_index);

/*
 * Typed forms: yamr_{max,min}_<t>(ctx, in, n, out) and yamr_{argmax,argmin}_<t>(ctx, in, n, out,
 * index), each also as _async, for t in f32 (float), f64 (double), f16 and bf16 (uint16_t
 * storage), i32 (int32_t), u32 (uint32_t), i64 (int64_t).
 */
/* typed declarations: begin (scripts/typed-decls.py writes this block) */
/* f32: float */
YAMR_API yamr_status yamr_max_f32(yamr_context *ctx, const float *in, size_t n, float *out);
YAMR_API yamr_status yamr_min_f32(yamr_context *ctx, const float *in, size_t n, float *out);
YAMR_API yamr_status yamr_argmax_f32(yamr_context *ctx, const float *in, size_t n, float *out,
                                     int64_t *index);
YAMR_API yamr_status yamr_argmin_f32(yamr_context *ctx, const float *in, size_t n, float *out,
                                     int64_t *index);
YAMR_API yamr_status yamr_max_f32_async(yamr_context *ctx, const float *in, size_t n, float *out);
YAMR_API yamr_status yamr_min_f32_async(yamr_context *ctx, const float *in, size_t n, float *out);
YAMR_API yamr_status yamr_argmax_f32_async(yamr_context *ctx, const float *in, size_t n, float *out,
                                           int64_t *index);
YAMR_API yamr_status yamr_argmin_f32_async(yamr_context *ctx, const float *in, size_t n, float *out,
                                           int64_t *index);
/* f64: double */
YAMR_API yamr_status yamr_max_f64(yamr_context *ctx, const double *in, size_t n, double *out);
YAMR_API yamr_status yamr_min_f64(yamr_context *ctx, const double *in, size_t n, double *out);
YAMR_API yamr_status yamr_argmax_f64(yamr_context *ctx, const double *in, size_t n, double *out,
                                     int64_t *index);
YAMR_API yamr_status yamr_argmin_f64(yamr_context *ctx, const double *in, size_t n, double *out,
                                     int64_t *index);
YAMR_API yamr_status yamr_max_f64_async(yamr_context *ctx, const double *in, size_t n, double *out);
YAMR_API yamr_status yamr_min_f64_async(yamr_context *ctx, const double *in, size_t n, double *out);
YAMR_API yamr_status yamr_argmax_f64_async(yamr_context *ctx, const double *in, size_t n,
                                           double *out, int64_t *index);
YAMR_API yamr_status yamr_argmin_f64_async(yamr_context *ctx, const double *in, size_t n,
                                           double *out, int64_t *index);
/* f16: uint16_t */
YAMR_API yamr_status yamr_max_f16(yamr_context *ctx, const uint16_t *in, size_t n, uint16_t *out);
YAMR_API yamr_status yamr_min_f16(yamr_context *ctx, const uint16_t *in, size_t n, uint16_t *out);
YAMR_API yamr_status yamr_argmax_f16(yamr_context *ctx, const uint16_t *in, size_t n, uint16_t *out,
                                     int64_t *index);
YAMR_API yamr_status yamr_argmin_f16(yamr_context *ctx, const uint16_t *in, size_t n, uint16_t *out,
                                     int64_t *index);
YAMR_API yamr_status yamr_max_f16_async(yamr_context *ctx, const uint16_t *in, size_t n,
                                        uint16_t *out);
YAMR_API yamr_status yamr_min_f16_async(yamr_context *ctx, const uint16_t *in, size_t n,
                                        uint16_t *out);
YAMR_API yamr_status yamr_argmax_f16_async(yamr_context *ctx, const uint16_t *in, size_t n,
                                           uint16_t *out, int64_t *index);
YAMR_API yamr_status yamr_argmin_f16_async(yamr_context *ctx, const uint16_t *in, size_t n,
                                           uint16_t *out, int64_t *index);
/* bf16: uint16_t */
YAMR_API yamr_status yamr_max_bf16(yamr_context *ctx, const uint16_t *in, size_t n, uint16_t *out);
YAMR_API yamr_status yamr_min_bf16(yamr_context *ctx, const uint16_t *in, size_t n, uint16_t *out);
YAMR_API yamr_status yamr_argmax_bf16(yamr_context *ctx, const uint16_t *in, size_t n,
                                      uint16_t *out, int64_t *index);
YAMR_API yamr_status yamr_argmin_bf16(yamr_context *ctx, const uint16_t *in, size_t n,
                                      uint16_t *out, int64_t *index);
YAMR_API yamr_status yamr_max_bf16_async(yamr_context *ctx, const uint16_t *in, size_t n,
                                         uint16_t *out);
YAMR_API yamr_status yamr_min_bf16_async(yamr_context *ctx, const uint16_t *in, size_t n,
                                         uint16_t *out);
YAMR_API yamr_status yamr_argmax_bf16_async(yamr_context *ctx, const uint16_t *in, size_t n,
                                            uint16_t *out, int64_t *index);
YAMR_API yamr_status yamr_argmin_bf16_async(yamr_context *ctx, const uint16_t *in, size_t n,
                                            uint16_t *out, int64_t *index);
/* i32: int32_t */
YAMR_API yamr_status yamr_max_i32(yamr_context *ctx, const int32_t *in, size_t n, int32_t *out);
YAMR_API yamr_status yamr_min_i32(yamr_context *ctx, const int32_t *in, size_t n, int32_t *out);
YAMR_API yamr_status yamr_argmax_i32(yamr_context *ctx, const int32_t *in, size_t n, int32_t *out,
                                     int64_t *index);
YAMR_API yamr_status yamr_argmin_i32(yamr_context *ctx, const int32_t *in, size_t n, int32_t *out,
                                     int64_t *index);
YAMR_API yamr_status yamr_max_i32_async(yamr_context *ctx, const int32_t *in, size_t n,
                                        int32_t *out);
YAMR_API yamr_status yamr_min_i32_async(yamr_context *ctx, const int32_t *in, size_t n,
                                        int32_t *out);
YAMR_API yamr_status yamr_argmax_i32_async(yamr_context *ctx, const int32_t *in, size_t n,
                                           int32_t *out, int64_t *index);
YAMR_API yamr_status yamr_argmin_i32_async(yamr_context *ctx, const int32_t *in, size_t n,
                                           int32_t *out, int64_t *index);
/* u32: uint32_t */
YAMR_API yamr_status yamr_max_u32(yamr_context *ctx, const uint32_t *in, size_t n, uint32_t *out);
YAMR_API yamr_status yamr_min_u32(yamr_context *ctx, const uint32_t *in, size_t n, uint32_t *out);
YAMR_API yamr_status yamr_argmax_u32(yamr_context *ctx, const uint32_t *in, size_t n, uint32_t *out,
                                     int64_t *index);
YAMR_API yamr_status yamr_argmin_u32(yamr_context *ctx, const uint32_t *in, size_t n, uint32_t *out,
                                     int64_t *index);
YAMR_API yamr_status yamr_max_u32_async(yamr_context *ctx, const uint32_t *in, size_t n,
                                        uint32_t *out);
YAMR_API yamr_status yamr_min_u32_async(yamr_context *ctx, const uint32_t *in, size_t n,
                                        uint32_t *out);
YAMR_API yamr_status yamr_argmax_u32_async(yamr_context *ctx, const uint32_t *in, size_t n,
                                           uint32_t *out, int64_t *index);
YAMR_API yamr_status yamr_argmin_u32_async(yamr_context *ctx, const uint32_t *in, size_t n,
                                           uint32_t *out, int64_t *index);
/* i64: int64_t */
YAMR_API yamr_status yamr_max_i64(yamr_context *ctx, const int64_t *in, size_t n, int64_t *out);
YAMR_API yamr_status yamr_min_i64(yamr_context *ctx, const int64_t *in, size_t n, int64_t *out);
YAMR_API yamr_status yamr_argmax_i64(yamr_context *ctx, const int64_t *in, size_t n, int64_t *out,
                                     int64_t *index);
YAMR_API yamr_status yamr_argmin_i64(yamr_context *ctx, const int64_t *in, size_t n, int64_t *out,
                                     int64_t *index);
YAMR_API yamr_status yamr_max_i64_async(yamr_context *ctx, const int64_t *in, size_t n,
                                        int64_t *out);
YAMR_API yamr_status yamr_min_i64_async(yamr_context *ctx, const int64_t *in, size_t n,
                                        int64_t *out);
YAMR_API yamr_status yamr_argmax_i64_async(yamr_context *ctx, const int64_t *in, size_t n,
                                           int64_t *out, int64_t *index);
YAMR_API yamr_status yamr_argmin_i64_async(yamr_context *ctx, const int64_t *in, size_t n,
                                           int64_t *out, int64_t *index);
/* typed declarations: end */

/*
 * Batched reductions: one answer per row of a matrix, or per segment of an array.
 *
 * Each row (or segment) is reduced with the semantics above: the first index on ties, -0.0 ==
 * +0.0 with the element at the first index reported, the context's NaN policy (a row of NaNs
 * only, under YAMR_NAN_IGNORE, gives a NaN value and index -1). Indices count elements from the
 * start of their row or segment.
 *
 * Memory: `in`, `offsets` and every output live in the memory the context computes on (device
 * memory of its GPU; host memory for a YAMR_DEVICE_CPU context), for the synchronous and the
 * `_async` forms alike, since a batched result is an array. A synchronous call returns when the
 * outputs are written; an `_async` call returns at once and writes them in stream order on the
 * context's stream (on the CPU both run to completion before returning). `in` and the outputs
 * are aligned for their types.
 *
 * Failure writes nothing: every argument is checked before any work starts. Contents that a
 * call cannot check without reading device memory (offsets, the data) are the caller's to get
 * right; no value of them makes a kernel read outside the segments they describe.
 *
 * Shapes: a GPU call picks one of three kernel shapes from the row length, the row count and the
 * device (a warp per row for short rows, or a group of 8 lanes per row for rows of at most 128
 * elements; a block per row; several blocks per row when the rows are too few to fill the
 * device). yamr_last_plan() and yamr_report() give the plan of the last call on the context,
 * yamr_plan_for() the plan a call would get. Reductions do not depend on the shape.
 */

typedef enum {
    YAMR_ROWS_WARP_PER_ROW = 0, /**< one warp (wavefront) reduces a row; short rows */
    YAMR_ROWS_BLOCK_PER_ROW,    /**< one block reduces a row */
    YAMR_ROWS_BLOCKS_PER_ROW    /**< several blocks split each row; few long rows */
} yamr_rows_shape;
#define YAMR_ROWS_SHAPE_COUNT 3

/** "warp_per_row", "block_per_row", "blocks_per_row"; "invalid" for a value out of range. */
YAMR_API const char *yamr_rows_shape_name(yamr_rows_shape shape);

/*
 * Plans. Before any work a call decides once what it will run (the block algorithm, the kernel,
 * its grid and block, the lanes per row, the index width, and the tuning row of its device's
 * architecture family that the kernel runs with) and then only executes that plan.
 * yamr_plan_for() makes the plan a call would get, without running anything;
 * yamr_last_plan() returns the plan of the last call made on the context; yamr_report() prints
 * it. Results never depend on the plan.
 */

/** The kinds of call a plan is made for. */
typedef enum {
    YAMR_CALL_REDUCE = 0,    /**< yamr_reduce() and the typed forms; rows = 1, cols = n */
    YAMR_CALL_MINMAX,        /**< yamr_minmax(); rows = 1, cols = n */
    YAMR_CALL_ROWS,          /**< yamr_reduce_rows() */
    YAMR_CALL_SEGMENTS,      /**< yamr_reduce_segments(); rows = segments, cols unused */
    YAMR_CALL_SOFTMAX_STATS, /**< yamr_softmax_stats_rows() */
    YAMR_CALL_TOPK           /**< yamr_topk_rows(); the plan's k says how many per row */
} yamr_call;
#define YAMR_CALL_COUNT 6

/** The kernels a plan can name. */
typedef enum {
    YAMR_KERNEL_CPU = 0,        /**< the CPU backend */
    YAMR_KERNEL_SINGLE_BLOCK,   /**< one block, a thread per element: a variant's call outside
                                     its split instances (see yamr_variant) */
    YAMR_KERNEL_LANES_PER_ROW,  /**< a group of lanes (up to a warp) per row */
    YAMR_KERNEL_BLOCK_PER_ROW,  /**< a block per row */
    YAMR_KERNEL_BLOCKS_PER_ROW, /**< several blocks split each row or segment, the last to finish
                                     merges them; a grid-wide call is this kernel over one row */
    YAMR_KERNEL_SEGMENTS        /**< a group, a warp or the block per segment, by its length */
} yamr_kernel;
#define YAMR_KERNEL_COUNT 6

/**
 * What one call runs. The fields say what a caller may rely on; how the kernel is tuned (the
 * vectors a thread loads at once, the lanes per row, the policy row) changes from release to
 * release and is told by yamr_plan_describe(), not by fields.
 */
typedef struct {
    yamr_call call;
    yamr_op op;           /**< MAX for YAMR_CALL_SOFTMAX_STATS, ARGMAX for YAMR_CALL_MINMAX */
    yamr_dtype dtype;
    size_t rows, cols;    /**< as asked (see yamr_call) */
    size_t k;             /**< YAMR_CALL_TOPK: entries per row; 0 for every other call */
    yamr_variant variant; /**< the block algorithm (GPU; batched calls: warp_shuffle); AUTO on
                               the CPU */
    yamr_kernel kernel;
    yamr_rows_shape shape; /**< the kernel as a batched shape (GPU batched calls; else WARP) */
    int blocks_per_row;    /**< BLOCKS_PER_ROW: blocks that split one row or segment; else 1 */
    int index_bits;        /**< width of the kernel's index arithmetic within a row: 32 or 64 */
    int vector_loads;      /**< GPU: 1 when threads read 16-byte vectors between the 16-byte
                                boundaries (input aligned to its element) */
    unsigned grid_blocks;  /**< blocks launched (GPU); 0 on the CPU */
    int block_threads;     /**< threads per block (GPU); 0 on the CPU */
    uint32_t internal[4];  /**< the library's own: the tuning the launcher runs; no meaning to
                                callers (yamr_plan_describe() tells it) */
} yamr_plan;

/** "cpu", "single_block", "lanes_per_row", ...; "invalid" for a value out of range. */
YAMR_API const char *yamr_kernel_name(yamr_kernel kernel);
/**
 * The plan a call of kind `call` with `op` and `dtype` on `rows` x `cols` elements would get on
 * ctx now (its variant and NaN policy included), assuming 16-byte aligned input, without running
 * anything. YAMR_ERROR_INVALID_VALUE for a NULL ctx or plan, an enum out of range, or sizes the
 * call itself would refuse; YAMR_ERROR_UNSUPPORTED where the call would be unsupported (e.g.
 * a variant the device cannot run). *plan is written only on success. A top-k plan needs its k:
 * yamr_plan_for() refuses YAMR_CALL_TOPK with YAMR_ERROR_INVALID_VALUE; use yamr_plan_for_topk().
 */
YAMR_API yamr_status yamr_plan_for(const yamr_context *ctx, yamr_call call, yamr_op op,
                                   yamr_dtype dtype, size_t rows, size_t cols, yamr_plan *plan);
/**
 * The plan yamr_topk_rows() with these arguments would get on ctx now, as yamr_plan_for() does
 * for the other calls (call YAMR_CALL_TOPK, plan->k = k). YAMR_ERROR_INVALID_VALUE for what
 * yamr_topk_rows() refuses (k == 0, k > cols, sizes that overflow).
 */
YAMR_API yamr_status yamr_plan_for_topk(const yamr_context *ctx, yamr_op op, yamr_dtype dtype,
                                        size_t rows, size_t cols, size_t k, yamr_plan *plan);
/** The plan of the last successful call on ctx; YAMR_ERROR_INVALID_VALUE before any call. */
YAMR_API yamr_status yamr_last_plan(const yamr_context *ctx, yamr_plan *plan);
/**
 * One line (NUL-terminated, cut to fit `len` bytes of `buf`): the plan's call, size, kernel,
 * grid and tuning, and why ctx chose them, as yamr_report() prints the last call's.
 * YAMR_ERROR_INVALID_VALUE for a NULL ctx, plan or buf, or len == 0 (buf untouched).
 */
YAMR_API yamr_status yamr_plan_describe(const yamr_context *ctx, const yamr_plan *plan, char *buf,
                                        size_t len);


/**
 * Row-wise reduction of a row-major `rows` x `cols` matrix of `dtype` whose row r starts at
 * element r * ld of `in` (ld >= cols; the elements between cols and ld are never read).
 * `values`: `rows` elements of `dtype`, the answer for each row. `indices`: `rows` int64_t, the
 * answer's index within its row (-1 for a row of NaNs only under YAMR_NAN_IGNORE); may be NULL
 * for MAX/MIN, required for ARGMAX/ARGMIN.
 * YAMR_ERROR_INVALID_VALUE: a NULL context, `in` or `values`, a NULL `indices` for ARGMAX/ARGMIN,
 * rows == 0, cols == 0, ld < cols, a matrix whose size overflows size_t, or an enum out of range.
 */
YAMR_API yamr_status yamr_reduce_rows(yamr_context *ctx, yamr_op op, yamr_dtype dtype,
                                      const void *in, size_t rows, size_t cols, size_t ld,
                                      void *values, int64_t *indices);
/** yamr_reduce_rows() in stream order on the context's stream; returns at once. */
YAMR_API yamr_status yamr_reduce_rows_async(yamr_context *ctx, yamr_op op, yamr_dtype dtype,
                                            const void *in, size_t rows, size_t cols, size_t ld,
                                            void *values, int64_t *indices);

/**
 * Segmented reduction over CSR-style offsets: segment s is in[offsets[s] .. offsets[s + 1]).
 * `offsets`: `segments` + 1 non-decreasing int64_t element offsets into `in` (offsets[0] need not
 * be 0). `values` and `indices`: `segments` entries, as for yamr_reduce_rows(); an index counts
 * from the start of its segment.
 * An empty segment (offsets[s + 1] <= offsets[s]; a decreasing pair counts as empty) has no
 * answer and says so without an undefined value: its index is -1 and its value is the canonical
 * quiet NaN of a float dtype (f32 0x7fc00000, f64 0x7ff8000000000000, f16 0x7e00, bf16 0x7fc0)
 * or 0 for an integer dtype. (A float segment of NaNs only, under YAMR_NAN_IGNORE, also gives a
 * NaN and -1, with the NaN's own bits.)
 * YAMR_ERROR_INVALID_VALUE: as for yamr_reduce_rows(), with `offsets` NULL or segments == 0 in
 * place of the matrix checks.
 * GPU shapes: with few segments (fewer than two per multiprocessor) several blocks split each
 * segment. Otherwise each segment goes to the smallest team it fits, decided per segment on the
 * device (the offsets are device memory; the host does not read them): a group of lanes up to
 * 128 elements (4 lanes for 2- and 4-byte dtypes, 8 for 8-byte ones), a warp up to 16 elements
 * per lane, else the whole block.
 */
YAMR_API yamr_status yamr_reduce_segments(yamr_context *ctx, yamr_op op, yamr_dtype dtype,
                                          const void *in, const int64_t *offsets, size_t segments,
                                          void *values, int64_t *indices);
/** yamr_reduce_segments() in stream order on the context's stream; returns at once. */
YAMR_API yamr_status yamr_reduce_segments_async(yamr_context *ctx, yamr_op op, yamr_dtype dtype,
                                                const void *in, const int64_t *offsets,
                                                size_t segments, void *values, int64_t *indices);

/**
 * Softmax statistics of each row in one read of the data: row_max[r] = the largest element of
 * row r and row_sum[r] = sum over the row of exp(x - row_max[r]), so that softmax(x) =
 * exp(x - row_max) / row_sum and logsumexp = row_max + log(row_sum). `dtype` is YAMR_DTYPE_F32
 * (float outputs, float arithmetic on the GPU) or YAMR_DTYPE_F64 (double); `in`, rows, cols and
 * ld as for yamr_reduce_rows(); row_max and row_sum: `rows` elements of `dtype` each.
 * Each thread keeps a running (max, sum) and merges them as m = max(m1, m2),
 * s = s1 * exp(m1 - m) + s2 * exp(m2 - m), so row_sum agrees with a two-pass computation in
 * exact arithmetic to rounding, not bit for bit across backends or shapes (the tests allow 1e-5
 * relative for float, 1e-12 for double). row_max is an element of the row; when the maximum is
 * zero it may be -0.0 or +0.0 (which compare equal), whichever a merge kept.
 * Special values (exp(x - max) is taken as exactly 1 for an element equal to the maximum, so
 * row_sum >= 1 whenever an element counts):
 *  - YAMR_NAN_PROPAGATE: a row holding a NaN gives row_max NaN and row_sum NaN.
 *    YAMR_NAN_IGNORE: NaNs are skipped; a row of NaNs only gives row_max NaN and row_sum 0.
 *  - A row holding +inf: row_max +inf and row_sum the number of +inf elements (logsumexp +inf).
 *  - A row of -inf only: row_max -inf and row_sum cols (logsumexp -inf).
 *  - Otherwise -inf elements contribute 0.
 * YAMR_ERROR_UNSUPPORTED for any other dtype in range; YAMR_ERROR_INVALID_VALUE as for
 * yamr_reduce_rows() (row_max and row_sum are both required).
 */
YAMR_API yamr_status yamr_softmax_stats_rows(yamr_context *ctx, yamr_dtype dtype, const void *in,
                                             size_t rows, size_t cols, size_t ld, void *row_max,
                                             void *row_sum);
/** yamr_softmax_stats_rows() in stream order on the context's stream; returns at once. */
YAMR_API yamr_status yamr_softmax_stats_rows_async(yamr_context *ctx, yamr_dtype dtype,
                                                   const void *in, size_t rows, size_t cols,
                                                   size_t ld, void *row_max, void *row_sum);

/**
 * Top-k of each row: the k best elements of every row with their indices, exact and in rank
 * order. `in`, `rows`, `cols`, `ld`, memory, alignment and stream rules as for
 * yamr_reduce_rows(). `values`: rows x k elements of `dtype`, row r's at `values + r * k`;
 * `indices`: rows x k int64_t, likewise (NULL allowed for MAX/MIN, required for ARGMAX/ARGMIN);
 * both in the context's memory. Every dtype; 1 <= k <= cols.
 * Order: YAMR_OP_MAX and ARGMAX give the k largest, YAMR_OP_MIN and ARGMIN the k smallest.
 * Entry j of a row is position j of a stable sort of the row (largest first for MAX, smallest
 * first for MIN): equal values by smaller index first; -0.0 equals +0.0, and each entry reports
 * its own element's bits (so the two zeros keep their signs, in index order).
 * NaN: under YAMR_NAN_PROPAGATE a NaN ranks before every number, for MAX and MIN alike, NaNs
 * among themselves by index, so entry 0 is always what yamr_reduce_rows() gives for the row.
 * Under YAMR_NAN_IGNORE NaNs are skipped; a row with fewer than k other elements fills its last
 * entries with index -1 and the canonical quiet NaN of its dtype (as an empty segment of
 * yamr_reduce_segments() does; 0 for an integer dtype).
 * YAMR_ERROR_INVALID_VALUE: every case yamr_reduce_rows() refuses, k == 0, k > cols, and a
 * rows x k output whose size overflows. Failure writes nothing.
 * Cost: on the CPU about one read of the input (a threshold filter that most elements fail at
 * one compare, rows over threads, a few long rows split over threads and merged); a GPU call
 * gives one row several blocks when the rows are too few to fill the device.
 * yamr_plan_for_topk(), yamr_last_plan() and yamr_report() describe a top-k call's plan.
 */
YAMR_API yamr_status yamr_topk_rows(yamr_context *ctx, yamr_op op, yamr_dtype dtype,
                                    const void *in, size_t rows, size_t cols, size_t ld,
                                    size_t k, void *values, int64_t *indices);
/** yamr_topk_rows() in stream order on the context's stream; returns at once. */
YAMR_API yamr_status yamr_topk_rows_async(yamr_context *ctx, yamr_op op, yamr_dtype dtype,
                                          const void *in, size_t rows, size_t cols, size_t ld,
                                          size_t k, void *values, int64_t *indices);

#ifdef __cplusplus
}
#endif

#endif /* YAMR_H */
