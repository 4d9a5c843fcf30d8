/*
 * copier.h - a small crew of threads that runs the host's copies between the caller's memory
 * and pinned staging memory in parallel, each copy beside the transfers of the ones before.
 *
 * Why: one host thread copies about 10 GB/s, while a PCIe 5 bus moves about 40 GB/s from
 * pinned memory; a 1080p image's copies into and out of pinned memory took 0.34 ms of a
 * 0.53 ms call on the GPU machine with one thread (docs/benchmarks.md). Split over a few
 * threads they take a fraction of that, and each chunk's transfer starts as soon as its own
 * copy is done.
 *
 * A crew belongs to one context (a context serves one thread at a time, so one run at a time
 * uses it). Its threads start on the first run that has two tasks or more, and sleep between
 * runs after a short spin (the next call of a loop, or the next stage of the same image, comes
 * within tens of microseconds; waking a sleeping thread costs about as much). The calling
 * thread takes tasks too, so a crew that could not start still runs everything, on one
 * thread.
 */
#ifndef TILEDCONV_COPIER_H
#define TILEDCONV_COPIER_H

#include "status.h"

typedef struct tc_copier tc_copier;

/* The threads that copy for the calling thread, itself included: its own limit where set
 * (tc_copier_width_here), at most the crew's size: the tuning's copy_threads where set (1..16), else
 * half the cores this process may run on (its CPU affinity; on a machine with two threads a
 * core, one thread a core), at least 2 where there are 2 cores, at most 8. One thread copies about a quarter of what the bus moves from pinned
 * memory; a batch copies both ways at once, and eight threads is about where a server's
 * memory stops giving more (an overlapped batch of 300 gray 1080p images from Python took
 * 0.059-0.066 s with 15 threads against 0.053 with 8 on the 16-core GPU machine,
 * docs/benchmarks.md: its copies then hide under the caller's enqueues, and more threads
 * only slow the caller down). */
int tc_copier_width(void);

/* A limit on the threads that copy for the calling thread's runs from now on (0: none, the
 * crew's size; 1: the calling thread alone, the crew not woken). The command line's batch lanes
 * set 1 while its workers keep every core busy: a crew thread preempted by them mid-copy held
 * the lane up (docs/benchmarks.md). */
void tc_copier_width_here(int n);

/* One task of a run: part i of n. TC_OK, or a status with its reason in m. */
typedef int (*tc_copier_task)(void *arg, int i, tc_msg *m);

/* Runs task(arg, i) for every i in 0 .. n - 1 on the crew and the calling thread, in no fixed
 * order and possibly at once, and returns when all have finished: TC_OK, or the status of a
 * failed task with its reason in m (the other tasks still run). *crew is started on the first
 * run with n >= 2 (it stays NULL where no thread could start: the caller then runs them all). */
int tc_copier_run(tc_copier **crew, int n, tc_copier_task task, void *arg, tc_msg *m);

/* A run posted to the crew and not yet joined (tc_copier_post). */
typedef struct {
    tc_copier *crew; /* NULL: it already ran, on the posting thread */
    unsigned generation;
    int n, status;
    tc_msg msg;
} tc_copier_posted;

/* Starts the run of tc_copier_run on the crew's threads alone and returns at once, so that the
 * caller can do other work meanwhile (a batch's enqueues, stream.c): 1. Where there is no crew
 * to take it (n < 2, a width of 1, no thread started) it runs everything here first: 0. Either
 * way tc_copier_join must follow before the next run is posted or run, and before arg's memory
 * goes. */
int tc_copier_post(tc_copier **crew, int n, tc_copier_task task, void *arg,
                   tc_copier_posted *posted);

/* Takes the posted run's tasks still untaken, waits for the rest, and returns as
 * tc_copier_run does. */
int tc_copier_join(tc_copier_posted *posted, tc_msg *m);

/* Copies n bytes from src to dst (not overlapping) in parts, on the crew. */
void tc_copier_memcpy(tc_copier **crew, void *dst, const void *src, size_t n);

/* Stops and frees the crew. NULL is allowed. */
void tc_copier_release(tc_copier *crew);

#endif
