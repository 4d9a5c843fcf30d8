#!/bin/sh
# Everything BENCHMARKS.md reports, in one call on the GPU machine (device time is scarce):
#   1. the acceptance runs (bench/gpu-acceptance.sh): -e at 8192 x 8192, -a all tables;
#   2. the tuning table of the tiled kernel's block sizes at 8192^2 and 16384^2 (bench/tune.sh);
#   3. the sweep over sizes, algorithms and filter lengths, with its CSV (bench/sweep.sh);
#   4. the peers (CuPy, OpenCV's OpenCL path, PyTorch) beside tiledconv (bench/peers.py), at
#      8192^2 and 16384^2, and at 512^2 and 1024^2 where launches dominate.
# Usage, from the repository root: bench/gpu-final.sh [OUTDIR]   (default $OUT)
# Everything lands in OUTDIR/gpu-final.tar.gz (the device tool brings back few files).
set -u
dest=${1:-${OUT:-bench-out}}
mkdir -p "$dest"
out=$(mktemp -d)
make -s tiledconv || exit 1

# OpenCV's wheel loads the ocl-icd loader, which finds only the ICDs listed in
# /etc/OpenCL/vendors; on the GPU machine that lists PoCL alone, so register NVIDIA's too
# (../shared/device/README.md), or OpenCV silently falls back to the CPU.
icd=$(mktemp -d)
cp /etc/OpenCL/vendors/*.icd "$icd"/ 2>/dev/null
for lib in /usr/local/nvidia/lib64/libnvidia-opencl.so.1 /lib/x86_64-linux-gnu/libnvidia-opencl.so.1 /lib/libnvidia-opencl.so.1; do
    [ -e "$lib" ] && { echo "$lib" > "$icd/nvidia.icd"; break; }
done
export OCL_ICD_VENDORS="$icd" OPENCV_OPENCL_DEVICE=":GPU:0"
./tiledconv -l

bench/gpu-acceptance.sh "$out" > "$out/acceptance.out" 2>&1
echo "== acceptance: $(grep -c PASSED "$out/acceptance.log") PASSED, $(grep -c FAILED "$out/acceptance.log") FAILED"
grep -A8 '^algorithm' "$out/acceptance.log"

echo "== PoCL (the machine's CPU cores), 2048 x 2048"
for taps in 3 5; do
    ./tiledconv --device cpu -g 2048x2048 -f "$taps" -a all -e -t -i 10 --no-output \
        > "$out/pocl-2048-f$taps.txt" 2>&1
    grep -A8 '^algorithm' "$out/pocl-2048-f$taps.txt"
done

echo "== tuning"
VARIANTS="4x4 0,4x4 1,4x2 1,4x8 1,8x8 1" bench/tune.sh "$out" 8192x8192 50 | tee "$out/tune-8192.txt"
mv "$out/tune.jsonl" "$out/tune-8192.jsonl"
VARIANTS="4x4 0,4x4 1,4x2 1,4x8 1" bench/tune.sh "$out" 16384x16384 30 | tee "$out/tune-16384.txt"
mv "$out/tune.jsonl" "$out/tune-16384.jsonl"

echo "== sweep"
bench/sweep.sh -o "$out" -d "--device gpu" -i 50 > "$out/sweep.out" 2>&1
tail -3 "$out/sweep.out"

echo "== peers"
PYTHONUNBUFFERED=1 timeout 300 python3 bench/peers.py --big --out "$out" > "$out/peers-big.txt" 2>&1
grep -E '^(==|implementation|tiledconv|cupy|opencv|torch|note)' "$out/peers-big.txt"
mv "$out/peers.csv" "$out/peers-big.csv"; mv "$out/peers.json" "$out/peers-big.json"
PYTHONUNBUFFERED=1 timeout 200 python3 bench/peers.py --sizes 512x512,1024x1024 --no-check \
    --out "$out" > "$out/peers-small.txt" 2>&1
grep -E '^(==|implementation|tiledconv|cupy|opencv|torch)' "$out/peers-small.txt"
rm -rf "$icd"
tar czf "$dest/gpu-final.tar.gz" -C "$out" .
rm -rf "$out"
