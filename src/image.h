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

/* An image's sizes against the library's limits, before any arithmetic on them: each side at
 * least 1, width x height at most TC_MAX_PIXELS. TC_OK, or TC_EINVAL naming `what` ("image",
 * "src", ...) with the numbers as given. */
int tc_check_size(int width, int height, const char *what, tc_msg *m);

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

/* A sample of any depth on SPEC.md's 0..255 scale: v * 255 / maxval in double, unrounded. */
double tc_sample_scaled(unsigned v, unsigned maxval);

/* SPEC.md's intensity of samples of any scale: 0.299 R + 0.587 G + 0.114 B of the scaled
 * samples (tc_sample_scaled), in double, rounded once to float. For maxval 255 the scaled
 * samples are the samples themselves, exactly, so the value is tc_intensity's bit for bit. */
float tc_intensity_scaled(unsigned r, unsigned g, unsigned b, unsigned maxval);

/* A plane from packed samples of any depth (PNG, PGM/PPM, JPEG, BMP after decoding): rows of
 * p->width * channels samples, row 0 on top, uint8_t for depth 8 or uint16_t (host order) for
 * depth 16, each sample v standing for v / maxval of full scale. channel -1 gives the intensity
 * plane (tc_intensity_scaled; a gray sample is R = G = B), 0, 1 or 2 that channel of an RGB
 * image, scaled (a gray image's sample for every channel). channels is 1 or 3, maxval 1..65535
 * and within the depth. For 8-bit samples with maxval 255 the plane equals tc_plane_from_rgb's
 * and tc_plane_from_channel's, and the device's (tc_filter_image on GRAY8 or RGB24). */
void tc_plane_from_samples(tc_plane *p, const void *samples, int channels, int depth,
                           unsigned maxval, int channel);

/* tc_plane_from_rgb (channel -1) or tc_plane_from_channel (0, 1, 2) made in the memory of the
 * RGB buffer itself, so that a large image never holds its RGB bytes and its plane at once:
 * rgb (malloc'd, width * height * 3 bytes) is grown to width * height floats and converted from
 * the last pixel back (pixel i's float goes where pixels i * 4 / 3 and on were, all read
 * already). The values are exactly those of the two functions above. Returns 0 with p owning
 * the memory (rgb must not be used again), or -1 when growing failed: rgb is untouched and
 * still the caller's. */
int tc_plane_take_rgb(tc_plane *p, uint8_t *rgb, int width, int height, int channel);

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

/* SPEC.md's 16-bit output (maxval 65535), after the same mapping as tc_map_byte:
 * round(clamp(v * scale + offset, 0, 255) * 65535 / 255) in double, halves rounded up; NaN
 * becomes 0. A 16-bit input's sample x comes back as x through the identity filter. */
uint16_t tc_map_word(float v, double scale, double offset);

/* tc_plane_to_gray8 and tc_planes_to_rgb24 with 16-bit samples (tc_map_word inside roi,
 * tc_map_word(v, 1, 0) outside it), in host order. */
void tc_plane_to_gray16(const tc_plane *p, const tc_roi *roi, double scale, double offset,
                        uint16_t *out);
void tc_planes_to_rgb48(const tc_plane planes[3], const tc_roi *roi, double scale,
                        double offset, uint16_t *out);

#endif
