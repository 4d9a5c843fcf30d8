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
#define PROBE_NAME "pin_probe"
#include <sys/mman.h>

#include "probe_cl.h"

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
static cl_mem dbuf; /* the device's copy of a block */
static size_t n;
static int blocks;

/* The milliseconds of one blocking write of p's n bytes up into dbuf. */
static double write_up_ms(const void *p)
{
    const double t0 = now_ms();
    check(clEnqueueWriteBuffer(q, dbuf, CL_TRUE, 0, n, p, 0, NULL, NULL), "write");
    return now_ms() - t0;
}

/* The milliseconds of one blocking read of dbuf's n bytes down into p. */
static double read_down_ms(void *p)
{
    const double t0 = now_ms();
    check(clEnqueueReadBuffer(q, dbuf, CL_TRUE, 0, n, p, 0, NULL, NULL), "read");
    return now_ms() - t0;
}

/* p's n bytes wrapped in a USE_HOST_PTR buffer, the wrap's milliseconds in *ms; `what` names
 * the call if it fails. */
static cl_mem wrap(void *p, const char *what, double *ms)
{
    cl_int err;
    const double t0 = now_ms();
    cl_mem w = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n, p, &err);
    check(err, what);
    *ms = now_ms() - t0;
    return w;
}

/* The four times sections 3 and 4 take of each block: the wrap, two copies up, one down. */
#define WAYS 4

/* One line a way, each labelled "HOW: WHAT[k]", over the blocks' n bytes. */
static void report_ways(const char *how, const char *const what[WAYS], double *const ms[WAYS])
{
    for (int k = 0; k < WAYS; k++) {
        char label[96];
        snprintf(label, sizeof label, "%s: %s", how, what[k]);
        report(label, ms[k], blocks, n);
    }
}

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
    cl_int err;
    const char *size = getenv("SIZE"), *count = getenv("BLOCKS");
    n = size ? (size_t)strtoull(size, NULL, 10) : (size_t)1920 * 1080 * 3;
    blocks = count ? atoi(count) : 24;
    if (blocks < 1 || blocks > 4096)
        blocks = 24;
    dev = probe_device();
    char name[256];
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
    printf("device: %s; %zu bytes a block, %d blocks a way\n", name, n, blocks);
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    check(err, "clCreateContext");
    q = clCreateCommandQueue(ctx, dev, 0, &err);
    check(err, "clCreateCommandQueue");
    dbuf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n, NULL, &err);
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
        up[i] = write_up_ms(made[i]);
        down[i] = read_down_ms(made[i]);
    }
    report("ALLOC_HOST_PTR: make and map a block", make, blocks, n);
    report("ALLOC_HOST_PTR: write up from it", up, blocks, n);
    report("ALLOC_HOST_PTR: read down into it", down, blocks, n);

    /* 2. Ordinary memory: written up as it is (the driver stages it), and copied into one
     * page-locked block first (the lane's staging copy, one thread). */
    for (int huge = 0; huge <= 1; huge++) {
        for (int i = 0; i < blocks; i++) {
            char *p = host_memory(huge);
            up[i] = write_up_ms(p);
            char *p2 = host_memory(huge);
            const double t0 = now_ms();
            memcpy(made[0], p2, n);
            up2[i] = now_ms() - t0 + write_up_ms(made[0]);
            down[i] = read_down_ms(p);
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
            cl_mem w = wrap(p, "clCreateBuffer(USE_HOST_PTR)", &make[i]);
            double t0 = now_ms();
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
        static const char *const what[WAYS] = {"wrap and release", "first copy up",
                                               "second copy up", "copy down and map"};
        report_ways(huge ? "USE_HOST_PTR on huge pages" : "USE_HOST_PTR on 4 KiB pages", what,
                    (double *const[WAYS]){make, up, up2, down});
    }

    /* 4. Memory wrapped and kept wrapped (a pool's block made that way): do the ordinary
     * transfer calls, given its pointer, move it at the page-locked rate? */
    for (int huge = 0; huge <= 1; huge++) {
        for (int i = 0; i < blocks; i++) {
            char *p = host_memory(huge);
            cl_mem w = wrap(p, "clCreateBuffer(USE_HOST_PTR)", &make[i]);
            up[i] = write_up_ms(p);
            memset(p, 6, n);
            up2[i] = write_up_ms(p);
            down[i] = read_down_ms(p);
            if (p[n / 2] != 6) {
                fprintf(stderr, "pin_probe: the read down gave %d, not 6\n", p[n / 2]);
                return 1;
            }
            clReleaseMemObject(w);
            free(p);
        }
        static const char *const what[WAYS] = {"wrap", "write up from its pointer",
                                               "again, after the host wrote it",
                                               "read down into its pointer"};
        report_ways(huge ? "kept wrapped, huge pages" : "kept wrapped, 4 KiB pages", what,
                    (double *const[WAYS]){make, up, up2, down});
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
        kept[i] = wrap(p, "clCreateBuffer(USE_HOST_PTR, untouched)", &make[i]);
        memset(p, 7, n);
        up[i] = write_up_ms(p);
        down[i] = read_down_ms(p);
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
