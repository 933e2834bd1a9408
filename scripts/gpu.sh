#!/usr/bin/env bash
# One call on the GPU machine: build from this tree, run the whole test suite, the sanitizers, the
# race lab, and dump the racy kernels' SASS; logs and results go to $OUT (default: gpu-out/).
#   scripts/gpu.sh [--trials N]
# cmocka travels in .deps/root (Debian's libcmocka0 + libcmocka-dev unpacked with dpkg -x).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}; mkdir -p "$out"
trials=10000; [ "${1:-}" = "--trials" ] && trials=$2
export LD_LIBRARY_PATH="$PWD/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
build=build/gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
cmake -S . -B $build -G Ninja -DYAMR_PLATFORM=nvidia -DYAMR_CUDA_ARCHS=${YAMR_CUDA_ARCHS:-90} \
      -DCMAKE_PREFIX_PATH="$PWD/.deps/root/usr" -DYAMR_BUILD_EXAMPLES=OFF \
      ${YAMR_GIT_REV:+-DYAMR_GIT_REV=$YAMR_GIT_REV} > "$out/configure.log" 2>&1 \
  || { tail -30 "$out/configure.log"; exit 1; }
grep "yamr:" "$out/configure.log"
cmake --build $build > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }

echo "== ctest (every test, GPU included)"
(cd $build && ctest --output-on-failure) > "$out/ctest.log" 2>&1; rc_test=$?
grep -E "tests passed|Skipped|Failed|checks passed" "$out/ctest.log"
$build/test/test_semantics gpu > "$out/semantics_gpu.log" 2>&1
grep -E "checks passed|FAILED|ERROR" "$out/semantics_gpu.log" | head -20

echo "== compute-sanitizer on the GPU semantics test"
mkdir -p "$out/logs"
for tool in memcheck synccheck; do
  timeout 240 compute-sanitizer --tool $tool --print-limit 20 $build/test/test_semantics gpu \
    > "$out/logs/sanitizer-$tool.log" 2>&1
  echo "$tool: $(grep -E 'ERROR SUMMARY' "$out/logs/sanitizer-$tool.log" | tail -1);" \
       "$(grep -cE 'checks passed' "$out/logs/sanitizer-$tool.log") variants passed;" \
       "$(grep -E '^ERROR|FAILED' "$out/logs/sanitizer-$tool.log" | head -3 | tr '\n' ' ')"
done
# racecheck per variant: hazards are expected in the racy loops only
for v in atomic warp_shuffle shared_tree racy_its auto; do
  timeout 120 compute-sanitizer --tool racecheck --racecheck-report hazard --print-limit 5 \
    $build/test/test_semantics gpu $v > "$out/logs/racecheck-$v.log" 2>&1
  echo "racecheck $v: $(grep -E 'RACECHECK SUMMARY' "$out/logs/racecheck-$v.log" | tail -1)" \
       "$(grep -E 'checks passed|FAILED' "$out/logs/racecheck-$v.log" | head -2 | tr '\n' ' ')"
done

echo "== SASS of the racy kernels (float32, W32, no probe)"
cuobjdump -sass -fun '_Z20yamr_max_racy_kernelILi32ELb0EEvPKfiP12yamr__resultP15yamr_race_probe' \
  $build/bench/yamr-bench > "$out/logs/sass-racy.txt" 2>&1 || cuobjdump -sass $build/bench/yamr-bench > "$out/logs/sass-all.txt" 2>&1
echo "== race lab ($trials trials)"
$build/bench/yamr-bench report --trials "$trials" --out "$out/race" > "$out/logs/race.log" 2>&1; rc_race=$?
grep -E "^gpu .* random " "$out/logs/race.log" | head -40
mv "$out"/*.log "$out/logs/" 2>/dev/null
tar -C "$out" -czf "$out/logs.tgz" logs race && rm -rf "$out/logs" "$out/race"
echo "tests rc=$rc_test race rc=$rc_race"
