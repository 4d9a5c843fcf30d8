#!/bin/sh
# Turns an OpenCL source file into a C array of string literals, one per line, so that the
# binary carries its kernels: clCreateProgramWithSource takes the array and its length as is.
# Usage: embed-cl.sh FILE.cl > FILE_cl.c
set -eu
echo "/* Generated from $1 by scripts/embed-cl.sh: do not edit. */"
echo '#include "programs.h"'
echo 'const char *const tiledconv_cl_lines[] = {'
sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$/\\n",/' "$1"
echo '};'
echo 'const unsigned tiledconv_cl_line_count = sizeof tiledconv_cl_lines / sizeof tiledconv_cl_lines[0];'
