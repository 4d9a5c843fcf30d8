#!/bin/sh
# Image objects beside buffers and the bilinear-tap trick (docs/kernels.md), end to end on the
# default device:
#   a. --storage image: tiled and onepass on the bundled images with the article's ROIs, -e
#      passing and the files byte for byte the buffer path's (single runs and the pipeline a
#      plain run takes); every border rule with -a all --storage image (six rows checked).
#   b. -a bilinear: every border rule and several filters within the printed tolerance, and on
#      a CPU device (PoCL interpolates in float) within 0.01 of the exact filter; a planted
#      error beyond the tolerance fails -e and writes nothing; -v shows the samples.
#   c. the records: -a all --storage image --json (storage, tolerances), bilinear's left out
#      with a note for a filter that does not pair.
#   d. refusals: each one line on stderr, exit 2, no file: twopass with images, --storage
#      buffer with bilinear, taps that do not pair (kx and ky), a bad --storage, a device
#      without images (--tune no-images=1, single run and batch), an image wider than
#      the device's 2-D images.
#   e. batches: --storage image and bilinear over two files, equal to single runs.
#   f. long filters and masks: --storage image with long filters, a length per axis and masks
#      (the float planes byte for byte the buffer path's), bilinear with a length per axis and a
#      rank-1 mask, -a all with a mask that is not separable (twopass not applicable, bilinear
#      left out with a note), -a bilinear refusing such a mask.
# Usage: sh tests/images.sh ./tiledconv   (from the project root). Prints "ok - ..." or
# "not ok - ...: why" per case, then "images: N passed, M failed"; exit 1 when any failed.

. "$(dirname "$0")/lib.sh"
test_begin images "$@"
unset TILEDCONV_TEST_CORRUPT
# check NAME CONDITION-RESULT WHY: ok when the previous test command succeeded.
check() {
    if [ "$2" -eq 0 ]; then ok "$1"; else not_ok "$1" "$3"; fi
}
# The default device is the first GPU if there is one; PoCL (the CPU) interpolates in float.
if "$bin" -l | grep -q '\[GPU'; then cpu=0; else cpu=1; fi

# --- a. --storage image ----------------------------------------------------------------------
roi="-sL 3 -sT 3 -tL 2 -tT 2"
for img in TiledConv_Input512x512 TiledConv_Input451x300; do
    for alg in tiled onepass; do
        in=$root/images/$img.bmp
        # shellcheck disable=SC2086
        "$bin" -s "$in" $roi -f 5 --border reflect101 -a $alg -e -q -o "$tmp/buf.bmp" \
            >"$tmp/out1" 2>&1 &&
        "$bin" -s "$in" $roi -f 5 --border reflect101 -a $alg --storage image -e -q \
            -o "$tmp/img.bmp" >"$tmp/out2" 2>&1
        rc=$?
        [ "$rc" -eq 0 ] && grep -q '^PASSED' "$tmp/out2" && cmp -s "$tmp/buf.bmp" "$tmp/img.bmp"
        check "a: $img, $alg --storage image -e: PASSED, the buffer path's file byte for byte" \
            $? "exit $rc: $(cat "$tmp/out1" "$tmp/out2" | head -3)"
    done
done
# A plain run (the batch pipeline: planes formed on the device, then the image read).
in=$root/images/TiledConv_Input1000x872.bmp
"$bin" -s "$in" -f 7 --filter gauss -o "$tmp/p-buf.png" >/dev/null 2>"$tmp/err" &&
"$bin" -s "$in" -f 7 --filter gauss --storage image -o "$tmp/p-img.png" >/dev/null 2>>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && cmp -s "$tmp/p-buf.png" "$tmp/p-img.png"
check "a: a plain run (the pipeline) with --storage image: the buffer path's file" $? \
    "exit $rc: $(head -2 "$tmp/err")"
for border in replicate constant=7 reflect101 reflect wrap; do
    "$bin" -g 100x80 -sL 5 -sT 3 -tL 2 -tT 6 -W 90 -H 70 -f 5 --border "$border" -a all \
        --storage image -e -t --no-output >"$tmp/out" 2>&1
    rc=$?
    rows=$(grep -cE '^(tiled|tiled/image|twopass|onepass|onepass/image|bilinear) .*PASSED$' \
        "$tmp/out")
    [ "$rc" -eq 0 ] && [ "$(grep -c '^PASSED' "$tmp/out")" -eq 6 ] && [ "$rows" -eq 6 ]
    check "a: -a all --storage image, border $border: six rows, each PASSED" $? \
        "exit $rc, $rows rows: $(grep -E 'FAILED|tiledconv:' "$tmp/out" | head -3)"
done
"$bin" -s "$root/images/TiledConv_Input451x300.bmp" --color --storage image -a onepass -e \
    -q --no-output >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q '^PASSED' "$tmp/out"
check "a: --color --storage image: the three planes PASSED" $? "exit $rc: $(head -3 "$tmp/out")"

# --- b. -a bilinear ------------------------------------------------------------------------
# largest LOG: the largest difference -e printed.
largest() {
    sed -n 's/^PASSED (largest difference \(.*\))$/\1/p' "$1"
}
for case in "replicate --filter gauss -f 7" "constant=40 --filter box -f 5" \
    "reflect101 --filter binomial -f 3" "reflect --filter sobel-x" "wrap --filter gauss -f 15" \
    "reflect101 --cx 0.1,0.2,0.4,0.2,0.1 --cy 0.05,0.15,0.6,0.15,0.05 -f 5"; do
    # shellcheck disable=SC2086
    "$bin" -g 96x70 -sL 4 -sT 2 -tL 1 -tT 5 -W 80 -H 60 --border $case -a bilinear -e \
        --no-output >"$tmp/out" 2>&1
    rc=$?
    big=$(largest "$tmp/out")
    near=$(python3 -c "print(int($cpu == 0 or float('${big:-1e9}') < 0.01))")
    [ "$rc" -eq 0 ] && [ -n "$big" ] && [ "$near" -eq 1 ] &&
        grep -q 'interpolation fraction' "$tmp/out"
    check "b: -a bilinear --border $case: PASSED, largest difference $big" $? \
        "exit $rc, largest '$big' (cpu $cpu): $(grep -E 'FAILED|tiledconv:|mismatch' "$tmp/out" | head -3)"
done
# A planted error beyond the tolerance (about 1.6 gray levels here) fails, and nothing is
# written; one of 1 passes (the tolerance is stated and holds both ways).
TILEDCONV_TEST_CORRUPT=10,20,10 "$bin" -g 64x48 -a bilinear -e -o "$tmp/corrupt.bmp" \
    >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 1 ] && grep -q '^FAILED' "$tmp/out" && grep -q 'mismatch at (10, 20)' "$tmp/out" &&
    [ ! -e "$tmp/corrupt.bmp" ]
check "b: -a bilinear with a pixel 10 off: FAILED, exit 1, nothing written" $? \
    "exit $rc: $(head -8 "$tmp/out" | tail -3)"
TILEDCONV_TEST_CORRUPT=10,20,1 "$bin" -g 64x48 -a bilinear -e --no-output >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && [ "$(largest "$tmp/out" | cut -c1)" = "1" ]
check "b: -a bilinear with a pixel 1 off, inside its tolerance: PASSED, largest difference 1" \
    $? "exit $rc: $(tail -2 "$tmp/out")"
"$bin" -g 64x48 -a bilinear --filter gauss -f 7 -v --no-output >"$tmp/out" 2>&1
grep -q '^  kx: 4 samples along rows (taps 0+1 at ' "$tmp/out" &&
    grep -q 'instead of 7' "$tmp/out" && grep -q '^launch, bilinear pass 2' "$tmp/out"
check "b: -v shows bilinear's 4 samples for 7 taps and both passes" $? "$(tail -4 "$tmp/out")"

# --- c. the records ----------------------------------------------------------------------------
"$bin" -g 80x60 -f 5 --filter gauss -a all --storage image -e --json -i 2 --no-output \
    >"$tmp/json" 2>"$tmp/err"
rc=$?
summary=$(python3 - "$tmp/json" <<'PY'
import json, sys
recs = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
rows = [(r["algorithm"], r["storage"]) for r in recs]
assert rows == [("tiled", "buffer"), ("tiled", "image"), ("twopass", "buffer"),
                ("onepass", "buffer"), ("onepass", "image"), ("bilinear", "image")], rows
assert all(r["verified"] for r in recs)
exact = recs[0]["tolerance"]
assert all(r["tolerance"] == exact for r in recs[:5])
assert recs[5]["tolerance"] > 100 * exact        # the interpolation's share
assert recs[5]["pass1_ms_median"] is not None and recs[5]["pass2_ms_median"] is not None
assert len({r["sha256"] for r in recs[:5]}) == 1  # the exact paths: the same 8-bit pixels
print("ok")
PY
)
[ "$rc" -eq 0 ] && [ "$summary" = "ok" ] && [ ! -s "$tmp/err" ]
check "c: -a all --storage image --json: six records, storage, tolerances, digests" $? \
    "exit $rc: $summary $(head -2 "$tmp/err")"
"$bin" -g 64x48 -c 1,-2,1 -a all --storage image -e -t --no-output >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
    grep -q '^tiledconv: -a all: bilinear left out: kx\[0\] = 1 and kx\[1\] = -2' "$tmp/err" &&
    [ "$(grep -c '^PASSED' "$tmp/out")" -eq 5 ] && ! grep -q '^bilinear' "$tmp/out"
check "c: -a all --storage image with taps that do not pair: five rows, one note" $? \
    "exit $rc: $(cat "$tmp/err")"

# --- d. refusals ---------------------------------------------------------------------------------
# refused NAME ARGS...: exit 2, one line on stderr that contains no control character,
# nothing on stdout, no output file.
refused() {
    name=$1
    shift
    rm -f "$tmp/refused.bmp"
    "$bin" "$@" -o "$tmp/refused.bmp" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ] &&
        [ ! -e "$tmp/refused.bmp" ] && grep -q "^tiledconv: " "$tmp/err"
    check "d: $name: exit 2, one line" $? "exit $rc: $(cat "$tmp/err" "$tmp/out" | head -3)"
}
refused "-a twopass --storage image" -g 64x48 -a twopass --storage image
refused "-a bilinear --storage buffer" -g 64x48 -a bilinear --storage buffer
refused "-a bilinear -c 1,-2,1" -g 64x48 -a bilinear -c 1,-2,1
refused "-a bilinear --cy -1,3,-1 (ky)" -g 64x48 -a bilinear --cy -1,3,-1
refused "--storage texture" -g 64x48 --storage texture
refused "no image support, --storage image" --tune no-images=1 -g 64x48 -e \
    --storage image
grep -q 'CL_DEVICE_IMAGE_SUPPORT' "$tmp/err"
check "d: the refusal names CL_DEVICE_IMAGE_SUPPORT" $? "$(cat "$tmp/err")"
refused "no image support, -a bilinear" --tune no-images=1 \
    -s "$root/images/TiledConv_Input451x300.bmp" -a bilinear -t
refused "no image support, -a all --storage image" --tune no-images=1 -g 64x48 \
    -a all --storage image -e
refused "an image wider than 2-D images allow" -g 65536x1 --storage image -e
grep -q 'CL_DEVICE_IMAGE2D_MAX_WIDTH' "$tmp/err"
check "d: the refusal names CL_DEVICE_IMAGE2D_MAX_WIDTH" $? "$(cat "$tmp/err")"
"$bin" -g 64x48 -a bilinear -c 1,-2,1 -o "$tmp/x.bmp" 2>&1 | grep -q '[[:cntrl:]]'
[ $? -ne 0 ]
check "d: the message has no control character" $? "control character found"

# --- e. batches --------------------------------------------------------------------------------
mkdir "$tmp/in" "$tmp/buf" "$tmp/img" "$tmp/bil" "$tmp/none"
cp "$root/images/TiledConv_Input451x300.bmp" "$tmp/in/a.bmp"
cp "$root/images/TiledConv_Input512x512.bmp" "$tmp/in/b.bmp"
"$bin" -q -f 5 -O "$tmp/buf" "$tmp/in/a.bmp" "$tmp/in/b.bmp" 2>"$tmp/err" &&
"$bin" -q -f 5 --storage image -O "$tmp/img" "$tmp/in/a.bmp" "$tmp/in/b.bmp" 2>>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && cmp -s "$tmp/buf/a.bmp" "$tmp/img/a.bmp" && cmp -s "$tmp/buf/b.bmp" "$tmp/img/b.bmp"
check "e: a batch with --storage image: the buffer batch's files" $? "exit $rc: $(head -2 "$tmp/err")"
"$bin" -q -f 5 -a bilinear -e -O "$tmp/bil" "$tmp/in/a.bmp" "$tmp/in/b.bmp" 2>"$tmp/err" &&
"$bin" -s "$tmp/in/a.bmp" -f 5 -a bilinear -e -q -o "$tmp/single.bmp" >/dev/null 2>>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && cmp -s "$tmp/bil/a.bmp" "$tmp/single.bmp" && [ -f "$tmp/bil/b.bmp" ]
check "e: a bilinear batch with -e: the single run's file" $? "exit $rc: $(head -2 "$tmp/err")"
"$bin" --tune no-images=1 -f 5 --storage image -O "$tmp/none" "$tmp/in/a.bmp" \
    "$tmp/in/b.bmp" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ -z "$(ls "$tmp/none")" ]
check "e: a batch on a device without images: exit 2, one line, nothing written" $? \
    "exit $rc: $(head -3 "$tmp/err")"

# --- f. long filters and masks -----------------------------------------------------------------
mask53='1,0,-2,1,3;2,-1,4,0,-2;-3,2,5,1,0'
for case in "--filter gauss -f 31" "-f 9x3" "-f 1x15 --border reflect" "--mask $mask53" \
    "--filter laplacian --border constant=9"; do
    for alg in tiled onepass; do
        # shellcheck disable=SC2086
        "$bin" -g 120x90 -sL 3 -sT 2 -tL 6 -tT 1 $case -a $alg -e -q --raw "$tmp/f-buf.f32" \
            --no-output >"$tmp/out1" 2>&1 &&
        "$bin" -g 120x90 -sL 3 -sT 2 -tL 6 -tT 1 $case -a $alg --storage image -e -q \
            --raw "$tmp/f-img.f32" --no-output >"$tmp/out2" 2>&1
        rc=$?
        [ "$rc" -eq 0 ] && grep -q '^PASSED' "$tmp/out2" &&
            cmp -s "$tmp/f-buf.f32" "$tmp/f-img.f32"
        check "f: $case, $alg --storage image -e: PASSED, the buffer path's floats" $? \
            "exit $rc: $(cat "$tmp/out1" "$tmp/out2" | head -3)"
    done
done
"$bin" -g 96x70 -sL 4 -sT 2 -tL 1 -tT 5 --filter gauss -f 31x5 --border reflect101 \
    -a bilinear -e -v --no-output >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q '^PASSED' "$tmp/out" &&
    grep -q '^  kx: 16 samples along rows .* instead of 31$' "$tmp/out" &&
    grep -q '^  ky: 3 samples along columns .* instead of 5$' "$tmp/out"
check "f: -a bilinear -f 31x5: PASSED, 16 and 3 samples" $? "exit $rc: $(tail -4 "$tmp/out")"
"$bin" -g 96x70 --mask '1,2,1;2,4,2;1,2,1' -a bilinear -e --no-output >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q '^PASSED' "$tmp/out"
check "f: -a bilinear with a rank-1 mask (its factors): PASSED" $? "exit $rc: $(tail -3 "$tmp/out")"
"$bin" -g 80x60 --filter laplacian -a all --storage image -e -t --no-output >"$tmp/out" \
    2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && [ "$(grep -c '^PASSED' "$tmp/out")" -eq 4 ] &&
    grep -q '^twopass .*not applicable' "$tmp/out" && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
    grep -q '^tiledconv: -a all: bilinear left out: the 3 x 3 mask is not separable' "$tmp/err"
check "f: -a all --storage image with a Laplacian: four rows PASSED, twopass n/a, one note" $? \
    "exit $rc: $(cat "$tmp/err") $(grep -E 'FAILED|applicable' "$tmp/out" | head -3)"
"$bin" -g 80x60 -f 9x3 -a all --storage image -e --json --no-output >"$tmp/json" 2>"$tmp/err"
rc=$?
summary=$(python3 - "$tmp/json" <<'PY'
import json, sys
recs = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
assert [(r["algorithm"], r["storage"]) for r in recs][-1] == ("bilinear", "image")
assert all((r["taps"], r["taps_y"], r["mask"]) == (9, 3, "none") for r in recs), recs[0]
assert all(r["verified"] for r in recs) and len(recs) == 6
print("ok")
PY
)
[ "$rc" -eq 0 ] && [ "$summary" = "ok" ]
check "f: -f 9x3 -a all --storage image --json: taps, taps_y, mask and storage" $? \
    "exit $rc: $summary $(head -2 "$tmp/err")"
refused "-a bilinear --filter laplacian (not separable)" -g 64x48 -a bilinear \
    --filter laplacian
grep -q 'not separable' "$tmp/err"
check "f: the refusal says the mask is not separable" $? "$(cat "$tmp/err")"

test_end
