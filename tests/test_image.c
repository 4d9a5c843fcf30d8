/* test_image.c - the 8-bit output conversions of src/image.c: SPEC.md's rounding, the
 * --scale/--offset mapping, and that only the target ROI is mapped. */
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"

/* --scale/--offset: v * S + V, then floor(clamp(., 0, 255) + 0.5). */
static void test_output_mapping(void **state)
{
    (void)state;
    assert_int_equal(tc_map_byte(0.0f, 1.0, 128.0), 128);
    assert_int_equal(tc_map_byte(-4.0f, 0.25, 128.0), 127);
    assert_int_equal(tc_map_byte(-1000.0f, 1.0, 128.0), 0);
    assert_int_equal(tc_map_byte(1000.0f, 1.0, 128.0), 255);
    assert_int_equal(tc_map_byte(100.0f, -1.0, 255.0), 155);
    assert_int_equal(tc_map_byte(NAN, 1.0, 128.0), 0);
    assert_int_equal(tc_map_byte(2.5f, 1.0, 0.0), 3);
    /* The identity is SPEC.md's conversion, including the value just below a half. */
    assert_int_equal(tc_to_byte(0.49999997f), 0);
    assert_int_equal(tc_to_byte(254.5f), 255);
}

/* Only the target ROI is mapped; the pixels around it keep the input value. */
static void test_mapping_only_inside_target(void **state)
{
    (void)state;
    float px[4 * 3];
    for (int i = 0; i < 12; i++)
        px[i] = 10.0f;
    tc_plane p = {4, 3, px};
    tc_roi roi = {0, 0, 1, 1, 2, 1}; /* target: (1, 1) and (2, 1) */
    uint8_t g[12];
    memset(g, 0xaa, sizeof g);
    tc_plane_to_gray8(&p, &roi, 2.0, 5.0, g);
    for (int i = 0; i < 12; i++)
        assert_int_equal(g[i], i == 5 || i == 6 ? 25 : 10);
    tc_plane planes[3] = {p, p, p};
    float other[12];
    for (int i = 0; i < 12; i++)
        other[i] = (float)i;
    planes[2].px = other;
    uint8_t rgb[3 * 12];
    memset(rgb, 0xaa, sizeof rgb);
    tc_planes_to_rgb24(planes, &roi, 1.0, 100.0, rgb);
    assert_int_equal(rgb[0], 10);
    assert_int_equal(rgb[2], 0);
    assert_int_equal(rgb[3 * 5 + 0], 110);
    assert_int_equal(rgb[3 * 5 + 2], 105);
    assert_int_equal(rgb[3 * 7 + 2], 7);
}

/* The RGB buffer made into a plane in its own memory gives exactly what the copying functions
 * give: the intensity, and each channel; every byte value appears, in every position mod 4. */
static void test_take_rgb_in_place(void **state)
{
    (void)state;
    const int w = 37, h = 11, n = w * h;
    for (int channel = -1; channel < 3; channel++) {
        uint8_t *rgb = malloc((size_t)n * 3);
        assert_non_null(rgb);
        for (int i = 0; i < n * 3; i++)
            rgb[i] = (uint8_t)(i * 97 + 13);
        tc_plane expected, taken;
        assert_int_equal(tc_plane_alloc(&expected, w, h), 0);
        if (channel < 0)
            tc_plane_from_rgb(&expected, rgb);
        else
            tc_plane_from_channel(&expected, rgb, channel);
        assert_int_equal(tc_plane_take_rgb(&taken, rgb, w, h, channel), 0);
        assert_int_equal(taken.width, w);
        assert_int_equal(taken.height, h);
        assert_memory_equal(taken.px, expected.px, (size_t)n * sizeof(float));
        tc_plane_free(&taken); /* the RGB buffer's memory, now the plane's */
        tc_plane_free(&expected);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_output_mapping),
        cmocka_unit_test(test_mapping_only_inside_target),
        cmocka_unit_test(test_take_rgb_in_place),
    };
    return cmocka_run_group_tests_name("image", tests, NULL, NULL);
}
