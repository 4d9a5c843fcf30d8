/* job_filter.c - one image filtered on a lane's context (job_filter.h). */
#include "job_filter.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jpeg_coefs_write.h"
#include "pinned_pool.h"
#include "strips.h"
#include "file_hooks.h"
#include "text.h"

/* The command line's names for the ROI fields, for messages. */
static const tc_roi_names flag_names = {"-sL", "-sT", "-tL", "-tT", "-W", "-H"};

/* The parameters for this image: the options' filter and the ROI resolved against its size. */
static int job_params(const tc_options *o, job *j, tc_params *p)
{
    tc_msg m;
    if (tc_roi_resolve(&o->roi, j->src.width, j->src.height, &flag_names, &j->roi, &m) != TC_OK) {
        job_fail(j, JOB_REFUSED, m.text);
        return -1;
    }
    options_params(o, &j->roi, p);
    return 0;
}

/* Where the filter's result goes: float planes when job_wants_planes, the rows of the output BMP
 * (bottom-up, padded), or the packed top-down rows another format's encoder takes. 0, or -1
 * (the job failed). */
static int prepare_output(const tc_options *o, job *j, tc_image *dst)
{
    const int w = j->src.width, h = j->src.height, colour = o->color;
    if (job_wants_planes(o, j)) {
        j->n_planes = job_result_planes(o, j);
        const size_t n = (size_t)w * (size_t)h * (size_t)j->n_planes;
        if (!(j->planes = malloc(n * sizeof(float)))) {
            job_fail(j, JOB_FAILED, "out of host memory for the output planes");
            return -1;
        }
        *dst = (tc_image){TC_PIXELS_FLOAT32, w, h, j->n_planes, j->planes,
                          (long)w * (long)sizeof(float), NULL, 0};
        return 0;
    }
    /* Page-locked where the batch has the blocks: the device writes the rows there itself. */
    pinned_pool *pool = j->pool;
    if (j->out_format != IO_FORMAT_BMP) {
        const size_t channels = colour ? 3 : 1;
        j->out_size = (size_t)w * (size_t)h * channels;
        j->out = pool ? pinned_pool_get(pool, j->out_size) : malloc(j->out_size);
        if (!j->out) {
            job_fail(j, JOB_FAILED, "out of host memory for the output");
            return -1;
        }
        j->out_pixels = 1;
        *dst = (tc_image){colour ? TC_PIXELS_RGB24 : TC_PIXELS_GRAY8, w, h, 0, j->out,
                          (long)w * (long)channels, NULL, 0};
        return 0;
    }
    size_t offbits, stride;
    if (bmp_layout(w, h, colour ? 24 : 8, &j->out_size, &offbits, &stride)) {
        job_fail(j, JOB_REFUSED, "too large for a BMP file");
        return -1;
    }
    /* A BMP's rows as they lie in the file, bottom-up (page-locked: the device writes them
     * there directly). Such memory is reused, so every row's padding is zeroed here (the device
     * writes the pixels only); calloc's memory is zero already. */
    j->out = pool ? pinned_pool_get(pool, j->out_size) : calloc(j->out_size, 1);
    if (!j->out) {
        job_fail(j, JOB_FAILED, "out of host memory for the output");
        return -1;
    }
    const size_t row = (size_t)w * (colour ? 3 : 1);
    for (int y = 0; pool && stride > row && y < h; y++)
        memset(j->out + offbits + stride * (size_t)y + row, 0, stride - row);
    bmp_put_headers(j->out, w, h, colour ? 24 : 8);
    /* Row 0 of the picture is the last row of the file. */
    *dst = (tc_image){colour ? TC_PIXELS_BGR24 : TC_PIXELS_GRAY8, w, h, 0,
                      j->out + offbits + stride * (size_t)(h - 1), -(long)stride, NULL, 0};
    return 0;
}

#ifdef TILEDCONV_TEST_HOOKS
/* Test-only fault injection, so that the tests can show -e catching a wrong pixel in a batch
 * as in one run (main.c): TILEDCONV_TEST_CORRUPT="x,y" adds 1 to that pixel of the result's
 * first plane (--gradient: the magnitude) in every image that has it, "x,y,v" adds v. */
static void inject_test_fault(const tc_options *o, job *j)
{
    const char *spec = file_hooks.corrupt_spec;
    const int w = j->src.width, h = j->src.height;
    float amount = 1.0f;
    int x, y;
    if (!spec || !j->planes || sscanf(spec, "%d,%d,%f", &x, &y, &amount) < 2 || x < 0 ||
        y < 0 || x >= w || y >= h)
        return;
    const size_t first = o->gradient && j->n_planes == 3 ? 2 : 0;
    j->planes[(first * (size_t)h + (size_t)y) * (size_t)w + (size_t)x] += amount;
}
#else
#define inject_test_fault(o, j) ((void)(o), (void)(j))
#endif

/* -e: the input planes formed on the host, for the reference (count planes of src). */
static int keep_host_planes(job *j, int count)
{
    const size_t n = (size_t)j->src.width * (size_t)j->src.height * (size_t)count;
    char err[512];
    if (!(j->host_planes = malloc(n * sizeof(float)))) {
        job_fail(j, JOB_FAILED, "out of host memory for the reference planes");
        return -1;
    }
    if (tc_image_to_planes(&j->src, count, j->host_planes, err, sizeof err) != TC_OK) {
        job_fail(j, JOB_REFUSED, err);
        return -1;
    }
    return 0;
}

/* The lane's figures for the job, from the context's last run. */
static void take_stats(tc_context *ctx, job *j)
{
    tc_stats st;
    tc_last_stats(ctx, &st);
    j->build_ms = st.build_ms;
    j->upload_ms = st.upload_ms;
    j->convert_ms = st.convert_ms;
    j->kernel_ms = st.kernel_ms_median;
    j->download_ms = st.download_ms;
}

/* --gradient: the intensity plane formed on the host (as one run forms it), the one-read
 * pass, the magnitude in place of that plane (so that outside the target ROI it keeps the
 * input, as one run's does) and, with --raw, gx and gy before it. */
static void filter_gradient(const tc_options *o, tc_context *ctx, job *j, const tc_params *p)
{
    const int w = j->src.width, h = j->src.height;
    const size_t n = (size_t)w * (size_t)h;
    const int raw = j->item->raw != NULL;
    char err[512];
    j->n_planes = raw ? 3 : 1;
    if (!(j->planes = malloc(n * (size_t)j->n_planes * sizeof(float)))) {
        job_fail(j, JOB_FAILED, "out of host memory for the gradient's planes");
        return;
    }
    float *magnitude = j->planes + (raw ? 2 * n : 0);
    if (tc_image_to_planes(&j->src, 1, magnitude, err, sizeof err) != TC_OK) {
        job_fail(j, JOB_REFUSED, err);
        return;
    }
    if (o->verify) {
        if (!(j->host_planes = malloc(n * sizeof(float)))) {
            job_fail(j, JOB_FAILED, "out of host memory for the reference planes");
            return;
        }
        memcpy(j->host_planes, magnitude, n * sizeof(float));
    }
    const int status = tc_gradient(ctx, magnitude, raw ? j->planes : NULL,
                                   raw ? j->planes + n : NULL, magnitude, w, h,
                                   (tc_gradient_operator)(o->gradient - 1),
                                   TC_GRADIENT_ONE_READ, p);
    if (status != TC_OK) {
        job_fail(j, status == TC_EINVAL ? JOB_REFUSED : JOB_FAILED, tc_error(ctx));
        return;
    }
    take_stats(ctx, j);
    inject_test_fault(o, j);
}

/* An image in strips (src/files/strips.c): read, filtered, checked and written on the lane's
 * context; nothing is left to stage. */
static void filter_strips(const tc_options *o, tc_context *ctx, job *j)
{
    strips_result res;
    tc_device_info dev;
    char err[sizeof j->msg];
    int status = tc_context_device(ctx, &dev);
    if (status != TC_OK) {
        job_fail(j, JOB_FAILED, tc_error(ctx));
        return;
    }
    /* The job's own format and depth: its input's where the batch keeps them. */
    const strips_output out = {j->item->output, j->out_format, j->depth, j->item->raw,
                               o->max_memory ? j->room : 0};
    /* Under --max-memory the buffers the lane's context keeps from the images before (and
     * the bands' after) are given back: the budget counts only the images in flight. */
    if (o->max_memory)
        (void)tc_trim(ctx);
    status = strips_run(o, ctx, &dev, j->strips, source_name(j->item->input), &out, 1, &res, err,
                        sizeof err);
    if (o->max_memory)
        (void)tc_trim(ctx);
    strips_release(&j->strips);
    /* The bands' rows, freed, stay in the heaps between what is still held: given back. */
    if (o->max_memory)
        (void)malloc_trim(0);
    j->src.width = res.width;
    j->src.height = res.height;
    j->depth = res.depth;
    j->bands = res.bands;
    j->roi = (tc_roi){0, 0, 0, 0, res.width, res.height};
    j->upload_ms = res.upload_ms;
    j->kernel_ms = res.kernel_ms;
    j->download_ms = res.download_ms;
    j->max_error = res.max_error;
    j->tolerance = res.tolerance;
    j->checked = o->verify;
    memcpy(j->sha256, res.sha256, sizeof j->sha256);
    if (status != 0) {
        j->status = status == 2 ? JOB_REFUSED : JOB_FAILED;
        snprintf(j->msg, sizeof j->msg, "%s", err);
    }
}

/* A job that runs whole through tc_filter_image: its parameters, its output made and (-e) its
 * input planes kept. 0, or -1 (the job failed). */
static int prepare_whole(const tc_options *o, job *j, tc_params *p, tc_image *dst)
{
    if (job_params(o, j, p) || prepare_output(o, j, dst) ||
        (o->verify && keep_host_planes(j, o->color ? 3 : 1)))
        return -1;
    /* Channel-last samples from the worker (16-bit samples, interleaved float planes) pair with the same 8-bit rows as a U8 image of as many channels, as the
     * channel-last layouts pair only with each other. */
    if ((j->src.format == TC_PIXELS_F32 || j->src.format == TC_PIXELS_U16) &&
        (dst->format == TC_PIXELS_GRAY8 || dst->format == TC_PIXELS_RGB24)) {
        dst->planes = dst->format == TC_PIXELS_GRAY8 ? 1 : 3;
        dst->format = TC_PIXELS_U8;
    }
    return 0;
}

/* tc_filter_image on a prepared job. */
static void filter_whole(const tc_options *o, tc_context *ctx, job *j, const tc_params *p,
                         const tc_image *dst)
{
    const int status = tc_filter_image(ctx, &j->src, dst, p);
    if (status != TC_OK) {
        job_fail(j, status == TC_EINVAL ? JOB_REFUSED : JOB_FAILED, tc_error(ctx));
        return;
    }
    take_stats(ctx, j);
    inject_test_fault(o, j);
}

/* Whether the lane encodes the job's output on the device (--tune jpeg-device=1): a JPEG
 * output of 8-bit samples made from pixels the device takes as they lie (gray or RGB in
 * packed rows: what the PNG, JPEG and PGM/PPM decoders give), whole, from the library's one
 * filter, off the JPEG path (which encodes on the device already). */
static int encodes_on_device(const tc_options *o, const job *j)
{
    const int channels = o->color ? 3 : 1;
    return o->tuning.jpeg_device && !j->jpeg_path && !j->in_strips && !o->gradient &&
           !o->no_filter && !job_wants_planes(o, j) && j->item->output &&
           j->out_format == IO_FORMAT_JPEG && j->depth == 8 && j->src.data &&
           j->src.format == (channels == 1 ? TC_PIXELS_GRAY8 : TC_PIXELS_RGB24) &&
           j->src.stride == (long)j->src.width * channels;
}

/* Whether the job goes through the library's JPEG filter: the JPEG path (from the input's
 * coefficients), or the device's encoder (from its pixels). */
static int takes_jpeg_filter(const tc_options *o, const job *j)
{
    return j->jpeg_path || encodes_on_device(o, j);
}

/* A job of the JPEG filter begun (tc_jpeg_begin): from the input's coefficients on the JPEG
 * path (job_jpeg_device_path), or from its pixels (encodes_on_device), to the output's
 * coefficients, laid out as jpeg_encode lays out the file at the run's quality and sampling,
 * in page-locked memory as the pixels' rows would be. 1: in flight (jpeg_end must follow);
 * 0: not (failed, or run otherwise here: the file decoded on the CPU where the library would
 * not take its pixels this way, and filtered as any other job). */
static int jpeg_begin(const tc_options *o, tc_context *ctx, job *j)
{
    const int channels = o->color ? 3 : 1;
    tc_params p;
    text_shown shown;
    char err[sizeof j->msg];
    if (job_params(o, j, &p))
        return 0;
    if (jpeg_coefs_layout(j->src.width, j->src.height, channels, o->quality, &j->coefs_out,
                          text_show(j->item->output, &shown), err, sizeof err)) {
        job_fail_named(j, JOB_FAILED, err);
        return 0;
    }
    io_pixels_use(j->pool ? &j->pool->io : NULL);
    const int short_of_memory = jpeg_coefs_alloc(&j->coefs_out);
    io_pixels_use(NULL);
    if (short_of_memory) {
        job_fail(j, JOB_FAILED, "out of host memory for the output's coefficients");
        return 0;
    }
    const int status = tc_jpeg_begin(ctx, j->jpeg_path ? &j->coefs_in : NULL,
                                     j->jpeg_path ? NULL : &j->src, channels, &p, &j->coefs_out,
                                     &j->ticket);
    if (status != TC_OK) {
        job_fail(j, status == TC_EINVAL ? JOB_REFUSED : JOB_FAILED, tc_error(ctx));
        return 0;
    }
    if (j->ticket >= 0)
        return 1;
    jpeg_coefs_free(&j->coefs_out);
    if (j->jpeg_path)
        job_decode_on_cpu(o, j);
    j->cpu_encode = 1; /* encodes_on_device would send it here again */
    if (j->status == JOB_OK)
        job_filter(o, ctx, j);
    return 0;
}

/* The job of jpeg_begin finished: its coefficients are the output's, or, where the device's
 * decode is not TurboJPEG's, the file is decoded on the CPU and filtered as any other job. */
static void jpeg_end(const tc_options *o, tc_context *ctx, job *j)
{
    int exact = 0;
    const int status = tc_jpeg_end(ctx, j->ticket, &exact);
    j->ticket = -1;
    jpeg_coefs_free(&j->coefs_in); /* the device is done with them */
    if (status != TC_OK) {
        job_fail(j, status == TC_EINVAL ? JOB_REFUSED : JOB_FAILED, tc_error(ctx));
        return;
    }
#ifdef TILEDCONV_TEST_HOOKS
    exact = exact && !(j->jpeg_path && file_hooks.jpeg_inexact);
#endif
    if (!exact) {
        job_decode_on_cpu(o, j);
        if (j->status == JOB_OK)
            job_filter(o, ctx, j);
        return;
    }
    j->coefs_done = 1;
    if (j->jpeg_path)
        j->jpeg_decode = "device";
    take_stats(ctx, j);
}

/* -e on the JPEG path's terms (job_jpeg_check_wanted): the file's coefficients decoded on the
 * device and compared, sample for sample, with TurboJPEG's decode that the job filters; a
 * difference fails the job as -e's own mismatches do. A file the device does not decode as
 * TurboJPEG by design (tc_decode_jpeg's exact 0) is not compared. */
static void check_device_decode(tc_context *ctx, job *j)
{
    const size_t n = (size_t)j->image.width * (size_t)j->image.height * (size_t)j->image.channels;
    unsigned char *got = j->image.pixels && j->image.depth == 8 ? malloc(n ? n : 1) : NULL;
    int exact = 0;
    j->jpeg_check = 0; /* once: the group's call and job_filter both come here */
    if (!got) {
        if (j->image.pixels && j->image.depth == 8)
            job_fail(j, JOB_FAILED, "out of host memory for the device's decode");
        jpeg_coefs_free(&j->coefs_in);
        return;
    }
    const int status = tc_decode_jpeg(ctx, &j->coefs_in, j->image.channels, got, &exact);
    jpeg_coefs_free(&j->coefs_in);
#ifdef TILEDCONV_TEST_HOOKS
    if (file_hooks.jpeg_decode_corrupt && n)
        got[n / 2] ^= 1;
#endif
    if (status != TC_OK)
        job_fail(j, JOB_FAILED, tc_error(ctx));
    else if (exact) {
        size_t differ = 0;
        const unsigned char *want = j->image.pixels;
        for (size_t i = 0; i < n; i++)
            differ += got[i] != want[i];
        if (differ) {
            char why[200];
            snprintf(why, sizeof why, "verification FAILED: the device's JPEG decode differs "
                                      "from TurboJPEG's in %zu of %zu samples", differ, n);
            job_fail(j, JOB_FAILED, why);
        }
    }
    free(got);
}

void job_filter(const tc_options *o, tc_context *ctx, job *j)
{
    tc_params p;
    tc_image dst;
    if (j->jpeg_path) {
        if (jpeg_begin(o, ctx, j))
            jpeg_end(o, ctx, j);
        return;
    }
    if (j->jpeg_check) {
        check_device_decode(ctx, j);
        if (j->status != JOB_OK)
            return;
    }
    if (encodes_on_device(o, j) && !j->cpu_encode) {
        if (jpeg_begin(o, ctx, j))
            jpeg_end(o, ctx, j);
        return;
    }
    if (j->in_strips) {
        filter_strips(o, ctx, j);
        return;
    }
    if (o->gradient) {
        if (job_params(o, j, &p) == 0)
            filter_gradient(o, ctx, j, &p);
        return;
    }
    if (prepare_whole(o, j, &p, &dst) == 0)
        filter_whole(o, ctx, j, &p, &dst);
}

/* Prepared jobs of the same parameters in one tc_filter_images call; each gets an equal share
 * of its transfer, conversion and kernel times (the first its build time). Should the call
 * fail, each runs alone, so that every image gets its own outcome and line. */
static void filter_together(const tc_options *o, tc_context *ctx, job **jobs,
                            const tc_image *src, const tc_image *dst, int n, const tc_params *p)
{
    if (n == 1) {
        filter_whole(o, ctx, jobs[0], p, &dst[0]);
        return;
    }
    if (tc_filter_images(ctx, src, dst, n, p) != TC_OK) {
        for (int i = 0; i < n; i++)
            filter_whole(o, ctx, jobs[i], p, &dst[i]);
        return;
    }
    for (int i = 0; i < n; i++) {
        job *j = jobs[i];
        take_stats(ctx, j);
        j->upload_ms /= n;
        j->convert_ms /= n;
        j->kernel_ms /= n;
        j->download_ms /= n;
        if (i > 0)
            j->build_ms = 0.0;
        inject_test_fault(o, j);
    }
}

void job_filter_many(const tc_options *o, tc_context *ctx, job **jobs, int n)
{
    job *together[JOB_FILTER_MANY];
    tc_image src[JOB_FILTER_MANY], dst[JOB_FILTER_MANY];
    tc_params first, p;
    job *flying = NULL; /* the JPEG filter's image in flight, ended once the next is begun */
    int k = 0;
    for (int i = 0; i < n; i++) {
        job *j = jobs[i];
        if (j->status == JOB_OK && takes_jpeg_filter(o, j) && !j->in_strips && !j->cpu_encode) {
            if (jpeg_begin(o, ctx, j)) {
                if (flying)
                    jpeg_end(o, ctx, flying);
                flying = j;
            }
            continue;
        }
        if (flying) { /* the others run with none in flight */
            jpeg_end(o, ctx, flying);
            flying = NULL;
        }
        if (j->jpeg_check)
            check_device_decode(ctx, j);
        if (j->status != JOB_OK)
            continue;
        if (j->in_strips || o->gradient || n == 1 || k == JOB_FILTER_MANY) {
            job_filter(o, ctx, j);
            continue;
        }
        if (prepare_whole(o, j, &p, &dst[k]))
            continue;
        /* options_params starts from tc_params_init, which zeroes the padding: memcmp is exact. */
        if (k > 0 && memcmp(&p, &first, sizeof p) != 0) {
            filter_whole(o, ctx, j, &p, &dst[k]);
            continue;
        }
        first = p;
        together[k] = j;
        src[k] = j->src;
        k++;
    }
    if (flying)
        jpeg_end(o, ctx, flying);
    if (k > 0)
        filter_together(o, ctx, together, src, dst, k, &first);
}
