/*
 * split_probe.cl - a separable filter as two passes through global memory, for
 * bench/split/probe.sh: the question is what each axis's pass costs on its own at 17 to 63
 * taps, against tiled_long_conv (src/Long.cl), which does both in one kernel through local
 * memory. Not part of the library: whole-image float32 planes, replicate borders, one
 * plane, no ROIs.
 *
 * -D options: TAPS (odd, up to 63), and per kernel BX, HV, VY (outputs of a work-item, below);
 * KLIST (the coefficients as a list of floats: program constants, so that every multiply-add
 * takes its coefficient as a constant operand) or none (the coefficients from the argument k).
 *
 *   rows_windows   the rows pass as tiled_long_conv's phase (a) does it: BX outputs a work-item
 *                  from a read window in registers (float4 loads, through the L1)
 *   rows_staged    the rows pass with the group's rows staged in local memory: 32 rows x 8 HV
 *                  outputs a group, work-item lane = row (an odd pitch: no bank conflicts),
 *                  HV outputs each; every load of the staging issued before the first is used
 *   cols           the columns pass: VY outputs of one column a work-item, each value read
 *                  once (coalesced along the row) and added into every output it reaches
 *   cols_then_rows both in one kernel: the columns first, a tile of 32 x (8 HV + 2R) into local
 *                  memory, then the rows from it as rows_staged (fused the other way round)
 *   fma_peak       32 independent multiply-add chains a work-item, no memory: the rate a
 *                  kernel can reach at all
 */
#ifndef TAPS
#error "build with -DTAPS=n"
#endif
#define R (TAPS / 2)
#define A ((R + 3) & ~3) /* the window's apron, rounded to whole float4s */

#ifdef KLIST
__constant float KC[TAPS] = {KLIST};
#define KK(i) KC[i]
#else
#define KK(i) k[i]
#endif

#ifdef BX
__kernel void rows_windows(__global const float *src, __global float *tmp, int w, int h,
                           __constant const float *k)
{
    const int x0 = get_global_id(0) * BX, y = get_global_id(1);
    if (y >= h || x0 >= w)
        return;
    __global const float *row = src + (size_t)y * w;
    float seg[BX + 2 * A];
    if (x0 - A >= 0 && x0 + BX + A <= w) {
#pragma unroll
        for (int i = 0; i < (BX + 2 * A) / 4; i++) {
            const float4 q = vload4(0, row + x0 - A + 4 * i);
            seg[4 * i] = q.x;
            seg[4 * i + 1] = q.y;
            seg[4 * i + 2] = q.z;
            seg[4 * i + 3] = q.w;
        }
    } else {
#pragma unroll
        for (int i = 0; i < BX + 2 * A; i++)
            seg[i] = row[clamp(x0 - A + i, 0, w - 1)];
    }
    float acc[BX];
#pragma unroll
    for (int c = 0; c < BX; c++) {
        acc[c] = 0.0f;
#pragma unroll
        for (int i = 0; i < TAPS; i++)
            acc[c] = fma(KK(i), seg[c + i + A - R], acc[c]);
    }
    if (x0 + BX <= w) {
#pragma unroll
        for (int v = 0; v < BX / 4; v++)
            vstore4(vload4(v, acc), 0, tmp + (size_t)y * w + x0 + 4 * v);
    } else {
        for (int c = 0; c < BX && x0 + c < w; c++)
            tmp[(size_t)y * w + x0 + c] = acc[c];
    }
}
#endif

#ifdef HV
#define HT (8 * HV)         /* the tile's width */
#define HP (HT + 2 * R + 1) /* the local pitch: odd, so that 32 rows read at once hit 32 banks */
#define HCOLS ((HT + 2 * R + 255) / 256)
__kernel __attribute__((reqd_work_group_size(32, 8, 1)))
void rows_staged(__global const float *src, __global float *tmp, int w, int h,
                 __constant const float *k)
{
    __local float lds[32 * HP];
    const int lane = get_local_id(0), wp = get_local_id(1), lid = wp * 32 + lane;
    const int x0 = get_group_id(0) * HT, y0 = get_group_id(1) * 32;
    const bool inside = x0 - R >= 0 && x0 + HT + R <= w && y0 + 32 <= h;
    /* A column of the 32 rows a work-item: its 32 loads all in flight before the first is
     * stored (a loop that stored each as it came waited on every load in turn: 0.41 ms
     * against 0.21 at 17 taps, 8192^2, H200). */
#pragma unroll
    for (int q = 0; q < HCOLS; q++) {
        const int c = lid + q * 256;
        if (c < HT + 2 * R) {
            const int xx = inside ? x0 - R + c : clamp(x0 - R + c, 0, w - 1);
            float v[32];
#pragma unroll
            for (int r = 0; r < 32; r++)
                v[r] = src[(size_t)(inside ? y0 + r : min(y0 + r, h - 1)) * w + xx];
#pragma unroll
            for (int r = 0; r < 32; r++)
                lds[r * HP + c] = v[r];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    float out[HV];
#pragma unroll
    for (int o = 0; o < HV; o++)
        out[o] = 0.0f;
    __local const float *p = lds + lane * HP + wp * HV;
#pragma unroll
    for (int s = 0; s < HV + 2 * R; s++) {
        const float v = p[s];
#pragma unroll
        for (int o = 0; o < HV; o++)
            if (s - o >= 0 && s - o < TAPS)
                out[o] = fma(KK(s - o), v, out[o]);
    }
    /* The results back through local memory, so that the stores are coalesced along rows. */
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int o = 0; o < HV; o++)
        lds[lane * HP + wp * HV + o] = out[o];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int r = 0; r < 32 && y0 + r < h; r++)
        for (int c = lid; c < HT; c += 256)
            if (x0 + c < w)
                tmp[(size_t)(y0 + r) * w + x0 + c] = lds[r * HP + c];
}

#define VT_W (8 * HV)
#define VP (VT_W + 2 * R + 1)
__kernel __attribute__((reqd_work_group_size(32, 8, 1)))
void cols_then_rows(__global const float *src, __global float *dst, int w, int h,
                    __constant const float *k)
{
    __local float lds[32 * VP];
    const int lane = get_local_id(0), wp = get_local_id(1), lid = wp * 32 + lane;
    const int x0 = get_group_id(0) * VT_W, y0 = get_group_id(1) * 32;
    const bool inside = x0 - R >= 0 && x0 + VT_W + R <= w && y0 - R >= 0 && y0 + 32 + R <= h;
    for (int c = lid; c < VT_W + 2 * R; c += 256) {
        const int xx = inside ? x0 - R + c : clamp(x0 - R + c, 0, w - 1);
        float out[32];
#pragma unroll
        for (int o = 0; o < 32; o++)
            out[o] = 0.0f;
#pragma unroll
        for (int s = 0; s < 32 + 2 * R; s++) {
            const int yy = inside ? y0 - R + s : clamp(y0 - R + s, 0, h - 1);
            const float v = src[(size_t)yy * w + xx];
#pragma unroll
            for (int o = 0; o < 32; o++)
                if (s - o >= 0 && s - o < TAPS)
                    out[o] = fma(KK(s - o), v, out[o]);
        }
#pragma unroll
        for (int o = 0; o < 32; o++)
            lds[o * VP + c] = out[o];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    float acc[HV];
#pragma unroll
    for (int o = 0; o < HV; o++)
        acc[o] = 0.0f;
    __local const float *p = lds + lane * VP + wp * HV;
#pragma unroll
    for (int s = 0; s < HV + 2 * R; s++) {
        const float v = p[s];
#pragma unroll
        for (int o = 0; o < HV; o++)
            if (s - o >= 0 && s - o < TAPS)
                acc[o] = fma(KK(s - o), v, acc[o]);
    }
    const int y = y0 + lane, x = x0 + wp * HV;
    for (int o = 0; o < HV && y < h && x + o < w; o++)
        dst[(size_t)y * w + x + o] = acc[o];
}
#endif

#ifdef VY
__kernel void cols(__global const float *tmp, __global float *dst, int w, int h,
                   __constant const float *k)
{
    const int x = get_global_id(0), y0 = get_global_id(1) * VY;
    if (x >= w || y0 >= h)
        return;
    float out[VY];
#pragma unroll
    for (int o = 0; o < VY; o++)
        out[o] = 0.0f;
    const bool inside = y0 - R >= 0 && y0 + VY + R <= h;
#pragma unroll
    for (int s = 0; s < VY + 2 * R; s++) {
        const int yy = inside ? y0 - R + s : clamp(y0 - R + s, 0, h - 1);
        const float v = tmp[(size_t)yy * w + x];
#pragma unroll
        for (int o = 0; o < VY; o++)
            if (s - o >= 0 && s - o < TAPS)
                out[o] = fma(KK(s - o), v, out[o]);
    }
#pragma unroll
    for (int o = 0; o < VY; o++)
        if (y0 + o < h)
            dst[(size_t)(y0 + o) * w + x] = out[o];
}
#endif

__kernel void fma_peak(__global float *out, int n, __constant const float *k)
{
    float a[32];
    const float x = (float)get_global_id(0) * 1e-9f;
#pragma unroll
    for (int i = 0; i < 32; i++)
        a[i] = x + i;
    for (int it = 0; it < n; it++) {
#pragma unroll
        for (int j = 0; j < 16; j++)
#pragma unroll
            for (int i = 0; i < 32; i++)
                a[i] = fma(a[i], KK(j), x);
    }
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < 32; i++)
        s += a[i];
    out[get_global_id(0)] = s;
}
