/*
 * Masks.cl - non-separable masks: MASK_H rows of MASK_W weights (RADIUS_Y = (MASK_H - 1) / 2,
 * RADIUS_X = (MASK_W - 1) / 2), out(x, y) = sum_j sum_i mask[j][i] S(x + i - RADIUS_X,
 * y + j - RADIUS_Y), correlation as everywhere. Two kernels, built after Common.cl, whose
 * comment says what the coordinates mean:
 *
 *   tiled_mask_conv      the tiled convolution in the article's vein: 8 x 8 work-items, each
 *                        producing a BLOCK_X x BLOCK_Y block from rows in registers and L1
 *   one_pass_mask_conv   the classic one-pass local-memory convolution, all products
 *   tiled_mask_rows_conv tiled_mask_conv's groups and blocks with a loop over the source rows
 *                        instead of every product unrolled, for large masks (built alone,
 *                        with -D TC_MASK_ROWS=1)
 *
 * (A mask that is rank 1 never comes here: the host factors it and runs the separable
 * kernels, unless the tuning's mask-2d says otherwise.)
 *
 * The weights are a __constant argument, mask[j * MASK_W + i]; tiled_mask_conv also takes the
 * first 16 by value, as a tc_values16 (TC_MASK_VALUES). -D options besides Common.cl's: GROUP_X,
 * GROUP_Y, ONEPASS_GROUP and MASK_UNROLL_LIMIT, from src/config.h. Built with TC_IMAGE=1
 * (--storage image), both read the source plane from an image2d_t (Common.cl's SRC_T).
 */

#if !defined(GROUP_X) || !defined(GROUP_Y) || !defined(ONEPASS_GROUP) || \
    !defined(MASK_UNROLL_LIMIT)
#error "build Masks.cl with the -D options that job_kernels.c passes"
#endif

#define MASK_W TAPS_X
#define MASK_H TAPS_Y

#ifndef TC_MASK_ROWS
#define TC_MASK_ROWS 0
#endif

#if !TC_MASK_ROWS

/* ------------------------------------------------------------------------------------------ */
/* tiled_mask_conv                                                                            */
/* ------------------------------------------------------------------------------------------ */

/*
 * Ownership, as tiled_conv's: the group whose tile starts at ROI (l, t) = (gx * TILE_W - ox,
 * gy * TILE_H), ox = tL mod 4 (the target's 4-column grid, so that block rows are stored as
 * aligned float4s), and work-item (lx, ly) owns the block at (l + lx * BLOCK_X,
 * t + ly * BLOCK_Y). Its BLOCK_Y output rows need source rows by - RADIUS_Y ..
 * by + BLOCK_Y - 1 + RADIUS_Y. With TC_MASK_SHARE_ROWS each of those rows is read once, as the
 * aligned float4 window of the block (Common.cl's load_segment, SHIFT the source alignment),
 * and then used by every output row that needs it - source row by + r by output row o with
 * mask row r - o + RADIUS_Y: a 5-row mask reads BLOCK_Y + 4 rows for BLOCK_Y outputs instead
 * of 5 BLOCK_Y. The windows of neighbouring work-items overlap, which the L1 cache serves, as
 * the article has it for raw pixels. There is no intermediate row to share between vertical
 * neighbours (a 2-D mask has no first pass), so no local memory and no barrier.
 *
 * Unrolled, that is MASK_W x MASK_H x BLOCK_X x BLOCK_Y multiply-adds of code; beyond
 * MASK_UNROLL_LIMIT of them (large masks) the mask's rows are a loop instead, each iteration
 * reading the BLOCK_Y rows one mask row needs: more reads, code that stays small.
 *
 * Classes, as tiled_conv's: class 1 reads unchecked, class 2 maps rows and (at the sROI's left
 * and right edges) columns by the border rule, class 3 stores unchecked, class 4 guards.
 *
 * Variants (for studies: --tune cl-options=...):
 *   TC_MASK_SHARE_ROWS   1: every source row once, unrolled (default up to MASK_UNROLL_LIMIT);
 *                        0: a loop over the mask's rows
 *   TC_MASK_VALUES       1: the weights from the by-value tc_values16 (default up to 16 weights);
 *                        0: from the __constant buffer
 */
#define TILE_W (GROUP_X * BLOCK_X)
#define TILE_H (GROUP_Y * BLOCK_Y)

#ifndef TC_MASK_SHARE_ROWS
#define TC_MASK_SHARE_ROWS (MASK_W * MASK_H * BLOCK_X * BLOCK_Y <= MASK_UNROLL_LIMIT)
#endif
#ifndef TC_MASK_VALUES
#define TC_MASK_VALUES (MASK_W * MASK_H <= 16 && TC_MASK_SHARE_ROWS)
#endif
#if TC_MASK_VALUES && (MASK_W * MASK_H > 16 || !TC_MASK_SHARE_ROWS)
#error "TC_MASK_VALUES holds 16 weights at compile-time indices: a small mask, TC_MASK_SHARE_ROWS"
#endif

#if TC_MASK_VALUES
#define WEIGHTS tc_values16
#define WEIGHT(m, j, i) value16(m, (j) * MASK_W + (i))
#else
#define WEIGHTS __constant const float *
#define WEIGHT(m, j, i) ((m)[(j) * MASK_W + (i)])
#endif

/* One output row of the block: out += mask row mj applied to the segment of its source row. */
TC_INLINE void mask_row(WEIGHTS m, int mj, const float seg[SEG_W], float out[BLOCK_X])
{
#pragma unroll
    for (int c = 0; c < BLOCK_X; c++)
#pragma unroll
        for (int i = 0; i < MASK_W; i++)
            out[c] = fma(WEIGHT(m, mj, i), seg[c + i], out[c]);
}

/* The block at ROI (bx, by) into out. checked is a constant at both calls. */
TC_INLINE void mask_block(SRC_T src, int pitch, int sL, int sT, int w, int h,
                          float value, bool checked, int bx, int by, WEIGHTS m,
                          float out[BLOCK_Y][BLOCK_X])
{
    clear_block(out);
#if TC_MASK_SHARE_ROWS
    /* Source row by - RADIUS_Y + r, read once, into every output row o it reaches. */
#pragma unroll
    for (int r = 0; r < BLOCK_Y + 2 * RADIUS_Y; r++) {
        float seg[SEG_W];
        load_segment_checked(src, pitch, sL, sT, w, h, value, checked, bx, by - RADIUS_Y + r, seg);
#pragma unroll
        for (int o = 0; o < BLOCK_Y; o++)
            if (r - o >= 0 && r - o < MASK_H)
                mask_row(m, r - o, seg, out[o]);
    }
#else
    /* Mask row mj for every output row o: source row by + o + mj - RADIUS_Y. */
#pragma unroll 1
    for (int mj = 0; mj < MASK_H; mj++)
#pragma unroll
        for (int o = 0; o < BLOCK_Y; o++) {
            float seg[SEG_W];
            load_segment_checked(src, pitch, sL, sT, w, h, value, checked, bx,
                                 by + o + mj - RADIUS_Y, seg);
            mask_row(m, mj, seg, out[o]);
        }
#endif
}

/* The block function and the type of its weights for mask_tile, below. */
#define TILE_WEIGHTS WEIGHTS
#define TILE_BLOCK mask_block

/* ------------------------------------------------------------------------------------------ */
/* one_pass_mask_conv                                                                         */
/* ------------------------------------------------------------------------------------------ */

/* TiledConv.cl's one_pass_conv with the mask's weights for the outer product's (Common.cl's
 * one_pass): work-item (lx, ly) of group (gx, gy) owns ROI pixel (gx * 16 + lx, gy * 16 + ly);
 * the group stages its (16 + 2 ry) x (16 + 2 rx) neighbourhood in local memory, mapped into
 * the sROI, and every work-item sums its MASK_H x MASK_W products from there. */
__kernel TC_GROUP_SIZE(ONEPASS_GROUP, ONEPASS_GROUP, 1)
void one_pass_mask_conv(SRC_T src, __global float *dst, int pitch,
                        int sL, int sT, int tL, int tT, int w, int h,
                        __constant const float *mask, float border_value)
{
    __local float raw[OP_RAW_H * OP_RAW_W];
    one_pass(src, dst, pitch, sL, sT, tL, tT, w, h, mask, 0, false, border_value, raw);
}

#else /* TC_MASK_ROWS */

/* ------------------------------------------------------------------------------------------ */
/* tiled_mask_rows_conv                                                                       */
/* ------------------------------------------------------------------------------------------ */

/*
 * tiled_mask_conv unrolls all MASK_W x MASK_H x BLOCK_X x BLOCK_Y multiply-adds of a block,
 * which beyond a 7 x 7 mask is more code than an SM's instruction cache holds, and its loop
 * form for large masks reads each source row once per mask row (15 times at 15 x 15), more
 * than the L1 cache serves. This kernel keeps tiled_mask_conv's groups, blocks, tile grid and
 * classes, and loops over the source rows of a block instead:
 *
 *   for each source row r of the block's BLOCK_Y + 2 RADIUS_Y (a loop, not unrolled):
 *     read its window once (Common.cl's load_segment: aligned float4s, SHIFT the source
 *     alignment), then for every output row o it reaches (mask row j = r - o, a test that is
 *     the same for every work-item) add mask row j applied to the window into out[o].
 *
 * Each window serves up to BLOCK_Y x BLOCK_X x MASK_W multiply-adds, and the code is one
 * source row's: BLOCK_Y x BLOCK_X x MASK_W of them. Mask row j is not known when the program is
 * built, so the weights are read from local memory, a float4 of them at a time (every
 * work-item reads the same address: a broadcast), each serving BLOCK_X multiply-adds. The group
 * copies the weights there from the __constant buffer first, MASK_W rounded up to a multiple
 * of 4 with zeros. Each output adds its products mask row by mask row, left to right within a
 * row, as the reference does.
 */
#define TILE_W (GROUP_X * BLOCK_X)
#define TILE_H (GROUP_Y * BLOCK_Y)
#define MR_Q ((MASK_W + 3) / 4) /* float4s of weights a mask row */
/* TC_MASK_PREFETCH 1 (the variant mrows-8x8-ahead): the next source row's window is read
 * before this row's multiply-adds, so that its loads are in flight while they run. A window
 * more of registers: uncapped, on the GPU machine, 6-8 % faster at 9 x 9 and 4-27 % slower
 * from 11 x 11; under the mrows variants' budget of 128, 3-6 % faster at 9 x 9 and 11 x 11,
 * level or 5 % slower at 13 x 13 (docs/benchmarks.md). */
#ifndef TC_MASK_PREFETCH
#define TC_MASK_PREFETCH 0
#endif

/* How a class-2 window that crosses the sROI's left or right edge is read (TC_MASK_ROWS_WINDOW):
 *   0  load_segment_lean: the per-pixel mapping a rolled loop, into an array of its own;
 *   1  load_segment_bordered: that mapping unrolled, every load in flight at once;
 *   2  load_segment_mapped with fold (Common.cl) where the sROI is at least MR_FOLD_MIN_W
 *      wide and MR_FOLD_MIN_H tall (lean where smaller): unrolled, the row and each column
 *      mapped by border_fold, the rule applied once.
 * The lean loop's loads wait for each other, and a group with one such window waits for it:
 * on a data-centre GPU (bench/split/mask-edges.cases) the few groups along the image's left
 * and right edges cost 12-15 % of a large mask's time with replicate and constant (8192^2, 9 x 9
 * to 15 x 15; the CUDA port of the kernel with every tile interior is that much faster,
 * bench/cuda). Bordered took 0.83-0.89x lean's time with those two borders (16384^2
 * 0.94-0.96x), folded 0.88-0.90x; with the mirror borders and wrap, whose border_index loops
 * or divides, bordered went both ways (0.91-1.04x) and folded took 0.86-1.00x (wrap
 * 0.86-0.97x): unrolled, their mapping takes registers (140-168 against 126-128, ptxas on
 * the driver's PTX). Under the variants' budget of 128 (src/variants.c; on another data-centre GPU)
 * folded took 0.84-0.90x bordered's time with those borders, so that every border now runs
 * at replicate's speed within 1-2 %, and bordered stayed 0.99-1.03x its uncapped time with
 * replicate and constant (folded 0.98-1.02x there). Hence the default: bordered with
 * replicate and constant, folded otherwise. */
#ifndef TC_MASK_ROWS_WINDOW
#define TC_MASK_ROWS_WINDOW (BORDER == BORDER_REPLICATE || BORDER == BORDER_CONSTANT ? 1 : 2)
#endif
/* A block's window reaches at most 3 + RADIUS_X columns left of the sROI (the tiles sit on the
 * target's 4-grid) and, in a tile past its right edge, TILE_W + SEG_W columns right of it;
 * its rows RADIUS_Y above the sROI and TILE_H + RADIUS_Y below: border_fold's one fold covers
 * them where the sROI is larger than twice that. */
#define MR_FOLD_MIN_W (2 * (TILE_W + SEG_W) + 8)
#define MR_FOLD_MIN_H (2 * (TILE_H + 2 * RADIUS_Y) + 8)

/* The window of ROI row y for the block at column bx (class 2 when checked, a constant). */
TC_INLINE void mask_rows_window(SRC_T src, int pitch, int sL, int sT, int w, int h, float value,
                                bool checked, int bx, int y, float seg[SEG_W])
{
    if (!checked)
        load_segment(src, pitch, sL + bx, sT + y, seg);
    else if (TC_MASK_ROWS_WINDOW == 1)
        load_segment_bordered(src, pitch, sL, sT, bx, y, w, h, value, seg);
    else if (TC_MASK_ROWS_WINDOW == 2 && w >= MR_FOLD_MIN_W && h >= MR_FOLD_MIN_H)
        load_segment_mapped(src, pitch, sL, sT, bx, y, w, h, value, true, seg);
    else
        load_segment_lean(src, pitch, sL, sT, bx, y, w, h, value, seg);
}

/* The block at ROI (bx, by) into out. checked is a constant at both calls. */
TC_INLINE void mask_rows_block(SRC_T src, int pitch, int sL, int sT, int w, int h, float value,
                               bool checked, int bx, int by, __local const float4 *weights,
                               float out[BLOCK_Y][BLOCK_X])
{
    clear_block(out);
#if TC_MASK_PREFETCH
    float next[SEG_W]; /* the window of the row after the current one */
    mask_rows_window(src, pitch, sL, sT, w, h, value, checked, bx, by - RADIUS_Y, next);
#endif
#pragma unroll 1
    for (int r = 0; r < BLOCK_Y + 2 * RADIUS_Y; r++) {
        float seg[SEG_W];
#if TC_MASK_PREFETCH
#pragma unroll
        for (int i = 0; i < SEG_W; i++)
            seg[i] = next[i];
        if (r + 1 < BLOCK_Y + 2 * RADIUS_Y)
            mask_rows_window(src, pitch, sL, sT, w, h, value, checked, bx, by - RADIUS_Y + r + 1,
                             next);
#else
        mask_rows_window(src, pitch, sL, sT, w, h, value, checked, bx, by - RADIUS_Y + r, seg);
#endif
#pragma unroll
        for (int o = 0; o < BLOCK_Y; o++) {
            const int j = r - o; /* the mask row that joins source row r to output row o */
            if (j < 0 || j >= MASK_H)
                continue;
#pragma unroll
            for (int q = 0; q < MR_Q; q++) {
                const float4 wq = weights[j * MR_Q + q];
                const float wv[4] = {wq.x, wq.y, wq.z, wq.w};
#pragma unroll
                for (int e = 0; e < 4; e++)
                    if (4 * q + e < MASK_W)
#pragma unroll
                        for (int c = 0; c < BLOCK_X; c++)
                            out[o][c] = fma(wv[e], seg[c + 4 * q + e], out[o][c]);
            }
        }
    }
}

/* The block function and the type of its weights for mask_tile, below. */
#define TILE_WEIGHTS __local const float4 *
#define TILE_BLOCK mask_rows_block

#endif /* TC_MASK_ROWS */

/* ------------------------------------------------------------------------------------------ */
/* The tile of tiled_mask_conv and of tiled_mask_rows_conv                                    */
/* ------------------------------------------------------------------------------------------ */

/* Both kernels' work once their weights m are at hand: the group's tile on the target's 4-grid,
 * work-item (lx, ly)'s block, the article's classes from the group's position alone
 * (tiled_conv's tests, with the mask's radii), the block by TILE_BLOCK, unchecked or mapped
 * (checked a constant at each call), and its store. */
TC_INLINE void mask_tile(SRC_T src, __global float *dst, int pitch, int sL, int sT, int tL,
                         int tT, int w, int h, float border_value, int lx, int ly,
                         TILE_WEIGHTS m CLASS_COUNTS_ARG)
{
    const int ox = TC_VECTOR_IO ? tL & 3 : 0; /* the tiles on the target's 4-grid */
    const int l = get_group_id(0) * TILE_W - ox;
    const int t = get_group_id(1) * TILE_H;
    const int bx = l + lx * BLOCK_X, by = t + ly * BLOCK_Y;
    const bool free_on_read = tile_free_on_read(l, t, TILE_W, TILE_H, RADIUS_Y, w, h);
    const bool free_on_write = tile_free_on_write(l, t, TILE_W, TILE_H, w, h);
    COUNT_CLASSES(lx == 0 && ly == 0, free_on_read, free_on_write);
    float out[BLOCK_Y][BLOCK_X];
    if (free_on_read) /* class 1 */
        TILE_BLOCK(src, pitch, sL, sT, w, h, border_value, false, bx, by, m, out);
    else /* class 2 */
        TILE_BLOCK(src, pitch, sL, sT, w, h, border_value, true, bx, by, m, out);
    store_block(dst, pitch, tL, tT, w, h, bx, by, free_on_write, out); /* class 3 or 4 */
}

#if !TC_MASK_ROWS
/* tiled_mask_conv (its ownership, classes and variants: above, at the top of its part). */
__kernel TC_GROUP_SIZE(GROUP_X, GROUP_Y, 1)
void tiled_mask_conv(SRC_T src, __global float *dst, int pitch,
                     int sL, int sT, int tL, int tT, int w, int h,
                     __constant const float *mask, float border_value,
                     tc_values16 mask_values CLASS_COUNTS_ARG)
{
#if TC_MASK_VALUES
    const WEIGHTS m = mask_values;
#else
    WEIGHTS m = mask;
#endif
    const int lx = get_local_id(0), ly = get_local_id(1);
    mask_tile(src, dst, pitch, sL, sT, tL, tT, w, h, border_value, lx, ly, m CLASS_COUNTS_PASS);
}
#else
/* tiled_mask_rows_conv (above, at the top of its part: how it differs from tiled_mask_conv). */
__kernel TC_GROUP_SIZE(GROUP_X, GROUP_Y, 1)
void tiled_mask_rows_conv(SRC_T src, __global float *dst, int pitch,
                          int sL, int sT, int tL, int tT, int w, int h,
                          __constant const float *mask, float border_value CLASS_COUNTS_ARG)
{
    __local float4 weights[MASK_H * MR_Q];
    const int lx = get_local_id(0), ly = get_local_id(1);
    /* The weights into local memory, each row padded with zeros to whole float4s. */
    for (int j = ly; j < MASK_H; j += GROUP_Y)
        for (int q = lx; q < MR_Q; q += GROUP_X) {
            float v[4];
#pragma unroll
            for (int e = 0; e < 4; e++) {
                /* The index kept inside the row, so that a load the compiler hoists above the
                 * choice reads a weight, not the buffer's unwritten tail. */
                const float m = mask[j * MASK_W + min(4 * q + e, MASK_W - 1)];
                v[e] = 4 * q + e < MASK_W ? m : 0.0f;
            }
            weights[j * MR_Q + q] = vload4(0, v);
        }
    /* Every weight is in local memory before anyone reads one. */
    barrier(CLK_LOCAL_MEM_FENCE);

    mask_tile(src, dst, pitch, sL, sT, tL, tT, w, h, border_value, lx, ly,
              weights CLASS_COUNTS_PASS);
}
#endif
