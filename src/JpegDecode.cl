/*
 * JpegDecode.cl - a JPEG's pixels from its quantised coefficients, with libjpeg-turbo 2.1.5's
 * arithmetic as tjDecompress2 runs it without TJFLAG_FASTDCT or TJFLAG_FASTUPSAMPLE, so that
 * every byte is TurboJPEG's (src/jpeg_decode.c launches them; src/io/jpeg_coefs.c reads the
 * coefficients and keeps on the CPU what these kernels cannot reproduce).
 *
 *   jpeg_idct   one work-item a block: dequantisation and the accurate integer inverse DCT
 *               (jidctint.c, jpeg_idct_islow), into the component's plane of samples;
 *   jpeg_color  one work-item a pixel: each component's sample upsampled as jdsample.c's
 *               chosen method makes it, then YCbCr to RGB with jdcolor.c's tables (or the Y
 *               sample alone for a gray output).
 *
 * The components' layouts come as int4 arguments, one lane a component (.x Y, .y Cb, .z Cr).
 */

/* Lane c of v. */
int lane(int4 v, int c)
{
    return c == 0 ? v.x : c == 1 ? v.y : v.z;
}

/* ---- Dequantisation and the inverse DCT ------------------------------------------------ */

#define CONST_BITS 13
#define PASS1_BITS 2

/* FIX(x) of jidctint.c: x * 2^13 rounded. */
#define FIX_0_298631336 ((long)2446)
#define FIX_0_390180644 ((long)3196)
#define FIX_0_541196100 ((long)4433)
#define FIX_0_765366865 ((long)6270)
#define FIX_0_899976223 ((long)7373)
#define FIX_1_175875602 ((long)9633)
#define FIX_1_501321110 ((long)12299)
#define FIX_1_847759065 ((long)15137)
#define FIX_1_961570560 ((long)16069)
#define FIX_2_053119869 ((long)16819)
#define FIX_2_562915447 ((long)20995)
#define FIX_3_072711026 ((long)25172)

/* jdct.h's DESCALE: a rounded arithmetic shift. libjpeg's JLONG is 64 bits on the LP64 hosts
 * TurboJPEG runs on, hence long here: sums of the products exceed 32 bits for large inputs. */
#define DESCALE(x, n) (((x) + ((long)1 << ((n)-1))) >> (n))

/* TurboJPEG's inverse DCT is its SIMD one (x86: SSE2 or AVX2), which equals the C code only
 * where its 16-bit lanes do not overflow: dequantised coefficients and the first pass's
 * outputs (and their pairwise sums, which it adds in 16 bits) within +-16383, and the
 * output before the range limit within the 10 bits the C table's mask keeps (the SIMD code
 * saturates where the C code wraps: range_limit[x & RANGE_MASK]). A block outside those bounds
 * (never one from 8-bit pixels: a crafted or damaged file) is counted, so that the caller can
 * decode the file on the CPU. */
#define SIMD_SAFE 16383

/* jidctint.c's one-dimensional pass on in[0], in[step], ... in[7 * step] (already scaled as
 * the pass wants), the eight outputs before the descale into out[]. */
void idct_1d(const long *in, int step, long out[8])
{
    long z1, z2, z3, z4, z5;
    long tmp0, tmp1, tmp2, tmp3, tmp10, tmp11, tmp12, tmp13;

    /* Even part: the rotator is sqrt(2) * c(-6). */
    z2 = in[2 * step];
    z3 = in[6 * step];
    z1 = (z2 + z3) * FIX_0_541196100;
    tmp2 = z1 + z3 * -FIX_1_847759065;
    tmp3 = z1 + z2 * FIX_0_765366865;
    tmp0 = (in[0] + in[4 * step]) << CONST_BITS;
    tmp1 = (in[0] - in[4 * step]) << CONST_BITS;
    tmp10 = tmp0 + tmp3;
    tmp13 = tmp0 - tmp3;
    tmp11 = tmp1 + tmp2;
    tmp12 = tmp1 - tmp2;

    /* Odd part: i0..i3 are y7, y5, y3, y1. */
    tmp0 = in[7 * step];
    tmp1 = in[5 * step];
    tmp2 = in[3 * step];
    tmp3 = in[1 * step];
    z1 = tmp0 + tmp3;
    z2 = tmp1 + tmp2;
    z3 = tmp0 + tmp2;
    z4 = tmp1 + tmp3;
    z5 = (z3 + z4) * FIX_1_175875602;
    tmp0 = tmp0 * FIX_0_298631336;
    tmp1 = tmp1 * FIX_2_053119869;
    tmp2 = tmp2 * FIX_3_072711026;
    tmp3 = tmp3 * FIX_1_501321110;
    z1 = z1 * -FIX_0_899976223;
    z2 = z2 * -FIX_2_562915447;
    z3 = z3 * -FIX_1_961570560;
    z4 = z4 * -FIX_0_390180644;
    z3 += z5;
    z4 += z5;
    tmp0 += z1 + z3;
    tmp1 += z2 + z4;
    tmp2 += z2 + z3;
    tmp3 += z1 + z4;

    out[0] = tmp10 + tmp3;
    out[7] = tmp10 - tmp3;
    out[1] = tmp11 + tmp2;
    out[6] = tmp11 - tmp2;
    out[2] = tmp12 + tmp1;
    out[5] = tmp12 - tmp1;
    out[3] = tmp13 + tmp0;
    out[4] = tmp13 - tmp0;
}

/* The inverse DCT's range limit, jdmaster.c's table read as jidctint.c reads it:
 * range_limit[x & RANGE_MASK] with the table starting at CENTERJSAMPLE, so that x in
 * -512..511 is clamped to 0..255 around 128 and anything beyond wraps modulo 1024: the mask's
 * 10 bits read as a signed number, then clamped. */
uchar idct_limit(long x)
{
    const int wrapped = (((int)x & 1023) ^ 512) - 512;
    return (uchar)clamp(wrapped + 128, 0, 255);
}

/* Block `block` of all the components' blocks that are shown (the dummy blocks past a
 * component's samples are never decoded), in order: component 0's row by row, then 1's, 2's.
 *   coef          the components' stored blocks one after another (jpeg_coefs' layout), 64
 *                 int16 a block, written in one transfer;
 *   quant         the components' tables, 64 a component, natural order;
 *   planes        the components' samples, blocks_used x 8 columns a row (its pitch);
 *   wrong_blocks  counts the blocks outside the SIMD code's bounds (SIMD_SAFE);
 *   block_end     the first block of the next component (cumulative counts);
 *   blocks_used   the shown blocks of a row of each component;
 *   blocks_stored the stored blocks of a row (jpeg_coefs' blocks_wide);
 *   coef_start    each component's first coefficient in coef;
 *   plane_start   each component's first byte in planes. */
__kernel void jpeg_idct(__global const short *coef, __global const ushort *quant,
                        __global uchar *planes, __global int *wrong_blocks, int4 block_end,
                        int4 blocks_used, int4 blocks_stored, int4 coef_start, int4 plane_start)
{
    const int block = (int)get_global_id(0);
    if (block >= block_end.z)
        return;
    const int c = block < block_end.x ? 0 : block < block_end.y ? 1 : 2;
    const int first = c == 0 ? 0 : lane(block_end, c - 1);
    const int wide = lane(blocks_used, c);
    /* bx by a product rather than a %: oclgrind's uninitialised-value checker cannot follow
     * the "freeze" LLVM emits for a paired / and % (as Common.cl notes). */
    const int by = (block - first) / wide, bx = block - first - by * wide;
    __global const short *in = coef + lane(coef_start, c) +
                               ((size_t)by * (size_t)lane(blocks_stored, c) + (size_t)bx) * 64;
    __global const ushort *q = quant + c * 64;
    const int pitch = wide * 8;
    __global uchar *out = planes + lane(plane_start, c) + (size_t)by * 8 * (size_t)pitch + bx * 8;

    long dq[64], ws[64], pass[8];
    int unsafe = 0;
    for (int k = 0; k < 64; k++) {
        const int product = (int)in[k] * (int)q[k];
        dq[k] = product;
        unsafe |= dq[k] > SIMD_SAFE || dq[k] < -SIMD_SAFE;
    }
    /* Pass 1: columns, scaled up by 2^PASS1_BITS. */
    for (int col = 0; col < 8; col++) {
        idct_1d(dq + col, 8, pass);
        for (int r = 0; r < 8; r++) {
            ws[r * 8 + col] = (long)(int)DESCALE(pass[r], CONST_BITS - PASS1_BITS);
            unsafe |= ws[r * 8 + col] > SIMD_SAFE || ws[r * 8 + col] < -SIMD_SAFE;
        }
    }
    /* Pass 2: rows, descaled by 8 and the first pass's scale, then range limited. */
    for (int r = 0; r < 8; r++) {
        idct_1d(ws + r * 8, 1, pass);
        for (int col = 0; col < 8; col++) {
            const long x = DESCALE(pass[col], CONST_BITS + PASS1_BITS + 3);
            unsafe |= x > 511 || x < -512;
            out[(size_t)r * pitch + col] = idct_limit(x);
        }
    }
    if (unsafe)
        atomic_inc(wrong_blocks);
}

/* ---- Upsampling and colour conversion -------------------------------------------------- */

/* jdsample.c's methods, as jpeg_decode.c picks them for each component. */
#define UP_FULLSIZE 0  /* fullsize_upsample: the component has the image's size */
#define UP_REPLICATE 1 /* int_upsample, h2v1_upsample, h2v2_upsample: each sample repeated */
#define UP_H2V1 2      /* h2v1_fancy_upsample: triangle filter along the rows */
#define UP_H1V2 3      /* h1v2_fancy_upsample: triangle filter down the columns */
#define UP_H2V2 4      /* h2v2_fancy_upsample: both */

/* The sample (x, y) of component c's plane. */
int at(__global const uchar *p, int pitch, int x, int y)
{
    return p[(size_t)y * (size_t)pitch + (size_t)x];
}

/* The row that the fancy upsamplers blend with row j for output row y (the one above for an
 * even y, below for an odd one): jdmainct.c gives the first row above the top and the last
 * real row below the bottom (its context rows). */
int neighbour_row(int j, int y, int rows)
{
    return y & 1 ? min(j + 1, rows - 1) : max(j - 1, 0);
}

/* Component c's value at pixel (x, y), from its samples (width x height of them) as the
 * upsampler of `method` makes it; the column rules of the fancy ones reproduce their special
 * first and last columns. */
int upsampled(__global const uchar *p, int pitch, int width, int height, int method,
              int h_expand, int v_expand, int x, int y)
{
    if (method == UP_FULLSIZE)
        return at(p, pitch, x, y);
    if (method == UP_REPLICATE)
        return at(p, pitch, x / h_expand, y / v_expand);
    if (method == UP_H1V2) {
        const int j = y >> 1;
        return (3 * at(p, pitch, x, j) + at(p, pitch, x, neighbour_row(j, y, height)) + 1 +
                (y & 1)) >> 2;
    }
    const int i = x >> 1;
    const int other = x & 1 ? min(i + 1, width - 1) : max(i - 1, 0);
    if (method == UP_H2V1)
        return (3 * at(p, pitch, i, y) + at(p, pitch, other, y) + 1 + (x & 1)) >> 2;
    /* UP_H2V2: column sums of the nearer and the further row, then along the row. */
    const int j = y >> 1, jn = neighbour_row(j, y, height);
    const int here = 3 * at(p, pitch, i, j) + at(p, pitch, i, jn);
    const int there = 3 * at(p, pitch, other, j) + at(p, pitch, other, jn);
    return (3 * here + there + 8 - (x & 1)) >> 4;
}

/* jdcolor.c's FIX at SCALEBITS 16 and its rounding half. */
#define FIX_1_40200 91881L
#define FIX_1_77200 116130L
#define FIX_0_71414 46802L
#define FIX_0_34414 22554L
#define ONE_HALF (1L << 15)

/* One output pixel: `channels` 3 (RGB, from Y, Cb, Cr) or 1 (Y). The per-component int4s:
 * plane_start and pitch as jpeg_idct wrote them, the samples' width and height, the method and
 * the integral factors of UP_REPLICATE. */
__kernel void jpeg_color(__global const uchar *planes, __global uchar *out, int width,
                         int height, int channels, int4 plane_start, int4 pitch,
                         int4 samples_wide, int4 samples_high, int4 method, int4 h_expand,
                         int4 v_expand)
{
    const int x = (int)get_global_id(0), y = (int)get_global_id(1);
    if (x >= width || y >= height)
        return;
    int v[3];
    for (int c = 0; c < channels; c++)
        v[c] = upsampled(planes + lane(plane_start, c), lane(pitch, c), lane(samples_wide, c),
                         lane(samples_high, c), lane(method, c), lane(h_expand, c),
                         lane(v_expand, c), x, y);
    __global uchar *to = out + ((size_t)y * (size_t)width + (size_t)x) * (size_t)channels;
    if (channels == 1) {
        to[0] = (uchar)v[0];
        return;
    }
    /* ycc_rgb_convert: the tables' entries computed where they are read. */
    const long cb = v[1] - 128, cr = v[2] - 128;
    const int red = (int)((FIX_1_40200 * cr + ONE_HALF) >> 16);
    const int blue = (int)((FIX_1_77200 * cb + ONE_HALF) >> 16);
    const int green = (int)((-FIX_0_34414 * cb + ONE_HALF + -FIX_0_71414 * cr) >> 16);
    to[0] = (uchar)clamp(v[0] + red, 0, 255);
    to[1] = (uchar)clamp(v[0] + green, 0, 255);
    to[2] = (uchar)clamp(v[0] + blue, 0, 255);
}
