#!/bin/sh
# Images filtered in strips (--max-memory), end to end on the default device, at a size that
# runs in seconds (3000 x 2400; `make strips-large` runs 16384 x 16384):
#   a. every format (PNG 8 and 16 bits, JPEG baseline and progressive, PGM/PPM 8 and 16 bits,
#      BMP 8 and 24 bits), gray and --color: the files of a run in strips are the whole run's,
#      byte for byte, and the run took several strips (-v says how many);
#   b. the options a strip must honour: ROIs whose source and target lie apart, every border
#      rule (wrap reads across the ROI's edges), tiled, twopass, onepass, --storage image, a
#      mask, 16-bit outputs, --scale and --offset, --raw, -e (PASSED and the same digest),
#      standard input;
#   c. the peak memory under the budget; a budget too small for one strip: exit 2, the bytes
#      it needs named, no file; what strips refuse (bilinear, -a all, -o -): one line, no file;
#      a file that breaks half-way: exit 2, no file and no temporary left;
#   d. a batch with images in strips among whole ones: the same files and records.
# Usage: sh tests/strips.sh ./tiledconv   (from the project root). Prints "ok - ..." or
# "not ok - ...: why" per case, then "strips: N passed, M failed"; exit 1 when any failed.

. "$(dirname "$0")/lib.sh"
test_begin strips "$@"

W=3000 H=2400

first_line() {
    sed -n 1p "$1"
}

# budget ARGS...: a --max-memory (in bytes) for the run of ARGS that holds a strip of a few
# dozen rows but not the whole image, on whatever device runs it: what the tool says one band
# of the fewest rows needs, and 4 MiB more. It says so when asked with the least budget it
# takes, which a budget of 1 byte names (refused before the platform opens): with the
# platform open, not one band fits so little. Asked twice: the first may build the programs
# (the test's caches start empty), and what a cold build keeps counts (plan.h), which the
# runs after it do not pay; so ARGS must build what the run will (-v among them where it has
# it). Empty when the tool does not say.
budget() {
    "$bin" "$@" --max-memory 1 -q >/dev/null 2>"$tmp/budget.err"
    least=$(sed -n 's/.* give at least \([0-9]*\)M$/\1/p' "$tmp/budget.err")
    [ -n "$least" ] || return
    "$bin" "$@" --max-memory "${least}M" -q >/dev/null 2>&1
    "$bin" "$@" --max-memory "${least}M" -q >/dev/null 2>"$tmp/budget.err"
    need=$(sed -n 's/.* needs \([0-9]*\) bytes (.*/\1/p' "$tmp/budget.err")
    [ -n "$need" ] && echo $((need + 4194304))
}

# bands FILE: the count of strips -v reported in FILE, or 0.
bands() {
    sed -n 's/^strips: \([0-9]*\) bands\{0,1\} .*/\1/p' "$1" | sed -n 1p | grep . || echo 0
}

# same NAME ARGS...: the run of ARGS whole and in strips (under budget's --max-memory) write
# the same files (-o and --raw, named OUT.* and RAW.f32 in ARGS, replaced by whole.* and
# strip.*), and the strips were several.
same() {
    name=$1
    shift
    rm -f "$tmp"/whole.* "$tmp"/strip.*
    # Asked with -v as the run in strips is: -v builds the counting kernels, other programs
    # than without it, and a cold build's leftovers count (budget's comment).
    # shellcheck disable=SC2046
    budget=$(budget -v $(printf '%s\n' "$@" | sed "s|^OUT|$tmp/strip|; s|^RAW|$tmp/strip|"))
    if [ -z "$budget" ]; then
        not_ok "$name" "no band's bytes: $(first_line "$tmp/budget.err")"
        return
    fi
    # shellcheck disable=SC2046
    "$bin" $(printf '%s\n' "$@" | sed "s|^OUT|$tmp/whole|; s|^RAW|$tmp/whole|") -q \
        >"$tmp/w.out" 2>"$tmp/w.err"
    rc_w=$?
    # shellcheck disable=SC2046
    "$bin" $(printf '%s\n' "$@" | sed "s|^OUT|$tmp/strip|; s|^RAW|$tmp/strip|") -v \
        --max-memory "$budget" >"$tmp/s.out" 2>"$tmp/s.err"
    rc_s=$?
    n=$(bands "$tmp/s.out")
    if [ "$rc_w" -ne 0 ] || [ "$rc_s" -ne 0 ]; then
        not_ok "$name" "exit $rc_w whole, $rc_s in strips: $(first_line "$tmp/w.err")$(first_line "$tmp/s.err")"
        return
    fi
    if [ "$n" -lt 2 ]; then
        not_ok "$name" "$n strips under --max-memory $budget: $(first_line "$tmp/s.err")"
        return
    fi
    for f in "$tmp"/whole.*; do
        [ -e "$f" ] || { not_ok "$name" "no output"; return; }
        other=$tmp/strip.${f##*.}
        if ! cmp -s "$f" "$other"; then
            not_ok "$name" "$(basename "$f") and $(basename "$other") differ"
            return
        fi
    done
    ok "$name ($n strips)"
}

# --- the inputs ----------------------------------------------------------------------------
python3 "$root/tests/strips-input.py" $W $H "$tmp/in.ppm" || exit 1
# The identity filter (-c 0,1,0) writes the input's pixels in each format.
id="-c 0,1,0 -q"
# shellcheck disable=SC2086
"$bin" "$tmp/in.ppm" $id --color -o "$tmp/in.png" &&
    "$bin" "$tmp/in.ppm" $id -o "$tmp/gray.png" &&
    "$bin" "$tmp/in.ppm" $id --color --depth 16 -o "$tmp/in16.png" &&
    "$bin" "$tmp/in.ppm" $id -o "$tmp/gray.pgm" &&
    "$bin" "$tmp/in.ppm" $id --depth 16 -o "$tmp/gray16.pgm" &&
    "$bin" "$tmp/in.ppm" $id --color -o "$tmp/in.bmp" &&
    "$bin" "$tmp/in.ppm" $id -o "$tmp/gray.bmp" &&
    "$bin" "$tmp/in.ppm" $id --color -o "$tmp/in.jpg" || exit 1
progressive=
if command -v cjpeg >/dev/null 2>&1; then
    cjpeg -progressive -quality 90 "$tmp/in.ppm" >"$tmp/prog.jpg" && progressive=$tmp/prog.jpg
fi

# --- a. every format, gray and colour ------------------------------------------------------
for input in in.png in16.png in.ppm gray.png gray.pgm gray16.pgm in.bmp gray.bmp in.jpg \
    ${progressive:+prog.jpg}; do
    ext=${input##*.}
    [ "$ext" = ppm ] || [ "$ext" = pgm ] && out=pnm || out=$ext
    # Colour from the colour files of each format; gray from each file.
    case "$input" in
        gray* | in16.png) colours=gray ;;
        *) colours="gray colour" ;;
    esac
    for c in $colours; do
        if [ "$c" = colour ]; then
            same "a: $input, --color, written as $out" "$tmp/$input" --color -f 5 -o "OUT.$ext"
        else
            same "a: $input, gray, written as $out" "$tmp/$input" -f 5 -o "OUT.$ext"
        fi
    done
done

# --- b. what a strip must honour -------------------------------------------------------------
g=$tmp/gray.png
same "b: ROI with its source below its target, wrap" "$g" -f 9 --border wrap \
    -sL 7 -sT 300 -tL 11 -tT 20 -W 2300 -H 1400 -o OUT.png
same "b: ROI with its source above its target, reflect" "$g" -f 7 --border reflect \
    -sL 0 -sT 3 -tL 40 -tT 390 -W 2000 -H 1400 -o OUT.png
# wrap, reflect and reflect101 have cases of their own above and below (ROIs apart, twopass,
# split, a mask): make test runs this loop for the other two, make full-sweeps (TEST_FULL) for all.
strip_borders="replicate constant=40"
[ -n "${TEST_FULL:-}" ] && strip_borders="$strip_borders reflect101 reflect wrap"
for border in $strip_borders; do
    same "b: --border $border, 15 x 3 taps" "$g" --cx 1,2,3,4,5,6,7,8,7,6,5,4,3,2,1 \
        --cy 1,2,1 --border $border -o OUT.png
done
same "b: -a twopass, 21 taps" "$g" -a twopass -f 21 --border wrap -o OUT.png
same "b: the split variant, 21 x 19 taps (its plane between the passes in the budget)" "$g" \
    -f 21x19 --border reflect101 --kernel split -o OUT.png
same "b: -a onepass, a 5 x 3 mask" "$g" -a onepass \
    --mask '1,2,-1,2,1;0,3,-8,3,0;1,2,-1,2,1' --border reflect101 -o OUT.png
if "$bin" -g 64x64 --storage image -q --no-output 2>/dev/null; then
    same "b: --storage image" "$g" --storage image -f 7 -o OUT.png
fi
same "b: 16-bit output, --scale, --offset, --raw" "$tmp/gray16.pgm" -f 5 --scale 1.5 \
    --offset -20 --raw RAW.f32 -o OUT.pgm
same "b: --color 16-bit PNG, --raw" "$tmp/in16.png" --color -f 3 --raw RAW.f32 \
    -o OUT.png
# -e: PASSED, and the record's digest is the whole run's.
gray_budget=$(budget "$g" -f 5 -e -o "$tmp/e.png")
"$bin" "$g" -f 5 -e --max-memory "$gray_budget" -o "$tmp/e.png" >"$tmp/out" 2>"$tmp/err" &&
    grep -q '^PASSED' "$tmp/out" && [ ! -s "$tmp/err" ] &&
    ok "b: -e in strips: PASSED" ||
    not_ok "b: -e in strips" "$(first_line "$tmp/err")"
mkdir -p "$tmp/ew" "$tmp/es"
"$bin" "$g" "$tmp/in.png" -O "$tmp/ew" -f 5 -e --json >"$tmp/w.json" 2>/dev/null
"$bin" "$g" "$tmp/in.png" -O "$tmp/es" -f 5 -e --json \
    --max-memory "$(budget "$tmp/in.png" -f 5 -e -o "$tmp/e.png")" >"$tmp/s.json" 2>/dev/null
digests() {
    grep '"type": "image"' "$1" | sed 's/.*"sha256": "\([0-9a-f]*\)".*/\1/'
}
if [ "$(digests "$tmp/w.json" | wc -l)" -eq 2 ] &&
    [ "$(digests "$tmp/w.json")" = "$(digests "$tmp/s.json")" ] &&
    ! grep -q '"checked": false' "$tmp/s.json"; then
    ok "b: -e's records in strips: the whole run's digests"
else
    not_ok "b: -e's records in strips" "$(tr '\n' '|' <"$tmp/s.json" | cut -c1-300)"
fi
# Standard input: read whole (counted), then in strips.
"$bin" -s - -f 5 -q -o "$tmp/stdin-w.png" <"$g" &&
    "$bin" -s - -f 5 -q -o "$tmp/stdin-s.png" --max-memory "$gray_budget" <"$g" &&
    cmp -s "$tmp/stdin-w.png" "$tmp/stdin-s.png" &&
    ok "b: standard input in strips" || not_ok "b: standard input in strips" "differ"

# --- c. memory, budgets, refusals, broken files ------------------------------------------------
build_measure() {
    measure=$tmp/measure
    ${CC:-cc} -std=c11 -O1 -o "$measure" "$root/tests/measure.c" 2>/dev/null
}
if build_measure; then
    # The peak stays within the budget (the platform, its programs and the bands), and under
    # the whole run's; the platform's own peak (a 16 x 16 run on the same device) for the
    # message.
    "$measure" -r "$tmp/report" -- "$bin" -g 16x16 -q --no-output >/dev/null 2>&1
    base=$(sed 's/.*maxrss_kb=\([0-9]*\).*/\1/' "$tmp/report")
    for spec in gray colour; do
        flag=
        [ "$spec" = colour ] && flag=--color
        # shellcheck disable=SC2086
        bytes=$(budget "$tmp/in.png" $flag -f 5 -o "$tmp/m.png")
        budget_kb=$((bytes / 1024))
        # shellcheck disable=SC2086
        "$measure" -r "$tmp/report" -- "$bin" "$tmp/in.png" $flag -f 5 -q -o "$tmp/m.png" \
            --max-memory "$bytes" >/dev/null 2>"$tmp/err"
        rss=$(sed 's/.*maxrss_kb=\([0-9]*\).*/\1/' "$tmp/report")
        # shellcheck disable=SC2086
        "$measure" -r "$tmp/report" -- "$bin" "$tmp/in.png" $flag -f 5 -q -o "$tmp/m.png" \
            >/dev/null 2>&1
        whole=$(sed 's/.*maxrss_kb=\([0-9]*\).*/\1/' "$tmp/report")
        if [ "$rss" -le "$budget_kb" ] && [ "$rss" -lt "$whole" ]; then
            ok "c: $spec: peak $rss KB in strips within --max-memory $budget_kb KB ($((rss - base)) KB over the platform's $base KB; whole $whole KB)"
        else
            not_ok "c: $spec: peak memory" "$rss KB in strips, budget $budget_kb KB ($((rss - base)) KB over $base KB), whole $whole KB"
        fi
    done
else
    echo "skip - c: peak memory: tests/measure.c does not build here"
fi
rm -f "$tmp/small.png"
# 100M: above the least budget a run takes before its platform (about 70 MB), below what the
# platform, its margin and one band take.
"$bin" "$tmp/in.png" --color -f 9 --max-memory 100M -o "$tmp/small.png" >"$tmp/out" \
    2>"$tmp/err"
rc=$?
if [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -e "$tmp/small.png" ] &&
    grep -q 'even one band of [0-9]* rows needs [0-9]* bytes .*more than the 104857600 bytes' \
        "$tmp/err"; then
    ok "c: a budget too small for one strip: exit 2, $(sed 's/.*needs \([0-9]*\) bytes.*/\1/' "$tmp/err") bytes named"
else
    not_ok "c: a budget too small for one strip" "exit $rc: $(first_line "$tmp/err")"
fi
for spec in "-a bilinear -o REFUSED|bilinear's weights" "-a all -o REFUSED|-a all compares" \
    "-o -|standard output"; do
    args=$(echo "${spec%%|*}" | sed "s|REFUSED|$tmp/refused.png|") want=${spec#*|}
    label=$(echo "${spec%%|*}" | sed 's/ -o REFUSED//')
    rm -f "$tmp/refused.png"
    # shellcheck disable=SC2086
    "$bin" "$g" $args --max-memory "$gray_budget" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -e "$tmp/refused.png" ] &&
        grep -q -- "$want" "$tmp/err"; then
        ok "c: $label in strips: refused, exit 2"
    else
        not_ok "c: $label in strips" "exit $rc: $(first_line "$tmp/err")"
    fi
done
# A value that is no number of bytes: a usage error before any work.
"$bin" "$g" --max-memory 0 -o "$tmp/zero.png" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 2 ] && [ ! -e "$tmp/zero.png" ] &&
    grep -q "^tiledconv: --max-memory '0': expected a number of bytes" "$tmp/err"; then
    ok "c: --max-memory 0: a usage error, exit 2"
else
    not_ok "c: --max-memory 0" "exit $rc: $(first_line "$tmp/err")"
fi
# -g makes its image whole: over --max-memory it is refused by the plan, naming the flag.
"$bin" -g 8192x8192 --max-memory 250M --no-output >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
    grep -q 'the run needs [0-9.]* MB of host memory.*(--max-memory)$' "$tmp/err"; then
    ok "c: -g over --max-memory: refused by the plan, exit 2"
else
    not_ok "c: -g over --max-memory" "exit $rc: $(first_line "$tmp/err")"
fi
# A PNG cut in its last rows: the strips before were encoded, but nothing is left.
size=$(wc -c <"$tmp/in.png")
head -c $((size * 9 / 10)) "$tmp/in.png" >"$tmp/cut.png"
mkdir -p "$tmp/cutdir"
"$bin" "$tmp/cut.png" --color -q --max-memory "$(budget "$tmp/in.png" --color -o x.png)" \
    -o "$tmp/cutdir/out.png" \
    >/dev/null 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 2 ] && [ -z "$(ls -A "$tmp/cutdir")" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; then
    ok "c: a PNG cut short: exit 2, no file, no temporary ($(first_line "$tmp/err" | cut -c1-80))"
else
    not_ok "c: a PNG cut short" "exit $rc, left: $(ls -A "$tmp/cutdir"): $(first_line "$tmp/err")"
fi

# --- d. a batch with strips among whole images --------------------------------------------------
mkdir -p "$tmp/bw" "$tmp/bs"
small=$root/images/TiledConv_Input512x512.bmp
# A budget one band of either large input fits (a gray job reads the JPEG's luma alone, so
# which of the two needs more depends on the decoder).
b_jpg=$(budget "$tmp/in.jpg" -f 5 -o x.png)
b_png=$(budget "$g" -f 5 -o x.png)
b_both=$((b_jpg > b_png ? b_jpg : b_png))
"$bin" "$small" "$g" "$tmp/in.jpg" -O "$tmp/bw" --format png -f 5 -q --json \
    >"$tmp/bw.json" 2>"$tmp/err" &&
    "$bin" "$small" "$g" "$tmp/in.jpg" -O "$tmp/bs" --format png -f 5 -q --json \
        --max-memory "$b_both" >"$tmp/bs.json" 2>>"$tmp/err"
rc=$?
differ=
for f in "$tmp"/bw/*; do
    cmp -s "$f" "$tmp/bs/$(basename "$f")" || differ="$differ $(basename "$f")"
done
if [ "$rc" -eq 0 ] && [ -z "$differ" ] && [ "$(ls "$tmp/bs" | wc -l)" -eq 3 ] &&
    grep -q '"written": 3' "$tmp/bs.json"; then
    ok "d: a batch with images in strips: the same 3 files"
else
    not_ok "d: a batch with images in strips" "exit $rc, differ:$differ; $(first_line "$tmp/err")"
fi

test_end
