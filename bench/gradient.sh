#!/bin/sh
# bench/gradient.sh - the one-read gradient (--gradient, issue 16) against the two filters run
# apart (the tiled kernel with sobel-x, then sobel-y, then a magnitude kernel), on synthetic
# gray images (-g), with the device's copy floor for the same bytes. About 15 to 25 s on the
# GPU machine:
#
#   sh bench/with-codecs.sh make -j16 tiledconv
#   sh bench/with-codecs.sh sh bench/gradient.sh "$OUT"
#
# Locally (PoCL), smaller:  GRADIENT_SIZES="512 1024" GRADIENT_ITERATIONS=5 sh bench/gradient.sh /tmp/g
#
# Per size: Sobel with the magnitude alone (the one read moves 8 bytes per pixel, the two
# filters apart 28), Sobel with --raw (gx, gy and the magnitude written: 16 against 28), and
# Scharr at the largest size; then -e of both methods at 2048^2 with ROIs and a border, so
# that the GPU's results are checked too. Writes into OUTDIR:
#   gradient.csv   the tool's --csv records, a `case` column first (SIZE-mag, SIZE-raw, ...)
#   gradient.txt   a table: per case both methods' median times, % of the copy floor, the
#                  speed-up of the one read and the byte ratio it is held against
#   gradient.log   every command and its stderr; gpu.txt the device's state (nvidia-smi)
# Environment: GRADIENT_SIZES (default "4096 8192"), GRADIENT_ITERATIONS (default 50),
# GRADIENT_LIMIT (seconds per run, default 20), TILEDCONV (default ./tiledconv),
# GRADIENT_FLAGS (more flags for every run, e.g. "--device gpu").
set -u
out=${1:?usage: sh bench/gradient.sh OUTDIR}
sizes=${GRADIENT_SIZES:-4096 8192}
iterations=${GRADIENT_ITERATIONS:-50}
limit=${GRADIENT_LIMIT:-20}
bin=${TILEDCONV:-./tiledconv}
flags=${GRADIENT_FLAGS:-}
mkdir -p "$out" || exit 1
[ -x "$bin" ] || { echo "bench/gradient.sh: $bin is not built (make tiledconv)" >&2; exit 1; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/gradient-bench.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
csv=$out/gradient.csv
log=$out/gradient.log
: >"$csv"
: >"$log"
{
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
        --format=csv 2>&1 || echo "no nvidia-smi"
    date -u
    "$bin" -l 2>&1
} >"$out/gpu.txt"
start=$(date +%s)

# run CASE ARGS...: one tool run, its records into gradient.csv with the case first.
run() {
    label=$1
    shift
    echo "# $label: $bin $flags $*" >>"$log"
    # shellcheck disable=SC2086  # the flags are meant to split
    if timeout -k 5 "$limit" "$bin" $flags "$@" --csv >"$scratch/rec" 2>>"$log"; then
        if [ ! -s "$csv" ]; then
            printf 'case,' >"$csv"
            sed -n 1p "$scratch/rec" >>"$csv"
        fi
        sed '1d' "$scratch/rec" | sed "s/^/$label,/" >>"$csv"
    else
        echo "# $label: failed (exit $?)" >>"$log"
        echo "bench/gradient.sh: $label failed, see $log" >&2
    fi
}

largest=
for n in $sizes; do
    run "$n-mag" -g "${n}x$n" --gradient sobel -a all -t -i "$iterations" --no-output
    run "$n-raw" -g "${n}x$n" --gradient sobel -a all -t -i "$iterations" --no-output \
        --no-sync --raw "$scratch/g.f32"
    rm -f "$scratch/g.f32"
    largest=$n
done
[ -n "$largest" ] &&
    run "$largest-scharr" -g "${largest}x$largest" --gradient scharr -a all -t -i "$iterations" \
        --no-output
# The GPU's results against the CPU reference: both methods, unaligned ROIs, a border.
run "check-sobel" -g 2048x2048 -sL 3 -sT 5 -tL 2 -tT 1 -W 2040 -H 2040 --border reflect101 \
    --gradient sobel -a all -e -i 3 --no-output --no-sync --raw "$scratch/c.f32"
run "check-scharr" -g 2048x2048 -sL 1 -tL 6 --border constant=9 --gradient scharr -a all -e \
    -i 3 --no-output
echo "# total $(( $(date +%s) - start )) s" >>"$log"

# The table: one line per case, the two methods side by side.
awk -F, -v iterations="$iterations" '
NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
{
    k = $c["case"]
    if (!(k in seen)) { seen[k] = 1; order[++n] = k }
    m = $c["algorithm"] ~ /-separate$/ ? "sep" : "one"
    t[k, m] = $c["kernel_ms_median"]; f[k, m] = $c["copy_fraction"]; v[k, m] = $c["verified"]
    d[k, m] = $c["max_difference"]; dev = $c["device"]; copy[k] = $c["copy_ms"]
    size[k] = $c["width"] "x" $c["height"]
}
END {
    printf "one-read gradient against the two filters apart, median of %s runs, %s\n", iterations, dev
    printf "%-14s %-11s %12s %8s %12s %8s %9s %10s %12s  %s\n", "case", "size", "one-read ms",
           "% copy", "separate ms", "% copy", "speed-up", "bytes", "copy floor", "checked"
    for (i = 1; i <= n; i++) {
        k = order[i]
        bytes = k ~ /-raw$/ || k == "check-sobel" ? "28/16" : "28/8"
        ratio = k ~ /-raw$/ || k == "check-sobel" ? 1.75 : 3.5
        chk = v[k, "one"] == "" ? "-" : v[k, "one"] "/" v[k, "sep"] " (max diff " d[k, "one"] ")"
        printf "%-14s %-11s %12.4f %7.1f%% %12.4f %7.1f%% %8.2fx %10s %9.4f ms  %s\n", k, size[k],
               t[k, "one"], 100 * f[k, "one"], t[k, "sep"], 100 * f[k, "sep"],
               t[k, "sep"] / t[k, "one"], bytes " " ratio "x", copy[k], chk
    }
    print "% copy: the copy floor (clEnqueueCopyBuffer of the bytes the result needs: one plane read"
    print "and the magnitude written, or gx, gy and the magnitude with --raw) over the median;"
    print "speed-up: separate over one-read; bytes: what the two filters apart move per pixel over"
    print "what the one read moves, the speed-up a memory-bound pair would show."
}' "$csv" >"$out/gradient.txt"
cat "$out/gradient.txt"
