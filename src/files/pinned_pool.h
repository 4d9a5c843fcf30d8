/*
 * pinned_pool.h - the batch's reusable blocks of page-locked memory (tiledconv.h's
 * tc_host_alloc) for the pixels that cross the bus: each input decoded straight into one, and
 * the packed output rows the encoder reads, so that the device moves them with no staging
 * copy. Such memory is costly to make (its pages are locked one by one), so a block given back
 * is kept for the next image, up to a few per thread, and grown (made anew, larger) when an
 * image needs more than any idle one holds.
 *
 * The blocks are the first lane's context's: with several devices the other lanes get them
 * too, but for those they are ordinary host memory (their transfers go through their own
 * staging). Before that context has opened (the workers decode while the devices open) the
 * pool hands out ordinary memory on transparent huge pages where the system has them (an
 * image of a few MB touched for the first time then costs the kernel one fault a 2 MB page,
 * not one a 4 KiB page: hundreds of such images are decoded before a GPU opens), and whenever
 * tc_host_alloc fails, malloc's memory; pinned_pool_put tells them apart. Once the context
 * is open, such a block of an image still waiting for the device is locked in place
 * (pinned_pool_lock_in_place: tc_host_register, about 0.3 ms for a colour 1080p photo on the
 * GPU machine, where the staging copy held the lane 1-2 ms: docs/benchmarks.md), and given
 * back it is kept as any page-locked block is.
 *
 * Idle blocks are live memory that no image holds, and a block handed out may be larger than
 * the image asked for (blocks grow in steps, and an idle one serves any smaller image): the
 * batch counts both against its budget (pinned_pool_overhead) and has the idle blocks freed
 * (pinned_pool_trim) when an image needs the room.
 */
#ifndef TILEDCONV_PINNED_POOL_H
#define TILEDCONV_PINNED_POOL_H

#include <pthread.h>
#include <stddef.h>

#include "codec.h"
#include "tiledconv.h"

typedef struct {
    void *ptr;
    size_t size;
    size_t asked; /* what the image it is handed out to asked for */
    int idle;
    int huge;     /* ordinary memory mapped on huge pages by the pool (before the device opened) */
    int lent;     /* such memory since locked in place (tc_host_register): page-locked now */
} pinned_block;

typedef struct pinned_pool {
    pthread_mutex_t lock;
    tc_context *ctx;        /* NULL until the first lane's device has opened */
    pinned_block *blocks;   /* every block made, idle or handed out */
    int count, capacity;
    int max_blocks;         /* blocks made at most, idle or handed out (all idle ones kept) */
    size_t idle_bytes;
    size_t excess_bytes;    /* of the blocks handed out, the bytes beyond what was asked */
    int made;               /* blocks made over the run (-t), */
    size_t made_bytes;      /* their bytes, */
    double made_ms;         /* and the wall time the threads spent making them, summed */
    int huge_made;          /* ordinary blocks on huge pages handed out before the device
                             * opened (-t), */
    int huge_live;          /* and of those, the ones in the list now, not locked in place */
    int locked_in_place;    /* -t: those locked in place, */
    double lock_ms;         /* and the wall time the threads spent locking them, summed */
    io_allocator io;        /* the decoders' face of the pool (io_decode_with) */
    io_allocator io_ordinary; /* the same, for ordinary memory (on huge pages where it can) */
} pinned_pool;

/* An empty pool that makes at most max_blocks blocks, each kept for the next image once
 * given back. 0, or -1 (no lock). */
int pinned_pool_init(pinned_pool *p, int max_blocks);

/* From now on blocks come from ctx (the first lane's, once open). */
void pinned_pool_set_context(pinned_pool *p, tc_context *ctx);

/* bytes of memory: the smallest idle block that holds them, else a new block (an idle one
 * too small freed first, so that blocks grow with the images) while fewer than max_blocks
 * are made, else malloc's. NULL when nothing has the memory. */
void *pinned_pool_get(pinned_pool *p, size_t bytes);

/* The smallest idle page-locked block that holds bytes, handed out as pinned_pool_get does;
 * NULL when none is idle (nothing is made). */
void *pinned_pool_take_idle(pinned_pool *p, size_t bytes);

/* Whether pinned_pool_take_idle would find one now. */
int pinned_pool_idle_holds(pinned_pool *p, size_t bytes);

/* Gives back what pinned_pool_get gave (NULL: nothing): a block becomes idle, malloc's
 * memory is freed. */
void pinned_pool_put(pinned_pool *p, void *ptr);

/* Whether ptr is one of the pool's page-locked blocks (not malloc's memory). */
int pinned_pool_holds(pinned_pool *p, const void *ptr);

/* Whether ptr starts a block of ordinary memory on huge pages that pinned_pool_lock_in_place
 * may lock now (the context is open). */
int pinned_pool_lockable(pinned_pool *p, const void *ptr);

/* Locks the block of ordinary memory that starts at ptr in place, so that it is one of the
 * page-locked blocks from now on: 1, or 0 (not such a block, no context yet, the pool's
 * context is not `only` where that is given, or the system refused: it stays ordinary
 * memory). One thread at a time for a given block (its image's). */
int pinned_pool_lock_in_place(pinned_pool *p, void *ptr, const tc_context *only);

/* The bytes the pool holds beyond what the images in flight asked for: its idle blocks, and
 * what the blocks handed out hold beyond the request. */
size_t pinned_pool_overhead(pinned_pool *p);

/* The bytes of the idle blocks alone. */
size_t pinned_pool_idle(pinned_pool *p);

/* Frees every idle block. */
void pinned_pool_trim(pinned_pool *p);

/* Frees idle blocks, the largest first, until at least `bytes` are freed or none is idle. */
void pinned_pool_trim_by(pinned_pool *p, size_t bytes);

/* The end: every block freed (free_blocks 0: left to the context's tc_close, or to the
 * process's exit), the lock too. No block may be handed out still. */
void pinned_pool_release(pinned_pool *p, int free_blocks);

#endif
