"""tiledconv.dask: chunked images and stacks filtered with their halos equal one whole-image call
byte for byte, on the threaded scheduler and on a cluster of two worker processes; one output
chunk reads only its input chunk and its neighbours; Dask stays optional."""
import collections
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import tiledconv

# Under the sanitizers' preload (tests/run-sanitized.sh) Dask's scheduler threads, ending at the
# interpreter's exit, stop ASan's runtime itself ("unable to unmap" their signal stacks); the
# library calls made here are the ones the other suites make under ASan.
if "libasan" in os.environ.get("LD_PRELOAD", ""):
    pytest.skip("Dask's threads under the sanitizers' preload", allow_module_level=True)
da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
import tiledconv.dask as tdask  # noqa: E402  (after the skip: Dask is optional)

RNG = np.random.default_rng(7)

# (shape, chunks): each cuts through a filter's halo (chunks smaller than the image, edges
# that are not multiples of the chunk size, chunks as small as the longest radius used).
LAYOUTS = [
    ((97, 131), (23, 31)),
    ((61, 70, 3), (16, 17, 1)),
    ((5, 60, 50), (2, 17, 13)),
    ((3, 40, 33, 4), (2, 15, 16, 2)),
    ((40, 50, 1), (15, 16, 1)),
]

FILTERS = [
    dict(),
    dict(kx=tiledconv.named_filter("gauss", 13)[0], border="reflect101"),
    dict(kx=[1, 2, 1], ky=np.ones(13) / 13, border="reflect"),
    dict(kx=[1, 4, 6, 4, 1], ky=[1, 2, 1], border="wrap"),
    dict(mask=tiledconv.named_mask("laplacian"), border="constant", cval=7.5,
         dtype=np.float32),
    dict(kx=tiledconv.named_filter("gauss", 31)[0], ky=[1], border="replicate"),
]


def whole(a, keywords):
    kind, _ = tdask.layout(a.ndim, a.shape)
    if kind in ("image", "colour"):
        return tiledconv.filter(a, **keywords)
    return tiledconv.filter_batch(a, **keywords)


@pytest.mark.parametrize("shape,chunks", LAYOUTS, ids=lambda v: "x".join(map(str, v)))
@pytest.mark.parametrize("keywords", FILTERS, ids=lambda k: ",".join(k) or "default")
def test_threaded_equals_one_call(shape, chunks, keywords):
    a = RNG.integers(0, 256, shape, dtype=np.uint8)
    out = tdask.filter(da.from_array(a, chunks=chunks), **keywords)
    assert out.dtype == (np.dtype(keywords["dtype"]) if "dtype" in keywords else a.dtype)
    got = out.compute(scheduler="threads")
    assert np.array_equal(got, whole(a, keywords))


def test_float_and_16_bit_images():
    a16 = (RNG.random((70, 90)) * 65535).astype(np.uint16)
    af = (RNG.random((70, 90)) * 1000).astype(np.float32)
    for a, taps in ((a16, 5), (a16, 15), (af, 5), (af, 13), (af, 31)):
        keywords = dict(kx=tiledconv.named_filter("gauss", taps)[0], border="reflect101")
        got = tdask.filter(da.from_array(a, chunks=(20, 25)), **keywords).compute()
        assert np.array_equal(got, tiledconv.filter(a, **keywords)), (a.dtype, taps)


def test_seven_to_eleven_taps_within_the_rounding():
    """The tiled kernel at 7 to 11 taps gives a pixel a value that depends, by a few of a
    float's last bits, on where the work-groups' tiles fall (a chunk moves them): up to 3 ulp
    seen on floats, and an integer output's rounding by one. Within that, not bit for bit
    (docs/choices.md); every other length and algorithm is bit for bit (above)."""
    af = (RNG.random((70, 90)) * 1000).astype(np.float32)
    a16 = (RNG.random((70, 90)) * 65535).astype(np.uint16)
    for a, bound in ((af, 4 * np.spacing(np.float32(1000.0))), (a16, 1)):
        for taps in (7, 9, 11):
            keywords = dict(kx=tiledconv.named_filter("gauss", taps)[0], border="reflect101")
            got = tdask.filter(da.from_array(a, chunks=(20, 25)), **keywords).compute()
            want = tiledconv.filter(a, **keywords)
            assert np.abs(got.astype(np.float64) - want).max() <= bound, (a.dtype, taps)


def test_one_chunk_reads_its_neighbours_only():
    reads = collections.Counter()
    lock = threading.Lock()

    def make(block_info=None):
        i, j = block_info[None]["chunk-location"]
        with lock:
            reads[(i, j)] += 1
        return np.full(block_info[None]["chunk-shape"], 10 * i + j, np.uint8)

    d = da.map_blocks(make, chunks=((20,) * 5, (20,) * 5), dtype=np.uint8,
                      meta=np.empty((0, 0), np.uint8))
    out = tdask.filter(d, kx=[1, 1, 1, 1, 1])
    out.blocks[2, 3].compute(scheduler="sync")
    assert set(reads) == {(i, j) for i in (1, 2, 3) for j in (2, 3, 4)}
    reads.clear()
    out.blocks[0, 0].compute(scheduler="sync")  # a corner: no halo beyond the image's edge
    assert set(reads) == {(0, 0), (0, 1), (1, 0), (1, 1)}


def test_cluster_of_two_processes():
    distributed = pytest.importorskip("distributed")
    a = RNG.integers(0, 256, (3, 80, 90), dtype=np.uint8)
    keywords = dict(kx=tiledconv.named_filter("gauss", 13)[0], border="reflect101")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=2, processes=True,
                                  dashboard_address=None, silence_logs=50) as cluster, \
            distributed.Client(cluster) as client:
        out = tdask.filter(da.from_array(a, chunks=(1, 30, 40)), **keywords)
        got = client.compute(out).result()
        # each worker process filtered with its own contexts
        pids = client.run(os.getpid)
        assert len(set(pids.values())) == 2
    assert np.array_equal(got, tiledconv.filter_batch(a, **keywords))


def test_device_named():
    """device= opens each worker's context there: the CPU device (PoCL, present wherever the
    suites run) gives the whole call's bytes; a platform that is not there fails the compute
    with Context's reason."""
    a = RNG.integers(0, 256, (50, 70), dtype=np.uint8)
    got = tdask.filter(da.from_array(a, chunks=(20, 30)), kx=[1, 2, 1],
                       device="cpu").compute(scheduler="threads")
    with tiledconv.Context("cpu") as ctx:
        assert np.array_equal(got, ctx.filter(a, kx=[1, 2, 1]))
    with pytest.raises(ValueError, match="platform 9"):
        tdask.filter(da.from_array(a, chunks=(20, 30)), device="9:9").compute(
            scheduler="threads")


def test_refusals():
    with pytest.raises(ValueError, match="5-D"):
        tdask.filter(da.zeros((2, 2, 2, 2, 2), chunks=1))
    with pytest.raises(ValueError):
        tdask.filter(da.zeros((20, 20), chunks=10), border="sideways")


def test_dask_stays_optional():
    code = "import sys, tiledconv; print('dask' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=os.environ, timeout=120)
    assert done.stdout.strip() == "False", done.stderr
