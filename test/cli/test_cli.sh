#!/usr/bin/env bash
# Drives yamr-bench through bad command lines and checks each one's exit status, that it wrote
# nothing on stdout and one line on stderr, and what that line says; then --help of every
# subcommand (exit 0, usage on stdout). Run by ctest (test/CMakeLists.txt):
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
# --device: malformed, and an ordinal with no GPU behind it (no GPU here, or not that many)
expect 2 "--device takes a GPU ordinal (0, 1, ...) or 'cpu', not 'abc'" sweep --device abc
expect 2 "--device takes a GPU ordinal (0, 1, ...) or 'cpu', not '-1'" rows --device -1
expect 2 "--device 999: " sweep --device 999 --sizes 10
expect 2 "--device 999: " race --device 999 --trials 10
expect 2 "--device 999: " report --device 999 --out "$scratch/r"
# merge: files that are not race results
expect 2 "no race result file given" merge
expect 2 "is not a race result file" merge --out "$scratch/m" "$scratch/sweep-like.csv"
expect 2 "cannot read $scratch/none.csv" merge --out "$scratch/m" "$scratch/none.csv"
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
for cmd in "" report sweep rows race merge; do
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
for cmd in report sweep rows race merge; do
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
