/* test_verify.c - the comparison of a device result with the CPU reference (src/files/compare.c, cli/verify.c):
 * exact outside the target ROI, within the tolerance inside it. */
#include "test_util.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "image.h"
#include "verify.h"

static tc_plane make_plane(int w, int h, const float *values)
{
    tc_plane p;
    assert_int_equal(tc_plane_alloc(&p, w, h), 0);
    memcpy(p.px, values, (size_t)w * (size_t)h * sizeof(float));
    return p;
}

static void test_compare_counts_and_is_exact_outside(void **state)
{
    (void)state;
    const float e_px[4] = {1, 2, 3, 4};
    float a_px[4] = {1, 2, 3, 4};
    tc_plane e = make_plane(4, 1, e_px), a;
    tc_roi roi = {0, 0, 1, 0, 2, 1}; /* target: x = 1, 2 */
    assert_int_equal(tc_plane_alloc(&a, 4, 1), 0);

    memcpy(a.px, a_px, sizeof a_px);
    a.px[1] += 0.001f; /* inside, within 0.01 */
    tc_verify_result v = verify_compare(&e, &a, &roi, 0.01, NULL, 0);
    assert_int_equal(v.mismatches, 0);

    a.px[2] += 0.5f;                                  /* inside, outside the tolerance */
    a.px[3] = nextafterf(a.px[3], 10.0f);             /* outside the tROI: one ulp is too much */
    v = verify_compare(&e, &a, &roi, 0.01, NULL, 0);
    assert_int_equal(v.mismatches, 2);

    a.px[2] = NAN; /* NaN never passes */
    v = verify_compare(&e, &a, &roi, 1e9, NULL, 0);
    assert_int_equal(v.mismatches, 2);
    tc_plane_free(&e);
    tc_plane_free(&a);
}

/* Equal infinities agree (inf - inf is NaN, which would fail the pixel), inside the target ROI
 * and outside it; an infinity against a finite value, or the other infinity, and NaN do not. */
static void test_equal_infinities_agree(void **state)
{
    (void)state;
    const float e_px[4] = {INFINITY, -INFINITY, INFINITY, 1.0f};
    tc_plane e = make_plane(4, 1, e_px), a = make_plane(4, 1, e_px);
    tc_roi roi = {0, 0, 0, 0, 3, 1}; /* target: x = 0, 1, 2; x = 3 outside */
    tc_verify_result v = verify_compare(&e, &a, &roi, 0.01, NULL, 0);
    assert_int_equal(v.mismatches, 0);
    assert_true(v.max_error == 0.0);

    a.px[0] = -INFINITY;   /* the other infinity */
    a.px[2] = FLT_MAX;     /* a finite value against an infinity */
    v = verify_compare(&e, &a, &roi, 1e30, NULL, 0);
    assert_int_equal(v.mismatches, 2);
    a.px[0] = INFINITY;
    a.px[2] = NAN;
    v = verify_compare(&e, &a, &roi, 1e30, NULL, 0);
    assert_int_equal(v.mismatches, 1);
    tc_plane_free(&e);
    tc_plane_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_counts_and_is_exact_outside),
        cmocka_unit_test(test_equal_infinities_agree),
    };
    return cmocka_run_group_tests_name("verify", tests, NULL, NULL);
}
