#!/bin/sh
# Runs what can run under AddressSanitizer + UBSan (built by `make sanitize` into DIR):
#   - the cmocka suites that need no OpenCL device (the BMP codec and the other codecs,
#     options, filters, image conversions, outputs, the reference and the check), when they
#     exist;
#   - tests/api/test_api.c built with the sanitizers against DIR/lib/libtiledconv.so: the C API
#     on the CPU device, under LeakSanitizer (no leak of ours);
#   - the Python tests (tests/python) with the sanitized library preloaded into Debian's
#     python3: every library call they make under ASan and LSan (tests/lsan-python.supp);
#   - the device's JPEG path of DIR/tiledconv on the kinds of bench/make_mixed.py's folder;
#   - the bad-input table of tests/e2e.sh against DIR/tiledconv.
# Any sanitizer report ("ERROR: AddressSanitizer", "runtime error:", ...) fails its case.
# Leaks inside the OpenCL ICD loader, PoCL and LLVM are suppressed (tests/lsan.supp).
#
#   sh tests/run-sanitized.sh build/asan
# Ends with "sanitized: N passed, M failed"; exit status 0 only when M is 0.

if [ $# -ne 1 ]; then
    echo "usage: sh tests/run-sanitized.sh DIR" >&2
    exit 2
fi
dir=$1
here=$(cd "$(dirname "$0")" && pwd)

ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
LSAN_OPTIONS=suppressions=$here/lsan.supp:print_suppressions=0
UBSAN_OPTIONS=print_stacktrace=1
export ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS

. "$here/lib.sh"
scratch_begin san

report_pattern() {
    grep -e 'ERROR: AddressSanitizer' -e 'ERROR: LeakSanitizer' -e 'runtime error:' \
        -e 'SUMMARY: .*Sanitizer' "$1"
}

# judge NAME RC [WHAT]: counts one case from its exit status and the log in $tmp/err, which it
# prints first; a sanitizer report fails the case whatever the status.
judge() {
    cat "$tmp/err"
    if report_pattern "$tmp/err" >/dev/null; then
        failed=$((failed + 1))
        echo "not ok - $1: sanitizer report: $(report_pattern "$tmp/err" | sed -n 1p)"
    elif [ "$2" -ne 0 ]; then
        failed=$((failed + 1))
        echo "not ok - $1: exit status $2"
    else
        passed=$((passed + 1))
        echo "ok - $1${3:+ ($3)}"
    fi
}

for name in test_bmp test_options test_filter test_image test_outputs test_reference test_verify \
    test_text test_codec test_png test_jpeg test_pnm test_source test_name_list test_stream_bounds \
    test_rows test_bytes; do
    suite=$dir/tests/$name
    if [ ! -x "$suite" ]; then
        echo "skip - $name: $suite not built"
        continue
    fi
    "$suite" >"$tmp/err" 2>&1
    judge "$name" $?
done

# The C API under the sanitizers: the same program tests/api/run.sh builds against an install,
# here against the sanitized shared library of the build tree.
if [ -f "$dir/lib/libtiledconv.so" ]; then
    ${CC:-cc} -std=c11 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
        -Iinclude -o "$tmp/test_api" tests/api/test_api.c -L"$dir/lib" -ltiledconv -lm \
        >"$tmp/err" 2>&1 && LD_LIBRARY_PATH=$dir/lib "$tmp/test_api" >>"$tmp/err" 2>&1
    judge test_api $? "the C API under ASan, UBSan and LSan"
    # Every public function at its limits: a signed overflow or wild access stops it.
    ${CC:-cc} -std=c11 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
        -Iinclude -o "$tmp/test_limits" tests/api/test_limits.c -L"$dir/lib" -ltiledconv -lm \
        >"$tmp/err" 2>&1 && LD_LIBRARY_PATH=$dir/lib "$tmp/test_limits" >>"$tmp/err" 2>&1
    judge test_limits $? "every public function at 0, -1, INT_MAX and mixed extremes"
else
    failed=$((failed + 1))
    echo "not ok - $dir/lib/libtiledconv.so: not built"
fi

# The Python tests' library calls. The resident-memory test is left to the normal run: ASan's
# allocator keeps freed memory on purpose. LeakSanitizer's own stop-the-world tracer has been
# seen to crash (signal 11 in the tracer, not in our code) on PoCL's threads at exit; such a run
# is repeated once, and a second crash fails the case.
py=${PYTHON:-/usr/bin/python3}
libasan=$(${CC:-cc} -print-file-name=libasan.so)
if [ -f "$dir/lib/libtiledconv.so.1" ] && "$py" -c 'import numpy, pytest' 2>/dev/null; then
    # PoCL links a kernel it has not cached by running the system linker, which inherits
    # LD_PRELOAD and, with leak detection on, fails on the linker's own leaks (PoCL then
    # aborts). A first run with leak detection off fills PoCL's kernel cache (a run without
    # the sanitized library does not: its cache entries are not the same).
    LD_PRELOAD=$libasan ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 \
    PYTHONPATH=python TILEDCONV_LIBRARY=$(pwd)/$dir/lib/libtiledconv.so.1 \
        "$py" -m pytest -q -p no:cacheprovider tests/python -k 'not test_no_leaks' >/dev/null 2>&1
    for attempt in 1 2; do
        LD_PRELOAD=$libasan \
        ASAN_OPTIONS=detect_leaks=1:verify_asan_link_order=0:malloc_context_size=3 \
        LSAN_OPTIONS=suppressions=$here/lsan-python.supp:print_suppressions=0 \
        PYTHONPATH=python TILEDCONV_LIBRARY=$(pwd)/$dir/lib/libtiledconv.so.1 \
            "$py" -m pytest -q -p no:cacheprovider tests/python -k 'not test_no_leaks' \
            >"$tmp/err" 2>&1
        rc=$?
        grep -q 'LeakSanitizer has encountered a fatal error' "$tmp/err" || break
    done
    judge "python tests" "$rc" "the library's calls under ASan, UBSan and LSan"
else
    failed=$((failed + 1))
    echo "not ok - python tests under ASan: $dir/lib/libtiledconv.so.1 or numpy/pytest missing"
fi

# The device's JPEG path (--tune jpeg-device=1): coefficient blocks, two images in flight,
# the lane's fallback and the device's encoder from pixels, on one picture of each kind of the
# mixed folder, gray and colour, with the contexts closed before the exit so that LeakSanitizer
# sees what they held.
if [ -x "$dir/tiledconv" ] &&
    "$py" "$here/../bench/make_mixed.py" --out "$tmp/mixed" --each 1 --scale 0.1 --threads 2 \
        --images "$here/../images" >/dev/null 2>&1; then
    : >"$tmp/err"
    rc=0
    for args in "--color" "" "--color -f 31"; do
        for inexact in "" 1; do
            rm -rf "$tmp/jpeg-out"
            # shellcheck disable=SC2086 # the arguments are words
            env TILEDCONV_CLEAN_EXIT=1 ${inexact:+TILEDCONV_TEST_JPEG_INEXACT=1} \
                "$dir/tiledconv" -q $args --tune jpeg-device=1 --format jpeg \
                -O "$tmp/jpeg-out" "$tmp/mixed"/* >>"$tmp/err" 2>&1 || rc=$?
        done
    done
    [ -z "$(ls "$tmp/jpeg-out")" ] && rc=1
    judge "the device's JPEG path" "$rc" "11 kinds, gray and colour, 5 and 31 taps, the fallback"
else
    failed=$((failed + 1))
    echo "not ok - the device's JPEG path under ASan: no tool or no mixed folder"
fi

if [ -x "$dir/tiledconv" ]; then
    sh "$here/e2e.sh" --bad-inputs-only "$dir/tiledconv" >"$tmp/e2e" 2>&1
    rc=$?
    cat "$tmp/e2e"
    n_ok=$(grep -c '^ok - ' "$tmp/e2e")
    n_bad=$(grep -c '^not ok - ' "$tmp/e2e")
    passed=$((passed + n_ok))
    failed=$((failed + n_bad))
    if [ "$rc" -ne 0 ] && [ "$n_bad" -eq 0 ]; then
        failed=$((failed + 1))
        echo "not ok - e2e.sh --bad-inputs-only: exit status $rc with no failed case"
    elif [ "$n_ok" -eq 0 ] && [ "$n_bad" -eq 0 ]; then
        failed=$((failed + 1))
        echo "not ok - e2e.sh --bad-inputs-only: ran no case"
    fi
else
    failed=$((failed + 1))
    echo "not ok - $dir/tiledconv: not built"
fi

echo "sanitized: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
