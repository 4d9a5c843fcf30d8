"""numpy arrays over a context's page-locked host memory (nothing here is public: Context.empty
and Context.empty_like wrap it).

The library moves an image whose rows lie in one of its context's page-locked blocks
(tc_host_alloc) straight between that memory and the device: no copy into its staging memory
on the way up, none out of it on the way down. Here each block is the base of the numpy arrays
over it (a Block) and is freed (tc_host_free) when the last of them goes. tc_close releases
every block of a context, so the C context is released by the later of two events: the
Context's close() and the death of its last block. Closing a context while such arrays live
therefore never frees memory under them; the device's resources stay held until they die.
"""

import operator
import threading

import numpy as np

from . import _native

#: The dtypes of page-locked arrays: those the library reads and writes where they lie.
DTYPES = (np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.float32))
ACCEPTED = "uint8, uint16 or float32"


def checked(shape, dtype):
    """(shape tuple, np.dtype, bytes) of a page-locked array, checked before anything is
    allocated: 2 to 4 sides of at least 1 (H x W, H x W x C, N x H x W, N x H x W x C;
    ValueError) and a dtype the library takes as it is (TypeError)."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"dtype: {dtype!r} is not a dtype; use {ACCEPTED}") from None
    if dt not in DTYPES or not dt.isnative:
        why = (" (float64 is computed in float32 through a copy, so page-locked float64 would "
               "save nothing: use float32)" if dt.kind == "f" and dt.itemsize == 8 else "")
        raise TypeError(f"dtype: {dtype!r} is not accepted for page-locked memory: use "
                        f"{ACCEPTED}{why}")
    try:
        sides = (operator.index(shape),)
    except TypeError:
        try:
            sides = tuple(operator.index(s) for s in shape)
        except TypeError:
            raise ValueError(f"shape: expected a tuple of integers, got {shape!r}") from None
    if not 2 <= len(sides) <= 4 or min(sides) < 1:
        raise ValueError(f"shape: {sides}: expected 2 to 4 sides of at least 1 (H x W, "
                         f"H x W x C, N x H x W or N x H x W x C)")
    nbytes = dt.itemsize
    for s in sides:
        nbytes *= s
    return sides, dt, nbytes


class Block:
    """One page-locked block: the base of every array over it. When the last array goes,
    numpy drops this object and the block is freed."""

    def __init__(self, memory, address, nbytes):
        self._memory = memory
        self._address = address
        # numpy's view of the whole block as bytes, writable; arrays are views of it.
        self.__array_interface__ = {"version": 3, "shape": (nbytes,), "typestr": "|u1",
                                    "data": (address, False)}

    def __del__(self):
        try:
            self._memory.free(self._address)
        except Exception:  # interpreter shutdown: the library's objects may be gone already
            pass


class HostMemory:
    """A context's C handle, shared with its live page-locked blocks: tc_host_free for each
    block as it dies, and tc_close once the context is closed and no block lives."""

    def __init__(self, handle):
        # Reentrant: a block may die (and free itself) while this thread holds the lock, when
        # the garbage collector runs inside a section.
        self._lock = threading.RLock()
        self._handle = handle
        self._live = 0
        self._closing = False
        # The library's functions, held here: a block dying at interpreter shutdown must not
        # look them up in a module that is being torn down.
        self._alloc = _native.lib.tc_host_alloc
        self._free = _native.lib.tc_host_free
        self._close = _native.lib.tc_close

    @property
    def live(self):
        """Blocks not yet freed."""
        return self._live

    @property
    def released(self):
        """True once tc_close has run."""
        return self._handle is None

    def array(self, shape, dtype, nbytes):
        """A C-ordered array of shape and dtype over a new block, or None when the library
        gives none (no memory left, or the device refused)."""
        with self._lock:
            if self._closing:
                raise ValueError("tiledconv: operation on a closed Context")
            address = self._alloc(self._handle, nbytes)
            if not address:
                return None
            self._live += 1
        # Made outside the lock: should this fail, the Block's death frees the block.
        block = Block(self, address, nbytes)
        return np.asarray(block).view(dtype).reshape(shape)

    def free(self, address):
        """A block's release (its last array gone); the context's too when it was closed."""
        with self._lock:
            if self._handle is not None:
                self._free(self._handle, address)
            self._live -= 1
            last = self._closing and self._live == 0
        if last:
            self._release()

    def close(self):
        """The Context's close(): tc_close now when no block lives, else when the last dies."""
        with self._lock:
            self._closing = True
            if self._live:
                return
        self._release()

    def _release(self):
        with self._lock:
            handle, self._handle = self._handle, None
        if handle is not None:
            self._close(handle)
