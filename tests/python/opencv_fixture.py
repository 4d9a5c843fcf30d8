"""Writes tests/data/opencv/gaussian_kernels.txt from OpenCV itself: cv2.getGaussianKernel(n, 0)
for every odd n 1..63, each weight as float64 in float.hex(), so that the tests of gauss need
no cv2 where they run (test_arrays.py compares with cv2 live where it imports).

    python3 tests/python/opencv_fixture.py [OUT]      (on a machine with cv2 and numpy)
"""

import sys
from pathlib import Path

import cv2
import numpy as np

OUT = Path(__file__).resolve().parents[1] / "data" / "opencv" / "gaussian_kernels.txt"


def main(out=OUT):
    lines = [f"# cv2.getGaussianKernel(n, 0) for every odd n 1..63 (OpenCV {cv2.__version__}, "
             "opencv-python-headless):",
             "# n, then the n weights as float64 in Python's float.hex(). Made by "
             "tests/python/opencv_fixture.py",
             "# on a machine with cv2; tests/python/test_arrays.py checks tiledconv's gauss "
             "against it."]
    for n in range(1, 64, 2):
        k = cv2.getGaussianKernel(n, 0).ravel()
        # The float kernel OpenCV filters with is the double one rounded.
        k32 = cv2.getGaussianKernel(n, 0, ktype=cv2.CV_32F).ravel()
        assert np.array_equal(k.astype(np.float32), k32), n
        lines.append(" ".join([str(n)] + [float(v).hex() for v in k]))
    Path(out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:])
