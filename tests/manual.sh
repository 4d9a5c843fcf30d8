#!/bin/sh
# tests/manual.sh - the manual is what the option table makes: docs/manual.md and tiledconv.1
# are what scripts/manual.c makes of src/files/option_table.c and cli/manual_source.md (edit those
# and run `make manual`), the man page renders without warnings, and the generator refuses a
# source that misses an option of the table or describes one the table does not have.
#
# Usage: sh tests/manual.sh build/obj/scripts/manual VERSION   (from the project root).
# Prints "ok - ..." or "not ok - ..." per check and a summary line; exits 1 when any failed.
gen=$1
version=$2
. "$(dirname "$0")/lib.sh"
test_begin manual "$gen"
gen=$bin

"$gen" cli/manual_source.md "$version" "$tmp/manual.md" "$tmp/tiledconv.1" 2>"$tmp/err"
for f in docs/manual.md tiledconv.1; do
    name="$f is what the option table and cli/manual_source.md make (make manual)"
    if [ ! -s "$tmp/$(basename "$f")" ]; then
        not_ok "$name" "the generator made nothing: $(head -n 1 "$tmp/err")"
    elif ! cmp -s "$tmp/$(basename "$f")" "$f"; then
        not_ok "$name" "it differs: $(diff "$f" "$tmp/$(basename "$f")" | sed -n 2p)"
    else
        ok "$name"
    fi
done

name="tiledconv.1 renders without warnings (groff -man -ww)"
if ! command -v groff >/dev/null 2>&1; then
    ok "$name # SKIP groff is not installed"
elif ! groff -man -Tutf8 -ww -z tiledconv.1 >"$tmp/groff.out" 2>&1 || [ -s "$tmp/groff.out" ]; then
    not_ok "$name" "$(head -n 1 "$tmp/groff.out")"
else
    ok "$name"
fi

# A source without the description of --depth, and one that describes --bogus.
sed '/^## option depth$/,/^## option quality$/{/^## option quality$/!d}' cli/manual_source.md \
    >"$tmp/missing.md"
printf '\n## option bogus\n\nNo such option.\n' | cat cli/manual_source.md - >"$tmp/extra.md"
for case in "missing:misses an option of the table:no description (## option NAME) of the option: depth" \
            "extra:describes an option the table does not have:a description of no option or section of the table: bogus"; do
    file=${case%%:*}
    rest=${case#*:}
    want=${rest#*:}
    name="the generator refuses a source that ${rest%%:*}"
    "$gen" "$tmp/$file.md" "$version" "$tmp/$file.out.md" "$tmp/$file.out.1" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -ne 1 ]; then
        not_ok "$name" "exit status $rc, expected 1"
    elif ! grep -qF "$want" "$tmp/err"; then
        not_ok "$name" "unexpected message: $(head -n 1 "$tmp/err")"
    elif [ -e "$tmp/$file.out.md" ]; then
        not_ok "$name" "it wrote $tmp/$file.out.md"
    else
        ok "$name"
    fi
done

test_end
