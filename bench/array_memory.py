#!/usr/bin/env python3
"""Why a batch of ordinary arrays slows down as the process holds more memory, and why one
N x H x W array costs more than the same images as a list: filter_batch of 1,000 gray 1080p
uint8 arrays at 5 taps (and 600 colour ones), each way timed three times with the minor page
faults the batch took (getrusage), in the order a side-by-side script meets them: a list with
new results, the list into out= arrays already touched, the N x H x W array with a new result and
into a touched out=, then the list again while np.stack's copy is held. Before them: the host's
transparent huge page settings, glibc's version and the cost of touching 2 GB of fresh memory
from one thread (the page-fault floor of a new 2 GB result).

    python3 bench/array_memory.py [DEVICE]         (from the project root, after make lib)
    python3 bench/array_memory.py DEVICE peers     the stack's result four ways (gray and colour),
                                                   then the list after CuPy's transfers and a cv2
                                                   pool, and with 4 GB page-locked held
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


def stack_results(ctx, images, kx):
    """Where an N x H x W result's time goes: a new result as the binding makes it (its pages
    made present by several threads, _arrays.populate), the same without that (a fresh
    np.empty, numpy's huge-page advice on, then off), a touched out= (no faults)."""
    from tiledconv import _arrays
    stack = np.stack(images)
    touched = np.ones_like(stack)
    timed("stack, new result (populated by threads)", lambda: ctx.filter_batch(stack, kx=kx))
    timed("stack, out= touched", lambda: ctx.filter_batch(stack, kx=kx, out=touched))
    del touched
    bound = _arrays._PREFAULT_BYTES
    _arrays._PREFAULT_BYTES = 1 << 62
    timed("stack, new result, a fresh np.empty, not populated",
          lambda: ctx.filter_batch(stack, kx=kx))
    setter = getattr(np._core.multiarray if hasattr(np, "_core") else np.core.multiarray,
                     "_set_madvise_hugepage", None)
    if setter:
        old = setter(False)
        timed("stack, new result, not populated, numpy's huge-page advice off",
              lambda: ctx.filter_batch(stack, kx=kx))
        setter(old)
    _arrays._PREFAULT_BYTES = bound


def locked_held(ctx, images, kx):
    """The list batch while the context holds 4 GB of page-locked arrays (as the side-by-side
    script does when it reaches its batches), after they are freed, and on a second context."""
    stack = np.stack(images)
    locked = [ctx.empty_like(stack), ctx.empty_like(stack)]
    timed("gray 1000 list, new results, 2 x 2 GB page-locked held",
          lambda: ctx.filter_batch(images, kx=kx))
    del locked
    timed("gray 1000 list, new results, page-locked freed",
          lambda: ctx.filter_batch(images, kx=kx))
    with tiledconv.Context(sys.argv[1]) as other:
        timed("gray 1000 list, new results, a second context",
              lambda: other.filter_batch(images, kx=kx))


def after_peers(ctx, images, kx):
    """The list batch again after what a side-by-side script does first: CuPy's transfers and
    a 16-thread cv2 pool over the same images."""
    try:
        import cupy as cp
        import cv2
    except ImportError as e:
        print(f"after peers: skipped ({e})")
        return
    from concurrent.futures import ThreadPoolExecutor
    d = cp.asarray(images[0])
    for _ in range(30):
        d.set(images[0])
        d.get()
    with ThreadPoolExecutor(16) as pool:
        for _ in range(3):
            list(pool.map(lambda a: cv2.GaussianBlur(a, (5, 5), 0), images))
    timed("gray 1000 list, new results, after CuPy and a cv2 pool",
          lambda: ctx.filter_batch(images, kx=kx))
    bound = _arrays_module()._PREFAULT_BYTES
    _arrays_module()._PREFAULT_BYTES = 1 << 62
    timed("gray 1000 list, new results, after CuPy and a cv2 pool, not populated",
          lambda: ctx.filter_batch(images, kx=kx))
    _arrays_module()._PREFAULT_BYTES = bound


def _arrays_module():
    from tiledconv import _arrays
    return _arrays


def main():
    device = sys.argv[1] if len(sys.argv) > 1 else "gpu"
    if len(sys.argv) > 2 and sys.argv[2] == "peers":
        rng = np.random.default_rng(5)
        kx = tiledconv.named_filter("gauss", 5)[0]
        g = rng.integers(0, 256, (1080, 1920), dtype=np.uint8)
        images = [np.roll(g, i, axis=1) for i in range(1000)]
        with tiledconv.Context(device) as ctx:
            timed("gray 1000 list, new results", lambda: ctx.filter_batch(images, kx=kx))
            stack_results(ctx, images, kx)
            c = rng.integers(0, 256, (1080, 1920, 3), dtype=np.uint8)
            colour = [np.roll(c, i, axis=1) for i in range(600)]
            timed("colour 600 list, new results", lambda: ctx.filter_batch(colour, kx=kx))
            stack_results(ctx, colour, kx)
            del colour
            after_peers(ctx, images, kx)
            locked_held(ctx, images, kx)
        return
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
