! SPDX-License-Identifier: MIT
! The real-kind checks (real_checks.inc) for real(c_float) and real(c_double).
module test_real_f32
    use, intrinsic :: iso_c_binding
    use, intrinsic :: ieee_arithmetic
    use yamr
    use test_support
    implicit none
    private
    public :: run_real_checks
    integer, parameter :: wp = c_float, bk = c_int32_t
    integer(bk), parameter :: qnan_bits = int(z'7FC00000', bk)
contains
    include 'real_checks.inc'
end module test_real_f32

module test_real_f64
    use, intrinsic :: iso_c_binding
    use, intrinsic :: ieee_arithmetic
    use yamr
    use test_support
    implicit none
    private
    public :: run_real_checks
    integer, parameter :: wp = c_double, bk = c_int64_t
    integer(bk), parameter :: qnan_bits = int(z'7FF8000000000000', bk)
contains
    include 'real_checks.inc'
end module test_real_f64
