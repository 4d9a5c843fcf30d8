# End-to-end tests of long filters, a length per axis and non-separable masks, sourced by
# tests/e2e.sh, whose helpers (run, ok, not_ok, first_line, sanitizer_report, good_run,
# expect_clean_run, float_at) and variables ($bin, $tmp, $root, $img451, $img512) they use. One
# function per feature; part_m runs them all.

# A non-separable 3 x 3 mask and a 5 x 3 one (rank 2: no factoring), and a rank-1 5 x 3.
mask3='1,-2,3;0,4,-1;2,1,-3'
mask53='1,0,-2,1,3;2,-1,4,0,-2;-3,2,5,1,0'
rank1='1,4,6,4,1;2,8,12,8,2;1,4,6,4,1'

# Lengths up to 63, a length per axis, every algorithm against the reference.
part_m_lengths() {
    good_run "m: -f 31 -a all on an ROI" 451 300 -s "$img451" -f 31 -a all -sL 13 -sT 7 \
        -tL 3 -tT 21 -W 301 -H 203 --border reflect101
    good_run "m: -f 63 -a all on a 120 x 90 ROI" 451 300 -s "$img451" -f 63 -a all -sL 40 \
        -sT 30 -tL 5 -tT 2 -W 120 -H 90 --border wrap
    good_run "m: -f 9x3 -a all" 451 300 -s "$img451" -f 9x3 -a all -sL 3 -tL 1
    good_run "m: -f 1x15 -a all (columns only)" 451 300 -s "$img451" -f 1x15 -a all
    good_run "m: -f 63x1 -a all (rows only), constant border" 451 300 -s "$img451" -f 63x1 \
        -a all --border constant=40
    # A length per axis changed these on purpose: a coefficient list sets its axis's length, so
    # -c with 5 values needs no -f 5 (it was refused before), and --cy alone with 5 gives 5 x 5.
    good_run "m: -c with 5 values and no -f" 451 300 -s "$img451" -c 1,2,3,2,1 -a all
    name="m: -c with 5 values and no -f is a 5-tap filter"
    if grep -q 'filter: 5 taps: 1 2 3 2 1' "$tmp/stdout"; then ok "$name"; else
        not_ok "$name" "no 'filter: 5 taps: 1 2 3 2 1' on stdout"; fi
    good_run "m: --cy with 5 values and no -f" 451 300 -s "$img451" --cy 1,2,3,4,5
    good_run "m: --cx 7 values, --cy 3" 451 300 -s "$img451" --cx 1,2,3,4,3,2,1 --cy -1,0,1 \
        -a all
    name="m: --cx 7 values and --cy 3 make a 7 x 3 filter"
    if grep -q 'filter: 7 x 3 taps' "$tmp/stdout"; then ok "$name"; else
        not_ok "$name" "no 'filter: 7 x 3 taps' on stdout"; fi
    good_run "m: --filter gauss --sigma 10 (61 taps)" 451 300 -s "$img451" --filter gauss \
        --sigma 10
    name="m: --filter gauss --sigma 10 picks 61 taps"
    if grep -q 'filter: gauss, 61 taps, sigma 10' "$tmp/stdout"; then ok "$name"; else
        not_ok "$name" "no 'gauss, 61 taps, sigma 10' on stdout"; fi
    good_run "m: --filter sobel-x -f 5x3" 451 300 -s "$img451" --filter sobel-x -f 5x3 -a all
}

# Masks: every algorithm that applies, both ROIs, colour, a file, the named masks.
part_m_masks() {
    good_run "m: --mask 3x3 -a all on an ROI" 451 300 -s "$img451" --mask "$mask3" -a all \
        -sL 5 -sT 3 -tL 2 -tT 1 -W 300 -H 200 --border reflect
    name="m: -a all with a mask that is not separable lists twopass as not applicable"
    if grep -q '^twopass: not applicable' "$tmp/stdout" &&
       [ "$(grep -c PASSED "$tmp/stdout")" -eq 2 ]; then ok "$name"; else
        not_ok "$name" "stdout: $(tr '\n' '|' <"$tmp/stdout" | cut -c1-300)"; fi
    run "$bin" -s "$img451" --mask "$mask3" -a all -t -q --no-output
    name="m: -a all -t's table has a twopass row 'not applicable'"
    if [ "$rc" -eq 0 ] && grep -q '^twopass .*not applicable: the mask is not separable' \
        "$tmp/stdout"; then ok "$name"; else
        not_ok "$name" "exit $rc; stdout: $(grep twopass "$tmp/stdout" | head -1)"; fi
    good_run "m: --mask 5x3 -a all, wrap" 451 300 -s "$img451" --mask "$mask53" -a all \
        --border wrap -sL 9 -tL 2
    m15=$(awk 'BEGIN { for (j = 0; j < 15; j++) { for (i = 0; i < 15; i++)
        printf "%s%d", i ? "," : "", (3 * i + 5 * j) % 7 - 3; printf j < 14 ? ";" : "" } }')
    good_run "m: --mask 15x15 -a all on a 40 x 30 ROI" 451 300 -s "$img451" --mask "$m15" \
        -a all -sL 100 -sT 100 -tL 1 -tT 3 -W 40 -H 30 --border constant=9
    printf '# the 5 x 3 mask\n1 0 -2 1 3\n2, -1, 4, 0, -2   # a comment\n\n-3 2 5 1 0\n' \
        >"$tmp/mask.txt"
    good_run "m: --mask @FILE" 451 300 -s "$img451" --mask "@$tmp/mask.txt" -a all
    for name in laplacian laplacian8 sharpen; do
        good_run "m: --filter $name -a all" 451 300 -s "$img451" --filter "$name" -a all
    done
    good_run "m: --filter sharpen --amount 0.5" 451 300 -s "$img451" --filter sharpen \
        --amount 0.5 -tL 7 -W 200
    good_run_bpp "m: --color --mask 3x3 on an ROI" 24 451 300 -s "$img451" --color \
        --mask "$mask3" -sL 3 -sT 4 -tL 100 -tT 50 -W 100 -H 100
    # A rank-1 mask is factored: -v says so with the factors, and twopass runs it.
    good_run "m: a rank-1 mask -v -a all (twopass too)" 451 300 -s "$img451" --mask "$rank1" \
        -a all -v
    name="m: -v prints a rank-1 mask's factors"
    if grep -q '^mask: rank 1 (separable within float32 rounding), factored into rows (kx) 2 8 12 8 2 and columns (ky) 0.5 1 0.5' \
        "$tmp/stdout" && [ "$(grep -c PASSED "$tmp/stdout")" -eq 3 ]; then ok "$name"; else
        not_ok "$name" "stdout: $(grep '^mask' "$tmp/stdout")"; fi
    run "$bin" -s "$img451" --mask "$mask3" -v -a tiled -e --no-output
    name="m: -v says a mask is not separable and which kernels run it"
    if [ "$rc" -eq 0 ] && grep -q '^mask: not separable (rank 2 or more)' "$tmp/stdout" &&
       grep -q '(tiled_mask_conv[,)]' "$tmp/stdout"; then ok "$name"; else
        not_ok "$name" "exit $rc; stdout: $(grep -E '^(mask|launch)' "$tmp/stdout" | tr '\n' '|')"
    fi
    name="m: -e prints the mask's tolerance with its sum of absolute weights"
    if grep -q 'tolerance .* sum|w| 17;' "$tmp/stdout"; then ok "$name"; else
        not_ok "$name" "$(grep verification "$tmp/stdout")"; fi
}

# The batch path (tc_filter_image: the device forms the planes and the 8-bit pixels) with a
# mask gives the same file as the single-image path.
part_m_batch() {
    name="m: a batch with --mask writes what a single run writes"
    mkdir -p "$tmp/mb"
    if ! why=$(expect_clean_run -s "$img451" --mask "$mask53" -e -q -o "$tmp/single.bmp"); then
        not_ok "$name" "single: $why"
    elif ! why=$(expect_clean_run --mask "$mask53" -q -O "$tmp/mb" "$img451" "$img512"); then
        not_ok "$name" "batch: $why"
    elif ! cmp -s "$tmp/single.bmp" "$tmp/mb/TiledConv_Input451x300.bmp"; then
        not_ok "$name" "the files differ"
    else
        ok "$name"
    fi
    rm -rf "$tmp/mb" "$tmp/single.bmp"
}

# refused_one_line NAME WORDS...: the last run (run) exited 2 with one line on stderr that holds
# each of WORDS, and wrote no $tmp/bad.bmp.
refused_one_line() {
    name=$1
    shift
    if [ "$rc" -ne 2 ]; then
        not_ok "$name" "exit $rc"
        return
    elif [ "$(wc -l <"$tmp/stderr" | tr -d ' ')" -ne 1 ]; then
        not_ok "$name" "$(wc -l <"$tmp/stderr") lines on stderr"
        return
    fi
    for words in "$@"; do
        if ! grep -qF -- "$words" "$tmp/stderr"; then
            not_ok "$name" "stderr: $(first_line "$tmp/stderr")"
            return
        fi
    done
    if [ -e "$tmp/bad.bmp" ]; then
        not_ok "$name" "an output was written"
    else
        ok "$name"
    fi
}

# Bad masks: exit 2, one line on stderr, naming --mask.
part_m_bad_masks() {
    printf '1 2 3\n4 5\n6 7 8\n' >"$tmp/ragged.txt"
    nl='
'
    for spec in "1,2;3,4|2 x 2" "1,2,3;4,5,6|3 x 2" "1,2,3;4,5;6,7,8|row 2 has 2 weights" \
                "1,x,3;4,5,6;7,8,9|'x' is not a finite number" \
                "1,2,3;4,nan,6;7,8,9|'nan' is not a finite number" \
                "inf,2,3;4,5,6;7,8,9|'inf' is not a finite number" \
                "1,2,3;4,5,6;7,8,-inf|'-inf' is not a finite number" \
                "$(awk 'BEGIN { for (j = 0; j < 16; j++) { for (i = 0; i < 16; i++)
                    printf "%s1", i ? "," : ""; printf j < 15 ? ";" : "" } }')|more than 15" \
                "|no weights" "7|1 x 1" "@$tmp/ragged.txt|row 2 has 2 weights" \
                "@$tmp/no-such-mask.txt|cannot read" "1,2,3;4${nl}5,6;7,8,9|row 2 has 1 weight"; do
        mask=${spec%|*} want=${spec##*|}
        run "$bin" -s "$img451" --mask "$mask" -o "$tmp/bad.bmp"
        name="m: --mask '$(printf '%s' "$mask" | tr '\n' '|' | cut -c1-40)' -> exit 2, one line"
        refused_one_line "$name" --mask "$want"
    done
    # All zeros is a mask like any other.
    good_run "m: --mask of zeros" 451 300 -s "$img451" --mask '0,0,0;0,0,0;0,0,0' -a all
}

# The raw planes against OpenCV's cv2.filter2D and cv2.sepFilter2D (tests/data/opencv, made by
# its make-fixtures.py): without OpenCV, against the committed outputs; with python3-opencv,
# the fixtures made again now must agree with them too.
part_m_opencv() {
    fixtures=$root/tests/data/opencv
    py=python3
    while read -r fname fw fh fargs; do
        name="m: --raw equals OpenCV's ($fname)"
        rm -f "$tmp/m.raw"
        eval "set -- $(printf '%s' "$fargs" | sed "s/--mask \([^ ]*\)/--mask '\1'/")"
        if ! why=$(expect_clean_run -s "$img451" "$@" --raw "$tmp/m.raw" --no-output -q); then
            not_ok "$name" "$why"
            continue
        fi
        if why=$("$py" - "$tmp/m.raw" "$fixtures/$fname.f32" "$fw" "$fh" 451 2>&1 <<'PY'
import struct, sys
raw, want, w, h, pitch = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
got = open(raw, "rb").read()
ref = open(want, "rb").read()
worst = 0.0
for y in range(h):
    row = struct.unpack_from(f"<{w}f", got, 4 * y * pitch)
    exp = struct.unpack_from(f"<{w}f", ref, 4 * y * w)
    for a, b in zip(row, exp):
        worst = max(worst, abs(a - b) / max(1.0, abs(b) / 100.0))
if worst > 2e-3:
    print(f"largest difference {worst:.3g}")
    sys.exit(1)
PY
        ); then ok "$name"; else not_ok "$name" "$why"; fi
    done <"$fixtures/cases.txt"
    name="m: OpenCV, run now, agrees with the committed fixtures"
    live=
    for p in python3 /usr/bin/python3; do
        if "$p" -c 'import cv2, numpy' 2>/dev/null; then live=$p; break; fi
    done
    if [ -z "$live" ]; then
        ok "$name # SKIP python3-opencv is not installed"
        return
    fi
    mkdir -p "$tmp/cv"
    if ! why=$("$live" "$fixtures/make-fixtures.py" --check "$tmp/cv" 2>&1); then
        not_ok "$name" "make-fixtures.py: $why"
    elif ! why=$("$live" - "$fixtures" "$tmp/cv" 2>&1 <<'PY'
import os, sys
import numpy as np
a, b = sys.argv[1], sys.argv[2]
if open(os.path.join(a, "cases.txt")).read() != open(os.path.join(b, "cases.txt")).read():
    sys.exit("cases.txt differs")
for f in sorted(os.listdir(a)):
    if f.endswith(".f32"):
        d = np.abs(np.fromfile(os.path.join(a, f), "<f4") - np.fromfile(os.path.join(b, f), "<f4"))
        if d.max() > 1e-4:
            sys.exit(f"{f}: differs by {d.max():.3g}")
PY
    ); then
        not_ok "$name" "$why"
    else
        ok "$name"
    fi
    rm -rf "$tmp/cv"
}

# The tiled kernel's variants (--kernel): a slide variant and a mask variant checked with -e,
# both in colour; a name that is no variant, or one that does not take the filter: exit 2,
# one line naming the kernel, nothing written.
part_m_variants() {
    good_run_bpp "m: --kernel slide-64x64-j16-v4x8 -f 21x11 on an ROI, colour" 24 451 300 \
        -s "$img451" --color -f 21x11 -sL 7 -sT 3 -tL 2 -tT 9 -W 400 -H 280 --border reflect101 \
        --kernel slide-64x64-j16-v4x8
    good_run_bpp "m: --kernel mrows-8x4, a 5 x 3 mask, colour" 24 451 300 -s "$img451" --color \
        --mask "$mask53" --kernel mrows-8x4 --border wrap
    for spec in "no-such|-f 31|not a variant" "mrows-8x4|-f 31|is for masks" \
                "slide-64x64-j32-v32|--mask $mask3|is for separable filters" \
                "tiled|-f 17|up to 15 taps"; do
        kernel=${spec%%|*} rest=${spec#*|}
        args=${rest%|*} want=${rest#*|}
        # shellcheck disable=SC2086 # the filter's arguments are meant to split
        run "$bin" -s "$img451" $args --kernel "$kernel" -o "$tmp/bad.bmp"
        refused_one_line "m: --kernel $kernel with $args -> exit 2, one line" "$want"
    done
}

part_m() {
    part_m_variants
    part_m_lengths
    part_m_masks
    part_m_batch
    part_m_bad_masks
    part_m_opencv
}
