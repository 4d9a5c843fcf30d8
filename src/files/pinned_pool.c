/* pinned_pool.c - the batch's reusable page-locked blocks (pinned_pool.h). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include "pinned_pool.h"

#include "host_blocks.h"

#include <stdint.h>
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* Blocks are made in steps of 256 KiB, so that images of nearly the same size share them. */
#define BLOCK_STEP ((size_t)256 << 10)
/* A transparent huge page on x86-64 and most arm64 systems. */
#define HUGE_PAGE ((size_t)2 << 20)

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static void *io_alloc(void *arg, size_t bytes)
{
    return pinned_pool_get(arg, bytes);
}

/* Ordinary memory for `bytes` on huge pages, *size bytes of it mapped from a huge page's
 * boundary: the whole of it on huge pages where rounding up to one wastes at most an eighth
 * of the request, else only the whole huge pages it holds (the tail on small ones). NULL
 * where the request is under a huge page, or the system refuses the mapping. */
static void *huge_map(size_t bytes, size_t *size)
{
#if defined(MADV_HUGEPAGE)
    const size_t up = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    const size_t whole = up - bytes <= bytes / 8 ? up : bytes / HUGE_PAGE * HUGE_PAGE;
    if (whole == 0 || bytes > SIZE_MAX - 2 * HUGE_PAGE)
        return NULL;
    /* A huge page more than needed, to cut the mapping down to a boundary. */
    unsigned char *start = tc_map_aligned(up, HUGE_PAGE, HUGE_PAGE);
    if (!start)
        return NULL;
    (void)madvise(start, whole, MADV_HUGEPAGE); /* advice: without it, small pages */
    *size = up;
    return start;
#else
    (void)bytes;
    (void)size;
    return NULL;
#endif
}

/* Room for one more block in the list, under the lock: 0, or -1 when the list cannot grow. */
static int make_room(pinned_pool *p)
{
    pinned_block *blocks = tc_list_room(p->blocks, p->count, &p->capacity, sizeof *blocks, 16);
    if (!blocks)
        return -1;
    p->blocks = blocks;
    return 0;
}

/* Adds a block to the list, under the lock: 0, or -1 when the list cannot grow. */
static int track(pinned_pool *p, pinned_block k)
{
    if (make_room(p) != 0)
        return -1;
    p->blocks[p->count++] = k;
    return 0;
}

/* Before the device opens: ordinary memory on huge pages where it can be had, else malloc's. */
static void *get_ordinary(pinned_pool *p, size_t bytes)
{
    size_t size = 0;
    void *ptr = huge_map(bytes, &size);
    if (!ptr)
        return malloc(bytes);
    pthread_mutex_lock(&p->lock);
    const int kept = track(p, (pinned_block){ptr, size, bytes, 0, 1, 0}) == 0;
    if (kept) {
        p->excess_bytes += size - bytes;
        p->huge_made += p->ctx == NULL; /* -t counts those of the start-up */
        p->huge_live++;
    }
    pthread_mutex_unlock(&p->lock);
    if (kept)
        return ptr;
    munmap(ptr, size);
    return malloc(bytes);
}

static void io_release(void *arg, void *pixels)
{
    pinned_pool_put(arg, pixels);
}

static void *get_ordinary(pinned_pool *p, size_t bytes);

static void *io_alloc_ordinary(void *arg, size_t bytes)
{
    return get_ordinary(arg, bytes);
}

int pinned_pool_init(pinned_pool *p, int max_blocks)
{
    memset(p, 0, sizeof *p);
    p->max_blocks = max_blocks;
    p->io = (io_allocator){io_alloc, io_release, p};
    p->io_ordinary = (io_allocator){io_alloc_ordinary, io_release, p};
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

/* Whether block k is page-locked: made so, or locked in place since. */
static int locked(const pinned_block *k)
{
    return !k->huge || k->lent;
}

/* Frees a block, out of the list already, of whichever kind. Without the lock. */
static void free_block(tc_context *ctx, const pinned_block *k)
{
    if (k->huge) {
        if (k->lent)
            tc_host_unregister(ctx, k->ptr);
        munmap(k->ptr, k->size);
    } else {
        tc_host_free(ctx, k->ptr);
    }
}

/* The smallest idle page-locked block that holds bytes, or -1. Under the lock. */
static int smallest_idle(const pinned_pool *p, size_t bytes)
{
    int best = -1;
    for (int i = 0; i < p->count; i++)
        if (p->blocks[i].idle && locked(&p->blocks[i]) && p->blocks[i].size >= bytes &&
            (best < 0 || p->blocks[i].size < p->blocks[best].size))
            best = i;
    return best;
}

int pinned_pool_idle_holds(pinned_pool *p, size_t bytes)
{
    pthread_mutex_lock(&p->lock);
    const int found = smallest_idle(p, bytes) >= 0;
    pthread_mutex_unlock(&p->lock);
    return found;
}

void *pinned_pool_take_idle(pinned_pool *p, size_t bytes)
{
    void *ptr = NULL;
    pthread_mutex_lock(&p->lock);
    const int best = smallest_idle(p, bytes);
    if (best >= 0) {
        p->blocks[best].idle = 0;
        p->blocks[best].asked = bytes;
        p->idle_bytes -= p->blocks[best].size;
        p->excess_bytes += p->blocks[best].size - bytes;
        ptr = p->blocks[best].ptr;
    }
    pthread_mutex_unlock(&p->lock);
    return ptr;
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
    if (!ctx) {
        pthread_mutex_unlock(&p->lock);
        return get_ordinary(p, bytes);
    }
    /* None holds the image: the largest idle block gives way to a larger one. */
    for (int i = 0; i < p->count; i++)
        if (p->blocks[i].idle && (best < 0 || p->blocks[i].size > p->blocks[best].size))
            best = i;
    pinned_block gone = {0};
    if (best >= 0) {
        gone = p->blocks[best];
        too_small = gone.ptr;
        p->idle_bytes -= p->blocks[best].size;
        forget(p, best);
    }
    /* Locking pages costs the driver about 1 ms a MB, in a lock the lanes' calls wait on
     * too: past max_blocks an image takes malloc's memory and the staging copies instead. */
    const int capped = !too_small && p->count - p->huge_live >= p->max_blocks;
    const int room = p->count < p->capacity;
    pthread_mutex_unlock(&p->lock);
    if (too_small)
        free_block(ctx, &gone);
    if (capped)
        return malloc(bytes);
    if (!room) { /* the list grows outside the lock's hot path, rarely */
        pthread_mutex_lock(&p->lock);
        const int ok = make_room(p) == 0;
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
        p->blocks[p->count++] = (pinned_block){made, size, bytes, 0, 0, 0};
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
        found = p->blocks[i].ptr == ptr && locked(&p->blocks[i]);
    pthread_mutex_unlock(&p->lock);
    return found;
}

/* The entry of the unlocked huge block that starts at ptr, or -1. Under the lock. */
static int find_lockable(const pinned_pool *p, const void *ptr)
{
    for (int i = 0; i < p->count; i++)
        if (p->blocks[i].ptr == ptr)
            return p->blocks[i].huge && !p->blocks[i].lent && !p->blocks[i].idle ? i : -1;
    return -1;
}

int pinned_pool_lockable(pinned_pool *p, const void *ptr)
{
    pthread_mutex_lock(&p->lock);
    const int yes = p->ctx && find_lockable(p, ptr) >= 0;
    pthread_mutex_unlock(&p->lock);
    return yes;
}

int pinned_pool_lock_in_place(pinned_pool *p, void *ptr, const tc_context *only)
{
    pthread_mutex_lock(&p->lock);
    tc_context *ctx = p->ctx;
    const int i = ctx && (!only || only == ctx) ? find_lockable(p, ptr) : -1;
    const size_t size = i >= 0 ? p->blocks[i].size : 0;
    pthread_mutex_unlock(&p->lock);
    if (i < 0)
        return 0;
    /* The block is its image's, which only this thread handles now: it stays in the list. */
    const double t0 = now_ms();
    const int ok = tc_host_register(ctx, ptr, size) == TC_OK;
    const double ms = now_ms() - t0;
    pthread_mutex_lock(&p->lock);
    p->lock_ms += ms;
    for (int k = 0; k < p->count && ok; k++)
        if (p->blocks[k].ptr == ptr) {
            p->blocks[k].lent = 1;
            p->huge_live--;
            p->locked_in_place++;
            break;
        }
    pthread_mutex_unlock(&p->lock);
    return ok;
}

void pinned_pool_put(pinned_pool *p, void *ptr)
{
    int found = 0, drop = 0;
    pinned_block gone = {0};
    if (!ptr)
        return;
    pthread_mutex_lock(&p->lock);
    tc_context *ctx = p->ctx;
    for (int i = 0; i < p->count && !found; i++)
        if (p->blocks[i].ptr == ptr) {
            found = 1;
            p->excess_bytes -= p->blocks[i].size - p->blocks[i].asked;
            /* Ordinary memory is no use to the device later; memory locked in place is kept
             * as the blocks made page-locked are, while no more are kept than may be made. */
            drop = !locked(&p->blocks[i]) ||
                   (p->blocks[i].lent && p->count - p->huge_live > p->max_blocks);
            if (drop) {
                gone = p->blocks[i];
                p->huge_live -= !gone.lent;
                forget(p, i);
            } else {
                p->blocks[i].idle = 1;
                p->idle_bytes += p->blocks[i].size;
            }
        }
    pthread_mutex_unlock(&p->lock);
    if (drop)
        free_block(ctx, &gone);
    else if (!found)
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
    pinned_pool_trim_by(p, SIZE_MAX);
}

void pinned_pool_trim_by(pinned_pool *p, size_t bytes)
{
    size_t freed = 0;
    pthread_mutex_lock(&p->lock);
    while (freed < bytes) {
        int largest = -1;
        for (int i = 0; i < p->count; i++)
            if (p->blocks[i].idle &&
                (largest < 0 || p->blocks[i].size > p->blocks[largest].size))
                largest = i;
        if (largest < 0)
            break;
        free_block(p->ctx, &p->blocks[largest]);
        freed += p->blocks[largest].size;
        p->idle_bytes -= p->blocks[largest].size;
        forget(p, largest);
    }
    pthread_mutex_unlock(&p->lock);
#if defined(__GLIBC__)
    /* A driver that keeps a block's pages in the C heap (PoCL's blocks are ordinary memory)
     * leaves them there once freed, and the next block may come from another thread's arena:
     * the process's memory grows with every block freed and made again. Given back now. */
    if (freed)
        (void)malloc_trim(0);
#endif
}

void pinned_pool_release(pinned_pool *p, int free_blocks)
{
    for (int i = 0; i < p->count; i++)
        if (free_blocks || (p->blocks[i].huge && !p->blocks[i].lent))
            free_block(p->ctx, &p->blocks[i]);
    free(p->blocks);
    pthread_mutex_destroy(&p->lock);
    memset(p, 0, sizeof *p);
}
