"""What bench/opencv_batch.py and bench/cupy_batch.py share: the command line, where each
output goes and how it is written, and the plain loop or the pool of threads over the list.
Each script gives only its filter step, one(path, out_dir, color, fsync)."""
import argparse
import concurrent.futures as cf
import os

import cv2


def output_name(path, out_dir):
    """OUT_DIR/NAME.bmp for the input PATH/NAME.EXT, as tiledconv names its outputs."""
    return os.path.join(out_dir, os.path.splitext(os.path.basename(path))[0] + ".bmp")


def write_bmp(name, image, fsync):
    """The image as a BMP file, written in one call, fsynced when asked (as tiledconv does)."""
    ok, data = cv2.imencode(".bmp", image)
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data.tobytes())
        if fsync:
            os.fsync(fd)
    finally:
        os.close(fd)


def main(one, threads):
    """--list FILES.txt --out DIR [--threads N] [--fsync] [--color]: one() on every file of the
    list, in a plain loop for N <= 1, else in a pool of N threads (THREADS when not given)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--threads", type=int, default=threads)
    ap.add_argument("--fsync", action="store_true")
    ap.add_argument("--color", action="store_true")
    a = ap.parse_args()
    files = [l.strip() for l in open(a.list) if l.strip()]
    if a.threads <= 1:
        for f in files:
            one(f, a.out, a.color, a.fsync)
    else:
        with cf.ThreadPoolExecutor(a.threads) as pool:
            list(pool.map(lambda f: one(f, a.out, a.color, a.fsync), files))
