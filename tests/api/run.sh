#!/bin/sh
# The C API as a user meets it: `make install` into a scratch prefix, then tests/api/test_api.c
# built with nothing but the installed header and `pkg-config --cflags --libs tiledconv`, and
# run against the installed shared library.
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
# The installed library, not the build tree's: the run finds it through the prefix only.
LD_LIBRARY_PATH=$prefix/lib "$prefix/test_api"
# And uninstall leaves nothing of ours behind.
make -s uninstall PREFIX="$prefix" >/dev/null
left=$(find "$prefix" -type f ! -name test_api | head -5)
if [ -n "$left" ]; then
    echo "api: make uninstall left: $left"
    exit 1
fi
echo "api: 1 passed, 0 failed"
