#!/usr/bin/env python3
"""tiledconv from Python on the arrays people have, beside the peers a Python user would call
instead, in one Python process, with the targets' ratios.

    python3 bench/python_arrays.py OUTDIR [--peers DIR] [--device gpu] [--size 1920x1080]
                                  [--calls 30] [--batch 1000] [--quick] [--timed]

Measures, medians of --calls calls after three warm-up calls (a new array back each call):
  - one gray H x W uint8 image per call at 3, 5, 7, 9, 15 and 31 taps (gauss without a sigma:
    cv2.GaussianBlur's kernel), and one colour H x W x 3 image;
  - filter_batch of --batch gray images (and colour) at 5 and 31 taps (a list of arrays, all in
    memory first; the median of five batch calls after a warm-up of eight images);
  - the peers of array_peers.py (the project's shared peers folder, copied to DIR, default
    .peers), imported into this process and run as they are: cv2.GaussianBlur and
    cv2.sepFilter2D with cv2's threads, CuPy with its transfers, a pool of threads over
    cv2.GaussianBlur for batches, the pinned transfer floors and CuPy's bare pageable round
    trip; peers that cannot run here (no cv2, no CuPy) are "n/a";
  - a CuPy batch: array_peers.py's CuPy call over the batch's images, one after another;
  - the page-locked way (Context.empty_like): gray and colour at 5 and 31 taps, one image per
    call in the context's page-locked memory (a new result; and out= page-locked too), and
    the batch with every image and result page-locked; the time to make those arrays, and the
    library's count of images moved with no staging copy (it must be every one);
  - one gray call at 5 taps with the staging chunk swept (the library's staging-chunk setting);
  - a profile of one call: Python, the ctypes call, the device's transfers, conversions and
    kernels (profiling events), the host's copies into and out of pinned memory (estimated by
    copying the same bytes), and the rest (enqueues, waits); and of one page-locked call;
  - gauss without a sigma against cv2.getGaussianKernel at every length, where cv2 imports.

Prints the table with the ratios against the targets and writes OUTDIR/python_arrays.json,
OUTDIR/python_arrays.txt (the table) and OUTDIR/peers-*.txt (array_peers.py's own lines).
--quick: 320 x 240, 5 taps alone, 5 calls, batches of 20, a 2-thread pool: a check that runs
on PoCL.
--timed: tiledconv's context made with timing=True (the default is False, as Context()'s;
its profile lines are timed either way). --untimed: the default, said explicitly.
"""

import argparse
import contextlib
import importlib.util
import io
import json
import os
import re
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
try:
    import tiledconv
except ImportError:  # from the checkout: the package in python/, the library in build/lib
    sys.path.insert(0, str(ROOT / "python"))
    import tiledconv
# The library's study settings and its count of transfers with no staging (not the API).
from tiledconv._native import direct_transfers, tune

CALL_TAPS = (3, 5, 7, 9, 15, 31)
BATCH_TAPS = (5, 31)
BATCH_TRIES = 5  # a batch's time: the median of five calls (the first also makes out='s pages)


def median_ms(fn, calls):
    """array_peers.py's timing: three warm-up calls, then the median of `calls`."""
    for _ in range(3):
        fn()
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    times.sort()
    return times[len(times) // 2]


def load_peers(folder):
    """array_peers.py as a module, or (None, why)."""
    path = Path(folder) / "array_peers.py"
    if not path.exists():
        return None, f"{path} not found"
    spec = importlib.util.spec_from_file_location("array_peers", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except ImportError as e:  # array_peers imports cv2 at its top
        return None, f"array_peers.py cannot run here: {e}"
    return module, None


def run_peers(peers, args, out_dir, name):
    """array_peers.main() with these arguments, in this process; its lines, also kept in
    OUTDIR/peers-NAME.txt."""
    saved = sys.argv
    sys.argv = ["array_peers.py"] + args
    text = io.StringIO()
    try:
        with contextlib.redirect_stdout(text):
            peers.main()
    finally:
        sys.argv = saved
    (out_dir / f"peers-{name}.txt").write_text(text.getvalue())
    return text.getvalue()


def parse_peers(text):
    """{(what, taps): value} from array_peers.py's lines (ms per call, s per batch)."""
    found = {}
    for line in text.splitlines():
        m = re.match(r"per call (.+) (\d+) taps ([\d.]+) ms", line)
        if m:
            found[(m.group(1), int(m.group(2)))] = float(m.group(3))
        m = re.match(r"batch \d+ cv2 pool of \d+ (\d+) taps ([\d.]+) s", line)
        if m:
            found[("cv2 pool", int(m.group(1)))] = float(m.group(2))
        m = re.match(r"floor pinned up ([\d.]+) ms, down ([\d.]+) ms, sum ([\d.]+) ms; CuPy "
                     r"bare pageable round trip ([\d.]+) ms", line)
        if m:
            found["floor up"], found["floor down"] = float(m.group(1)), float(m.group(2))
            found["floor"], found["bare"] = float(m.group(3)), float(m.group(4))
    return found


def cupy_batch_s(images, n):
    """array_peers.py's CuPy call (correlate1d on each axis, mode 'nearest', rounded and
    clipped to uint8, .get()) over every image, one after another; None without CuPy."""
    try:
        import cupy as cp
        import cupyx.scipy.ndimage as nd
    except ImportError:
        return None
    k = np.array([1.0])
    for _ in range(n - 1):
        k = np.convolve(k, [1.0, 1.0])
    kd = cp.asarray((k / k.sum()).astype(np.float32))

    def call(image):
        x = cp.asarray(image).astype(cp.float32)
        y = nd.correlate1d(x, kd, axis=1, mode="nearest")
        y = nd.correlate1d(y, kd, axis=0, mode="nearest")
        return cp.clip(cp.rint(y), 0, 255).astype(cp.uint8).get()
    for image in images[:3]:
        call(image)
    t = time.perf_counter()
    for image in images:
        call(image)
    return time.perf_counter() - t


def locked_way(ctx, image, images, outs, calls):
    """The page-locked way (Context.empty_like): one image per call and the batch with the
    images, and the results (out=), in the context's page-locked memory, so that the library
    moves them with no staging copy. `images` are the batch's ordinary images, `outs` their
    results at the last of BATCH_TAPS, which the page-locked batch must equal byte for byte.
    Returns {key: figure}: per call "in N" (a page-locked image, a new ordinary result) and
    "both N" (out= page-locked too) in ms; "batch N" in s; "alloc s" and "alloc bytes" (making
    every page-locked array of the batch); "direct up", "direct down" (the images the library
    moved with no staging copy during the timed batches, and "direct expected")."""
    found = {}
    src, dst = ctx.empty_like(image), ctx.empty_like(image)
    src[...] = image
    for n in BATCH_TAPS:
        k = tiledconv.named_filter("gauss", n)[0]
        found[f"in {n}"] = median_ms(lambda: ctx.filter(src, kx=k, ky=k), calls)
        found[f"both {n}"] = median_ms(lambda: ctx.filter(src, kx=k, ky=k, out=dst), calls)
        assert np.array_equal(dst, ctx.filter(image, kx=k, ky=k)), "page-locked bytes differ"
    t = time.perf_counter()
    locked = [ctx.empty_like(image) for _ in images]
    locked_outs = [ctx.empty_like(image) for _ in images]
    found["alloc s"] = time.perf_counter() - t
    found["alloc bytes"] = 2 * len(images) * image.nbytes
    for p, i in zip(locked, images):
        p[...] = i
    before = direct_transfers(ctx)
    for n in BATCH_TAPS:
        k = tiledconv.named_filter("gauss", n)[0]
        ctx.filter_batch(locked[:8], kx=k, ky=k, out=locked_outs[:8])
        times = []
        for _ in range(BATCH_TRIES):
            t = time.perf_counter()
            ctx.filter_batch(locked, kx=k, ky=k, out=locked_outs)
            times.append(time.perf_counter() - t)
        found[f"batch {n}"] = sorted(times)[BATCH_TRIES // 2]
    after = direct_transfers(ctx)
    found["direct up"], found["direct down"] = after[0] - before[0], after[1] - before[1]
    found["direct expected"] = len(BATCH_TAPS) * (BATCH_TRIES * len(images) + min(8, len(images)))
    # The same bytes as the ordinary batch, on ten images across it.
    step = max(1, len(images) // 10)
    assert all(np.array_equal(locked_outs[i], outs[i]) for i in range(0, len(images), step)), \
        "the page-locked batch differs from the ordinary one"
    return found


class _NoCall:
    """The library with tc_filter_image doing nothing, to time the binding's own Python."""

    def __init__(self, lib):
        self._lib = lib

    def __getattr__(self, name):
        if name == "tc_filter_image":
            return lambda *args: 0
        return getattr(self._lib, name)


def profile(ctx, image, k, calls, out=None):
    """Where one call's time goes, in ms: the whole call from Python; the binding's Python
    alone (the same call with tc_filter_image doing nothing: argument checks, the result array,
    the ctypes structures); the ctypes call alone (the same structures prepared once), and
    with a new result array each call (as the whole call writes one); the device's spans
    (profiling events); the host's copies of the same bytes into and out of memory on one
    thread (np.copyto; the library shares them among its copy crew); the rest of the C call
    (enqueues, waits, and the crew's overlap, negative when the copies overlap).
    With out= (the page-locked way: image and out in the context's page-locked memory) every
    call writes out, and there are no host copies to count."""
    from tiledconv import _arrays, _native
    whole = median_ms(lambda: ctx.filter(image, kx=k, ky=k, out=out), calls)
    real = tiledconv._lib
    tiledconv._lib = _NoCall(real)
    try:
        python_alone = median_ms(lambda: ctx.filter(image, kx=k, ky=k, out=out), calls)
    finally:
        tiledconv._lib = real
    params = tiledconv._Params(k, k)
    arr, h, w, c = _arrays.checked(image)
    src, keep = _arrays.image(arr, h, w, c)
    output = _arrays.Output(arr.shape, arr.dtype, out, c)
    dst = output.image()
    handle = ctx._handle()
    lib = _native.lib
    import ctypes
    c_call = median_ms(lambda: lib.tc_filter_image(handle, ctypes.byref(src), ctypes.byref(dst),
                                                   params.ref()), calls)

    def fresh():
        out = _arrays.Output(arr.shape, arr.dtype, None, c)
        return lib.tc_filter_image(handle, ctypes.byref(src), ctypes.byref(out.image()),
                                   params.ref())
    c_fresh = median_ms(fresh, calls)
    noop = median_ms(lambda: lib.tc_version(), calls)
    s = ctx.last_stats()
    copy_to = np.empty_like(image)
    copies = 0.0 if out is not None else 2 * median_ms(lambda: np.copyto(copy_to, image), calls)
    device = s["upload_ms"] + s["convert_ms"] + s["kernel_ms_median"] + s["download_ms"]
    return {"call_ms": whole, "python_ms": whole - c_call, "python_alone_ms": python_alone,
            "c_fresh_ms": c_fresh, "ctypes_noop_ms": noop,
            "c_call_ms": c_call, "upload_ms": s["upload_ms"], "convert_ms": s["convert_ms"],
            "kernel_ms": s["kernel_ms_median"], "download_ms": s["download_ms"],
            "host_copies_ms": copies, "rest_ms": c_call - device - copies}


def fmt(v, unit="ms"):
    if v is None:
        return "n/a"
    return f"{v:.3f} {unit}" if unit == "ms" else f"{v:.3f} {unit}"


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def rfmt(r):
    return "n/a" if r is None else f"{r:.2f}"


def verdict(ok):
    return "n/a" if ok is None else ("met" if ok else "MISSED")


def call_columns(f, n, t):
    """One call's time t (ms) at n taps against its peers in f: their times (GaussianBlur,
    sepFilter2D, CuPy with transfers) and the verdict columns (/bare, <=0.75, <cv2 15+, <CuPy),
    the same for the ordinary and the page-locked ways."""
    gb, sf, cu = f.get(("cv2.GaussianBlur", n)), f.get(("cv2.sepFilter2D", n)), \
        f.get(("CuPy with transfers", n))
    bare = ratio(t, f.get("bare"))
    cv2_ok = None if n < 15 or gb is None else t < gb and t < sf
    return gb, sf, cu, (f"  {rfmt(bare):>6} "
                        f"{verdict(None if bare is None else bare <= 0.75):>7} "
                        f"{(verdict(cv2_ok) if n >= 15 else '-'):>9} "
                        f"{verdict(None if cu is None else t < cu):>7}")


def batch_columns(f, n, t, batch):
    """A batch's time t (s) at n taps against the cv2 pool's in f and the copy floor of its
    images: the pool's time and the columns x pool, target, floor, /floor, <=1.5, the same for
    the ordinary and the page-locked ways."""
    pool = f.get(("cv2 pool", n))
    floor = None if f.get("floor") is None else f["floor"] * batch / 1e3
    speedup, target = ratio(pool, t), 2.0 if n == 5 else 4.0
    over = ratio(t, floor)
    return pool, (f"{rfmt(speedup):>8}"
                  f"{verdict(None if speedup is None else speedup >= target):>8}"
                  f"{fmt(floor, 's'):>10}{rfmt(over):>8}"
                  f"{verdict(None if over is None else over <= 1.5):>7}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--peers", default=str(ROOT / ".peers"))
    ap.add_argument("--device", default=None)
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--calls", type=int, default=30)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--timed", action="store_true",
                    help="tiledconv's context made with timing=True (profiling events for its "
                         "conversions and kernels; the profile lines are timed either way)")
    ap.add_argument("--untimed", action="store_true",
                    help="timing=False, the default (Context()'s): for older commands")
    a = ap.parse_args()
    global CALL_TAPS, BATCH_TAPS
    if a.quick:  # one length: each length is programs PoCL builds (and, unoptimised, runs slowly)
        a.size, a.calls, a.batch, a.threads = "320x240", 5, 20, 2
        CALL_TAPS = BATCH_TAPS = (5,)
    out = Path(a.outdir)
    out.mkdir(parents=True, exist_ok=True)
    w, h = (int(v) for v in a.size.lower().split("x"))
    rng = np.random.default_rng(5)
    gray = rng.integers(0, 256, (h, w), dtype=np.uint8)
    colour = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    if a.timed and a.untimed:
        ap.error("--timed and --untimed: choose one")
    ctx = tiledconv.Context(a.device, timing=a.timed)
    dev = ctx.device
    lines = [f"tiledconv {tiledconv.__version__} on {dev.name} ({dev.platform_name}); "
             f"{time.strftime('%Y-%m-%d')}; {a.size} uint8, medians of {a.calls} calls after 3 "
             f"warm-up calls; batches of {a.batch}; timing={a.timed}"]
    result = {"device": dev.name, "platform": dev.platform_name, "size": a.size,
              "calls": a.calls, "batch": a.batch, "date": time.strftime("%Y-%m-%d")}

    # --- tiledconv, per call and per batch ---
    mine, locked = {}, {}
    for name, image in (("gray", gray), ("colour", colour)):
        for n in CALL_TAPS:
            k = tiledconv.named_filter("gauss", n)[0]
            mine[(name, n)] = median_ms(lambda: ctx.filter(image, kx=k, ky=k), a.calls)
            mine[(name, n, "out")] = median_ms(
                lambda: ctx.filter(image, kx=k, ky=k, out=np.empty_like(image)), a.calls)
        images = [np.roll(image, i, axis=1) for i in range(a.batch)]
        outs = [np.empty_like(image) for _ in range(a.batch)]
        for n in BATCH_TAPS:
            k = tiledconv.named_filter("gauss", n)[0]
            ctx.filter_batch(images[:8], kx=k, ky=k)
            times = []
            for _ in range(BATCH_TRIES):
                t = time.perf_counter()
                ctx.filter_batch(images, kx=k, ky=k, out=outs)
                times.append(time.perf_counter() - t)
            mine[(name, "batch", n)] = sorted(times)[BATCH_TRIES // 2]
            mine[(name, "cupy batch", n)] = cupy_batch_s(images, n)
        # Batches equal single calls, once, on a few images.
        k = tiledconv.named_filter("gauss", BATCH_TAPS[-1])[0]
        assert all(np.array_equal(o, ctx.filter(i, kx=k, ky=k))
                   for o, i in zip(ctx.filter_batch(images[:5], kx=k, ky=k), images[:5]))
        locked[name] = locked_way(ctx, image, images, outs, a.calls)
        del images, outs
    result["tiledconv"] = {" ".join(map(str, key)): v for key, v in mine.items()}
    result["page-locked"] = locked

    # --- the peers, in this process ---
    peers, why = load_peers(a.peers)
    found = {"gray": {}, "colour": {}}
    if peers is None:
        lines.append(f"peers: n/a ({why})")
    else:
        taps = ",".join(map(str, CALL_TAPS))
        for name, flag in (("gray", []), ("colour", ["--color"])):
            text = run_peers(peers, ["--size", a.size, "--taps", taps, "--batch", "0",
                                     "--calls", str(a.calls)] + flag, out, f"{name}-calls")
            found[name].update(parse_peers(text))
            text = run_peers(peers, ["--size", a.size, "--taps",
                                     ",".join(map(str, BATCH_TAPS)), "--batch", str(a.batch),
                                     "--threads", str(a.threads), "--calls", "3"] + flag, out,
                             f"{name}-batch")
            batch = parse_peers(text)
            found[name].update({k: v for k, v in batch.items() if k[0] == "cv2 pool"})
            lines.append(f"peers ({name}): " + text.splitlines()[0])
    result["peers"] = {name: {" ".join(map(str, k)) if isinstance(k, tuple) else k: v
                              for k, v in f.items()} for name, f in found.items()}

    # --- the tables: each a heading, then a row a tap count for gray, then for colour ---
    def table(heading, taps, row, after=None):
        lines.append("")
        lines.append(heading)
        for name in ("gray", "colour"):
            lines.extend(row(name, n) for n in taps)
            if after:
                lines.append(after(name))

    def call_row(name, n):
        t = mine[(name, n)]
        gb, sf, cu, verdicts = call_columns(found[name], n, t)
        return (f"{name:<14}{n:>5}{fmt(t):>12}{fmt(mine[(name, n, 'out')]):>11}"
                f"{fmt(gb):>14}{fmt(sf):>13}{fmt(cu):>10}" + verdicts)

    def floors(name):
        f = found[name]
        return (f"{'':<14}floor (pinned up + down) {fmt(f.get('floor'))}, CuPy's bare "
                f"pageable round trip {fmt(f.get('bare'))}")

    def batch_row(name, n):
        t = mine[(name, "batch", n)]
        pool, against = batch_columns(found[name], n, t, a.batch)
        cu = mine[(name, "cupy batch", n)]
        return (f"{name:<16}{n:>5}{fmt(t, 's'):>12}{fmt(pool, 's'):>11}" + against +
                f"{fmt(cu, 's'):>10}{verdict(None if cu is None else t < cu):>7}")

    table(f"{'per call':<14}{'taps':>5}{'tiledconv':>12}{'out=':>11}{'GaussianBlur':>14}"
          f"{'sepFilter2D':>13}{'CuPy':>10}  {'/bare':>6} {'<=0.75':>7} "
          f"{'<cv2 15+':>9} {'<CuPy':>7}", CALL_TAPS, call_row, floors)
    table(f"{'batch of ' + str(a.batch):<16}{'taps':>5}{'tiledconv':>12}{'cv2 pool':>11}"
          f"{'x pool':>8}{'target':>8}{'floor':>10}{'/floor':>8}{'<=1.5':>7}"
          f"{'CuPy':>10}{'<CuPy':>7}", BATCH_TAPS, batch_row)

    # --- the page-locked way: images and results in the context's page-locked memory ---
    def locked_row(name, n):
        held = locked[name]
        t = held[f"both {n}"]
        verdicts = call_columns(found[name], n, t)[3]
        return (f"{name:<14}{n:>5}{fmt(mine[(name, n)]):>11}{fmt(held[f'in {n}']):>10}"
                f"{fmt(t):>10}" + verdicts)

    def locked_batch_row(name, n):
        t = locked[name][f"batch {n}"]
        against = batch_columns(found[name], n, t, a.batch)[1]
        cu = mine[(name, "cupy batch", n)]
        return (f"{name:<27}{n:>5}{fmt(mine[(name, 'batch', n)], 's'):>11}"
                f"{fmt(t, 's'):>10}" + against +
                f"{verdict(None if cu is None else t < cu):>7}")

    table(f"{'page-locked':<14}{'taps':>5}{'ordinary':>11}{'in':>10}{'in+out':>10}"
          f"  {'/bare':>6} {'<=0.75':>7} {'<cv2 15+':>9} {'<CuPy':>7}", BATCH_TAPS, locked_row)
    table(f"{'page-locked batch of ' + str(a.batch):<27}{'taps':>5}{'ordinary':>11}"
          f"{'in+out':>10}{'x pool':>8}{'target':>8}{'floor':>10}{'/floor':>8}"
          f"{'<=1.5':>7}{'<CuPy':>7}", BATCH_TAPS, locked_batch_row)
    for name in ("gray", "colour"):
        held = locked[name]
        mb = held["alloc bytes"] / 1e6
        lines.append(f"{name} batch: its {2 * a.batch} page-locked arrays ({mb:.0f} MB) made in "
                     f"{held['alloc s']:.3f} s ({mb / max(held['alloc s'], 1e-9):.0f} MB/s); "
                     f"images moved with no staging copy in its batches: up "
                     f"{held['direct up']}, down {held['direct down']} of "
                     f"{held['direct expected']}")

    # --- the single call's chunks: the copies into pinned memory overlap the transfers ---
    lines.append("")
    k5 = tiledconv.named_filter("gauss", 5)[0]
    sweep = {}
    for chunk in ("default", 65536, 262144, 524288, 1048576, 1 << 30):
        if chunk != "default":
            tune(f"staging-chunk={chunk}")
        sweep[str(chunk)] = median_ms(lambda: ctx.filter(gray, kx=k5, ky=k5), a.calls)
        tune(None)
    result["chunk sweep gray 5 taps"] = sweep
    lines.append("one gray call at 5 taps by staging chunk (--tune staging-chunk; 1073741824: "
                 "one chunk): " + ", ".join(f"{k} {v:.3f} ms" for k, v in sweep.items()))

    # --- where one call's time goes (timed, with --timed or without: its figures are the
    # device's times) ---
    ctx.timing = True
    lines.append("")
    # The library's copy crew: half the cores this process may run on, 2..8 (src/copier.c).
    cores = len(os.sched_getaffinity(0))
    crew = 1 if cores == 1 else max(2, min(8, cores // 2))
    for name, image in (("gray", gray), ("colour", colour)):
        p = profile(ctx, image, k5, a.calls)
        result[f"profile {name}"] = p
        lines.append(
            f"one {name} call at 5 taps, {p['call_ms']:.3f} ms: Python {p['python_ms']:.3f} "
            f"(the binding's Python alone {p['python_alone_ms']:.3f}; the C call with a new "
            f"result array each call {p['c_fresh_ms']:.3f}), "
            f"the C call {p['c_call_ms']:.3f} (a ctypes call alone {p['ctypes_noop_ms']:.4f}): "
            f"upload {p['upload_ms']:.3f}, conversions {p['convert_ms']:.3f}, kernels "
            f"{p['kernel_ms']:.3f}, download {p['download_ms']:.3f} (device spans), host copies "
            f"into and out of pinned memory on one thread ~{p['host_copies_ms']:.3f} (the "
            f"library's crew: {crew} threads), the rest (enqueues, waits, overlap) "
            f"{p['rest_ms']:.3f}")
    for name, image in (("gray", gray), ("colour", colour)):
        src, dst = ctx.empty_like(image), ctx.empty_like(image)
        src[...] = image
        p = profile(ctx, src, k5, a.calls, out=dst)
        result[f"profile {name} page-locked"] = p
        lines.append(
            f"one {name} call at 5 taps, page-locked in and out (out=), {p['call_ms']:.3f} ms: "
            f"Python {p['python_ms']:.3f} (the binding's Python alone "
            f"{p['python_alone_ms']:.3f}), the C call {p['c_call_ms']:.3f}: upload "
            f"{p['upload_ms']:.3f}, conversions {p['convert_ms']:.3f}, kernels "
            f"{p['kernel_ms']:.3f}, download {p['download_ms']:.3f} (device spans), no host "
            f"copies, the rest (enqueues, waits) {p['rest_ms']:.3f}")

    # --- gauss is OpenCV's ---
    try:
        import cv2
        same = [n for n in range(3, 64, 2) if np.array_equal(
            tiledconv.named_filter("gauss", n)[0],
            cv2.getGaussianKernel(n, 0, ktype=cv2.CV_32F).ravel())]
        lines.append(f"gauss without a sigma = cv2.getGaussianKernel(n, 0) (cv2 "
                     f"{cv2.__version__}): {len(same)} of 31 lengths 3..63 equal")
        result["gauss equal lengths"] = len(same)
    except ImportError:
        lines.append("gauss against cv2.getGaussianKernel: n/a (no cv2; the tests compare "
                     "with tests/data/opencv/gaussian_kernels.txt)")

    text = "\n".join(lines) + "\n"
    print(text, end="")
    (out / "python_arrays.txt").write_text(text)
    (out / "python_arrays.json").write_text(json.dumps(result, indent=1) + "\n")
    ctx.close()


if __name__ == "__main__":
    main()
