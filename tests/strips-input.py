#!/usr/bin/env python3
"""Makes the large test pictures of tests/strips.sh in plain Python (no third-party module):

    strips-input.py W H OUT.ppm     a W x H 8-bit colour picture (P6) of edges, ramps and noise,
                                    every row different, so that a filter's every tap and every
                                    border row matter

Rows are built from a few random rows by rotations and a per-row ramp, which keeps it fast.
"""
import random
import sys


def main():
    if len(sys.argv) != 4:
        sys.stderr.write("usage: strips-input.py W H OUT.ppm\n")
        sys.exit(2)
    w, h, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rng = random.Random(20261125)
    base = []
    for k in range(7):
        row = bytearray(3 * w)
        for x in range(w):
            edge = 160 if (x // (17 + k)) % 2 else 40
            for c in range(3):
                row[3 * x + c] = (edge + rng.randrange(48) + c * 23 * k) % 256
        base.append(bytes(row))
    with open(out, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (w, h))
        for y in range(h):
            row = base[y % 7]
            shift = 3 * ((y * 13) % w)
            row = row[shift:] + row[:shift]
            ramp = (y * 255) // max(h - 1, 1)
            if (y // 37) % 3 == 0:
                row = bytes((v + ramp) % 256 for v in row[:3 * 64]) + row[3 * 64:]
            f.write(row)


if __name__ == "__main__":
    main()
