/* outfile.h - the output image: where it may go, and its 8-bit conversion. */
#ifndef TILEDCONV_OUTFILE_H
#define TILEDCONV_OUTFILE_H

#include <stddef.h>
#include <stdint.h>

#include "filter.h"

/* Checks, before any work is done, that out_path may be written: it must be a new name or an
 * existing regular file (not a folder, a device such as /dev/null, a FIFO), and not the input
 * file itself (in_path may be NULL for -g). Returns 0, or -1 with a message naming the flag. */
int outfile_check(const char *out_path, const char *in_path, char *err, size_t err_size);

/* SPEC.md's 8-bit conversion: floor(clamp(v, 0, 255) + 0.5); NaN becomes 0. */
uint8_t outfile_to_byte(float v);

/* The plane converted to bytes, row 0 on top; NULL when out of memory. */
uint8_t *outfile_gray8(const tc_plane *p);

#endif
