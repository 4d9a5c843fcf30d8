/*
 * pyramid.c - the Gaussian scale space (tiledconv.h, tc_pyramid): the plan that the header's
 * rule gives, the CPU reference and its tolerance, and the device runs: one launch per octave
 * (Pyramid.cl's pyramid_octave) or one per level (tc_filter's own kernels, through
 * launch.h's prepared launches, and pyramid_decimate).
 */
#include "pyramid.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "hostmem.h"
#include "image.h"
#include "reference.h"

TC_API const char *tc_pyramid_launch_name(tc_pyramid_launch l)
{
    return l == TC_PYRAMID_PER_OCTAVE ? "per-octave" : l == TC_PYRAMID_PER_LEVEL ? "per-level"
                                                                                 : "?";
}

/* The largest sigma whose Gaussian fits TC_MAX_TAPS: round(6 sigma + 1) | 1 <= 63. */
#define MAX_SIGMA ((TC_MAX_TAPS - 0.5) / 6.0)

/* Level j's blur relative to sigma0 in its octave's pixels, k^j = 2^(j/L). */
static double scale_of(int j, int levels)
{
    return pow(2.0, (double)j / (double)levels);
}

/* The Gaussian that makes level j (j = L: the feed) of octave K from its base: the total blur
 * sigma0 k^j for octave 0 (the input taken as sharp), else the increment over the base's
 * sigma0, sigma0 sqrt(k^2j - 1); 0 for the base itself. */
static double applied_sigma(double sigma0, int octave, int j, int levels)
{
    if (octave == 0)
        return sigma0 * scale_of(j, levels);
    return j == 0 ? 0.0 : sigma0 * sqrt(pow(2.0, 2.0 * j / levels) - 1.0);
}

/* What names a slice in messages: "level (K, j)" or "the image that makes octave K + 1". */
static const char *slice_name(int octave, int j, int levels, char *buf, size_t size)
{
    if (j == levels)
        snprintf(buf, size, "the image at blur 2 sigma0 that makes octave %d", octave + 1);
    else
        snprintf(buf, size, "level (%d, %d)", octave, j);
    return buf;
}

int tc_pyramid_plan_make(int width, int height, const tc_pyramid_params *p,
                         tc_pyramid_plan *plan, tc_msg *m)
{
    char name[96];
    if (!p)
        return tc_fail(m, TC_EINVAL, "params is NULL");
    const int status = tc_check_size(width, height, "image", m);
    if (status != TC_OK)
        return status;
    if ((long long)tc_device_pitch(width) * height > 0x7fffffffLL)
        return tc_fail(m, TC_EINVAL, "image %d x %d: more pixels than the kernels can index "
                                     "(2^31 with rows padded to %d floats)",
                       width, height, tc_device_pitch(width));
    if (p->octaves < 1 || p->octaves > TC_PYRAMID_MAX_OCTAVES || p->levels < 1 ||
        p->levels > TC_PYRAMID_MAX_LEVELS)
        return tc_fail(m, TC_EINVAL, "%d octaves of %d levels: octaves must be 1..%d, levels "
                                     "1..%d",
                       p->octaves, p->levels, TC_PYRAMID_MAX_OCTAVES, TC_PYRAMID_MAX_LEVELS);
    if (!(p->sigma > 0.0) || !isfinite(p->sigma))
        return tc_fail(m, TC_EINVAL, "sigma %g: sigma0 must be a finite number above 0",
                       p->sigma);
    if (p->sigma < TC_MIN_SIGMA)
        return tc_fail(m, TC_EINVAL,
                       "sigma %g: too small; the smallest is %g (below it sigma^2 underflows "
                       "and the Gaussian's weights are not finite)",
                       p->sigma, TC_MIN_SIGMA);
    if ((int)p->border < 0 || p->border >= TC_BORDER_COUNT)
        return tc_fail(m, TC_EINVAL, "border %d: not a tc_border value", (int)p->border);
    if (!isfinite(p->border_value) || fabsf(p->border_value) > 1e30f)
        return tc_fail(m, TC_EINVAL, "border_value is not a finite number of at most 1e30");
    if ((int)p->launch < 0 || p->launch > TC_PYRAMID_PER_LEVEL)
        return tc_fail(m, TC_EINVAL, "launch %d: not a tc_pyramid_launch value", (int)p->launch);

    memset(plan, 0, sizeof *plan);
    plan->octaves = p->octaves;
    plan->levels = p->levels;
    plan->sigma0 = p->sigma;
    plan->border = p->border;
    plan->border_value = p->border_value;
    plan->launch = p->launch;
    int w = width, h = height;
    for (int k = 0; k < p->octaves; k++) {
        tc_pyramid_octave *oc = &plan->octave[k];
        if (k > 0 && (w < 2 || h < 2)) {
            int most = 1;
            for (int a = width, b = height; a >= 2 && b >= 2; a = (a + 1) / 2, b = (b + 1) / 2)
                most++;
            return tc_fail(m, TC_EINVAL,
                           "%d octaves: octave %d would be made from octave %d, which is %d x "
                           "%d: a side of 1 pixel does not halve; a %d x %d image takes at "
                           "most %d octaves (O octaves need min(W, H) > 2^(O - 2))",
                           p->octaves, k, k - 1, w, h, width, height, most);
        }
        if (k > 0) {
            w = (w + 1) / 2;
            h = (h + 1) / 2;
        }
        oc->width = w;
        oc->height = h;
        oc->feed = -1;
        const int last = k == p->octaves - 1 ? p->levels - 1 : p->levels;
        for (int j = k == 0 ? 0 : 1; j <= last; j++) {
            tc_pyramid_slice *s = &oc->slice[oc->slices];
            s->level = j;
            s->sigma = applied_sigma(p->sigma, k, j, p->levels);
            s->taps = tc_gauss_taps(s->sigma);
            if (s->taps > TC_MAX_TAPS)
                return tc_fail(m, TC_EINVAL,
                               "sigma0 %g: %s needs a Gaussian of sigma %.4g, %d taps; the "
                               "longest is %d taps (sigma below %.4g)%s",
                               p->sigma, slice_name(k, j, p->levels, name, sizeof name),
                               s->sigma, s->taps, TC_MAX_TAPS, MAX_SIGMA,
                               p->octaves > 1 ? ": sigma0 must stay below 5.208 with two octaves "
                                                "or more (2 sigma0 makes the next octave)"
                                              : "");
            tc_gauss_coefficients(s->taps, s->sigma, s->k);
            /* Whatever the sigma, no weight may leave the library as NaN or infinity. */
            for (int i = 0; i < s->taps; i++)
                if (!isfinite(s->k[i]))
                    return tc_fail(m, TC_EINVAL,
                                   "sigma0 %g: %s's Gaussian (sigma %g) has weight %d not "
                                   "finite",
                                   p->sigma, slice_name(k, j, p->levels, name, sizeof name),
                                   s->sigma, i);
            tc_job job;
            tc_pyramid_slice_job(plan, k, s, &job);
            s->acc_rows = tc_tiled_accumulating_rows(&job);
            if (s->acc_rows != 0 && s->acc_rows != 8) /* Pyramid.cl's P_ACC_BLOCK */
                return tc_fail(m, TC_EDEVICE, "the pyramid's kernel sums in tiled_conv's order "
                                              "for blocks of 8 rows, not %d", s->acc_rows);
            if (j == p->levels)
                oc->feed = oc->slices;
            oc->slices++;
        }
    }
    return TC_OK;
}

void tc_pyramid_plan_level(const tc_pyramid_plan *plan, int octave, int level,
                           tc_pyramid_level *out)
{
    const tc_pyramid_octave *oc = &plan->octave[octave];
    memset(out, 0, sizeof *out);
    out->octave = octave;
    out->level = level;
    out->width = oc->width;
    out->height = oc->height;
    out->sigma = plan->sigma0 * scale_of(level, plan->levels);
    out->sigma_input = out->sigma * ldexp(1.0, octave);
    out->sigma_applied = applied_sigma(plan->sigma0, octave, level, plan->levels);
    out->taps = out->sigma_applied > 0.0 ? tc_gauss_taps(out->sigma_applied) : 1;
}

void tc_pyramid_slice_job(const tc_pyramid_plan *plan, int octave, const tc_pyramid_slice *s,
                          tc_job *job)
{
    const tc_pyramid_octave *oc = &plan->octave[octave];
    memset(job, 0, sizeof *job);
    job->algorithm = TC_TILED;
    job->filter.taps_x = job->filter.taps_y = s->taps;
    memcpy(job->filter.kx, s->k, sizeof job->filter.kx);
    memcpy(job->filter.ky, s->k, sizeof job->filter.ky);
    job->filter.border = plan->border;
    job->filter.border_value = plan->border_value;
    job->roi.width = oc->width;
    job->roi.height = oc->height;
    job->block_x = TC_TILED_BLOCK_X;
    job->block_y = TC_TILED_BLOCK_Y;
    job->vector_io = 1;
}

/* ---- The reference and its tolerance ----------------------------------------------------- */

/* dst (w' x h', the next octave) = src's even rows and columns (src w x h). */
static void decimate(const float *src, int w, float *dst, int next_w, int next_h)
{
    for (int y = 0; y < next_h; y++)
        for (int x = 0; x < next_w; x++)
            dst[(size_t)y * next_w + x] = src[(size_t)(2 * y) * w + 2 * x];
}

int tc_pyramid_plan_reference(const tc_pyramid_plan *plan, const float *src,
                              float *const *levels, tc_msg *m)
{
    const int L = plan->levels;
    const float *base = src;
    float *feed = NULL;
    if (plan->octaves > 1 &&
        !(feed = malloc((size_t)plan->octave[0].width * plan->octave[0].height * sizeof *feed)))
        return tc_fail(m, TC_ENOMEM, "out of host memory for the reference's feed image");
    for (int k = 0; k < plan->octaves; k++) {
        const tc_pyramid_octave *oc = &plan->octave[k];
        const tc_plane in = {oc->width, oc->height, (float *)base};
        for (int i = 0; i < oc->slices; i++) {
            const tc_pyramid_slice *s = &oc->slice[i];
            tc_job job;
            tc_pyramid_slice_job(plan, k, s, &job);
            tc_plane out = {oc->width, oc->height, i == oc->feed ? feed : levels[k * L + s->level]};
            reference_convolve(&in, &job.roi, &job.filter, &out); /* never in place here */
        }
        if (oc->feed >= 0) {
            const tc_pyramid_octave *next = &plan->octave[k + 1];
            decimate(feed, oc->width, levels[(k + 1) * L], next->width, next->height);
            base = levels[(k + 1) * L];
        }
    }
    free(feed);
    return TC_OK;
}

/* The Gaussian's gain, sum|k| twice over (kx = ky). */
static double gain_of(const tc_pyramid_slice *s)
{
    double sum = 0.0;
    for (int i = 0; i < s->taps; i++)
        sum += fabs((double)s->k[i]);
    return sum * sum;
}

void tc_pyramid_plan_tolerance(const tc_pyramid_plan *plan, const float *src,
                               double *tolerance)
{
    const int L = plan->levels;
    const size_t n = (size_t)plan->octave[0].width * plan->octave[0].height;
    const double value = fabs((double)plan->border_value);
    /* bound: the largest |value| a base can hold (each octave's is the last one's through a
     * Gaussian: its gain times the larger of that and the constant border's value); carried:
     * how far the device's base may be from the reference's. Level (K, j) may then differ by
     * tc_tolerance's bound for its Gaussian on a base of that size, plus the Gaussian's gain
     * times what the base carries; the next octave's base by the feed's. */
    double bound = 0.0, carried = 0.0;
    for (size_t i = 0; i < n; i++)
        if (fabs((double)src[i]) > bound)
            bound = fabs((double)src[i]);
    for (int k = 0; k < plan->octaves; k++) {
        const tc_pyramid_octave *oc = &plan->octave[k];
        const double in = (bound > value ? bound : value) + carried;
        if (k > 0)
            tolerance[k * L] = carried > 0.0 ? carried : FLT_MIN;
        double next_carried = 0.0, next_bound = 0.0;
        for (int i = 0; i < oc->slices; i++) {
            const tc_pyramid_slice *s = &oc->slice[i];
            const double gain = gain_of(s);
            const double own = 2.0 * (2 * s->taps) * FLT_EPSILON * in * gain;
            const double t = own + gain * carried;
            if (i == oc->feed) {
                next_carried = t;
                next_bound = gain * (bound > value ? bound : value);
            } else {
                tolerance[k * L + s->level] = t > 0.0 ? t : FLT_MIN;
            }
        }
        carried = next_carried;
        bound = next_bound;
    }
}

/* ---- On the device ----------------------------------------------------------------------- */

void tc_pyramid_buffers_release(tc_pyramid_buffers *b)
{
    for (int k = 0; k < TC_PYRAMID_MAX_OCTAVES; k++) {
        for (int j = 0; j < TC_PYRAMID_MAX_LEVELS; j++)
            if (b->level[k][j])
                clReleaseMemObject(b->level[k][j]);
        if (b->coeffs[k])
            clReleaseMemObject(b->coeffs[k]);
    }
    if (b->feed)
        clReleaseMemObject(b->feed);
    if (b->input)
        clReleaseMemObject(b->input);
    free(b->staging);
    memset(b, 0, sizeof *b);
}

void tc_pyramid_run_stats_free(tc_pyramid_run_stats *s)
{
    free(s->kernel_ms);
    memset(s, 0, sizeof *s);
}

static size_t plane_bytes(int width, int height)
{
    return (size_t)tc_device_pitch(width) * (size_t)height * sizeof(float);
}

/* Every plane fits the device, and all of them its memory (and, on a CPU device, the host's
 * room): input, the O x L levels and the per-level path's feed image. */
static int check_room(const tc_device *d, const tc_pyramid_plan *plan, tc_msg *m)
{
    const tc_pyramid_octave *o0 = &plan->octave[0];
    unsigned long long total = 2ULL * plane_bytes(o0->width, o0->height); /* input, feed */
    for (int k = 0; k < plan->octaves; k++)
        total += (unsigned long long)plan->levels *
                 plane_bytes(plan->octave[k].width, plan->octave[k].height);
    if (plane_bytes(o0->width, o0->height) > d->info.max_alloc_bytes)
        return tc_fail(m, TC_EINVAL,
                       "a %d x %d plane needs %.1f MB in one buffer, more than the %.1f MB %s "
                       "allows (CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                       o0->width, o0->height, tc_mb(plane_bytes(o0->width, o0->height)),
                       tc_mb(d->info.max_alloc_bytes), d->info.name);
    if (total > d->info.global_mem_bytes)
        return tc_fail(m, TC_EINVAL,
                       "a pyramid of %d x %d levels from a %d x %d image needs %.1f MB of "
                       "device memory (the input, every level, a feed image), more than the "
                       "%.1f MB %s has (CL_DEVICE_GLOBAL_MEM_SIZE)",
                       plan->octaves, plan->levels, o0->width, o0->height, tc_mb(total),
                       tc_mb(d->info.global_mem_bytes), d->info.name);
    return TC_OK;
}

static int make_buffer(const tc_device *d, cl_mem *mem, size_t bytes, cl_mem_flags flags,
                       const char *what, tc_msg *m)
{
    cl_int err;
    *mem = clCreateBuffer(d->context, flags, bytes, NULL, &err);
    if (err != CL_SUCCESS) {
        *mem = NULL;
        return cl_fail(m, err, what);
    }
    return TC_OK;
}

/* The buffers for this plan: kept when they were made for the same sizes. */
static int ensure_buffers(const tc_device *d, tc_pyramid_buffers *b, const tc_pyramid_plan *plan,
                          tc_msg *m)
{
    const tc_pyramid_octave *o0 = &plan->octave[0];
    const size_t coeff_bytes = TC_PYRAMID_MAX_SLICES * 64 * sizeof(float);
    int status;
    if (b->width == o0->width && b->height == o0->height && b->octaves == plan->octaves &&
        b->levels == plan->levels)
        return TC_OK;
    tc_pyramid_buffers_release(b);
    unsigned long long total = 2ULL * plane_bytes(o0->width, o0->height);
    for (int k = 0; k < plan->octaves; k++)
        total += (unsigned long long)plan->levels *
                 plane_bytes(plan->octave[k].width, plan->octave[k].height);
    if ((status = tc_check_host_room(d, total, "the pyramid's planes", m)) != TC_OK)
        return status;
    if ((status = make_buffer(d, &b->input, plane_bytes(o0->width, o0->height),
                              CL_MEM_READ_ONLY, "clCreateBuffer(pyramid input)", m)) != TC_OK)
        goto fail;
    if (plan->octaves > 1 &&
        (status = make_buffer(d, &b->feed, plane_bytes(o0->width, o0->height),
                              CL_MEM_READ_WRITE, "clCreateBuffer(pyramid feed)", m)) != TC_OK)
        goto fail;
    for (int k = 0; k < plan->octaves; k++) {
        const tc_pyramid_octave *oc = &plan->octave[k];
        for (int j = 0; j < plan->levels; j++)
            if ((status = make_buffer(d, &b->level[k][j], plane_bytes(oc->width, oc->height),
                                      CL_MEM_READ_WRITE, "clCreateBuffer(pyramid level)", m)) !=
                TC_OK)
                goto fail;
        if ((status = make_buffer(d, &b->coeffs[k], coeff_bytes, CL_MEM_READ_ONLY,
                                  "clCreateBuffer(pyramid coefficients)", m)) != TC_OK)
            goto fail;
    }
    b->staging_bytes = plane_bytes(o0->width, o0->height);
    if (!(b->staging = calloc(1, b->staging_bytes))) {
        status = tc_fail(m, TC_ENOMEM, "out of host memory for the padded plane");
        goto fail;
    }
    b->width = o0->width;
    b->height = o0->height;
    b->octaves = plan->octaves;
    b->levels = plan->levels;
    return TC_OK;
fail:
    tc_pyramid_buffers_release(b);
    return status;
}

/* The input plane into b->input with the device's row pitch (through the staging copy, whose
 * padding is zeros: oclgrind counts a rectangle write as no initialisation). */
static int upload(const tc_device *d, tc_pyramid_buffers *b, const float *src, int width,
                  int height, double *ms, tc_msg *m)
{
    const int pitch = tc_device_pitch(width);
    cl_event event = NULL;
    int status = TC_OK;
    memset(b->staging, 0, b->staging_bytes);
    for (int y = 0; y < height; y++)
        memcpy(b->staging + (size_t)y * pitch, src + (size_t)y * width,
               (size_t)width * sizeof(float));
    CL_CALL(status, cleanup, m,
            clEnqueueWriteBuffer(d->queue, b->input, CL_TRUE, 0, plane_bytes(width, height),
                                 b->staging, 0, NULL, &event));
    status = tc_event_ms(event, ms, m);
cleanup:
    if (event)
        clReleaseEvent(event);
    return status;
}

/* One level back into the caller's packed plane; *ms grows by the read's time. */
static int download(const tc_device *d, tc_pyramid_buffers *b, cl_mem mem, float *dst,
                    int width, int height, double *ms, tc_msg *m)
{
    const int pitch = tc_device_pitch(width);
    cl_event event = NULL;
    double t = 0.0;
    int status = TC_OK;
    CL_CALL(status, cleanup, m,
            clEnqueueReadBuffer(d->queue, mem, CL_TRUE, 0, plane_bytes(width, height),
                                b->staging, 0, NULL, &event));
    for (int y = 0; y < height; y++)
        memcpy(dst + (size_t)y * width, b->staging + (size_t)y * pitch,
               (size_t)width * sizeof(float));
    if ((status = tc_event_ms(event, &t, m)) == TC_OK)
        *ms += t;
cleanup:
    if (event)
        clReleaseEvent(event);
    return status;
}

/* The launches of one pyramid, prepared: the per-octave kernels, or the per-level path's
 * filter launches and decimations. */
#define MAX_LAUNCHES (TC_PYRAMID_MAX_OCTAVES * (TC_PYRAMID_MAX_SLICES + 1))
typedef struct {
    int count;
    struct {
        cl_kernel kernel;  /* pyramid_octave or pyramid_decimate; NULL for a prepared filter */
        tc_launch filter;  /* the per-level path's filter launches */
        cl_uint dims;
        size_t global[3], local[3];
    } item[MAX_LAUNCHES];
} launch_list;

static void launches_release(launch_list *l)
{
    for (int i = 0; i < l->count; i++) {
        if (l->item[i].kernel)
            clReleaseKernel(l->item[i].kernel);
        tc_launch_release(&l->item[i].filter);
    }
    l->count = 0;
}

static int kernel_of(const tc_device *d, tc_program_cache *programs, const char *options,
                     const char *name, cl_kernel *kernel, double *build_ms, tc_msg *m)
{
    cl_program program;
    cl_int err;
    double ms = 0.0;
    int status = tc_program_get(programs, d, TC_SOURCE_PYRAMID, options, &program, &ms, m);
    *build_ms += ms;
    if (status != TC_OK)
        return status;
    *kernel = clCreateKernel(program, name, &err);
    if (err != CL_SUCCESS) {
        *kernel = NULL;
        char what[64];
        snprintf(what, sizeof what, "clCreateKernel(%s)", name);
        return cl_fail(m, err, what);
    }
    return TC_OK;
}

/* An environment knob for kernel studies (bench/): the per-octave tile's height, 64..256. */
static int tile_height(const tc_device *d, int rmax)
{
    const char *text = getenv("TILEDCONV_PYRAMID_TILE_H");
    int th = TC_LONG_TILE_H;
    if (text && (strcmp(text, "64") == 0 || strcmp(text, "128") == 0))
        th = atoi(text);
    /* Halved while the filtered rows do not fit the device's local memory; a work-item's
     * column stays a multiple of 8 rows (tiled_conv's accumulating blocks). */
    while ((unsigned long long)(th + 2 * rmax) * TC_LONG_TILE_W * 4ULL > d->info.local_mem_bytes &&
           th > 64)
        th /= 2;
    return th;
}

static int prepare_octave(const tc_device *d, tc_program_cache *programs, tc_pyramid_buffers *b,
                          const tc_pyramid_plan *plan, int k, launch_list *list,
                          double *build_ms, tc_msg *m)
{
    const tc_pyramid_octave *oc = &plan->octave[k];
    const int pitch = tc_device_pitch(oc->width);
    float coeffs[TC_PYRAMID_MAX_SLICES * 64];
    char options[1024];
    int rmax = 0, used, status;
    for (int i = 0; i < oc->slices; i++)
        if ((oc->slice[i].taps - 1) / 2 > rmax)
            rmax = (oc->slice[i].taps - 1) / 2;
    const int th = tile_height(d, rmax);
    /* A knob for kernel studies (bench/pyramid.sh): the slices of one tile one after another
     * in the dispatch order, rather than slice after slice (Pyramid.cl, PYR_INTERLEAVE). */
    const char *interleave = getenv("TILEDCONV_PYRAMID_INTERLEAVE");
    used = snprintf(options, sizeof options,
                    "-cl-std=CL1.2 -D RADIUS_X=%d -D RADIUS_Y=%d -D BORDER=%d -D BLOCK_X=%d "
                    "-D BLOCK_Y=8 -D TC_VECTOR_IO=1 -D SHIFT=0 -D LONG_TILE_W=%d "
                    "-D LONG_TILE_H=%d -D PYR_SLICES=%d -D PYR_FEED=%d -D PYR_INTERLEAVE=%d",
                    rmax, rmax, (int)plan->border, TC_LONG_JOB_W, TC_LONG_TILE_W, th,
                    oc->slices, oc->feed, interleave && strcmp(interleave, "1") == 0);
    for (int i = 0; i < TC_PYRAMID_MAX_SLICES; i++)
        used += snprintf(options + used, sizeof options - (size_t)used,
                         " -D PYR_R%d=%d -D PYR_ACC%d=%d", i,
                         i < oc->slices ? (oc->slice[i].taps - 1) / 2 : 0, i,
                         i < oc->slices && oc->slice[i].acc_rows ? 1 : 0);
    memset(coeffs, 0, sizeof coeffs);
    for (int i = 0; i < oc->slices; i++)
        memcpy(coeffs + 64 * i, oc->slice[i].k, sizeof oc->slice[i].k);

    const int n = list->count;
    if ((status = kernel_of(d, programs, options, "pyramid_octave", &list->item[n].kernel,
                            build_ms, m)) != TC_OK)
        return status;
    list->count++;
    const size_t local[2] = {TC_LONG_TILE_W / TC_LONG_JOB_W,
                             256 / (TC_LONG_TILE_W / TC_LONG_JOB_W)};
    if ((status = tc_check_launch(d, list->item[n].kernel, "the per-octave pyramid kernel",
                                  local, m)) != TC_OK)
        return status;
    const size_t tiles[2] = {(size_t)((oc->width + TC_LONG_TILE_W - 1) / TC_LONG_TILE_W),
                             (size_t)((oc->height + th - 1) / th)};
    const int first = interleave && strcmp(interleave, "1") == 0; /* the slice first */
    if (first && local[1] > d->max_item_sizes[2])
        return tc_fail(m, TC_EDEVICE, "TILEDCONV_PYRAMID_INTERLEAVE=1 needs work-groups of 1 x "
                                      "%zu x %zu, but %s allows %zu work-items along the third "
                                      "dimension",
                       local[0], local[1], d->info.name, d->max_item_sizes[2]);
    list->item[n].dims = 3;
    for (int i = 0; i < 3; i++) {
        /* (tiles x, tiles y, slices), or (slices, tiles x, tiles y) with the slice first. */
        const int dim = first ? (i + 1) % 3 : i;
        list->item[n].local[dim] = i < 2 ? local[i] : 1;
        list->item[n].global[dim] = i < 2 ? tiles[i] * local[i] : (size_t)oc->slices;
    }

    CL_CALL(status, cleanup, m,
            clEnqueueWriteBuffer(d->queue, b->coeffs[k], CL_TRUE, 0, sizeof coeffs, coeffs, 0,
                                 NULL, NULL));
    {
        const cl_mem base = k == 0 ? b->input : b->level[k][0];
        const cl_mem none = NULL;
        const int next_pitch =
            oc->feed >= 0 ? tc_device_pitch(plan->octave[k + 1].width) : 0;
        cl_mem dst[TC_PYRAMID_MAX_SLICES];
        for (int i = 0; i < TC_PYRAMID_MAX_SLICES; i++)
            dst[i] = i < oc->slices && i != oc->feed ? b->level[k][oc->slice[i].level] : NULL;
        const tc_kernel_arg args[] = {
            TC_KARG(base),   TC_KARG(pitch),  TC_KARG(oc->width), TC_KARG(oc->height),
            TC_KARG(b->coeffs[k]), TC_KARG(plan->border_value),
            {sizeof(cl_mem), oc->feed >= 0 ? &b->level[k + 1][0] : &none},
            TC_KARG(next_pitch),
            TC_KARG(dst[0]), TC_KARG(dst[1]), TC_KARG(dst[2]), TC_KARG(dst[3]),
            TC_KARG(dst[4]), TC_KARG(dst[5]), TC_KARG(dst[6]), TC_KARG(dst[7]),
            TC_KARG(dst[8])};
        status = tc_set_args(list->item[n].kernel, "pyramid_octave", args,
                             (int)(sizeof args / sizeof args[0]), m);
    }
cleanup:
    return status;
}

static int prepare_levels(const tc_device *d, tc_program_cache *programs, tc_pyramid_buffers *b,
                          const tc_pyramid_plan *plan, int k, launch_list *list,
                          double *build_ms, tc_msg *m)
{
    const tc_pyramid_octave *oc = &plan->octave[k];
    const cl_mem base = k == 0 ? b->input : b->level[k][0];
    int status;
    for (int i = 0; i < oc->slices; i++) {
        const tc_pyramid_slice *s = &oc->slice[i];
        tc_job job;
        double ms = 0.0;
        tc_pyramid_slice_job(plan, k, s, &job);
        status = tc_launch_prepare(d, programs, &job, base,
                                   i == oc->feed ? b->feed : b->level[k][s->level], oc->width,
                                   &list->item[list->count].filter, &ms, m);
        *build_ms += ms;
        if (status != TC_OK)
            return status;
        list->count++;
    }
    if (oc->feed < 0)
        return TC_OK;
    /* The next octave's base: the feed's even rows and columns. */
    const tc_pyramid_octave *next = &plan->octave[k + 1];
    const int n = list->count;
    const int pitch = tc_device_pitch(oc->width), next_pitch = tc_device_pitch(next->width);
    if ((status = kernel_of(d, programs,
                            "-cl-std=CL1.2 -D RADIUS_X=0 -D RADIUS_Y=0 -D BORDER=0 -D BLOCK_X=8 "
                            "-D BLOCK_Y=8 -D SHIFT=0",
                            "pyramid_decimate", &list->item[n].kernel, build_ms, m)) != TC_OK)
        return status;
    list->count++;
    const tc_kernel_arg args[] = {TC_KARG(b->feed), TC_KARG(pitch), TC_KARG(b->level[k + 1][0]),
                                  TC_KARG(next_pitch), TC_KARG(next->width),
                                  TC_KARG(next->height)};
    list->item[n].dims = 2;
    list->item[n].local[0] = list->item[n].local[1] = 16;
    list->item[n].global[0] = (size_t)(next->width + 15) / 16 * 16;
    list->item[n].global[1] = (size_t)(next->height + 15) / 16 * 16;
    if ((status = tc_check_launch(d, list->item[n].kernel, "pyramid_decimate",
                                  list->item[n].local, m)) != TC_OK)
        return status;
    return tc_set_args(list->item[n].kernel, "pyramid_decimate", args, 6, m);
}

static int enqueue(const tc_device *d, launch_list *list, int i, cl_event *event, tc_msg *m)
{
    int status = TC_OK;
    if (!list->item[i].kernel)
        return tc_launch_enqueue(&list->item[i].filter, event, m);
    CL_CALL(status, cleanup, m,
            clEnqueueNDRangeKernel(d->queue, list->item[i].kernel, list->item[i].dims, NULL,
                                   list->item[i].global, list->item[i].local, 0, NULL, event));
cleanup:
    return status;
}

/* The bytes a pyramid moves at the least (tc_pyramid_stats.bytes): each slice reads its base
 * once and writes its image (the per-octave feed a quarter of one, decimated as stored; the
 * per-level feed whole, then the decimation reads and writes the quarter it keeps). */
static double bytes_of(const tc_pyramid_plan *plan)
{
    double bytes = 0.0;
    for (int k = 0; k < plan->octaves; k++) {
        const tc_pyramid_octave *oc = &plan->octave[k];
        const double px = (double)oc->width * oc->height;
        const double next = oc->feed >= 0
                                ? (double)plan->octave[k + 1].width * plan->octave[k + 1].height
                                : 0.0;
        for (int i = 0; i < oc->slices; i++)
            bytes += 4.0 * px + (i != oc->feed                          ? 4.0 * px
                                 : plan->launch == TC_PYRAMID_PER_OCTAVE ? 4.0 * next
                                                                        : 4.0 * px);
        if (oc->feed >= 0 && plan->launch == TC_PYRAMID_PER_LEVEL)
            bytes += 8.0 * next;
    }
    return bytes;
}

int tc_pyramid_run(const tc_device *d, tc_program_cache *programs, tc_pyramid_buffers *b,
                   const tc_pyramid_plan *plan, const float *src, float *const *levels,
                   int warmup, int iterations, tc_pyramid_run_stats *stats, tc_msg *m)
{
    const int runs = warmup + iterations;
    launch_list *list = calloc(1, sizeof *list);
    cl_event *events = NULL;
    int status = TC_OK;

    memset(stats, 0, sizeof *stats);
    stats->iterations = iterations;
    if (!list || !(stats->kernel_ms = calloc((size_t)iterations, sizeof(double)))) {
        status = tc_fail(m, TC_ENOMEM, "out of host memory for the pyramid's launches");
        goto cleanup;
    }
    if ((status = check_room(d, plan, m)) != TC_OK ||
        (status = ensure_buffers(d, b, plan, m)) != TC_OK ||
        (status = upload(d, b, src, plan->octave[0].width, plan->octave[0].height,
                         &stats->upload_ms, m)) != TC_OK)
        goto cleanup;
    for (int k = 0; k < plan->octaves; k++) {
        if (plan->octave[k].slices == 0)
            continue;
        status = plan->launch == TC_PYRAMID_PER_OCTAVE
                     ? prepare_octave(d, programs, b, plan, k, list, &stats->build_ms, m)
                     : prepare_levels(d, programs, b, plan, k, list, &stats->build_ms, m);
        if (status != TC_OK)
            goto cleanup;
    }
    stats->launches = list->count;
    stats->bytes = bytes_of(plan);
    if (list->count && !(events = calloc((size_t)runs * (size_t)list->count, sizeof *events))) {
        status = tc_fail(m, TC_ENOMEM, "out of host memory for %d runs", runs);
        goto cleanup;
    }
    /* The warm-up, then the timed pyramids back to back (an in-order queue: every launch
     * starts after the one before has finished, so each reads what the last one wrote). */
    for (int r = 0; r < runs; r++) {
        if (r == warmup) {
            CL_CALL(status, cleanup, m, clFinish(d->queue));
            stats->wall_ms_per_iteration = tc_wall_ms();
        }
        for (int i = 0; i < list->count; i++)
            if ((status = enqueue(d, list, i, &events[r * list->count + i], m)) != TC_OK)
                goto cleanup;
    }
    CL_CALL(status, cleanup, m, clFinish(d->queue));
    stats->wall_ms_per_iteration = (tc_wall_ms() - stats->wall_ms_per_iteration) / iterations;
    for (int r = warmup; r < runs; r++)
        for (int i = 0; i < list->count; i++) {
            double ms;
            if ((status = tc_event_ms(events[r * list->count + i], &ms, m)) != TC_OK)
                goto cleanup;
            stats->kernel_ms[r - warmup] += ms;
        }
    for (int k = 0; k < plan->octaves; k++)
        for (int j = 0; j < plan->levels; j++)
            if ((status = download(d, b, b->level[k][j], levels[k * plan->levels + j],
                                   plan->octave[k].width, plan->octave[k].height,
                                   &stats->download_ms, m)) != TC_OK)
                goto cleanup;
cleanup:
    if (status != TC_OK) {
        clFinish(d->queue); /* nothing queued may outlive the buffers or the events */
        tc_pyramid_run_stats_free(stats);
    }
    if (events)
        for (int i = 0; list && i < runs * list->count; i++)
            if (events[i])
                clReleaseEvent(events[i]);
    free(events);
    if (list)
        launches_release(list);
    free(list);
    return status;
}
