/*
 * deferred_figures.c - a batch's profiling times read when asked (deferred_figures.h).
 */
#include "deferred_figures.h"

#include <stdlib.h>
#include <string.h>

/* Room for one more event: TC_OK, or TC_ENOMEM without a change. */
static int grow(tc_deferred *d)
{
    if (d->count < d->capacity)
        return TC_OK;
    const size_t more = d->capacity ? 2 * d->capacity : 256;
    cl_event *events = realloc(d->events, more * sizeof *events);
    if (!events)
        return TC_ENOMEM;
    d->events = events;
    unsigned char *kinds = realloc(d->kinds, more);
    if (!kinds)
        return TC_ENOMEM;
    d->kinds = kinds;
    d->capacity = more;
    return TC_OK;
}

int tc_deferred_keep(tc_deferred *d, cl_event *e, tc_defer_kind kind, tc_msg *m)
{
    int status = TC_OK;
    if (!*e)
        return TC_OK;
    if (d->count >= TC_DEFERRED_MAX && (status = tc_deferred_read(d, m)) != TC_OK) {
        tc_event_release(e);
        return status;
    }
    if (grow(d) != TC_OK) { /* no room: this one's time now */
        double ms = 0.0;
        status = tc_stat_ms(*e, &ms, m);
        d->ms[kind] += ms;
        tc_event_release(e);
        return status;
    }
    d->events[d->count] = *e;
    d->kinds[d->count] = (unsigned char)kind;
    d->count++;
    *e = NULL;
    return TC_OK;
}

int tc_deferred_read(tc_deferred *d, tc_msg *m)
{
    int status = TC_OK;
    for (size_t i = 0; i < d->count; i++) {
        double ms = 0.0;
        const int one = status == TC_OK ? tc_stat_ms(d->events[i], &ms, m) : TC_OK;
        d->ms[d->kinds[i]] += ms;
        status = status != TC_OK ? status : one;
        tc_event_release(&d->events[i]);
    }
    d->count = 0;
    return status;
}

void tc_deferred_clear(tc_deferred *d)
{
    for (size_t i = 0; i < d->count; i++)
        tc_event_release(&d->events[i]);
    d->count = 0;
    memset(d->ms, 0, sizeof d->ms);
}

void tc_deferred_free(tc_deferred *d)
{
    tc_deferred_clear(d);
    free(d->events);
    free(d->kinds);
    memset(d, 0, sizeof *d);
}
