/*
 * reference.c - the plainest loop that implements the formula (docs/kernels.md, "What is
 * computed"). No tiling, no separable shortcut: the full (2 rx + 1) x (2 ry + 1) sum per pixel,
 * in double, so that it is obviously right; a mask's weights summed as they are, never its
 * factors.
 */
#include "reference.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Maps coordinate p into 0 .. n - 1 by the border rule, as OpenCV's borderInterpolate does;
 * -1 for a constant border outside. */
static int border_index(int p, int n, tc_border mode)
{
    if (p >= 0 && p < n)
        return p;
    switch (mode) {
    case TC_BORDER_REPLICATE:
        return p < 0 ? 0 : n - 1;
    case TC_BORDER_REFLECT101:
    case TC_BORDER_REFLECT: {
        const int delta = mode == TC_BORDER_REFLECT101;
        if (n == 1)
            return 0;
        while (p < 0 || p >= n)
            p = p < 0 ? -p - 1 + delta : 2 * n - 1 - p - delta;
        return p;
    }
    case TC_BORDER_WRAP:
        p %= n;
        return p < 0 ? p + n : p;
    default: /* TC_BORDER_CONSTANT */
        return -1;
    }
}

/* The weight of the product with S(x + i - rx, y + j - ry): the mask's, else ky[j] kx[i]. The
 * mask is used even when it is separable: the reference sums the 2-D products directly. */
static double weight(const tc_filter_spec *f, int j, int i)
{
    if (f->mask_width)
        return (double)f->mask[j * f->mask_width + i];
    return (double)f->ky[j] * (double)f->kx[i];
}

int reference_convolve(const tc_plane *in, const tc_roi *roi, const tc_filter_spec *f,
                       tc_plane *out)
{
    const int rx = (f->taps_x - 1) / 2, ry = (f->taps_y - 1) / 2;
    const size_t n = (size_t)in->width * (size_t)in->height;
    /* In place, the sums must still read the input: they read a copy of it. */
    float *copy = in->px == out->px ? malloc(n * sizeof *copy) : NULL;
    const float *src = copy ? copy : in->px;
    if (in->px == out->px && !copy)
        return TC_ENOMEM;
    if (copy)
        memcpy(copy, in->px, n * sizeof *copy);
    else
        memcpy(out->px, in->px, n * sizeof *in->px);

    for (int y = 0; y < roi->height; y++) {
        for (int x = 0; x < roi->width; x++) {
            double sum = 0.0;
            for (int j = -ry; j <= ry; j++) {
                int sy = border_index(y + j, roi->height, f->border);
                for (int i = -rx; i <= rx; i++) {
                    int sx = border_index(x + i, roi->width, f->border);
                    double s = sx < 0 || sy < 0
                                   ? (double)f->border_value
                                   : (double)src[(size_t)(roi->src_top + sy) * (size_t)in->width +
                                                 (size_t)(roi->src_left + sx)];
                    sum += weight(f, j + ry, i + rx) * s;
                }
            }
            out->px[(size_t)(roi->dst_top + y) * (size_t)out->width + (size_t)(roi->dst_left + x)] =
                (float)sum;
        }
    }
    free(copy);
    return TC_OK;
}

double reference_tolerance(const tc_plane *in, const tc_filter_spec *f)
{
    double max_in = fabs(f->border_value);
    size_t n = (size_t)in->width * (size_t)in->height;
    for (size_t i = 0; i < n; i++)
        if (fabs(in->px[i]) > max_in)
            max_in = fabs(in->px[i]);
    /* Each output is at most tc_filter_depth float operations deep (a row sum, then a column
     * sum; a mask's products in one sum); each rounds by at most FLT_EPSILON / 2 of a partial
     * sum bounded by max|in| times the filter's gain (sum|kx| sum|ky|, or sum|m|). The bound
     * below is 4 times that: the device may contract a * b + c into an fma or not, round a
     * product before it adds it, and sum in any order. */
    double bound = 2.0 * tc_filter_depth(f) * FLT_EPSILON * max_in * tc_filter_gain(f);
    if (f->mask_width && f->mask_separable) {
        /* The device runs the factors: their own rounding, and how far their products are
         * from the mask's weights, which the reference uses. */
        double sum_x = 0.0, sum_y = 0.0;
        for (int i = 0; i < f->taps_x; i++)
            sum_x += fabs((double)f->kx[i]);
        for (int j = 0; j < f->taps_y; j++)
            sum_y += fabs((double)f->ky[j]);
        bound += 2.0 * (f->taps_x + f->taps_y) * FLT_EPSILON * max_in * sum_x * sum_y +
                 max_in * tc_mask_residual(f->mask, f->mask_width, f->mask_height, f->kx,
                                           f->ky);
    }
    return bound > 0.0 ? bound : FLT_MIN;
}
