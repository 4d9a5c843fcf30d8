/*
 * startup.c - what a process pays to start OpenCL, and tiledconv's start-up against it.
 *
 *   cc -O2 -o build/startup bench/startup.c -lOpenCL
 *   build/startup [SRC] [gpu|cpu] [TILEDCONV [RUNS]]
 *
 * 1. Step by step, in this process, as tiledconv takes them: the loader's platform list
 *    (which loads every vendor's ICD), the device list, the context, the queue, the program
 *    build of SRC/Common.cl + SRC/TiledConv.cl (the first, and again from the driver's cache),
 *    a first buffer with an upload, a pinned staging buffer, and a second context on the same
 *    device (a second lane of a batch). One line per step, wall ms.
 * 2. Whole processes, RUNS times each (default 5), interleaved: the bare probe (this program
 *    run as `startup --bare TYPE`: the platform list, the first device of TYPE, a context and
 *    queue, one tiny kernel built (from the driver's warm cache after the first run) and run
 *    on 256 floats, read back, a normal exit) against `TILEDCONV --device TYPE -q` on a
 *    16 x 16 BMP file to a BMP file (the batch path every file takes) and on `-g 16x16
 *    --no-output` (the study path). Prints min, median and max of each and the ratios of the
 *    medians: the target is tiledconv within 1.5x of the bare probe.
 * 3. The bare probe with the loader restricted to one vendor's ICD at a time (OCL_ICD_VENDORS
 *    naming that .icd file, OCL_ICD_FILENAMES its library, for ocl-icd and Khronos' loader):
 *    what a process would pay if only the platform asked for were loaded.
 * Not part of the tool or its tests.
 */
#define CL_TARGET_OPENCL_VERSION 120
#define _POSIX_C_SOURCE 200809L
#include <CL/cl.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* One whole process: argv run to its end, its wall time in ms; -1 when it failed. */
static double run_ms(char *const argv[])
{
    const double t = now_ms();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1.0;
    if (pid == 0) {
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1.0;
    return now_ms() - t;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Part 2: whole processes, interleaved. */
static int processes(const char *self, const char *type_word, const char *tiledconv, int runs)
{
    enum { KINDS = 3, MAX_RUNS = 50 };
    static const char *const names[KINDS] = {
        "bare probe (platforms, device, context, one tiny kernel built and run)",
        "tiledconv, a 16 x 16 BMP file to a BMP file (the batch path)",
        "tiledconv -g 16x16 --no-output (the study path)"};
    char tiny[64], out[64], device[64];
    double ms[KINDS][MAX_RUNS];
    snprintf(tiny, sizeof tiny, "/tmp/tc-startup-%d.bmp", (int)getpid());
    snprintf(out, sizeof out, "/tmp/tc-startup-%d-out.bmp", (int)getpid());
    snprintf(device, sizeof device, "%s", type_word);
    char *make[] = {(char *)tiledconv, "-q", "--device", device, "-g", "16x16", "-o", tiny, NULL};
    char *cmds[KINDS][12] = {
        {(char *)self, "--bare", device, NULL},
        {(char *)tiledconv, "-q", "--device", device, "-s", tiny, "-o", out, NULL},
        {(char *)tiledconv, "-q", "--device", device, "-g", "16x16", "--no-output", NULL}};
    if (runs > MAX_RUNS)
        runs = MAX_RUNS;
    if (run_ms(make) < 0) {
        fprintf(stderr, "startup: %s could not write %s\n", tiledconv, tiny);
        return 1;
    }
    for (int k = 0; k < KINDS; k++) /* a warm-up each: the driver's caches, the page cache */
        (void)run_ms(cmds[k]);
    for (int r = 0; r < runs; r++)
        for (int k = 0; k < KINDS; k++)
            if ((ms[k][r] = run_ms(cmds[k])) < 0) {
                fprintf(stderr, "startup: run %d of '%s' failed\n", r + 1, names[k]);
                return 1;
            }
    printf("\nwhole processes, %s, %d runs each after a warm-up (wall ms: min, median, max):\n",
           type_word, runs);
    double median[KINDS];
    for (int k = 0; k < KINDS; k++) {
        qsort(ms[k], (size_t)runs, sizeof ms[k][0], by_value);
        median[k] = ms[k][runs / 2];
        printf("  %-72s %8.1f %8.1f %8.1f\n", names[k], ms[k][0], median[k], ms[k][runs - 1]);
    }
    printf("  tiledconv's medians against the bare probe's: %.2fx (a file), %.2fx (-g); the "
           "target is 1.5x\n",
           median[1] / median[0], median[2] / median[0]);
    remove(tiny);
    remove(out);
    return 0;
}

/* Part 3: the bare probe with one ICD at a time. */
static void one_icd_each(const char *self, const char *type_word)
{
    const char *set = getenv("OCL_ICD_VENDORS");
    const char *dir = set && *set ? set : "/etc/OpenCL/vendors";
    char device[16];
    DIR *d = opendir(dir);
    struct dirent *e;
    snprintf(device, sizeof device, "%s", type_word);
    if (!d)
        return;
    printf("\nthe bare probe with the loader restricted to one ICD (%s; 5 runs, median ms):\n",
           dir);
    while ((e = readdir(d)) != NULL) {
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
        setenv("OCL_ICD_VENDORS", path, 1);
        setenv("OCL_ICD_FILENAMES", lib, 1);
        char *cmd[] = {(char *)self, "--bare", device, NULL};
        double ms[5];
        int ok = 1;
        (void)run_ms(cmd);
        for (int r = 0; r < 5 && ok; r++)
            ok = (ms[r] = run_ms(cmd)) >= 0;
        if (ok) {
            qsort(ms, 5, sizeof ms[0], by_value);
            printf("  %-40s %8.1f\n", e->d_name, ms[2]);
        } else {
            printf("  %-40s no %s device through it alone\n", e->d_name, type_word);
        }
    }
    closedir(d);
    if (set)
        setenv("OCL_ICD_VENDORS", set, 1);
    else
        unsetenv("OCL_ICD_VENDORS");
    unsetenv("OCL_ICD_FILENAMES");
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--bare") == 0)
        return bare(strcmp(argv[2], "cpu") == 0 ? CL_DEVICE_TYPE_CPU : CL_DEVICE_TYPE_GPU);
    const char *source_dir = argc > 1 ? argv[1] : "src";
    const char *type_word = argc > 2 && strcmp(argv[2], "cpu") == 0 ? "cpu" : "gpu";
    const cl_device_type type = type_word[0] == 'c' ? CL_DEVICE_TYPE_CPU : CL_DEVICE_TYPE_GPU;
    int status = steps(source_dir, type);
    if (status == 0 && argc > 3)
        status = processes(argv[0], type_word, argv[3], argc > 4 ? atoi(argv[4]) : 5);
    if (status == 0 && argc > 3)
        one_icd_each(argv[0], type_word);
    return status;
}
