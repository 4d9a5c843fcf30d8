/* batch_pool.c - the pool of host workers (batch_pool.h). */
#define _GNU_SOURCE /* syscall(SYS_gettid), for one thread's niceness */
#include "batch_pool.h"

#include <malloc.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "batch_account.h"
#include "job_filter.h"
#include "job_output.h"
#include "plan.h"
#include "text.h"

/* Room in the memory budget for an image's bytes, taken under lock: images in flight, with
 * the pinned blocks' overhead (pinned_pool.h), hold at most the budget, except that one image
 * always may. A worker that must wait encodes finished images meanwhile (they give room
 * back), so that the pool never waits on itself; idle blocks are freed first where they stand
 * in the way. */
static void take_budget(batch *b, job *j);

/* An image the device has finished: checked (-e), encoded and staged, its buffers and budget
 * given back, then handed to the waiters (or, without syncs, put in place here). Called
 * without the lock. */
static void finish_job(batch *b, job *j)
{
    const tc_options *o = b->o;
    const double t = batch_now_ms();
    if (o->verify && j->status == JOB_OK && !j->in_strips) /* strips check their bands */
        job_check(o, j);
    job_stage(o, j);
    j->write_ms = batch_now_ms() - t;
    job_drop_buffers(j);
    /* Under --max-memory what the image freed goes back to the system before its bytes
     * leave the count: the next admission reads the process's resident bytes. */
    if (o->max_memory)
        (void)malloc_trim(0);
    pthread_mutex_lock(&b->lock);
    b->inflight -= j->bytes;
    j->bytes = 0;
    b->codec_write_ms += j->write_ms;
    b->codec_writes++;
    pthread_cond_broadcast(&b->work);
    pthread_mutex_unlock(&b->lock);
    const int staged = j->status == JOB_OK && (j->commit.files[0].path || j->commit.files[1].path);
    if (staged && b->syncing) {
        j->commit.done = batch_committed;
        j->commit.arg = b;
        commit_put(&b->commits, &j->commit);
    } else {
        if (staged) {
            const double t2 = batch_now_ms();
            commit_now(&j->commit, 0);
            j->write_ms += batch_now_ms() - t2;
            if (j->commit.failed) {
                j->status = JOB_FAILED;
                snprintf(j->msg, sizeof j->msg, "%s", j->commit.err);
            }
        }
        batch_account(b, j);
    }
    pthread_mutex_lock(&b->lock);
    if (++b->left == b->list->count)
        pthread_cond_broadcast(&b->work); /* the last one: every worker may end */
    pthread_mutex_unlock(&b->lock);
}

/* Of the pool's idle blocks, the bytes the image may count on taking (up to the bytes it asks
 * the pool for): those not promised already to images let in before it that have not read
 * yet. Under the lock. */
static size_t idle_for(batch *b, const job *j)
{
    const size_t idle = pinned_pool_idle(&b->pool);
    const size_t free_idle = idle > b->credited ? idle - b->credited : 0;
    return free_idle < j->pooled ? free_idle : j->pooled;
}

/* The pinned pool's overhead as it will stand once the image has taken its blocks: the idle
 * blocks it will take are memory its own bytes count already. Without this, each image would
 * have the blocks the one before gave back freed, only to make them again (which a small
 * budget showed: locked pages made and freed over and over, and a driver that keeps some of
 * what is freed); without the promises (idle_for), images let in at once would each count on
 * the same idle blocks. */
static size_t overhead_after(batch *b, const job *j)
{
    const size_t over = pinned_pool_overhead(&b->pool), taken = idle_for(b, j);
    return over > taken ? over - taken : 0;
}

/* Under --max-memory, whether `bytes` more would pass it by what the process holds now (the
 * platform, the images in flight as they are, what the device and the allocator keep; plan.h's
 * plan_spent): the count of the images in flight is a plan, this is the fact. */
static int over_given(const batch *b, size_t bytes)
{
    return b->o->max_memory &&
           plan_spent() + bytes > b->o->max_memory;
}

static void take_budget(batch *b, job *j)
{
    const size_t bytes = j->bytes;
    job *f;
    for (;;) {
        const size_t want = b->inflight + overhead_after(b, j) + bytes;
        /* Only as many idle blocks as stand in the way, and only when that lets the image
         * in: freed while it must wait anyway, they would be made again for the next. */
        if (want > b->budget && (b->inflight + bytes <= b->budget || b->inflight == 0))
            pinned_pool_trim_by(&b->pool, want - b->budget);
        /* What remains of the overhead is held by images in flight: gone once none is. */
        if (!(b->inflight > 0 && (b->inflight + overhead_after(b, j) + bytes > b->budget ||
                                  over_given(b, bytes))))
            break;
        if ((f = job_list_pop(&b->finished)) != NULL) {
            pthread_mutex_unlock(&b->lock);
            finish_job(b, f);
            pthread_mutex_lock(&b->lock);
        } else {
            const double t = batch_now_ms();
            pthread_cond_wait(&b->work, &b->lock);
            b->budget_wait_ms += batch_now_ms() - t;
        }
    }
    b->inflight += bytes;
    j->credit = idle_for(b, j);
    b->credited += j->credit;
}

/* A job read handed on, under lock, its reading done: to the lanes. */
static void hand_to_lanes(batch *b, job *j)
{
    job_list_push(&b->decoded, j);
    b->reading--;
    pthread_cond_signal(&b->ready);
    if (b->next >= b->list->count && b->reading == 0) {
        pthread_cond_broadcast(&b->ready); /* the lanes may end once the list is empty */
        b->all_read_ms = batch_now_ms() - b->t0;
        b->waiting_at_all_read = b->decoded.count;
    }
}

/* Input i read and decoded (and with --no-filter made into the output and staged), then
 * handed to the lanes; a failure goes on to the lanes too, which pass it through, so that
 * every image is accounted in one place. Called without the lock, reading counted. */
static void read_one(batch *b, int i, int ordinary)
{
    const tc_options *o = b->o;
    job *j = calloc(1, sizeof *j);
    if (!j) { /* nothing to carry the failure: count it here */
        text_shown shown;
        pthread_mutex_lock(&b->lock);
        b->failed++;
        b->done++;
        b->reading--;
        b->left++;
        if (b->report->note) {
            char line[TEXT_SHOWN_MAX + 32];
            snprintf(line, sizeof line, "%s: out of host memory",
                     text_show(b->list->items[i].input, &shown));
            b->report->note(b, i, line, b->report->arg);
        }
        pthread_cond_broadcast(&b->work);
        pthread_cond_broadcast(&b->ready);
        pthread_mutex_unlock(&b->lock);
        return;
    }
    j->index = i;
    j->item = &b->list->items[i];
    j->pool = &b->pool;
    j->input_ordinary = ordinary;
    /* read_ms counts the opening and the decoding, not the wait for room (nor the other
     * images finished meanwhile). */
    double t = batch_now_ms();
    pthread_mutex_lock(&b->lock);
    j->room = b->budget;
    pthread_mutex_unlock(&b->lock);
    /* Whole or in strips by what is left now, the images in flight as they are (plan.h). */
    if (o->max_memory)
        j->room = plan_room_now(o, j->room);
    job_open(o, b->list->keep_format, j);
    j->read_ms = batch_now_ms() - t;
    if (j->status == JOB_OK) {
        pthread_mutex_lock(&b->lock);
        take_budget(b, j);
        /* A file the device will read as it lies waits for the page-locked memory that comes
         * with it: read now, into ordinary memory, it would cost the lane a staging copy of
         * the whole file later (a colour BMP row took 1.24 s against its codecs' 0.90 so). */
        const double w = batch_now_ms();
        while (!o->no_filter && b->lanes_ready == 0 && job_input_moves_directly(o, j))
            pthread_cond_wait(&b->work, &b->lock);
        b->idle_ms[0] += batch_now_ms() - w;
        pthread_mutex_unlock(&b->lock);
        t = batch_now_ms();
        job_decode(o, j);
        j->read_ms += batch_now_ms() - t;
        j->movable = o->no_filter ? 0 : job_movable_bytes(j);
        pthread_mutex_lock(&b->lock); /* its input has taken its blocks: the promise is kept */
        b->credited -= j->credit;
        j->credit = 0;
        pthread_mutex_unlock(&b->lock);
    }
    if (o->no_filter) {
        const double t2 = batch_now_ms();
        if (j->status == JOB_OK)
            job_copy(o, j);
        j->convert_ms = batch_now_ms() - t2;
        pthread_mutex_lock(&b->lock);
        b->reading--;
        pthread_mutex_unlock(&b->lock);
        finish_job(b, j);
        return;
    }
    pthread_mutex_lock(&b->lock);
    b->decoded_early += b->lanes_ready == 0;
    b->codec_read_ms += j->read_ms;
    b->codec_reads++;
    hand_to_lanes(b, j);
    pthread_mutex_unlock(&b->lock);
}

/* Images moved into page-locked memory ahead of the lanes, at most: a lane call's worth and
 * the next's (each holds a block the pool may have to make). */
#define MOVES_AHEAD (2 * JOB_FILTER_MANY)

/* An image waiting for a lane whose pixels lie in ordinary memory, for an idle worker to make
 * page-locked: NULL when none is, enough moved ones wait already, or the budget has no room
 * for the copy. The images decoded while the devices open (about half of a folder of colour
 * JPEG photos on the 16-core machine) would otherwise each cost the lane a staging copy on its
 * own thread (seen: a lane 0.8-0.9 ms an image through that backlog, with the workers idle 4 s
 * summed). Those on huge pages of the pool's are locked where they lie (about 0.3 ms for a
 * colour photo, no copy, no room needed); others are copied, only into idle blocks, a few at a
 * time: copying them all at once when the device opens was slower (locking the pages of
 * hundreds of new blocks), and so was copying them into blocks made for them (7 ms a block of
 * the driver's, in a driver lock the lanes wait on too, where the lane's copy of a gray photo
 * takes 0.15 ms). Only those past the lane's next call, which stay in their place in its queue
 * meanwhile (marked: the lane passes over them), so that the lane never waits for a move.
 * Under the lock. */
static job *take_to_move(batch *b)
{
    /* Idle blocks promised to images let in (idle_for) are not theirs to take. */
    if (b->o->no_filter || b->lanes_ready == 0 || !b->pool.ctx ||
        b->moves_waiting >= MOVES_AHEAD)
        return NULL;
    const int blocks_idle = pinned_pool_idle(&b->pool) > b->credited;
    /* Only so far into the queue: every idle worker looks, each time it wakes, under the lock
     * the lanes take too, and a gray JPEG batch has a thousand images waiting at start-up. */
    const int first = JOB_FILTER_MANY * b->n_lanes, last = first + 2 * MOVES_AHEAD;
    int place = 0;
    for (job *j = b->decoded.head; j && place < last; j = j->next, place++) {
        if (place < first || !j->movable || j->moving)
            continue;
        const int in_place = job_input_lockable(j);
        /* The first one to copy decides: looking further for one that an idle block holds
         * (every idle worker each time it wakes, through every block of the pool) slowed the
         * gray JPEG row by 17 % on the GPU machine (docs/benchmarks.md). */
        if (!in_place &&
            (!blocks_idle || b->inflight + pinned_pool_overhead(&b->pool) + j->movable > b->budget ||
             !pinned_pool_idle_holds(&b->pool, j->movable)))
            return NULL;
        j->moving = 1;
        j->moving_copy = !in_place;
        b->inflight += j->moving_copy ? j->movable : 0; /* the copy holds both for a while */
        b->moves_waiting++;
        return j;
    }
    return NULL;
}

/* The move of take_to_move's image, which stays in the lanes' queue. Called without the
 * lock. */
static void move_one(batch *b, job *j)
{
    const double t = batch_now_ms();
    const int moved = job_move_input(j);
    const double ms = batch_now_ms() - t;
    pthread_mutex_lock(&b->lock);
    b->inflight -= j->moving_copy ? j->movable : 0;
    j->movable = moved ? 0 : j->movable; /* another worker took the idle block: later */
    j->moving = 0;
    j->moved = moved;
    b->moves_waiting -= !moved;
    b->moved += moved;
    b->move_ms += ms;
    pthread_cond_broadcast(&b->ready); /* a lane may be waiting for it */
    pthread_mutex_unlock(&b->lock);
}

int batch_pool_blocks(const batch *b)
{
    const int ahead = 2 * (b->n_lanes > b->n_workers ? b->n_lanes : b->n_workers);
    return 4 * (ahead + JOB_FILTER_MANY * b->n_lanes);
}

/* Whether a worker should read another input now (it has no finished image to encode): 0,
 * or 1, or 2 for a read far ahead, into ordinary memory. Inputs left and, once a lane is
 * ready, no more read ahead than keeps the lanes busy, unless the codecs are the bound
 * (before that, while the devices open, only the memory budget bounds the read-ahead). Where
 * the codecs bound the rate, a worker that stops reading only idles: after a gray JPEG
 * batch's start-up, with hundreds of images decoded while the device opened still waiting for
 * the lane, the workers could only encode at the lane's pace (the pool 74-75 % busy on a
 * colour JPEG row, 3.7-4.2 s of its time summed idle). Those reads far ahead go to ordinary
 * memory: in page-locked blocks they made the pool lock up to 192 blocks, at up to 9 ms each
 * in a driver lock the lane waits on too (1.0-1.8 s of the workers' time on the gray JPEG
 * row), where the lane, not the bound, has the time for their staging copies. Where the lanes
 * are the bound, images read far ahead would only wait. */
static int may_read(const batch *b)
{
    if (b->next >= b->list->count)
        return 0;
    if (b->o->no_filter || b->lanes_ready == 0)
        return 1;
    const int ahead = 2 * (b->n_lanes > b->n_workers ? b->n_lanes : b->n_workers);
    return b->decoded.count < ahead ? 1 : batch_codecs_bound(b) == 1 ? 2 : 0;
}

/* --tune worker-nice=N: this worker thread at niceness N, so that the scheduler favours the
 * lanes and their copy threads over the codecs where they share the cores (Linux, where
 * niceness is a thread's; elsewhere nothing). Raising one's own niceness needs no privilege;
 * a refusal leaves the thread as it was. */
static void set_worker_nice(const batch *b)
{
#ifdef __linux__
    const int n = b->o->tuning.worker_nice;
    if (n > 0)
        (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), n);
#else
    (void)b;
#endif
}

void *batch_worker_main(void *arg)
{
    batch *b = arg;
    job *j;
    int read;
    set_worker_nice(b);
    pthread_mutex_lock(&b->lock);
    for (;;) {
        if ((j = job_list_pop(&b->finished)) != NULL) {
            pthread_mutex_unlock(&b->lock);
            finish_job(b, j);
            pthread_mutex_lock(&b->lock);
        } else if ((read = may_read(b)) != 1 && (j = take_to_move(b)) != NULL) {
            /* before a read far ahead: that one only adds to what waits */
            pthread_mutex_unlock(&b->lock);
            move_one(b, j);
            pthread_mutex_lock(&b->lock);
        } else if (read != 0) {
            const int i = b->next++;
            b->reading++;
            pthread_mutex_unlock(&b->lock);
            read_one(b, i, read == 2);
            pthread_mutex_lock(&b->lock);
        } else if (b->left == b->list->count) {
            break;
        } else {
            const double t = batch_now_ms();
            const int ready = b->lanes_ready != 0;
            pthread_cond_wait(&b->work, &b->lock);
            b->idle_ms[ready] += batch_now_ms() - t;
        }
    }
    b->worker_cpu_ms += batch_thread_cpu_ms();
    pthread_mutex_unlock(&b->lock);
    return NULL;
}
