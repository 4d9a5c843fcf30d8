/*
 * gradient_launch.h - the one-read gradient behind tiledconv.h's tc_gradient on a device (the
 * kernels in src/Gradient.cl): the buffers a context keeps for it, the operators' filters, and
 * one run.
 */
#ifndef TILEDCONV_GRADIENT_LAUNCH_H
#define TILEDCONV_GRADIENT_LAUNCH_H

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

/* p with the fields the gradient does not use set to what the tiled kernel needs at 3 taps:
 * the caller's ROIs, border, float4 choice and class counting kept. With axis 'x' or 'y' the
 * operator's filter for that derivative (q's kx, ky pointing into k), else the binomial. */
void tc_gradient_axis_params(const tc_params *p, tc_gradient_operator op, char axis,
                             float k[2][3], tc_params *q);

/* The operator's smoothing [A B A] (the derivative is [-1 0 1] for both). */
const float *tc_gradient_smoothing(tc_gradient_operator op);

/* The parts of a context a gradient run uses. */
typedef struct {
    const tc_device *device;
    tc_program_cache *programs;
    tc_buffers *buffers;
    tc_gradient_buffers *gradient;
} tc_gradient_parts;

/* One checked gradient call on the device: job is the operator's (3 taps, the ROIs resolved),
 * p the caller's parameters (the separate method filters with each axis's), gx and gy may be
 * NULL. `warmup` untimed runs (0 or 1), then `iterations` timed ones. TC_OK with *st filled
 * (the caller frees or keeps its arrays), or the failure with its reason in m and *st empty. */
int tc_gradient_run(const tc_gradient_parts *c, const tc_job *job, const tc_params *p,
                    tc_gradient_operator op, tc_gradient_method method, const float *src,
                    float *gx, float *gy, float *magnitude, int width, int height, int warmup,
                    int iterations, tc_run_stats *st, tc_msg *m);

#endif
