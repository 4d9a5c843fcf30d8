#!/usr/bin/env bash
# bench/issue15-final.sh - issue 15's final measurement on the GPU machine, in one call of
# about two minutes: the kernels' defaults through bench/casebench.c (8192 x 8192, median of
# 30, the copy measured after each case; a few cases checked against the CPU reference on
# smaller images), then bench/peers.py for 15, 31 and 63 taps and the 3 x 3 and 5 x 5 masks,
# all in the same run. Run from the repository root (bench/with-codecs.sh in front where the
# codec libraries are missing):
#
#   bench/issue15-final.sh OUTDIR
#
# OUTDIR gets gpu.txt, final.jsonl, peers.txt, peers.csv, final.log.
set -u
out=${1:?usage: bench/issue15-final.sh OUTDIR}
mkdir -p "$out" || exit 1
log=$out/final.log
: > "$log"
section() { echo "== $(date -u +%T) $*" | tee -a "$log"; }
{
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
        --format=csv 2>&1
    date -u
} > "$out/gpu.txt"

# OpenCV's wheel loads the ocl-icd loader, which finds only the ICDs listed in
# /etc/OpenCL/vendors; on the GPU machine that lists PoCL alone, so register NVIDIA's too, or
# OpenCV silently falls back to the CPU (as it did in issue 15's first call: bench/gpu-final.sh
# knew this).
icd=$(mktemp -d)
cp /etc/OpenCL/vendors/*.icd "$icd"/ 2>/dev/null
for lib in /usr/local/nvidia/lib64/libnvidia-opencl.so.1 /lib/x86_64-linux-gnu/libnvidia-opencl.so.1 /lib/libnvidia-opencl.so.1; do
    [ -e "$lib" ] && { echo "$lib" > "$icd/nvidia.icd"; break; }
done
export OCL_ICD_VENDORS="$icd" OPENCV_OPENCL_DEVICE=":GPU:0"

section build
timeout 70 make -s -j16 tiledconv lib >> "$log" 2>&1 || { echo "build failed" >&2; exit 1; }
cc -std=c11 -O2 -Iinclude bench/casebench.c build/lib/libtiledconv.a -lOpenCL -lm \
    -o /tmp/casebench >> "$log" 2>&1 || exit 1

section casebench
{
    for f in 3 5 15 17 31 47 63; do echo "label=f$f f=$f"; done
    echo "label=axis-63x1 f=63 fy=1"
    echo "label=axis-1x63 f=1 fy=63"
    for m in 3x3 5x5 7x7 15x15; do echo "label=mask-$m mask=$m"; done
    echo "label=mask-3x3-onepass mask=3x3 a=onepass"
    echo "label=mask-5x5-onepass mask=5x5 a=onepass"
    echo "label=check-long-63 g=700x600 roi=5,3,2,9,680,580 f=63 b=reflect101 e=1"
    echo "label=check-long-31 g=900x700 roi=1,2,3,4,880,690 f=31 b=wrap e=1"
    echo "label=check-mask-3x3 g=1200x900 roi=5,3,2,1,1190,890 mask=3x3 b=constant e=1"
    echo "label=check-mask-5x5 g=1200x900 roi=3,7,6,1,1190,890 mask=5x5 b=reflect e=1"
} | timeout 60 /tmp/casebench gpu > "$out/final.jsonl" 2>> "$log"
echo "exit $?" >> "$log"

section peers
PYTHONUNBUFFERED=1 timeout 120 python3 bench/peers.py --taps 15,31,63 --masks 3x3,5x5 -i 30 \
    --warmup 5 --out "$out/p" > "$out/peers.txt" 2>&1
echo "exit $?" >> "$log"
cp "$out/p/peers.csv" "$out/peers.csv" 2>/dev/null
rm -rf "$out/p"
section done
python3 - "$out/final.jsonl" <<'PY' | tee -a "$log"
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "error" in r:
        print(f"{r['label']:24s} ERROR {r['error']}")
        continue
    print(f"{r['label']:24s} {r['kernel_ms_median']:9.4f} ms {100 * r['copy_fraction']:6.1f} % "
          f"{r.get('gfma_per_s', 0):8.1f} GFMA/s {100 * r.get('gfma_per_s', 0) / 33450:5.1f} % peak "
          f"{r['verified']}")
PY
grep -E '^(==|implementation|tiledconv|cupy|opencv|torch|note)' "$out/peers.txt" | tee -a "$log"
