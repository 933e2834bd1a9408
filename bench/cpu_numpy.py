#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""numpy's side of bench/cpu_baselines.sh: the same cases as yamr-cpu-baselines, one line each.

    /usr/bin/python3 bench/cpu_numpy.py [--n N] [--reps R] [--quick]

Prints tab-separated lines: case, dtype, size, impl (numpy), threads (1: these numpy calls run on
one thread), best ms of R runs after one untimed run, bytes read. min+max is x.min() then x.max()
(numpy has no fused call). numpy has no bfloat16 and no segmented argmax: those are not printed.
"""
import argparse
import time

import numpy as np

DTYPES = [("f32", np.float32), ("f64", np.float64), ("f16", np.float16), ("i32", np.int32),
          ("u32", np.uint32), ("i64", np.int64)]
SHAPES = [("rowmax", 1024, 4096), ("rowargmax", 1024, 4096), ("rowmax", 65536, 128),
          ("rowargmax", 65536, 128), ("rowargmax", 1 << 20, 16), ("rowmax", 4096, 32768),
          ("rowargmax", 4, 1 << 24), ("softmax_stats", 1024, 4096)]


def best_ms(fn, reps):
    fn()
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


def data(dtype, n, rng):
    if np.issubdtype(dtype, np.floating):
        return (rng.random(n, dtype=np.float64) * 2 - 1).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)


def huge_kib(x):
    """KiB on huge pages in the mappings that hold x's data (Linux /proc/self/smaps), or -1."""
    lo = x.__array_interface__["data"][0]
    hi = lo + x.nbytes
    total, inside = 0, False
    try:
        for line in open("/proc/self/smaps"):
            head = line.split(" ", 1)[0]
            if "-" in head and ":" not in head:
                a, b = (int(v, 16) for v in head.split("-"))
                inside = a < hi and b > lo
            elif inside and line.startswith("AnonHugePages:"):
                total += int(line.split()[1])
    except OSError:
        return -1
    return total


def softmax_stats(x):
    m = x.max(axis=1)
    return m, np.exp(x - m[:, None]).sum(axis=1)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1 << 26)
    p.add_argument("--reps", type=int, default=9)
    p.add_argument("--quick", action="store_true")
    a = p.parse_args()
    n = 1 << 16 if a.quick else a.n
    rng = np.random.default_rng(12345)
    out = []
    notes = []
    for name, dtype in DTYPES:
        x = data(dtype, n, rng)
        size = str(n)
        if not notes:
            notes.append("# numpy input: %d KiB, made before any timing, in mappings with %d KiB"
                         " on huge pages" % (x.nbytes // 1024, huge_kib(x)))
        for case, fn in (("argmax", x.argmax), ("max", x.max),
                         ("minmax", lambda: (x.min(), x.max()))):
            out.append((case, name, size, best_ms(fn, a.reps), x.nbytes))
        del x
    for case, rows, cols in SHAPES:
        if a.quick:
            rows, cols = max(rows // 64, 1), min(cols, 4096)
        x = data(np.float32, rows * cols, rng).reshape(rows, cols)
        fn = {"rowmax": lambda: x.max(axis=1), "rowargmax": lambda: x.argmax(axis=1),
              "softmax_stats": lambda: softmax_stats(x)}[case]
        out.append((case, "f32", "%d x %d" % (rows, cols), best_ms(fn, a.reps), x.nbytes))
        del x
    print("# numpy %s" % np.__version__)
    for note in notes:
        print(note)
    for case, dtype, size, ms, nbytes in out:
        print("%s\t%s\t%s\tnumpy\t1\t%.4f\t%d" % (case, dtype, size, ms, nbytes))


if __name__ == "__main__":
    main()
