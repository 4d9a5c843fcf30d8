#!/bin/sh
# Spreads a list of images over several tiledconv processes, GPUs and hosts with GNU parallel:
# the list is cut into blocks, and each block goes to one `tiledconv --files-from - -O DIR`
# batch, which keeps its device context and programs for all the images of its block.
#
#   find photos -name '*.bmp' | scripts/batch-parallel.sh -O out -j 4 -- --filter gauss -f 5
#
# Options (before --; what follows -- goes to every tiledconv):
#   -O DIR      output folder (required; must exist on every host)
#   -j N        jobs at once per host (default 2)
#   -g N        GPUs per host: job slot k uses device (k - 1) mod N (-d); default: the default
#               device for every job
#   -n N        names per block (default 200)
#   -S HOSTS    GNU parallel's --sshlogin: comma-separated hosts, ":" for this one; the input
#               and output paths must be the same there (a shared file system) and tiledconv
#               on the PATH
#   -t PATH     the tiledconv to run (default: ./tiledconv if it exists, else tiledconv)
# Exit status: 0 when every job succeeded, else 1; each job's summary line on stderr says what
# it refused or failed (every job runs, whatever the others do). GNU parallel is Debian's
# `parallel`.
set -eu

out=""
jobs=2
gpus=0
names=200
hosts=""
bin=""
while getopts O:j:g:n:S:t: opt; do
    case $opt in
        O) out=$OPTARG ;;
        j) jobs=$OPTARG ;;
        g) gpus=$OPTARG ;;
        n) names=$OPTARG ;;
        S) hosts=$OPTARG ;;
        t) bin=$OPTARG ;;
        *) echo "usage: $0 -O DIR [-j N] [-g N] [-n N] [-S HOSTS] [-t PATH] [-- OPTIONS] < list" >&2
           exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
if [ -z "$out" ]; then
    echo "batch-parallel: -O DIR is required" >&2
    exit 2
fi
if ! command -v parallel >/dev/null 2>&1; then
    echo "batch-parallel: GNU parallel is missing (Debian package: parallel)" >&2
    exit 2
fi
if [ -z "$bin" ]; then
    if [ -x ./tiledconv ]; then bin=$(pwd)/tiledconv; else bin=tiledconv; fi
fi

# The device of a job: its slot number ({%}, 1-based) modulo the GPUs, when they are given.
device=""
if [ "$gpus" -gt 0 ]; then
    device="-d \$(( ({%} - 1) % $gpus ))"
fi
# Each argument of the tiledconv options, quoted for the shell that parallel starts.
extra=""
for a in "$@"; do
    extra="$extra '$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'"
done

set +e
if [ -n "$hosts" ]; then
    parallel --pipe -N "$names" -j "$jobs" --sshlogin "$hosts" --halt never \
        "$bin --files-from - -O '$out' -q $device $extra"
else
    parallel --pipe -N "$names" -j "$jobs" --halt never \
        "$bin --files-from - -O '$out' -q $device $extra"
fi
rc=$?
set -e
# parallel's status is the number of failed jobs (capped at 101).
[ "$rc" -eq 0 ] && exit 0
exit 1
