/*
 * pyramid_launch.c - the Gaussian scale space on a device: its buffers, and the two ways of
 * running a plan (pyramid_plan.h): one launch per octave (Pyramid.cl's pyramid_octave) or one
 * per level (tc_filter's own kernels, through launch.h's prepared launches, and
 * pyramid_decimate).
 */
#include "pyramid_launch.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "hostmem.h"
#include "tuning.h"

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
    return tc_plane_read(d->queue, mem, plane_bytes(width, height), b->staging,
                         tc_device_pitch(width), dst, width, height, ms, m);
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

/* The per-octave tile's height: TC_LONG_TILE_H, or the tuning's pyramid_tile_h (kernel
 * studies: 64, 128 or 256). */
static int tile_height(const tc_device *d, int rmax)
{
    int th = tc_tuning_now()->pyramid_tile_h ? tc_tuning_now()->pyramid_tile_h : TC_LONG_TILE_H;
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
    /* For kernel studies (the tuning's pyramid_interleave): the slices of one tile one after
     * another in the dispatch order, rather than slice after slice (Pyramid.cl,
     * PYR_INTERLEAVE). */
    const int interleave = tc_tuning_now()->pyramid_interleave;
    used = snprintf(options, sizeof options,
                    "-cl-std=CL1.2 -D RADIUS_X=%d -D RADIUS_Y=%d -D BORDER=%d -D BLOCK_X=%d "
                    "-D BLOCK_Y=8 -D TC_VECTOR_IO=1 -D SHIFT=0 -D LONG_TILE_W=%d "
                    "-D LONG_TILE_H=%d -D PYR_SLICES=%d -D PYR_FEED=%d -D PYR_INTERLEAVE=%d",
                    rmax, rmax, (int)plan->border, TC_LONG_JOB_W, TC_LONG_TILE_W, th,
                    oc->slices, oc->feed, interleave);
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
    const int first = interleave; /* the slice first */
    if (first && local[1] > d->max_item_sizes[2])
        return tc_fail(m, TC_EDEVICE, "pyramid-interleave=1 needs work-groups of 1 x "
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
    if (!list->item[i].kernel)
        return tc_launch_enqueue(&list->item[i].filter, event, m);
    return tc_enqueue_range(d->queue, list->item[i].kernel, list->item[i].dims,
                            list->item[i].global, list->item[i].local, event, m);
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
    tc_events_free(events, list ? (size_t)runs * (size_t)list->count : 0);
    if (list)
        launches_release(list);
    free(list);
    return status;
}
