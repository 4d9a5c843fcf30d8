#!/usr/bin/env python3
"""The disk's floor for a synced batch: COUNT files of SIZE bytes, each written and fsynced,
by THREADS threads (each thread several), the folder synced at the end. Prints the best wall
time over the thread counts given, and each.

    python3 bench/disk_floor.py --out DIR --count 1000 --size 2074678 --threads 16,32,64
"""
import argparse
import concurrent.futures as cf
import os
import shutil
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--size", type=int, required=True)
    ap.add_argument("--threads", default="16,32,64")
    ap.add_argument("--no-fsync", action="store_true")
    a = ap.parse_args()
    data = os.urandom(a.size)
    best = None
    for t in (int(x) for x in a.threads.split(",")):
        d = os.path.join(a.out, "floor%d" % t)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)

        def write(i):
            fd = os.open(os.path.join(d, "f%05d" % i), os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                         0o644)
            try:
                os.write(fd, data)
                if not a.no_fsync:
                    os.fsync(fd)
            finally:
                os.close(fd)

        t0 = time.perf_counter()
        with cf.ThreadPoolExecutor(t) as pool:
            list(pool.map(write, range(a.count)))
        fd = os.open(d, os.O_RDONLY)
        os.fsync(fd)
        os.close(fd)
        s = time.perf_counter() - t0
        print("disk floor: %d files of %d bytes, %d threads%s: %.3f s, %.1f files/s"
              % (a.count, a.size, t, "" if not a.no_fsync else " (no fsync)", s, a.count / s))
        best = s if best is None or s < best else best
        shutil.rmtree(d, ignore_errors=True)
    print("disk floor best: %.3f s, %.1f files/s" % (best, a.count / best))


if __name__ == "__main__":
    main()
