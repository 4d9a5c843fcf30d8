#!/usr/bin/env bash
# bench/kernel-study.sh - the tiled kernel's variants against the kernel of an older tree, in
# one GPU session (issue 13's tuning steps). Run from the repository root on the GPU machine:
#
#   bench/kernel-study.sh PLAN OUTDIR [OLD_TREE]
#
#   PLAN      which set of cases: study1 (the first exploration), study2 (the second)
#   OUTDIR    where the records go: PLAN-new.jsonl, PLAN-old.jsonl, PLAN-regs.txt, PLAN.log
#   OLD_TREE  a source tree of the older kernel (default ../main-old): its library is built
#             there and bench/casebench.c linked against it, so both kernels run the same
#             cases in the same session; skipped when absent
#
# Each case is one line for bench/casebench.c (see there): 8192 x 8192 unless said, median of
# 30 timed runs, the copy of the same bytes measured right after each case. Every batch runs
# under a time limit (seconds, in the plan; BATCH_SCALE multiplies them) and writes as it goes,
# so a slow batch loses only its own tail. At the end: the registers ptxas gives each variant
# (from the PTX the NVIDIA driver returns, TILEDCONV_DUMP_PROGRAM) and a short table.
set -u
plan=${1:?usage: bench/kernel-study.sh PLAN OUTDIR [OLD_TREE]}
out=${2:?usage: bench/kernel-study.sh PLAN OUTDIR [OLD_TREE]}
old=${3:-../main-old}
scale=${BATCH_SCALE:-1}
device=${STUDY_DEVICE:-gpu}     # a smoke test elsewhere: STUDY_DEVICE=cpu STUDY_SIZE=96x80
size_word=${STUDY_SIZE:+g=$STUDY_SIZE}
mkdir -p "$out" || exit 1
log=$out/$plan.log
: > "$log"

cc_bench() { # cc_bench TREE BINARY
    cc -std=c11 -O2 -I"$1/include" bench/casebench.c "$1/build/lib/libtiledconv.a" -lOpenCL -lm \
        -o "$2"
}
make -s -j16 lib tiledconv >> "$log" 2>&1 || { echo "kernel-study: build failed" >&2; exit 1; }
cc_bench . /tmp/casebench-new || exit 1
have_old=0
if [ -d "$old" ] && (cd "$old" && make -s -j16 lib) >> "$log" 2>&1 && cc_bench "$old" /tmp/casebench-old
then
    have_old=1
fi

# The sixteen alignment cases: sL mod 4 and tL mod 4, odd sT and tT, the issue's ROI size.
align_cases() { # align_cases TAPS [EXTRA WORDS]
    local taps=$1
    shift
    for sa in 0 1 2 3; do
        for ta in 0 1 2 3; do
            echo "label=align-s$sa-t$ta-f$taps roi=$((4 + sa)),7,$((8 + ta)),1,8000,8100 f=$taps $*"
        done
    done
}

core_cases() { # the cases both kernels run
    for f in 3 5 7 9 11 13 15; do echo "label=whole-f$f f=$f"; done
    align_cases 3
    align_cases 5
    for b in constant reflect101 reflect wrap; do
        for f in 3 5; do echo "label=border-$b-f$f f=$f b=$b"; done
    done
}

study1_variants() {
    # The article's class 2 (staged) and halo rows (top and bottom work-items) beside the new.
    for v in stage:-DTC_CLASS2_STAGE=1 nospread:-DTC_HALO_SPREAD=0; do
        local name=${v%%:*} o=${v#*:}
        for f in 3 5 9 15; do echo "label=v-$name-whole-f$f f=$f opts=$o"; done
        for f in 3 5; do
            echo "label=v-$name-align-f$f roi=5,7,3,1,8000,8100 f=$f opts=$o"
            echo "label=v-$name-reflect101-f$f f=$f b=reflect101 opts=$o"
        done
    done
    # The article's class-4 write.
    for f in 3 5; do
        echo "label=v-bcast-align-f$f roi=5,7,3,1,8000,8100 f=$f opts=-DTC_CLASS4_BROADCAST=1"
        echo "label=v-guard-align-f$f roi=5,7,3,1,8000,8100 f=$f"
    done
    # The accumulating vertical pass.
    for f in 3 5 7 9 11 13 15; do echo "label=v-acc-whole-f$f f=$f opts=-DTC_VERTICAL_ACC=1"; done
    for f in 3 5; do
        echo "label=v-acc-align-f$f roi=5,7,3,1,8000,8100 f=$f opts=-DTC_VERTICAL_ACC=1"
    done
    # No arithmetic (wrong results): what the memory traffic alone costs.
    for f in 3 5 9 15; do
        echo "label=v-nomath-whole-f$f f=$f opts=-DTC_STUDY_NO_MATH=1"
        echo "label=v-nomath-acc-whole-f$f f=$f opts=-DTC_STUDY_NO_MATH=1,-DTC_VERTICAL_ACC=1"
    done
    # Blocks.
    for b in 4x2 4x8; do
        for f in 3 5; do echo "label=blk$b-whole-f$f f=$f blk=$b"; done
    done
    for f in 7 9 11 13 15; do
        for b in 4x8 8x4 8x8; do
            echo "label=blk$b-whole-f$f f=$f blk=$b"
            echo "label=blk$b-acc-whole-f$f f=$f blk=$b opts=-DTC_VERTICAL_ACC=1"
        done
    done
}

verify_cases() { # every pixel against the CPU reference, on the GPU, 2048 x 2048
    for f in 3 5 9 15; do
        for v in default: acc:opts=-DTC_VERTICAL_ACC=1 \
                 article:opts=-DTC_CLASS2_STAGE=1,-DTC_HALO_SPREAD=0,-DTC_CLASS4_BROADCAST=1; do
            echo "label=check-${v%%:*}-f$f g=2048x2048 roi=5,7,3,1,2000,1990 f=$f b=reflect101 i=3 e=1 ${v#*:}"
        done
        echo "label=check-blk8x8-f$f g=2048x2048 roi=6,3,1,9,2030,2000 f=$f b=constant blk=8x8 i=3 e=1"
    done
}

repeat_cases() { # the same cases again at the end: the spread between runs
    for f in 3 5; do echo "label=repeat-whole-f$f f=$f"; done
    echo "label=repeat-align-s1-t3-f3 roi=5,7,11,1,8000,8100 f=3"
}

batch() { # batch NAME BINARY SECONDS < cases: one casebench run under a time limit
    echo "== $1 ($(date -u +%T), limit ${3}s)" >> "$log"
    sed "s/\$/ $size_word/" |
        timeout -k 5 "$(awk -v a="$3" -v s="$scale" 'BEGIN { printf "%d", a * s }')" "$2" "$device" \
            >> "$out/$plan-$1.jsonl" 2>> "$log"
    echo "   exit $? ($(date -u +%T))" >> "$log"
}

case $plan in
    study1)
        core_cases | batch new /tmp/casebench-new 55
        [ $have_old = 1 ] && core_cases | batch old /tmp/casebench-old 50
        study1_variants | batch new /tmp/casebench-new 75
        verify_cases | batch new /tmp/casebench-new 35
        repeat_cases | batch new /tmp/casebench-new 10
        [ $have_old = 1 ] && repeat_cases | batch old /tmp/casebench-old 10
        ;;
    *) echo "kernel-study: unknown plan $plan" >&2; exit 2 ;;
esac

# Registers and spills per variant: ptxas on the PTX the driver built.
ptxas=$(command -v ptxas || ls /usr/local/cuda*/bin/ptxas 2>/dev/null | head -n 1)
regs=$out/$plan-regs.txt
: > "$regs"
for v in "3 4x4 " "5 4x4 " "9 4x4 " "15 4x4 " "3 4x4 -DTC_VERTICAL_ACC=1" \
         "5 4x4 -DTC_VERTICAL_ACC=1" "9 4x4 -DTC_VERTICAL_ACC=1" "15 4x4 -DTC_VERTICAL_ACC=1" \
         "15 4x8 -DTC_VERTICAL_ACC=1" "15 8x8 -DTC_VERTICAL_ACC=1" "9 4x8 " "5 4x4 -DTC_HALO_SPREAD=0"; do
    set -- $v
    rm -f /tmp/prog.ptx
    TILEDCONV_CL_OPTIONS="${3:-}" TILEDCONV_DUMP_PROGRAM=/tmp/prog.ptx \
        ./tiledconv --device "$device" -g 64x64 -f "$1" --block "$2" -sL 1 -q --no-output > /dev/null 2>&1
    if [ -n "$ptxas" ] && [ -s /tmp/prog.ptx ]; then
        info=$("$ptxas" -arch=sm_90 -v /tmp/prog.ptx -o /dev/null 2>&1 |
               grep -A1 "Compiling entry function 'tiled_conv'" | tail -n 1)
        echo "f=$1 block=$2 ${3:-default} shift=1: $info" >> "$regs"
    else
        echo "f=$1 block=$2 ${3:-default}: no ptxas or no PTX" >> "$regs"
    fi
done

# A short table: label, kernel median ms, % of copy (new, then old where it ran the case).
python3 - "$out" "$plan" <<'EOF'
import json, sys, os
out, plan = sys.argv[1], sys.argv[2]
def load(name):
    rows = {}
    p = os.path.join(out, f"{plan}-{name}.jsonl")
    if os.path.exists(p):
        for line in open(p):
            try:
                d = json.loads(line)
            except ValueError:
                continue
            rows.setdefault(d["label"], []).append(d)
    return rows
new, old = load("new"), load("old")
for label, recs in new.items():
    for d in recs:
        if "error" in d:
            print(f"{label:40s} ERROR {d['error'][:80]}")
            continue
        o = old.get(label)
        os_ = f" old {100*o[0]['copy_fraction']:5.1f}%" if o and "copy_fraction" in o[0] else ""
        v = "" if d["verified"] is None else f" verified={d['verified']}"
        print(f"{label:40s} {d['kernel_ms_median']:.4f} ms {100*d['copy_fraction']:5.1f}%{os_}{v}")
EOF
cat "$regs"
