/*
 * bmp_header.h - what the BMP reader's and writer's parts share (private to src/io/bmp_*.c):
 * the file's layout and codes, what its headers say (bmp_info), their checks, little-endian
 * bytes, and the one-line failure.
 */
#ifndef TILEDCONV_BMP_HEADER_H
#define TILEDCONV_BMP_HEADER_H

#include <stddef.h>
#include <stdint.h>

#include "bmp.h"
#include "text.h" /* io_fail */

/* BITMAPFILEHEADER is 14 bytes; the info header that follows starts with its own size. */
#define FILE_HEADER_SIZE 14u

/* Compression codes of the Windows headers. */
enum {
    BI_RGB = 0,
    BI_RLE8 = 1,
    BI_RLE4 = 2,
    BI_BITFIELDS = 3,
    BI_JPEG = 4,
    BI_PNG = 5,
    BI_ALPHABITFIELDS = 6
};

/* Everything the headers say that decoding needs. */
typedef struct {
    uint32_t offbits;     /* where the pixel data starts */
    uint32_t hsize;       /* size of the info header */
    uint32_t compression; /* BI_RGB, BI_RLE8, BI_RLE4 or BI_BITFIELDS (ALPHABITFIELDS folded in) */
    unsigned bpp;
    int width;
    int height;  /* always positive; topdown says which way the rows run */
    int topdown;
    size_t headers_end;   /* first byte after the headers and any bitfield masks */
    uint32_t masks[3];    /* red, green, blue; used for 16 and 32 bits per pixel */
    unsigned shift[3];    /* lowest set bit of each mask */
    uint32_t maxval[3];   /* each mask shifted down: the channel's full-scale value */
    size_t npal;          /* palette entries present (bpp <= 8) */
    uint8_t palette[256][3]; /* R, G, B */
} bmp_info;

/* The callers have checked that p[0..1] or p[0..3] lie inside the buffer. */
static inline uint16_t read_u16le(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t read_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* Two's complement read without relying on implementation-defined conversion of values above
 * INT32_MAX. */
static inline int32_t read_i32le(const uint8_t *p)
{
    uint32_t u = read_u32le(p);
    if (u <= (uint32_t)INT32_MAX)
        return (int32_t)u;
    return (int32_t)(u - 0x80000000u) + INT32_MIN;
}

static inline void put_u16le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v & 0xff);
    p[1] = (uint8_t)((v >> 8) & 0xff);
}

static inline void put_u32le(uint8_t *p, uint32_t v)
{
    put_u16le(p, v & 0xffff);
    put_u16le(p + 2, v >> 16);
}

/* RLE can describe far more pixels than it has bytes: at most 255 pixels per 2-byte run, so an
 * image encoded with runs alone stays below 128 pixels a byte. Deltas and an early end of the
 * bitmap skip pixels for free, which is how a 1 KB file declares 16384 x 16384 pixels: beyond
 * twice what runs can reach the file is refused as a likely decompression bomb (io_limits.h). */
#define BMP_RLE_MAX_RATIO 256u

/* The fixed-size part of the headers, in file order, so that the reason given is the first
 * defect: the signature, the info header's size, the image's size against the limits, the depth
 * and compression. It reads only the first 14 + hsize bytes (at most 138), so that a reader of
 * a pipe can check a header before it reads anything else; avail is how many bytes data holds.
 * *comp and *clr_used receive the raw compression code and palette length. */
int bmp_parse_core(const uint8_t *data, size_t avail, const io_limits *lim, bmp_info *info,
                   uint32_t *comp_out, uint32_t *clr_used_out, char *err, size_t err_size);

/* Every check of the headers, in file order: bmp_parse_core, then what needs the rest of the
 * file (the masks after a 40-byte header, the pixel-data offset, the palette). */
int bmp_parse_headers(const uint8_t *data, size_t size, const io_limits *lim, bmp_info *info,
                      char *err, size_t err_size);

/* Picture row y (0 = top) of an uncompressed file, of any depth, into rgb (width * 3 bytes).
 * The caller has checked that every byte read is in the file (bmp_plain_stride). */
int bmp_decode_plain_row(const uint8_t *data, const bmp_info *info, size_t stride, size_t y,
                         uint8_t *rgb, char *err, size_t err_size);

/* The row stride of an uncompressed file, once every row it stores is checked to lie in the
 * file (size bytes): 0, or -1 with "pixel data truncated: ...". */
int bmp_plain_stride(const bmp_info *info, size_t size, size_t *stride, char *err,
                     size_t err_size);

/* Reads from the reader's descriptor until it holds `want` bytes or the input ends (r->complete
 * set at the end). 0, or -1 with the reason in why. */
int bmp_read_until(bmp_reader *r, size_t want, char *why, size_t why_size);

#endif
