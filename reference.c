/*
 * reference.c - the plainest loop that implements SPEC.md's formula. No tiling, no separable
 * shortcut: the full (2r + 1)^2 sum per pixel, in double, so that it is obviously right.
 */
#include "reference.h"

#include <float.h>
#include <math.h>
#include <string.h>

static int clamp_int(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

void reference_convolve(const tc_plane *in, const tc_roi *roi, const tc_filter *f,
                        tc_plane *out)
{
    const int r = (f->taps - 1) / 2;
    memcpy(out->px, in->px, (size_t)in->width * (size_t)in->height * sizeof *in->px);

    for (int y = 0; y < roi->height; y++) {
        for (int x = 0; x < roi->width; x++) {
            double sum = 0.0;
            for (int j = -r; j <= r; j++) {
                int sy = clamp_int(roi->src_top + y + j, roi->src_top,
                                   roi->src_top + roi->height - 1);
                for (int i = -r; i <= r; i++) {
                    int sx = clamp_int(roi->src_left + x + i, roi->src_left,
                                       roi->src_left + roi->width - 1);
                    sum += (double)f->ky[j + r] * (double)f->kx[i + r] *
                           (double)in->px[(size_t)sy * (size_t)in->width + (size_t)sx];
                }
            }
            out->px[(size_t)(roi->dst_top + y) * (size_t)out->width + (size_t)(roi->dst_left + x)] =
                (float)sum;
        }
    }
}

double reference_tolerance(const tc_plane *in, const tc_filter *f)
{
    double max_in = 0.0, sum_kx = 0.0, sum_ky = 0.0;
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

static int in_target(const tc_roi *roi, int x, int y)
{
    return x >= roi->dst_left && x < roi->dst_left + roi->width && y >= roi->dst_top &&
           y < roi->dst_top + roi->height;
}

tc_verify_result reference_compare(const tc_plane *expected, const tc_plane *actual,
                                   const tc_roi *roi, double tolerance, FILE *report,
                                   int max_report)
{
    tc_verify_result res = {0, tolerance, 0.0};
    for (int y = 0; y < expected->height; y++) {
        for (int x = 0; x < expected->width; x++) {
            size_t i = (size_t)y * (size_t)expected->width + (size_t)x;
            float e = expected->px[i], a = actual->px[i];
            int ok;
            if (in_target(roi, x, y)) {
                double d = fabs((double)e - (double)a);
                if (d > res.max_error || d != d)
                    res.max_error = d;
                ok = d <= tolerance; /* false for NaN too */
            } else {
                ok = memcmp(&e, &a, sizeof e) == 0; /* untouched pixels: bit for bit */
            }
            if (!ok) {
                if (report && res.mismatches < max_report)
                    fprintf(report, "  mismatch at (%d, %d): expected %.6f, actual %.6f%s\n", x,
                            y, e, a, in_target(roi, x, y) ? "" : " (outside the target ROI)");
                res.mismatches++;
            }
        }
    }
    return res;
}
