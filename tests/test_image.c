/* test_image.c - the conversions of src/image.c: samples of any depth to planes (v * 255 /
 * maxval and the intensity), the 8- and 16-bit outputs with their rounding (halves up), the
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
    /* The identity is floor(clamp(v, 0, 255) + 0.5), including the value just below a half. */
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
    tc_planes_to_samples(planes, 3, 8, &roi, 1.0, 100.0, rgb);
    assert_int_equal(rgb[0], 10);
    assert_int_equal(rgb[2], 0);
    assert_int_equal(rgb[3 * 5 + 0], 110);
    assert_int_equal(rgb[3 * 5 + 2], 105);
    assert_int_equal(rgb[3 * 7 + 2], 7);
}

/* 8-bit samples of maxval 255 give exactly the planes they always gave: the scaled intensity
 * equals tc_intensity for every colour, and tc_plane_from_samples equals tc_plane_from_rgb and
 * tc_plane_from_channel (what the device's GRAY8/RGB24 path is checked against). */
static void test_samples_8bit_unchanged(void **state)
{
    (void)state;
    long differ = 0;
    for (unsigned r = 0; r < 256; r++)
        for (unsigned g = 0; g < 256; g++)
            for (unsigned b = 0; b < 256; b++) {
                const float want = tc_intensity((uint8_t)r, (uint8_t)g, (uint8_t)b);
                const float got = tc_intensity_scaled(r, g, b, 255);
                differ += memcmp(&want, &got, sizeof want) != 0;
            }
    assert_int_equal(differ, 0);

    enum { W = 7, H = 5, N = W * H };
    uint8_t rgb[3 * N], gray[N], gray_as_rgb[3 * N];
    float a[N], b[N];
    tc_plane pa = {W, H, a}, pb = {W, H, b};
    for (int i = 0; i < 3 * N; i++)
        rgb[i] = (uint8_t)(i * 37 + 11);
    for (int i = 0; i < N; i++) {
        gray[i] = (uint8_t)(i * 53 + 7);
        memset(gray_as_rgb + 3 * i, gray[i], 3);
    }
    tc_plane_from_rgb(&pa, rgb);
    tc_plane_from_samples(&pb, rgb, 3, 8, 255, -1);
    assert_memory_equal(a, b, sizeof a);
    for (int c = 0; c < 3; c++) {
        tc_plane_from_channel(&pa, rgb, c);
        tc_plane_from_samples(&pb, rgb, 3, 8, 255, c);
        assert_memory_equal(a, b, sizeof a);
    }
    /* A gray image is R = G = B: its planes are those of the same gray as RGB. */
    tc_plane_from_rgb(&pa, gray_as_rgb);
    tc_plane_from_samples(&pb, gray, 1, 8, 255, -1);
    assert_memory_equal(a, b, sizeof a);
    tc_plane_from_samples(&pb, gray, 1, 8, 255, 2);
    for (int i = 0; i < N; i++)
        assert_true(b[i] == (float)gray[i]);
}

/* Samples of other scales: v * 255 / maxval, unrounded, then the intensity of those. */
static void test_samples_scaled(void **state)
{
    (void)state;
    const uint16_t g16[4] = {0, 257, 65535, 1};
    float px[4];
    tc_plane p = {4, 1, px};
    tc_plane_from_samples(&p, g16, 1, 16, 65535, -1);
    assert_true(px[0] == 0.0f);
    assert_true(px[1] == tc_intensity(1, 1, 1));     /* 257 * 255 / 65535 = 1 exactly */
    assert_true(px[2] == tc_intensity(255, 255, 255));
    tc_plane_from_samples(&p, g16, 1, 16, 65535, 0);
    assert_true(px[1] == 1.0f && px[2] == 255.0f);
    assert_true(px[3] == (float)(255.0 / 65535.0)); /* unrounded: not 0 */

    /* A PPM of maxval 1000 (16-bit samples): (500, 1000, 2) -> (127.5, 255, 0.51). */
    const uint16_t rgb16[3] = {500, 1000, 2};
    tc_plane one = {1, 1, px};
    tc_plane_from_samples(&one, rgb16, 3, 16, 1000, -1);
    assert_true(px[0] == (float)(0.299 * 127.5 + 0.587 * 255.0 + 0.114 * (2 * 255.0 / 1000)));
    tc_plane_from_samples(&one, rgb16, 3, 16, 1000, 0);
    assert_true(px[0] == 127.5f);
    tc_plane_from_samples(&one, rgb16, 3, 16, 1000, 2);
    assert_true(px[0] == 0.51f);
    /* 8-bit samples of another maxval (a PGM of maxval 100, or 1): scaled too. */
    const uint8_t g8[2] = {40, 1};
    tc_plane_from_samples(&one, g8, 1, 8, 100, 0);
    assert_true(px[0] == 102.0f);
    tc_plane_from_samples(&one, g8 + 1, 1, 8, 1, 0);
    assert_true(px[0] == 255.0f);
}

/* The 16-bit output: round(clamp(v * S + V, 0, 255) * 65535 / 255). */
static void test_output_mapping_16(void **state)
{
    (void)state;
    assert_int_equal(tc_map_word(0.0f, 1.0, 0.0), 0);
    assert_int_equal(tc_map_word(1.0f, 1.0, 0.0), 257);
    assert_int_equal(tc_map_word(255.0f, 1.0, 0.0), 65535);
    assert_int_equal(tc_map_word(127.5f, 1.0, 0.0), 32768); /* 32767.5: halves up */
    assert_int_equal(tc_map_word(254.999f, 1.0, 0.0), 65535);
    assert_int_equal(tc_map_word(-3.0f, 1.0, 0.0), 0);
    assert_int_equal(tc_map_word(1000.0f, 1.0, 0.0), 65535);
    assert_int_equal(tc_map_word(NAN, 1.0, 0.0), 0);
    assert_int_equal(tc_map_word(10.0f, 2.0, 5.0), 25 * 257);
    assert_int_equal(tc_map_word(-4.0f, 0.25, 128.0), 127 * 257);
}

/* A 16-bit input comes back unchanged through the identity filter: every sample, as the
 * intensity of a gray image and as a colour channel. */
static void test_16bit_round_trip(void **state)
{
    (void)state;
    long wrong = 0;
    for (unsigned x = 0; x < 65536; x++) {
        wrong += tc_map_word(tc_intensity_scaled(x, x, x, 65535), 1.0, 0.0) != x;
        wrong += tc_map_word((float)tc_sample_scaled(x, 65535), 1.0, 0.0) != x;
    }
    assert_int_equal(wrong, 0);
    /* 8-bit samples written with 16 bits: x * 257. */
    for (unsigned x = 0; x < 256; x++)
        wrong += tc_map_word((float)x, 1.0, 0.0) != x * 257;
    assert_int_equal(wrong, 0);
}

/* The 16-bit planes map only the target ROI, as the 8-bit ones do. */
static void test_mapping_16_only_inside_target(void **state)
{
    (void)state;
    float px[4 * 3], other[12];
    for (int i = 0; i < 12; i++) {
        px[i] = 10.0f;
        other[i] = (float)i;
    }
    tc_plane p = {4, 3, px};
    tc_roi roi = {0, 0, 1, 1, 2, 1}; /* target: (1, 1) and (2, 1) */
    uint16_t g[12], rgb[3 * 12];
    tc_planes_to_samples(&p, 1, 16, &roi, 2.0, 5.0, g);
    for (int i = 0; i < 12; i++)
        assert_int_equal(g[i], i == 5 || i == 6 ? 25 * 257 : 10 * 257);
    tc_plane planes[3] = {p, p, {4, 3, other}};
    tc_planes_to_samples(planes, 3, 16, &roi, 1.0, 100.0, rgb);
    assert_int_equal(rgb[0], 10 * 257);
    assert_int_equal(rgb[2], 0);
    assert_int_equal(rgb[3 * 5 + 0], 110 * 257);
    assert_int_equal(rgb[3 * 5 + 2], 105 * 257);
    assert_int_equal(rgb[3 * 7 + 2], 7 * 257);
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
        cmocka_unit_test(test_samples_8bit_unchanged),
        cmocka_unit_test(test_samples_scaled),
        cmocka_unit_test(test_output_mapping_16),
        cmocka_unit_test(test_16bit_round_trip),
        cmocka_unit_test(test_mapping_16_only_inside_target),
        cmocka_unit_test(test_take_rgb_in_place),
    };
    return cmocka_run_group_tests_name("image", tests, NULL, NULL);
}
