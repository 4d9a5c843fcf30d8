#!/usr/bin/env python3
"""filter_batch of 300 gray 1080p uint8 arrays at 5 taps with each side in ordinary or
page-locked memory (Context.empty_like): ordinary in with new results, ordinary in and out=,
ordinary in with page-locked out=, page-locked in with ordinary out=, page-locked both; timed
and with timing=False; six batches each, s. Where a batch's host copies bound it: each side's
staging copy taken away in turn.

    python3 bench/python_batch_sides.py [DEVICE]   (from the project root, after make lib)
"""
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
import tiledconv  # noqa: E402  (the checkout's package)


def main():
    device = sys.argv[1] if len(sys.argv) > 1 else "gpu"
    rng = np.random.default_rng(1)
    images = [rng.integers(0, 256, (1080, 1920), dtype=np.uint8) for _ in range(300)]
    kx = tiledconv.named_filter("binomial", 5)[0]
    for timing in (True, False):
        with tiledconv.Context(device, timing=timing) as ctx:
            locked_in = [ctx.empty_like(a) for a in images]
            for p, a in zip(locked_in, images):
                p[...] = a
            locked_out = [ctx.empty_like(a) for a in images]
            plain_out = [np.empty_like(a) for a in images]
            ways = [("ordinary in, new results", images, None),
                    ("ordinary in, ordinary out=", images, plain_out),
                    ("ordinary in, page-locked out=", images, locked_out),
                    ("page-locked in, ordinary out=", locked_in, plain_out),
                    ("page-locked in and out=", locked_in, locked_out)]
            for name, src, out in ways:
                walls = []
                for _ in range(6):
                    t = time.perf_counter()
                    ctx.filter_batch(src, kx=kx, out=out)
                    walls.append(time.perf_counter() - t)
                print(f"timing={timing} {name}: " + " ".join(f"{w:.3f}" for w in walls) + " s",
                      flush=True)


if __name__ == "__main__":
    main()
