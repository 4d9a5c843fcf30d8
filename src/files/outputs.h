/* outputs.h - the tool's output files: the checks made before any work (where -o and --raw
 * may go), and the writing of the image and the float32 planes. */
#ifndef TILEDCONV_OUTPUTS_H
#define TILEDCONV_OUTPUTS_H

#include "tool_visible.h" /* src/io */

#include <stddef.h>
#include <sys/types.h>

#include "codec.h"
#include "tiledconv_internal.h"
#include "file_options.h"

/* Checks, before any work is done, that out_path may be written: it must be a new name in an
 * existing folder or an existing regular file (not a folder, a device such as /dev/null, a
 * FIFO), and not the input file itself (in_path may be NULL for -g). Returns 0, or -1 with a
 * message naming -o. */
int outputs_check(const char *out_path, const char *in_path, char *err, size_t err_size);

/* The same rules for the file of another flag (--raw); the message names that flag. */
TC_TOOL int outputs_check_flag(const char *flag, const char *out_path, const char *in_path, char *err,
                       size_t err_size);

/* An existing output that is read-only (no write bit, or not writable by this user) is not
 * replaced without --force (force 1). 0, or -1 with a message naming flag and path. */
TC_TOOL int outputs_check_replaceable(const char *flag, const char *path, int force, char *err,
                              size_t err_size);

/* 1 when a and b name the same file: the same string, or both exist and are one inode. */
int outputs_same(const char *a, const char *b);

/* The order of two files by what makes a file itself, its device and inode (stat's st_dev and
 * st_ino): -1, 0 (one file) or 1, for sorting files and finding one among them. */
int outputs_file_order(dev_t dev_a, ino_t ino_a, dev_t dev_b, ino_t ino_b);

/* One file of a run for outputs_check_distinct: an output, named by the flag that asks for it
 * ("-o", "--raw", "--class-map", "-O"), or an input (flag NULL); path NULL: none. */
typedef struct {
    const char *flag;
    const char *path;
} outputs_named;

/* No two outputs of one run resolve to the same file, and no output to one of the inputs
 * given (as outputs_same resolves names: one existing file under any of its names, links
 * included, or one new name in one folder however the folder is named); standard output ("-")
 * is no file. Found by sorting, so a batch's thousands of names cost a stat each. 0, or -1
 * with one line naming both ("-o x.bmp and --class-map ./x.bmp are the same file; give each
 * its own name", "-O d/a.bmp would replace the input d/a.bmp; refusing"). */
TC_TOOL int outputs_check_distinct(const outputs_named *files, size_t n, char *err, size_t err_size);

/* Every output the options ask for may be written (-o, --raw, --class-map), and no two of them
 * are the same file. 0, or -1 with the reason in err. */
TC_TOOL int outputs_check_all(const tc_options *o, char *err, size_t err_size);

/* Writes what the run produced: the image (-o, in o->image_format: gray for 1 plane, RGB for
 * 3, of `depth` bits per sample (8, or 16 with maxval 65535), with --scale/--offset inside the
 * target ROI) and the float planes (--raw: count planes one after another, each width x height
 * float32, little-endian, row 0 first, no header). Both are staged in temporary files, synced
 * (unless --no-sync), and renamed into place only when both are complete, so a failure writing
 * either leaves neither; for -o - the image is encoded in memory and reaches standard output
 * only whole, before the raw file is renamed. 0, or -1 with "FLAG PATH: reason" in err. */
int outputs_write(const tc_options *o, const tc_plane *planes, int count, const tc_roi *roi,
                  int depth, char *err, size_t err_size);

/* One image of outputs_write_all: a gray plane, its image file and its float file (either
 * NULL: not written). */
typedef struct {
    const tc_plane *plane;
    const char *image;
    const char *raw;
} outputs_item;

/* Many images written all or nothing (--pyramid's levels): every file is staged and synced
 * first (each image in o->image_format at `depth` bits, --scale/--offset applied to every
 * pixel; each raw file as --raw's), and only when all are complete are they put in place, the
 * folder synced once after the last. 0, or -1 with "-O PATH: reason" (or "--raw PATH: ...")
 * in err and none of the files written. */
TC_TOOL int outputs_write_all(const tc_options *o, const outputs_item *items, int count, int depth,
                      char *err, size_t err_size);
/* outputs_write with other planes for --raw than for the image: --gradient's image is the
 * magnitude, its raw file gx, gy and the magnitude. */
TC_TOOL int outputs_write_split(const tc_options *o, const tc_plane *planes, int count,
                        const tc_plane *raw_planes, int raw_count, const tc_roi *roi, int depth,
                        char *err, size_t err_size);

/* The output image from the planes: gray for one plane, R, G, B for three, 8 or 16 bits per
 * sample, with --scale/--offset applied to the target ROI (NULL: every pixel). img->pixels is
 * malloc'd. 0, or -1 (out of memory). */
int outputs_image_from_planes(const tc_options *o, const tc_plane *planes, int count,
                              const tc_roi *roi, int depth, io_image *img);

/* --raw's bytes: the planes one after another as little-endian float32, whatever the host's
 * byte order. 0, or -1 (a write error, errno set). */
int outputs_raw_stream(FILE *f, const tc_plane *planes, int count);

/* 1 when path is "-", standard output. */
TC_TOOL int outputs_is_stdout(const char *path);

/* How the reports name an output: "standard output" for "-", else the path. */
TC_TOOL const char *outputs_name(const char *path);

/* The output image's bits per sample for an input whose samples have more than 8 bits (deep) or
 * not: --depth when given, else 16 for a deep input written to PNG or PGM/PPM (16 bits are kept
 * where the format can hold them), else 8. */
TC_TOOL int outputs_depth(const tc_options *o, int deep);

/* "8-bit grayscale BMP", "16-bit colour PNG": what an output holds, for the reports. */
TC_TOOL void outputs_describe(io_format fmt, int depth, int channels, char *buf, size_t size);

/* -o -: keeps the process's standard output for the image alone. A copy of descriptor 1 is
 * kept for the image, and descriptor 1 then points at standard error, so that every report
 * (tables, --json and --csv records, -v's lines) goes there and nothing else can reach the
 * image's stream. SIGPIPE is ignored from then on, for the whole process (the batch writes
 * from its writer threads), so that a reader that goes away makes the write fail with EPIPE,
 * reported as one line with exit 1, instead of killing the tool without a word. Call once,
 * before anything is printed. 0, or -1 with the reason in err. */
TC_TOOL int outputs_claim_stdout(char *err, size_t err_size);

/* The descriptor the image goes to once standard output is claimed, else -1. */
TC_TOOL int outputs_stdout_fd(void);

/* What outputs_put_image and outputs_put_bytes sync: nothing (--no-sync); the file and, after
 * the rename, its folder; or the file alone, for a batch, which syncs its folder once at the
 * end (docs/safety.md, "Outputs"). */
enum { OUTPUTS_SYNC_NONE = 0, OUTPUTS_SYNC_ALL = 1, OUTPUTS_SYNC_FILE = 2 };

/* An image encoded as fmt (io_encode; quality for JPEG) into place at path: staged, synced
 * as sync says (OUTPUTS_SYNC_*), linked or renamed into place; or for "-" encoded in memory
 * and written to the claimed standard output whole. 0, or -1 with "PATH: reason" in err
 * ("-o -: ..." for standard output). */
TC_TOOL int outputs_put_image(const char *path, io_format fmt, const io_image *img, int quality,
                      int sync, char *err, size_t err_size);

/* Bytes of a finished file (the batch's BMP, headers and rows) into place at path, synced as
 * sync says (OUTPUTS_SYNC_*), or to the claimed standard output for "-". 0, or -1 with
 * "PATH: reason" in err. */
int outputs_put_bytes(const char *path, const uint8_t *data, size_t size, int sync, char *err,
                      size_t err_size);

#endif
