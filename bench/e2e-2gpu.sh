#!/bin/bash
# Two GPUs against one, on a machine with two: the same photos through one batch on device 0,
# on both (--device gpu:all), and on two queues of device 0 (-d 0,0), gray, synced and
# --no-sync; every output compared byte for byte with the first device setting's run.
#   bench/e2e-2gpu.sh [-o OUTDIR] [-n COUNT] [-w WORKDIR]
# Environment: DEVICES, the device settings compared, separated by '|' (default
# "--device gpu|--device gpu:all|--device gpu -d 0,0"); PHOTO_SIZE [1920x1080]; ROUNDS [3];
# PYTHON [python3]. A CPU test (bench/run --smoke two-gpus):
#   DEVICES="--device cpu|--device cpu:all|--device cpu -d 0,0" PHOTO_SIZE=320x240 ROUNDS=1 \
#       bench/e2e-2gpu.sh -o OUT -n 6
set -u
out=${OUT:-bench-out}
count=1000
work=/tmp/tc-e2e
while [ $# -gt 0 ]; do
    case $1 in
        -o) out=$2; shift 2 ;;
        -n) count=$2; shift 2 ;;
        -w) work=$2; shift 2 ;;
        *) echo "usage: $0 [-o OUTDIR] [-n COUNT] [-w WORKDIR]" >&2; exit 2 ;;
    esac
done
devices=${DEVICES:-"--device gpu|--device gpu:all|--device gpu -d 0,0"}
photo_size=${PHOTO_SIZE:-1920x1080}
rounds=${ROUNDS:-3}
python=${PYTHON:-python3}
mkdir -p "$out" "$work"
log=$out/e2e-2gpu.log
: >"$log"
bin=$(pwd)/tiledconv
filter="--filter binomial -f 5"
make -s tiledconv >>"$log" 2>&1 || exit 1
nvidia-smi --query-gpu=index,name --format=csv,noheader 2>/dev/null | tee -a "$log"
"$bin" -l | tee -a "$log"
# Photos of another count or size are made again.
if [ "$(cat "$work/photos-made" 2>/dev/null)" != "$count $photo_size" ]; then
    rm -rf "$work/photos"
    $python bench/make_photos.py --out "$work/photos" --count "$count" --size "$photo_size" || exit 1
    echo "$count $photo_size" >"$work/photos-made"
fi
find "$work/photos" -name '*.bmp' | sort | head -n "$count" >"$work/list"
cat $(cat "$work/list") >/dev/null
first=${devices%%|*}
failed=0
for sync in "" --no-sync; do
    while IFS= read -r devs; do
        for round in $(seq 1 "$rounds"); do
            rm -rf "$work/o2" && mkdir -p "$work/o2"
            t0=$(date +%s.%N)
            # shellcheck disable=SC2086 # the device setting and the filter are words
            "$bin" $devs $filter $sync -t -O "$work/o2" --files-from "$work/list" >>"$log" 2>&1
            rc=$?
            [ "$rc" -eq 0 ] || failed=$((failed + 1))
            t1=$(date +%s.%N)
            s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
            echo "$devs ${sync:-synced} round $round: exit $rc, $s s, $(awk -v n="$count" -v s="$s" 'BEGIN { printf "%.1f", n / s }') images/s" | tee -a "$log"
            if [ "$devs" = "$first" ] && [ "$round" -eq 1 ] && [ -z "$sync" ]; then
                rm -rf "$work/ref" && cp -r "$work/o2" "$work/ref"
            elif [ -d "$work/ref" ]; then
                bad=0
                for f in "$work"/ref/*.bmp; do cmp -s "$f" "$work/o2/$(basename "$f")" || bad=$((bad + 1)); done
                [ "$bad" -eq 0 ] || failed=$((failed + 1))
                echo "   outputs differing from the first setting's: $bad of $(ls "$work/ref" | wc -l)" | tee -a "$log"
            fi
        done
    done <<<"$(printf '%s\n' "$devices" | tr '|' '\n')"
done
grep -A9 "^batch:" "$log" | grep "^batch:\|busiest" | tail -8 | tee "$out/e2e-2gpu-stages.txt"
[ "$failed" -eq 0 ]
