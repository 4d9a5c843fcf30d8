/*
 * bmp_header.c - the BMP headers read and checked (bmp.h's reader, the first part).
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
#include "bmp_header.h"

#include <stdio.h>
#include <string.h>

/* The header sizes of every BMP version we know the layout of: OS/2 1.x (12), OS/2 2.x in its
 * short (16) and full (64) forms, Windows 3 (40), the undocumented V2 (52) and V3 (56) that add
 * masks to the header, V4 (108) and V5 (124). Anything else is a layout we would have to guess. */
static int check_header_size(uint32_t hsize, char *err, size_t err_size)
{
    switch (hsize) {
    case 12: case 16: case 40: case 52: case 56: case 64: case 108: case 124:
        return 0;
    default:
        return io_fail(err, err_size, "unknown BMP info header size %lu", (unsigned long)hsize);
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
        return io_fail(err, err_size, "image width is zero");
    /* Only the height's sign has a meaning (top-down rows); a negative width is a broken file. */
    if (w < 0)
        return io_fail(err, err_size, "negative image width %ld", (long)w);
    if (h == 0)
        return io_fail(err, err_size, "image height is zero");
    /* -INT32_MIN does not exist in 32 bits, so this height cannot be a top-down image. */
    if (h == INT32_MIN)
        return io_fail(err, err_size, "image height %ld is out of range", (long)h);
    info->topdown = h < 0;
    if (h < 0)
        h = -h;
    if (w > BMP_MAX_SIDE || h > BMP_MAX_SIDE)
        return io_fail(err, err_size, "image size %ld x %ld exceeds the limit of %d pixels a side",
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
        return io_fail(err, err_size, "OS/2 Huffman 1D compression is not supported");
    if (hsize == 64 && comp == 4)
        return io_fail(err, err_size, "OS/2 RLE24 compression is not supported");
    switch (comp) {
    case BI_RGB:
        /* 2 bits per pixel is Windows CE's, and costs nothing to read with the same code. */
        if (bpp != 1 && bpp != 2 && bpp != 4 && bpp != 8 && bpp != 16 && bpp != 24 && bpp != 32)
            return io_fail(err, err_size, "unsupported bit depth %u", bpp);
        break;
    case BI_RLE8:
        if (bpp != 8)
            return io_fail(err, err_size, "RLE8 compression needs 8 bits per pixel, not %u", bpp);
        break;
    case BI_RLE4:
        if (bpp != 4)
            return io_fail(err, err_size, "RLE4 compression needs 4 bits per pixel, not %u", bpp);
        break;
    case BI_BITFIELDS:
    case BI_ALPHABITFIELDS:
        if (bpp != 16 && bpp != 32)
            return io_fail(err, err_size, "bitfields need 16 or 32 bits per pixel, not %u", bpp);
        break;
    case BI_JPEG:
        return io_fail(err, err_size, "BMP with embedded JPEG data (compression 4) is not supported");
    case BI_PNG:
        return io_fail(err, err_size, "BMP with embedded PNG data (compression 5) is not supported");
    default:
        return io_fail(err, err_size, "unknown compression %lu", (unsigned long)comp);
    }
    /* Run-length data is decoded bottom-up by definition; the format forbids top-down RLE, and
     * a decoder that accepted it would have to guess where rows go. */
    if ((comp == BI_RLE8 || comp == BI_RLE4) && info->topdown)
        return io_fail(err, err_size, "RLE compression in a top-down BMP is not allowed");
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
            return io_fail(err, err_size, "the %s bitfield mask is zero", names[c]);
        if (info->bpp < 32 && (m >> info->bpp) != 0)
            return io_fail(err, err_size, "the %s bitfield mask 0x%08lx lies outside the %u-bit pixel",
                           names[c], (unsigned long)m, info->bpp);
        unsigned s = lowest_bit(m);
        uint32_t v = m >> s;
        if ((v & (v + 1u)) != 0) /* v + 1 is a power of two only for a run of ones */
            return io_fail(err, err_size, "the %s bitfield mask 0x%08lx is not contiguous",
                           names[c], (unsigned long)m);
        info->shift[c] = s;
        info->maxval[c] = v;
    }
    if ((info->masks[0] & info->masks[1]) || (info->masks[0] & info->masks[2]) ||
        (info->masks[1] & info->masks[2]))
        return io_fail(err, err_size, "bitfield masks overlap (red 0x%08lx, green 0x%08lx, blue 0x%08lx)",
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
            return io_fail(err, err_size, "file too short for the bitfield masks after the header");
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
        return io_fail(err, err_size, "palette of %lu colours, but %u bits per pixel can index only %lu",
                       (unsigned long)clr_used, info->bpp, (unsigned long)maxn);
    if (n > room) {
        /* The palette lies between the headers and the pixel data; a declared length that does
         * not fit there means the palette is truncated or the offset is wrong. */
        if (declared)
            return io_fail(err, err_size,
                           "palette of %lu colours does not fit before the pixel data (room for %lu)",
                           (unsigned long)n, (unsigned long)room);
        /* An implied length is only a maximum: short palettes are common in OS/2 files. */
        n = room;
    }
    if (n == 0)
        return io_fail(err, err_size, "no room for a palette before the pixel data");
    const uint8_t *p = data + info->headers_end;
    for (size_t i = 0; i < n; i++, p += entry) {
        info->palette[i][0] = p[2];
        info->palette[i][1] = p[1];
        info->palette[i][2] = p[0];
    }
    info->npal = n;
    return 0;
}

int bmp_parse_core(const uint8_t *data, size_t avail, const io_limits *lim, bmp_info *info,
                      uint32_t *comp_out, uint32_t *clr_used_out, char *err, size_t err_size)
{
    const size_t size = avail;
    int32_t w, h;
    unsigned planes, bpp;
    uint32_t comp = BI_RGB, clr_used = 0;

    /* The file header and the info header's size field are the least any BMP has. */
    if (size < FILE_HEADER_SIZE + 4)
        return io_fail(err, err_size, "file too short for a BMP header (%lu bytes)",
                       (unsigned long)size);
    if (data[0] == 'B' && data[1] == 'A')
        return io_fail(err, err_size, "OS/2 bitmap arrays ('BA' signature) are not supported");
    if (data[0] != 'B' || data[1] != 'M')
        return io_fail(err, err_size, "not a BMP file (no 'BM' signature)");
    info->offbits = read_u32le(data + 10);
    info->hsize = read_u32le(data + 14);
    if (check_header_size(info->hsize, err, err_size))
        return -1;
    if (size - FILE_HEADER_SIZE < info->hsize)
        return io_fail(err, err_size, "file too short for its %lu-byte info header",
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
        return io_fail(err, err_size, "number of planes is %u, must be 1", planes);
    if (check_dimensions(w, h, lim, info, err, err_size) ||
        check_format(info->hsize, comp, bpp, info, err, err_size))
        return -1;
    *comp_out = comp;
    *clr_used_out = clr_used;
    return 0;
}

int bmp_parse_headers(const uint8_t *data, size_t size, const io_limits *lim, bmp_info *info,
                         char *err, size_t err_size)
{
    uint32_t comp = BI_RGB, clr_used = 0;
    if (bmp_parse_core(data, size, lim, info, &comp, &clr_used, err, err_size))
        return -1;
    const unsigned bpp = info->bpp;
    if (bpp >= 16 && read_masks(data, size, comp, info, err, err_size))
        return -1;
    /* The pixel data must start after everything the headers occupy and inside the file. */
    if (info->offbits < info->headers_end)
        return io_fail(err, err_size, "pixel data offset %lu lies inside the headers (which end at %lu)",
                       (unsigned long)info->offbits, (unsigned long)info->headers_end);
    if (info->offbits >= size)
        return io_fail(err, err_size, "pixel data offset %lu is past the end of the file (%lu bytes)",
                       (unsigned long)info->offbits, (unsigned long)size);
    if (bpp <= 8 && read_palette(data, clr_used, info, err, err_size))
        return -1;
    return 0;
}

