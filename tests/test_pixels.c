/*
 * test_pixels.c - tc_filter_image (src/pixels.c): the planes and the 8-bit pixels formed on the
 * device equal, byte for byte and bit for bit, what the host forms (image.c's conversions around
 * tc_filter), for every pixel layout in and out, bottom-up rows, ROIs, borders, and an output
 * mapping whose values land exactly on .5; and bad images are refused.
 */
#include "test_util.h"
#include "test_context.h"

#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "tiledconv.h"

/* A deterministic generator: the tests must be repeatable. */
static uint32_t rng = 12345;
static uint32_t next(void)
{
    rng = rng * 1664525u + 1013904223u;
    return rng >> 8;
}

static int bytes_of(tc_pixel_format f)
{
    return f == TC_PIXELS_RGB24 || f == TC_PIXELS_BGR24 ? 3 : f == TC_PIXELS_BGRX32 ? 4 : 1;
}

/* The R, G, B of pixel x of a row in format f (the host's reading, for the expected values). */
static void rgb_of(const unsigned char *row, int x, tc_pixel_format f, const unsigned char *pal,
                   unsigned char rgb[3])
{
    const unsigned char *p = row + (size_t)x * bytes_of(f);
    switch (f) {
    case TC_PIXELS_GRAY8: rgb[0] = rgb[1] = rgb[2] = p[0]; break;
    case TC_PIXELS_RGB24: memcpy(rgb, p, 3); break;
    case TC_PIXELS_INDEXED8: memcpy(rgb, pal + 3 * p[0], 3); break;
    default: rgb[0] = p[2]; rgb[1] = p[1]; rgb[2] = p[0]; break;
    }
}

/* Runs src through tc_filter_image into a dst of format out, on the device and on the host,
 * and checks both against the plain route: planes formed with image.c, tc_filter, then
 * tc_map_byte (or the floats themselves). */
static void check_layouts(tc_pixel_format in, tc_pixel_format out, int out_planes, int w, int h,
                          int bottom_up, tc_border border, double scale, double offset)
{
    const int ib = bytes_of(in), ob = out == TC_PIXELS_FLOAT32 ? 4 : bytes_of(out);
    const int planes = out == TC_PIXELS_FLOAT32 ? out_planes : out == TC_PIXELS_GRAY8 ? 1 : 3;
    const long in_row = ((long)w * ib + 3) / 4 * 4; /* padded like a BMP's rows */
    unsigned char *in_data = calloc((size_t)in_row * h, 1), palette[3 * 200];
    const long out_row = (long)w * ob + 8;
    const size_t out_size = (size_t)out_row * h * (out == TC_PIXELS_FLOAT32 ? planes : 1);
    unsigned char *dev = calloc(out_size, 1), *host = calloc(out_size, 1);
    float *plane = malloc((size_t)w * h * sizeof *plane), *filtered[3];
    tc_params p;
    assert_non_null(in_data);
    for (int i = 0; i < 3 * 200; i++)
        palette[i] = (unsigned char)next();
    for (long i = 0; i < in_row * h; i++)
        in_data[i] = (unsigned char)(in == TC_PIXELS_INDEXED8 ? next() % 200 : next());
    tc_image src = {in, w, h, 0, bottom_up ? in_data + (size_t)in_row * (h - 1) : in_data,
                    bottom_up ? -in_row : in_row, palette, 200};
    tc_image dst_dev = {out, w, h, out_planes, dev, out_row, NULL, 0};
    tc_image dst_host = {out, w, h, out_planes, host, out_row, NULL, 0};

    tc_params_init(&p);
    p.taps_x = p.taps_y = 5;
    p.border = border;
    p.border_value = 17.5f;
    test_set_roi(&p, 3, 1, 1, 2, w - 4, h - 3);
    p.out_scale = scale;
    p.out_offset = offset;
    assert_int_equal(tc_filter_image(ctx, &src, &dst_dev, &p), TC_OK);
    tc_stats st;
    assert_int_equal(tc_last_stats(ctx, &st), TC_OK);
    assert_int_equal(st.planes, planes);
    /* The device formed the planes (PoCL has double precision): its conversions took time. */
    tc_device_info info;
    assert_int_equal(tc_context_device(ctx, &info), TC_OK);
    if (info.has_double)
        assert_true(st.convert_ms > 0.0);
    p.convert_on_host = 1;
    assert_int_equal(tc_filter_image(ctx, &src, &dst_host, &p), TC_OK);
    assert_int_equal(tc_last_stats(ctx, &st), TC_OK);
    assert_true(st.convert_ms == 0.0); /* the host's way */
    assert_memory_equal(dev, host, out_size);

    /* The plain route, plane by plane. */
    p.convert_on_host = 0;
    for (int c = 0; c < planes; c++) {
        filtered[c] = malloc((size_t)w * h * sizeof(float));
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                unsigned char rgb[3];
                rgb_of((unsigned char *)src.data + (long)y * src.stride, x, in, palette, rgb);
                plane[(size_t)y * w + x] =
                    planes == 1 ? tc_intensity(rgb[0], rgb[1], rgb[2]) : (float)rgb[c];
            }
        assert_int_equal(tc_filter(ctx, plane, filtered[c], w, h, &p), TC_OK);
    }
    const tc_roi roi = {3, 1, 1, 2, w - 4, h - 3};
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < planes; c++) {
                const float v = filtered[c][(size_t)y * w + x];
                if (out == TC_PIXELS_FLOAT32) {
                    float got;
                    memcpy(&got, dev + (size_t)c * h * out_row + (size_t)y * out_row + 4 * x, 4);
                    assert_memory_equal(&got, &v, sizeof v);
                    continue;
                }
                const int inside = tc_roi_in_target(&roi, x, y);
                const int at = out == TC_PIXELS_RGB24 || planes == 1 ? c : 2 - c;
                assert_int_equal(dev[(size_t)y * out_row + (size_t)x * ob + at],
                                 tc_map_byte(v, inside ? scale : 1.0, inside ? offset : 0.0));
            }
    for (int c = 0; c < planes; c++)
        free(filtered[c]);
    free(plane);
    free(dev);
    free(host);
    free(in_data);
}

static void test_every_layout_in_and_out(void **state)
{
    const tc_pixel_format ins[] = {TC_PIXELS_GRAY8, TC_PIXELS_RGB24, TC_PIXELS_BGR24,
                                   TC_PIXELS_BGRX32, TC_PIXELS_INDEXED8};
    (void)state;
    for (size_t i = 0; i < sizeof ins / sizeof ins[0]; i++) {
        check_layouts(ins[i], TC_PIXELS_GRAY8, 0, 37, 23, 1, TC_BORDER_REPLICATE, 1.0, 0.0);
        check_layouts(ins[i], TC_PIXELS_BGR24, 0, 37, 23, 1, TC_BORDER_REFLECT101, 1.0, 0.0);
        check_layouts(ins[i], TC_PIXELS_RGB24, 0, 33, 19, 0, TC_BORDER_CONSTANT, 1.0, 0.0);
        check_layouts(ins[i], TC_PIXELS_BGRX32, 0, 20, 21, 0, TC_BORDER_WRAP, 1.0, 0.0);
        check_layouts(ins[i], TC_PIXELS_FLOAT32, 1, 37, 23, 1, TC_BORDER_REFLECT, 1.0, 0.0);
        check_layouts(ins[i], TC_PIXELS_FLOAT32, 3, 37, 23, 0, TC_BORDER_REPLICATE, 1.0, 0.0);
    }
}

/* Output mappings that put many values on .5 exactly, where the rounding rule decides: the
 * filtered planes of 8-bit input with the 5-tap binomial are multiples of 1/256, so
 * 2 v - 128.5 and -v + 255.5 hit k + 0.5 often; both paths must agree everywhere. */
static void test_mapping_on_halves(void **state)
{
    (void)state;
    check_layouts(TC_PIXELS_GRAY8, TC_PIXELS_GRAY8, 0, 41, 17, 0, TC_BORDER_REPLICATE, 0.5, 0.25);
    check_layouts(TC_PIXELS_BGR24, TC_PIXELS_BGR24, 0, 41, 17, 1, TC_BORDER_REPLICATE, 2.0,
                  -128.5);
    check_layouts(TC_PIXELS_INDEXED8, TC_PIXELS_GRAY8, 0, 41, 17, 1, TC_BORDER_REPLICATE, -1.0,
                  255.5);
}

static void test_bad_images_refused(void **state)
{
    unsigned char pix[4 * 4] = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 9};
    unsigned char out[4 * 4], palette[3 * 4] = {0};
    tc_params p;
    (void)state;
    tc_params_init(&p);
    tc_image src = {TC_PIXELS_INDEXED8, 4, 4, 0, pix, 4, palette, 4};
    tc_image dst = {TC_PIXELS_GRAY8, 4, 4, 0, out, 4, NULL, 0};
    assert_int_equal(tc_filter_image(ctx, &src, &dst, &p), TC_EINVAL);
    assert_non_null(strstr(tc_error(ctx), "palette index 9"));
    pix[15] = 3;
    assert_int_equal(tc_filter_image(ctx, &src, &dst, &p), TC_OK);
    dst.width = 3; /* sizes differ */
    assert_int_equal(tc_filter_image(ctx, &src, &dst, &p), TC_EINVAL);
    dst.width = 4;
    dst.stride = 2; /* shorter than a row */
    assert_int_equal(tc_filter_image(ctx, &src, &dst, &p), TC_EINVAL);
    assert_non_null(strstr(tc_error(ctx), "stride"));
    dst.stride = 4;
    dst.format = TC_PIXELS_INDEXED8;
    assert_int_equal(tc_filter_image(ctx, &src, &dst, &p), TC_EINVAL);
    dst.format = TC_PIXELS_GRAY8;
    src.palette = NULL;
    assert_int_equal(tc_filter_image(ctx, &src, &dst, &p), TC_EINVAL);
}

/* A batch with a palette index past its palette (image 2, after one the host converts and
 * one the pipeline takes) is refused before any image is filtered, naming image 2 by its
 * place in the call. */
static void test_bad_palette_in_a_batch(void **state)
{
    unsigned char pix[4 * 4] = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 9};
    unsigned char palette[3 * 4] = {0}, gray[4 * 4] = {7};
    float planes[4 * 4] = {1.0f};
    unsigned char out[4][4 * 4 * 4];
    tc_params p;
    (void)state;
    tc_params_init(&p);
    memset(out, 0xA5, sizeof out);
    const tc_image src[4] = {{TC_PIXELS_FLOAT32, 4, 4, 1, planes, 16, NULL, 0},
                             {TC_PIXELS_GRAY8, 4, 4, 0, gray, 4, NULL, 0},
                             {TC_PIXELS_INDEXED8, 4, 4, 0, pix, 4, palette, 4},
                             {TC_PIXELS_GRAY8, 4, 4, 0, gray, 4, NULL, 0}};
    const tc_image dst[4] = {{TC_PIXELS_FLOAT32, 4, 4, 1, out[0], 16, NULL, 0},
                             {TC_PIXELS_GRAY8, 4, 4, 0, out[1], 4, NULL, 0},
                             {TC_PIXELS_GRAY8, 4, 4, 0, out[2], 4, NULL, 0},
                             {TC_PIXELS_GRAY8, 4, 4, 0, out[3], 4, NULL, 0}};
    assert_int_equal(tc_filter_images(ctx, src, dst, 4, &p), TC_EINVAL);
    assert_non_null(strstr(tc_error(ctx), "images[2]: src: pixel (3, 3) is palette index 9"));
    for (size_t i = 0; i < sizeof out; i++)
        assert_int_equal(((unsigned char *)out)[i], 0xA5);
    pix[15] = 3;
    assert_int_equal(tc_filter_images(ctx, src, dst, 4, &p), TC_OK);
}

/* A BMP-like dst: bottom-up rows of 451 bytes padded to 452, over a buffer full of garbage:
 * every pixel right, every padding byte between rows 0, nothing past the block touched; and a
 * second image through the same device buffers leaves nothing of the first. */
static void test_padded_bottom_up_rows(void **state)
{
    enum { W = 451, H = 7, S = 452 };
    unsigned char in[W * H], out[S * H + 16], host[S * H + 16];
    tc_params p;
    (void)state;
    tc_params_init(&p);
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < W * H; i++)
            in[i] = (unsigned char)(next() >> (round * 3));
        memset(out, 0xAA, sizeof out);
        memset(host, 0xAA, sizeof host);
        tc_image src = {TC_PIXELS_GRAY8, W, H, 0, in, W, NULL, 0};
        tc_image dst = {TC_PIXELS_GRAY8, W, H, 0, out + (size_t)S * (H - 1), -S, NULL, 0};
        assert_int_equal(tc_filter_image(ctx, &src, &dst, &p), TC_OK);
        p.convert_on_host = 1;
        dst.data = host + (size_t)S * (H - 1);
        assert_int_equal(tc_filter_image(ctx, &src, &dst, &p), TC_OK);
        p.convert_on_host = 0;
        for (int r = 0; r < H; r++) { /* rows in memory order: the picture's last first */
            assert_memory_equal(out + (size_t)r * S, host + (size_t)r * S, W);
            if (r < H - 1)
                assert_int_equal(out[(size_t)r * S + W], 0); /* padding between rows */
        }
        for (size_t i = (size_t)S * (H - 1) + W; i < sizeof out; i++)
            assert_int_equal(out[i], 0xAA); /* past the block: untouched */
    }
}

/* Images larger than a staging chunk move in several, the copy of one beside the transfer of
 * the other: small chunks here (the tuning's staging-chunk), bytes and float planes, every
 * layout again; the results must not change. */
static void test_many_staging_chunks(void **state)
{
    (void)state;
    test_tune("staging-chunk=1000");
    check_layouts(TC_PIXELS_BGR24, TC_PIXELS_BGR24, 0, 101, 37, 1, TC_BORDER_REPLICATE, 1.0, 0.0);
    check_layouts(TC_PIXELS_INDEXED8, TC_PIXELS_GRAY8, 0, 77, 29, 1, TC_BORDER_WRAP, 0.5, 0.25);
    check_layouts(TC_PIXELS_RGB24, TC_PIXELS_FLOAT32, 3, 300, 9, 0, TC_BORDER_REFLECT, 1.0, 0.0);
    test_tune("staging-chunk=64"); /* a float row is more than a chunk */
    check_layouts(TC_PIXELS_GRAY8, TC_PIXELS_FLOAT32, 1, 45, 11, 0, TC_BORDER_CONSTANT, 1.0, 0.0);
    test_untune();
}

/* The premise of running GRAY8 pairs through the channel-last pipeline: a gray sample's
 * intensity (0.299 g + 0.587 g + 0.114 g in double, rounded to float) is g itself. */
static void test_gray_intensity_is_the_sample(void **state)
{
    (void)state;
    for (int g = 0; g < 256; g++)
        assert_true(tc_intensity((uint8_t)g, (uint8_t)g, (uint8_t)g) == (float)g);
}

/* One image of a batch: pixels in, a dst block filled with garbage (0xA5) around its rows. */
typedef struct {
    tc_pixel_format in, out;
    int w, h, bottom_up;
    long in_row, out_row;
    unsigned char *in_data, *batch, *single;
    size_t out_size;
} batch_case;

static void make_case(batch_case *c, tc_pixel_format in, tc_pixel_format out, int w, int h,
                      int bottom_up, int gap)
{
    const int ob = out == TC_PIXELS_FLOAT32 ? 4 : bytes_of(out);
    c->in = in;
    c->out = out;
    c->w = w;
    c->h = h;
    c->bottom_up = bottom_up;
    c->in_row = ((long)w * bytes_of(in) + 3) / 4 * 4;
    c->out_row = (long)w * ob + gap;
    c->out_size = (size_t)c->out_row * (size_t)h + 32;
    c->in_data = malloc((size_t)c->in_row * (size_t)h);
    c->batch = malloc(c->out_size);
    c->single = malloc(c->out_size);
    assert_non_null(c->in_data);
    assert_non_null(c->batch);
    assert_non_null(c->single);
    for (long i = 0; i < c->in_row * h; i++)
        c->in_data[i] = (unsigned char)next();
    memset(c->batch, 0xA5, c->out_size);
    memset(c->single, 0xA5, c->out_size);
}

static tc_image case_src(const batch_case *c)
{
    return (tc_image){c->in, c->w, c->h, 0,
                      c->bottom_up ? c->in_data + (size_t)c->in_row * (size_t)(c->h - 1)
                                   : c->in_data,
                      c->bottom_up ? -c->in_row : c->in_row, NULL, 0};
}

static tc_image case_dst(const batch_case *c, unsigned char *block)
{
    const int planes = c->out == TC_PIXELS_FLOAT32 ? 1 : 0;
    return (tc_image){c->out, c->w, c->h, planes,
                      c->bottom_up ? block + (size_t)c->out_row * (size_t)(c->h - 1) : block,
                      c->bottom_up ? -c->out_row : c->out_row, NULL, 0};
}

/* tc_filter_images over the older layouts: pairs the pipeline moves as channel-last views
 * (gray, RGB and BGR to themselves, gray to one float plane; padded, bottom-up) and, in a
 * second batch, with a pair it moves as raw bytes for Pixels.cl to convert (BGRX to gray,
 * first), all in one run; every image's block equals its single call's byte for byte: the
 * padding between rows zeroed, the bytes past the rows untouched. */
static void test_batches_of_older_layouts(void **state)
{
    enum { N = 6 };
    batch_case c[N];
    tc_image s[N], d[N];
    tc_params p;
    (void)state;
    tc_params_init(&p);
    p.taps_x = p.taps_y = 5;
    p.src_left = 2;
    p.roi_width = 20;
    make_case(&c[0], TC_PIXELS_GRAY8, TC_PIXELS_GRAY8, 37, 23, 1, 3);
    make_case(&c[1], TC_PIXELS_RGB24, TC_PIXELS_RGB24, 33, 19, 0, 5);
    make_case(&c[2], TC_PIXELS_BGR24, TC_PIXELS_BGR24, 41, 17, 1, 1);
    make_case(&c[3], TC_PIXELS_GRAY8, TC_PIXELS_FLOAT32, 37, 23, 0, 8);
    make_case(&c[4], TC_PIXELS_GRAY8, TC_PIXELS_GRAY8, 64, 9, 0, 0);
    make_case(&c[5], TC_PIXELS_BGRX32, TC_PIXELS_GRAY8, 30, 11, 1, 2);
    for (int round = 0; round < 2; round++) {
        /* The second batch has the BGRX pair, first, in the same run as the others: each
         * gets its own bytes. */
        const int n = round == 0 ? N - 1 : N;
        batch_case *b[N];
        for (int i = 0; i < n; i++)
            b[i] = &c[round == 0 ? i : (i + N - 1) % N];
        for (int i = 0; i < n; i++) {
            memset(b[i]->batch, 0xA5, b[i]->out_size);
            s[i] = case_src(b[i]);
            d[i] = case_dst(b[i], b[i]->batch);
        }
        assert_int_equal(tc_filter_images(ctx, s, d, n, &p), TC_OK);
        for (int i = 0; i < n; i++) {
            tc_image one = case_dst(b[i], b[i]->single);
            memset(b[i]->single, 0xA5, b[i]->out_size);
            assert_int_equal(tc_filter_image(ctx, &s[i], &one, &p), TC_OK);
            assert_memory_equal(b[i]->batch, b[i]->single, b[i]->out_size);
            /* The last row stored ends the writes: what follows it is the garbage. */
            const size_t row = (size_t)b[i]->w * (size_t)(b[i]->out == TC_PIXELS_FLOAT32
                                                               ? 4
                                                               : bytes_of(b[i]->out));
            const size_t end = (size_t)b[i]->out_row * (size_t)(b[i]->h - 1) + row;
            for (size_t at = end; at < b[i]->out_size; at++)
                assert_int_equal(b[i]->batch[at], 0xA5);
            /* The gaps between 8-bit rows are zero. */
            for (int r = 0; b[i]->out != TC_PIXELS_FLOAT32 && r < b[i]->h - 1; r++)
                for (size_t at = (size_t)r * (size_t)b[i]->out_row + row;
                     at < (size_t)(r + 1) * (size_t)b[i]->out_row; at++)
                    assert_int_equal(b[i]->batch[at], 0);
        }
    }
    for (int i = 0; i < N; i++) {
        free(c[i].in_data);
        free(c[i].batch);
        free(c[i].single);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_layout_in_and_out),
        cmocka_unit_test(test_mapping_on_halves),
        cmocka_unit_test(test_bad_images_refused),
        cmocka_unit_test(test_bad_palette_in_a_batch),
        cmocka_unit_test(test_padded_bottom_up_rows),
        cmocka_unit_test(test_many_staging_chunks),
        cmocka_unit_test(test_gray_intensity_is_the_sample),
        cmocka_unit_test(test_batches_of_older_layouts),
    };
    return cmocka_run_group_tests(tests, context_setup, context_teardown);
}
