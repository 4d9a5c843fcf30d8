#!/bin/bash
# bench/jpeg-device-ab.sh - the JPEG rows of the batch with the CPU's codecs (--tune
# jpeg-device=0), with the device's transform stages (--tune jpeg-device=1), and with those on
# two queues of the device (dev2: -d 0,0, two lanes, where one lane bounds the run), beside the
# OpenCV script a skilled user writes (PEERS/opencv_job.py, run as it is), whole processes,
# interleaved; then whether every way wrote the same bytes.
#
#   bench/jpeg-device-ab.sh OUTDIR [TRIES [PEERS]]      (from the repository root; TRIES 3)
#   sh bench/with-codecs.sh bench/jpeg-device-ab.sh "$OUT/ab" 3 .peers     (the GPU machine)
#
# Environment: WORK (default /tmp/tc-peers), whose jpg/ holds the photos (made here when
# missing: PHOTOS, default 1000, of PHOTO_SIZE, default 1920x1080, JPEG quality 90, by
# bench/make_photos.py, as bench/e2e-peers.sh makes them); DEVICE (default "--device gpu");
# ROWS (default "5 6 9", numbered as in e2e-peers.sh: 5 colour JPEG -> JPEG q95 synced, 6 gray
# synced, 9 31-tap gauss colour synced); LANES2 (default 1; 0 leaves dev2 out); PYTHON (default python3, with OpenCV for the peer);
# SETTLE (default 1): seconds of rest before every run, after a `sync`, so that no run pays for
# the one before it (a GPU process that follows another started 100-300 ms slower on the H200).
# Writes OUTDIR/ab.csv (row, contender, try, seconds, exit status), OUTDIR/ab.log (every run's
# -t report) and OUTDIR/ab.md (min / median / max per row and contender, the ratios).
set -u
out=${1:?usage: bench/jpeg-device-ab.sh OUTDIR [TRIES [PEERS]]}
tries=${2:-3}
peers=${3:-.peers}
work=${WORK:-/tmp/tc-peers}
device=${DEVICE:---device gpu}
rows=${ROWS:-5 6 9}
python=${PYTHON:-python3}
settle=${SETTLE:-1}
bin=./tiledconv
mkdir -p "$out"
log=$out/ab.log
if ! ls "$work/jpg" 2>/dev/null | grep -q .; then
    $python bench/make_photos.py --out "$work/jpg" --count "${PHOTOS:-1000}" \
        --size "${PHOTO_SIZE:-1920x1080}" --format jpeg --quality 90 >>"$log" 2>&1 ||
        { echo "jpeg-device-ab.sh: make_photos.py failed (see $log)" >&2; exit 1; }
fi

command_of() { # ROW CONTENDER: the command line, the output folder being $o
    local colour="--color" taps="-f 5" gray=--color pflags=--sync
    case $1 in
        5) ;;
        6) colour=""; gray=--gray ;;
        9) taps="--filter gauss -f 31"; pflags="--sync --taps 31" ;;
        *) echo "jpeg-device-ab.sh: no row $1" >&2; exit 2 ;;
    esac
    case $2 in
        cpu) echo "$bin $device --tune jpeg-device=0 $taps $colour -t -O \$o $work/jpg/*" ;;
        dev) echo "$bin $device --tune jpeg-device=1 $taps $colour -t -O \$o $work/jpg/*" ;;
        dev2) echo "$bin -d 0,0 --tune jpeg-device=1 $taps $colour -t -O \$o $work/jpg/*" ;;
        opencv) echo "$python $peers/opencv_job.py $work/jpg \$o $gray --ext jpg $pflags" ;;
    esac
}

run_one() { # ROW CONTENDER TRY [KEEP]: times one whole process; KEEP names a folder to keep
    local o=$work/out t0 t1 rc s cmd
    rm -rf "$o" && mkdir -p "$o"
    cmd=$(command_of "$1" "$2") || exit 2
    t0=$(date +%s.%N)
    eval "$cmd" >"$out/run.txt" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    echo "$1,$2,$3,$s,$rc" >>"$out/ab.csv"
    { echo "== row $1 $2 try $3: $s s, exit $rc: $cmd"; cat "$out/run.txt"; } >>"$log"
    if [ -n "${4:-}" ]; then rm -rf "$4" && mv "$o" "$4"; fi
}

contenders="cpu dev"
[ "${LANES2:-1}" = 1 ] && contenders="$contenders dev2"
[ -f "$peers/opencv_job.py" ] && $python -c "import cv2" 2>/dev/null && contenders="$contenders opencv"
echo "row,name,try,seconds,status" >"$out/ab.csv"
cat "$work"/jpg/* >/dev/null
# Warm-up: each command once, untimed (the driver builds the programs on a machine's first
# run); the two tiledconv runs keep their outputs for the comparison of bytes below.
for row in $rows; do
    for c in $contenders; do
        keep=""
        case $c in cpu | dev | dev2) keep=$work/keep-$row-$c ;; esac
        run_one "$row" "$c" warm-up "$keep"
    done
done
n=$(echo $contenders | wc -w)
for t in $(seq 1 "$tries"); do
    for row in $rows; do
        for k in $(awk -v n="$n" -v seed="$t$row" 'BEGIN { srand(seed); for (i = 1; i <= n; i++) p[i] = i
                 for (i = n; i > 1; i--) { j = int(rand() * i) + 1; x = p[i]; p[i] = p[j]; p[j] = x }
                 for (i = 1; i <= n; i++) print p[i] }'); do
            c=$(echo $contenders | cut -d' ' -f"$k")
            sync
            sleep "$settle"
            run_one "$row" "$c" "$t"
        done
    done
done
rm -rf "$work/out" "$out/run.txt"
{
    for row in $rows; do
        a=$work/keep-$row-cpu
        for c in dev dev2; do
            b=$work/keep-$row-$c
            [ -d "$b" ] || continue
            files=$(ls "$a" | wc -l)
            differ=0
            for f in "$a"/*; do cmp -s "$f" "$b/${f##*/}" || differ=$((differ + 1)); done
            echo "row $row: $files outputs of jpeg-device=0, $(ls "$b" | wc -l) of $c; $differ differ"
        done
    done
} | tee "$out/bytes.txt"
$python - "$out/ab.csv" <<'PY' | tee "$out/ab.md"
import csv, statistics, sys
d = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r["try"] != "warm-up" and r["status"] == "0":
        d.setdefault((r["row"], r["name"]), []).append(float(r["seconds"]))
print("| row | contender | min | median | max | tries | opencv median / its median |")
print("|---|---|---|---|---|---|---|")
for (row, name), v in sorted(d.items()):
    v.sort()
    peer = d.get((row, "opencv"))
    ratio = "%.2fx" % (statistics.median(peer) / statistics.median(v)) if peer else ""
    print("| %s | %s | %.3f | %.3f | %.3f | %d | %s |" % (row, name, v[0], statistics.median(v), v[-1], len(v), ratio))
PY
