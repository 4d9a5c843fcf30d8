#!/usr/bin/env bash
# bench/issue13-final.sh - issue 13's final measurement on the GPU machine, in one call (about
# 3 to 4 minutes): this tree's tiledconv and an older one (OLD_TREE, built here) on the
# issue's cases through the command line, then the variants kept as build options beside the
# defaults. Run from the repository root:
#
#   bench/issue13-final.sh OUTDIR [OLD_TREE]       (OLD_TREE default ../main-old)
#
# OUTDIR gets gpu.txt (the device's state), sweep/ (bench/sweep.sh --suite issue13: cases.csv,
# cases.log, cases.gp), final-*.jsonl and final.log (bench/kernel-study.sh final), and all of it
# again as issue13-final.tgz. The plots are drawn from cases.csv with bench/plot.sh --cases
# (gnuplot need not be there).
set -u
out=${1:?usage: bench/issue13-final.sh OUTDIR [OLD_TREE]}
old=${2:-../main-old}
mkdir -p "$out/sweep" || exit 1
{
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
        --format=csv 2>&1
    date -u
} > "$out/gpu.txt"
make -s -j16 tiledconv lib > "$out/build.log" 2>&1 || { echo "build failed" >&2; exit 1; }
old_args=()
if [ -d "$old" ] && (cd "$old" && make -s -j16 tiledconv) >> "$out/build.log" 2>&1; then
    old_args=(--old "$old/tiledconv")
fi
# The sweep: 30 timed runs per case, each run at most 60 s, the whole sweep at most 230 s.
TIMEOUT=60 timeout -k 5 230 bash bench/sweep.sh -o "$out/sweep" -i 30 -d "--device gpu" \
    --suite issue13 ${old_args[@]+"${old_args[@]}"}
echo "sweep exit $?" >> "$out/build.log"
FINAL_LIMIT=35 bash bench/kernel-study.sh final "$out" "$old"
tar czf "$out/issue13-final.tgz" -C "$out" --exclude issue13-final.tgz .
# A short table: suite, case, binary, % of the copy, verification.
grep -v '^#' "$out/sweep/cases.csv" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { printf "%-8s %-18s %-4s %6.1f %%  wall %.4f ms  %s\n", $1, $2, $3, 100 * $c["copy_fraction"],
      $c["wall_ms_per_iteration"], $c["verified"] }'
