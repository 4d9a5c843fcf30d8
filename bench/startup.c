/*
 * startup.c - where a process's OpenCL start-up goes, step by step, as tiledconv takes it:
 * the loader's platform list (which loads every vendor's ICD), the device list, the context,
 * the queue, the program build (the first, and again from the driver's cache), a first buffer
 * with an upload, and a second context on the same device (a second lane of a batch).
 *
 *   cc -O2 -o build/startup bench/startup.c -lOpenCL && build/startup src [gpu|cpu]
 * (the program is SRC/Common.cl followed by SRC/TiledConv.cl, as the library builds it)
 *
 * Prints one line per step with its wall time in ms. Not part of the tool or its tests.
 */
#define CL_TARGET_OPENCL_VERSION 120
#define _POSIX_C_SOURCE 200809L
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double t_prev;
static void step(const char *what)
{
    const double t = now_ms();
    printf("  %-52s %9.2f ms\n", what, t - t_prev);
    t_prev = now_ms();
}

#define CHECK(call)                                                                             \
    do {                                                                                        \
        cl_int e_ = (call);                                                                     \
        if (e_ != CL_SUCCESS) {                                                                 \
            fprintf(stderr, "startup: %s failed: %d\n", #call, (int)e_);                        \
            return 1;                                                                           \
        }                                                                                       \
    } while (0)

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    long n;
    char *s;
    if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
        return NULL;
    s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s)
        s[n] = '\0';
    fclose(f);
    return s;
}

int main(int argc, char **argv)
{
    const char *source_dir = argc > 1 ? argv[1] : "src";
    char common_path[1024], tiled_path[1024];
    snprintf(common_path, sizeof common_path, "%s/Common.cl", source_dir);
    snprintf(tiled_path, sizeof tiled_path, "%s/TiledConv.cl", source_dir);
    const cl_device_type type =
        argc > 2 && strcmp(argv[2], "cpu") == 0 ? CL_DEVICE_TYPE_CPU : CL_DEVICE_TYPE_GPU;
    const double t0 = now_ms();
    cl_platform_id platforms[16];
    cl_uint np = 0, nd = 0;
    cl_device_id device = NULL;
    cl_int err;
    char *common = read_file(common_path), *source = read_file(tiled_path);
    const char *options = "-cl-std=CL1.2 -D RADIUS_X=2 -D RADIUS_Y=2 -D BORDER=0 -D GROUP_X=8 "
                          "-D GROUP_Y=8 -D BLOCK_X=4 -D BLOCK_Y=4 -D ONEPASS_GROUP=16 "
                          "-D TWOPASS_TILE=16 -D TILED_MAX_TAPS=15 -D TC_VECTOR_IO=1 -D SHIFT=0";
    if (!common || !source) {
        fprintf(stderr, "startup: cannot read %s\n", common ? tiled_path : common_path);
        return 1;
    }
    printf("OpenCL start-up, step by step (wall ms):\n");
    t_prev = now_ms();
    CHECK(clGetPlatformIDs(16, platforms, &np));
    step("clGetPlatformIDs (loads every ICD)");
    for (cl_uint p = 0; p < np && !device; p++)
        if (clGetDeviceIDs(platforms[p], type, 1, &device, &nd) != CL_SUCCESS)
            device = NULL;
    if (!device) {
        fprintf(stderr, "startup: no device of that type\n");
        return 1;
    }
    step("clGetDeviceIDs");
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK(err);
    step("clCreateContext (the first: driver initialisation)");
    cl_command_queue q = clCreateCommandQueue(ctx, device, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err);
    step("clCreateCommandQueue");
    const char *src[2] = {common, source};
    cl_program prog = clCreateProgramWithSource(ctx, 2, src, NULL, &err);
    CHECK(err);
    CHECK(clBuildProgram(prog, 1, &device, options, NULL, NULL));
    step("clBuildProgram (TiledConv.cl, 5 taps)");
    cl_program prog2 = clCreateProgramWithSource(ctx, 2, src, NULL, &err);
    CHECK(err);
    CHECK(clBuildProgram(prog2, 1, &device, options, NULL, NULL));
    step("clBuildProgram again (the driver's cache)");
    const size_t bytes = (size_t)1920 * 1080 * 3;
    void *host = calloc(bytes, 1);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_ONLY, bytes, NULL, &err);
    CHECK(err);
    CHECK(clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, bytes, host, 0, NULL, NULL));
    step("first buffer and a 6.2 MB upload (pageable)");
    cl_mem pinned = clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
    CHECK(err);
    void *p = clEnqueueMapBuffer(q, pinned, CL_TRUE, CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &err);
    CHECK(err);
    step("pinned staging buffer, mapped");
    CHECK(clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, bytes, p, 0, NULL, NULL));
    step("a 6.2 MB upload from pinned memory");
    cl_context ctx2 = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue q2 = clCreateCommandQueue(ctx2, device, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err);
    step("a second context and queue on the device");
    printf("  %-52s %9.2f ms\n", "total", now_ms() - t0);
    clReleaseCommandQueue(q2);
    clReleaseContext(ctx2);
    clEnqueueUnmapMemObject(q, pinned, p, 0, NULL, NULL);
    clFinish(q);
    clReleaseMemObject(pinned);
    clReleaseMemObject(buf);
    clReleaseProgram(prog2);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    free(host);
    free(common);
    free(source);
    return 0;
}
