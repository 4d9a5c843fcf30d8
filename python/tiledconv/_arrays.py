"""numpy arrays in and out of the library (nothing here is public; the package wraps it).

The dtypes and shapes the binding takes, checked before any conversion or copy; how an array
becomes a tc_image (its rows read in place wherever the library can read them: any row
stride, negative too; otherwise one copy); the result and out= arrays; and borders by every
name users bring: the library's, SciPy's modes and OpenCV's BORDER_* integers.
"""

import ctypes
import mmap
import operator
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import _native

#: The dtypes filter() takes and returns; float64 is computed in float32.
DTYPES = (np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.float32), np.dtype(np.float64))
ACCEPTED = "uint8, uint16, float32 or float64"

_FORMATS = {np.dtype(np.uint8): _native.TC_PIXELS_U8, np.dtype(np.uint16): _native.TC_PIXELS_U16,
            np.dtype(np.float32): _native.TC_PIXELS_F32}
_FLOAT32 = np.dtype(np.float32)
_FLOAT64 = np.dtype(np.float64)
FLOAT64 = _FLOAT64

# Borders. The library's names in its enumeration's order (tc_border), as tc_border_name gives
# them up to its "?" ...


def _library_borders():
    names = []
    while True:
        name = _native.lib.tc_border_name(len(names))
        if name is None or name == b"?" or len(names) > 64:
            return tuple(names)
        names.append(name.decode())


LIBRARY_BORDERS = _library_borders()
# ... SciPy's modes (scipy.ndimage: 'reflect' is cba|abcd|dcb as here, 'mirror' dcb|abcd|cba;
# the grid- modes are its synonyms for filters) ...
SCIPY_BORDERS = {"nearest": "replicate", "mirror": "reflect101", "reflect": "reflect",
                 "wrap": "wrap", "constant": "constant", "grid-mirror": "reflect",
                 "grid-wrap": "wrap", "grid-constant": "constant"}
# ... and OpenCV's integers, as cv2 numbers them (BORDER_ISOLATED, 16, may be OR-ed in: a ROI
# is an isolated image here anyway).
OPENCV_BORDERS = {0: "constant", 1: "replicate", 2: "reflect", 3: "wrap", 4: "reflect101"}
OPENCV_ISOLATED = 16


def border_index(border, what="border"):
    """The tc_border value of a border given by the library's name, SciPy's mode or OpenCV's
    integer; ValueError for anything else."""
    if isinstance(border, str):
        name = border if border in LIBRARY_BORDERS else SCIPY_BORDERS.get(border)
        if name is not None:
            return LIBRARY_BORDERS.index(name)
    elif not isinstance(border, (bool, np.bool_)):
        try:
            code = operator.index(border)
        except TypeError:
            code = -1
        base = code & ~OPENCV_ISOLATED
        if code >= 0 and base in OPENCV_BORDERS:
            return LIBRARY_BORDERS.index(OPENCV_BORDERS[base])
    names = ", ".join(repr(n) for n in LIBRARY_BORDERS +
                      tuple(n for n in SCIPY_BORDERS if n not in LIBRARY_BORDERS))
    raise ValueError(f"{what}: unknown {border!r}; use one of {names}, or OpenCV's "
                     f"cv2.BORDER_CONSTANT (0), _REPLICATE (1), _REFLECT (2), _WRAP (3), "
                     f"_REFLECT_101 (4), optionally | cv2.BORDER_ISOLATED (16)")


def result_dtype(dtype, what="dtype"):
    """np.dtype of an accepted dtype in the host's byte order; TypeError naming the accepted
    ones for any other."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{what}: {dtype!r} is not a dtype; use {ACCEPTED}") from None
    if not dt.isnative:
        dt = dt.newbyteorder("=")
    if dt not in DTYPES:
        raise TypeError(f"{what}: {dtype!r} is not accepted: use {ACCEPTED} (convert other "
                        f"arrays with .astype() first)")
    return dt


def checked(image, what="image", channels=(1, 3, 4)):
    """(array, height, width, channels) of an image, checked before any conversion or copy:
    its dtype (TypeError), its shape (H x W, or H x W x C with C in `channels`) and size
    against the library's pixel limit (ValueError). The array is the caller's own where it
    was an ndarray."""
    arr = image if isinstance(image, np.ndarray) else np.asarray(image)
    result_dtype(arr.dtype, f"{what}: dtype")
    if arr.ndim == 2:
        (height, width), c = arr.shape, 1
    elif arr.ndim == 3 and arr.shape[2] in channels:
        height, width, c = arr.shape
    else:
        shapes = ("a 2-D array, H x W, or H x W x C with C = "
                  f"{', '.join(map(str, channels))}" if len(channels) > 1
                  else "a 2-D array, H x W (or H x W x 1): one channel")
        hint = " (a stack of images goes to filter_batch)" if arr.ndim in (3, 4) and \
            len(channels) > 1 else ""
        raise ValueError(f"{what}: shape {arr.shape}: expected {shapes}{hint}")
    if height < 1 or width < 1:
        raise ValueError(f"{what}: shape {arr.shape}: both sides must be at least 1")
    if height * width > _native.MAX_PIXELS:
        raise ValueError(f"{what}: {height} x {width} is {height * width} pixels, more than the "
                         f"library's limit of {_native.MAX_PIXELS} (2^30, 32768 x 32768)")
    return arr, height, width, c


def _in_place_layout(arr, c):
    """Whether the library can read or write arr's rows where they lie: samples channel-last
    and contiguous within a row, rows any distance apart (not overlapping), aligned."""
    size = arr.dtype.itemsize
    height, width = arr.shape[:2]
    strides = arr.strides
    if arr.ndim == 3 and c > 1 and strides[2] != size:
        return False
    if width > 1 and strides[1] != c * size:
        return False
    if height > 1 and (abs(strides[0]) < width * c * size or strides[0] % size):
        return False
    return arr.flags.aligned and arr.dtype.isnative


def image_fields(arr, height, width, c):
    """(tc_image's fields but the palette's, the array they point into) for a checked array:
    float64 as a float32 copy, any other layout the library cannot read in place as a
    contiguous copy."""
    if arr.dtype == _FLOAT64 or not arr.dtype.isnative:
        arr = arr.astype(_FLOAT32 if arr.dtype.kind == "f" and arr.dtype.itemsize == 8
                         else arr.dtype.newbyteorder("="))
    if not _in_place_layout(arr, c):
        arr = np.ascontiguousarray(arr)
    stride = arr.strides[0] if height > 1 else width * c * arr.dtype.itemsize
    return (_FORMATS[arr.dtype], width, height, c, arr.__array_interface__["data"][0],
            stride), arr


def image(arr, height, width, c):
    """(tc_image, the array it points into) for a checked array (image_fields)."""
    fields, arr = image_fields(arr, height, width, c)
    return _native.TcImage(*fields, None, 0), arr


# tc_image as a numpy record, field for field at ctypes' offsets: a batch's table of images is
# filled a column at a time (a ctypes structure an image cost a batch of 1,000 about 5 ms).
_FIELDS = ("format", "width", "height", "planes", "data", "stride")
_TC_IMAGE = np.dtype({
    "names": list(_FIELDS),
    "formats": [np.intc] * 4 + [np.uintp, np.dtype("i%d" % ctypes.sizeof(ctypes.c_long))],
    "offsets": [getattr(_native.TcImage, f).offset for f in _FIELDS],
    "itemsize": ctypes.sizeof(_native.TcImage)})


def stack_table(stack, c):
    """image_table for the images of an N x H x W (x C) array, or None where image_fields
    would copy them (float64, the other byte order, a layout read in place nowhere): each
    image's fields are the first's but its data, stack.strides[0] bytes further."""
    n = stack.shape[0]
    if n == 0 or stack.dtype == _FLOAT64 or not stack.dtype.isnative or \
            not stack.flags.aligned or not _in_place_layout(stack[0], c):
        return None
    height, width = stack.shape[1:3]
    first = (_FORMATS[stack.dtype], width, height, c, stack.__array_interface__["data"][0],
             stack.strides[1] if height > 1 else width * c * stack.dtype.itemsize)
    table = np.zeros(n, _TC_IMAGE)
    for k, name in enumerate(_FIELDS):
        table[name] = first[k]
    # user-space addresses fit int64; a negative stride (images last to first) too
    table["data"] = first[4] + np.arange(n, dtype=np.int64) * stack.strides[0]
    return (_native.TcImage * n).from_buffer(table)


def image_table(rows):
    """A ctypes array of tc_image (at least one element) from image_fields' tuples; the
    palette fields zero."""
    table = np.zeros(max(len(rows), 1), _TC_IMAGE)
    for k, column in enumerate(zip(*rows)):
        table[_FIELDS[k]] = column
    return (_native.TcImage * len(table)).from_buffer(table)


def _byte_bounds(arr):
    """The first and one past the last byte an array's elements reach."""
    bounds = getattr(np, "byte_bounds", None)
    if bounds is None:  # numpy 2 moved it
        from numpy.lib.array_utils import byte_bounds as bounds
    return bounds(arr)


def _share(a, b):
    """Whether two arrays share an element's memory (exactly; where numpy cannot tell within
    its bound of work, as if they did)."""
    try:
        return np.shares_memory(a, b, max_work=100000)
    except np.exceptions.TooHardError if hasattr(np, "exceptions") else np.TooHardError:
        return True


def refuse_overlaps(sources, outs):
    """ValueError where a batch's result would depend on how many images are in flight: an
    out= array that shares memory with another image's out= array, or with a later image's
    source (the pipeline may write result i before it reads image j > i). An out= array over
    its own image (in place), or over an earlier image, is allowed: an image is read before
    its result is written, and image j < i before result i. outs[i] None: a new array."""
    spans = [(*_byte_bounds(a), 1, i, a) for i, a in enumerate(outs) if a is not None]
    if not spans:
        return
    spans += [(*_byte_bounds(a), 0, j, a) for j, a in enumerate(sources)]
    spans.sort(key=lambda s: s[0])
    active_out, active_in = [], []
    for lo, hi, is_out, k, a in spans:
        active_out = [t for t in active_out if t[1] > lo]
        active_in = [t for t in active_in if t[1] > lo]
        for _, _, _, i, b in active_out:
            if is_out and _share(a, b):
                raise ValueError(f"out[{min(i, k)}] and out[{max(i, k)}] share memory: each "
                                 f"image's result needs memory of its own")
            if not is_out and k > i and _share(a, b):
                raise ValueError(f"out[{i}] shares memory with images[{k}], a later image of "
                                 f"the batch, which may be read after result {i} is written")
        if is_out:
            for _, _, _, j, b in active_in:
                if j > k and _share(a, b):
                    raise ValueError(f"out[{k}] shares memory with images[{j}], a later image "
                                     f"of the batch, which may be read after result {k} is "
                                     f"written")
            active_out.append((lo, hi, is_out, k, a))
        else:
            active_in.append((lo, hi, is_out, k, a))


# New results of a batch this large (in all) have their pages made present by several threads
# before the library writes them (populate, below).
_PREFAULT_BYTES = 64 << 20
_MADV_POPULATE_WRITE = 23  # Linux 5.14


def _libc():
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
        return libc
    except (OSError, AttributeError):
        return None


_LIBC = _libc()
_PAGE = mmap.PAGESIZE


def _populate_one(a):
    """Makes the pages under a present and writable: madvise(MADV_POPULATE_WRITE), which
    leaves pages already there alone (ctypes lets the GIL go meanwhile); where the kernel
    lacks it, a fill (which faults the same pages in, but also writes them)."""
    start = a.__array_interface__["data"][0]
    lo, hi = start // _PAGE * _PAGE, -(-(start + a.nbytes) // _PAGE) * _PAGE
    if _LIBC is None or _LIBC.madvise(lo, hi - lo, _MADV_POPULATE_WRITE) != 0:
        a.reshape(-1).fill(0)


def populate(arrays):
    """New result arrays, their pages made present by up to 16 threads at once when they are
    large in all.

    A new array's pages are the kernel's to zero at the first touch, one fault at a time in
    the touching thread. A batch's N x H x W result of 2 GB is a fresh mapping each time and
    took 0.16 s of such faults on the GPU machine (H100 host, bench/array_memory.py), more than
    the batch's filtering; a list's results come from the heap, whose freed pages glibc may
    have given back (the faults then cost as much) or not (none), by the process's history.
    Faulted in by 16 threads at once (measured there with a fill of zeros, the fallback
    below) the faults cost a third as much; madvise also skips pages already there.
    """
    if sum(a.nbytes for a in arrays) < _PREFAULT_BYTES:
        return
    pieces = []
    for a in arrays:
        flat = a.reshape(-1)
        step = max(1, (8 << 20) // max(1, a.itemsize))  # 8 MB a piece
        pieces += [flat[i:i + step] for i in range(0, flat.size, step)]
    threads = max(1, min(16, os.cpu_count() or 1))
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(_populate_one, pieces))


class Output:
    """Where results go: `result` is what the caller gets (out= itself, or a new array); the
    library writes `target` (result itself, or a float32 or contiguous stand-in that finish()
    copies into result). shape is one image's, or (N, ...) with batch=True."""

    def __init__(self, shape, dtype, out, c, what="out", batch=False):
        shape = tuple(shape)
        if out is None:
            self.result = np.empty(shape, dtype)
        else:
            if not isinstance(out, np.ndarray):
                raise TypeError(f"{what}: expected a numpy array, got {type(out).__name__}")
            if out.dtype != dtype:
                raise TypeError(f"{what}: dtype {out.dtype}, but the result is {dtype} (pass "
                                f"dtype= for another result type)")
            if out.shape != shape:
                raise ValueError(f"{what}: shape {out.shape}, but the result is {shape}")
            if not out.flags.writeable:
                raise ValueError(f"{what}: the array is read-only")
            self.result = out
        self.c = c
        images = [self.result[i] for i in range(shape[0])] if batch else [self.result]
        if dtype == _FLOAT64 or not all(_in_place_layout(a, c) for a in images):
            self.target = np.empty(shape, _FLOAT32 if dtype == _FLOAT64 else dtype)
        else:
            self.target = self.result
        #: whether the library writes an array made here (populate's to fault in), not out=
        self.fresh = out is None or self.target is not self.result

    def image_fields(self, index=None):
        """image_fields' tuple for the target (for image `index` of a batch)."""
        t = self.target if index is None else self.target[index]
        height, width = t.shape[:2]
        stride = t.strides[0] if height > 1 else width * self.c * t.dtype.itemsize
        return (_FORMATS[t.dtype], width, height, self.c, t.__array_interface__["data"][0],
                stride)

    def image(self, index=None):
        """The tc_image of the target (of image `index` of a batch)."""
        return _native.TcImage(*self.image_fields(index), None, 0)

    def finish(self):
        if self.target is not self.result:
            np.copyto(self.result, self.target, casting="unsafe")
        return self.result
