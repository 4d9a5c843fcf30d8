#!/usr/bin/env python3
"""The script a skilled user writes for tiledconv's job with OpenCV on the CPU: for each file,
imread, the intensity 0.299 R + 0.587 G + 0.114 B in float32 (or the colour planes), a 5-tap
binomial sepFilter2D with BORDER_REPLICATE, round to 8 bits, imwrite; in a plain loop or a pool
of threads (OpenCV releases the GIL), optionally fsyncing each output like tiledconv does.

    python3 bench/opencv_batch.py --list FILES.txt --out DIR [--threads 16] [--fsync] [--color]
"""
import cv2
import numpy as np

import batch_job

K = np.array([1, 4, 6, 4, 1], np.float32) / 16.0
# BGR order: imread gives B, G, R.
WEIGHTS = np.array([[0.114, 0.587, 0.299]], np.float32)


def one(path, out_dir, color, fsync):
    img = cv2.imread(path, cv2.IMREAD_COLOR)
    if color:
        f = img.astype(np.float32)
    else:
        f = cv2.transform(img.astype(np.float32), WEIGHTS)
    r = cv2.sepFilter2D(f, -1, K, K, borderType=cv2.BORDER_REPLICATE)
    out = np.clip(r + 0.5, 0, 255).astype(np.uint8)
    name = batch_job.output_name(path, out_dir)
    if fsync:
        batch_job.write_bmp(name, out, fsync=True)
    else:
        cv2.imwrite(name, out)


if __name__ == "__main__":
    batch_job.main(one, threads=0)
