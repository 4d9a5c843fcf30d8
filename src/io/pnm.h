/*
 * pnm.h - PGM and PPM (netpbm), read and written by hand, for codec.c (callers use codec.h).
 *
 * Read: P5 and P6 (binary), P2 and P3 (text), maxval 1..65535; comments from '#' to the end of
 * the line wherever whitespace may stand before the raster (and between text samples, as
 * netpbm's own reader allows); exactly one whitespace character after the maxval of a binary
 * file; samples of 2 big-endian bytes when maxval > 255. Kept as read: depth 16 when
 * maxval > 255, else depth 8, and the maxval itself (a sample v means v / maxval). Every field
 * is checked, every size before allocating; a sample above the maxval is refused. Only the first
 * image of a multi-image stream is read. (A text file cut inside its last number cannot be told
 * from one with a smaller last sample: the plain format has no terminator.)
 * Written: P5 (gray) or P6 (RGB) with the image's maxval.
 */
#ifndef TILEDCONV_PNM_H
#define TILEDCONV_PNM_H

#include "codec_common.h"

/* io_decode for a PGM or PPM: the same contract, messages start with "PGM: " or "PPM: ".
 * Uncompressed: the bomb guard does not apply (the file must hold every sample). */
int pnm_decode(const uint8_t *data, size_t size, long max_pixels, io_image *img, char *err,
               size_t err_size);

/* pnm_decode's checks of the header, and of the raster's length against the file's, alone
 * (codec.h's io_probe). */
int pnm_probe(const uint8_t *data, size_t size, long max_pixels, io_header *h, char *err,
              size_t err_size);

/* io_encode for a PGM or PPM. */
int pnm_encode(FILE *f, const io_image *img, const char *path, char *err, size_t err_size);

/* Row by row: the rows of pnm_decode from the top, one at a time (width * channels samples,
 * 8 or 16 bits as pnm_decode gives them), with its checks and words. data must stay valid while
 * the reader is open. 0 with *r open and *h filled, or -1 with the reason. */
typedef struct pnm_rows pnm_rows;
int pnm_rows_open(const uint8_t *data, size_t size, long max_pixels, pnm_rows **r, io_header *h,
                  char *err, size_t err_size);
int pnm_rows_next(pnm_rows *r, void *row, char *err, size_t err_size);
void pnm_rows_close(pnm_rows *r);

/* The file pnm_encode writes, given its rows from the top one at a time. Each returns 0, or
 * -1 with "PATH: reason"; pnm_writer_free always. */
typedef struct pnm_writer pnm_writer;
int pnm_writer_begin(FILE *f, int width, int height, int channels, int depth, int maxval,
                     const char *path, pnm_writer **w, char *err, size_t err_size);
int pnm_writer_row(pnm_writer *w, const void *samples, char *err, size_t err_size);
/* After the last row: every row written. */
int pnm_writer_end(pnm_writer *w, char *err, size_t err_size);
void pnm_writer_free(pnm_writer *w);

#endif
