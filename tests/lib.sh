# tests/lib.sh - what every end-to-end script of tests/ begins and ends with, sourced:
#
#   . "$(dirname "$0")/lib.sh"
#   test_begin NAME "$@"     # the one argument BINARY (made absolute as $bin), $root the
#                            # repository root (the working directory), $tmp a scratch folder
#                            # removed on exit, the counters ok and not_ok add to
#   ...
#   test_end                 # "NAME: N passed, M failed"; the status fails when any failed
#
# The kernel checks (tests/kernel-check.sh, tests/gradient-kernel-check.sh) run the tool under
# oclgrind instead, and count with oclgrind_begin and oclgrind_case.

test_begin() {
    test_name=$1
    shift
    if [ $# -ne 1 ]; then
        echo "usage: sh tests/$test_name.sh BINARY" >&2
        exit 2
    fi
    root=$(pwd)
    case "$1" in
        /*) bin=$1 ;;
        *) bin=$root/$1 ;;
    esac
    scratch_begin "$test_name"
}

# scratch_begin NAME: $tmp, a scratch folder removed on exit (or on a signal), and the counters
# at 0 (test_begin's, and tests/run-sanitized.sh's, which takes a folder, not a binary).
scratch_begin() {
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/tiledconv-$1.XXXXXX") || exit 1
    trap 'rm -rf "$tmp"' EXIT
    trap 'exit 130' INT TERM HUP
    passed=0
    failed=0
}

ok() {
    passed=$((passed + 1))
    echo "ok - $1"
}

not_ok() {
    failed=$((failed + 1))
    echo "not ok - $1: $2"
}

# verdict OK-NAME [FAILED-NAME]: one case from what a check gathered in $bad: ok OK-NAME when
# it is empty, else not_ok FAILED-NAME (OK-NAME when not given) with $bad.
verdict() {
    if [ -z "$bad" ]; then
        ok "$1"
    else
        not_ok "${2:-$1}" "$bad"
    fi
}

# cases_verdict N OK-NAME FAILED-NAME: verdict, where the loop must also have run N cases
# ($cases), so that a loop that ran short cannot pass.
cases_verdict() {
    if [ -z "$bad" ] && [ "$cases" -eq "$1" ]; then
        ok "$2"
    else
        not_ok "$3 ($cases cases)" "$bad"
    fi
}

test_end() {
    echo "$test_name: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}

# oclgrind_begin NAME: exits when oclgrind is missing; $log a scratch file (it and $log.* are
# removed on exit), the counters oclgrind_case adds to.
oclgrind_begin() {
    command -v oclgrind >/dev/null 2>&1 || { echo "$1: oclgrind is not installed" >&2; exit 1; }
    log=$(mktemp)
    trap 'rm -f "$log" "$log".*' EXIT
    passed=0
    failed=0
}

# oclgrind_case PASSES LABEL ARGS...: one run of "$bin" ARGS -e under oclgrind, which reports
# out-of-bounds accesses, data races and reads of uninitialised memory. It passes when the run
# exits 0 and says nothing but its PASSES "PASSED" lines (one a method -e checked); else the
# command and the head of what it said are printed.
oclgrind_case() {
    passes=$1 label=$2
    shift 2
    if oclgrind --data-races --uninitialized "$bin" "$@" -e -q --no-output >"$log" 2>&1 &&
       [ "$(grep -c PASSED "$log")" -eq "$passes" ] && ! grep -qv PASSED "$log"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "not ok - $label: oclgrind $bin $* -e"
        sed 's/^/    /' "$log" | head -30
    fi
}
