#!/usr/bin/env bash
# bench/cuda/probe.sh - where tiled_long_conv's time goes, from Nsight Compute's counters on a
# CUDA port of it (bench/cuda/long_probe.cu), with the OpenCL kernel timed in the same run to
# show how closely the port follows it. A study tool for the GPU machine: it needs the CUDA
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
#   run.log          everything the tools said
#
# Environment: SIZE [8192] (N x N), TAPS ["17 31 47 63"], ITER [50] (timed runs), NCU=0 (no
# profile), OPENCL=0 (no OpenCL comparison), DEVICE [gpu] (build/roofline's device: cpu is PoCL,
# for a check of the script's OpenCL half on a machine without the GPU), JOBS [16] (make's),
# PYTHON [python3], NVCC, NCU (the tools' paths; found on PATH, in /usr/local/cuda/bin or under
# /opt/nvidia otherwise).
# About 3 to 5 minutes on the H100/H200 (each ncu profile replays the launch some 40 times).
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
stamp "building long_probe (nvcc -O3 -arch=sm_90 -lineinfo)"
mkdir -p build/cuda
"$nvcc" -O3 -arch=sm_90 -lineinfo -Xptxas -v -o build/cuda/long_probe bench/cuda/long_probe.cu \
    >>"$log" 2>&1 || { say "nvcc failed (see $log)"; exit 1; }
taps_list=$(printf '%s' "$lengths" | tr -s ' ' ',')
status=0

stamp "timing the CUDA port, every tile interior, then the OpenCL run's geometry (times.csv)"
build/cuda/long_probe --size "$size" --taps "$taps_list" --iter "$iter" \
    > "$out/times.csv" 2>>"$log" || { say "long_probe: a check failed or a call failed (see $log)"; status=1; }
build/cuda/long_probe --size "$size" --taps "$taps_list" --iter "$iter" --edges 2>>"$log" |
    tail -n +2 >> "$out/times.csv"
[ "${PIPESTATUS[0]}" = 0 ] || { say "long_probe --edges: a check failed or a call failed (see $log)"; status=1; }
cat "$out/times.csv" >&2

stamp "the SASS instruction mix (sass_mix.txt)"
{
    echo "== CUDA port (nvcc -O3 -arch=sm_90): static instruction counts per kernel"
    "$cuobjdump" -sass build/cuda/long_probe > "$out/long_probe.sass" 2>>"$log" &&
        "$python" bench/cuda/sass_mix.py --label cuda "$out/long_probe.sass"
    echo
    echo "== CUDA port: resources (cuobjdump -res-usage)"
    "$cuobjdump" -res-usage build/cuda/long_probe 2>>"$log" | grep -E 'Function|REG'
} > "$out/sass_mix.txt" 2>>"$log"

# ---- The OpenCL kernel, same lengths, same size ----------------------------------------------
if [ "${OPENCL:-1}" = 1 ]; then
    stamp "building the library and build/roofline (as bench/roofline.sh)"
    if make -s -j"$jobs" lib >>"$log" 2>&1 &&
        ${CC:-cc} -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -DCL_TARGET_OPENCL_VERSION=120 \
            -Iinclude -Isrc bench/roofline.c build/lib/libtiledconv.a -lOpenCL -lm -lpthread \
            -o build/roofline >>"$log" 2>&1; then
        stamp "timing the OpenCL kernel (opencl.csv)"
        for n in $lengths; do
            echo "label=opencl:f$n g=${size}x$size f=$n i=$iter kernel=long"
        done | build/roofline "$device" > "$out/opencl.csv" 2>>"$log" ||
            say "build/roofline: some cases failed (see opencl.csv, $log)"
        stamp "the OpenCL kernel's own code: the driver's PTX through ptxas -arch=sm_90"
        mkdir -p "$out/opencl-ptx"
        for n in $lengths; do
            f=$out/opencl-ptx/long-f$n.ptx
            echo "label=ptx g=64x64 f=$n i=1 kernel=long tune=dump-program=$f" |
                build/roofline "$device" >/dev/null 2>>"$log"
            if grep -q '^\.version' "$f" 2>/dev/null; then
                "$ptxas" -arch=sm_90 -O3 -v "$f" -o "${f%.ptx}.cubin" > "${f%.ptx}.ptxas.txt" 2>&1 ||
                    say "ptxas refused $f (see ${f%.ptx}.ptxas.txt)"
            else
                say "no PTX for $n taps (not NVIDIA's OpenCL?)"
            fi
        done
        {
            echo
            echo "== OpenCL kernel (the driver's PTX, ptxas -O3 -arch=sm_90 here; the driver's own"
            echo "   JIT may differ a little): static instruction counts per length"
            header=1 # the column names once
            for n in $lengths; do
                c=$out/opencl-ptx/long-f$n.cubin
                [ -f "$c" ] || continue
                "$cuobjdump" -sass "$c" > "${c%.cubin}.sass" 2>>"$log" || continue
                "$python" bench/cuda/sass_mix.py --label "opencl f$n" "${c%.cubin}.sass" |
                    tail -n +$((2 - header))
                header=0
            done
            echo
            echo "== OpenCL kernel: ptxas -v, and the PTX's thread-count directives"
            for n in $lengths; do
                f=$out/opencl-ptx/long-f$n
                [ -f "$f.ptxas.txt" ] || continue
                echo "-- f$n: $(grep -hE 'registers' "$f.ptxas.txt" | sed 's/^ptxas info *: *//')" \
                     "$(grep -hE 'spill' "$f.ptxas.txt" | sed 's/^ *//')"
                grep -hE '\.(reqntid|maxntid|minnctapersm|maxnreg)' "$f.ptx" | sed 's/^/   /'
            done
        } >> "$out/sass_mix.txt" 2>>"$log"
    else
        say "building the library or build/roofline failed (see $log): no OpenCL comparison"
    fi
fi
cat "$out/sass_mix.txt" >&2

# ---- Nsight Compute, one launch a length -----------------------------------------------------
# The sections of the brief's questions, and the metrics behind the charts that the details
# page leaves out (pipe utilisation, shared-memory bank conflicts, the stall reasons). Metric
# names differ between ncu versions: where a list is refused, a shorter one is tried, and the
# table prints n/a for what is missing. --clock-control none: the clocks of the timed runs (ncu
# would otherwise lock them to base, and its durations would not compare with times.csv).
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
ncu_note=$out/ncu-status.txt
: > "$ncu_note"
if [ "${NCU:-1}" != 0 ] && [ -n "$ncu" ]; then
    for n in $lengths; do
        stamp "ncu: one launch at $n taps (ncu-$n.csv, ncu-$n-raw.csv)"
        rep=$out/ncu-$n
        rm -f "$rep.ncu-rep"
        ok=0
        for metrics in "$named,$stalls" "$named" ""; do
            # shellcheck disable=SC2086 # the sections are words
            "$ncu" --kernel-name regex:tiled_long_conv --launch-count 1 --clock-control none $sections \
                ${metrics:+--metrics "$metrics"} --export "$rep" --force-overwrite \
                build/cuda/long_probe --size "$size" --taps "$n" --iter 1 \
                > "$out/ncu-$n.log" 2>&1
            rc=$?
            cat "$out/ncu-$n.log" >> "$log"
            if grep -q 'ERR_NVGPUCTRPERM' "$out/ncu-$n.log"; then
                say "ncu: no permission to read the GPU's counters (ERR_NVGPUCTRPERM): no profile"
                echo "ERR_NVGPUCTRPERM" > "$ncu_note"
                break 2
            fi
            [ $rc = 0 ] && [ -f "$rep.ncu-rep" ] && { ok=1; break; }
            say "ncu refused the metric list '${metrics:-none}' (rc $rc): trying a shorter one"
        done
        if [ $ok = 1 ]; then
            "$ncu" --import "$rep.ncu-rep" --csv --page details > "$out/ncu-$n.csv" 2>>"$log"
            "$ncu" --import "$rep.ncu-rep" --csv --page raw > "$out/ncu-$n-raw.csv" 2>>"$log"
        else
            say "ncu: no profile at $n taps (see $out/ncu-$n.log)"
            echo "failed $n" >> "$ncu_note"
        fi
    done
elif [ "${NCU:-1}" != 0 ]; then
    say "no ncu found: no profile"
    echo "no ncu" > "$ncu_note"
fi

# ---- The tables ------------------------------------------------------------------------------
stamp "the tables (table.md)"
"$python" bench/cuda/ncu_table.py "$out" | tee "$out/table.md"
stamp "done"
exit $status
