#!/bin/sh
# bench/issue16-final.sh - issue 16's GPU measurements in one device call (about 2 to 3
# minutes): image objects beside buffers and the bilinear-tap trick (bench/images.sh), the
# one-read gradient against the two filters apart (bench/gradient.sh) and the scale space's
# two launch styles (bench/pyramid.sh), each into its own folder. Run from the repository
# root on the GPU machine:
#
#   sh bench/with-codecs.sh sh bench/issue16-final.sh OUTDIR
#
# OUTDIR gets gpu.txt (tiledconv -l, nvidia-smi), build.log, and images/, gradient/,
# pyramid/ with what each script writes (its header says what). A script that is missing
# from this tree is skipped with a line in the log; one that fails does not stop the others.
set -u
out=${1:?usage: sh bench/issue16-final.sh OUTDIR}
mkdir -p "$out" || exit 1
log=$out/issue16.log
: >"$log"
section() { echo "== $(date -u +%T) $*" | tee -a "$log"; }

section build
make -s -j16 tiledconv >"$out/build.log" 2>&1 || { echo "build failed" | tee -a "$log"; exit 1; }
{
    ./tiledconv -l 2>&1
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu \
        --format=csv 2>&1
    date -u
} >"$out/gpu.txt"

for part in images gradient pyramid; do
    script=bench/$part.sh
    if [ ! -f "$script" ]; then
        section "$part: $script is not in this tree, skipped"
        continue
    fi
    section "$part"
    start=$(date +%s)
    sh "$script" "$out/$part" >>"$log" 2>&1
    rc=$?
    section "$part: exit $rc after $(($(date +%s) - start)) s"
done
section done
