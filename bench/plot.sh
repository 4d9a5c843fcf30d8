#!/usr/bin/env bash
# bench/plot.sh - draw the plots of bench/sweep.sh's records.
#
#   bench/plot.sh CSV OUTPNG          draw OUTPNG with gnuplot
#   bench/plot.sh --script CSV OUTPNG print the gnuplot script instead (sweep.sh keeps it as
#                                     sweep.gp: the data are inline, so "gnuplot sweep.gp" draws
#                                     the PNG next to the script, anywhere)
#   bench/plot.sh --cases CASES_CSV OUTDIR         draw the case plots of a cases.csv into
#                                     OUTDIR: length.png (% of the copy against the filter
#                                     length), alignment.png (against sL mod 4 and tL mod 4) and
#                                     borders.png (against the border rule), this tree's kernel
#                                     and --old's where the sweep ran one
#   bench/plot.sh --cases-script CASES_CSV OUTDIR  print that script (sweep.sh keeps it as
#                                     cases.gp; the PNGs go next to it)
#   LENGTH_EXTRA=FILE (environment, with --cases): more points for length.png, one per line,
#                                     "TAPS PERCENT", drawn as "LENGTH_EXTRA_TITLE" (measured
#                                     elsewhere, e.g. a default changed after the sweep)
#
# The plot: MPixels/s of the target ROI (median kernel time) against pixels (log x, log y), one
# line per algorithm per filter size, plus the device's copy floor, pixels / copy_ms (the
# clEnqueueCopyBuffer of the same byte count that tiledconv measures in each run; the fastest
# of the runs at that size). Points are sorted by pixel count, whatever the order of the records.
set -u

# ---- The case plots from cases.csv -----------------------------------------------------------
if [ "${1:-}" = "--cases" ] || [ "${1:-}" = "--cases-script" ]; then
    mode=$1
    ccsv=${2:?usage: bench/plot.sh --cases CASES_CSV OUTDIR}
    cdir=${3:?usage: bench/plot.sh --cases CASES_CSV OUTDIR}
    [ -r "$ccsv" ] || { echo "bench/plot.sh: $ccsv: cannot read" >&2; exit 2; }
    chead=$(grep -v '^#' "$ccsv" | head -n 1)
    ccol() { printf '%s\n' "$chead" | tr ',' '\n' | grep -nx "$1" | head -n 1 | cut -d: -f1; }
    c_suite=$(ccol suite); c_case=$(ccol case); c_bin=$(ccol binary); c_taps=$(ccol taps)
    c_frac=$(ccol copy_fraction); c_border=$(ccol border)
    for v in c_suite c_case c_bin c_taps c_frac c_border; do
        [ -n "${!v}" ] || { echo "bench/plot.sh: $ccsv: no ${v#c_} column" >&2; exit 2; }
    done
    cstamp=$(grep -m1 '^#' "$ccsv" | sed -n 's/.*date=\([^ ]*\).*/\1/p' | tr -d "'\"\\\\")
    cdev=$(grep -v '^#' "$ccsv" | sed -n 2p | sed -n 's/^[^"]*"\([^"]*\)".*$/\1/p' | tr -d "'\"\\\\")
    # block SUITE BINARY [TAPS]: "x % label" lines of one series, in the CSV's order.
    block() {
        grep -v '^#' "$ccsv" | awk -F, -v cs="$c_suite" -v cc="$c_case" -v cb="$c_bin" \
            -v ct="$c_taps" -v cf="$c_frac" -v cr="$c_border" -v s="$1" -v b="$2" -v t="${3:-}" '
            NR == 1 { next }
            $cs == s && $cb == b && (t == "" || $ct == t) && $cf + 0 > 0 {
                n++
                if (s == "lengths") x = $ct
                else x = n
                lab = $cc
                if (s == "align") { lab = $cc; sub(/-f[0-9]+$/, "", lab) }
                if (s == "borders") lab = $cr
                printf "%s %.2f \"%s\"\n", x, 100 * $cf, lab
            }'
    }
    script() {
        cat <<EOF_GP
# gnuplot script from bench/plot.sh --cases-script, for: gnuplot THIS_FILE
# Data from $ccsv, inline below; the PNGs are written next to this script.
dir = ''
if (exists("ARG0") && strlen(ARG0) > 0) {
    i = strlen(ARG0)
    while (i > 0 && ARG0[i:i] ne '/') { i = i - 1 }
    if (i > 0) { dir = ARG0[1:i] }
}
\$len_new << EOD
$(block lengths new)
EOD
\$len_old << EOD
$(block lengths old)
EOD
\$len_extra << EOD
$( [ -n "${LENGTH_EXTRA:-}" ] && grep -v '^#' "$LENGTH_EXTRA")
EOD
\$al_new3 << EOD
$(block align new 3)
EOD
\$al_new5 << EOD
$(block align new 5)
EOD
\$al_old3 << EOD
$(block align old 3)
EOD
\$al_old5 << EOD
$(block align old 5)
EOD
\$bo_new3 << EOD
$(block borders new 3)
EOD
\$bo_new5 << EOD
$(block borders new 5)
EOD
\$bo_old3 << EOD
$(block borders old 3)
EOD
\$bo_old5 << EOD
$(block borders old 5)
EOD
set terminal pngcairo size 1100,650 noenhanced font ",11"
set grid ytics
set key outside right top
set ylabel "% of the device copy (median kernel time)"
set yrange [0:105]

set output dir . 'length.png'
set title "tiled kernel against the filter length, whole image, replicate: ${cdev:-?}\n${cstamp}"
set xlabel "filter length (taps)"
set xrange [2:16]
set xtics 3,2,15
plot \$len_new using 1:2 with linespoints lw 2 pt 7 lc 1 title "this kernel", \\
     \$len_old using 1:2 with linespoints lw 2 pt 5 dt 2 lc 2 title "old kernel", \\
     \$len_extra using 1:2 with points pt 9 ps 2 lc 7 title "${LENGTH_EXTRA_TITLE:-extra}", \\
     85 with lines dt 3 lc rgb "black" title "target 85 % (3..9 taps)", \\
     75 with lines dt 4 lc rgb "gray40" title "target 75 % (15 taps)"

set output dir . 'alignment.png'
set title "tiled kernel against the ROIs' alignment (-sL 4+a -sT 7 -tL 8+b -tT 1): ${cdev:-?}\n${cstamp}"
set xlabel "a = sL mod 4, b = tL mod 4"
set xrange [0.5:16.5]
set xtics rotate by -45
plot \$al_new3 using 1:2:xtic(3) with linespoints lw 2 pt 7 lc 1 title "this kernel, 3 taps", \\
     \$al_new5 using 1:2 with linespoints lw 2 pt 5 lc 3 title "this kernel, 5 taps", \\
     \$al_old3 using 1:2 with linespoints lw 2 pt 7 dt 2 lc 2 title "old kernel, 3 taps", \\
     \$al_old5 using 1:2 with linespoints lw 2 pt 5 dt 2 lc 4 title "old kernel, 5 taps", \\
     85 with lines dt 3 lc rgb "black" title "target 85 %"

set output dir . 'borders.png'
set title "tiled kernel against the border rule, whole image: ${cdev:-?}\n${cstamp}"
set xlabel "border rule"
set xrange [0.5:5.5]
set xtics norotate
plot \$bo_new3 using 1:2:xtic(3) with linespoints lw 2 pt 7 lc 1 title "this kernel, 3 taps", \\
     \$bo_new5 using 1:2 with linespoints lw 2 pt 5 lc 3 title "this kernel, 5 taps", \\
     \$bo_old3 using 1:2 with linespoints lw 2 pt 7 dt 2 lc 2 title "old kernel, 3 taps", \\
     \$bo_old5 using 1:2 with linespoints lw 2 pt 5 dt 2 lc 4 title "old kernel, 5 taps", \\
     85 with lines dt 3 lc rgb "black" title "target 85 %"
EOF_GP
    }
    if [ "$mode" = --cases-script ]; then
        script
        exit 0
    fi
    command -v gnuplot >/dev/null 2>&1 || { echo "bench/plot.sh: gnuplot is not installed" >&2; exit 1; }
    mkdir -p "$cdir" || exit 1
    script > "$cdir/cases.gp" && gnuplot "$cdir/cases.gp" || { echo "bench/plot.sh: gnuplot failed" >&2; exit 1; }
    echo "bench/plot.sh: wrote $cdir/length.png, alignment.png, borders.png"
    exit 0
fi

script_only=0
if [ "${1:-}" = "--script" ]; then
    script_only=1
    shift
fi
if [ $# -ne 2 ] || [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
    echo "usage: bench/plot.sh [--script] CSV OUTPNG" >&2
    exit 2
fi
csv=$1
png=$2
if [ ! -r "$csv" ]; then
    echo "bench/plot.sh: $csv: cannot read" >&2
    exit 2
fi

# Column numbers from the CSV's own header, so that a column added later does not shift the plot.
header=$(grep -v '^#' "$csv" | head -n 1)
col() {
    printf '%s\n' "$header" | tr ',' '\n' | grep -nx "$1" | head -n 1 | cut -d: -f1
}
c_alg=$(col algorithm); c_taps=$(col taps); c_rw=$(col roi_width); c_rh=$(col roi_height)
c_mps=$(col mpixels_per_s); c_copy=$(col copy_ms); c_iter=$(col iterations)
for v in c_alg c_taps c_rw c_rh c_mps c_copy; do
    if [ -z "${!v}" ]; then
        echo "bench/plot.sh: $csv: no ${v#c_} column in the header" >&2
        exit 2
    fi
done

# The title: the device (the only quoted field of a record), the iterations and the date from
# the sweep's '#' line. Quotes and backslashes are dropped: they would end gnuplot's string.
first=$(grep -v '^#' "$csv" | sed -n 2p)
device=$(printf '%s\n' "$first" | sed -n 's/^[^"]*"\([^"]*\)".*$/\1/p' | tr -d "'\"\\\\")
iters=$(printf '%s\n' "$first" | cut -d, -f"${c_iter:-7}")
stamp=$(grep -m1 '^#' "$csv" | sed -n 's/.*date=\([^ ]*\).*/\1/p' | tr -d "'\"\\\\")

# One inline data block per series ("pixels MPixels/s" lines sorted by pixels), and one for the
# copy floor. The fields used all come before the quoted device name, so splitting at commas
# is safe.
data_blocks() {
    grep -v '^#' "$csv" | awk -F, -v ca="$c_alg" -v ct="$c_taps" -v cw="$c_rw" -v ch="$c_rh" \
        -v cm="$c_mps" -v cc="$c_copy" '
        NR == 1 { next }
        {
            px = $cw * $ch
            if (px <= 0 || $cm + 0 <= 0) next
            key = $ca "_" $ct
            gsub(/[^A-Za-z0-9_]/, "_", key)
            rows[key] = rows[key] sprintf("%.0f %s\n", px, $cm)
            if (!(key in seen)) { seen[key] = 1; order[++n] = key }
            if ($cc + 0 > 0) {
                f = px / $cc / 1000.0
                if (!(px in floor) || f > floor[px]) floor[px] = f
            }
        }
        END {
            sorter = "sort -n -k1,1"
            for (i = 1; i <= n; i++) {
                printf "$s_%s << EOD\n", order[i]
                fflush()
                printf "%s", rows[order[i]] | sorter
                close(sorter)
                print "EOD"
            }
            print "$copyfloor << EOD"
            fflush()
            for (p in floor) printf "%.0f %.3f\n", p, floor[p] | sorter
            close(sorter)
            print "EOD"
        }'
}

gen_script() {
    local blocks series plot i a t style
    blocks=$(data_blocks)
    series=$(printf '%s\n' "$blocks" | sed -n 's/^\$s_\(.*\) << EOD$/\1/p')
    plot=""
    for i in $series; do
        a=${i%_*}; t=${i##*_}
        if [ "$t" = 5 ]; then style="pt 5 dt 2"; else style="pt 7 dt 1"; fi
        case $a in tiled) style="$style lc 1" ;; twopass) style="$style lc 2" ;;
                   onepass) style="$style lc 4" ;; esac
        plot="$plot\$s_$i using 1:2 with linespoints lw 2 $style title \"$a ${t}x${t}\", \\"$'\n'"     "
    done
    cat <<EOF
# gnuplot script from bench/plot.sh, for: gnuplot THIS_FILE
# Data from $csv, inline below; the PNG is written next to this script.
pngfile = '$(basename "$png")'
dir = ''
if (exists("ARG0") && strlen(ARG0) > 0) {
    i = strlen(ARG0)
    while (i > 0 && ARG0[i:i] ne '/') { i = i - 1 }
    if (i > 0) { dir = ARG0[1:i] }
}
$blocks
set terminal pngcairo size 1200,750 noenhanced font ",11"
set output dir . pngfile
set title "tiledconv throughput vs image size: ${device:-unknown device}, ${iters:-?} iterations\\n${stamp}"
set xlabel "pixels in the target ROI"
set ylabel "MPixels/s (median kernel time)"
set logscale x 2
set logscale y 10
set format x "2^%L"
set grid xtics ytics mxtics mytics
set key outside right top
plot $plot\$copyfloor using 1:2 with lines lw 3 lc rgb "black" dt 3 title "copy floor (pixels / copy_ms)"
EOF
}

if [ $script_only = 1 ]; then
    gen_script
    exit 0
fi
if ! command -v gnuplot >/dev/null 2>&1; then
    echo "bench/plot.sh: gnuplot is not installed" >&2
    exit 1
fi
tmpdir=$(mktemp -d)
trap 'rm -rf "$tmpdir"' EXIT
gen_script > "$tmpdir/plot.gp"
if ! gnuplot "$tmpdir/plot.gp"; then
    echo "bench/plot.sh: gnuplot failed" >&2
    exit 1
fi
mkdir -p "$(dirname "$png")" && mv "$tmpdir/$(basename "$png")" "$png" || exit 1
echo "bench/plot.sh: wrote $png"
