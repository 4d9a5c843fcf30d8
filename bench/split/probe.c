/*
 * bench/split/probe.c - times the kernels of split_probe.cl on one OpenCL device (the first
 * GPU, else the first device): each case checked on a 997 x 701 image against a CPU
 * reference in double precision, then timed on SIZE x SIZE (median of ITER runs after two,
 * from the kernels' profiling events), beside a device copy of the same bytes.
 *
 *   cc -O2 -std=c11 bench/split/probe.c -lOpenCL -lm -o build/split_probe
 *   build/split_probe bench/split/split_probe.cl [SIZE [ITER]] < cases
 *
 * One case a line:
 *   windows TAPS BX VY     rows_windows (BX outputs a work-item), then cols (VY)
 *   staged TAPS HV VY KL   rows_staged (HV), then cols (VY); KL 1: coefficients as program
 *                          constants (-DKLIST), 0: from the argument
 *   fused TAPS HV KL       cols_then_rows
 *   peak KL                fma_peak: multiply-adds a second with nothing else to do
 * Prints one line a case: the passes' medians in ms, their sum, the copy, the multiply-adds a
 * second (2 TAPS a pixel) and the largest difference from the reference (grey levels 0..255).
 * Not part of the tool or its tests.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x)                                                                                  \
    do {                                                                                          \
        const cl_int e_ = (x);                                                                    \
        if (e_ != CL_SUCCESS) {                                                                   \
            fprintf(stderr, "probe: %s failed (%d) at line %d\n", #x, e_, __LINE__);              \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

static cl_context ctx;
static cl_command_queue queue;
static cl_device_id dev;
static char *source;

static int ascending(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double event_ms(cl_event e)
{
    cl_ulong a, b;
    CHECK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL));
    CHECK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL));
    clReleaseEvent(e);
    return (double)(b - a) * 1e-6;
}

static size_t round_up(size_t a, size_t b)
{
    return (a + b - 1) / b * b;
}

/* A sampled Gaussian of sigma taps / 6, normalised. */
static void coefficients(int taps, float *k)
{
    double sum = 0.0, sigma = taps / 6.0;
    for (int i = 0; i < taps; i++) {
        const double d = i - taps / 2;
        k[i] = (float)exp(-d * d / (2 * sigma * sigma));
        sum += k[i];
    }
    for (int i = 0; i < taps; i++)
        k[i] /= (float)sum;
}

static cl_program build(const char *defines, int taps, int constants, const float *k)
{
    static char opts[4096];
    int n = snprintf(opts, sizeof opts, "-DTAPS=%d %s", taps, defines);
    if (constants) {
        n += snprintf(opts + n, sizeof opts - (size_t)n, " -DKLIST=");
        for (int i = 0; i < taps; i++)
            n += snprintf(opts + n, sizeof opts - (size_t)n, "%s%.9gf", i ? "," : "", k[i]);
    }
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, (const char **)&source, NULL, &err);
    CHECK(err);
    if (clBuildProgram(p, 1, &dev, opts, NULL, NULL) != CL_SUCCESS) {
        static char log[65536];
        clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        fprintf(stderr, "probe: build failed (%s):\n%s\n", opts, log);
        exit(1);
    }
    return p;
}

/* The taps of k centred on sample `at` of a line of len samples `stride` apart, its ends
 * replicated, in double: one pass of the filter, rows and columns alike. */
static double taps_at(const float *k, int taps, const double *line, size_t stride, int at,
                      int len)
{
    double s = 0.0;
    for (int i = 0; i < taps; i++) {
        int j = at - taps / 2 + i;
        j = j < 0 ? 0 : j >= len ? len - 1 : j;
        s += k[i] * line[(size_t)j * stride];
    }
    return s;
}

/* The filter, replicate borders, in double: the rows, then the columns. */
static double largest_difference(const float *in, const float *out, int w, int h, int taps,
                                 const float *k)
{
    const size_t n = (size_t)w * h;
    double *src = malloc(n * sizeof *src), *rows = malloc(n * sizeof *rows), worst = 0.0;
    if (!src || !rows) {
        fprintf(stderr, "probe: no memory for the reference\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++)
        src[i] = in[i];
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            rows[(size_t)y * w + x] = taps_at(k, taps, src + (size_t)y * w, 1, x, w);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const double s = taps_at(k, taps, rows + x, (size_t)w, y, h);
            const double d = fabs(s - out[(size_t)y * w + x]);
            worst = d > worst ? d : worst;
        }
    free(src);
    free(rows);
    return worst;
}

typedef struct {
    const char *kind;
    int taps, bx, hv, vy, constants;
} probe_case;

/* One or two kernels (pass 1 into tmp, pass 2 into dst; a fused one straight into dst) on a
 * w x h plane: their medians into ms[0..1], the copy's into ms[2]; the largest difference
 * when check. */
static double run_case(const probe_case *c, int w, int h, int iterations, int check, double ms[3])
{
    char defines[128];
    float k[64];
    const int fused = !strcmp(c->kind, "fused"), windows = !strcmp(c->kind, "windows");
    coefficients(c->taps, k);
    if (windows)
        snprintf(defines, sizeof defines, "-DBX=%d -DVY=%d", c->bx, c->vy);
    else if (fused)
        snprintf(defines, sizeof defines, "-DHV=%d", c->hv);
    else
        snprintf(defines, sizeof defines, "-DHV=%d -DVY=%d", c->hv, c->vy);
    cl_program p = build(defines, c->taps, c->constants, k);
    cl_int err;
    cl_kernel k1 = clCreateKernel(p, fused ? "cols_then_rows" : windows ? "rows_windows"
                                                                        : "rows_staged", &err);
    CHECK(err);
    cl_kernel k2 = NULL;
    if (!fused) {
        k2 = clCreateKernel(p, "cols", &err);
        CHECK(err);
    }
    const size_t n = (size_t)w * h;
    float *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
    srand(7);
    for (size_t i = 0; i < n; i++)
        in[i] = (float)(rand() % 256);
    cl_mem src = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, in, &err);
    CHECK(err);
    cl_mem tmp = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * 4, NULL, &err);
    CHECK(err);
    cl_mem dst = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * 4, NULL, &err);
    CHECK(err);
    cl_mem kb = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof k, k, &err);
    CHECK(err);
    cl_mem out1 = fused ? dst : tmp;
    CHECK(clSetKernelArg(k1, 0, sizeof src, &src));
    CHECK(clSetKernelArg(k1, 1, sizeof out1, &out1));
    CHECK(clSetKernelArg(k1, 2, sizeof w, &w));
    CHECK(clSetKernelArg(k1, 3, sizeof h, &h));
    CHECK(clSetKernelArg(k1, 4, sizeof kb, &kb));
    if (k2) {
        CHECK(clSetKernelArg(k2, 0, sizeof tmp, &tmp));
        CHECK(clSetKernelArg(k2, 1, sizeof dst, &dst));
        CHECK(clSetKernelArg(k2, 2, sizeof w, &w));
        CHECK(clSetKernelArg(k2, 3, sizeof h, &h));
        CHECK(clSetKernelArg(k2, 4, sizeof kb, &kb));
    }
    size_t g1[2], l1[2], g2[2], l2[2] = {64, 4};
    if (windows) {
        l1[0] = 32;
        l1[1] = 8;
        g1[0] = round_up((size_t)(w + c->bx - 1) / c->bx, 32);
        g1[1] = round_up((size_t)h, 8);
    } else { /* a group of 32 x 8: 32 rows x 8 HV columns */
        l1[0] = 32;
        l1[1] = 8;
        g1[0] = (size_t)(w + 8 * c->hv - 1) / (8 * c->hv) * 32;
        g1[1] = (size_t)(h + 31) / 32 * 8;
    }
    if (k2) {
        g2[0] = round_up((size_t)w, 64);
        g2[1] = round_up((size_t)(h + c->vy - 1) / c->vy, 4);
    }
    double *t1 = calloc((size_t)iterations, sizeof *t1), *t2 = calloc((size_t)iterations, sizeof *t2),
           *tc = calloc((size_t)iterations, sizeof *tc);
    for (int i = -2; i < iterations; i++) {
        cl_event e1, e2 = NULL, e3;
        CHECK(clEnqueueNDRangeKernel(queue, k1, 2, NULL, g1, l1, 0, NULL, &e1));
        if (k2)
            CHECK(clEnqueueNDRangeKernel(queue, k2, 2, NULL, g2, l2, 0, NULL, &e2));
        CHECK(clEnqueueCopyBuffer(queue, src, tmp, 0, 0, n * 4, 0, NULL, &e3));
        CHECK(clFinish(queue));
        const double a = event_ms(e1), b = e2 ? event_ms(e2) : 0.0, d = event_ms(e3);
        if (i >= 0) {
            t1[i] = a;
            t2[i] = b;
            tc[i] = d;
        }
    }
    qsort(t1, (size_t)iterations, sizeof *t1, ascending);
    qsort(t2, (size_t)iterations, sizeof *t2, ascending);
    qsort(tc, (size_t)iterations, sizeof *tc, ascending);
    ms[0] = t1[iterations / 2];
    ms[1] = t2[iterations / 2];
    ms[2] = tc[iterations / 2];
    double worst = -1.0;
    if (check) { /* the copy above overwrote tmp: the passes once more, then the result */
        CHECK(clEnqueueNDRangeKernel(queue, k1, 2, NULL, g1, l1, 0, NULL, NULL));
        if (k2)
            CHECK(clEnqueueNDRangeKernel(queue, k2, 2, NULL, g2, l2, 0, NULL, NULL));
        CHECK(clEnqueueReadBuffer(queue, dst, CL_TRUE, 0, n * 4, out, 0, NULL, NULL));
        worst = largest_difference(in, out, w, h, c->taps, k);
    }
    clReleaseMemObject(src);
    clReleaseMemObject(tmp);
    clReleaseMemObject(dst);
    clReleaseMemObject(kb);
    clReleaseKernel(k1);
    if (k2)
        clReleaseKernel(k2);
    clReleaseProgram(p);
    free(in);
    free(out);
    free(t1);
    free(t2);
    free(tc);
    return worst;
}

static void peak(int constants)
{
    float k[64];
    coefficients(31, k);
    cl_program p = build("", 31, constants, k);
    cl_int err;
    cl_kernel kp = clCreateKernel(p, "fma_peak", &err);
    CHECK(err);
    cl_uint units = 1;
    CHECK(clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL));
    size_t global = (size_t)units * 2048 * 4, local = 256;
    int n = 256;
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, global * 4, NULL, &err);
    CHECK(err);
    cl_mem kb = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof k, k, &err);
    CHECK(err);
    CHECK(clSetKernelArg(kp, 0, sizeof out, &out));
    CHECK(clSetKernelArg(kp, 1, sizeof n, &n));
    CHECK(clSetKernelArg(kp, 2, sizeof kb, &kb));
    double t[20];
    for (int i = -2; i < 20; i++) {
        cl_event e;
        CHECK(clEnqueueNDRangeKernel(queue, kp, 1, NULL, &global, &local, 0, NULL, &e));
        CHECK(clFinish(queue));
        const double ms = event_ms(e);
        if (i >= 0)
            t[i] = ms;
    }
    qsort(t, 20, sizeof t[0], ascending);
    const double fmas = (double)global * n * 16 * 32;
    printf("peak constants=%d: %.4f ms, %.1f G multiply-adds/s\n", constants, t[10],
           fmas / t[10] * 1e-6);
    clReleaseMemObject(out);
    clReleaseMemObject(kb);
    clReleaseKernel(kp);
    clReleaseProgram(p);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: probe split_probe.cl [SIZE [ITER]] < cases\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    const long len = ftell(f);
    rewind(f);
    source = calloc((size_t)len + 1, 1);
    if (fread(source, 1, (size_t)len, f) != (size_t)len)
        return 1;
    fclose(f);
    const int size = argc > 2 ? atoi(argv[2]) : 8192, iterations = argc > 3 ? atoi(argv[3]) : 30;
    cl_platform_id platforms[8];
    cl_uint count = 0;
    CHECK(clGetPlatformIDs(8, platforms, &count));
    int found = 0;
    for (cl_uint i = 0; i < count && !found; i++)
        found = clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_GPU, 1, &dev, NULL) == CL_SUCCESS;
    if (!found)
        CHECK(clGetDeviceIDs(platforms[0], CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    cl_int err;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
    queue = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err);
    char kind[16];
    while (scanf("%15s", kind) == 1) {
        probe_case c = {kind, 0, 0, 0, 32, 1};
        int ok;
        if (!strcmp(kind, "peak")) {
            if (scanf("%d", &c.constants) != 1)
                break;
            peak(c.constants);
            continue;
        }
        if (!strcmp(kind, "windows"))
            ok = scanf("%d %d %d", &c.taps, &c.bx, &c.vy) == 3 && (c.constants = 0, 1);
        else if (!strcmp(kind, "staged"))
            ok = scanf("%d %d %d %d", &c.taps, &c.hv, &c.vy, &c.constants) == 4;
        else if (!strcmp(kind, "fused"))
            ok = scanf("%d %d %d", &c.taps, &c.hv, &c.constants) == 3;
        else
            ok = 0;
        if (!ok || c.taps < 3 || c.taps > 63 || !(c.taps & 1)) {
            fprintf(stderr, "probe: bad case line (%s ...)\n", kind);
            return 2;
        }
        double ms[3];
        const double worst = run_case(&c, 997, 701, 2, 1, ms);
        run_case(&c, size, size, iterations, 0, ms);
        const double fmas = 2.0 * c.taps * (double)size * size;
        printf("%-7s taps %2d bx %2d hv %2d vy %2d constants %d: pass 1 %.4f + pass 2 %.4f = %.4f "
               "ms, copy %.4f ms, %.0f G multiply-adds/s, largest difference %.2g\n",
               kind, c.taps, c.bx, c.hv, c.vy, c.constants, ms[0], ms[1], ms[0] + ms[1], ms[2],
               fmas / (ms[0] + ms[1]) * 1e-6, worst);
        fflush(stdout);
    }
    return 0;
}
