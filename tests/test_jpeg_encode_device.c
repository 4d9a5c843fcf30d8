/*
 * test_jpeg_encode_device.c - JPEG files from coefficients made on the device (src/JpegEncode.cl,
 * src/jpeg_encode.c) and entropy-coded on the CPU (src/io/jpeg_coefs_write.c) equal
 * jpeg_encode's, byte for byte: gray, 4:4:4, 4:2:2 and 4:2:0; every size from 1 x 1 to 17 x 9
 * and larger ones whose sides are not multiples of 8 or 16; qualities 1 to 100 in steps; noise,
 * gradients, smooth and sharp content; TurboJPEG's TJ_OPTIMIZE, TJ_ARITHMETIC, TJ_RESTART and
 * TJ_PROGRESSIVE switches. The coefficients themselves equal those libjpeg reads back from
 * jpeg_encode's file (jpeg_read_coefficients), dummy blocks included, so that a failure says
 * whether the device's arithmetic or the writer differs. Layouts the kernel does not make and
 * tables of another quality are refused.
 */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "context.h"
#include "jpeg.h"
#include "jpeg_coefs_write.h"
#include "jpeg_encode.h"

#ifdef TC_HAVE_JPEGLIB
#include "test_context.h"

#include <jpeglib.h>

/* The four samplings jpeg_encode writes: gray for one channel, the chroma's for three. */
typedef struct {
    const char *name;
    int channels;
    io_jpeg_sampling sampling;
} sampling_case;

static const sampling_case samplings[] = {
    {"gray", 1, IO_JPEG_420},
    {"4:4:4", 3, IO_JPEG_444},
    {"4:2:2", 3, IO_JPEG_422},
    {"4:2:0", 3, IO_JPEG_420},
};
#define N_SAMPLINGS ((int)(sizeof samplings / sizeof samplings[0]))

static const int qualities[] = {1, 2, 5, 10, 25, 50, 75, 90, 95, 99, 100};
#define N_QUALITIES ((int)(sizeof qualities / sizeof qualities[0]))

/* What the pixels hold: seeded noise, gradients, a smooth pattern, sharp saturated edges (the
 * extremes of every colour conversion and the largest coefficients). */
enum { NOISE, GRADIENT, SMOOTH, SHARP, N_PATTERNS };
static const char *const pattern_names[] = {"noise", "gradient", "smooth", "sharp"};

static uint8_t pattern_sample(int pattern, int x, int y, int ch, int w, int h)
{
    switch (pattern) {
    case NOISE:
        return (uint8_t)(rng_next() >> 8);
    case GRADIENT: /* each channel along its own direction */
        return (uint8_t)(ch == 0   ? x * 255 / (w > 1 ? w - 1 : 1)
                         : ch == 1 ? y * 255 / (h > 1 ? h - 1 : 1)
                                   : (x + y) * 255 / (w + h > 2 ? w + h - 2 : 1));
    case SMOOTH: /* slow integer waves */
        return (uint8_t)(128 + ((x * 7 + y * 3 + ch * 40) % 64 < 32 ? 1 : -1) *
                                   ((x * 5 + y * 11 + ch * 17) % 97));
    default: /* 3 x 5 cells of 0 and 255, each channel its own phase */
        return (uint8_t)((((x / 3) + (y / 5) + ch) & 1) ? 255 : 0);
    }
}

static io_image make_image(int w, int h, int channels, int pattern)
{
    uint8_t *p = malloc((size_t)w * (size_t)h * (size_t)channels);
    assert_non_null(p);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < channels; c++)
                p[((size_t)y * (size_t)w + (size_t)x) * (size_t)channels + (size_t)c] =
                    pattern_sample(pattern, x, y, c, w, h);
    return (io_image){w, h, channels, 8, 255, p, NULL};
}

/* A JPEG file in memory: jpeg_encode's of img (the CPU's, c NULL), or the one written from the
 * coefficients c (the device's). */
static uint8_t *file_in_memory(const io_image *img, const jpeg_coefs *c, int quality,
                               size_t *size)
{
    char *buf = NULL, err[512] = "";
    FILE *f = open_memstream(&buf, size);
    assert_non_null(f);
    const int rc = c ? jpeg_coefs_encode(f, c, quality, "device", err, sizeof err)
                     : jpeg_encode(f, img, quality, "cpu", err, sizeof err);
    if (rc != 0)
        fail_msg("%s: %s", c ? "jpeg_coefs_encode" : "jpeg_encode", err);
    assert_int_equal(fclose(f), 0);
    return (uint8_t *)buf;
}

/* The coefficients of img made on the device, laid out for quality. */
static void device_coefs(const io_image *img, int quality, jpeg_coefs *c)
{
    char err[512] = "";
    tc_msg m = {{0}};
    cl_int cerr;
    if (jpeg_coefs_layout(img->width, img->height, img->channels, quality, c, "layout", err,
                          sizeof err) != 0)
        fail_msg("jpeg_coefs_layout: %s", err);
    cl_mem pixels = clCreateBuffer(ctx->device.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                   (size_t)img->width * (size_t)img->height *
                                       (size_t)img->channels,
                                   img->pixels, &cerr);
    assert_int_equal(cerr, CL_SUCCESS);
    const int status = tc_jpeg_encode_coefs(&ctx->device, &ctx->programs, pixels, c, NULL, &m);
    clReleaseMemObject(pixels);
    if (status != TC_OK)
        fail_msg("tc_jpeg_encode_coefs: %s", m.text);
}

/* ---- libjpeg's own coefficients of a file (jpeg_read_coefficients) ---- */

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
} read_trap;

static void read_error(j_common_ptr c)
{
    longjmp(((read_trap *)c->err)->jump, 1);
}

/* -1 when c's coefficients all equal the file's; else the component, and *block, *index the
 * first coefficient that differs (the values in *got, *want). */
static int first_difference(const uint8_t *file, size_t size, const jpeg_coefs *c, int *block,
                            int *index, int *got, int *want)
{
    struct jpeg_decompress_struct d;
    read_trap trap;
    volatile int found = -1; /* kept across the trap's longjmp */
    d.err = jpeg_std_error(&trap.pub);
    trap.pub.error_exit = read_error;
    if (setjmp(trap.jump)) {
        jpeg_destroy_decompress(&d);
        fail_msg("libjpeg cannot read jpeg_encode's file back");
    }
    jpeg_create_decompress(&d);
    jpeg_mem_src(&d, file, (unsigned long)size);
    jpeg_read_header(&d, TRUE);
    jvirt_barray_ptr *arrays = jpeg_read_coefficients(&d);
    assert_int_equal(d.num_components, c->components);
    for (int i = 0; i < c->components && found < 0; i++) {
        const jpeg_coef_component *k = &c->comp[i];
        assert_int_equal(d.comp_info[i].h_samp_factor, k->h_samp);
        assert_int_equal(d.comp_info[i].v_samp_factor, k->v_samp);
        for (int y = 0; y < k->blocks_high && found < 0; y++) {
            JBLOCKARRAY row = (*d.mem->access_virt_barray)((j_common_ptr)&d, arrays[i],
                                                           (JDIMENSION)y, 1, FALSE);
            for (int x = 0; x < k->blocks_wide && found < 0; x++)
                for (int j = 0; j < 64; j++) {
                    const int16_t v = k->coef[((size_t)y * (size_t)k->blocks_wide + x) * 64 + j];
                    if (v != row[0][x][j]) {
                        found = i;
                        *block = y * k->blocks_wide + x;
                        *index = j;
                        *got = v;
                        *want = row[0][x][j];
                        break;
                    }
                }
        }
    }
    jpeg_finish_decompress(&d);
    jpeg_destroy_decompress(&d);
    return found;
}

/* ---- The cases ---- */

/* One image through both paths: the files must be equal; when they are not, the message says
 * whether the coefficients already differ (the device's arithmetic) or not (the writer). */
static void check_case(const sampling_case *s, int w, int h, int pattern, int quality)
{
    io_image img = make_image(w, h, s->channels, pattern);
    jpeg_coefs c;
    size_t want_size = 0, got_size = 0;
    io_set_jpeg_sampling(s->sampling);
    uint8_t *want = file_in_memory(&img, NULL, quality, &want_size);
    device_coefs(&img, quality, &c);
    uint8_t *got = file_in_memory(NULL, &c, quality, &got_size);
    if (got_size != want_size || memcmp(got, want, want_size) != 0) {
        int block = 0, index = 0, v = 0, ref = 0;
        const int comp = first_difference(want, want_size, &c, &block, &index, &v, &ref);
        if (comp >= 0)
            fail_msg("%s %dx%d %s q%d: component %d block %d (of %d x %d) coefficient %d is %d, "
                     "libjpeg's %d",
                     s->name, w, h, pattern_names[pattern], quality, comp, block,
                     c.comp[comp].blocks_wide, c.comp[comp].blocks_high, index, v, ref);
        fail_msg("%s %dx%d %s q%d: the coefficients are libjpeg's, but the files differ (%zu "
                 "and %zu bytes)",
                 s->name, w, h, pattern_names[pattern], quality, got_size, want_size);
    }
    free(got);
    free(want);
    jpeg_coefs_free(&c);
    free(img.pixels);
    io_set_jpeg_sampling(IO_JPEG_420);
}

/* Every size from 1 x 1 to 17 x 9 in every sampling, the quality and content changing from
 * one to the next. */
static void test_small_sizes(void **state)
{
    int n = 0;
    (void)state;
    for (int si = 0; si < N_SAMPLINGS; si++)
        for (int h = 1; h <= 9; h++)
            for (int w = 1; w <= 17; w++, n++)
                check_case(&samplings[si], w, h, n % N_PATTERNS, qualities[n % N_QUALITIES]);
}

/* Every quality of the list, in every sampling, on sides that are not multiples of 16 (and
 * one not of 8), each content. */
static void test_qualities(void **state)
{
    (void)state;
    for (int si = 0; si < N_SAMPLINGS; si++)
        for (int q = 0; q < N_QUALITIES; q++)
            for (int p = 0; p < N_PATTERNS; p++)
                check_case(&samplings[si], 37 + 2 * p, 24 + 3 * q % 5, p, qualities[q]);
}

/* Larger images: VGA, and a frame one pixel short of 1920 x 1080 both ways. */
static void test_large(void **state)
{
    (void)state;
    check_case(&samplings[3], 640, 480, SMOOTH, 75);
    check_case(&samplings[1], 640, 480, NOISE, 90);
    check_case(&samplings[2], 641, 479, SHARP, 50);
    check_case(&samplings[0], 1919, 1079, GRADIENT, 95);
    check_case(&samplings[3], 1919, 1079, NOISE, 95);
}

/* The device's coefficients are those libjpeg reads back from jpeg_encode's file, every block
 * of every component (the dummy blocks too), whatever the files: a failure here points at the
 * kernel rather than the writer. */
static void test_coefficients_match_libjpeg(void **state)
{
    static const int sizes[][2] = {{1, 1}, {9, 17}, {23, 9}, {33, 35}};
    (void)state;
    for (int si = 0; si < N_SAMPLINGS; si++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            const sampling_case *s = &samplings[si];
            io_image img = make_image(sizes[z][0], sizes[z][1], s->channels, NOISE);
            jpeg_coefs c;
            size_t size = 0;
            int block, index, got, want;
            io_set_jpeg_sampling(s->sampling);
            uint8_t *file = file_in_memory(&img, NULL, 85, &size);
            device_coefs(&img, 85, &c);
            const int comp = first_difference(file, size, &c, &block, &index, &got, &want);
            if (comp >= 0)
                fail_msg("%s %dx%d: component %d block %d coefficient %d is %d, libjpeg's %d",
                         s->name, img.width, img.height, comp, block, index, got, want);
            free(file);
            jpeg_coefs_free(&c);
            free(img.pixels);
        }
    io_set_jpeg_sampling(IO_JPEG_420);
}

/* TurboJPEG's switches reach both writers: optimised Huffman tables, arithmetic coding,
 * restart markers (in MCU rows and in MCUs), progressive scans. */
static void test_environment_switches(void **state)
{
    static const char *const switches[][2] = {{"TJ_OPTIMIZE", "1"},  {"TJ_ARITHMETIC", "1"},
                                              {"TJ_RESTART", "1"},   {"TJ_RESTART", "3B"},
                                              {"TJ_PROGRESSIVE", "1"}};
    static const int sizes[][2] = {{1, 1}, {17, 9}, {45, 38}};
    (void)state;
    for (size_t e = 0; e < sizeof switches / sizeof switches[0]; e++) {
        setenv(switches[e][0], switches[e][1], 1);
        for (int si = 0; si < N_SAMPLINGS; si++)
            for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
                check_case(&samplings[si], sizes[z][0], sizes[z][1], (int)(z + e) % N_PATTERNS,
                           qualities[(si + (int)z * 3 + (int)e) % N_QUALITIES]);
        unsetenv(switches[e][0]);
    }
}

/* What the two halves refuse: tables of another quality than the writer's, a sampling the
 * kernel does not reproduce (libjpeg averages 1 x 2 with other roundings), a pixel buffer
 * smaller than the image. Each says why, and nothing is allocated. */
static void test_refusals(void **state)
{
    char err[512] = "";
    tc_msg m = {{0}};
    jpeg_coefs c;
    cl_int cerr;
    size_t size = 0;
    char *buf = NULL;
    (void)state;
    io_image img = make_image(20, 12, 3, SMOOTH);
    device_coefs(&img, 50, &c);
    FILE *f = open_memstream(&buf, &size);
    assert_non_null(f);
    assert_int_equal(jpeg_coefs_encode(f, &c, 90, "out.jpg", err, sizeof err), -1);
    assert_non_null(strstr(err, "other tables than quality 90"));
    fclose(f);
    free(buf);
    jpeg_coefs_free(&c);

    cl_mem pixels = clCreateBuffer(ctx->device.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                   20 * 12 * 3, img.pixels, &cerr);
    assert_int_equal(cerr, CL_SUCCESS);
    assert_int_equal(jpeg_coefs_layout(20, 12, 3, 50, &c, "x", err, sizeof err), 0);
    c.comp[1].h_samp = 2; /* Cb at 2 x 1 under 2 x 2: half the rows, every column */
    c.comp[1].v_samp = 1;
    assert_int_equal(tc_jpeg_encode_coefs(&ctx->device, &ctx->programs, pixels, &c, NULL, &m),
                     TC_EINVAL);
    assert_non_null(strstr(m.text, "component 1: downsampled 1 x 2"));
    assert_null(c.comp[0].coef);
    assert_int_equal(jpeg_coefs_layout(21, 12, 3, 50, &c, "x", err, sizeof err), 0);
    assert_int_equal(tc_jpeg_encode_coefs(&ctx->device, &ctx->programs, pixels, &c, NULL, &m),
                     TC_EINVAL);
    assert_non_null(strstr(m.text, "holds 720 bytes"));
    assert_null(c.comp[0].coef);
    clReleaseMemObject(pixels);
    free(img.pixels);
}

int main(void)
{
    /* tests/jpeg-encode-kernel-check.sh runs a few under oclgrind. */
    const char *only = getenv("JPEG_ENCODE_TESTS");
    if (only && *only)
        cmocka_set_test_filter(only);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_coefficients_match_libjpeg),
        cmocka_unit_test(test_small_sizes),
        cmocka_unit_test(test_qualities),
        cmocka_unit_test(test_large),
        cmocka_unit_test(test_environment_switches),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, context_setup, context_teardown);
}

#else /* built without libjpeg: no JPEG is written from coefficients (jpeg_coefs_write.h) */

static void test_refused_without_libjpeg(void **state)
{
    char err[512] = "";
    jpeg_coefs c;
    (void)state;
    assert_int_equal(jpeg_coefs_layout(8, 8, 1, 90, &c, "x", err, sizeof err), -1);
    assert_non_null(strstr(err, "built without libjpeg"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_refused_without_libjpeg)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
