#!/bin/bash
# bench/jpeg-baseline-ab.sh RESULTS - the JPEG photo rows (colour and gray, 5 taps, synced) with
# the CPU's codecs (--tune jpeg-device=0) and the device's transform stages (jpeg-device=1) of
# this tree and of another build (OLD), the device path on two queues (-d 0,0), and the OpenCV
# script (.carry/peers/opencv_job.py), whole processes: each once untimed, then 3 tries in an
# order of their own, every run after a sync and a second's rest; then every way's outputs
# against this tree's CPU path, byte for byte. Run inside bench/with-codecs.sh on the GPU
# machine, from the repository root, with the photos in /tmp/w/jpg (bench/make_photos.py):
#   OLD=.carry/old/tiledconv sh bench/with-codecs.sh bash bench/jpeg-baseline-ab.sh "$OUT/r"
# Environment: OLD (the other build's tiledconv), PY (default /opt/torch/.venv/bin/python3),
# DEV (default --device gpu). Writes RESULTS/times.csv, runs.log (every -t), table.md
# (min / median / max), bytes.txt, t-lines.txt.
R=$1
PY=${PY:-/opt/torch/.venv/bin/python3}
NEW=$PWD/tiledconv OLD=${OLD:-$PWD/.carry/old/tiledconv} J=/tmp/w/jpg O=/tmp/w/out DEV=${DEV:---device gpu}
cmd() { # LABEL: the command line
    case $1 in
    c-old0) echo "$OLD $DEV --tune jpeg-device=0 -f 5 --color -t -O $O $J/*" ;;
    c-old1) echo "$OLD $DEV --tune jpeg-device=1 -f 5 --color -t -O $O $J/*" ;;
    c-new0) echo "$NEW $DEV --tune jpeg-device=0 -f 5 --color -t -O $O $J/*" ;;
    c-new1) echo "$NEW $DEV --tune jpeg-device=1 -f 5 --color -t -O $O $J/*" ;;
    c-new1x2) echo "$NEW -d 0,0 --tune jpeg-device=1 -f 5 --color -t -O $O $J/*" ;;
    c-cv) echo "$PY .carry/peers/opencv_job.py $J $O --color --ext jpg --sync" ;;
    g-old0) echo "$OLD $DEV --tune jpeg-device=0 -f 5 -t -O $O $J/*" ;;
    g-old1) echo "$OLD $DEV --tune jpeg-device=1 -f 5 -t -O $O $J/*" ;;
    g-new0) echo "$NEW $DEV --tune jpeg-device=0 -f 5 -t -O $O $J/*" ;;
    g-new1) echo "$NEW $DEV --tune jpeg-device=1 -f 5 -t -O $O $J/*" ;;
    g-cv) echo "$PY .carry/peers/opencv_job.py $J $O --gray --ext jpg --sync" ;;
    esac
}
run() { # LABEL TRY
    rm -rf $O && mkdir -p $O
    sync; sleep 1
    local c t0 t1 rc s
    c=$(cmd "$1")
    t0=$(date +%s.%N); eval "$c" > /tmp/w/run.txt 2>&1; rc=$?; t1=$(date +%s.%N)
    s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    echo "$1,$2,$s,$rc" >> "$R/times.csv"
    { echo "== $1 try $2: $s s, rc $rc: $c"; cat /tmp/w/run.txt; } >> "$R/runs.log"
}
labels="c-old0 c-old1 c-new0 c-new1 c-new1x2 c-cv g-old0 g-old1 g-new0 g-new1 g-cv"
echo "label,try,seconds,rc" > "$R/times.csv"
cat $J/* > /dev/null
for l in $labels; do run "$l" warm; done
for t in 1 2 3; do
    for l in $(echo $labels | tr ' ' '\n' | shuf --random-source=<(yes $t)); do run "$l" "$t"; done
done
# The same bytes: each tiledconv way's outputs against the CPU path's of the new tree.
for row in c g; do
    rm -rf /tmp/w/ref && mkdir -p /tmp/w/ref
    eval "$(cmd $row-new0 | sed "s| -O $O | -O /tmp/w/ref |")" > /dev/null 2>&1
    for l in $row-old0 $row-old1 $row-new1 $([ $row = c ] && echo c-new1x2); do
        rm -rf $O && mkdir -p $O
        eval "$(cmd $l)" > /dev/null 2>&1
        d=0; for f in /tmp/w/ref/*; do cmp -s "$f" "$O/${f##*/}" || d=$((d + 1)); done
        echo "bytes $l against $row-new0: $(ls $O | wc -l) files, $d differ" >> "$R/bytes.txt"
    done
done
$PY - "$R/times.csv" <<'PY' > "$R/table.md"
import csv, statistics, sys
d = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r["try"] != "warm" and r["rc"] == "0":
        d.setdefault(r["label"], []).append(float(r["seconds"]))
for k, v in d.items():
    v.sort()
    print("%-9s %.3f / %.3f / %.3f  (%d)" % (k, v[0], statistics.median(v), v[-1], len(v)))
PY
cat "$R/table.md" "$R/bytes.txt"
grep -E '^== |CPU time by thread|busiest stage|lanes  |pool of' "$R/runs.log" | grep -v 'cv ' > "$R/t-lines.txt"
