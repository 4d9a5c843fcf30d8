/*
 * transfer_probe.c - one image's bytes (2,073,600: 1920 x 1080 gray; SIZE=N bytes for another)
 * down from the device and up to it, several ways, on the first GPU (else the first device),
 * in plain OpenCL: what a device-to-host transfer into page-locked memory costs on this
 * machine, and whether another way of asking for it costs less. (bench/python_arrays.py's
 * profile had shown the library's download of a gray 1080p image into page-locked memory at
 * 0.08-0.11 ms on H100 machines, where CUDA's pinned download of the same bytes took 0.053;
 * this probe found 0.039 on those machines: docs/benchmarks.md.)
 *
 *   mkdir -p build && cc -std=c11 -O2 -DCL_TARGET_OPENCL_VERSION=120 \
 *       bench/transfer_probe.c -lOpenCL -o build/transfer_probe && build/transfer_probe
 *
 * Each line: the median and minimum of 200 runs after 20 untimed, as the device's own span
 * (the commands' profiling events: first start to last end) and as the host's wall time from
 * the first enqueue to clFinish's return.
 */
#define _POSIX_C_SOURCE 200809L
#define PROBE_NAME "transfer_probe"
#include "probe_cl.h"

#define RUNS 200
#define WARM 20

static cl_context ctx;
static cl_command_queue q;
static cl_device_id dev;

/* A page-locked block of n bytes on the probe's one context and queue. */
static void *pinned(size_t n, cl_mem *mem)
{
    return probe_pinned(ctx, q, n, mem);
}

typedef int (*way)(void *arg, cl_event *ev, int *nev);

/* Runs f RUNS times after WARM and prints the medians and minima. */
static void timed(const char *label, way f, void *arg)
{
    double span[RUNS], wall[RUNS];
    for (int r = 0; r < WARM + RUNS; r++) {
        cl_event ev[8];
        int nev = 0;
        const double t0 = now_ms();
        f(arg, ev, &nev);
        check(clFinish(q), "clFinish");
        const double t1 = now_ms();
        cl_ulong first = 0, last = 0;
        for (int i = 0; i < nev; i++) {
            cl_ulong s, e;
            check(clGetEventProfilingInfo(ev[i], CL_PROFILING_COMMAND_START, sizeof s, &s, NULL),
                  "profiling start");
            check(clGetEventProfilingInfo(ev[i], CL_PROFILING_COMMAND_END, sizeof e, &e, NULL),
                  "profiling end");
            if (i == 0 || s < first)
                first = s;
            if (e > last)
                last = e;
            clReleaseEvent(ev[i]);
        }
        if (r >= WARM) {
            span[r - WARM] = (double)(last - first) * 1e-6;
            wall[r - WARM] = t1 - t0;
        }
    }
    qsort(span, RUNS, sizeof span[0], by_value);
    qsort(wall, RUNS, sizeof wall[0], by_value);
    printf("%-58s device %.4f ms (min %.4f)   wall %.4f ms (min %.4f)\n", label,
           span[RUNS / 2], span[0], wall[RUNS / 2], wall[0]);
    fflush(stdout);
}

static size_t n;
static cl_mem dbuf, dbuf2, hmem, wbuf;
static void *hptr, *plain;
static cl_kernel fill_kernel;

/* The kernel writes buffer b (n / 4 words), then one read of it into page-locked memory:
 * the library's pack kernel and download, in one in-order queue. Only the read is timed. */
static int kernel_then_read(cl_mem b, cl_event *ev, int *nev)
{
    const size_t global = n / 4;
    check(clSetKernelArg(fill_kernel, 0, sizeof b, &b), "clSetKernelArg");
    check(clEnqueueNDRangeKernel(q, fill_kernel, 1, NULL, &global, NULL, 0, NULL, NULL),
          "clEnqueueNDRangeKernel");
    check(clEnqueueReadBuffer(q, b, CL_FALSE, 0, n, hptr, 0, NULL, &ev[(*nev)++]),
          "clEnqueueReadBuffer");
    return 0;
}
static int down_after_kernel(void *a, cl_event *ev, int *nev) { (void)a; return kernel_then_read(dbuf, ev, nev); }
static int down_after_kernel_wo(void *a, cl_event *ev, int *nev) { (void)a; return kernel_then_read(wbuf, ev, nev); }

static int read_into(void *p, cl_event *ev, int *nev, int parts)
{
    const size_t part = (n / (size_t)parts + 63) / 64 * 64;
    for (size_t off = 0; off < n; off += part) {
        const size_t len = n - off < part ? n - off : part;
        check(clEnqueueReadBuffer(q, dbuf, CL_FALSE, off, len, (char *)p + off, 0, NULL,
                                  &ev[(*nev)++]),
              "clEnqueueReadBuffer");
    }
    return 0;
}
static int down_pinned(void *a, cl_event *ev, int *nev) { (void)a; return read_into(hptr, ev, nev, 1); }
static int down_pinned2(void *a, cl_event *ev, int *nev) { (void)a; return read_into(hptr, ev, nev, 2); }
static int down_pinned4(void *a, cl_event *ev, int *nev) { (void)a; return read_into(hptr, ev, nev, 4); }
static int down_plain(void *a, cl_event *ev, int *nev) { (void)a; return read_into(plain, ev, nev, 1); }
static int down_copy(void *a, cl_event *ev, int *nev)
{
    (void)a;
    check(clEnqueueCopyBuffer(q, dbuf, hmem, 0, 0, n, 0, NULL, &ev[(*nev)++]),
          "clEnqueueCopyBuffer(device -> ALLOC_HOST_PTR)");
    return 0;
}
static int up_pinned(void *a, cl_event *ev, int *nev)
{
    (void)a;
    check(clEnqueueWriteBuffer(q, dbuf2, CL_FALSE, 0, n, hptr, 0, NULL, &ev[(*nev)++]),
          "clEnqueueWriteBuffer");
    return 0;
}
static int up_plain(void *a, cl_event *ev, int *nev)
{
    (void)a;
    check(clEnqueueWriteBuffer(q, dbuf2, CL_FALSE, 0, n, plain, 0, NULL, &ev[(*nev)++]),
          "clEnqueueWriteBuffer");
    return 0;
}
static int up_then_down(void *a, cl_event *ev, int *nev)
{
    up_pinned(a, ev, nev);
    return read_into(hptr, ev, nev, 1);
}

int main(void)
{
    cl_int err;
    const char *size = getenv("SIZE");
    n = size ? (size_t)strtoull(size, NULL, 10) : (size_t)1920 * 1080;
    dev = probe_device();
    char name[256];
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
    printf("device: %s; %zu bytes a transfer\n", name, n);
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    check(err, "clCreateContext");
    q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    check(err, "clCreateCommandQueue");
    dbuf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n, NULL, &err);
    check(err, "clCreateBuffer");
    dbuf2 = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n, NULL, &err);
    check(err, "clCreateBuffer");
    char *fill = malloc(n);
    memset(fill, 7, n);
    check(clEnqueueWriteBuffer(q, dbuf, CL_TRUE, 0, n, fill, 0, NULL, NULL), "fill");
    free(fill);
    hptr = pinned(n, &hmem);
    wbuf = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, n, NULL, &err);
    check(err, "clCreateBuffer(WRITE_ONLY)");
    const char *src = "__kernel void fill(__global uint *p) { p[get_global_id(0)] = "
                      "(uint)get_global_id(0) * 2654435761u; }";
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    check(err, "clCreateProgramWithSource");
    check(clBuildProgram(prog, 1, &dev, "", NULL, NULL), "clBuildProgram");
    fill_kernel = clCreateKernel(prog, "fill", &err);
    check(err, "clCreateKernel");
    plain = malloc(n);
    memset(plain, 3, n);
    timed("down: one read into page-locked memory", down_pinned, NULL);
    timed("down: two reads into page-locked memory", down_pinned2, NULL);
    timed("down: four reads into page-locked memory", down_pinned4, NULL);
    timed("down: a copy into the page-locked buffer object", down_copy, NULL);
    timed("down: one read, just after a kernel wrote the buffer", down_after_kernel, NULL);
    timed("down: the same from a WRITE_ONLY buffer", down_after_kernel_wo, NULL);
    timed("down: one read into ordinary memory", down_plain, NULL);
    timed("up: one write from page-locked memory", up_pinned, NULL);
    timed("up: one write from ordinary memory", up_plain, NULL);
    timed("up then down, page-locked (one queue)", up_then_down, NULL);
    /* A second page-locked buffer made after the first, and the first read again: does the
     * rate depend on the block? */
    cl_mem hmem2;
    void *h2 = pinned(n, &hmem2);
    void *keep = hptr;
    hptr = h2;
    timed("down: one read into a second page-locked block", down_pinned, NULL);
    hptr = keep;
    timed("down: one read into the first block again", down_pinned, NULL);
    /* Many page-locked blocks alive (a Python batch's arrays, a photo batch's pool): does a
     * transfer into one of them slow down? BLOCKS=N more of n bytes (default 600). */
    const char *blocks = getenv("BLOCKS");
    const int more = blocks ? atoi(blocks) : 600;
    void *last = NULL;
    for (int i = 0; i < more; i++) {
        cl_mem mm;
        last = pinned(n, &mm);
    }
    char label[96];
    snprintf(label, sizeof label, "down: into the first block, %d more blocks alive", more);
    timed(label, down_pinned, NULL);
    snprintf(label, sizeof label, "up: from the first block, %d more blocks alive", more);
    timed(label, up_pinned, NULL);
    if (last) {
        hptr = last;
        timed("down: into the last block made", down_pinned, NULL);
        timed("up: from the last block made", up_pinned, NULL);
    }
    return 0;
}
