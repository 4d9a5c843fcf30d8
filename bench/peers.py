#!/usr/bin/env python3
"""bench/peers.py - tiledconv against other GPU implementations of the same separable filter.

For each size (default 8192x8192; --big adds 16384x16384) and filter size (3 and 5; binomial
[1,2,1]/4 and [1,4,6,4,1]/16, the same both directions, replicate border) this times:

  cupy-correlate     cupyx.scipy.ndimage.correlate, 2-D outer-product kernel, mode='nearest'
  cupy-correlate1d   cupyx.scipy.ndimage.correlate1d twice (axis=1, then axis=0), mode='nearest'
  opencv-ocl         cv2.sepFilter2D on a cv2.UMat (OpenCL), CV_32F, BORDER_REPLICATE; host wall
                     clock from the call to cv2.ocl.finish()
  torch-conv2d       F.pad(mode='replicate') + F.conv2d, 1 channel float32, cuDNN (TF32 off);
                     pad and conv timed together

CuPy and PyTorch are timed with their own CUDA events around each call, after warm-up: median
and min of N calls (default 50). Then it runs
  tiledconv --device gpu -g WxH -f TAPS -t -i N --no-output --json -a all
and reads tiledconv's own kernel times (OpenCL profiling events, median and min of N).

The input is tiledconv's -g synthetic image (synth.c), made here with the same uint32 formula.

Correctness: on a 1024x768 synthetic image, each peer's output is compared with tiledconv's:
its float plane when tiledconv has --raw, else its 8-bit BMP (peer rounded as floor(clip(v,0,255)
+0.5), tolerance +-1). tiledconv's own rows 'agree' when its -e check against the CPU reference
passed. A peer that is missing (module or GPU) is skipped with a note; every section catches its
errors, prints them and goes on.

Output: a table per size on stdout, and peers.csv / peers.json in --out (default $OUT, else
./bench-out).
"""

import argparse
import csv
import json
import math
import os
import platform
import shlex
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import traceback

try:
    import numpy as np
except Exception as e:  # noqa: BLE001 - without NumPy nothing here can run
    print(f"peers.py: NumPy is required: {e}", flush=True)
    sys.exit(1)


def log(*a):
    print(*a, flush=True)


def warn(section, exc):
    log(f"  [{section}] {type(exc).__name__}: {exc}")
    tb = traceback.format_exc(limit=3)
    if os.environ.get("PEERS_TRACEBACK"):
        log(tb)


# ---------------------------------------------------------------- input and filter

def kernel1d(taps):
    if taps == 3:
        return np.array([1, 2, 1], dtype=np.float32) / np.float32(4)
    if taps == 5:
        return np.array([1, 4, 6, 4, 1], dtype=np.float32) / np.float32(16)
    raise ValueError(f"taps {taps}: only 3 or 5")


def synth(width, height, xp=np):
    """tiledconv's -g image (synth.c): 0.5*((x+2y) & 255) + 0.5*(lowbias32(x*0x9e3779b1 ^ y) & 255)."""
    u = xp.uint32
    x = xp.arange(width, dtype=xp.uint32)[None, :]
    y = xp.arange(height, dtype=xp.uint32)[:, None]
    ramp = (x + y * u(2)) & u(255)
    v = (x * u(0x9E3779B1)) ^ y
    v ^= v >> u(16)
    v *= u(0x7FEB352D)
    v ^= v >> u(15)
    v *= u(0x846CA68B)
    v ^= v >> u(16)
    v &= u(255)
    v += ramp          # at most 510: no overflow; halves of integers are exact in float32
    del ramp
    return v.astype(xp.float32) * xp.float32(0.5)


def reference(img, k):
    """Float64 separable correlation with replicate border (the CPU check of last resort)."""
    r = len(k) // 2
    p = np.pad(img.astype(np.float64), r, mode="edge")
    h, w = img.shape
    tmp = sum(float(k[i]) * p[:, i:i + w] for i in range(len(k)))
    return sum(float(k[j]) * tmp[j:j + h, :] for j in range(len(k)))


def round8(v):
    return np.floor(np.clip(v, 0, 255) + 0.5).astype(np.int16)


def read_bmp8(path):
    """An 8-bit palette BMP (what tiledconv writes) as a (height, width) array of gray levels."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] != b"BM":
        raise ValueError(f"{path}: not a BMP")
    off = struct.unpack_from("<I", data, 10)[0]
    hsize = struct.unpack_from("<I", data, 14)[0]
    w, h = struct.unpack_from("<ii", data, 18)
    bpp = struct.unpack_from("<H", data, 28)[0]
    comp = struct.unpack_from("<I", data, 30)[0]
    ncol = struct.unpack_from("<I", data, 46)[0] or 256
    if bpp != 8 or comp != 0:
        raise ValueError(f"{path}: {bpp} bits, compression {comp}: expected 8-bit uncompressed")
    pal = np.frombuffer(data, np.uint8, ncol * 4, 14 + hsize).reshape(ncol, 4)
    gray = np.floor(0.114 * pal[:, 0] + 0.587 * pal[:, 1] + 0.299 * pal[:, 2] + 0.5)
    stride = (w + 3) // 4 * 4
    ah = abs(h)
    idx = np.frombuffer(data, np.uint8, stride * ah, off).reshape(ah, stride)[:, :w]
    if h > 0:
        idx = idx[::-1]  # bottom-up: the first stored row is the bottom one
    return gray[idx].astype(np.int16)


def parse_size(s):
    w, h = s.lower().split("x")
    return int(w), int(h)


# ---------------------------------------------------------------- peers

class Peer:
    name = "?"
    timing = "?"
    device = ""
    note = ""

    def available(self):
        """None when it can run here, else the reason it cannot."""
        return None

    def setup(self, img, k):
        raise NotImplementedError

    def run(self):
        raise NotImplementedError

    def result(self):
        raise NotImplementedError

    def time(self, n, warmup):
        raise NotImplementedError

    def teardown(self):
        pass


class CupyBase(Peer):
    timing = "cupy.cuda.Event per call"

    def available(self):
        try:
            import cupy as cp
            import cupyx.scipy.ndimage  # noqa: F401
            if cp.cuda.runtime.getDeviceCount() < 1:
                return "no CUDA device"
            props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
            name = props["name"]
            self.device = name.decode() if isinstance(name, bytes) else str(name)
            self.note = f"CuPy {cp.__version__}"
            return None
        except Exception as e:  # noqa: BLE001
            return f"CuPy unavailable ({type(e).__name__}: {e})"

    def result(self):
        import cupy as cp
        return cp.asnumpy(self.out)

    def time(self, n, warmup):
        import cupy as cp
        for _ in range(warmup):
            self.run()
        cp.cuda.Device().synchronize()
        evs = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(n)]
        for s, e in evs:
            s.record()
            self.run()
            e.record()
        evs[-1][1].synchronize()
        return [cp.cuda.get_elapsed_time(s, e) for s, e in evs]

    def teardown(self):
        import cupy as cp
        for a in ("x", "w", "k", "tmp", "out"):
            if hasattr(self, a):
                delattr(self, a)
        cp.cuda.Device().synchronize()
        cp.get_default_memory_pool().free_all_blocks()


class CupyCorrelate(CupyBase):
    name = "cupy-correlate"

    def setup(self, img, k):
        import cupy as cp
        self.x = cp.asarray(img)
        self.w = cp.asarray(np.outer(k, k).astype(np.float32))
        self.out = cp.empty_like(self.x)

    def run(self):
        import cupyx.scipy.ndimage as nd
        nd.correlate(self.x, self.w, output=self.out, mode="nearest")


class CupyCorrelate1d(CupyBase):
    name = "cupy-correlate1d"

    def setup(self, img, k):
        import cupy as cp
        self.x = cp.asarray(img)
        self.k = cp.asarray(k)
        self.tmp = cp.empty_like(self.x)
        self.out = cp.empty_like(self.x)

    def run(self):
        import cupyx.scipy.ndimage as nd
        nd.correlate1d(self.x, self.k, axis=1, output=self.tmp, mode="nearest")
        nd.correlate1d(self.tmp, self.k, axis=0, output=self.out, mode="nearest")


class OpenCVOcl(Peer):
    name = "opencv-ocl"
    timing = "host wall clock, call to cv2.ocl.finish()"

    def available(self):
        try:
            import cv2
            cv2.ocl.setUseOpenCL(True)
            self.note = f"OpenCV {cv2.__version__}"
            if not (cv2.ocl.haveOpenCL() and cv2.ocl.useOpenCL()):
                self.device = "CPU (no OpenCL device: UMat falls back to the CPU)"
                self.note += "; NOT OpenCL"
                return None
            d = cv2.ocl.Device.getDefault()
            self.device = f"{d.name()} [OpenCL: {d.vendorName()}]"
            return None
        except Exception as e:  # noqa: BLE001
            return f"OpenCV unavailable ({type(e).__name__}: {e})"

    def setup(self, img, k):
        import cv2
        self.src = cv2.UMat(np.ascontiguousarray(img))
        self.dst = cv2.UMat(img.shape[0], img.shape[1], cv2.CV_32F)
        self.k = np.ascontiguousarray(k, dtype=np.float32)
        cv2.ocl.finish()

    def run(self):
        import cv2
        cv2.sepFilter2D(self.src, cv2.CV_32F, self.k, self.k, dst=self.dst,
                        borderType=cv2.BORDER_REPLICATE)

    def result(self):
        import cv2
        cv2.ocl.finish()
        return np.asarray(self.dst.get(), dtype=np.float32)

    def time(self, n, warmup):
        import cv2
        for _ in range(warmup):
            self.run()
        cv2.ocl.finish()
        out = []
        for _ in range(n):
            t0 = time.perf_counter()
            self.run()
            cv2.ocl.finish()
            out.append((time.perf_counter() - t0) * 1e3)
        return out

    def teardown(self):
        import cv2
        cv2.ocl.finish()
        for a in ("src", "dst"):
            if hasattr(self, a):
                delattr(self, a)


class TorchConv2d(Peer):
    name = "torch-conv2d"
    timing = "torch.cuda.Event per call (pad + conv2d together)"

    def available(self):
        try:
            import torch
            if not torch.cuda.is_available():
                return "PyTorch has no CUDA device"
            torch.backends.cudnn.enabled = True
            torch.backends.cudnn.benchmark = True
            torch.backends.cudnn.allow_tf32 = False   # strict float32, like tiledconv
            torch.backends.cuda.matmul.allow_tf32 = False
            self.device = torch.cuda.get_device_name()
            self.note = (f"PyTorch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, "
                         "benchmark=True, TF32 off")
            return None
        except Exception as e:  # noqa: BLE001
            return f"PyTorch unavailable ({type(e).__name__}: {e})"

    def setup(self, img, k):
        import torch
        self.r = len(k) // 2
        self.x = torch.from_numpy(np.ascontiguousarray(img)).cuda().view(1, 1, *img.shape)
        self.w = torch.from_numpy(np.outer(k, k).astype(np.float32)).cuda().view(1, 1, len(k), len(k))
        self.out = None

    def run(self):
        import torch
        import torch.nn.functional as F
        with torch.inference_mode():
            r = self.r
            self.out = F.conv2d(F.pad(self.x, (r, r, r, r), mode="replicate"), self.w)

    def result(self):
        import torch
        torch.cuda.synchronize()
        return self.out[0, 0].cpu().numpy()

    def time(self, n, warmup):
        import torch
        for _ in range(warmup):
            self.run()
        torch.cuda.synchronize()
        evs = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
               for _ in range(n)]
        for s, e in evs:
            s.record()
            self.run()
            e.record()
        torch.cuda.synchronize()
        return [s.elapsed_time(e) for s, e in evs]

    def teardown(self):
        import torch
        for a in ("x", "w", "out"):
            if hasattr(self, a):
                delattr(self, a)
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


PEERS = {p.name: p for p in (CupyCorrelate, CupyCorrelate1d, OpenCVOcl, TorchConv2d)}
TC_ALGS = ("tiled", "twopass", "onepass")


# ---------------------------------------------------------------- tiledconv

class Tiledconv:
    def __init__(self, path, dev_args, timeout):
        self.path = path
        self.dev_args = shlex.split(dev_args)
        self.timeout = timeout
        self.has_raw = False
        self.version = ""
        try:
            h = subprocess.run([path, "-h"], capture_output=True, text=True, timeout=30,
                               stdin=subprocess.DEVNULL)
            self.has_raw = "--raw" in h.stdout + h.stderr
            v = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30,
                               stdin=subprocess.DEVNULL)
            self.version = v.stdout.strip()
        except Exception as e:  # noqa: BLE001
            warn("tiledconv -h", e)

    def run(self, args):
        """(exit status, JSON records, stderr) of one run; a timeout counts as exit 124."""
        cmd = [self.path] + self.dev_args + args
        log("  $ " + " ".join(shlex.quote(c) for c in cmd))
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=self.timeout,
                               stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return 124, [], f"timed out after {self.timeout}s"
        recs = []
        for line in p.stdout.splitlines():
            line = line.strip()
            if line.startswith("{"):
                try:
                    recs.append(json.loads(line))
                except ValueError:
                    pass
        return p.returncode, recs, p.stderr.strip()


# ---------------------------------------------------------------- correctness

def check_correctness(tc, peers, size, taps_list, workdir):
    """{taps: {row name: (agrees, max abs diff, what it was compared with)}}, and notes."""
    w, h = size
    img = synth(w, h)
    found = {}
    notes = []
    log(f"\n== correctness on a {w}x{h} synthetic image ==")

    # The synthetic image itself: tiledconv with the identity filter writes round(I).
    try:
        bmp = os.path.join(workdir, "identity.bmp")
        rc, _, err = tc.run(["-q", "-g", f"{w}x{h}", "-f", "3", "-c", "0,1,0", "-o", bmp])
        if rc != 0:
            raise RuntimeError(f"tiledconv exit {rc}: {err}")
        d = int(np.abs(read_bmp8(bmp) - round8(img)).max())
        msg = f"synthetic image vs tiledconv -g (identity filter, 8-bit): max diff {d}"
        msg += " (same)" if d == 0 else " MISMATCH: the synth formula here differs from synth.c"
        log("  " + msg)
        notes.append(msg)
    except Exception as e:  # noqa: BLE001
        warn("synth check", e)
        notes.append(f"synth check failed: {e}")

    for taps in taps_list:
        res = found.setdefault(taps, {})
        k = kernel1d(taps)
        ref = reference(img, k)
        tc_float = tc_u8 = None
        try:
            bmp = os.path.join(workdir, f"tc_{taps}.bmp")
            args = ["-g", f"{w}x{h}", "-f", str(taps), "-a", "all", "-e", "--json", "-o", bmp]
            raw = os.path.join(workdir, f"tc_{taps}.raw")
            if tc.has_raw:
                args += ["--raw", raw]
            rc, recs, err = tc.run(args)
            for r in recs:
                ok = r.get("verified") is True
                res[r["algorithm"]] = (ok, r.get("max_error"), "tiledconv -e (CPU reference)")
            if rc != 0 or not recs:
                log(f"  tiledconv exit {rc}: {err.splitlines()[-1] if err else ''}")
            if tc.has_raw and os.path.exists(raw):
                tc_float = np.fromfile(raw, dtype="<f4")
                if tc_float.size != w * h:
                    log(f"  {raw}: {tc_float.size} floats, expected {w * h}; using the BMP")
                    tc_float = None
                else:
                    tc_float = tc_float.reshape(h, w)
            if os.path.exists(bmp):
                tc_u8 = read_bmp8(bmp)
            if tc_float is not None:
                d = float(np.abs(tc_float - ref).max())
                log(f"  taps {taps}: tiledconv (raw float) vs float64 reference: max diff {d:.3g}")
            elif tc_u8 is not None:
                d = int(np.abs(tc_u8 - round8(ref)).max())
                log(f"  taps {taps}: tiledconv (8-bit BMP) vs rounded float64 reference: max diff {d}")
        except Exception as e:  # noqa: BLE001
            warn(f"tiledconv correctness taps {taps}", e)

        for peer in peers:
            try:
                peer.setup(img, k)
                peer.run()
                out = peer.result()
                peer.teardown()
                if out.shape != img.shape:
                    raise ValueError(f"output shape {out.shape}, expected {img.shape}")
                dref = float(np.abs(out.astype(np.float64) - ref).max())
                if tc_float is not None:
                    d = float(np.abs(out - tc_float).max())
                    ok = d <= 1e-2
                    res[peer.name] = (ok, d, "tiledconv --raw float, tol 1e-2")
                elif tc_u8 is not None:
                    d = int(np.abs(round8(out) - tc_u8).max())
                    ok = d <= 1
                    res[peer.name] = (ok, d, "tiledconv 8-bit BMP, tol 1")
                else:
                    ok, d = dref <= 1e-2, dref
                    res[peer.name] = (ok, d, "float64 reference only (no tiledconv output)")
                log(f"  taps {taps}: {peer.name:17s} max diff {d:.3g} vs tiledconv"
                    f" ({res[peer.name][2]}), {dref:.3g} vs float64 reference"
                    f"{'' if ok else '   <-- DISAGREES'}")
            except Exception as e:  # noqa: BLE001
                warn(f"{peer.name} correctness taps {taps}", e)
                res[peer.name] = (None, None, f"check failed: {e}")
                try:
                    peer.teardown()
                except Exception:  # noqa: BLE001
                    pass
    return found, notes


# ---------------------------------------------------------------- timing and tables

def summarise(times):
    return statistics.median(times), min(times)


def fmt(v, spec):
    if isinstance(v, (int, float)) and not (isinstance(v, float) and math.isnan(v)):
        return format(v, spec)
    width = int(spec.split(".")[0] or 0)
    return "-".rjust(width)


def agree_text(entry):
    if entry is None:
        return "not checked"
    ok, d, _ = entry
    if ok is None:
        return "check failed"
    if d is None:
        dd = " (-e)" if "-e" in entry[2] else ""
    else:
        dd = f" ({d:.2g})" if isinstance(d, float) else f" ({d})"
    return ("yes" if ok else "NO") + dd


def print_table(size, rows):
    w, h = size
    log(f"\n== {w}x{h} ({w * h / 1e6:.1f} MPixels) ==")
    head = f"{'implementation':24s} {'taps':>4s} {'median ms':>10s} {'min ms':>10s} {'MPixels/s':>11s} {'ratio':>7s}  agrees"
    log(head)
    log("-" * len(head))
    for r in rows:
        flag = "   <-- FLAGGED" if r["agrees"] is False else ""
        log(f"{r['implementation']:24s} {r['taps']:>4d} {fmt(r['median_ms'], '10.4f')} "
            f"{fmt(r['min_ms'], '10.4f')} {fmt(r['mpixels_per_s'], '11.1f')} "
            f"{fmt(r['ratio_to_tiled'], '7.2f')}  {r['agrees_text']}{flag}")
    log("ratio = this row's median / tiledconv tiled's median at the same taps (above 1: slower than tiled)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 2)[2])
    ap.add_argument("--sizes", default="8192x8192", help="comma-separated WxH (default 8192x8192)")
    ap.add_argument("--big", action="store_true", help="also 16384x16384")
    ap.add_argument("--taps", default="3,5", help="filter sizes (default 3,5)")
    ap.add_argument("--iterations", "-i", type=int, default=50, help="timed calls (default 50)")
    ap.add_argument("--warmup", type=int, default=5, help="untimed calls first (default 5)")
    default_tc = "./tiledconv"
    if not os.path.exists(default_tc):
        default_tc = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tiledconv")
    ap.add_argument("--tiledconv", default=default_tc, help="path to tiledconv (default ./tiledconv)")
    ap.add_argument("--device-args", default="--device gpu",
                    help="tiledconv's device arguments (default '--device gpu')")
    ap.add_argument("--peers", default=",".join(PEERS), help="comma-separated subset of: " + ", ".join(PEERS))
    ap.add_argument("--check-size", default="1024x768", help="image of the correctness check")
    ap.add_argument("--no-check", action="store_true", help="skip the correctness check")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per tiledconv run (default 300)")
    ap.add_argument("--out", default=os.environ.get("OUT") or "bench-out", help="output folder")
    a = ap.parse_args()

    t_start = time.time()
    sizes = [parse_size(s) for s in a.sizes.split(",") if s.strip()]
    if a.big and (16384, 16384) not in sizes:
        sizes.append((16384, 16384))
    taps_list = [int(t) for t in a.taps.split(",") if t.strip()]
    for t in taps_list:
        kernel1d(t)
    os.makedirs(a.out, exist_ok=True)

    meta = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "host": platform.node(),
            "python": sys.version.split()[0], "numpy": np.__version__,
            "iterations": a.iterations, "warmup": a.warmup, "peers": {}, "skipped": {},
            "errors": [], "correctness": {}}
    log(f"peers.py: {meta['date']} on {meta['host']}, Python {meta['python']}, NumPy {np.__version__}")

    peers = []
    for name in [p.strip() for p in a.peers.split(",") if p.strip()]:
        if name not in PEERS:
            log(f"  unknown peer {name}; known: {', '.join(PEERS)}")
            continue
        p = PEERS[name]()
        why = p.available()
        if why:
            log(f"  skip {name}: {why}")
            meta["skipped"][name] = why
            continue
        log(f"  peer {name}: {p.device}; {p.note}; timing: {p.timing}")
        meta["peers"][name] = {"device": p.device, "note": p.note, "timing": p.timing}
        peers.append(p)

    tc = Tiledconv(a.tiledconv, a.device_args, a.timeout)
    meta["tiledconv"] = {"path": a.tiledconv, "version": tc.version, "device_args": a.device_args,
                         "raw_output": tc.has_raw,
                         "timing": "OpenCL profiling events (its own -t -i N), median/min"}
    log(f"  tiledconv: {tc.version or 'version unknown'}, {'has' if tc.has_raw else 'no'} --raw")

    agree = {}
    if not a.no_check:
        with tempfile.TemporaryDirectory() as wd:
            try:
                agree, notes = check_correctness(tc, peers, parse_size(a.check_size), taps_list, wd)
                meta["correctness"] = {
                    "size": a.check_size, "notes": notes,
                    "results": {str(t): {n: {"agrees": v[0], "max_abs_diff": v[1], "against": v[2]}
                                         for n, v in d.items()} for t, d in agree.items()}}
            except Exception as e:  # noqa: BLE001
                warn("correctness", e)
                meta["errors"].append(f"correctness: {e}")

    # A GPU-side generator for the big images when CuPy works (NumPy takes seconds at 16k^2).
    xp = np
    if any(isinstance(p, CupyBase) for p in peers):
        import cupy
        xp = cupy

    all_rows = []
    for size in sizes:
        w, h = size
        rows = []
        try:
            log(f"\n-- {w}x{h}: making the synthetic image")
            img = None
            if xp is not np:
                try:
                    img = xp.asnumpy(synth(w, h, xp))
                except Exception as e:  # noqa: BLE001
                    warn(f"synth {w}x{h} on the GPU, now with NumPy", e)
                xp.get_default_memory_pool().free_all_blocks()
            if img is None:
                img = synth(w, h)
        except Exception as e:  # noqa: BLE001
            warn(f"synth {w}x{h}", e)
            meta["errors"].append(f"synth {w}x{h}: {e}")
            continue
        for taps in taps_list:
            k = kernel1d(taps)
            tc_rows = {}
            try:
                rc, recs, err = tc.run(["-g", f"{w}x{h}", "-f", str(taps), "-t", "-i", str(a.iterations),
                                        "--no-output", "--json", "-a", "all"])
                if rc != 0 or not recs:
                    msg = f"tiledconv {w}x{h} taps {taps}: exit {rc}: {err.splitlines()[-1] if err else ''}"
                    log("  " + msg)
                    meta["errors"].append(msg)
                for r in recs:
                    tc_rows[r["algorithm"]] = r
            except Exception as e:  # noqa: BLE001
                warn(f"tiledconv {w}x{h} taps {taps}", e)
                meta["errors"].append(f"tiledconv {w}x{h} taps {taps}: {e}")
            for alg in TC_ALGS:
                r = tc_rows.get(alg)
                rows.append({"implementation": f"tiledconv {alg}", "taps": taps,
                             "median_ms": r["kernel_ms_median"] if r else float("nan"),
                             "min_ms": r["kernel_ms_min"] if r else float("nan"),
                             "timing": "OpenCL profiling events", "device": r.get("device", "") if r else "",
                             "entry": agree.get(taps, {}).get(alg)})
            for p in peers:
                log(f"  {p.name} {w}x{h} taps {taps} ...")
                try:
                    p.setup(img, k)
                    t = p.time(a.iterations, a.warmup)
                    med, mn = summarise(t)
                except Exception as e:  # noqa: BLE001
                    warn(f"{p.name} {w}x{h} taps {taps}", e)
                    meta["errors"].append(f"{p.name} {w}x{h} taps {taps}: {e}")
                    med = mn = float("nan")
                finally:
                    try:
                        p.teardown()
                    except Exception as e:  # noqa: BLE001
                        warn(f"{p.name} teardown", e)
                rows.append({"implementation": p.name, "taps": taps, "median_ms": med, "min_ms": mn,
                             "timing": p.timing, "device": p.device,
                             "entry": agree.get(taps, {}).get(p.name)})
        del img
        for r in rows:
            tiled = next((x["median_ms"] for x in rows
                          if x["implementation"] == "tiledconv tiled" and x["taps"] == r["taps"]), float("nan"))
            m = r["median_ms"]
            ok = m == m and m > 0
            r["mpixels_per_s"] = w * h / m / 1e3 if ok else float("nan")
            r["ratio_to_tiled"] = m / tiled if ok and tiled == tiled and tiled > 0 else float("nan")
            e = r.pop("entry")
            r["agrees"] = None if e is None else e[0]
            r["max_abs_diff"] = None if e is None else e[1]
            r["agrees_text"] = agree_text(e)
            r.update({"width": w, "height": h})
        print_table(size, rows)
        all_rows += rows

    for p in peers:
        log(f"note: {p.name}: {p.device}; {p.note}; timed by {p.timing}")
    for n, why in meta["skipped"].items():
        log(f"note: {n} skipped: {why}")

    cols = ["width", "height", "taps", "implementation", "median_ms", "min_ms", "mpixels_per_s",
            "ratio_to_tiled", "agrees", "max_abs_diff", "timing", "device"]
    try:
        path = os.path.join(a.out, "peers.csv")
        with open(path, "w", newline="") as f:
            wr = csv.writer(f)
            wr.writerow(cols)
            for r in all_rows:
                wr.writerow(["" if (isinstance(r[c], float) and math.isnan(r[c])) or r[c] is None
                             else r[c] for c in cols])
        meta["elapsed_s"] = round(time.time() - t_start, 1)

        def clean(v):
            return None if isinstance(v, float) and math.isnan(v) else v
        path2 = os.path.join(a.out, "peers.json")
        with open(path2, "w") as f:
            json.dump({"meta": meta, "rows": [{c: clean(r[c]) for c in cols} for r in all_rows]},
                      f, indent=1, default=str)
        log(f"\npeers.py: wrote {path} and {path2} in {meta['elapsed_s']} s")
    except Exception as e:  # noqa: BLE001
        warn("writing results", e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
