"""Tests of the Python binding (python/tiledconv) against libtiledconv.

Run from the project root after `make`:

    PYTHONPATH=python /usr/bin/python3 -m pytest tests/python

They use the default OpenCL device (PoCL's CPU device in CI). Every program build (one per
filter length, border and algorithm) costs PoCL about a second, so the tests share one module
context and the same few settings.
"""

import ctypes
import gc
import inspect
import os
import pydoc
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import tiledconv
from c_layouts import assert_layouts_match

ROOT = Path(__file__).resolve().parents[2]
BORDERS = ["replicate", "constant", "reflect101", "reflect", "wrap"]
ALGORITHMS = ["tiled", "twopass", "onepass"]


def random_image(width, height, seed):
    return np.random.default_rng(seed).uniform(0, 255, (height, width)).astype(np.float32)


# ---- An independent Python reference: the tool's formula with numpy, in float64 --------------

def border_index(p, n, border):
    """Index into a ROI of n pixels for position p, OpenCV's rules; None: the constant."""
    if 0 <= p < n:
        return p
    if border == "replicate":
        return min(max(p, 0), n - 1)
    if border == "constant":
        return None
    if border == "wrap":
        return p % n
    if n == 1:
        return 0
    if border == "reflect101":     # dcb|abcd|cba
        period = 2 * n - 2
        p %= period
        return p if p < n else period - p
    if border == "reflect":        # cba|abcd|dcb
        period = 2 * n
        p %= period
        return p if p < n else period - 1 - p
    raise AssertionError(border)


def naive(image, kx=None, ky=None, border="replicate", border_value=0.0, src=(0, 0),
          dst=(0, 0), size=None, mask=None):
    img = np.asarray(image, dtype=np.float32).astype(np.float64)
    height, width = img.shape
    (sl, st), (dl, dt) = src, dst
    w, h = size if size is not None else (width - max(sl, dl), height - max(st, dt))
    if mask is None:
        kx, ky = np.asarray(kx, np.float64), np.asarray(ky, np.float64)
        weights = np.outer(ky, kx)
    else:
        weights = np.asarray(mask, np.float32).astype(np.float64)
    ry, rx = weights.shape[0] // 2, weights.shape[1] // 2
    roi = img[st:st + h, sl:sl + w]
    xs = [border_index(p, w, border) for p in range(-rx, w + rx)]
    ys = [border_index(p, h, border) for p in range(-ry, h + ry)]
    padded = np.full((h + 2 * ry, w + 2 * rx), float(border_value))
    for a, yy in enumerate(ys):
        for b, xx in enumerate(xs):
            if yy is not None and xx is not None:
                padded[a, b] = roi[yy, xx]
    acc = np.zeros((h, w))
    for j in range(weights.shape[0]):
        for i in range(weights.shape[1]):
            acc += weights[j, i] * padded[j:j + h, i:i + w]
    out = img.astype(np.float32)
    out[dt:dt + h, dl:dl + w] = acc
    return out


def troi_mask(shape, dst, size):
    """True inside the target ROI."""
    height, width = shape
    dl, dt = dst
    w, h = size
    mask = np.zeros(shape, dtype=bool)
    mask[dt:dt + h, dl:dl + w] = True
    return mask


def check_against_reference(out, image, **kw):
    """out within tolerance() of reference() inside the tROI, equal to image outside it."""
    ref = tiledconv.reference(image, **kw)
    tol = tiledconv.tolerance(image, **kw)
    image = np.asarray(image, dtype=np.float32)
    # A few float32 roundings of the largest sum, no more: |weights| x max |input| x 2^-13.
    if kw.get("mask") is not None:
        weights = np.abs(np.asarray(kw["mask"], np.float64)).sum()
    else:
        weights = np.prod([np.abs(np.asarray(kw[k], np.float64)).sum()
                           if kw.get(k) is not None else 1.0 for k in ("kx", "ky")])
    bound = weights * max(np.abs(image).max(), abs(kw.get("border_value", 0.0))) * 2.0**-13
    assert 0 < tol <= bound, (tol, bound)
    height, width = image.shape
    sl, st = kw.get("src", (0, 0))
    dl, dt = kw.get("dst", (0, 0))
    size = kw.get("size") or (width - max(sl, dl), height - max(st, dt))
    inside = troi_mask(image.shape, (dl, dt), size)
    assert out.dtype == np.float32 and out.shape == image.shape
    diff = np.abs(out.astype(np.float64) - ref.astype(np.float64))
    assert diff[inside].max() <= tol, f"max diff {diff[inside].max()} > tolerance {tol}"
    assert np.array_equal(out[~inside], image[~inside])
    assert np.array_equal(ref[~inside], image[~inside])


# ---- Hand-computed values --------------------------------------------------------------------

@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_binomial_replicate_by_hand(ctx, algorithm):
    # v = 5y + x, 5 wide and 4 high. The 3-tap binomial keeps a linear ramp inside; at an
    # edge with replicate it sees (0, 0, 1): 0.25 at x = 0, 3.75 at x = 4, 0.25 / 2.75 for y.
    image = np.arange(20, dtype=np.float32).reshape(4, 5)
    expected = np.array([[1.50, 2.25, 3.25, 4.25, 5.00],
                         [5.25, 6.00, 7.00, 8.00, 8.75],
                         [10.25, 11.0, 12.0, 13.0, 13.75],
                         [14.0, 14.75, 15.75, 16.75, 17.5]], dtype=np.float32)
    out = ctx.filter(image, algorithm=algorithm)
    # Every value and partial sum is a multiple of 1/16 below 32: exact in float32.
    assert np.array_equal(out, expected)
    assert np.array_equal(tiledconv.reference(image), expected)
    assert np.array_equal(ctx.filter(image, kx=[0.25, 0.5, 0.25], ky=[0.25, 0.5, 0.25],
                                     algorithm=algorithm), expected)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_constant_border_by_hand(ctx, algorithm):
    # A 4 x 3 image of 2s, border value 10: a corner sees 10 with weight
    # 1/4 + 1/4 - 1/16 = 7/16 -> 70/16 + 18/16 = 5.5; an edge 1/4 -> 2.5 + 1.5 = 4.
    image = np.full((3, 4), 2, dtype=np.float32)
    expected = np.array([[5.5, 4, 4, 5.5],
                         [4, 2, 2, 4],
                         [5.5, 4, 4, 5.5]], dtype=np.float32)
    out = ctx.filter(image, border="constant", border_value=10.0, algorithm=algorithm)
    assert np.array_equal(out, expected)
    # The default value is 0: the corner keeps 9/16 of 2.
    out0 = ctx.filter(image, border="constant", algorithm=algorithm)
    assert out0[0, 0] == np.float32(1.125) and out0[1, 1] == 2 and out0[0, 1] == 1.5


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_constant_border_loops(ctx, algorithm):
    image = random_image(9, 7, seed=5)
    kw = dict(kx=[1.0, -2.0, 0.5], ky=[0.25, 3.0, -1.0], border="constant",
              border_value=-3.5)
    out = ctx.filter(image, algorithm=algorithm, **kw)
    # The Python loops of this file, within the library's tolerance.
    tol = tiledconv.tolerance(image, **kw)
    assert np.abs(out - naive(image, **kw)).max() <= tol
    # And a hand-computed corner: rows -1 and columns -1 are -3.5.
    kx, ky = kw["kx"], kw["ky"]
    corner = sum(ky[j] * kx[i] * (image[j - 1, i - 1] if i and j else -3.5)
                 for j in range(3) for i in range(3))
    assert abs(out[0, 0] - corner) <= tol


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_impulse_is_the_flipped_outer_product(ctx, algorithm):
    # 11 wide, 9 high; one 1 at column 6, row 3. Correlation, no flip: the output at
    # (6 + dx, 3 + dy) is ky[2 - dy] * kx[2 - dx], the outer product turned by 180 degrees.
    kx = np.array([1, 2, 3, 4, 5], dtype=np.float32)
    ky = np.array([0.5, -1, 7, 0.25, 3], dtype=np.float32)
    image = np.zeros((9, 11), dtype=np.float32)
    image[3, 6] = 1
    out = ctx.filter(image, kx=kx, ky=ky, algorithm=algorithm)
    expected = np.zeros_like(image)
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            expected[3 + dy, 6 + dx] = ky[2 - dy] * kx[2 - dx]
    assert np.array_equal(out, expected)
    assert np.array_equal(expected[1:6, 4:9], np.outer(ky[::-1], kx[::-1]))
    # Orientation, literally: kx runs along rows (columns change), ky along columns.
    assert out[3, 8] == 7 * 1    # right of the impulse: ky[2] * kx[0]
    assert out[3, 4] == 7 * 5    # left: ky[2] * kx[4]
    assert out[5, 6] == 0.5 * 3  # below: ky[0] * kx[2]
    assert out[1, 6] == 3 * 3    # above: ky[4] * kx[2]


def test_python_reference_agrees_with_the_library_reference():
    # The loops of this file against tc_reference, every border, long filters on small and
    # moved ROIs (a 2-wide ROI under 15 taps reflects many times).
    rng = np.random.default_rng(11)
    image = random_image(37, 23, seed=12)
    for border in BORDERS:
        for taps in (3, 7, 15):
            kx = rng.normal(size=taps)
            ky = rng.normal(size=taps)
            for src, dst, size in [((0, 0), (0, 0), None), ((3, 2), (6, 1), (25, 17)),
                                   ((30, 18), (1, 1), (2, 3)), ((36, 0), (0, 22), (1, 1))]:
                kw = dict(kx=kx, ky=ky, border=border, border_value=7.25, src=src, dst=dst,
                          size=size)
                ref = tiledconv.reference(image, **kw)
                tol = tiledconv.tolerance(image, **kw)
                assert np.abs(ref - naive(image, **kw)).max() <= tol, (border, taps, src)


# ---- Every border x algorithm against tiledconv.reference -------------------------------------

# Every border x algorithm at 3 and 5 taps; the tiled kernel (whose builds cost PoCL ~1.5 s
# each, most of this file's time) also at 7 and 15 taps, two borders each: at 15 the rules
# that fold a 2-pixel ROI many times.
CASES = ([(b, a, t) for t in (3, 5) for a in ALGORITHMS for b in BORDERS]
         + [(b, "tiled", 7) for b in ("constant", "reflect101")]
         + [(b, "tiled", 15) for b in ("reflect", "wrap")])
ROIS = [((0, 0), (0, 0), None),          # the whole image
        ((3, 2), (6, 1), (25, 17)),      # moved right and up
        ((7, 5), (0, 0), None),          # the largest that fits: 30 x 18
        ((30, 18), (1, 1), (2, 3))]      # smaller than the filter


@pytest.mark.parametrize("border,algorithm,taps", CASES)
def test_against_reference(ctx, border, algorithm, taps):
    rng = np.random.default_rng(taps * 100 + BORDERS.index(border) * 10
                                + ALGORITHMS.index(algorithm))
    image = random_image(37, 23, seed=int(rng.integers(1 << 30)))
    before = image.copy()
    kx = rng.normal(size=taps).astype(np.float32)
    ky = rng.normal(size=taps).astype(np.float32)
    for src, dst, size in ROIS:
        kw = dict(kx=kx, ky=ky, border=border, border_value=-42.5, src=src, dst=dst, size=size)
        out = ctx.filter(image, algorithm=algorithm, **kw)
        check_against_reference(out, image, **kw)
        stats = ctx.last_stats()
        assert stats["algorithm"] == algorithm
        assert (stats["roi_width"], stats["roi_height"]) == (
            size or (37 - max(src[0], dst[0]), 23 - max(src[1], dst[1])))
    # kx None: the binomial of ky's length.
    ky = tiledconv.named_filter("binomial", taps)[1]
    out = ctx.filter(image, ky=ky, border=border, algorithm=algorithm)
    check_against_reference(out, image, ky=ky, border=border)
    assert np.array_equal(image, before)


def test_default_coefficients_are_binomials(ctx):
    image = random_image(20, 13, seed=3)
    b5 = np.array([1, 4, 6, 4, 1], dtype=np.float32) / 16
    assert np.array_equal(tiledconv.named_filter("binomial", 5)[0], b5)
    full = ctx.filter(image, kx=b5, ky=b5)
    assert np.array_equal(ctx.filter(image, kx=b5), full)           # ky: binomial of 5
    assert np.array_equal(ctx.filter(image, ky=b5), full)           # kx: binomial of 5
    b3 = [0.25, 0.5, 0.25]
    assert np.array_equal(ctx.filter(image), ctx.filter(image, kx=b3, ky=b3))


# ---- Regions of interest ----------------------------------------------------------------------

def test_roi_largest_that_fits(ctx):
    image = random_image(37, 23, seed=21)
    # width 37 - max(3, 1) = 34, height 23 - max(2, 5) = 18
    out = ctx.filter(image, src=(3, 2), dst=(1, 5))
    stats = ctx.last_stats()
    assert (stats["roi_width"], stats["roi_height"]) == (34, 18)
    assert np.array_equal(out, ctx.filter(image, src=(3, 2), dst=(1, 5), size=(34, 18)))
    assert np.array_equal(out, ctx.filter(image, src=(3, 2), dst=(1, 5), size=(0, 0)))
    inside = troi_mask(image.shape, (1, 5), (34, 18))
    assert np.array_equal(out[~inside], image[~inside])
    assert not np.array_equal(out[inside], image[inside])


def test_roi_is_an_isolated_image(ctx):
    # Filtering a ROI equals filtering its pixels cut out as an image of their own, placed at
    # the target: nothing outside the source ROI is read, whatever the border.
    image = random_image(37, 23, seed=22)
    src, dst, size = (4, 3), (10, 6), (21, 13)
    cut = image[3:3 + 13, 4:4 + 21]
    for border in BORDERS:
        kw = dict(kx=[0.5, -1, 2, 0.25, 1], ky=[1, 0, -1, 3, 0.5], border=border,
                  border_value=99.0)
        out = ctx.filter(image, src=src, dst=dst, size=size, **kw)
        alone = ctx.filter(cut, **kw)
        tol = tiledconv.tolerance(image, src=src, dst=dst, size=size, **kw)
        assert np.abs(out[6:6 + 13, 10:10 + 21] - alone).max() <= tol
        inside = troi_mask(image.shape, dst, size)
        assert np.array_equal(out[~inside], image[~inside])
        # Changing pixels outside the sROI changes nothing.
        noisy = image.copy()
        noisy[:3, :] = 1e6
        noisy[:, 25:] = -1e6
        out2 = ctx.filter(noisy, src=src, dst=dst, size=size, **kw)
        assert np.array_equal(out2[inside], out[inside])


def test_roi_at_the_far_edge(ctx):
    image = random_image(37, 23, seed=23)
    out = ctx.filter(image, src=(0, 0), dst=(37 - 5, 23 - 4), size=(5, 4))
    check_against_reference(out, image, src=(0, 0), dst=(32, 19), size=(5, 4))
    one = ctx.filter(image, src=(36, 22), dst=(36, 22), size=(1, 1))
    check_against_reference(one, image, src=(36, 22), dst=(36, 22), size=(1, 1))
    # A 1 x 1 ROI with replicate: every read is that pixel; the binomial sums to 1.
    assert one[22, 36] == image[22, 36]


def test_in_bounds_target_written_only(ctx):
    image = random_image(16, 12, seed=24)
    out = ctx.filter(image, kx=[1, 1, 1], ky=[1, 1, 1], src=(2, 2), dst=(5, 4), size=(6, 3))
    changed = out != image
    assert changed[4:7, 5:11].all()
    changed[4:7, 5:11] = False
    assert not changed.any()


# ---- Errors ----------------------------------------------------------------------------------

GOOD = random_image(37, 23, seed=31)

BAD = [
    ("1-D image", np.zeros(5, np.float32), {}),
    ("3-D image", np.zeros((3, 4, 5), np.float32), {}),
    ("0-D image", np.float32(3), {}),
    ("empty rows", np.zeros((0, 5), np.float32), {}),
    ("empty columns", np.zeros((5, 0), np.float32), {}),
    ("ragged rows", [[1, 2, 3], [4, 5]], {}),
    ("even taps", GOOD, dict(kx=[1, 2, 3, 4], ky=[1, 2, 3, 4])),
    ("even kx only", GOOD, dict(kx=[1, 2])),
    ("one tap", GOOD, dict(kx=[1], ky=[1])),
    ("no taps", GOOD, dict(kx=[], ky=[])),
    ("65 taps", GOOD, dict(kx=[1] * 65, ky=[1] * 65)),
    ("2-D kx", GOOD, dict(kx=[[1, 2, 1]])),
    ("non-numeric kx", GOOD, dict(kx=["a", "b", "c"])),
    ("1-D mask", GOOD, dict(mask=[1, 2, 1])),
    ("3-D mask", GOOD, dict(mask=np.ones((3, 3, 3)))),
    ("even mask", GOOD, dict(mask=np.ones((2, 3)))),
    ("16 x 16 mask", GOOD, dict(mask=np.ones((16, 16)))),
    ("17 x 17 mask", GOOD, dict(mask=np.ones((17, 17)))),
    ("1 x 1 mask", GOOD, dict(mask=[[2.0]])),
    ("empty mask", GOOD, dict(mask=np.zeros((0, 0)))),
    ("NaN in a mask", GOOD, dict(mask=[[1, 2, 1], [2, np.nan, 2], [1, 2, 1]])),
    ("inf in a mask", GOOD, dict(mask=[[1, 2, 1], [2, np.inf, 2], [1, 2, 1]])),
    ("ragged mask", GOOD, dict(mask=[[1, 2, 1], [2, 2], [1, 2, 1]])),
    ("non-numeric mask", GOOD, dict(mask=[["a", "b", "c"]] * 3)),
    ("mask and kx", GOOD, dict(mask=np.ones((3, 3)), kx=[1, 2, 1])),
    ("twopass and a mask", GOOD, dict(mask=[[0, 1, 0], [1, -4, 1], [0, 1, 0]],
                                      algorithm="twopass")),
    ("unknown border", GOOD, dict(border="mirrror")),
    ("border None", GOOD, dict(border=None)),
    ("OpenCV's BORDER_TRANSPARENT", GOOD, dict(border=5)),
    ("border -1", GOOD, dict(border=-1)),
    ("border True", GOOD, dict(border=True)),
    ("border 1.0", GOOD, dict(border=1.0)),
    ("unknown algorithm", GOOD, dict(algorithm="fast")),
    ("border_value text", GOOD, dict(border="constant", border_value="x")),
    ("src past the right", GOOD, dict(src=(37, 0))),
    ("src past the bottom", GOOD, dict(src=(0, 23))),
    ("dst past the right", GOOD, dict(dst=(40, 0))),
    ("size too wide", GOOD, dict(size=(38, 5))),
    ("moved ROI overhangs", GOOD, dict(src=(10, 0), dst=(0, 0), size=(30, 5))),
    ("target overhangs", GOOD, dict(src=(0, 0), dst=(0, 20), size=(5, 4))),
    ("negative src", GOOD, dict(src=(-1, 0))),
    ("negative dst", GOOD, dict(dst=(0, -1))),
    ("negative size", GOOD, dict(size=(-3, 4))),
    ("huge offset", GOOD, dict(src=(2**40, 0))),
    ("float offset", GOOD, dict(src=(1.5, 0))),
    ("src not a pair", GOOD, dict(src=3)),
]


BAD_TYPES = [
    ("non-numeric image", [["a", "b"], ["c", "d"]]),
    ("object image", [[None, 1], [2, 3]]),
    ("strings of digits", np.array([["1", "2"], ["3", "4"]])),
    ("complex image", np.ones((4, 4), np.complex64)),
    ("int64 image", np.ones((4, 4), np.int64)),
    ("bool image", np.ones((4, 4), bool)),
    ("int8 image", np.ones((4, 4), np.int8)),
    ("float16 image", np.ones((4, 4), np.float16)),
    ("list of ints", [[1, 2], [3, 4]]),
]


@pytest.mark.parametrize("what,image", BAD_TYPES, ids=[b[0] for b in BAD_TYPES])
def test_bad_dtypes_raise_type_error(ctx, what, image):
    # No silent conversion: the message names the dtypes that are taken.
    with pytest.raises(TypeError, match="uint8, uint16, float32 or float64"):
        ctx.filter(image)
    with pytest.raises(TypeError, match="uint8, uint16, float32 or float64"):
        tiledconv.reference(image)


@pytest.mark.parametrize("what,image,kw", BAD, ids=[b[0] for b in BAD])
def test_bad_arguments_raise_value_error(ctx, what, image, kw):
    with pytest.raises(ValueError) as info:
        ctx.filter(image, **kw)
    message = str(info.value)
    assert message.strip() and "\n" not in message, repr(message)
    assert not isinstance(info.value, tiledconv.Error)


LIBRARY_REFUSES = [
    # (what, image, kw, a word the library's message contains)
    ("empty", np.zeros((0, 5), np.float32), {}, "image"),
    ("even taps", GOOD, dict(kx=[1, 2, 3, 4], ky=[1, 2, 3, 4]), "taps_x 4"),
    ("65 taps", GOOD, dict(kx=[1] * 65, ky=[1] * 65), "taps_x 65"),
    ("kx 1, ky 1", GOOD, dict(kx=[2], ky=[1]), "taps_y 1"),
    ("even mask", GOOD, dict(mask=np.ones((4, 3))), "mask_width 3, mask_height 4"),
    ("NaN in a mask", GOOD, dict(mask=[[1, 2, 1], [2, np.nan, 2], [1, 2, 1]]), "mask[1][1]"),
    ("twopass and a mask", GOOD, dict(mask=[[0, 1, 0], [1, -4, 1], [0, 1, 0]],
                                      algorithm="twopass"), "not separable"),
    ("ROI outside", GOOD, dict(src=(37, 0)), "src_left 37"),
    ("negative", GOOD, dict(dst=(0, -1)), "dst_top -1"),
    ("too wide", GOOD, dict(size=(38, 5)), "roi_width 38"),
]


@pytest.mark.parametrize("what,image,kw,word", LIBRARY_REFUSES,
                         ids=[b[0] for b in LIBRARY_REFUSES])
def test_library_messages(ctx, what, image, kw, word):
    # These reach tc_filter: the ValueError carries tc_error's text, which the CPU reference's
    # validation (tc_reference) gives too.
    with pytest.raises(ValueError) as on_device:
        ctx.filter(image, **kw)
    with pytest.raises(ValueError) as on_host:
        tiledconv.reference(image, **kw)
    with pytest.raises(ValueError):
        tiledconv.tolerance(image, **kw)
    for e in (on_device.value, on_host.value):
        message = str(e)
        assert message.strip() and "\n" not in message, repr(message)
        assert not message.startswith("tiledconv: call failed")
        if word:
            assert word in message


def test_errors_are_what_the_spec_says():
    assert issubclass(tiledconv.Error, RuntimeError)
    assert not issubclass(tiledconv.Error, ValueError)
    e = tiledconv.Error("clFoo failed: CL_OUT_OF_RESOURCES (-5)", 2)
    assert str(e) == "clFoo failed: CL_OUT_OF_RESOURCES (-5)" and e.code == 2


def test_no_such_device():
    for spec in ("99:99", "gpu:77:0"):
        with pytest.raises(ValueError) as info:
            tiledconv.Context(spec)
        assert str(info.value).strip() and "\n" not in str(info.value)
    with pytest.raises(ValueError):
        tiledconv.Context(42)


def test_context_survives_a_failed_call(ctx):
    image = random_image(37, 23, seed=41)
    good = ctx.filter(image, kx=[1, 2, 1], ky=[1, 2, 1])
    with pytest.raises(ValueError):
        ctx.filter(image, src=(50, 0))
    with pytest.raises(ValueError):
        ctx.filter(image, kx=[1, 2, 3, 4])
    # The figures are still those of the last successful call.
    assert ctx.last_stats()["roi_width"] == 37
    again = ctx.filter(image, kx=[1, 2, 1], ky=[1, 2, 1])
    assert np.array_equal(again, good)
    check_against_reference(again, image, kx=[1, 2, 1], ky=[1, 2, 1])


def test_closed_context():
    c = tiledconv.Context()
    c.close()
    c.close()  # twice is fine
    assert c.closed
    with pytest.raises(ValueError):
        c.filter(GOOD)
    with pytest.raises(ValueError):
        c.last_stats()
    with tiledconv.Context() as c2:
        assert not c2.closed
    assert c2.closed
    assert "closed" in repr(c2)


# ---- Input types -----------------------------------------------------------------------------

def test_input_types(ctx):
    base = np.random.default_rng(51).uniform(-100, 100, (46, 111))
    f32 = np.ascontiguousarray(base, dtype=np.float32)
    expected = ctx.filter(f32)
    check_against_reference(expected, f32)
    # float64 is computed in float32 and comes back as float64; other layouts of float32 give
    # the same float32; a list of floats is float64.
    out = ctx.filter(base)
    assert out.dtype == np.float64 and np.array_equal(out, expected.astype(np.float64))
    inputs = {"Fortran": np.asfortranarray(f32), "reversed rows": f32[::-1][::-1],
              "list": f32.astype(np.float64).tolist()}
    for name, arr in inputs.items():
        saved = np.array(arr, copy=True)
        out = ctx.filter(arr)
        assert out.shape == f32.shape and out.flags.c_contiguous
        assert np.array_equal(out.astype(np.float32), expected), name
        assert np.array_equal(np.asarray(arr), saved), f"{name} was modified"
    sliced = f32[::2, ::3]  # 23 x 37, not contiguous
    assert not sliced.flags.c_contiguous
    assert np.array_equal(ctx.filter(sliced), ctx.filter(np.ascontiguousarray(sliced)))
    # A float32 C-contiguous input is read, not copied, and not modified.
    saved = f32.copy()
    out = ctx.filter(f32)
    assert out is not f32 and np.array_equal(f32, saved)
    # Coefficients as lists, tuples, float64 or int arrays give the same.
    k = np.array([1, 3, 1], dtype=np.float32)
    want = ctx.filter(f32, kx=k, ky=k)
    for kk in ([1, 3, 1], (1.0, 3.0, 1.0), np.array([1, 3, 1]), np.array([1.0, 3.0, 1.0])):
        assert np.array_equal(ctx.filter(f32, kx=kk, ky=kk), want)


def test_views_and_numpy_scalars(ctx):
    # ROI pairs may be numpy integers; the image may be a read-only view.
    image = random_image(37, 23, seed=53)
    image.flags.writeable = False
    out = ctx.filter(image, src=np.array([3, 2]), dst=(np.int64(1), np.int32(5)),
                     size=(np.uint8(10), 4))
    assert np.array_equal(out, ctx.filter(image.copy(), src=(3, 2), dst=(1, 5), size=(10, 4)))


# ---- The build cache, statistics ---------------------------------------------------------------

def test_build_cache():
    # A fresh context builds every program again: twopass, whose builds are the cheapest.
    image = random_image(37, 23, seed=61)
    kw = dict(algorithm="twopass")
    with tiledconv.Context() as c:
        assert c.last_stats() is None  # nothing run yet
        c.filter(image, kx=[1, 2, 1], ky=[1, 2, 1], **kw)
        first = c.last_stats()
        assert first["programs_built"] >= 1 and first["build_ms"] > 0
        n = first["programs_built"]
        # The same settings again, other coefficients, another image size and ROI: no build.
        c.filter(image, kx=[1, 2, 1], ky=[1, 2, 1], **kw)
        second = c.last_stats()
        assert second["programs_built"] == n and second["build_ms"] == 0
        c.filter(image, kx=[3, -2, 1], ky=[0, 1, 0], **kw)
        c.filter(image[:11, :17], src=(1, 1), dst=(2, 0), border_value=5, **kw)
        assert c.last_stats()["programs_built"] == n
        # Another border, then other taps: one build each.
        c.filter(image, border="wrap", **kw)
        assert c.last_stats()["programs_built"] == n + 1
        assert c.last_stats()["build_ms"] > 0
        c.filter(image, kx=[1, 4, 6, 4, 1], ky=[1, 4, 6, 4, 1], border="wrap", **kw)
        assert c.last_stats()["programs_built"] == n + 2
        # Back to earlier settings: cached.
        c.filter(image, border="wrap", **kw)
        c.filter(image, **kw)
        assert c.last_stats()["programs_built"] == n + 2


def test_last_stats(timed):
    ctx = timed
    image = random_image(37, 23, seed=62)
    ctx.filter(image, src=(2, 1), size=(20, 10))
    s = ctx.last_stats()
    expected_keys = {"algorithm", "iterations", "kernel_ms_min", "kernel_ms_median",
                     "kernel_ms_mean", "kernel_ms", "passes", "pass_ms", "build_ms",
                     "upload_ms", "download_ms", "wall_ms_per_iteration", "global", "local",
                     "block", "classes", "classes_counted", "roi_width", "roi_height",
                     "programs_built", "planes", "convert_ms"}
    assert set(s) == expected_keys
    assert s["algorithm"] == "tiled" and s["iterations"] == 1 and s["passes"] == 1
    assert (s["roi_width"], s["roi_height"]) == (20, 10)
    assert len(s["kernel_ms"]) == 1 and s["kernel_ms"][0] == s["kernel_ms_median"] > 0
    assert s["pass_ms"] is None
    assert s["planes"] == 1 and s["convert_ms"] >= 0.0
    assert all(g > 0 for g in s["global"]) and all(v > 0 for v in s["local"])
    assert s["global"][0] % s["local"][0] == 0 and s["global"][1] % s["local"][1] == 0
    assert s["block"][0] in (4, 8) and 1 <= s["block"][1] <= 16
    # Every work-group is in class 1 or 2, and in class 3 or 4.
    groups = (s["global"][0] // s["local"][0]) * (s["global"][1] // s["local"][1])
    c1, c2, c3, c4 = s["classes"]
    assert c1 + c2 == groups and c3 + c4 == groups


def test_filter_timed(ctx):
    image = random_image(37, 23, seed=63)
    want = ctx.filter(image, algorithm="twopass")
    out = ctx.filter_timed(image, iterations=3, algorithm="twopass")
    assert np.array_equal(out, want)
    s = ctx.last_stats()
    assert s["iterations"] == 3 and len(s["kernel_ms"]) == 3 and s["passes"] == 2
    assert len(s["pass_ms"]) == 2 and all(len(p) == 3 for p in s["pass_ms"])
    assert s["kernel_ms_min"] <= s["kernel_ms_median"] <= max(s["kernel_ms"])
    assert s["kernel_ms_min"] == min(s["kernel_ms"]) > 0
    with pytest.raises(ValueError):
        ctx.filter_timed(image, iterations=0)
    assert ctx.copy_time(1 << 20, repeats=3) > 0


# ---- Threads, leaks --------------------------------------------------------------------------

def test_threads_share_a_context(ctx):
    images = [random_image(37, 23, seed=70 + i) for i in range(4)]
    want = [ctx.filter(im, border="reflect101") for im in images]
    errors = []

    def work(i):
        try:
            for _ in range(5):
                if not np.array_equal(ctx.filter(images[i], border="reflect101"), want[i]):
                    errors.append(f"thread {i}: wrong result")
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(f"thread {i}: {e!r}")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def open_fds():
    return len(os.listdir("/proc/self/fd"))


def resident_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_no_leaks(ctx):
    image = random_image(128, 96, seed=81)  # 48 KiB: keeping each result would show
    kw = dict(kx=[1, 2, 1], ky=[1, 2, 1], src=(1, 2), dst=(2, 1))
    first = ctx.filter(image, **kw)  # warm-up: program and buffers exist
    ctx.last_stats()
    gc.collect()
    fds, rss = open_fds(), resident_bytes()
    for _ in range(100):
        out = ctx.filter(image, **kw)
        ctx.last_stats()
    del out
    gc.collect()
    assert open_fds() == fds
    grown = resident_bytes() - rss
    assert grown < 1 << 20, f"resident memory grew by {grown} bytes over 100 calls"
    assert np.array_equal(ctx.filter(image, **kw), first)


def test_closing_contexts_releases_them():
    # A context's buffers (2 x 256 KiB here) and programs go with tc_close. PoCL and the
    # allocator settle over the first few dozen contexts (about 100 KiB per context, then
    # nothing), so batches of ten run until one grows resident memory by less than 512 KiB:
    # a leak of a buffer per context (2.5 MB per batch) fails every batch.
    image = random_image(256, 256, seed=82)
    kw = dict(algorithm="onepass", border="reflect")
    with tiledconv.Context() as c:  # warm-up: the OpenCL platform, the compiler
        c.filter(image, **kw)
    gc.collect()
    fds = open_fds()
    growth = []
    for _ in range(5):
        rss = resident_bytes()
        for _ in range(10):
            with tiledconv.Context() as c:
                c.filter(image, **kw)
        gc.collect()
        assert open_fds() == fds
        growth.append(resident_bytes() - rss)
        if growth[-1] < 512 << 10:
            break
    assert min(growth) < 512 << 10, f"resident memory grew by {growth} bytes per 10 contexts"


# ---- The module-level API --------------------------------------------------------------------

def test_module_filter_equals_context_filter(ctx):
    image = random_image(37, 23, seed=91)
    # onepass: the default context builds its own programs, and onepass's are the cheapest.
    kw = dict(kx=[1, -2, 4], ky=[2, 0.5, 1], border="reflect", src=(2, 3), dst=(4, 1),
              algorithm="onepass")
    assert np.array_equal(tiledconv.filter(image, **kw), ctx.filter(image, **kw))
    assert tiledconv.default_context() is tiledconv.default_context()
    assert tiledconv.default_context() is not ctx
    # The same arguments and defaults as Context.filter.
    method = inspect.signature(tiledconv.Context.filter).parameters
    assert list(method)[0] == "self"
    assert (list(inspect.signature(tiledconv.filter).parameters.values())
            == list(method.values())[1:])
    with pytest.raises(ValueError):
        tiledconv.filter(image, src=(99, 0))


def test_devices(ctx):
    devs = tiledconv.devices()
    assert devs, "no OpenCL device listed, yet a context opened"
    mine = ctx.device
    assert isinstance(mine, tiledconv.Device)
    assert mine in devs
    for d in devs:
        assert d.name and d.platform_name and d.compute_units >= 1
        assert d.max_alloc_bytes <= d.global_mem_bytes and d.local_mem_bytes > 0
        assert d.spec == f"{d.platform}:{d.device}"
    with tiledconv.Context(mine) as same:
        assert same.device == mine
    with tiledconv.Context(mine.spec) as same:
        assert same.device == mine
    assert mine.name in repr(ctx)


def test_named_filters():
    b5 = np.array([1, 4, 6, 4, 1], dtype=np.float32) / 16
    kx, ky = tiledconv.named_filter("binomial", 5)
    assert kx.dtype == np.float32 and np.array_equal(kx, b5) and np.array_equal(ky, b5)
    kx, ky = tiledconv.named_filter("box", 5)
    assert np.array_equal(kx, np.full(5, 0.2, np.float32)) and np.array_equal(ky, kx)
    kx, ky = tiledconv.named_filter("gauss", 7, sigma=1.5)
    assert len(kx) == 7 and abs(kx.sum() - 1) < 1e-6 and np.array_equal(kx, kx[::-1])
    assert kx[3] > kx[2] > kx[1] > kx[0] > 0
    # sobel-x differentiates along rows: kx odd, ky a smoothing.
    kx, ky = tiledconv.named_filter("sobel-x", 3)
    assert kx[1] == 0 and kx[0] == -kx[2] and kx[2] > 0
    assert ky[0] == ky[2] and ky[1] == 2 * ky[0] > 0
    sy_x, sy_y = tiledconv.named_filter("sobel-y", 3)
    assert np.array_equal(sy_x, ky) and np.array_equal(sy_y, kx)
    kx, ky = tiledconv.named_filter("sobel-x", 5)  # OpenCV's extended Sobel
    assert np.array_equal(kx, [-1, -2, 0, 2, 1]) and np.array_equal(ky, [1, 4, 6, 4, 1])
    for name, taps in [("nope", 3), ("scharr-x", 5), ("box", 4), ("box", 65), ("box", -1),
                       ("box", 1), ("", 3), ("sobel-x", 33), ("laplacian", 3)]:
        with pytest.raises(ValueError) as info:
            tiledconv.named_filter(name, taps)
        assert str(info.value).strip() and "\n" not in str(info.value)


# ---- Long filters, a length per axis, masks ---------------------------------------------------

def test_lengths_per_axis_and_long(ctx):
    image = random_image(70, 50, seed=151)
    rng = np.random.default_rng(152)
    for kx_len, ky_len, algorithm, border in [(7, 3, "tiled", "reflect"), (3, 7, "twopass", "wrap"),
                                              (1, 9, "onepass", "constant"), (31, 1, "tiled", "replicate"),
                                              (63, 63, "tiled", "reflect101"), (17, 17, "twopass", "replicate")]:
        kx = rng.normal(size=kx_len).astype(np.float32)
        ky = rng.normal(size=ky_len).astype(np.float32)
        kw = dict(kx=kx, ky=ky, border=border, border_value=12.5, algorithm=algorithm,
                  src=(3, 1), dst=(1, 4))
        out = ctx.filter(image, **kw)
        check_against_reference(out, image, **kw)
        # ... and against the Python reference of the formula.
        ref = naive(image, kx, ky, border, 12.5, (3, 1), (1, 4))
        assert np.abs(out - ref).max() <= tiledconv.tolerance(image, **kw) + 1e-4
    # None for one axis: the binomial of the other's length.
    out = ctx.filter(image, kx=[1, 0, 0, 0, -1])
    b5 = tiledconv.named_filter("binomial", 5)[0]
    assert np.allclose(out, naive(image, [1, 0, 0, 0, -1], b5), atol=1e-3)


MASK3 = np.array([[1, -2, 3], [0, 4, -1], [2, 1, -3]], np.float32) / 16


def test_mask_by_hand(ctx):
    # A single 1 at (2, 1) of a 5 x 4 zero image: out(x, y) = sum mask[j, i] S(x + i - 1,
    # y + j - 1), so the 1 shows mask[j, i] at (3 - i, 2 - j): the mask flipped, as any
    # correlation shows an impulse, each weight exact.
    image = np.zeros((4, 5), np.float32)
    image[1, 2] = 1.0
    for algorithm in ("tiled", "onepass"):
        out = ctx.filter(image, mask=MASK3, border="constant", algorithm=algorithm)
        want = np.zeros((4, 5), np.float32)
        want[0:3, 1:4] = MASK3[::-1, ::-1]
        assert np.array_equal(out, want), algorithm


def test_masks_against_references(ctx):
    image = random_image(64, 48, seed=153)
    rng = np.random.default_rng(154)
    for shape, algorithm, border in [((3, 3), "tiled", "replicate"), ((3, 5), "onepass", "wrap"),
                                     ((7, 7), "tiled", "reflect"), ((15, 15), "tiled", "reflect101"),
                                     ((1, 3), "twopass", "constant")]:
        mask = rng.uniform(-1, 1, shape).astype(np.float32)
        kw = dict(mask=mask, border=border, border_value=3.0, algorithm=algorithm,
                  src=(2, 3), dst=(4, 1), size=(50, 40))
        out = ctx.filter(image, **kw)
        check_against_reference(out, image, **kw)
        ref = naive(image, border=border, border_value=3.0, src=(2, 3), dst=(4, 1),
                    size=(50, 40), mask=mask)
        assert np.abs(out - ref).max() <= tiledconv.tolerance(image, **kw) + 1e-4, shape


def test_rank1_mask_is_factored(ctx):
    b = np.array([1, 4, 6, 4, 1], np.float32)
    mask = np.outer(np.array([1, -2, 1], np.float32), b)  # 3 rows of 5
    kx, ky = tiledconv.mask_factors(mask)
    assert len(kx) == 5 and len(ky) == 3
    assert np.allclose(np.outer(ky, kx), mask, rtol=1e-6, atol=0)
    assert tiledconv.mask_factors(MASK3) is None
    assert tiledconv.mask_factors(np.zeros((3, 3))) is not None  # rank 0
    image = random_image(40, 30, seed=155)
    # twopass takes it (the factors), and every algorithm matches the mask's own reference.
    for algorithm in ALGORITHMS:
        out = ctx.filter(image, mask=mask, algorithm=algorithm)
        check_against_reference(out, image, mask=mask, algorithm=algorithm)
    with pytest.raises(ValueError):
        tiledconv.mask_factors([[1, 2], [3, 4]])
    with pytest.raises(ValueError):
        tiledconv.mask_factors([[np.nan, 1, 1]])


def test_named_masks():
    assert np.array_equal(tiledconv.named_mask("laplacian"),
                          [[0, 1, 0], [1, -4, 1], [0, 1, 0]])
    assert np.array_equal(tiledconv.named_mask("laplacian8"),
                          [[1, 1, 1], [1, -8, 1], [1, 1, 1]])
    sharpen = tiledconv.named_mask("sharpen")
    assert sharpen.dtype == np.float32 and sharpen.shape == (3, 3)
    assert np.array_equal(sharpen, np.array([[-1, -2, -1], [-2, 28, -2], [-1, -2, -1]]) / 16)
    assert np.array_equal(tiledconv.named_mask("sharpen", amount=2),
                          np.array([[-2, -4, -2], [-4, 40, -4], [-2, -4, -2]]) / 16)
    # A constant image: laplacians give 0, sharpen gives it back (its weights sum to 1).
    flat = np.full((9, 11), 77.0, np.float32)
    assert np.array_equal(tiledconv.filter(flat, mask=tiledconv.named_mask("laplacian")),
                          np.zeros_like(flat))
    assert np.allclose(tiledconv.filter(flat, mask=tiledconv.named_mask("sharpen")), flat)
    for name in ("gauss", "nope", "", None):
        with pytest.raises(ValueError):
            tiledconv.named_mask(name)
    with pytest.raises(ValueError):
        tiledconv.named_mask("sharpen", amount="x")
    with pytest.raises(ValueError):
        tiledconv.named_mask("sharpen", amount=float("nan"))


def test_sobel_on_a_ramp(ctx):
    # v = 3x: sobel-x (kx = (-1, 0, 1) * s) gives 2 * 3 * s * sum(ky) inside, whatever the sign
    # convention of the scale, and sobel-y gives 0.
    image = np.tile(np.arange(12, dtype=np.float32) * 3, (9, 1))
    kx, ky = tiledconv.named_filter("sobel-x", 3)
    out = ctx.filter(image, kx=kx, ky=ky)
    assert np.allclose(out[:, 1:-1], 6 * kx[2] * ky.sum(), rtol=1e-6)
    kx, ky = tiledconv.named_filter("sobel-y", 3)
    assert np.array_equal(ctx.filter(image, kx=kx, ky=ky), np.zeros_like(image))


def test_names_and_version():
    assert list(tiledconv.BORDERS) == BORDERS
    # bilinear (since 1.2, tests/python/test_images.py) after the three exact algorithms.
    assert list(tiledconv.ALGORITHMS) == ALGORITHMS + ["bilinear"]
    assert list(tiledconv.STORAGES) == ["buffer", "image"]
    header = (ROOT / "include" / "tiledconv.h").read_text()
    parts = [re.search(rf"#define TC_VERSION_{p} (\d+)", header).group(1)
             for p in ("MAJOR", "MINOR", "PATCH")]
    assert tiledconv.__version__ == ".".join(parts)
    # The pip package's version is written out in python/pyproject.toml: it must follow.
    pyproject = (ROOT / "python" / "pyproject.toml").read_text()
    assert re.search(r'^version = "([^"]+)"$', pyproject, re.M).group(1) == tiledconv.__version__


def test_docstrings():
    text = pydoc.render_doc(tiledconv, renderer=pydoc.plaintext)
    for words in ("correlation", "no flip", "replicate", "reflect101", "wrap", "ROI",
                  "TILEDCONV_LIBRARY", "Context", "Example"):
        assert words in text, words
    for obj in (tiledconv, tiledconv.Context, tiledconv.Context.filter, tiledconv.filter,
                tiledconv.Error, tiledconv.Device, tiledconv.devices, tiledconv.reference,
                tiledconv.tolerance, tiledconv.named_filter, tiledconv.named_mask,
                tiledconv.mask_factors, tiledconv.Context.last_stats,
                tiledconv.Context.close, tiledconv.Context.filter_timed):
        assert obj.__doc__ and len(obj.__doc__.strip()) > 40, obj
    assert "border_value" in tiledconv.Context.filter.__doc__


# ---- The C side: struct layouts, finding the library -------------------------------------------

LAYOUT_BODY = """
    S(tc_params) F(tc_params, taps_x) F(tc_params, taps_y) F(tc_params, kx) F(tc_params, ky)
    F(tc_params, src_left) F(tc_params, src_top) F(tc_params, dst_left) F(tc_params, dst_top)
    F(tc_params, roi_width) F(tc_params, roi_height) F(tc_params, border)
    F(tc_params, border_value) F(tc_params, algorithm) F(tc_params, mask)
    F(tc_params, mask_width) F(tc_params, mask_height) F(tc_params, block_width)
    F(tc_params, block_height) F(tc_params, vector_io) F(tc_params, count_classes)
    F(tc_params, out_scale) F(tc_params, out_offset) F(tc_params, convert_on_host)
    F(tc_params, storage) F(tc_params, kernel)
    S(tc_stats) F(tc_stats, algorithm) F(tc_stats, iterations) F(tc_stats, kernel_ms_min)
    F(tc_stats, kernel_ms_median) F(tc_stats, kernel_ms_mean) F(tc_stats, kernel_ms)
    F(tc_stats, passes) F(tc_stats, pass_ms) F(tc_stats, build_ms) F(tc_stats, upload_ms)
    F(tc_stats, download_ms) F(tc_stats, wall_ms_per_iteration) F(tc_stats, global)
    F(tc_stats, local) F(tc_stats, block) F(tc_stats, classes) F(tc_stats, classes_counted)
    F(tc_stats, roi_width) F(tc_stats, roi_height) F(tc_stats, programs_built)
    F(tc_stats, planes) F(tc_stats, convert_ms)
    S(tc_device_info) F(tc_device_info, platform) F(tc_device_info, device)
    F(tc_device_info, platform_name) F(tc_device_info, platform_version)
    F(tc_device_info, name) F(tc_device_info, is_gpu) F(tc_device_info, is_cpu)
    F(tc_device_info, compute_units) F(tc_device_info, global_mem_bytes)
    F(tc_device_info, max_alloc_bytes) F(tc_device_info, local_mem_bytes)
    F(tc_device_info, has_double)
"""


def test_struct_layouts_match_the_header(tmp_path):
    from tiledconv import _native
    assert_layouts_match(tmp_path, LAYOUT_BODY,
                         {"tc_params": _native.TcParams, "tc_stats": _native.TcStats,
                          "tc_device_info": _native.TcDeviceInfo})


def clean_env(extra=None, pythonpath=None):
    """This process's environment without what steers the library search (and without a
    sanitizer's LD_PRELOAD, which would be the compiler's too)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("TILEDCONV_LIBRARY", "PYTHONPATH", "LD_PRELOAD")}
    if pythonpath:
        env["PYTHONPATH"] = str(pythonpath)
    env.update(extra or {})
    return env


def run_python(code, env_extra=None, pythonpath=None):
    return subprocess.run([sys.executable, "-c", code], env=clean_env(env_extra, pythonpath),
                          cwd="/", capture_output=True, text=True, timeout=60)


def loaded_library():
    """The file of the libtiledconv this process loaded (whichever way it was found)."""
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1]
            if os.path.basename(path).startswith("libtiledconv.so"):
                return Path(path)
    raise AssertionError("libtiledconv is not mapped into this process")


def copy_package(to):
    shutil.copytree(ROOT / "python" / "tiledconv", to / "tiledconv",
                    ignore=shutil.ignore_patterns("__pycache__"))


SHOW = "import tiledconv, tiledconv._native as n; print(n.path); print(tiledconv.__version__)"


def test_finding_the_library(tmp_path):
    lib = loaded_library()

    # The build tree: PYTHONPATH=python from a project root with build/lib beside it.
    project = tmp_path / "project"
    copy_package(project / "python")
    (project / "build" / "lib").mkdir(parents=True)
    shutil.copy(lib, project / "build" / "lib" / "libtiledconv.so.1")
    r = run_python(SHOW, pythonpath=project / "python")
    assert r.returncode == 0, r.stderr
    found, version = r.stdout.split()
    assert Path(found) == project / "build" / "lib" / "libtiledconv.so.1"
    assert version == tiledconv.__version__

    # TILEDCONV_LIBRARY comes first; a wrong one is an ImportError that names it.
    elsewhere = tmp_path / "elsewhere" / "libtiledconv.so.1"
    elsewhere.parent.mkdir()
    shutil.copy(lib, elsewhere)
    r = run_python(SHOW, {"TILEDCONV_LIBRARY": str(elsewhere)}, pythonpath=project / "python")
    assert r.returncode == 0 and r.stdout.split()[0] == str(elsewhere), r.stderr
    missing = tmp_path / "missing.so"
    r = run_python(SHOW, {"TILEDCONV_LIBRARY": str(missing)}, pythonpath=project / "python")
    assert r.returncode != 0 and "ImportError" in r.stderr
    assert "TILEDCONV_LIBRARY" in r.stderr and str(missing) in r.stderr

    # An installed prefix: P/lib/python3/dist-packages/tiledconv and P/lib/libtiledconv.so.1.
    prefix = tmp_path / "prefix"
    site = prefix / "lib" / "python3" / "dist-packages"
    copy_package(site)
    shutil.copy(lib, prefix / "lib" / "libtiledconv.so.1")
    r = run_python(SHOW, pythonpath=site)
    assert r.returncode == 0, r.stderr
    assert Path(r.stdout.split()[0]) == prefix / "lib" / "libtiledconv.so.1"

    # The package alone: the dynamic loader's search (LD_LIBRARY_PATH here), else an
    # ImportError that says where it looked and how to point at the library.
    alone = tmp_path / "alone" / "a" / "b"
    copy_package(alone)
    r = run_python(SHOW, {"LD_LIBRARY_PATH": str(elsewhere.parent)}, pythonpath=alone)
    assert r.returncode == 0 and r.stdout.split()[0] == "libtiledconv.so.1", r.stderr
    r = run_python(SHOW, {"LD_LIBRARY_PATH": ""}, pythonpath=alone)
    probe = run_python("import ctypes; ctypes.CDLL('libtiledconv.so.1')", {"LD_LIBRARY_PATH": ""})
    if probe.returncode == 0:  # installed system-wide: the loader's search finds it
        assert r.returncode == 0 and r.stdout.split()[0] == "libtiledconv.so.1", r.stderr
    else:
        assert r.returncode != 0 and "ImportError" in r.stderr
        for words in ("TILEDCONV_LIBRARY", "build tree", "installed prefix",
                      "libtiledconv.so.1", str(alone)):
            assert words in r.stderr, words
