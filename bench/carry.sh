#!/bin/sh
# bench/carry.sh - fills .carry, the git-ignored folder that travels with the tree to the GPU
# machine (which has no network and neither libspng nor TurboJPEG): the codecs' Debian packages
# (.carry/debs, for bench/with-codecs.sh), the shared peer scripts (.carry/peers), and with
# --wheels the wheels of Dask, distributed and dask-image for the dask scenario
# (.carry/wheels, for the Python of the GPU machine, default 3.10; about 47 MB, which leaves
# little of what a run may carry: fill them only for a Dask run). Run on the development
# machine, from the repository root; it says what it fetched and how large .carry is.
#
#   sh bench/carry.sh [--wheels [PYTHON_VERSION]]
#
# Environment: PEERS (default ../shared/peers), the folder of opencv_job.py and the others.
set -eu
carry=.carry
peers=${PEERS:-../shared/peers}
[ -f Makefile ] && [ -d bench ] || { echo "carry.sh: run it from the repository root" >&2; exit 2; }
mkdir -p "$carry/debs" "$carry/peers"

# The codecs as the development machine's Debian has them, the versions the tests ran with.
# (apt-get warns, as root, that its sandbox user cannot write here: harmless, left out.)
log=$(mktemp)
if ! (cd "$carry/debs" && apt-get download libspng0 libspng-dev libturbojpeg0 \
    libturbojpeg0-dev libjpeg62-turbo libjpeg62-turbo-dev libjpeg-dev libjpeg-turbo-progs \
    >/dev/null 2>"$log"); then
    cat "$log" >&2
    rm -f "$log"
    echo "carry.sh: apt-get download failed (is the package index there? apt-get update)" >&2
    exit 1
fi
grep -v 'unsandboxed' "$log" >&2 || true
rm -f "$log"
echo "carry.sh: $(ls "$carry/debs" | wc -l) packages in $carry/debs"

if [ -d "$peers" ]; then
    cp "$peers"/*.py "$carry/peers/"
    echo "carry.sh: the peers of $peers in $carry/peers: $(cd "$carry/peers" && ls | tr '\n' ' ')"
else
    echo "carry.sh: no $peers: the peer scenarios will run without their peers" >&2
fi

if [ "${1:-}" = --wheels ]; then
    version=${2:-3.10}
    mkdir -p "$carry/wheels"
    python3 -m pip download -q -d "$carry/wheels" dask distributed dask-image \
        --only-binary=:all: --python-version "$version" --platform manylinux2014_x86_64 ||
        { echo "carry.sh: pip download failed" >&2; exit 1; }
    echo "carry.sh: $(ls "$carry/wheels" | wc -l) wheels in $carry/wheels"
fi
echo "carry.sh: $carry holds $(du -sh "$carry" | cut -f1) (a run carries at most 64 MiB)"
