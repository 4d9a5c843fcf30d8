/*
 * test_pyramid.c - the Gaussian scale space (tiledconv.h, tc_pyramid): the layout the rule
 * gives (sizes, sigmas, lengths) against values worked out by hand, the refusals, level (0, 0)
 * against the plain filter bit for bit, both launch styles against each other bit for bit and
 * against the CPU reference within the stated tolerance (odd sizes, sizes on the per-octave
 * kernel's tile boundaries, every border rule, one to eight levels), the reference itself
 * against tc_reference and a decimation done here, and the launches and figures each style
 * reports. Runs on the default OpenCL device (PoCL's CPU device in CI).
 *
 * The cases mostly use sigma0 0.8 with 2 levels (Gaussians of 7 to 11 taps), whose programs
 * PoCL builds in a few seconds; the default pyramid (sigma0 1.6, 4 x 4: 7 to 21 taps) runs on
 * two images, for level (0, 0) and the kernels' longer slices.
 */
#include "test_util.h"
#include "test_cli.h"
#include "test_context.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "option_parse.h"
#include "tiledconv.h"

/* A deterministic image with a fractional part in every pixel. */
static float *image(int w, int h, unsigned seed)
{
    float *p = malloc(sizeof(float) * (size_t)w * (size_t)h);
    assert_non_null(p);
    unsigned s = seed * 2654435761u + 1u;
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++) {
        s = s * 1103515245u + 12345u;
        p[i] = (float)((s >> 8) % 25600u) / 100.0f;
    }
    return p;
}

/* The O x L planes of a pyramid of p on a w x h image, per tc_pyramid_layout. */
typedef struct {
    int count;
    tc_pyramid_level level[TC_PYRAMID_MAX_OCTAVES * TC_PYRAMID_MAX_LEVELS];
    float *plane[TC_PYRAMID_MAX_OCTAVES * TC_PYRAMID_MAX_LEVELS];
} planes;

static void planes_make(planes *ps, int w, int h, const tc_pyramid_params *p)
{
    char err[512];
    memset(ps, 0, sizeof *ps);
    assert_int_equal(tc_pyramid_layout(w, h, p, ps->level,
                                       TC_PYRAMID_MAX_OCTAVES * TC_PYRAMID_MAX_LEVELS,
                                       &ps->count, err, sizeof err),
                     TC_OK);
    for (int i = 0; i < ps->count; i++) {
        /* NaN everywhere first: a pixel the device does not write shows. */
        const size_t n = (size_t)ps->level[i].width * (size_t)ps->level[i].height;
        ps->plane[i] = malloc(n * sizeof(float));
        assert_non_null(ps->plane[i]);
        for (size_t k = 0; k < n; k++)
            ps->plane[i][k] = NAN;
    }
}

static void planes_free(planes *ps)
{
    for (int i = 0; i < ps->count; i++)
        free(ps->plane[i]);
    memset(ps, 0, sizeof *ps);
}

static tc_pyramid_params params(int octaves, int levels, double sigma, tc_border border,
                                float value)
{
    tc_pyramid_params p;
    tc_pyramid_params_init(&p);
    p.octaves = octaves;
    p.levels = levels;
    p.sigma = sigma;
    p.border = border;
    p.border_value = value;
    return p;
}

/* ---- The layout ------------------------------------------------------------------------- */

static void test_defaults(void **state)
{
    tc_pyramid_params p;
    (void)state;
    tc_pyramid_params_init(&p);
    assert_int_equal(p.octaves, 4);
    assert_int_equal(p.levels, 4);
    assert_true(p.sigma == 1.6);
    assert_int_equal(p.border, TC_BORDER_REPLICATE);
    assert_int_equal(p.launch, TC_PYRAMID_PER_OCTAVE);
    assert_string_equal(tc_pyramid_launch_name(TC_PYRAMID_PER_OCTAVE), "per-octave");
    assert_string_equal(tc_pyramid_launch_name(TC_PYRAMID_PER_LEVEL), "per-level");
    assert_string_equal(tc_pyramid_launch_name((tc_pyramid_launch)7), "?");
    assert_true(tc_abi_size("tc_pyramid_params") == sizeof(tc_pyramid_params));
    assert_true(tc_abi_size("tc_pyramid_level") == sizeof(tc_pyramid_level));
    assert_true(tc_abi_size("tc_pyramid_stats") == sizeof(tc_pyramid_stats));
}

/* The default 4 x 4 pyramid of a 512 x 512 image, every field worked out by hand: octave K is
 * 512 / 2^K; level j has sigma 1.6 x 2^(j/4) in its octave (1.6, 1.9027, 2.2627, 2.6909) and
 * 2^K times that in input pixels; octave 0 applies that sigma (round(6 s + 1) | 1 taps: 11,
 * 13, 15, 17), the others 1.6 sqrt(2^(j/2) - 1) (0: the base itself, then 1.0298, 1.6,
 * 2.1635: 7, 11, 15 taps). */
static void test_layout_default(void **state)
{
    tc_pyramid_params p;
    tc_pyramid_level lv[16];
    char err[256];
    int count = -1;
    static const int taps0[4] = {11, 13, 15, 17}, taps1[4] = {1, 7, 11, 15};
    static const double sigma[4] = {1.6, 1.9027, 2.2627, 2.6909};
    static const double applied1[4] = {0.0, 1.0298, 1.6, 2.1635};
    (void)state;
    tc_pyramid_params_init(&p);
    assert_int_equal(tc_pyramid_layout(512, 512, &p, NULL, 0, &count, err, sizeof err), TC_OK);
    assert_int_equal(count, 16);
    assert_int_equal(tc_pyramid_layout(512, 512, &p, lv, 16, &count, err, sizeof err), TC_OK);
    for (int k = 0; k < 4; k++)
        for (int j = 0; j < 4; j++) {
            const tc_pyramid_level *l = &lv[k * 4 + j];
            assert_int_equal(l->octave, k);
            assert_int_equal(l->level, j);
            assert_int_equal(l->width, 512 >> k);
            assert_int_equal(l->height, 512 >> k);
            assert_true(fabs(l->sigma - sigma[j]) < 1e-4);
            assert_true(fabs(l->sigma - 1.6 * pow(2.0, j / 4.0)) < 1e-12);
            assert_true(fabs(l->sigma_input - l->sigma * (1 << k)) < 1e-12);
            assert_int_equal(l->taps, k == 0 ? taps0[j] : taps1[j]);
            assert_true(fabs(l->sigma_applied - (k == 0 ? sigma[j] : applied1[j])) < 1e-4);
        }
    /* The levels climb by the same factor k = 2^(1/4) across octaves too. */
    for (int i = 1; i < 16; i++)
        assert_true(fabs(lv[i].sigma_input / lv[i - 1].sigma_input - pow(2.0, 0.25)) < 1e-12);
    /* Level (0, 0) is the plain gauss of that sigma: its length the one --sigma 1.6 gives. */
    assert_int_equal(lv[0].taps, tc_named_default_taps(TC_NAMED_GAUSS, 1.6));
    assert_true(lv[0].sigma_applied == 1.6);
}

/* Odd sizes halve up (the even pixels, none dropped); an octave made from one with a side of
 * 1 pixel is refused, naming how many octaves the image takes. */
static void test_layout_sizes(void **state)
{
    tc_pyramid_params p = params(3, 2, 0.8, TC_BORDER_REPLICATE, 0.0f);
    tc_pyramid_level lv[32];
    char err[256];
    int count;
    static const int want[3][2] = {{5, 3}, {3, 2}, {2, 1}};
    (void)state;
    assert_int_equal(tc_pyramid_layout(5, 3, &p, lv, 16, &count, err, sizeof err), TC_OK);
    assert_int_equal(count, 6);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(lv[2 * k].width, want[k][0]);
        assert_int_equal(lv[2 * k].height, want[k][1]);
    }
    p.octaves = 4; /* octave 3 from octave 2's 2 x 1 */
    assert_int_equal(tc_pyramid_layout(5, 3, &p, lv, 16, &count, err, sizeof err), TC_EINVAL);
    assert_non_null(strstr(err, "octave 3 would be made from octave 2, which is 2 x 1"));
    assert_non_null(strstr(err, "at most 3 octaves"));
    p.octaves = 1;
    assert_int_equal(tc_pyramid_layout(1, 1, &p, lv, 16, &count, err, sizeof err), TC_OK);
    p.octaves = 2;
    assert_int_equal(tc_pyramid_layout(1, 1, &p, lv, 16, &count, err, sizeof err), TC_EINVAL);
    assert_int_equal(tc_pyramid_layout(2, 2, &p, lv, 16, &count, err, sizeof err), TC_OK);
    assert_int_equal(lv[2].width, 1);
    /* 8192 = 2^13 takes 14 octaves, the last 1 x 1 made from 2 x 2; 2^15 all 16. */
    p.octaves = 14;
    assert_int_equal(tc_pyramid_layout(8192, 8192, &p, lv, 32, &count, err, sizeof err),
                     TC_OK);
    assert_int_equal(lv[26].width, 1);
    p.octaves = 15;
    assert_int_equal(tc_pyramid_layout(8192, 8192, &p, NULL, 0, &count, err, sizeof err),
                     TC_EINVAL);
    assert_non_null(strstr(err, "at most 14 octaves"));
    p.octaves = 16;
    assert_int_equal(tc_pyramid_layout(32768, 32768, &p, NULL, 0, &count, err, sizeof err),
                     TC_OK);
}

static void test_layout_refusals(void **state)
{
    tc_pyramid_params p;
    char err[256];
    int count;
    (void)state;
    const struct {
        int octaves, levels;
        double sigma;
        const char *says;
    } bad[] = {
        {0, 4, 1.6, "octaves must be 1..16"},
        {17, 4, 1.6, "octaves must be 1..16"},
        {4, 0, 1.6, "levels 1..8"},
        {4, 9, 1.6, "levels 1..8"},
        {4, 4, 0.0, "above 0"},
        {4, 4, -1.0, "above 0"},
        {4, 4, NAN, "above 0"},
        {4, 4, INFINITY, "above 0"},
        /* 2 sigma0 = 10.6 makes octave 1: 65 taps */
        {2, 4, 5.3, "the image at blur 2 sigma0 that makes octave 1 needs a Gaussian of sigma "
                    "10.6, 65 taps"},
        {1, 1, 10.42, "level (0, 0) needs a Gaussian of sigma 10.42, 65 taps"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p = params(bad[i].octaves, bad[i].levels, bad[i].sigma, TC_BORDER_REPLICATE, 0.0f);
        err[0] = '\0';
        assert_int_equal(tc_pyramid_layout(4096, 4096, &p, NULL, 0, &count, err, sizeof err),
                         TC_EINVAL);
        if (!strstr(err, bad[i].says))
            fail_msg("case %zu: '%s' does not say '%s'", i, err, bad[i].says);
    }
    /* The largest sigmas that fit 63 taps. */
    p = params(2, 4, 5.2, TC_BORDER_REPLICATE, 0.0f);
    assert_int_equal(tc_pyramid_layout(4096, 4096, &p, NULL, 0, &count, err, sizeof err), TC_OK);
    p = params(1, 1, 10.41, TC_BORDER_REPLICATE, 0.0f);
    assert_int_equal(tc_pyramid_layout(4096, 4096, &p, NULL, 0, &count, err, sizeof err), TC_OK);
    p = params(2, 2, 1.0, (tc_border)9, 0.0f);
    assert_int_equal(tc_pyramid_layout(64, 64, &p, NULL, 0, &count, err, sizeof err), TC_EINVAL);
    p = params(2, 2, 1.0, TC_BORDER_CONSTANT, NAN);
    assert_int_equal(tc_pyramid_layout(64, 64, &p, NULL, 0, &count, err, sizeof err), TC_EINVAL);
    p = params(2, 2, 1.0, TC_BORDER_REPLICATE, 0.0f);
    p.launch = (tc_pyramid_launch)5;
    assert_int_equal(tc_pyramid_layout(64, 64, &p, NULL, 0, &count, err, sizeof err), TC_EINVAL);
    assert_int_equal(tc_pyramid_layout(0, 64, &p, NULL, 0, &count, err, sizeof err), TC_EINVAL);
    assert_int_equal(tc_pyramid_layout(64, 64, NULL, NULL, 0, &count, err, sizeof err),
                     TC_EINVAL);
    p = params(2, 2, 1.0, TC_BORDER_REPLICATE, 0.0f);
    assert_int_equal(tc_pyramid_layout(64, 64, &p, NULL, 0, NULL, err, sizeof err), TC_EINVAL);
}

/* ---- On the device ---------------------------------------------------------------------- */

/* Both launch styles on one image: bit for bit the same levels, every level (every pixel
 * written) within its tolerance of the reference; the figures each reports. */
static void check_case(int w, int h, const tc_pyramid_params *base, const char *label)
{
    tc_pyramid_params p = *base;
    planes octave, level, ref;
    double tol[TC_PYRAMID_MAX_OCTAVES * TC_PYRAMID_MAX_LEVELS];
    char err[512];
    float *src = image(w, h, (unsigned)(w * 31 + h));
    tc_pyramid_stats st;
    int launches[2] = {0, 0};

    planes_make(&octave, w, h, &p);
    planes_make(&level, w, h, &p);
    planes_make(&ref, w, h, &p);
    const tc_pyramid_launch styles[2] = {TC_PYRAMID_PER_OCTAVE, TC_PYRAMID_PER_LEVEL};
    const char *const style_names[2] = {"per octave", "per level"};
    planes *const outs[2] = {&octave, &level};
    for (int k = 0; k < 2; k++) {
        p.launch = styles[k];
        if (tc_pyramid(ctx, src, w, h, &p, outs[k]->plane) != TC_OK)
            fail_msg("%s, %s: %s", label, style_names[k], tc_error(ctx));
        assert_int_equal(tc_pyramid_last_stats(ctx, &st), TC_OK);
        assert_int_equal(st.launch, styles[k]);
        launches[k] = st.launches;
    }
    assert_int_equal(tc_pyramid_reference(src, w, h, &p, ref.plane, err, sizeof err), TC_OK);
    assert_int_equal(tc_pyramid_tolerance(src, w, h, &p, tol), TC_OK);

    /* One launch per octave that computes anything (all of them, but the last with 1 level);
     * per level: each Gaussian and each decimation. */
    const int O = p.octaves, L = p.levels;
    const int per_octave = O - (O > 1 && L == 1 ? 1 : 0);
    const int per_level = L + (O > 1 ? 1 : 0) + (O - 1) * (L - 1) + (O > 1 ? 2 * (O - 2) : 0) +
                          (O > 1 ? 1 : 0);
    if (launches[0] != per_octave || launches[1] != per_level)
        fail_msg("%s: %d and %d launches, expected %d and %d", label, launches[0], launches[1],
                 per_octave, per_level);
    for (int i = 0; i < octave.count; i++) {
        const size_t n = (size_t)octave.level[i].width * (size_t)octave.level[i].height;
        double worst = 0.0;
        if (memcmp(octave.plane[i], level.plane[i], n * sizeof(float)) != 0)
            for (size_t k = 0; k < n; k++)
                if (memcmp(&octave.plane[i][k], &level.plane[i][k], sizeof(float)) != 0)
                    fail_msg("%s, level (%d, %d): pixel (%zu, %zu): per octave %.9g, per level "
                             "%.9g",
                             label, octave.level[i].octave, octave.level[i].level,
                             k % (size_t)octave.level[i].width, k / (size_t)octave.level[i].width,
                             octave.plane[i][k], level.plane[i][k]);
        for (size_t k = 0; k < n; k++) {
            const double d = fabs((double)octave.plane[i][k] - (double)ref.plane[i][k]);
            if (!(d <= tol[i]))
                fail_msg("%s, level (%d, %d): pixel (%zu, %zu): %.9g, the reference %.9g "
                         "(tolerance %.3g)",
                         label, octave.level[i].octave, octave.level[i].level,
                         k % (size_t)octave.level[i].width, k / (size_t)octave.level[i].width,
                         octave.plane[i][k], ref.plane[i][k], tol[i]);
            worst = d > worst ? d : worst;
        }
        assert_true(tol[i] > 0.0 && tol[i] < 0.05);
    }
    planes_free(&octave);
    planes_free(&level);
    planes_free(&ref);
    free(src);
}

/* The small pyramid (sigma0 0.8, 2 levels: 7 to 11 taps) on whole images of awkward sizes:
 * smaller than the per-octave kernel's 32 x 256 tile, one pixel more or less than it, two
 * rows of tiles with class 1 groups inside (100 x 600), odd sizes whose octaves halve up. */
static void test_sizes(void **state)
{
    static const int sizes[][3] = {
        {1, 1, 1},   {2, 2, 2},    {3, 2, 2},    {7, 5, 3},    {31, 33, 3},  {33, 31, 3},
        {32, 256, 3}, {33, 257, 3}, {31, 255, 3}, {45, 71, 4},  {100, 600, 3}, {97, 65, 3},
    };
    (void)state;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char label[64];
        const tc_pyramid_params p =
            params(sizes[i][2], 2, 0.8, TC_BORDER_REPLICATE, 0.0f);
        snprintf(label, sizeof label, "%d x %d, %d x 2", sizes[i][0], sizes[i][1], sizes[i][2]);
        check_case(sizes[i][0], sizes[i][1], &p, label);
    }
}

/* Every border rule, on an image whose octaves are smaller than the longer Gaussians' reach
 * in their last octave (reflections of reflections). */
static void test_borders(void **state)
{
    (void)state;
    for (int b = 0; b < 5; b++) {
        char label[64];
        const tc_pyramid_params p = params(4, 2, 0.8, (tc_border)b, b == 1 ? 37.5f : 0.0f);
        snprintf(label, sizeof label, "border %s", tc_border_name((tc_border)b));
        check_case(45, 33, &p, label);
    }
}

/* One level (each octave but the last has only its feed), eight levels (nine slices in
 * octave 0's launch), and the shapes of the benchmark on a small image. */
static void test_level_counts(void **state)
{
    tc_pyramid_params p;
    (void)state;
    p = params(3, 1, 0.8, TC_BORDER_REFLECT101, 0.0f);
    check_case(40, 30, &p, "3 x 1");
    p = params(2, 8, 0.5, TC_BORDER_REPLICATE, 0.0f);
    check_case(50, 37, &p, "2 x 8");
    p = params(1, 3, 0.8, TC_BORDER_WRAP, 0.0f);
    check_case(29, 23, &p, "1 x 3");
}

/* The default pyramid (sigma0 1.6, 4 x 4): Gaussians of 7 to 21 taps, tiled_conv's
 * accumulating order at 7 and 11, its plain order at 13 and 15, tiled_long_conv's at 17 to
 * 21; and level (0, 0) is the plain filter, --filter gauss --sigma 1.6, bit for bit. */
static void test_default_pyramid(void **state)
{
    tc_pyramid_params p;
    planes ps;
    char err[256];
    float kx[TC_MAX_TAPS], ky[TC_MAX_TAPS];
    const int w = 97, h = 65;
    float *src = image(w, h, 5), *plain = malloc(sizeof(float) * w * h);
    (void)state;
    assert_non_null(plain);
    tc_pyramid_params_init(&p);
    check_case(w, h, &p, "the default 4 x 4");
    check_case(300, 140, &p, "the default 4 x 4, 300 x 140");

    for (int launch = 0; launch < 2; launch++) {
        p.launch = (tc_pyramid_launch)launch;
        planes_make(&ps, w, h, &p);
        assert_int_equal(tc_pyramid(ctx, src, w, h, &p, ps.plane), TC_OK);
        tc_params fp;
        tc_params_init(&fp);
        fp.taps_x = fp.taps_y = tc_named_default_taps(TC_NAMED_GAUSS, 1.6);
        assert_int_equal(tc_named_filter("gauss", fp.taps_x, 1.6, kx, ky, err, sizeof err),
                         TC_OK);
        fp.kx = kx;
        fp.ky = ky;
        assert_int_equal(tc_filter(ctx, src, plain, w, h, &fp), TC_OK);
        assert_memory_equal(ps.plane[0], plain, sizeof(float) * w * h);
        planes_free(&ps);
    }
    free(plain);
    free(src);
}

/* The reference itself: level (1, 0) is tc_reference's 2 sigma0 Gaussian of the input at its
 * even pixels, level (1, 1) tc_reference's incremental Gaussian of that. */
static void test_reference(void **state)
{
    const int w = 23, h = 17, w1 = 12, h1 = 9;
    tc_pyramid_params p = params(2, 2, 0.8, TC_BORDER_REFLECT, 0.0f);
    planes ref;
    char err[256];
    float *src = image(w, h, 9), *feed = malloc(sizeof(float) * w * h);
    float *base = malloc(sizeof(float) * w1 * h1), *l11 = malloc(sizeof(float) * w1 * h1);
    float k[TC_MAX_TAPS], k2[TC_MAX_TAPS];
    tc_params fp;
    (void)state;
    assert_true(feed && base && l11);
    planes_make(&ref, w, h, &p);
    assert_int_equal(tc_pyramid_reference(src, w, h, &p, ref.plane, err, sizeof err), TC_OK);
    /* The feed: sigma 1.6, 11 taps. */
    tc_params_init(&fp);
    fp.taps_x = fp.taps_y = 11;
    fp.border = TC_BORDER_REFLECT;
    assert_int_equal(tc_named_filter("gauss", 11, 1.6, k, k2, err, sizeof err), TC_OK);
    fp.kx = k;
    fp.ky = k2;
    assert_int_equal(tc_reference(src, feed, w, h, &fp, err, sizeof err), TC_OK);
    for (int y = 0; y < h1; y++)
        for (int x = 0; x < w1; x++)
            base[y * w1 + x] = feed[2 * y * w + 2 * x];
    assert_memory_equal(ref.plane[2], base, sizeof(float) * w1 * h1);
    /* Level (1, 1): 0.8 sqrt(2 - 1) = 0.8, 7 taps, on that base. */
    fp.taps_x = fp.taps_y = 7;
    assert_int_equal(tc_named_filter("gauss", 7, 0.8, k, k2, err, sizeof err), TC_OK);
    assert_int_equal(tc_reference(base, l11, w1, h1, &fp, err, sizeof err), TC_OK);
    assert_memory_equal(ref.plane[3], l11, sizeof(float) * w1 * h1);
    planes_free(&ref);
    free(src);
    free(feed);
    free(base);
    free(l11);
}

/* The tolerance grows with the octaves (each base carries the last one's), and level 0 of
 * octaves 1 and on is the base's own. */
static void test_tolerance(void **state)
{
    tc_pyramid_params p;
    double tol[16];
    float *src = image(64, 64, 3);
    (void)state;
    tc_pyramid_params_init(&p);
    assert_int_equal(tc_pyramid_tolerance(src, 64, 64, &p, tol), TC_OK);
    for (int k = 1; k < 4; k++) {
        assert_true(tol[4 * k] > tol[4 * (k - 1)]);
        for (int j = 1; j < 4; j++)
            assert_true(tol[4 * k + j] > tol[4 * k]);
    }
    /* tc_tolerance's bound for level (0, 0): 2 x 22 taps x FLT_EPSILON x max|input| x gain. */
    double max_in = 0.0;
    for (int i = 0; i < 64 * 64; i++)
        max_in = src[i] > max_in ? src[i] : max_in;
    assert_true(fabs(tol[0] / (2.0 * 22 * FLT_EPSILON * max_in) - 1.0) < 1e-5);
    assert_int_equal(tc_pyramid_tolerance(NULL, 64, 64, &p, tol), TC_EINVAL);
    p.octaves = 0;
    assert_int_equal(tc_pyramid_tolerance(src, 64, 64, &p, tol), TC_EINVAL);
    free(src);
}

/* Timed runs: every iteration's time, the median among them; the buffers are kept for the
 * same sizes; bad arguments leave the context usable. */
static void test_timed_and_errors(void **state)
{
    tc_pyramid_params p = params(3, 2, 0.8, TC_BORDER_REPLICATE, 0.0f);
    tc_pyramid_stats st;
    planes ps;
    float *src = image(64, 48, 4);
    (void)state;
    planes_make(&ps, 64, 48, &p);
    assert_int_equal(tc_pyramid_timed(ctx, src, 64, 48, &p, ps.plane, 3), TC_OK);
    assert_int_equal(tc_pyramid_last_stats(ctx, &st), TC_OK);
    assert_int_equal(st.iterations, 3);
    assert_int_equal(st.launches, 3);
    assert_true(st.kernel_ms_min > 0.0 && st.kernel_ms_min <= st.kernel_ms_median &&
                st.kernel_ms_median <= st.kernel_ms[0] + st.kernel_ms[1] + st.kernel_ms[2]);
    /* The per-octave bytes: octave 0 reads its base 3 times (2 levels and the feed), writes
     * 2 levels and a quarter; octave 1 likewise from 32 x 24; octave 2 reads once, writes one. */
    const double want = 4.0 * (64 * 48 * (3 + 2) + 32 * 24 + 32 * 24 * (2 + 1) + 16 * 12 +
                               16 * 12 * 2);
    assert_true(fabs(st.bytes - want) < 0.5);
    assert_true(st.upload_ms >= 0.0 && st.download_ms >= 0.0 && st.wall_ms_per_iteration > 0.0);

    assert_int_equal(tc_pyramid(ctx, src, 64, 48, &p, NULL), TC_EINVAL);
    assert_non_null(strstr(tc_error(ctx), "levels is NULL"));
    float *saved = ps.plane[3];
    ps.plane[3] = NULL;
    assert_int_equal(tc_pyramid(ctx, src, 64, 48, &p, ps.plane), TC_EINVAL);
    assert_non_null(strstr(tc_error(ctx), "levels[3] is NULL"));
    ps.plane[3] = saved;
    assert_int_equal(tc_pyramid(ctx, NULL, 64, 48, &p, ps.plane), TC_EINVAL);
    assert_int_equal(tc_pyramid_timed(ctx, src, 64, 48, &p, ps.plane, 0), TC_EINVAL);
    p.octaves = 9; /* 48 rows take 7 octaves */
    assert_int_equal(tc_pyramid(ctx, src, 64, 48, &p, ps.plane), TC_EINVAL);
    p.octaves = 3;
    assert_int_equal(tc_pyramid(ctx, src, 64, 48, &p, ps.plane), TC_OK);
    assert_int_equal(tc_pyramid(NULL, src, 64, 48, &p, ps.plane), TC_EINVAL);
    assert_int_equal(tc_pyramid_last_stats(NULL, &st), TC_EINVAL);
    planes_free(&ps);
    free(src);
}

/* ---- The command line's --pyramid (src/files/options.c) ---------------------------------------- */

/* Parses the words (NULL-terminated); the first line of the message into msg. */
static int parse(tc_options *o, char *msg, size_t size, char **words)
{
    char *argv[32] = {"tiledconv"};
    int argc = 1;
    while (words[argc - 1])
        argv[argc] = words[argc - 1], argc++;
    return test_cli_parse(argc, argv, o, msg, size);
}

static void test_options(void **state)
{
    tc_options o;
    char msg[512];
    (void)state;
    char *bare[] = {"-g", "64x64", "--pyramid", "--no-output", NULL};
    assert_int_equal(parse(&o, msg, sizeof msg, bare), 0);
    assert_true(o.pyramid && o.pyramid_octaves == 4 && o.pyramid_levels == 4);
    char *given[] = {"--pyramid", "3x5", "in.bmp", "-O", "out", "--sigma", "1.2", NULL};
    assert_int_equal(parse(&o, msg, sizeof msg, given), 0);
    assert_true(o.pyramid_octaves == 3 && o.pyramid_levels == 5 && o.sigma == 1.2);
    /* The OxL word is the value, not an input; any other word after a bare --pyramid is. */
    assert_int_equal(o.n_positional, 1);
    assert_string_equal(o.positional[0], "in.bmp");
    char *attached[] = {"--pyramid=5x3", "-O", "out", "a.bmp", "b.bmp", NULL};
    assert_int_equal(parse(&o, msg, sizeof msg, attached), 0);
    assert_true(o.pyramid_octaves == 5 && o.pyramid_levels == 3 && o.n_positional == 2);
    char *word[] = {"--pyramid", "4x4.bmp", "-O", "out", NULL};
    assert_int_equal(parse(&o, msg, sizeof msg, word), 0);
    assert_true(o.pyramid_octaves == 4 && o.n_positional == 1);
    char *border[] = {"--pyramid", "--border", "constant=3", "--filter", "gauss", "-g", "9x9",
                      "--no-output", NULL};
    assert_int_equal(parse(&o, msg, sizeof msg, border), 0);
    assert_true(o.filter.border == TC_BORDER_CONSTANT && o.filter.border_value == 3.0f);

    struct {
        char *words[8];
        const char *says;
    } bad[] = {
        {{"--pyramid", "-g", "9x9", NULL}, "give -O DIR"},
        {{"--pyramid", "-o", "x.bmp", NULL}, "-o x.bmp: --pyramid writes one image per level"},
        {{"--pyramid", "--no-output", "-f", "5", NULL}, "-f: --pyramid makes its own Gaussians"},
        {{"--pyramid", "--no-output", "--cx", "1,2,1", NULL}, "--cx: --pyramid makes"},
        {{"--pyramid", "--no-output", "--filter", "sharpen", NULL}, "--filter: --pyramid makes"},
        {{"--pyramid", "--no-output", "-tT", "2", NULL}, "-tT: --pyramid filters whole images"},
        {{"--pyramid", "--no-output", "-a", "twopass", NULL}, "-a: does not apply"},
        {{"--pyramid", "--no-output", "--scalar-io", NULL}, "--scalar-io: does not apply"},
        {{"--pyramid", "--no-output", "--colour", NULL}, "--color: --pyramid works on the "
                                                         "intensity plane"},
        {{"--pyramid=0x1", "--no-output", NULL}, "octaves must be 1..16 and levels 1..8"},
        {{"--pyramid=x4", "--no-output", NULL}, "expected OCTAVESxLEVELS"},
        {{"--pyramid=4x4x4", "--no-output", NULL}, "expected OCTAVESxLEVELS"},
        {{"--pyramid", "--no-output", "--sigma", "5.3", NULL}, "sigma0 must stay below 5.208"},
        {{"--sigma", "1", "--no-output", NULL}, "only --filter gauss (and --pyramid) takes"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(parse(&o, msg, sizeof msg, bad[i].words), 2);
        if (!strstr(msg, bad[i].says))
            fail_msg("case %zu: '%s' does not say '%s'", i, msg, bad[i].says);
    }
    /* One octave takes sigma0 up to 10.41 (its longest level is below 2 sigma0). */
    char *one[] = {"--pyramid", "1x1", "--sigma", "10.4", "--no-output", "-g", "9x9", NULL};
    assert_int_equal(parse(&o, msg, sizeof msg, one), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_layout_default),
        cmocka_unit_test(test_layout_sizes),
        cmocka_unit_test(test_layout_refusals),
        cmocka_unit_test(test_reference),
        cmocka_unit_test(test_tolerance),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_borders),
        cmocka_unit_test(test_level_counts),
        cmocka_unit_test(test_default_pyramid),
        cmocka_unit_test(test_timed_and_errors),
        cmocka_unit_test(test_options),
    };
    return cmocka_run_group_tests(tests, context_setup, context_teardown);
}
