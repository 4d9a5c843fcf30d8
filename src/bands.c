/* bands.c - an image filtered in bands of rows (bands.h). */
#include "bands.h"

#include <stdlib.h>
#include <string.h>

#include "channels.h"
#include "hostmem.h"
#include "pixels.h"
#include "variants.h"

/* What a CPU device keeps free for the platform beyond a run's bytes (buffers.c's reserve). */
#define BAND_PLATFORM_RESERVE (64ULL << 20)

static int radius_y_of(const tc_job *job)
{
    return (job->filter.taps_y - 1) / 2; /* a mask's height is its taps_y (filter.h) */
}

static int round_up(int v, int to)
{
    return (v + to - 1) / to * to;
}

unsigned long long tc_band_default_budget(void)
{
    tc_host_room room;
    tc_host_room_now(&room);
    return room.bytes > BAND_PLATFORM_RESERVE ? room.bytes - BAND_PLATFORM_RESERVE : 0;
}

unsigned long long tc_band_staging_bytes(int width, int rows)
{
    const int pitch = tc_device_pitch(width);
    return pitch != width ? (unsigned long long)pitch * (unsigned long long)rows * sizeof(float)
                          : 0;
}

unsigned long long tc_band_device_bytes(const tc_job *job, int width, int rows)
{
    const unsigned long long plane =
        (unsigned long long)tc_device_pitch(width) * (unsigned long long)rows * sizeof(float);
    const unsigned long long roi =
        (unsigned long long)job->roi.width * (unsigned long long)rows * sizeof(float);
    unsigned long long bytes = 2 * plane; /* input and output */
    if (job->algorithm == TC_TWOPASS)
        bytes += roi;
    if (job->algorithm == TC_TILED && tc_kernel_of(job) == TC_KERNEL_TILED_SPLIT)
        bytes += plane; /* the split variant's plane between its passes */
    if (tc_reads_image(job->algorithm, job->storage))
        bytes += plane;
    if (job->algorithm == TC_BILINEAR)
        bytes += roi;
    return bytes;
}

/* A small image of `rows` rows on this device: its largest buffer, its memory, and the host's
 * bytes (the device's own on a CPU device, the launcher's padded copy, the caller's). */
static unsigned long long band_host_bytes(const tc_device *d, const tc_job *job, int width,
                                          int rows, unsigned long long per_row,
                                          unsigned long long fixed)
{
    return (d->info.is_cpu ? tc_band_device_bytes(job, width, rows) : 0) +
           tc_band_staging_bytes(width, rows) + per_row * (unsigned long long)rows + fixed;
}

static int band_fits_device(const tc_device *d, const tc_job *job, int width, int rows)
{
    const unsigned long long plane =
        (unsigned long long)tc_device_pitch(width) * (unsigned long long)rows * sizeof(float);
    return plane <= d->info.max_alloc_bytes && 3 * plane <= d->info.global_mem_bytes &&
           tc_band_device_bytes(job, width, rows) <= d->info.global_mem_bytes;
}

int tc_bands_whole_fits(const tc_device *d, const tc_buffers *buffers, const tc_job *job,
                        int width, int height, unsigned long long budget, int budget_given)
{
    if (!band_fits_device(d, job, width, height))
        return 0;
    if (!d->info.is_cpu && !budget_given)
        return 1; /* a GPU's buffers are its own; the host adds a padded copy at most */
    if (budget_given)
        return band_host_bytes(d, job, width, height, 0, 0) <= budget;
    /* The host's room now, against what the run adds to the buffers the context holds (the
     * launcher's own check, which refuses rather than bands). */
    const int pitch = tc_device_pitch(width);
    const size_t plane = (size_t)pitch * (size_t)height * sizeof(float);
    const unsigned long long more =
        tc_new_bytes(buffers->src_bytes, plane) + tc_new_bytes(buffers->dst_bytes, plane) +
        (pitch != width ? tc_new_bytes(buffers->staging_bytes, plane) : 0) +
        (job->algorithm == TC_TWOPASS
             ? tc_new_bytes(buffers->tmp_bytes,
                            (size_t)job->roi.width * (size_t)job->roi.height * sizeof(float))
             : 0) +
        (job->algorithm == TC_TILED && tc_kernel_of(job) == TC_KERNEL_TILED_SPLIT
             ? tc_new_bytes(buffers->tmp_bytes,
                            (size_t)pitch * (size_t)job->roi.height * sizeof(float))
             : 0) +
        (tc_reads_image(job->algorithm, job->storage)
             ? tc_images_new_bytes(&buffers->images, job->algorithm, pitch, height, &job->roi)
             : 0);
    return more <= budget;
}

void tc_band_at(const tc_band_plan *plan, int k, tc_band *band)
{
    const int h = plan->roi.height;
    band->a = k * plan->rows;
    band->b = band->a + plan->rows < h ? band->a + plan->rows : h;
    if (plan->count == 1) {
        band->lo = 0;
        band->hi = h;
        return;
    }
    band->lo = band->a - plan->halo_top;
    band->hi = band->b + plan->ry;
    if (!plan->wrap) {
        band->lo = band->lo < 0 ? 0 : band->lo;
        band->hi = band->hi > h ? h : band->hi;
    }
}

int tc_band_source_row(const tc_band_plan *plan, int r)
{
    const int h = plan->roi.height;
    return r < 0 ? r + h : r >= h ? r - h : r; /* more than one band: |r| < 2h (bands.h) */
}

void tc_band_job(const tc_band_plan *plan, const tc_job *job, const tc_band *band, tc_job *out)
{
    *out = *job;
    out->roi = (tc_roi){plan->roi.src_left, 0, plan->roi.dst_left, 0, plan->roi.width,
                        band->hi - band->lo};
}

/* tiled_conv adds a column's taps in blocks of rows from the ROI's top for some lengths
 * (tc_tiled_accumulating_rows); every other kernel adds each output's taps in order. A band
 * starts on a block's first row, so that its rows sit in their blocks as in the whole run. */
static int band_align(const tc_job *job)
{
    const int block = tc_tiled_accumulating_rows(job);
    return block > 0 ? block : 1;
}

int tc_band_plan_make(const tc_device *d, const tc_job *job, int width, int height,
                      unsigned long long budget, int budget_given, unsigned long long per_row,
                      unsigned long long fixed, int max_rows, tc_band_plan *plan, tc_msg *m)
{
    const int h = job->roi.height;
    memset(plan, 0, sizeof *plan);
    /* bilinear samples a texture at coordinates counted from the image's top, whose fractions,
     * and so the weights, round differently when a row lies elsewhere: bands would change its
     * bits. */
    if (job->algorithm == TC_BILINEAR)
        return tc_fail(m, TC_EINVAL,
                       "bilinear filters whole images only (its texture coordinates, and so its "
                       "weights, depend on where a row lies in the image), and this %d x %d "
                       "image does not fit %s whole; use another algorithm",
                       width, height,
                       budget_given ? "the memory budget or the device" : "the device");
    plan->width = width;
    plan->height = height;
    plan->roi = job->roi;
    plan->ry = radius_y_of(job);
    plan->align = band_align(job);
    plan->halo_top = round_up(plan->ry, plan->align);
    /* One band: the ROI's rows, every border rule applied by the kernels themselves. */
    if ((max_rows <= 0 || max_rows >= h) && band_fits_device(d, job, width, h) &&
        band_host_bytes(d, job, width, h, per_row, fixed) <= budget) {
        plan->rows = h;
        plan->count = 1;
        plan->need = band_host_bytes(d, job, width, h, per_row, fixed);
        plan->need_rows = h;
        return TC_OK;
    }
    /* More: a band holds at least its halo above (the kept rows of the band after it read
     * that far up, and wrap reads no further than one ROI height). */
    const int wrap = job->filter.border == TC_BORDER_WRAP;
    const int least = round_up(plan->halo_top > plan->ry ? plan->halo_top : plan->ry, 1);
    const int min_rows = round_up(least > 0 ? least : 1, plan->align);
    const unsigned long long edges =
        wrap ? per_row * (unsigned long long)(plan->ry + plan->halo_top) : 0;
    const int extra = plan->halo_top + plan->ry;
    int lo = min_rows / plan->align, hi = (h + plan->align - 1) / plan->align;
    if (max_rows > 0 && max_rows < h) {
        const int cap = max_rows / plan->align;
        hi = cap > lo ? cap : lo;
    }
    if (min_rows >= h || !band_fits_device(d, job, width, min_rows + extra) ||
        band_host_bytes(d, job, width, min_rows + extra, per_row, fixed + edges) > budget) {
        const int rows = min_rows < h ? min_rows + extra : h;
        const unsigned long long need =
            band_host_bytes(d, job, width, rows, per_row, fixed + (min_rows < h ? edges : 0));
        plan->need = need;
        plan->need_rows = rows;
        if (!band_fits_device(d, job, width, rows))
            return tc_fail(m, TC_EINVAL,
                           "a band of %d rows of %d pixels needs %.1f MB of device memory, "
                           "more than %s allows (CL_DEVICE_MAX_MEM_ALLOC_SIZE %.1f MB, "
                           "CL_DEVICE_GLOBAL_MEM_SIZE %.1f MB)",
                           rows, width, tc_mb(tc_band_device_bytes(job, width, rows)),
                           d->info.name, tc_mb(d->info.max_alloc_bytes),
                           tc_mb(d->info.global_mem_bytes));
        return tc_fail(m, budget_given ? TC_EINVAL : TC_ENOMEM,
                       "even one band of %d rows of %d pixels needs %llu bytes (%.1f MB) of "
                       "host memory%s, more than the %s of %llu bytes (%.1f MB)",
                       rows, width, need, tc_mb(need),
                       d->info.is_cpu ? ", the CPU device's buffers included" : "",
                       budget_given ? "memory budget" : "memory available now", budget,
                       tc_mb(budget));
    }
    /* The most rows a band whose small image fits, by bisection (the bytes grow with the
     * rows). */
    while (lo < hi) {
        const int mid = lo + (hi - lo + 1) / 2, rows = mid * plan->align + extra;
        if (band_fits_device(d, job, width, rows) &&
            band_host_bytes(d, job, width, rows, per_row, fixed + edges) <= budget)
            lo = mid;
        else
            hi = mid - 1;
    }
    plan->rows = lo * plan->align;
    if (plan->rows >= h) { /* only with a cap at or above the height */
        plan->rows = h;
        plan->count = 1;
        plan->need = band_host_bytes(d, job, width, h, per_row, fixed);
        plan->need_rows = h;
        return TC_OK;
    }
    plan->need_rows = plan->rows + extra;
    plan->need = band_host_bytes(d, job, width, plan->need_rows, per_row, fixed + edges);
    plan->count = (h + plan->rows - 1) / plan->rows;
    plan->wrap = wrap;
    return TC_OK;
}

/* ---- Planes ----------------------------------------------------------------------------- */

/* Adds one band's figures to the total (the first band's become it, arrays included). */
static void add_band(tc_run_stats *total, tc_run_stats *one, int first)
{
    if (first) {
        *total = *one;
        memset(one, 0, sizeof *one);
        return;
    }
    tc_run_stats_add(total, one);
    for (int c = 0; c < 4; c++)
        total->classes[c] += one->classes[c];
    tc_run_stats_free(one);
}

/* The kept rows of a band (the target ROI's columns of its small image's rows a - lo on) into
 * the rows of out that the target ROI puts them in. */
static void keep_band(const tc_band_plan *plan, const tc_band *band, const float *small,
                      float *out)
{
    const size_t w = (size_t)plan->width, cols = (size_t)plan->roi.width * sizeof(float);
    for (int i = 0; i < band->b - band->a; i++)
        memcpy(out + (size_t)(plan->roi.dst_top + band->a + i) * w + (size_t)plan->roi.dst_left,
               small + (size_t)(band->a - band->lo + i) * w + (size_t)plan->roi.dst_left, cols);
}

/* The rows a wrap band reads past the ROI's top and bottom, saved before any band writes (in
 * place, the first bands' results land on the last bands' rows): the first ry rows of the
 * source ROI and the last halo_top. */
typedef struct {
    float *head, *tail;
} band_edges;

static int save_edges(const tc_band_plan *plan, const tc_plane *in, band_edges *e, tc_msg *m)
{
    const size_t w = (size_t)plan->width;
    const int h = plan->roi.height;
    e->head = malloc(((size_t)plan->ry + 1) * w * sizeof(float));
    e->tail = malloc(((size_t)plan->halo_top + 1) * w * sizeof(float));
    if (!e->head || !e->tail)
        return tc_fail(m, TC_ENOMEM, "out of host memory for the rows a wrap border reads");
    memcpy(e->head, in->px + (size_t)plan->roi.src_top * w,
           (size_t)plan->ry * w * sizeof(float));
    memcpy(e->tail, in->px + (size_t)(plan->roi.src_top + h - plan->halo_top) * w,
           (size_t)plan->halo_top * w * sizeof(float));
    return TC_OK;
}

/* Row r of a band's small image (a source row counted from the ROI's top). */
static const float *source_row(const tc_band_plan *plan, const tc_plane *in,
                               const band_edges *e, int r)
{
    const size_t w = (size_t)plan->width;
    const int h = plan->roi.height;
    if (r < 0)
        return e->tail + (size_t)(r + plan->halo_top) * w;
    if (r >= h)
        return e->head + (size_t)(r - h) * w;
    return in->px + (size_t)(plan->roi.src_top + r) * w;
}

int tc_bands_run(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
                 const tc_job *job, const tc_plane *in, tc_plane *out,
                 unsigned long long budget, int budget_given, tc_run_stats *stats, tc_msg *m)
{
    const int in_place = in->px == out->px;
    const size_t w = (size_t)in->width, row = w * sizeof(float);
    tc_band_plan plan;
    band_edges edges = {NULL, NULL};
    float *small[2] = {NULL, NULL}, *gathered = NULL;
    int status, pending = -1, done = 0;
    tc_band pending_band = {0, 0, 0, 0};

    memset(stats, 0, sizeof *stats);
    /* Per row of a small image: its result, twice in place (a band's result waits until the
     * next band has read its rows), and for wrap the rows gathered across the ROI's edges. */
    const unsigned long long per_row =
        row * (in_place ? 2u : 1u) + (job->filter.border == TC_BORDER_WRAP ? row : 0u);
    if ((status = tc_band_plan_make(d, job, in->width, in->height, budget, budget_given,
                                    per_row, 0, 0, &plan, m)) != TC_OK)
        return status;
    const int most = plan.count == 1 ? plan.roi.height : plan.rows + plan.halo_top + plan.ry;
    for (int i = 0; i < (in_place ? 2 : 1); i++)
        if (!(small[i] = malloc((size_t)most * row)))
            status = tc_fail(m, TC_ENOMEM, "out of host memory for a band of %d rows", most);
    if (status == TC_OK && plan.wrap &&
        (!(gathered = malloc((size_t)most * row)) ||
         (status = save_edges(&plan, in, &edges, m)) != TC_OK))
        status = status != TC_OK ? status
                                 : tc_fail(m, TC_ENOMEM, "out of host memory for a band");
    if (status != TC_OK)
        goto cleanup;
    /* Outside the target ROI the result is the input. */
    if (!in_place)
        memcpy(out->px, in->px, w * (size_t)in->height * sizeof(float));
    /* In place, a band's result lands on rows later bands read: the bands run away from the
     * side the target lies on (bands.h's in-place rule), each result written only once the
     * next band has read its rows. */
    const int downward = plan.roi.dst_top <= plan.roi.src_top;
    for (int i = 0; i < plan.count; i++) {
        const int k = downward ? i : plan.count - 1 - i;
        tc_band band;
        tc_job bjob;
        tc_run_stats one;
        tc_band_at(&plan, k, &band);
        const int rows = band.hi - band.lo;
        const float *src = in->px + (size_t)(plan.roi.src_top + band.lo) * w;
        if (plan.wrap && (band.lo < 0 || band.hi > plan.roi.height)) {
            for (int r = band.lo; r < band.hi; r++)
                memcpy(gathered + (size_t)(r - band.lo) * w, source_row(&plan, in, &edges, r),
                       row);
            src = gathered;
        }
        const tc_plane band_in = {in->width, rows, (float *)src};
        tc_plane band_out = {in->width, rows, small[in_place ? i % 2 : 0]};
        tc_band_job(&plan, job, &band, &bjob);
        if ((status = tc_run(d, programs, buffers, &bjob, &band_in, &band_out, 0, 1, &one, m)) !=
            TC_OK)
            goto cleanup;
        add_band(stats, &one, done++ == 0);
        if (pending >= 0)
            keep_band(&plan, &pending_band, small[pending], out->px);
        if (in_place) {
            pending = i % 2;
            pending_band = band;
        } else {
            keep_band(&plan, &band, small[0], out->px);
        }
    }
    if (pending >= 0)
        keep_band(&plan, &pending_band, small[pending], out->px);
cleanup:
    if (status != TC_OK)
        tc_run_stats_free(stats);
    free(small[0]);
    free(small[1]);
    free(gathered);
    free(edges.head);
    free(edges.tail);
    return status;
}

/* ---- Pixels ----------------------------------------------------------------------------- */

/* Rows [r0, r0 + n) of an image as an image of their own; for float planes, plane c's rows
 * (as an image of one plane). */
static tc_image rows_of(const tc_image *img, int r0, int n, int c)
{
    tc_image v = *img;
    unsigned char *base = (unsigned char *)img->data;
    if (img->format == TC_PIXELS_FLOAT32) {
        base += (long)c * img->height * img->stride;
        v.planes = 1;
    }
    v.data = base + (long)r0 * img->stride;
    v.height = n;
    return v;
}

/* Plane c (of `count`) of image rows [r0, r0 + n) into p (n rows). */
static void unpack_rows(const tc_image *src, int count, int c, int r0, int n, float *p)
{
    tc_plane plane = {src->width, n, p};
    const tc_image v = rows_of(src, r0, n, c);
    if (tc_is_channels(src->format))
        tc_channels_to_plane(&v, c, &plane);
    else
        tc_pixels_unpack(&v, src->format == TC_PIXELS_FLOAT32 ? 0 : c,
                         src->format == TC_PIXELS_FLOAT32 ? 1 : count, &plane);
}

int tc_bands_run_image(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
                       const tc_job *job, const tc_image *src, const tc_image *dst,
                       double scale, double offset, unsigned long long budget,
                       int budget_given, tc_run_stats *stats, int *planes, tc_msg *m)
{
    const int count = dst->format == TC_PIXELS_FLOAT32 || tc_is_channels(dst->format)
                          ? dst->planes
                      : dst->format == TC_PIXELS_GRAY8 ? 1
                                                       : 3;
    const size_t w = (size_t)src->width, row = w * sizeof(float);
    tc_band_plan plan;
    float *chunk = NULL, *small_in = NULL, *small_out = NULL;
    int status, done = 0;

    memset(stats, 0, sizeof *stats);
    *planes = count;
    if (src->width != dst->width || src->height != dst->height)
        return tc_fail(m, TC_EINVAL, "src is %d x %d and dst %d x %d: they must be the same size",
                       src->width, src->height, dst->width, dst->height);
    if (src->format == TC_PIXELS_FLOAT32 && src->planes != count)
        return tc_fail(m, TC_EINVAL, "src has %d float plane%s and dst asks for %d", src->planes,
                       src->planes == 1 ? "" : "s", count);
    if ((status = tc_pixels_check_indices(src, m)) != TC_OK)
        return status;
    /* Per row of a small image: its planes in and out, and the output rows of every plane. */
    if ((status = tc_band_plan_make(d, job, src->width, src->height, budget, budget_given,
                                    row * (2u + (unsigned)count), 0, 0, &plan, m)) != TC_OK)
        return status;
    const int most = plan.count == 1 ? plan.roi.height : plan.rows + plan.halo_top + plan.ry;
    const int chunk_rows = plan.rows;
    if (!(chunk = malloc((size_t)count * (size_t)chunk_rows * row)) ||
        !(small_in = malloc((size_t)most * row)) || !(small_out = malloc((size_t)most * row))) {
        status = tc_fail(m, TC_ENOMEM, "out of host memory for a band of %d rows", most);
        goto cleanup;
    }
    /* The output in chunks of rows from the top: above the target ROI, its bands, below it. */
    const int top = plan.roi.dst_top, bottom = plan.roi.dst_top + plan.roi.height;
    for (int y0 = 0; y0 < src->height;) {
        const int in_roi = y0 >= top && y0 < bottom;
        const int y1 = in_roi ? (y0 + chunk_rows < bottom ? y0 + chunk_rows : bottom)
                       : y0 < top ? (y0 + chunk_rows < top ? y0 + chunk_rows : top)
                                  : (y0 + chunk_rows < src->height ? y0 + chunk_rows
                                                                   : src->height);
        const int n = y1 - y0;
        for (int c = 0; c < count; c++) {
            float *out = chunk + (size_t)c * (size_t)chunk_rows * w;
            unpack_rows(src, count, c, y0, n, out);
            if (!in_roi)
                continue;
            tc_band band;
            tc_job bjob;
            tc_run_stats one;
            tc_band_at(&plan, (y0 - top) / plan.rows, &band);
            const int rows = band.hi - band.lo;
            for (int r = band.lo; r < band.hi; r++)
                unpack_rows(src, count, c, plan.roi.src_top + tc_band_source_row(&plan, r), 1,
                            small_in + (size_t)(r - band.lo) * w);
            const tc_plane band_in = {src->width, rows, small_in};
            tc_plane band_out = {src->width, rows, small_out};
            tc_band_job(&plan, job, &band, &bjob);
            if ((status = tc_run(d, programs, buffers, &bjob, &band_in, &band_out, 0, 1, &one,
                                 m)) != TC_OK)
                goto cleanup;
            add_band(stats, &one, done++ == 0);
            /* The kept rows into the chunk's plane, whose row 0 is image row y0. */
            tc_band_plan shifted = plan;
            shifted.roi.dst_top -= y0;
            keep_band(&shifted, &band, small_out, out);
        }
        tc_roi roi = plan.roi;
        roi.dst_top -= y0;
        if (dst->format == TC_PIXELS_FLOAT32) {
            for (int c = 0; c < count; c++) {
                const tc_plane p = {src->width, n, chunk + (size_t)c * (size_t)chunk_rows * w};
                const tc_image v = rows_of(dst, y0, n, c);
                tc_pixels_pack(&p, 1, &roi, scale, offset, &v);
            }
        } else {
            tc_plane p[4];
            for (int c = 0; c < count; c++)
                p[c] = (tc_plane){src->width, n, chunk + (size_t)c * (size_t)chunk_rows * w};
            const tc_image v = rows_of(dst, y0, n, 0);
            if (tc_is_channels(dst->format))
                tc_channels_from_planes(p, &roi, scale, offset, &v);
            else
                tc_pixels_pack(p, count, &roi, scale, offset, &v);
        }
        y0 = y1;
    }
cleanup:
    if (status != TC_OK)
        tc_run_stats_free(stats);
    free(chunk);
    free(small_in);
    free(small_out);
    return status;
}
