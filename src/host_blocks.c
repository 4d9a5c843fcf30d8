/*
 * host_blocks.c - the context's page-locked host blocks (host_blocks.h).
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include "host_blocks.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "buffers.h"
#include "tuning.h"

int tc_host_blocks_init(tc_host_blocks *b)
{
    memset(b, 0, sizeof *b);
    return pthread_mutex_init(&b->lock, NULL) == 0 ? 0 : -1;
}

/* What a wrapped block's destructor needs: our memory to unmap once the driver lets go of it
 * (the OpenCL specification keeps a USE_HOST_PTR buffer's memory the driver's until its
 * destructor callback), or, for a caller's memory, the word that it has. refs: the callback's
 * and, for lent memory, the waiting owner's; the last to let go frees the note. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t done_cond;
    void *map;
    size_t map_len;
    int done, refs;
} wrap_note;

static void drop_note(wrap_note *w)
{
    pthread_mutex_lock(&w->lock);
    const int last = --w->refs == 0;
    pthread_mutex_unlock(&w->lock);
    if (last) {
        pthread_cond_destroy(&w->done_cond);
        pthread_mutex_destroy(&w->lock);
        free(w);
    }
}

static void CL_CALLBACK wrapped_gone(cl_mem mem, void *arg)
{
    wrap_note *w = arg;
    (void)mem;
    if (w->map)
        munmap(w->map, w->map_len);
    pthread_mutex_lock(&w->lock);
    w->done = 1;
    pthread_cond_broadcast(&w->done_cond);
    pthread_mutex_unlock(&w->lock);
    drop_note(w);
}

/* A note for a block; NULL when there is no memory for it. */
static wrap_note *new_note(void *map, size_t map_len, int refs)
{
    wrap_note *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    if (pthread_mutex_init(&w->lock, NULL) != 0) {
        free(w);
        return NULL;
    }
    if (pthread_cond_init(&w->done_cond, NULL) != 0) {
        pthread_mutex_destroy(&w->lock);
        free(w);
        return NULL;
    }
    w->map = map;
    w->map_len = map_len;
    w->refs = refs;
    return w;
}

/* Waits, up to 5 s, for the driver to let go of lent memory (its callback comes when the
 * buffer is deleted, which for a buffer no command used is at its release), then lets go of
 * the note. */
static void wait_note(wrap_note *w)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 5;
    pthread_mutex_lock(&w->lock);
    while (!w->done)
        if (pthread_cond_timedwait(&w->done_cond, &w->lock, &until) != 0)
            break;
    pthread_mutex_unlock(&w->lock);
    drop_note(w);
}

/* Releases one block: a mapped one unmapped on the maps' queue (waited for) first; a wrapped
 * one's memory goes with its destructor; for lent memory, waits for the driver to let go. */
static void release_block(cl_command_queue queue, tc_host_block *k)
{
    if (k->kind == TC_BLOCK_MAPPED) {
        if (k->ptr && queue)
            clEnqueueUnmapMemObject(queue, k->mem, k->ptr, 0, NULL, NULL);
        if (queue)
            clFinish(queue);
    }
    if (k->mem)
        clReleaseMemObject(k->mem);
    if (k->kind == TC_BLOCK_LENT && k->note)
        wait_note(k->note);
}

void *tc_list_room(void *list, int count, int *capacity, size_t size, int first)
{
    if (count < *capacity)
        return list;
    const int grown = *capacity ? 2 * *capacity : first;
    void *more = realloc(list, (size_t)grown * size);
    if (more)
        *capacity = grown;
    return more;
}

/* Room for one more entry; the lock is held. TC_OK, or TC_ENOMEM. */
static int make_room(tc_host_blocks *b)
{
    tc_host_block *list = tc_list_room(b->list, b->count, &b->capacity, sizeof *list, 8);
    if (list)
        b->list = list;
    return list ? TC_OK : TC_ENOMEM;
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

/* Adds k to the list: TC_OK, or TC_ENOMEM. */
static int keep_block(tc_host_blocks *b, const tc_host_block *k, tc_msg *m)
{
    pthread_mutex_lock(&b->lock);
    if (make_room(b) != TC_OK) {
        pthread_mutex_unlock(&b->lock);
        return tc_fail(m, TC_ENOMEM, "out of host memory for the list of host blocks");
    }
    b->list[b->count++] = *k;
    pthread_mutex_unlock(&b->lock);
    return TC_OK;
}

#if defined(MAP_ANONYMOUS)
void *tc_map_aligned(size_t len, size_t align, size_t extra)
{
    const size_t whole = len + extra;
    unsigned char *raw = mmap(NULL, whole, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                              -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    const size_t head = (align - (uintptr_t)raw % align) % align;
    if (head)
        munmap(raw, head);
    if (whole - head > len)
        munmap(raw + head + len, whole - head - len);
    return raw + head;
}
#endif

#define HUGE_PAGE ((size_t)2 << 20)

/* `bytes` of fresh memory of our own, every page faulted in (the driver's wrapping then only
 * locks them), on transparent huge pages from 2 MB where the system has them: the start, and
 * in *map and *map_len what to unmap. NULL when there is no memory. */
static void *fresh_memory(size_t bytes, void **map, size_t *map_len)
{
#if defined(MAP_ANONYMOUS)
    const long ps = sysconf(_SC_PAGESIZE);
    const size_t page = ps > 0 ? (size_t)ps : 4096;
    const size_t align = bytes >= HUGE_PAGE && HUGE_PAGE % page == 0 ? HUGE_PAGE : page;
    if (bytes > SIZE_MAX - 2 * align)
        return NULL;
    const size_t len = (bytes + align - 1) / align * align;
    unsigned char *start = tc_map_aligned(len, align, align - page);
    if (!start)
        return NULL;
#if defined(MADV_HUGEPAGE)
    if (align == HUGE_PAGE)
        (void)madvise(start, len, MADV_HUGEPAGE); /* advice: without it, small pages */
#endif
    for (size_t at = 0; at < len; at += page)
        ((volatile unsigned char *)start)[at] = 0;
    *map = start;
    *map_len = len;
    return start;
#else
    void *p = NULL;
    if (posix_memalign(&p, 4096, bytes) != 0)
        return NULL;
    memset(p, 0, bytes);
    *map = NULL; /* freed by free(), below */
    *map_len = 0;
    return p;
#endif
}

static void free_fresh(void *start, void *map, size_t map_len)
{
    if (map)
        munmap(map, map_len);
    else
        free(start);
}

/* Wraps host memory in a USE_HOST_PTR buffer whose destructor tells `note`, in *mem: TC_OK, or
 * the status with its reason in m (the note not taken then). */
static int wrap(const tc_device *d, void *p, size_t bytes, wrap_note *note, cl_mem *mem,
                tc_msg *m)
{
    cl_int err;
    int status = TC_OK;
    *mem = clCreateBuffer(d->context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, p, &err);
    CL_CHECK(status, fail, m, err, "clCreateBuffer(USE_HOST_PTR, host block)");
    err = clSetMemObjectDestructorCallback(*mem, wrapped_gone, note);
    if (err != CL_SUCCESS) {
        /* No command ever used the buffer: its release deletes it at once. */
        clReleaseMemObject(*mem);
        CL_CHECK(status, fail, m, err, "clSetMemObjectDestructorCallback(host block)");
    }
    return TC_OK;
fail:
    *mem = NULL;
    return status;
}

/* A new block of our own memory, wrapped: its start, or NULL (the reason in m). */
static void *alloc_wrapped(tc_host_blocks *b, const tc_device *d, size_t bytes, tc_msg *m)
{
    void *map = NULL;
    size_t map_len = 0;
    void *p = fresh_memory(bytes, &map, &map_len);
    if (!p) {
        tc_fail(m, TC_ENOMEM, "no host memory for a host block of %zu bytes", bytes);
        return NULL;
    }
    wrap_note *note = map ? new_note(map, map_len, 1) : NULL;
    cl_mem mem = NULL;
    if (!note)
        tc_fail(m, TC_ENOMEM, "no host memory for a host block's note");
    else if (wrap(d, p, bytes, note, &mem, m) != TC_OK)
        drop_note(note);
    if (!mem) {
        free_fresh(p, map, map_len);
        return NULL;
    }
    const tc_host_block k = {p, bytes, mem, TC_BLOCK_WRAPPED, NULL};
    if (keep_block(b, &k, m) != TC_OK) {
        clReleaseMemObject(mem); /* its destructor unmaps the memory */
        return NULL;
    }
    return p;
}

/* A block of the driver's page-locked memory, mapped once: its start, or NULL. */
static void *alloc_mapped(tc_host_blocks *b, const tc_device *d, size_t bytes, tc_msg *m)
{
    tc_host_block k = {NULL, bytes, NULL, TC_BLOCK_MAPPED, NULL};
    cl_command_queue queue;
    cl_int err;
    int status = TC_OK;
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
    if (keep_block(b, &k, m) != TC_OK)
        goto fail;
    return k.ptr;
fail:
    (void)status;
    release_block(queue, &k);
    return NULL;
}

/* The size checks every block passes: TC_OK, or the status with its reason in m. */
static int check_size(const tc_device *d, size_t bytes, tc_msg *m)
{
    if (bytes == 0)
        return tc_fail(m, TC_EINVAL, "a host block of 0 bytes");
    if (bytes > d->info.max_alloc_bytes)
        return tc_fail(m, TC_EINVAL,
                       "a host block of %zu bytes is more than the %llu bytes %s allows in one "
                       "buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                       bytes, d->info.max_alloc_bytes, d->info.name);
    return TC_OK;
}

/* The block is made outside the list's lock: locking its pages takes the driver time, and the
 * lock is also what every filter call takes to ask whether an image lies in a block
 * (tc_host_blocks_hold); held meanwhile, it stalled a batch's lane behind each block a worker
 * made. */
void *tc_host_blocks_alloc(tc_host_blocks *b, const tc_device *d, size_t bytes, tc_msg *m)
{
    if (check_size(d, bytes, m) != TC_OK)
        return NULL;
    /* On a CPU device (PoCL) an allocation the host cannot back aborts: asked before. */
    if (tc_check_host_room(d, bytes, "a host block", m) != TC_OK)
        return NULL;
    void *p = tc_tuning_now()->host_mapped ? NULL : alloc_wrapped(b, d, bytes, m);
    return p ? p : alloc_mapped(b, d, bytes, m);
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
        if (b->list[i].ptr == p && b->list[i].kind != TC_BLOCK_LENT) {
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

/* Whether [p, p + n) overlaps a block of the list. Under the lock. */
static int overlaps(const tc_host_blocks *b, const void *p, size_t n)
{
    const uintptr_t at = (uintptr_t)p;
    for (int i = 0; i < b->count; i++) {
        const uintptr_t start = (uintptr_t)b->list[i].ptr;
        if (at < start + b->list[i].size && start < at + n)
            return 1;
    }
    return 0;
}

int tc_host_blocks_lock(tc_host_blocks *b, const tc_device *d, void *p, size_t bytes, tc_msg *m)
{
    if (!p)
        return tc_fail(m, TC_EINVAL, "no memory to lock (NULL)");
    int status = check_size(d, bytes, m);
    if (status != TC_OK)
        return status;
    if ((uintptr_t)p > UINTPTR_MAX - bytes)
        return tc_fail(m, TC_EINVAL, "%zu bytes at %p run past the end of the address space",
                       bytes, p);
    pthread_mutex_lock(&b->lock);
    const int taken = overlaps(b, p, bytes);
    pthread_mutex_unlock(&b->lock);
    if (taken)
        return tc_fail(m, TC_EINVAL, "%zu bytes at %p overlap memory already locked", bytes, p);
    wrap_note *note = new_note(NULL, 0, 2); /* the destructor's and the owner's */
    if (!note)
        return tc_fail(m, TC_ENOMEM, "no host memory for a host block's note");
    cl_mem mem = NULL;
    status = wrap(d, p, bytes, note, &mem, m);
    if (status != TC_OK) {
        drop_note(note);
        drop_note(note);
        return status;
    }
    tc_host_block k = {p, bytes, mem, TC_BLOCK_LENT, note};
    pthread_mutex_lock(&b->lock);
    /* Another thread may have locked overlapping bytes meanwhile: the first one keeps them. */
    status = overlaps(b, p, bytes) ? TC_EINVAL : make_room(b);
    if (status == TC_OK)
        b->list[b->count++] = k;
    pthread_mutex_unlock(&b->lock);
    if (status == TC_OK)
        return TC_OK;
    release_block(NULL, &k);
    return status == TC_EINVAL
               ? tc_fail(m, status, "%zu bytes at %p overlap memory already locked", bytes, p)
               : tc_fail(m, status, "out of host memory for the list of host blocks");
}

int tc_host_blocks_unlock(tc_host_blocks *b, void *p)
{
    tc_host_block k;
    int found = 0;
    if (!p)
        return 0;
    pthread_mutex_lock(&b->lock);
    for (int i = 0; i < b->count && !found; i++)
        if (b->list[i].ptr == p && b->list[i].kind == TC_BLOCK_LENT) {
            k = b->list[i];
            b->list[i] = b->list[--b->count];
            found = 1;
        }
    pthread_mutex_unlock(&b->lock);
    if (found) /* waits for the driver: outside the lock */
        release_block(NULL, &k);
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
