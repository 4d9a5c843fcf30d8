#!/bin/sh
# Installs the Debian packages that tiledconv needs and that are missing, and says what it does.
# Usage: scripts/install-deps.sh PACKAGE...   (the Makefile passes the list for each target)
# Nothing happens when every package is already there, so `make run` and `make test` stay fast.
set -eu

missing=""
for pkg in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
        missing="$missing $pkg"
    fi
done
[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
    echo "tiledconv: missing packages:$missing; this is not a Debian system, install them by hand" >&2
    exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "tiledconv: missing packages:$missing; run as root or install sudo" >&2
    exit 1
fi

echo "tiledconv: installing missing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
# Refresh the package lists only when apt cannot find a package (a fresh image has none).
if ! $SUDO apt-get install -y --no-install-recommends $missing; then
    echo "tiledconv: refreshing the package lists (apt-get update)"
    $SUDO apt-get update
    $SUDO apt-get install -y --no-install-recommends $missing
fi
