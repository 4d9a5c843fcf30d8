#!/usr/bin/env python3
"""tiledconv.dask against dask-image and against one whole-image call, on images and stacks
larger than they need be in memory at once (issue 51, item 3): throughput, wall time and peak
memory, every row in a process of its own.

    python3 bench/dask_bench.py [--small] [--device gpu] [--scheduler threads]
                                [--workers N] [--cases image,stack] [--taps 5,31]
                                [--borders reflect101] [--rows source,tiledconv,dask-image,whole]
                                [--size 32768x32768] [--chunk 4096] [--frames 10000]
                                [--frame-size 1920x1080] [--frames-per-chunk 4] [--out CSV]

The cases (gray uint8, made lazily chunk by chunk from a fixed seed, never held whole by the
chunked rows):
  image   one --size image in --chunk x --chunk chunks (default 32768 x 32768 in 4096 x 4096:
          1 GiB);
  stack   --frames frames of --frame-size (W x H), --frames-per-chunk frames a chunk (default
          10,000 of 1920 x 1080 in chunks of 4: 20.7 GB).
Each is filtered with the separable gauss of each --taps length (tiledconv.named_filter) and
each --borders rule. The rows:
  source      the lazy input alone, reduced as the others are: the floor of the chunked rows
              (making the random input and reducing it);
  tiledconv   tiledconv.dask.filter(input, kx, ky, border);
  dask-image  dask_image.ndfilters.correlate twice with the same weights (1 x n, then n x 1;
              dask-image has no correlate1d) on the input as float32, then rounded and
              clipped to uint8 (on the CPU: SciPy in each chunk, through map_overlap);
  whole       one tiledconv call on the input made whole in memory first (image: filter;
              stack: filter_batch of the N x H x W array), when twice the input fits in half
              the host's available memory; its time is the call's alone (gen_s: making the
              input).
The chunked rows reduce each output chunk to its CRC-32 (so no result is held whole), and are
timed after a warm-up on a small array of the same chunks, one a worker (setup_s, the
warm-up's time: the contexts opened and the programs built in the workers; the processes
scheduler's workers started, not a LocalCluster's, started before). The parent runs each row in a child process and reads the child's
ru_maxrss (wait4; with --scheduler processes or distributed, the largest single process of the
child's tree) and the whole tree's resident memory sampled every 0.1 s (tree_peak_mb).

Checks: the CRC-32 grid of tiledconv.dask's chunks against the whole call's over the same
chunks (every byte of the output; "same" or how many chunks differ), and in the tiledconv row a
band of one chunk's height in the middle of the input computed both ways (the chunked result
against tiledconv's call on the band and its halo rows); the dask-image row gives its largest
difference from tiledconv's call on that band (rounding: not bit for bit).

--device: tiledconv.dask.filter's device= (each worker thread or process opens its context
there). --scheduler: threads (a pool of --workers threads), processes (--workers
processes, spawned) or distributed (a LocalCluster of --workers processes of one thread).
--small: 2048 x 2048 in 512 chunks and 40 frames of 320 x 256 in chunks of 4, for PoCL.

Needs numpy and the tiledconv package (PYTHONPATH=python, or found from the checkout); the
chunked rows need dask (the processes and distributed schedulers: distributed for the latter),
the dask-image row dask-image; the script says which are missing and runs the rest. On the GPU
machine, from the carried wheels (bench/README.md):
    pip install --no-index --find-links .carry/wheels dask distributed dask-image
"""

import argparse
import csv
import importlib
import json
import os
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
try:
    import tiledconv
except ImportError:  # from the checkout: the package in python/, the library in build/lib
    sys.path.insert(0, str(ROOT / "python"))
    import tiledconv

ROWS = ("source", "tiledconv", "dask-image", "whole")
COLUMNS = ("case", "row", "taps", "border", "scheduler", "workers", "shape", "chunks", "mbytes",
           "setup_s", "wall_s", "mb_s", "gen_s", "peak_rss_mb", "tree_peak_mb", "same_bytes",
           "band_check", "note")
# The library's border names as SciPy's modes (dask-image's).
SCIPY_MODE = {"reflect101": "mirror", "replicate": "nearest", "reflect": "reflect",
              "wrap": "wrap", "constant": "constant"}


# ---- What is installed ------------------------------------------------------------------------
def modules():
    """{name: version or None (missing) or 'broken: why'} for dask, distributed, dask_image."""
    found = {}
    for name in ("dask", "distributed", "dask_image"):
        try:
            m = importlib.import_module(name)
            version = getattr(m, "__version__", None)
            if version is None:
                try:
                    from importlib.metadata import version as dist_version
                    version = dist_version(name.replace("_", "-"))
                except Exception:  # noqa: BLE001
                    version = "?"
            if name == "dask_image":
                importlib.import_module("dask_image.ndfilters")
            found[name] = version
        except ImportError as e:
            found[name] = None if isinstance(e, ModuleNotFoundError) and e.name == name \
                else f"broken: {e}"
        except Exception as e:  # noqa: BLE001  (a version clash raises anything)
            found[name] = f"broken: {type(e).__name__}: {e}"
    return found


# ---- The input, made chunk by chunk from a seed ------------------------------------------------
def spans(total, step):
    """The chunk sizes of one axis."""
    return tuple(min(step, total - s) for s in range(0, total, step))


def make_block(seed, index, shape):
    """The input's chunk at chunk index `index` (a tuple): the same bytes however it is made.
    SFC64's raw words as bytes: 2.5-3.5 GB/s a thread (Generator.integers of uint8 made
    0.3 GB/s, a floor that would have hidden the device's rows)."""
    n = int(np.prod(shape))
    words = np.random.SFC64([seed, *index]).random_raw((n + 7) // 8)
    return words.view(np.uint8)[:n].reshape(shape)


def case_geometry(spec):
    """(shape, chunks as per-axis size tuples) of the case."""
    if spec["case"] == "image":
        h, w = spec["shape"]
        c = spec["chunk"]
        return (h, w), (spans(h, c), spans(w, c))
    n, h, w = spec["shape"]
    return (n, h, w), (spans(n, spec["chunk"]), (h,), (w,))


def lazy_input(spec, shape=None, chunks=None):
    import dask.array as da
    if shape is None:
        shape, chunks = case_geometry(spec)
    seed = spec["seed"]

    def block(block_id=None, block_info=None):
        return make_block(seed, block_id, block_info[None]["chunk-shape"])

    return da.map_blocks(block, dtype=np.uint8, chunks=chunks,
                         meta=np.empty((0,) * len(shape), np.uint8))


def whole_input(spec):
    """The input made whole in memory, chunk by chunk as the lazy one makes it."""
    shape, chunks = case_geometry(spec)
    a = np.empty(shape, np.uint8)
    for index, region in chunk_regions(chunks):
        a[region] = make_block(spec["seed"], index, a[region].shape)
    return a


def chunk_regions(chunks):
    """(chunk index, tuple of slices) for every chunk, in C order."""
    starts = [np.cumsum((0,) + c[:-1]) for c in chunks]
    for index in np.ndindex(*[len(c) for c in chunks]):
        yield index, tuple(slice(int(starts[a][i]), int(starts[a][i]) + chunks[a][i])
                           for a, i in enumerate(index))


def crc_block(b):
    return np.full((1,) * b.ndim, zlib.crc32(np.ascontiguousarray(b)), np.uint32)


def crc_grid_lazy(x):
    return x.map_blocks(crc_block, chunks=tuple((1,) * len(c) for c in x.chunks),
                        dtype=np.uint32)


def crc_grid(a, chunks):
    grid = np.zeros([len(c) for c in chunks], np.uint32)
    for index, region in chunk_regions(chunks):
        grid[index] = zlib.crc32(np.ascontiguousarray(a[region]))
    return grid


class Scheduler:
    """compute() on --workers threads, spawned processes, or a LocalCluster, the same pool for
    the warm-up and the timed run."""

    def __init__(self, kind, workers):
        import dask
        self.kind, self.dask = kind, dask
        self.client = None
        if kind == "threads":
            from concurrent.futures import ThreadPoolExecutor
            self.pool = ThreadPoolExecutor(workers)
        elif kind == "processes":
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor
            self.pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(
                "spawn"))
        else:
            from distributed import Client, LocalCluster
            self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1,
                                        processes=True, dashboard_address=None)
            self.client = Client(self.cluster)

    def compute(self, x):
        if self.client is not None:
            return self.client.compute(x).result()
        return x.compute(scheduler=self.kind, pool=self.pool)

    def close(self):
        if self.client is not None:
            self.client.close()
            self.cluster.close()
        else:
            self.pool.shutdown()


# ---- One row, in a child process ----------------------------------------------------------------
def weights(taps):
    kx, ky = tiledconv.named_filter("gauss", taps)
    return np.asarray(kx, np.float64), np.asarray(ky, np.float64)


def chunked(spec, x):
    """The row's lazy result of the lazy input x."""
    if spec["row"] == "source":
        return x
    kx, ky = weights(spec["taps"])
    if spec["row"] == "tiledconv":
        import tiledconv.dask as tdask
        return tdask.filter(x, kx=kx, ky=ky, border=spec["border"], device=spec["device"])
    if spec["row"] == "dask-image":
        import dask.array as da
        from dask_image import ndfilters
        lead = (1,) * (x.ndim - 2)
        mode = SCIPY_MODE[spec["border"]]
        y = x.astype(np.float32)
        y = ndfilters.correlate(y, kx.astype(np.float32).reshape(lead + (1, -1)), mode=mode)
        y = ndfilters.correlate(y, ky.astype(np.float32).reshape(lead + (-1, 1)), mode=mode)
        return da.clip(da.rint(y), 0, 255).astype(np.uint8)
    raise ValueError(f"no chunked row {spec['row']!r}")


def whole_call(ctx, spec, a):
    kx, ky = weights(spec["taps"])
    if a.ndim == 2:
        return ctx.filter(a, kx=kx, ky=ky, border=spec["border"])
    return ctx.filter_batch(a, kx=kx, ky=ky, border=spec["border"])


def band(spec, x, y):
    """(band result of y, tiledconv's call on the band of x with its halo): a band of one chunk
    in the middle of the input (image: rows, full width; stack: one chunk of frames)."""
    shape, chunks = case_geometry(spec)
    rows = chunks[0]
    i = len(rows) // 2
    r0 = sum(rows[:i])
    r1 = r0 + rows[i]
    with tiledconv.Context(spec["device"]) as ctx:
        if spec["case"] == "image":
            halo = (spec["taps"] - 1) // 2
            h0, h1 = max(0, r0 - halo), min(shape[0], r1 + halo)
            ref = whole_call(ctx, spec, np.asarray(x[h0:h1].compute(scheduler="threads")))
            ref = ref[r0 - h0:r0 - h0 + (r1 - r0)]
        else:
            ref = whole_call(ctx, spec, np.asarray(x[r0:r1].compute(scheduler="threads")))
    return np.asarray(y[r0:r1].compute(scheduler="threads")), ref, (r0, r1)


def warm_input(spec):
    """A small lazy input of the case's chunks, one chunk a worker at least."""
    shape, chunks = case_geometry(spec)
    w = spec["workers"]
    if spec["case"] == "image":
        c = spec["chunk"]
        n = min(w, len(chunks[1]))
        return lazy_input(spec, (min(c, shape[0]), c * n), ((min(c, shape[0]),), (c,) * n))
    f = spec["chunk"]
    return lazy_input(spec, (f * w,) + shape[1:], ((f,) * w, (shape[1],), (shape[2],)))


def child(spec):
    """Runs one row; prints its record as one JSON line."""
    shape, chunks = case_geometry(spec)
    rec = {"setup_s": "", "gen_s": "", "same_bytes": "", "band_check": "", "note": ""}
    if spec["row"] == "whole":
        t0 = time.perf_counter()
        a = whole_input(spec)
        rec["gen_s"] = time.perf_counter() - t0
        with tiledconv.Context(spec["device"]) as ctx:
            warm = a[: chunks[0][0]]
            whole_call(ctx, spec, warm)  # the program built, the device set up: untimed
            t0 = time.perf_counter()
            out = whole_call(ctx, spec, a)
            rec["wall_s"] = time.perf_counter() - t0
        del a
        rec["crc"] = crc_grid(out, chunks).tolist()
        print(json.dumps(rec), flush=True)
        return
    sched = Scheduler(spec["scheduler"], spec["workers"])
    try:
        t0 = time.perf_counter()
        sched.compute(crc_grid_lazy(chunked(spec, warm_input(spec))))
        rec["setup_s"] = time.perf_counter() - t0
        x = lazy_input(spec)
        y = chunked(spec, x)
        t0 = time.perf_counter()
        grid = sched.compute(crc_grid_lazy(y))
        rec["wall_s"] = time.perf_counter() - t0
        rec["crc"] = np.asarray(grid).tolist()
    finally:
        sched.close()
    if spec["row"] == "tiledconv":
        got, ref, (r0, r1) = band(spec, x, y)
        rec["band_check"] = (f"band {r0}:{r1} " +
                             ("same" if np.array_equal(got, ref) else "DIFFERS"))
    elif spec["row"] == "dask-image":
        got, ref, (r0, r1) = band(spec, x, y)
        d = np.abs(got.astype(np.int16) - ref.astype(np.int16))
        rec["band_check"] = (f"band {r0}:{r1} vs tiledconv: max diff {int(d.max())}, "
                             f"{100.0 * np.count_nonzero(d) / d.size:.2f} % differ")
    print(json.dumps(rec), flush=True)


# ---- The parent: a child a row, its memory ---------------------------------------------------
def tree_rss(root):
    """The resident bytes of root and all its descendants, from /proc."""
    children, rss = {}, {}
    page = os.sysconf("SC_PAGE_SIZE")
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
            with open(f"/proc/{d}/statm") as f:
                rss[int(d)] = int(f.read().split()[1]) * page
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(d))
    total, todo = 0, [root]
    while todo:
        p = todo.pop()
        total += rss.get(p, 0)
        todo.extend(children.get(p, ()))
    return total


def run_child(spec):
    """(record, ru_maxrss MB, sampled tree peak MB, stderr tail) of one row in a child."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "python") + (os.pathsep + env["PYTHONPATH"]
                                                if env.get("PYTHONPATH") else "")
    p = subprocess.Popen([sys.executable, __file__, "--child", json.dumps(spec)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    peak = [0]
    done = threading.Event()

    def sample():
        while not done.wait(0.1):
            peak[0] = max(peak[0], tree_rss(p.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out_err = {}

    def drain(name, stream):
        out_err[name] = stream.read()

    readers = [threading.Thread(target=drain, args=(n, s)) for n, s in
               (("out", p.stdout), ("err", p.stderr))]
    for t in readers:
        t.start()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    done.set()
    for t in readers:
        t.join()
    sampler.join()
    rec = None
    for line in reversed(out_err["out"].splitlines()):
        if line.startswith("{"):
            rec = json.loads(line)
            break
    err_tail = " | ".join(out_err["err"].strip().splitlines()[-3:])
    if p.returncode != 0 or rec is None:
        rec = None
    return rec, usage.ru_maxrss / 1024.0, peak[0] / 2**20, err_tail


def mem_available():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def parse_size(text):
    w, h = (int(v) for v in text.lower().split("x"))
    return w, h


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--small", action="store_true",
                    help="2048 x 2048 in 512 chunks, 40 frames of 320 x 256 (PoCL)")
    ap.add_argument("--device", default="gpu", help="tiledconv's device [gpu]")
    ap.add_argument("--scheduler", default="threads",
                    choices=("threads", "processes", "distributed"))
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="threads or processes [the CPUs]")
    ap.add_argument("--cases", default="image,stack")
    ap.add_argument("--taps", default="5,31")
    ap.add_argument("--borders", default="reflect101")
    ap.add_argument("--rows", default=",".join(ROWS))
    ap.add_argument("--size", default=None, help="the image's W x H [32768x32768]")
    ap.add_argument("--chunk", type=int, default=None, help="the image's chunk side [4096]")
    ap.add_argument("--frames", type=int, default=None, help="the stack's frames [10000]")
    ap.add_argument("--frame-size", default=None, help="a frame's W x H [1920x1080]")
    ap.add_argument("--frames-per-chunk", type=int, default=None, help="[4]")
    ap.add_argument("--seed", type=int, default=51)
    ap.add_argument("--out", default=None, help="CSV of the rows")
    a = ap.parse_args()
    if a.child:
        child(json.loads(a.child))
        return 0

    small = a.small
    iw, ih = parse_size(a.size or ("2048x2048" if small else "32768x32768"))
    chunk = a.chunk or (512 if small else 4096)
    frames = a.frames or (40 if small else 10000)
    fw, fh = parse_size(a.frame_size or ("320x256" if small else "1920x1080"))
    per = a.frames_per_chunk or 4
    cases = [c for c in a.cases.split(",") if c]
    rows = [r for r in a.rows.split(",") if r]
    for r in rows:
        if r not in ROWS:
            ap.error(f"--rows: no row {r!r} ({', '.join(ROWS)})")
    for c in cases:
        if c not in ("image", "stack"):
            ap.error(f"--cases: no case {c!r} (image, stack)")
    taps = [int(t) for t in a.taps.split(",") if t]
    borders = [b for b in a.borders.split(",") if b]
    for b in borders:
        if b not in SCIPY_MODE:
            ap.error(f"--borders: {b!r} is not one of {', '.join(SCIPY_MODE)}")

    found = modules()
    def state(name):
        v = found[name]
        return f"{name} {v}" if v and not v.startswith("broken") else \
            f"{name} MISSING" + (f" ({v})" if v else "")
    missing = [n for n, v in found.items() if not v or v.startswith("broken")]
    print(f"dask_bench: {state('dask')}, {state('distributed')}, {state('dask_image')}; "
          f"numpy {np.__version__}; python {sys.version.split()[0]}", flush=True)
    if missing:
        print(f"dask_bench: missing: {', '.join(missing)}; on the GPU machine: pip install "
              f"--no-index --find-links .carry/wheels dask distributed dask-image", flush=True)
    skip = {}
    if not found["dask"] or found["dask"].startswith("broken"):
        for r in ("source", "tiledconv", "dask-image"):
            skip[r] = "no dask"
    elif not found["dask_image"] or found["dask_image"].startswith("broken"):
        skip["dask-image"] = "no dask-image"
    if a.scheduler == "distributed" and (not found["distributed"]
                                         or found["distributed"].startswith("broken")):
        for r in ("source", "tiledconv", "dask-image"):
            skip.setdefault(r, "no distributed")
    with tiledconv.Context(a.device) as ctx:
        device_name = ctx.device.name
    print(f"dask_bench: tiledconv on {a.device}: {device_name}; {a.scheduler} scheduler, "
          f"{a.workers} workers; {os.cpu_count()} CPUs, "
          f"{mem_available() / 2**30:.1f} GiB available", flush=True)

    records = []
    writer = None
    out_file = None
    if a.out:
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        out_file = open(a.out, "w", newline="")
        out_file.write(f"# bench/dask_bench.py {' '.join(sys.argv[1:])}; {device_name}; "
                       f"{time.strftime('%Y-%m-%d %H:%M')}\n")
        writer = csv.DictWriter(out_file, COLUMNS)
        writer.writeheader()
    header = (f"{'case':6} {'row':10} {'taps':>4} {'border':10} {'MB':>8} {'wall s':>8} "
              f"{'MB/s':>8} {'setup s':>7} {'gen s':>6} {'maxrss MB':>9} {'tree MB':>8}  check")
    print(header, flush=True)
    failed = False
    for case in cases:
        if case == "image":
            spec0 = dict(case="image", shape=(ih, iw), chunk=chunk)
        else:
            spec0 = dict(case="stack", shape=(frames, fh, fw), chunk=per)
        spec0.update(seed=a.seed, device=a.device, scheduler=a.scheduler, workers=a.workers)
        shape, chunks = case_geometry(spec0)
        nbytes = int(np.prod(shape))
        combos = [(t, b) for t in taps for b in borders]
        for taps_, border in ([(0, "-")] if "source" in rows else []) + combos:
            whole_grid = None
            tc_grid = None
            for row in ROWS:
                if row not in rows or (row == "source") != (taps_ == 0):
                    continue
                spec = dict(spec0, row=row, taps=taps_, border=border)
                rec = {"case": case, "row": row, "taps": taps_ or "", "border": border,
                       "scheduler": a.scheduler if row != "whole" else "-",
                       "workers": a.workers if row != "whole" else 1,
                       "shape": "x".join(map(str, shape)),
                       "chunks": "x".join(str(c[0]) for c in chunks),
                       "mbytes": round(nbytes / 1e6, 1)}
                why = skip.get(row)
                if row == "whole" and 2 * nbytes > mem_available() / 2:
                    why = (f"2 x {nbytes / 2**30:.1f} GiB does not fit in half of "
                           f"{mem_available() / 2**30:.1f} GiB available")
                if why:
                    rec["note"] = f"skipped: {why}"
                    print(f"{case:6} {row:10} {taps_ or '':>4} {border:10} skipped: {why}",
                          flush=True)
                else:
                    res, maxrss, tree, err = run_child(spec)
                    if res is None:
                        failed = True
                        rec["note"] = f"failed: {err}"
                        print(f"{case:6} {row:10} {taps_ or '':>4} {border:10} FAILED: {err}",
                              flush=True)
                    else:
                        grid = res.pop("crc")
                        rec.update(res)
                        rec["mb_s"] = round(nbytes / 1e6 / res["wall_s"], 1)
                        rec["peak_rss_mb"] = round(maxrss, 1)
                        rec["tree_peak_mb"] = round(tree, 1)
                        for k in ("wall_s", "setup_s", "gen_s"):
                            if rec[k] != "":
                                rec[k] = round(rec[k], 3)
                        if row == "whole":
                            whole_grid = grid
                        elif row == "tiledconv":
                            tc_grid = grid
                        if row in ("whole", "tiledconv") and whole_grid is not None \
                                and tc_grid is not None:
                            diff = int(np.count_nonzero(np.asarray(whole_grid)
                                                        != np.asarray(tc_grid)))
                            rec["same_bytes"] = ("same" if diff == 0 else
                                                 f"{diff} of {np.size(tc_grid)} chunks differ")
                            failed |= diff != 0
                        if "DIFFERS" in str(rec.get("band_check", "")):
                            failed = True
                        check = "; ".join(str(v) for v in (rec.get("same_bytes"),
                                                           rec.get("band_check")) if v)
                        if row == "whole" and rec["same_bytes"]:
                            check = f"chunked tiledconv against whole: {rec['same_bytes']}"
                        print(f"{case:6} {row:10} {taps_ or '':>4} {border:10} "
                              f"{nbytes / 1e6:8.1f} {rec['wall_s']:8.3f} {rec['mb_s']:8.1f} "
                              f"{rec['setup_s'] if rec['setup_s'] != '' else '-':>7} "
                              f"{rec['gen_s'] if rec['gen_s'] != '' else '-':>6} "
                              f"{maxrss:9.1f} {tree:8.1f}  {check}", flush=True)
                records.append(rec)
                if writer:
                    writer.writerow({k: rec.get(k, "") for k in COLUMNS})
                    out_file.flush()
    if out_file:
        out_file.close()
        print(f"dask_bench: {len(records)} rows in {a.out}", flush=True)
    print("dask_bench: MB = 1e6 bytes = Mpixel (gray uint8); wall s of the chunked rows: the "
          "whole graph (input made, filtered, reduced to CRC-32s); whole: the call alone",
          flush=True)
    if failed:
        print("dask_bench: FAILED (a row failed or a result differs)", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
