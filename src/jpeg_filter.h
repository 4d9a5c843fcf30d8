/*
 * jpeg_filter.h - one JPEG filtered on the device from coefficients to coefficients: decoded
 * (jpeg_decode.h) into a device buffer of 8-bit samples, turned into float planes, filtered
 * and packed into 8-bit samples by the image pipeline's own kernels (Channels.cl's
 * unpack_samples and pack_samples, as stream_slot.c enqueues them; the job's kernel by the
 * pipeline's prepared launch, or tc_run_resident plane by plane where none runs it), then
 * encoded to the output's coefficients (jpeg_encode.h), all on one queue with one wait. Only
 * coefficients cross the bus. The context holds one of these (context.c's tc_filter_jpeg,
 * which builds the job as tc_filter_image does).
 */
#ifndef TILEDCONV_JPEG_FILTER_H
#define TILEDCONV_JPEG_FILTER_H

#include "jpeg_decode.h"
#include "jpeg_encode.h"
#include "launch.h"
#include "stream_slot.h"

/* One image of the JPEG filter, from its start to its finish, and what it keeps between
 * images: the decoder's and the encoder's kernels and buffers, a pipeline slot of its own (its
 * queue, on which everything of the image runs, its conversion kernels, its buffers of samples
 * and planes, all made READ_WRITE here: the decoder writes the input samples, the encoder
 * reads the output's). No pinned memory of its own: the coefficients' blocks are the
 * caller's. */
typedef struct {
    tc_jpeg_decoder decoder;
    tc_jpeg_encoder encoder;
    tc_slot slot;
    /* the image in flight */
    int busy, timed, status;
    tc_msg why;         /* status's reason, told at the finish */
    tc_image img;       /* its samples' view (the slot keeps a pointer to it) */
    tc_job job;
    tc_run_stats total; /* the filter's figures */
    tc_jpeg_times times;
    const jpeg_coefs *in; /* its coefficients (NULL: from pixels) */
    jpeg_coefs *out;
} tc_jpeg_flight;

/* Images a context keeps in flight: one enqueued while the one before runs, so that the
 * device's queues never wait for the host between images (each image waits once, at its
 * finish). */
#define TC_JPEG_FLIGHTS 2

/* The flights and the filter's prepared launches (tc_launch_preparable jobs), which all of
 * them use (a launch's plane arguments are set as each image is enqueued). Zeroed: nothing
 * made yet. */
typedef struct tc_jpeg_filter_state {
    tc_jpeg_flight flights[TC_JPEG_FLIGHTS];
    tc_launch_cache launches;
    cl_mem samples; /* tc_jpeg_filter_decode's */
    size_t samples_size;
} tc_jpeg_filter_state;

/* Everything st holds; safe on a zeroed one. */
void tc_jpeg_filter_release(tc_jpeg_filter_state *st);

/* Filters the JPEG in (whose components the kernels take: 1, or 3 for channels 3), or with
 * in NULL the pixels (8-bit gray for channels 1, RGB for 3, packed rows: uploaded as they
 * are, *exact then always 1), by job
 * (built for in->width x in->height) into out's coefficients (laid out by jpeg_coefs_layout
 * for the same size and channels), the output samples v * scale + offset inside the job's
 * target ROI, as pack_samples makes them. channels: 1 (the first component's plane, a gray
 * job) or 3 (RGB). The device must have doubles (pack_samples takes them). Returns TC_OK with
 * *exact 1 and out filled, and *stats the filter's figures (tc_run_stats_free after); TC_OK
 * with *exact 0 where the device's decode is not TurboJPEG's (tc_jpeg_decode), out's values
 * then meaningless and *stats untouched: the file is to be decoded on the CPU; or the failure
 * with its reason in m. out must have its block (jpeg_coefs_alloc): the device writes there.
 * convert_ms (NULL: untimed, no events) gets the decode's, conversions' and encode's kernel
 * times, and stats' h2d_ms and d2h_ms the coefficients' transfers. */
int tc_jpeg_filter_run(tc_jpeg_filter_state *st, const tc_device *d, tc_program_cache *programs,
                       tc_buffers *buffers, const tc_job *job, double scale, double offset,
                       const jpeg_coefs *in, const tc_image *pixels, int channels,
                       jpeg_coefs *out, int *exact, tc_run_stats *stats, double *convert_ms,
                       tc_msg *m);

/* tc_jpeg_filter_run in two halves: the image enqueued on a free flight (*flight its number;
 * TC_EINVAL where every flight is busy), returning at once; in, pixels and out must stay as
 * they are until its finish. timed: events kept for its figures. A failure while enqueueing is
 * kept and told by the finish (after its wait), which then returns it. */
int tc_jpeg_filter_start(tc_jpeg_filter_state *st, const tc_device *d,
                         tc_program_cache *programs, tc_buffers *buffers, const tc_job *job,
                         double scale, double offset, const jpeg_coefs *in,
                         const tc_image *pixels, int channels, jpeg_coefs *out, int timed,
                         int *flight, tc_msg *m);

/* Waits for the flight's image and gives what tc_jpeg_filter_run gives (convert_ms only where
 * it was started timed; NULL: not wanted); the flight is free again. */
int tc_jpeg_filter_finish(tc_jpeg_filter_state *st, const tc_device *d,
                          tc_program_cache *programs, int flight, int *exact,
                          tc_run_stats *stats, double *convert_ms, tc_msg *m);

/* The JPEG in decoded on the device alone (the decode of tc_jpeg_filter_run), its samples
 * read back into out (width x height x channels bytes, rows packed): for comparing with
 * TurboJPEG's. TC_OK with *exact as tc_jpeg_decode gives it (0: out is not TurboJPEG's by
 * design, for this file, or the samples are more than one device buffer holds), or the
 * failure with its reason in m. No flight may be in the air. */
int tc_jpeg_filter_decode(tc_jpeg_filter_state *st, const tc_device *d,
                          tc_program_cache *programs, const jpeg_coefs *in, int channels,
                          unsigned char *out, int *exact, tc_msg *m);

#endif
