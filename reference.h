/*
 * reference.h - the CPU version every kernel is checked against, and the check itself.
 */
#ifndef TILEDCONV_REFERENCE_H
#define TILEDCONV_REFERENCE_H

#include <stdio.h>

#include "filter.h"

/* out = in everywhere, then every target-ROI pixel is the SPEC.md formula evaluated in double:
 * out(tL + x, tT + y) = sum_j sum_i ky[j] kx[i] S(x + i - r, y + j - r), S the source ROI with
 * coordinates outside it mapped by f->border (clamped to its edge by default, SPEC.md's rule).
 * out must be as large as in. */
void reference_convolve(const tc_plane *in, const tc_roi *roi, const tc_filter *f,
                        tc_plane *out);

/* The tolerance for target pixels: float32 rounding of the sum of at most taps^2 products,
 * bounded by 2 * (2 taps) * FLT_EPSILON * max|in| * sum|kx| * sum|ky|. */
double reference_tolerance(const tc_plane *in, const tc_filter *f);

typedef struct {
    long mismatches;
    double tolerance;
    double max_error; /* largest |expected - actual| inside the target ROI */
} tc_verify_result;

/* Compares every pixel: outside the target ROI exactly, inside within the tolerance. Prints
 * up to max_report mismatches (x, y, expected, actual) to report when it is not NULL. */
tc_verify_result reference_compare(const tc_plane *expected, const tc_plane *actual,
                                   const tc_roi *roi, double tolerance, FILE *report,
                                   int max_report);

#endif
