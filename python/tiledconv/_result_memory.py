"""Where a batch's new results lie (nothing here is public; filter_batch uses it).

A batch of 1,000 1080p images with new arrays back writes 2 GB (6 GB in colour) of fresh
memory. Fresh memory costs its page faults, the kernel zeroing each page at the first touch:
a list's 1,000 results of 2 MB each come one by one from the heap, in 4 KB pages wherever
glibc has given the last batch's pages back (506,000 faults a batch), and one N x H x W
result is a new mapping every time. In a loop of batches, as in any script that times them or
filters a video, that cost came back each batch and outweighed the filtering: on the 2-core
test machine, making 1,000 such results present took 0.34-0.39 s as separate arrays (506,000
faults) and 0.13-0.14 s as one block (1,200: bench/result_memory.py present 1000, medians of
two runs), and on a GPU machine the list's batch took 0.41 s against 0.26 s for the same
images as one array (docs/benchmarks.md).

So the new results of a large batch are views of one block, and when the last of them is
gone the block is kept, its pages present, for the next batch of about its size: up to
MAX_BLOCKS blocks and an eighth of the machine's memory, the oldest let go first. A block is
reused only once nothing refers to any array over it, so a batch never writes into results
still held. The price: one result held keeps its whole batch's block (docs/choices.md).
"""

import math
import os
import sys
import threading
import weakref

import numpy as np

#: Batches whose new results come to less stay with numpy's own arrays.
MIN_BYTES = 64 << 20
#: The most blocks kept for later batches.
MAX_BLOCKS = 2
#: Each result starts on its own page: no two results share one.
_ALIGN = 4096

_lock = threading.RLock()  # a block's finalizer may run on any thread, in any call
_kept = []  # blocks (flat uint8 arrays) whose results are all gone, the newest last


def _memory_limit():
    """The most bytes kept: an eighth of the memory the process may have, the machine's or
    its control group's (a container's) where that is less; a gigabyte where neither is
    known."""
    limits = []
    try:
        limits.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        pass
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            limits.append(int(f.read()))  # "max" (no limit) is no number
    except (OSError, ValueError):
        pass
    return min(limits) // 8 if limits else 1 << 30


class _Owner:
    """The base of every result array over one block: numpy keeps it while any of them lives,
    and its death hands the block back."""

    __slots__ = ("__array_interface__", "block", "__weakref__")


def _keep(block):
    if sys.is_finalizing():  # the interpreter's end: nothing will take it
        return
    with _lock:
        _kept.append(block)
        limit = _memory_limit()
        while len(_kept) > MAX_BLOCKS or sum(b.nbytes for b in _kept) > limit:
            _kept.pop(0)


def _take(nbytes):
    """A kept block of nbytes to twice that, the newest first, or None."""
    with _lock:
        for i in range(len(_kept) - 1, -1, -1):
            if nbytes <= _kept[i].nbytes <= 2 * nbytes:
                return _kept.pop(i)
    return None


def kept_blocks():
    """How many blocks are kept now (for tests)."""
    with _lock:
        return len(_kept)


def release():
    """Lets every kept block go (Context.trim calls it; tests too)."""
    with _lock:
        _kept.clear()


def arrays(specs, populate):
    """One new array for each (shape, dtype) in specs, all over one block, or None where they
    come to less than MIN_BYTES. populate(list of arrays) makes a new block's pages present
    (a kept block's are)."""
    # math.prod, not np.prod: a batch of 1,000 spent 10 ms in numpy's per-call overhead here.
    sizes = [math.prod(shape) * np.dtype(dt).itemsize for shape, dt in specs]
    offsets, total = [], 0
    for size in sizes:
        offsets.append(total)
        total += -(-size // _ALIGN) * _ALIGN
    if total < MIN_BYTES:
        return None
    block = _take(total)
    if block is None:
        block = np.empty(total + _ALIGN, np.uint8)
        start = (-block.__array_interface__["data"][0]) % _ALIGN
        block = block[start:start + total]
        populate([block])
    owner = _Owner()
    owner.block = block
    owner.__array_interface__ = {"data": (block.__array_interface__["data"][0], False),
                                 "shape": (block.nbytes,), "typestr": "|u1", "version": 3}
    # Not at exit: atexit would hand back blocks whose results are still alive, which a
    # later exit handler's batch could then write into.
    weakref.finalize(owner, _keep, block).atexit = False
    whole = np.asarray(owner)
    return [whole[at:at + size].view(dt).reshape(shape)
            for (shape, dt), at, size in zip(specs, offsets, sizes)]
