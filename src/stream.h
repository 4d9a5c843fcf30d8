/*
 * stream.h - whole images through the device in a pipeline: each image's samples go up through
 * pinned staging memory, Channels.cl turns them into one float plane a channel (channels.h's
 * layouts), or Pixels.cl into the intensity or R, G, B planes (the older layouts' bytes,
 * pixels.h), the filter runs on every plane, and the output samples come down through pinned
 * memory again. Three slots, each with its own in-order queue, device buffers and pinned
 * memory, hold three images in flight, so that one image's upload, another's kernels and a
 * third's download overlap on the device, while the host copies the next image into pinned
 * memory. Within one image, the copies between the caller's memory and the pinned memory go
 * chunk by chunk, each overlapping the transfer of the chunk before. Rows that lie in the
 * context's own page-locked blocks (tc_host_alloc) skip that memory and those copies: the
 * device reads them, or writes them, where they are.
 *
 * What a slot keeps (buffers, pinned memory, kernels) and the filters' prepared launches are
 * kept between calls: a second call of the same sizes allocates, builds and uploads nothing
 * but the samples, and waits only for its own result.
 */
#ifndef TILEDCONV_STREAM_H
#define TILEDCONV_STREAM_H

#include "copier.h"
#include "deferred_figures.h"
#include "host_blocks.h"
#include "launch.h"
#include "pixels.h"
#include "tiledconv_internal.h"

typedef struct tc_stream tc_stream;

/* The context's page-locked blocks (tc_host_alloc): an image whose packed rows lie in one
 * moves straight between it and the device, counted in *counts; and where the run's
 * profiling times go: read at once into the run's figures (later NULL), or their events kept
 * in *later for whoever asks (deferred_figures.h); timed: whether the conversions and the
 * one-pass kernels get profiling events at all (tc_set_timing). */
typedef struct {
    tc_host_blocks *blocks;
    tc_direct_counts *counts;
    tc_deferred *later;
    int timed;
    const int *names; /* image i's number in a failure's "images[N]: " (NULL: i itself) */
} tc_stream_host;

/* What a stream's run reports: the filter's figures (iterations 1, the kernel times of every
 * plane of every image summed, the transfers' spans summed, build time, the first image's
 * launch and classes), the conversions' kernel time, the first image's planes (its channels,
 * or the older layouts' 1 or 3), and the last image's job
 * (for tc_last_stats's ROI). */
typedef struct {
    tc_run_stats run;
    double convert_ms;
    int planes;
    tc_job job;
} tc_stream_stats;

/* Filters src[i] into dst[i], i < count: pairs already checked (tc_image_check and
 * tc_channels_check_pair), or, where pixels (not NULL) has pixels[i].src, the raw views
 * (tc_pixels_raw) of the checked pair pixels[i] of the older layouts, which Pixels.cl
 * converts (given only where the device converts them: tc_pixels_device_converts; their gaps
 * between rows are the caller's to zero, tc_channels_zero_gaps). jobs[i] is image i's job,
 * built once by the caller (consecutive images of one size share one: the stream builds none;
 * p gives the output's scale, offset and convert_on_host). On a device with double
 * precision (and unless p->convert_on_host) through the pipeline; otherwise one image after
 * another with the conversions on the host. *stream is made on first use (tc_stream_release
 * frees it). TC_OK with *stats filled (tc_run_stats_free(&stats->run) after), or the failure
 * with its reason in m, prefixed with "images[i]: " when count > 1. The host's copies run on
 * *crew (copier.h; started on first use, released by the caller), but for the rows that lie
 * in host's blocks (unless the tuning's host_staged). */
int tc_stream_filter(tc_stream **stream, const tc_device *d, tc_program_cache *programs,
                     tc_buffers *buffers, tc_copier **crew, const tc_stream_host *host,
                     const tc_params *p, const tc_job *const *jobs, const tc_image *src,
                     const tc_image *dst, const tc_pixel_pair *pixels, int count,
                     tc_stream_stats *stats, tc_msg *m);

void tc_stream_release(tc_stream *stream);

#endif
