#!/bin/bash
# The pipeline's choices, measured on photos bench/e2e.sh made (run it first, same WORKDIR):
# lanes per GPU (TILEDCONV_LANES), and pinned staging against the caller's memory for the
# upload and the download (TILEDCONV_UPLOAD / TILEDCONV_DOWNLOAD), on the batch (gray,
# --no-sync, so that the disk does not hide the device's side) and on one 8192 x 8192 BMP.
#   bench/e2e-variants.sh [-o OUTDIR] [-w WORKDIR]
set -u
out=${OUT:-bench-out}
work=/tmp/tc-e2e
while [ $# -gt 0 ]; do
    case $1 in
        -o) out=$2; shift 2 ;;
        -w) work=$2; shift 2 ;;
        *) echo "usage: $0 [-o OUTDIR] [-w WORKDIR]" >&2; exit 2 ;;
    esac
done
bin=$(pwd)/tiledconv
tsv=$out/variants.tsv
printf 'job\tlanes\tupload\tdownload\tseconds\n' >"$tsv"
run() { # JOB LANES UP DOWN CMD...
    job=$1 lanes=$2 up=$3 down=$4
    shift 4
    rm -rf "$work/vout" && mkdir -p "$work/vout"
    t0=$(date +%s.%N)
    TILEDCONV_LANES=$lanes TILEDCONV_UPLOAD=$up TILEDCONV_DOWNLOAD=$down "$@" >/dev/null 2>>"$out/variants.log"
    rc=$?
    t1=$(date +%s.%N)
    s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
    [ "$rc" -eq 0 ] || s=nan
    printf '%s\t%s\t%s\t%s\t%s\n' "$job" "$lanes" "$up" "$down" "$s" | tee -a "$tsv"
}
for lanes in 1 2 3 4; do
    for up in pinned direct; do
        for down in pinned direct; do
            run batch-gray-nosync "$lanes" "$up" "$down" "$bin" --device gpu --filter binomial -f 5 \
                --no-sync -O "$work/vout" --files-from "$work/list"
        done
    done
done
for lanes in 2 4; do
    run batch-colour-nosync "$lanes" pinned pinned "$bin" --device gpu --filter binomial -f 5 \
        --color --no-sync -O "$work/vout" --files-from "$work/list"
done
for up in pinned direct; do
    for down in pinned direct; do
        for i in 1 2; do
            run big-gray 2 "$up" "$down" "$bin" --device gpu --filter binomial -f 5 -q \
                -s "$work/big/big.bmp" -o "$work/vout/big.bmp"
            run big-colour 2 "$up" "$down" "$bin" --device gpu --filter binomial -f 5 --color -q \
                -s "$work/big/big.bmp" -o "$work/vout/big.bmp"
        done
    done
done
