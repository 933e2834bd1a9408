#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The test command: builds yamr in every configuration this machine can build, runs the quick
# tests, and checks the installed package from the outside. CI runs it on a fresh Debian 12
# machine without a GPU; it installs the Debian packages it needs when they are missing.
#
#     scripts/test.sh [--quick | --install]
#
#   (a) build/cpu        CPU backend, ctest -L quick (with the MPI layer's tests at 1-4 ranks)
#   (b) build/cpu-asan   CPU backend, Debug at -O1, ASan + UBSan, ctest -L quick (topk_cpu's
#                        rows up to 140001 elements, the shortest that splits, and 64 at most a
#                        call; 2^20 and 400 rows in (a), 2^20 in topk_cpu_threads)
#   (b2) build/cpu-noomp CPU backend without OpenMP (YAMR_WITH_OPENMP=OFF), ctest -L quick
#                        (one thread: no cpu_omp1 or topk_cpu_threads, which would repeat)
#   (b3) build/cpu-tsan  CPU backend, clang + LLVM's libomp, ThreadSanitizer: the threaded tests
#                        (OpenMP threads, and contexts used from several threads at once)
#   (c) build/nvidia     nvcc, default architectures, ctest -L quick (GPU tests skip without a
#                        GPU) but the CPU backend's own (-LE cpu_backend: the same C code as
#                        (a)'s); skipped, with the reason, when nvcc is not found
#   (d) build/amd        hipcc: library, tests and examples compile and link (nothing runs);
#                        then the AMD assembly of every kernel read three ways (test/amd/): as
#                        Debian's HIP 5.2 builds it (the library build's own, -save-temps=obj),
#                        as a ROCm >= 7.2 compiler sees it (no __AMDGCN_WAVEFRONT_SIZE; clang 19
#                        from Debian: gfx1030's compiled, gfx90a's device source the same as
#                        with the macro), and gfx1030 in wave64; the wave width's errors and
#                        paths outside the build (a probe kernel, test/amd/width_probe.hip)
#   (e) build/readme     the README's install commands run as written (YAMR_PLATFORM=auto),
#                        in a copy of the tree with a scratch $HOME; then from the outside: a
#                        C program, a Fortran program that uses only the module (pkg-config,
#                        and a Fortran-only CMake project), find_package(yamr COMPONENTS ...),
#                        the MPI example at 2 and 4 ranks with OpenMP's thread defaults
#   (g) build/abi        scripts/abi-check.sh: soname, version file and ABI (abidiff) against
#                        abi/; the typed declarations as scripts/typed-decls.py writes them;
#                        an SPDX license line in every source file
#   (f) build/conventions  configure only: tests off without cmocka unless asked for, and the
#                        CMake/ROCm architecture variables honoured (with nvcc, hipcc)
#
# --quick runs (a) only; --install runs (a), (e), (f) and (g). Build folders are reused, so a
# second run only rebuilds what changed. (d), (c), (f) and (g) start first, in the background
# beside (a), (b) and (e), each into build/logs/STEP.log, printed when it ends: the builds and the
# single-threaded phases of the others (configure, the tests, the assembly checks) share the
# cores, and the builds' commands take job tokens (scripts/with-token.sh), one a core. Waiting
# threads and ranks sleep rather than spin on those shared cores: OMP_WAIT_POLICY=passive
# (unless set), and with MPICH's ch4:ucx test_mpi's ranks preload
# .ci/mpi_idle_yield.c. The builds share one compiler cache (ccache, in build/ccache): a C or C++
# source that several steps compile alike is compiled once; they use Ninja where it is installed.
# Each step reports its wall and CPU seconds (cpu:95s/cpu160s; a background step's own, even where
# it ends during another), and the last line the run's CPU seconds in all.
set -euo pipefail

usage() { sed -n '2,/^set -euo pipefail/s/^# \{0,1\}//p' "$0"; }

quick=0
install_only=0
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    --install) install_only=1 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "test.sh: unknown argument '$arg'" >&2; usage >&2; exit 2 ;;
  esac
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
mkdir -p "$root/build/logs"
jobs=$(nproc)
# OpenMP threads that sleep when idle: the steps run side by side on few cores, and libgomp's
# default spin-wait then burns the cores the other steps need (test_rows cpu on a busy 2-core
# machine: 14.8 -> 6.4 CPU s, test_semantics cpu: 4.3 -> 1.9). Results do not depend on it.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
t_start=$SECONDS
step_results=() # "name:seconds" or "name:skipped", in order
current_step=""
step_t0=0

section() { printf '\n=== %s ===\n' "$*"; }
# cpu_now: sets cpu_s to the user + system seconds of this shell's waited-for children so far
# (bash's `times`, which must run in this shell, not in a $(...) of its own).
cpu_now() {
  local file=$root/build/logs/.times.$BASHPID
  times > "$file"
  cpu_s=$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/)
                         printf "%d\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$file")
  rm -f "$file"
}
step_cpu0=0
begin_step() {
  current_step=$1
  step_t0=$SECONDS
  cpu_now
  step_cpu0=$cpu_s
  section "$1: $2"
}
# bash reaps a background step when it ends, and its CPU seconds join this shell's children's
# then: a foreground step during which one ended leaves that step's out (it has its own line).
bg_pids=()   # the background steps (start_bg), in start order
bg_names=()
bg_reaped=() # those whose CPU seconds a foreground step has left out
end_step() {
  local i cpu bg ended=()
  for i in "${!bg_pids[@]}"; do # before cpu_now: a step gone now is in its count
    [[ " ${bg_reaped[*]} " == *" ${bg_names[$i]} "* ]] || kill -0 "${bg_pids[$i]}" 2> /dev/null \
      || ended+=("${bg_names[$i]}")
  done
  cpu_now
  cpu=$((cpu_s - step_cpu0))
  for i in "${ended[@]}"; do
    bg=$(sed -n "s|^$i: done in [0-9]*s/cpu\([0-9]*\)s$|\1|p" "$root/build/logs/$i.log")
    cpu=$((cpu - ${bg:-0}))
    bg_reaped+=("$i")
  done
  step_results+=("$current_step:$((SECONDS - step_t0))s/cpu${cpu}s")
  current_step=""
}
skip_step() { step_results+=("$1:skipped"); }
on_exit() {
  local rc=$?
  if ((rc != 0)); then
    echo
    echo "test.sh: FAILED in step '${current_step:-setup}' (exit $rc) after $((SECONDS - t_start))s;" \
         "done before it: ${step_results[*]:-none}"
  fi
}
trap on_exit EXIT

# ---- Packages -----------------------------------------------------------------------------
# cmake only recommends make, and --no-install-recommends skips recommendations: ask for it.
packages=(cmake make gcc g++ gfortran fypp libcmocka-dev pkg-config)
((quick || install_only)) || packages+=(hipcc libamdhip64-dev rocm-device-libs clang-19 python3)
((quick || install_only)) || packages+=(clang-14 libomp-14-dev) # the TSan build (b3)
((quick || install_only)) || packages+=(librocprim-dev) # rocPRIM: the AMD bench baseline
packages+=(mpich libmpich-dev) # the MPI layer (yamr::mpi) and its tests under mpiexec
packages+=(abigail-tools python3) # (g): abidw and abidiff; the typed declarations' generator
packages+=(ccache) # one compile of each C/C++ source that several steps build alike
packages+=(ninja-build) # the builds' generator: a target's compiles need not wait for the last's
begin_step packages "Debian packages"
if command -v dpkg-query > /dev/null && command -v apt-get > /dev/null; then
  missing=()
  for p in "${packages[@]}"; do
    [[ $(dpkg-query -W -f='${Status}' "$p" 2> /dev/null) == 'install ok installed' ]] \
      || missing+=("$p")
  done
  if ((${#missing[@]})); then
    sudo=()
    if (($(id -u) != 0)); then sudo=(sudo); fi
    echo "installing: ${missing[*]}"
    "${sudo[@]}" apt-get update
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y --no-install-recommends "${missing[@]}"
  else
    echo "all present: ${packages[*]}"
  fi
else
  echo "no dpkg/apt-get here: not installing anything; needs ${packages[*]}"
fi
end_step

if [[ -d /usr/local/cuda/bin ]]; then
  case ":$PATH:" in *:/usr/local/cuda/bin:*) ;; *) PATH=/usr/local/cuda/bin:$PATH ;; esac
  export PATH
fi

# ---- One compiler cache for the whole run ---------------------------------------------------
# Several steps compile the same C and C++ sources with the same flags: the C half of the
# library, the tests, yamr-bench and the examples in (a), (c), (d) and (e)'s copy of the tree
# (under build/, so inside the base folder: ccache sees the same relative paths there), and the
# tests of (b2). ccache (CMake's launcher variables, read at a build folder's first configure)
# compiles each once and copies the object for the others. The cache is build/ccache, this
# checkout's own; hipcc and nvcc compiles do not go through it.
if command -v ccache > /dev/null; then
  export CCACHE_DIR=$root/build/ccache CCACHE_BASEDIR=$root
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
fi

# ---- Job tokens: no more compiles at once than cores, over all steps -------------------------
# The steps run side by side (below): early on up to 7 compiles shared CI's 2 cores, and crowding
# costs CPU time (every step one after another, at -j 2 each: 1672 CPU s in all; side by side:
# 2119). A FIFO holds one token a core; every compile, link and custom command of the steps'
# builds takes one (scripts/with-token.sh, through CMAKE_PROJECT_INCLUDE=
# scripts/test-tokens.cmake), as do clang 19's AMD views; the GPU builds ask for one at a time
# (build_gpu_first). Configures, tests and the checks of the output take none and run beside
# them. 2 cores: 824 s and 1566 CPU s, from 1103 and 2119. Tried: the GPU builds at -j 2, 874 and
# 917 s; tokens for the background builds only, 952 s; those at nice 19, 908 s; the foreground's
# builds first (a lock that background commands wait on), over 1000 s: the AMD step's short
# commands waited behind every foreground build.
tokens=$root/build/logs/tokens
rm -f "$tokens"
mkfifo "$tokens"
exec 9<> "$tokens"
printf "%${jobs}s" '' | tr ' ' t >&9
export YAMR_TEST_TOKENS=$tokens
with_token=$root/scripts/with-token.sh

# ---- MPI ranks that wait without spinning -------------------------------------------------
# The MPI tests run up to 4 ranks on CI's 2 cores. Debian's MPICH (ch4:ucx) busy-polls while a
# rank waits and never yields its core, so each wait spins out a time slice: test_mpi at 3 and 4
# ranks took 83 and 135 CPU seconds, 97% in UCX's polling. .ci/mpi_idle_yield.c, preloaded into
# test_mpi's ranks (MPIEXEC_PREFLAGS) in every build that runs them, sleeps 20 us after 16 empty
# polls: 3 and 5 CPU seconds, same checks, same results. Other MPIs: nothing preloaded.
mpi_idle_yield=""
# Outputs are read whole: under pipefail, `cmd | grep -q` fails when grep leaves before cmd has
# written its last line (cmd dies of SIGPIPE).
if [[ $(mpichversion 2> /dev/null) == *ch4:ucx* && $(mpiexec --version 2> /dev/null) == *HYDRA* ]]
then
  mpi_idle_yield=$root/build/mpi_idle_yield.so
  "${CC:-cc}" -O2 -shared -fPIC .ci/mpi_idle_yield.c -o "$mpi_idle_yield" -ldl
fi
# mpi_preflags <libraries preloaded before it...>: the configure argument for test_mpi's ranks
mpi_preflags() {
  if [[ -n $mpi_idle_yield ]]; then
    local IFS=:
    echo "-DMPIEXEC_PREFLAGS=-genv;LD_PRELOAD;$*${*:+:}$mpi_idle_yield"
  else
    echo "-DMPIEXEC_PREFLAGS="
  fi
}

# configure <folder> <cmake args...>: with Ninja where it is installed (a new folder; one
# configured before keeps its generator). Make builds target after target: a target's sources
# wait for every target it links, and on CI's 2 cores one long compile (topk.hip) then ran alone.
configure() {
  local dir=$1 generator=()
  shift
  if [[ ! -f $dir/CMakeCache.txt ]] && command -v ninja > /dev/null; then generator=(-G Ninja); fi
  cmake -S "$root" -B "$dir" "${generator[@]}" \
    -DCMAKE_PROJECT_INCLUDE="$root/scripts/test-tokens.cmake" "$@"
}
# configure_and_build <folder> <cmake args...>
configure_and_build() {
  configure "$@"
  cmake --build "$1" -j "$jobs"
}

# build_gpu_first <folder> <pattern>: a folder's GPU objects (the Ninja outputs that match the
# pattern: nvcc's, hipcc's), then the rest. They take most of (c)'s and (d)'s time, and (a),
# started beside them, has compiled the C sources by the time they come: ccache hands its
# objects over. Built in the default order, both steps reached cpu_topk.c (11 CPU s), the other
# C sources and the tests while (a) was still compiling them, and compiled them again. One
# command at a time: the job tokens are granted in the order asked for, so a build with two
# waiting takes twice the share, and the two GPU builds (and clang 19's views) with two each
# left the foreground's compiles a third of the grants (the CPU step: 582 s).
build_gpu_first() {
  local dir=$1 pattern=$2 objects=()
  if [[ -f $dir/build.ninja ]]; then
    mapfile -t objects < <(ninja -C "$dir" -t targets all | sed -n 's/: .*//p' | grep -E "$pattern")
    ((${#objects[@]} == 0)) || ninja -C "$dir" -j 1 "${objects[@]}"
  fi
  cmake --build "$dir" -j 1
}

# quick_tests <folder> [ctest arguments...]: the quick tests, or a note when that build has tests
# switched off.
quick_tests() {
  local dir=$1
  shift
  if grep -q '^YAMR_TESTS_BUILT:INTERNAL=ON' "$dir/CMakeCache.txt"; then
    ctest --test-dir "$dir" --output-on-failure --no-tests=error -L quick -j "$jobs" "$@"
  else
    echo "tests are off in $dir (YAMR_BUILD_TESTS resolved to OFF): nothing to run"
  fi
}

# ---- Steps in the background ----------------------------------------------------------------
# start_bg <name> <description> <function>: runs the function in a subshell (errexit on) into
# build/logs/<name>.log; wait_bg prints each log in start order, records its time and fails the
# run when one failed.
start_bg() {
  local name=$1 desc=$2 fn=$3
  (
    set -euo pipefail
    t0=$SECONDS
    cpu_now
    cpu0=$cpu_s
    section "$name: $desc"
    "$fn"
    cpu_now
    echo "$name: done in $((SECONDS - t0))s/cpu$((cpu_s - cpu0))s"
  ) > "$root/build/logs/$name.log" 2>&1 &
  bg_pids+=($!)
  bg_names+=("$name")
  echo "started in the background: $name ($desc), log build/logs/$name.log"
}
wait_bg() {
  local i rc name failed=()
  for i in "${!bg_pids[@]}"; do
    name=${bg_names[$i]}
    rc=0
    wait "${bg_pids[$i]}" || rc=$?
    cat "$root/build/logs/$name.log"
    if ((rc != 0)); then
      failed+=("$name")
      step_results+=("$name:FAILED")
    else
      step_results+=("$name:$(sed -n "s|^$name: done in \([0-9]*s/cpu[0-9]*s\)$|\1|p" "$root/build/logs/$name.log")")
    fi
  done
  bg_pids=()
  bg_names=()
  if ((${#failed[@]})); then
    current_step="${failed[*]}"
    echo "background step(s) failed: ${failed[*]} (logs in build/logs/)" >&2
    return 1
  fi
}

# ---- (f) Build conventions, configure only ------------------------------------------------
# What a cluster user types at the configure step, and the `-- yamr:` line that answers it.
step_conventions() {
  conv=$root/build/conventions
  # expect_configure <ok|fail> <pattern> <cmake args...>: configures a fresh folder; the output
  # must match the pattern (an extended regular expression).
  expect_configure() {
    local want=$1 pattern=$2 out rc=0
    shift 2
    rm -rf "$conv"
    out=$(cmake -S "$root" -B "$conv" "$@" 2>&1) || rc=$?
    local got=ok
    ((rc == 0)) || got=fail
    if [[ $got == "$want" ]] && grep -qE "$pattern" <<< "$(tr -s '[:space:]' ' ' <<< "$out")"; then
      echo "$want as expected: cmake $* -> $(tr -s '[:space:]' ' ' <<< "$out" | grep -oE "$pattern" | head -n 1)"
    else
      echo "$out" >&2
      echo "cmake $*: expected $want with output matching '$pattern' (exit $rc)" >&2
      exit 1
    fi
  }
  expect_configure ok "yamr: tests off: cmocka not found" \
    -DYAMR_PLATFORM=cpu -DCMAKE_DISABLE_FIND_PACKAGE_cmocka=ON
  expect_configure fail "YAMR_BUILD_TESTS=ON needs cmocka" \
    -DYAMR_PLATFORM=cpu -DCMAKE_DISABLE_FIND_PACKAGE_cmocka=ON -DYAMR_BUILD_TESTS=ON
  if command -v nvcc > /dev/null; then
    expect_configure ok "architectures 86 \(from CMAKE_CUDA_ARCHITECTURES\)" \
      -DYAMR_PLATFORM=nvidia -DCMAKE_CUDA_ARCHITECTURES=86
    grep -rqE 'code=\[?[a-z_0-9,]*sm_86' "$conv/CMakeFiles/yamr_objects.dir/flags.make" \
      || { echo "sm_86 is not in the CUDA flags" >&2; exit 1; }
    expect_configure ok "architectures 80;90 \(from YAMR_CUDA_ARCHS\)" \
      -DYAMR_PLATFORM=nvidia -DYAMR_CUDA_ARCHS="80;90"
    # A folder whose cache holds CMake's own default (configured before yamr recorded its choice)
    # gets yamr's default, not that.
    mkdir -p build
    echo 'set(CMAKE_CUDA_ARCHITECTURES 75 CACHE STRING "CUDA architectures")' > build/cmake-default.cmake
    expect_configure ok "architectures 80;90 \(from YAMR_CUDA_ARCHS\)" \
      -C build/cmake-default.cmake -DYAMR_PLATFORM=nvidia -DYAMR_CUDA_ARCHS="80;90"
  else
    echo "nvcc not found: the CUDA architecture checks are left out"
  fi
  if command -v hipcc > /dev/null; then
    expect_configure ok "architectures gfx942 \(from GPU_TARGETS\)" \
      -DYAMR_PLATFORM=amd -DGPU_TARGETS=gfx942
    grep -rq -- '--offload-arch=gfx942' "$conv/CMakeFiles/yamr_objects.dir/build.make" \
      || { echo "gfx942 is not in the hipcc command" >&2; exit 1; }
    expect_configure ok "architectures gfx1100;gfx90a \(from CMAKE_HIP_ARCHITECTURES\)" \
      -DYAMR_PLATFORM=amd -DCMAKE_HIP_ARCHITECTURES="gfx1100;gfx90a"
    expect_configure ok "architectures gfx90a;gfx1030 \(from YAMR_HIP_ARCHS\)" -DYAMR_PLATFORM=amd
    expect_configure fail "CMAKE_HIP_ARCHITECTURES \(gfx1100\) and GPU_TARGETS \(gfx942\) differ" \
      -DYAMR_PLATFORM=amd -DCMAKE_HIP_ARCHITECTURES=gfx1100 -DGPU_TARGETS=gfx942
  else
    echo "hipcc not found: the AMD architecture checks are left out"
  fi
  rm -rf "$conv"
}

# ---- (g) ABI: soname, version file and abidiff against the previous minor's dump -----------
# In the background too: its build (build/abi) and checks need nothing of the other steps, and
# at the end of the run it would be the only job left (37 s).
step_abi() {
  scripts/abi-check.sh
  python3 scripts/typed-decls.py --check
  # LICENSE is MIT; every source file says so in an SPDX line
  local untagged
  untagged=$(git ls-files -- '*.c' '*.h' '*.hip' '*.hpp' '*.cu' '*.f90' '*.fypp' '*.inc' \
               '*.sh' '*.py' '*.cmake' '*.in' 'CMakeLists.txt' '*/CMakeLists.txt' .ci/run \
               2> /dev/null | xargs -r grep -L 'SPDX-License-Identifier: MIT' || true)
  [[ -z $untagged ]] || { echo "no SPDX-License-Identifier line in:" $untagged >&2; exit 1; }
  echo "SPDX-License-Identifier: MIT in every source file"
}

# ---- (c) NVIDIA (in the background) -------------------------------------------------------
# One nvcc process a compile (no --threads): the three architectures of each source side by side
# only crowded the cores (the GPU objects, -j 2 on an idle 2-core machine: 505 CPU s in 274 s
# with --threads=0, 387 CPU s in 243 s without).
step_nvidia() {
  configure build/nvidia -DYAMR_PLATFORM=nvidia "$(mpi_preflags)"
  build_gpu_first build/nvidia '\.(hip|cu)\.o$'
  if command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1; then
    echo "GPU: $(nvidia-smi -L | head -n 1)"
  else
    echo "no NVIDIA GPU here: GPU tests skip, CPU-side tests run"
  fi
  # The CPU backend here is (a)'s C code built alike (yamr_objects), and a CPU context never
  # reaches the GPU code: the tests of it alone (label cpu_backend: topk_cpu, topk_cpu_threads,
  # cpu_threads, cpu_omp1, rows_cpu) ran in (a). The rest run: the API, semantics, Fortran,
  # examples and yamr-bench through this build, policy_table (its GPU registry), library_cost.
  quick_tests build/nvidia -LE cpu_backend
}

# ---- (d) AMD: compile and link only (in the background) -------------------------------------
# Every kernel instance the host can launch on a target must have a body (test/amd/check_isa.py).
# The build gives an RDNA target's wave width to the preprocessor (YAMR_RDNA_WAVE_WIDTH, 32 here),
# so every compiler drops the other width's bodies (--width-given). A device pass compiled
# outside it takes the compiler's word: ROCm >= 7.2 has no __AMDGCN_WAVEFRONT_SIZE
# (test/amd/rocm_7_2_view.h removes it after HIP 5.2's headers), and then on gfx1030 Debian's hipcc
# (clang 15) must refuse to compile, while clang 19 has __builtin_amdgcn_wavefrontsize(), as
# current ROCm compilers do. A wave64-only target (gfx90a) needs neither: the architecture macro
# tells. The library is built once, keeping its assembly (-save-temps=obj): HIP 5.2's view is read
# from there; clang 19's views (gfx1030 in wave32 and wave64, with the build's width; a probe
# kernel, test/amd/width_probe.hip, with the builtin alone, and with a width the device does not
# run, whose instances must trap) compile beside the build.
step_amd() {
  configure build/amd -DYAMR_PLATFORM=amd -DYAMR_HIP_FLAGS=-save-temps=obj
  local isa_flags="-I$root/hip_kernels -I$root/src -I$root/include -I$root/build/amd/include"
  local view="-include $root/test/amd/rocm_7_2_view.h"
  local clang19_pp="/usr/lib/llvm-19/bin/clang++ --rocm-path=/usr" # preprocessing: no token
  clang19_pp+=" --rocm-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"
  local clang19="$with_token $clang19_pp"
  local kernels=("$root"/hip_kernels/*.hip)
  mkdir -p build/amd/isa
  # the views one after the other, one compile at a time, beside the build
  (
    rc=0
    python3 test/amd/check_isa.py --cxx "$clang19" --width-given \
      --flags "$isa_flags $view -DYAMR_RDNA_WAVE_WIDTH=32" \
      --out build/amd/isa/rocm72 --target gfx1030:32 "${kernels[@]}" \
      > build/amd/isa/rocm72.log 2>&1 || rc=1
    python3 test/amd/check_isa.py --cxx "$clang19" --width-given \
      --flags "$isa_flags $view -mwavefrontsize64 -DYAMR_RDNA_WAVE_WIDTH=64" \
      --out build/amd/isa/wave64 --target gfx1030:64 "${kernels[@]}" \
      > build/amd/isa/wave64.log 2>&1 || rc=1
    python3 test/amd/check_isa.py --cxx "$clang19" --flags "$isa_flags $view" \
      --out build/amd/isa/builtin --target gfx1030:32 test/amd/width_probe.hip \
      > build/amd/isa/builtin.log 2>&1 || rc=1
    python3 test/amd/check_isa.py --cxx "$clang19" --width-given --trap-width 64 \
      --flags "$isa_flags $view -mwavefrontsize64 -DYAMR_RDNA_WAVE_WIDTH=32" \
      --out build/amd/isa/mismatch --target gfx1030:32 test/amd/width_probe.hip \
      > build/amd/isa/mismatch.log 2>&1 || rc=1
    exit "$rc"
  ) &
  local views=$!
  # gfx90a runs wave64 only and the architecture tells the width, so the view must change nothing
  # there: each kernel's device source, preprocessed, is the same as with the macro put back (64,
  # as HIP 5.2 defines it). HIP 5.2's gfx90a assembly (the build's) is checked below. (Compiling
  # clang 19's gfx90a view took 83 CPU s; this takes 2.)
  printf '#define __AMDGCN_WAVEFRONT_SIZE 64\n' > build/amd/isa/macro64.h
  local k
  for k in "${kernels[@]}"; do
    # shellcheck disable=SC2086 # clang19_pp, isa_flags and view are lists of words
    $clang19_pp -std=c++17 $isa_flags $view -x hip --cuda-device-only -E -P --offload-arch=gfx90a \
      "$k" -o build/amd/isa/gfx90a-view.ii
    # shellcheck disable=SC2086
    $clang19_pp -std=c++17 $isa_flags $view -include build/amd/isa/macro64.h -x hip \
      --cuda-device-only -E -P --offload-arch=gfx90a "$k" -o build/amd/isa/gfx90a-macro.ii
    cmp -s build/amd/isa/gfx90a-view.ii build/amd/isa/gfx90a-macro.ii || {
      echo "gfx90a: $(basename "$k")'s device source differs without __AMDGCN_WAVEFRONT_SIZE" >&2
      exit 1
    }
  done
  build_gpu_first build/amd '^[^/].*_hip/[^/]*\.o$'
  echo "built for AMD; nothing runs here (no AMD GPU)"
  echo "-- AMD assembly, Debian's hipcc (HIP 5.2, __AMDGCN_WAVEFRONT_SIZE defined): the build's"
  python3 test/amd/check_isa.py --asm-dir build/amd/yamr_objects_hip --width-given \
    --target gfx90a:64 --target gfx1030:32 "${kernels[@]}"
  # refused <message> <hipcc arguments...>: Debian's hipcc for gfx1030 (wave32) must stop, saying
  # the message (preprocessing ends it: -E)
  refused() {
    local message=$1 out
    shift
    # shellcheck disable=SC2086 # isa_flags is a list of words
    if out=$(hipcc -std=c++17 $isa_flags -x hip --cuda-device-only -E --offload-arch=gfx1030 \
               -o /dev/null "$@" hip_kernels/rows_reduce.hip 2>&1); then
      echo "compiled, where yamr_port.h should have said: $message" >&2
      return 1
    fi
    grep -m1 -F "$message" <<< "$out" || { echo "$out" >&2; return 1; }
  }
  echo "-- Debian's hipcc for gfx1030, no __AMDGCN_WAVEFRONT_SIZE nor the build's width: must refuse"
  # shellcheck disable=SC2086 # view is a list of words
  refused "cannot tell this AMD target's wave width" $view
  echo "-- Debian's hipcc for gfx1030 (wave32) told YAMR_RDNA_WAVE_WIDTH=64: must refuse"
  refused "YAMR_RDNA_WAVE_WIDTH is not the compiler's wave width" -DYAMR_RDNA_WAVE_WIDTH=64
  local rc=0
  echo "-- AMD assembly as ROCm >= 7.2 sees it (clang 19, no __AMDGCN_WAVEFRONT_SIZE; build's width)"
  echo "ok   gfx90a: every kernel's device source the same as with __AMDGCN_WAVEFRONT_SIZE 64"
  wait "$views" || rc=1
  cat build/amd/isa/rocm72.log
  echo "-- AMD assembly, gfx1030 in wave64 mode (clang 19, -mwavefrontsize64), the build's width"
  cat build/amd/isa/wave64.log
  echo "-- clang 19, gfx1030, no width from a build: the builtin's (the other width's bodies kept)"
  cat build/amd/isa/builtin.log
  echo "-- clang 19, gfx1030 in wave64 mode told YAMR_RDNA_WAVE_WIDTH=32: the wave64 kernels trap"
  cat build/amd/isa/mismatch.log
  return "$rc"
}

# The background steps start first, the longest (AMD) first: on 2 cores the run takes about
# its total CPU time over 2, and the longest job must not start late.
if ((!quick && !install_only)); then
  start_bg amd "AMD, hipcc, compile and link only (build/amd)" step_amd
  if command -v nvcc > /dev/null; then
    start_bg nvidia "NVIDIA, $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/CUDA \1/p') (build/nvidia)" \
      step_nvidia
  else
    section "nvidia: SKIPPED"
    echo "nvcc is not on PATH and /usr/local/cuda/bin does not exist: the NVIDIA configuration" \
         "(build/nvidia) was not built. Install the CUDA toolkit to include it."
    skip_step nvidia
  fi
fi
if ((!quick)); then
  start_bg conventions "configure only: tests without cmocka, architecture variables" \
    step_conventions
  start_bg abi "ABI, soname and version file (scripts/abi-check.sh); typed declarations" \
    step_abi
fi

# ---- (a) CPU ------------------------------------------------------------------------------
begin_step cpu "CPU backend (build/cpu)"
configure_and_build build/cpu -DYAMR_PLATFORM=cpu -DYAMR_WITH_MPI=ON "$(mpi_preflags)"
quick_tests build/cpu
end_step

# ---- (a2) The MPI layer (yamr::mpi) -------------------------------------------------------
# (a) built it (YAMR_WITH_MPI=ON: no MPI is an error, not a silent skip) and ran its tests:
# test_mpi under mpiexec at 1, 2, 3 and 4 ranks on the CPU backend, each under ctest's TIMEOUT
# (a hung collective fails the test), and the example at 2 ranks. Here: they were all there.
begin_step mpi "MPI layer: its tests ran in (a)"
mpi_tests=$(ctest --test-dir build/cpu -N -L mpi | sed -n 's/^Total Tests: //p')
echo "MPI tests in build/cpu: ${mpi_tests:-0} (test_mpi cpu+gpu at 1-4 ranks, the example)"
((${mpi_tests:-0} >= 9)) || { echo "expected 9 MPI tests in build/cpu" >&2; exit 1; }
end_step

if ((quick)); then
  echo
  echo "test.sh: PASS (--quick) in $((SECONDS - t_start))s: ${step_results[*]}"
  exit 0
fi


if ((!install_only)); then
# ---- (b) CPU with sanitizers --------------------------------------------------------------
begin_step cpu-asan "CPU backend, Debug, ASan + UBSan (build/cpu-asan)"
sanitize="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
# test_mpi's ranks preload ASan's runtime ahead of the idle-yield library (ASan must load first).
# topk_cpu: rows up to 140001 elements, the shortest the CPU splits over 2 threads; with its
# 2^20-element rows (they run in (a)) it took 327 s of this step (at -O0). topk_cpu_threads keeps
# its 2^20 row here: 16 ranges under ASan, 10 CPU s. topk_cpu takes 64 rows of its 400 x 100
# (test/CMakeLists.txt says why): topk_cpu 22 -> 13 CPU s.
# Debug (assertions on) at -O1, as ASan's manual advises: -O0 spent 456 CPU s in the tests,
# -O1 273 (cpu_threads 110 -> 46 s, topk_cpu 69 -> 35); the instrumentation is the same.
asan_runtime=$("${CC:-cc}" -print-file-name=libasan.so)
configure_and_build build/cpu-asan -DYAMR_PLATFORM=cpu -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_FLAGS="$sanitize -O1" -DCMAKE_CXX_FLAGS="$sanitize -O1" \
  -DCMAKE_EXE_LINKER_FLAGS="$sanitize" -DCMAKE_SHARED_LINKER_FLAGS="$sanitize" \
  "$(mpi_preflags "$asan_runtime")" -DYAMR_TEST_TOPK_MAX_N=140001 -DYAMR_TEST_TOPK_MAX_ROWS=64
# MPICH and Open MPI see the machine through hwloc, which loads the plugins of libhwloc-plugins
# where that is installed (Open MPI brings it). Under ASan its PCI plugin takes 20 s a process,
# and LeakSanitizer reports what it leaves, with no frame to suppress (hwloc unloads it first):
# every MPI test fails. A plugin folder of our own, empty, loads none; the tests need none.
mkdir -p "$root/build/cpu-asan/hwloc-plugins-none"
HWLOC_PLUGINS_PATH=$root/build/cpu-asan/hwloc-plugins-none \
  ASAN_OPTIONS=${ASAN_OPTIONS:-strict_string_checks=1:detect_stack_use_after_return=1} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} quick_tests build/cpu-asan
end_step

# ---- (b2, b3) CPU backend threads: without OpenMP, and under ThreadSanitizer ----------------
begin_step cpu-noomp "CPU backend without OpenMP, one thread (build/cpu-noomp)"
configure_and_build build/cpu-noomp -DYAMR_PLATFORM=cpu -DYAMR_WITH_OPENMP=OFF "$(mpi_preflags)"
quick_tests build/cpu-noomp
end_step

# libgomp is not built with TSan, so TSan cannot see its barriers: with GCC every partial result
# read after a parallel region is reported. LLVM's libomp loads its Archer tool under TSan, which
# tells TSan about OpenMP's synchronization; ignore_noninstrumented_modules drops what libomp
# does inside itself (its allocator and locks). A race in yamr's code is still reported (checked
# by adding one). OMP_NUM_THREADS=3 gives odd shares on 2 cores; passive waits keep the extra
# thread from spinning. Without the MPI layer (MPICH, not instrumented, ends the test processes
# with signal 11 in MPI_Finalize under TSan; its tests run in (a) and (b)) and without Fortran
# (gfortran would link GCC's TSan runtime beside clang's).
begin_step cpu-tsan "CPU backend, clang + libomp, ThreadSanitizer (build/cpu-tsan)"
tsan="-fsanitize=thread -g"
CC=clang-14 CXX=clang++-14 configure_and_build build/cpu-tsan -DYAMR_PLATFORM=cpu \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DYAMR_BUILD_BENCH=OFF -DYAMR_BUILD_EXAMPLES=OFF \
  -DYAMR_WITH_MPI=OFF -DYAMR_WITH_FORTRAN=OFF \
  -DCMAKE_C_FLAGS="$tsan" -DCMAKE_CXX_FLAGS="$tsan" \
  -DCMAKE_EXE_LINKER_FLAGS="$tsan" -DCMAKE_SHARED_LINKER_FLAGS="$tsan"
TSAN_OPTIONS=${TSAN_OPTIONS:-ignore_noninstrumented_modules=1:halt_on_error=1} \
  OMP_NUM_THREADS=3 OMP_WAIT_POLICY=passive YAMR_TEST_MAX_N=300000 \
  ctest --test-dir build/cpu-tsan --output-on-failure --no-tests=error -j "$jobs" \
  -R '^(cpu_threads|semantics_cpu|rows_cpu|threads_cpu)$'
end_step

fi # not --install

# ---- (e) The installed package, from the outside ------------------------------------------
# The README's install commands (the indented lines between readme-install markers) run as
# written, so the README and this test cannot drift apart: the platform as YAMR_PLATFORM=auto
# picks it (the CPU on a machine without a GPU, nvcc or not). They run in a copy of the tree
# (its tracked and unignored files) with a scratch $HOME, so they install into
# build/readme/home and touch no folder of this checkout.
begin_step install "README install commands in build/readme; the package from the outside"
readme=$root/build/readme
rm -rf "$readme"
mkdir -p "$readme/src" "$readme/home"
if git -C "$root" rev-parse --git-dir > /dev/null 2>&1; then
  git -C "$root" ls-files -z --cached --others --exclude-standard \
    | (cd "$root" && xargs -0 tar -cf - --no-recursion) | tar -xf - -C "$readme/src"
else # a tree without its .git: everything but the build folders
  tar -C "$root" --exclude='./build*' --exclude='./.deps' -cf - . | tar -xf - -C "$readme/src"
fi
awk '/<!-- readme-install:end/ { on = 0 } on && /^    / { print substr($0, 5) }
     /<!-- readme-install:begin/ { on = 1 }' README.md > "$readme/commands.sh"
echo "README install commands:"
sed 's/^/    /' "$readme/commands.sh"
grep -q 'cmake --install' "$readme/commands.sh" || { echo "no install commands in README.md" >&2; exit 1; }
(
  cd "$readme/src"
  HOME=$readme/home PKG_CONFIG_PATH='' bash -euo pipefail -x "$readme/commands.sh"
)
prefix=$readme/home/opt/yamr
"$prefix/bin/yamr-bench" --help > /dev/null # installed with the library, and it starts
# examples/ found a Fortran compiler, so it built the Fortran example with yamr::fortran too.
"$readme/src/build/example/yamr_example_maxloc" | tail -n 1

# A Fortran program that uses only the module starts with the documented link line alone, also
# where the linker drops libraries a program does not call itself (--as-needed, Ubuntu's
# default): libyamr_fortran finds libyamr beside it (its RUNPATH $ORIGIN).
pc_dir=$prefix/lib/pkgconfig
fortran_flags=$(PKG_CONFIG_PATH=$pc_dir pkg-config --cflags --libs yamr-fortran)
libdir=$(PKG_CONFIG_PATH=$pc_dir pkg-config --variable=libdir yamr)
# shellcheck disable=SC2086 # fortran_flags is a list of compiler flags
gfortran -Wl,--as-needed test/install/module_only.f90 $fortran_flags -Wl,-rpath,"$libdir" \
  -o "$readme/module_only"
"$readme/module_only"
# The same program in a Fortran-only CMake project (no C: yamrConfig.cmake must not need
# OpenMP for C) with yamr::fortran.
cmake -S test/install/fortran_only -B "$readme/fortran_only" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_EXE_LINKER_FLAGS=-Wl,--as-needed > "$readme/fortran_only.log" \
  || { cat "$readme/fortran_only.log"; exit 1; }
cmake --build "$readme/fortran_only" > /dev/null
"$readme/fortran_only/module_only"

# find_package(yamr COMPONENTS ...): a built component gives its target; one that was not
# built fails with a message naming it.
mkdir -p "$readme/components"
cat > "$readme/components/CMakeLists.txt" << 'EOF'
cmake_minimum_required(VERSION 3.25)
project(components C)
find_package(yamr CONFIG REQUIRED COMPONENTS ${COMPONENTS})
foreach(c IN LISTS COMPONENTS)
  if(NOT TARGET yamr::${c})
    message(FATAL_ERROR "find_package(yamr COMPONENTS ${c}) gave no yamr::${c}")
  endif()
endforeach()
EOF
components_check() { # <expected: ok|fail> <components>
  local out rc=0
  rm -rf "$readme/components/build"
  out=$(cmake -S "$readme/components" -B "$readme/components/build" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCOMPONENTS="$2" 2>&1) || rc=$?
  if [[ $1 == ok ]] && ((rc == 0)); then
    echo "find_package(yamr COMPONENTS $2): found"
  elif [[ $1 == fail ]] && ((rc != 0)) \
    && grep -q "built without the component(s) $2" <<< "$(tr -s '[:space:]' ' ' <<< "$out")"; then
    echo "find_package(yamr COMPONENTS $2): fails as it should, saying:"
    grep -A4 'Reason given by package' <<< "$out" | sed 's/^/    /'
  else
    echo "$out" >&2
    echo "find_package(yamr COMPONENTS $2): expected $1" >&2
    exit 1
  fi
}
components_check ok fortran
components_check ok mpi
components_check fail nosuch

# The MPI component from the outside: the example built against find_package(yamr COMPONENTS
# mpi), and the same example built with `pkg-config yamr-mpi`, each run at 2 ranks.
# With OpenMP's defaults (no OMP_NUM_THREADS): the layer shares the node's cores among ranks.
mpi_example=$readme/src/build/example/yamr_example_mpi_argmax
[[ -x $mpi_example ]] || { echo "examples/: yamr::mpi not found in the installed package" >&2; exit 1; }
timeout 120 env -u OMP_NUM_THREADS mpiexec -n 2 "$mpi_example" 1000
timeout 120 env -u OMP_NUM_THREADS mpiexec -n 4 "$mpi_example" 1000000
mpi_pc_dir=$(find "$prefix" -name yamr-mpi.pc -printf '%h\n' | head -n 1)
[[ -n "$mpi_pc_dir" ]] || { echo "yamr-mpi.pc was not installed" >&2; exit 1; }
mpi_flags=$(PKG_CONFIG_PATH=$mpi_pc_dir pkg-config --cflags --libs yamr-mpi)
mpi_libdir=$(PKG_CONFIG_PATH=$mpi_pc_dir pkg-config --variable=libdir yamr-mpi)
# shellcheck disable=SC2086 # mpi_flags is a list of compiler flags
"${CC:-cc}" -std=c99 -Wall -Werror examples/mpi_argmax.c $mpi_flags -Wl,-rpath,"$mpi_libdir" \
  -o "$readme/mpi_argmax"
timeout 120 env -u OMP_NUM_THREADS mpiexec -n 2 "$readme/mpi_argmax" 1000
end_step

wait_bg # (c), (d), (f) and (g)

echo
cpu_now
echo "test.sh: PASS in $((SECONDS - t_start))s, cpu${cpu_s}s in all: ${step_results[*]}"
