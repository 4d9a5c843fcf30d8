/* channels.c - the channel-last layouts: checks, the packed stream, the host's conversions. */
#include "channels.h"
#include "bulk_copy.h"

#include <stdint.h>
#include <string.h>

int tc_is_channels(tc_pixel_format f)
{
    return f == TC_PIXELS_U8 || f == TC_PIXELS_U16 || f == TC_PIXELS_F32;
}

size_t tc_sample_size(tc_pixel_format f)
{
    switch (f) {
    case TC_PIXELS_U8:
        return 1;
    case TC_PIXELS_U16:
        return 2;
    case TC_PIXELS_F32:
        return 4;
    default:
        return 0;
    }
}

size_t tc_channels_row_bytes(const tc_image *img)
{
    return (size_t)img->width * (size_t)img->planes * tc_sample_size(img->format);
}

size_t tc_channels_packed_bytes(const tc_image *img)
{
    return tc_channels_row_bytes(img) * (size_t)img->height;
}

static const char *format_name(tc_pixel_format f)
{
    return f == TC_PIXELS_U8 ? "U8" : f == TC_PIXELS_U16 ? "U16" : "F32";
}

int tc_channels_check(const tc_image *img, const char *side, tc_msg *m)
{
    const size_t size = tc_sample_size(img->format);
    if (img->planes != 1 && img->planes != 3 && img->planes != 4)
        return tc_fail(m, TC_EINVAL, "%s->planes %d: a %s image has 1, 3 or 4 channels", side,
                       img->planes, format_name(img->format));
    /* The device reads samples of their own type from the packed copy, and the host copies
     * whole samples: both need them aligned as the type is. */
    if ((uintptr_t)img->data % size != 0 || img->stride % (long)size != 0)
        return tc_fail(m, TC_EINVAL,
                       "%s: %s samples need data and stride aligned to %zu bytes (data %% %zu "
                       "= %zu, stride %ld)",
                       side, format_name(img->format), size, size,
                       (size_t)((uintptr_t)img->data % size), img->stride);
    return TC_OK;
}

int tc_channels_check_pair(const tc_image *src, const tc_image *dst, tc_msg *m)
{
    const int a = tc_is_channels(src->format), b = tc_is_channels(dst->format);
    if (!a && !b)
        return TC_OK;
    if (a != b)
        return tc_fail(m, TC_EINVAL,
                       "src is %s and dst %s: the channel-last layouts (U8, U16, F32) pair only "
                       "with each other",
                       a ? format_name(src->format) : "not U8, U16 or F32",
                       b ? format_name(dst->format) : "not U8, U16 or F32");
    if (src->planes != dst->planes)
        return tc_fail(m, TC_EINVAL,
                       "src has %d channel%s and dst %d: each channel is filtered into the same "
                       "channel of dst",
                       src->planes, src->planes == 1 ? "" : "s", dst->planes);
    return TC_OK;
}

int tc_channels_view(const tc_image *src, const tc_image *dst, tc_image *csrc, tc_image *cdst)
{
    int channels = 0;
    if (src->format == TC_PIXELS_GRAY8 && dst->format == TC_PIXELS_GRAY8)
        channels = 1;
    else if ((src->format == TC_PIXELS_RGB24 || src->format == TC_PIXELS_BGR24) &&
             dst->format == src->format)
        channels = 3;
    *csrc = (tc_image){TC_PIXELS_U8, src->width, src->height, channels, src->data, src->stride,
                       NULL, 0};
    *cdst = (tc_image){TC_PIXELS_U8, dst->width, dst->height, channels, dst->data, dst->stride,
                       NULL, 0};
    if (channels)
        return 1;
    /* One float plane is a one-channel F32 image, where its samples are aligned as floats. */
    if (src->format == TC_PIXELS_GRAY8 && dst->format == TC_PIXELS_FLOAT32 && dst->planes == 1 &&
        (uintptr_t)dst->data % sizeof(float) == 0 && dst->stride % (long)sizeof(float) == 0) {
        csrc->planes = cdst->planes = 1;
        cdst->format = TC_PIXELS_F32;
        return 1;
    }
    return 0;
}

void tc_channels_zero_gaps(const tc_image *dst)
{
    const size_t bytes = dst->format == TC_PIXELS_GRAY8                                  ? 1
                         : dst->format == TC_PIXELS_RGB24 || dst->format == TC_PIXELS_BGR24 ? 3
                         : dst->format == TC_PIXELS_BGRX32                                  ? 4
                                                                                           : 0;
    if (!bytes)
        return;
    const size_t row = (size_t)dst->width * bytes;
    const size_t step = dst->stride < 0 ? (size_t)0 - (size_t)dst->stride : (size_t)dst->stride;
    if (step == row)
        return;
    /* Top-down rows: a gap after every row but the last; bottom-up: after every row but the
     * first, which is stored last. */
    const int first = dst->stride < 0 ? 1 : 0;
    const int end = dst->stride < 0 ? dst->height : dst->height - 1;
    for (int y = first; y < end; y++)
        memset((unsigned char *)dst->data + (ptrdiff_t)y * (ptrdiff_t)dst->stride + row, 0,
               step - row);
}

/* Row y of an image (0 on top), whatever the direction its rows are stored in. */
static unsigned char *row_of(const tc_image *img, size_t y)
{
    return (unsigned char *)img->data + (ptrdiff_t)y * (ptrdiff_t)img->stride;
}

/* Copies bytes [offset, offset + n) of the packed stream between it and the caller's rows:
 * to_rows 1 scatters buf into the rows, 0 gathers the rows into buf. */
static void copy_stream(const tc_image *img, size_t offset, size_t n, unsigned char *buf,
                        int to_rows)
{
    const size_t row = tc_channels_row_bytes(img);
    if ((size_t)img->stride == row) { /* contiguous, top-down: one block */
        unsigned char *at = (unsigned char *)img->data + offset;
        tc_bulk_copy(to_rows ? at : buf, to_rows ? buf : at, n);
        return;
    }
    size_t y = offset / row, x = offset % row;
    while (n > 0) {
        const size_t part = row - x < n ? row - x : n;
        unsigned char *at = row_of(img, y) + x;
        tc_bulk_copy(to_rows ? at : buf, to_rows ? buf : at, part);
        buf += part;
        n -= part;
        y++;
        x = 0;
    }
}

void tc_channels_gather(const tc_image *img, size_t offset, size_t n, unsigned char *out)
{
    copy_stream(img, offset, n, out, 0);
}

void tc_channels_scatter(const tc_image *img, size_t offset, size_t n,
                         const unsigned char *in)
{
    copy_stream(img, offset, n, (unsigned char *)in, 1);
}

/* Sample (x, c) of row y on the 0..255 scale: Channels.cl's read_sample. */
static float read_sample(const tc_image *img, size_t y, size_t x, int c)
{
    const unsigned char *at = row_of(img, y) + (x * (size_t)img->planes + (size_t)c) *
                                                   tc_sample_size(img->format);
    if (img->format == TC_PIXELS_U8)
        return (float)at[0];
    if (img->format == TC_PIXELS_U16) {
        uint16_t v;
        memcpy(&v, at, sizeof v);
        return (float)tc_sample_scaled(v, 65535);
    }
    float v;
    memcpy(&v, at, sizeof v);
    return v;
}

void tc_channels_to_plane(const tc_image *src, int c, tc_plane *p)
{
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++)
            p->px[(size_t)y * (size_t)p->width + (size_t)x] =
                read_sample(src, (size_t)y, (size_t)x, c);
}

void tc_channels_from_planes(const tc_plane *planes, const tc_roi *roi, double scale,
                             double offset, const tc_image *dst)
{
    const size_t size = tc_sample_size(dst->format);
    for (int y = 0; y < dst->height; y++)
        for (int x = 0; x < dst->width; x++) {
            const int inside = tc_roi_in_target(roi, x, y);
            const double s = inside ? scale : 1.0, o = inside ? offset : 0.0;
            for (int c = 0; c < dst->planes; c++) {
                const float v = planes[c].px[(size_t)y * (size_t)dst->width + (size_t)x];
                unsigned char *at = row_of(dst, (size_t)y) +
                                    ((size_t)x * (size_t)dst->planes + (size_t)c) * size;
                if (dst->format == TC_PIXELS_U8) {
                    at[0] = tc_map_byte(v, s, o);
                } else if (dst->format == TC_PIXELS_U16) {
                    const uint16_t w = tc_map_word(v, s, o);
                    memcpy(at, &w, sizeof w);
                } else {
                    memcpy(at, &v, sizeof v);
                }
            }
        }
}
