#!/usr/bin/env python3
"""tests/data/opencv/make-fixtures.py - reference outputs made with OpenCV, for tests/e2e.sh.

Each case filters a source ROI of the bundled image's intensity plane as an isolated image
(cv2.copyMakeBorder with the case's border, then cv2.filter2D for a mask or cv2.sepFilter2D for
separable weights, on the padded array with no further border), and stores the result as
little-endian float32, row 0 first: NAME.f32. cases.txt lists each case as one line:

    NAME WIDTH HEIGHT TILEDCONV-ARGUMENTS...

the arguments giving tiledconv the same filter, border and ROIs (sROI at 20,10, tROI at 0,0),
so that tests/e2e.sh can compare tiledconv's --raw plane with NAME.f32 without OpenCV. The
intensity is tiledconv's, 0.299 R + 0.587 G + 0.114 B, formed in float64 and rounded to float32
(as tiledconv forms it). OpenCV correlates (filter2D's anchor is the centre; no flip), as
tiledconv does.

    /usr/bin/python3 tests/data/opencv/make-fixtures.py            (re)write the fixtures
    /usr/bin/python3 tests/data/opencv/make-fixtures.py --check DIR    write them into DIR
                                         instead (tests/e2e.sh compares the two: OpenCV live)

Made with python3-opencv 4.6.0 and NumPy from Debian 12 (/usr/bin/python3).
"""
import os
import sys

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
IMAGE = os.path.join(ROOT, "images", "TiledConv_Input451x300.bmp")
SL, ST, W, H = 20, 10, 32, 24   # the source ROI; the target ROI is at (0, 0)

BORDERS = {"replicate": cv2.BORDER_REPLICATE, "constant": cv2.BORDER_CONSTANT,
           "reflect101": cv2.BORDER_REFLECT_101, "reflect": cv2.BORDER_REFLECT,
           "wrap": cv2.BORDER_WRAP}


def gauss(taps):
    d = np.arange(taps, dtype=np.float64) - taps // 2
    g = np.exp(-d * d / (2.0 * (taps / 6.0) ** 2))
    return (g / g.sum()).astype(np.float32)


def words(values):
    return ",".join(repr(float(v)) for v in values)


def mask_words(m):
    return ";".join(words(row) for row in m)


M3 = np.array([[1, -2, 3], [0, 4, -1], [2, 1, -3]], np.float32) / 16
M53 = np.array([[1, 0, -2, 1, 3], [2, -1, 4, 0, -2], [-3, 2, 5, 1, 0]], np.float32) / 16
M13 = np.array([[1], [-2], [1]], np.float32)  # rank 1: tiledconv factors it
M15 = np.array([[(3 * i + 5 * j) % 7 - 3 for i in range(15)] for j in range(15)],
               np.float32) / 64
K7 = np.array([1, -2, 3, 4, 3, -2, 1], np.float32) / 8
K3 = np.array([2, 1, -1], np.float32)
G31 = gauss(31)
G63 = gauss(63)

# name, ("mask", m) or ("sep", kx, ky), border, constant value
CASES = [(f"mask3x3-{b}", ("mask", M3), b, 37.5) for b in BORDERS]
CASES += [
    ("mask5x3-reflect101", ("mask", M53), "reflect101", 0.0),
    ("mask5x3-wrap", ("mask", M53), "wrap", 0.0),
    ("mask1x3-replicate", ("mask", M13), "replicate", 0.0),
    ("mask15x15-reflect101", ("mask", M15), "reflect101", 0.0),
    ("sep7x3-constant", ("sep", K7, K3), "constant", 10.0),
    ("sep31-reflect", ("sep", G31, G31), "reflect", 0.0),
    ("sep63x1-replicate", ("sep", G63, np.ones(1, np.float32)), "replicate", 0.0),
]


def intensity():
    bgr = cv2.imread(IMAGE).astype(np.float64)
    return (0.299 * bgr[:, :, 2] + 0.587 * bgr[:, :, 1] + 0.114 * bgr[:, :, 0]).astype(np.float32)


def main():
    out = HERE
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        out = sys.argv[2]
    elif len(sys.argv) != 1:
        sys.exit(__doc__)
    roi = intensity()[ST:ST + H, SL:SL + W].copy()
    lines = []
    for name, f, border, value in CASES:
        if f[0] == "mask":
            m = f[1]
            rx, ry = m.shape[1] // 2, m.shape[0] // 2
            args = ["--mask", mask_words(m)]
        else:
            kx, ky = f[1], f[2]
            rx, ry = len(kx) // 2, len(ky) // 2
            args = ["--cx", words(kx), "--cy", words(ky)]
        padded = cv2.copyMakeBorder(roi, ry, ry, rx, rx, BORDERS[border], value=value)
        if f[0] == "mask":
            want = cv2.filter2D(padded.astype(np.float64), cv2.CV_64F, m.astype(np.float64),
                                borderType=cv2.BORDER_CONSTANT)
        else:
            want = cv2.sepFilter2D(padded.astype(np.float64), cv2.CV_64F,
                                   kx.astype(np.float64), ky.astype(np.float64),
                                   borderType=cv2.BORDER_CONSTANT)
        want = want[ry:ry + H, rx:rx + W].astype("<f4")
        want.tofile(os.path.join(out, name + ".f32"))
        bword = f"constant={value:g}" if border == "constant" else border
        lines.append(" ".join([name, str(W), str(H)] + args +
                              ["--border", bword, "-sL", str(SL), "-sT", str(ST), "-W", str(W),
                               "-H", str(H)]))
    with open(os.path.join(out, "cases.txt"), "w") as fh:
        fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
