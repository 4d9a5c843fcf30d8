/* batch_report.c - a batch's lines, records and figures (batch_report.h). */
#include "batch_report.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "outputs.h"
#include "report.h"

/* A record's six stage times, named alike in a job, the batch's totals and the record (a
 * macro: the two sources are different types, and it fills an initializer). */
#define STAGE_MS(from)                                                                     \
    .read_ms = (from)->read_ms, .upload_ms = (from)->upload_ms,                            \
    .convert_ms = (from)->convert_ms, .kernel_ms = (from)->kernel_ms,                      \
    .download_ms = (from)->download_ms, .write_ms = (from)->write_ms

/* One machine-readable record per image. */
static void print_record(const batch *b, const job *j)
{
    static const char *const status_words[] = {"written", "failed", "refused"};
    const report_row r = {
        .type = "image",
        .input = j->item->input,
        .output = j->item->output ? j->item->output : "",
        .status = j->status == JOB_OK && !j->item->output && !j->item->raw
                      ? "processed"
                      : status_words[j->status],
        .width = j->src.width,
        .height = j->src.height,
        .error = j->status == JOB_OK ? "" : j->msg,
        STAGE_MS(j),
        .checked = j->checked && j->status != JOB_REFUSED,
        .max_difference = j->max_error,
        .tolerance = j->tolerance,
        .sha256 = j->sha256,
        /* Which way a JPEG went, for the images written (a failed one may have stopped on
         * either). */
        .jpeg_decode = j->status == JOB_OK ? j->jpeg_decode : NULL,
        .jpeg_encode = j->status == JOB_OK ? j->jpeg_encode : NULL,
    };
    report_row_print(stdout, &r, b->o->format != TC_FORMAT_CSV);
}

/* Each image: its line on failure, -v's line, its record. */
static void say_image(const batch *b, const job *j)
{
    if (j->status != JOB_OK && j->status != JOB_NO_DEVICE) {
        if (b->progress)
            fputs("\r\033[K", stderr); /* the line goes above the progress line */
        fprintf(stderr, "tiledconv: %s\n", j->msg);
    } else if (j->status == JOB_OK && b->o->verbose && b->chatty) {
        printf("%s -> %s (%d x %d%s%.0d%s): read %.2f, upload %.2f, kernel %.3f, download %.2f, "
               "write %.2f ms\n",
               j->item->input, j->item->output ? j->item->output : "(no output)", j->src.width,
               j->src.height, j->bands ? ", in strips, " : "", j->bands,
               j->bands ? (j->bands == 1 ? " band" : " bands") : "", j->read_ms, j->upload_ms,
               j->kernel_ms, j->download_ms, j->write_ms);
    }
    if (b->machine && j->status != JOB_NO_DEVICE)
        print_record(b, j);
}

static void show_progress(const batch *b)
{
    const double s = (batch_now_ms() - b->t0) / 1e3;
    const double rate = s > 0 ? b->done / s : 0.0;
    const double left = rate > 0 ? (b->list->count - b->done) / rate : 0.0;
    fprintf(stderr, "\r\033[Ktiledconv: %d/%d images, %.0f images/s, %.0f s left", b->done,
            b->list->count, rate, left);
    fflush(stderr);
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
    const double age =
        b->age_at_start >= 0.0 ? batch_process_age_ms() + b->o->age_before_ms : -1.0;
    if (!b->o->no_filter) {
        printf("  start-up: %d images decoded before the first context was ready (%d blocks "
               "of ordinary memory on huge pages handed out before it)\n",
               b->decoded_early, b->pool.huge_made);
        printf("  page-locked memory: %llu images went up from it, %llu came down into it "
               "(no staging copy); %d blocks made (%.0f MB) in %.0f ms\n",
               b->direct_up, b->direct_down, b->pool.made, (double)b->pool.made_bytes / 1e6,
               b->pool.made_ms);
        printf("  moved into page-locked memory by idle workers, waiting for a lane: %d images "
               "(%.0f ms of the workers' time)\n",
               b->moved, b->move_ms);
        printf("  locked in place (ordinary memory of the start-up made page-locked): %d images, "
               "%d of them by the lanes before their calls (%.0f ms, summed)\n",
               b->pool.locked_in_place, b->lane_locked, b->pool.lock_ms);
    }
    if (b->age_at_start >= 0.0)
        printf("  outside the batch's clock: %.0f ms before it (the process's start, options, "
               "inputs; to 10 ms), %.1f ms after it (the folder's sync)\n",
               b->age_at_start, b->folder_sync_ms);
    if (getrusage(RUSAGE_SELF, &ru) == 0) {
        const double user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6;
        const double sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
        printf("  peak memory %.0f MB (resident); CPU time %.2f s user, %.2f s system\n",
               (double)ru.ru_maxrss / 1024.0, user, sys);
        /* Whose: the codecs' threads, the lanes' (their waits on the driver included), and the
         * rest (the driver's own threads, the copy crew, the main thread's start-up). */
        printf("  CPU time by thread: workers %.2f s, lanes %.2f s, the rest %.2f s\n",
               b->worker_cpu_ms * 1e-3, b->lane_cpu_ms * 1e-3,
               user + sys - (b->worker_cpu_ms + b->lane_cpu_ms) * 1e-3);
        printf("  the workers' waits, summed: %.2f s for work while the devices opened, %.2f s "
               "after; %.2f s for room in the memory budget\n",
               b->idle_ms[0] * 1e-3, b->idle_ms[1] * 1e-3, b->budget_wait_ms * 1e-3);
    }
    if (age >= 0.0)
        printf("  process age at this line: %.0f ms (to 10 ms; the rest of the whole process's "
               "time is its exit)\n",
               age);
}

/* The pool's workers share the codec stages, so each of those is busy against the whole pool;
 * the device stages share the lanes; the syncs, the waiters. */
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
    if (device && b->lane_calls > 0) {
        /* The staging copies' cost: on a colour JPEG row the calls with photos decoded while
         * the device opened took 5-8 times as long an image as the others. */
        const int direct = b->lane_images - b->staged_lane_images;
        printf("  lanes' calls: %d images in calls with some in ordinary memory (%.3f ms an "
               "image), %d in calls with all in page-locked memory (%.3f ms an image)\n",
               b->staged_lane_images,
               b->staged_lane_images ? b->staged_lane_ms / b->staged_lane_images : 0.0, direct,
               direct ? (b->lane_ms - b->staged_lane_ms) / direct : 0.0);
    }
    if (device && b->lane_calls > 0 && b->all_read_ms > 0)
        printf("  timeline: the first context ready at %.0f ms, the last input read at %.0f ms "
               "(%d image%s then waiting for a lane), the lanes' last call ended at %.0f ms, "
               "the batch at %.0f ms\n",
               b->startup_ms, b->all_read_ms, b->waiting_at_all_read,
               b->waiting_at_all_read == 1 ? "" : "s", b->lanes_end_ms, wall_ms);
    const double pool = (b->read_ms + b->write_ms + (device ? 0.0 : b->convert_ms)) /
                        (b->n_workers * wall_ms);
    printf("  the pool of %d worker%s (read+decode, encode+write) was busy %.0f%% of the wall "
           "time\n",
           b->n_workers, b->n_workers == 1 ? "" : "s", 100.0 * pool);
    /* The lanes' stages are parts of one thread's time each: a lane busy with all of them
     * together bounds the rate before any of them alone does. */
    const double lanes_busy = device && b->lane_calls > 0
                                  ? b->lane_ms / ((lanes > 0 ? lanes : 1) * wall_ms)
                                  : 0.0;
    if (pool >= bound_busy && pool >= lanes_busy)
        printf("  the busiest stage, which bounds the rate: the pool's codecs\n");
    else if (lanes_busy > bound_busy)
        printf("  the busiest stage, which bounds the rate: the lanes (their calls into the "
               "library, copies included)\n");
    else
        printf("  the busiest stage, which bounds the rate: %s%s\n", stages[bound].name,
               device && bound >= 1 && bound <= 5 ? " (device stages share the lanes)" : "");
    print_outside(b);
}

static void print_batch_record(const batch *b, double wall_ms)
{
    const report_row r = {
        .type = "batch",
        .images = b->list->count,
        .written = b->written,
        .refused = b->refused,
        .failed = b->failed,
        .seconds = wall_ms / 1e3,
        .images_per_s = b->list->count / (wall_ms / 1e3),
        .startup_ms = b->startup_ms,
        STAGE_MS(b),
        .readers = b->n_workers, /* the pool reads and writes */
        .lanes = b->lanes_working,
        .writers = b->n_workers,
    };
    report_row_print(stdout, &r, b->o->format != TC_FORMAT_CSV);
}

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

/* ---- The batch's reporter (batch.h) ----------------------------------------------------- */

static void on_start(const batch *b, void *arg)
{
    (void)arg;
    if (b->machine && b->o->format == TC_FORMAT_CSV)
        report_row_csv_header(stdout);
}

static void on_image(const batch *b, const job *j, void *arg)
{
    (void)arg;
    say_image(b, j);
}

static void on_note(const batch *b, int index, const char *line, void *arg)
{
    (void)arg;
    /* A device that did not open while others go on is said only where the run talks. */
    if (index < 0 && b->lanes_working > 0 && !b->chatty)
        return;
    if (b->progress)
        fputs("\r\033[K", stderr);
    fprintf(stderr, "tiledconv: %s\n", line);
}

static void on_progress(const batch *b, void *arg)
{
    (void)arg;
    show_progress(b);
}

static void on_finish(const batch *b, double wall_ms, void *arg)
{
    (void)arg;
    if (b->n_lanes > 0 && b->lanes_working == 0) {
        /* No device: one line for the run (a bad -p or -d is a usage error). */
        if (b->progress)
            fputs("\r\033[K", stderr);
        fprintf(stderr, "tiledconv: %s%s\n", b->lanes[0].err,
                b->lanes[0].open_status == TC_EINVAL ? ", see -l" : "");
        return;
    }
    print_summary(b);
    print_verdict(b);
    if (b->list->count == 1)
        print_single(b);
    if (b->o->timing && b->chatty)
        print_stages(b, wall_ms);
    if (b->machine && b->list->count > 1)
        print_batch_record(b, wall_ms);
}

static void on_contexts(const batch *b, void *arg)
{
    (void)arg;
    for (int i = 0; i < b->n_lanes; i++)
        report_build_log(b->o, b->lanes[i].ctx);
}

batch_reporter batch_reporter_cli(const tc_options *o)
{
    const batch_reporter r = {
        .start = on_start,
        .image = on_image,
        .note = on_note,
        .progress = on_progress,
        .finish = on_finish,
        .contexts = on_contexts,
        .progress_wanted = !o->quiet && isatty(STDERR_FILENO),
    };
    return r;
}
