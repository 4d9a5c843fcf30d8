"""A large batch's new results lie in one block that later batches reuse once every result
over it is gone (tiledconv/_result_memory.py): the values are filter()'s, results held are
never written by a later batch, a block comes back only when the last of its results goes,
and no more than MAX_BLOCKS are kept. MIN_BYTES is lowered for the test, so that small
images (quick on PoCL) take the blocks' way.
"""
import gc

import numpy as np
import pytest

import tiledconv
from tiledconv import _result_memory

KX = [1, 2, 1]


@pytest.fixture(scope="module")
def cpu():
    with tiledconv.Context("cpu") as c:
        yield c


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch):
    monkeypatch.setattr(_result_memory, "MIN_BYTES", 1)
    _result_memory.release()
    yield
    _result_memory.release()


def images(seed, n=6, shape=(40, 56)):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, shape, dtype=np.uint8) for _ in range(n)]


def owner_of(a):
    """The _Owner at the end of a's chain of bases, or None."""
    while isinstance(a, np.ndarray):
        a = a.base
    return a if isinstance(a, _result_memory._Owner) else None


def address(a):
    return a.__array_interface__["data"][0]


def test_list_results_are_filters_values_in_one_block(cpu):
    src = images(1) + images(2, 2, (33, 17, 3))
    out = cpu.filter_batch(src, kx=KX, ky=KX, border="reflect101")
    for a, r in zip(src, out):
        assert r.dtype == a.dtype and r.shape == a.shape and r.flags.writeable
        assert np.array_equal(r, cpu.filter(a, kx=KX, ky=KX, border="reflect101"))
    assert owner_of(out[0]) is not None
    assert len({id(owner_of(r)) for r in out}) == 1  # one owner: one block
    out[0][...] = 0  # results are apart: writing one leaves the others
    assert np.array_equal(out[1], cpu.filter(src[1], kx=KX, ky=KX, border="reflect101"))


def test_a_held_batch_is_never_written_by_the_next(cpu):
    first = cpu.filter_batch(images(3), kx=KX, ky=KX)
    saved = [r.copy() for r in first]
    second = cpu.filter_batch(images(4), kx=KX, ky=KX)
    for a, b in zip(first, second):
        assert not np.shares_memory(a, b)
    for r, s in zip(first, saved):
        assert np.array_equal(r, s)


def test_the_block_comes_back_when_its_last_result_goes(cpu):
    out = cpu.filter_batch(images(5), kx=KX, ky=KX)
    at = address(out[0])
    last = out[-1]
    del out
    gc.collect()
    assert _result_memory.kept_blocks() == 0  # one result still holds the block
    del last
    gc.collect()
    assert _result_memory.kept_blocks() == 1
    again = cpu.filter_batch(images(6), kx=KX, ky=KX)
    assert address(again[0]) == at  # reused: its pages are present
    assert _result_memory.kept_blocks() == 0
    assert all(np.array_equal(r, cpu.filter(a, kx=KX, ky=KX))
               for a, r in zip(images(6), again))


def test_a_stack_result_takes_a_block_too(cpu):
    stack = np.stack(images(7))
    out = cpu.filter_batch(stack, kx=KX, ky=KX)
    assert out.shape == stack.shape and owner_of(out) is not None
    assert np.array_equal(out, np.stack([cpu.filter(a, kx=KX, ky=KX) for a in stack]))


def test_float64_results_and_out_are_left_alone(cpu):
    src = [a.astype(np.float64) for a in images(8, 2)]
    out = cpu.filter_batch(src, kx=KX, ky=KX)
    assert all(r.dtype == np.float64 and owner_of(r) is None
               for r in out)
    mine = [np.empty_like(a) for a in images(9, 2)]
    assert cpu.filter_batch(images(9, 2), kx=KX, ky=KX, out=mine)[0] is mine[0]


def test_at_most_max_blocks_are_kept(cpu):
    batches = [cpu.filter_batch(images(10 + i, 2, (24 + 40 * i, 32)), kx=KX, ky=KX)
               for i in range(_result_memory.MAX_BLOCKS + 2)]
    del batches
    gc.collect()
    assert _result_memory.kept_blocks() == _result_memory.MAX_BLOCKS


def test_a_derived_view_holds_the_block(cpu):
    out = cpu.filter_batch(images(20), kx=KX, ky=KX)
    kept = out[2].T[1:, ::2]  # a view of a view
    saved = kept.copy()
    del out
    gc.collect()
    assert _result_memory.kept_blocks() == 0
    again = cpu.filter_batch(images(21), kx=KX, ky=KX)
    assert not any(np.shares_memory(kept, r) for r in again)
    assert np.array_equal(kept, saved)


def test_a_larger_kept_block_serves_a_smaller_batch(cpu):
    big = cpu.filter_batch(images(22, 6, (40, 56)), kx=KX, ky=KX)
    at = address(big[0])
    del big
    gc.collect()
    small = cpu.filter_batch(images(23, 4, (40, 56)), kx=KX, ky=KX)  # 4 of 6: within 2x
    assert address(small[0]) == at
    assert all(np.array_equal(r, cpu.filter(a, kx=KX, ky=KX))
               for a, r in zip(images(23, 4, (40, 56)), small))


def test_trim_lets_the_kept_blocks_go(cpu):
    out = cpu.filter_batch(images(24), kx=KX, ky=KX)
    del out
    gc.collect()
    assert _result_memory.kept_blocks() == 1
    cpu.trim()
    assert _result_memory.kept_blocks() == 0


AT_EXIT = """
import atexit, numpy as np, tiledconv
from tiledconv import _result_memory
_result_memory.MIN_BYTES = 1
ctx = tiledconv.Context("cpu")
imgs = [np.full((40, 56), i, np.uint8) for i in range(6)]
def at_exit():
    new = ctx.filter_batch(imgs, kx=[1, 2, 1], ky=[1, 2, 1])
    print("shared", any(np.shares_memory(n, r) for n in new for r in held))
atexit.register(at_exit)  # before the first batch's finalizer: it runs after finalize's hook
held = ctx.filter_batch(imgs, kx=[1, 2, 1], ky=[1, 2, 1])
"""


def test_results_alive_at_exit_keep_their_block():
    import os
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-c", AT_EXIT], capture_output=True, text=True,
                       env=dict(os.environ), timeout=300)
    assert r.returncode == 0, r.stderr
    assert "shared False" in r.stdout, r.stdout + r.stderr
