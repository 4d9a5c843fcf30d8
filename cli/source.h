/*
 * source.h - an input image's bytes, from a file or from standard input ("-"), with its format
 * known from the first bytes before the rest is read (SPEC.md: the format comes from the
 * content, never from the name), and the decoding of those bytes into samples.
 */
#ifndef TILEDCONV_SOURCE_H
#define TILEDCONV_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "codec.h"

/* The most bytes an input may have, file or stream: the BMP reader's limit (2 GiB), far above
 * any image within the pixel limit at 32 bits per pixel, for every format. */
#define SOURCE_MAX_BYTES ((size_t)2 << 30)

typedef struct {
    uint8_t *data;     /* the whole input: malloc'd, or mapped (a regular file, map asked) */
    size_t size;
    io_format format;  /* from the first bytes */
    int mapped;        /* data is a mapping of size bytes */
} source;

/* 1 when path names standard input ("-"). */
int source_is_stdin(const char *path);

/* How messages name an input: "standard input" for "-", else the path. */
const char *source_name(const char *path);

/* Reads path ("-": standard input) whole, at most SOURCE_MAX_BYTES. Its first
 * IO_IDENTIFY_BYTES are read and identified first (io_identify), so that something that is no
 * image in a format the tool reads (/dev/zero, a text stream, a GIF) is refused before any more
 * is read; standard input that is a terminal is refused rather than waited on. With map, a
 * regular file is mapped rather than copied (only the pages the decoder reads are loaded).
 * Returns 0, or -1 with "NAME: reason" in err and *s untouched. */
int source_read(const char *path, int map, source *s, char *err, size_t err_size);

/* Frees or unmaps the data; safe on a source that was never filled or was freed. */
void source_free(source *s);

/* The samples of s, any format: a BMP through the BMP reader (8-bit RGB, its messages as they
 * have always been), the others through io_decode with these limits (io_decode's max_pixels and
 * max_pixels_per_byte). name names the input in messages. Returns 0, or -1 with
 * "NAME: reason" in err. */
int source_decode(const source *s, const char *name, long max_pixels, long max_pixels_per_byte,
                  io_image *img, char *err, size_t err_size);

#endif
