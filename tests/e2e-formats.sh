#!/bin/sh
# PNG, JPEG and PGM/PPM through the tool, end to end on the default device:
#   a. round trips through the identity filter (-c 0,1,0): 16-bit PGM and PNG, 8-bit PNG and
#      PGM/PPM, gray and colour, come back with every sample unchanged, in the plain run (the
#      batch pipeline) and the study (-e); a JPEG's intensity plane is exactly its luma, the
#      samples of djpeg -grayscale; the 16-bit output is round(clamp(v S + V) 65535 / 255)
#   b. the same picture as BMP, PNG and PGM/PPM gives byte-identical outputs for every
#      algorithm, gray and colour, plain and -e
#   c. a JPEG gives exactly the output of djpeg's pixels saved as BMP (djpeg -bmp; a gray job
#      djpeg -grayscale -bmp)
#   d. --quality and --sampling: the JPEG the tool writes is byte for byte cjpeg's of the same
#      pixels
#   e. pipes: -s - and -o - equal the file-to-file run; reports go to stderr; a broken pipe is
#      exit 1 with one line; a failed run writes nothing to stdout; endless input is refused
#      from its first bytes
#   f. a batch of mixed formats with --format: outputs identical to single runs, DIR/BASE.EXT
# The pixels are compared by tests/formats-util.py, plain Python that shares no code with the
# tool. Usage: sh tests/e2e-formats.sh ./tiledconv (from the project root). Prints "ok - ..."
# or "not ok - ...: why" per case, then "formats: N passed, M failed"; exit 1 when any failed.

if [ $# -ne 1 ]; then
    echo "usage: sh tests/e2e-formats.sh BINARY" >&2
    exit 2
fi
. "$(dirname "$0")/lib.sh"
test_begin formats "$1"
fmt=$root/tests/data/formats
img451=$root/images/TiledConv_Input451x300.bmp
img512=$root/images/TiledConv_Input512x512.bmp
util="python3 $root/tests/formats-util.py"
unset TILEDCONV_TEST_CORRUPT

# run CMD...: stdout, stderr into $tmp/out, $tmp/err; status in $rc.
run() {
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}
# tool ARGS...: the tool, quiet; prints why and returns 1 when it fails.
tool() {
    if ! "$bin" -q "$@" >"$tmp/tool.out" 2>"$tmp/tool.err"; then
        echo "tiledconv $*: $(sed -n 1p "$tmp/tool.err")"
        return 1
    fi
}
# same_samples A B: both files hold the same samples (formats-util's digest); prints why not.
same_samples() {
    a=$($util samples "$1") || return 1
    b=$($util samples "$2") || return 1
    if [ "$a" != "$b" ]; then
        echo "$(basename "$1"): $a; $(basename "$2"): $b"
        return 1
    fi
}
for need in python3 djpeg cjpeg; do
    if ! command -v $need >/dev/null 2>&1; then
        echo "not ok - $need is not installed (make test installs it)"
        echo "formats: 0 passed, 1 failed"
        exit 1
    fi
done

# --- a. round trips ---------------------------------------------------------------------------
# roundtrip NAME IN OUT-EXT [--color]: IN through -c 0,1,0 to OUT-EXT, plain and with -e, has
# IN's samples (a PNG compared sample by sample, a PGM/PPM byte for byte).
roundtrip() {
    name=$1 src=$2 ext=$3
    shift 3
    why=
    for study in "" -e; do
        rm -f "$tmp/rt.$ext"
        # shellcheck disable=SC2086 # $study is one flag or none
        why=$(tool -s "$src" -c 0,1,0 $study "$@" -o "$tmp/rt.$ext") || break
        case $ext in
            png) why=$(same_samples "$src" "$tmp/rt.$ext") || break ;;
            *) cmp -s "$src" "$tmp/rt.$ext" ||
                   { why="${study:-plain}: the file differs"; break; } ;;
        esac
    done
    if [ -z "$why" ]; then ok "$name"; else not_ok "$name" "$why"; fi
}
roundtrip "a: 16-bit PGM through the identity, 16 bits kept" "$fmt/g16.pgm" pgm
roundtrip "a: 16-bit gray PNG through the identity, 16 bits kept" "$fmt/g16.png" png
roundtrip "a: 16-bit RGB PNG through the identity (--color), 16 bits kept" "$fmt/rgb16.png" png \
    --color
roundtrip "a: 8-bit gray PNG through the identity" "$fmt/g8.png" png
roundtrip "a: 8-bit RGB PNG through the identity (--color)" "$fmt/rgb8.png" png --color
roundtrip "a: 8-bit PGM through the identity" "$fmt/g8.pgm" pgm
roundtrip "a: 8-bit PPM through the identity (--color)" "$fmt/rgb8.ppm" ppm --color

name="a: a 16-bit PNG written as PGM holds the PNG's samples (g16.png -> g16.pgm)"
if why=$(tool -s "$fmt/g16.png" -c 0,1,0 -o "$tmp/x.pgm") && cmp -s "$tmp/x.pgm" "$fmt/g16.pgm"
then ok "$name"; else not_ok "$name" "${why:-the file differs from g16.pgm}"; fi

name="a: --depth 8 writes a 16-bit input with 8 bits: the samples of the BMP output"
if why=$(tool -s "$fmt/g16.png" -f 5 --depth 8 -o "$tmp/d8.png") &&
   why=$(tool -s "$fmt/g16.png" -f 5 -o "$tmp/d8.bmp") &&
   why=$(same_samples "$tmp/d8.png" "$tmp/d8.bmp"); then
    if $util samples "$tmp/d8.png" | grep -q ' 255 '; then ok "$name"; else
        not_ok "$name" "not an 8-bit PNG: $($util samples "$tmp/d8.png")"; fi
else not_ok "$name" "$why"; fi

# The 16-bit output's rounding, from the float values themselves (--raw), with a real filter,
# a mapping, and an 8-bit input widened by --depth 16.
for spec in "g16.png|-f 5|1 0|16-bit PNG, -f 5" \
            "g16.pgm|--filter sobel-x --scale 0.5 --offset 128|0.5 128|16-bit PGM, sobel-x mapped" \
            "g100.pgm|-f 3 --depth 16|1 0|PGM of maxval 100 (not of full scale) with --depth 16" \
            "g8.png|-f 7 --depth 16|1 0|8-bit PNG with --depth 16"; do
    src=${spec%%|*} rest=${spec#*|}
    flags=${rest%%|*} rest=${rest#*|}
    mapping=${rest%%|*} label=${rest#*|}
    name="a: 16-bit output = round(clamp(v S + V, 0, 255) 65535 / 255) of the floats: $label"
    # shellcheck disable=SC2086
    if why=$(tool -s "$fmt/$src" $flags --raw "$tmp/m.f32" -o "$tmp/m.png" -e) &&
       why=$($util map16 "$tmp/m.f32" "$tmp/m.png" $mapping 2>&1); then
        ok "$name"
    else
        not_ok "$name" "$why"
    fi
done

# A sample of more than 8 bits is v * 255 / maxval, unrounded: the identity filter's
# float output of a PGM of maxval 1000 holds 127.5 for a sample of 500.
name="a: PPM of maxval 1000: sample 500 of channel R becomes 127.5 in the float plane"
printf 'P6\n1 1\n1000\n\001\364\003\350\000\002' >"$tmp/m1000.ppm" # 500, 1000, 2
if why=$(tool -s "$tmp/m1000.ppm" --color -c 0,1,0 --raw "$tmp/m.f32" --no-output); then
    got=$(od -A n -t f4 -N 12 "$tmp/m.f32" | awk '{ printf "%.4f %.4f %.4f", $1, $2, $3 }')
    if [ "$got" = "127.5000 255.0000 0.5100" ]; then ok "$name"; else
        not_ok "$name" "R, G, B planes hold $got"; fi
else not_ok "$name" "$why"; fi

name="a: every JPEG fixture's intensity plane is its luma, djpeg -grayscale's samples"
why=
for f in base420 base422 base440 base444 prog420 arith420 restart444 gray-prog; do
    if ! djpeg -grayscale -pnm "$fmt/$f.jpg" >"$tmp/dj.pnm" 2>/dev/null; then
        why="$why djpeg $f failed;"
        continue
    fi
    if ! w=$(tool -s "$fmt/$f.jpg" -c 0,1,0 -e --raw "$tmp/i.f32" --no-output) ||
       ! w=$($util intensity "$tmp/i.f32" "$tmp/dj.pnm" 2>&1); then
        why="$why $f: $w;"
    fi
done
if [ -z "$why" ]; then ok "$name"; else not_ok "$name" "$why"; fi

# --- b. the same picture as BMP, PNG and PGM/PPM -------------------------------------------
# The picture: the 451 x 300 sample as 24-bit BMP, PNG and PPM, and its gray intensity (the
# tool's 8-bit output of the identity filter, a BMP with a gray palette) as BMP, PNG and PGM.
# Every pair is written by formats-util.py, not by the tool, and checked to hold one picture.
mkdir -p "$tmp/same"
cp "$img451" "$tmp/same/c.bmp"
$util convert "$tmp/same/c.bmp" "$tmp/same/c.png"
$util convert "$tmp/same/c.bmp" "$tmp/same/c.ppm"
tool -s "$img451" -c 0,1,0 -o "$tmp/same/g.bmp" >/dev/null
$util convert "$tmp/same/g.bmp" "$tmp/same/g.png"
$util convert "$tmp/same/g.bmp" "$tmp/same/g.pgm"
name="b: the picture in each format holds the same samples"
if why=$(same_samples "$tmp/same/c.bmp" "$tmp/same/c.png") &&
   why=$(same_samples "$tmp/same/c.bmp" "$tmp/same/c.ppm") &&
   why=$(same_samples "$tmp/same/g.bmp" "$tmp/same/g.png") &&
   why=$(same_samples "$tmp/same/g.bmp" "$tmp/same/g.pgm"); then
    ok "$name"
else
    not_ok "$name" "$why"
fi
cases=0
bad=
for alg in tiled twopass onepass; do
    for study in "" -e; do
        for spec in "c|ppm|" "c|ppm|--color" "g|pgm|"; do
            pic=${spec%%|*} rest=${spec#*|}
            pnm=${rest%%|*} colour=${rest#*|}
            cases=$((cases + 1))
            for ext in bmp png "$pnm"; do
                # shellcheck disable=SC2086
                if ! why=$(tool -s "$tmp/same/$pic.$ext" -a "$alg" -f 5 --border reflect101 \
                        -sL 3 -sT 3 -tL 2 -tT 2 $study $colour -o "$tmp/same/out-$ext.bmp"); then
                    bad="$bad [$why]"
                fi
            done
            if ! cmp -s "$tmp/same/out-bmp.bmp" "$tmp/same/out-png.bmp" ||
               ! cmp -s "$tmp/same/out-bmp.bmp" "$tmp/same/out-$pnm.bmp"; then
                bad="$bad [$pic $alg ${study:-plain} ${colour:-gray}: outputs differ]"
            fi
        done
    done
done
cases_verdict 18 "b: BMP, PNG, PGM/PPM: identical outputs, 3 algorithms x plain/-e x gray, colour, --color" \
    "b: the same picture in three formats"

# --- c. a JPEG gives djpeg's pixels' output -----------------------------------------------------
cases=0
bad=
for f in base420 prog420 arith420 gray-prog; do
    if ! djpeg -bmp "$fmt/$f.jpg" >"$tmp/dj-colour.bmp" 2>/dev/null ||
       ! djpeg -grayscale -bmp "$fmt/$f.jpg" >"$tmp/dj-gray.bmp" 2>/dev/null; then
        bad="$bad [djpeg $f failed]"
        continue
    fi
    for alg in tiled twopass onepass; do
        for colour in "" --color; do
            cases=$((cases + 1))
            if [ -n "$colour" ]; then cp "$tmp/dj-colour.bmp" "$tmp/dj.bmp"; else
                cp "$tmp/dj-gray.bmp" "$tmp/dj.bmp"; fi
            # shellcheck disable=SC2086
            if ! why=$(tool -s "$fmt/$f.jpg" -a "$alg" -f 7 $colour -o "$tmp/j1.bmp") ||
               ! why=$(tool -s "$tmp/dj.bmp" -a "$alg" -f 7 $colour -o "$tmp/j2.bmp"); then
                bad="$bad [$why]"
            elif ! cmp -s "$tmp/j1.bmp" "$tmp/j2.bmp"; then
                bad="$bad [$f $alg ${colour:-gray}: differs from djpeg -bmp's]"
            fi
        done
    done
done
cases_verdict 24 "c: 4 JPEGs (baseline, progressive, arithmetic, gray) x 3 algorithms x gray/colour: djpeg's" \
    "c: JPEG against djpeg -bmp"

# --- d. --quality ---------------------------------------------------------------------------
# The tool encodes with TurboJPEG: accurate DCT, colour 4:2:0 unless --sampling says 4:2:2 or
# 4:4:4, so cjpeg -dct int at the same quality and sampling makes the same bytes from the same
# pixels (the tool's own PGM/PPM output).
bad=
for spec in "--color|70|" "--color --sampling 444|80|-sample 1x1" "--color --sampling 422|90|-sample 2x1" "|30|" "|95|"; do
    colour=${spec%%|*} rest=${spec#*|}
    q=${rest%%|*} sample=${rest#*|}
    ext=pgm
    [ -n "$colour" ] && ext=ppm
    qflag="--quality $q"
    [ "$q" = 95 ] && qflag= # the default
    # shellcheck disable=SC2086
    if ! why=$(tool -s "$img451" -f 5 $colour $qflag -o "$tmp/q.jpg") ||
       ! why=$(tool -s "$img451" -f 5 $colour -o "$tmp/q.$ext"); then
        bad="$bad [$why]"
        continue
    fi
    # shellcheck disable=SC2086
    cjpeg -quality "$q" -dct int $sample "$tmp/q.$ext" >"$tmp/c.jpg"
    cmp -s "$tmp/q.jpg" "$tmp/c.jpg" ||
        bad="$bad [quality $q ${colour:-gray}: differs from cjpeg's]"
done
verdict "d: JPEG output at --quality 70 (colour 4:2:0), 80 (--sampling 444), 90 (422), 30 and the default 95 (gray) = cjpeg's bytes" \
    "d: --quality"

# --- e. pipes ---------------------------------------------------------------------------------
# pipe_case NAME IN FORMAT-FLAGS FILE-EXT: cat IN | tiledconv -s - -o - FLAGS equals the
# file-to-file run, and nothing but the image reaches stdout.
pipe_case() {
    name=$1 src=$2 flags=$3 ext=$4
    # shellcheck disable=SC2086
    if ! why=$(tool -s "$src" -f 5 -o "$tmp/file.$ext" $flags); then
        not_ok "$name" "$why"
        return
    fi
    # shellcheck disable=SC2086
    cat "$src" | "$bin" -s - -o - -f 5 $flags >"$tmp/pipe.out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        not_ok "$name" "exit $rc: $(sed -n 1p "$tmp/err")"
    elif ! cmp -s "$tmp/pipe.out" "$tmp/file.$ext"; then
        not_ok "$name" "standard output differs from the file-to-file run"
    elif ! grep -q '^output: standard output' "$tmp/err"; then
        not_ok "$name" "the report did not go to stderr: $(tr '\n' '|' <"$tmp/err" | cut -c1-200)"
    else
        ok "$name"
    fi
}
pipe_case "e: cat g16.png | tiledconv -s - -o - --format png = the file-to-file run" \
    "$fmt/g16.png" "--format png" png
pipe_case "e: a JPEG through a pipe to a JPEG (--format jpeg --color --quality 80)" \
    "$fmt/prog420.jpg" "--format jpeg --color --quality 80" jpg
pipe_case "e: a BMP through a pipe to BMP (no --format)" "$img451" "" bmp
pipe_case "e: a PPM of maxval 1000 through a pipe to PPM (16 bits kept, --color)" \
    "$fmt/rgb1000.ppm" "--format ppm --color" ppm

name="e: -o - with -t, -e and --json: stdout holds only the image, the reports go to stderr"
tool -s "$img451" -o "$tmp/file.png" >/dev/null
run "$bin" -s "$img451" -o - --format png -t -e
if [ "$rc" -ne 0 ] || ! cmp -s "$tmp/out" "$tmp/file.png"; then
    not_ok "$name" "exit $rc, or stdout is not the image"
elif ! grep -q 'timing, tiled' "$tmp/err" || ! grep -q PASSED "$tmp/err"; then
    not_ok "$name" "no timing or PASSED on stderr"
else
    run "$bin" -s "$img451" -o - --format png --json
    if [ "$rc" -ne 0 ] || ! cmp -s "$tmp/out" "$tmp/file.png" ||
       ! grep -q '^{.*"algorithm"' "$tmp/err"; then
        not_ok "$name" "--json: exit $rc, stdout not the image or no record on stderr"
    else
        ok "$name"
    fi
fi

# The image (256 KiB) is larger than a pipe holds, so head's leaving fails the write. (-e's
# PASSED is a result, which -q keeps; the error is the one line.)
for flags in "" "-e" "--format png --color"; do
    name="e: a broken pipe (| head -c 10) is exit 1 with one line${flags:+ ($flags)}"
    # shellcheck disable=SC2086
    { "$bin" -q -s "$img512" -o - $flags 2>"$tmp/err"; echo $? >"$tmp/rc"; } | head -c 10 >/dev/null
    rc=$(cat "$tmp/rc")
    if [ "$rc" -ne 1 ]; then
        not_ok "$name" "exit $rc"
    elif [ "$(grep -c '^tiledconv: ' "$tmp/err")" -ne 1 ] ||
         ! grep -q '^tiledconv: -o -: broken pipe' "$tmp/err"; then
        not_ok "$name" "stderr: $(tr '\n' '|' <"$tmp/err")"
    else
        ok "$name"
    fi
done

name="e: a failed check writes nothing to stdout (exit 1)"
run env TILEDCONV_TEST_CORRUPT=5,7 "$bin" -q -s "$fmt/g16.png" -e -o - --format png
if [ "$rc" -eq 1 ] && [ ! -s "$tmp/out" ]; then ok "$name"; else
    not_ok "$name" "exit $rc, $(wc -c <"$tmp/out" | tr -d ' ') bytes on stdout"; fi

name="e: endless input is refused from its first bytes (/dev/zero, yes), within a second each"
start=$(date +%s)
"$bin" -q -s - -o - --format png </dev/zero >"$tmp/out" 2>"$tmp/err"
rc1=$?
yes | "$bin" -q -s - -o "$tmp/y.png" >/dev/null 2>>"$tmp/err"
rc2=$?
took=$(($(date +%s) - start))
if [ "$rc1" -eq 2 ] && [ "$rc2" -eq 2 ] && [ "$took" -le 2 ] && [ ! -s "$tmp/out" ] &&
   [ ! -e "$tmp/y.png" ] && [ "$(grep -c 'standard input: not an image' "$tmp/err")" -eq 2 ]; then
    ok "$name"
else
    not_ok "$name" "exits $rc1 and $rc2 after ${took} s: $(tr '\n' '|' <"$tmp/err")"
fi

# --- f. a batch of mixed formats ---------------------------------------------------------------
mkdir -p "$tmp/mix"
cp "$img451" "$tmp/mix/photo.bmp"
cp "$fmt/g16.png" "$fmt/rgb8.png" "$fmt/g100.pgm" "$fmt/rgb1000.ppm" "$fmt/base420.jpg" \
    "$fmt/gray-prog.jpg" "$tmp/mix/"
# batch_case NAME EXT FLAGS [-e]: the batch with FLAGS into a folder, each output DIR/BASE.EXT
# identical to the single run of its file (and with -e to the study's too).
batch_case() {
    name=$1 ext=$2 flags=$3 studies=${4:-}
    rm -rf "$tmp/bo" && mkdir -p "$tmp/bo"
    # shellcheck disable=SC2086
    run "$bin" -O "$tmp/bo" -d 0,0 -f 5 $flags "$tmp"/mix/*
    if [ "$rc" -ne 0 ]; then
        not_ok "$name" "exit $rc: $(sed -n 1p "$tmp/err")"
        return
    fi
    bad=
    n=0
    for f in "$tmp"/mix/*; do
        b=$(basename "$f") && b=${b%.*}
        out=$tmp/bo/$b.$ext
        n=$((n + 1))
        [ -f "$out" ] || { bad="$bad [no $b.$ext]"; continue; }
        for study in "" $studies; do
            # shellcheck disable=SC2086
            if ! why=$(tool -s "$f" -f 5 $flags $study -o "$tmp/single.$ext"); then
                bad="$bad [$why]"
            elif ! cmp -s "$out" "$tmp/single.$ext"; then
                bad="$bad [$b ${study:-plain}: differs]"
            fi
        done
    done
    if [ "$(find "$tmp/bo" -type f | wc -l)" -ne "$n" ]; then
        bad="$bad [$(find "$tmp/bo" -type f | wc -l) files for $n inputs]"
    fi
    verdict "$name"
}
batch_case "f: BMP, PNG, PGM/PPM and JPEG in, --format png out: = single runs (plain, -e)" png \
    "--format png" -e
batch_case "f: mixed formats, --format jpeg --quality 60 --color: = single runs" jpg \
    "--format jpeg --quality 60 --color"
batch_case "f: mixed formats, --format pgm: DIR/BASE.pgm = single runs" pgm "--format pgm"
batch_case "f: mixed formats, --format pnm --color: DIR/BASE.ppm = single runs (plain, -e)" ppm \
    "--format pnm --color" -e
batch_case "f: mixed formats to BMP (the device's BMP rows) = single runs" bmp "--format bmp"
batch_case "f: mixed formats, --format png --depth 16 (float planes back): = single runs, -e" \
    png "--format png --depth 16" -e
name="f: in the batch, 16-bit inputs keep 16 bits in PNG and 8-bit ones stay 8-bit"
rm -rf "$tmp/bo" && mkdir -p "$tmp/bo"
"$bin" -q -O "$tmp/bo" --format png "$tmp"/mix/* 2>"$tmp/err"
g16=$($util samples "$tmp/bo/g16.png" | cut -d' ' -f4)
p1000=$($util samples "$tmp/bo/rgb1000.png" | cut -d' ' -f4)
rgb8=$($util samples "$tmp/bo/rgb8.png" | cut -d' ' -f4)
if [ "$g16 $p1000 $rgb8" = "65535 65535 255" ]; then ok "$name"; else
    not_ok "$name" "maxvals $g16 $p1000 $rgb8, expected 65535 65535 255"; fi

test_end
