#!/bin/sh
# tests/hooks.sh - the tests' hooks live in the test build only: the product tool reads no
# TILEDCONV_TEST_CORRUPT (a wrong pixel the tests inject for -e to catch) and carries none of
# the hooks' names, while the test build (build/test/tiledconv, make test-build) honours it.
#
# Usage: sh tests/hooks.sh PRODUCT TEST_BUILD   (from the project root).
# Prints "ok - ..." or "not ok - ..." per check and a summary line; exits 1 when any failed.
if [ $# -ne 2 ]; then
    echo "usage: sh tests/hooks.sh PRODUCT TEST_BUILD" >&2
    exit 2
fi
test_build=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
. "$(dirname "$0")/lib.sh"
test_begin hooks "$1"

name="the product ignores TILEDCONV_TEST_CORRUPT: -e passes"
TILEDCONV_TEST_CORRUPT=5,7 "$bin" -q -g 64x64 -e --no-output >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -ne 0 ]; then
    not_ok "$name" "exit status $rc: $(head -n 1 "$tmp/out")"
else
    ok "$name"
fi

name="the product names no hook (no TILEDCONV_TEST_ or TILEDCONV_CLEAN_EXIT in the binary)"
if grep -a -q -e TILEDCONV_TEST_ -e TILEDCONV_CLEAN_EXIT "$bin"; then
    not_ok "$name" "$(grep -a -o -e 'TILEDCONV_TEST_[A-Z_]*' -e TILEDCONV_CLEAN_EXIT "$bin" | head -n 1)"
else
    ok "$name"
fi

name="the product's library has no hook (no file_hooks symbol), the test build's has"
product_lib=$(ldd "$bin" | awk '/libtiledconv/ { print $3 }')
test_lib=$(ldd "$test_build" | awk '/libtiledconv/ { print $3 }')
if [ -z "$product_lib" ] || [ -z "$test_lib" ] || [ "$product_lib" = "$test_lib" ]; then
    not_ok "$name" "libraries: '$product_lib' and '$test_lib'"
elif nm -D "$product_lib" | grep -q -w file_hooks; then
    not_ok "$name" "$product_lib exports file_hooks"
elif ! nm -D "$test_lib" | grep -q -w file_hooks; then
    not_ok "$name" "$test_lib has no file_hooks: the check cannot see hooks"
else
    ok "$name"
fi

name="the test build honours TILEDCONV_TEST_CORRUPT: -e fails (exit 1)"
TILEDCONV_TEST_CORRUPT=5,7 "$test_build" -q -g 64x64 -e --no-output >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -ne 1 ]; then
    not_ok "$name" "exit status $rc, expected 1"
elif ! "$test_build" --version | grep -q 'a test build'; then
    not_ok "$name" "its --version does not say it is a test build"
else
    ok "$name"
fi

test_end
