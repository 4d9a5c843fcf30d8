/*
 * filter.h - the problem a run solves: the image planes, the two ROIs and the 1-D filter.
 * Pure data and validation; no OpenCL here, so the tests can check it on its own.
 */
#ifndef TILEDCONV_FILTER_H
#define TILEDCONV_FILTER_H

#include <stddef.h>

#include "tc_config.h"

/* A float32 plane, row-major, packed (pitch == width), row 0 on top. */
typedef struct {
    int width;
    int height;
    float *px;
} tc_plane;

/* The article's source and target ROIs. Both have the same width and height. */
typedef struct {
    int src_left, src_top;
    int dst_left, dst_top;
    int width, height;
} tc_roi;

/* What a read outside the source ROI returns, with OpenCV's meanings, for a ROI "abcd":
 * replicate aaa|abcd|ddd (SPEC.md's default), constant vvv|abcd|vvv, reflect101 dcb|abcd|cba,
 * reflect cba|abcd|dcb, wrap bcd|abcd|abc. */
typedef enum {
    TC_BORDER_REPLICATE,
    TC_BORDER_CONSTANT,
    TC_BORDER_REFLECT101,
    TC_BORDER_REFLECT,
    TC_BORDER_WRAP,
    TC_BORDER_COUNT
} tc_border_mode;

/* "replicate", "constant", "reflect101", "reflect", "wrap". */
const char *tc_border_name(tc_border_mode mode);

/* A separable filter: kx runs along rows, ky along columns (the tool's -c sets both), and the
 * border rule for reads outside the source ROI. */
typedef struct {
    int taps;
    float kx[TC_MAX_TAPS];
    float ky[TC_MAX_TAPS];
    tc_border_mode border;
    float border_value; /* TC_BORDER_CONSTANT's value */
} tc_filter;

/* What the user asked for on the command line; -1 means "not given". */
typedef struct {
    long src_left, src_top, dst_left, dst_top;
    long width, height;
} tc_roi_request;

#define TC_ROI_REQUEST_DEFAULT {0, 0, 0, 0, -1, -1}

/* Whether pixel (x, y) of the image lies in the target ROI. */
int tc_roi_in_target(const tc_roi *roi, int x, int y);

/* Resolve the request against an M x N image following SPEC.md (defaults: the largest ROI that
 * fits both). Returns 0, or -1 with a message naming the flag and the limit. */
int tc_roi_resolve(const tc_roi_request *req, int image_width, int image_height, tc_roi *roi,
                   char *err, size_t err_size);

/* The default binomial filter of the given length (1/4 1/2 1/4 for 3 taps, 1 4 6 4 1 / 16 for 5,
 * the binomial row of taps - 1 in general), the same horizontally and vertically. */
void tc_filter_binomial(tc_filter *f, int taps);

int tc_plane_alloc(tc_plane *p, int width, int height);
void tc_plane_free(tc_plane *p);

/* SPEC.md's intensity plane of packed R, G, B bytes (row 0 on top):
 * I = 0.299 R + 0.587 G + 0.114 B, unrounded. The plane must be allocated to the same size. */
void tc_plane_from_rgb(tc_plane *p, const unsigned char *rgb);

/* One colour channel (0 R, 1 G, 2 B) of packed R, G, B bytes as floats 0..255, for --color. */
void tc_plane_from_channel(tc_plane *p, const unsigned char *rgb, int channel);

#endif
