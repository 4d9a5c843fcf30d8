#!/bin/sh
# Runs what can run under AddressSanitizer + UBSan (built by `make sanitize` into DIR):
#   - the cmocka suites DIR/tests/test_bmp, test_cli and test_filters, when they exist (the suites
#     that run OpenCL kernels are not run here);
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

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tiledconv-san.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP

passed=0
failed=0

report_pattern() {
    grep -e 'ERROR: AddressSanitizer' -e 'ERROR: LeakSanitizer' -e 'runtime error:' \
        -e 'SUMMARY: .*Sanitizer' "$1"
}

for name in test_bmp test_cli test_filters; do
    suite=$dir/tests/$name
    if [ ! -x "$suite" ]; then
        echo "skip - $name: $suite not built"
        continue
    fi
    "$suite" >"$tmp/err" 2>&1
    rc=$?
    cat "$tmp/err"
    if report_pattern "$tmp/err" >/dev/null; then
        failed=$((failed + 1))
        echo "not ok - $name: sanitizer report: $(report_pattern "$tmp/err" | sed -n 1p)"
    elif [ "$rc" -ne 0 ]; then
        failed=$((failed + 1))
        echo "not ok - $name: exit status $rc"
    else
        passed=$((passed + 1))
        echo "ok - $name"
    fi
done

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
