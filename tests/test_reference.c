/* test_reference.c - the CPU reference (src/reference.c) against values computed by hand. The
 * comparison of a result with it (cli/verify.c) is tested in test_verify.c. */
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

static tc_roi full_roi(int w, int h)
{
    tc_roi r = {0, 0, 0, 0, w, h};
    return r;
}

/* 1/4 1/2 1/4 along a row of three: the ends repeat the edge pixel. Height 1: the vertical
 * pass sees the same row three times and, the weights summing to 1, leaves it. */
static void test_binomial3_row_with_replicated_edges(void **state)
{
    (void)state;
    const float in_px[] = {0, 4, 8};
    tc_plane in = make_plane(3, 1, in_px), out;
    tc_filter_spec f;
    tc_roi roi = full_roi(3, 1);
    tc_filter_binomial(&f, 3);
    assert_int_equal(tc_plane_alloc(&out, 3, 1), 0);
    assert_int_equal(reference_convolve(&in, &roi, &f, &out), TC_OK);
    /* 0.25*0 + 0.5*0 + 0.25*4 = 1; 0.25*0 + 0.5*4 + 0.25*8 = 4; 0.25*4 + 0.5*8 + 0.25*8 = 7 */
    assert_true(out.px[0] == 1.0f);
    assert_true(out.px[1] == 4.0f);
    assert_true(out.px[2] == 7.0f);
    tc_plane_free(&in);
    tc_plane_free(&out);
}

/* An impulse of 16 in the middle of a 5 x 5 image spreads into 16 * k k^T. */
static void test_impulse_gives_outer_product(void **state)
{
    (void)state;
    float px[25] = {0};
    px[12] = 16.0f;
    tc_plane in = make_plane(5, 5, px), out;
    tc_filter_spec f;
    tc_roi roi = full_roi(5, 5);
    tc_filter_binomial(&f, 3);
    assert_int_equal(tc_plane_alloc(&out, 5, 5), 0);
    assert_int_equal(reference_convolve(&in, &roi, &f, &out), TC_OK);
    const float expected[25] = {0, 0, 0, 0, 0, /**/ 0, 1, 2, 1, 0, /**/ 0, 2, 4, 2, 0,
                                /**/ 0, 1, 2, 1, 0, /**/ 0, 0, 0, 0, 0};
    for (int i = 0; i < 25; i++)
        assert_true(out.px[i] == expected[i]);
    tc_plane_free(&in);
    tc_plane_free(&out);
}

/* 5 taps: 1 4 6 4 1 / 16 of an impulse of 256 at the centre of a 9 x 1 row: 16 64 96 64 16. */
static void test_binomial5_impulse(void **state)
{
    (void)state;
    float px[9] = {0};
    px[4] = 256.0f;
    tc_plane in = make_plane(9, 1, px), out;
    tc_filter_spec f;
    tc_roi roi = full_roi(9, 1);
    tc_filter_binomial(&f, 5);
    assert_true(f.kx[0] == 1.0f / 16 && f.kx[1] == 4.0f / 16 && f.kx[2] == 6.0f / 16);
    assert_int_equal(tc_plane_alloc(&out, 9, 1), 0);
    assert_int_equal(reference_convolve(&in, &roi, &f, &out), TC_OK);
    const float expected[9] = {0, 0, 16, 64, 96, 64, 16, 0, 0};
    for (int i = 0; i < 9; i++)
        assert_true(out.px[i] == expected[i]);
    tc_plane_free(&in);
    tc_plane_free(&out);
}

/* The clamp is to the source ROI, not to the image: pixel 0 (100) is outside the sROI and must
 * not leak in; the target ROI starts at 0; pixel 3 is outside the tROI and keeps its input. */
static void test_clamps_to_source_roi_and_keeps_outside_pixels(void **state)
{
    (void)state;
    const float px[4] = {100, 0, 4, 8};
    tc_plane in = make_plane(4, 1, px), out;
    tc_filter_spec f;
    tc_roi roi = {1, 0, 0, 0, 3, 1};
    tc_filter_binomial(&f, 3);
    assert_int_equal(tc_plane_alloc(&out, 4, 1), 0);
    assert_int_equal(reference_convolve(&in, &roi, &f, &out), TC_OK);
    assert_true(out.px[0] == 1.0f);
    assert_true(out.px[1] == 4.0f);
    assert_true(out.px[2] == 7.0f);
    assert_true(out.px[3] == 8.0f);
    tc_plane_free(&in);
    tc_plane_free(&out);
}

/* Correlation, not convolution: an asymmetric kernel is not flipped. 0 0 1 picks the right
 * neighbour: out(x) = in(x + 1), the last pixel repeating itself. */
static void test_correlation_not_flipped(void **state)
{
    (void)state;
    const float px[4] = {1, 2, 3, 4};
    tc_plane in = make_plane(4, 1, px), out;
    tc_filter_spec f = {3, {0, 0, 1}, {0, 1, 0}, TC_BORDER_REPLICATE, 0.0f};
    tc_roi roi = full_roi(4, 1);
    assert_int_equal(tc_plane_alloc(&out, 4, 1), 0);
    assert_int_equal(reference_convolve(&in, &roi, &f, &out), TC_OK);
    assert_true(out.px[0] == 2.0f && out.px[1] == 3.0f && out.px[2] == 4.0f &&
                out.px[3] == 4.0f);
    tc_plane_free(&in);
    tc_plane_free(&out);
}

/* Separate kx and ky: kx picks the left neighbour, ky the pixel below. */
static void test_separate_row_and_column_filters(void **state)
{
    (void)state;
    const float px[6] = {1, 2, 3, /**/ 4, 5, 6};
    tc_plane in = make_plane(3, 2, px), out;
    tc_filter_spec f = {3, {1, 0, 0}, {0, 0, 1}, TC_BORDER_REPLICATE, 0.0f};
    tc_roi roi = full_roi(3, 2);
    assert_int_equal(tc_plane_alloc(&out, 3, 2), 0);
    assert_int_equal(reference_convolve(&in, &roi, &f, &out), TC_OK);
    const float expected[6] = {4, 4, 5, /**/ 4, 4, 5};
    for (int i = 0; i < 6; i++)
        assert_true(out.px[i] == expected[i]);
    tc_plane_free(&in);
    tc_plane_free(&out);
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
        tc_filter_spec f = {5, {1, 0, 0, 0, 0}, {0, 0, 1, 0, 0}, cases[c].mode, 9.0f};
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
    tc_filter_spec f = {3, {1, 0, 0}, {1, 0, 0}, TC_BORDER_CONSTANT, 7.0f};
    assert_int_equal(reference_convolve(&in, &roi, &f, &out), TC_OK);
    assert_true(out.px[0] == 7 && out.px[1] == 7 && out.px[2] == 7 && out.px[3] == 1);
    /* Row "ab" read 5 to the left. reflect101 repeats with period 2: ... a b a b | a b, so
     * x - 5 = -5 -> b and -4 -> a. reflect repeats "abba": ... a a b b a | a b, so -5 -> a and
     * -4 -> a. */
    tc_filter_spec g = {11, {1}, {0, 0, 0, 0, 0, 1}, TC_BORDER_REFLECT101, 0.0f};
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
    float px[9 * 7];
    for (int i = 0; i < 9 * 7; i++)
        px[i] = (float)((i * 37) % 23) + 0.25f * (float)(i % 4);
    tc_plane in = make_plane(9, 7, px), out, same;
    tc_roi roi = {1, 2, 2, 1, 6, 5}; /* overlapping: the target is one right, one up */
    assert_int_equal(tc_plane_alloc(&out, 9, 7), 0);
    for (int b = 0; b < TC_BORDER_COUNT; b++) {
        tc_filter_spec f = {5, {0.5f, -1, 2, 0.25f, 3}, {1, 0, -2, 1.5f, 0.125f}, (tc_border)b,
                            4.0f};
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
    const float px[2] = {255, -10};
    tc_plane in = make_plane(2, 1, px);
    tc_filter_spec f;
    tc_filter_binomial(&f, 3);
    /* 2 * (2 * 3) * FLT_EPSILON * 255 * 1 * 1 */
    assert_true(fabs(reference_tolerance(&in, &f) - 12.0 * FLT_EPSILON * 255.0) < 1e-12);
    tc_plane_free(&in);
}

static void test_binomial_filters_sum_to_one(void **state)
{
    (void)state;
    for (int taps = TC_MIN_TAPS; taps <= TC_MAX_TAPS; taps += 2) {
        tc_filter_spec f;
        double sum = 0.0;
        tc_filter_binomial(&f, taps);
        for (int i = 0; i < taps; i++)
            sum += f.kx[i];
        assert_true(sum == 1.0);
        assert_true(f.kx[0] == f.kx[taps - 1]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_binomial3_row_with_replicated_edges),
        cmocka_unit_test(test_impulse_gives_outer_product),
        cmocka_unit_test(test_binomial5_impulse),
        cmocka_unit_test(test_clamps_to_source_roi_and_keeps_outside_pixels),
        cmocka_unit_test(test_correlation_not_flipped),
        cmocka_unit_test(test_separate_row_and_column_filters),
        cmocka_unit_test(test_border_rules_by_hand),
        cmocka_unit_test(test_border_corners_and_long_reach),
        cmocka_unit_test(test_tolerance_formula),
        cmocka_unit_test(test_binomial_filters_sum_to_one),
        cmocka_unit_test(test_in_place_equals_out_of_place),
    };
    return cmocka_run_group_tests_name("reference", tests, NULL, NULL);
}
