#!/bin/bash
# File to file, whole processes, on the GPU machine: tiledconv's batch against the scripts
# people write (OpenCV on the CPU in a loop and in a pool of 16 threads, with and without an
# fsync per output; CuPy on the GPU), one tiledconv per file, the disk's own floor for synced
# files, one 8192 x 8192 BMP, and where the start-up goes. Every time is a whole process's
# wall time, start-up included.
#
#   bench/e2e.sh [-o OUTDIR] [-n COUNT] [-w WORKDIR] [--device "--device gpu"]
#
# Writes OUTDIR/e2e.log (every command and what it printed), OUTDIR/e2e.tsv (name, seconds,
# images, images/s) and OUTDIR/e2e.md (the table with the ratios). COUNT photos of PHOTO_SIZE
# (default 1000 of 1920x1080) are made in WORKDIR (default /tmp/tc-e2e: local disk) from the
# bundled images, all different. Environment: PHOTO_SIZE; BIG_SIZE, the single large BMP
# [8192x8192]; ROUNDS, the interleaved rounds [3]; PYTHON [python3]. Contenders that cannot
# run here (no OpenCV, no CuPy) are recorded as failed ("nan"). A CPU test (bench/run --smoke
# e2e): PHOTO_SIZE=320x240 BIG_SIZE=512x512 ROUNDS=1 bench/e2e.sh -n 6 --device "--device cpu"
set -u
out=${OUT:-bench-out}
count=1000
work=/tmp/tc-e2e
dev="--device gpu"
while [ $# -gt 0 ]; do
    case $1 in
        -o) out=$2; shift 2 ;;
        -n) count=$2; shift 2 ;;
        -w) work=$2; shift 2 ;;
        --device) dev=$2; shift 2 ;;
        *) echo "usage: $0 [-o OUTDIR] [-n COUNT] [-w WORKDIR] [--device ARGS]" >&2; exit 2 ;;
    esac
done
photo_size=${PHOTO_SIZE:-1920x1080}
big_size=${BIG_SIZE:-8192x8192}
rounds=${ROUNDS:-3}
python=${PYTHON:-python3}
mkdir -p "$out" "$work"
log=$out/e2e.log
tsv=$out/e2e.tsv
: >"$log"
printf 'name\tseconds\timages\timages_per_s\n' >"$tsv"
bin=$(pwd)/tiledconv
# The rows that close the contexts before the end need TILEDCONV_CLEAN_EXIT, which only a test
# build reads (make test-build).
test_bin=$(pwd)/build/test/tiledconv
if [ ! -x "$test_bin" ]; then
    echo "bench/e2e.sh: $test_bin is missing: run make test-build" >&2
    exit 2
fi
filter="--filter binomial -f 5"
per_file=200
[ "$count" -lt "$per_file" ] && per_file=$count

say() { echo "$*" | tee -a "$log"; }

# timed NAME IMAGES CMD...: runs CMD in a shell, appends its wall time to the TSV.
timed() {
    name=$1 images=$2
    shift 2
    say "== $name: $*"
    t0=$(date +%s.%N)
    bash -c "$*" >>"$log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
    rate=$(awk -v n="$images" -v s="$s" 'BEGIN { printf "%.6f", n / s }')
    if [ "$rc" -ne 0 ]; then
        # A failed run has no rate: it is recorded as such, never as a fast one.
        printf '%s\tnan\t%d\tnan\n' "$name" "$images" >>"$tsv"
        say "   FAILED: exit $rc after $(printf '%.3f' "$s") s"
        return
    fi
    printf '%s\t%.3f\t%d\t%.1f\n' "$name" "$s" "$images" "$rate" >>"$tsv"
    say "   exit $rc, $(printf '%.3f' "$s") s, $(printf '%.1f' "$rate") images/s"
}

fresh() { rm -rf "$1" && mkdir -p "$1"; }

say "date: $(date -u '+%Y-%m-%d %H:%M UTC'); host: $(hostname); cores: $(nproc)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /' | tee -a "$log"
df -h "$work" | tail -1 | sed 's/^/disk: /' | tee -a "$log"
make -s tiledconv >>"$log" 2>&1 || { say "make failed"; exit 1; }
cc -O2 -Iinclude -o "$work/startup" bench/startup.c -lOpenCL >>"$log" 2>&1
type=gpu
case $dev in *cpu*) type=cpu ;; esac

# --- inputs -------------------------------------------------------------------------------------
say "making $count photos of $photo_size and one of $big_size"
rm -rf "$work/photos" "$work/big" "$work/tiny"
$python bench/make_photos.py --out "$work/photos" --count "$count" --size "$photo_size" >>"$log" 2>&1
$python bench/make_photos.py --out "$work/big" --count 1 --size "$big_size" --name big >>"$log" 2>&1
$python bench/make_photos.py --out "$work/tiny" --count 1 --size 16x16 --name tiny >>"$log" 2>&1
find "$work/photos" -name '*.bmp' | sort >"$work/list"
head -n "$per_file" "$work/list" >"$work/list200"
du -sh "$work/photos" | tee -a "$log"
cat "$work"/photos/*.bmp "$work/big/big.bmp" >/dev/null # every contender reads from the page cache

# --- start-up -----------------------------------------------------------------------------------
say "== start-up, step by step"
"$work/startup" src "$type" 2>&1 | tee -a "$log"
tiny=$work/tiny/tiny.bmp
for i in 1 2 3; do
    timed "tiledconv, a 16 x 16 image (start-up alone), run $i" 1 "$bin $dev -q -s $tiny -o $work/tiny-out.bmp"
done
for i in 1 2; do # the same with the contexts closed before the end (TILEDCONV_CLEAN_EXIT)
    timed "tiledconv, a 16 x 16 image, contexts closed at the end, run $i" 1 "TILEDCONV_CLEAN_EXIT=1 $test_bin $dev -q -s $tiny -o $work/tiny-out.bmp"
done

# --- the disk's floor, tiledconv and the peers, three rounds interleaved --------------------------
# The disk's speed drifts from minute to minute: each round runs every contender once, and the
# table takes each one's median over the rounds.
pw=${photo_size%x*} ph=${photo_size#*x}
gray_size=$((54 + 1024 + (pw + 3) / 4 * 4 * ph))
colour_size=$((54 + (pw * 3 + 3) / 4 * 4 * ph))
o=$work/out
rm -rf "$work/tc-gray" "$work/cv-gray"
for round in $(seq 1 "$rounds"); do
    say "== round $round"
    say "== disk floor, gray-sized files"
    $python bench/disk_floor.py --out "$work" --count "$count" --size "$gray_size" --threads 32 2>&1 | tee -a "$log" |
        awk -v r="$round" -v n="$count" '/best/ { printf "disk floor, %d gray-sized files, 32 threads (round %d)\t%s\t%d\t%s\n", n, r, $4, n, $6 }' >>"$tsv"
    say "== disk floor, colour-sized files"
    $python bench/disk_floor.py --out "$work" --count "$count" --size "$colour_size" --threads 32 2>&1 | tee -a "$log" |
        awk -v r="$round" -v n="$count" '/best/ { printf "disk floor, %d colour-sized files, 32 threads (round %d)\t%s\t%d\t%s\n", n, r, $4, n, $6 }' >>"$tsv"
    fresh "$o"; timed "tiledconv batch, gray, synced (round $round)" "$count" "$bin $dev $filter -t -O $o --files-from $work/list"
    [ "$round" -eq 1 ] && cp -r "$o" "$work/tc-gray" 2>/dev/null
    fresh "$o"; timed "OpenCV 16 threads, gray, fsync each (round $round)" "$count" "$python bench/opencv_batch.py --threads 16 --fsync --list $work/list --out $o"
    fresh "$o"; timed "tiledconv batch, gray, --no-sync (round $round)" "$count" "$bin $dev $filter -t --no-sync -O $o --files-from $work/list"
    fresh "$o"; timed "OpenCV 16 threads, gray (round $round)" "$count" "$python bench/opencv_batch.py --threads 16 --list $work/list --out $o"
    [ "$round" -eq 1 ] && cp -r "$o" "$work/cv-gray" 2>/dev/null
    fresh "$o"; timed "tiledconv batch, colour, synced (round $round)" "$count" "$bin $dev $filter --color -t -O $o --files-from $work/list"
    fresh "$o"; timed "OpenCV 16 threads, colour, fsync each (round $round)" "$count" "$python bench/opencv_batch.py --threads 16 --color --fsync --list $work/list --out $o"
    fresh "$o"; timed "tiledconv batch, colour, --no-sync (round $round)" "$count" "$bin $dev $filter --color -t --no-sync -O $o --files-from $work/list"
    fresh "$o"; timed "OpenCV 16 threads, colour (round $round)" "$count" "$python bench/opencv_batch.py --threads 16 --color --list $work/list --out $o"
done
fresh "$o"; timed "tiledconv one process per file (xargs -P 16), gray, synced" "$per_file" \
    "xargs -P 16 -I{} sh -c '$bin $dev $filter -q -s {} -o $o/\$(basename {})' < $work/list200"
fresh "$o"; timed "OpenCV plain loop, gray" "$per_file" "$python bench/opencv_batch.py --list $work/list200 --out $o"
fresh "$o"; timed "CuPy 16 threads, gray, fsync each" "$count" "$python bench/cupy_batch.py --threads 16 --fsync --list $work/list --out $o"
fresh "$o"

# --- one large BMP (BIG_SIZE) -----------------------------------------------------------------------
for i in 1 2 3; do
    timed "tiledconv one $big_size BMP, gray, run $i" 1 "$bin $dev $filter -q -s $work/big/big.bmp -o $o/big.bmp"
    timed "tiledconv one $big_size BMP, colour, run $i" 1 "$bin $dev $filter --color -q -s $work/big/big.bmp -o $o/bigc.bmp"
done
timed "tiledconv one $big_size BMP, gray, -t" 1 "$bin $dev $filter -t -O $o $work/big/big.bmp"
timed "tiledconv one $big_size BMP, colour, -t" 1 "$bin $dev $filter --color -t -O $o $work/big/big.bmp"
for i in 1 2; do
    timed "tiledconv one $big_size BMP, gray, contexts closed at the end, run $i" 1 "TILEDCONV_CLEAN_EXIT=1 $test_bin $dev $filter -q -s $work/big/big.bmp -o $o/big.bmp"
done

# --- the kernel is unchanged ------------------------------------------------------------------------
say "== the kernel on $big_size, 5 taps"
"$bin" $dev -g "$big_size" -f 5 -t -i 30 --no-output | tee -a "$log"

# --- do the outputs agree? ----------------------------------------------------------------------------
say "== tiledconv against OpenCV's outputs (the same intensity, filter and rounding)"
$python - "$work/tc-gray" "$work/cv-gray" <<'PY' 2>&1 | tee -a "$log"
import os, sys
a, b = sys.argv[1], sys.argv[2]
try:
    import cv2, numpy as np
except ImportError:
    sys.exit("n/a: no OpenCV here")
if not (os.path.isdir(a) and os.path.isdir(b)):
    sys.exit("n/a: a contender's outputs are missing (see the log)")
names = sorted(os.listdir(a))[:50]
worst, differing = 0, 0
for n in names:
    x = cv2.imread(os.path.join(a, n), cv2.IMREAD_GRAYSCALE).astype(int)
    y = cv2.imread(os.path.join(b, n), cv2.IMREAD_GRAYSCALE).astype(int)
    d = np.abs(x - y)
    worst = max(worst, int(d.max()))
    differing += int((d > 0).sum())
print("compared %d outputs: largest difference %d, %d pixels differ (float32 sums in another "
      "order round differently at .5)" % (len(names), worst, differing))
PY

# --- the table ------------------------------------------------------------------------------------------
$python - "$tsv" <<'PY' | tee "$out/e2e.md" | tee -a "$log"
import csv, math, re, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
def median_of(name):
    """seconds, images: the median over the rounds (or the one run)."""
    runs = [r for r in rows if re.sub(r" \(round \d+\)$", "", r["name"]) == name
            and r["seconds"] != "nan"]
    if not runs:
        return float("nan"), 0, 0
    s = statistics.median(float(r["seconds"]) for r in runs)
    return s, int(runs[0]["images"]), len(runs)
print("| job | images/s (median) | seconds | runs | against |")
print("|---|---|---|---|---|")
pairs = [
    ("tiledconv batch, gray, synced", "OpenCV 16 threads, gray, fsync each",
     "disk floor, %s gray-sized files, 32 threads"),
    ("tiledconv batch, gray, --no-sync", "OpenCV 16 threads, gray", None),
    ("tiledconv batch, colour, synced", "OpenCV 16 threads, colour, fsync each",
     "disk floor, %s colour-sized files, 32 threads"),
    ("tiledconv batch, colour, --no-sync", "OpenCV 16 threads, colour", None),
]
n = rows[-1]["images"]
for a, b, floor in pairs:
    sa, na, ra = median_of(a)
    sb, nb, rb = median_of(b)
    note = "%.2fx %s (%.1f images/s)" % (sb / sa, b, nb / sb)
    if floor:
        fs, fn, fr = median_of(floor % (na,))
        note += "; the disk's floor %.3f s (%.0f files/s): %.2fx it" % (fs, fn / fs, sa / fs)
    print("| %s | %.1f | %.3f | %d | %s |" % (a, na / sa, sa, ra, note))
for name in ["tiledconv one process per file (xargs -P 16), gray, synced",
             "OpenCV plain loop, gray", "CuPy 16 threads, gray, fsync each"]:
    s, k, r = median_of(name)
    print("| %s | %.1f | %.3f | %d | |" % (name, k / s if s == s else float("nan"), s, r))
for r in rows:
    if " BMP, " in r["name"] or "16 x 16" in r["name"]:
        print("| %s | | %s | 1 | |" % (r["name"], r["seconds"]))
PY
say "done"
