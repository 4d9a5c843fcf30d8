#!/bin/sh
# The device's JPEG path through the batch (--tune jpeg-device=1: the workers do the entropy
# decoding and coding alone, the lane decodes, filters and encodes on the device from
# coefficients to coefficients), end to end on the default device, against the CPU path
# (--tune jpeg-device=0, the default):
#   a. a folder of JPEGs (gray and colour; 4:2:0, 4:2:2, 4:4:0, 4:4:4; 1 x 1, 17 x 9, 333 x 211,
#      640 x 480; restart markers; progressive; arithmetic coding; a progressive file whose
#      lowest AC bits are never refined, jpegtran -scans) with a PNG and a BMP among them, run
#      both ways, gray and --color, 5 and 31 taps, with ROIs, --scale and --offset, and with
#      --sampling 444 --quality 80: every output file byte for byte the same, the same exit
#      status and the same lines on stderr
#   b. --json's records: "jpeg_decode" and "jpeg_encode" "device" for every JPEG the path takes,
#      "cpu" for the decode of the unrefined progressive file (libjpeg smooths its blocks; its
#      pixels are still encoded on the device) and for the decode of a gray file in a colour
#      job (the worker makes its RGB, which the device encodes), and on the CPU path; absent
#      for the PNG and the BMP (written as themselves)
#   c. a mixed batch written as JPEG (--format jpeg): the JPEGs through the device, the PNG
#      and the BMP (its BGR rows repacked as RGB by the worker) decoded on the CPU and encoded
#      on the device, all as the CPU path writes them
#   d. the lane's fallback (TILEDCONV_TEST_JPEG_INEXACT: every device decode taken as not
#      TurboJPEG's): the files decoded on the CPU there, the same bytes, "cpu" in the records
#   e. an image in strips (--max-memory) beside one run whole: "cpu" for the one in strips
#   f. the mixed folder of bench/make_mixed.py (two small pictures of each kind), colour and gray,
#      written as JPEG: the same files, the records naming what each decoder and encoder did
#   g. -e with jpeg-device=1: every JPEG the device decodes exactly is decoded there too and
#      compared with TurboJPEG's (the run the CPU path's); one changed sample fails those files
# Usage: sh tests/jpeg-device.sh BINARY (the test build, from the project root). Prints "ok -
# ..." or "not ok - ...: why" per case, then "jpeg-device: N passed, M failed"; exit 1 when
# any failed.

. "$(dirname "$0")/lib.sh"
test_begin jpeg-device "$@"
unset TILEDCONV_TEST_CORRUPT TILEDCONV_TEST_JPEG_INEXACT
for need in python3 jpegtran cjpeg; do
    if ! command -v $need >/dev/null 2>&1; then
        echo "not ok - $need is not installed (make test installs it)"
        echo "jpeg-device: 0 passed, 1 failed"
        exit 1
    fi
done

# --- The inputs -------------------------------------------------------------------------------
in=$tmp/in
mkdir -p "$in"
for f in arith420 base420 base422 base440 base444 gray-prog prog420 restart444; do
    cp "$root/tests/data/formats/$f.jpg" "$in/"
done
made=0
make_jpeg() { # NAME WxH [FLAGS...]: a generated picture written as JPEG by the tool
    name=$1 size=$2
    shift 2
    "$bin" -q -g "$size" "$@" -o "$in/$name.jpg" >/dev/null 2>&1 && made=$((made + 1))
}
make_jpeg c1 1x1 --color
make_jpeg c17 17x9 --color
make_jpeg c333 333x211 --color
make_jpeg c333-422 333x211 --color --sampling 422
make_jpeg c333-444 333x211 --color --sampling 444
make_jpeg c640 640x480 --color
make_jpeg g1 1x1
make_jpeg g17 17x9
make_jpeg g333 333x211
jpegtran -restart 1 "$in/c640.jpg" >"$in/c640-restart.jpg" && made=$((made + 1))
jpegtran -progressive "$in/c333-444.jpg" >"$in/c333-progressive.jpg" && made=$((made + 1))
# The luma's AC coefficients sent with their lowest bit dropped and never refined: libjpeg-turbo
# block-smooths such a file, which the device path does not reproduce.
printf '0,1,2: 0-0, 0, 0;\n0: 1-63, 0, 1;\n1: 1-63, 0, 0;\n2: 1-63, 0, 0;\n' >"$tmp/scans"
jpegtran -scans "$tmp/scans" "$in/c640.jpg" >"$in/c640-unrefined.jpg" && made=$((made + 1))
"$bin" -q -g 64x48 --color -o "$in/p64.png" >/dev/null 2>&1 && made=$((made + 1))
cp "$root/images/TiledConv_Input451x300.bmp" "$in/b451.bmp" && made=$((made + 1))
if [ "$made" -ne 14 ]; then
    not_ok "the inputs" "$made of 14 made"
    test_end
    exit 1
fi
# The JPEGs whose pixels the device path does not make, per kind of job: the unrefined file,
# and in a colour job the gray files. Every output written as JPEG is encoded on the device:
# the unrefined file's from the CPU's pixels, the gray files' and the BMP's in a colour job
# from the RGB the worker makes of them.
cpu_gray="c640-unrefined.jpg"
cpu_colour="c640-unrefined.jpg gray-prog.jpg g1.jpg g17.jpg g333.jpg"
enc_gray=""
enc_colour=""

# check_records FILE WHICH CPU-DECODED CPU-ENCODED: --json's image records in FILE: for each
# input written, jpeg_decode (JPEG inputs) and jpeg_encode (JPEG outputs) are WHICH ("device":
# but "cpu" for the files named in CPU-DECODED and CPU-ENCODED; "cpu": all), and absent for
# other formats; prints why not.
check_records() {
    python3 - "$@" <<'EOF'
import json, os, sys
path, which = sys.argv[1], sys.argv[2]
cpu_decode, cpu_encode = set(sys.argv[3].split()), set(sys.argv[4].split())
bad, seen = [], 0
for line in open(path):
    r = json.loads(line)
    if r["type"] != "image" or r["status"] != "written":
        continue
    seen += 1
    name = os.path.basename(r["input"])
    jpeg_out = r["output"].endswith(".jpg")
    on_cpu = lambda names: "cpu" if which == "cpu" or name in names else "device"
    want = (on_cpu(cpu_decode) if name.endswith(".jpg") else None,
            on_cpu(cpu_encode) if jpeg_out else None)
    got = (r.get("jpeg_decode"), r.get("jpeg_encode"))
    if got != want:
        bad.append("%s: %s, %s (want %s, %s)" % (name, got[0], got[1], want[0], want[1]))
if seen == 0:
    bad.append("no image written")
print("; ".join(bad[:4]))
sys.exit(1 if bad else 0)
EOF
}

# both NAME CPU-DECODED CPU-ENCODED ARGS...: the inputs (the files in $inputs) through the CPU
# path and through the device's with ARGS: the same files byte for byte, the same exit status
# and stderr lines (sorted: the workers finish in any order), and the records as check_records
# says.
cases=0
both() {
    name=$1 cpu=$2 cpu_enc=$3
    shift 3
    cases=$((cases + 1))
    rm -rf "$tmp/cpu" "$tmp/dev"
    mkdir -p "$tmp/cpu" "$tmp/dev"
    "$bin" --json "$@" -O "$tmp/cpu" "$inputs"/* >"$tmp/cpu.json" 2>"$tmp/cpu.err"
    rc_cpu=$?
    "$bin" --json --tune jpeg-device=1 "$@" -O "$tmp/dev" "$inputs"/* >"$tmp/dev.json" \
        2>"$tmp/dev.err"
    rc_dev=$?
    bad=
    [ "$rc_cpu" = "$rc_dev" ] || bad="exit status $rc_cpu, with the device path $rc_dev"
    if [ "$(sort "$tmp/cpu.err")" != "$(sort "$tmp/dev.err")" ]; then
        bad="$bad [stderr differs: $(sort "$tmp/dev.err" | head -n 2 | tr '\n' '|')]"
    fi
    [ "$(ls "$tmp/cpu")" = "$(ls "$tmp/dev")" ] || bad="$bad [not the same files written]"
    files=0
    for f in "$tmp/cpu"/*; do
        [ -e "$f" ] || continue
        files=$((files + 1))
        cmp -s "$f" "$tmp/dev/${f##*/}" || bad="$bad [${f##*/} differs]"
    done
    [ "$files" -gt 0 ] || bad="$bad [nothing written]"
    why=$(check_records "$tmp/cpu.json" cpu "" "") || bad="$bad [CPU path's records: $why]"
    why=$(check_records "$tmp/dev.json" device "$cpu" "$cpu_enc") ||
        bad="$bad [device path's records: $why]"
    verdict "$name: $files files the same both ways, the records right"
}

# --- a, b. Both ways, the records -------------------------------------------------------------
inputs=$in
both "gray, 5 taps" "$cpu_gray" "$enc_gray" -f 5
both "colour, 5 taps" "$cpu_colour" "$enc_colour" --color -f 5
both "gray, 31 taps" "$cpu_gray" "$enc_gray" -f 31
both "colour, 31 taps" "$cpu_colour" "$enc_colour" --color -f 31
both "gray, ROIs (-sL 3 -sT 2 -tL 1 -tT 4), --scale 1.5 --offset -20" "$cpu_gray" \
    "$enc_gray" -f 7 \
    -sL 3 -sT 2 -tL 1 -tT 4 --scale 1.5 --offset -20
both "colour, ROIs (-sL 2 -tT 3 -W 9 -H 5), a 3 x 3 mask" "$cpu_colour" "$enc_colour" --color \
    --mask '0,1,0;1,-4,1;0,1,0' -sL 2 -tT 3 -W 9 -H 5
both "colour, --sampling 444 --quality 80" "$cpu_colour" "$enc_colour" --color -f 5 \
    --sampling 444 \
    --quality 80

# --- c. A mixed batch written as JPEG ------------------------------------------------------------
both "colour, every input written as JPEG (--format jpeg)" "$cpu_colour" "$enc_colour" \
    --color -f 5 \
    --format jpeg

# --- d. The lane's fallback to the CPU ----------------------------------------------------------
all_jpegs=$(cd "$in" && ls ./*.jpg | sed 's|^\./||' | tr '\n' ' ')
export TILEDCONV_TEST_JPEG_INEXACT=1
both "colour, every device decode taken as inexact: decoded on the CPU by the lane" \
    "$all_jpegs" "$enc_colour" --color -f 5
both "gray, every device decode taken as inexact" "$all_jpegs" "$enc_gray" -f 5
unset TILEDCONV_TEST_JPEG_INEXACT

# --- e. Strips --------------------------------------------------------------------------------
# Under --max-memory 300M a 2000 x 1500 photo runs in strips, read and written by rows on the
# CPU ("cpu"), beside one that runs whole through the device.
inputs=$tmp/strips
mkdir -p "$inputs"
cp "$in/c333.jpg" "$inputs/"
if "$bin" -q -g 2000x1500 --color -o "$inputs/big.jpg" >/dev/null 2>&1; then
    both "colour, --max-memory 300M: a photo in strips on the CPU, one whole on the device" \
        "big.jpg" "big.jpg" --color -f 5 --max-memory 300M
    grep -q '"input": "[^"]*big.jpg".*"status": "written"' "$tmp/dev.json" ||
        not_ok "e: the photo in strips was written" "$(head -c 300 "$tmp/dev.err")"
else
    not_ok "e: a 2000 x 1500 input" "not made"
fi

# --- f. The mixed folder ---------------------------------------------------------------------------
# Two small pictures of each kind bench/make_mixed.py makes (JPEG baseline, progressive, 4:4:4
# and gray; PNG RGB, 16-bit, palette and RGBA; BMP; PPM; PGM), written as JPEG. What the CPU
# decodes (a gray JPEG in a colour job) and encodes (pixels the host converts to float planes:
# 16 bits; colour ones in a gray job, whose intensity the device makes) is named by kind; a
# colour job's gray files and BMP rows are repacked as RGB by the worker and encoded on the
# device.
inputs=$tmp/mixed
if "${PYTHON:-python3}" "$root/bench/make_mixed.py" --out "$inputs" --each 2 --scale 0.1 --threads 2 \
    --images "$root/images" >/dev/null 2>"$tmp/mixed.err"; then
    kinds() { (cd "$inputs" && for k in "$@"; do ls ./*-"$k".*; done | sed 's|^\./||' | tr '\n' ' '); }
    both "f: the mixed folder, colour, written as JPEG" "$(kinds jpeg-gray)" \
        "$(kinds png-16)" --color -f 5 --format jpeg
    both "f: the mixed folder, gray, written as JPEG" "" \
        "$(kinds png-16 png-rgb png-palette png-rgba bmp ppm)" -f 5 --format jpeg
else
    not_ok "f: the mixed folder" "$(head -c 300 "$tmp/mixed.err")"
fi

# --- g. -e compares the device's decode -----------------------------------------------------------
# With -e the JPEGs take the CPU path (-e checks float planes), and each one the device decodes
# exactly is decoded there too and compared, sample for sample, with TurboJPEG's: the run is
# the CPU path's, and a difference (TILEDCONV_TEST_JPEG_DECODE_CORRUPT changes one sample the
# comparison sees) fails exactly those files, nothing of theirs written.
inputs=$in
cases=$((cases + 1))
rm -rf "$tmp/cpu" "$tmp/dev"
"$bin" -q -e --color -f 5 -O "$tmp/cpu" "$in"/* 2>"$tmp/cpu.err"
rc_cpu=$?
"$bin" -q -e --tune jpeg-device=1 --color -f 5 -O "$tmp/dev" "$in"/* 2>"$tmp/dev.err"
rc_dev=$?
bad=
[ "$rc_cpu.$rc_dev" = "0.0" ] || bad="exit status $rc_cpu, with the device's check $rc_dev"
files=0
for f in "$tmp/cpu"/*; do
    [ -e "$f" ] || continue
    files=$((files + 1))
    cmp -s "$f" "$tmp/dev/${f##*/}" || bad="$bad [${f##*/} differs]"
done
n_in=$(ls "$in" | wc -l)
[ "$files" -eq "$n_in" ] || bad="$bad [$files of $n_in files written]"
verdict "g: -e with jpeg-device=1: every file checked, $files written as the CPU path writes them"

cases=$((cases + 1))
rm -rf "$tmp/dev"
TILEDCONV_TEST_JPEG_DECODE_CORRUPT=1 "$bin" -q -e --tune jpeg-device=1 --color -f 5 \
    -O "$tmp/dev" "$in"/* 2>"$tmp/dev.err"
rc_dev=$?
bad=
[ "$rc_dev" = 1 ] || bad="exit status $rc_dev (want 1)"
caught=$(grep -c "verification FAILED: the device's JPEG decode differs from TurboJPEG's in 1 of" \
    "$tmp/dev.err")
checked=0
for f in $all_jpegs; do
    case " $cpu_colour " in *" $f "*) continue ;; esac
    checked=$((checked + 1))
    grep -q "/$f: verification FAILED: the device's JPEG decode" "$tmp/dev.err" ||
        bad="$bad [$f not caught]"
    [ ! -e "$tmp/dev/$f" ] || bad="$bad [$f written]"
done
[ "$caught" = "$checked" ] || bad="$bad [$caught caught, $checked compared]"
written=$(ls "$tmp/dev" 2>/dev/null | wc -l)
[ "$written" -eq $((n_in - checked)) ] || bad="$bad [$written written, want $((n_in - checked))]"
verdict "g: -e with one sample of the device's decode changed: the $checked JPEGs it decodes caught, the rest written"

test_end
