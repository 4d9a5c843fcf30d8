/*
 * bmp.h - reading any well-formed BMP into RGB, writing 8-bit grayscale and 24-bit BMPs.
 *
 * The API follows stb_image: a loader returns a caller-owned buffer and leaves its
 * out-parameter untouched on failure, and every failure comes with one line saying why.
 * The decoder never trusts a header field: sizes are overflow-checked and bounded before any
 * allocation, and every read is bounded by the length of the file.
 */
#ifndef TILEDCONV_BMP_H
#define TILEDCONV_BMP_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "io_limits.h"

/* The largest image the reader accepts by default: a documented limit, so that a hostile header
 * cannot make us allocate gigabytes. 2^28 pixels is 16384 x 16384 (io_limits raises it to 2^30);
 * either side may be at most 2^16. */
#define BMP_MAX_SIDE 65536
#define BMP_MAX_PIXELS IO_DEFAULT_MAX_PIXELS

/* Decoded pixels: 3 bytes per pixel in R, G, B order, row 0 is the top row of the picture. */
typedef struct {
    int width;
    int height;
    uint8_t *rgb;
} bmp_image;

/* The size of the BMP held in memory, from its headers checked as bmp_decode_with checks them
 * (lim NULL: the defaults), without decoding the pixels. 0, or -1 with the reason in err. */
int bmp_header_size(const uint8_t *data, size_t size, const io_limits *lim, int *width,
                    int *height, char *err, size_t err_size);

/* Decode a BMP held in memory. Returns 0 and fills *img, or -1 with a one-line reason (no file
 * name, no trailing newline) in err, *img untouched. err may be NULL. This is what the fuzzer
 * drives. What is read and what is refused: bmp.c's opening comment and tests/bmpsuite-status.md. */
int bmp_decode(const uint8_t *data, size_t size, bmp_image *img, char *err, size_t err_size);

/* bmp_decode with other limits (io_limits.h: the largest image, and the ratio of pixels to bytes
 * beyond which RLE data is refused as a likely decompression bomb); lim NULL: the defaults,
 * which bmp_decode uses. Everything is checked before the image is allocated. */
int bmp_decode_with(const uint8_t *data, size_t size, const io_limits *lim, bmp_image *img,
                    char *err, size_t err_size);

/* bmp_decode_with the default limits but this pixel limit (<= 0: the default). */
int bmp_decode_limited(const uint8_t *data, size_t size, long max_pixels, bmp_image *img,
                       char *err, size_t err_size);

/* The pixel rows of an uncompressed BMP as they lie in the file, for callers that hand them
 * on without decoding (the batch uploads a file's own bytes and forms the planes on the
 * device): 8-bit palette indices, 24-bit B, G, R or 32-bit B, G, R, X (BI_RGB). */
typedef struct {
    int width, height;
    int bytes_per_pixel;      /* 1 (indices into palette), 3 (B, G, R) or 4 (B, G, R, unused) */
    const uint8_t *top_row;   /* row 0 of the picture, inside the caller's data */
    long stride;              /* bytes from row y to row y + 1: negative for bottom-up files */
    int palette_size;         /* entries present (1-byte pixels) */
    uint8_t palette[256][3];  /* R, G, B */
} bmp_view;

/* Checks the file as bmp_decode_with does with these limits (NULL: the defaults; the same
 * refusals with the same reasons, every palette index included) and, when its pixels can be
 * used as they are, fills *v: returns 1. Returns 0 for a valid file of another kind (1-, 2-,
 * 4- or 16-bit, RLE, bitfields: decode it), -1 with the reason in err for a file bmp_decode
 * would refuse. */
int bmp_view_pixels(const uint8_t *data, size_t size, const io_limits *lim, bmp_view *v,
                    char *err, size_t err_size);

/* A file read in steps, so that a caller can plan its memory from the header before the
 * pixels are read (and a pipe is still read only once). bmp_reader_open reads the fixed-size
 * header first (its first 154 bytes, from a file or a pipe) and checks it against the limits (NULL: the defaults): a stream that is not a BMP is refused after
 * a few bytes, a device (/dev/zero) or a folder before any, and a regular file that is a likely
 * decompression bomb before anything is allocated. Then bmp_reader_decode decodes, or
 * bmp_reader_bytes hands over the file's bytes; either reads at most the bytes the header makes
 * meaningful. Each returns 0, or -1 with "PATH: reason" in err (the path shown with its control
 * characters escaped and, when long, shortened in the middle). After a failed bmp_reader_open
 * nothing is left to close; otherwise bmp_reader_close always. */
typedef struct {
    int width, height;   /* the image's size, from the header, after bmp_reader_open */
    /* The reader's own: */
    const char *path;
    int fd;
    const uint8_t *data; /* the file so far (buf) */
    size_t size;
    uint8_t *buf;
    size_t cap;
    size_t file_size;    /* a regular file's size when it was opened, else 0 (a pipe) */
    int complete;        /* data holds the whole file */
    size_t need;         /* the most bytes the header makes meaningful */
    io_limits lim;
    int own_fd;          /* fd was opened by bmp_reader_open, and is closed with the reader */
    unsigned plain_bpp;  /* bits per pixel of rows stored as they are (BI_RGB), else 0 */
} bmp_reader;

int bmp_reader_open(bmp_reader *r, const char *path, const io_limits *lim, char *err,
                    size_t err_size);
/* bmp_reader_open on a descriptor the caller has opened and keeps (bmp_reader_close leaves it
 * open), of which the caller has read the first n bytes into head already, to tell the format
 * (a pipe cannot give them back). The caller has judged the kind of file (a device, a folder:
 * source.c). With sized, a regular file's size is the input's (it was opened from its start):
 * the bomb guard judges it before any pixel is read, and the bytes are read into one buffer of
 * that size; without (standard input, whose offset need not be 0), it is read like a pipe.
 * name names the input in messages ("standard input"). The file is read, never mapped: one
 * that shrinks while it is read (another program rewriting it) gives a short read, refused as
 * a short file, where a mapping would end the process with SIGBUS. */
int bmp_reader_open_fd(bmp_reader *r, int fd, const char *name, int sized, const uint8_t *head,
                       size_t n, const io_limits *lim, char *err, size_t err_size);
int bmp_reader_decode(bmp_reader *r, bmp_image *img, char *err, size_t err_size);
/* The file's meaningful bytes into a new buffer (the caller frees it). */
int bmp_reader_bytes(bmp_reader *r, uint8_t **data, size_t *size, char *err, size_t err_size);
void bmp_reader_close(bmp_reader *r);


/* Open, decode and close in one call. On failure err holds "PATH: reason". */
int bmp_load_with(const char *path, const io_limits *lim, bmp_image *img, char *err,
                  size_t err_size);

/* bmp_load_with the default limits. */
int bmp_load(const char *path, bmp_image *img, char *err, size_t err_size);

void bmp_free(bmp_image *img);

/* Write a width x height 8-bit grayscale BMP (BITMAPINFOHEADER, 256-entry gray palette,
 * bottom-up rows padded to 4 bytes). gray[0] is the top-left pixel, rows are packed.
 * The file is written to a temporary name (".NAME.XXXXXX") in the same folder, flushed and
 * synced, given the mode a new file gets (0666 & ~umask), and renamed into place, so a failure
 * leaves no partial file and an existing file is replaced whole or not at all. A target that
 * exists and is not a regular file (a device, a FIFO, a folder) is refused, not replaced.
 * The size is limited only by the format's 32-bit size fields, not by BMP_MAX_PIXELS.
 * Returns 0, or -1 with "PATH: reason" in err. */
int bmp_write_gray8(const char *path, const uint8_t *gray, int width, int height, char *err,
                    size_t err_size);

/* The same for a 24-bit BMP from packed R, G, B bytes (row 0 on top). */
int bmp_write_rgb24(const char *path, const uint8_t *rgb, int width, int height, char *err,
                    size_t err_size);

/* The layout of the BMP the writers produce for width x height at bpp (8: gray with a 256-gray
 * palette, 24: B, G, R): the file's size, where the pixel rows start (after the headers and
 * palette) and the bytes of a row (padded to 4); rows bottom-up. 0, or -1 when the format's
 * 32-bit sizes cannot hold it or bpp is neither. */
int bmp_layout(int width, int height, int bpp, size_t *file_size, size_t *offbits,
               size_t *stride);

/* The headers (and the gray palette for bpp 8) of that file into out (offbits bytes): with the
 * pixel rows after them, the same bytes bmp_write_stream writes. */
void bmp_put_headers(uint8_t *out, int width, int height, int bpp);

/* The BMP (bpp 8: gray with a 256-gray palette, pixels one byte each; bpp 24: packed R, G, B)
 * written to an open stream, no flush: for callers that stage several outputs in temporary
 * files and rename them together (main.c). path only names the file in messages. */
int bmp_write_stream(FILE *f, const uint8_t *pixels, int width, int height, int bpp,
                     const char *path, char *err, size_t err_size);

/* ---- Row by row: an image read and written a band of rows at a time --------------------- */

/* A reader of the picture's rows from the top, each as width * 3 bytes of R, G, B, with the
 * checks and words of bmp_decode_with (lim NULL: the defaults). data (the whole file) must stay
 * valid while the reader is open. Returns 0 with *r open (bmp_rows_close it), 1 for a valid
 * header of an RLE file (runs go from the bottom row up: decode it whole instead), -1 with the
 * reason in err. *width and *height are set for 0 and 1. */
typedef struct bmp_rows bmp_rows;
int bmp_rows_open(const uint8_t *data, size_t size, const io_limits *lim, bmp_rows **r,
                  int *width, int *height, char *err, size_t err_size);
/* The next row into rgb. 0, or -1 with the reason (a palette index past the palette). */
int bmp_rows_next(bmp_rows *r, uint8_t *rgb, char *err, size_t err_size);
void bmp_rows_close(bmp_rows *r);

/* bmp_reader_bytes into a buffer of the caller's (page-locked memory, say): buf must hold
 * bmp_reader_buffer_size bytes; the header's bytes already read are copied there and the rest
 * read after them. buf stays the caller's whatever happens; *size of its bytes are the file's.
 * 0, or -1 with "PATH: reason". */
size_t bmp_reader_buffer_size(const bmp_reader *r);
int bmp_reader_bytes_into(bmp_reader *r, uint8_t *buf, size_t cap, size_t *size, char *err,
                          size_t err_size);

/* The bytes of the file a reader opened, without a copy: a pipe read on to the bytes its
 * header makes meaningful, a mapping as it is. They stay the reader's. 0, or -1 with
 * "PATH: reason". */
int bmp_reader_data(bmp_reader *r, const uint8_t **data, size_t *size, char *err,
                    size_t err_size);

/* A writer of the BMP bmp_write_stream writes (bpp 8 gray with the gray palette, 24 from R, G,
 * B), given its rows from the top one at a time: each is written at its place in the file
 * (bottom-up), so f must be seekable (a regular file). The bytes are bmp_write_stream's.
 * Each returns 0, or -1 with "PATH: reason"; bmp_writer_free always. */
typedef struct bmp_writer bmp_writer;
int bmp_writer_begin(FILE *f, int width, int height, int bpp, const char *path, bmp_writer **w,
                     char *err, size_t err_size);
int bmp_writer_row(bmp_writer *w, const uint8_t *pixels, char *err, size_t err_size);
/* After the last row: every row written. */
int bmp_writer_end(bmp_writer *w, char *err, size_t err_size);
void bmp_writer_free(bmp_writer *w);

#endif
