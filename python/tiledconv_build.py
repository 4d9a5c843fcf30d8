"""The package's build backend (PEP 517): `pip install ./python` runs it.

It builds libtiledconv.so.1 with the project's own Makefile (`make lib` in the project root,
the folder above this one, into build/python/) and writes a wheel that carries it inside the
package, beside the Python files, where the package looks first. It needs nothing but the
standard library, so it works with build isolation and without (pip's --no-build-isolation,
--no-index) on any Python 3.8+; building needs make, a C compiler and the OpenCL headers.

The wheel's tag is py3-none-<platform>: pure Python over ctypes, with one native library for
this platform.
"""

import base64
import hashlib
import os
import re
import subprocess
import sys
import sysconfig
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
NAME = "tiledconv"
SONAME = "libtiledconv.so.1"


def _version():
    """The project's version, from pyproject.toml (one place to change it)."""
    with open(os.path.join(HERE, "pyproject.toml"), encoding="utf-8") as f:
        return re.search(r'^version\s*=\s*"([^"]+)"', f.read(), re.M).group(1)


def _metadata():
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    return "\n".join([
        "Metadata-Version: 2.1",
        f"Name: {NAME}",
        f"Version: {_version()}",
        "Summary: Separable image filtering on OpenCL devices (AMD's tiled convolution) from "
        "numpy",
        "Requires-Python: >=3.8",
        "Requires-Dist: numpy",
        "Classifier: Programming Language :: Python :: 3",
        "Classifier: Operating System :: POSIX :: Linux",
        "Classifier: Topic :: Scientific/Engineering :: Image Processing",
        "Description-Content-Type: text/markdown",
        "",
        readme,
    ])


def _tag():
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"py3-none-{platform}"


def _build_library():
    """libtiledconv.so.1 built by the project's Makefile; its path."""
    if not os.path.exists(os.path.join(ROOT, "Makefile")):
        raise RuntimeError(f"tiledconv: building needs the project around the package ("
                           f"{ROOT}/Makefile not found): run `pip install ./python` in a "
                           f"checkout of the project")
    out = os.path.join(ROOT, "build", "python")
    make = os.environ.get("MAKE", "make")
    jobs = str(max(1, min(os.cpu_count() or 1, 8)))
    cmd = [make, "-C", ROOT, "-j" + jobs, f"O={out}/obj", f"LIBOUT={out}/lib", "lib"]
    print("tiledconv: " + " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True, stdout=sys.stderr)
    path = os.path.join(out, "lib", SONAME)
    if not os.path.exists(path):
        raise RuntimeError(f"tiledconv: make did not produce {path}")
    return os.path.realpath(path)


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def _dist_info(directory):
    """The .dist-info folder's files: {name: bytes} (RECORD is added when the wheel is
    written)."""
    version = _version()
    return f"{NAME}-{version}.dist-info", {
        "METADATA": _metadata().encode(),
        "WHEEL": ("Wheel-Version: 1.0\nGenerator: tiledconv_build\nRoot-Is-Purelib: false\n"
                  f"Tag: {_tag()}\n").encode(),
        "top_level.txt": f"{NAME}\n".encode(),
    }


# ---- PEP 517 hooks -----------------------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    name, files = _dist_info(metadata_directory)
    os.makedirs(os.path.join(metadata_directory, name), exist_ok=True)
    for file, data in files.items():
        with open(os.path.join(metadata_directory, name, file), "wb") as f:
            f.write(data)
    return name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    library = _build_library()
    name, info = _dist_info(wheel_directory)
    wheel = f"{NAME}-{_version()}-{_tag()}.whl"
    entries = []
    package = os.path.join(HERE, NAME)
    for file in sorted(os.listdir(package)):
        if file.endswith(".py"):
            with open(os.path.join(package, file), "rb") as f:
                entries.append((f"{NAME}/{file}", f.read(), 0o644))
    with open(library, "rb") as f:
        entries.append((f"{NAME}/{SONAME}", f.read(), 0o755))
    entries += [(f"{name}/{file}", data, 0o644) for file, data in info.items()]
    record = [_record_line(arc, data) for arc, data, _ in entries] + [f"{name}/RECORD,,"]
    entries.append((f"{name}/RECORD", ("\n".join(record) + "\n").encode(), 0o644))
    os.makedirs(wheel_directory, exist_ok=True)
    path = os.path.join(wheel_directory, wheel)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data, mode in entries:
            entry = zipfile.ZipInfo(arc, date_time=(2020, 1, 1, 0, 0, 0))
            entry.external_attr = (0o100000 | mode) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(entry, data)
    return wheel


def build_sdist(sdist_directory, config_settings=None):
    raise RuntimeError("tiledconv: no source distribution; install from the project's checkout "
                       "with `pip install ./python`, which builds the C library with its "
                       "Makefile")


if __name__ == "__main__":  # python3 python/tiledconv_build.py DIR: a wheel into DIR, by hand
    print(build_wheel(sys.argv[1] if len(sys.argv) > 1 else "."))
