/*
 * bmp_decode.c - a BMP's pixels decoded from its bytes (bmp.h): uncompressed rows of any depth,
 * RLE8 and RLE4, whole images or a row at a time; the headers are bmp_header.c's.
 */
#include "bmp_header.h"

#include <stdlib.h>
#include <string.h>

/* Scale a channel so that its full-scale value becomes 255, rounding to nearest: v << 3 would
 * turn 5-bit white into 248. 64 bits because a 32-bit channel times 255 does not fit in 32. */
static uint8_t scale_channel(uint32_t pixel, const bmp_info *info, int c)
{
    uint64_t v = (pixel & info->masks[c]) >> info->shift[c];
    uint64_t max = info->maxval[c];
    return (uint8_t)((v * 255u + max / 2u) / max);
}

int bmp_decode_plain_row(const uint8_t *data, const bmp_info *info, size_t stride, size_t y,
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
                return io_fail(err, err_size,
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

int bmp_plain_stride(const bmp_info *info, size_t size, size_t *stride, char *err,
                     size_t err_size)
{
    /* Bounded by BMP_MAX_SIDE * 32 bits, so none of these overflow 64 bits; the product is
     * compared with what the file holds before anything is allocated. */
    const uint64_t row_bits = (uint64_t)info->width * info->bpp;
    const uint64_t stride64 = (row_bits + 31u) / 32u * 4u;
    const uint64_t need = stride64 * (uint64_t)(info->height - 1) + (row_bits + 7u) / 8u;
    const uint64_t avail = size - info->offbits;
    if (need > avail)
        return io_fail(err, err_size,
                       "pixel data truncated: %llu bytes needed from offset %lu, %llu in the "
                       "file",
                       (unsigned long long)need, (unsigned long)info->offbits,
                       (unsigned long long)avail);
    *stride = (size_t)stride64; /* fits: it is at most avail, a size_t */
    return 0;
}

/* Uncompressed rows of any depth. The caller has checked that every byte read is in the file. */
static int decode_plain(const uint8_t *data, const bmp_info *info, size_t stride, uint8_t *rgb,
                        char *err, size_t err_size)
{
    const size_t w = (size_t)info->width;
    for (size_t y = 0; y < (size_t)info->height; y++)
        if (bmp_decode_plain_row(data, info, stride, y, rgb + y * w * 3, err, err_size))
            return -1;
    return 0;
}

/* Paint one palette index at column x of bottom-up row y. */
static int rle_put(const bmp_info *info, uint8_t *rgb, size_t x, size_t y, unsigned idx,
                   char *err, size_t err_size)
{
    if (idx >= info->npal)
        return io_fail(err, err_size, "RLE palette index %u is past the %lu-entry palette", idx,
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
            return io_fail(err, err_size, "RLE data ends at row %lu before the end-of-bitmap marker",
                           top_row(info, y));
        }
        unsigned a = data[p], b = data[p + 1];
        p += 2;
        if (a > 0) { /* encoded run: a pixels of index b (RLE4: its two nibbles alternating) */
            if (y >= h)
                return io_fail(err, err_size, "RLE run below the last row of the image");
            if (a > w - x)
                return io_fail(err, err_size, "RLE run of %u pixels at (%lu, %lu) passes the end of the row (width %lu)",
                               a, (unsigned long)x, top_row(info, y), (unsigned long)w);
            for (unsigned i = 0; i < a; i++, x++) {
                unsigned idx = rle4 ? ((i & 1u) ? (b & 15u) : (b >> 4)) : b;
                if (rle_put(info, rgb, x, y, idx, err, err_size))
                    return -1;
            }
        } else if (b == 0) { /* end of line */
            if (y >= h)
                return io_fail(err, err_size, "RLE end-of-line below the last row of the image");
            x = 0;
            y++;
        } else if (b == 1) { /* end of bitmap */
            return 0;
        } else if (b == 2) { /* delta: move right dx and up dy */
            if (size - p < 2)
                return io_fail(err, err_size, "RLE delta truncated by the end of the file");
            unsigned dx = data[p], dy = data[p + 1];
            p += 2;
            if (dx > w - x || y >= h || dy > h - 1 - y)
                return io_fail(err, err_size, "RLE delta (%u, %u) from (%lu, %lu) leaves the %lu x %lu image",
                               dx, dy, (unsigned long)x, top_row(info, y), (unsigned long)w,
                               (unsigned long)h);
            x += dx;
            y += dy;
        } else { /* absolute run of b literal indices, padded to a 16-bit boundary */
            size_t nbytes = rle4 ? (b + 1u) / 2u : b;
            size_t padded = nbytes + (nbytes & 1u);
            if (y >= h)
                return io_fail(err, err_size, "RLE absolute run below the last row of the image");
            if (b > w - x)
                return io_fail(err, err_size, "RLE absolute run of %u pixels at (%lu, %lu) passes the end of the row (width %lu)",
                               b, (unsigned long)x, top_row(info, y), (unsigned long)w);
            if (size - p < nbytes)
                return io_fail(err, err_size, "RLE absolute run truncated by the end of the file");
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

/* The headers of data into info (zeroed first), for a call whose result goes to out: 0, or -1
 * with the reason when data or out is missing or the headers are refused. */
static int headers_of(const uint8_t *data, size_t size, const void *out, const io_limits *lim,
                      bmp_info *info, char *err, size_t err_size)
{
    memset(info, 0, sizeof *info);
    if (!data || !out)
        return io_fail(err, err_size, "no data to decode");
    return bmp_parse_headers(data, size, lim, info, err, err_size) ? -1 : 0;
}

int bmp_decode_with(const uint8_t *data, size_t size, const io_limits *lim, bmp_image *img,
                    char *err, size_t err_size)
{
    bmp_info info;
    uint8_t *rgb = NULL;
    size_t stride = 0, npix;
    int rc = -1;

    if (headers_of(data, size, img, lim, &info, err, err_size))
        goto done;

    if (info.compression == BI_RGB || info.compression == BI_BITFIELDS) {
        if (bmp_plain_stride(&info, size, &stride, err, err_size))
            goto done;
    } else if (io_limits_check_ratio(info.width, info.height, size - info.offbits,
                                     BMP_RLE_MAX_RATIO,
                                     info.compression == BI_RLE8 ? "RLE8" : "RLE4", lim, err,
                                     err_size)) {
        goto done; /* before the image is allocated: a bomb costs nothing */
    }
    /* width * height <= IO_HARD_MAX_PIXELS, but a 32-bit size_t still needs the check for * 3. */
    npix = (size_t)info.width * (size_t)info.height;
    if (npix > SIZE_MAX / 3) {
        io_fail(err, err_size, "image of %lu pixels too large for this machine", (unsigned long)npix);
        goto done;
    }
    rgb = malloc(npix * 3);
    if (!rgb) {
        io_fail(err, err_size, "out of memory for a %d x %d image", info.width, info.height);
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
    if (headers_of(data, size, v, lim, &info, err, err_size))
        return -1;
    /* 32-bit BI_RGB has the default 8-8-8 masks: its bytes are the channels as they are. */
    if (info.compression != BI_RGB || (info.bpp != 8 && info.bpp != 24 && info.bpp != 32))
        return 0;
    size_t stride;
    if (bmp_plain_stride(&info, size, &stride, err, err_size))
        return -1;
    const uint8_t *first = data + info.offbits; /* the first row stored */
    v->width = info.width;
    v->height = info.height;
    v->bytes_per_pixel = (int)info.bpp / 8;
    v->stride = info.topdown ? (long)stride : -(long)stride;
    v->top_row = info.topdown ? first : first + stride * (size_t)(info.height - 1);
    v->palette_size = (int)info.npal;
    memcpy(v->palette, info.palette, sizeof v->palette);
    /* Every index must name a colour, as bmp_decode demands: the same check, the same words. */
    for (int y = 0; info.bpp == 8 && y < info.height; y++) {
        const uint8_t *row = v->top_row + (long)y * v->stride;
        for (int x = 0; x < info.width; x++)
            if (row[x] >= info.npal)
                return io_fail(err, err_size,
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
    if (headers_of(data, size, width, lim, &info, err, err_size))
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
    if (headers_of(data, size, out, lim, &info, err, err_size))
        return -1;
    *width = info.width;
    *height = info.height;
    /* RLE runs from the bottom row up, with deltas that skip rows: it is decoded whole. */
    if (info.compression != BI_RGB && info.compression != BI_BITFIELDS)
        return 1;
    /* The same bound as bmp_decode_with's, with the same words: every row in the file. */
    size_t stride;
    if (bmp_plain_stride(&info, size, &stride, err, err_size))
        return -1;
    if (!(r = calloc(1, sizeof *r)))
        return io_fail(err, err_size, "out of memory for the row reader");
    r->data = data;
    r->info = info;
    r->stride = stride;
    *out = r;
    return 0;
}

int bmp_rows_next(bmp_rows *r, uint8_t *rgb, char *err, size_t err_size)
{
    if (r->next >= (size_t)r->info.height)
        return io_fail(err, err_size, "no row %lu: the image has %d", (unsigned long)r->next,
                       r->info.height);
    return bmp_decode_plain_row(r->data, &r->info, r->stride, r->next++, rgb, err, err_size);
}

void bmp_rows_close(bmp_rows *r)
{
    free(r);
}

