/*
 * bench/cuda/long_probe.cu - tiled_long_conv (src/Long.cl) ported one to one to CUDA C, so that
 * Nsight Compute, which does not profile OpenCL kernels, can say where the OpenCL kernel's time
 * goes. A study tool, not part of the project's build (it needs nvcc): bench/cuda/probe.sh
 * builds and runs it on the GPU machine, beside the OpenCL kernel's own times.
 *
 *   nvcc -O3 -arch=sm_90 -lineinfo -o long_probe bench/cuda/long_probe.cu
 *   long_probe [--size N] [--taps 17,31,47,63] [--iter 50] [--edges] [--help]
 *
 *   --size N    the image, N x N gray float32 (default 8192)
 *   --taps L,.. the lengths, equal along rows and columns: 17, 23, 31, 47 or 63 (the
 *               instantiations below; default 17, 31, 47, 63)
 *   --iter N    timed launches after one warm-up, and timed copies (default 50); --iter 1 makes
 *               two launches a length, for ncu
 *   --edges     the OpenCL run's geometry: no halo, so the tiles at the image's edges take the
 *               bordered path (class 2, the replicate rule) as they do there; by default every
 *               tile reads unchecked (class 1, below)
 *
 * One CSV line a length on stdout (a header first): the kernel's median time (CUDA events
 * around each launch), the median of a device-to-device cudaMemcpy of the image's bytes, the
 * kernel's registers and static shared memory, and the check of sampled outputs against a
 * CPU reference in double. Exit status 0, 1 when a check fails or a CUDA call fails (its error
 * name on stderr), 2 for bad usage.
 *
 * What is ported, and how. Everything the kernel does for a gray float32 buffer with the build
 * options src/job_kernels.c passes by default (src/config.h): tiles of LONG_TILE_W 32 x
 * LONG_TILE_H 256, 256 threads a block laid out (L_JPR 4, L_GY 64), under the register budget
 * of 64 a thread that the host gives from 13 to 63 taps (REGISTER_BUDGET below; 0 builds the
 * uncapped kernel of before the budgets), BLOCK_X 8 outputs a job from one read window of aligned float4s (Common.cl's load_segment,
 * SHIFT 0, TC_VECTOR_IO 1), the filtered rows in shared memory as float4s, one column of L_VY
 * 32 outputs a thread from them, unrolled row by row (TC_LONG_CHUNKED 0 up to 63 taps: the
 * limit is LONG_UNROLL_LIMIT 4096; the chunked form is ported too, for the record), single
 * float stores. The border rule is replicate (bench/roofline.c's default). The mapping:
 * get_local_id -> threadIdx, get_group_id -> blockIdx, barrier -> __syncthreads, __local ->
 * __shared__, vload4/float4 pointers -> float4 loads and stores, fma -> fmaf, the coefficients
 * by value -> __constant__ arrays indexed with constants. The loop pragmas are the OpenCL
 * source's.
 *
 * The interior case. The OpenCL kernel reads a tile unchecked (class 1) when the tile, its
 * halo rows and its windows' aprons lie inside the image: every tile but those along the
 * image's four edges (at 8192 x 8192, 7.0 % of the 8192 tiles take the bordered path). By
 * default the probe allocates the source with a halo of the aprons on every side (the left
 * one rounded to 32 floats, so that every window sits on the 128-byte lines as in the OpenCL
 * run) and passes all_interior = 1, so that every tile takes that class-1 path: its counters
 * are then the interior's alone. The bordered path stays in the kernel either way (as in the
 * OpenCL build: its code takes part in the register allocation of the whole kernel); --edges
 * runs it where the OpenCL kernel does.
 *
 * One argument is the probe's own (all_interior); border_value is passed as in OpenCL though
 * the replicate rule never reads it.
 */

/* ---- The -D values job_kernels.c passes for tiled_long_conv (src/config.h) ------------------ */

#define BLOCK_X 8            /* TC_LONG_JOB_W: a job's outputs */
#define LONG_TILE_W 32       /* TC_LONG_TILE_W */
#define LONG_TILE_H 256      /* TC_LONG_TILE_H (48 KB of local memory fits every length) */
#define LONG_UNROLL_LIMIT 4096
#define SHIFT 0              /* the tiles sit on the source's 4-column grid */
#define TC_VECTOR_IO 1

#define PROBE_NAME "long_probe"
#include "probe_common.cuh" /* Common.cl's helpers, the host's timing and check */

/* Long.cl's geometry, independent of the length. */
#define L_GROUP 256                                /* work-items per group */
#define L_JPR (LONG_TILE_W / BLOCK_X)              /* jobs per filtered row */
#define L_GY (L_GROUP / L_JPR)                     /* the group's rows of work-items */
#define L_VY (LONG_TILE_H * LONG_TILE_W / L_GROUP) /* outputs of a work-item, one column */

/* The length-dependent -D values and Common.cl's / Long.cl's macros of them, for TAPS taps
 * along both axes (RADIUS_X = RADIUS_Y). Radius 1 would take another load_segment form:
 * the instantiations start at 17 taps. */
template <int TAPS> struct Geometry : Window<TAPS> {
    using W = Window<TAPS>; /* RADIUS_X, RADIUS_Y, the read window (probe_common.cuh) */
    static constexpr int RADIUS_X = W::RADIUS_X, RADIUS_Y = W::RADIUS_Y;
    static constexpr int TAPS_X = 2 * RADIUS_X + 1, TAPS_Y = 2 * RADIUS_Y + 1;
    static constexpr int L_HR = LONG_TILE_H + 2 * RADIUS_Y; /* filtered rows in hrows */
    static constexpr int L_ROWS = L_VY + 2 * RADIUS_Y;      /* filtered rows a column needs */
    static constexpr int L_CHUNKS = (L_ROWS + L_VY - 1) / L_VY;
    static constexpr bool TC_LONG_CHUNKED = (L_VY + 2 * RADIUS_Y) * L_VY > LONG_UNROLL_LIMIT;
    static_assert(TAPS % 2 == 1 && RADIUS_X > 1 && RADIUS_X <= 31, "odd lengths 5 .. 63");
};

/* The coefficients. Long.cl under a register budget takes them by value (the float16
 * arguments kx0 .. ky3, copied into a private array that every unrolled multiply-add indexes
 * with a constant: each FFMA then reads its coefficient from the constant bank of the kernel's
 * arguments). A __constant__ array indexed with constants is the same in CUDA: an FFMA with a
 * constant-bank operand (c[0x3][...] instead of c[0x0][...]), no load. */
__constant__ float c_kx[64];
__constant__ float c_ky[64];

/* ---- Common.cl (border_index and load_segment: probe_common.cuh) ---------------------------- */

/* load_segment_bordered for BORDER_REPLICATE (the BORDER_CONSTANT branches fold away). */
template <int TAPS>
__device__ __forceinline__ void load_segment_bordered(const float *src, int pitch, int sL,
                                                      int sT, int x, int y, int w, int h,
                                                      float value,
                                                      float seg[Geometry<TAPS>::SEG_W])
{
    using G = Geometry<TAPS>;
    (void)value;
    const int sy = border_index(y, h);
    if (x >= G::APRON_L && x + BLOCK_X + G::APRON_R <= w) {
        load_segment<TAPS>(src, pitch, sL + x, sT + sy, seg);
    } else {
#pragma unroll
        for (int i = 0; i < G::SEG_W; i++) {
            const int sx = border_index(x - G::RADIUS_X + i, w);
            seg[i] = src[(sT + sy) * pitch + sL + sx];
        }
    }
}

/* ---- Long.cl's tiled_long_conv --------------------------------------------------------------- */

template <int TAPS>
__device__ __forceinline__ void long_job(const float *src, int pitch, int sL, int sT, int w,
                                         int h, float value, bool checked, int x, int y,
                                         float *out)
{
    using G = Geometry<TAPS>;
    float seg[G::SEG_W];
    if (checked)
        load_segment_bordered<TAPS>(src, pitch, sL, sT, x, y, w, h, value, seg);
    else
        load_segment<TAPS>(src, pitch, sL + x, sT + y, seg);
    float acc[BLOCK_X];
#pragma unroll
    for (int c = 0; c < BLOCK_X; c++) {
        acc[c] = 0.0f;
#pragma unroll
        for (int i = 0; i < G::TAPS_X; i++)
            acc[c] = fmaf(c_kx[i], seg[c + i], acc[c]);
    }
#pragma unroll
    for (int v = 0; v < BLOCK_X / 4; v++)
        ((float4 *)out)[v] = make_float4(acc[4 * v], acc[4 * v + 1], acc[4 * v + 2],
                                         acc[4 * v + 3]);
}

template <int TAPS>
__device__ __forceinline__ void long_filter_rows(const float *src, int pitch, int sL, int sT,
                                                 int w, int h, float value, bool checked,
                                                 int l, int t, int lx, int ly, float *hrows)
{
    using G = Geometry<TAPS>;
    const int x = l + lx * BLOCK_X;
#pragma unroll 1
    for (int k = ly; k < G::L_HR; k += L_GY)
        long_job<TAPS>(src, pitch, sL, sT, w, h, value, checked, x, t - G::RADIUS_Y + k,
                       hrows + k * LONG_TILE_W + lx * BLOCK_X);
}

template <int TAPS>
__device__ __forceinline__ void long_vertical(const float *column, float out[L_VY])
{
    using G = Geometry<TAPS>;
#pragma unroll
    for (int o = 0; o < L_VY; o++)
        out[o] = 0.0f;
    if constexpr (!G::TC_LONG_CHUNKED) {
#pragma unroll
        for (int s = 0; s < G::L_ROWS; s++) {
            const float v = column[s * LONG_TILE_W];
#pragma unroll
            for (int o = 0; o < L_VY; o++)
                if (s - o >= 0 && s - o < G::TAPS_Y)
                    out[o] = fmaf(c_ky[s - o], v, out[o]);
        }
    } else {
#pragma unroll 1
        for (int c = 0; c < G::L_CHUNKS; c++) {
            float v[L_VY];
#pragma unroll
            for (int u = 0; u < L_VY; u++) /* rows past the column's last one are not read */
                v[u] = c * L_VY + u < G::L_ROWS ? column[(c * L_VY + u) * LONG_TILE_W] : 0.0f;
#pragma unroll
            for (int d = 1 - L_VY; d < L_VY; d++) {
                const int j = c * L_VY + d;
                const float k = j >= 0 && j < G::TAPS_Y ? c_ky[j] : 0.0f;
#pragma unroll
                for (int o = 0; o < L_VY; o++)
                    if (o + d >= 0 && o + d < L_VY)
                        out[o] = fmaf(k, v[o + d], out[o]);
            }
        }
    }
}

/* The register budget (src/config.h's TC_LONG_BUDGETS: 64 registers from 13 to 63 taps on
 * NVIDIA's compiler, which the host passes as -cl-nv-maxrregcount=64 with the kernel built
 * without its required group size). Here as launch bounds: at least 65536 / (256 x 64) = 4
 * blocks an SM, which ptxas meets with at most 64 registers a thread, as the cap does. 0: the
 * kernel as it was built before the budgets (launch bounds of 256 alone, up to 255
 * registers). */
#ifndef REGISTER_BUDGET
#define REGISTER_BUDGET 64
#endif
#if REGISTER_BUDGET > 0
#define LONG_BOUNDS __launch_bounds__(L_GROUP, 65536 / (L_GROUP * REGISTER_BUDGET))
#else
#define LONG_BOUNDS __launch_bounds__(L_GROUP)
#endif

/* all_interior (the probe's own): every tile takes the class-1 path, the caller having given
 * the source a halo wide enough for every tile's reads. */
template <int TAPS>
__global__ void LONG_BOUNDS
    tiled_long_conv(const float *src, float *dst, int pitch, int sL, int sT, int tL, int tT,
                    int w, int h, float border_value, int all_interior)
{
    using G = Geometry<TAPS>;
    /* float4, so that phase (a) can store a job's outputs 16 bytes at a time. */
    __shared__ float4 hrows4[G::L_HR * LONG_TILE_W / 4];
    float *hrows = (float *)hrows4;

    const int lx = threadIdx.x, ly = threadIdx.y;
    const int ox = TC_VECTOR_IO ? sL & 3 : 0; /* the tiles on the source's 4-grid */
    const int l = (int)(blockIdx.x * LONG_TILE_W) - ox;
    const int t = (int)(blockIdx.y * LONG_TILE_H);
    const bool free_on_read = all_interior || (l >= G::APRON_L && t >= G::RADIUS_Y &&
                                               l + LONG_TILE_W + G::APRON_R <= w &&
                                               t + LONG_TILE_H + G::RADIUS_Y <= h);
    const bool free_on_write = l >= 0 && l + LONG_TILE_W <= w && t + LONG_TILE_H <= h;

    /* (a) The tile's rows and its halo rows, filtered horizontally into hrows. */
    if (free_on_read)
        long_filter_rows<TAPS>(src, pitch, sL, sT, w, h, border_value, false, l, t, lx, ly,
                               hrows);
    else
        long_filter_rows<TAPS>(src, pitch, sL, sT, w, h, border_value, true, l, t, lx, ly,
                               hrows);
    __syncthreads();

    /* (b) One column of L_VY outputs, filtered vertically. */
    const int lid = ly * L_JPR + lx;
    const int col = lid & (LONG_TILE_W - 1);
    const int r0 = (lid / LONG_TILE_W) * L_VY; /* the first output row, in the tile */
    float out[L_VY];
    long_vertical<TAPS>(hrows + r0 * LONG_TILE_W + col, out);

    /* (c) The store: class 3 unchecked; class 4 only inside the tROI. */
    const int x = l + col;
    float *out_col = dst + (tT + t + r0) * pitch + tL + x;
    const bool column_inside = x >= 0 && x < w;
#pragma unroll
    for (int o = 0; o < L_VY; o++)
        if (free_on_write || (column_inside && t + r0 + o < h))
            out_col[o * pitch] = out[o];
}

/* ---- The host (probe_common.cuh: the layout, the timing, the check, the command line) -------- */

/* Normalised binomial coefficients (bench/roofline.c's f=TAPS filters). */
static std::vector<double> binomial(int taps)
{
    std::vector<double> k(taps, 0.0);
    k[0] = 1.0;
    for (int n = 1; n < taps; n++)
        for (int i = n; i > 0; i--)
            k[i] += k[i - 1];
    double sum = 0.0;
    for (double v : k)
        sum += v;
    for (double &v : k)
        v /= sum;
    return k;
}

/* The plainest definition: out(x, y) = sum_j ky[j] sum_i kx[i] src(x - r + i, y - r + j). */
static double reference_at(const std::vector<float> &src, const Layout &a,
                           const std::vector<float> &k, int x, int y)
{
    const int taps = (int)k.size(), r = taps / 2;
    double sum = 0.0;
    for (int j = 0; j < taps; j++) {
        double row = 0.0;
        for (int i = 0; i < taps; i++)
            row += (double)k[i] * source_at(src, a, x - r + i, y - r + j);
        sum += (double)k[j] * row;
    }
    return sum;
}

/* One length: the binomial filter of TAPS taps along both axes, timed and checked. Returns
 * whether the check passed. */
template <int TAPS> static bool run_length(const ProbeOptions &o)
{
    const int n = o.n;
    const Layout a = layout_of<TAPS>(n, o.interior, LONG_TILE_W, LONG_TILE_H);
    const std::vector<float> host_src = random_source(a);

    /* Coefficients as floats, the ones the device multiplies by; the reference uses them too. */
    const std::vector<double> kd = binomial(TAPS);
    std::vector<float> k(kd.begin(), kd.end());
    CUDA_CHECK(cudaMemcpyToSymbol(c_kx, k.data(), TAPS * sizeof(float)));
    CUDA_CHECK(cudaMemcpyToSymbol(c_ky, k.data(), TAPS * sizeof(float)));

    const dim3 block(L_JPR, L_GY, 1);
    const int ox = TC_VECTOR_IO ? a.sL & 3 : 0;
    const dim3 grid((unsigned)((n + ox + LONG_TILE_W - 1) / LONG_TILE_W),
                    (unsigned)((n + LONG_TILE_H - 1) / LONG_TILE_H), 1);
    const int all_interior = o.interior ? 1 : 0;
    double scale = 0.0;
    for (float v : host_src)
        scale = std::max(scale, (double)std::fabs(v));
    char label[32];
    snprintf(label, sizeof label, "%d taps", TAPS);
    return run_case(
        TAPS, label, a, host_src, o.iter, (const void *)tiled_long_conv<TAPS>, grid,
        [&](const float *src, float *dst) {
            tiled_long_conv<TAPS><<<grid, block>>>(src, dst, a.pitch, a.sL, a.sT, 0, 0, n, n,
                                                   0.0f, all_interior);
        },
        [&](int x, int y) { return reference_at(host_src, a, k, x, y); }, 1e-4 * scale);
}

int main(int argc, char **argv)
{
    static const ProbeCommandLine command_line = {
        "--taps", {17, 31, 47, 63}, 32,
        "  --taps L    lengths among 17, 23, 31, 47, 63, comma-separated (default\n"
        "              17, 31, 47, 63)\n"};
    return probe_main<Instantiations<17, 23, 31, 47, 63>>(
        argc, argv, command_line,
        [](auto taps, const ProbeOptions &o) { return run_length<decltype(taps)::value>(o); });
}
