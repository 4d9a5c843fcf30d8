#!/bin/sh
# bench/split/probe.sh OUTDIR - the two-pass probe (bench/split/README.md) beside the library's
# own kernels at the same lengths, one process each, on the first GPU.
#   sh bench/split/probe.sh OUTDIR        (from the repository root; SIZE, ITER, TAPS, DEVICE)
# Writes OUTDIR/probe.txt (split_probe's lines) and OUTDIR/library.csv (build/roofline's
# records), and prints both.
set -eu
out=${1:?usage: bench/split/probe.sh OUTDIR}
size=${SIZE:-8192}
iter=${ITER:-30}
taps=${TAPS:-17 31 47 63}
device=${DEVICE:-gpu} # build/roofline's device; split_probe takes the first GPU, else the first device
mkdir -p "$out" build
make -s lib
cc -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -DCL_TARGET_OPENCL_VERSION=120 -Iinclude -Isrc \
    bench/roofline.c build/lib/libtiledconv.a -lOpenCL -lm -lpthread -o build/roofline
cc -std=c11 -O2 bench/split/probe.c -lOpenCL -lm -o build/split_probe
# The library's kernel for each length: both axes, the rows alone (fy=1), the columns alone.
for f in $taps; do
    echo "label=f$f g=${size}x$size f=$f i=$iter"
    echo "label=f${f}x1 g=${size}x$size f=$f fy=1 i=$iter"
    echo "label=f1x$f g=${size}x$size f=1 fy=$f i=$iter"
done | build/roofline "$device" > "$out/library.csv"
{
    echo "peak 0"
    echo "peak 1"
    for f in $taps; do
        echo "windows $f 8 32"
        echo "staged $f 16 32 0"
        echo "staged $f 16 32 1"
        echo "staged $f 32 32 1"
        echo "staged $f 32 24 1"
        echo "fused $f 24 1"
    done
} | build/split_probe bench/split/split_probe.cl "$size" "$iter" > "$out/probe.txt"
cat "$out/probe.txt"
python3 - "$out/library.csv" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(f"library {r['label']:8} {r['variant']:8} {r['kernel']:18} median {float(r['kernel_ms_median']):.4f} ms, copy {float(r['copy_ms']):.4f} ms")
PY
