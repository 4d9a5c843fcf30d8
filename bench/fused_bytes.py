#!/usr/bin/env python3
"""One gray uint8 call through the fused 8-bit kernel (the default) and through the three
kernels (--tune fused-bytes=0: unpack, filter, pack), page-locked in and out so that the
transfers are the device's alone: the kernel's and the conversions' device times and the
call's wall time, medians of 15 calls after 3, ms, at 1920 x 1080 and 8192 x 8192, 3 to 63
taps (63: a two-pass variant, never fused).

    python3 bench/fused_bytes.py [DEVICE]     (from the project root, after make lib)
"""
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
import tiledconv  # noqa: E402  (the checkout's package)
from tiledconv import _native  # noqa: E402


def main():
    device = sys.argv[1] if len(sys.argv) > 1 else "gpu"
    rng = np.random.default_rng(1)
    with tiledconv.Context(device, timing=True) as ctx:  # its figures are the kernel times
        for h, w in [(1080, 1920), (8192, 8192)]:
            src = ctx.empty((h, w))
            src[...] = rng.integers(0, 256, (h, w), dtype=np.uint8)
            out = ctx.empty((h, w))
            for taps in (3, 5, 9, 15, 17, 31, 63):
                kx = tiledconv.named_filter("binomial", taps)[0]
                cols = []
                for setting in ("fused-bytes=1", "fused-bytes=0"):
                    _native.tune(setting)
                    kernel, convert, wall = [], [], []
                    for _ in range(18):
                        t = time.perf_counter()
                        ctx.filter(src, kx=kx, out=out)
                        wall.append(time.perf_counter() - t)
                        st = ctx.last_stats()
                        kernel.append(st["kernel_ms_median"])
                        convert.append(st["convert_ms"])
                    _native.tune(None)
                    cols.append(f"{setting}: kernel {np.median(kernel[3:]):.4f} conversions "
                                f"{np.median(convert[3:]):.4f} wall {1e3 * np.median(wall[3:]):.3f}")
                print(f"{w}x{h} {taps} taps | " + " | ".join(cols), flush=True)


if __name__ == "__main__":
    main()
