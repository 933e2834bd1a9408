#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The baselines of `yamr-bench topk` (which runs this script after its own rows): numpy on the
CPU (np.argpartition, then sorting the k by value with the index as the tie-break) or
torch.topk(x, k, dim=1, sorted=True) on a GPU, on the same shapes and data.

    python3 bench/topk_baselines.py --numpy|--torch --shapes R:C:K,... [--dtype f32]
                                    [--data random] [--reps 7] [--warmup 1] [--csv DIR]

Random data is yamr-bench's own (bench_common.c, host_fill: the same values in every dtype);
ordered data is f32. bf16 runs as float32 in numpy (which has no bf16; the values are exact).

numpy: one thread (these calls do not spread), host clock. torch: CUDA event pairs around each
call, as bench/rows_torch.py times them. Prints rows in yamr-bench topk's table format; a
missing module prints one line and exits 0. --csv writes DIR/topk_baselines.csv.
"""
import argparse
import statistics
import sys
import time


def host_fill(np, dtype, n, seed=4242):
    """yamr-bench's host_fill (bench/bench_common.c): element i from its index alone."""
    with np.errstate(over="ignore"):
        h = (np.uint64(seed) ^ np.arange(n, dtype=np.uint64)) * np.uint64(0x9E3779B97F4A7C15)
        h ^= h >> np.uint64(29)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(32)
    f = (h >> np.uint64(40)).astype(np.float32) / np.float32(1 << 23) - np.float32(1)
    if dtype == "f32":
        return f
    if dtype == "f64":
        return f.astype(np.float64)
    if dtype == "f16":
        bits = ((h >> np.uint64(20)) & np.uint64(0x3BFF)) | ((h & np.uint64(1)) << np.uint64(15))
        return bits.astype(np.uint16).view(np.float16)
    if dtype == "bf16":  # as float32: the bf16 value exactly
        return (f.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)
    if dtype == "i32":
        return (h >> np.uint64(32)).astype(np.uint32).view(np.int32)
    if dtype == "u32":
        return (h >> np.uint64(32)).astype(np.uint32)
    return h.view(np.int64)


def make(np, rows, cols, data, dtype):
    if data == "random":
        return host_fill(np, dtype, rows * cols).reshape(rows, cols)
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
    p.add_argument("--dtype", default="f32",
                   choices=["f32", "f64", "f16", "bf16", "i32", "u32", "i64"])
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
        x = make(np, rows, cols, a.data, a.dtype)
        if a.numpy and a.dtype == "u32":  # numpy_topk negates: exact in int64
            x = x.astype(np.int64)
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
            if a.dtype == "bf16":
                xt = xt.to(torch.bfloat16)
            try:
                torch.topk(xt, k, dim=1, sorted=True)
            except RuntimeError as e:
                print(f"{name:<22} {impl:<10} (torch.topk: {str(e).splitlines()[0]})")
                continue
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
        lines.append(f"{name},{a.dtype},{a.data},{rows},{cols},{k},{impl},{med:.3f},{us[0]:.3f}")
        sys.stdout.flush()
    if a.csv:
        with open(f"{a.csv}/topk_baselines.csv", "w") as f:
            f.write("case,dtype,data,rows,cols,k,impl,median_us,min_us\n" + "\n".join(lines)
                    + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
