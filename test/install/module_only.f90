! SPDX-License-Identifier: MIT
! A program that uses only the Fortran module (no direct call into libyamr): it must start with
! nothing but the documented link line, since its only direct dependency is libyamr_fortran
! (scripts/test.sh, step (e)). Exit status 0 when the answer is right.
program yamr_module_only
    use, intrinsic :: iso_c_binding
    use yamr
    implicit none
    real(c_float) :: x(5) = [1.0, 7.0, -2.0, 7.0, 3.0]
    real(c_float) :: value
    integer(c_int64_t) :: index
    type(c_ptr) :: ctx
    integer(c_int) :: status

    status = yamr_create(ctx, YAMR_DEVICE_CPU)
    if (status /= YAMR_SUCCESS) error stop 'yamr_create failed'
    status = yamr_maxloc(ctx, x, value, index)
    call yamr_destroy(ctx)
    if (status /= YAMR_SUCCESS .or. index /= 2 .or. value /= 7.0) error stop 'wrong answer'
    print '(a, i0)', 'module only: maxloc ', index
end program yamr_module_only
