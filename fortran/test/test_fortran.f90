! SPDX-License-Identifier: MIT
! The Fortran module against Fortran's own MAXLOC/MINLOC/MAXVAL/MINVAL and the rules of
! include/yamr.h, on a CPU context (argument `cpu`) or on GPU 0 (`gpu`, exit 77 without one).
!
! Data: ties, -0.0 and +0.0, +-inf, NaNs of several payloads under both NaN policies, the
! integer kinds' extremes; rank 1 (odd sizes and powers of two +-1) and rank 2 (dim = 1); the
! array forms and the device-pointer forms; minmax, segments (random lengths, empty ones),
! softmax statistics and top-k (yamr_maxk, yamr_mink); yamr_create_ex, yamr_set_cpu_threads,
! yamr_get_nan_policy; bad arguments leave the outputs untouched.
program test_fortran
    use, intrinsic :: iso_c_binding
    use yamr
    use test_support
    use test_real_f32, only: run_f32 => run_real_checks
    use test_real_f64, only: run_f64 => run_real_checks
    use test_int_i32, only: run_i32 => run_int_checks
    use test_int_i64, only: run_i64 => run_int_checks
    implicit none

    integer, parameter :: seed_value = 20261123
    character(len=16) :: mode
    type(c_ptr) :: ctx
    integer(c_int) :: device, s
    integer :: seed_size, i
    ! Outputs of the bad-argument calls, which must leave them as reset() set them.
    real(c_float) :: bad_value, bad_values(4), bad_values3(3)
    integer(c_int64_t) :: bad_index, bad_indices(4), bad_indices5(5)

    call get_command_argument(1, mode)
    device = YAMR_DEVICE_CPU
    if (mode == 'gpu') device = 0
    s = yamr_create(ctx, device)
    if (mode == 'gpu' .and. s == YAMR_ERROR_NO_DEVICE) then
        write (*, '(a, a)') 'SKIP: no GPU 0: ', yamr_status_string(s)
        stop 77
    end if
    call check_status(s, YAMR_SUCCESS, 'yamr_create')
    if (s /= YAMR_SUCCESS) error stop 1
    call check(c_associated(ctx), 'yamr_create: ctx is null')
    write (*, '(a)') yamr_report(ctx)

    call random_seed(size=seed_size)
    call random_seed(put=[(seed_value + 7*i, i=1, seed_size)])
    write (*, '(a, i0)') 'seed ', seed_value

    call check_constants()
    call check_version()
    call check_strings(ctx)
    call check_bad_arguments(ctx)
    call check_bad_batched_arguments(ctx)
    call check_context_calls(ctx, device)
    call run_f32(ctx, 'f32')
    call run_f64(ctx, 'f64')
    call run_i32(ctx, 'i32')
    call run_i64(ctx, 'i64')

    call yamr_destroy(ctx)
    call check(.not. c_associated(ctx), 'yamr_destroy: ctx not reset to c_null_ptr')
    call yamr_destroy(ctx) ! a null context is a no-op

    call report()
    if (failures > 0) error stop 1

contains

    !> Every constant of the module has the value of its C enum (test/c_values.c).
    subroutine check_constants()
        interface
            integer(c_int) function c_constants(out, capacity) &
                bind(C, name="yamr_ftest_c_constants")
                import :: c_int
                integer(c_int), intent(out) :: out(*)
                integer(c_int), value :: capacity
            end function c_constants
        end interface
        type(yamr_device_info) :: info
        integer(c_int), parameter :: mine(*) = [ &
            YAMR_DEVICE_CPU, &
            YAMR_SUCCESS, YAMR_ERROR_INVALID_VALUE, YAMR_ERROR_NO_DEVICE, YAMR_ERROR_UNSUPPORTED, &
            YAMR_ERROR_OUT_OF_MEMORY, YAMR_ERROR_DEVICE, &
            YAMR_NAN_PROPAGATE, YAMR_NAN_IGNORE, &
            YAMR_VARIANT_AUTO, YAMR_VARIANT_RACY, YAMR_VARIANT_RACY_VOLATILE, &
            YAMR_VARIANT_RACY_ITS, YAMR_VARIANT_ATOMIC, YAMR_VARIANT_SHARED_TREE, &
            YAMR_VARIANT_WARP_SHUFFLE, &
            YAMR_DTYPE_F32, YAMR_DTYPE_F64, YAMR_DTYPE_F16, YAMR_DTYPE_BF16, YAMR_DTYPE_I32, &
            YAMR_DTYPE_U32, YAMR_DTYPE_I64, &
            YAMR_OP_MAX, YAMR_OP_MIN, YAMR_OP_ARGMAX, YAMR_OP_ARGMIN, &
            YAMR_VENDOR_CPU, YAMR_VENDOR_NVIDIA, YAMR_VENDOR_AMD, &
            int(c_sizeof(info), c_int)]
        integer(c_int) :: theirs(64), count
        integer :: i
        character(len=80) :: msg
        count = c_constants(theirs, size(theirs, kind=c_int))
        call check(count == size(mine), 'constants: C lists a different number of them')
        do i = 1, min(int(count), size(mine))
            write (msg, '(a, i0, a, i0, a, i0)') 'constant ', i, ': Fortran ', mine(i), &
                ', C ', theirs(i)
            call check(mine(i) == theirs(i), trim(msg))
        end do
    end subroutine check_constants

    !> yamr_version: the numbers of the header the test was built with, and the string
    !> "major.minor.patch" of them.
    subroutine check_version()
        interface
            subroutine c_version(major, minor, patch) bind(C, name="yamr_ftest_c_version")
                import :: c_int
                integer(c_int), intent(out) :: major, minor, patch
            end subroutine c_version
        end interface
        integer(c_int) :: major, minor, patch, c_major, c_minor, c_patch
        character(len=:), allocatable :: text
        character(len=40) :: want
        major = -1
        minor = -1
        patch = -1
        text = yamr_version(major, minor, patch)
        call c_version(c_major, c_minor, c_patch)
        write (want, '(i0, a, i0, a, i0)') c_major, '.', c_minor, '.', c_patch
        write (*, '(a, a)') 'yamr_version: ', text
        call check(text == trim(want), 'yamr_version: "'//text//'", want "'//trim(want)//'"')
        call check(major == c_major .and. minor == c_minor .and. patch == c_patch, &
                   'yamr_version: numbers differ from yamr_version.h')
        call check(yamr_version() == text, 'yamr_version() without arguments differs')
    end subroutine check_version

    subroutine check_strings(ctx)
        type(c_ptr), intent(in) :: ctx
        character(len=*), parameter :: names(0:5) = [character(len=24) :: 'YAMR_SUCCESS', &
            'YAMR_ERROR_INVALID_VALUE', 'YAMR_ERROR_NO_DEVICE', 'YAMR_ERROR_UNSUPPORTED', &
            'YAMR_ERROR_OUT_OF_MEMORY', 'YAMR_ERROR_DEVICE']
        character(len=:), allocatable :: text
        integer(c_int) :: st
        do st = 0, 5
            text = yamr_status_string(st)
            call check(index(text, trim(names(st))//':') == 1, &
                       'yamr_status_string: "'//text//'" for '//trim(names(st)))
        end do
        call check(len(yamr_status_string(99_c_int)) > 0, 'yamr_status_string(99) is empty')
        call check(len(yamr_last_error(ctx)) == 0, 'yamr_last_error of a fresh context')
        call check(index(yamr_report(ctx), new_line('a')) > 0, 'yamr_report is one line')
    end subroutine check_strings

    !> Each bad call returns its status and leaves every output as it was.
    subroutine check_bad_arguments(ctx)
        type(c_ptr), intent(in) :: ctx
        real(c_float), target :: x(5), empty(0), a(3, 4)
        real(c_double) :: a8(3, 4), values8(4)
        integer(c_int64_t) :: ai(3, 4), valuesi(4)
        type(c_ptr) :: other, x_dev
        x = [1.0, 5.0, -2.0, 5.0, 0.0]
        a = 1.0
        a8 = 1.0d0
        ai = 1
        values8 = -9.0d0
        valuesi = -9

        call reset()
        call check_status(yamr_maxloc(c_null_ptr, x, bad_value, bad_index), &
                          YAMR_ERROR_INVALID_VALUE, 'maxloc null ctx')
        call untouched('maxloc null ctx')
        call check_status(yamr_maxval(c_null_ptr, x, bad_value), YAMR_ERROR_INVALID_VALUE, &
                          'maxval null ctx')
        call untouched('maxval null ctx')
        call check_status(yamr_minloc(ctx, empty, bad_value, bad_index), YAMR_ERROR_INVALID_VALUE, &
                          'minloc of a zero-sized array')
        call untouched('minloc of a zero-sized array')
        call check_status(yamr_maxloc(ctx, c_loc(x), 0_c_int64_t, bad_value, bad_index), &
                          YAMR_ERROR_INVALID_VALUE, 'maxloc x_dev n = 0')
        call untouched('maxloc x_dev n = 0')
        call check_status(yamr_maxloc(ctx, c_loc(x), -5_c_int64_t, bad_value, bad_index), &
                          YAMR_ERROR_INVALID_VALUE, 'maxloc x_dev n < 0')
        call untouched('maxloc x_dev n < 0')
        call check_status(yamr_minval(ctx, c_null_ptr, 5_c_int32_t, bad_value), &
                          YAMR_ERROR_INVALID_VALUE, 'minval x_dev null')
        call untouched('minval x_dev null')

        call check_status(yamr_maxloc(ctx, a, bad_values, bad_indices, 2), YAMR_ERROR_UNSUPPORTED, &
                          'maxloc dim = 2')
        call untouched('maxloc dim = 2')
        call check_status(yamr_maxloc(ctx, a, bad_values3, bad_indices, 2), &
                          YAMR_ERROR_UNSUPPORTED, 'maxloc dim = 2, outputs of size(a, 1)')
        call untouched('maxloc dim = 2, outputs of size(a, 1)')
        call check_status(yamr_maxval(ctx, a8, values8, 2), &
                          YAMR_ERROR_UNSUPPORTED, 'maxval f64 dim = 2')
        call check(all(values8 == -9.0d0), 'maxval f64 dim = 2: values written')
        call check_status(yamr_minval(ctx, ai, valuesi, 2), &
                          YAMR_ERROR_UNSUPPORTED, 'minval i64 dim = 2')
        call check(all(valuesi == -9), 'minval i64 dim = 2: values written')
        call check_status(yamr_minloc(ctx, a, bad_values, bad_indices, 0), &
                          YAMR_ERROR_INVALID_VALUE, 'minloc dim = 0')
        call untouched('minloc dim = 0')
        call check_status(yamr_minloc(ctx, a, bad_values, bad_indices, 3), &
                          YAMR_ERROR_INVALID_VALUE, 'minloc dim = 3')
        call untouched('minloc dim = 3')
        call check_status(yamr_maxloc(ctx, a, bad_values3, bad_indices, 1), &
                          YAMR_ERROR_INVALID_VALUE, 'maxloc values of size(a, 1)')
        call untouched('maxloc values of size(a, 1)')
        call check_status(yamr_maxloc(ctx, a, bad_values, bad_indices5, 1), &
                          YAMR_ERROR_INVALID_VALUE, 'maxloc indices too long')
        call untouched('maxloc indices too long')
        call check_status(yamr_maxval(ctx, a(:, 1:0), bad_values(1:0), 1), &
                          YAMR_ERROR_INVALID_VALUE, 'maxval of a zero-sized matrix')
        call check_status(yamr_maxloc(c_null_ptr, a, bad_values, bad_indices, 1), &
                          YAMR_ERROR_INVALID_VALUE, 'maxloc 2-D null ctx')
        call untouched('maxloc 2-D null ctx')

        call check_status(yamr_set_nan_policy(ctx, 7_c_int), YAMR_ERROR_INVALID_VALUE, &
                          'set_nan_policy(7)')
        call check_status(yamr_set_nan_policy(c_null_ptr, YAMR_NAN_IGNORE), &
                          YAMR_ERROR_INVALID_VALUE, 'set_nan_policy null ctx')
        other = c_loc(x) ! yamr_create resets it to c_null_ptr on failure
        call check_status(yamr_create(other, 4096_c_int), YAMR_ERROR_NO_DEVICE, 'create GPU 4096')
        call check(.not. c_associated(other), 'create GPU 4096: ctx not null')
        x_dev = c_null_ptr
        call check_status(yamr_device_alloc(c_null_ptr, 16_c_size_t, x_dev), &
                          YAMR_ERROR_INVALID_VALUE, 'device_alloc null ctx')
        call check(.not. c_associated(x_dev), 'device_alloc null ctx: ptr written')
    end subroutine check_bad_arguments

    !> The minmax, segment and softmax forms: each bad call returns its status and leaves every
    !> output as it was.
    subroutine check_bad_batched_arguments(ctx)
        type(c_ptr), intent(in) :: ctx
        real(c_float), target :: x(5), empty(0), a(3, 4)
        real(c_float) :: sums(4), sums3(3), topk_values(2, 4), topk_big(4, 4)
        integer(c_int64_t) :: topk_indices(2, 4)
        integer(c_int64_t) :: starts(5), starts4(4)
        integer(c_int32_t) :: starts32(5)
        x = [1.0, 5.0, -2.0, 5.0, 0.0]
        a = 1.0
        starts = [1, 2, 2, 4, 6]
        starts4 = [1, 2, 4, 6]
        starts32 = int(starts, c_int32_t)
        topk_values = -9.0
        topk_big = -9.0
        topk_indices = -9

        call reset()
        call check_status(yamr_minmax(c_null_ptr, x, bad_values(1), bad_values(2), bad_indices(1), &
                                      bad_indices(2)), YAMR_ERROR_INVALID_VALUE, 'minmax null ctx')
        call untouched('minmax null ctx')
        call check_status(yamr_minmax(ctx, empty, bad_values(1), bad_values(2), bad_indices(1), &
                                      bad_indices(2)), YAMR_ERROR_INVALID_VALUE, &
                          'minmax of a zero-sized array')
        call untouched('minmax of a zero-sized array')
        call check_status(yamr_minmax(ctx, c_loc(x), 0_c_int64_t, bad_values(1), bad_values(2)), &
                          YAMR_ERROR_INVALID_VALUE, 'minmax x_dev n = 0')
        call untouched('minmax x_dev n = 0')
        call check_status(yamr_minmax(ctx, c_null_ptr, 5_c_int32_t, bad_values(1), &
                                      bad_values(2), max_index=bad_index), &
                          YAMR_ERROR_INVALID_VALUE, 'minmax x_dev null')
        call untouched('minmax x_dev null')

        call check_status(yamr_segment_maxloc(c_null_ptr, x, starts, bad_values, bad_indices), &
                          YAMR_ERROR_INVALID_VALUE, 'segment_maxloc null ctx')
        call untouched('segment_maxloc null ctx')
        call check_status(yamr_segment_maxloc(ctx, x, starts4, bad_values, bad_indices), &
                          YAMR_ERROR_INVALID_VALUE, 'segment_maxloc starts too short')
        call untouched('segment_maxloc starts too short')
        call check_status(yamr_segment_minloc(ctx, x, starts, bad_values, bad_indices5), &
                          YAMR_ERROR_INVALID_VALUE, 'segment_minloc indices too long')
        call untouched('segment_minloc indices too long')
        call check_status(yamr_segment_maxval(ctx, x, starts(1:1), bad_values(1:0)), &
                          YAMR_ERROR_INVALID_VALUE, 'segment_maxval no segment')
        call check_status(yamr_segment_minval(ctx, empty, [1_c_int64_t, 1_c_int64_t], &
                                              bad_values(1:1)), &
                          YAMR_ERROR_INVALID_VALUE, 'segment_minval of a zero-sized array')
        call untouched('segment_minval of a zero-sized array')
        starts(3) = 0
        call check_status(yamr_segment_maxval(ctx, x, starts, bad_values), &
                          YAMR_ERROR_INVALID_VALUE, 'segment_maxval a start of 0')
        call untouched('segment_maxval a start of 0')
        starts(3) = 7
        call check_status(yamr_segment_maxval(ctx, x, starts, bad_values), &
                          YAMR_ERROR_INVALID_VALUE, 'segment_maxval a start past size(x) + 1')
        call untouched('segment_maxval a start past size(x) + 1')
        starts32(5) = 7
        call check_status(yamr_segment_minloc(ctx, x, starts32, bad_values, bad_indices), &
                          YAMR_ERROR_INVALID_VALUE, 'segment_minloc an int32 start past the end')
        call untouched('segment_minloc an int32 start past the end')

        sums = -9.0
        sums3 = -9.0
        call check_status(yamr_softmax_stats(ctx, a, bad_values, sums, 2), &
                          YAMR_ERROR_UNSUPPORTED, 'softmax_stats dim = 2')
        call check_status(yamr_softmax_stats(ctx, a, bad_values, sums, 0), &
                          YAMR_ERROR_INVALID_VALUE, 'softmax_stats dim = 0')
        call check_status(yamr_softmax_stats(ctx, a, bad_values, sums3, 1), &
                          YAMR_ERROR_INVALID_VALUE, 'softmax_stats col_sum of size(a, 1)')
        call check_status(yamr_softmax_stats(c_null_ptr, a, bad_values, sums, 1), &
                          YAMR_ERROR_INVALID_VALUE, 'softmax_stats null ctx')
        call check_status(yamr_softmax_stats(ctx, empty, bad_value, sums(1)), &
                          YAMR_ERROR_INVALID_VALUE, 'softmax_stats of a zero-sized array')
        call untouched('softmax_stats')
        call check(all(sums == -9.0) .and. all(sums3 == -9.0), 'softmax_stats: a sum written')

        call check_status(yamr_maxk(c_null_ptr, x, bad_values(1:2), bad_indices(1:2)), &
                          YAMR_ERROR_INVALID_VALUE, 'maxk null ctx')
        call check_status(yamr_maxk(ctx, x(1:3), bad_values), YAMR_ERROR_INVALID_VALUE, &
                          'maxk k > size(x)')
        call check_status(yamr_mink(ctx, x, bad_values(1:0)), YAMR_ERROR_INVALID_VALUE, &
                          'mink k = 0')
        call check_status(yamr_mink(ctx, x, bad_values, bad_indices5), &
                          YAMR_ERROR_INVALID_VALUE, 'mink indices too long')
        call check_status(yamr_maxk(ctx, empty, bad_values(1:1)), YAMR_ERROR_INVALID_VALUE, &
                          'maxk of a zero-sized array')
        call check_status(yamr_maxk(ctx, a, topk_values, topk_indices, 2), &
                          YAMR_ERROR_UNSUPPORTED, 'maxk dim = 2')
        call check_status(yamr_mink(ctx, a, topk_values(:, 1:3), 1), YAMR_ERROR_INVALID_VALUE, &
                          'mink values of 3 columns for 4')
        call check_status(yamr_mink(ctx, a, topk_values, topk_indices(1:1, :), 1), &
                          YAMR_ERROR_INVALID_VALUE, 'mink indices of another shape')
        call check_status(yamr_maxk(ctx, a, topk_big, 1), YAMR_ERROR_INVALID_VALUE, &
                          'maxk k > size(a, 1)')
        call untouched('top-k')
        call check(all(topk_values == -9.0) .and. all(topk_indices == -9) .and. &
                   all(topk_big == -9.0), 'top-k per column: an output written')
    end subroutine check_bad_batched_arguments

    !> yamr_create_ex, yamr_set_cpu_threads and yamr_get_nan_policy.
    subroutine check_context_calls(ctx, device)
        type(c_ptr), intent(in) :: ctx
        integer(c_int), intent(in) :: device
        type(c_ptr) :: other
        character(len=:), allocatable :: why
        integer(c_int) :: policy
        real(c_double), target :: x(1000)
        real(c_double) :: value
        integer(c_int64_t) :: index
        integer(c_int) :: threads

        call check_status(yamr_create_ex(other, 4096_c_int, why), YAMR_ERROR_NO_DEVICE, &
                          'create_ex GPU 4096')
        call check(.not. c_associated(other), 'create_ex GPU 4096: ctx not null')
        call check(len(why) > 0, 'create_ex GPU 4096: no reason given')
        write (*, '(a, a)') 'create_ex(4096): ', why
        call check_status(yamr_create_ex(other, YAMR_DEVICE_CPU, why), YAMR_SUCCESS, &
                          'create_ex CPU')
        call check(c_associated(other) .and. len(why) == 0, 'create_ex CPU: null ctx or a reason')
        call yamr_destroy(other)

        policy = -9
        call check_status(yamr_get_nan_policy(c_null_ptr, policy), YAMR_ERROR_INVALID_VALUE, &
                          'get_nan_policy null ctx')
        call check(policy == -9, 'get_nan_policy null ctx: policy written')
        call check_status(yamr_set_nan_policy(ctx, YAMR_NAN_IGNORE), YAMR_SUCCESS, 'set IGNORE')
        call check_status(yamr_get_nan_policy(ctx, policy), YAMR_SUCCESS, 'get_nan_policy')
        call check(policy == YAMR_NAN_IGNORE, 'get_nan_policy: not what was set')
        call check_status(yamr_set_nan_policy(ctx, YAMR_NAN_PROPAGATE), YAMR_SUCCESS, &
                          'set PROPAGATE')

        call check_status(yamr_set_cpu_threads(c_null_ptr, 1_c_int), YAMR_ERROR_INVALID_VALUE, &
                          'set_cpu_threads null ctx')
        if (device /= YAMR_DEVICE_CPU) then
            call check_status(yamr_set_cpu_threads(ctx, 1_c_int), YAMR_ERROR_UNSUPPORTED, &
                              'set_cpu_threads on a GPU context')
            return
        end if
        call check_status(yamr_set_cpu_threads(ctx, -1_c_int), YAMR_ERROR_INVALID_VALUE, &
                          'set_cpu_threads(-1)')
        call random_number(x)
        do threads = 1, 3 ! results never depend on the count; 0 restores the default
            call check_status(yamr_set_cpu_threads(ctx, mod(threads, 3_c_int)), YAMR_SUCCESS, &
                              'set_cpu_threads')
            call check_status(yamr_maxloc(ctx, x, value, index), YAMR_SUCCESS, &
                              'maxloc after set_cpu_threads')
            call check(index == maxloc(x, dim=1) .and. value == maxval(x), &
                       'maxloc after set_cpu_threads /= MAXLOC')
        end do
    end subroutine check_context_calls

    subroutine reset()
        bad_value = -9.0
        bad_values = -9.0
        bad_values3 = -9.0
        bad_index = -9
        bad_indices = -9
        bad_indices5 = -9
    end subroutine reset

    subroutine untouched(what)
        character(*), intent(in) :: what
        call check(bad_value == -9.0 .and. all(bad_values == -9.0) .and. &
                   all(bad_values3 == -9.0) .and. bad_index == -9 .and. &
                   all(bad_indices == -9) .and. all(bad_indices5 == -9), &
                   what//': an output was written')
    end subroutine untouched
end program test_fortran
