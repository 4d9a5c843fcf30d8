"""`pip install ./python` as a new user runs it: a fresh virtual environment, no network (pip's
--no-index, with and without build isolation: the build backend needs nothing but the standard
library), the wheel building libtiledconv.so.1 with the project's Makefile and carrying it;
then `import tiledconv` from another folder, with no environment variable, finds the library
in the package's own folder and filters a uint8 photo.

The environment sees the system's site-packages for numpy only (the offline install cannot
fetch it). Each install is bounded in time.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Building the library from scratch on a 2-core machine takes about a minute.
INSTALL_SECONDS = 600

SCRIPT = """
import os, sys
import numpy as np
import tiledconv
assert "TILEDCONV_LIBRARY" not in os.environ
here = os.path.dirname(os.path.abspath(tiledconv.__file__))
assert tiledconv._native.path == os.path.join(here, "libtiledconv.so.1"), tiledconv._native.path
photo = np.random.default_rng(3).integers(0, 256, (48, 64, 3), dtype=np.uint8)
out = tiledconv.filter(photo, kx=tiledconv.named_filter("gauss", 5)[0])
assert out.dtype == np.uint8 and out.shape == photo.shape
print("filtered", out.shape, tiledconv.__version__)
"""


def environment(tmp_path, name):
    """A fresh virtual environment (made by a clean interpreter: venv's ensurepip runs one)."""
    env_dir = tmp_path / name
    done = subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(env_dir)],
                          env=clean_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return env_dir / "bin" / "python"


def clean_env():
    # Nothing of the test run's own set-up: not its library, nor a sanitizer preloaded into
    # this interpreter (tests/run-sanitized.sh), which would follow pip into make and the
    # compiler.
    env = {k: v for k, v in os.environ.items()
           if k not in ("TILEDCONV_LIBRARY", "PYTHONPATH", "LD_LIBRARY_PATH", "PIP_INDEX_URL",
                        "LD_PRELOAD", "ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


@pytest.mark.parametrize("isolation", [False, True], ids=["no-build-isolation", "isolated"])
def test_pip_install_in_a_fresh_venv(tmp_path, isolation):
    python = environment(tmp_path, "venv")
    cmd = [str(python), "-m", "pip", "install", "--no-index", "--quiet", str(ROOT / "python")]
    if not isolation:
        cmd.insert(4, "--no-build-isolation")
    done = subprocess.run(cmd, cwd=tmp_path, env=clean_env(), capture_output=True, text=True,
                          timeout=INSTALL_SECONDS)
    assert done.returncode == 0, done.stdout + done.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = subprocess.run([str(python), "-c", SCRIPT], cwd=elsewhere, env=clean_env(),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "filtered (48, 64, 3)" in run.stdout
    # The wheel carried the library: the package's folder holds it, not a link to the tree.
    lib = next((tmp_path / "venv").glob("lib/python3*/site-packages/tiledconv/"
                                        "libtiledconv.so.1"))
    assert lib.is_file() and not lib.is_symlink()
