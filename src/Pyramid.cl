/*
 * Pyramid.cl - the Gaussian scale space (tiledconv.h, tc_pyramid): pyramid_octave makes every
 * level of one octave in one launch, the level in the NDRange's third dimension, and
 * pyramid_decimate is the per-level path's step from one octave to the next. Built after
 * Common.cl, whose comment says what the coordinates mean; here the ROI is the octave's whole
 * image (sL = sT = tL = tT = 0), its row pitch `pitch`.
 *
 * pyramid_octave. Every slice of the launch (get_group_id(2)) applies one Gaussian to the
 * octave's base: a level, or the image at blur 2 sigma0 that makes the next octave (the feed,
 * slice PYR_FEED), which is stored decimated: only its even rows and columns, into the next
 * octave's base, so no launch and no plane of its own is spent on the decimation. All slices
 * read the same base and none reads what another writes: they are independent, which is what
 * lets one launch hold them all (the rule in tiledconv.h makes every level of an octave from
 * its base, not from the level before).
 *
 * Each slice works as Long.cl's tiled_long_conv does (that file says why): a group of 256
 * work-items makes a tile of LONG_TILE_W x LONG_TILE_H pixels; (a) it filters the tile's rows
 * and R rows above and below horizontally, jobs of BLOCK_X outputs read as aligned float4
 * windows through the L1 cache, into a local-memory window; (b) after one barrier each
 * work-item filters one column of P_VY outputs vertically from there, every value it reads
 * serving up to 2R + 1 outputs in registers; (c) it stores them, class 3 unchecked, class 4
 * guarded. The four classes are decided per group as there.
 *
 * Slices differ in their radius R (PYR_R0, PYR_R1, ...: build options, one per slice), so
 * each slice's code is its own, specialised at build time: the kernel switches on the slice
 * (uniform over a group, so the barrier between the two switches is reached by every
 * work-item of a group). The program's RADIUS_X = RADIUS_Y is the largest R of the launch:
 * the local window and the read windows are sized for it, and a slice of radius R takes the
 * middle 2R + 1 columns of a window.
 *
 * Bit for bit what tc_filter gives. Each output is the same sums of the same products as the
 * per-level path's kernel computes, in the same order, with fma: a row sum over kx[0] first,
 * then a column sum in the order that kernel adds its rows. tiled_long_conv, and tiled_conv
 * mostly, add ky[0] first, ky[2R] last; tiled_conv with 7 to 11 taps (TC_VERTICAL_ACC) adds
 * each filtered row as it arrives, for each block of PYR_ACCn rows: the block's own rows, then
 * the R rows above it, then the R rows below. A slice built with PYR_ACCn = 1 sums in that
 * order (its blocks lie where tiled_conv's do: tiles and columns of outputs start on rows that
 * are multiples of 8), so the per-octave and per-level paths agree to the bit, and level (0, 0)
 * is the plain `--filter gauss` output. tiled_geometry.c's tc_tiled_accumulating_rows says which.
 *
 * -D options besides Common.cl's (BLOCK_X 8, SHIFT 0): LONG_TILE_W, LONG_TILE_H (the tile),
 * PYR_SLICES (1 .. 9), PYR_Rn and PYR_ACCn (0 or 1) for n < 9 (0 past PYR_SLICES), PYR_FEED (the feed's
 * slice, or -1), PYR_INTERLEAVE (0: group (x, y, z) makes tile (x, y) of slice z, the
 * default; 1: group (z, x, y) does, so that the slices of a tile run one after another). The coefficients arrive in one __constant buffer, 64 floats per slice.
 */

/* pyramid_decimate: dst(x, y) = src(2x, 2y), the next octave's base from the per-level path's
 * feed image (w x h: the next octave's size). */
__kernel void pyramid_decimate(__global const float *src, int src_pitch, __global float *dst,
                               int dst_pitch, int w, int h)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x < w && y < h)
        dst[y * dst_pitch + x] = src[2 * y * src_pitch + 2 * x];
}

#ifdef PYR_SLICES

#if !defined(LONG_TILE_W) || !defined(LONG_TILE_H) || !defined(PYR_FEED)
#error "build Pyramid.cl with the -D options that pyramid.c passes"
#endif
#ifndef PYR_INTERLEAVE
#define PYR_INTERLEAVE 0
#endif

#define P_GROUP 256                                /* work-items per group */
#define P_JPR (LONG_TILE_W / BLOCK_X)              /* jobs per filtered row */
#define P_GY (P_GROUP / P_JPR)                     /* the group's rows of work-items */
#define P_VY (LONG_TILE_H * LONG_TILE_W / P_GROUP) /* outputs of a work-item, one column */
#define P_TAPS_STRIDE 64                           /* floats per slice in coeffs */

#if LONG_TILE_W % BLOCK_X != 0 || P_GROUP % LONG_TILE_W != 0 || \
    (LONG_TILE_W & (LONG_TILE_W - 1)) != 0 || (LONG_TILE_H * LONG_TILE_W) % P_GROUP != 0 || \
    (LONG_TILE_H * LONG_TILE_W / P_GROUP) % 8 != 0
#error "LONG_TILE_W must be a power of two dividing 256, and a work-item's column a multiple of 8 rows"
#endif
#if SHIFT != 0 || PYR_SLICES < 1 || PYR_SLICES > 9
#error "Pyramid.cl: SHIFT 0, 1 to 9 slices"
#endif

/* The loops below run to the program's largest radius (RADIUS_X = RADIUS_Y), a constant, and
 * test the slice's R inside: R is a constant at every call too, so once a call is inlined the
 * tests fold away and every index is a constant (the arrays stay in registers). A loop bound
 * of 2R + 1 itself would not do: compilers unroll before they inline, and leave such a loop
 * rolled, its arrays in memory. */

/* Phase (a)'s arithmetic for a slice of radius R: one job's BLOCK_X outputs from the row
 * segment seg, read for the largest radius (the slice takes the middle of it), kx[0] first. */
TC_INLINE void pyr_hfilter(const int R, const float seg[SEG_W], __constant const float *k,
                           float acc[BLOCK_X])
{
#pragma unroll
    for (int c = 0; c < BLOCK_X; c++) {
        acc[c] = 0.0f;
#pragma unroll
        for (int i = 0; i < 2 * RADIUS_X + 1; i++)
            if (i <= 2 * R)
                acc[c] = fma(k[i], seg[RADIUS_X - R + c + i], acc[c]);
    }
}

/* Phase (b) works in blocks of 8 outputs of a column: tiled_conv's accumulating blocks are 8
 * rows high wherever it accumulates (tiled_geometry.c raises its block to 8 rows from radius 3, and it
 * accumulates up to radius 5), and a block's code is a quarter of a whole column's, which
 * keeps the nine slices' code within what compilers build in reasonable time. */
#define P_VB 8

/* Phase (b) of a slice of radius R for one block: out[o] (o < P_VB) from the column's rows
 * o .. o + 2R (column[s * LONG_TILE_W] is its row s), summed as the per-level kernel sums
 * (see above): acc 0, each output's taps in order, each row read once and used by every output
 * it feeds; acc 1, tiled_conv's accumulating order: the block's own rows, s = R .. R + 7,
 * first, then the R rows above it, then the R rows below. */
TC_INLINE void pyr_column(const int R, const int acc, __local const float *column,
                          __constant const float *k, float out[P_VB])
{
#pragma unroll
    for (int o = 0; o < P_VB; o++)
        out[o] = 0.0f;
#pragma unroll
    for (int n = 0; n < P_VB + 2 * RADIUS_Y; n++) {
        if (n >= P_VB + 2 * R)
            continue;
        const int s = !acc ? n : n < P_VB ? R + n : n < P_VB + R ? n - P_VB : n;
        const float v = column[s * LONG_TILE_W];
#pragma unroll
        for (int o = 0; o < P_VB; o++)
            if (s - o >= 0 && s - o <= 2 * R)
                out[o] = fma(k[s - o], v, out[o]);
    }
}

/* Slice n's radius, and its phase (a) arithmetic. */
#define PYR_RADIUS(z)                                                                           \
    ((z) == 0 ? PYR_R0 : (z) == 1 ? PYR_R1 : (z) == 2 ? PYR_R2 : (z) == 3 ? PYR_R3 :            \
     (z) == 4 ? PYR_R4 : (z) == 5 ? PYR_R5 : (z) == 6 ? PYR_R6 : (z) == 7 ? PYR_R7 : PYR_R8)
#define PYR_ROWS_CASE(n)                                                                        \
    case n:                                                                                     \
        pyr_hfilter(PYR_R##n, seg, k, acc);                                                     \
        break;

/* Slice n's phase (b) for one block. */
#define PYR_COLUMN_CASE(n)                                                                      \
    case n:                                                                                     \
        pyr_column(PYR_R##n, PYR_ACC##n, column, k, out);                                       \
        break;

/* Slice n's level. */
#define PYR_DST(z)                                                                              \
    ((z) == 0 ? dst0 : (z) == 1 ? dst1 : (z) == 2 ? dst2 : (z) == 3 ? dst3 : (z) == 4 ? dst4 :  \
     (z) == 5 ? dst5 : (z) == 6 ? dst6 : (z) == 7 ? dst7 : dst8)

#if PYR_INTERLEAVE
__kernel __attribute__((reqd_work_group_size(1, P_JPR, P_GY)))
#else
__kernel __attribute__((reqd_work_group_size(P_JPR, P_GY, 1)))
#endif
void pyramid_octave(__global const float *base, int pitch, int w, int h,
                    __constant const float *coeffs, float border_value,
                    __global float *next, int next_pitch,
                    __global float *dst0, __global float *dst1, __global float *dst2,
                    __global float *dst3, __global float *dst4, __global float *dst5,
                    __global float *dst6, __global float *dst7, __global float *dst8)
{
    /* The filtered rows of the slice's tile and its halo, for the largest radius. */
    __local float4 hrows4[(LONG_TILE_H + 2 * RADIUS_Y) * LONG_TILE_W / 4];
    __local float *hrows = (__local float *)hrows4;

#if PYR_INTERLEAVE
    /* The slice in the first dimension, which a GPU dispatches fastest: consecutive groups make
     * the same tile of every slice in turn, at about the same time, reading the same rows of
     * the base, which the L2 cache then serves once (--tune pyramid-interleave=1, a
     * study; the groups are 1 x P_JPR x P_GY). */
    const int lx = get_local_id(1), ly = get_local_id(2);
    const int z = get_group_id(0);
    const int l = get_group_id(1) * LONG_TILE_W;
    const int t = get_group_id(2) * LONG_TILE_H;
#else
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int l = get_group_id(0) * LONG_TILE_W; /* the tile, on the image's 4-column grid */
    const int t = get_group_id(1) * LONG_TILE_H;
    const int z = get_group_id(2);               /* the slice */
#endif
    __constant const float *k = coeffs + z * P_TAPS_STRIDE;

    /* (a) The slice's rows: hrows row r (0 <= r < LONG_TILE_H + 2R) is ROI row t - R + r
     * filtered horizontally at the tile's columns; work-item (lx, ly) makes the jobs of column
     * block lx in rows ly, ly + P_GY, ... Each row segment is read for the largest radius by
     * code the slices share, class 1 unchecked, class 2 with coordinates mapped into the image
     * (the classes depend on the group alone); the arithmetic is the slice's own. A loop over
     * the rows, not unrolled: a job is already (2R + 1) x BLOCK_X multiply-adds of code. */
    const int R = PYR_RADIUS(z);
    const bool free_on_read = tile_free_on_read(l, t, LONG_TILE_W, LONG_TILE_H, R, w, h);
    const int x0 = l + lx * BLOCK_X;
#pragma unroll 1
    for (int r = ly; r < LONG_TILE_H + 2 * R; r += P_GY) {
        const int y = t - R + r;
        float seg[SEG_W];
        if (free_on_read)
            load_segment(base, pitch, x0, y, seg);
        else
            load_segment_bordered(base, pitch, 0, 0, x0, y, w, h, border_value, seg);
        float acc[BLOCK_X];
        switch (z) {
#if PYR_SLICES > 0
            PYR_ROWS_CASE(0)
#endif
#if PYR_SLICES > 1
            PYR_ROWS_CASE(1)
#endif
#if PYR_SLICES > 2
            PYR_ROWS_CASE(2)
#endif
#if PYR_SLICES > 3
            PYR_ROWS_CASE(3)
#endif
#if PYR_SLICES > 4
            PYR_ROWS_CASE(4)
#endif
#if PYR_SLICES > 5
            PYR_ROWS_CASE(5)
#endif
#if PYR_SLICES > 6
            PYR_ROWS_CASE(6)
#endif
#if PYR_SLICES > 7
            PYR_ROWS_CASE(7)
#endif
#if PYR_SLICES > 8
            PYR_ROWS_CASE(8)
#endif
        default:
#pragma unroll
            for (int c = 0; c < BLOCK_X; c++)
                acc[c] = 0.0f;
            break;
        }
        __local float *out = hrows + r * LONG_TILE_W + lx * BLOCK_X;
#pragma unroll
        for (int v = 0; v < BLOCK_X / 4; v++)
            ((__local float4 *)out)[v] = vload4(v, acc);
    }
    /* Every filtered row is in hrows before anyone filters a column of them. The loop above
     * depends on the group's slice alone, so every work-item of a group reaches this barrier. */
    barrier(CLK_LOCAL_MEM_FENCE);

    /* (b) and (c): one column of the tile, col, rows r0 .. r0 + P_VY - 1, in blocks of P_VB
     * rows, each filtered vertically and stored. A loop over the blocks, not unrolled. The
     * feed keeps only its even rows and columns, in the next octave's base; the blocks start
     * on even rows, so output o's row is even exactly when o is. Class 3 (the tile inside the
     * image) stores unchecked, class 4 only inside. */
    const int lid = ly * P_JPR + lx;
    const int col = lid & (LONG_TILE_W - 1);
    const int r0 = (lid / LONG_TILE_W) * P_VY;
    const int x = l + col;
    const bool free_on_write = l + LONG_TILE_W <= w && t + LONG_TILE_H <= h;
    __global float *dst = PYR_DST(z);
#pragma unroll 1
    for (int b = 0; b < P_VY; b += P_VB) {
        __local const float *column = hrows + (r0 + b) * LONG_TILE_W + col;
        const int y0 = t + r0 + b;
        float out[P_VB];
        switch (z) {
#if PYR_SLICES > 0
            PYR_COLUMN_CASE(0)
#endif
#if PYR_SLICES > 1
            PYR_COLUMN_CASE(1)
#endif
#if PYR_SLICES > 2
            PYR_COLUMN_CASE(2)
#endif
#if PYR_SLICES > 3
            PYR_COLUMN_CASE(3)
#endif
#if PYR_SLICES > 4
            PYR_COLUMN_CASE(4)
#endif
#if PYR_SLICES > 5
            PYR_COLUMN_CASE(5)
#endif
#if PYR_SLICES > 6
            PYR_COLUMN_CASE(6)
#endif
#if PYR_SLICES > 7
            PYR_COLUMN_CASE(7)
#endif
#if PYR_SLICES > 8
            PYR_COLUMN_CASE(8)
#endif
        default:
            return;
        }
        if (z == PYR_FEED) {
            if ((x & 1) == 0 && x < w) {
                __global float *out_col = next + (y0 >> 1) * next_pitch + (x >> 1);
#pragma unroll
                for (int o = 0; o < P_VB; o += 2)
                    if (y0 + o < h)
                        out_col[(o >> 1) * next_pitch] = out[o];
            }
        } else {
            __global float *out_col = dst + y0 * pitch + x;
#pragma unroll
            for (int o = 0; o < P_VB; o++)
                if (free_on_write || (x < w && y0 + o < h))
                    out_col[o * pitch] = out[o];
        }
    }
}

#endif
