#!/bin/sh
# --pyramid OxL end to end on the default device (docs/kernels.md, "A Gaussian scale space"):
#   a. the files in -O DIR: BASE-oK-lJ.EXT for each level, BASE as in a batch, "synthetic" for
#      -g, "stdin" for -s -; their sizes; --format; a bare --raw's .f32 files;
#   b. level (0, 0) is the plain --filter gauss --sigma S output, byte for byte (sigma0 1.6:
#      11 taps, tiled_conv's accumulating order; 1: 7 taps; 3: 19 taps, tiled_long_conv);
#   c. -e: a line per level and PASSED; a planted wrong pixel: FAILED, exit 1, nothing written;
#   d. -t: both launch styles timed, their ratio, the same levels bit for bit; --json, --csv;
#   e. refusals: exit 2, one line on stderr, nothing written;
#   f. several inputs: every image's levels, one refused image, the summary line; a file-size
#      limit that fails the first level: exit 1 and no file left behind.
# Usage: sh tests/pyramid.sh ./tiledconv   (from the project root). Prints "ok - ..." or
# "not ok - ...: why" per case, then "pyramid: N passed, M failed"; exit 1 when any failed.

. "$(dirname "$0")/lib.sh"
test_begin pyramid "$@"
check() { # check LABEL CONDITION-STATUS WHY
    if [ "$2" -eq 0 ]; then ok "$1"; else not_ok "$1" "$3"; fi
}

# bmp_size FILE: "W H" of a BMP.
bmp_size() {
    od -A n -t u4 -j 18 -N 8 "$1" | awk '{ print $1, $2 }'
}

img=images/TiledConv_Input512x512.bmp

# --- a. names and sizes ------------------------------------------------------------------------
out=$tmp/a
mkdir "$out"
"$bin" -q -s "$img" --pyramid -O "$out" >"$tmp/log" 2>&1
rc=$?
want=""
for k in 0 1 2 3; do
    for l in 0 1 2 3; do
        want="$want TiledConv_Input512x512-o$k-l$l.bmp"
    done
done
have=$(cd "$out" && ls | sort | tr '\n' ' ')
want=$(echo $want | tr ' ' '\n' | sort | tr '\n' ' ')
check "a: a bare --pyramid writes 4 x 4 levels as BASE-oK-lJ.bmp" \
    "$([ "$rc" -eq 0 ] && [ "$have" = "$want" ]; echo $?)" "exit $rc, files: $have"
sizes=""
for k in 0 1 2 3; do
    sizes="$sizes $(bmp_size "$out/TiledConv_Input512x512-o$k-l3.bmp" | tr ' ' x)"
done
check "a: octave K is 512 / 2^K (sizes$sizes)" \
    "$([ "$sizes" = " 512x512 256x256 128x128 64x64" ]; echo $?)" "sizes$sizes"

out=$tmp/a2
mkdir "$out"
"$bin" -q -g 45x33 --pyramid 3x2 -O "$out" --format png --raw >"$tmp/log" 2>&1
rc=$?
n_png=$(ls "$out"/synthetic-o*-l*.png 2>/dev/null | wc -l)
raw_sizes=$(for k in 0 1 2; do wc -c <"$out/synthetic-o$k-l1.f32"; done 2>/dev/null | tr '\n' ' ')
# 45 x 33, 23 x 17, 12 x 9, 4 bytes a pixel
check "a: -g names synthetic-oK-lJ, --format png, a bare --raw's .f32 (odd sizes halve up)" \
    "$([ "$rc" -eq 0 ] && [ "$n_png" -eq 6 ] && [ "$raw_sizes" = "5940 1564 432 " ]; echo $?)" \
    "exit $rc, $n_png PNGs, raw sizes '$raw_sizes': $(head -1 "$tmp/log")"

out=$tmp/a3
mkdir "$out"
"$bin" -q -s - --pyramid 2x1 -O "$out" <"$img" >"$tmp/log" 2>&1
rc=$?
have=$(cd "$out" && ls | tr '\n' ' ')
check "a: -s - names stdin-oK-lJ" \
    "$([ "$rc" -eq 0 ] && [ "$have" = "stdin-o0-l0.bmp stdin-o1-l0.bmp " ]; echo $?)" \
    "exit $rc, files: $have $(head -1 "$tmp/log")"

# --- b. level (0, 0) is the plain filter ---------------------------------------------------------
for sigma in 1.6 1 3; do
    out=$tmp/b$sigma
    mkdir "$out"
    "$bin" -q -s "$img" --pyramid 2x2 --sigma "$sigma" -O "$out" >"$tmp/log" 2>&1 &&
        "$bin" -q -s "$img" --filter gauss --sigma "$sigma" -o "$tmp/plain.bmp" >>"$tmp/log" 2>&1
    rc=$?
    cmp -s "$out/TiledConv_Input512x512-o0-l0.bmp" "$tmp/plain.bmp"
    check "b: level (0, 0) of --sigma $sigma is --filter gauss --sigma $sigma, byte for byte" \
        "$([ "$rc" -eq 0 ] && cmp -s "$out/TiledConv_Input512x512-o0-l0.bmp" "$tmp/plain.bmp";
           echo $?)" "exit $rc: $(head -1 "$tmp/log")"
done

# --- c. -e -------------------------------------------------------------------------------------
"$bin" -g 100x80 --pyramid 3x3 --sigma 1.2 --border reflect101 --no-output -e >"$tmp/log" 2>&1
rc=$?
lines=$(grep -c ' ok$' "$tmp/log")
check "c: -e prints a line per level (9) and PASSED" \
    "$([ "$rc" -eq 0 ] && [ "$lines" -eq 9 ] && grep -q '^PASSED (9 levels' "$tmp/log"; echo $?)" \
    "exit $rc, $lines lines: $(tail -1 "$tmp/log")"
out=$tmp/c
mkdir "$out"
TILEDCONV_TEST_CORRUPT=7,5 "$bin" -g 100x80 --pyramid 2x2 -O "$out" -e >"$tmp/log" 2>"$tmp/err"
rc=$?
check "c: a wrong pixel in level (0, 0): FAILED, exit 1, nothing written" \
    "$([ "$rc" -eq 1 ] && grep -q 'FAILED' "$tmp/log" && grep -q 'mismatch in level (0, 0) at (7, 5)' "$tmp/log" &&
       [ -z "$(ls "$out")" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; echo $?)" \
    "exit $rc, files: $(ls "$out" | tr '\n' ' ')"

# --- d. -t, --json, --csv ------------------------------------------------------------------------
"$bin" -q -g 200x150 --pyramid 3x2 --no-output -t -i 3 >"$tmp/log" 2>&1
rc=$?
check "d: -t times one launch per octave (3 launches) and one per level (8), their ratio" \
    "$([ "$rc" -eq 0 ] && grep -q 'one launch per octave *3 launches' "$tmp/log" &&
       grep -q 'one launch per level *8 launches' "$tmp/log" &&
       grep -q 'per level / per octave: [0-9.]*x' "$tmp/log" &&
       grep -q 'the same levels, bit for bit' "$tmp/log"; echo $?)" \
    "exit $rc: $(cat "$tmp/log")"
"$bin" -q -g 64x48 --pyramid 2x3 --no-output --json -e >"$tmp/log" 2>&1
rc=$?
check "d: --json: a record per launch style, one per level, identical and verified" \
    "$([ "$rc" -eq 0 ] && [ "$(grep -c '"type": "pyramid"' "$tmp/log")" -eq 2 ] &&
       [ "$(grep -c '"type": "level"' "$tmp/log")" -eq 6 ] &&
       grep -q '"launch": "per-level".*"identical": true' "$tmp/log" &&
       [ "$(grep -c '"verified": true, "tolerance": [0-9.e-]*, "max_difference": [0-9.e-]*, "sha256": "[0-9a-f]\{64\}"' "$tmp/log")" -eq 6 ];
       echo $?)" "exit $rc: $(head -3 "$tmp/log")"
"$bin" -q -g 64x48 --pyramid 2x3 --no-output --csv >"$tmp/log" 2>&1
rc=$?
check "d: --csv: one header, 2 + 6 rows with a type column" \
    "$([ "$rc" -eq 0 ] && [ "$(wc -l <"$tmp/log")" -eq 9 ] && head -1 "$tmp/log" | grep -q '^type,input,' &&
       [ "$(grep -c '^level,' "$tmp/log")" -eq 6 ]; echo $?)" "exit $rc: $(head -2 "$tmp/log")"

# --- e. refusals: exit 2, one line, nothing written ------------------------------------------------
out=$tmp/e
mkdir "$out"
: >"$tmp/readonly-src"
refuse() { # refuse LABEL ARGS...: exit 2, one line, nothing in $out
    label=$1
    shift
    "$bin" "$@" >"$tmp/log" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ -z "$(ls "$out")" ] &&
       grep -q '^tiledconv: ' "$tmp/err"; then
        ok "e: $label: $(cat "$tmp/err")"
    else
        not_ok "e: $label" "exit $rc, $(wc -l <"$tmp/err") lines: $(head -2 "$tmp/err"), files: $(ls "$out" | tr '\n' ' ')"
    fi
    rm -rf "${out:?}"/*
}
refuse "-o FILE" -g 64x64 --pyramid -o "$out/x.bmp"
refuse "neither -O nor --no-output" -g 64x64 --pyramid
refuse "-f" -g 64x64 --pyramid -f 5 -O "$out"
refuse "-c" -g 64x64 --pyramid -c 1,2,1 -O "$out"
refuse "--mask" -g 64x64 --pyramid --mask '0,1,0;1,-4,1;0,1,0' -O "$out"
refuse "--filter box" -g 64x64 --pyramid --filter box -O "$out"
refuse "-sL" -g 64x64 --pyramid -sL 3 -O "$out"
refuse "-W" -g 64x64 --pyramid -W 10 -O "$out"
refuse "-a onepass" -g 64x64 --pyramid -a onepass -O "$out"
refuse "--block" -g 64x64 --pyramid --block 4x8 -O "$out"
refuse "--storage" -g 64x64 --pyramid --storage image -O "$out"
refuse "--gradient" -g 64x64 --pyramid --gradient sobel -O "$out"
refuse "--color" -g 64x64 --pyramid --color -O "$out"
refuse "--class-map" -g 64x64 --pyramid --class-map "$out/m.bmp" -O "$out"
refuse "--pyramid 0x4" -g 64x64 --pyramid 0x4 -O "$out"
refuse "--pyramid 17x4" -g 64x64 --pyramid 17x4 -O "$out"
refuse "--pyramid 4x9" -g 64x64 --pyramid 4x9 -O "$out"
refuse "--pyramid=4x" -g 64x64 --pyramid=4x -O "$out"
refuse "--sigma 6 (2 sigma0 needs 73 taps)" -g 64x64 --pyramid --sigma 6 -O "$out"
refuse "an image too small for 5 octaves" -g 8x8 --pyramid 5x2 -O "$out"
refuse "-O a missing folder" -g 64x64 --pyramid -O "$out/none"
refuse "-O a file" -g 64x64 --pyramid -O "$tmp/readonly-src"
refuse "--raw FILE" -s "$img" --pyramid --raw="$out/r.f32" -O "$out"
refuse "two devices" -g 64x64 --pyramid -O "$out" -d 0,0
cp "$img" "$tmp/x.bmp"
mkdir "$tmp/dup"
cp "$img" "$tmp/dup/x.bmp"
refuse "two inputs of one BASE" --pyramid 2x2 -O "$out" "$tmp/x.bmp" "$tmp/dup/x.bmp"
mkdir "$out/synthetic-o1-l0.bmp"
"$bin" -g 64x64 --pyramid 2x2 -O "$out" >"$tmp/log" 2>"$tmp/err"
rc=$?
check "e: a level's name taken by a folder: exit 2 before any work, no other level written" \
    "$([ "$rc" -eq 2 ] && [ "$(ls "$out")" = "synthetic-o1-l0.bmp" ] &&
       grep -q 'synthetic-o1-l0.bmp: not a regular file' "$tmp/err"; echo $?)" \
    "exit $rc: $(cat "$tmp/err"), files: $(ls "$out" | tr '\n' ' ')"
rm -rf "${out:?}"/*
"$bin" -q -g 64x64 --pyramid 1x1 -O "$out" && chmod a-w "$out/synthetic-o0-l0.bmp"
"$bin" -q -g 64x64 --pyramid 1x1 -O "$out" 2>"$tmp/err"
rc=$?
"$bin" -q -g 64x64 --pyramid 1x1 -O "$out" --force 2>>"$tmp/err"
rc2=$?
check "e: a read-only level is replaced only with --force" \
    "$([ "$rc" -eq 2 ] && [ "$rc2" -eq 0 ] && grep -q 'read-only' "$tmp/err"; echo $?)" \
    "exit $rc and $rc2: $(cat "$tmp/err")"
rm -rf "${out:?}"/*

# --- f. several inputs; a write that fails ---------------------------------------------------
out=$tmp/f
mkdir "$out"
"$bin" -q -g 4x4 -o "$tmp/small.bmp" >/dev/null 2>&1
cp images/TiledConv_Input451x300.bmp "$tmp/b.bmp"
"$bin" --pyramid 4x2 -O "$out" "$tmp/x.bmp" "$tmp/small.bmp" "$tmp/b.bmp" >"$tmp/log" 2>"$tmp/err"
rc=$?
check "f: three inputs, one too small for 4 octaves: 16 files, exit 2, the summary line" \
    "$([ "$rc" -eq 2 ] && [ "$(ls "$out" | grep -c '^x-o[0-3]-l[01].bmp$')" -eq 8 ] &&
       [ "$(ls "$out" | grep -c '^b-o[0-3]-l[01].bmp$')" -eq 8 ] &&
       [ "$(ls "$out" | wc -l)" -eq 16 ] &&
       grep -q 'small.bmp: --pyramid 4x2: .*at most 3 octaves' "$tmp/err" &&
       grep -q '^tiledconv: 2 of 3 images written; 1 refused; 0 failed$' "$tmp/err"; echo $?)" \
    "exit $rc: $(cat "$tmp/err"), $(ls "$out" | wc -l) files"
rm -rf "${out:?}"/*
(ulimit -f 200 && exec "$bin" -q -s "$img" --pyramid 4x2 -O "$out") >"$tmp/log" 2>"$tmp/err"
rc=$?
check "f: a file-size limit fails the first level: exit 1, one line, no file left" \
    "$([ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ -z "$(ls -A "$out")" ]; echo $?)" \
    "exit $rc: $(cat "$tmp/err"), files: $(ls -A "$out" | tr '\n' ' ')"

test_end
