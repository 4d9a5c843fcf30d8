/*
 * buffers.h - the device buffers a context keeps between runs (each grown when an image needs
 * more, reused while it fits), the checks that an image's planes fit the device and, on a CPU
 * device, the host, and the planes' trips to the device and back.
 */
#ifndef TILEDCONV_BUFFERS_H
#define TILEDCONV_BUFFERS_H

#include "device.h"
#include "filter_job.h"
#include "storage.h"

/* The device buffers a context keeps between runs; each grows when an image needs more. */
typedef struct {
    cl_mem src, dst, tmp, kx, ky, mask, counts;
    cl_mem unit;          /* the split variant's second pass: its one coefficient, 1 */
    size_t src_bytes, dst_bytes, tmp_bytes;
    float *staging;       /* the plane with the device's row pitch, when that differs */
    size_t staging_bytes;
    tc_image_buffers images; /* storage image and bilinear (storage.h) */
} tc_buffers;

void tc_buffers_release(tc_buffers *b);

/* The planes of a width x height image (input, output, the two-pass temporary) fit the
 * device's allocation limits: TC_OK, or TC_EINVAL saying what is needed and allowed. */
int tc_check_fits(const tc_device *d, int width, int height, tc_msg *m);

/* On a CPU device, whose buffers are host memory that PoCL backs only at first use (and aborts
 * the process when it cannot), `bytes` more must fit the host's room now (hostmem.h), with a
 * reserve: TC_OK, or TC_ENOMEM naming `what`. Other devices: TC_OK. */
int tc_check_host_room(const tc_device *d, unsigned long long bytes, const char *what,
                       tc_msg *m);

/* What a buffer of `capacity` bytes adds when `bytes` are needed (0 when it is large enough). */
static inline unsigned long long tc_new_bytes(size_t capacity, size_t bytes)
{
    return capacity < bytes ? (unsigned long long)bytes : 0ULL;
}

/* *mem is a buffer of at least `bytes` (kept when it was large enough, else made anew, its
 * contents lost); *capacity its size. What names the buffer in a failure's message. */
int tc_ensure_buffer(const tc_device *d, cl_mem *mem, size_t *capacity, size_t bytes,
                     cl_mem_flags flags, const char *what, tc_msg *m);

/* The buffers every run of job needs besides its planes: the coefficients, a mask's weights,
 * the class counters, and twopass's temporary. */
int tc_buffers_ensure(const tc_device *d, tc_buffers *b, const tc_job *job, tc_msg *m);

/* The split variant's (split.h): its plane between the passes, pitch x the ROI's height
 * floats (the planes' row pitch), and the unit coefficient of its second pass. */
int tc_buffers_ensure_split(const tc_device *d, tc_buffers *b, const tc_job *job, int pitch,
                            tc_msg *m);

/* The input plane (in->width x in->height, packed) to b->src with the device's row pitch
 * (plane_bytes in all, through b's host staging when rows are padded); b->dst starts as the
 * input (pixels outside the target ROI keep it), by a device copy rather than a second upload.
 * *event: the upload's. */
int tc_plane_upload(cl_command_queue queue, tc_buffers *b, const tc_plane *in, int pitch,
                    size_t plane_bytes, cl_event *event, tc_msg *m);

/* The host copy of a plane with the device's row pitch: *staging, grown to `bytes` when smaller
 * (*staging_bytes its size) and kept between runs, zeroed (the padding stays zero). NULL when
 * the host has no memory for it. */
float *tc_staging(float **staging, size_t *staging_bytes, size_t bytes);

/* A device plane (bytes long, rows of pitch floats) into out, packed width x height, with a
 * blocking read: into staging and its rows copied out when staging is given (padded rows), else
 * straight into out. *ms grows by the read's time. */
int tc_plane_read(cl_command_queue queue, cl_mem plane, size_t bytes, float *staging, int pitch,
                  float *out, int width, int height, double *ms, tc_msg *m);

/* b->dst back into out (packed), through the staging copy when rows are padded. */
int tc_plane_download(cl_command_queue queue, tc_buffers *b, tc_plane *out, int pitch,
                      size_t plane_bytes, cl_event *event, tc_msg *m);

#endif
