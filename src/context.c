/*
 * context.c - the public API of tiledconv.h: a context holds a device, the programs built on
 * it and the buffers of the last run; each call checks its arguments, turns tc_params into a
 * job the launchers run, and records why it failed.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bands.h"
#include "bilinear.h"
#include "channels.h"
#include "copier.h"
#include "device.h"
#include "filter.h"
#include "gradient.h"
#include "image.h"
#include "launch.h"
#include "pixels.h"
#include "programs.h"
#include "pyramid.h"
#include "reference.h"
#include "storage.h"
#include "stream.h"
#include "tiledconv.h"

struct tc_context {
    tc_device device;
    tc_program_cache programs;
    tc_buffers buffers;
    tc_pixel_buffers pixel_buffers;
    tc_gradient_buffers gradient; /* gx, gy and the rest of tc_gradient's (gradient.c) */
    tc_run_stats last; /* the last successful run's figures (arrays owned here) */
    tc_job last_job;
    int last_planes;
    double last_convert_ms;
    int have_last;
    tc_pyramid_buffers pyramid_buffers;
    tc_pyramid_run_stats pyramid_last; /* the last successful pyramid's figures */
    tc_pyramid_launch pyramid_last_launch;
    int have_pyramid;
    tc_stream *stream; /* the channel-last layouts' pipeline, made on first use */
    tc_copier *copier; /* the threads of the host's staging copies, started on first use */
    tc_msg error;
    unsigned long long max_memory; /* tc_set_max_memory's budget; 0: the host's room now */
};

/* The C API's names for the ROI fields, for messages. */
static const tc_roi_names param_names = {"src_left", "src_top",   "dst_left",
                                         "dst_top",  "roi_width", "roi_height"};

TC_API const char *tc_version(void)
{
    return "1.3.0";
}

TC_API void tc_params_init(tc_params *p)
{
    if (!p)
        return;
    memset(p, 0, sizeof *p);
    p->taps_x = p->taps_y = 3;
    p->border = TC_BORDER_REPLICATE;
    p->algorithm = TC_TILED;
    p->block_width = 4;
    p->block_height = 4;
    p->vector_io = 1;
    p->out_scale = 1.0;
    p->out_offset = 0.0;
}

TC_API size_t tc_abi_size(const char *type_name)
{
    static const struct {
        const char *name;
        size_t size;
    } sizes[] = {{"tc_params", sizeof(tc_params)},
                 {"tc_stats", sizeof(tc_stats)},
                 {"tc_image", sizeof(tc_image)},
                 {"tc_device_info", sizeof(tc_device_info)},
                 {"tc_pyramid_params", sizeof(tc_pyramid_params)},
                 {"tc_pyramid_level", sizeof(tc_pyramid_level)},
                 {"tc_pyramid_stats", sizeof(tc_pyramid_stats)}};
    for (size_t i = 0; type_name && i < sizeof sizes / sizeof sizes[0]; i++)
        if (strcmp(type_name, sizes[i].name) == 0)
            return sizes[i].size;
    return 0;
}

/* One axis's coefficients: the given ones, checked, or the binomial of that length. */
static int set_coefficients(const char *name, const float *given, int taps, const float *binomial,
                            float *k, tc_msg *m)
{
    for (int i = 0; i < TC_MAX_TAPS; i++)
        k[i] = i < taps ? (given ? given[i] : binomial[i]) : 0.0f;
    for (int i = 0; given && i < taps; i++)
        if (!isfinite(k[i]))
            return tc_fail(m, TC_EINVAL, "%s[%d] is not a finite number", name, i);
    return TC_OK;
}

static int check_taps(const char *name, int taps, tc_msg *m)
{
    if (!tc_axis_taps_valid(taps))
        return tc_fail(m, TC_EINVAL,
                       "%s %d: the filter length must be odd, %d..%d (1: that axis unfiltered)",
                       name, taps, 1, TC_MAX_TAPS);
    return TC_OK;
}

/* Sums that cannot leave float32 on 8-bit input (0..255) or the constant border: a filter that
 * could overflow would give infinities, and then NaN, without a word (filter.h). */
static int check_range(const tc_filter_spec *f, tc_msg *m)
{
    double reach = 0.0;
    const char *what = f->mask_width ? "mask" : "kx and ky";
    const char *gain = f->mask_width ? "sum|mask|" : "sum|kx| x sum|ky|";
    if (tc_filter_check(f, 255.0, NULL, &reach) != TC_FILTER_OVERFLOW)
        return TC_OK;
    if (f->border == TC_BORDER_CONSTANT && fabs(f->border_value) > 255.0f)
        return tc_fail(m, TC_EINVAL,
                       "%s with border_value %g: a sum could reach %s x |border_value| = %.3g, "
                       "past float32's largest value (%.3g); scale the coefficients or the "
                       "border value down",
                       what, (double)f->border_value, gain, reach, (double)FLT_MAX);
    return tc_fail(m, TC_EINVAL,
                   "%s: on inputs up to 255 a sum could reach %s x 255 = %.3g, past float32's "
                   "largest value (%.3g); scale the coefficients down",
                   what, gain, reach, (double)FLT_MAX);
}

/* p's mask, checked and set into f (factored when it is rank 1). */
static int mask_from_params(const tc_params *p, tc_filter_spec *f, tc_msg *m)
{
    const int w = p->mask_width, h = p->mask_height;
    if (!tc_mask_size_valid(w, h))
        return tc_fail(m, TC_EINVAL,
                       "mask_width %d, mask_height %d: each must be odd, 1..%d, and not both 1 "
                       "(a 1 x 1 mask only scales)",
                       w, h, TC_MAX_MASK_SIZE);
    for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++)
            if (!isfinite(p->mask[j * w + i]))
                return tc_fail(m, TC_EINVAL, "mask[%d][%d] (row %d, column %d) is not a finite "
                                             "number",
                               j, i, j, i);
    tc_filter_set_mask(f, p->mask, w, h);
    return TC_OK;
}

/* The filter of p: lengths, coefficients or mask, and border rule, checked. */
static int filter_from_params(const tc_params *p, tc_filter_spec *f, tc_msg *m)
{
    int status;
    if ((int)p->border < 0 || p->border >= TC_BORDER_COUNT)
        return tc_fail(m, TC_EINVAL, "border %d: not a tc_border value", (int)p->border);
    if (!isfinite(p->border_value))
        return tc_fail(m, TC_EINVAL, "border_value is not a finite number");
    if (p->mask) {
        /* taps_x, taps_y, kx and ky are not used with a mask: tc_params_init's 3 taps need
         * not be changed to the mask's size. */
        if ((status = mask_from_params(p, f, m)) != TC_OK)
            return status;
    } else if (p->mask_width || p->mask_height) {
        return tc_fail(m, TC_EINVAL, "mask_width %d, mask_height %d: set, but mask is NULL",
                       p->mask_width, p->mask_height);
    } else {
        if ((status = check_taps("taps_x", p->taps_x, m)) != TC_OK ||
            (status = check_taps("taps_y", p->taps_y, m)) != TC_OK)
            return status;
        if (p->taps_x == 1 && p->taps_y == 1)
            return tc_fail(m, TC_EINVAL, "taps_x 1 and taps_y 1: that filters nothing; at least "
                                         "one axis needs 3 taps or more");
        tc_filter_binomial_xy(f, p->taps_x, p->taps_y);
        if ((status = set_coefficients("kx", p->kx, p->taps_x, f->kx, f->kx, m)) != TC_OK ||
            (status = set_coefficients("ky", p->ky, p->taps_y, f->ky, f->ky, m)) != TC_OK)
            return status;
    }
    f->border = p->border;
    f->border_value = p->border_value;
    return check_range(f, m);
}

/* Bilinear's samples need each pair of taps to share a sign (bilinear.h), on both axes. */
static int check_pairs(const tc_filter_spec *f, tc_msg *m)
{
    const float *k[2] = {f->kx, f->ky};
    const int taps[2] = {f->taps_x, f->taps_y};
    for (int axis = 0; axis < 2; axis++) {
        tc_bilinear_axis a;
        int bad = 0;
        if (tc_bilinear_pair(k[axis], taps[axis], &a, &bad) == 0)
            continue;
        return tc_fail(m, TC_EINVAL,
                       "%s: bilinear reads two neighbouring taps with one sample, which needs "
                       "their weights to share a sign, but %s[%d] = %g and %s[%d] = %g do not "
                       "(nor do two taps of the other pairing); use another algorithm",
                       axis ? "ky" : "kx", axis ? "ky" : "kx", bad, (double)k[axis][bad],
                       axis ? "ky" : "kx", bad + 1, (double)k[axis][bad + 1]);
    }
    return TC_OK;
}

/* p checked against a width x height image and turned into the job the launchers run. */
static int job_from_params(const tc_params *p, int width, int height, tc_job *job, tc_msg *m)
{
    int status;
    if (!p)
        return tc_fail(m, TC_EINVAL, "params is NULL");
    if ((status = tc_check_size(width, height, "image", m)) != TC_OK)
        return status;
    /* Every index the kernels compute is an int: the padded plane must stay below 2^31 (a
     * narrow image's rows padded to 32 floats can pass it under the pixel limit). */
    if ((long long)tc_device_pitch(width) * height > 0x7fffffffLL)
        return tc_fail(m, TC_EINVAL, "image %d x %d: more pixels than the kernels can index "
                                     "(2^31 with rows padded to %d floats)",
                       width, height, tc_device_pitch(width));
    if ((int)p->algorithm < 0 || p->algorithm > TC_BILINEAR)
        return tc_fail(m, TC_EINVAL, "algorithm %d: not a tc_algorithm value",
                       (int)p->algorithm);
    if ((int)p->storage < 0 || p->storage > TC_STORAGE_IMAGE)
        return tc_fail(m, TC_EINVAL, "storage %d: not a tc_storage value", (int)p->storage);
    if (p->storage == TC_STORAGE_IMAGE && p->algorithm == TC_TWOPASS)
        return tc_fail(m, TC_EINVAL, "storage image: twopass reads buffers only (tiled and "
                                     "onepass read an image; bilinear always does)");
    if (p->roi_width < 0 || p->roi_height < 0)
        return tc_fail(m, TC_EINVAL, "%s %d: must be at least 1 (0: the largest that fits)",
                       p->roi_width < 0 ? "roi_width" : "roi_height",
                       p->roi_width < 0 ? p->roi_width : p->roi_height);
    const int block_x = p->block_width ? p->block_width : 4;
    const int block_y = p->block_height ? p->block_height : 4;
    if ((block_x != 4 && block_x != 8) || block_y < 1 || block_y > 16)
        return tc_fail(m, TC_EINVAL, "block %dx%d: the tiled kernel takes a width of 4 or 8 "
                                     "and a height of 1..16",
                       block_x, block_y);
    const tc_roi_request req = {p->src_left,
                                p->src_top,
                                p->dst_left,
                                p->dst_top,
                                p->roi_width ? p->roi_width : -1,
                                p->roi_height ? p->roi_height : -1};
    memset(job, 0, sizeof *job);
    if ((status = filter_from_params(p, &job->filter, m)) != TC_OK ||
        (status = tc_roi_resolve(&req, width, height, &param_names, &job->roi, m)) != TC_OK)
        return status;
    if (p->algorithm == TC_TWOPASS && job->filter.mask_width && !job->filter.mask_separable)
        return tc_fail(m, TC_EINVAL,
                       "twopass: the %d x %d mask is not separable (not rank 1), so it cannot "
                       "be filtered in two 1-D passes; use tiled or onepass",
                       job->filter.mask_width, job->filter.mask_height);
    if (p->algorithm == TC_BILINEAR && job->filter.mask_width && !job->filter.mask_separable)
        return tc_fail(m, TC_EINVAL,
                       "bilinear: the %d x %d mask is not separable (not rank 1), and the "
                       "trick pairs the taps of two 1-D passes; use tiled or onepass",
                       job->filter.mask_width, job->filter.mask_height);
    if (p->algorithm == TC_BILINEAR && (status = check_pairs(&job->filter, m)) != TC_OK)
        return status;
    /* The tiled kernel's variant (a study option; the other algorithms ignore it, but a name
     * that fits no run is refused whatever the algorithm, as -a all runs tiled too). */
    if ((status = tc_variant_find(p->kernel, &job->filter, &job->variant, m)) != TC_OK)
        return status;
    job->algorithm = p->algorithm;
    job->storage = p->algorithm == TC_BILINEAR ? TC_STORAGE_IMAGE : p->storage;
    job->block_x = block_x;
    job->block_y = block_y;
    job->vector_io = p->vector_io != 0;
    job->count_classes = p->count_classes != 0;
    return TC_OK;
}

TC_API int tc_open(const char *device, tc_context **ctx, char *err, size_t err_size)
{
    tc_msg m = {""};
    tc_context *c;
    int status;
    if (!ctx)
        return TC_EINVAL;
    *ctx = NULL;
    if (!(c = calloc(1, sizeof *c))) {
        status = tc_fail(&m, TC_ENOMEM, "out of host memory for a context");
    } else if ((status = tc_device_open(&c->device, device, &m)) != TC_OK) {
        free(c);
    } else {
        *ctx = c;
        return TC_OK;
    }
    if (err && err_size)
        snprintf(err, err_size, "%s", m.text);
    return status;
}

TC_API void tc_close(tc_context *ctx)
{
    if (!ctx)
        return;
    tc_run_stats_free(&ctx->last);
    tc_pyramid_run_stats_free(&ctx->pyramid_last);
    tc_pyramid_buffers_release(&ctx->pyramid_buffers);
    tc_stream_release(ctx->stream);
    tc_copier_release(ctx->copier);
    tc_pixel_buffers_release(&ctx->pixel_buffers, ctx->device.queue);
    tc_gradient_buffers_release(&ctx->gradient);
    tc_buffers_release(&ctx->buffers);
    tc_program_cache_release(&ctx->programs);
    tc_device_close(&ctx->device);
    free(ctx);
}

TC_API const char *tc_error(const tc_context *ctx)
{
    return ctx ? ctx->error.text : "no context (NULL)";
}

/* The figures of a successful run, for tc_last_stats (the context takes stats' arrays). */
static void remember(tc_context *ctx, tc_run_stats *stats, const tc_job *job, int planes,
                     double convert_ms)
{
    tc_run_stats_free(&ctx->last);
    ctx->last = *stats;
    memset(stats, 0, sizeof *stats);
    ctx->last_job = *job;
    ctx->last_planes = planes;
    ctx->last_convert_ms = convert_ms;
    ctx->have_last = 1;
}

/* The bytes a filter call may take: tc_set_max_memory's, or the host's room now. */
static unsigned long long budget_of(const tc_context *ctx)
{
    return ctx->max_memory ? ctx->max_memory : tc_band_default_budget();
}

/* Whether the whole image fits the device and the budget (else it runs in bands). */
static int whole_fits(const tc_context *ctx, const tc_job *job, int width, int height)
{
    const int host = ctx->max_memory != 0 || ctx->device.info.is_cpu;
    return tc_bands_whole_fits(&ctx->device, &ctx->buffers, job, width, height,
                               host ? budget_of(ctx) : 0, ctx->max_memory != 0);
}

TC_API int tc_set_max_memory(tc_context *ctx, unsigned long long bytes)
{
    if (!ctx)
        return TC_EINVAL;
    ctx->max_memory = bytes;
    return TC_OK;
}

int tc_context_plan_bands(tc_context *ctx, const tc_params *p, int width, int height,
                          unsigned long long budget, int budget_given,
                          unsigned long long per_row, unsigned long long fixed, int max_rows,
                          tc_band_plan *plan)
{
    tc_job job;
    int status;
    if (!ctx || !plan)
        return TC_EINVAL;
    ctx->error.text[0] = '\0';
    if ((status = job_from_params(p, width, height, &job, &ctx->error)) != TC_OK)
        return status;
    return tc_band_plan_make(&ctx->device, &job, width, height, budget, budget_given, per_row,
                             fixed, max_rows, plan, &ctx->error);
}

/* tc_filter and tc_filter_timed: one run after `warmup` untimed ones. */
static int filter(tc_context *ctx, const float *src, float *dst, int width, int height,
                  const tc_params *p, int warmup, int iterations)
{
    tc_job job;
    tc_run_stats stats;
    int status;
    if (!ctx)
        return TC_EINVAL;
    ctx->error.text[0] = '\0';
    if (!src || !dst)
        return tc_fail(&ctx->error, TC_EINVAL, "%s is NULL", src ? "dst" : "src");
    if (iterations < 1 || iterations > TC_MAX_ITERATIONS)
        return tc_fail(&ctx->error, TC_EINVAL, "iterations %d: must be 1..%d", iterations,
                       TC_MAX_ITERATIONS);
    if ((status = job_from_params(p, width, height, &job, &ctx->error)) != TC_OK)
        return status;
    /* The launchers take planes; src is only read (a plane of its own when it is not dst). */
    const tc_plane in = {width, height, (float *)src};
    tc_plane out = {width, height, dst};
    /* An image the device or the budget cannot hold whole runs in bands (bands.h); timed runs
     * measure the whole image, as they always have. */
    if (warmup == 0 && iterations == 1 && !whole_fits(ctx, &job, width, height))
        status = tc_bands_run(&ctx->device, &ctx->programs, &ctx->buffers, &job, &in, &out,
                              budget_of(ctx), ctx->max_memory != 0, &stats, &ctx->error);
    else
        status = tc_run(&ctx->device, &ctx->programs, &ctx->buffers, &job, &in, &out, warmup,
                        iterations, &stats, &ctx->error);
    if (status != TC_OK)
        return status;
    remember(ctx, &stats, &job, 1, 0.0);
    return TC_OK;
}

TC_API int tc_check_params(tc_context *ctx, int width, int height, const tc_params *p)
{
    tc_job job;
    int status;
    if (!ctx)
        return TC_EINVAL;
    ctx->error.text[0] = '\0';
    if ((status = job_from_params(p, width, height, &job, &ctx->error)) != TC_OK)
        return status;
    return tc_images_check(&ctx->device, job.algorithm, job.storage, width, height, &job.roi,
                           &ctx->error);
}

TC_API int tc_filter(tc_context *ctx, const float *src, float *dst, int width, int height,
                     const tc_params *p)
{
    return filter(ctx, src, dst, width, height, p, 0, 1);
}

/* One pair of tc_filter_image's, checked before any work; *job is its job. */
static int check_pair(const tc_image *src, const tc_image *dst, const tc_params *p, tc_job *job,
                      tc_msg *m)
{
    int status;
    if ((status = tc_image_check(src, 1, m)) != TC_OK ||
        (status = tc_image_check(dst, 0, m)) != TC_OK ||
        (status = tc_channels_check_pair(src, dst, m)) != TC_OK)
        return status;
    if (src->width != dst->width || src->height != dst->height)
        return tc_fail(m, TC_EINVAL, "src is %d x %d and dst %d x %d: they must be the same size",
                       src->width, src->height, dst->width, dst->height);
    if ((status = job_from_params(p, src->width, src->height, job, m)) != TC_OK)
        return status;
    if (!isfinite(p->out_scale) || !isfinite(p->out_offset))
        return tc_fail(m, TC_EINVAL, "out_scale %g and out_offset %g: both must be finite",
                       p->out_scale, p->out_offset);
    return TC_OK;
}

/* count pairs of the channel-last layouts through the pipeline (stream.c). */
static int filter_streamed(tc_context *ctx, const tc_image *src, const tc_image *dst, int count,
                           const tc_params *p)
{
    tc_stream_stats st;
    const int status = tc_stream_filter(&ctx->stream, &ctx->device, &ctx->programs,
                                        &ctx->buffers, &ctx->copier, p, job_from_params, src,
                                        dst, count, &st, &ctx->error);
    if (status != TC_OK)
        return status;
    remember(ctx, &st.run, &st.job, st.planes, st.convert_ms);
    return TC_OK;
}

/* One pair of the older layouts (pixels.c), already checked. */
static int filter_pixels(tc_context *ctx, const tc_image *src, const tc_image *dst,
                         const tc_params *p, const tc_job *job)
{
    tc_run_stats stats;
    double convert_ms = 0.0;
    int planes = 1;
    const int status = tc_run_image(&ctx->device, &ctx->programs, &ctx->buffers,
                                    &ctx->pixel_buffers, &ctx->copier, job, src, dst,
                                    p->out_scale, p->out_offset, p->convert_on_host, &stats,
                                    &convert_ms, &planes, &ctx->error);
    if (status != TC_OK)
        return status;
    remember(ctx, &stats, job, planes, convert_ms);
    return TC_OK;
}

/* One image too large for the device or the budget, in bands of rows (bands.c). */
static int filter_bands(tc_context *ctx, const tc_image *src, const tc_image *dst,
                        const tc_params *p, const tc_job *job)
{
    tc_run_stats stats;
    int planes = 1;
    const int status = tc_bands_run_image(&ctx->device, &ctx->programs, &ctx->buffers, job, src,
                                          dst, p->out_scale, p->out_offset, budget_of(ctx),
                                          ctx->max_memory != 0, &stats, &planes, &ctx->error);
    if (status != TC_OK)
        return status;
    remember(ctx, &stats, job, planes, 0.0);
    return TC_OK;
}

/* One checked pair, whole (channel-last layouts through the pipeline, the older ones through
 * pixels.c) or in bands. */
static int filter_one(tc_context *ctx, const tc_image *src, const tc_image *dst,
                      const tc_params *p, const tc_job *job)
{
    tc_image cs, cd;
    if (!whole_fits(ctx, job, src->width, src->height))
        return filter_bands(ctx, src, dst, p, job);
    if (tc_is_channels(src->format))
        return filter_streamed(ctx, src, dst, 1, p);
    /* Pairs whose bytes the pipeline gives exactly take it (channels.h). */
    if (tc_channels_view(src, dst, &cs, &cd)) {
        const int status = filter_streamed(ctx, &cs, &cd, 1, p);
        if (status == TC_OK)
            tc_channels_zero_gaps(dst);
        return status;
    }
    return filter_pixels(ctx, src, dst, p, job);
}

/* count checked pairs through the pipeline, the older layouts' as their channel-last views. */
static int filter_views(tc_context *ctx, const tc_image *src, const tc_image *dst, int count,
                        const tc_params *p)
{
    tc_image *views = malloc(2 * (size_t)count * sizeof *views);
    int status;
    if (!views)
        return tc_fail(&ctx->error, TC_ENOMEM, "out of host memory for %d images", count);
    for (int i = 0; i < count; i++)
        if (!tc_is_channels(src[i].format))
            tc_channels_view(&src[i], &dst[i], &views[i], &views[count + i]);
        else {
            views[i] = src[i];
            views[count + i] = dst[i];
        }
    status = filter_streamed(ctx, views, views + count, count, p);
    for (int i = 0; status == TC_OK && i < count; i++)
        tc_channels_zero_gaps(&dst[i]);
    free(views);
    return status;
}

TC_API int tc_filter_image(tc_context *ctx, const tc_image *src, const tc_image *dst,
                           const tc_params *p)
{
    tc_job job;
    int status;
    if (!ctx)
        return TC_EINVAL;
    ctx->error.text[0] = '\0';
    if ((status = check_pair(src, dst, p, &job, &ctx->error)) != TC_OK)
        return status;
    return filter_one(ctx, src, dst, p, &job);
}

TC_API int tc_filter_images(tc_context *ctx, const tc_image *src, const tc_image *dst,
                            int count, const tc_params *p)
{
    tc_job job;
    tc_image cs, cd;
    int status, streamed = 1, views = 0;
    if (!ctx)
        return TC_EINVAL;
    ctx->error.text[0] = '\0';
    if (count < 0)
        return tc_fail(&ctx->error, TC_EINVAL, "count %d: must be at least 0", count);
    if (count > 0 && (!src || !dst))
        return tc_fail(&ctx->error, TC_EINVAL, "%s is NULL", src ? "dst" : "src");
    /* Every pair before any work, so that a bad one costs nothing. */
    for (int i = 0; i < count; i++) {
        char reason[sizeof ctx->error.text];
        if ((status = check_pair(&src[i], &dst[i], p, &job, &ctx->error)) != TC_OK) {
            snprintf(reason, sizeof reason, "%s", ctx->error.text);
            return tc_fail(&ctx->error, status, "images[%d]: %s", i, reason);
        }
        const int view =
            !tc_is_channels(src[i].format) && tc_channels_view(&src[i], &dst[i], &cs, &cd);
        views |= view;
        streamed &= (tc_is_channels(src[i].format) || view) &&
                    whole_fits(ctx, &job, src[i].width, src[i].height);
    }
    if (count == 0)
        return TC_OK;
    if (streamed)
        return views ? filter_views(ctx, src, dst, count, p)
                     : filter_streamed(ctx, src, dst, count, p);
    /* The older layouts, and images that run in bands, one after another (the command line's
     * batch overlaps them with two contexts a device). */
    for (int i = 0; i < count; i++) {
        char reason[sizeof ctx->error.text];
        if ((status = check_pair(&src[i], &dst[i], p, &job, &ctx->error)) != TC_OK ||
            (status = filter_one(ctx, &src[i], &dst[i], p, &job)) != TC_OK) {
            snprintf(reason, sizeof reason, "%s", ctx->error.text);
            return tc_fail(&ctx->error, status, "images[%d]: %s", i, reason);
        }
    }
    return TC_OK;
}

TC_API int tc_image_to_planes(const tc_image *src, int planes, float *out, char *err,
                              size_t err_size)
{
    tc_msg m = {""};
    const int status = out ? tc_image_planes(src, planes, out, &m)
                           : tc_fail(&m, TC_EINVAL, "out is NULL");
    if (status != TC_OK && err && err_size)
        snprintf(err, err_size, "%s", m.text);
    return status;
}

TC_API int tc_filter_timed(tc_context *ctx, const float *src, float *dst, int width,
                           int height, const tc_params *p, int iterations)
{
    return filter(ctx, src, dst, width, height, p, 1, iterations);
}

/* Smallest and mean of n values. */
static void min_mean(const double *v, int n, double *min, double *mean)
{
    double lo = v[0], sum = 0.0;
    for (int i = 0; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        sum += v[i];
    }
    *min = lo;
    *mean = sum / n;
}

TC_API int tc_last_stats(const tc_context *ctx, tc_stats *s)
{
    if (!ctx || !s)
        return TC_EINVAL;
    const tc_run_stats *r = &ctx->last;
    memset(s, 0, sizeof *s);
    s->programs_built = ctx->programs.built;
    if (!ctx->have_last)
        return TC_EINVAL;
    s->algorithm = ctx->last_job.algorithm;
    s->iterations = r->iterations;
    s->kernel_ms = r->kernel_ms;
    min_mean(r->kernel_ms, r->iterations, &s->kernel_ms_min, &s->kernel_ms_mean);
    s->kernel_ms_median = tc_median(r->kernel_ms, r->iterations);
    s->passes = r->pass_ms[0] ? 2 : 1;
    s->pass_ms[0] = r->pass_ms[0];
    s->pass_ms[1] = r->pass_ms[1];
    s->build_ms = r->build_ms;
    s->upload_ms = r->h2d_ms;
    s->download_ms = r->d2h_ms;
    s->wall_ms_per_iteration = r->wall_ms_per_iteration;
    memcpy(s->global, r->global, sizeof s->global);
    memcpy(s->local, r->local, sizeof s->local);
    memcpy(s->block, r->block, sizeof s->block);
    memcpy(s->classes, r->classes, sizeof s->classes);
    s->classes_counted = r->classes_counted;
    s->roi_width = ctx->last_job.roi.width;
    s->roi_height = ctx->last_job.roi.height;
    s->planes = ctx->last_planes;
    s->convert_ms = ctx->last_convert_ms;
    return TC_OK;
}

TC_API int tc_copy_time(tc_context *ctx, size_t bytes, int repeats, double *median_ms)
{
    if (!ctx)
        return TC_EINVAL;
    ctx->error.text[0] = '\0';
    if (bytes == 0 || repeats < 1 || !median_ms)
        return tc_fail(&ctx->error, TC_EINVAL, "tc_copy_time: bytes and repeats must be at "
                                               "least 1, median_ms not NULL");
    if (repeats > TC_MAX_ITERATIONS)
        return tc_fail(&ctx->error, TC_EINVAL, "tc_copy_time: repeats %d: at most %d", repeats,
                       TC_MAX_ITERATIONS);
    if (bytes > ctx->device.info.max_alloc_bytes)
        return tc_fail(&ctx->error, TC_EINVAL,
                       "tc_copy_time: %zu bytes, more than the %llu bytes %s allows in one "
                       "buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                       bytes, ctx->device.info.max_alloc_bytes, ctx->device.info.name);
    return tc_copy_ms(&ctx->device, bytes, repeats, median_ms, &ctx->error);
}

TC_API int tc_list_devices(tc_device_info *list, int capacity, int *count, char *err,
                           size_t err_size)
{
    tc_msg m = {""};
    int status = TC_EINVAL;
    if (!count || capacity < 0 || (capacity > 0 && !list))
        tc_fail(&m, TC_EINVAL, "tc_list_devices: count is NULL or list too small");
    else
        status = tc_device_list(list, capacity, count, &m);
    if (status != TC_OK && err && err_size)
        snprintf(err, err_size, "%s", m.text);
    return status;
}

TC_API int tc_context_device(const tc_context *ctx, tc_device_info *info)
{
    if (!ctx || !info)
        return TC_EINVAL;
    *info = ctx->device.info;
    return TC_OK;
}

TC_API int tc_reference(const float *src, float *dst, int width, int height,
                        const tc_params *p, char *err, size_t err_size)
{
    tc_msg m = {""};
    tc_job job;
    int status = !src || !dst ? tc_fail(&m, TC_EINVAL, "%s is NULL", src ? "dst" : "src")
                              : job_from_params(p, width, height, &job, &m);
    if (status == TC_OK) {
        const tc_plane in = {width, height, (float *)src};
        tc_plane out = {width, height, dst};
        if ((status = reference_convolve(&in, &job.roi, &job.filter, &out)) != TC_OK)
            tc_fail(&m, status, "out of host memory for the reference's copy of the input");
    }
    if (status != TC_OK && err && err_size)
        snprintf(err, err_size, "%s", m.text);
    return status;
}

TC_API double tc_tolerance(const float *src, int width, int height, const tc_params *p)
{
    tc_job job;
    if (!src || job_from_params(p, width, height, &job, NULL) != TC_OK)
        return -1.0;
    const tc_plane in = {width, height, (float *)src};
    const double tolerance = reference_tolerance(&in, &job.filter);
    if (job.algorithm != TC_BILINEAR)
        return tolerance;
    /* Texture interpolation's share (bilinear.h): the sROI's range of values, the sums of the
     * absolute weights, and the largest sample coordinate. */
    const tc_roi *r = &job.roi;
    double lo = src[(size_t)r->src_top * (size_t)width + (size_t)r->src_left], hi = lo;
    double sum_kx = 0.0, sum_ky = 0.0;
    for (int y = r->src_top; y < r->src_top + r->height; y++)
        for (int x = r->src_left; x < r->src_left + r->width; x++) {
            const double v = src[(size_t)y * (size_t)width + (size_t)x];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
    for (int i = 0; i < job.filter.taps_x; i++)
        sum_kx += fabs(job.filter.kx[i]);
    for (int i = 0; i < job.filter.taps_y; i++)
        sum_ky += fabs(job.filter.ky[i]);
    return tolerance +
           tc_bilinear_bound(sum_kx, sum_ky, hi - lo, (width > height ? width : height) + 2.0);
}

typedef struct {
    const tc_roi *roi;
    tc_tile *tiles;
    int capacity, count;
} tile_list;

static void list_tile(void *arg, const tc_tile_class *t)
{
    tile_list *list = arg;
    if (list->count < list->capacity)
        list->tiles[list->count] =
            (tc_tile){list->roi->dst_left + t->l, list->roi->dst_top + t->t, t->width,
                      t->height, t->free_on_read ? 1 : 2, t->free_on_write ? 3 : 4};
    list->count++;
}

TC_API int tc_tiles(const tc_params *p, int width, int height, tc_tile *tiles, int capacity,
                    int *count, char *err, size_t err_size)
{
    tc_msg m = {""};
    tc_job job;
    int status = !count || capacity < 0 || (capacity > 0 && !tiles)
                     ? tc_fail(&m, TC_EINVAL, "tc_tiles: count is NULL or tiles too small")
                     : job_from_params(p, width, height, &job, &m);
    if (status == TC_OK) {
        tile_list list = {&job.roi, tiles, capacity, 0};
        job.algorithm = TC_TILED;
        tc_tiled_tiles(&job, 64ULL << 10, list_tile, &list);
        *count = list.count;
    } else if (err && err_size) {
        snprintf(err, err_size, "%s", m.text);
    }
    return status;
}

TC_API int tc_named_filter(const char *name, int taps, double sigma, float *kx, float *ky,
                           char *err, size_t err_size)
{
    tc_msg m = {""};
    tc_filter_spec f;
    int id = name ? tc_named_find(name) : -1, status = TC_OK;
    if (id < 0)
        status = tc_fail(&m, TC_EINVAL, "filter '%s': unknown; use box, gauss, binomial, "
                                        "sobel-x, sobel-y, scharr-x or scharr-y",
                         name ? name : "(null)");
    else if (tc_named_is_mask((tc_named)id))
        status = tc_fail(&m, TC_EINVAL, "filter '%s': a 3 x 3 mask, not separable: use "
                                        "tc_named_mask",
                         name);
    else if (!kx || !ky)
        status = tc_fail(&m, TC_EINVAL, "kx and ky must not be NULL");
    else if (isnan(sigma) || isinf(sigma))
        status = tc_fail(&m, TC_EINVAL, "sigma is not a finite number");
    else if (sigma > 0.0 && sigma < TC_MIN_SIGMA)
        status = tc_fail(&m, TC_EINVAL,
                         "sigma %g: too small; the smallest is %g (below it sigma^2 underflows "
                         "and the Gaussian's weights are not finite)",
                         sigma, TC_MIN_SIGMA);
    else if (tc_filter_named(&f, (tc_named)id, taps, sigma) != 0)
        status = tc_fail(&m, TC_EINVAL, "filter %s: no %d-tap version (%s)", name, taps,
                         !tc_taps_valid(taps)                   ? "odd lengths 3..63"
                         : id == TC_NAMED_SOBEL_X || id == TC_NAMED_SOBEL_Y ? "3..31 taps"
                                                                : "3 taps only");
    if (status != TC_OK) {
        if (err && err_size)
            snprintf(err, err_size, "%s", m.text);
        return status;
    }
    memcpy(kx, f.kx, (size_t)taps * sizeof *kx);
    memcpy(ky, f.ky, (size_t)taps * sizeof *ky);
    return TC_OK;
}

TC_API int tc_named_mask(const char *name, double amount, float *mask, int capacity, int *width,
                         int *height, char *err, size_t err_size)
{
    tc_msg m = {""};
    tc_filter_spec f;
    int id = name ? tc_named_find(name) : -1, status = TC_OK;
    if (id < 0 || !tc_named_is_mask((tc_named)id))
        status = tc_fail(&m, TC_EINVAL, "mask '%s': unknown; use laplacian, laplacian8 or sharpen",
                         name ? name : "(null)");
    else if (!mask || !width || !height)
        status = tc_fail(&m, TC_EINVAL, "mask, width and height must not be NULL");
    else if (capacity < 9)
        status = tc_fail(&m, TC_EINVAL, "capacity %d: the mask needs 9 floats (3 x 3)", capacity);
    else if (!isfinite(amount) || fabs(amount) > 1e30)
        status = tc_fail(&m, TC_EINVAL, "amount is not a finite number of at most 1e30");
    if (status != TC_OK) {
        if (err && err_size)
            snprintf(err, err_size, "%s", m.text);
        return status;
    }
    tc_filter_named_mask(&f, (tc_named)id, amount);
    memcpy(mask, f.mask, 9 * sizeof *mask);
    *width = *height = 3;
    return TC_OK;
}

TC_API int tc_mask_factors(const float *mask, int width, int height, float *kx, float *ky)
{
    if (!mask || !kx || !ky || !tc_mask_size_valid(width, height))
        return -1;
    for (int k = 0; k < width * height; k++)
        if (!isfinite(mask[k]))
            return -1;
    return tc_mask_factor(mask, width, height, kx, ky);
}

/* ---- The Gaussian scale space ------------------------------------------------------------ */

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
    s->launch = ctx->pyramid_last_launch;
    s->iterations = r->iterations;
    s->kernel_ms = r->kernel_ms;
    min_mean(r->kernel_ms, r->iterations, &s->kernel_ms_min, &s->kernel_ms_mean);
    s->kernel_ms_median = tc_median(r->kernel_ms, r->iterations);
    s->launches = r->launches;
    s->bytes = r->bytes;
    s->build_ms = r->build_ms;
    s->upload_ms = r->upload_ms;
    s->download_ms = r->download_ms;
    s->wall_ms_per_iteration = r->wall_ms_per_iteration;
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

/* ---- What gradient.c needs of a context (gradient.h) ------------------------------------- */

void tc_context_parts_of(tc_context *ctx, tc_context_parts *parts)
{
    parts->device = &ctx->device;
    parts->programs = &ctx->programs;
    parts->buffers = &ctx->buffers;
    parts->gradient = &ctx->gradient;
    parts->error = &ctx->error;
}

int tc_context_job(const tc_params *p, int width, int height, tc_job *job, tc_msg *m)
{
    return job_from_params(p, width, height, job, m);
}

void tc_context_remember(tc_context *ctx, tc_run_stats *stats, const tc_job *job)
{
    remember(ctx, stats, job, 1, 0.0);
}
