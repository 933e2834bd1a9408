#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Reads the AMD assembly of yamr's kernels and checks that each target got real kernels.

    check_isa.py --cxx "hipcc" [--flags "..."] --target gfx90a:64 --target gfx1030:32 \
                 --out DIR [--jobs N] hip_kernels/*.hip
    check_isa.py --asm-dir DIR --target gfx90a:64 --target gfx1030:32 hip_kernels/*.hip
    (either with --width-given: the flags or the build give YAMR_RDNA_WAVE_WIDTH; with
    --trap-width W: the instances for width W must trap at once)

For every source and target it compiles the device code to assembly (`-x hip --cuda-device-only
-S`; N compiles at once), or reads the assembly a build left with `-save-temps=obj` in DIR
(`<source>-hip-amdgcn-amd-amdhsa-<arch>.s`: scripts/test.sh builds the AMD library so, and
checks its own objects instead of compiling them again), and fails when:
  - a kernel instance for the target's wave width (the instances the host can launch there) has
    no vector-memory load: an empty body, what a lost wave width used to produce;
  - the instances for the target's width are not exactly half of all instances (every kernel is
    instantiated once per width an AMD GPU can have, 32 and 64), or there are none.
  - on a wave64-only target (GCN and CDNA, gfx6-gfx9), an instance for width 32 keeps a body:
    yamr_port.h tells the width to the preprocessor there, so every compiler drops those bodies;
    with --width-given (the build's YAMR_RDNA_WAVE_WIDTH in the flags), likewise on every target.
Instances for the other width return at once; on RDNA without the build's width, whether the
compiler also drops their bodies depends on its version (clang 15 folds the width test, clang 19
keeps a branch): the line says how many kept one. Prints one line per source and target. Exit
status 0 when every check passes.
"""
import argparse
import concurrent.futures
import os
import re
import shlex
import subprocess
import sys

LOAD = re.compile(r"^\s*(global_load|buffer_load|flat_load)")


def demangle(names):
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True,
                         check=True).stdout.splitlines()
    return dict(zip(names, out))


def template_args(demangled):
    """The top-level template arguments of `void name<a, b<c, d>, e>(...)`."""
    start = demangled.find("<")
    if start < 0:
        return []
    args, depth, cur = [], 0, ""
    for ch in demangled[start + 1:]:
        if ch == "<":
            depth += 1
        elif ch == ">":
            if depth == 0:
                args.append(cur.strip())
                return args
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
            continue
        cur += ch
    return args


def bodies(asm_path):
    """{mangled name: the lines of its body, comments cut} for every kernel."""
    lines = [l.split(";")[0].rstrip() for l in open(asm_path).read().splitlines()]
    names = [l.split()[1] for l in lines if l.strip().startswith(".amdhsa_kernel ")]
    out = {}
    for name in names:
        i = lines.index(name + ":")
        j = next(k for k in range(i, len(lines)) if lines[k].startswith(".Lfunc_end"))
        out[name] = lines[i + 1:j]
    return out


def loads(body):
    """The vector-memory loads of a body."""
    return sum(bool(LOAD.match(l)) for l in body)


def traps_at_once(body):
    """Whether a body's first instruction is an s_trap, or an s_branch to one."""
    def first_instruction(after):
        return next((l.strip() for l in body[after:]
                     if l.strip() and not l.strip().endswith(":") and l.strip()[0] != "."), "")

    ins = first_instruction(0)
    if ins.startswith("s_branch ") and ins.split()[1] + ":" in body:
        ins = first_instruction(body.index(ins.split()[1] + ":") + 1)
    return ins.startswith("s_trap")


def wave64_only(arch):
    """GCN and CDNA (gfx6-gfx9) run wave64 only; RDNA (gfx10 and later) runs either width."""
    return re.fullmatch(r"gfx[6-9][0-9a-f]*", arch) is not None


def warp_width(demangled, instances):
    """The warp width an instance is for: the one of 32 and 64 among its template arguments, or,
    where both are (a width and another argument of 32 or 64), the argument whose other width
    names another instance of the same kernel (its twin for the other width); else None."""
    args = template_args(demangled)
    ints = {a for a in args if a in ("32", "64")}
    if len(ints) == 1:
        return ints.pop()
    kernel = demangled[:demangled.find("<")]
    twins = [args[p] for p in range(len(args)) if args[p] in ("32", "64") and
             (kernel, tuple(args[:p] + [("64" if args[p] == "32" else "32")] + args[p + 1:]))
             in instances]
    return twins[0] if len(twins) == 1 else None


def check(asm_path, arch, width, width_given, trap_width):
    other = 64 if width == 32 else 32
    kernel_bodies = bodies(asm_path)
    names = demangle(sorted(kernel_bodies))
    instances = {(d[:d.find("<")], tuple(template_args(d))) for d in names.values()}
    problems, mine, kept, traps = [], 0, 0, []
    for mangled, body in kernel_bodies.items():
        n = loads(body)
        ints = warp_width(names[mangled], instances)
        if ints == str(width):
            mine += 1
            if n == 0:
                problems.append(f"empty body: {names[mangled]}")
        elif ints == str(other):
            kept += n != 0
        else:
            problems.append(f"no single warp width among the template arguments: {names[mangled]}")
        if trap_width and ints == str(trap_width):
            traps.append(traps_at_once(body))
            if not traps[-1]:
                problems.append(f"does not trap at once: {names[mangled]}")
    if kept and (wave64_only(arch) or width_given):
        what = "a wave64-only target" if wave64_only(arch) else "a target given its width"
        problems.append(f"{kept} instances for width {other} keep a body on {arch}, {what} "
                        "whose width the preprocessor knows")
    if kernel_bodies and (mine == 0 or 2 * mine != len(kernel_bodies)):
        problems.append(f"{mine} instances for width {width} out of {len(kernel_bodies)}: "
                        "expected exactly half, and at least one")
    if trap_width and kernel_bodies and not traps:
        problems.append(f"no instance for wave{trap_width}")
    return mine, len(kernel_bodies), kept, traps, problems


def assemble(a, src, arch):
    """The assembly of src for arch: (path, None), or (None, the compiler's error lines)."""
    base = os.path.splitext(os.path.basename(src))[0]
    if a.asm_dir:
        asm = os.path.join(a.asm_dir, f"{base}-hip-amdgcn-amd-amdhsa-{arch}.s")
        return (asm, None) if os.path.exists(asm) else (None, f"no {asm} (built with -save-temps=obj?)")
    asm = os.path.join(a.out, f"{base}-{arch}.s")
    cmd = (shlex.split(a.cxx) + ["-std=c++17", "-O3"] + shlex.split(a.flags) +
           ["-x", "hip", "--cuda-device-only", "-S", f"--offload-arch={arch}", "-o", asm, src])
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        errors = [l for l in r.stderr.splitlines() if "error" in l]
        return None, " | ".join(errors[:3]) or r.stderr[-300:]
    return asm, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cxx", help="the HIP compiler command (e.g. hipcc)")
    ap.add_argument("--flags", default="", help="more compiler flags (include dirs, -D, ...)")
    ap.add_argument("--target", action="append", required=True,
                    help="ARCH:WIDTH, e.g. gfx90a:64 (repeatable)")
    ap.add_argument("--out", help="folder for the assembly files")
    ap.add_argument("--asm-dir", help="read the assembly a -save-temps=obj build left here")
    ap.add_argument("--jobs", type=int, default=1, help="compiles at once (default 1)")
    ap.add_argument("--trap-width", type=int, choices=(32, 64),
                    help="every instance for this width must trap at once (a width the build "
                         "dropped but the device runs)")
    ap.add_argument("--width-given", action="store_true",
                    help="the flags give RDNA's wave width (YAMR_RDNA_WAVE_WIDTH, as yamr's build "
                         "does): no instance for the other width may keep a body")
    ap.add_argument("sources", nargs="+")
    a = ap.parse_args()
    if not a.asm_dir and not (a.cxx and a.out):
        ap.error("give --cxx and --out, or --asm-dir")
    if a.out:
        os.makedirs(a.out, exist_ok=True)
    jobs = [(src, *t.split(":")) for src in a.sources for t in a.target]
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
        made = list(pool.map(lambda j: assemble(a, j[0], j[1]), jobs))
    failed = False
    for (src, arch, width), (asm, error) in zip(jobs, made):
        base = os.path.splitext(os.path.basename(src))[0]
        if asm is None:
            print(f"FAIL {base} {arch} (wave{width}): does not compile: {error}")
            failed = True
            continue
        mine, total, kept, traps, problems = check(asm, arch, int(width), a.width_given,
                                                   a.trap_width)
        if total == 0:
            print(f"ok   {base} {arch}: no kernels")
            continue
        status = "FAIL" if problems else "ok  "
        trapped = (f"; of the {len(traps)} for wave{a.trap_width}, {sum(traps)} trap at once"
                   if a.trap_width else "")
        print(f"{status} {base} {arch} (wave{width}): {mine} of {total} kernel instances are "
              f"for wave{width}, each with loads; of the other {total - mine}, {kept} keep a body "
              f"behind the width test{trapped}")
        for p in problems[:10]:
            print(f"     {p}")
        failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
