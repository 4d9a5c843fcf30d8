/* batch_lanes.c - the device lanes of a batch (batch_lanes.h). */
#include "batch_lanes.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "job_filter.h"
#include "file_hooks.h"
/* The device of a lane opened and checked against the run's options; the lanes then wait
 * until all have tried, so that each knows whether any device opened. */
#ifdef TILEDCONV_TEST_HOOKS
/* A test hook's wait (file_hooks.h). */
static void test_pause(unsigned ms)
{
    const struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    if (ms)
        nanosleep(&ts, NULL);
}
#endif

static void open_lane(lane *l)
{
    batch *b = l->b;
    const unsigned long long resident = tc_host_resident();
#ifdef TILEDCONV_TEST_HOOKS
    test_pause(file_hooks.open_delay_ms);
#endif
    if ((l->open_status = tc_open(l->request, &l->ctx, l->err, sizeof l->err)) == TC_OK) {
        tc_context_device(l->ctx, &l->dev);
        /* The device's times of each image only where they are shown (-t, -v, --csv, --json):
         * an untimed image saves the lane the driver's cost of its profiling events. */
        tc_set_timing(l->ctx, b->o->timing || b->o->verbose || b->o->format != TC_FORMAT_TABLE);
        l->open_ms = batch_now_ms() - b->t0;
        l->status = 0;
        /* A device that cannot serve the run (--storage image or bilinear without image
         * support) is a device that did not open: it takes no image. */
        const tc_roi one = {0, 0, 0, 0, 1, 1};
        tc_params p;
        options_params(b->o, &one, &p);
        if ((l->open_status = tc_check_params(l->ctx, 1, 1, &p)) != TC_OK) {
            snprintf(l->err, sizeof l->err, "%s", tc_error(l->ctx));
            tc_close(l->ctx);
            l->ctx = NULL;
            l->status = 1;
        }
    } else {
        l->status = 1;
    }
    /* What the device took, for --max-memory: the growth while it opened (images read
     * meanwhile count as the platform's, which errs on the budget's side). */
    const unsigned long long opened = tc_host_resident();
    pthread_mutex_lock(&b->lock);
    b->platforms_resident += opened > resident ? opened - resident : 0;
    if (l->status == 0 && (b->startup_ms == 0.0 || l->open_ms < b->startup_ms))
        b->startup_ms = l->open_ms;
    /* The pixels' blocks are the first lane's context's (pinned_pool.h): the other lanes'
     * devices see them as ordinary host memory. */
    if (l->status == 0 && l == &b->lanes[0])
        pinned_pool_set_context(&b->pool, l->ctx);
    b->lanes_working += l->status == 0;
    b->lanes_ready += l->status == 0;
    if (++b->lanes_opened == b->n_lanes) {
        if (b->o->max_memory) /* the devices' own bytes are known now */
            b->budget = b->budget_unbound < batch_given_budget(b) ? b->budget_unbound
                                                                  : batch_given_budget(b);
        pthread_cond_broadcast(&b->ready);
        pthread_cond_broadcast(&b->work);
    }
    while (b->lanes_opened < b->n_lanes)
        pthread_cond_wait(&b->ready, &b->lock);
    pthread_mutex_unlock(&b->lock);
}

/* Bytes an image of a lane's call holds in ordinary memory, on average, from which the call's
 * copies take 4 threads even where the codecs are the bound: a colour 1080p photo's 6 MB
 * (1,000 colour JPEG photos, about half decoded while the device opened: 1.60 s with 4
 * threads against 1.78 s on the lane's, and in a second run 1.69 against 1.80 s, 31 taps 1.62
 * against 1.71 s; gray ones, 2 MB, stay on the lane: 1.28 s against 1.24 s with 4
 * threads, 1.17 s against 0.98 s with 2; docs/benchmarks.md). */
#define BIG_STAGED ((size_t)4 << 20)

/* The library's copies between ordinary and pinned memory for the lane's next call: on a crew
 * of threads (half the cores) where the lane is the bound, on the lane's thread alone where
 * the workers' codecs are. A crew's threads take cores from the workers, and one preempted by
 * them mid-copy holds the lane up: on the GPU machine (16 cores) the gray JPEG rows took
 * 1.06-1.18 s with the copies on the lane against 1.21-1.39 s on a crew of 8, while a colour
 * BMP batch, whose codecs are cheap and whose lane is the bound, took 3.1-3.4 s on the lane
 * against 1.35-1.9 s on the crew (docs/benchmarks.md). The bound is judged from the costs so
 * far: the codecs' time an image over the workers, against the lanes' time an image (the
 * first call, with nothing to judge by, goes as where the codecs are). --tune copy-threads
 * decides alone where given. Under the lock. */
static void choose_copy_threads(const batch *b, job *const *taken, int n)
{
    size_t staged = 0;
    for (int i = 0; i < n; i++)
        staged += taken[i]->movable;
    if (b->o->tuning.copy_threads || batch_codecs_bound(b) == 0)
        tc_copy_threads_here(0);
    else /* a few threads for large images still in ordinary memory, else the lane alone */
        tc_copy_threads_here(staged >= (size_t)n * BIG_STAGED ? 4 : 1);
}

/* The images waiting for a lane, up to JOB_FILTER_MANY, out of the queue into taken, in their
 * order, passing over those being moved; how many. Under the lock. */
static int take_waiting(batch *b, job *taken[JOB_FILTER_MANY])
{
    int n = 0;
    job *prev = NULL, *j = b->decoded.head;
    while (j && n < JOB_FILTER_MANY) {
        job *next = j->next;
        if (j->moving) {
            prev = j;
        } else {
            job_list_take_after(&b->decoded, prev);
            b->moves_waiting -= j->moved;
            j->moved = 0;
            taken[n++] = j;
        }
        j = next;
    }
    return n;
}

void *batch_lane_main(void *arg)
{
    lane *l = arg;
    batch *b = l->b;
    open_lane(l);
    pthread_mutex_lock(&b->lock);
    const int none_opened = b->lanes_working == 0;
    /* A lane without a device takes no image: the others serve the batch. If no device
     * opened, the first lane fails every image with the reason, said once at the end. */
    if (l->status != 0 && !(none_opened && l == &b->lanes[0])) {
        if (l->status == 1 && !none_opened && b->report->note) {
            char line[700];
            snprintf(line, sizeof line, "%s: %s; the other devices go on", l->request, l->err);
            b->report->note(b, -1, line, b->report->arg);
        }
        pthread_mutex_unlock(&b->lock);
        return NULL;
    }
    if (none_opened) /* the workers stop waiting for a lane to be ready */
        b->lanes_ready = 1;
    pthread_cond_broadcast(&b->work);
    for (;;) {
        job *taken[JOB_FILTER_MANY];
        int n = 0;
#ifdef TILEDCONV_TEST_HOOKS
        if (file_hooks.lane_pause_ms) {
            pthread_mutex_unlock(&b->lock);
            test_pause(file_hooks.lane_pause_ms);
            pthread_mutex_lock(&b->lock);
        }
#endif
        /* Every image waiting, up to a call's worth, in order (one library call pipelines
         * them), but those a worker is moving into page-locked memory (batch_pool.c). */
        while ((n = take_waiting(b, taken)) == 0 &&
               !(!b->decoded.head && b->next >= b->list->count && b->reading == 0))
            pthread_cond_wait(&b->ready, &b->lock);
        if (n == 0)
            break;
        pthread_cond_broadcast(&b->work); /* room to read ahead */
        pthread_mutex_unlock(&b->lock);
        const double t = batch_now_ms();
        /* Inputs still on the pool's huge pages of ordinary memory (decoded while the device
         * opened, not yet locked by an idle worker) are locked where they lie: about 0.3 ms a
         * colour photo against the staging copy's 1-2 ms on the lane. */
        int locked = 0;
        for (int i = 0; i < n && l->status == 0; i++)
            locked += taken[i]->movable > 0 && job_lock_input_in_place(taken[i], l->ctx);
        pthread_mutex_lock(&b->lock);
        b->lane_locked += locked;
        choose_copy_threads(b, taken, n);
        /* An image in strips plans its bands in the budget as it is now, every device open
         * (it was read perhaps before, against the reserves of devices still opening). */
        for (int i = 0; i < n; i++)
            taken[i]->room = b->budget;
        pthread_mutex_unlock(&b->lock);
        int staged = 0;
        for (int i = 0; i < n; i++)
            staged |= taken[i]->movable > 0; /* still in ordinary memory */
        for (int i = 0; i < n && l->status != 0; i++)
            taken[i]->status = JOB_NO_DEVICE;
        if (l->status == 0)
            job_filter_many(b->o, l->ctx, taken, n);
#ifdef TILEDCONV_TEST_HOOKS
        if (file_hooks.lane_call_ms)
            test_pause(file_hooks.lane_call_ms);
#endif
        /* A CPU device's buffers are host memory, which a --max-memory budget counts only
         * while their images are in flight: the context keeps none beyond the call. */
        if (l->status == 0 && b->o->max_memory && l->dev.is_cpu)
            (void)tc_trim(l->ctx);
        for (int i = 0; i < n; i++)
            job_drop_input(taken[i]); /* the device is done with it (-e keeps its planes) */
        pthread_mutex_lock(&b->lock);
        b->lane_ms += batch_now_ms() - t;
        if (staged) {
            b->staged_lane_ms += batch_now_ms() - t;
            b->staged_lane_images += n;
        }
        b->lanes_end_ms = batch_now_ms() - b->t0;
        b->lane_calls++;
        b->lane_images += n;
        for (int i = 0; i < n; i++) {
            b->build_ms += taken[i]->build_ms;
            job_list_push(&b->finished, taken[i]);
        }
        pthread_cond_broadcast(&b->work);
    }
    if (l->ctx) {
        tc_direct_counts direct;
        tc_direct_transfers(l->ctx, &direct);
        b->direct_up += direct.up;
        b->direct_down += direct.down;
    }
    b->lane_cpu_ms += batch_thread_cpu_ms();
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

int batch_make_lanes(batch *b, int n_requests, char requests[][64])
{
    int k = 0;
    if (b->n_lanes == 0)
        return 0;
    b->lanes = calloc((size_t)b->n_lanes, sizeof *b->lanes);
    if (!b->lanes)
        return -1;
    for (int i = 0; i < n_requests && k < b->n_lanes; i++, k++) {
        b->lanes[k].b = b;
        b->lanes[k].request = requests[i];
    }
    b->n_lanes = k;
    return 0;
}
