#!/bin/sh
# Tuning matrix for the tiled kernel on the GPU: each variant (--block size, float4 I/O on/off)
# x filter length at one size, verified once at 2048 x 2048 and timed at SIZE (default
# 8192x8192) with ITER iterations. One JSON record per line goes to OUTDIR/tune.jsonl and a
# short table to stdout. Usage: [VARIANTS="4x4 0,4x8 1"] bench/tune.sh [OUTDIR] [SIZE] [ITER]
# where each variant is "BLOCK VECTOR_IO" (VECTOR_IO 0 runs with --scalar-io).
set -u
out=${1:-${OUT:-.}}
size=${2:-8192x8192}
iter=${3:-50}
make -s tiledconv || exit 1
: > "$out/tune.jsonl"
printf '%-8s %-10s %4s %10s %10s %8s %s\n' block vector_io taps median_ms copy_ms copy% verified
variants=${VARIANTS:-"4x4 0,4x4 1,4x8 0,4x8 1,8x4 1,8x8 1,4x16 1"}
echo "$variants" | tr ',' '\n' | while read -r variant; do
    set -- $variant
    io=""; [ "$2" = 0 ] && io="--scalar-io"
    for taps in 3 5; do
        check=$(./tiledconv --device gpu -q --block "$1" $io -f "$taps" -g 2048x2048 -sL 4 \
            -tT 8 -e --no-output 2>&1 | tail -1)
        rec=$(./tiledconv --device gpu --block "$1" $io -f "$taps" -g "$size" -t -i "$iter" \
            --no-output --json 2>&1)
        echo "{\"block\": \"$1\", \"vector_io\": $2, \"check_2048\": \"$check\", \"record\": $rec}" \
            >> "$out/tune.jsonl"
        med=$(echo "$rec" | sed -n 's/.*"kernel_ms_median": \([0-9.]*\).*/\1/p')
        cp=$(echo "$rec" | sed -n 's/.*"copy_ms": \([0-9.]*\).*/\1/p')
        frac=$(echo "$rec" | sed -n 's/.*"copy_fraction": \([0-9.]*\).*/\1/p')
        printf '%-8s %-10s %4s %10s %10s %8s %s\n' "$1" "$2" "$taps" "$med" "$cp" "$frac" "$check"
    done
done
