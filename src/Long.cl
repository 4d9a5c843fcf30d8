/*
 * Long.cl - tiled_long_conv: the tiled convolution for separable filters beyond tiled_conv's
 * reach: more than 15 taps along either axis (up to 63), or none along columns (1 tap). Built
 * after Common.cl, whose comment says what the coordinates mean.
 *
 * tiled_conv keeps a work-item's filtered rows in registers and trades the rows its vertical
 * neighbours need through local memory; at 31 taps a work-item would need 8 + 30 filtered rows
 * and 38-float read windows in registers, more than a work-item has. This kernel keeps the
 * article's other habits - raw pixels read straight from global memory through the L1 cache
 * as aligned float4 windows, horizontally filtered rows shared in local memory, the four
 * classes of work-groups - and moves the filtered rows into a local-memory window instead:
 *
 *   (a) the group filters the rows of its tile and the RADIUS_Y rows above and below it
 *       horizontally, job by job (a job: BLOCK_X = 8 outputs of one row, from one read window),
 *       into hrows, LONG_TILE_H + 2 RADIUS_Y rows of LONG_TILE_W values;
 *   (b) after one barrier each work-item filters one column of L_VY outputs vertically from
 *       hrows: every filtered value it reads is used by up to TAPS_Y of its outputs, held in
 *       registers, so local memory serves one read per L_VY multiply-adds or so.
 *
 * Ownership. Group (gx, gy) produces the tile of LONG_TILE_W x LONG_TILE_H pixels at ROI
 * (l, t) = (gx * LONG_TILE_W - ox, gy * LONG_TILE_H). The tiles sit on the *source's* 4-column
 * grid, ox = sL mod 4 (0 without float4 I/O): every job's window then starts on a float4
 * boundary of the source (the program is built with SHIFT 0 whatever the ROIs), and since the
 * stores below are single floats, coalesced along rows, the target's alignment costs nothing.
 * In phase (a) work-item (lx, ly) filters the jobs of column block lx in rows ly, ly + L_GY,
 * ...; in phase (b) work-item lid = ly * L_JPR + lx owns column lid mod LONG_TILE_W of the tile
 * and L_VY rows from row (lid / LONG_TILE_W) * L_VY.
 *
 * Classes, as tiled_conv's: class 1 (free on read) when the tile's rows, RADIUS_Y more above
 * and below, and its read windows' aprons lie inside the sROI, read unchecked; class 2 maps
 * each row and, at the sROI's left and right edges, each column by the border rule; class 3
 * (free on write) stores unchecked, class 4 checks each store against the tROI. The host
 * predicts the same (launch.c's tc_tiled_classes).
 *
 * -D options besides Common.cl's: LONG_TILE_W (a power of two, a multiple of BLOCK_X),
 * LONG_TILE_H (the host lowers it where the device's local memory is small) and
 * LONG_UNROLL_LIMIT, from src/config.h. Built with TC_IMAGE=1 (--storage image), it reads the
 * source plane from an image2d_t (Common.cl's SRC_T).
 */

#if !defined(LONG_TILE_W) || !defined(LONG_TILE_H) || !defined(LONG_UNROLL_LIMIT)
#error "build Long.cl with the -D options that launch.c passes"
#endif

#define L_GROUP 256                         /* work-items per group */
#define L_JPR (LONG_TILE_W / BLOCK_X)       /* jobs per filtered row */
#define L_GY (L_GROUP / L_JPR)              /* the group's rows of work-items */
#define L_HR (LONG_TILE_H + 2 * RADIUS_Y)   /* filtered rows in hrows */
#define L_VY (LONG_TILE_H * LONG_TILE_W / L_GROUP) /* outputs of a work-item, one column */

#if LONG_TILE_W % BLOCK_X != 0 || L_GROUP % LONG_TILE_W != 0 || \
    (LONG_TILE_W & (LONG_TILE_W - 1)) != 0 || (LONG_TILE_H * LONG_TILE_W) % L_GROUP != 0
#error "LONG_TILE_W must be a power of two dividing 256 and a multiple of BLOCK_X, and a tile a multiple of 256 pixels"
#endif
#if SHIFT != 0
#error "tiled_long_conv's tiles sit on the source's 4-column grid: SHIFT is 0"
#endif

/* One job of phase (a): the BLOCK_X outputs of ROI row y from block column x, into the
 * filtered row at out (BLOCK_X floats of hrows, 16-byte aligned). checked (a constant at both
 * calls) says whether coordinates may leave the sROI. */
TC_INLINE void long_job(SRC_T src, int pitch, int sL, int sT, int w, int h,
                        float value, bool checked, int x, int y, __constant const float *kx,
                        __local float *out)
{
    float seg[SEG_W];
    if (checked)
        load_segment_bordered(src, pitch, sL, sT, x, y, w, h, value, seg);
    else
        load_segment(src, pitch, sL + x, sT + y, seg);
    float acc[BLOCK_X];
#pragma unroll
    for (int c = 0; c < BLOCK_X; c++) {
        acc[c] = 0.0f;
#pragma unroll
        for (int i = 0; i < TAPS_X; i++)
            acc[c] = fma(kx[i], seg[c + i], acc[c]);
    }
#pragma unroll
    for (int v = 0; v < BLOCK_X / 4; v++)
        ((__local float4 *)out)[v] = vload4(v, acc);
}

/* Phase (a) for this work-item: its jobs, rows ly, ly + L_GY, ... of hrows (hrows' row k is
 * ROI row t - RADIUS_Y + k). A loop, not unrolled: a job is already TAPS_X x BLOCK_X
 * multiply-adds of code. */
TC_INLINE void long_filter_rows(SRC_T src, int pitch, int sL, int sT, int w,
                                int h, float value, bool checked, int l, int t, int lx, int ly,
                                __constant const float *kx, __local float *hrows)
{
    const int x = l + lx * BLOCK_X;
#pragma unroll 1
    for (int k = ly; k < L_HR; k += L_GY)
        long_job(src, pitch, sL, sT, w, h, value, checked, x, t - RADIUS_Y + k, kx,
                 hrows + k * LONG_TILE_W + lx * BLOCK_X);
}

/*
 * Phase (b): out[o] = sum_j ky[j] column[(o + j) * LONG_TILE_W] for o < L_VY, j < TAPS_Y.
 * Filtered row s of the column (0 <= s < L_VY + 2 RADIUS_Y) feeds output o with tap s - o
 * wherever 0 <= s - o < TAPS_Y, so each value read from local memory serves up to L_VY
 * multiply-adds in registers. Two ways to write that loop nest (TC_LONG_CHUNKED):
 *   0: every row s unrolled, every tap index a constant: TAPS_Y x L_VY multiply-adds of code
 *      (the default while that is at most LONG_UNROLL_LIMIT rows x outputs);
 *   1: the rows in chunks of L_VY, a loop over the chunks, each chunk's L_VY x L_VY
 *      multiply-adds unrolled: tap s - o of chunk c is ky[c L_VY + d], d = u - o the
 *      row's place in the chunk minus the output's, one coefficient per d (2 L_VY - 1 per
 *      chunk, 0 outside the filter) serving every pair with that d. Code of one chunk
 *      whatever the length; the multiply-adds by the zeros at the band's two ends are wasted.
 */
#ifndef TC_LONG_CHUNKED
#define TC_LONG_CHUNKED ((L_VY + 2 * RADIUS_Y) * L_VY > LONG_UNROLL_LIMIT)
#endif
#define L_ROWS (L_VY + 2 * RADIUS_Y)           /* filtered rows a column needs */
#define L_CHUNKS ((L_ROWS + L_VY - 1) / L_VY)   /* chunks of L_VY rows that cover them */

TC_INLINE void long_vertical(__local const float *column, __constant const float *ky,
                             float out[L_VY])
{
#pragma unroll
    for (int o = 0; o < L_VY; o++)
        out[o] = 0.0f;
#if !TC_LONG_CHUNKED
#pragma unroll
    for (int s = 0; s < L_ROWS; s++) {
        const float v = column[s * LONG_TILE_W];
#pragma unroll
        for (int o = 0; o < L_VY; o++)
            if (s - o >= 0 && s - o < TAPS_Y)
                out[o] = fma(ky[s - o], v, out[o]);
    }
#else
#pragma unroll 1
    for (int c = 0; c < L_CHUNKS; c++) {
        float v[L_VY];
#pragma unroll
        for (int u = 0; u < L_VY; u++) /* rows past the column's last one are not read */
            v[u] = c * L_VY + u < L_ROWS ? column[(c * L_VY + u) * LONG_TILE_W] : 0.0f;
#pragma unroll
        for (int d = 1 - L_VY; d < L_VY; d++) {
            const int j = c * L_VY + d;
            const float k = j >= 0 && j < TAPS_Y ? ky[j] : 0.0f;
#pragma unroll
            for (int o = 0; o < L_VY; o++)
                if (o + d >= 0 && o + d < L_VY)
                    out[o] = fma(k, v[o + d], out[o]);
        }
    }
#endif
}

__kernel __attribute__((reqd_work_group_size(L_JPR, L_GY, 1)))
void tiled_long_conv(SRC_T src, __global float *dst, int pitch,
                     int sL, int sT, int tL, int tT, int w, int h,
                     __constant const float *kx, __constant const float *ky,
                     float border_value CLASS_COUNTS_ARG)
{
    /* float4, so that phase (a) can store a job's outputs 16 bytes at a time. */
    __local float4 hrows4[L_HR * LONG_TILE_W / 4];
    __local float *hrows = (__local float *)hrows4;

    const int lx = get_local_id(0), ly = get_local_id(1);
    const int ox = TC_VECTOR_IO ? sL & 3 : 0; /* the tiles on the source's 4-grid */
    const int l = get_group_id(0) * LONG_TILE_W - ox;
    const int t = get_group_id(1) * LONG_TILE_H;
    /* The classes depend on the group alone, so the barrier below, between two branches on
     * them, is reached by every work-item of a group or by none (as OpenCL requires). */
    const bool free_on_read = l >= APRON_L && t >= RADIUS_Y &&
                              l + LONG_TILE_W + APRON_R <= w && t + LONG_TILE_H + RADIUS_Y <= h;
    const bool free_on_write = l >= 0 && l + LONG_TILE_W <= w && t + LONG_TILE_H <= h;
#ifdef TC_COUNT_CLASSES
    if (lx == 0 && ly == 0) {
        atomic_inc(&class_counts[free_on_read ? 0 : 1]);
        atomic_inc(&class_counts[free_on_write ? 2 : 3]);
    }
#endif

    /* (a) The tile's rows and its halo rows, filtered horizontally into hrows. */
    if (free_on_read)
        long_filter_rows(src, pitch, sL, sT, w, h, border_value, false, l, t, lx, ly, kx, hrows);
    else
        long_filter_rows(src, pitch, sL, sT, w, h, border_value, true, l, t, lx, ly, kx, hrows);
    /* Every filtered row is in hrows before anyone filters a column of them. */
    barrier(CLK_LOCAL_MEM_FENCE);

    /* (b) One column of L_VY outputs, filtered vertically from filtered rows r0 .. r0 +
     * L_VY + 2 RADIUS_Y - 1 of the tile (long_vertical). */
    const int lid = ly * L_JPR + lx;
    const int col = lid & (LONG_TILE_W - 1);
    const int r0 = (lid / LONG_TILE_W) * L_VY; /* the first output row, in the tile */
    float out[L_VY];
    long_vertical(hrows + r0 * LONG_TILE_W + col, ky, out);

    /* (c) The store: class 3 unchecked; class 4 only inside the tROI. Consecutive work-items
     * store consecutive columns of a row. */
    const int x = l + col;
    __global float *out_col = dst + (tT + t + r0) * pitch + tL + x;
    const bool column_inside = x >= 0 && x < w;
    /* (out_col is formed for columns left of the tROI too, never written through.) */
#pragma unroll
    for (int o = 0; o < L_VY; o++)
        if (free_on_write || (column_inside && t + r0 + o < h))
            out_col[o * pitch] = out[o];
}
