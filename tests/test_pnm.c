/* test_pnm.c - the PGM/PPM reader and writer (src/io/pnm.c) through the codec API: every
 * variant of the format on the fixtures, the header rules netpbm sets, hostile headers and
 * rasters, and round trips at every depth. */
#include "codec_test_util.h"

#include "pnm.h"

/* A string literal's bytes (sizeof - 1: without the terminating NUL) refused. */
#define REFUSE_LIT(lit, want) expect_refused((const uint8_t *)(lit), sizeof(lit) - 1, (want))

/* The size bytes of data decode to an image `width` pixels wide of this depth and maxval,
 * whose first samples, in the file's order, are the n of want. */
static void expect_decoded(const char *data, size_t size, int width, int depth, int maxval,
                           const unsigned *want, size_t n)
{
    io_image img;
    decode_ok((const uint8_t *)data, size, &img);
    assert_int_equal(img.width, width);
    assert_int_equal(img.depth, depth);
    assert_int_equal(img.maxval, maxval);
    for (size_t i = 0; i < n; i++)
        if (px(&img, i) != want[i])
            fail_msg("sample %zu is %u, expected %u", i, px(&img, i), want[i]);
    io_image_free(&img);
}
/* A string literal's bytes decoded, then checked as expect_decoded checks them. */
#define EXPECT_DECODED(lit, width, depth, maxval, ...)                                           \
    expect_decoded((lit), sizeof(lit) - 1, (width), (depth), (maxval),                           \
                   (const unsigned[]){__VA_ARGS__},                                              \
                   sizeof((const unsigned[]){__VA_ARGS__}) / sizeof(unsigned))

/* A fixture's every sample equals the formula, with the depth and maxval the file implies. */
static void check_fixture(const char *name, int channels, int maxval)
{
    size_t size;
    uint8_t *data = read_fixture(name, &size);
    io_image img;
    decode_ok(data, size, &img);
    assert_int_equal(img.width, FIX_W);
    assert_int_equal(img.height, FIX_H);
    assert_int_equal(img.channels, channels);
    assert_int_equal(img.maxval, maxval);
    assert_int_equal(img.depth, maxval > 255 ? 16 : 8);
    for (unsigned y = 0; y < FIX_H; y++)
        for (unsigned x = 0; x < FIX_W; x++)
            for (unsigned c = 0; c < (unsigned)channels; c++) {
                size_t i = ((size_t)y * FIX_W + x) * (size_t)channels + c;
                if (px(&img, i) != fix_sample(x, y, c, (unsigned)maxval))
                    fail_msg("%s: sample (%u, %u, %u) is %u, expected %u", name, x, y, c,
                             px(&img, i), fix_sample(x, y, c, (unsigned)maxval));
            }
    io_image_free(&img);
    free(data);
}

static void test_fixtures(void **state)
{
    (void)state;
    check_fixture("g8.pgm", 1, 255);
    check_fixture("g16.pgm", 1, 65535);
    check_fixture("g100.pgm", 1, 100);
    check_fixture("rgb8.ppm", 3, 255);
    check_fixture("rgb1000.ppm", 3, 1000);
    check_fixture("g15-text.pgm", 1, 15);         /* P2, comments everywhere */
    check_fixture("rgb65535-text.ppm", 3, 65535); /* P3, CR LF line ends */
}

/* Exactly one whitespace character ends a binary header: what follows is raster, even when it
 * is whitespace too. A comment in its place ends with its line end. */
static void test_one_whitespace_after_maxval(void **state)
{
    (void)state;
    EXPECT_DECODED("P5 2 1 255\n\n\x07", 2, 8, 255, '\n', 7);
    /* The CR ends the header, the LF is the pixel. */
    EXPECT_DECODED("P5\n1 1\n255\r\n", 1, 8, 255, '\n');
    EXPECT_DECODED("P5 2 1 255#comment\nAB", 2, 8, 255, 'A', 'B');
    /* Comments between every field. */
    EXPECT_DECODED("P5#c1\n#c2\n2#c3\n1\n255 \t\x05", 2, 8, 255, '\t', 5);
}

/* 16-bit samples are big-endian in the file and host order in memory. */
static void test_16bit_big_endian(void **state)
{
    (void)state;
    EXPECT_DECODED("P5 2 1 65535\n\x01\x02\xff\xfe", 2, 16, 65535, 0x0102, 0xfffe);
    /* maxval 256: already 2 bytes. */
    EXPECT_DECODED("P6 1 1 256\n\x01\x00\x00\xff\x00\x01", 1, 16, 256, 256, 255, 1);
}

static void test_text_samples(void **state)
{
    (void)state;
    /* Any whitespace between samples, comments too (netpbm's reader skips them there). */
    EXPECT_DECODED("P3 2 1 1000\n0 1000\t7\n#c\n999\n5   6", 2, 16, 1000, 0, 1000, 7, 999, 5, 6);
    /* Leading zeros are digits like any other. */
    EXPECT_DECODED("P2 1 1 255\n00017", 1, 8, 255, 17);
}

/* Every defect refused, with a reason that names it. */
static void test_hostile_headers(void **state)
{
    (void)state;
    REFUSE_LIT("P5 2 2 0\n\0\0\0\0", "maxval 0 is out of range");
    REFUSE_LIT("P5 2 2 70000\n\0\0\0\0\0\0\0\0", "maxval is 70000, more than 65535");
    REFUSE_LIT("P5 2 2 99999999999999999999999999\n", "maxval is 99999999999999999999..., more");
    REFUSE_LIT("P5 18446744073709551617 1 255\n", "width is 18446744073709551617, more than 65536");
    REFUSE_LIT("P6 1 4294967297 255\n", "height is 4294967297, more than 65536");
    REFUSE_LIT("P5 70000 1 255\n", "width is 70000, more than 65536");
    REFUSE_LIT("P5 0 5 255\n", "no pixels");
    REFUSE_LIT("P5 5 0 255\n", "no pixels");
    REFUSE_LIT("P5 -1 5 255\n", "width is not a number (found '-')");
    REFUSE_LIT("P5 +1 5 255\n", "width is not a number (found '+')");
    REFUSE_LIT("P5 3x2 255\n", "width is followed by 'x', not whitespace");
    REFUSE_LIT("P5 3 2", "the file ends after the height");
    REFUSE_LIT("P5 3 2 ", "the file ends before the maxval");
    REFUSE_LIT("P5 3 2 255", "the file ends after the maxval");
    REFUSE_LIT("P5 3 2 255#never ends", "ends in the comment after the maxval");
    REFUSE_LIT("P5 3 # the comment runs to the end", "the file ends before the height");
    REFUSE_LIT("P5x3 2 255\n", "not an image in a format"); /* no whitespace: not PNM */
    REFUSE_LIT("P6 20000 20000 255\n", "more than the limit of 268435456");
    REFUSE_LIT("P2 3 2 255\n1 2 3 4 5 \xff", "not a number (found 0xff)");
}

static void test_hostile_rasters(void **state)
{
    (void)state;
    REFUSE_LIT("P5 2 2 255\n\1\2\3", "pixel data truncated: 4 bytes needed, 3 in the file");
    REFUSE_LIT("P5 2 1 1000\n\0\1\0", "pixel data truncated: 4 bytes needed, 3 in the file");
    REFUSE_LIT("P5 2 1 100\n\x64\x65", "sample at (1, 0) is 101, more than the maxval 100");
    REFUSE_LIT("P6 2 1 1000\n\0\0\0\0\0\0\0\0\x03\xe9\0\0",
               "sample at (1, 0) is 1001, more than the maxval 1000");
    REFUSE_LIT("P2 2 1 100\n3 101", "sample at (1, 0) is 101, more than the maxval 100");
    REFUSE_LIT("P2 2 1 65535\n1 99999999999999999999999",
               "sample at (1, 0) is 99999999999999999999..., more than the maxval 65535");
    REFUSE_LIT("P3 1 2 255\n1 2 3 4 x 6", "sample at (0, 1) is not a number (found 'x')");
    REFUSE_LIT("P2 3 1 255\n1 2    ", "the file ends before the sample at (2, 0)");
    REFUSE_LIT("P2 3 1 255\n1 2", "3 text samples need at least 5 bytes, 3 in the file");
}

/* Headers that promise far more than the file holds are refused before any allocation: the
 * memory a tiny file may cost stays small. */
static void test_short_files_cost_nothing(void **state)
{
    static const char text[] = "P2 16384 16384 255\n1 2 3";
    static const char bin[] = "P6 16384 16384 65535\n\1\2\3";
    (void)state;
    expect_refused_bounded((const uint8_t *)text, sizeof text - 1,
                           "268435456 text samples need at least");
    expect_refused_bounded((const uint8_t *)bin, sizeof bin - 1,
                           "pixel data truncated: 1610612736 bytes needed, 3 in the file");
}

/* Every prefix of a binary file is refused (a header cut short, or data shorter than
 * promised): a binary PNM has no truncation that looks valid. */
static void test_every_truncation(void **state)
{
    const char *names[] = {"g8.pgm", "g16.pgm", "rgb1000.ppm"};
    (void)state;
    for (size_t k = 0; k < 3; k++) {
        size_t size;
        uint8_t *data = read_fixture(names[k], &size);
        for (size_t n = 0; n < size; n++)
            expect_refused(data, n, NULL);
        free(data);
    }
}

static void round_trip(int channels, int depth, int maxval)
{
    io_image img = {5, 3, channels, depth, maxval, NULL, NULL};
    size_t n = 5 * 3 * (size_t)channels, size;
    uint8_t *file;
    img.pixels = malloc(n * (depth / 8));
    assert_non_null(img.pixels);
    for (size_t i = 0; i < n; i++) {
        unsigned v = (unsigned)(i * 7919u) % ((unsigned)maxval + 1u);
        set_px(&img, i, v);
    }
    ((uint8_t *)img.pixels)[0] = 0;
    set_px(&img, n - 1, (unsigned)maxval); /* the extremes, too */
    encode_mem(IO_FORMAT_PNM, &img, 0, &file, &size);
    char head[32];
    int hn = snprintf(head, sizeof head, "P%c\n5 3\n%d\n", channels == 1 ? '5' : '6', maxval);
    assert_memory_equal(file, head, (size_t)hn);
    assert_int_equal(size, (size_t)hn + n * (maxval > 255 ? 2 : 1));
    expect_decodes_to(file, size, &img, maxval > 255 ? 16 : 8, (unsigned)maxval);
    free(file);
    free(img.pixels);
}

static void test_round_trips(void **state)
{
    (void)state;
    round_trip(1, 8, 255);
    round_trip(1, 8, 100);
    round_trip(1, 16, 65535);
    round_trip(3, 8, 255);
    round_trip(3, 16, 1000);
    round_trip(3, 16, 200); /* depth 16 in memory, 1 byte per sample in the file */
}

static void test_writer_refuses_sample_above_maxval(void **state)
{
    uint8_t pixels[2] = {10, 11};
    io_image img = {2, 1, 1, 8, 10, pixels, NULL};
    char err[256];
    (void)state;
    expect_encode_refused(IO_FORMAT_PNM, &img, 0, "x.pgm",
                          "x.pgm: the sample at (1, 0) is 11, more than the maxval 10", err,
                          sizeof err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures),
        cmocka_unit_test(test_one_whitespace_after_maxval),
        cmocka_unit_test(test_16bit_big_endian),
        cmocka_unit_test(test_text_samples),
        cmocka_unit_test(test_hostile_headers),
        cmocka_unit_test(test_hostile_rasters),
        cmocka_unit_test(test_short_files_cost_nothing),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_writer_refuses_sample_above_maxval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
