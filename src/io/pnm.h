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

#include "codec.h"

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

#endif
