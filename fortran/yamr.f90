! Module yamr: the yamr C API (include/yamr.h) for Fortran, through ISO_C_BINDING.
!
! A context is a type(c_ptr) from yamr_create(); every call returns a yamr status
! (integer(c_int), YAMR_SUCCESS on success) and, on failure, leaves its outputs as they were.
! yamr_status_string() names a status.
!
! The reductions are generic, for real(c_float), real(c_double), integer(c_int32_t) and
! integer(c_int64_t) data, and follow the C rules (include/yamr.h): values compare with < and >,
! so -0.0 equals +0.0; on ties the first index wins and the value is the element there; under
! YAMR_NAN_PROPAGATE (the default) a NaN gives that NaN and the index of the first NaN, under
! YAMR_NAN_IGNORE NaNs are skipped. Indices count from 1, as MAXLOC does; 0 means no answer (all
! NaN under YAMR_NAN_IGNORE, whose value is then NaN).
!
!   yamr_maxval(ctx, x, value)              x(:) contiguous
!   yamr_maxloc(ctx, x, value, index)       index: integer(c_int64_t)
!   yamr_maxval(ctx, a, values, dim)        a(:,:) contiguous, dim = 1: one answer per column,
!   yamr_maxloc(ctx, a, values, indices, dim)  as MAXVAL(a, DIM=1) and MAXLOC(a, DIM=1);
!                                           values and indices hold size(a, 2) elements;
!                                           dim = 2 gives YAMR_ERROR_UNSUPPORTED
!   yamr_maxval(ctx, x_dev, n, value)       x_dev: type(c_ptr) to n elements in the context's
!   yamr_maxloc(ctx, x_dev, n, value, index)   memory (device memory on a GPU context), e.g. from
!                                           yamr_device_alloc() or an OpenMP use_device_ptr /
!                                           OpenACC host_data region; n: integer(c_int64_t) or
!                                           integer(c_int32_t); the type of value picks the dtype
! and the same for yamr_minval and yamr_minloc.
!
! Memory: the array forms take host arrays on every context. On a CPU context (YAMR_DEVICE_CPU)
! they reduce the array in place; on a GPU context they copy it to device memory first and free
! that again (an allocation and a copy per call: for repeated calls keep the data on the device
! and use the x_dev form, which copies nothing). The outputs (value, index, values, indices) are
! always host variables. For a device-resident matrix, yamr_reduce_rows() is the C call itself:
! column j of a Fortran a(m, n) is row j - 1 of the C view (rows = n, cols = ld = m), and its
! outputs live in the context's memory with indices counting from 0.
module yamr
    use, intrinsic :: iso_c_binding
    implicit none
    private

    ! ---- Constants: the values of the C enums --------------------------------------------------
    integer(c_int), parameter, public :: YAMR_DEVICE_CPU = -1

    integer(c_int), parameter, public :: YAMR_SUCCESS = 0
    integer(c_int), parameter, public :: YAMR_ERROR_INVALID_VALUE = 1
    integer(c_int), parameter, public :: YAMR_ERROR_NO_DEVICE = 2
    integer(c_int), parameter, public :: YAMR_ERROR_UNSUPPORTED = 3
    integer(c_int), parameter, public :: YAMR_ERROR_OUT_OF_MEMORY = 4
    integer(c_int), parameter, public :: YAMR_ERROR_DEVICE = 5

    integer(c_int), parameter, public :: YAMR_NAN_PROPAGATE = 0
    integer(c_int), parameter, public :: YAMR_NAN_IGNORE = 1

    integer(c_int), parameter, public :: YAMR_VARIANT_AUTO = 0
    integer(c_int), parameter, public :: YAMR_VARIANT_RACY = 1
    integer(c_int), parameter, public :: YAMR_VARIANT_RACY_VOLATILE = 2
    integer(c_int), parameter, public :: YAMR_VARIANT_RACY_ITS = 3
    integer(c_int), parameter, public :: YAMR_VARIANT_ATOMIC = 4
    integer(c_int), parameter, public :: YAMR_VARIANT_SHARED_TREE = 5
    integer(c_int), parameter, public :: YAMR_VARIANT_WARP_SHUFFLE = 6

    integer(c_int), parameter, public :: YAMR_DTYPE_F32 = 0
    integer(c_int), parameter, public :: YAMR_DTYPE_F64 = 1
    integer(c_int), parameter, public :: YAMR_DTYPE_F16 = 2
    integer(c_int), parameter, public :: YAMR_DTYPE_BF16 = 3
    integer(c_int), parameter, public :: YAMR_DTYPE_I32 = 4
    integer(c_int), parameter, public :: YAMR_DTYPE_U32 = 5
    integer(c_int), parameter, public :: YAMR_DTYPE_I64 = 6

    integer(c_int), parameter, public :: YAMR_OP_MAX = 0
    integer(c_int), parameter, public :: YAMR_OP_MIN = 1
    integer(c_int), parameter, public :: YAMR_OP_ARGMAX = 2
    integer(c_int), parameter, public :: YAMR_OP_ARGMIN = 3

    integer(c_int), parameter, public :: YAMR_VENDOR_CPU = 0
    integer(c_int), parameter, public :: YAMR_VENDOR_NVIDIA = 1
    integer(c_int), parameter, public :: YAMR_VENDOR_AMD = 2

    !> What a context found out about its device (yamr_device_info in C).
    type, bind(C), public :: yamr_device_info
        integer(c_int) :: vendor
        character(kind=c_char) :: name(256)
        character(kind=c_char) :: arch(64)
        integer(c_int) :: warp_size
        integer(c_int) :: independent_thread_scheduling
        integer(c_int) :: multiprocessors
        integer(c_int) :: max_block_threads
    end type yamr_device_info

    public :: yamr_create, yamr_destroy, yamr_status_string, yamr_last_error, yamr_report
    public :: yamr_set_nan_policy, yamr_set_variant, yamr_set_stream, yamr_get_device_info
    public :: yamr_device_alloc, yamr_device_free, yamr_copy_to_device, yamr_copy_to_host
    public :: yamr_reduce, yamr_reduce_rows
    public :: yamr_maxval, yamr_minval, yamr_maxloc, yamr_minloc

    ! ---- The C calls that Fortran can use as they are (arguments as in include/yamr.h) ---------
    interface
        integer(c_int) function yamr_set_nan_policy(ctx, policy) bind(C, name="yamr_set_nan_policy")
            import :: c_int, c_ptr
            type(c_ptr), value :: ctx
            integer(c_int), value :: policy
        end function yamr_set_nan_policy

        integer(c_int) function yamr_set_variant(ctx, variant) bind(C, name="yamr_set_variant")
            import :: c_int, c_ptr
            type(c_ptr), value :: ctx
            integer(c_int), value :: variant
        end function yamr_set_variant

        !> stream: a cudaStream_t or hipStream_t; YAMR_ERROR_UNSUPPORTED on a CPU context.
        integer(c_int) function yamr_set_stream(ctx, stream) bind(C, name="yamr_set_stream")
            import :: c_int, c_ptr
            type(c_ptr), value :: ctx, stream
        end function yamr_set_stream

        integer(c_int) function yamr_get_device_info(ctx, info) bind(C, name="yamr_get_device_info")
            import :: c_int, c_ptr, yamr_device_info
            type(c_ptr), value :: ctx
            type(yamr_device_info), intent(out) :: info
        end function yamr_get_device_info

        !> Memory the context computes on (device memory on a GPU, host memory on the CPU).
        integer(c_int) function yamr_device_alloc(ctx, bytes, ptr) bind(C, name="yamr_device_alloc")
            import :: c_int, c_ptr, c_size_t
            type(c_ptr), value :: ctx
            integer(c_size_t), value :: bytes
            type(c_ptr), intent(inout) :: ptr
        end function yamr_device_alloc

        integer(c_int) function yamr_device_free(ctx, ptr) bind(C, name="yamr_device_free")
            import :: c_int, c_ptr
            type(c_ptr), value :: ctx, ptr
        end function yamr_device_free

        !> dst in the context's memory, src in host memory (c_loc of a host array).
        integer(c_int) function yamr_copy_to_device(ctx, dst, src, bytes) &
            bind(C, name="yamr_copy_to_device")
            import :: c_int, c_ptr, c_size_t
            type(c_ptr), value :: ctx, dst, src
            integer(c_size_t), value :: bytes
        end function yamr_copy_to_device

        integer(c_int) function yamr_copy_to_host(ctx, dst, src, bytes) &
            bind(C, name="yamr_copy_to_host")
            import :: c_int, c_ptr, c_size_t
            type(c_ptr), value :: ctx, dst, src
            integer(c_size_t), value :: bytes
        end function yamr_copy_to_host

        !> The C entry point: index counts from 0 (-1: no answer); value and index in host memory.
        integer(c_int) function yamr_reduce(ctx, op, dtype, in, n, value, index) &
            bind(C, name="yamr_reduce")
            import :: c_int, c_ptr, c_size_t
            type(c_ptr), value :: ctx
            integer(c_int), value :: op, dtype
            type(c_ptr), value :: in
            integer(c_size_t), value :: n
            type(c_ptr), value :: value, index
        end function yamr_reduce

        !> The C row reduction: every pointer in the context's memory; indices count from 0.
        integer(c_int) function yamr_reduce_rows(ctx, op, dtype, in, rows, cols, ld, values, &
                                                 indices) bind(C, name="yamr_reduce_rows")
            import :: c_int, c_ptr, c_size_t
            type(c_ptr), value :: ctx
            integer(c_int), value :: op, dtype
            type(c_ptr), value :: in
            integer(c_size_t), value :: rows, cols, ld
            type(c_ptr), value :: values, indices
        end function yamr_reduce_rows
    end interface

    ! ---- The C calls behind a Fortran wrapper ---------------------------------------------------
    interface
        integer(c_int) function yamr__c_create(ctx, device) bind(C, name="yamr_create")
            import :: c_int, c_ptr
            type(c_ptr), intent(inout) :: ctx
            integer(c_int), value :: device
        end function yamr__c_create

        subroutine yamr__c_destroy(ctx) bind(C, name="yamr_destroy")
            import :: c_ptr
            type(c_ptr), value :: ctx
        end subroutine yamr__c_destroy

        type(c_ptr) function yamr__c_status_string(status) bind(C, name="yamr_status_string")
            import :: c_int, c_ptr
            integer(c_int), value :: status
        end function yamr__c_status_string

        type(c_ptr) function yamr__c_last_error(ctx) bind(C, name="yamr_last_error")
            import :: c_ptr
            type(c_ptr), value :: ctx
        end function yamr__c_last_error

        type(c_ptr) function yamr__c_report(ctx) bind(C, name="yamr_report")
            import :: c_ptr
            type(c_ptr), value :: ctx
        end function yamr__c_report

        integer(c_size_t) function yamr__c_dtype_size(dtype) bind(C, name="yamr_dtype_size")
            import :: c_int, c_size_t
            integer(c_int), value :: dtype
        end function yamr__c_dtype_size

        integer(c_size_t) function yamr__c_strlen(s) bind(C, name="strlen")
            import :: c_ptr, c_size_t
            type(c_ptr), value :: s
        end function yamr__c_strlen
    end interface

    ! ---- The reductions: one generic name per operation ----------------------------------------
    interface yamr_maxval
        module procedure yamr__maxval_f32_1d, yamr__maxval_f32_2d, &
                         yamr__maxval_f32_dev, yamr__maxval_f32_dev32, &
                         yamr__maxval_f64_1d, yamr__maxval_f64_2d, &
                         yamr__maxval_f64_dev, yamr__maxval_f64_dev32, &
                         yamr__maxval_i32_1d, yamr__maxval_i32_2d, &
                         yamr__maxval_i32_dev, yamr__maxval_i32_dev32, &
                         yamr__maxval_i64_1d, yamr__maxval_i64_2d, &
                         yamr__maxval_i64_dev, yamr__maxval_i64_dev32
    end interface yamr_maxval
    interface yamr_minval
        module procedure yamr__minval_f32_1d, yamr__minval_f32_2d, &
                         yamr__minval_f32_dev, yamr__minval_f32_dev32, &
                         yamr__minval_f64_1d, yamr__minval_f64_2d, &
                         yamr__minval_f64_dev, yamr__minval_f64_dev32, &
                         yamr__minval_i32_1d, yamr__minval_i32_2d, &
                         yamr__minval_i32_dev, yamr__minval_i32_dev32, &
                         yamr__minval_i64_1d, yamr__minval_i64_2d, &
                         yamr__minval_i64_dev, yamr__minval_i64_dev32
    end interface yamr_minval
    interface yamr_maxloc
        module procedure yamr__maxloc_f32_1d, yamr__maxloc_f32_2d, &
                         yamr__maxloc_f32_dev, yamr__maxloc_f32_dev32, &
                         yamr__maxloc_f64_1d, yamr__maxloc_f64_2d, &
                         yamr__maxloc_f64_dev, yamr__maxloc_f64_dev32, &
                         yamr__maxloc_i32_1d, yamr__maxloc_i32_2d, &
                         yamr__maxloc_i32_dev, yamr__maxloc_i32_dev32, &
                         yamr__maxloc_i64_1d, yamr__maxloc_i64_2d, &
                         yamr__maxloc_i64_dev, yamr__maxloc_i64_dev32
    end interface yamr_maxloc
    interface yamr_minloc
        module procedure yamr__minloc_f32_1d, yamr__minloc_f32_2d, &
                         yamr__minloc_f32_dev, yamr__minloc_f32_dev32, &
                         yamr__minloc_f64_1d, yamr__minloc_f64_2d, &
                         yamr__minloc_f64_dev, yamr__minloc_f64_dev32, &
                         yamr__minloc_i32_1d, yamr__minloc_i32_2d, &
                         yamr__minloc_i32_dev, yamr__minloc_i32_dev32, &
                         yamr__minloc_i64_1d, yamr__minloc_i64_2d, &
                         yamr__minloc_i64_dev, yamr__minloc_i64_dev32
    end interface yamr_minloc

contains

    !> Opens device (a GPU ordinal, or YAMR_DEVICE_CPU). ctx is c_null_ptr when this fails.
    integer(c_int) function yamr_create(ctx, device) result(status)
        type(c_ptr), intent(out) :: ctx
        integer(c_int), intent(in) :: device
        ctx = c_null_ptr
        status = yamr__c_create(ctx, device)
    end function yamr_create

    !> Releases the context and sets ctx to c_null_ptr; a null ctx is a no-op.
    subroutine yamr_destroy(ctx)
        type(c_ptr), intent(inout) :: ctx
        call yamr__c_destroy(ctx)
        ctx = c_null_ptr
    end subroutine yamr_destroy

    !> The name and meaning of a status, e.g. "YAMR_SUCCESS: success".
    function yamr_status_string(status) result(text)
        integer(c_int), intent(in) :: status
        character(len=:), allocatable :: text
        text = yamr__fortran_string(yamr__c_status_string(status))
    end function yamr_status_string

    !> The message of the last YAMR_ERROR_DEVICE on ctx ("" if none).
    function yamr_last_error(ctx) result(text)
        type(c_ptr), intent(in) :: ctx
        character(len=:), allocatable :: text
        text = yamr__fortran_string(yamr__c_last_error(ctx))
    end function yamr_last_error

    !> The context's multi-line report: device, arch, warp width, variants and AUTO's pick.
    function yamr_report(ctx) result(text)
        type(c_ptr), intent(in) :: ctx
        character(len=:), allocatable :: text
        text = yamr__fortran_string(yamr__c_report(ctx))
    end function yamr_report

    function yamr__fortran_string(s) result(text)
        type(c_ptr), intent(in) :: s
        character(len=:), allocatable :: text
        character(kind=c_char), pointer :: chars(:)
        integer(c_size_t) :: i, n
        if (.not. c_associated(s)) then
            text = ""
            return
        end if
        n = yamr__c_strlen(s)
        call c_f_pointer(s, chars, [n])
        allocate (character(len=n) :: text)
        do i = 1, n
            text(i:i) = chars(i)
        end do
    end function yamr__fortran_string

    logical function yamr__op_has_index(op)
        integer(c_int), intent(in) :: op
        yamr__op_has_index = op == YAMR_OP_ARGMAX .or. op == YAMR_OP_ARGMIN
    end function yamr__op_has_index

    !> n elements at x in the context's memory; value (host) and index (host, from 1) on success.
    integer(c_int) function yamr__reduce(ctx, op, dtype, x, n, value, index) result(status)
        type(c_ptr), intent(in) :: ctx, x, value
        integer(c_int), intent(in) :: op, dtype
        integer(c_int64_t), intent(in) :: n
        integer(c_int64_t), intent(inout) :: index
        integer(c_int64_t), target :: index0
        if (n < 1) then
            status = YAMR_ERROR_INVALID_VALUE
            return
        end if
        if (yamr__op_has_index(op)) then
            status = yamr_reduce(ctx, op, dtype, x, int(n, c_size_t), value, c_loc(index0))
            if (status == YAMR_SUCCESS) index = index0 + 1
        else
            status = yamr_reduce(ctx, op, dtype, x, int(n, c_size_t), value, c_null_ptr)
        end if
    end function yamr__reduce

    !> Whether ctx computes on a GPU, whose memory a host array must be copied to.
    integer(c_int) function yamr__on_gpu(ctx, on_gpu) result(status)
        type(c_ptr), intent(in) :: ctx
        logical, intent(out) :: on_gpu
        type(yamr_device_info) :: info
        on_gpu = .false.
        status = yamr_get_device_info(ctx, info)
        if (status == YAMR_SUCCESS) on_gpu = info%vendor /= YAMR_VENDOR_CPU
    end function yamr__on_gpu

    !> yamr__reduce() of n elements at x in host memory, on any context.
    integer(c_int) function yamr__reduce_host(ctx, op, dtype, x, n, value, index) result(status)
        type(c_ptr), intent(in) :: ctx, x, value
        integer(c_int), intent(in) :: op, dtype
        integer(c_int64_t), intent(in) :: n
        integer(c_int64_t), intent(inout) :: index
        type(c_ptr) :: x_dev
        integer(c_size_t) :: bytes
        logical :: on_gpu
        integer(c_int) :: freed
        status = yamr__on_gpu(ctx, on_gpu)
        if (status /= YAMR_SUCCESS) return
        if (n < 1 .or. .not. on_gpu) then
            status = yamr__reduce(ctx, op, dtype, x, n, value, index)
            return
        end if
        bytes = int(n, c_size_t)*yamr__c_dtype_size(dtype)
        x_dev = c_null_ptr
        status = yamr_device_alloc(ctx, bytes, x_dev)
        if (status /= YAMR_SUCCESS) return
        status = yamr_copy_to_device(ctx, x_dev, x, bytes)
        if (status == YAMR_SUCCESS) status = yamr__reduce(ctx, op, dtype, x_dev, n, value, index)
        freed = yamr_device_free(ctx, x_dev)
        if (status == YAMR_SUCCESS) status = freed
    end function yamr__reduce_host

    !> One answer per column of the host matrix a(m, ncols) (dim = 1), on any context: the C row
    !> reduction of its row-major view, ncols rows of m elements. values(:) and indices(:), host
    !> arrays of ncols elements (indices: zero-sized for MAX and MIN), are written on success.
    integer(c_int) function yamr__reduce_columns(ctx, op, dtype, a, m, ncols, values, nvalues, &
                                                 indices, dim) result(status)
        type(c_ptr), intent(in) :: ctx, a, values
        integer(c_int), intent(in) :: op, dtype
        integer(c_int64_t), intent(in) :: m, ncols, nvalues
        integer(c_int64_t), intent(inout), contiguous, target :: indices(:)
        integer, intent(in) :: dim
        integer(c_int64_t), allocatable, target :: indices0(:)
        type(c_ptr) :: a_dev, values_dev, indices_dev, indices_ptr
        integer(c_size_t) :: esize, rows, cols
        logical :: on_gpu
        integer(c_int) :: freed
        if (.not. c_associated(ctx)) then
            status = YAMR_ERROR_INVALID_VALUE
            return
        end if
        if (dim == 2) then
            status = YAMR_ERROR_UNSUPPORTED ! a reduction along rows of a column-major matrix
            return
        end if
        if (dim /= 1 .or. m < 1 .or. ncols < 1 .or. nvalues /= ncols) then
            status = YAMR_ERROR_INVALID_VALUE
            return
        end if
        if (yamr__op_has_index(op) .and. size(indices, kind=c_int64_t) /= ncols) then
            status = YAMR_ERROR_INVALID_VALUE
            return
        end if
        status = yamr__on_gpu(ctx, on_gpu)
        if (status /= YAMR_SUCCESS) return
        rows = int(ncols, c_size_t)
        cols = int(m, c_size_t)
        ! The C call writes indices from 0; they go to a scratch array so that a failure leaves
        ! indices(:) as it was.
        indices_ptr = c_null_ptr
        if (yamr__op_has_index(op)) then
            allocate (indices0(ncols))
            indices_ptr = c_loc(indices0)
        end if
        if (.not. on_gpu) then
            status = yamr_reduce_rows(ctx, op, dtype, a, rows, cols, cols, values, indices_ptr)
        else
            esize = yamr__c_dtype_size(dtype)
            a_dev = c_null_ptr
            values_dev = c_null_ptr
            indices_dev = c_null_ptr
            status = yamr_device_alloc(ctx, rows*cols*esize, a_dev)
            if (status == YAMR_SUCCESS) status = yamr_device_alloc(ctx, rows*esize, values_dev)
            if (status == YAMR_SUCCESS .and. c_associated(indices_ptr)) &
                status = yamr_device_alloc(ctx, rows*8_c_size_t, indices_dev)
            if (status == YAMR_SUCCESS) &
                status = yamr_copy_to_device(ctx, a_dev, a, rows*cols*esize)
            if (status == YAMR_SUCCESS) &
                status = yamr_reduce_rows(ctx, op, dtype, a_dev, rows, cols, cols, values_dev, &
                                          indices_dev)
            if (status == YAMR_SUCCESS .and. c_associated(indices_ptr)) &
                status = yamr_copy_to_host(ctx, indices_ptr, indices_dev, rows*8_c_size_t)
            if (status == YAMR_SUCCESS) &
                status = yamr_copy_to_host(ctx, values, values_dev, rows*esize)
            freed = yamr_device_free(ctx, indices_dev)
            freed = yamr_device_free(ctx, values_dev)
            freed = yamr_device_free(ctx, a_dev)
        end if
        if (status == YAMR_SUCCESS .and. yamr__op_has_index(op)) indices = indices0 + 1
    end function yamr__reduce_columns

    ! ---- yamr_maxval -----------------------------------------------------------------------------
    integer(c_int) function yamr__maxval_f32_1d(ctx, x, value) result(status)
        type(c_ptr), intent(in) :: ctx
        real(c_float), intent(in), contiguous, target :: x(:)
        real(c_float), intent(inout), target :: value
        integer(c_int64_t) :: null_index
        status = yamr__reduce_host(ctx, YAMR_OP_MAX, YAMR_DTYPE_F32, c_loc(x), &
                                   size(x, kind=c_int64_t), c_loc(value), null_index)
    end function yamr__maxval_f32_1d

    integer(c_int) function yamr__maxval_f32_2d(ctx, a, values, dim) result(status)
        type(c_ptr), intent(in) :: ctx
        real(c_float), intent(in), contiguous, target :: a(:, :)
        real(c_float), intent(inout), contiguous, target :: values(:)
        integer, intent(in) :: dim
        integer(c_int64_t) :: no_indices(0)
        status = yamr__reduce_columns(ctx, YAMR_OP_MAX, YAMR_DTYPE_F32, c_loc(a), &
                                      size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t), &
                                      c_loc(values), size(values, kind=c_int64_t), no_indices, dim)
    end function yamr__maxval_f32_2d

    integer(c_int) function yamr__maxval_f32_dev(ctx, x, n, value) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int64_t), intent(in) :: n
        real(c_float), intent(inout), target :: value
        integer(c_int64_t) :: null_index
        status = yamr__reduce(ctx, YAMR_OP_MAX, YAMR_DTYPE_F32, x, n, c_loc(value), null_index)
    end function yamr__maxval_f32_dev

    integer(c_int) function yamr__maxval_f32_dev32(ctx, x, n, value) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int32_t), intent(in) :: n
        real(c_float), intent(inout), target :: value
        integer(c_int64_t) :: null_index
        status = yamr__reduce(ctx, YAMR_OP_MAX, YAMR_DTYPE_F32, x, int(n, c_int64_t), &
                              c_loc(value), null_index)
    end function yamr__maxval_f32_dev32

    integer(c_int) function yamr__maxval_f64_1d(ctx, x, value) result(status)
        type(c_ptr), intent(in) :: ctx
        real(c_double), intent(in), contiguous, target :: x(:)
        real(c_double), intent(inout), target :: value
        integer(c_int64_t) :: null_index
        status = yamr__reduce_host(ctx, YAMR_OP_MAX, YAMR_DTYPE_F64, c_loc(x), &
                                   size(x, kind=c_int64_t), c_loc(value), null_index)
    end function yamr__maxval_f64_1d

    integer(c_int) function yamr__maxval_f64_2d(ctx, a, values, dim) result(status)
        type(c_ptr), intent(in) :: ctx
        real(c_double), intent(in), contiguous, target :: a(:, :)
        real(c_double), intent(inout), contiguous, target :: values(:)
        integer, intent(in) :: dim
        integer(c_int64_t) :: no_indices(0)
        status = yamr__reduce_columns(ctx, YAMR_OP_MAX, YAMR_DTYPE_F64, c_loc(a), &
                                      size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t), &
                                      c_loc(values), size(values, kind=c_int64_t), no_indices, dim)
    end function yamr__maxval_f64_2d

    integer(c_int) function yamr__maxval_f64_dev(ctx, x, n, value) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int64_t), intent(in) :: n
        real(c_double), intent(inout), target :: value
        integer(c_int64_t) :: null_index
        status = yamr__reduce(ctx, YAMR_OP_MAX, YAMR_DTYPE_F64, x, n, c_loc(value), null_index)
    end function yamr__maxval_f64_dev

    integer(c_int) function yamr__maxval_f64_dev32(ctx, x, n, value) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int32_t), intent(in) :: n
        real(c_double), intent(inout), target :: value
        integer(c_int64_t) :: null_index
        status = yamr__reduce(ctx, YAMR_OP_MAX, YAMR_DTYPE_F64, x, int(n, c_int64_t), &
                              c_loc(value), null_index)
    end function yamr__maxval_f64_dev32

    integer(c_int) function yamr__maxval_i32_1d(ctx, x, value) result(status)
        type(c_ptr), intent(in) :: ctx
        integer(c_int32_t), intent(in), contiguous, target :: x(:)
        integer(c_int32_t), intent(inout), target :: value
        integer(c_int64_t) :: null_index
        status = yamr__reduce_host(ctx, YAMR_OP_MAX, YAMR_DTYPE_I32, c_loc(x), &
                                   size(x, kind=c_int64_t), c_loc(value), null_index)
    end function yamr__maxval_i32_1d

    integer(c_int) function yamr__maxval_i32_2d(ctx, a, values, dim) result(status)
        type(c_ptr), intent(in) :: ctx
        integer(c_int32_t), intent(in), contiguous, target :: a(:, :)
        integer(c_int32_t), intent(inout), contiguous, target :: values(:)
        integer, intent(in) :: dim
        integer(c_int64_t) :: no_indices(0)
        status = yamr__reduce_columns(ctx, YAMR_OP_MAX, YAMR_DTYPE_I32, c_loc(a), &
                                      size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t), &
                                      c_loc(values), size(values, kind=c_int64_t), no_indices, dim)
    end function yamr__maxval_i32_2d

    integer(c_int) function yamr__maxval_i32_dev(ctx, x, n, value) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int64_t), intent(in) :: n
        integer(c_int32_t), intent(inout), target :: value
        integer(c_int64_t) :: null_index
        status = yamr__reduce(ctx, YAMR_OP_MAX, YAMR_DTYPE_I32, x, n, c_loc(value), null_index)
    end function yamr__maxval_i32_dev

    integer(c_int) function yamr__maxval_i32_dev32(ctx, x, n, value) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int32_t), intent(in) :: n
        integer(c_int32_t), intent(inout), target :: value
        integer(c_int64_t) :: null_index
        status = yamr__reduce(ctx, YAMR_OP_MAX, YAMR_DTYPE_I32, x, int(n, c_int64_t), &
                              c_loc(value), null_index)
    end function yamr__maxval_i32_dev32

    integer(c_int) function yamr__maxval_i64_1d(ctx, x, value) result(status)
        type(c_ptr), intent(in) :: ctx
        integer(c_int64_t), intent(in), contiguous, target :: x(:)
        integer(c_int64_t), intent(inout), target :: value
        integer(c_int64_t) :: null_index
        status = yamr__reduce_host(ctx, YAMR_OP_MAX, YAMR_DTYPE_I64, c_loc(x), &
                                   size(x, kind=c_int64_t), c_loc(value), null_index)
    end function yamr__maxval_i64_1d

    integer(c_int) function yamr__maxval_i64_2d(ctx, a, values, dim) result(status)
        type(c_ptr), intent(in) :: ctx
        integer(c_int64_t), intent(in), contiguous, target :: a(:, :)
        integer(c_int64_t), intent(inout), contiguous, target :: values(:)
        integer, intent(in) :: dim
        integer(c_int64_t) :: no_indices(0)
        status = yamr__reduce_columns(ctx, YAMR_OP_MAX, YAMR_DTYPE_I64, c_loc(a), &
                                      size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t), &
                                      c_loc(values), size(values, kind=c_int64_t), no_indices, dim)
    end function yamr__maxval_i64_2d

    integer(c_int) function yamr__maxval_i64_dev(ctx, x, n, value) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int64_t), intent(in) :: n
        integer(c_int64_t), intent(inout), target :: value
        integer(c_int64_t) :: null_index
        status = yamr__reduce(ctx, YAMR_OP_MAX, YAMR_DTYPE_I64, x, n, c_loc(value), null_index)
    end function yamr__maxval_i64_dev

    integer(c_int) function yamr__maxval_i64_dev32(ctx, x, n, value) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int32_t), intent(in) :: n
        integer(c_int64_t), intent(inout), target :: value
        integer(c_int64_t) :: null_index
        status = yamr__reduce(ctx, YAMR_OP_MAX, YAMR_DTYPE_I64, x, int(n, c_int64_t), &
                              c_loc(value), null_index)
    end function yamr__maxval_i64_dev32

    ! ---- yamr_minval -----------------------------------------------------------------------------
    integer(c_int) function yamr__minval_f32_1d(ctx, x, value) result(status)
        type(c_ptr), intent(in) :: ctx
        real(c_float), intent(in), contiguous, target :: x(:)
        real(c_float), intent(inout), target :: value
        integer(c_int64_t) :: null_index
        status = yamr__reduce_host(ctx, YAMR_OP_MIN, YAMR_DTYPE_F32, c_loc(x), &
                                   size(x, kind=c_int64_t), c_loc(value), null_index)
    end function yamr__minval_f32_1d

    integer(c_int) function yamr__minval_f32_2d(ctx, a, values, dim) result(status)
        type(c_ptr), intent(in) :: ctx
        real(c_float), intent(in), contiguous, target :: a(:, :)
        real(c_float), intent(inout), contiguous, target :: values(:)
        integer, intent(in) :: dim
        integer(c_int64_t) :: no_indices(0)
        status = yamr__reduce_columns(ctx, YAMR_OP_MIN, YAMR_DTYPE_F32, c_loc(a), &
                                      size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t), &
                                      c_loc(values), size(values, kind=c_int64_t), no_indices, dim)
    end function yamr__minval_f32_2d

    integer(c_int) function yamr__minval_f32_dev(ctx, x, n, value) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int64_t), intent(in) :: n
        real(c_float), intent(inout), target :: value
        integer(c_int64_t) :: null_index
        status = yamr__reduce(ctx, YAMR_OP_MIN, YAMR_DTYPE_F32, x, n, c_loc(value), null_index)
    end function yamr__minval_f32_dev

    integer(c_int) function yamr__minval_f32_dev32(ctx, x, n, value) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int32_t), intent(in) :: n
        real(c_float), intent(inout), target :: value
        integer(c_int64_t) :: null_index
        status = yamr__reduce(ctx, YAMR_OP_MIN, YAMR_DTYPE_F32, x, int(n, c_int64_t), &
                              c_loc(value), null_index)
    end function yamr__minval_f32_dev32

    integer(c_int) function yamr__minval_f64_1d(ctx, x, value) result(status)
        type(c_ptr), intent(in) :: ctx
        real(c_double), intent(in), contiguous, target :: x(:)
        real(c_double), intent(inout), target :: value
        integer(c_int64_t) :: null_index
        status = yamr__reduce_host(ctx, YAMR_OP_MIN, YAMR_DTYPE_F64, c_loc(x), &
                                   size(x, kind=c_int64_t), c_loc(value), null_index)
    end function yamr__minval_f64_1d

    integer(c_int) function yamr__minval_f64_2d(ctx, a, values, dim) result(status)
        type(c_ptr), intent(in) :: ctx
        real(c_double), intent(in), contiguous, target :: a(:, :)
        real(c_double), intent(inout), contiguous, target :: values(:)
        integer, intent(in) :: dim
        integer(c_int64_t) :: no_indices(0)
        status = yamr__reduce_columns(ctx, YAMR_OP_MIN, YAMR_DTYPE_F64, c_loc(a), &
                                      size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t), &
                                      c_loc(values), size(values, kind=c_int64_t), no_indices, dim)
    end function yamr__minval_f64_2d

    integer(c_int) function yamr__minval_f64_dev(ctx, x, n, value) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int64_t), intent(in) :: n
        real(c_double), intent(inout), target :: value
        integer(c_int64_t) :: null_index
        status = yamr__reduce(ctx, YAMR_OP_MIN, YAMR_DTYPE_F64, x, n, c_loc(value), null_index)
    end function yamr__minval_f64_dev

    integer(c_int) function yamr__minval_f64_dev32(ctx, x, n, value) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int32_t), intent(in) :: n
        real(c_double), intent(inout), target :: value
        integer(c_int64_t) :: null_index
        status = yamr__reduce(ctx, YAMR_OP_MIN, YAMR_DTYPE_F64, x, int(n, c_int64_t), &
                              c_loc(value), null_index)
    end function yamr__minval_f64_dev32

    integer(c_int) function yamr__minval_i32_1d(ctx, x, value) result(status)
        type(c_ptr), intent(in) :: ctx
        integer(c_int32_t), intent(in), contiguous, target :: x(:)
        integer(c_int32_t), intent(inout), target :: value
        integer(c_int64_t) :: null_index
        status = yamr__reduce_host(ctx, YAMR_OP_MIN, YAMR_DTYPE_I32, c_loc(x), &
                                   size(x, kind=c_int64_t), c_loc(value), null_index)
    end function yamr__minval_i32_1d

    integer(c_int) function yamr__minval_i32_2d(ctx, a, values, dim) result(status)
        type(c_ptr), intent(in) :: ctx
        integer(c_int32_t), intent(in), contiguous, target :: a(:, :)
        integer(c_int32_t), intent(inout), contiguous, target :: values(:)
        integer, intent(in) :: dim
        integer(c_int64_t) :: no_indices(0)
        status = yamr__reduce_columns(ctx, YAMR_OP_MIN, YAMR_DTYPE_I32, c_loc(a), &
                                      size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t), &
                                      c_loc(values), size(values, kind=c_int64_t), no_indices, dim)
    end function yamr__minval_i32_2d

    integer(c_int) function yamr__minval_i32_dev(ctx, x, n, value) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int64_t), intent(in) :: n
        integer(c_int32_t), intent(inout), target :: value
        integer(c_int64_t) :: null_index
        status = yamr__reduce(ctx, YAMR_OP_MIN, YAMR_DTYPE_I32, x, n, c_loc(value), null_index)
    end function yamr__minval_i32_dev

    integer(c_int) function yamr__minval_i32_dev32(ctx, x, n, value) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int32_t), intent(in) :: n
        integer(c_int32_t), intent(inout), target :: value
        integer(c_int64_t) :: null_index
        status = yamr__reduce(ctx, YAMR_OP_MIN, YAMR_DTYPE_I32, x, int(n, c_int64_t), &
                              c_loc(value), null_index)
    end function yamr__minval_i32_dev32

    integer(c_int) function yamr__minval_i64_1d(ctx, x, value) result(status)
        type(c_ptr), intent(in) :: ctx
        integer(c_int64_t), intent(in), contiguous, target :: x(:)
        integer(c_int64_t), intent(inout), target :: value
        integer(c_int64_t) :: null_index
        status = yamr__reduce_host(ctx, YAMR_OP_MIN, YAMR_DTYPE_I64, c_loc(x), &
                                   size(x, kind=c_int64_t), c_loc(value), null_index)
    end function yamr__minval_i64_1d

    integer(c_int) function yamr__minval_i64_2d(ctx, a, values, dim) result(status)
        type(c_ptr), intent(in) :: ctx
        integer(c_int64_t), intent(in), contiguous, target :: a(:, :)
        integer(c_int64_t), intent(inout), contiguous, target :: values(:)
        integer, intent(in) :: dim
        integer(c_int64_t) :: no_indices(0)
        status = yamr__reduce_columns(ctx, YAMR_OP_MIN, YAMR_DTYPE_I64, c_loc(a), &
                                      size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t), &
                                      c_loc(values), size(values, kind=c_int64_t), no_indices, dim)
    end function yamr__minval_i64_2d

    integer(c_int) function yamr__minval_i64_dev(ctx, x, n, value) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int64_t), intent(in) :: n
        integer(c_int64_t), intent(inout), target :: value
        integer(c_int64_t) :: null_index
        status = yamr__reduce(ctx, YAMR_OP_MIN, YAMR_DTYPE_I64, x, n, c_loc(value), null_index)
    end function yamr__minval_i64_dev

    integer(c_int) function yamr__minval_i64_dev32(ctx, x, n, value) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int32_t), intent(in) :: n
        integer(c_int64_t), intent(inout), target :: value
        integer(c_int64_t) :: null_index
        status = yamr__reduce(ctx, YAMR_OP_MIN, YAMR_DTYPE_I64, x, int(n, c_int64_t), &
                              c_loc(value), null_index)
    end function yamr__minval_i64_dev32

    ! ---- yamr_maxloc -----------------------------------------------------------------------------
    integer(c_int) function yamr__maxloc_f32_1d(ctx, x, value, index) result(status)
        type(c_ptr), intent(in) :: ctx
        real(c_float), intent(in), contiguous, target :: x(:)
        real(c_float), intent(inout), target :: value
        integer(c_int64_t), intent(inout) :: index
        status = yamr__reduce_host(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, c_loc(x), &
                                   size(x, kind=c_int64_t), c_loc(value), index)
    end function yamr__maxloc_f32_1d

    integer(c_int) function yamr__maxloc_f32_2d(ctx, a, values, indices, dim) result(status)
        type(c_ptr), intent(in) :: ctx
        real(c_float), intent(in), contiguous, target :: a(:, :)
        real(c_float), intent(inout), contiguous, target :: values(:)
        integer(c_int64_t), intent(inout), contiguous, target :: indices(:)
        integer, intent(in) :: dim
        status = yamr__reduce_columns(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, c_loc(a), &
                                      size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t), &
                                      c_loc(values), size(values, kind=c_int64_t), indices, dim)
    end function yamr__maxloc_f32_2d

    integer(c_int) function yamr__maxloc_f32_dev(ctx, x, n, value, index) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int64_t), intent(in) :: n
        real(c_float), intent(inout), target :: value
        integer(c_int64_t), intent(inout) :: index
        status = yamr__reduce(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, x, n, c_loc(value), index)
    end function yamr__maxloc_f32_dev

    integer(c_int) function yamr__maxloc_f32_dev32(ctx, x, n, value, index) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int32_t), intent(in) :: n
        real(c_float), intent(inout), target :: value
        integer(c_int64_t), intent(inout) :: index
        status = yamr__reduce(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_F32, x, int(n, c_int64_t), &
                              c_loc(value), index)
    end function yamr__maxloc_f32_dev32

    integer(c_int) function yamr__maxloc_f64_1d(ctx, x, value, index) result(status)
        type(c_ptr), intent(in) :: ctx
        real(c_double), intent(in), contiguous, target :: x(:)
        real(c_double), intent(inout), target :: value
        integer(c_int64_t), intent(inout) :: index
        status = yamr__reduce_host(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_F64, c_loc(x), &
                                   size(x, kind=c_int64_t), c_loc(value), index)
    end function yamr__maxloc_f64_1d

    integer(c_int) function yamr__maxloc_f64_2d(ctx, a, values, indices, dim) result(status)
        type(c_ptr), intent(in) :: ctx
        real(c_double), intent(in), contiguous, target :: a(:, :)
        real(c_double), intent(inout), contiguous, target :: values(:)
        integer(c_int64_t), intent(inout), contiguous, target :: indices(:)
        integer, intent(in) :: dim
        status = yamr__reduce_columns(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_F64, c_loc(a), &
                                      size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t), &
                                      c_loc(values), size(values, kind=c_int64_t), indices, dim)
    end function yamr__maxloc_f64_2d

    integer(c_int) function yamr__maxloc_f64_dev(ctx, x, n, value, index) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int64_t), intent(in) :: n
        real(c_double), intent(inout), target :: value
        integer(c_int64_t), intent(inout) :: index
        status = yamr__reduce(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_F64, x, n, c_loc(value), index)
    end function yamr__maxloc_f64_dev

    integer(c_int) function yamr__maxloc_f64_dev32(ctx, x, n, value, index) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int32_t), intent(in) :: n
        real(c_double), intent(inout), target :: value
        integer(c_int64_t), intent(inout) :: index
        status = yamr__reduce(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_F64, x, int(n, c_int64_t), &
                              c_loc(value), index)
    end function yamr__maxloc_f64_dev32

    integer(c_int) function yamr__maxloc_i32_1d(ctx, x, value, index) result(status)
        type(c_ptr), intent(in) :: ctx
        integer(c_int32_t), intent(in), contiguous, target :: x(:)
        integer(c_int32_t), intent(inout), target :: value
        integer(c_int64_t), intent(inout) :: index
        status = yamr__reduce_host(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_I32, c_loc(x), &
                                   size(x, kind=c_int64_t), c_loc(value), index)
    end function yamr__maxloc_i32_1d

    integer(c_int) function yamr__maxloc_i32_2d(ctx, a, values, indices, dim) result(status)
        type(c_ptr), intent(in) :: ctx
        integer(c_int32_t), intent(in), contiguous, target :: a(:, :)
        integer(c_int32_t), intent(inout), contiguous, target :: values(:)
        integer(c_int64_t), intent(inout), contiguous, target :: indices(:)
        integer, intent(in) :: dim
        status = yamr__reduce_columns(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_I32, c_loc(a), &
                                      size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t), &
                                      c_loc(values), size(values, kind=c_int64_t), indices, dim)
    end function yamr__maxloc_i32_2d

    integer(c_int) function yamr__maxloc_i32_dev(ctx, x, n, value, index) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int64_t), intent(in) :: n
        integer(c_int32_t), intent(inout), target :: value
        integer(c_int64_t), intent(inout) :: index
        status = yamr__reduce(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_I32, x, n, c_loc(value), index)
    end function yamr__maxloc_i32_dev

    integer(c_int) function yamr__maxloc_i32_dev32(ctx, x, n, value, index) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int32_t), intent(in) :: n
        integer(c_int32_t), intent(inout), target :: value
        integer(c_int64_t), intent(inout) :: index
        status = yamr__reduce(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_I32, x, int(n, c_int64_t), &
                              c_loc(value), index)
    end function yamr__maxloc_i32_dev32

    integer(c_int) function yamr__maxloc_i64_1d(ctx, x, value, index) result(status)
        type(c_ptr), intent(in) :: ctx
        integer(c_int64_t), intent(in), contiguous, target :: x(:)
        integer(c_int64_t), intent(inout), target :: value
        integer(c_int64_t), intent(inout) :: index
        status = yamr__reduce_host(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_I64, c_loc(x), &
                                   size(x, kind=c_int64_t), c_loc(value), index)
    end function yamr__maxloc_i64_1d

    integer(c_int) function yamr__maxloc_i64_2d(ctx, a, values, indices, dim) result(status)
        type(c_ptr), intent(in) :: ctx
        integer(c_int64_t), intent(in), contiguous, target :: a(:, :)
        integer(c_int64_t), intent(inout), contiguous, target :: values(:)
        integer(c_int64_t), intent(inout), contiguous, target :: indices(:)
        integer, intent(in) :: dim
        status = yamr__reduce_columns(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_I64, c_loc(a), &
                                      size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t), &
                                      c_loc(values), size(values, kind=c_int64_t), indices, dim)
    end function yamr__maxloc_i64_2d

    integer(c_int) function yamr__maxloc_i64_dev(ctx, x, n, value, index) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int64_t), intent(in) :: n
        integer(c_int64_t), intent(inout), target :: value
        integer(c_int64_t), intent(inout) :: index
        status = yamr__reduce(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_I64, x, n, c_loc(value), index)
    end function yamr__maxloc_i64_dev

    integer(c_int) function yamr__maxloc_i64_dev32(ctx, x, n, value, index) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int32_t), intent(in) :: n
        integer(c_int64_t), intent(inout), target :: value
        integer(c_int64_t), intent(inout) :: index
        status = yamr__reduce(ctx, YAMR_OP_ARGMAX, YAMR_DTYPE_I64, x, int(n, c_int64_t), &
                              c_loc(value), index)
    end function yamr__maxloc_i64_dev32

    ! ---- yamr_minloc -----------------------------------------------------------------------------
    integer(c_int) function yamr__minloc_f32_1d(ctx, x, value, index) result(status)
        type(c_ptr), intent(in) :: ctx
        real(c_float), intent(in), contiguous, target :: x(:)
        real(c_float), intent(inout), target :: value
        integer(c_int64_t), intent(inout) :: index
        status = yamr__reduce_host(ctx, YAMR_OP_ARGMIN, YAMR_DTYPE_F32, c_loc(x), &
                                   size(x, kind=c_int64_t), c_loc(value), index)
    end function yamr__minloc_f32_1d

    integer(c_int) function yamr__minloc_f32_2d(ctx, a, values, indices, dim) result(status)
        type(c_ptr), intent(in) :: ctx
        real(c_float), intent(in), contiguous, target :: a(:, :)
        real(c_float), intent(inout), contiguous, target :: values(:)
        integer(c_int64_t), intent(inout), contiguous, target :: indices(:)
        integer, intent(in) :: dim
        status = yamr__reduce_columns(ctx, YAMR_OP_ARGMIN, YAMR_DTYPE_F32, c_loc(a), &
                                      size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t), &
                                      c_loc(values), size(values, kind=c_int64_t), indices, dim)
    end function yamr__minloc_f32_2d

    integer(c_int) function yamr__minloc_f32_dev(ctx, x, n, value, index) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int64_t), intent(in) :: n
        real(c_float), intent(inout), target :: value
        integer(c_int64_t), intent(inout) :: index
        status = yamr__reduce(ctx, YAMR_OP_ARGMIN, YAMR_DTYPE_F32, x, n, c_loc(value), index)
    end function yamr__minloc_f32_dev

    integer(c_int) function yamr__minloc_f32_dev32(ctx, x, n, value, index) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int32_t), intent(in) :: n
        real(c_float), intent(inout), target :: value
        integer(c_int64_t), intent(inout) :: index
        status = yamr__reduce(ctx, YAMR_OP_ARGMIN, YAMR_DTYPE_F32, x, int(n, c_int64_t), &
                              c_loc(value), index)
    end function yamr__minloc_f32_dev32

    integer(c_int) function yamr__minloc_f64_1d(ctx, x, value, index) result(status)
        type(c_ptr), intent(in) :: ctx
        real(c_double), intent(in), contiguous, target :: x(:)
        real(c_double), intent(inout), target :: value
        integer(c_int64_t), intent(inout) :: index
        status = yamr__reduce_host(ctx, YAMR_OP_ARGMIN, YAMR_DTYPE_F64, c_loc(x), &
                                   size(x, kind=c_int64_t), c_loc(value), index)
    end function yamr__minloc_f64_1d

    integer(c_int) function yamr__minloc_f64_2d(ctx, a, values, indices, dim) result(status)
        type(c_ptr), intent(in) :: ctx
        real(c_double), intent(in), contiguous, target :: a(:, :)
        real(c_double), intent(inout), contiguous, target :: values(:)
        integer(c_int64_t), intent(inout), contiguous, target :: indices(:)
        integer, intent(in) :: dim
        status = yamr__reduce_columns(ctx, YAMR_OP_ARGMIN, YAMR_DTYPE_F64, c_loc(a), &
                                      size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t), &
                                      c_loc(values), size(values, kind=c_int64_t), indices, dim)
    end function yamr__minloc_f64_2d

    integer(c_int) function yamr__minloc_f64_dev(ctx, x, n, value, index) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int64_t), intent(in) :: n
        real(c_double), intent(inout), target :: value
        integer(c_int64_t), intent(inout) :: index
        status = yamr__reduce(ctx, YAMR_OP_ARGMIN, YAMR_DTYPE_F64, x, n, c_loc(value), index)
    end function yamr__minloc_f64_dev

    integer(c_int) function yamr__minloc_f64_dev32(ctx, x, n, value, index) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int32_t), intent(in) :: n
        real(c_double), intent(inout), target :: value
        integer(c_int64_t), intent(inout) :: index
        status = yamr__reduce(ctx, YAMR_OP_ARGMIN, YAMR_DTYPE_F64, x, int(n, c_int64_t), &
                              c_loc(value), index)
    end function yamr__minloc_f64_dev32

    integer(c_int) function yamr__minloc_i32_1d(ctx, x, value, index) result(status)
        type(c_ptr), intent(in) :: ctx
        integer(c_int32_t), intent(in), contiguous, target :: x(:)
        integer(c_int32_t), intent(inout), target :: value
        integer(c_int64_t), intent(inout) :: index
        status = yamr__reduce_host(ctx, YAMR_OP_ARGMIN, YAMR_DTYPE_I32, c_loc(x), &
                                   size(x, kind=c_int64_t), c_loc(value), index)
    end function yamr__minloc_i32_1d

    integer(c_int) function yamr__minloc_i32_2d(ctx, a, values, indices, dim) result(status)
        type(c_ptr), intent(in) :: ctx
        integer(c_int32_t), intent(in), contiguous, target :: a(:, :)
        integer(c_int32_t), intent(inout), contiguous, target :: values(:)
        integer(c_int64_t), intent(inout), contiguous, target :: indices(:)
        integer, intent(in) :: dim
        status = yamr__reduce_columns(ctx, YAMR_OP_ARGMIN, YAMR_DTYPE_I32, c_loc(a), &
                                      size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t), &
                                      c_loc(values), size(values, kind=c_int64_t), indices, dim)
    end function yamr__minloc_i32_2d

    integer(c_int) function yamr__minloc_i32_dev(ctx, x, n, value, index) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int64_t), intent(in) :: n
        integer(c_int32_t), intent(inout), target :: value
        integer(c_int64_t), intent(inout) :: index
        status = yamr__reduce(ctx, YAMR_OP_ARGMIN, YAMR_DTYPE_I32, x, n, c_loc(value), index)
    end function yamr__minloc_i32_dev

    integer(c_int) function yamr__minloc_i32_dev32(ctx, x, n, value, index) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int32_t), intent(in) :: n
        integer(c_int32_t), intent(inout), target :: value
        integer(c_int64_t), intent(inout) :: index
        status = yamr__reduce(ctx, YAMR_OP_ARGMIN, YAMR_DTYPE_I32, x, int(n, c_int64_t), &
                              c_loc(value), index)
    end function yamr__minloc_i32_dev32

    integer(c_int) function yamr__minloc_i64_1d(ctx, x, value, index) result(status)
        type(c_ptr), intent(in) :: ctx
        integer(c_int64_t), intent(in), contiguous, target :: x(:)
        integer(c_int64_t), intent(inout), target :: value
        integer(c_int64_t), intent(inout) :: index
        status = yamr__reduce_host(ctx, YAMR_OP_ARGMIN, YAMR_DTYPE_I64, c_loc(x), &
                                   size(x, kind=c_int64_t), c_loc(value), index)
    end function yamr__minloc_i64_1d

    integer(c_int) function yamr__minloc_i64_2d(ctx, a, values, indices, dim) result(status)
        type(c_ptr), intent(in) :: ctx
        integer(c_int64_t), intent(in), contiguous, target :: a(:, :)
        integer(c_int64_t), intent(inout), contiguous, target :: values(:)
        integer(c_int64_t), intent(inout), contiguous, target :: indices(:)
        integer, intent(in) :: dim
        status = yamr__reduce_columns(ctx, YAMR_OP_ARGMIN, YAMR_DTYPE_I64, c_loc(a), &
                                      size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t), &
                                      c_loc(values), size(values, kind=c_int64_t), indices, dim)
    end function yamr__minloc_i64_2d

    integer(c_int) function yamr__minloc_i64_dev(ctx, x, n, value, index) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int64_t), intent(in) :: n
        integer(c_int64_t), intent(inout), target :: value
        integer(c_int64_t), intent(inout) :: index
        status = yamr__reduce(ctx, YAMR_OP_ARGMIN, YAMR_DTYPE_I64, x, n, c_loc(value), index)
    end function yamr__minloc_i64_dev

    integer(c_int) function yamr__minloc_i64_dev32(ctx, x, n, value, index) result(status)
        type(c_ptr), intent(in) :: ctx, x
        integer(c_int32_t), intent(in) :: n
        integer(c_int64_t), intent(inout), target :: value
        integer(c_int64_t), intent(inout) :: index
        status = yamr__reduce(ctx, YAMR_OP_ARGMIN, YAMR_DTYPE_I64, x, int(n, c_int64_t), &
                              c_loc(value), index)
    end function yamr__minloc_i64_dev32

end module yamr
