/*
 * Long.cl - the tiled convolution for separable filters beyond tiled_conv's reach (more than
 * 15 taps along either axis, up to 63, or none along columns), two kernels, one per program
 * (the -D options say which). Built after Common.cl, whose comment says what the coordinates
 * mean.
 *
 *   tiled_long_conv    a group filters a tile of 32 x 256 and its halo rows into local memory,
 *                      then its columns (built with LONG_TILE_W, LONG_TILE_H)
 *   tiled_slide_conv   a group walks down a strip of tiles, keeping the filtered rows the next
 *                      tile shares with this one (built with SLIDE_W, SLIDE_S, SLIDE_CW,
 *                      SLIDE_V): no halo row filtered twice but at a strip's start
 *   tiled_rows_conv    rows only: a group stages 32 rows of a tile in local memory, and each
 *                      work-item filters one row's ROWS_HV outputs (built with ROWS_HV); the
 *                      first pass of the split variant, whose second is tiled_long_conv with
 *                      one tap along rows
 *
 * Both keep the article's habits: raw pixels read straight from global memory through the L1
 * cache as aligned float4 windows, horizontally filtered rows shared in local memory, the four
 * classes of work-groups.
 */

/* Coefficient i (0 .. 63) of an axis passed as four tc_values16 (Common.cl); i is a constant
 * wherever this is used (every loop unrolls), so the choice and the component fold away. */
#define TAP64(k, i) value16((i) < 16 ? k##0 : (i) < 32 ? k##1 : (i) < 48 ? k##2 : k##3, \
                                    (i) & 15)

#if !defined(SLIDE_W) && !defined(ROWS_HV)

/*
 * tiled_long_conv. tiled_conv keeps a work-item's filtered rows in registers and trades the
 * rows its vertical neighbours need through local memory; at 31 taps a work-item would need
 * 8 + 30 filtered rows and 38-float read windows in registers, more than a work-item has. This
 * kernel moves the filtered rows into a local-memory window instead:
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
 * predicts the same (tiled_geometry.c's tc_tiled_classes).
 *
 * -D options besides Common.cl's: LONG_TILE_W (a power of two, a multiple of BLOCK_X),
 * LONG_TILE_H (the host lowers it where the device's local memory is small), LONG_GROUP (the
 * work-items of a group, 256 but for studies: --tune long-group) and LONG_UNROLL_LIMIT, from
 * src/config.h. On NVIDIA's compiler the host builds it under a register budget by the rows'
 * length (job_kernels.c, config.h's TC_LONG_BUDGETS), and so without its required group size
 * (Common.cl's TC_GROUP_SIZE) and with TC_REGISTER_BUDGET, which puts its coefficients in
 * constant operands at every length (below). Built with TC_IMAGE=1 (--storage image), it reads the
 * source plane from an image2d_t (Common.cl's SRC_T); with TC_IO_U8=1 it reads and writes a
 * gray image's bytes (Common.cl).
 */

#if !defined(LONG_TILE_W) || !defined(LONG_TILE_H) || !defined(LONG_GROUP) || \
    !defined(LONG_UNROLL_LIMIT)
#error "build Long.cl with the -D options that job_kernels.c passes"
#endif

#define L_GROUP LONG_GROUP                  /* work-items per group */
#define L_JPR (LONG_TILE_W / BLOCK_X)       /* jobs per filtered row */
#define L_GY (L_GROUP / L_JPR)              /* the group's rows of work-items */
#define L_HR (LONG_TILE_H + 2 * RADIUS_Y)   /* filtered rows in hrows */
#define L_VY (LONG_TILE_H * LONG_TILE_W / L_GROUP) /* outputs of a work-item, one column */

#if LONG_TILE_W % BLOCK_X != 0 || L_GROUP % LONG_TILE_W != 0 || \
    (LONG_TILE_W & (LONG_TILE_W - 1)) != 0 || (LONG_TILE_H * LONG_TILE_W) % L_GROUP != 0
#error "LONG_TILE_W must be a power of two dividing the group and a multiple of BLOCK_X, and a tile a multiple of the group's pixels"
#endif
#if SHIFT != 0
#error "tiled_long_conv's tiles sit on the source's 4-column grid: SHIFT is 0"
#endif

/* A window that crosses the sROI's left or right edge is read by load_segment_bordered (its
 * per-pixel mapping unrolled), or with TC_LONG_LEAN=1 (the long-lean variant) by
 * load_segment_lean (that mapping a loop kept rolled): less code, which moves the lengths at
 * which this kernel's time jumps by a third or more (from 23-25 taps along rows with the mirror
 * borders, 35 with replicate) to 37 and beyond; a little slower below them. Uncapped it held
 * bands of the defaults; under NVIDIA's register budget long is faster at every length, so it
 * is a study variant (docs/kernels.md, "The bands"). The same floats either way. */
#ifndef TC_LONG_LEAN
#define TC_LONG_LEAN 0
#endif

/* TC_LONG_PREFETCH 1 (the variant long-ahead): each work-item's next job's window is read
 * before its current job's multiply-adds, so that the loads are in flight while they run. A
 * window more of registers in phase (a), and other code: on the GPU machine 7-12 % faster than
 * long-lean from 23-25 to 31 taps along rows with the mirror borders (where long has jumped),
 * slower at most other lengths and borders; a study variant since the register budget
 * (docs/benchmarks.md). */
#ifndef TC_LONG_PREFETCH
#define TC_LONG_PREFETCH 0
#endif

/* TC_LONG_KX_VALUES, TC_LONG_KY_VALUES 1: that axis's coefficients from the by-value tc_values16
 * (kx0 .. kx3, ky0 .. ky3, zero-padded) copied into a private array, so that each unrolled
 * multiply-add can take its coefficient as a constant operand (a kernel argument sits in a
 * constant bank on GPUs); 0: from the __constant buffer kx or ky, whose base the program does
 * not know. The host passes both. Columns by value only where phase (b)'s loops unroll fully
 * (in chunks a tap's index depends on the chunk).
 * The default: both axes by value under a register budget (TC_REGISTER_BUDGET, which the host
 * passes with -cl-nv-maxrregcount), at every length, and without one while neither axis is
 * longer than LONG_KVALUES_MAX_TAPS. Uncapped, on one GPU machine
 * (bench/split/long-kvalues.cases) by value was 6-21 % faster from 17 to 35 taps, colour 31 taps
 * with reflect-101 33 %, but from 41 taps on either axis slower (47 taps 1.27x, 7 x 63 1.20x,
 * 1 x 63 1.08x); under a budget of 64 registers, on another, it was 0.76-0.82x the
 * time of the buffers' defaults then (80 or 96 registers) from 37 to 63 taps, 0.77-0.86x the
 * buffers' best budget (bench/split/long-values.cases; docs/benchmarks.md): the
 * buffers' coefficients are loads, or registers that the budget does not have. */
#define LONG_KVALUES_MAX_TAPS 35
#ifndef TC_REGISTER_BUDGET
#define TC_REGISTER_BUDGET 0
#endif
#define LONG_KVALUES_DEFAULT \
    (TC_REGISTER_BUDGET > 0 || (TAPS_X <= LONG_KVALUES_MAX_TAPS && TAPS_Y <= LONG_KVALUES_MAX_TAPS))
#ifndef TC_LONG_KX_VALUES
#define TC_LONG_KX_VALUES LONG_KVALUES_DEFAULT
#endif
#ifndef TC_LONG_KY_VALUES
#define TC_LONG_KY_VALUES LONG_KVALUES_DEFAULT
#endif
#if TC_LONG_KX_VALUES
#define LONG_KX_T const float *
#else
#define LONG_KX_T __constant const float *
#endif

/* The read window of a job of phase (a): BLOCK_X outputs of ROI row y from block column x.
 * checked (a constant at every call) says whether coordinates may leave the sROI. */
TC_INLINE void long_window(SRC_T src, int pitch, int sL, int sT, int w, int h, float value,
                           bool checked, int x, int y, float seg[SEG_W])
{
    if (checked && TC_LONG_LEAN)
        load_segment_lean(src, pitch, sL, sT, x, y, w, h, value, seg);
    else if (checked)
        load_segment_bordered(src, pitch, sL, sT, x, y, w, h, value, seg);
    else
        load_segment(src, pitch, sL + x, sT + y, seg);
}

/* A job's outputs from its window, into the filtered row at out (BLOCK_X floats of hrows,
 * 16-byte aligned). */
TC_INLINE void long_job_filter(const float seg[SEG_W], LONG_KX_T kx,
                               __local float *out)
{
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
                                LONG_KX_T kx, __local float *hrows)
{
    const int x = l + lx * BLOCK_X;
#if TC_LONG_PREFETCH
    float next[SEG_W];
    if (ly < L_HR)
        long_window(src, pitch, sL, sT, w, h, value, checked, x, t - RADIUS_Y + ly, next);
#pragma unroll 1
    for (int k = ly; k < L_HR; k += L_GY) {
        float seg[SEG_W];
#pragma unroll
        for (int i = 0; i < SEG_W; i++)
            seg[i] = next[i];
        if (k + L_GY < L_HR)
            long_window(src, pitch, sL, sT, w, h, value, checked, x, t - RADIUS_Y + k + L_GY,
                        next);
        long_job_filter(seg, kx, hrows + k * LONG_TILE_W + lx * BLOCK_X);
    }
#else
#pragma unroll 1
    for (int k = ly; k < L_HR; k += L_GY) {
        float seg[SEG_W];
        long_window(src, pitch, sL, sT, w, h, value, checked, x, t - RADIUS_Y + k, seg);
        long_job_filter(seg, kx, hrows + k * LONG_TILE_W + lx * BLOCK_X);
    }
#endif
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
#define LONG_KY_VALUES (TC_LONG_KY_VALUES && !TC_LONG_CHUNKED)
#if LONG_KY_VALUES
#define LONG_KY_T const float *
#else
#define LONG_KY_T __constant const float *
#endif

TC_INLINE void long_vertical(__local const float *column, LONG_KY_T ky,
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

__kernel TC_GROUP_SIZE(L_JPR, L_GY, 1)
void tiled_long_conv(SRC_T src, DST_T dst, int pitch,
                     int sL, int sT, int tL, int tT, int w, int h,
                     __constant const float *kx_buffer, __constant const float *ky_buffer,
                     float border_value, tc_values16 kx0, tc_values16 kx1, tc_values16 kx2, tc_values16 kx3,
                     tc_values16 ky0, tc_values16 ky1, tc_values16 ky2, tc_values16 ky3 CLASS_COUNTS_ARG)
{
#if TC_LONG_KX_VALUES
    float kx[TAPS_X];
#pragma unroll
    for (int i = 0; i < TAPS_X; i++)
        kx[i] = TAP64(kx, i);
#else
    __constant const float *kx = kx_buffer;
#endif
#if LONG_KY_VALUES
    float ky[TAPS_Y];
#pragma unroll
    for (int j = 0; j < TAPS_Y; j++)
        ky[j] = TAP64(ky, j);
#else
    __constant const float *ky = ky_buffer;
#endif
    /* float4, so that phase (a) can store a job's outputs 16 bytes at a time. */
    __local float4 hrows4[L_HR * LONG_TILE_W / 4];
    __local float *hrows = (__local float *)hrows4;

    const int lx = get_local_id(0), ly = get_local_id(1);
    const int ox = TC_VECTOR_IO ? sL & 3 : 0; /* the tiles on the source's 4-grid */
    const int l = get_group_id(0) * LONG_TILE_W - ox;
    const int t = get_group_id(1) * LONG_TILE_H;
    /* The classes depend on the group alone, so the barrier below, between two branches on
     * them, is reached by every work-item of a group or by none (as OpenCL requires). */
    const bool free_on_read = tile_free_on_read(l, t, LONG_TILE_W, LONG_TILE_H, RADIUS_Y, w, h);
    const bool free_on_write = tile_free_on_write(l, t, LONG_TILE_W, LONG_TILE_H, w, h);
    COUNT_CLASSES(lx == 0 && ly == 0, free_on_read, free_on_write);

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
    DST_T out_col = dst + (tT + t + r0) * pitch + tL + x;
    const bool column_inside = x >= 0 && x < w;
    /* (out_col is formed for columns left of the tROI too, never written through.) */
#pragma unroll
    for (int o = 0; o < L_VY; o++)
        if (free_on_write || (column_inside && t + r0 + o < h))
            out_col[o * pitch] = DST_VALUE(out[o]);
}

#endif /* !SLIDE_W && !ROWS_HV */

/* ------------------------------------------------------------------------------------------ */
/* tiled_slide_conv                                                                           */
/* ------------------------------------------------------------------------------------------ */

#if (defined(SLIDE_W) || defined(ROWS_HV)) && TC_IO_U8
#error "a TC_IO_U8 build (Common.cl) is for tiled_long_conv alone"
#endif

#ifdef SLIDE_W

/*
 * tiled_slide_conv. tiled_long_conv filters the 2 RADIUS_Y halo rows of every tile twice (once
 * for the tile above, once for its own), 1.24 times the rows at 63 taps, and its group does
 * nothing else while it waits for the tile's loads and its barrier. Here a group walks down a
 * strip of SLIDE_W columns, SLIDE_S rows (a tile) at a step, and keeps in local memory the
 * 2 RADIUS_Y filtered rows that the next tile shares with this one: only the first tile of a
 * strip filters rows above it (the host makes a strip about 16 radii tall, so that is a
 * few percent of the rows), and many groups of a few registers each share an SM, one
 * filtering while another loads.
 *
 * Ownership. Group (gx, gy) walks the strip of ROI columns l .. l + SLIDE_W - 1, l = gx *
 * SLIDE_W - ox (the tiles on the *source's* 4-column grid, ox = sL mod 4, so that every read
 * window is aligned: SHIFT 0), rows t0 = gy * strip_h to t0 + strip_h - 1 (a kernel argument,
 * a multiple of SLIDE_S; the last strip stops at the ROI's end). hrows holds 2 RADIUS_Y +
 * SLIDE_S filtered rows; before step k (the tile at t = t0 + k SLIDE_S), hrows row m is ROI
 * row t - RADIUS_Y + m for m < 2 RADIUS_Y. A step:
 *
 *   (a) the group filters ROI rows t + RADIUS_Y .. t + RADIUS_Y + SLIDE_S - 1 horizontally
 *       into hrows rows 2 RADIUS_Y ..: jobs of BLOCK_X outputs, each from one read window
 *       (Common.cl's load_segment), work-item lid taking job column lid mod SL_JPR of rows
 *       lid / SL_JPR, + SL_G / SL_JPR, ...; (at a strip's start, first the 2 RADIUS_Y rows
 *       above its first tile);
 *   (b) after a barrier, work-item lid filters the block of SLIDE_CW columns x SLIDE_V rows
 *       at column (lid mod (SLIDE_W / SLIDE_CW)) SLIDE_CW, row (lid / (SLIDE_W / SLIDE_CW))
 *       SLIDE_V of the tile vertically: each filtered value (a float, float2 or float4 of
 *       SLIDE_CW columns) read from local memory serves up to SLIDE_V multiply-adds a column,
 *       in registers, and (c) stores the block;
 *   (d) hrows rows SLIDE_S .. SLIDE_S + 2 RADIUS_Y - 1 (the next tile's rows above it) move to
 *       rows 0 .. 2 RADIUS_Y - 1: read into registers, a barrier, written (the next (a)
 *       writes other rows, and its barrier comes before anyone reads them).
 *
 * Two barriers a step, reached by every work-item of the group: the step count and the
 * classes depend on the group's position alone.
 *
 * Both passes' loops unroll fully, so every coefficient index is known when the program is
 * built: the coefficients come by value (four tc_values16 an axis, in a constant bank on a GPU),
 * each a constant operand of its multiply-adds rather than a load or a register. Each output
 * adds its taps in order (tap 0 first), as every other kernel does.
 *
 * Classes, per tile (the unit of a step): class 1 when the tile, RADIUS_Y rows above and below
 * it, and its windows' aprons lie inside the sROI - the rows step k reads - read unchecked;
 * class 2 maps rows and, at the sROI's left and right edges, columns by the border rule;
 * class 3 (the tile inside the tROI) stores unchecked, class 4 checks each store. A group
 * may change class as it walks: it counts its tiles (TC_COUNT_CLASSES), and the host's
 * tc_tiled_tiles lists the same tiles with the same tests.
 *
 * -D options besides Common.cl's (BLOCK_X the job's width, SHIFT 0): SLIDE_W, SLIDE_S,
 * SLIDE_CW (1, 2 or 4) and SLIDE_V, from a variant in variants.c's table, and TC_SLIDE_ACC
 * (below). Built with TC_IMAGE=1 (--storage image), it reads the source plane from
 * an image2d_t (Common.cl's SRC_T).
 */

#if !defined(SLIDE_S) || !defined(SLIDE_CW) || !defined(SLIDE_V)
#error "build tiled_slide_conv with the -D options that job_kernels.c passes"
#endif

/*
 * Two orders of the same multiply-adds in the vertical pass (TC_SLIDE_ACC): 0 (the default)
 * gathers, output by output, tap by tap, from the column's filtered values held in registers;
 * 1 accumulates, adding each value into every output it reaches as it is read
 * (tiled_long_conv's order), so that the outputs stay live instead of the values. Both add
 * each output's taps in order. The first compiles several times faster on PoCL; which one a
 * GPU's compiler schedules into fewer registers is for the measurements. (The horizontal pass
 * always gathers: accumulating there makes a loop nest whose inner bounds depend on the outer
 * index, which LLVM's full unroll refuses at some lengths, leaving the taps in an indexed
 * private array.)
 */
#ifndef TC_SLIDE_ACC
#define TC_SLIDE_ACC 0
#endif

#define SL_G (SLIDE_W * SLIDE_S / (SLIDE_CW * SLIDE_V)) /* work-items in a group */
#define SL_JPR (SLIDE_W / BLOCK_X)                      /* jobs a filtered row */
#define SL_SWEEP (SL_G / SL_JPR)                        /* rows the group's jobs cover at once */
#define SL_ROWS (2 * RADIUS_Y + SLIDE_S)                /* filtered rows in hrows */
#define SL_BPR (SLIDE_W / SLIDE_CW)                     /* vertical blocks a row of blocks */

#if SHIFT != 0
#error "tiled_slide_conv's tiles sit on the source's 4-column grid: SHIFT is 0"
#endif
#if SLIDE_W % BLOCK_X != 0 || (SL_JPR & (SL_JPR - 1)) != 0 || SLIDE_W % 4 != 0 || \
    SLIDE_S % SLIDE_V != 0 || SLIDE_W % SLIDE_CW != 0 || (SL_BPR & (SL_BPR - 1)) != 0 || \
    SL_G % SL_JPR != 0 || SLIDE_S % SL_SWEEP != 0 || \
    (SLIDE_CW != 1 && SLIDE_CW != 2 && SLIDE_CW != 4) || TAPS_X > 64 || TAPS_Y > 64
#error "tiled_slide_conv: strips a power of two of jobs and blocks wide, whole ones a step"
#endif


/* One job of (a): the BLOCK_X outputs of ROI row y from column x, into out (BLOCK_X floats
 * of hrows, 16-byte aligned). checked (a constant at both calls) says whether coordinates
 * may leave the sROI. */
TC_INLINE void slide_job(SRC_T src, int pitch, int sL, int sT, int w, int h, float value,
                         bool checked, int x, int y, const float kx[TAPS_X],
                         __local float *out)
{
    float seg[SEG_W];
    if (checked)
        load_segment_lean(src, pitch, sL, sT, x, y, w, h, value, seg);
    else
        load_segment(src, pitch, sL + x, sT + y, seg);
    float acc[BLOCK_X];
#pragma unroll
    for (int c = 0; c < BLOCK_X; c++)
        acc[c] = 0.0f;
#pragma unroll
    for (int c = 0; c < BLOCK_X; c++)
#pragma unroll
        for (int i = 0; i < TAPS_X; i++)
            acc[c] = fma(kx[i], seg[c + i], acc[c]);
#pragma unroll
    for (int v = 0; v < BLOCK_X / 4; v++)
        ((__local float4 *)out)[v] = vload4(v, acc);
}

/* (a) for this work-item: ROI rows y0 .. y0 + count - 1 into hrows rows row0 .., its jobs
 * those of job column lid mod SL_JPR. A loop, not unrolled: a job is already TAPS_X x BLOCK_X
 * multiply-adds of code. */
TC_INLINE void slide_rows(SRC_T src, int pitch, int sL, int sT, int w, int h, float value,
                          bool checked, int l, int y0, int row0, int count, uint lid,
                          const float kx[TAPS_X], __local float *hrows)
{
    const int jc = (int)(lid & (SL_JPR - 1));
#pragma unroll 1
    for (int r = (int)(lid / SL_JPR); r < count; r += SL_SWEEP)
        slide_job(src, pitch, sL, sT, w, h, value, checked, l + jc * BLOCK_X, y0 + r, kx,
                  hrows + (row0 + r) * SLIDE_W + jc * BLOCK_X);
}

/* SLIDE_CW neighbouring filtered values of one row, as one local-memory read. */
TC_INLINE void slide_load_cols(__local const float *p, float v[SLIDE_CW])
{
#if SLIDE_CW == 4
    const float4 q = *(__local const float4 *)p;
    v[0] = q.x;
    v[1] = q.y;
    v[2] = q.z;
    v[3] = q.w;
#elif SLIDE_CW == 2
    const float2 q = *(__local const float2 *)p;
    v[0] = q.x;
    v[1] = q.y;
#else
    v[0] = p[0];
#endif
}

/*
 * (b): out[o][c] = sum_j ky[j] x (column c's filtered row o + j), from the block's SLIDE_V +
 * 2 RADIUS_Y filtered rows, each read from local memory once (SLIDE_CW columns at a time) and
 * used by up to SLIDE_V outputs a column in registers (TC_SLIDE_ACC picks the order).
 */
TC_INLINE void slide_vertical(__local const float *block, const float ky[TAPS_Y],
                              float out[SLIDE_V][SLIDE_CW])
{
#pragma unroll
    for (int o = 0; o < SLIDE_V; o++)
#pragma unroll
        for (int c = 0; c < SLIDE_CW; c++)
            out[o][c] = 0.0f;
#if !TC_SLIDE_ACC
    float col[SLIDE_V + 2 * RADIUS_Y][SLIDE_CW];
#pragma unroll
    for (int s = 0; s < SLIDE_V + 2 * RADIUS_Y; s++)
        slide_load_cols(block + s * SLIDE_W, col[s]);
#pragma unroll
    for (int o = 0; o < SLIDE_V; o++)
#pragma unroll
        for (int j = 0; j < TAPS_Y; j++)
#pragma unroll
            for (int c = 0; c < SLIDE_CW; c++)
                out[o][c] = fma(ky[j], col[o + j][c], out[o][c]);
#else
#pragma unroll
    for (int s = 0; s < SLIDE_V + 2 * RADIUS_Y; s++) {
        float v[SLIDE_CW];
        slide_load_cols(block + s * SLIDE_W, v);
#pragma unroll
        for (int o = 0; o < SLIDE_V; o++)
            if (s - o >= 0 && s - o < TAPS_Y)
#pragma unroll
                for (int c = 0; c < SLIDE_CW; c++)
                    out[o][c] = fma(ky[s - o], v[c], out[o][c]);
    }
#endif
}

/* (c): the block at ROI (x, y). Class 3 stores unchecked, SLIDE_CW floats at once where the
 * target's columns are aligned to it; class 4 only the pixels inside the tROI. */
TC_INLINE void slide_store(__global float *dst, int pitch, int tL, int tT, int w, int h, int x,
                           int y, bool free_on_write, bool aligned,
                           float out[SLIDE_V][SLIDE_CW])
{
    __global float *p = dst + (tT + y) * pitch + tL + x;
    /* (p is formed for blocks left of the tROI too, never written through.) */
#pragma unroll
    for (int o = 0; o < SLIDE_V; o++) {
        __global float *row = p + o * pitch;
        if (free_on_write && aligned) {
#if SLIDE_CW == 4
            *(__global float4 *)row = (float4)(out[o][0], out[o][1], out[o][2], out[o][3]);
#elif SLIDE_CW == 2
            *(__global float2 *)row = (float2)(out[o][0], out[o][1]);
#else
            row[0] = out[o][0];
#endif
        } else if (free_on_write) {
#pragma unroll
            for (int c = 0; c < SLIDE_CW; c++)
                row[c] = out[o][c];
        } else if (y + o < h) {
#pragma unroll
            for (int c = 0; c < SLIDE_CW; c++)
                if (x + c >= 0 && x + c < w)
                    row[c] = out[o][c];
        }
    }
}

__kernel TC_GROUP_SIZE(SL_G, 1, 1)
void tiled_slide_conv(SRC_T src, __global float *dst, int pitch,
                      int sL, int sT, int tL, int tT, int w, int h,
                      tc_values16 kx0, tc_values16 kx1, tc_values16 kx2, tc_values16 kx3,
                      tc_values16 ky0, tc_values16 ky1, tc_values16 ky2, tc_values16 ky3,
                      float border_value, int strip_h CLASS_COUNTS_ARG)
{
    /* float4, so that (a) stores a job's outputs and (d) moves rows 16 bytes at a time. */
    __local float4 hrows4[SL_ROWS * SLIDE_W / 4];
    __local float *hrows = (__local float *)hrows4;

    const uint lid = get_local_id(0);
    const int ox = TC_VECTOR_IO ? sL & 3 : 0; /* the tiles on the source's 4-grid */
    const int l = get_group_id(0) * SLIDE_W - ox;
    const int t0 = get_group_id(1) * strip_h;
    const int rows = min(strip_h, h - t0);
    const int steps = (rows + SLIDE_S - 1) / SLIDE_S;
    /* The strip's columns, for every tile's class test. */
    const bool inside_x = l >= APRON_L && l + SLIDE_W + APRON_R <= w;
    const bool write_x = l >= 0 && l + SLIDE_W <= w;
    /* The target's columns aligned to a vertical block (float4 or float2 stores). */
    const bool aligned = TC_VECTOR_IO && ((tL - ox) & (SLIDE_CW - 1)) == 0;
    const int bx = (int)(lid & (SL_BPR - 1)) * SLIDE_CW; /* this work-item's block in a tile */
    const int by = (int)(lid / SL_BPR) * SLIDE_V;
    /* The coefficients as arrays: every index below is a constant once the loops unroll, so
     * each element is its argument's component (one selection per tap, not per use). */
    float kx[TAPS_X], ky[TAPS_Y];
#pragma unroll
    for (int i = 0; i < TAPS_X; i++)
        kx[i] = TAP64(kx, i);
#pragma unroll
    for (int j = 0; j < TAPS_Y; j++)
        ky[j] = TAP64(ky, j);

    /* Step -1 (with a vertical radius) filters the 2 RADIUS_Y rows above the strip's first
     * tile, under that tile's class; then each step a tile. One call of (a) per class, so
     * that its code is in the program twice, not four times. */
#pragma unroll 1
    for (int k = RADIUS_Y > 0 ? -1 : 0; k < steps; k++) {
        const int t = t0 + max(k, 0) * SLIDE_S;
        /* The article's classes of this tile, from the group's position and k alone. */
        const bool free_on_read = inside_x && t >= RADIUS_Y && t + SLIDE_S + RADIUS_Y <= h;
        const bool free_on_write = write_x && t + SLIDE_S <= h;
        COUNT_CLASSES(lid == 0 && k >= 0, free_on_read, free_on_write);
        /* (a) The tile's new rows (or the rows above the first tile), filtered horizontally. */
        const int y0 = k < 0 ? t0 - RADIUS_Y : t + RADIUS_Y;
        const int row0 = k < 0 ? 0 : 2 * RADIUS_Y;
        const int count = k < 0 ? 2 * RADIUS_Y : SLIDE_S;
        if (free_on_read)
            slide_rows(src, pitch, sL, sT, w, h, border_value, false, l, y0, row0, count, lid,
                       kx, hrows);
        else
            slide_rows(src, pitch, sL, sT, w, h, border_value, true, l, y0, row0, count, lid,
                       kx, hrows);
        if (k < 0)
            continue; /* the first tile's rows join these before the barrier */
        /* Every filtered row of the tile is in hrows before anyone filters a column. */
        barrier(CLK_LOCAL_MEM_FENCE);

        /* (b) and (c): this work-item's block, filtered vertically and stored. */
        float out[SLIDE_V][SLIDE_CW];
        slide_vertical(hrows + by * SLIDE_W + bx, ky, out);
        slide_store(dst, pitch, tL, tT, w, h, l + bx, t + by, free_on_write, aligned, out);

#if RADIUS_Y > 0
        /* (d) The next tile's rows above it to the front of hrows. */
        if (k + 1 < steps) {
#define SL_CARRY (2 * RADIUS_Y * SLIDE_W / 4)        /* float4s moved */
#define SL_CARRY_ITEM ((SL_CARRY + SL_G - 1) / SL_G) /* at most, per work-item */
            float4 carry[SL_CARRY_ITEM];
#pragma unroll
            for (int i = 0; i < SL_CARRY_ITEM; i++)
                if (lid + i * SL_G < SL_CARRY)
                    carry[i] = hrows4[SLIDE_S * SLIDE_W / 4 + lid + i * SL_G];
            /* Every read of this tile's rows (b, and the line above) is done before any is
             * overwritten. */
            barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
            for (int i = 0; i < SL_CARRY_ITEM; i++)
                if (lid + i * SL_G < SL_CARRY)
                    hrows4[lid + i * SL_G] = carry[i];
        }
#else
        /* No rows carried: the next (a) overwrites this tile's rows once all are read. */
        if (k + 1 < steps)
            barrier(CLK_LOCAL_MEM_FENCE);
#endif
    }
}

#endif /* SLIDE_W */

/* ------------------------------------------------------------------------------------------ */
/* tiled_rows_conv                                                                            */
/* ------------------------------------------------------------------------------------------ */

#ifdef ROWS_HV

/*
 * tiled_rows_conv. tiled_long_conv's phase (a) reads each job's window from global memory
 * through the L1, 8 outputs a window (16 in long-wide), and runs its multiply-adds at under a third of a
 * GPU's peak at 63 taps (docs/benchmarks.md, "Each axis on its own"). Here a group stages 32
 * rows of its tile in local memory and each work-item filters one of those rows: the 32
 * work-items of a wavefront read 32 rows at once (an odd pitch puts them in 32 banks), each
 * value read once serving up to ROWS_HV multiply-adds in registers. It filters rows only (no
 * RADIUS_Y): alone for filters of one tap along columns, or as the first pass of the split
 * variant, into a plane that tiled_long_conv then filters along columns.
 *
 * Ownership. Group (gx, gy) produces the tile of R_TW x 32 pixels at ROI (l, t) = (gx R_TW, gy
 * 32). Work-item (lane, wp) (lane 0..31, wp 0..7) stages window columns lane + 32 wp, + 256,
 * ... of the tile's 32 rows, each column's 32 loads in flight before the first is stored (the
 * loads issued one after another took twice as long), then filters row lane's ROWS_HV outputs
 * from column wp ROWS_HV, and the group stores the tile through local memory again, so that
 * consecutive work-items store consecutive pixels of a row.
 *
 * Classes, as the other tiled kernels': class 1 when the tile and its RADIUS_X columns a side
 * lie inside the sROI (read unchecked), class 2 maps each coordinate by the border rule;
 * class 3 when the tile lies inside the tROI (stored unchecked), class 4 checks each store.
 * The host predicts the same (tiled_geometry.c). Each output adds its taps in order (tap 0
 * first) from 0, as tiled_long_conv's phase (a) does: the same floats, bit for bit.
 *
 * -D options besides Common.cl's: ROWS_HV (outputs a work-item; the tile is 8 ROWS_HV wide).
 * The coefficients come by value, four tc_values16 (TAP64), and the one tap along columns as
 * ky0. Built with TC_IMAGE=1 (--storage
 * image), it reads the source plane from an image2d_t (Common.cl's SRC_T).
 */
#define R_TH 32                       /* rows of a tile */
#define R_TW (8 * ROWS_HV)            /* columns of a tile */
#define R_RAW (R_TW + 2 * RADIUS_X)   /* window columns a row */
#define R_P (R_RAW + 1)               /* local pitch: odd, 32 rows read at once in 32 banks */
#define R_SWEEPS ((R_RAW + 255) / 256) /* window columns a work-item stages */

/* The order of phase (b)'s multiply-adds, both adding each output's taps in order from tap 0
 * (the same floats): 1 accumulates each value into the outputs it reaches as it is read (the
 * host's choice on NVIDIA, where the figures of docs/benchmarks.md were measured with it), 0
 * gathers each output from the window held in registers (elsewhere: LLVM's full unroll, on
 * PoCL and oclgrind, refuses the accumulating nest at some radii and warns). */
#ifndef TC_ROWS_ACC
#define TC_ROWS_ACC 0
#endif

#if RADIUS_Y != 0 || (R_TW & 1) != 0 || TAPS_X > 64
#error "tiled_rows_conv filters rows only, up to 63 taps, tiles of an even width"
#endif

__kernel TC_GROUP_SIZE(32, 8, 1)
void tiled_rows_conv(SRC_T src, __global float *dst, int pitch,
                     int sL, int sT, int tL, int tT, int w, int h,
                     tc_values16 kx0, tc_values16 kx1, tc_values16 kx2, tc_values16 kx3, float ky0,
                     float border_value CLASS_COUNTS_ARG)
{
    __local float raw[R_TH * R_P];
    const int lane = get_local_id(0), wp = get_local_id(1), lid = wp * 32 + lane;
    const int l = get_group_id(0) * R_TW, t = get_group_id(1) * R_TH;
    /* The classes depend on the group alone: the barriers below are reached by all of it. */
    const bool free_on_read = l >= RADIUS_X && l + R_TW + RADIUS_X <= w && t + R_TH <= h;
    const bool free_on_write = l + R_TW <= w && t + R_TH <= h;
    COUNT_CLASSES(lid == 0, free_on_read, free_on_write);
    float kx[TAPS_X];
#pragma unroll
    for (int i = 0; i < TAPS_X; i++)
        kx[i] = TAP64(kx, i);

    /* (a) The window: ROI columns l - RADIUS_X .. l + R_TW + RADIUS_X - 1 of rows t .. t + 31
     * (rows past the ROI read as the border rule says and are never stored). */
#pragma unroll
    for (int q = 0; q < R_SWEEPS; q++) {
        const int c = lid + 256 * q;
        if (c < R_RAW) {
            const int x = l - RADIUS_X + c;
            float v[R_TH];
            if (free_on_read) {
#pragma unroll
                for (int r = 0; r < R_TH; r++)
                    v[r] = SRC_AT(src, pitch, sL + x, sT + t + r);
            } else {
#pragma unroll
                for (int r = 0; r < R_TH; r++)
                    v[r] = read_bordered(src, pitch, sL, sT, x, t + r, w, h, border_value);
            }
#pragma unroll
            for (int r = 0; r < R_TH; r++)
                raw[r * R_P + c] = v[r];
        }
    }
    /* Every staged pixel is in before anyone filters. */
    barrier(CLK_LOCAL_MEM_FENCE);

    /* (b) Row lane's outputs wp ROWS_HV .. + ROWS_HV - 1, from its window of ROWS_HV + 2
     * RADIUS_X values read once (TC_ROWS_ACC picks the order of the same multiply-adds). */
    float out[ROWS_HV];
#pragma unroll
    for (int o = 0; o < ROWS_HV; o++)
        out[o] = 0.0f;
    __local const float *row = raw + lane * R_P + wp * ROWS_HV;
#if TC_ROWS_ACC
    /* Each value added into every output it reaches as it is read (tap s - o of output o). */
#pragma unroll
    for (int s = 0; s < ROWS_HV + 2 * RADIUS_X; s++) {
        const float v = row[s];
#pragma unroll
        for (int o = 0; o < ROWS_HV; o++)
            if (s - o >= 0 && s - o < TAPS_X)
                out[o] = fma(kx[s - o], v, out[o]);
    }
#else
    /* The window in registers, then output by output, tap by tap: fixed bounds, which LLVM's
     * full unroll takes at every length (the order above it refuses at some radii, leaving
     * the taps in an indexed array on PoCL). */
    float win[ROWS_HV + 2 * RADIUS_X];
#pragma unroll
    for (int s = 0; s < ROWS_HV + 2 * RADIUS_X; s++)
        win[s] = row[s];
#pragma unroll
    for (int o = 0; o < ROWS_HV; o++)
#pragma unroll
        for (int i = 0; i < TAPS_X; i++)
            out[o] = fma(kx[i], win[o + i], out[o]);
#endif
    /* Every read of the window is done before it is overwritten with the outputs, each
     * weighed by the column filter's one tap (one rounding, as tiled_long_conv's column pass
     * does it: fma(ky0, v, 0); 1 in the split variant's first pass). */
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int o = 0; o < ROWS_HV; o++)
        raw[lane * R_P + wp * ROWS_HV + o] = ky0 * out[o];
    barrier(CLK_LOCAL_MEM_FENCE);

    /* (c) The store, row by row, consecutive work-items on consecutive pixels: class 3
     * unchecked, class 4 only inside the tROI. */
    for (int r = 0; r < R_TH; r++) {
        const int y = t + r;
#pragma unroll
        for (int q = 0; q < (R_TW + 255) / 256; q++) {
            const int c = lid + 256 * q;
            if (c < R_TW && (free_on_write || (l + c < w && y < h)))
                dst[(tT + y) * pitch + tL + l + c] = raw[r * R_P + c];
        }
    }
}

#endif /* ROWS_HV */
