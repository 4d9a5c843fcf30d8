/* test_filter.c - the named filters' coefficients (src/filter.c), exactly. The output
 * conversions are tested in test_image.c, the --raw file in test_outputs.c. */
#include "test_util.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "filter.h"

/* A filter with every field set to something the functions must overwrite or keep. */
static tc_filter_spec scratch(void)
{
    tc_filter_spec f;
    memset(&f, 0, sizeof f);
    f.taps_x = f.taps_y = -1;
    for (int i = 0; i < TC_MAX_TAPS; i++)
        f.kx[i] = f.ky[i] = 99.0f;
    f.border = TC_BORDER_WRAP;
    f.border_value = 7.0f;
    return f;
}

/* kx and ky hold exactly want_x / want_y in their first taps entries and zeros after them. */
static void expect_rows(const tc_filter_spec *f, int taps, const double *want_x,
                        const double *want_y)
{
    assert_int_equal(f->taps_x, taps);
    assert_int_equal(f->taps_y, taps);
    assert_int_equal(f->mask_width, 0);
    for (int i = 0; i < TC_MAX_TAPS; i++) {
        float wx = i < taps ? (float)want_x[i] : 0.0f, wy = i < taps ? (float)want_y[i] : 0.0f;
        if (f->kx[i] != wx || f->ky[i] != wy)
            fail_msg("%d taps, tap %d: kx %.9g ky %.9g, expected %.9g %.9g", taps, i, f->kx[i],
                     f->ky[i], wx, wy);
    }
}

static void test_names_round_trip(void **state)
{
    (void)state;
    for (int i = 0; i < TC_NAMED_COUNT; i++)
        assert_int_equal(tc_named_find(tc_named_name((tc_named)i)), i);
    assert_int_equal(tc_named_find("sobel"), -1);
    assert_int_equal(tc_named_find("Gauss"), -1);
    assert_int_equal(tc_named_find(""), -1);
    assert_string_equal(tc_named_name(TC_NAMED_COUNT), "?");
}

static void test_box(void **state)
{
    (void)state;
    for (int taps = 3; taps <= TC_MAX_TAPS; taps += 2) {
        double w[TC_MAX_TAPS];
        tc_filter_spec f = scratch();
        for (int i = 0; i < taps; i++)
            w[i] = 1.0 / taps;
        assert_int_equal(tc_filter_named(&f, TC_NAMED_BOX, taps, 0.0), 0);
        expect_rows(&f, taps, w, w);
        /* The border is the caller's: a named filter does not reset it. */
        assert_int_equal(f.border, TC_BORDER_WRAP);
        assert_true(f.border_value == 7.0f);
    }
}

/* Rows of Pascal's triangle over 2^(taps - 1), written out by hand. */
static void test_binomial_exact(void **state)
{
    (void)state;
    static const double rows[7][15] = {
        {1, 2, 1},
        {1, 4, 6, 4, 1},
        {1, 6, 15, 20, 15, 6, 1},
        {1, 8, 28, 56, 70, 56, 28, 8, 1},
        {1, 10, 45, 120, 210, 252, 210, 120, 45, 10, 1},
        {1, 12, 66, 220, 495, 792, 924, 792, 495, 220, 66, 12, 1},
        {1, 14, 91, 364, 1001, 2002, 3003, 3432, 3003, 2002, 1001, 364, 91, 14, 1},
    };
    for (int n = 0; n < 7; n++) {
        int taps = 3 + 2 * n;
        double w[TC_MAX_TAPS];
        tc_filter_spec f = scratch();
        for (int i = 0; i < taps; i++)
            w[i] = rows[n][i] / (double)(1L << (taps - 1)); /* exact: a power of two */
        assert_int_equal(tc_filter_named(&f, TC_NAMED_BINOMIAL, taps, 0.0), 0);
        expect_rows(&f, taps, w, w);
        /* --filter binomial is the tool's default filter. */
        tc_filter_spec d = scratch();
        tc_filter_binomial(&d, taps);
        assert_memory_equal(d.kx, f.kx, sizeof f.kx);
    }
}

static void test_gauss_sums_to_one_and_is_symmetric(void **state)
{
    (void)state;
    static const double sigmas[] = {0.3, 0.8, 1.0, 2.5, 10.0};
    for (int taps = 3; taps <= TC_MAX_TAPS; taps += 2)
        for (size_t s = 0; s < sizeof sigmas / sizeof sigmas[0]; s++) {
            tc_filter_spec f = scratch();
            double sum = 0.0;
            assert_int_equal(tc_filter_named(&f, TC_NAMED_GAUSS, taps, sigmas[s]), 0);
            assert_int_equal(f.taps_x, taps);
            for (int i = 0; i < taps; i++) {
                sum += f.kx[i];
                assert_true(f.kx[i] == f.kx[taps - 1 - i]); /* exactly symmetric */
                assert_true(f.kx[i] == f.ky[i]);
                if (i > 0 && i <= taps / 2)
                    assert_true(f.kx[i] >= f.kx[i - 1]); /* rising to the centre */
            }
            for (int i = taps; i < TC_MAX_TAPS; i++)
                assert_true(f.kx[i] == 0.0f && f.ky[i] == 0.0f);
            if (fabs(sum - 1.0) > 1e-6)
                fail_msg("%d taps, sigma %g: sum %.9g", taps, sigmas[s], sum);
        }
}

/* Sampled Gaussian, by hand: sigma 1, 3 taps: e^-0.5 / (1 + 2 e^-0.5) at the sides. */
static void test_gauss_values(void **state)
{
    (void)state;
    float k[3];
    tc_gauss_coefficients(3, 1.0, k);
    double e = exp(-0.5), side = e / (1.0 + 2.0 * e), centre = 1.0 / (1.0 + 2.0 * e);
    assert_true(k[0] == (float)side && k[1] == (float)centre && k[2] == (float)side);
    /* The default sigma is OpenCV's getGaussianKernel rule. */
    assert_true(tc_gauss_default_sigma(3) == 0.8);
    assert_true(fabs(tc_gauss_default_sigma(5) - 1.1) < 1e-12);
    assert_true(fabs(tc_gauss_default_sigma(15) - 2.6) < 1e-12);
}

/* The promise of the default sigma: the outermost weight is above 1/255, for 3..15 taps, the
 * lengths the promise is made for (not beyond, up to 63, where OpenCV's rule, kept for
 * agreement, leaves smaller tails: the second loop shows that the limit is real). */
static void test_gauss_default_sigma_keeps_outer_weight(void **state)
{
    (void)state;
    for (int taps = 3; taps <= 15; taps += 2) {
        tc_filter_spec f = scratch();
        assert_int_equal(tc_filter_named(&f, TC_NAMED_GAUSS, taps, 0.0), 0);
        if (!(f.kx[0] > 1.0f / 255.0f) || f.kx[0] != f.kx[taps - 1])
            fail_msg("%d taps: outermost weight %.6g, not above 1/255", taps, f.kx[0]);
    }
    for (int taps = 17; taps <= TC_MAX_TAPS; taps += 2) {
        tc_filter_spec f = scratch();
        assert_int_equal(tc_filter_named(&f, TC_NAMED_GAUSS, taps, 0.0), 0);
        if (!(f.kx[0] < 1.0f / 255.0f) || !(f.kx[0] > 0.0f))
            fail_msg("%d taps: outermost weight %.6g: the promise's limit moved", taps,
                     f.kx[0]);
    }
}

/* gauss without a sigma is OpenCV's getGaussianKernel(n, 0): its tables, exactly, for 3..9
 * taps, and for every odd length 3..63 the float of OpenCV's own values, read from
 * tests/data/opencv/gaussian_kernels.txt (made with cv2 by tests/python/opencv_fixture.py). */
static void test_gauss_without_sigma_is_opencvs(void **state)
{
    (void)state;
    static const float t7[7] = {1.0f / 32, 3.5f / 32, 7.0f / 32, 9.0f / 32,
                                7.0f / 32, 3.5f / 32, 1.0f / 32};
    static const float t9[9] = {4.0f / 256,  13.0f / 256, 30.0f / 256, 51.0f / 256, 60.0f / 256,
                                51.0f / 256, 30.0f / 256, 13.0f / 256, 4.0f / 256};
    tc_filter_spec f = scratch();
    assert_int_equal(tc_filter_named(&f, TC_NAMED_GAUSS, 3, 0.0), 0);
    assert_true(f.kx[0] == 0.25f && f.kx[1] == 0.5f && f.kx[2] == 0.25f);
    assert_int_equal(tc_filter_named(&f, TC_NAMED_GAUSS, 5, -1.0), 0); /* sigma <= 0 */
    tc_filter_spec b = scratch();
    tc_filter_binomial(&b, 5);
    assert_memory_equal(f.kx, b.kx, sizeof f.kx);
    assert_int_equal(tc_filter_named(&f, TC_NAMED_GAUSS, 7, 0.0), 0);
    assert_memory_equal(f.kx, t7, sizeof t7);
    assert_int_equal(tc_filter_named(&f, TC_NAMED_GAUSS, 9, 0.0), 0);
    assert_memory_equal(f.ky, t9, sizeof t9);

    char path[1024], line[4096];
    snprintf(path, sizeof path, "%s/tests/data/opencv/gaussian_kernels.txt", test_root());
    FILE *in = fopen(path, "r");
    int lengths = 0;
    assert_non_null(in);
    while (fgets(line, sizeof line, in)) {
        char *at = line, *end;
        if (line[0] == '#')
            continue;
        const int n = (int)strtol(at, &end, 10);
        at = end;
        if (n < TC_MIN_TAPS)
            continue;
        assert_int_equal(tc_filter_named(&f, TC_NAMED_GAUSS, n, 0.0), 0);
        for (int i = 0; i < n; i++) {
            const double want = strtod(at, &end);
            assert_true(end != at);
            at = end;
            if (f.kx[i] != (float)want)
                fail_msg("gauss %d taps, weight %d: %.9g, OpenCV's %.17g", n, i, f.kx[i], want);
        }
        lengths++;
    }
    fclose(in);
    assert_int_equal(lengths, (TC_MAX_TAPS - TC_MIN_TAPS) / 2 + 1);
}

static void test_default_taps(void **state)
{
    (void)state;
    static const struct {
        tc_named id;
        double sigma;
        int taps;
    } cases[] = {
        {TC_NAMED_BOX, 0.0, 3}, {TC_NAMED_SOBEL_X, 0.0, 3}, {TC_NAMED_GAUSS, 0.0, 5},
        /* OpenCV's round(6 sigma + 1) | 1, clamped to 3..15. */
        {TC_NAMED_GAUSS, 0.1, 3}, {TC_NAMED_GAUSS, 1.0, 7}, {TC_NAMED_GAUSS, 1.5, 11},
        {TC_NAMED_GAUSS, 2.0, 13},
        /* ... clamped to 3..63: sigma 10 gives 61 taps, 10.34 and more 63. */
        {TC_NAMED_GAUSS, 2.5, 17}, {TC_NAMED_GAUSS, 5.0, 31}, {TC_NAMED_GAUSS, 10.0, 61},
        {TC_NAMED_GAUSS, 10.4, 63}, {TC_NAMED_GAUSS, 100.0, 63}, {TC_NAMED_LAPLACIAN, 0.0, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const int taps = tc_named_default_taps(cases[i].id, cases[i].sigma);
        if (taps != cases[i].taps)
            fail_msg("case %zu (filter %d, sigma %g): %d taps, not %d", i, (int)cases[i].id,
                     cases[i].sigma, taps, cases[i].taps);
    }
}

/* OpenCV's getDerivKernels(1, 0, ksize): kx the derivative, ky the smoothing. */
static void test_sobel_exact(void **state)
{
    (void)state;
    static const double d3[] = {-1, 0, 1}, s3[] = {1, 2, 1};
    static const double d5[] = {-1, -2, 0, 2, 1}, s5[] = {1, 4, 6, 4, 1};
    static const double d7[] = {-1, -4, -5, 0, 5, 4, 1}, s7[] = {1, 6, 15, 20, 15, 6, 1};
    tc_filter_spec f = scratch();
    assert_int_equal(tc_filter_named(&f, TC_NAMED_SOBEL_X, 3, 0.0), 0);
    expect_rows(&f, 3, d3, s3);
    assert_int_equal(tc_filter_named(&f, TC_NAMED_SOBEL_Y, 3, 0.0), 0);
    expect_rows(&f, 3, s3, d3);
    assert_int_equal(tc_filter_named(&f, TC_NAMED_SOBEL_X, 5, 0.0), 0);
    expect_rows(&f, 5, d5, s5);
    assert_int_equal(tc_filter_named(&f, TC_NAMED_SOBEL_Y, 5, 0.0), 0);
    expect_rows(&f, 5, s5, d5);
    assert_int_equal(tc_filter_named(&f, TC_NAMED_SOBEL_X, 7, 0.0), 0);
    expect_rows(&f, 7, d7, s7);
    /* Every length: antisymmetric, summing to 0, centre 0, and the right end positive. */
    for (int taps = 3; taps <= TC_MAX_SOBEL_TAPS; taps += 2) {
        double row[TC_MAX_TAPS], sum = 0.0;
        tc_derivative_row(taps, row);
        for (int i = 0; i < taps; i++) {
            sum += row[i];
            assert_true(row[i] == -row[taps - 1 - i]);
        }
        assert_true(sum == 0.0 && row[taps / 2] == 0.0 && row[taps - 1] == 1.0);
    }
}

static void test_scharr_exact(void **state)
{
    (void)state;
    static const double d[] = {-1, 0, 1}, s[] = {3, 10, 3};
    tc_filter_spec f = scratch();
    assert_int_equal(tc_filter_named(&f, TC_NAMED_SCHARR_X, 3, 0.0), 0);
    expect_rows(&f, 3, d, s);
    assert_int_equal(tc_filter_named(&f, TC_NAMED_SCHARR_Y, 3, 0.0), 0);
    expect_rows(&f, 3, s, d);
    /* Scharr exists with 3 taps only; the filter is left as it was. */
    tc_filter_spec before = f;
    assert_int_equal(tc_filter_named(&f, TC_NAMED_SCHARR_X, 5, 0.0), -1);
    assert_memory_equal(&f, &before, sizeof f);
}

static void test_unsupported_lengths(void **state)
{
    (void)state;
    static const int bad[] = {-3, 0, 1, 2, 4, 14, 16, 64, 65};
    for (int id = 0; id < TC_NAMED_COUNT; id++)
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            tc_filter_spec f = scratch();
            assert_int_equal(tc_named_supports((tc_named)id, bad[i]), 0);
            assert_int_equal(tc_filter_named(&f, (tc_named)id, bad[i], 0.0), -1);
            assert_int_equal(f.taps_x, -1);
        }
}

/* Sign convention: with correlation, sobel-x of a ramp rising to the right is positive. */
static void test_sobel_sign_on_a_ramp(void **state)
{
    (void)state;
    tc_filter_spec f = scratch();
    assert_int_equal(tc_filter_named(&f, TC_NAMED_SOBEL_X, 3, 0.0), 0);
    /* out(x) = sum_j ky[j] sum_i kx[i] S(x + i - 1), S(x) = x: (x + 1) - (x - 1) = 2, times 4. */
    double out = 0.0;
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
            out += f.ky[j] * f.kx[i] * (10.0 + i - 1);
    assert_true(out == 8.0);
}

/* tc_filter_check: every coefficient finite, and no sum able to pass FLT_MAX on inputs up to
 * the given bound or the constant border's value (before the check, -c 1e19,1e19,1e19 gave
 * infinities and a failed -e; a tiny sigma gave NaN coefficients). */
static void test_filter_check(void **state)
{
    (void)state;
    tc_filter_spec f;
    int index = -1;
    double bound = 0.0;
    tc_filter_binomial(&f, 3);
    assert_int_equal(tc_filter_check(&f, 255.0, &index, &bound), TC_FILTER_OK);
    assert_true(bound == 255.0); /* the binomial's sums are 1 */

    f.kx[1] = NAN;
    assert_int_equal(tc_filter_check(&f, 255.0, &index, NULL), TC_FILTER_KX_NOT_FINITE);
    assert_int_equal(index, 1);
    f.kx[1] = 0.5f;
    f.ky[2] = INFINITY;
    assert_int_equal(tc_filter_check(&f, 255.0, &index, NULL), TC_FILTER_KY_NOT_FINITE);
    assert_int_equal(index, 2);

    /* 3e19 x 3e19 x 255 = 2.3e41 > FLT_MAX; a tenth of each is 2.3e39, still too much; the
     * largest gain that fits is FLT_MAX / 255 less the rounding margin. */
    for (int i = 0; i < 3; i++)
        f.kx[i] = f.ky[i] = 1e19f;
    assert_int_equal(tc_filter_check(&f, 255.0, NULL, &bound), TC_FILTER_OVERFLOW);
    assert_true(fabs(bound / (9e38 * 255.0) - 1.0) < 1e-6);
    tc_filter_binomial(&f, 3);
    const double limit = (double)FLT_MAX / 255.0 / (1.0 + 6.0 * FLT_EPSILON);
    f.kx[1] = (float)(limit * 0.999) - 0.5f; /* sum|kx| just below limit */
    f.kx[0] = f.kx[2] = 0.25f;
    f.ky[0] = f.ky[2] = 0.0f;
    f.ky[1] = 1.0f;
    assert_int_equal(tc_filter_check(&f, 255.0, NULL, NULL), TC_FILTER_OK);
    f.ky[1] = 1.002f;
    assert_int_equal(tc_filter_check(&f, 255.0, NULL, NULL), TC_FILTER_OVERFLOW);

    /* A constant border counts with its value; other borders do not. */
    tc_filter_binomial(&f, 3);
    f.border_value = 1e38f;
    assert_int_equal(tc_filter_check(&f, 255.0, NULL, NULL), TC_FILTER_OK);
    f.border = TC_BORDER_CONSTANT;
    assert_int_equal(tc_filter_check(&f, 255.0, NULL, NULL), TC_FILTER_OK);
    f.kx[1] = 4.0f; /* sum|kx| 4.5: 4.5e38 */
    assert_int_equal(tc_filter_check(&f, 255.0, NULL, &bound), TC_FILTER_OVERFLOW);
    assert_true(fabs(bound / 4.5e38 - 1.0) < 1e-6);
}

/* A sigma above TC_MIN_SIGMA gives finite weights at every length (1e-100: the identity), and
 * 1e-200, below it, would give NaN, which is why it is refused. */
static void test_gauss_tiny_sigma(void **state)
{
    (void)state;
    tc_filter_spec f;
    for (int taps = 3; taps <= 15; taps += 2) {
        assert_int_equal(tc_filter_named(&f, TC_NAMED_GAUSS, taps, TC_MIN_SIGMA), 0);
        assert_int_equal(tc_filter_check(&f, 255.0, NULL, NULL), TC_FILTER_OK);
        assert_true(f.kx[taps / 2] == 1.0f && f.kx[0] == 0.0f);
    }
    assert_int_equal(tc_filter_named(&f, TC_NAMED_GAUSS, 5, 1e-200), 0);
    assert_int_equal(tc_filter_check(&f, 255.0, NULL, NULL), TC_FILTER_KX_NOT_FINITE);
}


/* Long filters: the binomial is exact in float up to 27 taps (integers of at most 24 bits over a
 * power of two), and every length up to 63 sums to 1 within float rounding. */
static void test_binomial_long(void **state)
{
    (void)state;
    /* C(26, 13) = 10400600, the largest weight of the 27-tap binomial, over 2^26. */
    tc_filter_spec f = scratch();
    tc_filter_binomial(&f, 27);
    assert_true(f.kx[13] == (float)(10400600.0 / 67108864.0));
    assert_true((double)f.kx[13] * 67108864.0 == 10400600.0);
    for (int taps = 1; taps <= TC_MAX_TAPS; taps += 2) {
        double sum = 0.0;
        tc_filter_binomial(&f, taps);
        for (int i = 0; i < taps; i++)
            sum += f.kx[i];
        if (fabs(sum - 1.0) > 1e-6)
            fail_msg("%d taps: the binomial sums to %.9g", taps, sum);
        for (int i = taps; i < TC_MAX_TAPS; i++)
            assert_true(f.kx[i] == 0.0f);
    }
    assert_true(f.kx[0] > 0.0f); /* 63 taps: 1 / 2^62 is a float32 */
}

/* A length per axis: each axis filled by its own length, 1 the identity [1]. */
static void test_per_axis_lengths(void **state)
{
    (void)state;
    tc_filter_spec f = scratch();
    tc_filter_binomial_xy(&f, 7, 1);
    assert_int_equal(f.taps_x, 7);
    assert_int_equal(f.taps_y, 1);
    assert_true(f.kx[3] == 20.0f / 64 && f.ky[0] == 1.0f && f.ky[1] == 0.0f);

    /* sobel-x 5 x 3: OpenCV's 5-tap derivative along rows, the 3-tap smoothing along columns. */
    static const double d5[] = {-1, -2, 0, 2, 1}, s3[] = {1, 2, 1}, one[] = {1};
    assert_int_equal(tc_filter_named_xy(&f, TC_NAMED_SOBEL_X, 5, 3, 0.0), 0);
    assert_int_equal(f.taps_x, 5);
    assert_int_equal(f.taps_y, 3);
    for (int i = 0; i < 5; i++)
        assert_true(f.kx[i] == (float)d5[i]);
    for (int j = 0; j < 3; j++)
        assert_true(f.ky[j] == (float)s3[j]);
    /* sobel-y 1 x 3: the derivative along columns, rows unfiltered. */
    assert_int_equal(tc_filter_named_xy(&f, TC_NAMED_SOBEL_Y, 1, 3, 0.0), 0);
    assert_true(f.kx[0] == (float)one[0] && f.ky[0] == -1.0f && f.ky[2] == 1.0f);
    /* A derivative needs 3 taps along its axis; Scharr exists with 3 only; Sobel to 31. */
    f = scratch();
    assert_int_equal(tc_filter_named_xy(&f, TC_NAMED_SOBEL_X, 1, 3, 0.0), -1);
    assert_int_equal(tc_filter_named_xy(&f, TC_NAMED_SCHARR_X, 3, 1, 0.0), -1);
    assert_int_equal(tc_filter_named_xy(&f, TC_NAMED_SOBEL_Y, 33, 3, 0.0), -1);
    assert_int_equal(tc_filter_named_xy(&f, TC_NAMED_BOX, 1, 1, 0.0), -1);
    assert_int_equal(tc_filter_named_xy(&f, TC_NAMED_BOX, 65, 3, 0.0), -1);
    assert_int_equal(tc_filter_named_xy(&f, TC_NAMED_LAPLACIAN, 3, 3, 0.0), -1);
    assert_int_equal(f.taps_x, -1); /* untouched by a refusal */
    assert_int_equal(tc_named_supports(TC_NAMED_SOBEL_X, 31), 1);
    assert_int_equal(tc_named_supports(TC_NAMED_SOBEL_X, 33), 0);
    assert_int_equal(tc_named_supports(TC_NAMED_GAUSS, 63), 1);
    /* gauss 9 x 1 without a sigma: each axis's own (OpenCV's 9-tap table). */
    float k9[TC_MAX_TAPS];
    tc_gauss_default_coefficients(9, k9);
    assert_int_equal(tc_filter_named_xy(&f, TC_NAMED_GAUSS, 9, 1, 0.0), 0);
    assert_memory_equal(f.kx, k9, 9 * sizeof(float));
    assert_true(f.ky[0] == 1.0f);
    assert_int_equal(tc_axis_taps_valid(1), 1);
    assert_int_equal(tc_axis_taps_valid(63), 1);
    assert_int_equal(tc_axis_taps_valid(65), 0);
    assert_int_equal(tc_taps_valid(1), 0);
}

/* The named 3 x 3 masks, weight by weight (all exact in float). */
static void test_named_masks(void **state)
{
    (void)state;
    static const float lap[9] = {0, 1, 0, 1, -4, 1, 0, 1, 0};
    static const float lap8[9] = {1, 1, 1, 1, -8, 1, 1, 1, 1};
    static const float sharpen1[9] = {-0.0625f, -0.125f, -0.0625f, -0.125f, 1.75f,
                                      -0.125f,  -0.0625f, -0.125f, -0.0625f};
    static const float sharpen2[9] = {-0.125f, -0.25f, -0.125f, -0.25f, 2.5f,
                                      -0.25f,  -0.125f, -0.25f, -0.125f};
    const struct {
        tc_named id;
        double amount;
        const float *w;
    } cases[] = {{TC_NAMED_LAPLACIAN, 1.0, lap},
                 {TC_NAMED_LAPLACIAN8, 5.0, lap8}, /* the amount is sharpen's only */
                 {TC_NAMED_SHARPEN, 1.0, sharpen1},
                 {TC_NAMED_SHARPEN, 2.0, sharpen2}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tc_filter_spec f = scratch();
        assert_int_equal(tc_named_is_mask(cases[c].id), 1);
        assert_int_equal(tc_filter_named_mask(&f, cases[c].id, cases[c].amount), 0);
        assert_int_equal(f.mask_width, 3);
        assert_int_equal(f.mask_height, 3);
        assert_int_equal(f.taps_x, 3);
        assert_int_equal(f.taps_y, 3);
        for (int k = 0; k < 9; k++)
            if (f.mask[k] != cases[c].w[k])
                fail_msg("%s, amount %g, weight %d: %.9g, expected %.9g",
                         tc_named_name(cases[c].id), cases[c].amount, k, f.mask[k],
                         cases[c].w[k]);
        assert_int_equal(f.mask_separable, 0); /* rank 2: none of them separable */
        assert_int_equal(f.border, TC_BORDER_WRAP); /* the border is the caller's */
    }
    /* sharpen with amount 0 is the identity, which is separable: 0 1 0 both ways. */
    tc_filter_spec f = scratch();
    assert_int_equal(tc_filter_named_mask(&f, TC_NAMED_SHARPEN, 0.0), 0);
    assert_int_equal(f.mask_separable, 1);
    assert_true(f.kx[0] == 0.0f && f.kx[1] == 1.0f && f.kx[2] == 0.0f);
    assert_true(f.ky[0] == 0.0f && f.ky[1] == 1.0f && f.ky[2] == 0.0f);
    /* Not a mask: refused, f untouched. */
    f = scratch();
    assert_int_equal(tc_filter_named_mask(&f, TC_NAMED_BOX, 1.0), -1);
    assert_int_equal(f.taps_x, -1);
    assert_int_equal(tc_named_is_mask(TC_NAMED_GAUSS), 0);
    assert_int_equal(tc_named_find("laplacian8"), TC_NAMED_LAPLACIAN8);
}

static void test_mask_sizes(void **state)
{
    (void)state;
    assert_int_equal(tc_mask_size_valid(3, 3), 1);
    assert_int_equal(tc_mask_size_valid(1, 3), 1);
    assert_int_equal(tc_mask_size_valid(3, 1), 1);
    assert_int_equal(tc_mask_size_valid(15, 15), 1);
    assert_int_equal(tc_mask_size_valid(1, 1), 0);  /* only a scale */
    assert_int_equal(tc_mask_size_valid(2, 3), 0);  /* even */
    assert_int_equal(tc_mask_size_valid(16, 16), 0);
    assert_int_equal(tc_mask_size_valid(17, 3), 0); /* past TC_MAX_MASK_SIZE */
    assert_int_equal(tc_mask_size_valid(0, 3), 0);
    assert_int_equal(tc_mask_size_valid(3, -3), 0);
}

/* An outer product ky kx^T, formed in float32 as a user's program would, at a size. */
static void outer(const float *ky, int h, const float *kx, int w, float *m)
{
    for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++)
            m[j * w + i] = ky[j] * kx[i];
}

/* Rank 1 found within float32 rounding, with factors whose products give the mask back;
 * rank 2 never, however small the second part relative to the first (above rounding). */
static void test_mask_factor(void **state)
{
    (void)state;
    float m[TC_MAX_MASK_TAPS], kx[TC_MAX_MASK_SIZE], ky[TC_MAX_MASK_SIZE];
    /* The 3 x 3 binomial: kx the row of the largest weight, ky its column over it. */
    static const float b3[3] = {0.25f, 0.5f, 0.25f};
    outer(b3, 3, b3, 3, m);
    assert_int_equal(tc_mask_factor(m, 3, 3, kx, ky), 1);
    assert_true(kx[0] == 0.125f && kx[1] == 0.25f && kx[2] == 0.125f);
    assert_true(ky[0] == 0.5f && ky[1] == 1.0f && ky[2] == 0.5f);
    assert_true(tc_mask_residual(m, 3, 3, kx, ky) == 0.0);

    /* Awkward values, 7 x 5, rounded once as any float outer product is. */
    static const float ax[7] = {0.1f, -0.37f, 1.0f / 3.0f, 2.5f, -7.25f, 0.013f, 1e-3f};
    static const float ay[5] = {3.7f, -0.2f, 1.1f, 0.0f, -9.0f};
    outer(ay, 5, ax, 7, m);
    assert_int_equal(tc_mask_factor(m, 7, 5, kx, ky), 1);
    for (int k = 0; k < 35; k++) {
        const double prod = (double)ky[k / 7] * kx[k % 7];
        assert_true(fabs(prod - m[k]) <= 8.0 * FLT_EPSILON * fabs(m[k]) + 1e-30);
    }
    assert_true(ky[4] == 1.0f); /* the largest weight, -9 x -7.25, is in row 4 */

    /* One weight moved by a part in 10^4: no longer rank 1. By one float step: still is. */
    float moved[TC_MAX_MASK_TAPS];
    memcpy(moved, m, sizeof moved);
    moved[8] *= 1.0001f;
    assert_int_equal(tc_mask_factor(moved, 7, 5, kx, ky), 0);
    memcpy(moved, m, sizeof moved);
    moved[8] = nextafterf(moved[8], INFINITY);
    assert_int_equal(tc_mask_factor(moved, 7, 5, kx, ky), 1);

    /* Rank 2: the Laplacian, and a 1 x 1 impulse plus a blur. */
    static const float lap[9] = {0, 1, 0, 1, -4, 1, 0, 1, 0};
    assert_int_equal(tc_mask_factor(lap, 3, 3, kx, ky), 0);
    /* Rank 1 however tiny its scale (the test is relative), rank 0 when all zero. */
    static const float tiny[3] = {1e-30f, 2e-30f, 1e-30f}, ones[3] = {1, 1, 1};
    outer(tiny, 3, ones, 3, m);
    assert_int_equal(tc_mask_factor(m, 3, 3, kx, ky), 1);
    memset(m, 0, sizeof m);
    assert_int_equal(tc_mask_factor(m, 5, 3, kx, ky), 1);
    for (int i = 0; i < 5; i++)
        assert_true(kx[i] == 0.0f);
    assert_true(ky[0] == 0.0f && ky[1] == 1.0f && ky[2] == 0.0f);
    /* A single row or column is always rank 1. */
    static const float row[5] = {1, -3, 0.5f, 7, 2};
    assert_int_equal(tc_mask_factor(row, 5, 1, kx, ky), 1);
    assert_memory_equal(kx, row, sizeof row);
    assert_true(ky[0] == 1.0f);
    assert_int_equal(tc_mask_factor(row, 1, 5, kx, ky), 1);
    assert_true(kx[0] == 7.0f);
    for (int j = 0; j < 5; j++)
        assert_true(fabs((double)ky[j] * 7.0 - row[j]) <= 4.0 * FLT_EPSILON * fabs(row[j]));
}

/* tc_filter_set_mask factors a rank-1 mask unless the tuning's mask-2d asks for the 2-D path;
 * the gain and depth the checks use are the mask's. */
static void test_set_mask(void **state)
{
    (void)state;
    static const float b3[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
    tc_filter_spec f = scratch();
    test_untune();
    tc_filter_set_mask(&f, b3, 3, 3);
    assert_int_equal(f.mask_separable, 1);
    assert_true(f.kx[1] == 4.0f && f.ky[0] == 0.5f);
    assert_true(tc_filter_gain(&f) == 16.0);
    assert_int_equal(tc_filter_depth(&f), 9);
    test_tune("mask-2d=1");
    tc_filter_set_mask(&f, b3, 3, 3);
    assert_int_equal(f.mask_separable, 0);
    assert_true(f.kx[1] == 0.0f); /* no factors */
    test_tune("mask-2d=0"); /* 0 is off */
    tc_filter_set_mask(&f, b3, 3, 3);
    assert_int_equal(f.mask_separable, 1);
    test_untune();

    /* tc_filter_check on a mask: its weights' finiteness and sum|m|. */
    float m[9] = {1, 1, 1, 1, NAN, 1, 1, 1, 1};
    int index = -1;
    double bound = 0.0;
    tc_filter_set_mask(&f, m, 3, 3);
    assert_int_equal(tc_filter_check(&f, 255.0, &index, NULL), TC_FILTER_MASK_NOT_FINITE);
    assert_int_equal(index, 4);
    m[4] = -8.0f;
    tc_filter_set_mask(&f, m, 3, 3);
    f.border = TC_BORDER_REPLICATE;
    assert_int_equal(tc_filter_check(&f, 255.0, NULL, &bound), TC_FILTER_OK);
    assert_true(bound == 16.0 * 255.0);
    m[4] = 1e37f;
    tc_filter_set_mask(&f, m, 3, 3);
    assert_int_equal(tc_filter_check(&f, 255.0, NULL, &bound), TC_FILTER_OVERFLOW);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_round_trip),
        cmocka_unit_test(test_box),
        cmocka_unit_test(test_binomial_exact),
        cmocka_unit_test(test_gauss_sums_to_one_and_is_symmetric),
        cmocka_unit_test(test_gauss_values),
        cmocka_unit_test(test_gauss_default_sigma_keeps_outer_weight),
        cmocka_unit_test(test_gauss_without_sigma_is_opencvs),
        cmocka_unit_test(test_default_taps),
        cmocka_unit_test(test_sobel_exact),
        cmocka_unit_test(test_scharr_exact),
        cmocka_unit_test(test_unsupported_lengths),
        cmocka_unit_test(test_sobel_sign_on_a_ramp),
        cmocka_unit_test(test_filter_check),
        cmocka_unit_test(test_gauss_tiny_sigma),
        cmocka_unit_test(test_binomial_long),
        cmocka_unit_test(test_per_axis_lengths),
        cmocka_unit_test(test_named_masks),
        cmocka_unit_test(test_mask_sizes),
        cmocka_unit_test(test_mask_factor),
        cmocka_unit_test(test_set_mask),
    };
    return cmocka_run_group_tests_name("filter", tests, NULL, NULL);
}
