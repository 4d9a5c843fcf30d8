/* queue.c - the bounded queue of queue.h: a ring of pointers under one mutex. */
#include "queue.h"

#include <stdlib.h>

int queue_init(work_queue *q, int capacity, int producers)
{
    q->items = malloc((size_t)capacity * sizeof *q->items);
    if (!q->items)
        return -1;
    q->capacity = capacity;
    q->head = q->count = 0;
    q->producers = producers;
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->not_empty, NULL);
    pthread_cond_init(&q->not_full, NULL);
    return 0;
}

void queue_destroy(work_queue *q)
{
    free(q->items);
    q->items = NULL;
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->not_empty);
    pthread_cond_destroy(&q->not_full);
}

void queue_put(work_queue *q, void *item)
{
    pthread_mutex_lock(&q->lock);
    while (q->count == q->capacity)
        pthread_cond_wait(&q->not_full, &q->lock);
    q->items[(q->head + q->count) % q->capacity] = item;
    q->count++;
    pthread_cond_signal(&q->not_empty);
    pthread_mutex_unlock(&q->lock);
}

void *queue_get(work_queue *q)
{
    void *item = NULL;
    pthread_mutex_lock(&q->lock);
    while (q->count == 0 && q->producers > 0)
        pthread_cond_wait(&q->not_empty, &q->lock);
    if (q->count > 0) {
        item = q->items[q->head];
        q->head = (q->head + 1) % q->capacity;
        q->count--;
        pthread_cond_signal(&q->not_full);
    }
    pthread_mutex_unlock(&q->lock);
    return item;
}

void queue_producer_done(work_queue *q)
{
    pthread_mutex_lock(&q->lock);
    if (--q->producers == 0)
        pthread_cond_broadcast(&q->not_empty);
    pthread_mutex_unlock(&q->lock);
}
