/*
 * filter.h - the filter a run applies: separable row and column coefficients of a length per
 * axis, or a non-separable 2-D mask (and, when the mask is rank 1, its two factors); its border
 * rule; the default binomial; the named filters (box, gauss, binomial, Sobel, Scharr, and the
 * 3 x 3 masks laplacian, laplacian8, sharpen). Pure functions, no OpenCL, so the tests check
 * every coefficient on their own.
 *
 * The tool correlates (SPEC.md: no flip), so a derivative filter [-1, 0, 1] gives
 * out(x) = S(x + 1) - S(x - 1): positive where the intensity increases to the right (x) or
 * downwards (y, row 0 being the top row). These are OpenCV's Sobel and Scharr kernels and
 * signs (cv::getDerivKernels, unnormalised).
 */
#ifndef TILEDCONV_FILTER_H
#define TILEDCONV_FILTER_H

#include "tiledconv.h"

/* The largest mask, TC_MAX_MASK_SIZE x TC_MAX_MASK_SIZE coefficients. */
#define TC_MAX_MASK_TAPS (TC_MAX_MASK_SIZE * TC_MAX_MASK_SIZE)

typedef struct {
    int taps_x, taps_y;     /* odd, 1 .. TC_MAX_TAPS each, not both 1; the radii are
                             * rx = (taps_x - 1) / 2 and ry = (taps_y - 1) / 2. A mask's width and
                             * height. */
    float kx[TC_MAX_TAPS];  /* along rows; unused entries are 0 */
    float ky[TC_MAX_TAPS];  /* along columns */
    tc_border border;
    float border_value;     /* TC_BORDER_CONSTANT's value */
    /* A non-separable mask when mask_width > 0 (then mask_width = taps_x, mask_height =
     * taps_y): mask[j * mask_width + i] weighs S(x + i - rx, y + j - ry). kx and ky are unused
     * unless mask_separable. */
    int mask_width, mask_height;
    float mask[TC_MAX_MASK_TAPS];
    /* The mask is rank 1 within float32 rounding (tc_filter_factor_mask): kx and ky hold its
     * factors and the separable kernels run them; mask stays for the reference. */
    int mask_separable;
} tc_filter_spec;

#define TC_BORDER_COUNT 5
#define TC_MAX_RADIUS ((TC_MAX_TAPS - 1) / 2)

/* 1 for an odd length in TC_MIN_TAPS .. TC_MAX_TAPS (what -f N and a named filter take). */
int tc_taps_valid(int taps);

/* 1 for an odd length of one axis, 1 .. TC_MAX_TAPS (1: that axis unfiltered). */
int tc_axis_taps_valid(int taps);

/* The binomial of these lengths (1/4 1/2 1/4 for 3 taps, 1 4 6 4 1 / 16 for 5; [1] for 1):
 * integers over a power of two, exact in float up to 27 taps (from 29 taps some of them need
 * more than float32's 24 bits), rounded to float beyond. Replicate border, no mask. */
void tc_filter_binomial_xy(tc_filter_spec *f, int taps_x, int taps_y);

/* The same length along both axes. */
void tc_filter_binomial(tc_filter_spec *f, int taps);

/* One axis's binomial of this length (1 .. TC_MAX_TAPS) into k (TC_MAX_TAPS floats, zeros
 * past the length). */
void tc_binomial_coefficients(int taps, float *k);

typedef enum {
    TC_NAMED_BOX,
    TC_NAMED_GAUSS,
    TC_NAMED_BINOMIAL,
    TC_NAMED_SOBEL_X,
    TC_NAMED_SOBEL_Y,
    TC_NAMED_SCHARR_X,
    TC_NAMED_SCHARR_Y,
    /* The 3 x 3 masks (tc_named_is_mask): not separable. */
    TC_NAMED_LAPLACIAN,
    TC_NAMED_LAPLACIAN8,
    TC_NAMED_SHARPEN,
    TC_NAMED_COUNT
} tc_named;

/* The longest Sobel kernel: OpenCV's getDerivKernels stops at 31 taps too, and at 63 taps the
 * unnormalised weights (2^61 and more) would pass float32's range on 8-bit input. */
#define TC_MAX_SOBEL_TAPS 31

/* "box", "gauss", "binomial", "sobel-x", "sobel-y", "scharr-x", "scharr-y", "laplacian",
 * "laplacian8", "sharpen"; "?" otherwise. */
const char *tc_named_name(tc_named id);

/* The filter of that name, or -1 when there is none. */
int tc_named_find(const char *name);

/* 1 for the named masks (laplacian, laplacian8, sharpen), which are 3 x 3 and not separable. */
int tc_named_is_mask(tc_named id);

/* The length used when none is given: 3, except gauss: 5 without a sigma, and the length
 * OpenCV's GaussianBlur picks for a sigma (round(6 sigma + 1), made odd, clamped to
 * 3..TC_MAX_TAPS: sigma 10 gives 61 taps) when sigma > 0 is given. */
int tc_named_default_taps(tc_named id, double sigma);

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

/* gauss's sigma when none is given: OpenCV's getGaussianKernel rule,
 * 0.3 * ((taps - 1) / 2 - 1) + 0.8 (what the command line reports; from 11 taps the weights
 * are the Gaussian of it, tc_gauss_default_coefficients). For every length 3..15 the
 * outermost normalised weight is then above 1/255 (the tightest is 15 taps, sigma 2.6:
 * 0.00411 > 0.00392), so no tap is wasted on a weight that cannot move an 8-bit result. From
 * 17 taps on it is not (17 taps, sigma 2.9: 0.0036; 63 taps, sigma 9.5: 1.2e-4): the rule is
 * OpenCV's, kept for agreement with it; give --sigma (or fewer taps) for a Gaussian without
 * such tails. */
double tc_gauss_default_sigma(int taps);

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

/* The smallest gauss sigma: below about 1.5e-162, 2 sigma^2 underflows to zero in double
 * precision and the weights become 0 / 0 = NaN. 1e-100 keeps well clear of that; any sigma
 * below about 0.2 already gives the identity filter in float32. */
#define TC_MIN_SIGMA 1e-100

/* What tc_filter_check finds wrong with a filter. */
typedef enum {
    TC_FILTER_OK,
    TC_FILTER_KX_NOT_FINITE,   /* a coefficient of kx is NaN or infinite (*index says which) */
    TC_FILTER_KY_NOT_FINITE,
    TC_FILTER_MASK_NOT_FINITE, /* a weight of the mask (*index: j * mask_width + i) */
    TC_FILTER_OVERFLOW         /* a sum could pass FLT_MAX: *bound says how far it could reach */
} tc_filter_problem;

/* The sum of the absolute weights of the products each output sums: sum|kx| x sum|ky|, or a
 * mask's sum|m| (with its factors when it runs separable, the larger of the two). */
double tc_filter_gain(const tc_filter_spec *f);

/* The most products one output sums in one accumulator, for the rounding bounds: taps_x +
 * taps_y for a separable filter (a row sum, then a column sum), width x height for a mask. */
int tc_filter_depth(const tc_filter_spec *f);

/* Every coefficient finite, and no partial sum able to leave float32's range on inputs of at
 * most max_input in magnitude (and the border value, for a constant border): the sums are
 * bounded by tc_filter_gain(f) * max(max_input, |border_value|), and that bound, grown by the
 * rounding of tc_filter_depth(f) float operations, must stay below FLT_MAX. Otherwise the
 * device would turn pixels into infinities or NaN (2 - 2 inf) with nothing to say so. *index
 * (a coefficient's position) and *bound may be NULL. */
tc_filter_problem tc_filter_check(const tc_filter_spec *f, double max_input, int *index,
                                  double *bound);

/* Sets f->taps_x, f->taps_y, f->kx and f->ky to the named separable filter at this length
 * along both axes; no mask; f->border and f->border_value are left as they are. sigma applies
 * to gauss only (<= 0: the default for each length). Returns 0, or -1 when the filter does
 * not exist at this length (tc_named_supports), f untouched. */
int tc_filter_named(tc_filter_spec *f, tc_named id, int taps, double sigma);

/* The same with a length per axis (tc_named_supports_xy). */
int tc_filter_named_xy(tc_filter_spec *f, tc_named id, int taps_x, int taps_y, double sigma);

/* ---- Masks ---------------------------------------------------------------------------- */

/* 1 for a mask size the tool takes: width and height odd, 1 .. TC_MAX_MASK_SIZE, not 1 x 1
 * (which would only scale the image: --scale does that). */
int tc_mask_size_valid(int width, int height);

/* sharpen's amount when none is given. */
#define TC_SHARPEN_DEFAULT_AMOUNT 1.0

/* Sets f to the named 3 x 3 mask (tc_named_is_mask): laplacian 0 1 0; 1 -4 1; 0 1 0 (OpenCV's
 * Laplacian with ksize 1), laplacian8 1 1 1; 1 -8 1; 1 1 1, sharpen the identity plus amount
 * times (the identity minus the 3 x 3 binomial), amount 1: -1/16 -1/8 -1/16; -1/8 7/4 -1/8;
 * -1/16 -1/8 -1/16. Factored as tc_filter_set_mask does. f->border and f->border_value are
 * left as they are. Returns 0, or -1 for an id that is not a mask, f untouched. */
int tc_filter_named_mask(tc_filter_spec *f, tc_named id, double amount);

/* Sets f to the mask m (width x height values, row-major, a valid size) and factors it:
 * f->mask_separable and, when it is rank 1, kx and ky (tc_mask_factor). Unless the
 * environment variable TILEDCONV_MASK_2D is set (to anything but "0"), which keeps every mask
 * on the 2-D kernels: for the tests and benchmarks that compare the two paths. f->border and
 * f->border_value are left as they are. */
void tc_filter_set_mask(tc_filter_spec *f, const float *m, int width, int height);

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
