/*
 * host_blocks.h - the page-locked host memory a context hands out (tiledconv.h's
 * tc_host_alloc): each block a buffer of CL_MEM_ALLOC_HOST_PTR mapped once for its life, kept
 * in a list under a lock (batch workers allocate while a lane filters), so that the image
 * pipeline can ask whether an image's rows lie in one and then move them straight between that
 * memory and the device, without the staging copies.
 */
#ifndef TILEDCONV_HOST_BLOCKS_H
#define TILEDCONV_HOST_BLOCKS_H

#include <pthread.h>
#include <stddef.h>

#include "device.h"

typedef struct {
    void *ptr;
    size_t size;
    cl_mem mem;
} tc_host_block;

typedef struct {
    pthread_mutex_t lock;
    cl_command_queue queue; /* the maps and unmaps, apart from the filters' queues (made on
                             * the first block) */
    tc_host_block *list;
    int count, capacity;
} tc_host_blocks;

/* An empty list (its lock made). 0, or -1 when the lock cannot be made. */
int tc_host_blocks_init(tc_host_blocks *b);

/* A block of `bytes` mapped for the host, or NULL (0 bytes, more than the device allows in one
 * buffer, no memory, any OpenCL failure: its reason in m). */
void *tc_host_blocks_alloc(tc_host_blocks *b, const tc_device *d, size_t bytes, tc_msg *m);

/* Frees the block that starts at p: 1, or 0 when p starts none (NULL, foreign memory, a
 * pointer inside a block): nothing is done then. */
int tc_host_blocks_free(tc_host_blocks *b, void *p);

/* Whether the bytes [p, p + n) lie wholly inside one block (n >= 1). */
int tc_host_blocks_hold(tc_host_blocks *b, const void *p, size_t n);

/* Every block unmapped and released, the queue and the lock too. */
void tc_host_blocks_release(tc_host_blocks *b);

#endif
