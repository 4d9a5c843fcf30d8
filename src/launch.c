/*
 * launch.c - host side of the three algorithms. tc_run walks one filter run through its steps:
 * check the job against the device, get the program and kernel, make sure the buffers are
 * there, upload, run (warm-up, then the timed runs), read back, collect the times. Each
 * algorithm contributes only its geometry and how it enqueues one filter run.
 */
#include "launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "hostmem.h"

TC_API const char *tc_algorithm_name(tc_algorithm a)
{
    static const char *const names[] = {"tiled", "twopass", "onepass", "bilinear"};
    return (int)a >= 0 && a <= TC_BILINEAR ? names[a] : "?";
}

static long ceil_div(long a, long b)
{
    return (a + b - 1) / b;
}

int tc_device_pitch(int width)
{
    return (int)ceil_div(width, TC_ROW_ALIGN) * TC_ROW_ALIGN;
}

/* The tiled kernel's block height: the job's, raised to the radius where that is larger,
 * since a work-item takes the RADIUS rows above and below its block from its two vertical
 * neighbours' blocks; and from radius TC_TILED_LONG_RADIUS to at least
 * TC_TILED_LONG_BLOCK_Y, where taller tiles measured faster. */
static int tiled_block_y(const tc_job *job)
{
    const int radius = (job->filter.taps - 1) / 2;
    int block_y = job->block_y >= radius ? job->block_y : radius;
    if (radius >= TC_TILED_LONG_RADIUS && block_y < TC_TILED_LONG_BLOCK_Y)
        block_y = TC_TILED_LONG_BLOCK_Y;
    return block_y;
}

/* a mod 4 in 0..3, for either sign of a. */
static int mod4(int a)
{
    return ((a % 4) + 4) % 4;
}

/* a rounded down to a multiple of 4, for either sign of a. */
static int floor4(int a)
{
    return a - mod4(a);
}

int tc_tiled_shift(const tc_job *job)
{
    return job->vector_io ? mod4(job->roi.src_left - job->roi.dst_left) : 0;
}

/* TiledConv.cl's ox: the tiles sit on the target's 4-column grid, the first one starting
 * dst_left mod 4 columns left of the tROI (with float4 I/O; none without). */
static int tiled_grid_offset(const tc_job *job)
{
    return job->vector_io ? mod4(job->roi.dst_left) : 0;
}

/* TiledConv.cl's APRON_L and APRON_R: the columns a block row's reads reach left of the block
 * and right of it. With float4 I/O the row is read as the aligned float4s that cover it
 * (WIN_LO .. WIN_HI relative to the multiple of 4 at or before the block's first source
 * column), except aligned rows of radius 1, read as the block's float4s and one float a side. */
static void tiled_aprons(const tc_job *job, int *left, int *right)
{
    const int radius = (job->filter.taps - 1) / 2;
    const int shift = tc_tiled_shift(job);
    if (!job->vector_io || (shift == 0 && radius == 1)) {
        *left = *right = radius;
        return;
    }
    const int lo = floor4(shift - radius);
    const int hi = floor4(shift + job->block_x - 1 + radius) + 4;
    *left = shift - lo;
    *right = hi - shift - job->block_x;
}

void tc_tiled_tiles(const tc_job *job, void (*visit)(void *arg, const tc_tile_class *tile),
                    void *arg)
{
    const tc_roi *roi = &job->roi;
    const int radius = (job->filter.taps - 1) / 2;
    const int tile_w = TC_TILED_GROUP_X * job->block_x;
    const int tile_h = TC_TILED_GROUP_Y * tiled_block_y(job);
    const int w = roi->width, h = roi->height;
    int apron_l, apron_r;
    tiled_aprons(job, &apron_l, &apron_r);
    for (int t = 0; t < h; t += tile_h)
        for (int l = -tiled_grid_offset(job); l < w; l += tile_w) {
            /* tiled_conv's two tests, on the same values. */
            const tc_tile_class tile = {
                l, t, tile_w, tile_h,
                l >= apron_l && t >= radius && l + tile_w + apron_r <= w &&
                    t + tile_h + radius <= h,
                l >= 0 && l + tile_w <= w && t + tile_h <= h};
            visit(arg, &tile);
        }
}

static void count_tile(void *arg, const tc_tile_class *tile)
{
    long *classes = arg;
    classes[tile->free_on_read ? 0 : 1]++;
    classes[tile->free_on_write ? 2 : 3]++;
}

void tc_tiled_classes(const tc_job *job, int pitch, long classes[4])
{
    (void)pitch; /* device rows are padded to TC_ROW_ALIGN floats: always float4-aligned */
    memset(classes, 0, 4 * sizeof classes[0]);
    tc_tiled_tiles(job, count_tile, classes);
}

/* ---- What each algorithm brings -------------------------------------------------------- */

/* The device side of one run. */
typedef struct {
    const tc_job *job;
    const tc_buffers *buf; /* the coefficients, the two-pass temporary, the class counts */
    cl_mem src, dst;       /* the planes this run reads and writes */
    cl_command_queue queue;
    cl_kernel kernel;
    cl_kernel kernel2;  /* bilinear: pass 2 (pass 1 is kernel) */
    int pitch;          /* the device's row pitch in floats (tc_device_pitch) */
    size_t local[2];
    size_t global[2];
} launch_state;

int tc_set_args(cl_kernel kernel, const char *name, const tc_kernel_arg *args, int count,
                tc_msg *m)
{
    for (int i = 0; i < count; i++) {
        cl_int err = clSetKernelArg(kernel, (cl_uint)i, args[i].size, args[i].value);
        if (err != CL_SUCCESS) {
            char what[96];
            snprintf(what, sizeof what, "clSetKernelArg(%s, argument %d)", name, i);
            return cl_fail(m, err, what);
        }
    }
    return TC_OK;
}

typedef struct {
    const char *kernel_name;
    size_t local[2];
    int passes;
    /* The global size for this job. */
    void (*geometry)(const tc_job *job, size_t global[2]);
    /* Sets the arguments that stay the same for every run. */
    int (*set_args)(launch_state *ls, tc_msg *m);
    /* Enqueues one complete filter run; events[p] receives pass p's event. */
    int (*enqueue)(launch_state *ls, cl_event events[2], tc_msg *m);
} algorithm_desc;

static void tiled_geometry(const tc_job *job, size_t global[2])
{
    global[0] = (size_t)ceil_div(job->roi.width + tiled_grid_offset(job),
                                 TC_TILED_GROUP_X * job->block_x) *
                TC_TILED_GROUP_X;
    global[1] = (size_t)ceil_div(job->roi.height, TC_TILED_GROUP_Y * tiled_block_y(job)) *
                TC_TILED_GROUP_Y;
}

static void one_pass_geometry(const tc_job *job, size_t global[2])
{
    global[0] = (size_t)ceil_div(job->roi.width, TC_ONEPASS_GROUP) * TC_ONEPASS_GROUP;
    global[1] = (size_t)ceil_div(job->roi.height, TC_ONEPASS_GROUP) * TC_ONEPASS_GROUP;
}

/* Pass 1 covers the ROI; pass 2, the transposed ROI, is sized in two_pass_enqueue. */
static void two_pass_geometry(const tc_job *job, size_t global[2])
{
    global[0] = (size_t)ceil_div(job->roi.width, TC_TWOPASS_TILE) * TC_TWOPASS_TILE;
    global[1] = (size_t)ceil_div(job->roi.height, TC_TWOPASS_TILE) * TC_TWOPASS_TILE;
}

/* tiled_conv and one_pass_conv take the same first arguments; tiled_conv then the coefficients
 * again by value (float16, zero-padded: TiledConv.cl's TC_COEFF_VALUES) and, when it counts its
 * classes, the counters. */
static int direct_set_args(launch_state *ls, tc_msg *m)
{
    const tc_roi *r = &ls->job->roi;
    const tc_buffers *b = ls->buf;
    const tc_filter_spec *f = &ls->job->filter;
    const int tiled = ls->job->algorithm == TC_TILED;
    cl_float16 kx_values, ky_values;
    memset(&kx_values, 0, sizeof kx_values);
    memset(&ky_values, 0, sizeof ky_values);
    for (int i = 0; i < f->taps && i < 16; i++) {
        kx_values.s[i] = f->kx[i];
        ky_values.s[i] = f->ky[i];
    }
    const tc_kernel_arg args[] = {
        TC_KARG(ls->src),     TC_KARG(ls->dst),     TC_KARG(ls->pitch),    TC_KARG(r->src_left),
        TC_KARG(r->src_top),  TC_KARG(r->dst_left), TC_KARG(r->dst_top),   TC_KARG(r->width),
        TC_KARG(r->height),   TC_KARG(b->kx),       TC_KARG(b->ky),        TC_KARG(f->border_value),
        TC_KARG(kx_values),   TC_KARG(ky_values),   TC_KARG(b->counts)};
    const int n = !tiled ? 12 : ls->job->count_classes ? 15 : 14;
    return tc_set_args(ls->kernel, tiled ? "tiled_conv" : "one_pass_conv", args, n, m);
}

static int direct_enqueue(launch_state *ls, cl_event events[2], tc_msg *m)
{
    int status = TC_OK;
    CL_CALL(status, cleanup, m,
            clEnqueueNDRangeKernel(ls->queue, ls->kernel, 2, NULL, ls->global, ls->local, 0,
                                   NULL, &events[0]));
cleanup:
    return status;
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
    for (int i = 0; i < f->taps; i++)
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

    if ((status = tc_set_args(ls->kernel, "rows_transposed_conv pass 1", pass1, n, m)) != TC_OK)
        return status;
    CL_CALL(status, cleanup, m,
            clEnqueueNDRangeKernel(ls->queue, ls->kernel, 2, NULL, ls->global, ls->local, 0,
                                   NULL, &events[0]));
    /* An in-order queue: pass 2 starts after pass 1 has finished, and clSetKernelArg's values
     * were captured by the first enqueue. */
    if ((status = tc_set_args(ls->kernel, "rows_transposed_conv pass 2", pass2, n, m)) != TC_OK)
        return status;
    CL_CALL(status, cleanup, m,
            clEnqueueNDRangeKernel(ls->queue, ls->kernel, 2, NULL, global2, ls->local, 0, NULL,
                                   &events[1]));
cleanup:
    return status;
}

/* bilinear (storage.c, Images.cl): pass 1 rows from the source image into the temporary
 * image, pass 2 columns into the target; both the ROI's size. */
static void bilinear_geometry(const tc_job *job, size_t global[2])
{
    tc_bilinear_geometry(&job->roi, global);
}

static int bilinear_set_args(launch_state *ls, tc_msg *m)
{
    (void)ls;
    (void)m;
    return TC_OK; /* set per run by tc_bilinear_enqueue, as twopass's */
}

static int bilinear_enqueue(launch_state *ls, cl_event events[2], tc_msg *m)
{
    return tc_bilinear_enqueue(ls->queue, ls->kernel, ls->kernel2, &ls->buf->images,
                               &ls->job->filter, &ls->job->roi, ls->buf->kx, ls->buf->ky, ls->dst,
                               ls->pitch, ls->local, events, m);
}

static const algorithm_desc algorithms[] = {
    [TC_TILED] = {"tiled_conv", {TC_TILED_GROUP_X, TC_TILED_GROUP_Y}, 1, tiled_geometry,
                  direct_set_args, direct_enqueue},
    [TC_TWOPASS] = {"rows_transposed_conv", {TC_TWOPASS_TILE, TC_TWOPASS_TILE}, 2,
                    two_pass_geometry, two_pass_set_args, two_pass_enqueue},
    [TC_ONEPASS] = {"one_pass_conv", {TC_ONEPASS_GROUP, TC_ONEPASS_GROUP}, 1, one_pass_geometry,
                    direct_set_args, direct_enqueue},
    [TC_BILINEAR] = {"bilinear_rows", {TC_BILINEAR_GROUP_X, TC_BILINEAR_GROUP_Y}, 2,
                     bilinear_geometry, bilinear_set_args, bilinear_enqueue},
};

/* ---- The steps of a run ---------------------------------------------------------------- */

int tc_check_fits(const tc_device *d, int width, int height, tc_msg *m)
{
    const unsigned long long bytes = (unsigned long long)tc_device_pitch(width) *
                                     (unsigned long long)height * sizeof(float);
    if (bytes > d->info.max_alloc_bytes)
        return tc_fail(m, TC_EINVAL,
                       "a %d x %d plane needs %.1f MB in one buffer, more than the %.1f MB %s "
                       "allows (CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                       width, height, tc_mb(bytes), tc_mb(d->info.max_alloc_bytes),
                       d->info.name);
    if (3 * bytes > d->info.global_mem_bytes)
        return tc_fail(m, TC_EINVAL,
                       "a %d x %d image needs %.1f MB of device memory (input, output and "
                       "temporary planes), more than the %.1f MB %s has "
                       "(CL_DEVICE_GLOBAL_MEM_SIZE)",
                       width, height, tc_mb(3 * bytes), tc_mb(d->info.global_mem_bytes),
                       d->info.name);
    return TC_OK;
}

/* On a CPU device the buffers are host memory, and PoCL aborts the process (an assertion, not
 * an error code) when it cannot back one at first use: so the host's room is checked before
 * `bytes` more are asked for. A reserve is kept for what the platform allocates itself. */
#define CPU_DEVICE_RESERVE (64ULL << 20)
int tc_check_host_room(const tc_device *d, unsigned long long bytes, const char *what,
                       tc_msg *m)
{
    tc_host_room room;
    if (!d->info.is_cpu || bytes == 0)
        return TC_OK;
    tc_host_room_now(&room);
    if (bytes + CPU_DEVICE_RESERVE <= room.bytes)
        return TC_OK;
    return tc_fail(m, TC_ENOMEM,
                   "%s on the CPU device need %.1f MB more of host memory, but %.1f MB is "
                   "available (%s)",
                   what, tc_mb(bytes), tc_mb(room.bytes), room.limit);
}

/* The build options that make this job's program: the geometry of config.h as -D values, and
 * for the tiled kernel the source alignment of the job's ROIs (SHIFT): one program per
 * alignment class, built when first needed. */
static void build_options(const tc_job *job, char *options, size_t size)
{
    /* For kernel experiments (bench/): extra build options, appended. */
    const char *extra = getenv("TILEDCONV_CL_OPTIONS");
    /* Images: the tiled and one-pass kernels reading an image2d_t (TC_IMAGE), or bilinear's
     * samples per axis (storage.c). */
    char images[160] = "";
    if (job->algorithm == TC_BILINEAR)
        tc_bilinear_options(&job->filter, images, sizeof images);
    else if (tc_reads_image(job->algorithm, job->storage))
        snprintf(images, sizeof images, " -D TC_IMAGE=1");
    snprintf(options, size,
             "-cl-std=CL1.2 -D RADIUS=%d -D BORDER=%d -D GROUP_X=%d -D GROUP_Y=%d "
             "-D BLOCK_X=%d -D BLOCK_Y=%d -D ONEPASS_GROUP=%d -D TWOPASS_TILE=%d "
             "-D TC_VECTOR_IO=%d -D SHIFT=%d%s%s %s",
             (job->filter.taps - 1) / 2, (int)job->filter.border, TC_TILED_GROUP_X,
             TC_TILED_GROUP_Y, job->block_x, tiled_block_y(job), TC_ONEPASS_GROUP,
             TC_TWOPASS_TILE, job->vector_io,
             job->algorithm == TC_TILED ? tc_tiled_shift(job) : 0,
             job->count_classes && job->algorithm == TC_TILED ? " -D TC_COUNT_CLASSES" : "",
             images, extra ? extra : "");
}

/* Refuses a launch the device cannot run, with the reason in words, rather than letting
 * OpenCL fail inside clEnqueueNDRangeKernel with a bare error code. */
static int check_limits(const tc_device *d, cl_kernel kernel, const char *name,
                        const size_t local[2], tc_msg *m)
{
    int status = TC_OK;
    size_t kernel_group = 0;
    cl_ulong kernel_local = 0;
    if (local[0] > d->max_item_sizes[0] || local[1] > d->max_item_sizes[1] ||
        local[0] * local[1] > d->max_group_size)
        return tc_fail(m, TC_EDEVICE,
                       "%s needs work-groups of %zu x %zu, but %s allows at most %zu "
                       "work-items (%zu x %zu)",
                       name, local[0], local[1], d->info.name, d->max_group_size,
                       d->max_item_sizes[0], d->max_item_sizes[1]);
    CL_CALL(status, cleanup, m,
            clGetKernelWorkGroupInfo(kernel, d->device, CL_KERNEL_WORK_GROUP_SIZE,
                                     sizeof kernel_group, &kernel_group, NULL));
    CL_CALL(status, cleanup, m,
            clGetKernelWorkGroupInfo(kernel, d->device, CL_KERNEL_LOCAL_MEM_SIZE,
                                     sizeof kernel_local, &kernel_local, NULL));
    if (local[0] * local[1] > kernel_group)
        return tc_fail(m, TC_EDEVICE,
                       "%s needs %zu work-items per group, but %s can run it with at most %zu "
                       "(register or resource limit)",
                       name, local[0] * local[1], d->info.name, kernel_group);
    if (kernel_local > d->info.local_mem_bytes)
        return tc_fail(m, TC_EDEVICE, "%s needs %llu bytes of local memory, %s has %llu", name,
                       (unsigned long long)kernel_local, d->info.name,
                       (unsigned long long)d->info.local_mem_bytes);
cleanup:
    return status;
}

/* The job's kernel, from its program (built now or cached), checked against the device. */
static int prepare_kernel(const tc_device *d, tc_program_cache *programs, const tc_job *job,
                          launch_state *ls, double *build_ms, tc_msg *m)
{
    const algorithm_desc *a = &algorithms[job->algorithm];
    char options[1024];
    cl_program program;
    cl_int err;
    int status;
    build_options(job, options, sizeof options);
    status = tc_program_get(programs, d,
                            job->algorithm == TC_BILINEAR ? TC_SOURCE_IMAGES : TC_SOURCE_FILTERS,
                            options, &program, build_ms, m);
    if (status != TC_OK)
        return status;
    ls->kernel = clCreateKernel(program, a->kernel_name, &err);
    if (err != CL_SUCCESS) {
        ls->kernel = NULL;
        return cl_fail(m, err, "clCreateKernel");
    }
    if (job->algorithm == TC_BILINEAR) {
        ls->kernel2 = clCreateKernel(program, "bilinear_cols", &err);
        if (err != CL_SUCCESS) {
            ls->kernel2 = NULL;
            return cl_fail(m, err, "clCreateKernel(bilinear_cols)");
        }
        if ((status = check_limits(d, ls->kernel2, "bilinear pass 2", ls->local, m)) != TC_OK)
            return status;
    }
    return check_limits(d, ls->kernel, tc_algorithm_name(job->algorithm), ls->local, m);
}

int tc_ensure_buffer(const tc_device *d, cl_mem *mem, size_t *capacity, size_t bytes,
                         cl_mem_flags flags, const char *what, tc_msg *m)
{
    cl_int err;
    if (*mem && *capacity >= bytes)
        return TC_OK;
    if (*mem)
        clReleaseMemObject(*mem);
    *capacity = 0;
    *mem = clCreateBuffer(d->context, flags, bytes, NULL, &err);
    if (err != CL_SUCCESS) {
        *mem = NULL;
        return cl_fail(m, err, what);
    }
    *capacity = bytes;
    return TC_OK;
}

/* A buffer whose size never changes, made on first use. */
static int ensure_fixed(const tc_device *d, cl_mem *mem, size_t bytes, cl_mem_flags flags,
                        const char *what, tc_msg *m)
{
    size_t capacity = *mem ? bytes : 0;
    return tc_ensure_buffer(d, mem, &capacity, bytes, flags, what, m);
}

/* The buffers every run needs besides its planes. */
static int ensure_buffers(const tc_device *d, tc_buffers *b, const tc_job *job, tc_msg *m)
{
    const size_t coeff_bytes = TC_MAX_TAPS * sizeof(float);
    const size_t tmp_bytes = (size_t)job->roi.width * (size_t)job->roi.height * sizeof(float);
    int status;
    if (job->algorithm == TC_TWOPASS &&
        (status = tc_check_host_room(d, tc_new_bytes(b->tmp_bytes, tmp_bytes),
                                     "the two-pass temporary", m)) != TC_OK)
        return status;
    if ((status = ensure_fixed(d, &b->kx, coeff_bytes, CL_MEM_READ_ONLY, "clCreateBuffer(kx)",
                               m)) != TC_OK ||
        (status = ensure_fixed(d, &b->ky, coeff_bytes, CL_MEM_READ_ONLY, "clCreateBuffer(ky)",
                               m)) != TC_OK ||
        (status = ensure_fixed(d, &b->counts, 4 * sizeof(cl_int), CL_MEM_READ_WRITE,
                               "clCreateBuffer(class counts)", m)) != TC_OK)
        return status;
    if (job->algorithm == TC_TWOPASS)
        return tc_ensure_buffer(d, &b->tmp, &b->tmp_bytes, tmp_bytes, CL_MEM_READ_WRITE,
                             "clCreateBuffer(two-pass temporary)", m);
    return TC_OK;
}

void tc_buffers_release(tc_buffers *b)
{
    cl_mem *mems[] = {&b->counts, &b->tmp, &b->ky, &b->kx, &b->dst, &b->src};
    tc_image_buffers_release(&b->images);
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
        if (*mems[i])
            clReleaseMemObject(*mems[i]);
    free(b->staging);
    memset(b, 0, sizeof *b);
}

/* The host copy of a plane with the device's row pitch (zeros in the padding), kept between
 * runs. Padded rows go through it rather than clEnqueueWriteBufferRect: the same bytes, and
 * oclgrind, which checks the kernels for reads of uninitialised memory, does not count a
 * rectangle write as initialising. */
static float *staging_for(tc_buffers *b, size_t plane_bytes)
{
    if (b->staging_bytes < plane_bytes) {
        free(b->staging);
        b->staging_bytes = 0;
        if (!(b->staging = malloc(plane_bytes)))
            return NULL;
        b->staging_bytes = plane_bytes;
    }
    memset(b->staging, 0, plane_bytes);
    return b->staging;
}

/* The input plane to the device; the output plane starts as the input (SPEC.md: pixels
 * outside the tROI keep it), by a device copy rather than a second upload. */
static int upload_plane(cl_command_queue queue, tc_buffers *b, const tc_plane *in, int pitch,
                        size_t plane_bytes, cl_event *event, tc_msg *m)
{
    int status = TC_OK;
    const float *host = in->px;
    if (pitch != in->width) {
        float *staging = staging_for(b, plane_bytes);
        if (!staging)
            return tc_fail(m, TC_ENOMEM, "out of host memory for the padded plane (%zu bytes)",
                           plane_bytes);
        for (int y = 0; y < in->height; y++)
            memcpy(staging + (size_t)y * pitch, in->px + (size_t)y * in->width,
                   (size_t)in->width * sizeof(float));
        host = staging;
    }
    CL_CALL(status, cleanup, m,
            clEnqueueWriteBuffer(queue, b->src, CL_FALSE, 0, plane_bytes, host, 0, NULL, event));
    CL_CALL(status, cleanup, m,
            clEnqueueCopyBuffer(queue, b->src, b->dst, 0, 0, plane_bytes, 0, NULL, NULL));
cleanup:
    return status;
}

/* The coefficients to the device, and the class counts zeroed when the kernel counts. */
static int upload_coefficients(const launch_state *ls, cl_event events[2], tc_msg *m)
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
    const algorithm_desc *a = &algorithms[ls->job->algorithm];
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

/* The output plane back to the host, through the staging copy when rows are padded. */
static int download_plane(cl_command_queue queue, tc_buffers *b, tc_plane *out, int pitch,
                          size_t plane_bytes, cl_event *event, tc_msg *m)
{
    int status = TC_OK;
    const int padded = pitch != out->width;
    CL_CALL(status, cleanup, m,
            clEnqueueReadBuffer(queue, b->dst, CL_TRUE, 0, plane_bytes,
                                padded ? (void *)b->staging : (void *)out->px, 0, NULL, event));
    if (padded)
        for (int y = 0; y < out->height; y++)
            memcpy(out->px + (size_t)y * out->width, b->staging + (size_t)y * pitch,
                   (size_t)out->width * sizeof(float));
cleanup:
    return status;
}

/* The times of the finished runs, and the class counts the kernel made. */
static int collect(const launch_state *ls, const cl_event *events, int warmup,
                   const cl_event upload_events[2], tc_run_stats *stats, tc_msg *m)
{
    const int passes = algorithms[ls->job->algorithm].passes;
    int status = TC_OK;
    double ms;
    for (int i = 0; i < 2; i++) {
        if ((status = tc_event_ms(upload_events[i], &ms, m)) != TC_OK)
            return status;
        stats->h2d_ms += ms;
    }
    for (int i = 0; i < stats->iterations; i++) {
        stats->kernel_ms[i] = 0.0;
        for (int p = 0; p < passes; p++) {
            if ((status = tc_event_ms(events[2 * (warmup + i) + p], &ms, m)) != TC_OK)
                return status;
            if (passes == 2)
                stats->pass_ms[p][i] = ms;
            stats->kernel_ms[i] += ms;
        }
    }
    if (ls->job->count_classes && ls->job->algorithm == TC_TILED) {
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
    memset(stats, 0, sizeof *stats);
    stats->iterations = iterations;
    stats->kernel_ms = calloc((size_t)iterations, sizeof(double));
    if (algorithms[job->algorithm].passes == 2) {
        stats->pass_ms[0] = calloc((size_t)iterations, sizeof(double));
        stats->pass_ms[1] = calloc((size_t)iterations, sizeof(double));
    }
    if (!stats->kernel_ms ||
        (algorithms[job->algorithm].passes == 2 && (!stats->pass_ms[0] || !stats->pass_ms[1])))
        return tc_fail(m, TC_ENOMEM, "out of host memory for %d iterations", iterations);
    memcpy(stats->global, ls->global, sizeof stats->global);
    memcpy(stats->local, ls->local, sizeof stats->local);
    if (job->algorithm == TC_TILED) {
        tc_tiled_classes(job, ls->pitch, stats->classes);
        stats->block[0] = job->block_x;
        stats->block[1] = tiled_block_y(job);
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

int tc_run_resident(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
                    const tc_job *job, cl_mem src, cl_mem dst, int width, int height,
                    int warmup, int iterations, tc_run_stats *stats, tc_msg *m)
{
    const algorithm_desc *a = &algorithms[job->algorithm];
    const int runs = warmup + iterations;
    cl_event upload_events[2] = {NULL, NULL};
    cl_event image_copy = NULL;
    cl_event *events = NULL; /* 2 per run: the warm-up runs, then the timed ones */
    launch_state ls = {job, buffers, src, dst, d->queue, NULL, NULL, tc_device_pitch(width),
                       {a->local[0], a->local[1]}, {0, 0}};
    const int reads_image = tc_reads_image(job->algorithm, job->storage);
    double ms;
    int status;

    a->geometry(job, ls.global);
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
        (status = ensure_buffers(d, buffers, job, m)) != TC_OK)
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
    if (events)
        for (int i = 0; i < 2 * runs; i++)
            if (events[i])
                clReleaseEvent(events[i]);
    free(events);
    for (int i = 1; i >= 0; i--)
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
        /* Read-write: the pixel path (pixels.c) forms its planes in the same buffer. */
        (status = tc_ensure_buffer(d, &buffers->src, &buffers->src_bytes, plane_bytes,
                                CL_MEM_READ_WRITE, "clCreateBuffer(input plane)", m)) != TC_OK ||
        (status = tc_ensure_buffer(d, &buffers->dst, &buffers->dst_bytes, plane_bytes,
                                CL_MEM_READ_WRITE, "clCreateBuffer(output plane)", m)) != TC_OK ||
        (status = upload_plane(d->queue, buffers, in, pitch, plane_bytes, &upload, m)) != TC_OK)
        goto cleanup;
    if ((status = tc_run_resident(d, programs, buffers, job, buffers->src, buffers->dst,
                                  in->width, in->height, warmup, iterations, stats, m)) != TC_OK)
        goto cleanup;
    if ((status = download_plane(d->queue, buffers, out, pitch, plane_bytes, &download, m)) !=
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
