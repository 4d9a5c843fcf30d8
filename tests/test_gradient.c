/*
 * test_gradient.c - the one-read gradient (tc_gradient) through the public API: the reference
 * against values worked out by hand; the one-read pass and the two filters apart against the
 * reference over whole images of awkward sizes, ROIs on tile and class boundaries, every
 * alignment class, every border rule, both operators, float4 and scalar I/O, with and without
 * gx and gy; the magnitude against the square root of the two plain filters' outputs
 * (tc_filter with "sobel-x" and "sobel-y"); the classes the kernel counts against tc_tiles;
 * the argument checks; in place; the timed calls and the program cache.
 *
 * Every pixel of every plane is compared (verify_compare): outside the target ROI bit for bit
 * with the input, inside within tc_gradient_tolerance.
 */
#include "test_util.h"
#include "test_cli.h"

#define TEST_RNG_SEED 16
#include "test_context.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "option_parse.h"
#include "tiledconv.h"
#include "verify.h"

static long cases_run, classes_seen[4];


static int teardown(void **state)
{
    (void)state;
    tc_stats s;
    tc_last_stats(ctx, &s); /* programs_built is filled in any case */
    print_message("gradient: %ld cases compared pixel by pixel (classes seen %ld %ld %ld %ld), "
                  "%ld programs built\n",
                  cases_run, classes_seen[0], classes_seen[1], classes_seen[2], classes_seen[3],
                  s.programs_built);
    return context_teardown(state);
}

typedef struct {
    int width, height;
    int sl, st, tl, tt, rw, rh; /* rw, rh 0: the largest that fits */
} layout;

static tc_params params_for(const layout *l, tc_border border, float value, int vector_io)
{
    tc_params p;
    tc_params_init(&p);
    test_set_roi(&p, l->sl, l->st, l->tl, l->tt, l->rw, l->rh);
    p.border = border;
    p.border_value = value;
    p.vector_io = vector_io;
    p.count_classes = 1;
    return p;
}

static tc_plane plane(int w, int h)
{
    tc_plane p;
    assert_int_equal(tc_plane_alloc(&p, w, h), 0);
    /* NaN everywhere: a pixel the run forgets shows. */
    memset(p.px, 0xff, (size_t)w * h * sizeof(float));
    return p;
}

/* The resolved ROI of p on a w x h image (what tc_gradient filters). */
static tc_roi roi_of(const tc_params *p, int w, int h)
{
    tc_roi r = {p->src_left, p->src_top, p->dst_left, p->dst_top, p->roi_width, p->roi_height};
    const int mw = w - (r.src_left > r.dst_left ? r.src_left : r.dst_left);
    const int mh = h - (r.src_top > r.dst_top ? r.src_top : r.dst_top);
    if (!r.width)
        r.width = mw;
    if (!r.height)
        r.height = mh;
    return r;
}

static void expect_close(const char *what, const char *label, const tc_plane *expected,
                         const tc_plane *actual, const tc_roi *roi, double tol)
{
    const tc_verify_result v = verify_compare(expected, actual, roi, tol, stderr, 3);
    if (v.mismatches)
        fail_msg("%s, %s: %ld mismatches (tolerance %g, largest difference %g)", label, what,
                 v.mismatches, tol, v.max_error);
}

/* One case: the method on random data against the reference, every plane asked for; the
 * one-read pass's counted classes against tc_tiles. */
static void check_case(const layout *l, tc_gradient_operator op, tc_gradient_method method,
                       tc_border border, int vector_io, int derivatives, const char *label)
{
    const int w = l->width, h = l->height;
    const float value = (float)(rng_next() % 256);
    const tc_params p = params_for(l, border, value, vector_io);
    tc_plane in = plane(w, h), gx = plane(w, h), gy = plane(w, h), mag = plane(w, h);
    tc_plane rgx = plane(w, h), rgy = plane(w, h), rmag = plane(w, h);
    char err[256], what[256];
    double tol_g;
    for (size_t i = 0; i < (size_t)w * h; i++)
        in.px[i] = (float)(rng_next() % 25600) / 100.0f;
    snprintf(what, sizeof what, "%s %s %s, %s border, %s I/O, %d x %d, sROI (%d, %d), tROI "
                                "(%d, %d), %d x %d",
             label, tc_gradient_operator_name(op), tc_gradient_method_name(method),
             tc_border_name(border), vector_io ? "float4" : "scalar", w, h, l->sl, l->st, l->tl,
             l->tt, l->rw, l->rh);
    if (tc_gradient(ctx, in.px, derivatives ? gx.px : NULL, derivatives ? gy.px : NULL, mag.px,
                    w, h, op, method, &p) != TC_OK)
        fail_msg("%s: %s", what, tc_error(ctx));
    assert_int_equal(tc_gradient_reference(in.px, rgx.px, rgy.px, rmag.px, w, h, op, &p, err,
                                           sizeof err),
                     TC_OK);
    const double tol_m = tc_gradient_tolerance(in.px, w, h, op, &p, &tol_g);
    assert_true(tol_m > 0.0 && tol_g > 0.0);
    const tc_roi roi = roi_of(&p, w, h);
    expect_close("magnitude", what, &rmag, &mag, &roi, tol_m);
    if (derivatives) {
        expect_close("gx", what, &rgx, &gx, &roi, tol_g);
        expect_close("gy", what, &rgy, &gy, &roi, tol_g);
    }
    if (method == TC_GRADIENT_ONE_READ) {
        tc_stats s;
        tc_tile tiles[1024];
        long predicted[4];
        assert_int_equal(tc_last_stats(ctx, &s), TC_OK);
        assert_true(s.classes_counted);
        test_tile_classes(&p, w, h, tiles, 1024, predicted);
        for (int c = 0; c < 4; c++) {
            if (s.classes[c] != predicted[c])
                fail_msg("%s: class %d: the kernel ran %ld groups, tc_tiles says %ld", what,
                         c + 1, s.classes[c], predicted[c]);
            classes_seen[c] += s.classes[c];
        }
        /* Without counting, the stats carry the host's prediction: the same four numbers. */
        tc_params uncounted = p;
        tc_stats su;
        uncounted.count_classes = 0;
        if (tc_gradient(ctx, in.px, NULL, NULL, mag.px, w, h, op, method, &uncounted) != TC_OK)
            fail_msg("%s (classes not counted): %s", what, tc_error(ctx));
        assert_int_equal(tc_last_stats(ctx, &su), TC_OK);
        assert_false(su.classes_counted);
        for (int c = 0; c < 4; c++)
            if (su.classes[c] != s.classes[c])
                fail_msg("%s: class %d: predicted %ld groups, the kernel counted %ld", what,
                         c + 1, su.classes[c], s.classes[c]);
    }
    cases_run++;
    tc_plane *all[] = {&in, &gx, &gy, &mag, &rgx, &rgy, &rmag};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        tc_plane_free(all[i]);
}

/* ---- The reference by hand ------------------------------------------------------------- */

/* I(x, y) = 3x + 7y on 6 x 5: inside, the derivative along x is 6 and along y 14, times the
 * smoothing's sum (4 Sobel, 16 Scharr); at a replicated edge half of it. */
static void test_reference_by_hand(void **state)
{
    (void)state;
    enum { W = 6, H = 5 };
    float in[W * H], gx[W * H], gy[W * H], mag[W * H], dev[W * H], dgx[W * H], dgy[W * H];
    char err[256];
    tc_params p;
    tc_params_init(&p);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            in[y * W + x] = (float)(3 * x + 7 * y);
    for (int op = TC_GRADIENT_SOBEL; op <= TC_GRADIENT_SCHARR; op++) {
        const float sum = op == TC_GRADIENT_SOBEL ? 4.0f : 16.0f;
        assert_int_equal(tc_gradient_reference(in, gx, gy, mag, W, H, (tc_gradient_operator)op,
                                               &p, err, sizeof err),
                         TC_OK);
        /* Inside. */
        assert_true(gx[2 * W + 2] == 6.0f * sum);
        assert_true(gy[2 * W + 2] == 14.0f * sum);
        assert_true(mag[2 * W + 2] == (float)sqrt(36.0 * sum * sum + 196.0 * sum * sum));
        /* The left column: I(-1) = I(0), so the derivative is 3; the top row: 7. */
        assert_true(gx[2 * W + 0] == 3.0f * sum);
        assert_true(gy[0 * W + 2] == 7.0f * sum);
        assert_true(mag[0] == (float)sqrt(9.0 * sum * sum + 49.0 * sum * sum));
        /* The device, exactly: integers all the way. */
        assert_int_equal(tc_gradient(ctx, in, dgx, dgy, dev, W, H, (tc_gradient_operator)op,
                                     TC_GRADIENT_ONE_READ, &p),
                         TC_OK);
        for (int i = 0; i < W * H; i++) {
            assert_true(dgx[i] == gx[i]);
            assert_true(dgy[i] == gy[i]);
            assert_true(fabs((double)dev[i] - mag[i]) <= 4.0 * FLT_EPSILON * mag[i]);
        }
    }
    /* A constant border of 100: at column 0 the derivative is I(1) - 100. */
    p.border = TC_BORDER_CONSTANT;
    p.border_value = 100.0f;
    assert_int_equal(tc_gradient_reference(in, gx, gy, mag, W, H, TC_GRADIENT_SOBEL, &p, err,
                                           sizeof err),
                     TC_OK);
    /* Row 2, column 0: rows 1, 2, 3 weighted 1, 2, 1 of (3 + 7y - 100). */
    assert_true(gx[2 * W] == (float)((3 + 7 - 100) + 2 * (3 + 14 - 100) + (3 + 21 - 100)));
}

/* A target ROI: only its pixels change, in every plane; the rest are the input's. */
static void test_roi_only(void **state)
{
    (void)state;
    const layout l = {40, 30, 3, 2, 5, 1, 20, 17};
    check_case(&l, TC_GRADIENT_SOBEL, TC_GRADIENT_ONE_READ, TC_BORDER_REPLICATE, 1, 1, "roi");
}

/* ---- Layouts ---------------------------------------------------------------------------- */

/* Whole images of sizes around the 32 x 32 tile and the 4-column float4 grid. */
static void test_image_sizes(void **state)
{
    (void)state;
    static const int sizes[][2] = {{1, 1},  {2, 2},  {3, 2},  {1, 40},  {40, 1}, {31, 33},
                                   {32, 32}, {33, 31}, {64, 65}, {97, 65}, {130, 97}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const layout l = {sizes[i][0], sizes[i][1], 0, 0, 0, 0, 0, 0};
        check_case(&l, TC_GRADIENT_SOBEL, TC_GRADIENT_ONE_READ, TC_BORDER_REPLICATE, 1,
                   (int)(i % 2), "whole image");
    }
}

/* ROIs whose edges fall on tile and class boundaries: widths and heights of k * 32 and
 * k * 32 +- 1, the source 1 pixel in (the radius) and 0 or 2 in, so that the groups next to
 * the edges move between classes 1 and 2, 3 and 4. */
static void test_class_boundaries(void **state)
{
    (void)state;
    static const layout layouts[] = {
        {99, 99, 1, 1, 1, 1, 66, 66}, {99, 99, 1, 1, 0, 0, 65, 65}, {99, 99, 1, 1, 1, 1, 64, 64},
        {99, 99, 0, 0, 0, 0, 64, 64}, {99, 99, 2, 2, 4, 4, 63, 63}, {99, 99, 1, 1, 1, 1, 34, 34},
        {99, 99, 33, 33, 1, 1, 66, 66}, {70, 70, 1, 1, 0, 0, 32, 32}, {70, 70, 0, 1, 1, 0, 33, 33},
        {100, 80, 4, 3, 8, 5, 92, 75}, {45, 33, 44, 32, 0, 0, 1, 1}, {45, 33, 0, 0, 44, 32, 1, 1},
        {20, 20, 3, 4, 9, 2, 3, 2}, {71, 45, 31, 12, 0, 0, 40, 33}};
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        check_case(&layouts[i], TC_GRADIENT_SOBEL, TC_GRADIENT_ONE_READ, TC_BORDER_REPLICATE, 1,
                   1, "class boundary");
}

/* Every alignment class of the float4 paths: sL mod 4 x tL mod 4, on an image where all four
 * classes of work-groups occur; both methods. */
static void test_alignment_classes(void **state)
{
    (void)state;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) {
            const layout l = {110, 80, 4 + a, 7, 8 + b, 1, 96, 70};
            check_case(&l, TC_GRADIENT_SOBEL, TC_GRADIENT_ONE_READ, TC_BORDER_REPLICATE, 1,
                       (a + b) % 2, "alignment");
            if (a == b || a == 3 - b)
                check_case(&l, TC_GRADIENT_SOBEL, TC_GRADIENT_SEPARATE, TC_BORDER_REPLICATE, 1,
                           1, "alignment");
        }
}

/* Every border rule with both operators, on an unaligned ROI and on a 2 x 2 one (which
 * reflects more than once), float4 and scalar I/O. */
static void test_borders_and_operators(void **state)
{
    (void)state;
    /* (The same alignment class, sL - tL = 3 mod 4, for all: one program per rule and
     * operator, since each build costs PoCL most of a second.) */
    const layout big = {100, 90, 9, 11, 2, 13, 90, 70}, tiny = {20, 20, 3, 4, 4, 2, 2, 2};
    for (int op = TC_GRADIENT_SOBEL; op <= TC_GRADIENT_SCHARR; op++)
        for (int b = 0; b < 5; b++) {
            check_case(&big, (tc_gradient_operator)op, TC_GRADIENT_ONE_READ, (tc_border)b, 1,
                       b % 2, "border");
            check_case(&tiny, (tc_gradient_operator)op, TC_GRADIENT_ONE_READ, (tc_border)b, 1,
                       b % 2, "border, tiny ROI");
        }
    for (int b = 0; b < 5; b++) {
        check_case(&big, TC_GRADIENT_SCHARR, TC_GRADIENT_SEPARATE, (tc_border)b, 1, b % 2,
                   "border");
        check_case(&big, TC_GRADIENT_SOBEL, TC_GRADIENT_ONE_READ, (tc_border)b, 0, 1,
                   "border");
    }
}

/* Seeded random images and ROI pairs (one program per alignment class). */
static void test_random_rois(void **state)
{
    (void)state;
    for (int i = 0; i < 40; i++) {
        layout l;
        l.width = rng_range(1, 120);
        l.height = rng_range(1, 100);
        l.sl = rng_range(0, l.width - 1);
        l.tl = rng_range(0, l.width - 1);
        l.st = rng_range(0, l.height - 1);
        l.tt = rng_range(0, l.height - 1);
        l.rw = rng_range(1, l.width - (l.sl > l.tl ? l.sl : l.tl));
        l.rh = rng_range(1, l.height - (l.st > l.tt ? l.st : l.tt));
        check_case(&l, TC_GRADIENT_SOBEL, TC_GRADIENT_ONE_READ, TC_BORDER_REFLECT101, 1, 0,
                   "random");
    }
}

/* Every class occurred somewhere above, so each path of the kernel was compared. */
static void test_all_classes_occurred(void **state)
{
    (void)state;
    for (int c = 0; c < 4; c++)
        if (classes_seen[c] == 0)
            fail_msg("no work-group of class %d ran", c + 1);
}

/* ---- The gradient and the two plain filters ------------------------------------------------ */

/* The one-read gx and gy are tc_filter's "sobel-x" and "sobel-y" (or Scharr's) on the same
 * ROIs and border, and the magnitude the square root of their squares, each within the
 * tolerances twice (both sides are device results); the two-launch method's too. */
static void test_equals_two_filters(void **state)
{
    (void)state;
    static const layout layouts[] = {{130, 97, 0, 0, 0, 0, 0, 0}, {99, 80, 3, 5, 2, 1, 90, 70}};
    static const char *const names[2][2] = {{"sobel-x", "sobel-y"}, {"scharr-x", "scharr-y"}};
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        for (int op = TC_GRADIENT_SOBEL; op <= TC_GRADIENT_SCHARR; op++) {
            const layout *l = &layouts[i];
            const int w = l->width, h = l->height;
            const tc_border border = (tc_border)(i + 2 * op) % 5;
            tc_params p = params_for(l, border, 17.0f, 1);
            tc_plane in = plane(w, h), gx = plane(w, h), gy = plane(w, h), mag = plane(w, h);
            tc_plane fx = plane(w, h), fy = plane(w, h), hyp = plane(w, h), sep = plane(w, h);
            tc_plane sx = plane(w, h), sy = plane(w, h);
            double tol_g;
            float kx[3], ky[3];
            char err[256];
            for (size_t k = 0; k < (size_t)w * h; k++)
                in.px[k] = (float)(rng_next() % 25600) / 100.0f;
            const double tol_m = tc_gradient_tolerance(in.px, w, h, (tc_gradient_operator)op,
                                                       &p, &tol_g);
            assert_int_equal(tc_gradient(ctx, in.px, gx.px, gy.px, mag.px, w, h,
                                         (tc_gradient_operator)op, TC_GRADIENT_ONE_READ, &p),
                             TC_OK);
            assert_int_equal(tc_gradient(ctx, in.px, sx.px, sy.px, sep.px, w, h,
                                         (tc_gradient_operator)op, TC_GRADIENT_SEPARATE, &p),
                             TC_OK);
            for (int a = 0; a < 2; a++) {
                tc_params q = p;
                assert_int_equal(tc_named_filter(names[op][a], 3, 0.0, kx, ky, err, sizeof err),
                                 TC_OK);
                q.kx = kx;
                q.ky = ky;
                q.count_classes = 0;
                assert_int_equal(tc_filter(ctx, in.px, a ? fy.px : fx.px, w, h, &q), TC_OK);
            }
            const tc_roi roi = roi_of(&p, w, h);
            memcpy(hyp.px, in.px, (size_t)w * h * sizeof(float));
            for (int y = 0; y < roi.height; y++)
                for (int x = 0; x < roi.width; x++) {
                    const size_t k = (size_t)(roi.dst_top + y) * w + roi.dst_left + x;
                    hyp.px[k] = (float)sqrt((double)fx.px[k] * fx.px[k] +
                                            (double)fy.px[k] * fy.px[k]);
                }
            expect_close("gx against --filter x", "two filters", &fx, &gx, &roi, 2 * tol_g);
            expect_close("gy against --filter y", "two filters", &fy, &gy, &roi, 2 * tol_g);
            expect_close("magnitude against sqrt of the two filters", "two filters", &hyp, &mag,
                         &roi, 2 * tol_m);
            expect_close("one read against the two launches", "two filters", &sep, &mag, &roi,
                         2 * tol_m);
            expect_close("the two launches' gx against --filter x", "two filters", &fx, &sx,
                         &roi, 2 * tol_g);
            expect_close("the two launches' gy against --filter y", "two filters", &fy, &sy,
                         &roi, 2 * tol_g);
            tc_plane *all[] = {&in, &gx, &gy, &mag, &fx, &fy, &hyp, &sep, &sx, &sy};
            for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
                tc_plane_free(all[k]);
        }
}

/* ---- The API's rules ------------------------------------------------------------------- */

static void test_arguments_refused(void **state)
{
    (void)state;
    float in[16] = {0}, a[16], b[16], c[16];
    char err[256] = "";
    tc_params p;
    tc_params_init(&p);
    /* Each call refused (TC_EINVAL), with the words given in the context's error. */
    const struct {
        tc_context *c;
        const float *src;
        float *gx, *gy, *mag;
        tc_gradient_operator op;
        tc_gradient_method method;
        const char *says; /* NULL: no context to say it, or no words checked */
    } refused[] = {
        {NULL, in, NULL, NULL, a, TC_GRADIENT_SOBEL, TC_GRADIENT_ONE_READ, NULL},
        {ctx, NULL, NULL, NULL, a, TC_GRADIENT_SOBEL, TC_GRADIENT_ONE_READ, "src is NULL"},
        {ctx, in, NULL, NULL, NULL, TC_GRADIENT_SOBEL, TC_GRADIENT_ONE_READ, "magnitude is NULL"},
        {ctx, in, a, b, a, TC_GRADIENT_SOBEL, TC_GRADIENT_ONE_READ, "distinct"},
        {ctx, in, b, b, a, TC_GRADIENT_SOBEL, TC_GRADIENT_ONE_READ, NULL},
        {ctx, in, NULL, NULL, a, (tc_gradient_operator)2, TC_GRADIENT_ONE_READ, "operator 2"},
        {ctx, in, NULL, NULL, a, TC_GRADIENT_SOBEL, (tc_gradient_method)2, "method 2"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        assert_int_equal(tc_gradient(refused[i].c, refused[i].src, refused[i].gx, refused[i].gy,
                                     refused[i].mag, 4, 4, refused[i].op, refused[i].method, &p),
                         TC_EINVAL);
        if (refused[i].says && !strstr(tc_error(ctx), refused[i].says))
            fail_msg("case %zu: \"%s\" does not say \"%s\"", i, tc_error(ctx),
                     refused[i].says);
    }
    assert_int_equal(tc_gradient_timed(ctx, in, NULL, NULL, a, 4, 4, TC_GRADIENT_SOBEL,
                                       TC_GRADIENT_ONE_READ, &p, 0),
                     TC_EINVAL);
    assert_non_null(strstr(tc_error(ctx), "iterations 0"));
    assert_int_equal(tc_gradient(ctx, in, NULL, NULL, a, 4, 4, TC_GRADIENT_SOBEL,
                                 TC_GRADIENT_ONE_READ, NULL),
                     TC_EINVAL);
    p.src_left = 4;
    assert_int_equal(tc_gradient(ctx, in, NULL, NULL, a, 4, 4, TC_GRADIENT_SOBEL,
                                 TC_GRADIENT_ONE_READ, &p),
                     TC_EINVAL);
    assert_non_null(strstr(tc_error(ctx), "src_left"));
    assert_true(tc_gradient_tolerance(in, 4, 4, TC_GRADIENT_SOBEL, &p, NULL) < 0.0);
    assert_int_equal(tc_gradient_reference(in, NULL, NULL, a, 4, 4, TC_GRADIENT_SOBEL, &p, err,
                                           sizeof err),
                     TC_EINVAL);
    assert_non_null(strstr(err, "src_left"));
    p.src_left = 0;
    p.border = (tc_border)9;
    assert_int_equal(tc_gradient(ctx, in, NULL, NULL, a, 4, 4, TC_GRADIENT_SCHARR,
                                 TC_GRADIENT_SEPARATE, &p),
                     TC_EINVAL);
    assert_non_null(strstr(tc_error(ctx), "border 9"));
    /* Image storage is a request the gradient cannot honour (it reads a buffer): refused. */
    tc_params_init(&p);
    p.storage = TC_STORAGE_IMAGE;
    assert_int_equal(tc_gradient(ctx, in, NULL, NULL, a, 4, 4, TC_GRADIENT_SOBEL,
                                 TC_GRADIENT_SEPARATE, &p),
                     TC_EINVAL);
    assert_non_null(strstr(tc_error(ctx), "storage image"));
    /* The filter's fields are not looked at: a length the filters would refuse is ignored,
     * and so is the algorithm (bilinear too), as a mask is. */
    tc_params_init(&p);
    p.taps_x = 4;
    p.algorithm = TC_ONEPASS;
    assert_int_equal(tc_gradient(ctx, in, b, c, a, 4, 4, TC_GRADIENT_SOBEL,
                                 TC_GRADIENT_ONE_READ, &p),
                     TC_OK);
    assert_string_equal(tc_error(ctx), "");
    p.algorithm = TC_BILINEAR;
    p.mask = in;
    p.mask_width = p.mask_height = 3;
    assert_int_equal(tc_gradient(ctx, in, b, c, a, 4, 4, TC_GRADIENT_SCHARR,
                                 TC_GRADIENT_SEPARATE, &p),
                     TC_OK);
    assert_string_equal(tc_gradient_operator_name(TC_GRADIENT_SOBEL), "sobel");
    assert_string_equal(tc_gradient_operator_name(TC_GRADIENT_SCHARR), "scharr");
    assert_string_equal(tc_gradient_operator_name((tc_gradient_operator)7), "?");
    assert_string_equal(tc_gradient_method_name(TC_GRADIENT_ONE_READ), "one-read");
    assert_string_equal(tc_gradient_method_name(TC_GRADIENT_SEPARATE), "separate");
    assert_string_equal(tc_gradient_method_name((tc_gradient_method)-1), "?");
}

/* The tolerance's formula: 12 eps M G for the components, sqrt(2) (12 + 8) eps M G for the
 * magnitude, M the largest input or the constant border's value. */
static void test_tolerance(void **state)
{
    (void)state;
    float in[4] = {10.0f, -200.0f, 3.0f, 0.0f};
    double tol_g;
    tc_params p;
    tc_params_init(&p);
    double tol_m = tc_gradient_tolerance(in, 2, 2, TC_GRADIENT_SOBEL, &p, &tol_g);
    assert_true(fabs(tol_g - 12.0 * FLT_EPSILON * 200.0 * 8.0) < 1e-12);
    assert_true(fabs(tol_m - sqrt(2.0) * 20.0 * FLT_EPSILON * 200.0 * 8.0) < 1e-12);
    tol_m = tc_gradient_tolerance(in, 2, 2, TC_GRADIENT_SCHARR, &p, NULL);
    assert_true(fabs(tol_m - sqrt(2.0) * 20.0 * FLT_EPSILON * 200.0 * 32.0) < 1e-12);
    p.border = TC_BORDER_CONSTANT;
    p.border_value = -1000.0f;
    tol_m = tc_gradient_tolerance(in, 2, 2, TC_GRADIENT_SOBEL, &p, &tol_g);
    assert_true(fabs(tol_g - 12.0 * FLT_EPSILON * 1000.0 * 8.0) < 1e-12);
}

/* src may be one of the outputs: the same results as apart. */
static void test_in_place(void **state)
{
    (void)state;
    enum { W = 45, H = 37, N = W * H };
    static float in[N], copy[N], gx[N], gy[N], mag[N], out[N], x2[N], y2[N];
    tc_params p;
    tc_params_init(&p);
    p.src_left = 1;
    p.dst_top = 2;
    for (int i = 0; i < N; i++)
        in[i] = (float)(rng_next() % 25600) / 100.0f;
    assert_int_equal(tc_gradient(ctx, in, gx, gy, mag, W, H, TC_GRADIENT_SOBEL,
                                 TC_GRADIENT_ONE_READ, &p),
                     TC_OK);
    for (int method = 0; method < 2; method++) {
        memcpy(copy, in, sizeof copy);
        assert_int_equal(tc_gradient(ctx, copy, NULL, NULL, copy, W, H, TC_GRADIENT_SOBEL,
                                     (tc_gradient_method)method, &p),
                         TC_OK);
        assert_memory_equal(copy, mag, sizeof mag);
        memcpy(copy, in, sizeof copy);
        assert_int_equal(tc_gradient(ctx, copy, copy, y2, out, W, H, TC_GRADIENT_SOBEL,
                                     (tc_gradient_method)method, &p),
                         TC_OK);
        assert_memory_equal(copy, gx, sizeof gx);
        assert_memory_equal(y2, gy, sizeof gy);
        assert_memory_equal(out, mag, sizeof mag);
    }
    /* The reference in place too. */
    char err[256];
    assert_int_equal(tc_gradient_reference(in, x2, y2, out, W, H, TC_GRADIENT_SOBEL, &p, err,
                                           sizeof err),
                     TC_OK);
    memcpy(copy, in, sizeof copy);
    assert_int_equal(tc_gradient_reference(copy, NULL, copy, mag, W, H, TC_GRADIENT_SOBEL, &p,
                                           err, sizeof err),
                     TC_OK);
    assert_memory_equal(copy, y2, sizeof y2);
    assert_memory_equal(mag, out, sizeof out);
}

/* tc_gradient_timed: the figures of every run; a second call builds nothing. */
static void test_timed_and_cached(void **state)
{
    (void)state;
    enum { W = 70, H = 50, N = W * H };
    static float in[N], mag[N], again[N];
    tc_params p;
    tc_stats s;
    tc_params_init(&p);
    for (int i = 0; i < N; i++)
        in[i] = (float)(i % 251);
    for (int method = 0; method < 2; method++) {
        assert_int_equal(tc_gradient_timed(ctx, in, NULL, NULL, mag, W, H, TC_GRADIENT_SCHARR,
                                           (tc_gradient_method)method, &p, 3),
                         TC_OK);
        assert_int_equal(tc_last_stats(ctx, &s), TC_OK);
        assert_int_equal(s.iterations, 3);
        for (int i = 0; i < 3; i++)
            assert_true(s.kernel_ms[i] > 0.0);
        assert_true(s.kernel_ms_min <= s.kernel_ms_median);
        assert_true(s.upload_ms > 0.0 && s.download_ms > 0.0);
        assert_int_equal(s.roi_width, W);
        assert_int_equal(s.roi_height, H);
        const long built = s.programs_built;
        assert_int_equal(tc_gradient(ctx, in, NULL, NULL, again, W, H, TC_GRADIENT_SCHARR,
                                     (tc_gradient_method)method, &p),
                         TC_OK);
        assert_int_equal(tc_last_stats(ctx, &s), TC_OK);
        assert_int_equal(s.programs_built, built);
        assert_true(s.build_ms == 0.0);
        assert_memory_equal(mag, again, sizeof mag);
    }
    /* The one-read launch: 8 x 8 groups of 4 x 4 blocks, on the target's 4-column grid. */
    assert_int_equal(tc_gradient(ctx, in, NULL, NULL, again, W, H, TC_GRADIENT_SOBEL,
                                 TC_GRADIENT_ONE_READ, &p),
                     TC_OK);
    assert_int_equal(tc_last_stats(ctx, &s), TC_OK);
    assert_int_equal((int)s.local[0], 8);
    assert_int_equal((int)s.local[1], 8);
    assert_int_equal((int)s.global[0], 3 * 8); /* 70 columns: 3 tiles of 32 */
    assert_int_equal((int)s.global[1], 2 * 8); /* 50 rows: 2 */
    assert_int_equal(s.block[0], 4);
    assert_int_equal(s.block[1], 4);
}

/* ---- The command line's rules for --gradient (src/files/option_rules.c) --------------------- */

/* Parses the words after "tiledconv"; the one line of a refusal into msg. */
static int parse(tc_options *o, char *msg, size_t size, int argc, const char *const *words)
{
    char *argv[16];
    argv[0] = "tiledconv";
    for (int i = 0; i < argc; i++)
        argv[i + 1] = (char *)words[i];
    argv[argc + 1] = NULL;
    return test_cli_parse(argc + 1, argv, o, msg, size);
}

static void test_cli_rules(void **state)
{
    (void)state;
    static const struct {
        const char *words[4];
        int argc;
        const char *says; /* in the message; NULL: accepted */
    } cases[] = {
        {{"--gradient", "sobel"}, 2, NULL},
        {{"--gradient", "scharr", "-a", "all"}, 4, NULL},
        {{"--gradient", "sobel", "--border", "wrap"}, 4, NULL},
        {{"--gradient", "laplace"}, 2, "'laplace': unknown operator; use sobel or scharr"},
        {{"--gradient", "sobel", "--color"}, 3, "--gradient and --color"},
        {{"--gradient", "sobel", "-f", "3"}, 4, "drop -f"},
        {{"--gradient", "scharr", "-c", "1,2,1"}, 4, "[3 10 3]); drop -c"},
        {{"--gradient", "sobel", "--cy", "1,2,1"}, 4, "drop --cy"},
        {{"--filter", "box", "--gradient", "sobel"}, 4, "drop --filter"},
        {{"--gradient", "sobel", "-a", "onepass"}, 4, "--gradient and -a onepass"},
        {{"--gradient", "sobel", "--block", "4x8"}, 4, "--block 4x8"},
        {{"--gradient", "sobel", "--storage", "buffer"}, 4, NULL},
        {{"--gradient", "sobel", "--storage", "image"}, 4, "--gradient and --storage image"},
        {{"--gradient", "sobel", "-a", "bilinear"}, 4, "--gradient and -a bilinear"},
        {{"--gradient", "scharr", "--mask", "0,1,0;1,-4,1;0,1,0"}, 4, "drop --mask"},
        {{"--gradient", "sobel", "-f", "5x3"}, 4, "drop -f"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tc_options o;
        char msg[512] = "";
        const int rc = parse(&o, msg, sizeof msg, cases[i].argc, cases[i].words);
        if (!cases[i].says) {
            assert_int_equal(rc, 0);
            assert_int_equal(o.gradient, strcmp(cases[i].words[1], "sobel") == 0 ? 1 : 2);
            /* -a all compares the two methods; it runs no filter algorithm. */
            assert_int_equal(o.gradient_compare,
                             cases[i].argc == 4 && !strcmp(cases[i].words[3], "all"));
            assert_int_equal(o.all_algorithms, 0);
        } else {
            assert_int_equal(rc, 2);
            if (!strstr(msg, cases[i].says))
                fail_msg("case %zu: '%s' does not say '%s'", i, msg, cases[i].says);
            assert_non_null(strchr(msg, '\n')); /* one line */
            assert_null(strchr(strchr(msg, '\n') + 1, '\n'));
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_by_hand),
        cmocka_unit_test(test_roi_only),
        cmocka_unit_test(test_image_sizes),
        cmocka_unit_test(test_class_boundaries),
        cmocka_unit_test(test_alignment_classes),
        cmocka_unit_test(test_borders_and_operators),
        cmocka_unit_test(test_random_rois),
        cmocka_unit_test(test_all_classes_occurred),
        cmocka_unit_test(test_equals_two_filters),
        cmocka_unit_test(test_arguments_refused),
        cmocka_unit_test(test_tolerance),
        cmocka_unit_test(test_in_place),
        cmocka_unit_test(test_timed_and_cached),
        cmocka_unit_test(test_cli_rules),
    };
    return cmocka_run_group_tests_name("gradient", tests, context_setup, teardown);
}
