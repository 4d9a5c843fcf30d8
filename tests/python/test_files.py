"""tiledconv.filter_files and filter_file (tc_filter_files): the command line's run of files from
Python, with the tool's bytes, each file's failure in its result, progress, refusals."""
import os
import stat
import subprocess
from pathlib import Path

import numpy as np
import pytest

import tiledconv

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tiledconv"
IMAGES = sorted(str(p) for p in (ROOT / "images").glob("*.bmp"))


def tool(*args):
    done = subprocess.run([str(TOOL), *map(str, args)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """The bundled BMPs and the same images as PNG (8 and 16 bits), JPEG and PGM."""
    d = tmp_path_factory.mktemp("inputs")
    files = list(IMAGES)
    for fmt, extra in (("png", []), ("jpg", []), ("pgm", []), ("png16", ["--depth", "16"])):
        sub = d / fmt
        tool("--no-filter", "-q", "-O", sub, "--format", fmt.replace("16", ""), *extra, *IMAGES)
        for p in sorted(sub.iterdir()):  # names of their own: one folder of outputs takes all
            files.append(str(p.rename(p.with_name(p.stem + "_" + fmt + p.suffix))))
    return files


CASES = [
    dict(taps=5),
    dict(taps=7, color=True, format="jpg", quality=90),
    dict(filter="gauss", sigma=1.5, taps=9, border="reflect101", format="png"),
    dict(mask=[[0, 1, 0], [1, -4, 1], [0, 1, 0]], scale=0.5, offset=128, border="wrap"),
]


def words(options):
    """The command line for these keywords, as the binding's own mapping makes it."""
    out = []
    for name, value in tiledconv._files._words(options):
        out += ["--" + name] + ([] if value is None else [value])
    return out


@pytest.mark.parametrize("options", CASES, ids=lambda o: ",".join(o))
def test_same_bytes_as_the_tool(inputs, tmp_path, options):
    got = tiledconv.filter_files(inputs, tmp_path / "py", no_sync=True, **options)
    assert [r.status for r in got] == ["written"] * len(inputs), [r.message for r in got]
    tool("-q", "--no-sync", "-O", tmp_path / "cli", *words(options), *inputs)
    names = sorted(os.listdir(tmp_path / "cli"))
    assert names == sorted(os.listdir(tmp_path / "py"))
    assert sorted(os.path.basename(r.output) for r in got) == names
    for name in names:
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name


def test_one_file_and_its_result(tmp_path):
    out = tmp_path / "one.png"
    r = tiledconv.filter_file(IMAGES[0], out, taps=3)
    assert r.ok and r.output == str(out) and r.input == IMAGES[0]
    tool("-q", "-s", IMAGES[0], "-o", tmp_path / "cli.png", "-f", 3)
    assert out.read_bytes() == (tmp_path / "cli.png").read_bytes()
    assert r.width > 0 and r.height > 0 and r.kernel_ms >= 0


def test_each_failure_in_its_result(tmp_path):
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n not a png")
    names = [IMAGES[0], str(tmp_path / "missing.bmp"), str(bad), IMAGES[1]]
    got = tiledconv.filter_files(names, tmp_path / "out", taps=5)
    assert [r.status for r in got] == ["written", "refused", "refused", "written"]
    assert "missing.bmp" in got[1].message and "bad.png" in got[2].message
    # nothing partial: only the two written files (no temporary left)
    assert sorted(os.listdir(tmp_path / "out")) == sorted(os.path.basename(n) for n in
                                                          (IMAGES[0], IMAGES[1]))


def test_progress_ends_at_the_total(tmp_path):
    calls = []
    names = IMAGES + [str(tmp_path / "missing.bmp")]
    tiledconv.filter_files(names, tmp_path / "out", progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (len(names), len(names))
    assert all(t == len(names) for _, t in calls)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_progress_exception_raised_after_the_run(tmp_path):
    def boom(done, total):
        raise KeyError("stop")
    with pytest.raises(KeyError):
        tiledconv.filter_files(IMAGES, tmp_path / "out", progress=boom)
    assert len(os.listdir(tmp_path / "out")) == len(IMAGES)  # the run itself went on


@pytest.mark.parametrize("options,words_in_message", [
    (dict(taps=8), "odd"),
    (dict(timing=True), "timing"),
    (dict(no_such_option=1), "no such option"),
    (dict(border="sideways"), "sideways"),
    (dict(algorithm="all"), "all"),
    (dict(output="-"), "standard output"),
])
def test_refused_before_any_work(tmp_path, options, words_in_message):
    with pytest.raises(ValueError, match=words_in_message):
        tiledconv.filter_files(IMAGES, tmp_path / "out", **options)
    assert not (tmp_path / "out").exists()


def test_outputs_that_would_replace_an_input_are_refused(tmp_path):
    src = tmp_path / "a.bmp"
    src.write_bytes(Path(IMAGES[0]).read_bytes())
    with pytest.raises(ValueError):
        tiledconv.filter_files([src], tmp_path)
    assert src.read_bytes() == Path(IMAGES[0]).read_bytes()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_unwritable_folder_fails_each_file(tmp_path):
    out = tmp_path / "ro"
    out.mkdir()
    out.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        got = tiledconv.filter_files(IMAGES, out)
        assert all(r.status != "written" for r in got)
        assert os.listdir(out) == []
    finally:
        out.chmod(stat.S_IRWXU)


def test_empty_list():
    assert tiledconv.filter_files([], None) == []


# ---- read_image and write_image (tc_read_image, tc_write_image) -------------------------------

@pytest.mark.parametrize("fmt", ["png", "jpg", "ppm", "bmp"])
def test_read_then_write_gives_the_tools_bytes(tmp_path, fmt):
    """An image read and written back is the file the tool's --no-filter --color copy writes."""
    src = ROOT / "images" / "TiledConv_Input451x300.bmp"
    tool("--no-filter", "--color", "-q", "--no-sync", "-O", tmp_path / "tool", "--format", fmt,
         src)
    image = tiledconv.read_image(src)
    assert image.shape == (300, 451, 3) and image.dtype == "uint8"
    out = tmp_path / ("written." + fmt)
    tiledconv.write_image(out, image, no_sync=True)
    expected = next((tmp_path / "tool").iterdir())
    assert out.read_bytes() == expected.read_bytes()


def test_samples_of_each_kind_round_trip(tmp_path):
    """uint16 kept in PNG and PGM, a view written as its own pixels, floats rounded as the tool
    rounds filtered values, another maxval read on the 0..255 scale."""
    deep = (np.arange(24, dtype=np.uint16) * 2731).reshape(2, 4, 3)
    for name in ("deep.png", "deep.ppm"):
        tiledconv.write_image(tmp_path / name, deep, no_sync=True)
        back = tiledconv.read_image(tmp_path / name)
        assert back.dtype == np.uint16 and np.array_equal(back, deep)
    big = np.arange(40 * 30, dtype=np.uint8).reshape(40, 30)
    tiledconv.write_image(tmp_path / "view.pgm", big[::3, 5:17], no_sync=True)
    assert np.array_equal(tiledconv.read_image(tmp_path / "view.pgm"), big[::3, 5:17])
    floats = np.array([[-1.0, 0.5, 254.5, np.nan, 1.49]], dtype=np.float32)
    tiledconv.write_image(tmp_path / "f.pgm", floats, no_sync=True)
    assert tiledconv.read_image(tmp_path / "f.pgm").tolist() == [[0, 1, 255, 0, 1]]
    (tmp_path / "m.pgm").write_bytes(b"P5 3 1 100\n\x00\x32\x64")
    back = tiledconv.read_image(tmp_path / "m.pgm")
    assert back.dtype == np.float32 and back.tolist() == [[0.0, 127.5, 255.0]]


def test_read_and_write_refusals(tmp_path):
    image = np.zeros((4, 4, 3), np.uint8)
    refused = [
        (lambda: tiledconv.write_image(tmp_path / "a.gif", image), "unknown image extension"),
        (lambda: tiledconv.write_image(tmp_path / "b.png", np.zeros((4, 4, 4), np.uint8)),
         "C 1 or 3"),
        (lambda: tiledconv.write_image(tmp_path / "c.png", image.astype(np.int32)), "uint8"),
        (lambda: tiledconv.write_image(tmp_path / "d.bmp", image, depth=16), "8-bit"),
        (lambda: tiledconv.read_image(tmp_path / "missing.png"), "missing.png"),
        (lambda: tiledconv.read_image(ROOT / "images" / "TiledConv_Input451x300.bmp",
                                      max_pixels=1000), "exceeds the limit"),
    ]
    for call, words in refused:
        with pytest.raises(ValueError, match=words):
            call()
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing written
    kept = tmp_path / "kept.png"
    tiledconv.write_image(kept, image, no_sync=True)
    kept.chmod(0o444)
    before = kept.read_bytes()
    with pytest.raises(ValueError, match="read-only"):
        tiledconv.write_image(kept, image + 1, no_sync=True)
    assert kept.read_bytes() == before
    tiledconv.write_image(kept, image + 1, no_sync=True, force=True)
    assert np.array_equal(tiledconv.read_image(kept), image + 1)


def _rle8_end_of_bitmap(width, height):
    """A width x height RLE8 BMP of 2 bytes of data (end of bitmap at once): a ratio past the
    bomb guard's, every pixel palette index 0."""
    import struct
    data = bytes([0, 1])
    offset = 14 + 40 + 8
    return (b"BM" + struct.pack("<IIIIiiHHIIiiII", offset + len(data), 0, offset, 40, width,
                                height, 1, 8, 1, len(data), 2835, 2835, 2, 0)
            + bytes([0, 0, 0, 0, 255, 255, 255, 0]) + data)


def test_read_image_takes_the_runs_limits(tmp_path):
    """The bomb guard refuses a 2048 x 1024 RLE8 BMP of 2 bytes, allow_high_ratio reads it."""
    bomb = tmp_path / "small-bomb.bmp"
    bomb.write_bytes(_rle8_end_of_bitmap(2048, 1024))
    with pytest.raises(ValueError, match="allow-high-ratio"):
        tiledconv.read_image(bomb)
    image = tiledconv.read_image(bomb, allow_high_ratio=True)
    assert image.shape == (1024, 2048, 3) and not image.any()


def test_write_image_takes_either_byte_order(tmp_path):
    big_endian = (np.arange(12, dtype=">u2") * 4000).reshape(3, 4)
    tiledconv.write_image(tmp_path / "be.pgm", big_endian, no_sync=True)
    assert np.array_equal(tiledconv.read_image(tmp_path / "be.pgm"), big_endian)


def test_image_calls_refused_inside_a_runs_progress(tmp_path):
    """A progress callback runs while the run holds the process's settings: a read from it is
    refused (ValueError, raised after the run), not a wait for ever."""
    def progress(done, total):
        tiledconv.read_image(IMAGES[0])
    with pytest.raises(ValueError, match="progress callback"):
        tiledconv.filter_files(IMAGES[:1], tmp_path, progress=progress)
    assert tiledconv.read_image(IMAGES[0]).ndim == 3  # and after it, reads go on
