/*
 * host_blocks.h - the page-locked host memory of a context (tiledconv.h's tc_host_alloc and
 * tc_host_register), kept in a list under a lock (batch workers allocate while a lane
 * filters), so that the image pipeline can ask whether an image's rows lie in one and then
 * move them straight between that memory and the device, without the staging copies.
 *
 * A block is host memory wrapped in a buffer of CL_MEM_USE_HOST_PTR that no command ever
 * uses: the wrapping is what makes the driver lock the pages in place, and the transfers of
 * other buffers from and to that memory then go at the bus's rate (NVIDIA's OpenCL: 0.13 ms
 * each way for 6.2 MB, as from its own page-locked memory, against 0.6 ms from ordinary
 * memory). Wrapping costs the driver far less than making page-locked memory of its own
 * (CL_MEM_ALLOC_HOST_PTR, mapped once): 0.27-0.40 ms against 2.6-3.4 ms for 6.2 MB on the GPU
 * machine (bench/pin_probe.c), all of it in a lock that the lanes' calls wait on too. New
 * blocks are memory of our own, faulted in before the wrapping (on transparent huge pages
 * from 2 MB) so that the driver's part is only the locking; a caller's memory is wrapped as it
 * lies. Where the driver refuses the wrapping, tc_host_alloc makes the mapped kind instead
 * (and `--tune host-wrap=0` always does, for comparing).
 */
#ifndef TILEDCONV_HOST_BLOCKS_H
#define TILEDCONV_HOST_BLOCKS_H

#include <pthread.h>
#include <stddef.h>

#include "device.h"

typedef enum {
    TC_BLOCK_WRAPPED, /* our memory, wrapped; unmapped when the driver lets go of it */
    TC_BLOCK_MAPPED,  /* the driver's page-locked memory (ALLOC_HOST_PTR), mapped once */
    TC_BLOCK_LENT     /* the caller's memory, wrapped (tc_host_register) */
} tc_block_kind;

typedef struct {
    void *ptr;
    size_t size;
    cl_mem mem;
    tc_block_kind kind;
    void *note; /* lent memory: the word that the driver has let go of it (host_blocks.c) */
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

/* Frees the block of tc_host_blocks_alloc that starts at p: 1, or 0 when p starts none (NULL,
 * foreign memory, a pointer inside a block, a block of tc_host_blocks_lock): nothing is done
 * then. */
int tc_host_blocks_free(tc_host_blocks *b, void *p);

/* Locks the caller's `bytes` at p in place (tc_host_register): TC_OK, or the status with its
 * reason in m (0 bytes, more than the device allows in one buffer, bytes that overlap a block
 * already in the list, any OpenCL failure). */
int tc_host_blocks_lock(tc_host_blocks *b, const tc_device *d, void *p, size_t bytes, tc_msg *m);

/* Lets go of the caller's memory that tc_host_blocks_lock locked at p: 1, once the driver has
 * let go of it, or 0 when no such block starts at p (nothing is done then). */
int tc_host_blocks_unlock(tc_host_blocks *b, void *p);

/* Whether the bytes [p, p + n) lie wholly inside one block (n >= 1). */
int tc_host_blocks_hold(tc_host_blocks *b, const void *p, size_t n);

/* Every block unmapped and released, the queue and the lock too. */
void tc_host_blocks_release(tc_host_blocks *b);

/* What this list and the file layer's pool of blocks (src/files/pinned_pool.c) both do. */

/* A list of *capacity entries of size bytes, count of them in use, with room for one more:
 * list itself, or realloc's larger copy (the capacity doubled, from first entries) with
 * *capacity updated; NULL, the list and *capacity as they were, when there is no memory. */
void *tc_list_room(void *list, int count, int *capacity, size_t size, int first);

/* len bytes of fresh anonymous memory whose start is a multiple of align: a mapping extra bytes
 * longer (at least align less the page size), its head before that boundary and its tail after
 * the len bytes unmapped. NULL where the system refuses the mapping. Systems with mmap's
 * MAP_ANONYMOUS only. */
void *tc_map_aligned(size_t len, size_t align, size_t extra);

#endif
