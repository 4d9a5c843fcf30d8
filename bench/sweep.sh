#!/usr/bin/env bash
# bench/sweep.sh - tiledconv throughput over image sizes, algorithms and filter sizes.
#
#   bench/sweep.sh [-o OUTDIR] [-i ITER] [-d "DEVICE ARGS"] [--sizes "WxH ..."] [--quick]
#
#   -o OUTDIR   where sweep.csv, sweep.log, sweep.gp and sweep.png go (default: $OUT if set,
#               else bench-out)
#   -i ITER     timed iterations per run, after tiledconv's one warm-up (default 50; 5 with --quick)
#   -d ARGS     extra tiledconv arguments, word-split, e.g. -d "--device gpu"
#   --sizes L   the sizes to run instead of the default list (space- or comma-separated WxH)
#   --quick     only 512x512, 1024x1024 and 2048x2048 with ITER 5 (a CPU test run)
#   TIMEOUT=S   environment: seconds one tiledconv run may take before it is killed (default 300)
#
# One tiledconv process per size and filter size runs all three algorithms (-a all), so the
# device is opened and the image made once: -g WxH -f TAPS -a all -t -i ITER --no-output --csv,
# plus -e (every pixel against the CPU reference) on sizes up to 2048x2048. Kernel times are
# tiledconv's own OpenCL profiling events (median of ITER). A size the device refuses (exit 2),
# a failed run or a timeout is recorded (sweep.log, and '#' lines at the end of sweep.csv) and
# the sweep goes on. Exit status: 0 when at least one record was written, else 1.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$root" || exit 1

outdir=${OUT:-bench-out}
iter=
dev_args=
quick=0
sizes_opt=
usage() { sed -n '2,20s/^# \{0,1\}//p' "$0"; }
while [ $# -gt 0 ]; do
    case $1 in
        -o) outdir=${2:?-o needs a folder}; shift 2 ;;
        -i) iter=${2:?-i needs a number}; shift 2 ;;
        -d) dev_args=${2?-d needs arguments}; shift 2 ;;
        --sizes) sizes_opt=${2:?--sizes needs a list}; shift 2 ;;
        --quick) quick=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "bench/sweep.sh: unknown option $1 (see -h)" >&2; exit 2 ;;
    esac
done
case ${iter:-1} in
    ''|*[!0-9]*|0) echo "bench/sweep.sh: -i $iter: need a positive whole number" >&2; exit 2 ;;
esac

# In order of pixel count, so that the log reads from small to large.
sizes="512x512 1000x1000 1024x1024 2048x2048 4096x4096 8191x4097 8192x8192 16384x16384"
if [ $quick = 1 ]; then
    sizes="512x512 1024x1024 2048x2048"
    iter=${iter:-5}
fi
[ -n "$sizes_opt" ] && sizes=$(printf '%s' "$sizes_opt" | tr ',' ' ')
iter=${iter:-50}
verify_max=$((2048 * 2048))   # -e only up to this many pixels: the CPU reference is slow beyond
run_timeout=${TIMEOUT:-300}
read -r -a dev <<< "$dev_args"

if [ ! -x ./tiledconv ]; then
    echo "bench/sweep.sh: building tiledconv" >&2
    make tiledconv >&2 || { echo "bench/sweep.sh: make tiledconv failed" >&2; exit 1; }
fi
mkdir -p "$outdir" || exit 1
csv=$outdir/sweep.csv
log=$outdir/sweep.log
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tmo=()
command -v timeout >/dev/null 2>&1 && tmo=(timeout -k 10 "$run_timeout")

printf '# date=%s host=%s tiledconv="%s" iterations=%s device_args="%s" verify_up_to=%s pixels\n' \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(hostname 2>/dev/null || uname -n)" \
    "$(./tiledconv --version 2>/dev/null)" "$iter" "$dev_args" "$verify_max" > "$csv"
: > "$log"
have_header=0
records=0
notes=()

for size in $sizes; do
    w=${size%x*}; h=${size#*x}
    case "$w$h" in
        ''|*[!0-9]*) notes+=("# error: $size: not WxH, skipped"); continue ;;
    esac
    px=$((w * h))
    refused=
    for taps in 3 5; do
        if [ -n "$refused" ]; then
            notes+=("# skipped: $size taps $taps: refused at taps 3 ($refused)")
            continue
        fi
        args=(-g "$size" -f "$taps" -a all -t -i "$iter" --no-output --csv ${dev[@]+"${dev[@]}"})
        [ "$px" -le "$verify_max" ] && args+=(-e)
        printf 'sweep: %-12s taps %s ... ' "$size" "$taps" >&2
        t0=$(date +%s.%N)
        ${tmo[@]+"${tmo[@]}"} ./tiledconv "${args[@]}" > "$tmp/out" 2> "$tmp/err"
        rc=$?
        t1=$(date +%s.%N)
        secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
        {
            echo "\$ ./tiledconv ${args[*]}"
            echo "exit $rc after ${secs}s"
            cat "$tmp/err"
        } >> "$log"
        # Records: every line after tiledconv's header (present on success and when -e fails).
        if grep -q '^algorithm,' "$tmp/out"; then
            if [ $have_header = 0 ]; then
                grep -m1 '^algorithm,' "$tmp/out" >> "$csv"
                have_header=1
            fi
            n=$(grep -v '^algorithm,' "$tmp/out" | grep -c .)
            grep -v '^algorithm,' "$tmp/out" | grep . >> "$csv"
            records=$((records + n))
        fi
        msg=$(grep -m1 . "$tmp/err" | tr -d '\r' | cut -c1-300)
        case $rc in
            0) echo "ok (${secs}s)" >&2 ;;
            2) refused=${msg:-exit 2}
               notes+=("# skipped: $size taps $taps: exit 2: $refused")
               echo "refused: $refused" >&2 ;;
            124|137) notes+=("# error: $size taps $taps: timed out after ${run_timeout}s")
               echo "TIMED OUT after ${run_timeout}s" >&2 ;;
            *) notes+=("# error: $size taps $taps: exit $rc: ${msg:-no message}")
               echo "FAILED (exit $rc): ${msg:-no message}" >&2 ;;
        esac
    done
done

for n in "${notes[@]+"${notes[@]}"}"; do
    echo "$n" >> "$csv"
done

echo "bench/sweep.sh: $records records in $csv (log: $log)" >&2
[ ${#notes[@]} -gt 0 ] && printf '  %s\n' "${notes[@]}" >&2

if [ $records -gt 0 ]; then
    "$here/plot.sh" --script "$csv" "$outdir/sweep.png" > "$outdir/sweep.gp"
    if command -v gnuplot >/dev/null 2>&1; then
        gnuplot "$outdir/sweep.gp" && echo "bench/sweep.sh: wrote $outdir/sweep.png" >&2 \
            || echo "bench/sweep.sh: gnuplot failed; the script is $outdir/sweep.gp" >&2
    else
        echo "bench/sweep.sh: no gnuplot here; draw later with: gnuplot $outdir/sweep.gp" \
             "(or bench/plot.sh $csv OUT.png)" >&2
    fi
    exit 0
fi
exit 1
