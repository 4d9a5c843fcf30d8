/*
 * rows.h - images read and written a row at a time, in every format codec.h knows, so that an
 * image larger than the memory a run may use can be filtered in strips (bands of rows).
 *
 * A reader gives the rows of io_decode's image from the top, each as io_image lays out one row
 * (width * channels samples of 8 or 16 bits, alpha dropped, a palette expanded), with io_decode's
 * checks and words: the same pixels, whichever way the image is read. A writer takes rows from
 * the top and writes the file io_encode writes, byte for byte.
 *
 * What a format allows: PNG (libspng's progressive decoding and encoding), PGM/PPM and
 * uncompressed BMP go row by row; JPEG too, through libjpeg's scanline API, where the build has
 * it (jpeg.h), but a progressive or multi-scan JPEG keeps every coefficient of the image while it
 * is read. An interlaced PNG (Adam7's passes each span the picture), an RLE BMP (its runs go
 * from the bottom up) and a JPEG without libjpeg are decoded whole at the first row and served
 * from memory. Each reader and writer says what it holds, so that a caller can count it.
 */
#ifndef TILEDCONV_ROWS_H
#define TILEDCONV_ROWS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "codec.h"
#include "io_limits.h"

typedef struct io_row_reader io_row_reader;

/* Opens a reader on a whole encoded file in memory, of format fmt (io_detect's), with lim's
 * pixel limit and bomb guard (NULL: the defaults). data must stay valid and unchanged while the
 * reader is open. *h says what the rows hold; *held is the most the reader itself keeps while
 * open (the decoder's state, or the image it decodes whole). Nothing is decoded yet beyond the
 * header. With luma, a JPEG gives its luma alone, as io_decode_luma does (a gray job). Returns
 * 0 with *r open (io_rows_close it), or -1 with the reason in err (the format, then why:
 * "PNG: ...", BMP's own words) and nothing to close. */
int io_rows_open(io_format fmt, const uint8_t *data, size_t size, const io_limits *lim,
                 int luma, io_row_reader **r, io_header *h, size_t *held, char *err,
                 size_t err_size);

/* The next row into row (io_image_bytes(width, 1, channels, depth) bytes). 0, or -1 with the
 * reason (corrupt data found in that row); after a refusal every later call is refused. */
int io_rows_read(io_row_reader *r, void *row, char *err, size_t err_size);

/* After the last row: the checks io_decode makes of what follows the pixels (a PNG's chunks to
 * IEND, a JPEG's end of image). 0, or -1 with the reason. */
int io_rows_finish(io_row_reader *r, char *err, size_t err_size);

/* Releases the reader; NULL is allowed. */
void io_rows_close(io_row_reader *r);

typedef struct io_row_writer io_row_writer;

/* The most a writer of this image keeps while it writes (its encoder's state; a JPEG's whole
 * coefficients when TJ_OPTIMIZE or TJ_PROGRESSIVE ask for them; the whole image where the build
 * encodes a JPEG whole). */
size_t io_rows_writer_bytes(io_format fmt, int width, int height, int channels);

/* Begins writing a width x height image of channels samples of depth bits (maxval: 255,
 * 65535, or for PGM/PPM the file's own) as fmt to f, which must be seekable for BMP (its rows
 * are stored bottom-up). quality is JPEG's (<= 0: IO_JPEG_QUALITY); path only names the file in
 * messages. io_encode's refusals (BMP and JPEG hold 8-bit samples of full scale only, PNG full
 * scale of its depth). 0 with *w ready (io_rows_free it), or -1 with "PATH: reason". */
int io_rows_begin(FILE *f, io_format fmt, int width, int height, int channels, int depth,
                  int maxval, int quality, const char *path, io_row_writer **w, char *err,
                  size_t err_size);

/* The next row, from the top (width * channels samples). 0, or -1 with "PATH: reason". */
int io_rows_write(io_row_writer *w, const void *row, char *err, size_t err_size);

/* After the last row: the file finished (not flushed: the caller stages and syncs it). 0, or -1
 * with "PATH: reason". */
int io_rows_end(io_row_writer *w, char *err, size_t err_size);

/* Releases the writer; NULL is allowed. */
void io_rows_free(io_row_writer *w);

#endif
