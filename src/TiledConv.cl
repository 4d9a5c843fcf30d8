/*
 * TiledConv.cl - separable convolution of a float plane, from a source ROI (sROI) into a target
 * ROI (tROI) of the same size, three ways:
 *
 *   tiled_conv            the article's tiled convolution (8 x 8 work-items, 4 x 4 pixels each)
 *   one_pass_conv         the classic one-pass local-memory convolution (16 x 16, one pixel each)
 *   rows_transposed_conv  one pass of the classic two-pass convolution (filter rows, transpose)
 *
 * Everything is in ROI coordinates: (x, y) with 0 <= x < w, 0 <= y < h is the pixel at
 * (sL + x, sT + y) of the source and (tL + x, tT + y) of the target. A read outside the sROI
 * is mapped back into it by the border rule (BORDER, below; by default the nearest sROI pixel,
 * each coordinate clamped to the sROI's edge), so no pixel outside the sROI is ever read; no
 * pixel outside the tROI is ever written.
 *
 * The geometry comes from the host as -D options, from src/config.h, so host and kernels cannot
 * disagree: RADIUS, GROUP_X, GROUP_Y, BLOCK_X, BLOCK_Y, ONEPASS_GROUP, TWOPASS_TILE.
 * The coefficients kx (along rows) and ky (along columns) are __constant arguments: every
 * work-item reads the same one at the same time, which is what the constant cache serves best.
 */

#if !defined(RADIUS) || !defined(GROUP_X) || !defined(GROUP_Y) || !defined(BLOCK_X) || \
    !defined(BLOCK_Y) || !defined(ONEPASS_GROUP) || !defined(TWOPASS_TILE) || !defined(BORDER)
#error "build TiledConv.cl with the -D options that launch.c passes"
#endif

#define TAPS (2 * RADIUS + 1)

/* The helpers that hold a kernel's phases (stage_neighbourhood, tiled_conv's phases) are
 * functions for the reader only: they must compile as if their code were written in the
 * kernel, the private arrays they take (hrow, out) kept in registers and every loop unrolled.
 * That needs every call inlined, which plain inline leaves to the compiler's cost model:
 * PoCL's declines functions this large and keeps them as calls, the arrays in memory. */
#define TC_INLINE inline __attribute__((always_inline))

/* ------------------------------------------------------------------------------------------ */
/* Border rules (filter.h's tc_border, OpenCV's meanings), chosen at build time            */
/* ------------------------------------------------------------------------------------------ */

#define BORDER_REPLICATE 0  /* aaa|abcd|ddd */
#define BORDER_CONSTANT 1   /* vvv|abcd|vvv */
#define BORDER_REFLECT101 2 /* dcb|abcd|cba */
#define BORDER_REFLECT 3    /* cba|abcd|dcb */
#define BORDER_WRAP 4       /* bcd|abcd|abc */

/* Maps coordinate p into 0 .. n - 1 (n >= 1) by the border rule, as OpenCV's
 * borderInterpolate does; -1 for BORDER_CONSTANT outside. A radius larger than the ROI can
 * reflect more than once, hence the loop. */
inline int border_index(int p, int n)
{
    if (p >= 0 && p < n)
        return p;
#if BORDER == BORDER_REPLICATE
    return clamp(p, 0, n - 1);
#elif BORDER == BORDER_CONSTANT
    return -1;
#elif BORDER == BORDER_REFLECT101 || BORDER == BORDER_REFLECT
    const int delta = BORDER == BORDER_REFLECT101;
    if (n == 1)
        return 0;
    do
        p = p < 0 ? -p - 1 + delta : 2 * n - 1 - p - delta;
    while (p < 0 || p >= n);
    return p;
#elif BORDER == BORDER_WRAP
    p %= n;
    return p < 0 ? p + n : p;
#else
#error "unknown BORDER"
#endif
}

/* The sROI pixel for ROI coordinate (x, y), either or both possibly outside: the border rule's
 * pixel, or value for BORDER_CONSTANT. Only these reads may start outside the sROI. */
inline float read_bordered(__global const float *src, int pitch, int sL, int sT, int x, int y,
                           int w, int h, float value)
{
    const int bx = border_index(x, w), by = border_index(y, h);
    if (BORDER == BORDER_CONSTANT && (bx < 0 || by < 0))
        return value;
    return src[(sT + by) * pitch + sL + bx];
}

/* ------------------------------------------------------------------------------------------ */
/* Staging a neighbourhood in local memory (tiled_conv's class 2, one_pass_conv)               */
/* ------------------------------------------------------------------------------------------ */

/*
 * Copies the raw_h x raw_w window of ROI pixels whose top-left is (x0, y0) into raw, row by
 * row (raw[y * raw_w + x] is ROI pixel (x0 + x, y0 + y)), each coordinate mapped into the sROI
 * by the border rule: the window may start left of or above the sROI and reach past it.
 *
 * The group, stride_x x stride_y work-items, shares the copy: work-item (lx, ly) copies the
 * pixels of the window whose row is ly modulo stride_y and whose column is lx modulo stride_x,
 * so consecutive work-items read consecutive pixels of a row and the reads stay coalesced.
 * (Two loops rather than one index split by / and %: no division, and oclgrind's
 * uninitialised-value checker cannot follow the "freeze" LLVM emits for a paired / and %.)
 * Both callers pass the window's shape and the stride as compile-time constants.
 *
 * No barrier here: each caller puts its own right after the call, in the kernel body, where
 * it can be seen to be reached by the whole group.
 */
TC_INLINE void stage_neighbourhood(__global const float *src, int pitch, int sL, int sT, int w,
                                   int h, float border_value, int x0, int y0, int raw_w,
                                   int raw_h, int stride_x, int stride_y, int lx, int ly,
                                   __local float *raw)
{
    for (int y = ly; y < raw_h; y += stride_y)
        for (int x = lx; x < raw_w; x += stride_x)
            raw[y * raw_w + x] = read_bordered(src, pitch, sL, sT, x0 + x, y0 + y, w, h,
                                               border_value);
}

/* ------------------------------------------------------------------------------------------ */
/* tiled_conv: the article's algorithm                                                         */
/* ------------------------------------------------------------------------------------------ */

/*
 * Ownership. A work-group of GROUP_X x GROUP_Y work-items produces one tile of
 * TILE_W x TILE_H output pixels (32 x 32 with the article's 8 x 8 groups of 4 x 4 blocks).
 * Work-item (lx, ly) of the group whose tile starts at (l, t) owns the block of
 * BLOCK_X x BLOCK_Y pixels starting at (l + lx * BLOCK_X, t + ly * BLOCK_Y).
 *
 * To filter its block vertically a work-item needs the horizontally filtered rows of its block
 * plus RADIUS rows above and RADIUS below. It filters its own rows horizontally, in registers;
 * the rows above are the last RADIUS rows of its upper neighbour's block, the rows below the
 * first RADIUS rows of its lower neighbour's: every work-item publishes those two sets in local
 * memory and takes its neighbours' from there. Only the top and bottom work-items of a group,
 * whose neighbours are in other groups, filter their extra RADIUS rows themselves.
 * This needs RADIUS <= BLOCK_Y: the host raises BLOCK_Y to the radius where it is smaller.
 */
#define TILE_W (GROUP_X * BLOCK_X)
#define TILE_H (GROUP_Y * BLOCK_Y)
#define HROWS (BLOCK_Y + 2 * RADIUS) /* horizontally filtered rows a work-item needs */
#define SEG_W (BLOCK_X + 2 * RADIUS) /* raw pixels in one row segment of a block */

/* Class 2's copy of the tile's neighbourhood: (TILE_H + 2r) x (TILE_W + 2r) raw pixels. */
#define RAW_W (TILE_W + 2 * RADIUS)
#define RAW_H (TILE_H + 2 * RADIUS)
#define RAW_SIZE (RAW_W * RAW_H)

/* The published rows: for each row of work-items, RADIUS rows of TILE_W values at the top of
 * their blocks and RADIUS at the bottom. */
#define EDGE_SIZE (GROUP_Y * RADIUS * TILE_W)
#define SHARED_SIZE (2 * EDGE_SIZE)

/* Class 2 groups reuse the raw copy's memory for the published rows once nobody reads raw
 * pixels any more, so one allocation of the larger size serves both. */
#define LOCAL_SIZE (RAW_SIZE > SHARED_SIZE ? RAW_SIZE : SHARED_SIZE)

/* One row segment filtered horizontally: the BLOCK_X outputs from SEG_W inputs. */
inline void filter_segment(const float seg[SEG_W], __constant const float *kx,
                           float out[BLOCK_X])
{
#pragma unroll
    for (int c = 0; c < BLOCK_X; c++) {
        float acc = 0.0f;
#pragma unroll
        for (int i = 0; i < TAPS; i++)
            acc = fma(kx[i], seg[c + i], acc);
        out[c] = acc;
    }
}

/* Whole float4 loads and stores where the addresses allow them (TC_VECTOR_IO=0 turns them off,
 * for measuring what they bring). A block's columns start at a multiple of BLOCK_X, itself a
 * multiple of 4, so a row of the block is 16-byte aligned exactly when the ROI's left edge and
 * the row pitch are multiples of 4: a test on kernel arguments, the same for every work-item. */
#ifndef TC_VECTOR_IO
#define TC_VECTOR_IO 1
#endif
#if BLOCK_X % 4 != 0
#error "BLOCK_X must be a multiple of 4"
#endif
#if RADIUS > BLOCK_Y
#error "the rows shared between vertical neighbours must cover the radius: BLOCK_Y >= RADIUS"
#endif

/* With a radius of 2 to 4, the horizontal halo of an aligned row segment is read as one float4
 * on each side, which reaches 4 pixels out whatever the radius: the apron that class 1 must
 * have inside the sROI is then 4 columns, not RADIUS (launch.c's tc_tiled_classes agrees). */
#if TC_VECTOR_IO && RADIUS >= 2 && RADIUS <= 4
#define HALO_VEC 1
#else
#define HALO_VEC 0
#endif

/* Class 1: the segment of ROI row y starting at ROI column x - RADIUS, straight from global
 * memory. No check: the group's class guarantees that all of it lies inside the sROI, and the
 * blocks of neighbouring work-items overlap their segments, which the L1 cache shares. */
inline void hfilter_global(__global const float *src, int pitch, int sL, int sT, int x, int y,
                           bool aligned, __constant const float *kx, float out[BLOCK_X])
{
    __global const float *row = src + (sT + y) * pitch + (sL + x);
    float seg[SEG_W];
    if (TC_VECTOR_IO && aligned) {
        __global const float4 *row4 = (__global const float4 *)row;
        /* A cast, not vload4: vload4 promises only 4-byte alignment, so a compiler may split
         * it; the pointer type tells it the 16 bytes are aligned, as tested. */
#pragma unroll
        for (int v = 0; v < BLOCK_X / 4; v++) {
            const float4 q = row4[v];
            seg[RADIUS + 4 * v + 0] = q.x;
            seg[RADIUS + 4 * v + 1] = q.y;
            seg[RADIUS + 4 * v + 2] = q.z;
            seg[RADIUS + 4 * v + 3] = q.w;
        }
#if HALO_VEC
        /* The halo as the float4 on each side (see HALO_VEC): two wide loads instead of
         * 2 * RADIUS narrow ones. */
        const float4 left = row4[-1], right = row4[BLOCK_X / 4];
        const float lv[4] = {left.x, left.y, left.z, left.w};
        const float rv[4] = {right.x, right.y, right.z, right.w};
#pragma unroll
        for (int i = 0; i < RADIUS; i++) {
            seg[i] = lv[4 - RADIUS + i];
            seg[RADIUS + BLOCK_X + i] = rv[i];
        }
#else
#pragma unroll
        for (int i = 0; i < RADIUS; i++) {
            seg[i] = row[i - RADIUS];
            seg[RADIUS + BLOCK_X + i] = row[BLOCK_X + i];
        }
#endif
    } else {
#pragma unroll
        for (int i = 0; i < SEG_W; i++)
            seg[i] = row[i - RADIUS];
    }
    filter_segment(seg, kx, out);
}

/* Class 2: the same segment from the group's clamped copy of its neighbourhood; (x, y) are
 * relative to the tile's corner, so the segment starts at raw column x (= tile x - RADIUS). */
inline void hfilter_local(__local const float *raw, int x, int y, __constant const float *kx,
                          float out[BLOCK_X])
{
    __local const float *row = raw + (y + RADIUS) * RAW_W + x;
    float seg[SEG_W];
#pragma unroll
    for (int i = 0; i < SEG_W; i++)
        seg[i] = row[i];
    filter_segment(seg, kx, out);
}

/*
 * The phases of tiled_conv, in the order the kernel runs them. Each fills or reads the
 * work-item's private rows, hrow[RADIUS + r] = row by + r of its block filtered horizontally
 * (-RADIUS <= r < BLOCK_Y + RADIUS), or its results, out[r][c] = pixel (bx + c, by + r).
 * They are TC_INLINE and all their loops have constant bounds, so every call is inlined, every
 * loop unrolls and hrow and out stay in registers. None of them has a barrier: those are in
 * the kernel body.
 */

/* Phase (a), class 1: hrow from global memory. Every work-item filters its own BLOCK_Y rows;
 * only the top and bottom work-items of the group filter their extra RADIUS rows, whose owners
 * are in other groups. The others get theirs in the shared-row exchange, phase (c). */
TC_INLINE void class1_filter_rows(__global const float *src, int pitch, int sL, int sT, int bx,
                                  int by, int ly, bool aligned_in, __constant const float *kx,
                                  float hrow[HROWS][BLOCK_X])
{
#pragma unroll
    for (int r = 0; r < BLOCK_Y; r++)
        hfilter_global(src, pitch, sL, sT, bx, by + r, aligned_in, kx, hrow[RADIUS + r]);
    if (ly == 0) /* the rows above the tile belong to the group above: filter them here */
#pragma unroll
        for (int r = 0; r < RADIUS; r++)
            hfilter_global(src, pitch, sL, sT, bx, by - RADIUS + r, aligned_in, kx, hrow[r]);
    if (ly == GROUP_Y - 1) /* likewise the rows below the tile */
#pragma unroll
        for (int r = 0; r < RADIUS; r++)
            hfilter_global(src, pitch, sL, sT, bx, by + BLOCK_Y + r, aligned_in, kx,
                           hrow[RADIUS + BLOCK_Y + r]);
}

/* Phase (b), class 2, once the group has staged the tile's neighbourhood in raw
 * (stage_neighbourhood: RAW_H x RAW_W pixels from the tile's corner minus RADIUS each way):
 * hrow from local memory, the same rows as class 1 fills. */
TC_INLINE void class2_filter_rows(__local const float *raw, int lx, int ly,
                                  __constant const float *kx, float hrow[HROWS][BLOCK_X])
{
    const int tx = lx * BLOCK_X, ty = ly * BLOCK_Y; /* the block, relative to the tile */
#pragma unroll
    for (int r = -RADIUS; r < BLOCK_Y + RADIUS; r++) {
        /* The raw copy holds the halo rows too, so the top and bottom work-items can
         * filter their extra rows from it like any other row. */
        const bool needed = (r >= 0 && r < BLOCK_Y) || (r < 0 && ly == 0) ||
                            (r >= BLOCK_Y && ly == GROUP_Y - 1);
        if (needed)
            hfilter_local(raw, tx, ty + r, kx, hrow[RADIUS + r]);
    }
}

/*
 * Phase (c), the shared-row exchange, in two halves with a barrier between them in the kernel
 * body. shared holds the published rows: top[ly][r][column], then bottom[ly][r][column],
 * TILE_W columns per row, written and read as float4.
 */

/* First half: publish this block's first RADIUS filtered rows (for the upper neighbour) and
 * its last RADIUS (for the lower one). */
TC_INLINE void publish_shared_rows(__local float4 *shared, int lx, int ly,
                                   float hrow[HROWS][BLOCK_X])
{
    __local float4 *top = shared;
    __local float4 *bottom = shared + EDGE_SIZE / 4;
    const int col4 = lx * (BLOCK_X / 4);
#pragma unroll
    for (int r = 0; r < RADIUS; r++)
#pragma unroll
        for (int v = 0; v < BLOCK_X / 4; v++) {
            const int at = (ly * RADIUS + r) * (TILE_W / 4) + col4 + v;
            /* vload4 from the private rows, not a (float4)(a, b, c, d) literal: the same
             * code, but oclgrind reads the literal as a store of an undefined vector. */
            top[at] = vload4(v, hrow[RADIUS + r]);
            bottom[at] = vload4(v, hrow[BLOCK_Y + r]);
        }
}

/* Second half, once every block's rows are published: take the neighbours' rows into the
 * halo rows of hrow that phase (a) or (b) left unfilled (every work-item's, except the rows
 * above of the group's top work-items and the rows below of its bottom ones). */
TC_INLINE void take_shared_rows(__local const float4 *shared, int lx, int ly,
                                float hrow[HROWS][BLOCK_X])
{
    __local const float4 *top = shared;
    __local const float4 *bottom = shared + EDGE_SIZE / 4;
    const int col4 = lx * (BLOCK_X / 4);
    if (ly > 0) /* rows above: the upper neighbour's last RADIUS rows */
#pragma unroll
        for (int r = 0; r < RADIUS; r++)
#pragma unroll
            for (int v = 0; v < BLOCK_X / 4; v++) {
                const float4 q = bottom[((ly - 1) * RADIUS + r) * (TILE_W / 4) + col4 + v];
                hrow[r][4 * v] = q.x;
                hrow[r][4 * v + 1] = q.y;
                hrow[r][4 * v + 2] = q.z;
                hrow[r][4 * v + 3] = q.w;
            }
    if (ly < GROUP_Y - 1) /* rows below: the lower neighbour's first RADIUS rows */
#pragma unroll
        for (int r = 0; r < RADIUS; r++)
#pragma unroll
            for (int v = 0; v < BLOCK_X / 4; v++) {
                const float4 q = top[((ly + 1) * RADIUS + r) * (TILE_W / 4) + col4 + v];
                hrow[RADIUS + BLOCK_Y + r][4 * v] = q.x;
                hrow[RADIUS + BLOCK_Y + r][4 * v + 1] = q.y;
                hrow[RADIUS + BLOCK_Y + r][4 * v + 2] = q.z;
                hrow[RADIUS + BLOCK_Y + r][4 * v + 3] = q.w;
            }
}

/* Phase (d), the vertical pass, all in registers: out from the HROWS rows of hrow. */
TC_INLINE void vertical_pass(float hrow[HROWS][BLOCK_X], __constant const float *ky,
                             float out[BLOCK_Y][BLOCK_X])
{
#pragma unroll
    for (int r = 0; r < BLOCK_Y; r++)
#pragma unroll
        for (int c = 0; c < BLOCK_X; c++) {
            float acc = 0.0f;
#pragma unroll
            for (int j = 0; j < TAPS; j++)
                acc = fma(ky[j], hrow[r + j][c], acc);
            out[r][c] = acc;
        }
}

/* Phase (e), the store of the block at ROI (bx, by). Class 3: the tile is inside the tROI, so
 * is every block: float4 stores where the rows are aligned, scalar ones otherwise. Class 4:
 * guard each pixel. (The article's class 4 instead redirects an outside pixel's write to the
 * tile's corner pixel, which is always inside; a guarded store costs no more on current GPUs
 * and never writes a pixel twice.) */
TC_INLINE void store_block(__global float *dst, int pitch, int tL, int tT, int w, int h, int bx,
                           int by, bool free_on_write, bool aligned_out,
                           float out[BLOCK_Y][BLOCK_X])
{
    __global float *out_row = dst + (tT + by) * pitch + tL + bx;
    if (free_on_write && TC_VECTOR_IO && aligned_out) { /* class 3, aligned */
#pragma unroll
        for (int r = 0; r < BLOCK_Y; r++)
#pragma unroll
            for (int v = 0; v < BLOCK_X / 4; v++)
                ((__global float4 *)(out_row + r * pitch))[v] = vload4(v, out[r]);
    } else if (free_on_write) { /* class 3 */
#pragma unroll
        for (int r = 0; r < BLOCK_Y; r++)
#pragma unroll
            for (int c = 0; c < BLOCK_X; c++)
                out_row[r * pitch + c] = out[r][c];
    } else { /* class 4 */
#pragma unroll
        for (int r = 0; r < BLOCK_Y; r++)
#pragma unroll
            for (int c = 0; c < BLOCK_X; c++)
                if (bx + c < w && by + r < h)
                    out_row[r * pitch + c] = out[r][c];
    }
}

#ifdef TC_COUNT_CLASSES
/* For -v and the tests: each group adds itself to the counts of its two classes, so that the
 * classes reported are the ones the kernel took, not a prediction. */
#define CLASS_COUNTS_ARG , __global int *class_counts
#else
#define CLASS_COUNTS_ARG
#endif

__kernel __attribute__((reqd_work_group_size(GROUP_X, GROUP_Y, 1)))
void tiled_conv(__global const float *src, __global float *dst, int pitch,
                int sL, int sT, int tL, int tT, int w, int h,
                __constant const float *kx, __constant const float *ky,
                float border_value CLASS_COUNTS_ARG)
{
    /* Declared as float4 so that the published rows can be written and read 16 bytes at a
     * time; TILE_W and every block's first column are multiples of 4. */
    __local float4 lmem4[(LOCAL_SIZE + 3) / 4];
    __local float *lmem = (__local float *)lmem4;

    const int lx = get_local_id(0), ly = get_local_id(1);
    const int l = get_group_id(0) * TILE_W; /* the tile's corner in ROI coordinates */
    const int t = get_group_id(1) * TILE_H;
    const int bx = l + lx * BLOCK_X; /* this work-item's block */
    const int by = t + ly * BLOCK_Y;

    /*
     * The article's classes. Both tests depend only on the group's position and the kernel's
     * arguments, never on the work-item, so every work-item of a group takes the same branch:
     * the barriers inside the branches below are reached by all work-items of the group or by
     * none, as OpenCL requires.
     *   class 1 (free on read):  the tile's neighbourhood, RADIUS pixels around it, lies inside
     *                            the sROI, so its reads need no checks;
     *   class 2 (otherwise):     some read would leave the sROI: load the neighbourhood, its
     *                            coordinates mapped into the sROI by the border rule,
     *                            into local memory once, cooperatively, and compute from there;
     *   class 3 (free on write): the whole tile lies inside the tROI: write without checks;
     *   class 4 (otherwise):     the tile reaches past the tROI's right or bottom edge: guard
     *                            each write.
     */
    const bool aligned_in = ((sL | pitch) & 3) == 0;
    const bool aligned_out = ((tL | pitch) & 3) == 0;
    const int apron_x = HALO_VEC && aligned_in ? 4 : RADIUS; /* columns read beside the tile */
    const bool free_on_read = l >= apron_x && t >= RADIUS && l + TILE_W + apron_x <= w &&
                              t + TILE_H + RADIUS <= h;
    const bool free_on_write = l + TILE_W <= w && t + TILE_H <= h;
#ifdef TC_COUNT_CLASSES
    if (lx == 0 && ly == 0) {
        atomic_inc(&class_counts[free_on_read ? 0 : 1]);
        atomic_inc(&class_counts[free_on_write ? 2 : 3]);
    }
#endif

    /* hrow[RADIUS + r] is row by + r filtered horizontally, for -RADIUS <= r < BLOCK_Y + RADIUS. */
    float hrow[HROWS][BLOCK_X];

    if (free_on_read) {
        /* Class 1: (a) rows filtered straight from global memory. */
        class1_filter_rows(src, pitch, sL, sT, bx, by, ly, aligned_in, kx, hrow);
    } else {
        /* Class 2: (b) the neighbourhood staged in local memory, then filtered from there. */
        stage_neighbourhood(src, pitch, sL, sT, w, h, border_value, l - RADIUS, t - RADIUS,
                            RAW_W, RAW_H, GROUP_X, GROUP_Y, lx, ly, lmem);
        /* The copy is complete before anyone filters from it. */
        barrier(CLK_LOCAL_MEM_FENCE);
        class2_filter_rows(lmem, lx, ly, kx, hrow);
        /* Everyone has finished reading raw pixels: the memory can now take the published
         * rows. Without this barrier a fast work-item could overwrite raw pixels that a slow
         * one has yet to read. */
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    /* (c) The shared-row exchange, every class. */
    publish_shared_rows(lmem4, lx, ly, hrow);
    /* Every block's rows are published before any neighbour reads them. */
    barrier(CLK_LOCAL_MEM_FENCE);
    take_shared_rows(lmem4, lx, ly, hrow);

    /* (d) The vertical pass, then (e) the store: class 3 or 4. */
    float out[BLOCK_Y][BLOCK_X];
    vertical_pass(hrow, ky, out);
    store_block(dst, pitch, tL, tT, w, h, bx, by, free_on_write, aligned_out, out);
}

/* ------------------------------------------------------------------------------------------ */
/* one_pass_conv: the classic one-pass local-memory convolution                                */
/* ------------------------------------------------------------------------------------------ */

#define OP_RAW (ONEPASS_GROUP + 2 * RADIUS)

/* Work-item (lx, ly) of group (gx, gy) owns ROI pixel (gx * 16 + lx, gy * 16 + ly). The group
 * copies its (16 + 2r) x (16 + 2r) neighbourhood into local memory, mapped into the sROI, then
 * every work-item sums all TAPS x TAPS products from there. */
__kernel __attribute__((reqd_work_group_size(ONEPASS_GROUP, ONEPASS_GROUP, 1)))
void one_pass_conv(__global const float *src, __global float *dst, int pitch,
                   int sL, int sT, int tL, int tT, int w, int h,
                   __constant const float *kx, __constant const float *ky, float border_value)
{
    __local float raw[OP_RAW * OP_RAW];

    const int lx = get_local_id(0), ly = get_local_id(1);
    const int x0 = get_group_id(0) * ONEPASS_GROUP, y0 = get_group_id(1) * ONEPASS_GROUP;

    /* Work-item (lx, ly) copies the rows ly, ly + 16, ... and in each the columns lx, lx + 16,
     * ..., mapped into the sROI by the border rule (stage_neighbourhood, shared with
     * tiled_conv's class 2). */
    stage_neighbourhood(src, pitch, sL, sT, w, h, border_value, x0 - RADIUS, y0 - RADIUS,
                        OP_RAW, OP_RAW, ONEPASS_GROUP, ONEPASS_GROUP, lx, ly, raw);
    /* The whole neighbourhood is in local memory before anyone reads it. Reached by every
     * work-item: the guard on the write below comes after it. */
    barrier(CLK_LOCAL_MEM_FENCE);

    const int x = x0 + lx, y = y0 + ly;
    if (x < w && y < h) {
        float acc = 0.0f;
#pragma unroll
        for (int j = 0; j < TAPS; j++)
#pragma unroll
            for (int i = 0; i < TAPS; i++)
                acc = fma(ky[j] * kx[i], raw[(ly + j) * OP_RAW + lx + i], acc);
        dst[(tT + y) * pitch + tL + x] = acc;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* rows_transposed_conv: one pass of the classic two-pass convolution                          */
/* ------------------------------------------------------------------------------------------ */

#define TP TWOPASS_TILE
#define TP_RAW (TP + 2 * RADIUS)

/*
 * Filters the rows of a w x h region of src (starting at (sL, sT), row pitch src_pitch, reads
 * mapped into the region by the border rule) with k and writes the result transposed: region pixel (x, y) lands at
 * dst(tL + y, tT + x), row pitch dst_pitch. Run twice - rows of the sROI into a temporary
 * h x w buffer with kx, then rows of that buffer (the original columns) into the tROI with ky -
 * it computes the separable filter and restores the orientation. (With BORDER_CONSTANT, pass 2's
 * border_value is the constant filtered by kx, since its rows are already filtered ones.)
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
        raw[ly][i] = read_bordered(src, src_pitch, sL, sT, x0 - RADIUS + i, y, w, h,
                                   border_value);
    /* The row segments are complete before anyone filters them. */
    barrier(CLK_LOCAL_MEM_FENCE);

    float acc = 0.0f;
#pragma unroll
    for (int i = 0; i < TAPS; i++)
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
