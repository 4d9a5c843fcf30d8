/*
 * TiledConv.cl - separable convolution of a float plane, from a source ROI (sROI) into a target
 * ROI (tROI) of the same size, three ways:
 *
 *   tiled_conv            the article's tiled convolution (8 x 8 work-items, 4 x 4 pixels each),
 *                         up to TILED_MAX_TAPS (15) taps along each axis; Long.cl's
 *                         tiled_long_conv takes longer filters
 *   one_pass_conv         the classic one-pass local-memory convolution (16 x 16, one pixel each)
 *   rows_transposed_conv  one pass of the classic two-pass convolution (filter rows, transpose)
 *
 * Built after Common.cl (border rules, staging, read windows, the block store), whose comment
 * says what the coordinates mean. Besides Common.cl's -D options this file takes GROUP_X,
 * GROUP_Y, ONEPASS_GROUP, TWOPASS_TILE and TILED_MAX_TAPS, from src/config.h. RADIUS_X is the
 * radius along rows (kx), RADIUS_Y along columns (ky); rows_transposed_conv filters rows with
 * RADIUS_X, and the host builds its second pass with the column radius as RADIUS_X.
 * The coefficients kx (along rows) and ky (along columns) are __constant arguments: every
 * work-item reads the same one at the same time, which is what the constant cache serves best.
 * Built with TC_IMAGE=1 (--storage image), tiled_conv and one_pass_conv read the source plane
 * from an image2d_t (Common.cl's SRC_T), and rows_transposed_conv is left out. Built with
 * TC_IO_U8=1, tiled_conv reads and writes a gray image's bytes (Common.cl), and the other two
 * are left out.
 */

#if !defined(GROUP_X) || !defined(GROUP_Y) || !defined(ONEPASS_GROUP) || \
    !defined(TWOPASS_TILE) || !defined(TILED_MAX_TAPS)
#error "build TiledConv.cl with the -D options that job_kernels.c passes"
#endif

/* tiled_conv takes its coefficients by value as tc_values16 (TC_COEFF_VALUES), so at most 15 of
 * them an axis; it shares filtered rows between vertical neighbours, so it needs a vertical
 * radius. The host sends the other shapes to Long.cl (variants.c), and builds this file for
 * them only for one_pass_conv and rows_transposed_conv. */
#define TC_TILED_FITS (TAPS_X <= TILED_MAX_TAPS && TAPS_Y <= TILED_MAX_TAPS && RADIUS_Y >= 1)

/* ------------------------------------------------------------------------------------------ */
/* tiled_conv: the article's algorithm                                                         */
/* ------------------------------------------------------------------------------------------ */

#if TC_TILED_FITS

/*
 * Ownership. A work-group of GROUP_X x GROUP_Y work-items produces one tile of
 * TILE_W x TILE_H output pixels (32 x 32 with the article's 8 x 8 groups of 4 x 4 blocks).
 * Work-item (lx, ly) of the group whose tile starts at (l, t) owns the block of
 * BLOCK_X x BLOCK_Y pixels starting at (l + lx * BLOCK_X, t + ly * BLOCK_Y).
 *
 * The tiles sit on the target's 4-column grid: group (gx, gy) has l = gx * TILE_W - ox and
 * t = gy * TILE_H, where ox = tL mod 4. Every block then starts at a target column that is a
 * multiple of 4, so its rows are written as aligned float4s whatever the tROI's left edge; the
 * first column of tiles starts ox columns left of the tROI, and its groups guard their writes
 * (class 4). On the source side a block starts SHIFT = (sL - tL) mod 4 columns past a multiple
 * of 4: the host builds the program for that SHIFT, and a block row is read as the aligned
 * float4s that cover it, its pixels picked out of them at offsets known when the program is
 * built (load_segment). With TC_VECTOR_IO=0 there is no grid shift (ox = 0) and every global
 * access is a single float.
 *
 * To filter its block vertically a work-item needs the horizontally filtered rows of its block
 * plus RADIUS_Y rows above and RADIUS_Y below. It filters its own rows horizontally (TAPS_X
 * taps), in registers; the rows above are the last RADIUS_Y rows of its upper neighbour's
 * block, the rows below the first RADIUS_Y rows of its lower neighbour's: every work-item
 * publishes those two sets in local memory and takes its neighbours' from there. The tile's
 * top work-items need RADIUS_Y rows from above the tile and its bottom ones RADIUS_Y rows from
 * below it, whose owners are in other groups. For a vertical radius of 1 and 2 those
 * work-items filter these halo rows themselves, as in the article; from 3 (TC_HALO_SPREAD) the
 * 2 * RADIUS_Y halo rows are spread over the whole group (work-item row ly takes halo rows ly,
 * ly + GROUP_Y, ...) and published with the others, so that no warp filters 2 * RADIUS_Y rows
 * more than the rest.
 * This needs RADIUS_Y <= BLOCK_Y: the host raises BLOCK_Y to the radius where it is smaller
 * (and to 8 from radius 3: taller tiles re-read fewer halo rows, tiled_geometry.c).
 */
#define TILE_W (GROUP_X * BLOCK_X)
#define TILE_H (GROUP_Y * BLOCK_Y)
#define HROWS (BLOCK_Y + 2 * RADIUS_Y) /* horizontally filtered rows a work-item needs */

/*
 * Variants kept for measurement (set through --tune cl-options=...). The defaults are
 * the fastest measured on the GPU machine for each radius (docs/benchmarks.md):
 *   TC_VECTOR_IO=0         global loads and stores one float at a time (--scalar-io)
 *   TC_HALO_SPREAD         1: the tile's halo rows filtered by the whole group (default from
 *                          vertical radius 3); 0: by its top and bottom work-items, the
 *                          article's way (default for radius 1 and 2, where it measured 1 to 3
 *                          points faster)
 *   TC_VERTICAL_ACC        1: the vertical pass accumulates each filtered row into the outputs
 *                          as soon as the row is there, one row live instead of HROWS
 *                          (default for vertical radius 3 to 5); 0: it gathers from all rows
 *                          at the end
 *   TC_COEFF_VALUES        1: the coefficients from the by-value kernel arguments kx_values,
 *                          ky_values (default, but where a radius is 7); 0: from the __constant
 *                          buffers kx, ky. Both end in uniform registers; what differs is the
 *                          schedule the compiler makes, worth -13 to +19 points at long
 *                          lengths on NVIDIA's driver (radius 7: 55.8 % by value, 68.5 % not)
 *   TC_CLASS2_STAGE=1      class 2 stages its neighbourhood in local memory, the article's way,
 *                          instead of reading its rows like class 1 with mapped coordinates
 *   TC_CLASS4_BROADCAST=1  class 4 writes every pixel, those outside the tROI redirected to
 *                          the tile's first pixel inside it with that pixel's value (the
 *                          article's way), instead of guarding each write
 *   TC_STUDY_NO_MATH=1     (a study, wrong results) no multiply-adds: the same loads, shared
 *                          rows and stores, each output the centre tap's input
 */
#ifndef TC_CLASS2_STAGE
#define TC_CLASS2_STAGE 0
#endif
#ifndef TC_HALO_SPREAD
#define TC_HALO_SPREAD (RADIUS_Y >= 3)
#endif
#ifndef TC_CLASS4_BROADCAST
#define TC_CLASS4_BROADCAST 0
#endif
#ifndef TC_VERTICAL_ACC
#define TC_VERTICAL_ACC (RADIUS_Y >= 3 && RADIUS_Y <= 5 && TC_HALO_SPREAD && !TC_CLASS2_STAGE)
#endif
#ifndef TC_STUDY_NO_MATH
#define TC_STUDY_NO_MATH 0
#endif
#ifndef TC_COEFF_VALUES
#define TC_COEFF_VALUES (RADIUS_X != 7 && RADIUS_Y != 7)
#endif
#if TC_VERTICAL_ACC && (TC_CLASS2_STAGE || !TC_HALO_SPREAD)
#error "TC_VERTICAL_ACC publishes rows as it filters them: TC_HALO_SPREAD=1, TC_CLASS2_STAGE=0"
#endif
#if RADIUS_Y > BLOCK_Y
#error "the rows shared between vertical neighbours must cover the radius: BLOCK_Y >= RADIUS_Y"
#endif

/* The coefficients as the phases take them (TC_COEFF_VALUES), and tap i of them. */
#if TC_COEFF_VALUES
#define COEFFS tc_values16
#define TAP(k, i) value16(k, i)
#else
#define COEFFS __constant const float *
#define TAP(k, i) ((k)[i])
#endif

/* The halo rows: 2 * RADIUS_Y rows above and below the tile, HALO_PER_ITEM at most per
 * work-item when they are spread over the group. Halo row k is ROI row halo_row(t, k). */
#define HALO_ROWS (2 * RADIUS_Y)
#define HALO_PER_ITEM ((HALO_ROWS + GROUP_Y - 1) / GROUP_Y)
static inline int halo_row(int t, int k)
{
    return k < RADIUS_Y ? t - RADIUS_Y + k : t + TILE_H + k - RADIUS_Y;
}

/* Class 2's staged copy of the tile's neighbourhood (TC_CLASS2_STAGE):
 * (TILE_H + 2r) x (TILE_W + 2r) raw pixels. */
#define RAW_W (TILE_W + 2 * RADIUS_X)
#define RAW_H (TILE_H + 2 * RADIUS_Y)
#define RAW_SIZE (RAW_W * RAW_H)

/* The published rows, in slots of RADIUS_Y rows of TILE_W values: top[s] holds the first
 * RADIUS_Y rows of work-item row s (s < GROUP_Y) or the halo rows below the tile (s = GROUP_Y);
 * bottom[s] the last RADIUS_Y rows of work-item row s - 1 (s > 0) or the halo rows above the
 * tile (s = 0). Work-item row ly takes its rows above from bottom[ly], its rows below from
 * top[ly + 1]. */
#define SLOTS (GROUP_Y + 1)
#define EDGE_SIZE (SLOTS * RADIUS_Y * TILE_W)
#define SHARED_SIZE (2 * EDGE_SIZE)
#define SHARED_AT(slot, r, col4) (((slot) * RADIUS_Y + (r)) * (TILE_W / 4) + (col4))

/* Staging class 2 groups reuse the raw copy's memory for the published rows once nobody reads
 * raw pixels any more, so one allocation of the larger size serves both. */
#if TC_CLASS2_STAGE && RAW_SIZE > SHARED_SIZE
#define LOCAL_SIZE RAW_SIZE
#else
#define LOCAL_SIZE SHARED_SIZE
#endif

/* One row segment filtered horizontally: the BLOCK_X outputs from SEG_W inputs. */
static inline void filter_segment(const float seg[SEG_W], COEFFS kx,
                           float out[BLOCK_X])
{
#pragma unroll
    for (int c = 0; c < BLOCK_X; c++) {
        float acc = 0.0f;
#if TC_STUDY_NO_MATH
        acc = seg[c + RADIUS_X];
#else
#pragma unroll
        for (int i = 0; i < TAPS_X; i++)
            acc = fma(TAP(kx, i), seg[c + i], acc);
#endif
        out[c] = acc;
    }
}

/* One block row filtered horizontally: ROI row y at block column x, from global memory.
 * checked (a constant at every call) says whether coordinates may leave the sROI. */
TC_INLINE void hfilter_global(SRC_T src, int pitch, int sL, int sT, int x,
                              int y, int w, int h, float value, bool checked,
                              COEFFS kx, float out[BLOCK_X])
{
    float seg[SEG_W];
    load_segment_checked(src, pitch, sL, sT, w, h, value, checked, x, y, seg);
    filter_segment(seg, kx, out);
}

/* The same from class 2's staged copy (TC_CLASS2_STAGE); (x, y) are relative to the tile's
 * corner, so the segment starts at raw column x (= tile x - RADIUS_X). */
static inline void hfilter_local(__local const float *raw, int x, int y, COEFFS kx,
                          float out[BLOCK_X])
{
    __local const float *row = raw + (y + RADIUS_Y) * RAW_W + x;
    float seg[SEG_W];
#pragma unroll
    for (int i = 0; i < SEG_W; i++)
        seg[i] = row[i];
    filter_segment(seg, kx, out);
}

/*
 * The phases of tiled_conv, in the order the kernel runs them. Each fills or reads the
 * work-item's private rows, hrow[RADIUS_Y + r] = row by + r of its block filtered horizontally
 * (-RADIUS_Y <= r < BLOCK_Y + RADIUS_Y), its share of the tile's halo rows, halo[m] = halo row
 * ly + m * GROUP_Y filtered horizontally at its block's columns, or its results,
 * out[r][c] = pixel (bx + c, by + r). They are TC_INLINE and all their loops have constant
 * bounds, so every call is inlined, every loop unrolls and the arrays stay in registers. None
 * of them has a barrier: those are in the kernel body.
 */

/* Phase (a), class 1 (checked = false), or class 2 reading global memory (checked = true):
 * the block's own rows, then this work-item's share of the halo rows: with TC_HALO_SPREAD
 * halo rows ly, ly + GROUP_Y, ... into halo; otherwise, the top work-items the rows above
 * the tile into hrow, the bottom ones the rows below. The other halo rows of hrow are the
 * neighbours', taken in the shared-row exchange, phase (c). */
TC_INLINE void filter_rows(SRC_T src, int pitch, int sL, int sT, int w, int h,
                           float value, bool checked, int t, int bx, int by, int ly,
                           COEFFS kx, float hrow[HROWS][BLOCK_X],
                           float halo[HALO_PER_ITEM][BLOCK_X])
{
#pragma unroll
    for (int r = 0; r < BLOCK_Y; r++)
        hfilter_global(src, pitch, sL, sT, bx, by + r, w, h, value, checked, kx,
                       hrow[RADIUS_Y + r]);
#if TC_HALO_SPREAD
#pragma unroll
    for (int m = 0; m < HALO_PER_ITEM; m++)
        if (ly + m * GROUP_Y < HALO_ROWS)
            hfilter_global(src, pitch, sL, sT, bx, halo_row(t, ly + m * GROUP_Y), w, h, value,
                           checked, kx, halo[m]);
#else
    if (ly == 0) /* the rows above the tile */
#pragma unroll
        for (int r = 0; r < RADIUS_Y; r++)
            hfilter_global(src, pitch, sL, sT, bx, by - RADIUS_Y + r, w, h, value, checked, kx,
                           hrow[r]);
    if (ly == GROUP_Y - 1) /* the rows below the tile */
#pragma unroll
        for (int r = 0; r < RADIUS_Y; r++)
            hfilter_global(src, pitch, sL, sT, bx, by + BLOCK_Y + r, w, h, value, checked, kx,
                           hrow[RADIUS_Y + BLOCK_Y + r]);
#endif
}

/* Phase (b), class 2 with TC_CLASS2_STAGE, once the group has staged the tile's neighbourhood
 * in raw (stage_neighbourhood: RAW_H x RAW_W pixels from the tile's corner minus the radius
 * each way): the same rows as phase (a), from local memory. */
TC_INLINE void filter_rows_staged(__local const float *raw, int lx, int ly,
                                  COEFFS kx, float hrow[HROWS][BLOCK_X],
                                  float halo[HALO_PER_ITEM][BLOCK_X])
{
    const int tx = lx * BLOCK_X, ty = ly * BLOCK_Y; /* the block, relative to the tile */
#pragma unroll
    for (int r = 0; r < BLOCK_Y; r++)
        hfilter_local(raw, tx, ty + r, kx, hrow[RADIUS_Y + r]);
#if TC_HALO_SPREAD
#pragma unroll
    for (int m = 0; m < HALO_PER_ITEM; m++)
        if (ly + m * GROUP_Y < HALO_ROWS)
            hfilter_local(raw, tx, halo_row(0, ly + m * GROUP_Y), kx, halo[m]);
#else
    if (ly == 0)
#pragma unroll
        for (int r = 0; r < RADIUS_Y; r++)
            hfilter_local(raw, tx, ty - RADIUS_Y + r, kx, hrow[r]);
    if (ly == GROUP_Y - 1)
#pragma unroll
        for (int r = 0; r < RADIUS_Y; r++)
            hfilter_local(raw, tx, ty + BLOCK_Y + r, kx, hrow[RADIUS_Y + BLOCK_Y + r]);
#endif
}

/*
 * Phase (c), the shared-row exchange, in two halves with a barrier between them in the kernel
 * body. shared holds the published rows, top slots then bottom slots (SHARED_AT), TILE_W
 * columns per row, written and read as float4.
 */

/* First half: publish this block's first RADIUS_Y filtered rows (for the upper neighbour), its
 * last RADIUS_Y (for the lower one), and this work-item's share of the halo rows. */
TC_INLINE void publish_shared_rows(__local float4 *shared, int lx, int ly,
                                   float hrow[HROWS][BLOCK_X],
                                   float halo[HALO_PER_ITEM][BLOCK_X])
{
    __local float4 *top = shared;
    __local float4 *bottom = shared + EDGE_SIZE / 4;
    const int col4 = lx * (BLOCK_X / 4);
#pragma unroll
    for (int r = 0; r < RADIUS_Y; r++)
#pragma unroll
        for (int v = 0; v < BLOCK_X / 4; v++) {
            /* vload4 from the private rows, not a (float4)(a, b, c, d) literal: the same
             * code, but oclgrind reads the literal as a store of an undefined vector. */
            top[SHARED_AT(ly, r, col4 + v)] = vload4(v, hrow[RADIUS_Y + r]);
            bottom[SHARED_AT(ly + 1, r, col4 + v)] = vload4(v, hrow[BLOCK_Y + r]);
        }
#if TC_HALO_SPREAD
#pragma unroll
    for (int m = 0; m < HALO_PER_ITEM; m++) {
        const int k = ly + m * GROUP_Y;
        if (k < RADIUS_Y) /* above the tile: the bottom rows of a row of work-items at -1 */
#pragma unroll
            for (int v = 0; v < BLOCK_X / 4; v++)
                bottom[SHARED_AT(0, k, col4 + v)] = vload4(v, halo[m]);
        else if (k < HALO_ROWS) /* below it: the top rows of one at GROUP_Y */
#pragma unroll
            for (int v = 0; v < BLOCK_X / 4; v++)
                top[SHARED_AT(GROUP_Y, k - RADIUS_Y, col4 + v)] = vload4(v, halo[m]);
    }
#endif
}

/* Second half, once every block's rows are published: take the neighbours' rows into the
 * halo rows of hrow (without TC_HALO_SPREAD, all but the rows above of the group's top
 * work-items and the rows below of its bottom ones, which phase (a) or (b) filled). */
TC_INLINE void take_shared_rows(__local const float4 *shared, int lx, int ly,
                                float hrow[HROWS][BLOCK_X])
{
    __local const float4 *top = shared;
    __local const float4 *bottom = shared + EDGE_SIZE / 4;
    const int col4 = lx * (BLOCK_X / 4);
    if (TC_HALO_SPREAD || ly > 0) /* rows above: the upper neighbour's last RADIUS_Y rows */
#pragma unroll
        for (int r = 0; r < RADIUS_Y; r++)
#pragma unroll
            for (int v = 0; v < BLOCK_X / 4; v++) {
                const float4 q = bottom[SHARED_AT(ly, r, col4 + v)];
                hrow[r][4 * v] = q.x;
                hrow[r][4 * v + 1] = q.y;
                hrow[r][4 * v + 2] = q.z;
                hrow[r][4 * v + 3] = q.w;
            }
    if (TC_HALO_SPREAD || ly < GROUP_Y - 1) /* rows below: the lower neighbour's first rows */
#pragma unroll
        for (int r = 0; r < RADIUS_Y; r++)
#pragma unroll
            for (int v = 0; v < BLOCK_X / 4; v++) {
                const float4 q = top[SHARED_AT(ly + 1, r, col4 + v)];
                hrow[RADIUS_Y + BLOCK_Y + r][4 * v] = q.x;
                hrow[RADIUS_Y + BLOCK_Y + r][4 * v + 1] = q.y;
                hrow[RADIUS_Y + BLOCK_Y + r][4 * v + 2] = q.z;
                hrow[RADIUS_Y + BLOCK_Y + r][4 * v + 3] = q.w;
            }
}

/* Phase (d), the vertical pass, all in registers: out from the HROWS rows of hrow. */
TC_INLINE void vertical_pass(float hrow[HROWS][BLOCK_X], COEFFS ky,
                             float out[BLOCK_Y][BLOCK_X])
{
#pragma unroll
    for (int r = 0; r < BLOCK_Y; r++)
#pragma unroll
        for (int c = 0; c < BLOCK_X; c++) {
            float acc = 0.0f;
#if TC_STUDY_NO_MATH
            acc = hrow[r][c] + hrow[r + 2 * RADIUS_Y][c]; /* keep the shared rows alive */
#else
#pragma unroll
            for (int j = 0; j < TAPS_Y; j++)
                acc = fma(TAP(ky, j), hrow[r + j][c], acc);
#endif
            out[r][c] = acc;
        }
}

#if TC_VERTICAL_ACC
/*
 * TC_VERTICAL_ACC: phases (a), (c) and (d) with the vertical pass spread over them. Filtered
 * row j in hrow's numbering (0 .. HROWS - 1) adds ky[j - o] times itself to every output row o
 * with 0 <= j - o <= 2 * RADIUS_Y as soon as it has been filtered or taken, so one filtered row
 * is live at a time instead of HROWS.
 */
TC_INLINE void accumulate_row(int j, const float hs[BLOCK_X], COEFFS ky,
                              float out[BLOCK_Y][BLOCK_X])
{
#pragma unroll
    for (int o = 0; o < BLOCK_Y; o++)
        if (j - o >= 0 && j - o <= 2 * RADIUS_Y)
#pragma unroll
            for (int c = 0; c < BLOCK_X; c++)
#if TC_STUDY_NO_MATH
                out[o][c] += hs[c];
#else
                out[o][c] = fma(TAP(ky, j - o), hs[c], out[o][c]);
#endif
}

/* One filtered row into local memory at float4 index at. */
TC_INLINE void publish_row(__local float4 *at, const float hs[BLOCK_X])
{
#pragma unroll
    for (int v = 0; v < BLOCK_X / 4; v++)
        at[v] = vload4(v, hs);
}

/* Phases (a) and (c)'s first half together: the block's own rows, each filtered, published
 * when it is among the first or last RADIUS_Y and accumulated; then this work-item's share of
 * the halo rows, filtered and published. */
TC_INLINE void filter_publish_accumulate(SRC_T src, int pitch, int sL, int sT,
                                         int w, int h, float value, bool checked, int t,
                                         int lx, int bx, int by, int ly,
                                         COEFFS kx, COEFFS ky, __local float4 *shared,
                                         float out[BLOCK_Y][BLOCK_X])
{
    __local float4 *top = shared;
    __local float4 *bottom = shared + EDGE_SIZE / 4;
    const int col4 = lx * (BLOCK_X / 4);
    clear_block(out);
#pragma unroll
    for (int r = 0; r < BLOCK_Y; r++) {
        float hs[BLOCK_X];
        hfilter_global(src, pitch, sL, sT, bx, by + r, w, h, value, checked, kx, hs);
        if (r < RADIUS_Y)
            publish_row(top + SHARED_AT(ly, r, col4), hs);
        if (r >= BLOCK_Y - RADIUS_Y)
            publish_row(bottom + SHARED_AT(ly + 1, r - (BLOCK_Y - RADIUS_Y), col4), hs);
        accumulate_row(RADIUS_Y + r, hs, ky, out);
    }
#pragma unroll
    for (int m = 0; m < HALO_PER_ITEM; m++) {
        const int k = ly + m * GROUP_Y;
        if (k < HALO_ROWS) {
            float hs[BLOCK_X];
            hfilter_global(src, pitch, sL, sT, bx, halo_row(t, k), w, h, value, checked, kx,
                           hs);
            publish_row(k < RADIUS_Y ? bottom + SHARED_AT(0, k, col4)
                                   : top + SHARED_AT(GROUP_Y, k - RADIUS_Y, col4),
                        hs);
        }
    }
}

/* (c)'s second half and the rest of (d): the neighbours' rows, taken and accumulated. */
TC_INLINE void take_accumulate(__local const float4 *shared, int lx, int ly,
                               COEFFS ky, float out[BLOCK_Y][BLOCK_X])
{
    __local const float4 *top = shared;
    __local const float4 *bottom = shared + EDGE_SIZE / 4;
    const int col4 = lx * (BLOCK_X / 4);
#pragma unroll
    for (int r = 0; r < 2 * RADIUS_Y; r++) {
        float hs[BLOCK_X];
#pragma unroll
        for (int v = 0; v < BLOCK_X / 4; v++) {
            const float4 q = r < RADIUS_Y ? bottom[SHARED_AT(ly, r, col4 + v)]
                                        : top[SHARED_AT(ly + 1, r - RADIUS_Y, col4 + v)];
            hs[4 * v] = q.x;
            hs[4 * v + 1] = q.y;
            hs[4 * v + 2] = q.z;
            hs[4 * v + 3] = q.w;
        }
        accumulate_row(r < RADIUS_Y ? r : BLOCK_Y + r, hs, ky, out);
    }
}
#endif

/* Phase (e) of class 4 with TC_CLASS4_BROADCAST, the article's way: every work-item writes
 * its 16 pixels one by one, and a pixel outside the tROI is written instead to the tile's
 * first pixel inside it (corner), with that pixel's value (corner_value, broadcast through
 * local memory): the same value again, so no branch per pixel and no wrong value. */
TC_INLINE void store_block_broadcast(DST_T dst, int pitch, int tL, int tT, int w, int h, int bx,
                                     int by, DST_T corner, float corner_value,
                                     float out[BLOCK_Y][BLOCK_X])
{
    DST_T out_row = dst + (tT + by) * pitch + tL + bx;
#pragma unroll
    for (int r = 0; r < BLOCK_Y; r++)
#pragma unroll
        for (int c = 0; c < BLOCK_X; c++) {
            const bool inside = bx + c >= 0 && bx + c < w && by + r < h;
            *(inside ? out_row + r * pitch + c : corner) =
                DST_VALUE(inside ? out[r][c] : corner_value);
        }
}

/* out[0][c] for a run-time c < 4, without indexing a private array at run time (which would
 * move it to memory). */
static inline float pick4(const float row[BLOCK_X], int c)
{
    return c == 0 ? row[0] : c == 1 ? row[1] : c == 2 ? row[2] : row[3];
}

__kernel __attribute__((reqd_work_group_size(GROUP_X, GROUP_Y, 1)))
void tiled_conv(SRC_T src, DST_T dst, int pitch,
                int sL, int sT, int tL, int tT, int w, int h,
                __constant const float *kx, __constant const float *ky, float border_value,
                tc_values16 kx_values, tc_values16 ky_values CLASS_COUNTS_ARG)
{
    /* Declared as float4 so that the published rows can be written and read 16 bytes at a
     * time; TILE_W and every block's first column are multiples of 4. */
    __local float4 lmem4[(LOCAL_SIZE + 3) / 4];
#if TC_CLASS2_STAGE
    __local float *lmem = (__local float *)lmem4;
#endif
#if TC_CLASS4_BROADCAST
    __local float corner_value[1];
#endif

    /* The coefficients: with TC_COEFF_VALUES the by-value copies (kernel arguments, held in
     * the parameter constant bank, where a multiply-add can take them as operands), else the
     * __constant buffers. */
#if TC_COEFF_VALUES
    const COEFFS kxc = kx_values;
    const COEFFS kyc = ky_values;
#else
    COEFFS kxc = kx;
    COEFFS kyc = ky;
#endif

    const int lx = get_local_id(0), ly = get_local_id(1);
    const int ox = TC_VECTOR_IO ? tL & 3 : 0;         /* the tiles on the target's 4-grid */
    const int l = get_group_id(0) * TILE_W - ox; /* the tile's corner in ROI coordinates */
    const int t = get_group_id(1) * TILE_H;
    const int bx = l + lx * BLOCK_X; /* this work-item's block */
    const int by = t + ly * BLOCK_Y;

    /*
     * The article's classes. Both tests depend only on the group's position and the kernel's
     * arguments, never on the work-item, so every work-item of a group takes the same branch:
     * the barriers inside the branches below are reached by all work-items of the group or by
     * none, as OpenCL requires.
     *   class 1 (free on read):  the tile's neighbourhood, RADIUS_Y rows above and below and the
     *                            aprons beside it, lies inside the sROI: no checks;
     *   class 2 (otherwise):     some read would leave the sROI: each coordinate that may is
     *                            mapped into the sROI by the border rule (with
     *                            TC_CLASS2_STAGE the neighbourhood is staged in local memory
     *                            first, the article's way);
     *   class 3 (free on write): the whole tile lies inside the tROI: write without checks;
     *   class 4 (otherwise):     the tile reaches past the tROI's left, right or bottom edge:
     *                            guard the writes.
     */
    const bool free_on_read = tile_free_on_read(l, t, TILE_W, TILE_H, RADIUS_Y, w, h);
    const bool free_on_write = tile_free_on_write(l, t, TILE_W, TILE_H, w, h);
    COUNT_CLASSES(lx == 0 && ly == 0, free_on_read, free_on_write);

    float out[BLOCK_Y][BLOCK_X]; /* the block's results */
#if TC_VERTICAL_ACC
    /* (a) and (c) Rows filtered (class 1 unchecked, class 2 with coordinates mapped into the
     * sROI), published and accumulated into out. */
    if (free_on_read)
        filter_publish_accumulate(src, pitch, sL, sT, w, h, border_value, false, t, lx, bx, by,
                                  ly, kxc, kyc, lmem4, out);
    else
        filter_publish_accumulate(src, pitch, sL, sT, w, h, border_value, true, t, lx, bx, by,
                                  ly, kxc, kyc, lmem4, out);
    /* Every block's rows are published before any neighbour reads them. */
    barrier(CLK_LOCAL_MEM_FENCE);
    /* (c) and (d) The neighbours' rows, accumulated. */
    take_accumulate(lmem4, lx, ly, kyc, out);
#else
    /* hrow[RADIUS_Y + r] is row by + r filtered horizontally, for
     * -RADIUS_Y <= r < BLOCK_Y + RADIUS_Y; halo[m] is this work-item's share of the tile's halo
     * rows. */
    float hrow[HROWS][BLOCK_X];
    float halo[HALO_PER_ITEM][BLOCK_X];

    if (free_on_read) {
        /* Class 1: (a) rows filtered straight from global memory, unchecked. */
        filter_rows(src, pitch, sL, sT, w, h, border_value, false, t, bx, by, ly, kxc, hrow,
                    halo);
    } else {
#if TC_CLASS2_STAGE
        /* Class 2: (b) the neighbourhood staged in local memory, then filtered from there. */
        stage_neighbourhood(src, pitch, sL, sT, w, h, border_value, l - RADIUS_X, t - RADIUS_Y,
                            RAW_W, RAW_H, GROUP_X, GROUP_Y, lx, ly, lmem);
        /* The copy is complete before anyone filters from it. */
        barrier(CLK_LOCAL_MEM_FENCE);
        filter_rows_staged(lmem, lx, ly, kxc, hrow, halo);
        /* Everyone has finished reading raw pixels: the memory can now take the published
         * rows. Without this barrier a fast work-item could overwrite raw pixels that a slow
         * one has yet to read. */
        barrier(CLK_LOCAL_MEM_FENCE);
#else
        /* Class 2: (a) the same rows from global memory, every coordinate that may leave the
         * sROI mapped into it by the border rule. */
        filter_rows(src, pitch, sL, sT, w, h, border_value, true, t, bx, by, ly, kxc, hrow,
                    halo);
#endif
    }

    /* (c) The shared-row exchange, every class. */
    publish_shared_rows(lmem4, lx, ly, hrow, halo);
    /* Every block's rows are published before any neighbour reads them. */
    barrier(CLK_LOCAL_MEM_FENCE);
    take_shared_rows(lmem4, lx, ly, hrow);

    /* (d) The vertical pass. */
    vertical_pass(hrow, kyc, out);
#endif

    /* (e) The store: class 3 or 4. */
#if TC_CLASS4_BROADCAST
    if (!free_on_write) {
        /* The tile's first pixel inside the tROI, (max(l, 0), t), is in work-item (0, 0)'s
         * block, column c0: its value goes to every work-item through local memory. */
        const int c0 = l < 0 ? -l : 0;
        if (lx == 0 && ly == 0)
            corner_value[0] = pick4(out[0], c0);
        /* The value is there before anyone writes it. Reached by all or none: the class
         * depends on the group alone. */
        barrier(CLK_LOCAL_MEM_FENCE);
        store_block_broadcast(dst, pitch, tL, tT, w, h, bx, by,
                              dst + (tT + t) * pitch + tL + l + c0, corner_value[0], out);
        return;
    }
#endif
    store_block(dst, pitch, tL, tT, w, h, bx, by, free_on_write, out);
}
#endif /* TC_TILED_FITS */

/* A TC_IO_U8 build (Common.cl) is for tiled_conv alone. */
#if !TC_IO_U8

/* ------------------------------------------------------------------------------------------ */
/* one_pass_conv: the classic one-pass local-memory convolution                                */
/* ------------------------------------------------------------------------------------------ */

/* The body is Common.cl's one_pass, which one_pass_mask_conv shares. */
__kernel __attribute__((reqd_work_group_size(ONEPASS_GROUP, ONEPASS_GROUP, 1)))
void one_pass_conv(SRC_T src, __global float *dst, int pitch,
                   int sL, int sT, int tL, int tT, int w, int h,
                   __constant const float *kx, __constant const float *ky, float border_value)
{
    __local float raw[OP_RAW_H * OP_RAW_W];
    one_pass(src, dst, pitch, sL, sT, tL, tT, w, h, kx, ky, true, border_value, raw);
}

/* ------------------------------------------------------------------------------------------ */
/* rows_transposed_conv: one pass of the classic two-pass convolution                          */
/* ------------------------------------------------------------------------------------------ */

/* Buffers only: its two passes read a buffer each (an image build, TC_IMAGE, has no
 * twopass). */
#if !TC_IMAGE
#define TP TWOPASS_TILE
#define TP_RAW (TP + 2 * RADIUS_X)

/*
 * Filters the rows of a w x h region of src (starting at (sL, sT), row pitch src_pitch, reads
 * mapped into the region by the border rule) with k (TAPS_X taps: RADIUS_X) and writes the
 * result transposed: region pixel (x, y) lands at dst(tL + y, tT + x), row pitch dst_pitch.
 * Run twice - rows of the sROI into a temporary h x w buffer with kx, then rows of that buffer
 * (the original columns) into the tROI with ky, from a program built with ky's radius as
 * RADIUS_X - it computes the separable filter and restores the orientation. (With
 * BORDER_CONSTANT, pass 2's border_value is the constant filtered by kx, since its rows are
 * already filtered ones.)
 *
 * Work-item (lx, ly) of a TP x TP group filters region pixel (x0 + lx, y0 + ly). The group
 * stages TP rows of TP + 2r raw pixels and then its TP x TP results in local memory, so that
 * both the reads (along src rows) and the transposed writes (along dst rows) are coalesced.
 */
__kernel __attribute__((reqd_work_group_size(TP, TP, 1)))
void rows_transposed_conv(__global const float *src, int src_pitch, int sL, int sT,
                          __global float *dst, int dst_pitch, int tL, int tT, int w, int h,
                          __constant const float *k, float border_value)
{
    __local float raw[TP][TP_RAW];
    __local float result[TP][TP + 1]; /* + 1: the transposed reads hit distinct banks */

    const int lx = get_local_id(0), ly = get_local_id(1);
    const int x0 = get_group_id(0) * TP, y0 = get_group_id(1) * TP;
    const int y = min(y0 + ly, h - 1); /* rows past the region repeat its last row, unused */

    for (int i = lx; i < TP_RAW; i += TP)
        raw[ly][i] = read_bordered(src, src_pitch, sL, sT, x0 - RADIUS_X + i, y, w, h,
                                   border_value);
    /* The row segments are complete before anyone filters them. */
    barrier(CLK_LOCAL_MEM_FENCE);

    float acc = 0.0f;
#pragma unroll
    for (int i = 0; i < TAPS_X; i++)
        acc = fma(k[i], raw[ly][lx + i], acc);
    result[ly][lx] = acc;
    /* All results are in before they are read back transposed. */
    barrier(CLK_LOCAL_MEM_FENCE);

    /* Work-item (lx, ly) now writes region pixel (x0 + ly, y0 + lx): consecutive lx, consecutive
     * addresses along a dst row. */
    const int ox = x0 + ly, oy = y0 + lx;
    if (ox < w && oy < h)
        dst[(tT + ox) * dst_pitch + tL + oy] = result[lx][ly];
}
#endif /* !TC_IMAGE */
#endif /* !TC_IO_U8 */
