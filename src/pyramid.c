/*
 * pyramid.c - tiledconv.h's Gaussian scale space (tc_pyramid and its companions): each call
 * checks its arguments, makes the plan (pyramid_plan.c) and runs it on the context's device
 * (pyramid_launch.c) or on the host.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "pyramid_launch.h"
#include "tiledconv.h"

TC_API const char *tc_pyramid_launch_name(tc_pyramid_launch l)
{
    return l == TC_PYRAMID_PER_OCTAVE ? "per-octave" : l == TC_PYRAMID_PER_LEVEL ? "per-level"
                                                                                 : "?";
}

TC_API void tc_pyramid_params_init(tc_pyramid_params *p)
{
    if (!p)
        return;
    memset(p, 0, sizeof *p);
    p->octaves = TC_PYRAMID_DEFAULT_OCTAVES;
    p->levels = TC_PYRAMID_DEFAULT_LEVELS;
    p->sigma = TC_PYRAMID_DEFAULT_SIGMA;
    p->border = TC_BORDER_REPLICATE;
    p->launch = TC_PYRAMID_PER_OCTAVE;
}

/* The plan, with a message in m on failure; plan is large (16 octaves of 9 Gaussians). */
static int pyramid_plan(int width, int height, const tc_pyramid_params *p,
                        tc_pyramid_plan **plan, tc_msg *m)
{
    *plan = malloc(sizeof **plan);
    if (!*plan)
        return tc_fail(m, TC_ENOMEM, "out of host memory for a pyramid's plan");
    const int status = tc_pyramid_plan_make(width, height, p, *plan, m);
    if (status != TC_OK) {
        free(*plan);
        *plan = NULL;
    }
    return status;
}

TC_API int tc_pyramid_layout(int width, int height, const tc_pyramid_params *p,
                             tc_pyramid_level *levels, int capacity, int *count, char *err,
                             size_t err_size)
{
    tc_msg m = {""};
    tc_pyramid_plan *plan = NULL;
    int status = !count || capacity < 0 || (capacity > 0 && !levels)
                     ? tc_fail(&m, TC_EINVAL, "tc_pyramid_layout: count is NULL or levels too "
                                              "small")
                     : pyramid_plan(width, height, p, &plan, &m);
    if (status == TC_OK) {
        *count = plan->octaves * plan->levels;
        for (int i = 0; i < *count && i < capacity; i++)
            tc_pyramid_plan_level(plan, i / plan->levels, i % plan->levels, &levels[i]);
    }
    free(plan);
    if (status != TC_OK && err && err_size)
        snprintf(err, err_size, "%s", m.text);
    return status;
}

/* The O x L level pointers are all there. */
static int check_levels(float *const *levels, int count, tc_msg *m)
{
    if (!levels)
        return tc_fail(m, TC_EINVAL, "levels is NULL");
    for (int i = 0; i < count; i++)
        if (!levels[i])
            return tc_fail(m, TC_EINVAL, "levels[%d] is NULL", i);
    return TC_OK;
}

static int pyramid(tc_context *ctx, const float *src, int width, int height,
                   const tc_pyramid_params *p, float *const *levels, int warmup, int iterations)
{
    tc_pyramid_plan *plan = NULL;
    tc_pyramid_run_stats stats;
    int status;
    if (!ctx)
        return TC_EINVAL;
    ctx->error.text[0] = '\0';
    if (!src)
        return tc_fail(&ctx->error, TC_EINVAL, "src is NULL");
    if (iterations < 1 || iterations > TC_MAX_ITERATIONS)
        return tc_fail(&ctx->error, TC_EINVAL, "iterations %d: must be 1..%d", iterations,
                       TC_MAX_ITERATIONS);
    if ((status = pyramid_plan(width, height, p, &plan, &ctx->error)) != TC_OK)
        return status;
    if ((status = check_levels(levels, plan->octaves * plan->levels, &ctx->error)) == TC_OK &&
        (status = tc_pyramid_run(&ctx->device, &ctx->programs, &ctx->pyramid_buffers, plan, src,
                                 levels, warmup, iterations, &stats, &ctx->error)) == TC_OK) {
        tc_pyramid_run_stats_free(&ctx->pyramid_last);
        ctx->pyramid_last = stats;
        ctx->pyramid_last_launch = plan->launch;
        ctx->have_pyramid = 1;
    }
    free(plan);
    return status;
}

TC_API int tc_pyramid(tc_context *ctx, const float *src, int width, int height,
                      const tc_pyramid_params *p, float *const *levels)
{
    return pyramid(ctx, src, width, height, p, levels, 0, 1);
}

TC_API int tc_pyramid_timed(tc_context *ctx, const float *src, int width, int height,
                            const tc_pyramid_params *p, float *const *levels, int iterations)
{
    return pyramid(ctx, src, width, height, p, levels, 1, iterations);
}

TC_API int tc_pyramid_last_stats(const tc_context *ctx, tc_pyramid_stats *s)
{
    if (!ctx || !s)
        return TC_EINVAL;
    memset(s, 0, sizeof *s);
    if (!ctx->have_pyramid)
        return TC_EINVAL;
    const tc_pyramid_run_stats *r = &ctx->pyramid_last;
    *s = (tc_pyramid_stats){.launch = ctx->pyramid_last_launch,
                            .iterations = r->iterations,
                            .kernel_ms_median = tc_median(r->kernel_ms, r->iterations),
                            .kernel_ms = r->kernel_ms,
                            .launches = r->launches,
                            .bytes = r->bytes,
                            .build_ms = r->build_ms,
                            .upload_ms = r->upload_ms,
                            .download_ms = r->download_ms,
                            .wall_ms_per_iteration = r->wall_ms_per_iteration};
    tc_min_mean(r->kernel_ms, r->iterations, &s->kernel_ms_min, &s->kernel_ms_mean);
    return TC_OK;
}

TC_API int tc_pyramid_reference(const float *src, int width, int height,
                                const tc_pyramid_params *p, float *const *levels, char *err,
                                size_t err_size)
{
    tc_msg m = {""};
    tc_pyramid_plan *plan = NULL;
    int status = !src ? tc_fail(&m, TC_EINVAL, "src is NULL")
                      : pyramid_plan(width, height, p, &plan, &m);
    if (status == TC_OK &&
        (status = check_levels(levels, plan->octaves * plan->levels, &m)) == TC_OK)
        status = tc_pyramid_plan_reference(plan, src, levels, &m);
    free(plan);
    if (status != TC_OK && err && err_size)
        snprintf(err, err_size, "%s", m.text);
    return status;
}

TC_API int tc_pyramid_tolerance(const float *src, int width, int height,
                                const tc_pyramid_params *p, double *tolerance)
{
    tc_pyramid_plan *plan = NULL;
    if (!src || !tolerance || pyramid_plan(width, height, p, &plan, NULL) != TC_OK)
        return TC_EINVAL;
    tc_pyramid_plan_tolerance(plan, src, tolerance);
    free(plan);
    return TC_OK;
}
