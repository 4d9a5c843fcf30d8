/*
 * pin_probe.c - what it costs to make host memory the device moves at the bus's rate, and to
 * move an image's bytes up from memory made each way, in plain OpenCL on the first GPU (else
 * the first device). The batch's colour photos (6,220,800 bytes: 1920 x 1080 x 3; SIZE=N for
 * another) are decoded into ordinary memory while the device opens and into page-locked
 * blocks afterwards (src/files/pinned_pool.c); making those blocks took the driver about a
 * millisecond a megabyte. This asks whether wrapping memory the host already holds
 * (CL_MEM_USE_HOST_PTR, on 4 KiB pages or on transparent huge pages) costs less than making
 * new page-locked memory (CL_MEM_ALLOC_HOST_PTR), and how fast each then goes up.
 *
 *   mkdir -p build && cc -std=c11 -O2 -DCL_TARGET_OPENCL_VERSION=120 \
 *       bench/pin_probe.c -lOpenCL -o build/pin_probe && build/pin_probe
 *
 * Each line: the median and minimum over BLOCKS blocks (default 24) of the host's wall time.
 */
#define _GNU_SOURCE
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static void check(cl_int err, const char *what)
{
    if (err != CL_SUCCESS) {
        fprintf(stderr, "pin_probe: %s failed: %d\n", what, (int)err);
        exit(1);
    }
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const char *label, double *ms, int count, size_t bytes)
{
    qsort(ms, (size_t)count, sizeof ms[0], by_value);
    printf("%-64s median %8.3f ms  min %8.3f ms  (%.2f GB/s at the median)\n", label,
           ms[count / 2], ms[0], (double)bytes / (ms[count / 2] * 1e6));
    fflush(stdout);
}

static cl_context ctx;
static cl_command_queue q;
static cl_device_id dev;
static size_t n;
static int blocks;

/* Memory the host holds, written once (as a decoder leaves it): on 4 KiB pages, or on
 * transparent huge pages where the system gives them. */
static void *host_memory(int huge)
{
    void *p = NULL;
    const size_t align = huge ? (size_t)2 << 20 : 4096;
    const size_t len = (n + align - 1) / align * align;
    if (posix_memalign(&p, align, len) != 0) {
        fprintf(stderr, "pin_probe: no memory\n");
        exit(1);
    }
    madvise(p, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    memset(p, 5, n);
    return p;
}

int main(void)
{
    cl_platform_id plats[8];
    cl_uint np = 0;
    cl_int err;
    const char *size = getenv("SIZE"), *count = getenv("BLOCKS");
    n = size ? (size_t)strtoull(size, NULL, 10) : (size_t)1920 * 1080 * 3;
    blocks = count ? atoi(count) : 24;
    if (blocks < 1 || blocks > 4096)
        blocks = 24;
    check(clGetPlatformIDs(8, plats, &np), "clGetPlatformIDs");
    int found = 0;
    for (cl_uint i = 0; i < np && !found; i++)
        found = clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 1, &dev, NULL) == CL_SUCCESS;
    for (cl_uint i = 0; i < np && !found; i++)
        found = clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 1, &dev, NULL) == CL_SUCCESS;
    if (!found) {
        fprintf(stderr, "pin_probe: no OpenCL device\n");
        return 1;
    }
    char name[256];
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
    printf("device: %s; %zu bytes a block, %d blocks a way\n", name, n, blocks);
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    check(err, "clCreateContext");
    q = clCreateCommandQueue(ctx, dev, 0, &err);
    check(err, "clCreateCommandQueue");
    cl_mem dbuf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n, NULL, &err);
    check(err, "clCreateBuffer(device)");
    char *out = host_memory(0);
    check(clEnqueueWriteBuffer(q, dbuf, CL_TRUE, 0, n, out, 0, NULL, NULL), "warm-up write");

    double *make = calloc((size_t)blocks, sizeof *make), *up = calloc((size_t)blocks, sizeof *up);
    double *up2 = calloc((size_t)blocks, sizeof *up2), *down = calloc((size_t)blocks, sizeof *down);
    if (!make || !up || !up2 || !down)
        return 1;

    /* 1. Page-locked memory made by the driver and mapped once (tc_host_alloc's way). */
    void **made = calloc((size_t)blocks, sizeof *made);
    for (int i = 0; i < blocks; i++) {
        double t0 = now_ms();
        cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, n, NULL, &err);
        check(err, "clCreateBuffer(ALLOC_HOST_PTR)");
        made[i] = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, n, 0, NULL,
                                     NULL, &err);
        check(err, "clEnqueueMapBuffer");
        make[i] = now_ms() - t0;
        memset(made[i], 5, n);
        t0 = now_ms();
        check(clEnqueueWriteBuffer(q, dbuf, CL_TRUE, 0, n, made[i], 0, NULL, NULL), "write");
        up[i] = now_ms() - t0;
        t0 = now_ms();
        check(clEnqueueReadBuffer(q, dbuf, CL_TRUE, 0, n, made[i], 0, NULL, NULL), "read");
        down[i] = now_ms() - t0;
    }
    report("ALLOC_HOST_PTR: make and map a block", make, blocks, n);
    report("ALLOC_HOST_PTR: write up from it", up, blocks, n);
    report("ALLOC_HOST_PTR: read down into it", down, blocks, n);

    /* 2. Ordinary memory: written up as it is (the driver stages it), and copied into one
     * page-locked block first (the lane's staging copy, one thread). */
    for (int huge = 0; huge <= 1; huge++) {
        for (int i = 0; i < blocks; i++) {
            char *p = host_memory(huge);
            double t0 = now_ms();
            check(clEnqueueWriteBuffer(q, dbuf, CL_TRUE, 0, n, p, 0, NULL, NULL), "write");
            up[i] = now_ms() - t0;
            char *p2 = host_memory(huge);
            t0 = now_ms();
            memcpy(made[0], p2, n);
            check(clEnqueueWriteBuffer(q, dbuf, CL_TRUE, 0, n, made[0], 0, NULL, NULL), "write");
            up2[i] = now_ms() - t0;
            t0 = now_ms();
            check(clEnqueueReadBuffer(q, dbuf, CL_TRUE, 0, n, p, 0, NULL, NULL), "read");
            down[i] = now_ms() - t0;
            free(p);
            free(p2);
        }
        report(huge ? "huge pages: write up as it lies" : "4 KiB pages: write up as it lies", up,
               blocks, n);
        report(huge ? "huge pages: copy into page-locked, then write up"
                    : "4 KiB pages: copy into page-locked, then write up",
               up2, blocks, n);
        report(huge ? "huge pages: read down into it" : "4 KiB pages: read down into it", down,
               blocks, n);
    }

    /* 3. Ordinary memory wrapped in place (USE_HOST_PTR): the wrapping's cost, then its bytes
     * up by a copy between buffers, and a second time (the wrapping's first use may differ). */
    for (int huge = 0; huge <= 1; huge++) {
        for (int i = 0; i < blocks; i++) {
            char *p = host_memory(huge);
            double t0 = now_ms();
            cl_mem w = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n, p, &err);
            check(err, "clCreateBuffer(USE_HOST_PTR)");
            make[i] = now_ms() - t0;
            t0 = now_ms();
            check(clEnqueueCopyBuffer(q, w, dbuf, 0, 0, n, 0, NULL, NULL), "copy up");
            check(clFinish(q), "clFinish");
            up[i] = now_ms() - t0;
            t0 = now_ms();
            check(clEnqueueCopyBuffer(q, w, dbuf, 0, 0, n, 0, NULL, NULL), "copy up again");
            check(clFinish(q), "clFinish");
            up2[i] = now_ms() - t0;
            t0 = now_ms();
            check(clEnqueueCopyBuffer(q, dbuf, w, 0, 0, n, 0, NULL, NULL), "copy down");
            void *v = clEnqueueMapBuffer(q, w, CL_TRUE, CL_MAP_READ, 0, n, 0, NULL, NULL, &err);
            check(err, "clEnqueueMapBuffer(USE_HOST_PTR)");
            check(clEnqueueUnmapMemObject(q, w, v, 0, NULL, NULL), "unmap");
            check(clFinish(q), "clFinish");
            down[i] = now_ms() - t0;
            if (v != p && i == 0)
                printf("  (the map of a USE_HOST_PTR buffer gave another pointer)\n");
            t0 = now_ms();
            clReleaseMemObject(w);
            check(clFinish(q), "clFinish");
            make[i] += now_ms() - t0;
            free(p);
        }
        const char *tag = huge ? "huge pages" : "4 KiB pages";
        char label[96];
        snprintf(label, sizeof label, "USE_HOST_PTR on %s: wrap and release", tag);
        report(label, make, blocks, n);
        snprintf(label, sizeof label, "USE_HOST_PTR on %s: first copy up", tag);
        report(label, up, blocks, n);
        snprintf(label, sizeof label, "USE_HOST_PTR on %s: second copy up", tag);
        report(label, up2, blocks, n);
        snprintf(label, sizeof label, "USE_HOST_PTR on %s: copy down and map", tag);
        report(label, down, blocks, n);
    }

    /* 4. Memory wrapped and kept wrapped (a pool's block made that way): do the ordinary
     * transfer calls, given its pointer, move it at the page-locked rate? */
    for (int huge = 0; huge <= 1; huge++) {
        for (int i = 0; i < blocks; i++) {
            char *p = host_memory(huge);
            double t0 = now_ms();
            cl_mem w = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n, p, &err);
            check(err, "clCreateBuffer(USE_HOST_PTR)");
            make[i] = now_ms() - t0;
            t0 = now_ms();
            check(clEnqueueWriteBuffer(q, dbuf, CL_TRUE, 0, n, p, 0, NULL, NULL), "write");
            up[i] = now_ms() - t0;
            memset(p, 6, n);
            t0 = now_ms();
            check(clEnqueueWriteBuffer(q, dbuf, CL_TRUE, 0, n, p, 0, NULL, NULL), "write");
            up2[i] = now_ms() - t0;
            t0 = now_ms();
            check(clEnqueueReadBuffer(q, dbuf, CL_TRUE, 0, n, p, 0, NULL, NULL), "read");
            down[i] = now_ms() - t0;
            if (p[n / 2] != 6) {
                fprintf(stderr, "pin_probe: the read down gave %d, not 6\n", p[n / 2]);
                return 1;
            }
            clReleaseMemObject(w);
            free(p);
        }
        const char *tag = huge ? "huge pages" : "4 KiB pages";
        char label[96];
        snprintf(label, sizeof label, "kept wrapped, %s: wrap", tag);
        report(label, make, blocks, n);
        snprintf(label, sizeof label, "kept wrapped, %s: write up from its pointer", tag);
        report(label, up, blocks, n);
        snprintf(label, sizeof label, "kept wrapped, %s: again, after the host wrote it", tag);
        report(label, up2, blocks, n);
        snprintf(label, sizeof label, "kept wrapped, %s: read down into its pointer", tag);
        report(label, down, blocks, n);
    }

    /* 5. Fresh memory never touched, on huge pages, wrapped (a new block of the pool made
     * that way: the wrap faults its pages in), the blocks kept; with MEMORY_CMD set (say
     * "nvidia-smi --query-gpu=memory.used --format=csv,noheader"), the device memory in use
     * before and after: does a wrapped block take device memory as well? */
    const char *memory_cmd = getenv("MEMORY_CMD");
    if (memory_cmd && system(memory_cmd) != 0)
        memory_cmd = NULL;
    cl_mem *kept = calloc((size_t)blocks, sizeof *kept);
    for (int i = 0; i < blocks; i++) {
        void *p = NULL;
        const size_t len = (n + ((size_t)2 << 20) - 1) / ((size_t)2 << 20) * ((size_t)2 << 20);
        if (posix_memalign(&p, (size_t)2 << 20, len) != 0)
            return 1;
        madvise(p, len, MADV_HUGEPAGE);
        double t0 = now_ms();
        kept[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n, p, &err);
        check(err, "clCreateBuffer(USE_HOST_PTR, untouched)");
        make[i] = now_ms() - t0;
        memset(p, 7, n);
        t0 = now_ms();
        check(clEnqueueWriteBuffer(q, dbuf, CL_TRUE, 0, n, p, 0, NULL, NULL), "write");
        up[i] = now_ms() - t0;
        t0 = now_ms();
        check(clEnqueueReadBuffer(q, dbuf, CL_TRUE, 0, n, p, 0, NULL, NULL), "read");
        down[i] = now_ms() - t0;
    }
    report("untouched huge pages: wrap", make, blocks, n);
    report("untouched huge pages: write up from its pointer", up, blocks, n);
    report("untouched huge pages: read down into its pointer", down, blocks, n);
    if (memory_cmd) {
        printf("device memory in use with %d blocks wrapped:\n", blocks);
        fflush(stdout);
        if (system(memory_cmd) != 0)
            fprintf(stderr, "pin_probe: %s failed\n", memory_cmd);
    }
    for (int i = 0; i < blocks; i++)
        clReleaseMemObject(kept[i]);
    check(clFinish(q), "clFinish");
    if (memory_cmd) {
        printf("device memory in use after their release:\n");
        fflush(stdout);
        if (system(memory_cmd) != 0)
            fprintf(stderr, "pin_probe: %s failed\n", memory_cmd);
    }
    return 0;
}
