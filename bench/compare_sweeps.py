#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare two trees' `yamr-bench sweep` runs made in one call, round by round.

    bench/compare_sweeps.py OLD_DIR NEW_DIR [--slower 1.02] [--old-impl V] [--new-impl V]

OLD_DIR and NEW_DIR each hold one folder per round (any names), each with the sweep.csv that
`yamr-bench sweep --out` wrote. Per (dtype, op, size), yamr's time is the smallest median over
the rounds; CUB and the read ceiling come from NEW_DIR's rounds the same way. One line per case
(new/old, new/read, new/cub; "<-- slower" past --slower), then the count of slower cases.
yamr's rows are those of AUTO's pick unless --old-impl / --new-impl name a variant.
"""
import argparse
import csv
import glob
import os
import sys


def best_medians(folder, variant):
    """(dtype, op, n) -> {impl kind: smallest median over the rounds under folder}; yamr is
    `variant`'s rows (auto: AUTO's pick, written auto:<variant>)"""
    best = {}
    paths = sorted(glob.glob(os.path.join(folder, "*", "sweep.csv")))
    if not paths:
        sys.exit("compare_sweeps.py: no */sweep.csv under %s" % folder)
    for path in paths:
        with open(path) as f:
            for row in csv.DictReader(f):
                impl = row["impl"]
                kind = "yamr" if impl.split(":")[0] == variant else impl
                if kind not in ("yamr", "cub", "rocprim", "read"):
                    continue
                # the read ceiling is one row per dtype and size: every op shares it
                ops = ("max", "argmax", "minmax") if kind == "read" else (row["op"],)
                for op in ops:
                    key = (row["dtype"], op, int(row["n"]))
                    us = float(row["median_us"])
                    cell = best.setdefault(key, {})
                    if kind not in cell or us < cell[kind]:
                        cell[kind] = us
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--slower", type=float, default=1.02)
    ap.add_argument("--old-impl", default="auto")
    ap.add_argument("--new-impl", default="auto")
    a = ap.parse_args()
    old, new = best_medians(a.old, a.old_impl), best_medians(a.new, a.new_impl)
    slower = total = 0
    for key in sorted(new, key=lambda k: (k[0], k[1], k[2])):
        n_cell, o_cell = new[key], old.get(key, {})
        if "yamr" not in n_cell or "yamr" not in o_cell:
            continue
        dtype, op, n = key
        ratio = n_cell["yamr"] / o_cell["yamr"]
        read = n_cell["yamr"] / n_cell["read"] if "read" in n_cell else float("nan")
        base = next((n_cell[b] for b in ("cub", "rocprim") if b in n_cell), None)
        vs_base = n_cell["yamr"] / base if base else float("nan")
        total += 1
        mark = ""
        if ratio > a.slower:
            slower += 1
            mark = " <-- slower"
        exp = n.bit_length() - 1
        size = "2^%d" % exp if n == 1 << exp else str(n)
        print("%-4s %-7s %5s old %9.2f new %9.2f new/old %.3f new/read %5.2f new/cub %5.2f%s"
              % (dtype, op, size, o_cell["yamr"], n_cell["yamr"], ratio, read, vs_base, mark))
    print("%d of %d cases more than %.0f%% slower" % (slower, total, (a.slower - 1) * 100))


if __name__ == "__main__":
    main()
