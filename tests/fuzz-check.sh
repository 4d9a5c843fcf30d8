#!/bin/sh
# Runs the BMP reader's libFuzzer harness for SECONDS (default 60), seeded with the whole BMP
# Suite, in a scratch corpus. libFuzzer exits non-zero on a crash, a sanitizer report, a leak
# or a timeout, and leaves the input that did it as crash-* in the working directory: that
# file becomes a regression test in tests/test_bmp.c.
# Usage: sh tests/fuzz-check.sh build/fuzz/fuzz_bmp [SECONDS]
set -u
fuzzer=$1
seconds=${2:-60}
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
log="$corpus/fuzz.log"
if "$fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
        "$corpus" tests/data/bmpsuite/g tests/data/bmpsuite/q tests/data/bmpsuite/b \
        tests/data/bmpsuite/x >"$log" 2>&1; then
    grep -E '^#[0-9]+.*DONE' "$log" | tail -1
    echo "fuzz: 1 passed, 0 failed"
else
    tail -40 "$log"
    echo "fuzz: 0 passed, 1 failed"
    exit 1
fi
