#!/bin/bash
# bench/photo-ab.sh - several tiledconv command lines (builds, settings) side by side on the
# photo rows of bench/e2e-peers.sh, whole processes, interleaved: for a change measured
# against what it changes, beyond e2e-peers.sh's one BASELINE.
#
#   CONFIGS="NAME=COMMAND;NAME=COMMAND;..." bench/photo-ab.sh OUTDIR TRIES ROW...
#
# COMMAND is a tiledconv command line without the row's own options (which follow it; it is
# split into words, not evaluated: an environment variable goes as `env VAR=VALUE ./tiledconv`):
#   CONFIGS="base=/tmp/base/tiledconv --device gpu;new=./tiledconv --device gpu;\
#   floor=./tiledconv --no-filter" bench/photo-ab.sh /tmp/ab 5 7 5
# Rows as e2e-peers.sh numbers them: 3 colour BMP --no-sync, 5 colour JPEG synced, 6 gray JPEG
# synced, 7 gray JPEG --no-sync, 9 31-tap gauss colour JPEG synced. The photos are those
# e2e-peers.sh makes in WORK (default /tmp/tc-peers: bmp/ and jpg/). Each command runs once
# untimed per row first; each try draws its own order and settles the machine first (below). Writes OUTDIR/ab.csv (row, name, try, seconds, exit status) and
# OUTDIR/ab.log (every run's -t report) and prints min / median / max per row and name, and
# each name's median against the row's floor: the command named FLOOR, by default the first
# whose name begins with "floor" (a --no-filter run), if any.
set -u
out=${1:?usage: CONFIGS=... bench/photo-ab.sh OUTDIR TRIES ROW...}
tries=${2:?usage: CONFIGS=... bench/photo-ab.sh OUTDIR TRIES ROW...}
shift 2
[ $# -gt 0 ] || { echo "usage: CONFIGS=... bench/photo-ab.sh OUTDIR TRIES ROW..." >&2; exit 2; }
rows="$*"
work=${WORK:-/tmp/tc-peers}
python=${PYTHON:-python3}
mkdir -p "$out"
IFS=';' read -ra configs <<<"${CONFIGS:?CONFIGS=\"NAME=COMMAND;...\"}"

row_args() { # the row's options, then its folder
    case $1 in
        3) echo "-f 5 --color --no-sync $work/bmp" ;;
        5) echo "-f 5 --color $work/jpg" ;;
        6) echo "-f 5 $work/jpg" ;;
        7) echo "-f 5 --no-sync $work/jpg" ;;
        9) echo "--filter gauss -f 31 --color $work/jpg" ;;
        *) echo "photo-ab.sh: no row $1" >&2; exit 2 ;;
    esac
}

run_one() { # ROW NAME COMMAND TRY
    local a flags dir t0 t1 rc s
    a=$(row_args "$1") || exit 2
    flags=${a% *}
    dir=${a##* }
    rm -rf "$work/out" && mkdir -p "$work/out"
    t0=$(date +%s.%N)
    $3 $flags -t -O "$work/out" "$dir"/* >"$out/run.txt" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    echo "$1,$2,$4,$s,$rc" >>"$out/ab.csv"
    { echo "== row $1 $2 try $4: $s s, exit $rc"; cat "$out/run.txt"; } >>"$out/ab.log"
}

echo "row,name,try,seconds,status" >"$out/ab.csv"
: >"$out/ab.log"
cat "$work"/bmp/* "$work"/jpg/* >/dev/null 2>&1 # every command reads from the page cache
for row in $rows; do
    for c in "${configs[@]}"; do run_one "$row" "${c%%=*}" "${c#*=}" warm-up; done
done
# Each try runs the commands in an order of its own, drawn from the try's number (the same on
# every rerun), and each run starts on a settled machine: `sync` (the writeback of an unsynced
# row before it) and SETTLE seconds (default 1) for the driver to finish tearing down the GPU
# process before. Without them, a GPU process that follows another started 100-300 ms slower
# (seen on the H200), and a rotated order, which keeps who follows whom, gave one command the
# same predecessor in every try.
settle=${SETTLE:-1}
n=${#configs[@]}
for t in $(seq 1 "$tries"); do
    for row in $rows; do
        for k in $(awk -v n="$n" -v seed="$t" 'BEGIN { srand(seed); for (i = 0; i < n; i++) p[i] = i
                 for (i = n - 1; i > 0; i--) { j = int(rand() * (i + 1)); x = p[i]; p[i] = p[j]; p[j] = x }
                 for (i = 0; i < n; i++) print p[i] }'); do
            c=${configs[$k]}
            sync
            sleep "$settle"
            run_one "$row" "${c%%=*}" "${c#*=}" "$t"
        done
    done
done
rm -rf "$work/out" "$out/run.txt"
floor=${FLOOR:-}
for c in "${configs[@]}"; do
    case ${c%%=*} in floor*) [ -n "$floor" ] || floor=${c%%=*} ;; esac
done
"$python" - "$out/ab.csv" "$floor" <<'PY'
import csv, statistics, sys
d = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r["try"] != "warm-up" and r["status"] == "0":
        d.setdefault((r["row"], r["name"]), []).append(float(r["seconds"]))
# Each command's median against the row's floor (a --no-filter run), where there is one: how
# far the row stands from its codec floor.
floor = sys.argv[2]
floors = {row: statistics.median(v) for (row, name), v in d.items() if name == floor}
for (row, name), v in sorted(d.items()):
    v.sort()
    ratio = ("  %.2fx %s" % (statistics.median(v) / floors[row], floor)
             if row in floors and name != floor else "")
    print("row %s %-12s min %.3f  median %.3f  max %.3f s (%d tries)%s"
          % (row, name, v[0], statistics.median(v), v[-1], len(v), ratio))
PY
