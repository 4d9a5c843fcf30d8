/* job.c - the steps of one image of a batch (job.h). */
#include "job.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outputs.h"
#include "plan.h"
#include "sha256.h"
#include "strips.h"
#include "test_hooks.h"
#include "text.h"
#include "verify.h"

/* The command line's names for the ROI fields, for messages. */
static const tc_roi_names flag_names = {"-sL", "-sT", "-tL", "-tT", "-W", "-H"};

void job_fail(job *j, int status, const char *why)
{
    text_shown shown;
    j->status = status;
    snprintf(j->msg, sizeof j->msg, "%s: %s", text_show(source_name(j->item->input), &shown),
             why);
}

/* A failure whose message names the input already ("NAME: why", from source.h). */
static void job_fail_named(job *j, int status, const char *msg)
{
    j->status = status;
    snprintf(j->msg, sizeof j->msg, "%s", msg);
}

void job_drop_input(job *j)
{
    if (j->reader_open)
        source_reader_close(&j->reader);
    j->reader_open = 0;
    free(j->file);
    j->file = NULL;
    bmp_free(&j->decoded);
    io_image_free(&j->image);
    free(j->float_src);
    j->float_src = NULL;
    strips_release(&j->strips);
}

void job_drop_buffers(job *j)
{
    job_drop_input(j);
    free(j->out);
    j->out = NULL;
    free(j->planes);
    j->planes = NULL;
    free(j->host_planes);
    j->host_planes = NULL;
}

/* ---- Reading ----------------------------------------------------------------------------- */

/* Whether the result comes back as float planes rather than the output's own 8-bit rows: -e
 * and --raw need the values, a 16-bit output its own rounding, --gradient its magnitude. */
static int wants_planes(const tc_options *o, const job *j)
{
    return o->verify || j->item->raw || j->depth == 16 || o->gradient;
}

/* The float planes that come back: --gradient's magnitude (with --raw gx and gy too), or one
 * plane a channel of the output. */
static int result_planes(const tc_options *o, const job *j)
{
    if (o->gradient)
        return j->item->raw ? 3 : 1;
    return o->color ? 3 : 1;
}

/* The host bytes the image may hold, from its header (the plan of plan.h, per image): its
 * bytes and its decoded samples (for a BMP the RGB of the worst case, whether or not its
 * pixels go to the device as they lie), the float planes made from samples of another scale or
 * depth, the output's bytes and the encoder's copy of them, and the float planes that come back
 * (-e also the host's own and its reference). */
static unsigned long long job_bytes(const tc_options *o, const job *j, const source_reader *r)
{
    const io_header *h = &r->head;
    const unsigned long long n = (unsigned long long)h->width * (unsigned long long)h->height;
    const unsigned long long planes = o->color ? 3 : 1, plane = n * sizeof(float);
    const int float_src = r->format != IO_FORMAT_BMP && !(h->depth == 8 && h->maxval == 255);
    unsigned long long bytes = (unsigned long long)r->held +
                               n * (unsigned long long)(h->channels * (h->depth / 8)) +
                               (float_src ? planes * plane : 0) +
                               2 * planes * n * (unsigned long long)(j->depth / 8);
    if (wants_planes(o, j))
        bytes += (unsigned long long)result_planes(o, j) * plane;
    if (o->verify)
        bytes += (planes + 1) * plane;
    return bytes;
}

/* The output's bits per sample: --depth, else 16 for a deep input written where 16 bits fit
 * (PNG, PGM/PPM), else 8. 0, or -1 (the job refused: --depth 16 to a format of 8 bits, which
 * a batch that keeps each input's format can only find per image). */
static int output_depth(const tc_options *o, job *j, int deep)
{
    const int holds16 = j->out_format == IO_FORMAT_PNG || j->out_format == IO_FORMAT_PNM;
    if (o->depth == 16 && !holds16) {
        char why[160];
        snprintf(why, sizeof why, "--depth 16: %s holds 8-bit samples only (--format png or "
                                  "pnm writes 16 bits)",
                 io_format_name(j->out_format));
        job_fail(j, JOB_REFUSED, why);
        return -1;
    }
    j->depth = o->depth ? o->depth : deep && holds16 ? 16 : 8;
    return 0;
}

void job_open(const tc_options *o, int keep_format, job *j)
{
    char why[768];
    io_limits lim;
    plan_io_limits(o, &lim);
    if (source_reader_open(j->item->input, &lim, &j->reader, why, sizeof why)) {
        job_fail_named(j, JOB_REFUSED, why);
        return;
    }
    j->reader_open = 1;
    if (!o->color) /* a gray job: a JPEG's intensity is its own luma, decoded alone */
        source_reader_want_luma(&j->reader);
    j->out_format = keep_format ? j->reader.format : o->image_format;
    if (output_depth(o, j, j->reader.head.maxval > 255)) {
        job_drop_input(j);
        return;
    }
    text_shown shown;
    const unsigned long long bytes = job_bytes(o, j, &j->reader);
    if (strips_wanted(o, &j->reader, bytes)) {
        /* Its lane reads, filters and writes it a band of rows at a time; it may take the
         * whole budget, for which the images in flight make room. */
        int given;
        const char *limit;
        if (o->no_filter) {
            job_fail(j, JOB_REFUSED, "too large to run whole within the memory budget, and "
                                     "--no-filter runs images whole");
            job_drop_input(j);
            return;
        }
        if ((j->strips = strips_take(&j->reader)) == NULL) {
            job_fail(j, JOB_FAILED, "out of host memory");
            job_drop_input(j);
            return;
        }
        j->reader_open = 0;
        j->in_strips = 1;
        j->bytes = (size_t)strips_budget(o, &given, &limit);
        return;
    }
    if (plan_check_host(text_show(source_name(j->item->input), &shown), bytes, why,
                        sizeof why)) {
        job_fail_named(j, JOB_FAILED, why);
        job_drop_input(j);
        return;
    }
    j->bytes = (size_t)bytes;
}

/* A PNG, JPEG or PGM/PPM: its samples decoded (and the input released); 8-bit gray or RGB of
 * full scale go to the device as pixels, any other scale or depth becomes float planes here
 * (each sample v * 255 / maxval, unrounded), in the count the output needs (the intensity, or
 * R, G, B). */
static void decode_coded(const tc_options *o, job *j)
{
    char why[768];
    const int rc = source_reader_decode(&j->reader, &j->image, why, sizeof why);
    source_reader_close(&j->reader); /* the file's bytes are not needed beside the samples */
    j->reader_open = 0;
    if (rc) {
        job_fail_named(j, JOB_REFUSED, why);
        return;
    }
    const io_image *im = &j->image;
    const int w = im->width, h = im->height;
    const size_t n = (size_t)w * (size_t)h;
    if (im->depth == 8 && im->maxval == 255) {
        j->src = (tc_image){im->channels == 1 ? TC_PIXELS_GRAY8 : TC_PIXELS_RGB24, w, h, 0,
                            im->pixels, (long)w * im->channels, NULL, 0};
        return;
    }
    const int planes = o->color ? 3 : 1;
    if (!(j->float_src = malloc(n * (size_t)planes * sizeof(float)))) {
        job_fail(j, JOB_FAILED, "out of host memory for the input planes");
        io_image_free(&j->image);
        return;
    }
    for (int c = 0; c < planes; c++) {
        tc_plane p = {w, h, j->float_src + (size_t)c * n};
        tc_plane_from_samples(&p, im->pixels, im->channels, im->depth, (unsigned)im->maxval,
                              o->color ? c : -1);
    }
    io_image_free(&j->image);
    j->src = (tc_image){TC_PIXELS_FLOAT32, w, h, planes, j->float_src,
                        (long)w * (long)sizeof(float), NULL, 0};
}

/* A BMP: only the bytes its header makes meaningful are read (and the input released); its
 * pixels as they lie in the file where they can be used so (bottom-up rows through a negative
 * stride, padding and all), else decoded to RGB. */
static void decode_bmp(job *j)
{
    char why[512];
    bmp_view v;
    const int got = source_reader_bmp_bytes(&j->reader, &j->file, &j->file_size, why,
                                            sizeof why);
    const io_limits lim = j->reader.lim;
    source_reader_close(&j->reader);
    j->reader_open = 0;
    if (got) {
        job_fail_named(j, JOB_REFUSED, why);
        return;
    }
    const int rc = bmp_view_pixels(j->file, j->file_size, &lim, &v, why, sizeof why);
    if (rc < 0) {
        job_fail(j, JOB_REFUSED, why);
        job_drop_input(j);
        return;
    }
    if (rc == 1) {
        static const tc_pixel_format formats[5] = {TC_PIXELS_GRAY8, TC_PIXELS_INDEXED8, 0,
                                                   TC_PIXELS_BGR24, TC_PIXELS_BGRX32};
        memcpy(j->palette, v.palette, sizeof j->palette);
        j->src = (tc_image){formats[v.bytes_per_pixel], v.width, v.height, 0,
                            (void *)v.top_row, v.stride, j->palette, v.palette_size};
        return;
    }
    /* 1-, 2-, 4- and 16-bit, RLE, bitfields: decoded to RGB on the host. */
    if (bmp_decode_with(j->file, j->file_size, &lim, &j->decoded, why, sizeof why)) {
        job_fail(j, JOB_REFUSED, why);
        job_drop_input(j);
        return;
    }
    free(j->file);
    j->file = NULL;
    j->src = (tc_image){TC_PIXELS_RGB24, j->decoded.width, j->decoded.height, 0, j->decoded.rgb,
                        3L * j->decoded.width, NULL, 0};
}

void job_decode(const tc_options *o, job *j)
{
    if (j->in_strips) /* its lane reads it, a band at a time */
        return;
    if (j->reader.format == IO_FORMAT_BMP)
        decode_bmp(j);
    else
        decode_coded(o, j);
}

/* ---- The filter ---------------------------------------------------------------------------- */

/* The parameters for this image: the options' filter and the ROI resolved against its size. */
static int job_params(const tc_options *o, job *j, tc_params *p)
{
    tc_msg m;
    if (tc_roi_resolve(&o->roi, j->src.width, j->src.height, &flag_names, &j->roi, &m) != TC_OK) {
        job_fail(j, JOB_REFUSED, m.text);
        return -1;
    }
    cli_params(o, &j->roi, p);
    return 0;
}

/* Where the filter's result goes: float planes when wants_planes, the rows of the output BMP
 * (bottom-up, padded), or the packed top-down rows another format's encoder takes. 0, or -1
 * (the job failed). */
static int prepare_output(const tc_options *o, job *j, tc_image *dst)
{
    const int w = j->src.width, h = j->src.height, colour = o->color;
    if (wants_planes(o, j)) {
        j->n_planes = result_planes(o, j);
        const size_t n = (size_t)w * (size_t)h * (size_t)j->n_planes;
        if (!(j->planes = malloc(n * sizeof(float)))) {
            job_fail(j, JOB_FAILED, "out of host memory for the output planes");
            return -1;
        }
        *dst = (tc_image){TC_PIXELS_FLOAT32, w, h, j->n_planes, j->planes,
                          (long)w * (long)sizeof(float), NULL, 0};
        return 0;
    }
    if (j->out_format != IO_FORMAT_BMP) {
        const size_t channels = colour ? 3 : 1;
        j->out_size = (size_t)w * (size_t)h * channels;
        if (!(j->out = malloc(j->out_size))) {
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
    /* calloc: the rows' padding bytes stay zero (large blocks come zeroed from the kernel). */
    if (!(j->out = calloc(j->out_size, 1))) {
        job_fail(j, JOB_FAILED, "out of host memory for the output");
        return -1;
    }
    bmp_put_headers(j->out, w, h, colour ? 24 : 8);
    /* Row 0 of the picture is the last row of the file. */
    *dst = (tc_image){colour ? TC_PIXELS_BGR24 : TC_PIXELS_GRAY8, w, h, 0,
                      j->out + offbits + stride * (size_t)(h - 1), -(long)stride, NULL, 0};
    return 0;
}

/* Test-only fault injection, so that the tests can show -e catching a wrong pixel in a batch
 * as in one run (main.c): TILEDCONV_TEST_CORRUPT="x,y" adds 1 to that pixel of the result's
 * first plane (--gradient: the magnitude) in every image that has it, "x,y,v" adds v. */
static void inject_test_fault(const tc_options *o, job *j)
{
    const char *spec = test_hook_corrupt_spec();
    const int w = j->src.width, h = j->src.height;
    float amount = 1.0f;
    int x, y;
    if (!spec || !j->planes || sscanf(spec, "%d,%d,%f", &x, &y, &amount) < 2 || x < 0 ||
        y < 0 || x >= w || y >= h)
        return;
    const size_t first = o->gradient && j->n_planes == 3 ? 2 : 0;
    j->planes[(first * (size_t)h + (size_t)y) * (size_t)w + (size_t)x] += amount;
}

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

/* An image in strips (cli/strips.c): read, filtered, checked and written on the lane's
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
    status = strips_run(o, ctx, &dev, j->strips, source_name(j->item->input), j->item->output,
                        j->item->raw, 1, &res, err, sizeof err);
    strips_release(&j->strips);
    j->src.width = res.width;
    j->src.height = res.height;
    j->depth = res.depth;
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

void job_filter(const tc_options *o, tc_context *ctx, job *j)
{
    tc_params p;
    tc_image dst;
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
    int k = 0;
    for (int i = 0; i < n; i++) {
        job *j = jobs[i];
        if (j->status != JOB_OK)
            continue;
        if (j->in_strips || o->gradient || n == 1 || k == JOB_FILTER_MANY) {
            job_filter(o, ctx, j);
            continue;
        }
        if (prepare_whole(o, j, &p, &dst[k]))
            continue;
        /* cli_params starts from tc_params_init, which zeroes the padding: memcmp is exact. */
        if (k > 0 && memcmp(&p, &first, sizeof p) != 0) {
            filter_whole(o, ctx, j, &p, &dst[k]);
            continue;
        }
        first = p;
        together[k] = j;
        src[k] = j->src;
        k++;
    }
    if (k > 0)
        filter_together(o, ctx, together, src, dst, k, &first);
}

/* ---- --no-filter: the codec floor ---------------------------------------------------------- */

/* src's pixels as packed rows of `channels` 8-bit samples, where its layout allows a plain
 * copy (gray to gray, RGB to RGB, BGR or BGRX to RGB): 0, or -1 when it needs the planes. */
static int copy_pixels(const tc_image *src, int channels, uint8_t *out)
{
    const int w = src->width, h = src->height;
    const size_t row = (size_t)w * (size_t)channels;
    const int same = (channels == 1 && src->format == TC_PIXELS_GRAY8) ||
                     (channels == 3 && src->format == TC_PIXELS_RGB24);
    const int step = src->format == TC_PIXELS_BGR24 ? 3 : src->format == TC_PIXELS_BGRX32 ? 4 : 0;
    if (!same && !(channels == 3 && step))
        return -1;
    for (int y = 0; y < h; y++) {
        const uint8_t *in = (const uint8_t *)src->data + (long)y * src->stride;
        uint8_t *o = out + (size_t)y * row;
        if (same) {
            memcpy(o, in, row);
            continue;
        }
        for (int x = 0; x < w; x++, in += step, o += 3) {
            o[0] = in[2];
            o[1] = in[1];
            o[2] = in[0];
        }
    }
    return 0;
}

void job_copy(const tc_options *o, job *j)
{
    const int w = j->src.width, h = j->src.height, channels = o->color ? 3 : 1;
    const size_t n = (size_t)w * (size_t)h;
    char err[512];
    j->out_size = n * (size_t)channels * (size_t)(j->depth / 8);
    if (!(j->out = malloc(j->out_size))) {
        job_fail(j, JOB_FAILED, "out of host memory for the output");
        return;
    }
    j->out_pixels = 1;
    if (j->depth == 8 && copy_pixels(&j->src, channels, j->out) == 0)
        return;
    /* Any other layout: the planes a filter would read, then the output's samples. */
    float *planes = malloc(n * (size_t)channels * sizeof(float));
    tc_plane p[3];
    if (!planes) {
        job_fail(j, JOB_FAILED, "out of host memory for the planes");
        return;
    }
    if (tc_image_to_planes(&j->src, channels, planes, err, sizeof err) != TC_OK) {
        free(planes);
        job_fail(j, JOB_REFUSED, err);
        return;
    }
    for (int c = 0; c < channels; c++)
        p[c] = (tc_plane){w, h, planes + (size_t)c * n};
    if (j->depth == 16 && channels == 3)
        tc_planes_to_rgb48(p, NULL, 1.0, 0.0, (uint16_t *)j->out);
    else if (j->depth == 16)
        tc_plane_to_gray16(p, NULL, 1.0, 0.0, (uint16_t *)j->out);
    else if (channels == 3)
        tc_planes_to_rgb24(p, NULL, 1.0, 0.0, j->out);
    else
        tc_plane_to_gray8(p, NULL, 1.0, 0.0, j->out);
    free(planes);
}

/* ---- -e ------------------------------------------------------------------------------------- */

/* The SHA-256 of the 8-bit pixels the image gets (as one run's record has it). */
static void digest_job(const tc_options *o, job *j, const tc_plane *planes, int count)
{
    const size_t n = (size_t)j->src.width * (size_t)j->src.height * (size_t)count;
    uint8_t *bytes = malloc(n);
    if (!bytes)
        return; /* the record says null; the image is still checked and written */
    if (count == 3)
        tc_planes_to_rgb24(planes, &j->roi, o->out_scale, o->out_offset, bytes);
    else
        tc_plane_to_gray8(planes, &j->roi, o->out_scale, o->out_offset, bytes);
    sha256_hex(bytes, n, j->sha256);
    free(bytes);
}

/* One plane against its reference: the largest difference and the tolerance kept, and a
 * mismatch failing the job with a line that names the plane (name NULL: the only one). */
static void compare_plane(job *j, const tc_plane *want, const tc_plane *got, double tol,
                          const char *name)
{
    const tc_verify_result v = verify_compare(want, got, &j->roi, tol, NULL, 0);
    j->max_error = v.max_error > j->max_error ? v.max_error : j->max_error;
    j->tolerance = tol > j->tolerance ? tol : j->tolerance;
    if (v.mismatches && j->status == JOB_OK) {
        char why[256];
        snprintf(why, sizeof why, "verification FAILED: %ld mismatches%s%s (largest "
                                  "difference %.3g, tolerance %.3g)",
                 v.mismatches, name ? " in plane " : "", name ? name : "", v.max_error, tol);
        job_fail(j, JOB_FAILED, why);
    }
}

/* -e for --gradient: the magnitude (and with --raw gx and gy) against the reference. */
static void check_gradient(const tc_options *o, job *j, const tc_params *p)
{
    const int w = j->src.width, h = j->src.height, raw = j->n_planes == 3;
    const size_t n = (size_t)w * (size_t)h;
    const tc_gradient_operator op = (tc_gradient_operator)(o->gradient - 1);
    char err[512];
    float *want = malloc(n * (size_t)j->n_planes * sizeof(float));
    if (!want) {
        job_fail(j, JOB_FAILED, "out of host memory for the reference");
        return;
    }
    float *want_m = want + (raw ? 2 * n : 0);
    if (tc_gradient_reference(j->host_planes, raw ? want : NULL, raw ? want + n : NULL, want_m,
                              w, h, op, p, err, sizeof err) != TC_OK) {
        job_fail(j, JOB_FAILED, err);
        free(want);
        return;
    }
    double tol_g = 0.0;
    const double tol_m = tc_gradient_tolerance(j->host_planes, w, h, op, p, &tol_g);
    static const char *const names[3] = {"gx", "gy", "magnitude"};
    for (int c = 0; c < j->n_planes; c++) {
        const tc_plane e = {w, h, want + (size_t)c * n}, a = {w, h, j->planes + (size_t)c * n};
        const int is_m = c == j->n_planes - 1;
        compare_plane(j, &e, &a, is_m ? tol_m : tol_g, raw ? names[c] : NULL);
    }
    free(want);
}

void job_check(const tc_options *o, job *j)
{
    const int w = j->src.width, h = j->src.height;
    const size_t n = (size_t)w * (size_t)h;
    tc_params p;
    char err[512];
    if (j->status != JOB_OK || !j->planes || !j->host_planes)
        return;
    cli_params(o, &j->roi, &p);
    j->checked = 1;
    if (o->gradient) {
        check_gradient(o, j, &p);
        const tc_plane m = {w, h, j->planes + (j->n_planes == 3 ? 2 * n : 0)};
        if (j->status == JOB_OK)
            digest_job(o, j, &m, 1);
        return;
    }
    float *expected = malloc(n * sizeof *expected);
    if (!expected) {
        job_fail(j, JOB_FAILED, "out of host memory for the reference");
        return;
    }
    static const char *const names[3] = {"R", "G", "B"};
    for (int c = 0; c < j->n_planes && j->status == JOB_OK; c++) {
        const tc_plane in = {w, h, j->host_planes + c * n}, got = {w, h, j->planes + c * n};
        const tc_plane want = {w, h, expected};
        if (tc_reference(in.px, expected, w, h, &p, err, sizeof err) != TC_OK) {
            job_fail(j, JOB_FAILED, err);
            break;
        }
        compare_plane(j, &want, &got, tc_tolerance(in.px, w, h, &p),
                      j->n_planes > 1 ? names[c] : NULL);
    }
    free(expected);
    if (j->status == JOB_OK) {
        tc_plane planes[3];
        for (int c = 0; c < j->n_planes; c++)
            planes[c] = (tc_plane){w, h, j->planes + c * n};
        digest_job(o, j, planes, j->n_planes);
    }
}

/* ---- Writing -------------------------------------------------------------------------------- */

/* The image file's bytes into f: the BMP the lane made as it is, packed rows through the
 * format's encoder, or float planes through the 8- or 16-bit mapping and then the encoder.
 * 0, or -1 with "PATH: reason" in err. */
static int write_image(const tc_options *o, const job *j, FILE *f, char *err, size_t err_size)
{
    const int w = j->src.width, h = j->src.height;
    const size_t n = (size_t)w * (size_t)h;
    const char *path = j->item->output;
    text_shown shown;
    if (j->planes) {
        /* --gradient: the image is the magnitude, the last plane. */
        const int count = o->gradient ? 1 : j->n_planes;
        const float *first = j->planes + (o->gradient && j->n_planes == 3 ? 2 * n : 0);
        tc_plane planes[3];
        io_image img;
        for (int c = 0; c < count; c++)
            planes[c] = (tc_plane){w, h, (float *)first + (size_t)c * n};
        if (outputs_image_from_planes(o, planes, count, &j->roi, j->depth, &img)) {
            snprintf(err, err_size, "%s: out of host memory", text_show(path, &shown));
            return -1;
        }
        const int rc = io_encode(f, j->out_format, &img, o->quality, text_show(path, &shown),
                                 err, err_size);
        io_image_free(&img);
        return rc;
    }
    if (j->out_pixels) {
        const io_image img = {w, h, o->color ? 3 : 1, j->depth, j->depth == 16 ? 65535 : 255,
                              j->out};
        return io_encode(f, j->out_format, &img, o->quality, text_show(path, &shown), err,
                         err_size);
    }
    if (fwrite(j->out, 1, j->out_size, f) != j->out_size) {
        snprintf(err, err_size, "%s: write error: %s", text_show(path, &shown), strerror(errno));
        return -1;
    }
    return 0;
}

/* A staged file opened in the output's folder, without a name where the file system allows.
 * 0, or -1 with the reason in err. */
static int stage_file(atomic_file *af, const char *path, char *err, size_t err_size)
{
    if (atomic_file_open(af, path, err, err_size))
        return -1;
    af->sync_folder = 0; /* the batch syncs its folder once, at the end */
    return 0;
}

/* Flushed to the kernel, so that the waiter's fsync has only the disk to wait for. */
static int flush_file(atomic_file *af, char *err, size_t err_size)
{
    if (fflush(af->f) == 0)
        return 0;
    text_shown shown;
    snprintf(err, err_size, "%s: write error: %s", text_show(af->path, &shown), strerror(errno));
    return -1;
}

/* Standard output (a run of one image, -o -): written whole at once. */
static void write_stdout(const tc_options *o, job *j)
{
    char err[768];
    int rc;
    if (j->out && !j->out_pixels) {
        rc = outputs_put_bytes(j->item->output, j->out, j->out_size, OUTPUTS_SYNC_NONE, err,
                               sizeof err);
    } else {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        rc = !f || write_image(o, j, f, err, sizeof err) ? -1 : 0;
        if (f && fclose(f) != 0 && rc == 0) {
            snprintf(err, sizeof err, "-o -: out of host memory for the encoded image");
            rc = -1;
        }
        if (!f)
            snprintf(err, sizeof err, "-o -: out of host memory for the encoded image");
        if (rc == 0)
            rc = outputs_put_bytes(j->item->output, (const uint8_t *)buf, len,
                                   OUTPUTS_SYNC_NONE, err, sizeof err);
        free(buf);
    }
    if (rc)
        job_fail_named(j, JOB_FAILED, err);
}

/* --raw's file staged: the float planes as they came back (--gradient: gx, gy, magnitude).
 * 0, or -1 with "--raw PATH: reason" in err. */
static int stage_raw(const job *j, atomic_file *af, char *err, size_t err_size)
{
    const size_t n = (size_t)j->src.width * (size_t)j->src.height;
    tc_plane planes[3];
    char why[700] = "";
    for (int c = 0; c < j->n_planes; c++)
        planes[c] = (tc_plane){j->src.width, j->src.height, j->planes + (size_t)c * n};
    if (stage_file(af, j->item->raw, why, sizeof why) == 0 &&
        outputs_raw_stream(af->f, planes, j->n_planes) == 0 &&
        flush_file(af, why, sizeof why) == 0)
        return 0;
    if (!why[0]) {
        text_shown shown;
        snprintf(why, sizeof why, "%s: write error: %s", text_show(j->item->raw, &shown),
                 strerror(errno));
    }
    snprintf(err, err_size, "--raw %s", why);
    return -1;
}

void job_stage(const tc_options *o, job *j)
{
    commit_item *c = &j->commit;
    char err[768] = "";
    c->files[0] = (atomic_file)ATOMIC_FILE_INIT;
    c->files[1] = (atomic_file)ATOMIC_FILE_INIT;
    c->flags[0] = "";
    c->flags[1] = "--raw ";
    if (j->status != JOB_OK || j->in_strips) /* strips wrote their files themselves */
        return;
    if (j->item->output && outputs_is_stdout(j->item->output)) {
        write_stdout(o, j);
        return;
    }
    if (j->item->output &&
        (stage_file(&c->files[0], j->item->output, err, sizeof err) ||
         write_image(o, j, c->files[0].f, err, sizeof err) ||
         flush_file(&c->files[0], err, sizeof err)))
        goto fail;
    if (j->item->raw && j->planes && stage_raw(j, &c->files[1], err, sizeof err))
        goto fail;
    return;
fail:
    atomic_file_discard(&c->files[0]);
    atomic_file_discard(&c->files[1]);
    c->files[0] = (atomic_file)ATOMIC_FILE_INIT;
    c->files[1] = (atomic_file)ATOMIC_FILE_INIT;
    job_fail_named(j, JOB_FAILED, err);
}
