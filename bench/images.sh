#!/bin/sh
# bench/images.sh - on the GPU machine, in about 40 s: image objects beside buffers
# (tiled and onepass reading the source plane from a buffer or an image2d_t) and the
# bilinear-tap trick against tiled and twopass, for gauss filters of several lengths on
# synthetic gray images; then bilinear's largest error against the exact filter (-e) where
# texture units interpolate with 8-bit fractions. Run from the repository root, after
# `sh bench/with-codecs.sh make -j16 tiledconv`:
#
#   sh bench/with-codecs.sh sh bench/images.sh OUTDIR
#
# OUTDIR gets:
#   images.csv        every run's records (tiledconv --csv), one row per algorithm and storage,
#                     with a first column naming the run
#   images.txt        the comparison per size and length: median kernel ms, % of the copy,
#                     ratio to tiled from a buffer; the storage and bilinear ratios
#   bilinear-error.csv  size, filter, ROI, the tolerance -e held bilinear to, the largest
#                     difference found, verified
#   gpu.txt, images.log   the device (tiledconv -l, nvidia-smi) and every command's stderr
#
# Environment (for a try on PoCL: IMAGES_SIZES="512x512 1024x1024" IMAGES_DEVICE="--device cpu"
# IMAGES_ITERATIONS=3):
#   IMAGES_SIZES       images (default "4096x4096 8192x8192")
#   IMAGES_TAPS        gauss lengths (default "3 5 9 15", and 31 on the first size where the
#                      tool takes it)
#   IMAGES_ITERATIONS  timed runs per algorithm after one warm-up (default 20)
#   IMAGES_DEVICE      the device flags (default "--device gpu")
#   TILEDCONV          the binary (default ./tiledconv)
set -u
out=${1:?usage: sh bench/images.sh OUTDIR}
sizes=${IMAGES_SIZES:-"4096x4096 8192x8192"}
iterations=${IMAGES_ITERATIONS:-20}
device=${IMAGES_DEVICE:-"--device gpu"}
bin=${TILEDCONV:-./tiledconv}
mkdir -p "$out" || exit 1
log=$out/images.log
: >"$log"
start=$(date +%s)

# Lengths: 3, 5, 9, 15, and on the first size 31 when this tree takes filters beyond 15 taps.
taps_list=${IMAGES_TAPS:-"3 5 9 15"}
long=""
if [ -z "${IMAGES_TAPS:-}" ] && $bin -g 64x64 -f 31 -q --no-output $device >/dev/null 2>&1; then
    long=31
fi

{
    echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $bin $device"
    $bin -l 2>&1
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu \
        --format=csv 2>/dev/null || echo "(no nvidia-smi)"
} >"$out/gpu.txt"

# run NAME ARGS...: one tiledconv run with --csv; its records into images.csv with NAME first.
csv=$out/images.csv
: >"$csv"
run() {
    name=$1
    shift
    echo "== $name: $bin $*" >>"$log"
    # shellcheck disable=SC2086
    timeout 60 $bin "$@" $device --csv >"$out/run.csv" 2>>"$log"
    rc=$?
    [ "$rc" -eq 0 ] || echo "   exit $rc" >>"$log"
    if [ ! -s "$csv" ]; then
        sed -n '1s/^/run,/p' "$out/run.csv" >"$csv"
    fi
    sed -n "2,\$s/^/$name,/p" "$out/run.csv" >>"$csv"
}

# 1. Every algorithm and storage (-a all --storage image: tiled and onepass from a buffer and
#    from an image, twopass, bilinear), gauss of each length, whole image.
for size in $sizes; do
    for taps in $taps_list $long; do
        run "gauss$taps-$size" -g "$size" --filter gauss -f "$taps" -a all --storage image \
            -t -i "$iterations" --no-output
    done
    long=""
done

# 2. bilinear's largest error against the exact filter: gauss 9 and 15 and box 9 on a ROI of
#    at most 1024 x 1024 near the far corner of the largest image (sample coordinates as large
#    as they get, where their float rounding counts most), and gauss 9 on the whole of the
#    smallest image. -e's CPU reference sums every tap of every ROI pixel, so the ROI keeps it
#    to a second.
err=$out/bilinear-error.csv
echo "size,filter,roi,tolerance,max_difference,verified" >"$err"
last=$(echo "$sizes" | awk '{print $NF}')
first=$(echo "$sizes" | awk '{print $1}')
w=${last%x*}
h=${last#*x}
side=$((w / 2 < 1024 ? w / 2 : 1024))
sideh=$((h / 2 < 1024 ? h / 2 : 1024))
left=$((w - side - 7))
top=$((h - sideh - 5))
error_run() { # error_run SIZE FILTER TAPS ROI [ROI-ARGS...]
    size=$1 filter=$2 taps=$3 roi=$4
    shift 4
    echo "== error, $size, $filter $taps: $bin -g $size --filter $filter -f $taps $*" >>"$log"
    # shellcheck disable=SC2086
    timeout 60 $bin -g "$size" --filter "$filter" -f "$taps" -a bilinear -e --json --no-output \
        "$@" $device >"$out/run.json" 2>>"$log"
    awk -v size="$size" -v f="$filter$taps" -v roi="$roi" '
        { tol = $0; sub(/.*"tolerance": */, "", tol); sub(/[,}].*/, "", tol)
          md = $0; sub(/.*"max_difference": */, "", md); sub(/[,}].*/, "", md)
          ok = $0; sub(/.*"verified": */, "", ok); sub(/[,}].*/, "", ok)
          printf "%s,%s,%s,%s,%s,%s\n", size, f, roi, tol, md, ok }' "$out/run.json" >>"$err"
}
for spec in "gauss 9" "gauss 15" "box 9"; do
    # shellcheck disable=SC2086
    error_run "$last" $spec "${side}x$sideh@($left;$top)" -sL "$left" -sT "$top" -tL "$left" \
        -tT "$top" -W "$side" -H "$sideh"
done
error_run "$first" gauss 9 whole
rm -f "$out/run.csv" "$out/run.json"

# 3. The comparison, from images.csv: per run, each row's median, % of the copy, and the ratio
#    to tiled from a buffer (the first row of each run).
awk -F, '
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    {
        run = $1
        label = $c["algorithm"] ($c["storage"] == "image" && $c["algorithm"] != "bilinear" ? "/image" : "")
        if (run != prev) {
            printf "\n%s (%s x %s, %s taps, %s iterations, median kernel ms; %% of the copy of the same bytes)\n",
                   run, $c["width"], $c["height"], $c["taps"], $c["iterations"]
            base = $c["kernel_ms_median"]
            prev = run
        }
        printf "  %-14s %10.4f ms %7.1f %%  %6.2fx tiled%s\n", label, $c["kernel_ms_median"],
               100 * $c["copy_fraction"], $c["kernel_ms_median"] / base,
               $c["algorithm"] == "bilinear" ? sprintf("   (pass 1 %.4f, pass 2 %.4f)",
                                                       $c["pass1_ms_median"], $c["pass2_ms_median"]) : ""
        ms[run, label] = $c["kernel_ms_median"]
        if (!(run in seen)) { seen[run] = 1; order[++n] = run }
    }
    END {
        printf "\nratios (image over buffer; bilinear over tiled and over twopass)\n"
        for (i = 1; i <= n; i++) {
            r = order[i]
            printf "  %-22s tiled %5.2f  onepass %5.2f  bilinear/tiled %5.2f  bilinear/twopass %5.2f\n",
                   r, ms[r, "tiled/image"] / ms[r, "tiled"], ms[r, "onepass/image"] / ms[r, "onepass"],
                   ms[r, "bilinear"] / ms[r, "tiled"], ms[r, "bilinear"] / ms[r, "twopass"]
        }
    }' "$csv" >"$out/images.txt"
{
    echo
    echo "bilinear's largest error against the exact filter (-e; tolerance as docs/kernels.md derives it)"
    column -t -s, "$err" 2>/dev/null || cat "$err"
    echo
    echo "# $(($(date +%s) - start)) s"
} >>"$out/images.txt"
cat "$out/images.txt"
