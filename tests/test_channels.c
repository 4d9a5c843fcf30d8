/*
 * test_channels.c - the channel-last layouts of tc_filter_image and tc_filter_images (U8, U16,
 * F32 with 1, 3 or 4 channels; src/channels.c, src/stream.c, src/Channels.cl): every output
 * sample equals, bit for bit, the plain route (each channel's plane formed here, tc_filter on
 * it, then the command line's tc_map_byte / tc_map_word, or the float itself), on the device and
 * on the host; views with gaps between rows and bottom-up rows leave the gaps untouched; the
 * pinned ring and small chunks give the same bytes; batches of mixed sizes equal single calls,
 * the host's copies overlapped with the enqueues or not;
 * bad pairs are refused before anything is written.
 */
#include "test_util.h"
#include "test_context.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "tiledconv.h"
#include "tiledconv_internal.h"

static uint32_t rng = 777;
static uint32_t next(void)
{
    rng = rng * 1664525u + 1013904223u;
    return rng >> 8;
}

/* An image of w x h x c samples in format f, rows `gap` samples apart beyond the pixels, filled
 * at random (floats on 0..255 with fractions); bottom_up stores the rows the other way. The
 * block (*block, *block_size) is what was allocated; gap bytes hold 0xA5. */
typedef struct {
    tc_image img;
    unsigned char *block;
    size_t block_size;
} test_image;

static test_image make_image(tc_pixel_format f, int w, int h, int c, size_t gap, int bottom_up,
                             int fill)
{
    test_image t;
    const size_t row = (size_t)w * (size_t)c * sample_bytes(f);
    const size_t stride = row + gap * sample_bytes(f);
    t.block_size = stride * (size_t)h;
    t.block = malloc(t.block_size);
    assert_non_null(t.block);
    memset(t.block, 0xA5, t.block_size);
    t.img = (tc_image){f, w, h, c, bottom_up ? t.block + stride * (size_t)(h - 1) : t.block,
                       bottom_up ? -(long)stride : (long)stride, NULL, 0};
    for (int y = 0; fill && y < h; y++) {
        unsigned char *r = (unsigned char *)t.img.data + (long)y * t.img.stride;
        for (size_t i = 0; i < (size_t)w * (size_t)c; i++) {
            if (f == TC_PIXELS_U8) {
                r[i] = (unsigned char)next();
            } else if (f == TC_PIXELS_U16) {
                const uint16_t v = (uint16_t)next();
                memcpy(r + 2 * i, &v, 2);
            } else {
                const float v = (float)(next() % 25600) / 100.0f;
                memcpy(r + 4 * i, &v, 4);
            }
        }
    }
    return t;
}

/* Sample (x, ch) of row y on the 0..255 scale, the command line's way. */
static float sample(const tc_image *img, int x, int y, int ch)
{
    const unsigned char *at = (const unsigned char *)img->data + (long)y * img->stride +
                              ((size_t)x * (size_t)img->planes + (size_t)ch) *
                                  sample_bytes(img->format);
    if (img->format == TC_PIXELS_U8)
        return (float)at[0];
    if (img->format == TC_PIXELS_U16) {
        uint16_t v;
        memcpy(&v, at, 2);
        return (float)((double)v * 255.0 / 65535.0);
    }
    float v;
    memcpy(&v, at, 4);
    return v;
}

/* The expected output of src through p into an image of dst's format: each channel's plane
 * filtered by tc_filter, mapped by tc_map_byte / tc_map_word inside the target ROI (identity
 * outside), floats as they are. Written into want (dst's layout). */
static void expected(const tc_image *src, const tc_image *want, const tc_params *p)
{
    const int w = src->width, h = src->height;
    float *in = malloc((size_t)w * h * sizeof *in), *out = malloc((size_t)w * h * sizeof *out);
    tc_stats st;
    assert_non_null(in);
    assert_non_null(out);
    for (int ch = 0; ch < src->planes; ch++) {
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                in[(size_t)y * w + x] = sample(src, x, y, ch);
        assert_int_equal(tc_filter(ctx, in, out, w, h, p), TC_OK);
        assert_int_equal(tc_last_stats(ctx, &st), TC_OK);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const int inside = x >= p->dst_left && x < p->dst_left + st.roi_width &&
                                   y >= p->dst_top && y < p->dst_top + st.roi_height;
                const double s = inside ? p->out_scale : 1.0, o = inside ? p->out_offset : 0.0;
                const float v = out[(size_t)y * w + x];
                unsigned char *at = (unsigned char *)want->data + (long)y * want->stride +
                                    ((size_t)x * (size_t)want->planes + (size_t)ch) *
                                        sample_bytes(want->format);
                if (want->format == TC_PIXELS_U8) {
                    at[0] = tc_map_byte(v, s, o);
                } else if (want->format == TC_PIXELS_U16) {
                    const uint16_t m = tc_map_word(v, s, o);
                    memcpy(at, &m, 2);
                } else {
                    memcpy(at, &v, 4);
                }
            }
    }
    free(in);
    free(out);
}

/* Row by row: the pixels equal, and the gap bytes of `got` untouched (0xA5). */
static void same_rows(const test_image *got, const test_image *want, const char *what)
{
    const tc_image *g = &got->img, *e = &want->img;
    const size_t row = (size_t)g->width * (size_t)g->planes * sample_bytes(g->format);
    for (int y = 0; y < g->height; y++)
        if (memcmp((unsigned char *)g->data + (long)y * g->stride,
                   (unsigned char *)e->data + (long)y * e->stride, row) != 0)
            fail_msg("%s: row %d differs", what, y);
    const size_t stride = (size_t)(g->stride < 0 ? -g->stride : g->stride);
    for (size_t at = 0; at < got->block_size; at++)
        if (at % stride >= row && got->block[at] != 0xA5)
            fail_msg("%s: gap byte %zu was written", what, at);
}

static void free_image(test_image *t)
{
    free(t->block);
    t->block = NULL;
}

/* One case on the device and with the conversions on the host. */
static void check_case(tc_pixel_format in, tc_pixel_format out, int c, int w, int h, size_t gap,
                       int bottom_up, const tc_params *base)
{
    char what[160];
    test_image src = make_image(in, w, h, c, gap, bottom_up, 1);
    test_image want = make_image(out, w, h, c, 0, 0, 0);
    tc_params p = *base;
    expected(&src.img, &want.img, &p);
    for (int host = 0; host < 2; host++) {
        test_image got = make_image(out, w, h, c, gap + 3, !bottom_up, 0);
        p.convert_on_host = host;
        snprintf(what, sizeof what, "%d -> %d, %d channels, %dx%d, gap %zu%s%s", (int)in,
                 (int)out, c, w, h, gap, bottom_up ? ", bottom-up" : "",
                 host ? ", on the host" : "");
        const int status = tc_filter_image(ctx, &src.img, &got.img, &p);
        if (status != TC_OK)
            fail_msg("%s: %s", what, tc_error(ctx));
        same_rows(&got, &want, what);
        tc_stats st;
        assert_int_equal(tc_last_stats(ctx, &st), TC_OK);
        assert_int_equal(st.planes, c);
        free_image(&got);
    }
    /* Three at once in one call (whose copies go a round at a time on a crew). */
    test_image many[3];
    tc_image s3[3], d3[3];
    p.convert_on_host = 0;
    for (int i = 0; i < 3; i++) {
        many[i] = make_image(out, w, h, c, gap + (size_t)i, i == 1, 0);
        s3[i] = src.img;
        d3[i] = many[i].img;
    }
    snprintf(what, sizeof what, "%d -> %d, %d channels, %dx%d, gap %zu, three a call", (int)in,
             (int)out, c, w, h, gap);
    if (tc_filter_images(ctx, s3, d3, 3, &p) != TC_OK)
        fail_msg("%s: %s", what, tc_error(ctx));
    for (int i = 0; i < 3; i++) {
        same_rows(&many[i], &want, what);
        free_image(&many[i]);
    }
    free_image(&src);
    free_image(&want);
}

static void test_every_format_and_channel_count(void **state)
{
    (void)state;
    const tc_pixel_format formats[3] = {TC_PIXELS_U8, TC_PIXELS_U16, TC_PIXELS_F32};
    const int channels[3] = {1, 3, 4};
    tc_params p;
    tc_params_init(&p);
    p.taps_x = p.taps_y = 5;
    for (int i = 0; i < 3; i++)
        for (int o = 0; o < 3; o++)
            for (int c = 0; c < 3; c++)
                check_case(formats[i], formats[o], channels[c], 37, 21, 0, 0, &p);
}

/* A ROI inside the image (pixels outside it only converted), a mapping whose values land on
 * halves, the constant border, gaps between rows and bottom-up rows. */
static void test_roi_mapping_views(void **state)
{
    (void)state;
    tc_params p;
    tc_params_init(&p);
    test_set_roi(&p, 3, 2, 5, 1, 20, 12);
    p.border = TC_BORDER_CONSTANT;
    p.border_value = 200.0f;
    p.out_scale = 0.5;
    p.out_offset = 10.25;
    check_case(TC_PIXELS_U8, TC_PIXELS_U8, 3, 33, 17, 5, 0, &p);
    check_case(TC_PIXELS_U16, TC_PIXELS_U16, 4, 33, 17, 6, 1, &p);
    check_case(TC_PIXELS_U16, TC_PIXELS_U8, 1, 33, 17, 0, 1, &p);
    check_case(TC_PIXELS_F32, TC_PIXELS_U16, 3, 33, 17, 12, 0, &p);
    check_case(TC_PIXELS_U8, TC_PIXELS_F32, 4, 33, 17, 1, 1, &p);
}

/* The 16-bit rule end to end: through the identity-like 1 x 3 filter [0 1 0] every sample of a
 * 16-bit image comes back as itself (v -> v * 255 / 65535 -> round(v' * 65535 / 255)). */
static void test_sixteen_bits_round_trip(void **state)
{
    (void)state;
    const float identity[3] = {0.0f, 1.0f, 0.0f};
    enum { W = 256, H = 256 };
    static uint16_t in[W * H], out[W * H];
    for (int i = 0; i < W * H; i++)
        in[i] = (uint16_t)i;
    tc_image src = {TC_PIXELS_U16, W, H, 1, in, W * 2, NULL, 0};
    tc_image dst = {TC_PIXELS_U16, W, H, 1, out, W * 2, NULL, 0};
    tc_params p;
    tc_params_init(&p);
    p.kx = p.ky = identity;
    assert_int_equal(tc_filter_image(ctx, &src, &dst, &p), TC_OK);
    assert_memory_equal(in, out, sizeof in);
}

/* The pinned ring: chunks of 64 bytes through 256, 64 and 192 bytes of pinned memory (an image
 * of many times that), as the tests' knobs set them; the same bytes as the default; the copies
 * on one thread and on a crew (there, a call of several images goes a round at a time). */
static void small_chunks_and_ring(int threads)
{
    char setting[32];
    tc_params p;
    tc_params_init(&p);
    p.taps_x = 7;
    p.taps_y = 3;
    snprintf(setting, sizeof setting, "copy-threads=%d", threads);
    test_tune(setting);
    test_tune("staging-chunk=64");
    test_tune("pinned-bytes=256");
    check_case(TC_PIXELS_U8, TC_PIXELS_U16, 3, 41, 19, 7, 1, &p);
    check_case(TC_PIXELS_F32, TC_PIXELS_F32, 1, 41, 19, 0, 0, &p);
    /* A ring of one chunk (every round waits for the one before) and of three (rounds of one
     * chunk that do not split the ring in halves). */
    test_tune("pinned-bytes=64");
    check_case(TC_PIXELS_U8, TC_PIXELS_U8, 3, 41, 19, 5, 1, &p);
    test_tune("pinned-bytes=192");
    check_case(TC_PIXELS_U16, TC_PIXELS_F32, 1, 41, 19, 0, 1, &p);
    test_tune("staging-chunk=100"); /* not a divisor of anything */
    test_tune("pinned-bytes=");
    check_case(TC_PIXELS_U16, TC_PIXELS_U8, 4, 41, 19, 2, 0, &p);
    /* A ring of five chunks of 300,032 bytes, in a context of its own (a ring only grows):
     * rounds of two, the third wrapping round the ring's end. */
    tc_context *shared = ctx;
    char err[512];
    assert_int_equal(tc_open(NULL, &ctx, err, sizeof err), TC_OK);
    test_tune("staging-chunk=300032");
    test_tune("pinned-bytes=1500160");
    check_case(TC_PIXELS_U8, TC_PIXELS_U8, 3, 1024, 512, 5, 1, &p);
    check_case(TC_PIXELS_U8, TC_PIXELS_U8, 1, 1024, 1000, 0, 0, &p);
    tc_close(ctx);
    ctx = shared;
    test_untune();
}

static void test_small_chunks_and_ring(void **state)
{
    (void)state;
    small_chunks_and_ring(1);
    small_chunks_and_ring(3);
}

/* The algorithms that run through tc_run_resident (twopass, bilinear's images, the class
 * counters) and the mask kernels give the plain route's bytes too. */
static void test_other_algorithms(void **state)
{
    (void)state;
    static const float lap[9] = {0, 1, 0, 1, -4, 1, 0, 1, 0};
    tc_params p;
    tc_params_init(&p);
    p.algorithm = TC_TWOPASS;
    check_case(TC_PIXELS_U8, TC_PIXELS_U8, 3, 29, 13, 0, 0, &p);
    p.algorithm = TC_ONEPASS;
    check_case(TC_PIXELS_U16, TC_PIXELS_F32, 3, 29, 13, 0, 0, &p);
    p.algorithm = TC_TILED;
    p.count_classes = 1;
    check_case(TC_PIXELS_U8, TC_PIXELS_U8, 4, 29, 13, 0, 0, &p);
    tc_params_init(&p);
    p.mask = lap;
    p.mask_width = p.mask_height = 3;
    p.out_offset = 128.0;
    check_case(TC_PIXELS_U8, TC_PIXELS_U8, 1, 29, 13, 0, 0, &p);
}

/* A second call of the same sizes builds nothing; sizes that alternate keep working (the
 * prepared launches of several sizes, the slots' buffers grown). */
static void test_cached_launches(void **state)
{
    (void)state;
    tc_params p;
    tc_stats a, b;
    tc_params_init(&p);
    check_case(TC_PIXELS_U8, TC_PIXELS_U8, 1, 64, 32, 0, 0, &p);
    assert_int_equal(tc_last_stats(ctx, &a), TC_OK);
    check_case(TC_PIXELS_U8, TC_PIXELS_U8, 1, 64, 32, 0, 0, &p);
    assert_int_equal(tc_last_stats(ctx, &b), TC_OK);
    assert_int_equal(b.programs_built, a.programs_built);
    assert_true(b.build_ms == 0.0);
    for (int i = 0; i < 6; i++)
        check_case(TC_PIXELS_U8, TC_PIXELS_U8, 1 + 2 * (i % 2), 20 + 9 * i, 9 + i, 0, 0, &p);
}

/* The conversions' time of the last call: 0 where no unpack or pack ran (timed calls). */
static double last_convert_ms(void)
{
    tc_stats st;
    assert_int_equal(tc_last_stats(ctx, &st), TC_OK);
    return st.convert_ms;
}

/* A gray 8-bit image with a whole-image ROI and the identity mapping goes through one kernel
 * that reads and writes its bytes (stream.c's fused_bytes, Common.cl's TC_IO_U8): the plain
 * route's bytes, alone and three a call, for the tiled kernel's lengths and the long kernel's,
 * every border, widths that are no multiple of 4, gaps between rows and bottom-up rows,
 * coefficients that push values past 0 and 255 and onto halves; no unpack or pack ran (their
 * time is 0), and with fused-bytes=0 they did, with the same bytes. */
static void test_fused_bytes(void **state)
{
    (void)state;
    static const float sharpen[5] = {-0.5f, -0.25f, 2.5f, -0.25f, -0.5f};
    static const float halves[3] = {0.25f, 0.5f, 0.25f};
    const struct {
        int w, h, taps_x, taps_y;
        tc_border border;
        const float *kx, *ky;
        size_t gap;
        int bottom_up;
    } cases[] = {
        {37, 21, 3, 3, TC_BORDER_REPLICATE, halves, halves, 0, 0},
        {70, 45, 5, 5, TC_BORDER_REFLECT101, sharpen, sharpen, 3, 1},
        {131, 67, 9, 5, TC_BORDER_CONSTANT, NULL, NULL, 0, 0},
        {64, 64, 15, 15, TC_BORDER_WRAP, NULL, NULL, 1, 0},
        {45, 70, 17, 17, TC_BORDER_REFLECT, NULL, NULL, 0, 1},
        {97, 41, 31, 31, TC_BORDER_REPLICATE, NULL, NULL, 2, 0},
        {33, 29, 31, 3, TC_BORDER_CONSTANT, NULL, halves, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tc_params p;
        tc_params_init(&p);
        p.taps_x = cases[i].taps_x;
        p.taps_y = cases[i].taps_y;
        p.kx = cases[i].kx;
        p.ky = cases[i].ky;
        p.border = cases[i].border;
        p.border_value = 200.5f;
        check_case(TC_PIXELS_U8, TC_PIXELS_U8, 1, cases[i].w, cases[i].h, cases[i].gap,
                   cases[i].bottom_up, &p);
        assert_true(last_convert_ms() == 0.0);
        test_tune("fused-bytes=0");
        check_case(TC_PIXELS_U8, TC_PIXELS_U8, 1, cases[i].w, cases[i].h, cases[i].gap,
                   cases[i].bottom_up, &p);
        assert_true(last_convert_ms() > 0.0);
        test_untune();
    }
    /* Not fused: a ROI inside the image, a mapping, an output of another type. */
    tc_params p;
    tc_params_init(&p);
    test_set_roi(&p, 1, 1, 1, 1, 30, 15);
    check_case(TC_PIXELS_U8, TC_PIXELS_U8, 1, 37, 21, 0, 0, &p);
    assert_true(last_convert_ms() > 0.0);
    tc_params_init(&p);
    p.out_offset = 1.0;
    check_case(TC_PIXELS_U8, TC_PIXELS_U8, 1, 37, 21, 0, 0, &p);
    assert_true(last_convert_ms() > 0.0);
}

/* Page-locked rows (tc_host_alloc) move directly; packed ones are then filtered as bytes by the
 * one kernel, rows with bytes between them (the caller's stride comes up with them) by the
 * three; both the plain route's bytes. */
static void test_fused_bytes_page_locked(void **state)
{
    (void)state;
    enum { W = 203, H = 57 };
    for (int gap = 0; gap <= 5; gap += 5) {
        const size_t stride = W + (size_t)gap;
        unsigned char *in = tc_host_alloc(ctx, stride * H), *out = tc_host_alloc(ctx, W * H);
        assert_non_null(in);
        assert_non_null(out);
        test_image src = make_image(TC_PIXELS_U8, W, H, 1, (size_t)gap, 0, 1);
        test_image want = make_image(TC_PIXELS_U8, W, H, 1, 0, 0, 0);
        memcpy(in, src.block, stride * H);
        tc_image s = {TC_PIXELS_U8, W, H, 1, in, (long)stride, NULL, 0};
        tc_image d = {TC_PIXELS_U8, W, H, 1, out, W, NULL, 0};
        tc_params p;
        tc_params_init(&p);
        p.taps_x = p.taps_y = 7;
        expected(&s, &want.img, &p);
        tc_direct_counts before, after;
        tc_direct_transfers(ctx, &before);
        assert_int_equal(tc_filter_image(ctx, &s, &d, &p), TC_OK);
        tc_direct_transfers(ctx, &after);
        assert_true(after.up == before.up + 1 && after.down == before.down + 1);
        assert_memory_equal(out, want.block, (size_t)W * H);
        if (gap == 0)
            assert_true(last_convert_ms() == 0.0);
        else
            assert_true(last_convert_ms() > 0.0);
        tc_host_free(ctx, in);
        tc_host_free(ctx, out);
        free_image(&src);
        free_image(&want);
    }
}

/* A batch of N images of mixed sizes, formats and channel counts (more than the three slots,
 * growing so that the slots' rings are made anew on the way), each equal to its own single
 * call, with the study settings given in force; how many of its images went the overlapped
 * way (stream.c: the host's copies beside another image's enqueues). */
enum { N = 8 };
static int untimed; /* tc_set_timing(ctx, 0) in force: no kernel or conversion times */
static unsigned long long check_batch(const char *const *settings, int count)
{
    const tc_pixel_format formats[3] = {TC_PIXELS_U8, TC_PIXELS_U16, TC_PIXELS_F32};
    test_image src[N], got[N], want[N];
    tc_image s[N], d[N];
    tc_params p;
    tc_direct_counts before, after;
    char err[256];
    tc_params_init(&p);
    p.taps_x = p.taps_y = 7;
    for (int i = 0; i < N; i++) {
        const int c = i % 3 == 0 ? 1 : i % 3 == 1 ? 3 : 4;
        const int w = 17 + 13 * (i % 4), h = 9 + 5 * (i / 3);
        src[i] = make_image(formats[i % 3], w, h, c, (size_t)(i % 2) * 8, i % 2, 1);
        got[i] = make_image(formats[(i + 1) % 3], w, h, c, 4, 0, 0);
        want[i] = make_image(formats[(i + 1) % 3], w, h, c, 0, 0, 0);
        expected(&src[i].img, &want[i].img, &p);
        s[i] = src[i].img;
        d[i] = got[i].img;
    }
    for (int i = 0; i < count; i++)
        if (tc_tune(settings[i], err, sizeof err) != TC_OK)
            fail_msg("%s: %s", settings[i], err);
    tc_direct_transfers(ctx, &before);
    const int status = tc_filter_images(ctx, s, d, N, &p);
    tc_direct_transfers(ctx, &after);
    tc_set_tuning(NULL);
    if (status != TC_OK)
        fail_msg("%s", tc_error(ctx));
    for (int i = 0; i < N; i++) {
        char what[64];
        snprintf(what, sizeof what, "batch image %d", i);
        same_rows(&got[i], &want[i], what);
    }
    /* The times, read when first asked (the batch kept its events: deferred_figures.h), are
     * the same when asked again. */
    tc_stats st, again;
    assert_int_equal(tc_last_stats(ctx, &st), TC_OK);
    if (untimed)
        assert_true(st.kernel_ms_median == 0.0 && st.convert_ms == 0.0);
    else
        assert_true(st.kernel_ms_median > 0.0 && st.convert_ms > 0.0);
    assert_int_equal(tc_last_stats(ctx, &again), TC_OK);
    assert_true(again.kernel_ms_median == st.kernel_ms_median &&
                again.upload_ms == st.upload_ms && again.download_ms == st.download_ms &&
                again.convert_ms == st.convert_ms);
    for (int i = 0; i < N; i++) {
        free_image(&src[i]);
        free_image(&got[i]);
        free_image(&want[i]);
    }
    return after.overlapped - before.overlapped;
}

/* Batches equal single calls: the device's own way (on a CPU device one slot, so not
 * overlapped); three and two slots with a crew, the copies overlapped (with chunks of 256
 * bytes too: many chunks a round); with rings too small for one round, the plain way again. */
static void test_batches(void **state)
{
    (void)state;
    static const char *const three[] = {"stream-slots=3", "copy-threads=4"};
    static const char *const two[] = {"stream-slots=2", "copy-threads=2", "staging-chunk=256"};
    static const char *const plain[] = {"stream-slots=3", "copy-threads=4", "batch-overlap=0"};
    static const char *const rounds[] = {"stream-slots=3", "copy-threads=4",
                                         "staging-chunk=256", "pinned-bytes=1024"};
    (void)check_batch(NULL, 0); /* overlapped on a GPU, not on a CPU device's one slot */
    assert_int_equal(check_batch(three, 2), N);
    assert_int_equal(check_batch(two, 3), N);
    assert_int_equal(check_batch(plain, 3), 0);
    assert_int_equal(check_batch(rounds, 4), 0);
}

/* With the context's timing off, a batch (overlapped, and the device's own way) gives the
 * same bytes with no kernel or conversion time; on again, the times come back. */
static void test_untimed_batches(void **state)
{
    (void)state;
    static const char *const three[] = {"stream-slots=3", "copy-threads=4"};
    tc_stats st;
    assert_int_equal(tc_set_timing(NULL, 0), TC_EINVAL);
    assert_int_equal(tc_set_timing(ctx, 0), TC_OK);
    untimed = 1;
    assert_int_equal(check_batch(three, 2), N);
    (void)check_batch(NULL, 0);
    assert_int_equal(tc_set_timing(ctx, 1), TC_OK);
    untimed = 0;
    (void)check_batch(NULL, 0);
    assert_int_equal(tc_last_stats(ctx, &st), TC_OK);
    assert_true(st.kernel_ms_median > 0.0);
}

/* An empty batch; a bad pair refused before anything is written. */
static void test_refused_batches(void **state)
{
    (void)state;
    const tc_pixel_format formats[3] = {TC_PIXELS_U8, TC_PIXELS_U16, TC_PIXELS_F32};
    test_image src[N], got[N];
    tc_image s[N], d[N];
    tc_params p;
    tc_params_init(&p);
    for (int i = 0; i < N; i++) {
        const int c = i % 3 == 0 ? 1 : i % 3 == 1 ? 3 : 4;
        src[i] = make_image(formats[i % 3], 20 + i, 11, c, 0, 0, 1);
        got[i] = make_image(formats[(i + 1) % 3], 20 + i, 11, c, 0, 0, 0);
        s[i] = src[i].img;
        d[i] = got[i].img;
    }
    assert_int_equal(tc_filter_images(ctx, s, d, 0, &p), TC_OK);
    /* Image 5 of 8 is bad: nothing at all is written. */
    for (int i = 0; i < N; i++)
        memset(got[i].block, 0xA5, got[i].block_size);
    d[5].planes = 2;
    assert_int_equal(tc_filter_images(ctx, s, d, N, &p), TC_EINVAL);
    assert_non_null(strstr(tc_error(ctx), "images[5]: "));
    for (int i = 0; i < N; i++)
        for (size_t at = 0; at < got[i].block_size; at++)
            if (got[i].block[at] != 0xA5)
                fail_msg("image %d byte %zu written by a refused batch", i, at);
    for (int i = 0; i < N; i++) {
        free_image(&src[i]);
        free_image(&got[i]);
    }
}

/* Pairs the channel layouts refuse, each naming what is wrong. */
static void test_bad_pairs(void **state)
{
    (void)state;
    static unsigned char a[4096], b[4096];
    tc_params p;
    tc_params_init(&p);
    const struct {
        tc_image src, dst;
        const char *named;
    } cases[] = {
        {{TC_PIXELS_U8, 8, 8, 3, a, 24, NULL, 0}, {TC_PIXELS_U8, 8, 8, 1, b, 8, NULL, 0},
         "src has 3 channels and dst 1"},
        {{TC_PIXELS_U8, 8, 8, 3, a, 24, NULL, 0}, {TC_PIXELS_RGB24, 8, 8, 0, b, 24, NULL, 0},
         "pair only with each other"},
        {{TC_PIXELS_U8, 8, 8, 2, a, 16, NULL, 0}, {TC_PIXELS_U8, 8, 8, 2, b, 16, NULL, 0},
         "1, 3 or 4 channels"},
        {{TC_PIXELS_U8, 8, 8, 3, a, 23, NULL, 0}, {TC_PIXELS_U8, 8, 8, 3, b, 24, NULL, 0},
         "a row needs 24 bytes"},
        {{TC_PIXELS_U8, 8, 8, 1, a, 8, NULL, 0}, {TC_PIXELS_U8, 9, 8, 1, b, 9, NULL, 0},
         "the same size"},
        {{TC_PIXELS_F32, 8, 8, 1, a + 2, 32, NULL, 0}, {TC_PIXELS_F32, 8, 8, 1, b, 32, NULL, 0},
         "aligned to 4 bytes"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(b, 0x5A, sizeof b);
        assert_int_equal(tc_filter_image(ctx, &cases[i].src, &cases[i].dst, &p), TC_EINVAL);
        if (!strstr(tc_error(ctx), cases[i].named))
            fail_msg("case %zu: \"%s\" does not say \"%s\"", i, tc_error(ctx), cases[i].named);
        for (size_t at = 0; at < sizeof b; at++)
            assert_int_equal(b[at], 0x5A);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_format_and_channel_count),
        cmocka_unit_test(test_roi_mapping_views),
        cmocka_unit_test(test_sixteen_bits_round_trip),
        cmocka_unit_test(test_small_chunks_and_ring),
        cmocka_unit_test(test_other_algorithms),
        cmocka_unit_test(test_cached_launches),
        cmocka_unit_test(test_fused_bytes),
        cmocka_unit_test(test_fused_bytes_page_locked),
        cmocka_unit_test(test_batches),
        cmocka_unit_test(test_untimed_batches),
        cmocka_unit_test(test_refused_batches),
        cmocka_unit_test(test_bad_pairs),
    };
    return cmocka_run_group_tests(tests, context_setup, context_teardown);
}
