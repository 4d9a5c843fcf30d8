#!/bin/sh
# --gradient end to end (the one-read gradient, docs/kernels.md), on the default device:
#   a. -e on the bundled image; --raw's three planes against the plain filters' --raw outputs
#      (--filter sobel-x, sobel-y: gx and gy) and the magnitude against sqrt(gx^2 + gy^2) of
#      those, within the printed tolerances; outside the target ROI every plane is the input;
#      the 8-bit image against --scale/--offset of the raw magnitude, pixel by pixel;
#   b. -t's comparison line, -a all's table with both methods checked, the --json records
#      (their SHA-256 against the written image's pixels), -v's classes against the tiled
#      kernel's for the same layout;
#   c. a planted wrong pixel: FAILED, exit 1, no file; the refusals: exit 2, one line, no file;
#   d. the magnitude in every output format (and 16 bits from a 16-bit input), --class-map
#      (the tiled kernel's map), -e's fields in the CSV records.
# Usage: sh tests/gradient.sh ./tiledconv   (from the project root). Prints "ok - ..." or
# "not ok - ...: why" per case, then "gradient: N passed, M failed"; exit 1 when any failed.

. "$(dirname "$0")/lib.sh"
test_begin gradient "$@"
first_line() {
    sed -n 1p "$1"
}

# --- a. what is computed -----------------------------------------------------------------------
"$bin" -s "$root/images/TiledConv_Input512x512.bmp" --gradient sobel -e -o "$tmp/edges.bmp" \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && grep -q '^PASSED' "$tmp/out" && [ -s "$tmp/edges.bmp" ] && [ ! -s "$tmp/err" ] &&
    ok "a: --gradient sobel -e on the bundled image: PASSED, written" ||
    not_ok "a: --gradient sobel -e on the bundled image" "exit $rc: $(first_line "$tmp/err")"

# One layout: an unaligned source and target ROI, reflect101, a mapping; the input plane is
# the identity filter's output (-c 0,1,0), which equals it everywhere.
layout="-g 97x80 -sL 3 -sT 2 -tL 6 -tT 1 -W 85 -H 70 --border reflect101"
for op in sobel scharr; do
    # shellcheck disable=SC2086
    "$bin" $layout --gradient $op -e --raw "$tmp/g.f32" -o "$tmp/g.bmp" --scale 0.25 \
        --offset 3 >"$tmp/out" 2>"$tmp/err" &&
        "$bin" $layout -q --filter $op-x --raw "$tmp/x.f32" --no-output &&
        "$bin" $layout -q --filter $op-y --raw "$tmp/y.f32" --no-output &&
        "$bin" $layout -q -c 0,1,0 --raw "$tmp/in.f32" --no-output
    rc=$?
    tols=$(sed -n 's/.*(tolerance \([0-9.e+-]*\) for the magnitude, \([0-9.e+-]*\) for gx and gy.*/\1 \2/p' "$tmp/out" | sed -n 1p)
    if [ "$rc" -ne 0 ] || [ -z "$tols" ] || ! grep -q '^PASSED' "$tmp/out"; then
        not_ok "a: $op --raw and the plain filters" "exit $rc, tolerances '$tols': $(first_line "$tmp/err")"
        continue
    fi
    verdict=$(python3 - "$tmp" $tols <<'PY'
import math, struct, sys
tmp, tol_m, tol_g = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
W, H, SL, ST, TL, TT, RW, RH = 97, 80, 3, 2, 6, 1, 85, 70
def planes(name, n):
    d = open(f"{tmp}/{name}", "rb").read()
    assert len(d) == 4 * W * H * n, f"{name}: {len(d)} bytes"
    v = struct.unpack(f"<{W * H * n}f", d)
    return [v[k * W * H:(k + 1) * W * H] for k in range(n)]
gx, gy, mag = planes("g.f32", 3)
(fx,), (fy,), (src,) = planes("x.f32", 1), planes("y.f32", 1), planes("in.f32", 1)
# The 8-bit image: rows bottom-up, padded to 4 bytes, a byte per pixel (256 grays).
b = open(f"{tmp}/g.bmp", "rb").read()
off, stride = int.from_bytes(b[10:14], "little"), (W + 3) // 4 * 4
assert int.from_bytes(b[28:30], "little") == 8
bad = []
for y in range(H):
    for x in range(W):
        i = y * W + x
        inside = TL <= x < TL + RW and TT <= y < TT + RH
        if inside:
            if abs(gx[i] - fx[i]) > 2 * tol_g or abs(gy[i] - fy[i]) > 2 * tol_g:
                bad.append(f"gx/gy at ({x}, {y}): {gx[i]} {gy[i]} vs {fx[i]} {fy[i]}")
            if abs(mag[i] - math.hypot(fx[i], fy[i])) > 2 * tol_m:
                bad.append(f"magnitude at ({x}, {y}): {mag[i]} vs {math.hypot(fx[i], fy[i])}")
            want = math.floor(min(max(mag[i] * 0.25 + 3, 0), 255) + 0.5)
        else:
            if not (gx[i] == gy[i] == mag[i] == src[i]):
                bad.append(f"outside the tROI at ({x}, {y}): {gx[i]} {gy[i]} {mag[i]} vs {src[i]}")
            want = math.floor(min(max(src[i], 0), 255) + 0.5)
        got = b[off + stride * (H - 1 - y) + x]
        if got != want:
            bad.append(f"8-bit pixel ({x}, {y}): {got}, expected {want}")
print("ok" if not bad else f"{len(bad)} differ, first: {bad[0]}")
PY
)
    [ "$verdict" = "ok" ] &&
        ok "a: $op: --raw's gx, gy against --filter $op-x/-y, the magnitude against their hypot, the input outside the tROI, the 8-bit mapping" ||
        not_ok "a: $op: --raw against the plain filters" "$verdict"
done

# --- b. the comparison and the reports --------------------------------------------------------
"$bin" -g 200x150 --gradient sobel -t -i 3 --no-output >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && grep -q '^timing, gradient-sobel ' "$tmp/out" &&
    grep -q 'counting 8 bytes per pixel (one float read, the magnitude written)' "$tmp/out" &&
    grep -q '^comparison: the two filters apart (sobel-x and sobel-y on the tiled kernel, then a magnitude kernel) take [0-9.]* ms (median), [0-9.]*x the one-read pass; they move 28 bytes per pixel, the one read 8$' "$tmp/out" &&
    ok "b: -t: the one-read timing and the comparison line" ||
    not_ok "b: -t's comparison line" "exit $rc: $(grep comparison "$tmp/out") $(first_line "$tmp/err")"

"$bin" -g 150x100 -sL 1 -tL 2 --gradient scharr -a all -t -e -i 2 --no-output >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && [ "$(grep -c '^PASSED' "$tmp/out")" -eq 2 ] &&
    grep -q '^gradient-scharr  *[0-9.]* .* 1.00x  PASSED$' "$tmp/out" &&
    grep -q '^gradient-scharr-separate  *[0-9.]* .*x  PASSED$' "$tmp/out" &&
    ok "b: -a all -e: both methods checked and in one table" ||
    not_ok "b: -a all -e" "exit $rc: $(first_line "$tmp/err")"

"$bin" -s "$root/images/TiledConv_Input512x512.bmp" --gradient sobel -e --json -i 2 \
    --scale 0.2 -o "$tmp/j.bmp" >"$tmp/out" 2>"$tmp/err"
rc=$?
verdict=$(python3 - "$tmp/out" "$tmp/j.bmp" <<'PY'
import hashlib, json, sys
recs = [json.loads(line) for line in open(sys.argv[1])]
b = open(sys.argv[2], "rb").read()
off, w, h = int.from_bytes(b[10:14], "little"), int.from_bytes(b[18:22], "little"), int.from_bytes(b[22:26], "little")
stride = (w + 3) // 4 * 4
pixels = b"".join(b[off + stride * (h - 1 - y):off + stride * (h - 1 - y) + w] for y in range(h))
names = [r["algorithm"] for r in recs]
if names != ["gradient-sobel", "gradient-sobel-separate"]:
    print(f"records {names}")
elif not all(r["verified"] is True and r["tolerance"] > 0 and r["kernel_ms_median"] > 0 for r in recs):
    print("a record not verified or without figures")
elif recs[0]["sha256"] != hashlib.sha256(pixels).hexdigest() or recs[1]["sha256"] != recs[0]["sha256"]:
    print("sha256 differs from the image's pixels")
else:
    print("ok")
PY
)
[ "$rc" -eq 0 ] && [ "$verdict" = "ok" ] &&
    ok "b: --json: a record per method, verified, the SHA-256 of the written pixels" ||
    not_ok "b: --json records" "exit $rc, $verdict: $(first_line "$tmp/err")"

classes() {
    sed -n 's/.*class 1 (free on read) \([0-9]*\), class 2 (checks reads) \([0-9]*\), class 3 (free on write) \([0-9]*\), class 4 (checks writes) \([0-9]*\).*/\1 \2 \3 \4/p' "$1"
}
"$bin" -s "$root/images/TiledConv_Input512x512.bmp" -sL 3 -sT 3 -tL 2 -tT 2 --gradient sobel -v \
    --no-output >"$tmp/out" 2>"$tmp/err"
"$bin" -s "$root/images/TiledConv_Input512x512.bmp" -sL 3 -sT 3 -tL 2 -tT 2 -v --no-output \
    >"$tmp/out2" 2>&1
[ -n "$(classes "$tmp/out")" ] && [ "$(classes "$tmp/out")" = "$(classes "$tmp/out2")" ] &&
    ok "b: -v: the gradient's groups fall in the tiled kernel's classes ($(classes "$tmp/out"))" ||
    not_ok "b: -v classes" "gradient '$(classes "$tmp/out")', tiled '$(classes "$tmp/out2")'"

# --- c. failures --------------------------------------------------------------------------------
TILEDCONV_TEST_CORRUPT=40,30 "$bin" -g 100x80 --gradient sobel -e -o "$tmp/c.bmp" \
    --raw "$tmp/c.f32" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q '^FAILED' "$tmp/out" && grep -q 'mismatch at (40, 30)' "$tmp/out" &&
    [ ! -e "$tmp/c.bmp" ] && [ ! -e "$tmp/c.f32" ] &&
    ok "c: a planted wrong pixel: FAILED, exit 1, nothing written" ||
    not_ok "c: a planted wrong pixel" "exit $rc: $(first_line "$tmp/out")"

cp "$root/images/TiledConv_Input512x512.bmp" "$tmp/one.bmp"
cp "$root/images/TiledConv_Input512x512.bmp" "$tmp/two.bmp"
mkdir "$tmp/outdir"
refuse() { # refuse LABEL WORDS...: exit 2, one line on stderr, no output file
    label=$1
    shift
    "$bin" "$@" -o "$tmp/r.bmp" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -e "$tmp/r.bmp" ] &&
        [ -z "$(ls "$tmp/outdir")" ] && ok "c: $label: exit 2, one line ($(cat "$tmp/err"))" ||
        not_ok "c: $label" "exit $rc: $(cat "$tmp/err")"
}
refuse "--gradient with --color" -s "$tmp/one.bmp" --gradient sobel --color
refuse "an unknown operator" -s "$tmp/one.bmp" --gradient prewitt
refuse "--gradient with -f" -s "$tmp/one.bmp" --gradient sobel -f 5
refuse "--gradient with --filter" -s "$tmp/one.bmp" --filter gauss --gradient scharr
refuse "--gradient with -a twopass" -s "$tmp/one.bmp" --gradient sobel -a twopass
refuse "--gradient with --block" -s "$tmp/one.bmp" --gradient sobel --block 8x4
refuse "--gradient with a bad ROI" -s "$tmp/one.bmp" --gradient sobel -sL 600
refuse "--gradient with -f WxH" -s "$tmp/one.bmp" --gradient sobel -f 5x3
refuse "--gradient with --mask" -s "$tmp/one.bmp" --gradient sobel --mask '0,1,0;1,-4,1;0,1,0'
refuse "--gradient with --filter laplacian" -s "$tmp/one.bmp" --gradient scharr --filter laplacian
refuse "--gradient with --storage image" -s "$tmp/one.bmp" --gradient sobel --storage image
refuse "--gradient with -a all --storage image" -s "$tmp/one.bmp" --gradient sobel -a all --storage image
refuse "--gradient with -a bilinear" -s "$tmp/one.bmp" --gradient sobel -a bilinear
# In a batch, each input gets what its single run writes (tests/batch.sh compares the bytes).
"$bin" -q --gradient sobel -O "$tmp/outdir" "$tmp/one.bmp" "$tmp/two.bmp" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && [ -s "$tmp/outdir/one.bmp" ] && [ -s "$tmp/outdir/two.bmp" ] &&
    ok "c: --gradient in a batch: one output per input" ||
    not_ok "c: --gradient in a batch" "exit $rc: $(cat "$tmp/err")"

# --- d. the output formats, the class map, -e's fields in the records ---------------------------
# The magnitude's 8-bit image is the same pixels in every lossless format and through -o -;
# JPEG decodes to its size. formats-util.py reads each with code that shares nothing with the
# tool's.
util="python3 $root/tests/formats-util.py"
img="$root/images/TiledConv_Input512x512.bmp"
"$bin" -q -s "$img" --gradient sobel -o "$tmp/f.bmp" &&
    "$bin" -q -s "$img" --gradient sobel -o "$tmp/f.png" &&
    "$bin" -q -s "$img" --gradient sobel -o "$tmp/f.pgm" &&
    "$bin" -q -s "$img" --gradient sobel -o - --format png >"$tmp/s.png" &&
    "$bin" -q -s "$img" --gradient sobel -o "$tmp/f.jpg" 2>"$tmp/err"
rc=$?
want=$($util samples "$tmp/f.bmp" 2>&1)
same=yes
for f in f.png f.pgm s.png; do
    [ "$($util samples "$tmp/$f" 2>&1)" = "$want" ] || same="$f differs"
done
[ "$rc" -eq 0 ] && [ "$same" = yes ] && [ "${want%% *}" = 512 ] &&
    djpeg -pnm "$tmp/f.jpg" 2>/dev/null | head -c 15 | grep -q '512 512' &&
    ok "d: the magnitude as BMP, PNG, PGM and PNG on standard output: the same pixels; JPEG" ||
    not_ok "d: the output formats" "exit $rc, $same: $(first_line "$tmp/err")"

# A 16-bit input keeps 16 bits in PNG: round(clamp(magnitude, 0, 255) x 65535 / 255) of the
# --raw magnitude (the third plane), as a filter's output would.
"$bin" -q -s "$root/tests/data/formats/g16.png" --gradient scharr --scale 0.05 \
    --raw "$tmp/m3.f32" -o "$tmp/m16.png" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 0 ]; then
    python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); n = len(d) // 3; open(sys.argv[2], "wb").write(d[2 * n:])' \
        "$tmp/m3.f32" "$tmp/m.f32"
    $util map16 "$tmp/m.f32" "$tmp/m16.png" 0.05 0 2>"$tmp/err"
    rc=$?
fi
[ "$rc" -eq 0 ] && [ "$($util samples "$tmp/m16.png" | cut -d' ' -f4)" = 65535 ] &&
    ok "d: a 16-bit input's magnitude as a 16-bit PNG, sample for sample" ||
    not_ok "d: 16-bit output" "exit $rc: $(first_line "$tmp/err")"

# --class-map: the gradient's work-groups are the tiled kernel's (32 x 32 tiles, radius 1), so
# its map is the plain filter's map of the same layout, pixel for pixel.
art="-s $img -sL 3 -sT 3 -tL 2 -tT 2"
# shellcheck disable=SC2086
"$bin" $art -q --gradient sobel -e --no-output --class-map "$tmp/gmap.png" >"$tmp/out" 2>"$tmp/err" &&
    "$bin" $art -q --no-output --class-map "$tmp/tmap.png" 2>>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && [ -s "$tmp/gmap.png" ] &&
    [ "$($util samples "$tmp/gmap.png")" = "$($util samples "$tmp/tmap.png")" ] &&
    ok "d: --class-map with --gradient: the tiled kernel's map of the same layout" ||
    not_ok "d: --class-map with --gradient" "exit $rc: $(first_line "$tmp/err")"

# -e's fields in a CSV record, as for every filter: the tolerance the text prints, the largest
# difference, the SHA-256 of the 8-bit pixels written; 3 x 3 taps, no mask.
"$bin" -s "$img" --gradient scharr -e --csv -o "$tmp/c.pgm" >"$tmp/out" 2>"$tmp/err"
rc=$?
verdict=$(python3 - "$tmp/out" "$tmp/c.pgm" <<'PY'
import csv, hashlib, sys
rows = list(csv.DictReader(open(sys.argv[1])))
pixels = open(sys.argv[2], "rb").read()[-512 * 512:]
digest = hashlib.sha256(pixels).hexdigest()
bad = [r["algorithm"] for r in rows
       if not (r["verified"] == "true" and 0 < float(r["tolerance"]) < 0.05 and
               0 <= float(r["max_difference"]) <= float(r["tolerance"]) and
               r["sha256"] == digest and r["taps"] == "3" and r["taps_y"] == "3" and
               r["mask"] == "none")]
names = [r["algorithm"] for r in rows]
print("ok" if names == ["gradient-scharr", "gradient-scharr-separate"] and not bad
      else f"records {names}, wrong fields in {bad}")
PY
)
[ "$rc" -eq 0 ] && [ "$verdict" = ok ] &&
    ok "d: -e --csv: tolerance, max_difference and the written pixels' SHA-256 in both records" ||
    not_ok "d: -e --csv" "exit $rc, $verdict: $(first_line "$tmp/err")"

test_end
