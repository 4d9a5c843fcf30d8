#!/bin/sh
# Turns an OpenCL source file into a C array of string literals, one per line, so that the
# library carries its kernels: clCreateProgramWithSource takes the array and its length as is.
# Usage: embed-cl.sh FILE.cl NAME > FILE_cl.c   (defines NAME_lines and NAME_line_count)
set -eu
name=${2:-tiledconv_cl}
echo "/* Generated from $1 by scripts/embed-cl.sh: do not edit. */"
echo '#include "programs.h"'
echo "const char *const ${name}_lines[] = {"
sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$/\\n",/' "$1"
echo '};'
echo "const unsigned ${name}_line_count = sizeof ${name}_lines / sizeof ${name}_lines[0];"
