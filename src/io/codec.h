/*
 * codec.h - every image format the tool reads and writes, behind one decoded-image type.
 *
 *   format   read (from the first bytes, never the name)        written
 *   BMP      what bmp.h reads (1..32 bits, RLE, bitfields)       8-bit gray, 24-bit RGB
 *   PNG      every colour type and depth, interlaced (libspng)   8/16-bit gray, 8/16-bit RGB
 *   JPEG     baseline, progressive, arithmetic; gray, colour     gray, colour (4:4:4), quality
 *            (TurboJPEG: exactly the pixels of djpeg)
 *   PNM      PGM and PPM, binary (P5, P6) and text (P2, P3),    P5, P6, maxval 1..65535
 *            maxval 1..65535
 *
 * Alpha is dropped (as for BMP), never blended; palettes are expanded to RGB; gamma, ICC
 * profiles, sBIT and the EXIF orientation are not applied: the samples are the file's own.
 * The API follows bmp.h: a decoder fills a caller-owned image or leaves it untouched and says
 * why in one line; an encoder writes to an open stream and does not flush it.
 */
#ifndef TILEDCONV_CODEC_H
#define TILEDCONV_CODEC_H

#include "tool_visible.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "codec_common.h"
#include "io_limits.h"

/* How many leading bytes io_detect needs to tell every format apart (PNG's signature). */
#define IO_DETECT_BYTES 8

/* The format from the first bytes of a file: "BM" (and OS/2's "BA", which the BMP reader then
 * names), the PNG signature, JPEG's FF D8 FF, PNM's "P2", "P3", "P5" or "P6" followed by
 * whitespace or a comment. Returns 0 and sets *fmt, or -1 when none matches. */
int io_detect(const uint8_t *head, size_t n, io_format *fmt);

/* io_detect for readers that look at a stream's first bytes before reading the rest (standard
 * input): the same match, and when nothing matches the reason io_decode would give ("empty
 * file", "a GIF file: not a format tiledconv reads (...)"), so that a stream that is no image
 * is refused at once, whatever follows. n up to IO_IDENTIFY_BYTES names more formats.
 * Returns 0 and sets *fmt, or -1 with the reason in err (err may be NULL). */
int io_identify(const uint8_t *head, size_t n, io_format *fmt, char *err, size_t err_size);

/* The leading bytes io_identify needs to name every format it knows (WebP's "RIFF....WEBP"). */
#define IO_IDENTIFY_BYTES 16

/* Detects the format and decodes with its codec. max_pixels <= 0 means IO_MAX_PIXELS, and
 * above IO_HARD_MAX_PIXELS means that; max_pixels_per_byte is the bomb guard's ratio
 * (IO_MAX_PIXELS_PER_BYTE normally, 0 to turn the guard off). Returns 0 and fills *img, or -1
 * with one line in err ("PNG: invalid chunk checksum": the format, then the reason; no file
 * name, no newline) and *img untouched. err may be NULL. */
int io_decode(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
              io_image *img, char *err, size_t err_size);

/* io_decode for a job that needs only the intensity: a JPEG gives its luma alone, one channel
 * (its Y, the JFIF intensity 0.299 R + 0.587 G + 0.114 B; what djpeg -grayscale gives, at a
 * fraction of the colour decode's cost); any other format what io_decode gives. */
int io_decode_luma(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
                   io_image *img, char *err, size_t err_size);

/* io_decode (luma 0) or io_decode_luma (luma 1) with the pixels put where a (codec_common.h)
 * gives them, as far as the format allows it cheaply: JPEG, PGM/PPM and PNGs decoded as they
 * are stored (not palettes, not dropped alpha); any other gets malloc's memory. The image's
 * allocator says which; io_image_free gives them back to it. a NULL: io_decode itself. */
int io_decode_with(const io_allocator *a, int luma, const uint8_t *data, size_t size,
                   long max_pixels, long max_pixels_per_byte, io_image *img, char *err,
                   size_t err_size);

/* io_decode's checks of the header alone, with the same limits and the same reasons, so that a
 * caller can plan its memory before it decodes: fills *h with what io_decode would give
 * (BMP: 3 channels of 8 bits). Nothing is allocated for the pixels. PGM/PPM's raster is checked
 * against the file's length too; what only decoding finds (a bad CRC, corrupt data) is left
 * to io_decode. Returns 0, or -1 with the reason in err and *h untouched. */
int io_probe(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
             io_header *h, char *err, size_t err_size);

/* The bomb guard above for a file of fmt, file_size bytes, that holds a width x height image,
 * with a caller's limits (io_limits.h): IO_MAX_PIXELS_PER_BYTE for PNG and JPEG unless lim
 * allows high ratios; none for PGM/PPM (not compressed) and BMP (whose RLE has its own guard,
 * in bmp.c). The reason names lim's ratio_hint ("(--allow-high-ratio accepts it)"), so that a
 * command line can say how to lift it. Returns 0, or -1 with the reason in err. */
int io_check_bomb(io_format fmt, long width, long height, size_t file_size, const io_limits *lim,
                  char *err, size_t err_size);

/* Writes img to f as fmt (no flush, so that the caller can stage the file and sync it):
 *   BMP   8-bit gray (palette of 256 grays) or 24-bit; depth 8, maxval 255 only
 *   PNG   8 or 16-bit gray or RGB; maxval 255 (depth 8) or 65535 (depth 16)
 *   JPEG  gray or colour (chroma sampled as io_set_jpeg_sampling says: 4:2:0 by default),
 *         quality 1..100 (<= 0: IO_JPEG_QUALITY), accurate DCT; depth 8, maxval 255 only
 *   PNM   P5 (gray) or P6 (RGB) with the image's maxval; samples of 2 big-endian bytes when
 *         maxval > 255, as netpbm requires
 * quality is used by JPEG only; path only names the file in messages. Returns 0, or -1 with
 * "PATH: reason" in err. */
int io_encode(FILE *f, io_format fmt, const io_image *img, int quality, const char *path,
              char *err, size_t err_size);

/* Sets the sampling of every colour JPEG io_encode writes from now on, for the whole process
 * (the command line's --sampling): call it before any thread encodes. */
TC_TOOL void io_set_jpeg_sampling(io_jpeg_sampling s);

/* The output format from a file name's extension, case-insensitive: .bmp; .png; .jpg, .jpeg;
 * .pgm, .ppm, .pnm; a name without an extension is BMP (only the last path component counts, so
 * "out.d/x" has none). Returns 0, or -1 for another extension (the caller's usage error lists
 * io_format_list). */
int io_format_from_name(const char *path_or_name, io_format *fmt);

/* The format from a word ("bmp", "png", "jpeg" or "jpg", "pnm", "pgm" or "ppm"), for a
 * --format flag; case-insensitive. Returns 0, or -1. */
int io_format_from_word(const char *word, io_format *fmt);

/* "BMP", "PNG", "JPEG", "PNM": for messages. */
const char *io_format_name(io_format fmt);

/* The extension of an output in this format, without the dot, for names made by the tool
 * (-O DIR): "bmp", "png", "jpg"; a PNM's is "pgm" for one channel and "ppm" for three. */
TC_TOOL const char *io_format_extension(io_format fmt, int channels);

/* What an output of this format and channels is called in the reports: "PGM" and "PPM" for a
 * PNM, else its name. */
const char *io_format_kind(io_format fmt, int channels);

/* Whether the format holds 16-bit samples (PNG, PGM/PPM): 1, or 0. */
int io_format_holds_16_bits(io_format fmt);

/* The words io_format_from_word accepts, for usage messages, into out (64 bytes hold them):
 * "bmp, png, jpeg (jpg), pnm (pgm, ppm)". */
void io_format_list(char *out, size_t size);

/* Whether fmt holds samples of this depth and maxval (io_encode's and io_rows_begin's checks:
 * BMP and JPEG hold 8-bit samples of full scale only, PNG full scale of its depth): 0, or -1
 * with "PATH: FORMAT holds ..." in err. */
int io_check_writable(io_format fmt, int depth, int maxval, const char *path, char *err,
                      size_t err_size);

/* ---- Each format row by row, for rows.c (callers use rows.h) ---------------------------- */

/* A format's row reader, adapted to one shape. open: 0 with *state to read from; 1 for a valid
 * file that the format cannot give row by row (*h and *held filled, *state NULL: rows.c decodes
 * it whole); -1 with the reason. finish (NULL: nothing follows the rows) makes the whole
 * decoder's checks of what comes after them. decode_whole (NULL: io_decode, or io_decode_luma
 * for luma) decodes the file whole with lim. */
typedef struct {
    int (*open)(const uint8_t *data, size_t size, const io_limits *lim, int luma, void **state,
                io_header *h, size_t *held, char *err, size_t err_size);
    int (*next)(void *state, void *row, char *err, size_t err_size);
    int (*finish)(void *state, char *err, size_t err_size);
    void (*close)(void *state);
    int (*decode_whole)(const uint8_t *data, size_t size, const io_limits *lim, io_image *img,
                        char *err, size_t err_size);
} io_row_reading;

/* A format's row writer. begin: 0 with *state; 1 where this build has no row encoder for the
 * format (rows.c gathers the rows and io_encode writes them at the end); -1 with the reason.
 * held (NULL: one row of 16-bit samples) is the most the encoder keeps. */
typedef struct {
    int (*begin)(FILE *f, const io_image *shape, int quality, const char *path, void **state,
                 char *err, size_t err_size);
    int (*row)(void *state, const void *row, char *err, size_t err_size);
    int (*end)(void *state, char *err, size_t err_size);
    void (*free)(void *state);
    size_t (*held)(int width, int height, int channels);
} io_row_writing;

/* The format's row reader and writer; NULL for a value that is no format. */
const io_row_reading *io_row_reading_of(io_format fmt);
const io_row_writing *io_row_writing_of(io_format fmt);

#endif
