#!/usr/bin/env python3
"""The same job with CuPy on the GPU: imread on the host, the intensity (or the colour planes)
and two correlate1d passes (mode 'nearest' = replicate) on the device, round to 8 bits,
download, imwrite; a pool of threads keeps reading and writing off the GPU's path.

    python3 bench/cupy_batch.py --list FILES.txt --out DIR [--threads 16] [--fsync] [--color]
"""
import threading

import cupy as cp
import cupyx.scipy.ndimage as ndi
import cv2
import numpy as np

import batch_job

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
    batch_job.write_bmp(batch_job.output_name(path, out_dir), out, fsync)


if __name__ == "__main__":
    batch_job.main(one, threads=16)
