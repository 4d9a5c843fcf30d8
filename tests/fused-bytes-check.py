"""The fused 8-bit kernels (Common.cl's TC_IO_U8: tiled_conv and tiled_long_conv reading and
writing a gray image's bytes, the library's way for a gray uint8 image with a whole-image ROI)
on the device the library opens by default: tests/kernel-check.sh runs this under oclgrind.
Each case is filtered the fused way (its conversions then take no time: no unpack or pack ran)
and with fused-bytes=0 (unpack, filter, pack), and the two must give the same bytes. The cases:
every class of work-groups of tiled_conv (an image of several tiles), every border, lengths per
axis, widths that are no multiple of 4, and tiled_long_conv with small tiles (class 1 occurs).
Prints one line a case; exits 1 on any difference."""
import sys

import numpy as np

import tiledconv
from tiledconv import _native

CASES = [  # (height, width, taps along rows, taps along columns, border, tuning or None)
    (90, 100, 5, 5, "reflect101", None),
    (45, 71, 3, 9, "constant", None),
    (33, 70, 15, 7, "wrap", None),
    (20, 21, 7, 7, "reflect", None),
    (110, 110, 31, 31, "replicate", "long-tile-h=32"),
    (60, 48, 17, 5, "constant", None),
]


def main():
    rng = np.random.default_rng(11)
    bad = 0
    for h, w, tx, ty, border, setting in CASES:
        # A context a case: oclgrind reports reads of uninitialised values in tiled_long_conv
        # (through either path, fused or not, the same bytes) when one context's buffers have
        # grown from a 21 x 20 image to a 110 x 110 one; each case here checks its kernel.
        with tiledconv.Context(timing=True) as ctx:  # convert_ms must be measured to be 0
            img = rng.integers(0, 256, (h, w), dtype=np.uint8)
            # Weights that reach past 0 and 255 (the output's clamping and rounding).
            kx = rng.uniform(-0.5, 1.5, tx)
            ky = rng.uniform(-0.5, 1.5, ty)
            if setting:
                _native.tune(setting)
            fused = ctx.filter(img, kx=kx, ky=ky, border=border, border_value=201.5)
            convert_ms = ctx.last_stats()["convert_ms"]
            _native.tune("fused-bytes=0")
            plain = ctx.filter(img, kx=kx, ky=ky, border=border, border_value=201.5)
            _native.tune(None)
            ok = convert_ms == 0.0 and fused.dtype == np.uint8 and np.array_equal(fused, plain)
            bad += not ok
            print(f"{'ok' if ok else 'not ok'} - {w} x {h}, {tx} x {ty} taps, {border}"
                  f"{', ' + setting if setting else ''}: fused conversions {convert_ms} ms, "
                  f"{int(np.count_nonzero(fused != plain))} bytes differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
