/*
 * test_kernels.c - every algorithm against the CPU reference, through one table of cases run
 * once per algorithm: whole images of awkward sizes, ROIs on tile and class boundaries,
 * 300 seeded random ROI combinations for both of SPEC.md's filter lengths, and every border
 * rule with lengths up to 15; plus the tiled kernel's other block geometries.
 *
 * Runs on the default OpenCL device (PoCL's CPU device in CI). Every pixel of the whole plane
 * is compared, so a write outside the target ROI fails as surely as a wrong value inside it.
 */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convolve.h"
#include "reference.h"

#define RANDOM_CASES 300

static ocl_env env;
static tc_session session;
static long tiled_classes_seen[4]; /* summed over every tiled case run */
static long cases_run[TC_ALG_COUNT];

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

/* Runs one algorithm on one case and compares the whole plane with the reference. */
static void check_case_border(tc_algorithm alg, int width, int height, tc_roi roi, int taps,
                              tc_border_mode border, const char *label)
{
    tc_plane in, out, expected;
    tc_filter f;
    tc_run_stats stats;
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

    int rc = tc_algorithm_run(alg)(&session, &in, &roi, &f, 1, &out, &stats);
    if (rc != 0)
        fail_msg("%s %s: run failed", tc_algorithm_name(alg), label);
    reference_convolve(&in, &roi, &f, &expected);
    tc_verify_result v = reference_compare(&expected, &out, &roi,
                                           reference_tolerance(&in, &f), stderr, 3);
    if (v.mismatches)
        fail_msg("%s, %d taps, %s border, %s: image %d x %d, sROI (%d, %d), tROI (%d, %d), "
                 "%d x %d: %ld mismatches", tc_algorithm_name(alg), taps, tc_border_name(border),
                 label, width, height, roi.src_left, roi.src_top, roi.dst_left, roi.dst_top,
                 roi.width, roi.height, v.mismatches);
    if (alg == TC_ALG_TILED) {
        /* The kernel counted its groups' classes (tc_session_count_classes): they must be the
         * classes the host predicts, and they are what the class coverage test sums. */
        long predicted[4];
        tc_tiled_classes(&session, &roi, tc_device_pitch(width), (taps - 1) / 2, predicted);
        assert_true(stats.classes_counted);
        for (int c = 0; c < 4; c++) {
            if (stats.classes[c] != predicted[c])
                fail_msg("%s: class %d: the kernel ran %ld groups, the host predicted %ld", label,
                         c + 1, stats.classes[c], predicted[c]);
            tiled_classes_seen[c] += stats.classes[c];
        }
    }
    cases_run[alg]++;
    tc_run_stats_free(&stats);
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
                                  (tc_border_mode)b, label);
            }
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
        assert_int_equal(tc_session_set_tiled(&session, blocks[g][0], blocks[g][1],
                                              blocks[g][2]), 0);
        for (int i = 0; i < 24; i++) {
            int width, height;
            tc_roi roi;
            random_case(200, 150, i % 2, &width, &height, &roi, i % 3 == 0);
            char label[64];
            snprintf(label, sizeof label, "block %dx%d%s case %d", blocks[g][0], blocks[g][1],
                     blocks[g][2] ? "" : " scalar", i);
            check_case(TC_ALG_TILED, width, height, roi, i % 2 ? 5 : 3, label);
        }
    }
    assert_int_equal(tc_session_set_tiled(&session, TC_TILED_BLOCK_X, TC_TILED_BLOCK_Y, 1), 0);
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
    tc_tiled_classes(&session, &roi, 100, 1, classes);
    /* tiles at l = 0, 32, 64, 96 and t = 0, 32, 64. Free on read: l in {32, 64}? 64 + 33 = 97
     * <= 100 yes; t = 32: 32 + 33 = 65 <= 70 yes. So (32, 32) and (64, 32): 2 of 12. Free on
     * write: l + 32 <= 100 (l = 0, 32, 64) and t + 32 <= 70 (t = 0, 32): 6 of 12. */
    assert_int_equal(classes[0], 2);
    assert_int_equal(classes[1], 10);
    assert_int_equal(classes[2], 6);
    assert_int_equal(classes[3], 6);
}

/* A device whose limits a kernel exceeds is refused before the launch (status 1, a message),
 * not left to fail inside OpenCL. The limits are the real device's, lowered in a copy. */
static void test_device_limits_refused(void **state)
{
    (void)state;
    static const struct {
        size_t group, item;
        cl_ulong local;
    } limits[] = {{32, 1024, 1 << 20}, {1024, 4, 1 << 20}, {1024, 1024, 256}};
    tc_plane in, out;
    tc_filter f;
    tc_roi roi = {0, 0, 0, 0, 40, 40};
    assert_int_equal(tc_plane_alloc(&in, 40, 40), 0);
    assert_int_equal(tc_plane_alloc(&out, 40, 40), 0);
    fill_random(&in);
    tc_filter_binomial(&f, 3);
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        ocl_env small = env;
        tc_session s;
        tc_run_stats stats;
        small.max_group_size = limits[i].group;
        small.max_item_sizes[0] = small.max_item_sizes[1] = limits[i].item;
        small.local_mem_size = limits[i].local;
        tc_session_init(&s, &small);
        for (int a = 0; a < TC_ALG_COUNT; a++)
            if (tc_algorithm_run((tc_algorithm)a)(&s, &in, &roi, &f, 1, &out, &stats) != 1)
                fail_msg("%s ran with a group limit of %zu, item limit %zu, local memory %lu",
                         tc_algorithm_name((tc_algorithm)a), limits[i].group, limits[i].item,
                         (unsigned long)limits[i].local);
        tc_session_release(&s);
    }
    tc_plane_free(&in);
    tc_plane_free(&out);
}

static int open_device(void **state)
{
    (void)state;
    ocl_selection sel = {-1, -1, OCL_TYPE_DEFAULT};
    if (ocl_env_open(&env, &sel) != 0)
        return -1;
    tc_session_init(&session, &env);
    tc_session_count_classes(&session, 1);
    print_message("device: %s\n", env.device_name);
    return 0;
}

static int close_device(void **state)
{
    (void)state;
    for (int a = 0; a < TC_ALG_COUNT; a++)
        print_message("%s: %ld cases compared pixel by pixel\n",
                      tc_algorithm_name((tc_algorithm)a), cases_run[a]);
    tc_session_release(&session);
    ocl_env_close(&env);
    return 0;
}

static const tc_algorithm algorithms[TC_ALG_COUNT] = {TC_ALG_TILED, TC_ALG_TWOPASS,
                                                      TC_ALG_ONEPASS};

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
        FOR_ALGORITHM(TC_ALG_TILED),
        cmocka_unit_test(test_tiled_geometries),
        cmocka_unit_test(test_all_classes_occurred),
        FOR_ALGORITHM(TC_ALG_TWOPASS),
        FOR_ALGORITHM(TC_ALG_ONEPASS),
    };
    return cmocka_run_group_tests_name("kernels", tests, open_device, close_device);
}
