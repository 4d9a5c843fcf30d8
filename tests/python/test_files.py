"""tiledconv.filter_files and filter_file (tc_filter_files): the command line's run of files from
Python, with the tool's bytes, each file's failure in its result, progress, refusals."""
import os
import stat
import subprocess
from pathlib import Path

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
