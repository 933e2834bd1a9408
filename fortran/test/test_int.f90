! SPDX-License-Identifier: MIT
! The integer-kind checks (int_checks.inc) for integer(c_int32_t) and integer(c_int64_t).
module test_int_i32
    use, intrinsic :: iso_c_binding
    use yamr
    use test_support
    implicit none
    private
    public :: run_int_checks
    integer, parameter :: ip = c_int32_t
contains
    include 'int_checks.inc'
end module test_int_i32

module test_int_i64
    use, intrinsic :: iso_c_binding
    use yamr
    use test_support
    implicit none
    private
    public :: run_int_checks
    integer, parameter :: ip = c_int64_t
contains
    include 'int_checks.inc'
end module test_int_i64
