/*
 * pyramid_launch.h - a Gaussian scale space's plan (pyramid_plan.h) run on a device: the
 * buffers a context keeps for it, the figures of a run, and the run itself (Pyramid.cl's one
 * launch per octave, or one launch per level with the plain filter's kernels).
 */
#ifndef TILEDCONV_PYRAMID_LAUNCH_H
#define TILEDCONV_PYRAMID_LAUNCH_H

#include "device.h"
#include "programs.h"
#include "pyramid_plan.h"

/* The device buffers a context keeps for the pyramid, reused while the sizes stay. */
typedef struct {
    int width, height, octaves, levels;        /* what they were made for (0: nothing yet) */
    cl_mem input;                              /* octave 0's base, the input plane */
    cl_mem level[TC_PYRAMID_MAX_OCTAVES][TC_PYRAMID_MAX_LEVELS];
    cl_mem feed;                               /* the per-level path's full-size feed image */
    cl_mem coeffs[TC_PYRAMID_MAX_OCTAVES];     /* the per-octave kernel's Gaussians */
    float *staging;                            /* a plane with the device's row pitch */
    size_t staging_bytes;
} tc_pyramid_buffers;

void tc_pyramid_buffers_release(tc_pyramid_buffers *b);

typedef struct {
    int iterations;
    double *kernel_ms;    /* per timed pyramid, every launch summed */
    int launches;
    double bytes;
    double build_ms, upload_ms, download_ms, wall_ms_per_iteration;
} tc_pyramid_run_stats;

void tc_pyramid_run_stats_free(tc_pyramid_run_stats *s);

/* Runs the plan on src (width x height, packed) into levels (K * L + j): `warmup` untimed
 * pyramids (0 or 1), then `iterations` timed ones, the launch style the plan's. */
int tc_pyramid_run(const tc_device *d, tc_program_cache *programs, tc_pyramid_buffers *b,
                   const tc_pyramid_plan *plan, const float *src, float *const *levels,
                   int warmup, int iterations, tc_pyramid_run_stats *stats, tc_msg *m);

#endif
