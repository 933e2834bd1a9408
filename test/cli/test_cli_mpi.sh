#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# yamr-bench mpi's --out at 2 ranks: a new folder is made once and gets the table (both ranks
# used to race to make it: the loser stopped before MPI_Init and left the other waiting), and a
# folder that cannot be made ends every rank with the usage status, one message, no wait; so does
# a --device that does not open, leaving no --out folder.
# Run by ctest (bench/CMakeLists.txt):
#     test_cli_mpi.sh <mpiexec> <yamr-bench> <scratch folder>
set -u
mpiexec=$1
bench=$2
scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch" || exit 1
echo "not a folder" > "$scratch/a-file"
export OMP_NUM_THREADS=1
failures=0

# run WANT_RC WANT_STDERR_TEXT ARGS...: yamr-bench mpi at 2 ranks under a timeout
run() {
  local want_rc=$1 want_text=$2
  shift 2
  timeout 120 "$mpiexec" -n 2 "$bench" mpi "$@" > "$scratch/out" 2> "$scratch/err"
  local rc=$? ok=1
  [ $rc -eq "$want_rc" ] || ok=0
  if [ -n "$want_text" ] && [ "$(grep -cF -- "$want_text" "$scratch/err")" -ne 1 ]; then ok=0; fi
  if [ $ok -eq 0 ]; then
    failures=$((failures + 1))
    echo "FAIL: mpiexec -n 2 yamr-bench mpi $*: exit $rc (want $want_rc; 124: a rank" \
         "was left waiting); want '$want_text' once on stderr; it said:"
    sed 's/^/    /' "$scratch/err" | head -5
  else
    echo "ok:   mpiexec -n 2 yamr-bench mpi $* -> $rc"
  fi
}

run 2 "--out /nonexistent/dir/x: cannot create the folder" --device cpu --out /nonexistent/dir/x
run 2 "not a folder" --device cpu --out "$scratch/a-file"
run 2 "--device 999: " --device 999 --out "$scratch/gone"
run 2 "cannot create the folder" --cpu --out /nonexistent/dir/x # --cpu: --device cpu's old name
if [ -e "$scratch/gone" ]; then
  failures=$((failures + 1))
  echo "FAIL: a refused --device left its --out folder $scratch/gone"
fi
run 0 "" --device cpu --reps 2 --warmup 0 --out "$scratch/new"
if [ "$(grep -c "^argmax," "$scratch/new/mpi.csv" 2> /dev/null)" != 2 ]; then
  failures=$((failures + 1))
  echo "FAIL: --out $scratch/new: no mpi.csv with its two argmax rows"
fi
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
