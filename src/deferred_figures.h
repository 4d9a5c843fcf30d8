/*
 * deferred_figures.h - a batch's profiling times, read when someone asks for them. Reading a
 * finished command's two counters is two driver calls on the calling thread; over a batch's
 * images they were a fifth of a gray batch's time on two data-centre GPUs (the queries
 * of an image cost 0.03-0.05 ms, its whole share of the batch 0.15-0.2 ms: docs/benchmarks.md).
 * So a batch keeps its images' events here instead, and tc_last_stats reads them; a batch that
 * nobody asks about pays only their release. At most TC_DEFERRED_MAX events are kept: the
 * store reads what it holds when full, so that a long batch's events stay bounded.
 */
#ifndef TILEDCONV_DEFERRED_FIGURES_H
#define TILEDCONV_DEFERRED_FIGURES_H

#include "device.h"

#define TC_DEFERRED_MAX 16384

/* What an event's time is part of: the run's upload, download, conversion or kernel time. */
typedef enum {
    TC_DEFER_UPLOAD,
    TC_DEFER_DOWNLOAD,
    TC_DEFER_CONVERT,
    TC_DEFER_KERNEL,
    TC_DEFER_KINDS
} tc_defer_kind;

typedef struct {
    cl_event *events;           /* kept, one reference each */
    unsigned char *kinds;       /* each one's tc_defer_kind */
    size_t count, capacity;
    double ms[TC_DEFER_KINDS];  /* the times of the events read so far, by kind */
} tc_deferred;

/* Keeps *e's time as one of kind's (its reference moves here; *e is cleared); NULL does
 * nothing. When TC_DEFERRED_MAX are kept, or the host's memory for more is out, the kept ones
 * and this one are read at once. TC_OK or a failure of those reads. */
int tc_deferred_keep(tc_deferred *d, cl_event *e, tc_defer_kind kind, tc_msg *m);

/* Reads each kept event's time (from the start to the end of the command, 0 where the driver
 * kept no counters: tc_stat_ms) into d->ms and releases it. TC_OK, or the first failure (every
 * event released still). */
int tc_deferred_read(tc_deferred *d, tc_msg *m);

/* Releases the kept events unread and zeroes the times; the room is kept for the next run. */
void tc_deferred_clear(tc_deferred *d);

/* Everything, the room too; safe on a zeroed store. */
void tc_deferred_free(tc_deferred *d);

#endif
