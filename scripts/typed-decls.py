#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the typed declarations of include/yamr.h out, one per function, so that each name is
in the header as text (grep, IDEs): yamr_{max,min,argmax,argmin}_<t>[_async] for each dtype.

    scripts/typed-decls.py           rewrites the block between the markers in include/yamr.h
    scripts/typed-decls.py --check   exits 1 when the block differs from what this script writes
"""
import pathlib
import sys

DTYPES = [("f32", "float"), ("f64", "double"), ("f16", "uint16_t"), ("bf16", "uint16_t"),
          ("i32", "int32_t"), ("u32", "uint32_t"), ("i64", "int64_t")]
BEGIN = "/* typed declarations: begin (scripts/typed-decls.py writes this block) */"
END = "/* typed declarations: end */"
WIDTH = 100


def declaration(name, params):
    head = f"YAMR_API yamr_status {name}("
    line = head + ", ".join(params) + ");"
    if len(line) <= WIDTH:
        return [line]
    lines, current, indent = [], head, " " * len(head)
    for i, p in enumerate(params):
        piece = p + (");" if i == len(params) - 1 else ",")
        if current != head and current != indent and len(current) + 1 + len(piece) > WIDTH:
            lines.append(current.rstrip())
            current = indent
        current += ("" if current in (head, indent) else " ") + piece
    lines.append(current)
    return lines


def block():
    out = [BEGIN]
    for t, ctype in DTYPES:
        out.append(f"/* {t}: {ctype} */")
        for suffix in ("", "_async"):
            for op in ("max", "min", "argmax", "argmin"):
                params = ["yamr_context *ctx", f"const {ctype} *in", "size_t n", f"{ctype} *out"]
                if op.startswith("arg"):
                    params.append("int64_t *index")
                out += declaration(f"yamr_{op}_{t}{suffix}", params)
    out.append(END)
    return "\n".join(out)


def main():
    header = pathlib.Path(__file__).resolve().parent.parent / "include" / "yamr.h"
    text = header.read_text()
    start, stop = text.find(BEGIN), text.find(END)
    if start < 0 or stop < start:
        sys.exit(f"{header}: no typed-declarations markers")
    new = text[:start] + block() + text[stop + len(END):]
    if sys.argv[1:] == ["--check"]:
        if new != text:
            sys.exit(f"{header}: the typed declarations differ from scripts/typed-decls.py's; run it")
        print("typed declarations: as scripts/typed-decls.py writes them")
    elif sys.argv[1:]:
        sys.exit(__doc__)
    else:
        header.write_text(new)


if __name__ == "__main__":
    main()
