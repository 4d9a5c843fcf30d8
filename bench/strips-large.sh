#!/bin/sh
# bench/strips-large.sh OUTDIR [BINARY] - images filtered in strips at full size: the 261 KB PNG
# of 16384 x 16384 zeros that costs gigabytes whole, and a 16384 x 16384 picture of noise and
# ramps (-g's, written once as a PNG), each run whole and under --max-memory, gray and colour,
# with a ROI, a wrap border and each algorithm strips serve; the outputs compared byte for byte
# and the peak resident memory of every run measured (tests/measure.c). `make strips-large`
# runs it on the default device (PoCL here: about 10 minutes on 2 cores).
#
#   sh bench/strips-large.sh OUTDIR                        from the repository root
#   STRIPS_DEVICE="--device gpu" sh bench/strips-large.sh OUT      on the GPU machine
#   STRIPS_SIZE=4096 STRIPS_BUDGET=400M sh bench/strips-large.sh OUT      a short try
#
# Environment (defaults in brackets): STRIPS_SIZE, the square side [16384]; STRIPS_BUDGET,
# --max-memory [1G]; STRIPS_DEVICE, tiledconv's device flags [none: the default device];
# STRIPS_CASES, which cases ["zeros zeros-colour noise roi-tiled roi-twopass roi-onepass
# roi-image verify"].
#
# OUTDIR gets: table.txt (one line a case: the peak memory and wall time whole and in strips,
# the strips taken, whether the files are the same), strips.log (every command with its exit
# status, its report line and its stderr), device.txt (tiledconv -l); the images are removed
# as each case ends. The first line of table.txt states the budget; "limit" is 1.25 x it.
set -u
out=${1:?usage: sh bench/strips-large.sh OUTDIR [BINARY]}
bin=${2:-./tiledconv}
size=${STRIPS_SIZE:-16384}
budget=${STRIPS_BUDGET:-1G}
device=${STRIPS_DEVICE:-}
cases=${STRIPS_CASES:-zeros zeros-colour noise roi-tiled roi-twopass roi-onepass roi-image verify}
mkdir -p "$out" || exit 1
[ -x "$bin" ] || make -s tiledconv || exit 1
log=$out/strips.log
table=$out/table.txt
: >"$log"
"$bin" $device -l >"$out/device.txt" 2>&1
measure=$out/measure
${CC:-cc} -std=c11 -O1 -o "$measure" tests/measure.c || exit 1

budget_kb=$(echo "$budget" | awk '{
    n = $0 + 0; u = substr($0, length($0)); m = 1
    if (u == "K" || u == "k") m = 1; else if (u == "M" || u == "m") m = 1024
    else if (u == "G" || u == "g") m = 1024 * 1024; else m = 1 / 1024
    printf "%d", n * m }')
limit_kb=$((budget_kb * 5 / 4))
printf 'strips at %dx%d: --max-memory %s (%d KB); limit 1.25 x: %d KB\n' "$size" "$size" \
    "$budget" "$budget_kb" "$limit_kb" >"$table"
printf '%-14s %10s %8s %10s %8s %6s %s\n' case whole_KB whole_s strips_KB strips_s bands \
    result >>"$table"

# measured NAME ARGS...: one run under measure; $rss (KB), $secs, $status; the log gets it all.
measured() {
    name=$1
    shift
    # shellcheck disable=SC2086
    "$measure" -r "$out/report" -- "$bin" $device "$@" >"$out/run.out" 2>"$out/run.err"
    status=$?
    rss=$(sed 's/.*maxrss_kb=\([0-9]*\).*/\1/' "$out/report")
    ms=$(sed 's/.*wall_ms=\([0-9]*\).*/\1/' "$out/report")
    secs=$(awk -v m="$ms" 'BEGIN { printf "%.1f", m / 1000 }')
    { echo "== $name: tiledconv $device $*"; cat "$out/report"; cat "$out/run.err"; } >>"$log"
}

# compare CASE INPUT EXT ARGS...: whole, then in strips; a line of the table. With RAW=1 both
# runs write --raw too, compared as well. Both with -v (the strips run says its bands so): -v
# builds other programs (the class counters), and what a cold build keeps counts against the
# budget, so the whole run builds them first, as a user's earlier run would.
compare() {
    case_name=$1 input=$2 ext=$3
    shift 3
    rm -f "$out/whole.$ext" "$out/strips.$ext" "$out"/*.f32
    measured "$case_name whole" "$input" "$@" ${RAW:+--raw "$out/whole-raw.f32"} -v \
        -o "$out/whole.$ext"
    w_status=$status w_rss=$rss w_secs=$secs
    measured "$case_name strips" "$input" "$@" ${RAW:+--raw "$out/strips-raw.f32"} -v \
        --max-memory "$budget" -o "$out/strips.$ext"
    s_status=$status
    bands=$(sed -n 's/^strips: \([0-9]*\) band.*/\1/p' "$out/run.out")
    result=same
    if [ "$w_status" -ne 0 ] || [ "$s_status" -ne 0 ]; then
        result="exit $w_status whole, $s_status in strips"
    elif ! cmp -s "$out/whole.$ext" "$out/strips.$ext"; then
        result=DIFFERENT
    elif [ -e "$out/whole-raw.f32" ] && ! cmp -s "$out/whole-raw.f32" "$out/strips-raw.f32"; then
        result="raw DIFFERENT"
    fi
    [ "$rss" -le "$limit_kb" ] || result="$result, over the limit"
    grep -q '^PASSED' "$out/run.out" && result="$result, -e PASSED"
    printf '%-14s %10s %8s %10s %8s %6s %s\n' "$case_name" "$w_rss" "$w_secs" "$rss" "$secs" \
        "${bands:-0}" "$result" >>"$table"
    rm -f "$out/whole.$ext" "$out/strips.$ext" "$out"/*.f32
}

# The PNG of zeros: IHDR, one IDAT of zlib's best, IEND (about 261 KB at 16384 x 16384).
zeros=$out/zeros.png
python3 - "$size" "$zeros" <<'EOF'
import struct, sys, zlib
n, path = int(sys.argv[1]), sys.argv[2]
z = zlib.compressobj(9)
row = b"\0" * (n + 1)
data = b"".join(z.compress(row) for _ in range(n)) + z.flush()
def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + \
        struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff)
with open(path, "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", n, n, 8, 0, 0, 0, 0)) +
            chunk(b"IDAT", data) + chunk(b"IEND", b""))
EOF
noise=$out/noise.png
for c in $cases; do
    case "$c" in
        noise | roi-* | verify)
            [ -e "$noise" ] || "$bin" $device -g "${size}x$size" -c 0,1,0 -q -o "$noise" || exit 1
            ;;
    esac
done
roi="-sL 100 -sT 300 -tL 40 -tT 120 -W $((size - 200)) -H $((size - 400)) --border wrap -f 9"
for c in $cases; do
    case "$c" in
        zeros) compare zeros "$zeros" png ;;
        zeros-colour) compare zeros-colour "$zeros" png --color ;;
        noise) compare noise "$noise" png -f 5 --border reflect101 ;;
        # shellcheck disable=SC2086
        roi-tiled) compare roi-tiled "$noise" png $roi ;;
        # shellcheck disable=SC2086
        roi-twopass) compare roi-twopass "$noise" png $roi -a twopass ;;
        # shellcheck disable=SC2086
        roi-onepass) compare roi-onepass "$noise" png $roi -a onepass ;;
        # shellcheck disable=SC2086
        roi-image) compare roi-image "$noise" png $roi --storage image ;;
        verify) RAW=1 compare verify "$noise" pgm -f 7 --depth 16 -e ;;
    esac
done
rm -f "$zeros" "$noise"
cat "$table"
