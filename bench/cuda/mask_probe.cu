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

/* ---- The -D values job_kernels.c passes for mrows-8x8 (src/config.h, src/variants.c) -------- */

#define GROUP_X 8  /* TC_TILED_GROUP_X */
#define GROUP_Y 8  /* TC_TILED_GROUP_Y */
#define BLOCK_X 8  /* the variant's tile_w */
#define BLOCK_Y 8  /* the variant's tile_h */
#define SHIFT 0    /* the source's alignment against the target's 4-grid: 0 here */
#define TC_VECTOR_IO 1
#define TILE_W (GROUP_X * BLOCK_X)
#define TILE_H (GROUP_Y * BLOCK_Y)

#define PROBE_NAME "mask_probe"
#include "probe_common.cuh" /* Common.cl's helpers, the host's timing and check */

/* The mask-dependent -D values and Common.cl's / Masks.cl's macros of them, for a MASK x MASK
 * mask. */
template <int MASK> struct Geometry : Window<MASK> {
    using W = Window<MASK>; /* RADIUS_X, RADIUS_Y, the read window (probe_common.cuh) */
    static constexpr int RADIUS_X = W::RADIUS_X, RADIUS_Y = W::RADIUS_Y;
    static constexpr int MASK_W = 2 * RADIUS_X + 1, MASK_H = 2 * RADIUS_Y + 1;
    static constexpr int MR_Q = (MASK_W + 3) / 4; /* float4s of weights a mask row */
    static_assert(MASK % 2 == 1 && RADIUS_X > 1 && RADIUS_X <= 7, "odd sides 5 .. 15");
};

/* The mask (Masks.cl's __constant const float *mask argument), row-major. */
__constant__ float c_mask[15 * 15];

/* ---- Common.cl (border_index and load_segment: probe_common.cuh) ---------------------------- */

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

/* ---- The host (probe_common.cuh: the layout, the timing, the check, the command line) -------- */

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

/* One mask: bench/roofline.c's MASK x MASK weights, timed and checked. Returns whether the
 * check passed. */
template <int MASK> static bool run_mask(const ProbeOptions &o)
{
    const int n = o.n;
    const Layout a = layout_of<MASK>(n, o.interior, TILE_W, TILE_H);
    const std::vector<float> host_src = random_source(a);

    /* bench/roofline.c's mask=SxS weights. */
    std::vector<float> m((size_t)MASK * MASK);
    double weight_sum = 0.0;
    for (int j = 0; j < MASK; j++)
        for (int i = 0; i < MASK; i++) {
            m[(size_t)j * MASK + i] = (float)((3 * i + 5 * j) % 7 - 3) / 16.0f;
            weight_sum += std::fabs(m[(size_t)j * MASK + i]);
        }
    CUDA_CHECK(cudaMemcpyToSymbol(c_mask, m.data(), m.size() * sizeof(float)));

    const dim3 block(GROUP_X, GROUP_Y, 1);
    const int tL = 0, ox = TC_VECTOR_IO ? tL & 3 : 0;
    const dim3 grid((unsigned)((n + ox + TILE_W - 1) / TILE_W),
                    (unsigned)((n + TILE_H - 1) / TILE_H), 1);
    const int all_interior = o.interior ? 1 : 0;
    char label[32];
    snprintf(label, sizeof label, "%d x %d", MASK, MASK);
    /* Pixels in [0, 1): a float sum of S x S products is within a few S^2 ulps of the weights'
     * absolute sum; 1e-5 of that sum is far above it and far below any wrong tap. */
    return run_case(
        MASK, label, a, host_src, o.iter, (const void *)tiled_mask_rows_conv<MASK>, grid,
        [&](const float *src, float *dst) {
            tiled_mask_rows_conv<MASK><<<grid, block>>>(src, dst, a.pitch, a.sL, a.sT, tL, 0,
                                                        n, n, all_interior);
        },
        [&](int x, int y) { return reference_at(host_src, a, m, MASK, x, y); },
        1e-5 * weight_sum);
}

int main(int argc, char **argv)
{
    static const ProbeCommandLine command_line = {
        "--masks", {9, 11, 13, 15}, 64,
        "  --masks S   sides among 9, 11, 13, 15, comma-separated (default all)\n"};
    return probe_main<Instantiations<9, 11, 13, 15>>(
        argc, argv, command_line,
        [](auto side, const ProbeOptions &o) { return run_mask<decltype(side)::value>(o); });
}
