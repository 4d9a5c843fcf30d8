/*
 * test_tiles.c - tc_tiles (the picture of --class-map draws from it) against the classes the
 * tiled kernel itself counts, over layouts that move every test of the four classes: ROI
 * offsets in every alignment class, tiles cut by the image's edges, lengths whose blocks and
 * aprons differ; and where the tiles lie.
 */
#include "test_util.h"
#include "test_context.h"

#include <stdlib.h>
#include <string.h>

#include "tiledconv.h"

/* kernel: the tiled kernel's variant (NULL: the default). tiled_conv's tiles sit on the
 * target's 4-column grid, tiled_long_conv's ("long") on the source's. */
static void check_layout_of(const char *kernel, int w, int h, int taps, int sl, int st, int tl,
                            int tt, int rw, int rh)
{
    float *src = calloc((size_t)w * h, sizeof *src), *dst = malloc((size_t)w * h * sizeof *dst);
    tc_params p;
    tc_stats st_;
    tc_tile tiles[400];
    long counted[4];
    assert_non_null(src);
    assert_non_null(dst);
    tc_params_init(&p);
    p.taps_x = p.taps_y = taps;
    p.kernel = kernel;
    test_set_roi(&p, sl, st, tl, tt, rw, rh);
    p.count_classes = 1;
    assert_int_equal(tc_filter(ctx, src, dst, w, h, &p), TC_OK);
    assert_int_equal(tc_last_stats(ctx, &st_), TC_OK);
    assert_true(st_.classes_counted);
    const int n = test_tile_classes(&p, w, h, tiles, 400, counted);
    for (int i = 0; i < n; i++) {
        /* Every tile is where the kernel writes: columns from tL - tL mod 4 (the target's
         * 4-column grid; the long kernel's from tL - sL mod 4, the source's), rows from tT,
         * tile after tile. */
        const int grid = kernel && strcmp(kernel, "long") == 0 ? sl % 4 : tl % 4;
        assert_int_equal((tiles[i].x - (tl - grid)) % tiles[i].width, 0);
        assert_int_equal((tiles[i].y - tt) % tiles[i].height, 0);
    }
    assert_memory_equal(counted, st_.classes, sizeof counted);
    free(src);
    free(dst);
}

static void check_layout(int w, int h, int taps, int sl, int st, int tl, int tt, int rw, int rh)
{
    check_layout_of("tiled", w, h, taps, sl, st, tl, tt, rw, rh);
}

static void test_tiles_are_the_kernels_classes(void **state)
{
    (void)state;
    check_layout(100, 80, 3, 3, 3, 2, 2, 0, 0);     /* the article's offsets */
    check_layout(200, 150, 5, 0, 0, 0, 0, 0, 0);    /* the whole image */
    for (int a = 0; a < 4; a++)                      /* every alignment class */
        for (int b = 0; b < 4; b++)
            check_layout(180, 120, 5, 4 + a, 7, 8 + b, 1, 150, 100);
    check_layout(260, 140, 7, 5, 3, 1, 6, 0, 0);    /* blocks of 4 x 8 from radius 3 */
    check_layout(130, 97, 15, 9, 2, 3, 9, 100, 80);
    check_layout(33, 31, 3, 0, 0, 0, 0, 0, 0);      /* smaller than two tiles */
    /* The long kernel (the default from 11 taps along rows with replicate): 32 x 256 tiles. */
    check_layout_of("long", 130, 97, 15, 9, 2, 3, 9, 100, 80);
    check_layout_of("long", 300, 600, 17, 6, 3, 1, 2, 290, 590);
}

/* Bad parameters: the reason comes back, nothing is counted. */
static void test_tiles_refuses_what_tc_filter_refuses(void **state)
{
    tc_params p;
    char err[256] = "";
    int n = -1;
    (void)state;
    tc_params_init(&p);
    p.src_left = 500;
    assert_int_equal(tc_tiles(&p, 100, 80, NULL, 0, &n, err, sizeof err), TC_EINVAL);
    assert_non_null(strstr(err, "src_left"));
    assert_int_equal(n, -1);
    tc_params_init(&p);
    assert_int_equal(tc_tiles(&p, 100, 80, NULL, 0, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 4 * 3); /* 100 x 80 in tiles of 32: 4 x 3 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiles_are_the_kernels_classes),
        cmocka_unit_test(test_tiles_refuses_what_tc_filter_refuses),
    };
    return cmocka_run_group_tests(tests, context_setup, context_teardown);
}
