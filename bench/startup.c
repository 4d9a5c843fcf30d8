/*
 * startup.c - what a process pays to start OpenCL and to end, and tiledconv's start-up
 * against it.
 *
 *   cc -O2 -o build/startup bench/startup.c -lOpenCL
 *   build/startup [SRC] [gpu|cpu] [TILEDCONV [RUNS]]
 *
 * 1. Step by step, in a child process (so that this one never loads a driver: every later
 *    process starts from a parent that holds no device), as tiledconv takes them: the
 *    loader's platform list (which loads every vendor's ICD), the device list, the context,
 *    the queue, the program build of SRC/Common.cl + SRC/TiledConv.cl (the first, and again
 *    from the driver's cache), a first buffer with an upload, a pinned staging buffer, and a
 *    second context on the same device (a second lane of a batch). One line per step, wall ms.
 * 2. Whole processes, RUNS times each (default 5), interleaved: the bare probe (this program
 *    run as `startup --bare TYPE`: the platform list, the first device of TYPE, a context and
 *    queue, one tiny kernel built (from the driver's warm cache after the first run) and run
 *    on 256 floats, read back, a normal exit) against `TILEDCONV --device TYPE -q` on a
 *    16 x 16 BMP file (written here) to a BMP file (the batch path every file takes) and on
 *    `-g 16x16 --no-output` (the study path), and `TILEDCONV --version` (the loader and the
 *    libraries alone). Prints min, median and max of each and the ratios of the medians: the
 *    target is tiledconv within 1.5x of the bare probe. A command that fails is shown with
 *    its exit status and the others go on.
 * 3. What a process's end costs, RUNS times each: from a child's last instruction (_exit, as
 *    tiledconv ends) until its parent has reaped it, for a child that did nothing, that held
 *    one context with tiledconv's pinned staging (six 2 MiB buffers for the pipeline's slots,
 *    two 16 MiB chunks for the pixel path, mapped), two such contexts, one such context
 *    released before the end (its release timed apart), and 2 GiB of touched heap in photo-
 *    sized blocks (a batch's read-ahead; STARTUP_HEAP_MB sets another size). The rest of a
 *    batch's whole-process time beyond its own clock is among these.
 * 4. The bare probe with the loader restricted to one vendor's ICD at a time (OCL_ICD_VENDORS
 *    naming a folder that holds that .icd file alone: ocl-icd and Khronos' loader both take a
 *    folder), for every .icd of the vendors folder, and NVIDIA's library in
 *    /usr/local/nvidia/lib64 where no .icd names it: what a process would pay if only the
 *    platform asked for were loaded.
 * Not part of the tool or its tests.
 */
#define CL_TARGET_OPENCL_VERSION 120
#define _POSIX_C_SOURCE 200809L
#include <CL/cl.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tiledconv.h" /* tc_border: the border rules' numbers (-Iinclude) */

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
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
        fclose(f);
        return NULL;
    }
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

/* The first device of that type on any platform, in the loader's order. */
static cl_device_id first_device(cl_device_type type)
{
    cl_platform_id platforms[16];
    cl_uint np = 0, nd = 0;
    cl_device_id device = NULL;
    if (clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS)
        return NULL;
    for (cl_uint p = 0; p < np && p < 16 && !device; p++)
        if (clGetDeviceIDs(platforms[p], type, 1, &device, &nd) != CL_SUCCESS)
            device = NULL;
    return device;
}

/* The bare probe: what the least a program that filters on the device must do. */
static int bare(cl_device_type type)
{
    static const char *src = "kernel void add_one(global float *a) "
                             "{ a[get_global_id(0)] += 1.0f; }";
    float host[256] = {0};
    const size_t n = 256;
    cl_int err;
    cl_device_id device = first_device(type);
    if (!device) {
        fprintf(stderr, "startup: no device of that type\n");
        return 1;
    }
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
    CHECK(err);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    CHECK(err);
    CHECK(clBuildProgram(prog, 1, &device, "", NULL, NULL));
    cl_kernel k = clCreateKernel(prog, "add_one", &err);
    CHECK(err);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host, host,
                                &err);
    CHECK(err);
    CHECK(clSetKernelArg(k, 0, sizeof buf, &buf));
    CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL));
    return host[255] == 1.0f ? 0 : 1;
}

/* Part 1: the steps, in this process. */
static int steps(const char *source_dir, cl_device_type type)
{
    char common_path[1024], tiled_path[1024];
    snprintf(common_path, sizeof common_path, "%s/Common.cl", source_dir);
    snprintf(tiled_path, sizeof tiled_path, "%s/TiledConv.cl", source_dir);
    const double t0 = now_ms();
    cl_platform_id platforms[16];
    cl_uint np = 0, nd = 0;
    cl_device_id device = NULL;
    cl_int err;
    char *common = read_file(common_path), *source = read_file(tiled_path);
    /* The border rules' numbers, which the library writes before Common.cl, from its enum. */
    char options[512];
    snprintf(options, sizeof options,
             "-cl-std=CL1.2 -D RADIUS_X=2 -D RADIUS_Y=2 -D BORDER=0 -D GROUP_X=8 -D GROUP_Y=8 "
             "-D BLOCK_X=4 -D BLOCK_Y=4 -D ONEPASS_GROUP=16 -D TWOPASS_TILE=16 "
             "-D TILED_MAX_TAPS=15 -D TC_VECTOR_IO=1 -D SHIFT=0 -D BORDER_REPLICATE=%d "
             "-D BORDER_CONSTANT=%d -D BORDER_REFLECT101=%d -D BORDER_REFLECT=%d "
             "-D BORDER_WRAP=%d",
             TC_BORDER_REPLICATE, TC_BORDER_CONSTANT, TC_BORDER_REFLECT101, TC_BORDER_REFLECT,
             TC_BORDER_WRAP);
    if (!common || !source) {
        fprintf(stderr, "startup: cannot read %s\n", common ? tiled_path : common_path);
        return 1;
    }
    printf("OpenCL start-up, step by step (wall ms):\n");
    t_prev = now_ms();
    CHECK(clGetPlatformIDs(16, platforms, &np));
    step("clGetPlatformIDs (loads every ICD)");
    for (cl_uint p = 0; p < np && p < 16 && !device; p++)
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
    size_t bin_size = 0;
    unsigned char *bin = NULL;
    CHECK(clGetProgramInfo(prog2, CL_PROGRAM_BINARY_SIZES, sizeof bin_size, &bin_size, NULL));
    if (bin_size && (bin = malloc(bin_size)) != NULL &&
        clGetProgramInfo(prog2, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) == CL_SUCCESS) {
        t_prev = now_ms();
        const unsigned char *bins[1] = {bin};
        cl_int bin_status;
        cl_program prog3 =
            clCreateProgramWithBinary(ctx, 1, &device, &bin_size, bins, &bin_status, &err);
        CHECK(err);
        CHECK(clBuildProgram(prog3, 1, &device, options, NULL, NULL));
        step("the same from its binary (clCreateProgramWithBinary)");
        clReleaseProgram(prog3);
    }
    free(bin);
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

/* One whole process: argv run to its end, its wall time in ms; -1 when it failed (its exit
 * status in *status_out when not NULL). */
static double run_ms(char *const argv[], int *status_out)
{
    const double t = now_ms();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1.0;
    if (pid == 0) {
        /* What the commands print (tiledconv --version) is not this program's report. */
        if (!freopen("/dev/null", "w", stdout))
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    const int reaped = waitpid(pid, &status, 0) == pid;
    if (status_out)
        *status_out = reaped && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (!reaped || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1.0;
    return now_ms() - t;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A 16 x 16 gray 8-bit BMP (a palette of grays, rows of 16 bytes) written to path: 0 or -1. */
static int write_tiny_bmp(const char *path)
{
    unsigned char h[54 + 1024 + 256] = {0};
    const uint32_t size = sizeof h, offbits = 54 + 1024;
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    h[0] = 'B';
    h[1] = 'M';
    memcpy(h + 2, &size, 4);
    memcpy(h + 10, &offbits, 4);
    const uint32_t info = 40, w = 16, hh = 16, colours = 256;
    const uint16_t planes = 1, bits = 8;
    memcpy(h + 14, &info, 4);
    memcpy(h + 18, &w, 4);
    memcpy(h + 22, &hh, 4);
    memcpy(h + 26, &planes, 2);
    memcpy(h + 28, &bits, 2);
    memcpy(h + 46, &colours, 4);
    for (int i = 0; i < 256; i++)
        h[54 + 4 * i] = h[54 + 4 * i + 1] = h[54 + 4 * i + 2] = (unsigned char)i;
    for (int i = 0; i < 256; i++)
        h[offbits + i] = (unsigned char)(i * 7);
    const int ok = fwrite(h, 1, sizeof h, f) == sizeof h;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* Part 2: whole processes, interleaved. */
static void processes(const char *self, const char *type_word, const char *tiledconv, int runs)
{
    enum { KINDS = 4, MAX_RUNS = 50 };
    static const char *const names[KINDS] = {
        "bare probe (platforms, device, context, one tiny kernel built and run)",
        "tiledconv, a 16 x 16 BMP file to a BMP file (the batch path)",
        "tiledconv -g 16x16 --no-output (the study path)",
        "tiledconv --version (the loader and libraries alone)"};
    char tiny[64], out[64], device[64];
    double ms[KINDS][MAX_RUNS];
    int ok[KINDS] = {0}, failed[KINDS] = {0};
    snprintf(tiny, sizeof tiny, "/tmp/tc-startup-%d.bmp", (int)getpid());
    snprintf(out, sizeof out, "/tmp/tc-startup-%d-out.bmp", (int)getpid());
    snprintf(device, sizeof device, "%s", type_word);
    char *cmds[KINDS][12] = {
        {(char *)self, "--bare", device, NULL},
        {(char *)tiledconv, "-q", "--device", device, "-s", tiny, "-o", out, NULL},
        {(char *)tiledconv, "-q", "--device", device, "-g", "16x16", "--no-output", NULL},
        {(char *)tiledconv, "--version", NULL}};
    if (runs > MAX_RUNS)
        runs = MAX_RUNS;
    if (write_tiny_bmp(tiny)) {
        fprintf(stderr, "startup: cannot write %s\n", tiny);
        return;
    }
    for (int k = 0; k < KINDS; k++) /* a warm-up each: the driver's caches, the page cache */
        (void)run_ms(cmds[k], NULL);
    for (int r = 0; r < runs; r++)
        for (int k = 0; k < KINDS; k++) {
            const double t = run_ms(cmds[k], &failed[k]);
            if (t >= 0)
                ms[k][ok[k]++] = t;
        }
    printf("\nwhole processes, %s, %d runs each after a warm-up (wall ms: min, median, max):\n",
           type_word, runs);
    double median[KINDS];
    for (int k = 0; k < KINDS; k++) {
        median[k] = 0.0;
        if (ok[k] == 0) {
            printf("  %-72s n/a: exit status %d (its own line above)\n", names[k], failed[k]);
            continue;
        }
        qsort(ms[k], (size_t)ok[k], sizeof ms[k][0], by_value);
        median[k] = ms[k][ok[k] / 2];
        printf("  %-72s %8.1f %8.1f %8.1f%s\n", names[k], ms[k][0], median[k], ms[k][ok[k] - 1],
               ok[k] < runs ? " (some runs failed)" : "");
    }
    if (median[0] > 0 && median[1] > 0 && median[2] > 0)
        printf("  tiledconv's medians against the bare probe's: %.2fx (a file), %.2fx (-g); the "
               "target is 1.5x\n",
               median[1] / median[0], median[2] / median[0]);
    remove(tiny);
    remove(out);
}

/* ---- Part 3: the cost of a process's end ------------------------------------------------- */

/* The touched heap's 2 MiB blocks: 1,000 (2 GiB: a batch's read-ahead), or STARTUP_HEAP_MB
 * / 2 where that is set (a smaller machine, a quick check). */
static int heap_blocks(void)
{
    const char *e = getenv("STARTUP_HEAP_MB");
    const long mb = e && *e ? strtol(e, NULL, 10) : 2000;
    return mb >= 2 && mb <= 1 << 20 ? (int)(mb / 2) : 1;
}

enum { EXIT_NOTHING, EXIT_ONE, EXIT_TWO, EXIT_RELEASED, EXIT_HEAP, EXIT_KINDS };

/* A context on the first device of the type, holding tiledconv's pinned staging, mapped, and
 * a transfer from it done: 0, or -1. */
static int hold_context(cl_device_type type, cl_context *ctx_out, cl_command_queue *q_out,
                        cl_mem *mems, int *n_mems)
{
    static const size_t sizes[8] = {2u << 20, 2u << 20, 2u << 20, 2u << 20, 2u << 20, 2u << 20,
                                    16u << 20, 16u << 20};
    cl_int err;
    cl_device_id device = first_device(type);
    if (!device)
        return -1;
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return -1;
    cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
    if (err != CL_SUCCESS)
        return -1;
    cl_mem dev = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 16u << 20, NULL, &err);
    if (err != CL_SUCCESS)
        return -1;
    mems[(*n_mems)++] = dev;
    for (int i = 0; i < 8; i++) {
        cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, sizes[i], NULL,
                                  &err);
        if (err != CL_SUCCESS)
            return -1;
        mems[(*n_mems)++] = m;
        void *p = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, sizes[i], 0,
                                     NULL, NULL, &err);
        if (err != CL_SUCCESS)
            return -1;
        memset(p, i, sizes[i]);
        if (clEnqueueWriteBuffer(q, dev, CL_TRUE, 0, sizes[i], p, 0, NULL, NULL) != CL_SUCCESS)
            return -1;
    }
    *ctx_out = ctx;
    *q_out = q;
    return 0;
}

/* The child of one exit probe: its work, then its clock through the pipe, then _exit. */
static void exit_child(int kind, cl_device_type type, int fd)
{
    double stamp[2] = {0.0, 0.0}; /* the moment before _exit; a release's time */
    cl_context ctx[2];
    cl_command_queue q[2];
    cl_mem mems[2][16];
    int n[2] = {0, 0};
    int fail = 0;
    if (kind == EXIT_ONE || kind == EXIT_RELEASED || kind == EXIT_TWO)
        fail |= hold_context(type, &ctx[0], &q[0], mems[0], &n[0]);
    if (kind == EXIT_TWO)
        fail |= hold_context(type, &ctx[1], &q[1], mems[1], &n[1]);
    if (kind == EXIT_RELEASED && !fail) {
        const double t = now_ms();
        for (int i = 0; i < n[0]; i++)
            clReleaseMemObject(mems[0][i]);
        clReleaseCommandQueue(q[0]);
        clReleaseContext(ctx[0]);
        stamp[1] = now_ms() - t;
    }
    if (kind == EXIT_HEAP) { /* blocks of 2 MiB, touched, as a batch's decoded photos */
        for (int i = 0; i < heap_blocks() && !fail; i++) {
            char *b = malloc((size_t)2 << 20);
            if (!b)
                fail = 1;
            else
                memset(b, i, (size_t)2 << 20);
        }
    }
    stamp[0] = fail ? -1.0 : now_ms();
    if (write(fd, stamp, sizeof stamp) != (ssize_t)sizeof stamp)
        _exit(1);
    _exit(0);
}

/* One exit probe: ms from the child's _exit until it is reaped, and its release's ms; -1 when
 * the child could not do its work. */
static double exit_ms(int kind, cl_device_type type, double *release_ms)
{
    int fd[2];
    double stamp[2] = {-1.0, 0.0};
    if (pipe(fd) != 0)
        return -1.0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1.0;
    if (pid == 0) {
        close(fd[0]);
        exit_child(kind, type, fd[1]);
    }
    close(fd[1]);
    const int got = read(fd[0], stamp, sizeof stamp) == (ssize_t)sizeof stamp;
    close(fd[0]);
    int status;
    waitpid(pid, &status, 0);
    const double end = now_ms();
    *release_ms = stamp[1];
    return got && stamp[0] >= 0.0 ? end - stamp[0] : -1.0;
}

static void exit_costs(cl_device_type type, const char *type_word, int runs)
{
    char heap[80];
    snprintf(heap, sizeof heap, "%d MiB of touched heap in 2 MiB blocks (a batch's read-ahead)",
             2 * heap_blocks());
    const char *const names[EXIT_KINDS] = {
        "nothing held",
        "one context, its pinned staging (44 MiB) and a buffer",
        "two such contexts",
        "one such context, released before the end (the release apart)",
        heap};
    printf("\nthe end of a process, %s, %d runs each (ms from its _exit until it is reaped: min, "
           "median, max):\n",
           type_word, runs);
    for (int k = 0; k < EXIT_KINDS; k++) {
        double ms[50], rel[50];
        int n = 0;
        for (int r = 0; r < runs && r < 50; r++) {
            double release = 0.0;
            const double t = exit_ms(k, type, &release);
            if (t >= 0) {
                rel[n] = release;
                ms[n++] = t;
            }
        }
        if (n == 0) {
            printf("  %-66s n/a (the child could not do its work)\n", names[k]);
            continue;
        }
        qsort(ms, (size_t)n, sizeof ms[0], by_value);
        qsort(rel, (size_t)n, sizeof rel[0], by_value);
        printf("  %-66s %8.1f %8.1f %8.1f", names[k], ms[0], ms[n / 2], ms[n - 1]);
        if (k == EXIT_RELEASED)
            printf("   (release: median %.1f)", rel[n / 2]);
        printf("\n");
    }
}

/* ---- Part 4: the bare probe with one ICD at a time -------------------------------------- */

/* The bare probe, 5 runs, with the loader given a folder that holds one .icd naming lib. */
static void probe_one_icd(const char *self, const char *type_word, const char *label,
                          const char *lib)
{
    char dir[64], path[128], device[16];
    snprintf(dir, sizeof dir, "/tmp/tc-icd-%d", (int)getpid());
    snprintf(path, sizeof path, "%s/one.icd", dir);
    snprintf(device, sizeof device, "%s", type_word);
    mkdir(dir, 0700);
    FILE *f = fopen(path, "w");
    if (!f || fprintf(f, "%s\n", lib) < 0 || fclose(f) != 0) {
        printf("  %-40s cannot write %s\n", label, path);
        return;
    }
    setenv("OCL_ICD_VENDORS", dir, 1);
    setenv("OPENCL_VENDOR_PATH", dir, 1);
    char *cmd[] = {(char *)self, "--bare", device, NULL};
    double ms[5];
    int ok = 1, status = 0;
    (void)run_ms(cmd, NULL);
    for (int r = 0; r < 5 && ok; r++)
        ok = (ms[r] = run_ms(cmd, &status)) >= 0;
    if (ok) {
        qsort(ms, 5, sizeof ms[0], by_value);
        printf("  %-40s %8.1f   (%s)\n", label, ms[2], lib);
    } else {
        printf("  %-40s no %s device through it alone (exit status %d; %s)\n", label, type_word,
               status, lib);
    }
    remove(path);
    rmdir(dir);
}

static void one_icd_each(const char *self, const char *type_word)
{
    static const char *const nvidia = "/usr/local/nvidia/lib64/libnvidia-opencl.so.1";
    const char *set = getenv("OCL_ICD_VENDORS"), *set2 = getenv("OPENCL_VENDOR_PATH");
    char *saved = set ? strdup(set) : NULL, *saved2 = set2 ? strdup(set2) : NULL;
    struct stat st;
    const char *dir = set && *set && stat(set, &st) == 0 && S_ISDIR(st.st_mode)
                          ? set
                          : "/etc/OpenCL/vendors";
    int nvidia_named = 0;
    DIR *d = opendir(dir);
    printf("\nthe bare probe with the loader given one ICD (from %s; OCL_ICD_VENDORS was %s; 5 "
           "runs, median ms):\n",
           dir, set ? set : "unset");
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        const size_t n = strlen(e->d_name);
        char path[1024], lib[1024] = "";
        if (n < 5 || strcmp(e->d_name + n - 4, ".icd") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r");
        if (f) {
            if (!fgets(lib, sizeof lib, f))
                lib[0] = '\0';
            lib[strcspn(lib, "\r\n")] = '\0';
            fclose(f);
        }
        if (!lib[0])
            continue;
        nvidia_named |= strstr(lib, "nvidia") != NULL;
        probe_one_icd(self, type_word, e->d_name, lib);
    }
    if (d)
        closedir(d);
    if (!nvidia_named && access(nvidia, R_OK) == 0)
        probe_one_icd(self, type_word, "(no .icd) NVIDIA's library", nvidia);
    if (saved)
        setenv("OCL_ICD_VENDORS", saved, 1);
    else
        unsetenv("OCL_ICD_VENDORS");
    if (saved2)
        setenv("OPENCL_VENDOR_PATH", saved2, 1);
    else
        unsetenv("OPENCL_VENDOR_PATH");
    free(saved);
    free(saved2);
}

/* Part 1 in a child, so that this process loads no driver. */
static int steps_in_child(const char *source_dir, cl_device_type type)
{
    int status;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        const int rc = steps(source_dir, type);
        fflush(NULL);
        _exit(rc);
    }
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return 1;
    return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--bare") == 0)
        return bare(strcmp(argv[2], "cpu") == 0 ? CL_DEVICE_TYPE_CPU : CL_DEVICE_TYPE_GPU);
    const char *source_dir = argc > 1 ? argv[1] : "src";
    const char *type_word = argc > 2 && strcmp(argv[2], "cpu") == 0 ? "cpu" : "gpu";
    const cl_device_type type = type_word[0] == 'c' ? CL_DEVICE_TYPE_CPU : CL_DEVICE_TYPE_GPU;
    const int runs = argc > 4 ? atoi(argv[4]) : 5;
    int status = steps_in_child(source_dir, type);
    if (argc > 3) {
        processes(argv[0], type_word, argv[3], runs > 0 ? runs : 5);
        exit_costs(type, type_word, runs > 0 ? runs : 5);
        one_icd_each(argv[0], type_word);
    }
    return status;
}
