#!/bin/sh
# bench/pinned-batch.sh - a JPEG photo batch with its pixels in the device's page-locked memory
# (the default) against the same batch with --tune host-pinned=0 (every transfer through the
# pinned staging and the copy crew), gray and colour, each way ROUNDS times in turn, and the
# codec floor (--no-filter) beside them. Run from the repository root:
#
#   sh bench/with-codecs.sh sh bench/pinned-batch.sh OUTDIR            (GPU machine: 1000 photos
#                                                                       of 1920x1080, 3 rounds)
#   sh bench/pinned-batch.sh OUTDIR 40 640x360 1                        (a small run, e.g. PoCL)
#
# The photos are bench/make_photos.py's (numpy); without numpy, copies of one synthetic photo
# of the tool's (-g).
# Arguments: OUTDIR, then COUNT (1000), SIZE (1920x1080), ROUNDS (3). OUTDIR gets the photos
# (photos/), each run's -t report (raw/MODE-WAY-ROUND.txt) and table.txt, printed too: per
# mode and way the median over the rounds of the wall seconds, the lanes' ms per image and
# busy share, and upload and download ms per image (the transfers' spans as -t reports them).
# What to read: the lanes' ms per image, default against host-pinned=0 (the direct way should
# drop the staging copies: on an H100 about 1.3 -> about 0.3 ms a gray 1080p image), and the
# wall seconds against the codec floor.
set -u
out=${1:?usage: sh bench/pinned-batch.sh OUTDIR [COUNT] [SIZE] [ROUNDS]}
count=${2:-1000}
size=${3:-1920x1080}
rounds=${4:-3}
bin=./tiledconv
mkdir -p "$out/raw" || exit 1
[ -x "$bin" ] || make -s -j"$(nproc)" tiledconv >"$out/build.log" 2>&1 || {
    echo "build failed (see $out/build.log)"
    exit 1
}
photos=$out/photos
if [ "$(ls "$photos" 2>/dev/null | wc -l)" -ne "$count" ]; then
    rm -rf "$photos"
    # Without numpy (make_photos.py's need): copies of the tool's own synthetic photo.
    python3 bench/make_photos.py --out "$photos" --count "$count" --size "$size" \
        --format jpeg --quality 90 >"$out/photos.log" 2>&1 || {
        rm -rf "$photos" && mkdir -p "$photos" &&
            "$bin" -q --color -g "$size" -o "$photos/synthetic.jpg" &&
            for i in $(seq 2 "$count"); do cp "$photos/synthetic.jpg" "$photos/copy$i.jpg"; done
    } || {
        echo "the photos could not be made (see $out/photos.log)"
        exit 1
    }
fi
{
    "$bin" -l 2>&1
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv 2>/dev/null
    nproc
    date -u
} >"$out/machine.txt"

# run MODE WAY ROUND: one batch (MODE gray or colour; WAY direct, staged or floor).
run() {
    colour=""
    [ "$1" = colour ] && colour=--color
    case $2 in
    direct) extra="" ;;
    staged) extra="--tune host-pinned=0" ;;
    floor) extra="--no-filter" ;;
    esac
    rm -rf "$out/o"
    # shellcheck disable=SC2086 # the words of $colour and $extra are options
    "$bin" -t $colour $extra -f 5 --format jpeg -O "$out/o" "$photos"/*.jpg \
        >"$out/raw/$1-$2-$3.txt" 2>&1 || echo "$1 $2 round $3: exit $?" >>"$out/failures.txt"
}

for r in $(seq 1 "$rounds"); do
    for mode in gray colour; do
        for way in direct staged floor; do
            run "$mode" "$way" "$r"
        done
    done
done
rm -rf "$out/o"

# The figures of one report: wall s, lanes ms per image and busy %, upload and download ms per
# image ("-" where the report has no such line).
figures() {
    awk '
        /^batch: / { for (i = 1; i < NF; i++) if ($i == "in" && $(i+2) ~ /^s,?$/) wall = $(i+1) }
        $1 == "lanes" { lane = $3; busy = $5 }
        $1 == "upload" { up = $3 }
        $1 == "download" { down = $3 }
        END { printf "%s %s %s %s %s\n", wall == "" ? "-" : wall, lane == "" ? "-" : lane,
                     busy == "" ? "-" : busy, up == "" ? "-" : up, down == "" ? "-" : down }
    ' "$1"
}

# The median of the numbers on stdin ("-" when there are none).
median() {
    sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2];
                                        else printf "%.4g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

{
    echo "$count JPEG photos of $size, -f 5, rounds: $rounds (medians); $(sed -n 1p "$out/machine.txt")"
    printf '%-7s %-8s %9s %14s %10s %12s %14s\n' mode way "wall s" "lane ms/image" "lane busy" \
        "upload ms/im" "download ms/im"
    for mode in gray colour; do
        for way in direct staged floor; do
            rm -f "$out/f.txt"
            for r in $(seq 1 "$rounds"); do
                figures "$out/raw/$mode-$way-$r.txt" >>"$out/f.txt"
            done
            col() { awk -v c="$1" '$c != "-" { v = $c; sub("%", "", v); print v }' "$out/f.txt" | median; }
            printf '%-7s %-8s %9s %14s %9s%% %12s %14s\n' "$mode" "$way" "$(col 1)" "$(col 2)" \
                "$(col 3)" "$(col 4)" "$(col 5)"
        done
    done
    [ -s "$out/failures.txt" ] && { echo "failures:"; cat "$out/failures.txt"; }
} | tee "$out/table.txt"
rm -f "$out/f.txt"
