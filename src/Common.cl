/*
 * Common.cl - what every kernel program shares: the border rules, the staging of a
 * neighbourhood in local memory (and the one-pass kernels' whole body), the float4 read windows
 * of a block row, the store of a work-item's block, and the article's classes of a tile (their
 * tests and their counting). Each program is this file followed by the file of its kernels
 * (programs.c): TiledConv.cl (the separable kernels up to 15 taps, and the one-pass and
 * two-pass ones at any length), Long.cl (the tiled kernel beyond 15 taps), Masks.cl (the
 * non-separable masks).
 *
 * Everything is in ROI coordinates: (x, y) with 0 <= x < w, 0 <= y < h is the pixel at
 * (sL + x, sT + y) of the source and (tL + x, tT + y) of the target. A read outside the sROI
 * is mapped back into it by the border rule (BORDER, below; by default the nearest sROI pixel,
 * each coordinate clamped to the sROI's edge), so no pixel outside the sROI is ever read; no
 * pixel outside the tROI is ever written.
 *
 * The geometry comes from the host as -D options, from src/config.h, so host and kernels cannot
 * disagree. Every program gets RADIUS_X and RADIUS_Y (the filter's or the mask's radii along
 * rows and columns, 0 .. 31), BORDER, BLOCK_X and BLOCK_Y (the block a work-item reads and
 * writes), and SHIFT, the source alignment of a block, (sL - tL) mod 4 for the kernels whose
 * tiles sit on the target's 4-column grid.
 */

#if !defined(RADIUS_X) || !defined(RADIUS_Y) || !defined(BORDER) || !defined(BLOCK_X) || \
    !defined(BLOCK_Y) || !defined(SHIFT)
#error "build the kernels with the -D options that job_kernels.c passes"
#endif

#define TAPS_X (2 * RADIUS_X + 1)
#define TAPS_Y (2 * RADIUS_Y + 1)

/* The helpers that hold a kernel's phases (stage_neighbourhood, tiled_conv's phases) are
 * functions for the reader only: they must compile as if their code were written in the
 * kernel, the private arrays they take (hrow, out) kept in registers and every loop unrolled.
 * That needs every call inlined, which plain inline leaves to the compiler's cost model:
 * PoCL's declines functions this large and keeps them as calls, the arrays in memory. */
/* Every helper is `static inline`: under C99's rule a plain `inline` function has no body of
 * its own, and NVIDIA's compiler with its optimiser off (-cl-opt-disable) leaves such calls
 * uninlined and fails to link them ("Unresolved extern function"). */
#define TC_INLINE static inline __attribute__((always_inline))

/* A kernel's required group size (reqd_work_group_size), unless TC_FREE_GROUP_SIZE=1: NVIDIA's
 * compiler ignores a register budget (-cl-nv-maxrregcount) in a kernel that states its group
 * size (as CUDA's ignores one for a kernel with launch bounds), so the host builds without it
 * where it passes a budget (job_kernels.c). */
#if defined(TC_FREE_GROUP_SIZE) && TC_FREE_GROUP_SIZE
#define TC_GROUP_SIZE(x, y, z)
#else
#define TC_GROUP_SIZE(x, y, z) __attribute__((reqd_work_group_size(x, y, z)))
#endif

/* Sixteen coefficients or weights passed by value (zero-padded), and value i of them. A kernel
 * argument sits in a constant bank on GPUs, where a multiply-add takes it as an operand; i is a
 * constant wherever value16 is called (every loop unrolls), so the choice folds away. A struct
 * around the float16, not the float16 itself: clang's x86 back end (PoCL's compiler) warns,
 * -Wpsabi, wherever a float16 is an argument on a CPU without AVX-512, since its ABI changes
 * with AVX-512 there; a struct is passed in memory on every x86 CPU. */
typedef struct {
    float16 v;
} tc_values16;

TC_INLINE float value16(tc_values16 k, int i)
{
    switch (i) {
    case 0: return k.v.s0;
    case 1: return k.v.s1;
    case 2: return k.v.s2;
    case 3: return k.v.s3;
    case 4: return k.v.s4;
    case 5: return k.v.s5;
    case 6: return k.v.s6;
    case 7: return k.v.s7;
    case 8: return k.v.s8;
    case 9: return k.v.s9;
    case 10: return k.v.sa;
    case 11: return k.v.sb;
    case 12: return k.v.sc;
    case 13: return k.v.sd;
    case 14: return k.v.se;
    default: return k.v.sf;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Border rules (tiledconv.h's tc_border, OpenCV's meanings), chosen at build time         */
/* ------------------------------------------------------------------------------------------ */

/* Their numbers come before this file: the library writes a line of them from tc_border and
 * tc_border_name (programs.c), their one list. BORDER_REPLICATE aaa|abcd|ddd, BORDER_CONSTANT
 * vvv|abcd|vvv, BORDER_REFLECT101 dcb|abcd|cba, BORDER_REFLECT cba|abcd|dcb, BORDER_WRAP
 * bcd|abcd|abc. */
#if !defined(BORDER_REPLICATE) || !defined(BORDER_CONSTANT) || !defined(BORDER_REFLECT101) || \
    !defined(BORDER_REFLECT) || !defined(BORDER_WRAP)
#error "the border rules' numbers are the library's (programs.c's border_line)"
#endif

/* Maps coordinate p into 0 .. n - 1 (n >= 1) by the border rule, as OpenCV's
 * borderInterpolate does; -1 for BORDER_CONSTANT outside. A radius larger than the ROI can
 * reflect more than once, hence the loop. */
static inline int border_index(int p, int n)
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

/* border_index for a p less than one width outside [0, n) (-n < p < 2n - 1, n >= 2): the
 * rule applied once, without border_index's loop or wrap's division. The caller checks that
 * its coordinates stay that close (tiled_mask_rows_conv's class 2, when the ROI is wide). */
static inline int border_fold(int p, int n)
{
#if BORDER == BORDER_REPLICATE
    return clamp(p, 0, n - 1);
#elif BORDER == BORDER_CONSTANT
    return p >= 0 && p < n ? p : -1;
#elif BORDER == BORDER_REFLECT101 || BORDER == BORDER_REFLECT
    const int delta = BORDER == BORDER_REFLECT101;
    return p < 0 ? -p - 1 + delta : p >= n ? 2 * n - 1 - p - delta : p;
#else /* BORDER_WRAP */
    return p < 0 ? p + n : p >= n ? p - n : p;
#endif
}

/*
 * Where the kernels read the source plane (--storage, storage.c): a buffer, SRC_T a pointer
 * and SRC_AT(src, pitch, x, y) the float at column x of row y; or, built with -D TC_IMAGE=1,
 * an image2d_t (CL_R, CL_FLOAT, as wide as the padded rows) read through a nearest-neighbour
 * sampler with unnormalised coordinates. Every kernel that reads through these (tiled_conv,
 * one_pass_conv, tiled_long_conv, tiled_mask_conv, one_pass_mask_conv) then takes an image;
 * rows_transposed_conv reads buffers only (TiledConv.cl leaves it out of an image build). The
 * sampler's address mode is never what decides a border: every coordinate is mapped into the
 * sROI by the border rule first (a sampler only knows the whole image's edges), so
 * CLAMP_TO_EDGE is a guard that no read exercises. Without float4 loads from an image (its
 * texels are single floats), the image build reads each pixel of a block row's window one by
 * one (load_segment); everything else is the same, so the result is the buffer's bit for bit.
 */
#ifndef TC_IMAGE
#define TC_IMAGE 0
#endif
/*
 * Or, built with -D TC_IO_U8=1 (tiled_conv and tiled_long_conv only; the host's fused 8-bit
 * way, stream.c), the source and the target are the packed rows of a gray 8-bit image, pitch
 * its width in bytes: each sample is read as its value (what Channels.cl's unpack_samples
 * makes of it) and each output written as the command line writes a byte (tc_byte, below), so
 * the one kernel gives the bytes that unpack, filter and pack give, without their planes.
 */
#ifndef TC_IO_U8
#define TC_IO_U8 0
#endif
#if TC_IO_U8 && TC_IMAGE
#error "TC_IO_U8 reads a buffer of bytes, not an image"
#endif
#if TC_IMAGE
#define SRC_T read_only image2d_t
__constant sampler_t tc_nearest =
    CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
#define SRC_AT(src, pitch, px, py) read_imagef(src, tc_nearest, (int2)(px, py)).x
#elif TC_IO_U8
#define SRC_T __global const uchar *
#define SRC_AT(src, pitch, px, py) ((float)(src)[(py) * (pitch) + (px)])
#else
#define SRC_T __global const float *
#define SRC_AT(src, pitch, px, py) (src)[(py) * (pitch) + (px)]
#endif

/* Where the tiled kernels write: a float plane, or with TC_IO_U8 the bytes, DST_VALUE(v) the
 * output of v. */
#if TC_IO_U8
#define DST_T __global uchar *
#define DST_VALUE(v) tc_byte(v)
/* image.c's tc_map_byte with the identity mapping, floor(clamp(v, 0, 255) + 0.5) with NaN to
 * 0, exactly, in single precision: v - floor(v) is exact for 0 <= v <= 255, and comparing it
 * with one half decides the rounding without the sum v + 0.5, which float would round (v just
 * under one half would go up). */
static inline uchar tc_byte(float v)
{
    const float c = v > 0.0f ? fmin(v, 255.0f) : 0.0f; /* NaN: 0 */
    const float f = floor(c);
    return (uchar)((int)f + (c - f >= 0.5f ? 1 : 0));
}
#else
#define DST_T __global float *
#define DST_VALUE(v) (v)
#endif

/* The sROI pixel for ROI coordinate (x, y), either or both possibly outside: the border rule's
 * pixel, or value for BORDER_CONSTANT. Only these reads may start outside the sROI. */
static inline float read_bordered(SRC_T src, int pitch, int sL, int sT, int x, int y, int w, int h,
                           float value)
{
    const int bx = border_index(x, w), by = border_index(y, h);
    if (BORDER == BORDER_CONSTANT && (bx < 0 || by < 0))
        return value;
    return SRC_AT(src, pitch, sL + bx, sT + by);
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
TC_INLINE void stage_neighbourhood(SRC_T src, int pitch, int sL, int sT, int w, int h, float border_value, int x0, int y0, int raw_w,
                                   int raw_h, int stride_x, int stride_y, int lx, int ly,
                                   __local float *raw)
{
    for (int y = ly; y < raw_h; y += stride_y)
        for (int x = lx; x < raw_w; x += stride_x)
            raw[y * raw_w + x] = read_bordered(src, pitch, sL, sT, x0 + x, y0 + y, w, h,
                                               border_value);
}

#ifdef ONEPASS_GROUP
/* The one-pass kernels, TiledConv.cl's one_pass_conv and Masks.cl's one_pass_mask_conv: the
 * same code but for the weight of a product, ky[j] kx[i] (separable) or the mask's, passed in
 * kx (kx[j * TAPS_X + i]); separable is a constant at both calls.
 * Work-item (lx, ly) of group (gx, gy) owns ROI pixel (gx * 16 + lx, gy * 16 + ly). The group
 * copies its (16 + 2 ry) x (16 + 2 rx) neighbourhood into raw (the kernel's local memory),
 * mapped into the sROI, then every work-item sums all TAPS_Y x TAPS_X products from there. Up
 * to 15 x 15 taps every loop is unrolled; beyond, only the inner one (a 63 x 63 unrolled body
 * would be 4000 multiply-adds of code for a kernel kept as the plain baseline). This is each
 * kernel's whole body, called by every work-item: the barrier inside is reached by all. */
#define OP_RAW_W (ONEPASS_GROUP + 2 * RADIUS_X)
#define OP_RAW_H (ONEPASS_GROUP + 2 * RADIUS_Y)
#if TAPS_X * TAPS_Y <= 225
#define OP_UNROLL_ROWS 1
#else
#define OP_UNROLL_ROWS 0
#endif

TC_INLINE void one_pass(SRC_T src, __global float *dst, int pitch, int sL, int sT, int tL,
                        int tT, int w, int h, __constant const float *kx,
                        __constant const float *ky, bool separable, float border_value,
                        __local float *raw)
{
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int x0 = get_group_id(0) * ONEPASS_GROUP, y0 = get_group_id(1) * ONEPASS_GROUP;

    /* Work-item (lx, ly) copies the rows ly, ly + 16, ... and in each the columns lx, lx + 16,
     * ..., mapped into the sROI by the border rule (stage_neighbourhood, shared with
     * tiled_conv's class 2). */
    stage_neighbourhood(src, pitch, sL, sT, w, h, border_value, x0 - RADIUS_X, y0 - RADIUS_Y,
                        OP_RAW_W, OP_RAW_H, ONEPASS_GROUP, ONEPASS_GROUP, lx, ly, raw);
    /* The whole neighbourhood is in local memory before anyone reads it. Reached by every
     * work-item: the guard on the write below comes after it. */
    barrier(CLK_LOCAL_MEM_FENCE);

    const int x = x0 + lx, y = y0 + ly;
    if (x < w && y < h) {
        float acc = 0.0f;
#if OP_UNROLL_ROWS
#pragma unroll
#else
#pragma unroll 1
#endif
        for (int j = 0; j < TAPS_Y; j++)
#pragma unroll
            for (int i = 0; i < TAPS_X; i++)
                acc = fma(separable ? ky[j] * kx[i] : kx[j * TAPS_X + i],
                          raw[(ly + j) * OP_RAW_W + lx + i], acc);
        dst[(tT + y) * pitch + tL + x] = acc;
    }
}
#endif

/* ------------------------------------------------------------------------------------------ */
/* A block row's read window (the tiled kernels)                                              */
/* ------------------------------------------------------------------------------------------ */

/* TC_VECTOR_IO=0 (--scalar-io): global loads and stores one float at a time. */
#ifndef TC_VECTOR_IO
#define TC_VECTOR_IO 1
#endif
#if BLOCK_X % 4 != 0
#error "BLOCK_X must be a multiple of 4"
#endif
#if SHIFT < 0 || SHIFT > 3 || (!TC_VECTOR_IO && SHIFT != 0)
#error "SHIFT is (sL - tL) mod 4, and 0 without float4 I/O"
#endif

#define SEG_W (BLOCK_X + 2 * RADIUS_X) /* raw pixels in one row segment of a block */

/*
 * The read window of a block row. With float4 I/O a row segment (ROI columns x - RADIUS_X ..
 * x + BLOCK_X + RADIUS_X - 1, x the block's first column) is read as whole aligned float4s:
 * relative to the multiple of 4 at or before the block's first source column (x - SHIFT in
 * ROI columns), those from WIN_LO to WIN_HI - 1. Aligned rows of radius 1 keep the article's
 * halo: the block's float4s and one float each side. APRON_L and APRON_R are the columns read
 * left of the block's first pixel and right of its last: class 1 needs its tile and these
 * aprons inside the sROI (tiled_geometry.c's tc_tiled_classes computes the same).
 */
#define FLOOR4(v) (((v) + 64) / 4 * 4 - 64) /* v rounded down to a multiple of 4, v >= -64 */
#if !TC_VECTOR_IO || (SHIFT == 0 && RADIUS_X == 1)
#define APRON_L RADIUS_X
#define APRON_R RADIUS_X
#else
#define WIN_LO FLOOR4(SHIFT - RADIUS_X)
#define WIN_HI (FLOOR4(SHIFT + BLOCK_X - 1 + RADIUS_X) + 4)
#define WIN_Q ((WIN_HI - WIN_LO) / 4) /* float4s per segment */
#define APRON_L (SHIFT - WIN_LO)
#define APRON_R (WIN_HI - SHIFT - BLOCK_X)
#endif

/* The raw segment of the block whose first pixel is source column sx of source row sy,
 * unchecked: the caller knows that the window lies inside the sROI. The blocks of
 * neighbouring work-items overlap their windows, which the L1 cache shares. */
TC_INLINE void load_segment(SRC_T src, int pitch, int sx, int sy, float seg[SEG_W])
{
#if TC_IMAGE || TC_IO_U8 /* one pixel at a time: texels, or bytes at any alignment */
#pragma unroll
    for (int i = 0; i < SEG_W; i++)
        seg[i] = SRC_AT(src, pitch, sx - RADIUS_X + i, sy);
#else
    __global const float *p = src + sy * pitch + sx; /* the block's first pixel */
#if !TC_VECTOR_IO
#pragma unroll
    for (int i = 0; i < SEG_W; i++)
        seg[i] = p[i - RADIUS_X];
#elif SHIFT == 0 && RADIUS_X == 1
    /* A cast, not vload4: vload4 promises only 4-byte alignment, so a compiler may split it;
     * the pointer type tells it the 16 bytes are aligned, as they are. */
    __global const float4 *p4 = (__global const float4 *)p;
#pragma unroll
    for (int v = 0; v < BLOCK_X / 4; v++) {
        const float4 q = p4[v];
        seg[1 + 4 * v] = q.x;
        seg[2 + 4 * v] = q.y;
        seg[3 + 4 * v] = q.z;
        seg[4 + 4 * v] = q.w;
    }
    seg[0] = p[-1];
    seg[SEG_W - 1] = p[BLOCK_X];
#else
    /* The aligned float4s that cover the segment, and the segment picked out of them: SHIFT
     * is known when the program is built, so the picking is register renaming. */
    __global const float4 *w4 = (__global const float4 *)(p - SHIFT + WIN_LO);
    float win[4 * WIN_Q];
#pragma unroll
    for (int v = 0; v < WIN_Q; v++) {
        const float4 q = w4[v];
        win[4 * v] = q.x;
        win[4 * v + 1] = q.y;
        win[4 * v + 2] = q.z;
        win[4 * v + 3] = q.w;
    }
#pragma unroll
    for (int i = 0; i < SEG_W; i++)
        seg[i] = win[SHIFT - RADIUS_X - WIN_LO + i];
#endif
#endif /* TC_IMAGE || TC_IO_U8 */
}

/* The segment of a row outside the sROI under BORDER_CONSTANT: the border value throughout. */
TC_INLINE void fill_segment(float value, float seg[SEG_W])
{
#pragma unroll
    for (int i = 0; i < SEG_W; i++)
        seg[i] = value;
}

/* The same segment of ROI row y, either possibly outside the sROI: the row mapped by the
 * border rule, then the window read as in class 1 where it lies inside the sROI's columns,
 * else each pixel's column mapped (the blocks at the sROI's left and right edges). Each
 * coordinate is mapped by border_index, or with fold (a constant at every call) by
 * border_fold, whose one fold is enough where the sROI is large (Masks.cl's folded windows). */
TC_INLINE void load_segment_mapped(SRC_T src, int pitch, int sL, int sT, int x, int y, int w,
                                   int h, float value, bool fold, float seg[SEG_W])
{
    const int sy = fold ? border_fold(y, h) : border_index(y, h);
    if (BORDER == BORDER_CONSTANT && sy < 0) {
        fill_segment(value, seg);
        return;
    }
    if (x >= APRON_L && x + BLOCK_X + APRON_R <= w) {
        load_segment(src, pitch, sL + x, sT + sy, seg);
    } else {
#pragma unroll
        for (int i = 0; i < SEG_W; i++) {
            const int c = x - RADIUS_X + i;
            const int sx = fold ? border_fold(c, w) : border_index(c, w);
            seg[i] = BORDER == BORDER_CONSTANT && sx < 0 ? value
                                                         : SRC_AT(src, pitch, sL + sx, sT + sy);
        }
    }
}

TC_INLINE void load_segment_bordered(SRC_T src, int pitch, int sL, int sT, int x, int y, int w,
                                     int h, float value, float seg[SEG_W])
{
    load_segment_mapped(src, pitch, sL, sT, x, y, w, h, value, false, seg);
}

/* load_segment_bordered with its per-pixel branch (a window crossing the sROI's left or right
 * edge, each column mapped by the border rule) as a loop that is not unrolled, into an array of
 * its own, copied after. Unrolled, that branch's SEG_W mapped addresses and loads are scheduled
 * at once: registers the rest of a kernel does not need, which every work-group then takes for
 * the few windows at the sROI's edges (tiled_slide_conv, long-lean, and tiled_mask_rows_conv
 * where the sROI is too small to fold, Masks.cl; the kernels that came before keep
 * load_segment_bordered, as measured). The price: each load waits for the one before. */
TC_INLINE void load_segment_lean(SRC_T src, int pitch, int sL, int sT, int x, int y, int w,
                                 int h, float value, float seg[SEG_W])
{
    const int sy = border_index(y, h);
    if (BORDER == BORDER_CONSTANT && sy < 0) {
        fill_segment(value, seg);
    } else if (x >= APRON_L && x + BLOCK_X + APRON_R <= w) {
        load_segment(src, pitch, sL + x, sT + sy, seg);
    } else {
        float mapped[SEG_W];
#pragma unroll 1
        for (int i = 0; i < SEG_W; i++) {
            const int sx = border_index(x - RADIUS_X + i, w);
            mapped[i] = BORDER == BORDER_CONSTANT && sx < 0 ? value
                                                            : SRC_AT(src, pitch, sL + sx, sT + sy);
        }
#pragma unroll
        for (int i = 0; i < SEG_W; i++)
            seg[i] = mapped[i];
    }
}

/* The segment of ROI row y at block column x: unchecked (class 1) or mapped (class 2). checked
 * is a constant at every call, so each call site compiles to one of the two. */
TC_INLINE void load_segment_checked(SRC_T src, int pitch, int sL, int sT, int w, int h,
                                    float value, bool checked, int x, int y, float seg[SEG_W])
{
    if (checked)
        load_segment_bordered(src, pitch, sL, sT, x, y, w, h, value, seg);
    else
        load_segment(src, pitch, sL + x, sT + y, seg);
}

/* ------------------------------------------------------------------------------------------ */
/* The store of a block (the tiled kernels whose tiles sit on the target's 4-column grid)     */
/* ------------------------------------------------------------------------------------------ */

/* The store of the block at ROI (bx, by) (tiled_conv's phase (e)). Class 3: the tile is inside
 * the tROI, so is every block: aligned float4 stores (the tile grid is the target's). Class 4:
 * rows below the tROI are skipped, a block row wholly inside is stored as float4s, and the
 * pixels of one that crosses the tROI's left or right edge are guarded one by one. */
/* Four outputs of a block row, from its column 4 v, stored at row[4 v]: one aligned float4,
 * or with TC_IO_U8 four bytes (vstore4 asks a byte's alignment only). */
TC_INLINE void store4(DST_T row, int v, const float out[BLOCK_X])
{
#if TC_IO_U8
    vstore4((uchar4)(tc_byte(out[4 * v]), tc_byte(out[4 * v + 1]), tc_byte(out[4 * v + 2]),
                     tc_byte(out[4 * v + 3])),
            v, row);
#else
    ((__global float4 *)row)[v] = vload4(v, out);
#endif
}

TC_INLINE void store_block(DST_T dst, int pitch, int tL, int tT, int w, int h, int bx, int by,
                           bool free_on_write, float out[BLOCK_Y][BLOCK_X])
{
    DST_T out_row = dst + (tT + by) * pitch + tL + bx;
    if (free_on_write) { /* class 3 */
#pragma unroll
        for (int r = 0; r < BLOCK_Y; r++)
#pragma unroll
            for (int v = 0; v < BLOCK_X / 4; v++)
                if (TC_VECTOR_IO)
                    store4(out_row + r * pitch, v, out[r]);
                else
                    for (int c = 4 * v; c < 4 * v + 4; c++)
                        out_row[r * pitch + c] = DST_VALUE(out[r][c]);
    } else { /* class 4 */
        const bool inside_x = bx >= 0 && bx + BLOCK_X <= w;
#pragma unroll
        for (int r = 0; r < BLOCK_Y; r++) {
            if (by + r >= h)
                continue;
            if (TC_VECTOR_IO && inside_x) {
#pragma unroll
                for (int v = 0; v < BLOCK_X / 4; v++)
                    store4(out_row + r * pitch, v, out[r]);
            } else {
#pragma unroll
                for (int c = 0; c < BLOCK_X; c++)
                    if (bx + c >= 0 && bx + c < w)
                        out_row[r * pitch + c] = DST_VALUE(out[r][c]);
            }
        }
    }
}

/* A block's outputs cleared before its sums. */
TC_INLINE void clear_block(float out[BLOCK_Y][BLOCK_X])
{
#pragma unroll
    for (int o = 0; o < BLOCK_Y; o++)
#pragma unroll
        for (int c = 0; c < BLOCK_X; c++)
            out[o][c] = 0.0f;
}

/* ------------------------------------------------------------------------------------------ */
/* The article's classes of a tile                                                            */
/* ------------------------------------------------------------------------------------------ */

/* The tests of the tiled kernels whose tile (tile_w x tile_h at ROI (l, t)) is read with
 * aprons of APRON_L and APRON_R columns and ry rows above and below. They depend on the tile's
 * place alone, never on the work-item, so every work-item of a group takes the same branch and
 * the barriers inside the branches are reached by all of it or by none. Class 1 (free on
 * read): the tile and its aprons lie inside the sROI, reads unchecked; class 2 otherwise, every
 * coordinate that may leave the sROI mapped. Class 3 (free on write): the tile lies inside the
 * tROI, writes unchecked; class 4 otherwise, writes guarded. */
TC_INLINE bool tile_free_on_read(int l, int t, int tile_w, int tile_h, int ry, int w, int h)
{
    return l >= APRON_L && t >= ry && l + tile_w + APRON_R <= w && t + tile_h + ry <= h;
}

TC_INLINE bool tile_free_on_write(int l, int t, int tile_w, int tile_h, int w, int h)
{
    return l >= 0 && l + tile_w <= w && t + tile_h <= h;
}

#ifdef TC_COUNT_CLASSES
/* For -v and the tests: each group (or each tile, where a group walks several) adds itself to
 * the counts of its two classes, so that the classes reported are the ones the kernel took,
 * not a prediction. COUNT_CLASSES(counts, ...) adds them where counts is true: the call of one
 * work-item of the group; without TC_COUNT_CLASSES it is nothing. */
#define CLASS_COUNTS_ARG , __global int *class_counts
#define CLASS_COUNTS_PASS , class_counts /* to a helper whose parameters end CLASS_COUNTS_ARG */
#define COUNT_CLASSES(counts, free_on_read, free_on_write) \
    count_classes(class_counts, counts, free_on_read, free_on_write)
TC_INLINE void count_classes(__global int *class_counts, bool counts, bool free_on_read,
                             bool free_on_write)
{
    if (counts) {
        atomic_inc(&class_counts[free_on_read ? 0 : 1]);
        atomic_inc(&class_counts[free_on_write ? 2 : 3]);
    }
}
#else
#define CLASS_COUNTS_ARG
#define CLASS_COUNTS_PASS
#define COUNT_CLASSES(counts, free_on_read, free_on_write) ((void)0)
#endif
