#!/usr/bin/env bash
# bench/issue15-study.sh - issue 15's first GPU call: the new kernels' variants, the old lengths
# against an older tree's kernel, and a first look at the peers, in one call of about four
# minutes. Run from the repository root on the GPU machine (bench/with-codecs.sh in front where
# the codec libraries are missing):
#
#   bench/issue15-study.sh OUTDIR [OLD_TREE]
#
# OUTDIR gets gpu.txt, build.log, study-new.jsonl and study-old.jsonl (bench/casebench.c, one
# record a case: 8192 x 8192, median of 30, the copy measured right after each case),
# registers.txt (ptxas -v on the PTX the driver returns for the new kernels), peers/ (bench/
# peers.py) and study.log. Every section runs under a time limit and writes as it goes.
set -u
out=${1:?usage: bench/issue15-study.sh OUTDIR [OLD_TREE]}
old=${2:-}
mkdir -p "$out/peers" || exit 1
log=$out/study.log
: > "$log"
{
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
        --format=csv 2>&1
    date -u
} > "$out/gpu.txt"

cc_bench() { # cc_bench TREE BINARY
    cc -std=c11 -O2 -I"$1/include" bench/casebench.c "$1/build/lib/libtiledconv.a" -lOpenCL -lm \
        -o "$2"
}
section() { echo "== $(date -u +%T) $*" | tee -a "$log"; }

section build
timeout 70 make -s -j16 tiledconv lib > "$out/build.log" 2>&1 || { echo "build failed" >&2; exit 1; }
cc_bench . /tmp/casebench-new >> "$out/build.log" 2>&1 || exit 1
have_old=0
if [ -n "$old" ] && [ -d "$old" ] &&
   (cd "$old" && timeout 40 make -s -j16 lib) >> "$out/build.log" 2>&1 &&
   cc_bench "$old" /tmp/casebench-old >> "$out/build.log" 2>&1; then
    have_old=1
fi

# The lengths both kernels run: the whole 8192 x 8192 image, replicate.
old_cases() {
    for f in 3 5 7 9 11 13 15; do echo "label=whole-f$f f=$f"; done
}

# The defaults of the new paths, and a check of each against the reference on small images.
new_cases() {
    old_cases
    for f in 17 23 31 47 63; do echo "label=long-f$f f=$f"; done
    echo "label=axis-63x1 f=63 fy=1"
    echo "label=axis-1x63 f=1 fy=63"
    echo "label=axis-15x3 f=15 fy=3"
    echo "label=axis-3x15 f=3 fy=15"
    for m in 3x3 5x5 7x7 15x15; do
        echo "label=mask-$m mask=$m"
        echo "label=mask-$m-onepass mask=$m a=onepass"
    done
    echo "label=mask-binomial3x3-factored mask=binomial3x3"
    echo "label=mask-binomial3x3-2d mask=binomial3x3 env=TILEDCONV_MASK_2D=1"
    echo "label=check-long-63 g=700x600 roi=5,3,2,9,680,580 f=63 b=reflect101 e=1"
    echo "label=check-long-31 g=900x700 roi=1,2,3,4,880,690 f=31 b=wrap e=1"
    echo "label=check-axis-63x1 g=900x700 roi=6,1,1,0,890,690 f=63 fy=1 b=constant e=1"
    echo "label=check-mask-5x5 g=1200x900 roi=3,7,6,1,1190,890 mask=5x5 b=reflect e=1"
    echo "label=check-mask-15x15 g=900x700 roi=2,2,1,1,890,690 mask=15x15 b=reflect101 e=1"
    echo "label=check-mask-3x3 g=1200x900 roi=5,3,2,1,1190,890 mask=3x3 e=1"
}

# The variants: the long kernel's tiles and vertical pass, the mask kernel's block and weights.
variant_cases() {
    for f in 31 63; do
        for t in 32x128 64x128 32x256; do
            for c in 0 1; do
                echo "label=long-f$f-t$t-chunked$c f=$f env=TILEDCONV_LONG_TILE_W=${t%x*}" \
                     "env=TILEDCONV_LONG_TILE_H=${t#*x} opts=-DTC_LONG_CHUNKED=$c"
            done
        done
    done
    for b in 4 8 16; do
        echo "label=mask-3x3-b$b mask=3x3 env=TILEDCONV_MASK_BLOCK_Y=$b"
        echo "label=mask-3x3-b$b-constant mask=3x3 env=TILEDCONV_MASK_BLOCK_Y=$b opts=-DTC_MASK_VALUES=0"
        echo "label=mask-5x5-b$b mask=5x5 env=TILEDCONV_MASK_BLOCK_Y=$b"
    done
    echo "label=mask-5x5-loop mask=5x5 opts=-DTC_MASK_SHARE_ROWS=0"
    echo "label=mask-7x7-b4 mask=7x7 env=TILEDCONV_MASK_BLOCK_Y=4"
}

section "casebench: defaults (new)"
new_cases | timeout 70 /tmp/casebench-new gpu > "$out/study-new.jsonl" 2>> "$log"
echo "exit $?" >> "$log"
if [ "$have_old" = 1 ]; then
    section "casebench: the old kernel"
    old_cases | timeout 20 /tmp/casebench-old gpu > "$out/study-old.jsonl" 2>> "$log"
    echo "exit $?" >> "$log"
fi
section "peers"
PYTHONUNBUFFERED=1 timeout 75 python3 bench/peers.py --taps 3,15,31,63 --masks 3x3,5x5 \
    -i 30 --warmup 5 --out "$out/peers" > "$out/peers/peers.txt" 2>&1
echo "exit $?" >> "$log"
section "casebench: variants"
variant_cases | timeout 40 /tmp/casebench-new gpu > "$out/study-variants.jsonl" 2>> "$log"
echo "exit $?" >> "$log"

section registers
: > "$out/registers.txt"
ptxas=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
registers() {
    for c in "long63 f=63" "long31 f=31" "mask3x3 mask=3x3" "mask5x5 mask=5x5" "tiled15 f=15"; do
        name=${c%% *}
        TILEDCONV_DUMP_PROGRAM=/tmp/$name.ptx /tmp/casebench-new gpu \
            <<< "label=$name g=256x256 i=1 ${c#* }" > /dev/null 2>&1
        { echo "-- $name"; "$ptxas" -arch=sm_90 -v /tmp/$name.ptx -o /dev/null 2>&1 |
            grep -E "Compiling|registers|spill|stack"; } >> "$out/registers.txt"
    done
}
( registers ) &
reg_pid=$!
( sleep 20; kill $reg_pid 2>/dev/null ) &
wait $reg_pid 2>/dev/null
section done
# A short table: label, % of the copy, GFMA/s, verification.
for f in "$out"/study-*.jsonl; do
    python3 - "$f" <<'PY' | tee -a "$log"
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "error" in r:
        print(f"{r['label']:38s} ERROR {r['error']}")
        continue
    print(f"{r['label']:38s} {r['kernel_ms_median']:9.4f} ms {100 * r['copy_fraction']:6.1f} % "
          f"{r.get('gfma_per_s', 0):8.1f} GFMA/s  {r['verified']}")
PY
done
