#!/bin/bash
# A folder of photos, file to file, whole processes: tiledconv against the OpenCV script a skilled
# user writes (PEERS/opencv_job.py, run exactly as it is), each program's codec floor, and a
# shell pipeline of libjpeg-turbo's own programs.
#
#   bench/e2e-peers.sh OUTDIR [PEERS]        (from the repository root; PEERS default .peers)
#   sh bench/with-codecs.sh bench/e2e-peers.sh OUTDIR .peers     (the GPU machine)
#
# Environment: PHOTOS (default 1000) photos of PHOTO_SIZE (default 1920x1080) made once by
# bench/make_photos.py from the bundled images, as 24-bit BMP and as JPEG quality 90, in WORK
# (default /tmp/tc-peers);
# TRIES (default 3: five tries of every row take about 9 minutes on the 16-core H100 machine,
# three about 6) whole runs of each contender, interleaved so that the disk's drift hits all
# alike; ROWS (default all nine: a list such as "5 6 7" splits the run over two calls, the
# photos being kept in WORK); DEVICE (default "--device gpu"); PYTHON (default python3, with
# numpy; OpenCV for the peer); STARTUP_RUNS (default 7: bench/startup's whole processes each).
# For a CPU test (bench/run --smoke peers):
#   PHOTOS=6 PHOTO_SIZE=320x240 TRIES=1 STARTUP_RUNS=1 DEVICE="--device cpu" bench/e2e-peers.sh out
#
# Rows (5-tap binomial unless said; 8 bits in and out; "synced": every output fsynced and the
# folder once, as the peer's --sync):
#   1 gray BMP --no-sync     2 gray BMP synced      3 colour BMP --no-sync   4 colour BMP synced
#   5 colour JPEG -> JPEG q95 synced                6 gray JPEG -> JPEG synced
#   7 gray JPEG -> JPEG --no-sync                   8 31-tap gauss, colour BMP --no-sync
#   9 31-tap gauss, colour JPEG synced
# Contenders per row: tiledconv (all cores); tiledconv --no-filter (its codec floor: the same
# files without a device, a worker on every core; rows 8 and 9 share rows 3's and 5's); the
# same with --threads N, N the workers of the device run (its -t line: it leaves a core to its
# lane on 8 cores or more), the floor of the same pool; the peer; the peer's
# --floor (the same without the filter); on the JPEG rows the shell pipeline djpeg [-grayscale]
# | cjpeg -quality 95 over xargs -P (cores) workers, not synced ("n/a" where djpeg or cjpeg is
# missing); on rows 1, 3, 6 and 7 also tiledconv with the library's copy crew (--tune
# copy-threads=N, N half the cores, 2..8, always: by default a batch keeps its copies on the
# lane's thread where the workers' codecs bound the rate), for comparing.
# BASELINE=PATH (a tiledconv built from another tree, e.g. the commit before a change) adds it
# as a contender on every row, the same command as tiledconv's, so that a change is measured
# against what it changes in one run, interleaved (the lines after the table).
# Before the tries, each row's tiledconv command runs once untimed (its line in the log): the
# programs a machine builds on its first run come from the cache after, as for any user.
#
# Writes OUTDIR/e2e-peers.log (every command and what it printed), OUTDIR/e2e-peers.csv (one
# line a run: row, contender, try, wall seconds, the batch's own clock for tiledconv, output
# bytes, exit status, and from tiledconv's -t the process's age when the batch started and at
# its last line) and OUTDIR/e2e-peers.md (the table printed at the end: min, median and max of
# each contender, the ratios, the output bytes, and the whole process's time beyond the batch's
# clock split into before it and the exit), then runs bench/startup (the start-up and the end
# against a bare OpenCL program) into OUTDIR/startup.txt.
set -u
out=${1:?usage: bench/e2e-peers.sh OUTDIR [PEERS]}
peers=${2:-.peers}
photos=${PHOTOS:-1000}
photo_size=${PHOTO_SIZE:-1920x1080}
tries=${TRIES:-3}
rows=${ROWS:-1 2 3 4 5 6 7 8 9}
device=${DEVICE:---device gpu}
work=${WORK:-/tmp/tc-peers}
pool="" # the device run's workers, read from its first run
python=${PYTHON:-python3}
cores=$(nproc)
crew=$((cores / 2)); [ "$crew" -gt 8 ] && crew=8; [ "$crew" -lt 2 ] && crew=2
root=$(pwd)
bin=$root/tiledconv
mkdir -p "$out" "$work"
if [ -n "${BASELINE:-}" ] && [ ! -x "$BASELINE" ]; then
    echo "e2e-peers.sh: BASELINE=$BASELINE is not an executable" >&2
    exit 2
fi
# bench/with-codecs.sh unpacks carried Debian packages into /tmp/codecs: djpeg and cjpeg too
# when libjpeg-turbo-progs (and libjpeg62-turbo) are among them.
[ -d /tmp/codecs/usr/bin ] && PATH=$PATH:/tmp/codecs/usr/bin
log=$out/e2e-peers.log
csv=$out/e2e-peers.csv
: >"$log"
echo "row,contender,try,seconds,batch_seconds,bytes,status,before_ms,age_ms" >"$csv"

say() { echo "$*" | tee -a "$log"; }

say "date: $(date -u '+%Y-%m-%d %H:%M UTC'); host: $(hostname); cores: $cores; photos: $photos; tries: $tries; device: $device"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /' | tee -a "$log"
df -h "$work" | tail -1 | sed 's/^/disk: /' | tee -a "$log"
make -s -j"$cores" tiledconv >>"$log" 2>&1 || { say "make failed"; exit 1; }

# --- the photos, made once ---------------------------------------------------------------------
# Photos made for another count or size are made again (the size is kept beside them).
have() {
    [ -d "$1" ] && [ "$(find "$1" -type f | wc -l)" -eq "$photos" ] &&
        [ "$(cat "$work/photo-size" 2>/dev/null)" = "$photo_size" ]
}
if ! have "$work/bmp" || ! have "$work/jpg"; then
    say "making $photos photos of $photo_size, BMP and JPEG q90"
    rm -rf "$work/bmp" "$work/jpg"
    echo "$photo_size" >"$work/photo-size"
    $python bench/make_photos.py --out "$work/bmp" --count "$photos" --size "$photo_size" >>"$log" 2>&1 &&
        $python bench/make_photos.py --out "$work/jpg" --count "$photos" --size "$photo_size" \
            --format jpeg --quality 90 >>"$log" 2>&1 || { say "make_photos.py failed (see the log)"; exit 1; }
fi
say "photos: $(du -sh "$work/bmp" | cut -f1) BMP, $(du -sh "$work/jpg" | cut -f1) JPEG"

# What can run here.
peer_ok=0
if [ -f "$peers/opencv_job.py" ] && $python -c "import cv2" 2>/dev/null; then peer_ok=1; else
    say "peer: n/a ($peers/opencv_job.py or OpenCV missing)"; fi
shell_ok=0
if command -v djpeg >/dev/null && command -v cjpeg >/dev/null; then shell_ok=1; else
    say "shell pipeline: n/a (djpeg or cjpeg missing)"; fi

# --- the contenders ------------------------------------------------------------------------------
# cmd ROW CONTENDER: the command line (with $o the output folder), or nothing when it cannot run.
cmd() {
    local row=$1 who=$2 src colour="" sync="" taps="-f 5" ext=bmp gray=--gray pflags=""
    case $row in
        1) src=bmp; sync=--no-sync ;;
        2) src=bmp ;;
        3) src=bmp; colour=--color; sync=--no-sync ;;
        4) src=bmp; colour=--color ;;
        5) src=jpg; colour=--color ;;
        6) src=jpg ;;
        7) src=jpg; sync=--no-sync ;;
        8) src=bmp; colour=--color; sync=--no-sync; taps="--filter gauss -f 31" ;;
        9) src=jpg; colour=--color; taps="--filter gauss -f 31" ;;
    esac
    [ "$src" = jpg ] && ext=jpg
    [ -n "$colour" ] && gray=--color
    [ -z "$sync" ] && pflags=--sync
    [ "$taps" != "-f 5" ] && pflags="$pflags --taps 31"
    case $who in
        tiledconv) echo "$bin $device $taps $colour $sync -t -O \$o $work/$src/*" ;;
        tiledconv-base) echo "$BASELINE $device $taps $colour $sync -t -O \$o $work/$src/*" ;;
        tiledconv-crew) echo "$bin $device $taps $colour $sync --tune copy-threads=$crew -t -O \$o $work/$src/*" ;;
        tiledconv-floor) echo "$bin --no-filter $colour $sync -t -O \$o $work/$src/*" ;;
        tiledconv-pool-floor)
            [ -n "$pool" ] && echo "$bin --no-filter --threads $pool $colour $sync -t -O \$o $work/$src/*" ;;
        peer) [ "$peer_ok" = 1 ] && echo "$python $peers/opencv_job.py $work/$src \$o $gray --ext $ext $pflags" ;;
        peer-floor) [ "$peer_ok" = 1 ] && echo "$python $peers/opencv_job.py $work/$src \$o $gray --ext $ext $pflags --floor" ;;
        shell-floor)
            [ "$shell_ok" = 1 ] || return
            local dj=djpeg
            [ -z "$colour" ] && dj="djpeg -grayscale"
            echo "find $work/$src -type f -print0 | xargs -0 -P $cores -n 1 sh -c '$dj \"\$1\" | cjpeg -quality 95 >\"\$0/\${1##*/}\"' \$o" ;;
    esac
}

contenders() { # the contenders of ROW [TRY]; the baseline just before tiledconv on odd tries,
    # just after it on even ones (a GPU process that follows another starts 100-150 ms slower,
    # the driver still tearing the one before down: a fixed order would favour the first)
    local list
    case $1 in
        1) list="tiledconv tiledconv-crew tiledconv-floor tiledconv-pool-floor peer peer-floor" ;;
        2) list="tiledconv tiledconv-floor tiledconv-pool-floor peer peer-floor" ;;
        3) list="tiledconv tiledconv-crew tiledconv-floor tiledconv-pool-floor peer peer-floor" ;;
        4) list="tiledconv tiledconv-floor tiledconv-pool-floor peer peer-floor" ;;
        5) list="tiledconv tiledconv-floor tiledconv-pool-floor peer peer-floor shell-floor" ;;
        6 | 7) list="tiledconv tiledconv-crew tiledconv-floor tiledconv-pool-floor peer peer-floor shell-floor" ;;
        8 | 9) list="tiledconv peer" ;;
    esac
    if [ -n "${BASELINE:-}" ]; then
        if [ $((${2:-1} % 2)) -eq 1 ]; then
            list="tiledconv-base $list"
        else
            list="tiledconv tiledconv-base ${list#tiledconv }"
        fi
    fi
    echo "$list"
}

# timed ROW WHO TRY: one whole run into a fresh folder, its line in the CSV.
timed() {
    local row=$1 who=$2 try=$3 c o="$work/out" t0 t1 rc s clock bytes before age
    c=$(cmd "$row" "$who")
    if [ -z "$c" ]; then
        echo "$row,$who,$try,,,,n/a,," >>"$csv"
        return
    fi
    rm -rf "$o" && mkdir -p "$o"
    c=${c//\$o/$o}
    echo "== row $row, $who, try $try: $c" >>"$log"
    t0=$(date +%s.%N)
    bash -c "$c" >"$work/run.out" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    cat "$work/run.out" >>"$log"
    clock=$(sed -n 's/^batch: [0-9]* images in \([0-9.]*\) s.*/\1/p' "$work/run.out")
    before=$(sed -n 's/^  outside the batch.s clock: \([0-9.]*\) ms before it.*/\1/p' "$work/run.out")
    age=$(sed -n 's/^  process age at this line: \([0-9.]*\) ms.*/\1/p' "$work/run.out")
    bytes=$(du -sb "$o" | cut -f1)
    if [ "$rc" -eq 0 ] && [ "$(find "$o" -type f | wc -l)" -ne "$photos" ]; then
        rc=99 # a run that wrote fewer files than photos is no result
    fi
    echo "   exit $rc, $s s${clock:+, $clock s by the batch clock}" >>"$log"
    echo "$row,$who,$try,$s,$clock,$bytes,$rc,$before,$age" >>"$csv"
}

say "running $tries tries of rows $rows (see $log)"
cat "$work"/bmp/* "$work"/jpg/* >/dev/null # every contender reads from the page cache
# One untimed tiledconv run a row: its programs built, as after any first run.
for row in $rows; do
    for who in $(contenders "$row"); do
        case $who in tiledconv | tiledconv-base) timed "$row" "$who" warm-up ;; esac
    done
done
sed -i '/,warm-up,/d' "$csv"
# The device run's pool of workers (its -t line), for the floor on that same pool: a batch
# with a device leaves a core to each lane on machines of 8 cores or more, the --no-filter
# run has no lane and takes every core.
pool=$(sed -n 's/^  the pool of \([0-9]*\) workers.*/\1/p' "$log" | head -1)
say "the device run's pool: ${pool:-unknown} workers (cores: $cores)"
for try in $(seq 1 "$tries"); do
    for row in $rows; do
        for who in $(contenders "$row" "$try"); do
            timed "$row" "$who" "$try"
        done
    done
    say "   try $try of $tries done"
done
rm -rf "$work/out"

# --- the table -------------------------------------------------------------------------------------
$python - "$csv" "$out/e2e-peers.md" "$tries" <<'PY' | tee -a "$log"
import csv, statistics, sys
rows = {}
for r in csv.DictReader(open(sys.argv[1])):
    rows.setdefault(r["row"], {}).setdefault(r["contender"], []).append(r)
names = {"1": "gray BMP, --no-sync", "2": "gray BMP, synced", "3": "colour BMP, --no-sync",
         "4": "colour BMP, synced", "5": "colour JPEG -> JPEG q95, synced",
         "6": "gray JPEG -> JPEG, synced", "7": "gray JPEG -> JPEG, --no-sync",
         "8": "31-tap gauss, colour BMP, --no-sync", "9": "31-tap gauss, colour JPEG, synced"}
share = {"8": "3", "9": "5"}  # rows whose codec floors are another row's

def times(row, who):
    rs = [r for r in rows.get(row, {}).get(who, []) if r["status"] == "0" and r["seconds"]]
    return sorted(float(r["seconds"]) for r in rs)

def cell(ts):
    if not ts:
        return "n/a"
    return "%.2f / %.2f / %.2f" % (ts[0], statistics.median(ts), ts[-1])

def ratio(a, b):
    return "%.2fx" % (a / b) if a and b else "n/a"

def size(row, who):
    bs = [int(r["bytes"]) for r in rows.get(row, {}).get(who, []) if r["status"] == "0" and r["bytes"]]
    return "%.0f MB" % (bs[-1] / 1e6) if bs else "n/a"

lines = ["| row | tiledconv (min / median / max s) | its floor (--no-filter) "
         "| its floor, the same pool (--threads) | peer | peer --floor "
         "| djpeg \\| cjpeg | peer median / tiledconv median | peer min / tiledconv max "
         "| tiledconv median / its floor | the same, the same pool | output bytes: tiledconv, peer |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|"]
for row in sorted(names):
    tc, peer = times(row, "tiledconv"), times(row, "peer")
    floor = times(share.get(row, row), "tiledconv-floor")
    pool = times(share.get(row, row), "tiledconv-pool-floor")
    lines.append("| %s %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s, %s |" % (
        row, names[row], cell(tc), cell(floor), cell(pool), cell(peer),
        cell(times(share.get(row, row), "peer-floor")) if row not in share else "(row %s)" % share[row],
        cell(times(row, "shell-floor")),
        ratio(statistics.median(peer) if peer else 0, statistics.median(tc) if tc else 0),
        ratio(peer[0] if peer else 0, tc[-1] if tc else 0),
        ratio(statistics.median(tc) if tc else 0, statistics.median(floor) if floor else 0),
        ratio(statistics.median(tc) if tc else 0, statistics.median(pool) if pool else 0),
        size(row, "tiledconv"), size(row, "peer")))
for row in ("5", "6"):
    s = times(row, "tiledconv-crew")
    if s:
        lines.append("")
        lines.append("row %s with the copy crew (--tune copy-threads=half the cores, always): %s s (tiledconv: %s)"
                     % (row, cell(s), cell(times(row, "tiledconv"))))
for row in sorted(names):
    s, tc = times(row, "tiledconv-base"), times(row, "tiledconv")
    if s:
        lines.append("")
        lines.append("row %s, the baseline build (BASELINE): %s s (tiledconv: %s; baseline median / "
                     "tiledconv median %s)" % (row, cell(s), cell(tc), ratio(
                         statistics.median(s), statistics.median(tc) if tc else 0)))
gaps, befores, exits = [], [], []
for row in sorted(names):
    for r in rows.get(row, {}).get("tiledconv", []):
        if r["status"] == "0" and r["batch_seconds"]:
            gaps.append(float(r["seconds"]) - float(r["batch_seconds"]))
            if r.get("before_ms") and r.get("age_ms"):
                befores.append(float(r["before_ms"]) / 1e3)
                exits.append(float(r["seconds"]) - float(r["age_ms"]) / 1e3)

def mmm(v):
    return "min %.3f, median %.3f, max %.3f s" % (min(v), statistics.median(v), max(v))

if gaps:
    lines.append("")
    lines.append("whole process minus the batch's own clock (start-up before the batch, exit after): "
                 "%s over %d runs" % (mmm(gaps), len(gaps)))
if exits:
    lines.append("of which before the batch (the process's start, options, inputs; to 10 ms): %s; "
                 "the exit (the whole time less the process's age at its last -t line; the "
                 "measuring shell's fork and exec included): %s" % (mmm(befores), mmm(exits)))
lines.append("")
lines.append("%s tries each; ratios above 1 mean tiledconv is faster; n/a: not run here or failed (see the log)"
             % sys.argv[3])
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY

# --- the start-up against a bare OpenCL program ------------------------------------------------------
type=gpu
case $device in *cpu*) type=cpu ;; esac
if cc -O2 -Iinclude -o "$work/startup" bench/startup.c -lOpenCL >>"$log" 2>&1; then
    "$work/startup" src "$type" "$bin" "${STARTUP_RUNS:-7}" >"$out/startup.txt" 2>&1
    tee -a "$log" <"$out/startup.txt"
else
    say "bench/startup.c did not build (see the log)"
fi
