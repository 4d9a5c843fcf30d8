"""Image files through the library's pipeline (tc_filter_files, include/tiledconv_files.h).

The keywords are the command line's long options with ``_`` for ``-`` (``taps=7``,
``color=True``, ``border="reflect101"``, ``filter="gauss"``, ``quality=90``, ``no_sync=True``,
``max_memory="400M"``): the library parses them with the tool's own table and rules, so a run
here writes the bytes ``tiledconv`` writes for the same options.
"""

import ctypes
import os

import numpy as np
from ctypes import POINTER, Structure, c_char, c_char_p, c_double, c_int, c_size_t, c_void_p
from dataclasses import dataclass

from . import _native
from ._native import TC_EINVAL, TC_ENOMEM, TC_OK, TcImage

STATUS_NAMES = ("written", "failed", "refused", "not run")


class TcFileResult(Structure):
    """tc_file_result, field for field."""
    _fields_ = [
        ("status", c_int),
        ("width", c_int),
        ("height", c_int),
        ("output", c_void_p),  # char *, malloc'd by the library: read, then cleared by it
        ("message", c_char * 768),
        ("read_ms", c_double),
        ("upload_ms", c_double),
        ("convert_ms", c_double),
        ("kernel_ms", c_double),
        ("download_ms", c_double),
        ("write_ms", c_double),
        ("checked", c_int),
        ("max_difference", c_double),
    ]


Progress = ctypes.CFUNCTYPE(None, c_int, c_int, c_void_p)

PROTOTYPES = {
    "tc_files_new": (c_int, [POINTER(c_void_p)]),
    "tc_files_set": (c_int, [c_void_p, c_char_p, c_char_p, c_char_p, c_size_t]),
    "tc_filter_files": (c_int, [c_void_p, POINTER(c_char_p), c_int, POINTER(TcFileResult),
                                Progress, c_void_p, c_char_p, c_size_t]),
    "tc_file_results_clear": (None, [POINTER(TcFileResult), c_int]),
    "tc_files_free": (None, [c_void_p]),
    "tc_read_image": (c_int, [c_void_p, c_char_p, POINTER(TcImage), c_char_p, c_size_t]),
    "tc_image_free": (None, [POINTER(TcImage)]),
    "tc_write_image": (c_int, [c_void_p, c_char_p, POINTER(TcImage), c_char_p, c_size_t]),
}

_DTYPES = {_native.TC_PIXELS_U8: np.uint8, _native.TC_PIXELS_U16: np.uint16,
           _native.TC_PIXELS_F32: np.float32}
_LAYOUTS = {np.dtype(t): layout for layout, t in _DTYPES.items()}


@dataclass(frozen=True)
class FileResult:
    """What became of one input: ``status`` is "written" (or processed, with no output
    asked), "failed" (a run-time failure), "refused" (the input or its output refused) or
    "not run" (no device opened); ``message`` says why for any but "written"."""
    input: str
    output: str
    status: str
    message: str
    width: int
    height: int
    read_ms: float
    upload_ms: float
    convert_ms: float
    kernel_ms: float
    download_ms: float
    write_ms: float
    checked: bool
    max_difference: float

    @property
    def ok(self):
        return self.status == "written"


def declare(lib):
    for name, (restype, argtypes) in PROTOTYPES.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    size = lib.tc_abi_size(b"tc_file_result")
    if size != ctypes.sizeof(TcFileResult):
        raise AttributeError("tc_file_result is %d bytes in the library, %d in this binding"
                             % (size, ctypes.sizeof(TcFileResult)))


def _words(options):
    """(name, value or None) pairs for tc_files_set from Python keywords."""
    for key, value in options.items():
        if value is None or value is False:
            continue  # an option not given
        name = key.replace("_", "-")
        if value is True:
            yield name, None
        elif isinstance(value, (list, tuple)):
            if value and isinstance(value[0], (list, tuple)):  # a mask: rows
                yield name, ";".join(",".join(repr(float(v)) for v in row) for row in value)
            else:
                yield name, ",".join(repr(float(v)) for v in value)
        else:
            yield name, str(value)


class _Run:
    """A tc_files handle with these options set, freed on leaving."""

    def __init__(self, lib, options, value_error):
        self.lib, self.handle = lib, c_void_p()
        self.err = ctypes.create_string_buffer(_native.ERR_SIZE)
        if lib.tc_files_new(ctypes.byref(self.handle)) != TC_OK:
            raise MemoryError("tiledconv: out of host memory for a run of files")
        try:
            for name, value in _words(options):
                rc = lib.tc_files_set(self.handle, name.encode(), None if value is None
                                      else value.encode(), self.err, len(self.err))
                if rc == TC_EINVAL:
                    raise value_error(self.err.value.decode(errors="replace"))
                if rc != TC_OK:
                    raise MemoryError("tiledconv: out of host memory for a run of files")
        except BaseException:
            lib.tc_files_free(self.handle)
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.lib.tc_files_free(self.handle)

    def raise_for(self, rc, errors):
        """The status of a call as the package's exceptions."""
        message = self.err.value.decode(errors="replace")
        if rc == TC_EINVAL:
            raise errors[0](message)
        if rc == TC_ENOMEM:
            raise MemoryError("tiledconv: " + message)
        if rc != TC_OK:
            raise errors[1](message, rc)


def read_image(lib, path, options, errors):
    """tc_read_image: the file's samples as a new array (H x W, or H x W x 3)."""
    with _Run(lib, options, errors[0]) as r:
        image = TcImage()
        rc = lib.tc_read_image(r.handle, os.fsencode(path), ctypes.byref(image), r.err,
                               len(r.err))
        r.raise_for(rc, errors)
        try:
            dtype = np.dtype(_DTYPES[image.format])
            shape = (image.height, image.width) + ((image.planes,) if image.planes > 1 else ())
            count = image.height * image.width * image.planes
            return np.ctypeslib.as_array(ctypes.cast(image.data, POINTER(
                np.ctypeslib.as_ctypes_type(dtype))), (count,)).reshape(shape).copy()
        finally:
            lib.tc_image_free(ctypes.byref(image))


def write_image(lib, path, array, options, errors):
    """tc_write_image of a 2-D, H x W x 1 or H x W x 3 array of uint8, uint16 or float32."""
    a = np.asarray(array)
    if a.dtype.kind in "uf" and not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))  # the host's byte order, as the library reads
    if a.dtype not in _LAYOUTS:
        raise errors[0]("write_image: samples of uint8, uint16 or float32, not %s" % a.dtype)
    if a.ndim not in (2, 3) or (a.ndim == 3 and a.shape[2] not in (1, 3)):
        raise errors[0]("write_image: an H x W or H x W x C array with C 1 or 3, not shape %s"
                        % (a.shape,))
    if a.ndim == 3 and a.shape[2] == 1:
        a = a[:, :, 0]
    channels = a.shape[2] if a.ndim == 3 else 1
    packed_row = a.strides[1] == a.itemsize * channels and (a.ndim == 2 or
                                                            a.strides[2] == a.itemsize)
    if not packed_row or a.strides[0] < a.shape[1] * channels * a.itemsize or \
            not a.flags.aligned:
        a = np.ascontiguousarray(a)  # each row's samples packed, rows top first: else a copy
    image = TcImage(format=_LAYOUTS[a.dtype], width=a.shape[1], height=a.shape[0],
                    planes=channels, data=a.ctypes.data,
                    stride=a.strides[0])
    with _Run(lib, options, errors[0]) as r:
        rc = lib.tc_write_image(r.handle, os.fsencode(path), ctypes.byref(image), r.err,
                                len(r.err))
        r.raise_for(rc, errors)


def run(lib, inputs, options, progress, errors):
    """tc_filter_files over inputs with these options; a list of FileResult. errors: the
    package's (ValueError, Error) classes to raise for the run as a whole."""
    value_error, run_error = errors
    names = [os.fspath(p) for p in inputs]
    if not names:
        return []
    err = ctypes.create_string_buffer(_native.ERR_SIZE)
    handle = c_void_p()
    if lib.tc_files_new(ctypes.byref(handle)) != TC_OK:
        raise MemoryError("tiledconv: out of host memory for a run of files")
    try:
        for name, value in _words(options):
            rc = lib.tc_files_set(handle, name.encode(), None if value is None
                                  else value.encode(), err, len(err))
            if rc == TC_EINVAL:
                raise value_error(err.value.decode(errors="replace"))
            if rc != TC_OK:
                raise MemoryError("tiledconv: out of host memory for a run of files")
        count = len(names)
        results = (TcFileResult * count)()
        argv = (c_char_p * count)(*[os.fsencode(n) for n in names])
        raised = []

        def tell(done, total, _user):
            try:
                progress(done, total)
            except BaseException as e:  # kept for after the run: the run itself goes on
                if not raised:
                    raised.append(e)

        callback = Progress(tell) if progress is not None else Progress()
        rc = lib.tc_filter_files(handle, argv, count, results, callback, None, err, len(err))
        try:
            out = [_result(names[i], results[i]) for i in range(count)]
        finally:
            lib.tc_file_results_clear(results, count)
        if rc == TC_EINVAL:
            raise value_error(err.value.decode(errors="replace"))
        if rc != TC_OK:
            raise run_error(err.value.decode(errors="replace"), rc)
        if raised:
            raise raised[0]
        return out
    finally:
        lib.tc_files_free(handle)


def _result(name, r):
    output = ctypes.string_at(r.output).decode(errors="surrogateescape") if r.output else None
    return FileResult(input=name, output=output, status=STATUS_NAMES[r.status],
                      message=r.message.decode(errors="replace"), width=r.width,
                      height=r.height, read_ms=r.read_ms, upload_ms=r.upload_ms,
                      convert_ms=r.convert_ms, kernel_ms=r.kernel_ms,
                      download_ms=r.download_ms, write_ms=r.write_ms, checked=bool(r.checked),
                      max_difference=r.max_difference)
