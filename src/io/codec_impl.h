/*
 * codec_impl.h - what the codecs (png.c, jpeg.c, pnm.c, codec.c) share; not for their callers,
 * who use codec.h.
 */
#ifndef TILEDCONV_CODEC_IMPL_H
#define TILEDCONV_CODEC_IMPL_H

#include "codec.h"

#include <stdarg.h>
#include <stddef.h>

#if defined(__GNUC__)
#define IO_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define IO_PRINTF(f, a)
#endif

/* Formats the one-line reason into err (when err is not NULL) and returns -1, so that a check
 * reads `return io_fail(err, err_size, "...", ...);`. */
int io_fail(char *err, size_t err_size, const char *fmt, ...) IO_PRINTF(3, 4);

/* max_pixels as the decoders use it: <= 0 means IO_MAX_PIXELS, the default; above
 * IO_HARD_MAX_PIXELS means that, the most any caller may ask for (io_limits.h). */
long io_pixel_limit(long max_pixels);

/* The checks every decoder makes from the header, before it allocates anything: both sides in
 * 1..IO_MAX_SIDE and width * height within max_pixels (io_pixel_limit). what names the format
 * at the head of the message ("PNG"). Returns 0, or -1 with the reason. */
int io_check_size(const char *what, long width, long height, long max_pixels, char *err,
                  size_t err_size);

/* The bomb guard of codec.h, for the compressed formats: width * height against the file's
 * size (max_pixels_per_byte 0: no guard). Returns 0, or -1 with the reason. */
int io_check_ratio(const char *what, long width, long height, size_t file_size,
                   long max_pixels_per_byte, char *err, size_t err_size);

/* The checks every encoder makes of the image it is given: sides, channels (1 or 3), depth
 * (8 or 16), maxval within the depth, pixels present. Returns 0, or -1 with "PATH: reason". */
int io_check_image(const io_image *img, const char *path, char *err, size_t err_size);

/* The pixels of an image of these fields, in bytes, when it fits a size_t; 0 when not. */
size_t io_image_bytes(long width, long height, int channels, int depth);

#endif
