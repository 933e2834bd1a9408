#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The GPU machine's work, in three calls that each fit the device tool's 10-minute limit:
#   scripts/gpu.sh check          build from this tree, the whole test suite (GPU, MPI and long
#                                 tests included) and the codegen listings (SASS)
#   scripts/gpu.sh sanitize       compute-sanitizer memcheck, synccheck and racecheck over the GPU
#                                 semantics tests (sizes up to 17000: every grid-wide path,
#                                 the split kernel of each dtype included), the batched tests
#                                 and the top-k tests
#   scripts/gpu.sh measure [N]    the race lab (N trials, default 10000), the sweep against CUB
#                                 for every dtype (and one size above 2^31), the batched shapes
#                                 (inputs rotated, then resident), top-k
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
    echo "$t gpu: $(grep -E 'checks passed|calls checked|SKIPPED \]|PASSED|FAILED|ERROR' "$out/logs/$t-gpu.log" | head -12 | tr '\n' ';')"
  done
  echo "== codegen listings (PTX, SASS)"
  PATH="$PATH:/usr/local/cuda/bin" scripts/codegen.sh "$out/logs/codegen" > "$out/logs/codegen.log" 2>&1
  ls "$out/logs/codegen" | tr '\n' ' '; echo
  echo "check rc=$rc"
elif [ "$mode" = sanitize ]; then
  rc=0 # 1 when a run fails or times out, or its log lacks what a clean run says
  # sanitized NAME SECONDS CLEAN ARG...: compute-sanitizer ARG... under a timeout, its output in
  # logs/NAME.log, which must match CLEAN ('-': anything goes, for the variants that race)
  sanitized() {
    local name=$1 seconds=$2 clean=$3 log="$out/logs/$1.log"
    shift 3
    timeout "$seconds" compute-sanitizer --print-limit 20 "$@" > "$log" 2>&1 || rc=1
    [ "$clean" = - ] || grep -qE "$clean" "$log" || rc=1
    echo "$name (${SECONDS}s): $(grep -E '(ERROR|RACECHECK) SUMMARY' "$log" | tail -1);" \
         "$(grep -E '^\[  (PASSED|FAILED)  \]' "$log" | tr '\n' ' ')"
  }
  no_errors='ERROR SUMMARY: 0 errors' no_hazards='RACECHECK SUMMARY: 0 hazards'
  # 17000 elements reach the split kernel of every dtype (4-byte types split past 2^14)
  echo "== compute-sanitizer (GPU semantics, sizes <= 17000)"
  export YAMR_TEST_MAX_N=17000
  for tool in memcheck synccheck; do
    sanitized sanitizer-$tool 240 "$no_errors" --tool $tool $build/test/test_semantics gpu
  done
  # racecheck: the safe variants must show no hazard. racy_its races on purpose (docs/variants.md,
  # "racecheck"): its run uses small sizes, since every reported hazard slows racecheck down.
  for v in atomic warp_shuffle shared_tree; do
    sanitized racecheck-$v 150 "$no_hazards" --tool racecheck --racecheck-report hazard \
      $build/test/test_semantics gpu $v
  done
  YAMR_TEST_MAX_N=160 sanitized racecheck-racy_its 150 - --tool racecheck \
    --racecheck-report hazard $build/test/test_semantics gpu racy_its
  # the two exhibits (not run by the tests): one race-lab block each, 64 threads, 20 trials
  # (racecheck's time on these varies from machine to machine: the limit leaves room)
  for v in racy racy_volatile; do
    sanitized racecheck-$v 200 - --tool racecheck --racecheck-report hazard \
      $build/bench/yamr-bench race --variants $v --threads 64 --trials 20 --no-sim
  done
  for v in racy_its racy racy_volatile; do # where the hazards are: the shared value's accesses
    grep -oE '(Read|Write) Thread \([0-9, ]+\) at .*' "$out/logs/racecheck-$v.log" \
      | sed 's/Thread ([0-9, ]*)/Thread/' | sort | uniq -c | head -4 | sed "s/^/  $v:/"
  done
  unset YAMR_TEST_MAX_N
  # the batched kernels: memcheck and synccheck over every case (racecheck of test_rows outlasts
  # the call's 10 minutes: not run here)
  for tool in memcheck synccheck; do
    sanitized sanitizer-rows-$tool 150 "$no_errors" --tool $tool $build/test/test_rows gpu
  done
  # top-k: every kernel (the warp, block and split shapes, the merge, rounds of k > a list) on
  # rows up to 70001 elements
  export YAMR_TEST_MAX_N=70001
  for tool in memcheck synccheck; do
    sanitized sanitizer-topk-$tool 200 "$no_errors" --tool $tool $build/test/test_topk gpu
  done
  sanitized racecheck-topk 240 "$no_hazards" --tool racecheck --racecheck-report hazard \
    $build/test/test_topk gpu
  # the merge of many lists (a row split over more than 8 blocks: 140001 elements and more)
  export YAMR_TEST_MIN_N=140001 YAMR_TEST_MAX_N=140001
  for tool in memcheck synccheck; do
    sanitized sanitizer-topk-merge-$tool 120 "$no_errors" --tool $tool $build/test/test_topk gpu
  done
  unset YAMR_TEST_MIN_N YAMR_TEST_MAX_N
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
  echo "== top-k against the rows argmax and torch.topk"
  $build/bench/yamr-bench topk --out "$out/report/topk" > "$out/logs/topk.log" 2>&1
  echo "topk rc=$?"; tail -16 "$out/logs/topk.log"
  grep -E "^(f32|f64|f16|bf16|i32|u32|i64) " "$out/logs/sweep-all.log" | grep -E " (1024|1048576|16777216|268435456) "
fi
tar -C "$out" -czf "$out/$mode.tgz" logs $( [ -d "$out/report" ] && echo report ) && rm -rf "$out/logs" "$out/report"
exit "${rc:-0}" # check: ctest; sanitize: the tools; measure: 0 (its logs say)
