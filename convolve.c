/*
 * convolve.c - host side of the three algorithms. One shared driver (run_algorithm) does the
 * buffers, the warm-up, the timed loop and the read-back; each algorithm contributes only its
 * geometry and how to enqueue one filter run.
 */
#include "convolve.h"

#include <stdlib.h>
#include <string.h>

#include "kernel_source.h"

const char *tc_algorithm_name(tc_algorithm alg)
{
    static const char *const names[TC_ALG_COUNT] = {"tiled", "twopass", "onepass"};
    return alg < TC_ALG_COUNT ? names[alg] : "?";
}

void tc_session_init(tc_session *s, ocl_env *env)
{
    memset(s, 0, sizeof *s);
    s->env = env;
    s->block_x = TC_TILED_BLOCK_X;
    s->block_y = TC_TILED_BLOCK_Y;
    s->vector_io = 1;
}

void tc_session_count_classes(tc_session *s, int on)
{
    if ((on != 0) != s->count_classes) {
        tc_session_release(s); /* the counting is compiled in */
        s->count_classes = on != 0;
    }
}

int tc_session_set_tiled(tc_session *s, int block_x, int block_y, int vector_io)
{
    if (block_x % 4 != 0 || block_x < 4 || block_x > 8 || block_y < 1 || block_y > 16)
        return -1;
    /* Programs built for another geometry are dropped: the geometry is compiled in. */
    tc_session_release(s);
    s->block_x = block_x;
    s->block_y = block_y;
    s->vector_io = vector_io != 0;
    return 0;
}

void tc_session_release(tc_session *s)
{
    for (int a = 0; a < TC_ALG_COUNT; a++)
        for (int r = 0; r <= TC_MAX_RADIUS; r++)
            for (int b = 0; b < TC_BORDER_COUNT; b++)
                if (s->programs[a][r][b])
                    clReleaseProgram(s->programs[a][r][b]);
    memset(s->programs, 0, sizeof s->programs);
}

void tc_run_stats_free(tc_run_stats *stats)
{
    free(stats->kernel_ms);
    free(stats->pass_ms[0]);
    free(stats->pass_ms[1]);
    memset(stats, 0, sizeof *stats);
}

static long ceil_div(long a, long b)
{
    return (a + b - 1) / b;
}

int tc_device_pitch(int width)
{
    return (int)ceil_div(width, TC_ROW_ALIGN) * TC_ROW_ALIGN;
}

static int tiled_block_y(const tc_session *s, int radius);

void tc_tiled_classes(const tc_session *s, const tc_roi *roi, int pitch, int radius,
                      long classes[4])
{
    const long tile_w = TC_TILED_GROUP_X * s->block_x;
    const long tile_h = TC_TILED_GROUP_Y * tiled_block_y(s, radius);
    const long w = roi->width, h = roi->height;
    /* TiledConv.cl's HALO_VEC: aligned rows read their halo as whole float4s. */
    const int aligned_in = ((roi->src_left | pitch) & 3) == 0;
    const long apron_x = s->vector_io && aligned_in && radius >= 2 && radius <= 4 ? 4 : radius;
    memset(classes, 0, 4 * sizeof classes[0]);
    for (long t = 0; t < h; t += tile_h)
        for (long l = 0; l < w; l += tile_w) {
            int free_on_read = l >= apron_x && t >= radius && l + tile_w + apron_x <= w &&
                               t + tile_h + radius <= h;
            int free_on_write = l + tile_w <= w && t + tile_h <= h;
            classes[free_on_read ? 0 : 1]++;
            classes[free_on_write ? 2 : 3]++;
        }
}

/* The tiled kernel's block height: the session's, raised to the radius where that is larger,
 * since a work-item takes the RADIUS rows above and below its block from its two vertical
 * neighbours' blocks. */
static int tiled_block_y(const tc_session *s, int radius)
{
    return s->block_y >= radius ? s->block_y : radius;
}

/* The program for this algorithm, radius and border rule, built on first use with the shared
 * geometry. */
static int get_program(tc_session *s, tc_algorithm alg, int radius, tc_border_mode border,
                       cl_program *program, double *build_ms)
{
    *build_ms = 0.0;
    if (!s->programs[alg][radius][border]) {
        char options[1024];
        /* For kernel experiments (bench/): extra build options, appended. */
        const char *extra = getenv("TILEDCONV_CL_OPTIONS");
        snprintf(options, sizeof options,
                 "-cl-std=CL1.2 -D RADIUS=%d -D BORDER=%d -D GROUP_X=%d -D GROUP_Y=%d "
                 "-D BLOCK_X=%d -D BLOCK_Y=%d -D ONEPASS_GROUP=%d -D TWOPASS_TILE=%d "
                 "-D TC_VECTOR_IO=%d%s %s",
                 radius, (int)border, TC_TILED_GROUP_X, TC_TILED_GROUP_Y, s->block_x,
                 tiled_block_y(s, radius), TC_ONEPASS_GROUP, TC_TWOPASS_TILE, s->vector_io,
                 s->count_classes && alg == TC_ALG_TILED ? " -D TC_COUNT_CLASSES" : "",
                 extra ? extra : "");
        if (ocl_build_program(s->env, tiledconv_cl_lines, tiledconv_cl_line_count, options,
                              &s->programs[alg][radius][border],
                              &s->build_ms[alg][radius][border]))
            return 1;
        *build_ms = s->build_ms[alg][radius][border];
    }
    *program = s->programs[alg][radius][border];
    return 0;
}

/* Refuses, with a message and status 1, a launch the device cannot run, rather than letting
 * OpenCL fail inside clEnqueueNDRangeKernel with a bare error code. */
static int check_limits(tc_session *s, cl_kernel kernel, const char *name, const size_t local[2])
{
    int status = 0;
    const ocl_env *env = s->env;
    size_t kernel_group = 0;
    cl_ulong kernel_local = 0;
    if (local[0] > env->max_item_sizes[0] || local[1] > env->max_item_sizes[1] ||
        local[0] * local[1] > env->max_group_size) {
        fprintf(stderr,
                "tiledconv: %s needs work-groups of %zu x %zu, but %s allows at most %zu "
                "work-items (%zu x %zu)\n",
                name, local[0], local[1], env->device_name, env->max_group_size,
                env->max_item_sizes[0], env->max_item_sizes[1]);
        return 1;
    }
    OCL_CALL(clGetKernelWorkGroupInfo(kernel, env->device, CL_KERNEL_WORK_GROUP_SIZE,
                                      sizeof kernel_group, &kernel_group, NULL));
    OCL_CALL(clGetKernelWorkGroupInfo(kernel, env->device, CL_KERNEL_LOCAL_MEM_SIZE,
                                      sizeof kernel_local, &kernel_local, NULL));
    if (local[0] * local[1] > kernel_group) {
        fprintf(stderr,
                "tiledconv: %s needs %zu work-items per group, but %s can run it with at most "
                "%zu (register or resource limit)\n",
                name, local[0] * local[1], env->device_name, kernel_group);
        return 1;
    }
    if (kernel_local > env->local_mem_size) {
        fprintf(stderr, "tiledconv: %s needs %llu bytes of local memory, %s has %llu\n", name,
                (unsigned long long)kernel_local, env->device_name,
                (unsigned long long)env->local_mem_size);
        return 1;
    }
cleanup:
    return status;
}

/* Kernel arguments as (size, address) pairs, set in order; a failure names the argument. */
typedef struct {
    size_t size;
    const void *value;
} kernel_arg;
#define KARG(v) {sizeof(v), &(v)}

static int set_args(cl_kernel kernel, const char *name, const kernel_arg *args, int count)
{
    for (int i = 0; i < count; i++) {
        cl_int err = clSetKernelArg(kernel, (cl_uint)i, args[i].size, args[i].value);
        if (err != CL_SUCCESS) {
            char what[96];
            snprintf(what, sizeof what, "clSetKernelArg(%s, %d)", name, i);
            ocl_report(what, err, __FILE__, __LINE__);
            return 1;
        }
    }
    return 0;
}

/* The device side of one run. */
typedef struct {
    cl_mem src, dst, tmp, kx, ky;
    cl_kernel kernel;
    const tc_roi *roi;
    const tc_filter *filter;
    cl_mem class_counts; /* tiled with TC_COUNT_CLASSES: 4 ints */
    int pitch;      /* the device's row pitch in floats (tc_device_pitch) */
    size_t local[2];
    size_t global[2];
} launch_state;

/* What each algorithm brings to the shared driver. */
typedef struct {
    tc_algorithm alg;
    const char *kernel_name;
    size_t local[2];
    int passes;
    /* Global size for this ROI. */
    void (*geometry)(const tc_session *s, const tc_roi *roi, int radius, size_t global[2]);
    /* Sets the arguments that do not change between iterations; 0 or 1 (reported). */
    int (*set_args)(launch_state *ls);
    /* Enqueues one complete filter run; events[p] receives pass p's event. 0 or 1. */
    int (*enqueue)(tc_session *s, launch_state *ls, cl_event events[2]);
} algorithm_desc;

static void tiled_geometry(const tc_session *s, const tc_roi *roi, int radius, size_t global[2])
{
    global[0] = (size_t)ceil_div(roi->width, TC_TILED_GROUP_X * s->block_x) * TC_TILED_GROUP_X;
    global[1] = (size_t)ceil_div(roi->height, TC_TILED_GROUP_Y * tiled_block_y(s, radius)) *
                TC_TILED_GROUP_Y;
}

static void one_pass_geometry(const tc_session *s, const tc_roi *roi, int radius,
                              size_t global[2])
{
    (void)s;
    (void)radius;
    global[0] = (size_t)ceil_div(roi->width, TC_ONEPASS_GROUP) * TC_ONEPASS_GROUP;
    global[1] = (size_t)ceil_div(roi->height, TC_ONEPASS_GROUP) * TC_ONEPASS_GROUP;
}

/* Pass 1 covers the ROI; pass 2 the transposed ROI, whose global size run_algorithm derives. */
static void two_pass_geometry(const tc_session *s, const tc_roi *roi, int radius,
                              size_t global[2])
{
    (void)s;
    (void)radius;
    global[0] = (size_t)ceil_div(roi->width, TC_TWOPASS_TILE) * TC_TWOPASS_TILE;
    global[1] = (size_t)ceil_div(roi->height, TC_TWOPASS_TILE) * TC_TWOPASS_TILE;
}

/* tiled_conv and one_pass_conv take the same arguments. */
static int direct_set_args(launch_state *ls)
{
    const tc_roi *r = ls->roi;
    const kernel_arg args[] = {KARG(ls->src),     KARG(ls->dst),     KARG(ls->pitch),
                               KARG(r->src_left), KARG(r->src_top),  KARG(r->dst_left),
                               KARG(r->dst_top),  KARG(r->width),    KARG(r->height),
                               KARG(ls->kx),      KARG(ls->ky),
                               KARG(ls->filter->border_value)};
    const int n = (int)(sizeof args / sizeof args[0]);
    if (set_args(ls->kernel, "tiled_conv/one_pass_conv", args, n))
        return 1;
    if (ls->class_counts) {
        const kernel_arg counts[] = {KARG(ls->class_counts)};
        /* set_args numbers from 0, so this one argument goes through clSetKernelArg itself */
        cl_int err = clSetKernelArg(ls->kernel, (cl_uint)n, counts[0].size, counts[0].value);
        if (err != CL_SUCCESS) {
            ocl_report("clSetKernelArg(tiled_conv, class counts)", err, __FILE__, __LINE__);
            return 1;
        }
    }
    return 0;
}

static int direct_enqueue(tc_session *s, launch_state *ls, cl_event events[2])
{
    int status = 0;
    OCL_CALL(clEnqueueNDRangeKernel(s->env->queue, ls->kernel, 2, NULL, ls->global, ls->local,
                                    0, NULL, &events[0]));
cleanup:
    return status;
}

/* The two passes of rows_transposed_conv differ in every argument, so they are set per pass. */
static int two_pass_set_args(launch_state *ls)
{
    (void)ls;
    return 0;
}

static int two_pass_enqueue(tc_session *s, launch_state *ls, cl_event events[2])
{
    int status = 0;
    const tc_roi *r = ls->roi;
    const int zero = 0;
    /* Pass 2 filters rows that pass 1 already filtered with kx, so a constant border there is
     * the constant filtered by kx. */
    float pass2_value = 0.0f;
    for (int i = 0; i < ls->filter->taps; i++)
        pass2_value += ls->filter->kx[i] * ls->filter->border_value;
    /* Pass 1: rows of the sROI, filtered with kx, into tmp transposed (h x w, pitch h). */
    const kernel_arg pass1[] = {KARG(ls->src),   KARG(ls->pitch),   KARG(r->src_left),
                                KARG(r->src_top), KARG(ls->tmp),    KARG(r->height),
                                KARG(zero),       KARG(zero),       KARG(r->width),
                                KARG(r->height),  KARG(ls->kx),
                                KARG(ls->filter->border_value)};
    /* Pass 2: rows of tmp (the original columns), filtered with ky, into the tROI transposed
     * back. tmp is a region r->height wide and r->width high. */
    const kernel_arg pass2[] = {KARG(ls->tmp),    KARG(r->height),   KARG(zero),
                                KARG(zero),       KARG(ls->dst),     KARG(ls->pitch),
                                KARG(r->dst_left), KARG(r->dst_top), KARG(r->height),
                                KARG(r->width),   KARG(ls->ky),     KARG(pass2_value)};
    size_t global2[2] = {(size_t)ceil_div(r->height, TC_TWOPASS_TILE) * TC_TWOPASS_TILE,
                         (size_t)ceil_div(r->width, TC_TWOPASS_TILE) * TC_TWOPASS_TILE};
    const int n = (int)(sizeof pass1 / sizeof pass1[0]);

    if (set_args(ls->kernel, "rows_transposed_conv pass 1", pass1, n))
        return 1;
    OCL_CALL(clEnqueueNDRangeKernel(s->env->queue, ls->kernel, 2, NULL, ls->global, ls->local,
                                    0, NULL, &events[0]));
    /* An in-order queue: pass 2 starts after pass 1 has finished, and clSetKernelArg's values
     * were captured by the first enqueue. */
    if (set_args(ls->kernel, "rows_transposed_conv pass 2", pass2, n))
        return 1;
    OCL_CALL(clEnqueueNDRangeKernel(s->env->queue, ls->kernel, 2, NULL, global2, ls->local, 0,
                                    NULL, &events[1]));
cleanup:
    return status;
}

static const algorithm_desc algorithms[TC_ALG_COUNT] = {
    {TC_ALG_TILED, "tiled_conv", {TC_TILED_GROUP_X, TC_TILED_GROUP_Y}, 1, tiled_geometry,
     direct_set_args, direct_enqueue},
    {TC_ALG_TWOPASS, "rows_transposed_conv", {TC_TWOPASS_TILE, TC_TWOPASS_TILE}, 2,
     two_pass_geometry, two_pass_set_args, two_pass_enqueue},
    {TC_ALG_ONEPASS, "one_pass_conv", {TC_ONEPASS_GROUP, TC_ONEPASS_GROUP}, 1,
     one_pass_geometry, direct_set_args, direct_enqueue},
};

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double tc_median(const double *values, int count)
{
    double *sorted = malloc((size_t)count * sizeof *sorted);
    double m;
    if (!sorted || count <= 0) {
        free(sorted);
        return -1.0;
    }
    memcpy(sorted, values, (size_t)count * sizeof *sorted);
    qsort(sorted, (size_t)count, sizeof *sorted, compare_double);
    m = count % 2 ? sorted[count / 2] : 0.5 * (sorted[count / 2 - 1] + sorted[count / 2]);
    free(sorted);
    return m;
}

static cl_mem create_buffer(tc_session *s, cl_mem_flags flags, size_t bytes, cl_int *err)
{
    return clCreateBuffer(s->env->context, flags, bytes, NULL, err);
}

/* The shared driver. */
static int run_algorithm(tc_session *s, tc_algorithm alg, const tc_plane *in, const tc_roi *roi,
                         const tc_filter *f, int iterations, tc_plane *out,
                         tc_run_stats *stats)
{
    const algorithm_desc *d = &algorithms[alg];
    const int radius = (f->taps - 1) / 2;
    /* On the device each row starts on a 128-byte boundary (tc_device_pitch), so that the tiled
     * kernel's float4 paths serve any image width, 8191 as well as 8192. */
    const int pitch = tc_device_pitch(in->width);
    const size_t plane_bytes = (size_t)pitch * (size_t)in->height * sizeof(float);
    float *staging = NULL; /* the plane with the device's pitch, when that differs */
    int status = 0;
    cl_int err;
    cl_program program = NULL;
    cl_event upload[3] = {NULL, NULL, NULL}, download = NULL;
    cl_event *events = NULL; /* (1 + iterations) * 2: the warm-up, then the timed runs */
    const int runs = 1 + iterations;
    launch_state ls;

    memset(&ls, 0, sizeof ls);
    memset(stats, 0, sizeof *stats);
    stats->iterations = iterations;
    ls.roi = roi;
    ls.filter = f;
    ls.pitch = pitch;
    ls.local[0] = d->local[0];
    ls.local[1] = d->local[1];
    d->geometry(s, roi, radius, ls.global);
    stats->global[0] = ls.global[0];
    stats->global[1] = ls.global[1];
    stats->local[0] = ls.local[0];
    stats->local[1] = ls.local[1];
    if (alg == TC_ALG_TILED)
    {
        tc_tiled_classes(s, roi, pitch, radius, stats->classes);
        stats->block[0] = s->block_x;
        stats->block[1] = tiled_block_y(s, radius);
    }

    if (f->taps < TC_MIN_TAPS || f->taps > TC_MAX_TAPS || f->taps % 2 == 0) {
        fprintf(stderr, "tiledconv: %d taps: the filter length must be odd, %d..%d\n", f->taps,
                TC_MIN_TAPS, TC_MAX_TAPS);
        return 1;
    }
    if (f->border >= TC_BORDER_COUNT) {
        fprintf(stderr, "tiledconv: unknown border mode %d\n", (int)f->border);
        return 1;
    }

    stats->kernel_ms = calloc((size_t)iterations, sizeof(double));
    events = calloc((size_t)runs * 2, sizeof *events);
    if (d->passes == 2) {
        stats->pass_ms[0] = calloc((size_t)iterations, sizeof(double));
        stats->pass_ms[1] = calloc((size_t)iterations, sizeof(double));
    }
    if (!stats->kernel_ms || !events ||
        (d->passes == 2 && (!stats->pass_ms[0] || !stats->pass_ms[1]))) {
        fprintf(stderr, "tiledconv: out of host memory for %d iterations\n", iterations);
        status = 1;
        goto cleanup;
    }

    if (get_program(s, alg, radius, f->border, &program, &stats->build_ms)) {
        status = 1;
        goto cleanup;
    }
    ls.kernel = clCreateKernel(program, d->kernel_name, &err);
    OCL_CHECK(err, "clCreateKernel");
    if (check_limits(s, ls.kernel, tc_algorithm_name(alg), ls.local)) {
        status = 1;
        goto cleanup;
    }

    ls.src = create_buffer(s, CL_MEM_READ_ONLY, plane_bytes, &err);
    OCL_CHECK(err, "clCreateBuffer(input plane)");
    ls.dst = create_buffer(s, CL_MEM_READ_WRITE, plane_bytes, &err);
    OCL_CHECK(err, "clCreateBuffer(output plane)");
    ls.kx = create_buffer(s, CL_MEM_READ_ONLY, sizeof f->kx, &err);
    OCL_CHECK(err, "clCreateBuffer(kx)");
    ls.ky = create_buffer(s, CL_MEM_READ_ONLY, sizeof f->ky, &err);
    OCL_CHECK(err, "clCreateBuffer(ky)");
    if (alg == TC_ALG_TILED && s->count_classes) {
        const cl_int zeros[4] = {0, 0, 0, 0};
        ls.class_counts = clCreateBuffer(s->env->context, CL_MEM_READ_WRITE |
                                         CL_MEM_COPY_HOST_PTR, sizeof zeros, (void *)zeros, &err);
        OCL_CHECK(err, "clCreateBuffer(class counts)");
    }
    if (d->passes == 2) {
        ls.tmp = create_buffer(s, CL_MEM_READ_WRITE,
                               (size_t)roi->width * (size_t)roi->height * sizeof(float), &err);
        OCL_CHECK(err, "clCreateBuffer(two-pass temporary)");
    }

    /* Padded rows go through a host copy with the device's pitch (zeros in the padding), not
     * clEnqueueWriteBufferRect: the same bytes, and oclgrind, which checks the kernels for
     * reads of uninitialised memory, does not count a rectangle write as initialising. */
    if (pitch != in->width) {
        staging = calloc(plane_bytes, 1);
        if (!staging) {
            fprintf(stderr, "tiledconv: out of host memory for the padded plane\n");
            status = 1;
            goto cleanup;
        }
        for (int y = 0; y < in->height; y++)
            memcpy(staging + (size_t)y * pitch, in->px + (size_t)y * in->width,
                   (size_t)in->width * sizeof(float));
    }
    OCL_CALL(clEnqueueWriteBuffer(s->env->queue, ls.src, CL_FALSE, 0, plane_bytes,
                                  staging ? staging : in->px, 0, NULL, &upload[0]));
    OCL_CALL(clEnqueueWriteBuffer(s->env->queue, ls.kx, CL_FALSE, 0, sizeof f->kx, f->kx, 0,
                                  NULL, &upload[1]));
    OCL_CALL(clEnqueueWriteBuffer(s->env->queue, ls.ky, CL_FALSE, 0, sizeof f->ky, f->ky, 0,
                                  NULL, &upload[2]));
    /* The output plane starts as the input (SPEC.md): a device copy, not a second upload. */
    OCL_CALL(clEnqueueCopyBuffer(s->env->queue, ls.src, ls.dst, 0, 0, plane_bytes, 0, NULL,
                                 NULL));

    if (d->set_args(&ls)) {
        status = 1;
        goto cleanup;
    }
    /* The warm-up (events[0..1]), then the timed runs back to back: the kernel times come from
     * each kernel's own profiling counters. The host's wall clock around the timed batch gives
     * the time per iteration launches included, which is what small images are limited by. */
    if (d->enqueue(s, &ls, &events[0])) {
        status = 1;
        goto cleanup;
    }
    OCL_CALL(clFinish(s->env->queue));
    double wall0 = ocl_wall_ms();
    for (int i = 1; i < runs; i++)
        if (d->enqueue(s, &ls, &events[2 * i])) {
            status = 1;
            goto cleanup;
        }
    OCL_CALL(clFinish(s->env->queue));
    stats->wall_ms_per_iteration = (ocl_wall_ms() - wall0) / iterations;
    OCL_CALL(clEnqueueReadBuffer(s->env->queue, ls.dst, CL_FALSE, 0, plane_bytes,
                                 staging ? staging : out->px, 0, NULL, &download));
    OCL_CALL(clFinish(s->env->queue));
    if (staging)
        for (int y = 0; y < in->height; y++)
            memcpy(out->px + (size_t)y * in->width, staging + (size_t)y * pitch,
                   (size_t)in->width * sizeof(float));

    if (ls.class_counts) {
        /* Every run (the warm-up and the timed ones) counted each group once. */
        cl_int counts[4];
        OCL_CALL(clEnqueueReadBuffer(s->env->queue, ls.class_counts, CL_TRUE, 0, sizeof counts,
                                     counts, 0, NULL, NULL));
        for (int i = 0; i < 4; i++)
            stats->classes[i] = counts[i] / runs;
        stats->classes_counted = 1;
    }
    stats->h2d_ms = 0.0;
    for (int i = 0; i < 3; i++)
        stats->h2d_ms += ocl_event_ms(upload[i]);
    stats->d2h_ms = ocl_event_ms(download);
    for (int i = 0; i < iterations; i++) {
        double total = 0.0;
        for (int p = 0; p < d->passes; p++) {
            double ms = ocl_event_ms(events[2 * (i + 1) + p]);
            if (ms < 0.0) {
                status = 1;
                goto cleanup;
            }
            if (d->passes == 2)
                stats->pass_ms[p][i] = ms;
            total += ms;
        }
        stats->kernel_ms[i] = total;
    }

cleanup:
    free(staging);
    if (events)
        for (int i = 0; i < 2 * runs; i++)
            if (events[i])
                clReleaseEvent(events[i]);
    free(events);
    if (download)
        clReleaseEvent(download);
    for (int i = 2; i >= 0; i--)
        if (upload[i])
            clReleaseEvent(upload[i]);
    if (ls.class_counts)
        clReleaseMemObject(ls.class_counts);
    if (ls.tmp)
        clReleaseMemObject(ls.tmp);
    if (ls.ky)
        clReleaseMemObject(ls.ky);
    if (ls.kx)
        clReleaseMemObject(ls.kx);
    if (ls.dst)
        clReleaseMemObject(ls.dst);
    if (ls.src)
        clReleaseMemObject(ls.src);
    if (ls.kernel)
        clReleaseKernel(ls.kernel);
    if (status) {
        /* A failed run may leave work queued that refers to the buffers released above. */
        clFinish(s->env->queue);
        tc_run_stats_free(stats);
    }
    return status;
}

int run_tiled(tc_session *s, const tc_plane *in, const tc_roi *roi, const tc_filter *f,
              int iterations, tc_plane *out, tc_run_stats *stats)
{
    return run_algorithm(s, TC_ALG_TILED, in, roi, f, iterations, out, stats);
}

int run_two_pass(tc_session *s, const tc_plane *in, const tc_roi *roi, const tc_filter *f,
                 int iterations, tc_plane *out, tc_run_stats *stats)
{
    return run_algorithm(s, TC_ALG_TWOPASS, in, roi, f, iterations, out, stats);
}

int run_one_pass(tc_session *s, const tc_plane *in, const tc_roi *roi, const tc_filter *f,
                 int iterations, tc_plane *out, tc_run_stats *stats)
{
    return run_algorithm(s, TC_ALG_ONEPASS, in, roi, f, iterations, out, stats);
}

tc_run_fn tc_algorithm_run(tc_algorithm alg)
{
    static const tc_run_fn runners[TC_ALG_COUNT] = {run_tiled, run_two_pass, run_one_pass};
    return alg < TC_ALG_COUNT ? runners[alg] : NULL;
}

int tc_measure_copy(tc_session *s, size_t bytes, int repeats, double *copy_ms)
{
    int status = 0;
    cl_int err;
    cl_mem a = NULL, b = NULL;
    cl_event *events = calloc((size_t)repeats + 1, sizeof *events);
    double *ms = calloc((size_t)repeats, sizeof *ms);
    if (!events || !ms) {
        fprintf(stderr, "tiledconv: out of host memory\n");
        status = 1;
        goto cleanup;
    }
    a = create_buffer(s, CL_MEM_READ_WRITE, bytes, &err);
    OCL_CHECK(err, "clCreateBuffer(copy source)");
    b = create_buffer(s, CL_MEM_READ_WRITE, bytes, &err);
    OCL_CHECK(err, "clCreateBuffer(copy target)");
    /* Filled, so that no implementation can skip pages it never backed. */
    {
        const float pattern = 1.0f;
        OCL_CALL(clEnqueueFillBuffer(s->env->queue, a, &pattern, sizeof pattern, 0, bytes, 0,
                                     NULL, NULL));
    }
    for (int i = 0; i <= repeats; i++)
        OCL_CALL(clEnqueueCopyBuffer(s->env->queue, a, b, 0, 0, bytes, 0, NULL, &events[i]));
    OCL_CALL(clFinish(s->env->queue));
    for (int i = 0; i < repeats; i++)
        if ((ms[i] = ocl_event_ms(events[i + 1])) < 0.0) {
            status = 1;
            goto cleanup;
        }
    *copy_ms = tc_median(ms, repeats);
cleanup:
    if (events)
        for (int i = 0; i <= repeats; i++)
            if (events[i])
                clReleaseEvent(events[i]);
    free(events);
    free(ms);
    if (b)
        clReleaseMemObject(b);
    if (a)
        clReleaseMemObject(a);
    return status;
}
