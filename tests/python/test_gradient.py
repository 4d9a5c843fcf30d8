"""Tests of the binding's gradient (tiledconv.gradient, Context.gradient, gradient_reference,
gradient_tolerance) against an independent numpy gradient, the plain filters and each other.

Run from the project root after `make`:

    PYTHONPATH=python /usr/bin/python3 -m pytest tests/python

Each border and operator is one program build on PoCL (about a second): the cases keep to the
few settings the C tests build too.
"""

import numpy as np
import pytest

import tiledconv

BORDERS = ["replicate", "constant", "reflect101", "reflect", "wrap"]
# numpy's names for OpenCV's borders (one pixel of padding, ROIs of 2 pixels or more).
NP_PAD = {"replicate": "edge", "constant": "constant", "reflect101": "reflect",
          "reflect": "symmetric", "wrap": "wrap"}
SMOOTH = {"sobel": [1.0, 2.0, 1.0], "scharr": [3.0, 10.0, 3.0]}


def random_image(width, height, seed):
    return np.random.default_rng(seed).uniform(0, 255, (height, width)).astype(np.float32)


def numpy_gradient(image, operator, border="replicate", border_value=0.0, src=(0, 0),
                   dst=(0, 0), size=None):
    """gx, gy and the magnitude in float64 with numpy: the source ROI padded by one pixel by
    the border rule, correlated with [-1 0 1] and the smoothing; outside the tROI the input."""
    img = np.asarray(image, np.float64)
    height, width = img.shape
    (sl, st), (dl, dt) = src, dst
    w, h = size if size is not None else (width - max(sl, dl), height - max(st, dt))
    roi = img[st:st + h, sl:sl + w]
    kw = {"constant_values": border_value} if border == "constant" else {}
    p = np.pad(roi, 1, mode=NP_PAD[border], **kw)
    a, b, _ = SMOOTH[operator]
    d = p[:, 2:] - p[:, :-2]                                  # along the rows, h + 2 rows
    s = a * p[:, :-2] + b * p[:, 1:-1] + a * p[:, 2:]
    gx_roi = a * d[:-2] + b * d[1:-1] + a * d[2:]             # down the columns
    gy_roi = s[2:] - s[:-2]
    out = []
    for g in (gx_roi, gy_roi, np.hypot(gx_roi, gy_roi)):
        full = img.copy()
        full[dt:dt + h, dl:dl + w] = g
        out.append(full)
    return out


def inside(shape, dst, size):
    mask = np.zeros(shape, bool)
    (dl, dt), (w, h) = dst, size
    mask[dt:dt + h, dl:dl + w] = True
    return mask


@pytest.mark.parametrize("operator", ["sobel", "scharr"])
@pytest.mark.parametrize("border", BORDERS)
def test_against_numpy(ctx, operator, border):
    image = random_image(70, 45, 2 * BORDERS.index(border) + (operator == "scharr"))
    kw = dict(border=border, border_value=42.0, src=(3, 2), dst=(6, 1), size=(60, 40))
    gx, gy, mag = ctx.gradient(image, operator, components=True, **kw)
    want = numpy_gradient(image, operator, **kw)
    tol_m, tol_g = tiledconv.gradient_tolerance(image, operator, **kw)
    roi = inside(image.shape, (6, 1), (60, 40))
    for got, exp, tol in zip((gx, gy, mag), want, (tol_g, tol_g, tol_m)):
        assert np.abs(got[roi] - exp[roi]).max() <= tol
        assert np.array_equal(got[~roi], image[~roi])        # outside the tROI: the input
    # The magnitude alone is the same magnitude.
    assert np.array_equal(ctx.gradient(image, operator, **kw), mag)


def test_by_hand(ctx):
    # I = 3x + 7y: inside gx = 6 * 4, gy = 14 * 4 (Sobel); the replicated left column 3 * 4.
    y, x = np.mgrid[0:5, 0:6]
    image = (3 * x + 7 * y).astype(np.float32)
    gx, gy, mag = ctx.gradient(image, components=True)
    assert gx[2, 2] == 24 and gy[2, 2] == 56 and gx[2, 0] == 12 and gy[0, 2] == 28
    assert mag[2, 2] == pytest.approx(np.hypot(24, 56), rel=1e-6)
    gx, gy, _ = ctx.gradient(image, "scharr", components=True)
    assert gx[2, 2] == 96 and gy[2, 2] == 224


@pytest.mark.parametrize("operator", ["sobel", "scharr"])
def test_one_read_equals_the_two_filters(ctx, operator):
    image = random_image(99, 80, 7)
    kw = dict(border="reflect101", src=(3, 5), dst=(2, 1), size=(90, 70))
    gx, gy, mag = ctx.gradient(image, operator, components=True, **kw)
    sx, sy, sep = ctx.gradient(image, operator, method="separate", components=True, **kw)
    tol_m, tol_g = tiledconv.gradient_tolerance(image, operator, **kw)
    fx = ctx.filter(image, *tiledconv.named_filter(f"{operator}-x", 3), **kw)
    fy = ctx.filter(image, *tiledconv.named_filter(f"{operator}-y", 3), **kw)
    roi = inside(image.shape, (2, 1), (90, 70))
    hyp = np.hypot(fx.astype(np.float64), fy.astype(np.float64))
    assert np.abs(gx - fx).max() <= 2 * tol_g
    assert np.abs(gy - fy).max() <= 2 * tol_g
    assert np.abs(mag[roi] - hyp[roi]).max() <= 2 * tol_m
    assert np.abs(sep - mag).max() <= 2 * tol_m
    assert np.abs(sx - gx).max() <= 2 * tol_g and np.abs(sy - gy).max() <= 2 * tol_g


def test_reference_and_tolerance():
    image = random_image(40, 30, 3)
    kw = dict(border="wrap", src=(1, 2), dst=(3, 0), size=(30, 25))
    gx, gy, mag = tiledconv.gradient_reference(image, "scharr", components=True, **kw)
    want = numpy_gradient(image, "scharr", **kw)
    for got, exp in zip((gx, gy, mag), want):
        assert np.abs(got - exp).max() <= 1e-3
    assert np.array_equal(tiledconv.gradient_reference(image, "scharr", **kw), mag)
    tol_m, tol_g = tiledconv.gradient_tolerance(image, "scharr", **kw)
    eps, m = np.finfo(np.float32).eps, float(np.abs(image).max())
    assert tol_g == pytest.approx(12 * eps * m * 32)
    assert tol_m == pytest.approx(np.sqrt(2) * 20 * eps * m * 32)


BAD = [
    ("an unknown operator", {"operator": "prewitt"}, "operator"),
    ("an unknown method", {"method": "twice"}, "method"),
    ("an unknown border", {"border": "mirrror"}, "border"),
    ("a source ROI outside", {"src": (40, 0)}, "src_left"),
    ("a size too large", {"size": (41, 30)}, "roi_width"),
]


@pytest.mark.parametrize("what,kw,word", BAD, ids=[b[0] for b in BAD])
def test_bad_arguments(ctx, what, kw, word):
    image = random_image(40, 30, 1)
    with pytest.raises(ValueError, match=word):
        ctx.gradient(image, **kw)
    if "method" not in kw:
        with pytest.raises(ValueError, match=word):
            tiledconv.gradient_reference(image, **kw)
        with pytest.raises(ValueError):
            tiledconv.gradient_tolerance(image, **kw)
    with pytest.raises(ValueError, match="2-D"):
        ctx.gradient(np.zeros((2, 3, 4)))


def test_timed_stats_and_module(ctx):
    image = random_image(64, 48, 5)
    out = ctx.gradient_timed(image, iterations=3, operator="sobel", border="replicate")
    stats = ctx.last_stats()
    assert stats["iterations"] == 3 and len(stats["kernel_ms"]) == 3
    assert all(t > 0 for t in stats["kernel_ms"])
    assert stats["local"] == (8, 8) and stats["block"] == (4, 4)
    assert np.array_equal(tiledconv.gradient(image), out)
    gx, gy, mag = ctx.gradient_timed(image, iterations=2, method="separate", components=True)
    assert ctx.last_stats()["iterations"] == 2
    assert np.abs(mag - out).max() <= 2 * tiledconv.gradient_tolerance(image)[0]
    for obj in (tiledconv.gradient, tiledconv.Context.gradient, tiledconv.Context.gradient_timed,
                tiledconv.gradient_reference, tiledconv.gradient_tolerance):
        assert obj.__doc__ and len(obj.__doc__.strip()) > 40, obj
    assert tiledconv.GRADIENT_OPERATORS == ("sobel", "scharr")
    assert tiledconv.GRADIENT_METHODS == ("one-read", "separate")
