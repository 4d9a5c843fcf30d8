/*
 * gradient.h - the one-read gradient behind tiledconv.h's tc_gradient (src/gradient.c, the
 * kernels in src/Gradient.cl): the device buffers a context keeps for it, and the few parts of
 * a context it uses, which context.c lends it.
 */
#ifndef TILEDCONV_GRADIENT_H
#define TILEDCONV_GRADIENT_H

#include "launch.h"

/* The planes a gradient needs besides the context's input and output planes (tc_buffers' src
 * and dst, which hold the input and the magnitude): gx and gy, kept between runs and grown
 * when an image needs more; the class counters; the host copy of a plane with padded rows. */
typedef struct {
    cl_mem gx, gy, counts;
    size_t gx_bytes, gy_bytes;
    float *staging;
    size_t staging_bytes;
} tc_gradient_buffers;

void tc_gradient_buffers_release(tc_gradient_buffers *b);

/* ---- context.c, for gradient.c ---------------------------------------------------------- */

typedef struct {
    const tc_device *device;
    tc_program_cache *programs;
    tc_buffers *buffers;
    tc_gradient_buffers *gradient;
    tc_msg *error;
} tc_context_parts;

void tc_context_parts_of(tc_context *ctx, tc_context_parts *parts);

/* tc_params checked against a width x height image and turned into a job (tc_filter's own
 * checks and messages). */
int tc_context_job(const tc_params *p, int width, int height, tc_job *job, tc_msg *m);

/* A successful run's figures become tc_last_stats' (the context takes stats' arrays). */
void tc_context_remember(tc_context *ctx, tc_run_stats *stats, const tc_job *job);

#endif
