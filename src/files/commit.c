/* commit.c - staged outputs made durable and put in place by waiter threads (commit.h). */
#include "commit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void commit_now(commit_item *item, int sync)
{
    char why[700] = "";
    int failed_at = -1;
    /* Both durable (or, without sync, closed) before either gets its name: a failure in
     * either leaves neither. */
    for (int i = 0; i < 2 && failed_at < 0; i++)
        if (item->files[i].f && atomic_file_finish(&item->files[i], sync, why, sizeof why))
            failed_at = i;
    for (int i = 0; i < 2 && failed_at < 0; i++) {
        if (!item->files[i].path)
            continue;
        item->files[i].sync_folder = 0; /* the batch syncs its folder once, at the end */
        if (atomic_file_commit(&item->files[i], why, sizeof why))
            failed_at = i;
    }
    if (failed_at >= 0) {
        item->failed = 1;
        snprintf(item->err, sizeof item->err, "%s%s",
                 item->flags[failed_at] ? item->flags[failed_at] : "", why);
    }
    atomic_file_discard(&item->files[0]);
    atomic_file_discard(&item->files[1]);
}

/* The next item, or NULL once the queue is closed and empty. */
static commit_item *take_one(commit_queue *q)
{
    pthread_mutex_lock(&q->lock);
    while (!q->head && !q->closed)
        pthread_cond_wait(&q->more, &q->lock);
    commit_item *item = q->head;
    if (item) {
        q->head = item->next;
        if (!q->head)
            q->tail = NULL;
        q->count--;
        pthread_cond_signal(&q->room);
    }
    pthread_mutex_unlock(&q->lock);
    return item;
}

/* A waiter: one fsync a file, many of these threads at once. */
static void *wait_each(void *arg)
{
    commit_queue *q = arg;
    commit_item *item;
    while ((item = take_one(q)) != NULL) {
        const double t = now_ms();
        commit_now(item, 1);
        item->sync_ms = now_ms() - t;
        item->done(item, item->arg);
    }
    return NULL;
}

int commit_start(commit_queue *q, int waiters)
{
    memset(q, 0, sizeof *q);
    q->capacity = 2 * waiters;
    if (!(q->threads = calloc((size_t)waiters, sizeof *q->threads)))
        return -1;
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->more, NULL);
    pthread_cond_init(&q->room, NULL);
    for (int i = 0; i < waiters; i++) {
        if (pthread_create(&q->threads[i], NULL, wait_each, q) != 0)
            break;
        q->n_threads++;
    }
    if (q->n_threads == 0) {
        free(q->threads);
        q->threads = NULL;
        pthread_mutex_destroy(&q->lock);
        pthread_cond_destroy(&q->more);
        pthread_cond_destroy(&q->room);
        return -1;
    }
    return 0;
}

void commit_put(commit_queue *q, commit_item *item)
{
    item->next = NULL;
    pthread_mutex_lock(&q->lock);
    while (q->count >= q->capacity)
        pthread_cond_wait(&q->room, &q->lock);
    if (q->tail)
        q->tail->next = item;
    else
        q->head = item;
    q->tail = item;
    q->count++;
    pthread_cond_signal(&q->more);
    pthread_mutex_unlock(&q->lock);
}

void commit_finish(commit_queue *q)
{
    if (!q->threads)
        return;
    pthread_mutex_lock(&q->lock);
    q->closed = 1;
    pthread_cond_broadcast(&q->more);
    pthread_mutex_unlock(&q->lock);
    for (int i = 0; i < q->n_threads; i++)
        pthread_join(q->threads[i], NULL);
    free(q->threads);
    q->threads = NULL;
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->more);
    pthread_cond_destroy(&q->room);
}
