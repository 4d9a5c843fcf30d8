#!/bin/sh
# The acceptance runs of issues 2 and 3 on the GPU machine, in one call:
#   -g 8192x8192 -e -t -i 20 with both filter lengths (tiled, verified against the CPU), and
#   -a all -g 8192x8192 -t -i 50 with both filter lengths (the three algorithms side by side).
# Usage (from the repository root): bench/gpu-acceptance.sh [OUTDIR]   (default: $OUT or .)
# Each command's output goes to OUTDIR/acceptance.log, preceded by the command itself.
set -u
out=${1:-${OUT:-.}}
log="$out/acceptance.log"
make -s tiledconv || exit 1
: > "$log"
run() {
    echo "\$ ./tiledconv $*" | tee -a "$log"
    ./tiledconv "$@" > "$out/.run.txt" 2>&1
    rc=$?
    tee -a "$log" < "$out/.run.txt"
    rm -f "$out/.run.txt"
    echo "exit status: $rc" | tee -a "$log"
    echo | tee -a "$log"
}
{ date -u '+date: %Y-%m-%d %H:%M UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader 2>/dev/null; } | tee -a "$log"
./tiledconv -l | tee -a "$log"
for taps in 3 5; do
    run --device gpu -g 8192x8192 -f "$taps" -e -t -i 20 --no-output
done
for taps in 3 5; do
    run --device gpu -a all -g 8192x8192 -f "$taps" -t -i 50 --no-output
done
# The article's example on a bundled image, on the GPU.
run --device gpu -s images/TiledConv_Input512x512.bmp -e -t -i 10 -sL 3 -sT 3 -tL 2 -tT 2 -v -o "$out/TiledConv_Output.bmp"
