/* strips.c - an image filtered in strips (strips.h). */
#include "strips.h"

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "atomic_file.h"
#include "tiledconv_internal.h"
#include "outputs.h"
#include "rows.h"
#include "sha256.h"
#include "text.h"

/* The command line's names for the ROI fields, for messages. */
static const tc_roi_names flag_names = {"-sL", "-sT", "-tL", "-tT", "-W", "-H"};

/* How many mismatches -e prints before it only counts them (as verify.c). */
#define MAX_REPORTED_MISMATCHES 10

unsigned long long strips_budget(const tc_options *o, int *given, const char **limit)
{
    tc_host_room room;
    if (o->max_memory) {
        *given = 1;
        *limit = "--max-memory";
        return o->max_memory;
    }
    tc_host_room_now(&room);
    *given = 0;
    *limit = room.limit;
    return room.bytes;
}

const char *strips_refusal(const tc_options *o, int study)
{
    if (o->synth_width)
        return "-g makes its image whole";
    if (o->all_algorithms)
        return "-a all compares the algorithms on the whole image";
    if (study && (o->timing || o->iterations > 1 || o->format != TC_FORMAT_TABLE))
        return "-t, -i, --csv and --json time the whole image";
    if (o->gradient)
        return "--gradient filters whole images";
    if (o->class_map)
        return "--class-map draws the work-groups of the whole image";
    if (o->algorithm == TC_BILINEAR)
        return "bilinear's weights depend on where a row lies in the image";
    if (o->write_output && o->output && outputs_is_stdout(o->output))
        return "an image in strips is written to a file, never to standard output, which a "
               "failure half-way would leave half-written";
    return NULL;
}

int strips_needed(const tc_options *o, const run_plan *whole, const tc_device_info *dev)
{
    int given;
    const char *limit;
    const unsigned long long budget = strips_budget(o, &given, &limit);
    if (dev && (whole->plane > dev->max_alloc_bytes || whole->device > dev->global_mem_bytes))
        return 1;
    const unsigned long long host = whole->host_own + (dev ? whole->host_device : whole->device);
    return host + (given ? plan_spent() : PLAN_PLATFORM_RESERVE) > budget;
}

unsigned long long strips_device_bytes(const tc_options *o, const source_reader *in)
{
    const io_header *h = &in->head;
    const unsigned long long planes = o->color ? 3 : 1;
    return planes * 2ULL * (unsigned long long)tc_device_pitch(h->width) *
               (unsigned long long)h->height * sizeof(float) +
           2ULL * (unsigned long long)h->width * (unsigned long long)h->height * planes;
}

int strips_wanted(const tc_options *o, const source_reader *in, unsigned long long host_bytes,
                  unsigned long long room)
{
    /* The device's planes as a CPU device holds them (the batch does not know its device
     * before the image is read). */
    const unsigned long long device = strips_device_bytes(o, in);
    int given;
    const char *limit;
    if (o->max_memory) /* the batch's room for images, what the platform holds left out */
        return host_bytes + device > room;
    return host_bytes + device + PLAN_PLATFORM_RESERVE > strips_budget(o, &given, &limit);
}

source_reader *strips_take(source_reader *in)
{
    source_reader *r = malloc(sizeof *r);
    if (!r)
        return NULL;
    *r = *in;
    /* The caller's struct holds nothing now: closing it closes nothing. */
    memset(in, 0, sizeof *in);
    in->fd = -1;
    return r;
}

void strips_release(source_reader **r)
{
    if (!*r)
        return;
    source_reader_close(*r);
    free(*r);
    *r = NULL;
}

/* ---- Rows of the input, a window at a time ---------------------------------------------- */

/* Rows of the image from a row reader, in a ring of cap rows: rows [first, next) are held. */
typedef struct {
    io_row_reader *reader;
    uint8_t *ring;
    size_t row_bytes;
    int cap, first, next;
} window;

static void window_close(window *w)
{
    io_rows_close(w->reader);
    free(w->ring);
    memset(w, 0, sizeof *w);
}

/* A reader of the input with a ring of cap rows. *held: the reader's own bytes. */
static int window_open(window *w, io_format fmt, const uint8_t *data, size_t size,
                       const io_limits *lim, int luma, int cap, char *err, size_t err_size)
{
    io_header h;
    size_t held;
    memset(w, 0, sizeof *w);
    if (io_rows_open(fmt, data, size, lim, luma, &w->reader, &h, &held, err, err_size))
        return -1;
    w->row_bytes = (size_t)h.width * (size_t)h.channels * (size_t)(h.depth / 8);
    w->cap = cap;
    if (!(w->ring = malloc(w->row_bytes * (size_t)cap))) {
        window_close(w);
        snprintf(err, err_size, "out of host memory for %d rows of the input", cap);
        return -1;
    }
    return 0;
}

static const uint8_t *window_row(const window *w, int y)
{
    return w->ring + (size_t)(y % w->cap) * w->row_bytes;
}

/* Rows [lo, hi) held; lo and hi never go back from one call to the next (a reader reads
 * forward only). Rows before lo are read past. 0, or -1 with the decoder's reason. */
static int window_need(window *w, int lo, int hi, char *err, size_t err_size)
{
    if (lo > w->first)
        w->first = lo;
    while (w->next < hi) {
        if (w->next - w->first >= w->cap) {
            snprintf(err, err_size, "internal error: %d rows asked of a window of %d",
                     hi - w->first, w->cap);
            return -1;
        }
        if (io_rows_read(w->reader, w->ring + (size_t)(w->next % w->cap) * w->row_bytes, err,
                         err_size))
            return -1;
        w->next++;
    }
    return 0;
}

/* ---- One run ---------------------------------------------------------------------------- */

typedef struct {
    const tc_options *o;
    tc_context *ctx;
    const tc_device_info *dev;
    const char *name;
    FILE *report;            /* -e's mismatches, in the human-readable report; or NULL */
    /* the input */
    io_format fmt;
    int luma; /* a gray job: a JPEG's luma alone, as the whole run decodes it */
    const uint8_t *data;
    size_t size;
    io_limits lim;
    io_header head;
    window ident, src;       /* the image's rows, and the source ROI's (one window when the
                              * source and target ROIs start on the same row) */
    int shared;
    uint8_t *edges;          /* wrap: source ROI rows [0, ry), then [height - halo_top, height) */
    /* the run */
    int width, height, planes, depth;
    tc_roi roi;
    tc_params p;
    tc_band_plan plan;
    float *chunk, *small_in, *small_out, *expected;
    void *out_row;
    uint8_t *digest_row;
    float *raw_row;
    /* the outputs */
    io_row_writer *writer;
    atomic_file image, raw;
    const char *output, *raw_path;
    io_format out_format;
    int out_depth;           /* the caller's, or 0: outputs_depth's */
    unsigned long long room; /* a batch's room for the bands, or 0 (strips_output) */
    text_shown output_shown; /* the output's name as messages show it: the writer keeps it */
    sha256_ctx sha;
    strips_result *res;
    long mismatches[3];
    double max_error[3], tolerance[3];
} strip_run;

/* "NAME: reason" into err; returns status. */
static int fail(const strip_run *s, int status, const char *why, char *err, size_t err_size)
{
    text_shown shown;
    snprintf(err, err_size, "%s: %s", text_show(s->name, &shown), why);
    return status;
}

/* Plane c's values of one row of samples (the intensity, or channel c with --color). */
static void samples_to_row(const strip_run *s, const uint8_t *samples, int c, float *row)
{
    tc_plane p = {s->width, 1, row};
    tc_plane_from_samples(&p, samples, s->head.channels, s->head.depth, (unsigned)s->head.maxval,
                          s->o->color ? c : -1);
}

/* Source ROI row r (0 .. height - 1) of the input, as samples: from the window, or for wrap's
 * rows across the ROI's edges from those saved. */
static const uint8_t *source_samples(const strip_run *s, int r)
{
    const int h = s->roi.height;
    const size_t row = s->src.reader ? s->src.row_bytes : s->ident.row_bytes;
    if (r < 0)
        return s->edges + (size_t)(s->plan.ry + r + s->plan.halo_top) * row;
    if (r >= h)
        return s->edges + (size_t)(r - h) * row;
    return window_row(s->shared ? &s->ident : &s->src, s->roi.src_top + r);
}

/* Wrap across bands: the source ROI's first ry rows and last halo_top rows, read by a reader of
 * their own before the bands (the first band needs the last rows first). */
static int save_edges(strip_run *s, char *why, size_t why_size)
{
    window w;
    const int h = s->roi.height, ry = s->plan.ry, top = s->plan.halo_top;
    if (window_open(&w, s->fmt, s->data, s->size, &s->lim, s->luma, 1, why, why_size))
        return -1;
    if (!(s->edges = malloc((size_t)(ry + top) * w.row_bytes))) {
        window_close(&w);
        snprintf(why, why_size, "out of host memory for the rows a wrap border reads");
        return -1;
    }
    int rc = 0;
    for (int r = 0; rc == 0 && r < h; r++) {
        if (r >= ry && r < h - top)
            continue;
        rc = window_need(&w, s->roi.src_top + r, s->roi.src_top + r + 1, why, why_size);
        if (rc == 0)
            memcpy(s->edges + (size_t)(r < ry ? r : ry + r - (h - top)) * w.row_bytes,
                   window_row(&w, s->roi.src_top + r), w.row_bytes);
    }
    window_close(&w);
    return rc;
}

/* -e for one band of one plane: the CPU reference of its small image, the kept rows' target
 * pixels against the device's within the band's tolerance. */
static int check_band(strip_run *s, const tc_params *pb, const tc_band *band, int rows, int c,
                      char *why, size_t why_size)
{
    if (tc_reference(s->small_in, s->expected, s->width, rows, pb, why, why_size) != TC_OK)
        return -1;
    const double tol = tc_tolerance(s->small_in, s->width, rows, pb);
    if (tol > s->tolerance[c])
        s->tolerance[c] = tol;
    for (int i = 0; i < band->b - band->a; i++) {
        const size_t at = (size_t)(band->a - band->lo + i) * (size_t)s->width;
        for (int x = s->roi.dst_left; x < s->roi.dst_left + s->roi.width; x++) {
            const float e = s->expected[at + (size_t)x], a = s->small_out[at + (size_t)x];
            const double d = e == a ? 0.0 : (double)e > (double)a ? (double)e - a : (double)a - e;
            if (d > s->max_error[c] || d != d)
                s->max_error[c] = d;
            if (d <= tol)
                continue;
            if (s->report && s->mismatches[0] + s->mismatches[1] + s->mismatches[2] <
                                 MAX_REPORTED_MISMATCHES)
                fprintf(s->report, "  mismatch at (%d, %d): expected %.6f, actual %.6f\n", x,
                        s->roi.dst_top + band->a + i, e, a);
            s->mismatches[c]++;
        }
    }
    return 0;
}

/* One band of one plane: its small image from the source rows, filtered (and checked), the
 * kept rows' target pixels into the chunk's plane, whose row 0 is image row y0. Returns an exit
 * status. */
static int filter_band(strip_run *s, int k, int c, float *plane, int y0, char *why,
                       size_t why_size)
{
    tc_band band;
    tc_params pb = s->p;
    tc_stats st;
    tc_band_at(&s->plan, k, &band);
    const int rows = band.hi - band.lo;
    const size_t w = (size_t)s->width;
    for (int r = band.lo; r < band.hi; r++)
        samples_to_row(s, source_samples(s, r), c, s->small_in + (size_t)(r - band.lo) * w);
    /* The band's small image: its rows are the whole ROI's height, its columns the run's. */
    pb.src_top = pb.dst_top = 0;
    pb.roi_height = rows;
    const int status = tc_filter(s->ctx, s->small_in, s->small_out, s->width, rows, &pb);
    if (status != TC_OK) {
        snprintf(why, why_size, "%s", tc_error(s->ctx));
        return status == TC_EINVAL ? 2 : 1;
    }
    tc_last_stats(s->ctx, &st);
    s->res->kernel_ms += st.kernel_ms_median;
    s->res->upload_ms += st.upload_ms;
    s->res->download_ms += st.download_ms;
    s->res->build_ms += st.build_ms;
    if (s->o->verify && check_band(s, &pb, &band, rows, c, why, why_size))
        return 1;
    for (int i = 0; i < band.b - band.a; i++)
        memcpy(plane + (size_t)(s->roi.dst_top + band.a + i - y0) * w + (size_t)s->roi.dst_left,
               s->small_out + (size_t)(band.a - band.lo + i) * w + (size_t)s->roi.dst_left,
               (size_t)s->roi.width * sizeof(float));
    return 0;
}

/* Row i of the chunk (image row y) to the outputs: the image row in its depth, the raw planes'
 * rows, -e's digest. Returns an exit status. */
static int put_row(strip_run *s, int i, int y, char *why, size_t why_size)
{
    const size_t w = (size_t)s->width;
    tc_plane rows[3];
    tc_roi roi = s->roi;
    roi.dst_top -= y; /* the target ROI in the row's own coordinates */
    for (int c = 0; c < s->planes; c++)
        rows[c] = (tc_plane){s->width, 1, s->chunk + ((size_t)c * (size_t)s->plan.rows + i) * w};
    const double scale = s->o->out_scale, offset = s->o->out_offset;
    if (s->writer) {
        tc_planes_to_samples(rows, s->planes, s->depth, &roi, scale, offset, s->out_row);
        if (io_rows_write(s->writer, s->out_row, why, why_size))
            return 1;
    }
    if (s->o->verify) {
        tc_planes_to_samples(rows, s->planes, 8, &roi, scale, offset, s->digest_row);
        sha256_update(&s->sha, s->digest_row, w * (size_t)s->planes);
    }
    if (s->raw_path) {
        const uint32_t probe = 1;
        const int little = *(const unsigned char *)&probe == 1;
        for (int c = 0; c < s->planes; c++) {
            const off_t at = ((off_t)c * s->height + y) * (off_t)w * 4;
            memcpy(s->raw_row, rows[c].px, w * sizeof(float));
            for (size_t x = 0; !little && x < w; x++) { /* little-endian, as --raw is */
                unsigned char *b = (unsigned char *)(s->raw_row + x), t0 = b[0], t1 = b[1];
                b[0] = b[3];
                b[1] = b[2];
                b[2] = t1;
                b[3] = t0;
            }
            if ((s->planes > 1 && fseeko(s->raw.f, at, SEEK_SET) != 0) ||
                fwrite(s->raw_row, sizeof(float), w, s->raw.f) != w) {
                text_shown shown;
                snprintf(why, why_size, "%s: write error: %s", text_show(s->raw_path, &shown),
                         strerror(errno ? errno : EIO));
                return 1;
            }
        }
    }
    return 0;
}

/* The output's rows from the top, a chunk at a time: above the target ROI, its bands, below
 * it. Returns an exit status, the reason in why. */
static int run_chunks(strip_run *s, char *why, size_t why_size)
{
    const int top = s->roi.dst_top, bottom = s->roi.dst_top + s->roi.height;
    const int rows = s->plan.rows;
    const size_t w = (size_t)s->width;
    for (int y0 = 0; y0 < s->height;) {
        const int in_roi = y0 >= top && y0 < bottom;
        const int end = in_roi ? bottom : y0 < top ? top : s->height;
        const int y1 = y0 + rows < end ? y0 + rows : end;
        int status, k = 0;
        tc_band band = {0, 0, 0, 0};
        if (in_roi) {
            k = (y0 - top) / rows;
            tc_band_at(&s->plan, k, &band);
        }
        /* The source rows of the band, clamped to the ROI (wrap's others are saved). */
        const int s_lo = s->roi.src_top + (band.lo > 0 ? band.lo : 0);
        const int s_hi = s->roi.src_top + (band.hi < s->roi.height ? band.hi : s->roi.height);
        if (in_roi && s->shared)
            status = window_need(&s->ident, s_lo < y0 ? s_lo : y0, s_hi > y1 ? s_hi : y1, why,
                                 why_size);
        else
            status = window_need(&s->ident, y0, y1, why, why_size) ||
                     (in_roi && window_need(&s->src, s_lo, s_hi, why, why_size));
        if (status)
            return 2; /* the decoder's reason: the input */
        for (int c = 0; c < s->planes; c++) {
            float *plane = s->chunk + (size_t)c * (size_t)rows * w;
            for (int y = y0; y < y1; y++)
                samples_to_row(s, window_row(&s->ident, y), c, plane + (size_t)(y - y0) * w);
            if (in_roi && (status = filter_band(s, k, c, plane, y0, why, why_size)) != 0)
                return status;
        }
        for (int y = y0; y < y1; y++)
            if ((status = put_row(s, y - y0, y, why, why_size)) != 0)
                return status;
        y0 = y1;
    }
    /* Every row has been read: the checks of what follows them, as a whole decode makes. */
    return io_rows_finish(s->ident.reader, why, why_size) ? 2 : 0;
}

/* The host bytes of a band's small image row, and the run's fixed bytes, for the plan. */
static void band_bytes(const strip_run *s, size_t held_reader, unsigned long long input_held,
                       unsigned long long *per_row, unsigned long long *fixed)
{
    const unsigned long long w = (unsigned long long)s->width;
    const unsigned long long samples =
        w * (unsigned long long)s->head.channels * (unsigned long long)(s->head.depth / 8);
    /* Per row: the small image in and out (and -e's reference), the sample rows of the
     * windows, the chunk's planes. */
    *per_row = w * sizeof(float) * (2u + (s->o->verify ? 1u : 0u)) +
               samples * (s->shared ? 1u : 2u) + (unsigned long long)s->planes * w * sizeof(float);
    /* Fixed: the input's bytes, the readers and the writer, the row buffers. */
    *fixed = input_held + (unsigned long long)held_reader * (s->shared ? 1u : 2u) +
             (s->output ? io_rows_writer_bytes(s->out_format, s->width, s->height,
                                               s->planes)
                        : 0) +
             w * (unsigned long long)s->planes * 8u + ((unsigned long long)1 << 20);
}

/* The input's bytes: a coded file's whole, or a BMP's, read on to what its header makes
 * meaningful. */
static int input_bytes(strip_run *s, source_reader *in, char *err, size_t err_size)
{
    s->fmt = in->format;
    s->lim = in->lim;
    s->luma = in->luma;
    if (in->bmp_open)
        return bmp_reader_data(&in->bmp, &s->data, &s->size, err, err_size) ? 2 : 0;
    s->data = in->whole.data;
    s->size = in->whole.size;
    return 0;
}

/* The rows of the small image build_first filters: a band's fewest, about. */
#define BUILD_FIRST_ROWS 16

/* The run's programs, built by filtering a small image of zeros of the run's width through its
 * parameters, before anything of the image is allocated. Returns an exit status, the message in
 * why. */
static int build_first(strip_run *s, char *why, size_t why_size)
{
    const int rows = s->height < BUILD_FIRST_ROWS ? s->height : BUILD_FIRST_ROWS;
    const size_t n = (size_t)s->width * (size_t)rows;
    float *in = calloc(n, sizeof *in), *out = malloc(n * sizeof *out);
    tc_params pb = s->p;
    int status = 0;
    pb.src_top = pb.dst_top = 0;
    pb.roi_height = rows;
    if (!in || !out) {
        snprintf(why, why_size, "out of host memory");
        status = 1;
    } else if (tc_filter(s->ctx, in, out, s->width, rows, &pb) != TC_OK) {
        snprintf(why, why_size, "%s", tc_error(s->ctx));
        status = 1;
    }
    free(in);
    free(out);
    /* What the compiler freed goes back to the system before the plan reads what is held. */
    (void)malloc_trim(0);
    return status;
}

/* The ROI, the parameters, the plan of bands: everything before the first row is decoded.
 * Returns an exit status, the message in err. */
static int plan_run(strip_run *s, source_reader *in, char *err, size_t err_size)
{
    const tc_options *o = s->o;
    char why[768];
    tc_msg m;
    int given, status;
    const char *limit;
    io_header h;
    size_t held = 0;
    io_row_reader *probe = NULL;
    /* What a reader holds (a progressive JPEG's coefficients, an interlaced PNG whole). */
    if (io_rows_open(s->fmt, s->data, s->size, &s->lim, s->luma, &probe, &h, &held, why,
                     sizeof why))
        return fail(s, 2, why, err, err_size);
    io_rows_close(probe);
    s->head = h;
    s->width = h.width;
    s->height = h.height;
    s->planes = o->color ? 3 : 1;
    s->depth = s->out_depth ? s->out_depth : outputs_depth(o, h.maxval > 255);
    if (tc_roi_resolve(&o->roi, s->width, s->height, &flag_names, &s->roi, &m) != TC_OK) {
        snprintf(err, err_size, "%s", m.text);
        return 2;
    }
    options_params(o, &s->roi, &s->p);
    s->shared = s->roi.src_top == s->roi.dst_top;
    unsigned long long per_row, fixed;
    band_bytes(s, held, in->held, &per_row, &fixed);
    const unsigned long long total = strips_budget(o, &given, &limit);
    /* Under a given budget the programs are built first, with only the platform held: the
     * plan then counts what the build kept as a fact, and its compiler's while is over. A
     * batch's room may be less (its budget for images). */
    if (given && (status = build_first(s, why, sizeof why)) != 0)
        return fail(s, status, why, err, err_size);
    unsigned long long spent = given ? plan_spent() : PLAN_PLATFORM_RESERVE;
    if (s->room && s->room < total && total - s->room > spent)
        spent = total - s->room;
    const unsigned long long budget = total > spent ? total - spent : 0;
    status = tc_context_plan_bands(s->ctx, &s->p, s->width, s->height, budget, given, per_row,
                                   fixed, 0, &s->plan);
    s->res->budget = total;
    s->res->need = s->plan.need + spent;
    if (status == TC_OK)
        return 0;
    if (s->plan.need == 0) { /* refused for another reason than the bytes: say it as it is */
        snprintf(why, sizeof why, "%s", tc_error(s->ctx));
        return fail(s, status == TC_EINVAL ? 2 : 1, why, err, err_size);
    }
    snprintf(why, sizeof why,
             "filtered in strips, even one band of %d rows needs %llu bytes (%.1f MB: %.1f MB "
             "for its buffers%s and %.1f MB kept for the OpenCL platform%s), more than the "
             "%llu bytes (%.1f MB) %s",
             s->plan.need_rows, s->plan.need + spent, tc_mb(s->plan.need + spent),
             tc_mb(s->plan.need), s->dev->is_cpu ? ", the CPU device's among them" : "",
             tc_mb(spent), spent > PLAN_PLATFORM_RESERVE ? " and held by the process" : "",
             total, tc_mb(total), given ? "--max-memory gives" : limit);
    return fail(s, given ? 2 : 1, why, err, err_size);
}

/* The temporary file that becomes path when the strips are done (atomic_file.h); in a batch the
 * folder is synced once at its end, not per file. 1 with the reason (after prefix) in err. */
static int open_output(atomic_file *f, const char *path, int batch, const char *prefix,
                       char *err, size_t err_size)
{
    char why[768];
    if (atomic_file_open(f, path, why, sizeof why)) {
        snprintf(err, err_size, "%s%s", prefix, why);
        return 1;
    }
    if (batch)
        f->sync_folder = 0;
    return 0;
}

/* The buffers, the readers and the staged outputs. Returns an exit status. */
static int start_run(strip_run *s, int batch, char *err, size_t err_size)
{
    const tc_options *o = s->o;
    const size_t w = (size_t)s->width;
    const int most = s->plan.count == 1 ? s->roi.height
                                        : s->plan.rows + s->plan.halo_top + s->plan.ry;
    char why[768];
    if (s->plan.wrap && save_edges(s, why, sizeof why))
        return fail(s, 2, why, err, err_size);
    /* One window serves both when the source rows of a band include its target rows. */
    if (window_open(&s->ident, s->fmt, s->data, s->size, &s->lim, s->luma,
                    s->shared ? (most > s->plan.rows ? most : s->plan.rows) : s->plan.rows, why,
                    sizeof why) ||
        (!s->shared &&
         window_open(&s->src, s->fmt, s->data, s->size, &s->lim, s->luma, most, why, sizeof why)))
        return fail(s, 2, why, err, err_size);
    s->chunk = malloc((size_t)s->planes * (size_t)s->plan.rows * w * sizeof(float));
    s->small_in = malloc((size_t)most * w * sizeof(float));
    s->small_out = malloc((size_t)most * w * sizeof(float));
    s->expected = o->verify ? malloc((size_t)most * w * sizeof(float)) : NULL;
    s->out_row = malloc(w * (size_t)s->planes * 2);
    s->digest_row = malloc(w * (size_t)s->planes);
    s->raw_row = malloc(w * sizeof(float));
    if (!s->chunk || !s->small_in || !s->small_out || (o->verify && !s->expected) ||
        !s->out_row || !s->digest_row || !s->raw_row)
        return fail(s, 1, "out of host memory for the strips", err, err_size);
    if (o->verify)
        sha256_init(&s->sha);
    if (s->output) {
        if (open_output(&s->image, s->output, batch, "", err, err_size))
            return 1;
        if (io_rows_begin(s->image.f, s->out_format, s->width, s->height, s->planes, s->depth,
                          s->depth == 16 ? 65535 : 255, o->quality,
                          text_show(s->output, &s->output_shown), &s->writer, why, sizeof why)) {
            snprintf(err, err_size, "%s", why);
            return 1;
        }
    }
    if (s->raw_path && open_output(&s->raw, s->raw_path, batch, "--raw ", err, err_size))
        return 1;
    return 0;
}

/* Both outputs complete: synced, then into place (the image first, as outputs.c does). */
static int finish_outputs(strip_run *s, char *err, size_t err_size)
{
    char why[768];
    const int sync = !s->o->no_sync;
    if (s->writer && (io_rows_end(s->writer, why, sizeof why) ||
                      atomic_file_finish(&s->image, sync, why, sizeof why))) {
        snprintf(err, err_size, "-o %s", why);
        return 1;
    }
    if (s->raw_path && atomic_file_finish(&s->raw, sync, why, sizeof why)) {
        snprintf(err, err_size, "--raw %s", why);
        return 1;
    }
    if (s->writer && atomic_file_commit(&s->image, why, sizeof why)) {
        snprintf(err, err_size, "-o %s", why);
        return 1;
    }
    if (s->raw_path && atomic_file_commit(&s->raw, why, sizeof why)) {
        snprintf(err, err_size, "--raw %s", why);
        return 1;
    }
    return 0;
}

static void end_run(strip_run *s)
{
    io_rows_free(s->writer);
    atomic_file_discard(&s->image);
    atomic_file_discard(&s->raw);
    window_close(&s->ident);
    window_close(&s->src);
    free(s->edges);
    free(s->chunk);
    free(s->small_in);
    free(s->small_out);
    free(s->expected);
    free(s->out_row);
    free(s->digest_row);
    free(s->raw_row);
}

static int run_with_report(const tc_options *o, tc_context *ctx, const tc_device_info *dev,
                           source_reader *in, const char *name, const strips_output *out,
                           int batch, FILE *report, strip_run *s, strips_result *res, char *err,
                           size_t err_size)
{
    char why[768] = "";
    int status;
    const char *output = out->path;
    const char *refused = strips_refusal(o, !batch);
    *s = (strip_run){.o = o, .ctx = ctx, .dev = dev, .name = name, .report = report,
                     .output = output, .raw_path = out->raw, .out_format = out->format,
                     .out_depth = out->depth, .room = out->room, .res = res, .image = ATOMIC_FILE_INIT,
                     .raw = ATOMIC_FILE_INIT};
    memset(res, 0, sizeof *res);
    if (refused || (output && outputs_is_stdout(output))) {
        snprintf(why, sizeof why, "too large to filter whole in the memory at hand, and %s",
                 refused ? refused
                         : "an image in strips is written to a file, never to standard output");
        status = fail(s, 2, why, err, err_size);
    } else if ((status = input_bytes(s, in, why, sizeof why)) != 0) {
        snprintf(err, err_size, "%s", why);
    } else if ((status = plan_run(s, in, err, err_size)) == 0 &&
               (status = start_run(s, batch, err, err_size)) == 0) {
        if ((status = run_chunks(s, why, sizeof why)) != 0)
            fail(s, status, why, err, err_size);
    }
    res->width = s->width;
    res->height = s->height;
    res->bands = s->plan.count;
    res->rows = s->plan.rows;
    res->depth = s->depth;
    res->planes = s->planes;
    res->roi = s->roi;
    for (int c = 0; c < 3; c++) {
        res->plane_mismatches[c] = s->mismatches[c];
        res->plane_max_error[c] = s->max_error[c];
        res->plane_tolerance[c] = s->tolerance[c];
    }
    if (status == 0 && o->verify) {
        res->checked = 1;
        for (int c = 0; c < s->planes; c++) {
            res->mismatches += s->mismatches[c];
            res->max_error = s->max_error[c] > res->max_error ? s->max_error[c] : res->max_error;
            res->tolerance = s->tolerance[c] > res->tolerance ? s->tolerance[c] : res->tolerance;
        }
        sha256_final(&s->sha, res->sha256);
    }
    /* A result known to be wrong replaces no file. */
    if (status == 0 && res->mismatches) {
        snprintf(why, sizeof why, "verification FAILED: %ld mismatches (largest difference %.3g, "
                                  "tolerance %.3g)",
                 res->mismatches, res->max_error, res->tolerance);
        status = fail(s, 1, why, err, err_size);
    } else if (status == 0) {
        status = finish_outputs(s, err, err_size);
    }
    return status;
}

int strips_run(const tc_options *o, tc_context *ctx, const tc_device_info *dev,
               source_reader *in, const char *name, const strips_output *out, int batch,
               strips_result *res, char *err, size_t err_size)
{
    strip_run s;
    const int status = run_with_report(o, ctx, dev, in, name, out, batch, NULL, &s, res, err,
                                       err_size);
    end_run(&s);
    source_reader_close(in);
    return status;
}

int strips_run_reported(const tc_options *o, tc_context *ctx, const tc_device_info *dev,
                        source_reader *in, const char *name, const strips_output *out,
                        FILE *report, strips_result *res, char *err, size_t err_size)
{
    strip_run s;
    const int status = run_with_report(o, ctx, dev, in, name, out, 0, report, &s, res, err,
                                       err_size);
    end_run(&s);
    source_reader_close(in);
    return status;
}
