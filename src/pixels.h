/*
 * pixels.h - filtering an image given as pixels (tc_filter_image): the file's bytes go to the
 * device through pinned staging memory, Pixels.cl forms the float planes there, the filter runs
 * on them (launch.h's tc_run_resident), and the 8-bit result comes back as bytes. Where the
 * device has no double precision, or the caller asks for it, the same conversions run on the
 * host around tc_run.
 */
#ifndef TILEDCONV_PIXELS_H
#define TILEDCONV_PIXELS_H

#include "copier.h"
#include "host_blocks.h"
#include "launch.h"
#include "tiledconv_internal.h"

/* The pinned staging chunk: large enough that a 1920 x 1080 photo moves in one, small enough
 * that a large image costs no large page-locked allocation (8192 x 8192 RGB moves in 13). */
#define TC_STAGING_CHUNK ((size_t)16 << 20)

/* What the pixel path keeps between runs, each grown when an image needs more. Plane 0 of a
 * run uses tc_buffers' src and dst; planes 1 and 2 (colour) use these. */
typedef struct {
    cl_mem bytes_in, bytes_out, palette;      /* packed pixel rows on the device */
    size_t bytes_in_size, bytes_out_size, palette_size;
    cl_mem pinned[2];                          /* page-locked host staging, mapped: two */
    void *pinned_ptr[2];                       /* chunks of pinned_size bytes (at most */
    size_t pinned_size;                        /* TC_STAGING_CHUNK), so that a copy */
                                               /* and a transfer overlap */
    cl_mem plane_src[2], plane_dst[2];         /* planes 1 and 2 */
    size_t plane_src_size[2], plane_dst_size[2];
    cl_kernel unpack, pack;                    /* the pixel program's kernels, made once */
} tc_pixel_buffers;

void tc_pixel_buffers_release(tc_pixel_buffers *pb, cl_command_queue queue);

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

/* Filters src into dst (tc_filter_image of tiledconv.h) for a validated job. *stats holds the
 * filter's times summed over the planes (one iteration), the transfers of the pixels, and
 * *convert_ms the device's conversions. The copies into and out of pinned memory run on *crew
 * (copier.h); rows that lie in one of blocks' page-locked blocks skip them, moving in one
 * transfer as they lie (counted in *counts; blocks NULL: never). */
int tc_run_image(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
                 tc_pixel_buffers *pb, tc_copier **crew, tc_host_blocks *blocks,
                 tc_direct_counts *counts, const tc_job *job, const tc_image *src,
                 const tc_image *dst, double scale, double offset, int convert_on_host,
                 tc_run_stats *stats, double *convert_ms, int *planes, tc_msg *m);

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

/* The host's conversions, a band of rows at a time (bands.c): plane c (of `planes`: 1 the
 * intensity, 3 R, G, B) of src's rows into p; count planes into dst's pixels, inside roi (the
 * target ROI, in dst's rows) mapped by scale and offset, outside only converted; every
 * INDEXED8 index within the palette (TC_OK, or TC_EINVAL naming the pixel). */
void tc_pixels_unpack(const tc_image *src, int c, int planes, tc_plane *p);
void tc_pixels_pack(const tc_plane *planes, int count, const tc_roi *roi, double scale,
                    double offset, const tc_image *dst);
int tc_pixels_check_indices(const tc_image *src, tc_msg *m);

#endif
