/*
 * jpeg_filter.c - a JPEG filtered on the device from coefficients to coefficients
 * (jpeg_filter.h). The steps are the pipeline's for an image of 8-bit samples (stream.c's
 * enqueue_image), with the upload replaced by the device's decode into the slot's input
 * samples and the download by the device's encode from its output samples:
 *
 *   decode    tc_jpeg_decode_enqueue: coefficients up, the samples into the slot's input
 *   unpack    unpack_samples: one float plane per channel (the output planes start as the
 *             input where some pixel lies outside the target ROI)
 *   filter    the job's kernel on each plane: the pipeline's prepared launch where one runs
 *             the job (tc_launch_preparable), else tc_run_resident on the device's queue, as
 *             the pipeline's filter_resident runs it (the same kernels, the same arguments,
 *             so the same values)
 *   pack      pack_samples: v * scale + offset inside the target ROI, rounded as every
 *             output of the pipeline is
 *   encode    tc_jpeg_encode_enqueue: the output's coefficients down
 *
 * All of it goes in the slot's one in-order queue and the host waits once an image (the
 * resident filter alone waits for its queue on either side); the decode's exactness, read
 * back at the end, says whether the coefficients that came down count. Timed, the
 * coefficients' transfers are the run's upload and download, and the block arithmetic with
 * the conversions its conversion time, as the pipeline counts its own.
 */
#include "jpeg_filter.h"

#include <stdlib.h>
#include <string.h>

#include "channels.h"
#include "jpeg_encode.h"
#include "programs.h"

void tc_jpeg_filter_release(tc_jpeg_filter_state *st)
{
    for (int i = 0; i < TC_JPEG_FLIGHTS; i++) {
        tc_jpeg_flight *f = &st->flights[i];
        tc_slot_release(&f->slot); /* waits for its queue */
        tc_run_stats_free(&f->total);
        tc_jpeg_encoder_release(&f->encoder);
        tc_jpeg_decoder_release(&f->decoder);
    }
    tc_launch_cache_release(&st->launches);
    if (st->samples)
        clReleaseMemObject(st->samples);
    st->samples = NULL;
    st->samples_size = 0;
}

/* The slot's queue and conversion kernels (the pipeline's program of Channels.cl), and its
 * buffers for img: its samples both ways and a plane in and out per channel. Made here
 * rather than by tc_slot_ensure, which makes the samples' buffers read-only and write-only
 * for the host's transfers: here kernels write the input samples (the decoder's) and read
 * the output's (the encoder's). */
static int ensure_slot(tc_slot *s, const tc_device *d, tc_program_cache *programs,
                       const tc_image *img, double *build_ms, tc_msg *m)
{
    const size_t bytes = tc_channels_packed_bytes(img);
    const size_t plane = (size_t)tc_device_pitch(img->width) * (size_t)img->height * sizeof(float);
    cl_program program;
    int status;
    if (!s->queue &&
        ((status = tc_program_get(programs, d, TC_SOURCE_CHANNELS, "-cl-std=CL1.2", &program,
                                  build_ms, m)) != TC_OK ||
         (status = tc_slot_open(s, d, program, 0, m)) != TC_OK))
        return status;
    unsigned long long more = tc_new_bytes(s->in_size, bytes) + tc_new_bytes(s->out_size, bytes);
    for (int c = 0; c < img->planes; c++)
        more += tc_new_bytes(s->src_size[c], plane) + tc_new_bytes(s->dst_size[c], plane);
    if ((status = tc_check_host_room(d, more, "the JPEG image's buffers", m)) != TC_OK ||
        (status = tc_ensure_buffer(d, &s->in, &s->in_size, bytes, CL_MEM_READ_WRITE,
                                   "clCreateBuffer(JPEG input samples)", m)) != TC_OK ||
        (status = tc_ensure_buffer(d, &s->out, &s->out_size, bytes, CL_MEM_READ_WRITE,
                                   "clCreateBuffer(JPEG output samples)", m)) != TC_OK)
        return status;
    for (int c = 0; c < img->planes; c++)
        if ((status = tc_ensure_buffer(d, &s->src[c], &s->src_size[c], plane, CL_MEM_READ_WRITE,
                                       "clCreateBuffer(input plane)", m)) != TC_OK ||
            (status = tc_ensure_buffer(d, &s->dst[c], &s->dst_size[c], plane, CL_MEM_READ_WRITE,
                                       "clCreateBuffer(output plane)", m)) != TC_OK)
            return status;
    return TC_OK;
}

/* Each plane filtered on the device's queue, after the slot's unpack has finished; the first
 * run's figures become the total's shape (twopass's passes), the rest are added (stream.c's
 * filter_resident). */
static int filter_planes(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
                         tc_slot *s, const tc_job *job, const tc_image *img, tc_run_stats *total,
                         tc_msg *m)
{
    int status = TC_OK, have_total = 0;
    CL_CALL(status, cleanup, m, clFinish(s->queue));
    for (int c = 0; c < img->planes; c++) {
        tc_run_stats one;
        if ((status = tc_run_resident(d, programs, buffers, job, s->src[c], s->dst[c],
                                      img->width, img->height, 0, 1, &one, m)) != TC_OK)
            return status;
        if (!have_total) {
            one.build_ms += total->build_ms;
            tc_run_stats_free(total);
            *total = one;
            have_total = 1;
        } else {
            tc_run_stats_add_device(total, &one);
            tc_run_stats_free(&one);
        }
    }
    /* pack_samples, on the slot's queue, reads what the filter wrote on the device's. */
    CL_CALL(status, cleanup, m, clFinish(d->queue));
cleanup:
    return status;
}

/* The filter's kernel on each plane, in the slot's queue where a prepared launch runs it
 * (tc_launch_preparable: the pipeline's own launches, kept in st), else through
 * filter_planes. total takes the launch's shape or the runs' figures. */
static int filter_slot(tc_jpeg_filter_state *st, tc_slot *s, const tc_device *d,
                       tc_program_cache *programs, tc_buffers *buffers, const tc_job *job,
                       const tc_image *img, tc_run_stats *total, tc_msg *m)
{
    tc_launch *launch;
    double build_ms = 0.0;
    int status;
    if (!tc_launch_preparable(job))
        return filter_planes(d, programs, buffers, s, job, img, total, m);
    if ((status = tc_launch_cache_get(&st->launches, d, programs, job, s->src[0], s->dst[0],
                                      img->width, &launch, &build_ms, m)) != TC_OK)
        return status;
    total->build_ms += build_ms;
    total->iterations = 1;
    if (!(total->kernel_ms = calloc(1, sizeof *total->kernel_ms)))
        return tc_fail(m, TC_ENOMEM, "out of host memory for the run's figures");
    memcpy(total->global, launch->global, sizeof total->global);
    memcpy(total->local, launch->local, sizeof total->local);
    return tc_slot_filter(s, launch, m);
}

/* The slot's figures of the finished image: its conversions (unpack and pack) added to t's
 * blocks, and a prepared launch's kernels to total's kernel time. */
static int add_slot_times(const tc_flight *f, tc_jpeg_times *t, tc_run_stats *total, tc_msg *m)
{
    double ms = 0.0;
    int status;
    for (int c = 0; c < f->planes && f->fast; c++) {
        if ((status = tc_stat_ms(f->kernels[c], &ms, m)) != TC_OK)
            return status;
        total->kernel_ms[0] += ms;
    }
    if ((status = tc_stat_ms(f->unpack, &ms, m)) != TC_OK)
        return status;
    t->blocks_ms += ms;
    if ((status = tc_stat_ms(f->pack, &ms, m)) != TC_OK)
        return status;
    t->blocks_ms += ms;
    return TC_OK;
}

/* The input's samples into the slot's: the device's decode of in's coefficients, or the
 * packed rows of pixels uploaded (their event in *up where timed). */
static int enqueue_input(tc_slot *s, const tc_jpeg_decode_parts *parts, const jpeg_coefs *in,
                         const tc_image *pixels, const tc_image *img, cl_event *up, tc_msg *m)
{
    int status = TC_OK;
    if (in)
        return tc_jpeg_decode_enqueue(parts, s->queue, in, img->planes, s->in, m);
    CL_CALL(status, cleanup, m,
            clEnqueueWriteBuffer(s->queue, s->in, CL_FALSE, 0, tc_channels_packed_bytes(img),
                                 pixels->data, 0, NULL, up));
cleanup:
    return status;
}

/* Everything of one image enqueued on the flight's queue: decode (or upload), unpack, filter,
 * pack, encode (only a filter that needs the device's own queue waits between). */
static int enqueue_all(tc_jpeg_filter_state *st, tc_jpeg_flight *f, const tc_device *d,
                       tc_program_cache *programs, tc_buffers *buffers, double scale,
                       double offset, const tc_jpeg_decode_parts *parts, const jpeg_coefs *in,
                       const tc_image *pixels, jpeg_coefs *out, tc_msg *m)
{
    tc_slot *s = &f->slot;
    int status;
    if ((status = enqueue_input(s, parts, in, pixels, &f->img,
                                f->timed ? &s->f.direct_up : NULL, m)) != TC_OK ||
        (status = tc_slot_unpack(s, &f->img, &f->job, 0, m)) != TC_OK ||
        (status = filter_slot(st, s, d, programs, buffers, &f->job, &f->img, &f->total, m)) !=
            TC_OK ||
        (status = tc_slot_pack(s, &f->img, &f->job, scale, offset, m)) != TC_OK)
        return status;
    return tc_jpeg_encode_enqueue(&f->encoder, d, programs, s->queue, s->out, out, f->timed, m);
}

/* The pixels an image of the JPEG filter may start from: gray or RGB 8-bit samples in packed
 * rows, top-down, of the channels given. */
static int takes_pixels(const tc_image *px, int channels)
{
    return px->data &&
           (px->format == (channels == 1 ? TC_PIXELS_GRAY8 : TC_PIXELS_RGB24) ||
            (px->format == TC_PIXELS_U8 && px->planes == channels)) &&
           px->stride == (long)px->width * channels;
}

/* The arguments' checks of tc_jpeg_filter_start. */
static int check_start(const jpeg_coefs *in, const tc_image *pixels, int channels,
                       const jpeg_coefs *out, tc_msg *m)
{
    if ((in == NULL) == (pixels == NULL))
        return tc_fail(m, TC_EINVAL, "a JPEG filter starts from coefficients or from pixels");
    if (pixels && !takes_pixels(pixels, channels))
        return tc_fail(m, TC_EINVAL, "pixels for a JPEG of %d channels: 8-bit %s samples in "
                                     "packed rows",
                       channels, channels == 1 ? "gray" : "RGB");
    if (channels != 1 && channels != 3)
        return tc_fail(m, TC_EINVAL, "channels %d: a JPEG is filtered as 1 (gray) or 3 (RGB)",
                       channels);
    const int w = in ? in->width : pixels->width, h = in ? in->height : pixels->height;
    if (out->width != w || out->height != h || out->components != channels || !out->block)
        return tc_fail(m, TC_EINVAL, "the output's coefficients are laid out for %d x %d x %d%s, "
                                     "the image is %d x %d x %d",
                       out->width, out->height, out->components,
                       out->block ? "" : " with no block", w, h, channels);
    return TC_OK;
}

int tc_jpeg_filter_start(tc_jpeg_filter_state *st, const tc_device *d,
                         tc_program_cache *programs, tc_buffers *buffers, const tc_job *job,
                         double scale, double offset, const jpeg_coefs *in,
                         const tc_image *pixels, int channels, jpeg_coefs *out, int timed,
                         int *flight, tc_msg *m)
{
    tc_jpeg_flight *f = NULL;
    int status, which = -1;
    *flight = -1;
    for (int i = 0; i < TC_JPEG_FLIGHTS && !f; i++)
        if (!st->flights[i].busy) {
            f = &st->flights[i];
            which = i;
        }
    if (!f)
        return tc_fail(m, TC_EINVAL, "every JPEG flight is in the air: finish one first");
    if ((status = check_start(in, pixels, channels, out, m)) != TC_OK)
        return status;
    const int w = in ? in->width : pixels->width, h = in ? in->height : pixels->height;
    /* The image as the pipeline sees a gray or RGB file's pixels (channels.h's view): 8-bit
     * samples, channel-last, rows packed, top-down. It has no host memory: data is never
     * read, its samples lie in the slot's buffers. */
    f->img = (tc_image){TC_PIXELS_U8, w, h, channels, NULL, (long)w * (long)channels, NULL, 0};
    f->job = *job;
    f->in = in;
    f->out = out;
    f->timed = timed;
    f->times = (tc_jpeg_times){0.0, 0.0, 0.0};
    tc_run_stats_free(&f->total);
    memset(&f->total, 0, sizeof f->total);
    const tc_jpeg_decode_parts parts = {d, programs, &f->decoder, timed ? &f->times : NULL};
    if ((status = tc_check_fits(d, w, h, m)) != TC_OK)
        return status;
    if (ensure_slot(&f->slot, d, programs, &f->img, &f->total.build_ms, m) != TC_OK) {
        /* Short of device memory beside what the idle flights keep: theirs go, and where it
         * is still short the image is not for the device (*flight -1: the caller's other
         * way, which runs it in bands if it must). */
        for (int i = 0; i < TC_JPEG_FLIGHTS; i++)
            if (!st->flights[i].busy)
                tc_slot_release_buffers(&st->flights[i].slot);
        if (ensure_slot(&f->slot, d, programs, &f->img, &f->total.build_ms, m) != TC_OK) {
            tc_slot_release_buffers(&f->slot);
            return TC_OK;
        }
    }
    /* Downloaded by nobody: the flight's chunks are the whole stream, once. */
    tc_slot_begin(&f->slot, &f->img, channels, tc_launch_preparable(job), timed,
                  tc_channels_packed_bytes(&f->img), 0, 0, NULL);
    f->busy = 1;
    *flight = which;
    f->status = enqueue_all(st, f, d, programs, buffers, scale, offset, &parts, in, pixels, out, m);
    /* Sent to the device now: a driver may hold enqueued work until a flush or a wait, and the
     * wait is the next image's to come first. */
    if (f->status == TC_OK) {
        const cl_int err = clFlush(f->slot.queue);
        if (err != CL_SUCCESS)
            f->status = cl_fail(m, err, "clFlush(JPEG image)");
    }
    if (f->status != TC_OK) /* told at the finish, which waits for what went in before it */
        f->why = *m;
    return TC_OK;
}

int tc_jpeg_filter_finish(tc_jpeg_filter_state *st, const tc_device *d,
                          tc_program_cache *programs, int flight, int *exact,
                          tc_run_stats *stats, double *convert_ms, tc_msg *m)
{
    tc_jpeg_flight *f = &st->flights[flight];
    tc_slot *s = &f->slot;
    const tc_jpeg_decode_parts parts = {d, programs, &f->decoder, f->timed ? &f->times : NULL};
    tc_jpeg_times *times = f->timed ? &f->times : NULL;
    tc_msg ignored; /* the steps' after the first failure: it is the one to tell */
    int status = f->status, decoded = 1;
    *exact = 0;
    if (status != TC_OK)
        *m = f->why;
    /* The one wait of the image (whatever happened: the transfers read in and write out). */
    const cl_int err = clFinish(s->queue);
    if (status == TC_OK && err != CL_SUCCESS)
        status = cl_fail(m, err, "clFinish(JPEG image)");
    /* Both halves finished whatever happened, so that their events go now. */
    const int decode_status =
        f->in ? tc_jpeg_decode_finish(&parts, &decoded, status == TC_OK ? m : &ignored) : TC_OK;
    if (status == TC_OK)
        status = decode_status;
    if (status == TC_OK && !f->in && f->timed) /* pixels: their upload */
        status = tc_stat_ms(s->f.direct_up, &f->times.up_ms, m);
    const int encode_status =
        tc_jpeg_encode_finish(&f->encoder, times, status == TC_OK ? m : &ignored);
    if (status == TC_OK)
        status = encode_status;
    if (status == TC_OK && f->timed)
        status = add_slot_times(&s->f, &f->times, &f->total, m);
    if (err == CL_SUCCESS)
        tc_slot_end(s); /* its queue finished above: its events released */
    else
        tc_slot_abandon(s);
    f->busy = 0;
    if (status != TC_OK || !decoded) {
        tc_run_stats_free(&f->total);
        return status;
    }
    *exact = 1;
    f->total.h2d_ms = f->times.up_ms;
    f->total.d2h_ms = f->times.down_ms;
    *stats = f->total;
    memset(&f->total, 0, sizeof f->total);
    if (convert_ms)
        *convert_ms = f->times.blocks_ms;
    return TC_OK;
}

int tc_jpeg_filter_run(tc_jpeg_filter_state *st, const tc_device *d, tc_program_cache *programs,
                       tc_buffers *buffers, const tc_job *job, double scale, double offset,
                       const jpeg_coefs *in, const tc_image *pixels, int channels,
                       jpeg_coefs *out, int *exact, tc_run_stats *stats, double *convert_ms,
                       tc_msg *m)
{
    int flight, status;
    *exact = 0;
    if ((status = tc_jpeg_filter_start(st, d, programs, buffers, job, scale, offset, in, pixels,
                                       channels, out, convert_ms != NULL, &flight, m)) != TC_OK)
        return status;
    return tc_jpeg_filter_finish(st, d, programs, flight, exact, stats, convert_ms, m);
}

int tc_jpeg_filter_decode(tc_jpeg_filter_state *st, const tc_device *d,
                          tc_program_cache *programs, const jpeg_coefs *in, int channels,
                          unsigned char *out, int *exact, tc_msg *m)
{
    tc_jpeg_flight *f = &st->flights[0];
    const tc_jpeg_decode_parts parts = {d, programs, &f->decoder, NULL};
    const size_t bytes = tc_jpeg_decoded_bytes(in, channels);
    int status;
    *exact = 0;
    if (channels != 1 && channels != 3)
        return tc_fail(m, TC_EINVAL, "channels %d: a JPEG is decoded as 1 (gray) or 3 (RGB)",
                       channels);
    if (f->busy)
        return tc_fail(m, TC_EINVAL, "a JPEG image is in flight: finish it first");
    /* Its samples alone, in a buffer of their own on the device's queue (no conversion
     * program, which a device without doubles cannot build, and no planes); an image past
     * what one buffer holds is not compared. */
    if (bytes > d->info.max_alloc_bytes)
        return TC_OK;
    if ((status = tc_ensure_buffer(d, &st->samples, &st->samples_size, bytes, CL_MEM_READ_WRITE,
                                   "clCreateBuffer(JPEG decoded samples)", m)) != TC_OK ||
        (status = tc_jpeg_decode(&parts, in, channels, st->samples, exact, m)) != TC_OK)
        return status;
    CL_CALL(status, failed, m,
            clEnqueueReadBuffer(d->queue, st->samples, CL_TRUE, 0, bytes, out, 0, NULL, NULL));
    return TC_OK;
failed:
    *exact = 0;
    return status;
}
