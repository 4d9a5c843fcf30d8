/*
 * Images.cl - the bilinear-tap trick (-a bilinear): a two-pass separable filter that reads an
 * image2d_t through the texture unit's linear filtering, so that one sample returns the
 * weighted sum of two neighbouring taps. Built after Common.cl (programs.c), whose border
 * rule (border_index) it shares, with the same -D options (RADIUS_X along rows for pass 1,
 * RADIUS_Y along columns for pass 2) and these:
 *
 *   FETCHES_X, FETCHES_Y   samples per output pixel along rows and columns: taps / 2 + 1
 *                          (an axis of 1 tap: one sample, the lone tap)
 *   LONE_X, LONE_Y         which of them reads one tap alone (0: the first, FETCHES - 1: the
 *                          last); every other one reads a pair of neighbouring taps
 *   BL_GROUP_X, BL_GROUP_Y the work-group (config.h)
 *
 * The trick. Two taps at offsets o and o + 1 with weights w1 and w2 of the same sign (or a
 * zero) sum to (w1 + w2) times the linear interpolation at o + f, f = w2 / (w1 + w2) in 0..1:
 *     w1 S(o) + w2 S(o + 1) = (w1 + w2) ((1 - f) S(o) + f S(o + 1)).
 * With unnormalised coordinates a linear sampler interpolates between texels i and i + 1 with
 * weight a at coordinate u = i + 0.5 + a, so the sample for a pair is taken at o + 0.5 + f.
 * The host pairs the taps (bilinear.c: the lone tap last, or first when that pairing would mix
 * signs) and passes each sample as a float4: (o, 0.5 + f, w1 + w2, unused), o the pair's first
 * tap relative to the centre; the lone tap is (o, -, w, -), read with the nearest sampler.
 *
 * Texture units interpolate with a few bits of fraction (8 on NVIDIA's), so the result is an
 * approximation: docs/kernels.md, "The bilinear-tap trick", derives the tolerance -e holds it to
 * (tc_tolerance). PoCL and oclgrind interpolate in float.
 *
 * Borders. A sample covers its two taps only when both lie inside the region being filtered:
 * a sampler's address modes know the image's edges, not the sROI's, and a pair straddling the
 * sROI's edge would mix in a pixel the border rule replaces. So the work-items whose taps all
 * lie inside (all but the radius's pixels at each end of a row or column, and pass 1's last
 * row: see the footprint below) take the FETCHES samples, and the others read their taps one
 * by one through border_index, exactly as the buffer kernels do: every border rule is the
 * reference's. Pass 1 filters the sROI's rows into a temporary image of the ROI's size (ROI
 * coordinates); pass 2 filters its columns into the
 * tROI, a row outside the ROI mapped by the border rule, or for BORDER_CONSTANT the constant
 * filtered by kx (border_value2 from the host, as rows_transposed_conv's pass 2 takes).
 *
 * The 2 x 2 footprint. A linear sample in a 2-D image also fetches the next row (pass 1) or
 * column (pass 2) with weight exactly 0 (pass 1's samples sit on texel centres vertically,
 * pass 2's horizontally), and 0 times a NaN is still NaN. So pass 1 reads the sROI's last row
 * tap by tap too (the row below it belongs to the plane, not to the sROI: "no pixel outside the
 * source ROI is read" holds for the texture unit as well), and pass 2's temporary is exactly
 * the ROI's size, so the column past its last is the sampler's clamp to its edge.
 */

#if !defined(FETCHES_X) || !defined(FETCHES_Y) || !defined(LONE_X) || !defined(LONE_Y) || \
    !defined(BL_GROUP_X) || !defined(BL_GROUP_Y)
#error "build Images.cl with the -D options that storage.c passes"
#endif

__constant sampler_t bl_linear =
    CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;
__constant sampler_t bl_nearest =
    CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

/* The tap at texel at, its coordinate along the pass's axis mapped by the border rule to
 * index: value where the rule put it outside (BORDER_CONSTANT's -1), else the texel. */
TC_INLINE float mapped_texel(read_only image2d_t img, int2 at, int index, float value)
{
    return BORDER == BORDER_CONSTANT && index < 0 ? value : read_imagef(img, bl_nearest, at).x;
}

/*
 * Pass 1: tmp(x, y) = sum_i kx[i] S(sL + x + i - RADIUS_X, sT + y) for the ROI's w x h pixels,
 * columns outside the sROI mapped by the border rule. Work-item (x, y) computes tmp(x, y).
 */
__kernel __attribute__((reqd_work_group_size(BL_GROUP_X, BL_GROUP_Y, 1)))
void bilinear_rows(read_only image2d_t src, write_only image2d_t tmp, int sL, int sT, int w,
                   int h, __constant const float4 *fetch, __constant const float *kx,
                   float border_value)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    float acc = 0.0f;
    if (x >= RADIUS_X && x + RADIUS_X < w && y + 1 < h) {
        /* Every tap, and the row below, inside the sROI: FETCHES_X samples. (float) of the
         * integer part is exact below 2^24; adding 0.5 + f rounds once (docs/kernels.md: the
         * coordinate's share of the tolerance). */
        const float v = (float)(sT + y) + 0.5f;
#pragma unroll
        for (int f = 0; f < FETCHES_X; f++) {
            const float4 q = fetch[f];
            const int o = sL + x + (int)q.x;
            const float s =
                f == LONE_X ? read_imagef(src, bl_nearest, (int2)(o, sT + y)).x
                            : read_imagef(src, bl_linear, (float2)((float)o + q.y, v)).x;
            acc = fma(q.z, s, acc);
        }
    } else {
        /* A tap outside the sROI: every tap on its own, mapped by the border rule. */
#pragma unroll
        for (int i = 0; i < TAPS_X; i++) {
            const int bx = border_index(x + i - RADIUS_X, w);
            acc = fma(kx[i], mapped_texel(src, (int2)(sL + bx, sT + y), bx, border_value), acc);
        }
    }
    write_imagef(tmp, (int2)(x, y), (float4)(acc, 0.0f, 0.0f, 1.0f));
}

/*
 * Pass 2: dst(tL + x, tT + y) = sum_j ky[j] tmp(x, y + j - RADIUS_Y), rows outside the ROI
 * mapped by the border rule (BORDER_CONSTANT: border_value2, the constant filtered by kx).
 */
__kernel __attribute__((reqd_work_group_size(BL_GROUP_X, BL_GROUP_Y, 1)))
void bilinear_cols(read_only image2d_t tmp, __global float *dst, int pitch, int tL, int tT,
                   int w, int h, __constant const float4 *fetch, __constant const float *ky,
                   float border_value2)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    float acc = 0.0f;
    if (y >= RADIUS_Y && y + RADIUS_Y < h) {
        const float u = (float)x + 0.5f;
#pragma unroll
        for (int f = 0; f < FETCHES_Y; f++) {
            const float4 q = fetch[f];
            const int o = y + (int)q.x;
            const float s =
                f == LONE_Y ? read_imagef(tmp, bl_nearest, (int2)(x, o)).x
                            : read_imagef(tmp, bl_linear, (float2)(u, (float)o + q.y)).x;
            acc = fma(q.z, s, acc);
        }
    } else {
#pragma unroll
        for (int j = 0; j < TAPS_Y; j++) {
            const int by = border_index(y + j - RADIUS_Y, h);
            acc = fma(ky[j], mapped_texel(tmp, (int2)(x, by), by, border_value2), acc);
        }
    }
    dst[(tT + y) * pitch + tL + x] = acc;
}
