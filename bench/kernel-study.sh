#!/usr/bin/env bash
# bench/kernel-study.sh - the tiled kernel's variants against the kernel of an older tree, in
# one GPU session (issue 13's tuning steps). Run from the repository root on the GPU machine:
#
#   bench/kernel-study.sh PLAN OUTDIR [OLD_TREE]
#
#   PLAN      which set of cases: study1 (the first exploration), study2 (the second),
#             final (the variants kept as build options beside the final defaults)
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
: > "$out/$plan-regs.txt"

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

# study2: for each case every variant in a row, so that drift over the session hits all alike.
# cross CASES VARIANTS: each case line (label prefix and words) with each variant (name:words).
cross() {
    local c v
    while read -r c; do
        [ -z "$c" ] && continue
        for v in $2; do
            local name=${v%%:*} words=${v#*:}
            echo "label=${c%% *}@$name ${c#* } ${words//;/ }"
        done
    done <<< "$1"
}

study2_short() {
    # 3 and 5 taps: the halo rows (spread or not), the vertical pass (gather or accumulate),
    # the coefficients (__constant buffers or by value), the block (4x4 or 4x2).
    local short="sp:opts=-DTC_COEFF_VALUES=0 ns:opts=-DTC_HALO_SPREAD=0 acc:opts=-DTC_VERTICAL_ACC=1
                 spv:opts=-DTC_COEFF_VALUES=1 nsv:opts=-DTC_HALO_SPREAD=0,-DTC_COEFF_VALUES=1
                 accv:opts=-DTC_VERTICAL_ACC=1,-DTC_COEFF_VALUES=1
                 sp42:blk=4x2 ns42:blk=4x2;opts=-DTC_HALO_SPREAD=0
                 nsv42:blk=4x2;opts=-DTC_HALO_SPREAD=0,-DTC_COEFF_VALUES=1
                 ns-r48:opts=-DTC_HALO_SPREAD=0,-cl-nv-maxrregcount=48
                 ns-r40:opts=-DTC_HALO_SPREAD=0,-cl-nv-maxrregcount=40"
    cross "whole-f3 f=3
whole-f5 f=5
align-s1-t3-f3 roi=5,7,11,1,8000,8100 f=3
align-s3-t1-f5 roi=7,7,9,1,8000,8100 f=5
reflect-f5 f=5 b=reflect
reflect101-f5 f=5 b=reflect101" "$short"
    # Every border rule at 3 and 5 taps, and the smaller sizes, for the candidates.
    local cand="sp:opts=-DTC_COEFF_VALUES=0 ns:opts=-DTC_HALO_SPREAD=0
                nsv:opts=-DTC_HALO_SPREAD=0,-DTC_COEFF_VALUES=1 accv:opts=-DTC_VERTICAL_ACC=1,-DTC_COEFF_VALUES=1"
    cross "$(for b in replicate constant reflect101 reflect wrap; do for f in 3 5; do
                 echo "border-$b-f$f f=$f b=$b"; done; done)
$(for g in 4096 2048 1024; do for f in 3 5; do echo "size$g-f$f g=${g}x$g f=$f"; done; done)" "$cand"
}

study2_long() {
    # Long filters: blocks, gather or accumulate, coefficients, and the same without arithmetic
    # (the memory traffic's own ceiling for that geometry).
    local long="g44:blk=4x4 a44:blk=4x4;opts=-DTC_VERTICAL_ACC=1
                a44v:blk=4x4;opts=-DTC_VERTICAL_ACC=1,-DTC_COEFF_VALUES=1
                g48:blk=4x8 a48:blk=4x8;opts=-DTC_VERTICAL_ACC=1
                a48v:blk=4x8;opts=-DTC_VERTICAL_ACC=1,-DTC_COEFF_VALUES=1
                a416:blk=4x16;opts=-DTC_VERTICAL_ACC=1
                a416v:blk=4x16;opts=-DTC_VERTICAL_ACC=1,-DTC_COEFF_VALUES=1
                a88v:blk=8x8;opts=-DTC_VERTICAL_ACC=1,-DTC_COEFF_VALUES=1
                a48v-r64:blk=4x8;opts=-DTC_VERTICAL_ACC=1,-DTC_COEFF_VALUES=1,-cl-nv-maxrregcount=64
                a48v-r80:blk=4x8;opts=-DTC_VERTICAL_ACC=1,-DTC_COEFF_VALUES=1,-cl-nv-maxrregcount=80
                a416v-r80:blk=4x16;opts=-DTC_VERTICAL_ACC=1,-DTC_COEFF_VALUES=1,-cl-nv-maxrregcount=80
                nm44:blk=4x4;opts=-DTC_STUDY_NO_MATH=1 nm48:blk=4x8;opts=-DTC_STUDY_NO_MATH=1
                nm416:blk=4x16;opts=-DTC_STUDY_NO_MATH=1,-DTC_VERTICAL_ACC=1
                nm88:blk=8x8;opts=-DTC_STUDY_NO_MATH=1,-DTC_VERTICAL_ACC=1"
    cross "whole-f7 f=7
whole-f9 f=9
whole-f11 f=11
whole-f13 f=13
whole-f15 f=15" "$long"
}

study2_old() { # the old kernel on the cases the targets compare with
    for f in 3 5; do echo "label=whole-f$f f=$f"; done
    echo "label=reflect-f5 f=5 b=reflect"
    for g in 4096 2048 1024; do for f in 3 5; do echo "label=size$g-f$f g=${g}x$g f=$f"; done; done
}

study2_verify() {
    for f in 3 5 7 9 15; do
        for v in "nsv:opts=-DTC_HALO_SPREAD=0,-DTC_COEFF_VALUES=1" \
                 "accv:opts=-DTC_VERTICAL_ACC=1,-DTC_COEFF_VALUES=1" \
                 "a48v:blk=4x8;opts=-DTC_VERTICAL_ACC=1,-DTC_COEFF_VALUES=1" \
                 "a416v:blk=4x16;opts=-DTC_VERTICAL_ACC=1,-DTC_COEFF_VALUES=1"; do
            local w=${v#*:}
            echo "label=check-${v%%:*}-f$f g=2048x2048 roi=5,7,3,1,2000,1990 f=$f b=reflect101 i=3 e=1 ${w//;/ }"
        done
    done
}

# PTX from the driver for each variant (TILEDCONV_DUMP_PROGRAM), ptxas's report on it, and
# the machine code of a few: into OUTDIR/PLAN-ptx.tar.gz.
ptx_dump() { # ptx_dump "NAME TAPS BLOCK OPTS ..." lines
    local dir=/tmp/ptx-$plan name f blk o
    rm -rf "$dir" && mkdir -p "$dir"
    ptxas=$(command -v ptxas || ls /usr/local/cuda*/bin/ptxas 2>/dev/null | head -n 1)
    cuobjdump=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -n 1)
    echo "ptxas: ${ptxas:-none}; cuobjdump: ${cuobjdump:-none}" > "$dir/README"
    while read -r name f blk o; do
        [ -z "$name" ] && continue
        TILEDCONV_CL_OPTIONS="${o//,/ }" TILEDCONV_DUMP_PROGRAM="$dir/$name.ptx" \
            ./tiledconv --device "$device" -g 64x64 -f "$f" --block "$blk" -sL 1 -q --no-output \
            > /dev/null 2>> "$dir/README"
        if [ -n "$ptxas" ] && [ -s "$dir/$name.ptx" ]; then
            "$ptxas" -arch=sm_90 -v "$dir/$name.ptx" -o "$dir/$name.cubin" > "$dir/$name.ptxas" 2>&1
            echo "$name: $(grep -A3 "entry function 'tiled_conv'" "$dir/$name.ptxas" | tail -n 2 | tr -s ' ' | tr '\n' ' ')" >> "$out/$plan-regs.txt"
        else
            echo "$name: no PTX (size $(wc -c < "$dir/$name.ptx" 2>/dev/null))" >> "$out/$plan-regs.txt"
        fi
    done
    for n in f3-ns f3-sp f15-a48v; do
        [ -n "$cuobjdump" ] && [ -s "$dir/$n.cubin" ] && "$cuobjdump" -sass "$dir/$n.cubin" > "$dir/$n.sass" 2>&1
    done
    rm -f "$dir"/*.cubin
    tar czf "$out/$plan-ptx.tar.gz" -C /tmp "ptx-$plan"
}

study2_ptx() {
    cat <<'LIST'
f3-sp 3 4x4 -DTC_COEFF_VALUES=0
f3-ns 3 4x4 -DTC_HALO_SPREAD=0
f3-acc 3 4x4 -DTC_VERTICAL_ACC=1
f3-spv 3 4x4 -DTC_COEFF_VALUES=1
f3-nsv 3 4x4 -DTC_HALO_SPREAD=0,-DTC_COEFF_VALUES=1
f3-ns42 3 4x2 -DTC_HALO_SPREAD=0
f3-stage 3 4x4 -DTC_CLASS2_STAGE=1
f3-nomath 3 4x4 -DTC_STUDY_NO_MATH=1
f5-sp 5 4x4 -DTC_COEFF_VALUES=0
f5-ns 5 4x4 -DTC_HALO_SPREAD=0
f5-nsv 5 4x4 -DTC_HALO_SPREAD=0,-DTC_COEFF_VALUES=1
f5-acc 5 4x4 -DTC_VERTICAL_ACC=1
f5-accv 5 4x4 -DTC_VERTICAL_ACC=1,-DTC_COEFF_VALUES=1
f9-g44 9 4x4 -DTC_COEFF_VALUES=0
f9-a44v 9 4x4 -DTC_VERTICAL_ACC=1,-DTC_COEFF_VALUES=1
f9-g48 9 4x8 -DTC_COEFF_VALUES=0
f9-a48v 9 4x8 -DTC_VERTICAL_ACC=1,-DTC_COEFF_VALUES=1
f9-a416v 9 4x16 -DTC_VERTICAL_ACC=1,-DTC_COEFF_VALUES=1
f15-g44 15 4x4 -DTC_COEFF_VALUES=0
f15-a44v 15 4x4 -DTC_VERTICAL_ACC=1,-DTC_COEFF_VALUES=1
f15-g48 15 4x8 -DTC_COEFF_VALUES=0
f15-a48 15 4x8 -DTC_VERTICAL_ACC=1
f15-a48v 15 4x8 -DTC_VERTICAL_ACC=1,-DTC_COEFF_VALUES=1
f15-a416v 15 4x16 -DTC_VERTICAL_ACC=1,-DTC_COEFF_VALUES=1
f15-a88v 15 8x8 -DTC_VERTICAL_ACC=1,-DTC_COEFF_VALUES=1
LIST
}

final_cases() { # the final defaults beside the variants they were chosen over
    cross "whole-f13 f=13
whole-f15 f=15" "default: ptr:opts=-DTC_COEFF_VALUES=0 acc:opts=-DTC_VERTICAL_ACC=1"
    cross "whole-f7 f=7
whole-f9 f=9
whole-f11 f=11" "default: gather:opts=-DTC_VERTICAL_ACC=0 ptr:opts=-DTC_COEFF_VALUES=0"
    cross "issue-roi-f3 roi=5,7,3,1,8000,8100 f=3
issue-roi-f5 roi=5,7,3,1,8000,8100 f=5" "default: stage:opts=-DTC_CLASS2_STAGE=1
        broadcast:opts=-DTC_CLASS4_BROADCAST=1 spread:opts=-DTC_HALO_SPREAD=1 ptr:opts=-DTC_COEFF_VALUES=0
        block42:blk=4x2"
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
    study2)
        study2_short | batch new /tmp/casebench-new 100
        study2_long | batch new /tmp/casebench-new 75
        study2_ptx | ptx_dump
        [ $have_old = 1 ] && study2_old | batch old /tmp/casebench-old 15
        study2_verify | batch new /tmp/casebench-new 30
        ;;
    final)
        final_cases | batch new /tmp/casebench-new "${FINAL_LIMIT:-40}"
        ;;
    *) echo "kernel-study: unknown plan $plan" >&2; exit 2 ;;
esac

# Registers and spills per variant: ptxas on the PTX the driver built (study1; study2 keeps
# the PTX too, ptx_dump above).
[ "$plan" = study1 ] && {
ptxas=$(command -v ptxas || ls /usr/local/cuda*/bin/ptxas 2>/dev/null | head -n 1)
regs=$out/$plan-regs.txt
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
}

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
pivot = {}
for label, recs in new.items():
    case, _, var = label.partition("@")
    for d in recs:
        if "error" in d:
            cell = "ERR"
        else:
            cell = f"{100*d['copy_fraction']:.1f}"
            if d["verified"] is not None:
                cell += "" if d["verified"] else "(FAILED)"
        pivot.setdefault(case, []).append(f"{var}={cell}" if var else cell)
for case, cells in pivot.items():
    o = old.get(case)
    os_ = f" | old={100*o[0]['copy_fraction']:.1f}" if o and "copy_fraction" in o[0] else ""
    print(f"{case}: {' '.join(cells)}{os_}")
EOF
cat "$out/$plan-regs.txt"
