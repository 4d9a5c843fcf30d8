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

#include "codec.h"

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

#endif
