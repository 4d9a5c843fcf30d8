/*
 * batch.c - the pipeline of batch.h: one pool of host workers, the device lanes, the waiters.
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
 * in flight are bounded (a quarter of the machine's memory, at most 4 GiB; one image always
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
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "commit.h"
#include "job.h"
#include "outputs.h"
#include "report.h"
#include "text.h"
#include "tiledconv.h"

/* One context and the thread that drives it. */
typedef struct batch batch;
typedef struct {
    batch *b;
    const char *request;
    int sibling;           /* 0 for the first lane of its request, 1 for the second */
    tc_context *ctx;
    tc_device_info dev;
    double open_ms;        /* tc_open, from the start of the run */
    int status;            /* 0 open, 1 failed to open, 2 closed (a CPU's second lane) */
    int open_status;       /* tc_open's status */
    char err[512];
    pthread_t thread;
    int started;           /* thread runs lane_main (else lane 0 runs on the main thread) */
} lane;

/* A list of jobs, first in first out. */
typedef struct {
    job *head, *tail;
    int count;
} job_list;

struct batch {
    const tc_options *o;
    const batch_list *list;
    int chatty, machine, progress;
    double t0;             /* the run's start, wall ms */
    /* The pool's state, under lock. */
    pthread_mutex_t lock;
    pthread_cond_t work;   /* workers: an image to encode, room in the budget, the end */
    pthread_cond_t ready;  /* lanes: a decoded image, or none left to come */
    int next;              /* the next input to read */
    int reading;           /* inputs being read now */
    job_list decoded;      /* read, waiting for a lane */
    job_list finished;     /* filtered, waiting for a worker */
    int left;              /* images the workers are done with (staged or accounted) */
    int lanes_ready;       /* lanes with an open device: start-up is over */
    size_t inflight, budget;
    /* Results, under lock. */
    int done, written, refused, failed;
    int checked, verified; /* -e: images checked, and passed */
    double max_difference;
    double read_ms, upload_ms, convert_ms, kernel_ms, download_ms, write_ms, sync_ms;
    double startup_ms;     /* until the first context was ready */
    double platforms_ms;   /* of that: the OpenCL loader's platform list (every ICD loaded) */
    double build_ms;       /* the programs built, summed over the lanes */
    double lane_ms;        /* the lanes' wall time in their library calls, summed */
    int lane_calls;        /* those calls (each filters the images waiting, up to 16) */
    int decoded_early;     /* images decoded before any lane was ready */
    double age_at_start;   /* ms since the process started, when the batch started (-1: not
                            * known) */
    double folder_sync_ms; /* the output folder's sync after the last image */
    int n_workers, n_lanes, n_waiters;
    lane *lanes;
    commit_queue commits;  /* started when outputs are synced */
    int syncing;
    const tc_device_info *dev; /* the first lane's, for the single-image header */
    int first_width, first_height, first_depth; /* the first image written, for that header */
    io_format first_format;
    tc_roi first_roi;
    int lanes_opened;      /* lanes that have tried to open their device */
    int lanes_working;     /* of those, the ones that opened it */
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ms since this process started (its exec), from /proc/self/stat's start time in clock ticks
 * since boot (to the tick: 10 ms), for -t's account of the time outside the batch's clock;
 * -1 where it cannot be read. */
static double process_age_ms(void)
{
    char line[1024];
    struct timespec ts;
    unsigned long long start = 0;
    FILE *f = fopen("/proc/self/stat", "r");
    const long tick = sysconf(_SC_CLK_TCK);
    if (!f)
        return -1.0;
    const int got = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    /* Fields after the command's name, which ends with the last ')': state is field 3, the
     * start time field 22. */
    const char *p = got ? strrchr(line, ')') : NULL;
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    if (!p || sscanf(p + 1, "%llu", &start) != 1 || tick <= 0 ||
        clock_gettime(CLOCK_BOOTTIME, &ts) != 0)
        return -1.0;
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6 - (double)start * 1e3 / tick;
}

static void list_push(job_list *l, job *j)
{
    j->next = NULL;
    if (l->tail)
        l->tail->next = j;
    else
        l->head = j;
    l->tail = j;
    l->count++;
}

static job *list_pop(job_list *l)
{
    job *j = l->head;
    if (j) {
        l->head = j->next;
        if (!l->head)
            l->tail = NULL;
        l->count--;
    }
    return j;
}

/* ---- Accounting ---------------------------------------------------------------------------- */

/* One machine-readable record per image. */
static void print_record(const batch *b, const job *j)
{
    static const char *const status_words[] = {"written", "failed", "refused"};
    report_row r;
    memset(&r, 0, sizeof r);
    r.type = "image";
    r.input = j->item->input;
    r.output = j->item->output ? j->item->output : "";
    r.status = j->status == JOB_OK && !j->item->output && !j->item->raw
                   ? "processed"
                   : status_words[j->status];
    r.width = j->src.width;
    r.height = j->src.height;
    r.error = j->status == JOB_OK ? "" : j->msg;
    r.read_ms = j->read_ms;
    r.upload_ms = j->upload_ms;
    r.convert_ms = j->convert_ms;
    r.kernel_ms = j->kernel_ms;
    r.download_ms = j->download_ms;
    r.write_ms = j->write_ms;
    r.checked = j->checked && j->status != JOB_REFUSED;
    r.max_difference = j->max_error;
    r.tolerance = j->tolerance;
    r.sha256 = j->sha256;
    (b->o->format == TC_FORMAT_CSV ? report_row_csv : report_row_json)(stdout, &r);
}

/* The job's outcome: its line on failure, the counts, the figures, the record; then the job
 * is freed. */
static void account(batch *b, job *j)
{
    pthread_mutex_lock(&b->lock);
    b->done++;
    if (j->checked) {
        b->checked++;
        b->verified += j->status == JOB_OK;
        if (j->max_error > b->max_difference)
            b->max_difference = j->max_error;
    }
    if (j->status == JOB_OK) {
        if (b->written++ == 0) {
            b->first_width = j->src.width;
            b->first_height = j->src.height;
            b->first_roi = j->roi;
            b->first_depth = j->depth;
            b->first_format = j->out_format;
        }
        b->read_ms += j->read_ms;
        b->upload_ms += j->upload_ms;
        b->convert_ms += j->convert_ms;
        b->kernel_ms += j->kernel_ms;
        b->download_ms += j->download_ms;
        b->write_ms += j->write_ms;
        b->sync_ms += j->sync_ms;
    } else if (j->status == JOB_REFUSED) {
        b->refused++;
    } else if (j->status == JOB_FAILED) {
        b->failed++;
    }
    if (j->status != JOB_OK && j->status != JOB_NO_DEVICE) {
        if (b->progress)
            fputs("\r\033[K", stderr); /* the line goes above the progress line */
        fprintf(stderr, "tiledconv: %s\n", j->msg);
    } else if (j->status == JOB_OK && b->o->verbose && b->chatty) {
        printf("%s -> %s (%d x %d): read %.2f, upload %.2f, kernel %.3f, download %.2f, write "
               "%.2f ms\n",
               j->item->input, j->item->output ? j->item->output : "(no output)", j->src.width,
               j->src.height, j->read_ms, j->upload_ms, j->kernel_ms, j->download_ms,
               j->write_ms);
    }
    if (b->machine && j->status != JOB_NO_DEVICE)
        print_record(b, j);
    pthread_mutex_unlock(&b->lock);
    free(j);
}

/* A waiter has put the job's outputs in place (or failed to). */
static void committed(commit_item *c, void *arg)
{
    job *j = (job *)((char *)c - offsetof(job, commit));
    if (c->failed) {
        j->status = JOB_FAILED;
        snprintf(j->msg, sizeof j->msg, "%s", c->err);
    }
    j->sync_ms = c->sync_ms;
    account(arg, j);
}

/* ---- Workers ------------------------------------------------------------------------------- */

/* Room in the memory budget for bytes, taken under lock: images in flight hold at most the
 * budget, except that one image always may. A worker that must wait encodes finished images
 * meanwhile (they give room back), so that the pool never waits on itself. */
static void take_budget(batch *b, size_t bytes);

/* An image the device has finished: checked (-e), encoded and staged, its buffers and budget
 * given back, then handed to the waiters (or, without syncs, put in place here). Called
 * without the lock. */
static void finish_job(batch *b, job *j)
{
    const tc_options *o = b->o;
    const double t = now_ms();
    if (o->verify && j->status == JOB_OK && !j->in_strips) /* strips check their bands */
        job_check(o, j);
    job_stage(o, j);
    j->write_ms = now_ms() - t;
    job_drop_buffers(j);
    pthread_mutex_lock(&b->lock);
    b->inflight -= j->bytes;
    j->bytes = 0;
    pthread_cond_broadcast(&b->work);
    pthread_mutex_unlock(&b->lock);
    const int staged = j->status == JOB_OK && (j->commit.files[0].path || j->commit.files[1].path);
    if (staged && b->syncing) {
        j->commit.done = committed;
        j->commit.arg = b;
        commit_put(&b->commits, &j->commit);
    } else {
        if (staged) {
            const double t2 = now_ms();
            commit_now(&j->commit, 0);
            j->write_ms += now_ms() - t2;
            if (j->commit.failed) {
                j->status = JOB_FAILED;
                snprintf(j->msg, sizeof j->msg, "%s", j->commit.err);
            }
        }
        account(b, j);
    }
    pthread_mutex_lock(&b->lock);
    if (++b->left == b->list->count)
        pthread_cond_broadcast(&b->work); /* the last one: every worker may end */
    pthread_mutex_unlock(&b->lock);
}

static void take_budget(batch *b, size_t bytes)
{
    job *f;
    while (b->inflight > 0 && b->inflight + bytes > b->budget) {
        if ((f = list_pop(&b->finished)) != NULL) {
            pthread_mutex_unlock(&b->lock);
            finish_job(b, f);
            pthread_mutex_lock(&b->lock);
        } else {
            pthread_cond_wait(&b->work, &b->lock);
        }
    }
    b->inflight += bytes;
}

/* Input i read and decoded (and with --no-filter made into the output and staged), then
 * handed to the lanes; a failure goes on to the lanes too, which pass it through, so that
 * every image is accounted in one place. Called without the lock, reading counted. */
static void read_one(batch *b, int i)
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
        fprintf(stderr, "tiledconv: %s: out of host memory\n",
                text_show(b->list->items[i].input, &shown));
        pthread_cond_broadcast(&b->work);
        pthread_cond_broadcast(&b->ready);
        pthread_mutex_unlock(&b->lock);
        return;
    }
    j->index = i;
    j->item = &b->list->items[i];
    /* read_ms counts the opening and the decoding, not the wait for room (nor the other
     * images finished meanwhile). */
    double t = now_ms();
    job_open(o, b->list->keep_format, j);
    j->read_ms = now_ms() - t;
    if (j->status == JOB_OK) {
        pthread_mutex_lock(&b->lock);
        take_budget(b, j->bytes);
        pthread_mutex_unlock(&b->lock);
        t = now_ms();
        job_decode(o, j);
        j->read_ms += now_ms() - t;
    }
    if (o->no_filter) {
        const double t2 = now_ms();
        if (j->status == JOB_OK)
            job_copy(o, j);
        j->convert_ms = now_ms() - t2;
        pthread_mutex_lock(&b->lock);
        b->reading--;
        pthread_mutex_unlock(&b->lock);
        finish_job(b, j);
        return;
    }
    pthread_mutex_lock(&b->lock);
    list_push(&b->decoded, j);
    b->decoded_early += b->lanes_ready == 0;
    b->reading--;
    pthread_cond_signal(&b->ready);
    if (b->next >= b->list->count && b->reading == 0)
        pthread_cond_broadcast(&b->ready); /* the lanes may end once the list is empty */
    pthread_mutex_unlock(&b->lock);
}

/* Whether a worker should read another input now: inputs left and, once a lane is ready, no
 * more read ahead than keeps the lanes busy (before that, while the devices open, only the
 * memory budget bounds the read-ahead). */
static int may_read(const batch *b)
{
    if (b->next >= b->list->count)
        return 0;
    if (b->o->no_filter || b->lanes_ready == 0)
        return 1;
    const int ahead = 2 * (b->n_lanes > b->n_workers ? b->n_lanes : b->n_workers);
    return b->decoded.count < ahead;
}

static void *worker_main(void *arg)
{
    batch *b = arg;
    job *j;
    pthread_mutex_lock(&b->lock);
    for (;;) {
        if ((j = list_pop(&b->finished)) != NULL) {
            pthread_mutex_unlock(&b->lock);
            finish_job(b, j);
            pthread_mutex_lock(&b->lock);
        } else if (may_read(b)) {
            const int i = b->next++;
            b->reading++;
            pthread_mutex_unlock(&b->lock);
            read_one(b, i);
            pthread_mutex_lock(&b->lock);
        } else if (b->left == b->list->count) {
            break;
        } else {
            pthread_cond_wait(&b->work, &b->lock);
        }
    }
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

/* ---- Lanes --------------------------------------------------------------------------------- */

/* The device of a lane opened and checked against the run's options; the lanes then wait
 * until all have tried, so that each knows whether any device opened. */
static void open_lane(lane *l)
{
    batch *b = l->b;
    if ((l->open_status = tc_open(l->request, &l->ctx, l->err, sizeof l->err)) == TC_OK) {
        tc_context_device(l->ctx, &l->dev);
        l->open_ms = now_ms() - b->t0;
        l->status = 0;
        /* A device that cannot serve the run (--storage image or bilinear without image
         * support) is a device that did not open: it takes no image. */
        const tc_roi one = {0, 0, 0, 0, 1, 1};
        tc_params p;
        cli_params(b->o, &one, &p);
        if ((l->open_status = tc_check_params(l->ctx, 1, 1, &p)) != TC_OK) {
            snprintf(l->err, sizeof l->err, "%s", tc_error(l->ctx));
            tc_close(l->ctx);
            l->ctx = NULL;
            l->status = 1;
        }
    } else {
        l->status = 1;
    }
    /* A second lane on a CPU device only competes with the first for the same cores. */
    if (l->status == 0 && l->sibling > 0 && l->dev.is_cpu) {
        tc_close(l->ctx);
        l->ctx = NULL;
        l->status = 2;
    }
    pthread_mutex_lock(&b->lock);
    if (l->status == 0 && (b->startup_ms == 0.0 || l->open_ms < b->startup_ms))
        b->startup_ms = l->open_ms;
    b->lanes_working += l->status == 0;
    b->lanes_ready += l->status == 0;
    if (++b->lanes_opened == b->n_lanes)
        pthread_cond_broadcast(&b->ready);
    while (b->lanes_opened < b->n_lanes)
        pthread_cond_wait(&b->ready, &b->lock);
    pthread_mutex_unlock(&b->lock);
}

static void *lane_main(void *arg)
{
    lane *l = arg;
    batch *b = l->b;
    job *j;
    open_lane(l);
    pthread_mutex_lock(&b->lock);
    const int none_opened = b->lanes_working == 0;
    /* A lane without a device takes no image: the others serve the batch. If no device
     * opened, the first lane fails every image with the reason, said once at the end. */
    if (l->status != 0 && !(none_opened && l == &b->lanes[0])) {
        if (l->status == 1 && !none_opened && b->chatty)
            fprintf(stderr, "tiledconv: %s: %s; the other devices go on\n", l->request, l->err);
        pthread_mutex_unlock(&b->lock);
        return NULL;
    }
    if (none_opened) /* the workers stop waiting for a lane to be ready */
        b->lanes_ready = 1;
    pthread_cond_broadcast(&b->work);
    for (;;) {
        job *taken[JOB_FILTER_MANY];
        int n = 0;
        while (!b->decoded.head && !(b->next >= b->list->count && b->reading == 0))
            pthread_cond_wait(&b->ready, &b->lock);
        /* Every image waiting, up to a call's worth: one library call pipelines them. */
        while (n < JOB_FILTER_MANY && (j = list_pop(&b->decoded)) != NULL)
            taken[n++] = j;
        if (n == 0)
            break;
        pthread_cond_broadcast(&b->work); /* room to read ahead */
        pthread_mutex_unlock(&b->lock);
        const double t = now_ms();
        for (int i = 0; i < n && l->status != 0; i++)
            taken[i]->status = JOB_NO_DEVICE;
        if (l->status == 0)
            job_filter_many(b->o, l->ctx, taken, n);
        for (int i = 0; i < n; i++)
            job_drop_input(taken[i]); /* the device is done with it (-e keeps its planes) */
        pthread_mutex_lock(&b->lock);
        b->lane_ms += now_ms() - t;
        b->lane_calls++;
        for (int i = 0; i < n; i++) {
            b->build_ms += taken[i]->build_ms;
            list_push(&b->finished, taken[i]);
        }
        pthread_cond_broadcast(&b->work);
    }
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

/* ---- The run ------------------------------------------------------------------------------- */

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

/* "done/total, images/s, time left" in place on stderr. */
static void show_progress(const batch *b)
{
    const double s = (now_ms() - b->t0) / 1e3;
    const double rate = s > 0 ? b->done / s : 0.0;
    const double left = rate > 0 ? (b->list->count - b->done) / rate : 0.0;
    fprintf(stderr, "\r\033[Ktiledconv: %d/%d images, %.0f images/s, %.0f s left", b->done,
            b->list->count, rate, left);
    fflush(stderr);
}

/* Lanes (contexts) per GPU: 1 by default. A lane hands the library every image waiting for it
 * in one call, whose pipeline (three images in flight, each slot on its own queue) overlaps
 * one image's transfers with another's kernels, which is what a second lane was for; the
 * copies into and out of pinned memory, which bounded a lane, run on the context's copy
 * crew. A second context cost the driver about 110 ms to create on an H100 machine, more
 * pinned memory and its teardown, and a batch with one lane ran faster there already before
 * (1.55 s against 1.83 s for 1,000 gray JPEG photos). TILEDCONV_LANES overrides it for the
 * measurements in BENCHMARKS.md. */
static int lanes_per_gpu(void)
{
    const char *v = getenv("TILEDCONV_LANES");
    const int n = v ? atoi(v) : 0;
    return n >= 1 && n <= 8 ? n : 1;
}

/* How many threads of each kind: the workers every core (--threads N), since reading,
 * decoding and encoding are the work; the waiters many when syncing, since they only wait on
 * the disk, which serves many flushes at once. Never more of either than images, and one
 * context an image at most (a second costs the driver a context, at start and at exit). */
static void size_threads(batch *b, int n_requests, char requests[][64])
{
    const int cores = cpu_count(), n = b->list->count;
    b->n_workers = clamp(b->o->threads ? b->o->threads : cores, 1, n);
    b->n_waiters = clamp(2 * cores, 4, 64);
    b->n_waiters = clamp(b->n_waiters, 1, n);
    b->n_lanes = 0;
    for (int i = 0; i < n_requests && !b->o->no_filter; i++)
        b->n_lanes += strncmp(requests[i], "cpu", 3) == 0 ? 1 : lanes_per_gpu();
    b->n_lanes = b->o->no_filter ? 0 : clamp(b->n_lanes, 1, n);
}

/* The lanes: two per requested device, except one per CPU device (it already uses every
 * core). Whether a default or indexed request is a CPU is known only once it is open: such a
 * request gets two lanes, and the second closes at once on a CPU device (see open_lane). */
static int make_lanes(batch *b, int n_requests, char requests[][64])
{
    int k = 0;
    if (b->n_lanes == 0)
        return 0;
    b->lanes = calloc((size_t)b->n_lanes, sizeof *b->lanes);
    if (!b->lanes)
        return -1;
    /* Each device's first lane before any second one, so that fewer lanes than devices
     * (a short batch) still spread over the devices. */
    for (int c = 0; c < lanes_per_gpu(); c++)
        for (int i = 0; i < n_requests && k < b->n_lanes; i++) {
            const int lanes = strncmp(requests[i], "cpu", 3) == 0 ? 1 : lanes_per_gpu();
            if (c >= lanes)
                continue;
            b->lanes[k].b = b;
            b->lanes[k].request = requests[i];
            b->lanes[k].sibling = c;
            k++;
        }
    b->n_lanes = k;
    return 0;
}

static void print_summary(const batch *b)
{
    const int n = b->list->count;
    if (b->progress)
        fputs("\r\033[K", stderr);
    if (n < 2 || (b->o->quiet && b->refused + b->failed == 0))
        return;
    fprintf(stderr, "tiledconv: %d of %d images %s; %d refused; %d failed\n", b->written, n,
            b->o->write_output || b->o->raw_flag ? "written" : "processed", b->refused,
            b->failed);
}

/* -e: one verdict for the batch, after the summary. The images that failed are named by
 * their own lines above. */
static void print_verdict(const batch *b)
{
    const int failed = b->checked - b->verified;
    if (!b->o->verify || (b->o->quiet && failed == 0))
        return;
    fprintf(stderr, "tiledconv: %d of %d verified, largest difference %.2g%s\n", b->verified,
            b->list->count, b->max_difference, failed ? " (FAILED: the images named above)" : "");
}

/* -t: where the time outside the stages goes: before the batch (the process's start, options,
 * the list of inputs), its start-up (the images decoded meanwhile), after it (the folder's
 * sync), the peak memory (which the process's end has to give back) and the process's age as
 * it prints this, so that the whole process's time less that age is its exit. */
static void print_outside(const batch *b)
{
    struct rusage ru;
    const double age = b->age_at_start >= 0.0 ? process_age_ms() : -1.0;
    if (!b->o->no_filter)
        printf("  start-up: %d images decoded before the first context was ready\n",
               b->decoded_early);
    if (b->age_at_start >= 0.0)
        printf("  outside the batch's clock: %.0f ms before it (the process's start, options, "
               "inputs; to 10 ms), %.1f ms after it (the folder's sync)\n",
               b->age_at_start, b->folder_sync_ms);
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        printf("  peak memory %.0f MB (resident)\n", (double)ru.ru_maxrss / 1024.0);
    if (age >= 0.0)
        printf("  process age at this line: %.0f ms (to 10 ms; the rest of the whole process's "
               "time is its exit)\n",
               age);
}

/* -t: the stages' times, and which one bounds the rate. The pool's workers share the codec
 * stages, so each of those is busy against the whole pool; the device stages share the
 * lanes; the syncs, the waiters. */
static void print_stages(const batch *b, double wall_ms)
{
    const int n = b->written > 0 ? b->written : 1, lanes = b->lanes_working;
    const int device = !b->o->no_filter;
    const struct {
        const char *name;
        double ms;
        int threads;
        int shown;
    } stages[] = {{"read+decode", b->read_ms, b->n_workers, 1},
                  {"upload", b->upload_ms, lanes, device},
                  {"convert (device)", b->convert_ms, lanes, device},
                  {"copy (host)", b->convert_ms, b->n_workers, !device},
                  {"kernel", b->kernel_ms, lanes, device},
                  {"download", b->download_ms, lanes, device},
                  {"encode+write", b->write_ms, b->n_workers, 1},
                  {"sync (waiters)", b->sync_ms, b->n_waiters, b->syncing}};
    int bound = 0;
    double bound_busy = 0.0;
    if (device)
        printf("batch: %d images in %.3f s, %.1f images/s end to end; start-up %.1f ms (the "
               "first context ready: %.1f ms the OpenCL platforms, the rest the context), "
               "programs built %.1f ms\n",
               b->list->count, wall_ms / 1e3, b->list->count / (wall_ms / 1e3), b->startup_ms,
               b->platforms_ms, b->build_ms);
    else
        printf("batch: %d images in %.3f s, %.1f images/s end to end; --no-filter: no device, "
               "the codecs alone\n",
               b->list->count, wall_ms / 1e3, b->list->count / (wall_ms / 1e3));
    printf("  %-18s %12s %14s %8s %9s\n", "stage", "total ms", "ms per image", "threads",
           "busy");
    for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++) {
        if (!stages[i].shown)
            continue;
        const int threads = stages[i].threads > 0 ? stages[i].threads : 1;
        /* busy: the share of the wall time the stage's threads spent on it */
        const double busy = stages[i].ms / (threads * wall_ms);
        printf("  %-18s %12.1f %14.3f %8d %8.0f%%\n", stages[i].name, stages[i].ms,
               stages[i].ms / n, stages[i].threads, 100.0 * busy);
        if (busy > bound_busy) {
            bound_busy = busy;
            bound = (int)i;
        }
    }
    if (device && b->lane_calls > 0)
        printf("  %-18s %12.1f %14.3f %8d %8.0f%%   (%d calls, %.1f images a call: the "
               "lanes' wall time in the library, copies included)\n",
               "lanes", b->lane_ms, b->lane_ms / n, lanes, 100.0 * b->lane_ms /
               ((lanes > 0 ? lanes : 1) * wall_ms), b->lane_calls,
               (double)n / b->lane_calls);
    const double pool = (b->read_ms + b->write_ms + (device ? 0.0 : b->convert_ms)) /
                        (b->n_workers * wall_ms);
    printf("  the pool of %d worker%s (read+decode, encode+write) was busy %.0f%% of the wall "
           "time\n",
           b->n_workers, b->n_workers == 1 ? "" : "s", 100.0 * pool);
    if (pool > bound_busy)
        printf("  the busiest stage, which bounds the rate: the pool's codecs\n");
    else
        printf("  the busiest stage, which bounds the rate: %s%s\n", stages[bound].name,
               device && bound >= 1 && bound <= 5 ? " (device stages share the lanes)" : "");
    print_outside(b);
}

static void print_batch_record(const batch *b, double wall_ms)
{
    report_row r;
    memset(&r, 0, sizeof r);
    r.type = "batch";
    r.images = b->list->count;
    r.written = b->written;
    r.refused = b->refused;
    r.failed = b->failed;
    r.seconds = wall_ms / 1e3;
    r.images_per_s = b->list->count / (wall_ms / 1e3);
    r.startup_ms = b->startup_ms;
    r.read_ms = b->read_ms;
    r.upload_ms = b->upload_ms;
    r.convert_ms = b->convert_ms;
    r.kernel_ms = b->kernel_ms;
    r.download_ms = b->download_ms;
    r.write_ms = b->write_ms;
    r.readers = b->n_workers; /* the pool reads and writes */
    r.lanes = b->lanes_working;
    r.writers = b->n_workers;
    (b->o->format == TC_FORMAT_CSV ? report_row_csv : report_row_json)(stdout, &r);
}

/* The single image's lines, as a plain run prints them. */
static void print_single(const batch *b)
{
    const batch_item *it = &b->list->items[0];
    if (!b->chatty || b->written != 1 || !b->dev)
        return;
    tc_options one = *b->o;
    one.input = it->input; /* the input may be a positional word, not -s */
    report_header(&one, b->dev, b->first_width, b->first_height, b->o->color ? 3 : 1,
                  &b->first_roi);
    if (it->output) {
        char what[64];
        outputs_describe(b->first_format, b->first_depth, b->o->color ? 3 : 1, what,
                         sizeof what);
        printf("output: %s (%d x %d, %s)\n", outputs_name(it->output), b->first_width,
               b->first_height, what);
    }
}

/* The batch's settings before any thread starts: sizes, the memory bound. */
static int batch_init(batch *b, const tc_options *o, const batch_list *list,
                      char requests[][64], int n_requests)
{
    memset(b, 0, sizeof *b);
    b->o = o;
    b->list = list;
    b->t0 = now_ms();
    b->age_at_start = o->timing ? process_age_ms() : -1.0;
    b->machine = o->format != TC_FORMAT_TABLE;
    b->chatty = !o->quiet && !b->machine;
    b->progress = list->count > 1 && !o->quiet && isatty(STDERR_FILENO);
    /* A quarter of the machine's memory for images in flight, at most 4 GiB;
     * TILEDCONV_BATCH_BUDGET=BYTES sets another (the tests show the bound with a small one). */
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    const char *budget = getenv("TILEDCONV_BATCH_BUDGET");
    b->budget = pages > 0 && page > 0 ? (size_t)pages * (size_t)page / 4 : (size_t)1 << 30;
    if (b->budget > ((size_t)4 << 30))
        b->budget = (size_t)4 << 30;
    if (budget && strtoull(budget, NULL, 10) > 0)
        b->budget = (size_t)strtoull(budget, NULL, 10);
    if (o->max_memory && b->budget > o->max_memory) /* --max-memory bounds the whole batch */
        b->budget = (size_t)o->max_memory;
    size_threads(b, n_requests, requests);
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->work, NULL);
    pthread_cond_init(&b->ready, NULL);
    /* Outputs that are synced go to the waiters; standard output is never synced. */
    b->syncing = !o->no_sync &&
                 !(list->items[0].output && outputs_is_stdout(list->items[0].output));
    if (b->syncing && commit_start(&b->commits, commit_mode_from_env(), b->n_waiters))
        return -1;
    if (b->syncing && b->commits.mode == COMMIT_BATCH)
        b->n_waiters = 1;
    if (!b->syncing)
        b->n_waiters = 0;
    return make_lanes(b, n_requests, requests);
}

/* Starts every thread: the workers first, so that the first reads overlap with opening the
 * devices. The OpenCL loader reads its vendor list on the first call, which is not safe from
 * several threads at once (ocl-icd): one listing here, then the lanes open their contexts in
 * parallel. */
static int batch_start(batch *b, pthread_t *workers)
{
    int count, started = 0;
    char ignored[256];
    for (int i = 0; i < b->n_workers; i++)
        if (pthread_create(&workers[started], NULL, worker_main, b) == 0)
            started++;
    if (started == 0)
        return 0; /* no lane either: nothing would take its images */
    if (b->n_lanes > 0) {
        (void)tc_list_devices(NULL, 0, &count, ignored, sizeof ignored);
        b->platforms_ms = now_ms() - b->t0;
    }
    for (int i = 0; i < b->n_lanes; i++) {
        lane *l = &b->lanes[i];
        if ((l->started = pthread_create(&l->thread, NULL, lane_main, l) == 0) || i == 0)
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
    if (b->n_lanes > 0 && !b->lanes[0].started)
        (void)lane_main(&b->lanes[0]); /* returns when no image is left to pass on */
    while (b->progress) {
        pthread_mutex_lock(&b->lock);
        const int done = b->done;
        if (done < b->list->count)
            show_progress(b);
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

/* After the last image: the folder synced, the summary, the figures. The exit status. */
static int batch_finish(batch *b, double wall_ms)
{
    const tc_options *o = b->o;
    const batch_list *list = b->list;
    if (b->n_lanes > 0 && b->lanes_working == 0) {
        /* No device: one line for the run (a bad -p or -d is a usage error). */
        if (b->progress)
            fputs("\r\033[K", stderr);
        fprintf(stderr, "tiledconv: %s%s\n", b->lanes[0].err,
                b->lanes[0].open_status == TC_EINVAL ? ", see -l" : "");
        return b->lanes[0].open_status == TC_EINVAL ? 2 : 1;
    }
    if (b->syncing && b->written > 0) {
        char dir[4096];
        const batch_item *first = &list->items[0];
        if (o->output_dir)
            snprintf(dir, sizeof dir, "%s", o->output_dir);
        else
            folder_of(first->output ? first->output : first->raw ? first->raw : ".", dir,
                      sizeof dir);
        const double t = now_ms();
        sync_folder(dir);
        b->folder_sync_ms = now_ms() - t;
    }
    print_summary(b);
    print_verdict(b);
    if (list->count == 1)
        print_single(b);
    if (o->timing && b->chatty)
        print_stages(b, wall_ms);
    if (b->machine && list->count > 1)
        print_batch_record(b, wall_ms);
    return b->failed ? 1 : b->refused ? 2 : 0;
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

int batch_run(const tc_options *o, const batch_list *list, char requests[][64], int n_requests,
              int keep_contexts)
{
    batch b;
    pthread_t *workers = NULL;
    int status = 1;
    keep_buffers();
    if (batch_init(&b, o, list, requests, n_requests) ||
        !(workers = calloc((size_t)b.n_workers, sizeof *workers))) {
        fprintf(stderr, "tiledconv: out of host memory for the batch\n");
        if (b.syncing)
            commit_finish(&b.commits);
    } else {
        if (b.machine && o->format == TC_FORMAT_CSV)
            report_row_csv_header(stdout);
        const int started = batch_start(&b, workers);
        if (started == 0) {
            fprintf(stderr, "tiledconv: no worker thread could start\n");
            b.failed = 1;
        }
        batch_wait(&b, workers, started);
        status = started ? batch_finish(&b, now_ms() - b.t0) : 1;
    }
    for (int i = 0; b.lanes && i < b.n_lanes && !keep_contexts; i++)
        tc_close(b.lanes[i].ctx);
    free(b.lanes);
    free(workers);
    pthread_mutex_destroy(&b.lock);
    pthread_cond_destroy(&b.work);
    pthread_cond_destroy(&b.ready);
    return status;
}
