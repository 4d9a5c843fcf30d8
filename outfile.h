/* outfile.h - the output files: where they may go, the 8-bit conversion of the image (with
 * --scale/--offset), the 24-bit colour image, and the float32 --raw file. */
#ifndef TILEDCONV_OUTFILE_H
#define TILEDCONV_OUTFILE_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "filter.h"

/* Checks, before any work is done, that out_path may be written: it must be a new name or an
 * existing regular file (not a folder, a device such as /dev/null, a FIFO), and not the input
 * file itself (in_path may be NULL for -g). Returns 0, or -1 with a message naming -o. */
int outfile_check(const char *out_path, const char *in_path, char *err, size_t err_size);

/* The same rules for the file of another flag (--raw); the message names that flag. */
int outfile_check_flag(const char *flag, const char *out_path, const char *in_path, char *err,
                       size_t err_size);

/* 1 when a and b name the same file: the same string, or both exist and are one inode. */
int outfile_same(const char *a, const char *b);

/* SPEC.md's 8-bit conversion: floor(clamp(v, 0, 255) + 0.5); NaN becomes 0. */
uint8_t outfile_to_byte(float v);

/* The --scale/--offset mapping, then the conversion: floor(clamp(v * scale + offset, 0, 255)
 * + 0.5), evaluated in double so that the identity mapping changes no value. */
uint8_t outfile_map_byte(float v, double scale, double offset);

/* The plane converted to bytes, row 0 on top. Pixels inside roi (the target ROI) are mapped
 * with scale and offset; pixels outside it are the input's and are only converted, so that
 * --offset does not brighten what the filter never touched. roi NULL maps every pixel.
 * NULL when out of memory. */
uint8_t *outfile_gray8(const tc_plane *p, const tc_roi *roi, double scale, double offset);

/* The same for three planes R, G, B of one size, packed as R, G, B bytes for bmp_write_rgb24. */
uint8_t *outfile_rgb24(const tc_plane planes[3], const tc_roi *roi, double scale,
                       double offset);

/* --raw: count planes (1, or 3 for R, G, B) one after another, each width x height float32,
 * little-endian, row-major, row 0 on top, no header. Written to a temporary name in the same
 * folder, synced and renamed into place, so a failure leaves no partial file. Returns 0, or -1
 * with "PATH: reason" in err. */
int outfile_write_raw(const char *path, const tc_plane *planes, int count, char *err,
                      size_t err_size);

/* The same bytes to an open stream, no flush (for outputs staged with atomic_file). 0, or -1
 * with errno set by the failing write. */
int outfile_write_raw_stream(FILE *f, const tc_plane *planes, int count);

#endif
