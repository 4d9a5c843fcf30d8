/*
 * queue.h - a bounded queue of pointers between the threads of a batch (cli/batch.c): readers
 * put decoded images in, device lanes take them out and put results into the next queue,
 * writers take those. put blocks while the queue is full, get while it is empty; once closed
 * and drained, get returns NULL so that the consumers end.
 */
#ifndef TILEDCONV_QUEUE_H
#define TILEDCONV_QUEUE_H

#include <pthread.h>

typedef struct {
    void **items;
    int capacity, head, count;
    int producers; /* threads still putting; the queue closes when the last one leaves */
    pthread_mutex_t lock;
    pthread_cond_t not_empty, not_full;
} work_queue;

/* 0, or -1 when out of memory. */
int queue_init(work_queue *q, int capacity, int producers);
void queue_destroy(work_queue *q);

void queue_put(work_queue *q, void *item);

/* The next item, or NULL once every producer has left and the queue is empty. */
void *queue_get(work_queue *q);

/* One producer is done; when it was the last, waiting consumers are woken to end. */
void queue_producer_done(work_queue *q);

#endif
