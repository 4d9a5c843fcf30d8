/*
 * pixels.h - the older layouts of tc_filter_image (gray, RGB, BGR, BGRX and palette bytes,
 * float planes). On the device they go through the pipeline (stream.h): its slots move their
 * bytes as the raw views tc_pixels_raw makes, and Pixels.cl forms the float planes from them
 * and the output's bytes from the filtered planes. Where the device has no double precision,
 * for float sources, or when the caller asks for it, the same conversions run on the host
 * around tc_run (tc_run_image).
 */
#ifndef TILEDCONV_PIXELS_H
#define TILEDCONV_PIXELS_H

#include "launch.h"
#include "tiledconv_internal.h"

/* A pair of the older layouts in the pipeline: the caller's images, which Pixels.cl converts
 * while their bytes move as their raw views (tc_pixels_raw). */
typedef struct {
    const tc_image *src, *dst;
} tc_pixel_pair;

/* Checks one side of tc_filter_image: a known format, sizes, data, a stride that holds a row,
 * a palette for INDEXED8 (src only), planes 1 or 3 for FLOAT32. TC_OK or TC_EINVAL. */
int tc_image_check(const tc_image *img, int is_src, tc_msg *m);

/* tc_image_to_planes of tiledconv.h. */
int tc_image_planes(const tc_image *src, int planes, float *out, tc_msg *m);

/* Whether a validated pair of the older layouts with source src has its conversions on the
 * device d (the pipeline's way): d has double precision, src is not float planes, and the
 * caller did not ask for the host's (convert_on_host). */
int tc_pixels_device_converts(const tc_device *d, const tc_image *src, int convert_on_host);

/* The planes a dst of the older layouts asks for: 1 (the intensity) or 3 (R, G, B). */
int tc_pixels_planes(const tc_image *dst);

/* The bytes of a validated image of the older layouts as a channel-last image over the same
 * rows, for the pipeline to move: a byte a channel (1, 3 or 4: BGRX's fourth byte too), or for
 * float planes one F32 channel whose rows run on through the planes (plane c's row y is row
 * c * height + y, as tc_image lays them out). Its samples mean nothing to Channels.cl: Pixels.cl
 * converts them. */
void tc_pixels_raw(const tc_image *img, tc_image *raw);

/* Filters src into dst (tc_filter_image of tiledconv.h) for a validated job with the host's
 * conversions (no double precision on the device, float planes in, or convert_on_host).
 * *stats holds the filter's times summed over the planes (one iteration); *planes the planes
 * filtered. */
int tc_run_image(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
                 const tc_job *job, const tc_image *src, const tc_image *dst, double scale,
                 double offset, tc_run_stats *stats, int *planes, tc_msg *m);

/* The host's conversions, a band of rows at a time (bands.c): plane c (of `planes`: 1 the
 * intensity, 3 R, G, B) of src's rows into p; count planes into dst's pixels, inside roi (the
 * target ROI, in dst's rows) mapped by scale and offset, outside only converted; every
 * INDEXED8 index within the palette (TC_OK, or TC_EINVAL naming the pixel). */
void tc_pixels_unpack(const tc_image *src, int c, int planes, tc_plane *p);
void tc_pixels_pack(const tc_plane *planes, int count, const tc_roi *roi, double scale,
                    double offset, const tc_image *dst);
int tc_pixels_check_indices(const tc_image *src, tc_msg *m);

#endif
