#!/usr/bin/env bash
# bench/cuda/probe.sh - where tiled_long_conv's and tiled_mask_rows_conv's time goes, from
# Nsight Compute's counters on CUDA ports of them (bench/cuda/long_probe.cu, mask_probe.cu),
# with the OpenCL kernels timed in the same run to show how closely the ports follow them. A study tool for the GPU machine: it needs the CUDA
# toolkit there (nvcc, cuobjdump, ptxas, ncu), which is no dependency of the project.
#
#   bash bench/cuda/probe.sh OUTDIR        (from anywhere; it works in the repository root)
#
# What it writes into OUTDIR:
#   times.csv        the CUDA port per length (long_probe's lines): kernel and copy medians,
#                    registers, shared memory, the check against the CPU reference; the
#                    "interior" lines with every tile on the unchecked path, the "edges" lines
#                    with the OpenCL run's geometry (the edge tiles bordered)
#   opencl.csv       the OpenCL kernel (kernel=long) at the same lengths and size, from
#                    build/roofline as bench/roofline.sh drives it (bench/roofline.c's columns)
#   sass_mix.txt     the static instruction mix of each CUDA instantiation (cuobjdump -sass),
#                    and of the OpenCL kernel's own PTX (dumped by the driver, assembled here
#                    with ptxas -arch=sm_90), with both kernels' registers
#   ncu-N.csv        ncu's details page of one launch of the port at N taps (raw CSV kept),
#   ncu-N-raw.csv    its raw page (every metric the sections collected), ncu-N.ncu-rep the
#                    report itself (for the Nsight Compute GUI)
#   table.md         bench/cuda/ncu_table.py's tables of all that (also printed)
#   masks/           the same files for the masks (mask_probe, the OpenCL kernel as mrows-8x8,
#                    ncu-N for an N x N mask)
#   run.log          everything the tools said
#
# Environment: SIZE [8192] (N x N), TAPS ["17 31 47 63"], MASKS ["9 11 13 15"] (the sides;
# MASKS="" none), ITER [50] (timed runs), REGISTER_BUDGET [64] (the long kernel's, as the host
# gives it from 13 taps: the port's launch bounds and ptxas's -maxrregcount for the OpenCL
# PTX; 0 uncapped, as before the budgets), NCU=0 (no profile), OPENCL=0 (no OpenCL comparison), DEVICE [gpu] (build/roofline's device: cpu is PoCL,
# for a check of the script's OpenCL half on a machine without the GPU), JOBS [16] (make's),
# PYTHON [python3], NVCC, NCU (the tools' paths; found on PATH, in /usr/local/cuda/bin or under
# /opt/nvidia otherwise).
# About 2 minutes on an H200 with the defaults (each ncu profile replays its launch some 40 times).
#
# The OpenCL side needs the library: this runs `make -s -j$JOBS lib` itself (nothing to do if the
# tree was built already), then builds build/roofline as bench/roofline.sh does.
set -u

out=${1:?usage: bash bench/cuda/probe.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root" || exit 1
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)

size=${SIZE:-8192}
lengths=${TAPS:-17 31 47 63}
masks=${MASKS-9 11 13 15}
budget=${REGISTER_BUDGET:-64}
iter=${ITER:-50}
python=${PYTHON:-python3}
device=${DEVICE:-gpu}
jobs=${JOBS:-16}
log=$out/run.log
: > "$log"
say() { printf '%s\n' "$*" | tee -a "$log" >&2; }
t0=$(date +%s)
stamp() { say "[$(( $(date +%s) - t0 )) s] $*"; }

# ---- The tools ------------------------------------------------------------------------------
find_tool() { # NAME [override]: the path of a CUDA tool, or nothing
    if [ -n "${2:-}" ]; then printf '%s\n' "$2"; return; fi
    command -v "$1" 2>/dev/null && return
    for d in /usr/local/cuda/bin /usr/local/cuda/nsight-compute* /opt/nvidia/nsight-compute/*; do
        [ -x "$d/$1" ] && { printf '%s\n' "$d/$1"; return; }
    done
}
nvcc=$(find_tool nvcc "${NVCC:-}")
[ -n "$nvcc" ] || { say "no nvcc on PATH or in /usr/local/cuda/bin: the probe needs the CUDA toolkit"; exit 1; }
cudabin=$(dirname "$nvcc")
cuobjdump=$(find_tool cuobjdump)
[ -n "$cuobjdump" ] || cuobjdump=$cudabin/cuobjdump
ptxas=$(find_tool ptxas)
[ -n "$ptxas" ] || ptxas=$cudabin/ptxas
ncu=$(find_tool ncu "${NCU:-}")
say "nvcc: $nvcc ($("$nvcc" --version | tail -1)); ncu: ${ncu:-none}"

# ---- The CUDA port ---------------------------------------------------------------------------
stamp "building long_probe and mask_probe (nvcc -O3 -arch=sm_90 -lineinfo)"
mkdir -p build/cuda
"$nvcc" -O3 -arch=sm_90 -lineinfo -Xptxas -v -DREGISTER_BUDGET="$budget" \
    -o build/cuda/long_probe bench/cuda/long_probe.cu >>"$log" 2>&1 ||
    { say "nvcc failed on long_probe.cu (see $log)"; exit 1; }
if [ -n "$masks" ]; then
    "$nvcc" -O3 -arch=sm_90 -lineinfo -Xptxas -v -o build/cuda/mask_probe bench/cuda/mask_probe.cu \
        >>"$log" 2>&1 || { say "nvcc failed on mask_probe.cu (see $log)"; exit 1; }
fi
status=0

# ---- The OpenCL side's build ------------------------------------------------------------------
opencl=0
if [ "${OPENCL:-1}" = 1 ]; then
    stamp "building the library and build/roofline (as bench/roofline.sh)"
    if make -s -j"$jobs" lib >>"$log" 2>&1 &&
        ${CC:-cc} -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -DCL_TARGET_OPENCL_VERSION=120 \
            -Iinclude -Isrc bench/roofline.c build/lib/libtiledconv.a -lOpenCL -lm -lpthread \
            -o build/roofline >>"$log" 2>&1; then
        opencl=1
    else
        say "building the library or build/roofline failed (see $log): no OpenCL comparison"
    fi
fi

# ---- One kernel: the port's times, the instruction mixes, the OpenCL times, the profiles -------
# probe_kernel WHAT DIR PROBE OPTION LIST REGEX PREFIX CASE MAXREG
#   WHAT    words for the log;  DIR  its output folder;  PROBE  the port's binary
#   OPTION  the port's list option (--taps, --masks);  LIST  the lengths or sides
#   REGEX   ncu's kernel name;  PREFIX  the OpenCL labels and PTX names (f: long, m: mask)
#   CASE    build/roofline's case for N, with N written as @ (the label and size are added)
#   MAXREG  ptxas's -maxrregcount for the OpenCL PTX (0: none)
probe_kernel() {
    local what=$1 dir=$2 probe=$3 option=$4 list=$5 regex=$6 prefix=$7 case=$8 maxreg=$9
    mkdir -p "$dir"
    local csvlist
    csvlist=$(printf '%s' "$list" | tr -s ' ' ',')

    stamp "$what: timing the CUDA port, every tile interior, then the OpenCL run's geometry"
    "$probe" --size "$size" "$option" "$csvlist" --iter "$iter" \
        > "$dir/times.csv" 2>>"$log" || { say "$probe: a check failed or a call failed (see $log)"; status=1; }
    "$probe" --size "$size" "$option" "$csvlist" --iter "$iter" --edges 2>>"$log" |
        tail -n +2 >> "$dir/times.csv"
    [ "${PIPESTATUS[0]}" = 0 ] || { say "$probe --edges: a check failed or a call failed (see $log)"; status=1; }
    cat "$dir/times.csv" >&2

    stamp "$what: the SASS instruction mix (sass_mix.txt)"
    {
        echo "== CUDA port (nvcc -O3 -arch=sm_90): static instruction counts per kernel"
        "$cuobjdump" -sass "$probe" > "$dir/port.sass" 2>>"$log" &&
            "$python" bench/cuda/sass_mix.py --label cuda "$dir/port.sass"
        echo
        echo "== CUDA port: resources (cuobjdump -res-usage)"
        "$cuobjdump" -res-usage "$probe" 2>>"$log" | grep -E 'Function|REG'
    } > "$dir/sass_mix.txt" 2>>"$log"

    if [ "$opencl" = 1 ]; then
        stamp "$what: timing the OpenCL kernel (opencl.csv)"
        for n in $list; do
            echo "label=opencl:$prefix$n g=${size}x$size i=$iter ${case//@/$n}"
        done | build/roofline "$device" > "$dir/opencl.csv" 2>>"$log" ||
            say "build/roofline: some cases failed (see $dir/opencl.csv, $log)"
        local regflag=""
        [ "$maxreg" -gt 0 ] && regflag="-maxrregcount=$maxreg"
        stamp "$what: the OpenCL kernel's own code, the driver's PTX through ptxas -arch=sm_90 $regflag"
        mkdir -p "$dir/opencl-ptx"
        for n in $list; do
            local f=$dir/opencl-ptx/$what-f$n.ptx
            echo "label=ptx g=64x64 i=1 ${case//@/$n} tune=dump-program=$f" |
                build/roofline "$device" >/dev/null 2>>"$log"
            if grep -q '^\.version' "$f" 2>/dev/null; then
                # shellcheck disable=SC2086 # regflag is one word or none
                "$ptxas" -arch=sm_90 -O3 -v $regflag "$f" -o "${f%.ptx}.cubin" \
                    > "${f%.ptx}.ptxas.txt" 2>&1 || say "ptxas refused $f (see ${f%.ptx}.ptxas.txt)"
            else
                say "no PTX for $what $n (not NVIDIA's OpenCL?)"
            fi
        done
        {
            echo
            echo "== OpenCL kernel (the driver's PTX, ptxas -O3 -arch=sm_90 $regflag here; the"
            echo "   driver's own JIT may differ a little): static instruction counts"
            local header=1 # the column names once
            for n in $list; do
                local c=$dir/opencl-ptx/$what-f$n.cubin
                [ -f "$c" ] || continue
                "$cuobjdump" -sass "$c" > "${c%.cubin}.sass" 2>>"$log" || continue
                "$python" bench/cuda/sass_mix.py --label "opencl $prefix$n" "${c%.cubin}.sass" |
                    tail -n +$((2 - header))
                header=0
            done
            echo
            echo "== OpenCL kernel: ptxas -v, and the PTX's thread-count directives"
            for n in $list; do
                local f=$dir/opencl-ptx/$what-f$n
                [ -f "$f.ptxas.txt" ] || continue
                echo "-- $prefix$n: $(grep -hE 'registers' "$f.ptxas.txt" | sed 's/^ptxas info *: *//')" \
                     "$(grep -hE 'spill' "$f.ptxas.txt" | sed 's/^ *//')"
                grep -hE '\.(reqntid|maxntid|minnctapersm|maxnreg)' "$f.ptx" | sed 's/^/   /'
            done
        } >> "$dir/sass_mix.txt" 2>>"$log"
    fi
    cat "$dir/sass_mix.txt" >&2

    # Nsight Compute, one launch a length: the sections of the brief's questions, and the
    # metrics behind the charts that the details page leaves out (pipe utilisation,
    # shared-memory bank conflicts, the stall reasons). Metric names differ between ncu
    # versions: where a list is refused, a shorter one is tried, and the table prints n/a for
    # what is missing. --clock-control none: the clocks of the timed runs (ncu would otherwise
    # lock them to base, and its durations would not compare with times.csv).
    local note=$dir/ncu-status.txt
    : > "$note"
    if [ "${NCU:-1}" != 0 ] && [ -n "$ncu" ]; then
        for n in $list; do
            stamp "$what: ncu, one launch at $n (ncu-$n.csv, ncu-$n-raw.csv)"
            local rep=$dir/ncu-$n ok=0 metrics rc
            rm -f "$rep.ncu-rep"
            for metrics in "$named,$stalls" "$named" ""; do
                # shellcheck disable=SC2086 # the sections are words
                "$ncu" --kernel-name "regex:$regex" --launch-count 1 --clock-control none $sections \
                    ${metrics:+--metrics "$metrics"} --export "$rep" --force-overwrite \
                    "$probe" --size "$size" "$option" "$n" --iter 1 > "$dir/ncu-$n.log" 2>&1
                rc=$?
                cat "$dir/ncu-$n.log" >> "$log"
                if grep -q 'ERR_NVGPUCTRPERM' "$dir/ncu-$n.log"; then
                    say "ncu: no permission to read the GPU's counters (ERR_NVGPUCTRPERM): no profile"
                    echo "ERR_NVGPUCTRPERM" > "$note"
                    break 2
                fi
                [ $rc = 0 ] && [ -f "$rep.ncu-rep" ] && { ok=1; break; }
                say "ncu refused the metric list '${metrics:-none}' (rc $rc): trying a shorter one"
            done
            if [ $ok = 1 ]; then
                "$ncu" --import "$rep.ncu-rep" --csv --page details > "$dir/ncu-$n.csv" 2>>"$log"
                "$ncu" --import "$rep.ncu-rep" --csv --page raw > "$dir/ncu-$n-raw.csv" 2>>"$log"
            else
                say "ncu: no profile at $n (see $dir/ncu-$n.log)"
                echo "failed $n" >> "$note"
            fi
        done
    elif [ "${NCU:-1}" != 0 ]; then
        say "no ncu found: no profile"
        echo "no ncu" > "$note"
    fi
}

sections="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats
 --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis
 --section MemoryWorkloadAnalysis_Tables --section ComputeWorkloadAnalysis"
named="sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,\
sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,\
sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,\
sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,\
sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,\
smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum"
stalls="regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio"

# The long kernel: its files in OUTDIR itself (as before the masks joined).
probe_kernel long "$out" build/cuda/long_probe --taps "$lengths" tiled_long_conv f \
    "f=@ kernel=long" "$budget"
if [ -n "$masks" ]; then
    probe_kernel mask "$out/masks" build/cuda/mask_probe --masks "$masks" tiled_mask_rows_conv m \
        "mask=@x@ kernel=mrows-8x8" 0
fi

# ---- The tables ------------------------------------------------------------------------------
stamp "the tables (table.md, masks/table.md)"
"$python" bench/cuda/ncu_table.py "$out" | tee "$out/table.md"
if [ -n "$masks" ]; then
    echo
    "$python" bench/cuda/ncu_table.py --masks "$out/masks" | tee "$out/masks/table.md"
fi
stamp "done"
exit $status
