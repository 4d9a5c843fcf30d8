/*
 * storage.h - image objects beside buffers: the source plane as an image2d_t for the tiled
 * and one-pass kernels (--storage image: each of their programs built with TC_IMAGE=1,
 * Common.cl's SRC_T), and the bilinear-tap trick's two passes (-a bilinear, Images.cl). What
 * the device must offer, the images a context keeps between runs, and how the bilinear passes
 * are enqueued. launch.c walks a run through its steps and calls these where a run reads an
 * image.
 */
#ifndef TILEDCONV_STORAGE_H
#define TILEDCONV_STORAGE_H

#include "device.h"
#include "filter.h"
#include "image.h"

/* The images a context keeps, each made anew when a run needs another size. */
typedef struct {
    cl_mem src;             /* the source plane: CL_R / CL_FLOAT, as wide as the device's
                             * padded rows (so that it is a copy of the input buffer) */
    size_t src_width, src_height;
    cl_mem tmp;             /* bilinear: pass 1's result, the ROI's size */
    size_t tmp_width, tmp_height;
    cl_mem fetch_x, fetch_y; /* bilinear: the samples of each axis (bilinear.h) */
} tc_image_buffers;

void tc_image_buffers_release(tc_image_buffers *b);

/* The device can run it: image support (CL_DEVICE_IMAGE_SUPPORT; the tuning's no_images
 * makes any device answer no, for the tests), the CL_R / CL_FLOAT
 * format, the image sizes (CL_DEVICE_IMAGE2D_MAX_WIDTH/HEIGHT: the source image is
 * tc_device_pitch(width) x height, bilinear's temporary the ROI's size) and the device's
 * memory for the extra planes. TC_OK, or TC_EINVAL saying what the device lacks (the
 * command line's exit 2: a request this device cannot serve, whatever is retried). */
int tc_images_check(const tc_device *d, tc_algorithm algorithm, tc_storage storage, int width,
                    int height, const tc_roi *roi, tc_msg *m);

/* Host bytes the images of a run add on a CPU device (its images are host memory), beyond what
 * b already holds. */
unsigned long long tc_images_new_bytes(const tc_image_buffers *b, tc_algorithm algorithm,
                                       int pitch, int height, const tc_roi *roi);

/* Makes (or keeps) the source image of pitch x height and enqueues the copy of the plane src
 * (a buffer of that pitch) into it; *event times the copy. */
int tc_images_source(const tc_device *d, tc_image_buffers *b, cl_mem src, int pitch,
                     int height, cl_event *event, tc_msg *m);

/* The build options of bilinear's program beyond the kernels' common ones (Images.cl):
 * FETCHES_X/Y, LONE_X/Y and the work-group. The filter must pair (tc_bilinear_pair). */
void tc_bilinear_options(const tc_filter_spec *f, char *out, size_t size);

/* Makes (or keeps) the temporary image and the sample buffers, and enqueues the samples'
 * upload. */
int tc_bilinear_prepare(const tc_device *d, tc_image_buffers *b, const tc_filter_spec *f,
                        const tc_roi *roi, tc_msg *m);

/* Enqueues one bilinear run: pass 1 (rows, from b->src into b->tmp), pass 2 (columns, from
 * b->tmp into dst, a plane of that pitch); events[p] receives pass p's event. kx and ky hold
 * the coefficients, for the pixels whose taps reach past the ROI. */
int tc_bilinear_enqueue(cl_command_queue queue, cl_kernel rows, cl_kernel cols,
                        const tc_image_buffers *b, const tc_filter_spec *f, const tc_roi *roi,
                        cl_mem kx, cl_mem ky, cl_mem dst, int pitch, const size_t local[2],
                        cl_event events[2], tc_msg *m);

/* Bilinear's launch: the ROI rounded up to whole work-groups (both passes). */
void tc_bilinear_geometry(const tc_roi *roi, size_t global[2]);

#endif
