"""filter_batch with out= arrays that share memory: an output over another image's output, or
over a later image of the batch, would give results that depend on how many images the
pipeline has in flight, so it is refused with ValueError before any work; an output over its
own image (in place) or over an earlier one is allowed, and equals the plain results."""
import numpy as np
import pytest


def stack(n=6, h=19, w=23, seed=3):
    rng = np.random.default_rng(seed)
    return (rng.random((n, h, w)) * 255).astype(np.float32)


def expected(ctx, images):
    return np.stack([ctx.filter(im, kx=[1, 2, 1], ky=[1, 2, 1]) for im in images])


def test_reversed_stack_refused(ctx):
    st = stack()
    before = st.copy()
    with pytest.raises(ValueError,
                       match=r"out\[[0-2]\] shares memory with images\[[3-5]\], a later image"):
        ctx.filter_batch(st, kx=[1, 2, 1], ky=[1, 2, 1], out=st[::-1])
    assert np.array_equal(st, before)  # nothing was written


def test_one_array_twice_refused(ctx):
    st = stack(2)
    target = np.empty_like(st[0])
    with pytest.raises(ValueError, match=r"out\[0\] and out\[1\] share memory"):
        ctx.filter_batch([st[0], st[1]], out=[target, target])


def test_overlapping_views_refused(ctx):
    big = np.zeros((40, 23), np.float32)
    with pytest.raises(ValueError, match="share memory"):
        ctx.filter_batch([stack(1)[0], stack(1)[0]], out=[big[0:19], big[10:29]])


def test_output_over_a_later_image_refused(ctx):
    st = stack(3)
    with pytest.raises(ValueError, match=r"out\[0\] shares memory with images\[2\]"):
        ctx.filter_batch([st[0], st[1], st[2]], out=[st[2], None, None])


def test_in_place_and_earlier_images_allowed(ctx):
    st = stack()
    want = expected(ctx, st)
    got = ctx.filter_batch(st, kx=[1, 2, 1], ky=[1, 2, 1], out=st)
    assert got is st and np.array_equal(st, want)
    # Image i's result over image i - 1 (read before it): the results as plain calls give.
    st = stack()
    want = expected(ctx, st)
    outs = [np.empty_like(st[0])] + [st[i - 1] for i in range(1, len(st))]
    ctx.filter_batch(list(st), kx=[1, 2, 1], ky=[1, 2, 1], out=outs)
    assert np.array_equal(outs[0], want[0])
    for i in range(1, len(st)):
        assert np.array_equal(outs[i], want[i])


def test_interleaved_columns_are_apart(ctx):
    # Every other column of one array: their bounds overlap, their elements do not.
    big = np.zeros((19, 46), np.float32)
    images = list(stack(2))
    want = expected(ctx, images)
    ctx.filter_batch(images, kx=[1, 2, 1], ky=[1, 2, 1], out=[big[:, 0::2], big[:, 1::2]])
    assert np.array_equal(big[:, 0::2], want[0]) and np.array_equal(big[:, 1::2], want[1])


def test_the_same_input_many_times_is_fine(ctx):
    im = stack(1)[0]
    got = ctx.filter_batch([im] * 200, kx=[1, 2, 1], ky=[1, 2, 1])
    assert all(np.array_equal(g, got[0]) for g in got)
