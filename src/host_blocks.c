/*
 * host_blocks.c - the context's page-locked host blocks (host_blocks.h).
 */
#include "host_blocks.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buffers.h"

int tc_host_blocks_init(tc_host_blocks *b)
{
    memset(b, 0, sizeof *b);
    return pthread_mutex_init(&b->lock, NULL) == 0 ? 0 : -1;
}

/* Unmaps and releases one block (on the maps' queue, waited for). */
static void release_block(cl_command_queue queue, tc_host_block *k)
{
    if (k->ptr && queue)
        clEnqueueUnmapMemObject(queue, k->mem, k->ptr, 0, NULL, NULL);
    if (queue)
        clFinish(queue);
    if (k->mem)
        clReleaseMemObject(k->mem);
}

/* Room for one more entry; the lock is held. */
static int make_room(tc_host_blocks *b)
{
    if (b->count < b->capacity)
        return 0;
    const int capacity = b->capacity ? 2 * b->capacity : 8;
    tc_host_block *more = realloc(b->list, (size_t)capacity * sizeof *more);
    if (!more)
        return -1;
    b->list = more;
    b->capacity = capacity;
    return 0;
}

/* The maps' queue, made on the first block; the lock is held. */
static cl_command_queue maps_queue(tc_host_blocks *b, const tc_device *d, tc_msg *m)
{
    cl_int err = CL_SUCCESS;
    int status = TC_OK;
    if (!b->queue) {
        b->queue = clCreateCommandQueue(d->context, d->device, 0, &err);
        CL_CHECK(status, fail, m, err, "clCreateCommandQueue(host blocks)");
    }
    return b->queue;
fail:
    (void)status;
    b->queue = NULL;
    return NULL;
}

/* The block made and mapped outside the list's lock: locking its pages takes the driver about
 * a millisecond a megabyte, and the lock is also what every filter call takes to ask whether
 * an image lies in a block (tc_host_blocks_hold); held meanwhile, it stalled a batch's lane
 * behind each block a worker made. */
void *tc_host_blocks_alloc(tc_host_blocks *b, const tc_device *d, size_t bytes, tc_msg *m)
{
    tc_host_block k = {NULL, bytes, NULL};
    cl_command_queue queue;
    cl_int err;
    int status = TC_OK;
    if (bytes == 0) {
        tc_fail(m, TC_EINVAL, "a host block of 0 bytes");
        return NULL;
    }
    if (bytes > d->info.max_alloc_bytes) {
        tc_fail(m, TC_EINVAL,
                "a host block of %zu bytes is more than the %llu bytes %s allows in one buffer "
                "(CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                bytes, d->info.max_alloc_bytes, d->info.name);
        return NULL;
    }
    /* On a CPU device (PoCL) an allocation the host cannot back aborts: asked before. */
    if (tc_check_host_room(d, bytes, "a host block", m) != TC_OK)
        return NULL;
    pthread_mutex_lock(&b->lock);
    queue = maps_queue(b, d, m);
    pthread_mutex_unlock(&b->lock);
    if (!queue)
        return NULL;
    k.mem = clCreateBuffer(d->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL,
                           &err);
    CL_CHECK(status, fail, m, err, "clCreateBuffer(host block)");
    k.ptr = clEnqueueMapBuffer(queue, k.mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                               NULL, NULL, &err);
    CL_CHECK(status, fail, m, err, "clEnqueueMapBuffer(host block)");
    pthread_mutex_lock(&b->lock);
    if (make_room(b) != 0) {
        pthread_mutex_unlock(&b->lock);
        status = tc_fail(m, TC_ENOMEM, "out of host memory for the list of host blocks");
        goto fail;
    }
    b->list[b->count++] = k;
    pthread_mutex_unlock(&b->lock);
    return k.ptr;
fail:
    (void)status;
    release_block(queue, &k);
    return NULL;
}

int tc_host_blocks_free(tc_host_blocks *b, void *p)
{
    tc_host_block k;
    cl_command_queue queue = NULL;
    int found = 0;
    if (!p)
        return 0;
    pthread_mutex_lock(&b->lock);
    for (int i = 0; i < b->count && !found; i++)
        if (b->list[i].ptr == p) {
            k = b->list[i];
            b->list[i] = b->list[--b->count];
            queue = b->queue;
            found = 1;
        }
    pthread_mutex_unlock(&b->lock);
    if (found) /* the unmap waits on the queue: outside the lock, as the block's making */
        release_block(queue, &k);
    return found;
}

int tc_host_blocks_hold(tc_host_blocks *b, const void *p, size_t n)
{
    const uintptr_t at = (uintptr_t)p;
    int held = 0;
    if (!p || n == 0)
        return 0;
    pthread_mutex_lock(&b->lock);
    for (int i = 0; i < b->count && !held; i++) {
        const uintptr_t start = (uintptr_t)b->list[i].ptr;
        held = at >= start && at - start <= b->list[i].size && n <= b->list[i].size - (at - start);
    }
    pthread_mutex_unlock(&b->lock);
    return held;
}

void tc_host_blocks_release(tc_host_blocks *b)
{
    for (int i = 0; i < b->count; i++)
        release_block(b->queue, &b->list[i]);
    free(b->list);
    if (b->queue)
        clReleaseCommandQueue(b->queue);
    pthread_mutex_destroy(&b->lock);
    memset(b, 0, sizeof *b);
}
