#!/bin/sh
# bench/pyramid.sh OUTDIR - the Gaussian scale space's two launch styles on the GPU (issue 16):
# one launch per octave (Pyramid.cl, every level of an octave in one 3-D NDRange) against one
# launch per level (tc_filter's kernels, and a decimation per octave), both timed by tiledconv
# -t from profiling events, every launch's kernel time summed per pyramid; and -e, every level
# of both against the CPU reference, on a smaller image. About 30 to 60 s on an H100/H200.
#
#   sh bench/pyramid.sh OUTDIR                     from the repository root, on the GPU machine
#   PYRAMID_SIZES="512 1024" PYRAMID_ITERATIONS=3 PYRAMID_CHECK_SIZE=256 \
#       PYRAMID_DEVICE="--device cpu" sh bench/pyramid.sh OUT       a try on PoCL
#
# Environment (defaults in brackets): PYRAMID_SIZES, square sides ["4096 8192"];
# PYRAMID_SHAPES, OxL ["4x4 3x5 5x3"] (4x4 also with TILEDCONV_PYRAMID_INTERLEAVE=1: the slice
# in the NDRange's first dimension); PYRAMID_ITERATIONS [20]; PYRAMID_CHECK_SIZE, the side
# of the -e runs [512]; PYRAMID_TILE_HEIGHTS, the per-octave tile heights tried for 4x4 at the
# largest size ["256 128"] (TILEDCONV_PYRAMID_TILE_H; 256 is the default); PYRAMID_DEVICE,
# tiledconv's device flags [none: the first GPU]; TILEDCONV, the binary [./tiledconv, built
# if missing].
#
# OUTDIR gets: pyramid.csv (tiledconv's --csv records, one header: a row of type "pyramid"
# per launch style and run, then a row of type "level" per level; a `case` column first),
# table.txt (one line per case: both medians, launches, GB/s, their ratio, and whether the
# levels were the same bit for bit), check.txt (the -e runs' tables), pyramid.log (every
# command, its exit status and wall time, its stderr), device.txt (tiledconv -l).
set -u
out=${1:?usage: sh bench/pyramid.sh OUTDIR}
mkdir -p "$out" || exit 1
bin=${TILEDCONV:-./tiledconv}
sizes=${PYRAMID_SIZES:-4096 8192}
shapes=${PYRAMID_SHAPES:-4x4 3x5 5x3}
iterations=${PYRAMID_ITERATIONS:-20}
check_size=${PYRAMID_CHECK_SIZE:-512}
tiles=${PYRAMID_TILE_HEIGHTS:-256 128}
device=${PYRAMID_DEVICE:-}
[ -x "$bin" ] || make -s tiledconv || exit 1

csv=$out/pyramid.csv
log=$out/pyramid.log
: >"$csv"
: >"$log"
"$bin" -l >"$out/device.txt" 2>&1
largest=$(echo "$sizes" | tr ' ' '\n' | sort -n | tail -1)

# run CASE ENV ARGS...: one tiledconv run, its records into the CSV with the case first.
run() {
    case_name=$1 env_assign=$2
    shift 2
    start=$(date +%s.%N)
    # shellcheck disable=SC2086 # the device flags and the environment are meant to split
    env $env_assign "$bin" $device "$@" >"$out/run.csv" 2>"$out/run.err"
    rc=$?
    echo "[$case_name] ${env_assign:+$env_assign }$bin $device $* -> exit $rc in" \
         "$(echo "$(date +%s.%N) - $start" | bc 2>/dev/null || echo '?') s" >>"$log"
    sed 's/^/    /' "$out/run.err" >>"$log"
    if [ ! -s "$csv" ]; then
        head -1 "$out/run.csv" | sed 's/^/case,/' >"$csv"
    fi
    tail -n +2 "$out/run.csv" | sed "s/^/$case_name,/" >>"$csv"
    rm -f "$out/run.csv" "$out/run.err"
}

for size in $sizes; do
    for shape in $shapes; do
        run "$size-$shape" "" -g "${size}x$size" --pyramid "$shape" --no-output --csv \
            -i "$iterations"
        # The study: the slice in the NDRange's first dimension, so that the slices of a tile
        # run together and share its base's rows in the L2 cache.
        if [ "$shape" = "4x4" ]; then
            run "$size-$shape-interleave" "TILEDCONV_PYRAMID_INTERLEAVE=1" -g "${size}x$size" \
                --pyramid "$shape" --no-output --csv -i "$iterations"
        fi
        if [ "$size" = "$largest" ] && [ "$shape" = "4x4" ]; then
            for th in $tiles; do
                [ "$th" = 256 ] && continue
                run "$size-$shape-tile$th" "TILEDCONV_PYRAMID_TILE_H=$th" -g "${size}x$size" \
                    --pyramid "$shape" --no-output --csv -i "$iterations"
            done
        fi
    done
done

# -e: every level of both launch styles against the CPU reference (-t runs both).
: >"$out/check.txt"
for shape in $shapes; do
    # shellcheck disable=SC2086
    "$bin" $device -g "${check_size}x$check_size" --pyramid "$shape" --no-output -e -t -i 2 \
        >>"$out/check.txt" 2>&1
    echo "[check-$shape] exit $?" >>"$log"
done

# The table: the two launch styles of each case side by side. Columns of the records (after
# `case`): type, input, device, launch, octaves, levels, sigma0, border, width, height,
# iterations, launches, kernel_ms_min, kernel_ms_median, kernel_ms_mean, wall_ms_per_iteration,
# bytes, gbytes_per_s, build_ms, h2d_ms, d2h_ms, identical, ...
awk -F, '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $col["type"] != "pyramid" { next }
    {
        c = $col["case"]
        if (!(c in seen)) { order[n++] = c; seen[c] = 1 }
        k = $col["launch"] == "per-octave" ? "o" : "l"
        med[c, k] = $col["kernel_ms_median"]; launches[c, k] = $col["launches"]
        gbs[c, k] = $col["gbytes_per_s"]; wall[c, k] = $col["wall_ms_per_iteration"]
        if (k == "l") same[c] = $col["identical"]
    }
    END {
        printf "%-18s %11s %4s %7s %11s %4s %7s %8s %12s  %s\n", "case (size-OxL)", \
            "octave ms", "L", "GB/s", "level ms", "L", "GB/s", "lvl/oct", "wall lvl/oct", \
            "identical"
        for (i = 0; i < n; i++) {
            c = order[i]
            ratio = (med[c, "o"] > 0) ? med[c, "l"] / med[c, "o"] : 0
            wall_ratio = (wall[c, "o"] > 0) ? wall[c, "l"] / wall[c, "o"] : 0
            printf "%-18s %11.4f %4d %7.1f %11.4f %4d %7.1f %7.2fx %11.2fx  %s\n", c, \
                med[c, "o"], launches[c, "o"], gbs[c, "o"], med[c, "l"], launches[c, "l"], \
                gbs[c, "l"], ratio, wall_ratio, same[c]
        }
        print "medians of the kernel time per pyramid (every launch summed), ms; L: launches;"
        print "GB/s: the bytes the launches must move (each launch reads its base once per level"
        print "it makes, writes each level), over the median; lvl/oct: per level over per octave."
    }' "$csv" >"$out/table.txt"
cat "$out/table.txt"
echo "-e: $(grep -c '^PASSED' "$out/check.txt") of $(echo "$shapes" | wc -w) PASSED;" \
     "$(grep -c 'bit for bit' "$out/check.txt") with both launch styles the same bit for bit"
