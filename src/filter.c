/* filter.c - the default binomial and the named filters; see filter.h for the conventions. */
#include "filter.h"

#include <float.h>
#include <math.h>
#include <string.h>

static const char *const names[TC_NAMED_COUNT] = {
    "box", "gauss", "binomial", "sobel-x", "sobel-y", "scharr-x", "scharr-y",
};

const char *tc_named_name(tc_named id)
{
    return id >= 0 && id < TC_NAMED_COUNT ? names[id] : "?";
}

int tc_named_find(const char *name)
{
    for (int i = 0; i < TC_NAMED_COUNT; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

int tc_named_default_taps(tc_named id, double sigma)
{
    if (id != TC_NAMED_GAUSS)
        return 3;
    if (!(sigma > 0.0))
        return 5; /* sigma 1.1: a visible blur that still keeps edges */
    /* OpenCV's GaussianBlur with ksize (0, 0) on 8-bit images: round(6 sigma + 1) | 1, which
     * covers +-3 sigma; the tool's limit caps it. */
    double n = floor(6.0 * sigma + 1.0 + 0.5);
    int taps = n > TC_MAX_TAPS ? TC_MAX_TAPS : (int)n | 1;
    return taps < TC_MIN_TAPS ? TC_MIN_TAPS : taps;
}

int tc_taps_valid(int taps)
{
    return taps >= TC_MIN_TAPS && taps <= TC_MAX_TAPS && taps % 2 == 1;
}

int tc_named_supports(tc_named id, int taps)
{
    if ((int)id < 0 || id >= TC_NAMED_COUNT || !tc_taps_valid(taps))
        return 0;
    /* Scharr's weights are an optimisation for 3 taps; there is no standard longer one. */
    if (id == TC_NAMED_SCHARR_X || id == TC_NAMED_SCHARR_Y)
        return taps == 3;
    return 1;
}

double tc_gauss_default_sigma(int taps)
{
    return 0.3 * ((taps - 1) * 0.5 - 1.0) + 0.8;
}

void tc_gauss_coefficients(int taps, double sigma, float *k)
{
    const int r = (taps - 1) / 2;
    double w[TC_MAX_TAPS], sum = 0.0;
    for (int i = 0; i < taps; i++) {
        double d = (double)(i - r);
        w[i] = exp(-d * d / (2.0 * sigma * sigma));
        sum += w[i];
    }
    /* Symmetric by construction: w[i] and w[taps - 1 - i] come from the same d * d. */
    for (int i = 0; i < taps; i++)
        k[i] = (float)(w[i] / sum);
}

void tc_binomial_row(int n, double *row)
{
    row[0] = 1.0;
    for (int m = 1; m <= n; m++) {
        row[m] = 1.0;
        for (int i = m - 1; i > 0; i--)
            row[i] += row[i - 1];
    }
}

void tc_derivative_row(int taps, double *row)
{
    double smooth[TC_MAX_TAPS];
    tc_binomial_row(taps - 3, smooth); /* taps - 2 values */
    /* (smooth * [-1, 0, 1])[i] = smooth[i - 2] - smooth[i], zero outside smooth. */
    for (int i = 0; i < taps; i++) {
        double ahead = i >= 2 ? smooth[i - 2] : 0.0;
        double here = i < taps - 2 ? smooth[i] : 0.0;
        row[i] = ahead - here;
    }
}

/* Copies taps doubles into a float coefficient array, zeroing the rest. */
static void set_row(float *dst, const double *src, int taps)
{
    for (int i = 0; i < TC_MAX_TAPS; i++)
        dst[i] = i < taps ? (float)src[i] : 0.0f;
}

/* The binomial of this length along both axes, normalised to sum 1: integers over a power of
 * two, exact in float up to 15 taps. */
static void set_binomial(tc_filter_spec *f, int taps)
{
    double row[TC_MAX_TAPS];
    tc_binomial_row(taps - 1, row);
    const double sum = ldexp(1.0, taps - 1);
    for (int i = 0; i < taps; i++)
        row[i] /= sum;
    set_row(f->kx, row, taps);
    set_row(f->ky, row, taps);
}

void tc_filter_binomial(tc_filter_spec *f, int taps)
{
    set_binomial(f, taps);
    f->taps = taps;
    f->border = TC_BORDER_REPLICATE;
    f->border_value = 0.0f;
}

/* A derivative along one direction and the matching smoothing along the other. */
static void set_gradient(tc_filter_spec *f, const double *deriv, const double *smooth, int taps,
                         int along_x)
{
    set_row(along_x ? f->kx : f->ky, deriv, taps);
    set_row(along_x ? f->ky : f->kx, smooth, taps);
}

int tc_filter_named(tc_filter_spec *f, tc_named id, int taps, double sigma)
{
    double a[TC_MAX_TAPS], b[TC_MAX_TAPS];
    float k[TC_MAX_TAPS];
    if (!tc_named_supports(id, taps))
        return -1;
    switch (id) {
    case TC_NAMED_BOX:
        for (int i = 0; i < taps; i++)
            a[i] = 1.0 / taps;
        set_row(f->kx, a, taps);
        set_row(f->ky, a, taps);
        break;
    case TC_NAMED_GAUSS:
        tc_gauss_coefficients(taps, sigma > 0.0 ? sigma : tc_gauss_default_sigma(taps), k);
        for (int i = 0; i < TC_MAX_TAPS; i++)
            f->kx[i] = f->ky[i] = i < taps ? k[i] : 0.0f;
        break;
    case TC_NAMED_BINOMIAL:
        set_binomial(f, taps);
        break;
    case TC_NAMED_SOBEL_X:
    case TC_NAMED_SOBEL_Y:
        /* OpenCV's Sobel, unnormalised: a unit step across x gives the smoothing's sum (4 for
         * 3 taps, 2^(taps - 1) in general); --scale brings it back to the intensity's range. */
        tc_derivative_row(taps, a);
        tc_binomial_row(taps - 1, b);
        set_gradient(f, a, b, taps, id == TC_NAMED_SOBEL_X);
        break;
    case TC_NAMED_SCHARR_X:
    case TC_NAMED_SCHARR_Y: {
        static const double deriv[3] = {-1.0, 0.0, 1.0}, smooth[3] = {3.0, 10.0, 3.0};
        set_gradient(f, deriv, smooth, 3, id == TC_NAMED_SCHARR_X);
        break;
    }
    default:
        return -1;
    }
    f->taps = taps;
    return 0;
}

tc_filter_problem tc_filter_check(const tc_filter_spec *f, double max_input, int *index,
                                  double *bound)
{
    double sum_x = 0.0, sum_y = 0.0;
    for (int i = 0; i < f->taps; i++) {
        if (!isfinite(f->kx[i]) || !isfinite(f->ky[i])) {
            if (index)
                *index = i;
            return isfinite(f->kx[i]) ? TC_FILTER_KY_NOT_FINITE : TC_FILTER_KX_NOT_FINITE;
        }
        sum_x += fabs((double)f->kx[i]);
        sum_y += fabs((double)f->ky[i]);
    }
    double in = fabs(max_input);
    if (f->border == TC_BORDER_CONSTANT && fabs((double)f->border_value) > in)
        in = fabs((double)f->border_value);
    /* In double: 15 coefficients of at most FLT_MAX each cannot overflow it. */
    const double reach = sum_x * sum_y * in;
    if (bound)
        *bound = reach;
    /* Each of the 2 * taps roundings of a sum grows it by at most FLT_EPSILON / 2. */
    if (reach * (1.0 + 2.0 * f->taps * FLT_EPSILON) > (double)FLT_MAX)
        return TC_FILTER_OVERFLOW;
    return TC_FILTER_OK;
}

const char *tc_border_name(tc_border b)
{
    static const char *const names[TC_BORDER_COUNT] = {"replicate", "constant", "reflect101",
                                                       "reflect", "wrap"};
    return (int)b >= 0 && b < TC_BORDER_COUNT ? names[b] : "?";
}
