#!/usr/bin/env bash
# bench/roofline.sh - long filters and large masks against their roofline, and the tiled
# kernel's variants side by side, in one device call.
#
#   bench/roofline.sh OUTDIR [TOOLS]
#
#   OUTDIR  where everything goes (created)
#   TOOLS   the folder holding clpeak_*.deb (default .tools): unpacked with dpkg -x and run
#           once (clpeak --compute-sp) for the FMA peak of the same device in the same run
#
# Per case it prints and writes (OUTDIR/table.md, table.csv): the kernel time (median of the
# device events of a run), the copy of the same bytes, the multiply-add floor (the FMAs the
# filter needs / clpeak's peak rate), the roofline time = max(copy, floor), the roofline share
# (roofline / kernel), and the ratio to CuPy (bench/cupy_roofline.py). Then the variant study:
# every variant's share per length and the best per band (the defaults' choice, launch.c).
#
# The cases (environment, defaults in brackets):
#   SIZES    square sides ["8192 16384"]; SIZE=N is SIZES=N
#   LENGTHS  separable lengths, equal per axis ["3 5 ... 63"]
#   PAIRS    unequal lengths, taps_x x taps_y ["15x31 31x15 63x1 1x63 7x63 63x7"]
#   MASKS    mask sides (N x N, not rank 1) ["3 5 7 9 11 13 15"]
#   PLANES   1 gray, 3 colour ["1 3"];  BORDERS ["replicate reflect101"]
#   STUDY_LENGTHS  the lengths at which every variant also runs on every size, plane count and
#            border ["15 31 47 63"]; at the first size, gray, first border every variant runs
#            at every length from 11 (and the pairs), every mask variant at every mask from 7
#   ITER     timed runs a case [50];  PEER_ITER  CuPy's [50]
#   DEVICE   tc_open's request [gpu] (cpu: PoCL);  JOBS  parallel program builds [16]
#   VERIFY_LENGTHS  the lengths of the -e cases ["11 31 63"]
#   PEER=0   no CuPy;  CLPEAK=0  no clpeak;  VERIFY=0  no -e cases;  PTX=0  no register counts;
#   VARIANTS=0  the default variants alone (no study);  STUDY_VARIANTS  the variants of the
#            study [every one build/roofline --list names]
#   PYTHON   the interpreter of the table and of CuPy's script [python3]
#
# What runs, in order: the builds of every program the cases need, JOBS processes at once on a
# 64 x 64 image (the driver's program cache then serves the timed run: NVIDIA caches built
# programs across processes); -e on the device for every variant (verify.csv: 1000 x 700, an
# odd ROI, both borders, 11, 31 and 63 taps, 15 x 31, masks 7 and 15, colour); clpeak; the
# timed cases (roofline.csv, one process: the planes stay on the device, bench/roofline.c); CuPy
# (cupy.csv); the table; with ptxas on the path, each slide variant's registers and spills at
# 15, 31 and 63 taps from the driver's PTX (registers.txt).
#
# On the H100/H200 with the defaults: about 5 minutes (CuPy about 2 of them: its time grows
# with the length, 4.3 ms a run at 63 taps on 8192^2). A test run on PoCL (bench/run --smoke
# roofline runs a smaller one):
#   SIZE=512 LENGTHS="3 31" PAIRS=15x31 MASKS="3 7" STUDY_LENGTHS=31 VERIFY_LENGTHS=31 \
#       DEVICE=cpu JOBS=2 bench/roofline.sh /tmp/roofline
set -u

out=${1:?usage: bench/roofline.sh OUTDIR [TOOLS]}
tools=${2:-.tools}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$root" || exit 1
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)

sizes=${SIZES:-${SIZE:-8192 16384}}
lengths=${LENGTHS:-$(seq -s ' ' 3 2 63)}
pairs=${PAIRS-15x31 31x15 63x1 1x63 7x63 63x7}
masks=${MASKS:-3 5 7 9 11 13 15}
planes_list=${PLANES:-1 3}
borders=${BORDERS:-replicate reflect101}
study_lengths=${STUDY_LENGTHS:-15 31 47 63}
iter=${ITER:-50}
peer_iter=${PEER_ITER:-50}
device=${DEVICE:-gpu}
jobs=${JOBS:-16}
python=${PYTHON:-python3}
log=$out/run.log
: > "$log"
say() { printf '%s\n' "$*" | tee -a "$log" >&2; }
t0=$(date +%s)
stamp() { say "[$(( $(date +%s) - t0 )) s] $*"; }

in_list() { case " $2 " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# ---- Build ---------------------------------------------------------------------------------
stamp "building the library and build/roofline"
make lib >>"$log" 2>&1 || { say "make lib failed (see $log)"; exit 1; }
${CC:-cc} -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -DCL_TARGET_OPENCL_VERSION=120 -Iinclude -Isrc \
    bench/roofline.c build/lib/libtiledconv.a \
    $(pkg-config --libs spng libturbojpeg libjpeg 2>/dev/null || echo -lspng -lturbojpeg -ljpeg) \
    -lOpenCL -lm -lpthread -o build/roofline \
    >>"$log" 2>&1 || { say "building bench/roofline.c failed (see $log)"; exit 1; }
separable=$(build/roofline --list | awk '$2 == "separable" {print $1}')
mask_variants=$(build/roofline --list | awk '$2 == "mask" {print $1}')
if [ -n "${STUDY_VARIANTS:-}" ]; then # a subset of the study
    separable=$(for v in $separable; do in_list "$v" "$STUDY_VARIANTS" && echo "$v"; done)
    mask_variants=$(for v in $mask_variants; do in_list "$v" "$STUDY_VARIANTS" && echo "$v"; done)
fi
if [ "${VARIANTS:-1}" = 0 ]; then # the defaults alone: the targets' table without the study
    separable=
    mask_variants=
fi

# ---- The cases -----------------------------------------------------------------------------
# d:  every case of the targets with the default variant of its band;
# v:  the variant study (VARIANT in the label), bench/roofline_table.py groups by it.
first_size=${sizes%% *}
first_planes=${planes_list%% *}
first_border=${borders%% *}
commas() { printf '%s' "$1" | tr -s ' \n' ','; } # words as a,b,c for Python
cases=$out/cases.txt
{
    for s in $sizes; do
        for p in $planes_list; do
            for b in $borders; do
                g="g=${s}x$s planes=$p b=$b i=$iter"
                for n in $lengths; do echo "label=d:f$n:$s:$p:$b $g f=$n"; done
                for xy in $pairs; do echo "label=d:f$xy:$s:$p:$b $g f=${xy%x*} fy=${xy#*x}"; done
                for m in $masks; do echo "label=d:m$m:$s:$p:$b $g mask=${m}x$m"; done
                full=0
                [ "$s" = "$first_size" ] && [ "$p" = "$first_planes" ] &&
                    [ "$b" = "$first_border" ] && full=1
                for v in $separable; do
                    for n in $lengths; do
                        [ "$n" -ge 11 ] || continue
                        [ "$v" = tiled ] && [ "$n" -gt 15 ] && continue
                        [ "$v" = rows ] && continue # one tap along columns: the pairs
                        if [ $full = 1 ] || in_list "$n" "$study_lengths"; then
                            echo "label=v:$v:f$n:$s:$p:$b $g f=$n kernel=$v"
                        fi
                    done
                    [ $full = 1 ] || continue
                    for xy in $pairs; do
                        [ "$v" = tiled ] && continue
                        # rows takes one tap along columns only, split more than one each
                        [ "$v" = rows ] && [ "${xy#*x}" != 1 ] && continue
                        [ "$v" = split ] && { [ "${xy#*x}" = 1 ] || [ "${xy%x*}" = 1 ]; } && continue
                        echo "label=v:$v:f$xy:$s:$p:$b $g f=${xy%x*} fy=${xy#*x} kernel=$v"
                    done
                done
                for v in $mask_variants; do
                    for m in $masks; do
                        [ "$m" -ge 7 ] || continue
                        if [ $full = 1 ] || [ "$m" = 7 ] || [ "$m" = 15 ]; then
                            echo "label=v:$v:m$m:$s:$p:$b $g mask=${m}x$m kernel=$v"
                        fi
                    done
                done
            done
        done
    done
} > "$cases"
stamp "$(wc -l < "$cases") timed cases ($cases)"

# ---- Every program built first, JOBS processes at once -------------------------------------
# A program depends on the kernel, lengths, border and device, not on the image: the cases'
# programs built on 64 x 64 images land in the driver's cache (NVIDIA keeps built programs
# across processes; PoCL too), so the timed run below spends its time on kernels.
stamp "building the programs, $jobs at once"
shards=$out/prebuild
rm -rf "$shards"
mkdir -p "$shards"
sed -e 's/ g=[0-9x]*/ g=64x64/' -e 's/ planes=[0-9]/ planes=1/' -e "s/ i=[0-9]*/ i=1/" \
    -e 's/label=[^ ]*/label=build/' "$cases" | sort -u | \
    awk -v n="$jobs" -v dir="$shards" '{print > (dir "/shard-" (NR % n))}'
for f in "$shards"/shard-*; do
    build/roofline "$device" < "$f" > "$f.csv" 2>>"$f.log" &
done
wait
grep -h -v '^label' "$shards"/shard-*.csv | awk -F, '$NF != "" {print "build failed: " $0}' \
    | tee -a "$log" >&2

# ---- -e on the device for every variant ----------------------------------------------------
if [ "${VERIFY:-1}" = 1 ]; then
    stamp "verifying every variant against the CPU reference (verify.csv)"
    {
        for b in $borders; do
            r="g=1000x700 roi=5,3,2,7,990,689 b=$b i=2 e=1"
            for v in $separable; do
                for n in ${VERIFY_LENGTHS:-11 31 63}; do
                    [ "$v" = tiled ] && [ "$n" -gt 15 ] && continue
                    if [ "$v" = rows ]; then # one tap along columns
                        echo "label=e:$v:f${n}x1:$b $r f=$n fy=1 kernel=$v"
                    else
                        echo "label=e:$v:f$n:$b $r f=$n kernel=$v"
                    fi
                done
                [ "$v" = tiled ] || [ "$v" = rows ] ||
                    echo "label=e:$v:f15x31:$b $r f=15 fy=31 kernel=$v"
            done
            for v in $mask_variants; do
                for m in 7 15; do echo "label=e:$v:m$m:$b $r mask=${m}x$m kernel=$v"; done
            done
            echo "label=e:default:f31:$b:colour $r f=31 planes=3"
        done
    } | build/roofline "$device" > "$out/verify.csv" 2>>"$log"
    say "verify: $(awk -F, 'NR > 1 && $18 == "true"' "$out/verify.csv" | wc -l) passed," \
        "$(awk -F, 'NR > 1 && $18 != "true"' "$out/verify.csv" | wc -l) failed or not run"
fi

# ---- clpeak: the FMA peak of this device, this run -----------------------------------------
if [ "${CLPEAK:-1}" = 1 ]; then
    deb=
    for f in "$tools"/clpeak_*.deb; do [ -f "$f" ] && deb=$f && break; done
    if [ -n "$deb" ]; then
        rm -rf "$out/clpeak-root"
        dpkg -x "$deb" "$out/clpeak-root"
        # clpeak's platform and device indices for the device the cases run on.
        pd=$(build/roofline --where "$device" 2>>"$log")
        stamp "clpeak --compute-sp (platform/device ${pd:-default})"
        # shellcheck disable=SC2086 # "P D": two words
        set -- $pd
        "$out/clpeak-root/usr/bin/clpeak" ${1:+-p "$1"} ${2:+-d "$2"} --compute-sp \
            > "$out/clpeak.txt" 2>>"$log"
        rm -rf "$out/clpeak-root"
    else
        say "no clpeak_*.deb in $tools: the FMA floors are left out"
    fi
fi

# ---- The timed cases -----------------------------------------------------------------------
stamp "timing the cases (roofline.csv)"
build/roofline "$device" < "$cases" > "$out/roofline.csv" 2>>"$log"
say "$(awk -F, 'NR > 1 && $NF != ""' "$out/roofline.csv" | wc -l) cases failed (error column)"

# ---- CuPy ----------------------------------------------------------------------------------
if [ "${PEER:-1}" = 1 ]; then
    stamp "CuPy (cupy.csv)"
    "$python" bench/cupy_roofline.py --out "$out/cupy.csv" \
        --sizes "$(for s in $sizes; do printf '%sx%s,' "$s" "$s"; done)" \
        --lengths "$(commas "$lengths")" --pairs "$(commas "$pairs")" \
        --masks "$(commas "$masks")" --planes "$(commas "$planes_list")" \
        -i "$peer_iter" 2>>"$log" || say "CuPy: no figures (see cupy.csv, $log)"
fi

# ---- Registers and spills of the slide variants (NVIDIA, with ptxas) ------------------------
if [ "${PTX:-1}" = 1 ] && command -v ptxas >/dev/null 2>&1; then
    stamp "registers of each variant from the driver's PTX (registers.txt)"
    mkdir -p "$out/ptx"
    # Only where the device's binaries are PTX (NVIDIA): a first one tells.
    echo "label=ptx g=64x64 f=15 i=1 kernel=long tune=dump-program=$out/ptx/probe.ptx" |
        build/roofline "$device" >/dev/null 2>>"$log"
    grep -q '^\.version' "$out/ptx/probe.ptx" 2>/dev/null ||
        { say "the device's programs are not PTX: no register counts"; separable=; mask_variants=; }
    rm -f "$out/ptx/probe.ptx"
    for v in $separable; do
        for n in 15 31 63; do
            [ "$v" = tiled ] && [ "$n" -gt 15 ] && continue
            echo "label=ptx g=64x64 f=$n i=1 kernel=$v tune=dump-program=$out/ptx/$v-f$n.ptx" |
                build/roofline "$device" \
                    >/dev/null 2>>"$log"
        done
    done
    for v in $mask_variants; do
        echo "label=ptx g=64x64 mask=15x15 i=1 kernel=$v tune=dump-program=$out/ptx/$v-m15.ptx" |
            build/roofline "$device" \
                >/dev/null 2>>"$log"
    done
    for f in "$out"/ptx/*.ptx; do
        grep -q '^\.version' "$f" 2>/dev/null || continue # PTX only (NVIDIA's binaries)
        ( echo "-- $(basename "$f" .ptx)"
          ptxas -arch=sm_90 -v "$f" -o /dev/null 2>&1 | grep -E 'registers|spill' ) > "$f.txt" &
    done
    wait
    cat "$out"/ptx/*.ptx.txt > "$out/registers.txt" 2>/dev/null
fi

# ---- The table -----------------------------------------------------------------------------
stamp "the table (table.md, table.csv)"
"$python" bench/roofline_table.py "$out"
stamp "done"
