#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The MPI layer on the GPU machine, in one call (about 6 minutes with the build), from the repo
# root with .deps carried:
#     run: scripts/gpu-mpi.sh        carry: .deps
# .deps/mpich: Debian's MPICH unpacked (the GPU machine has no MPI):
#     ../shared/tools/debs-to-dir.sh .deps/mpich mpich libmpich12 libmpich-dev libhwloc15 \
#         libucx0 libibverbs1 librdmacm1 libnuma1 libslurm38 libgfortran5
# .deps/root: cmocka (libcmocka0 libcmocka-dev), which the rest of the tests need to configure.
#
# Builds build/gpu-mpi with nvcc (YAMR_CUDA_ARCHS, default 90) and the MPI layer on the carried
# MPICH (FindMPI pointed at its header and library: the compiler wrapper there names /usr paths),
# then, each under a timeout:
#   - test_mpi gpu at 1, 2 and 4 ranks sharing the one GPU, each rank its own context (and
#     test_mpi cpu at 2 ranks, the same build's CPU backend);
#   - the example at 2 ranks;
#   - yamr-bench mpi at 2 ranks on the GPU, then at 1 (the table's floor).
# Logs and results go to $OUT (default gpu-out/); the last lines are the summary.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out/logs"
mpich=$PWD/.deps/mpich/usr
[[ -x $mpich/bin/mpiexec.hydra ]] || { echo "no .deps/mpich (carry .deps)" >&2; exit 1; }
export LD_LIBRARY_PATH="$mpich/lib/x86_64-linux-gnu:$PWD/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$mpich/bin:$PATH"
mpiexec=$mpich/bin/mpiexec.hydra
build=build/gpu-mpi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

if [[ ! -x $build/bench/yamr-bench ]]; then
  generator=()
  command -v ninja > /dev/null && generator=(-G Ninja)
  # PKG_CONFIG_LIBDIR: FindMPI asks pkg-config first, which finds the GPU machine's own Open
  # MPI libraries (no mpiexec of theirs); this MPICH's launcher would start singletons of them.
  PKG_CONFIG_LIBDIR=$mpich/lib/x86_64-linux-gnu/pkgconfig \
  cmake -S . -B $build "${generator[@]}" -DYAMR_PLATFORM=nvidia \
    -DYAMR_CUDA_ARCHS="${YAMR_CUDA_ARCHS:-90}" -DCMAKE_PREFIX_PATH="$PWD/.deps/root/usr" \
    -DYAMR_WITH_MPI=ON -DMPI_SKIP_COMPILER_WRAPPER=ON \
    -DMPI_C_HEADER_DIR="$mpich/include/x86_64-linux-gnu/mpich" -DMPI_C_LIB_NAMES=mpich \
    -DMPI_mpich_LIBRARY="$mpich/lib/x86_64-linux-gnu/libmpich.so" \
    -DMPIEXEC_EXECUTABLE="$mpiexec" ${YAMR_GIT_REV:+-DYAMR_GIT_REV=$YAMR_GIT_REV} \
    > "$out/logs/configure.log" 2>&1 || { tail -30 "$out/logs/configure.log"; exit 1; }
  grep "yamr:" "$out/logs/configure.log"
  cmake --build $build -j 16 > "$out/logs/build.log" 2>&1 || { tail -30 "$out/logs/build.log"; exit 1; }
fi

summary=()
run() { # run NAME SECONDS COMMAND...: the command's output in logs/NAME.log, its last line shown
  local name=$1 seconds=$2
  shift 2
  timeout "$seconds" "$@" > "$out/logs/$name.log" 2>&1
  local rc=$?
  summary+=("$name: rc $rc: $(tail -n 1 "$out/logs/$name.log")")
  echo "${summary[-1]}"
}

for ranks in 1 2 4; do
  run "test_mpi-gpu-np$ranks" 240 "$mpiexec" -n "$ranks" $build/test/test_mpi gpu "$ranks"
done
run test_mpi-cpu-np2 120 "$mpiexec" -n 2 $build/test/test_mpi cpu 2
run example-np2 60 "$mpiexec" -n 2 $build/examples/yamr_example_mpi_argmax 1000000
run bench-mpi-np2 240 "$mpiexec" -n 2 $build/bench/yamr-bench mpi --reps 200 --out "$out/bench-mpi-np2"
cat "$out/logs/bench-mpi-np2.log"
run bench-mpi-np1 120 "$mpiexec" -n 1 $build/bench/yamr-bench mpi --reps 200 --out "$out/bench-mpi-np1"
cat "$out/logs/bench-mpi-np1.log"

echo "== summary"
printf '%s\n' "${summary[@]}"
