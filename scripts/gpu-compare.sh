#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Earlier trees against this one on the GPU machine, in one call: each tree built there, then the
# grid-wide sweep (queued timing) in rounds that take turns between the trees, `yamr-bench
# latency` and `yamr-bench rows` of each, and the comparison (bench/compare_sweeps.py).
#
#     git archive --prefix=.trees/cf8d5c6/ cf8d5c6 | tar -x    # once per earlier tree, here
#     run: scripts/gpu-compare.sh cf8d5c6 [more...]     carry: .trees .deps
#
# .trees/ (git-ignored) holds the earlier trees by name; .deps/root holds cmocka, which the
# current tree's test configure needs (see scripts/gpu.sh). Environment: ROUNDS (default 3),
# DTYPES (default f32,f64,f16,bf16,i32,u32,i64), SIZES (default 10,12,...,28), OPS (default
# max,argmax,minmax), REPS (default 30), ROWS=0 to skip `yamr-bench rows`, TESTS=1 to run
# test_semantics gpu of the current tree first, VARIANTS=v,... to time the current tree with
# those variants set too (each against the earlier trees' AUTO). Results go to $OUT (default
# gpu-out/).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out"
rounds=${ROUNDS:-3}
VARIANTS=${VARIANTS:-}
dtypes=${DTYPES:-f32,f64,f16,bf16,i32,u32,i64}
sizes=${SIZES:-10,12,14,16,18,20,22,24,26,28}
ops=${OPS:-max,argmax,minmax}
reps=${REPS:-30}
export LD_LIBRARY_PATH="$PWD/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

names=("$@" new)
src() { [[ $1 == new ]] && echo . || echo ".trees/$1"; }
for t in "${names[@]}"; do # the builds, side by side
  s=$(src "$t")
  [[ -f $s/CMakeLists.txt ]] || { echo "no tree $s (see the header)" >&2; exit 1; }
  ( cmake -S "$s" -B "$s/build/cmp" -G Ninja -DYAMR_PLATFORM=nvidia -DYAMR_CUDA_ARCHS=90 \
      -DCMAKE_PREFIX_PATH="$PWD/.deps/root/usr" -DYAMR_GIT_REV="$t" &&
    cmake --build "$s/build/cmp" ) > "$out/build-$t.log" 2>&1 &
done
wait
for t in "${names[@]}"; do
  [[ -x $(src "$t")/build/cmp/bench/yamr-bench ]] || { tail -20 "$out/build-$t.log"; exit 1; }
done
echo "built: ${names[*]}"
if [[ ${TESTS:-0} == 1 ]]; then
  timeout 300 build/cmp/test/test_semantics gpu > "$out/test_semantics.log" 2>&1
  echo "test_semantics gpu: rc $? $(grep -cE 'checks passed' "$out/test_semantics.log") passed;" \
       "$(grep -E 'FAILED|ERROR' "$out/test_semantics.log" | head -3 | tr '\n' ' ')"
fi

for ((r = 1; r <= rounds; ++r)); do
  for t in "${names[@]}"; do
    mkdir -p "$out/sweep-$t"
    "$(src "$t")/build/cmp/bench/yamr-bench" sweep --dtypes "$dtypes" --ops "$ops" \
      --sizes "$sizes" --reps "$reps" --timing queued --out "$out/sweep-$t/round$r" \
      > "$out/sweep-$t-round$r.log" 2>&1 || { tail -5 "$out/sweep-$t-round$r.log"; exit 1; }
  done
  for v in ${VARIANTS//,/ }; do
    mkdir -p "$out/sweep-new-$v"
    build/cmp/bench/yamr-bench sweep --dtypes "$dtypes" --ops "$ops" --sizes "$sizes" \
      --reps "$reps" --timing queued --variants "$v" --out "$out/sweep-new-$v/round$r" \
      > "$out/sweep-new-$v-round$r.log" 2>&1 || { tail -5 "$out/sweep-new-$v-round$r.log"; exit 1; }
  done
done
for t in "${names[@]}"; do
  mkdir -p "$out/latency-$t"
  "$(src "$t")/build/cmp/bench/yamr-bench" latency --reps 3000 --out "$out/latency-$t" \
    > "$out/latency-$t.log" 2>&1
  echo "latency $t:"; grep -vE "^(#|$)" "$out/latency-$t.log" | tail -9
done
if [[ ${ROWS:-1} != 0 ]]; then
  for inputs in rotated resident; do
    for t in "${names[@]}"; do
      mkdir -p "$out/rows-$inputs-$t"
      "$(src "$t")/build/cmp/bench/yamr-bench" rows --inputs "$inputs" --timing queued \
        --out "$out/rows-$inputs-$t" > "$out/rows-$inputs-$t.log" 2>&1
    done
  done
fi
for t in "$@"; do
  python3 bench/compare_sweeps.py "$out/sweep-$t" "$out/sweep-new" > "$out/compare-$t.txt"
  echo "== new against $t: $(tail -1 "$out/compare-$t.txt")"
  grep -E '^f32 +(max|argmax) +2\^(10|16|20|22|24) ' "$out/compare-$t.txt"
  for v in ${VARIANTS//,/ }; do
    python3 bench/compare_sweeps.py "$out/sweep-$t" "$out/sweep-new-$v" --new-impl "$v" \
      > "$out/compare-$t-$v.txt"
    echo "== new with $v against $t: $(tail -1 "$out/compare-$t-$v.txt")"
  done
done
