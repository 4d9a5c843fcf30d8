/* kernel_source.h - TiledConv.cl, embedded in the binary at build time (scripts/embed-cl.sh). */
#ifndef TILEDCONV_KERNEL_SOURCE_H
#define TILEDCONV_KERNEL_SOURCE_H

extern const char *const tiledconv_cl_lines[];
extern const unsigned tiledconv_cl_line_count;

#endif
