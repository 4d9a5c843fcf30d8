#!/bin/sh
# The JPEG decoder's kernels (src/JpegDecode.cl: jpeg_idct, jpeg_color) under oclgrind, which
# reports out-of-bounds accesses, data races and reads of uninitialised memory, as
# tests/kernel-check.sh does for the filters: the unit suite test_jpeg_device with a few small
# cases of each kind (TEST_JPEG_SMALL=1: every sampling, the narrow chromas, qualities,
# codings, the photograph once, the CPU-only cases), its planes compared with TurboJPEG's. It
# fails on any report (anything on stderr but cmocka's own "[ ... ]" lines), a failed
# comparison or a non-zero exit status.
# About a minute on one core.
# Usage: sh tests/jpeg-kernel-check.sh build/obj/tests/test_jpeg_device
set -u
bin=${1:-build/obj/tests/test_jpeg_device}
command -v oclgrind >/dev/null 2>&1 || { echo "jpeg kernel-check: oclgrind is not installed" >&2; exit 1; }
err=$(mktemp)
trap 'rm -f "$err"' EXIT
if TEST_JPEG_SMALL=1 oclgrind --data-races --uninitialized "$bin" >/dev/null 2>"$err" &&
   ! grep -qv '^\[' "$err"; then
    echo "jpeg kernel-check: 1 passed, 0 failed"
    exit 0
fi
echo "not ok - oclgrind $bin (TEST_JPEG_SMALL=1)"
sed 's/^/    /' "$err" | head -30
echo "jpeg kernel-check: 0 passed, 1 failed"
exit 1
