#!/usr/bin/env python3
"""CuPy's time for the cases of bench/roofline.sh, for the ratio column of its table.

    python3 bench/cupy_roofline.py --out FILE.csv [--sizes 8192x8192,16384x16384]
        [--lengths 3,5,...] [--pairs 15x31,...] [--masks 3,5,...] [--planes 1,3] [-i 50]

For every size, plane count and filter: a float32 device array (planes 1: H x W; planes 3: the
three planes as one 3 x H x W array, the way a colour image is filtered with CuPy), a
preallocated output, and

  separable, taps_x x taps_y: cupyx.scipy.ndimage.correlate1d along the rows (the last axis,
      kx, into a preallocated temporary) then along the columns (ky), mode='nearest';
  mask W x H: cupyx.scipy.ndimage.correlate with the H x W weights (1 x H x W for three
      planes), mode='nearest';

the coefficients bench/roofline.c uses (binomial; a mask's ((3 i + 5 j) mod 7 - 3) / 16).
Timing: CUDA events around each run (both correlate1d calls), 5 runs of warm-up, then the
median of N (default 50). mode='nearest' is the replicate border; the time does not depend on
the border mode (only the edge pixels' indices differ), so one figure serves both of the
sweep's borders. Output: CSV size,planes,taps_x,taps_y,mask,cupy_ms_median,cupy_ms_min.
Exit status 0, or 3 when CuPy is missing (the record then says so).
"""
import argparse
import sys


def binomial(n):
    row = [1.0]
    for _ in range(n - 1):
        row = [a + b for a, b in zip(row + [0.0], [0.0] + row)]
    total = sum(row)
    return [v / total for v in row]


def mask_weights(w, h):
    return [[((3 * i + 5 * j) % 7 - 3) / 16.0 for i in range(w)] for j in range(h)]


def parse_list(text, conv):
    return [conv(t) for t in text.replace(" ", ",").split(",") if t]


def parse_pair(t):
    a, b = t.lower().split("x")
    return int(a), int(b)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--sizes", default="8192x8192,16384x16384")
    ap.add_argument("--lengths", default=",".join(str(n) for n in range(3, 64, 2)))
    ap.add_argument("--pairs", default="")
    ap.add_argument("--masks", default="3,5,7,9,11,13,15")
    ap.add_argument("--planes", default="1,3")
    ap.add_argument("-i", "--iterations", type=int, default=50)
    args = ap.parse_args()

    with open(args.out, "w") as out:
        out.write("size,planes,taps_x,taps_y,mask,cupy_ms_median,cupy_ms_min\n")
        try:
            import cupy as cp
            import cupyx.scipy.ndimage as nd
            import numpy as np
        except Exception as e:  # noqa: BLE001 - any import failure means no peer
            out.write("# CuPy unavailable: %s: %s\n" % (type(e).__name__, e))
            print("cupy_roofline: CuPy unavailable (%s)" % e, file=sys.stderr)
            return 3
        filters = [(n, n, "") for n in parse_list(args.lengths, int)]
        filters += [(a, b, "") for a, b in parse_list(args.pairs, parse_pair)]
        filters += [(0, 0, "%dx%d" % (m, m)) for m in parse_list(args.masks, int)]
        for size in parse_list(args.sizes, parse_pair):
            w, h = size
            for planes in parse_list(args.planes, int):
                shape = (h, w) if planes == 1 else (planes, h, w)
                rng = np.random.default_rng(1)
                x = cp.asarray(rng.random(shape, dtype=np.float32) * 255.0)
                tmp = cp.empty_like(x)
                y = cp.empty_like(x)
                for tx, ty, mask in filters:
                    if mask:
                        mw = int(mask.split("x")[0])
                        wts = cp.asarray(np.array(mask_weights(mw, mw), np.float32))
                        if planes > 1:
                            wts = wts.reshape(1, mw, mw)

                        def run():
                            nd.correlate(x, wts, output=y, mode="nearest")
                    else:
                        kx = cp.asarray(np.array(binomial(tx), np.float32))
                        ky = cp.asarray(np.array(binomial(ty), np.float32))
                        ax_x, ax_y = x.ndim - 1, x.ndim - 2

                        def run():
                            nd.correlate1d(x, kx, axis=ax_x, output=tmp, mode="nearest")
                            nd.correlate1d(tmp, ky, axis=ax_y, output=y, mode="nearest")
                    for _ in range(5):
                        run()
                    cp.cuda.Device().synchronize()
                    events = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(args.iterations)]
                    for s, e in events:
                        s.record()
                        run()
                        e.record()
                    events[-1][1].synchronize()
                    ms = sorted(cp.cuda.get_elapsed_time(s, e) for s, e in events)
                    n = len(ms)
                    med = ms[n // 2] if n % 2 else 0.5 * (ms[n // 2 - 1] + ms[n // 2])
                    out.write("%dx%d,%d,%d,%d,%s,%.6f,%.6f\n"
                              % (w, h, planes, tx, ty, mask, med, ms[0]))
                    out.flush()
                del x, tmp, y
                cp.get_default_memory_pool().free_all_blocks()
    return 0


if __name__ == "__main__":
    sys.exit(main())
