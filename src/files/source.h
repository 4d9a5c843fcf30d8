/*
 * source.h - an input image, from a file or from standard input ("-"), with its format known
 * from the first bytes before the rest is read (the format comes from the content, never
 * from the name), its header checked against the limits (--max-pixels, the bomb ratio)
 * before anything is decoded, and then its samples.
 *
 * The tool reads every input through source_reader: the first IO_IDENTIFY_BYTES tell the
 * format (an endless stream of zeros or text is refused there); a BMP then goes on through the
 * BMP reader's header-first path (bmp.h: only as far as the header makes meaningful); a PNG,
 * JPEG or PGM/PPM is read from a regular file whole, or, from standard input or a pipe, as far
 * as its image goes and no further (stream_bounds.h: metadata within a cap before the size is
 * known, then what that size can take), and its header probed (io_probe). Only then is the
 * memory planned and the image decoded. source_reader reads files, never maps them, so that a
 * file that shrinks while it is read is one image's refusal, not a SIGBUS that ends the
 * process. source_read and source_decode do the same in one step, for callers that want the
 * bytes themselves.
 */
#ifndef TILEDCONV_SOURCE_H
#define TILEDCONV_SOURCE_H

#include "tool_visible.h" /* src/io */

#include <stddef.h>
#include <stdint.h>

#include "bmp.h"
#include "codec.h"
#include "io_limits.h"
#include "jpeg_coefs.h"

/* The most bytes an input may have, file or stream: the BMP reader's limit (2 GiB), far above
 * any image within the pixel limit at 32 bits per pixel, for every format. */
#define SOURCE_MAX_BYTES ((size_t)2 << 30)

/* How long a FIFO named as an input may take to send its first bytes (or to close unused):
 * one with no writer is refused after this, not waited on for ever. Standard input waits. */
#define SOURCE_FIFO_WAIT_MS 10000

typedef struct {
    uint8_t *data;     /* the whole input, malloc'd */
    size_t size;
    io_format format;  /* from the first bytes */
} source;

/* 1 when path names standard input ("-"). */
TC_TOOL int source_is_stdin(const char *path);

/* How messages name an input: "standard input" for "-", else the path. */
TC_TOOL const char *source_name(const char *path);

/* Reads path ("-": standard input) whole, at most SOURCE_MAX_BYTES (a PNG, JPEG or PGM/PPM
 * from standard input or a pipe as far as its image goes, stream_bounds.h). Its first
 * IO_IDENTIFY_BYTES are read and identified first (io_identify), so that something that is no
 * image in a format the tool reads (/dev/zero, a text stream, a GIF) is refused before any more
 * is read; standard input that is a terminal is refused rather than waited on. The input is
 * read, never mapped. Returns 0, or -1 with "NAME: reason" in err and *s untouched. */
int source_read(const char *path, source *s, char *err, size_t err_size);

/* Frees the data; safe on a source that was never filled or was freed. */
void source_free(source *s);

/* The samples of s, any format: a BMP through the BMP reader (8-bit RGB, its messages as they
 * have always been), the others through io_decode with these limits (io_decode's max_pixels and
 * max_pixels_per_byte). name names the input in messages. Returns 0, or -1 with
 * "NAME: reason" in err. */
int source_decode(const source *s, const char *name, long max_pixels, long max_pixels_per_byte,
                  io_image *img, char *err, size_t err_size);

/* An input opened on its header. After source_reader_open, format and head say what decoding
 * will give and held how many of the input's bytes are held meanwhile, for the memory plan. */
typedef struct {
    io_format format;  /* from the first bytes */
    io_header head;    /* the size, and the samples decoding gives (BMP: 3 x 8 bits) */
    size_t held;       /* the input's bytes held while it is decoded: the BMP's meaningful
                        * bytes, another format's whole file */
    /* The reader's own: */
    const char *path;
    int fd;            /* -1 when closed; standard input's is never closed */
    int from_stdin;
    int bmp_open;      /* bmp holds the BMP reader */
    bmp_reader bmp;
    source whole;      /* PNG, JPEG, PGM/PPM: the whole input */
    io_limits lim;
    int luma;          /* a JPEG is decoded to its luma alone (source_reader_want_luma) */
    const io_allocator *allocator; /* where decoded pixels go (NULL: malloc) */
} source_reader;

/* Opens path ("-": standard input) and checks it up to its header, against lim (NULL: the
 * defaults): a folder, a block device or a socket is refused before a byte is read; a terminal
 * too; anything else by its first bytes when they are no image, and a character device
 * (/dev/zero) after them whatever they are; then the header (the BMP reader's refusals, or
 * io_probe's), the pixel limit (io_limits_check_pixels: "image size W x H ... (--max-pixels
 * raises it)") and the bomb guard (bmp.c's for RLE, io_check_bomb for PNG and JPEG). Nothing is
 * allocated for the pixels. Returns 0, or -1 with "NAME: reason" in err and nothing left to
 * close; after 0, source_reader_close always. */
TC_TOOL int source_reader_open(const char *path, const io_limits *lim, source_reader *r, char *err,
                       size_t err_size);

/* The run needs the intensity alone (a gray job): a JPEG will be decoded to its luma, one
 * channel (io_decode_luma), and head says so from now on, for the memory plan; other formats
 * are unchanged. Call after source_reader_open, before decoding. */
TC_TOOL void source_reader_want_luma(source_reader *r);

/* The pixels source_reader_decode makes go where a gives them (io_decode_with), as far as
 * the format allows (a BMP decoded: to malloc's memory), and so do source_reader_bmp_bytes's.
 * Call before decoding. */
void source_reader_use_allocator(source_reader *r, const io_allocator *a);

/* The image's samples, with the limits the reader was opened with: a BMP as 8-bit RGB (the
 * BMP reader), the others as io_decode gives them. Returns 0, or -1 with "NAME: reason". */
TC_TOOL int source_reader_decode(source_reader *r, io_image *img, char *err, size_t err_size);

/* A JPEG's quantised coefficients (jpeg_coefs_read), with the limits the reader was opened
 * with; the luma's alone where source_reader_want_luma was called. jpeg_coefs_read's answer:
 * 0 (*out filled), 1 (a valid file whose pixels only the CPU path gives) or -1 (refused;
 * and -1 for an input of another format), the reason in err without the input's name. */
int source_reader_coefs(source_reader *r, jpeg_coefs *out, char *err, size_t err_size);

/* A BMP's meaningful bytes, undecoded, into a new buffer, for callers that hand the pixels on
 * as they lie in the file (bmp_view_pixels): the reader's allocator's where it gives one
 * (source_reader_use_allocator), so that a BMP lands in page-locked memory as a decoder's
 * pixels do, else malloc's. The caller gives it back where it came from (io_pixels_free(*data,
 * *from); *from NULL: malloc's). Returns 0, or -1 with "NAME: reason"; -1 also for an input
 * of another format. */
int source_reader_bmp_bytes(source_reader *r, uint8_t **data, size_t *size,
                            const io_allocator **from, char *err, size_t err_size);

/* Releases the input (the mapping, the buffers, the descriptor); safe to call twice. */
TC_TOOL void source_reader_close(source_reader *r);

#endif
