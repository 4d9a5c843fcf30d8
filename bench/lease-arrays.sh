#!/bin/sh
# bench/lease-arrays.sh - one GPU lease's Python array figures, in one call of the device tool:
# builds the library with the carried codecs, then runs the shared side-by-side script as given
# (arrays_side_by_side.py from .carry/peers, PYTHONPATH=python), the JPEG stages of 20 batch
# photos on one core (build/jpeg_stages --files), bench/result_memory.py, and
# with AGAIN=1 the side-by-side script again in a new process, each under its own time limit,
# every output under OUT. Prepare the carry first (sh bench/carry.sh).
#
#   sh bench/lease-arrays.sh OUT [PYTHON]      (PYTHON default /opt/torch/.venv/bin/python3)
set -u
out=${1:?usage: bench/lease-arrays.sh OUT [PYTHON]}
py=${2:-/opt/torch/.venv/bin/python3}
mkdir -p "$out"
codecs="env DEBS=$PWD/.carry/debs sh bench/with-codecs.sh"
step() { # step NAME SECONDS COMMAND...: the command's output in OUT/NAME.txt, its time and status
    name=$1 limit=$2
    shift 2
    t0=$(date +%s.%N)
    PYTHONPATH=python timeout "$limit" "$@" >"$out/$name.txt" 2>&1
    rc=$?
    printf '%s: exit %s in %.1f s (%s UTC)\n' "$name" "$rc" \
        "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" \
        "$(date -u +%H:%M:%S)" | tee -a "$out/steps.txt"
}
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; git rev-parse HEAD 2>/dev/null; } >"$out/machine.txt" 2>&1
step build 120 $codecs make -s -j"$(nproc)" tiledconv lib
step side_by_side_1 240 $codecs "$py" .carry/peers/arrays_side_by_side.py
# The JPEG stages on one core with the batch benchmarks' photos (make_photos.py), not
# jpeg_stages' own synthetic ones, whose texture makes the entropy coding several times dearer.
step photos 60 "$py" bench/make_photos.py --out /tmp/lease-photos --count 20 --size 1920x1080 \
    --format jpeg --quality 90
step stages 90 $codecs sh -c 'make -s build/jpeg_stages && build/jpeg_stages gpu --files /tmp/lease-photos/*.jpg'
step result_memory 150 $codecs "$py" bench/result_memory.py gpu 1000 4
[ "${AGAIN:-0}" = 1 ] && step side_by_side_2 240 $codecs "$py" .carry/peers/arrays_side_by_side.py
