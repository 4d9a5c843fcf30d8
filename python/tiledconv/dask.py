"""Filters for Dask arrays: images and stacks larger than one machine's memory, chunk by chunk.

``tiledconv.dask.filter(darr, **keywords)`` takes a dask array and gives one, each output chunk
made from its input chunk and the neighbours' rows and columns its filter reaches
(``dask.array.map_overlap``, as dask-image's filters do), through one ``tiledconv.Context`` for
each worker thread (a threaded scheduler, or the processes of a ``distributed`` cluster). The
keywords are ``tiledconv.filter``'s (``kx``, ``ky``, ``mask``, ``border``, ``border_value`` /
``cval``, ``algorithm``, ``storage``, ``dtype``); the result equals one whole-image call byte for
byte, however the array is chunked.

The layouts: 2-D is an image (H x W); 3-D whose last axis is 1, 3 or 4 a colour image (H x W x
C); any other 3-D a stack of 2-D images (N x H x W, the first axis the image); 4-D a stack of
colour images (N x H x W x C). Channels are never split between chunks (rechunked whole), nor is
the filter ever applied across images of a stack.

Borders: the library's own rule at the image's edge (the chunks there get no halo on that side:
``map_overlap(boundary="none")``), since Dask has no reflect-101 and its constant casts the
value; wrap takes its halo from the other side of the image (``boundary="periodic"``).

Dask is optional: ``import tiledconv`` never imports it; ``import tiledconv.dask`` needs it
(Debian: python3-dask, and python3-distributed for a cluster).
"""

import threading

import dask.array as da
import numpy as np

import tiledconv
from . import _arrays

__all__ = ["filter", "layout"]

_local = threading.local()
# Contexts are opened one at a time: the OpenCL loader reads its list of platforms on the first
# call, which is not safe from several threads at once (ocl-icd).
_opening = threading.Lock()


def _context(device=None):
    """This thread's Context on `device` (None: the default device), opened on its first
    chunk there."""
    contexts = _local.__dict__.setdefault("contexts", {})
    ctx = contexts.get(device)
    if ctx is None or ctx.closed:
        with _opening:
            ctx = contexts[device] = tiledconv.Context(device)
    return ctx


def layout(ndim, shape):
    """("image" | "colour" | "stack" | "colour stack", the two axes filtered) for an array of
    this shape, by the module's rule."""
    if ndim == 2:
        return "image", (0, 1)
    if ndim == 3 and shape[-1] in (1, 3, 4):
        return "colour", (0, 1)
    if ndim == 3:
        return "stack", (1, 2)
    if ndim == 4:
        return "colour stack", (1, 2)
    raise ValueError(f"tiledconv.dask.filter: a {ndim}-D array; give H x W, H x W x C, "
                     f"N x H x W or N x H x W x C")


def _radii(kx, ky, mask):
    """(rows' radius, columns' radius): how far the filter reaches down and across."""
    if mask is not None:
        m = np.asarray(mask)
        if m.ndim != 2:
            raise ValueError("mask: a 2-D array-like, rows first")
        return (m.shape[0] - 1) // 2, (m.shape[1] - 1) // 2
    nx = None if kx is None else len(np.ravel(np.asarray(kx, dtype=np.float64)))
    ny = None if ky is None else len(np.ravel(np.asarray(ky, dtype=np.float64)))
    nx = nx if nx is not None else (ny if ny is not None else 3)
    ny = ny if ny is not None else nx
    return (ny - 1) // 2, (nx - 1) // 2


def _filter_block(block, kind, device, keywords):
    ctx = _context(device)
    if kind in ("image", "colour"):
        return ctx.filter(block, **keywords)
    return ctx.filter_batch(block, **keywords)


def filter(darr, kx=None, ky=None, border="replicate", border_value=0.0, algorithm="tiled",
           mask=None, storage="buffer", *, cval=None, dtype=None, device=None):
    """A dask array of darr's shape (and dtype, or ``dtype``) filtered as ``tiledconv.filter``
    filters each image; lazy until computed. See the module's text for layouts and borders.
    ``device`` is what ``tiledconv.Context`` takes ("gpu", "cpu", "0:1", ...; None: the default
    device): each worker thread opens its own context there on its first chunk.

    >>> import dask.array as da, numpy as np, tiledconv, tiledconv.dask
    >>> image = da.from_array(np.arange(48 * 64, dtype=np.float32).reshape(48, 64), chunks=16)
    >>> out = tiledconv.dask.filter(image, kx=[1, 2, 1], ky=[1, 2, 1], border="reflect101")
    >>> bool((out.compute() == tiledconv.filter(image.compute(), kx=[1, 2, 1], ky=[1, 2, 1],
    ...                                          border="reflect101")).all())
    True
    """
    if not isinstance(darr, da.Array):
        darr = da.asarray(darr)
    kind, (row_axis, col_axis) = layout(darr.ndim, darr.shape)
    wrap = _arrays.LIBRARY_BORDERS[_arrays.border_index(border)] == "wrap"
    ry, rx = _radii(kx, ky, mask)
    depth = {axis: 0 for axis in range(darr.ndim)}
    depth[row_axis], depth[col_axis] = ry, rx
    if kind in ("colour", "colour stack"):  # a chunk holds every channel of its pixels
        darr = darr.rechunk({darr.ndim - 1: -1})
    keywords = dict(kx=kx, ky=ky, border=border, border_value=border_value,
                    algorithm=algorithm, mask=mask, storage=storage, cval=cval, dtype=dtype)
    out_dtype = np.dtype(dtype) if dtype is not None else darr.dtype
    boundary = {axis: "none" for axis in range(darr.ndim)}
    if wrap:
        boundary[row_axis] = boundary[col_axis] = "periodic"
    return darr.map_overlap(_filter_block, depth=depth, boundary=boundary, trim=True,
                            dtype=out_dtype, meta=np.empty((0,) * darr.ndim, out_dtype),
                            kind=kind, device=device, keywords=keywords)
