/*
 * png.h - PNG through libspng, for codec.c (callers use codec.h).
 *
 * Read: every colour type and bit depth of the PNG specification, interlaced or not: gray of
 * 1/2/4/8 bits becomes 8-bit gray (scaled to 0..255 as the specification's bit replication
 * does), 16-bit gray stays 16-bit; palette images become 8-bit RGB; RGB keeps its 8 or 16 bits;
 * alpha is dropped; tRNS, gAMA, sBIT and iCCP are not applied.
 * Written: 8 or 16-bit gray or RGB, not interlaced, libspng's default compression.
 */
#ifndef TILEDCONV_PNG_H
#define TILEDCONV_PNG_H

#include "codec_common.h"

/* The memory libspng may keep for ancillary chunks (text, ICC profile, EXIF) that we never use,
 * and the most one compressed text chunk may inflate to: without them a zTXt of a few kilobytes
 * could inflate to gigabytes (libspng's defaults are unlimited). */
#define PNG_CHUNK_CACHE_LIMIT ((size_t)16 << 20)
#define PNG_TEXT_LIMIT ((size_t)4 << 20)

/* io_decode for a PNG: the same contract, messages start with "PNG: ". */
int png_decode(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
               io_image *img, char *err, size_t err_size);

/* png_decode's checks of the header alone (codec.h's io_probe). */
int png_probe(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
              io_header *h, char *err, size_t err_size);

/* io_encode for a PNG. */
int png_encode(FILE *f, const io_image *img, const char *path, char *err, size_t err_size);

/* Row by row: png_decode's rows from the top, one at a time (io_image's layout for one row),
 * with its checks and words. data must stay valid while the reader is open. Returns 0 with *r
 * open, *h filled and *held the bytes the reader keeps; 1 for an interlaced file (Adam7 passes
 * cover the whole picture: decode it whole), with *h and *held (what png_decode then holds)
 * filled; -1 with the reason. png_rows_finish, after the last row, makes png_decode's checks of
 * what follows the image (the chunks to IEND). */
typedef struct png_rows png_rows;
int png_rows_open(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
                  png_rows **r, io_header *h, size_t *held, char *err, size_t err_size);
int png_rows_next(png_rows *r, void *row, char *err, size_t err_size);
int png_rows_finish(png_rows *r, char *err, size_t err_size);
void png_rows_close(png_rows *r);

/* The file png_encode writes (the same bytes), given its rows from the top one at a time
 * (libspng's progressive encoding). Each returns 0, or -1 with "PATH: reason";
 * png_writer_free always. */
typedef struct png_writer png_writer;
int png_writer_begin(FILE *f, int width, int height, int channels, int depth, const char *path,
                     png_writer **w, char *err, size_t err_size);
int png_writer_row(png_writer *w, const void *row, char *err, size_t err_size);
/* After the last row: every row written (the last one wrote IEND). */
int png_writer_end(png_writer *w, char *err, size_t err_size);
void png_writer_free(png_writer *w);
/* The most a writer of that image keeps: scanlines, the deflater's state, its output buffer. */
size_t png_writer_bytes(int width, int height, int channels);

#endif
