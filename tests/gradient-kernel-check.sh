#!/bin/sh
# The gradient's kernels (src/Gradient.cl: gradient_tiled, gradient_magnitude) under oclgrind,
# which reports out-of-bounds accesses, data races and reads of uninitialised memory, as
# tests/kernel-check.sh does for the filters. Each case runs --gradient with -a all (the
# one-read pass, then the two filters apart: tiled_conv twice and the magnitude kernel) and -e,
# and fails on any report (anything but the two PASSED lines), a failed check or an exit
# status other than 0. Images stay small: each run is a second or two in the simulator.
# Usage: sh tests/gradient-kernel-check.sh ./tiledconv
set -u
bin=${1:-./tiledconv}
. "$(dirname "$0")/lib.sh"
oclgrind_begin "gradient kernel-check"

check() { # check LABEL ARGS...: both methods under oclgrind, checked
    label=$1
    shift
    oclgrind_case 2 "gradient, $label" "$@" -a all
}

# Every source alignment (SHIFT = (sL - tL) mod 4) and every offset of the tile grid (tL mod 4),
# in 8 pairs that cover each of both, on an image where all four classes of work-groups occur;
# gx and gy written too (--raw) in half of them.
for a in 0 1 2 3; do
    for b in $a $((3 - a)); do
        raw=
        [ $((a % 2)) -eq 0 ] && raw="--raw $log.f32"
        # shellcheck disable=SC2086
        check "align-s$a-t$b" -g 110x80 -sL $((4 + a)) -sT 7 -tL $((8 + b)) -tT 1 -W 96 -H 70 \
            --gradient sobel $raw
    done
done
# Every border rule, Scharr, an unaligned ROI, all three planes.
for border in replicate constant=5 reflect101 reflect wrap; do
    check "border-${border%%=*}" -g 100x90 -sL 9 -sT 11 -tL 2 -tT 13 -W 90 -H 70 \
        --border "$border" --gradient scharr --raw "$log.f32"
done
# Smaller than a tile, a column, a 1 x 1 ROI in a corner, a 2 x 2 ROI that reflects twice, the
# class boundaries of radius 1, scalar I/O.
check "1x1" -g 1x1 --gradient sobel
check "one-column" -g 1x45 --gradient sobel --raw "$log.f32"
check "roi-1x1-bottom-right" -g 45x33 -sL 44 -sT 32 -tL 44 -tT 32 --gradient sobel
check "roi-2x2-reflect" -g 20x20 -sL 3 -sT 4 -tL 9 -tT 2 -W 2 -H 2 --border reflect101 \
    --gradient scharr
check "class-boundary-exact" -g 99x99 -sL 1 -sT 1 -tL 1 -tT 1 -W 66 -H 66 --gradient sobel
check "scalar-io" -g 96x72 -sL 4 -tL 1 -tT 3 --scalar-io --gradient sobel --raw "$log.f32"

echo "gradient kernel-check: $passed passed, $failed failed (each the one-read pass and the two filters apart)"
[ "$failed" -eq 0 ]
