/*
 * stream_slot.h - one slot of the image pipeline (stream.h): its own in-order queue, the
 * conversion kernels, the device buffers of an image's packed samples and planes, and the
 * pinned rings of both directions; and the steps of the one image it holds: its samples up
 * through the ring, unpacked into planes, the filtered planes packed, and the samples down
 * through the other ring into the caller's rows, its times added when it is finished. Rows
 * that lie in the context's page-locked blocks (host_blocks.h) are "direct": their transfer
 * goes between the caller's memory and the device buffer at once, no ring, no crew.
 */
#ifndef TILEDCONV_STREAM_SLOT_H
#define TILEDCONV_STREAM_SLOT_H

#include "channels.h"
#include "copier.h"
#include "host_blocks.h"
#include "launch.h"
#include "pinned_ring.h"
#include "pixels.h"

/* The image a slot holds until it is finished. */
typedef struct {
    const tc_image *dst;
    int index, planes, fast, timed;
    size_t bytes, chunk;             /* the output's packed stream and its chunks */
    size_t chunks;                   /* of the output */
    int regions;                     /* chunks of the download ring */
    size_t enqueued, consumed;       /* chunks read, and scattered into dst */
    tc_span up, down;                /* the transfers' times, folded in as they are released */
    int direct_out;                  /* the output's rows are read into straight */
    int by_round;                    /* its copies go a round at a time (stream_slot.c) */
    cl_event direct_up, direct_down; /* the direct transfers, if any */
    cl_event unpack, pack;
    cl_event kernels[TC_MAX_CHANNELS];
    tc_pixel_pair pixels;            /* the older layouts' pair (src NULL: channel-last) */
} tc_flight;

/* A round of one direction's copies: chunks' bytes [lo, hi) of the stream between img's rows
 * and their places in the ring, in `parts` parts for the crew's threads. */
typedef struct {
    const tc_image *img;
    unsigned char *ring;
    size_t chunk, lo, hi; /* the chunks' size; the round's bytes of the stream */
    int regions, parts, up;
} tc_round_copy;

/* The copies a batch posts to the crew while it enqueues another image (tc_slot_post_copies):
 * the held image's output scattered, the next image's input gathered. */
typedef struct {
    tc_round_copy rounds[2]; /* the scatter, the gather (parts 0: none) */
    int pending;             /* posted, not yet joined */
    tc_copier_posted posted;
} tc_slot_copies;

typedef struct {
    cl_command_queue queue;          /* its own, so that slots overlap on the device */
    cl_kernel unpack, pack;          /* Channels.cl's, made on its first channel-last image */
    cl_kernel unpack_pixels, pack_pixels; /* Pixels.cl's, on its first of the older layouts */
    cl_mem palette;                  /* an INDEXED8 source's palette on the device (3 x 256) */
    unsigned char palette_bytes[3 * 256]; /* what its write reads: kept until the image is over */
    cl_mem in, out;                  /* the packed samples */
    size_t in_size, out_size;
    cl_mem src[TC_MAX_CHANNELS], dst[TC_MAX_CHANNELS];
    size_t src_size[TC_MAX_CHANNELS], dst_size[TC_MAX_CHANNELS];
    tc_pinned_ring up, down;
    int busy;
    tc_flight f;
    tc_slot_copies copies;
} tc_slot;

/* The slot's queue, made on its first image, and the conversion kernels of the image's kind
 * (from program: Channels.cl's, or with pixels Pixels.cl's and the palette's buffer), made on
 * its first image of that kind; nothing to do when it has them. A failure leaves the slot as
 * it was (its queue, an image in flight). */
int tc_slot_open(tc_slot *s, const tc_device *d, cl_program program, int pixels, tc_msg *m);

/* Whether img's rows can move directly: all of them inside one of blocks' blocks, a stride
 * of at least a row's samples (top-down, or bottom-up: a negative one), and the tuning's
 * host_staged off. */
int tc_slot_direct(tc_host_blocks *blocks, const tc_image *img);

/* The device buffers and pinned rings the image pair needs (planes: the float planes of each
 * side filtered), grown where too small (a direction that moves directly needs no ring). */
int tc_slot_ensure(tc_slot *s, const tc_device *d, const tc_image *src, const tc_image *dst,
                   int planes, size_t in_chunk, size_t out_chunk, int direct_in, int direct_out,
                   tc_msg *m);

/* The slot takes the image whose output is dst (planes planes; fast: its filters are
 * enqueued by tc_slot_filter, whose kernel times the slot adds up; timed: its conversions and
 * those filters get profiling events, else none and no time), downloaded in chunks of
 * out_chunk, or directly (direct_out); by_round: its copies through the rings go a round at a
 * time, on the crew (stream_slot.c says when that is faster). pixels: the caller's pair of the
 * older layouts, whose raw views src and dst are (NULL: a channel-last pair). */
void tc_slot_begin(tc_slot *s, const tc_image *dst, int planes, int fast, int timed,
                   size_t out_chunk, int direct_out, int by_round, const tc_pixel_pair *pixels);

/* src's packed samples up: directly (direct), or in rounds through the ring, copied by the
 * crew (copier.h), chunk by chunk or a round at a time as tc_slot_begin said. */
int tc_slot_upload(tc_slot *s, tc_copier **crew, const tc_image *src, size_t chunk, int direct,
                   tc_msg *m);

/* unpack_samples: one float plane per channel; the output planes start as the input where some
 * pixel lies outside the job's target ROI. direct: src went up directly (tc_slot_upload), so
 * bottom-up rows lie in the buffer bottom-up. An image of the older layouts: unpack_pixels,
 * its palette written first (an INDEXED8 source), the output planes always starting as the
 * input. */
int tc_slot_unpack(tc_slot *s, const tc_image *src, const tc_job *job, int direct, tc_msg *m);

/* Each plane filtered by the prepared launch (its plane arguments set per plane). */
int tc_slot_filter(tc_slot *s, tc_launch *l, tc_msg *m);

/* A gray 8-bit image filtered by the prepared launch of a packed_u8 job (filter_job.h): from
 * the slot's input bytes straight into its output bytes, no unpack and no pack. */
int tc_slot_filter_bytes(tc_slot *s, tc_launch *l, tc_msg *m);

/* pack_samples: the output samples, v * scale + offset inside the target ROI (a direct
 * output's bottom-up rows packed bottom-up, as they come down). An image of the older
 * layouts: pack_pixels, or for float planes out the planes copied into the output's packed
 * rows, unpadded. */
int tc_slot_pack(tc_slot *s, const tc_image *dst, const tc_job *job, double scale,
                 double offset, tc_msg *m);

/* The output's first reads enqueued (a direct output's one read). */
int tc_slot_start_download(tc_slot *s, tc_msg *m);

/* Finishes the slot's image (none: nothing to do): its download scattered into the caller's
 * rows by the crew (a direct one waited for), its transfer times added to total's h2d_ms and
 * d2h_ms, its conversions' kernel time to *convert_ms, and a fast image's filters' to
 * total->kernel_ms[0]; with later (not NULL), the conversions' and filters' events are kept
 * there unread instead (deferred_figures.h). */
int tc_slot_finish(tc_slot *s, tc_copier **crew, tc_run_stats *total, double *convert_ms,
                   tc_deferred *later, tc_msg *m);

/* A batch's copies beside its enqueues (stream.c): a slot's held image is finished in three
 * steps, its reads waited for (tc_slot_wait_download), its output scattered by the crew
 * (tc_slot_post_copies, tc_slot_join_copies) while the caller enqueues another image and takes
 * the held one's figures (tc_slot_take_figures: its events are over once its reads are, and
 * the crew's copies touch none of them); the next image's input is gathered into the slot's up
 * ring in the same posted run and goes up later with tc_slot_upload_gathered. For images
 * whose streams each go through the rings in one round (tc_slot_one_round) and by rounds,
 * neither direction direct. */

/* Whether src's and dst's packed streams each fit a ring made for them in one round. */
int tc_slot_one_round(const tc_image *src, const tc_image *dst);

/* Whether staging src and dst would make the slot's rings anew (larger): tc_slot_ensure would
 * then free the memory the held image's output waits in. */
int tc_slot_rings_grow(const tc_slot *s, const tc_image *src, const tc_image *dst);

/* Waits for the held image's reads (all of them enqueued, one round). */
int tc_slot_wait_download(tc_slot *s, tc_msg *m);

/* Posts to the crew the held image's output scattered into the caller's rows (scatter: its
 * reads waited for), and src's packed samples gathered into the up ring in chunks of in_chunk
 * (src not NULL; the ring made for it by tc_slot_ensure), and returns at once; where the crew
 * cannot take them they run here first. tc_slot_join_copies must follow. */
void tc_slot_post_copies(tc_slot *s, tc_copier **crew, int scatter, const tc_image *src,
                         size_t in_chunk);

/* The held image's figures (its reads waited for; its scatter may still run) added to total's
 * h2d_ms, d2h_ms and kernel_ms[0] and to *convert_ms, or with later (not NULL) its events kept
 * there unread, its flight released. */
int tc_slot_take_figures(tc_slot *s, tc_run_stats *total, double *convert_ms,
                         tc_deferred *later, tc_msg *m);

/* Waits for the posted copies, if any: TC_OK, or a task's failure. m may be NULL. */
int tc_slot_join_copies(tc_slot *s, tc_msg *m);

/* src's packed samples up from the up ring, where tc_slot_post_copies gathered them. */
int tc_slot_upload_gathered(tc_slot *s, const tc_image *src, size_t chunk, tc_msg *m);

/* Abandons the image after a failure: its work finished, its events released. */
void tc_slot_abandon(tc_slot *s);

/* Ends an image whose queue has finished (and which posted no copies): its events released. */
void tc_slot_end(tc_slot *s);

/* The slot's device buffers (not its queue, kernels or pinned memory). */
void tc_slot_release_buffers(tc_slot *s);

/* Everything the slot holds; safe on a zeroed slot. */
void tc_slot_release(tc_slot *s);

#endif
