! SPDX-License-Identifier: MIT
! Counting checks and reporting the first failures, for test_fortran.
module test_support
    use, intrinsic :: iso_c_binding
    use yamr
    implicit none
    private
    public :: check, check_status, report, failures, checks

    integer, save :: failures = 0
    integer, save :: checks = 0
    integer, parameter :: max_printed = 25

contains

    subroutine check(ok, what)
        logical, intent(in) :: ok
        character(*), intent(in) :: what
        checks = checks + 1
        if (ok) return
        failures = failures + 1
        if (failures <= max_printed) write (*, '(a, a)') 'FAIL: ', what
    end subroutine check

    subroutine check_status(got, want, what)
        integer(c_int), intent(in) :: got, want
        character(*), intent(in) :: what
        call check(got == want, what//': got '//yamr_status_string(got)//', want '// &
                   yamr_status_string(want))
    end subroutine check_status

    subroutine report()
        write (*, '(i0, a, i0, a)') checks, ' checks, ', failures, ' failed'
    end subroutine report
end module test_support
