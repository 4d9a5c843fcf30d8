"""Images filtered in bands (the library's tc_set_max_memory, Context.max_memory): a budget too
small for the whole image cuts it into bands of rows, with the whole run's result bit for bit;
one too small for a band raises ValueError naming the bytes; bilinear stays whole."""
import numpy as np
import pytest

import tiledconv


def picture(h, w, seed=5):
    rng = np.random.default_rng(seed)
    ramp = np.add.outer(np.arange(h) * 3.0, np.arange(w) * 7.0) % 251
    return (ramp + rng.random((h, w)) * 40).astype(np.float32)


@pytest.mark.parametrize("border", ["replicate", "constant", "reflect101", "reflect", "wrap"])
@pytest.mark.parametrize("algorithm", ["tiled", "twopass", "onepass"])
def test_bands_equal_whole(ctx, border, algorithm):
    image = picture(700, 301)
    kx, ky = [1, 4, 6, 4, 1], [1, 2, 3, 4, 3, 2, 1, 2, 3]
    args = dict(kx=kx, ky=ky, border=border, border_value=9.0, algorithm=algorithm,
                src=(5, 40), dst=(9, 17), size=(280, 600))
    ctx.max_memory = None
    whole = ctx.filter(image, **args)
    ctx.max_memory = 400_000  # a few dozen rows a band on this image
    try:
        banded = ctx.filter(image, **args)
    finally:
        ctx.max_memory = None
    assert whole.tobytes() == banded.tobytes()
    assert not np.array_equal(whole, image)


def test_budget_too_small(ctx):
    ctx.max_memory = 50_000
    try:
        with pytest.raises(ValueError, match=r"even one band of \d+ rows .* needs \d+ bytes"):
            ctx.filter(picture(300, 4000), kx=[1] * 63, ky=[1] * 63)
    finally:
        ctx.max_memory = None


def test_bilinear_whole_only(ctx):
    ctx.max_memory = 400_000
    try:
        with pytest.raises((ValueError, tiledconv.Error), match="bilinear|image support"):
            ctx.filter(picture(700, 301), kx=[1, 2, 1], ky=[1, 2, 1], algorithm="bilinear")
    finally:
        ctx.max_memory = None


def test_max_memory_property():
    with tiledconv.Context(max_memory=1 << 30) as c:
        assert c.max_memory == 1 << 30
        c.max_memory = None
        assert c.max_memory is None
        for bad in (0, -1, 1.5, True, "1G", 1 << 64):
            with pytest.raises(ValueError, match="max_memory"):
                c.max_memory = bad


def test_trim_keeps_results():
    """Context.trim gives back the kept buffers; the next calls make them again, results the
    same (a single image and a batch through the pipeline's lanes)."""
    image = picture(120, 173)
    batch = [picture(64, 80, seed=s) for s in (1, 2, 3)]
    with tiledconv.Context() as c:
        first = c.filter(image, kx=[1, 2, 1], ky=[1, 2, 1])
        many = c.filter_batch(batch, kx=[1, 4, 6, 4, 1])
        c.trim()
        c.trim()
        assert c.filter(image, kx=[1, 2, 1], ky=[1, 2, 1]).tobytes() == first.tobytes()
        again = c.filter_batch(batch, kx=[1, 4, 6, 4, 1])
        assert [a.tobytes() for a in again] == [m.tobytes() for m in many]
    with pytest.raises(ValueError):
        c.trim()
