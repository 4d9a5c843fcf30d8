/* image.c - planes, ROI resolution, and the pixel <-> plane conversions (docs/kernels.md). */
#include "image.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int tc_plane_alloc(tc_plane *p, int width, int height)
{
    size_t n = (size_t)width * (size_t)height;
    p->width = width;
    p->height = height;
    p->px = malloc((n ? n : 1) * sizeof *p->px);
    return p->px ? 0 : -1;
}

void tc_plane_free(tc_plane *p)
{
    free(p->px);
    p->px = NULL;
}

/* One edge of one ROI: the offset must be inside the image (limit: its width or height). */
static int check_offset(const char *name, long value, int limit, const char *what,
                        int horizontal, tc_msg *m)
{
    if (value < 0 || value >= limit)
        return tc_fail(m, TC_EINVAL, "%s %ld: the %s must be in 0..%d (the image is %d %s)",
                       name, value, what, limit - 1, limit, horizontal ? "wide" : "high");
    return TC_OK;
}

/* The ROI [offset, offset + extent) must end inside the image. */
static int check_extent(const char *extent_name, long extent, const char *offset_name,
                        long offset, int limit, int horizontal, tc_msg *m)
{
    /* Compared as extent > limit - offset: offset is inside the image by now, while extent
     * may be anything a caller passed (offset + LONG_MAX would overflow). */
    if (extent > limit - offset)
        return tc_fail(m, TC_EINVAL,
                       "%s %ld: with %s %ld the ROI would end at %s %ld, past the image's last "
                       "(%d); at most %ld fits",
                       extent_name, extent, offset_name, offset, horizontal ? "column" : "row",
                       extent > LONG_MAX - offset ? LONG_MAX : offset + extent - 1, limit - 1,
                       (long)limit - offset);
    return TC_OK;
}

int tc_check_size(int width, int height, const char *what, tc_msg *m)
{
    if (width < 1 || height < 1)
        return tc_fail(m, TC_EINVAL, "%s %d x %d: both sides must be at least 1", what, width,
                       height);
    /* Both positive ints: the product fits 64 bits. */
    const long long pixels = (long long)width * (long long)height;
    if (pixels > TC_MAX_PIXELS)
        return tc_fail(m, TC_EINVAL,
                       "%s %d x %d: %lld pixels, more than the library's limit of %d (2^30, "
                       "32768 x 32768: the kernels index pixels with ints)",
                       what, width, height, pixels, TC_MAX_PIXELS);
    return TC_OK;
}

int tc_roi_in_target(const tc_roi *roi, int x, int y)
{
    return x >= roi->dst_left && x < roi->dst_left + roi->width && y >= roi->dst_top &&
           y < roi->dst_top + roi->height;
}

int tc_roi_resolve(const tc_roi_request *req, int image_width, int image_height,
                   const tc_roi_names *n, tc_roi *roi, tc_msg *m)
{
    const int w = image_width, h = image_height;
    if (check_offset(n->src_left, req->src_left, w, "source ROI's left edge", 1, m) ||
        check_offset(n->src_top, req->src_top, h, "source ROI's top edge", 0, m) ||
        check_offset(n->dst_left, req->dst_left, w, "target ROI's left edge", 1, m) ||
        check_offset(n->dst_top, req->dst_top, h, "target ROI's top edge", 0, m))
        return TC_EINVAL;

    const long max_left = req->src_left > req->dst_left ? req->src_left : req->dst_left;
    const long max_top = req->src_top > req->dst_top ? req->src_top : req->dst_top;
    const long width = req->width >= 0 ? req->width : w - max_left;
    const long height = req->height >= 0 ? req->height : h - max_top;

    if (width < 1)
        return tc_fail(m, TC_EINVAL, "%s %ld: the ROI width must be at least 1", n->width,
                       width);
    if (height < 1)
        return tc_fail(m, TC_EINVAL, "%s %ld: the ROI height must be at least 1", n->height,
                       height);
    if (check_extent(n->width, width, n->src_left, req->src_left, w, 1, m) ||
        check_extent(n->width, width, n->dst_left, req->dst_left, w, 1, m) ||
        check_extent(n->height, height, n->src_top, req->src_top, h, 0, m) ||
        check_extent(n->height, height, n->dst_top, req->dst_top, h, 0, m))
        return TC_EINVAL;

    roi->src_left = (int)req->src_left;
    roi->src_top = (int)req->src_top;
    roi->dst_left = (int)req->dst_left;
    roi->dst_top = (int)req->dst_top;
    roi->width = (int)width;
    roi->height = (int)height;
    return TC_OK;
}

float tc_intensity(uint8_t r, uint8_t g, uint8_t b)
{
    /* Left to right in double, rounded once: Pixels.cl's unpack_pixels computes the same
     * expression in the same order, with contraction off, so both give the same float. */
    return (float)(0.299 * r + 0.587 * g + 0.114 * b);
}

void tc_plane_from_rgb(tc_plane *p, const uint8_t *rgb)
{
    size_t n = (size_t)p->width * (size_t)p->height;
    for (size_t i = 0; i < n; i++)
        p->px[i] = tc_intensity(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]);
}

void tc_plane_from_channel(tc_plane *p, const uint8_t *rgb, int channel)
{
    size_t n = (size_t)p->width * (size_t)p->height;
    for (size_t i = 0; i < n; i++)
        p->px[i] = (float)rgb[3 * i + (size_t)channel];
}

double tc_sample_scaled(unsigned v, unsigned maxval)
{
    /* v * 255 is exact in double, so for maxval 255 the quotient is v itself: 8-bit samples
     * keep exactly the values they have always had. */
    return (double)v * 255.0 / (double)maxval;
}

float tc_intensity_scaled(unsigned r, unsigned g, unsigned b, unsigned maxval)
{
    /* tc_intensity's expression in tc_intensity's order, on the scaled samples. */
    return (float)(0.299 * tc_sample_scaled(r, maxval) + 0.587 * tc_sample_scaled(g, maxval) +
                   0.114 * tc_sample_scaled(b, maxval));
}

void tc_plane_from_samples(tc_plane *p, const void *samples, int channels, int depth,
                           unsigned maxval, int channel)
{
    const uint8_t *s8 = samples;
    const uint16_t *s16 = samples;
    const size_t n = (size_t)p->width * (size_t)p->height, step = (size_t)channels;
    for (size_t i = 0; i < n; i++) {
        unsigned v[3];
        for (size_t c = 0; c < 3; c++) {
            const size_t at = i * step + (step == 3 ? c : 0); /* gray: R = G = B */
            v[c] = depth == 16 ? s16[at] : s8[at];
        }
        p->px[i] = channel < 0 ? tc_intensity_scaled(v[0], v[1], v[2], maxval)
                               : (float)tc_sample_scaled(v[channel], maxval);
    }
}

int tc_plane_take_rgb(tc_plane *p, uint8_t *rgb, int width, int height, int channel)
{
    const size_t n = (size_t)width * (size_t)height;
    unsigned char *mem = realloc(rgb, (n ? n : 1) * sizeof(float));
    if (!mem)
        return -1;
    /* Backwards: the float of pixel i occupies bytes 4i..4i+3, which hold only the RGB bytes of
     * pixels i and later (3j + 2 < 4i for every j < i), and pixel i is read before it is
     * overwritten. memcpy, since the memory held bytes until now. */
    for (size_t i = n; i-- > 0;) {
        const unsigned char *px = mem + 3 * i;
        const float v = channel < 0 ? (float)(0.299 * px[0] + 0.587 * px[1] + 0.114 * px[2])
                                    : (float)px[channel];
        memcpy(mem + 4 * i, &v, sizeof v);
    }
    p->width = width;
    p->height = height;
    p->px = (float *)(void *)mem;
    return 0;
}

/* v * scale + offset clamped to 0..255, NaN to 0: what both sample sizes write scaled. */
static double clamped(float v, double scale, double offset)
{
    double m = (double)v * scale + offset;
    if (!(m > 0.0)) /* negative, zero and NaN */
        return 0.0;
    return m >= 255.0 ? 255.0 : m;
}

uint8_t tc_map_byte(float v, double scale, double offset)
{
    return (uint8_t)floor(clamped(v, scale, offset) + 0.5);
}

uint8_t tc_to_byte(float v)
{
    return tc_map_byte(v, 1.0, 0.0);
}

uint16_t tc_map_word(float v, double scale, double offset)
{
    /* tc_map_byte's mapping and clamp, then the scaling to 0..65535 as it is written
     * (x 65535 / 255, in double), rounded like the 8-bit output: halves up. */
    return (uint16_t)floor(clamped(v, scale, offset) * 65535.0 / 255.0 + 0.5);
}

/* Converts plane p into every stride-th sample of dst (bytes, or 16-bit words when words is
 * set), mapping only the target ROI's pixels; the others are converted as they are. */
static void convert_plane(const tc_plane *p, const tc_roi *roi, double scale, double offset,
                          void *dst, size_t stride, int words)
{
    size_t i = 0;
    for (int y = 0; y < p->height; y++)
        for (int x = 0; x < p->width; x++, i++) {
            const int mapped = !roi || tc_roi_in_target(roi, x, y);
            const double s = mapped ? scale : 1.0, o = mapped ? offset : 0.0;
            if (words)
                ((uint16_t *)dst)[i * stride] = tc_map_word(p->px[i], s, o);
            else
                ((uint8_t *)dst)[i * stride] = tc_map_byte(p->px[i], s, o);
        }
}

void tc_planes_to_samples(const tc_plane *planes, int count, int depth, const tc_roi *roi,
                          double scale, double offset, void *out)
{
    const size_t sample = depth == 16 ? 2 : 1;
    for (int c = 0; c < count; c++)
        convert_plane(&planes[c], roi, scale, offset, (uint8_t *)out + (size_t)c * sample,
                      (size_t)count, depth == 16);
}

void tc_plane_to_gray8(const tc_plane *p, const tc_roi *roi, double scale, double offset,
                       uint8_t *out)
{
    tc_planes_to_samples(p, 1, 8, roi, scale, offset, out);
}
