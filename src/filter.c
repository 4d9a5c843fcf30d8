/* filter.c - the default binomial and the named filters; see filter.h for the conventions. */
#include "filter.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tuning.h"

static const char *const names[TC_NAMED_COUNT] = {
    "box",      "gauss",    "binomial",  "sobel-x",    "sobel-y",
    "scharr-x", "scharr-y", "laplacian", "laplacian8", "sharpen",
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

int tc_named_is_mask(tc_named id)
{
    return id == TC_NAMED_LAPLACIAN || id == TC_NAMED_LAPLACIAN8 || id == TC_NAMED_SHARPEN;
}

int tc_named_default_taps(tc_named id, double sigma)
{
    if (id != TC_NAMED_GAUSS)
        return 3;
    if (!(sigma > 0.0))
        return 5; /* sigma 1.1: a visible blur that still keeps edges */
    /* The tool's limit caps OpenCV's length. */
    const int taps = tc_gauss_taps(sigma);
    return taps > TC_MAX_TAPS ? TC_MAX_TAPS : taps;
}

int tc_gauss_taps(double sigma)
{
    /* OpenCV's GaussianBlur with ksize (0, 0) on 8-bit images: round(6 sigma + 1) | 1, which
     * covers +-3 sigma. */
    const double n = floor(6.0 * sigma + 1.0 + 0.5);
    if (!(n < 1e6))
        return 1000001;
    const int taps = (int)n | 1;
    return taps < TC_MIN_TAPS ? TC_MIN_TAPS : taps;
}

int tc_taps_valid(int taps)
{
    return taps >= TC_MIN_TAPS && taps <= TC_MAX_TAPS && taps % 2 == 1;
}

int tc_axis_taps_valid(int taps)
{
    return taps >= 1 && taps <= TC_MAX_TAPS && taps % 2 == 1;
}

/* Whether the named filter's row of this length exists along an axis: derivative (the axis a
 * Sobel or Scharr filter differentiates along) or not. */
static int named_axis_supports(tc_named id, int taps, int derivative)
{
    if (!tc_axis_taps_valid(taps))
        return 0;
    switch (id) {
    case TC_NAMED_SOBEL_X:
    case TC_NAMED_SOBEL_Y:
        return taps <= TC_MAX_SOBEL_TAPS && (!derivative || taps >= 3);
    case TC_NAMED_SCHARR_X:
    case TC_NAMED_SCHARR_Y:
        /* Scharr's weights are an optimisation for 3 taps; there is no standard longer one. */
        return taps == 3;
    default:
        return 1;
    }
}

int tc_named_supports_xy(tc_named id, int taps_x, int taps_y)
{
    if ((int)id < 0 || id >= TC_NAMED_COUNT || tc_named_is_mask(id) ||
        (taps_x == 1 && taps_y == 1))
        return 0;
    const int along_x = id == TC_NAMED_SOBEL_X || id == TC_NAMED_SCHARR_X;
    const int along_y = id == TC_NAMED_SOBEL_Y || id == TC_NAMED_SCHARR_Y;
    return named_axis_supports(id, taps_x, along_x) && named_axis_supports(id, taps_y, along_y);
}

int tc_named_supports(tc_named id, int taps)
{
    return tc_taps_valid(taps) && tc_named_supports_xy(id, taps, taps);
}

double tc_gauss_default_sigma(int taps)
{
    return 0.3 * ((taps - 1) * 0.5 - 1.0) + 0.8;
}

/* OpenCV's getGaussianKernel (getGaussianKernelBitExact) beyond its tables, step by step in
 * double: x = 2d runs 1 - n, 3 - n, .. -2 (twice the distance, so x^2 is an exact integer),
 * each weight exp(x^2 (-0.125 / sigma^2)), their sum over both sides plus the centre's 1
 * (exp(0)), and every weight times 1 / sum; then rounded to float. The same expressions in
 * the same order give OpenCV's float kernel bit for bit wherever exp rounds as OpenCV's does
 * (to the last bit of a double, which a float only sees at a rounding tie). */
static void opencv_gaussian(int taps, double sigma, float *k)
{
    const double scale = -0.125 / (sigma * sigma);
    const int half = (taps - 1) / 2;
    double w[TC_MAX_TAPS], sum = 0.0;
    for (int i = 0, x = 1 - taps; i < half; i++, x += 2) {
        w[i] = exp((double)(x * x) * scale);
        sum += w[i];
    }
    sum *= 2.0;
    sum += 1.0;
    const double mul = 1.0 / sum;
    for (int i = 0; i < half; i++)
        k[i] = k[taps - 1 - i] = (float)(w[i] * mul);
    k[half] = (float)mul;
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

void tc_gauss_default_coefficients(int taps, float *k)
{
    /* getGaussianKernel's own tables for sigma <= 0, in 256ths: the binomials for 1, 3 and 5
     * taps, and two tuned kernels for 7 and 9 taps. */
    static const double tables[5][9] = {{256},
                                        {64, 128, 64},
                                        {16, 64, 96, 64, 16},
                                        {8, 28, 56, 72, 56, 28, 8},
                                        {4, 13, 30, 51, 60, 51, 30, 13, 4}};
    if (taps <= 9) {
        for (int i = 0; i < taps; i++)
            k[i] = (float)(tables[taps / 2][i] / 256.0);
        return;
    }
    /* Beyond the tables, the sampled Gaussian of OpenCV's sigma for the length, computed as
     * OpenCV computes it: fma(n, 0.15, 0.35), 0.3 ((n - 1) / 2 - 1) + 0.8 to within a bit. */
    opencv_gaussian(taps, fma((double)taps, 0.15, 0.35), k);
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

/* The binomial of this length normalised to sum 1: integers over a power of two. */
static void binomial_row(int taps, double *row)
{
    tc_binomial_row(taps - 1, row);
    const double sum = ldexp(1.0, taps - 1);
    for (int i = 0; i < taps; i++)
        row[i] /= sum;
}

void tc_binomial_coefficients(int taps, float *k)
{
    double row[TC_MAX_TAPS];
    binomial_row(taps, row);
    set_row(k, row, taps);
}

/* No mask: a separable filter. */
static void clear_mask(tc_filter_spec *f)
{
    f->mask_width = f->mask_height = 0;
    f->mask_separable = 0;
    memset(f->mask, 0, sizeof f->mask);
}

void tc_filter_binomial_xy(tc_filter_spec *f, int taps_x, int taps_y)
{
    tc_binomial_coefficients(taps_x, f->kx);
    tc_binomial_coefficients(taps_y, f->ky);
    f->taps_x = taps_x;
    f->taps_y = taps_y;
    f->border = TC_BORDER_REPLICATE;
    f->border_value = 0.0f;
    clear_mask(f);
}

void tc_filter_binomial(tc_filter_spec *f, int taps)
{
    tc_filter_binomial_xy(f, taps, taps);
}

/* One axis of a named separable filter: its smoothing row, or (derivative) the row it
 * differentiates with, at this length. */
static void named_row(tc_named id, int taps, double sigma, int derivative, float *k)
{
    double a[TC_MAX_TAPS];
    switch (id) {
    case TC_NAMED_BOX:
        for (int i = 0; i < taps; i++)
            a[i] = 1.0 / taps;
        set_row(k, a, taps);
        break;
    case TC_NAMED_GAUSS:
        memset(k, 0, TC_MAX_TAPS * sizeof *k);
        if (sigma > 0.0)
            tc_gauss_coefficients(taps, sigma, k);
        else
            tc_gauss_default_coefficients(taps, k);
        break;
    case TC_NAMED_SOBEL_X:
    case TC_NAMED_SOBEL_Y:
        /* OpenCV's Sobel, unnormalised: a unit step across x gives the smoothing's sum (4 for
         * 3 taps, 2^(taps - 1) in general); --scale brings it back to the intensity's range. */
        if (derivative)
            tc_derivative_row(taps, a);
        else
            tc_binomial_row(taps - 1, a);
        set_row(k, a, taps);
        break;
    case TC_NAMED_SCHARR_X:
    case TC_NAMED_SCHARR_Y: {
        static const double deriv[3] = {-1.0, 0.0, 1.0}, smooth[3] = {3.0, 10.0, 3.0};
        set_row(k, derivative ? deriv : smooth, 3);
        break;
    }
    default: /* TC_NAMED_BINOMIAL */
        tc_binomial_coefficients(taps, k);
        break;
    }
}

int tc_filter_named_xy(tc_filter_spec *f, tc_named id, int taps_x, int taps_y, double sigma)
{
    if (!tc_named_supports_xy(id, taps_x, taps_y))
        return -1;
    /* sobel-x differentiates along rows (kx) and smooths along columns (ky); -y the other
     * way round. */
    const int along_x = id == TC_NAMED_SOBEL_X || id == TC_NAMED_SCHARR_X;
    const int along_y = id == TC_NAMED_SOBEL_Y || id == TC_NAMED_SCHARR_Y;
    named_row(id, taps_x, sigma, along_x, f->kx);
    named_row(id, taps_y, sigma, along_y, f->ky);
    f->taps_x = taps_x;
    f->taps_y = taps_y;
    clear_mask(f);
    return 0;
}

int tc_filter_named(tc_filter_spec *f, tc_named id, int taps, double sigma)
{
    if (!tc_named_supports(id, taps))
        return -1;
    return tc_filter_named_xy(f, id, taps, taps, sigma);
}

/* ---- Masks ---------------------------------------------------------------------------- */

int tc_mask_size_valid(int width, int height)
{
    return width >= 1 && height >= 1 && width <= TC_MAX_MASK_SIZE &&
           height <= TC_MAX_MASK_SIZE && width % 2 == 1 && height % 2 == 1 &&
           !(width == 1 && height == 1);
}

int tc_mask_factor(const float *m, int width, int height, float *kx, float *ky)
{
    int p = 0, q = 0;
    double largest = 0.0;
    for (int j = 0; j < height; j++)
        for (int i = 0; i < width; i++)
            if (fabs((double)m[j * width + i]) > largest) {
                largest = fabs((double)m[j * width + i]);
                p = j;
                q = i;
            }
    if (largest == 0.0) { /* rank 0: zeros times anything */
        for (int i = 0; i < width; i++)
            kx[i] = 0.0f;
        for (int j = 0; j < height; j++)
            ky[j] = j == height / 2 ? 1.0f : 0.0f;
        return 1;
    }
    /* The pivot's row and column: m[j][i] = m[j][q] m[p][i] / m[p][q] for a rank-1 mask. */
    const double pivot = m[p * width + q];
    for (int i = 0; i < width; i++)
        kx[i] = m[p * width + i];
    for (int j = 0; j < height; j++)
        ky[j] = (float)((double)m[j * width + q] / pivot);
    /* Each weight of a float32 outer product a b^T is a_j b_i rounded once; the factors above
     * are rounded once more each: a few epsilons of the weight apart, no more. A rank-2 mask
     * misses by far more somewhere (relatively), whatever the scale of its weights. */
    for (int j = 0; j < height; j++)
        for (int i = 0; i < width; i++) {
            const double w = m[j * width + i], prod = (double)ky[j] * (double)kx[i];
            const double scale = fabs(w) > fabs(prod) ? fabs(w) : fabs(prod);
            if (fabs(w - prod) > 8.0 * FLT_EPSILON * scale + ldexp(largest, -100))
                return 0;
        }
    return 1;
}

double tc_mask_residual(const float *m, int width, int height, const float *kx,
                        const float *ky)
{
    double sum = 0.0;
    for (int j = 0; j < height; j++)
        for (int i = 0; i < width; i++)
            sum += fabs((double)m[j * width + i] - (double)ky[j] * (double)kx[i]);
    return sum;
}

void tc_filter_set_mask(tc_filter_spec *f, const float *m, int width, int height)
{
    clear_mask(f);
    memset(f->kx, 0, sizeof f->kx);
    memset(f->ky, 0, sizeof f->ky);
    f->taps_x = f->mask_width = width;
    f->taps_y = f->mask_height = height;
    memcpy(f->mask, m, (size_t)width * (size_t)height * sizeof *m);
    if (!tc_tuning_now()->mask_2d)
        f->mask_separable = tc_mask_factor(m, width, height, f->kx, f->ky);
    if (!f->mask_separable) { /* the factors of a failed try mean nothing */
        memset(f->kx, 0, sizeof f->kx);
        memset(f->ky, 0, sizeof f->ky);
    }
}

int tc_filter_named_mask(tc_filter_spec *f, tc_named id, double amount)
{
    float m[9];
    switch (id) {
    case TC_NAMED_LAPLACIAN: { /* OpenCV's Laplacian, ksize 1: d2/dx2 + d2/dy2 */
        static const float w[9] = {0, 1, 0, 1, -4, 1, 0, 1, 0};
        memcpy(m, w, sizeof m);
        break;
    }
    case TC_NAMED_LAPLACIAN8: { /* the diagonals too */
        static const float w[9] = {1, 1, 1, 1, -8, 1, 1, 1, 1};
        memcpy(m, w, sizeof m);
        break;
    }
    case TC_NAMED_SHARPEN: {
        /* identity + amount (identity - B), B the 3 x 3 binomial 1 2 1; 2 4 2; 1 2 1 / 16:
         * an unsharp mask that adds back amount times the detail a blur removes. */
        static const double blur[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
        for (int k = 0; k < 9; k++)
            m[k] = (float)((k == 4 ? 1.0 + amount : 0.0) - amount * blur[k] / 16.0);
        break;
    }
    default:
        return -1;
    }
    tc_filter_set_mask(f, m, 3, 3);
    return 0;
}

double tc_filter_gain(const tc_filter_spec *f)
{
    double sum_x = 0.0, sum_y = 0.0, sum_m = 0.0;
    for (int i = 0; i < f->taps_x; i++)
        sum_x += fabs((double)f->kx[i]);
    for (int j = 0; j < f->taps_y; j++)
        sum_y += fabs((double)f->ky[j]);
    if (!f->mask_width)
        return sum_x * sum_y;
    for (int k = 0; k < f->mask_width * f->mask_height; k++)
        sum_m += fabs((double)f->mask[k]);
    return f->mask_separable && sum_x * sum_y > sum_m ? sum_x * sum_y : sum_m;
}

int tc_filter_depth(const tc_filter_spec *f)
{
    return f->mask_width ? f->mask_width * f->mask_height : f->taps_x + f->taps_y;
}

tc_filter_problem tc_filter_check(const tc_filter_spec *f, double max_input, int *index,
                                  double *bound)
{
    const int n = f->mask_width * f->mask_height;
    for (int k = 0; f->mask_width && k < n; k++)
        if (!isfinite(f->mask[k])) {
            if (index)
                *index = k;
            return TC_FILTER_MASK_NOT_FINITE;
        }
    for (int i = 0; i < f->taps_x || i < f->taps_y; i++) {
        const int bad_x = i < f->taps_x && !isfinite(f->kx[i]);
        if (bad_x || (i < f->taps_y && !isfinite(f->ky[i]))) {
            if (index)
                *index = i;
            return bad_x ? TC_FILTER_KX_NOT_FINITE : TC_FILTER_KY_NOT_FINITE;
        }
    }
    double in = fabs(max_input);
    if (f->border == TC_BORDER_CONSTANT && fabs((double)f->border_value) > in)
        in = fabs((double)f->border_value);
    /* In double: 63 x 63 coefficients of at most FLT_MAX each cannot overflow it. */
    const double reach = tc_filter_gain(f) * in;
    if (bound)
        *bound = reach;
    /* Each of the depth roundings of a sum grows it by at most FLT_EPSILON / 2. */
    if (reach * (1.0 + tc_filter_depth(f) * FLT_EPSILON) > (double)FLT_MAX)
        return TC_FILTER_OVERFLOW;
    return TC_FILTER_OK;
}

const char *tc_border_name(tc_border b)
{
    static const char *const names[TC_BORDER_COUNT] = {"replicate", "constant", "reflect101",
                                                       "reflect", "wrap"};
    return (int)b >= 0 && b < TC_BORDER_COUNT ? names[b] : "?";
}
