! SPDX-License-Identifier: MIT
! Using yamr from Fortran: open GPU 0 (or the CPU backend when there is none), then take
! MAXLOC-style answers three ways:
!  1. a host array, as MAXLOC(x) would (on a GPU context the call copies x to the device);
!  2. the columns of a matrix, as MAXLOC(a, DIM=1) would;
!  3. data already in the context's memory, through a type(c_ptr): the form to use on a GPU when
!     the data stays there between calls. yamr_device_alloc and yamr_copy_to_device give such
!     memory here; a pointer from an OpenMP `target data use_device_ptr(x)` or an OpenACC
!     `host_data use_device(x)` region (passed as c_loc(x) inside it) works the same way.
! Indices count from 1. Exit status 0 when every answer is the expected one.
program yamr_example_maxloc
    use, intrinsic :: iso_c_binding
    use yamr
    implicit none
    ! The largest value is 0, held by -0.0 at index 2 and +0.0 at indices 4 and 7; -0.0 and
    ! +0.0 compare equal and the first index wins, so the answer is index 2, value -0.0.
    real(c_float), target :: x(8) = [-3.5, -0.0, -7.25, 0.0, -1.0, -0.5, 0.0, -12.0]
    real(c_double) :: a(3, 4), column_max(4)
    integer(c_int64_t) :: column_index(4)
    type(c_ptr) :: ctx, x_dev
    integer(c_int) :: status
    real(c_float) :: value
    integer(c_int64_t) :: index
    integer(c_size_t) :: bytes
    logical :: ok

    status = yamr_create(ctx, 0)
    if (status == YAMR_ERROR_NO_DEVICE) then
        print '(a)', 'no GPU 0 ('//yamr_status_string(status)//'); using the CPU backend'
        status = yamr_create(ctx, YAMR_DEVICE_CPU)
    end if
    call check(status, 'yamr_create')
    print '(a)', yamr_report(ctx)
    ok = .true.

    ! 1. A host array.
    call check(yamr_maxloc(ctx, x, value, index), 'yamr_maxloc')
    print '(a, g0, a, i0, a, i0)', 'maxloc(x): value ', value, ' at ', index, &
        '; MAXLOC(x) says ', maxloc(x, dim=1)
    ok = ok .and. index == 2 .and. value == 0.0 .and. sign(1.0, value) < 0.0

    ! 2. One answer per column.
    a = reshape([1d0, 9d0, 9d0, -2d0, -5d0, -1d0, 4d0, 4d0, 4d0, 0d0, 7d0, -7d0], [3, 4])
    call check(yamr_maxloc(ctx, a, column_max, column_index, dim=1), 'yamr_maxloc dim=1')
    print '(a, 4i3, a, 4i3)', 'maxloc(a, dim=1):', column_index, '; MAXLOC(a, DIM=1):', &
        maxloc(a, dim=1)
    ok = ok .and. all(column_index == maxloc(a, dim=1)) .and. all(column_max == maxval(a, dim=1))

    ! 3. Data in the context's memory.
    bytes = c_sizeof(x)
    x_dev = c_null_ptr
    call check(yamr_device_alloc(ctx, bytes, x_dev), 'yamr_device_alloc')
    call check(yamr_copy_to_device(ctx, x_dev, c_loc(x), bytes), 'yamr_copy_to_device')
    call check(yamr_minloc(ctx, x_dev, size(x, kind=c_int64_t), value, index), 'yamr_minloc')
    print '(a, g0, a, i0)', 'minloc(x_dev): value ', value, ' at ', index
    ok = ok .and. index == 8 .and. value == -12.0
    call check(yamr_device_free(ctx, x_dev), 'yamr_device_free')

    call yamr_destroy(ctx)
    if (.not. ok) then
        print '(a)', 'MISMATCH'
        error stop 1
    end if
    print '(a)', 'ok'

contains

    subroutine check(status, what)
        integer(c_int), intent(in) :: status
        character(*), intent(in) :: what
        if (status == YAMR_SUCCESS) return
        print '(a, a, a)', what, ': ', yamr_status_string(status)
        error stop 1
    end subroutine check
end program yamr_example_maxloc
