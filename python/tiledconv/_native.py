"""ctypes declarations of libtiledconv's C API (include/tiledconv.h) and the code that finds it.

Nothing here is public: the package's __init__ wraps it. Every struct below mirrors the header
field for field (order and C types); tests/python/test_tiledconv.py compiles a small C program
against the header and checks that sizes and offsets agree.
"""

import ctypes
import os
from ctypes import (POINTER, Structure, c_char, c_char_p, c_double, c_float, c_int, c_long,
                    c_size_t, c_uint, c_ulonglong, c_void_p, sizeof)

SONAME = "libtiledconv.so.1"
ENV_VAR = "TILEDCONV_LIBRARY"

# Status codes (enum in tiledconv.h).
TC_OK = 0
TC_EINVAL = 1
TC_EDEVICE = 2
TC_ENOMEM = 3

# tc_algorithm and tc_border are C enums: int-sized on every ABI we target.
c_enum = c_int

ERR_SIZE = 512  # bytes for the err buffers of the calls that take one


class TcParams(Structure):
    """tc_params: one filter run. Always filled by tc_params_init first."""
    _fields_ = [
        ("taps_x", c_int),
        ("taps_y", c_int),
        # const float * in C; addresses here (numpy arrays' data), which ctypes sets fastest.
        ("kx", c_void_p),
        ("ky", c_void_p),
        ("src_left", c_int),
        ("src_top", c_int),
        ("dst_left", c_int),
        ("dst_top", c_int),
        ("roi_width", c_int),
        ("roi_height", c_int),
        ("border", c_enum),
        ("border_value", c_float),
        ("algorithm", c_enum),
        ("mask", c_void_p),
        ("mask_width", c_int),
        ("mask_height", c_int),
        ("block_width", c_int),
        ("block_height", c_int),
        ("vector_io", c_int),
        ("count_classes", c_int),
        ("out_scale", c_double),
        ("out_offset", c_double),
        ("convert_on_host", c_int),
        ("storage", c_enum),  # since 1.2
        ("kernel", c_char_p),  # a study option: the tiled kernel's variant, NULL the default
    ]


class TcStats(Structure):
    """tc_stats: figures of the last successful filter call on a context."""
    _fields_ = [
        ("algorithm", c_enum),
        ("iterations", c_int),
        ("kernel_ms_min", c_double),
        ("kernel_ms_median", c_double),
        ("kernel_ms_mean", c_double),
        ("kernel_ms", POINTER(c_double)),
        ("passes", c_int),
        ("pass_ms", POINTER(c_double) * 2),
        ("build_ms", c_double),
        ("upload_ms", c_double),
        ("download_ms", c_double),
        ("wall_ms_per_iteration", c_double),
        ("global_", c_size_t * 2),   # "global" is a Python keyword
        ("local", c_size_t * 2),
        ("block", c_int * 2),
        ("classes", c_long * 4),
        ("classes_counted", c_int),
        ("roi_width", c_int),
        ("roi_height", c_int),
        ("programs_built", c_long),
        ("planes", c_int),
        ("convert_ms", c_double),
    ]


class TcDeviceInfo(Structure):
    """tc_device_info: one OpenCL device."""
    _fields_ = [
        ("platform", c_int),
        ("device", c_int),
        ("platform_name", c_char * 128),
        ("platform_version", c_char * 128),
        ("name", c_char * 128),
        ("is_gpu", c_int),
        ("is_cpu", c_int),
        ("compute_units", c_uint),
        ("global_mem_bytes", c_ulonglong),
        ("max_alloc_bytes", c_ulonglong),
        ("local_mem_bytes", c_ulonglong),
        ("has_double", c_int),
    ]


class TcPyramidParams(Structure):
    """tc_pyramid_params: a Gaussian scale space. Always filled by tc_pyramid_params_init."""
    _fields_ = [
        ("octaves", c_int),
        ("levels", c_int),
        ("sigma", c_double),
        ("border", c_enum),
        ("border_value", c_float),
        ("launch", c_enum),
    ]


class TcPyramidLevel(Structure):
    """tc_pyramid_level: one level as tc_pyramid_layout describes it."""
    _fields_ = [
        ("octave", c_int),
        ("level", c_int),
        ("width", c_int),
        ("height", c_int),
        ("sigma", c_double),
        ("sigma_input", c_double),
        ("sigma_applied", c_double),
        ("taps", c_int),
    ]


class TcPyramidStats(Structure):
    """tc_pyramid_stats: figures of the last successful pyramid on a context."""
    _fields_ = [
        ("launch", c_enum),
        ("iterations", c_int),
        ("kernel_ms_min", c_double),
        ("kernel_ms_median", c_double),
        ("kernel_ms_mean", c_double),
        ("kernel_ms", POINTER(c_double)),
        ("launches", c_int),
        ("bytes", c_double),
        ("build_ms", c_double),
        ("upload_ms", c_double),
        ("download_ms", c_double),
        ("wall_ms_per_iteration", c_double),
    ]


class TcImage(Structure):
    """tc_image: pixels in and out of tc_filter_image (the binding uses the channel-last
    layouts TC_PIXELS_U8, _U16 and _F32, `planes` channels a pixel)."""
    _fields_ = [
        ("format", c_enum),
        ("width", c_int),
        ("height", c_int),
        ("planes", c_int),
        ("data", c_void_p),
        ("stride", c_long),
        ("palette", c_void_p),
        ("palette_size", c_int),
    ]


# tc_pixel_format's channel-last layouts (since 1.3).
TC_PIXELS_U8 = 6
TC_PIXELS_U16 = 7
TC_PIXELS_F32 = 8
# The largest image the library takes (TC_MAX_PIXELS).
MAX_PIXELS = 1 << 30


# tc_context is opaque: handled as a void pointer.
ContextPtr = c_void_p
FloatPtr = POINTER(c_float)

# name: (restype, argtypes), exactly as tiledconv.h declares them.
_PROTOTYPES = {
    "tc_params_init": (None, [POINTER(TcParams)]),
    "tc_open": (c_int, [c_char_p, POINTER(ContextPtr), c_char_p, c_size_t]),
    "tc_filter": (c_int, [ContextPtr, FloatPtr, FloatPtr, c_int, c_int, POINTER(TcParams)]),
    "tc_filter_timed": (c_int, [ContextPtr, FloatPtr, FloatPtr, c_int, c_int,
                                POINTER(TcParams), c_int]),
    "tc_error": (c_char_p, [ContextPtr]),
    "tc_close": (None, [ContextPtr]),
    "tc_last_stats": (c_int, [ContextPtr, POINTER(TcStats)]),
    "tc_copy_time": (c_int, [ContextPtr, c_size_t, c_int, POINTER(c_double)]),
    "tc_set_max_memory": (c_int, [ContextPtr, c_ulonglong]),
    "tc_trim": (c_int, [ContextPtr]),
    "tc_set_timing": (c_int, [ContextPtr, c_int]),
    "tc_list_devices": (c_int, [POINTER(TcDeviceInfo), c_int, POINTER(c_int), c_char_p,
                                c_size_t]),
    "tc_context_device": (c_int, [ContextPtr, POINTER(TcDeviceInfo)]),
    "tc_reference": (c_int, [FloatPtr, FloatPtr, c_int, c_int, POINTER(TcParams), c_char_p,
                             c_size_t]),
    "tc_tolerance": (c_double, [FloatPtr, c_int, c_int, POINTER(TcParams)]),
    "tc_named_filter": (c_int, [c_char_p, c_int, c_double, FloatPtr, FloatPtr, c_char_p,
                                c_size_t]),
    "tc_named_mask": (c_int, [c_char_p, c_double, FloatPtr, c_int, POINTER(c_int),
                              POINTER(c_int), c_char_p, c_size_t]),
    "tc_mask_factors": (c_int, [FloatPtr, c_int, c_int, FloatPtr, FloatPtr]),
    "tc_algorithm_name": (c_char_p, [c_enum]),
    "tc_border_name": (c_char_p, [c_enum]),
    "tc_storage_name": (c_char_p, [c_enum]),
    "tc_gradient": (c_int, [ContextPtr, FloatPtr, FloatPtr, FloatPtr, FloatPtr, c_int, c_int,
                            c_enum, c_enum, POINTER(TcParams)]),
    "tc_gradient_timed": (c_int, [ContextPtr, FloatPtr, FloatPtr, FloatPtr, FloatPtr, c_int,
                                  c_int, c_enum, c_enum, POINTER(TcParams), c_int]),
    "tc_gradient_reference": (c_int, [FloatPtr, FloatPtr, FloatPtr, FloatPtr, c_int, c_int,
                                      c_enum, POINTER(TcParams), c_char_p, c_size_t]),
    "tc_gradient_tolerance": (c_double, [FloatPtr, c_int, c_int, c_enum, POINTER(TcParams),
                                         POINTER(c_double)]),
    "tc_gradient_operator_name": (c_char_p, [c_enum]),
    "tc_gradient_method_name": (c_char_p, [c_enum]),
    "tc_filter_image": (c_int, [ContextPtr, POINTER(TcImage), POINTER(TcImage),
                                POINTER(TcParams)]),
    "tc_filter_images": (c_int, [ContextPtr, POINTER(TcImage), POINTER(TcImage), c_int,
                                 POINTER(TcParams)]),
    "tc_image_to_planes": (c_int, [POINTER(TcImage), c_int, FloatPtr, c_char_p, c_size_t]),
    # Page-locked blocks of a context (since 1.3): an address as a Python int, or None.
    "tc_host_alloc": (c_void_p, [ContextPtr, c_size_t]),
    "tc_host_free": (None, [ContextPtr, c_void_p]),
    "tc_version": (c_char_p, []),
    "tc_abi_size": (c_size_t, [c_char_p]),
    # The Gaussian scale space.
    "tc_pyramid_params_init": (None, [POINTER(TcPyramidParams)]),
    "tc_pyramid_layout": (c_int, [c_int, c_int, POINTER(TcPyramidParams), POINTER(TcPyramidLevel),
                                  c_int, POINTER(c_int), c_char_p, c_size_t]),
    "tc_pyramid": (c_int, [ContextPtr, FloatPtr, c_int, c_int, POINTER(TcPyramidParams),
                           POINTER(FloatPtr)]),
    "tc_pyramid_timed": (c_int, [ContextPtr, FloatPtr, c_int, c_int, POINTER(TcPyramidParams),
                                 POINTER(FloatPtr), c_int]),
    "tc_pyramid_last_stats": (c_int, [ContextPtr, POINTER(TcPyramidStats)]),
    "tc_pyramid_reference": (c_int, [FloatPtr, c_int, c_int, POINTER(TcPyramidParams),
                                     POINTER(FloatPtr), c_char_p, c_size_t]),
    "tc_pyramid_tolerance": (c_int, [FloatPtr, c_int, c_int, POINTER(TcPyramidParams),
                                     POINTER(c_double)]),
    "tc_pyramid_launch_name": (c_char_p, [c_enum]),
}

# The mirrors above against the library's own sizes: a library built from another header
# would read or write past these structs.
_MIRRORS = {"tc_params": TcParams, "tc_stats": TcStats, "tc_device_info": TcDeviceInfo,
            "tc_image": TcImage,
            "tc_pyramid_params": TcPyramidParams, "tc_pyramid_level": TcPyramidLevel,
            "tc_pyramid_stats": TcPyramidStats}


def _candidates():
    """(description, path or soname) in the order they are tried, after TILEDCONV_LIBRARY."""
    pkg = os.path.dirname(os.path.abspath(__file__))
    # The package's own folder: a wheel built by `pip install ./python` carries the library.
    own = os.path.join(pkg, SONAME)
    # The build tree: python/tiledconv -> ../../build/lib (PYTHONPATH=python from the root).
    build = os.path.normpath(os.path.join(pkg, "..", "..", "build", "lib", SONAME))
    # An installed prefix: P/lib/python3/dist-packages/tiledconv -> P/lib (also the
    # P/lib/python3.X/site-packages layout, which is as deep).
    prefix = os.path.normpath(os.path.join(pkg, "..", "..", "..", SONAME))
    return [("the package's folder", own), ("the build tree", build),
            ("the installed prefix", prefix)]


def _declare(lib):
    for name, (restype, argtypes) in _PROTOTYPES.items():
        fn = getattr(lib, name)  # AttributeError: not the library we expect
        fn.restype = restype
        fn.argtypes = argtypes
    for name, mirror in _MIRRORS.items():
        size = lib.tc_abi_size(name.encode())
        if size != sizeof(mirror):
            raise AttributeError("%s is %d bytes in the library, %d in this binding: the "
                                 "library and the binding come from different versions"
                                 % (name, size, sizeof(mirror)))
    return lib


def load():
    """Finds and loads libtiledconv, declares its functions; returns (CDLL, path it came from).

    Order: $TILEDCONV_LIBRARY (a path; when set, nothing else is tried), the package's own
    folder (where a wheel puts it), the build tree, the installed prefix beside the package,
    then the dynamic loader's own search for the soname.
    """
    tried = []
    env = os.environ.get(ENV_VAR)
    if env:
        try:
            return _declare(ctypes.CDLL(env)), env
        except (OSError, AttributeError) as e:
            raise ImportError(f"tiledconv: cannot load {ENV_VAR}={env}: {e}") from e
    for what, path in _candidates():
        if not os.path.exists(path):
            tried.append(f"{path} ({what}: not there)")
            continue
        try:
            return _declare(ctypes.CDLL(path)), path
        except (OSError, AttributeError) as e:
            tried.append(f"{path} ({what}: {e})")
    try:
        return _declare(ctypes.CDLL(SONAME)), SONAME
    except (OSError, AttributeError) as e:
        tried.append(f"{SONAME} (the dynamic loader's search path: {e})")
    raise ImportError(
        "tiledconv: cannot find the C library libtiledconv.so.1; tried "
        + "; ".join(tried)
        + f". Install the package with `pip install ./python` from the project (it builds "
        f"and carries the library), build it with `make`, install it with `make install`, or "
        f"set {ENV_VAR} to the path of libtiledconv.so.1.")


lib, path = load()


def tune(setting=None):
    """Sets one of the library's study and test settings, "NAME=VALUE" (tiledconv_internal.h's
    tc_tuning: staging-chunk, pinned-bytes, no-images, ...), process-wide; None puts every
    setting back to its default. Not part of the API: for the tests and bench/ alone."""
    if setting is None:
        lib.tc_set_tuning(None)
        return
    err = ctypes.create_string_buffer(512)
    if lib.tc_tune(setting.encode(), err, len(err)) != 0:
        raise ValueError(err.value.decode())


lib.tc_tune.restype = ctypes.c_int
lib.tc_tune.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
lib.tc_set_tuning.restype = None
lib.tc_set_tuning.argtypes = [ctypes.c_void_p]


class _DirectCounts(Structure):
    """tiledconv_internal.h's tc_direct_counts (its size checked against the library's on
    each use: the library writes the whole struct, so a shorter mirror would have it write
    past the end of this one, into the interpreter's heap)."""
    _fields_ = [("up", c_ulonglong), ("down", c_ulonglong), ("overlapped", c_ulonglong)]


lib.tc_direct_transfers.restype = None
lib.tc_direct_transfers.argtypes = [ContextPtr, POINTER(_DirectCounts)]


def direct_transfers(context):
    """(up, down): the images a Context moved straight from and into its page-locked blocks,
    with no staging copy, over its life (tc_direct_transfers). Not part of the API: the tests'
    proof that the staging was skipped."""
    if context.closed:
        raise ValueError("tiledconv: operation on a closed Context")
    size = lib.tc_abi_size(b"tc_direct_counts")
    if size != sizeof(_DirectCounts):
        raise AttributeError("tc_direct_counts is %d bytes in the library, %d in this binding"
                             % (size, sizeof(_DirectCounts)))
    counts = _DirectCounts()
    lib.tc_direct_transfers(context._ctx, ctypes.byref(counts))
    return counts.up, counts.down
