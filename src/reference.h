/*
 * reference.h - the CPU version every kernel is checked against: the plainest loop that
 * implements the formula (docs/kernels.md, "What is computed"), and the tolerance a float32
 * device result is held to.
 */
#ifndef TILEDCONV_REFERENCE_H
#define TILEDCONV_REFERENCE_H

#include "filter.h"
#include "image.h"

/* out = in everywhere, then every target-ROI pixel is the formula evaluated in double:
 * out(tL + x, tT + y) = sum_j sum_i w[j][i] S(x + i - rx, y + j - ry), w[j][i] = ky[j] kx[i]
 * or, for a mask, m[j][i] (its own weights, even when the device runs its factors), S the
 * source ROI with coordinates outside it mapped by f->border (clamped to its edge by default,
 * the tool's rule). out must be as large as in; out may be in (the result is built in a copy
 * first). */
int reference_convolve(const tc_plane *in, const tc_roi *roi, const tc_filter_spec *f,
                       tc_plane *out);

/* The tolerance for target pixels: float32 rounding of the sums, bounded by
 * 2 * depth * FLT_EPSILON * max|in| * gain (tc_filter_depth: taps_x + taps_y, or a mask's
 * width x height; tc_filter_gain: sum|kx| sum|ky|, or sum|m|); for a mask run through its
 * factors, plus their own bound and max|in| times sum|m - ky kx| (tc_mask_residual). */
double reference_tolerance(const tc_plane *in, const tc_filter_spec *f);

#endif
