/*
 * gradient_launch.c - the gradient on a device: the x and y derivatives and their magnitude
 * from one read of the plane (gradient_tiled, src/Gradient.cl), or, for comparison, from the
 * plain tiled kernel run twice (launch.c's tc_run_resident with the operator's two separable
 * filters) and a magnitude kernel.
 *
 * A run: make sure the planes are on the device (the input, and the outputs starting as copies
 * of it, so that every pixel outside the target ROI keeps the input, as for tc_filter), run the
 * warm-up and the timed runs, and read back what was asked for.
 */
#include "gradient_launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "hostmem.h"
#include "params.h"
#include "tuning.h"

#define OPERATOR_COUNT 2

/* The smoothing [A B A] of each operator; the derivative is [-1 0 1] for both. */
static const float smoothing[OPERATOR_COUNT][3] = {{1.0f, 2.0f, 1.0f}, {3.0f, 10.0f, 3.0f}};
/* The same as OpenCL C literals, for the build options. */
static const char *const smoothing_cl[OPERATOR_COUNT][2] = {{"1.0f", "2.0f"},
                                                            {"3.0f", "10.0f"}};
static const float derivative[3] = {-1.0f, 0.0f, 1.0f};

void tc_gradient_buffers_release(tc_gradient_buffers *b)
{
    cl_mem *mems[] = {&b->counts, &b->gy, &b->gx};
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
        if (*mems[i])
            clReleaseMemObject(*mems[i]);
    free(b->staging);
    memset(b, 0, sizeof *b);
}

/* ---- The operators' filters ---------------------------------------------------------- */

/* p with the fields the gradient does not use set to what the tiled kernel needs at 3 taps:
 * the caller's ROIs, border, float4 choice and class counting kept. With axis 'x' or 'y' the
 * operator's filter for that derivative (kx, ky pointing into k), else the binomial. */
void tc_gradient_axis_params(const tc_params *p, tc_gradient_operator op, char axis,
                            float k[2][3], tc_params *q)
{
    *q = *p;
    q->taps_x = q->taps_y = 3;
    q->kx = q->ky = NULL;
    q->mask = NULL;
    q->mask_width = q->mask_height = 0;
    q->algorithm = TC_TILED;
    q->storage = TC_STORAGE_BUFFER;
    q->block_width = TC_TILED_BLOCK_X;
    q->block_height = TC_TILED_BLOCK_Y;
    if (axis == 'x' || axis == 'y') {
        /* gx: the derivative along the rows (kx), the smoothing down the columns (ky); gy the
         * other way round: --filter sobel-x and sobel-y (filter.h's sign convention). */
        memcpy(k[0], axis == 'x' ? derivative : smoothing[op], sizeof k[0]);
        memcpy(k[1], axis == 'x' ? smoothing[op] : derivative, sizeof k[1]);
        q->kx = k[0];
        q->ky = k[1];
    }
}

const float *tc_gradient_smoothing(tc_gradient_operator op)
{
    return smoothing[op];
}

/* ---- The device side ------------------------------------------------------------------- */

/* What one gradient run holds on the device. */
typedef struct {
    tc_gradient_parts c;
    const tc_job *job;
    tc_gradient_operator op;
    int planes;   /* the one-read kernel's outputs: 1 (magnitude), 3 (gx and gy too) */
    int width;    /* the image's */
    int pitch;    /* the device's row pitch, floats */
    size_t plane_bytes;
    cl_mem gx, gy; /* the derivative planes on the device, or the magnitude's where unused */
} run_state;

static int mod4(int a)
{
    return ((a % 4) + 4) % 4;
}

/* Gradient.cl's build options for this run (and the magnitude kernel's, in the same
 * program): Common.cl's radii (1 both ways) and the article's geometry, the border, the source
 * alignment, the operator. */
static void build_options(const run_state *rs, char *options, size_t size)
{
    const tc_job *job = rs->job;
    const char *extra = tc_tuning_now()->cl_options; /* kernel studies, as job_kernels.c */
    snprintf(options, size,
             "-cl-std=CL1.2 -D RADIUS_X=1 -D RADIUS_Y=1 -D GROUP_X=%d -D GROUP_Y=%d "
             "-D BLOCK_X=%d -D BLOCK_Y=%d "
             "-D BORDER=%d -D SHIFT=%d -D SMOOTH_OUTER=%s -D SMOOTH_CENTER=%s "
             "-D GRADIENT_PLANES=%d -D TC_VECTOR_IO=%d%s %s",
             TC_TILED_GROUP_X, TC_TILED_GROUP_Y, TC_TILED_BLOCK_X, TC_TILED_BLOCK_Y,
             (int)job->filter.border,
             job->vector_io ? mod4(job->roi.src_left - job->roi.dst_left) : 0,
             smoothing_cl[rs->op][0], smoothing_cl[rs->op][1], rs->planes, job->vector_io,
             job->count_classes ? " -D TC_COUNT_CLASSES" : "", extra);
}

/* The first tile starts this many columns left of the tROI (the target's 4-column grid). */
static int grid_offset(const tc_job *job)
{
    return job->vector_io ? mod4(job->roi.dst_left) : 0;
}

/* The device buffers of a run: the input and the magnitude (the context's planes), gx and gy
 * where they are used, the class counters. On a CPU device the host's room is checked first
 * (PoCL aborts when it cannot back a buffer). */
static int ensure_planes(run_state *rs, int use_derivatives, tc_msg *m)
{
    const tc_device *d = rs->c.device;
    tc_buffers *b = rs->c.buffers;
    tc_gradient_buffers *g = rs->c.gradient;
    const size_t bytes = rs->plane_bytes;
    int status;
    const unsigned long long more =
        tc_new_bytes(b->src_bytes, bytes) + tc_new_bytes(b->dst_bytes, bytes) +
        (use_derivatives ? tc_new_bytes(g->gx_bytes, bytes) + tc_new_bytes(g->gy_bytes, bytes)
                         : 0) +
        (rs->pitch != rs->width ? tc_new_bytes(g->staging_bytes, bytes) : 0);
    if ((status = tc_check_host_room(d, more, "the gradient's planes", m)) != TC_OK ||
        (status = tc_ensure_buffer(d, &b->src, &b->src_bytes, bytes, CL_MEM_READ_WRITE,
                                   "clCreateBuffer(input plane)", m)) != TC_OK ||
        (status = tc_ensure_buffer(d, &b->dst, &b->dst_bytes, bytes, CL_MEM_READ_WRITE,
                                   "clCreateBuffer(magnitude plane)", m)) != TC_OK)
        return status;
    if (use_derivatives &&
        ((status = tc_ensure_buffer(d, &g->gx, &g->gx_bytes, bytes, CL_MEM_READ_WRITE,
                                    "clCreateBuffer(gx plane)", m)) != TC_OK ||
         (status = tc_ensure_buffer(d, &g->gy, &g->gy_bytes, bytes, CL_MEM_READ_WRITE,
                                    "clCreateBuffer(gy plane)", m)) != TC_OK))
        return status;
    /* The one-read kernel without gx and gy still takes the two arguments: the magnitude's
     * plane, which its program never writes through them. */
    rs->gx = use_derivatives ? g->gx : b->dst;
    rs->gy = use_derivatives ? g->gy : b->dst;
    if (!g->counts) {
        cl_int err;
        g->counts = clCreateBuffer(d->context, CL_MEM_READ_WRITE, 4 * sizeof(cl_int), NULL, &err);
        if (err != CL_SUCCESS) {
            g->counts = NULL;
            return cl_fail(m, err, "clCreateBuffer(class counts)");
        }
    }
    return TC_OK;
}

/* The host copy of a plane with the device's row pitch, zeros in the padding (a rectangle
 * write would do the same, but oclgrind does not count it as initialising: buffers.c). */
static float *staging(tc_gradient_buffers *g, size_t bytes)
{
    return tc_staging(&g->staging, &g->staging_bytes, bytes);
}

/* The input to the device, and the outputs starting as copies of it (pixels outside the
 * tROI keep the input), by device copies rather than more uploads. */
static int upload(run_state *rs, const float *src, int width, int height, int use_derivatives,
                  cl_event *event, tc_msg *m)
{
    const cl_command_queue q = rs->c.device->queue;
    tc_buffers *b = rs->c.buffers;
    const float *host = src;
    int status = TC_OK;
    if (rs->pitch != width) {
        float *pad = staging(rs->c.gradient, rs->plane_bytes);
        if (!pad)
            return tc_fail(m, TC_ENOMEM, "out of host memory for the padded plane (%zu bytes)",
                           rs->plane_bytes);
        for (int y = 0; y < height; y++)
            memcpy(pad + (size_t)y * rs->pitch, src + (size_t)y * width,
                   (size_t)width * sizeof(float));
        host = pad;
    }
    CL_CALL(status, cleanup, m,
            clEnqueueWriteBuffer(q, b->src, CL_FALSE, 0, rs->plane_bytes, host, 0, NULL, event));
    CL_CALL(status, cleanup, m,
            clEnqueueCopyBuffer(q, b->src, b->dst, 0, 0, rs->plane_bytes, 0, NULL, NULL));
    if (use_derivatives) {
        CL_CALL(status, cleanup, m,
                clEnqueueCopyBuffer(q, b->src, rs->gx, 0, 0, rs->plane_bytes, 0, NULL, NULL));
        CL_CALL(status, cleanup, m,
                clEnqueueCopyBuffer(q, b->src, rs->gy, 0, 0, rs->plane_bytes, 0, NULL, NULL));
    }
    /* The write reads host memory that a padded copy may reuse: done before returning. */
    CL_CALL(status, cleanup, m, clFinish(q));
cleanup:
    return status;
}

/* One plane back to the host, through the staging copy when rows are padded. */
static int download(run_state *rs, cl_mem plane, float *out, int width, int height,
                    double *ms, tc_msg *m)
{
    const int padded = rs->pitch != width;
    float *pad = padded ? staging(rs->c.gradient, rs->plane_bytes) : NULL;
    if (padded && !pad)
        return tc_fail(m, TC_ENOMEM, "out of host memory for the padded plane (%zu bytes)",
                       rs->plane_bytes);
    return tc_plane_read(rs->c.device->queue, plane, rs->plane_bytes, pad, rs->pitch, out, width,
                         height, ms, m);
}

/* A kernel of the gradient program for this run, built now or taken from the cache, checked
 * against the device's limit on work-group size. */
static int get_kernel(run_state *rs, const char *name, size_t group, cl_kernel *kernel,
                      double *build_ms, tc_msg *m)
{
    const tc_device *d = rs->c.device;
    char options[1024];
    cl_program program;
    size_t kernel_group = 0;
    cl_int err;
    int status;
    build_options(rs, options, sizeof options);
    if ((status = tc_program_get(rs->c.programs, d, TC_SOURCE_GRADIENT, options, &program,
                                 build_ms, m)) != TC_OK)
        return status;
    *kernel = clCreateKernel(program, name, &err);
    if (err != CL_SUCCESS) {
        *kernel = NULL;
        return cl_fail(m, err, "clCreateKernel");
    }
    CL_CALL(status, cleanup, m,
            clGetKernelWorkGroupInfo(*kernel, d->device, CL_KERNEL_WORK_GROUP_SIZE,
                                     sizeof kernel_group, &kernel_group, NULL));
    if (group > kernel_group || group > d->max_group_size)
        return tc_fail(m, TC_EDEVICE,
                       "%s needs %zu work-items per group, but %s can run it with at most %zu",
                       name, group, d->info.name,
                       kernel_group < d->max_group_size ? kernel_group : d->max_group_size);
cleanup:
    return status;
}

/* Enqueues runs of kernel over global/local, each with its event, then waits; the host's wall
 * clock over the last `timed` of them. */
static int enqueue_runs(run_state *rs, cl_kernel kernel, const size_t global[2],
                        const size_t local[2], cl_event *events, int warmup, int timed,
                        double *wall_ms_per_run, tc_msg *m)
{
    const cl_command_queue q = rs->c.device->queue;
    int status = TC_OK;
    double wall0 = 0.0;
    for (int i = 0; i < warmup + timed; i++) {
        if (i == warmup) {
            CL_CALL(status, cleanup, m, clFinish(q));
            wall0 = tc_wall_ms();
        }
        if ((status = tc_enqueue(q, kernel, global, local, &events[i], m)) != TC_OK)
            goto cleanup;
    }
    CL_CALL(status, cleanup, m, clFinish(q));
    *wall_ms_per_run = (tc_wall_ms() - wall0) / timed;
cleanup:
    return status;
}

/* The one-read pass: gradient_tiled, warm-up and timed runs, into st. */
static int run_one_read(run_state *rs, int warmup, int iterations, tc_run_stats *st, tc_msg *m)
{
    const tc_job *job = rs->job;
    const tc_roi *r = &job->roi;
    const tc_buffers *b = rs->c.buffers;
    const tc_gradient_buffers *g = rs->c.gradient;
    const size_t local[2] = {TC_TILED_GROUP_X, TC_TILED_GROUP_Y};
    const int tile_w = TC_TILED_GROUP_X * TC_TILED_BLOCK_X;
    const int tile_h = TC_TILED_GROUP_Y * TC_TILED_BLOCK_Y;
    const size_t global[2] = {
        (size_t)((r->width + grid_offset(job) + tile_w - 1) / tile_w) * TC_TILED_GROUP_X,
        (size_t)((r->height + tile_h - 1) / tile_h) * TC_TILED_GROUP_Y};
    const int runs = warmup + iterations;
    cl_event *events = calloc((size_t)runs, sizeof *events);
    cl_kernel kernel = NULL;
    int status;
    if (!events)
        return tc_fail(m, TC_ENOMEM, "out of host memory for %d runs", runs);
    if ((status = get_kernel(rs, "gradient_tiled", local[0] * local[1], &kernel, &st->build_ms,
                             m)) != TC_OK)
        goto cleanup;
    {
        const tc_kernel_arg args[] = {
            TC_KARG(b->src),      TC_KARG(b->dst),     TC_KARG(rs->gx),
            TC_KARG(rs->gy),      TC_KARG(rs->pitch),  TC_KARG(r->src_left),
            TC_KARG(r->src_top),  TC_KARG(r->dst_left), TC_KARG(r->dst_top),
            TC_KARG(r->width),    TC_KARG(r->height),  TC_KARG(job->filter.border_value),
            TC_KARG(g->counts)};
        const int n = job->count_classes ? 13 : 12;
        if ((status = tc_set_args(kernel, "gradient_tiled", args, n, m)) != TC_OK)
            goto cleanup;
    }
    if (job->count_classes) {
        const cl_int zero = 0;
        CL_CALL(status, cleanup, m,
                clEnqueueFillBuffer(rs->c.device->queue, g->counts, &zero, sizeof zero, 0,
                                    4 * sizeof zero, 0, NULL, NULL));
    }
    if ((status = enqueue_runs(rs, kernel, global, local, events, warmup, iterations,
                               &st->wall_ms_per_iteration, m)) != TC_OK)
        goto cleanup;
    for (int i = 0; i < iterations; i++)
        if ((status = tc_event_ms(events[warmup + i], &st->kernel_ms[i], m)) != TC_OK)
            goto cleanup;
    memcpy(st->global, global, sizeof st->global);
    memcpy(st->local, local, sizeof st->local);
    st->block[0] = TC_TILED_BLOCK_X;
    st->block[1] = TC_TILED_BLOCK_Y;
    if (job->count_classes) {
        /* Every run, warm-up included, counted each group once. */
        cl_int counts[4];
        CL_CALL(status, cleanup, m,
                clEnqueueReadBuffer(rs->c.device->queue, g->counts, CL_TRUE, 0, sizeof counts,
                                    counts, 0, NULL, NULL));
        for (int i = 0; i < 4; i++)
            st->classes[i] = counts[i] / runs;
        st->classes_counted = 1;
    } else {
        /* gradient_tiled's groups are tiled_conv's at 3 taps (gradient_params), so the tiled
         * kernels' own prediction holds; local memory matters to tiled_long_conv only. */
        tc_tiled_classes(job, 0, st->classes);
    }
cleanup:
    tc_events_free(events, (size_t)runs);
    if (kernel)
        clReleaseKernel(kernel);
    return status;
}

/* The comparison: the plain tiled kernel with the operator's x filter into gx and its y
 * filter into gy (each run through launch.c as tc_filter would run it, on planes already on
 * the device), then gradient_magnitude. Run i's time is the three launches' of run i. */
static int run_separate(run_state *rs, const tc_params *p, int width, int height, int warmup,
                        int iterations, tc_run_stats *st, tc_msg *m)
{
    const tc_job *job = rs->job;
    const tc_roi *r = &job->roi;
    tc_buffers *b = rs->c.buffers;
    const size_t local[2] = {32, 8};
    const size_t global[2] = {(size_t)(r->width + 31) / 32 * 32,
                              (size_t)(r->height + 7) / 8 * 8};
    const int runs = warmup + iterations;
    tc_run_stats parts[2];
    cl_event *events = calloc((size_t)runs, sizeof *events);
    cl_kernel kernel = NULL;
    double build_ms = 0.0, wall_ms = 0.0;
    int status = TC_OK;
    memset(parts, 0, sizeof parts);
    if (!events)
        return tc_fail(m, TC_ENOMEM, "out of host memory for %d runs", runs);
    for (int a = 0; a < 2; a++) {
        float k[2][3];
        tc_params q;
        tc_job axis_job;
        tc_gradient_axis_params(p, rs->op, a == 0 ? 'x' : 'y', k, &q);
        q.count_classes = 0;
        if ((status = tc_job_from_params(&q, width, height, &axis_job, m)) != TC_OK ||
            (status = tc_run_resident(rs->c.device, rs->c.programs, b, &axis_job, b->src,
                                      a == 0 ? rs->gx : rs->gy, width, height, warmup,
                                      iterations, &parts[a], m)) != TC_OK)
            goto cleanup;
    }
    if ((status = get_kernel(rs, "gradient_magnitude", local[0] * local[1], &kernel, &build_ms,
                             m)) != TC_OK)
        goto cleanup;
    {
        const tc_kernel_arg args[] = {TC_KARG(rs->gx),       TC_KARG(rs->gy),
                                      TC_KARG(b->dst),       TC_KARG(rs->pitch),
                                      TC_KARG(r->dst_left),  TC_KARG(r->dst_top),
                                      TC_KARG(r->width),     TC_KARG(r->height)};
        if ((status = tc_set_args(kernel, "gradient_magnitude", args, 8, m)) != TC_OK)
            goto cleanup;
    }
    if ((status = enqueue_runs(rs, kernel, global, local, events, warmup, iterations, &wall_ms,
                               m)) != TC_OK)
        goto cleanup;
    for (int i = 0; i < iterations; i++) {
        double ms;
        if ((status = tc_event_ms(events[warmup + i], &ms, m)) != TC_OK)
            goto cleanup;
        st->kernel_ms[i] = parts[0].kernel_ms[i] + parts[1].kernel_ms[i] + ms;
    }
    st->build_ms = parts[0].build_ms + parts[1].build_ms + build_ms;
    st->h2d_ms += parts[0].h2d_ms + parts[1].h2d_ms; /* the coefficients */
    st->wall_ms_per_iteration =
        parts[0].wall_ms_per_iteration + parts[1].wall_ms_per_iteration + wall_ms;
    /* The figures of the tiled launches (the magnitude kernel's launch is global/local). */
    memcpy(st->global, parts[0].global, sizeof st->global);
    memcpy(st->local, parts[0].local, sizeof st->local);
    memcpy(st->block, parts[0].block, sizeof st->block);
    memcpy(st->classes, parts[0].classes, sizeof st->classes);
cleanup:
    tc_run_stats_free(&parts[0]);
    tc_run_stats_free(&parts[1]);
    tc_events_free(events, (size_t)runs);
    if (kernel)
        clReleaseKernel(kernel);
    return status;
}

int tc_gradient_run(const tc_gradient_parts *c, const tc_job *job, const tc_params *p,
                    tc_gradient_operator op, tc_gradient_method method, const float *src,
                    float *gx, float *gy, float *magnitude, int width, int height, int warmup,
                    int iterations, tc_run_stats *st, tc_msg *m)
{
    run_state rs;
    cl_event up = NULL;
    int status;
    memset(&rs, 0, sizeof rs);
    memset(st, 0, sizeof *st);
    rs.c = *c;
    const tc_device *d = rs.c.device;
    rs.job = job;
    rs.op = op;
    rs.planes = gx || gy ? 3 : 1;
    rs.width = width;
    rs.pitch = tc_device_pitch(width);
    rs.plane_bytes = (size_t)rs.pitch * (size_t)height * sizeof(float);
    const int use_derivatives = rs.planes == 3 || method == TC_GRADIENT_SEPARATE;
    const unsigned long long device_bytes = (use_derivatives ? 4ULL : 2ULL) * rs.plane_bytes;
    if ((status = tc_check_fits(d, width, height, m)) != TC_OK)
        return status;
    if (device_bytes > d->info.global_mem_bytes)
        return tc_fail(m, TC_EINVAL,
                       "a %d x %d gradient needs %.1f MB of device memory (input, magnitude%s), "
                       "more than the %.1f MB %s has (CL_DEVICE_GLOBAL_MEM_SIZE)",
                       width, height, tc_mb(device_bytes), use_derivatives ? ", gx, gy" : "",
                       tc_mb(d->info.global_mem_bytes), d->info.name);
    st->iterations = iterations;
    if (!(st->kernel_ms = calloc((size_t)iterations, sizeof(double))))
        return tc_fail(m, TC_ENOMEM, "out of host memory for %d iterations", iterations);
    if ((status = ensure_planes(&rs, use_derivatives, m)) != TC_OK ||
        (status = upload(&rs, src, width, height, use_derivatives, &up, m)) != TC_OK ||
        (status = tc_event_ms(up, &st->h2d_ms, m)) != TC_OK)
        goto cleanup;
    status = method == TC_GRADIENT_ONE_READ
                 ? run_one_read(&rs, warmup, iterations, st, m)
                 : run_separate(&rs, p, width, height, warmup, iterations, st, m);
    if (status != TC_OK ||
        (status = download(&rs, rs.c.buffers->dst, magnitude, width, height, &st->d2h_ms, m)) !=
            TC_OK ||
        (gx && (status = download(&rs, rs.gx, gx, width, height, &st->d2h_ms, m)) != TC_OK) ||
        (gy && (status = download(&rs, rs.gy, gy, width, height, &st->d2h_ms, m)) != TC_OK))
        goto cleanup;
cleanup:
    if (status != TC_OK) {
        clFinish(d->queue); /* a failed run may leave work queued on the buffers */
        tc_run_stats_free(st);
    }
    if (up)
        clReleaseEvent(up);
    return status;
}

