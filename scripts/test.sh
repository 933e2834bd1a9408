#!/usr/bin/env bash
# The test command: builds yamr in every configuration this machine can build, runs the quick
# tests, and checks the installed package from the outside. CI runs it on a fresh Debian 12
# machine without a GPU; it installs the Debian packages it needs when they are missing.
#
#     scripts/test.sh [--quick]
#
#   (a) build/cpu        CPU backend, ctest -L quick (with the MPI layer's tests at 1-4 ranks)
#   (b) build/cpu-asan   CPU backend, Debug, AddressSanitizer + UBSan, ctest -L quick
#   (c) build/nvidia     nvcc, default architectures, ctest -L quick (GPU tests skip without a
#                        GPU); skipped, with the reason, when nvcc is not found
#   (d) build/amd        hipcc: library, tests and examples compile and link (nothing runs)
#   (e) build/install    install of (a); examples/ built against it with find_package(yamr),
#                        and a C program built with `pkg-config --cflags --libs yamr`; the MPI
#                        example against both, at 2 ranks
#
# --quick runs (a) only. Build folders are reused, so a second run only rebuilds what changed.
set -euo pipefail

usage() { sed -n '2,17s/^# \{0,1\}//p' "$0"; }

quick=0
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "test.sh: unknown argument '$arg'" >&2; usage >&2; exit 2 ;;
  esac
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
jobs=$(nproc)
t_start=$SECONDS
step_results=() # "name:seconds" or "name:skipped", in order
current_step=""
step_t0=0

section() { printf '\n=== %s ===\n' "$*"; }
begin_step() {
  current_step=$1
  step_t0=$SECONDS
  section "$1: $2"
}
end_step() { step_results+=("$current_step:$((SECONDS - step_t0))s"); current_step=""; }
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
packages=(cmake make gcc g++ libcmocka-dev pkg-config)
packages+=(mpich libmpich-dev) # the MPI layer (yamr::mpi) and its tests under mpiexec
((quick)) || packages+=(hipcc libamdhip64-dev rocm-device-libs)
begin_step packages "Debian packages"
if command -v dpkg-query > /dev/null && command -v apt-get > /dev/null; then
  missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q 'install ok installed' \
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

# configure_and_build <folder> <cmake args...>
configure_and_build() {
  local dir=$1
  shift
  cmake -S "$root" -B "$dir" "$@"
  cmake --build "$dir" -j "$jobs"
}

# quick_tests <folder>: the quick tests, or a note when that build has tests switched off.
quick_tests() {
  local dir=$1
  if grep -q '^YAMR_BUILD_TESTS:BOOL=ON' "$dir/CMakeCache.txt"; then
    ctest --test-dir "$dir" --output-on-failure --no-tests=error -L quick -j "$jobs"
  else
    echo "tests are off in $dir (YAMR_BUILD_TESTS=OFF): nothing to run"
  fi
}

# ---- (a) CPU ------------------------------------------------------------------------------
begin_step cpu "CPU backend (build/cpu)"
configure_and_build build/cpu -DYAMR_PLATFORM=cpu -DCMAKE_INSTALL_PREFIX="$root/build/install" \
  -DYAMR_WITH_MPI=ON
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

# ---- (b) CPU with sanitizers --------------------------------------------------------------
begin_step cpu-asan "CPU backend, Debug, ASan + UBSan (build/cpu-asan)"
sanitize="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
configure_and_build build/cpu-asan -DYAMR_PLATFORM=cpu -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_FLAGS="$sanitize" -DCMAKE_CXX_FLAGS="$sanitize" \
  -DCMAKE_EXE_LINKER_FLAGS="$sanitize" -DCMAKE_SHARED_LINKER_FLAGS="$sanitize"
ASAN_OPTIONS=${ASAN_OPTIONS:-strict_string_checks=1:detect_stack_use_after_return=1} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} quick_tests build/cpu-asan
end_step

# ---- (c) NVIDIA ---------------------------------------------------------------------------
if command -v nvcc > /dev/null; then
  begin_step nvidia "NVIDIA, $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/CUDA \1/p') (build/nvidia)"
  configure_and_build build/nvidia -DYAMR_PLATFORM=nvidia
  if command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1; then
    echo "GPU: $(nvidia-smi -L | head -n 1)"
  else
    echo "no NVIDIA GPU here: GPU tests skip, CPU-side tests run"
  fi
  quick_tests build/nvidia
  end_step
else
  section "nvidia: SKIPPED"
  echo "nvcc is not on PATH and /usr/local/cuda/bin does not exist: the NVIDIA configuration" \
       "(build/nvidia) was not built. Install the CUDA toolkit to include it."
  skip_step nvidia
fi

# ---- (d) AMD: compile and link only -------------------------------------------------------
begin_step amd "AMD, hipcc, compile and link only (build/amd)"
configure_and_build build/amd -DYAMR_PLATFORM=amd
echo "built for AMD; nothing runs here (no AMD GPU)"
end_step

# ---- (e) The installed package, from the outside ------------------------------------------
begin_step install "install build/cpu to build/install; examples/ and pkg-config against it"
rm -rf build/install
cmake --install build/cpu --prefix "$root/build/install"
cmake -S examples -B build/example -DCMAKE_PREFIX_PATH="$root/build/install"
cmake --build build/example -j "$jobs"
./build/example/yamr_example_embed

pc_dir=$(find "$root/build/install" -name yamr.pc -printf '%h\n' | head -n 1)
[[ -n "$pc_dir" ]] || { echo "yamr.pc was not installed" >&2; exit 1; }
export PKG_CONFIG_PATH="$pc_dir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
pc_flags=$(pkg-config --cflags --libs yamr)
pc_libdir=$(pkg-config --variable=libdir yamr)
echo "pkg-config --cflags --libs yamr: $pc_flags"
mkdir -p build/pkgconfig-check
cat > build/pkgconfig-check/check.c << 'EOF'
#include <stdio.h>
#include <yamr.h>

int main(void)
{
    static const float in[] = {-2.0f, 7.5f, -9.0f, 7.5f, 0.0f};
    yamr_context *ctx = NULL;
    float max = 0.0f;
    int64_t index = -1;
    if (yamr_create(&ctx, YAMR_DEVICE_CPU) != YAMR_SUCCESS) return 1;
    yamr_status s = yamr_argmax_f32(ctx, in, sizeof in / sizeof in[0], &max, &index);
    yamr_destroy(ctx);
    printf("yamr %s via pkg-config: argmax %g at %lld (%s)\n", YAMR_VERSION_STRING, max,
           (long long)index, yamr_status_string(s));
    return s == YAMR_SUCCESS && max == 7.5f && index == 1 ? 0 : 1;
}
EOF
# shellcheck disable=SC2086 # pc_flags is a list of compiler flags
"${CC:-cc}" -std=c99 -Wall -Werror build/pkgconfig-check/check.c $pc_flags -Wl,-rpath,"$pc_libdir" \
  -o build/pkgconfig-check/check
./build/pkgconfig-check/check

# The MPI component: the example built above against find_package(yamr COMPONENTS mpi), and
# the same example built with `pkg-config yamr-mpi`, each run at 2 ranks under a timeout.
[[ -x build/example/yamr_example_mpi_argmax ]] \
  || { echo "examples/: yamr::mpi not found in the installed package" >&2; exit 1; }
timeout 120 mpiexec -n 2 ./build/example/yamr_example_mpi_argmax 1000
# shellcheck disable=SC2046 # a list of compiler flags
"${CC:-cc}" -std=c99 -Wall -Werror examples/mpi_argmax.c $(pkg-config --cflags --libs yamr-mpi) \
  -Wl,-rpath,"$pc_libdir" -o build/pkgconfig-check/mpi_argmax
timeout 120 mpiexec -n 2 ./build/pkgconfig-check/mpi_argmax 1000
end_step

echo
echo "test.sh: PASS in $((SECONDS - t_start))s: ${step_results[*]}"
