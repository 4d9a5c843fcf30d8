/*
 * image.h - float planes, the article's source and target ROIs and their resolution against
 * an image, and the conversions between pixels and planes: SPEC.md's intensity, one colour
 * channel, and the 8-bit output mapping.
 */
#ifndef TILEDCONV_IMAGE_H
#define TILEDCONV_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* A float32 plane, row-major, packed (pitch == width), row 0 on top. */
typedef struct {
    int width;
    int height;
    float *px;
} tc_plane;

int tc_plane_alloc(tc_plane *p, int width, int height);
void tc_plane_free(tc_plane *p);

/* The article's source and target ROIs. Both have the same width and height. */
typedef struct {
    int src_left, src_top;
    int dst_left, dst_top;
    int width, height;
} tc_roi;

/* A ROI as asked for; width or height -1 means "the largest that fits both". */
typedef struct {
    long src_left, src_top, dst_left, dst_top;
    long width, height;
} tc_roi_request;

#define TC_ROI_REQUEST_DEFAULT {0, 0, 0, 0, -1, -1}

/* What each field is called where the request came from, for messages: the command line's
 * flags ("-sL", ...) or the C API's fields ("src_left", ...). */
typedef struct {
    const char *src_left, *src_top, *dst_left, *dst_top, *width, *height;
} tc_roi_names;

/* Resolves the request against an M x N image following SPEC.md (defaults: the largest ROI
 * that fits both). TC_OK, or TC_EINVAL with a message naming the field and the limit. */
int tc_roi_resolve(const tc_roi_request *req, int image_width, int image_height,
                   const tc_roi_names *names, tc_roi *roi, tc_msg *m);

/* Whether pixel (x, y) of the image lies in the target ROI. */
int tc_roi_in_target(const tc_roi *roi, int x, int y);

/* SPEC.md's intensity of one pixel: 0.299 R + 0.587 G + 0.114 B in double, rounded to float. */
float tc_intensity(uint8_t r, uint8_t g, uint8_t b);

/* SPEC.md's intensity plane of packed R, G, B bytes (row 0 on top):
 * I = 0.299 R + 0.587 G + 0.114 B, computed in double and rounded once to float. The plane
 * must be allocated to the same size. */
void tc_plane_from_rgb(tc_plane *p, const uint8_t *rgb);

/* One colour channel (0 R, 1 G, 2 B) of packed R, G, B bytes as floats 0..255 (--color). */
void tc_plane_from_channel(tc_plane *p, const uint8_t *rgb, int channel);

/* SPEC.md's 8-bit conversion: floor(clamp(v, 0, 255) + 0.5); NaN becomes 0. */
uint8_t tc_to_byte(float v);

/* The output mapping, then the conversion: floor(clamp(v * scale + offset, 0, 255) + 0.5),
 * evaluated in double so that the identity mapping changes no value. */
uint8_t tc_map_byte(float v, double scale, double offset);

/* The plane converted to bytes into out (width * height), row 0 on top. Pixels inside roi
 * (the target ROI) are mapped with scale and offset; pixels outside it are the input's and
 * are only converted, so that an offset does not brighten what the filter never touched.
 * roi NULL maps every pixel. */
void tc_plane_to_gray8(const tc_plane *p, const tc_roi *roi, double scale, double offset,
                       uint8_t *out);

/* The same for three planes R, G, B of one size, packed as R, G, B bytes (3 per pixel). */
void tc_planes_to_rgb24(const tc_plane planes[3], const tc_roi *roi, double scale,
                        double offset, uint8_t *out);

#endif
