/*
 * jpeg_coefs_write.h - a JPEG written from coefficients made elsewhere (the device: see
 * jpeg_encode.h), with jpeg_encode's settings, so that its bytes are jpeg_encode's for the
 * same pixels: the CPU does the entropy coding alone (libjpeg's jpeg_write_coefficients).
 * Only with libjpeg's header (TC_HAVE_JPEGLIB); without it both refuse.
 */
#ifndef TILEDCONV_JPEG_COEFS_WRITE_H
#define TILEDCONV_JPEG_COEFS_WRITE_H

#include <stddef.h>
#include <stdio.h>

#include "jpeg_coefs.h"

/* The shape of the file jpeg_encode writes for a width x height image of 1 (gray) or 3 (RGB)
 * channels at quality (<= 0: IO_JPEG_QUALITY), with the sampling io_set_jpeg_sampling chose:
 * each component's sampling factors, samples, blocks and quantisation table, as libjpeg sets
 * them; every coef NULL. 0, or -1 with "PATH: reason" (c untouched). */
int jpeg_coefs_layout(int width, int height, int channels, int quality, jpeg_coefs *c,
                      const char *path, char *err, size_t err_size);

/* Writes c (laid out by jpeg_coefs_layout with the same quality, every coefficient filled) to
 * f as jpeg_encode writes those pixels: the same markers, tables, scans and Huffman or
 * arithmetic coding, TurboJPEG's TJ_* switches included. A c whose shape or tables differ from
 * those settings' is refused. 0, or -1 with "PATH: reason". */
int jpeg_coefs_encode(FILE *f, const jpeg_coefs *c, int quality, const char *path, char *err,
                      size_t err_size);

#endif
