#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CPU backend beside its baselines, in one run, as one table: yamr on one thread and on all
# cores, numpy (bench/cpu_numpy.py, /usr/bin/python3: Debian's python3-numpy), a plain
# first-index argmax loop in C (-O3), and the read ceiling (every thread summing the same bytes
# as 64-bit words), for every dtype at N elements and for the batched shapes of yamr-bench rows.
#
#     bench/cpu_baselines.sh [--build DIR] [--n N] [--reps R] [--rounds K] [--quick]
#
# DIR: a CPU build with benchmarks (default build/cpu; build it with
# `cmake -S . -B build/cpu -DYAMR_PLATFORM=cpu && cmake --build build/cpu -j2`). N: elements of
# the grid-wide cases (default 2^26). R: timed runs, the best kept (default 9). --quick: small
# sizes, to check that everything runs. K: the three runs (one thread, all cores, numpy) are made
# K times in turn (default 3) and each number is the best over all of them, so that a moment when
# another process held a core counts against no one. Times are in ms, GB/s counts the bytes read
# once.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$root/build/cpu
args=()
rounds=3
while (($#)); do
  case "$1" in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --n | --reps) args+=("$1" "$2"); shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --quick) args+=("$1"); shift ;;
    -h | --help) sed -n '2,16s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "cpu_baselines.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
bin=$build/bench/yamr-cpu-baselines
[[ -x $bin ]] || { echo "cpu_baselines.sh: $bin not built" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cores=$(nproc)
echo "# $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $cores cores;" \
     "load average $(cut -d' ' -f1-3 /proc/loadavg); yamr $(git -C "$root" rev-parse --short HEAD)"
for ((k = 0; k < rounds; ++k)); do
  OMP_NUM_THREADS=1 "$bin" "${args[@]}" > "$tmp/one-$k.tsv"
  OMP_NUM_THREADS=$cores "$bin" "${args[@]}" > "$tmp/all-$k.tsv"
  /usr/bin/python3 "$root/bench/cpu_numpy.py" "${args[@]}" > "$tmp/numpy-$k.tsv"
done

/usr/bin/python3 - "$tmp" "$cores" "$rounds" << 'EOF'
import sys

tmp, cores, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = {}
per_round = {}  # key -> [ms of round 0, 1, ...]
notes = []
for name in ("one", "all", "numpy"):
    for k in range(rounds):
        for line in open("%s/%s-%d.tsv" % (tmp, name, k)):
            if line.startswith("#"):
                if line.startswith(("# numpy", "# plan", "# input")) and k == 0 \
                        and name != "all":
                    notes.append(line[2:].strip())
                continue
            case, dtype, size, impl, threads, ms, nbytes = line.rstrip("\n").split("\t")
            key = (name, case, dtype, size, impl)
            per_round.setdefault(key, []).append(float(ms))
            if key not in rows or float(ms) < rows[key][0]:
                rows[key] = (float(ms), int(nbytes))


def cell(key):
    if key not in rows:
        return "-"
    ms, nbytes = rows[key]
    return "%.2f (%.1f)" % (ms, nbytes / ms / 1e6)


def paired(a, b):
    """b's time over a's within each round (the two took turns there), the median over rounds:
    the bandwidth of the machine moves between rounds with the other users' load."""
    if a not in per_round or b not in per_round:
        return "-"
    r = sorted(y / x for x, y in zip(per_round[a], per_round[b]))
    return "%.0f%%" % (100 * r[len(r) // 2])


def ratio(a, b, fmt="%.2fx", scale=1.0):
    """How many times faster a ran than b (b's time over a's)."""
    if a not in rows or b not in rows:
        return "-"
    return fmt % (scale * rows[b][0] / rows[a][0])


print("; ".join(notes + ["best of %d rounds" % rounds]))
print()
print("Grid-wide calls: ms (GB/s), best over all rounds; yamr % of read: the median over rounds")
print("of read time / yamr time within a round (the two take turns in a round)")
print()
print("| dtype | op | yamr, 1 thread | numpy, 1 thread | yamr vs numpy | C loop -O3 | "
      "read, 1 thread | yamr, %s threads | read, %s threads | yamr %% of read |" % (cores, cores))
print("|---|---|---|---|---|---|---|---|---|---|")
grid = sorted({(c, d, s) for (n, c, d, s, i) in rows if n == "one" and i == "yamr" and "x" not in s
               and "segs" not in s},
              key=lambda k: (["f32", "f64", "f16", "bf16", "i32", "u32", "i64"].index(k[1]),
                             ["argmax", "max", "minmax"].index(k[0])))
for case, dtype, size in grid:
    y1 = ("one", case, dtype, size, "yamr")
    ya = ("all", case, dtype, size, "yamr")
    np_ = ("numpy", case, dtype, size, "numpy")
    c1 = ("one", "argmax", dtype, size, "c_loop")
    r1 = ("one", "argmax", dtype, size, "read")
    ra = ("all", "argmax", dtype, size, "read")
    print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        dtype, case, cell(y1), cell(np_), ratio(y1, np_), cell(c1) if case == "argmax" else "",
        cell(r1), cell(ya), cell(ra), paired(ya, ra)))
print()
print("The same f32 bytes read in other forms (is the plain read the ceiling?): ms (GB/s), best over")
print("all rounds, next to yamr's and numpy's argmax")
print()
print("| read form | 1 thread | %s threads |" % cores)
print("|---|---|---|")
f32 = [k for k in grid if k[1] == "f32" and k[0] == "argmax"]
for case, dtype, size in f32:
    for label, impl in (("plain (the read ceiling above)", "read"),
                        ("two streams per thread", "read_two_streams"),
                        ("prefetch 4 KiB ahead (L2)", "read_prefetch")):
        print("| %s | %s | %s |" % (label, cell(("one", case, dtype, size, impl)),
                                  cell(("all", case, dtype, size, impl))))
    print("| yamr argmax | %s | %s |" % (cell(("one", case, dtype, size, "yamr")),
                                       cell(("all", case, dtype, size, "yamr"))))
    print("| numpy argmax | %s | - |" % cell(("numpy", case, dtype, size, "numpy")))
print()
print("Batched calls (f32): ms (GB/s)")
print()
print("| case | shape | yamr, 1 thread | numpy, 1 thread | yamr vs numpy | yamr, %s threads | "
      "read, %s threads | yamr %% of read |" % (cores, cores))
print("|---|---|---|---|---|---|---|---|")
batched = [k for k in dict.fromkeys((c, d, s) for (n, c, d, s, i) in rows
                                    if n == "one" and i == "yamr" and ("x" in s or "segs" in s))]
for case, dtype, size in batched:
    y1 = ("one", case, dtype, size, "yamr")
    ya = ("all", case, dtype, size, "yamr")
    np_ = ("numpy", case, dtype, size, "numpy")
    ra = ("all", case, dtype, size, "read")
    print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
        case, size, cell(y1), cell(np_), ratio(y1, np_), cell(ya), cell(ra),
        paired(ya, ra)))
EOF
