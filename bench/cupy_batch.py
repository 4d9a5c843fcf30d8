#!/usr/bin/env python3
"""The same job with CuPy on the GPU: imread on the host, the intensity (or the colour planes)
and two correlate1d passes (mode 'nearest' = replicate) on the device, round to 8 bits,
download, imwrite; a pool of threads keeps reading and writing off the GPU's path.

    python3 bench/cupy_batch.py --list FILES.txt --out DIR [--threads 16] [--fsync] [--color]
"""
import argparse
import concurrent.futures as cf
import os
import threading

import cupy as cp
import cupyx.scipy.ndimage as ndi
import cv2
import numpy as np

K = cp.asarray(np.array([1, 4, 6, 4, 1], np.float32) / 16.0)
W = cp.asarray(np.array([0.114, 0.587, 0.299], np.float32))
LOCK = threading.Lock()  # one GPU stream, used by one thread at a time


def one(path, out_dir, color, fsync):
    img = cv2.imread(path, cv2.IMREAD_COLOR)
    with LOCK:
        g = cp.asarray(img).astype(cp.float32)
        f = g if color else g @ W
        r = ndi.correlate1d(ndi.correlate1d(f, K, axis=1, mode="nearest"), K, axis=0,
                            mode="nearest")
        out = cp.asnumpy(cp.clip(r + 0.5, 0, 255).astype(cp.uint8))
    name = os.path.join(out_dir, os.path.splitext(os.path.basename(path))[0] + ".bmp")
    ok, data = cv2.imencode(".bmp", out)
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data.tobytes())
        if fsync:
            os.fsync(fd)
    finally:
        os.close(fd)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--fsync", action="store_true")
    ap.add_argument("--color", action="store_true")
    a = ap.parse_args()
    files = [l.strip() for l in open(a.list) if l.strip()]
    with cf.ThreadPoolExecutor(a.threads) as pool:
        list(pool.map(lambda f: one(f, a.out, a.color, a.fsync), files))


if __name__ == "__main__":
    main()
