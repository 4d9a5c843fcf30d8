/*
 * test_storage.c - image objects beside buffers (--storage image, src/storage.c) and the
 * bilinear-tap trick (src/bilinear.c):
 *   - the pairing of taps (bilinear.h) on hand-made filters: positions, weights, which tap is
 *     alone, which filters are refused, and that every pair gives back its two taps;
 *   - the tiled and one-pass kernels reading an image2d_t: bit for bit the buffer path's result
 *     and within the tolerance of the CPU reference, on ROIs on the tiled kernel's class
 *     boundaries, for every border rule and lengths 3 to 15, with the class counts predicted;
 *     and the longer filters' and the masks' kernels (tiled_long_conv, a length per axis, the
 *     masks' kernels) likewise;
 *   - bilinear against the reference: within tc_tolerance's bound and, on devices that
 *     interpolate in float (PoCL, oclgrind), within the float bound plus the coordinates'
 *     rounding alone; every border rule, ROIs smaller than the filter, filters that need the
 *     other pairing, in place, a length per axis up to 63, a rank-1 mask's factors;
 *   - the refusals: taps that do not pair, a mask that is not rank 1 with bilinear, twopass with
 *     images, a device without image support (the tuning's no-images), an image wider than
 *     the device's 2-D images.
 * Runs on the default OpenCL device (PoCL's CPU device in CI) through the public API.
 */
#include "test_util.h"
#include "test_context.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bilinear.h"
#include "tiledconv.h"


/* A plane of w x h floats, not yet written (the test stops where there is no memory). */
static float *new_plane(int w, int h)
{
    float *p = malloc((size_t)w * h * sizeof *p);
    assert_non_null(p);
    return p;
}

/* 0..255 with a fractional part, so that a misplaced tap or a wrong fraction shows. */
static float *random_plane(int w, int h)
{
    float *p = new_plane(w, h);
    for (size_t i = 0; i < (size_t)w * h; i++)
        p[i] = (float)(rng_next() % 25600) / 100.0f;
    return p;
}

static int setup(void **state)
{
    test_untune(); /* the device's own answer */
    return context_setup(state);
}

/* ---- Pairing the taps ------------------------------------------------------------------ */

/* Each sample gives back its taps: weight (1 - f) on the first and f on the second. */
static void assert_pairs_reproduce(const float *k, int taps, const tc_bilinear_axis *a)
{
    const int r = (taps - 1) / 2;
    double got[66] = {0};
    assert_int_equal(a->fetches, taps / 2 + 1);
    for (int s = 0; s < a->fetches; s++) {
        const float *q = a->sample[s];
        const int t = (int)q[0] + r;
        assert_true(t >= 0 && t < taps);
        if (s == a->lone) {
            assert_true(q[1] == 0.5f);
            got[t] += q[2];
            continue;
        }
        const double f = (double)q[1] - 0.5;
        assert_true(f >= 0.0 && f <= 1.0);
        got[t] += q[2] * (1.0 - f);
        got[t + 1] += q[2] * f;
    }
    /* 0.5 + f is a float in 0.5 .. 1.5: f is known to 2^-24, so a tap is known to 2^-24 of
     * its pair's weight (beside its own rounding). */
    double pair_weight[66] = {0};
    for (int s = 0; s < a->fetches; s++)
        for (int j = 0; j < 2; j++)
            pair_weight[(int)a->sample[s][0] + r + j] = fabs(a->sample[s][2]);
    for (int i = 0; i < taps; i++)
        if (fabs(got[i] - k[i]) > 4 * FLT_EPSILON * fabs(k[i]) + ldexp(pair_weight[i], -23))
            fail_msg("%d taps: tap %d: %.9g from the samples, %.9g given", taps, i, got[i],
                     (double)k[i]);
}

static void test_pair_binomial3(void **state)
{
    (void)state;
    const float k[3] = {0.25f, 0.5f, 0.25f};
    tc_bilinear_axis a;
    assert_int_equal(tc_bilinear_pair(k, 3, &a, NULL), 0);
    assert_int_equal(a.fetches, 2);
    assert_int_equal(a.lone, 1); /* the last tap alone */
    /* taps 0 and 1 (offsets -1 and 0): weight 0.75 at -1 + 0.5 / 0.75 = -1/3 */
    assert_true(a.sample[0][0] == -1.0f);
    assert_true(fabs(a.sample[0][1] - (0.5 + 2.0 / 3.0)) < 1e-7);
    assert_true(a.sample[0][2] == 0.75f);
    assert_true(a.sample[1][0] == 1.0f && a.sample[1][2] == 0.25f);
    assert_pairs_reproduce(k, 3, &a);
}

static void test_pair_binomial5_and_box(void **state)
{
    (void)state;
    const float b5[5] = {1 / 16.0f, 4 / 16.0f, 6 / 16.0f, 4 / 16.0f, 1 / 16.0f};
    const float box[7] = {1, 1, 1, 1, 1, 1, 1};
    tc_bilinear_axis a;
    assert_int_equal(tc_bilinear_pair(b5, 5, &a, NULL), 0);
    assert_int_equal(a.fetches, 3);
    /* (1, 4) at -2 + 4/5, (6, 4) at 0 + 4/10, 1 alone at +2 */
    assert_true(fabs(a.sample[0][1] - 1.3) < 1e-7 && a.sample[0][2] == 5 / 16.0f);
    assert_true(fabs(a.sample[1][1] - 0.9) < 1e-7 && a.sample[1][2] == 10 / 16.0f);
    assert_pairs_reproduce(b5, 5, &a);
    assert_int_equal(tc_bilinear_pair(box, 7, &a, NULL), 0);
    for (int s = 0; s < 3; s++) /* a box's pairs sample halfway */
        assert_true(a.sample[s][1] == 1.0f && a.sample[s][2] == 2.0f);
    assert_pairs_reproduce(box, 7, &a);
}

/* Every odd length: taps / 2 + 1 samples, each pair reproducing its taps. */
static void test_pair_every_length(void **state)
{
    (void)state;
    float k[TC_MAX_TAPS];
    tc_bilinear_axis a;
    for (int taps = 3; taps <= TC_MAX_TAPS; taps += 2) {
        for (int i = 0; i < taps; i++)
            k[i] = (float)(rng_next() % 1000) / 100.0f; /* positive, zeros included */
        assert_int_equal(tc_bilinear_pair(k, taps, &a, NULL), 0);
        assert_int_equal(a.lone, a.fetches - 1);
        assert_pairs_reproduce(k, taps, &a);
        for (int i = 0; i < taps; i++)
            k[i] = -k[i]; /* all negative pairs too */
        assert_int_equal(tc_bilinear_pair(k, taps, &a, NULL), 0);
        assert_pairs_reproduce(k, taps, &a);
    }
}

/* A zero pairs with either sign (Sobel's derivative); the first tap alone when the first
 * pairing mixes signs; refused when both do, naming the first pair. */
static void test_pair_signs(void **state)
{
    (void)state;
    const float deriv[3] = {-1, 0, 1};
    const float other[3] = {2, -1, -3};
    const float laplace[3] = {1, -2, 1};
    const float sharpen[5] = {-1, -1, 5, -1, -1};
    tc_bilinear_axis a;
    int bad = -1;
    assert_int_equal(tc_bilinear_pair(deriv, 3, &a, NULL), 0);
    assert_int_equal(a.lone, 1);
    assert_true(a.sample[0][1] == 0.5f && a.sample[0][2] == -1.0f); /* all weight on -1 */
    assert_pairs_reproduce(deriv, 3, &a);
    assert_int_equal(tc_bilinear_pair(other, 3, &a, NULL), 0);
    assert_int_equal(a.lone, 0); /* 2 alone, then (-1, -3) */
    assert_pairs_reproduce(other, 3, &a);
    assert_int_equal(tc_bilinear_pair(laplace, 3, &a, &bad), -1);
    assert_int_equal(bad, 0);
    assert_int_equal(tc_bilinear_pair(sharpen, 5, &a, &bad), -1);
    assert_int_equal(bad, 2); /* (-1, -1) pairs, (5, -1) does not */
}

static void test_bound(void **state)
{
    (void)state;
    /* 2 (2^-8 + 1000 2^-24) x 1 x 1 x 255 */
    const double expect = 2.0 * (1.0 / 256.0 + 1000.0 / 16777216.0) * 255.0;
    assert_true(fabs(tc_bilinear_bound(1.0, 1.0, 255.0, 1000.0) - expect) < 1e-12);
    assert_true(tc_bilinear_bound(2.0, 3.0, 0.0, 1000.0) == 0.0); /* a flat ROI: exact */
}

/* ---- The device: image storage -------------------------------------------------------- */

typedef struct {
    int w, h, sl, st, tl, tt, rw, rh; /* image, ROIs (0 size: the largest that fits) */
    const char *label;
} layout;

/* The tiled kernel's class boundaries (radius 1 and 2, 32 x 32 tiles on the target's 4-column
 * grid), ROIs touching every edge, smaller than a tile, of one pixel, and unaligned. */
static const layout layouts[] = {
    {99, 99, 1, 1, 1, 1, 66, 66, "class boundary, r = 1"},
    {99, 99, 1, 1, 0, 0, 65, 65, "one less"},
    {99, 99, 2, 2, 2, 2, 68, 68, "class boundary, r = 2"},
    {71, 45, 3, 3, 2, 2, 0, 0, "the article's offsets"},
    {71, 45, 31, 12, 0, 0, 0, 0, "source bottom right, target top left"},
    {64, 64, 0, 0, 0, 0, 0, 0, "whole image, whole tiles"},
    {65, 33, 0, 0, 0, 0, 0, 0, "whole image, a column past"},
    {45, 33, 44, 32, 44, 32, 1, 1, "one pixel"},
    {20, 20, 3, 4, 9, 2, 3, 2, "smaller than the filter"},
    {110, 80, 5, 7, 10, 1, 96, 70, "unaligned, every class"},
};
#define N_LAYOUTS (sizeof layouts / sizeof layouts[0])

static tc_params params_for(const layout *l, int taps, const float *kx, const float *ky,
                            tc_border border, tc_algorithm alg, tc_storage storage)
{
    tc_params p;
    tc_params_init(&p);
    p.taps_x = p.taps_y = taps;
    p.kx = kx;
    p.ky = ky;
    test_set_roi(&p, l->sl, l->st, l->tl, l->tt, l->rw, l->rh);
    p.border = border;
    p.border_value = 17.5f;
    p.algorithm = alg;
    p.storage = storage;
    p.count_classes = 1;
    return p;
}

/* Compares out with the reference: inside the tROI within tol, outside bit for bit; returns
 * the largest difference inside. */
static double compare(const float *in, const float *out, const layout *l, const tc_params *p,
                      double tol, const char *what)
{
    const size_t n = (size_t)l->w * l->h;
    float *ref = malloc(n * sizeof *ref);
    char err[256];
    double worst = 0.0;
    assert_non_null(ref);
    assert_int_equal(tc_reference(in, ref, l->w, l->h, p, err, sizeof err), TC_OK);
    const int rw = l->rw ? l->rw : l->w - (l->sl > l->tl ? l->sl : l->tl);
    const int rh = l->rh ? l->rh : l->h - (l->st > l->tt ? l->st : l->tt);
    for (int y = 0; y < l->h; y++)
        for (int x = 0; x < l->w; x++) {
            const size_t i = (size_t)y * l->w + x;
            const int inside = x >= l->tl && x < l->tl + rw && y >= l->tt && y < l->tt + rh;
            const double d = fabs((double)ref[i] - (double)out[i]);
            if (inside && d > worst)
                worst = d;
            if (inside ? !(d <= tol) : memcmp(&ref[i], &out[i], sizeof ref[i]) != 0)
                fail_msg("%s, %s: pixel (%d, %d): expected %.6f, got %.6f (tolerance %.3g)",
                         what, l->label, x, y, ref[i], out[i], tol);
        }
    free(ref);
    return worst;
}

/* tiled and onepass from an image against the reference, each layout with one border rule
 * and one length (every rule and 3, 5, 7, 15 taps over the layouts; each distinct set of
 * build options costs PoCL a build of about a second, so the cases share them where they
 * can: onepass runs on the program of a tiled layout with sL = tL mod 4), with the kernel's
 * class counts; and on every third layout the buffer path's result, bit for bit (the same
 * arithmetic, only the loads differ). */
static void test_image_storage_layouts(void **state)
{
    static const tc_border borders[] = {TC_BORDER_REPLICATE, TC_BORDER_CONSTANT,
                                        TC_BORDER_REFLECT101, TC_BORDER_REFLECT, TC_BORDER_WRAP};
    static const int lengths[] = {3, 5, 7, 15};
    (void)state;
    int runs = 0;
    for (size_t li = 0; li < N_LAYOUTS; li++) {
        const layout *l = &layouts[li];
        const int taps = lengths[li % 4];
        const tc_border border = borders[li % 5];
        float *in = random_plane(l->w, l->h);
        float *buf = new_plane(l->w, l->h);
        float *img = new_plane(l->w, l->h);
        float kx[TC_MAX_TAPS], ky[TC_MAX_TAPS];
        for (int i = 0; i < taps; i++) { /* asymmetric, signs mixed: any filter */
            kx[i] = (float)(rng_next() % 200) / 100.0f - 1.0f;
            ky[i] = (float)(rng_next() % 200) / 100.0f - 1.0f;
        }
        for (int alg = TC_TILED; alg <= TC_ONEPASS; alg += TC_ONEPASS - TC_TILED) {
            tc_params p = params_for(l, taps, kx, ky, border, (tc_algorithm)alg,
                                     TC_STORAGE_IMAGE);
            char what[96];
            snprintf(what, sizeof what, "%s from an image, %d taps, %s",
                     tc_algorithm_name(p.algorithm), taps, tc_border_name(p.border));
            if (tc_filter(ctx, in, img, l->w, l->h, &p) != TC_OK)
                fail_msg("%s: %s", what, tc_error(ctx));
            compare(in, img, l, &p, tc_tolerance(in, l->w, l->h, &p), what);
            tc_stats s;
            assert_int_equal(tc_last_stats(ctx, &s), TC_OK);
            assert_int_equal(s.algorithm, p.algorithm);
            if (p.algorithm == TC_TILED) { /* the kernel counted what the host predicts */
                long classes[4];
                tc_tile tiles[64];
                test_tile_classes(&p, l->w, l->h, tiles, 64, classes);
                assert_true(s.classes_counted);
                for (int c = 0; c < 4; c++)
                    assert_int_equal(s.classes[c], classes[c]);
            }
            if (li % 3 == 0) {
                p.storage = TC_STORAGE_BUFFER;
                if (tc_filter(ctx, in, buf, l->w, l->h, &p) != TC_OK)
                    fail_msg("%s (buffer): %s", what, tc_error(ctx));
                if (memcmp(buf, img, (size_t)l->w * l->h * sizeof *buf) != 0)
                    fail_msg("%s, %s: differs from the buffer path", what, l->label);
            }
            runs++;
        }
        free(img);
        free(buf);
        free(in);
    }
    assert_int_equal(runs, (int)N_LAYOUTS * 2);
}

/* The tiled kernel's other paths from an image: blocks of 8 x 4 and 4 x 8, scalar I/O (the
 * last also against the buffer path, bit for bit). */
static void test_image_storage_tiled_variants(void **state)
{
    (void)state;
    const layout l = {96, 80, 4, 3, 1, 5, 88, 70, "blocks"};
    float *in = random_plane(l.w, l.h);
    float *buf = new_plane(l.w, l.h);
    float *img = new_plane(l.w, l.h);
    static const int blocks[3][3] = {{8, 4, 1}, {4, 8, 1}, {4, 4, 0}}; /* w, h, float4 I/O */
    for (int v = 0; v < 3; v++) {
        tc_params p = params_for(&l, 5, NULL, NULL, TC_BORDER_REFLECT101, TC_TILED,
                                 TC_STORAGE_IMAGE);
        p.block_width = blocks[v][0];
        p.block_height = blocks[v][1];
        p.vector_io = blocks[v][2];
        assert_int_equal(tc_filter(ctx, in, img, l.w, l.h, &p), TC_OK);
        compare(in, img, &l, &p, tc_tolerance(in, l.w, l.h, &p), "tiled variant from an image");
        if (v == 2) {
            p.storage = TC_STORAGE_BUFFER;
            assert_int_equal(tc_filter(ctx, in, buf, l.w, l.h, &p), TC_OK);
            assert_memory_equal(buf, img, (size_t)l.w * l.h * sizeof *buf);
        }
    }
    free(img);
    free(buf);
    free(in);
}

/* The program cache: image storage is a program of its own, built once. */
static void test_image_storage_programs(void **state)
{
    (void)state;
    const layout l = {40, 30, 0, 0, 0, 0, 0, 0, "cache"};
    float *in = random_plane(l.w, l.h);
    float *out = new_plane(l.w, l.h);
    tc_stats s;
    tc_params p = params_for(&l, 9, NULL, NULL, TC_BORDER_WRAP, TC_ONEPASS, TC_STORAGE_IMAGE);
    p.count_classes = 0;
    assert_int_equal(tc_filter(ctx, in, out, l.w, l.h, &p), TC_OK);
    assert_int_equal(tc_last_stats(ctx, &s), TC_OK);
    const long built = s.programs_built;
    assert_int_equal(tc_filter(ctx, in, out, l.w, l.h, &p), TC_OK); /* the same: no build */
    assert_int_equal(tc_last_stats(ctx, &s), TC_OK);
    assert_int_equal(s.programs_built, built);
    assert_true(s.build_ms == 0.0);
    p.storage = TC_STORAGE_BUFFER; /* the buffer program is another */
    assert_int_equal(tc_filter(ctx, in, out, l.w, l.h, &p), TC_OK);
    assert_int_equal(tc_last_stats(ctx, &s), TC_OK);
    assert_int_equal(s.programs_built, built + 1);
    free(out);
    free(in);
}

/* The long-filter and mask kernels from an image (Common.cl's SRC_T): tiled_long_conv (17 and
 * 31 taps, 15 x 1, 32 x 32 tiles so that class 1 occurs), tiled_conv with a length per axis
 * (9 x 3, 1 x 9), tiled_mask_conv and one_pass_mask_conv (5 x 3, 15 x 15), one_pass_conv at
 * 31 x 7: bit for bit the buffer path's result and within the reference's tolerance. */
static void test_image_storage_long_and_mask_kernels(void **state)
{
    static const struct {
        int taps_x, taps_y, mask_w, mask_h;
        tc_algorithm alg;
        tc_border border;
        int small_tiles; /* long-tile-h=32: tiled_long_conv's class 1 on 150 x 150 */
    } cases[] = {
        {17, 17, 0, 0, TC_TILED, TC_BORDER_REFLECT101, 0},
        {31, 31, 0, 0, TC_TILED, TC_BORDER_WRAP, 1},
        {15, 1, 0, 0, TC_TILED, TC_BORDER_CONSTANT, 0},
        {9, 3, 0, 0, TC_TILED, TC_BORDER_REFLECT, 0},
        {1, 9, 0, 0, TC_TILED, TC_BORDER_REPLICATE, 0},
        {31, 7, 0, 0, TC_ONEPASS, TC_BORDER_REFLECT101, 0},
        {0, 0, 5, 3, TC_TILED, TC_BORDER_CONSTANT, 0},
        {0, 0, 5, 3, TC_ONEPASS, TC_BORDER_WRAP, 0},
        {0, 0, 15, 15, TC_TILED, TC_BORDER_REFLECT, 0},
    };
    (void)state;
    const layout l = {150, 150, 3, 2, 6, 1, 0, 0, "long-filter and mask kernels"};
    float *in = random_plane(l.w, l.h);
    float *buf = new_plane(l.w, l.h);
    float *img = new_plane(l.w, l.h);
    float kx[TC_MAX_TAPS], ky[TC_MAX_TAPS], mask[TC_MAX_MASK_SIZE * TC_MAX_MASK_SIZE];
    for (int i = 0; i < TC_MAX_TAPS; i++) { /* asymmetric, signs mixed */
        kx[i] = (float)(rng_next() % 200) / 400.0f - 0.25f;
        ky[i] = (float)(rng_next() % 200) / 400.0f - 0.25f;
    }
    for (int i = 0; i < TC_MAX_MASK_SIZE * TC_MAX_MASK_SIZE; i++)
        mask[i] = (float)(rng_next() % 200) / 1000.0f - 0.1f;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tc_params p = params_for(&l, cases[c].taps_x, kx, ky, cases[c].border, cases[c].alg,
                                 TC_STORAGE_IMAGE);
        char what[96];
        p.taps_y = cases[c].taps_y;
        if (cases[c].mask_w) {
            p.mask = mask;
            p.mask_width = cases[c].mask_w;
            p.mask_height = cases[c].mask_h;
            snprintf(what, sizeof what, "%s from an image, %d x %d mask",
                     tc_algorithm_name(p.algorithm), p.mask_width, p.mask_height);
        } else {
            snprintf(what, sizeof what, "%s from an image, %d x %d taps",
                     tc_algorithm_name(p.algorithm), p.taps_x, p.taps_y);
        }
        if (cases[c].small_tiles)
            test_tune("long-tile-h=32");
        if (tc_filter(ctx, in, img, l.w, l.h, &p) != TC_OK)
            fail_msg("%s: %s", what, tc_error(ctx));
        compare(in, img, &l, &p, tc_tolerance(in, l.w, l.h, &p), what);
        if (cases[c].small_tiles) {
            tc_stats s;
            assert_int_equal(tc_last_stats(ctx, &s), TC_OK);
            assert_true(s.classes_counted);
            if (s.classes[0] == 0)
                fail_msg("%s: no group of class 1", what);
        }
        p.storage = TC_STORAGE_BUFFER;
        if (tc_filter(ctx, in, buf, l.w, l.h, &p) != TC_OK)
            fail_msg("%s (buffer): %s", what, tc_error(ctx));
        test_untune();
        if (memcmp(buf, img, (size_t)l.w * l.h * sizeof *buf) != 0)
            fail_msg("%s: differs from the buffer path", what);
    }
    free(img);
    free(buf);
    free(in);
}

/* ---- The device: bilinear ------------------------------------------------------------- */

/* The float bound plus the coordinates' rounding: what a device that interpolates in float
 * (PoCL, oclgrind) must stay within, far inside tc_tolerance's 8-bit fraction. */
static double float_bound(const float *in, const layout *l, const tc_params *p)
{
    tc_params exact = *p;
    exact.algorithm = TC_TILED;
    double lo = 1e300, hi = -1e300, skx = 0.0, sky = 0.0;
    const int rw = l->rw ? l->rw : l->w - (l->sl > l->tl ? l->sl : l->tl);
    const int rh = l->rh ? l->rh : l->h - (l->st > l->tt ? l->st : l->tt);
    for (int y = l->st; y < l->st + rh; y++)
        for (int x = l->sl; x < l->sl + rw; x++) {
            const double v = in[(size_t)y * l->w + x];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
    for (int i = 0; i < p->taps_x; i++)
        skx += fabs(p->kx[i]);
    for (int i = 0; i < p->taps_y; i++)
        sky += fabs(p->ky[i]);
    const double coord = (l->w > l->h ? l->w : l->h) + 2.0;
    return tc_tolerance(in, l->w, l->h, &exact) +
           2.0 * coord * ldexp(1.0, -24) * skx * sky * (hi - lo);
}

static int device_is_cpu(void)
{
    tc_device_info info;
    assert_int_equal(tc_context_device(ctx, &info), TC_OK);
    return info.is_cpu;
}

/* bilinear with taps_x along rows and taps_y along columns against the reference. */
static void check_bilinear_xy(const layout *l, int taps_x, int taps_y, const float *kx,
                              const float *ky, tc_border border, int in_place)
{
    float *in = random_plane(l->w, l->h);
    float *out = new_plane(l->w, l->h);
    char what[128];
    tc_stats s;
    tc_params p = params_for(l, taps_x, kx, ky, border, TC_BILINEAR, TC_STORAGE_BUFFER);
    p.taps_y = taps_y;
    snprintf(what, sizeof what, "bilinear, %d x %d taps, %s%s", taps_x, taps_y,
             tc_border_name(border), in_place ? ", in place" : "");
    if (in_place)
        memcpy(out, in, (size_t)l->w * l->h * sizeof *out);
    if (tc_filter(ctx, in_place ? out : in, out, l->w, l->h, &p) != TC_OK)
        fail_msg("%s: %s", what, tc_error(ctx));
    const double tol = tc_tolerance(in, l->w, l->h, &p);
    const double worst = compare(in, out, l, &p, tol, what);
    /* PoCL and oclgrind interpolate in float: near-exact, so a wrong fraction or offset
     * (errors of a tenth of a gray level and more) fails here even where it would pass the
     * 8-bit bound. */
    if (device_is_cpu() && worst > float_bound(in, l, &p))
        fail_msg("%s, %s: largest difference %.3g, beyond the float bound %.3g", what,
                 l->label, worst, float_bound(in, l, &p));
    assert_int_equal(tc_last_stats(ctx, &s), TC_OK);
    assert_int_equal(s.algorithm, TC_BILINEAR);
    assert_int_equal(s.passes, 2);
    assert_non_null(s.pass_ms[0]);
    assert_non_null(s.pass_ms[1]);
    free(out);
    free(in);
}

static void check_bilinear(const layout *l, int taps, const float *kx, const float *ky,
                           tc_border border, int in_place)
{
    check_bilinear_xy(l, taps, taps, kx, ky, border, in_place);
}

/* Every layout once, the border rules taking turns, with binomials, Gaussians and a box of
 * 3, 5, 9 and 15 taps (each distinct length and rule is a build). */
static void test_bilinear_layouts(void **state)
{
    static const tc_border borders[] = {TC_BORDER_REPLICATE, TC_BORDER_CONSTANT,
                                        TC_BORDER_REFLECT101, TC_BORDER_REFLECT, TC_BORDER_WRAP};
    static const int lengths[] = {3, 5, 9, 15};
    (void)state;
    for (size_t li = 0; li < N_LAYOUTS; li++) {
        const int taps = lengths[li % 4];
        float kx[TC_MAX_TAPS], ky[TC_MAX_TAPS];
        char err[256];
        assert_int_equal(tc_named_filter(li % 2 ? "gauss" : "binomial", taps, 0.0, kx, ky, err,
                                         sizeof err), TC_OK);
        if (li % 3 == 2) /* a box along columns */
            for (int i = 0; i < taps; i++)
                ky[i] = 1.0f / taps;
        check_bilinear(&layouts[li], taps, kx, ky, borders[li % 5], 0);
    }
}

/* Filters that are not blurs: a derivative with zeros (Sobel), random weights of one sign
 * per axis, and along rows a filter that needs the other pairing (its first tap alone). */
static void test_bilinear_other_filters(void **state)
{
    (void)state;
    const layout l = {70, 45, 3, 2, 1, 4, 0, 0, "other filters"};
    float kx[TC_MAX_TAPS], ky[TC_MAX_TAPS];
    char err[256];
    assert_int_equal(tc_named_filter("sobel-x", 5, 0.0, kx, ky, err, sizeof err), TC_OK);
    check_bilinear(&l, 5, kx, ky, TC_BORDER_REFLECT101, 0);
    for (int i = 0; i < 9; i++) {
        kx[i] = (float)(rng_next() % 1000) / 700.0f;
        ky[i] = -(float)(rng_next() % 1000) / 900.0f;
    }
    check_bilinear(&l, 9, kx, ky, TC_BORDER_CONSTANT, 0);
    const float first_alone[5] = {0.5f, -0.25f, -0.125f, 0.0f, 0.75f};
    tc_bilinear_axis a;
    assert_int_equal(tc_bilinear_pair(first_alone, 5, &a, NULL), 0);
    assert_int_equal(a.lone, 0);
    assert_int_equal(tc_named_filter("binomial", 5, 0.0, kx, ky, err, sizeof err), TC_OK);
    check_bilinear(&l, 5, first_alone, ky, TC_BORDER_WRAP, 0);
    assert_int_equal(tc_named_filter("binomial", 7, 0.0, kx, ky, err, sizeof err), TC_OK);
    check_bilinear(&l, 7, kx, ky, TC_BORDER_REPLICATE, 1); /* in place */
}

/* A length per axis: 9 x 3, an axis of 1 tap (its one sample the lone tap, read with the
 * nearest sampler) either way, lengths beyond 15 (31 x 5, 63 x 3), and a rank-1 mask run as its
 * factors. */
static void test_bilinear_per_axis(void **state)
{
    (void)state;
    const layout l = {90, 70, 3, 2, 1, 4, 0, 0, "per axis"};
    float kx[TC_MAX_TAPS], ky[TC_MAX_TAPS], unused[TC_MAX_TAPS];
    char err[256];
    static const int lengths[][2] = {{9, 3}, {1, 15}, {15, 1}, {31, 5}, {63, 3}};
    static const tc_border borders[] = {TC_BORDER_REFLECT101, TC_BORDER_CONSTANT,
                                        TC_BORDER_WRAP, TC_BORDER_REPLICATE, TC_BORDER_REFLECT};
    for (int c = 0; c < 5; c++) {
        assert_int_equal(tc_named_filter("gauss", lengths[c][0] > 1 ? lengths[c][0] : 3, 0.0,
                                         kx, unused, err, sizeof err), TC_OK);
        assert_int_equal(tc_named_filter("binomial", lengths[c][1] > 1 ? lengths[c][1] : 3, 0.0,
                                         unused, ky, err, sizeof err), TC_OK);
        if (lengths[c][0] == 1)
            kx[0] = 1.5f;
        if (lengths[c][1] == 1)
            ky[0] = 0.75f;
        check_bilinear_xy(&l, lengths[c][0], lengths[c][1], kx, ky, borders[c], 0);
    }
    /* A 3 x 5 binomial mask, rank 1: bilinear runs its factors, checked against its weights. */
    static const float binomial_mask[15] = {1, 2, 1, 4, 8, 4, 6, 12, 6, 4, 8, 4, 1, 2, 1};
    float *in = random_plane(l.w, l.h);
    float *out = new_plane(l.w, l.h);
    float m[15];
    for (int i = 0; i < 15; i++)
        m[i] = binomial_mask[i] / 64.0f;
    tc_params p = params_for(&l, 3, NULL, NULL, TC_BORDER_REFLECT, TC_BILINEAR,
                             TC_STORAGE_BUFFER);
    p.mask = m;
    p.mask_width = 3;
    p.mask_height = 5;
    if (tc_filter(ctx, in, out, l.w, l.h, &p) != TC_OK)
        fail_msg("bilinear, rank-1 mask: %s", tc_error(ctx));
    compare(in, out, &l, &p, tc_tolerance(in, l.w, l.h, &p), "bilinear, rank-1 3 x 5 mask");
    free(out);
    free(in);
}

/* A smaller image after a larger one full of NaN: the images are made to fit each run, so the
 * weight-0 texel of a linear sample's footprint past the last column or row is this run's edge
 * (clamped), never the larger run's NaN (0 x NaN is NaN). */
static void test_bilinear_after_larger_image(void **state)
{
    (void)state;
    const layout big = {72, 56, 0, 0, 0, 0, 0, 0, "larger, NaN"};
    const layout small = {40, 30, 0, 0, 0, 0, 0, 0, "smaller after NaN"};
    float *nan_plane = new_plane(big.w, big.h);
    float *out = new_plane(big.w, big.h);
    for (int i = 0; i < big.w * big.h; i++)
        nan_plane[i] = NAN;
    tc_params p = params_for(&big, 5, NULL, NULL, TC_BORDER_REPLICATE, TC_BILINEAR,
                             TC_STORAGE_BUFFER);
    assert_int_equal(tc_filter(ctx, nan_plane, out, big.w, big.h, &p), TC_OK);
    float kx[5], ky[5];
    char err[256];
    assert_int_equal(tc_named_filter("gauss", 5, 0.0, kx, ky, err, sizeof err), TC_OK);
    check_bilinear(&small, 5, kx, ky, TC_BORDER_REPLICATE, 0);
    free(out);
    free(nan_plane);
}

/* NaN in every pixel outside the sROI: nothing of it reaches the result, not even through the
 * weight-0 row of a linear sample's footprint below the sROI's last row. */
static void test_bilinear_reads_only_the_sroi(void **state)
{
    (void)state;
    const layout l = {40, 30, 5, 4, 2, 1, 30, 20, "NaN around the sROI"};
    float *in = random_plane(l.w, l.h);
    float *out = new_plane(l.w, l.h);
    float *ref = new_plane(l.w, l.h);
    float kx[7], ky[7];
    char err[256];
    for (int y = 0; y < l.h; y++)
        for (int x = 0; x < l.w; x++)
            if (x < l.sl || x >= l.sl + l.rw || y < l.st || y >= l.st + l.rh)
                in[y * l.w + x] = NAN;
    assert_int_equal(tc_named_filter("gauss", 7, 0.0, kx, ky, err, sizeof err), TC_OK);
    tc_params p = params_for(&l, 7, kx, ky, TC_BORDER_REFLECT, TC_BILINEAR, TC_STORAGE_BUFFER);
    assert_int_equal(tc_filter(ctx, in, out, l.w, l.h, &p), TC_OK);
    assert_int_equal(tc_reference(in, ref, l.w, l.h, &p, err, sizeof err), TC_OK);
    for (int y = l.tt; y < l.tt + l.rh; y++)
        for (int x = l.tl; x < l.tl + l.rw; x++)
            if (!(fabsf(out[y * l.w + x] - ref[y * l.w + x]) < 2.0f))
                fail_msg("pixel (%d, %d): %g, expected %g", x, y, out[y * l.w + x],
                         ref[y * l.w + x]);
    free(ref);
    free(out);
    free(in);
}

/* -e's planted fault for bilinear must pass its tolerance: tc_tolerance is larger than the
 * float bound by the 8-bit fraction's share, and that share is what docs/kernels.md derives. */
static void test_bilinear_tolerance(void **state)
{
    (void)state;
    const layout l = {64, 48, 0, 0, 0, 0, 0, 0, "tolerance"};
    float *in = random_plane(l.w, l.h);
    const float k[3] = {0.25f, 0.5f, 0.25f};
    tc_params p = params_for(&l, 3, k, k, TC_BORDER_REPLICATE, TC_BILINEAR, TC_STORAGE_BUFFER);
    double lo = 1e300, hi = -1e300;
    for (int i = 0; i < l.w * l.h; i++) {
        lo = in[i] < lo ? in[i] : lo;
        hi = in[i] > hi ? in[i] : hi;
    }
    tc_params exact = p;
    exact.algorithm = TC_TILED;
    const double extra = tc_tolerance(in, l.w, l.h, &p) - tc_tolerance(in, l.w, l.h, &exact);
    const double expect = 2.0 * (1.0 / 256.0 + 66.0 / 16777216.0) * (hi - lo);
    assert_true(fabs(extra - expect) < 1e-9 * expect);
    free(in);
}

/* ---- Refusals ------------------------------------------------------------------------- */

static void test_refusals(void **state)
{
    (void)state;
    const layout l = {40, 30, 0, 0, 0, 0, 0, 0, "refusals"};
    float *in = random_plane(l.w, l.h);
    float *out = new_plane(l.w, l.h);
    const float laplace[3] = {1, -2, 1}, blur[3] = {0.25f, 0.5f, 0.25f};
    tc_params p = params_for(&l, 3, laplace, blur, TC_BORDER_REPLICATE, TC_BILINEAR,
                             TC_STORAGE_BUFFER);
    assert_int_equal(tc_filter(ctx, in, out, l.w, l.h, &p), TC_EINVAL);
    assert_non_null(strstr(tc_error(ctx), "kx[0] = 1 and kx[1] = -2"));
    assert_int_equal(tc_check_params(ctx, l.w, l.h, &p), TC_EINVAL);
    p.kx = blur;
    p.ky = laplace;
    assert_int_equal(tc_filter(ctx, in, out, l.w, l.h, &p), TC_EINVAL);
    assert_non_null(strstr(tc_error(ctx), "ky"));
    p.ky = blur;
    assert_int_equal(tc_check_params(ctx, l.w, l.h, &p), TC_OK);
    p.algorithm = TC_TWOPASS;
    p.storage = TC_STORAGE_IMAGE;
    assert_int_equal(tc_filter(ctx, in, out, l.w, l.h, &p), TC_EINVAL);
    assert_non_null(strstr(tc_error(ctx), "twopass reads buffers only"));
    /* A mask that is not rank 1 has no two 1-D passes to pair taps in. */
    static const float laplacian[9] = {0, 1, 0, 1, -4, 1, 0, 1, 0};
    p.algorithm = TC_BILINEAR;
    p.storage = TC_STORAGE_BUFFER;
    p.mask = laplacian;
    p.mask_width = p.mask_height = 3;
    assert_int_equal(tc_filter(ctx, in, out, l.w, l.h, &p), TC_EINVAL);
    assert_non_null(strstr(tc_error(ctx), "bilinear: the 3 x 3 mask is not separable"));
    p.algorithm = TC_TILED; /* from an image, a mask is fine */
    p.storage = TC_STORAGE_IMAGE;
    assert_int_equal(tc_filter(ctx, in, out, l.w, l.h, &p), TC_OK);
    p.mask = NULL;
    p.mask_width = p.mask_height = 0;
    p.storage = (tc_storage)2;
    p.algorithm = TC_TILED;
    assert_int_equal(tc_filter(ctx, in, out, l.w, l.h, &p), TC_EINVAL);
    p.storage = TC_STORAGE_IMAGE;
    p.algorithm = (tc_algorithm)(TC_BILINEAR + 1);
    assert_int_equal(tc_filter(ctx, in, out, l.w, l.h, &p), TC_EINVAL);
    assert_string_equal(tc_algorithm_name(TC_BILINEAR), "bilinear");
    assert_string_equal(tc_storage_name(TC_STORAGE_IMAGE), "image");
    assert_string_equal(tc_storage_name((tc_storage)7), "?");
    free(out);
    free(in);
}

/* A device without image support (as the tuning's no-images makes any device answer): the
 * image paths are refused with TC_EINVAL naming CL_DEVICE_IMAGE_SUPPORT, before any work; the
 * buffer paths go on. */
static void test_no_image_support(void **state)
{
    (void)state;
    const layout l = {40, 30, 0, 0, 0, 0, 0, 0, "no images"};
    float *in = random_plane(l.w, l.h);
    float *out = new_plane(l.w, l.h);
    test_tune("no-images=1");
    tc_params p = params_for(&l, 3, NULL, NULL, TC_BORDER_REPLICATE, TC_TILED,
                             TC_STORAGE_IMAGE);
    assert_int_equal(tc_filter(ctx, in, out, l.w, l.h, &p), TC_EINVAL);
    assert_non_null(strstr(tc_error(ctx), "CL_DEVICE_IMAGE_SUPPORT"));
    assert_non_null(strstr(tc_error(ctx), "storage image"));
    p.algorithm = TC_BILINEAR;
    assert_int_equal(tc_check_params(ctx, l.w, l.h, &p), TC_EINVAL);
    assert_non_null(strstr(tc_error(ctx), "bilinear"));
    p.algorithm = TC_ONEPASS;
    p.storage = TC_STORAGE_BUFFER;
    assert_int_equal(tc_filter(ctx, in, out, l.w, l.h, &p), TC_OK);
    test_untune();
    p.storage = TC_STORAGE_IMAGE;
    assert_int_equal(tc_filter(ctx, in, out, l.w, l.h, &p), TC_OK);
    free(out);
    free(in);
}

/* An image wider than any device's 2-D images (2^20 + 1 columns): TC_EINVAL naming the limit,
 * while the buffer path filters it. */
static void test_image_too_wide(void **state)
{
    (void)state;
    const layout l = {(1 << 20) + 1, 1, 0, 0, 0, 0, 0, 0, "too wide"};
    float *in = random_plane(l.w, l.h);
    float *out = malloc((size_t)l.w * sizeof *out);
    assert_non_null(out);
    tc_params p = params_for(&l, 3, NULL, NULL, TC_BORDER_REPLICATE, TC_TILED,
                             TC_STORAGE_IMAGE);
    p.count_classes = 0;
    assert_int_equal(tc_filter(ctx, in, out, l.w, l.h, &p), TC_EINVAL);
    assert_non_null(strstr(tc_error(ctx), "CL_DEVICE_IMAGE2D_MAX_WIDTH"));
    p.storage = TC_STORAGE_BUFFER;
    assert_int_equal(tc_filter(ctx, in, out, l.w, l.h, &p), TC_OK);
    free(out);
    free(in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pair_binomial3),
        cmocka_unit_test(test_pair_binomial5_and_box),
        cmocka_unit_test(test_pair_every_length),
        cmocka_unit_test(test_pair_signs),
        cmocka_unit_test(test_bound),
        cmocka_unit_test(test_image_storage_layouts),
        cmocka_unit_test(test_image_storage_tiled_variants),
        cmocka_unit_test(test_image_storage_programs),
        cmocka_unit_test(test_image_storage_long_and_mask_kernels),
        cmocka_unit_test(test_bilinear_layouts),
        cmocka_unit_test(test_bilinear_other_filters),
        cmocka_unit_test(test_bilinear_per_axis),
        cmocka_unit_test(test_bilinear_after_larger_image),
        cmocka_unit_test(test_bilinear_reads_only_the_sroi),
        cmocka_unit_test(test_bilinear_tolerance),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_no_image_support),
        cmocka_unit_test(test_image_too_wide),
    };
    return cmocka_run_group_tests_name("storage", tests, setup, context_teardown);
}
