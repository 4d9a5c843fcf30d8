# tests/lib.sh - what every end-to-end script of tests/ begins and ends with, sourced:
#
#   . "$(dirname "$0")/lib.sh"
#   test_begin NAME "$@"     # the one argument BINARY (made absolute as $bin), $root the
#                            # repository root (the working directory), $tmp a scratch folder
#                            # removed on exit, the counters ok and not_ok add to
#   ...
#   test_end                 # "NAME: N passed, M failed"; the status fails when any failed

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
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/tiledconv-$test_name.XXXXXX") || exit 1
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

test_end() {
    echo "$test_name: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
