/*
 * context.c - tiledconv.h's context and its filter calls: a context holds a device, the programs
 * built on it, the buffers of the last run and why the last call failed; tc_filter and its
 * companions check their arguments, turn tc_params into a job (params.c) and run it whole, in
 * bands (bands.c), through the pipeline (stream.c) or with the host's conversions (pixels.c,
 * stream.c's host way). The gradient (gradient.c) and the scale space (pyramid.c) use a
 * context through context.h.
 */
#include "context.h"
#include "tiledconv_files.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bands.h"
#include "channels.h"
#include "copier.h"
#include "jpeg_filter.h"
#include "params.h"
#include "storage.h"

TC_API const char *tc_version(void)
{
    return "1.3.0";
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
                 {"tc_pyramid_stats", sizeof(tc_pyramid_stats)},
                 {"tc_direct_counts", sizeof(tc_direct_counts)},
                 {"tc_file_result", sizeof(tc_file_result)}};
    for (size_t i = 0; type_name && i < sizeof sizes / sizeof sizes[0]; i++)
        if (strcmp(type_name, sizes[i].name) == 0)
            return sizes[i].size;
    return 0;
}

TC_API int tc_open(const char *device, tc_context **ctx, char *err, size_t err_size)
{
    tc_msg m = {""};
    tc_context *c;
    int status;
    if (!ctx)
        return TC_EINVAL;
    *ctx = NULL;
    if (!(c = calloc(1, sizeof *c)) || !(c->later = calloc(2, sizeof *c->later))) {
        free(c);
        status = tc_fail(&m, TC_ENOMEM, "out of host memory for a context");
    } else if (tc_host_blocks_init(&c->host) != 0) {
        free(c->later);
        free(c);
        status = tc_fail(&m, TC_ENOMEM, "cannot make the lock of a context's host blocks");
    } else if ((status = tc_device_open(&c->device, device, &m)) != TC_OK) {
        tc_host_blocks_release(&c->host);
        free(c->later);
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
    for (int i = 0; i < 2; i++)
        tc_deferred_free(&ctx->later[i]);
    free(ctx->later);
    tc_run_stats_free(&ctx->last);
    tc_pyramid_run_stats_free(&ctx->pyramid_last);
    tc_pyramid_buffers_release(&ctx->pyramid_buffers);
    tc_stream_release(ctx->stream); /* its transfers finished before the host blocks go */
    if (ctx->jpeg)
        tc_jpeg_filter_release(ctx->jpeg);
    free(ctx->jpeg);
    tc_copier_release(ctx->copier);
    tc_host_blocks_release(&ctx->host);
    tc_gradient_buffers_release(&ctx->gradient);
    tc_buffers_release(&ctx->buffers);
    tc_program_cache_release(&ctx->programs);
    tc_device_close(&ctx->device);
    free(ctx);
}

TC_API int tc_trim(tc_context *ctx)
{
    if (!ctx)
        return TC_EINVAL;
    ctx->error.text[0] = '\0';
    /* The events kept for the last calls' figures are read now and let go: a driver may hold
     * a command's buffers while its event lives (PoCL does). */
    for (int i = 0; i < 2; i++)
        (void)tc_deferred_read(&ctx->later[i], &ctx->error);
    /* The pipeline's transfers are finished before its blocks go (as at tc_close). */
    tc_stream_release(ctx->stream);
    ctx->stream = NULL;
    if (ctx->jpeg)
        tc_jpeg_filter_release(ctx->jpeg);
    free(ctx->jpeg);
    ctx->jpeg = NULL;
    tc_gradient_buffers_release(&ctx->gradient);
    tc_pyramid_buffers_release(&ctx->pyramid_buffers);
    tc_buffers_release(&ctx->buffers);
    return TC_OK;
}

TC_API void *tc_host_alloc(tc_context *ctx, size_t bytes)
{
    tc_msg m = {""}; /* not ctx->error: a filter call may be running on another thread */
    return ctx ? tc_host_blocks_alloc(&ctx->host, &ctx->device, bytes, &m) : NULL;
}

TC_API void tc_host_free(tc_context *ctx, void *p)
{
    if (ctx)
        tc_host_blocks_free(&ctx->host, p);
}

TC_API int tc_host_register(tc_context *ctx, void *p, size_t bytes)
{
    tc_msg m = {""}; /* not ctx->error, as tc_host_alloc */
    return ctx ? tc_host_blocks_lock(&ctx->host, &ctx->device, p, bytes, &m) : TC_EINVAL;
}

TC_API void tc_host_unregister(tc_context *ctx, void *p)
{
    if (ctx)
        tc_host_blocks_unlock(&ctx->host, p);
}

void tc_direct_transfers(const tc_context *ctx, tc_direct_counts *counts)
{
    *counts = ctx->direct;
}

TC_API const char *tc_error(const tc_context *ctx)
{
    return ctx ? ctx->error.text : "no context (NULL)";
}

TC_API const char *tc_build_log(const tc_context *ctx)
{
    return ctx && ctx->programs.log ? ctx->programs.log : "";
}

void tc_context_remember(tc_context *ctx, tc_run_stats *stats, const tc_job *job, int planes,
                         double convert_ms)
{
    tc_deferred_clear(&ctx->later[0]);
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

TC_API int tc_set_timing(tc_context *ctx, int on)
{
    if (!ctx)
        return TC_EINVAL;
    ctx->untimed = !on;
    return TC_OK;
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
    if ((status = tc_job_from_params(p, width, height, &job, &ctx->error)) != TC_OK)
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
    if ((status = tc_job_from_params(p, width, height, &job, &ctx->error)) != TC_OK)
        return status;
    job.strict_times = warmup > 0; /* tc_filter_timed: the times are the result */
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
    tc_context_remember(ctx, &stats, &job, 1, 0.0);
    return TC_OK;
}

TC_API int tc_check_params(tc_context *ctx, int width, int height, const tc_params *p)
{
    tc_job job;
    int status;
    if (!ctx)
        return TC_EINVAL;
    ctx->error.text[0] = '\0';
    if ((status = tc_job_from_params(p, width, height, &job, &ctx->error)) != TC_OK)
        return status;
    return tc_images_check(&ctx->device, job.algorithm, job.storage, width, height, &job.roi,
                           &ctx->error);
}

TC_API int tc_filter(tc_context *ctx, const float *src, float *dst, int width, int height,
                     const tc_params *p)
{
    return filter(ctx, src, dst, width, height, p, 0, 1);
}

/* One pair's images, checked before any work. */
static int check_images(const tc_image *src, const tc_image *dst, tc_msg *m)
{
    int status;
    /* A palette index past the palette is refused here, before any image of a batch is
     * filtered, rather than when its turn comes. */
    if ((status = tc_image_check(src, 1, m)) != TC_OK ||
        (status = tc_image_check(dst, 0, m)) != TC_OK ||
        (status = tc_channels_check_pair(src, dst, m)) != TC_OK ||
        (status = tc_pixels_check_indices(src, m)) != TC_OK)
        return status;
    if (src->width != dst->width || src->height != dst->height)
        return tc_fail(m, TC_EINVAL, "src is %d x %d and dst %d x %d: they must be the same size",
                       src->width, src->height, dst->width, dst->height);
    return TC_OK;
}

/* The job of images of this size: the parameters checked and resolved (params.c). */
static int build_job(const tc_params *p, int width, int height, tc_job *job, tc_msg *m)
{
    int status;
    if ((status = tc_job_from_params(p, width, height, job, m)) != TC_OK)
        return status;
    if (!isfinite(p->out_scale) || !isfinite(p->out_offset))
        return tc_fail(m, TC_EINVAL, "out_scale %g and out_offset %g: both must be finite",
                       p->out_scale, p->out_offset);
    return TC_OK;
}

/* A batch's jobs: every pair checked before any work, so that a bad one costs nothing, and
 * one job built for each run of consecutive pairs of one size (the pairs share the filter, so
 * the job of a size serves the whole run); of[i] is pair i's. */
typedef struct {
    tc_job *built;
    const tc_job **of;
} job_set;

static void job_set_free(job_set *js)
{
    free(js->built);
    free(js->of);
}

static int job_set_make(const tc_image *src, const tc_image *dst, int count, const tc_params *p,
                        job_set *js, tc_msg *m)
{
    int status = TC_OK, runs = 0;
    js->built = malloc((size_t)count * sizeof *js->built);
    js->of = malloc((size_t)count * sizeof *js->of);
    if (!js->built || !js->of) {
        job_set_free(js);
        return tc_fail(m, TC_ENOMEM, "out of host memory for the jobs of %d images", count);
    }
    for (int i = 0; i < count && status == TC_OK; i++) {
        const int new_size = i == 0 || src[i].width != src[i - 1].width ||
                             src[i].height != src[i - 1].height;
        if ((status = check_images(&src[i], &dst[i], m)) == TC_OK && new_size)
            status = build_job(p, src[i].width, src[i].height, &js->built[runs++], m);
        if (status == TC_OK)
            js->of[i] = &js->built[runs - 1];
        else {
            char reason[sizeof m->text];
            snprintf(reason, sizeof reason, "%s", m->text);
            status = tc_fail(m, status, "images[%d]: %s", i, reason);
        }
    }
    if (status != TC_OK)
        job_set_free(js);
    return status;
}

/* count pairs of the channel-last layouts through the pipeline (stream.c); with pixels, the raw
 * views of pairs of the older layouts (stream.h). */
static int filter_streamed(tc_context *ctx, const tc_image *src, const tc_image *dst, int count,
                           const tc_params *p, const tc_job *const *jobs,
                           const tc_pixel_pair *pixels, const int *names)
{
    tc_stream_stats st;
    tc_deferred *run = &ctx->later[1];
    const tc_stream_host host = {&ctx->host, &ctx->direct, run, !ctx->untimed, names};
    tc_deferred_clear(run);
    const int status = tc_stream_filter(&ctx->stream, &ctx->device, &ctx->programs,
                                        &ctx->buffers, &ctx->copier, &host, p, jobs, src,
                                        dst, pixels, count, &st, &ctx->error);
    if (status != TC_OK) {
        tc_deferred_clear(run);
        return status;
    }
    tc_context_remember(ctx, &st.run, &st.job, st.planes, st.convert_ms);
    const tc_deferred last = ctx->later[0]; /* cleared by remember: its room goes to the next run */
    ctx->later[0] = *run;
    *run = last;
    return TC_OK;
}

/* One pair of the older layouts (pixels.h), already checked: through the pipeline as its raw
 * bytes, which Pixels.cl converts in the slot (the bytes between the caller's rows zeroed
 * after, as its pack did them on the device before), or with the host's conversions. */
static int filter_pixels(tc_context *ctx, const tc_image *src, const tc_image *dst,
                         const tc_params *p, const tc_job *job)
{
    tc_run_stats stats;
    int planes = 1, status;
    if (tc_pixels_device_converts(&ctx->device, src, p->convert_on_host)) {
        const tc_pixel_pair pair = {src, dst};
        tc_image raw_src, raw_dst;
        tc_pixels_raw(src, &raw_src);
        tc_pixels_raw(dst, &raw_dst);
        if ((status = filter_streamed(ctx, &raw_src, &raw_dst, 1, p, &job, &pair, NULL)) == TC_OK)
            tc_channels_zero_gaps(dst);
        return status;
    }
    status = tc_run_image(&ctx->device, &ctx->programs, &ctx->buffers, job, src, dst,
                          p->out_scale, p->out_offset, &stats, &planes, &ctx->error);
    if (status != TC_OK)
        return status;
    tc_context_remember(ctx, &stats, job, planes, 0.0);
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
    tc_context_remember(ctx, &stats, job, planes, 0.0);
    return TC_OK;
}

/* One checked pair, whole (through the pipeline: the channel-last layouts, the older ones as
 * their channel-last views or their raw bytes; or the host's conversions) or in bands. */
static int filter_one(tc_context *ctx, const tc_image *src, const tc_image *dst,
                      const tc_params *p, const tc_job *job)
{
    tc_image cs, cd;
    if (!whole_fits(ctx, job, src->width, src->height))
        return filter_bands(ctx, src, dst, p, job);
    if (tc_is_channels(src->format))
        return filter_streamed(ctx, src, dst, 1, p, &job, NULL, NULL);
    /* Pairs whose bytes the pipeline gives exactly take it (channels.h). */
    if (tc_channels_view(src, dst, &cs, &cd)) {
        const int status = filter_streamed(ctx, &cs, &cd, 1, p, &job, NULL, NULL);
        if (status == TC_OK)
            tc_channels_zero_gaps(dst);
        return status;
    }
    return filter_pixels(ctx, src, dst, p, job);
}

/* How a checked pair is filtered: through the pipeline as it lies, as its channel-last view
 * (channels.h), as its raw bytes that Pixels.cl converts in the slot (pixels.h), or alone
 * (in bands, or with the host's conversions). filter_one takes the same ways. */
typedef enum { WAY_AS_IT_LIES, WAY_VIEW, WAY_RAW, WAY_ALONE } pair_way;

static pair_way way_of(const tc_context *ctx, const tc_image *src, const tc_image *dst,
                       const tc_params *p, const tc_job *job)
{
    tc_image cs, cd;
    if (!whole_fits(ctx, job, src->width, src->height))
        return WAY_ALONE;
    if (tc_is_channels(src->format))
        return WAY_AS_IT_LIES;
    if (tc_channels_view(src, dst, &cs, &cd))
        return WAY_VIEW;
    return tc_pixels_device_converts(&ctx->device, src, p->convert_on_host) ? WAY_RAW
                                                                            : WAY_ALONE;
}

/* The pairs of a batch that go through the pipeline together: their images as it moves them
 * (views[i] and views[count + i]), their jobs, and for the older layouts' raw bytes the
 * caller's pair that Pixels.cl converts (pixels[i].src NULL for the others). */
typedef struct {
    tc_image *views;
    const tc_job **jobs;
    tc_pixel_pair *pixels;
    int *index; /* the pair's place in the call */
    int n, any_pixels;
} stream_set;

static void stream_set_free(stream_set *ss)
{
    free(ss->views);
    free(ss->jobs);
    free(ss->pixels);
    free(ss->index);
}

/* Adds pair i, which goes way (not WAY_ALONE), to the set of count pairs at most. */
static void stream_set_add(stream_set *ss, int count, pair_way way, const tc_image *src,
                           const tc_image *dst, const tc_job *job, int i)
{
    tc_image *vs = &ss->views[ss->n], *vd = &ss->views[count + ss->n];
    ss->pixels[ss->n] = (tc_pixel_pair){NULL, NULL};
    if (way == WAY_AS_IT_LIES) {
        *vs = *src;
        *vd = *dst;
    } else if (way == WAY_VIEW) {
        tc_channels_view(src, dst, vs, vd);
    } else {
        tc_pixels_raw(src, vs);
        tc_pixels_raw(dst, vd);
        ss->pixels[ss->n] = (tc_pixel_pair){src, dst};
        ss->any_pixels = 1;
    }
    ss->jobs[ss->n] = job;
    ss->index[ss->n++] = i;
}

/* The set's pairs through the pipeline in one run; the bytes between the rows of the views'
 * and raw pairs' outputs zeroed after, as the device's pack did them before. */
static int stream_set_run(tc_context *ctx, stream_set *ss, int count, const tc_image *dst,
                          const tc_params *p)
{
    memmove(ss->views + ss->n, ss->views + count, (size_t)ss->n * sizeof *ss->views);
    /* A failure names the image by its place in the call, not in the run. */
    const int status = filter_streamed(ctx, ss->views, ss->views + ss->n, ss->n, p, ss->jobs,
                                       ss->any_pixels ? ss->pixels : NULL,
                                       ss->n < count ? ss->index : NULL);
    for (int k = 0; status == TC_OK && k < ss->n; k++)
        if (!tc_is_channels(dst[ss->index[k]].format))
            tc_channels_zero_gaps(&dst[ss->index[k]]);
    return status;
}

/* count checked pairs: those the pipeline takes (every layout, whole, where the device
 * converts it) through it together, then the others (images that run in bands, the host's
 * conversions) one after another, so that one of those among a batch's photos does not take
 * the pipeline from the rest (the command line's batch overlaps the one-by-one kind with two
 * contexts a device). */
static int filter_sorted(tc_context *ctx, const tc_image *src, const tc_image *dst, int count,
                         const tc_params *p, const tc_job *const *jobs)
{
    stream_set ss = {malloc(2 * (size_t)count * sizeof *ss.views),
                     malloc((size_t)count * sizeof *ss.jobs),
                     malloc((size_t)count * sizeof *ss.pixels),
                     malloc((size_t)count * sizeof *ss.index), 0, 0};
    unsigned char *alone = malloc((size_t)count);
    int status = TC_OK;
    if (!ss.views || !ss.jobs || !ss.pixels || !ss.index || !alone) {
        stream_set_free(&ss);
        free(alone);
        return tc_fail(&ctx->error, TC_ENOMEM, "out of host memory for %d images", count);
    }
    for (int i = 0; i < count; i++) {
        const pair_way way = way_of(ctx, &src[i], &dst[i], p, jobs[i]);
        alone[i] = way == WAY_ALONE;
        if (!alone[i])
            stream_set_add(&ss, count, way, &src[i], &dst[i], jobs[i], i);
    }
    if (ss.n > 0)
        status = stream_set_run(ctx, &ss, count, dst, p);
    for (int i = 0; status == TC_OK && i < count; i++)
        if (alone[i] && (status = filter_one(ctx, &src[i], &dst[i], p, jobs[i])) != TC_OK) {
            char reason[sizeof ctx->error.text];
            snprintf(reason, sizeof reason, "%s", ctx->error.text);
            status = tc_fail(&ctx->error, status, "images[%d]: %s", i, reason);
        }
    stream_set_free(&ss);
    free(alone);
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
    if ((status = check_images(src, dst, &ctx->error)) != TC_OK ||
        (status = build_job(p, src->width, src->height, &job, &ctx->error)) != TC_OK)
        return status;
    return filter_one(ctx, src, dst, p, &job);
}

TC_API int tc_filter_images(tc_context *ctx, const tc_image *src, const tc_image *dst,
                            int count, const tc_params *p)
{
    job_set jobs;
    int status;
    if (!ctx)
        return TC_EINVAL;
    ctx->error.text[0] = '\0';
    if (count < 0)
        return tc_fail(&ctx->error, TC_EINVAL, "count %d: must be at least 0", count);
    if (count == 0)
        return TC_OK;
    if (!src || !dst)
        return tc_fail(&ctx->error, TC_EINVAL, "%s is NULL", src ? "dst" : "src");
    if ((status = job_set_make(src, dst, count, p, &jobs, &ctx->error)) != TC_OK)
        return status;
    status = filter_sorted(ctx, src, dst, count, p, jobs.of);
    job_set_free(&jobs);
    return status;
}

int tc_jpeg_begin(tc_context *ctx, const jpeg_coefs *in, const tc_image *pixels, int channels,
                  const tc_params *p, jpeg_coefs *out, int *ticket)
{
    tc_job job;
    int status;
    if (!ctx)
        return TC_EINVAL;
    ctx->error.text[0] = '\0';
    if ((!in && !pixels) || !p || !out || !ticket)
        return tc_fail(&ctx->error, TC_EINVAL, "%s is NULL",
                       !in && !pixels ? "in" : !p ? "p" : !out ? "out" : "ticket");
    *ticket = -1;
    const int w = in ? in->width : pixels->width, h = in ? in->height : pixels->height;
    if ((status = build_job(p, w, h, &job, &ctx->error)) != TC_OK)
        return status;
    /* tc_filter_image would take another way than the pipeline's device conversions for
     * these pixels: bands (the image over the device or the budget), or the host's
     * conversions (no doubles on the device, or asked for). The CPU path gives its bytes. */
    if (!whole_fits(ctx, &job, w, h) || !ctx->device.info.has_double || p->convert_on_host)
        return TC_OK;
    if (!ctx->jpeg && !(ctx->jpeg = calloc(1, sizeof *ctx->jpeg)))
        return tc_fail(&ctx->error, TC_ENOMEM, "out of host memory for the JPEG filter");
    if (!out->block && out->components > 0 && jpeg_coefs_alloc(out))
        return tc_fail(&ctx->error, TC_ENOMEM, "out of host memory for %zu bytes of the "
                                               "output's coefficients",
                       jpeg_coefs_bytes(out));
    return tc_jpeg_filter_start(ctx->jpeg, &ctx->device, &ctx->programs, &ctx->buffers, &job,
                                p->out_scale, p->out_offset, in, pixels, channels, out,
                                !ctx->untimed, ticket, &ctx->error);
}

int tc_jpeg_end(tc_context *ctx, int ticket, int *exact)
{
    tc_run_stats stats;
    double convert_ms = 0.0;
    if (!ctx)
        return TC_EINVAL;
    ctx->error.text[0] = '\0';
    if (!exact || !ctx->jpeg || ticket < 0 || ticket >= TC_JPEG_FLIGHTS ||
        !ctx->jpeg->flights[ticket].busy)
        return tc_fail(&ctx->error, TC_EINVAL, "no JPEG image %d in flight", ticket);
    const tc_jpeg_flight *f = &ctx->jpeg->flights[ticket];
    const int channels = f->img.planes;
    const tc_job job = f->job;
    const jpeg_coefs *in = f->in, *out = f->out;
    const int status = tc_jpeg_filter_finish(ctx->jpeg, &ctx->device, &ctx->programs, ticket,
                                             exact, &stats, &convert_ms, &ctx->error);
    if (status == TC_OK && *exact) {
        tc_context_remember(ctx, &stats, &job, channels, convert_ms);
        /* The coefficients moved from and into page-locked memory without staging where the
         * caller's blocks are the context's (-t counts them with the pixels'). */
        ctx->direct.up += in && tc_host_blocks_hold(&ctx->host, in->block, jpeg_coefs_bytes(in));
        ctx->direct.down += tc_host_blocks_hold(&ctx->host, out->block, jpeg_coefs_bytes(out));
    }
    return status;
}

/* tc_filter_jpeg and tc_filter_to_jpeg: begun and ended at once. */
static int filter_jpeg(tc_context *ctx, const jpeg_coefs *in, const tc_image *pixels,
                       int channels, const tc_params *p, jpeg_coefs *out, int *exact)
{
    int ticket, status;
    *exact = 0;
    if ((status = tc_jpeg_begin(ctx, in, pixels, channels, p, out, &ticket)) != TC_OK ||
        ticket < 0)
        return status;
    return tc_jpeg_end(ctx, ticket, exact);
}

int tc_filter_jpeg(tc_context *ctx, const jpeg_coefs *in, int channels, const tc_params *p,
                   jpeg_coefs *out, int *exact)
{
    if (!ctx)
        return TC_EINVAL;
    ctx->error.text[0] = '\0';
    if (!in || !out || !exact)
        return tc_fail(&ctx->error, TC_EINVAL, "%s is NULL", !in ? "in" : !out ? "out" : "exact");
    return filter_jpeg(ctx, in, NULL, channels, p, out, exact);
}

int tc_filter_to_jpeg(tc_context *ctx, const tc_image *src, const tc_params *p, jpeg_coefs *out,
                      int *done)
{
    if (!ctx)
        return TC_EINVAL;
    ctx->error.text[0] = '\0';
    if (!src || !out || !done)
        return tc_fail(&ctx->error, TC_EINVAL, "%s is NULL",
                       !src ? "src" : !out ? "out" : "done");
    return filter_jpeg(ctx, NULL, src, out->components, p, out, done);
}

int tc_decode_jpeg(tc_context *ctx, const jpeg_coefs *in, int channels, unsigned char *out,
                   int *exact)
{
    if (!ctx)
        return TC_EINVAL;
    ctx->error.text[0] = '\0';
    if (!in || !out || !exact)
        return tc_fail(&ctx->error, TC_EINVAL, "%s is NULL", !in ? "in" : !out ? "out" : "exact");
    if (!ctx->jpeg && !(ctx->jpeg = calloc(1, sizeof *ctx->jpeg)))
        return tc_fail(&ctx->error, TC_ENOMEM, "out of host memory for the JPEG filter");
    return tc_jpeg_filter_decode(ctx->jpeg, &ctx->device, &ctx->programs, in, channels, out,
                                 exact, &ctx->error);
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

void tc_min_mean(const double *v, int n, double *min, double *mean)
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
    tc_deferred *later = &ctx->later[0];
    tc_msg m = {""};
    memset(s, 0, sizeof *s);
    s->programs_built = ctx->programs.built;
    if (!ctx->have_last)
        return TC_EINVAL;
    /* The run's times not read yet, read now; its kernels' go into its kernel time array
     * (the context's, which s->kernel_ms points into) once. */
    const int read = tc_deferred_read(later, &m);
    if (later->ms[TC_DEFER_KERNEL] > 0.0 && r->iterations >= 1) {
        r->kernel_ms[0] += later->ms[TC_DEFER_KERNEL];
        later->ms[TC_DEFER_KERNEL] = 0.0;
    }
    s->algorithm = ctx->last_job.algorithm;
    s->iterations = r->iterations;
    s->kernel_ms = r->kernel_ms;
    tc_min_mean(r->kernel_ms, r->iterations, &s->kernel_ms_min, &s->kernel_ms_mean);
    s->kernel_ms_median = tc_median(r->kernel_ms, r->iterations);
    s->passes = r->pass_ms[0] ? 2 : 1;
    s->pass_ms[0] = r->pass_ms[0];
    s->pass_ms[1] = r->pass_ms[1];
    s->build_ms = r->build_ms;
    s->upload_ms = r->h2d_ms + later->ms[TC_DEFER_UPLOAD];
    s->download_ms = r->d2h_ms + later->ms[TC_DEFER_DOWNLOAD];
    s->wall_ms_per_iteration = r->wall_ms_per_iteration;
    memcpy(s->global, r->global, sizeof s->global);
    memcpy(s->local, r->local, sizeof s->local);
    memcpy(s->block, r->block, sizeof s->block);
    memcpy(s->classes, r->classes, sizeof s->classes);
    s->classes_counted = r->classes_counted;
    s->roi_width = ctx->last_job.roi.width;
    s->roi_height = ctx->last_job.roi.height;
    s->planes = ctx->last_planes;
    s->convert_ms = ctx->last_convert_ms + later->ms[TC_DEFER_CONVERT];
    return read == TC_OK ? TC_OK : TC_EDEVICE;
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
