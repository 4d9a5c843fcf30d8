#!/bin/sh
# End-to-end tests of the tiledconv binary: the behaviour the manual (docs/manual.md) states.
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

. "$(dirname "$0")/lib.sh"
test_begin e2e "$1"
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

# check_bmp FILE W H [BPP]: FILE is an 8-bit grayscale BMP of W x H (header fields and file
# size 54 + 1024 + rowpad(W) * H), or with BPP 24 a 24-bit one (54 + rowpad(3 W) * H). Prints
# why not and returns 1 when it is not.
check_bmp() {
    f=$1 w=$2 h=$3 want_bpp=${4:-8}
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
    if [ "$bpp" -ne "$want_bpp" ]; then
        echo "header says $bpp bits per pixel, expected $want_bpp"
        return 1
    fi
    want_off=1078
    [ "$want_bpp" -eq 24 ] && want_off=54
    if [ "$offbits" -ne "$want_off" ]; then
        echo "pixel data at offset $offbits, expected $want_off"
        return 1
    fi
    want=$((want_off + (w * want_bpp / 8 + 3) / 4 * 4 * h))
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
    name=$1
    shift
    good_run_bpp "$name" 8 "$@"
}

# good_run_bpp NAME BPP W H ARGS...: good_run for an output of BPP bits per pixel (24: --color).
good_run_bpp() {
    name=$1 gbpp=$2 w=$3 h=$4
    shift 4
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
    elif ! why=$(check_bmp "$out" "$w" "$h" "$gbpp"); then
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

    name="c: --json with a failed -e: exit 1, verified false, one line on stderr"
    run env TILEDCONV_TEST_CORRUPT=3,3 "$bin" --json --no-output -e -g 16x16
    if [ "$rc" -ne 1 ]; then
        not_ok "$name" "exit status $rc, expected 1"
    elif ! grep -q '"verified": false' "$tmp/stdout"; then
        not_ok "$name" "no \"verified\": false in the record"
    elif [ "$(wc -l <"$tmp/stderr" | tr -d ' ')" -ne 1 ]; then
        not_ok "$name" "$(wc -l <"$tmp/stderr" | tr -d ' ') lines on stderr, expected 1"
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

# --- e. filter lengths, named filters, borders, --color, --raw, --offset/--scale --------------
# byte_at FILE OFFSET: one unsigned byte of FILE.
byte_at() {
    od -A n -t u1 -j "$2" -N 1 "$1" | tr -d ' '
}

# gray_at FILE W H X Y: the pixel (X, Y) of an 8-bit BMP the tool wrote (bottom-up rows at 1078).
gray_at() {
    byte_at "$1" $((1078 + ($3 - 1 - $5) * (($2 + 3) / 4 * 4) + $4))
}

# float_at FILE INDEX: the INDEX-th little-endian float32 of FILE, printed with 3 decimals.
float_at() {
    od -A n -t f4 --endian=little -j $((4 * $2)) -N 4 "$1" | awk '{ printf "%.3f", $1 }'
}

# bytes_of FILE OFFSET COUNT: COUNT bytes of FILE as numbers, for comparing two files' parts.
bytes_of() {
    od -v -A n -t u1 -j "$2" -N "$3" "$1"
}

# distinct_pixels BMP: the distinct values of an 8-bit BMP's pixels (its rows have no padding).
distinct_pixels() {
    od -v -A n -t u1 -j 1078 "$1" | tr -s ' ' '\n' | grep -v '^$' | sort -u | tr '\n' ' '
}

# file_size FILE
file_size() {
    wc -c <"$1" | tr -d ' '
}

# expect_clean_run ARGS...: the tool with ARGS exits 0 and says nothing on stderr; prints why
# not and returns 1 otherwise.
expect_clean_run() {
    run "$bin" "$@"
    if [ "$rc" -ne 0 ]; then
        echo "exit status $rc, expected 0; stderr: $(first_line "$tmp/stderr")"
        return 1
    elif why=$(sanitizer_report); then
        echo "$why"
        return 1
    elif [ -s "$tmp/stderr" ]; then
        echo "unexpected stderr: $(first_line "$tmp/stderr")"
        return 1
    fi
    return 0
}

# probe_case NAME "X Y X Y ..." "EXPECTED ..." ARGS...: a clean run of the 16 x 16 fixture with
# ARGS writes $out, whose gray values at those pixels must be EXPECTED.
probe_case() {
    name=$1 pixels=$2 expected=$3
    shift 3
    rm -f "$out"
    if ! why=$(expect_clean_run "$@" -o "$out" -q); then
        not_ok "$name" "$why"
        return
    fi
    got=""
    # shellcheck disable=SC2086 # the pixel list is meant to split
    set -- $pixels
    while [ $# -ge 2 ]; do
        got="$got${got:+ }$(gray_at "$out" 16 16 "$1" "$2")"
        shift 2
    done
    if [ "$got" = "$expected" ]; then ok "$name"; else
        not_ok "$name" "pixels ($pixels): $got, expected $expected"; fi
}

part_e_lengths_and_names() {
    # Lengths beyond the article's 5: every algorithm, on an image and on an ROI whose edges
    # fall inside the image (the border rule applies at the ROI's edge).
    for taps in 7 9 15; do
        good_run "e: 451x300 -f $taps -a all" 451 300 -s "$img451" -f "$taps" -a all
        good_run "e: 451x300 -f $taps -a all on an ROI" 451 300 -s "$img451" -f "$taps" -a all \
            -sL 13 -sT 7 -tL 3 -tT 21 -W 301 -H 203
    done
    good_run "e: --cx/--cy differ (-f 5)" 451 300 -s "$img451" -f 5 --cx 1,2,3,4,5 \
        --cy -1,0,0,0,1 -a all
    for name in box gauss binomial sobel-x sobel-y scharr-x scharr-y; do
        good_run "e: --filter $name -a all" 451 300 -s "$img451" --filter "$name" -a all
    done
    good_run "e: --filter gauss --sigma 2 (13 taps from the sigma)" 451 300 -s "$img451" \
        --filter gauss --sigma 2 -a all
    name="e: --filter gauss --sigma 2 picks 13 taps"
    if grep -q 'filter: gauss, 13 taps, sigma 2' "$tmp/stdout"; then ok "$name"; else
        not_ok "$name" "no 'gauss, 13 taps, sigma 2' on stdout"; fi
    good_run "e: --filter sobel-y -f 9" 451 300 -s "$img451" --filter sobel-y -f 9 -a all
}

# Each border mode, every algorithm, ROIs whose edges are inside the image. These need the
# kernels' border support.
part_e_borders() {
    for border in replicate constant constant=200 reflect101 reflect wrap; do
        good_run "e: --border $border -f 7 -a all on an ROI" 451 300 -s "$img451" -f 7 \
            --border "$border" -a all -sL 3 -sT 5 -tL 7 -tT 2 -W 200 -H 150
        good_run "e: --border $border -f 15 -a all on a 9x6 ROI (narrower than the filter)" \
            451 300 -s "$img451" -f 15 --border "$border" -a all -sL 40 -sT 30 -W 9 -H 6
    done
    # The same as OpenCV's borders, where python3-opencv is installed: the ROI filtered as an
    # isolated image by cv2.sepFilter2D, against --raw.
    name="e: every --border equals OpenCV's on the same ROI (cv2.sepFilter2D)"
    if ! command -v python3 >/dev/null 2>&1 || ! python3 -c 'import cv2, numpy' 2>/dev/null; then
        ok "$name # SKIP python3-opencv is not installed"
        return
    fi
    bad=
    for border in replicate constant=37.5 reflect101 reflect wrap; do
        rm -f "$tmp/b.raw"
        if ! why=$(expect_clean_run -s "$img451" -f 5 --cx 1,-2,3,4,1 --cy 2,1,0,1,-1 \
            --border "$border" -sL 20 -sT 10 -tL 0 -tT 0 -W 64 -H 48 --raw "$tmp/b.raw" \
            --no-output -q); then
            bad="$bad $border ($why)"
            continue
        fi
        if ! python3 - "$img451" "$tmp/b.raw" "$border" >"$tmp/py.out" 2>&1 <<'PYTHON'
import sys
import cv2
import numpy as np
img = cv2.imread(sys.argv[1]).astype(np.float64)  # B, G, R
inten = (0.299 * img[:, :, 2] + 0.587 * img[:, :, 1] + 0.114 * img[:, :, 0]).astype(np.float32)
raw = np.fromfile(sys.argv[2], "<f4").reshape(inten.shape)
mode, _, value = sys.argv[3].partition("=")
types = {"replicate": cv2.BORDER_REPLICATE, "constant": cv2.BORDER_CONSTANT,
         "reflect101": cv2.BORDER_REFLECT_101, "reflect": cv2.BORDER_REFLECT,
         "wrap": cv2.BORDER_WRAP}
roi = inten[10:58, 20:84].copy()
# sepFilter2D's border is applied to the array it gets: the ROI alone, as the tool does.
pad = 2
padded = cv2.copyMakeBorder(roi, pad, pad, pad, pad, types[mode], value=float(value or 0))
kx = np.array([1, -2, 3, 4, 1], np.float32)
ky = np.array([2, 1, 0, 1, -1], np.float32)
want = cv2.sepFilter2D(padded, cv2.CV_64F, kx, ky, borderType=cv2.BORDER_CONSTANT)
want = want[pad:-pad, pad:-pad]
got = raw[0:48, 0:64]
err = np.abs(got - want).max()
sys.exit(0 if err < 1e-2 else print("max difference", err) or 1)
PYTHON
        then
            bad="$bad $border ($(tr '\n' ' ' <"$tmp/py.out"))"
        fi
    done
    if [ -z "$bad" ]; then ok "$name"; else not_ok "$name" "differs for:$bad"; fi
}

part_e_color() {
    good_run_bpp "e: --color -a all on the 451x300 image (24-bit output)" 24 451 300 \
        -s "$img451" --color -a all
    name="e: --color -e checks the R, G and B planes"
    if [ "$(grep -c '^  plane [RGB]: ok' "$tmp/stdout")" -eq 9 ]; then ok "$name"; else
        not_ok "$name" "not 9 'plane X: ok' lines for 3 algorithms"; fi
    good_run_bpp "e: --color --filter gauss -f 9 on an ROI" 24 451 300 -s "$img451" --color \
        --filter gauss -f 9 -sL 3 -sT 4 -tL 100 -tT 50 -W 100 -H 100

    # Outside the target ROI the colour is the input's, byte for byte: the bottom row of the
    # picture (first in the file) and the left 100 pixels of row 100.
    name="e: --color keeps the input's colour outside the target ROI"
    out=$tmp/colour.bmp
    rm -f "$out"
    if ! why=$(expect_clean_run -s "$img451" --color -f 5 -tL 100 -tT 50 -W 100 -H 100 \
        -o "$out" -q); then
        not_ok "$name" "$why"
    elif [ "$(bytes_of "$img451" 54 1353)" != "$(bytes_of "$out" 54 1353)" ]; then
        not_ok "$name" "the bottom row differs"
    elif [ "$(bytes_of "$img451" $((54 + 199 * 1356)) 300)" != \
        "$(bytes_of "$out" $((54 + 199 * 1356)) 300)" ]; then
        not_ok "$name" "row 100 left of the ROI differs"
    elif [ "$(bytes_of "$img451" $((54 + 199 * 1356 + 300)) 300)" = \
        "$(bytes_of "$out" $((54 + 199 * 1356 + 300)) 300)" ]; then
        not_ok "$name" "row 100 inside the ROI was not filtered"
    else
        ok "$name"
    fi

    name="e: --color -t says the times are summed over the planes; --json has planes 3"
    run "$bin" --color -g 96x64 -t -i 2 --no-output
    if [ "$rc" -ne 0 ] || ! grep -q 'sum over the 3 planes' "$tmp/stdout"; then
        not_ok "$name" "exit status $rc or no 'sum over the 3 planes' on stdout"
    else
        run "$bin" --color -g 96x64 --json -e --no-output
        if [ "$rc" -ne 0 ] || ! grep -q '"planes": 3' "$tmp/stdout"; then
            not_ok "$name" "exit status $rc or no \"planes\": 3 in the JSON record"
        else
            ok "$name"
        fi
    fi

    corrupt_run "e: --color: a corrupt pixel in the R plane is caught" 5,7 -g 64x64 --color
}

part_e_raw() {
    raw=$tmp/out.raw
    name="e: --raw writes 4 * w * h bytes"
    rm -f "$raw"
    if ! why=$(expect_clean_run -s "$img451" -e --raw "$raw" --no-output -q); then
        not_ok "$name" "$why"
    elif [ "$(file_size "$raw")" -ne $((4 * 451 * 300)) ]; then
        not_ok "$name" "$(file_size "$raw") bytes"
    else
        ok "$name"
    fi
    name="e: --raw --color writes 12 * w * h bytes (R, G, B planes)"
    rm -f "$raw"
    if ! why=$(expect_clean_run -s "$img451" --color -e --raw "$raw" --no-output -q); then
        not_ok "$name" "$why"
    elif [ "$(file_size "$raw")" -ne $((12 * 451 * 300)) ]; then
        not_ok "$name" "$(file_size "$raw") bytes"
    else
        ok "$name"
    fi

    # The identity filter's raw output is the intensity plane: 0.299 R + 0.587 G + 0.114 B.
    # Pixel (0, 0) is the top-left, the last row in the bottom-up file; (450, 299) the first.
    name="e: --raw with -c 0,1,0 is the input's intensity (pixels (0, 0) and (450, 299))"
    rm -f "$raw"
    if ! why=$(expect_clean_run -s "$img451" -c 0,1,0 -e --raw "$raw" --no-output -q); then
        not_ok "$name" "$why"
    else
        bad=
        for spec in "0 0 $((54 + 299 * 1356))" "450 299 $((54 + 450 * 3))"; do
            # shellcheck disable=SC2086
            set -- $spec
            b=$(byte_at "$img451" "$3") g=$(byte_at "$img451" $(($3 + 1)))
            r=$(byte_at "$img451" $(($3 + 2)))
            want=$(awk -v r="$r" -v g="$g" -v b="$b" \
                'BEGIN { printf "%.3f", 0.299 * r + 0.587 * g + 0.114 * b }')
            got=$(float_at "$raw" $(($2 * 451 + $1)))
            [ "$got" = "$want" ] || bad="$bad ($1, $2): $got, expected $want;"
        done
        verdict "$name"
    fi
    name="e: --raw --color with -c 0,1,0 holds the input's R, G and B of pixel (0, 0)"
    rm -f "$raw"
    if ! why=$(expect_clean_run -s "$img451" --color -c 0,1,0 --raw "$raw" --no-output -q); then
        not_ok "$name" "$why"
    else
        off=$((54 + 299 * 1356)) plane=$((451 * 300))
        got="$(float_at "$raw" 0) $(float_at "$raw" "$plane") $(float_at "$raw" $((2 * plane)))"
        want=$(printf '%s.000 %s.000 %s.000' "$(byte_at "$img451" $((off + 2)))" \
            "$(byte_at "$img451" $((off + 1)))" "$(byte_at "$img451" "$off")")
        if [ "$got" = "$want" ]; then ok "$name"; else not_ok "$name" "got $got, expected $want"; fi
    fi
    name="e: --raw replaces an existing file whole and leaves no temporary file"
    mkdir -p "$tmp/rawdir"
    echo "old contents" >"$tmp/rawdir/x.raw"
    if ! why=$(expect_clean_run -g 40x30 --raw "$tmp/rawdir/x.raw" --no-output -q); then
        not_ok "$name" "$why"
    elif [ "$(file_size "$tmp/rawdir/x.raw")" -ne 4800 ]; then
        not_ok "$name" "$(file_size "$tmp/rawdir/x.raw") bytes, expected 4800"
    elif [ "$(find "$tmp/rawdir" -mindepth 1 | wc -l)" -ne 1 ]; then
        not_ok "$name" "a temporary file was left behind"
    else
        ok "$name"
    fi
    rm -rf "$tmp/rawdir"
    name="e: a failed verification writes no --raw file"
    rm -f "$raw"
    run env TILEDCONV_TEST_CORRUPT=5,7 "$bin" -g 64x64 -e --raw "$raw" --no-output
    if [ "$rc" -ne 1 ]; then not_ok "$name" "exit status $rc, expected 1"
    elif [ -e "$raw" ]; then not_ok "$name" "$raw was written"
    else ok "$name"; fi
}

part_e_mapping() {
    uni=$tmp/uniform.bmp
    out=$tmp/mapped.bmp
    # A uniform 100 image made by the tool itself: the zero filter plus --offset 100.
    name="e: -c 0,0,0 --offset 100 makes a uniform 100 image"
    rm -f "$uni"
    if ! why=$(expect_clean_run -g 16x16 -c 0,0,0 --offset 100 -o "$uni" -q); then
        not_ok "$name" "$why"
    elif [ "$(distinct_pixels "$uni")" != "100 " ]; then
        not_ok "$name" "not every pixel is 100"
    else
        ok "$name"
    fi
    name="e: --filter sobel-x --offset 128 on a uniform image gives 128 everywhere"
    rm -f "$out"
    if ! why=$(expect_clean_run -s "$uni" --filter sobel-x --offset 128 -e -o "$out" -a all); then
        not_ok "$name" "$why"
    elif ! grep -q PASSED "$tmp/stdout"; then
        not_ok "$name" "no PASSED: the mapping must not change what -e compares"
    elif [ "$(distinct_pixels "$out")" != "128 " ]; then
        not_ok "$name" "not every pixel is 128"
    else
        ok "$name"
    fi
    probe_case "e: --scale 0.5 --offset 10 maps the target ROI only (100 -> 60, 100 outside)" \
        "3 5 8 5 15 0" "100 60 60" -s "$uni" -c 0,1,0 --scale 0.5 --offset 10 -tL 8 -W 8
    # Sign convention: sobel-x is positive where the intensity rises to the right. With a
    # constant-0 border the uniform image rises at its left edge and falls at its right:
    # interior rows give 4 * (+-100) there, * 0.25 + 128 = 228 and 28; between them, 128.
    probe_case "e: sobel-x sign: positive where the intensity rises to the right" \
        "0 8 8 8 15 8" "228 128 28" -s "$uni" --filter sobel-x --border constant --scale 0.25 \
        --offset 128 -e
    probe_case "e: sobel-y sign: positive where the intensity rises downwards" \
        "8 0 8 8 8 15" "228 128 28" -s "$uni" --filter sobel-y --border constant --scale 0.25 \
        --offset 128 -e
}

# The manual page: renders without warnings, and documents every long option -h lists.
part_e_manual() {
    page=$root/tiledconv.1
    name="e: tiledconv.1 renders without warnings (groff -man -ww)"
    if ! command -v groff >/dev/null 2>&1; then
        ok "$name # SKIP groff is not installed"
    elif [ ! -f "$page" ]; then
        not_ok "$name" "no $page"
    elif ! groff -man -Tutf8 -ww -z "$page" >"$tmp/groff.out" 2>&1 || [ -s "$tmp/groff.out" ]; then
        not_ok "$name" "$(first_line "$tmp/groff.out")"
    else
        ok "$name"
    fi
    name="e: tiledconv.1 documents every long option that -h lists"
    run "$bin" -h
    missing=
    # shellcheck disable=SC2013  # one option per word is what is wanted
    for opt in $(grep -o -e '--[a-z][a-z0-9-]*' "$tmp/stdout" | sort -u); do
        # In roff every dash of an option is written \-.
        pattern=$(echo "$opt" | sed 's/-/\\\\-/g')
        grep -q -e "$pattern" "$page" 2>/dev/null || missing="$missing $opt"
    done
    if [ -n "$missing" ]; then not_ok "$name" "missing:$missing"; else ok "$name"; fi
}

part_e() {
    part_e_manual
    part_e_lengths_and_names
    part_e_borders
    part_e_color
    part_e_raw
    part_e_mapping
}

# A size larger than the default device can hold, from what it reports (tests/device-limits.sh);
# empty where no image under --max-pixels' ceiling is too large for it.
# shellcheck source=tests/device-limits.sh
. "$root/tests/device-limits.sh"
too_big=$(oversized_for_device "$bin")

# --- f. hardening: tests/e2e-hardening.sh ----------------------------------------------------
# shellcheck source=tests/e2e-hardening.sh
. "$root/tests/e2e-hardening.sh"

# --- m. long filters, a length per axis, masks: tests/e2e-masks.sh ----------------------------
# shellcheck source=tests/e2e-masks.sh
. "$root/tests/e2e-masks.sh"

# --- d. bad inputs ----------------------------------------------------------------------------
# One row per line: the expected exit status (or "1/2": either), then the arguments as sh words
# (expanded with eval, so $out, $img, $in, $o and $fmt may be used). Every row is run with its
# working directory in $o, the only place an output should appear, so that a default
# TiledConv_Output.bmp or a left-over temporary file would show up too. Standard input is
# /dev/null, or the file a leading "stdin=FILE" word names; with -o -, standard output must stay
# empty.
#   $img  the bundled 512 x 512 image        $out  $o/out.bmp, the output name of every row
#   $in   a folder of input fixtures          $o    the (empty) output folder
#   $fmt  tests/data/formats (PNG, JPEG, PGM/PPM fixtures, hostile-* among them)
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
2   -s "$img" -o "$out" -f 65
2   -s "$img" -o "$out" -f 1x1
2   -s "$img" -o "$out" -f 3x4
2   -s "$img" -o "$out" -f 64x3
2   -s "$img" -o "$out" -f 3x
2   -s "$img" -o "$out" -f 16
2   -s "$img" -o "$out" -f 1
2   -s "$img" -o "$out" -f 0
2   -s "$img" -o "$out" -c 1,2
2   -s "$img" -o "$out" -f 5 -c 1,2,3
2   -s "$img" -o "$out" -c 1,2,3,4,5 -f 3
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
2   -s "$img" -o "$out" --cx
2   -s "$img" -o "$out" --cy
2   -s "$img" -o "$out" --cx 1,2
2   -s "$img" -o "$out" --cy 1,2,3,4,5 -f 5x3
2   -s "$img" -o "$out" --mask 1,2,3,4
2   -s "$img" -o "$out" --mask '1,2,3;4,5,6'
2   -s "$img" -o "$out" --mask '1,2,3;4,5,6;7,8'
2   -s "$img" -o "$out" --mask '1,2,3;4,nan,6;7,8,9'
2   -s "$img" -o "$out" --mask '1,2,3;4,a,6;7,8,9'
2   -s "$img" -o "$out" --mask '1,2,3;4,5,6;7,8,9' -c 1,2,1
2   -s "$img" -o "$out" --mask '1,2,3;4,5,6;7,8,10' -a twopass
2   -s "$img" -o "$out" --mask @"$in/text.bmp"
2   -s "$img" -o "$out" --filter laplacian -f 5
2   -s "$img" -o "$out" --filter laplacian -a twopass
2   -s "$img" -o "$out" --amount 2
2   -s "$img" -o "$out" --filter sharpen --amount x
2   -s "$img" -o "$out" --filter sobel-x -f 33
2   -s "$img" -o "$out" --cx 1,x,1
2   -s "$img" -o "$out" --cy ""
2   -s "$img" -o "$out" -c 1,2,1 --cx 1,2,1
2   -s "$img" -o "$out" --cy 1,2,1 -c 1,2,1
2   -s "$img" -o "$out" --filter
2   -s "$img" -o "$out" --filter sobel
2   -s "$img" -o "$out" --filter ""
2   -s "$img" -o "$out" --filter box -c 1,2,1
2   -s "$img" -o "$out" --filter gauss --cx 1,2,1
2   -s "$img" -o "$out" --filter scharr-x -f 5
2   -s "$img" -o "$out" --filter box -f 4
2   -s "$img" -o "$out" --sigma
2   -s "$img" -o "$out" --sigma 1
2   -s "$img" -o "$out" --filter box --sigma 1
2   -s "$img" -o "$out" --filter gauss --sigma 0
2   -s "$img" -o "$out" --filter gauss --sigma -2
2   -s "$img" -o "$out" --filter gauss --sigma x
2   -s "$img" -o "$out" --filter gauss --sigma nan
2   -s "$img" -o "$out" --border
2   -s "$img" -o "$out" --border mirror
2   -s "$img" -o "$out" --border ""
2   -s "$img" -o "$out" --border constant=
2   -s "$img" -o "$out" --border constant=x
2   -s "$img" -o "$out" --border constant=inf
2   -s "$img" -o "$out" --border wrap=1
2   -s "$img" -o "$out" --offset
2   -s "$img" -o "$out" --offset x
2   -s "$img" -o "$out" --offset 1e999
2   -s "$img" -o "$out" --scale
2   -s "$img" -o "$out" --scale nan
2   -s "$img" -o "$out" --scale 2x
2   -s "$img" -o "$out" --color=1
2   -s "$img" -o "$out" --raw
2   -s "$img" -o "$out" --raw ""
2   -s "$img" -o "$out" --raw "$o"
2   -s "$img" -o "$out" --raw /dev/null
2   -g 8x8 -o "$out" --raw /proc/tiledconv-cannot-write-here.f32
2   -s "$img" -o "$out" --raw "$o/no/such/folder/out.raw"
2   -s "$img" -o "$out" --raw "$out"
2   -s "$img" -o "$o/./out.bmp" --raw "$out"
2   -s "$in/copy.bmp" -o "$out" --raw "$in/copy.bmp"
2   -s "$in/copy.bmp" -o "$out" --raw "$in/link.bmp"
2   -s "$img" -o "$out" --color --raw "$o/out.raw" -sL 600
2   -o "$out" --color -s "$in/truncated.bmp" --raw "$o/out.raw"
2   -s "$img" -o "$o/out.tif"
2   -s "$img" -o "$o/out.png" --format jpeg
2   -s "$img" -o - --format tiff
2   -s "$img" -o "$out" --format
2   -s "$img" -o "$o/out.png" --depth 12
2   -s "$img" -o "$out" --depth 16
2   -s "$img" -o "$o/out.jpg" --depth 16
2   -s "$img" -o - --depth 16
2   -s "$img" -o "$o/out.jpg" --quality 0
2   -s "$img" -o "$o/out.jpg" --quality 101
2   -s "$img" -o "$o/out.jpg" --quality x
2   -s "$img" -o "$out" --raw -
2   -s - -o "$out"
2   stdin=/dev/zero -s - -o "$o/out.png"
2   stdin=/dev/zero -s - -o -
2   stdin=$in/text.bmp -s - -o - --format png
2   stdin=$fmt/g8.png -s - "$img" -O "$o"
2   stdin=$fmt/g8.png -s - -O "$o"
2   stdin=$fmt/g8.png -s - --files-from -  --no-output
2   -o "$out" -s /dev/zero
2   -o - -s "$in/gif.png"
2   -o - --format png -s "$fmt/hostile-crc.png"
2   -o "$o/out.png" -s "$fmt/hostile-wide.png"
2   -o "$o/out.png" -s "$fmt/hostile-bomb.png"
2   -o "$o/out.png" -s "$fmt/bad-p4-index.png"
2   -o "$o/out.png" -s "$in/cut-ihdr.png"
2   -o "$o/out.png" -s "$in/cut-idat.png"
2   -o "$o/out.png" -s "$in/cut-iend.png"
2   -o "$o/out.png" --color -e -s "$in/cut-idat.png"
2   -o "$o/out.jpg" -s "$fmt/hostile-bomb.jpg"
2   -o "$o/out.jpg" -s "$fmt/hostile-huge.jpg"
2   -o "$o/out.jpg" -s "$in/cut-sof.jpg"
2   -o "$o/out.jpg" -s "$in/cut-scan.jpg"
2   -o "$o/out.jpg" -s "$in/cut-eoi.jpg"
2   -o - --format jpeg -s "$in/cut-scan.jpg"
2   -o "$o/out.pgm" -s "$in/maxval0.pgm"
2   -o "$o/out.pgm" -s "$in/maxval70000.pgm"
2   -o "$o/out.pgm" -s "$in/overflow.pgm"
2   -o "$o/out.pgm" -s "$in/huge.pgm"
2   -o "$o/out.pgm" -s "$in/cut.pgm"
2   -o "$o/out.ppm" --color -s "$in/cut16.ppm"
2   -o "$o/out.pgm" -s "$in/above-maxval.pgm"
2   -o "$o/out.pgm" -e -s "$in/above-maxval.pgm"
2   -O "$o" --format png "$in/maxval0.pgm"
2   -o "$out" -s ""
2   -o "$out" -s /dev/urandom
2   -o "$out" -s "$in/bomb-rle8-eob.bmp"
2   -o "$out" -s "$in/bomb-rle8-delta.bmp"
2   -o "$out" -s "$in/bomb-rle8-absolute.bmp"
2   -o "$out" -s "$in/bomb-rle4-eob.bmp"
2   -o "$out" -s "$in/bomb-rle4-delta.bmp" --color
2   -o "$out" -s "$in/a${nl}b.bmp"
2   -o "$out" -g 65536x16384
2   -o "$out" -g 16x16 --max-pixels 255
2   -o "$out" -s "$img" --max-pixels 262143
2   -o "$out" -g 16x16 --max-pixels 0
2   -o "$out" -g 16x16 --max-pixels x
2   -o "$out" -g 16x16 --force=yes
2   -o "$out" -g 16x16 -c 1e19,1e19,1e19 -e
2   -o "$out" -g 16x16 -c 1e10,1e10,1e10 --border constant=1e30
2   -o "$out" -g 16x16 --cx 1e20,0,0 --cy 1e20,0,0 -a all
2   -o "$out" -g 16x16 --filter gauss --sigma 1e-200
2   -o "$out" -g 16x16 --filter gauss --sigma 1e-310
2   -o "$out" -g 16x16 -f 4294967299
2   -o "$out" -g 16x16 -sLx
2   -o "$out" -g 16x16 -tT16
2   -o "$out" -g 16x16 -c "1${nl}2,1"
2   -o "$out" -g 8192x8192 -e --raw /proc/tiledconv-out.f32
2   -o "$in/ro.bmp" -g 16x16
2   -o "$out" ""
2   -O "$o" "$img" ""
2   -O "$o" --files-from "$in/dir"
2   -O "$o" --files-from /dev/zero
2   -O "$o" --files-from "$in/nul-list"
2   -O "$o" --files-from "$in/long-list"
2   -o "$out" -s "$img" --class-map "$out"
2   -o "$o/x.png" -s "$img" --raw "$o/m.png" --class-map "$o/./m.png"
2   -O "$o" --pyramid 0x3 "$img"
2   -O "$o" --pyramid 5 "$img"
2   -O "$o" --pyramid 99999999999999999999x2 "$img"
2   stdin=$in/long-chunk.png -s - -o "$out"
EOF
    # An image over the device's own limits (not the machine's: see tests/device-limits.sh).
    if [ -n "$too_big" ]; then
        echo "2   -o \"\$out\" -g $too_big --max-pixels $too_big"
    fi
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
    # Broken PNG, JPEG and PGM/PPM files: cut inside a chunk or segment (each offset lies inside
    # the named part of the fixture), and PGM headers with one bad field each.
    fmt=$root/tests/data/formats
    head -c 20 "$fmt/g8.png" >"$in/cut-ihdr.png"
    head -c 80 "$fmt/rgb8.png" >"$in/cut-idat.png"
    size=$(wc -c <"$fmt/g8.png")
    head -c $((size - 4)) "$fmt/g8.png" >"$in/cut-iend.png"
    head -c 170 "$fmt/base420.jpg" >"$in/cut-sof.jpg"
    head -c 700 "$fmt/base420.jpg" >"$in/cut-scan.jpg"
    size=$(wc -c <"$fmt/base420.jpg")
    head -c $((size - 2)) "$fmt/base420.jpg" >"$in/cut-eoi.jpg"
    printf 'GIF89a\001\000\001\000\000\000\000' >"$in/gif.png"
    printf 'P5\n2 2\n0\n\000\000\000\000' >"$in/maxval0.pgm"
    printf 'P5\n2 1\n70000\n\000\000\000\000' >"$in/maxval70000.pgm"
    printf 'P2\n99999999999999999999 1\n255\n0\n' >"$in/overflow.pgm"
    printf 'P5\n65536 65536\n255\n\000\000\000\000' >"$in/huge.pgm"
    printf 'P2\n2 1\n100\n50 200\n' >"$in/above-maxval.pgm"
    head -c 150 "$fmt/g8.pgm" >"$in/cut.pgm"
    head -c 600 "$fmt/rgb1000.ppm" >"$in/cut16.ppm"
    make_bombs "$in"
    # Lists with a NUL byte on line 2 and a line longer than PATH_MAX; a PNG whose second
    # chunk declares 2^31 - 1 bytes (from a stream, refused at its header).
    printf '%s\nx\000y\n' "$img512" >"$in/nul-list"
    head -c 5000 /dev/zero | tr '\000' a >"$in/long-list"
    { head -c 33 "$fmt/g8.png"; printf '\177\377\377\377tEXt'; } >"$in/long-chunk.png"
    echo "read-only" >"$in/ro.bmp"
    chmod 444 "$in/ro.bmp"
    nl='
'
    # Every input file, bundled or fixture, must be byte-for-byte the same after every row.
    sums() {
        find "$images" "$in" "$fmt" -type f | sort | xargs cksum
    }
    baseline=$(sums)

    bad_input_table | while IFS= read -r row; do
        expect=${row%% *}
        args=${row#"$expect"}
        args=$(echo "$args" | sed 's/^ *//')
        name="d: tiledconv $args -> exit $expect"
        stdin=/dev/null
        case $args in
            stdin=*)
                stdin=$(eval "echo ${args%% *}" | sed 's/^stdin=//')
                args=${args#* }
                ;;
        esac
        eval "set -- $args"
        (cd "$o" && "$bin" "$@" <"$stdin" >"$tmp/stdout" 2>"$tmp/stderr")
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
        elif [ -s "$tmp/stdout" ] && [ "${args#*-o -}" != "$args" ]; then
            not_ok "$name" "$(wc -c <"$tmp/stdout" | tr -d ' ') bytes reached standard output"
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
    part_e
    part_f
    part_m
fi
# shellcheck disable=SC2119
part_d

test_end
