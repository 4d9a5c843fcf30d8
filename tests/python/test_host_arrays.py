"""Arrays in a context's page-locked memory (Context.empty, empty_like): numpy arrays of the
shape and dtype asked for; as filter()'s and filter_batch()'s images and out= they go straight
between that memory and the device (the library's count of such transfers proves the staging
was skipped, in the direction used and only there), with the same bytes as ordinary arrays and
as single calls; views, crops and other contexts' memory; the memory's life (freed with its
last view, outliving a dropped context, close() with arrays alive); and the refusals.

    PYTHONPATH=python /usr/bin/python3 -m pytest tests/python/test_host_arrays.py
"""

import ctypes
import gc
import os
import subprocess
import sys
import weakref
from pathlib import Path

import numpy as np
import pytest

import tiledconv
from tiledconv import _native
from tiledconv._native import direct_transfers

GAUSS5 = tiledconv.named_filter("gauss", 5)[0]
KW = dict(kx=GAUSS5, ky=[1, 2, 1], border="mirror")


def pixels(shape, dtype, seed):
    """Random samples over the dtype's range (floats 0..255 with fractions)."""
    rng = np.random.default_rng(seed)
    if dtype == np.float32:
        return (rng.integers(0, 25600, shape) / 100.0).astype(np.float32)
    return rng.integers(0, np.iinfo(dtype).max + 1, shape, dtype=dtype)


def page_locked(ctx, values):
    """values copied into a new page-locked array of ctx."""
    p = ctx.empty_like(values)
    p[...] = values
    return p


def same_bytes(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and \
        np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


class Counts:
    """The images ctx moved with no staging copy since this object was made, (up, down)."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.start = direct_transfers(ctx)

    def since(self):
        now = direct_transfers(self.ctx)
        return now[0] - self.start[0], now[1] - self.start[1]


def test_the_counts_mirror_is_the_library_s_size(ctx):
    """The library writes all of tc_direct_counts: a mirror shorter than the C struct had it
    write 8 bytes past the ctypes buffer into the interpreter's heap (a crash many calls
    later on the H100 machine); the two sizes now agree, and are checked on each use."""
    assert (_native.lib.tc_abi_size(b"tc_direct_counts") ==
            ctypes.sizeof(_native._DirectCounts) == 3 * 8)
    up, down = direct_transfers(ctx)
    assert up >= 0 and down >= 0


# ---- The arrays -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("shape", [(7, 9), (7, 9, 3), (4, 7, 9), (2, 7, 9, 4), (1, 1)])
def test_empty_is_a_writable_c_ordered_array(ctx, dtype, shape):
    a = ctx.empty(shape, dtype)
    assert isinstance(a, np.ndarray) and a.shape == shape and a.dtype == dtype
    assert a.flags.c_contiguous and a.flags.writeable and a.flags.aligned
    values = pixels(shape, dtype, 1)
    a[...] = values
    assert np.array_equal(a, values)


def test_empty_like(ctx):
    image = pixels((11, 13, 3), np.uint16, 2)
    like = ctx.empty_like(image)
    assert like.shape == image.shape and like.dtype == np.uint16
    assert ctx.empty_like(image, dtype=np.float32).dtype == np.float32
    assert ctx.empty_like(image, shape=(5, 6)).shape == (5, 6)
    assert ctx.empty_like(np.asfortranarray(image)).flags.c_contiguous
    assert ctx.empty_like([[1, 2, 3]], dtype=np.uint8).shape == (1, 3)
    s = tiledconv.empty((4, 5), np.float32)  # the module's default context
    assert s.shape == (4, 5) and s.dtype == np.float32
    assert tiledconv.empty_like(image).shape == image.shape


# ---- Filtering them ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("channels", [0, 3, 4], ids=["gray", "rgb", "rgba"])
@pytest.mark.parametrize("where", ["in", "out", "both"])
def test_filter_moves_page_locked_rows_directly(ctx, dtype, channels, where):
    shape = (37, 53) if channels == 0 else (37, 53, channels)
    image = pixels(shape, dtype, 3 + channels)
    want = ctx.filter(image, **KW)  # ordinary memory both ways
    src = page_locked(ctx, image) if where in ("in", "both") else image.copy()
    out = ctx.empty_like(image) if where in ("out", "both") else None
    counts = Counts(ctx)
    got = ctx.filter(src, out=out, **KW)
    assert same_bytes(got, want)
    assert out is None or got is out
    assert counts.since() == (int(where != "out"), int(where != "in"))
    assert same_bytes(src, image), "the image was modified"


def test_another_result_dtype_in_page_locked_memory(ctx):
    image = pixels((30, 41, 3), np.uint8, 4)
    src = page_locked(ctx, image)
    out = ctx.empty_like(image, dtype=np.float32)
    counts = Counts(ctx)
    assert ctx.filter(src, out=out, dtype=np.float32, **KW) is out
    assert counts.since() == (1, 1)
    assert same_bytes(out, ctx.filter(image, dtype=np.float32, **KW))
    u16 = ctx.empty_like(image, dtype=np.uint16)
    assert same_bytes(ctx.filter(src, out=u16, dtype=np.uint16, **KW),
                      ctx.filter(image, dtype=np.uint16, **KW))


def test_batch_of_a_list_in_page_locked_memory(ctx):
    images = [pixels((20 + 3 * i, 31 + 5 * i) + ((), (3,), (4,))[i % 3],
                     (np.uint8, np.uint16, np.float32)[i % 3], 10 + i) for i in range(7)]
    want = ctx.filter_batch(images, **KW)
    singles = [ctx.filter(image, **KW) for image in images]
    srcs = [page_locked(ctx, image) for image in images]
    outs = [ctx.empty_like(image) for image in images]
    counts = Counts(ctx)
    got = ctx.filter_batch(srcs, out=outs, **KW)
    assert counts.since() == (7, 7)
    assert all(g is o for g, o in zip(got, outs))
    for i, (g, w, s) in enumerate(zip(got, want, singles)):
        assert same_bytes(g, w) and same_bytes(g, s), f"image {i}"
    # Page-locked images, ordinary results; and the other way round.
    counts = Counts(ctx)
    assert all(same_bytes(g, w) for g, w in zip(ctx.filter_batch(srcs, **KW), want))
    assert all(same_bytes(g, w) for g, w in zip(
        ctx.filter_batch(images, out=[ctx.empty_like(i) for i in images], **KW), want))
    assert counts.since() == (7, 7)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("channels", [0, 3], ids=["gray", "rgb"])
def test_batch_of_a_stack_in_one_block(ctx, dtype, channels):
    shape = (5, 26, 35) if channels == 0 else (5, 26, 35, channels)
    stack = pixels(shape, dtype, 20 + channels)
    want = ctx.filter_batch(stack, **KW)
    src, out = page_locked(ctx, stack), ctx.empty(shape, dtype)
    counts = Counts(ctx)
    assert ctx.filter_batch(src, out=out, **KW) is out
    assert counts.since() == (5, 5)
    assert same_bytes(out, want)
    assert all(same_bytes(out[i], ctx.filter(stack[i], **KW)) for i in range(5))


def test_views_of_page_locked_memory(ctx):
    block = page_locked(ctx, pixels((60, 80, 3), np.uint8, 30))
    ordinary = np.array(block)
    cases = {  # view: whether its rows go up directly
        "a crop (rows a longer stride apart)": (np.s_[5:41, 7:66], True),
        "every other row": (np.s_[::2], True),
        "rows bottom-up (moved as they lie)": (np.s_[::-1], True),
        "every other column (the binding copies it)": (np.s_[:, ::2], False),
    }
    for name, (index, direct) in cases.items():
        counts = Counts(ctx)
        got = ctx.filter(block[index], **KW)
        assert same_bytes(got, ctx.filter(np.ascontiguousarray(ordinary[index]), **KW)), name
        assert counts.since() == (int(direct), 0), name
    # A crop of a page-locked frame as out=: its rows written directly, the rest untouched.
    frame = ctx.empty((50, 70, 3), np.uint8)
    frame[...] = 9
    image = pixels((30, 40, 3), np.uint8, 31)
    counts = Counts(ctx)
    ctx.filter(image, out=frame[10:40, 20:60], **KW)
    assert counts.since() == (0, 1)
    assert same_bytes(frame[10:40, 20:60], ctx.filter(image, **KW))
    frame[10:40, 20:60] = 9
    assert np.all(frame == 9)


def test_another_contexts_memory_takes_the_ordinary_way(ctx):
    image = pixels((33, 47), np.uint8, 40)
    with tiledconv.Context() as other:
        theirs = page_locked(other, image)
        counts = Counts(ctx)
        assert same_bytes(ctx.filter(theirs, out=other.empty_like(image), **KW),
                          ctx.filter(image, **KW))
        assert counts.since() == (0, 0)
        del theirs


def test_the_other_entry_points_take_them_as_any_array(ctx):
    """gradient, pyramid, reference and tolerance read float planes made from the image, so
    page-locked memory changes nothing for them: the same results as an ordinary array's."""
    image = pixels((40, 52), np.uint8, 45)
    p = page_locked(ctx, image)
    assert same_bytes(ctx.gradient(p), ctx.gradient(image))
    assert all(same_bytes(a, b) for a, b in zip(ctx.pyramid(p, octaves=2, levels=2)[1],
                                                ctx.pyramid(image, octaves=2, levels=2)[1]))
    assert same_bytes(tiledconv.reference(p, **KW), tiledconv.reference(image, **KW))
    assert tiledconv.tolerance(p, **KW) == tiledconv.tolerance(image, **KW)


# ---- Lifetime ---------------------------------------------------------------------------------

def test_freed_with_the_last_view():
    with tiledconv.Context() as c:  # its own, so that only this test's blocks count
        memory = c._memory
        a, b = c.empty((16, 16)), c.empty((3, 4, 5))
        view = a[4:8]
        assert memory.live == 2
        del a, b
        gc.collect()
        assert memory.live == 1  # the view holds its block
        view[...] = 5
        del view
        gc.collect()
        assert memory.live == 0 and not memory.released
    assert memory.released


def test_an_array_outlives_a_dropped_context(ctx):
    c = tiledconv.Context()
    memory, gone = c._memory, weakref.ref(c)
    a = c.empty((20, 30), np.uint16)
    del c
    gc.collect()
    assert gone() is None  # the Context itself is garbage ...
    assert not memory.released  # ... but not the C context the array lies in
    a[...] = pixels((20, 30), np.uint16, 50)
    assert same_bytes(ctx.filter(a, **KW), ctx.filter(np.array(a), **KW))
    del a
    gc.collect()
    assert memory.released and memory.live == 0


def test_close_with_arrays_alive(ctx):
    c = tiledconv.Context()
    memory = c._memory
    a = c.empty((24, 32, 3))
    values = pixels((24, 32, 3), np.uint8, 60)
    a[...] = values
    c.close()
    c.close()  # twice is fine
    assert c.closed and not memory.released
    for call in (lambda: c.filter(a), lambda: c.empty((4, 4)), lambda: c.empty_like(a),
                 lambda: c.filter_batch([a])):
        with pytest.raises(ValueError, match="closed Context"):
            call()
    assert np.array_equal(a, values)  # still valid memory, filtered by another context
    assert same_bytes(ctx.filter(a, out=np.empty_like(a), **KW), ctx.filter(values, **KW))
    rows = a[3:9]
    del a
    gc.collect()
    assert not memory.released  # a view still lies in it
    rows[...] = 1
    del rows
    gc.collect()
    assert memory.released and memory.live == 0


def test_arrays_made_in_a_with_block_survive_it(ctx):
    with tiledconv.Context() as c:
        memory = c._memory
        a = c.empty((10, 12))
        a[...] = 42
    assert c.closed and not memory.released and int(a.sum()) == 42 * 120
    del a
    gc.collect()
    assert memory.released


def test_closing_without_arrays_is_at_once():
    c = tiledconv.Context()
    memory = c._memory
    c.empty((8, 8))  # made and dropped at once
    gc.collect()
    c.close()
    assert memory.released


EXIT_SCRIPT = """
import numpy as np, tiledconv
a = tiledconv.empty((40, 50, 3))              # the default context's, closed at exit
a[...] = 9
b = tiledconv.filter(a, out=tiledconv.empty_like(a))
ctx = tiledconv.Context()                     # never closed
c = ctx.empty((30, 20))
c[...] = 1
d = ctx.filter(c, out=ctx.empty_like(c))
e = tiledconv.Context()
f = e.empty((10, 10), np.float32)
e.close()                                     # closed with f alive
cycle = [f]
cycle.append(cycle)                           # f freed by the collector, if at all
print("done", int(b.max()), int(d.max()))
"""


def test_a_process_ends_cleanly_with_arrays_alive():
    """Arrays still alive at the interpreter's exit, of open, closed and default contexts:
    the process ends with status 0 and nothing on stderr (no exception in a finaliser)."""
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(root / "python"))
    done = subprocess.run([sys.executable, "-c", EXIT_SCRIPT], env=env, capture_output=True,
                          text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (0, "done 9 1\n", "")


# ---- Refusals ---------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(0, 5), (5, -1), (5,), 5, (1, 2, 3, 4, 5), (2.5, 3), "abc",
                                   None, (3, None)])
def test_bad_shapes(ctx, shape):
    with pytest.raises(ValueError, match="^shape: ") as e:
        ctx.empty(shape)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("dtype", [np.int64, np.float64, bool, np.complex64, object, ">u2",
                                   "<f8", "not a dtype", np.int8])
def test_bad_dtypes(ctx, dtype):
    with pytest.raises(TypeError, match="^dtype: .*uint8, uint16 or float32") as e:
        ctx.empty((4, 4), dtype)
    assert "\n" not in str(e.value)
    with pytest.raises(TypeError, match="^dtype: "):
        ctx.empty_like(np.zeros((4, 4), np.uint8), dtype=dtype)


def test_float64_is_refused_with_the_reason(ctx):
    with pytest.raises(TypeError, match="computed in float32"):
        ctx.empty_like(np.zeros((4, 4)))


def test_more_than_the_device_allows_in_one_buffer():
    with tiledconv.Context() as c:
        limit = c.device.max_alloc_bytes
        with pytest.raises(ValueError, match=f"{limit + 1} bytes is more than the {limit} "
                                             f"bytes"):
            c.empty((limit + 1, 1))
        with pytest.raises(ValueError, match="allows in one buffer"):
            c.empty_like(np.zeros((2, 2), np.uint16), shape=(limit // 2 + 1, 1))
        assert c._memory.live == 0
