/*
 * Samples.cl - what the two conversion programs (Pixels.cl, Channels.cl) share, put before
 * each: double precision, contraction off (no fused multiply-add may change a rounding), and
 * the output mapping of image.c (tc_map_byte, tc_map_word) in the same expressions, in the
 * same order.
 */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

/* image.c's clamped: v * scale + offset clamped to 0..255, NaN to 0. */
static inline double map_clamped(float v, double scale, double offset)
{
    const double m = (double)v * scale + offset;
    if (!(m > 0.0)) /* negative, zero and NaN */
        return 0.0;
    return m >= 255.0 ? 255.0 : m;
}

/* image.c's tc_map_byte: the clamped value rounded, halves up. */
static inline uchar map_byte(float v, double scale, double offset)
{
    return (uchar)floor(map_clamped(v, scale, offset) + 0.5);
}

/* image.c's tc_map_word: the clamped value scaled to 0..65535 (x 65535 / 255), halves up. */
static inline ushort map_word(float v, double scale, double offset)
{
    return (ushort)floor(map_clamped(v, scale, offset) * 65535.0 / 255.0 + 0.5);
}
