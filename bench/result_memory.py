#!/usr/bin/env python3
"""What a batch's new results cost: filter_batch of N 1080p uint8 arrays (gray, then colour)
with new arrays back, as a list and as one N x H x W (x C) array, TRIES batches in a row (the
first untimed), each with the minor page faults it took; once with the results in reused
blocks (tiledconv/_result_memory.py, the default) and once without (each result numpy's own,
as before), every way in a process of its own, the ways interleaved. Before them, the cost of
making the results present alone (no filtering): 1,000 separate arrays against one block.

    python3 bench/result_memory.py [DEVICE [N [TRIES]]]     (DEVICE gpu, N 1000, TRIES 4)
    python3 bench/result_memory.py cpu 40 3                  (a check on PoCL)
    python3 bench/result_memory.py present 1000              (the first rows alone: no device)

prints one line a measurement: the case, seconds (min / median / max), faults a batch (median).
"""
import pathlib
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

CHILD = r"""
import resource, statistics, sys, time
import numpy as np
import tiledconv
from tiledconv import _result_memory
device, n, tries, shape, form, blocks = sys.argv[1:7]
n, tries, shape = int(n), int(tries), tuple(int(s) for s in shape.split("x"))
if blocks == "off":
    _result_memory.MIN_BYTES = 1 << 62
rng = np.random.default_rng(5)
one = rng.integers(0, 256, shape, dtype=np.uint8)
images = [one.copy() for _ in range(n)]
batch = np.stack(images) if form == "array" else images
ctx = tiledconv.Context(device)
times, faults = [], []
for i in range(tries):
    f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    t0 = time.perf_counter()
    out = ctx.filter_batch(batch, kx=[1, 4, 6, 4, 1], ky=[1, 4, 6, 4, 1])
    t1 = time.perf_counter()
    f1 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    del out
    if i:
        times.append(t1 - t0)
        faults.append(f1 - f0)
print(min(times), statistics.median(times), max(times), int(statistics.median(faults)))
"""


def present_alone(n):
    """Seconds and faults to make n new 1080p gray results present, apart and as one block."""
    from tiledconv import _arrays, _result_memory
    rows = []
    for name in ("apart", "one block"):
        ts, fs = [], []
        for _ in range(3):
            f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            t0 = time.perf_counter()
            if name == "apart":
                made = [np.empty((1080, 1920), np.uint8) for _ in range(n)]
                _arrays.populate(made)
            else:
                _result_memory.release()  # a new block each time: its faults are the point
                made = _result_memory.arrays([((1080, 1920), np.uint8)] * n, _arrays.populate)
            ts.append(time.perf_counter() - t0)
            fs.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
            del made
        rows.append(f"present alone, {n} results {name}: {min(ts):.3f} / "
                    f"{statistics.median(ts):.3f} / {max(ts):.3f} s, "
                    f"{int(statistics.median(fs))} faults")
    return rows


def main():
    device = sys.argv[1] if len(sys.argv) > 1 else "gpu"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    tries = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    for row in present_alone(n):
        print(row, flush=True)
    if device == "present":
        return
    for shape in ("1080x1920", "1080x1920x3"):
        for form in ("list", "array"):
            for blocks in ("on", "off"):
                r = subprocess.run([sys.executable, "-c", CHILD, device, str(n), str(tries),
                                    shape, form, blocks], capture_output=True, text=True,
                                   env={**__import__("os").environ,
                                        "PYTHONPATH": str(ROOT / "python")})
                if r.returncode:
                    print(f"{shape} {form} blocks {blocks}: failed: {r.stderr.strip()[-300:]}")
                    continue
                lo, med, hi, faults = r.stdout.split()
                print(f"batch {n} {shape} {form}, reused blocks {blocks}: {float(lo):.3f} / "
                      f"{float(med):.3f} / {float(hi):.3f} s, {faults} faults", flush=True)


if __name__ == "__main__":
    main()
