/* filter.c - ROI resolution and validation, default filters, plane allocation. */
#include "filter.h"

#include "filters.h"

#include <stdio.h>
#include <stdlib.h>

/* One edge of one ROI: the offset must be inside the image. */
static int check_offset(const char *flag, long value, int limit, const char *what, char *err,
                        size_t err_size)
{
    if (value < 0 || value >= limit) {
        snprintf(err, err_size, "%s %ld: the %s must be in 0..%d (the image is %d %s)", flag,
                 value, what, limit - 1, limit, flag[2] == 'L' ? "wide" : "high");
        return -1;
    }
    return 0;
}

/* The ROI [offset, offset + extent) must end inside the image. */
static int check_extent(const char *extent_flag, long extent, const char *offset_flag,
                        long offset, int limit, char *err, size_t err_size)
{
    if (offset + extent > limit) {
        snprintf(err, err_size,
                 "%s %ld: with %s %ld the ROI would end at %s %ld, past the image's last "
                 "(%d); at most %ld fits",
                 extent_flag, extent, offset_flag, offset,
                 extent_flag[1] == 'W' ? "column" : "row", offset + extent - 1, limit - 1,
                 (long)limit - offset);
        return -1;
    }
    return 0;
}

int tc_roi_in_target(const tc_roi *roi, int x, int y)
{
    return x >= roi->dst_left && x < roi->dst_left + roi->width && y >= roi->dst_top &&
           y < roi->dst_top + roi->height;
}

int tc_roi_resolve(const tc_roi_request *req, int image_width, int image_height, tc_roi *roi,
                   char *err, size_t err_size)
{
    if (check_offset("-sL", req->src_left, image_width, "source ROI's left edge", err, err_size) ||
        check_offset("-sT", req->src_top, image_height, "source ROI's top edge", err, err_size) ||
        check_offset("-tL", req->dst_left, image_width, "target ROI's left edge", err, err_size) ||
        check_offset("-tT", req->dst_top, image_height, "target ROI's top edge", err, err_size))
        return -1;

    long max_left = req->src_left > req->dst_left ? req->src_left : req->dst_left;
    long max_top = req->src_top > req->dst_top ? req->src_top : req->dst_top;
    long width = req->width >= 0 ? req->width : image_width - max_left;
    long height = req->height >= 0 ? req->height : image_height - max_top;

    if (width < 1) {
        snprintf(err, err_size, "-W %ld: the ROI width must be at least 1", width);
        return -1;
    }
    if (height < 1) {
        snprintf(err, err_size, "-H %ld: the ROI height must be at least 1", height);
        return -1;
    }
    if (check_extent("-W", width, "-sL", req->src_left, image_width, err, err_size) ||
        check_extent("-W", width, "-tL", req->dst_left, image_width, err, err_size) ||
        check_extent("-H", height, "-sT", req->src_top, image_height, err, err_size) ||
        check_extent("-H", height, "-tT", req->dst_top, image_height, err, err_size))
        return -1;

    roi->src_left = (int)req->src_left;
    roi->src_top = (int)req->src_top;
    roi->dst_left = (int)req->dst_left;
    roi->dst_top = (int)req->dst_top;
    roi->width = (int)width;
    roi->height = (int)height;
    return 0;
}

void tc_filter_binomial(tc_filter *f, int taps)
{
    /* Row taps - 1 of Pascal's triangle, normalised to sum 1: exact in float up to 15 taps,
     * since the weights are integers below 2^24 divided by a power of two. */
    double row[TC_MAX_TAPS];
    tc_binomial_row(taps - 1, row);
    double sum = (double)(1L << (taps - 1));
    f->taps = taps;
    f->border = TC_BORDER_REPLICATE;
    f->border_value = 0.0f;
    for (int i = 0; i < TC_MAX_TAPS; i++) {
        f->kx[i] = i < taps ? (float)(row[i] / sum) : 0.0f;
        f->ky[i] = f->kx[i];
    }
}

int tc_plane_alloc(tc_plane *p, int width, int height)
{
    p->width = width;
    p->height = height;
    p->px = malloc((size_t)width * (size_t)height * sizeof *p->px);
    return p->px ? 0 : -1;
}

void tc_plane_free(tc_plane *p)
{
    free(p->px);
    p->px = NULL;
}

void tc_plane_from_rgb(tc_plane *p, const unsigned char *rgb)
{
    size_t n = (size_t)p->width * (size_t)p->height;
    for (size_t i = 0; i < n; i++)
        p->px[i] = (float)(0.299 * rgb[3 * i] + 0.587 * rgb[3 * i + 1] + 0.114 * rgb[3 * i + 2]);
}

const char *tc_border_name(tc_border_mode mode)
{
    static const char *const names[TC_BORDER_COUNT] = {"replicate", "constant", "reflect101",
                                                       "reflect", "wrap"};
    return mode < TC_BORDER_COUNT ? names[mode] : "?";
}

void tc_plane_from_channel(tc_plane *p, const unsigned char *rgb, int channel)
{
    size_t n = (size_t)p->width * (size_t)p->height;
    for (size_t i = 0; i < n; i++)
        p->px[i] = (float)rgb[3 * i + (size_t)channel];
}
