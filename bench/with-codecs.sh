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
    for f in .carry/debs/*.deb; do dpkg -x "$f" "$root"; done
fi
lib=$root/usr/lib/x86_64-linux-gnu
# The packages' .pc files name /usr: the sysroot makes pkg-config point into $root.
PKG_CONFIG_PATH=$lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
PKG_CONFIG_SYSROOT_DIR=$root
LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR LD_LIBRARY_PATH
exec "$@"
