#!/bin/sh
# Runs the libFuzzer harnesses of the readers no format harness reaches, for SECONDS each:
#   fuzz_source  the tool's input reader (tests/fuzz_source.c): seeded with the PNG, JPEG,
#                PGM/PPM and BMP fixtures behind each way in (a first byte of 0..5: a file,
#                standard input, a FIFO, the whole-input calls, a device, a file that shrinks)
#                and tests/fuzz-seeds/source/;
#   fuzz_stream  the stream scanner (tests/fuzz_stream.c): the fixtures as they are, and
#                tests/fuzz-seeds/stream/;
#   fuzz_list    the --files-from list reader (tests/fuzz_list.c): tests/fuzz-seeds/list/.
# UBSan reports abort (-fno-sanitize-recover=all at build time) and ASan's are fatal, so any
# report, crash, leak, timeout or broken contract fails the run; libFuzzer leaves the input that
# did it as crash-*, leak-* or timeout-* in the working directory: that file becomes a seed in
# tests/fuzz-seeds/NAME/ and, where it shows a bug, a unit test.
# The corpora are scratch folders, unless FUZZ_CORPUS_DIR names a folder where each harness's
# corpus is kept (FUZZ_CORPUS_DIR/NAME) from one run to the next (make fuzz).
# Usage: sh tests/fuzz-readers.sh SECONDS FUZZER...   (build/fuzz/fuzz_source ...)
# Ends with "fuzz readers: N passed, M failed".
set -u
. "$(dirname "$0")/fuzz-lib.sh"
seconds=$1
shift
fixtures="tests/data/formats/g8.png tests/data/formats/rgb8i.png tests/data/formats/p4.png
tests/data/formats/base420.jpg tests/data/formats/prog420.jpg tests/data/formats/g15-text.pgm
tests/data/formats/rgb8.ppm tests/data/bmpsuite/g/pal8rle.bmp tests/data/bmpsuite/g/rgb24.bmp"
for fuzzer in "$@"; do
    name=$(basename "$fuzzer")
    fuzz_corpus "$name"
    # The seeds are copied in: libFuzzer writes what it finds into the first folder only.
    case $name in
        fuzz_source)
            for f in $fixtures; do
                for mode in 0 1 2 3 4 5; do
                    { printf "\\$(printf %03o "$mode")"; cat "$f"; } >"$corpus/seed-$mode-$(basename "$f")"
                done
            done
            cp tests/fuzz-seeds/source/* "$corpus"/
            ;;
        fuzz_stream)
            cp tests/data/formats/*.png tests/data/formats/*.jpg tests/data/formats/*.pgm \
                tests/data/formats/*.ppm tests/fuzz-seeds/stream/* "$corpus"/
            ;;
        fuzz_list) cp tests/fuzz-seeds/list/* "$corpus"/ ;;
        *) echo "fuzz-readers: unknown harness $fuzzer" >&2; exit 2 ;;
    esac
    # A sanitizer report in the log fails the run even if the status were 0.
    status=1
    if fuzz_run env ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1 \
            UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "$fuzzer" &&
        ! grep -q -e 'ERROR: AddressSanitizer' -e 'ERROR: LeakSanitizer' -e 'runtime error:' \
            -e 'ERROR: libFuzzer' "$log"; then
        status=0
    fi
    fuzz_count "$name" "$status"
done
echo "fuzz readers: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
