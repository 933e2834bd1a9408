#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PyTorch on the shapes of `yamr-bench rows`, in the same table format.

    python3 bench/rows_torch.py [--reps 50] [--warmup 20] [--quick] [--device 0]
                                [--timing isolated|queued] [--inputs rotated|resident]

torch.amax(x, dim=1) for rowmax, torch.max(x, dim=1) (values and indices) for rowargmax,
torch.logsumexp(x, dim=1) for the softmax statistics, and torch.segment_reduce(..., "max") for
the segments (PyTorch has no segmented argmax: that row times a max, and says so). Inputs are
float32 in [-1, 1); inputs smaller than twice the L2 rotate over several copies, as yamr-bench
does (--inputs resident: one copy, which the L2 may hold, as yamr-bench's option). Times are
CUDA event pairs around each call: median and minimum of --reps after --warmup.
--timing queued times each call as yamr-bench's option of that name does: the calls and their
events are queued, up to 16 at a time, behind a kernel that holds the stream (torch.cuda._sleep,
checked to outlast the queueing), so that a call's time is the device's alone.
GB/s counts the bytes of input read (the lengths too, for segments); % copy is against a
device-to-device copy measured the same way.
"""
import argparse
import statistics
import time

import torch

QUEUED_BATCH = 16
HOLD_CYCLES = 1 << 25  # torch.cuda._sleep: about 17 ms at 2 GHz


def time_calls(fn, warmup, reps, queued):
    for i in range(warmup):
        fn(i)
    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    us = []
    for first in range(0, reps, QUEUED_BATCH if queued else reps):
        batch = events[first:first + (QUEUED_BATCH if queued else reps)]
        if queued:
            held, released = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            held.record()
            torch.cuda._sleep(HOLD_CYCLES)
            released.record()
            t0 = time.perf_counter()
        for i, (start, end) in enumerate(batch, first):
            start.record()
            fn(i)
            end.record()
        if queued:
            queueing_ms = 1000.0 * (time.perf_counter() - t0)
        torch.cuda.synchronize()
        if queued and held.elapsed_time(released) < queueing_ms:
            raise RuntimeError(f"the hold ({held.elapsed_time(released):.2f} ms) ended before the "
                               f"calls were queued ({queueing_ms:.2f} ms)")
        us += [1000.0 * s.elapsed_time(e) for s, e in batch]
    us.sort()
    return statistics.median(us), us[0]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=50)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--device", type=int, default=0)
    p.add_argument("--quick", action="store_true", help="1/16 of the rows and segments")
    p.add_argument("--timing", choices=["isolated", "queued"], default="isolated")
    p.add_argument("--inputs", choices=["rotated", "resident"], default="rotated")
    a = p.parse_args()
    queued = a.timing == "queued"
    dev = torch.device("cuda", a.device)
    props = torch.cuda.get_device_properties(dev)
    l2 = getattr(props, "L2_cache_size", 50 << 20)
    divide = 16 if a.quick else 1
    print(f"torch {torch.__version__}, {props.name}, timing {a.timing}, inputs {a.inputs}")

    copy_bytes = 256 << 20
    src = torch.empty(copy_bytes // 4, device=dev)
    dst = torch.empty_like(src)
    med, _ = time_calls(lambda i: dst.copy_(src), 2, 10, queued)
    copy_gbps = 2.0 * copy_bytes / med / 1e3
    del src, dst
    print(f"copy ceiling: {copy_gbps:.1f} GB/s (device-to-device copy of {copy_bytes >> 20} MiB, read + write)\n")
    print(f"{'case':<14} {'size':<16} {'impl:shape':<15} {'median us':>10} {'min us':>10} {'GB/s':>9} {'% copy':>7}")

    gen = torch.Generator(device=dev)
    gen.manual_seed(4242)

    def inputs(rows, cols):
        bytes_ = rows * cols * 4
        rotate = a.inputs == "rotated" and bytes_ < 2 * l2
        copies = max(1, min(64, (8 * l2) // bytes_)) if rotate else 1
        return [torch.rand(rows, cols, device=dev, generator=gen) * 2 - 1 for _ in range(copies)]

    def row(name, size, impl, fn, read_bytes):
        med, mn = time_calls(fn, a.warmup, a.reps, queued)
        gbps = read_bytes / med / 1e3
        print(f"{name:<14} {size:<16} {impl:<15} {med:10.2f} {mn:10.2f} {gbps:9.1f} {100 * gbps / copy_gbps:7.1f}")

    shapes = [("rowmax", 1024, 4096), ("rowargmax", 1024, 4096), ("rowmax", 65536, 128),
              ("rowmax", 4096, 32768), ("rowargmax", 4, 1 << 24)]
    for name, rows, cols in shapes:
        rows = max(1, rows // divide)
        xs = inputs(rows, cols)
        if name == "rowmax":
            fn, impl = (lambda i, xs=xs: torch.amax(xs[i % len(xs)], dim=1)), "torch.amax"
        else:
            fn, impl = (lambda i, xs=xs: torch.max(xs[i % len(xs)], dim=1)), "torch.max"
        row(name, f"{rows}x{cols}", impl, fn, rows * cols * 4)
        del xs

    segments = max(1, (1 << 20) // divide)
    lengths = torch.randint(0, 129, (segments,), device=dev, generator=gen)
    data = torch.rand(int(lengths.sum()), device=dev, generator=gen) * 2 - 1
    try:
        row("segmax", f"{segments} segs", "torch.seg_max",
            lambda i: torch.segment_reduce(data, "max", lengths=lengths, unsafe=True),
            data.numel() * 4 + segments * 8)
    except RuntimeError as e:  # segment_reduce is a prototype API
        print(f"segmax         {segments} segs    torch.segment_reduce unavailable: {e}")
    del data, lengths

    rows = max(1, 1024 // divide)
    xs = inputs(rows, 4096)
    row("softmax_stats", f"{rows}x4096", "torch.logsumexp",
        lambda i: torch.logsumexp(xs[i % len(xs)], dim=1), rows * 4096 * 4)


if __name__ == "__main__":
    main()
