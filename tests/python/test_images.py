"""The binding's image paths (issue 16): storage="image" for tiled and onepass, and
algorithm="bilinear", against an independent numpy reference (test_tiledconv.naive) and the
library's own, with the refusals as ValueError.

Each distinct setting is a program build (about a second on PoCL): the cases are few.
"""

import os

import numpy as np
import pytest

import tiledconv

from test_tiledconv import BORDERS, check_against_reference, naive, random_image


@pytest.fixture(scope="module")
def ctx():
    with tiledconv.Context() as c:
        yield c


def test_names():
    assert tiledconv.STORAGES == ("buffer", "image")
    assert "bilinear" in tiledconv.ALGORITHMS


@pytest.mark.parametrize("algorithm,border", [("tiled", "reflect101"), ("onepass", "constant"),
                                              ("tiled", "wrap")])
def test_image_storage_equals_buffer(ctx, algorithm, border):
    image = random_image(45, 31, seed=7)
    rng = np.random.default_rng(3)
    kx = rng.normal(size=5).astype(np.float32)
    ky = rng.normal(size=5).astype(np.float32)
    kw = dict(kx=kx, ky=ky, border=border, border_value=9.5, src=(3, 2), dst=(1, 4),
              size=None)
    from_image = ctx.filter(image, algorithm=algorithm, storage="image", **kw)
    from_buffer = ctx.filter(image, algorithm=algorithm, **kw)
    assert np.array_equal(from_image, from_buffer)  # the same arithmetic, bit for bit
    check_against_reference(from_image, image, **kw)


@pytest.mark.parametrize("border", BORDERS)
def test_bilinear_against_numpy(ctx, border):
    image = random_image(40, 27, seed=BORDERS.index(border))
    kx, ky = tiledconv.named_filter("gauss", 5)
    kw = dict(kx=kx, ky=ky, border=border, border_value=-3.0, src=(2, 1), dst=(0, 3),
              size=(30, 20))
    out = ctx.filter(image, algorithm="bilinear", **kw)
    expected = naive(image, **kw)
    tol = tiledconv.tolerance(image, algorithm="bilinear", **kw)
    exact_tol = tiledconv.tolerance(image, **kw)
    diff = np.abs(out.astype(np.float64) - expected)
    assert diff.max() <= tol
    # 2 x (2^-8 + coordinates) x range: the interpolation's share, on top of float rounding.
    sroi = image[1:21, 2:32].astype(np.float64)
    gain = np.abs(kx.astype(np.float64)).sum() * np.abs(ky.astype(np.float64)).sum()
    assert tol - exact_tol == pytest.approx(
        2 * (2**-8 + 42 * 2**-24) * gain * (sroi.max() - sroi.min()), rel=1e-9)
    if ctx.device.is_cpu:  # PoCL interpolates in float: near-exact
        assert diff.max() < 1e-3
    stats = ctx.last_stats()
    assert stats["algorithm"] == "bilinear" and stats["passes"] == 2


def test_refusals(ctx):
    image = random_image(20, 10, seed=1)
    with pytest.raises(ValueError, match=r"kx\[0\] = 1 and kx\[1\] = -2"):
        ctx.filter(image, kx=[1, -2, 1], ky=[1, 2, 1], algorithm="bilinear")
    with pytest.raises(ValueError, match="twopass reads buffers only"):
        ctx.filter(image, algorithm="twopass", storage="image")
    with pytest.raises(ValueError, match="storage: unknown 'texture'"):
        ctx.filter(image, storage="texture")


def test_no_image_support(ctx, monkeypatch):
    image = random_image(20, 10, seed=2)
    monkeypatch.setenv("TILEDCONV_TEST_NO_IMAGES", "1")
    with pytest.raises(ValueError, match="CL_DEVICE_IMAGE_SUPPORT"):
        ctx.filter(image, storage="image")
    check_against_reference(ctx.filter(image), image)  # buffers go on
    monkeypatch.delenv("TILEDCONV_TEST_NO_IMAGES")
    assert os.environ.get("TILEDCONV_TEST_NO_IMAGES") is None
    check_against_reference(ctx.filter(image, storage="image"), image)
