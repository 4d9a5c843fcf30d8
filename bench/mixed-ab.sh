#!/bin/bash
# bench/mixed-ab.sh - the mixed folder (bench/make_mixed.py: 1,060 pictures of ten kinds, 0.3 to
# 12 megapixels) written as JPEG, colour and gray, by this tree's tiledconv and by another build
# (BASELINE, e.g. the commit before a change), interleaved, beside the OpenCV script on colour.
#
#   BASELINE=/tmp/old/tiledconv bench/mixed-ab.sh OUTDIR [TRIES [PEERS]]     (TRIES 3)
#   DEBS=$PWD/.carry/debs BASELINE=.carry/old/tiledconv \
#       sh bench/with-codecs.sh bench/mixed-ab.sh "$OUT/mixed" 3 .peers     (the GPU machine)
#
# Environment: WORK (default /tmp/tc-mixed; its in/ is made when missing), DEVICE (default
# "--device gpu"), PYTHON (default python3: numpy for make_mixed.py, OpenCV for the peer; the
# JPEGs are written by cjpeg). Each run after a `sync` and a second's rest. Writes OUTDIR/mixed.txt
# (one line a run: seconds, exit status, outputs) and OUTDIR/mixed.log (every run's -t report).
set -u
out=${1:?usage: BASELINE=PATH bench/mixed-ab.sh OUTDIR [TRIES [PEERS]]}
tries=${2:-3}
peers=${3:-.peers}
work=${WORK:-/tmp/tc-mixed}
device=${DEVICE:---device gpu}
python=${PYTHON:-python3}
mkdir -p "$out"
if ! ls "$work/in" 2>/dev/null | grep -q .; then
    $python bench/make_mixed.py --out "$work/in" >"$out/mixed-make.txt" 2>&1 ||
        { echo "mixed-ab.sh: make_mixed.py failed (see $out/mixed-make.txt)" >&2; exit 1; }
fi
cat "$work"/in/* >/dev/null
run_m() { # NAME COMMAND...
    local name=$1 t0 t1 rc
    shift
    rm -rf "$work/out" && mkdir -p "$work/out"
    sync
    sleep 1
    t0=$(date +%s.%N)
    "$@" >"$work/run.txt" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    echo "mixed $name: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') s, exit $rc, $(ls "$work/out" | wc -l) outputs" | tee -a "$out/mixed.txt"
    { echo "== $name"; cat "$work/run.txt"; } >>"$out/mixed.log"
}
for t in $(seq 1 "$tries"); do
    for job in colour gray; do
        colour=""
        [ "$job" = colour ] && colour=--color
        # shellcheck disable=SC2086 # the flags are meant to split
        run_m "$job new try $t" ./tiledconv $device -f 5 $colour --format jpeg -t -O "$work/out" "$work"/in/*
        if [ -n "${BASELINE:-}" ]; then
            # shellcheck disable=SC2086
            run_m "$job baseline try $t" "$BASELINE" $device -f 5 $colour --format jpeg -t -O "$work/out" "$work"/in/*
        fi
    done
    if [ -f "$peers/opencv_job.py" ]; then
        run_m "colour opencv try $t" $python "$peers/opencv_job.py" "$work/in" "$work/out" --color --ext jpg --sync
    fi
done
rm -rf "$work/out" "$work/run.txt"
