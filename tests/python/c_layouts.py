"""The ctypes mirrors against the C compiler's view of include/tiledconv.h: a C program that
prints each struct's size and each named field's offset and size, compiled and run (the
project's tests run after `make`, so a C compiler is there)."""
import ctypes
import keyword
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The program's two macros: F(T, f) prints "T f OFFSET SIZE", S(T) "T sizeof SIZE SIZE".
PRELUDE = r"""
#include <stdio.h>
#include <stddef.h>
#include <tiledconv.h>
#define F(T, f) printf(#T " " #f " %zu %zu\n", offsetof(T, f), sizeof(((T *)0)->f));
#define S(T) printf(#T " sizeof %zu %zu\n", sizeof(T), sizeof(T));
"""


def assert_layouts_match(tmp_path, body, structs):
    """body: main()'s S and F lines; structs: C name -> ctypes class. Every field the program
    names has the class's offset and size (a Python keyword as a field name carries a trailing
    underscore), each struct its size, and the program names every field of each class."""
    # Not a sanitizer preloaded into this interpreter (tests/run-sanitized.sh): it would be the
    # compiler's too. Nor what steers the library search.
    env = {k: v for k, v in os.environ.items()
           if k not in ("TILEDCONV_LIBRARY", "PYTHONPATH", "LD_PRELOAD")}
    (tmp_path / "layout.c").write_text(PRELUDE + "int main(void) {\n" + body +
                                       "\n    return 0;\n}\n")
    subprocess.run([os.environ.get("CC", "cc"), "-std=c11", "-I", str(ROOT / "include"), "-o",
                    str(tmp_path / "layout"), str(tmp_path / "layout.c")], check=True, env=env)
    lines = subprocess.run([str(tmp_path / "layout")], check=True, capture_output=True,
                           text=True, env=env).stdout.split("\n")
    seen = {name: set() for name in structs}
    for line in filter(None, lines):
        struct, field, offset, size = line.split()
        cls = structs[struct]
        if field == "sizeof":
            assert ctypes.sizeof(cls) == int(size), struct
            continue
        name = field + "_" if keyword.iskeyword(field) else field
        py = getattr(cls, name)
        assert (py.offset, py.size) == (int(offset), int(size)), f"{struct}.{field}"
        seen[struct].add(name)
    for name, cls in structs.items():
        assert seen[name] == {f[0] for f in cls._fields_}, name
