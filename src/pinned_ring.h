/*
 * pinned_ring.h - the pinned host memory of one direction of the image pipeline (stream.h),
 * used as a ring of chunks: the chunk a stream of bytes moves in, the ring's size, and each
 * chunk's last transfer waited for, timed and released before the chunk is used again.
 */
#ifndef TILEDCONV_PINNED_RING_H
#define TILEDCONV_PINNED_RING_H

#include "deferred_figures.h"
#include "device.h"

typedef struct {
    cl_mem mem;
    unsigned char *ptr; /* mapped once, for the ring's life */
    size_t size;
    cl_event *events;   /* per chunk of the ring: the transfer that last used it, or NULL */
    int capacity;       /* entries of events */
} tc_pinned_ring;

/* The earliest start and the latest end of a direction's transfers (profiling counters). */
typedef struct {
    cl_ulong start, end;
} tc_span;

/* The span's length in ms (0 for none). */
double tc_span_ms(const tc_span *sp);

/* The chunk an n-byte stream moves in: about one for each thread of the copy crew. */
size_t tc_ring_chunk(size_t n);

/* The pinned bytes for an n-byte stream in chunks of `chunk`: the whole stream, at most the
 * ring's cap, at least one chunk. */
size_t tc_ring_bytes(size_t n, size_t chunk);

/* At least `want` bytes of pinned memory, mapped on queue, and room for an event per chunk of
 * it. On a failure the ring is released. */
int tc_ring_ensure(const tc_device *d, cl_command_queue queue, tc_pinned_ring *p, size_t want,
                   size_t chunk, tc_msg *m);

/* Waits for the transfer that last used a chunk of the ring, folds its times into sp, and
 * frees its event (none: nothing to do). */
int tc_ring_retire(cl_event *e, tc_span *sp, tc_msg *m);

/* tc_ring_retire for the places [first, first + count) of a ring of `regions` chunks (mod
 * regions): a transfer that moved several places (a round's) holds its event in each of them,
 * and is waited for and timed once (the profiling queries cost the driver a few microseconds
 * each: four places of a 1080p gray image each way took 0.07 ms an image on the GPU machine,
 * docs/benchmarks.md). Every place is freed; the first failure is returned. */
int tc_ring_retire_places(cl_event *events, int regions, size_t first, size_t count,
                          tc_span *sp, tc_msg *m);

/* The same places' events kept in later as kind's times, unread (deferred_figures.h), each
 * transfer once: for transfers that are over (waited for, or before one that was on the same
 * in-order queue). Every place is freed; the first failure is returned. */
int tc_ring_defer_places(cl_event *events, int regions, size_t first, size_t count,
                         tc_deferred *later, tc_defer_kind kind, tc_msg *m);

/* Retires every event of a ring (its transfers done or to be waited for). */
int tc_ring_retire_all(tc_pinned_ring *p, tc_span *sp, tc_msg *m);

/* Chunks of one round through a ring of `regions` chunks: every chunk when they fit, else half
 * the ring, so that one half is in transfer while the crew copies the other. */
size_t tc_ring_round(size_t chunks, int regions);

/* Releases the events of the ring's chunks (their transfers abandoned or finished). */
void tc_ring_release_events(tc_pinned_ring *p);

/* Unmaps and releases the ring (queue: the one it was mapped on); safe on a zeroed ring. */
void tc_ring_release(tc_pinned_ring *p, cl_command_queue queue);

#endif
