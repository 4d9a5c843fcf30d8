/*
 * stream.c - the pipeline of stream.h: the slots taking the images in turn, the filters'
 * prepared launches, and the run (the host's way where the device has no doubles). A slot's
 * steps are stream_slot.c's, its pinned rings pinned_ring.c's.
 *
 * One image in a slot:
 *   upload     the caller's rows gathered into the slot's pinned memory by the context's copy
 *              crew (copier.h): a lone large image chunk by chunk, each chunk's transfer
 *              enqueued as soon as it is copied, so that the bus moves one chunk while the
 *              threads copy the next; one of several, or a small one, a round at a time,
 *              shared out among the threads, then moved by one transfer
 *   unpack     unpack_samples: one float plane per channel (Channels.cl); for the older
 *              layouts, whose raw bytes the slot moved, unpack_pixels (Pixels.cl): the
 *              intensity plane, or R, G and B
 *   filter     the job's kernel once per plane, from a launch prepared once per job and size
 *              (its arguments but the two planes set once; the coefficients on the device)
 *   pack       pack_samples (or pack_pixels; float planes out copied): the output samples,
 *              packed
 *   download   the reads enqueued at once into pinned memory (by rounds, one a round); each
 *              chunk scattered into the caller's rows once it has arrived (by rounds, a round
 *              shared out once it has), while the later ones are in transfer
 * An image whose rows lie in one of the context's page-locked blocks (tc_host_alloc) skips
 * the staging in that direction: its upload is one transfer from the caller's rows, its
 * download one transfer into them, and the crew has nothing to copy.
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
#include "host_run.h"
#include "programs.h"
#include "stream_slot.h"
#include "tuning.h"

/* Images in flight at once, each in a slot (stream_slot.h): SLOTS by default, up to
 * MAX_SLOTS with the tuning's stream-slots. */
#define SLOTS 3
#define MAX_SLOTS 6
/* A lone image of at most this many bytes each way goes through the rings a round at a time
 * too (stream_slot.c): on the GPU machine with a crew of 8, a 1080p gray call (2 MB) from
 * ordinary memory took 0.32-0.36 ms by rounds against 0.40-0.42 by chunks, a 1080p colour one
 * (6.2 MB) 0.83-0.91 against 0.74-0.76 (docs/benchmarks.md); the bound lies between the two. */
#define LONE_ROUND_BYTES ((size_t)4 << 20)
struct tc_stream {
    const tc_device *d;
    tc_copier **crew;                /* the context's copy crew */
    const tc_stream_host *host;      /* the context's page-locked blocks (this run's) */
    cl_program program;              /* Channels.cl's conversions */
    cl_program pixels_program;       /* Pixels.cl's, for the older layouts */
    tc_slot slots[MAX_SLOTS];
    tc_launch_cache launches;
};

/* ---- Setup and release ------------------------------------------------------------------- */

void tc_stream_release(tc_stream *st)
{
    if (!st)
        return;
    for (int i = 0; i < MAX_SLOTS; i++)
        tc_slot_release(&st->slots[i]);
    tc_launch_cache_release(&st->launches);
    free(st);
}

/* The slot's queue and the conversion kernels of the image's kind (pixels: the older
 * layouts'), made on its first image of that kind (and the stream's program of those
 * conversions, on its first image of the kind: a run of one kind builds no other). */
static int open_slot(tc_stream *st, tc_program_cache *programs, tc_slot *s, int pixels,
                     double *build_ms, tc_msg *m)
{
    cl_program *program = pixels ? &st->pixels_program : &st->program;
    int status;
    if (!*program &&
        (status = tc_program_get(programs, st->d, pixels ? TC_SOURCE_PIXELS : TC_SOURCE_CHANNELS,
                                 "-cl-std=CL1.2", program, build_ms, m)) != TC_OK)
        return status;
    return tc_slot_open(s, st->d, *program, pixels, m);
}

/* Pair i's pair of the older layouts, or NULL for a channel-last one. */
static const tc_pixel_pair *pixels_of(const tc_pixel_pair *pixels, int i)
{
    return pixels && pixels[i].src ? &pixels[i] : NULL;
}

/* The planes pair i's filter runs on: one a channel, or the older layouts' 1 or 3. */
static int planes_of(const tc_image *src, const tc_pixel_pair *px)
{
    return px ? tc_pixels_planes(px->dst) : src->planes;
}

/* ---- The filters ------------------------------------------------------------------------- */

/* The planes filtered one by one on the device's own queue (twopass, bilinear, image
 * storage, class counts), after the slot's unpack has finished; the first run's figures
 * become the total's shape (twopass's passes), the rest are added. */
static int filter_resident(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
                           tc_slot *s, const tc_job *job, const tc_image *src, tc_run_stats *total,
                           int *have_total, tc_msg *m)
{
    int status = TC_OK;
    CL_CALL(status, cleanup, m, clFinish(s->queue));
    for (int c = 0; c < s->f.planes; c++) {
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
            tc_run_stats_add_device(total, &one);
            tc_run_stats_free(&one);
        }
    }
cleanup:
    return status;
}

/* ---- The run ----------------------------------------------------------------------------- */

/* Slots a run may use: three, unless three images' device buffers would take more than half
 * the device's memory (then two, or one). A CPU device gets one: its buffers are the host's
 * memory, its transfers copies by the same cores that run its kernels, so a second and third
 * image in flight would cost that memory and overlap nothing. */
static int slots_for(const tc_device *d, const tc_image *src, const tc_image *dst,
                     const tc_pixel_pair *pixels, int count)
{
    const int set = tc_tuning_now()->stream_slots;
    if (set > 0)
        return count < set ? count : set;
    if (d->info.is_cpu)
        return 1;
    unsigned long long largest = 0;
    for (int i = 0; i < count; i++) {
        const unsigned long long plane = (unsigned long long)tc_device_pitch(src[i].width) *
                                         (unsigned long long)src[i].height * sizeof(float);
        const int planes = planes_of(&src[i], pixels_of(pixels, i));
        const unsigned long long bytes = 2ULL * (unsigned long long)planes * plane +
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

/* Image src into slot s: its device buffers and rings made ready (and its chunks said). Float
 * planes out of the older layouts always come down through the ring: copy_planes
 * (stream_slot.c) packs them top-down whichever way the caller's rows run. */
static int prepare_image(tc_stream *st, tc_slot *s, const tc_image *src, const tc_image *dst,
                         const tc_pixel_pair *px, size_t *in_chunk, size_t *out_chunk,
                         int *direct_in, int *direct_out, tc_msg *m)
{
    int status;
    *in_chunk = tc_ring_chunk(tc_channels_packed_bytes(src));
    *out_chunk = tc_ring_chunk(tc_channels_packed_bytes(dst));
    *direct_in = tc_slot_direct(st->host->blocks, src);
    *direct_out = !(px && px->dst->format == TC_PIXELS_FLOAT32) &&
                  tc_slot_direct(st->host->blocks, dst);
    if ((status = check_streams(st->d, src, dst, m)) != TC_OK)
        return status;
    return tc_slot_ensure(s, st->d, src, dst, planes_of(src, px), *in_chunk, *out_chunk,
                          *direct_in, *direct_out, m);
}

/* Whether the image goes through one kernel that reads and writes its bytes (Common.cl's
 * TC_IO_U8) rather than through unpack, filter and pack: two kernels fewer an image (each
 * 6-17 us of the calling thread in NVIDIA's driver, bench/enqueue_probe.c) and no float
 * planes written and read. Only where that kernel's bytes are the three's: one channel of 8
 * bits each way, the identity mapping, a whole-image ROI (no pixel keeps the input), a tiled
 * kernel of one pass, and rows that lie packed and top-down in the device's buffers (a direct
 * upload brings the caller's stride). */
static int fused_bytes(const tc_job *job, const tc_image *src, const tc_image *dst,
                       const tc_pixel_pair *px, double scale, double offset, int direct_in,
                       int direct_out)
{
    const tc_kernel_kind kind = tc_kernel_of(job);
    const tc_roi *r = &job->roi;
    /* Not the older layouts: their raw bytes (palette indices, say) are no samples. */
    return !px && !tc_tuning_now()->no_fused_bytes && tc_launch_preparable(job) &&
           (kind == TC_KERNEL_TILED || kind == TC_KERNEL_TILED_LONG) &&
           src->format == TC_PIXELS_U8 && src->planes == 1 && dst->format == TC_PIXELS_U8 &&
           dst->planes == 1 && scale == 1.0 && offset == 0.0 && r->src_left == 0 &&
           r->src_top == 0 && r->dst_left == 0 && r->dst_top == 0 && r->width == src->width &&
           r->height == src->height && (!direct_in || src->stride == (long)src->width) &&
           (!direct_out || dst->stride > 0);
}

/* Image src, prepared in slot s, enqueued: everything up to the download's start. gathered:
 * its input already lies in the slot's up ring (tc_slot_post_copies). One of several (many),
 * or a small one: its copies go a round at a time where there is a crew (stream_slot.c). px:
 * the pair of the older layouts whose raw views src and dst are (NULL: none); its palette
 * indices are checked before anything moves. */
static int enqueue_image(tc_stream *st, tc_program_cache *programs, tc_buffers *buffers,
                         tc_slot *s, const tc_job *job, const tc_image *src, const tc_image *dst,
                         const tc_pixel_pair *px, double scale, double offset, int many,
                         int gathered, size_t in_chunk, size_t out_chunk, int direct_in,
                         int direct_out, tc_run_stats *total, int *have_total, tc_msg *m)
{
    const int fast = tc_launch_preparable(job);
    const int bytes = fused_bytes(job, src, dst, px, scale, offset, direct_in, direct_out);
    tc_job packed;
    if (bytes) { /* the same job, its kernel built for the bytes */
        packed = *job;
        packed.packed_u8 = 1;
        job = &packed;
    }
    tc_launch *launch = NULL;
    double build_ms = 0.0;
    int status;
    const int small = tc_channels_packed_bytes(src) <= LONE_ROUND_BYTES &&
                      tc_channels_packed_bytes(dst) <= LONE_ROUND_BYTES;
    tc_slot_begin(s, dst, planes_of(src, px), fast, st->host->timed, out_chunk, direct_out,
                  (many || small) && tc_copier_width() > 1, px);
    if (fast &&
        (status = tc_launch_cache_get(&st->launches, st->d, programs, job, s->src[0], s->dst[0],
                                      src->width, &launch, &build_ms, m)) != TC_OK)
        return status;
    total->build_ms += build_ms;
    status = gathered ? tc_slot_upload_gathered(s, src, in_chunk, m)
                      : tc_slot_upload(s, st->crew, src, in_chunk, direct_in, m);
    if (status != TC_OK || (!bytes && (status = tc_slot_unpack(s, src, job, direct_in, m)) != TC_OK))
        return status;
    st->host->counts->up += (unsigned long long)direct_in;
    if (fast) {
        if (!*have_total) { /* the launch's shape, once */
            memcpy(total->global, launch->global, sizeof total->global);
            memcpy(total->local, launch->local, sizeof total->local);
            *have_total = 1;
        }
        status = bytes ? tc_slot_filter_bytes(s, launch, m) : tc_slot_filter(s, launch, m);
    } else {
        status = filter_resident(st->d, programs, buffers, s, job, src, total, have_total, m);
    }
    if (status != TC_OK ||
        (!bytes && (status = tc_slot_pack(s, dst, job, scale, offset, m)) != TC_OK) ||
        (status = tc_slot_start_download(s, m)) != TC_OK)
        return status;
    st->host->counts->down += (unsigned long long)direct_out;
    return TC_OK;
}

/* Image i into slot s: prepared and enqueued at once. */
static int start_image(tc_stream *st, tc_program_cache *programs, tc_buffers *buffers,
                       tc_slot *s, const tc_job *job, const tc_image *src, const tc_image *dst,
                       const tc_pixel_pair *px, double scale, double offset, int many,
                       tc_run_stats *total, int *have_total, tc_msg *m)
{
    size_t in_chunk, out_chunk;
    int direct_in, direct_out;
    const int status = prepare_image(st, s, src, dst, px, &in_chunk, &out_chunk, &direct_in,
                                     &direct_out, m);
    if (status != TC_OK)
        return status;
    return enqueue_image(st, programs, buffers, s, job, src, dst, px, scale, offset, many, 0,
                         in_chunk, out_chunk, direct_in, direct_out, total, have_total, m);
}

/* "images[i]: " before the reason, when the run has more than one image. */
static int name_image(int status, int index, int count, const tc_stream_host *host, tc_msg *m)
{
    if ((count > 1 || host->names) && m) {
        char reason[sizeof m->text];
        snprintf(reason, sizeof reason, "%s", m->text);
        tc_fail(m, status, "images[%d]: %s", host->names ? host->names[index] : index, reason);
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

/* Abandons what every slot holds after a failure. */
static void abandon(tc_stream *st)
{
    for (int k = 0; k < MAX_SLOTS; k++)
        tc_slot_abandon(&st->slots[k]);
}

/* Whether a batch takes the overlapped way (run_overlapped): two slots or more, a crew to copy
 * while the caller enqueues, and every image staged both ways, each way in one round. */
static int overlappable(const tc_stream *st, const tc_image *src, const tc_image *dst, int count,
                        int slots)
{
    if (tc_tuning_now()->no_overlap || count < 2 || slots < 2 || tc_copier_width() < 2)
        return 0;
    for (int i = 0; i < count; i++)
        if (!tc_slot_one_round(&src[i], &dst[i]) || tc_slot_direct(st->host->blocks, &src[i]) ||
            tc_slot_direct(st->host->blocks, &dst[i]))
            return 0;
    return 1;
}

/*
 * A batch with the host's copies beside its enqueues. In step k the slot k mod slots finishes
 * image k - slots and takes image k: its reads waited for, then one run posted to the crew
 * scatters that image's output and gathers image k's input into the slot's up ring, while the
 * calling thread enqueues image k - 1 (gathered in the step before: its upload, conversions,
 * filter and reads) and takes image k - slots's figures (its events kept for tc_last_stats,
 * deferred_figures.h, or read here when the caller keeps none); then the run is joined. So
 * the crew's copies and the driver's enqueues, which the way of run_on_device does one after
 * the other on the calling thread's time, take their time together, and the device holds two
 * images while the host copies a third and a fourth. On the GPU machine (crew of 8) a gray
 * 1080p image of a Python batch of 300 cost the caller 0.10-0.12 ms of enqueues, 0.04-0.05 of
 * profiling queries (before they were kept for later), 0.01-0.02 waiting for its reads and
 * about 0.002 waiting for the crew (docs/benchmarks.md). (The queries as one more task of the
 * crew's run were no faster: 0.060-0.083 s a batch against 0.052-0.13, three runs each.)
 */
static int run_overlapped(tc_stream *st, tc_program_cache *programs, tc_buffers *buffers,
                          const tc_params *p, const tc_job *const *jobs, const tc_image *src,
                          const tc_image *dst, const tc_pixel_pair *pixels, int count, int slots,
                          tc_stream_stats *stats, tc_msg *m)
{
    tc_run_stats *total = &stats->run;
    size_t in_chunk[MAX_SLOTS] = {0}, out_chunk[MAX_SLOTS] = {0};
    int status = TC_OK, have_total = 0, failed = 0, direct_in, direct_out;
    double build_ms = 0.0;
    for (int k = 0; k < count + slots && status == TC_OK; k++) {
        const int old = k - slots, enq = k - 1, next = k;
        tc_slot *s = &st->slots[k % slots];
        int scatter = old >= 0;
        /* The slot's image: its reads waited for. */
        if (scatter && (status = tc_slot_wait_download(s, m)) != TC_OK) {
            failed = old;
            break;
        }
        /* The next image: the slot made ready for it (where its rings must grow, the image
         * the slot holds goes out first, without overlap: the rings are made anew). */
        if (next < count) {
            status = open_slot(st, programs, s, pixels_of(pixels, next) != NULL, &build_ms, m);
            total->build_ms += build_ms;
            build_ms = 0.0;
            if (status == TC_OK && scatter && tc_slot_rings_grow(s, &src[next], &dst[next])) {
                tc_slot_post_copies(s, st->crew, 1, NULL, 0);
                if ((status = tc_slot_join_copies(s, m)) != TC_OK ||
                    (status = tc_slot_take_figures(s, total, &stats->convert_ms,
                                                   st->host->later, m)) != TC_OK) {
                    failed = old;
                    break;
                }
                scatter = 0;
            }
            if (status == TC_OK)
                status = prepare_image(st, s, &src[next], &dst[next], pixels_of(pixels, next),
                                       &in_chunk[k % slots], &out_chunk[k % slots], &direct_in,
                                       &direct_out, m);
            if (status != TC_OK) {
                failed = next;
                break;
            }
        }
        /* The crew: the slot's image out, the next one's input in. */
        tc_slot_post_copies(s, st->crew, scatter, next < count ? &src[next] : NULL,
                            in_chunk[k % slots]);
        /* Meanwhile, the image gathered in the step before goes to the device. */
        if (enq >= 0 && enq < count) {
            tc_slot *e = &st->slots[enq % slots];
            stats->job = *jobs[enq];
            status = enqueue_image(st, programs, buffers, e, &stats->job, &src[enq],
                                   &dst[enq], pixels_of(pixels, enq), p->out_scale,
                                   p->out_offset, 1, 1,
                                   in_chunk[enq % slots], out_chunk[enq % slots], 0, 0, total,
                                   &have_total, m);
            if (status != TC_OK)
                failed = enq;
        }
        /* The slot's image's figures too: its events are over (its reads were waited for),
         * and the crew's copies touch none of them. */
        if (status == TC_OK && scatter &&
            (status = tc_slot_take_figures(s, total, &stats->convert_ms, st->host->later, m)) !=
                TC_OK)
            failed = old;
        const int joined = tc_slot_join_copies(s, status == TC_OK ? m : NULL);
        if (status == TC_OK && joined != TC_OK) {
            status = joined;
            failed = scatter ? old : next;
        }
    }
    if (status != TC_OK) {
        name_image(status, failed, count, st->host, m);
        abandon(st);
        return status;
    }
    st->host->counts->overlapped += (unsigned long long)count;
    job_figures(st->d, &stats->job, total);
    return TC_OK;
}

static int run_on_device(tc_stream *st, tc_program_cache *programs, tc_buffers *buffers,
                         const tc_params *p, const tc_job *const *jobs, const tc_image *src,
                         const tc_image *dst, const tc_pixel_pair *pixels, int count,
                         tc_stream_stats *stats, tc_msg *m)
{
    const int slots = slots_for(st->d, src, dst, pixels, count);
    const int set = tc_tuning_now()->stream_slots, most = set > 0 ? set : SLOTS;
    const int wanted = count < most ? count : most;
    int status = TC_OK, have_total = 0, i;
    double build_ms = 0.0;
    tc_run_stats *total = &stats->run;
    /* Slots the device's memory cannot afford now give their buffers back. */
    for (int k = slots; slots < wanted && k < MAX_SLOTS; k++)
        tc_slot_release_buffers(&st->slots[k]);
    if (overlappable(st, src, dst, count, slots))
        return run_overlapped(st, programs, buffers, p, jobs, src, dst, pixels, count, slots,
                              stats, m);
    for (i = 0; i < count; i++) {
        tc_slot *s = &st->slots[i % slots];
        stats->job = *jobs[i];
        if ((status = open_slot(st, programs, s, pixels_of(pixels, i) != NULL, &build_ms, m)) !=
            TC_OK) {
            name_image(status, i, count, st->host, m);
            break;
        }
        total->build_ms += build_ms;
        build_ms = 0.0;
        /* The image this slot held before is finished first. */
        if ((status = tc_slot_finish(s, st->crew, total, &stats->convert_ms, st->host->later,
                                     m)) != TC_OK) {
            name_image(status, s->f.index, count, st->host, m);
            break;
        }
        s->f.index = i;
        if ((status = start_image(st, programs, buffers, s, &stats->job, &src[i], &dst[i],
                                  pixels_of(pixels, i), p->out_scale, p->out_offset, count > 1,
                                  total, &have_total, m)) != TC_OK) {
            name_image(status, i, count, st->host, m);
            break;
        }
        s->f.index = i;
    }
    /* The images still in flight, oldest first. */
    for (int k = 0; status == TC_OK && k < slots; k++) {
        tc_slot *s = &st->slots[(i + k) % slots];
        if ((status = tc_slot_finish(s, st->crew, total, &stats->convert_ms, st->host->later,
                                     m)) != TC_OK)
            name_image(status, s->f.index, count, st->host, m);
    }
    if (status != TC_OK) {
        abandon(st);
        return status;
    }
    job_figures(st->d, &stats->job, total);
    return TC_OK;
}

/* The channel-last layouts' conversions on the host (channels.c), in host_run.h's shape. */
static void channel_to_plane(const tc_image *src, int c, int planes, tc_plane *p)
{
    (void)planes;
    tc_channels_to_plane(src, c, p);
}

static void planes_to_channels(const tc_plane *planes, int count, const tc_roi *roi,
                               double scale, double offset, const tc_image *dst)
{
    (void)count; /* dst->planes of them */
    tc_channels_from_planes(planes, roi, scale, offset, dst);
}

/* The host's way, image by image (host_run.c), each image's run added to the total. */
static int run_on_host(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
                       const tc_params *p, const tc_job *job, const tc_image *src,
                       const tc_image *dst, tc_stream_stats *stats, int *have_total,
                       tc_msg *m)
{
    static const tc_host_conversions channels = {channel_to_plane, planes_to_channels};
    tc_run_stats one;
    stats->job = *job;
    const int status = tc_run_on_host(d, programs, buffers, &stats->job, &channels, src, dst,
                                      src->planes, p->out_scale, p->out_offset, &one, m);
    if (status != TC_OK)
        return status;
    if (!*have_total) {
        tc_run_stats_free(&stats->run);
        stats->run = one;
        *have_total = 1;
    } else {
        tc_run_stats_add_device(&stats->run, &one);
        stats->run.d2h_ms += one.d2h_ms;
        tc_run_stats_free(&one);
    }
    return TC_OK;
}

int tc_stream_filter(tc_stream **stream, const tc_device *d, tc_program_cache *programs,
                     tc_buffers *buffers, tc_copier **crew, const tc_stream_host *host,
                     const tc_params *p, const tc_job *const *jobs, const tc_image *src,
                     const tc_image *dst, const tc_pixel_pair *pixels, int count,
                     tc_stream_stats *stats, tc_msg *m)
{
    const double t0 = tc_wall_ms();
    int status = TC_OK, have_total = 0;
    memset(stats, 0, sizeof *stats);
    stats->planes = count > 0 ? planes_of(&src[0], pixels_of(pixels, 0)) : 0;
    stats->run.iterations = 1;
    if (!(stats->run.kernel_ms = calloc(1, sizeof(double))))
        return tc_fail(m, TC_ENOMEM, "out of host memory for a run's figures");
    if (pixels && (!d->info.has_double || p->convert_on_host)) {
        /* The older layouts' host conversions are pixels.c's (tc_run_image), not these. */
        tc_run_stats_free(&stats->run);
        return tc_fail(m, TC_EINVAL, "the older layouts convert on the host through "
                                     "tc_run_image, not the pipeline");
    }
    if (d->info.has_double && !p->convert_on_host) {
        if (!*stream && !(*stream = calloc(1, sizeof **stream)))
            status = tc_fail(m, TC_ENOMEM, "out of host memory for the image pipeline");
        else {
            (*stream)->d = d;
            (*stream)->crew = crew;
            (*stream)->host = host;
            status = run_on_device(*stream, programs, buffers, p, jobs, src, dst, pixels,
                                   count, stats, m);
        }
    } else {
        for (int i = 0; status == TC_OK && i < count; i++)
            if ((status = run_on_host(d, programs, buffers, p, jobs[i], &src[i], &dst[i],
                                      stats, &have_total, m)) != TC_OK)
                name_image(status, i, count, host, m);
    }
    if (status != TC_OK) {
        tc_run_stats_free(&stats->run);
        return status;
    }
    stats->run.wall_ms_per_iteration = tc_wall_ms() - t0;
    return TC_OK;
}
