#!/bin/sh
# Runs every algorithm (-a all: tiled, twopass, onepass; with --storage image also bilinear and
# the image reads) with both filter lengths under oclgrind, which simulates an OpenCL device and
# reports out-of-bounds accesses, data races and reads of uninitialised memory. A case fails on
# any such report (anything on stderr), on a verification failure (-e), or on a non-zero exit
# status.
#
# The cases cover every kind of edge the four classes of work-groups must handle; images stay
# under 100 x 100 so that the whole check takes a few minutes.
# Usage: sh tests/kernel-check.sh ./tiledconv
set -u
bin=${1:-./tiledconv}
. "$(dirname "$0")/lib.sh"
oclgrind_begin kernel-check

# Each line: a label, then the tool's arguments (image and ROIs).
cases() {
    cat <<'CASES'
smaller-than-a-tile-1x1       -g 1x1
smaller-than-a-tile-2x2       -g 2x2
smaller-than-a-tile-5x5       -g 5x5
one-column                    -g 1x71
one-row                       -g 71x1
narrow-2x45                   -g 2x45
odd-5x33                      -g 5x33
odd-31x33                     -g 31x33
odd-33x31                     -g 33x31
odd-45x71                     -g 45x71
odd-71x45                     -g 71x45
roi-1x1-top-left              -g 45x33 -W 1 -H 1
roi-1x1-bottom-right          -g 45x33 -sL 44 -sT 32 -tL 44 -tT 32
roi-1x1-moved                 -g 45x33 -sL 44 -sT 0 -tL 0 -tT 32 -W 1 -H 1
roi-touches-left              -g 71x45 -sL 0 -sT 5 -tL 0 -tT 5 -W 40 -H 30
roi-touches-right             -g 71x45 -sL 31 -sT 5 -tL 31 -tT 5 -W 40 -H 30
roi-touches-top               -g 71x45 -sL 9 -sT 0 -tL 9 -tT 0 -W 40 -H 30
roi-touches-bottom            -g 71x45 -sL 9 -sT 15 -tL 9 -tT 15 -W 40 -H 30
roi-corner-top-left           -g 71x45 -W 37 -H 35
roi-corner-top-right          -g 71x45 -sL 34 -tL 34 -W 37 -H 35
roi-corner-bottom-left        -g 71x45 -sT 10 -tT 10 -W 37 -H 35
roi-corner-bottom-right       -g 71x45 -sL 34 -sT 10 -tL 34 -tT 10
source-and-target-differ      -g 71x45 -sL 3 -sT 3 -tL 2 -tT 2
source-left-target-right      -g 71x45 -sL 0 -tL 31 -W 40
source-top-target-bottom      -g 71x45 -sT 0 -tT 12 -H 33
source-bottom-right-target-top-left -g 71x45 -sL 31 -sT 12 -tL 0 -tT 0
class-boundary-exact-r1       -g 99x99 -sL 1 -sT 1 -tL 1 -tT 1 -W 66 -H 66
class-boundary-minus-one      -g 99x99 -sL 1 -sT 1 -tL 0 -tT 0 -W 65 -H 65
class-boundary-exact-r2       -g 99x99 -sL 2 -sT 2 -tL 2 -tT 2 -W 68 -H 68
tiles-exact-64x64             -g 64x64
tiles-plus-one-65x65          -g 65x65
tiles-minus-one-63x63         -g 63x63
aligned-96x72                 -g 96x72
aligned-roi-float4-paths      -g 100x100 -sL 4 -sT 3 -tL 8 -tT 5 -W 92 -H 90
aligned-source-unaligned-target -g 96x96 -sL 8 -sT 1 -tL 3 -tT 2 -W 85 -H 90
block-4x8                     -g 96x80 -sL 4 -tL 1 --block 4x8
block-8x4                     -g 96x80 -sT 4 -tT 1 --block 8x4
block-4x2                     -g 72x72 --block 4x2
scalar-io                     -g 96x72 -sL 4 -tT 3 --scalar-io
border-constant               -g 45x33 -sL 2 -tL 5 -tT 1 --border constant=7
border-reflect101             -g 45x33 -sT 2 -tL 5 --border reflect101
border-reflect                -g 64x40 -sL 4 -tT 3 --border reflect
border-wrap                   -g 33x45 -sL 1 -sT 2 --border wrap
border-tiny-roi               -g 20x20 -sL 3 -sT 4 -tL 9 -tT 2 -W 3 -H 2 --border reflect101
CASES
}

# check LABEL TAPS ARGS: one run of all three algorithms under oclgrind.
check() {
    label=$1 taps=$2
    shift 2
    oclgrind_case 3 "$label, $taps taps" "$@" -f "$taps" -a all
}

cases > "$log.cases"
while read -r label args; do
    for taps in 3 5; do
        # shellcheck disable=SC2086 # the arguments are meant to split
        check "$label" "$taps" $args
    done
done < "$log.cases"
# Longer filters: the radius reaches past a 4-row block, so the tiled kernel raises
# its block height; each length once on an aligned and an unaligned image.
for taps in 7 15; do
    check "long-aligned" "$taps" -g 96x80 -sL 4 -tT 3
    check "long-unaligned-reflect" "$taps" -g 45x71 -sL 1 -tL 2 --border reflect
done

# The tiled kernel alone (-a tiled), for every ROI and border. Every alignment class: sL mod 4
# x tL mod 4 (the program's SHIFT and the tile grid's offset), odd sT and tT, on an image where
# all four classes of work-groups occur.
check_tiled() { # check_tiled LABEL TAPS ARGS...: the tiled kernel under oclgrind
    label=$1 taps=$2
    shift 2
    # tiled_conv by name: from 11 taps the default is the long kernel with most borders.
    oclgrind_case 1 "$label, $taps taps" "$@" -f "$taps" -a tiled --kernel tiled
}
tiled_runs=0
for a in 0 1 2 3; do
    for b in 0 1 2 3; do
        check_tiled "align-s$a-t$b" $((a % 2 ? 5 : 3)) -g 110x80 -sL $((4 + a)) -sT 7 \
            -tL $((8 + b)) -tT 1 -W 96 -H 70
        tiled_runs=$((tiled_runs + 1))
    done
done
# Every border rule at 3, 7 and 15 taps on an unaligned ROI (7 and 15: 4 x 8 blocks, the
# accumulating vertical pass at 7, the halo rows spread over the group).
for border in replicate constant=5 reflect101 reflect wrap; do
    for taps in 3 7 15; do
        check_tiled "border-${border%%=*}" "$taps" -g 100x150 -sL 9 -sT 11 -tL 2 -tT 13 -W 90 \
            -H 135 --border "$border"
        tiled_runs=$((tiled_runs + 1))
    done
done
# The variants kept as build options, each where it is not the default.
variant() { # variant OPTIONS TAPS ARGS...
    options=$1 taps=$2
    shift 2
    check_tiled "variant $options" "$taps" "$@" --tune "cl-options=$options"
    tiled_runs=$((tiled_runs + 1))
}
variant "-DTC_CLASS2_STAGE=1" 3 -g 70x45 -sL 3 -sT 1 -tL 2 -tT 2 --border reflect101
variant "-DTC_CLASS2_STAGE=1 -DTC_HALO_SPREAD=0" 15 -g 70x90 -sL 1 -tL 2 --border wrap
variant "-DTC_CLASS4_BROADCAST=1" 3 -g 70x45 -sL 3 -sT 1 -tL 2 -tT 2
variant "-DTC_CLASS4_BROADCAST=1" 7 -g 70x90 -sL 6 -tL 1 -tT 3 --border constant=2
variant "-DTC_HALO_SPREAD=1" 5 -g 70x45 -sL 3 -tL 1 --border reflect
variant "-DTC_HALO_SPREAD=0" 9 -g 70x90 -sL 2 -tL 3 -tT 1
variant "-DTC_VERTICAL_ACC=1 -DTC_HALO_SPREAD=1" 5 -g 70x45 -sL 1 -tL 2 -tT 1
variant "-DTC_VERTICAL_ACC=1" 15 -g 70x90 -sL 2 -tL 1 --border reflect101
variant "-DTC_VERTICAL_ACC=0" 7 -g 70x90 -sL 3 -tT 2 --border constant=1
variant "-DTC_COEFF_VALUES=0" 5 -g 70x45 -sL 2 -tL 1 -tT 3
variant "-DTC_COEFF_VALUES=0" 11 -g 70x90 -sL 3 -tL 2 --border reflect
variant "-DTC_COEFF_VALUES=1" 15 -g 70x90 -sL 1 -tL 3 -tT 1 --border constant=3
check_tiled "block-8x8" 15 -g 100x150 -sL 5 -sT 3 -tL 2 -tT 1 --block 8x8
tiled_runs=$((tiled_runs + 1))
check_tiled "scalar-io-unaligned" 7 -g 70x90 -sL 3 -tL 2 -tT 1 --scalar-io
tiled_runs=$((tiled_runs + 1))
rm -f "$log.cases"
# Image objects: tiled and onepass reading an image2d_t and the bilinear-tap trick,
# beside the buffer paths (-a all --storage image: six kernels' runs, each checked by -e).
# oclgrind 21.10 simulates images (nearest and linear samplers, write_imagef), but its
# uninitialised-value checker reports image reads as uninitialised in a pattern that depends on
# the texel's position, not on what was written (a ten-line kernel reading a fully written
# CL_R image shows it; docs/testing.md, "The kernels under oclgrind"), so these cases run with --data-races only.
image_runs=0
check_images() { # check_images LABEL TAPS ARGS...
    label=$1 taps=$2
    shift 2
    image_runs=$((image_runs + 1))
    if oclgrind --data-races "$bin" "$@" -f "$taps" -a all --storage image -e -q --no-output \
           >"$log" 2>&1 && [ "$(grep -c PASSED "$log")" -eq 6 ] && ! grep -qv PASSED "$log"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "not ok - images, $label, $taps taps: oclgrind --data-races $bin $* -f $taps" \
             "-a all --storage image -e"
        sed 's/^/    /' "$log" | head -30
    fi
}
check_images "smaller-than-a-tile" 3 -g 5x5
check_images "roi-1x1-moved" 3 -g 45x33 -sL 44 -sT 0 -tL 0 -tT 32 -W 1 -H 1
check_images "class-boundary-exact-r1" 3 -g 99x99 -sL 1 -sT 1 -tL 1 -tT 1 -W 66 -H 66
check_images "class-boundary-exact-r2" 5 -g 99x99 -sL 2 -sT 2 -tL 2 -tT 2 -W 68 -H 68
check_images "article-offsets-constant" 5 -g 71x45 -sL 3 -sT 3 -tL 2 -tT 2 --border constant=7
check_images "reflect101-unaligned" 7 -g 70x45 -sL 1 -tL 2 -tT 1 --border reflect101
check_images "reflect-tiny-roi" 5 -g 20x20 -sL 3 -sT 4 -tL 9 -tT 2 -W 3 -H 2 --border reflect
check_images "wrap-long" 15 -g 45x71 -sL 2 -tL 1 --border wrap
# The long-filter and mask kernels, a few cases each (oclgrind is slow): tiled_long_conv (17 taps
# with its coefficients by value, 63 x 1 from its buffers, 59 x 45 by value as NVIDIA's register
# budget builds it, the chunked vertical pass, small tiles so that class 1 occurs on a small
# image, its study variants by name),
# tiled_rows_conv alone and as the split variant's first pass (every class), tiled_conv
# with a length per axis, tiled_mask_conv and one_pass_mask_conv (3 x 3 with class 1, 5 x 3,
# 15 x 15: the loop over the mask's rows), twopass on a rank-1 mask. oclgrind's device has
# 32 KB of local memory; NVIDIA's 48 KB: --local-mem-size gives it that, so that the long
# kernel runs the tiles it runs there (host halves them to fit otherwise).
long_mask_runs=0
check_m() { # check_m LABEL PASSES ARGS...: ARGS -e under oclgrind, PASSES checks passed
    label=$1 want=$2
    shift 2
    long_mask_runs=$((long_mask_runs + 1))
    if oclgrind --data-races --uninitialized --local-mem-size 49152 "$bin" "$@" -e -q \
           --no-output >"$log" 2>&1 && [ "$(grep -c PASSED "$log")" -eq "$want" ] &&
       ! grep -v -e PASSED -e '^twopass: not applicable' "$log" | grep -q .; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "not ok - $label: oclgrind $bin $* -e"
        sed 's/^/    /' "$log" | head -30
    fi
}
mask53='1,0,-2,1,3;2,-1,4,0,-2;-3,2,5,1,0'
check_m "long 17 taps, every algorithm" 3 -g 48x60 -f 17 -sL 3 -tL 2 --border reflect101 -a all
check_m "long 63 x 1" 1 -g 90x20 -f 63x1 -sL 1 -tT 2 --border constant=3 -a tiled \
    --kernel long
check_m "rows 63 x 1 (the default there), every algorithm" 3 -g 90x20 -f 63x1 -sL 1 -tT 2 \
    --border constant=3 -a all
check_m "rows 9 x 1, every class" 1 -g 300x80 -f 9x1 -sL 2 -sT 1 -tL 1 -W 290 -H 70 \
    --border reflect101 -a tiled --kernel rows
check_m "split 7 x 5, every class of both passes" 1 -g 300x300 -f 7x5 -sL 2 -sT 1 -tL 1 \
    -W 290 -H 290 --border constant=3 -a tiled --kernel split
check_m "split 49 x 45" 1 -g 60x50 -f 49x45 -sL 1 -tL 2 -tT 1 --border reflect -a tiled \
    --kernel split
check_m "long 59 x 45 (the default there), coefficients by value as under a register budget" 1 \
    -g 60x50 -f 59x45 -sL 1 -tL 2 -tT 1 --border reflect -a tiled \
    --tune cl-options=-DTC_REGISTER_BUDGET=64
check_m "long-lean 25 x 9 with reflect101" 1 -g 60x40 -f 25x9 -sL 2 -tT 1 \
    --border reflect101 -a tiled --kernel long-lean
check_m "long-ahead 27 x 9 with reflect" 1 -g 60x300 -f 27x9 -sL 2 -tT 1 \
    --border reflect -a tiled --kernel long-ahead
check_m "long-wide 37 x 9 with reflect101" 1 -g 60x40 -f 37x9 -sL 1 -tL 2 \
    --border reflect101 -a tiled --kernel long-wide
check_m "long 41 x 45 with wrap (the default there), groups of 512, no required group size" 1 \
    -g 60x50 -f 41x45 -sL 1 -tL 2 -tT 1 --border wrap -a tiled --tune long-group=512 \
    --tune cl-options=-DTC_FREE_GROUP_SIZE=1
check_m "long 31 taps, 32 x 32 tiles (class 1)" 1 -g 110x110 -f 31 -sL 2 -sT 1 -tL 5 -a tiled \
    --tune long-tile-h=32
check_m "long 33 taps, chunked vertical pass" 1 -g 70x70 -f 33 -sL 1 -tL 2 --border wrap \
    -a tiled --tune long-tile-h=32 --tune cl-options=-DTC_LONG_CHUNKED=1
check_m "per axis 9 x 3, every algorithm" 3 -g 70x45 -f 9x3 -sL 3 -tL 2 -tT 1 -a all
check_m "per axis 3 x 9, every algorithm" 3 -g 45x70 -f 3x9 -sT 3 -tL 1 --border reflect -a all
check_m "mask 5 x 3, tiled and onepass" 2 -g 70x45 --mask "$mask53" -sL 3 -tL 2 \
    --border reflect -a all
check_m "mask 3 x 3, class 1" 1 -g 100x90 --mask '1,-2,3;0,4,-1;2,1,-3' -sL 5 -sT 4 -tL 1 \
    -tT 2 -W 90 -H 80 -a tiled --border constant=4
check_m "mask 15 x 15 (a loop over its rows), tiled and onepass" 2 -g 40x36 \
    --mask "$(awk 'BEGIN { for (j = 0; j < 15; j++) { for (i = 0; i < 15; i++)
        printf "%s%d", i ? "," : "", (3 * i + 5 * j) % 7 - 3; printf j < 14 ? ";" : "" } }')" \
    -sL 2 -tL 1 --border wrap -a all
check_m "rank-1 mask, twopass on its factors" 1 -g 50x40 --mask '1,2,1;2,4,2;1,2,1' -sL 1 \
    -tL 2 -a twopass
# The tiled kernel's variants for long filters and large masks (--kernel, variants.c's table):
# every slide variant (tiled_slide_conv) on a moved ROI with unequal lengths and on an image
# where tiles of every class occur, the first also with one tap along either axis and at 31
# taps; every mrows variant (tiled_mask_rows_conv) with a 7 x 7 and a 5 x 3 mask, and the
# default of 9 x 9 masks (mrows-8x8-ahead) with one. Their class-2 windows at the left and right
# edges (Masks.cl's TC_MASK_ROWS_WINDOW): folded with reflect101 where the ROI is wide enough
# for the variant's tiles (mrows-4x8's 7 x 7), lean where it is not, bordered with replicate
# and constant (the 5 x 3 cases but mrows-8x4's; mrows-8x4-r64 is mrows-8x4's code under a
# register budget that oclgrind does not have, the default of 9 x 9 and 11 x 11 masks with
# those two borders).
slide_variants="slide-64x64-j32-v32 slide-64x64-j32-v32-acc slide-64x64-j16-v16
slide-64x64-j16-v4x8 slide-128x32-j32-v32 slide-32x128-j32-v32"
for v in $slide_variants; do
    check_m "$v, 9 x 5, moved ROI" 1 -g 90x150 -f 9x5 -sL 3 -sT 2 -tL 1 -tT 4 \
        --border reflect101 -a tiled --kernel "$v"
    check_m "$v, 5 taps, every class" 1 -g 200x210 -f 5 -sL 2 -sT 1 -tL 1 -W 190 -H 200 \
        --border constant=3 -a tiled --kernel "$v"
done
check_m "slide, 1 x 7" 1 -g 70x90 -f 1x7 -sL 1 -tL 3 --border wrap -a tiled \
    --kernel slide-64x64-j32-v32
check_m "slide, 7 x 1" 1 -g 70x90 -f 7x1 -sT 1 -tT 3 --border reflect -a tiled \
    --kernel slide-64x64-j32-v32
check_m "slide, 31 taps" 1 -g 48x60 -f 31 -sL 3 -tL 2 --border reflect101 -a tiled \
    --kernel slide-64x64-j32-v32
mask77=$(awk 'BEGIN { for (j = 0; j < 7; j++) { for (i = 0; i < 7; i++)
    printf "%s%d", i ? "," : "", (3 * i + 5 * j) % 7 - 3; printf j < 6 ? ";" : "" } }')
for vb in mrows-8x4:wrap mrows-4x8:replicate mrows-8x8:constant=2 mrows-8x8-ahead:replicate \
    mrows-8x4-r64:constant=1; do
    v=${vb%%:*} border=${vb#*:}
    check_m "$v, mask 7 x 7" 1 -g 150x140 --mask "$mask77" -sL 3 -sT 2 -tL 1 -W 140 -H 130 \
        --border reflect101 -a tiled --kernel "$v"
    check_m "$v, mask 5 x 3, $border" 1 -g 70x45 --mask "$mask53" -sL 1 -tL 2 -tT 1 \
        --border "$border" -a tiled --kernel "$v"
done
# The Gaussian scale space (Pyramid.cl): pyramid_octave and pyramid_decimate beside the per-level
# path's kernels (-t runs both launch styles; -e checks every level; the two must give the same
# levels bit for bit). oclgrind's 32 KB of local memory halve the per-octave tile to 32 x 128;
# --local-mem-size 49152 gives it NVIDIA's 48 KB (32 x 256 tiles), --tune pyramid-tile-h=64
# the smallest tile (one 8-row block per work-item), --tune pyramid-interleave=1 the slice in
# the NDRange's first dimension.
pyramid_runs=0
check_p() { # check_p LABEL OCLGRIND-OPTIONS ARGS...: ARGS under oclgrind, PASSED and identical
    label=$1 simulator=$2
    shift 2
    pyramid_runs=$((pyramid_runs + 1))
    # shellcheck disable=SC2086 # the simulator's options are meant to split
    if oclgrind --data-races --uninitialized $simulator "$bin" "$@" -e -t -q --no-output \
           >"$log" 2>&1 && grep -q '^PASSED' "$log" &&
       grep -q 'the same levels, bit for bit' "$log" &&
       ! grep -v -e '^PASSED' -e '^timing' -e '^  ' "$log" | grep -q .; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "not ok - pyramid, $label: oclgrind $simulator $bin $* -e -t"
        sed 's/^/    /' "$log" | head -30
    fi
}
check_p "3 x 2, odd sizes" "" -g 45x31 --pyramid 3x2 --sigma 0.8
check_p "2 x 1, 32 x 256 tiles, reflect101" "--local-mem-size 49152" -g 50x40 --pyramid 2x1 \
    --sigma 0.8 --border reflect101
check_p "2 x 2, constant border" "" -g 33x20 --pyramid 2x2 --sigma 0.8 --border constant=9
check_p "the default 4 x 4 (7 to 21 taps)" "" -g 40x36 --pyramid 4x4
check_p "2 x 8 (nine slices in one launch), wrap" "" -g 24x20 --pyramid 2x8 --sigma 0.5 \
    --border wrap
check_p "2 x 2, 32 x 64 tiles, class 1 and 3 groups, reflect" "" -g 72x140 --pyramid 2x2 \
    --sigma 0.8 --border reflect --tune pyramid-tile-h=64
check_p "2 x 2, the slice in the first dimension (a study)" "" -g 70x50 --pyramid 2x2 \
    --sigma 0.8 --tune pyramid-interleave=1
# The long-filter and mask kernels reading an image (--storage image: Common.cl's SRC_T) and bilinear with a
# length per axis, beside their buffer paths; --data-races only, as check_images says why.
# check_images_m LABEL PASSES ARGS...: ARGS -e with -a all --storage image, PASSES checks passed.
check_images_m() {
    label=$1 want=$2
    shift 2
    image_runs=$((image_runs + 1))
    if oclgrind --data-races --local-mem-size 49152 "$bin" "$@" --storage image -e -q \
           --no-output >"$log" 2>&1 && [ "$(grep -c PASSED "$log")" -eq "$want" ] &&
       ! grep -qv PASSED "$log"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "not ok - images, $label: oclgrind --data-races $bin $* --storage image -e"
        sed 's/^/    /' "$log" | head -30
    fi
}
check_images_m "long 17 taps" 6 -g 48x60 -f 17 -sL 3 -tL 2 --border reflect101 -a all
check_images_m "per axis 9 x 3" 6 -g 70x45 -f 9x3 -sL 3 -tL 2 -tT 1 --border constant=5 -a all
check_images_m "per axis 15 x 1 (long, bilinear's lone column tap)" 6 -g 60x40 -f 15x1 -sT 2 \
    -tL 1 --border reflect -a all
check_images_m "mask 5 x 3, tiled and onepass" 4 -g 70x45 --mask "$mask53" -sL 3 -tL 2 \
    --border wrap -a all
check_images_m "long 31 taps, 32 x 32 tiles (class 1)" 1 -g 110x110 -f 31 -sL 2 -sT 1 -tL 5 \
    -a tiled --tune long-tile-h=32
check_images_m "slide 11 x 9" 1 -g 90x100 -f 11x9 -sL 2 -tL 1 --border reflect -a tiled \
    --kernel slide-64x64-j16-v4x8
check_images_m "mask rows 7 x 7" 1 -g 70x60 --mask "$mask77" -sT 1 -tL 3 -a tiled \
    --kernel mrows-8x4
# The pixel conversions (Pixels.cl: unpack_pixels, pack_pixels) on the path a plain file-to-file
# run takes: gray and colour, 8-bit palette, 24-bit (odd width: padded rows) and 32-bit BMPs,
# an ROI and an output mapping; the output is checked against the host's conversions by
# tests/batch.sh, here only that no simulated access goes wrong.
pixel_runs=0
pixel_check() {
    label=$1
    pixel_runs=$((pixel_runs + 1))
    shift
    if oclgrind --data-races --uninitialized "$bin" -q "$@" -o "$log.bmp" >"$log" 2>&1 &&
       [ ! -s "$log" ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "not ok - pixels, $label: oclgrind $bin $* -o OUT"
        sed 's/^/    /' "$log" | head -30
    fi
}
suite=tests/data/bmpsuite/g
pixel_check "24-bit, odd width, gray" -s images/TiledConv_Input451x300.bmp -f 5 -sL 3 -tL 2
pixel_check "24-bit, odd width, colour" -s images/TiledConv_Input451x300.bmp --color \
    --scale 2 --offset -127.5
pixel_check "8-bit palette" -s "$suite/pal8.bmp" --border reflect101
pixel_check "8-bit palette, top-down, colour" -s "$suite/pal8topdown.bmp" --color
pixel_check "32-bit" -s "$suite/rgb32.bmp" -f 7
pixel_check "4-bit (decoded on the host)" -s "$suite/pal4.bmp"
rm -f "$log.bmp"
# The fused 8-bit kernels (Common.cl's TC_IO_U8: tiled_conv and tiled_long_conv reading and
# writing a gray image's bytes), which the library takes for a gray uint8 image with a
# whole-image ROI: tests/fused-bytes-check.py filters its cases both ways through the Python
# binding (the library oclgrind's device then serves) and compares the bytes; each line of its
# is a case.
fused_runs=0
if PYTHONPATH=python oclgrind --data-races --uninitialized --local-mem-size 49152 \
       "${PYTHON:-python3}" tests/fused-bytes-check.py >"$log" 2>&1 &&
   ! grep -qv '^ok - ' "$log"; then
    fused_runs=$(grep -c '^ok - ' "$log")
    passed=$((passed + fused_runs))
else
    fused_runs=1
    failed=$((failed + 1))
    echo "not ok - fused 8-bit kernels: oclgrind ${PYTHON:-python3} tests/fused-bytes-check.py"
    sed 's/^/    /' "$log" | head -30
fi
all=$((passed + failed))
table_runs=$((all - tiled_runs - pixel_runs - long_mask_runs - image_runs - pyramid_runs -
              fused_runs))
echo "kernel-check: $all cases under oclgrind ($table_runs of the table with 3 algorithms" \
     "each, $tiled_runs of the tiled kernel alone," \
     "$long_mask_runs of the long-filter and mask kernels, $image_runs with images," \
     "$pyramid_runs of the scale space's, $pixel_runs of the pixel conversions," \
     "$fused_runs of the fused 8-bit kernels)"
echo "kernel-check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
