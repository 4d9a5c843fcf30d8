/*
 * pixels.c - the older layouts of tc_filter_image (gray, RGB, BGR, BGRX and palette bytes,
 * float planes): their checks, the host's conversions (image.c's) around tc_run, and the raw
 * view through which the pipeline (stream.c) moves their bytes for Pixels.cl to convert on the
 * device.
 */
#include "pixels.h"
#include "channels.h"
#include "host_run.h"

#include <stddef.h>
#include <stdint.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes per pixel of a byte format; 0 for FLOAT32 (and the channel-last layouts, which
 * channels.h describes). */
static int pixel_bytes(tc_pixel_format f)
{
    switch (f) {
    case TC_PIXELS_GRAY8:
    case TC_PIXELS_INDEXED8:
        return 1;
    case TC_PIXELS_RGB24:
    case TC_PIXELS_BGR24:
        return 3;
    case TC_PIXELS_BGRX32:
        return 4;
    default:
        return 0;
    }
}

/* The planes dst asks for: 1 (the intensity) or 3 (R, G, B). */
static int planes_of(const tc_image *dst)
{
    if (dst->format == TC_PIXELS_FLOAT32)
        return dst->planes;
    return dst->format == TC_PIXELS_GRAY8 ? 1 : 3;
}

/* The bytes of one row's pixels, for an image whose sizes and planes are valid. */
static size_t row_bytes(const tc_image *img)
{
    if (tc_is_channels(img->format))
        return tc_channels_row_bytes(img);
    if (img->format == TC_PIXELS_FLOAT32)
        return (size_t)img->width * sizeof(float);
    return (size_t)img->width * (size_t)pixel_bytes(img->format);
}

/* |stride| without the overflow of -LONG_MIN. */
static unsigned long stride_bytes(long stride)
{
    return stride < 0 ? 0UL - (unsigned long)stride : (unsigned long)stride;
}

/* The rows' span, from the lowest byte to the highest: (rows - 1) |stride| + the last row's
 * pixels, where rows counts FLOAT32's planes' rows too. Checked against PTRDIFF_MAX, the most
 * bytes one object can span, so that no address computed from the stride overflows. */
static int check_span(const tc_image *img, const char *side, tc_msg *m)
{
    const unsigned long stride = stride_bytes(img->stride);
    const size_t row = row_bytes(img);
    const int planes = img->format == TC_PIXELS_FLOAT32 ? img->planes : 1;
    const unsigned long long rows = (unsigned long long)planes * (unsigned long long)img->height;
    if (stride < row)
        return tc_fail(m, TC_EINVAL, "%s->stride %ld: a row needs %zu bytes", side, img->stride,
                       row);
    if ((rows - 1) > ((unsigned long long)PTRDIFF_MAX - row) / stride)
        return tc_fail(m, TC_EINVAL,
                       "%s->stride %ld: %llu rows %lu bytes apart would span more than %td "
                       "bytes, the most one object can",
                       side, img->stride, rows, stride, (ptrdiff_t)PTRDIFF_MAX);
    return TC_OK;
}

int tc_image_check(const tc_image *img, int is_src, tc_msg *m)
{
    const char *side = is_src ? "src" : "dst";
    int status;
    if (!img)
        return tc_fail(m, TC_EINVAL, "%s is NULL", side);
    if ((int)img->format < 0 || img->format > TC_PIXELS_F32)
        return tc_fail(m, TC_EINVAL, "%s->format %d: not a tc_pixel_format", side,
                       (int)img->format);
    if (!is_src && img->format == TC_PIXELS_INDEXED8)
        return tc_fail(m, TC_EINVAL, "dst->format: palette images are read, not written");
    if ((status = tc_check_size(img->width, img->height, side, m)) != TC_OK)
        return status;
    if (!img->data)
        return tc_fail(m, TC_EINVAL, "%s->data is NULL", side);
    if (img->format == TC_PIXELS_FLOAT32 && img->planes != 1 && img->planes != 3)
        return tc_fail(m, TC_EINVAL, "%s->planes %d: FLOAT32 images have 1 or 3 planes", side,
                       img->planes);
    if (tc_is_channels(img->format) &&
        (status = tc_channels_check(img, side, m)) != TC_OK)
        return status;
    if ((status = check_span(img, side, m)) != TC_OK)
        return status;
    if (img->format == TC_PIXELS_INDEXED8 &&
        (!img->palette || img->palette_size < 1 || img->palette_size > 256))
        return tc_fail(m, TC_EINVAL, "src: an INDEXED8 image needs a palette of 1..256 entries");
    return TC_OK;
}

/* Row y of an image (0 on top), whatever the direction its rows are stored in. */
static unsigned char *row_of(const tc_image *img, int y)
{
    return (unsigned char *)img->data + (long)y * img->stride;
}

/* ---- The host path ---------------------------------------------------------------------- */

/* Every palette index of an INDEXED8 image names an entry. */
static int check_indices(const tc_image *src, tc_msg *m)
{
    for (int y = 0; src->format == TC_PIXELS_INDEXED8 && y < src->height; y++)
        for (int x = 0; x < src->width; x++)
            if (row_of(src, y)[x] >= src->palette_size)
                return tc_fail(m, TC_EINVAL, "src: pixel (%d, %d) is palette index %d; the "
                                             "palette has %d entries",
                               x, y, row_of(src, y)[x], src->palette_size);
    return TC_OK;
}

/* Plane c (of `planes`) of src, formed on the host with image.c's conversions. */
static void host_unpack(const tc_image *src, int c, int planes, tc_plane *p)
{
    for (int y = 0; y < src->height; y++) {
        const unsigned char *row = row_of(src, y);
        float *out = p->px + (size_t)y * (size_t)p->width;
        if (src->format == TC_PIXELS_FLOAT32) {
            /* Plane c follows the planes before it, height rows each. */
            const unsigned char *plane_row = row + (long)c * src->height * src->stride;
            memcpy(out, plane_row, (size_t)src->width * sizeof(float));
            continue;
        }
        for (int x = 0; x < src->width; x++) {
            uint8_t rgb[3];
            const unsigned char *px = row + (size_t)x * (size_t)pixel_bytes(src->format);
            switch (src->format) {
            case TC_PIXELS_GRAY8: rgb[0] = rgb[1] = rgb[2] = px[0]; break;
            case TC_PIXELS_RGB24: rgb[0] = px[0]; rgb[1] = px[1]; rgb[2] = px[2]; break;
            case TC_PIXELS_INDEXED8: memcpy(rgb, src->palette + 3 * px[0], 3); break;
            default: rgb[0] = px[2]; rgb[1] = px[1]; rgb[2] = px[0]; break; /* BGR, BGRX */
            }
            out[x] = planes == 1 ? tc_intensity(rgb[0], rgb[1], rgb[2]) : (float)rgb[c];
        }
    }
}

int tc_image_planes(const tc_image *src, int planes, float *out, tc_msg *m)
{
    int status;
    if ((status = tc_image_check(src, 1, m)) != TC_OK)
        return status;
    if (tc_is_channels(src->format)) { /* one plane a channel */
        if (planes != src->planes)
            return tc_fail(m, TC_EINVAL, "planes %d: src has %d channels, one plane each",
                           planes, src->planes);
        for (int c = 0; c < planes; c++) {
            tc_plane p = {src->width, src->height,
                          out + (size_t)c * (size_t)src->width * (size_t)src->height};
            tc_channels_to_plane(src, c, &p);
        }
        return TC_OK;
    }
    if (planes != 1 && planes != 3)
        return tc_fail(m, TC_EINVAL, "planes %d: 1 (the intensity) or 3 (R, G, B)", planes);
    if (src->format == TC_PIXELS_FLOAT32 && src->planes != planes)
        return tc_fail(m, TC_EINVAL, "src has %d float planes, %d asked for", src->planes,
                       planes);
    if ((status = check_indices(src, m)) != TC_OK)
        return status;
    for (int c = 0; c < planes; c++) {
        tc_plane p = {src->width, src->height,
                      out + (size_t)c * (size_t)src->width * (size_t)src->height};
        host_unpack(src, c, planes, &p);
    }
    return TC_OK;
}

/* The filtered planes into dst's pixels on the host: floats as they are, bytes mapped. */
static void host_pack(const tc_plane *planes, int count, const tc_roi *roi, double scale,
                      double offset, const tc_image *dst)
{
    const int ob = pixel_bytes(dst->format);
    for (int y = 0; y < dst->height; y++) {
        unsigned char *row = row_of(dst, y);
        for (int c = 0; c < count; c++) {
            const float *in = planes[c].px + (size_t)y * (size_t)dst->width;
            if (dst->format == TC_PIXELS_FLOAT32) {
                memcpy(row + (long)c * dst->height * dst->stride, in,
                       (size_t)dst->width * sizeof(float));
                continue;
            }
            /* Byte order within a pixel: R, G, B for RGB24; B, G, R for the BMP formats. */
            const int at = dst->format == TC_PIXELS_RGB24 || count == 1 ? c : 2 - c;
            for (int x = 0; x < dst->width; x++) {
                const int inside = tc_roi_in_target(roi, x, y);
                row[(size_t)x * ob + at] = tc_map_byte(in[x], inside ? scale : 1.0,
                                                       inside ? offset : 0.0);
            }
        }
        if (dst->format == TC_PIXELS_BGRX32)
            for (int x = 0; x < dst->width; x++)
                row[(size_t)x * 4 + 3] = 0;
    }
}

/* ---- The host's way, and what the pipeline needs ---------------------------------------- */

int tc_pixels_device_converts(const tc_device *d, const tc_image *src, int convert_on_host)
{
    /* Float planes need no conversion; without double precision the device cannot make the
     * host's values. Both go the host's way. */
    return !convert_on_host && src->format != TC_PIXELS_FLOAT32 && d->info.has_double;
}

int tc_pixels_planes(const tc_image *dst)
{
    return planes_of(dst);
}

void tc_pixels_raw(const tc_image *img, tc_image *raw)
{
    if (img->format == TC_PIXELS_FLOAT32) /* plane c's row y is row c * height + y */
        *raw = (tc_image){TC_PIXELS_F32, img->width, img->planes * img->height, 1, img->data,
                          img->stride, NULL, 0};
    else
        *raw = (tc_image){TC_PIXELS_U8, img->width, img->height, pixel_bytes(img->format),
                          img->data, img->stride, NULL, 0};
}

int tc_run_image(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
                 const tc_job *job, const tc_image *src, const tc_image *dst, double scale,
                 double offset, tc_run_stats *stats, int *planes, tc_msg *m)
{
    int status;
    *planes = planes_of(dst);
    if (src->width != dst->width || src->height != dst->height)
        return tc_fail(m, TC_EINVAL, "src is %d x %d and dst %d x %d: they must be the same size",
                       src->width, src->height, dst->width, dst->height);
    if (src->format == TC_PIXELS_FLOAT32 && src->planes != *planes)
        return tc_fail(m, TC_EINVAL, "src has %d float plane%s and dst asks for %d", src->planes,
                       src->planes == 1 ? "" : "s", *planes);
    if ((status = tc_check_fits(d, src->width, src->height, m)) != TC_OK ||
        (status = check_indices(src, m)) != TC_OK)
        return status;
    static const tc_host_conversions pixels = {host_unpack, host_pack};
    return tc_run_on_host(d, programs, buffers, job, &pixels, src, dst, *planes, scale, offset,
                          stats, m);
}

/* ---- The host conversions, for tc_filter_image in bands (bands.c) ------------------------ */

void tc_pixels_unpack(const tc_image *src, int c, int planes, tc_plane *p)
{
    host_unpack(src, c, planes, p);
}

void tc_pixels_pack(const tc_plane *planes, int count, const tc_roi *roi, double scale,
                    double offset, const tc_image *dst)
{
    host_pack(planes, count, roi, scale, offset, dst);
}

int tc_pixels_check_indices(const tc_image *src, tc_msg *m)
{
    return check_indices(src, m);
}
