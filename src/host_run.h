/*
 * host_run.h - the host's way of filtering one image of pixels, for every layout: each channel
 * formed into a float plane on the host, filtered by tc_run, and the planes mapped back into
 * the destination's samples on the host. The older layouts (pixels.c) and the channel-last
 * ones (stream.c) differ only in their two conversions. Taken where the device cannot make the
 * host's values (no double precision), for float sources, and when asked (convert_on_host).
 */
#ifndef TILEDCONV_HOST_RUN_H
#define TILEDCONV_HOST_RUN_H

#include "launch.h"

/* A layout's conversions: channel c of src (one of planes) into the plane p of src's size, and
 * count filtered planes into dst's samples (inside the target ROI mapped with scale and
 * offset). */
typedef struct {
    void (*to_plane)(const tc_image *src, int c, int planes, tc_plane *p);
    void (*from_planes)(const tc_plane *planes, int count, const tc_roi *roi, double scale,
                        double offset, const tc_image *dst);
} tc_host_conversions;

/* Filters the planes channels of src into dst the host's way (src and dst of one size, at
 * most TC_MAX_CHANNELS planes). *stats: the first plane's run, the later planes' added to it
 * (tc_run_stats_add); freed on a failure. TC_OK, or the failing call's status with m set. */
int tc_run_on_host(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
                   const tc_job *job, const tc_host_conversions *conv, const tc_image *src,
                   const tc_image *dst, int planes, double scale, double offset,
                   tc_run_stats *stats, tc_msg *m);

#endif
