#!/bin/sh
# Many images in one run, end to end on the default device:
#   a. 20 files of different kinds through one batch, on one queue and on two (-d 0,0): every
#      output byte-identical to the single run of its file, -e passing on planes formed on the
#      device (and its verdict line), a malformed file in the middle refused with its line while
#      the others are written, the summary line and exit 2;
#   b. the rules checked before any work: two inputs of one name, -o with two inputs, neither
#      -O nor --no-output, an output that would replace an input, -O naming the inputs' folder;
#   c. the device's 8-bit path against the host's, byte for byte: every bundled image, every
#      border, gray and colour, with an output mapping that lands on .5; c2. the workers'
#      conversions (palette, gray, BGR, BGRX to RGB; 16 bits, other scales) against the host's;
#   d. --files-from - with 2,000 names; e. the progress line on a terminal and not on a pipe;
#   f. scripts/batch-parallel.sh over GNU parallel with two jobs; g. --json and --csv records;
#   h. -e's records carry the SHA-256 of the pixels; i. a file cut short while it is read;
#   j. --gradient and --pyramid batches = single runs; k. -e's verdict, and a planted failure;
#   l. -O creates its folder; m. each output keeps its input's name, format and depth, = single
#      runs and --threads 1; n. bounded memory with 1 and 64 workers; o. --no-filter;
#   p. the cache of built programs; q. images of several sizes through the lanes' calls;
#   r. pixels in the device's page-locked memory = the staged way (--tune host-pinned=0), whose
#      copies run on the lane's thread (a batch's default) or on a crew of 4 (copy-threads=4);
#   s. -t names the bound: the lanes where their calls are (a slow lane), else the pool.
# Usage: sh tests/batch.sh ./tiledconv   (from the project root). Prints "ok - ..." or
# "not ok - ...: why" per case, then "batch: N passed, M failed"; exit 1 when any failed.

. "$(dirname "$0")/lib.sh"
test_begin batch "$@"

# run CMD...: stdout, stderr into $tmp/out, $tmp/err; status in $rc.
run() {
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

# same_files A B WHAT: every file of folder A has a twin of its name in folder B, byte for byte;
# one that differs (or is missing) adds "[WHAT<name> differs]" to $bad.
same_files() {
    for f in "$1"/*; do
        cmp -s "$f" "$2/$(basename "$f")" || bad="$bad [$3$(basename "$f") differs]"
    done
}

# --- a. 20 files of different kinds -----------------------------------------------------------
# The BMP Suite's good files (palette of 1, 4 and 8 bits, RLE, top-down, OS/2, 16-, 24- and
# 32-bit, bitfields, odd widths) and the bundled images; one malformed file in the middle.
in=$tmp/in
mkdir -p "$in" "$tmp/single"
for f in pal1 pal4 pal4rle pal8 pal8gs pal8nonsquare pal8os2 pal8rle pal8topdown pal8v5 \
         rgb16-565 rgb16 rgb24 rgb24pal rgb32 rgb32bf; do
    cp "$root/tests/data/bmpsuite/g/$f.bmp" "$in/"
done
cp "$root"/images/*.bmp "$in/"
head -c 3000 "$root/images/TiledConv_Input512x512.bmp" >"$in/m-broken.bmp"
set -- "$in"/*.bmp
if [ $# -ne 20 ]; then
    not_ok "a: 20 inputs" "found $#"
fi
singles_ok=1
for f in "$@"; do
    b=$(basename "$f" .bmp)
    [ "$b" = m-broken ] && continue
    if ! "$bin" -s "$f" -o "$tmp/single/$b.bmp" -e -q >/dev/null 2>"$tmp/err"; then
        singles_ok=0
        not_ok "a: single run of $b" "$(sed -n 1p "$tmp/err")"
    fi
done

# check_batch NAME DIR [LINES]: DIR holds the 19 outputs, each identical to the single run's;
# stderr has the malformed file's line and the summary (LINES 3: and -e's verdict).
check_batch() {
    name=$1 dir=$2 lines=${3:-2}
    n=$(find "$dir" -type f | wc -l | tr -d ' ')
    if [ "$rc" -ne 2 ]; then
        not_ok "$name" "exit status $rc, expected 2 (one input refused)"
    elif [ "$n" -ne 19 ]; then
        not_ok "$name" "$n files in the output folder, expected 19"
    elif [ -e "$dir/m-broken.bmp" ]; then
        not_ok "$name" "the malformed input has an output"
    elif ! grep -qx 'tiledconv: 19 of 20 images written; 1 refused; 0 failed' "$tmp/err"; then
        not_ok "$name" "no summary line: $(tr '\n' '|' <"$tmp/err")"
    elif [ "$(grep -c 'm-broken.bmp' "$tmp/err")" -ne 1 ] || [ "$(wc -l <"$tmp/err")" -ne "$lines" ]; then
        not_ok "$name" "expected the malformed file's line and the summary: $(tr '\n' '|' <"$tmp/err")"
    elif [ "$lines" -eq 3 ] && ! grep -q '^tiledconv: 19 of 20 verified, largest difference ' "$tmp/err"; then
        not_ok "$name" "no -e verdict: $(tr '\n' '|' <"$tmp/err")"
    else
        for f in "$tmp/single"/*.bmp; do
            if ! cmp -s "$f" "$dir/$(basename "$f")"; then
                not_ok "$name" "$(basename "$f") differs from the single run"
                return
            fi
        done
        ok "$name"
    fi
}
if [ "$singles_ok" -eq 1 ]; then
    mkdir -p "$tmp/o1" "$tmp/o2" "$tmp/o3"
    run "$bin" -O "$tmp/o1" "$@"
    check_batch "a: 20 files in one batch, device path, one queue" "$tmp/o1"
    run "$bin" -O "$tmp/o2" -e -d 0,0 "$@"
    check_batch "a: 20 files, -e on planes formed on the device, two queues (-d 0,0)" "$tmp/o2" 3
    run "$bin" -O "$tmp/o3" -d 0,0 --no-sync "$@"
    check_batch "a: 20 files, two queues, --no-sync" "$tmp/o3"
fi

# --- b. rules checked before any work ---------------------------------------------------------
mkdir -p "$tmp/b/x" "$tmp/b/y" "$tmp/bo"
cp "$root/images/TiledConv_Input451x300.bmp" "$tmp/b/x/same.bmp"
cp "$root/images/TiledConv_Input451x300.bmp" "$tmp/b/y/same.bmp"
# refused NAME EXPECT-IN-MESSAGE CMD...: exit 2, one line that contains the words, no output.
refused() {
    name=$1 words=$2
    shift 2
    run "$@"
    if [ "$rc" -ne 2 ]; then
        not_ok "$name" "exit status $rc, expected 2"
    elif [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -qF -- "$words" "$tmp/err"; then
        not_ok "$name" "expected one line with '$words': $(tr '\n' '|' <"$tmp/err")"
    elif [ -n "$(ls -A "$tmp/bo")" ]; then
        not_ok "$name" "something was written: $(ls "$tmp/bo")"
    else
        ok "$name"
    fi
}
refused "b: two inputs of one name" "$tmp/b/y/same.bmp" \
    "$bin" -O "$tmp/bo" "$tmp/b/x/same.bmp" "$tmp/b/y/same.bmp"
refused "b: -o with two inputs" "-O DIR" \
    "$bin" -o "$tmp/bo/out.bmp" "$tmp/b/x/same.bmp" "$root/images/TiledConv_Input512x512.bmp"
refused "b: two inputs and neither -O nor --no-output" "--no-output" \
    "$bin" "$tmp/b/x/same.bmp" "$root/images/TiledConv_Input512x512.bmp"
refused "b: an output that would replace an input (--format)" "would replace the input" \
    "$bin" -O "$tmp/b/x" --format bmp "$tmp/b/x/same.bmp"
refused "b: -O naming the inputs' own folder without --format: one line naming the folder" \
    "-O $tmp/b/x/: the inputs' own folder" \
    "$bin" -O "$tmp/b/x/" "$root/images/TiledConv_Input512x512.bmp" "$tmp/b/x/same.bmp"
refused "b: -O that is not a folder" "-O" \
    "$bin" -O "$tmp/b/x/same.bmp" "$tmp/b/y/same.bmp"
refused "b: -a all in a batch" "-a all" \
    "$bin" -O "$tmp/bo" -a all "$tmp/b/x/same.bmp" "$root/images/TiledConv_Input512x512.bmp"
if cmp -s "$tmp/b/x/same.bmp" "$root/images/TiledConv_Input451x300.bmp"; then
    ok "b: the inputs are untouched"
else
    not_ok "b: the inputs are untouched" "$tmp/b/x/same.bmp changed"
fi

# --- c. the device's 8-bit path against the host's ----------------------------------------------
# The plain batch run forms planes and pixels on the device; -e's single run forms them on the
# host (image.c). 2 v - 127.5 lands on .5 wherever v is a whole number (flat areas of 8-bit
# input under any normalised filter), so the rounding rule itself is compared too.
# The border changes the filter, not the conversions this compares: make test takes two
# (TEST_FULL, as make full-sweeps sets it, all five).
mkdir -p "$tmp/c"
cases=0
bad=""
c_borders="replicate reflect101"
[ -n "${TEST_FULL:-}" ] && c_borders="replicate constant=37.5 reflect101 reflect wrap"
c_count=$(echo $c_borders | wc -w)
for border in $c_borders; do
    for colour in "" --color; do
        for mapping in "" "--scale 2 --offset -127.5"; do
            d=$tmp/c/dev
            rm -rf "$d" && mkdir -p "$d"
            # shellcheck disable=SC2086 # the flags are meant to split
            if ! "$bin" -q -O "$d" -f 5 --border "$border" $colour $mapping \
                    -sL 3 -sT 3 -tL 2 -tT 2 "$root"/images/*.bmp 2>"$tmp/err"; then
                bad="$bad [$border $colour $mapping: batch failed: $(sed -n 1p "$tmp/err")]"
                continue
            fi
            for f in "$root"/images/*.bmp; do
                b=$(basename "$f" .bmp)
                cases=$((cases + 1))
                # shellcheck disable=SC2086
                "$bin" -q -s "$f" -o "$tmp/c/host.bmp" -e -f 5 --border "$border" $colour \
                    $mapping -sL 3 -sT 3 -tL 2 -tT 2 >/dev/null 2>"$tmp/err" ||
                    bad="$bad [$b $border $colour $mapping: -e: $(sed -n 1p "$tmp/err")]"
                cmp -s "$tmp/c/host.bmp" "$d/$b.bmp" ||
                    bad="$bad [$b $border $colour $mapping: outputs differ]"
            done
        done
    done
done
cases_verdict $((12 * c_count)) "c: device and host 8-bit paths identical: 3 images x $c_count borders x gray/colour x 2 mappings" \
    "c: device and host 8-bit paths identical"

# --- c2. the workers' conversions against the host's planes ------------------------------------
# A batch converts on its workers what the pipeline would not take as it lies: a colour job's
# gray, palette, BGR and BGRX pixels become the output's RGB (BGR for a BMP); 16-bit samples go
# as they lie (U16), samples of another scale as float channels (a gray job's colour pixels keep
# the device's conversion to their intensity). -e's single run forms the planes on the host (image.c) from the file as it
# lies: the two must write the same bytes. --no-filter's copy (pack_pixels, or the planes) must
# equal an identity filter's (-c 0,1,0) -e run.
mkdir -p "$tmp/c2/in"
for f in bmpsuite/g/pal8.bmp bmpsuite/g/pal8gs.bmp bmpsuite/g/pal4.bmp bmpsuite/g/pal8topdown.bmp \
    bmpsuite/g/rgb32.bmp bmpsuite/g/rgb24.bmp formats/g8.png formats/p8.png formats/rgb8.ppm \
    formats/gray-prog.jpg formats/rgb16.png formats/g16.png formats/rgb1000.ppm \
    formats/g100.pgm; do
    cp "$root/tests/data/$f" "$tmp/c2/in/"
done
n_c2=$(ls "$tmp/c2/in" | wc -l | tr -d ' ')
cases=0
bad=""
for colour in "" --color; do
    for ext in png bmp; do
        for run in filter copy; do
            [ "$run" = copy ] && [ "$ext" = bmp ] && continue
            flags="-f 5"
            single="-f 5"
            if [ "$run" = copy ]; then
                flags=--no-filter
                single="-c 0,1,0"
            fi
            d=$tmp/c2/dev
            rm -rf "$d" && mkdir -p "$d"
            # shellcheck disable=SC2086 # the flags are meant to split
            if ! "$bin" -q -O "$d" --format $ext $flags $colour "$tmp"/c2/in/* 2>"$tmp/err"; then
                bad="$bad [$colour $ext $run: batch failed: $(sed -n 1p "$tmp/err")]"
                continue
            fi
            for f in "$tmp"/c2/in/*; do
                b=$(basename "$f")
                b=${b%.*}
                cases=$((cases + 1))
                # shellcheck disable=SC2086
                "$bin" -q -s "$f" -o "$tmp/c2/host.$ext" -e $single $colour >/dev/null \
                    2>"$tmp/err" || bad="$bad [$b $colour $ext $run: -e: $(sed -n 1p "$tmp/err")]"
                cmp -s "$tmp/c2/host.$ext" "$d/$b.$ext" ||
                    bad="$bad [$b $colour $ext $run: outputs differ]"
            done
        done
    done
done
cases_verdict $((6 * n_c2)) "c2: the workers' conversions = the host's planes: $n_c2 files (palette, gray, BGR, BGRX, RGB, gray JPEG, 16-bit, other scales) x gray/colour x PNG/BMP, and --no-filter's copy to PNG" \
    "c2: the workers' conversions = the host's planes"

# --- d. --files-from - with 2,000 names ---------------------------------------------------------
mkdir -p "$tmp/many" "$tmp/manyout"
i=0
while [ $i -lt 2000 ]; do
    # links to four small files: 2,000 names the command line of some shells could not hold
    case $((i % 4)) in
        0) t=pal8 ;; 1) t=rgb24 ;; 2) t=pal4 ;; *) t=rgb16 ;;
    esac
    ln -s "$root/tests/data/bmpsuite/g/$t.bmp" "$tmp/many/n$i.bmp"
    i=$((i + 1))
done
run sh -c "find '$tmp/many' -name '*.bmp' | '$bin' --files-from - -O '$tmp/manyout' --no-sync --json"
n=$(find "$tmp/manyout" -type f | wc -l | tr -d ' ')
images=$(grep -c '"type": "image"' "$tmp/out")
if [ "$rc" -ne 0 ] || [ "$n" -ne 2000 ] || [ "$images" -ne 2000 ] ||
   ! grep -q '"type": "batch", .*"images": 2000, "written": 2000, "refused": 0, "failed": 0' "$tmp/out"; then
    not_ok "d: --files-from - with 2,000 names" "exit $rc, $n outputs, $images image records; $(sed -n 1p "$tmp/err")"
elif ! cmp -s "$tmp/manyout/n5.bmp" "$tmp/o1/rgb24.bmp" 2>/dev/null && [ -e "$tmp/o1/rgb24.bmp" ]; then
    not_ok "d: --files-from - with 2,000 names" "n5.bmp differs from rgb24.bmp's output"
else
    ok "d: --files-from - with 2,000 names ($n outputs, one record each and one for the batch)"
fi

# --- e. the progress line: on a terminal, not on a pipe ------------------------------------------
find "$tmp/many" -name '*.bmp' | head -n 400 >"$tmp/list400"
rm -rf "$tmp/p" && mkdir -p "$tmp/p"
script -qec "'$bin' --files-from '$tmp/list400' -O '$tmp/p' --no-sync" /dev/null >"$tmp/tty" 2>&1
if grep -q 'images/s' "$tmp/tty"; then
    ok "e: a progress line on a terminal"
else
    not_ok "e: a progress line on a terminal" "none in: $(tr '\r\n' '||' <"$tmp/tty" | cut -c1-200)"
fi
rm -rf "$tmp/p" && mkdir -p "$tmp/p"
run "$bin" --files-from "$tmp/list400" -O "$tmp/p" --no-sync
if [ "$rc" -eq 0 ] && ! grep -q 'images/s' "$tmp/err" &&
   [ "$(cat "$tmp/err")" = "tiledconv: 400 of 400 images written; 0 refused; 0 failed" ]; then
    ok "e: no progress line on a pipe, only the summary"
else
    not_ok "e: no progress line on a pipe" "exit $rc: $(tr '\r\n' '||' <"$tmp/err" | cut -c1-200)"
fi

# --- f. GNU parallel over two jobs ---------------------------------------------------------------
if command -v parallel >/dev/null 2>&1; then
    rm -rf "$tmp/par" && mkdir -p "$tmp/par"
    find "$in" -name '*.bmp' ! -name 'm-broken.bmp' | sort >"$tmp/list19"
    run sh "$root/scripts/batch-parallel.sh" -O "$tmp/par" -j 2 -n 5 -t "$bin" <"$tmp/list19"
    n=$(find "$tmp/par" -type f | wc -l | tr -d ' ')
    bad=""
    for f in "$tmp/single"/*.bmp; do
        cmp -s "$f" "$tmp/par/$(basename "$f")" || bad="$bad $(basename "$f")"
    done
    if [ "$rc" -eq 0 ] && [ "$n" -eq 19 ] && [ -z "$bad" ]; then
        ok "f: scripts/batch-parallel.sh, two jobs: 19 outputs identical to the single runs"
    else
        not_ok "f: scripts/batch-parallel.sh" "exit $rc, $n outputs, differing:$bad; $(sed -n 1p "$tmp/err")"
    fi
else
    not_ok "f: scripts/batch-parallel.sh" "GNU parallel is not installed (make test installs it)"
fi

# --- g. records -----------------------------------------------------------------------------
rm -rf "$tmp/g" && mkdir -p "$tmp/g"
run "$bin" --csv -O "$tmp/g" "$in/pal8.bmp" "$in/rgb24.bmp" "$in/m-broken.bmp"
if [ "$rc" -eq 2 ] && [ "$(sed -n 1p "$tmp/out" | cut -d, -f1)" = type ] &&
   [ "$(grep -c '^image,' "$tmp/out")" -eq 3 ] && [ "$(grep -c '^batch,' "$tmp/out")" -eq 1 ] &&
   grep -q '^image,.*m-broken.bmp.*,refused,' "$tmp/out"; then
    ok "g: --csv: a type column, three image rows (one refused), one batch row"
else
    not_ok "g: --csv records" "exit $rc: $(tr '\n' '|' <"$tmp/out" | cut -c1-300)"
fi
rm -rf "$tmp/g" && mkdir -p "$tmp/g"
"$bin" --json -O "$tmp/g" "$in/pal8.bmp" "$in/rgb24.bmp" >"$tmp/out.json" 2>/dev/null
if python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert sorted(r["type"] for r in rows) == ["batch", "image", "image"], rows
assert rows[-1]["type"] == "batch" and rows[-1]["images"] == 2 and rows[-1]["written"] == 2
assert all(r["status"] == "written" and r["width"] > 0 for r in rows[:2])
' "$tmp/out.json"; then
    ok "g: --json: one record per image, then the batch's"
else
    not_ok "g: --json records" "$(tr '\n' '|' <"$tmp/out.json" | cut -c1-300)"
fi

# --- h. -e's records carry the digest of the pixels written --------------------------------------
# digest BMP: SHA-256 of the picture's 8-bit pixels, row 0 first, no padding, R G B for colour.
digest() {
    python3 - "$1" <<'PY'
import hashlib, sys
d = open(sys.argv[1], "rb").read()
off = int.from_bytes(d[10:14], "little")
w, h, bpp = int.from_bytes(d[18:22], "little"), int.from_bytes(d[22:26], "little"), d[28]
n = bpp // 8
stride = (w * n + 3) // 4 * 4
rows = []
for y in range(h):  # bottom-up: the picture's row y is the file's row h - 1 - y
    row = d[off + stride * (h - 1 - y): off + stride * (h - 1 - y) + w * n]
    if n == 3:  # B, G, R in the file
        row = b"".join(row[3 * x:3 * x + 3][::-1] for x in range(w))
    rows.append(row)
print(hashlib.sha256(b"".join(rows)).hexdigest())
PY
}
rm -rf "$tmp/h" && mkdir -p "$tmp/h"
img=$root/images/TiledConv_Input451x300.bmp
bad=""
for colour in "" --color; do
    # shellcheck disable=SC2086
    "$bin" --json -e $colour -f 5 --scale 2 --offset -127.5 -sL 3 -tL 2 -s "$img" \
        -o "$tmp/h/one.bmp" >"$tmp/h/one.json" 2>/dev/null || bad="$bad [single $colour failed]"
    # shellcheck disable=SC2086
    "$bin" --json -e $colour -f 5 --scale 2 --offset -127.5 -sL 3 -tL 2 -O "$tmp/h" "$img" \
        "$root/images/TiledConv_Input512x512.bmp" >"$tmp/h/batch.json" 2>/dev/null ||
        bad="$bad [batch $colour failed]"
    want=$(digest "$tmp/h/one.bmp")
    got=$(sed -n 's/.*"sha256": "\([0-9a-f]*\)".*/\1/p' "$tmp/h/one.json")
    [ "$got" = "$want" ] || bad="$bad [single $colour: record $got, pixels $want]"
    got=$(grep 'TiledConv_Input451x300' "$tmp/h/batch.json" | sed -n 's/.*"sha256": "\([0-9a-f]*\)".*/\1/p')
    [ "$got" = "$(digest "$tmp/h/TiledConv_Input451x300.bmp")" ] || bad="$bad [batch $colour: $got]"
done
verdict "h: -e's records carry the SHA-256 of the pixels written, single and batch, gray and colour" \
    "h: the -e records' SHA-256"

# --- i. an input that shrinks while the batch reads it -----------------------------------------
# Another program rewrites a file and cuts it short in a loop while batches read it: 20 rounds
# (BMP and JPEG in turn). A file is read, never mapped, so a short read is that image's refusal
# and never a SIGBUS that ends the process: every round exits 0 (the file was read whole) or 2
# with the victim's one line (and the summary), and the other image is always written.
rm -rf "$tmp/i" && mkdir -p "$tmp/i/o"
"$bin" -q --color -g 2000x1500 -o "$tmp/i/full.bmp" &&
    "$bin" -q --color -g 2000x1500 -o "$tmp/i/full.jpg" ||
    not_ok "i: the victims" "could not be made"
bad="" rounds=0
for kind in bmp jpg bmp jpg bmp jpg bmp jpg bmp jpg bmp jpg bmp jpg bmp jpg bmp jpg bmp jpg; do
    cp "$tmp/i/full.$kind" "$tmp/i/victim.$kind"
    (while :; do cat "$tmp/i/full.$kind" >"$tmp/i/victim.$kind"; truncate -s 3000 "$tmp/i/victim.$kind"; done) 2>/dev/null &
    cutter=$!
    rm -f "$tmp/i/o"/*
    run "$bin" --no-sync -O "$tmp/i/o" "$tmp/i/victim.$kind" "$root/images/TiledConv_Input451x300.bmp"
    kill "$cutter"
    wait "$cutter" 2>/dev/null
    rounds=$((rounds + 1))
    lines=$(wc -l <"$tmp/err")
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 2 ]; then
        bad="$bad [round $rounds, $kind: exit $rc]"
    elif [ ! -s "$tmp/i/o/TiledConv_Input451x300.bmp" ]; then
        bad="$bad [round $rounds, $kind: the other image was not written]"
    elif [ "$rc" -eq 2 ] && { [ "$lines" -ne 2 ] || [ "$(grep -c "victim.$kind" "$tmp/err")" -ne 1 ] ||
                               [ -e "$tmp/i/o/victim.$kind" ]; }; then
        bad="$bad [round $rounds, $kind: $(tr '\n' '|' <"$tmp/err")]"
    fi
done
verdict "i: a file cut short while it is read: 20 rounds, no crash, the other image always written" \
    "i: a file cut short while it is read"

# --- j. --gradient and --pyramid in a batch: per input what one run writes --------------------
rm -rf "$tmp/j" && mkdir -p "$tmp/j/in" "$tmp/j/one" "$tmp/j/batch" "$tmp/j/p1" "$tmp/j/pb"
cp "$root/images/TiledConv_Input451x300.bmp" "$tmp/j/in/cat.bmp"
cp "$root/images/TiledConv_Input512x512.bmp" "$tmp/j/in/astro.bmp"
cp "$root/tests/data/formats/rgb8.png" "$root/tests/data/formats/base420.jpg" "$tmp/j/in/"
bad=""
for op in sobel scharr; do
    rm -f "$tmp/j/batch"/*
    run "$bin" --gradient "$op" --scale 0.5 --raw -O "$tmp/j/batch" "$tmp/j/in"/*
    [ "$rc" -eq 0 ] || bad="$bad [$op batch: exit $rc: $(sed -n 1p "$tmp/err")]"
    for f in "$tmp/j/in"/*; do
        n=$(basename "$f") && b=${n%.*}
        "$bin" -q --gradient "$op" --scale 0.5 -s "$f" -o "$tmp/j/one/$n" --raw "$tmp/j/one/$b.f32" ||
            bad="$bad [$op single $n failed]"
        cmp -s "$tmp/j/one/$n" "$tmp/j/batch/$n" || bad="$bad [$op $n: the image differs]"
        cmp -s "$tmp/j/one/$b.f32" "$tmp/j/batch/$b.f32" || bad="$bad [$op $n: --raw differs]"
    done
done
for f in "$tmp/j/in"/*; do
    "$bin" -q --pyramid 2x2 -O "$tmp/j/p1" -s "$f" || bad="$bad [pyramid single $(basename "$f")]"
done
run "$bin" --pyramid 2x2 -O "$tmp/j/pb" "$tmp/j/in"/*
[ "$rc" -eq 0 ] || bad="$bad [pyramid batch: exit $rc]"
n1=$(find "$tmp/j/p1" -type f | wc -l | tr -d ' ')
[ "$n1" -eq 16 ] || bad="$bad [$n1 pyramid levels for 4 inputs, expected 16]"
same_files "$tmp/j/p1" "$tmp/j/pb" "pyramid "
verdict "j: --gradient (sobel, scharr, with --raw) and --pyramid batches = the single runs, byte for byte" \
    "j: --gradient and --pyramid in a batch"

# --- k. -e in a batch: one verdict; a failure names the image and exits 1 ----------------------
rm -rf "$tmp/k" && mkdir -p "$tmp/k"
run "$bin" -e -f 5 -O "$tmp/k" "$tmp/j/in"/*
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$tmp/err")" -eq 2 ] &&
    grep -q '^tiledconv: 4 of 4 verified, largest difference [0-9.e+-]*$' "$tmp/err"; then
    ok "k: -e in a batch: 4 of 4 verified, one verdict line after the summary"
else
    not_ok "k: -e verdict" "exit $rc: $(tr '\n' '|' <"$tmp/err")"
fi
# Pixel (500, 400) exists only in astro.bmp (512 x 512) and rgb8.png is smaller: one image fails.
rm -rf "$tmp/k" && mkdir -p "$tmp/k"
TILEDCONV_TEST_CORRUPT=500,400,5 run "$bin" -e -f 5 -O "$tmp/k" "$tmp/j/in"/*
if [ "$rc" -eq 1 ] && grep -q 'astro.bmp: verification FAILED: 1 mismatches' "$tmp/err" &&
    grep -q '^tiledconv: 3 of 4 verified, largest difference .*FAILED' "$tmp/err" &&
    [ ! -e "$tmp/k/astro.bmp" ] && [ -s "$tmp/k/cat.bmp" ]; then
    ok "k: -e in a batch with one planted wrong pixel: the image named, no output for it, exit 1"
else
    not_ok "k: -e planted failure" "exit $rc: $(tr '\n' '|' <"$tmp/err"); $(ls "$tmp/k" | tr '\n' ' ')"
fi
rm -rf "$tmp/k" && mkdir -p "$tmp/k"
TILEDCONV_TEST_CORRUPT=500,400,5 run "$bin" -e --gradient sobel -O "$tmp/k" "$tmp/j/in"/*
if [ "$rc" -eq 1 ] && grep -q 'astro.bmp: verification FAILED' "$tmp/err" &&
    grep -q '^tiledconv: 3 of 4 verified' "$tmp/err"; then
    ok "k: -e --gradient in a batch with a planted wrong pixel: named, exit 1"
else
    not_ok "k: -e --gradient planted failure" "exit $rc: $(tr '\n' '|' <"$tmp/err")"
fi

# --- l. -O creates its folder and parents; a refused run leaves none ------------------------------
rm -rf "$tmp/l"
run "$bin" -q -f 5 -O "$tmp/l/a/b/c" "$tmp/j/in/cat.bmp" "$tmp/j/in/rgb8.png"
if [ "$rc" -eq 0 ] && [ -s "$tmp/l/a/b/c/cat.bmp" ] && [ -s "$tmp/l/a/b/c/rgb8.png" ]; then
    ok "l: -O creates a missing folder and its parents"
else
    not_ok "l: -O creates its folder" "exit $rc: $(sed -n 1p "$tmp/err")"
fi
rm -rf "$tmp/l"
run "$bin" -q -O "$tmp/l/a/b" "$tmp/b/x/same.bmp" "$tmp/b/y/same.bmp"
if [ "$rc" -eq 2 ] && [ ! -e "$tmp/l" ]; then
    ok "l: a batch refused before any work creates no folder"
else
    not_ok "l: a refused batch left a folder" "exit $rc: $(ls -R "$tmp/l" 2>&1 | tr '\n' ' ')"
fi

# --- m. without --format each output keeps its input's name, format and depth ---------------------
# A gray job writes the format's gray form (P5 in a .ppm); a 16-bit PNG stays 16 bits; an
# extension's case is kept. Each output is byte-identical to the single run -o NAME.
rm -rf "$tmp/m" && mkdir -p "$tmp/m/in" "$tmp/m/one"
cp "$root/images/TiledConv_Input451x300.bmp" "$tmp/m/in/photo.bmp"
cp "$root/tests/data/formats/base420.jpg" "$tmp/m/in/Photo.JPEG"
cp "$root/tests/data/formats/rgb8.png" "$root/tests/data/formats/g16.png" \
    "$root/tests/data/formats/rgb1000.ppm" "$root/tests/data/formats/g100.pgm" "$tmp/m/in/"
cp "$root/tests/data/formats/rgb8.png" "$tmp/m/in/photo.png" # photo.bmp and photo.png: no collision
bad=""
for colour in "" --color; do
    rm -rf "$tmp/m/out" "$tmp/m/t1"
    # shellcheck disable=SC2086
    run "$bin" -f 5 $colour -O "$tmp/m/out" "$tmp/m/in"/*
    [ "$rc" -eq 0 ] || bad="$bad [${colour:-gray} batch: exit $rc: $(sed -n 1p "$tmp/err")]"
    # shellcheck disable=SC2086
    "$bin" -q -f 5 $colour --threads 1 -O "$tmp/m/t1" "$tmp/m/in"/* || bad="$bad [--threads 1 failed]"
    for f in "$tmp/m/in"/*; do
        n=$(basename "$f")
        # shellcheck disable=SC2086
        "$bin" -q -f 5 $colour -s "$f" -o "$tmp/m/one/$n" || bad="$bad [single $n failed]"
        cmp -s "$tmp/m/one/$n" "$tmp/m/out/$n" || bad="$bad [${colour:-gray} $n differs from the single run]"
        cmp -s "$tmp/m/t1/$n" "$tmp/m/out/$n" || bad="$bad [${colour:-gray} $n: --threads 1 differs]"
    done
    [ "$(find "$tmp/m/out" -type f | wc -l | tr -d ' ')" -eq 7 ] || bad="$bad [not 7 outputs]"
done
# The last run was --color: P6 and 16-bit colour; a gray run for P5 and 16-bit gray.
depth=$(od -An -tu1 -j24 -N1 "$tmp/m/out/g16.png" | tr -d ' ')
[ "$depth" = 16 ] || bad="$bad [g16.png written with $depth bits]"
[ "$(head -c2 "$tmp/m/out/rgb1000.ppm")" = P6 ] || bad="$bad [colour rgb1000.ppm is not P6]"
rm -rf "$tmp/m/out"
"$bin" -q -f 5 -O "$tmp/m/out" "$tmp/m/in/rgb1000.ppm" "$tmp/m/in/Photo.JPEG" || bad="$bad [gray run failed]"
[ "$(head -c2 "$tmp/m/out/rgb1000.ppm")" = P5 ] || bad="$bad [gray rgb1000.ppm is not P5]"
[ "$(head -c3 "$tmp/m/out/Photo.JPEG" | od -An -tx1 | tr -d ' ')" = ffd8ff ] || bad="$bad [Photo.JPEG is not a JPEG]"
verdict "m: -O without --format keeps each input's name, format and depth (BMP, PNG 8/16, .JPEG, PGM, PPM gray as P5), = single runs and --threads 1" \
    "m: formats kept"
run "$bin" -q --format png -O "$tmp/m/out2" "$tmp/m/in/photo.bmp" "$tmp/m/in/photo.png"
if [ "$rc" -eq 2 ] && grep -q 'both would be written to .*photo.png' "$tmp/err" &&
    [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -e "$tmp/m/out2" ]; then
    ok "m: photo.bmp and photo.png collide with --format png (exit 2), not without it"
else
    not_ok "m: --format collision" "exit $rc: $(tr '\n' '|' <"$tmp/err")"
fi

# --- n. memory stays bounded, whatever the number of workers --------------------------------------
# 48 colour images of 1000 x 872 with a budget of 32 MB for images in flight (the test build's
# TILEDCONV_TEST_BATCH_BUDGET; about 5 MB each is held, 10.5 MB reserved): the peak resident
# memory with 1 and with 64 workers stays within the one-image run's plus twice the budget (the pool's own stacks and arenas are the rest).
# Without the bound, 64 workers reading ahead reach about 240 MB here against 160.
measure=$tmp/measure
if ${CC:-cc} -std=c11 -O1 -o "$measure" "$root/tests/measure.c" 2>/dev/null; then
    rm -rf "$tmp/n" && mkdir -p "$tmp/n/in"
    for i in $(seq 1 48); do cp "$root/images/TiledConv_Input1000x872.bmp" "$tmp/n/in/p$i.bmp"; done
    rss() { # rss THREADS FILES...: peak kB of a --color batch
        t=$1
        shift
        rm -rf "$tmp/n/o"
        TILEDCONV_TEST_BATCH_BUDGET=33554432 "$measure" -r "$tmp/n/report" -- "$bin" -q --color --no-sync \
            --threads "$t" -O "$tmp/n/o" "$@" >/dev/null 2>&1
        sed -n 's/.*maxrss_kb=\([0-9]*\).*/\1/p' "$tmp/n/report"
    }
    one=$(rss 1 "$tmp/n/in/p1.bmp")
    t1=$(rss 1 "$tmp/n/in"/*.bmp)
    t64=$(rss 64 "$tmp/n/in"/*.bmp)
    limit=$((one + 2 * 32768))
    if [ -n "$one" ] && [ "$t1" -le "$limit" ] && [ "$t64" -le "$limit" ]; then
        ok "n: bounded memory: 48 images peak at $t1 kB (1 worker) and $t64 kB (64 workers); one image $one kB"
    else
        not_ok "n: bounded memory" "one image $one kB; 48 images $t1 kB with 1 worker, $t64 kB with 64; limit $limit kB"
    fi
else
    not_ok "n: bounded memory" "tests/measure.c did not build"
fi

# --- o. --no-filter: the codec floor writes each input's own pixels ---------------------------------
rm -rf "$tmp/o" && mkdir -p "$tmp/o"
run "$bin" --no-filter --color --format bmp -O "$tmp/o" "$root/images/TiledConv_Input451x300.bmp" "$tmp/j/in/rgb8.png"
if [ "$rc" -eq 0 ] && [ "$(digest "$tmp/o/TiledConv_Input451x300.bmp")" = "$(digest "$root/images/TiledConv_Input451x300.bmp")" ]; then
    ok "o: --no-filter writes each image unfiltered (a colour BMP's pixels unchanged)"
else
    not_ok "o: --no-filter" "exit $rc: $(sed -n 1p "$tmp/err")"
fi
run "$bin" --no-filter -e -O "$tmp/o" "$root/images/TiledConv_Input451x300.bmp"
if [ "$rc" -eq 2 ] && grep -q -- '--no-filter and -e' "$tmp/err"; then
    ok "o: --no-filter with -e is a usage error"
else
    not_ok "o: --no-filter -e" "exit $rc: $(sed -n 1p "$tmp/err")"
fi

# --- p. the cache of built programs: used, and never trusted blindly -----------------------------
# Each program's binary is kept in TILEDCONV_PROGRAM_CACHE; a file cut short, with a flipped byte,
# or with a binary the driver refuses behind a valid checksum is ignored (the program is built
# from source, the file written anew) and the output is the same; a folder others may write, or
# "off", is not used.
pc=$tmp/p/cache
rm -rf "$tmp/p" && mkdir -p "$tmp/p"
img=$root/images/TiledConv_Input451x300.bmp
cached() { TILEDCONV_PROGRAM_CACHE=$1 "$bin" -q -f 5 -s "$img" -o "$2"; }
bad=""
cached "$pc" "$tmp/p/first.bmp" || bad="$bad [first run failed]"
n=$(find "$pc" -name '*.bin' 2>/dev/null | wc -l | tr -d ' ')
[ "$n" -ge 1 ] || bad="$bad [no program kept]"
[ "$(stat -c %a "$pc" 2>/dev/null)" = 700 ] || bad="$bad [the folder is not 0700]"
cp -r "$pc" "$tmp/p/kept"
for damage in cut flip garbage; do
    for f in "$pc"/*.bin; do
        size=$(wc -c <"$f")
        case $damage in
            cut) head -c $((size / 2)) "$tmp/p/kept/$(basename "$f")" >"$f" ;;
            flip) python3 -c '
import sys
d = bytearray(open(sys.argv[1], "rb").read()); d[len(d) * 3 // 4] ^= 0xff
open(sys.argv[1], "wb").write(bytes(d))' "$f" ;;
            garbage) python3 -c '
import os, sys
d = open(sys.argv[1], "rb").read()
head = d.index(b"\n") + 1
klen = int.from_bytes(d[head:head + 8], "little")
key = d[head + 8:head + 8 + klen]
blen = int.from_bytes(d[head + 8 + klen:head + 16 + klen], "little")
junk = os.urandom(blen)
h = 0xcbf29ce484222325
for b in key + junk:
    h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
out = d[:head + 16 + klen] + junk + h.to_bytes(8, "little")
open(sys.argv[1], "wb").write(out)' "$f" ;;
        esac
    done
    cached "$pc" "$tmp/p/again.bmp" || bad="$bad [$damage: the run failed]"
    cmp -s "$tmp/p/first.bmp" "$tmp/p/again.bmp" || bad="$bad [$damage: the output differs]"
    for f in "$pc"/*.bin; do
        cmp -s "$f" "$tmp/p/kept/$(basename "$f")" || bad="$bad [$damage: $(basename "$f") not written anew]"
    done
done
chmod 777 "$pc" && rm -f "$pc"/*.bin
cached "$pc" "$tmp/p/open.bmp" || bad="$bad [a world-writable folder: the run failed]"
[ -z "$(ls "$pc")" ] || bad="$bad [a world-writable folder was used]"
cached off "$tmp/p/off.bmp" && cmp -s "$tmp/p/first.bmp" "$tmp/p/off.bmp" || bad="$bad [off: differs]"
[ ! -e off ] || bad="$bad [off made a folder]"
verdict "p: the program cache: $n programs kept; cut, flipped and refused binaries rebuilt, same output; unsafe folder and off unused" \
    "p: the program cache"

# --- p2. TILEDCONV_CL_OPTIONS: build options after the library's own, for every program -------
# (the tests build with -cl-opt-disable); one the driver refuses fails the run with the option
# named, writing nothing; one it takes gives the same image and a cache entry of its own.
bad=""
rm -rf "$tmp/p2" && mkdir -p "$tmp/p2"
TILEDCONV_CL_OPTIONS=-cl-no-such-option TILEDCONV_PROGRAM_CACHE=off "$bin" -q -f 5 -s "$img" \
    -o "$tmp/p2/refused.bmp" 2>"$tmp/p2/err"
rc=$?
[ "$rc" -eq 1 ] || bad="$bad [a refused option: exit $rc]"
grep -q -- '-cl-no-such-option' "$tmp/p2/err" || bad="$bad [the message does not name it: $(sed -n 1p "$tmp/p2/err")]"
[ ! -e "$tmp/p2/refused.bmp" ] || bad="$bad [an output was written]"
rm -rf "$pc" && mkdir -p "$pc" && chmod 700 "$pc"
TILEDCONV_CL_OPTIONS= cached "$pc" "$tmp/p2/plain.bmp" || bad="$bad [no options: the run failed]"
plain=$(find "$pc" -name '*.bin' | wc -l | tr -d ' ')
TILEDCONV_CL_OPTIONS=-DTC_UNUSED_STUDY_MACRO=1 cached "$pc" "$tmp/p2/extra.bmp" || bad="$bad [a taken option: the run failed]"
cmp -s "$tmp/p2/plain.bmp" "$tmp/p2/extra.bmp" || bad="$bad [a taken option: the output differs]"
[ "$(find "$pc" -name '*.bin' | wc -l | tr -d ' ')" -gt "$plain" ] || bad="$bad [no cache entry of its own]"
verdict "p2: TILEDCONV_CL_OPTIONS: a refused option fails the run naming it, nothing written; a taken one, the same image under its own cache entry" \
    "p2: TILEDCONV_CL_OPTIONS"

# --- q. a lane's calls: many images in one library call ----------------------------------------
# Six copies each of three sizes, gray and colour, a source ROI offset so that each size gets its
# own parameters: the images of one size go through one call together, the others alone; every
# output equals its single run, byte for byte, on one lane and on two (-d 0,0).
rm -rf "$tmp/q" && mkdir -p "$tmp/q/in" "$tmp/q/single"
for i in 1 2 3 4 5 6; do
    for size in 451x300 512x512 1000x872; do
        cp "$root/images/TiledConv_Input$size.bmp" "$tmp/q/in/s$size-$i.bmp"
    done
done
bad=""
for colour in "" --color; do
    for f in "$tmp/q/in"/*.bmp; do
        "$bin" -q $colour -f 7 -sL 3 -sT 2 -s "$f" -o "$tmp/q/single/$(basename "$f")" ||
            bad="$bad [single run of $(basename "$f") failed]"
    done
    for queues in "" "-d 0,0"; do
        rm -rf "$tmp/q/o"
        "$bin" -q $colour -f 7 -sL 3 -sT 2 $queues -O "$tmp/q/o" "$tmp/q/in"/*.bmp ||
            bad="$bad [$colour $queues: the batch failed]"
        for f in "$tmp/q/single"/*.bmp; do
            cmp -s "$f" "$tmp/q/o/$(basename "$f")" ||
                bad="$bad [$colour $queues: $(basename "$f") differs]"
        done
    done
done
verdict "q: 18 images of three sizes through the lanes' calls (images of one ROI share a call), gray and colour, one and two queues = single runs" \
    "q: a lane's calls"

# --- r. page-locked pixels: the same bytes as the staged way ------------------------------------
# 48 inputs (JPEG of two sizes, an odd width among them, and PNG and PPM), gray and colour, JPEG
# and PNG outputs, on one lane and two: the batch that decodes into the device's page-locked
# memory and writes its outputs from there (the images decoded once the device is open) gives
# every output byte for byte as the same batch with --tune host-pinned=0, whose transfers all go
# through the pinned staging; on one lane, the staged way with its copies on a crew of four
# threads too (a batch keeps them on the lane's thread by default).
rm -rf "$tmp/r" && mkdir -p "$tmp/r/in"
"$bin" -q --color -g 640x480 -o "$tmp/r/wide.jpg" &&
    "$bin" -q --color -g 333x211 -o "$tmp/r/odd.jpg" &&
    "$bin" -q --color -g 333x211 -o "$tmp/r/odd.png" &&
    "$bin" -q --color -g 211x97 -o "$tmp/r/small.ppm" ||
    not_ok "r: the inputs" "could not be made"
for i in $(seq 1 15); do
    cp "$tmp/r/wide.jpg" "$tmp/r/in/w$i.jpg"
    cp "$tmp/r/odd.jpg" "$tmp/r/in/o$i.jpg"
done
for i in $(seq 1 9); do
    cp "$tmp/r/odd.png" "$tmp/r/in/p$i.png"
done
for i in $(seq 1 9); do
    cp "$tmp/r/small.ppm" "$tmp/r/in/m$i.ppm"
done
bad=""
for colour in "" --color; do
    for format in jpeg png; do
        for queues in "" "-d 0,0"; do
            # Two queues once a colour (JPEG outputs): the lanes' part, whatever the encoder.
            [ -n "$queues" ] && [ "$format" = png ] && continue
            rm -rf "$tmp/r/direct" "$tmp/r/staged"
            "$bin" -q $colour $queues -f 5 --format $format -O "$tmp/r/direct" "$tmp/r/in"/* ||
                bad="$bad [$colour $format $queues: the batch failed]"
            "$bin" -q $colour $queues -f 5 --format $format --tune host-pinned=0 \
                -O "$tmp/r/staged" "$tmp/r/in"/* ||
                bad="$bad [$colour $format $queues host-pinned=0: the batch failed]"
            n=$(ls "$tmp/r/staged" | wc -l | tr -d ' ')
            [ "$n" -eq 48 ] || bad="$bad [$colour $format $queues: $n outputs]"
            same_files "$tmp/r/staged" "$tmp/r/direct" "$colour $format $queues: "
            [ -n "$queues" ] && continue
            rm -rf "$tmp/r/crew"
            "$bin" -q $colour -f 5 --format $format --tune host-pinned=0 --tune copy-threads=4 \
                --tune worker-nice=19 -O "$tmp/r/crew" "$tmp/r/in"/* ||
                bad="$bad [$colour $format copy-threads=4: the batch failed]"
            same_files "$tmp/r/direct" "$tmp/r/crew" "$colour $format copy-threads=4: "
        done
    done
done
verdict "r: 48 JPEG, PNG and PPM inputs, gray and colour, JPEG and PNG outputs, one queue (and two for JPEG outputs): page-locked pixels = --tune host-pinned=0 (copies on the lane, and on a crew of 4 with the workers at niceness 19), byte for byte" "r: page-locked pixels"

# A device slow to open and a slow lane (test hooks: the opening held back 1 s, each lane call
# 150 ms): the images are decoded before the device is ready, into ordinary memory; once it
# is, workers with nothing to encode move images waiting for the lane into idle page-locked
# blocks (those of outputs already encoded), which then go up directly, the rest through the
# staging. 150 images: the lane's calls take 16, and moves start past the next call's. -t
# counts both; the outputs are byte for byte the staged way's. (tests/test_pinned_pool.c
# checks the move itself.)
rm -rf "$tmp/r/many" && mkdir -p "$tmp/r/many"
for i in $(seq 1 75); do
    cp "$tmp/r/wide.jpg" "$tmp/r/many/w$i.jpg"
    cp "$tmp/r/odd.jpg" "$tmp/r/many/o$i.jpg"
done
bad=""
for colour in "" --color; do
    rm -rf "$tmp/r/moved" "$tmp/r/staged"
    TILEDCONV_TEST_OPEN_DELAY_MS=1000 TILEDCONV_TEST_LANE_PAUSE_MS=150 "$bin" -t $colour -f 5 --format png -O "$tmp/r/moved" \
        "$tmp/r/many"/* >"$tmp/r/moved.txt" 2>&1 || bad="$bad [$colour: the batch failed]"
    "$bin" -q $colour -f 5 --format png --tune host-pinned=0 -O "$tmp/r/staged" \
        "$tmp/r/many"/* || bad="$bad [$colour host-pinned=0: the batch failed]"
    early=$(sed -n 's/.*start-up: \([0-9]*\) images decoded before.*/\1/p' "$tmp/r/moved.txt")
    moved=$(sed -n 's/.*by idle workers, waiting for a lane: \([0-9]*\) images.*/\1/p' \
        "$tmp/r/moved.txt")
    [ "${early:-0}" -ge 48 ] || bad="$bad [$colour: ${early:-no} images decoded early]"
    [ "${moved:-0}" -ge 1 ] && [ "${moved:-0}" -le 150 ] ||
        bad="$bad [$colour: ${moved:-no} images moved]"
    # -t's timeline: the device held back 1 s; the last input read before the lanes' last call
    # ended, that after the context was ready, the batch's end after both; at most every image
    # waiting at the last read (which may come before the context: the reads do not wait).
    timeline=$(sed -n 's/.*timeline: the first context ready at \([0-9]*\) ms, the last input read at \([0-9]*\) ms (\([0-9]*\) images* then waiting for a lane), the lanes. last call ended at \([0-9]*\) ms, the batch at \([0-9]*\) ms/\1 \2 \3 \4 \5/p' \
        "$tmp/r/moved.txt")
    echo "$timeline" | awk '{ exit !(NF == 5 && $1 >= 1000 && $1 <= $4 && $2 <= $4 + 1 &&
                                    $4 <= $5 + 1 && $3 <= 150) }' ||
        bad="$bad [$colour: -t's timeline: '${timeline:-none}']"
    # -t's split of the lanes' calls: every image in one of the two kinds; the first call's 16
    # (decoded early, none moved: moves start past the next call) in ordinary memory.
    calls=$(sed -n "s/.*lanes' calls: \([0-9]*\) images in calls with some in ordinary memory ([0-9.]* ms an image), \([0-9]*\) in calls with all in page-locked memory.*/\1 \2/p" \
        "$tmp/r/moved.txt")
    echo "$calls" | awk '{ exit !(NF == 2 && $1 >= 16 && $1 + $2 == 150) }' ||
        bad="$bad [$colour: -t's lanes' calls: '${calls:-none}']"
    n=$(ls "$tmp/r/moved" | wc -l | tr -d ' ')
    [ "$n" -eq 150 ] || bad="$bad [$colour: $n outputs]"
    same_files "$tmp/r/staged" "$tmp/r/moved" "$colour: "
done
verdict "r: a device slow to open and a slow lane (hooks): of 150 images decoded meanwhile, some moved into page-locked memory by idle workers, byte for byte the staged way, gray and colour; -t's timeline in order, its lanes' calls by kind" "r: images moved into page-locked memory"

# Images of 2 MB or more decoded while the device is held back (1 s) lie on the pool's huge
# pages of ordinary memory; once the device is open, each is locked where it lies (by an idle
# worker or by the lane before its call), goes up with no staging copy, and its memory is kept
# as a page-locked block afterwards. -t counts them; the outputs are byte for byte the staged
# way's, and the same with the driver's own page-locked blocks (--tune host-wrap=0).
rm -rf "$tmp/r/big" && mkdir -p "$tmp/r/big"
"$bin" -q --color -g 1100x700 -o "$tmp/r/big.jpg" || bad="the big JPEG"
for i in $(seq 1 12); do
    cp "$tmp/r/big.jpg" "$tmp/r/big/b$i.jpg"
done
bad=""
rm -rf "$tmp/r/locked" "$tmp/r/staged" "$tmp/r/mapped"
TILEDCONV_TEST_OPEN_DELAY_MS=1000 "$bin" -t --color -f 5 --format png -O "$tmp/r/locked" \
    "$tmp/r/big"/* >"$tmp/r/locked.txt" 2>&1 || bad="$bad [the batch failed]"
"$bin" -q --color -f 5 --format png --tune host-pinned=0 -O "$tmp/r/staged" "$tmp/r/big"/* ||
    bad="$bad [host-pinned=0: the batch failed]"
TILEDCONV_TEST_OPEN_DELAY_MS=1000 "$bin" -q --color -f 5 --format png --tune host-wrap=0 \
    -O "$tmp/r/mapped" "$tmp/r/big"/* || bad="$bad [host-wrap=0: the batch failed]"
early=$(sed -n 's/.*start-up: \([0-9]*\) images decoded before.*/\1/p' "$tmp/r/locked.txt")
locked=$(sed -n 's/.*locked in place (ordinary memory of the start-up made page-locked): \([0-9]*\) images.*/\1/p' \
    "$tmp/r/locked.txt")
up=$(sed -n 's/.*page-locked memory: \([0-9]*\) images went up from it.*/\1/p' "$tmp/r/locked.txt")
[ "${early:-0}" -ge 1 ] || bad="$bad [${early:-no} images decoded early]"
[ "${locked:-0}" -ge "${early:-1}" ] && [ "${locked:-0}" -le 12 ] ||
    bad="$bad [${locked:-no} images locked in place, ${early:-no} decoded early]"
[ "${up:-0}" -eq 12 ] || bad="$bad [${up:-no} images went up from page-locked memory]"
same_files "$tmp/r/staged" "$tmp/r/locked" ""
same_files "$tmp/r/staged" "$tmp/r/mapped" "host-wrap=0: "
n=$(ls "$tmp/r/locked" | wc -l | tr -d ' ')
[ "$n" -eq 12 ] || bad="$bad [$n outputs]"
verdict "r: 12 colour images of 2.3 MB decoded while the device opened (hook: 1 s): ${locked} locked in place, all 12 up with no staging copy, byte for byte the staged way and the driver's page-locked blocks' (host-wrap=0)" "r: images locked in place"

# The same for BMPs, whose files are read into page-locked memory and whose rows the device
# reads as they lie (bottom-up and top-down, rows padded, 8-bit palettes, 32-bit; 4-bit and
# RLE files decoded on the host), gray and colour jobs, BMP outputs (written into page-locked
# memory as the file will lie, padding zeroed) and PNG ones: byte for byte the staged way.
rm -rf "$tmp/r" && mkdir -p "$tmp/r/in"
i=0
for f in rgb24 pal8 pal8topdown pal8w125 pal8gs rgb32 pal4 pal8rle; do
    for k in 1 2 3; do
        i=$((i + 1))
        cp "$root/tests/data/bmpsuite/g/$f.bmp" "$tmp/r/in/$f-$k.bmp"
    done
done
cp "$root/images/TiledConv_Input451x300.bmp" "$tmp/r/in/odd.bmp"
bad=""
for colour in "" --color; do
    for format in bmp png; do
        rm -rf "$tmp/r/direct" "$tmp/r/staged"
        "$bin" -q $colour -f 5 --format $format -O "$tmp/r/direct" "$tmp/r/in"/* ||
            bad="$bad [$colour $format: the batch failed]"
        "$bin" -q $colour -f 5 --format $format --tune host-pinned=0 -O "$tmp/r/staged" \
            "$tmp/r/in"/* || bad="$bad [$colour $format host-pinned=0: the batch failed]"
        n=$(ls "$tmp/r/staged" | wc -l | tr -d ' ')
        [ "$n" -eq $((i + 1)) ] || bad="$bad [$colour $format: $n outputs]"
        same_files "$tmp/r/staged" "$tmp/r/direct" "$colour $format: "
    done
done
verdict "r: $((i + 1)) BMPs of every layout the device reads as they lie (and two decoded), gray and colour, BMP and PNG outputs: through page-locked memory = --tune host-pinned=0, byte for byte" "r: BMPs through page-locked memory"

# --- s. -t names the bound ----------------------------------------------------------------------
# A lane whose calls take 300 ms longer each (TILEDCONV_TEST_LANE_CALL_MS) bounds the batch
# although none of its stages alone is the busiest: -t must name the lanes. --no-filter has no
# lanes: the pool's codecs (--no-sync: the waiters' fsyncs, a stage of their own, may outweigh
# the pool on a few small files).
bad=""
bound() { grep 'which bounds the rate' "$tmp/out" | sed 's/.*bounds the rate: //'; }
rm -rf "$tmp/s"
run env TILEDCONV_TEST_LANE_CALL_MS=300 "$bin" -t --no-sync -f 5 --format png -O "$tmp/s/a" \
    "$root/tests/data/formats/rgb8.png" "$root/tests/data/formats/g8.png" \
    "$root/tests/data/formats/p8.png"
case $(bound) in "the lanes "*) ;; *) bad="$bad [a slow lane: rc $rc, the bound \"$(bound)\"]" ;; esac
run "$bin" -t --no-sync --no-filter --format png -O "$tmp/s/b" "$root/tests/data/formats/rgb8.png"
[ "$(bound)" = "the pool's codecs" ] || bad="$bad [--no-filter: rc $rc, the bound \"$(bound)\"]"
verdict "s: -t names the lanes as the bound when their calls are (a slow lane), the pool's codecs with --no-filter" "s: -t's bound"

test_end
