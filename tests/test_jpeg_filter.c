/*
 * test_jpeg_filter.c - tc_filter_jpeg (context.c, src/jpeg_filter.c) against the CPU path it
 * stands for: a JPEG decoded by TurboJPEG (jpeg_decode, or jpeg_decode_luma for a gray job),
 * filtered by tc_filter_image and written by jpeg_encode gives byte for byte the file
 * jpeg_coefs_encode writes from tc_filter_jpeg's coefficients. Gray and colour, the samplings
 * the writer offers on both sides, odd sizes from 1 x 1, filters of 3 to 31 taps, a mask,
 * ROIs with --scale and --offset's mapping; then exact 0 where tc_filter_image would run the
 * image in bands (a tiny budget), and the refusals (a layout of another size, a channel count
 * the decoder does not make).
 */
#include "test_util.h"
#include "test_context.h"

#include "codec_test_util.h"

#include "jpeg.h"
#include "jpeg_coefs.h"
#include "jpeg_coefs_write.h"

static int files_compared;

static int teardown(void **state)
{
    context_teardown(state);
    io_set_jpeg_sampling(IO_JPEG_420);
    print_message("tc_filter_jpeg: %d files byte for byte the CPU path's\n", files_compared);
    return 0;
}

/* A JPEG of a seeded picture (shading, noise, edges), colour or gray, at quality 90 with the
 * writer's sampling s; the caller frees *data. */
static void make_jpeg(int w, int h, int colour, io_jpeg_sampling s, unsigned seed,
                      uint8_t **data, size_t *size)
{
    const int ch = colour ? 3 : 1;
    uint8_t *px = malloc((size_t)w * (size_t)h * (size_t)ch);
    unsigned r = seed * 2654435761u + 1;
    assert_non_null(px);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < ch; c++) {
                r = r * 1103515245u + 12345u;
                const int v = (x * (c + 2) * 255 / (w + 1) + y * (3 - c) * 255 / (h + 1)) / 3 +
                              ((x / 7 + y / 5) & 1) * 50 + (int)((r >> 16) & 31) - 16;
                px[((size_t)y * (size_t)w + (size_t)x) * (size_t)ch + (size_t)c] =
                    (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
    const io_image img = {w, h, ch, 8, 255, px, NULL};
    io_set_jpeg_sampling(s);
    encode_mem(IO_FORMAT_JPEG, &img, 90, data, size);
    free(px);
}

/* The CPU path's output file: TurboJPEG's pixels, tc_filter_image, jpeg_encode at quality. */
static void cpu_path(const uint8_t *data, size_t size, int channels, const tc_params *p,
                     int quality, uint8_t **out, size_t *out_size)
{
    io_image in;
    char err[512];
    const int rc = channels == 1 ? jpeg_decode_luma(data, size, 0, 0, &in, err, sizeof err)
                                 : jpeg_decode(data, size, 0, 0, &in, err, sizeof err);
    if (rc != 0)
        fail_msg("decode: %s", err);
    const int w = in.width, h = in.height;
    uint8_t *filtered = malloc((size_t)w * (size_t)h * (size_t)channels);
    assert_non_null(filtered);
    const tc_pixel_format fmt = channels == 1 ? TC_PIXELS_GRAY8 : TC_PIXELS_RGB24;
    const tc_image src = {fmt, w, h, 0, in.pixels, (long)w * channels, NULL, 0};
    const tc_image dst = {fmt, w, h, 0, filtered, (long)w * channels, NULL, 0};
    if (tc_filter_image(ctx, &src, &dst, p) != TC_OK)
        fail_msg("tc_filter_image: %s", tc_error(ctx));
    const io_image img = {w, h, channels, 8, 255, filtered, NULL};
    encode_mem(IO_FORMAT_JPEG, &img, quality, out, out_size);
    free(filtered);
    io_image_free(&in);
}

/* The device path's output file; *exact from tc_filter_jpeg (no file when 0). */
static void device_path(const uint8_t *data, size_t size, int channels, const tc_params *p,
                        int quality, uint8_t **out, size_t *out_size, int *exact)
{
    jpeg_coefs in, coefs;
    char err[512];
    char *buf = NULL;
    size_t n = 0;
    memset(&coefs, 0, sizeof coefs);
    if (jpeg_coefs_read(data, size, channels == 1, 0, 0, &in, err, sizeof err) != 0)
        fail_msg("jpeg_coefs_read: %s", err);
    if (jpeg_coefs_layout(in.width, in.height, channels, quality, &coefs, "mem", err,
                          sizeof err) != 0)
        fail_msg("jpeg_coefs_layout: %s", err);
    if (tc_filter_jpeg(ctx, &in, channels, p, &coefs, exact) != TC_OK)
        fail_msg("tc_filter_jpeg: %s", tc_error(ctx));
    jpeg_coefs_free(&in);
    *out = NULL;
    *out_size = 0;
    if (*exact) {
        FILE *f = open_memstream(&buf, &n);
        assert_non_null(f);
        if (jpeg_coefs_encode(f, &coefs, quality, "mem", err, sizeof err) != 0)
            fail_msg("jpeg_coefs_encode: %s", err);
        assert_int_equal(fclose(f), 0);
        *out = (uint8_t *)buf;
        *out_size = n;
    }
    jpeg_coefs_free(&coefs);
}

/* One case: a made JPEG (w x h, colour or gray, sampling in_s) through both paths with p,
 * written with sampling out_s at quality: the same bytes. */
static void same_file(int w, int h, int colour_file, io_jpeg_sampling in_s, int channels,
                      const tc_params *p, io_jpeg_sampling out_s, int quality, unsigned seed)
{
    uint8_t *jpeg, *cpu, *dev;
    size_t jpeg_size, cpu_size, dev_size;
    int exact = 0;
    make_jpeg(w, h, colour_file, in_s, seed, &jpeg, &jpeg_size);
    io_set_jpeg_sampling(out_s);
    cpu_path(jpeg, jpeg_size, channels, p, quality, &cpu, &cpu_size);
    device_path(jpeg, jpeg_size, channels, p, quality, &dev, &dev_size, &exact);
    if (!exact)
        fail_msg("%d x %d, %d channels: exact 0", w, h, channels);
    if (cpu_size != dev_size || memcmp(cpu, dev, cpu_size) != 0)
        fail_msg("%d x %d (%s file, sampling %d in, %d out), %d channels, quality %d: the "
                 "device path's file (%zu bytes) is not the CPU path's (%zu bytes)",
                 w, h, colour_file ? "colour" : "gray", (int)in_s, (int)out_s, channels,
                 quality, dev_size, cpu_size);
    files_compared++;
    free(jpeg);
    free(cpu);
    free(dev);
}

static void test_sizes_and_samplings(void **state)
{
    static const int sizes[][2] = {{1, 1}, {2, 3}, {17, 9}, {33, 17}, {64, 48}, {333, 211}};
    static const io_jpeg_sampling samplings[] = {IO_JPEG_420, IO_JPEG_422, IO_JPEG_444};
    tc_params p;
    (void)state;
    tc_params_init(&p);
    p.taps_x = p.taps_y = 5;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (size_t s = 0; s < 3; s++) {
            const int w = sizes[i][0], h = sizes[i][1];
            same_file(w, h, 1, samplings[s], 3, &p, samplings[(s + 1) % 3], 95, (unsigned)i);
            same_file(w, h, 1, samplings[s], 1, &p, IO_JPEG_420, 95, (unsigned)i);
        }
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        same_file(sizes[i][0], sizes[i][1], 0, IO_JPEG_420, 1, &p, IO_JPEG_420, 80, 7);
}

static void test_filters_and_rois(void **state)
{
    static const float laplacian[9] = {0, 1, 0, 1, -4, 1, 0, 1, 0};
    static const int taps[] = {3, 7, 15, 31};
    tc_params p;
    (void)state;
    for (size_t i = 0; i < sizeof taps / sizeof taps[0]; i++) {
        tc_params_init(&p);
        p.taps_x = taps[i];
        p.taps_y = taps[(i + 1) % 4];
        same_file(123, 77, 1, IO_JPEG_420, 3, &p, IO_JPEG_420, 95, 3);
        same_file(123, 77, 1, IO_JPEG_422, 1, &p, IO_JPEG_420, 95, 3);
    }
    /* A ROI that leaves pixels outside (they keep the input), with scale and offset. */
    tc_params_init(&p);
    p.taps_x = p.taps_y = 7;
    test_set_roi(&p, 3, 2, 1, 4, 50, 31);
    p.out_scale = 1.5;
    p.out_offset = -20.0;
    p.border = TC_BORDER_REFLECT101;
    same_file(97, 61, 1, IO_JPEG_420, 3, &p, IO_JPEG_444, 85, 4);
    same_file(97, 61, 1, IO_JPEG_444, 1, &p, IO_JPEG_420, 85, 4);
    /* A 2-D mask, another algorithm. */
    tc_params_init(&p);
    p.mask = laplacian;
    p.mask_width = p.mask_height = 3;
    p.out_offset = 128.0;
    same_file(80, 45, 1, IO_JPEG_420, 3, &p, IO_JPEG_420, 95, 5);
    tc_params_init(&p);
    p.taps_x = p.taps_y = 9;
    p.algorithm = TC_TWOPASS;
    same_file(80, 45, 1, IO_JPEG_420, 3, &p, IO_JPEG_420, 95, 6);
}

/* An image that tc_filter_image would run in bands (a budget below its planes): exact 0, the
 * coefficients untouched, and the CPU path is the caller's. */
static void test_bands_answer_inexact(void **state)
{
    uint8_t *jpeg, *dev;
    size_t jpeg_size, dev_size;
    int exact = 1;
    tc_params p;
    (void)state;
    tc_params_init(&p);
    p.taps_x = p.taps_y = 5;
    make_jpeg(400, 300, 1, IO_JPEG_420, 9, &jpeg, &jpeg_size);
    assert_int_equal(tc_set_max_memory(ctx, 64 << 10), TC_OK);
    device_path(jpeg, jpeg_size, 3, &p, 95, &dev, &dev_size, &exact);
    assert_int_equal(tc_set_max_memory(ctx, 0), TC_OK);
    assert_int_equal(exact, 0);
    assert_null(dev);
    free(jpeg);
}

static void test_refusals(void **state)
{
    uint8_t *jpeg;
    size_t size;
    jpeg_coefs in, out;
    char err[512];
    int exact = 1;
    tc_params p;
    (void)state;
    tc_params_init(&p);
    make_jpeg(40, 30, 1, IO_JPEG_420, 10, &jpeg, &size);
    assert_int_equal(jpeg_coefs_read(jpeg, size, 0, 0, 0, &in, err, sizeof err), 0);
    /* A layout of another size. */
    assert_int_equal(jpeg_coefs_layout(41, 30, 3, 95, &out, "mem", err, sizeof err), 0);
    assert_int_equal(tc_filter_jpeg(ctx, &in, 3, &p, &out, &exact), TC_EINVAL);
    assert_int_equal(exact, 0);
    assert_non_null(strstr(tc_error(ctx), "laid out"));
    jpeg_coefs_free(&out);
    /* Channels the decoder does not make. */
    assert_int_equal(jpeg_coefs_layout(40, 30, 3, 95, &out, "mem", err, sizeof err), 0);
    assert_int_equal(tc_filter_jpeg(ctx, &in, 2, &p, &out, &exact), TC_EINVAL);
    /* Bad parameters: tc_filter_image's words. */
    p.taps_x = 4;
    assert_int_equal(tc_filter_jpeg(ctx, &in, 3, &p, &out, &exact), TC_EINVAL);
    assert_int_equal(tc_filter_jpeg(NULL, &in, 3, &p, &out, &exact), TC_EINVAL);
    assert_int_equal(tc_filter_jpeg(ctx, NULL, 3, &p, &out, &exact), TC_EINVAL);
    jpeg_coefs_free(&out);
    jpeg_coefs_free(&in);
    free(jpeg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes_and_samplings),
        cmocka_unit_test(test_filters_and_rois),
        cmocka_unit_test(test_bands_answer_inexact),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, context_setup, teardown);
}
