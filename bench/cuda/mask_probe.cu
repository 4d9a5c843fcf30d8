/*
 * bench/cuda/mask_probe.cu - tiled_mask_rows_conv (src/Masks.cl, the mrows-8x8 variant) ported
 * one to one to CUDA C, so that Nsight Compute, which does not profile OpenCL kernels, can say
 * where a large mask's time goes. A study tool beside long_probe.cu (the same conventions, the
 * same output), not part of the project's build: bench/cuda/probe.sh builds and runs it on the
 * GPU machine, beside the OpenCL kernel's own times.
 *
 *   nvcc -O3 -arch=sm_90 -lineinfo -o mask_probe bench/cuda/mask_probe.cu
 *   mask_probe [--size N] [--masks 9,11,13,15] [--iter 50] [--edges] [--help]
 *
 *   --size N     the image, N x N gray float32 (default 8192)
 *   --masks S,.. the masks' sides (S x S): 9, 11, 13 or 15 (the instantiations below; default
 *                all four)
 *   --iter N     timed launches after one warm-up, and timed copies (default 50); --iter 1
 *                makes two launches a mask, for ncu
 *   --edges      the OpenCL run's geometry: no halo, so the tiles at the image's edges take the
 *                bordered path (class 2, the replicate rule) as they do there; by default every
 *                tile reads unchecked (class 1)
 *
 * One CSV line a mask on stdout, with long_probe's columns (its "taps" is the mask's side).
 * Exit status 0, 1 when a check fails or a CUDA call fails (its error name on stderr), 2 for
 * bad usage.
 *
 * What is ported. Everything the kernel does for a gray float32 buffer with the build options
 * src/job_kernels.c passes for the mrows-8x8 variant (src/variants.c, src/config.h): groups of
 * GROUP_X x GROUP_Y = 8 x 8 work-items (reqd_work_group_size, so launch bounds of 64 here),
 * blocks of BLOCK_X x BLOCK_Y = 8 x 8 outputs a work-item, tiles of 64 x 64 on the target's
 * 4-column grid, the weights copied into shared memory as float4s (each mask row padded with
 * zeros), then for each of the block's BLOCK_Y + 2 RADIUS source rows (a loop, not unrolled)
 * one read window of aligned float4s (Common.cl's load_segment; load_segment_lean with its
 * rolled mapping on the bordered path) and every output row it reaches updated from a float4
 * of weights at a time; the block stored as float4s (Common.cl's store_block). The border rule
 * is replicate (bench/roofline.c's default). The mapping is long_probe.cu's; the weights are
 * bench/roofline.c's mask=SxS weights, ((3 i + 5 j) mod 7 - 3) / 16, not rank 1.
 *
 * The interior case, as in long_probe.cu: by default the source gets a halo of the aprons and
 * every tile takes the class-1 path (at 8192 x 8192, 252 of the 16384 tiles lie along the
 * image's edges and take the bordered path in the OpenCL run); --edges runs that geometry.
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

/* Every CUDA call: its error name and text, the call, the line; then exit 1. */
#define CUDA_CHECK(call)                                                                   \
    do {                                                                                   \
        const cudaError_t err_ = (call);                                                   \
        if (err_ != cudaSuccess) {                                                         \
            fprintf(stderr, "mask_probe: %s (%s) in %s at %s:%d\n", cudaGetErrorName(err_), \
                    cudaGetErrorString(err_), #call, __FILE__, __LINE__);                  \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

/* ---- The -D values job_kernels.c passes for mrows-8x8 (src/config.h, src/variants.c) -------- */

#define GROUP_X 8  /* TC_TILED_GROUP_X */
#define GROUP_Y 8  /* TC_TILED_GROUP_Y */
#define BLOCK_X 8  /* the variant's tile_w */
#define BLOCK_Y 8  /* the variant's tile_h */
#define SHIFT 0    /* the source's alignment against the target's 4-grid: 0 here */
#define TC_VECTOR_IO 1
#define TILE_W (GROUP_X * BLOCK_X)
#define TILE_H (GROUP_Y * BLOCK_Y)

/* Common.cl's FLOOR4: v rounded down to a multiple of 4, v >= -64. */
__host__ __device__ constexpr int floor4(int v)
{
    return (v + 64) / 4 * 4 - 64;
}

/* The mask-dependent -D values and Common.cl's / Masks.cl's macros of them, for a MASK x MASK
 * mask. */
template <int MASK> struct Geometry {
    static constexpr int RADIUS_X = MASK / 2, RADIUS_Y = MASK / 2;
    static constexpr int MASK_W = 2 * RADIUS_X + 1, MASK_H = 2 * RADIUS_Y + 1;
    static constexpr int SEG_W = BLOCK_X + 2 * RADIUS_X; /* raw pixels in one row segment */
    static constexpr int WIN_LO = floor4(SHIFT - RADIUS_X);
    static constexpr int WIN_HI = floor4(SHIFT + BLOCK_X - 1 + RADIUS_X) + 4;
    static constexpr int WIN_Q = (WIN_HI - WIN_LO) / 4; /* float4s per segment */
    static constexpr int APRON_L = SHIFT - WIN_LO;
    static constexpr int APRON_R = WIN_HI - SHIFT - BLOCK_X;
    static constexpr int MR_Q = (MASK_W + 3) / 4; /* float4s of weights a mask row */
    static_assert(MASK % 2 == 1 && RADIUS_X > 1 && RADIUS_X <= 7, "odd sides 5 .. 15");
};

/* The mask (Masks.cl's __constant const float *mask argument), row-major. */
__constant__ float c_mask[15 * 15];

/* ---- Common.cl ----------------------------------------------------------------------------- */

/* border_index for BORDER_REPLICATE. */
__device__ __forceinline__ int border_index(int p, int n)
{
    if (p >= 0 && p < n)
        return p;
    return min(max(p, 0), n - 1);
}

/* load_segment, the float4 window form (TC_VECTOR_IO, SHIFT 0, radius > 1). */
template <int MASK>
__device__ __forceinline__ void load_segment(const float *src, int pitch, int sx, int sy,
                                             float seg[Geometry<MASK>::SEG_W])
{
    using G = Geometry<MASK>;
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

/* load_segment_lean for BORDER_REPLICATE (the BORDER_CONSTANT branches fold away). */
template <int MASK>
__device__ __forceinline__ void load_segment_lean(const float *src, int pitch, int sL, int sT,
                                                  int x, int y, int w, int h,
                                                  float seg[Geometry<MASK>::SEG_W])
{
    using G = Geometry<MASK>;
    const int sy = border_index(y, h);
    if (x >= G::APRON_L && x + BLOCK_X + G::APRON_R <= w) {
        load_segment<MASK>(src, pitch, sL + x, sT + sy, seg);
    } else {
        float mapped[G::SEG_W];
#pragma unroll 1
        for (int i = 0; i < G::SEG_W; i++) {
            const int sx = border_index(x - G::RADIUS_X + i, w);
            mapped[i] = src[(sT + sy) * pitch + sL + sx];
        }
#pragma unroll
        for (int i = 0; i < G::SEG_W; i++)
            seg[i] = mapped[i];
    }
}

/* store_block: class 3 aligned float4 stores, class 4 guarded (TC_VECTOR_IO). */
__device__ __forceinline__ void store_block(float *dst, int pitch, int tL, int tT, int w, int h,
                                            int bx, int by, bool free_on_write,
                                            float out[BLOCK_Y][BLOCK_X])
{
    float *out_row = dst + (tT + by) * pitch + tL + bx;
    if (free_on_write) { /* class 3 */
#pragma unroll
        for (int r = 0; r < BLOCK_Y; r++)
#pragma unroll
            for (int v = 0; v < BLOCK_X / 4; v++)
                ((float4 *)(out_row + r * pitch))[v] =
                    make_float4(out[r][4 * v], out[r][4 * v + 1], out[r][4 * v + 2],
                                out[r][4 * v + 3]);
    } else { /* class 4 */
        const bool inside_x = bx >= 0 && bx + BLOCK_X <= w;
#pragma unroll
        for (int r = 0; r < BLOCK_Y; r++) {
            if (by + r >= h)
                continue;
            if (inside_x) {
#pragma unroll
                for (int v = 0; v < BLOCK_X / 4; v++)
                    ((float4 *)(out_row + r * pitch))[v] =
                        make_float4(out[r][4 * v], out[r][4 * v + 1], out[r][4 * v + 2],
                                    out[r][4 * v + 3]);
            } else {
#pragma unroll
                for (int c = 0; c < BLOCK_X; c++)
                    if (bx + c >= 0 && bx + c < w)
                        out_row[r * pitch + c] = out[r][c];
            }
        }
    }
}

/* ---- Masks.cl's tiled_mask_rows_conv ---------------------------------------------------------- */

template <int MASK>
__device__ __forceinline__ void mask_rows_block(const float *src, int pitch, int sL, int sT,
                                                int w, int h, bool checked, int bx, int by,
                                                const float4 *weights,
                                                float out[BLOCK_Y][BLOCK_X])
{
    using G = Geometry<MASK>;
#pragma unroll
    for (int o = 0; o < BLOCK_Y; o++)
#pragma unroll
        for (int c = 0; c < BLOCK_X; c++)
            out[o][c] = 0.0f;
#pragma unroll 1
    for (int r = 0; r < BLOCK_Y + 2 * G::RADIUS_Y; r++) {
        float seg[G::SEG_W];
        const int y = by - G::RADIUS_Y + r;
        if (checked)
            load_segment_lean<MASK>(src, pitch, sL, sT, bx, y, w, h, seg);
        else
            load_segment<MASK>(src, pitch, sL + bx, sT + y, seg);
#pragma unroll
        for (int o = 0; o < BLOCK_Y; o++) {
            const int j = r - o; /* the mask row that joins source row r to output row o */
            if (j < 0 || j >= G::MASK_H)
                continue;
#pragma unroll
            for (int q = 0; q < G::MR_Q; q++) {
                const float4 wq = weights[j * G::MR_Q + q];
                const float wv[4] = {wq.x, wq.y, wq.z, wq.w};
#pragma unroll
                for (int e = 0; e < 4; e++)
                    if (4 * q + e < G::MASK_W)
#pragma unroll
                        for (int c = 0; c < BLOCK_X; c++)
                            out[o][c] = fmaf(wv[e], seg[c + 4 * q + e], out[o][c]);
            }
        }
    }
}

/* all_interior (the probe's own): every tile takes the class-1 path, the caller having given
 * the source a halo wide enough for every tile's reads. */
template <int MASK>
__global__ void __launch_bounds__(GROUP_X * GROUP_Y)
    tiled_mask_rows_conv(const float *src, float *dst, int pitch, int sL, int sT, int tL, int tT,
                         int w, int h, int all_interior)
{
    using G = Geometry<MASK>;
    __shared__ float4 weights[G::MASK_H * G::MR_Q];
    const int lx = threadIdx.x, ly = threadIdx.y;
    /* The weights into shared memory, each row padded with zeros to whole float4s. */
    for (int j = ly; j < G::MASK_H; j += GROUP_Y)
        for (int q = lx; q < G::MR_Q; q += GROUP_X) {
            float v[4];
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const float m = c_mask[j * G::MASK_W + min(4 * q + e, G::MASK_W - 1)];
                v[e] = 4 * q + e < G::MASK_W ? m : 0.0f;
            }
            weights[j * G::MR_Q + q] = make_float4(v[0], v[1], v[2], v[3]);
        }
    __syncthreads();

    const int ox = TC_VECTOR_IO ? tL & 3 : 0; /* the tiles on the target's 4-grid */
    const int l = (int)(blockIdx.x * TILE_W) - ox;
    const int t = (int)(blockIdx.y * TILE_H);
    const int bx = l + lx * BLOCK_X, by = t + ly * BLOCK_Y;
    const bool free_on_read = all_interior || (l >= G::APRON_L && t >= G::RADIUS_Y &&
                                               l + TILE_W + G::APRON_R <= w &&
                                               t + TILE_H + G::RADIUS_Y <= h);
    const bool free_on_write = l >= 0 && l + TILE_W <= w && t + TILE_H <= h;
    float out[BLOCK_Y][BLOCK_X];
    if (free_on_read) /* class 1 */
        mask_rows_block<MASK>(src, pitch, sL, sT, w, h, false, bx, by, weights, out);
    else /* class 2 */
        mask_rows_block<MASK>(src, pitch, sL, sT, w, h, true, bx, by, weights, out);
    store_block(dst, pitch, tL, tT, w, h, bx, by, free_on_write, out); /* class 3 or 4 */
}

/* ---- The host: images, timing, the check (long_probe.cu's) ---------------------------------- */

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

template <int MASK> static Layout layout_of(int n, bool interior)
{
    using G = Geometry<MASK>;
    Layout a;
    a.n = n;
    a.interior = interior;
    if (!interior) {
        a.sL = a.sT = 0;
        a.pitch = round_up(n, 32);
        a.src_rows = n;
        return a;
    }
    const int tiles_w = round_up(n, TILE_W), tiles_h = round_up(n, TILE_H);
    a.sL = round_up(G::APRON_L, 32);
    a.sT = G::RADIUS_Y;
    a.pitch = round_up(a.sL + tiles_w + G::APRON_R, 32);
    a.src_rows = a.sT + tiles_h + G::RADIUS_Y;
    return a;
}

static float source_at(const std::vector<float> &src, const Layout &a, int x, int y)
{
    if (!a.interior) {
        x = std::min(std::max(x, 0), a.n - 1);
        y = std::min(std::max(y, 0), a.n - 1);
    }
    return src[(size_t)(a.sT + y) * a.pitch + (size_t)(a.sL + x)];
}

/* out(x, y) = sum_j sum_i m[j][i] src(x - r + i, y - r + j), in double. */
static double reference_at(const std::vector<float> &src, const Layout &a,
                           const std::vector<float> &m, int side, int x, int y)
{
    const int r = side / 2;
    double sum = 0.0;
    for (int j = 0; j < side; j++)
        for (int i = 0; i < side; i++)
            sum += (double)m[j * side + i] * source_at(src, a, x - r + i, y - r + j);
    return sum;
}

static float median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5f * (v[m - 1] + v[m]);
}

static unsigned lcg(unsigned &state)
{
    state = state * 1664525u + 1013904223u;
    return state >> 8;
}

template <int MASK> static bool run_mask(int n, int iter, bool interior)
{
    const Layout a = layout_of<MASK>(n, interior);
    const size_t src_floats = (size_t)a.src_rows * a.pitch, dst_floats = (size_t)n * a.pitch;
    const size_t image_bytes = (size_t)n * n * sizeof(float);

    std::vector<float> host_src(src_floats);
    unsigned state = 12345u;
    for (float &v : host_src)
        v = (float)(lcg(state) & 0xffffff) / 16777216.0f;

    /* bench/roofline.c's mask=SxS weights. */
    std::vector<float> m((size_t)MASK * MASK);
    double weight_sum = 0.0;
    for (int j = 0; j < MASK; j++)
        for (int i = 0; i < MASK; i++) {
            m[(size_t)j * MASK + i] = (float)((3 * i + 5 * j) % 7 - 3) / 16.0f;
            weight_sum += std::fabs(m[(size_t)j * MASK + i]);
        }
    CUDA_CHECK(cudaMemcpyToSymbol(c_mask, m.data(), m.size() * sizeof(float)));

    float *src = nullptr, *dst = nullptr;
    CUDA_CHECK(cudaMalloc(&src, src_floats * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dst, dst_floats * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(src, host_src.data(), src_floats * sizeof(float),
                          cudaMemcpyHostToDevice));

    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    std::vector<float> ms(iter);

    CUDA_CHECK(cudaMemcpy(dst, src, image_bytes, cudaMemcpyDeviceToDevice)); /* warm-up */
    for (int i = 0; i < iter; i++) {
        CUDA_CHECK(cudaEventRecord(start));
        CUDA_CHECK(cudaMemcpy(dst, src, image_bytes, cudaMemcpyDeviceToDevice));
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaEventElapsedTime(&ms[i], start, stop));
    }
    const float copy_ms = median(ms);

    CUDA_CHECK(cudaMemset(dst, 0xff, dst_floats * sizeof(float))); /* NaN: unwritten fails */
    const dim3 block(GROUP_X, GROUP_Y, 1);
    const int tL = 0, ox = TC_VECTOR_IO ? tL & 3 : 0;
    const dim3 grid((unsigned)((n + ox + TILE_W - 1) / TILE_W),
                    (unsigned)((n + TILE_H - 1) / TILE_H), 1);
    const int all_interior = interior ? 1 : 0;
    tiled_mask_rows_conv<MASK><<<grid, block>>>(src, dst, a.pitch, a.sL, a.sT, tL, 0, n, n,
                                                all_interior); /* warm-up */
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < iter; i++) {
        CUDA_CHECK(cudaEventRecord(start));
        tiled_mask_rows_conv<MASK><<<grid, block>>>(src, dst, a.pitch, a.sL, a.sT, tL, 0, n, n,
                                                    all_interior);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaEventElapsedTime(&ms[i], start, stop));
    }
    const float kernel_ms = median(ms);

    cudaFuncAttributes attr;
    CUDA_CHECK(cudaFuncGetAttributes(&attr, tiled_mask_rows_conv<MASK>));

    std::vector<float> host_dst(dst_floats);
    CUDA_CHECK(cudaMemcpy(host_dst.data(), dst, dst_floats * sizeof(float),
                          cudaMemcpyDeviceToHost));
    std::vector<int> xs = {0, n - 1, 0, n - 1}, ys = {0, 0, n - 1, n - 1};
    unsigned pick = 777u;
    for (int i = 0; i < 4096; i++) {
        xs.push_back((int)(lcg(pick) % (unsigned)n));
        ys.push_back((int)(lcg(pick) % (unsigned)n));
    }
    /* Pixels in [0, 1): a float sum of S x S products is within a few S^2 ulps of the weights'
     * absolute sum; 1e-5 of that sum is far above it and far below any wrong tap. */
    const double tolerance = 1e-5 * weight_sum;
    double worst = 0.0;
    int bad = 0;
    for (size_t i = 0; i < xs.size(); i++) {
        const double want = reference_at(host_src, a, m, MASK, xs[i], ys[i]);
        const double got = host_dst[(size_t)ys[i] * a.pitch + (size_t)xs[i]];
        const double diff = std::fabs(got - want);
        if (!(diff <= tolerance)) { /* NaN fails too */
            if (bad < 5)
                fprintf(stderr, "mask_probe: %d x %d: pixel (%d, %d) is %.9g, want %.9g\n", MASK,
                        MASK, xs[i], ys[i], got, want);
            bad++;
            worst = std::isnan(diff) || diff > worst ? diff : worst;
        } else if (diff > worst) {
            worst = diff;
        }
    }

    printf("%d,%d,%s,%ux%u,%d,%zu,%zu,%.6f,%.6f,%.3f,%.3g,%.3g,%zu,%s\n", MASK, n,
           interior ? "interior" : "edges", grid.x, grid.y, attr.numRegs, attr.sharedSizeBytes,
           attr.localSizeBytes, kernel_ms, copy_ms, kernel_ms / copy_ms, worst, tolerance,
           xs.size(), bad ? "false" : "true");
    fflush(stdout);

    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaFree(dst));
    CUDA_CHECK(cudaFree(src));
    return bad == 0;
}

static int usage(const char *why)
{
    fprintf(stderr,
            "mask_probe: %s\nusage: mask_probe [--size N] [--masks 9,11,13,15] [--iter N] "
            "[--edges]\n",
            why);
    return 2;
}

static int parse_int(const char *s, int lo, int hi)
{
    char *end = nullptr;
    const long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || v < lo || v > hi)
        return -1;
    return (int)v;
}

int main(int argc, char **argv)
{
    int n = 8192, iter = 50;
    bool interior = true;
    std::vector<int> sides = {9, 11, 13, 15};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            printf("usage: mask_probe [--size N] [--masks 9,11,13,15] [--iter N] [--edges]\n"
                   "  --size N    N x N gray float32 image, 64 .. 32768 (default 8192)\n"
                   "  --masks S   sides among 9, 11, 13, 15, comma-separated (default all)\n"
                   "  --iter N    timed launches and copies after a warm-up (default 50)\n"
                   "  --edges     no halo: the edge tiles take the bordered path, as in the\n"
                   "              OpenCL run (default: every tile reads unchecked)\n");
            return 0;
        }
        if (strcmp(arg, "--edges") == 0) {
            interior = false;
            continue;
        }
        if (strcmp(arg, "--size") != 0 && strcmp(arg, "--masks") != 0 &&
            strcmp(arg, "--iter") != 0)
            return usage("unknown option");
        if (i + 1 >= argc)
            return usage("an option lacks its value");
        const char *value = argv[++i];
        if (strcmp(arg, "--size") == 0) {
            if ((n = parse_int(value, 64, 32768)) < 0)
                return usage("--size: a whole number from 64 to 32768");
        } else if (strcmp(arg, "--iter") == 0) {
            if ((iter = parse_int(value, 1, 100000)) < 0)
                return usage("--iter: a whole number from 1 to 100000");
        } else {
            sides.clear();
            char list[256];
            snprintf(list, sizeof list, "%s", value);
            for (char *tok = strtok(list, ","); tok; tok = strtok(nullptr, ",")) {
                const int side = parse_int(tok, 1, 15);
                if (side != 9 && side != 11 && side != 13 && side != 15)
                    return usage("--masks: a comma-separated list of 9, 11, 13, 15");
                sides.push_back(side);
            }
            if (sides.empty())
                return usage("--masks: a comma-separated list of 9, 11, 13, 15");
        }
    }

    int device = 0;
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    fprintf(stderr, "mask_probe: %s, %d SMs, %d x %d, %d timed runs\n", prop.name,
            prop.multiProcessorCount, n, n, iter);

    printf("taps,size,mode,grid,registers,shared_bytes,local_bytes,kernel_ms,copy_ms,"
           "kernel_over_copy,max_abs_diff,tolerance,pixels_checked,ok\n");
    fflush(stdout);
    bool ok = true;
    for (int side : sides) {
        switch (side) {
        case 9: ok = run_mask<9>(n, iter, interior) && ok; break;
        case 11: ok = run_mask<11>(n, iter, interior) && ok; break;
        case 13: ok = run_mask<13>(n, iter, interior) && ok; break;
        default: ok = run_mask<15>(n, iter, interior) && ok; break;
        }
    }
    return ok ? 0 : 1;
}
