#!/usr/bin/env python3
"""Makes the photo folders of bench/e2e.sh from the bundled images: N photos of WxH, 24-bit
BMP, each the bundled image of its number (mod 3) resized, shifted by its number of pixels and
scaled in brightness, so that no two are alike; and one large BMP.

    python3 bench/make_photos.py --out DIR --count 1000 --size 1920x1080
    python3 bench/make_photos.py --out DIR --count 1 --size 8192x8192 --name big
"""
import argparse
import concurrent.futures as cf
import os

import cv2
import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--name", default="photo")
    ap.add_argument("--images", default="images")
    a = ap.parse_args()
    w, h = (int(v) for v in a.size.split("x"))
    os.makedirs(a.out, exist_ok=True)
    sources = sorted(os.path.join(a.images, f) for f in os.listdir(a.images)
                     if f.endswith(".bmp"))
    bases = [cv2.resize(cv2.imread(s, cv2.IMREAD_COLOR), (w, h), interpolation=cv2.INTER_CUBIC)
             for s in sources]

    def make(i):
        img = np.roll(bases[i % len(bases)], shift=(i * 7) % h, axis=0)
        img = np.roll(img, shift=(i * 13) % w, axis=1)
        gain = 0.6 + 0.4 * ((i * 37) % 100) / 100.0
        img = np.clip(img.astype(np.float32) * gain + (i % 17), 0, 255).astype(np.uint8)
        name = a.name if a.count == 1 else "%s%04d" % (a.name, i)
        cv2.imwrite(os.path.join(a.out, name + ".bmp"), img)

    with cf.ThreadPoolExecutor(16) as pool:
        list(pool.map(make, range(a.count)))


if __name__ == "__main__":
    main()
