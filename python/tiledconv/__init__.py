"""Image filtering on OpenCL devices, from numpy.

A Python binding (ctypes) of libtiledconv, the library behind the `tiledconv` command line:
AMD's tiled convolution beside the classic two-pass and one-pass kernels, every result bit
for bit what the command line computes. `pip install ./python` builds the C library with the
project's Makefile and carries it in the package.

Images
------
An image is an H x W array, or H x W x C with C = 1, 3 or 4 channels (channel last), of uint8,
uint16, float32 or float64; each channel is filtered on its own, all in one pass through the
device, and the result has the image's shape and dtype (``dtype=`` for another, ``out=`` to
write into an array). The library works on the 0..255 scale: uint16 samples are read as
v * 255 / 65535, floats as they are (float64 computed in float32), and integer results are
written as the command line writes its files (uint8 floor(clamp(v, 0, 255) + 0.5), uint16
round(clamp(v, 0, 255) * 65535 / 255)). Any other dtype is a TypeError. ``filter_batch`` takes
a list of images (sizes may differ) or one N x H x W (x C) array, through the library's
pipeline of overlapped transfers. ``Context.empty`` and ``empty_like`` give arrays in the
context's page-locked memory, which those calls move to and from the device with no staging
copy (as images and as ``out=``).

What is computed
----------------
A separable filter, row coefficients ``kx`` and column coefficients ``ky`` (each of an odd
length 1..63, not both 1: a length of 1 leaves that axis unfiltered; radii ``rx = len(kx) // 2``
and ``ry = len(ky) // 2``), or a non-separable ``mask`` (a 2-D array of odd sizes up to 15 x 15,
``mask[j, i]`` in place of ``ky[j] * kx[i]``), as a *correlation* (no flip): for a target pixel
at offset (x, y) inside the region of interest (ROI),

    out[dst_top + y, dst_left + x] =
        sum_j sum_i ky[j + ry] * kx[i + rx] * S(src_left + x + i, src_top + y + j)

for i in -rx..rx, j in -ry..ry. A mask that is rank 1 (an outer product, as a blur's is) is
found and run as its two factors (``mask_factors``), which is faster; its results are still
checked against its own weights (``reference``). ``S`` reads only the *source ROI*: a position
outside it takes the value of the border rule, the ROI treated as an isolated image ("abcd" is
the ROI), named the library's way, SciPy's way or by OpenCV's BORDER_* integer:

    library      SciPy                           OpenCV                  abcd
    replicate    nearest                         BORDER_REPLICATE (1)    aaa|abcd|ddd  default
    constant     constant, grid-constant (cval)  BORDER_CONSTANT (0)     vvv|abcd|vvv
    reflect101   mirror                          BORDER_REFLECT_101 (4)  dcb|abcd|cba
    reflect      reflect, grid-mirror            BORDER_REFLECT (2)      cba|abcd|dcb
    wrap         wrap, grid-wrap                 BORDER_WRAP (3)         bcd|abcd|abc

(OpenCV's integers may carry BORDER_ISOLATED, 16; OpenCV and SciPy default to reflect-101.)
The source ROI starts at ``src = (left, top)``, the target ROI at ``dst = (left, top)``; both
are ``size = (width, height)`` (None: the largest that fits both); pixels outside the target
ROI are the input's.

Example
-------
>>> import numpy as np, tiledconv
>>> image = np.arange(20, dtype=np.float32).reshape(4, 5)
>>> with tiledconv.Context() as ctx:                    # the default OpenCL device
...     out = ctx.filter(image, kx=[1, 2, 1], ky=[0.25, 0.5, 0.25], border="mirror")
>>> smooth = tiledconv.filter(image)                     # 3-tap binomial, a default context
>>> kx, ky = tiledconv.named_filter("sobel-x", 3)
>>> edges = tiledconv.filter(image, kx=kx, ky=ky, src=(1, 1), dst=(1, 1), size=(3, 2))
>>> lap = tiledconv.filter(image, mask=tiledconv.named_mask("laplacian"))
>>> long = tiledconv.filter(image, kx=tiledconv.named_filter("gauss", 31)[0], ky=[1])
>>> magnitude = tiledconv.gradient(image, "sobel")           # gx, gy and sqrt: one read
>>> photo = np.zeros((120, 160, 3), np.uint8)
>>> tiledconv.filter(photo, border=4).dtype                  # OpenCV's BORDER_REFLECT_101
dtype('uint8')

Errors: a dtype the binding does not take raises TypeError; bad shapes and arguments raise
ValueError (with the library's message); device and run-time failures (OpenCL errors, out of
memory) raise tiledconv.Error.

A gradient from one read
------------------------
``gradient(image, operator="sobel")`` computes the x and y derivatives with OpenCV's
unnormalised 3-tap kernels (gx: [-1 0 1] along the rows and [1 2 1], Scharr [3 10 3], down
the columns, what ``named_filter("sobel-x", 3)`` gives; gy the other way round) and their
magnitude sqrt(gx**2 + gy**2) in one pass of the tiled kernel that reads each pixel once;
``method="separate"`` runs the two filters apart and then the magnitude, for comparison. The
ROIs and the border apply as for ``filter``.

The library is found through $TILEDCONV_LIBRARY (a path to libtiledconv.so.1), else the
package's own folder (where pip puts it), else the build tree (``PYTHONPATH=python`` from the
project root after ``make``), else the prefix the package was installed into (``P/lib`` beside
``P/lib/python3/dist-packages/tiledconv``), else the dynamic loader's search path.
"""

import atexit
import ctypes
import operator
import os
import threading
from dataclasses import dataclass

import numpy as np

from . import _arrays, _files, _host_memory, _native, _result_memory
from ._native import TC_EINVAL, TC_OK

__all__ = ["Context", "Error", "Device", "devices", "filter", "filter_batch", "empty",
           "empty_like", "reference",
           "tolerance", "DTYPES", "MAX_PIXELS", "named_filter", "named_mask", "mask_factors", "default_context", "BORDERS",
           "ALGORITHMS", "STORAGES", "MIN_TAPS", "MAX_TAPS", "MAX_MASK_SIZE", "gradient",
           "gradient_reference", "gradient_tolerance", "GRADIENT_OPERATORS", "GRADIENT_METHODS",
           "pyramid", "pyramid_layout", "pyramid_reference", "pyramid_tolerance",
           "PYRAMID_LAUNCHES", "MAX_OCTAVES", "MAX_LEVELS", "filter_files", "filter_file",
           "read_image", "write_image", "FileResult", "__version__"]

_lib = _native.lib
_files.declare(_lib)
FileResult = _files.FileResult

#: The version of the C library in use, "MAJOR.MINOR.PATCH" (tc_version()).
__version__ = _lib.tc_version().decode()

#: Filter lengths the library accepts (odd): MIN_TAPS..MAX_TAPS the same along both axes;
#: with a length per axis each is 1..MAX_TAPS, not both 1.
MIN_TAPS = 3
MAX_TAPS = 63
#: The largest mask, MAX_MASK_SIZE x MAX_MASK_SIZE (odd sizes, not 1 x 1).
MAX_MASK_SIZE = 15


def _enum_names(name_of):
    """The names of a C enumeration, in order, from tc_border_name / tc_algorithm_name."""
    names = []
    while True:
        name = name_of(len(names)).decode()
        if name == "?":
            return tuple(names)
        names.append(name)


#: Border rules by the library's names, in the order of the C enumeration tc_border. The
#: ``border`` arguments also take SciPy's modes and OpenCV's BORDER_* integers (see the module's
#: documentation), never an index into this tuple.
BORDERS = _enum_names(_lib.tc_border_name)
#: The dtypes filter() and filter_batch() take and return (float64 is computed in float32).
DTYPES = tuple(dt.type for dt in _arrays.DTYPES)
#: The largest image the library takes: 2**30 pixels (32768 x 32768).
MAX_PIXELS = _native.MAX_PIXELS
#: Algorithms, in the order of the C enumeration tc_algorithm.
ALGORITHMS = _enum_names(_lib.tc_algorithm_name)
#: Where the tiled and one-pass kernels read the source ("buffer", "image"): tc_storage.
STORAGES = _enum_names(_lib.tc_storage_name)
#: Gradient operators ("sobel", "scharr"), in the order of tc_gradient_operator.
GRADIENT_OPERATORS = _enum_names(_lib.tc_gradient_operator_name)
#: Gradient methods ("one-read", "separate"), in the order of tc_gradient_method.
GRADIENT_METHODS = _enum_names(_lib.tc_gradient_method_name)
#: The scale space's launch styles, in the order of tc_pyramid_launch: "per-octave" (one
#: launch per octave, the default), "per-level" (one launch per level).
PYRAMID_LAUNCHES = _enum_names(_lib.tc_pyramid_launch_name)
#: pyramid()'s limits: octaves 1..MAX_OCTAVES of levels 1..MAX_LEVELS.
MAX_OCTAVES = 16
MAX_LEVELS = 8

_INT_MIN, _INT_MAX = -2**31, 2**31 - 1


class Error(RuntimeError):
    """A device or run-time failure of the library (an OpenCL error, out of host or device
    memory). The message is the library's; ``code`` is its status (2: TC_EDEVICE, 3:
    TC_ENOMEM)."""

    def __init__(self, message, code=None):
        super().__init__(message)
        self.code = code


def _raise(status, message):
    """Raises what a non-TC_OK status means: ValueError for TC_EINVAL, else Error."""
    message = message or f"tiledconv: call failed with status {status}"
    if status == TC_EINVAL:
        raise ValueError(message)
    raise Error(message, status)


@dataclass(frozen=True)
class Device:
    """An OpenCL device as libtiledconv sees it (tc_device_info).

    ``spec`` ("P:D") opens exactly this device: ``Context(device=d.spec)`` or ``Context(d)``.
    """
    platform: int
    device: int
    platform_name: str
    platform_version: str
    name: str
    is_gpu: bool
    is_cpu: bool
    compute_units: int
    global_mem_bytes: int
    max_alloc_bytes: int
    local_mem_bytes: int
    has_double: bool

    @property
    def spec(self):
        """The "P:D" string that tc_open (and Context) take for this device."""
        return f"{self.platform}:{self.device}"

    @classmethod
    def _from_c(cls, info):
        def text(raw):
            return raw.decode("utf-8", "replace")
        return cls(platform=info.platform, device=info.device,
                   platform_name=text(info.platform_name),
                   platform_version=text(info.platform_version), name=text(info.name),
                   is_gpu=bool(info.is_gpu), is_cpu=bool(info.is_cpu),
                   compute_units=info.compute_units, global_mem_bytes=info.global_mem_bytes,
                   max_alloc_bytes=info.max_alloc_bytes, local_mem_bytes=info.local_mem_bytes,
                   has_double=bool(info.has_double))


def devices():
    """Every OpenCL device of every platform, platform by platform, as a list of Device.

    An empty list when there is no OpenCL platform at all. Raises Error when listing fails.
    """
    err = ctypes.create_string_buffer(_native.ERR_SIZE)
    count = ctypes.c_int(0)
    status = _lib.tc_list_devices(None, 0, ctypes.byref(count), err, len(err))
    if status != TC_OK:
        _raise(status, err.value.decode(errors="replace"))
    while True:
        capacity = count.value
        if capacity == 0:
            return []
        array = (_native.TcDeviceInfo * capacity)()
        status = _lib.tc_list_devices(array, capacity, ctypes.byref(count), err, len(err))
        if status != TC_OK:
            _raise(status, err.value.decode(errors="replace"))
        if count.value <= capacity:  # else a device appeared in between: ask again
            return [Device._from_c(array[i]) for i in range(count.value)]


# ---- Arguments --------------------------------------------------------------------------------

def _int(value, what):
    """A Python int from an integer-like value, in C int's range, else ValueError."""
    try:
        value = operator.index(value)
    except TypeError:
        raise ValueError(f"{what}: expected an integer, got {value!r}") from None
    if not _INT_MIN <= value <= _INT_MAX:
        raise ValueError(f"{what}: {value} is out of range")
    return value


def _pair(value, what):
    try:
        a, b = value
    except (TypeError, ValueError):
        raise ValueError(f"{what}: expected a pair of integers, got {value!r}") from None
    return _int(a, what), _int(b, what)


def _real(value):
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{value!r} is not a number")
    return float(value)


def _float32(values):
    """A C-contiguous float32 array of real numbers (the same array when it already is one).

    numpy would turn strings of digits into numbers, None into NaN and drop imaginary parts;
    here those are errors (TypeError / ValueError). Python objects go through float().
    """
    if type(values) is np.ndarray and values.dtype == np.float32 and \
            values.flags.c_contiguous:
        return values  # named_filter's arrays, as they are: nothing to check or copy
    arr = np.asarray(values)
    if arr.dtype == object:
        arr = np.frompyfunc(_real, 1, 1)(arr) if arr.size else arr
    elif arr.dtype.kind not in "biuf":
        raise TypeError(f"values of type {arr.dtype} are not real numbers")
    return np.ascontiguousarray(arr, dtype=np.float32)


def _plane(image, what="image"):
    """(float32 plane, width, height, float dtype of the result) of a 2-D image (or H x W x 1)
    of an accepted dtype: uint8 and uint16 on the library's 0..255 scale (its own conversion,
    tc_image_to_planes: a uint16 sample v is v * 255 / 65535), floats as they are (float64
    rounded to float32). The result dtype is float64 for float64 images, else float32. Checked
    before any conversion or copy."""
    arr, height, width, _ = _arrays.checked(image, what, channels=(1,))
    kind = _arrays.result_dtype(arr.dtype)
    out_dtype = np.dtype(np.float64) if kind == np.float64 else np.dtype(np.float32)
    if kind.kind == "f":
        return np.ascontiguousarray(arr.reshape(height, width), np.float32), width, height, \
            out_dtype
    img, keep = _arrays.image(arr, height, width, 1)
    plane = np.empty((height, width), np.float32)
    err = ctypes.create_string_buffer(_native.ERR_SIZE)
    status = _lib.tc_image_to_planes(ctypes.byref(img), 1, _ptr(plane), err, len(err))
    del keep
    if status != TC_OK:
        _raise(status, err.value.decode(errors="replace"))
    return plane, width, height, out_dtype


def _as(result, dtype):
    """result (float32) as dtype (float64 for float64 images)."""
    return result if result.dtype == dtype else result.astype(dtype)


def _real_array(x, what, ndim, noun, expected):
    """x as a C-contiguous float32 array of ndim dimensions; a ValueError that names what,
    as noun ("a sequence") or as what was expected, otherwise."""
    try:
        arr = _float32(x)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{what}: not {noun} of real numbers: {e}") from None
    if arr.ndim != ndim:
        raise ValueError(f"{what}: expected {expected}, got shape {arr.shape}")
    return arr


def _kernel_ms(s):
    """The kernel times of a stats struct's timed runs, copied into a list."""
    return [s.kernel_ms[i] for i in range(s.iterations)] if s.kernel_ms else []


def _coefficients(k, what):
    if k is None:
        return None
    return _real_array(k, what, 1, "a sequence", "a 1-D sequence of coefficients")


def _mask(mask):
    """A C-contiguous float32 2-D array of real numbers (rows first), or None."""
    if mask is None:
        return None
    arr = _real_array(mask, "mask", 2, "an array", "a 2-D array (rows, columns)")
    height, width = arr.shape
    _int(width, "mask width")
    _int(height, "mask height")
    return arr


def _index(names, value, what):
    if isinstance(value, str) and value in names:
        return names.index(value)
    raise ValueError(f"{what}: unknown {value!r} (one of {', '.join(names)})")


def _ptr(arr):
    return arr.ctypes.data_as(_native.FloatPtr)


def _address(arr):
    """The address of an array's first element (non-NULL even when it is empty)."""
    return arr.__array_interface__["data"][0] or None


class _Params:
    """A tc_params filled from Python arguments, with the coefficient arrays it points into
    kept alive as long as it is."""

    def __init__(self, kx=None, ky=None, border="replicate", border_value=0.0, src=(0, 0),
                 dst=(0, 0), size=None, algorithm="tiled", mask=None,
                 storage="buffer", cval=None):
        p = _native.TcParams()
        _lib.tc_params_init(ctypes.byref(p))
        self.kx = _coefficients(kx, "kx")
        self.ky = _coefficients(ky, "ky")
        self.mask = _mask(mask)
        if self.mask is not None and (self.kx is not None or self.ky is not None):
            raise ValueError("mask and kx/ky: give a mask or a separable filter, not both")
        if self.mask is not None:
            # An empty mask stays a non-NULL pointer: the library refuses 0 x 0.
            p.mask = _address(self.mask)
            p.mask_height, p.mask_width = self.mask.shape
        # None: the binomial of the other's length, or of 3 (the library's NULL pointer).
        taps_x = len(self.kx) if self.kx is not None else None
        taps_y = len(self.ky) if self.ky is not None else None
        if taps_x is None:
            taps_x = taps_y if taps_y is not None else 3
        if taps_y is None:
            taps_y = taps_x
        p.taps_x = _int(taps_x, "kx length")
        p.taps_y = _int(taps_y, "ky length")
        # An empty sequence stays a non-NULL pointer: the library refuses 0 taps.
        p.kx = _address(self.kx) if self.kx is not None else None
        p.ky = _address(self.ky) if self.ky is not None else None
        p.src_left, p.src_top = _pair(src, "src")
        p.dst_left, p.dst_top = _pair(dst, "dst")
        p.roi_width, p.roi_height = (0, 0) if size is None else _pair(size, "size")
        p.border = _arrays.border_index(border)
        if cval is not None:  # SciPy's name for the constant border's value
            if border_value != 0.0:
                raise ValueError("border_value and cval: give one (cval is SciPy's name for "
                                 "border_value)")
            border_value = cval
        try:
            p.border_value = float(border_value)
        except (TypeError, ValueError):
            raise ValueError(f"border_value: expected a number, got {border_value!r}") from None
        p.algorithm = _index(ALGORITHMS, algorithm, "algorithm")
        p.storage = _index(STORAGES, storage, "storage")
        self.c = p

    def ref(self):
        return ctypes.byref(self.c)


class _PyramidParams:
    """A tc_pyramid_params filled from Python arguments."""

    def __init__(self, octaves=4, levels=4, sigma=1.6, border="replicate", border_value=0.0,
                 launch="per-octave"):
        p = _native.TcPyramidParams()
        _lib.tc_pyramid_params_init(ctypes.byref(p))
        p.octaves = _int(octaves, "octaves")
        p.levels = _int(levels, "levels")
        try:
            p.sigma = float(sigma)
            p.border_value = float(border_value)
        except (TypeError, ValueError):
            raise ValueError(f"sigma and border_value: expected numbers, got {sigma!r} and "
                             f"{border_value!r}") from None
        p.border = _arrays.border_index(border)
        p.launch = _index(PYRAMID_LAUNCHES, launch, "launch")
        self.c = p

    def ref(self):
        return ctypes.byref(self.c)


def _pyramid_layout(width, height, params):
    """The tc_pyramid_level entries of a pyramid of params on a width x height image."""
    count = ctypes.c_int(0)
    levels = (_native.TcPyramidLevel * (MAX_OCTAVES * MAX_LEVELS))()
    err = ctypes.create_string_buffer(_native.ERR_SIZE)
    status = _lib.tc_pyramid_layout(width, height, params.ref(), levels, len(levels),
                                    ctypes.byref(count), err, len(err))
    if status != TC_OK:
        _raise(status, err.value.decode(errors="replace"))
    return [levels[i] for i in range(count.value)]


def _pyramid_arrays(width, height, params):
    """The pyramid's arrays, [octave][level], and the C array of pointers to them."""
    layout = _pyramid_layout(width, height, params)
    arrays = [np.empty((lv.height, lv.width), dtype=np.float32) for lv in layout]
    pointers = (_native.FloatPtr * max(len(arrays), 1))(*[_ptr(a) for a in arrays])
    per = params.c.levels
    nested = [arrays[k * per:(k + 1) * per] for k in range(params.c.octaves)]
    return nested, pointers


# ---- Contexts ---------------------------------------------------------------------------------

class Context:
    """An OpenCL device opened for filtering, with its compiled programs and buffers.

    ``device``: None or "" (the first GPU of any platform, else the first device), "gpu",
    "cpu", "all" (the first device of that type), "P:D" (device D of platform P, as devices()
    numbers them), "P", "cpu:P", "gpu:P:D", "gpu::D"; or a Device from devices().
    A device that does not exist raises ValueError; one that fails to open raises Error.

    Programs are built on first use of each setting (filter length, border, algorithm, ...)
    and reused; device buffers are reused while images fit them, so keep one context for many
    calls. Use it as a context manager or call close(). One context may be shared by threads:
    calls on it are serialized by a lock (use one context per thread to run in parallel).

    ``max_memory``: the most bytes a filter call may allocate (on a CPU device its buffers
    too); None: what the host has available at each call. An image that does not fit it, or
    the device, is filtered in bands of rows, with the same result bit for bit (bilinear
    excepted: it raises ValueError); the property can be changed later.

    ``timing``: whether filter() and filter_batch() time their conversions and kernels on
    the device for last_stats(). False, the default, as the command line without -t: those
    profiling events cost the driver about a fifth of a gray 1080p image's share of a batch
    on an H100 or H200, a cost no call should pay for times nobody reads; last_stats() then
    gives kernel_ms and convert_ms as 0, the transfers' times still. True times them (and
    filter_timed() always does). The property can be changed later.
    """

    def __init__(self, device=None, max_memory=None, timing=False):
        self._lock = threading.Lock()
        self._ctx = None
        self._max_memory = None
        self._timing = True  # the C context's default, until the setter below
        if isinstance(device, Device):
            device = device.spec
        if device is None:
            spec = None
        elif isinstance(device, str):
            if "\0" in device:
                raise ValueError(f"device: {device!r} contains a NUL character")
            spec = device.encode()
        else:
            raise ValueError(f"device: expected None, a string or a Device, got {device!r}")
        handle = _native.ContextPtr()
        err = ctypes.create_string_buffer(_native.ERR_SIZE)
        status = _lib.tc_open(spec, ctypes.byref(handle), err, len(err))
        if status != TC_OK:
            _raise(status, err.value.decode(errors="replace"))
        self._ctx = handle
        # The handle, shared with the page-locked arrays of empty(): tc_close waits for them.
        self._memory = _host_memory.HostMemory(handle)
        if max_memory is not None:
            self.max_memory = max_memory
        if timing is not True:
            self.timing = timing

    @property
    def max_memory(self):
        """The budget of a filter call in bytes (tc_set_max_memory), or None: the host's
        available memory."""
        return self._max_memory

    @max_memory.setter
    def max_memory(self, value):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or
                                  value < 1 or value >= 1 << 64):
            raise ValueError(f"max_memory: expected None or a number of bytes of at least 1, "
                             f"got {value!r}")
        with self._lock:
            _lib.tc_set_max_memory(self._handle(), 0 if value is None else value)
            self._max_memory = value

    @property
    def timing(self):
        """Whether filter() and filter_batch() time their device work (tc_set_timing)."""
        return self._timing

    @timing.setter
    def timing(self, value):
        if not isinstance(value, bool):
            raise ValueError(f"timing: expected True or False, got {value!r}")
        with self._lock:
            _lib.tc_set_timing(self._handle(), int(value))
            self._timing = value

    # -- lifetime --

    def trim(self):
        """Gives back the buffers the context keeps between calls to save making them again
        (tc_trim): its device buffers (on a CPU device, host memory), its transfers'
        page-locked staging; and the blocks kept for batches' new results (those of every
        context: filter_batch). Its programs and device stay; the next call makes what it
        needs again. For holding memory down between images of different sizes."""
        with self._lock:
            _lib.tc_trim(self._handle())
        _result_memory.release()

    def close(self):
        """Releases the context and everything it holds on the device. Safe to call twice.

        Every later call on the context raises ValueError. While page-locked arrays of
        empty() or empty_like() live, they stay valid memory and the release waits for the
        last of them to be garbage (the device's buffers and programs stay held until then).
        """
        lock = getattr(self, "_lock", None)
        if lock is None:  # __init__ failed before the lock existed
            return
        with lock:
            handle, self._ctx = self._ctx, None
            if handle is not None:
                self._memory.close()

    @property
    def closed(self):
        """True once close() has been called."""
        return self._ctx is None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone already
            pass

    def __repr__(self):
        if self._ctx is None:
            return "<tiledconv.Context (closed)>"
        d = self.device
        return f"<tiledconv.Context on {d.spec} {d.name!r} ({d.platform_name})>"

    def _handle(self):
        """The C handle; the caller holds the lock."""
        if self._ctx is None:
            raise ValueError("tiledconv: operation on a closed Context")
        return self._ctx

    def _fail(self, status):
        """Raises for status with tc_error's message; the caller holds the lock."""
        message = _lib.tc_error(self._ctx)
        _raise(status, message.decode(errors="replace") if message else "")

    def _last(self, fetch, s, copy):
        """fetch(handle, &s), the figures of the last run of a kind, then copy(s): the lists s
        points to, copied while the lock keeps another run from replacing them. None when this
        context has made no such run yet."""
        with self._lock:
            status = fetch(self._handle(), ctypes.byref(s))
            if status == TC_EINVAL:
                return None
            if status != TC_OK:
                self._fail(status)
            return copy(s)

    # -- information --

    @property
    def device(self):
        """The Device this context runs on (tc_context_device)."""
        info = _native.TcDeviceInfo()
        with self._lock:
            status = _lib.tc_context_device(self._handle(), ctypes.byref(info))
            if status != TC_OK:
                self._fail(status)
        return Device._from_c(info)

    def last_stats(self):
        """Figures of the last successful filter call on this context, as a dict; None when
        there was none yet.

        Keys (times in ms): algorithm, iterations, kernel_ms_min, kernel_ms_median,
        kernel_ms_mean, kernel_ms (a list, one per timed run), passes, pass_ms (twopass and
        the tiled kernel's split variant: a list per pass, else None), build_ms (0 when the
        program came from the cache), upload_ms, download_ms, wall_ms_per_iteration, global,
        local (the launch, pass 1 for twopass and split), block (tiled: pixels per
        work-item), classes (tiled: work-groups of the article's classes 1..4, both passes'
        for split), classes_counted (counted by the kernel, else predicted),
        roi_width, roi_height (the ROI filtered), programs_built (programs this context has
        built so far), planes (the planes filtered: 1 for a gray image, its channels, 3 or 4,
        for a colour one; the kernel times are their sum), convert_ms (the conversions
        between samples and planes on the device; 0 for filter_timed's float planes, and for a
        gray uint8 image filtered over its whole area, whose bytes the filter kernel reads and
        writes itself). After
        filter_batch, the times are summed over the batch's images. With ``timing`` False (the
        default), filter() and filter_batch() leave kernel_ms and convert_ms at 0: make the
        context with timing=True for them, or use filter_timed(). The device's times of
        filter() and filter_batch() are read from the driver here, on the first call after
        them.
        """
        def copy(s):
            pass_ms = None
            if s.passes == 2 and s.pass_ms[0] and s.pass_ms[1]:
                pass_ms = [[s.pass_ms[p][i] for i in range(s.iterations)] for p in range(2)]
            return _kernel_ms(s), pass_ms

        s = _native.TcStats()
        lists = self._last(_lib.tc_last_stats, s, copy)
        if lists is None:
            return None
        kernel_ms, pass_ms = lists
        n = s.iterations
        return {
            "algorithm": ALGORITHMS[s.algorithm] if 0 <= s.algorithm < len(ALGORITHMS)
            else s.algorithm,
            "iterations": n,
            "kernel_ms_min": s.kernel_ms_min,
            "kernel_ms_median": s.kernel_ms_median,
            "kernel_ms_mean": s.kernel_ms_mean,
            "kernel_ms": kernel_ms,
            "passes": s.passes,
            "pass_ms": pass_ms,
            "build_ms": s.build_ms,
            "upload_ms": s.upload_ms,
            "download_ms": s.download_ms,
            "wall_ms_per_iteration": s.wall_ms_per_iteration,
            "global": tuple(s.global_),
            "local": tuple(s.local),
            "block": tuple(s.block),
            "classes": tuple(s.classes),
            "classes_counted": bool(s.classes_counted),
            "roi_width": s.roi_width,
            "roi_height": s.roi_height,
            "programs_built": s.programs_built,
            "planes": s.planes,
            "convert_ms": s.convert_ms,
        }

    # -- page-locked memory --

    def empty(self, shape, dtype=np.uint8):
        """A new array of ``shape`` and ``dtype`` (uint8, uint16 or float32) in page-locked
        host memory of this context, C-ordered, its values undefined (as numpy.empty's).

        shape         H x W, H x W x C, N x H x W or N x H x W x C: 2 to 4 sides of at least 1.

        Images whose rows lie in such memory go straight between it and the device: as the
        image of filter() or filter_batch() of *this* context they go up with no copy into
        the library's staging memory, and as ``out=`` they come down with none out of it,
        with the same bytes as any array gives. That holds for the whole array or any view
        of it whose rows run top to bottom and whose pixels are packed in a row (crops
        included); other views, and other contexts, take the ordinary way. Pass ``out=`` a
        page-locked array for the result to skip the staging too: without it the result is
        a new ordinary array.

        The memory is freed when the last array over it (views included) is garbage. It
        holds on to the context: closing the context while such arrays live leaves them
        valid, and the context's release waits for the last of them.

        Making page-locked memory is costly (the system locks its pages): make arrays once
        and reuse them for many calls.

        Raises ValueError for a bad shape or one larger than the device allows in one buffer
        (Device.max_alloc_bytes), TypeError for another dtype, Error when the memory cannot
        be had.

        >>> import numpy as np, tiledconv
        >>> with tiledconv.Context() as ctx:
        ...     frame, smooth = ctx.empty((120, 160)), ctx.empty((120, 160))
        ...     frame[...] = 200                      # fill it as any array (a decoder's rows)
        ...     out = ctx.filter(frame, out=smooth)   # up and down with no staging copy
        >>> out is smooth, int(smooth[60, 80])
        (True, 200)
        """
        shape, dt, nbytes = _host_memory.checked(shape, dtype)
        limit = self.device.max_alloc_bytes
        if nbytes > limit:
            raise ValueError(f"shape {shape} of {dt}: {nbytes} bytes is more than the {limit} "
                             f"bytes the device allows in one buffer")
        with self._lock:
            self._handle()
            arr = self._memory.array(shape, dt, nbytes)
        if arr is None:
            raise Error(f"cannot make {nbytes} bytes of page-locked memory (tc_host_alloc: "
                        f"out of host memory, or the device refused)", _native.TC_ENOMEM)
        return arr

    def empty_like(self, a, dtype=None, shape=None):
        """empty() with the shape and dtype of ``a`` (an array, or what numpy.asarray takes),
        unless ``dtype`` or ``shape`` is given: page-locked memory for an image of that kind,
        e.g. ``p = ctx.empty_like(img); p[...] = img``."""
        if not isinstance(a, np.ndarray):
            a = np.asarray(a)
        return self.empty(a.shape if shape is None else shape,
                          a.dtype if dtype is None else dtype)

    # -- work --

    def filter(self, image, kx=None, ky=None, border="replicate", border_value=0.0,
               src=(0, 0), dst=(0, 0), size=None, algorithm="tiled", mask=None,
               storage="buffer", *, cval=None, dtype=None, out=None):
        """Filters an image on the device; returns an array of its shape and dtype.

        image         H x W, or H x W x C with C = 1, 3 or 4 channels (channel last, as
                      numpy, OpenCV and Pillow hold images), of uint8, uint16, float32 or
                      float64; any strides (negative too): rows are read where they lie,
                      other layouts through one copy. Each channel is filtered on its own with
                      the same filter, all in one pass through the device. Not modified. Any
                      other dtype is a TypeError (convert with .astype() first).
        kx, ky        row and column coefficients, each of an odd length 1..63, not both 1
                      (1: that axis unfiltered). None: the binomial of the other's length, or
                      of 3 when both are None.
        mask          instead of kx and ky, a non-separable mask: a 2-D array-like, rows
                      first, odd sizes 1..15 (not 1 x 1); mask[j, i] weighs the pixel i - rx
                      columns right and j - ry rows below. A rank-1 mask is run as its factors
                      (mask_factors); "twopass" and "bilinear" refuse any other.
        border        what reads outside the source ROI return: "replicate" (the default),
                      "constant", "reflect101", "reflect", "wrap"; SciPy's modes "nearest",
                      "mirror", "reflect", "wrap", "constant" (and "grid-mirror", "grid-wrap",
                      "grid-constant"); or OpenCV's integers cv2.BORDER_CONSTANT (0),
                      _REPLICATE (1), _REFLECT (2), _WRAP (3), _REFLECT_101 (4), with or
                      without | cv2.BORDER_ISOLATED. OpenCV and SciPy default to reflect-101
                      ("mirror"); this library to replicate.
        border_value  the value of the "constant" border (cval: SciPy's name for it).
        src, dst      (left, top) of the source and target ROIs.
        size          (width, height) of both ROIs; None (or 0 in a field): the largest that
                      fits both, width = image width - max(src left, dst left), etc.
        algorithm     "tiled" (AMD's tiled convolution, default), "twopass", "onepass", or
                      "bilinear" (the bilinear-tap trick on image objects: an approximation
                      within tolerance(..., algorithm="bilinear"), for filters whose paired
                      taps share a sign; a length per axis as the others).
        storage       "buffer" (default) or "image": where tiled and onepass read the source
                      (an image2d_t needs a device with image support; the result is the
                      same; long filters and masks too). twopass refuses "image"; bilinear
                      always reads an image.
        dtype         the result's dtype when not the image's (uint8, uint16, float32,
                      float64), as cv2's ddepth: np.float32 from uint8 keeps the fractions.
        out           an array to write the result into (and return): the image's shape and
                      the result's dtype, any strides; it may be the image itself.

        out[dst_top + y, dst_left + x] = sum_j sum_i ky[j] kx[i] *
            S(src_left + x + i - rx, src_top + y + j - ry)     (correlation, no flip)

        The library works on the 0..255 scale: uint8 samples are read as they are, uint16 ones
        as v * 255 / 65535, floats as they are (float64 rounded to float32: it is computed
        in float32). Results are written as the command line writes its files: uint8
        floor(clamp(v, 0, 255) + 0.5), uint16 round(clamp(v, 0, 255) * 65535 / 255), floats
        as they are (so a float result from a uint16 image is on the 0..255 scale). Pixels
        outside the target ROI are the input's, converted only. Raises TypeError for a dtype
        it does not take, ValueError for bad shapes and arguments (with the library's
        message), Error for device failures.
        """
        return self._filter(image, _Params(kx, ky, border, border_value, src, dst, size,
                                           algorithm, mask, storage, cval), dtype, out)

    def filter_batch(self, images, kx=None, ky=None, border="replicate", border_value=0.0,
                     src=(0, 0), dst=(0, 0), size=None, algorithm="tiled", mask=None,
                     storage="buffer", *, cval=None, dtype=None, out=None):
        """Filters many images in one call through the library's pipeline (one image's
        upload, another's kernels and a third's download overlap on the device).

        images        a list (or any iterable) of images as filter() takes them, sizes free to
                      differ: returns a list; or one array whose first axis is the batch,
                      N x H x W or N x H x W x C: returns one array of its shape.
        out           for a list, a list of arrays (one per image, each as filter()'s out=);
                      for an array, one array of the batch's shape.

        The other arguments are filter()'s; each image's result equals filter()'s.
        """
        return self._filter_batch(images, _Params(kx, ky, border, border_value, src, dst, size,
                                                  algorithm, mask, storage, cval), dtype, out)

    def filter_timed(self, image, iterations=10, **kwargs):
        """filter() of a 2-D image for benchmarks: one warm-up run, then ``iterations`` (>= 1)
        runs timed by the device's profiling counters, on the image's float32 plane (uint8
        and uint16 on the 0..255 scale). Returns that plane filtered (float32; float64 for a
        float64 image), the same in every run; the timings are in last_stats(). Takes
        filter()'s keyword arguments but dtype and out."""
        iterations = _int(iterations, "iterations")
        return self._timed(image, _Params(**kwargs), iterations)

    def gradient(self, image, operator="sobel", border="replicate", border_value=0.0,
                 src=(0, 0), dst=(0, 0), size=None, method="one-read", components=False):
        """The gradient of a 2-D image on the device: the magnitude sqrt(gx**2 + gy**2) as a
        new float32 array of the image's shape, or with ``components=True`` the tuple
        (gx, gy, magnitude).

        operator      "sobel" (gx: [-1 0 1] along the rows, [1 2 1] down the columns; gy the
                      other way round) or "scharr" ([3 10 3]): OpenCV's unnormalised 3-tap
                      kernels; gx is positive where the intensity grows rightwards, gy where
                      it grows downwards (row 0 on top).
        border, border_value, src, dst, size
                      as for filter(): reads outside the source ROI follow the border rule;
                      outside the target ROI every result is the input.
        method        "one-read" (default: one pass of the tiled kernel reads each pixel once
                      and makes gx, gy and the magnitude from the same registers) or
                      "separate" (the tiled kernel twice, then a magnitude kernel: the
                      comparison). Both agree with gradient_reference() within
                      gradient_tolerance().

        Raises ValueError for bad arguments, Error for device failures.
        """
        return self._gradient(image, operator, _Params(None, None, border, border_value, src,
                                                       dst, size), method, components, None)

    def gradient_timed(self, image, iterations=10, **kwargs):
        """gradient() for benchmarks: one warm-up run, then ``iterations`` (>= 1) runs timed by
        the device's profiling counters (each the method's launches together); the figures
        are in last_stats(). Takes gradient()'s keyword arguments."""
        iterations = _int(iterations, "iterations")
        operator = kwargs.pop("operator", "sobel")
        method = kwargs.pop("method", "one-read")
        components = kwargs.pop("components", False)
        return self._gradient(image, operator, _Params(**kwargs), method, components,
                              iterations)

    def copy_time(self, nbytes, repeats=10):
        """The device's copy bandwidth floor: the median time in ms of ``repeats`` (>= 1)
        device-to-device copies of ``nbytes`` bytes, after one warm-up (tc_copy_time)."""
        nbytes = operator.index(nbytes)
        if nbytes < 0:
            raise ValueError(f"nbytes: {nbytes} is negative")
        repeats = _int(repeats, "repeats")
        median = ctypes.c_double()
        with self._lock:
            status = _lib.tc_copy_time(self._handle(), nbytes, repeats, ctypes.byref(median))
            if status != TC_OK:
                self._fail(status)
        return median.value

    def pyramid(self, image, octaves=4, levels=4, sigma=1.6, border="replicate",
                border_value=0.0, launch="per-octave"):
        """A Gaussian scale space of a 2-D image (tc_pyramid): a list of ``octaves`` lists of
        ``levels`` new float32 arrays, ``result[K][j]`` level j of octave K.

        With k = 2 ** (1 / levels): octave K is ceil(width / 2**K) x ceil(height / 2**K);
        level j has a total blur of sigma * k**j in its octave's pixels (sigma * 2**(K + j /
        levels) in the image's); octave 0's levels are the image (taken as sharp) filtered
        with the Gaussian of that sigma, so result[0][0] is filter() with
        named_filter("gauss", taps, sigma) bit for bit; octave K + 1's level 0 is every second
        pixel (rows and columns, from (0, 0)) of octave K's image at blur 2 * sigma, and its
        level j that filtered with the Gaussian of sigma * sqrt(k**(2j) - 1). Each Gaussian is
        round(6 s + 1) | 1 taps long (at most 63: sigma below 5.208 with two octaves or more),
        with the border rule ``border`` (and ``border_value``) on the octave's whole image.
        pyramid_layout() gives every level's size, sigmas and length.

        launch        "per-octave" (one launch per octave, every level of an octave in one
                      3-D NDRange) or "per-level" (one launch per level with filter()'s
                      kernels); both give the same arrays bit for bit.

        ValueError for bad arguments (an image too small for the octaves: each octave is made
        from one of at least 2 x 2 pixels), Error for device failures.
        """
        return self._pyramid(image, _PyramidParams(octaves, levels, sigma, border,
                                                   border_value, launch), None)

    def pyramid_timed(self, image, iterations=10, **kwargs):
        """pyramid() for benchmarks: one warm-up pyramid, then ``iterations`` (>= 1) timed
        ones; the figures are in last_pyramid_stats(). Takes pyramid()'s keyword arguments."""
        iterations = _int(iterations, "iterations")
        return self._pyramid(image, _PyramidParams(**kwargs), iterations)

    def last_pyramid_stats(self):
        """Figures of the last successful pyramid on this context, as a dict; None when there
        was none yet. Keys (times in ms): launch, iterations, kernel_ms_min, kernel_ms_median,
        kernel_ms_mean (a whole pyramid: every launch's kernel time summed), kernel_ms (a
        list, one per timed pyramid), launches (per pyramid), bytes (what the launches must
        read and write), build_ms, upload_ms, download_ms, wall_ms_per_iteration."""
        s = _native.TcPyramidStats()
        kernel_ms = self._last(_lib.tc_pyramid_last_stats, s, _kernel_ms)
        if kernel_ms is None:
            return None
        return {
            "launch": PYRAMID_LAUNCHES[s.launch] if 0 <= s.launch < len(PYRAMID_LAUNCHES)
            else s.launch,
            "iterations": s.iterations,
            "kernel_ms_min": s.kernel_ms_min,
            "kernel_ms_median": s.kernel_ms_median,
            "kernel_ms_mean": s.kernel_ms_mean,
            "kernel_ms": kernel_ms,
            "launches": s.launches,
            "bytes": s.bytes,
            "build_ms": s.build_ms,
            "upload_ms": s.upload_ms,
            "download_ms": s.download_ms,
            "wall_ms_per_iteration": s.wall_ms_per_iteration,
        }

    def _pyramid(self, image, params, iterations):
        src, width, height, dtype = _plane(image)
        out, pointers = _pyramid_arrays(width, height, params)
        with self._lock:
            handle = self._handle()
            if iterations is None:
                status = _lib.tc_pyramid(handle, _ptr(src), width, height, params.ref(),
                                         pointers)
            else:
                status = _lib.tc_pyramid_timed(handle, _ptr(src), width, height, params.ref(),
                                               pointers, iterations)
            if status != TC_OK:
                self._fail(status)
        return [[_as(level, dtype) for level in octave] for octave in out]

    def _gradient(self, image, operator, params, method, components, iterations):
        src, width, height, dtype = _plane(image)
        op = _index(GRADIENT_OPERATORS, operator, "operator")
        how = _index(GRADIENT_METHODS, method, "method")
        mag = np.empty_like(src)
        gx = np.empty_like(src) if components else None
        gy = np.empty_like(src) if components else None
        with self._lock:
            handle = self._handle()
            args = (handle, _ptr(src), _ptr(gx) if components else None,
                    _ptr(gy) if components else None, _ptr(mag), width, height, op, how,
                    params.ref())
            status = (_lib.tc_gradient(*args) if iterations is None
                      else _lib.tc_gradient_timed(*args, iterations))
            if status != TC_OK:
                self._fail(status)
        if components:
            return _as(gx, dtype), _as(gy, dtype), _as(mag, dtype)
        return _as(mag, dtype)

    def _timed(self, image, params, iterations):
        src, width, height, dtype = _plane(image)
        out = np.empty_like(src)
        with self._lock:
            status = _lib.tc_filter_timed(self._handle(), _ptr(src), _ptr(out), width, height,
                                          params.ref(), iterations)
            if status != TC_OK:
                self._fail(status)
        return _as(out, dtype)

    def _filter(self, image, params, dtype, out):
        """One image through tc_filter_image: its rows read and the result's written in place
        wherever the library can (any row stride), else through one copy."""
        arr, height, width, c = _arrays.checked(image)
        rdtype = _arrays.result_dtype(arr.dtype if dtype is None else dtype)
        output = _arrays.Output(arr.shape, rdtype, out, c)
        src, keep = _arrays.image(arr, height, width, c)
        dst = output.image()
        with self._lock:
            status = _lib.tc_filter_image(self._handle(), ctypes.byref(src), ctypes.byref(dst),
                                          params.ref())
            if status != TC_OK:
                self._fail(status)
        del keep
        return output.finish()

    def _filter_batch(self, images, params, dtype, out):
        """Many images through one tc_filter_images call (the library's pipeline)."""
        if isinstance(images, np.ndarray):
            return self._filter_stack(images, params, dtype, out)
        items = list(images)
        n = len(items)
        if out is None:
            outs = None  # made below, once the results' shapes are known
        elif isinstance(out, (list, tuple)):
            outs = list(out)
            if len(outs) != n:
                raise ValueError(f"out: {len(outs)} arrays for {n} images")
        else:
            raise TypeError(f"out: expected a list of {n} arrays for a list of images, got "
                            f"{type(out).__name__}")
        checked = [_arrays.checked(a, f"images[{i}]") for i, a in enumerate(items)]
        if outs is not None:
            _arrays.refuse_overlaps([a for a, _, _, _ in checked], outs)
        dtypes = [_arrays.result_dtype(a.dtype if dtype is None else dtype)
                  for a, _, _, _ in checked]
        if outs is None:
            outs = _new_results([(a.shape, dt) for (a, _, _, _), dt in zip(checked, dtypes)])
        outputs = [_arrays.Output(a.shape, dt, o, c, f"out[{i}]")
                   for i, ((a, _, _, c), dt, o) in enumerate(zip(checked, dtypes, outs))]
        _arrays.populate([o.target for o in outputs if o.fresh])
        src_rows, keep = [], []
        for a, h, w, c in checked:
            fields, arr = _arrays.image_fields(a, h, w, c)
            src_rows.append(fields)
            keep.append(arr)
        srcs = _arrays.image_table(src_rows)
        dsts = _arrays.image_table([output.image_fields() for output in outputs])
        self._run_batch(srcs, dsts, n, params)
        del keep
        return [output.finish() for output in outputs]

    def _filter_stack(self, images, params, dtype, out):
        """An N x H x W (x C) array: one array back, image i of it from images[i]."""
        if images.ndim not in (3, 4):
            raise ValueError(f"images: shape {images.shape}: a batch array is N x H x W or "
                             f"N x H x W x C (C = 1, 3 or 4); a list may hold images of "
                             f"different sizes")
        n = images.shape[0]
        arr, height, width, c = _arrays.checked(
            images[0] if n else np.empty(images.shape[1:], images.dtype), "images[0]")
        rdtype = _arrays.result_dtype(arr.dtype if dtype is None else dtype)
        if isinstance(out, np.ndarray) and out.shape == images.shape and n > 0:
            _arrays.refuse_overlaps([images[i] for i in range(n)], [out[i] for i in range(n)])
        if out is None:
            out = _new_results([(images.shape, rdtype)])[0]
        output = _arrays.Output(images.shape, rdtype, out, c, batch=True)
        if output.fresh:
            _arrays.populate([output.target])
        srcs, keep = _arrays.stack_table(images, c), []
        if srcs is None:  # images the library reads through copies: one by one
            src_rows = []
            for i in range(n):
                fields, arr = _arrays.image_fields(images[i], height, width, c)
                src_rows.append(fields)
                keep.append(arr)
            srcs = _arrays.image_table(src_rows)
        dsts = _arrays.stack_table(output.target, c)
        if dsts is None:
            dsts = _arrays.image_table([output.image_fields(i) for i in range(n)])
        self._run_batch(srcs, dsts, n, params)
        del keep
        return output.finish()

    def _run_batch(self, srcs, dsts, n, params):
        if n == 0:
            return
        with self._lock:
            status = _lib.tc_filter_images(self._handle(), srcs, dsts, n, params.ref())
            if status != TC_OK:
                self._fail(status)


def _new_results(specs):
    """A batch's new result arrays for (shape, dtype) specs: views of one block that later
    batches reuse once they are gone (_result_memory) where the batch is large and the library
    writes them as they are (not float64, computed in float32 through a copy); else None
    each, for Output to make."""
    if all(np.dtype(dt) != _arrays.FLOAT64 for _, dt in specs):
        made = _result_memory.arrays(specs, _arrays.populate)
        if made is not None:
            return made
    return [None] * len(specs)


# ---- The default context ----------------------------------------------------------------------

_default = None
_default_lock = threading.Lock()


def default_context():
    """The module's Context on the default device, opened on first use, closed at exit."""
    global _default
    with _default_lock:
        if _default is None or _default.closed:
            _default = Context()
        return _default


@atexit.register
def _close_default():
    global _default
    with _default_lock:
        if _default is not None:
            _default.close()
            _default = None


def filter(image, kx=None, ky=None, border="replicate", border_value=0.0, src=(0, 0),
           dst=(0, 0), size=None, algorithm="tiled", mask=None, storage="buffer", *,
           cval=None, dtype=None, out=None):
    """Context.filter on the module's default context (the default device, opened on first
    use and closed at exit): an array of the image's shape and dtype (or ``dtype``).

    See Context.filter for the arguments; e.g.

    >>> import numpy as np, tiledconv
    >>> gray = np.full((4, 6), 100, np.uint8)
    >>> tiledconv.filter(gray, kx=[1, 2, 1], ky=[0.25, 0.5, 0.25], border="wrap").dtype
    dtype('uint8')
    """
    return default_context().filter(image, kx=kx, ky=ky, border=border,
                                    border_value=border_value, src=src, dst=dst, size=size,
                                    algorithm=algorithm, mask=mask, storage=storage, cval=cval,
                                    dtype=dtype, out=out)


def filter_batch(images, kx=None, ky=None, border="replicate", border_value=0.0, src=(0, 0),
                 dst=(0, 0), size=None, algorithm="tiled", mask=None, storage="buffer", *,
                 cval=None, dtype=None, out=None):
    """Context.filter_batch on the module's default context: a list of images (sizes may
    differ) gives a list, an N x H x W (x C) array one array. See Context.filter_batch.

    >>> import numpy as np, tiledconv
    >>> stack = np.zeros((3, 8, 8), np.uint16)
    >>> tiledconv.filter_batch(stack, kx=tiledconv.named_filter("gauss", 5)[0]).shape
    (3, 8, 8)
    """
    return default_context().filter_batch(images, kx=kx, ky=ky, border=border,
                                          border_value=border_value, src=src, dst=dst,
                                          size=size, algorithm=algorithm, mask=mask,
                                          storage=storage, cval=cval, dtype=dtype, out=out)


def empty(shape, dtype=np.uint8):
    """Context.empty on the module's default context: an array in page-locked memory that
    the module's filter() and filter_batch() move with no staging copy (as image or out=).

    >>> import numpy as np, tiledconv
    >>> src, dst = tiledconv.empty((3, 64, 48)), tiledconv.empty((3, 64, 48))
    >>> src[...] = 7
    >>> tiledconv.filter_batch(src, out=dst) is dst, int(dst.max())
    (True, 7)
    """
    return default_context().empty(shape, dtype)


def empty_like(a, dtype=None, shape=None):
    """Context.empty_like on the module's default context."""
    return default_context().empty_like(a, dtype, shape)


def gradient(image, operator="sobel", border="replicate", border_value=0.0, src=(0, 0),
             dst=(0, 0), size=None, method="one-read", components=False):
    """Context.gradient on the module's default context: the magnitude of the gradient (or
    (gx, gy, magnitude) with ``components=True``). See Context.gradient."""
    return default_context().gradient(image, operator=operator, border=border,
                                      border_value=border_value, src=src, dst=dst, size=size,
                                      method=method, components=components)


# ---- Host-side functions (no device) ----------------------------------------------------------

def _channel_planes(image):
    """(planes, dtype) of an image as filter() takes it: one float32 plane per channel, shape
    (C, H, W), on the library's 0..255 scale (its own conversion for uint8 and uint16, the
    float values themselves, float64 rounded to float32); dtype the image's own."""
    arr, height, width, c = _arrays.checked(image)
    dtype = _arrays.result_dtype(arr.dtype)
    if dtype.kind == "f":
        chans = arr.reshape(height, width, c)
        return np.ascontiguousarray(np.moveaxis(chans, 2, 0), np.float32), dtype
    img, keep = _arrays.image(arr, height, width, c)
    planes = np.empty((c, height, width), np.float32)
    err = ctypes.create_string_buffer(_native.ERR_SIZE)
    status = _lib.tc_image_to_planes(ctypes.byref(img), c, _ptr(planes), err, len(err))
    del keep
    if status != TC_OK:
        _raise(status, err.value.decode(errors="replace"))
    return planes, dtype


def _written_as(values, dtype):
    """Float results (0..255 scale) written as dtype is written: the command line's rules for
    integers (NaN to 0), floats as they are."""
    if dtype.kind == "f":
        return values.astype(dtype)
    v = np.nan_to_num(values.astype(np.float64), nan=0.0, posinf=255.0, neginf=0.0)
    v = np.clip(v, 0.0, 255.0)
    if dtype == np.uint16:
        v = v * 65535.0 / 255.0
    return np.floor(v + 0.5).astype(dtype)


def reference(image, kx=None, ky=None, border="replicate", border_value=0.0, src=(0, 0),
              dst=(0, 0), size=None, algorithm="tiled", mask=None, storage="buffer", *,
              cval=None, dtype=None):
    """The CPU reference (tc_reference): the plainest loop over the formula, in double
    precision, that every device result is checked against (a mask's products summed as they
    are, never its factors), channel by channel. Same arguments, shape and dtype as
    Context.filter (``algorithm`` and ``storage`` are checked but do not change the result).

    Float results are the double sums rounded to float32 (then float64 for float64). Integer
    results are those sums written with filter()'s rules (uint8 floor(clamp(v, 0, 255) +
    0.5), uint16 round(clamp(v, 0, 255) * 65535 / 255)): a device's integer sample equals this
    one, or differs by one step where the exact sum lies within tolerance() of a rounding
    boundary (a half for uint8)."""
    params = _Params(kx, ky, border, border_value, src, dst, size, algorithm, mask, storage,
                     cval)
    planes, own = _channel_planes(image)
    c, height, width = planes.shape
    out = np.empty_like(planes)
    err = ctypes.create_string_buffer(_native.ERR_SIZE)
    for k in range(c):
        status = _lib.tc_reference(_ptr(planes[k]), _ptr(out[k]), width, height, params.ref(),
                                   err, len(err))
        if status != TC_OK:
            _raise(status, err.value.decode(errors="replace"))
    shape = np.shape(image) if isinstance(image, np.ndarray) else np.asarray(image).shape
    result = np.moveaxis(out, 0, 2).reshape(shape)
    return _written_as(result, _arrays.result_dtype(own if dtype is None else dtype))


def tolerance(image, kx=None, ky=None, border="replicate", border_value=0.0, src=(0, 0),
              dst=(0, 0), size=None, algorithm="tiled", mask=None, storage="buffer", *,
              cval=None):
    """The largest difference allowed between a device result and reference()'s inside the
    target ROI (tc_tolerance), on the library's 0..255 scale, the largest over the channels:
    float32 rounding of the sums, from the filter's absolute weights and the largest absolute
    input value (for a mask: 2 x its products x FLT_EPSILON x max|image| x sum|mask|); for
    algorithm="bilinear" plus what texture interpolation may add (2 delta sum|kx| sum|ky| R,
    delta = 2^-8 + the sample coordinate's rounding, R the source ROI's range of values).
    Outside the target ROI results are equal bit for bit. For integer results the rounding
    adds its own step: where the exact value lies within this tolerance of a rounding
    boundary, the device and reference() may round to neighbouring integers. Same arguments
    as Context.filter; ValueError when they are invalid."""
    params = _Params(kx, ky, border, border_value, src, dst, size, algorithm, mask, storage,
                     cval)
    planes, _ = _channel_planes(image)
    c, height, width = planes.shape
    tol = max(_lib.tc_tolerance(_ptr(planes[k]), width, height, params.ref()) for k in range(c))
    if tol < 0:
        # tc_tolerance says only "invalid"; tc_reference validates the same parameters and
        # says why (it fails before computing anything).
        out = np.empty_like(planes[0])
        err = ctypes.create_string_buffer(_native.ERR_SIZE)
        status = _lib.tc_reference(_ptr(planes[0]), _ptr(out), width, height, params.ref(), err,
                                   len(err))
        raise ValueError(err.value.decode(errors="replace") if status != TC_OK and err.value
                         else "tolerance: invalid filter parameters")
    return tol


def named_filter(name, taps, sigma=0.0):
    """The coefficients of a named filter as a pair (kx, ky) of float32 arrays of ``taps``
    values: "box", "gauss" (``sigma``; <= 0: OpenCV's default for the length), "binomial"
    (3..63 taps), "sobel-x", "sobel-y" (3..31), "scharr-x", "scharr-y" (3 taps only).
    "sobel-x" differentiates along rows (kx) and smooths along columns (ky). The 3 x 3 masks
    are named_mask's.

    Without a sigma (or sigma <= 0) gauss is OpenCV's getGaussianKernel(taps, 0): its tables
    for 3..9 taps, the sampled Gaussian of sigma 0.3 ((taps - 1) / 2 - 1) + 0.8 beyond.

    >>> import numpy as np, tiledconv
    >>> tiledconv.named_filter("gauss", 5)[0] * 16
    array([1., 4., 6., 4., 1.], dtype=float32)
    >>> kx, ky = tiledconv.named_filter("gauss", 7, sigma=1.5)
    >>> out = tiledconv.filter(np.zeros((10, 12), np.uint8), kx=kx, ky=ky)
    """
    if not isinstance(name, str) or "\0" in name:
        raise ValueError(f"name: expected a filter name, got {name!r}")
    taps = _int(taps, "taps")
    try:
        sigma = float(sigma)
    except (TypeError, ValueError):
        raise ValueError(f"sigma: expected a number, got {sigma!r}") from None
    n = max(taps, 0)
    if n > 1024:  # the library refuses far less; don't allocate for an absurd request
        raise ValueError(f"taps: {taps} is too long")
    # Room for taps floats (at least one so the pointers are valid when taps is refused).
    kx = np.zeros(max(n, 1), dtype=np.float32)
    ky = np.zeros(max(n, 1), dtype=np.float32)
    err = ctypes.create_string_buffer(_native.ERR_SIZE)
    status = _lib.tc_named_filter(name.encode(), taps, sigma, _ptr(kx), _ptr(ky), err, len(err))
    if status != TC_OK:
        _raise(status, err.value.decode(errors="replace"))
    return kx[:n].copy(), ky[:n].copy()


def named_mask(name, amount=1.0):
    """The weights of a named 3 x 3 mask as a 3 x 3 float32 array: "laplacian"
    (0 1 0; 1 -4 1; 0 1 0, OpenCV's Laplacian with ksize 1), "laplacian8" (1 1 1; 1 -8 1;
    1 1 1), "sharpen" (the identity plus ``amount`` times the identity minus the 3 x 3 binomial:
    amount 1 gives -1/16 -1/8 -1/16; -1/8 7/4 -1/8; -1/16 -1/8 -1/16). None of them is
    separable.

    >>> import numpy as np, tiledconv
    >>> tiledconv.named_mask("laplacian")
    array([[ 0.,  1.,  0.],
           [ 1., -4.,  1.],
           [ 0.,  1.,  0.]], dtype=float32)
    >>> image = np.full((8, 8), 50, np.uint8)
    >>> sharp = tiledconv.filter(image, mask=tiledconv.named_mask("sharpen", amount=0.5))
    """
    if not isinstance(name, str) or "\0" in name:
        raise ValueError(f"name: expected a mask name, got {name!r}")
    try:
        amount = float(amount)
    except (TypeError, ValueError):
        raise ValueError(f"amount: expected a number, got {amount!r}") from None
    mask = np.zeros(9, dtype=np.float32)
    width, height = ctypes.c_int(0), ctypes.c_int(0)
    err = ctypes.create_string_buffer(_native.ERR_SIZE)
    status = _lib.tc_named_mask(name.encode(), amount, _ptr(mask), 9, ctypes.byref(width),
                                ctypes.byref(height), err, len(err))
    if status != TC_OK:
        _raise(status, err.value.decode(errors="replace"))
    return mask.reshape(height.value, width.value)


def mask_factors(mask):
    """(kx, ky), float32 arrays of the mask's width and height, when ``mask`` (a 2-D
    array-like) is rank 1 within float32 rounding, mask[j, i] = ky[j] * kx[i] to within 8
    float32 epsilons of each weight: the factors the library runs it with (kx the row of the
    largest weight, ky its column divided by that weight). None when the mask is not
    separable. ValueError for a mask the library would refuse (sizes, NaN, infinities).
    """
    arr = _mask(mask)
    height, width = arr.shape
    kx = np.zeros(max(width, 1), dtype=np.float32)
    ky = np.zeros(max(height, 1), dtype=np.float32)
    if arr.size == 0:
        raise ValueError(f"mask: {width} x {height}: sizes must be odd, 1..{MAX_MASK_SIZE}")
    rc = _lib.tc_mask_factors(_ptr(arr), width, height, _ptr(kx), _ptr(ky))
    if rc < 0:
        raise ValueError(f"mask: {width} x {height}: sizes must be odd, 1..{MAX_MASK_SIZE}, "
                         "not 1 x 1, and every weight finite")
    return (kx[:width].copy(), ky[:height].copy()) if rc == 1 else None


# ---- The Gaussian scale space -----------------------------------------------------------------

def pyramid(image, octaves=4, levels=4, sigma=1.6, border="replicate", border_value=0.0,
            launch="per-octave"):
    """Context.pyramid on the module's default context: a list of ``octaves`` lists of
    ``levels`` float32 arrays, ``result[K][j]`` level j of octave K.

    >>> import numpy as np, tiledconv
    >>> image = np.zeros((33, 50), np.uint8)
    >>> levels = tiledconv.pyramid(image, octaves=3, levels=5)
    >>> levels[1][0].shape          # octave 1: half the size, rounded up
    (17, 25)
    """
    return default_context().pyramid(image, octaves=octaves, levels=levels, sigma=sigma,
                                     border=border, border_value=border_value, launch=launch)


def pyramid_layout(width, height, octaves=4, levels=4, sigma=1.6):
    """The levels of the pyramid of a width x height image (tc_pyramid_layout), octave by
    octave: a list of ``octaves`` lists of ``levels`` dicts with octave, level, width,
    height, sigma (the total blur in the octave's pixels), sigma_input (in the image's),
    sigma_applied (the Gaussian that makes it from its octave's base: 0 for level 0 of
    octaves 1 and on, the base itself) and taps (its length; 1 for the base itself).
    ValueError when the rules refuse the pyramid (see Context.pyramid)."""
    params = _PyramidParams(octaves, levels, sigma)
    layout = _pyramid_layout(_int(width, "width"), _int(height, "height"), params)
    fields = [f[0] for f in _native.TcPyramidLevel._fields_]
    flat = [{f: getattr(lv, f) for f in fields} for lv in layout]
    per = params.c.levels
    return [flat[k * per:(k + 1) * per] for k in range(params.c.octaves)]


def pyramid_reference(image, octaves=4, levels=4, sigma=1.6, border="replicate",
                      border_value=0.0):
    """The scale space on the CPU in double precision (tc_pyramid_reference): each level's
    Gaussian summed as reference() sums a filter, rounded to float32 per level; the
    decimation exact. Same arguments and result as Context.pyramid."""
    params = _PyramidParams(octaves, levels, sigma, border, border_value)
    src, width, height, dtype = _plane(image)
    out, pointers = _pyramid_arrays(width, height, params)
    err = ctypes.create_string_buffer(_native.ERR_SIZE)
    status = _lib.tc_pyramid_reference(_ptr(src), width, height, params.ref(), pointers, err,
                                       len(err))
    if status != TC_OK:
        _raise(status, err.value.decode(errors="replace"))
    return [[_as(level, dtype) for level in octave] for octave in out]


def pyramid_tolerance(image, octaves=4, levels=4, sigma=1.6, border="replicate",
                      border_value=0.0):
    """The largest difference allowed between a device level and pyramid_reference()'s, per
    level (tc_pyramid_tolerance): a list of ``octaves`` lists of ``levels`` floats, each the
    float32 rounding bound of the level's Gaussian plus what its octave's base may carry."""
    params = _PyramidParams(octaves, levels, sigma, border, border_value)
    src, width, height, _ = _plane(image)
    count = params.c.octaves * params.c.levels
    _pyramid_layout(width, height, params)  # ValueError with the library's reason
    tol = (ctypes.c_double * max(count, 1))()
    if _lib.tc_pyramid_tolerance(_ptr(src), width, height, params.ref(), tol) != TC_OK:
        raise ValueError("pyramid_tolerance: invalid pyramid parameters")
    per = params.c.levels
    return [[tol[k * per + j] for j in range(per)] for k in range(params.c.octaves)]
def gradient_reference(image, operator="sobel", border="replicate", border_value=0.0,
                       src=(0, 0), dst=(0, 0), size=None, components=False):
    """The CPU reference of Context.gradient (tc_gradient_reference): gx and gy are
    reference()'s with the operator's two filters, the magnitude sqrt(gx**2 + gy**2) of those
    in double precision. The magnitude, or (gx, gy, magnitude) with ``components=True``."""
    params = _Params(None, None, border, border_value, src, dst, size)
    arr, width, height, dtype = _plane(image)
    op = _index(GRADIENT_OPERATORS, operator, "operator")
    gx, gy, mag = np.empty_like(arr), np.empty_like(arr), np.empty_like(arr)
    err = ctypes.create_string_buffer(_native.ERR_SIZE)
    status = _lib.tc_gradient_reference(_ptr(arr), _ptr(gx), _ptr(gy), _ptr(mag), width,
                                        height, op, params.ref(), err, len(err))
    if status != TC_OK:
        _raise(status, err.value.decode(errors="replace"))
    if components:
        return _as(gx, dtype), _as(gy, dtype), _as(mag, dtype)
    return _as(mag, dtype)


def gradient_tolerance(image, operator="sobel", border="replicate", border_value=0.0,
                       src=(0, 0), dst=(0, 0), size=None):
    """The largest differences allowed between a device's gradient and gradient_reference()'s
    inside the target ROI (tc_gradient_tolerance), as a pair (magnitude, component): with M
    the largest absolute input (or constant border value) and G the operator's sum of
    absolute weights (8 Sobel, 32 Scharr), component = 12 eps M G and magnitude =
    sqrt(2) (component + 8 eps M G), eps float32's. Outside the target ROI results are the
    input bit for bit. ValueError for invalid arguments."""
    params = _Params(None, None, border, border_value, src, dst, size)
    arr, width, height, _ = _plane(image)
    op = _index(GRADIENT_OPERATORS, operator, "operator")
    component = ctypes.c_double()
    tol = _lib.tc_gradient_tolerance(_ptr(arr), width, height, op, params.ref(),
                                     ctypes.byref(component))
    if tol < 0:
        gradient_reference(image, operator, border, border_value, src, dst, size)  # says why
        raise ValueError("gradient_tolerance: invalid arguments")
    return tol, component.value


def filter_files(inputs, out_dir=None, *, progress=None, **options):
    """Filters image files (BMP, PNG 8/16-bit, JPEG, PGM/PPM) as the command line does, through
    the library's own pipeline: a pool of codec workers on every core, page-locked blocks, one
    lane per device, each output written under a temporary name and renamed into place (synced
    unless ``no_sync=True``), images larger than the memory at hand filtered in strips.

    inputs      file paths (str or os.PathLike), in order.
    out_dir     the folder the outputs go to (created if missing): each DIR/NAME, its input's
                name and format, or DIR/BASE.EXT with ``format=``. None: give ``no_output=True``
                (filter and check only), or use filter_file for one output path.
    progress    None, or called as ``progress(done, total)`` on the calling thread as files end
                (failed ones count) and last as ``(total, total)``: e.g. with tqdm,
                ``bar = tqdm(total=len(files))`` and ``progress=lambda d, t: bar.update(d - bar.n)``.
    options     the command line's long options, ``-`` written ``_``: ``taps=7`` (or
                ``"7x3"``), ``color=True``, ``border="reflect101"``, ``filter="gauss"``,
                ``sigma=1.5``, ``coefficients=[1, 2, 1]``, ``mask=[[0, 1, 0], [1, -4, 1],
                [0, 1, 0]]``, ``format="png"``, ``quality=90``, ``depth=16``, ``threads=8``,
                ``max_memory="400M"``, ``device="gpu"``, ``verify=True``, ``no_sync=True``,
                ``force=True``, ... (True gives a flag, False or None leaves it out).

    Returns one FileResult per input, in order: a file that cannot be read, decoded or written
    is ``status="refused"`` or ``"failed"`` with its ``message``, and the others go on. Raises
    ValueError for options or inputs the tool would refuse before any work (nothing is read or
    written), tiledconv.Error when no device opens.

    >>> import tiledconv, tempfile
    >>> out = tempfile.mkdtemp()
    >>> r = tiledconv.filter_files(["images/TiledConv_Input451x300.bmp"], out, taps=5,
    ...                            format="png")
    >>> r[0].status, r[0].output.endswith("TiledConv_Input451x300.png"), (r[0].width, r[0].height)
    ('written', True, (451, 300))
    """
    if out_dir is not None:
        options["output_dir"] = os.fspath(out_dir)
    return _files.run(_lib, inputs, options, progress, (ValueError, Error))


def filter_file(input, output, **options):
    """One file, filtered as filter_files does, written to ``output`` (its format from its
    extension unless ``format=``); returns its FileResult. Options as filter_files'.

    >>> import tiledconv, tempfile, os
    >>> out = os.path.join(tempfile.mkdtemp(), "smooth.jpg")
    >>> tiledconv.filter_file("images/TiledConv_Input512x512.bmp", out, taps=7, quality=90).ok
    True
    """
    options["output"] = os.fspath(output)
    return _files.run(_lib, [input], options, None, (ValueError, Error))[0]


def read_image(path, **options):
    """One image file (BMP, PNG, JPEG, PGM/PPM; the format from its first bytes) as a new
    array, through the reader filter_files uses: H x W for gray, H x W x 3 for colour
    (palettes expanded, alpha dropped, a BMP always H x W x 3); uint8 for 8-bit samples,
    uint16 for 16-bit ones (PNG, PGM/PPM of maxval 65535), float32 on the 0..255 scale for a
    PGM/PPM of another maxval. ``max_pixels=`` and ``allow_high_ratio=True`` set the limits
    checked on its header before anything is decoded. Raises ValueError for a file that cannot
    be read or is refused, naming it.

    >>> import tiledconv
    >>> tiledconv.read_image("images/TiledConv_Input451x300.bmp").shape
    (300, 451, 3)
    """
    return _files.read_image(_lib, path, options, (ValueError, Error))


def write_image(path, array, **options):
    """Writes an H x W, H x W x 1 or H x W x 3 array of uint8, uint16 or float32 samples as
    the command line writes its outputs: the format from ``path``'s extension (or
    ``format=``), ``quality=`` and ``sampling=`` for JPEG, ``depth=`` (default 16 bits for
    uint16 into PNG or PGM/PPM, else 8); the file staged under a temporary name, synced
    (unless ``no_sync=True``) and renamed into place, a read-only one replaced only with
    ``force=True``. uint8 and uint16 samples are written as they are where the depth is
    theirs; floats (and uint16 at 8 bits, as v * 255 / 65535) as floor(clamp(v, 0, 255) +
    0.5). Raises ValueError for an array, path or option refused (nothing written),
    tiledconv.Error when the write itself fails.

    >>> import tiledconv, tempfile, os, numpy as np
    >>> out = os.path.join(tempfile.mkdtemp(), "ramp.png")
    >>> tiledconv.write_image(out, np.arange(12, dtype=np.uint8).reshape(3, 4))
    >>> tiledconv.read_image(out)[2]
    array([ 8,  9, 10, 11], dtype=uint8)
    """
    _files.write_image(_lib, path, array, options, (ValueError, Error))


def __dir__():
    """The public API: the modules the package uses (numpy, ctypes, ...) stay out of dir()."""
    return sorted(__all__)
