#!/bin/sh
# bench/values-struct-ab.sh OLD_TREE [OUT.csv]: the kernels' time with their by-value
# coefficients as float16 arguments (OLD_TREE, a tree before Common.cl's tc_values16) against
# this tree's struct around the float16, on the first GPU: 8192 x 8192 gray, each case run
# alternately by the two builds for ROUNDS rounds (default 3), 50 timed iterations a run
# (DEVICE, SIZE and ITERATIONS change them: DEVICE=cpu SIZE=256x256 checks the script).
# Prints and writes one CSV row per run: tree, case, round, kernel median ms, copy ms, the
# kernel's share of the copy (the copy's time over the kernel's).
#
#   git archive BASE | (mkdir -p .carry/old && tar -x -C .carry/old)
#   sh bench/values-struct-ab.sh .carry/old bench-out/values-struct.csv
set -eu
old=$1
out=${2:-values-struct.csv}
rounds=${ROUNDS:-3}
make -s tiledconv >/dev/null
(cd "$old" && make -s tiledconv >/dev/null)
mkdir -p "$(dirname "$out")"
echo "tree,case,round,kernel_ms_median,copy_ms,copy_fraction" >"$out"
mask() {
    awk -v w="$1" 'BEGIN { for (j = 0; j < w; j++) { row = "";
        for (i = 0; i < w; i++) row = row (i ? "," : "") ((i * 7 + j * 3 + i * j) % 5 - 1);
        printf "%s%s", (j ? ";" : ""), row } }'
}
m5=$(mask 5)
m9=$(mask 9)
m15=$(mask 15)
r=1
while [ "$r" -le "$rounds" ]; do
    for label in f3 f5 f7 f9 f15 f31 f41 f63 f63x1 mask5 mask9 mask15; do
        case $label in
            mask5) c="--mask $m5" ;;
            mask9) c="--mask $m9" ;;
            mask15) c="--mask $m15" ;;
            *) c="-f ${label#f}" ;;
        esac
        for tree in new old; do
            bin=./tiledconv
            [ "$tree" = old ] && bin=$old/tiledconv
            # shellcheck disable=SC2086
            "$bin" --device "${DEVICE:-gpu}" -g "${SIZE:-8192x8192}" $c -t -i "${ITERATIONS:-50}" \
                --json --no-output |
                python3 -c 'import json,sys
r = json.loads(sys.stdin.readline())
print(",".join(str(x) for x in (sys.argv[1], sys.argv[2], sys.argv[3], r["kernel_ms_median"],
      r["copy_ms"], r["copy_fraction"])))' "$tree" "$label" "$r" | tee -a "$out"
        done
    done
    r=$((r + 1))
done
