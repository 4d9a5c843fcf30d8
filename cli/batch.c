/*
 * batch.c - the pipeline of batch.h.
 *
 *   readers (R threads)  take the next input, read it, check it, and when its pixels can be
 *                        used as they lie in the file (8-bit palette, 24- and 32-bit BMP) hand
 *                        them on as they are, else decode them: other BMPs to RGB, PNG, JPEG
 *                        and PGM/PPM to their samples (8-bit gray or RGB of full scale 255 go
 *                        on as pixels; other scales and depths become float planes here)
 *   lanes (one per context: two per GPU, one per CPU device)
 *                        tc_filter_image: the bytes go up through pinned memory, the device
 *                        forms the planes, filters, forms the 8-bit rows of the output (a
 *                        BMP's own rows, or the packed rows another format's encoder takes)
 *                        and the bytes come back into the output's buffer; float planes
 *                        come back for -e, --raw and 16-bit outputs
 *   writers (W threads)  encode each output (BMP's bytes are ready as they are), write it
 *                        under a temporary name, sync it (unless --no-sync), rename it into
 *                        place (or write it to standard output), report
 *
 * Bounded queues join the stages, and the bytes held by images in flight are bounded too, so
 * memory does not grow with the batch. A lane's device runs one image while the other lane of
 * the same device uploads or downloads another: two images in flight per device. Each image is
 * all-or-nothing: a failure anywhere gets its one line and leaves no file.
 */
#include "batch.h"

#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bmp.h"
#include "image.h"
#include "outputs.h"
#include "plan.h"
#include "queue.h"
#include "report.h"
#include "sha256.h"
#include "source.h"
#include "strips.h"
#include "text.h"
#include "tiledconv.h"
#include "verify.h"

/* The command line's names for the ROI fields, for messages. */
static const tc_roi_names flag_names = {"-sL", "-sT", "-tL", "-tT", "-W", "-H"};

enum { JOB_OK = 0, JOB_FAILED = 1, JOB_REFUSED = 2, /* the exit statuses they lead to */
       JOB_NO_DEVICE = 3 /* no device opened: one line for the whole run, none per image */ };

/* One image on its way through the pipeline. */
typedef struct {
    int index;
    const batch_item *item;
    int status;
    char msg[768];
    /* input */
    uint8_t *file;         /* the file's bytes (freed once the device has them) */
    size_t file_size;
    bmp_image decoded;     /* RGB, for files whose pixels cannot be used as they are */
    io_image image;        /* PNG, JPEG, PGM/PPM: the decoded samples */
    float *float_src;      /* samples of another scale or depth as float planes */
    int deep;              /* the input has more than 8 bits per sample */
    int depth;             /* the output image's bits per sample: 8, or 16 */
    tc_image src;
    uint8_t palette[256 * 3];
    /* output */
    uint8_t *out;          /* the output BMP, headers and rows, ready to write; or (out_pixels)
                            * the packed 8-bit rows of another format, for its encoder */
    size_t out_size;
    int out_pixels;        /* out holds packed rows for outputs_put_image, not a BMP file */
    float *planes;         /* -e, --raw: the filtered float planes */
    float *host_planes;    /* -e: the planes formed on the host, for the reference */
    int n_planes;
    tc_roi roi;
    size_t bytes;          /* what it holds, for the memory bound */
    /* times, ms */
    double read_ms, upload_ms, convert_ms, kernel_ms, download_ms, write_ms;
    /* -e: the largest difference, the tolerance, the digest of the 8-bit pixels */
    double max_error, tolerance;
    char sha256[65];
    /* too large to run whole: read, filtered and written in strips by its lane (strips.h) */
    source_reader *strips;
    int in_strips;
} job;

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
} lane;

struct batch {
    const tc_options *o;
    const batch_list *list;
    int chatty, machine, progress;
    double t0;             /* the run's start, wall ms */
    atomic_int next;       /* the next input a reader takes */
    work_queue decoded, finished;
    /* memory held by images between reading and writing */
    pthread_mutex_t lock;
    pthread_cond_t room;
    size_t inflight, budget;
    /* results, under lock */
    int done, written, refused, failed;
    double read_ms, upload_ms, convert_ms, kernel_ms, download_ms, write_ms;
    double startup_ms;     /* until the first context was ready */
    double platforms_ms;   /* of that: the OpenCL loader's platform list (every ICD loaded) */
    double build_ms;       /* the programs built, summed over the lanes */
    int n_readers, n_lanes, n_writers;
    lane *lanes;
    const tc_device_info *dev; /* the first lane's, for the single-image header */
    int first_width, first_height; /* the first image written, for that header */
    int first_depth;
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

static void job_fail(job *j, int status, const char *fmt, const char *why)
{
    text_shown shown;
    j->status = status;
    snprintf(j->msg, sizeof j->msg, fmt, text_show(source_name(j->item->input), &shown), why);
}

/* Frees what the job holds of its input. */
static void drop_input(job *j)
{
    free(j->file);
    j->file = NULL;
    bmp_free(&j->decoded);
    io_image_free(&j->image);
    free(j->float_src);
    j->float_src = NULL;
    strips_release(&j->strips);
}

static void job_free(job *j)
{
    drop_input(j);
    free(j->out);
    free(j->planes);
    free(j->host_planes);
    free(j);
}

/* ---- Memory: images in flight hold at most `budget` bytes (one image always may) -------- */

static void budget_take(batch *b, size_t bytes)
{
    pthread_mutex_lock(&b->lock);
    while (b->inflight > 0 && b->inflight + bytes > b->budget)
        pthread_cond_wait(&b->room, &b->lock);
    b->inflight += bytes;
    pthread_mutex_unlock(&b->lock);
}

static void budget_give(batch *b, size_t bytes)
{
    pthread_mutex_lock(&b->lock);
    b->inflight -= bytes;
    pthread_cond_broadcast(&b->room);
    pthread_mutex_unlock(&b->lock);
}

/* ---- Readers ----------------------------------------------------------------------------- */

/* The host bytes an image of the batch needs, from its header (the plan of plan.h, per image):
 * its bytes and its decoded samples (for a BMP the RGB of the worst case, whether or not its
 * pixels go to the device as they lie), the float planes made from samples of another scale or
 * depth, the output's bytes, and the float planes that come back for -e, --raw and 16-bit
 * outputs (twice for -e: the host's own, for the reference). */
static unsigned long long job_bytes(const tc_options *o, const job *j, const source_reader *r)
{
    const io_header *h = &r->head;
    const unsigned long long n = (unsigned long long)h->width * (unsigned long long)h->height;
    const unsigned long long planes = o->color ? 3 : 1;
    const unsigned long long floats = planes * n * sizeof(float);
    const int float_src = r->format != IO_FORMAT_BMP && !(h->depth == 8 && h->maxval == 255);
    return (unsigned long long)r->held + n * (unsigned long long)(h->channels * (h->depth / 8)) +
           (float_src ? floats : 0) + planes * n * (unsigned long long)(j->depth / 8) +
           (o->verify || j->item->raw || j->depth == 16 ? floats * (o->verify ? 2 : 1) : 0);
}

/* A PNG, JPEG or PGM/PPM: its samples decoded (and the input released); 8-bit gray or RGB of
 * full scale go to the device as pixels, any other scale or depth becomes float planes here
 * (SPEC.md: each sample v * 255 / maxval, unrounded), in the count the output needs (the
 * intensity, or R, G, B). */
static void read_coded(const tc_options *o, job *j, source_reader *r)
{
    char why[768];
    const int rc = source_reader_decode(r, &j->image, why, sizeof why);
    source_reader_close(r);
    if (rc) {
        j->status = JOB_REFUSED;
        snprintf(j->msg, sizeof j->msg, "%s", why);
        return;
    }
    const io_image *im = &j->image;
    const int w = im->width, h = im->height;
    const size_t n = (size_t)w * (size_t)h;
    if (im->depth == 8 && im->maxval == 255) {
        j->src = (tc_image){im->channels == 1 ? TC_PIXELS_GRAY8 : TC_PIXELS_RGB24, w, h, 0,
                            im->pixels, (long)w * im->channels, NULL, 0};
        j->bytes = n * (size_t)im->channels;
        return;
    }
    const int planes = o->color ? 3 : 1;
    if (!(j->float_src = malloc(n * (size_t)planes * sizeof(float)))) {
        job_fail(j, JOB_FAILED, "%s: %s", "out of host memory for the input planes");
        io_image_free(&j->image);
        return;
    }
    for (int c = 0; c < planes; c++) {
        tc_plane p = {w, h, j->float_src + (size_t)c * n};
        tc_plane_from_samples(&p, im->pixels, im->channels, im->depth, (unsigned)im->maxval,
                              o->color ? c : -1);
    }
    io_image_free(&j->image);
    j->src = (tc_image){TC_PIXELS_FLOAT32, w, h, planes, j->float_src,
                        (long)w * (long)sizeof(float), NULL, 0};
    j->bytes = n * (size_t)planes * sizeof(float);
}

/* A BMP: only the bytes its header makes meaningful are read (and the input released); its
 * pixels as they lie in the file where they can be used so, else decoded to RGB. */
static void read_bmp(job *j, source_reader *r, const io_limits *lim)
{
    char why[512];
    bmp_view v;
    const int got = source_reader_bmp_bytes(r, &j->file, &j->file_size, why, sizeof why);
    source_reader_close(r);
    if (got) {
        j->status = JOB_REFUSED;
        snprintf(j->msg, sizeof j->msg, "%s", why);
        return;
    }
    const int rc = bmp_view_pixels(j->file, j->file_size, lim, &v, why, sizeof why);
    if (rc < 0) {
        job_fail(j, JOB_REFUSED, "%s: %s", why);
        drop_input(j);
        return;
    }
    if (rc == 1) {
        static const tc_pixel_format formats[5] = {TC_PIXELS_GRAY8, TC_PIXELS_INDEXED8, 0,
                                                   TC_PIXELS_BGR24, TC_PIXELS_BGRX32};
        memcpy(j->palette, v.palette, sizeof j->palette);
        j->src = (tc_image){formats[v.bytes_per_pixel], v.width, v.height, 0,
                            (void *)v.top_row, v.stride, j->palette, v.palette_size};
        j->bytes = j->file_size;
        return;
    }
    /* 1-, 2-, 4- and 16-bit, RLE, bitfields: decoded to RGB on the host. */
    if (bmp_decode_with(j->file, j->file_size, lim, &j->decoded, why, sizeof why)) {
        job_fail(j, JOB_REFUSED, "%s: %s", why);
        drop_input(j);
        return;
    }
    free(j->file);
    j->file = NULL;
    j->src = (tc_image){TC_PIXELS_RGB24, j->decoded.width, j->decoded.height, 0, j->decoded.rgb,
                        3L * j->decoded.width, NULL, 0};
    j->bytes = (size_t)j->decoded.width * (size_t)j->decoded.height * 3;
}

/* An input of any format: the header is read and checked first, against the limits
 * (--max-pixels, the bomb ratio; devices, folders and endless streams refused), and the
 * image's host memory against what the host has now; only then are its pixels read. */
static void read_job(const tc_options *o, job *j)
{
    char why[768];
    source_reader r;
    io_limits lim;
    plan_io_limits(o, &lim);
    if (source_reader_open(j->item->input, &lim, &r, why, sizeof why)) {
        j->status = JOB_REFUSED;
        snprintf(j->msg, sizeof j->msg, "%s", why);
        return;
    }
    j->deep = r.head.maxval > 255;
    j->depth = outputs_depth(o, j->deep);
    text_shown shown;
    if (strips_wanted(o, &r, job_bytes(o, j, &r))) {
        /* Its lane reads, filters and writes it a band of rows at a time. */
        int given;
        const char *limit;
        if ((j->strips = strips_take(&r)) == NULL)
            job_fail(j, JOB_FAILED, "%s: %s", "out of host memory");
        j->in_strips = j->strips != NULL;
        /* It may take the whole budget: images in flight make room for it. */
        j->bytes = (size_t)strips_budget(o, &given, &limit);
    } else if (plan_check_host(text_show(source_name(j->item->input), &shown),
                               job_bytes(o, j, &r), why, sizeof why)) {
        j->status = JOB_FAILED;
        snprintf(j->msg, sizeof j->msg, "%s", why);
    } else if (r.format == IO_FORMAT_BMP) {
        read_bmp(j, &r, &lim);
    } else {
        read_coded(o, j, &r);
    }
    source_reader_close(&r);
}

static void *reader_main(void *arg)
{
    batch *b = arg;
    for (;;) {
        const int i = atomic_fetch_add(&b->next, 1);
        if (i >= b->list->count)
            break;
        job *j = calloc(1, sizeof *j);
        if (!j) { /* nothing to carry the failure: count it here */
            pthread_mutex_lock(&b->lock);
            b->failed++;
            b->done++;
            pthread_mutex_unlock(&b->lock);
            fprintf(stderr, "tiledconv: %s: out of host memory\n", b->list->items[i].input);
            continue;
        }
        j->index = i;
        j->item = &b->list->items[i];
        const double t = now_ms();
        read_job(b->o, j);
        j->read_ms = now_ms() - t;
        budget_take(b, j->bytes);
        queue_put(&b->decoded, j);
    }
    queue_producer_done(&b->decoded);
    return NULL;
}

/* ---- Lanes ------------------------------------------------------------------------------- */

/* The parameters for this image: the options' filter and the ROI resolved against its size. */
static int job_params(const tc_options *o, job *j, tc_params *p)
{
    tc_msg m;
    if (tc_roi_resolve(&o->roi, j->src.width, j->src.height, &flag_names, &j->roi, &m) != TC_OK) {
        job_fail(j, JOB_REFUSED, "%s: %s", m.text);
        return -1;
    }
    cli_params(o, &j->roi, p);
    return 0;
}

/* Where the filter's result goes: the rows of the output BMP (bottom-up, padded), the packed
 * top-down rows another format's encoder takes, or float planes when -e or --raw need the
 * values themselves or the output has 16 bits. 0, or -1 (job failed). */
static int prepare_output(const tc_options *o, job *j, tc_image *dst)
{
    const int w = j->src.width, h = j->src.height, colour = o->color;
    j->n_planes = colour ? 3 : 1;
    if (o->verify || j->item->raw || j->depth == 16) {
        const size_t n = (size_t)w * (size_t)h * (size_t)j->n_planes;
        if (!(j->planes = malloc(n * sizeof(float)))) {
            job_fail(j, JOB_FAILED, "%s: %s", "out of host memory for the output planes");
            return -1;
        }
        *dst = (tc_image){TC_PIXELS_FLOAT32, w, h, j->n_planes, j->planes,
                          (long)w * (long)sizeof(float), NULL, 0};
        return 0;
    }
    if (o->image_format != IO_FORMAT_BMP) {
        const size_t channels = colour ? 3 : 1;
        j->out_size = (size_t)w * (size_t)h * channels;
        if (!(j->out = malloc(j->out_size))) {
            job_fail(j, JOB_FAILED, "%s: %s", "out of host memory for the output");
            return -1;
        }
        j->out_pixels = 1;
        *dst = (tc_image){colour ? TC_PIXELS_RGB24 : TC_PIXELS_GRAY8, w, h, 0, j->out,
                          (long)w * (long)channels, NULL, 0};
        return 0;
    }
    size_t offbits, stride;
    if (bmp_layout(w, h, colour ? 24 : 8, &j->out_size, &offbits, &stride)) {
        job_fail(j, JOB_REFUSED, "%s: %s", "too large for a BMP file");
        return -1;
    }
    /* calloc: the rows' padding bytes stay zero (large blocks come zeroed from the kernel). */
    if (!(j->out = calloc(j->out_size, 1))) {
        job_fail(j, JOB_FAILED, "%s: %s", "out of host memory for the output");
        return -1;
    }
    bmp_put_headers(j->out, w, h, colour ? 24 : 8);
    /* Row 0 of the picture is the last row of the file. */
    *dst = (tc_image){colour ? TC_PIXELS_BGR24 : TC_PIXELS_GRAY8, w, h, 0,
                      j->out + offbits + stride * (size_t)(h - 1), -(long)stride, NULL, 0};
    return 0;
}

/* An image in strips (cli/strips.c): read, filtered, checked and written here, on the lane's
 * context; the writer has nothing left to do but count it. */
static void strips_job(lane *l, job *j)
{
    strips_result res;
    char err[sizeof j->msg];
    const int status = strips_run(l->b->o, l->ctx, &l->dev, j->strips, source_name(j->item->input),
                                  j->item->output, j->item->raw, 1, &res, err, sizeof err);
    strips_release(&j->strips);
    j->src.width = res.width;
    j->src.height = res.height;
    j->depth = res.depth;
    j->roi = (tc_roi){0, 0, 0, 0, res.width, res.height};
    j->upload_ms = res.upload_ms;
    j->kernel_ms = res.kernel_ms;
    j->download_ms = res.download_ms;
    j->max_error = res.max_error;
    j->tolerance = res.tolerance;
    memcpy(j->sha256, res.sha256, sizeof j->sha256);
    if (status != 0) {
        j->status = status == 2 ? JOB_REFUSED : JOB_FAILED;
        snprintf(j->msg, sizeof j->msg, "%s", err);
    }
}

static void filter_job(lane *l, job *j)
{
    const tc_options *o = l->b->o;
    tc_params p;
    tc_image dst;
    tc_stats st;
    if (j->in_strips) {
        strips_job(l, j);
        return;
    }
    if (job_params(o, j, &p) || prepare_output(o, j, &dst))
        return;
    if (o->verify) { /* the host's own planes, for the reference */
        const size_t n = (size_t)j->src.width * (size_t)j->src.height * (size_t)j->n_planes;
        char err[512];
        if (!(j->host_planes = malloc(n * sizeof(float)))) {
            job_fail(j, JOB_FAILED, "%s: %s", "out of host memory for the reference planes");
            return;
        }
        if (tc_image_to_planes(&j->src, j->n_planes, j->host_planes, err, sizeof err) != TC_OK) {
            job_fail(j, JOB_REFUSED, "%s: %s", err);
            return;
        }
    }
    const int status = tc_filter_image(l->ctx, &j->src, &dst, &p);
    if (status != TC_OK) {
        job_fail(j, status == TC_EINVAL ? JOB_REFUSED : JOB_FAILED, "%s: %s", tc_error(l->ctx));
        return;
    }
    tc_last_stats(l->ctx, &st);
    if (st.build_ms > 0.0) {
        pthread_mutex_lock(&l->b->lock);
        l->b->build_ms += st.build_ms;
        pthread_mutex_unlock(&l->b->lock);
    }
    j->upload_ms = st.upload_ms;
    j->convert_ms = st.convert_ms;
    j->kernel_ms = st.kernel_ms_median;
    j->download_ms = st.download_ms;
}

static void *lane_main(void *arg)
{
    lane *l = arg;
    batch *b = l->b;
    job *j;
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
    /* Every lane waits until all have tried, so that each knows whether any device opened. */
    pthread_mutex_lock(&b->lock);
    if (l->status == 0 && (b->startup_ms == 0.0 || l->open_ms < b->startup_ms))
        b->startup_ms = l->open_ms;
    b->lanes_working += l->status == 0;
    if (++b->lanes_opened == b->n_lanes)
        pthread_cond_broadcast(&b->room);
    while (b->lanes_opened < b->n_lanes)
        pthread_cond_wait(&b->room, &b->lock);
    const int none_opened = b->lanes_working == 0;
    pthread_mutex_unlock(&b->lock);
    /* A lane without a device takes no image: the others serve the batch. If no device
     * opened, the first lane fails every image with the reason. */
    if (l->status != 0 && !(none_opened && l == &b->lanes[0])) {
        if (l->status == 1 && !none_opened && b->chatty)
            fprintf(stderr, "tiledconv: %s: %s; the other devices go on\n", l->request, l->err);
        queue_producer_done(&b->finished);
        return NULL;
    }
    while ((j = queue_get(&b->decoded)) != NULL) {
        if (l->status != 0) {
            j->status = JOB_NO_DEVICE; /* batch_run says why, once */
        } else if (j->status == JOB_OK) {
            filter_job(l, j);
        }
        /* The device is done with the input: free it now, not after the write. */
        const size_t before = j->bytes;
        if (!b->o->verify) {
            drop_input(j);
            j->bytes = 0;
        }
        j->bytes += j->out_size + (j->planes ? (size_t)j->src.width * j->src.height * 4 *
                                                   (size_t)j->n_planes * (j->host_planes ? 2 : 1)
                                             : 0);
        /* Never waits here: the images that would free room may be behind this one. */
        pthread_mutex_lock(&b->lock);
        b->inflight = b->inflight - before + j->bytes;
        pthread_cond_broadcast(&b->room);
        pthread_mutex_unlock(&b->lock);
        queue_put(&b->finished, j);
    }
    queue_producer_done(&b->finished);
    return NULL;
}

/* ---- Writers ----------------------------------------------------------------------------- */

/* The SHA-256 of the 8-bit pixels the image gets, for -e's record (as a single run's). */
static void digest_job(const tc_options *o, job *j)
{
    const int w = j->src.width, h = j->src.height;
    const size_t n = (size_t)w * (size_t)h;
    uint8_t *bytes = malloc(n * (size_t)(j->n_planes == 3 ? 3 : 1));
    tc_plane planes[3];
    if (!bytes)
        return; /* the record says null; the image is still checked and written */
    for (int c = 0; c < j->n_planes; c++)
        planes[c] = (tc_plane){w, h, j->planes + c * n};
    if (j->n_planes == 3)
        tc_planes_to_rgb24(planes, &j->roi, o->out_scale, o->out_offset, bytes);
    else
        tc_plane_to_gray8(planes, &j->roi, o->out_scale, o->out_offset, bytes);
    sha256_hex(bytes, n * (size_t)(j->n_planes == 3 ? 3 : 1), j->sha256);
    free(bytes);
}

/* -e in a batch: every plane against its CPU reference; a mismatch fails the image. */
static void verify_job(const tc_options *o, job *j)
{
    const int w = j->src.width, h = j->src.height;
    const size_t n = (size_t)w * (size_t)h;
    tc_params p;
    char err[512];
    float *expected = malloc(n * sizeof *expected);
    if (!expected) {
        job_fail(j, JOB_FAILED, "%s: %s", "out of host memory for the reference");
        return;
    }
    job_params(o, j, &p);
    for (int c = 0; c < j->n_planes && j->status == JOB_OK; c++) {
        const tc_plane in = {w, h, j->host_planes + c * n}, got = {w, h, j->planes + c * n};
        const tc_plane want = {w, h, expected};
        if (tc_reference(in.px, expected, w, h, &p, err, sizeof err) != TC_OK) {
            job_fail(j, JOB_FAILED, "%s: %s", err);
            break;
        }
        const double tol = tc_tolerance(in.px, w, h, &p);
        const tc_verify_result v = verify_compare(&want, &got, &j->roi, tol, NULL, 0);
        j->max_error = v.max_error > j->max_error ? v.max_error : j->max_error;
        j->tolerance = tol > j->tolerance ? tol : j->tolerance;
        if (v.mismatches) {
            text_shown shown;
            j->status = JOB_FAILED;
            snprintf(j->msg, sizeof j->msg, "%s: verification FAILED: %ld mismatches%s%s "
                                            "(largest difference %.3g, tolerance %.3g)",
                     text_show(source_name(j->item->input), &shown), v.mismatches,
                     j->n_planes > 1 ? " in plane " : "",
                     j->n_planes > 1 ? (c == 0 ? "R" : c == 1 ? "G" : "B") : "", v.max_error,
                     tol);
        }
    }
    free(expected);
    if (j->status == JOB_OK)
        digest_job(o, j);
}

/* The output as the lane made it: a BMP's bytes as they are, another format's rows through
 * its encoder; staged, synced and renamed into place, or to standard output. 0, or -1. */
static int write_output(const tc_options *o, const job *j, char *err, size_t err_size)
{
    /* Each file synced, its folder not: the batch syncs its folders once, at the end (SPEC.md). */
    const int sync = o->no_sync ? OUTPUTS_SYNC_NONE : OUTPUTS_SYNC_FILE;
    if (!j->out_pixels)
        return outputs_put_bytes(j->item->output, j->out, j->out_size, sync, err, err_size);
    const io_image img = {j->src.width, j->src.height, o->color ? 3 : 1, 8, 255, j->out};
    return outputs_put_image(j->item->output, o->image_format, &img, o->quality, sync, err,
                             err_size);
}

static void write_job(const tc_options *o, job *j)
{
    char err[768];
    if (o->verify && !j->in_strips) /* strips checked their bands themselves */
        verify_job(o, j);
    if (j->status != JOB_OK)
        return;
    if (j->out && j->item->output && write_output(o, j, err, sizeof err)) {
        j->status = JOB_FAILED;
        snprintf(j->msg, sizeof j->msg, "%s", err);
        return;
    }
    if (j->planes && (j->item->output || j->item->raw)) {
        /* The float path (-e, --raw): the image from the planes on the host, like a single
         * run, with the raw file; both staged and renamed together. */
        tc_options one = *o;
        tc_plane planes[3];
        const size_t n = (size_t)j->src.width * (size_t)j->src.height;
        for (int c = 0; c < j->n_planes; c++)
            planes[c] = (tc_plane){j->src.width, j->src.height, j->planes + c * n};
        one.output = j->item->output;
        one.write_output = j->item->output != NULL;
        one.raw_output = j->item->raw;
        if (outputs_write(&one, planes, j->n_planes, &j->roi, j->depth, err, sizeof err)) {
            j->status = JOB_FAILED;
            snprintf(j->msg, sizeof j->msg, "%s", err);
        }
    }
}

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
    r.checked = b->o->verify && (j->planes != NULL || j->in_strips) && j->status != JOB_REFUSED;
    r.max_difference = j->max_error;
    r.tolerance = j->tolerance;
    r.sha256 = j->sha256;
    (b->o->format == TC_FORMAT_CSV ? report_row_csv : report_row_json)(stdout, &r);
}

/* The job's outcome: its line on failure, the counts, the figures, the record. */
static void account(batch *b, const job *j)
{
    pthread_mutex_lock(&b->lock);
    b->done++;
    if (j->status == JOB_OK) {
        if (b->written++ == 0) {
            b->first_width = j->src.width;
            b->first_height = j->src.height;
            b->first_roi = j->roi;
            b->first_depth = j->depth;
        }
        b->read_ms += j->read_ms;
        b->upload_ms += j->upload_ms;
        b->convert_ms += j->convert_ms;
        b->kernel_ms += j->kernel_ms;
        b->download_ms += j->download_ms;
        b->write_ms += j->write_ms;
    } else if (j->status == JOB_REFUSED) {
        b->refused++;
    } else if (j->status == JOB_FAILED) {
        b->failed++;
    }
    if (j->status == JOB_NO_DEVICE) {
        pthread_mutex_unlock(&b->lock);
        return;
    }
    if (j->status != JOB_OK) {
        if (b->progress)
            fputs("\r\033[K", stderr); /* the line goes above the progress line */
        fprintf(stderr, "tiledconv: %s\n", j->msg);
    } else if (b->o->verbose && b->chatty) {
        printf("%s -> %s (%d x %d): read %.2f, upload %.2f, kernel %.3f, download %.2f, write "
               "%.2f ms\n",
               j->item->input, j->item->output ? j->item->output : "(no output)", j->src.width,
               j->src.height, j->read_ms, j->upload_ms, j->kernel_ms, j->download_ms,
               j->write_ms);
    }
    if (b->machine)
        print_record(b, j);
    pthread_mutex_unlock(&b->lock);
}

static void *writer_main(void *arg)
{
    batch *b = arg;
    job *j;
    while ((j = queue_get(&b->finished)) != NULL) {
        const double t = now_ms();
        if (j->status == JOB_OK)
            write_job(b->o, j);
        j->write_ms = now_ms() - t;
        account(b, j);
        budget_give(b, j->bytes);
        job_free(j);
    }
    return NULL;
}

/* ---- The run ----------------------------------------------------------------------------- */

static int cpu_count(void)
{
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

/* The folder's entry for the renamed files on disk too: once per batch (SPEC.md). */
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

/* How many threads each stage gets, sized to the machine: reading and decoding is quick
 * from the page cache; syncing waits on the disk, which serves many flushes at once, so the
 * writers are many when they sync. */
/* Lanes (contexts) per GPU: 2 by default; TILEDCONV_LANES overrides it for the measurements
 * in BENCHMARKS.md. */
static int lanes_per_gpu(void)
{
    const char *v = getenv("TILEDCONV_LANES");
    const int n = v ? atoi(v) : 0;
    return n >= 1 && n <= 8 ? n : 2;
}

static void size_stages(batch *b, int n_requests, char requests[][64])
{
    const int cores = cpu_count(), n = b->list->count;
    b->n_readers = clamp(cores / 4, 1, 8);
    b->n_writers = b->o->no_sync ? clamp(cores / 4, 1, 8) : clamp(2 * cores, 4, 64);
    b->n_lanes = 0;
    for (int i = 0; i < n_requests; i++)
        b->n_lanes += strncmp(requests[i], "cpu", 3) == 0 ? 1 : lanes_per_gpu();
    /* Never more threads than images: one image needs one context (a second costs the
     * driver a context of its own, at start and at exit). */
    b->n_readers = clamp(b->n_readers, 1, n);
    b->n_writers = clamp(b->n_writers, 1, n);
    b->n_lanes = clamp(b->n_lanes, 1, n);
}

/* The lanes: two per requested device, except one per CPU device (it already uses every
 * core). Whether a default or indexed request is a CPU is known only once it is open: such a
 * request gets two lanes, and the second closes at once on a CPU device (see lane_main). */
static int make_lanes(batch *b, int n_requests, char requests[][64])
{
    int k = 0;
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

/* -t: the stages' times, and which one bounds the rate. */
static void print_stages(const batch *b, double wall_ms)
{
    const int n = b->written > 0 ? b->written : 1;
    const struct {
        const char *name;
        double ms;
        int threads;
    } stages[] = {{"read+decode", b->read_ms, b->n_readers},
                  {"upload", b->upload_ms, b->lanes_working},
                  {"convert (device)", b->convert_ms, b->lanes_working},
                  {"kernel", b->kernel_ms, b->lanes_working},
                  {"download", b->download_ms, b->lanes_working},
                  {"encode+write+sync", b->write_ms, b->n_writers}};
    int bound = 0;
    printf("batch: %d images in %.3f s, %.1f images/s end to end; start-up %.1f ms (the first "
           "context ready: %.1f ms the OpenCL platforms, the rest the context), programs "
           "built %.1f ms\n",
           b->list->count, wall_ms / 1e3, b->list->count / (wall_ms / 1e3), b->startup_ms,
           b->platforms_ms, b->build_ms);
    printf("  %-18s %12s %14s %8s %9s\n", "stage", "total ms", "ms per image", "threads",
           "busy");
    for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++) {
        /* busy: the share of the wall time the stage's threads spent on it */
        const double busy = stages[i].ms / (stages[i].threads * wall_ms);
        printf("  %-18s %12.1f %14.3f %8d %8.0f%%\n", stages[i].name, stages[i].ms,
               stages[i].ms / n, stages[i].threads, 100.0 * busy);
        if (busy > stages[bound].ms / (stages[bound].threads * wall_ms))
            bound = (int)i;
    }
    printf("  the busiest stage, which bounds the rate: %s (device stages share the %d lane%s)\n",
           stages[bound].name, b->lanes_working, b->lanes_working == 1 ? "" : "s");
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
    r.readers = b->n_readers;
    r.lanes = b->lanes_working;
    r.writers = b->n_writers;
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
        outputs_describe(b->o->image_format, b->first_depth, b->o->color ? 3 : 1, what,
                         sizeof what);
        printf("output: %s (%d x %d, %s)\n", outputs_name(it->output), b->first_width,
               b->first_height, what);
    }
    if (it->raw)
        printf("raw: %s (%d float32 plane%s of %d x %d, little-endian, row 0 first)\n", it->raw,
               b->o->color ? 3 : 1, b->o->color ? "s (R, G, B)" : "", b->first_width,
               b->first_height);
}

/* The batch's settings before any thread starts: sizes, the memory bound, the queues. */
static int batch_init(batch *b, const tc_options *o, const batch_list *list,
                      char requests[][64], int n_requests)
{
    memset(b, 0, sizeof *b);
    b->o = o;
    b->list = list;
    b->t0 = now_ms();
    b->machine = o->format != TC_FORMAT_TABLE;
    b->chatty = !o->quiet && !b->machine;
    b->progress = list->count > 1 && !o->quiet && isatty(STDERR_FILENO);
    atomic_init(&b->next, 0);
    /* A quarter of the machine's memory for images in flight, at most 4 GiB. */
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    b->budget = pages > 0 && page > 0 ? (size_t)pages * (size_t)page / 4 : (size_t)1 << 30;
    if (b->budget > ((size_t)4 << 30))
        b->budget = (size_t)4 << 30;
    if (o->max_memory && b->budget > o->max_memory) /* --max-memory bounds the whole batch */
        b->budget = (size_t)o->max_memory;
    size_stages(b, n_requests, requests);
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->room, NULL);
    return make_lanes(b, n_requests, requests) ||
                   queue_init(&b->decoded, 2 * b->n_lanes + b->n_readers, b->n_readers) ||
                   queue_init(&b->finished, b->n_writers + b->n_lanes, b->n_lanes)
               ? -1
               : 0;
}

/* Starts every thread. The first reads overlap with opening the devices. The OpenCL loader
 * reads its vendor list on the first call, which is not safe from several threads at once
 * (ocl-icd): one listing here, then the lanes open their contexts in parallel. */
static void batch_start(batch *b, pthread_t *threads, int *n_threads)
{
    int count;
    char ignored[256];
    for (int i = 0; i < b->n_readers; i++)
        pthread_create(&threads[(*n_threads)++], NULL, reader_main, b);
    (void)tc_list_devices(NULL, 0, &count, ignored, sizeof ignored);
    b->platforms_ms = now_ms() - b->t0;
    for (int i = 0; i < b->n_lanes; i++)
        pthread_create(&b->lanes[i].thread, NULL, lane_main, &b->lanes[i]);
    for (int i = 0; i < b->n_writers; i++)
        pthread_create(&threads[(*n_threads)++], NULL, writer_main, b);
}

/* Waits for every thread, showing the progress line meanwhile where there is one. */
static void batch_wait(batch *b, pthread_t *threads, int n_threads)
{
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
    for (int i = 0; i < n_threads; i++)
        pthread_join(threads[i], NULL);
    for (int i = 0; i < b->n_lanes; i++)
        pthread_join(b->lanes[i].thread, NULL);
    for (int i = 0; i < b->n_lanes && !b->dev; i++)
        if (b->lanes[i].status == 0)
            b->dev = &b->lanes[i].dev;
}

/* After the last image: the folder synced, the summary, the figures. The exit status. */
static int batch_finish(batch *b, double wall_ms)
{
    const tc_options *o = b->o;
    const batch_list *list = b->list;
    if (b->lanes_working == 0) {
        /* No device: one line for the run (SPEC.md: a bad -p or -d is a usage error). */
        if (b->progress)
            fputs("\r\033[K", stderr);
        fprintf(stderr, "tiledconv: %s%s\n", b->lanes[0].err,
                b->lanes[0].open_status == TC_EINVAL ? ", see -l" : "");
        return b->lanes[0].open_status == TC_EINVAL ? 2 : 1;
    }
    if (!o->no_sync && b->written > 0 &&
        !(list->items[0].output && outputs_is_stdout(list->items[0].output))) {
        char dir[4096];
        const batch_item *first = &list->items[0];
        if (o->output_dir)
            snprintf(dir, sizeof dir, "%s", o->output_dir);
        else
            folder_of(first->output ? first->output : first->raw ? first->raw : ".", dir,
                      sizeof dir);
        sync_folder(dir);
    }
    print_summary(b);
    if (list->count == 1)
        print_single(b);
    if (o->timing && b->chatty)
        print_stages(b, wall_ms);
    if (b->machine && list->count > 1)
        print_batch_record(b, wall_ms);
    return b->failed ? 1 : b->refused ? 2 : 0;
}

int batch_run(const tc_options *o, const batch_list *list, char requests[][64], int n_requests,
              int keep_contexts)
{
    batch b;
    pthread_t *threads = NULL;
    int n_threads = 0, status = 1;
    if (batch_init(&b, o, list, requests, n_requests) ||
        !(threads = calloc((size_t)(b.n_readers + b.n_writers), sizeof *threads))) {
        fprintf(stderr, "tiledconv: out of host memory for the batch\n");
    } else {
        if (b.machine && o->format == TC_FORMAT_CSV)
            report_row_csv_header(stdout);
        batch_start(&b, threads, &n_threads);
        batch_wait(&b, threads, n_threads);
        status = batch_finish(&b, now_ms() - b.t0);
    }
    for (int i = 0; b.lanes && i < b.n_lanes && !keep_contexts; i++)
        tc_close(b.lanes[i].ctx);
    free(b.lanes);
    free(threads);
    if (b.decoded.items)
        queue_destroy(&b.decoded);
    if (b.finished.items)
        queue_destroy(&b.finished);
    pthread_mutex_destroy(&b.lock);
    pthread_cond_destroy(&b.room);
    return status;
}
