#!/bin/sh
# Runs each cmocka suite given on the command line, then prints one summary line.
# Exit status: 0 only when every suite ran and passed.
passed=0
failed=0
for suite in "$@"; do
    echo "== $suite"
    if "$suite"; then
        passed=$((passed + 1))
    else
        echo "FAILED: $suite" >&2
        failed=$((failed + 1))
    fi
done
echo "unit suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
