#!/usr/bin/env python3
"""bench/peers.py - tiledconv against other GPU implementations of the same filters.

For each size (default 8192x8192; --big adds 16384x16384) and each filter this times:

  separable filters (--taps, default 3,5): 3 and 5 taps are the binomials [1,2,1]/4 and
  [1,4,6,4,1]/16; longer ones (7..63) a Gaussian of sigma = taps / 6 (float32 weights, given to
  tiledconv with -c), the same both directions, replicate border;
  masks (--masks, e.g. 3x3,5x5): fixed non-separable masks of small integers over 16 (rank 2
  or more, so no peer and not tiledconv can factor them), given to tiledconv with --mask.

  cupy-correlate     cupyx.scipy.ndimage.correlate, 2-D kernel (the outer product, or the
                     mask), mode='nearest'; skipped above 15 taps (63 x 63 products a pixel)
  cupy-correlate1d   cupyx.scipy.ndimage.correlate1d twice (axis=1, then axis=0),
                     mode='nearest'; separable filters only
  opencv-ocl         cv2.sepFilter2D (separable) or cv2.filter2D (masks) on a cv2.UMat
                     (OpenCL), CV_32F, BORDER_REPLICATE; host wall clock from the call to
                     cv2.ocl.finish()
  torch-conv2d       F.pad(mode='replicate') + F.conv2d, 1 channel float32, cuDNN (TF32 off);
                     pad and conv timed together; above 15 taps two 1-D convolutions (a 1 x N,
                     then an N x 1 kernel) instead of the N x N one

CuPy and PyTorch are timed with their own CUDA events around each call, after warm-up: median
and min of N calls (default 50). Then it runs
  tiledconv --device gpu -g WxH FILTER -t -i N --no-output --json -a all
and reads tiledconv's own kernel times (OpenCL profiling events, median and min of N). With a
mask that is not separable tiledconv runs tiled and onepass (twopass does not apply).

The input is tiledconv's -g synthetic image (synth.c), made here with the same uint32 formula.

Correctness: on a 1024x768 synthetic image, each peer's output is compared with tiledconv's:
its float plane when tiledconv has --raw, else its 8-bit BMP (peer rounded as floor(clip(v,0,255)
+0.5), tolerance +-1). tiledconv's own rows 'agree' when its -e check against the CPU reference
passed. A peer that is missing (module or GPU) is skipped with a note; every section catches its
errors, prints them and goes on.

Output: a table per size on stdout, and peers.csv / peers.json in --out (default $OUT, else
./bench-out). The 'filter' column names the filter: "5" (5 taps), "mask3x3".
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
    """The 1-D weights of the separable filter of this length (float32)."""
    if taps == 3:
        return np.array([1, 2, 1], dtype=np.float32) / np.float32(4)
    if taps == 5:
        return np.array([1, 4, 6, 4, 1], dtype=np.float32) / np.float32(16)
    if taps % 2 == 1 and 7 <= taps <= 63:
        d = np.arange(taps, dtype=np.float64) - taps // 2
        g = np.exp(-d * d / (2.0 * (taps / 6.0) ** 2))
        return (g / g.sum()).astype(np.float32)
    raise ValueError(f"taps {taps}: odd, 3..63")


# Fixed masks of small integers over 16: exact in float32, rank 2 or more (checked below).
MASKS = {
    "3x3": [[1, -2, 3], [0, 4, -1], [2, 1, -3]],
    "5x5": [[1, 0, -2, 1, 3], [2, -1, 4, 0, -2], [-3, 2, 5, 1, 0], [0, 1, -1, 2, -2],
            [1, -3, 0, 2, 1]],
    "7x7": [[(3 * i + 5 * j) % 7 - 3 for i in range(7)] for j in range(7)],
}


class Filter:
    """One filter of the comparison: separable (k, 1-D, both directions) or a mask (m, 2-D)."""

    def __init__(self, spec):
        spec = str(spec).strip()
        if spec.startswith("mask"):
            shape = spec[4:]
            if shape not in MASKS:
                raise ValueError(f"mask {shape}: one of {', '.join(MASKS)}")
            self.m = np.array(MASKS[shape], dtype=np.float32) / np.float32(16)
            if np.linalg.matrix_rank(self.m.astype(np.float64)) < 2:
                raise ValueError(f"mask {shape} is separable")
            self.k = None
            self.label = spec
            self.taps = self.m.shape[0]
        else:
            self.taps = int(spec)
            self.k = kernel1d(self.taps)
            self.m = None
            self.label = str(self.taps)

    @property
    def is_mask(self):
        return self.m is not None

    def weights2d(self):
        return self.m if self.is_mask else np.outer(self.k, self.k).astype(np.float32)

    def tc_args(self):
        """tiledconv's flags for this filter."""
        if self.is_mask:
            rows = ";".join(",".join(repr(float(v)) for v in row) for row in self.m)
            return ["--mask", rows]
        if self.taps <= 5:
            return ["-f", str(self.taps)]
        return ["-c", ",".join(repr(float(v)) for v in self.k)]

    def radius(self):
        return self.taps // 2


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


def reference(img, filt):
    """Float64 correlation with replicate border (the CPU check of last resort)."""
    r = filt.radius()
    p = np.pad(img.astype(np.float64), r, mode="edge")
    h, w = img.shape
    if filt.is_mask:
        m = filt.m.astype(np.float64)
        return sum(m[j, i] * p[j:j + h, i:i + w] for j in range(m.shape[0])
                   for i in range(m.shape[1]))
    k = filt.k
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

    def supports(self, filt):
        """None when it runs this filter, else why not."""
        return None

    def setup(self, img, filt):
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

    def supports(self, filt):
        return None if filt.taps <= 15 else "2-D correlate above 15 taps: N x N products a pixel"

    def setup(self, img, filt):
        import cupy as cp
        self.x = cp.asarray(img)
        self.w = cp.asarray(filt.weights2d())
        self.out = cp.empty_like(self.x)

    def run(self):
        import cupyx.scipy.ndimage as nd
        nd.correlate(self.x, self.w, output=self.out, mode="nearest")


class CupyCorrelate1d(CupyBase):
    name = "cupy-correlate1d"

    def supports(self, filt):
        return "a mask is not separable" if filt.is_mask else None

    def setup(self, img, filt):
        import cupy as cp
        self.x = cp.asarray(img)
        self.k = cp.asarray(filt.k)
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

    def setup(self, img, filt):
        import cv2
        self.src = cv2.UMat(np.ascontiguousarray(img))
        self.dst = cv2.UMat(img.shape[0], img.shape[1], cv2.CV_32F)
        self.mask = filt.is_mask
        self.k = np.ascontiguousarray(filt.m if filt.is_mask else filt.k, dtype=np.float32)
        cv2.ocl.finish()

    def run(self):
        import cv2
        if self.mask:  # filter2D correlates (no flip), anchor at the centre, as tiledconv
            cv2.filter2D(self.src, cv2.CV_32F, self.k, dst=self.dst,
                         borderType=cv2.BORDER_REPLICATE)
        else:
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

    def setup(self, img, filt):
        import torch
        self.r = filt.radius()
        n = filt.taps
        self.x = torch.from_numpy(np.ascontiguousarray(img)).cuda().view(1, 1, *img.shape)
        # Above 15 taps two 1-D convolutions, as a user would write a long separable filter.
        self.separate = not filt.is_mask and n > 15
        if self.separate:
            k = torch.from_numpy(filt.k).cuda()
            self.wx = k.view(1, 1, 1, n)
            self.wy = k.view(1, 1, n, 1)
        else:
            self.w = torch.from_numpy(filt.weights2d()).cuda().view(1, 1, n, n)
        self.out = None

    def run(self):
        import torch
        import torch.nn.functional as F
        with torch.inference_mode():
            r = self.r
            p = F.pad(self.x, (r, r, r, r), mode="replicate")
            if self.separate:
                self.out = F.conv2d(F.conv2d(p, self.wx), self.wy)
            else:
                self.out = F.conv2d(p, self.w)

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
        for a in ("x", "w", "wx", "wy", "out"):
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

def check_correctness(tc, peers, size, filters, workdir):
    """{filter label: {row name: (agrees, max abs diff, what it was compared with)}}, notes."""
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

    for filt in filters:
        taps = filt.label
        res = found.setdefault(taps, {})
        ref = reference(img, filt)
        tc_float = tc_u8 = None
        try:
            bmp = os.path.join(workdir, f"tc_{taps}.bmp")
            args = ["-g", f"{w}x{h}"] + filt.tc_args() + ["-a", "all", "-e", "--json", "-o", bmp]
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
                log(f"  filter {taps}: tiledconv (raw float) vs float64 reference: max diff {d:.3g}")
            elif tc_u8 is not None:
                d = int(np.abs(tc_u8 - round8(ref)).max())
                log(f"  filter {taps}: tiledconv (8-bit BMP) vs rounded float64 reference: max diff {d}")
        except Exception as e:  # noqa: BLE001
            warn(f"tiledconv correctness taps {taps}", e)

        for peer in peers:
            if peer.supports(filt):
                continue
            try:
                peer.setup(img, filt)
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
                log(f"  filter {taps}: {peer.name:17s} max diff {d:.3g} vs tiledconv"
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
    head = f"{'implementation':24s} {'filter':>8s} {'median ms':>10s} {'min ms':>10s} {'MPixels/s':>11s} {'ratio':>7s}  agrees"
    log(head)
    log("-" * len(head))
    for r in rows:
        flag = "   <-- FLAGGED" if r["agrees"] is False else ""
        log(f"{r['implementation']:24s} {r['filter']:>8s} {fmt(r['median_ms'], '10.4f')} "
            f"{fmt(r['min_ms'], '10.4f')} {fmt(r['mpixels_per_s'], '11.1f')} "
            f"{fmt(r['ratio_to_tiled'], '7.2f')}  {r['agrees_text']}{flag}")
    log("ratio = this row's median / tiledconv tiled's median for the same filter (above 1: slower than tiled)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 2)[2])
    ap.add_argument("--sizes", default="8192x8192", help="comma-separated WxH (default 8192x8192)")
    ap.add_argument("--big", action="store_true", help="also 16384x16384")
    ap.add_argument("--taps", default="3,5", help="separable filter lengths, odd 3..63 (default 3,5)")
    ap.add_argument("--masks", default="", help="non-separable masks: " + ", ".join(MASKS) +
                    " (default none)")
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
    filters = [Filter(t) for t in a.taps.split(",") if t.strip()]
    filters += [Filter("mask" + m.strip()) for m in a.masks.split(",") if m.strip()]
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
                agree, notes = check_correctness(tc, peers, parse_size(a.check_size), filters, wd)
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
        for filt in filters:
            taps = filt.label
            tc_rows = {}
            try:
                rc, recs, err = tc.run(["-g", f"{w}x{h}"] + filt.tc_args() +
                                       ["-t", "-i", str(a.iterations), "--no-output", "--json",
                                        "-a", "all"])
                if rc != 0 or not recs:
                    msg = f"tiledconv {w}x{h} filter {taps}: exit {rc}: {err.splitlines()[-1] if err else ''}"
                    log("  " + msg)
                    meta["errors"].append(msg)
                for r in recs:
                    tc_rows[r["algorithm"]] = r
            except Exception as e:  # noqa: BLE001
                warn(f"tiledconv {w}x{h} filter {taps}", e)
                meta["errors"].append(f"tiledconv {w}x{h} filter {taps}: {e}")
            for alg in TC_ALGS:
                r = tc_rows.get(alg)
                if r is None and alg == "twopass" and filt.is_mask:
                    continue  # not applicable: the mask is not separable
                rows.append({"implementation": f"tiledconv {alg}", "filter": taps,
                             "median_ms": r["kernel_ms_median"] if r else float("nan"),
                             "min_ms": r["kernel_ms_min"] if r else float("nan"),
                             "copy_fraction": r.get("copy_fraction") if r else None,
                             "timing": "OpenCL profiling events", "device": r.get("device", "") if r else "",
                             "entry": agree.get(taps, {}).get(alg)})
            for p in peers:
                why = p.supports(filt)
                if why:
                    log(f"  {p.name} filter {taps}: skipped ({why})")
                    continue
                log(f"  {p.name} {w}x{h} filter {taps} ...")
                try:
                    p.setup(img, filt)
                    t = p.time(a.iterations, a.warmup)
                    med, mn = summarise(t)
                except Exception as e:  # noqa: BLE001
                    warn(f"{p.name} {w}x{h} filter {taps}", e)
                    meta["errors"].append(f"{p.name} {w}x{h} filter {taps}: {e}")
                    med = mn = float("nan")
                finally:
                    try:
                        p.teardown()
                    except Exception as e:  # noqa: BLE001
                        warn(f"{p.name} teardown", e)
                rows.append({"implementation": p.name, "filter": taps, "median_ms": med, "min_ms": mn,
                             "copy_fraction": None, "timing": p.timing, "device": p.device,
                             "entry": agree.get(taps, {}).get(p.name)})
        del img
        for r in rows:
            tiled = next((x["median_ms"] for x in rows
                          if x["implementation"] == "tiledconv tiled" and x["filter"] == r["filter"]), float("nan"))
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

    cols = ["width", "height", "filter", "implementation", "median_ms", "min_ms", "mpixels_per_s",
            "ratio_to_tiled", "copy_fraction", "agrees", "max_abs_diff", "timing", "device"]
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
