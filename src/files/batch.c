/*
 * batch.c - the pipeline of batch.h: one pool of host workers (batch_pool.c), the device lanes
 * (batch_lanes.c), the waiters (commit.c); what they share is batch_state.h's, what the batch
 * says batch_report.c's. Here the batch is sized, started, waited for and finished.
 *
 *   workers (W threads, every core by default)
 *                        each takes whatever is ready: an image the device has finished, to
 *                        check (-e), encode and stage (job.h); else the next input, to open on
 *                        its header, reserve its bytes and decode. No stage owns a thread, so
 *                        the codecs' work, whichever dominates (decoding a photo, encoding a
 *                        PNG), is spread over every core
 *   lanes (one per context: one per device)
 *                        the images waiting, up to 16 at a time, through one library call
 *                        (job_filter_many): the bytes go up through pinned memory, the device
 *                        forms the planes, filters, forms the 8-bit rows of the output (a
 *                        BMP's own rows, or the packed rows another format's encoder takes)
 *                        and the bytes come back; float planes come back for -e, --raw,
 *                        16-bit outputs and --gradient
 *   waiters (commit.h)   the staged outputs synced and renamed into place, so that no worker
 *                        ever waits on the disk (none with --no-sync: the workers rename)
 *
 * The workers start reading before any device is open: while the OpenCL platforms load and
 * the contexts and programs are made, they decode as far as the memory budget allows; once a
 * lane is ready, they read ahead only as far as keeps the lanes busy. The bytes held by images
 * in flight are bounded (a quarter of the machine's memory, at most 8 GiB; one image always
 * may run), whatever the number of workers or images. Within a lane's call the library's
 * pipeline runs one image's kernels while another goes up and a third comes down, and the
 * context's copy crew moves the bytes into and out of pinned memory. Each image is
 * all-or-nothing: a failure anywhere gets its one line and leaves no file.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "batch.h"

#include <fcntl.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "batch_lanes.h"
#include "batch_pool.h"
#include "batch_state.h"
#include "outputs.h"
#include "file_hooks.h"

/* The cores this process may run on (its CPU affinity, which a container or taskset may
 * narrow), else every online core. */
static int cpu_count(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static int clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* The folder a path is in ("." for none). */
static void folder_of(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(out, size, ".");
    else if (slash == path)
        snprintf(out, size, "/");
    else
        snprintf(out, size, "%.*s", (int)(slash - path), path);
}

/* The folder's entries for the renamed files on disk too: once per batch. */
static void sync_folder(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        (void)fsync(fd); /* best effort: the files themselves are synced */
        close(fd);
    }
}

/* The workers by default: every core, since reading, decoding and encoding are the work, but
 * a core for each lane's thread (its copies, the driver's calls) on a machine of 8 cores or
 * more. With a worker on every core the lane and the driver's threads preempted the codecs:
 * on the GPU machine (16 cores, one lane) 15 workers took 5-8 % less time than 16 on a
 * folder of colour BMPs, colour JPEGs and synced gray JPEGs, and the same on unsynced gray
 * ones (docs/benchmarks.md). On a small machine a core is too large a share to set aside. */
static int default_workers(int cores, int lanes)
{
    return cores >= 8 ? clamp(cores - lanes, cores / 2, cores) : cores;
}

/* How many threads of each kind: the workers (default_workers, or --threads N); the waiters
 * many when syncing, since they only wait on the disk, which serves many flushes at once.
 * Never more of either than images, and one context an image at most (a second costs the
 * driver a context, at start and at exit). */
static void size_threads(batch *b, int n_requests)
{
    const int cores = cpu_count(), n = b->list->count;
    b->n_lanes = b->o->no_filter ? 0 : clamp(n_requests, 1, n);
    b->n_workers = b->o->threads ? b->o->threads : default_workers(cores, b->n_lanes);
    b->n_workers = clamp(b->n_workers, 1, n);
    b->n_waiters = clamp(2 * cores, 4, 64);
    b->n_waiters = clamp(b->n_waiters, 1, n);
}

/* The batch's settings before any thread starts: sizes, the memory bound. */
static int batch_init(batch *b, const tc_options *o, const batch_list *list,
                      char requests[][64], int n_requests, const batch_reporter *r)
{
    memset(b, 0, sizeof *b);
    b->o = o;
    b->report = r;
    b->list = list;
    b->t0 = batch_now_ms();
    /* A run in a child of the process the shell started: its age counts from that start. */
    b->age_at_start = o->timing ? batch_process_age_ms() + o->age_before_ms : -1.0;
    b->machine = o->format != TC_FORMAT_TABLE;
    b->chatty = !o->quiet && !b->machine;
    b->progress = list->count > 1 && r->progress && r->progress_wanted;
    /* A quarter of the machine's memory for images in flight, at most 8 GiB (a test build's
     * hook sets a small one, so that the tests show the bound). 8, not 4: while the device
     * opens (0.25-0.6 s on the lent machines) the workers decode ahead, and with 4 GiB the 16
     * of them stopped for room at 657 gray 1080p photos (each reserves what its output may
     * hold too), idle for 0.9-3.5 s of their time summed. 8 GiB stops them at 451 colour
     * photos, but 16 changed no run's time (the lane is the bound once the device is open). */
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    b->budget = pages > 0 && page > 0 ? (size_t)pages * (size_t)page / 4 : (size_t)1 << 30;
    if (b->budget > ((size_t)8 << 30))
        b->budget = (size_t)8 << 30;
#ifdef TILEDCONV_TEST_HOOKS
    if (file_hooks.batch_budget)
        b->budget = (size_t)file_hooks.batch_budget;
#endif
    size_threads(b, n_requests);
    if (o->max_memory) { /* --max-memory bounds the whole process (batch_given_budget) */
        b->resident_at_start = tc_host_resident();
        b->budget_unbound = b->budget;
        if (b->budget > batch_given_budget(b))
            b->budget = batch_given_budget(b);
    }
    if (pinned_pool_init(&b->pool, batch_pool_blocks(b)))
        return -1;
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->work, NULL);
    pthread_cond_init(&b->ready, NULL);
    /* Outputs that are synced go to the waiters; standard output is never synced. */
    b->syncing = !o->no_sync &&
                 !(list->items[0].output && outputs_is_stdout(list->items[0].output));
    if (b->syncing && commit_start(&b->commits, b->n_waiters))
        return -1;
    if (!b->syncing)
        b->n_waiters = 0;
    return batch_make_lanes(b, n_requests, requests);
}

/* The platforms, listed once: the OpenCL loader reads its vendor list on the first call,
 * which is not safe from several threads at once (ocl-icd); the lanes then open their
 * contexts in parallel. */
static void list_platforms(batch *b)
{
    int count;
    char ignored[256];
    (void)tc_list_devices(NULL, 0, &count, ignored, sizeof ignored);
    b->platforms_ms = batch_now_ms() - b->t0;
}

/* Starts every thread (*thread_error: the last pthread_create error): the workers first, so
 * that the first reads overlap with opening the devices. Under an address-space limit the
 * platforms start first instead: PoCL maps a stack for each of its threads as it starts and
 * aborts the process when one fails, which the workers' first images could make happen;
 * after it, an image that does not fit is refused in one line. */
static int batch_start(batch *b, pthread_t *workers, int *thread_error)
{
    int started = 0;
    const int platforms_first = b->n_lanes > 0 && tc_host_address_bounded();
    if (platforms_first)
        list_platforms(b);
    for (int i = 0; i < b->n_workers; i++) {
        const int err = pthread_create(&workers[started], NULL, batch_worker_main, b);
        if (err == 0)
            started++;
        else
            *thread_error = err;
    }
    if (started == 0)
        return 0; /* no lane either: nothing would take its images */
    if (b->n_lanes > 0 && !platforms_first)
        list_platforms(b);
    for (int i = 0; i < b->n_lanes; i++) {
        lane *l = &b->lanes[i];
        if ((l->started = pthread_create(&l->thread, NULL, batch_lane_main, l) == 0) || i == 0)
            continue;
        /* A lane without a thread is a device that did not open; lane 0, which must exist to
         * pass every image on, runs on the main thread instead (batch_wait). */
        pthread_mutex_lock(&b->lock);
        l->status = 1;
        snprintf(l->err, sizeof l->err, "%s: no thread could be started for it", l->request);
        if (++b->lanes_opened == b->n_lanes)
            pthread_cond_broadcast(&b->ready);
        pthread_mutex_unlock(&b->lock);
    }
    return started;
}

/* Waits for every thread, showing the progress line meanwhile where there is one. */
static void batch_wait(batch *b, pthread_t *workers, int n_workers)
{
    /* With no worker no image is read, none done: nothing to wait for but the threads. */
    const int images_come = n_workers > 0;
    if (images_come && b->n_lanes > 0 && !b->lanes[0].started)
        (void)batch_lane_main(&b->lanes[0]); /* returns when no image is left to pass on */
    while (images_come && b->progress) {
        pthread_mutex_lock(&b->lock);
        const int done = b->done;
        if (done < b->list->count)
            b->report->progress(b, b->report->arg);
        pthread_mutex_unlock(&b->lock);
        if (done >= b->list->count)
            break;
        struct timespec tick = {0, 100 * 1000 * 1000};
        nanosleep(&tick, NULL);
    }
    for (int i = 0; i < n_workers; i++)
        pthread_join(workers[i], NULL);
    for (int i = 0; i < b->n_lanes; i++)
        if (b->lanes[i].started)
            pthread_join(b->lanes[i].thread, NULL);
    if (b->syncing)
        commit_finish(&b->commits);
    for (int i = 0; i < b->n_lanes && !b->dev; i++)
        if (b->lanes[i].status == 0)
            b->dev = &b->lanes[i].dev;
}

/* After the last image: the folder synced, what the batch says at its end. The exit status. */
static int batch_finish(batch *b, double wall_ms)
{
    const tc_options *o = b->o;
    const batch_list *list = b->list;
    const int no_device = b->n_lanes > 0 && b->lanes_working == 0;
    if (!no_device && b->syncing && b->written > 0) {
        char dir[4096];
        const batch_item *first = &list->items[0];
        if (o->output_dir)
            snprintf(dir, sizeof dir, "%s", o->output_dir);
        else
            folder_of(first->output ? first->output : first->raw ? first->raw : ".", dir,
                      sizeof dir);
        const double t = batch_now_ms();
        sync_folder(dir);
        b->folder_sync_ms = batch_now_ms() - t;
    }
    if (b->report->finish)
        b->report->finish(b, wall_ms, b->report->arg);
    if (no_device) /* a bad -p or -d is a usage error */
        return b->lanes[0].open_status == TC_EINVAL ? 2 : 1;
    return b->failed ? 1 : b->refused ? 2 : 0;
}

/* A line about the run, to the caller. */
static void say(const batch *b, const char *line)
{
    if (b->report->note)
        b->report->note(b, -1, line, b->report->arg);
}

/* A photo's buffers are megabytes: glibc would map each one fresh (the kernel zeroing its
 * pages) and unmap it when freed, a quarter of a JPEG batch's CPU time in the kernel; kept in
 * the heap, the next image reuses them. What is live stays within the batch's budget; an
 * arena keeps at most what its worker last freed. Buffers above 32 MiB are still mapped. */
static void keep_buffers(void)
{
#if defined(__GLIBC__)
    (void)mallopt(M_MMAP_THRESHOLD, 32 << 20);
    (void)mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

/* ---- The end of a run ----------------------------------------------------------------------
 * Every image is done and no block is handed out: the pool's blocks and the contexts go, or
 * stay to the process's end (BATCH_END_KEEP), or go on a thread of their own
 * (BATCH_END_BEHIND): closing a GPU's context and freeing its page-locked blocks takes the
 * driver tens to hundreds of milliseconds after the last output is in place. A process that
 * ends meanwhile waits for those threads at exit (atexit's handlers run before the libraries'
 * destructors, the driver's among them). */

static void batch_teardown(batch *b, int end)
{
    pinned_pool_release(&b->pool, end != BATCH_END_KEEP);
    for (int i = 0; b->lanes && i < b->n_lanes && end != BATCH_END_KEEP; i++)
        tc_close(b->lanes[i].ctx);
    free(b->lanes);
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->work);
    pthread_cond_destroy(&b->ready);
    free(b);
}

typedef struct ending {
    pthread_t thread;
    batch *b;
    struct ending *next;
} ending;

static pthread_mutex_t endings_lock = PTHREAD_MUTEX_INITIALIZER;
static ending *endings;
static pthread_once_t endings_once = PTHREAD_ONCE_INIT;

static void *end_behind(void *arg)
{
    batch_teardown(((ending *)arg)->b, BATCH_END_CLOSE);
    return NULL;
}

static void join_endings(void)
{
    pthread_mutex_lock(&endings_lock);
    ending *e = endings;
    endings = NULL;
    pthread_mutex_unlock(&endings_lock);
    while (e) {
        ending *next = e->next;
        pthread_join(e->thread, NULL);
        free(e);
        e = next;
    }
}

static void register_join(void)
{
    (void)atexit(join_endings);
}

/* The teardown on a thread of its own, or here when none can start. */
static void teardown_behind(batch *b)
{
    ending *e = calloc(1, sizeof *e);
    if (e) {
        e->b = b;
        pthread_once(&endings_once, register_join);
        pthread_mutex_lock(&endings_lock);
        const int started = pthread_create(&e->thread, NULL, end_behind, e) == 0;
        if (started) {
            e->next = endings;
            endings = e;
        }
        pthread_mutex_unlock(&endings_lock);
        if (started)
            return;
        free(e);
    }
    batch_teardown(b, BATCH_END_CLOSE);
}

int batch_run(const tc_options *o, const batch_list *list, char requests[][64], int n_requests,
              int end, const batch_reporter *r)
{
    batch *b = calloc(1, sizeof *b);
    pthread_t *workers = NULL;
    int status = 1;
    if (!b) {
        const batch none = {.report = r};
        say(&none, "out of host memory for the batch");
        return 1;
    }
    keep_buffers();
    if (batch_init(b, o, list, requests, n_requests, r) ||
        !(workers = calloc((size_t)b->n_workers, sizeof *workers))) {
        say(b, "out of host memory for the batch");
        if (b->syncing)
            commit_finish(&b->commits);
    } else {
        if (r->start)
            r->start(b, r->arg);
        int thread_error = 0;
        const int started = batch_start(b, workers, &thread_error);
        if (started == 0) {
            char line[160];
            snprintf(line, sizeof line, "no worker thread could start (pthread_create: %s)",
                     strerror(thread_error));
            say(b, line);
            b->failed = 1;
        }
        batch_wait(b, workers, started);
        status = started ? batch_finish(b, batch_now_ms() - b->t0) : 1;
    }
    free(workers);
    if (b->lanes && r->contexts)
        r->contexts(b, r->arg);
    if (end == BATCH_END_BEHIND)
        teardown_behind(b);
    else
        batch_teardown(b, end);
    return status;
}
