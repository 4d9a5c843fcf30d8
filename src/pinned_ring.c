/*
 * pinned_ring.c - a direction's pinned memory as a ring of chunks (pinned_ring.h).
 */
#include "pinned_ring.h"

#include <stdlib.h>
#include <string.h>

#include "buffers.h"
#include "copier.h"
#include "tuning.h"

/* The pinned memory of one slot and direction, at most: a 1080p RGB float image (24 MB) fits
 * whole; a larger one goes through it as a ring. */
#define PINNED_CAP ((size_t)32 << 20)
/* An image's stream goes in about one chunk for each thread of the copy crew, each 512 KiB ..
 * 8 MiB: the threads copy their chunks at once and each starts its transfer when done, while
 * the transfers stay few: each costs about 10 us beyond its bytes (on the GPU machine, one
 * 1080p gray call took 0.58 ms in chunks of 1 MiB, 0.60 in 512 KiB, 0.67 in 256 KiB and 1.23
 * in 64 KiB, copied on one thread; docs/benchmarks.md). */
#define MIN_CHUNK ((size_t)512 << 10)
#define MAX_CHUNK ((size_t)8 << 20)

double tc_span_ms(const tc_span *sp)
{
    return sp->end > sp->start ? (double)(sp->end - sp->start) * 1e-6 : 0.0;
}

void tc_ring_release_events(tc_pinned_ring *p)
{
    for (int i = 0; i < p->capacity; i++)
        tc_event_release(&p->events[i]);
}

void tc_ring_release(tc_pinned_ring *p, cl_command_queue queue)
{
    tc_ring_release_events(p);
    free(p->events);
    if (p->mem && p->ptr)
        clEnqueueUnmapMemObject(queue, p->mem, p->ptr, 0, NULL, NULL);
    if (queue)
        clFinish(queue);
    if (p->mem)
        clReleaseMemObject(p->mem);
    memset(p, 0, sizeof *p);
}

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

/* The tuning's staging_chunk (at least 64 bytes) sets the chunk, so that the tests can move
 * small images in many chunks. */
size_t tc_ring_chunk(size_t n)
{
    const size_t set = (size_t)tc_tuning_now()->staging_chunk;
    size_t c = set;
    if (c >= 64)
        c = round_up(c, 64);
    else
        c = round_up(n / (size_t)tc_copier_width(), 4096);
    if (c < 64)
        c = 64;
    if (!set)
        c = c < MIN_CHUNK ? MIN_CHUNK : c > MAX_CHUNK ? MAX_CHUNK : c;
    /* A small image pins only what it moves; no chunk passes the pinned memory's cap. */
    const size_t whole = round_up(n, 64);
    c = c < whole ? c : whole;
    return c < PINNED_CAP ? c : PINNED_CAP;
}

/* The cap is the tuning's pinned_bytes where set (the tests of the ring lower it). */
size_t tc_ring_bytes(size_t n, size_t c)
{
    const size_t set = (size_t)tc_tuning_now()->pinned_bytes;
    const size_t cap = set ? set : PINNED_CAP;
    size_t want = round_up(n, c);
    if (want > cap)
        want = cap / c * c;
    return want < c ? c : want;
}

int tc_ring_ensure(const tc_device *d, cl_command_queue queue, tc_pinned_ring *p, size_t want,
                   size_t chunk, tc_msg *m)
{
    cl_int err;
    int status = TC_OK, regions;
    if (p->size < want) {
        tc_ring_release(p, queue);
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
    tc_ring_release(p, queue);
    return status;
}

int tc_ring_retire(cl_event *e, tc_span *sp, tc_msg *m)
{
    int status = TC_OK;
    cl_ulong start = 0, end = 0;
    if (!*e)
        return TC_OK;
    CL_CALL(status, cleanup, m, clWaitForEvents(1, e));
    /* A finished transfer without profiling counters (tc_stat_ms says when) adds no span. */
    const cl_int err = clGetEventProfilingInfo(*e, CL_PROFILING_COMMAND_END, sizeof end, &end,
                                               NULL);
    if (err == CL_PROFILING_INFO_NOT_AVAILABLE)
        goto cleanup;
    CL_CHECK(status, cleanup, m, err, "clGetEventProfilingInfo(CL_PROFILING_COMMAND_END)");
    CL_CALL(status, cleanup, m,
            clGetEventProfilingInfo(*e, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL));
    if (sp->end == 0 || start < sp->start)
        sp->start = start;
    if (end > sp->end)
        sp->end = end;
cleanup:
    tc_event_release(e);
    return status;
}

/* What becomes of a transfer of the places: retired, timed into sp, or kept in later. */
typedef struct {
    tc_span *sp;        /* retire into this span, or */
    tc_deferred *later; /* keep it here as kind's time */
    tc_defer_kind kind;
} place_taker;

/* Each transfer of the places [first, first + count) (mod regions) taken once, the other
 * places' references to it released: a round's transfer is retained in each place it moved.
 * The last transfer taken is compared only with events alive since before this loop, so an
 * equal pointer is the same transfer. Every place is freed; the first failure is returned. */
static int take_places(cl_event *events, int regions, size_t first, size_t count,
                       const place_taker *t, tc_msg *m)
{
    int status = TC_OK;
    cl_event taken = NULL;
    for (size_t k = first; k < first + count; k++) {
        cl_event *e = &events[k % (size_t)regions];
        int one = TC_OK;
        if (*e && *e == taken) {
            tc_event_release(e);
        } else {
            taken = *e;
            one = t->later ? tc_deferred_keep(t->later, e, t->kind, m)
                           : tc_ring_retire(e, t->sp, m);
        }
        status = status != TC_OK ? status : one;
    }
    return status;
}

int tc_ring_retire_places(cl_event *events, int regions, size_t first, size_t count,
                          tc_span *sp, tc_msg *m)
{
    const place_taker t = {sp, NULL, TC_DEFER_UPLOAD};
    return take_places(events, regions, first, count, &t, m);
}

int tc_ring_defer_places(cl_event *events, int regions, size_t first, size_t count,
                         tc_deferred *later, tc_defer_kind kind, tc_msg *m)
{
    const place_taker t = {NULL, later, kind};
    return take_places(events, regions, first, count, &t, m);
}

int tc_ring_retire_all(tc_pinned_ring *p, tc_span *sp, tc_msg *m)
{
    return tc_ring_retire_places(p->events, p->capacity > 0 ? p->capacity : 1, 0,
                                 (size_t)(p->capacity > 0 ? p->capacity : 0), sp, m);
}

size_t tc_ring_round(size_t chunks, int regions)
{
    if (chunks <= (size_t)regions)
        return chunks;
    return regions >= 2 ? (size_t)regions / 2 : 1;
}
