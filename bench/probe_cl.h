/*
 * probe_cl.h - the plain-OpenCL set-up the bench/ probes share: the error check, the choice
 * of device (the first GPU, else the first device of any kind) and a page-locked block made
 * the way the library's tc_host_alloc makes it. Header-only (static inline), so that each
 * probe still builds from its one .c file with the command in its header.
 *
 * The including file defines PROBE_NAME (the probe's name for its error messages) first.
 */
#ifndef TC_BENCH_PROBE_CL_H
#define TC_BENCH_PROBE_CL_H

#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_time.h"

#ifndef PROBE_NAME
#error "define PROBE_NAME before including probe_cl.h"
#endif

/* A probe has nothing to fall back on: a failed call ends it, naming the call. */
static inline void check(cl_int err, const char *what)
{
    if (err != CL_SUCCESS) {
        fprintf(stderr, PROBE_NAME ": %s failed: %d\n", what, (int)err);
        exit(1);
    }
}

/* The first GPU of any platform, else the first device of any kind (PoCL's CPU device on a
 * machine without a GPU); ends the probe where there is none. */
static inline cl_device_id probe_device(void)
{
    cl_platform_id plats[8];
    cl_uint np = 0;
    cl_device_id dev = NULL;
    check(clGetPlatformIDs(8, plats, &np), "clGetPlatformIDs");
    int found = 0;
    for (cl_uint i = 0; i < np && !found; i++)
        found = clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 1, &dev, NULL) == CL_SUCCESS;
    for (cl_uint i = 0; i < np && !found; i++)
        found = clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 1, &dev, NULL) == CL_SUCCESS;
    if (!found) {
        fprintf(stderr, PROBE_NAME ": no OpenCL device\n");
        exit(1);
    }
    return dev;
}

/* A buffer of n bytes made with ALLOC_HOST_PTR and mapped once, its bytes set to 1:
 * page-locked host memory, as the library's tc_host_alloc makes it. */
static inline void *probe_pinned(cl_context ctx, cl_command_queue q, size_t n, cl_mem *mem)
{
    cl_int err;
    *mem = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, n, NULL, &err);
    check(err, "clCreateBuffer(ALLOC_HOST_PTR)");
    void *p = clEnqueueMapBuffer(q, *mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, n, 0, NULL,
                                 NULL, &err);
    check(err, "clEnqueueMapBuffer");
    memset(p, 1, n);
    return p;
}

#endif
