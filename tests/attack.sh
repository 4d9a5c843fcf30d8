#!/bin/sh
# An attack on the tool from outside: every malformed input the tests make and more, each run
# on every binary given (the release build and the ASan + UBSan build, say), counted.
#
#   sh tests/attack.sh ./tiledconv build/asan/tiledconv
#
# The inputs (made in a scratch folder; nothing in the repository changes):
#   files    the BMP Suite's bad and questionable files; the hostile fixtures; every PNG, JPEG
#            and PGM/PPM fixture and four BMPs cut at 8 places and with a byte flipped at 8
#            places; the RLE bombs of tests/e2e-hardening.sh; each as `-s FILE -o OUT` and,
#            for the formats other than BMP, as standard input too (`-s - < FILE`)
#   streams  tests/endless-stream.py's endless streams after a valid header, on standard input
#   devices  /dev/zero, /dev/urandom, /dev/null, a folder, a FIFO fed with zeros
#   lists    --files-from: `yes x`, /dev/zero, an endless line, a NUL byte, a folder
#   options  invalid --pyramid counts; outputs that are one file (-o, --raw, --class-map, a
#            batch's, a pyramid's)
# Each run is judged: "refused cleanly" is exit 1 or 2 with exactly one line on stderr starting
# "tiledconv: " (a batch may add its summary line), no sanitizer report, nothing written (the
# output folder empty, no temporary file); "accepted" is exit 0 with the outputs written (a
# cut after the image's end, a flipped byte in metadata, a questionable file the reader takes);
# anything else (a signal, a timeout of 30 s, a report, more lines, a file left) is "bad" and
# printed. Ends with one line a binary, "attack BIN: I inputs, N runs, R refused cleanly, A
# accepted, B bad", and exits 1 when any run was bad.
set -u
if [ $# -lt 1 ]; then
    echo "usage: sh tests/attack.sh BINARY..." >&2
    exit 2
fi
root=$(pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tiledconv-attack.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP
fmt=$root/tests/data/formats
suite=$root/tests/data/bmpsuite
img=$root/images/TiledConv_Input512x512.bmp
in=$tmp/in
mkdir -p "$in/files" "$in/dir"

# --- the inputs ---------------------------------------------------------------------------
# The RLE bombs come from the end-to-end script's own maker.
# shellcheck source=tests/e2e-hardening.sh
. "$root/tests/e2e-hardening.sh"
make_bombs "$in/files"
cp "$suite"/b/*.bmp "$suite"/q/*.bmp "$fmt"/hostile-* "$fmt"/bad-p4-index.png "$in/files"/
# cut FILE: 8 prefixes; flip FILE: 8 copies with one byte inverted.
cut_and_flip() {
    f=$1 base=$(basename "$1")
    size=$(wc -c <"$f" | tr -d ' ')
    for at in 1 8 16 33 $((size / 4)) $((size / 2)) $((3 * size / 4)) $((size - 1)); do
        [ "$at" -ge 1 ] && [ "$at" -lt "$size" ] && head -c "$at" "$f" >"$in/files/cut$at-$base"
    done
    for at in 2 9 14 20 30 $((size / 3)) $((2 * size / 3)) $((size - 2)); do
        [ "$at" -ge 0 ] && [ "$at" -lt "$size" ] || continue
        python3 -c 'import sys
d = bytearray(open(sys.argv[1], "rb").read()); i = int(sys.argv[2]); d[i] ^= 0xff
open(sys.argv[3], "wb").write(d)' "$f" "$at" "$in/files/flip$at-$base"
    done
}
for f in "$fmt"/*.png "$fmt"/*.jpg "$fmt"/*.pgm "$fmt"/*.ppm "$suite/g/pal8rle.bmp" \
    "$suite/g/pal4rle.bmp" "$suite/g/rgb24.bmp" "$suite/g/rgb16-565.bmp"; do
    case $f in */hostile-*) continue ;; esac
    cut_and_flip "$f"
done

# --- judging one run ----------------------------------------------------------------------
# judge NAME STATUS: from $tmp/err and the output folder $tmp/o.
judge() {
    name=$1 rc=$2
    n=$(wc -l <"$tmp/err" | tr -d ' ')
    left=$(ls -A "$tmp/o" 2>/dev/null | tr '\n' ' ')
    if grep -q -e 'Sanitizer' -e 'runtime error:' "$tmp/err"; then
        verdict=bad why="sanitizer: $(grep -m1 -e Sanitizer -e 'runtime error:' "$tmp/err")"
    elif [ "$rc" -eq 0 ]; then
        if [ -n "$left" ]; then verdict=accepted; else verdict=bad why="exit 0, nothing written"; fi
    elif [ "$rc" -ne 1 ] && [ "$rc" -ne 2 ]; then
        verdict=bad why="exit $rc"
    elif ! head -1 "$tmp/err" | grep -q '^tiledconv: ' ||
        { [ "$n" -ne 1 ] && ! { [ "$n" -eq 2 ] && grep -q '^tiledconv: [0-9]* of [0-9]* images' "$tmp/err"; }; }; then
        verdict=bad why="$n lines: $(tr '\n' '|' <"$tmp/err" | cut -c1-200)"
    elif [ -n "$left" ] && [ "$expect_empty" -eq 1 ]; then
        verdict=bad why="exit $rc, left: $left"
    else
        verdict=refused
    fi
    case $verdict in
        refused) refused=$((refused + 1)) ;;
        accepted) accepted=$((accepted + 1)) ;;
        *) bad=$((bad + 1)); echo "bad - $name: $why" ;;
    esac
    runs=$((runs + 1))
    rm -rf "$tmp/o" && mkdir -p "$tmp/o"
}

# attack NAME [stdin=FILE] ARGS...: the binary with ARGS in $tmp/o, 30 s at most.
attack() {
    name=$1
    shift
    stdin=/dev/null
    case $1 in stdin=*) stdin=${1#stdin=}; shift ;; esac
    (cd "$tmp/o" && timeout -s KILL 30 "$bin" "$@" <"$stdin" >/dev/null 2>"$tmp/err")
    judge "$name" $?
}

# attack_pipe NAME PRODUCER... -- ARGS...: the producer's output as standard input.
attack_pipe() {
    name=$1
    shift
    producer=
    while [ "$1" != "--" ]; do producer="$producer '$1'"; shift; done
    shift
    (cd "$tmp/o" && eval "$producer" 2>/dev/null | timeout -s KILL 30 "$bin" "$@" >/dev/null 2>"$tmp/err")
    judge "$name" $?
}

status=0
for bin in "$@"; do
    case $bin in /*) ;; *) bin=$root/$bin ;; esac
    runs=0 refused=0 accepted=0 bad=0 again=0
    rm -rf "$tmp/o" && mkdir -p "$tmp/o"
    expect_empty=1
    for f in "$in/files"/*; do
        attack "file $(basename "$f")" -s "$f" -o out.bmp -q
        case $f in
            *.bmp) ;;
            *) attack "stdin $(basename "$f")" stdin="$f" -s - -o out.bmp -q
               again=$((again + 1)) ;;
        esac
    done
    for k in pnm-text pnm-comment png-chunks png-idat png-zeros jpeg-app1 jpeg-entropy; do
        attack_pipe "stream $k" python3 "$root/tests/endless-stream.py" "$k" -- -s - -o out.bmp -q
    done
    attack_pipe "stream pnm-binary (complete)" python3 "$root/tests/endless-stream.py" pnm-binary -- -s - -o out.bmp -q
    for dev in /dev/zero /dev/urandom /dev/null "$in/dir"; do
        attack "device $dev" -s "$dev" -o out.bmp -q
    done
    mkfifo "$tmp/fifo"
    (cat /dev/zero >"$tmp/fifo" 2>/dev/null &)
    attack "a FIFO of zeros" -s "$tmp/fifo" -o out.bmp -q
    rm -f "$tmp/fifo"
    attack_pipe "list: yes x" yes x -- --files-from - -O . -q
    attack_pipe "list: an endless line" sh -c "yes | tr -d '\\n'" -- --files-from - -O . -q
    attack "list: /dev/zero" --files-from /dev/zero -O . -q
    attack "list: a folder" --files-from "$in/dir" -O . -q
    printf '%s\nx\000y\n' "$img" >"$in/nul-list"
    attack "list: a NUL byte" --files-from "$in/nul-list" -O . -q
    for w in 0x3 3x0 17x1 1x9 99999999x3 999999999999999999999999x2 5 0 012; do
        attack "--pyramid $w" -s "$img" --pyramid "$w" -O . -q
    done
    attack "-o x.bmp --class-map x.bmp" -s "$img" -o x.bmp --class-map x.bmp -q
    attack "--raw m.png --class-map ./m.png" -s "$img" --raw m.png --class-map ./m.png --no-output -q
    attack "--gradient -o g.bmp --raw ./g.bmp" -s "$img" --gradient sobel -o g.bmp --raw ./g.bmp -q
    attack "the default output and --class-map" -g 64x64 --class-map TiledConv_Output.bmp -q
    echo "attack $bin: $((runs - again)) inputs, $runs runs, $refused refused cleanly, $accepted accepted, $bad bad"
    [ "$bad" -eq 0 ] || status=1
done
exit $status
