#!/usr/bin/env python3
"""bench/cuda/sass_mix.py - the static instruction mix of each kernel in `cuobjdump -sass` output.

    cuobjdump -sass long_probe | python3 bench/cuda/sass_mix.py [--label NAME]
    python3 bench/cuda/sass_mix.py [--label NAME] FILE.sass ...

One line per kernel (Function : ...): the instructions of its code, the FMAs (FFMA, and those
of them taking a coefficient straight from a constant bank, c[..]), the shared-memory loads and
stores (LDS, STS), the global ones (LDG, STG), the constant loads (LDC, ULDC), the barriers
(BAR), NOPs (the padding after the last EXIT) and the rest. Static counts, instructions in the
code, not executed ones: a loop body counts once.
"""
import re
import sys

# An instruction line: /*0a40*/  [@P0 |@!UP1 ]OPCODE[.MODS] operands ;
INSTRUCTION = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*)(\S*)\s*([^;]*);")
FUNCTION = re.compile(r"Function\s*:\s*(\S+)")
COLUMNS = ["total", "FFMA", "FFMA c[]", "LDS", "STS", "LDG", "STG", "LDC", "BAR", "NOP", "other"]


def kernel_name(mangled):
    """tiled_long_conv<63> from _Z15tiled_long_convILi63EEv..., else the name as it is."""
    m = re.match(r"_Z\d+(\w+?)ILi(\d+)E", mangled)
    return f"{m.group(1)}<{m.group(2)}>" if m else mangled


def mixes(lines):
    """[(name, {column: count})] in the order the kernels appear."""
    out = []
    counts = None
    for line in lines:
        f = FUNCTION.search(line)
        if f:
            counts = dict.fromkeys(COLUMNS, 0)
            out.append((kernel_name(f.group(1)), counts))
            continue
        m = INSTRUCTION.search(line)
        if not m or counts is None:
            continue
        op, operands = m.group(2), m.group(4)
        counts["total"] += 1
        if op == "FFMA":
            counts["FFMA"] += 1
            if "c[" in operands:
                counts["FFMA c[]"] += 1
        elif op in ("LDS", "STS", "LDG", "STG", "BAR", "NOP"):
            counts[op] += 1
        elif op in ("LDC", "ULDC"):
            counts["LDC"] += 1
        else:
            counts["other"] += 1
    return out


def main(argv):
    label = ""
    if len(argv) >= 2 and argv[0] == "--label":
        label, argv = argv[1], argv[2:]
    lines = []
    if argv:
        for path in argv:
            with open(path, encoding="utf-8", errors="replace") as f:
                lines.extend(f)
    else:
        lines = sys.stdin.readlines()
    found = mixes(lines)
    if not found:
        print(f"{label or 'input'}: no SASS functions found", file=sys.stderr)
        return 1
    head = ["kernel"] + COLUMNS
    rows = [[(label + " " if label else "") + name] + [str(c[k]) for k in COLUMNS]
            for name, c in found]
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    print("  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(head, widths))))
    for r in rows:
        print("  ".join(v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(r, widths))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
