#!/usr/bin/env bash
# The GPU machine's work, in three calls that each fit the device tool's 10-minute limit:
#   scripts/gpu.sh check          build from this tree, the whole test suite (GPU, MPI and long
#                                 tests included) and the codegen listings (SASS)
#   scripts/gpu.sh sanitize       compute-sanitizer memcheck, synccheck and racecheck over the GPU
#                                 semantics tests (sizes up to 17000: every grid-wide path,
#                                 the split kernel of each dtype included) and the batched tests
#   scripts/gpu.sh measure [N]    the race lab (N trials, default 10000), the sweep against CUB
#                                 for every dtype (and one size above 2^31), the batched shapes
#                                 (inputs rotated, then resident)
# Logs and results go to $OUT (default: gpu-out/), packed as one archive per call.
# cmocka travels in .deps/root (Debian's libcmocka0 + libcmocka-dev unpacked with dpkg -x).
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-check}
case "$mode" in
  check | sanitize | measure) ;;
  *) echo "gpu.sh: unknown mode '$mode' (check, sanitize or measure)" >&2; exit 2 ;;
esac
out=${OUT:-gpu-out}; mkdir -p "$out/logs"
export LD_LIBRARY_PATH="$PWD/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
build=build/gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
if [ ! -x $build/bench/yamr-bench ]; then
  cmake -S . -B $build -G Ninja -DYAMR_PLATFORM=nvidia -DYAMR_CUDA_ARCHS=${YAMR_CUDA_ARCHS:-90} \
        -DCMAKE_PREFIX_PATH="$PWD/.deps/root/usr" ${YAMR_GIT_REV:+-DYAMR_GIT_REV=$YAMR_GIT_REV} \
        > "$out/logs/configure.log" 2>&1 || { tail -30 "$out/logs/configure.log"; exit 1; }
  grep "yamr:" "$out/logs/configure.log"
  cmake --build $build > "$out/logs/build.log" 2>&1 || { tail -30 "$out/logs/build.log"; exit 1; }
fi

if [ "$mode" = check ]; then
  echo "== ctest (every test, GPU and long ones included)"
  (cd $build && ctest --output-on-failure) > "$out/logs/ctest.log" 2>&1; rc=$?
  grep -E "tests passed|Skipped|Failed|Passed|\*\*\*" "$out/logs/ctest.log"
  for t in test_semantics test_rows; do
    [ -x $build/test/$t ] || continue
    $build/test/$t gpu > "$out/logs/$t-gpu.log" 2>&1
    echo "$t gpu: $(grep -E 'checks passed|SKIPPED \]|ERROR' "$out/logs/$t-gpu.log" | head -12 | tr '\n' ';')"
  done
  echo "== codegen listings (PTX, SASS)"
  PATH="$PATH:/usr/local/cuda/bin" scripts/codegen.sh "$out/logs/codegen" > "$out/logs/codegen.log" 2>&1
  ls "$out/logs/codegen" | tr '\n' ' '; echo
  echo "check rc=$rc"
elif [ "$mode" = sanitize ]; then
  # 17000 elements reach the split kernel of every dtype (4-byte types split past 2^14)
  echo "== compute-sanitizer (GPU semantics, sizes <= 17000)"
  export YAMR_TEST_MAX_N=17000
  rc=0 # 1 when a tool reports an error, or a hazard in a variant that must have none
  for tool in memcheck synccheck; do
    timeout 240 compute-sanitizer --tool $tool --print-limit 20 $build/test/test_semantics gpu \
      > "$out/logs/sanitizer-$tool.log" 2>&1 || rc=1
    grep -q 'ERROR SUMMARY: 0 errors' "$out/logs/sanitizer-$tool.log" || rc=1
    echo "$tool (${SECONDS}s): $(grep -E 'ERROR SUMMARY' "$out/logs/sanitizer-$tool.log" | tail -1);" \
         "$(grep -cE 'checks passed' "$out/logs/sanitizer-$tool.log") variants passed;" \
         "$(grep -E '^ERROR|FAILED' "$out/logs/sanitizer-$tool.log" | head -3 | tr '\n' ' ')"
  done
  # racecheck: the safe variants must show no hazard. racy_its races on purpose (docs/variants.md,
  # "racecheck"): its run uses small sizes, since every reported hazard slows racecheck down.
  for v in atomic warp_shuffle shared_tree racy_its; do
    [ $v = racy_its ] && export YAMR_TEST_MAX_N=160
    timeout 150 compute-sanitizer --tool racecheck --racecheck-report hazard --print-limit 3 \
      $build/test/test_semantics gpu $v > "$out/logs/racecheck-$v.log" 2>&1 || rc=1
    [ $v = racy_its ] || grep -q 'RACECHECK SUMMARY: 0 hazards' "$out/logs/racecheck-$v.log" || rc=1
    echo "racecheck $v (${SECONDS}s): $(grep -E 'RACECHECK SUMMARY' "$out/logs/racecheck-$v.log" | tail -1)" \
         "$(grep -E 'checks passed|FAILED' "$out/logs/racecheck-$v.log" | head -2 | tr '\n' ' ')"
  done
  # the two exhibits (not run by the tests): one race-lab block each, 64 threads, 20 trials
  for v in racy racy_volatile; do
    timeout 100 compute-sanitizer --tool racecheck --racecheck-report hazard --print-limit 3 \
      $build/bench/yamr-bench race --variants $v --threads 64 --trials 20 --no-sim \
      > "$out/logs/racecheck-$v.log" 2>&1
    echo "racecheck $v: $(grep -E 'RACECHECK SUMMARY' "$out/logs/racecheck-$v.log" | tail -1)"
  done
  for v in racy_its racy racy_volatile; do # where the hazards are: the shared value's accesses
    grep -oE '(Read|Write) Thread \([0-9, ]+\) at .*' "$out/logs/racecheck-$v.log" \
      | sed 's/Thread ([0-9, ]*)/Thread/' | sort | uniq -c | head -4 | sed "s/^/  $v:/"
  done
  unset YAMR_TEST_MAX_N
  # the batched kernels: memcheck and synccheck over every case (racecheck of test_rows outlasts
  # the call's 10 minutes: not run here)
  for tool in memcheck synccheck; do
    timeout 150 compute-sanitizer --tool $tool --print-limit 20 $build/test/test_rows gpu \
      > "$out/logs/sanitizer-rows-$tool.log" 2>&1 || rc=1
    grep -q 'ERROR SUMMARY: 0 errors' "$out/logs/sanitizer-rows-$tool.log" || rc=1
    echo "rows $tool (${SECONDS}s): $(grep -E 'ERROR SUMMARY' "$out/logs/sanitizer-rows-$tool.log" | tail -1)" \
         "$(grep -E 'PASSED|FAILED' "$out/logs/sanitizer-rows-$tool.log" | head -2 | tr '\n' ' ')"
  done
  echo "sanitize rc=$rc"
else
  trials=${2:-10000}
  echo "== race lab ($trials trials)"
  $build/bench/yamr-bench report --trials "$trials" --out "$out/report" > "$out/logs/report.log" 2>&1
  echo "report rc=$?"
  sed -n '/^device:/,/^details in/p' "$out/logs/report.log" # the summary
  grep -E "^gpu .* random " "$out/report/report.txt" | head -30
  echo "== sweep, every dtype"
  $build/bench/yamr-bench sweep --dtypes f32,f64,f16,bf16,i32,u32,i64 --out "$out/report/sweep-all" \
    > "$out/logs/sweep-all.log" 2>&1; echo "sweep rc=$?"
  $build/bench/yamr-bench sweep --dtypes f32 --sizes 32 --ops max,argmax --reps 20 \
    --out "$out/report/sweep-big" > "$out/logs/sweep-big.log" 2>&1; echo "sweep big rc=$?"
  grep -E "^(f32|copy)" "$out/logs/sweep-big.log"
  if $build/bench/yamr-bench rows --help > /dev/null 2>&1; then
    $build/bench/yamr-bench rows > "$out/logs/rows.log" 2>&1; echo "rows rc=$?"
    tail -20 "$out/logs/rows.log"
    $build/bench/yamr-bench rows --inputs resident > "$out/logs/rows-resident.log" 2>&1
    echo "rows, resident inputs rc=$?"; tail -20 "$out/logs/rows-resident.log"
    [ -f bench/rows_torch.py ] && python3 bench/rows_torch.py > "$out/logs/rows-torch.log" 2>&1 && tail -12 "$out/logs/rows-torch.log"
  fi
  grep -E "^(f32|f64|f16|bf16|i32|u32|i64) " "$out/logs/sweep-all.log" | grep -E " (1024|1048576|16777216|268435456) "
fi
tar -C "$out" -czf "$out/$mode.tgz" logs $( [ -d "$out/report" ] && echo report ) && rm -rf "$out/logs" "$out/report"
exit "${rc:-0}" # check: ctest; sanitize: the tools; measure: 0 (its logs say)
