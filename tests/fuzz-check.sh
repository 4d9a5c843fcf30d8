#!/bin/sh
# Runs a libFuzzer harness for SECONDS (default 30) in a scratch corpus, seeded:
#   fuzz_bmp      with the whole BMP Suite;
#   fuzz_options  with the command lines below (words separated by NUL bytes) and the words of
#                 tests/fuzz_options.dict.
# The harnesses are built with -fno-sanitize-recover=all, and run here with halt_on_error, so
# that any sanitizer report (AddressSanitizer, LeakSanitizer, UBSan's "runtime error:") ends the
# run; a report found in the log fails the check even if the exit status were 0. libFuzzer
# leaves the input that did it as crash-* (or leak-*, timeout-*) in the working directory: that
# file becomes a regression test (tests/test_bmp.c, tests/test_options.c).
# FUZZ_CORPUS_DIR, when set, keeps the corpus in FUZZ_CORPUS_DIR/NAME (make fuzz's long runs).
# Usage: sh tests/fuzz-check.sh build/fuzz/fuzz_bmp|build/fuzz/fuzz_options [SECONDS]
# Prints the final libFuzzer line (executions, coverage) and "fuzz NAME: 1 passed, 0 failed".
set -u
fuzzer=$1
seconds=${2:-30}
name=$(basename "$fuzzer")
here=$(cd "$(dirname "$0")" && pwd)
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
log="$corpus/fuzz.log"
mkdir "$corpus/run" "$corpus/seeds"
# FUZZ_CORPUS_DIR (make fuzz): the corpus kept in FUZZ_CORPUS_DIR/NAME from run to run.
run_dir=$corpus/run
if [ -n "${FUZZ_CORPUS_DIR:-}" ]; then
    run_dir=$FUZZ_CORPUS_DIR/$name
    mkdir -p "$run_dir"
fi

case $name in
    fuzz_options)
        # Command lines of every kind the tool takes, good and bad.
        i=0
        while IFS= read -r line; do
            i=$((i + 1))
            printf '%s' "$line" | tr ' ' '\000' >"$corpus/seeds/$i"
        done <<'EOF_SEEDS'
-s images/TiledConv_Input512x512.bmp -e -t -i 10 -sL 3 -sT 3 -tL 2 -tT 2
-sL3 -sT3 -tL2 -tT2 -W100 -H80 -e
-g 8192x8192 -a all -t -i 50 --no-output
-s in.bmp --filter gauss -f 9 -o blurred.bmp
-s in.bmp --filter gauss --sigma 1e-200
-g 16x16 -c 1e19,1e19,1e19 -e
-g 16x16 --cx 1,2,3 --cy -1,0,1 --border constant=1e30
-s in.bmp --color --raw out.f32 --scale 0.25 --offset 128 -o out.bmp
-g 64x64 --max-pixels 16384x16384 --allow-high-ratio --force -o x.bmp
-g 64x64 --block 8x2 --scalar-io --device cpu -p 0 -d 0 --json
-s  -o
--source-left=3 --target-top=4 --width 5 --height 6 --csv -q -v
EOF_SEEDS
        dict="-dict=$here/fuzz_options.dict"
        seeds="$corpus/seeds"
        ;;
    *)
        dict=
        seeds="tests/data/bmpsuite/g tests/data/bmpsuite/q tests/data/bmpsuite/b tests/data/bmpsuite/x"
        ;;
esac

# shellcheck disable=SC2086  # the seed folders and the dictionary are meant to split
ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    $dict "$run_dir" $seeds >"$log" 2>&1
rc=$?
reports=$(grep -c -e 'ERROR: AddressSanitizer' -e 'ERROR: LeakSanitizer' -e 'runtime error:' \
    -e 'ERROR: libFuzzer' -e 'SUMMARY: ' "$log")
if [ "$rc" -eq 0 ] && [ "$reports" -eq 0 ]; then
    grep -E '^#[0-9]+.*DONE' "$log" | tail -1
    grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$log"
    echo "fuzz $name: 1 passed, 0 failed"
else
    tail -40 "$log"
    echo "fuzz $name: 0 passed, 1 failed (exit status $rc, $reports report lines)"
    exit 1
fi
