/* test_util.h - what every cmocka suite includes, in the order cmocka requires. */
#ifndef TILEDCONV_TEST_UTIL_H
#define TILEDCONV_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* The repository root, so that suites find images/ and tests/data/ from any working directory.
 * The Makefile runs the suites from the root; TILEDCONV_ROOT overrides. */
#include <stdlib.h>
static inline const char *test_root(void)
{
    const char *root = getenv("TILEDCONV_ROOT");
    return root ? root : ".";
}

/* The entries of a folder, but . and ..; -1 when it cannot be read (the tests that check what
 * a write left behind). */
#include <dirent.h>
#include <string.h>
static inline int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

/* A study or test setting of the library (tiledconv_internal.h's tc_tuning, "NAME=VALUE") for
 * the rest of the test; test_untune puts every setting back to its default. */
#include "tiledconv_internal.h"
static inline void test_tune(const char *setting)
{
    char err[256];
    if (tc_tune(setting, err, sizeof err) != 0)
        fail_msg("%s", err);
}

static inline void test_untune(void)
{
    tc_set_tuning(NULL);
}

/* The library's defaults with these filter lengths. */
static inline tc_params test_params_taps(int taps_x, int taps_y)
{
    tc_params p;
    tc_params_init(&p);
    p.taps_x = taps_x;
    p.taps_y = taps_y;
    return p;
}

/* Where p's filter reads (src_left, src_top) and writes (dst_left, dst_top), and the size of
 * the region (0 on an axis: the largest that fits both): one line for each of the many
 * layouts the suites try. */
static inline void test_set_roi(tc_params *p, int src_left, int src_top, int dst_left,
                                int dst_top, int width, int height)
{
    p->src_left = src_left, p->src_top = src_top;
    p->dst_left = dst_left, p->dst_top = dst_top;
    p->roi_width = width, p->roi_height = height;
}

/* The work-groups of each class that tc_tiles predicts for p on a width x height image, into
 * classes[0..3]: each tile counted for the class it reads as and the one it writes as, as the
 * kernels count their groups. The tiles go into tiles[capacity]; their number is returned. */
static inline int test_tile_classes(const tc_params *p, int width, int height, tc_tile *tiles,
                                    int capacity, long classes[4])
{
    char err[256];
    int n = 0;
    if (tc_tiles(p, width, height, tiles, capacity, &n, err, sizeof err) != TC_OK)
        fail_msg("tc_tiles: %s", err);
    assert_true(n <= capacity);
    for (int c = 0; c < 4; c++)
        classes[c] = 0;
    for (int i = 0; i < n; i++) {
        classes[tiles[i].read_class - 1]++;
        classes[tiles[i].write_class - 1]++;
    }
    return n;
}

#endif
