/*
 * channels.h - the channel-last layouts of tc_filter_image (tiledconv.h's TC_PIXELS_U8, _U16
 * and _F32: H x W x C samples, C = 1, 3 or 4, every channel filtered on its own): their
 * checks, the packed byte stream the device sees (the caller's rows gathered into it and
 * scattered back from it, so that the bytes between a view's rows are never touched), and the
 * host's conversions to and from float planes, which Channels.cl repeats on the device.
 */
#ifndef TILEDCONV_CHANNELS_H
#define TILEDCONV_CHANNELS_H

#include <stddef.h>

#include "image.h"
#include "tiledconv.h"

/* The most channels a pixel of these layouts has. */
#define TC_MAX_CHANNELS 4

/* 1 for TC_PIXELS_U8, U16 and F32. */
int tc_is_channels(tc_pixel_format f);

/* Bytes of one sample: 1, 2 or 4 (0 for the other formats). */
size_t tc_sample_size(tc_pixel_format f);

/* The bytes of one row's samples, packed: width x channels x the sample's size. */
size_t tc_channels_row_bytes(const tc_image *img);

/* The bytes of the whole image packed (rows one after another, no padding). */
size_t tc_channels_packed_bytes(const tc_image *img);

/* The layout's own rules, on an image whose format is one of the three and whose sizes are
 * valid: channels (img->planes) 1, 3 or 4; data and stride multiples of the sample's size.
 * side names it in the message ("src", "dst"). TC_OK or TC_EINVAL. */
int tc_channels_check(const tc_image *img, const char *side, tc_msg *m);

/* A pair tc_filter_image can run: both of these layouts with the same channel count, or
 * neither (then pixels.c's rules apply). TC_OK or TC_EINVAL. */
int tc_channels_check_pair(const tc_image *src, const tc_image *dst, tc_msg *m);

/* Whether a pair of the older layouts can run as channel-last images with the same bytes out:
 * GRAY8 to GRAY8 (a gray sample's intensity, 0.299 g + 0.587 g + 0.114 g in double rounded to
 * float, is g itself), GRAY8 to one FLOAT32 plane, RGB24 to RGB24 and BGR24 to BGR24 (each
 * channel is filtered on its own, so their order does not matter). Then *csrc and *cdst are
 * U8 (or F32) views of the same rows, and 1 is returned; 0 for any other pair. The older
 * layouts' rule that an 8-bit dst's bytes between rows are zeroed is tc_channels_zero_gaps's,
 * after the run. */
int tc_channels_view(const tc_image *src, const tc_image *dst, tc_image *csrc, tc_image *cdst);

/* Zeroes the bytes of an 8-bit dst of the older layouts (GRAY8, RGB24, BGR24, BGRX32) between
 * one row's pixels and the next row stored (nothing after the row stored last), as the device
 * path has always left them: the pipeline moves the pixels alone. */
void tc_channels_zero_gaps(const tc_image *dst);

/* Bytes [offset, offset + n) of the image's packed stream: copied out of the caller's rows
 * into out (gather), or from in into the caller's rows (scatter). Whole rows at once where
 * they can be; one memcpy when the rows are contiguous. */
void tc_channels_gather(const tc_image *img, size_t offset, size_t n, unsigned char *out);
void tc_channels_scatter(const tc_image *img, size_t offset, size_t n,
                         const unsigned char *in);

/* Channel c of src as a float plane (p is src's size): the sample on the 0..255 scale, as
 * unpack_samples forms it on the device. */
void tc_channels_to_plane(const tc_image *src, int c, tc_plane *p);

/* The filtered planes (dst->planes of them, dst's size) into dst's samples, as pack_samples
 * does it on the device: integer samples mapped with scale and offset inside the target ROI
 * and only converted outside it; floats as they are. */
void tc_channels_from_planes(const tc_plane *planes, const tc_roi *roi, double scale,
                             double offset, const tc_image *dst);

#endif
