#!/bin/sh
# The C API as a user meets it: `make install` into a scratch prefix, then tests/api/test_api.c,
# tests/api/test_limits.c and tests/api/test_files.c built with nothing but the installed header and
# `pkg-config --cflags --libs tiledconv`, and run against the installed shared library; the
# installed tool runs on the installed library, found from its own place.
#   sh tests/api/run.sh            (from the project root, after `make lib`)
set -eu
prefix=$(mktemp -d "${TMPDIR:-/tmp}/tiledconv-api.XXXXXX")
trap 'rm -rf "$prefix"' EXIT
make -s install PREFIX="$prefix" >/dev/null
PKG_CONFIG_PATH=$prefix/lib/pkgconfig
export PKG_CONFIG_PATH
flags=$(pkg-config --cflags --libs tiledconv)
echo "api: cc tests/api/test_api.c $flags"
${CC:-cc} -std=c11 -Wall -Wextra -pedantic -Werror -o "$prefix/test_api" tests/api/test_api.c \
    $flags -lm
# Every public function at the limits of its sizes and parameters (test_limits.c).
${CC:-cc} -std=c11 -Wall -Wextra -pedantic -Werror -o "$prefix/test_limits" \
    tests/api/test_limits.c $flags -lm
# The file layer's API (<tiledconv_files.h>), run from the project's root for its images.
${CC:-cc} -std=c11 -Wall -Wextra -pedantic -Werror -o "$prefix/test_files" tests/api/test_files.c \
    $flags -lm
# The installed library, not the build tree's: the run finds it through the prefix only.
LD_LIBRARY_PATH=$prefix/lib "$prefix/test_api"
if ! LD_LIBRARY_PATH=$prefix/lib "$prefix/test_files" >"$prefix/files.log"; then
    grep -v '^ok - ' "$prefix/files.log"
    exit 1
fi
tail -n 1 "$prefix/files.log"
# Its 300 checks print only when one fails (and the summary line).
if ! LD_LIBRARY_PATH=$prefix/lib "$prefix/test_limits" >"$prefix/limits.log"; then
    grep -v '^ok - ' "$prefix/limits.log"
    exit 1
fi
tail -n 1 "$prefix/limits.log"
# The installed tool links the installed library like any other program and finds it through
# its own place ($ORIGIN/../lib), with no LD_LIBRARY_PATH; the build tree's tool finds the
# build tree's (build/lib).
linked() {
    lib=$(env -u LD_LIBRARY_PATH ldd "$1" | awk '$1 == "libtiledconv.so.1" { print $3 }')
    [ -n "$lib" ] && realpath "$lib"
}
if ! env -u LD_LIBRARY_PATH "$prefix/bin/tiledconv" --version >/dev/null; then
    echo "api: the installed tiledconv does not run from $prefix/bin"
    exit 1
fi
want=$(realpath "$prefix/lib/libtiledconv.so.1")
if [ "$(linked "$prefix/bin/tiledconv")" != "$want" ]; then
    echo "api: the installed tiledconv links $(linked "$prefix/bin/tiledconv"), not $want"
    exit 1
fi
if [ -x ./tiledconv ] && [ "$(linked ./tiledconv)" != "$(realpath build/lib/libtiledconv.so.1)" ]; then
    echo "api: ./tiledconv links $(linked ./tiledconv), not build/lib/libtiledconv.so.1"
    exit 1
fi
# And uninstall leaves nothing of ours behind.
make -s uninstall PREFIX="$prefix" >/dev/null
left=$(find "$prefix" -type f ! -name test_api ! -name test_limits ! -name limits.log \
    ! -name test_files ! -name files.log | head -5)
if [ -n "$left" ]; then
    echo "api: make uninstall left: $left"
    exit 1
fi
echo "api: 5 passed, 0 failed"
