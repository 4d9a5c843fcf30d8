/*
 * enqueue_probe.c - what each driver call of a batch's image costs the calling thread, in
 * plain OpenCL, on the first GPU (else the first device): the calls the library makes for a
 * gray 1920 x 1080 8-bit image of a batch (src/stream.c's overlapped way), on three in-order
 * queues taken in turn as the library's three slots are: its bytes up from page-locked memory
 * and a flush, a conversion kernel of 17 arguments (unpack_samples has 17), a filter kernel
 * of 2 arguments set per image, a second conversion of 17 (pack_samples), the bytes down and a
 * flush, each command with its event; three images later, the wait for its download, the
 * release of its events, and (as the library did before it kept them for tc_last_stats) the
 * two profiling queries of each event. The kernels are trivial stand-ins that touch every
 * pixel. With NOEVENTS=1 the kernels are enqueued without events.
 *
 *   mkdir -p build && cc -std=c11 -O2 -DCL_TARGET_OPENCL_VERSION=120 \
 *       bench/enqueue_probe.c -lOpenCL -o build/enqueue_probe && build/enqueue_probe
 *
 * Prints, per image, the mean host time of each kind of call (microseconds), over 2,000 images
 * after 200 untimed, and the images a second.
 */
#define _POSIX_C_SOURCE 200809L
#define PROBE_NAME "enqueue_probe"
#include "probe_cl.h"

#define W 1920
#define H 1080
#define SLOTS 3
#define IMAGES 2000
#define WARM 200
#define CONVERT_ARGS 17

/* The calls cost microseconds each, so this probe counts in them. */
static double now_us(void)
{
    return now_ms() * 1e3;
}

/* The conversions take 17 arguments as the library's do; only the first two are used. */
static const char *source =
    "kernel void unpack(global const uchar *in, global float *out, int a2, int a3, int a4,\n"
    "    int a5, int a6, int a7, int a8, int a9, int a10, int a11, int a12, int a13, int a14,\n"
    "    int a15, int a16)\n"
    "{ size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
    "  out[i] = (float)in[i]; }\n"
    "kernel void filter(global const float *in, global float *out)\n"
    "{ size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
    "  out[i] = 0.5f * in[i]; }\n"
    "kernel void pack(global const float *in, global uchar *out, int a2, int a3, int a4,\n"
    "    int a5, int a6, int a7, int a8, int a9, int a10, int a11, int a12, int a13, int a14,\n"
    "    int a15, int a16)\n"
    "{ size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
    "  out[i] = convert_uchar_sat_rte(in[i]); }\n";

enum { WRITE, FLUSH, ARGS, KERNEL, READ, WAIT, RELEASE, QUERY, KINDS };
static const char *names[KINDS] = {"write (up)",   "flush",        "kernel arguments",
                                   "kernel",       "read (down)",  "wait for the download",
                                   "release event", "profiling query"};

typedef struct {
    cl_command_queue q;
    cl_kernel unpack, filter, pack;
    cl_mem in, planes[2], out, up_mem, down_mem;
    unsigned char *up, *down;
    cl_event events[5];
    int busy;
} slot;

static double spent[KINDS];
static long calls[KINDS];

#define TIMED(KIND, CALL)                                                                      \
    do {                                                                                       \
        const double t0_ = now_us();                                                           \
        CALL;                                                                                  \
        spent[KIND] += now_us() - t0_;                                                         \
        calls[KIND]++;                                                                         \
    } while (0)

/* The image the slot holds: its download waited for, its events queried (as before) and
 * released. */
static void finish(slot *s, int timed)
{
    if (!s->busy)
        return;
    if (timed) {
        TIMED(WAIT, check(clWaitForEvents(1, &s->events[4]), "clWaitForEvents"));
        for (int e = 0; e < 5; e++) {
            cl_ulong t;
            if (!s->events[e])
                continue;
            TIMED(QUERY, check(clGetEventProfilingInfo(s->events[e], CL_PROFILING_COMMAND_START,
                                                       sizeof t, &t, NULL),
                               "clGetEventProfilingInfo"));
            TIMED(QUERY, check(clGetEventProfilingInfo(s->events[e], CL_PROFILING_COMMAND_END,
                                                       sizeof t, &t, NULL),
                               "clGetEventProfilingInfo"));
            TIMED(RELEASE, clReleaseEvent(s->events[e]));
        }
    } else {
        check(clWaitForEvents(1, &s->events[4]), "clWaitForEvents");
        for (int e = 0; e < 5; e++)
            if (s->events[e])
                clReleaseEvent(s->events[e]);
    }
    memset(s->events, 0, sizeof s->events);
    s->busy = 0;
}

static void set_conversion_args(cl_kernel k, cl_mem a, cl_mem b)
{
    check(clSetKernelArg(k, 0, sizeof a, &a), "clSetKernelArg");
    check(clSetKernelArg(k, 1, sizeof b, &b), "clSetKernelArg");
    for (cl_uint i = 2; i < CONVERT_ARGS; i++) {
        const cl_int v = (cl_int)i;
        check(clSetKernelArg(k, i, sizeof v, &v), "clSetKernelArg");
    }
}

static void enqueue_image(slot *s, int events)
{
    const size_t n = (size_t)W * H, global[2] = {W, H};
    cl_event *ev = s->events;
    TIMED(WRITE, check(clEnqueueWriteBuffer(s->q, s->in, CL_FALSE, 0, n, s->up, 0, NULL, &ev[0]),
                       "clEnqueueWriteBuffer"));
    TIMED(FLUSH, check(clFlush(s->q), "clFlush"));
    TIMED(ARGS, set_conversion_args(s->unpack, s->in, s->planes[0]));
    TIMED(KERNEL, check(clEnqueueNDRangeKernel(s->q, s->unpack, 2, NULL, global, NULL, 0, NULL,
                                               events ? &ev[1] : NULL),
                        "clEnqueueNDRangeKernel"));
    TIMED(ARGS, check(clSetKernelArg(s->filter, 0, sizeof(cl_mem), &s->planes[0]),
                      "clSetKernelArg"));
    TIMED(ARGS, check(clSetKernelArg(s->filter, 1, sizeof(cl_mem), &s->planes[1]),
                      "clSetKernelArg"));
    TIMED(KERNEL, check(clEnqueueNDRangeKernel(s->q, s->filter, 2, NULL, global, NULL, 0, NULL,
                                               events ? &ev[2] : NULL),
                        "clEnqueueNDRangeKernel"));
    TIMED(ARGS, set_conversion_args(s->pack, s->planes[1], s->out));
    TIMED(KERNEL, check(clEnqueueNDRangeKernel(s->q, s->pack, 2, NULL, global, NULL, 0, NULL,
                                               events ? &ev[3] : NULL),
                        "clEnqueueNDRangeKernel"));
    TIMED(READ, check(clEnqueueReadBuffer(s->q, s->out, CL_FALSE, 0, n, s->down, 0, NULL, &ev[4]),
                      "clEnqueueReadBuffer"));
    TIMED(FLUSH, check(clFlush(s->q), "clFlush"));
    s->busy = 1;
}

int main(void)
{
    cl_device_id dev = probe_device();
    cl_int err;
    char name[256] = "";
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    check(err, "clCreateContext");
    cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
    check(err, "clCreateProgramWithSource");
    check(clBuildProgram(prog, 1, &dev, "", NULL, NULL), "clBuildProgram");
    const int events = !(getenv("NOEVENTS") && atoi(getenv("NOEVENTS")));
    const size_t n = (size_t)W * H;
    slot slots[SLOTS];
    memset(slots, 0, sizeof slots);
    for (int k = 0; k < SLOTS; k++) {
        slot *s = &slots[k];
        s->q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
        check(err, "clCreateCommandQueue");
        s->unpack = clCreateKernel(prog, "unpack", &err);
        check(err, "clCreateKernel");
        s->filter = clCreateKernel(prog, "filter", &err);
        check(err, "clCreateKernel");
        s->pack = clCreateKernel(prog, "pack", &err);
        check(err, "clCreateKernel");
        s->in = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n, NULL, &err);
        check(err, "clCreateBuffer");
        s->out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n, NULL, &err);
        check(err, "clCreateBuffer");
        for (int p = 0; p < 2; p++) {
            s->planes[p] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * sizeof(float), NULL, &err);
            check(err, "clCreateBuffer");
        }
        s->up = probe_pinned(ctx, s->q, n, &s->up_mem);
        s->down = probe_pinned(ctx, s->q, n, &s->down_mem);
    }
    double start = 0.0;
    for (int i = 0; i < WARM + IMAGES; i++) {
        if (i == WARM) {
            memset(spent, 0, sizeof spent);
            memset(calls, 0, sizeof calls);
            start = now_us();
        }
        slot *s = &slots[i % SLOTS];
        finish(s, 1);
        enqueue_image(s, events);
    }
    for (int k = 0; k < SLOTS; k++)
        finish(&slots[k], 1);
    const double wall = now_us() - start;
    printf("%s: %d gray %d x %d images on %d queues, kernels %s events\n", name, IMAGES, W, H,
           SLOTS, events ? "with" : "without");
    double total = 0.0;
    for (int k = 0; k < KINDS; k++) {
        printf("  %-22s %7.2f us an image (%5.1f calls, %6.2f us each)\n", names[k],
               spent[k] / IMAGES, (double)calls[k] / IMAGES,
               calls[k] ? spent[k] / (double)calls[k] : 0.0);
        total += spent[k];
    }
    printf("  %-22s %7.2f us an image; wall %.2f us an image (%.0f images/s)\n", "all calls",
           total / IMAGES, wall / IMAGES, IMAGES / wall * 1e6);
    return 0;
}
