#!/bin/sh
# For the GPU machine, which has the OpenCL headers but not libspng or libturbojpeg: unpacks
# the Debian packages carried in .carry/debs (apt-get download libspng0 libspng-dev
# libturbojpeg0 libturbojpeg0-dev, here) into /tmp/codecs and runs the command with the build
# and the loader pointed at them.
#   sh bench/with-codecs.sh make tiledconv
#   sh bench/with-codecs.sh bench/e2e.sh -o $OUT
set -eu
root=/tmp/codecs
if [ ! -d "$root/usr" ]; then
    mkdir -p "$root"
    for f in .carry/debs/*.deb; do
        if command -v dpkg >/dev/null 2>&1; then
            dpkg -x "$f" "$root"
        else # a .deb is an ar archive; binutils' ar comes with gcc
            (cd "$root" && ar p "$OLDPWD/$f" "$(ar t "$OLDPWD/$f" | grep '^data\.tar')" | tar -xJ)
        fi
    done
fi
lib=$root/usr/lib/x86_64-linux-gnu
# The packages' .pc files name /usr: the sysroot makes pkg-config point into $root.
PKG_CONFIG_PATH=$lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
PKG_CONFIG_SYSROOT_DIR=$root
LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR LD_LIBRARY_PATH
exec "$@"
