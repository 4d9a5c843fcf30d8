/*
 * test_kernels.c - every algorithm against the CPU reference, through one table of cases run
 * once per algorithm: whole images of awkward sizes, ROIs on tile and class boundaries,
 * 300 seeded random ROI combinations for both of SPEC.md's filter lengths, and every border
 * rule with lengths up to 15; plus the tiled kernel's other block geometries.
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
#include "launch.h"
#include "programs.h"
#include "reference.h"
#include "tiledconv.h"
#include "verify.h"

#define RANDOM_CASES 300
#define ALGORITHM_COUNT 3

static tc_context *ctx;
static long tiled_classes_seen[4]; /* summed over every tiled case run */
static long cases_run[ALGORITHM_COUNT];

/* The tiled kernel's block and float4 paths for the cases that follow: the defaults, except
 * while test_tiled_geometries runs. */
static int tiled_block_x = TC_TILED_BLOCK_X, tiled_block_y = TC_TILED_BLOCK_Y;
static int tiled_vector_io = 1;

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
    p.taps_x = p.taps_y = f->taps;
    p.kx = f->kx;
    p.ky = f->ky;
    p.src_left = roi->src_left;
    p.src_top = roi->src_top;
    p.dst_left = roi->dst_left;
    p.dst_top = roi->dst_top;
    p.roi_width = roi->width;
    p.roi_height = roi->height;
    p.border = f->border;
    p.border_value = f->border_value;
    p.algorithm = alg;
    p.block_width = tiled_block_x;
    p.block_height = tiled_block_y;
    p.vector_io = tiled_vector_io;
    p.count_classes = 1;
    return p;
}

/* The launchers' view of the same tiled run, for the host's class prediction. */
static tc_job tiled_job(const tc_roi *roi, const tc_filter_spec *f)
{
    tc_job job;
    memset(&job, 0, sizeof job);
    job.algorithm = TC_TILED;
    job.filter = *f;
    job.roi = *roi;
    job.block_x = tiled_block_x;
    job.block_y = tiled_block_y;
    job.vector_io = tiled_vector_io;
    job.count_classes = 1;
    return job;
}

/* Runs one algorithm on one case and compares the whole plane with the reference. */
static void check_case_border(tc_algorithm alg, int width, int height, tc_roi roi, int taps,
                              tc_border border, const char *label)
{
    tc_plane in, out, expected;
    tc_filter_spec f;
    tc_stats stats;
    assert_int_equal(tc_plane_alloc(&in, width, height), 0);
    assert_int_equal(tc_plane_alloc(&out, width, height), 0);
    assert_int_equal(tc_plane_alloc(&expected, width, height), 0);
    fill_random(&in);
    tc_filter_binomial(&f, taps);
    f.border = border;
    f.border_value = (float)(rng_next() % 256);
    if (rng_next() % 2) { /* half the cases with asymmetric, unequal row and column filters */
        for (int i = 0; i < taps; i++) {
            f.kx[i] = (float)(rng_next() % 200) / 100.0f - 1.0f;
            f.ky[i] = (float)(rng_next() % 200) / 100.0f - 1.0f;
        }
    }
    memset(out.px, 0xff, (size_t)width * height * sizeof(float)); /* NaN: a missed pixel shows */

    const tc_params p = params_for(alg, &roi, &f);
    int rc = tc_filter(ctx, in.px, out.px, width, height, &p);
    if (rc != TC_OK)
        fail_msg("%s %s: run failed: %s", tc_algorithm_name(alg), label, tc_error(ctx));
    assert_int_equal(tc_last_stats(ctx, &stats), TC_OK);
    assert_int_equal(reference_convolve(&in, &roi, &f, &expected), TC_OK);
    tc_verify_result v = verify_compare(&expected, &out, &roi, reference_tolerance(&in, &f),
                                        stderr, 3);
    if (v.mismatches)
        fail_msg("%s, %d taps, %s border, %s: image %d x %d, sROI (%d, %d), tROI (%d, %d), "
                 "%d x %d: %ld mismatches", tc_algorithm_name(alg), taps, tc_border_name(border),
                 label, width, height, roi.src_left, roi.src_top, roi.dst_left, roi.dst_top,
                 roi.width, roi.height, v.mismatches);
    if (alg == TC_TILED) {
        /* The kernel counted its groups' classes (count_classes): they must be the classes
         * the host predicts, and they are what the class coverage test sums. */
        long predicted[4];
        const tc_job job = tiled_job(&roi, &f);
        tc_tiled_classes(&job, tc_device_pitch(width), predicted);
        assert_true(stats.classes_counted);
        for (int c = 0; c < 4; c++) {
            if (stats.classes[c] != predicted[c])
                fail_msg("%s: class %d: the kernel ran %ld groups, the host predicted %ld", label,
                         c + 1, stats.classes[c], predicted[c]);
            tiled_classes_seen[c] += stats.classes[c];
        }
    }
    cases_run[alg]++;
    tc_plane_free(&in);
    tc_plane_free(&out);
    tc_plane_free(&expected);
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
 * radius, where reflections repeat). */
static void test_borders_and_lengths(void **state)
{
    static const int lengths[] = {3, 5, 7, 9, 11, 15};
    rng_state = 7;
    for (int b = 0; b < TC_BORDER_COUNT; b++)
        for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++)
            for (int i = 0; i < 10; i++) {
                int width, height;
                tc_roi roi;
                random_case(i < 3 ? 12 : 110, i < 3 ? 12 : 90, i % 2, &width, &height, &roi,
                            i % 3 == 0);
                char label[48];
                snprintf(label, sizeof label, "border/length case %d", i);
                check_case_border(alg_of(state), width, height, roi, lengths[l],
                                  (tc_border)b, label);
            }
}

/* Issue 13: every alignment class of the tiled kernel: sL mod 4 x tL mod 4 (the program's
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

/* The variants TiledConv.cl keeps as build options (bench/, through TILEDCONV_CL_OPTIONS),
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
        if (setenv("TILEDCONV_CL_OPTIONS", variants[v].options, 1) != 0)
            fail_msg("setenv");
        for (int l = 0; l < 2 && variants[v].taps[l]; l++) {
            const int width = 120, height = 150;
            const tc_roi roi = {3 + (int)v % 4, 5, 1 + l, 2, width - 7, height - 6};
            char label[96];
            snprintf(label, sizeof label, "variant %s", variants[v].options);
            check_case_border(TC_TILED, width, height, roi, variants[v].taps[l],
                              (tc_border)((v + (size_t)l) % TC_BORDER_COUNT), label);
        }
    }
    unsetenv("TILEDCONV_CL_OPTIONS");
}

/* The tiled kernel with other blocks per work-item and without float4 I/O: the tuning options
 * must compute the same function. */
static void test_tiled_geometries(void **state)
{
    (void)state;
    static const int blocks[][3] = {{4, 4, 0}, {4, 2, 1}, {4, 8, 1}, {8, 4, 1}, {8, 8, 1},
                                    {4, 1, 1}, {8, 16, 0}};
    rng_state = 99;
    for (size_t g = 0; g < sizeof blocks / sizeof blocks[0]; g++) {
        tiled_block_x = blocks[g][0];
        tiled_block_y = blocks[g][1];
        tiled_vector_io = blocks[g][2];
        for (int i = 0; i < 24; i++) {
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

/* The tiled cases above must have exercised all four of the article's classes, or the class
 * paths are not what was tested. The counts are the kernel's own (an atomic add per group).
 * Runs after the tiled cases (cmocka keeps the order). */
static void test_all_classes_occurred(void **state)
{
    (void)state;
    print_message("tiled work-groups run: class 1 %ld, class 2 %ld, class 3 %ld, class 4 %ld\n",
                  tiled_classes_seen[0], tiled_classes_seen[1], tiled_classes_seen[2],
                  tiled_classes_seen[3]);
    for (int c = 0; c < 4; c++)
        assert_true(tiled_classes_seen[c] > 0);
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
    tc_tiled_classes(&job, 100, classes);
    /* tiles at l = 0, 32, 64, 96 and t = 0, 32, 64. Free on read: l in {32, 64}? 64 + 33 = 97
     * <= 100 yes; t = 32: 32 + 33 = 65 <= 70 yes. So (32, 32) and (64, 32): 2 of 12. Free on
     * write: l + 32 <= 100 (l = 0, 32, 64) and t + 32 <= 70 (t = 0, 32): 6 of 12. */
    assert_int_equal(classes[0], 2);
    assert_int_equal(classes[1], 10);
    assert_int_equal(classes[2], 6);
    assert_int_equal(classes[3], 6);
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
    return 0;
}

static int close_device(void **state)
{
    (void)state;
    for (int a = 0; a < ALGORITHM_COUNT; a++)
        print_message("%s: %ld cases compared pixel by pixel\n",
                      tc_algorithm_name((tc_algorithm)a), cases_run[a]);
    tc_close(ctx);
    ctx = NULL;
    return 0;
}

static const tc_algorithm algorithms[ALGORITHM_COUNT] = {TC_TILED, TC_TWOPASS, TC_ONEPASS};

#define FOR_ALGORITHM(a)                                                                       \
    cmocka_unit_test_prestate(test_image_sizes, (void *)&algorithms[a]),                     \
        cmocka_unit_test_prestate(test_class_boundaries, (void *)&algorithms[a]),            \
        cmocka_unit_test_prestate(test_random_rois, (void *)&algorithms[a]),                 \
        cmocka_unit_test_prestate(test_borders_and_lengths, (void *)&algorithms[a])

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_class_counts_by_hand),
        cmocka_unit_test(test_device_limits_refused),
        FOR_ALGORITHM(TC_TILED),
        cmocka_unit_test(test_alignment_classes),
        cmocka_unit_test(test_kernel_variants),
        cmocka_unit_test(test_tiled_geometries),
        cmocka_unit_test(test_all_classes_occurred),
        FOR_ALGORITHM(TC_TWOPASS),
        FOR_ALGORITHM(TC_ONEPASS),
        cmocka_unit_test(test_programs_cached),
        cmocka_unit_test(test_context_survives_failure),
        cmocka_unit_test(test_in_place),
        cmocka_unit_test(test_filter_timed),
    };
    return cmocka_run_group_tests_name("kernels", tests, open_device, close_device);
}
