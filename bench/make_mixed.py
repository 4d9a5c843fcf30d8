#!/usr/bin/env python3
"""Makes the mixed folder of the batch benchmarks: what a folder of real-world pictures holds, from
the bundled images, seeded so that every machine makes the same set. Sizes from 0.3 to 12
megapixels (640 x 480 to 4000 x 3000, a phone's photo the largest); formats by share: JPEG
baseline 4:2:0 (40 %), progressive 4:2:0 (10 %), 4:4:4 (8 %) and gray (5 %) at qualities 75-95;
PNG RGB (10 %), 16-bit RGB (5 %), palette (4 %) and RGBA (4 %); 24-bit BMP (7 %); PPM (4 %) and
PGM (3 %). Each picture is its bundled image resized, shifted and scaled in brightness by its
number, so that no two are alike.

    python3 bench/make_mixed.py --out DIR                 1,060 files (the benchmark's folder)
    python3 bench/make_mixed.py --out DIR --count 50 --seed 7
    python3 bench/make_mixed.py --out DIR --each 2 --scale 0.1      2 small ones of each kind

JPEGs are written by libjpeg-turbo's cjpeg (libjpeg-turbo-progs), the rest here (PNG through
zlib), so that the bytes do not depend on which OpenCV a machine has.
"""
import argparse
import concurrent.futures as cf
import os
import random
import struct
import subprocess
import zlib

import numpy as np

from make_photos import read_bmp24, resize_bilinear, write_bmp24

SIZES = [((640, 480), 8), ((1024, 768), 10), ((1280, 960), 10), ((1920, 1080), 25),
         ((2048, 1536), 15), ((2592, 1944), 12), ((3264, 2448), 10), ((4000, 3000), 10)]
KINDS = [("jpeg-420", 40), ("jpeg-progressive", 10), ("jpeg-444", 8), ("jpeg-gray", 5),
         ("png-rgb", 10), ("png-16", 5), ("png-palette", 4), ("png-rgba", 4), ("bmp", 7),
         ("ppm", 4), ("pgm", 3)]
EXT = {"bmp": "bmp", "ppm": "ppm", "pgm": "pgm"}


def gray_of(rgb):
    """Rec. 601 luma, as a camera's gray JPEG holds it."""
    y = rgb[..., 0] * 0.299 + rgb[..., 1] * 0.587 + rgb[..., 2] * 0.114
    return np.clip(y + 0.5, 0, 255).astype(np.uint8)


def write_png(path, samples, color_type, depth, palette=None):
    """samples: rows x columns (x channels), uint8 or uint16 (written big-endian)."""
    h, w = samples.shape[:2]
    data = samples.astype(">u2").tobytes() if depth == 16 else samples.tobytes()
    row = len(data) // h
    raw = b"".join(b"\0" + data[y * row:(y + 1) * row] for y in range(h))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(
            ">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color_type,
                                                             0, 0, 0))
    if palette is not None:
        out += chunk(b"PLTE", palette.tobytes())
    out += chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(out)


def write_pnm(path, samples):
    h, w = samples.shape[:2]
    magic = b"P6" if samples.ndim == 3 else b"P5"
    with open(path, "wb") as f:
        f.write(magic + b"\n%d %d\n255\n" % (w, h) + samples.tobytes())


def write_jpeg(path, rgb, kind, quality):
    h, w = rgb.shape[:2]
    flags = ["-quality", str(quality)]
    if kind == "jpeg-gray":
        pnm = b"P5\n%d %d\n255\n" % (w, h) + gray_of(rgb).tobytes()
    else:
        pnm = b"P6\n%d %d\n255\n" % (w, h) + rgb.tobytes()
        flags += ["-sample", "1x1" if kind == "jpeg-444" else "2x2"]
        flags += ["-progressive"] if kind == "jpeg-progressive" else []
    with open(path, "wb") as f:
        subprocess.run(["cjpeg"] + flags, input=pnm, stdout=f, check=True)


def write_one(path, rgb, kind, quality):
    if kind.startswith("jpeg"):
        write_jpeg(path, rgb, kind, quality)
    elif kind == "png-rgb":
        write_png(path, rgb, 2, 8)
    elif kind == "png-16":  # 16 bits of which the low byte carries detail of its own
        deep = rgb.astype(np.uint16) * 257 + (np.arange(rgb.shape[1], dtype=np.uint16) % 251)[
            None, :, None]
        write_png(path, deep, 2, 16)
    elif kind == "png-palette":  # 64 colours: four levels a channel
        index = (rgb[..., 0] // 64) * 16 + (rgb[..., 1] // 64) * 4 + rgb[..., 2] // 64
        levels = np.array([32, 96, 160, 224], np.uint8)
        palette = np.array([[levels[i // 16], levels[(i // 4) % 4], levels[i % 4]]
                            for i in range(64)], np.uint8)
        write_png(path, index.astype(np.uint8), 3, 8, palette)
    elif kind == "png-rgba":  # alpha falling off across the picture
        alpha = np.linspace(255, 64, rgb.shape[1]).astype(np.uint8)
        alpha = np.broadcast_to(alpha[None, :, None], rgb.shape[:2] + (1,))
        write_png(path, np.concatenate([rgb, alpha], axis=2), 6, 8)
    elif kind == "bmp":
        write_bmp24(path, rgb[:, :, ::-1])
    else:
        write_pnm(path, rgb if kind == "ppm" else gray_of(rgb))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--count", type=int, default=1060)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--images", default="images")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--scale", type=float, default=1.0, help="each side times this")
    ap.add_argument("--each", type=int, default=0, help="this many of every kind, not --count")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    plan = []
    kinds = ([k for k, _ in KINDS for _ in range(a.each)] if a.each else
             rng.choices([k for k, _ in KINDS], [w for _, w in KINDS], k=a.count))
    for i, kind in enumerate(kinds):
        w, h = rng.choices([s for s, _ in SIZES], [w for _, w in SIZES])[0]
        size = (max(1, round(w * a.scale)), max(1, round(h * a.scale)))
        plan.append((i, size, kind, rng.randrange(75, 96)))
    sources = sorted(os.path.join(a.images, f) for f in os.listdir(a.images)
                     if f.endswith(".bmp"))
    pictures = [read_bmp24(s)[:, :, ::-1] for s in sources]  # RGB
    bases = {(size, k): resize_bilinear(p, *size)
             for size in {s for _, s, _, _ in plan} for k, p in enumerate(pictures)}
    os.makedirs(a.out, exist_ok=True)

    def make(entry):
        i, (w, h), kind, quality = entry
        img = np.roll(bases[((w, h), i % len(pictures))], shift=((i * 7) % h, (i * 13) % w),
                      axis=(0, 1))
        gain = 0.6 + 0.4 * ((i * 37) % 100) / 100.0
        img = np.ascontiguousarray(
            np.clip(img.astype(np.float32) * gain + (i % 17), 0, 255).astype(np.uint8))
        ext = "jpg" if kind.startswith("jpeg") else EXT.get(kind, "png")
        write_one(os.path.join(a.out, "mixed%04d-%s.%s" % (i, kind, ext)), img, kind, quality)

    with cf.ThreadPoolExecutor(a.threads) as pool:
        list(pool.map(make, plan))


if __name__ == "__main__":
    main()
