#!/usr/bin/env bash
# bench/sweep.sh - tiledconv throughput over image sizes, algorithms and filter sizes.
#
#   bench/sweep.sh [-o OUTDIR] [-i ITER] [-d "DEVICE ARGS"] [--sizes "WxH ..."] [--quick]
#                  [--suite LIST] [--old BIN] [--case-size WxH] [--small-sizes "N ..."]
#                  [--check-size WxH]
#
#   -o OUTDIR   where sweep.csv, sweep.log, sweep.gp and sweep.png go (default: $OUT if set,
#               else bench-out)
#   -i ITER     timed iterations per run, after tiledconv's one warm-up (default 50; 5 with --quick)
#   -d ARGS     extra tiledconv arguments, word-split, e.g. -d "--device gpu"
#   --sizes L   the sizes to run instead of the default list (space- or comma-separated WxH)
#   --quick     only 512x512, 1024x1024 and 2048x2048 with ITER 5 (a CPU test run)
#   --suite L   what to run, comma-separated (default: sizes):
#                 sizes    the size sweep below (sweep.csv, sweep.png)
#                 align    the tiled kernel on the 16 alignment cases: sL mod 4 x tL mod 4, odd
#                          sT and tT (-sL 4+a -sT 7 -tL 8+b -tT 1, ROI 8000 x 8100 at 8192^2), 3
#                          and 5 taps
#                 borders  every border rule, whole image, 3 and 5 taps
#                 lengths  3, 5, ..., 15 taps, whole image, replicate
#                 colour   --color (three planes), 3 and 5 taps
#                 small    4096^2, 2048^2, 1024^2 whole image, 3 and 5 taps (wall time per
#                          iteration, launches included, is in the records)
#                 verify   -e (every pixel against the CPU reference): the alignment ROI
#                          -sL 5 -sT 7 -tL 3 -tT 1 at 3 and 5 taps at the case size, every
#                          length 3..15 on a reflect101 ROI at the check size
#                 cases    all of align,borders,lengths,colour,small,verify
#               The suites other than sizes write cases.csv (suite, case, binary, ROI, border,
#               then tiledconv's CSV columns), cases.log, and with gnuplot the plots
#               length.png, alignment.png and borders.png (bench/plot.sh --cases draws them
#               elsewhere).
#   --old BIN   also run BIN, an older tiledconv, on the align, borders, lengths and small cases
#               (binary "old" in cases.csv), for a comparison in the same session
#   --case-size WxH  the image of the align, borders, lengths, colour and verify suites
#               (default 8192x8192; the align ROI is the image less 192 x 92)
#   --small-sizes L  the square sides of the small suite (default "4096 2048 1024")
#   --check-size WxH  the image of verify's every-length -e runs (default 2048x2048)
#   --lengths L the filter lengths of the lengths and verify suites (default "3 5 7 9 11 13 15")
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
suites=sizes
old_bin=
case_size=8192x8192
small_sizes="4096 2048 1024"
check_size=2048x2048
lengths="3 5 7 9 11 13 15"
usage() { sed -n '2,50s/^# \{0,1\}//p' "$0"; }
while [ $# -gt 0 ]; do
    case $1 in
        -o) outdir=${2:?-o needs a folder}; shift 2 ;;
        -i) iter=${2:?-i needs a number}; shift 2 ;;
        -d) dev_args=${2?-d needs arguments}; shift 2 ;;
        --sizes) sizes_opt=${2:?--sizes needs a list}; shift 2 ;;
        --quick) quick=1; shift ;;
        --suite) suites=${2:?--suite needs a list}; shift 2 ;;
        --old) old_bin=${2:?--old needs a binary}; shift 2 ;;
        --case-size) case_size=${2:?--case-size needs WxH}; shift 2 ;;
        --small-sizes) small_sizes=${2:?--small-sizes needs a list}; shift 2 ;;
        --check-size) check_size=${2:?--check-size needs WxH}; shift 2 ;;
        --lengths) lengths=${2:?--lengths needs a list}; shift 2 ;;
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
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tmo=()
command -v timeout >/dev/null 2>&1 && tmo=(timeout -k 10 "$run_timeout")
has_suite() { case ",$suites," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
case ",$suites," in *,cases,*) suites="$suites,align,borders,lengths,colour,small,verify" ;; esac

# ---- The size sweep: every algorithm over sizes (sweep.csv) ----------------------------------
run_sizes() {
    csv=$outdir/sweep.csv
    log=$outdir/sweep.log
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
        return 0
    fi
    return 1
}

# ---- The case suites: the tiled kernel case by case (cases.csv) ------------------------------
ccsv=$outdir/cases.csv
clog=$outdir/cases.log
case_records=0
case_header=0
# run_case SUITE CASE BINARY_LABEL BINARY SL ST TL TT BORDER ARGS...: one tiledconv run, its
# record(s) appended to cases.csv with the case's columns in front.
run_case() {
    local suite=$1 name=$2 label=$3 bin=$4 sl=$5 st=$6 tl=$7 tt=$8 border=$9
    shift 9
    local args=(-sL "$sl" -sT "$st" -tL "$tl" -tT "$tt" --border "$border" -t -i "$iter" \
                --no-output --csv ${dev[@]+"${dev[@]}"} "$@")
    printf 'sweep: %-8s %-22s %-4s ... ' "$suite" "$name" "$label" >&2
    local t0 t1 rc secs
    t0=$(date +%s.%N)
    ${tmo[@]+"${tmo[@]}"} "$bin" "${args[@]}" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    t1=$(date +%s.%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    { echo "\$ $bin ${args[*]}"; echo "exit $rc after ${secs}s"; cat "$tmp/err"; } >> "$clog"
    if grep -q '^algorithm,' "$tmp/out"; then
        if [ $case_header = 0 ]; then
            echo "suite,case,binary,sL,sT,tL,tT,border,$(grep -m1 '^algorithm,' "$tmp/out")" >> "$ccsv"
            case_header=1
        fi
        grep -v '^algorithm,' "$tmp/out" | grep . |
            sed "s/^/$suite,$name,$label,$sl,$st,$tl,$tt,${border%%=*},/" >> "$ccsv"
        case_records=$((case_records + 1))
    fi
    case $rc in
        0) echo "ok (${secs}s)" >&2 ;;
        *) echo "# error: $suite $name $label: exit $rc: $(grep -m1 . "$tmp/err" | cut -c1-200)" >> "$ccsv"
           echo "FAILED (exit $rc)" >&2 ;;
    esac
}

# both SUITE CASE SL ST TL TT BORDER ARGS...: this tree's tiledconv, then --old's.
both() {
    local suite=$1 name=$2
    shift 2
    run_case "$suite" "$name" new ./tiledconv "$@"
    [ -n "$old_bin" ] && run_case "$suite" "$name" old "$old_bin" "$@"
}

run_cases() {
    local cw=${case_size%x*} ch=${case_size#*x}
    printf '# date=%s host=%s tiledconv="%s" old="%s" iterations=%s device_args="%s" case_size=%s\n' \
        "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(hostname 2>/dev/null || uname -n)" \
        "$(./tiledconv --version 2>/dev/null)" "${old_bin:-none}" "$iter" "$dev_args" \
        "$case_size" > "$ccsv"
    : > "$clog"
    if has_suite align; then
        for f in 3 5; do
            for a in 0 1 2 3; do
                for b in 0 1 2 3; do
                    both align "s$a-t$b-f$f" $((4 + a)) 7 $((8 + b)) 1 replicate \
                        -g "$case_size" -f $f -W $((cw - 192)) -H $((ch - 92))
                done
            done
        done
    fi
    if has_suite borders; then
        for f in 3 5; do
            for b in replicate constant=7 reflect101 reflect wrap; do
                both borders "${b%%=*}-f$f" 0 0 0 0 "$b" -g "$case_size" -f $f
            done
        done
    fi
    if has_suite lengths; then
        for f in $lengths; do
            both lengths "f$f" 0 0 0 0 replicate -g "$case_size" -f $f
        done
    fi
    if has_suite colour; then
        for f in 3 5; do
            run_case colour "f$f" new ./tiledconv 0 0 0 0 replicate -g "$case_size" -f $f --color
        done
    fi
    if has_suite small; then
        for g in $small_sizes; do
            for f in 3 5; do
                both small "${g}-f$f" 0 0 0 0 replicate -g "${g}x$g" -f $f
            done
        done
    fi
    if has_suite verify; then
        for f in 3 5; do
            run_case verify "align-roi-f$f" new ./tiledconv 5 7 3 1 replicate -g "$case_size" \
                -f $f -W $((cw - 192)) -H $((ch - 92)) -e
        done
        local kw=${check_size%x*} kh=${check_size#*x}
        for f in $lengths; do
            run_case verify "${kw}-f$f" new ./tiledconv 6 3 1 9 reflect101 -g "$check_size" \
                -f $f -W $((kw - 18)) -H $((kh - 48)) -e
        done
    fi
    echo "bench/sweep.sh: $case_records runs in $ccsv (log: $clog)" >&2
    [ $case_records -gt 0 ] || return 1
    "$here/plot.sh" --cases-script "$ccsv" "$outdir" > "$outdir/cases.gp"
    if command -v gnuplot >/dev/null 2>&1; then
        (cd "$outdir" && gnuplot cases.gp) && echo "bench/sweep.sh: wrote the case plots in $outdir" >&2
    else
        echo "bench/sweep.sh: no gnuplot here; draw later with: gnuplot $outdir/cases.gp" \
             "(or bench/plot.sh --cases $ccsv OUTDIR)" >&2
    fi
    return 0
}

status=1
if has_suite sizes; then run_sizes && status=0; fi
case ",$suites," in
    *,align,*|*,borders,*|*,lengths,*|*,colour,*|*,small,*|*,verify,*) run_cases && status=0 ;;
esac
exit $status
