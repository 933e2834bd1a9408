#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job: builds yamr for what this machine can run, then runs `yamr-bench report`: the
# race lab and the sweep on the GPU, or on the CPU backend and the race simulator when there is
# no GPU. Prints a summary; every table, the results (CSV, JSON, BabelStream CSV) and the plots
# go to results/ (or --out DIR).
#
#     scripts/report.sh [--trials N] [--out DIR] [--device D|cpu]    (yamr-bench report --help)
#
# What it builds: what YAMR_PLATFORM=auto builds (cmake/YamrDetectPlatform.cmake): NVIDIA when
# `nvidia-smi -L` lists a GPU, /dev/nvidia0 exists and nvcc is found; AMD when /dev/kfd exists,
# rocminfo lists a gfx agent and hipcc is found; else the CPU backend (a GPU compiler alone is
# not a GPU). YAMR_REPORT_PLATFORM=nvidia|amd|cpu overrides the choice.
# Build logs: build/report-<platform>/build.log.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"
for arg in "$@"; do
  case "$arg" in -h | --help) sed -n '2,13s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
done

# ---- Tools: one line. What is missing comes from apt when there is one; gnuplot only draws
# the plots, so the job goes on without it. ----
tools=(cmake make gcc g++ gnuplot)
packages=(cmake make gcc g++ gnuplot-nox)
if command -v ninja > /dev/null; then tools[1]=ninja; packages[1]=ninja-build; fi
missing=()
for i in "${!tools[@]}"; do
  command -v "${tools[$i]}" > /dev/null || missing+=("${packages[$i]}")
done
if ((${#missing[@]} == 0)); then
  echo "tools: present (${tools[*]})"
elif command -v apt-get > /dev/null; then
  sudo=()
  (($(id -u) == 0)) || sudo=(sudo)
  printf 'tools: installing %s ... ' "${missing[*]}"
  if "${sudo[@]}" apt-get update -qq > /tmp/yamr-report-apt.log 2>&1 &&
     "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
       --no-install-recommends "${missing[@]}" >> /tmp/yamr-report-apt.log 2>&1; then
    echo "done"
  else
    echo "failed (log: /tmp/yamr-report-apt.log); going on with what there is"
  fi
else
  echo "tools: ${missing[*]} missing and no apt-get here; going on with what there is"
fi

# ---- What this machine can run: one line ----
# The rule of YAMR_PLATFORM=auto (cmake/YamrDetectPlatform.cmake), so that this job builds what
# the README's install lines build.
platform=${YAMR_REPORT_PLATFORM:-}
if [ -z "$platform" ]; then
  IFS='|' read -r platform why < <(cmake -P cmake/YamrDetectPlatform.cmake)
else
  why="YAMR_REPORT_PLATFORM=$platform"
fi
case "$platform" in
  nvidia) what="the NVIDIA backend" ;;
  amd) what="the AMD backend" ;;
  cpu) what="the CPU backend" ;;
  *) echo "report.sh: YAMR_REPORT_PLATFORM is nvidia, amd or cpu, not '$platform'" >&2; exit 2 ;;
esac

# ---- Build: one line ----
build=build/report-$platform
mkdir -p "$build"
t0=$SECONDS
printf 'build: %s in %s (%s) ... ' "$what" "$build" "$why"
generator=()
if command -v ninja > /dev/null && [ ! -f "$build/CMakeCache.txt" ]; then generator=(-G Ninja); fi
if cmake -S . -B "$build" "${generator[@]}" -DYAMR_PLATFORM="$platform" -DCMAKE_BUILD_TYPE=Release \
     -DYAMR_BUILD_TESTS=OFF -DYAMR_BUILD_EXAMPLES=OFF \
     ${YAMR_CUDA_ARCHS:+-DYAMR_CUDA_ARCHS=$YAMR_CUDA_ARCHS} > "$build/build.log" 2>&1 &&
   cmake --build "$build" -j"$(nproc)" --target yamr-bench >> "$build/build.log" 2>&1; then
  echo "$((SECONDS - t0)) s"
else
  echo "FAILED after $((SECONDS - t0)) s; the end of $build/build.log:"
  tail -20 "$build/build.log"
  exit 1
fi
echo
exec "$build/bench/yamr-bench" report "$@"
