/*
 * probe_time.h - the clock and the sort order the bench/ probes time with, in one place so
 * that every probe's figures mean the same thing. Header-only (static inline), so that each
 * probe still builds from its one .c file with the command in its header.
 */
#ifndef TC_BENCH_PROBE_TIME_H
#define TC_BENCH_PROBE_TIME_H

#include <time.h>

/* Milliseconds on the monotonic clock: only differences mean anything. */
static inline double probe_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* qsort's order for doubles, smallest first (medians and minima are read off the sorted
 * times). */
static inline int probe_ascending(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
