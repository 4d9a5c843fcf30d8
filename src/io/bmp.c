/*
 * bmp.c - the BMP reader and writer behind bmp.h.
 *
 * Reading follows stb_image's discipline: every header field is checked against a whitelist or a
 * bound before it is used, every size is computed in 64 bits and bounded before it becomes a
 * size_t, and every byte read is first checked against the length of the file. A file that breaks
 * the format is refused with a reason that names the defect; nothing is guessed.
 *
 * Decisions where the format leaves room (tests/bmpsuite-status.md lists them with the bmpsuite files
 * they affect):
 *   - Pixels an RLE stream never sets (skipped by a delta, an early end-of-line or end-of-bitmap)
 *     take the colour of palette entry 0, as if the index plane started zeroed; bmpsuite's
 *     "-0" reference images show the same choice.
 *   - Bitfield masks must be non-zero, contiguous, inside the pixel, and must not overlap one
 *     another; the alpha mask is not used and therefore not checked.
 *   - A palette that the header declares (biClrUsed != 0) must fit before the pixel data; a palette
 *     that is only implied (OS/2 headers, biClrUsed == 0) is cut to the room there is, and then
 *     every index is checked against the entries actually present.
 *   - The last row's padding may be missing: those bytes carry no pixels.
 */
#include "bmp.h"

#include "atomic_file.h"
#include "text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

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

static int set_err(char *err, size_t err_size, const char *fmt, ...)
{
    if (err && err_size > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, err_size, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* The callers have checked that p[0..1] or p[0..3] lie inside the buffer. */
static uint16_t read_u16le(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t read_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* Two's complement read without relying on implementation-defined conversion of values above
 * INT32_MAX. */
static int32_t read_i32le(const uint8_t *p)
{
    uint32_t u = read_u32le(p);
    if (u <= (uint32_t)INT32_MAX)
        return (int32_t)u;
    return (int32_t)(u - 0x80000000u) + INT32_MIN;
}

static void put_u16le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v & 0xff);
    p[1] = (uint8_t)((v >> 8) & 0xff);
}

static void put_u32le(uint8_t *p, uint32_t v)
{
    put_u16le(p, v & 0xffff);
    put_u16le(p + 2, v >> 16);
}

/* ---------------------------------------------------------------------------------------------
 * Header checks
 * ------------------------------------------------------------------------------------------- */

/* The header sizes of every BMP version we know the layout of: OS/2 1.x (12), OS/2 2.x in its
 * short (16) and full (64) forms, Windows 3 (40), the undocumented V2 (52) and V3 (56) that add
 * masks to the header, V4 (108) and V5 (124). Anything else is a layout we would have to guess. */
static int check_header_size(uint32_t hsize, char *err, size_t err_size)
{
    switch (hsize) {
    case 12: case 16: case 40: case 52: case 56: case 64: case 108: case 124:
        return 0;
    default:
        return set_err(err, err_size, "unknown BMP info header size %lu", (unsigned long)hsize);
    }
}

/* Width and height come from signed fields; a hostile header must not make us allocate
 * gigabytes or overflow width * height. */
static int check_dimensions(int32_t w, int32_t h, const io_limits *lim, bmp_info *info,
                            char *err, size_t err_size)
{
    /* A zero-sized image has no pixels to filter; treating it as valid would only move the
     * problem to every caller. */
    if (w == 0)
        return set_err(err, err_size, "image width is zero");
    /* Only the height's sign has a meaning (top-down rows); a negative width is a broken file. */
    if (w < 0)
        return set_err(err, err_size, "negative image width %ld", (long)w);
    if (h == 0)
        return set_err(err, err_size, "image height is zero");
    /* -INT32_MIN does not exist in 32 bits, so this height cannot be a top-down image. */
    if (h == INT32_MIN)
        return set_err(err, err_size, "image height %ld is out of range", (long)h);
    info->topdown = h < 0;
    if (h < 0)
        h = -h;
    if (w > BMP_MAX_SIDE || h > BMP_MAX_SIDE)
        return set_err(err, err_size, "image size %ld x %ld exceeds the limit of %d pixels a side",
                       (long)w, (long)h, BMP_MAX_SIDE);
    if (io_limits_check_pixels(w, h, lim, err, err_size))
        return -1;
    info->width = (int)w;
    info->height = (int)h;
    return 0;
}

/* Which compressions and bit depths go together. OS/2 2.x reuses codes 3 and 4 for its own
 * Huffman 1D and RLE24 schemes, so the code means something else there. */
static int check_format(uint32_t hsize, uint32_t comp, unsigned bpp, bmp_info *info, char *err,
                        size_t err_size)
{
    if (hsize == 64 && comp == 3)
        return set_err(err, err_size, "OS/2 Huffman 1D compression is not supported");
    if (hsize == 64 && comp == 4)
        return set_err(err, err_size, "OS/2 RLE24 compression is not supported");
    switch (comp) {
    case BI_RGB:
        /* 2 bits per pixel is Windows CE's, and costs nothing to read with the same code. */
        if (bpp != 1 && bpp != 2 && bpp != 4 && bpp != 8 && bpp != 16 && bpp != 24 && bpp != 32)
            return set_err(err, err_size, "unsupported bit depth %u", bpp);
        break;
    case BI_RLE8:
        if (bpp != 8)
            return set_err(err, err_size, "RLE8 compression needs 8 bits per pixel, not %u", bpp);
        break;
    case BI_RLE4:
        if (bpp != 4)
            return set_err(err, err_size, "RLE4 compression needs 4 bits per pixel, not %u", bpp);
        break;
    case BI_BITFIELDS:
    case BI_ALPHABITFIELDS:
        if (bpp != 16 && bpp != 32)
            return set_err(err, err_size, "bitfields need 16 or 32 bits per pixel, not %u", bpp);
        break;
    case BI_JPEG:
        return set_err(err, err_size, "BMP with embedded JPEG data (compression 4) is not supported");
    case BI_PNG:
        return set_err(err, err_size, "BMP with embedded PNG data (compression 5) is not supported");
    default:
        return set_err(err, err_size, "unknown compression %lu", (unsigned long)comp);
    }
    /* Run-length data is decoded bottom-up by definition; the format forbids top-down RLE, and
     * a decoder that accepted it would have to guess where rows go. */
    if ((comp == BI_RLE8 || comp == BI_RLE4) && info->topdown)
        return set_err(err, err_size, "RLE compression in a top-down BMP is not allowed");
    info->compression = comp == BI_ALPHABITFIELDS ? BI_BITFIELDS : comp;
    info->bpp = bpp;
    return 0;
}

static unsigned lowest_bit(uint32_t m)
{
    unsigned s = 0;
    while (!(m & 1u)) {
        m >>= 1;
        s++;
    }
    return s;
}

/* Each colour mask must select some bits (a channel with no bits has no defined value), lie
 * inside the pixel, be one run of bits (so "scale to full range" has one meaning), and not share
 * bits with another channel (which would make the colours depend on each other). */
static int check_masks(bmp_info *info, char *err, size_t err_size)
{
    static const char *const names[3] = {"red", "green", "blue"};
    for (int c = 0; c < 3; c++) {
        uint32_t m = info->masks[c];
        if (m == 0)
            return set_err(err, err_size, "the %s bitfield mask is zero", names[c]);
        if (info->bpp < 32 && (m >> info->bpp) != 0)
            return set_err(err, err_size, "the %s bitfield mask 0x%08lx lies outside the %u-bit pixel",
                           names[c], (unsigned long)m, info->bpp);
        unsigned s = lowest_bit(m);
        uint32_t v = m >> s;
        if ((v & (v + 1u)) != 0) /* v + 1 is a power of two only for a run of ones */
            return set_err(err, err_size, "the %s bitfield mask 0x%08lx is not contiguous",
                           names[c], (unsigned long)m);
        info->shift[c] = s;
        info->maxval[c] = v;
    }
    if ((info->masks[0] & info->masks[1]) || (info->masks[0] & info->masks[2]) ||
        (info->masks[1] & info->masks[2]))
        return set_err(err, err_size, "bitfield masks overlap (red 0x%08lx, green 0x%08lx, blue 0x%08lx)",
                       (unsigned long)info->masks[0], (unsigned long)info->masks[1],
                       (unsigned long)info->masks[2]);
    return 0;
}

/* Where the masks come from: the defaults for BI_RGB, the header itself for 52-byte and longer
 * headers, or 12 (16 with alpha) bytes after a 40-byte header. */
static int read_masks(const uint8_t *data, size_t size, uint32_t comp_raw, bmp_info *info,
                      char *err, size_t err_size)
{
    if (info->compression != BI_BITFIELDS) {
        if (info->bpp == 16) { /* the documented default: 5-5-5 with the top bit unused */
            info->masks[0] = 0x7c00u;
            info->masks[1] = 0x03e0u;
            info->masks[2] = 0x001fu;
        } else { /* 32 bits: 8-8-8 with the top byte unused */
            info->masks[0] = 0x00ff0000u;
            info->masks[1] = 0x0000ff00u;
            info->masks[2] = 0x000000ffu;
        }
    } else if (info->hsize >= 52) {
        const uint8_t *p = data + FILE_HEADER_SIZE + 40; /* inside the header, already bounded */
        for (int c = 0; c < 3; c++)
            info->masks[c] = read_u32le(p + 4 * c);
    } else {
        /* Only the 40-byte header gets here: the 12- and 16-byte ones have no compression field
         * and the 64-byte one gives codes 3 and 4 to OS/2 schemes. */
        size_t extra = comp_raw == BI_ALPHABITFIELDS ? 16 : 12;
        if (size - info->headers_end < extra)
            return set_err(err, err_size, "file too short for the bitfield masks after the header");
        for (int c = 0; c < 3; c++)
            info->masks[c] = read_u32le(data + info->headers_end + 4 * c);
        info->headers_end += extra;
    }
    return check_masks(info, err, err_size);
}

/* The colour table. Its length is biClrUsed, or 2^bpp when that is 0 or the header has no such
 * field. */
static int read_palette(const uint8_t *data, uint32_t clr_used, bmp_info *info, char *err,
                        size_t err_size)
{
    size_t entry = info->hsize == 12 ? 3 : 4; /* OS/2 1.x stores B, G, R without a pad byte */
    size_t maxn = (size_t)1 << info->bpp;
    int declared = info->hsize >= 40 && clr_used != 0;
    size_t room = (info->offbits - info->headers_end) / entry;
    size_t n = declared ? clr_used : maxn;

    /* Indices cannot reach past 2^bpp; a longer table is a header that contradicts itself. */
    if (declared && clr_used > maxn)
        return set_err(err, err_size, "palette of %lu colours, but %u bits per pixel can index only %lu",
                       (unsigned long)clr_used, info->bpp, (unsigned long)maxn);
    if (n > room) {
        /* The palette lies between the headers and the pixel data; a declared length that does
         * not fit there means the palette is truncated or the offset is wrong. */
        if (declared)
            return set_err(err, err_size,
                           "palette of %lu colours does not fit before the pixel data (room for %lu)",
                           (unsigned long)n, (unsigned long)room);
        /* An implied length is only a maximum: short palettes are common in OS/2 files. */
        n = room;
    }
    if (n == 0)
        return set_err(err, err_size, "no room for a palette before the pixel data");
    const uint8_t *p = data + info->headers_end;
    for (size_t i = 0; i < n; i++, p += entry) {
        info->palette[i][0] = p[2];
        info->palette[i][1] = p[1];
        info->palette[i][2] = p[0];
    }
    info->npal = n;
    return 0;
}

/* The fixed-size part of the headers, in file order, so that the reason given is the first
 * defect: the signature, the info header's size, the image's size against the limits, the depth
 * and compression. It reads only the first 14 + hsize bytes (at most 138), so that a reader of
 * a pipe can check a header before it reads anything else; avail is how many bytes data holds.
 * *comp and *clr_used receive the raw compression code and palette length. */
static int parse_core(const uint8_t *data, size_t avail, const io_limits *lim, bmp_info *info,
                      uint32_t *comp_out, uint32_t *clr_used_out, char *err, size_t err_size)
{
    const size_t size = avail;
    int32_t w, h;
    unsigned planes, bpp;
    uint32_t comp = BI_RGB, clr_used = 0;

    /* The file header and the info header's size field are the least any BMP has. */
    if (size < FILE_HEADER_SIZE + 4)
        return set_err(err, err_size, "file too short for a BMP header (%lu bytes)",
                       (unsigned long)size);
    if (data[0] == 'B' && data[1] == 'A')
        return set_err(err, err_size, "OS/2 bitmap arrays ('BA' signature) are not supported");
    if (data[0] != 'B' || data[1] != 'M')
        return set_err(err, err_size, "not a BMP file (no 'BM' signature)");
    info->offbits = read_u32le(data + 10);
    info->hsize = read_u32le(data + 14);
    if (check_header_size(info->hsize, err, err_size))
        return -1;
    if (size - FILE_HEADER_SIZE < info->hsize)
        return set_err(err, err_size, "file too short for its %lu-byte info header",
                       (unsigned long)info->hsize);
    info->headers_end = FILE_HEADER_SIZE + info->hsize;

    const uint8_t *ih = data + FILE_HEADER_SIZE;
    if (info->hsize == 12) { /* OS/2 1.x: unsigned 16-bit sizes */
        w = read_u16le(ih + 4);
        h = read_u16le(ih + 6);
        planes = read_u16le(ih + 8);
        bpp = read_u16le(ih + 10);
    } else {
        w = read_i32le(ih + 4);
        h = read_i32le(ih + 8);
        planes = read_u16le(ih + 12);
        bpp = read_u16le(ih + 14);
        if (info->hsize >= 40) { /* the 16-byte OS/2 2.x header stops before these */
            comp = read_u32le(ih + 16);
            clr_used = read_u32le(ih + 32);
        }
    }
    /* Planes has been 1 since Windows 3; another value is a corrupt or non-BMP file. */
    if (planes != 1)
        return set_err(err, err_size, "number of planes is %u, must be 1", planes);
    if (check_dimensions(w, h, lim, info, err, err_size) ||
        check_format(info->hsize, comp, bpp, info, err, err_size))
        return -1;
    *comp_out = comp;
    *clr_used_out = clr_used;
    return 0;
}

/* Every check of the headers, in file order: parse_core, then what needs the rest of the file
 * (the masks after a 40-byte header, the pixel-data offset, the palette). */
static int parse_headers(const uint8_t *data, size_t size, const io_limits *lim, bmp_info *info,
                         char *err, size_t err_size)
{
    uint32_t comp = BI_RGB, clr_used = 0;
    if (parse_core(data, size, lim, info, &comp, &clr_used, err, err_size))
        return -1;
    const unsigned bpp = info->bpp;
    if (bpp >= 16 && read_masks(data, size, comp, info, err, err_size))
        return -1;
    /* The pixel data must start after everything the headers occupy and inside the file. */
    if (info->offbits < info->headers_end)
        return set_err(err, err_size, "pixel data offset %lu lies inside the headers (which end at %lu)",
                       (unsigned long)info->offbits, (unsigned long)info->headers_end);
    if (info->offbits >= size)
        return set_err(err, err_size, "pixel data offset %lu is past the end of the file (%lu bytes)",
                       (unsigned long)info->offbits, (unsigned long)size);
    if (bpp <= 8 && read_palette(data, clr_used, info, err, err_size))
        return -1;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Pixel decoding
 * ------------------------------------------------------------------------------------------- */

/* Scale a channel so that its full-scale value becomes 255, rounding to nearest: v << 3 would
 * turn 5-bit white into 248. 64 bits because a 32-bit channel times 255 does not fit in 32. */
static uint8_t scale_channel(uint32_t pixel, const bmp_info *info, int c)
{
    uint64_t v = (pixel & info->masks[c]) >> info->shift[c];
    uint64_t max = info->maxval[c];
    return (uint8_t)((v * 255u + max / 2u) / max);
}

/* Picture row y (0 = top) of an uncompressed file, of any depth, into rgb (width * 3 bytes).
 * The caller has checked that every byte read is in the file. */
static int decode_plain_row(const uint8_t *data, const bmp_info *info, size_t stride, size_t y,
                            uint8_t *rgb, char *err, size_t err_size)
{
    const unsigned bpp = info->bpp;
    const size_t w = (size_t)info->width;
    /* Row 0 of the output is the top of the picture, which bottom-up files store last. */
    size_t src_row = info->topdown ? y : (size_t)info->height - 1 - y;
    const uint8_t *row = data + info->offbits + src_row * stride;
    uint8_t *out = rgb;
    for (size_t x = 0; x < w; x++, out += 3) {
        if (bpp <= 8) {
            size_t bit = x * bpp;
            unsigned idx = (row[bit / 8] >> (8 - bpp - bit % 8)) & ((1u << bpp) - 1u);
            /* A short palette leaves indices that name no colour: the file is broken. */
            if (idx >= info->npal)
                return set_err(err, err_size,
                               "palette index %u at (%lu, %lu) is past the %lu-entry palette",
                               idx, (unsigned long)x, (unsigned long)y,
                               (unsigned long)info->npal);
            memcpy(out, info->palette[idx], 3);
        } else if (bpp == 24) {
            const uint8_t *p = row + x * 3;
            out[0] = p[2];
            out[1] = p[1];
            out[2] = p[0];
        } else {
            uint32_t v = bpp == 16 ? read_u16le(row + x * 2) : read_u32le(row + x * 4);
            for (int c = 0; c < 3; c++)
                out[c] = scale_channel(v, info, c);
        }
    }
    return 0;
}

/* Uncompressed rows of any depth. The caller has checked that every byte read is in the file. */
static int decode_plain(const uint8_t *data, const bmp_info *info, size_t stride, uint8_t *rgb,
                        char *err, size_t err_size)
{
    const size_t w = (size_t)info->width;
    for (size_t y = 0; y < (size_t)info->height; y++)
        if (decode_plain_row(data, info, stride, y, rgb + y * w * 3, err, err_size))
            return -1;
    return 0;
}

/* Paint one palette index at column x of bottom-up row y. */
static int rle_put(const bmp_info *info, uint8_t *rgb, size_t x, size_t y, unsigned idx,
                   char *err, size_t err_size)
{
    if (idx >= info->npal)
        return set_err(err, err_size, "RLE palette index %u is past the %lu-entry palette", idx,
                       (unsigned long)info->npal);
    size_t out_row = (size_t)info->height - 1 - y;
    memcpy(rgb + (out_row * (size_t)info->width + x) * 3, info->palette[idx], 3);
    return 0;
}

/* The picture row (0 = top) of bottom-up row y, for messages that match the rest of the API. */
static unsigned long top_row(const bmp_info *info, size_t y)
{
    return (unsigned long)((size_t)info->height - 1 - y);
}

/* RLE8 and RLE4 (bottom-up only). Every run, delta and absolute run is checked against the image
 * before it writes, and every byte against the end of the file. */
static int decode_rle(const uint8_t *data, size_t size, const bmp_info *info, uint8_t *rgb,
                      char *err, size_t err_size)
{
    const int rle4 = info->compression == BI_RLE4;
    const size_t w = (size_t)info->width, h = (size_t)info->height;
    size_t p = info->offbits, x = 0, y = 0;

    /* Pixels no code sets keep palette entry 0 (see the top of this file). */
    for (size_t i = 0; i < w * h; i++)
        memcpy(rgb + i * 3, info->palette[0], 3);

    for (;;) {
        if (size - p < 2) {
            /* A stream that has filled every row may omit the end-of-bitmap marker; one that
             * stops earlier is truncated. */
            if (y >= h)
                return 0;
            return set_err(err, err_size, "RLE data ends at row %lu before the end-of-bitmap marker",
                           top_row(info, y));
        }
        unsigned a = data[p], b = data[p + 1];
        p += 2;
        if (a > 0) { /* encoded run: a pixels of index b (RLE4: its two nibbles alternating) */
            if (y >= h)
                return set_err(err, err_size, "RLE run below the last row of the image");
            if (a > w - x)
                return set_err(err, err_size, "RLE run of %u pixels at (%lu, %lu) passes the end of the row (width %lu)",
                               a, (unsigned long)x, top_row(info, y), (unsigned long)w);
            for (unsigned i = 0; i < a; i++, x++) {
                unsigned idx = rle4 ? ((i & 1u) ? (b & 15u) : (b >> 4)) : b;
                if (rle_put(info, rgb, x, y, idx, err, err_size))
                    return -1;
            }
        } else if (b == 0) { /* end of line */
            if (y >= h)
                return set_err(err, err_size, "RLE end-of-line below the last row of the image");
            x = 0;
            y++;
        } else if (b == 1) { /* end of bitmap */
            return 0;
        } else if (b == 2) { /* delta: move right dx and up dy */
            if (size - p < 2)
                return set_err(err, err_size, "RLE delta truncated by the end of the file");
            unsigned dx = data[p], dy = data[p + 1];
            p += 2;
            if (dx > w - x || y >= h || dy > h - 1 - y)
                return set_err(err, err_size, "RLE delta (%u, %u) from (%lu, %lu) leaves the %lu x %lu image",
                               dx, dy, (unsigned long)x, top_row(info, y), (unsigned long)w,
                               (unsigned long)h);
            x += dx;
            y += dy;
        } else { /* absolute run of b literal indices, padded to a 16-bit boundary */
            size_t nbytes = rle4 ? (b + 1u) / 2u : b;
            size_t padded = nbytes + (nbytes & 1u);
            if (y >= h)
                return set_err(err, err_size, "RLE absolute run below the last row of the image");
            if (b > w - x)
                return set_err(err, err_size, "RLE absolute run of %u pixels at (%lu, %lu) passes the end of the row (width %lu)",
                               b, (unsigned long)x, top_row(info, y), (unsigned long)w);
            if (size - p < nbytes)
                return set_err(err, err_size, "RLE absolute run truncated by the end of the file");
            for (unsigned i = 0; i < b; i++, x++) {
                unsigned idx = rle4 ? ((i & 1u) ? (data[p + i / 2] & 15u) : (data[p + i / 2] >> 4))
                                    : data[p + i];
                if (rle_put(info, rgb, x, y, idx, err, err_size))
                    return -1;
            }
            /* The pad byte of the last run may be cut off by the end of the file. */
            p += padded <= size - p ? padded : nbytes;
        }
    }
}

/* RLE can describe far more pixels than it has bytes: at most 255 pixels per 2-byte run, so an
 * image encoded with runs alone stays below 128 pixels a byte. Deltas and an early end of the
 * bitmap skip pixels for free, which is how a 1 KB file declares 16384 x 16384 pixels: beyond
 * twice what runs can reach the file is refused as a likely decompression bomb (io_limits.h). */
#define BMP_RLE_MAX_RATIO 256u

int bmp_decode_with(const uint8_t *data, size_t size, const io_limits *lim, bmp_image *img,
                    char *err, size_t err_size)
{
    bmp_info info;
    uint8_t *rgb = NULL;
    size_t stride = 0, npix;
    int rc = -1;

    memset(&info, 0, sizeof info);
    if (!data || !img) {
        set_err(err, err_size, "no data to decode");
        goto done;
    }
    if (parse_headers(data, size, lim, &info, err, err_size))
        goto done;

    if (info.compression == BI_RGB || info.compression == BI_BITFIELDS) {
        /* Bounded by BMP_MAX_SIDE * 32 bits, so none of these overflow 64 bits; the product is
         * compared with what the file holds before anything is allocated. */
        uint64_t row_bits = (uint64_t)info.width * info.bpp;
        uint64_t stride64 = (row_bits + 31u) / 32u * 4u;
        uint64_t need = stride64 * (uint64_t)(info.height - 1) + (row_bits + 7u) / 8u;
        uint64_t avail = size - info.offbits;
        if (need > avail) {
            set_err(err, err_size, "pixel data truncated: %llu bytes needed from offset %lu, %llu in the file",
                    (unsigned long long)need, (unsigned long)info.offbits,
                    (unsigned long long)avail);
            goto done;
        }
        stride = (size_t)stride64; /* fits: it is at most avail, a size_t */
    } else if (io_limits_check_ratio(info.width, info.height, size - info.offbits,
                                     BMP_RLE_MAX_RATIO,
                                     info.compression == BI_RLE8 ? "RLE8" : "RLE4", lim, err,
                                     err_size)) {
        goto done; /* before the image is allocated: a bomb costs nothing */
    }
    /* width * height <= IO_HARD_MAX_PIXELS, but a 32-bit size_t still needs the check for * 3. */
    npix = (size_t)info.width * (size_t)info.height;
    if (npix > SIZE_MAX / 3) {
        set_err(err, err_size, "image of %lu pixels too large for this machine", (unsigned long)npix);
        goto done;
    }
    rgb = malloc(npix * 3);
    if (!rgb) {
        set_err(err, err_size, "out of memory for a %d x %d image", info.width, info.height);
        goto done;
    }
    if (info.compression == BI_RLE8 || info.compression == BI_RLE4) {
        if (decode_rle(data, size, &info, rgb, err, err_size))
            goto done;
    } else if (decode_plain(data, &info, stride, rgb, err, err_size)) {
        goto done;
    }
    img->width = info.width;
    img->height = info.height;
    img->rgb = rgb;
    rgb = NULL;
    rc = 0;
done:
    free(rgb);
    return rc;
}

int bmp_decode_limited(const uint8_t *data, size_t size, long max_pixels, bmp_image *img,
                       char *err, size_t err_size)
{
    io_limits lim;
    io_limits_default(&lim);
    lim.max_pixels = max_pixels;
    return bmp_decode_with(data, size, &lim, img, err, err_size);
}

int bmp_view_pixels(const uint8_t *data, size_t size, const io_limits *lim, bmp_view *v,
                    char *err, size_t err_size)
{
    bmp_info info;
    memset(&info, 0, sizeof info);
    if (!data || !v)
        return set_err(err, err_size, "no data to decode");
    if (parse_headers(data, size, lim, &info, err, err_size))
        return -1;
    /* 32-bit BI_RGB has the default 8-8-8 masks: its bytes are the channels as they are. */
    if (info.compression != BI_RGB || (info.bpp != 8 && info.bpp != 24 && info.bpp != 32))
        return 0;
    const uint64_t row_bits = (uint64_t)info.width * info.bpp;
    const uint64_t stride = (row_bits + 31u) / 32u * 4u;
    const uint64_t need = stride * (uint64_t)(info.height - 1) + (row_bits + 7u) / 8u;
    const uint64_t avail = size - info.offbits;
    if (need > avail)
        return set_err(err, err_size,
                       "pixel data truncated: %llu bytes needed from offset %lu, %llu in the file",
                       (unsigned long long)need, (unsigned long)info.offbits,
                       (unsigned long long)avail);
    const uint8_t *first = data + info.offbits; /* the first row stored */
    v->width = info.width;
    v->height = info.height;
    v->bytes_per_pixel = (int)info.bpp / 8;
    v->stride = info.topdown ? (long)stride : -(long)stride;
    v->top_row = info.topdown ? first : first + stride * (uint64_t)(info.height - 1);
    v->palette_size = (int)info.npal;
    memcpy(v->palette, info.palette, sizeof v->palette);
    /* Every index must name a colour, as bmp_decode demands: the same check, the same words. */
    for (int y = 0; info.bpp == 8 && y < info.height; y++) {
        const uint8_t *row = v->top_row + (long)y * v->stride;
        for (int x = 0; x < info.width; x++)
            if (row[x] >= info.npal)
                return set_err(err, err_size,
                               "palette index %u at (%lu, %lu) is past the %lu-entry palette",
                               (unsigned)row[x], (unsigned long)x, (unsigned long)y,
                               (unsigned long)info.npal);
    }
    return 1;
}

int bmp_header_size(const uint8_t *data, size_t size, const io_limits *lim, int *width,
                    int *height, char *err, size_t err_size)
{
    bmp_info info;
    memset(&info, 0, sizeof info);
    if (!data)
        return set_err(err, err_size, "no data to decode");
    if (parse_headers(data, size, lim, &info, err, err_size))
        return -1;
    *width = info.width;
    *height = info.height;
    return 0;
}

int bmp_decode(const uint8_t *data, size_t size, bmp_image *img, char *err, size_t err_size)
{
    return bmp_decode_with(data, size, NULL, img, err, err_size);
}

/* ---------------------------------------------------------------------------------------------
 * Loading: the header first, then only as many bytes as it makes meaningful
 * ------------------------------------------------------------------------------------------- */

/* The largest file bmp_reader_open reads: far above any image within IO_HARD_MAX_PIXELS at 24 bits per
 * pixel, and low enough that a size never approaches the limits of 32-bit arithmetic. */
#define BMP_MAX_FILE_SIZE ((size_t)2 << 30)

/* What a pipe must deliver before its header can be judged: the file header and the longest
 * info header (14 + 124 bytes) and the masks that may follow a 40-byte one (16). */
#define BMP_HEAD_BYTES (FILE_HEADER_SIZE + 124u + 16u)

/* The most bytes a file with this header can usefully hold: uncompressed, the end of its last
 * row; RLE, 4 bytes a pixel (a 1-pixel delta, the costliest honest code) and the end-of-line
 * and end-of-bitmap codes. What a pipe sends beyond that is not read. */
static size_t meaningful_bytes(const bmp_info *info)
{
    uint64_t n;
    if (info->compression == BI_RLE8 || info->compression == BI_RLE4) {
        n = (uint64_t)info->offbits + 4u * (uint64_t)info->width * (uint64_t)info->height +
            2u * (uint64_t)info->height + 2u;
    } else {
        uint64_t row_bits = (uint64_t)info->width * info->bpp;
        n = (uint64_t)info->offbits + (row_bits + 31u) / 32u * 4u * (uint64_t)info->height;
    }
    return n > BMP_MAX_FILE_SIZE ? BMP_MAX_FILE_SIZE : (size_t)n;
}

/* Reads from the reader's descriptor until it holds `want` bytes or the input ends, growing the
 * buffer only as far as want: for a regular file at once to its size (one allocation, one
 * copy out of the page cache), for a pipe step by step. Returns 0 (r->complete set at the end of
 * the input, which for a file that shrank since it was opened comes early), or -1. */
static int read_until(bmp_reader *r, size_t want, char *why, size_t why_size)
{
    while (r->size < want && !r->complete) {
        if (r->size == r->cap) {
            size_t ncap = r->cap ? r->cap * 2 : 65536;
            if (r->file_size > ncap)
                ncap = r->file_size;
            if (ncap > want)
                ncap = want;
            uint8_t *nbuf = realloc(r->buf, ncap);
            if (!nbuf)
                return set_err(why, why_size, "out of memory reading the file (%lu bytes)",
                               (unsigned long)ncap);
            r->buf = nbuf;
            r->cap = ncap;
        }
        ssize_t got = read(r->fd, r->buf + r->size, r->cap - r->size);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return set_err(why, why_size, "read error: %s", strerror(errno));
        if (got == 0)
            r->complete = 1;
        r->size += (size_t)got;
    }
    r->data = r->buf;
    return 0;
}

/* What kind of file st is, for a refusal; NULL for the kinds that are read (a regular file, a
 * pipe or FIFO). A device is refused before a byte is read: /dev/zero has no end. */
static const char *unreadable_kind(const struct stat *st)
{
    if (S_ISDIR(st->st_mode))
        return "a folder, not a file";
    if (S_ISCHR(st->st_mode))
        return "a character device, not a file; refusing to read it";
    if (S_ISBLK(st->st_mode))
        return "a block device, not a file; refusing to read it";
    if (S_ISSOCK(st->st_mode))
        return "a socket, not a file";
    return NULL;
}

/* The reader's fields before anything is read: nothing to close yet. */
static void reader_init(bmp_reader *r, const char *path, const io_limits *lim)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    if (lim)
        r->lim = *lim;
    else
        io_limits_default(&r->lim);
    r->path = path;
}

/* The header of the file open on r->fd (of status st, a kind that may be read), of which head
 * holds the first n bytes already read: checked against the limits, and r's size and need set.
 * Only the header is read here, so that a stream that is not a BMP is refused after a few
 * bytes and a hostile file costs nothing before it is refused. With sized, a regular file's
 * size is the whole input's: the bomb guard judges it now, and the pixels are later read into
 * one buffer of that size. 0, or -1 with the reason in why. */
static int reader_start(bmp_reader *r, const struct stat *st, int sized, const uint8_t *head,
                        size_t n, char *why, size_t why_size)
{
    bmp_info info;
    uint32_t comp, clr_used;
    memset(&info, 0, sizeof info);
    if (sized && S_ISREG(st->st_mode)) {
        if ((uint64_t)st->st_size > BMP_MAX_FILE_SIZE)
            return set_err(why, why_size, "file is larger than the %lu MiB limit",
                           (unsigned long)(BMP_MAX_FILE_SIZE >> 20));
        r->file_size = (size_t)st->st_size;
    }
    /* What the caller has read of it already comes first. */
    if (n > 0) {
        if (!(r->buf = malloc(n)))
            return set_err(why, why_size, "out of memory reading the file");
        memcpy(r->buf, head, n);
        r->size = r->cap = n;
        r->data = r->buf;
    }
    if (read_until(r, BMP_HEAD_BYTES, why, why_size))
        return -1;
    if (parse_core(r->data, r->size, &r->lim, &info, &comp, &clr_used, why, why_size))
        return -1;
    /* With the file's size known the ratio check can refuse a bomb before any allocation. */
    const size_t whole = r->complete ? r->size : r->file_size;
    if ((info.compression == BI_RLE8 || info.compression == BI_RLE4) && info.offbits < whole &&
        io_limits_check_ratio(info.width, info.height, whole - info.offbits,
                              BMP_RLE_MAX_RATIO, info.compression == BI_RLE8 ? "RLE8" : "RLE4",
                              &r->lim, why, why_size))
        return -1;
    r->width = info.width;
    r->height = info.height;
    r->need = meaningful_bytes(&info);
    return 0;
}

int bmp_reader_open(bmp_reader *r, const char *path, const io_limits *lim, char *err,
                    size_t err_size)
{
    char why[256] = "";
    struct stat st;
    int rc = -1;

    reader_init(r, path, lim);
    r->own_fd = 1;
    r->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (r->fd < 0 || fstat(r->fd, &st) != 0) {
        snprintf(why, sizeof why, "%s", strerror(errno));
        goto done;
    }
    const char *kind = unreadable_kind(&st);
    if (kind) {
        snprintf(why, sizeof why, "%s", kind);
        goto done;
    }
    rc = reader_start(r, &st, 1, NULL, 0, why, sizeof why);
done:
    if (rc != 0) {
        text_shown shown;
        set_err(err, err_size, "%s: %s", text_show(path, &shown), why);
        bmp_reader_close(r);
    }
    return rc;
}

int bmp_reader_open_fd(bmp_reader *r, int fd, const char *name, int sized, const uint8_t *head,
                       size_t n, const io_limits *lim, char *err, size_t err_size)
{
    char why[256] = "";
    struct stat st;
    int rc = -1;

    reader_init(r, name, lim);
    r->fd = fd; /* the caller's: bmp_reader_close leaves it open */
    if (fstat(fd, &st) != 0)
        snprintf(why, sizeof why, "%s", strerror(errno));
    else
        rc = reader_start(r, &st, sized, head, n, why, sizeof why);
    if (rc != 0) {
        text_shown shown;
        set_err(err, err_size, "%s: %s", text_show(name, &shown), why);
        bmp_reader_close(r);
    }
    return rc;
}

int bmp_reader_decode(bmp_reader *r, bmp_image *img, char *err, size_t err_size)
{
    char why[256] = "";
    int rc = -1;
    if (!r->complete && read_until(r, r->need, why, sizeof why))
        goto done;
    rc = bmp_decode_with(r->data, r->size, &r->lim, img, why, sizeof why);
done:
    if (rc != 0) {
        text_shown shown;
        set_err(err, err_size, "%s: %s", text_show(r->path, &shown), why);
    }
    return rc;
}

void bmp_reader_close(bmp_reader *r)
{
    free(r->buf);
    r->buf = NULL;
    if (r->fd >= 0 && r->own_fd)
        close(r->fd);
    r->fd = -1;
    r->data = NULL;
    r->size = r->cap = 0;
}

int bmp_reader_bytes(bmp_reader *r, uint8_t **data, size_t *size, char *err, size_t err_size)
{
    char why[256] = "";
    if (!r->complete && read_until(r, r->need, why, sizeof why)) {
        text_shown shown;
        return set_err(err, err_size, "%s: %s", text_show(r->path, &shown), why);
    }
    /* The buffer is handed over as it is (empty for an empty input). */
    *data = r->buf ? r->buf : malloc(1);
    if (!*data) {
        text_shown shown;
        return set_err(err, err_size, "%s: out of memory reading the file",
                       text_show(r->path, &shown));
    }
    *size = r->size;
    r->buf = NULL;
    r->data = NULL;
    r->size = r->cap = 0;
    return 0;
}

int bmp_read_with(const char *path, const io_limits *lim, uint8_t **data, size_t *size,
                  char *err, size_t err_size)
{
    bmp_reader r;
    if (bmp_reader_open(&r, path, lim, err, err_size))
        return -1;
    int rc = bmp_reader_bytes(&r, data, size, err, err_size);
    bmp_reader_close(&r);
    return rc;
}

int bmp_read(const char *path, uint8_t **data, size_t *size, char *err, size_t err_size)
{
    return bmp_read_with(path, NULL, data, size, err, err_size);
}

int bmp_load_with(const char *path, const io_limits *lim, bmp_image *img, char *err,
                  size_t err_size)
{
    bmp_reader r;
    if (bmp_reader_open(&r, path, lim, err, err_size))
        return -1;
    int rc = bmp_reader_decode(&r, img, err, err_size);
    bmp_reader_close(&r);
    return rc;
}

int bmp_load(const char *path, bmp_image *img, char *err, size_t err_size)
{
    return bmp_load_with(path, NULL, img, err, err_size);
}

void bmp_free(bmp_image *img)
{
    if (!img)
        return;
    free(img->rgb);
    img->rgb = NULL;
    img->width = 0;
    img->height = 0;
}

/* ---------------------------------------------------------------------------------------------
 * Writing
 * ------------------------------------------------------------------------------------------- */

/* Write bottom-up rows of bpp 8 (gray, palette) or 24 (BGR) to f. */
int bmp_layout(int width, int height, int bpp, size_t *file_size, size_t *offbits,
               size_t *stride)
{
    const uint32_t off = 54u + (bpp == 8 ? 1024u : 0u);
    if ((bpp != 8 && bpp != 24) || width <= 0 || height <= 0)
        return -1;
    /* The size fields of the format are 32 bits: a larger image cannot be written as a BMP. */
    const uint64_t stride64 = ((uint64_t)width * (unsigned)bpp + 31u) / 32u * 4u;
    const uint64_t image64 = stride64 * (uint64_t)height;
    if (image64 > UINT32_MAX - off)
        return -1;
    *offbits = off;
    *stride = (size_t)stride64;
    *file_size = (size_t)(off + image64);
    return 0;
}

void bmp_put_headers(uint8_t *out, int width, int height, int bpp)
{
    size_t file_size, offbits, stride;
    if (bmp_layout(width, height, bpp, &file_size, &offbits, &stride))
        return;
    memset(out, 0, 54);
    out[0] = 'B';
    out[1] = 'M';
    put_u32le(out + 2, (uint32_t)file_size);
    put_u32le(out + 10, (uint32_t)offbits);
    put_u32le(out + 14, 40);                    /* BITMAPINFOHEADER */
    put_u32le(out + 18, (uint32_t)width);
    put_u32le(out + 22, (uint32_t)height);      /* positive: rows stored bottom-up */
    put_u16le(out + 26, 1);                     /* planes */
    put_u16le(out + 28, (uint32_t)bpp);
    put_u32le(out + 30, BI_RGB);
    put_u32le(out + 34, (uint32_t)(file_size - offbits));
    put_u32le(out + 38, 2835);                  /* 72 dpi, as most writers put */
    put_u32le(out + 42, 2835);
    put_u32le(out + 46, bpp == 8 ? 256 : 0);    /* colours used */
    for (unsigned i = 0; bpp == 8 && i < 256; i++) { /* the gray palette */
        uint8_t *e = out + 54 + 4 * i;
        e[0] = e[1] = e[2] = (uint8_t)i;
        e[3] = 0;
    }
}

static int write_body(FILE *f, const uint8_t *pixels, int width, int height, unsigned bpp,
                      uint32_t offbits, size_t stride, const char *path, char *err,
                      size_t err_size)
{
    uint8_t hdr[54 + 1024];
    uint8_t *row = NULL;
    text_shown shown;
    int rc = -1;

    bmp_put_headers(hdr, width, height, (int)bpp);
    if (fwrite(hdr, 1, offbits, f) != offbits)
        goto io_error;
    row = calloc(stride, 1); /* calloc: the padding bytes stay zero */
    if (!row) {
        set_err(err, err_size, "%s: out of memory", text_show(path, &shown));
        goto done;
    }
    for (int y = height - 1; y >= 0; y--) {
        size_t w = (size_t)width;
        if (bpp == 8) {
            memcpy(row, pixels + (size_t)y * w, w);
        } else {
            const uint8_t *src = pixels + (size_t)y * w * 3;
            for (size_t x = 0; x < w; x++) {
                row[x * 3 + 0] = src[x * 3 + 2];
                row[x * 3 + 1] = src[x * 3 + 1];
                row[x * 3 + 2] = src[x * 3 + 0];
            }
        }
        if (fwrite(row, 1, stride, f) != stride)
            goto io_error;
    }
    rc = 0;
    goto done;
io_error:
    set_err(err, err_size, "%s: write error: %s", text_show(path, &shown), strerror(errno));
done:
    free(row);
    return rc;
}

int bmp_write_stream(FILE *f, const uint8_t *pixels, int width, int height, int bpp,
                     const char *path, char *err, size_t err_size)
{
    size_t file_size, offbits, stride;
    text_shown shown;
    if (bpp != 8 && bpp != 24)
        return set_err(err, err_size, "%s: cannot write %d bits per pixel",
                       text_show(path, &shown), bpp);
    if (!pixels || width <= 0 || height <= 0)
        return set_err(err, err_size, "%s: no image to write (%d x %d)", text_show(path, &shown),
                       width, height);
    if (bmp_layout(width, height, bpp, &file_size, &offbits, &stride))
        return set_err(err, err_size, "%s: %d x %d image too large for a BMP file",
                       text_show(path, &shown), width, height);
    return write_body(f, pixels, width, height, (unsigned)bpp, (uint32_t)offbits, stride, path,
                      err, err_size);
}

static int write_bmp(const char *path, const uint8_t *pixels, int width, int height, int bpp,
                     char *err, size_t err_size)
{
    atomic_file af;
    int rc = -1;
    if (!path || !*path) {
        set_err(err, err_size, "(no file name): cannot write a BMP");
        return -1;
    }
    if (atomic_file_open(&af, path, err, err_size))
        return -1;
    if (bmp_write_stream(af.f, pixels, width, height, bpp, path, err, err_size) == 0 &&
        atomic_file_close(&af, err, err_size) == 0 && atomic_file_commit(&af, err, err_size) == 0)
        rc = 0;
    atomic_file_discard(&af);
    return rc;
}

int bmp_write_gray8(const char *path, const uint8_t *gray, int width, int height, char *err,
                    size_t err_size)
{
    return write_bmp(path, gray, width, height, 8, err, err_size);
}

int bmp_write_rgb24(const char *path, const uint8_t *rgb, int width, int height, char *err,
                    size_t err_size)
{
    return write_bmp(path, rgb, width, height, 24, err, err_size);
}

/* ---------------------------------------------------------------------------------------------
 * Row by row (an image filtered in strips reads and writes a band of rows at a time)
 * ------------------------------------------------------------------------------------------- */

struct bmp_rows {
    const uint8_t *data;
    bmp_info info;
    size_t stride;
    size_t next; /* the picture row (0 = top) bmp_rows_next gives next */
};

int bmp_rows_open(const uint8_t *data, size_t size, const io_limits *lim, bmp_rows **out,
                  int *width, int *height, char *err, size_t err_size)
{
    bmp_rows *r;
    bmp_info info;
    memset(&info, 0, sizeof info);
    if (!data || !out)
        return set_err(err, err_size, "no data to decode");
    if (parse_headers(data, size, lim, &info, err, err_size))
        return -1;
    *width = info.width;
    *height = info.height;
    /* RLE runs from the bottom row up, with deltas that skip rows: it is decoded whole. */
    if (info.compression != BI_RGB && info.compression != BI_BITFIELDS)
        return 1;
    /* The same bound as bmp_decode_with's, with the same words: every row in the file. */
    const uint64_t row_bits = (uint64_t)info.width * info.bpp;
    const uint64_t stride = (row_bits + 31u) / 32u * 4u;
    const uint64_t need = stride * (uint64_t)(info.height - 1) + (row_bits + 7u) / 8u;
    const uint64_t avail = size - info.offbits;
    if (need > avail)
        return set_err(err, err_size,
                       "pixel data truncated: %llu bytes needed from offset %lu, %llu in the file",
                       (unsigned long long)need, (unsigned long)info.offbits,
                       (unsigned long long)avail);
    if (!(r = calloc(1, sizeof *r)))
        return set_err(err, err_size, "out of memory for the row reader");
    r->data = data;
    r->info = info;
    r->stride = (size_t)stride;
    *out = r;
    return 0;
}

int bmp_rows_next(bmp_rows *r, uint8_t *rgb, char *err, size_t err_size)
{
    if (r->next >= (size_t)r->info.height)
        return set_err(err, err_size, "no row %lu: the image has %d", (unsigned long)r->next,
                       r->info.height);
    return decode_plain_row(r->data, &r->info, r->stride, r->next++, rgb, err, err_size);
}

void bmp_rows_close(bmp_rows *r)
{
    free(r);
}

int bmp_reader_data(bmp_reader *r, const uint8_t **data, size_t *size, char *err,
                    size_t err_size)
{
    char why[256] = "";
    if (!r->complete && read_until(r, r->need, why, sizeof why)) {
        text_shown shown;
        return set_err(err, err_size, "%s: %s", text_show(r->path, &shown), why);
    }
    *data = r->data;
    *size = r->size;
    return 0;
}

struct bmp_writer {
    FILE *f;
    int width, height, bpp;
    size_t offbits, stride;
    int next;     /* the picture row (0 = top) bmp_writer_row takes next */
    uint8_t *row; /* one file row, its padding zero */
    const char *path;
};

int bmp_writer_begin(FILE *f, int width, int height, int bpp, const char *path,
                     bmp_writer **out, char *err, size_t err_size)
{
    uint8_t hdr[54 + 1024];
    size_t file_size, offbits, stride;
    text_shown shown;
    bmp_writer *w;
    uint8_t *row;
    if (bpp != 8 && bpp != 24)
        return set_err(err, err_size, "%s: cannot write %d bits per pixel",
                       text_show(path, &shown), bpp);
    if (width <= 0 || height <= 0 || bmp_layout(width, height, bpp, &file_size, &offbits, &stride))
        return set_err(err, err_size, "%s: %d x %d image too large for a BMP file",
                       text_show(path, &shown), width, height);
    row = calloc(stride, 1); /* calloc: the padding bytes stay zero */
    if (!row || !(w = malloc(sizeof *w))) {
        free(row);
        return set_err(err, err_size, "%s: out of memory", text_show(path, &shown));
    }
    *w = (bmp_writer){f, width, height, bpp, offbits, stride, 0, row, path};
    bmp_put_headers(hdr, width, height, bpp);
    if (fwrite(hdr, 1, offbits, f) != offbits) {
        set_err(err, err_size, "%s: write error: %s", text_show(path, &shown), strerror(errno));
        bmp_writer_free(w);
        return -1;
    }
    *out = w;
    return 0;
}

int bmp_writer_row(bmp_writer *w, const uint8_t *pixels, char *err, size_t err_size)
{
    text_shown shown;
    const size_t n = (size_t)w->width;
    if (w->next >= w->height)
        return set_err(err, err_size, "%s: more rows than the image's %d",
                       text_show(w->path, &shown), w->height);
    if (w->bpp == 8) {
        memcpy(w->row, pixels, n);
    } else {
        for (size_t x = 0; x < n; x++) {
            w->row[x * 3 + 0] = pixels[x * 3 + 2];
            w->row[x * 3 + 1] = pixels[x * 3 + 1];
            w->row[x * 3 + 2] = pixels[x * 3 + 0];
        }
    }
    /* The file stores the picture bottom-up: picture row y is file row height - 1 - y. A
     * regular file (the staged output) is written at each row's place; the rows below it are
     * written later, so the file is complete only after the last row. */
    const off_t at = (off_t)(w->offbits + w->stride * (size_t)(w->height - 1 - w->next));
    if (fseeko(w->f, at, SEEK_SET) != 0 || fwrite(w->row, 1, w->stride, w->f) != w->stride)
        return set_err(err, err_size, "%s: write error: %s", text_show(w->path, &shown),
                       strerror(errno ? errno : EIO));
    w->next++;
    return 0;
}

int bmp_writer_end(bmp_writer *w, char *err, size_t err_size)
{
    text_shown shown;
    if (w->next != w->height)
        return set_err(err, err_size, "%s: %d of %d rows written", text_show(w->path, &shown),
                       w->next, w->height);
    /* The stream is left at the end of the file, as bmp_write_stream leaves it. */
    if (fseeko(w->f, 0, SEEK_END) != 0)
        return set_err(err, err_size, "%s: write error: %s", text_show(w->path, &shown),
                       strerror(errno ? errno : EIO));
    return 0;
}

void bmp_writer_free(bmp_writer *w)
{
    if (w)
        free(w->row);
    free(w);
}
