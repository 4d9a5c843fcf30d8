/*
 * Gradient.cl - the x and y derivatives of a float plane from one read of it: the seed
 * article's "double" filter (two responses of one neighbourhood at once) on the AMD article's
 * tiled kernel, and the magnitude kernel of the comparison that runs the two filters apart.
 *
 *   gradient_tiled       gx, gy and sqrt(gx^2 + gy^2) in one pass: 8 x 8 work-items, 4 x 4
 *                        pixels each, the article's four classes of work-groups
 *   gradient_magnitude   sqrt(gx^2 + gy^2) of two planes the plain tiled kernel made (the
 *                        two-launch comparison, src/gradient.c)
 *
 * The operator is OpenCV's unnormalised 3-tap one, a derivative d = [-1 0 1] along one axis
 * and a smoothing s = [A B A] along the other (Sobel A = 1, B = 2; Scharr A = 3, B = 10):
 *     gx = s (down the columns) of d (along the rows),  gy = d (down the columns) of s (along
 * the rows), correlation, no flip, so gx is positive where the intensity grows rightwards and
 * gy where it grows downwards, as --filter sobel-x and sobel-y are.
 *
 * What one read means here: each work-item loads each of its row segments once into
 * registers and filters it both ways there (d and s of the same six pixels); the rows its
 * vertical neighbours need are exchanged through local memory, both kinds at once; then the
 * vertical pass makes gx from the d rows and gy from the s rows, and the magnitude. The plane
 * is read once and each output written once, where the two filters apart read it twice,
 * write gx and gy, and read them back for the magnitude.
 *
 * The program is Common.cl followed by this file (programs.c), as every filter program is:
 * the border rules, the float4 read windows of a block row (load_segment,
 * load_segment_bordered, APRON_L and APRON_R) and the store of a block (store_block) are
 * Common.cl's, built here for radius 1 along both axes. Everything is in ROI coordinates, as
 * there: (x, y), 0 <= x < w, 0 <= y < h, is the pixel at (sL + x, sT + y) of the source and
 * (tL + x, tT + y) of the target. A read outside the sROI is mapped back into it by the border
 * rule (BORDER); no pixel outside the tROI is written. The arithmetic is tiled_conv's for
 * --filter sobel-x and sobel-y, operation for operation (the same fma chains in the same
 * order), so that the one-read gx and gy are those two filters' outputs bit for bit on a
 * device that rounds each operation once.
 *
 * The geometry comes from the host as -D options (src/config.h, src/gradient.c): Common.cl's
 * RADIUS_X and RADIUS_Y (1: 3-tap operators), BLOCK_X, BLOCK_Y, BORDER, SHIFT ((sL - tL) mod
 * 4), TC_VECTOR_IO and TC_COUNT_CLASSES (for -v and the tests); this file's GROUP_X, GROUP_Y,
 * SMOOTH_OUTER and SMOOTH_CENTER (A and B), GRADIENT_PLANES (1: the magnitude alone; 3: gx and
 * gy too).
 */

#if !defined(GROUP_X) || !defined(GROUP_Y) || !defined(SMOOTH_OUTER) ||                   \
    !defined(SMOOTH_CENTER) || !defined(GRADIENT_PLANES)
#error "build Gradient.cl with the -D options that gradient.c passes"
#endif
#if RADIUS_X != 1 || RADIUS_Y != 1
#error "the gradient's operators are 3 x 3: RADIUS_X and RADIUS_Y are 1"
#endif
#if TC_IMAGE
#error "the gradient reads its plane from a buffer (no --storage image build)"
#endif

#define RADIUS 1 /* 3-tap operators */

#if BLOCK_Y < RADIUS
#error "BLOCK_Y must be at least 1"
#endif
#if GRADIENT_PLANES != 1 && GRADIENT_PLANES != 3
#error "GRADIENT_PLANES is 1 (the magnitude) or 3 (gx, gy and the magnitude)"
#endif

/* The magnitude, the same function in both kernels so that the one-read and the two-launch
 * results agree to the bit: sqrt(gx^2 + gy^2) with one rounding fewer (fma). Not hypot, which
 * never overflows: PoCL calls a scalar libm hypot per pixel (30 times slower here, measured),
 * and a branch to it for large values halves PoCL's speed too; the squares overflow only
 * beyond |g| = 1.8e19, far from any image's gradient (a 0..255 image reaches 5770). */
static inline float magnitude(float gx, float gy)
{
    return sqrt(fma(gx, gx, gy * gy));
}

/* ---- gradient_tiled ------------------------------------------------------------------------ */

/*
 * Ownership, as in tiled_conv: a work-group of GROUP_X x GROUP_Y work-items produces a tile of
 * TILE_W x TILE_H target pixels (32 x 32 with the article's 8 x 8 groups of 4 x 4 blocks);
 * work-item (lx, ly) of the group whose tile starts at ROI (l, t) owns the block starting at
 * (l + lx * BLOCK_X, t + ly * BLOCK_Y). The tiles sit on the target's 4-column grid (the
 * first starts tL mod 4 columns left of the tROI, and guards its writes), so every block is
 * stored as aligned float4s; a block row is read as the aligned float4s that cover it, its
 * pixels picked at offsets fixed by SHIFT when the program is built.
 *
 * A work-item needs its block's rows filtered horizontally (d and s) and one row above and
 * below. It filters its own rows; the row above is its upper neighbour's last row and the row
 * below its lower neighbour's first, exchanged through local memory; the group's top row of
 * work-items filters the row above the tile itself, its bottom row the row below (the
 * article's way at radius 1).
 */
#define TILE_W (GROUP_X * BLOCK_X)
#define TILE_H (GROUP_Y * BLOCK_Y)
#define HROWS (BLOCK_Y + 2 * RADIUS) /* the filtered rows a work-item needs */

/* The exchanged rows, one per slot, TILE_W values each, for d and for s: top[s] holds the
 * first row of work-item row s, bottom[s + 1] its last row. */
#define SLOTS (GROUP_Y + 1)
#define ROW4 (TILE_W / 4)
#define EDGE4 (SLOTS * ROW4)
#define AT(slot, col4) ((slot) * ROW4 + (col4))

/* One block row filtered both ways from the same registers: d, the derivative along the row
 * ([-1 0 1]: tiled_conv's fma chain, fma(1, c, fma(0, b, fma(-1, a, 0))), is c - a exactly),
 * and s, the smoothing along the row (the chain itself, in tiled_conv's order). */
TC_INLINE void filter_both(const float seg[SEG_W], float d[BLOCK_X], float s[BLOCK_X])
{
#pragma unroll
    for (int c = 0; c < BLOCK_X; c++) {
        d[c] = seg[c + 2] - seg[c];
        s[c] = fma(SMOOTH_OUTER, seg[c + 2], fma(SMOOTH_CENTER, seg[c + 1], SMOOTH_OUTER * seg[c]));
    }
}

/* Row y of the ROI at block column x, read (class 1 unchecked, class 2 mapped: checked is a
 * constant at every call) and filtered both ways. */
TC_INLINE void hfilter(__global const float *src, int pitch, int sL, int sT, int x, int y, int w,
                       int h, float value, bool checked, float d[BLOCK_X], float s[BLOCK_X])
{
    float seg[SEG_W];
    load_segment_checked(src, pitch, sL, sT, w, h, value, checked, x, y, seg);
    filter_both(seg, d, s);
}

/* Phase (a): the block's own rows into hd[1 ..], hs[1 ..]; the top work-items the row above
 * the tile into hd[0], hs[0], the bottom ones the row below into hd[HROWS - 1], hs[...]. */
TC_INLINE void filter_rows(__global const float *src, int pitch, int sL, int sT, int w, int h,
                           float value, bool checked, int bx, int by, int ly,
                           float hd[HROWS][BLOCK_X], float hs[HROWS][BLOCK_X])
{
#pragma unroll
    for (int r = 0; r < BLOCK_Y; r++)
        hfilter(src, pitch, sL, sT, bx, by + r, w, h, value, checked, hd[RADIUS + r],
                hs[RADIUS + r]);
    if (ly == 0)
        hfilter(src, pitch, sL, sT, bx, by - 1, w, h, value, checked, hd[0], hs[0]);
    if (ly == GROUP_Y - 1)
        hfilter(src, pitch, sL, sT, bx, by + BLOCK_Y, w, h, value, checked, hd[HROWS - 1],
                hs[HROWS - 1]);
}

/* Phase (c), first half: this block's first and last filtered rows, both kinds, into local
 * memory for the neighbours above and below. */
TC_INLINE void publish_rows(__local float4 *shared, int lx, int ly, float hd[HROWS][BLOCK_X],
                            float hs[HROWS][BLOCK_X])
{
    __local float4 *top_d = shared, *bottom_d = shared + EDGE4;
    __local float4 *top_s = shared + 2 * EDGE4, *bottom_s = shared + 3 * EDGE4;
    const int col4 = lx * (BLOCK_X / 4);
#pragma unroll
    for (int v = 0; v < BLOCK_X / 4; v++) {
        /* vload4 from the private rows (a (float4)(a, b, c, d) literal reads to oclgrind as a
         * store of an undefined vector). */
        top_d[AT(ly, col4 + v)] = vload4(v, hd[RADIUS]);
        bottom_d[AT(ly + 1, col4 + v)] = vload4(v, hd[BLOCK_Y]);
        top_s[AT(ly, col4 + v)] = vload4(v, hs[RADIUS]);
        bottom_s[AT(ly + 1, col4 + v)] = vload4(v, hs[BLOCK_Y]);
    }
}

/* A float4 of local memory into four private floats. */
TC_INLINE void take4(float *to, float4 q)
{
    to[0] = q.x;
    to[1] = q.y;
    to[2] = q.z;
    to[3] = q.w;
}

/* Phase (c), second half, once every block's rows are published: the upper neighbour's last
 * row into row 0, the lower neighbour's first row into row HROWS - 1 (the group's top and
 * bottom work-items have theirs from phase (a)). */
TC_INLINE void take_rows(__local const float4 *shared, int lx, int ly, float hd[HROWS][BLOCK_X],
                         float hs[HROWS][BLOCK_X])
{
    __local const float4 *top_d = shared, *bottom_d = shared + EDGE4;
    __local const float4 *top_s = shared + 2 * EDGE4, *bottom_s = shared + 3 * EDGE4;
    const int col4 = lx * (BLOCK_X / 4);
    if (ly > 0)
#pragma unroll
        for (int v = 0; v < BLOCK_X / 4; v++) {
            take4(&hd[0][4 * v], bottom_d[AT(ly, col4 + v)]);
            take4(&hs[0][4 * v], bottom_s[AT(ly, col4 + v)]);
        }
    if (ly < GROUP_Y - 1)
#pragma unroll
        for (int v = 0; v < BLOCK_X / 4; v++) {
            take4(&hd[HROWS - 1][4 * v], top_d[AT(ly + 1, col4 + v)]);
            take4(&hs[HROWS - 1][4 * v], top_s[AT(ly + 1, col4 + v)]);
        }
}

/* Phase (d), in registers: gx, the smoothing down the columns of the d rows; gy, the
 * derivative down the columns of the s rows (tiled_conv's vertical chains); the magnitude. */
TC_INLINE void vertical_pass(float hd[HROWS][BLOCK_X], float hs[HROWS][BLOCK_X],
                             float gx[BLOCK_Y][BLOCK_X], float gy[BLOCK_Y][BLOCK_X],
                             float mag[BLOCK_Y][BLOCK_X])
{
#pragma unroll
    for (int r = 0; r < BLOCK_Y; r++)
#pragma unroll
        for (int c = 0; c < BLOCK_X; c++) {
            gx[r][c] = fma(SMOOTH_OUTER, hd[r + 2][c],
                           fma(SMOOTH_CENTER, hd[r + 1][c], SMOOTH_OUTER * hd[r][c]));
            gy[r][c] = hs[r + 2][c] - hs[r][c];
            mag[r][c] = magnitude(gx[r][c], gy[r][c]);
        }
}

/* mag, and with GRADIENT_PLANES 3 gx_out and gy_out, receive the tROI; their other pixels are
 * left as they are (the host has copied the input there). */
__kernel __attribute__((reqd_work_group_size(GROUP_X, GROUP_Y, 1)))
void gradient_tiled(__global const float *src, __global float *mag_out, __global float *gx_out,
                    __global float *gy_out, int pitch, int sL, int sT, int tL, int tT, int w,
                    int h, float border_value CLASS_COUNTS_ARG)
{
    /* d and s rows, top and bottom slots: float4s, so that rows go in and out 16 bytes at a
     * time (TILE_W and every block's first column are multiples of 4). */
    __local float4 shared[4 * EDGE4];

    const int lx = get_local_id(0), ly = get_local_id(1);
    const int ox = TC_VECTOR_IO ? tL & 3 : 0;     /* the tiles on the target's 4-grid */
    const int l = get_group_id(0) * TILE_W - ox; /* the tile's corner, ROI coordinates */
    const int t = get_group_id(1) * TILE_H;
    const int bx = l + lx * BLOCK_X, by = t + ly * BLOCK_Y; /* this work-item's block */

    /* The article's classes, from the group's position alone, so every work-item of a group
     * takes the same branch and the barrier below is reached by all of it:
     *   class 1 (free on read):  the tile, a row above and below and the aprons beside it lie
     *                            inside the sROI: reads unchecked;
     *   class 2 (otherwise):     every coordinate that may leave the sROI is mapped;
     *   class 3 (free on write): the tile lies inside the tROI: writes unchecked;
     *   class 4 (otherwise):     writes guarded. */
    const bool free_on_read = tile_free_on_read(l, t, TILE_W, TILE_H, RADIUS, w, h);
    const bool free_on_write = tile_free_on_write(l, t, TILE_W, TILE_H, w, h);
    COUNT_CLASSES(lx == 0 && ly == 0, free_on_read, free_on_write);

    /* hd[1 + r], hs[1 + r]: row by + r filtered along the row by d and by s, r = -1 .. BLOCK_Y */
    float hd[HROWS][BLOCK_X], hs[HROWS][BLOCK_X];
    if (free_on_read) /* (a) class 1 */
        filter_rows(src, pitch, sL, sT, w, h, border_value, false, bx, by, ly, hd, hs);
    else /* (a) class 2 */
        filter_rows(src, pitch, sL, sT, w, h, border_value, true, bx, by, ly, hd, hs);

    /* (c) the exchange of edge rows, both kinds at once. */
    publish_rows(shared, lx, ly, hd, hs);
    /* Every block's edge rows are published before any neighbour reads them. */
    barrier(CLK_LOCAL_MEM_FENCE);
    take_rows(shared, lx, ly, hd, hs);

    /* (d) both vertical passes and the magnitude, (e) the stores: class 3 or 4. */
    float gx[BLOCK_Y][BLOCK_X], gy[BLOCK_Y][BLOCK_X], mag[BLOCK_Y][BLOCK_X];
    vertical_pass(hd, hs, gx, gy, mag);
    store_block(mag_out, pitch, tL, tT, w, h, bx, by, free_on_write, mag);
#if GRADIENT_PLANES == 3
    store_block(gx_out, pitch, tL, tT, w, h, bx, by, free_on_write, gx);
    store_block(gy_out, pitch, tL, tT, w, h, bx, by, free_on_write, gy);
#endif
}

/* ---- gradient_magnitude: the last step of the two-launch comparison -------------------------- */

/* mag = magnitude(gx, gy) over the tROI, one pixel per work-item (consecutive work-items,
 * consecutive addresses); gx and gy are the plain tiled kernel's --filter sobel-x and sobel-y
 * outputs in their own planes. */
__kernel void gradient_magnitude(__global const float *gx, __global const float *gy,
                                 __global float *mag, int pitch, int tL, int tT, int w, int h)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x < w && y < h) {
        const int i = (tT + y) * pitch + tL + x;
        mag[i] = magnitude(gx[i], gy[i]);
    }
}
