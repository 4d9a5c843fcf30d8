/*
 * reference.c - the plainest loop that implements SPEC.md's formula. No tiling, no separable
 * shortcut: the full (2r + 1)^2 sum per pixel, in double, so that it is obviously right.
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

int reference_convolve(const tc_plane *in, const tc_roi *roi, const tc_filter_spec *f,
                       tc_plane *out)
{
    const int r = (f->taps - 1) / 2;
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
            for (int j = -r; j <= r; j++) {
                int sy = border_index(y + j, roi->height, f->border);
                for (int i = -r; i <= r; i++) {
                    int sx = border_index(x + i, roi->width, f->border);
                    double s = sx < 0 || sy < 0
                                   ? (double)f->border_value
                                   : (double)src[(size_t)(roi->src_top + sy) * (size_t)in->width +
                                                 (size_t)(roi->src_left + sx)];
                    sum += (double)f->ky[j + r] * (double)f->kx[i + r] * s;
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
    double max_in = fabs(f->border_value), sum_kx = 0.0, sum_ky = 0.0;
    size_t n = (size_t)in->width * (size_t)in->height;
    for (size_t i = 0; i < n; i++)
        if (fabs(in->px[i]) > max_in)
            max_in = fabs(in->px[i]);
    for (int i = 0; i < f->taps; i++) {
        sum_kx += fabs(f->kx[i]);
        sum_ky += fabs(f->ky[i]);
    }
    /* Each output is at most 2 * taps float operations deep (a row sum, then a column sum);
     * each rounds by at most FLT_EPSILON / 2 of a partial sum bounded by max|in| sum|k|. The
     * factor 2 covers the device's freedom to contract a * b + c into an fma or not. */
    double bound = 2.0 * (2.0 * f->taps) * FLT_EPSILON * max_in * sum_kx * sum_ky;
    return bound > 0.0 ? bound : FLT_MIN;
}
