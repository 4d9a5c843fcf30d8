/*
 * stream_bounds.h - how much of a stream (a pipe, standard input) a PNG, JPEG or PGM/PPM may
 * take, judged from its structure as its bytes arrive, so that a reader of a stream with no
 * end after a valid header reads no more than that header's image can hold and leaves what
 * follows the image unread:
 *
 *   before the size     at most IO_STREAM_MAX_META bytes (a JPEG's markers before its SOF, a
 *                       PGM/PPM header's comments); a PNG's size is in its first 33 bytes
 *   PGM/PPM, binary     exactly the header and width x height x samples of 1 or 2 bytes
 *   PGM/PPM, text       up to the last sample's last digit, at most 8 bytes a sample and
 *                       IO_STREAM_MAX_TEXT_SLACK more (a sample of 5 digits and its spaces)
 *   PNG                 up to the end of IEND, at most twice the raw rows (deflate expands
 *                       nothing honest by more than a few hundredths; twice covers stored
 *                       blocks of any size) and IO_STREAM_MAX_META of other chunks
 *   JPEG                up to EOI, at most 4 bytes a sample (a baseline Huffman code and its
 *                       value take at most 27 bits a coefficient, 3.4 bytes a sample) and
 *                       IO_STREAM_MAX_META of markers
 *
 * Each is the upper bound of what an image of that size can honestly take (the bomb ratio,
 * codec.h, is the lower one, checked once the stream has ended). Declared lengths are judged
 * before their bytes are read: a chunk or segment that would pass the bound is refused at its
 * header. Where the structure is not the format's (a critical chunk the decoder does not
 * know, a segment length below 2), the scanner stops just past the fault and leaves the judgement to the
 * decoder, which reads the bytes up to there and says what is wrong in its own words; so the
 * end found never depends on how the bytes arrived.
 *
 * The scanner keeps its place between calls, so a stream is scanned once however it arrives.
 */
#ifndef TILEDCONV_STREAM_BOUNDS_H
#define TILEDCONV_STREAM_BOUNDS_H

#include <stddef.h>
#include <stdint.h>

#include "codec_common.h"

/* What a stream may hold before its image's size is known, and beside its image data after:
 * 64 MiB of metadata (ICC profiles, EXIF, XMP, text chunks, comments), far above what cameras
 * and editors write. */
#define IO_STREAM_MAX_META ((size_t)64 << 20)
/* A text PGM/PPM's allowance beside its 8 bytes a sample: room for comments between samples. */
#define IO_STREAM_MAX_TEXT_SLACK ((size_t)64 << 10)

typedef enum {
    IO_STREAM_MORE,    /* read on: the image needs more bytes (want says how many in all) */
    IO_STREAM_END,     /* the image ends at `end`: what follows is not its */
    IO_STREAM_REFUSED  /* more than the bound: err says so */
} io_stream_status;

typedef struct {
    io_format format;
    /* What the stream has said so far: */
    int have_size;        /* 1 once the header gave the size */
    long long width, height;
    int channels;         /* samples a pixel, as the header declares them */
    size_t limit;         /* the most bytes the stream may hold: IO_STREAM_MAX_META until the
                           * size is known, then the format's bound for that size */
    size_t end;           /* with IO_STREAM_END: the image's length in bytes */
    /* The scanner's own place: */
    size_t pos;
    int state;
    int field;                    /* PGM/PPM: header fields read, 0..3 */
    unsigned long long value;     /* PGM/PPM: the number being read */
    unsigned long long header[3]; /* PGM/PPM: width, height, maxval */
    unsigned long long numbers;   /* a text PGM/PPM: samples read */
    unsigned long long samples;   /* a text PGM/PPM: samples in all */
} io_stream;

/* Starts a scan of a stream of fmt (PNG, JPEG or PNM; a BMP has its own header-first reader,
 * bmp.h, and is always at its end here). */
void io_stream_init(io_stream *s, io_format fmt);

/* Scans data, the stream's first len bytes (the same bytes as at the last call, and more).
 * IO_STREAM_MORE: *want is the length the stream must reach before the next step, more than
 * len and at most s->limit; it is len + 1 where any amount helps (a JPEG's entropy-coded data,
 * read in blocks). IO_STREAM_END: s->end <= len is the image's length. IO_STREAM_REFUSED: the
 * image would pass s->limit; err says by what ("JPEG: more than 67108864 bytes of markers
 * before the image size (SOF)"). A stream that ends first is the decoder's to judge. */
io_stream_status io_stream_scan(io_stream *s, const uint8_t *data, size_t len, size_t *want,
                                char *err, size_t err_size);

#endif
