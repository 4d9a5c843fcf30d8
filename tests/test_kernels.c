/*
 * test_kernels.c - every algorithm against the CPU reference, through one table of cases run
 * once per algorithm: whole images of awkward sizes, ROIs on tile and class boundaries, 300
 * seeded random ROI combinations for both of the article's filter lengths (3 and 5), every
 * border rule with lengths up to 15, a length per axis, lengths 17 to 63 (tiled: the long
 * variant, with its own class boundaries), and masks from 1 x 3 to 15 x 15 (tiled and onepass:
 * the mask kernels; twopass: the separable ones, after factoring); plus the tiled kernel's
 * other block geometries.
 *
 * The cases go through the public API (tiledconv.h: one context, tc_filter) and are checked
 * against the launchers' own figures (launch.h: the tiled classes the host predicts). Runs on
 * the default OpenCL device (PoCL's CPU device in CI). Every pixel of the whole plane is
 * compared, so a write outside the target ROI fails as surely as a wrong value inside it.
 */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "device.h"
#include "job_kernels.h"
#include "launch.h"
#include "params.h"
#include "programs.h"
#include "reference.h"
#include "split.h"
#include "tiledconv.h"
#include "verify.h"

#define RANDOM_CASES 300
#define ALGORITHM_COUNT 3

static tc_context *ctx;
static unsigned long long device_local_mem; /* the device's local memory (the long tiles) */
/* Work-groups (tiles, for tiled_slide_conv) of each class run, summed over every tiled case,
 * per tiled kernel (indexed by tc_kernel_kind). */
static long tiled_classes_seen[TC_KERNEL_TILED_SPLIT + 1][4];
static long cases_run[ALGORITHM_COUNT];
/* Program builds of the cases, and their time: what the suite's time mostly is on PoCL. */
static long builds_seen;
static double build_ms_seen;

/* The tiled kernel's block and float4 paths for the cases that follow: the defaults, except
 * while test_tiled_geometries runs. */
static int tiled_block_x = TC_TILED_BLOCK_X, tiled_block_y = TC_TILED_BLOCK_Y;
static int tiled_vector_io = 1;
/* The tiled kernel's variant for the cases that follow (tc_params.kernel): NULL, the default
 * for each filter, except while the variant tests run. */
static const char *tiled_kernel;

static void random_plane(tc_plane *p, int width, int height);
static void force_shift(tc_roi *roi, int width, int shift);
static void random_mask(tc_filter_spec *f, int w, int h, tc_border border);

/* A small deterministic generator (the tests must be repeatable, rand() differs by libc). */
static uint64_t rng_state;
static uint32_t rng_next(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(rng_state >> 33);
}
static int rng_range(int lo, int hi) /* inclusive */
{
    return lo + (int)(rng_next() % (uint32_t)(hi - lo + 1));
}

/* Random values with a fractional part, so that rounding and misplaced taps both show. */
static void fill_random(tc_plane *p)
{
    for (size_t i = 0; i < (size_t)p->width * (size_t)p->height; i++)
        p->px[i] = (float)(rng_next() % 25600) / 100.0f;
}

/* The parameters of tc_filter for one case: the filter f, the ROI, the algorithm, the current
 * tiled geometry, and class counting (so that tc_last_stats gives the kernel's own counts). */
static tc_params params_for(tc_algorithm alg, const tc_roi *roi, const tc_filter_spec *f)
{
    tc_params p;
    tc_params_init(&p);
    p.taps_x = f->taps_x;
    p.taps_y = f->taps_y;
    p.kx = f->kx;
    p.ky = f->ky;
    if (f->mask_width) {
        p.mask = f->mask;
        p.mask_width = f->mask_width;
        p.mask_height = f->mask_height;
    }
    test_set_roi(&p, roi->src_left, roi->src_top, roi->dst_left, roi->dst_top, roi->width,
                 roi->height);
    p.border = f->border;
    p.border_value = f->border_value;
    p.algorithm = alg;
    p.block_width = tiled_block_x;
    p.block_height = tiled_block_y;
    p.vector_io = tiled_vector_io;
    p.kernel = tiled_kernel;
    p.count_classes = 1;
    return p;
}

/* The launchers' view of the same tiled run, for the host's class prediction. */
static tc_job tiled_job(const tc_roi *roi, const tc_filter_spec *f)
{
    tc_job job;
    memset(&job, 0, sizeof job);
    job.algorithm = TC_TILED; /* the callers' mask kernels are tiled too: tc_kernel_for */
    job.filter = *f;
    job.roi = *roi;
    job.block_x = tiled_block_x;
    job.block_y = tiled_block_y;
    job.vector_io = tiled_vector_io;
    job.count_classes = 1;
    tc_msg m = {""};
    if (tc_variant_find(tiled_kernel, f, &job.variant, &m) != TC_OK)
        fail_msg("%s", m.text);
    tc_job_decide(&job);
    return job;
}

/* Runs one algorithm on one case with the filter f (a mask factored or not as the library
 * will: tc_filter_set_mask) and compares the whole plane with the reference. */
static void check_filter_case(tc_algorithm alg, int width, int height, tc_roi roi,
                              const tc_filter_spec *f, const char *label)
{
    tc_plane in, out, expected;
    tc_stats stats;
    char size[48];
    if (f->mask_width)
        snprintf(size, sizeof size, "%d x %d mask%s", f->mask_width, f->mask_height,
                 f->mask_separable ? " (factored)" : "");
    else
        snprintf(size, sizeof size, "%d x %d taps", f->taps_x, f->taps_y);
    assert_int_equal(tc_plane_alloc(&in, width, height), 0);
    assert_int_equal(tc_plane_alloc(&out, width, height), 0);
    assert_int_equal(tc_plane_alloc(&expected, width, height), 0);
    fill_random(&in);
    memset(out.px, 0xff, (size_t)width * height * sizeof(float)); /* NaN: a missed pixel shows */

    const tc_params p = params_for(alg, &roi, f);
    int rc = tc_filter(ctx, in.px, out.px, width, height, &p);
    if (rc != TC_OK)
        fail_msg("%s, %s, %s: run failed: %s", tc_algorithm_name(alg), size, label,
                 tc_error(ctx));
    assert_int_equal(tc_last_stats(ctx, &stats), TC_OK);
    builds_seen += stats.build_ms > 0.0;
    build_ms_seen += stats.build_ms;
    if (getenv("TEST_KERNELS_BUILDS") && stats.build_ms > 0.0)
        print_message("build %.0f ms: %s, %s, %s, %s\n", stats.build_ms, tc_algorithm_name(alg),
                      size, tc_border_name(f->border), label);
    assert_int_equal(reference_convolve(&in, &roi, f, &expected), TC_OK);
    tc_verify_result v = verify_compare(&expected, &out, &roi, reference_tolerance(&in, f),
                                        stderr, 3);
    if (v.mismatches)
        fail_msg("%s%s%s, %s, %s border, %s: image %d x %d, sROI (%d, %d), tROI (%d, %d), "
                 "%d x %d: %ld mismatches", tc_algorithm_name(alg),
                 tiled_kernel && alg == TC_TILED ? " kernel " : "",
                 tiled_kernel && alg == TC_TILED ? tiled_kernel : "", size,
                 tc_border_name(f->border), label, width, height, roi.src_left, roi.src_top,
                 roi.dst_left, roi.dst_top, roi.width, roi.height, v.mismatches);
    const tc_job job = tiled_job(&roi, f);
    const tc_kernel_kind kind = alg == TC_TILED ? tc_kernel_of(&job) : tc_kernel_for(f, alg);
    if (tc_kernel_is_tiled(kind)) {
        /* The kernel counted its groups' classes (count_classes): they must be the classes
         * the host predicts, and they are what the class coverage test sums. */
        long predicted[4];
        tc_tiled_classes(&job, device_local_mem, predicted);
        assert_true(stats.classes_counted);
        for (int c = 0; c < 4; c++) {
            if (stats.classes[c] != predicted[c])
                fail_msg("%s, %s%s%s: class %d: %s ran %ld groups, the host predicted %ld",
                         label, size, tiled_kernel ? ", kernel " : "",
                         tiled_kernel ? tiled_kernel : "", c + 1, tc_kernel_name(kind),
                         stats.classes[c], predicted[c]);
            tiled_classes_seen[kind][c] += stats.classes[c];
        }
    }
    cases_run[alg]++;
    tc_plane_free(&in);
    tc_plane_free(&out);
    tc_plane_free(&expected);
}

/* One case of the separable filter of these lengths: the binomial, or (half the cases)
 * asymmetric, unequal row and column filters. */
static void check_case_xy(tc_algorithm alg, int width, int height, tc_roi roi, int taps_x,
                          int taps_y, tc_border border, const char *label)
{
    tc_filter_spec f;
    tc_filter_binomial_xy(&f, taps_x, taps_y);
    f.border = border;
    f.border_value = (float)(rng_next() % 256);
    if (rng_next() % 2) {
        for (int i = 0; i < taps_x; i++)
            f.kx[i] = (float)(rng_next() % 200) / 100.0f - 1.0f;
        for (int j = 0; j < taps_y; j++)
            f.ky[j] = (float)(rng_next() % 200) / 100.0f - 1.0f;
    }
    check_filter_case(alg, width, height, roi, &f, label);
}

static void check_case_border(tc_algorithm alg, int width, int height, tc_roi roi, int taps,
                              tc_border border, const char *label)
{
    check_case_xy(alg, width, height, roi, taps, taps, border, label);
}

static void check_case(tc_algorithm alg, int width, int height, tc_roi roi, int taps,
                       const char *label)
{
    check_case_border(alg, width, height, roi, taps, TC_BORDER_REPLICATE, label);
}

/* A random image size and ROI pair; align4 puts the sROI's left edge (and the width) on
 * multiples of 4, where the tiled kernel takes its float4 paths. */
static void random_case(int max_w, int max_h, int align4, int *width, int *height, tc_roi *roi,
                        int largest)
{
    int w = rng_range(1, max_w), h = rng_range(1, max_h);
    if (align4)
        w = (w + 3) / 4 * 4;
    roi->src_left = rng_range(0, w - 1);
    if (align4)
        roi->src_left &= ~3;
    roi->dst_left = rng_range(0, w - 1);
    roi->src_top = rng_range(0, h - 1);
    roi->dst_top = rng_range(0, h - 1);
    int max_rw = w - (roi->src_left > roi->dst_left ? roi->src_left : roi->dst_left);
    int max_rh = h - (roi->src_top > roi->dst_top ? roi->src_top : roi->dst_top);
    roi->width = largest ? max_rw : rng_range(1, max_rw);
    roi->height = largest ? max_rh : rng_range(1, max_rh);
    *width = w;
    *height = h;
}

static tc_algorithm alg_of(void **state)
{
    return *(const tc_algorithm *)*state;
}

/* Whole images of sizes that are and are not multiples of 4 and 32. */
static void test_image_sizes(void **state)
{
    static const int sizes[][2] = {{1, 1},  {3, 2},   {31, 33}, {32, 32}, {33, 31},
                                   {97, 65}, {257, 130}, {4, 4},  {64, 1},  {1, 64}};
    for (int taps = 3; taps <= 5; taps += 2)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            tc_roi roi = {0, 0, 0, 0, sizes[i][0], sizes[i][1]};
            check_case(alg_of(state), sizes[i][0], sizes[i][1], roi, taps, "whole image");
        }
}

/* ROIs whose edges fall exactly on tile and class boundaries: widths and heights of k * 32 and
 * k * 32 +- 1, +- r, offsets of r, r - 1 and r + 1, where the class tests change their answer. */
static void test_class_boundaries(void **state)
{
    static const int extents[] = {1, 2, 31, 32, 33, 34, 35, 62, 63, 64, 65, 66, 67, 96, 97};
    static const int offsets[] = {0, 1, 2, 3};
    for (int taps = 3; taps <= 5; taps += 2)
        for (size_t e = 0; e < sizeof extents / sizeof extents[0]; e++)
            for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; o++) {
                int w = extents[e], h = extents[(e + o) % (sizeof extents / sizeof extents[0])];
                int off = offsets[o];
                /* The sROI sits at off; the tROI at the other corner, against the far edges. */
                int width = w + 2 * off + 1, height = h + 2 * off + 1;
                tc_roi roi = {off, off, width - w, height - h, w, h};
                check_case(alg_of(state), width, height, roi, taps, "class boundary");
            }
}

/* Seeded random images and ROI pairs: both filter lengths, ROIs anywhere, of any size. */
static void test_random_rois(void **state)
{
    rng_state = 20261121; /* the same cases every run, for every algorithm */
    for (int i = 0; i < RANDOM_CASES; i++) {
        int width, height;
        tc_roi roi;
        /* A third of the cases take the largest ROI, as the tool's default does; a quarter put
         * the sROI's left edge on a multiple of 4 (the float4 paths). */
        random_case(140, 110, i % 4 == 0, &width, &height, &roi, i % 3 == 0);
        char label[32];
        snprintf(label, sizeof label, "random case %d", i);
        check_case(alg_of(state), width, height, roi, i % 2 ? 5 : 3, label);
    }
}

/* Every border rule with filter lengths from 3 to 15, on random ROIs (some smaller than the
 * radius, where reflections repeat). The tiled kernel's program depends on the ROIs' shift
 * ((sL - tL) mod 4) too: each rule and length takes one shift, the four in turn, so that every
 * pair of them and every shift is met while the tiled cases build about 30 programs, not up to
 * 120 (PoCL's builds were most of this test's 100 s on the 2-core machine; every alignment is
 * test_alignment_classes'). */
static void test_borders_and_lengths(void **state)
{
    static const int lengths[] = {3, 5, 7, 9, 11, 15};
    /* Each pair of border and length is a program or two to build (most of this test's time
     * on PoCL): make test takes half of them, every border at three lengths and every length
     * at two or three borders; TEST_FULL (make full-sweeps) takes them all. */
    const int full = getenv("TEST_FULL") != NULL;
    rng_state = 7;
    for (int b = 0; b < TC_BORDER_COUNT; b++)
        for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++)
            for (int i = 0; i < 10 && (full || (b + (int)l) % 2 == 0); i++) {
                int width, height;
                tc_roi roi;
                random_case(i < 3 ? 12 : 110, i < 3 ? 12 : 90, i % 2, &width, &height, &roi,
                            i % 3 == 0);
                force_shift(&roi, width, (b + (int)l) % 4);
                char label[48];
                snprintf(label, sizeof label, "border/length case %d", i);
                check_case_border(alg_of(state), width, height, roi, lengths[l],
                                  (tc_border)b, label);
            }
}

/* Every alignment class of the tiled kernel: sL mod 4 x tL mod 4 (the program's
 * SHIFT, (sL - tL) mod 4, and the tile grid's offset, tL mod 4), with odd sT and tT, at 3 and
 * 5 taps; then the long lengths at one ROI each. Images where all four classes of work-groups
 * occur. The combinations that share a SHIFT share a filter length and border rule, so that
 * the 36 cases build 12 programs (PoCL takes seconds for each). */
static void test_alignment_classes(void **state)
{
    static const int long_lengths[] = {7, 9, 11, 15};
    (void)state;
    rng_state = 1313;
    for (int taps = 3; taps <= 5; taps += 2)
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++) {
                const int shift = (a - b + 4) % 4;
                /* Tall enough for class 1 with 4 x 8 blocks (tiles of 32 x 64) at 15 taps. */
                const int width = 150 + rng_range(0, 7), height = 160 + rng_range(0, 9);
                const tc_roi roi = {4 + a, 2 * rng_range(0, 3) + 1, 8 + b,
                                    2 * rng_range(0, 3) + 1, width - 12, height - 8};
                char label[48];
                snprintf(label, sizeof label, "alignment sL%%4=%d tL%%4=%d", a, b);
                check_case_border(TC_TILED, width, height, roi, taps,
                                  (tc_border)((shift + taps) % TC_BORDER_COUNT), label);
            }
    for (int i = 0; i < 4; i++) {
        const tc_roi roi = {5 + i, 3, 2, 7, 140, 150};
        check_case_border(TC_TILED, 150, 160, roi, long_lengths[i],
                          (tc_border)(i % TC_BORDER_COUNT), "alignment, long filter");
    }
}

/* The variants TiledConv.cl keeps as build options (the tuning's cl-options),
 * each at lengths where it is not the default, against the reference on an unaligned ROI. */
static void test_kernel_variants(void **state)
{
    static const struct {
        const char *options;
        int taps[2]; /* 0: none */
    } variants[] = {{"-DTC_CLASS2_STAGE=1", {3, 15}},
                    {"-DTC_CLASS2_STAGE=1 -DTC_HALO_SPREAD=0", {15, 0}},
                    {"-DTC_CLASS4_BROADCAST=1", {3, 7}},
                    {"-DTC_HALO_SPREAD=1", {5, 0}},
                    {"-DTC_HALO_SPREAD=0", {9, 0}},
                    {"-DTC_VERTICAL_ACC=1 -DTC_HALO_SPREAD=1", {5, 15}},
                    {"-DTC_VERTICAL_ACC=0", {7, 0}},
                    {"-DTC_COEFF_VALUES=0", {3, 11}},
                    {"-DTC_COEFF_VALUES=1", {15, 0}}};
    (void)state;
    rng_state = 1314;
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        char setting[128];
        snprintf(setting, sizeof setting, "cl-options=%s", variants[v].options);
        test_tune(setting);
        for (int l = 0; l < 2 && variants[v].taps[l]; l++) {
            const int width = 120, height = 150;
            const tc_roi roi = {3 + (int)v % 4, 5, 1 + l, 2, width - 7, height - 6};
            char label[96];
            snprintf(label, sizeof label, "variant %s", variants[v].options);
            check_case_border(TC_TILED, width, height, roi, variants[v].taps[l],
                              (tc_border)((v + (size_t)l) % TC_BORDER_COUNT), label);
        }
    }
    test_untune();
}

/* The tiled kernel with other blocks per work-item and without float4 I/O: the tuning options
 * must compute the same function. 8 random ROIs a geometry (24 with TEST_FULL set: `make
 * full-sweeps`). */
static void test_tiled_geometries(void **state)
{
    const int cases = getenv("TEST_FULL") ? 24 : 8;
    (void)state;
    static const int blocks[][3] = {{4, 4, 0}, {4, 2, 1}, {4, 8, 1}, {8, 4, 1}, {8, 8, 1},
                                    {4, 1, 1}, {8, 16, 0}};
    rng_state = 99;
    for (size_t g = 0; g < sizeof blocks / sizeof blocks[0]; g++) {
        tiled_block_x = blocks[g][0];
        tiled_block_y = blocks[g][1];
        tiled_vector_io = blocks[g][2];
        for (int i = 0; i < cases; i++) {
            int width, height;
            tc_roi roi;
            random_case(200, 150, i % 2, &width, &height, &roi, i % 3 == 0);
            char label[64];
            snprintf(label, sizeof label, "block %dx%d%s case %d", blocks[g][0], blocks[g][1],
                     blocks[g][2] ? "" : " scalar", i);
            check_case(TC_TILED, width, height, roi, i % 2 ? 5 : 3, label);
        }
    }
    tiled_block_x = TC_TILED_BLOCK_X;
    tiled_block_y = TC_TILED_BLOCK_Y;
    tiled_vector_io = 1;
}

/* Every variant of the tiled kernel for long filters (variants.c's table: tiled_slide_conv's
 * geometries) against the reference: short lengths (their programs build fast on PoCL, and
 * the strip walk, the rows carried from tile to tile and the classes do not depend on the
 * length), unequal per axis, 1 tap along either axis, a length longer than a step's rows,
 * every border rule in turn, on random ROIs in every alignment; then, for the first slide
 * variant, a ROI smaller than the filter at 63 taps and a tall one at 33 x 31 whose strips
 * carry rows for many steps. The class counts are checked against the host's tiles in every
 * case (check_filter_case). */
static void test_slide_variants(void **state)
{
    static const int lengths[][2] = {{5, 3}, {3, 9}, {7, 1}, {1, 5}, {11, 13}};
    int count;
    const tc_variant *v = tc_variants(&count);
    (void)state;
    rng_state = 2525;
    for (int i = 0, n = 0; i < count; i++) {
        if (v[i].kind != TC_KERNEL_TILED_SLIDE)
            continue;
        tiled_kernel = v[i].name;
        for (int c = 0; c < 2; c++, n++) {
            int width, height;
            tc_roi roi;
            random_case(c ? 300 : 140, c ? 200 : 300, (n + 1) % 3 == 0, &width, &height, &roi,
                        n % 2 == 0);
            const int *taps = lengths[n % 5];
            check_case_xy(TC_TILED, width, height, roi, taps[0], taps[1],
                          (tc_border)(n % TC_BORDER_COUNT), "slide variant");
        }
    }
    int first = 0; /* the first slide variant (the table's order) */
    while (first < count && v[first].kind != TC_KERNEL_TILED_SLIDE)
        first++;
    assert_true(first < count);
    tiled_kernel = v[first].name;
    const tc_roi small = {3, 2, 1, 4, 9, 7}, tall = {2, 5, 1, 3, 70, 600};
    check_case_border(TC_TILED, 20, 15, small, 63, TC_BORDER_REFLECT101,
                      "63 taps, a ROI smaller than the filter");
    check_case_xy(TC_TILED, 75, 610, tall, 33, 31, TC_BORDER_REPLICATE, "a tall strip");
    tiled_kernel = NULL;
}

/* tiled_slide_conv's class boundaries (tiles of 64 x 64 on the source's 4-grid, groups that
 * walk strips of several tiles): ROI edges at k x 64 and k x 64 +- the radius and +- the
 * apron, 9 taps; and its tiles as tc_tiles lists them (the class map's). */
static void test_slide_class_boundaries(void **state)
{
    static const int extents[][2] = {{64, 64}, {60, 72}, {65, 129}, {128, 190}, {127, 200},
                                     {131, 257}};
    (void)state;
    rng_state = 2626;
    tiled_kernel = "slide-64x64-j32-v32";
    for (size_t e = 0; e < sizeof extents / sizeof extents[0]; e++) {
        const int w = extents[e][0], h = extents[e][1], off = (int)e % 4;
        const tc_roi roi = {off, off + 1, 2 + (int)e % 3, 1, w, h};
        check_case_border(TC_TILED, w + 8, h + 4, roi, 9,
                          e % 2 ? TC_BORDER_REFLECT101 : TC_BORDER_REPLICATE,
                          "slide class boundary");
    }
    /* The tiles: a 200 x 300 ROI whose source starts at column 2, 9 taps (radius 4). Tiles of
     * 64 x 64 from l = -2: l = -2, 62, 126, 190 (4) by t = 0, 64, ..., 256 (5). Windows of 32
     * + 8 columns from a multiple of 4: aprons of 4 columns a side. Free on read: l >= 4 and
     * l + 68 <= 200 (l = 62, 126: 2) by t >= 4 and t + 68 <= 300 (t = 64 .. 192: 3): 6. Free
     * on write: l >= 0 and l + 64 <= 200 (62, 126) by t + 64 <= 300 (0 .. 192: 4): 8. */
    tc_params p = params_for(TC_TILED, &(tc_roi){2, 0, 0, 0, 200, 300}, &(tc_filter_spec){0});
    tc_tile tiles[64];
    long classes[4];
    p.taps_x = p.taps_y = 9;
    p.kx = p.ky = NULL;
    const int n = test_tile_classes(&p, 210, 300, tiles, 64, classes);
    assert_int_equal(n, 20);
    for (int i = 0; i < n; i++) {
        assert_int_equal(tiles[i].width, 64);
        assert_int_equal(tiles[i].height, 64);
    }
    assert_int_equal(tiles[0].x, -2); /* where it writes: tL 0, the grid 2 columns left */
    assert_int_equal(tiles[19].y, 256);
    assert_int_equal(classes[0], 6);
    assert_int_equal(classes[1], 14);
    assert_int_equal(classes[2], 8);
    assert_int_equal(classes[3], 12);
    tiled_kernel = NULL;
}

/* Every variant of the tiled kernel for masks (tiled_mask_rows_conv's blocks) against the
 * reference, masks of 7 x 7, 5 x 3 and 3 x 9, every alignment and border, and on an image
 * where every class occurs; and a separable
 * variant refused for a mask, a mask variant for a separable filter, an unknown name. */
static void test_mask_variants(void **state)
{
    static const int sizes[][2] = {{7, 7}, {5, 3}, {3, 9}};
    int count;
    const tc_variant *v = tc_variants(&count);
    (void)state;
    rng_state = 2727;
    for (int i = 0, n = 0; i < count; i++) {
        if (v[i].kind != TC_KERNEL_TILED_MASK_ROWS)
            continue;
        tiled_kernel = v[i].name;
        for (int c = 0; c < 2; c++, n++) {
            int width, height;
            tc_roi roi;
            tc_filter_spec f;
            random_case(150, 140, n % 2, &width, &height, &roi, n % 3 == 0);
            force_shift(&roi, width, n % 4);
            random_mask(&f, sizes[n % 3][0], sizes[n % 3][1], (tc_border)(n % TC_BORDER_COUNT));
            check_filter_case(TC_TILED, width, height, roi, &f, "mask variant");
        }
        /* An image where tiles of all four classes occur (tiles up to 64 x 64). */
        const tc_roi every = {3, 2, 1, 4, 190, 180};
        tc_filter_spec f;
        random_mask(&f, 7, 7, TC_BORDER_REFLECT101);
        check_filter_case(TC_TILED, 200, 190, every, &f, "mask variant, every class");
    }
    tiled_kernel = NULL;
    static const struct {
        const char *name;
        int mask;
        const char *mention;
    } refused[] = {{"slide-64x64-j32-v32", 1, "is for separable filters"},
                   {"mrows-8x4", 0, "is for masks"},
                   {"tiled", 0, "up to 15 taps"},
                   {"no-such-kernel", 0, "not a variant"}};
    for (size_t r = 0; r < sizeof refused / sizeof refused[0]; r++) {
        tc_filter_spec f;
        tc_params p;
        tc_plane in;
        tc_roi roi = {0, 0, 0, 0, 16, 16};
        random_plane(&in, 16, 16);
        if (refused[r].mask)
            random_mask(&f, 5, 5, TC_BORDER_REPLICATE);
        else
            tc_filter_binomial(&f, 31);
        p = params_for(TC_TILED, &roi, &f);
        p.kernel = refused[r].name;
        assert_int_equal(tc_filter(ctx, in.px, in.px, 16, 16, &p), TC_EINVAL);
        if (!strstr(tc_error(ctx), refused[r].mention))
            fail_msg("kernel %s: message '%s'", refused[r].name, tc_error(ctx));
        tc_plane_free(&in);
    }
}

/* The rows variant (tiled_rows_conv, 1 tap along columns) and the split variant (it into a
 * plane, then tiled_long_conv along columns) against the reference: short lengths (fast
 * builds on PoCL; the staging, the row lanes and the classes do not depend on the length),
 * unequal per axis, every border rule in turn, on random ROIs in every alignment, and one ROI
 * wide and tall enough for every class of both passes; then 63 taps on a ROI smaller than the
 * filter. The class counts (both passes' for split) are checked against the host's tiles in
 * every case. */
static void test_rows_and_split_variants(void **state)
{
    static const int split_lengths[][2] = {{5, 3}, {3, 9}, {9, 5}, {11, 13}};
    (void)state;
    rng_state = 3535;
    for (int n = 0; n < 8; n++) {
        int width, height;
        tc_roi roi;
        random_case(n % 2 ? 600 : 140, n % 2 ? 200 : 300, (n + 1) % 3 == 0, &width, &height, &roi,
                    n % 2 == 0);
        tiled_kernel = "rows";
        check_case_xy(TC_TILED, width, height, roi, 3 + 2 * (n % 5), 1,
                      (tc_border)(n % TC_BORDER_COUNT), "rows variant");
        tiled_kernel = "split";
        const int *taps = split_lengths[n % 4];
        check_case_xy(TC_TILED, width, height, roi, taps[0], taps[1],
                      (tc_border)((n + 2) % TC_BORDER_COUNT), "split variant");
    }
    /* Every class of both passes: a ROI of 600 x 700 inside a larger image. */
    const tc_roi big = {5, 9, 3, 2, 600, 700}, small = {3, 2, 1, 4, 9, 7};
    tiled_kernel = "rows";
    check_case_xy(TC_TILED, 620, 720, big, 9, 1, TC_BORDER_REFLECT101, "rows, every class");
    check_case_xy(TC_TILED, 20, 15, small, 63, 1, TC_BORDER_WRAP, "rows, 63 taps, small ROI");
    tiled_kernel = "split";
    check_case_xy(TC_TILED, 620, 720, big, 7, 5, TC_BORDER_CONSTANT, "split, every class");
    check_case_xy(TC_TILED, 20, 15, small, 63, 63, TC_BORDER_REFLECT101,
                  "split, 63 taps, a ROI smaller than the filter");
    tiled_kernel = NULL;
}

/* The tiled cases above must have exercised all four of the article's classes in each tiled
 * kernel, or the class paths are not what was tested. The counts are the kernels' own (an
 * atomic add per group). Runs after the tiled cases (cmocka keeps the order). */
static void test_all_classes_occurred(void **state)
{
    (void)state;
    static const tc_kernel_kind tiled_kinds[] = {TC_KERNEL_TILED,      TC_KERNEL_TILED_LONG,
                                                 TC_KERNEL_TILED_MASK, TC_KERNEL_TILED_SLIDE,
                                                 TC_KERNEL_TILED_MASK_ROWS,
                                                 TC_KERNEL_TILED_ROWS, TC_KERNEL_TILED_SPLIT};
    for (size_t i = 0; i < sizeof tiled_kinds / sizeof tiled_kinds[0]; i++) {
        const int k = tiled_kinds[i];
        print_message("%s work-groups run: class 1 %ld, class 2 %ld, class 3 %ld, class 4 %ld\n",
                      tc_kernel_name((tc_kernel_kind)k), tiled_classes_seen[k][0],
                      tiled_classes_seen[k][1], tiled_classes_seen[k][2],
                      tiled_classes_seen[k][3]);
        for (int c = 0; c < 4; c++)
            if (tiled_classes_seen[k][c] == 0)
                fail_msg("%s: no work-group of class %d ran", tc_kernel_name((tc_kernel_kind)k),
                         c + 1);
    }
}

/* The class arithmetic on a known case: a 100 x 70 ROI with radius 1 has 4 x 3 tiles; only
 * tiles (1,1) and (2,1)... are free on read: l >= 1, t >= 1, l + 33 <= 100, t + 33 <= 70. */
static void test_class_counts_by_hand(void **state)
{
    (void)state;
    long classes[4];
    tc_roi roi = {0, 0, 0, 0, 100, 70};
    tc_filter_spec f;
    tc_filter_binomial(&f, 3); /* radius 1 */
    const tc_job job = tiled_job(&roi, &f); /* the default block, 4 x 4 */
    tc_tiled_classes(&job, 1 << 20, classes);
    /* tiles at l = 0, 32, 64, 96 and t = 0, 32, 64. Free on read: l in {32, 64}? 64 + 33 = 97
     * <= 100 yes; t = 32: 32 + 33 = 65 <= 70 yes. So (32, 32) and (64, 32): 2 of 12. Free on
     * write: l + 32 <= 100 (l = 0, 32, 64) and t + 32 <= 70 (t = 0, 32): 6 of 12. */
    assert_int_equal(classes[0], 2);
    assert_int_equal(classes[1], 10);
    assert_int_equal(classes[2], 6);
    assert_int_equal(classes[3], 6);

    /* tiled_long_conv, 17 taps (radius 8), tiles of 32 x 256 on the source's 4-grid: a
     * 200 x 600 ROI whose source starts at column 2 has its first tile at l = -2; tiles at
     * l = -2, 30, ..., 190 (7) and t = 0, 256, 512 (3). Read windows of 8 + 16 columns from a
     * multiple of 4: aprons of 8 columns a side. Free on read: l >= 8 and l + 40 <= 200
     * (l = 30 .. 158: 5) and t >= 8, t + 264 <= 600 (t = 256): 5. Free on write: l >= 0,
     * l + 32 <= 200 (l = 30 .. 158: 5) and t + 256 <= 600 (t = 0, 256: 2): 10. */
    tc_roi moved = {2, 0, 0, 0, 200, 600};
    tc_filter_binomial(&f, 17);
    tc_job long_job = tiled_job(&moved, &f);
    tc_tiled_geometry g;
    tc_tiled_geometry_of(&long_job, 1 << 20, &g);
    assert_int_equal(g.kind, TC_KERNEL_TILED_LONG);
    assert_int_equal(g.tile_w, 32);
    assert_int_equal(g.tile_h, 256);
    assert_int_equal(g.grid_offset, 2);
    assert_int_equal(g.apron_l, 8);
    assert_int_equal(g.apron_r, 8);
    tc_tiled_classes(&long_job, 1 << 20, classes);
    assert_int_equal(classes[0], 5);
    assert_int_equal(classes[1], 21 - 5);
    assert_int_equal(classes[2], 10);
    assert_int_equal(classes[3], 21 - 10);
    /* A device with 16 KB of local memory halves the tile height until (h + 16) x 32 floats
     * fit: 256 -> 128 (144 x 128 bytes = 18 KB, still too much) -> 64 (80 x 128 = 10 KB). */
    tc_tiled_geometry_of(&long_job, 16384, &g);
    assert_int_equal(g.tile_h, 64);
    assert_int_equal(g.block[1], 64 * 32 / 256);
    /* Jobs of 8 outputs at every length (4 x 64 work-items); long-wide's of 16 (2 x 128),
     * with the same tile and aprons (the windows are whole float4s either way). */
    assert_int_equal(g.read_block_x, 8);
    assert_int_equal((int)g.local[0], 4);
    tc_filter_binomial(&f, 41);
    tiled_kernel = "long";
    long_job = tiled_job(&moved, &f);
    tc_tiled_geometry_of(&long_job, 1 << 20, &g);
    assert_int_equal(g.read_block_x, 8);
    assert_int_equal((int)g.local[0], 4);
    tiled_kernel = "long-wide";
    long_job = tiled_job(&moved, &f);
    tiled_kernel = NULL;
    tc_tiled_geometry_of(&long_job, 1 << 20, &g);
    assert_int_equal(g.kind, TC_KERNEL_TILED_LONG);
    assert_int_equal(g.read_block_x, 16);
    assert_int_equal((int)g.local[0], 2);
    assert_int_equal((int)g.local[1], 128);
    assert_int_equal(g.tile_w, 32);
    assert_int_equal(g.apron_l, 20);
    assert_int_equal(g.apron_r, 20);
    assert_int_equal(g.block[1], 32);
    /* The split variant (by name: long is the default at 41 taps): the
     * tiles of both passes, its rows pass's 256 x 32 from the ROI's corner (7 x 600 / 32 ->
     * 1 x 19 tiles, none free on read: 20 + 256 + 20 > 200; free on write: none, 256 > 200),
     * then the long kernel's on the plane with one tap along rows (7 x 3 as above, the plane's
     * grid at 0: l = 0 .. 192, no aprons; free on read l + 32 <= 200 (l = 0 .. 160: 6) and
     * t = 256 (t >= 20, t + 276 <= 600); free on write the same 6 columns and t = 0, 256). */
    g = (tc_tiled_geometry){0};
    tiled_kernel = "split";
    long_job = tiled_job(&moved, &f);
    tiled_kernel = NULL;
    assert_int_equal(tc_kernel_of(&long_job), TC_KERNEL_TILED_SPLIT);
    tc_tiled_geometry_of(&long_job, 1 << 20, &g);
    assert_int_equal(g.tile_w, 256);
    assert_int_equal(g.tile_h, 32);
    assert_int_equal((int)g.local[0], 32);
    assert_int_equal((int)g.local[1], 8);
    assert_int_equal(g.apron_l, 20);
    tc_tiled_classes(&long_job, 1 << 20, classes);
    assert_int_equal(classes[0], 0 + 6);
    assert_int_equal(classes[1], 19 + 21 - 6);
    assert_int_equal(classes[2], 0 + 12);
    assert_int_equal(classes[3], 19 + 21 - 12);
}

/* The default variant of a separable filter with long rows, by their length and border
 * (variants.c's long_bands from 11 taps: tiled at 11 with the mirror borders, long beyond, to
 * 63); rows for one tap down columns from 17; the columns' length does not choose. */
static void test_long_rows_default_by_border(void **state)
{
    (void)state;
    static const struct {
        tc_border border;
        int taps, taps_y;
        const char *variant;
    } cases[] = {
        {TC_BORDER_REPLICATE, 33, 33, "long"},   {TC_BORDER_REPLICATE, 35, 3, "long"},
        {TC_BORDER_REPLICATE, 37, 37, "long"},   {TC_BORDER_REPLICATE, 59, 47, "long"},
        {TC_BORDER_REPLICATE, 61, 61, "long"},  {TC_BORDER_REPLICATE, 63, 9, "long"},
        {TC_BORDER_CONSTANT, 59, 39, "long"},    {TC_BORDER_CONSTANT, 61, 5, "long"},
        {TC_BORDER_WRAP, 23, 23, "long"},        {TC_BORDER_WRAP, 49, 49, "long"},
        {TC_BORDER_WRAP, 51, 3, "long"},         {TC_BORDER_WRAP, 63, 63, "long"},
        {TC_BORDER_REFLECT, 21, 21, "long"},     {TC_BORDER_REFLECT, 27, 27, "long"},
        {TC_BORDER_REFLECT, 23, 1, "rows"},      {TC_BORDER_REFLECT, 15, 5, "long"},
        {TC_BORDER_REFLECT, 33, 33, "long"},     {TC_BORDER_REFLECT, 57, 45, "long"},
        {TC_BORDER_REFLECT, 63, 59, "long"},    {TC_BORDER_REFLECT101, 31, 63, "long"},
        {TC_BORDER_REFLECT101, 35, 9, "long"},   {TC_BORDER_REFLECT101, 17, 17, "long"},
        {TC_BORDER_REFLECT101, 49, 3, "long"},   {TC_BORDER_REFLECT101, 63, 63, "long"},
        {TC_BORDER_REFLECT101, 7, 25, "long"},   {TC_BORDER_REFLECT101, 15, 63, "long"},
        {TC_BORDER_REPLICATE, 17, 17, "long"},
        /* From 11 taps along rows the long kernel, but at 11 with the mirror borders; the
         * article's lengths stay tiled's. */
        {TC_BORDER_REPLICATE, 9, 9, "tiled"},    {TC_BORDER_REPLICATE, 11, 11, "long"},
        {TC_BORDER_CONSTANT, 15, 15, "long"},    {TC_BORDER_WRAP, 13, 5, "long"},
        {TC_BORDER_REFLECT, 11, 11, "tiled"},    {TC_BORDER_REFLECT101, 13, 13, "long"},
        {TC_BORDER_REFLECT101, 9, 15, "tiled"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tc_filter_spec f;
        const tc_variant *v = NULL;
        tc_filter_binomial_xy(&f, cases[i].taps, cases[i].taps_y);
        f.border = cases[i].border;
        tc_kernel_for_variant(&f, TC_TILED, NULL, &v);
        if (!v || strcmp(v->name, cases[i].variant) != 0)
            fail_msg("case %zu: %d x %d taps, border %d: %s, expected %s", i, f.taps_x, f.taps_y,
                     (int)f.border, v ? v->name : "none", cases[i].variant);
    }
}

/* The register budget a job's kernel is built with where the compiler takes one (NVIDIA's):
 * tiled_long_conv's by the rows' radius (config.h's TC_LONG_BUDGETS: none to 11 taps, 64
 * beyond), whatever the border; for rows of 15 taps or fewer with longer columns 64 unless
 * the rows are one tap (split's second pass); long-ahead's and the mrows variants' own; none
 * for the other kernels; the tuning's over all. */
static void test_register_budgets(void **state)
{
    static const struct {
        const char *kernel;
        int taps_x, taps_y, budget;
    } cases[] = {
        {"long", 11, 11, 0},  {"long", 13, 13, 64},      {"long", 15, 9, 64},
        {"long", 15, 31, 64}, {"long", 17, 17, 64},      {"long", 35, 63, 64},
        {"long", 37, 5, 64},  {"long-lean", 47, 47, 64}, {"long", 49, 49, 64},
        {"long", 63, 63, 64}, {"long", 7, 63, 64},       {"long", 1, 63, 0},
        {"long", 3, 37, 64},  {"long", 1, 41, 0},        {"long", 11, 13, 64},
        {"long-ahead", 31, 31, 80}, {"tiled", 9, 9, 0},  {"split", 63, 63, 0},
        {"rows", 63, 1, 0},   {NULL, 31, 31, 64},       {NULL, 11, 11, 0},
        {NULL, 47, 47, 64},   {"long-wide", 41, 9, 64},
    };
    const tc_roi roi = {0, 0, 0, 0, 500, 400};
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tc_filter_spec f;
        tc_filter_binomial_xy(&f, cases[i].taps_x, cases[i].taps_y);
        tiled_kernel = cases[i].kernel;
        const tc_job job = tiled_job(&roi, &f);
        if (tc_register_budget(&job) != cases[i].budget)
            fail_msg("case %zu: %s %d x %d taps: budget %d, expected %d", i,
                     cases[i].kernel ? cases[i].kernel : "(default)", cases[i].taps_x,
                     cases[i].taps_y, tc_register_budget(&job), cases[i].budget);
    }
    /* Masks (not rank 1; the spec zeroed: replicate): the mrows variants' 128,
     * mrows-8x4-r64's 64 (replicate's default at 11 x 11), none for the unrolled mask kernel. */
    static const struct {
        const char *kernel;
        int side, budget;
    } masks[] = {{"mrows-8x8", 9, 128}, {"mrows-8x8-ahead", 9, 128}, {NULL, 15, 128},
                 {"mrows-4x8", 11, 128}, {"mask", 5, 0}, {"mrows-8x4-r64", 9, 64},
                 {NULL, 11, 64}};
    for (size_t i = 0; i < sizeof masks / sizeof masks[0]; i++) {
        float m[15 * 15];
        const int n = masks[i].side;
        for (int k = 0; k < n * n; k++)
            m[k] = (float)((3 * (k % n) + 5 * (k / n)) % 7 - 3) / 16.0f;
        tc_filter_spec f;
        memset(&f, 0, sizeof f);
        tc_filter_set_mask(&f, m, n, n);
        tiled_kernel = masks[i].kernel;
        const tc_job job = tiled_job(&roi, &f);
        if (tc_register_budget(&job) != masks[i].budget)
            fail_msg("mask %zu: %s %d x %d: budget %d, expected %d", i,
                     masks[i].kernel ? masks[i].kernel : "(default)", n, n,
                     tc_register_budget(&job), masks[i].budget);
    }
    tc_tuning t;
    memset(&t, 0, sizeof t);
    t.registers = 100;
    tc_set_tuning(&t);
    tc_filter_spec f;
    tc_filter_binomial(&f, 9);
    tiled_kernel = NULL;
    const tc_job short_job = tiled_job(&roi, &f);
    assert_int_equal(tc_register_budget(&short_job), 100);
    tc_set_tuning(NULL);
}

/* Every variant of the long kernel (long, long-lean, long-ahead: the same floats in the same
 * order) against the reference by name, rows of 25 and 31 taps with the mirror borders and
 * wrap, on moved ROIs whose tiles include every class (each work-item of a tile filters
 * several jobs of rows, so long-ahead's window read ahead is used). */
static void test_long_variants(void **state)
{
    static const struct {
        int taps_x, taps_y;
        tc_border border;
    } cases[] = {{25, 9, TC_BORDER_REFLECT}, {31, 31, TC_BORDER_REFLECT101},
                 {27, 3, TC_BORDER_WRAP}};
    int count;
    const tc_variant *v = tc_variants(&count);
    (void)state;
    for (int i = 0; i < count; i++) {
        if (v[i].kind != TC_KERNEL_TILED_LONG)
            continue;
        tiled_kernel = v[i].name;
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            tc_filter_spec f;
            const tc_roi roi = {3 + (int)c, 2, 1, 4, 150 - 5, 300 - 6};
            tc_filter_binomial_xy(&f, cases[c].taps_x, cases[c].taps_y);
            f.border = cases[c].border;
            check_filter_case(TC_TILED, 150, 300, roi, &f, "long variant");
        }
    }
    tiled_kernel = NULL;
}

/* The default variant of a mask by its larger side and border (variants.c's mask_defaults and
 * mask_defaults_unfolded): the unrolled kernel to 7; at 9 and 11 the mask-rows kernel with its
 * next window read ahead with the mirror borders and wrap, blocks of 8 x 4 under 64 registers
 * with replicate and constant; from 13 mrows-8x8. */
static void test_mask_default_by_size(void **state)
{
    (void)state;
    static const struct {
        int width, height;
        tc_border border;
        const char *variant;
    } cases[] = {{7, 7, TC_BORDER_REPLICATE, "mask"},
                 {7, 3, TC_BORDER_WRAP, "mask"},
                 {9, 9, TC_BORDER_REFLECT101, "mrows-8x8-ahead"},
                 {3, 9, TC_BORDER_WRAP, "mrows-8x8-ahead"},
                 {11, 11, TC_BORDER_REFLECT, "mrows-8x8-ahead"},
                 {9, 9, TC_BORDER_REPLICATE, "mrows-8x4-r64"},
                 {11, 5, TC_BORDER_CONSTANT, "mrows-8x4-r64"},
                 {13, 13, TC_BORDER_REPLICATE, "mrows-8x8"},
                 {13, 13, TC_BORDER_REFLECT101, "mrows-8x8"},
                 {15, 5, TC_BORDER_CONSTANT, "mrows-8x8"}};
    rng_state = 4141;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tc_filter_spec f;
        const tc_variant *v = NULL;
        random_mask(&f, cases[i].width, cases[i].height, cases[i].border);
        tc_kernel_for_variant(&f, TC_TILED, NULL, &v);
        if (!v || strcmp(v->name, cases[i].variant) != 0)
            fail_msg("case %zu: mask %d x %d: %s, expected %s", i, cases[i].width,
                     cases[i].height, v ? v->name : "none", cases[i].variant);
    }
}

/* A device whose limits a kernel exceeds is refused before the launch (TC_EDEVICE, a message
 * naming the limit), not left to fail inside OpenCL. The limits are the real device's (a
 * device of its own, opened for this test), lowered in a copy and given to the launcher. */
static void test_device_limits_refused(void **state)
{
    (void)state;
    static const struct {
        size_t group, item;
        unsigned long long local;
        const char *mention; /* what the message must say about the limit */
    } limits[] = {{32, 1024, 1 << 20, "at most 32 work-items"},
                  {1024, 4, 1 << 20, "(4 x 4)"},
                  {1024, 1024, 256, "local memory"}};
    static const tc_algorithm all[ALGORITHM_COUNT] = {TC_TILED, TC_TWOPASS, TC_ONEPASS};
    tc_plane in, out;
    tc_device device;
    tc_msg msg = {""};
    tc_job job;
    tc_filter_spec f;
    tc_roi roi = {0, 0, 0, 0, 40, 40};
    assert_int_equal(tc_plane_alloc(&in, 40, 40), 0);
    assert_int_equal(tc_plane_alloc(&out, 40, 40), 0);
    fill_random(&in);
    tc_filter_binomial(&f, 3);
    job = tiled_job(&roi, &f);
    job.count_classes = 0;
    if (tc_device_open(&device, NULL, &msg) != TC_OK)
        fail_msg("tc_device_open: %s", msg.text);
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        tc_device small = device;
        tc_program_cache programs;
        tc_buffers buffers;
        memset(&programs, 0, sizeof programs);
        memset(&buffers, 0, sizeof buffers);
        small.max_group_size = limits[i].group;
        small.max_item_sizes[0] = small.max_item_sizes[1] = limits[i].item;
        small.info.local_mem_bytes = limits[i].local;
        for (int a = 0; a < ALGORITHM_COUNT; a++) {
            tc_run_stats stats;
            tc_msg m = {""};
            job.algorithm = all[a];
            tc_job_decide(&job);
            int rc = tc_run(&small, &programs, &buffers, &job, &in, &out, 0, 1, &stats, &m);
            if (rc == TC_OK)
                tc_run_stats_free(&stats);
            if (rc != TC_EDEVICE || !strstr(m.text, limits[i].mention))
                fail_msg("%s with a group limit of %zu, item limit %zu, local memory %llu: "
                         "status %d, message '%s'", tc_algorithm_name(all[a]), limits[i].group,
                         limits[i].item, limits[i].local, rc, m.text);
        }
        tc_buffers_release(&buffers);
        tc_program_cache_release(&programs);
    }
    tc_device_close(&device);
    tc_plane_free(&in);
    tc_plane_free(&out);
}

/* A random image of this size, for the tests of the API's behaviour below. */
static void random_plane(tc_plane *p, int width, int height)
{
    assert_int_equal(tc_plane_alloc(p, width, height), 0);
    fill_random(p);
}

/* The context keeps its programs: the same settings again build nothing, other filter lengths,
 * border rules and tiled alignment classes build exactly one program each. A context of its own, so that the counts
 * do not depend on what the other tests built. */
static void test_programs_cached(void **state)
{
    (void)state;
    tc_context *c;
    tc_plane in, out;
    tc_params p;
    tc_stats st;
    char err[256] = "";
    rng_state = 5;
    random_plane(&in, 45, 37);
    assert_int_equal(tc_plane_alloc(&out, 45, 37), 0);
    if (tc_open(NULL, &c, err, sizeof err) != TC_OK)
        fail_msg("tc_open: %s", err);
    assert_int_equal(tc_last_stats(c, &st), TC_EINVAL); /* nothing filtered yet */
    assert_int_equal(st.programs_built, 0);
    tc_params_init(&p);
    assert_int_equal(tc_filter(c, in.px, out.px, 45, 37, &p), TC_OK);
    assert_int_equal(tc_last_stats(c, &st), TC_OK);
    assert_int_equal(st.programs_built, 1);
    /* The same settings (another image, another ROI in the same alignment class,
     * (src_left - dst_left) mod 4): no build. */
    p.src_left = 4;
    p.dst_top = 2;
    assert_int_equal(tc_filter(c, out.px, out.px, 45, 37, &p), TC_OK);
    assert_int_equal(tc_last_stats(c, &st), TC_OK);
    assert_int_equal(st.programs_built, 1);
    assert_true(st.build_ms == 0.0);
    /* The tiled kernel's program is built per alignment class: another class builds one
     * more, and going back to the first builds nothing. */
    p.src_left = 3; /* (3 - 0) mod 4 = 3 */
    assert_int_equal(tc_filter(c, out.px, out.px, 45, 37, &p), TC_OK);
    assert_int_equal(tc_last_stats(c, &st), TC_OK);
    assert_int_equal(st.programs_built, 2);
    p.src_left = p.dst_left = 1; /* (1 - 1) mod 4 = 0, the first class */
    assert_int_equal(tc_filter(c, out.px, out.px, 45, 37, &p), TC_OK);
    assert_int_equal(tc_last_stats(c, &st), TC_OK);
    assert_int_equal(st.programs_built, 2);
    /* Another length: one build; another border rule: one more. */
    p.taps_x = p.taps_y = 7;
    assert_int_equal(tc_filter(c, in.px, out.px, 45, 37, &p), TC_OK);
    assert_int_equal(tc_last_stats(c, &st), TC_OK);
    assert_int_equal(st.programs_built, 3);
    p.border = TC_BORDER_REFLECT101;
    assert_int_equal(tc_filter(c, in.px, out.px, 45, 37, &p), TC_OK);
    assert_int_equal(tc_filter(c, in.px, out.px, 45, 37, &p), TC_OK);
    assert_int_equal(tc_last_stats(c, &st), TC_OK);
    assert_int_equal(st.programs_built, 4);
    tc_close(c);
    tc_plane_free(&in);
    tc_plane_free(&out);
}

/* A failed call leaves the context usable: a ROI outside the image is refused with a message
 * naming the field, and the next call filters as if nothing had happened. */
static void test_context_survives_failure(void **state)
{
    (void)state;
    const int width = 40, height = 30;
    tc_plane in, out, expected;
    tc_params p;
    char err[256] = "";
    rng_state = 11;
    random_plane(&in, width, height);
    assert_int_equal(tc_plane_alloc(&out, width, height), 0);
    assert_int_equal(tc_plane_alloc(&expected, width, height), 0);
    tc_params_init(&p);
    p.taps_x = p.taps_y = 5;
    p.src_left = width; /* one past the last column */
    assert_int_equal(tc_filter(ctx, in.px, out.px, width, height, &p), TC_EINVAL);
    if (!strstr(tc_error(ctx), "src_left"))
        fail_msg("the message does not name src_left: '%s'", tc_error(ctx));

    p.src_left = 2;
    p.dst_left = 1;
    p.dst_top = 3;
    memset(out.px, 0xff, (size_t)width * height * sizeof(float));
    if (tc_filter(ctx, in.px, out.px, width, height, &p) != TC_OK)
        fail_msg("after a failure: %s", tc_error(ctx));
    assert_string_equal(tc_error(ctx), "");
    if (tc_reference(in.px, expected.px, width, height, &p, err, sizeof err) != TC_OK)
        fail_msg("tc_reference: %s", err);
    const tc_roi roi = {2, 0, 1, 3, width - 2, height - 3};
    const double tolerance = tc_tolerance(in.px, width, height, &p);
    assert_true(tolerance > 0.0);
    tc_verify_result v = verify_compare(&expected, &out, &roi, tolerance, stderr, 3);
    assert_int_equal(v.mismatches, 0);
    tc_plane_free(&in);
    tc_plane_free(&out);
    tc_plane_free(&expected);
}

/* src == dst: the same result as into a plane of its own, bit for bit, for every algorithm,
 * with source and target ROIs that overlap. */
static void test_in_place(void **state)
{
    (void)state;
    static const tc_algorithm all[ALGORITHM_COUNT] = {TC_TILED, TC_TWOPASS, TC_ONEPASS};
    const int width = 70, height = 45;
    const size_t bytes = (size_t)width * height * sizeof(float);
    tc_plane in, out, same;
    tc_params p;
    rng_state = 13;
    random_plane(&in, width, height);
    assert_int_equal(tc_plane_alloc(&out, width, height), 0);
    assert_int_equal(tc_plane_alloc(&same, width, height), 0);
    for (int a = 0; a < ALGORITHM_COUNT; a++) {
        tc_params_init(&p);
        p.taps_x = p.taps_y = 5;
        p.algorithm = all[a];
        p.src_left = 3;
        p.src_top = 1;
        p.dst_left = 1;
        p.dst_top = 4;
        memcpy(same.px, in.px, bytes);
        assert_int_equal(tc_filter(ctx, in.px, out.px, width, height, &p), TC_OK);
        assert_int_equal(tc_filter(ctx, same.px, same.px, width, height, &p), TC_OK);
        if (memcmp(same.px, out.px, bytes) != 0)
            fail_msg("%s: in place differs from out of place", tc_algorithm_name(all[a]));
    }
    tc_plane_free(&in);
    tc_plane_free(&out);
    tc_plane_free(&same);
}

/* tc_filter_timed: the plane tc_filter gives, and the figures of every timed run. */
static void test_filter_timed(void **state)
{
    (void)state;
    static const tc_algorithm all[ALGORITHM_COUNT] = {TC_TILED, TC_TWOPASS, TC_ONEPASS};
    const int width = 77, height = 50;
    const size_t bytes = (size_t)width * height * sizeof(float);
    tc_plane in, once, timed;
    tc_params p;
    tc_stats st;
    rng_state = 17;
    random_plane(&in, width, height);
    assert_int_equal(tc_plane_alloc(&once, width, height), 0);
    assert_int_equal(tc_plane_alloc(&timed, width, height), 0);
    for (int a = 0; a < ALGORITHM_COUNT; a++) {
        long classes[4];
        tc_params_init(&p);
        p.taps_x = p.taps_y = 3;
        p.algorithm = all[a];
        p.src_left = 5;
        p.dst_top = 2;
        p.count_classes = 1;
        assert_int_equal(tc_filter(ctx, in.px, once.px, width, height, &p), TC_OK);
        assert_int_equal(tc_last_stats(ctx, &st), TC_OK);
        assert_int_equal(st.iterations, 1);
        memcpy(classes, st.classes, sizeof classes);
        memset(timed.px, 0xff, bytes);
        assert_int_equal(tc_filter_timed(ctx, in.px, timed.px, width, height, &p, 3), TC_OK);
        if (memcmp(timed.px, once.px, bytes) != 0)
            fail_msg("%s: tc_filter_timed's plane differs from tc_filter's",
                     tc_algorithm_name(all[a]));
        assert_int_equal(tc_last_stats(ctx, &st), TC_OK);
        assert_int_equal(st.algorithm, all[a]);
        assert_int_equal(st.iterations, 3);
        assert_non_null(st.kernel_ms);
        assert_true(st.kernel_ms_min <= st.kernel_ms_median);
        /* tiled: the warm-up and the three timed runs counted each group once per run. */
        if (all[a] == TC_TILED)
            assert_memory_equal(st.classes, classes, sizeof classes);
    }
    tc_plane_free(&in);
    tc_plane_free(&once);
    tc_plane_free(&timed);
}


/* ---- Lengths per axis, long filters, masks --------------------------------------------- */

/* These cases build a program per filter size, border rule and (tiled) source alignment
 * (sL - tL) mod 4; PoCL takes about a second for each. So each size below keeps one border rule
 * and one alignment over its cases, the rules and alignments going round from size to size:
 * every rule and alignment met, a few dozen programs in all. */

/* Moves the tROI's left edge (by less than 4 columns, the width shrinking if the image needs
 * it) so that (sL - tL) mod 4 = shift; a ROI too narrow to shrink keeps its own. */
static void force_shift(tc_roi *roi, int width, int shift)
{
    int move = ((roi->src_left - roi->dst_left - shift) % 4 + 4) % 4; /* tL + move: aligned */
    int dst = roi->dst_left + move;
    if (dst + roi->width > width) {
        dst -= 4;
        if (dst < 0)
            return;
    }
    roi->dst_left = dst;
}

/* A random mask of this size, weights -1 .. 1 with two decimals (rank 2 or more: the tests
 * check, so that the 2-D kernels are what runs), with this border rule. */
static void random_mask(tc_filter_spec *f, int w, int h, tc_border border)
{
    float m[TC_MAX_MASK_TAPS];
    for (int k = 0; k < w * h; k++)
        m[k] = (float)(rng_next() % 201) / 100.0f - 1.0f;
    tc_filter_binomial(f, 3);
    tc_filter_set_mask(f, m, w, h);
    f->border = border;
    f->border_value = (float)(rng_next() % 256);
}

/* Lengths per axis (3 x 15, 15 x 3, 63 x 1, 1 x 9, 9 x 1, 5 x 3, 1 x 31) on random ROIs and
 * one whose edges fall on the tiles' boundaries (tiled_conv's 32 x 64, the long kernel's
 * 32 x 256). */
static void test_per_axis_lengths(void **state)
{
    static const int lengths[][2] = {{3, 15}, {15, 3}, {63, 1}, {1, 9}, {9, 1}, {5, 3}, {1, 31}};
    rng_state = 1515;
    for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++)
        for (int i = 0; i < 5; i++) {
            int width, height;
            tc_roi roi;
            random_case(i < 2 ? 20 : 150, i < 2 ? 20 : 140, i % 2, &width, &height, &roi,
                        i % 3 == 0);
            if (i == 4) { /* edges on the tile grid */
                width = 133;
                height = 259;
                const tc_roi edge = {1, 2, 3, 1, 129, 256};
                roi = edge;
            }
            force_shift(&roi, width, (int)l % 4);
            char label[48];
            snprintf(label, sizeof label, "per-axis case %d", i);
            check_case_xy(alg_of(state), width, height, roi, lengths[l][0], lengths[l][1],
                          (tc_border)(l % TC_BORDER_COUNT), label);
        }
}

/* Long lengths: the tiled kernel (tiled_long_conv) at 12 lengths from 17 to 63 whose radii
 * cover every residue mod 4 (its read windows' alignment depends on it), the others (the same
 * code with another radius) at 5; the border rule going round with the length so that each
 * rule meets several lengths; then every rule at 63 on a ROI smaller than the filter, where
 * reflections repeat. Small images: the reference's 63 x 63 products a pixel are the cost, and
 * the long kernel's classes are test_long_class_boundaries's. Programs are what the suite's
 * time is (PoCL builds each in a second or two), hence not every odd length. */
static void test_long_lengths(void **state)
{
    static const int tiled_lengths[] = {17, 19, 21, 23, 25, 31, 33, 39, 47, 55, 61, 63};
    static const int other_lengths[] = {17, 23, 33, 47, 63};
    const tc_algorithm alg = alg_of(state);
    const int *lengths = alg == TC_TILED ? tiled_lengths : other_lengths;
    const int count = alg == TC_TILED ? 12 : 5;
    rng_state = 1717;
    for (int l = 0; l < count; l++) {
        int width, height;
        tc_roi roi;
        random_case(100, 90, l % 3 == 1, &width, &height, &roi, l % 3 == 0);
        check_case_border(alg, width, height, roi, lengths[l],
                          (tc_border)(l % TC_BORDER_COUNT), "long length");
    }
    for (int b = 0; b < TC_BORDER_COUNT; b++) {
        const tc_roi small = {3, 2, 1, 4, 9, 7};
        check_case_border(alg, 20, 15, small, 63, (tc_border)b,
                          "63 taps, a ROI smaller than the filter");
    }
}

/* The long kernel's class boundaries: ROI edges at k x tile and k x tile +- the radius and
 * +- the apron, for 17 and 63 taps (tiles of 32 x 256 on the source's 4-grid). */
static void test_long_class_boundaries(void **state)
{
    static const int extents[][2] = {{32, 256}, {48, 272}, {64, 512}, {72, 280}, {95, 318},
                                     {96, 319}, {97, 320}, {127, 62}, {128, 574}, {160, 575}};
    (void)state;
    rng_state = 1818;
    for (int taps = 17; taps <= 63; taps += 46)
        for (size_t e = 0; e < sizeof extents / sizeof extents[0]; e++) {
            const int w = extents[e][0], h = extents[e][1], off = (int)e % 4;
            const tc_roi roi = {off, off + 1, 2 + (int)e % 3, 1, w, h};
            check_case_border(TC_TILED, w + 8, h + 4, roi, taps,
                              taps == 17 ? TC_BORDER_REPLICATE : TC_BORDER_REFLECT101,
                              "long class boundary");
        }
}

/* Masks of every kind of shape, with random weights: 1 x 3, 3 x 1 (always rank 1, so
 * factored), 3 x 3, 5 x 3, 7 x 7, 15 x 15 (rank 2 or more: the 2-D kernels for tiled and
 * onepass; twopass refuses them: test_masks_twopass), on random ROIs. */
static void test_masks(void **state)
{
    static const int sizes[][2] = {{1, 3}, {3, 1}, {3, 3}, {5, 3}, {7, 7}, {15, 15}};
    const tc_algorithm alg = alg_of(state);
    rng_state = 1919;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int i = 0; i < 6; i++) {
            int width, height;
            tc_roi roi;
            tc_filter_spec f;
            random_case(i < 2 ? 16 : 130, i < 2 ? 16 : 120, i % 2, &width, &height, &roi,
                        i % 3 == 0);
            force_shift(&roi, width, (int)(s + 1) % 4);
            random_mask(&f, sizes[s][0], sizes[s][1], (tc_border)(s % TC_BORDER_COUNT));
            const int rank1 = sizes[s][0] == 1 || sizes[s][1] == 1;
            assert_int_equal(f.mask_separable, rank1);
            if (alg == TC_TWOPASS && !f.mask_separable)
                continue;
            check_filter_case(alg, width, height, roi, &f, "random mask");
        }
}

/* The mask kernels (tiled and onepass) on their tile grids (tiled_mask_conv: 32 x 32 pixels
 * for 3-row masks, 32 x 64 for taller ones, config.h): ROI edges on and around the tile boundaries and the radii, every
 * alignment of the source against the target (the program's SHIFT); 3 x 3 masks with a
 * replicate border, 5 x 3 with reflect101; then an image large enough for class 1 at both. */
static void test_mask_class_boundaries(void **state)
{
    static const int extents[] = {1, 2, 31, 32, 33, 34, 63, 64, 65, 66, 96, 97};
    const tc_algorithm alg = alg_of(state);
    rng_state = 2020;
    for (size_t e = 0; e < sizeof extents / sizeof extents[0]; e++) {
        const int w = extents[e], h = extents[(e + 5) % 12], off = (int)e % 4;
        const int width = w + 2 * off + 3, height = h + 2 * off + 1;
        tc_roi roi = {off, off, width - w, height - h, w, h};
        tc_filter_spec f;
        force_shift(&roi, width, (int)(e / 2) % 4);
        random_mask(&f, e % 2 ? 5 : 3, 3, e % 2 ? TC_BORDER_REFLECT101 : TC_BORDER_REPLICATE);
        check_filter_case(alg, width, height, roi, &f, "mask class boundary");
    }
    for (int k = 0; k < 2; k++) {
        const tc_roi roi = {3 + k, 5, 2 + k, 1, 150, 190};
        tc_filter_spec f;
        random_mask(&f, k ? 5 : 3, 3, k ? TC_BORDER_REFLECT101 : TC_BORDER_REPLICATE);
        check_filter_case(alg, 160, 200, roi, &f, "mask, every class");
    }
}

/* A rank-1 mask is factored and runs the separable kernels (twopass too); with
 * the tuning's mask-2d the same masks run the 2-D kernels, also the 1 x 3 and 3 x 1 ones that
 * can only be rank 1: both paths against the reference's 2-D sums. */
static void test_masks_rank1(void **state)
{
    static const float b5[5] = {1, 4, 6, 4, 1}, d3[3] = {-1, 0, 1};
    float m[15];
    const tc_algorithm alg = alg_of(state);
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 5; i++)
            m[j * 5 + i] = d3[j] * b5[i] / 16.0f;
    rng_state = 2121;
    for (int two_d = 0; two_d < 2; two_d++) {
        if (two_d && alg == TC_TWOPASS)
            break; /* twopass refuses a mask on the 2-D path */
        if (two_d)
            test_tune("mask-2d=1");
        for (int i = 0; i < 4; i++) {
            int width, height;
            tc_roi roi;
            tc_filter_spec f;
            random_case(120, 100, i % 2, &width, &height, &roi, i == 0);
            force_shift(&roi, width, 1);
            tc_filter_binomial(&f, 3);
            if (i < 2) {
                tc_filter_set_mask(&f, m, 5, 3);
            } else {
                float k[3] = {0.5f, -2.0f, 0.25f};
                tc_filter_set_mask(&f, k, i == 2 ? 3 : 1, i == 2 ? 1 : 3);
            }
            assert_int_equal(f.mask_separable, !two_d);
            f.border = i < 2 ? TC_BORDER_CONSTANT : TC_BORDER_WRAP;
            f.border_value = 7.0f;
            check_filter_case(alg, width, height, roi, &f,
                              two_d ? "rank-1 mask, 2-D path" : "rank-1 mask, factored");
        }
        test_untune();
    }
}

/* twopass and a mask that is not rank 1: TC_EINVAL naming the mask, nothing filtered. */
static void test_masks_twopass(void **state)
{
    (void)state;
    static const float lap[9] = {0, 1, 0, 1, -4, 1, 0, 1, 0};
    float in[64], out[64];
    tc_params p;
    for (int i = 0; i < 64; i++)
        in[i] = out[i] = (float)i;
    tc_params_init(&p);
    p.mask = lap;
    p.mask_width = p.mask_height = 3;
    p.algorithm = TC_TWOPASS;
    assert_int_equal(tc_filter(ctx, in, out, 8, 8, &p), TC_EINVAL);
    if (!strstr(tc_error(ctx), "not separable"))
        fail_msg("message: '%s'", tc_error(ctx));
    for (int i = 0; i < 64; i++)
        assert_true(out[i] == (float)i);
}

static int open_device(void **state)
{
    (void)state;
    char err[256] = "";
    tc_device_info info;
    if (tc_open(NULL, &ctx, err, sizeof err) != TC_OK) {
        print_error("tc_open: %s\n", err);
        return -1;
    }
    if (tc_context_device(ctx, &info) == TC_OK)
        print_message("device: %s\n", info.name);
    device_local_mem = info.local_mem_bytes;
    return 0;
}

static int close_device(void **state)
{
    (void)state;
    for (int a = 0; a < ALGORITHM_COUNT; a++)
        print_message("%s: %ld cases compared pixel by pixel\n",
                      tc_algorithm_name((tc_algorithm)a), cases_run[a]);
    print_message("programs built for the cases: %ld, %.1f s (TEST_KERNELS_BUILDS=1 lists "
                  "them)\n", builds_seen, build_ms_seen / 1000.0);
    tc_close(ctx);
    ctx = NULL;
    return 0;
}

/* A job's kernel is decided once, when it is made: every maker's decision (params.c for each
 * algorithm, length and variant that takes the filter; split.c's two passes) is what the rule
 * decides for the finished job, so no later change of a job leaves its kernel behind. */
static void test_jobs_decide_their_kernel_once(void **state)
{
    (void)state;
    static const tc_algorithm all[] = {TC_TILED, TC_TWOPASS, TC_ONEPASS, TC_BILINEAR};
    static const int lengths[] = {1, 3, 5, 7, 9, 11, 15, 17, 31, 63};
    int count, checked = 0, split = 0;
    const tc_variant *v = tc_variants(&count);
    for (size_t a = 0; a < sizeof all / sizeof all[0]; a++)
        for (size_t t = 0; t < sizeof lengths / sizeof lengths[0]; t++)
            for (int i = -1; i < count; i++) {
                tc_params p;
                tc_job job, rows, cols;
                tc_msg m = {""};
                tc_params_init(&p);
                p.algorithm = all[a];
                p.taps_x = p.taps_y = lengths[t];
                p.kernel = i < 0 ? NULL : v[i].name;
                if (tc_job_from_params(&p, 64, 48, &job, &m) != TC_OK)
                    continue; /* a variant that does not take the filter */
                assert_int_equal(job.kernel, tc_kernel_deciding(&job));
                checked++;
                if (job.kernel != TC_KERNEL_TILED_SPLIT)
                    continue;
                tc_split_jobs(&job, &rows, &cols);
                assert_int_equal(rows.kernel, TC_KERNEL_TILED_ROWS);
                assert_int_equal(rows.kernel, tc_kernel_deciding(&rows));
                assert_int_equal(cols.kernel, tc_kernel_deciding(&cols));
                split++;
            }
    assert_true(checked > 40);
    assert_true(split > 0);
}

static const tc_algorithm algorithms[ALGORITHM_COUNT] = {TC_TILED, TC_TWOPASS, TC_ONEPASS};

#define FOR_ALGORITHM(a)                                                                       \
    cmocka_unit_test_prestate(test_image_sizes, (void *)&algorithms[a]),                     \
        cmocka_unit_test_prestate(test_class_boundaries, (void *)&algorithms[a]),            \
        cmocka_unit_test_prestate(test_random_rois, (void *)&algorithms[a]),                 \
        cmocka_unit_test_prestate(test_borders_and_lengths, (void *)&algorithms[a]),         \
        cmocka_unit_test_prestate(test_per_axis_lengths, (void *)&algorithms[a]),            \
        cmocka_unit_test_prestate(test_long_lengths, (void *)&algorithms[a]),                \
        cmocka_unit_test_prestate(test_masks, (void *)&algorithms[a]),                       \
        cmocka_unit_test_prestate(test_masks_rank1, (void *)&algorithms[a])

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jobs_decide_their_kernel_once),
        cmocka_unit_test(test_class_counts_by_hand),
        cmocka_unit_test(test_long_rows_default_by_border),
        cmocka_unit_test(test_register_budgets),
        cmocka_unit_test(test_mask_default_by_size),
        cmocka_unit_test(test_long_variants),
        cmocka_unit_test(test_device_limits_refused),
        FOR_ALGORITHM(TC_TILED),
        cmocka_unit_test(test_alignment_classes),
        cmocka_unit_test(test_kernel_variants),
        cmocka_unit_test(test_tiled_geometries),
        cmocka_unit_test(test_long_class_boundaries),
        cmocka_unit_test_prestate(test_mask_class_boundaries, (void *)&algorithms[TC_TILED]),
        cmocka_unit_test(test_slide_variants),
        cmocka_unit_test(test_slide_class_boundaries),
        cmocka_unit_test(test_mask_variants),
        cmocka_unit_test(test_rows_and_split_variants),
        cmocka_unit_test(test_all_classes_occurred),
        FOR_ALGORITHM(TC_TWOPASS),
        FOR_ALGORITHM(TC_ONEPASS),
        cmocka_unit_test_prestate(test_mask_class_boundaries, (void *)&algorithms[TC_ONEPASS]),
        cmocka_unit_test(test_programs_cached),
        cmocka_unit_test(test_context_survives_failure),
        cmocka_unit_test(test_in_place),
        cmocka_unit_test(test_filter_timed),
        cmocka_unit_test(test_masks_twopass),
    };
    return cmocka_run_group_tests_name("kernels", tests, open_device, close_device);
}
