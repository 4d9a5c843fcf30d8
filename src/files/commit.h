/*
 * commit.h - a batch's finished outputs put in place without a worker waiting on the disk.
 *
 * A worker stages each output (atomic_file.h: written whole, without a name or under a
 * temporary one, flushed to the kernel) and hands it here; waiter threads, which spend their
 * time asleep in fsync, make its data durable, then link or rename it into place, and report
 * through the item's callback. The worker goes straight back to decoding and encoding.
 *
 * One fsync a file, by many waiter threads at once: the disk and the journal serve concurrent
 * flushes together. (One syncfs() for every file staged so far, by one waiter, measured 5.09 s
 * against 1.83 s for a batch on the GPU machine, docs/benchmarks.md: it flushes whatever else
 * is dirty on the file system too.) No name ever points at data not yet on disk.
 */
#ifndef TILEDCONV_COMMIT_H
#define TILEDCONV_COMMIT_H

#include <pthread.h>

#include "atomic_file.h"

/* One image's outputs: its image file and its raw file, either unused (path NULL). */
typedef struct commit_item commit_item;
struct commit_item {
    atomic_file files[2];  /* staged: open, their data flushed to the kernel */
    const char *flags[2];  /* how messages name each: "" for the image, "--raw " */
    char err[768];         /* why the commit failed, when failed */
    int failed;
    double sync_ms;        /* the wall time spent making it durable */
    /* Called by the waiter once the files are in place (or discarded on a failure). */
    void (*done)(commit_item *item, void *arg);
    void *arg;
    commit_item *next;
};

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t more, room;
    commit_item *head, *tail;
    int count, capacity;  /* items waiting; put blocks at capacity (open files are bounded) */
    int closed;
    pthread_t *threads;
    int n_threads;
} commit_queue;

/* Starts `waiters` threads with room for 2 x waiters items. 0, or -1 (out of memory, or no
 * thread could start: nothing to stop). */
int commit_start(commit_queue *q, int waiters);

/* Hands an item to the waiters; blocks while capacity items wait (the disk is then the
 * bound, and holding more open files would not help). */
void commit_put(commit_queue *q, commit_item *item);

/* After the last put: every item committed and reported, the threads joined. */
void commit_finish(commit_queue *q);

/* Commits an item on the caller's thread: synced first when sync is 1 (fsync), then put in
 * place. Used by the waiters and, without syncs (--no-sync), by the workers themselves. Fills
 * item->err and failed; does not call done. */
void commit_now(commit_item *item, int sync);

#endif
