#!/bin/sh
# The JPEG encode kernel (src/JpegEncode.cl: jpeg_encode_blocks) under oclgrind, which reports
# out-of-bounds accesses, data races, reads of uninitialised memory and reads of write-only
# buffers, as tests/kernel-check.sh does for the filters. The kernel has no path through the
# tool yet, so its own suite runs it: the cases of every sampling and size from 1 x 1 to
# 17 x 9 (each file byte for byte jpeg_encode's), the coefficients against libjpeg's, the
# TJ_* switches and the refusals. A case fails on a non-zero exit status or on anything said
# but cmocka's own bracketed lines (oclgrind's reports, a failed comparison). Under 20 s.
# Usage: sh tests/jpeg-encode-kernel-check.sh build/obj/tests/test_jpeg_encode_device
set -u
bin=${1:-build/obj/tests/test_jpeg_encode_device}
. "$(dirname "$0")/lib.sh"
oclgrind_begin "jpeg encode kernel-check"

for t in test_coefficients_match_libjpeg test_small_sizes test_environment_switches \
         test_refusals; do
    if JPEG_ENCODE_TESTS=$t oclgrind --data-races --uninitialized "$bin" >"$log" 2>&1 &&
       ! grep -v '^\[' "$log" | grep -q .; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "not ok - $t: JPEG_ENCODE_TESTS=$t oclgrind $bin"
        sed 's/^/    /' "$log" | head -30
    fi
done

echo "jpeg encode kernel-check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
