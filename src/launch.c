/*
 * launch.c - host side of the three algorithms. tc_run walks one filter run through its steps:
 * check the job against the device, get the program and kernel, make sure the buffers are
 * there, upload, run (warm-up, then the timed runs), read back, collect the times. Each
 * algorithm contributes only its geometry and how it enqueues one filter run.
 */
#include "launch.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "hostmem.h"
#include "split.h"

static long ceil_div(long a, long b)
{
    return (a + b - 1) / b;
}

/* ---- What each kernel brings ---------------------------------------------------------- */

/* The device side of one run. */
typedef struct {
    const tc_job *job;
    const tc_buffers *buf; /* the coefficients, the two-pass temporary, the class counts */
    cl_mem src, dst;       /* the planes this run reads and writes */
    cl_command_queue queue;
    cl_kernel kernel;
    cl_kernel kernel2;     /* twopass: pass 2's (built for the column radius); bilinear: pass 2 */
    int pitch;          /* the device's row pitch in floats (tc_device_pitch) */
    unsigned long long local_mem; /* the device's local memory, bytes */
    tc_tiled_geometry tiled; /* the tiled kernels' tile, block and group */
    size_t local[2];
    size_t global[2];
    size_t local2[2], global2[2]; /* split: its second pass's (tiled_long_conv) */
} launch_state;

typedef struct {
    int passes;
    /* The work-group and global sizes for this job (ls->tiled is known). */
    void (*geometry)(launch_state *ls);
    /* Sets the arguments that stay the same for every run. */
    int (*set_args)(launch_state *ls, tc_msg *m);
    /* Enqueues one complete filter run; events[p] receives pass p's event. */
    int (*enqueue)(launch_state *ls, cl_event events[2], tc_msg *m);
} kernel_desc;

/* The tiled kernels: one group per tile, from the tile grid's offset. */
static void tiled_geometry(launch_state *ls)
{
    const tc_tiled_geometry *g = &ls->tiled;
    ls->local[0] = g->local[0];
    ls->local[1] = g->local[1];
    ls->global[0] = (size_t)ceil_div(ls->job->roi.width + g->grid_offset, g->tile_w) * g->local[0];
    ls->global[1] = (size_t)ceil_div(ls->job->roi.height, g->strip_h) * g->local[1];
}

static void one_pass_geometry(launch_state *ls)
{
    ls->local[0] = ls->local[1] = TC_ONEPASS_GROUP;
    ls->global[0] = (size_t)ceil_div(ls->job->roi.width, TC_ONEPASS_GROUP) * TC_ONEPASS_GROUP;
    ls->global[1] = (size_t)ceil_div(ls->job->roi.height, TC_ONEPASS_GROUP) * TC_ONEPASS_GROUP;
}

/* Pass 1 covers the ROI; pass 2, the transposed ROI, is sized in two_pass_enqueue. */
static void two_pass_geometry(launch_state *ls)
{
    ls->local[0] = ls->local[1] = TC_TWOPASS_TILE;
    ls->global[0] = (size_t)ceil_div(ls->job->roi.width, TC_TWOPASS_TILE) * TC_TWOPASS_TILE;
    ls->global[1] = (size_t)ceil_div(ls->job->roi.height, TC_TWOPASS_TILE) * TC_TWOPASS_TILE;
}

/* Common.cl's tc_values16: sixteen values by value in a struct (a float16 argument draws
 * clang's -Wpsabi on x86 CPUs without AVX-512); the same 64 bytes, aligned as a float16. */
typedef struct {
    cl_float16 v;
} tc_values16;
_Static_assert(sizeof(tc_values16) == 64, "Common.cl's tc_values16 is 64 bytes");

/* Up to 16 values by value, zero-padded: TiledConv.cl's TC_COEFF_VALUES, Masks.cl's
 * TC_MASK_VALUES. */
static tc_values16 by_value(const float *k, int n)
{
    tc_values16 v;
    memset(&v, 0, sizeof v);
    for (int i = 0; i < n && i < 16; i++)
        v.v.s[i] = k[i];
    return v;
}

/* An axis's coefficients (up to 64) by value as four tc_values16, zero-padded: Long.cl's TAP64. */
static void by_value64(const float *k, int n, tc_values16 v[4])
{
    for (int q = 0; q < 4; q++)
        v[q] = by_value(k + 16 * q, n - 16 * q);
}

/* tiled_long_conv: src ... dst_top, the ROI's size, each axis's __constant buffer, the border
 * value, each axis by value (kx, ky: four tc_values16 each; Long.cl's TC_LONG_KVALUES says which
 * it reads), and the counters when counts is not NULL. */
static int long_set_args(cl_kernel kernel, const char *what, cl_mem src, cl_mem dst, int pitch,
                         const tc_roi *r, cl_mem kx_buffer, cl_mem ky_buffer, float border_value,
                         const tc_values16 kx[4], const tc_values16 ky[4], cl_mem counts,
                         tc_msg *m)
{
    const tc_kernel_arg args[] = {
        TC_KARG(src),        TC_KARG(dst),         TC_KARG(pitch),      TC_KARG(r->src_left),
        TC_KARG(r->src_top), TC_KARG(r->dst_left), TC_KARG(r->dst_top), TC_KARG(r->width),
        TC_KARG(r->height),  TC_KARG(kx_buffer),   TC_KARG(ky_buffer),  TC_KARG(border_value),
        TC_KARG(kx[0]),      TC_KARG(kx[1]),       TC_KARG(kx[2]),      TC_KARG(kx[3]),
        TC_KARG(ky[0]),      TC_KARG(ky[1]),       TC_KARG(ky[2]),      TC_KARG(ky[3]),
        TC_KARG(counts)};
    return tc_set_args(kernel, what, args, counts ? 21 : 20, m);
}

/* tiled_slide_conv: src ... dst_top, the ROI's size, each axis's coefficients by value as
 * four tc_values16 (zero-padded), so that the unrolled loops' compile-time indices make each a
 * constant operand of its multiply-add (a kernel argument lives in a constant bank on GPUs)
 * rather than a load or a register; the border value, the rows a group walks down, and the
 * counters when it counts. */
static int slide_set_args(launch_state *ls, tc_msg *m)
{
    const tc_roi *r = &ls->job->roi;
    const tc_filter_spec *f = &ls->job->filter;
    const int strip_h = ls->tiled.strip_h;
    tc_values16 kx[4], ky[4];
    by_value64(f->kx, f->taps_x, kx);
    by_value64(f->ky, f->taps_y, ky);
    const tc_kernel_arg args[] = {
        TC_KARG(ls->src),    TC_KARG(ls->dst),     TC_KARG(ls->pitch),  TC_KARG(r->src_left),
        TC_KARG(r->src_top), TC_KARG(r->dst_left), TC_KARG(r->dst_top), TC_KARG(r->width),
        TC_KARG(r->height),  TC_KARG(kx[0]),       TC_KARG(kx[1]),      TC_KARG(kx[2]),
        TC_KARG(kx[3]),      TC_KARG(ky[0]),       TC_KARG(ky[1]),      TC_KARG(ky[2]),
        TC_KARG(ky[3]),      TC_KARG(f->border_value), TC_KARG(strip_h),
        TC_KARG(ls->buf->counts)};
    return tc_set_args(ls->kernel, "tiled_slide_conv", args, ls->job->count_classes ? 20 : 19,
                       m);
}

/* tiled_rows_conv: src ... dst_top, the ROI's size, the row coefficients by value as four
 * tc_values16 (zero-padded: constant operands of the unrolled multiply-adds), the column
 * filter's one tap, the border value, and the counters when it counts (counts not NULL). */
static int rows_set_args(cl_kernel kernel, cl_mem src, cl_mem dst, int pitch, const tc_roi *r,
                         const tc_filter_spec *f, cl_mem counts, tc_msg *m)
{
    tc_values16 kx[4];
    by_value64(f->kx, f->taps_x, kx);
    const tc_kernel_arg args[] = {
        TC_KARG(src),        TC_KARG(dst),         TC_KARG(pitch),      TC_KARG(r->src_left),
        TC_KARG(r->src_top), TC_KARG(r->dst_left), TC_KARG(r->dst_top), TC_KARG(r->width),
        TC_KARG(r->height),  TC_KARG(kx[0]),       TC_KARG(kx[1]),      TC_KARG(kx[2]),
        TC_KARG(kx[3]),      TC_KARG(f->ky[0]),    TC_KARG(f->border_value), TC_KARG(counts)};
    return tc_set_args(kernel, "tiled_rows_conv", args, counts ? 16 : 15, m);
}

/* The separable kernels that read planes directly take the same first arguments
 * (src ... border_value); tiled_conv then the coefficients again by value (tc_values16,
 * zero-padded: TiledConv.cl's TC_COEFF_VALUES); the tiled ones, when they count their
 * classes, the counters last. */
static int direct_set_args(launch_state *ls, tc_msg *m)
{
    const tc_roi *r = &ls->job->roi;
    const tc_buffers *b = ls->buf;
    const tc_filter_spec *f = &ls->job->filter;
    const tc_kernel_kind kind = tc_kernel_of(ls->job);
    const tc_values16 kx_values = by_value(f->kx, f->taps_x);
    const tc_values16 ky_values = by_value(f->ky, f->taps_y);
    const tc_kernel_arg args[] = {
        TC_KARG(ls->src),     TC_KARG(ls->dst),     TC_KARG(ls->pitch),    TC_KARG(r->src_left),
        TC_KARG(r->src_top),  TC_KARG(r->dst_left), TC_KARG(r->dst_top),   TC_KARG(r->width),
        TC_KARG(r->height),   TC_KARG(b->kx),       TC_KARG(b->ky),        TC_KARG(f->border_value),
        TC_KARG(kx_values),   TC_KARG(ky_values),   TC_KARG(b->counts)};
    const int counts = ls->job->count_classes;
    if (kind == TC_KERNEL_TILED_SLIDE)
        return slide_set_args(ls, m);
    if (kind == TC_KERNEL_TILED_ROWS)
        return rows_set_args(ls->kernel, ls->src, ls->dst, ls->pitch, &ls->job->roi,
                             &ls->job->filter, ls->job->count_classes ? ls->buf->counts : NULL,
                             m);
    if (kind == TC_KERNEL_TILED_LONG) {
        tc_values16 kx[4], ky[4];
        by_value64(f->kx, f->taps_x, kx);
        by_value64(f->ky, f->taps_y, ky);
        return long_set_args(ls->kernel, "tiled_long_conv", ls->src, ls->dst, ls->pitch, r,
                             b->kx, b->ky, f->border_value, kx, ky, counts ? b->counts : NULL,
                             m);
    }
    if (kind == TC_KERNEL_TILED)
        return tc_set_args(ls->kernel, "tiled_conv", args, counts ? 15 : 14, m);
    return tc_set_args(ls->kernel, "one_pass_conv", args, 12, m);
}

/* tiled_mask_conv and one_pass_mask_conv: src ... dst_top, the ROI's size, the mask and the
 * border value; tiled_mask_conv then the first 16 weights by value (Masks.cl's
 * TC_MASK_VALUES) and, when it counts, the counters. */
static int mask_set_args(launch_state *ls, tc_msg *m)
{
    const tc_roi *r = &ls->job->roi;
    const tc_buffers *b = ls->buf;
    const tc_filter_spec *f = &ls->job->filter;
    const tc_values16 values = by_value(f->mask, f->mask_width * f->mask_height);
    const tc_kernel_arg args[] = {
        TC_KARG(ls->src),    TC_KARG(ls->dst),     TC_KARG(ls->pitch),  TC_KARG(r->src_left),
        TC_KARG(r->src_top), TC_KARG(r->dst_left), TC_KARG(r->dst_top), TC_KARG(r->width),
        TC_KARG(r->height),  TC_KARG(b->mask),     TC_KARG(f->border_value),
        TC_KARG(values),     TC_KARG(b->counts)};
    const tc_kernel_arg rows_args[] = {args[0], args[1], args[2], args[3], args[4],  args[5],
                                       args[6], args[7], args[8], args[9], args[10], args[12]};
    if (tc_kernel_of(ls->job) == TC_KERNEL_ONEPASS_MASK)
        return tc_set_args(ls->kernel, "one_pass_mask_conv", args, 11, m);
    if (tc_kernel_of(ls->job) == TC_KERNEL_TILED_MASK_ROWS)
        return tc_set_args(ls->kernel, "tiled_mask_rows_conv", rows_args,
                           ls->job->count_classes ? 12 : 11, m);
    return tc_set_args(ls->kernel, "tiled_mask_conv", args, ls->job->count_classes ? 13 : 12,
                       m);
}

static int direct_enqueue(launch_state *ls, cl_event events[2], tc_msg *m)
{
    return tc_enqueue(ls->queue, ls->kernel, ls->global, ls->local, &events[0], m);
}

/* The two passes of rows_transposed_conv differ in every argument, so they are set per pass. */
static int two_pass_set_args(launch_state *ls, tc_msg *m)
{
    (void)ls;
    (void)m;
    return TC_OK;
}

static int two_pass_enqueue(launch_state *ls, cl_event events[2], tc_msg *m)
{
    int status = TC_OK;
    const tc_roi *r = &ls->job->roi;
    const tc_filter_spec *f = &ls->job->filter;
    const tc_buffers *b = ls->buf;
    const int zero = 0;
    /* Pass 2 filters rows that pass 1 already filtered with kx, so a constant border there is
     * the constant filtered by kx. */
    float pass2_value = 0.0f;
    for (int i = 0; i < f->taps_x; i++)
        pass2_value += f->kx[i] * f->border_value;
    /* Pass 1: rows of the sROI, filtered with kx, into tmp transposed (h x w, pitch h). */
    const tc_kernel_arg pass1[] = {
        TC_KARG(ls->src),    TC_KARG(ls->pitch), TC_KARG(r->src_left), TC_KARG(r->src_top),
        TC_KARG(b->tmp),     TC_KARG(r->height), TC_KARG(zero),        TC_KARG(zero),
        TC_KARG(r->width),   TC_KARG(r->height), TC_KARG(b->kx),       TC_KARG(f->border_value)};
    /* Pass 2: rows of tmp (the original columns), filtered with ky, into the tROI transposed
     * back. tmp is a region r->height wide and r->width high. */
    const tc_kernel_arg pass2[] = {
        TC_KARG(b->tmp),     TC_KARG(r->height),   TC_KARG(zero),       TC_KARG(zero),
        TC_KARG(ls->dst),    TC_KARG(ls->pitch),   TC_KARG(r->dst_left), TC_KARG(r->dst_top),
        TC_KARG(r->height),  TC_KARG(r->width),    TC_KARG(b->ky),      TC_KARG(pass2_value)};
    size_t global2[2] = {(size_t)ceil_div(r->height, TC_TWOPASS_TILE) * TC_TWOPASS_TILE,
                         (size_t)ceil_div(r->width, TC_TWOPASS_TILE) * TC_TWOPASS_TILE};
    const int n = (int)(sizeof pass1 / sizeof pass1[0]);

    if ((status = tc_set_args(ls->kernel, "rows_transposed_conv pass 1", pass1, n, m)) !=
            TC_OK ||
        (status = tc_enqueue(ls->queue, ls->kernel, ls->global, ls->local, &events[0], m)) !=
            TC_OK)
        return status;
    /* An in-order queue: pass 2 starts after pass 1 has finished. Its kernel is built for the
     * column radius (the same program as pass 1's when the radii agree, a kernel object of its
     * own either way). */
    if ((status = tc_set_args(ls->kernel2, "rows_transposed_conv pass 2", pass2, n, m)) != TC_OK)
        return status;
    return tc_enqueue(ls->queue, ls->kernel2, global2, ls->local, &events[1], m);
}

/* bilinear (storage.c, Images.cl): pass 1 rows from the source image into the temporary
 * image, pass 2 columns into the target; both the ROI's size. */
static void bilinear_geometry(launch_state *ls)
{
    ls->local[0] = TC_BILINEAR_GROUP_X;
    ls->local[1] = TC_BILINEAR_GROUP_Y;
    tc_bilinear_geometry(&ls->job->roi, ls->global);
}

/* Set per run by tc_bilinear_enqueue, as twopass's. */
static int bilinear_set_args(launch_state *ls, tc_msg *m)
{
    (void)ls;
    (void)m;
    return TC_OK;
}

static int bilinear_enqueue(launch_state *ls, cl_event events[2], tc_msg *m)
{
    return tc_bilinear_enqueue(ls->queue, ls->kernel, ls->kernel2, &ls->buf->images,
                               &ls->job->filter, &ls->job->roi, ls->buf->kx, ls->buf->ky, ls->dst,
                               ls->pitch, ls->local, events, m);
}

/* split (split.h): pass 1, tiled_rows_conv, as ls->tiled says (its rows job's geometry);
 * pass 2, tiled_long_conv, as its columns job's. */
static void split_geometry(launch_state *ls)
{
    tc_job rows, cols;
    tc_tiled_geometry g;
    tiled_geometry(ls);
    tc_split_jobs(ls->job, &rows, &cols);
    tc_tiled_geometry_of(&cols, ls->local_mem, &g);
    ls->local2[0] = g.local[0];
    ls->local2[1] = g.local[1];
    ls->global2[0] = (size_t)ceil_div(cols.roi.width + g.grid_offset, g.tile_w) * g.local[0];
    ls->global2[1] = (size_t)ceil_div(cols.roi.height, g.strip_h) * g.local[1];
}

/* Both passes' arguments: the rows pass from the source into the temporary plane (the
 * buffers' tmp, the planes' pitch), the columns pass from it into the target; the second's
 * row coefficient the buffers' unit (a single 1). */
static int split_set_args(launch_state *ls, tc_msg *m)
{
    const tc_buffers *b = ls->buf;
    tc_job rows, cols;
    tc_split_jobs(ls->job, &rows, &cols);
    const cl_mem counts = ls->job->count_classes ? b->counts : NULL;
    const float unit = 1.0f;
    tc_values16 kx[4], ky[4];
    by_value64(&unit, 1, kx);
    by_value64(cols.filter.ky, cols.filter.taps_y, ky);
    int status = rows_set_args(ls->kernel, ls->src, b->tmp, ls->pitch, &rows.roi, &rows.filter,
                               counts, m);
    if (status == TC_OK)
        status = long_set_args(ls->kernel2, "tiled_long_conv (split pass 2)", b->tmp, ls->dst,
                               ls->pitch, &cols.roi, b->unit, b->ky,
                               cols.filter.border_value, kx, ky, counts, m);
    return status;
}

/* An in-order queue: pass 2 starts once pass 1 has written the plane. */
static int split_enqueue(launch_state *ls, cl_event events[2], tc_msg *m)
{
    const int status = tc_enqueue(ls->queue, ls->kernel, ls->global, ls->local, &events[0], m);
    if (status != TC_OK)
        return status;
    return tc_enqueue(ls->queue, ls->kernel2, ls->global2, ls->local2, &events[1], m);
}

static const kernel_desc kernels[] = {
    [TC_KERNEL_TILED] = {1, tiled_geometry, direct_set_args, direct_enqueue},
    [TC_KERNEL_TILED_LONG] = {1, tiled_geometry, direct_set_args, direct_enqueue},
    [TC_KERNEL_TILED_MASK] = {1, tiled_geometry, mask_set_args, direct_enqueue},
    [TC_KERNEL_TWOPASS] = {2, two_pass_geometry, two_pass_set_args, two_pass_enqueue},
    [TC_KERNEL_ONEPASS] = {1, one_pass_geometry, direct_set_args, direct_enqueue},
    [TC_KERNEL_ONEPASS_MASK] = {1, one_pass_geometry, mask_set_args, direct_enqueue},
    [TC_KERNEL_BILINEAR] = {2, bilinear_geometry, bilinear_set_args, bilinear_enqueue},
    [TC_KERNEL_TILED_SLIDE] = {1, tiled_geometry, direct_set_args, direct_enqueue},
    [TC_KERNEL_TILED_MASK_ROWS] = {1, tiled_geometry, mask_set_args, direct_enqueue},
    [TC_KERNEL_TILED_ROWS] = {1, tiled_geometry, direct_set_args, direct_enqueue},
    [TC_KERNEL_TILED_SPLIT] = {2, split_geometry, split_set_args, split_enqueue},
};

/* ---- The steps of a run ---------------------------------------------------------------- */

/* The state of a launch of job on d, reading src and writing dst (planes width wide, with the
 * device's row pitch), with its kernel's geometry. */
static void launch_begin(launch_state *ls, const tc_device *d, const tc_job *job,
                         tc_buffers *buf, cl_mem src, cl_mem dst, int width)
{
    memset(ls, 0, sizeof *ls);
    ls->job = job;
    ls->buf = buf;
    ls->src = src;
    ls->dst = dst;
    ls->queue = d->queue;
    /* A gray image's packed bytes (job->packed_u8) have its width as their pitch. */
    ls->pitch = job->packed_u8 ? width : tc_device_pitch(width);
    ls->local_mem = d->info.local_mem_bytes;
    if (tc_kernel_is_tiled(tc_kernel_of(job)))
        tc_tiled_geometry_of(job, ls->local_mem, &ls->tiled);
    kernels[tc_kernel_of(job)].geometry(ls);
}

/* The job's kernels into ls (set even on a failure, for the caller to release). */
static int prepare_kernel(const tc_device *d, tc_program_cache *programs, const tc_job *job,
                          launch_state *ls, double *build_ms, tc_msg *m)
{
    cl_kernel k[2] = {NULL, NULL};
    const int status = tc_job_kernels(d, programs, job, &ls->tiled, ls->local, k, build_ms, m);
    ls->kernel = k[0];
    ls->kernel2 = k[1];
    return status;
}

/* The coefficients (and a mask's weights) to the device, and the class counts zeroed when
 * the kernel counts. */
static int upload_coefficients(const launch_state *ls, cl_event events[3], tc_msg *m)
{
    int status = TC_OK;
    const tc_filter_spec *f = &ls->job->filter;
    const tc_buffers *b = ls->buf;
    CL_CALL(status, cleanup, m,
            clEnqueueWriteBuffer(ls->queue, b->kx, CL_FALSE, 0, sizeof f->kx, f->kx, 0, NULL,
                                 &events[0]));
    CL_CALL(status, cleanup, m,
            clEnqueueWriteBuffer(ls->queue, b->ky, CL_FALSE, 0, sizeof f->ky, f->ky, 0, NULL,
                                 &events[1]));
    if (f->mask_width && !f->mask_separable)
        CL_CALL(status, cleanup, m,
                clEnqueueWriteBuffer(ls->queue, b->mask, CL_FALSE, 0,
                                     (size_t)f->mask_width * (size_t)f->mask_height *
                                         sizeof(float),
                                     f->mask, 0, NULL, &events[2]));
    if (ls->job->count_classes) {
        const cl_int zero = 0;
        CL_CALL(status, cleanup, m,
                clEnqueueFillBuffer(ls->queue, b->counts, &zero, sizeof zero, 0,
                                    4 * sizeof zero, 0, NULL, NULL));
    }
cleanup:
    return status;
}

/* The warm-up runs, then the timed runs back to back: the kernel times come from each
 * kernel's own profiling counters; the host's wall clock around the timed runs gives the
 * time per iteration with the launches, which is what small images are limited by.
 * events[2 * i + p] is pass p of run i, warm-up runs first. */
static int run_all(launch_state *ls, int warmup, int iterations, cl_event *events,
                   double *wall_ms_per_iteration, tc_msg *m)
{
    const kernel_desc *a = &kernels[tc_kernel_of(ls->job)];
    int status = TC_OK;
    for (int i = 0; i < warmup; i++)
        if ((status = a->enqueue(ls, &events[2 * i], m)) != TC_OK)
            return status;
    CL_CALL(status, cleanup, m, clFinish(ls->queue));
    const double wall0 = tc_wall_ms();
    for (int i = warmup; i < warmup + iterations; i++)
        if ((status = a->enqueue(ls, &events[2 * i], m)) != TC_OK)
            return status;
    CL_CALL(status, cleanup, m, clFinish(ls->queue));
    *wall_ms_per_iteration = (tc_wall_ms() - wall0) / iterations;
cleanup:
    return status;
}

/* The times of the finished runs, and the class counts the kernel made. */
static int collect(const launch_state *ls, const cl_event *events, int warmup,
                   const cl_event upload_events[3], tc_run_stats *stats, tc_msg *m)
{
    const int passes = kernels[tc_kernel_of(ls->job)].passes;
    int status = TC_OK;
    double ms;
    for (int i = 0; i < 3 && upload_events[i]; i++) {
        if ((status = tc_stat_ms(upload_events[i], &ms, m)) != TC_OK)
            return status;
        stats->h2d_ms += ms;
    }
    for (int i = 0; i < stats->iterations; i++) {
        stats->kernel_ms[i] = 0.0;
        for (int p = 0; p < passes; p++) {
            const cl_event e = events[2 * (warmup + i) + p];
            if ((status = ls->job->strict_times ? tc_event_ms(e, &ms, m)
                                                : tc_stat_ms(e, &ms, m)) != TC_OK)
                return status;
            if (passes == 2)
                stats->pass_ms[p][i] = ms;
            stats->kernel_ms[i] += ms;
        }
    }
    if (ls->job->count_classes && tc_kernel_is_tiled(tc_kernel_of(ls->job))) {
        /* Every run (warm-up and timed) counted each group once. */
        cl_int counts[4];
        CL_CALL(status, cleanup, m,
                clEnqueueReadBuffer(ls->queue, ls->buf->counts, CL_TRUE, 0, sizeof counts,
                                    counts, 0, NULL, NULL));
        for (int i = 0; i < 4; i++)
            stats->classes[i] = counts[i] / (warmup + stats->iterations);
        stats->classes_counted = 1;
    }
cleanup:
    return status;
}

/* The statistics' arrays and what is known before the run: the geometry and the classes. */
static int stats_begin(tc_run_stats *stats, const launch_state *ls, int iterations, tc_msg *m)
{
    const tc_job *job = ls->job;
    const int passes = kernels[tc_kernel_of(job)].passes;
    memset(stats, 0, sizeof *stats);
    stats->iterations = iterations;
    stats->kernel_ms = calloc((size_t)iterations, sizeof(double));
    if (passes == 2) {
        stats->pass_ms[0] = calloc((size_t)iterations, sizeof(double));
        stats->pass_ms[1] = calloc((size_t)iterations, sizeof(double));
    }
    if (!stats->kernel_ms || (passes == 2 && (!stats->pass_ms[0] || !stats->pass_ms[1])))
        return tc_fail(m, TC_ENOMEM, "out of host memory for %d iterations", iterations);
    memcpy(stats->global, ls->global, sizeof stats->global);
    memcpy(stats->local, ls->local, sizeof stats->local);
    if (tc_kernel_is_tiled(tc_kernel_of(job))) {
        tc_tiled_classes(job, ls->local_mem, stats->classes);
        stats->block[0] = ls->tiled.block[0];
        stats->block[1] = ls->tiled.block[1];
    }
    return TC_OK;
}

void tc_run_stats_free(tc_run_stats *stats)
{
    free(stats->kernel_ms);
    free(stats->pass_ms[0]);
    free(stats->pass_ms[1]);
    memset(stats, 0, sizeof *stats);
}

void tc_run_stats_add_device(tc_run_stats *total, const tc_run_stats *one)
{
    total->kernel_ms[0] += one->kernel_ms[0];
    for (int p = 0; p < 2 && total->pass_ms[p] && one->pass_ms[p]; p++)
        total->pass_ms[p][0] += one->pass_ms[p][0];
    total->build_ms += one->build_ms;
    total->h2d_ms += one->h2d_ms;
}

void tc_run_stats_add(tc_run_stats *total, const tc_run_stats *one)
{
    tc_run_stats_add_device(total, one);
    total->d2h_ms += one->d2h_ms;
    total->wall_ms_per_iteration += one->wall_ms_per_iteration;
}

int tc_launch_prepare(const tc_device *d, tc_program_cache *programs, const tc_job *job,
                      cl_mem src, cl_mem dst, int width, tc_launch *l, double *build_ms,
                      tc_msg *m)
{
    const kernel_desc *a = &kernels[tc_kernel_of(job)];
    cl_event upload_events[3] = {NULL, NULL, NULL};
    launch_state ls;
    int status;

    memset(l, 0, sizeof *l);
    if (a->passes != 1)
        return tc_fail(m, TC_EINVAL, "%s: a prepared launch takes one pass",
                       tc_algorithm_name(job->algorithm));
    if (job->packed_u8 && tc_kernel_of(job) != TC_KERNEL_TILED &&
        tc_kernel_of(job) != TC_KERNEL_TILED_LONG)
        return tc_fail(m, TC_EINVAL, "%s: only tiled_conv and tiled_long_conv read bytes",
                       tc_algorithm_name(job->algorithm));
    launch_begin(&ls, d, job, &l->coeffs, src, dst, width);
    if ((status = prepare_kernel(d, programs, job, &ls, build_ms, m)) == TC_OK &&
        (status = tc_buffers_ensure(d, &l->coeffs, job, m)) == TC_OK &&
        (status = upload_coefficients(&ls, upload_events, m)) == TC_OK &&
        (status = a->set_args(&ls, m)) == TC_OK)
        /* The writes read the job's coefficients, which the caller may drop after this. */
        CL_CALL(status, cleanup, m, clFinish(d->queue));
cleanup:
    for (int i = 2; i >= 0; i--)
        if (upload_events[i])
            clReleaseEvent(upload_events[i]);
    l->kernel = ls.kernel;
    l->queue = d->queue;
    memcpy(l->global, ls.global, sizeof l->global);
    memcpy(l->local, ls.local, sizeof l->local);
    if (status != TC_OK)
        tc_launch_release(l);
    return status;
}

int tc_launch_enqueue(tc_launch *l, cl_event *event, tc_msg *m)
{
    return tc_enqueue(l->queue, l->kernel, l->global, l->local, event, m);
}

void tc_launch_release(tc_launch *l)
{
    if (l->kernel)
        clReleaseKernel(l->kernel);
    tc_buffers_release(&l->coeffs);
    memset(l, 0, sizeof *l);
}

int tc_run_resident(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
                    const tc_job *job, cl_mem src, cl_mem dst, int width, int height,
                    int warmup, int iterations, tc_run_stats *stats, tc_msg *m)
{
    const kernel_desc *a = &kernels[tc_kernel_of(job)];
    const int runs = warmup + iterations;
    cl_event upload_events[3] = {NULL, NULL, NULL};
    cl_event image_copy = NULL;
    cl_event *events = NULL; /* 2 per run: the warm-up runs, then the timed ones */
    const int reads_image = tc_reads_image(job->algorithm, job->storage);
    launch_state ls;
    double ms;
    int status;

    launch_begin(&ls, d, job, buffers, src, dst, width);
    memset(stats, 0, sizeof *stats);
    if ((status = tc_images_check(d, job->algorithm, job->storage, width, height, &job->roi,
                                  m)) != TC_OK ||
        (reads_image &&
         (status = tc_check_host_room(d, tc_images_new_bytes(&buffers->images, job->algorithm,
                                                             ls.pitch, height, &job->roi),
                                      "the images", m)) != TC_OK) ||
        (status = stats_begin(stats, &ls, iterations, m)) != TC_OK)
        goto cleanup;
    if (!(events = calloc((size_t)runs * 2, sizeof *events))) {
        status = tc_fail(m, TC_ENOMEM, "out of host memory for %d runs", runs);
        goto cleanup;
    }
    if ((status = prepare_kernel(d, programs, job, &ls, &stats->build_ms, m)) != TC_OK ||
        (status = tc_buffers_ensure(d, buffers, job, m)) != TC_OK ||
        (tc_kernel_of(job) == TC_KERNEL_TILED_SPLIT &&
         (status = tc_buffers_ensure_split(d, buffers, job, ls.pitch, m)) != TC_OK))
        goto cleanup;
    /* An image run reads a copy of the source plane in an image (timed as part of the
     * upload); the kernels take it where they would take the buffer. */
    if (reads_image) {
        if ((status = tc_images_source(d, &buffers->images, src, ls.pitch, height, &image_copy,
                                       m)) != TC_OK ||
            (job->algorithm == TC_BILINEAR &&
             (status = tc_bilinear_prepare(d, &buffers->images, &job->filter, &job->roi, m)) !=
                 TC_OK))
            goto cleanup;
        ls.src = buffers->images.src;
    }
    if ((status = upload_coefficients(&ls, upload_events, m)) != TC_OK ||
        (status = a->set_args(&ls, m)) != TC_OK ||
        (status = run_all(&ls, warmup, iterations, events, &stats->wall_ms_per_iteration, m)) !=
            TC_OK ||
        (status = collect(&ls, events, warmup, upload_events, stats, m)) != TC_OK)
        goto cleanup;
    if (image_copy) {
        if ((status = tc_event_ms(image_copy, &ms, m)) != TC_OK)
            goto cleanup;
        stats->h2d_ms += ms;
    }

cleanup:
    if (status != TC_OK) {
        /* A failed run may leave work queued that refers to the buffers. */
        clFinish(d->queue);
        tc_run_stats_free(stats);
    }
    tc_events_free(events, 2 * (size_t)runs);
    for (int i = 2; i >= 0; i--)
        if (upload_events[i])
            clReleaseEvent(upload_events[i]);
    if (image_copy)
        clReleaseEvent(image_copy);
    if (ls.kernel2)
        clReleaseKernel(ls.kernel2);
    if (ls.kernel)
        clReleaseKernel(ls.kernel);
    return status;
}

int tc_run(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
           const tc_job *job, const tc_plane *in, tc_plane *out, int warmup, int iterations,
           tc_run_stats *stats, tc_msg *m)
{
    /* Rows start on a 128-byte boundary on the device, so that the tiled kernel's float4
     * paths serve any image width, 8191 as well as 8192. */
    const int pitch = tc_device_pitch(in->width);
    const size_t plane_bytes = (size_t)pitch * (size_t)in->height * sizeof(float);
    cl_event upload = NULL, download = NULL;
    double ms;
    int status;

    memset(stats, 0, sizeof *stats);
    /* A device that cannot take the images is found before any plane is made. */
    if ((status = tc_images_check(d, job->algorithm, job->storage, in->width, in->height,
                                  &job->roi, m)) != TC_OK ||
        (status = tc_check_fits(d, in->width, in->height, m)) != TC_OK ||
        (status = tc_check_host_room(d, tc_new_bytes(buffers->src_bytes, plane_bytes) +
                                            tc_new_bytes(buffers->dst_bytes, plane_bytes) +
                                            (pitch != in->width
                                                 ? tc_new_bytes(buffers->staging_bytes,
                                                                plane_bytes)
                                                 : 0),
                                        "the image's planes", m)) != TC_OK ||
        /* Read-write, as the planes' buffers have always been made. */
        (status = tc_ensure_buffer(d, &buffers->src, &buffers->src_bytes, plane_bytes,
                                CL_MEM_READ_WRITE, "clCreateBuffer(input plane)", m)) != TC_OK ||
        (status = tc_ensure_buffer(d, &buffers->dst, &buffers->dst_bytes, plane_bytes,
                                CL_MEM_READ_WRITE, "clCreateBuffer(output plane)", m)) != TC_OK ||
        (status = tc_plane_upload(d->queue, buffers, in, pitch, plane_bytes, &upload, m)) != TC_OK)
        goto cleanup;
    if ((status = tc_run_resident(d, programs, buffers, job, buffers->src, buffers->dst,
                                  in->width, in->height, warmup, iterations, stats, m)) != TC_OK)
        goto cleanup;
    if ((status = tc_plane_download(d->queue, buffers, out, pitch, plane_bytes, &download, m)) !=
            TC_OK ||
        (status = tc_event_ms(upload, &ms, m)) != TC_OK)
        goto cleanup;
    stats->h2d_ms += ms;
    status = tc_event_ms(download, &stats->d2h_ms, m);

cleanup:
    if (status != TC_OK) {
        clFinish(d->queue);
        tc_run_stats_free(stats);
    }
    if (download)
        clReleaseEvent(download);
    if (upload)
        clReleaseEvent(upload);
    return status;
}

/* ---- Figures ---------------------------------------------------------------------------- */

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double tc_median(const double *values, int count)
{
    double *sorted = count > 0 ? malloc((size_t)count * sizeof *sorted) : NULL;
    double med;
    if (!sorted)
        return -1.0;
    memcpy(sorted, values, (size_t)count * sizeof *sorted);
    qsort(sorted, (size_t)count, sizeof *sorted, compare_double);
    med = count % 2 ? sorted[count / 2] : 0.5 * (sorted[count / 2 - 1] + sorted[count / 2]);
    free(sorted);
    return med;
}

int tc_copy_ms(const tc_device *d, size_t bytes, int repeats, double *median_ms, tc_msg *m)
{
    int status = TC_OK;
    cl_int err;
    cl_mem a = NULL, b = NULL;
    cl_event *events = calloc((size_t)repeats + 1, sizeof *events);
    double *ms = calloc((size_t)repeats, sizeof *ms);
    const float pattern = 1.0f;
    if (!events || !ms) {
        status = tc_fail(m, TC_ENOMEM, "out of host memory for %d copies", repeats);
        goto cleanup;
    }
    if ((status = tc_check_host_room(d, 2ULL * bytes, "the copy floor's two buffers", m)) !=
        TC_OK)
        goto cleanup;
    a = clCreateBuffer(d->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CL_CHECK(status, cleanup, m, err, "clCreateBuffer(copy source)");
    b = clCreateBuffer(d->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CL_CHECK(status, cleanup, m, err, "clCreateBuffer(copy target)");
    /* Filled, so that no implementation can skip pages it never backed. */
    CL_CALL(status, cleanup, m,
            clEnqueueFillBuffer(d->queue, a, &pattern, sizeof pattern, 0, bytes, 0, NULL, NULL));
    for (int i = 0; i <= repeats; i++)
        CL_CALL(status, cleanup, m,
                clEnqueueCopyBuffer(d->queue, a, b, 0, 0, bytes, 0, NULL, &events[i]));
    CL_CALL(status, cleanup, m, clFinish(d->queue));
    for (int i = 0; i < repeats; i++)
        if ((status = tc_event_ms(events[i + 1], &ms[i], m)) != TC_OK)
            goto cleanup;
    *median_ms = tc_median(ms, repeats);
cleanup:
    tc_events_free(events, (size_t)repeats + 1);
    free(ms);
    if (b)
        clReleaseMemObject(b);
    if (a)
        clReleaseMemObject(a);
    return status;
}

int tc_launch_preparable(const tc_job *job)
{
    return (job->algorithm == TC_TILED || job->algorithm == TC_ONEPASS) &&
           job->storage == TC_STORAGE_BUFFER && !job->count_classes &&
           tc_kernel_of(job) != TC_KERNEL_TILED_SPLIT; /* two passes */
}

void tc_launch_cache_release(tc_launch_cache *c)
{
    for (int i = 0; i < TC_LAUNCHES_KEPT; i++)
        if (c->kept[i].used)
            tc_launch_release(&c->kept[i].launch);
    memset(c, 0, sizeof *c);
}

int tc_launch_cache_get(tc_launch_cache *c, const tc_device *d, tc_program_cache *programs,
                        const tc_job *job, cl_mem src, cl_mem dst, int width, tc_launch **launch,
                        double *build_ms, tc_msg *m)
{
    tc_launch_kept *oldest = &c->kept[0];
    for (int i = 0; i < TC_LAUNCHES_KEPT; i++) {
        tc_launch_kept *e = &c->kept[i];
        if (e->used && e->width == width && memcmp(&e->job, job, sizeof *job) == 0) {
            e->age = ++c->clock;
            *launch = &e->launch;
            return TC_OK;
        }
        if (!e->used || (oldest->used && e->age < oldest->age))
            oldest = e;
    }
    /* A launch still queued keeps its kernel and buffers alive until it has run (OpenCL's
     * reference counts), so the oldest may go now. */
    if (oldest->used)
        tc_launch_release(&oldest->launch);
    oldest->used = 0;
    const int status =
        tc_launch_prepare(d, programs, job, src, dst, width, &oldest->launch, build_ms, m);
    if (status != TC_OK)
        return status;
    oldest->used = 1;
    oldest->width = width;
    oldest->job = *job;
    oldest->age = ++c->clock;
    *launch = &oldest->launch;
    return TC_OK;
}
