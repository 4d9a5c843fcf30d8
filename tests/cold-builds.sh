#!/bin/sh
# tests/cold-builds.sh - every kind of kernel program the library builds compiles without a
# word, as on a fresh machine: PoCL's kernel cache and the library's program cache empty, every
# build with -Werror, and nothing on stderr. Programs are built from the tool (every algorithm,
# variant, border, storage, the bands' shortest and longest lengths, per-axis filters, masks,
# ROI shifts, blocks, scalar I/O, class counting, the gradient, the scale space, the batch's
# 8-bit conversions) and from the Python binding (the fused 8-bit kernels, the channel-last
# layouts). The optimiser is off for most (PoCL's front end is where the warnings come from:
# a program's build is then a tenth of the time); a sample is built with it on, for the
# optimiser's own warnings (a loop that would not unroll).
#
# PoCL compiles for the CPU it runs on, and some of clang's warnings depend on that CPU: the
# float16 arguments the kernels once took drew -Wpsabi on x86 CPUs without AVX-512 only. So
# each program is also compiled, as the library built it (its source and options written by
# --tune dump-source), by the clang of PoCL's own LLVM for two x86-64 CPUs without AVX-512
# (x86-64-v2: SSE4.2; x86-64-v3: AVX2), with -Werror.
#
# The runs take the tool's default device (a GPU if there is one). On the GPU machine, where
# NVIDIA's compiler builds them and PoCL's clang is not installed, CLANG_CHECK=off leaves out
# the last step, CUDA_CACHE_DISABLE=1 keeps NVIDIA's program cache out of it, and PYTHON names
# an interpreter with numpy (the machine's /usr/bin/python3 has none):
#
#   sh tests/cold-builds.sh BINARY
#   CLANG_CHECK=off CUDA_CACHE_DISABLE=1 PYTHON=/opt/torch/.venv/bin/python3 \
#       sh tests/cold-builds.sh ./tiledconv   # the GPU machine
. "$(dirname "$0")/lib.sh"
test_begin cold-builds "$@"

started=$(date +%s)
export POCL_CACHE_DIR="$tmp/pocl" XDG_CACHE_HOME="$tmp/xdg" TILEDCONV_PROGRAM_CACHE=off
mkdir -p "$POCL_CACHE_DIR" "$XDG_CACHE_HOME" "$tmp/sources" "$tmp/runs"

# The clang of the LLVM that PoCL links.
clang_check=${CLANG_CHECK:-on}
if [ "$clang_check" != off ]; then
    pocl_lib=$(ldconfig -p | sed -n 's/.*libpocl\.so\.[0-9]* .*=> //p' | head -n 1)
    llvm=$(ldd "$pocl_lib" 2>/dev/null | sed -n 's/.*libLLVM-\([0-9]*\).*/\1/p' | head -n 1)
    clang=clang-${llvm:-none}
    command -v "$clang" >/dev/null 2>&1 || {
        echo "cold-builds: $clang (PoCL's compiler, LLVM ${llvm:-unknown}) is not installed" >&2
        exit 1
    }
fi

# A mask of W x H weights that is not rank 1 (no factoring: the 2-D kernels build).
mask() {
    awk -v w="$1" -v h="$2" 'BEGIN {
        for (j = 0; j < h; j++) {
            row = "";
            for (i = 0; i < w; i++) row = row (i ? "," : "") ((i * 7 + j * 3 + i * j) % 5 - 1);
            printf "%s%s", (j ? ";" : ""), row;
        }
    }'
}

borders="replicate constant reflect101 reflect wrap"
cases="$tmp/cases"
: >"$cases"
add() { echo "$*" >>"$cases"; }

# Separable filters: each band's shortest and longest length (variants.c), every border, the
# three algorithms; image objects (with the bilinear passes) at the shortest, a middle and the
# longest length; per axis, rows only (tiled_rows_conv) and columns only.
for b in $borders; do
    for t in 3 9 11 15 17 21 23 41 43 63; do
        add "-f $t --border $b -a all"
    done
    for t in 3 15 63; do
        add "-f $t --border $b -a all --storage image"
    done
    for t in 3 63; do
        add "-f ${t}x1 --border $b"
        add "-f 1x$t --border $b"
    done
done
# Masks: each band's smallest and largest (variants.c), every border, both algorithms.
for s in 3x3 7x7 9x9 11x11 13x13 15x15; do
    m=$(mask "${s%x*}" "${s#*x}")
    for b in $borders; do
        add "--mask '$m' --border $b -a all"
    done
done
# Every variant of --kernel at its shortest and longest length, the borders taken in turn
# (the defaults above have every border).
variants=$(sed -n 's/^ *{\.name = "\([a-z0-9-]*\)".*/\1/p' "$root/src/variants.c")
turn=0
for v in $variants; do
    case $v in
        mask | mrows*) lengths="--mask '$(mask 5 3)'|--mask '$(mask 15 15)'" ;;
        tiled) lengths="-f 3|-f 15" ;;
        rows) lengths="-f 3x1|-f 63x1" ;;
        *) lengths="-f 3|-f 63" ;;
    esac
    old_ifs=$IFS
    IFS='|'
    for l in $lengths; do
        b=$(echo "$borders" | cut -d ' ' -f $((turn % 5 + 1)))
        turn=$((turn + 1))
        add "--kernel $v $l --border $b"
    done
    IFS=$old_ifs
done
# What else changes a program's options: ROIs on each source alignment, blocks, scalar I/O,
# the class counters (-v), and a colour image.
for s in 1 2 3; do add "-f 5 -sL $s -tL 0 -W 40 -H 30 -a all"; done
add "-f 7 --block 8x16"
add "-f 7 --block 4x1 --scalar-io"
add "-f 31 --scalar-io"
add "-f 5 -v"
add "-f 41 -v"
add "--mask '$(mask 9 9)' -v"
add "-f 5 --color -a all"
# The gradient and the scale space.
for op in sobel scharr; do
    for b in $borders; do add "--gradient $op --border $b -a all"; done
done
add "--pyramid 2x2 -t"
add "--pyramid 2x3 --sigma 1 -t"

# The batch's 8-bit conversions on the device: gray and colour, 8 and 16 bits.
"$bin" -g 61x37 -o "$tmp/gray.pgm" -q --tune detach=0 && cp "$tmp/gray.pgm" "$tmp/gray2.pgm" &&
    "$bin" -g 61x37 --color -o "$tmp/colour.ppm" -q && "$bin" -g 61x37 --color -o "$tmp/c.bmp" -q &&
    "$bin" -g 61x37 --depth 16 -o "$tmp/deep.png" -q || {
    echo "cold-builds: cannot make the inputs" >&2
    exit 1
}
# The inputs' own builds are not the test's: the cache starts empty again.
rm -rf "$POCL_CACHE_DIR"
mkdir -p "$POCL_CACHE_DIR"
inputs="$tmp/gray.pgm $tmp/gray2.pgm $tmp/colour.ppm $tmp/c.bmp $tmp/deep.png"

# run N ARGS...: one case, its exit status and stderr kept as runs/N.rc and runs/N.err.
cat >"$tmp/run-case" <<'EOF'
#!/bin/sh
n=$1 bin=$2 tmp=$3 inputs=$4
shift 4
if [ "$1" = batch ]; then
    shift
    set -- "$@" -O "$tmp/out-$n" $inputs
else
    set -- -g 61x37 "$@" --no-output
fi
"$bin" "$@" -q --tune "dump-source=$tmp/sources" >/dev/null 2>"$tmp/runs/$n.err"
echo $? >"$tmp/runs/$n.rc"
EOF
for f in 5 31; do
    add "batch -f $f"
    add "batch -f $f --color"
done

count=$(wc -l <"$cases")
export TILEDCONV_CL_OPTIONS="-cl-opt-disable -Werror"
# Two at a time (PoCL compiles on one core).
n=0
while IFS= read -r line; do
    n=$((n + 1))
    eval "sh \"\$tmp/run-case\" $n \"\$bin\" \"\$tmp\" \"\$inputs\" $line" &
    [ $((n % 2)) -eq 0 ] && wait
done <"$cases"
wait

bad=
n=0
while IFS= read -r line; do
    n=$((n + 1))
    rc=$(cat "$tmp/runs/$n.rc" 2>/dev/null || echo missing)
    if [ "$rc" != 0 ] || [ -s "$tmp/runs/$n.err" ]; then
        bad="$bad [$line: exit $rc, $(head -c 300 "$tmp/runs/$n.err" | tr '\n' ' ')]"
    fi
done <"$cases"
programs=$(ls "$tmp/sources" | wc -l)
echo "cold-builds: $count runs built $programs programs on PoCL, optimiser off, -Werror"
verdict "every run of $count built its programs from a cold cache with -Werror, stderr empty"

# The optimiser's sample: the default kernels at each band's longest length, a mask of each
# band, the gradient, the scale space and a batch, with PoCL's optimiser as a user's run.
rm -rf "$POCL_CACHE_DIR"
mkdir -p "$POCL_CACHE_DIR"
export TILEDCONV_CL_OPTIONS="-Werror"
bad=
opt=0
for line in "-f 9" "-f 15 --border reflect" "-f 21" "-f 41" "-f 63 --border wrap" "-f 63x1" \
    "--mask '$(mask 7 7)'" "--mask '$(mask 11 11)' --border reflect101" \
    "--mask '$(mask 15 15)'" "--gradient sobel" "--pyramid 2x2" "batch -f 5 --color"; do
    opt=$((opt + 1))
    eval "sh \"\$tmp/run-case\" o$opt \"\$bin\" \"\$tmp\" \"\$inputs\" $line"
    rc=$(cat "$tmp/runs/o$opt.rc")
    if [ "$rc" != 0 ] || [ -s "$tmp/runs/o$opt.err" ]; then
        bad="$bad [$line: exit $rc, $(head -c 300 "$tmp/runs/o$opt.err" | tr '\n' ' ')]"
    fi
done
verdict "$opt runs with PoCL's optimiser on, from a cold cache, -Werror: stderr empty"

# The Python binding's own programs: the fused 8-bit kernels (gray bytes, short and long
# filters), the channel-last layouts (uint8 and uint16 RGB, float32 RGBA), every border.
rm -rf "$POCL_CACHE_DIR"
mkdir -p "$POCL_CACHE_DIR"
export TILEDCONV_CL_OPTIONS="-cl-opt-disable -Werror"
PYTHONPATH="$root/python" TILEDCONV_LIBRARY="$root/build/lib/libtiledconv.so.1" \
    "${PYTHON:-/usr/bin/python3}" - "$tmp/sources" >"$tmp/python.out" 2>"$tmp/python.err" <<'EOF'
import sys
import numpy as np
import tiledconv
from tiledconv import _native
_native.tune("dump-source=" + sys.argv[1])
rng = np.random.default_rng(1)
with tiledconv.Context() as ctx:
    for border in ("replicate", "constant", "reflect101", "reflect", "wrap"):
        for taps in (5, 31):
            k = np.ones(taps, np.float32) / taps
            for shape, dtype in (((37, 61), np.uint8), ((37, 61, 3), np.uint8),
                                 ((37, 61, 3), np.uint16), ((37, 61, 4), np.float32)):
                img = (rng.random(shape) * 200).astype(dtype)
                ctx.filter_batch([img, img], kx=k, ky=k, border=border)
                ctx.filter(img, kx=k, ky=k, border=border)
print("done")
EOF
rc=$?
bad=
[ "$rc" -eq 0 ] && grep -q done "$tmp/python.out" && [ ! -s "$tmp/python.err" ] ||
    bad="exit $rc, $(head -c 400 "$tmp/python.err" | tr '\n' ' ')"
verdict "the Python binding's fused and channel-last programs from a cold cache, -Werror"

# Every program built above, through PoCL's clang for CPUs without AVX-512.
total=$(ls "$tmp/sources" | wc -l)
cpus="x86-64-v2 x86-64-v3"
if [ "$clang_check" = off ]; then
    cpus=
    echo "cold-builds: CLANG_CHECK=off, the programs were not compiled by PoCL's clang"
fi
for cpu in $cpus; do
    bad=
    for f in "$tmp/sources"/program-*; do
        # The options as the library passed them, less the optimiser switch clang spells so.
        opts=$(head -n 1 "$f" | sed 's,^// options: ,,; s/-cl-opt-disable//g; s/-cl-nv-[^ ]*//g')
        # shellcheck disable=SC2086
        if ! "$clang" -x cl -Xclang -finclude-default-header -target x86_64-pc-linux-gnu \
            -march=$cpu -O0 -Dinline= $opts -Werror -S -emit-llvm -o /dev/null "$f" >"$tmp/clang.err" 2>&1 ||
            [ -s "$tmp/clang.err" ]; then
            bad="$bad [$(basename "$f") ($opts): $(grep -m 1 -E 'warning|error' "$tmp/clang.err")]"
        fi
    done
    verdict "the $total programs through $clang for $cpu (no AVX-512), -Werror: no word"
done

echo "cold-builds: $total programs, $(($(date +%s) - started)) s"
test_end
