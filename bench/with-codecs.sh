#!/bin/sh
# For the GPU machine, which has the OpenCL headers but not libspng or libturbojpeg: unpacks
# the Debian packages carried in DEBS (default .carry/debs; made here with `apt-get download
# libspng0 libspng-dev libturbojpeg0 libturbojpeg0-dev libjpeg62-turbo libjpeg62-turbo-dev
# libjpeg-dev libjpeg-turbo-progs`) into /tmp/codecs and runs the command with the build, the
# loader and the PATH (djpeg, cjpeg) pointed at them. Without packages in DEBS it runs the
# command as it is, so the same line works where the libraries are installed.
#   sh bench/with-codecs.sh bench/run kernel "$OUT/kernel"
#   sh bench/with-codecs.sh make tiledconv
set -eu
debs=${DEBS:-.carry/debs}
root=/tmp/codecs
if ! ls "$debs"/*.deb >/dev/null 2>&1; then
    exec "$@"
fi
if [ ! -d "$root/usr" ]; then
    mkdir -p "$root"
    for f in "$debs"/*.deb; do
        if command -v dpkg >/dev/null 2>&1; then
            dpkg -x "$f" "$root"
        else # a .deb is an ar archive; binutils' ar comes with gcc
            here=$(pwd)
            case $f in /*) deb=$f ;; *) deb=$here/$f ;; esac
            (cd "$root" && ar p "$deb" "$(ar t "$deb" | grep '^data\.tar')" | tar -xJ)
        fi
    done
fi
lib=$root/usr/lib/x86_64-linux-gnu
# jpeglib.h includes jconfig.h, which Debian keeps in the multiarch folder: without it there the
# compiler takes the machine's own (libjpeg-turbo8's on the GPU machine, JPEG_LIB_VERSION 80)
# and libjpeg62 refuses every call ("Wrong JPEG library version").
CPATH=$root/usr/include/x86_64-linux-gnu${CPATH:+:$CPATH}
export CPATH
# The packages' .pc files name /usr: the sysroot makes pkg-config point into $root.
PKG_CONFIG_PATH=$lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
PKG_CONFIG_SYSROOT_DIR=$root
LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
PATH=$PATH:$root/usr/bin
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR LD_LIBRARY_PATH PATH
exec "$@"
