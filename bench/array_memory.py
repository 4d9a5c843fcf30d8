#!/usr/bin/env python3
"""Why a batch of ordinary arrays slows down as the process holds more memory, and why one
N x H x W array costs more than the same images as a list: filter_batch of 1,000 gray 1080p
uint8 arrays at 5 taps (and 600 colour ones), each way timed three times with the minor page
faults the batch took (getrusage), in the order a side-by-side script meets them: a list with
new results, the list into out= arrays already touched, the N x H x W array with a new result and
into a touched out=, then the list again while np.stack's copy is held. Before them: the host's
transparent huge page settings, glibc's version and the cost of touching 2 GB of fresh memory
from one thread (the page-fault floor of a new 2 GB result).

    python3 bench/array_memory.py [DEVICE]   (from the project root, after make lib)
prints one line a measurement: case, seconds (min/median/max of 3), minor faults a batch.
"""
import os
import pathlib
import platform
import resource
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
import tiledconv  # noqa: E402  (the checkout's package)


def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def timed(name, run, tries=3):
    run()  # the first batch builds the program and the context's staging
    walls, flts = [], []
    for _ in range(tries):
        f0, t0 = faults(), time.perf_counter()
        run()
        walls.append(time.perf_counter() - t0)
        flts.append(faults() - f0)
    walls.sort()
    print(f"{name}: {walls[0]:.3f} / {walls[len(walls) // 2]:.3f} / {walls[-1]:.3f} s, "
          f"{sorted(flts)[len(flts) // 2]} minor faults a batch", flush=True)


def host():
    for knob in ("enabled", "defrag", "khugepaged/defrag"):
        path = f"/sys/kernel/mm/transparent_hugepage/{knob}"
        try:
            print(f"thp {knob}: {pathlib.Path(path).read_text().strip()}")
        except OSError as e:
            print(f"thp {knob}: {e}")
    print(f"glibc {platform.libc_ver()[1]}, cpus {os.cpu_count()}, "
          f"GLIBC_TUNABLES={os.environ.get('GLIBC_TUNABLES', '')}")
    for _ in range(2):
        f0, t0 = faults(), time.perf_counter()
        a = np.empty(2 << 30, np.uint8)
        a[::4096] = 1
        print(f"touch one fresh 2 GiB array from one thread: {time.perf_counter() - t0:.3f} s, "
              f"{faults() - f0} minor faults", flush=True)
        del a
        f0, t0 = faults(), time.perf_counter()
        a = [np.empty((1080, 1920), np.uint8) for _ in range(1000)]
        for x in a:
            x.reshape(-1)[::4096] = 1
        print(f"touch 1,000 fresh 2 MB arrays from one thread: {time.perf_counter() - t0:.3f} s, "
              f"{faults() - f0} minor faults", flush=True)
        del a


def ways(ctx, label, images, kx):
    touched = [np.ones_like(a) for a in images]
    timed(f"{label} list, new results", lambda: ctx.filter_batch(images, kx=kx))
    timed(f"{label} list, out= touched", lambda: ctx.filter_batch(images, kx=kx, out=touched))
    stack = np.stack(images)
    stack_out = np.ones_like(stack)
    timed(f"{label} N x H x W, new result", lambda: ctx.filter_batch(stack, kx=kx))
    timed(f"{label} N x H x W, out= touched",
          lambda: ctx.filter_batch(stack, kx=kx, out=stack_out))
    timed(f"{label} list, new results, np.stack held", lambda: ctx.filter_batch(images, kx=kx))
    del stack, stack_out, touched
    timed(f"{label} list, new results, np.stack freed", lambda: ctx.filter_batch(images, kx=kx))


def main():
    device = sys.argv[1] if len(sys.argv) > 1 else "gpu"
    host()
    rng = np.random.default_rng(5)
    kx = tiledconv.named_filter("gauss", 5)[0]
    with tiledconv.Context(device) as ctx:
        g = rng.integers(0, 256, (1080, 1920), dtype=np.uint8)
        ways(ctx, "gray 1000", [np.roll(g, i, axis=1) for i in range(1000)], kx)
        c = rng.integers(0, 256, (1080, 1920, 3), dtype=np.uint8)
        ways(ctx, "colour 600", [np.roll(c, i, axis=1) for i in range(600)], kx)


if __name__ == "__main__":
    main()
