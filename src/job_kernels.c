/*
 * job_kernels.c - the kernel objects a job runs, from programs built for it (job_kernels.h).
 */
#include "job_kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "split.h"
#include "storage.h"
#include "tuning.h"

/* The program each kernel is in. */
static tc_source kernel_source(tc_kernel_kind kind)
{
    static const tc_source sources[] = {
        [TC_KERNEL_TILED] = TC_SOURCE_FILTERS,     [TC_KERNEL_TILED_LONG] = TC_SOURCE_LONG,
        [TC_KERNEL_TILED_MASK] = TC_SOURCE_MASKS,  [TC_KERNEL_TWOPASS] = TC_SOURCE_FILTERS,
        [TC_KERNEL_ONEPASS] = TC_SOURCE_FILTERS,   [TC_KERNEL_ONEPASS_MASK] = TC_SOURCE_MASKS,
        [TC_KERNEL_BILINEAR] = TC_SOURCE_IMAGES,   [TC_KERNEL_TILED_SLIDE] = TC_SOURCE_LONG,
        [TC_KERNEL_TILED_MASK_ROWS] = TC_SOURCE_MASKS, [TC_KERNEL_TILED_ROWS] = TC_SOURCE_LONG,
        [TC_KERNEL_TILED_SPLIT] = TC_SOURCE_LONG};
    return sources[kind];
}

int tc_register_budget(const tc_job *job)
{
    const tc_kernel_kind kind = tc_kernel_of(job);
    const tc_variant *v = tc_kernel_is_tiled(kind) ? tc_variant_of(job) : NULL;
    if (!tc_kernel_is_tiled(kind))
        return 0;
    if (tc_tuning_now()->registers)
        return tc_tuning_now()->registers;
    if (v && v->max_registers)
        return v->max_registers;
    if (kind != TC_KERNEL_TILED_LONG)
        return 0;
    static const struct {
        int max_radius, registers;
    } budgets[] = TC_LONG_BUDGETS;
    const int rx = tc_job_radius_x(job), ry = tc_job_radius_y(job);
    if (rx <= 7 && ry > rx) /* short rows, longer columns */
        return rx >= 1 ? TC_LONG_COLUMNS_BUDGET : 0;
    for (size_t i = 0; i < sizeof budgets / sizeof budgets[0]; i++)
        if (rx <= budgets[i].max_radius)
            return budgets[i].registers;
    return 0;
}

/* The build options that make this job's program: the radii, the border rule and the
 * geometry of config.h as -D values, and for the tiled kernels on the target's grid the source
 * alignment of the job's ROIs (SHIFT): one program per alignment class, built when first
 * needed. radius_x and radius_y are the job's, but for twopass's pass 2 (the column radius
 * along its rows). */
static void build_options(const tc_job *job, const tc_tiled_geometry *g, int nv_options,
                          int radius_x, int radius_y, char *options, size_t size)
{
    const tc_kernel_kind kind = tc_kernel_of(job);
    const int tiled = tc_kernel_is_tiled(kind);
    const tc_variant *v = tiled ? tc_variant_of(job) : NULL;
    char own[200] = "";
    /* For kernel studies: the tuning's extra build options, appended. */
    const char *extra = tc_tuning_now()->cl_options;
    switch (kernel_source(kind)) {
    case TC_SOURCE_LONG:
        if (kind == TC_KERNEL_TILED_SLIDE)
            snprintf(own, sizeof own, "-D SLIDE_W=%d -D SLIDE_S=%d -D SLIDE_CW=%d -D SLIDE_V=%d",
                     g->tile_w, g->tile_h, v->cols, v->rows);
        else if (kind == TC_KERNEL_TILED_ROWS) /* Long.cl's TC_ROWS_ACC: the order measured
                                                 * on NVIDIA's compiler there; elsewhere the
                                                 * one LLVM unrolls at every radius */
            snprintf(own, sizeof own, "-D ROWS_HV=%d -D TC_ROWS_ACC=%d", g->block[0],
                     nv_options ? 1 : 0);
        else
            snprintf(own, sizeof own,
                     "-D LONG_TILE_W=%d -D LONG_TILE_H=%d -D LONG_GROUP=%d "
                     "-D LONG_UNROLL_LIMIT=%d",
                     g->tile_w, g->tile_h, (int)(g->local[0] * g->local[1]),
                     TC_LONG_UNROLL_LIMIT);
        break;
    case TC_SOURCE_MASKS:
        snprintf(own, sizeof own,
                 "-D GROUP_X=%d -D GROUP_Y=%d -D ONEPASS_GROUP=%d -D MASK_UNROLL_LIMIT=%d%s",
                 TC_TILED_GROUP_X, TC_TILED_GROUP_Y, TC_ONEPASS_GROUP, TC_MASK_UNROLL_LIMIT,
                 kind == TC_KERNEL_TILED_MASK_ROWS ? " -D TC_MASK_ROWS=1" : "");
        break;
    case TC_SOURCE_IMAGES: /* bilinear's samples per axis (storage.c) */
        tc_bilinear_options(&job->filter, own, sizeof own);
        break;
    default:
        snprintf(own, sizeof own,
                 "-D GROUP_X=%d -D GROUP_Y=%d -D ONEPASS_GROUP=%d -D TWOPASS_TILE=%d "
                 "-D TILED_MAX_TAPS=%d",
                 TC_TILED_GROUP_X, TC_TILED_GROUP_Y, TC_ONEPASS_GROUP, TC_TWOPASS_TILE,
                 TC_TILED_MAX_TAPS);
        break;
    }
    /* The register budget, where the compiler takes one (NVIDIA's): the kernel is then built
     * without its required group size, which would override the budget (Common.cl's
     * TC_GROUP_SIZE), and told the budget (TC_REGISTER_BUDGET: Long.cl then takes its
     * coefficients by value at every length). */
    char registers[160] = "";
    const int budget = tc_register_budget(job);
    if (budget && nv_options)
        snprintf(registers, sizeof registers,
                 " -cl-nv-maxrregcount=%d -D TC_FREE_GROUP_SIZE=1 -D TC_REGISTER_BUDGET=%d",
                 budget, budget);
    if (v && v->options)
        snprintf(registers + strlen(registers), sizeof registers - strlen(registers), " %s",
                 v->options);
    snprintf(options, size,
             "-cl-std=CL1.2 -D RADIUS_X=%d -D RADIUS_Y=%d -D BORDER=%d -D BLOCK_X=%d "
             "-D BLOCK_Y=%d -D TC_VECTOR_IO=%d -D SHIFT=%d %s%s%s%s %s",
             radius_x, radius_y, (int)job->filter.border,
             tiled ? g->read_block_x : job->block_x,
             tiled ? g->block[1] : tc_tiled_block_y(job, radius_y), job->vector_io,
             tiled ? tc_tiled_shift(job) : 0, own,
             job->count_classes && tiled ? " -D TC_COUNT_CLASSES" : "",
             /* The kernels of tiled and onepass reading an image2d_t (Common.cl's SRC_T). */
             kind != TC_KERNEL_BILINEAR && tc_reads_image(job->algorithm, job->storage)
                 ? " -D TC_IMAGE=1"
             /* tiled_conv and tiled_long_conv on a gray image's bytes (Common.cl's TC_IO_U8) */
             : job->packed_u8 ? " -D TC_IO_U8=1"
                              : "",
             registers, extra);
}

/* Refuses a launch the device cannot run, with the reason in words, rather than letting
 * OpenCL fail inside clEnqueueNDRangeKernel with a bare error code. */
int tc_check_launch(const tc_device *d, cl_kernel kernel, const char *name,
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

/* Whether the device's compiler takes NVIDIA's -cl-nv-* options (cl_nv_compiler_options). */
static int has_nv_options(const tc_device *d)
{
    char extensions[8192] = "";
    if (clGetDeviceInfo(d->device, CL_DEVICE_EXTENSIONS, sizeof extensions - 1, extensions,
                        NULL) != CL_SUCCESS)
        return 0; /* a longer list than the buffer: no such option is passed */
    return strstr(extensions, "cl_nv_compiler_options") != NULL;
}

/* One kernel from the program for these options (built now or cached). */
static int get_kernel(const tc_device *d, tc_program_cache *programs, tc_source source,
                      const char *options, const char *name, cl_kernel *kernel,
                      double *build_ms, tc_msg *m)
{
    cl_program program;
    cl_int err;
    int status = tc_program_get(programs, d, source, options, &program, build_ms, m);
    if (status != TC_OK)
        return status;
    *kernel = clCreateKernel(program, name, &err);
    if (err != CL_SUCCESS)
        return cl_fail(m, err, "clCreateKernel");
    return TC_OK;
}

/* The split variant's kernels: its rows pass's and its columns pass's, each its own job's
 * (split.h), with that job's geometry. */
static int split_kernels(const tc_device *d, tc_program_cache *programs, const tc_job *job,
                         cl_kernel kernels[2], double *build_ms, tc_msg *m)
{
    tc_job pass[2];
    tc_split_jobs(job, &pass[0], &pass[1]);
    *build_ms = 0.0;
    for (int p = 0; p < 2; p++) {
        tc_tiled_geometry g;
        cl_kernel k[2] = {NULL, NULL};
        double ms = 0.0;
        tc_tiled_geometry_of(&pass[p], d->info.local_mem_bytes, &g);
        const int status = tc_job_kernels(d, programs, &pass[p], &g, g.local, k, &ms, m);
        kernels[p] = k[0];
        *build_ms += ms;
        if (status != TC_OK)
            return status;
    }
    return TC_OK;
}

int tc_job_kernels(const tc_device *d, tc_program_cache *programs, const tc_job *job,
                   const tc_tiled_geometry *g, const size_t local[2], cl_kernel kernels[2],
                   double *build_ms, tc_msg *m)
{
    const tc_kernel_kind kind = tc_kernel_of(job);
    if (kind == TC_KERNEL_TILED_SPLIT)
        return split_kernels(d, programs, job, kernels, build_ms, m);
    const char *name = tc_kernel_name(kind);
    const int rx = tc_job_radius_x(job), ry = tc_job_radius_y(job), nv = has_nv_options(d);
    char options[1024];
    double more_ms = 0.0;
    int status;
    build_options(job, g, nv, rx, ry, options, sizeof options);
    if ((status = get_kernel(d, programs, kernel_source(kind), options, name, &kernels[0],
                             build_ms, m)) != TC_OK)
        return status;
    if (kind == TC_KERNEL_TWOPASS) {
        /* Pass 2 filters the columns as rows: its program has the column radius along rows. */
        build_options(job, g, nv, ry, rx, options, sizeof options);
        if ((status = get_kernel(d, programs, TC_SOURCE_FILTERS, options, name, &kernels[1],
                                 &more_ms, m)) != TC_OK)
            return status;
        *build_ms += more_ms;
        if ((status = tc_check_launch(d, kernels[1], tc_algorithm_name(job->algorithm), local,
                                      m)) != TC_OK)
            return status;
    } else if (kind == TC_KERNEL_BILINEAR) {
        /* Pass 2, from the same program (cached by now). */
        if ((status = get_kernel(d, programs, TC_SOURCE_IMAGES, options, "bilinear_cols",
                                 &kernels[1], &more_ms, m)) != TC_OK)
            return status;
        *build_ms += more_ms;
        if ((status = tc_check_launch(d, kernels[1], "bilinear pass 2", local, m)) != TC_OK)
            return status;
    }
    return tc_check_launch(d, kernels[0], tc_algorithm_name(job->algorithm), local, m);
}
