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

#include "codec_common.h"

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

/* Row by row (libjpeg's scanline API): jpeg_decode's rows from the top, one at a time, the
 * same pixels, with jpeg_probe's checks first. data must stay valid while the reader is open.
 * Returns 0 with *r open, *h filled and *held the bytes libjpeg keeps (for a progressive or
 * multi-scan file every coefficient of the image); 1 when this build has no row-by-row decoder
 * (decode it whole: *h filled, *held the decoded image); -1 with the reason. jpeg_rows_finish,
 * after the last row, reads on to the end of the image, as jpeg_decode does. */
typedef struct jpeg_rows jpeg_rows;
int jpeg_rows_open(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
                   int luma, jpeg_rows **r, io_header *h, size_t *held, char *err,
                   size_t err_size);
int jpeg_rows_next(jpeg_rows *r, void *row, char *err, size_t err_size);
int jpeg_rows_finish(jpeg_rows *r, char *err, size_t err_size);
void jpeg_rows_close(jpeg_rows *r);

/* The file jpeg_encode writes (the same bytes), given its rows of 8-bit gray or R, G, B from
 * the top one at a time. jpeg_writer_begin returns 1 when this build has no row-by-row encoder
 * (encode it whole). Each returns 0, or -1 with "PATH: reason"; jpeg_writer_free always. */
typedef struct jpeg_writer jpeg_writer;
int jpeg_writer_begin(FILE *f, int width, int height, int channels, int quality,
                      const char *path, jpeg_writer **w, char *err, size_t err_size);
int jpeg_writer_row(jpeg_writer *w, const uint8_t *row, char *err, size_t err_size);
/* After the last row: every row written, the file finished. */
int jpeg_writer_end(jpeg_writer *w, char *err, size_t err_size);
void jpeg_writer_free(jpeg_writer *w);
/* The most a writer of that image keeps: an MCU row of samples and coefficients, and with
 * TJ_OPTIMIZE or TJ_PROGRESSIVE every coefficient; where the build encodes a JPEG whole, the
 * image and TurboJPEG's output buffer. */
size_t jpeg_writer_bytes(int width, int height, int channels);

#endif
