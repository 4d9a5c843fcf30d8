/* pinned_pool.c - the batch's reusable page-locked blocks (pinned_pool.h). */
#include "pinned_pool.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Blocks are made in steps of 256 KiB, so that images of nearly the same size share them. */
#define BLOCK_STEP ((size_t)256 << 10)

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static void *io_alloc(void *arg, size_t bytes)
{
    pinned_pool *p = arg;
    pthread_mutex_lock(&p->lock);
    const int pinned = p->ctx != NULL;
    pthread_mutex_unlock(&p->lock);
    /* Before the device opens the decoder's own malloc does as well. */
    return pinned ? pinned_pool_get(p, bytes) : NULL;
}

static void io_release(void *arg, void *pixels)
{
    pinned_pool_put(arg, pixels);
}

int pinned_pool_init(pinned_pool *p, int max_blocks)
{
    memset(p, 0, sizeof *p);
    p->max_blocks = max_blocks;
    p->io = (io_allocator){io_alloc, io_release, p};
    return pthread_mutex_init(&p->lock, NULL) == 0 ? 0 : -1;
}

void pinned_pool_set_context(pinned_pool *p, tc_context *ctx)
{
    pthread_mutex_lock(&p->lock);
    p->ctx = ctx;
    pthread_mutex_unlock(&p->lock);
}

/* Removes entry i (its block already freed or to be). Under the lock. */
static void forget(pinned_pool *p, int i)
{
    p->blocks[i] = p->blocks[--p->count];
}

void *pinned_pool_get(pinned_pool *p, size_t bytes)
{
    void *made, *too_small = NULL;
    int best = -1;
    if (bytes == 0)
        return NULL;
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < p->count; i++)
        if (p->blocks[i].idle && p->blocks[i].size >= bytes &&
            (best < 0 || p->blocks[i].size < p->blocks[best].size))
            best = i;
    if (best >= 0) {
        p->blocks[best].idle = 0;
        p->blocks[best].asked = bytes;
        p->idle_bytes -= p->blocks[best].size;
        p->excess_bytes += p->blocks[best].size - bytes;
        void *ptr = p->blocks[best].ptr;
        pthread_mutex_unlock(&p->lock);
        return ptr;
    }
    tc_context *ctx = p->ctx;
    /* None holds the image: the largest idle block gives way to a larger one. */
    for (int i = 0; ctx && i < p->count; i++)
        if (p->blocks[i].idle && (best < 0 || p->blocks[i].size > p->blocks[best].size))
            best = i;
    if (best >= 0) {
        too_small = p->blocks[best].ptr;
        p->idle_bytes -= p->blocks[best].size;
        forget(p, best);
    }
    /* Locking pages costs the driver about 1 ms a MB, in a lock the lanes' calls wait on
     * too: past max_blocks an image takes malloc's memory and the staging copies instead. */
    const int capped = ctx && !too_small && p->count >= p->max_blocks;
    const int room = p->count < p->capacity || !ctx;
    pthread_mutex_unlock(&p->lock);
    if (too_small)
        tc_host_free(ctx, too_small);
    if (!ctx || capped)
        return malloc(bytes);
    if (!room) { /* the list grows outside the lock's hot path, rarely */
        pthread_mutex_lock(&p->lock);
        if (p->count == p->capacity) {
            const int capacity = p->capacity ? 2 * p->capacity : 16;
            pinned_block *more = realloc(p->blocks, (size_t)capacity * sizeof *more);
            if (more) {
                p->blocks = more;
                p->capacity = capacity;
            }
        }
        const int ok = p->count < p->capacity;
        pthread_mutex_unlock(&p->lock);
        if (!ok)
            return malloc(bytes);
    }
    const size_t size = (bytes + BLOCK_STEP - 1) / BLOCK_STEP * BLOCK_STEP;
    const double t0 = now_ms();
    made = tc_host_alloc(ctx, size);
    const double ms = now_ms() - t0;
    pthread_mutex_lock(&p->lock);
    p->made_ms += ms;
    if (!made) {
        pthread_mutex_unlock(&p->lock);
        return malloc(bytes); /* no pinned memory: ordinary memory serves as well */
    }
    if (p->count < p->capacity) {
        p->made++;
        p->made_bytes += size;
        p->blocks[p->count++] = (pinned_block){made, size, bytes, 0};
        p->excess_bytes += size - bytes;
        pthread_mutex_unlock(&p->lock);
        return made;
    }
    pthread_mutex_unlock(&p->lock);
    tc_host_free(ctx, made); /* another thread took the room meanwhile */
    return malloc(bytes);
}

int pinned_pool_holds(pinned_pool *p, const void *ptr)
{
    int found = 0;
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < p->count && !found; i++)
        found = p->blocks[i].ptr == ptr;
    pthread_mutex_unlock(&p->lock);
    return found;
}

void pinned_pool_put(pinned_pool *p, void *ptr)
{
    int found = 0;
    if (!ptr)
        return;
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < p->count && !found; i++)
        if (p->blocks[i].ptr == ptr) {
            found = 1;
            p->excess_bytes -= p->blocks[i].size - p->blocks[i].asked;
            p->blocks[i].idle = 1;
            p->idle_bytes += p->blocks[i].size;
        }
    pthread_mutex_unlock(&p->lock);
    if (!found)
        free(ptr);
}

size_t pinned_pool_overhead(pinned_pool *p)
{
    pthread_mutex_lock(&p->lock);
    const size_t bytes = p->idle_bytes + p->excess_bytes;
    pthread_mutex_unlock(&p->lock);
    return bytes;
}

size_t pinned_pool_idle(pinned_pool *p)
{
    pthread_mutex_lock(&p->lock);
    const size_t bytes = p->idle_bytes;
    pthread_mutex_unlock(&p->lock);
    return bytes;
}

void pinned_pool_trim(pinned_pool *p)
{
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < p->count;)
        if (p->blocks[i].idle) {
            tc_host_free(p->ctx, p->blocks[i].ptr);
            forget(p, i);
        } else {
            i++;
        }
    p->idle_bytes = 0;
    pthread_mutex_unlock(&p->lock);
}

void pinned_pool_release(pinned_pool *p, int free_blocks)
{
    for (int i = 0; free_blocks && i < p->count; i++)
        tc_host_free(p->ctx, p->blocks[i].ptr);
    free(p->blocks);
    pthread_mutex_destroy(&p->lock);
    memset(p, 0, sizeof *p);
}
