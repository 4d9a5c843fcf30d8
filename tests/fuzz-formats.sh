#!/bin/sh
# Runs the PNG, JPEG and PGM/PPM readers' libFuzzer harnesses (tests/fuzz_codec.c) and the
# row-by-row readers' (tests/fuzz_rows.c, every format against the whole decoders) for SECONDS
# each, seeded with tests/data/formats/ (and the BMP Suite for the rows), in scratch corpora.
# UBSan reports abort (-fno-sanitize-recover=all at build time) and ASan's are fatal, so any
# report, crash, leak, timeout or broken contract fails the run; libFuzzer leaves the input that
# did it as crash-*, leak-* or timeout-* in the working directory: that file becomes a
# regression test.
# FUZZ_CORPUS_DIR, when set, keeps each corpus in FUZZ_CORPUS_DIR/NAME (make fuzz's long runs).
# Usage: sh tests/fuzz-formats.sh SECONDS FUZZER...   (build/fuzz/fuzz_png ...)
# Ends with "fuzz formats: N passed, M failed".
set -u
. "$(dirname "$0")/fuzz-lib.sh"
seconds=$1
shift
for fuzzer in "$@"; do
    name=$(basename "$fuzzer")
    case $name in
        fuzz_png) seeds=$(ls tests/data/formats/*.png) ;;
        fuzz_jpeg) seeds=$(ls tests/data/formats/*.jpg) ;;
        fuzz_pnm) seeds=$(ls tests/data/formats/*.pgm tests/data/formats/*.ppm) ;;
        fuzz_rows) seeds=$(ls tests/data/formats/*.png tests/data/formats/*.jpg \
                             tests/data/formats/*.p?m tests/data/bmpsuite/g/*.bmp \
                             tests/data/bmpsuite/q/*.bmp) ;;
        *) echo "fuzz-formats: unknown harness $fuzzer" >&2; exit 2 ;;
    esac
    fuzz_corpus "$name"
    # The seeds are copied in: libFuzzer writes what it finds into the first folder only.
    # shellcheck disable=SC2086
    cp $seeds "$corpus"/
    fuzz_run "$fuzzer"
    fuzz_count "$name" $?
done
echo "fuzz formats: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
