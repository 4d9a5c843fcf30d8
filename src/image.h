/*
 * image.h - float planes, the article's source and target ROIs and their resolution against
 * an image, and the conversions between pixels and planes: the intensity, one colour
 * channel, and the 8-bit output mapping. What the command line uses of them (the plane and ROI
 * types, their resolution, the conversions to pixels) is declared in tiledconv_internal.h.
 */
#ifndef TILEDCONV_IMAGE_H
#define TILEDCONV_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"
#include "tiledconv_internal.h"

/* An image's sizes against the library's limits, before any arithmetic on them: each side at
 * least 1, width x height at most TC_MAX_PIXELS. TC_OK, or TC_EINVAL naming `what` ("image",
 * "src", ...) with the numbers as given. */
int tc_check_size(int width, int height, const char *what, tc_msg *m);

/* The intensity of one pixel: 0.299 R + 0.587 G + 0.114 B in double, rounded to float. */
float tc_intensity(uint8_t r, uint8_t g, uint8_t b);

/* The intensity plane of packed R, G, B bytes (row 0 on top):
 * I = 0.299 R + 0.587 G + 0.114 B, computed in double and rounded once to float. The plane
 * must be allocated to the same size. */
void tc_plane_from_rgb(tc_plane *p, const uint8_t *rgb);

/* One colour channel (0 R, 1 G, 2 B) of packed R, G, B bytes as floats 0..255 (--color). */
void tc_plane_from_channel(tc_plane *p, const uint8_t *rgb, int channel);

/* A sample of any depth on the 0..255 scale: v * 255 / maxval in double, unrounded. */
double tc_sample_scaled(unsigned v, unsigned maxval);

/* The intensity of samples of any scale: 0.299 R + 0.587 G + 0.114 B of the scaled
 * samples (tc_sample_scaled), in double, rounded once to float. For maxval 255 the scaled
 * samples are the samples themselves, exactly, so the value is tc_intensity's bit for bit. */
float tc_intensity_scaled(unsigned r, unsigned g, unsigned b, unsigned maxval);

/* The 8-bit conversion: floor(clamp(v, 0, 255) + 0.5); NaN becomes 0. */
uint8_t tc_to_byte(float v);

/* The output mapping, then the conversion: floor(clamp(v * scale + offset, 0, 255) + 0.5),
 * evaluated in double so that the identity mapping changes no value. */
uint8_t tc_map_byte(float v, double scale, double offset);

/* The 16-bit output (maxval 65535), after the same mapping as tc_map_byte:
 * round(clamp(v * scale + offset, 0, 255) * 65535 / 255) in double, halves rounded up; NaN
 * becomes 0. A 16-bit input's sample x comes back as x through the identity filter. */
uint16_t tc_map_word(float v, double scale, double offset);

#endif
