/*
 * stream_slot.c - a slot of the image pipeline and the steps of the image it holds
 * (stream_slot.h).
 */
#include "stream_slot.h"

#include <stdlib.h>
#include <string.h>

#include "tuning.h"

static void release_flight(tc_flight *f)
{
    cl_event *events[] = {&f->unpack, &f->pack, &f->direct_up, &f->direct_down};
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
        tc_event_release(events[i]);
    for (int c = 0; c < TC_MAX_CHANNELS; c++)
        tc_event_release(&f->kernels[c]);
}

void tc_slot_release_buffers(tc_slot *s)
{
    cl_mem *mems[2 + 2 * TC_MAX_CHANNELS] = {&s->in, &s->out};
    /* (the palette's buffer goes with the kernels that read it, in tc_slot_release) */
    for (int c = 0; c < TC_MAX_CHANNELS; c++) {
        mems[2 + 2 * c] = &s->src[c];
        mems[3 + 2 * c] = &s->dst[c];
    }
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
        if (*mems[i])
            clReleaseMemObject(*mems[i]);
    s->in = s->out = NULL;
    s->in_size = s->out_size = 0;
    memset(s->src, 0, sizeof s->src);
    memset(s->dst, 0, sizeof s->dst);
    memset(s->src_size, 0, sizeof s->src_size);
    memset(s->dst_size, 0, sizeof s->dst_size);
}

void tc_slot_release(tc_slot *s)
{
    (void)tc_slot_join_copies(s, NULL);
    if (s->queue)
        clFinish(s->queue);
    release_flight(&s->f);
    tc_ring_release(&s->up, s->queue);
    tc_ring_release(&s->down, s->queue);
    tc_slot_release_buffers(s);
    cl_kernel kernels[] = {s->unpack, s->pack, s->unpack_pixels, s->pack_pixels};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        if (kernels[i])
            clReleaseKernel(kernels[i]);
    if (s->palette)
        clReleaseMemObject(s->palette);
    if (s->queue)
        clReleaseCommandQueue(s->queue);
    memset(s, 0, sizeof *s);
}

/* Pixels.cl's kernels and the palette's buffer, which unpack_pixels reads for every format
 * (a kernel argument needs a buffer), made on the slot's first image of the older layouts. */
static int open_pixels(tc_slot *s, const tc_device *d, cl_program program, tc_msg *m)
{
    cl_int err;
    int status = TC_OK;
    s->unpack_pixels = clCreateKernel(program, "unpack_pixels", &err);
    CL_CHECK(status, done, m, err, "clCreateKernel(unpack_pixels)");
    s->pack_pixels = clCreateKernel(program, "pack_pixels", &err);
    CL_CHECK(status, done, m, err, "clCreateKernel(pack_pixels)");
    s->palette = clCreateBuffer(d->context, CL_MEM_READ_ONLY, sizeof s->palette_bytes, NULL, &err);
    CL_CHECK(status, done, m, err, "clCreateBuffer(palette)");
done:
    return status;
}

static void drop_kernel(cl_kernel *k)
{
    if (*k)
        clReleaseKernel(*k);
    *k = NULL;
}

/* A failure takes back only what this call began to make: the slot keeps its queue and any
 * image it has in flight (a slot meets its first image of a kind while its last image of the
 * other kind may still be in the air), which releasing the whole slot would lose. */
int tc_slot_open(tc_slot *s, const tc_device *d, cl_program program, int pixels, tc_msg *m)
{
    cl_int err;
    int status = TC_OK;
    if (!s->queue) {
        s->queue = clCreateCommandQueue(d->context, d->device, CL_QUEUE_PROFILING_ENABLE, &err);
        CL_CHECK(status, done, m, err, "clCreateCommandQueue(stream slot)");
    }
    if (pixels) {
        if (!s->palette && (status = open_pixels(s, d, program, m)) != TC_OK) {
            drop_kernel(&s->unpack_pixels); /* the palette, made last, was not */
            drop_kernel(&s->pack_pixels);
        }
        return status;
    }
    if (s->unpack)
        return TC_OK;
    s->unpack = clCreateKernel(program, "unpack_samples", &err);
    CL_CHECK(status, kernels_failed, m, err, "clCreateKernel(unpack_samples)");
    s->pack = clCreateKernel(program, "pack_samples", &err);
    CL_CHECK(status, kernels_failed, m, err, "clCreateKernel(pack_samples)");
    return TC_OK;
kernels_failed:
    drop_kernel(&s->unpack);
    drop_kernel(&s->pack);
done:
    return status;
}

/* The lowest address of img's rows and the distance between two of them: the first row's for
 * top-down rows, the last row's for bottom-up ones (a negative stride, as a BMP stores them). */
static const unsigned char *rows_base(const tc_image *img, size_t *pitch)
{
    const unsigned char *data = img->data;
    if (img->stride >= 0) {
        *pitch = (size_t)img->stride;
        return data;
    }
    *pitch = (size_t)0 - (size_t)img->stride;
    return data - *pitch * (size_t)(img->height - 1);
}

/* The bytes from the lowest row's first to the highest row's last: what a direct upload moves
 * (the bytes between rows too, which the device then skips). */
static size_t rows_span(const tc_image *img)
{
    size_t pitch;
    (void)rows_base(img, &pitch);
    return pitch * (size_t)(img->height - 1) + tc_channels_row_bytes(img);
}

int tc_slot_direct(tc_host_blocks *blocks, const tc_image *img)
{
    const size_t row = tc_channels_row_bytes(img);
    size_t pitch;
    const unsigned char *base = rows_base(img, &pitch);
    if (tc_tuning_now()->host_staged || pitch < row)
        return 0;
    return tc_host_blocks_hold(blocks, base, rows_span(img));
}

int tc_slot_ensure(tc_slot *s, const tc_device *d, const tc_image *src, const tc_image *dst,
                   int planes, size_t in_chunk, size_t out_chunk, int direct_in, int direct_out,
                   tc_msg *m)
{
    const int channels = planes;
    /* A direct upload brings the rows with the bytes between them (one plain transfer); the
     * staged way, and every download, the packed rows alone. */
    const size_t in_bytes = direct_in ? rows_span(src) : tc_channels_packed_bytes(src);
    const size_t out_bytes = tc_channels_packed_bytes(dst);
    const size_t plane = (size_t)tc_device_pitch(src->width) * (size_t)src->height * sizeof(float);
    const size_t pin_in = direct_in ? 0 : tc_ring_bytes(in_bytes, in_chunk);
    const size_t pin_out = direct_out ? 0 : tc_ring_bytes(out_bytes, out_chunk);
    int status;
    unsigned long long more = tc_new_bytes(s->in_size, in_bytes) +
                              tc_new_bytes(s->out_size, out_bytes) +
                              tc_new_bytes(s->up.size, pin_in) + tc_new_bytes(s->down.size, pin_out);
    for (int c = 0; c < channels; c++)
        more += tc_new_bytes(s->src_size[c], plane) + tc_new_bytes(s->dst_size[c], plane);
    if ((status = tc_check_host_room(d, more, "the image's buffers", m)) != TC_OK)
        return status;
    if ((status = tc_ensure_buffer(d, &s->in, &s->in_size, in_bytes, CL_MEM_READ_ONLY,
                                   "clCreateBuffer(input samples)", m)) != TC_OK ||
        (status = tc_ensure_buffer(d, &s->out, &s->out_size, out_bytes, CL_MEM_WRITE_ONLY,
                                   "clCreateBuffer(output samples)", m)) != TC_OK)
        return status;
    for (int c = 0; c < channels; c++)
        if ((status = tc_ensure_buffer(d, &s->src[c], &s->src_size[c], plane, CL_MEM_READ_WRITE,
                                       "clCreateBuffer(input plane)", m)) != TC_OK ||
            (status = tc_ensure_buffer(d, &s->dst[c], &s->dst_size[c], plane, CL_MEM_READ_WRITE,
                                       "clCreateBuffer(output plane)", m)) != TC_OK)
            return status;
    if (!direct_in && (status = tc_ring_ensure(d, s->queue, &s->up, pin_in, in_chunk, m)) != TC_OK)
        return status;
    return direct_out ? TC_OK : tc_ring_ensure(d, s->queue, &s->down, pin_out, out_chunk, m);
}

/* One direction's chunks of one image, for the crew's tasks. */
typedef struct {
    tc_slot *s;
    const tc_image *img;
    size_t n, chunk, first; /* the stream's bytes, its chunks, the round's first chunk */
    int regions;
} transfer;

static size_t chunk_len(const transfer *t, size_t k)
{
    const size_t off = k * t->chunk;
    return t->n - off < t->chunk ? t->n - off : t->chunk;
}

/*
 * How the copies between the caller's rows and the rings go. Chunk by chunk: each chunk's
 * transfer enqueued as soon as it is copied (down: each chunk scattered as soon as it has
 * arrived), so that the bus moves one chunk while a thread copies the next; the chunks shared
 * out among the crew's threads, each enqueuing its own. Or a round at a time (by_round): the
 * round's bytes split among the crew's threads and copied at once, its transfers enqueued by
 * the caller, one for each stretch of the ring the round takes (down: the round's reads waited
 * for by the caller, then scattered by all). A thread's enqueue of its chunk's transfer waits
 * for the others' in the driver (6-45 us each: docs/benchmarks.md), but a lone image's transfer
 * then starts as soon as its first chunk is copied: on a crew of 2, a gray 1080p call from
 * ordinary memory took 0.33-0.37 ms by chunks, 0.37-0.39 by rounds; in a call of 16 such
 * images, whose copies overlap the device's work on the others, 0.25-0.29 ms an image by
 * chunks, 0.17-0.18 by rounds (0.10-0.14 from page-locked memory). With the default crew of 8
 * on the GPU machine, where eight threads enqueue at once, a lone gray 1080p image (2 MB) went
 * faster by rounds too (0.32-0.36 ms against 0.40-0.42), a colour one (6.2 MB) slower (0.83-0.91
 * against 0.74-0.76: its copies and transfers no longer overlap; docs/benchmarks.md). So a
 * call of several images, or a lone one of at most 4 MiB each way, goes by rounds where there
 * is a crew (stream.c's LONE_ROUND_BYTES), a larger lone image by chunks.
 */

/* The smallest part of a round a crew's thread copies: below it the hand-over costs more. */
#define MIN_PART ((size_t)128 << 10)

/* A round of one direction (stream_slot.h's tc_round_copy), for the crew. */
typedef tc_round_copy round_copy;

/* Where part i of a round of len bytes starts: on a cache line (64 bytes), so that no two
 * threads write one line; part `parts` starts at the end. */
static size_t part_start(size_t len, int i, int parts)
{
    const size_t at = (len * (size_t)i / (size_t)parts + 63) / 64 * 64;
    return i >= parts || at > len ? len : at;
}

/* Part i of the round: its bytes between the caller's rows and their places in the ring,
 * chunk by chunk (a part may cross from one chunk's place into the next's, which need not
 * follow it in the ring). */
static int round_part(void *arg, int i, tc_msg *m)
{
    const round_copy *r = arg;
    const size_t len = r->hi - r->lo, hi = r->lo + part_start(len, i + 1, r->parts);
    size_t lo = r->lo + part_start(len, i, r->parts);
    (void)m;
    while (lo < hi) {
        const size_t k = lo / r->chunk, in = lo - k * r->chunk;
        const size_t n = hi - lo < r->chunk - in ? hi - lo : r->chunk - in;
        unsigned char *at = r->ring + (k % (size_t)r->regions) * r->chunk + in;
        if (r->up)
            tc_channels_gather(r->img, lo, n, at);
        else
            tc_channels_scatter(r->img, lo, n, at);
        lo += n;
    }
    return TC_OK;
}

/* The round's copies on the crew: a part a thread, none under MIN_PART. */
static int copy_round(tc_copier **crew, const tc_image *img, tc_pinned_ring *ring, size_t chunk,
                      size_t n, int regions, size_t first, size_t count, int up, tc_msg *m)
{
    round_copy r = {img, ring->ptr, chunk, first * chunk, 0, regions, 1, up};
    r.hi = (first + count) * chunk < n ? (first + count) * chunk : n;
    const size_t parts = (r.hi - r.lo) / MIN_PART, width = (size_t)tc_copier_width();
    r.parts = (int)(parts < 1 ? 1 : parts > width ? width : parts);
    return tc_copier_run(crew, r.parts, round_part, &r, m);
}

/* The round's transfers between the ring and buf, one for each stretch of the ring it takes
 * (two where it wraps round the ring's end), non-blocking; each chunk's place holds the event
 * of the transfer that moves it. */
static int transfer_round(tc_slot *s, int up, size_t chunk, size_t n, int regions, size_t first,
                          size_t count, tc_msg *m)
{
    tc_pinned_ring *ring = up ? &s->up : &s->down;
    const size_t end = first + count;
    int status = TC_OK;
    for (size_t k = first, stop; k < end; k = stop) {
        for (stop = k + 1; stop < end && stop % (size_t)regions != 0; stop++)
            ;
        const size_t off = k * chunk, len = (stop * chunk < n ? stop * chunk : n) - off;
        unsigned char *at = ring->ptr + (k % (size_t)regions) * chunk;
        cl_event e = NULL;
        if (up)
            CL_CALL(status, cleanup, m,
                    clEnqueueWriteBuffer(s->queue, s->in, CL_FALSE, off, len, at, 0, NULL, &e));
        else
            CL_CALL(status, cleanup, m,
                    clEnqueueReadBuffer(s->queue, s->out, CL_FALSE, off, len, at, 0, NULL, &e));
        ring->events[k % (size_t)regions] = e;
        for (size_t j = k + 1; j < stop; j++) {
            CL_CALL(status, cleanup, m, clRetainEvent(e));
            ring->events[j % (size_t)regions] = e;
        }
    }
    CL_CALL(status, cleanup, m, clFlush(s->queue));
cleanup:
    return status;
}

/* Chunk first + i: gathered from the caller's rows into its place in the ring, and its
 * transfer enqueued and submitted at once. The ring's event of that place is this task's own
 * (a round's chunks take distinct places). */
static int upload_task(void *arg, int i, tc_msg *m)
{
    const transfer *t = arg;
    const size_t k = t->first + (size_t)i, len = chunk_len(t, k);
    const int r = (int)(k % (size_t)t->regions);
    unsigned char *at = t->s->up.ptr + (size_t)r * t->chunk;
    int status = TC_OK;
    tc_channels_gather(t->img, k * t->chunk, len, at);
    CL_CALL(status, cleanup, m,
            clEnqueueWriteBuffer(t->s->queue, t->s->in, CL_FALSE, k * t->chunk, len, at, 0, NULL,
                                 &t->s->up.events[r]));
    CL_CALL(status, cleanup, m, clFlush(t->s->queue));
cleanup:
    return status;
}

/* One transfer between the image's rows, where they lie, and the device's buffer. Up: one
 * plain transfer of the rows and the bytes between them (the conversion reads the rows at
 * their stride); down: packed rows in one plain transfer, rows of a longer stride as a
 * rectangle of them, so that the bytes between the caller's rows are never written. Bottom-up
 * rows move as they lie, lowest address first, so the buffer holds them in that order too
 * (the conversions' flip says so). Non-blocking; *e is its event. */
static int transfer_direct(tc_slot *s, cl_mem buf, int up, const tc_image *img, cl_event *e,
                           tc_msg *m)
{
    const size_t row = tc_channels_row_bytes(img), rows = (size_t)img->height;
    const size_t origin[3] = {0, 0, 0}, region[3] = {row, rows, 1};
    size_t pitch;
    void *base = (void *)rows_base(img, &pitch);
    int status = TC_OK;
    if (up)
        CL_CALL(status, cleanup, m,
                clEnqueueWriteBuffer(s->queue, buf, CL_FALSE, 0, rows_span(img), base, 0, NULL,
                                     e));
    else if (pitch == row)
        CL_CALL(status, cleanup, m,
                clEnqueueReadBuffer(s->queue, buf, CL_FALSE, 0, row * rows, base, 0, NULL, e));
    else
        CL_CALL(status, cleanup, m,
                clEnqueueReadBufferRect(s->queue, buf, CL_FALSE, origin, origin, region, row, 0,
                                        pitch, 0, base, 0, NULL, e));
    CL_CALL(status, cleanup, m, clFlush(s->queue));
cleanup:
    return status;
}

/* The source's stream up: directly, or in rounds through the ring (one round when the ring
 * holds it): before a round, the places it takes are free again once their transfers of the
 * round before last have finished. */
int tc_slot_upload(tc_slot *s, tc_copier **crew, const tc_image *src, size_t chunk, int direct,
                   tc_msg *m)
{
    tc_flight *f = &s->f;
    if (direct)
        return transfer_direct(s, s->in, 1, src, &f->direct_up, m);
    transfer t = {s, src, tc_channels_packed_bytes(src), chunk, 0, (int)(s->up.size / chunk)};
    const size_t chunks = (t.n + chunk - 1) / chunk, per = tc_ring_round(chunks, t.regions);
    int status = TC_OK;
    for (t.first = 0; t.first < chunks && status == TC_OK; t.first += per) {
        const size_t count = chunks - t.first < per ? chunks - t.first : per;
        status = tc_ring_retire_places(s->up.events, t.regions, t.first, count, &f->up, m);
        if (status == TC_OK && f->by_round) {
            status = copy_round(crew, src, &s->up, chunk, t.n, t.regions, t.first, count, 1, m);
            if (status == TC_OK)
                status = transfer_round(s, 1, chunk, t.n, t.regions, t.first, count, m);
        } else if (status == TC_OK) {
            status = tc_copier_run(crew, (int)count, upload_task, &t, m);
        }
    }
    return status;
}

/* Sets a sample conversion kernel's arguments and queues it over pitch x height work-items,
 * its event in *done. The work-groups are the implementation's choice: these kernels share
 * nothing, and PoCL's own choice ran them twice as fast as 32 x 4. */
static int enqueue_samples(tc_slot *s, cl_kernel kernel, const char *name,
                           const tc_kernel_arg *args, int n_args, cl_int pitch, int height,
                           cl_event *done, tc_msg *m)
{
    const size_t global[2] = {(size_t)pitch, (size_t)height};
    int status = tc_set_args(kernel, name, args, n_args, m);
    if (status != TC_OK)
        return status;
    return tc_enqueue(s->queue, kernel, global, NULL, done, m);
}

/* ---- The older layouts' conversions (Pixels.cl) ----------------------------------------- */

/* Where row 0 of an image of the older layouts lies in a slot's buffer (*base) and the bytes
 * from one row to the next (*stride), rows `step` bytes apart: top-down as staged, or as the
 * caller's lie where they moved directly (tc_slot_upload, tc_slot_start_download), lowest
 * address first, so that bottom-up rows (a BMP's) put row 0 last. */
static void pixel_rows(const tc_image *raw, int direct, size_t step, cl_long *base,
                       cl_long *stride)
{
    const int flip = direct && raw->stride < 0;
    *stride = flip ? -(cl_long)step : (cl_long)step;
    *base = flip ? (cl_long)step * (cl_long)(raw->height - 1) : 0;
}

/* unpack_pixels over the raw rows uploaded (src their raw view): the intensity plane, or the
 * R, G and B planes, and the output planes as copies of them. An INDEXED8 source's palette goes
 * first, from the slot's own copy: the write need not be waited for, since the slot's next
 * image comes after this one is over, and its in-order queue runs the write before the kernel. */
static int unpack_pixels(tc_slot *s, const tc_image *src, int direct, tc_msg *m)
{
    const tc_image *img = s->f.pixels.src;
    const cl_int format = (cl_int)img->format, pitch = tc_device_pitch(img->width);
    const cl_int planes = s->f.planes;
    size_t abs_stride;
    cl_long base, stride;
    int status = TC_OK;
    (void)rows_base(src, &abs_stride);
    pixel_rows(src, direct, direct ? abs_stride : tc_channels_row_bytes(src), &base, &stride);
    if (img->format == TC_PIXELS_INDEXED8) {
        memset(s->palette_bytes, 0, sizeof s->palette_bytes);
        memcpy(s->palette_bytes, img->palette, 3 * (size_t)img->palette_size);
        CL_CALL(status, cleanup, m,
                clEnqueueWriteBuffer(s->queue, s->palette, CL_FALSE, 0, sizeof s->palette_bytes,
                                     s->palette_bytes, 0, NULL, NULL));
    }
    cl_mem p[3], q[3];
    for (int c = 0; c < 3; c++) { /* unused arguments still need a buffer */
        p[c] = c < planes ? s->src[c] : s->src[0];
        q[c] = c < planes ? s->dst[c] : s->dst[0];
    }
    const tc_kernel_arg args[] = {
        TC_KARG(s->in),      TC_KARG(base),       TC_KARG(stride),     TC_KARG(format),
        TC_KARG(img->width), TC_KARG(img->height), TC_KARG(s->palette), TC_KARG(planes),
        TC_KARG(pitch),      TC_KARG(p[0]),       TC_KARG(p[1]),       TC_KARG(p[2]),
        TC_KARG(q[0]),       TC_KARG(q[1]),       TC_KARG(q[2])};
    return enqueue_samples(s, s->unpack_pixels, "unpack_pixels", args,
                           (int)(sizeof args / sizeof args[0]), pitch, img->height,
                           s->f.timed ? &s->f.unpack : NULL, m);
cleanup:
    return status;
}

/* Float planes out: each filtered plane's rows copied on the device into the output's packed
 * rows, plane after plane (the raw view's rows). Not a conversion, so not timed as one: the
 * planes that came down from their own buffers before were not either. */
static int copy_planes(tc_slot *s, const tc_image *img, tc_msg *m)
{
    const size_t row = (size_t)img->width * sizeof(float);
    const size_t pitch = (size_t)tc_device_pitch(img->width) * sizeof(float);
    const size_t origin[3] = {0, 0, 0}, region[3] = {row, (size_t)img->height, 1};
    int status = TC_OK;
    for (int c = 0; c < s->f.planes; c++) {
        const size_t at[3] = {0, (size_t)c * (size_t)img->height, 0};
        CL_CALL(status, cleanup, m,
                clEnqueueCopyBufferRect(s->queue, s->dst[c], s->out, origin, at, region, pitch, 0,
                                        row, 0, 0, NULL, NULL));
    }
cleanup:
    return status;
}

/* pack_pixels into the raw rows that come down (dst their raw view): the mapping inside the
 * target ROI. Only the pixels move, so the kernel writes no gap between rows: the caller's
 * gaps are zeroed on the host (tc_channels_zero_gaps). */
static int pack_pixels(tc_slot *s, const tc_image *dst, const tc_job *job, double scale,
                       double offset, tc_msg *m)
{
    const tc_image *img = s->f.pixels.dst;
    if (img->format == TC_PIXELS_FLOAT32)
        return copy_planes(s, img, m);
    const cl_int format = (cl_int)img->format, pitch = tc_device_pitch(img->width);
    const cl_int planes = s->f.planes, gap = 0;
    const tc_roi *r = &job->roi;
    cl_long base, stride;
    pixel_rows(dst, s->f.direct_out, tc_channels_row_bytes(dst), &base, &stride);
    cl_mem q[3];
    for (int c = 0; c < 3; c++)
        q[c] = c < planes ? s->dst[c] : s->dst[0];
    const tc_kernel_arg args[] = {
        TC_KARG(q[0]),        TC_KARG(q[1]),       TC_KARG(q[2]),       TC_KARG(pitch),
        TC_KARG(img->width),  TC_KARG(img->height), TC_KARG(planes),     TC_KARG(format),
        TC_KARG(s->out),      TC_KARG(base),       TC_KARG(stride),     TC_KARG(gap),
        TC_KARG(r->dst_left), TC_KARG(r->dst_top), TC_KARG(r->width),   TC_KARG(r->height),
        TC_KARG(scale),       TC_KARG(offset)};
    return enqueue_samples(s, s->pack_pixels, "pack_pixels", args,
                           (int)(sizeof args / sizeof args[0]), pitch, img->height,
                           s->f.timed ? &s->f.pack : NULL, m);
}

/* ---- The channel-last layouts' conversions (Channels.cl) --------------------------------- */

int tc_slot_unpack(tc_slot *s, const tc_image *src, const tc_job *job, int direct, tc_msg *m)
{
    if (s->f.pixels.src)
        return unpack_pixels(s, src, direct, m);
    const cl_int format = (cl_int)src->format, pitch = tc_device_pitch(src->width);
    const cl_int flip = direct && src->stride < 0; /* the buffer's rows as the caller's lie */
    /* Samples from one row's start to the next's: the caller's stride where the rows came up
     * as they lie, else packed. */
    size_t abs_stride;
    (void)rows_base(src, &abs_stride);
    const cl_int in_pitch = (cl_int)(direct ? abs_stride / tc_sample_size(src->format)
                                            : (size_t)src->width * (size_t)src->planes);
    const tc_roi *r = &job->roi;
    /* The output planes start as the input only where some pixel lies outside the target
     * ROI (those keep the input); a whole-image ROI overwrites every pixel. */
    const cl_int copy = !(r->dst_left == 0 && r->dst_top == 0 && r->width == src->width &&
                          r->height == src->height);
    cl_mem p[TC_MAX_CHANNELS], q[TC_MAX_CHANNELS];
    for (int c = 0; c < TC_MAX_CHANNELS; c++) { /* unused arguments still need a buffer */
        p[c] = c < src->planes ? s->src[c] : s->src[0];
        q[c] = c < src->planes ? s->dst[c] : s->dst[0];
    }
    const tc_kernel_arg args[] = {
        TC_KARG(s->in),     TC_KARG(format), TC_KARG(src->width), TC_KARG(src->height),
        TC_KARG(src->planes), TC_KARG(pitch), TC_KARG(copy),      TC_KARG(p[0]),
        TC_KARG(p[1]),      TC_KARG(p[2]),  TC_KARG(p[3]),       TC_KARG(q[0]),
        TC_KARG(q[1]),      TC_KARG(q[2]),  TC_KARG(q[3]),       TC_KARG(flip),
        TC_KARG(in_pitch)};
    return enqueue_samples(s, s->unpack, "unpack_samples", args,
                           (int)(sizeof args / sizeof args[0]), pitch, src->height,
                           s->f.timed ? &s->f.unpack : NULL, m);
}

int tc_slot_pack(tc_slot *s, const tc_image *dst, const tc_job *job, double scale,
                 double offset, tc_msg *m)
{
    if (s->f.pixels.src)
        return pack_pixels(s, dst, job, scale, offset, m);
    const cl_int format = (cl_int)dst->format, pitch = tc_device_pitch(dst->width);
    const cl_int flip = s->f.direct_out && dst->stride < 0;
    const tc_roi *r = &job->roi;
    cl_mem q[TC_MAX_CHANNELS];
    for (int c = 0; c < TC_MAX_CHANNELS; c++)
        q[c] = c < dst->planes ? s->dst[c] : s->dst[0];
    const tc_kernel_arg args[] = {
        TC_KARG(q[0]),        TC_KARG(q[1]),        TC_KARG(q[2]),      TC_KARG(q[3]),
        TC_KARG(pitch),       TC_KARG(dst->width),  TC_KARG(dst->height), TC_KARG(dst->planes),
        TC_KARG(format),      TC_KARG(s->out),      TC_KARG(r->dst_left), TC_KARG(r->dst_top),
        TC_KARG(r->width),    TC_KARG(r->height),   TC_KARG(scale),     TC_KARG(offset),
        TC_KARG(flip)};
    return enqueue_samples(s, s->pack, "pack_samples", args,
                           (int)(sizeof args / sizeof args[0]), pitch, dst->height,
                           s->f.timed ? &s->f.pack : NULL, m);
}

/* Each plane's two plane arguments (0 and 1 in every one-pass kernel: src, dst) are set per
 * plane, the rest as prepared. */
int tc_slot_filter(tc_slot *s, tc_launch *l, tc_msg *m)
{
    const int planes = s->f.planes;
    int status = TC_OK;
    for (int c = 0; c < planes; c++) {
        CL_CALL(status, cleanup, m, clSetKernelArg(l->kernel, 0, sizeof(cl_mem), &s->src[c]));
        CL_CALL(status, cleanup, m, clSetKernelArg(l->kernel, 1, sizeof(cl_mem), &s->dst[c]));
        if ((status = tc_enqueue(s->queue, l->kernel, l->global, l->local,
                                 s->f.timed ? &s->f.kernels[c] : NULL, m)) != TC_OK)
            break;
    }
cleanup:
    return status;
}

int tc_slot_filter_bytes(tc_slot *s, tc_launch *l, tc_msg *m)
{
    int status = TC_OK;
    CL_CALL(status, cleanup, m, clSetKernelArg(l->kernel, 0, sizeof(cl_mem), &s->in));
    CL_CALL(status, cleanup, m, clSetKernelArg(l->kernel, 1, sizeof(cl_mem), &s->out));
    return tc_enqueue(s->queue, l->kernel, l->global, l->local,
                      s->f.timed ? &s->f.kernels[0] : NULL, m);
cleanup:
    return status;
}

/* Enqueues the reads of the output's chunks that have a free place in the ring: those up
 * to `regions` chunks past the last one scattered. */
static int enqueue_reads(tc_slot *s, tc_msg *m)
{
    tc_flight *f = &s->f;
    const size_t limit = f->consumed + (size_t)f->regions;
    int status = TC_OK;
    if (f->enqueued >= f->chunks || f->enqueued >= limit)
        return TC_OK;
    if (f->by_round) { /* a round's reads at a time */
        const size_t per = tc_ring_round(f->chunks, f->regions);
        while (f->enqueued < f->chunks && f->enqueued < limit && status == TC_OK) {
            size_t count = f->chunks - f->enqueued < per ? f->chunks - f->enqueued : per;
            count = count < limit - f->enqueued ? count : limit - f->enqueued;
            status = transfer_round(s, 0, f->chunk, f->bytes, f->regions, f->enqueued, count, m);
            f->enqueued += count;
        }
        return status;
    }
    for (; f->enqueued < f->chunks && f->enqueued < limit; f->enqueued++) {
        const size_t k = f->enqueued, off = k * f->chunk;
        const size_t len = f->bytes - off < f->chunk ? f->bytes - off : f->chunk;
        const int r = (int)(k % (size_t)f->regions);
        CL_CALL(status, cleanup, m,
                clEnqueueReadBuffer(s->queue, s->out, CL_FALSE, off, len,
                                    s->down.ptr + (size_t)r * f->chunk, 0, NULL,
                                    &s->down.events[r]));
    }
    CL_CALL(status, cleanup, m, clFlush(s->queue));
cleanup:
    return status;
}

int tc_slot_start_download(tc_slot *s, tc_msg *m)
{
    s->f.enqueued = s->f.consumed = 0;
    if (s->f.direct_out)
        return transfer_direct(s, s->out, 0, s->f.dst, &s->f.direct_down, m);
    return enqueue_reads(s, m);
}

/* Chunk first + i of the output: waited for, then scattered into the caller's rows. */
static int scatter_task(void *arg, int i, tc_msg *m)
{
    const transfer *t = arg;
    const size_t k = t->first + (size_t)i;
    const int r = (int)(k % (size_t)t->regions);
    int status = TC_OK;
    CL_CALL(status, cleanup, m, clWaitForEvents(1, &t->s->down.events[r]));
    tc_channels_scatter(t->img, k * t->chunk, chunk_len(t, k),
                        t->s->down.ptr + (size_t)r * t->chunk);
cleanup:
    return status;
}

/* Waits for the transfers of chunks [first, first + count) of the ring. */
static int wait_round(tc_pinned_ring *ring, int regions, size_t first, size_t count, tc_msg *m)
{
    int status = TC_OK;
    for (size_t k = first; k < first + count; k++)
        CL_CALL(status, cleanup, m, clWaitForEvents(1, &ring->events[k % (size_t)regions]));
cleanup:
    return status;
}

/* The output's chunks scattered into the caller's rows, a round at a time, each round's
 * places in the ring taking the next reads. */
static int download(tc_slot *s, tc_copier **crew, tc_msg *m)
{
    tc_flight *f = &s->f;
    transfer t = {s, f->dst, f->bytes, f->chunk, 0, f->regions};
    const size_t per = tc_ring_round(f->chunks, f->regions);
    int status = TC_OK;
    while (f->consumed < f->chunks && status == TC_OK) {
        const size_t count = f->chunks - f->consumed < per ? f->chunks - f->consumed : per;
        t.first = f->consumed;
        if (f->by_round) { /* the round's reads waited for here, then its copies shared out */
            status = wait_round(&s->down, f->regions, t.first, count, m);
            if (status == TC_OK)
                status = copy_round(crew, f->dst, &s->down, f->chunk, f->bytes, f->regions,
                                    t.first, count, 0, m);
        } else {
            status = tc_copier_run(crew, (int)count, scatter_task, &t, m);
        }
        const int one = tc_ring_retire_places(s->down.events, f->regions, t.first, count,
                                              &f->down, m);
        status = status != TC_OK ? status : one;
        f->consumed += count;
        if (status == TC_OK)
            status = enqueue_reads(s, m);
    }
    return status;
}

/* ms from the start of one event to the end of another (the same event for one); 0 for a
 * step that did not run (no event). */
static int span_ms(cl_event first, cl_event last, double *ms, tc_msg *m)
{
    *ms = 0.0;
    if (!first || !last)
        return TC_OK;
    return tc_stat_span_ms(first, last, ms, m);
}

/* A finished step's time: added to *ms now, or its event kept in later (not NULL). */
static int step_time(cl_event *e, tc_deferred *later, tc_defer_kind kind, double *ms, tc_msg *m)
{
    double step = 0.0;
    if (later)
        return tc_deferred_keep(later, e, kind, m);
    const int status = span_ms(*e, *e, &step, m);
    *ms += step;
    return status;
}

/* The held image's figures once its download is over: its uploads retired (the in-order
 * queue has finished them, so the ring is free), its times added (or, with later, its
 * conversions' and filters' events kept there; its uploads' too where they went in one round,
 * the ring's places then holding one transfer), its flight released. */
static int finish_figures(tc_slot *s, tc_run_stats *total, double *convert_ms,
                          tc_deferred *later, int one_round, tc_msg *m)
{
    tc_flight *f = &s->f;
    int status = TC_OK;
    if ((status = tc_ring_retire(&f->direct_up, &f->up, m)) != TC_OK)
        goto done;
    if (later && one_round)
        status = tc_ring_defer_places(s->up.events, s->up.capacity > 0 ? s->up.capacity : 1, 0,
                                      (size_t)(s->up.capacity > 0 ? s->up.capacity : 0), later,
                                      TC_DEFER_UPLOAD, m);
    else
        status = tc_ring_retire_all(&s->up, &f->up, m);
    if (status != TC_OK)
        goto done;
    total->h2d_ms += tc_span_ms(&f->up);
    total->d2h_ms += tc_span_ms(&f->down);
    cl_event *conversions[2] = {&f->unpack, &f->pack};
    for (int i = 0; i < 2; i++)
        if ((status = step_time(conversions[i], later, TC_DEFER_CONVERT, convert_ms, m)) !=
            TC_OK)
            goto done;
    for (int c = 0; f->fast && c < f->planes; c++)
        if ((status = step_time(&f->kernels[c], later, TC_DEFER_KERNEL, &total->kernel_ms[0],
                                m)) != TC_OK)
            goto done;
done:
    release_flight(f);
    s->busy = 0;
    return status;
}

int tc_slot_finish(tc_slot *s, tc_copier **crew, tc_run_stats *total, double *convert_ms,
                   tc_deferred *later, tc_msg *m)
{
    tc_flight *f = &s->f;
    int status;
    if (!s->busy)
        return TC_OK;
    if ((status = f->direct_out ? tc_ring_retire(&f->direct_down, &f->down, m)
                                : download(s, crew, m)) != TC_OK) {
        release_flight(f);
        s->busy = 0;
        return status;
    }
    return finish_figures(s, total, convert_ms, later, 0, m);
}

/* ---- A batch's copies beside its enqueues (stream.c) ------------------------------------- */

int tc_slot_one_round(const tc_image *src, const tc_image *dst)
{
    const tc_image *sides[2] = {src, dst};
    for (int i = 0; i < 2; i++) {
        const size_t n = tc_channels_packed_bytes(sides[i]), chunk = tc_ring_chunk(n);
        if ((n + chunk - 1) / chunk > tc_ring_bytes(n, chunk) / chunk)
            return 0;
    }
    return 1;
}

int tc_slot_rings_grow(const tc_slot *s, const tc_image *src, const tc_image *dst)
{
    const size_t in = tc_channels_packed_bytes(src), out = tc_channels_packed_bytes(dst);
    return tc_ring_bytes(in, tc_ring_chunk(in)) > s->up.size ||
           tc_ring_bytes(out, tc_ring_chunk(out)) > s->down.size;
}

int tc_slot_wait_download(tc_slot *s, tc_msg *m)
{
    const tc_flight *f = &s->f;
    return wait_round(&s->down, f->regions, 0, f->chunks, m);
}

/* Task i of the posted copies: a part of the scatter's round, then of the gather's. */
static int posted_part(void *arg, int i, tc_msg *m)
{
    tc_slot_copies *c = arg;
    const int r = i < c->rounds[0].parts ? 0 : 1;
    return round_part(&c->rounds[r], r ? i - c->rounds[0].parts : i, m);
}

/* The round of a whole stream of n bytes in chunks of chunk between img's rows and ring. */
static void whole_round(round_copy *r, const tc_image *img, const tc_pinned_ring *ring,
                        size_t chunk, size_t n, int up)
{
    const size_t parts = n / MIN_PART, width = (size_t)tc_copier_width();
    *r = (round_copy){img, ring->ptr, chunk, 0, n, (int)(ring->size / chunk), 1, up};
    r->parts = (int)(parts < 1 ? 1 : parts > width ? width : parts);
}

void tc_slot_post_copies(tc_slot *s, tc_copier **crew, int scatter, const tc_image *src,
                         size_t in_chunk)
{
    tc_slot_copies *c = &s->copies;
    const tc_flight *f = &s->f;
    memset(c->rounds, 0, sizeof c->rounds); /* parts 0: nothing that way */
    if (scatter)
        whole_round(&c->rounds[0], f->dst, &s->down, f->chunk, f->bytes, 0);
    if (src)
        whole_round(&c->rounds[1], src, &s->up, in_chunk, tc_channels_packed_bytes(src), 1);
    c->pending = 1;
    (void)tc_copier_post(crew, c->rounds[0].parts + c->rounds[1].parts, posted_part, c,
                         &c->posted);
}

int tc_slot_join_copies(tc_slot *s, tc_msg *m)
{
    if (!s->copies.pending)
        return TC_OK;
    s->copies.pending = 0;
    return tc_copier_join(&s->copies.posted, m);
}

int tc_slot_take_figures(tc_slot *s, tc_run_stats *total, double *convert_ms,
                         tc_deferred *later, tc_msg *m)
{
    tc_flight *f = &s->f;
    const int status =
        later ? tc_ring_defer_places(s->down.events, f->regions, 0, f->chunks, later,
                                     TC_DEFER_DOWNLOAD, m)
              : tc_ring_retire_places(s->down.events, f->regions, 0, f->chunks, &f->down, m);
    f->consumed = f->chunks;
    if (status != TC_OK) {
        release_flight(f);
        s->busy = 0;
        return status;
    }
    return finish_figures(s, total, convert_ms, later, 1, m);
}

int tc_slot_upload_gathered(tc_slot *s, const tc_image *src, size_t chunk, tc_msg *m)
{
    const size_t n = tc_channels_packed_bytes(src);
    return transfer_round(s, 1, chunk, n, (int)(s->up.size / chunk), 0, (n + chunk - 1) / chunk,
                          m);
}

void tc_slot_begin(tc_slot *s, const tc_image *dst, int planes, int fast, int timed,
                   size_t out_chunk, int direct_out, int by_round, const tc_pixel_pair *pixels)
{
    tc_flight *f = &s->f;
    memset(f, 0, sizeof *f);
    s->busy = 1;
    f->dst = dst;
    f->planes = planes;
    f->fast = fast;
    f->timed = timed;
    f->bytes = tc_channels_packed_bytes(dst);
    f->chunk = out_chunk;
    f->chunks = (f->bytes + out_chunk - 1) / out_chunk;
    f->regions = (int)(s->down.size / out_chunk);
    f->direct_out = direct_out;
    f->by_round = by_round;
    if (pixels)
        f->pixels = *pixels;
}

void tc_slot_end(tc_slot *s)
{
    release_flight(&s->f);
    tc_ring_release_events(&s->up);
    tc_ring_release_events(&s->down);
    s->busy = 0;
}

void tc_slot_abandon(tc_slot *s)
{
    (void)tc_slot_join_copies(s, NULL); /* the crew's hands off the rings first */
    if (s->queue)
        clFinish(s->queue);
    tc_slot_end(s);
}
