/*
 * bench/cuda/probe_common.cuh - what long_probe.cu and mask_probe.cu share, so that the two
 * ports cannot drift apart where they mean the same thing:
 *   - the checked CUDA call;
 *   - Common.cl's helpers that both kernels read through, ported as the probes' kernels are:
 *     FLOOR4, the read window of a row segment (its macros of RADIUS_X, BLOCK_X and SHIFT),
 *     border_index for the replicate rule, load_segment's float4 window form;
 *   - the host side: the source's layout (with its halo in the interior case), the timing of
 *     the copy and of the kernel (CUDA events, the median), the sampled check against a CPU
 *     reference in double, the CSV line, the command line.
 * Before including it, a probe defines PROBE_NAME (its messages' prefix), and BLOCK_X and SHIFT
 * (the -D values of its kernel). Not part of the project's build, like the probes.
 */
#ifndef TILEDCONV_PROBE_COMMON_CUH
#define TILEDCONV_PROBE_COMMON_CUH

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_runtime.h>

#if !defined(PROBE_NAME) || !defined(BLOCK_X) || !defined(SHIFT)
#error "define PROBE_NAME, BLOCK_X and SHIFT before including probe_common.cuh"
#endif

/* Every CUDA call: its error name and text, the call, the line; then exit 1. */
#define CUDA_CHECK(call)                                                                   \
    do {                                                                                   \
        const cudaError_t err_ = (call);                                                   \
        if (err_ != cudaSuccess) {                                                         \
            fprintf(stderr, PROBE_NAME ": %s (%s) in %s at %s:%d\n",                       \
                    cudaGetErrorName(err_), cudaGetErrorString(err_), #call, __FILE__,     \
                    __LINE__);                                                             \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

/* ---- Common.cl ----------------------------------------------------------------------------- */

/* Common.cl's FLOOR4: v rounded down to a multiple of 4, v >= -64. */
__host__ __device__ constexpr int floor4(int v)
{
    return (v + 64) / 4 * 4 - 64;
}

/* Common.cl's macros of the read window, for N taps along rows (a filter of N taps, a mask of
 * side N): RADIUS_X = RADIUS_Y = N / 2. Each probe's Geometry<N> adds its kernel's own. */
template <int N> struct Window {
    static constexpr int RADIUS_X = N / 2, RADIUS_Y = N / 2;
    static constexpr int SEG_W = BLOCK_X + 2 * RADIUS_X; /* raw pixels in one row segment */
    static constexpr int WIN_LO = floor4(SHIFT - RADIUS_X);
    static constexpr int WIN_HI = floor4(SHIFT + BLOCK_X - 1 + RADIUS_X) + 4;
    static constexpr int WIN_Q = (WIN_HI - WIN_LO) / 4; /* float4s per segment */
    static constexpr int APRON_L = SHIFT - WIN_LO;
    static constexpr int APRON_R = WIN_HI - SHIFT - BLOCK_X;
};

/* border_index for BORDER_REPLICATE. */
__device__ __forceinline__ int border_index(int p, int n)
{
    if (p >= 0 && p < n)
        return p;
    return min(max(p, 0), n - 1);
}

/* load_segment, the float4 window form (TC_VECTOR_IO, SHIFT 0, radius > 1). */
template <int N>
__device__ __forceinline__ void load_segment(const float *src, int pitch, int sx, int sy,
                                             float seg[Window<N>::SEG_W])
{
    using G = Window<N>;
    const float *p = src + sy * pitch + sx; /* the block's first pixel */
    const float4 *w4 = (const float4 *)(p - SHIFT + G::WIN_LO);
    float win[4 * G::WIN_Q];
#pragma unroll
    for (int v = 0; v < G::WIN_Q; v++) {
        const float4 q = w4[v];
        win[4 * v] = q.x;
        win[4 * v + 1] = q.y;
        win[4 * v + 2] = q.z;
        win[4 * v + 3] = q.w;
    }
#pragma unroll
    for (int i = 0; i < G::SEG_W; i++)
        seg[i] = win[SHIFT - G::RADIUS_X - G::WIN_LO + i];
}

/* ---- The host: images, timing, the check ---------------------------------------------------- */

/* Where the image lies in its buffers. The source and the target share one pitch, as the
 * kernel's single pitch argument requires (the OpenCL planes have the same). */
struct Layout {
    int n;            /* the ROI: n x n */
    int sL, sT;       /* the ROI's first pixel in the source buffer */
    int pitch;        /* floats a row, a multiple of 32 (128 bytes) */
    int src_rows;     /* rows of the source buffer */
    bool interior;    /* a halo: every tile reads unchecked */
};

static int round_up(int v, int m)
{
    return (v + m - 1) / m * m;
}

/* The layout for N taps along rows and columns and tiles of tile_w x tile_h. The interior
 * layout's halo covers every read of every tile as class 1 reads it, the tiles past the ROI's
 * right and bottom edges included (when n is not a multiple of the tile); the left one is
 * rounded to 32 floats, so that every window sits on the 128-byte lines as in the OpenCL run. */
template <int N> static Layout layout_of(int n, bool interior, int tile_w, int tile_h)
{
    using G = Window<N>;
    Layout a;
    a.n = n;
    a.interior = interior;
    if (!interior) { /* the OpenCL run's: the ROI is the whole buffer */
        a.sL = a.sT = 0;
        a.pitch = round_up(n, 32);
        a.src_rows = n;
        return a;
    }
    const int tiles_w = round_up(n, tile_w), tiles_h = round_up(n, tile_h);
    a.sL = round_up(G::APRON_L, 32);
    a.sT = G::RADIUS_Y;
    a.pitch = round_up(a.sL + tiles_w + G::APRON_R, 32);
    a.src_rows = a.sT + tiles_h + G::RADIUS_Y;
    return a;
}

/* The source pixel at ROI coordinate (x, y): from the halo in the interior layout, by the
 * replicate rule otherwise. */
static float source_at(const std::vector<float> &src, const Layout &a, int x, int y)
{
    if (!a.interior) {
        x = std::min(std::max(x, 0), a.n - 1);
        y = std::min(std::max(y, 0), a.n - 1);
    }
    return src[(size_t)(a.sT + y) * a.pitch + (size_t)(a.sL + x)];
}

static float median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5f * (v[m - 1] + v[m]);
}

/* A small deterministic generator (the image and the sample of checked pixels). */
static unsigned lcg(unsigned &state)
{
    state = state * 1664525u + 1013904223u;
    return state >> 8;
}

/* The source of layout a: uniform in [0, 1), halo included. */
static std::vector<float> random_source(const Layout &a)
{
    std::vector<float> host_src((size_t)a.src_rows * a.pitch);
    unsigned state = 12345u;
    for (float &v : host_src)
        v = (float)(lcg(state) & 0xffffff) / 16777216.0f;
    return host_src;
}

/* The median of iter timed runs of run() (CUDA events around each), after one untimed. */
template <class Run> static float time_median(int iter, Run run)
{
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    std::vector<float> ms(iter);
    run(); /* warm-up */
    CUDA_CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < iter; i++) {
        CUDA_CHECK(cudaEventRecord(start));
        run();
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaEventElapsedTime(&ms[i], start, stop));
    }
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaEventDestroy(start));
    return median(ms);
}

/* One case of a probe (a length, a mask) on layout a: the buffers made from host_src, the copy
 * of the image's bytes and the kernel timed (iter runs each), the target checked at sampled
 * pixels against reference(x, y) within tolerance, one CSV line printed (`taps` its first
 * column, `label` the case in messages). launch(src, dst) launches the kernel once on grid;
 * `kernel` is the kernel itself, for its registers and memory. Returns whether the check
 * passed. */
template <class Launch, class Reference>
static bool run_case(int taps, const char *label, const Layout &a,
                     const std::vector<float> &host_src, int iter, const void *kernel, dim3 grid,
                     Launch launch, Reference reference, double tolerance)
{
    const int n = a.n;
    const size_t src_floats = host_src.size(), dst_floats = (size_t)n * a.pitch;
    const size_t image_bytes = (size_t)n * n * sizeof(float);

    float *src = nullptr, *dst = nullptr;
    CUDA_CHECK(cudaMalloc(&src, src_floats * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dst, dst_floats * sizeof(float))); /* n rows of pitch >= n */
    CUDA_CHECK(cudaMemcpy(src, host_src.data(), src_floats * sizeof(float),
                          cudaMemcpyHostToDevice));

    /* The copy of the image's bytes, device to device (the roofline's memory floor). */
    const float copy_ms = time_median(iter, [&] {
        CUDA_CHECK(cudaMemcpy(dst, src, image_bytes, cudaMemcpyDeviceToDevice));
    });

    /* The kernel: the target first filled with NaN, so that a pixel never written fails. */
    CUDA_CHECK(cudaMemset(dst, 0xff, dst_floats * sizeof(float)));
    const float kernel_ms = time_median(iter, [&] {
        launch(src, dst);
        CUDA_CHECK(cudaGetLastError());
    });

    cudaFuncAttributes attr;
    CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));

    /* The check: 4096 random pixels and the four corners against the reference. */
    std::vector<float> host_dst(dst_floats);
    CUDA_CHECK(cudaMemcpy(host_dst.data(), dst, dst_floats * sizeof(float),
                          cudaMemcpyDeviceToHost));
    std::vector<int> xs = {0, n - 1, 0, n - 1}, ys = {0, 0, n - 1, n - 1};
    unsigned pick = 777u;
    for (int i = 0; i < 4096; i++) {
        xs.push_back((int)(lcg(pick) % (unsigned)n));
        ys.push_back((int)(lcg(pick) % (unsigned)n));
    }
    double worst = 0.0;
    int bad = 0;
    for (size_t i = 0; i < xs.size(); i++) {
        const double want = reference(xs[i], ys[i]);
        const double got = host_dst[(size_t)ys[i] * a.pitch + (size_t)xs[i]];
        const double diff = std::fabs(got - want);
        if (!(diff <= tolerance)) { /* NaN fails too */
            if (bad < 5)
                fprintf(stderr, PROBE_NAME ": %s: pixel (%d, %d) is %.9g, want %.9g\n", label,
                        xs[i], ys[i], got, want);
            bad++;
            worst = std::isnan(diff) || diff > worst ? diff : worst;
        } else if (diff > worst) {
            worst = diff;
        }
    }

    printf("%d,%d,%s,%ux%u,%d,%zu,%zu,%.6f,%.6f,%.3f,%.3g,%.3g,%zu,%s\n", taps, n,
           a.interior ? "interior" : "edges", grid.x, grid.y, attr.numRegs,
           attr.sharedSizeBytes, attr.localSizeBytes, kernel_ms, copy_ms, kernel_ms / copy_ms,
           worst, tolerance, xs.size(), bad ? "false" : "true");
    fflush(stdout);

    CUDA_CHECK(cudaFree(dst));
    CUDA_CHECK(cudaFree(src));
    return bad == 0;
}

/* ---- The command line ------------------------------------------------------------------------ */

/* What differs between the probes' command lines: the option of the list of cases (--taps,
 * --masks) and its defaults, the smallest --size (a tile's width), and the help's lines of the
 * list. The usage line and the messages are made from these and the instantiations. */
struct ProbeCommandLine {
    const char *list_option;
    std::vector<int> defaults;
    int min_size;
    const char *list_help;
};

/* The cases a probe instantiates (its lengths or sides), listed once for both what its list
 * option accepts and which instantiation runs a case: run(v, f) returns
 * f(std::integral_constant<int, V>()) for the V equal to v (false for none). */
template <int... V> struct Instantiations {
    static std::vector<int> values()
    {
        return {V...};
    }
    template <class F> static bool run(int v, F f)
    {
        bool ok = false;
        const int each[] = {(v == V ? (ok = f(std::integral_constant<int, V>()), 0) : 0)...};
        (void)each;
        return ok;
    }
};

/* The numbers of v, joined by sep: "17,31,47,63". */
static std::string joined(const std::vector<int> &v, const char *sep)
{
    std::string s;
    for (size_t i = 0; i < v.size(); i++)
        s += (i ? sep : "") + std::to_string(v[i]);
    return s;
}

static std::string usage_line(const ProbeCommandLine &c)
{
    return "usage: " PROBE_NAME " [--size N] [" + std::string(c.list_option) + " " +
           joined(c.defaults, ",") + "] [--iter N] [--edges]\n";
}

/* What a probe runs: an n x n image, iter timed runs, every tile interior or the OpenCL run's
 * edges, the cases (lengths or sides) in `list`. */
struct ProbeOptions {
    int n = 8192, iter = 50;
    bool interior = true;
    std::vector<int> list;
};

static int usage(const ProbeCommandLine &c, const std::string &why)
{
    fprintf(stderr, PROBE_NAME ": %s\n%s", why.c_str(), usage_line(c).c_str());
    return 2;
}

/* A whole decimal number in lo .. hi, or -1. */
static int parse_int(const char *s, int lo, int hi)
{
    char *end = nullptr;
    const long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || v < lo || v > hi)
        return -1;
    return (int)v;
}

/* The options into o: -1 to go on, else the exit status (0 after --help, 2 for bad usage). */
static int parse_options(int argc, char **argv, const ProbeCommandLine &c,
                         const std::vector<int> &allowed, ProbeOptions &o)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            printf("%s  --size N    N x N gray float32 image, %d .. 32768 (default 8192)\n%s"
                   "  --iter N    timed launches and copies after a warm-up (default 50)\n"
                   "  --edges     no halo: the edge tiles take the bordered path, as in the\n"
                   "              OpenCL run (default: every tile reads unchecked)\n",
                   usage_line(c).c_str(), c.min_size, c.list_help);
            return 0;
        }
        if (strcmp(arg, "--edges") == 0) {
            o.interior = false;
            continue;
        }
        if (strcmp(arg, "--size") != 0 && strcmp(arg, c.list_option) != 0 &&
            strcmp(arg, "--iter") != 0)
            return usage(c, "unknown option");
        if (i + 1 >= argc)
            return usage(c, "an option lacks its value");
        const char *value = argv[++i];
        if (strcmp(arg, "--size") == 0) {
            /* At least one tile's width; at most what int pitches and offsets hold. */
            if ((o.n = parse_int(value, c.min_size, 32768)) < 0)
                return usage(c, "--size: a whole number from " + std::to_string(c.min_size) +
                                    " to 32768");
        } else if (strcmp(arg, "--iter") == 0) {
            if ((o.iter = parse_int(value, 1, 100000)) < 0)
                return usage(c, "--iter: a whole number from 1 to 100000");
        } else {
            const std::string list_error =
                std::string(c.list_option) + ": a comma-separated list of " +
                joined(allowed, ", ");
            o.list.clear();
            char list[256];
            snprintf(list, sizeof list, "%s", value);
            for (char *tok = strtok(list, ","); tok; tok = strtok(nullptr, ",")) {
                const int v = parse_int(tok, 1, allowed.back());
                if (std::find(allowed.begin(), allowed.end(), v) == allowed.end())
                    return usage(c, list_error);
                o.list.push_back(v);
            }
            if (o.list.empty())
                return usage(c, list_error);
        }
    }
    return -1;
}

/* A probe's main: the options read, the device and the run on stderr, the CSV header on
 * stdout, then for each case N of the list run_one(std::integral_constant<int, N>(), options),
 * the instantiation of N among Cases (an Instantiations), which prints its line. Exit status
 * 0, 1 when a check failed, 2 for bad usage. */
template <class Cases, class RunOne>
static int probe_main(int argc, char **argv, const ProbeCommandLine &c, RunOne run_one)
{
    ProbeOptions o;
    o.list = c.defaults;
    const int status = parse_options(argc, argv, c, Cases::values(), o);
    if (status >= 0)
        return status;

    int device = 0;
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    fprintf(stderr, PROBE_NAME ": %s, %d SMs, %d x %d, %d timed runs\n", prop.name,
            prop.multiProcessorCount, o.n, o.n, o.iter);

    printf("taps,size,mode,grid,registers,shared_bytes,local_bytes,kernel_ms,copy_ms,"
           "kernel_over_copy,max_abs_diff,tolerance,pixels_checked,ok\n");
    fflush(stdout);
    bool ok = true;
    for (int one : o.list)
        ok = Cases::run(one, [&](auto n) { return run_one(n, o); }) && ok;
    return ok ? 0 : 1;
}

#endif
