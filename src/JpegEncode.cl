/*
 * JpegEncode.cl - a JPEG's block arithmetic on the way out, as libjpeg-turbo 2.1 does it for
 * jpeg_encode (tjCompress2 with TJFLAG_ACCURATEDCT), so that the CPU's Huffman coding of these
 * coefficients (jpeg_write_coefficients) writes jpeg_encode's very bytes: RGB to YCbCr
 * (jccolor.c), the edges padded (jcprepct.c, jcsample.c), downsampling (jcsample.c), the
 * accurate forward DCT (jfdctint.c) and quantisation (jcdctmgr.c). Every step is integer
 * arithmetic, so the device's results are libjpeg's exactly.
 *
 * One work-item makes one block of one component: its 64 samples straight from the pixels
 * (each colour-converted where it is read: a 4:2:0 chroma block reads 16 x 16 pixels), the
 * DCT, the quantised coefficients. The components' blocks share one range; the component
 * table says where each one's start.
 */

/* One component, as jpeg_encode.c's jpeg_block_layout fills it (all ints, the same order). */
typedef struct {
    int first_block;      /* the range's index of the component's first block */
    int width_in_blocks;  /* real blocks, libjpeg's width_in_blocks and height_in_blocks */
    int height_in_blocks;
    int blocks_wide;      /* the coefficient array: those rounded up to the sampling factors */
    int blocks_high;
    int coef_block;       /* the array's first block in the coefficient buffer */
    int h_samp, v_samp;   /* sampling factors */
    int h_ratio, v_ratio; /* pixels a sample: the largest factors over this one's (1 or 2) */
    int rows;             /* sample rows the downsampler makes before the bottom is padded */
    int kind;             /* 0: Y (or the gray plane), 1: Cb, 2: Cr */
} component_layout;

/* jccolor.c's rgb_ycc_start: FIX(x) = x * 2^16 rounded, CBCR_OFFSET = 128 << 16, ONE_HALF =
 * 1 << 15; Cb and Cr round with ONE_HALF - 1, so that 255 cannot come out as 256. The sums
 * are never negative, so the shift is libjpeg's. */
#define FIX_0_29900 19595
#define FIX_0_58700 38470
#define FIX_0_11400 7471
#define FIX_0_16874 11059
#define FIX_0_33126 21709
#define FIX_0_50000 32768
#define FIX_0_41869 27439
#define FIX_0_08131 5329
#define ONE_HALF (1 << 15)
#define CBCR_OFFSET (128 << 16)

static int rgb_to_ycc(int r, int g, int b, int kind)
{
    if (kind == 0)
        return (FIX_0_29900 * r + FIX_0_58700 * g + FIX_0_11400 * b + ONE_HALF) >> 16;
    if (kind == 1)
        return (-FIX_0_16874 * r - FIX_0_33126 * g + FIX_0_50000 * b + CBCR_OFFSET + ONE_HALF -
                1) >> 16;
    return (FIX_0_50000 * r + CBCR_OFFSET + ONE_HALF - 1 - FIX_0_41869 * g - FIX_0_08131 * b) >>
           16;
}

/* The component's value at pixel (x, y), the edges replicated: libjpeg pads the last row down
 * to the last iMCU row (jcprepct.c expand_bottom_edge) and the last column out to the blocks'
 * width (jcsample.c expand_right_edge), both by copying, which clamping reproduces. */
static int pixel_value(__global const uchar *pixels, int width, int height, int channels,
                       int x, int y, int kind)
{
    const size_t at = ((size_t)min(y, height - 1) * (size_t)width + (size_t)min(x, width - 1)) *
                      (size_t)channels;
    if (channels == 1)
        return pixels[at];
    return rgb_to_ycc(pixels[at], pixels[at + 1], pixels[at + 2], kind);
}

/* Sample (sx, sy) of the component: jcsample.c's choice for its ratio, fullsize_downsample
 * (a copy), h2v1_downsample (a pair's mean, the bias 0, 1, 0, 1... along the row) or
 * h2v2_downsample (a 2 x 2 mean, bias 1, 2, 1, 2...). Rows past the downsampled ones repeat
 * the last (jcprepct.c pads the iMCU row after downsampling). */
static int component_sample(__global const uchar *pixels, int width, int height, int channels,
                            const component_layout *l, int sx, int sy)
{
    sy = min(sy, l->rows - 1);
    const int x = sx * l->h_ratio, y = sy * l->v_ratio;
    int sum = 0;
    for (int dy = 0; dy < l->v_ratio; dy++)
        for (int dx = 0; dx < l->h_ratio; dx++)
            sum += pixel_value(pixels, width, height, channels, x + dx, y + dy, l->kind);
    const int n = l->h_ratio * l->v_ratio;
    if (n == 1)
        return sum;
    if (n == 2)
        return (sum + (sx & 1)) >> 1;
    return (sum + 1 + (sx & 1)) >> 2;
}

/* jfdctint.c's jpeg_fdct_islow for 8-bit samples, the same operations in the same order.
 * libjpeg holds these in 64-bit JLONGs; every value fits 32 bits for 8-bit samples (its SIMD
 * versions, which it keeps bit-exact with this C, compute in 32), so ints give the same. */
#define CONST_BITS 13
#define PASS1_BITS 2
#define FIX_0_298631336 2446
#define FIX_0_390180644 3196
#define FIX_0_541196100 4433
#define FIX_0_765366865 6270
#define FIX_0_899976223 7373
#define FIX_1_175875602 9633
#define FIX_1_501321110 12299
#define FIX_1_847759065 15137
#define FIX_1_961570560 16069
#define FIX_2_053119869 16819
#define FIX_2_562915447 20995
#define FIX_3_072711026 25172
/* libjpeg's DESCALE: rounded, the shift arithmetic (OpenCL C shifts signed ints so). */
#define DESCALE(x, n) (((x) + (1 << ((n)-1))) >> (n))

/* One 1-D pass over eight values `step` apart: pass 1 (rows) keeps PASS1_BITS more bits,
 * pass 2 (columns) takes them off and leaves the results 8 times the true DCT's. */
static void fdct_pass(int *d, int step, int pass1)
{
    const int tmp0 = d[0] + d[7 * step], tmp7 = d[0] - d[7 * step];
    const int tmp1 = d[step] + d[6 * step], tmp6 = d[step] - d[6 * step];
    const int tmp2 = d[2 * step] + d[5 * step], tmp5 = d[2 * step] - d[5 * step];
    const int tmp3 = d[3 * step] + d[4 * step], tmp4 = d[3 * step] - d[4 * step];
    const int shift = pass1 ? CONST_BITS - PASS1_BITS : CONST_BITS + PASS1_BITS;

    /* Even part (LL&M figure 1). */
    const int tmp10 = tmp0 + tmp3, tmp13 = tmp0 - tmp3;
    const int tmp11 = tmp1 + tmp2, tmp12 = tmp1 - tmp2;
    if (pass1) {
        d[0] = (tmp10 + tmp11) * (1 << PASS1_BITS);
        d[4 * step] = (tmp10 - tmp11) * (1 << PASS1_BITS);
    } else {
        d[0] = DESCALE(tmp10 + tmp11, PASS1_BITS);
        d[4 * step] = DESCALE(tmp10 - tmp11, PASS1_BITS);
    }
    const int z1e = (tmp12 + tmp13) * FIX_0_541196100;
    d[2 * step] = DESCALE(z1e + tmp13 * FIX_0_765366865, shift);
    d[6 * step] = DESCALE(z1e + tmp12 * -FIX_1_847759065, shift);

    /* Odd part (LL&M figure 8). */
    const int z1 = (tmp4 + tmp7) * -FIX_0_899976223;
    const int z2 = (tmp5 + tmp6) * -FIX_2_562915447;
    const int z5 = (tmp4 + tmp6 + tmp5 + tmp7) * FIX_1_175875602;
    const int z3 = (tmp4 + tmp6) * -FIX_1_961570560 + z5;
    const int z4 = (tmp5 + tmp7) * -FIX_0_390180644 + z5;
    d[7 * step] = DESCALE(tmp4 * FIX_0_298631336 + z1 + z3, shift);
    d[5 * step] = DESCALE(tmp5 * FIX_2_053119869 + z2 + z4, shift);
    d[3 * step] = DESCALE(tmp6 * FIX_3_072711026 + z2 + z3, shift);
    d[step] = DESCALE(tmp7 * FIX_1_501321110 + z1 + z4, shift);
}

static void fdct_islow(int *block)
{
    for (int r = 0; r < 8; r++)
        fdct_pass(block + 8 * r, 1, 1);
    for (int c = 0; c < 8; c++)
        fdct_pass(block + c, 8, 0);
}

/* jcdctmgr.c's quantize() with compute_reciprocal's tables (made on the host): the magnitude
 * plus a correction, times a 16-bit reciprocal, shifted; the sign put back. The SIMD quantiser
 * libjpeg-turbo uses is the same arithmetic. divisors: 64 reciprocals, 64 corrections, 64
 * shifts (shift + 16 of libjpeg's). */
static short quantize(int v, __constant const int *divisors, int i)
{
    const uint recip = (uint)divisors[i], corr = (uint)divisors[64 + i];
    const int shift = divisors[128 + i];
    const uint q = (((uint)abs(v) + corr) * recip) >> shift;
    return (short)(v < 0 ? -(int)q : (int)q);
}

/* Writes a block of zeros whose DC is dc: libjpeg's dummy blocks, which pad the last MCU
 * column and row out to whole MCUs (jccoefct.c, jctrans.c: "all zeroes in the AC entries, DC
 * entries equal to previous block's DC value"). */
static void dummy_block(__global short *out, short dc)
{
    out[0] = dc;
    for (int i = 1; i < 64; i++)
        out[i] = 0;
}

/* The dummy blocks whose DC this block gives: right of it when it ends its row of real blocks,
 * below it when it is the last real block of its MCU in the last real row (an MCU's dummies
 * take the DC of the block before them in the MCU, which comes down to that one). */
static void dummy_blocks(__global short *array, const component_layout *l, int bx, int by,
                         short dc)
{
    if (bx == l->width_in_blocks - 1)
        for (int x = bx + 1; x < l->blocks_wide; x++)
            dummy_block(array + ((size_t)by * l->blocks_wide + x) * 64, dc);
    const int mcu_x = bx / l->h_samp * l->h_samp;
    if (by == l->height_in_blocks - 1 &&
        (bx == mcu_x + l->h_samp - 1 || bx == l->width_in_blocks - 1))
        for (int y = by + 1; y < l->blocks_high; y++)
            for (int x = mcu_x; x < mcu_x + l->h_samp; x++)
                dummy_block(array + ((size_t)y * l->blocks_wide + x) * 64, dc);
}

/* One work-item a real block, every component's blocks in one range (first_block tells whose).
 * pixels: width x height, rows packed, 1 byte (gray) or 3 (R, G, B) a pixel; coef: each
 * component's array, blocks row-major, 64 coefficients each in natural order; divisors: 192
 * ints a component (quantize's). */
__kernel void jpeg_encode_blocks(__global const uchar *pixels, int width, int height,
                                 int channels, __constant const component_layout *layouts,
                                 int components, __constant const int *divisors,
                                 __global short *coef)
{
    const int id = (int)get_global_id(0);
    int c = 0;
    while (c + 1 < components && id >= layouts[c + 1].first_block)
        c++;
    const component_layout l = layouts[c];
    const int n = id - l.first_block;
    if (n >= l.width_in_blocks * l.height_in_blocks) /* past the last block: whole groups */
        return;
    /* The remainder spelt out: LLVM would make n % w so, through a `freeze` that oclgrind's
     * uninitialised-value check cannot follow (kernel-check). */
    const int by = n / l.width_in_blocks, bx = n - by * l.width_in_blocks;

    /* jcdctmgr.c's convsamp: samples centred on 0. */
    int block[64];
    for (int r = 0; r < 8; r++)
        for (int x = 0; x < 8; x++)
            block[8 * r + x] =
                component_sample(pixels, width, height, channels, &l, 8 * bx + x, 8 * by + r) -
                128;
    fdct_islow(block);

    __global short *array = coef + (size_t)l.coef_block * 64;
    __global short *out = array + ((size_t)by * l.blocks_wide + bx) * 64;
    __constant const int *div = divisors + 192 * c;
    const short dc = quantize(block[0], div, 0);
    out[0] = dc;
    for (int i = 1; i < 64; i++)
        out[i] = quantize(block[i], div, i);
    dummy_blocks(array, &l, bx, by, dc); /* the buffer is write-only: the DC kept aside */
}
