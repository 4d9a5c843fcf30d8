/* outputs.h - the tool's output files: the checks made before any work (where -o and --raw
 * may go), and the writing of the image and the float32 planes. */
#ifndef TILEDCONV_OUTPUTS_H
#define TILEDCONV_OUTPUTS_H

#include <stddef.h>

#include "image.h"
#include "options.h"

/* Checks, before any work is done, that out_path may be written: it must be a new name in an
 * existing folder or an existing regular file (not a folder, a device such as /dev/null, a
 * FIFO), and not the input file itself (in_path may be NULL for -g). Returns 0, or -1 with a
 * message naming -o. */
int outputs_check(const char *out_path, const char *in_path, char *err, size_t err_size);

/* The same rules for the file of another flag (--raw); the message names that flag. */
int outputs_check_flag(const char *flag, const char *out_path, const char *in_path, char *err,
                       size_t err_size);

/* An existing output that is read-only (no write bit, or not writable by this user) is not
 * replaced without --force (force 1). 0, or -1 with a message naming flag and path. */
int outputs_check_replaceable(const char *flag, const char *path, int force, char *err,
                              size_t err_size);

/* 1 when a and b name the same file: the same string, or both exist and are one inode. */
int outputs_same(const char *a, const char *b);

/* Every output the options ask for may be written (-o, --raw, and not both the same file).
 * 0, or -1 with the reason in err. */
int outputs_check_all(const tc_options *o, char *err, size_t err_size);

/* Writes what the run produced: the image (-o: 8-bit grayscale, or 24-bit for 3 planes, with
 * --scale/--offset inside the target ROI) and the float planes (--raw: count planes one after
 * another, each width x height float32, little-endian, row 0 first, no header). Both are
 * staged in temporary files, synced, and renamed into place only when both are complete, so a
 * failure writing either leaves neither. 0, or -1 with "FLAG PATH: reason" in err. */
int outputs_write(const tc_options *o, const tc_plane *planes, int count, const tc_roi *roi,
                  char *err, size_t err_size);

#endif
