#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The baselines of `yamr-bench topk` (which runs this script after its own rows): numpy on the
CPU (np.argpartition, then sorting the k by value with the index as the tie-break) or
torch.topk(x, k, dim=1, sorted=True) on a GPU, on the same shapes and data.

    python3 bench/topk_baselines.py --numpy|--torch --shapes R:C:K,... [--data random]
                                    [--reps 7] [--warmup 1] [--csv DIR]

numpy: one thread (these calls do not spread), host clock. torch: CUDA event pairs around each
call, as bench/rows_torch.py times them. Prints rows in yamr-bench topk's table format; a
missing module prints one line and exits 0. --csv writes DIR/topk_baselines.csv.
"""
import argparse
import statistics
import sys
import time


def make(np, rows, cols, data):
    if data == "random":
        return (np.random.default_rng(4242).random((rows, cols), dtype=np.float32) * 2 - 1)
    if data == "ascending":
        return np.tile(np.arange(cols, dtype=np.float32), (rows, 1))
    if data == "descending":
        return np.tile(-np.arange(cols, dtype=np.float32), (rows, 1))
    if data == "equal":
        return np.full((rows, cols), 0.5, dtype=np.float32)
    return np.full((rows, cols), np.nan, dtype=np.float32)


def numpy_topk(np, x, k):
    """The k largest of each row, sorted (largest first, smaller index on ties)."""
    if k < x.shape[1]:
        part = np.argpartition(-x, k - 1, axis=1)[:, :k]
    else:
        part = np.broadcast_to(np.arange(x.shape[1]), x.shape)
    vals = np.take_along_axis(x, part, axis=1)
    order = np.lexsort((part, -vals), axis=1)
    return np.take_along_axis(vals, order, axis=1), np.take_along_axis(part, order, axis=1)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--numpy", action="store_true")
    g.add_argument("--torch", action="store_true")
    p.add_argument("--shapes", required=True, help="rows:cols:k,...")
    p.add_argument("--data", default="random")
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--csv")
    a = p.parse_args()
    try:
        import numpy as np
        if a.torch:
            import torch
    except ImportError as e:
        print(f"(baselines: {e}; none timed)")
        return 0
    lines = []
    for shape in a.shapes.split(","):
        rows, cols, k = (int(v) for v in shape.split(":"))
        name = f"{rows}x{cols} k{k}"
        x = make(np, rows, cols, a.data)
        if a.numpy:
            impl = "numpy"
            for _ in range(a.warmup):
                numpy_topk(np, x, k)
            us = []
            for _ in range(a.reps):
                t0 = time.perf_counter()
                numpy_topk(np, x, k)
                us.append(1e6 * (time.perf_counter() - t0))
        else:
            impl = "torch"
            xt = torch.from_numpy(x).cuda()
            for _ in range(a.warmup):
                torch.topk(xt, k, dim=1, sorted=True)
            torch.cuda.synchronize()
            us = []
            for _ in range(a.reps):
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                torch.topk(xt, k, dim=1, sorted=True)
                e.record()
                torch.cuda.synchronize()
                us.append(1000.0 * s.elapsed_time(e))
            del xt
        us.sort()
        med = statistics.median(us)
        print(f"{name:<22} {impl:<10} {med:12.1f} {us[0]:12.1f}")
        lines.append(f"{name},{a.data},{rows},{cols},{k},{impl},{med:.3f},{us[0]:.3f}")
        sys.stdout.flush()
    if a.csv:
        with open(f"{a.csv}/topk_baselines.csv", "w") as f:
            f.write("case,data,rows,cols,k,impl,median_us,min_us\n" + "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
