# tests/fuzz-lib.sh - what tests/fuzz-formats.sh and tests/fuzz-readers.sh share, sourced: both
# run libFuzzer harnesses one after the other for $seconds each, counting into $passed and
# $failed (0 once this is sourced):
#
#   fuzz_corpus NAME                   # $corpus: the folder to seed
#   fuzz_run [env VAR=...] FUZZER      # the run, its output in $log; the harness's status
#   fuzz_count NAME STATUS             # counted and printed; the log and a scratch corpus removed

passed=0
failed=0

# FUZZ_CORPUS_DIR, when set (make fuzz), keeps each harness's corpus in FUZZ_CORPUS_DIR/NAME
# from run to run; else the corpus is a scratch folder.
fuzz_corpus() {
    if [ -n "${FUZZ_CORPUS_DIR:-}" ]; then
        corpus=$FUZZ_CORPUS_DIR/$1
        mkdir -p "$corpus"
    else
        corpus=$(mktemp -d)
    fi
}

# The same limits for every harness: a 10-second input is a hang, 1 GiB in one allocation or
# 2 GiB in all a leak or a blow-up.
fuzz_run() {
    log=$(mktemp)
    "$@" -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=1024 \
        -timeout=10 -print_final_stats=1 "$corpus" >"$log" 2>&1
}

# Passed: libFuzzer's last "DONE" line (executions, coverage); failed: the tail of the log.
fuzz_count() {
    if [ "$2" -eq 0 ]; then
        echo "$1: $(grep -E '^#[0-9]+.*DONE' "$log" | tail -1)"
        passed=$((passed + 1))
    else
        tail -40 "$log"
        echo "$1: FAILED"
        failed=$((failed + 1))
    fi
    rm -f "$log"
    if [ -z "${FUZZ_CORPUS_DIR:-}" ]; then
        rm -rf "$corpus"
    fi
}
