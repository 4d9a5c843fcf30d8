/*
 * filter.h - the separable filter a run applies: its row and column coefficients and its
 * border rule, the default binomial, and the named filters (box, gauss, binomial, Sobel,
 * Scharr). Pure functions, no OpenCL, so the tests check every coefficient on their own.
 *
 * The tool correlates (SPEC.md: no flip), so a derivative filter [-1, 0, 1] gives
 * out(x) = S(x + 1) - S(x - 1): positive where the intensity increases to the right (x) or
 * downwards (y, row 0 being the top row). These are OpenCV's Sobel and Scharr kernels and
 * signs (cv::getDerivKernels, unnormalised).
 */
#ifndef TILEDCONV_FILTER_H
#define TILEDCONV_FILTER_H

#include "tiledconv.h"

typedef struct {
    int taps;               /* odd, TC_MIN_TAPS .. TC_MAX_TAPS; the radius is (taps - 1) / 2 */
    float kx[TC_MAX_TAPS];  /* along rows; unused entries are 0 */
    float ky[TC_MAX_TAPS];  /* along columns */
    tc_border border;
    float border_value;     /* TC_BORDER_CONSTANT's value */
} tc_filter_spec;

#define TC_BORDER_COUNT 5
#define TC_MAX_RADIUS ((TC_MAX_TAPS - 1) / 2)

/* 1 for an odd length in TC_MIN_TAPS .. TC_MAX_TAPS. */
int tc_taps_valid(int taps);

/* The binomial of this length along both axes (1/4 1/2 1/4 for 3 taps, 1 4 6 4 1 / 16 for 5):
 * integers over a power of two, exact in float up to 15 taps. Replicate border. */
void tc_filter_binomial(tc_filter_spec *f, int taps);

typedef enum {
    TC_NAMED_BOX,
    TC_NAMED_GAUSS,
    TC_NAMED_BINOMIAL,
    TC_NAMED_SOBEL_X,
    TC_NAMED_SOBEL_Y,
    TC_NAMED_SCHARR_X,
    TC_NAMED_SCHARR_Y,
    TC_NAMED_COUNT
} tc_named;

/* "box", "gauss", "binomial", "sobel-x", "sobel-y", "scharr-x", "scharr-y"; "?" otherwise. */
const char *tc_named_name(tc_named id);

/* The filter of that name, or -1 when there is none. */
int tc_named_find(const char *name);

/* The length used when none is given: 3, except gauss: 5 without a sigma, and the length
 * OpenCV's GaussianBlur picks for a sigma (round(6 sigma + 1), made odd, clamped to 3..15)
 * when sigma > 0 is given. */
int tc_named_default_taps(tc_named id, double sigma);

/* 1 when the filter exists at this length (odd 3..TC_MAX_TAPS; scharr: 3 only), else 0. */
int tc_named_supports(tc_named id, int taps);

/* gauss's sigma when none is given: OpenCV's getGaussianKernel rule,
 * 0.3 * ((taps - 1) / 2 - 1) + 0.8. For every length 3..15 the outermost normalised weight is
 * then above 1/255 (the tightest is 15 taps, sigma 2.6: 0.00411 > 0.00392), so no tap is
 * wasted on a weight that cannot move an 8-bit result. */
double tc_gauss_default_sigma(int taps);

/* taps samples of exp(-d^2 / (2 sigma^2)), d = -r .. r, divided by their sum. sigma > 0. */
void tc_gauss_coefficients(int taps, double sigma, float *k);

/* Row n of Pascal's triangle (n + 1 integers, exact in double for n <= 52). */
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
    TC_FILTER_KX_NOT_FINITE, /* a coefficient of kx is NaN or infinite (*index says which) */
    TC_FILTER_KY_NOT_FINITE,
    TC_FILTER_OVERFLOW       /* a sum could pass FLT_MAX: *bound says how far it could reach */
} tc_filter_problem;

/* Every coefficient finite, and no partial sum able to leave float32's range on inputs of at
 * most max_input in magnitude (and the border value, for a constant border): the sums are
 * bounded by sum|kx| * sum|ky| * max(max_input, |border_value|), and that bound, grown by the
 * rounding of 2 * taps float operations, must stay below FLT_MAX. Otherwise the device would
 * turn pixels into infinities or NaN (2 - 2 inf) with nothing to say so. *index (a coefficient's
 * position) and *bound may be NULL. */
tc_filter_problem tc_filter_check(const tc_filter_spec *f, double max_input, int *index,
                                  double *bound);

/* Sets f->taps, f->kx and f->ky to the named filter at this length; f->border and
 * f->border_value are left as they are. sigma applies to gauss only (<= 0: the default).
 * Returns 0, or -1 when the filter does not exist at this length (see tc_named_supports),
 * f untouched. */
int tc_filter_named(tc_filter_spec *f, tc_named id, int taps, double sigma);

#endif
