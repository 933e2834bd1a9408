#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Drives yamr-bench through bad command lines and checks each one's exit status, that it wrote
# nothing on stdout and one line on stderr, and what that line says; then --help of every
# subcommand (exit 0, usage on stdout); that a refused or killed run leaves no --out folder and a
# killed one its rows so far; and, on the CPU backend, the ceilings, the spread, the report's
# words and names and the plots' styles. Run by ctest (bench/CMakeLists.txt):
#     test_cli.sh <yamr-bench> <scratch folder>
set -u
bench=$1
scratch=$2
rm -rf "$scratch" && mkdir -p "$scratch" || exit 1
echo "not a folder" > "$scratch/a-file"
printf 'dtype,op,n\nf32,max,1024\n' > "$scratch/sweep-like.csv"
failures=0
cases=0

# expect STATUS 'TEXT ON STDERR' ARGS...: a refusal: nothing on stdout, one line on stderr
expect() {
  local want_rc=$1 want_text=$2
  shift 2
  cases=$((cases + 1))
  "$bench" "$@" > "$scratch/out" 2> "$scratch/err"
  local rc=$? lines
  lines=$(wc -l < "$scratch/err")
  if [ "$rc" -ne "$want_rc" ] || ! grep -qF -- "$want_text" "$scratch/err" ||
     [ -s "$scratch/out" ] || [ "$lines" -ne 1 ]; then
    failures=$((failures + 1))
    echo "FAIL: yamr-bench $*: exit $rc (want $want_rc), $lines stderr line(s), stdout" \
         "$(wc -c < "$scratch/out") bytes; want '$want_text' on stderr; it said:"
    sed 's/^/    /' "$scratch/err" "$scratch/out" | head -5
  else
    echo "ok:   yamr-bench $* -> $rc: $(cat "$scratch/err")"
  fi
}

# numbers: malformed, out of range
expect 2 "--sizes takes a whole number in 0..32, not 'abc'" sweep --sizes abc
expect 2 "--sizes takes a whole number in 0..32, not '10x'" sweep --sizes 10x
expect 2 "--sizes takes a whole number in 0..32, not '-5'" sweep --sizes -5
expect 2 "--sizes takes a whole number in 0..32, not '99'" sweep --sizes 99
expect 2 "--sizes: an empty item in '10,,12'" sweep --sizes 10,,12
expect 2 "--reps takes a whole number in 1..100000, not '-1'" rows --reps -1
expect 2 "--reps takes a whole number in 1..100000, not '0'" sweep --reps 0
expect 2 "--warmup takes a whole number in 0..100000, not '1e3'" sweep --warmup 1e3
expect 2 "--seed takes a whole number" race --seed xyz
expect 2 "--trials takes a whole number in 1..100000000, not '0'" race --trials 0
expect 2 "--trials takes a whole number in 1..100000000, not 'many'" report --trials many
expect 2 "--threads takes a whole number in 1..1024, not '2048'" race --threads 32,2048
# names
expect 2 "--dtypes: unknown name 'f128'" sweep --dtypes f32,f128
expect 2 "--variants: unknown name 'racy'" sweep --variants racy
expect 2 "--variants: unknown name 'fast'" race --variants fast
expect 2 "--orders: unknown name 'all_equal' (one of: random, ascending, descending, all-equal" \
  race --orders all_equal
expect 2 "--ops: unknown name 'sum'" sweep --ops sum
expect 2 "--timing: unknown name 'fast'" rows --timing fast
expect 2 "--inputs: unknown name 'cached'" rows --inputs cached
expect 2 "--inputs: unknown name 'l2'" sweep --inputs l2
# options and operands
expect 2 "unknown option '--bogus'" sweep --bogus
expect 2 "unknown option '--bogus'" rows --bogus
expect 2 "unknown option '--bogus'" race --bogus
expect 2 "unknown option '--bogus'" merge --bogus x.csv
expect 2 "unknown option '--bogus'" report --bogus
expect 2 "option '--sizes' needs a value" sweep --sizes
expect 2 "option '--out' needs a value" report --out
expect 2 "unexpected argument 'extra'" sweep --sizes 10 extra
expect 2 "unexpected argument 'extra'" race extra
expect 2 "unknown command 'frobnicate'" frobnicate
# --out is a folder: its parent must exist; a file is not one
expect 2 "--out /nonexistent/dir/x: cannot create the folder" sweep --out /nonexistent/dir/x
expect 2 "not a folder" race --out "$scratch/a-file"
expect 2 "cannot create the folder" report --out "$scratch/a-file/sub"
expect 2 "cannot create the folder" topk --out "$scratch/a-file/sub"
# topk --shapes: rows:cols:k, k <= cols, whole numbers, nothing empty
expect 2 "--shapes takes rows:cols:k,... (k <= cols, at most 32)" topk --shapes 4:5:6
expect 2 "--shapes takes rows:cols:k,... (k <= cols, at most 32)" topk --shapes 4:5
expect 2 "--shapes takes rows:cols:k,... (k <= cols, at most 32)" topk --shapes 4:5:0
expect 2 "--shapes takes rows:cols:k,... (k <= cols, at most 32)" topk --shapes -4:5:1
expect 2 "--shapes takes rows:cols:k,... (k <= cols, at most 32)" topk --shapes 4:5:1,
expect 2 "--shapes takes rows:cols:k,... (k <= cols, at most 32)" topk --shapes 4:5:1,,2:3:1
# --device: malformed, and an ordinal with no GPU behind it (no GPU here, or not that many)
expect 2 "--device takes a GPU ordinal (0, 1, ...) or 'cpu', not 'abc'" sweep --device abc
expect 2 "--device takes a GPU ordinal (0, 1, ...) or 'cpu', not '-1'" rows --device -1
expect 2 "--device 999: " sweep --device 999 --sizes 10
expect 2 "--device 999: " race --device 999 --trials 10
expect 2 "--device 999: " report --device 999 --out "$scratch/r"
# long options that take no value; a list item or a file given twice
expect 2 "option '--help' takes no value" sweep --help=x
expect 2 "option '--no-sim' takes no value" race --no-sim=1
expect 2 "--sizes: 10 given twice in '10,10'" sweep --sizes 10,10
expect 2 "--dtypes: 'f32' given twice" sweep --dtypes f32,f32
expect 2 "--threads: 32 given twice" race --threads 32,64,32
expect 2 "given twice: its rows would count twice" merge --out "$scratch/md" \
  "$scratch/sweep-like.csv" "$scratch/sweep-like.csv"
expect 2 "are the same file" merge --out "$scratch/md" "$scratch/sweep-like.csv" \
  "$scratch/../$(basename "$scratch")/sweep-like.csv"
# GPU rows asked for on the CPU: a refusal, not the simulator's rows alone
expect 2 "--no-sim needs a GPU (--device cpu given)" race --device cpu --no-sim
expect 2 "--variants needs a GPU (--device cpu given)" race --device cpu --variants atomic
expect 2 "needs a GPU (--device cpu given)" latency --device cpu
# ... and with no GPU at all, the same status and one line (no device report first)
if ! "$bench" race --device 0 --trials 1 --threads 32 --orders random > /dev/null 2>&1; then
  expect 2 "latency: needs a GPU, and none opened" latency --out "$scratch/lat"
  expect 2 "--variants needs a GPU, and none opened" race --variants atomic
  expect 2 "--no-sim needs a GPU, and none opened" race --no-sim --out "$scratch/nosim"
fi
# merge: files that are not race results
expect 2 "no race result file given" merge
expect 2 "is not a race result file" merge --out "$scratch/m" "$scratch/sweep-like.csv"
expect 2 "cannot read $scratch/none.csv" merge --out "$scratch/m" "$scratch/none.csv"
# a refused or failed command leaves no --out folder behind (each is made when its first result
# is written); a truncated race.csv is refused whole
"$bench" race --device cpu --trials 5 --threads 32 --orders random --out "$scratch/good" \
  > /dev/null 2>&1
head -c 700 "$scratch/good/race.csv" > "$scratch/truncated.csv"
expect 2 "fields, a race row 26" merge --out "$scratch/mt" "$scratch/truncated.csv"
expect 2 "--sizes: the CPU backend times sizes up to 2^24 only" \
  sweep --device cpu --sizes 28 --out "$scratch/s28"
expect 2 "--out $scratch/a-file/x: cannot create the folder" rows --out "$scratch/a-file/x"
cases=$((cases + 1))
left=""
for dir in md mt s28 lat nosim r; do [ -e "$scratch/$dir" ] && left="$left $dir"; done
if [ -n "$left" ]; then
  failures=$((failures + 1))
  echo "FAIL: refused commands left --out folders behind:$left"
else
  echo "ok:   refused commands left no --out folder"
fi
# a run killed midway (here by timeout) has printed its rows so far, also into a file (stdout is
# line-buffered), and leaves no --out folder it had not written into
cases=$((cases + 1))
(timeout -s KILL 3 "$bench" race --device cpu --trials 100000000 --threads 1024 \
  --orders random --out "$scratch/killed" > "$scratch/killed.log" 2>&1) 2> /dev/null
if [ -e "$scratch/killed" ] || ! grep -q "^source" "$scratch/killed.log"; then
  failures=$((failures + 1))
  echo "FAIL: race killed by timeout: --out folder left: $([ -e "$scratch/killed" ] && echo yes ||
        echo no); its log holds $(wc -l < "$scratch/killed.log") line(s), want the table's header"
else
  echo "ok:   race killed by timeout left its header in the log and no --out folder"
fi
# the report on the CPU backend: the simulator's names as in race.csv and the plots, no GPU
# words; its sweep's ceilings with yamr's threads, a copy ceiling past the last-level cache
# whatever the size asked, min/median/max per row
cases=$((cases + 1))
"$bench" report --device cpu --trials 20 --sizes 10 --out "$scratch/report" > "$scratch/out" \
  2> "$scratch/err"
rc=$?
log="$scratch/report/report.txt"
copy_mib=$(sed -n 's/^copy ceiling: .* of \([0-9]*\) MiB, [0-9]* thread(s) as yamr.s.*/\1/p' "$log")
if [ $rc -ne 0 ] || ! grep -q " 32 sim_lockstep_random " "$scratch/out" ||
   ! grep -q " 64 sim_its " "$scratch/out" || grep -q "lockstep warps  " "$scratch/out" ||
   ! grep -q "sim_lockstep_random" "$scratch/report/race.csv" ||
   grep -E "1 lanes|multiprocessors|without a GPU backend" "$scratch/out" "$log" ||
   [ -z "$copy_mib" ] || [ "$copy_mib" -lt 64 ] || ! grep -q "min us  median us     max us" "$log" ||
   ! head -1 "$scratch/report/sweep.csv" | grep -q ",max_us,busy,in_cache$"; then
  failures=$((failures + 1))
  echo "FAIL: report --device cpu: exit $rc; want the simulator's rows named as in race.csv," \
       "no GPU words, a copy ceiling of 64 MiB or more (not '$copy_mib') with yamr's threads" \
       "and min/median/max columns; it said:"
  sed 's/^/    /' "$scratch/err" "$scratch/out" | head -30
else
  echo "ok:   report --device cpu: one name per simulator row, no GPU words, copy ceiling over" \
       "$copy_mib MiB with yamr's threads, the spread"
fi
# plots: a colour of its own for every series, W64 dashed (gnuplot's scripts, drawn or not)
cases=$((cases + 1))
gp="$scratch/report/race-wrong.gp"
if [ ! -s "$gp" ] ||
   [ -n "$(awk '/^set terminal/ { n++ } n == 1' "$gp" | grep -o "lc rgb '#[0-9a-f]*'" | sort |
           uniq -d)" ] ||
   ! grep -q "W64 sim_its" "$scratch/report/race-wrong.dat" || ! grep -q "dt 2" "$gp"; then
  failures=$((failures + 1))
  echo "FAIL: $gp: want one colour per series and W64 dashed"
else
  echo "ok:   race plots: a colour per series, W64 dashed"
fi
# mpi takes --device as every command does (in builds with the MPI layer)
if "$bench" mpi --help > "$scratch/out" 2>&1; then
  cases=$((cases + 1))
  if grep -q -- "--device D|cpu" "$scratch/out"; then
    echo "ok:   mpi --help offers --device"
  else
    failures=$((failures + 1))
    echo "FAIL: mpi --help does not offer --device"
  fi
  expect 2 "--device takes a GPU ordinal (0, 1, ...) or 'cpu', not 'abc'" mpi --device abc
fi
# yamr-bench alone: the usage on stderr (more than one line), exit 2
cases=$((cases + 1))
"$bench" > "$scratch/out" 2> "$scratch/err"
rc=$?
if [ $rc -ne 2 ] || [ -s "$scratch/out" ] || ! grep -q "rows" "$scratch/err"; then
  failures=$((failures + 1))
  echo "FAIL: yamr-bench with no command: exit $rc, want 2 and the usage (listing rows) on stderr"
else
  echo "ok:   yamr-bench -> 2 (usage on stderr)"
fi
# --help: exit 0, the usage on stdout, nothing on stderr; the top level lists every command
for cmd in "" report sweep rows latency race merge; do
  cases=$((cases + 1))
  # shellcheck disable=SC2086
  "$bench" $cmd --help > "$scratch/out" 2> "$scratch/err"
  rc=$?
  if [ $rc -ne 0 ] || [ -s "$scratch/err" ] || ! grep -q "usage: yamr-bench ${cmd}" "$scratch/out"
  then
    failures=$((failures + 1))
    echo "FAIL: yamr-bench $cmd --help: exit $rc, want 0 and 'usage: yamr-bench $cmd' on stdout"
  else
    echo "ok:   yamr-bench $cmd --help -> 0"
  fi
done
for cmd in report sweep rows latency mpi race merge; do
  cases=$((cases + 1))
  if ! "$bench" --help | grep -qE "^  $cmd "; then
    failures=$((failures + 1))
    echo "FAIL: yamr-bench --help does not list $cmd"
  fi
done
# a good run writes into the --out folder it creates, and prints no nan for what it did not measure
cases=$((cases + 1))
if "$bench" race --device cpu --trials 20 --threads 32 --orders random --out "$scratch/race" \
     > "$scratch/out" 2>&1 && [ -s "$scratch/race/race.csv" ] &&
   "$bench" merge --out "$scratch/race" "$scratch/race/race.csv" >> "$scratch/out" 2>&1 &&
   [ -s "$scratch/race/race-matrix.md" ] && ! grep -v "nan policy" "$scratch/out" | grep -qw nan
then
  echo "ok:   race --out DIR and merge write under DIR"
else
  failures=$((failures + 1))
  echo "FAIL: race --out DIR / merge: see below"
  tail -5 "$scratch/out"
fi
echo "$((cases - failures)) of $cases cases passed"
[ "$failures" -eq 0 ]
