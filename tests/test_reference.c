/* test_reference.c - the CPU reference (src/reference.c) against values computed by hand. The
 * comparison of a result with it (src/files/compare.c, cli/verify.c) is tested in test_verify.c. */
#include "test_util.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "reference.h"

static tc_plane make_plane(int w, int h, const float *values)
{
    tc_plane p;
    assert_int_equal(tc_plane_alloc(&p, w, h), 0);
    memcpy(p.px, values, (size_t)w * (size_t)h * sizeof(float));
    return p;
}

/* A w x h plane of made-up values: pixel i is (i * step) % mod + frac (i % period), integers
 * and short binary fractions, exact in float. */
static tc_plane pattern_plane(int w, int h, int step, int mod, float frac, int period)
{
    tc_plane p;
    assert_int_equal(tc_plane_alloc(&p, w, h), 0);
    for (int i = 0; i < w * h; i++)
        p.px[i] = (float)((i * step) % mod) + frac * (float)(i % period);
    return p;
}

static tc_roi full_roi(int w, int h)
{
    tc_roi r = {0, 0, 0, 0, w, h};
    return r;
}

/* The reference's output for the w x h plane of `values` under f on roi: a plane of the same
 * size, the caller's to free. */
static tc_plane reference_of(int w, int h, const float *values, const tc_roi *roi,
                             const tc_filter_spec *f)
{
    tc_plane in = make_plane(w, h, values), out;
    assert_int_equal(tc_plane_alloc(&out, w, h), 0);
    assert_int_equal(reference_convolve(&in, roi, f, &out), TC_OK);
    tc_plane_free(&in);
    return out;
}

/* out holds exactly `expected`, its first n pixels; a failure names the case and the pixel. */
static void expect_pixels(const char *what, const tc_plane *out, const float *expected, int n)
{
    for (int i = 0; i < n; i++)
        if (out->px[i] != expected[i])
            fail_msg("%s: pixel (%d, %d): %g, expected %g", what, i % out->width,
                     i / out->width, out->px[i], expected[i]);
}

/* reference_tolerance under f on the row 255 -10: max|in| is 255. */
static double tolerance_on_255(const tc_filter_spec *f)
{
    const float px[2] = {255, -10};
    tc_plane in = make_plane(2, 1, px);
    const double tolerance = reference_tolerance(&in, f);
    tc_plane_free(&in);
    return tolerance;
}

/* Small images filtered by hand, each output worked out exactly; binomial: the filter of that
 * many taps (tc_filter_binomial, border replicate), else `spec`. */
static void test_filters_by_hand(void **state)
{
    (void)state;
    static const struct {
        const char *what;
        int w, h;
        float px[25];
        tc_roi roi;
        int binomial;
        tc_filter_spec spec;
        float expected[25];
    } cases[] = {
        /* 1/4 1/2 1/4 along a row of three: the ends repeat the edge pixel. Height 1: the
         * vertical pass sees the same row three times and, the weights summing to 1, leaves
         * it. 0.25*0 + 0.5*0 + 0.25*4 = 1; 0.25*0 + 0.5*4 + 0.25*8 = 4; 0.25*4 + 0.5*8 +
         * 0.25*8 = 7. */
        {"binomial 3, a row, replicated edges", 3, 1, {0, 4, 8}, {0, 0, 0, 0, 3, 1}, 3, {0},
         {1, 4, 7}},
        /* An impulse of 16 in the middle of a 5 x 5 image spreads into 16 * k k^T. */
        {"an impulse gives the outer product", 5, 5, {[12] = 16}, {0, 0, 0, 0, 5, 5}, 3, {0},
         {0, 0, 0, 0, 0, /**/ 0, 1, 2, 1, 0, /**/ 0, 2, 4, 2, 0, /**/ 0, 1, 2, 1, 0,
          /**/ 0, 0, 0, 0, 0}},
        /* 5 taps: 1 4 6 4 1 / 16 of an impulse of 256 at the centre of a 9 x 1 row. */
        {"binomial 5, an impulse", 9, 1, {[4] = 256}, {0, 0, 0, 0, 9, 1}, 5, {0},
         {0, 0, 16, 64, 96, 64, 16, 0, 0}},
        /* The clamp is to the source ROI, not to the image: pixel 0 (100) is outside the sROI
         * and must not leak in; the target ROI starts at 0; pixel 3 is outside the tROI and
         * keeps its input. */
        {"clamped to the source ROI, the pixels outside the target kept", 4, 1, {100, 0, 4, 8},
         {1, 0, 0, 0, 3, 1}, 3, {0}, {1, 4, 7, 8}},
        /* Correlation, not convolution: an asymmetric kernel is not flipped. 0 0 1 picks the
         * right neighbour: out(x) = in(x + 1), the last pixel repeating itself. */
        {"correlation, not flipped", 4, 1, {1, 2, 3, 4}, {0, 0, 0, 0, 4, 1}, 0,
         {.taps_x = 3, .taps_y = 3, .kx = {0, 0, 1}, .ky = {0, 1, 0},
          .border = TC_BORDER_REPLICATE},
         {2, 3, 4, 4}},
        /* Separate kx and ky: kx picks the left neighbour, ky the pixel below. */
        {"separate row and column filters", 3, 2, {1, 2, 3, /**/ 4, 5, 6}, {0, 0, 0, 0, 3, 2},
         0,
         {.taps_x = 3, .taps_y = 3, .kx = {1, 0, 0}, .ky = {0, 0, 1},
          .border = TC_BORDER_REPLICATE},
         {4, 4, 5, /**/ 4, 4, 5}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tc_filter_spec f = cases[c].spec;
        if (cases[c].binomial)
            tc_filter_binomial(&f, cases[c].binomial);
        tc_plane out = reference_of(cases[c].w, cases[c].h, cases[c].px, &cases[c].roi, &f);
        expect_pixels(cases[c].what, &out, cases[c].expected, cases[c].w * cases[c].h);
        tc_plane_free(&out);
    }
    /* The 5 taps above: 1 4 6 4 1 / 16. */
    tc_filter_spec f;
    tc_filter_binomial(&f, 5);
    assert_true(f.kx[0] == 1.0f / 16 && f.kx[1] == 4.0f / 16 && f.kx[2] == 6.0f / 16);
}

/* Each border rule on the row "abcd" = 1 2 3 4, read two pixels to the left (kx picks x - 2)
 * and two to the right (x + 2), against OpenCV's pictures written out by hand:
 * replicate aa|abcd|dd, constant vv|abcd|vv, reflect101 cb|abcd|cb, reflect ba|abcd|dc,
 * wrap cd|abcd|ab. */
static void test_border_rules_by_hand(void **state)
{
    (void)state;
    static const struct {
        tc_border mode;
        float left[4], right[4];
    } cases[] = {
        {TC_BORDER_REPLICATE, {1, 1, 1, 2}, {3, 4, 4, 4}},
        {TC_BORDER_CONSTANT, {9, 9, 1, 2}, {3, 4, 9, 9}},
        {TC_BORDER_REFLECT101, {3, 2, 1, 2}, {3, 4, 3, 2}},
        {TC_BORDER_REFLECT, {2, 1, 1, 2}, {3, 4, 4, 3}},
        {TC_BORDER_WRAP, {3, 4, 1, 2}, {3, 4, 1, 2}},
    };
    const float px[4] = {1, 2, 3, 4};
    tc_plane in = make_plane(4, 1, px), out;
    tc_roi roi = full_roi(4, 1);
    assert_int_equal(tc_plane_alloc(&out, 4, 1), 0);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tc_filter_spec f = {.taps_x = 5, .taps_y = 5, .kx = {1, 0, 0, 0, 0},
                            .ky = {0, 0, 1, 0, 0}, .border = cases[c].mode,
                            .border_value = 9.0f};
        assert_int_equal(reference_convolve(&in, &roi, &f, &out), TC_OK);
        for (int x = 0; x < 4; x++)
            if (out.px[x] != cases[c].left[x])
                fail_msg("%s, left, x = %d: %g, expected %g", tc_border_name(cases[c].mode), x,
                         out.px[x], cases[c].left[x]);
        f.kx[0] = 0;
        f.kx[4] = 1;
        assert_int_equal(reference_convolve(&in, &roi, &f, &out), TC_OK);
        for (int x = 0; x < 4; x++)
            if (out.px[x] != cases[c].right[x])
                fail_msg("%s, right, x = %d: %g, expected %g", tc_border_name(cases[c].mode), x,
                         out.px[x], cases[c].right[x]);
    }
    tc_plane_free(&in);
    tc_plane_free(&out);
}

/* A constant border is constant in both directions: the corner beyond both edges is v, and a
 * radius larger than the ROI reflects more than once (OpenCV's borderInterpolate loops). */
static void test_border_corners_and_long_reach(void **state)
{
    (void)state;
    const float px[4] = {1, 2, /**/ 3, 4};
    tc_plane in = make_plane(2, 2, px), out;
    tc_roi roi = full_roi(2, 2);
    assert_int_equal(tc_plane_alloc(&out, 2, 2), 0);
    /* (x - 1, y - 1): only (1, 1) reads inside the ROI. */
    tc_filter_spec f = {.taps_x = 3, .taps_y = 3, .kx = {1, 0, 0}, .ky = {1, 0, 0},
                        .border = TC_BORDER_CONSTANT, .border_value = 7.0f};
    assert_int_equal(reference_convolve(&in, &roi, &f, &out), TC_OK);
    assert_true(out.px[0] == 7 && out.px[1] == 7 && out.px[2] == 7 && out.px[3] == 1);
    /* Row "ab" read 5 to the left. reflect101 repeats with period 2: ... a b a b | a b, so
     * x - 5 = -5 -> b and -4 -> a. reflect repeats "abba": ... a a b b a | a b, so -5 -> a and
     * -4 -> a. */
    tc_filter_spec g = {.taps_x = 11, .taps_y = 11, .kx = {1}, .ky = {0, 0, 0, 0, 0, 1},
                        .border = TC_BORDER_REFLECT101, .border_value = 0.0f};
    assert_int_equal(reference_convolve(&in, &roi, &g, &out), TC_OK);
    assert_true(out.px[0] == 2 && out.px[1] == 1);
    g.border = TC_BORDER_REFLECT;
    assert_int_equal(reference_convolve(&in, &roi, &g, &out), TC_OK);
    assert_true(out.px[0] == 1 && out.px[1] == 1);
    g.border = TC_BORDER_WRAP; /* -5 mod 2 = 1 -> b; -4 -> a */
    assert_int_equal(reference_convolve(&in, &roi, &g, &out), TC_OK);
    assert_true(out.px[0] == 2 && out.px[1] == 1);
    tc_plane_free(&in);
    tc_plane_free(&out);
}

/* In place (out is in): the sums must still read the input, so the result is the same as
 * out of place, bit for bit, also where the source and target ROIs overlap, for every border
 * rule and an asymmetric filter. */
static void test_in_place_equals_out_of_place(void **state)
{
    (void)state;
    tc_plane in = pattern_plane(9, 7, 37, 23, 0.25f, 4), out, same;
    float px[9 * 7]; /* the input as it was, for the checks below */
    memcpy(px, in.px, sizeof px);
    tc_roi roi = {1, 2, 2, 1, 6, 5}; /* overlapping: the target is one right, one up */
    assert_int_equal(tc_plane_alloc(&out, 9, 7), 0);
    for (int b = 0; b < TC_BORDER_COUNT; b++) {
        tc_filter_spec f = {.taps_x = 5, .taps_y = 5, .kx = {0.5f, -1, 2, 0.25f, 3},
                            .ky = {1, 0, -2, 1.5f, 0.125f}, .border = (tc_border)b,
                            .border_value = 4.0f};
        same = make_plane(9, 7, px);
        assert_int_equal(reference_convolve(&in, &roi, &f, &out), TC_OK);
        assert_int_equal(reference_convolve(&same, &roi, &f, &same), TC_OK);
        assert_memory_equal(same.px, out.px, sizeof px);
        assert_memory_equal(in.px, px, sizeof px); /* out of place: the input is untouched */
        tc_plane_free(&same);
    }
    tc_plane_free(&in);
    tc_plane_free(&out);
}

static void test_tolerance_formula(void **state)
{
    (void)state;
    tc_filter_spec f;
    tc_filter_binomial(&f, 3);
    /* 2 * (2 * 3) * FLT_EPSILON * 255 * 1 * 1 */
    assert_true(fabs(tolerance_on_255(&f) - 12.0 * FLT_EPSILON * 255.0) < 1e-12);
}

static void test_binomial_filters_sum_to_one(void **state)
{
    (void)state;
    /* Exactly 1 while the weights are exact in float (27 taps, filter.h); test_filter.c checks
     * the longer ones to float rounding. */
    for (int taps = TC_MIN_TAPS; taps <= 27; taps += 2) {
        tc_filter_spec f;
        double sum = 0.0;
        tc_filter_binomial(&f, taps);
        for (int i = 0; i < taps; i++)
            sum += f.kx[i];
        assert_true(sum == 1.0);
        assert_true(f.kx[0] == f.kx[taps - 1]);
    }
}


/* A mask of hand-picked weights on a 4 x 3 image, every output worked out by hand (exact:
 * integers). Border replicate; the mask is not separable and the reference sums its products
 * as they are. */
static void test_mask_by_hand(void **state)
{
    (void)state;
    const float px[12] = {1, 2, 3, 4, /**/ 5, 6, 7, 8, /**/ 9, 10, 11, 12};
    tc_roi roi = full_roi(4, 3);
    static const float m[9] = {0, 1, 0, /**/ 2, 0, -1, /**/ 0, 0, 3};
    tc_filter_spec f;
    tc_filter_binomial(&f, 3);
    tc_filter_set_mask(&f, m, 3, 3);
    assert_int_equal(f.mask_separable, 0);
    tc_plane out = reference_of(4, 3, px, &roi, &f);
    /* out(x, y) = S(x, y - 1) + 2 S(x - 1, y) - S(x + 1, y) + 3 S(x + 1, y + 1), coordinates
     * clamped: e.g. (0, 0): S(0, 0) + 2 S(0, 0) - S(1, 0) + 3 S(1, 1) = 1 + 2 - 2 + 18 = 19;
     * (2, 0): 3 + 4 - 4 + 24 = 27; (0, 2): S(0, 1) + 2 S(0, 2) - S(1, 2) + 3 S(1, 2) =
     * 5 + 18 - 10 + 30 = 43; (3, 2): S(3, 1) + 2 S(2, 2) - S(3, 2) + 3 S(3, 2) =
     * 8 + 22 - 12 + 36 = 54. */
    const float expected[12] = {19, 22, 27, 30, /**/ 35, 38, 43, 46, /**/ 43, 46, 51, 54};
    expect_pixels("a 3 x 3 mask", &out, expected, 12);
    tc_plane_free(&out);
}

/* A 5 x 3 mask (wider than tall) with a constant border of 10 and a moved ROI: the products
 * outside the source ROI take the constant, and pixels outside the target ROI keep the input. */
static void test_mask_rectangular_constant_border(void **state)
{
    (void)state;
    float px[5 * 4];
    for (int i = 0; i < 20; i++)
        px[i] = (float)i;
    /* sROI 2 x 2 at (1, 1), tROI at (3, 0). */
    tc_roi roi = {1, 1, 3, 0, 2, 2};
    /* Only the corners and the centre weigh: S(x - 2, y - 1), S(x + 2, y + 1), S(x, y). */
    float m[15] = {0};
    m[0] = 1.0f;  /* row 0, column 0: (x - 2, y - 1) */
    m[14] = 2.0f; /* row 2, column 4: (x + 2, y + 1) */
    m[7] = 4.0f;  /* the centre */
    tc_filter_spec f;
    tc_filter_binomial(&f, 3);
    tc_filter_set_mask(&f, m, 5, 3);
    f.border = TC_BORDER_CONSTANT;
    f.border_value = 10.0f;
    tc_plane out = reference_of(5, 4, px, &roi, &f);
    /* The sROI is px 6 7 / 11 12. ROI (0, 0): 10 + 2 * 10 + 4 * 6 = 54; (1, 0): 10 + 20 + 28 =
     * 58; (0, 1): 10 + 20 + 44 = 74; (1, 1): 10 + 20 + 48 = 78 (every corner read is outside). */
    assert_true(out.px[0 * 5 + 3] == 54.0f && out.px[0 * 5 + 4] == 58.0f);
    assert_true(out.px[1 * 5 + 3] == 74.0f && out.px[1 * 5 + 4] == 78.0f);
    for (int i = 0; i < 20; i++)
        if (i != 3 && i != 4 && i != 8 && i != 9)
            assert_true(out.px[i] == px[i]);
    tc_plane_free(&out);
}

/* A rank-1 mask summed directly equals the separable filter of its factors to double
 * rounding: the reference of the mask and of (kx, ky) agree on a random image, every border
 * rule, a moved ROI. (The reference never uses the factors: the factored mask's result comes
 * from its own weights, which is what the test shows to be the same.) */
static void test_mask_rank1_equals_separable(void **state)
{
    (void)state;
    tc_plane in = pattern_plane(23, 17, 7919, 256, 0.5f, 3), a, b;
    tc_roi roi = {2, 3, 5, 1, 16, 12};
    static const float kx[5] = {0.5f, -1.0f, 2.0f, 0.25f, 3.0f}, ky[3] = {1.0f, -2.0f, 0.5f};
    float m[15];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 5; i++)
            m[j * 5 + i] = ky[j] * kx[i]; /* exact: short binary fractions */
    assert_int_equal(tc_plane_alloc(&a, 23, 17), 0);
    assert_int_equal(tc_plane_alloc(&b, 23, 17), 0);
    for (int bd = 0; bd < TC_BORDER_COUNT; bd++) {
        tc_filter_spec sep, mask;
        tc_filter_binomial_xy(&sep, 5, 3);
        memcpy(sep.kx, kx, sizeof kx);
        memcpy(sep.ky, ky, sizeof ky);
        sep.border = mask.border = (tc_border)bd;
        sep.border_value = mask.border_value = 3.5f;
        tc_filter_set_mask(&mask, m, 5, 3);
        assert_int_equal(mask.mask_separable, 1);
        assert_int_equal(reference_convolve(&in, &roi, &sep, &a), TC_OK);
        assert_int_equal(reference_convolve(&in, &roi, &mask, &b), TC_OK);
        for (int i = 0; i < 23 * 17; i++)
            if (fabs((double)a.px[i] - b.px[i]) > 1e-3)
                fail_msg("%s, pixel %d: separable %.9g, mask %.9g", tc_border_name((tc_border)bd),
                         i, a.px[i], b.px[i]);
    }
    tc_plane_free(&in);
    tc_plane_free(&a);
    tc_plane_free(&b);
}

/* A length per axis: 5 x 1 filters rows only, 1 x 3 columns only, both by hand. */
static void test_per_axis_by_hand(void **state)
{
    (void)state;
    const float px[6] = {1, 2, 3, /**/ 4, 5, 6};
    tc_plane in = make_plane(3, 2, px), out;
    tc_roi roi = full_roi(3, 2);
    tc_filter_spec f;
    tc_filter_binomial_xy(&f, 5, 1);
    f.kx[0] = 1; /* (x - 2) + (x + 2), replicate */
    f.kx[1] = f.kx[2] = f.kx[3] = 0;
    f.kx[4] = 1;
    assert_int_equal(tc_plane_alloc(&out, 3, 2), 0);
    assert_int_equal(reference_convolve(&in, &roi, &f, &out), TC_OK);
    const float rows[6] = {1 + 3, 1 + 3, 1 + 3, /**/ 4 + 6, 4 + 6, 4 + 6};
    assert_memory_equal(out.px, rows, sizeof rows);
    tc_filter_binomial_xy(&f, 1, 3); /* 1/4 2/4 1/4 down the columns */
    assert_int_equal(reference_convolve(&in, &roi, &f, &out), TC_OK);
    const float cols[6] = {1.75f, 2.75f, 3.75f, /**/ 3.25f, 4.25f, 5.25f};
    assert_memory_equal(out.px, cols, sizeof cols);
    tc_plane_free(&in);
    tc_plane_free(&out);
}

/* The mask tolerance: 2 x (w h) x FLT_EPSILON x max|in| x sum|m|; a factored mask adds its
 * factors' bound (taps_x + taps_y deep) and max|in| x the residual (0 for exact factors). */
static void test_mask_tolerance_formula(void **state)
{
    (void)state;
    static const float lap8[9] = {1, 1, 1, 1, -8, 1, 1, 1, 1};
    tc_filter_spec f;
    tc_filter_binomial(&f, 3);
    tc_filter_set_mask(&f, lap8, 3, 3);
    assert_true(fabs(tolerance_on_255(&f) - 2.0 * 9 * FLT_EPSILON * 255.0 * 16.0) < 1e-12);
    static const float b3[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
    tc_filter_set_mask(&f, b3, 3, 3);
    assert_int_equal(f.mask_separable, 1);
    /* sum|kx| x sum|ky| = 8 x 2 = 16 = sum|m|: 2 x 9 eps 255 16 + 2 x 6 eps 255 16. */
    const double want = 2.0 * 9 * FLT_EPSILON * 255.0 * 16.0 + 2.0 * 6 * FLT_EPSILON * 255.0 * 16.0;
    assert_true(fabs(tolerance_on_255(&f) - want) < 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filters_by_hand),
        cmocka_unit_test(test_border_rules_by_hand),
        cmocka_unit_test(test_border_corners_and_long_reach),
        cmocka_unit_test(test_tolerance_formula),
        cmocka_unit_test(test_binomial_filters_sum_to_one),
        cmocka_unit_test(test_in_place_equals_out_of_place),
        cmocka_unit_test(test_mask_by_hand),
        cmocka_unit_test(test_mask_rectangular_constant_border),
        cmocka_unit_test(test_mask_rank1_equals_separable),
        cmocka_unit_test(test_per_axis_by_hand),
        cmocka_unit_test(test_mask_tolerance_formula),
    };
    return cmocka_run_group_tests_name("reference", tests, NULL, NULL);
}
