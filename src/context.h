/*
 * context.h - what a tc_context holds (private to the library): the device, the programs built
 * on it, the buffers each kind of call keeps between calls, the figures of the last successful
 * run, and why the last call failed. context.c makes and releases it and runs the filters;
 * gradient.c and pyramid.c run their calls on it.
 */
#ifndef TILEDCONV_CONTEXT_H
#define TILEDCONV_CONTEXT_H

#include "copier.h"
#include "deferred_figures.h"
#include "device.h"
#include "gradient_launch.h"
#include "host_blocks.h"
#include "launch.h"
#include "pixels.h"
#include "programs.h"
#include "pyramid_launch.h"
#include "status.h"
#include "stream.h"
#include "tiledconv.h"

struct tc_context {
    tc_device device;
    tc_program_cache programs;
    tc_buffers buffers;
    tc_gradient_buffers gradient; /* gx, gy and the rest of tc_gradient's */
    tc_run_stats last; /* the last successful run's figures (arrays owned here) */
    tc_job last_job;
    int last_planes;
    double last_convert_ms;
    int have_last;
    /* later[0]: the last run's times not read yet (deferred_figures.h), part of its figures;
     * later[1]: the running call's, which become later[0] if it succeeds. Apart from the
     * context (allocated with it), so that tc_last_stats on a const context can read them. */
    tc_deferred *later;
    tc_pyramid_buffers pyramid_buffers;
    tc_pyramid_run_stats pyramid_last; /* the last successful pyramid's figures */
    tc_pyramid_launch pyramid_last_launch;
    int have_pyramid;
    tc_stream *stream; /* the channel-last layouts' pipeline, made on first use */
    tc_copier *copier; /* the threads of the host's staging copies, started on first use */
    struct tc_jpeg_filter_state *jpeg; /* tc_filter_jpeg's decoder and slot (jpeg_filter.h),
                                        * made on first use */
    tc_host_blocks host; /* tc_host_alloc's blocks */
    tc_direct_counts direct; /* transfers that went straight from and to those blocks */
    tc_msg error;
    unsigned long long max_memory; /* tc_set_max_memory's budget; 0: the host's room now */
    int untimed; /* tc_set_timing(ctx, 0): the pipeline's conversions and kernels untimed */
};

/* A successful run's figures become tc_last_stats' (the context takes stats' arrays): planes
 * filtered per image, and the host's conversion time; the run before's unread times
 * (later[0]) are dropped. */
void tc_context_remember(tc_context *ctx, tc_run_stats *stats, const tc_job *job, int planes,
                         double convert_ms);

/* The smallest and the mean of n values (n >= 1), for the figures of the last run. */
void tc_min_mean(const double *v, int n, double *min, double *mean);

#endif
