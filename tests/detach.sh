#!/bin/sh
# tests/detach.sh - a run that opens a device goes on in a child (cli/detach.h): the process
# the shell started ends with the child's status once the outputs are in place. The statuses,
# the output on a pipe and the signals are the same as one process's; a child killed outright
# takes its waiter to the same end, a waiter killed outright takes its child with it.
#
#   sh tests/detach.sh BINARY      (a test build: its TILEDCONV_TEST_CORRUPT hook fails -e)
. "$(dirname "$0")/lib.sh"
test_begin detach "$@"

# The run's child (a tiledconv whose parent is $1), polled for up to 10 s: its pid, or empty.
child_of() {
    tries=0
    while [ "$tries" -lt 1000 ]; do
        c=$(pgrep -P "$1" -x tiledconv | head -n 1)
        [ -n "$c" ] && { echo "$c"; return; }
        kill -0 "$1" 2>/dev/null || return
        sleep 0.01
        tries=$((tries + 1))
    done
}

# Whether process $1 is gone within 10 s.
gone() {
    tries=0
    while kill -0 "$1" 2>/dev/null; do
        [ "$tries" -ge 1000 ] && return 1
        sleep 0.01
        tries=$((tries + 1))
    done
    return 0
}

"$bin" -g 256x256 -o "$tmp/in.bmp" -q || { echo "detach: cannot make the input" >&2; exit 1; }
# A run long enough to be caught midway on any device: 8192 x 8192 written to a file.
long="-g 8192x8192 -o $tmp/long/out.bmp -q"
mkdir -p "$tmp/long"

# The long run's folder emptied, for a check of what a run leaves in it.
fresh_long() {
    rm -rf "$tmp/long" && mkdir -p "$tmp/long"
}

# The long run started in the background: $waiter, the process the shell started, and
# $child, the child it runs in (empty where none was found).
start_long() {
    # shellcheck disable=SC2086
    "$bin" $long &
    waiter=$!
    child=$(child_of "$waiter")
}

# The waiter killed outright: its child must end too (bad says where not).
kill_waiter() {
    if [ -z "$child" ]; then
        bad="no child of $waiter found"
    else
        kill -KILL "$waiter"
        wait "$waiter"
        gone "$child" || bad="child $child still running 10 s after its waiter was killed"
    fi
}

# What the long run left in its folder besides the output file.
leftovers() {
    ls -A "$tmp/long" | grep -v '^out\.bmp$'
}

# 1. The statuses and the lines on stderr, with and without the child.
bad=
for way in "" "--tune detach=0"; do
    # shellcheck disable=SC2086
    "$bin" $way -s "$tmp/in.bmp" -o "$tmp/out.bmp" -q 2>"$tmp/err0"
    rc0=$?
    # shellcheck disable=SC2086
    "$bin" $way -s "$tmp/missing.bmp" -o "$tmp/out2.bmp" -q 2>"$tmp/err2"
    rc2=$?
    # shellcheck disable=SC2086
    TILEDCONV_TEST_CORRUPT=100,100,5 "$bin" $way -s "$tmp/in.bmp" -o "$tmp/out3.bmp" -e -q \
        >/dev/null 2>"$tmp/err1"
    rc1=$?
    [ "$rc0" -eq 0 ] && [ ! -s "$tmp/err0" ] || bad="$bad [$way] a good run: exit $rc0;"
    [ "$rc2" -eq 2 ] && [ "$(wc -l <"$tmp/err2")" -eq 1 ] ||
        bad="$bad [$way] a missing input: exit $rc2, $(wc -l <"$tmp/err2") lines;"
    [ "$rc1" -eq 1 ] || bad="$bad [$way] a failed -e: exit $rc1;"
    cat "$tmp/err2" "$tmp/err1" >"$tmp/said$way"
done
cmp -s "$tmp/said" "$tmp/said--tune detach=0" || bad="$bad the lines differ;"
verdict "the statuses (0, 2 with one line, 1 for a failed -e) and stderr are one process's"

# 2. The image on a pipe: the same bytes, and the reader sees their end.
bad=
a=$("$bin" -s "$tmp/in.bmp" -o - -q | cksum)
b=$("$bin" --tune detach=0 -s "$tmp/in.bmp" -o - -q | cksum)
[ "$a" = "$b" ] && [ "$a" = "$("$bin" -s "$tmp/in.bmp" -o - -q | cat | cksum)" ] ||
    bad="with a child $a, without $b"
verdict "-o - through a pipe: the same bytes with and without the child"

# 3. The child killed outright: the waiter ends by SIGKILL too (status 137).
bad=
start_long
if [ -z "$child" ]; then
    bad="no child of $waiter found"
else
    kill -KILL "$child"
fi
wait "$waiter"
rc=$?
[ -n "$bad" ] || [ "$rc" -eq 137 ] || bad="the waiter's status $rc"
verdict "a child killed with SIGKILL: the waiter's status is 137"

# 4. SIGTERM to the waiter: handed on; 143, the child gone, no temporary left.
bad=
fresh_long
start_long
[ -n "$child" ] || bad="no child of $waiter found;"
kill -TERM "$waiter"
wait "$waiter"
rc=$?
[ "$rc" -eq 143 ] || [ "$rc" -eq 0 ] || bad="$bad the waiter's status $rc;"
[ -z "$child" ] || gone "$child" || bad="$bad child $child still running after 10 s;"
left=$(leftovers)
[ -z "$left" ] || bad="$bad left: $left;"
verdict "SIGTERM to the waiter: handed on, status 143, the child gone, nothing left"

# 5. The waiter killed outright: the child ends too, outright (its death signal is SIGKILL;
# an unnamed temporary file leaves nothing).
bad=
fresh_long
start_long
kill_waiter
left=$(leftovers)
[ -z "$left" ] || bad="$bad; left: $left"
verdict "the waiter killed with SIGKILL: the child ends too, nothing left"

# 5b. The same with SIGTERM ignored, which the child inherits: it must still end with its
# waiter, and write nothing after the caller saw 137 (it went on for 28 s and wrote every
# output while its death signal was SIGTERM).
bad=
fresh_long
# shellcheck disable=SC2086
(trap '' TERM && exec "$bin" $long) &
waiter=$!
child=$(child_of "$waiter")
kill_waiter
sleep 0.2
left=$(ls -A "$tmp/long")
[ -z "$left" ] || bad="$bad; left: $left"
verdict "SIGTERM ignored, the waiter killed with SIGKILL: the child ends too, nothing written"

# 6. --tune detach=0: one process, no child.
bad=
fresh_long
# shellcheck disable=SC2086
"$bin" --tune detach=0 $long &
waiter=$!
sleep 0.3
c=$(pgrep -P "$waiter" -x tiledconv)
[ -z "$c" ] || bad="a child $c"
kill -0 "$waiter" 2>/dev/null || bad="$bad; the run ended before the check (no proof)"
wait "$waiter" || bad="$bad; status $?"
verdict "--tune detach=0 runs in one process"

test_end
