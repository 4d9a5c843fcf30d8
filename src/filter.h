/*
 * filter.h - the filter a run applies: separable row and column coefficients of a length per
 * axis, or a non-separable 2-D mask (and, when the mask is rank 1, its two factors); its border
 * rule; the default binomial; the named filters (box, gauss, binomial, Sobel, Scharr, and the
 * 3 x 3 masks laplacian, laplacian8, sharpen). Pure functions, no OpenCL, so the tests check
 * every coefficient on their own.
 *
 * The tool correlates (no flip, docs/kernels.md), so a derivative filter [-1, 0, 1] gives
 * out(x) = S(x + 1) - S(x - 1): positive where the intensity increases to the right (x) or
 * downwards (y, row 0 being the top row). These are OpenCV's Sobel and Scharr kernels and
 * signs (cv::getDerivKernels, unnormalised). The filter's description (tc_filter_spec), the
 * named filters' names and the checks the command line makes are declared in
 * tiledconv_internal.h; the rest, which only the library uses, here.
 */
#ifndef TILEDCONV_FILTER_H
#define TILEDCONV_FILTER_H

#include "tiledconv_internal.h"

/* One axis's binomial of this length (1 .. TC_MAX_TAPS) into k (TC_MAX_TAPS floats, zeros
 * past the length). */
void tc_binomial_coefficients(int taps, float *k);

/* OpenCV's GaussianBlur length for a sigma > 0, round(6 sigma + 1) made odd, at least
 * TC_MIN_TAPS, without the tool's cap (so a caller can refuse a sigma whose Gaussian passes
 * TC_MAX_TAPS: 10.42 and more; 1000001 at most). */
int tc_gauss_taps(double sigma);

/* 1 when the separable filter exists at this length along both axes (odd 3..TC_MAX_TAPS;
 * sobel: 3..TC_MAX_SOBEL_TAPS; scharr: 3 only), else 0; 0 for the masks. */
int tc_named_supports(tc_named id, int taps);

/* 1 when the separable filter exists with taps_x along rows and taps_y along columns: each
 * axis 1..TC_MAX_TAPS, not both 1; an axis of 1 tap is [1] (unfiltered), except the axis a
 * Sobel or Scharr filter differentiates along, which needs its 3 taps or more. */
int tc_named_supports_xy(tc_named id, int taps_x, int taps_y);

/* taps samples of exp(-d^2 / (2 sigma^2)), d = -r .. r, divided by their sum. sigma > 0. */
void tc_gauss_coefficients(int taps, double sigma, float *k);

/* gauss without a sigma (or sigma <= 0): OpenCV's getGaussianKernel(taps, 0), so that
 * --filter gauss -f N is cv2.GaussianBlur(img, (N, N), 0)'s kernel: its fixed tables for 1 to 9
 * taps (3: 1 2 1 / 4, 5: 1 4 6 4 1 / 16, 7: 1 3.5 7 9 7 3.5 1 / 32, 9: 4 13 30 51 60 51 30 13
 * 4 / 256), from 11 taps the sampled Gaussian of sigma 0.15 taps + 0.35 (fma: the rule above
 * as OpenCV evaluates it). */
void tc_gauss_default_coefficients(int taps, float *k);

/* Row n of Pascal's triangle (n + 1 values; integers, exact in double up to n = 56, whose
 * largest, C(56, 28) = 7.6e15, is below 2^53; rounded beyond). */
void tc_binomial_row(int n, double *row);

/* The first-derivative kernel of this odd length: row taps - 3 of Pascal's triangle convolved
 * with [-1, 0, 1], so [-1 0 1] for 3 taps, [-1 -2 0 2 1] for 5 (OpenCV's Sobel). */
void tc_derivative_row(int taps, double *row);

/* The most products one output sums in one accumulator, for the rounding bounds: taps_x +
 * taps_y for a separable filter (a row sum, then a column sum), width x height for a mask. */
int tc_filter_depth(const tc_filter_spec *f);

/* Sets f->taps_x, f->taps_y, f->kx and f->ky to the named separable filter at this length
 * along both axes; no mask; f->border and f->border_value are left as they are. sigma applies
 * to gauss only (<= 0: the default for each length). Returns 0, or -1 when the filter does
 * not exist at this length (tc_named_supports), f untouched. */
int tc_filter_named(tc_filter_spec *f, tc_named id, int taps, double sigma);

/* ---- Masks ---------------------------------------------------------------------------- */

/* Whether the mask m (width x height, row-major) is rank 1 within float32 rounding, and if so
 * its factors: kx (width values) and ky (height values) with |m[j][i] - ky[j] kx[i]| at most
 * 8 float32 epsilons of max(|m[j][i]|, |ky[j] kx[i]|) for every weight (plus 2^-100 of the
 * largest weight, for products that underflow). kx is the row of the largest weight |m[p][q]|
 * and ky its column divided by m[p][q] (so ky[p] = 1). An all-zero mask is rank 0: kx zeros,
 * ky the identity [0 .. 1 .. 0]. Returns 1 (factors written), or 0 (rank 2 or more: kx and ky
 * may hold anything). */
int tc_mask_factor(const float *m, int width, int height, float *kx, float *ky);

/* sum |m[j][i] - ky[j] kx[i]| over the mask: how far the factors are from the mask. */
double tc_mask_residual(const float *m, int width, int height, const float *kx,
                        const float *ky);

#endif
