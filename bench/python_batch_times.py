#!/usr/bin/env python3
"""filter_batch of 300 gray 1080p uint8 arrays at 5 taps, six times with new results and six
times into the same ordinary arrays (out=), each batch's wall time in seconds: the steady state
of a Python batch from ordinary memory, apart from bench/python_arrays.py's peers.

    python3 bench/python_batch_times.py [DEVICE [SETTING...]]
                                    (from the project root; DEVICE: gpu; SETTING: a study
                                    setting for tiledconv.tune, e.g. copy-threads=15, or
                                    timing=0: the context made with timing=False)
"""
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
import tiledconv  # noqa: E402  (the checkout's package)


def main():
    device = sys.argv[1] if len(sys.argv) > 1 else "gpu"
    timing = True
    for setting in sys.argv[2:]:
        if setting == "timing=0":
            timing = False
        else:
            tiledconv._native.tune(setting)
    rng = np.random.default_rng(1)
    images = [rng.integers(0, 256, (1080, 1920), dtype=np.uint8) for _ in range(300)]
    kx = tiledconv.named_filter("binomial", 5)[0]
    with tiledconv.Context(device, timing=timing) as ctx:
        walls = []
        for _ in range(6):
            t = time.perf_counter()
            ctx.filter_batch(images, kx=kx)
            walls.append(time.perf_counter() - t)
        print("batch of 300, new results: " + " ".join(f"{w:.3f}" for w in walls) + " s")
        outs = [np.empty_like(a) for a in images]
        walls = []
        for _ in range(6):
            t = time.perf_counter()
            ctx.filter_batch(images, kx=kx, out=outs)
            walls.append(time.perf_counter() - t)
        print("batch of 300 into the same arrays (out=): " +
              " ".join(f"{w:.3f}" for w in walls) + " s")


if __name__ == "__main__":
    main()
