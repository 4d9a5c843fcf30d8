#!/usr/bin/env python3
"""Makes the photo folders of bench/e2e.sh and bench/e2e-peers.sh from the bundled images: N
photos of WxH, each the bundled image of its number (mod 3) resized, shifted by its number of
pixels and scaled in brightness, so that no two are alike; 24-bit BMP, or JPEG (--format jpeg,
quality --quality, 4:2:0 as cjpeg and OpenCV write by default).

    python3 bench/make_photos.py --out DIR --count 1000 --size 1920x1080
    python3 bench/make_photos.py --out DIR --count 1000 --size 1920x1080 --format jpeg --quality 90
    python3 bench/make_photos.py --out DIR --count 1 --size 8192x8192 --name big

With OpenCV (cv2) the resize is bicubic and the files are written by OpenCV; without it (a
machine with numpy alone) the resize is bilinear, BMPs are written here and JPEGs by libjpeg-turbo's
cjpeg. The photos then differ a little between the two machines, which changes no comparison made
on one machine.
"""
import argparse
import concurrent.futures as cf
import os
import shutil
import struct
import subprocess

import numpy as np

try:
    import cv2
except ImportError:  # numpy alone: the fallback below
    cv2 = None


def read_bmp24(path):
    """A 24-bit uncompressed BMP (the bundled images) as rows of B, G, R, row 0 on top."""
    with open(path, "rb") as f:
        data = f.read()
    offset = struct.unpack_from("<I", data, 10)[0]
    width, height, _, bpp, compression = struct.unpack_from("<iiHHI", data, 18)
    if bpp != 24 or compression != 0:
        raise SystemExit(f"{path}: not a 24-bit uncompressed BMP")
    stride = (width * 3 + 3) // 4 * 4
    rows = np.frombuffer(data, np.uint8, stride * abs(height), offset).reshape(abs(height), stride)
    img = rows[:, : width * 3].reshape(abs(height), width, 3)
    return img[::-1] if height > 0 else img


def resize_bilinear(img, w, h):
    """Bilinear resize with numpy alone (pixel centres aligned, as OpenCV's INTER_LINEAR)."""
    sh, sw = img.shape[:2]
    ys = np.clip((np.arange(h) + 0.5) * sh / h - 0.5, 0, sh - 1)
    xs = np.clip((np.arange(w) + 0.5) * sw / w - 0.5, 0, sw - 1)
    y0, x0 = ys.astype(int), xs.astype(int)
    y1, x1 = np.minimum(y0 + 1, sh - 1), np.minimum(x0 + 1, sw - 1)
    fy, fx = (ys - y0)[:, None, None], (xs - x0)[None, :, None]
    f = img.astype(np.float32)
    top = f[y0][:, x0] * (1 - fx) + f[y0][:, x1] * fx
    bottom = f[y1][:, x0] * (1 - fx) + f[y1][:, x1] * fx
    return np.clip(top * (1 - fy) + bottom * fy + 0.5, 0, 255).astype(np.uint8)


def write_bmp24(path, bgr):
    h, w = bgr.shape[:2]
    stride = (w * 3 + 3) // 4 * 4
    rows = np.zeros((h, stride), np.uint8)
    rows[:, : w * 3] = bgr[::-1].reshape(h, w * 3)
    head = b"BM" + struct.pack("<IHHI", 54 + rows.size, 0, 0, 54)
    head += struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, rows.size, 2835, 2835, 0, 0)
    with open(path, "wb") as f:
        f.write(head + rows.tobytes())


def write_jpeg_cjpeg(path, bgr, quality):
    h, w = bgr.shape[:2]
    ppm = b"P6\n%d %d\n255\n" % (w, h) + np.ascontiguousarray(bgr[:, :, ::-1]).tobytes()
    with open(path, "wb") as f:
        subprocess.run(["cjpeg", "-quality", str(quality)], input=ppm, stdout=f, check=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--name", default="photo")
    ap.add_argument("--images", default="images")
    ap.add_argument("--format", default="bmp", choices=["bmp", "jpeg"])
    ap.add_argument("--quality", type=int, default=90)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    w, h = (int(v) for v in a.size.split("x"))
    if a.format == "jpeg" and cv2 is None and not shutil.which("cjpeg"):
        raise SystemExit("make_photos.py: JPEG needs OpenCV (cv2) or cjpeg (libjpeg-turbo-progs)")
    os.makedirs(a.out, exist_ok=True)
    sources = sorted(os.path.join(a.images, f) for f in os.listdir(a.images)
                     if f.endswith(".bmp"))
    if cv2 is not None:
        bases = [cv2.resize(cv2.imread(s, cv2.IMREAD_COLOR), (w, h),
                            interpolation=cv2.INTER_CUBIC) for s in sources]
    else:
        bases = [resize_bilinear(read_bmp24(s), w, h) for s in sources]
    ext = "jpg" if a.format == "jpeg" else "bmp"

    def make(i):
        img = np.roll(bases[i % len(bases)], shift=(i * 7) % h, axis=0)
        img = np.roll(img, shift=(i * 13) % w, axis=1)
        gain = 0.6 + 0.4 * ((i * 37) % 100) / 100.0
        img = np.clip(img.astype(np.float32) * gain + (i % 17), 0, 255).astype(np.uint8)
        name = a.name if a.count == 1 else "%s%04d" % (a.name, i)
        path = os.path.join(a.out, name + "." + ext)
        if cv2 is not None:
            params = [cv2.IMWRITE_JPEG_QUALITY, a.quality] if ext == "jpg" else []
            if not cv2.imwrite(path, img, params):
                raise SystemExit(f"make_photos.py: cannot write {path}")
        elif ext == "jpg":
            write_jpeg_cjpeg(path, img, a.quality)
        else:
            write_bmp24(path, img)

    with cf.ThreadPoolExecutor(a.threads) as pool:
        list(pool.map(make, range(a.count)))


if __name__ == "__main__":
    main()
