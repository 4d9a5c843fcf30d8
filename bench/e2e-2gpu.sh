#!/bin/bash
# Two GPUs against one (issue 11), on a machine with two: the same 1000 photos through one
# batch on device 0, on both (--device gpu:all), and on two queues of device 0 (-d 0,0),
# gray, synced and --no-sync; every output compared byte for byte with the one-device run.
#   bench/e2e-2gpu.sh [-o OUTDIR] [-n COUNT] [-w WORKDIR]
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
mkdir -p "$out" "$work"
log=$out/e2e-2gpu.log
: >"$log"
bin=$(pwd)/tiledconv
filter="--filter binomial -f 5"
make -s tiledconv >>"$log" 2>&1 || exit 1
nvidia-smi --query-gpu=index,name --format=csv,noheader | tee -a "$log"
"$bin" -l | tee -a "$log"
[ -d "$work/photos" ] || python3 bench/make_photos.py --out "$work/photos" --count "$count" --size 1920x1080
find "$work/photos" -name '*.bmp' | sort | head -n "$count" >"$work/list"
cat $(cat "$work/list") >/dev/null
for sync in "" --no-sync; do
    for devs in "--device gpu" "--device gpu:all" "--device gpu -d 0,0"; do
        for round in 1 2 3; do
            rm -rf "$work/o2" && mkdir -p "$work/o2"
            t0=$(date +%s.%N)
            "$bin" $devs $filter $sync -t -O "$work/o2" --files-from "$work/list" >>"$log" 2>&1
            rc=$?
            t1=$(date +%s.%N)
            s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
            echo "$devs ${sync:-synced} round $round: exit $rc, $s s, $(awk -v n="$count" -v s="$s" 'BEGIN { printf "%.1f", n / s }') images/s" | tee -a "$log"
            if [ "$devs" = "--device gpu" ] && [ "$round" -eq 1 ] && [ -z "$sync" ]; then
                rm -rf "$work/ref" && cp -r "$work/o2" "$work/ref"
            elif [ -d "$work/ref" ]; then
                bad=0
                for f in "$work"/ref/*.bmp; do cmp -s "$f" "$work/o2/$(basename "$f")" || bad=$((bad + 1)); done
                echo "   outputs differing from one GPU's: $bad of $(ls "$work/ref" | wc -l)" | tee -a "$log"
            fi
        done
    done
done
grep -A9 "^batch:" "$log" | grep "^batch:\|busiest" | tail -8 | tee -a "$out/e2e-2gpu-stages.txt"
