"""The arrays people have, through the binding: uint8, uint16, float32 and float64 images, gray
(H x W) and colour (H x W x 3, H x W x 4), come back in their shape and dtype, byte for byte
what the command line writes for the same image and options; batches equal single calls;
strides of every kind; borders by SciPy's and OpenCV's names; gauss without a sigma is
OpenCV's kernel; and every bad dtype, shape, border and out= array gets one clear exception.

Run from the project root after `make` (the comparisons run ./tiledconv):

    PYTHONPATH=python /usr/bin/python3 -m pytest tests/python/test_arrays.py
"""

import re
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

import tiledconv

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "tiledconv"
FIXTURE = ROOT / "tests" / "data" / "opencv" / "gaussian_kernels.txt"


def photo(h, w, c, dtype, seed):
    """A random image of that shape and dtype (uint16 over its whole range)."""
    rng = np.random.default_rng(seed)
    shape = (h, w) if c == 0 else (h, w, c)
    if dtype == np.uint8:
        return rng.integers(0, 256, shape, dtype=np.uint8)
    return rng.integers(0, 65536, shape, dtype=np.uint16)


# ---- PGM/PPM, the command line's simplest formats -------------------------------------------

def write_pnm(path, image):
    """P5 (gray) or P6 (RGB), 8 or 16 bits (big-endian, as the format says)."""
    h, w = image.shape[:2]
    magic = "P6" if image.ndim == 3 else "P5"
    maxval = 255 if image.dtype == np.uint8 else 65535
    data = image.astype(">u2").tobytes() if maxval == 65535 else image.tobytes()
    Path(path).write_bytes(f"{magic}\n{w} {h}\n{maxval}\n".encode() + data)


def read_pnm(path):
    data = Path(path).read_bytes()
    fields, at = [], 0
    while len(fields) < 4:  # magic, width, height, maxval; '#' comments to the line's end
        m = re.compile(rb"\s*(#[^\n]*\n\s*)*(\S+)").match(data, at)
        fields.append(m.group(2))
        at = m.end()
    at += 1  # the one whitespace byte after maxval
    magic, w, h, maxval = fields[0], int(fields[1]), int(fields[2]), int(fields[3])
    c = 3 if magic == b"P6" else 1
    dtype = np.dtype(">u2") if maxval > 255 else np.dtype(np.uint8)
    pixels = np.frombuffer(data, dtype, w * h * c, at).astype(dtype.newbyteorder("="))
    return pixels.reshape((h, w, c) if c == 3 else (h, w))


def run_cli(tmp_path, image, args):
    """./tiledconv on image written as PGM/PPM: (the output image, the --raw float planes as
    H x W (x 3))."""
    colour = image.ndim == 3
    src = tmp_path / ("in.ppm" if colour else "in.pgm")
    out = tmp_path / ("out.ppm" if colour else "out.pgm")
    raw = tmp_path / "out.f32"
    write_pnm(src, image)
    cmd = [str(BIN), "-s", str(src), "-o", str(out), "--raw", str(raw)] + \
        (["--color"] if colour else []) + args
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, " ".join(cmd) + "\n" + done.stderr
    h, w = image.shape[:2]
    planes = np.fromfile(raw, "<f4").reshape(-1, h, w)
    floats = np.moveaxis(planes, 0, 2) if colour else planes[0]
    return read_pnm(out), floats


# The same filter as the command line's options and as filter()'s keywords.
CASES = [
    ("gray 8-bit gauss 5", 0, np.uint8, ["--filter", "gauss", "-f", "5"],
     dict(kx=tiledconv.named_filter("gauss", 5)[0], ky=tiledconv.named_filter("gauss", 5)[1])),
    ("RGB 8-bit gauss 7, reflect101 as SciPy's mirror, a ROI", 3, np.uint8,
     ["--filter", "gauss", "-f", "7", "--border", "reflect101", "-sL", "3", "-sT", "2", "-tL",
      "5", "-tT", "4", "-W", "40", "-H", "25"],
     dict(kx=tiledconv.named_filter("gauss", 7)[0], ky=tiledconv.named_filter("gauss", 7)[1],
          border="mirror", src=(3, 2), dst=(5, 4), size=(40, 25))),
    ("gray 16-bit box 3, constant 40 as cval", 0, np.uint16,
     ["--filter", "box", "-f", "3", "--border", "constant=40"],
     dict(kx=tiledconv.named_filter("box", 3)[0], ky=tiledconv.named_filter("box", 3)[1],
          border="constant", cval=40)),
    ("RGB 16-bit binomial 9 x 3, OpenCV's BORDER_WRAP", 3, np.uint16,
     ["-f", "9x3", "--border", "wrap"],
     dict(kx=tiledconv.named_filter("binomial", 9)[0],
          ky=tiledconv.named_filter("binomial", 3)[1], border=3)),
]


@pytest.mark.parametrize("what,channels,dtype,args,kw", CASES, ids=[c[0] for c in CASES])
def test_equal_to_the_command_line(ctx, tmp_path, what, channels, dtype, args, kw):
    image = photo(37, 61, channels, dtype, seed=len(what))
    want, floats = run_cli(tmp_path, image, args)
    got = ctx.filter(image, **kw)
    assert got.dtype == dtype and got.shape == image.shape
    assert np.array_equal(got, want), f"{what}: {np.count_nonzero(got != want)} samples differ"
    # The float results of the same image, in each float dtype and from each integer dtype.
    as_float = ctx.filter(image, dtype=np.float32, **kw)
    assert as_float.dtype == np.float32 and np.array_equal(as_float, floats)
    scaled = image.astype(np.float64) * (255.0 / 65535.0 if dtype == np.uint16 else 1.0)
    planes = (image.astype(np.float64) * 255.0 / 65535.0 if dtype == np.uint16
              else scaled).astype(np.float32)
    assert np.array_equal(ctx.filter(planes, **kw), floats)
    f64 = ctx.filter(planes.astype(np.float64), **kw)
    assert f64.dtype == np.float64 and np.array_equal(f64, floats.astype(np.float64))
    # And the other integer type from the same floats, with the command line's rules.
    other = np.uint16 if dtype == np.uint8 else np.uint8
    v = np.clip(floats.astype(np.float64), 0.0, 255.0)
    rule = np.floor((v * 65535.0 / 255.0 if other == np.uint16 else v) + 0.5).astype(other)
    assert np.array_equal(ctx.filter(image, dtype=other, **kw), rule)


def test_four_channels_each_as_its_own_gray(ctx):
    for dtype in (np.uint8, np.uint16, np.float32):
        rgba = photo(29, 43, 4, np.uint8 if dtype == np.uint8 else np.uint16, 5).astype(dtype)
        out = ctx.filter(rgba, kx=[1, 2, 1], ky=[1, 4, 6, 4, 1], border="reflect")
        assert out.dtype == dtype and out.shape == rgba.shape
        for c in range(4):
            alone = ctx.filter(np.ascontiguousarray(rgba[:, :, c]), kx=[1, 2, 1],
                               ky=[1, 4, 6, 4, 1], border="reflect")
            assert np.array_equal(out[:, :, c], alone), (dtype, c)
        assert ctx.last_stats()["planes"] == 1
        ctx.filter(rgba)
        assert ctx.last_stats()["planes"] == 4
    ctx.filter(photo(8, 8, 3, np.uint8, 6))
    assert ctx.last_stats()["planes"] == 3
    one = photo(8, 9, 1, np.uint8, 7)  # H x W x 1 keeps its shape
    assert ctx.filter(one).shape == (8, 9, 1)
    assert np.array_equal(ctx.filter(one)[:, :, 0], ctx.filter(one[:, :, 0]))


# ---- Strides, views, out= --------------------------------------------------------------------

def test_views_of_every_kind(ctx):
    big = photo(70, 90, 3, np.uint8, 8)
    views = {
        "rows reversed": big[::-1],
        "every other row": big[::2],
        "a column window": big[5:40, 7:60],
        "every other column": big[:, ::2],
        "columns reversed": big[:, ::-1],
        "channels reversed (BGR)": big[:, :, ::-1],
        "Fortran order": np.asfortranarray(big),
        "read-only": big.copy(),
        "a row broadcast": np.broadcast_to(big[0], (20, 90, 3)),
    }
    views["read-only"].flags.writeable = False
    for name, view in views.items():
        saved = np.array(view, copy=True)
        got = ctx.filter(view, kx=[1, 2, 1], ky=[1, 2, 1])
        assert np.array_equal(got, ctx.filter(np.ascontiguousarray(view), kx=[1, 2, 1],
                                              ky=[1, 2, 1])), name
        assert np.array_equal(view, saved), f"{name} was modified"
    u16 = photo(40, 50, 0, np.uint16, 9)
    assert np.array_equal(ctx.filter(u16[::-3, 1::2]),
                          ctx.filter(np.ascontiguousarray(u16[::-3, 1::2])))


def test_out(ctx):
    image = photo(33, 47, 3, np.uint8, 10)
    want = ctx.filter(image)
    out = np.zeros_like(image)
    assert ctx.filter(image, out=out) is out and np.array_equal(out, want)
    # A view into a larger array: its rows written, the rest untouched.
    frame = np.full((40, 60, 3), 7, np.uint8)
    view = frame[3:36, 5:52]
    assert ctx.filter(image, out=view) is view and np.array_equal(view, want)
    untouched = frame.copy()
    untouched[3:36, 5:52] = 7
    frame_rest = frame.copy()
    frame_rest[3:36, 5:52] = 7
    assert np.array_equal(frame_rest, untouched)
    # Columns reversed: through a copy, the same values.
    rev = np.zeros_like(image)[:, ::-1]
    ctx.filter(image, out=rev)
    assert np.array_equal(rev, want)
    # float64 out from uint8 in, and in place.
    f = np.empty(image.shape, np.float64)
    assert ctx.filter(image, dtype=np.float64, out=f) is f
    assert np.array_equal(f, ctx.filter(image, dtype=np.float32).astype(np.float64))
    same = image.copy()
    ctx.filter(same, out=same)
    assert np.array_equal(same, want)


# ---- Batches ---------------------------------------------------------------------------------

def test_batches_equal_single_calls(ctx):
    kw = dict(kx=tiledconv.named_filter("gauss", 9)[0], ky=[1, 2, 1], border=4)
    images = [photo(20 + 3 * i, 30 + 5 * i, (0, 3, 4)[i % 3],
                    np.uint8 if i % 2 else np.uint16, 20 + i) for i in range(7)]
    images[3] = images[3].astype(np.float32)
    images[5] = images[5][::-1]
    got = ctx.filter_batch(images, **kw)
    assert isinstance(got, list) and len(got) == 7
    for image, out in zip(images, got):
        assert out.dtype == image.dtype and np.array_equal(out, ctx.filter(image, **kw))
    # Any iterable; dtype= for all; out= a list.
    outs = [np.empty(a.shape, np.float32) for a in images]
    back = ctx.filter_batch(iter(images), dtype=np.float32, out=outs, **kw)
    assert all(b is o for b, o in zip(back, outs))
    for image, out in zip(images, outs):
        assert np.array_equal(out, ctx.filter(image, dtype=np.float32, **kw))
    # One array, the batch first: one array back; out= one array.
    stack = np.stack([photo(24, 32, 3, np.uint8, 30 + i) for i in range(5)])
    whole = ctx.filter_batch(stack, **kw)
    assert whole.shape == stack.shape and whole.dtype == np.uint8
    for i in range(5):
        assert np.array_equal(whole[i], ctx.filter(stack[i], **kw))
    target = np.empty_like(stack)
    assert ctx.filter_batch(stack, out=target, **kw) is target
    assert np.array_equal(target, whole)
    gray = stack[:, :, :, 1]  # N x H x W, a strided view
    assert np.array_equal(ctx.filter_batch(gray, **kw)[2], ctx.filter(gray[2], **kw))
    assert ctx.filter_batch([], **kw) == []
    assert ctx.filter_batch(stack[:0], **kw).shape == (0, 24, 32, 3)
    module = tiledconv.filter_batch(stack, **kw)
    assert np.array_equal(module, whole)
    # Views of a stack, whose images' table is made from the first image's (reversed, every
    # other image, rows bottom-up) or one by one (every other column, float64, swapped bytes).
    views = [stack[::-1], stack[::2], stack[:, ::-1], stack[:, :, ::2],
             stack.astype(np.float64), stack.astype(">u2")]
    for view in views:
        got = ctx.filter_batch(view, **kw)
        for i in range(len(view)):
            assert np.array_equal(got[i], ctx.filter(view[i], **kw)), view.strides
    into = np.empty_like(stack)[::-1]  # out= a reversed view
    ctx.filter_batch(stack, out=into, **kw)
    assert np.array_equal(into, whole)


def test_untimed_calls_give_the_same_bytes(tune):
    """timing=False (the default): the same results, single and batched (on three slots, the
    copies beside the enqueues), with no kernel or conversion time in last_stats and the
    transfers' still; timing=True brings the times back. Only True and False are taken."""
    tune("stream-slots=3")
    kw = dict(kx=tiledconv.named_filter("gauss", 5)[0])
    images = [photo(40 + i, 60 + 2 * i, (0, 3)[i % 2], np.uint8, 70 + i) for i in range(6)]
    with tiledconv.Context(timing=True) as ctx:
        assert ctx.timing is True
        timed = ctx.filter_batch(images, **kw)
        s = ctx.last_stats()
        assert s["kernel_ms_median"] > 0 and s["convert_ms"] > 0
    with tiledconv.Context() as quiet:
        assert quiet.timing is False
        untimed = quiet.filter_batch(images, **kw)
        s = quiet.last_stats()
        assert s["kernel_ms_median"] == 0 and s["convert_ms"] == 0 and s["upload_ms"] >= 0
        assert np.array_equal(quiet.filter(images[1], **kw), timed[1])
        assert quiet.last_stats()["kernel_ms_median"] == 0
        quiet.timing = True
        quiet.filter(images[0], **kw)
        assert quiet.last_stats()["kernel_ms_median"] > 0
        with pytest.raises(ValueError, match="timing: expected True or False"):
            quiet.timing = 1
    assert all(np.array_equal(a, b) for a, b in zip(timed, untimed))


def test_contexts_on_threads_and_the_pinned_ring(ctx, tune):
    """Images of several staging chunks (each context's copy crew shares them out) give the
    same bytes from two contexts on two threads at once as one after another, and through a
    pinned ring smaller than the image (rounds of half the ring)."""
    import threading
    kw = dict(kx=tiledconv.named_filter("gauss", 7)[0], border="reflect101")
    images = [photo(900, 1200, 3, np.uint8, 60), photo(1100, 1000, 0, np.uint16, 61)]
    want = [ctx.filter(image, **kw) for image in images]
    got, errors = {}, []

    def work(k):
        try:
            with tiledconv.Context() as mine:
                got[k] = [mine.filter(image, **kw) for image in images * 2]
        except Exception as e:  # the test fails below, naming it
            errors.append(e)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for k in range(2):
        for i, out in enumerate(got[k]):
            assert np.array_equal(out, want[i % 2])
    tune("pinned-bytes=%d" % (1 << 20))
    for image, expected in zip(images, want):
        assert np.array_equal(ctx.filter(image, **kw), expected)
    assert all(np.array_equal(o, w) for o, w in zip(ctx.filter_batch(images, **kw), want))


def test_a_bad_image_in_a_batch_writes_nothing(ctx):
    images = [photo(10, 12, 0, np.uint8, 40 + i) for i in range(4)]
    outs = [np.full(a.shape, 9, np.uint8) for a in images]
    images[2] = images[2].astype(np.int32)
    with pytest.raises(TypeError, match=r"images\[2\]"):
        ctx.filter_batch(images, out=outs)
    assert all((o == 9).all() for o in outs)


# ---- Borders ---------------------------------------------------------------------------------

# numpy.pad's mode for each library border: what filtering a padded image means.
NP_PAD = {"replicate": "edge", "constant": "constant", "reflect101": "reflect",
          "reflect": "symmetric", "wrap": "wrap"}
# Every name a border goes by, and the library's border it means.
NAMES = [("replicate", "replicate"), ("nearest", "replicate"), (1, "replicate"),
         ("constant", "constant"), ("grid-constant", "constant"), (0, "constant"),
         (16, "constant"),
         ("reflect101", "reflect101"), ("mirror", "reflect101"), (4, "reflect101"),
         (4 | 16, "reflect101"), (np.int64(4), "reflect101"),
         ("reflect", "reflect"), ("grid-mirror", "reflect"), (2, "reflect"),
         ("wrap", "wrap"), ("grid-wrap", "wrap"), (3, "wrap"), (3 | 16, "wrap")]


@pytest.mark.parametrize("name,meaning", NAMES, ids=[repr(n) for n, _ in NAMES])
def test_border_names(ctx, name, meaning):
    image = np.random.default_rng(50).uniform(0, 255, (9, 11)).astype(np.float32)
    k = np.array([1, 2, 3, 2, 1], np.float32)
    got = ctx.filter(image, kx=k, ky=k, border=name, border_value=17.0)
    kw = {"constant_values": 17.0} if meaning == "constant" else {}
    padded = np.pad(image.astype(np.float64), 2, mode=NP_PAD[meaning], **kw)
    want = sum(k[j] * k[i] * padded[j:j + 9, i:i + 11] for j in range(5) for i in range(5))
    tol = tiledconv.tolerance(image, kx=k, ky=k, border=name, border_value=17.0)
    assert np.abs(got - want).max() <= tol, (name, meaning)


def test_bad_borders(ctx):
    image = np.zeros((5, 5), np.uint8)
    for bad in (5, 6, -1, 17 | 4 | 8, 32, True, 1.0, "mirrors", "BORDER_REFLECT", None, b"wrap"):
        with pytest.raises(ValueError, match="border") as info:
            ctx.filter(image, border=bad)
        assert "cv2.BORDER_CONSTANT (0)" in str(info.value) and "nearest" in str(info.value)
    with pytest.raises(ValueError, match="cval"):
        ctx.filter(image, border="constant", border_value=3, cval=4)


# ---- gauss is OpenCV's -----------------------------------------------------------------------

def opencv_kernels():
    """{n: float64 weights} of cv2.getGaussianKernel(n, 0), from the committed fixture."""
    kernels = {}
    for line in FIXTURE.read_text().splitlines():
        if line.startswith("#"):
            continue
        fields = line.split()
        kernels[int(fields[0])] = np.array([float.fromhex(v) for v in fields[1:]])
    return kernels


def test_gauss_without_sigma_is_opencvs():
    kernels = opencv_kernels()
    assert sorted(kernels) == list(range(1, 64, 2))
    assert np.array_equal(kernels[9] * 256, [4, 13, 30, 51, 60, 51, 30, 13, 4])
    for n in range(3, 64, 2):
        for sigma in (0.0, -1.0):
            kx, ky = tiledconv.named_filter("gauss", n, sigma=sigma)
            assert np.array_equal(kx, kernels[n].astype(np.float32)), n
            assert np.array_equal(ky, kx)
    try:
        import cv2
    except ImportError:
        return  # not here: the fixture stands for it (tests/python/opencv_fixture.py)
    for n in range(3, 64, 2):
        assert np.array_equal(tiledconv.named_filter("gauss", n)[0],
                              cv2.getGaussianKernel(n, 0, ktype=cv2.CV_32F).ravel()), n


# ---- Errors ----------------------------------------------------------------------------------

def test_limit_checked_before_any_copy(ctx):
    # A 0-byte view of 65536 x 65536 (16 GiB if copied): refused at once, naming the limit.
    huge = np.broadcast_to(np.zeros((1, 1), np.float64), (65536, 65536))
    for call in (ctx.filter, tiledconv.reference, tiledconv.tolerance,
                 lambda a: ctx.filter_batch([a]), ctx.gradient, ctx.pyramid):
        start = time.perf_counter()
        with pytest.raises(ValueError, match="1073741824"):
            call(huge)
        assert time.perf_counter() - start < 2.0
    with pytest.raises(ValueError, match="1073741824"):
        ctx.filter_batch(np.broadcast_to(np.zeros((1, 1, 1), np.uint8), (3, 32769, 32768)))
    assert tiledconv.MAX_PIXELS == 2**30


BAD_SHAPES = [
    ("1-D", np.zeros(5, np.uint8)),
    ("0-D", np.uint8(3)),
    ("2 channels", np.zeros((4, 4, 2), np.uint8)),
    ("5 channels", np.zeros((4, 4, 5), np.uint8)),
    ("4-D", np.zeros((2, 4, 4, 3), np.uint8)),
    ("empty", np.zeros((0, 4), np.uint8)),
    ("empty colour", np.zeros((4, 0, 3), np.uint16)),
]


@pytest.mark.parametrize("what,image", BAD_SHAPES, ids=[b[0] for b in BAD_SHAPES])
def test_bad_shapes(ctx, what, image):
    with pytest.raises(ValueError, match="shape") as info:
        ctx.filter(image)
    assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match=r"images\[0\]: shape"):
        ctx.filter_batch([image])


def test_bad_dtype_argument_and_out(ctx):
    image = np.zeros((6, 8, 3), np.uint8)
    for dtype in (np.int64, np.float16, bool, "complex64", object):
        with pytest.raises(TypeError, match="uint8, uint16, float32 or float64"):
            ctx.filter(image, dtype=dtype)
    with pytest.raises(TypeError, match="not a dtype"):
        ctx.filter(image, dtype="no such type")
    cases = [
        (np.zeros((6, 8, 3), np.float32), TypeError, "dtype float32, but the result is uint8"),
        (np.zeros((6, 8), np.uint8), ValueError, r"shape \(6, 8\), but the result is"),
        (np.zeros((8, 6, 3), np.uint8), ValueError, "shape"),
        ([[0] * 8] * 6, TypeError, "expected a numpy array"),
    ]
    read_only = np.zeros((6, 8, 3), np.uint8)
    read_only.flags.writeable = False
    cases.append((read_only, ValueError, "read-only"))
    for out, kind, text in cases:
        with pytest.raises(kind, match=text):
            ctx.filter(image, out=out)
    stack = np.zeros((2, 6, 8, 3), np.uint8)
    with pytest.raises(ValueError, match="shape"):
        ctx.filter_batch(stack, out=np.zeros((3, 6, 8, 3), np.uint8))
    with pytest.raises(ValueError, match="2 arrays for 3 images"):
        ctx.filter_batch([image] * 3, out=[np.zeros_like(image)] * 2)
    with pytest.raises(TypeError, match="a list of"):
        ctx.filter_batch([image], out=np.zeros_like(image))
    with pytest.raises(ValueError, match="N x H x W"):
        ctx.filter_batch(np.zeros((4, 4), np.uint8))


# ---- The other entry points take the same dtypes --------------------------------------------

def test_other_entry_points(ctx):
    u8 = photo(30, 40, 0, np.uint8, 60)
    u16 = photo(30, 40, 0, np.uint16, 61)
    scaled = (u16.astype(np.float64) * 255.0 / 65535.0).astype(np.float32)
    for image, plane in ((u8, u8.astype(np.float32)), (u16, scaled)):
        assert np.array_equal(ctx.gradient(image), ctx.gradient(plane))
        assert ctx.gradient(image).dtype == np.float32
        p = ctx.pyramid(image, octaves=2, levels=2)
        q = ctx.pyramid(plane, octaves=2, levels=2)
        assert all(np.array_equal(a, b) for x, y in zip(p, q) for a, b in zip(x, y))
        assert tiledconv.tolerance(image) == tiledconv.tolerance(plane)
    g64 = ctx.gradient(scaled.astype(np.float64))
    assert g64.dtype == np.float64 and np.array_equal(g64, ctx.gradient(scaled))
    with pytest.raises(ValueError, match="one channel"):
        ctx.gradient(photo(8, 8, 3, np.uint8, 62))
    with pytest.raises(TypeError, match="uint8, uint16"):
        ctx.pyramid(np.zeros((16, 16), np.int32))
    # reference() in the filter's dtype, with its rounding; tolerance() on the 0..255 scale.
    colour = photo(25, 35, 3, np.uint8, 63)
    k = tiledconv.named_filter("gauss", 5)[0]
    ref = tiledconv.reference(colour, kx=k, ky=k)
    got = ctx.filter(colour, kx=k, ky=k)
    assert ref.dtype == np.uint8 and ref.shape == colour.shape
    assert np.abs(ref.astype(int) - got.astype(int)).max() <= 1
    exact = tiledconv.reference(colour, kx=k, ky=k, dtype=np.float32)
    floats = ctx.filter(colour, kx=k, ky=k, dtype=np.float32)
    assert np.abs(exact - floats).max() <= tiledconv.tolerance(colour, kx=k, ky=k)
    # Where the device and the reference round differently, the exact sum is within the
    # tolerance of a half.
    differ = ref != got
    frac = np.abs(exact[differ].astype(np.float64) % 1.0 - 0.5)
    assert (frac <= tiledconv.tolerance(colour, kx=k, ky=k)).all()


def test_dir_shows_the_api_only():
    names = dir(tiledconv)
    assert "np" not in names and "ctypes" not in names and "threading" not in names
    assert {"filter", "filter_batch", "Context", "DTYPES", "MAX_PIXELS"} <= set(names)
    assert set(tiledconv.__all__) <= set(names)
