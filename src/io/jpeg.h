/*
 * jpeg.h - JPEG through TurboJPEG (libjpeg-turbo), for codec.c (callers use codec.h).
 *
 * Read: baseline, extended, progressive and arithmetic-coded 8-bit JPEGs, grayscale (1 channel)
 * or colour (RGB), decoded with libjpeg's defaults, which are djpeg's: the accurate integer
 * IDCT (JDCT_ISLOW), fancy upsampling, block smoothing of progressive scans. Refused: CMYK and
 * YCCK; 12-bit; sampling factors TurboJPEG 2.1 cannot name (it refuses them where djpeg would
 * not); any file on which libjpeg warns (corrupt or truncated data: we refuse rather than show
 * libjpeg's gray fill); more than 500 progressive scans. The EXIF orientation is not applied.
 * Written: gray, or colour with the sampling io_set_jpeg_sampling chose (4:2:0 by default, as
 * cjpeg and OpenCV write; 4:4:4 keeps the chroma of coloured edges whole), the accurate DCT (as
 * cjpeg's default; TurboJPEG would use the fast one below quality 96).
 */
#ifndef TILEDCONV_JPEG_H
#define TILEDCONV_JPEG_H

#include "codec.h"

/* io_decode for a JPEG: the same contract, messages start with "JPEG: ". */
int jpeg_decode(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
                io_image *img, char *err, size_t err_size);

/* jpeg_decode for a gray job: the file's luma alone (its Y channel, what djpeg -grayscale
 * gives), one channel, for a colour file as for a gray one. */
int jpeg_decode_luma(const uint8_t *data, size_t size, long max_pixels,
                     long max_pixels_per_byte, io_image *img, char *err, size_t err_size);

/* jpeg_decode's checks of the header alone (codec.h's io_probe). */
int jpeg_probe(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
               io_header *h, char *err, size_t err_size);

/* io_encode for a JPEG; quality 1..100, or <= 0 for IO_JPEG_QUALITY. */
int jpeg_encode(FILE *f, const io_image *img, int quality, const char *path, char *err,
                size_t err_size);

#endif
