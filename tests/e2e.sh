#!/bin/sh
# End-to-end tests of the tiledconv binary (see /work/shared/SPEC.md for the contract).
#
#   sh tests/e2e.sh ./tiledconv                       every case
#   sh tests/e2e.sh --bad-inputs-only BINARY          only the bad-input table (part d)
#
# Run from the repository root (the bundled images are found under images/). Prints one line
# per case, "ok - NAME" or "not ok - NAME: why", then "e2e: N passed, M failed"; exits 1 when
# any case failed. Any sanitizer report on stderr ("ERROR: AddressSanitizer", "runtime error:",
# ...) fails the case, so tests/run-sanitized.sh can reuse the bad-input table as it is.

bad_only=0
if [ "${1:-}" = "--bad-inputs-only" ]; then
    bad_only=1
    shift
fi
if [ $# -ne 1 ]; then
    echo "usage: sh tests/e2e.sh [--bad-inputs-only] BINARY" >&2
    exit 2
fi

root=$(pwd)
case "$1" in
    /*) bin=$1 ;;
    *) bin=$root/$1 ;;
esac
if [ ! -x "$bin" ]; then
    echo "e2e: $bin is not an executable" >&2
    echo "e2e: 0 passed, 1 failed"
    exit 1
fi
images=$root/images
img512=$images/TiledConv_Input512x512.bmp
img451=$images/TiledConv_Input451x300.bmp
img1000=$images/TiledConv_Input1000x872.bmp

# Fault injection is only ever set by the cases that want it.
unset TILEDCONV_TEST_CORRUPT

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tiledconv-e2e.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP

passed=0
failed=0
ok() {
    passed=$((passed + 1))
    echo "ok - $1"
}
not_ok() {
    failed=$((failed + 1))
    echo "not ok - $1: $2"
}

# run CMD...: runs it with stdout in $tmp/stdout, stderr in $tmp/stderr; status in $rc.
run() {
    "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
}

# A sanitizer report (ASan, LSan, UBSan) anywhere on stderr: prints the reason, returns 0.
sanitizer_report() {
    if grep -q -e 'ERROR: AddressSanitizer' -e 'ERROR: LeakSanitizer' -e 'runtime error:' \
        -e 'Sanitizer' "$tmp/stderr"; then
        echo "sanitizer report on stderr: $(grep -m1 -e Sanitizer -e 'runtime error:' "$tmp/stderr")"
        return 0
    fi
    return 1
}

# First line of a file, for failure messages.
first_line() {
    sed -n 1p "$1" 2>/dev/null
}

# check_bmp FILE W H: FILE is an 8-bit grayscale BMP of W x H (header fields and file size
# 54 + 1024 + rowpad(W) * H). Prints why not and returns 1 when it is not.
check_bmp() {
    f=$1 w=$2 h=$3
    if [ ! -f "$f" ]; then
        echo "no output file $f"
        return 1
    fi
    # bytes 0..29: magic, file size, reserved, data offset, header size, width, height,
    # planes, bits per pixel (all little-endian).
    # shellcheck disable=SC2046
    set -- $(od -A n -t u1 -N 30 "$f")
    if [ $# -ne 30 ]; then
        echo "file shorter than a BMP header"
        return 1
    fi
    if [ "$1" -ne 66 ] || [ "$2" -ne 77 ]; then
        echo "no BM magic"
        return 1
    fi
    shift 10
    offbits=$(($1 + $2 * 256 + $3 * 65536 + $4 * 16777216))
    shift 8
    bw=$(($1 + $2 * 256 + $3 * 65536 + $4 * 16777216))
    bh=$(($5 + $6 * 256 + $7 * 65536 + $8 * 16777216))
    [ "$bh" -ge 2147483648 ] && bh=$((bh - 4294967296)) # top-down: negative height
    bpp=$((${11} + ${12} * 256))
    if [ "$bw" -ne "$w" ] || { [ "$bh" -ne "$h" ] && [ "$bh" -ne $((-h)) ]; }; then
        echo "header says ${bw} x ${bh}, expected ${w} x ${h}"
        return 1
    fi
    if [ "$bpp" -ne 8 ]; then
        echo "header says $bpp bits per pixel, expected 8"
        return 1
    fi
    if [ "$offbits" -ne 1078 ]; then
        echo "pixel data at offset $offbits, expected 1078 (54 + 1024)"
        return 1
    fi
    want=$((54 + 1024 + (w + 3) / 4 * 4 * h))
    size=$(wc -c <"$f" | tr -d ' ')
    if [ "$size" -ne "$want" ]; then
        echo "file is $size bytes, expected $want"
        return 1
    fi
    return 0
}

# good_run NAME W H ARGS...: the tool with ARGS -e -o OUT exits 0, prints PASSED, says nothing
# on stderr, and OUT is a W x H grayscale BMP.
good_run() {
    name=$1 w=$2 h=$3
    shift 3
    out=$tmp/good.bmp
    rm -f "$out"
    run "$bin" "$@" -e -o "$out"
    if [ "$rc" -ne 0 ]; then
        not_ok "$name" "exit status $rc, expected 0; stderr: $(first_line "$tmp/stderr")"
    elif ! grep -q PASSED "$tmp/stdout"; then
        not_ok "$name" "no PASSED on stdout"
    elif why=$(sanitizer_report); then
        not_ok "$name" "$why"
    elif [ -s "$tmp/stderr" ]; then
        not_ok "$name" "unexpected stderr: $(first_line "$tmp/stderr")"
    elif ! why=$(check_bmp "$out" "$w" "$h"); then
        not_ok "$name" "$why"
    else
        ok "$name"
    fi
    rm -f "$out"
}

# --- a. good runs on the bundled images ------------------------------------------------------
part_a() {
    for spec in "$img512 512 512" "$img451 451 300" "$img1000 1000 872"; do
        # shellcheck disable=SC2086
        set -- $spec
        for taps in 3 5; do
            good_run "a: $(basename "$1") -f $taps" "$2" "$3" -s "$1" -f "$taps"
        done
    done
    good_run "a: 512x512 article ROI -sL 3 -sT 3 -tL 2 -tT 2 -t -i 3" 512 512 \
        -s "$img512" -sL 3 -sT 3 -tL 2 -tT 2 -t -i 3
    for alg in twopass onepass all; do
        good_run "a: 451x300 -a $alg" 451 300 -s "$img451" -a "$alg"
    done
}

# --- b. a planted wrong pixel is caught and replaces no file ---------------------------------
# corrupt_run NAME X,Y ARGS...
corrupt_run() {
    name=$1 pixel=$2
    shift 2
    out=$tmp/corrupt.bmp
    rm -f "$out"
    run env TILEDCONV_TEST_CORRUPT="$pixel" "$bin" "$@" -e -o "$out"
    xy="($(echo "$pixel" | sed 's/,/, /'))"
    if [ "$rc" -ne 1 ]; then
        not_ok "$name" "exit status $rc, expected 1"
    elif ! grep -q FAILED "$tmp/stdout"; then
        not_ok "$name" "no FAILED on stdout"
    elif ! grep -qF "$xy" "$tmp/stdout"; then
        not_ok "$name" "stdout does not name the pixel $xy"
    elif [ -e "$out" ]; then
        not_ok "$name" "the output file was written although verification failed"
    elif why=$(sanitizer_report); then
        not_ok "$name" "$why"
    else
        ok "$name"
    fi
    rm -f "$out"
}

part_b() {
    corrupt_run "b: corrupt (5, 7) in 64x64 is caught" 5,7 -g 64x64
    corrupt_run "b: corrupt (0, 0) outside the target ROI (-tL 10 -W 20) is caught" 0,0 \
        -g 64x64 -tL 10 -W 20
    corrupt_run "b: corrupt (5, 7) caught by every algorithm of -a all" 5,7 -g 64x64 -a all
    name="b: -a all with a planted fault reports FAILED for each of the 3 algorithms"
    n=$(grep -c FAILED "$tmp/stdout")
    if [ "$n" -eq 3 ]; then ok "$name"; else not_ok "$name" "$n FAILED lines"; fi

    # An existing output file is left as it was, not replaced by a known-wrong result.
    name="b: a failed verification leaves an existing output file untouched"
    mkdir -p "$tmp/keep"
    out=$tmp/keep/existing.bmp
    echo "previous contents" >"$out"
    before=$(cksum <"$out")
    run env TILEDCONV_TEST_CORRUPT=5,7 "$bin" -g 64x64 -e -o "$out"
    if [ "$rc" -ne 1 ]; then
        not_ok "$name" "exit status $rc, expected 1"
    elif [ "$(cksum <"$out")" != "$before" ]; then
        not_ok "$name" "the existing file was replaced"
    elif [ "$(find "$tmp/keep" -mindepth 1 | wc -l)" -ne 1 ]; then
        # shellcheck disable=SC2012
        not_ok "$name" "a temporary file was left behind: $(ls -A "$tmp/keep" | tr '\n' ' ')"
    else
        ok "$name"
    fi
    rm -rf "$tmp/keep"
}

# --- c. machine-readable output, help, version ------------------------------------------------
part_c() {
    name="c: --json prints one JSON record with every key"
    run "$bin" --json --no-output -t -e -g 100x80
    lines=$(wc -l <"$tmp/stdout" | tr -d ' ')
    missing=
    for key in algorithm taps width height roi_width roi_height iterations kernel_ms_min \
        kernel_ms_median kernel_ms_mean copy_ms mpixels_per_s gbytes_per_s copy_fraction \
        device verified; do
        grep -q "\"$key\"[[:space:]]*:" "$tmp/stdout" || missing="$missing $key"
    done
    if [ "$rc" -ne 0 ]; then
        not_ok "$name" "exit status $rc, expected 0"
    elif [ "$lines" -ne 1 ]; then
        not_ok "$name" "$lines lines on stdout, expected 1"
    elif ! grep -q '^[[:space:]]*{.*}[[:space:]]*$' "$tmp/stdout"; then
        not_ok "$name" "the line is not a {...} object"
    elif [ -n "$missing" ]; then
        not_ok "$name" "missing keys:$missing"
    elif ! grep -q '"verified"[[:space:]]*:[[:space:]]*true' "$tmp/stdout"; then
        not_ok "$name" "verified is not true"
    elif command -v python3 >/dev/null 2>&1 &&
        ! python3 -c 'import json, sys; json.loads(sys.stdin.read())' <"$tmp/stdout" 2>/dev/null; then
        not_ok "$name" "python3 cannot parse it as JSON"
    else
        ok "$name"
    fi

    name="c: --csv -a all prints a header and one record per algorithm"
    run "$bin" --csv --no-output -a all -g 100x80
    lines=$(wc -l <"$tmp/stdout" | tr -d ' ')
    if [ "$rc" -ne 0 ]; then
        not_ok "$name" "exit status $rc, expected 0"
    elif [ "$lines" -ne 4 ]; then
        not_ok "$name" "$lines lines on stdout, expected 4"
    elif ! sed -n 1p "$tmp/stdout" | grep -q '^algorithm,'; then
        not_ok "$name" "the first line is not a header: $(first_line "$tmp/stdout")"
    elif [ "$(sed -n '2,4s/,.*//p' "$tmp/stdout" | tr '\n' ' ')" != "tiled twopass onepass " ]; then
        not_ok "$name" "records are not tiled, twopass, onepass"
    else
        ok "$name"
    fi

    name="c: -h exits 0 and shows Examples"
    run "$bin" -h
    if [ "$rc" -ne 0 ]; then
        not_ok "$name" "exit status $rc"
    elif ! grep -q Examples "$tmp/stdout"; then
        not_ok "$name" "no Examples in the help"
    else
        ok "$name"
    fi

    name="c: --version exits 0 and prints the version"
    run "$bin" --version
    if [ "$rc" -ne 0 ]; then
        not_ok "$name" "exit status $rc"
    elif ! grep -q '^tiledconv [0-9]' "$tmp/stdout"; then
        not_ok "$name" "unexpected output: $(first_line "$tmp/stdout")"
    else
        ok "$name"
    fi
}

# --- d. bad inputs ----------------------------------------------------------------------------
# One row per line: the expected exit status (or "1/2": either), then the arguments as sh words
# (expanded with eval, so $out, $img, $in and $o may be used). Every row is run with its
# working directory in $o, the only place an output should appear, so that a default
# TiledConv_Output.bmp or a left-over temporary file would show up too.
#   $img  the bundled 512 x 512 image        $out  $o/out.bmp, the output name of every row
#   $in   a folder of input fixtures          $o    the (empty) output folder
bad_input_table() {
    cat <<'EOF'
2   -o "$out" -s
2   -o "$out" -g
2   -s "$img" -o
2   -s "$img" -o "$out" -sL
2   -s "$img" -o "$out" -sT
2   -s "$img" -o "$out" -tL
2   -s "$img" -o "$out" -tT
2   -s "$img" -o "$out" -W
2   -s "$img" -o "$out" -H
2   -s "$img" -o "$out" -f
2   -s "$img" -o "$out" -c
2   -s "$img" -o "$out" -a
2   -s "$img" -o "$out" -i
2   -s "$img" -o "$out" -p
2   -s "$img" -o "$out" -d
2   -s "$img" -o "$out" --device
2   -s "$img" -o "$out" --source-left
2   -s "$img" -o "$out" -sL abc
2   -s "$img" -o "$out" -sL ""
2   -s "$img" -o "$out" -i 3x
2   -s "$img" -o "$out" -W 10x
2   -s "$img" -o "$out" -f 3x
2   -s "$img" -o "$out" -sL -1
2   -s "$img" -o "$out" -W -5
2   -s "$img" -o "$out" -i -1
2   -s "$img" -o "$out" -W 0
2   -s "$img" -o "$out" -i 99999999999999999999
2   -s "$img" -o "$out" -sL 2147483648
2   -s "$img" -o "$out" -sL 100000
2   -s "$img" -o "$out" -sL 600
2   -s "$img" -o "$out" -tT 512
2   -s "$img" -o "$out" -W 600
2   -s "$img" -o "$out" -W 2147483647
2   -s "$img" -o "$out" -sT 10 -H 510
2   -s "$img" -o "$out" -tT 10 -H 510
2   -s "$img" -o "$out" -tL 511 -W 2
2   -s "$img" -o "$out" -sL 1 -tL 2 -W 511
2   -s "$img" -o "$out" -f 4
2   -s "$img" -o "$out" -f 7
2   -s "$img" -o "$out" -f 0
2   -s "$img" -o "$out" -c 1,2
2   -s "$img" -o "$out" -f 5 -c 1,2,3
2   -s "$img" -o "$out" -c 1,2,3,4,5
2   -s "$img" -o "$out" -c 1,,2
2   -s "$img" -o "$out" -c a,b,c
2   -s "$img" -o "$out" -c 1,2,3x
2   -s "$img" -o "$out" -c nan,1,1
2   -s "$img" -o "$out" -c 1,2,3,
2   -s "$img" -o "$out" -i 0
2   -s "$img" -o "$out" -a bogus
2   -s "$img" -o "$out" --frobnicate
2   -s "$img" -o "$out" -z
2   -s "$img" -o "$out" --sour "$img"
2   -s "$img" -o "$out" -p 99
2   -s "$img" -o "$out" -d 99
2   -s "$img" -o "$out" --device tpu
2   -o "$out" -g 0x0
2   -o "$out" -g junk
2   -o "$out" -g 10
2   -o "$out" -g 10x
2   -o "$out" -g x10
2   -o "$out" -g 100000x100000
1/2 -o "$out" -g 65536x65536
2   -o "$out" -s "$in/missing.bmp"
2   -o "$out" -s "$in/dir"
2   -o "$out" -s "$in/empty.bmp"
2   -o "$out" -s "$in/text.bmp"
2   -o "$out" -s "$in/truncated.bmp"
2   -s "$in/copy.bmp" -o "$in/copy.bmp"
2   -s "$in/copy.bmp" -o "$in/link.bmp"
2   -s "$img" -o "$o"
2   -s "$img" -o /dev/null
2   -s "$img" -o ""
2   -s "$img" -o "$o/no/such/folder/out.bmp"
2   -s "$img" -g 64x64 -o "$out"
2   -s "$img" -o "$out" extra
EOF
}

# shellcheck disable=SC2120,SC2034  # the rows use $img, $in, $o, $out through eval
part_d() {
    in=$tmp/in
    o=$tmp/o
    out=$o/out.bmp
    img=$img512
    mkdir -p "$in/dir" "$o" || exit 1
    : >"$in/empty.bmp"
    printf 'this is not a bitmap\nat all\n' >"$in/text.bmp"
    head -c 100 "$img512" >"$in/truncated.bmp"
    cp "$img512" "$in/copy.bmp"
    ln -s copy.bmp "$in/link.bmp"
    # Every input file, bundled or fixture, must be byte-for-byte the same after every row.
    sums() {
        find "$images" "$in" -type f | sort | xargs cksum
    }
    baseline=$(sums)

    bad_input_table | while IFS= read -r row; do
        expect=${row%% *}
        args=${row#"$expect"}
        args=$(echo "$args" | sed 's/^ *//')
        name="d: tiledconv $args -> exit $expect"
        eval "set -- $args"
        (cd "$o" && "$bin" "$@" >"$tmp/stdout" 2>"$tmp/stderr")
        rc=$?
        nerr=$(wc -l <"$tmp/stderr" | tr -d ' ')
        case "/$expect/" in
            */"$rc"/*) status_ok=1 ;;
            *) status_ok=0 ;;
        esac
        if why=$(sanitizer_report); then
            not_ok "$name" "$why"
        elif [ "$status_ok" -ne 1 ]; then
            not_ok "$name" "exit status $rc; stderr: $(first_line "$tmp/stderr")"
        elif [ "$nerr" -ne 1 ]; then
            not_ok "$name" "$nerr lines on stderr, expected 1: $(tr '\n' '|' <"$tmp/stderr")"
        elif ! grep -q '^tiledconv: ' "$tmp/stderr"; then
            not_ok "$name" "stderr does not start with 'tiledconv: ': $(first_line "$tmp/stderr")"
        elif [ -e "$out" ]; then
            not_ok "$name" "$out was created"
        elif [ ! -d "$o" ] || [ -n "$(ls -A "$o")" ]; then
            # shellcheck disable=SC2012
            not_ok "$name" "the output folder is not empty: $(ls -A "$o" 2>&1 | tr '\n' ' ')"
        elif [ "$(sums)" != "$baseline" ]; then
            not_ok "$name" "an input file changed"
        elif [ ! -c /dev/null ]; then
            not_ok "$name" "/dev/null is no longer a character device"
        else
            ok "$name"
        fi
        # Start the next row clean whatever this one did.
        rm -rf "$o" && mkdir -p "$o"
        rm -f "$in/copy.bmp" "$in/link.bmp"
        cp "$img512" "$in/copy.bmp" && ln -s copy.bmp "$in/link.bmp"
        echo "$passed $failed" >"$tmp/counts"
    done
    # The loop ran in a subshell (a pipeline): take its counts back.
    if [ -f "$tmp/counts" ]; then
        read -r passed failed <"$tmp/counts"
    fi
}

if [ "$bad_only" -eq 0 ]; then
    part_a
    part_b
    part_c
fi
# shellcheck disable=SC2119
part_d

echo "e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
