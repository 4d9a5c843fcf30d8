/*
 * codec_common.h - what every codec (bmp.h's adapter in codec.c, png.c, jpeg.c, pnm.c) and its
 * callers share: the formats, the decoded image and its header, the limits, and the checks
 * every decoder and encoder makes. codec.h is the callers' face; the codecs include this.
 */
#ifndef TILEDCONV_CODEC_COMMON_H
#define TILEDCONV_CODEC_COMMON_H

#include "tool_visible.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bmp.h" /* BMP_MAX_SIDE, BMP_MAX_PIXELS */
#include "text.h" /* io_fail */

typedef enum { IO_FORMAT_BMP, IO_FORMAT_PNG, IO_FORMAT_JPEG, IO_FORMAT_PNM } io_format;

/* Where a caller wants decoded pixels put (codec.h's io_decode_with): memory of its own, such
 * as a device's page-locked memory, that the codecs know nothing of. alloc gives `bytes` or
 * NULL (the decoder then uses malloc); release takes back what alloc gave. */
typedef struct io_allocator {
    void *(*alloc)(void *arg, size_t bytes);
    void (*release)(void *arg, void *pixels);
    void *arg;
} io_allocator;

typedef struct {
    int width, height;
    int channels; /* 1 gray, 3 RGB (alpha dropped, as for BMP) */
    int depth;    /* bits per sample as stored here: 8 or 16 */
    int maxval;   /* the largest sample value of the source: 255, 65535, or a PNM's maxval
                   * (1..65535); a sample v stands for v / maxval of full scale */
    void *pixels; /* row 0 on top, packed rows of width * channels samples: uint8_t (depth 8)
                   * or uint16_t in host order (depth 16) */
    const io_allocator *allocator; /* where a decoder's pixels came from (io_image_free gives
                                    * them back there); NULL: malloc */
} io_image;

/* What a header says of the image io_decode would give: its size, and its samples. */
typedef struct {
    int width, height;
    int channels; /* 1 or 3 */
    int depth;    /* 8 or 16 */
    int maxval;   /* io_image's: 255, 65535, or a PGM/PPM's own */
} io_header;

/* The size limits, the same for every format: those of the BMP reader. IO_MAX_PIXELS is the
 * default; a caller may raise it up to IO_HARD_MAX_PIXELS (io_limits.h, --max-pixels). */
#define IO_MAX_SIDE BMP_MAX_SIDE
#define IO_MAX_PIXELS BMP_MAX_PIXELS

/* The decompression-bomb guard of the compressed formats (PNG, JPEG; BMP's RLE has its own in
 * bmp.c). An image of more than IO_BOMB_FLOOR_PIXELS whose pixels outnumber its file's bytes by
 * more than the ratio is refused before anything is allocated: a few kilobytes must not be able
 * to cost gigabytes. 2048 lies above what any PNG of 8 or 16 bits per sample can reach (deflate
 * expands at most 1032:1, and such a PNG has at least one byte per pixel) and above any
 * Huffman-coded JPEG (at least one bit per 8 x 8 block and component: at most 512 pixels per
 * byte), so only near-blank 1/2/4-bit PNGs and arithmetic-coded JPEGs can pass it; the floor
 * (2048 x 2048, at most 24 MB decoded) keeps small images of any content out of its reach.
 * io_decode takes the ratio as a parameter, so that a flag can lift it (0). */
#define IO_MAX_PIXELS_PER_BYTE 2048L
#define IO_BOMB_FLOOR_PIXELS (1L << 22)

/* The JPEG quality when the caller gives none (io_encode's quality <= 0). */
#define IO_JPEG_QUALITY 95

/* The chroma sampling of colour JPEGs: 4:2:0 (the default: cjpeg's, OpenCV's, Pillow's), 4:2:2,
 * or 4:4:4 (each pixel keeps its own colour: no chroma loss at coloured edges, larger files). */
typedef enum { IO_JPEG_420, IO_JPEG_422, IO_JPEG_444 } io_jpeg_sampling;

/* A decoder's pixel buffer of `bytes`: from the allocator io_decode_with gave this thread's
 * decode, or from malloc when it gave none or its allocator had none; *from says which (the
 * image's allocator). NULL when neither has the memory. */
void *io_pixels_alloc(size_t bytes, const io_allocator **from);

/* Gives back a buffer of io_pixels_alloc (NULL: nothing). */
void io_pixels_free(void *pixels, const io_allocator *from);

/* The allocator io_pixels_alloc uses on this thread from now on (NULL: malloc); codec.c's
 * io_decode_with sets it around one decode, so that the codecs keep their signatures. */
void io_pixels_use(const io_allocator *a);

/* Frees the pixels (to their allocator) and sets them to NULL; safe on an image that was never
 * filled. */
TC_TOOL void io_image_free(io_image *img);

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
