/*
 * stream.c - the pipeline of stream.h.
 *
 * One image in a slot:
 *   upload     the caller's rows gathered chunk by chunk into the slot's pinned memory, the
 *              chunks shared out among the context's copy crew (copier.h): each thread copies
 *              a chunk and enqueues (and flushes) its transfer at once, so that the bus moves
 *              one chunk while the threads copy the next ones
 *   unpack     unpack_samples: one float plane per channel (Channels.cl)
 *   filter     the job's kernel once per plane, from a launch prepared once per job and size
 *              (its arguments but the two planes set once; the coefficients on the device)
 *   pack       pack_samples: the output samples, packed
 *   download   every chunk's read enqueued at once into pinned memory; the crew scatters each
 *              into the caller's rows once it has arrived, while the later ones are in transfer
 * The pinned memory of each direction is a ring of chunks. An image larger than the ring goes
 * in rounds of half the ring: while one half's chunks are in transfer the crew fills (or
 * empties) the other half. A batch puts image i in slot i mod 3; before a slot takes a new
 * image it finishes the one it holds, so the host's copies for one image run while the device
 * works on the two before it.
 */
#include "stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channels.h"
#include "copier.h"
#include "programs.h"

#define SLOTS 3
/* The pinned memory of one slot and direction, at most: a 1080p RGB float image (24 MB) fits
 * whole; a larger one goes through it as a ring. */
#define PINNED_CAP ((size_t)32 << 20)
/* An image's stream goes in about one chunk for each thread of the copy crew, each 512 KiB ..
 * 8 MiB: the threads copy their chunks at once and each starts its transfer when done, while
 * the transfers stay few: each costs about 10 us beyond its bytes (on an H100 machine, one
 * 1080p gray call took 0.58 ms in chunks of 1 MiB, 0.60 in 512 KiB, 0.67 in 256 KiB and 1.23
 * in 64 KiB, copied on one thread). */
#define MIN_CHUNK ((size_t)512 << 10)
#define MAX_CHUNK ((size_t)8 << 20)
/* Prepared filter launches kept: the jobs of a few image sizes or filters. */
#define LAUNCHES 4

typedef struct {
    cl_mem mem;
    unsigned char *ptr; /* mapped once, for the slot's life */
    size_t size;
    cl_event *events;   /* per chunk of the ring: the transfer that last used it, or NULL */
    int capacity;       /* entries of events */
} pinned;

/* The earliest start and the latest end of a direction's transfers (profiling counters). */
typedef struct {
    cl_ulong start, end;
} span;

/* The image a slot holds until it is finished. */
typedef struct {
    const tc_image *dst;
    int index, planes, fast;
    size_t bytes, chunk;             /* the output's packed stream and its chunks */
    size_t chunks;                   /* of the output */
    int regions;                     /* chunks of the download ring */
    size_t enqueued, consumed;       /* chunks read, and scattered into dst */
    span up, down;                   /* the transfers' times, folded in as they are released */
    cl_event unpack, pack;
    cl_event kernels[TC_MAX_CHANNELS];
} flight;

typedef struct {
    cl_command_queue queue;          /* its own, so that slots overlap on the device */
    cl_kernel unpack, pack;
    cl_mem in, out;                  /* the packed samples */
    size_t in_size, out_size;
    cl_mem src[TC_MAX_CHANNELS], dst[TC_MAX_CHANNELS];
    size_t src_size[TC_MAX_CHANNELS], dst_size[TC_MAX_CHANNELS];
    pinned up, down;
    int busy;
    flight f;
} slot;

typedef struct {
    int used;
    unsigned long age;
    int width;
    tc_job job;
    tc_launch launch;
} prepared;

struct tc_stream {
    const tc_device *d;
    tc_copier **crew;                /* the context's copy crew */
    cl_program program;
    slot slots[SLOTS];
    prepared launches[LAUNCHES];
    unsigned long clock;
};

/* ---- Setup and release ------------------------------------------------------------------- */

static void release_event(cl_event *e)
{
    if (*e)
        clReleaseEvent(*e);
    *e = NULL;
}

static void release_flight(flight *f)
{
    cl_event *events[] = {&f->unpack, &f->pack};
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
        release_event(events[i]);
    for (int c = 0; c < TC_MAX_CHANNELS; c++)
        release_event(&f->kernels[c]);
}

static void release_ring_events(pinned *p)
{
    for (int i = 0; i < p->capacity; i++)
        release_event(&p->events[i]);
}

static void release_pinned(pinned *p, cl_command_queue queue)
{
    release_ring_events(p);
    free(p->events);
    if (p->mem && p->ptr)
        clEnqueueUnmapMemObject(queue, p->mem, p->ptr, 0, NULL, NULL);
    if (queue)
        clFinish(queue);
    if (p->mem)
        clReleaseMemObject(p->mem);
    memset(p, 0, sizeof *p);
}

/* The device buffers of a slot (not its queue, kernels or pinned memory). */
static void release_buffers(slot *s)
{
    cl_mem *mems[2 + 2 * TC_MAX_CHANNELS] = {&s->in, &s->out};
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

static void release_slot(slot *s)
{
    if (s->queue)
        clFinish(s->queue);
    release_flight(&s->f);
    release_pinned(&s->up, s->queue);
    release_pinned(&s->down, s->queue);
    release_buffers(s);
    if (s->unpack)
        clReleaseKernel(s->unpack);
    if (s->pack)
        clReleaseKernel(s->pack);
    if (s->queue)
        clReleaseCommandQueue(s->queue);
    memset(s, 0, sizeof *s);
}

void tc_stream_release(tc_stream *st)
{
    if (!st)
        return;
    for (int i = 0; i < SLOTS; i++)
        release_slot(&st->slots[i]);
    for (int i = 0; i < LAUNCHES; i++)
        if (st->launches[i].used)
            tc_launch_release(&st->launches[i].launch);
    free(st);
}

/* The slot's queue and conversion kernels, made on its first image. */
static int open_slot(tc_stream *st, tc_program_cache *programs, slot *s, double *build_ms,
                     tc_msg *m)
{
    const tc_device *d = st->d;
    cl_int err;
    int status = TC_OK;
    if (s->queue)
        return TC_OK;
    if (!st->program &&
        (status = tc_program_get(programs, d, TC_SOURCE_CHANNELS, "-cl-std=CL1.2",
                                 &st->program, build_ms, m)) != TC_OK)
        return status;
    s->queue = clCreateCommandQueue(d->context, d->device, CL_QUEUE_PROFILING_ENABLE, &err);
    CL_CHECK(status, fail, m, err, "clCreateCommandQueue(stream slot)");
    s->unpack = clCreateKernel(st->program, "unpack_samples", &err);
    CL_CHECK(status, fail, m, err, "clCreateKernel(unpack_samples)");
    s->pack = clCreateKernel(st->program, "pack_samples", &err);
    CL_CHECK(status, fail, m, err, "clCreateKernel(pack_samples)");
    return TC_OK;
fail:
    release_slot(s);
    return status;
}

/* ---- Chunks and pinned memory ------------------------------------------------------------ */

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

/* A positive size from the environment (the tests' knobs), or 0. */
static size_t env_size(const char *name)
{
    const char *v = getenv(name);
    const long long n = v ? atoll(v) : 0;
    return n > 0 ? (size_t)n : 0;
}

/* The chunk an n-byte stream moves in. TILEDCONV_STAGING_CHUNK (at least 64 bytes) sets it,
 * so that the tests can move small images in many chunks. */
static size_t chunk_for(size_t n)
{
    size_t c = env_size("TILEDCONV_STAGING_CHUNK");
    if (c >= 64)
        c = round_up(c, 64);
    else
        c = round_up(n / (size_t)tc_copier_width(), 4096);
    if (c < 64)
        c = 64;
    if (!env_size("TILEDCONV_STAGING_CHUNK"))
        c = c < MIN_CHUNK ? MIN_CHUNK : c > MAX_CHUNK ? MAX_CHUNK : c;
    /* A small image pins only what it moves; no chunk passes the pinned memory's cap. */
    const size_t whole = round_up(n, 64);
    c = c < whole ? c : whole;
    return c < PINNED_CAP ? c : PINNED_CAP;
}

/* The pinned bytes for an n-byte stream in chunks of c: the whole stream, at most the cap
 * (TILEDCONV_PINNED_BYTES lowers it for the tests of the ring), at least one chunk. */
static size_t pinned_for(size_t n, size_t c)
{
    const size_t cap = env_size("TILEDCONV_PINNED_BYTES") ? env_size("TILEDCONV_PINNED_BYTES")
                                                           : PINNED_CAP;
    size_t want = round_up(n, c);
    if (want > cap)
        want = cap / c * c;
    return want < c ? c : want;
}

/* At least `want` bytes of pinned memory, mapped, and room for an event per chunk of it. */
static int ensure_pinned(const tc_device *d, cl_command_queue queue, pinned *p, size_t want,
                         size_t chunk, tc_msg *m)
{
    cl_int err;
    int status = TC_OK, regions;
    if (p->size < want) {
        release_pinned(p, queue);
        if ((status = tc_check_host_room(d, want, "the pinned staging memory", m)) != TC_OK)
            return status;
        p->mem = clCreateBuffer(d->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, want,
                                NULL, &err);
        CL_CHECK(status, fail, m, err, "clCreateBuffer(pinned staging)");
        p->ptr = clEnqueueMapBuffer(queue, p->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, want,
                                    0, NULL, NULL, &err);
        CL_CHECK(status, fail, m, err, "clEnqueueMapBuffer(pinned staging)");
        p->size = want;
    }
    regions = (int)(p->size / chunk);
    if (p->capacity < regions) {
        cl_event *more = realloc(p->events, (size_t)regions * sizeof *more);
        if (!more) {
            status = tc_fail(m, TC_ENOMEM, "out of host memory for %d transfer events", regions);
            goto fail;
        }
        for (int i = p->capacity; i < regions; i++)
            more[i] = NULL;
        p->events = more;
        p->capacity = regions;
    }
    return TC_OK;
fail:
    release_pinned(p, queue);
    return status;
}

/* Waits for the transfer that last used a chunk of the ring, folds its times into sp, and
 * frees its event. */
static int retire(cl_event *e, span *sp, tc_msg *m)
{
    int status = TC_OK;
    cl_ulong start = 0, end = 0;
    if (!*e)
        return TC_OK;
    CL_CALL(status, cleanup, m, clWaitForEvents(1, e));
    CL_CALL(status, cleanup, m,
            clGetEventProfilingInfo(*e, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL));
    CL_CALL(status, cleanup, m,
            clGetEventProfilingInfo(*e, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL));
    if (sp->end == 0 || start < sp->start)
        sp->start = start;
    if (end > sp->end)
        sp->end = end;
cleanup:
    release_event(e);
    return status;
}

/* Retires every event of a ring (its transfers done or to be waited for). */
static int retire_ring(pinned *p, span *sp, tc_msg *m)
{
    int status = TC_OK;
    for (int i = 0; i < p->capacity; i++) {
        const int one = retire(&p->events[i], sp, m);
        status = status != TC_OK ? status : one;
    }
    return status;
}

/* Chunks of one round through a ring of `regions` chunks: every chunk when they fit, else half
 * the ring, so that one half is in transfer while the crew copies the other. */
static size_t round_chunks(size_t chunks, int regions)
{
    if (chunks <= (size_t)regions)
        return chunks;
    return regions >= 2 ? (size_t)regions / 2 : 1;
}

/* ---- One image --------------------------------------------------------------------------- */

/* The device buffers and pinned memory the image needs in slot s, grown where too small. */
static int ensure_slot(tc_stream *st, slot *s, const tc_image *src, const tc_image *dst,
                       size_t in_chunk, size_t out_chunk, tc_msg *m)
{
    const tc_device *d = st->d;
    const int channels = src->planes;
    const size_t in_bytes = tc_channels_packed_bytes(src);
    const size_t out_bytes = tc_channels_packed_bytes(dst);
    const size_t plane = (size_t)tc_device_pitch(src->width) * (size_t)src->height * sizeof(float);
    const size_t pin_in = pinned_for(in_bytes, in_chunk), pin_out = pinned_for(out_bytes, out_chunk);
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
    if ((status = ensure_pinned(d, s->queue, &s->up, pin_in, in_chunk, m)) != TC_OK)
        return status;
    return ensure_pinned(d, s->queue, &s->down, pin_out, out_chunk, m);
}

/* One direction's chunks of one image, for the crew's tasks. */
typedef struct {
    slot *s;
    const tc_image *img;
    size_t n, chunk, first; /* the stream's bytes, its chunks, the round's first chunk */
    int regions;
} transfer;

static size_t chunk_len(const transfer *t, size_t k)
{
    const size_t off = k * t->chunk;
    return t->n - off < t->chunk ? t->n - off : t->chunk;
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

/* The source's stream up, in rounds through the ring (one round when the ring holds it):
 * before a round, the places it takes are free again once their transfers of the round
 * before last have finished. */
static int upload(tc_stream *st, slot *s, const tc_image *src, size_t chunk, flight *f,
                  tc_msg *m)
{
    transfer t = {s, src, tc_channels_packed_bytes(src), chunk, 0, (int)(s->up.size / chunk)};
    const size_t chunks = (t.n + chunk - 1) / chunk, per = round_chunks(chunks, t.regions);
    int status = TC_OK;
    for (t.first = 0; t.first < chunks && status == TC_OK; t.first += per) {
        const size_t count = chunks - t.first < per ? chunks - t.first : per;
        for (size_t k = t.first; k < t.first + count && status == TC_OK; k++)
            status = retire(&s->up.events[k % (size_t)t.regions], &f->up, m);
        if (status == TC_OK)
            status = tc_copier_run(st->crew, (int)count, upload_task, &t, m);
    }
    return status;
}

static int enqueue_unpack(slot *s, const tc_image *src, const tc_job *job, tc_msg *m)
{
    const cl_int format = (cl_int)src->format, pitch = tc_device_pitch(src->width);
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
        TC_KARG(q[1]),      TC_KARG(q[2]),  TC_KARG(q[3])};
    /* The work-groups are the implementation's choice: these kernels share nothing, and
     * PoCL's own choice ran them twice as fast as 32 x 4. */
    const size_t global[2] = {(size_t)pitch, (size_t)src->height};
    int status = tc_set_args(s->unpack, "unpack_samples", args,
                             (int)(sizeof args / sizeof args[0]), m);
    if (status != TC_OK)
        return status;
    CL_CALL(status, cleanup, m,
            clEnqueueNDRangeKernel(s->queue, s->unpack, 2, NULL, global, NULL, 0, NULL,
                                   &s->f.unpack));
cleanup:
    return status;
}

static int enqueue_pack(slot *s, const tc_image *dst, const tc_job *job, double scale,
                        double offset, tc_msg *m)
{
    const cl_int format = (cl_int)dst->format, pitch = tc_device_pitch(dst->width);
    const tc_roi *r = &job->roi;
    cl_mem q[TC_MAX_CHANNELS];
    for (int c = 0; c < TC_MAX_CHANNELS; c++)
        q[c] = c < dst->planes ? s->dst[c] : s->dst[0];
    const tc_kernel_arg args[] = {
        TC_KARG(q[0]),        TC_KARG(q[1]),        TC_KARG(q[2]),      TC_KARG(q[3]),
        TC_KARG(pitch),       TC_KARG(dst->width),  TC_KARG(dst->height), TC_KARG(dst->planes),
        TC_KARG(format),      TC_KARG(s->out),      TC_KARG(r->dst_left), TC_KARG(r->dst_top),
        TC_KARG(r->width),    TC_KARG(r->height),   TC_KARG(scale),     TC_KARG(offset)};
    const size_t global[2] = {(size_t)pitch, (size_t)dst->height};
    int status =
        tc_set_args(s->pack, "pack_samples", args, (int)(sizeof args / sizeof args[0]), m);
    if (status != TC_OK)
        return status;
    CL_CALL(status, cleanup, m,
            clEnqueueNDRangeKernel(s->queue, s->pack, 2, NULL, global, NULL, 0, NULL,
                                   &s->f.pack));
cleanup:
    return status;
}

/* Jobs whose one-pass kernel a prepared launch can run again with other planes: tiled and
 * onepass reading buffers, without the class counters (whose counts each run would need
 * reset and read). The others run through tc_run_resident, plane by plane. */
static int preparable(const tc_job *job)
{
    return (job->algorithm == TC_TILED || job->algorithm == TC_ONEPASS) &&
           job->storage == TC_STORAGE_BUFFER && !job->count_classes;
}

/* The prepared launch of this job at this width: kept, or made now in place of the one used
 * least recently. */
static int launch_for(tc_stream *st, tc_program_cache *programs, const slot *s,
                      const tc_job *job, int width, tc_launch **launch, double *build_ms,
                      tc_msg *m)
{
    prepared *oldest = &st->launches[0];
    for (int i = 0; i < LAUNCHES; i++) {
        prepared *e = &st->launches[i];
        if (e->used && e->width == width && memcmp(&e->job, job, sizeof *job) == 0) {
            e->age = ++st->clock;
            *launch = &e->launch;
            return TC_OK;
        }
        if (!e->used || (oldest->used && e->age < oldest->age))
            oldest = e;
    }
    /* A launch still queued keeps its kernel and buffers alive until it has run (OpenCL's
     * reference counts), so the oldest may go now. */
    if (oldest->used)
        tc_launch_release(&oldest->launch);
    oldest->used = 0;
    const int status = tc_launch_prepare(st->d, programs, job, s->src[0], s->dst[0], width,
                                         &oldest->launch, build_ms, m);
    if (status != TC_OK)
        return status;
    oldest->used = 1;
    oldest->width = width;
    oldest->job = *job;
    oldest->age = ++st->clock;
    *launch = &oldest->launch;
    return TC_OK;
}

/* Each plane filtered by the prepared launch: its two plane arguments (0 and 1 in every
 * one-pass kernel: src, dst) set per plane, the rest as prepared. */
static int enqueue_filters(slot *s, tc_launch *l, int planes, tc_msg *m)
{
    int status = TC_OK;
    for (int c = 0; c < planes; c++) {
        CL_CALL(status, cleanup, m, clSetKernelArg(l->kernel, 0, sizeof(cl_mem), &s->src[c]));
        CL_CALL(status, cleanup, m, clSetKernelArg(l->kernel, 1, sizeof(cl_mem), &s->dst[c]));
        CL_CALL(status, cleanup, m,
                clEnqueueNDRangeKernel(s->queue, l->kernel, 2, NULL, l->global, l->local, 0,
                                       NULL, &s->f.kernels[c]));
    }
cleanup:
    return status;
}

/* Adds one run's figures to the total (the total's arrays hold one value: iterations 1). */
static void add_run(tc_run_stats *total, const tc_run_stats *one)
{
    total->kernel_ms[0] += one->kernel_ms[0];
    for (int p = 0; p < 2 && total->pass_ms[p] && one->pass_ms[p]; p++)
        total->pass_ms[p][0] += one->pass_ms[p][0];
    total->build_ms += one->build_ms;
    total->h2d_ms += one->h2d_ms;
}

/* The planes filtered one by one on the device's own queue (twopass, bilinear, image
 * storage, class counts), after the slot's unpack has finished; the first run's figures
 * become the total's shape (twopass's passes), the rest are added. */
static int filter_resident(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
                           slot *s, const tc_job *job, const tc_image *src, tc_run_stats *total,
                           int *have_total, tc_msg *m)
{
    int status = TC_OK;
    CL_CALL(status, cleanup, m, clFinish(s->queue));
    for (int c = 0; c < src->planes; c++) {
        tc_run_stats one;
        if ((status = tc_run_resident(d, programs, buffers, job, s->src[c], s->dst[c],
                                      src->width, src->height, 0, 1, &one, m)) != TC_OK)
            return status;
        if (!*have_total) { /* its arrays (twopass's passes) become the total's */
            one.build_ms += total->build_ms;
            one.h2d_ms += total->h2d_ms;
            one.d2h_ms += total->d2h_ms;
            tc_run_stats_free(total);
            *total = one;
            *have_total = 1;
        } else {
            add_run(total, &one);
            tc_run_stats_free(&one);
        }
    }
cleanup:
    return status;
}

/* Enqueues the reads of the output's chunks that have a free place in the ring: those up
 * to `regions` chunks past the last one scattered. */
static int enqueue_reads(slot *s, tc_msg *m)
{
    flight *f = &s->f;
    const size_t limit = f->consumed + (size_t)f->regions;
    int status = TC_OK;
    if (f->enqueued >= f->chunks || f->enqueued >= limit)
        return TC_OK;
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

static int start_download(slot *s, tc_msg *m)
{
    s->f.enqueued = s->f.consumed = 0;
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

/* The output's chunks scattered into the caller's rows, a round at a time, each round's
 * places in the ring taking the next reads. */
static int download(tc_stream *st, slot *s, tc_msg *m)
{
    flight *f = &s->f;
    transfer t = {s, f->dst, f->bytes, f->chunk, 0, f->regions};
    const size_t per = round_chunks(f->chunks, f->regions);
    int status = TC_OK;
    while (f->consumed < f->chunks && status == TC_OK) {
        const size_t count = f->chunks - f->consumed < per ? f->chunks - f->consumed : per;
        t.first = f->consumed;
        status = tc_copier_run(st->crew, (int)count, scatter_task, &t, m);
        for (size_t k = t.first; k < t.first + count; k++) {
            const int one = retire(&s->down.events[k % (size_t)f->regions], &f->down, m);
            status = status != TC_OK ? status : one;
        }
        f->consumed += count;
        if (status == TC_OK)
            status = enqueue_reads(s, m);
    }
    return status;
}

/* ms from the start of one event to the end of another (the same event for one). */
static int span_ms(cl_event first, cl_event last, double *ms, tc_msg *m)
{
    cl_ulong start = 0, end = 0;
    int status = TC_OK;
    *ms = 0.0;
    if (!first || !last)
        return TC_OK;
    CL_CALL(status, cleanup, m,
            clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof start, &start,
                                    NULL));
    CL_CALL(status, cleanup, m,
            clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL));
    *ms = end > start ? (double)(end - start) * 1e-6 : 0.0;
cleanup:
    return status;
}

/* Finishes the slot's image: its download scattered, its times added. */
static int finish(tc_stream *st, slot *s, tc_run_stats *total, double *convert_ms, tc_msg *m)
{
    flight *f = &s->f;
    int status = TC_OK;
    double ms;
    if (!s->busy)
        return TC_OK;
    if ((status = download(st, s, m)) != TC_OK)
        goto done;
    /* The in-order queue has finished the image, uploads included: the ring is free. */
    if ((status = retire_ring(&s->up, &f->up, m)) != TC_OK)
        goto done;
    total->h2d_ms += f->up.end > f->up.start ? (double)(f->up.end - f->up.start) * 1e-6 : 0.0;
    total->d2h_ms +=
        f->down.end > f->down.start ? (double)(f->down.end - f->down.start) * 1e-6 : 0.0;
    const cl_event conversions[2] = {f->unpack, f->pack};
    for (int i = 0; i < 2; i++) {
        if ((status = span_ms(conversions[i], conversions[i], &ms, m)) != TC_OK)
            goto done;
        *convert_ms += ms;
    }
    for (int c = 0; f->fast && c < f->planes; c++) {
        if ((status = span_ms(f->kernels[c], f->kernels[c], &ms, m)) != TC_OK)
            goto done;
        total->kernel_ms[0] += ms;
    }
done:
    release_flight(f);
    s->busy = 0;
    return status;
}

/* ---- The run ----------------------------------------------------------------------------- */

/* Slots a run may use: three, unless three images' device buffers would take more than half
 * the device's memory (then two, or one). A CPU device gets one: its buffers are the host's
 * memory, its transfers copies by the same cores that run its kernels, so a second and third
 * image in flight would cost that memory and overlap nothing. */
static int slots_for(const tc_device *d, const tc_image *src, const tc_image *dst, int count)
{
    if (d->info.is_cpu)
        return 1;
    unsigned long long largest = 0;
    for (int i = 0; i < count; i++) {
        const unsigned long long plane = (unsigned long long)tc_device_pitch(src[i].width) *
                                         (unsigned long long)src[i].height * sizeof(float);
        const unsigned long long bytes = 2ULL * (unsigned long long)src[i].planes * plane +
                                         tc_channels_packed_bytes(&src[i]) +
                                         tc_channels_packed_bytes(&dst[i]);
        largest = bytes > largest ? bytes : largest;
    }
    int slots = count < SLOTS ? count : SLOTS;
    while (slots > 1 && (unsigned long long)slots * largest > d->info.global_mem_bytes / 2)
        slots--;
    return slots;
}

/* The packed streams of an image pair fit one buffer each on the device. */
static int check_streams(const tc_device *d, const tc_image *src, const tc_image *dst,
                         tc_msg *m)
{
    const tc_image *sides[2] = {src, dst};
    int status = tc_check_fits(d, src->width, src->height, m);
    for (int i = 0; status == TC_OK && i < 2; i++) {
        const size_t bytes = tc_channels_packed_bytes(sides[i]);
        if (bytes > d->info.max_alloc_bytes)
            status = tc_fail(m, TC_EINVAL,
                             "%s: %d x %d x %d samples take %zu bytes in one buffer, more than "
                             "the %llu bytes %s allows (CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                             i ? "dst" : "src", sides[i]->width, sides[i]->height,
                             sides[i]->planes, bytes, d->info.max_alloc_bytes, d->info.name);
    }
    return status;
}

/* Image i into slot s: everything up to the download's start. */
static int start_image(tc_stream *st, tc_program_cache *programs, tc_buffers *buffers,
                       slot *s, const tc_job *job, const tc_image *src, const tc_image *dst,
                       double scale, double offset, tc_run_stats *total, int *have_total,
                       tc_msg *m)
{
    const size_t in_chunk = chunk_for(tc_channels_packed_bytes(src));
    const size_t out_chunk = chunk_for(tc_channels_packed_bytes(dst));
    flight *f = &s->f;
    tc_launch *launch = NULL;
    double build_ms = 0.0;
    int status;
    if ((status = check_streams(st->d, src, dst, m)) != TC_OK ||
        (status = ensure_slot(st, s, src, dst, in_chunk, out_chunk, m)) != TC_OK)
        return status;
    memset(f, 0, sizeof *f);
    s->busy = 1;
    f->dst = dst;
    f->planes = src->planes;
    f->fast = preparable(job);
    f->bytes = tc_channels_packed_bytes(dst);
    f->chunk = out_chunk;
    f->chunks = (f->bytes + out_chunk - 1) / out_chunk;
    f->regions = (int)(s->down.size / out_chunk);
    if (f->fast &&
        (status = launch_for(st, programs, s, job, src->width, &launch, &build_ms, m)) != TC_OK)
        return status;
    total->build_ms += build_ms;
    if ((status = upload(st, s, src, in_chunk, f, m)) != TC_OK ||
        (status = enqueue_unpack(s, src, job, m)) != TC_OK)
        return status;
    if (f->fast) {
        if (!*have_total) { /* the launch's shape, once */
            memcpy(total->global, launch->global, sizeof total->global);
            memcpy(total->local, launch->local, sizeof total->local);
            *have_total = 1;
        }
        status = enqueue_filters(s, launch, src->planes, m);
    } else {
        status = filter_resident(st->d, programs, buffers, s, job, src, total, have_total, m);
    }
    if (status != TC_OK || (status = enqueue_pack(s, dst, job, scale, offset, m)) != TC_OK)
        return status;
    return start_download(s, m);
}

/* "images[i]: " before the reason, when the run has more than one image. */
static int name_image(int status, int index, int count, tc_msg *m)
{
    if (count > 1 && m) {
        char reason[sizeof m->text];
        snprintf(reason, sizeof reason, "%s", m->text);
        tc_fail(m, status, "images[%d]: %s", index, reason);
    }
    return status;
}

/* The figures known from the job alone: the tiled kernel's block and predicted classes. */
static void job_figures(const tc_device *d, const tc_job *job, tc_run_stats *total)
{
    if (!tc_kernel_is_tiled(tc_kernel_of(job)) || total->classes_counted)
        return;
    tc_tiled_geometry g;
    tc_tiled_geometry_of(job, d->info.local_mem_bytes, &g);
    total->block[0] = g.block[0];
    total->block[1] = g.block[1];
    tc_tiled_classes(job, d->info.local_mem_bytes, total->classes);
}

/* Abandons what every slot holds after a failure: its work finished, its events released. */
static void abandon(tc_stream *st)
{
    for (int k = 0; k < SLOTS; k++) {
        slot *s = &st->slots[k];
        if (s->queue)
            clFinish(s->queue);
        release_flight(&s->f);
        release_ring_events(&s->up);
        release_ring_events(&s->down);
        s->busy = 0;
    }
}

static int run_on_device(tc_stream *st, tc_program_cache *programs, tc_buffers *buffers,
                         const tc_params *p, tc_job_maker make_job, const tc_image *src,
                         const tc_image *dst, int count, tc_stream_stats *stats, tc_msg *m)
{
    const int slots = slots_for(st->d, src, dst, count);
    const int wanted = count < SLOTS ? count : SLOTS;
    int status = TC_OK, have_total = 0, made = 0, i;
    double build_ms = 0.0;
    tc_run_stats *total = &stats->run;
    /* Slots the device's memory cannot afford now give their buffers back. */
    for (int k = slots; slots < wanted && k < SLOTS; k++)
        release_buffers(&st->slots[k]);
    for (i = 0; i < count; i++) {
        slot *s = &st->slots[i % slots];
        /* One job per size: consecutive images of one size share it. */
        if (!made || src[i].width != src[i - 1].width || src[i].height != src[i - 1].height) {
            if ((status = make_job(p, src[i].width, src[i].height, &stats->job, m)) != TC_OK) {
                name_image(status, i, count, m);
                break;
            }
            made = 1;
        }
        if ((status = open_slot(st, programs, s, &build_ms, m)) != TC_OK) {
            name_image(status, i, count, m);
            break;
        }
        total->build_ms += build_ms;
        build_ms = 0.0;
        /* The image this slot held before is finished first. */
        if ((status = finish(st, s, total, &stats->convert_ms, m)) != TC_OK) {
            name_image(status, s->f.index, count, m);
            break;
        }
        s->f.index = i;
        if ((status = start_image(st, programs, buffers, s, &stats->job, &src[i], &dst[i],
                                  p->out_scale, p->out_offset, total, &have_total, m)) !=
            TC_OK) {
            name_image(status, i, count, m);
            break;
        }
        s->f.index = i;
    }
    /* The images still in flight, oldest first. */
    for (int k = 0; status == TC_OK && k < slots; k++) {
        slot *s = &st->slots[(i + k) % slots];
        if ((status = finish(st, s, total, &stats->convert_ms, m)) != TC_OK)
            name_image(status, s->f.index, count, m);
    }
    if (status != TC_OK) {
        abandon(st);
        return status;
    }
    job_figures(st->d, &stats->job, total);
    return TC_OK;
}

/* The host's way, image by image: planes formed and mapped back on the host (image.c's
 * conversions), each filtered by tc_run. */
static int run_on_host(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
                       const tc_params *p, tc_job_maker make_job, const tc_image *src,
                       const tc_image *dst, tc_stream_stats *stats, int *have_total,
                       tc_msg *m)
{
    tc_plane in = {0, 0, NULL}, out[TC_MAX_CHANNELS];
    int status = make_job(p, src->width, src->height, &stats->job, m);
    memset(out, 0, sizeof out);
    if (status == TC_OK && tc_plane_alloc(&in, src->width, src->height))
        status = tc_fail(m, TC_ENOMEM, "out of host memory for a %d x %d plane", src->width,
                         src->height);
    for (int c = 0; status == TC_OK && c < src->planes; c++)
        if (tc_plane_alloc(&out[c], src->width, src->height))
            status = tc_fail(m, TC_ENOMEM, "out of host memory for a %d x %d plane",
                             src->width, src->height);
    for (int c = 0; status == TC_OK && c < src->planes; c++) {
        tc_run_stats one;
        tc_channels_to_plane(src, c, &in);
        if ((status = tc_run(d, programs, buffers, &stats->job, &in, &out[c], 0, 1, &one, m)) !=
            TC_OK)
            break;
        if (!*have_total) {
            tc_run_stats_free(&stats->run);
            stats->run = one;
            *have_total = 1;
        } else {
            add_run(&stats->run, &one);
            stats->run.d2h_ms += one.d2h_ms;
            tc_run_stats_free(&one);
        }
    }
    if (status == TC_OK)
        tc_channels_from_planes(out, &stats->job.roi, p->out_scale, p->out_offset, dst);
    tc_plane_free(&in);
    for (int c = 0; c < TC_MAX_CHANNELS; c++)
        tc_plane_free(&out[c]);
    return status;
}

int tc_stream_filter(tc_stream **stream, const tc_device *d, tc_program_cache *programs,
                     tc_buffers *buffers, tc_copier **crew, const tc_params *p,
                     tc_job_maker make_job, const tc_image *src, const tc_image *dst, int count,
                     tc_stream_stats *stats, tc_msg *m)
{
    const double t0 = tc_wall_ms();
    int status = TC_OK, have_total = 0;
    memset(stats, 0, sizeof *stats);
    stats->planes = count > 0 ? src[0].planes : 0;
    stats->run.iterations = 1;
    if (!(stats->run.kernel_ms = calloc(1, sizeof(double))))
        return tc_fail(m, TC_ENOMEM, "out of host memory for a run's figures");
    if (d->info.has_double && !p->convert_on_host) {
        if (!*stream && !(*stream = calloc(1, sizeof **stream)))
            status = tc_fail(m, TC_ENOMEM, "out of host memory for the image pipeline");
        else {
            (*stream)->d = d;
            (*stream)->crew = crew;
            status = run_on_device(*stream, programs, buffers, p, make_job, src, dst, count,
                                   stats, m);
        }
    } else {
        for (int i = 0; status == TC_OK && i < count; i++)
            if ((status = run_on_host(d, programs, buffers, p, make_job, &src[i], &dst[i],
                                      stats, &have_total, m)) != TC_OK)
                name_image(status, i, count, m);
    }
    if (status != TC_OK) {
        tc_run_stats_free(&stats->run);
        return status;
    }
    stats->run.wall_ms_per_iteration = tc_wall_ms() - t0;
    return TC_OK;
}
