/*
 * gradient.c - tiledconv.h's gradient calls: each checks its arguments and runs the gradient
 * on the context's device (gradient_launch.c), leaving the figures for tc_last_stats; the CPU
 * reference (tc_reference with the operator's two filters, then the magnitude) and the
 * tolerance.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "gradient_launch.h"
#include "params.h"

TC_API const char *tc_gradient_operator_name(tc_gradient_operator op)
{
    return op == TC_GRADIENT_SOBEL ? "sobel" : op == TC_GRADIENT_SCHARR ? "scharr" : "?";
}

TC_API const char *tc_gradient_method_name(tc_gradient_method method)
{
    return method == TC_GRADIENT_ONE_READ   ? "one-read"
           : method == TC_GRADIENT_SEPARATE ? "separate"
                                            : "?";
}

/* ---- Arguments ------------------------------------------------------------------------- */

/* The checks every gradient call makes, and its job (the ROIs resolved, the border). */
static int check_args(const tc_params *p, int width, int height, tc_gradient_operator op,
                      tc_job *job, tc_msg *m)
{
    float k[2][3];
    tc_params q;
    if (!p)
        return tc_fail(m, TC_EINVAL, "params is NULL");
    if ((int)op < 0 || op > TC_GRADIENT_SCHARR)
        return tc_fail(m, TC_EINVAL, "operator %d: not a tc_gradient_operator value (sobel, "
                                     "scharr)",
                       (int)op);
    /* The one read is a pass over a buffer (Gradient.cl has no image path): a request for
     * image storage is refused rather than quietly served from a buffer. */
    if (p->storage == TC_STORAGE_IMAGE)
        return tc_fail(m, TC_EINVAL, "storage image: the gradient reads the plane from a buffer "
                                     "(image storage is for tc_filter's tiled and onepass)");
    tc_gradient_axis_params(p, op, 0, k, &q);
    return tc_job_from_params(&q, width, height, job, m);
}

/* The outputs: magnitude required, gx and gy optional, none the same array. */
static int check_outputs(const float *src, const float *gx, const float *gy,
                         const float *magnitude, tc_msg *m)
{
    if (!src || !magnitude)
        return tc_fail(m, TC_EINVAL, "%s is NULL", src ? "magnitude" : "src");
    if (gx == magnitude || gy == magnitude || (gx && gx == gy))
        return tc_fail(m, TC_EINVAL, "gx, gy and magnitude must be distinct arrays (or gx, gy "
                                     "NULL)");
    return TC_OK;
}

/* tc_gradient and tc_gradient_timed. */
static int gradient(tc_context *ctx, const float *src, float *gx, float *gy, float *magnitude,
                    int width, int height, tc_gradient_operator op, tc_gradient_method method,
                    const tc_params *p, int warmup, int iterations)
{
    tc_job job;
    tc_run_stats st;
    int status;
    if (!ctx)
        return TC_EINVAL;
    tc_msg *m = &ctx->error;
    m->text[0] = '\0';
    if ((status = check_outputs(src, gx, gy, magnitude, m)) != TC_OK)
        return status;
    if ((int)method < 0 || method > TC_GRADIENT_SEPARATE)
        return tc_fail(m, TC_EINVAL, "method %d: not a tc_gradient_method value (one-read, "
                                     "separate)",
                       (int)method);
    if (iterations < 1 || iterations > TC_MAX_ITERATIONS)
        return tc_fail(m, TC_EINVAL, "iterations %d: must be 1..%d", iterations,
                       TC_MAX_ITERATIONS);
    if ((status = check_args(p, width, height, op, &job, m)) != TC_OK)
        return status;
    const tc_gradient_parts parts = {&ctx->device, &ctx->programs, &ctx->buffers,
                                     &ctx->gradient};
    status = tc_gradient_run(&parts, &job, p, op, method, src, gx, gy, magnitude, width, height,
                             warmup, iterations, &st, m);
    if (status == TC_OK)
        tc_context_remember(ctx, &st, &job, 1, 0.0);
    return status;
}

TC_API int tc_gradient(tc_context *ctx, const float *src, float *gx, float *gy,
                       float *magnitude, int width, int height, tc_gradient_operator op,
                       tc_gradient_method method, const tc_params *p)
{
    return gradient(ctx, src, gx, gy, magnitude, width, height, op, method, p, 0, 1);
}

TC_API int tc_gradient_timed(tc_context *ctx, const float *src, float *gx, float *gy,
                             float *magnitude, int width, int height, tc_gradient_operator op,
                             tc_gradient_method method, const tc_params *p, int iterations)
{
    return gradient(ctx, src, gx, gy, magnitude, width, height, op, method, p, 1, iterations);
}

/* ---- The CPU reference and the tolerance -------------------------------------------------- */

TC_API int tc_gradient_reference(const float *src, float *gx, float *gy, float *magnitude,
                                 int width, int height, tc_gradient_operator op,
                                 const tc_params *p, char *err, size_t err_size)
{
    tc_msg msg = {""};
    tc_job job;
    float *copy = NULL, *planes = NULL;
    int status;
    if ((status = check_outputs(src, gx, gy, magnitude, &msg)) != TC_OK ||
        (status = check_args(p, width, height, op, &job, &msg)) != TC_OK)
        goto done;
    const size_t n = (size_t)width * (size_t)height;
    /* The input stays readable whatever the outputs overwrite: a copy when it is one of them.
     * gx and gy are computed into planes of their own when not asked for. */
    const int aliased = src == gx || src == gy || src == magnitude;
    if ((aliased && !(copy = malloc(n * sizeof *copy))) ||
        (!(gx && gy) && !(planes = malloc(2 * n * sizeof *planes)))) {
        status = tc_fail(&msg, TC_ENOMEM, "out of host memory for the reference's planes");
        goto done;
    }
    if (copy) {
        memcpy(copy, src, n * sizeof *copy);
        src = copy;
    }
    float *ref[2] = {gx ? gx : planes, gy ? gy : planes + n};
    for (int a = 0; a < 2; a++) {
        float k[2][3];
        tc_params q;
        tc_gradient_axis_params(p, op, a == 0 ? 'x' : 'y', k, &q);
        if ((status = tc_reference(src, ref[a], width, height, &q, msg.text, sizeof msg.text)) !=
            TC_OK)
            goto done;
    }
    /* Outside the target ROI the input; inside, the magnitude of the two, in double. */
    memcpy(magnitude, src, n * sizeof *magnitude);
    for (int y = 0; y < job.roi.height; y++)
        for (int x = 0; x < job.roi.width; x++) {
            const size_t i = (size_t)(job.roi.dst_top + y) * (size_t)width +
                             (size_t)(job.roi.dst_left + x);
            const double a = ref[0][i], b = ref[1][i];
            magnitude[i] = (float)sqrt(a * a + b * b);
        }
done:
    free(copy);
    free(planes);
    if (status != TC_OK && err && err_size)
        snprintf(err, err_size, "%s", msg.text);
    return status;
}

TC_API double tc_gradient_tolerance(const float *src, int width, int height,
                                    tc_gradient_operator op, const tc_params *p,
                                    double *component)
{
    tc_job job;
    if (!src || check_args(p, width, height, op, &job, NULL) != TC_OK)
        return -1.0;
    double max_in = p->border == TC_BORDER_CONSTANT ? fabs(p->border_value) : 0.0;
    for (size_t i = 0; i < (size_t)width * (size_t)height; i++)
        if (fabs(src[i]) > max_in)
            max_in = fabs(src[i]);
    const float *s = tc_gradient_smoothing(op);
    const double gain = 2.0 * (fabs(s[0]) + fabs(s[1]) + fabs(s[2])); /* sum|d| sum|s| */
    /* Each component: tc_tolerance's bound for a 3-tap separable filter, 2 (2 taps) eps M G. */
    double tol_g = 12.0 * FLT_EPSILON * max_in * gain;
    /* |hypot(a', b') - hypot(a, b)| <= hypot(a' - a, b' - b) <= sqrt(2) tol_g; then the
     * device's own rounding of sqrt(fma(a, a, b * b)): the sum of squares within 2 roundings
     * (at most 1 ulp of the result after the square root), OpenCL's sqrt within 3 ulp, of at
     * most sqrt(2) M G; 8 ulp for room (and the reference's rounding to float). */
    double tol_m = sqrt(2.0) * tol_g + 8.0 * FLT_EPSILON * sqrt(2.0) * max_in * gain;
    if (!(tol_g > 0.0))
        tol_g = FLT_MIN;
    if (!(tol_m > 0.0))
        tol_m = FLT_MIN;
    if (component)
        *component = tol_g;
    return tol_m;
}
