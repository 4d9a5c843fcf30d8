"""The binding's image paths: storage="image" for tiled and onepass, and
algorithm="bilinear", against an independent numpy reference (test_tiledconv.naive) and the
library's own, with the refusals as ValueError.

Each distinct setting is a program build (about a second on PoCL): the cases are few.
"""

import numpy as np
import pytest

import tiledconv

from test_tiledconv import BORDERS, check_against_reference, naive, random_image


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


def test_no_image_support(ctx, tune):
    image = random_image(20, 10, seed=2)
    tune("no-images=1")
    with pytest.raises(ValueError, match="CL_DEVICE_IMAGE_SUPPORT"):
        ctx.filter(image, storage="image")
    check_against_reference(ctx.filter(image), image)  # buffers go on
    tune("no-images=")
    check_against_reference(ctx.filter(image, storage="image"), image)


@pytest.mark.parametrize("algorithm,kw", [
    ("tiled", dict(kx=np.linspace(-1, 1, 31), ky=np.linspace(1, -0.5, 31))),  # tiled_long_conv
    ("tiled", dict(kx=np.linspace(-1, 1, 9), ky=[0.5, -1, 2])),  # a length per axis
    ("onepass", dict(kx=[2.0], ky=np.linspace(-1, 1, 15))),  # a column filter
    ("tiled", dict(mask=np.arange(15, dtype=np.float32).reshape(3, 5) - 7)),  # tiled_mask_conv
    ("onepass", dict(mask=np.arange(15, dtype=np.float32).reshape(5, 3) - 7)),
])
def test_image_storage_long_and_mask_kernels(ctx, algorithm, kw):
    """The long-filter and mask kernels read an image too (Common.cl's SRC_T), bit for bit the buffer's."""
    image = random_image(60, 44, seed=11)
    kw = dict(kw, border="reflect", src=(3, 2), dst=(5, 1))
    from_image = ctx.filter(image, algorithm=algorithm, storage="image", **kw)
    from_buffer = ctx.filter(image, algorithm=algorithm, **kw)
    assert np.array_equal(from_image, from_buffer)
    check_against_reference(from_image, image, **kw)


def test_bilinear_per_axis_and_masks(ctx):
    image = random_image(50, 40, seed=12)
    kx = tiledconv.named_filter("gauss", 21)[0]
    ky = tiledconv.named_filter("binomial", 3)[1]
    for kw in (dict(kx=kx, ky=ky), dict(kx=[1.0], ky=kx), dict(kx=ky, ky=[0.5])):
        kw = dict(kw, border="wrap", src=(1, 2), dst=(3, 0))
        out = ctx.filter(image, algorithm="bilinear", **kw)
        diff = np.abs(out.astype(np.float64) - naive(image, **kw))
        assert diff.max() <= tiledconv.tolerance(image, algorithm="bilinear", **kw)
    # A rank-1 mask runs as its factors; any other is refused.
    mask = np.outer([1, 2, 1], [1, 4, 6, 4, 1]).astype(np.float32) / 64
    out = ctx.filter(image, mask=mask, algorithm="bilinear")
    diff = np.abs(out.astype(np.float64) - naive(image, mask=mask))
    assert diff.max() <= tiledconv.tolerance(image, mask=mask, algorithm="bilinear")
    with pytest.raises(ValueError, match="bilinear: the 3 x 3 mask is not separable"):
        ctx.filter(image, mask=tiledconv.named_mask("laplacian"), algorithm="bilinear")
