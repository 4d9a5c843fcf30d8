"""Tests of the Python binding's Gaussian scale space (tiledconv.pyramid and its helpers).

Run with the other binding tests (make python-tests). The pyramids use sigma0 0.8 with 2
levels where they can (Gaussians of 7 to 11 taps, whose programs PoCL builds quickly).
"""

import math

import numpy as np
import pytest

import tiledconv
from c_layouts import assert_layouts_match

SMALL = dict(octaves=3, levels=2, sigma=0.8)


def image(width, height, seed=0):
    return np.random.default_rng(seed).uniform(0, 255, (height, width)).astype(np.float32)


def test_layout_follows_the_rule():
    layout = tiledconv.pyramid_layout(97, 65, octaves=4, levels=4, sigma=1.6)
    assert [len(o) for o in layout] == [4, 4, 4, 4]
    k = 2 ** 0.25
    for octave, levels in enumerate(layout):
        for j, lv in enumerate(levels):
            assert (lv["octave"], lv["level"]) == (octave, j)
            assert lv["width"] == math.ceil(97 / 2 ** octave)
            assert lv["height"] == math.ceil(65 / 2 ** octave)
            assert lv["sigma"] == pytest.approx(1.6 * k ** j, rel=1e-12)
            assert lv["sigma_input"] == pytest.approx(1.6 * 2 ** (octave + j / 4), rel=1e-12)
            applied = 1.6 * k ** j if octave == 0 else 1.6 * math.sqrt(k ** (2 * j) - 1)
            assert lv["sigma_applied"] == pytest.approx(applied, abs=1e-12)
            taps = (int(math.floor(6 * applied + 1.5)) | 1) if applied > 0 else 1
            assert lv["taps"] == max(taps, 3) if applied > 0 else lv["taps"] == 1
    assert [lv["taps"] for lv in layout[0]] == [11, 13, 15, 17]
    assert [lv["taps"] for lv in layout[2]] == [1, 7, 11, 15]


def test_both_launch_styles_and_the_reference(ctx):
    img = image(45, 31, 1)
    for border in ("replicate", "reflect101", "constant"):
        a = ctx.pyramid(img, border=border, border_value=12.5, **SMALL)
        b = ctx.pyramid(img, border=border, border_value=12.5, launch="per-level", **SMALL)
        r = tiledconv.pyramid_reference(img, border=border, border_value=12.5, **SMALL)
        t = tiledconv.pyramid_tolerance(img, border=border, border_value=12.5, **SMALL)
        assert [[x.shape for x in o] for o in a] == [[(31, 45)] * 2, [(16, 23)] * 2,
                                                     [(8, 12)] * 2]
        for octave in range(3):
            for j in range(2):
                assert a[octave][j].dtype == np.float32
                assert np.array_equal(a[octave][j], b[octave][j]), (border, octave, j)
                assert np.abs(a[octave][j] - r[octave][j]).max() <= t[octave][j]
                assert 0 < t[octave][j] < 0.05


def test_level_0_is_the_plain_gauss_filter(ctx):
    img = image(64, 40, 2)
    for sigma in (1.6, 1.0):
        kx, ky = tiledconv.named_filter("gauss", tiledconv.pyramid_layout(
            64, 40, octaves=1, levels=1, sigma=sigma)[0][0]["taps"], sigma)
        plain = ctx.filter(img, kx=kx, ky=ky)
        for launch in tiledconv.PYRAMID_LAUNCHES:
            levels = ctx.pyramid(img, octaves=2, levels=2, sigma=sigma, launch=launch)
            assert np.array_equal(levels[0][0], plain), (sigma, launch)


def test_next_octave_is_the_even_pixels_of_2_sigma0():
    img = image(23, 17, 3)
    ref = tiledconv.pyramid_reference(img, octaves=2, levels=2, sigma=0.8, border="wrap")
    kx, ky = tiledconv.named_filter("gauss", 11, 1.6)
    feed = tiledconv.reference(img, kx=kx, ky=ky, border="wrap")
    assert np.array_equal(ref[1][0], feed[::2, ::2])
    kx, ky = tiledconv.named_filter("gauss", 7, 0.8)
    assert np.array_equal(ref[1][1], tiledconv.reference(feed[::2, ::2], kx=kx, ky=ky,
                                                         border="wrap"))


def test_timed_and_stats(ctx):
    img = image(64, 48, 4)
    levels = ctx.pyramid_timed(img, iterations=3, **SMALL)
    s = ctx.last_pyramid_stats()
    assert s["launch"] == "per-octave" and s["iterations"] == 3 and len(s["kernel_ms"]) == 3
    assert s["launches"] == 3 and s["bytes"] > 0
    assert s["kernel_ms_min"] <= s["kernel_ms_median"]
    assert np.array_equal(levels[2][1], ctx.pyramid(img, **SMALL)[2][1])
    ctx.pyramid(img, launch="per-level", **SMALL)
    assert ctx.last_pyramid_stats()["launches"] == 8
    with tiledconv.Context() as fresh:
        assert fresh.last_pyramid_stats() is None


def test_module_function_uses_the_default_context():
    img = image(30, 20, 5)
    assert np.array_equal(tiledconv.pyramid(img, **SMALL)[1][1],
                          tiledconv.default_context().pyramid(img, **SMALL)[1][1])


@pytest.mark.parametrize("kw, says", [
    (dict(octaves=0), "octaves must be 1..16"),
    (dict(levels=9), "levels 1..8"),
    (dict(sigma=0.0), "above 0"),
    (dict(octaves=2, sigma=5.3), "65 taps"),
    (dict(octaves=7), "at most 6 octaves"),      # 40 x 30 -> 20 x 15 -> ... -> 2 x 1
    (dict(border="mirrror"), "border"),
    (dict(launch="per-image"), "launch"),
    (dict(octaves="4"), "octaves"),
])
def test_bad_arguments(ctx, kw, says):
    with pytest.raises(ValueError, match=says):
        ctx.pyramid(image(40, 30), **kw)


def test_bad_images(ctx):
    with pytest.raises(ValueError, match="2-D"):
        ctx.pyramid(np.zeros(10, dtype=np.float32))
    with pytest.raises(ValueError):
        tiledconv.pyramid_layout(0, 10)
    with pytest.raises(ValueError, match="at most 3 octaves"):   # 3 x 3, 2 x 2, 1 x 1
        tiledconv.pyramid_tolerance(image(3, 3), octaves=4)


def test_docstrings():
    for obj in (tiledconv.pyramid, tiledconv.pyramid_layout, tiledconv.pyramid_reference,
                tiledconv.pyramid_tolerance, tiledconv.Context.pyramid,
                tiledconv.Context.pyramid_timed, tiledconv.Context.last_pyramid_stats):
        assert obj.__doc__ and len(obj.__doc__.strip()) > 40, obj
    assert "sqrt(k**(2j) - 1)" in tiledconv.Context.pyramid.__doc__


LAYOUT_BODY = """
    S(tc_pyramid_params) F(tc_pyramid_params, octaves) F(tc_pyramid_params, levels)
    F(tc_pyramid_params, sigma) F(tc_pyramid_params, border) F(tc_pyramid_params, border_value)
    F(tc_pyramid_params, launch)
    S(tc_pyramid_level) F(tc_pyramid_level, octave) F(tc_pyramid_level, level)
    F(tc_pyramid_level, width) F(tc_pyramid_level, height) F(tc_pyramid_level, sigma)
    F(tc_pyramid_level, sigma_input) F(tc_pyramid_level, sigma_applied)
    F(tc_pyramid_level, taps)
    S(tc_pyramid_stats) F(tc_pyramid_stats, launch) F(tc_pyramid_stats, iterations)
    F(tc_pyramid_stats, kernel_ms_min) F(tc_pyramid_stats, kernel_ms_median)
    F(tc_pyramid_stats, kernel_ms_mean) F(tc_pyramid_stats, kernel_ms)
    F(tc_pyramid_stats, launches) F(tc_pyramid_stats, bytes) F(tc_pyramid_stats, build_ms)
    F(tc_pyramid_stats, upload_ms) F(tc_pyramid_stats, download_ms)
    F(tc_pyramid_stats, wall_ms_per_iteration)
"""


def test_struct_layouts_match_the_header(tmp_path):
    from tiledconv import _native
    assert_layouts_match(tmp_path, LAYOUT_BODY,
                         {"tc_pyramid_params": _native.TcPyramidParams,
                          "tc_pyramid_level": _native.TcPyramidLevel,
                          "tc_pyramid_stats": _native.TcPyramidStats})
