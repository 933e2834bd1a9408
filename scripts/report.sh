#!/usr/bin/env bash
# The main job: builds yamr for whatever this machine has (NVIDIA with nvcc, AMD with hipcc, else
# the CPU backend), prints the device report and runs the race lab (on the GPU when there is one,
# the simulator's predictions otherwise). Results, the merged matrix and plots go to results/.
#   scripts/report.sh [--trials N] [--out DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"

need=()
for pkg in cmake make gcc g++ gnuplot-nox; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ] && command -v apt-get >/dev/null; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

build=build/report
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DYAMR_BUILD_TESTS=OFF -DYAMR_BUILD_EXAMPLES=OFF \
      ${YAMR_CUDA_ARCHS:+-DYAMR_CUDA_ARCHS=$YAMR_CUDA_ARCHS} >/dev/null
cmake --build "$build" -j"$(nproc)" --target yamr-bench
"$build/bench/yamr-bench" report "$@"
