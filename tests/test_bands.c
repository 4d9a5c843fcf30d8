/* test_bands.c - images filtered in bands of rows (src/bands.c) against the whole image, bit for
 * bit: tc_filter and tc_filter_image with a memory budget (tc_set_max_memory) small enough for
 * many bands, every algorithm, border rule, filter length, mask, ROI placement, in place and
 * not; the plan's bands against its rules; a budget too small for one band refused with the
 * bytes named. */
#include "test_util.h"
#include "test_context.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bands.h"
#include "tiledconv.h"

/* A plane of w x h floats, not yet set (its allocation asserted). */
static float *new_plane(int w, int h)
{
    float *p = malloc((size_t)w * (size_t)h * sizeof(float));
    assert_non_null(p);
    return p;
}

/* A plane with edges, ramps and noise, so that every tap and every border matters. */
static float *test_plane(int w, int h, unsigned seed)
{
    float *p = new_plane(w, h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            seed = seed * 1103515245u + 12345u;
            p[(size_t)y * (size_t)w + (size_t)x] =
                (float)((x * 7 + y * 13) % 97) + ((x / 9 + y / 5) % 2 ? 100.0f : 0.0f) +
                (float)((seed >> 16) % 1000) / 333.0f;
        }
    return p;
}

/* The budget that makes bands of about `rows` rows for this image on this device. */
static unsigned long long budget_for(int w, int rows)
{
    tc_device_info info;
    tc_context_device(ctx, &info);
    /* The device's planes (a CPU's are host memory) with padded rows, the launcher's copy, the
     * results and the gathered rows, each a row of floats a row. */
    const unsigned long long row = ((unsigned long long)w + 64) * sizeof(float);
    return (unsigned long long)rows * row * (info.is_cpu ? 8 : 4);
}

typedef struct {
    const char *what;
    tc_algorithm algorithm;
    tc_storage storage;
    int taps_x, taps_y;
    int mask; /* 1: a 5 x 7 mask that is not rank 1 */
    tc_border border;
    int src_left, src_top, dst_left, dst_top, roi_width, roi_height;
} band_case;

static void params_of(const band_case *c, tc_params *p)
{
    static float mask[35];
    for (int i = 0; i < 35; i++)
        mask[i] = (float)((i * 5) % 11) / 20.0f - 0.2f;
    tc_params_init(p);
    p->algorithm = c->algorithm;
    p->storage = c->storage;
    p->taps_x = c->taps_x;
    p->taps_y = c->taps_y;
    p->border = c->border;
    p->border_value = 17.5f;
    test_set_roi(p, c->src_left, c->src_top, c->dst_left, c->dst_top, c->roi_width,
                 c->roi_height);
    if (c->mask) {
        p->mask = mask;
        p->mask_width = 5;
        p->mask_height = 7;
    }
}

/* One case: whole, then in bands (a budget for ~rows rows), into a new plane and in place. */
static void check_case(const band_case *c, int w, int h, int rows)
{
    tc_params p;
    params_of(c, &p);
    float *src = test_plane(w, h, 7u + (unsigned)rows);
    const size_t n = (size_t)w * (size_t)h;
    float *whole = new_plane(w, h), *banded = new_plane(w, h), *in_place = new_plane(w, h);
    assert_int_equal(tc_set_max_memory(ctx, 0), TC_OK);
    if (tc_filter(ctx, src, whole, w, h, &p) != TC_OK)
        fail_msg("%s: whole: %s", c->what, tc_error(ctx));
    /* The bands the library cuts for this budget (its own bytes a row, bands.c): many. */
    tc_band_plan plan;
    if (tc_context_plan_bands(ctx, &p, w, h, budget_for(w, rows), 1, (unsigned long long)w * 8,
                              0, 0, &plan) != TC_OK)
        fail_msg("%s: plan: %s", c->what, tc_error(ctx));
    if (plan.roi.height > 2 * rows + plan.align + plan.halo_top && plan.count < 2)
        fail_msg("%s: one band of %d rows for a budget of about %d", c->what, plan.rows, rows);
    assert_int_equal(tc_set_max_memory(ctx, budget_for(w, rows)), TC_OK);
    if (tc_filter(ctx, src, banded, w, h, &p) != TC_OK)
        fail_msg("%s: in bands: %s", c->what, tc_error(ctx));
    memcpy(in_place, src, n * sizeof(float));
    if (tc_filter(ctx, in_place, in_place, w, h, &p) != TC_OK)
        fail_msg("%s: in bands, in place: %s", c->what, tc_error(ctx));
    for (size_t i = 0; i < n; i++)
        if (memcmp(&whole[i], &banded[i], sizeof(float)) != 0 ||
            memcmp(&whole[i], &in_place[i], sizeof(float)) != 0)
            fail_msg("%s: pixel (%lu, %lu): whole %.9g, bands %.9g, in place %.9g", c->what,
                     (unsigned long)(i % (size_t)w), (unsigned long)(i / (size_t)w),
                     (double)whole[i], (double)banded[i], (double)in_place[i]);
    assert_int_equal(tc_set_max_memory(ctx, 0), TC_OK);
    free(src);
    free(whole);
    free(banded);
    free(in_place);
}

/* Every border rule with lengths short and long, equal and not, one tap along an axis. Each
 * rule takes every other pair of lengths, the rules in turn taking the two halves, so that
 * every rule and every pair is met (15 cases); TEST_FULL set (`make full-sweeps`) takes every
 * rule with every pair (30). */
static void test_borders_and_lengths(void **state)
{
    (void)state;
    static const tc_border borders[] = {TC_BORDER_REPLICATE, TC_BORDER_CONSTANT,
                                        TC_BORDER_REFLECT101, TC_BORDER_REFLECT, TC_BORDER_WRAP};
    static const int taps[][2] = {{3, 3}, {5, 7}, {9, 11}, {7, 1}, {1, 15}, {31, 33}};
    const int full = getenv("TEST_FULL") != NULL;
    char what[128];
    for (size_t b = 0; b < sizeof borders / sizeof borders[0]; b++)
        for (size_t t = 0; t < sizeof taps / sizeof taps[0]; t++) {
            if (!full && (b + t) % 2)
                continue;
            band_case c = {what, TC_TILED, TC_STORAGE_BUFFER, taps[t][0], taps[t][1], 0,
                           borders[b], 0, 0, 0, 0, 0, 0};
            snprintf(what, sizeof what, "tiled %dx%d taps, %s", taps[t][0], taps[t][1],
                     tc_border_name(borders[b]));
            check_case(&c, 203, 611, 40);
        }
}

static void test_algorithms(void **state)
{
    (void)state;
    static const struct {
        tc_algorithm a;
        tc_storage s;
    } algs[] = {{TC_TILED, TC_STORAGE_BUFFER}, {TC_TWOPASS, TC_STORAGE_BUFFER},
                {TC_ONEPASS, TC_STORAGE_BUFFER}, {TC_TILED, TC_STORAGE_IMAGE},
                {TC_ONEPASS, TC_STORAGE_IMAGE}};
    tc_device_info info;
    char what[128];
    tc_context_device(ctx, &info);
    for (size_t i = 0; i < sizeof algs / sizeof algs[0]; i++)
        for (int wrap = 0; wrap < 2; wrap++) {
            band_case c = {what, algs[i].a, algs[i].s, 7, 9, 0,
                           wrap ? TC_BORDER_WRAP : TC_BORDER_REFLECT101, 0, 0, 0, 0, 0, 0};
            tc_params p;
            params_of(&c, &p);
            if (tc_check_params(ctx, 64, 64, &p) != TC_OK) {
                printf("  %s: not on this device: %s\n", tc_algorithm_name(algs[i].a),
                       tc_error(ctx));
                continue;
            }
            snprintf(what, sizeof what, "%s %s %s", tc_algorithm_name(algs[i].a),
                     tc_storage_name(algs[i].s), wrap ? "wrap" : "reflect101");
            check_case(&c, 157, 500, 30);
        }
}

static void test_masks_and_rois(void **state)
{
    (void)state;
    static const band_case cases[] = {
        {"mask 5x7, tiled", TC_TILED, TC_STORAGE_BUFFER, 3, 3, 1, TC_BORDER_REFLECT, 0, 0, 0,
         0, 0, 0},
        {"mask 5x7, onepass, wrap", TC_ONEPASS, TC_STORAGE_BUFFER, 3, 3, 1, TC_BORDER_WRAP, 0,
         0, 0, 0, 0, 0},
        {"ROI below its source", TC_TILED, TC_STORAGE_BUFFER, 5, 5, 0, TC_BORDER_REPLICATE, 3,
         10, 20, 200, 150, 270},
        {"ROI above its source", TC_TWOPASS, TC_STORAGE_BUFFER, 9, 9, 0, TC_BORDER_CONSTANT, 11,
         220, 2, 5, 120, 250},
        {"ROI a row off", TC_TILED, TC_STORAGE_BUFFER, 7, 7, 0, TC_BORDER_WRAP, 0, 41, 1, 42,
         180, 400},
        {"ROI overlapping, wrap", TC_ONEPASS, TC_STORAGE_BUFFER, 11, 13, 0, TC_BORDER_WRAP, 5,
         30, 9, 37, 140, 420},
        {"ROI narrow", TC_TILED, TC_STORAGE_BUFFER, 3, 9, 0, TC_BORDER_REFLECT101, 100, 0, 90, 0,
         9, 0},
        {"ROI short (one band)", TC_TILED, TC_STORAGE_BUFFER, 15, 15, 0, TC_BORDER_WRAP, 0, 100,
         0, 100, 0, 5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(&cases[i], 211, 480, 32);
}

/* The plan's bands cover the ROI once, start on the alignment, read their halos. */
static void test_plan_rules(void **state)
{
    (void)state;
    static const int taps_y[] = {3, 7, 9, 21, 63};
    for (size_t t = 0; t < sizeof taps_y / sizeof taps_y[0]; t++)
        for (int wrap = 0; wrap < 2; wrap++) {
            tc_params p;
            tc_band_plan plan;
            tc_params_init(&p);
            p.taps_y = taps_y[t];
            p.border = wrap ? TC_BORDER_WRAP : TC_BORDER_REPLICATE;
            if (tc_context_plan_bands(ctx, &p, 300, 3000, 1ULL << 40, 1, 1200, 0, 300, &plan) !=
                TC_OK)
                fail_msg("plan: %s", tc_error(ctx));
            assert_true(plan.count > 1);
            assert_int_equal(plan.rows % plan.align, 0);
            assert_int_equal(plan.halo_top % plan.align, 0);
            assert_true(plan.halo_top >= plan.ry);
            assert_int_equal(plan.wrap, wrap);
            int next = 0;
            for (int k = 0; k < plan.count; k++) {
                tc_band b;
                tc_band_at(&plan, k, &b);
                assert_int_equal(b.a, next);
                assert_true(b.b > b.a);
                next = b.b;
                assert_true(b.lo <= b.a - plan.ry || (!wrap && b.lo == 0));
                assert_true(b.hi >= b.b + plan.ry || (!wrap && b.hi == 3000));
                assert_int_equal((b.a - b.lo) % plan.align, 0);
                for (int r = b.lo; r < b.hi; r++) {
                    const int s = tc_band_source_row(&plan, r);
                    assert_true(s >= 0 && s < 3000);
                    assert_int_equal(s, ((r % 3000) + 3000) % 3000);
                }
            }
            assert_int_equal(next, 3000);
        }
}

/* Not even one band: TC_EINVAL with the bytes a band needs and the budget, both named. */
static void test_budget_too_small(void **state)
{
    (void)state;
    const int w = 4000, h = 300;
    const tc_params p = test_params_taps(63, 63);
    float *src = test_plane(w, h, 3u), *dst = new_plane(w, h);
    assert_int_equal(tc_set_max_memory(ctx, 100000), TC_OK);
    assert_int_equal(tc_filter(ctx, src, dst, w, h, &p), TC_EINVAL);
    const char *e = tc_error(ctx);
    assert_non_null(strstr(e, "even one band of"));
    assert_non_null(strstr(e, "bytes"));
    assert_non_null(strstr(e, "memory budget of 100000 bytes"));
    assert_int_equal(tc_set_max_memory(ctx, 0), TC_OK);
    assert_int_equal(tc_filter(ctx, src, dst, w, h, &p), TC_OK);
    free(src);
    free(dst);
}

/* bilinear's weights depend on a row's place in the image: it is never cut into bands, and an
 * image that does not fit whole is refused with the reason. */
static void test_bilinear_whole_only(void **state)
{
    (void)state;
    const int w = 157, h = 500;
    tc_params p = test_params_taps(9, 9);
    p.algorithm = TC_BILINEAR;
    float *src = test_plane(w, h, 5u), *dst = new_plane(w, h);
    if (tc_check_params(ctx, w, h, &p) != TC_OK) {
        printf("  bilinear: not on this device: %s\n", tc_error(ctx));
    } else {
        assert_int_equal(tc_set_max_memory(ctx, budget_for(w, 40)), TC_OK);
        assert_int_equal(tc_filter(ctx, src, dst, w, h, &p), TC_EINVAL);
        assert_non_null(strstr(tc_error(ctx), "bilinear filters whole images only"));
    }
    assert_int_equal(tc_set_max_memory(ctx, 0), TC_OK);
    free(src);
    free(dst);
}

/* tc_filter_image in bands: the pixels of the whole run, gray and colour, bytes and floats,
 * rows stored bottom-up (a BMP's), a ROI. */
static void test_filter_image(void **state)
{
    (void)state;
    const int w = 173, h = 419;
    const long stride = 3L * w + 3; /* padded, as a BMP's rows */
    unsigned char *rgb = malloc((size_t)stride * (size_t)h);
    assert_non_null(rgb);
    for (size_t i = 0; i < (size_t)stride * (size_t)h; i++)
        rgb[i] = (unsigned char)((i * 2654435761u) >> 24);
    const tc_image src = {TC_PIXELS_BGR24, w, h, 0, rgb + (size_t)stride * (size_t)(h - 1),
                          -stride, NULL, 0};
    static const tc_pixel_format outs[] = {TC_PIXELS_GRAY8, TC_PIXELS_RGB24, TC_PIXELS_BGRX32,
                                           TC_PIXELS_FLOAT32};
    for (size_t o = 0; o < sizeof outs / sizeof outs[0]; o++)
        for (int colour = 0; colour < 2; colour++) {
            const int planes = outs[o] == TC_PIXELS_FLOAT32 ? (colour ? 3 : 1)
                               : outs[o] == TC_PIXELS_GRAY8 ? 1
                                                            : 3;
            if ((outs[o] == TC_PIXELS_GRAY8 && colour) ||
                (outs[o] != TC_PIXELS_GRAY8 && outs[o] != TC_PIXELS_FLOAT32 && !colour))
                continue;
            const long bpp = outs[o] == TC_PIXELS_FLOAT32 ? 4 : outs[o] == TC_PIXELS_GRAY8 ? 1
                             : outs[o] == TC_PIXELS_BGRX32   ? 4
                                                             : 3;
            const long ostride = bpp * w;
            const size_t bytes = (size_t)ostride * (size_t)h * (size_t)(bpp == 4 && outs[o] ==
                                 TC_PIXELS_FLOAT32 ? planes : 1);
            unsigned char *a = calloc(bytes, 1), *b = calloc(bytes, 1);
            assert_non_null(a);
            assert_non_null(b);
            const tc_image da = {outs[o], w, h, planes, a, ostride, NULL, 0};
            const tc_image db = {outs[o], w, h, planes, b, ostride, NULL, 0};
            tc_params p = test_params_taps(5, 9);
            p.border = TC_BORDER_WRAP;
            test_set_roi(&p, 4, 30, 7, 12, 150, 350);
            p.out_scale = 1.5;
            p.out_offset = -20.0;
            assert_int_equal(tc_set_max_memory(ctx, 0), TC_OK);
            if (tc_filter_image(ctx, &src, &da, &p) != TC_OK)
                fail_msg("whole: %s", tc_error(ctx));
            assert_int_equal(tc_set_max_memory(ctx, budget_for(w, 40) * 2), TC_OK);
            if (tc_filter_image(ctx, &src, &db, &p) != TC_OK)
                fail_msg("bands: %s", tc_error(ctx));
            assert_memory_equal(a, b, bytes);
            free(a);
            free(b);
        }
    assert_int_equal(tc_set_max_memory(ctx, 0), TC_OK);
    free(rgb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_rules),
        cmocka_unit_test(test_borders_and_lengths),
        cmocka_unit_test(test_algorithms),
        cmocka_unit_test(test_masks_and_rois),
        cmocka_unit_test(test_budget_too_small),
        cmocka_unit_test(test_bilinear_whole_only),
        cmocka_unit_test(test_filter_image),
    };
    return cmocka_run_group_tests(tests, context_setup, context_teardown);
}
