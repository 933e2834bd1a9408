# SPDX-License-Identifier: MIT
# The `mpi` component of the yamr package needs MPI for C (installed; included by yamrConfig.cmake
# before yamr-mpi-targets.cmake). Without it the component is not found, with the reason.
find_package(MPI QUIET COMPONENTS C)
if(NOT MPI_C_FOUND)
  set(yamr_mpi_FOUND FALSE)
  set(yamr_mpi_NOT_FOUND_MESSAGE
      "needs MPI for C, which find_package(MPI COMPONENTS C) did not find (Debian: libmpich-dev)")
endif()
