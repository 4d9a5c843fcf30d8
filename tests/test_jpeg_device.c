/*
 * test_jpeg_device.c - JPEG decoded on the device from its coefficients (src/io/jpeg_coefs.c,
 * src/jpeg_decode.c, src/JpegDecode.cl) against today's CPU path (jpeg_decode and
 * jpeg_decode_luma of src/io/jpeg.c: tjDecompress2 with its flags), byte for byte, RGB and the
 * luma plane alone: the fixtures, a photograph of images/, and files made here with libjpeg's
 * compressor for every sampling (gray, 4:4:4, 4:2:2, 4:2:0, 4:4:0, 4:1:1 and the non-standard
 * factors TurboJPEG reads), sizes from 1 x 1 up, qualities from 1 to 100, restart intervals,
 * progressive (spectral selection and successive approximation, fully refined), arithmetic and
 * optimised Huffman coding. Then what must stay on the CPU is told apart: a progressive file
 * left unrefined (block smoothing), a coefficient whose product with its quantiser passes
 * 32767, a block outside the SIMD inverse DCT's bounds, an RGB JPEG; and the hostile fixtures
 * are refused with the CPU decoder's words.
 *
 * TEST_JPEG_SMALL=1 keeps a few small cases of each kind (tests/jpeg-kernel-check.sh runs the
 * suite so under oclgrind).
 */
#include "test_util.h"

#include "codec_test_util.h"

#include "jpeg.h"
#include "jpeg_coefs.h"
#include "jpeg_decode.h"

#include <jpeglib.h>

static tc_device device;
static tc_program_cache programs;
static tc_jpeg_decoder decoder;
/* Under oclgrind (TEST_JPEG_SMALL), a decoder for each case, all released at the end: oclgrind
 * 2.x takes a buffer made after a smaller one was released as uninitialised past the smaller
 * one's size, even where a kernel wrote it, so no buffer is released and made again there. */
static tc_jpeg_decoder *decoders;
static int decoder_count;
static cl_mem out;
static size_t out_bytes;
static long planes_compared;
static int small; /* TEST_JPEG_SMALL */

/* A deterministic generator (the pictures must be the same on every libc). */
#define TEST_RNG_SEED 50
static uint64_t rng_state = TEST_RNG_SEED;

static int rng_range(int lo, int hi)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + (int)((uint32_t)(rng_state >> 33) % (uint32_t)(hi - lo + 1));
}

static int setup(void **state)
{
    tc_msg m;
    const char *s = getenv("TEST_JPEG_SMALL");
    (void)state;
    small = s && strcmp(s, "1") == 0;
    if (tc_device_open(&device, NULL, &m) != TC_OK) {
        fprintf(stderr, "no OpenCL device: %s\n", m.text);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    print_message("jpeg device: %ld planes equal to TurboJPEG's byte for byte\n",
                  planes_compared);
    if (out)
        clReleaseMemObject(out);
    tc_jpeg_decoder_release(&decoder);
    for (int i = 0; i < decoder_count; i++)
        tc_jpeg_decoder_release(&decoders[i]);
    free(decoders);
    tc_program_cache_release(&programs);
    tc_device_close(&device);
    return 0;
}

/* ---- Files made here ------------------------------------------------------------------ */

typedef struct {
    int width, height, components; /* components: 1 (gray) or 3 (YCbCr) */
    int h0, v0;                    /* the luma's sampling factors */
    int h1, v1;                    /* the chroma's (0: 1 x 1) */
    int quality;
    int restart_blocks, restart_rows;
    int progressive, arithmetic, optimize, rgb_space;
    const jpeg_scan_info *scans;
    int scan_count;
} recipe;

/* What the pictures show: noise, a gradient with some noise, flat saturated colours with
 * edges (which push the colour conversion to its limits), a smooth gradient. */
static uint8_t *picture(int width, int height, int channels, int kind)
{
    uint8_t *p = malloc((size_t)width * (size_t)height * (size_t)channels);
    assert_non_null(p);
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            for (int c = 0; c < channels; c++) {
                int v;
                if (kind == 0)
                    v = rng_range(0, 255);
                else if (kind == 1)
                    v = (x * 255 / (width > 1 ? width - 1 : 1) + y * 3 + c * 40 +
                         rng_range(-12, 12));
                else if (kind == 2)
                    v = ((x / 3 + y / 5 + c) % 3 == 0) ? 255 : (c == 1 ? 0 : 40 * c);
                else
                    v = (x * 7 + y * 5 + c * 60) % 256;
                p[((size_t)y * width + x) * channels + c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
    return p;
}

/* The compressor's settings for r (sampling, quality, coding). */
static void apply_recipe(j_compress_ptr c, const recipe *r)
{
    c->image_width = (JDIMENSION)r->width;
    c->image_height = (JDIMENSION)r->height;
    c->input_components = r->components;
    c->in_color_space = r->components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(c);
    if (r->rgb_space)
        jpeg_set_colorspace(c, JCS_RGB);
    jpeg_set_quality(c, r->quality, TRUE);
    c->dct_method = JDCT_ISLOW;
    c->comp_info[0].h_samp_factor = r->h0;
    c->comp_info[0].v_samp_factor = r->v0;
    for (int i = 1; i < r->components; i++) {
        c->comp_info[i].h_samp_factor = r->h1 ? r->h1 : 1;
        c->comp_info[i].v_samp_factor = r->v1 ? r->v1 : 1;
    }
    c->restart_interval = (unsigned)r->restart_blocks;
    c->restart_in_rows = r->restart_rows;
    c->arith_code = r->arithmetic ? TRUE : FALSE;
    c->optimize_coding = r->optimize ? TRUE : FALSE;
    if (r->progressive)
        jpeg_simple_progression(c);
    if (r->scans) {
        c->scan_info = r->scans;
        c->num_scans = r->scan_count;
    }
}

/* The JPEG of r made from pixels (width x height x components); free() it. */
static uint8_t *compress(const recipe *r, const uint8_t *pixels, size_t *size)
{
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr e;
    unsigned char *buf = NULL;
    unsigned long n = 0;
    c.err = jpeg_std_error(&e);
    jpeg_create_compress(&c);
    jpeg_mem_dest(&c, &buf, &n);
    apply_recipe(&c, r);
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)c.next_scanline * r->width * r->components);
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    *size = n;
    return buf;
}

/* A file made of a picture of the given kind. */
static uint8_t *made(const recipe *r, int kind, size_t *size)
{
    uint8_t *pixels = picture(r->width, r->height, r->components, kind);
    uint8_t *jpeg = compress(r, pixels, size);
    free(pixels);
    return jpeg;
}

/* ---- The comparison -------------------------------------------------------------------- */

/* The device's plane of the coefficients c (channels 1 or 3) into host memory; *exact as
 * tc_jpeg_decode says. */
static uint8_t *device_plane(const jpeg_coefs *c, int channels, int *exact)
{
    tc_jpeg_decode_parts parts = {&device, &programs, &decoder, NULL};
    if (small) {
        decoders = realloc(decoders, (size_t)(decoder_count + 1) * sizeof *decoders);
        assert_non_null(decoders);
        memset(&decoders[decoder_count], 0, sizeof decoders[0]);
        parts.decoder = &decoders[decoder_count++];
    }
    const size_t bytes = tc_jpeg_decoded_bytes(c, channels);
    tc_msg m;
    cl_int err;
    if (bytes > out_bytes) {
        if (out)
            clReleaseMemObject(out);
        out = clCreateBuffer(device.context, CL_MEM_READ_WRITE, bytes, NULL, &err);
        assert_int_equal(err, CL_SUCCESS);
        out_bytes = bytes;
    }
    if (tc_jpeg_decode(&parts, c, channels, out, exact, &m) != TC_OK)
        fail_msg("tc_jpeg_decode: %s", m.text);
    uint8_t *host = malloc(bytes);
    assert_non_null(host);
    assert_int_equal(clEnqueueReadBuffer(device.queue, out, CL_TRUE, 0, bytes, host, 0, NULL,
                                         NULL),
                     CL_SUCCESS);
    return host;
}

/* The device's pixels of the file equal jpeg_decode's (luma 0) or jpeg_decode_luma's. */
static void expect_same(const uint8_t *jpeg, size_t size, int luma, const char *label)
{
    io_image ref;
    jpeg_coefs c;
    char err[512] = "";
    int exact = 0;
    if ((luma ? jpeg_decode_luma : jpeg_decode)(jpeg, size, 0, IO_MAX_PIXELS_PER_BYTE, &ref, err,
                                                sizeof err) != 0)
        fail_msg("%s: the CPU decoder refused it: %s", label, err);
    const int rc = jpeg_coefs_read(jpeg, size, luma, 0, IO_MAX_PIXELS_PER_BYTE, &c, err,
                                   sizeof err);
    if (rc != 0)
        fail_msg("%s: jpeg_coefs_read gave %d: %s", label, rc, err);
    uint8_t *ours = device_plane(&c, ref.channels, &exact);
    const size_t n = (size_t)ref.width * ref.height * ref.channels;
    assert_int_equal(c.width, ref.width);
    assert_int_equal(c.height, ref.height);
    if (!exact)
        fail_msg("%s: a block outside the SIMD bounds", label);
    if (memcmp(ours, ref.pixels, n) != 0) {
        for (size_t i = 0; i < n; i++)
            if (ours[i] != ((const uint8_t *)ref.pixels)[i])
                fail_msg("%s (%s): %d x %d, first difference at x %zu y %zu channel %zu: "
                         "device %d, TurboJPEG %d",
                         label, luma ? "luma" : "decode", ref.width, ref.height,
                         i / ref.channels % ref.width, i / ref.channels / ref.width,
                         i % ref.channels, ours[i], ((const uint8_t *)ref.pixels)[i]);
    }
    planes_compared++;
    free(ours);
    jpeg_coefs_free(&c);
    io_image_free(&ref);
}

/* Both planes of a file: the decode, and the luma alone for a colour file. */
static void expect_both(const uint8_t *jpeg, size_t size, int colour, const char *label)
{
    expect_same(jpeg, size, 0, label);
    if (colour)
        expect_same(jpeg, size, 1, label);
}

static void expect_recipe(const recipe *r, int kind, const char *label)
{
    size_t size;
    uint8_t *jpeg = made(r, kind, &size);
    expect_both(jpeg, size, r->components == 3, label);
    free(jpeg);
}

/* ---- The samplings, sizes and qualities ------------------------------------------------ */

typedef struct {
    const char *name;
    int components, h0, v0, h1, v1;
} sampling;

static const sampling samplings[] = {
    {"gray", 1, 1, 1, 0, 0},
    {"4:4:4", 3, 1, 1, 0, 0},
    {"4:2:2", 3, 2, 1, 0, 0},
    {"4:2:0", 3, 2, 2, 0, 0},
    {"4:4:0", 3, 1, 2, 0, 0},
    {"4:1:1", 3, 4, 1, 0, 0},
    /* Factors TurboJPEG names 4:2:2, 4:4:0 and 4:4:4 although written otherwise. */
    {"4:2:2 as 2x2 1x2", 3, 2, 2, 1, 2},
    {"4:4:0 as 2x2 2x1", 3, 2, 2, 2, 1},
    {"4:4:4 as 1x2 1x2", 3, 1, 2, 1, 2},
    {"gray at 2x2", 1, 2, 2, 0, 0},
};
#define SAMPLINGS (int)(sizeof samplings / sizeof samplings[0])

static const int qualities[] = {1, 2, 5, 10, 25, 50, 75, 90, 95, 99, 100};
#define QUALITIES (int)(sizeof qualities / sizeof qualities[0])

static recipe recipe_of(const sampling *s, int width, int height, int quality)
{
    recipe r = {width, height, s->components, s->h0, s->v0, s->h1, s->v1, quality,
                0, 0, 0, 0, 0, 0, NULL, 0};
    return r;
}

/* Every sampling at sizes from 1 x 1 up, none of them or some of them multiples of 8 or 16,
 * the quality and the picture changing from case to case. */
static void test_samplings_and_sizes(void **state)
{
    static const int sizes[][2] = {{1, 1},   {2, 1},  {1, 2},   {2, 2},   {3, 2},  {4, 4},
                                   {5, 3},   {7, 9},  {8, 8},   {9, 7},   {15, 17}, {16, 16},
                                   {17, 9},  {17, 17}, {33, 31}, {47, 20}, {20, 47}, {64, 3}};
    const int count = small ? 6 : (int)(sizeof sizes / sizeof sizes[0]);
    (void)state;
    rng_state = TEST_RNG_SEED;
    for (int s = 0; s < SAMPLINGS; s++)
        for (int i = 0; i < count; i++) {
            const int k = small ? i * 3 : i;
            char label[96];
            const recipe r = recipe_of(&samplings[s], sizes[k][0], sizes[k][1],
                                       qualities[(i + s) % QUALITIES]);
            snprintf(label, sizeof label, "%s %dx%d q%d", samplings[s].name, r.width, r.height,
                     r.quality);
            expect_recipe(&r, (i + s) % 4, label);
        }
}

/* Chroma 1 to 3 samples wide or high, where libjpeg-turbo trades the fancy upsamplers for
 * replication (h2v1 and h2v2 need more than 2 samples a row) and the context rows of the
 * vertical ones are the edge rows themselves: noise at high quality, so that neighbouring
 * samples differ. */
static void test_narrow_chroma(void **state)
{
    static const int pick[] = {2, 3, 4, 6, 7};
    static const int heights[] = {1, 2, 3, 4, 7};
    (void)state;
    rng_state = TEST_RNG_SEED + 4;
    for (int p = 0; p < (small ? 2 : 5); p++)
        for (int w = 1; w <= 6; w++)
            for (int h = 0; h < 5; h += small ? 2 : 1) {
                char label[96];
                const recipe r = recipe_of(&samplings[pick[p]], w, heights[h], 95);
                snprintf(label, sizeof label, "%s %dx%d q95", samplings[pick[p]].name, w,
                         heights[h]);
                expect_recipe(&r, 0, label);
            }
}

/* Every quality of the sample on each main sampling, on a noisy gradient and on saturated
 * colours. */
static void test_qualities(void **state)
{
    (void)state;
    rng_state = TEST_RNG_SEED + 1;
    for (int s = 0; s < 6; s++)
        for (int q = 0; q < QUALITIES; q += small ? 5 : 1) {
            char label[96];
            const recipe r = recipe_of(&samplings[s], 37, 29, qualities[q]);
            snprintf(label, sizeof label, "%s 37x29 q%d", samplings[s].name, r.quality);
            expect_recipe(&r, 1 + q % 2, label);
        }
}

/* Restart markers (every block, every third MCU, every MCU row), progressive files, arithmetic
 * and optimised Huffman coding, and the two together, on gray, 4:2:0 and 4:4:4. */
static void test_codings(void **state)
{
    static const int pick[] = {0, 3, 1, 5};
    (void)state;
    rng_state = TEST_RNG_SEED + 2;
    for (int p = 0; p < (small ? 2 : 4); p++)
        for (int v = 0; v < 7; v++) {
            recipe r = recipe_of(&samplings[pick[p]], 45, 37, 80);
            const char *what[] = {"restart 1 block", "restart 3 MCUs", "restart 1 row",
                                  "progressive",      "arithmetic",     "optimised",
                                  "progressive arithmetic"};
            char label[96];
            r.restart_blocks = v == 0 ? 1 : v == 1 ? 3 : 0;
            r.restart_rows = v == 2;
            r.progressive = v == 3 || v == 6;
            r.arithmetic = v == 4 || v == 6;
            r.optimize = v == 5;
            snprintf(label, sizeof label, "%s 45x37 %s", samplings[pick[p]].name, what[v]);
            expect_recipe(&r, v % 4, label);
        }
}

/* Every valid JPEG of tests/data/formats/. */
static void test_fixtures(void **state)
{
    static const struct {
        const char *name;
        int colour;
    } files[] = {{"base444.jpg", 1}, {"base422.jpg", 1}, {"base420.jpg", 1},
                 {"base440.jpg", 1}, {"restart444.jpg", 1}, {"prog420.jpg", 1},
                 {"arith420.jpg", 1}, {"gray-prog.jpg", 0}};
    (void)state;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        size_t size;
        uint8_t *data = read_fixture(files[i].name, &size);
        expect_both(data, size, files[i].colour, files[i].name);
        free(data);
    }
}

/* A photograph (images/TiledConv_Input451x300.bmp) at the usual settings. */
static void test_photo(void **state)
{
    char path[1024];
    size_t size;
    io_image img;
    (void)state;
    snprintf(path, sizeof path, "%s/images/TiledConv_Input451x300.bmp", test_root());
    uint8_t *bmp = read_whole(path, &size);
    decode_ok(bmp, size, &img);
    assert_int_equal(img.channels, 3);
    for (int s = 1; s < (small ? 2 : 6); s++) {
        recipe r = recipe_of(&samplings[s], img.width, img.height, 60 + 8 * s);
        char label[96];
        r.progressive = s == 3;
        snprintf(label, sizeof label, "photo %s q%d%s", samplings[s].name, r.quality,
                 r.progressive ? " progressive" : "");
        size_t n;
        uint8_t *jpeg = compress(&r, img.pixels, &n);
        expect_both(jpeg, n, 1, label);
        free(jpeg);
    }
    io_image_free(&img);
    free(bmp);
}

/* ---- Successive approximation, refined or not ------------------------------------------ */

/* Gray: the DC, then AC 1..63 at half precision, then (refined) their last bit. */
static const jpeg_scan_info gray_scans[] = {
    {1, {0}, 0, 0, 0, 0}, {1, {0}, 1, 63, 0, 1}, {1, {0}, 1, 63, 1, 0}};

/* Colour: the DCs at half precision, each component's AC in two bands at half precision, then
 * every refinement. */
static const jpeg_scan_info colour_scans[] = {
    {3, {0, 1, 2}, 0, 0, 0, 1}, {1, {0}, 1, 5, 0, 1},  {1, {0}, 6, 63, 0, 1},
    {1, {1}, 1, 63, 0, 1},      {1, {2}, 1, 63, 0, 1}, {3, {0, 1, 2}, 0, 0, 1, 0},
    {1, {0}, 1, 5, 1, 0},       {1, {0}, 6, 63, 1, 0}, {1, {1}, 1, 63, 1, 0},
    {1, {2}, 1, 63, 1, 0}};

static int read_rc(const uint8_t *jpeg, size_t size, int luma, char *err, size_t err_size)
{
    jpeg_coefs c;
    const int rc = jpeg_coefs_read(jpeg, size, luma, 0, IO_MAX_PIXELS_PER_BYTE, &c, err,
                                   err_size);
    if (rc == 0)
        jpeg_coefs_free(&c);
    return rc;
}

static void test_successive_approximation(void **state)
{
    char err[512];
    size_t size;
    (void)state;
    rng_state = TEST_RNG_SEED + 3;
    recipe r = recipe_of(&samplings[0], 29, 21, 85);
    r.scans = gray_scans;
    r.scan_count = 3;
    uint8_t *jpeg = made(&r, 1, &size);
    expect_both(jpeg, size, 0, "gray refined");
    free(jpeg);
    r.scan_count = 2; /* the refinement left out: libjpeg-turbo smooths the blocks */
    jpeg = made(&r, 1, &size);
    assert_int_equal(read_rc(jpeg, size, 0, err, sizeof err), 1);
    assert_non_null(strstr(err, "refined"));
    free(jpeg);

    r = recipe_of(&samplings[3], 35, 19, 90);
    r.scans = colour_scans;
    r.scan_count = 10;
    jpeg = made(&r, 2, &size);
    expect_both(jpeg, size, 1, "4:2:0 refined");
    free(jpeg);
    r.scan_count = 9; /* Cr's AC unrefined: smoothed, the luma's decode too */
    jpeg = made(&r, 2, &size);
    assert_int_equal(read_rc(jpeg, size, 0, err, sizeof err), 1);
    assert_int_equal(read_rc(jpeg, size, 1, err, sizeof err), 1);
    free(jpeg);
}

/* ---- Coefficients written as they are ------------------------------------------------ */

/* A 16 x 16 gray JPEG whose every quantiser is q and whose blocks' DCs are dc[0..3] (AC zero). */
static uint8_t *from_coefficients(unsigned q, const int dc[4], size_t *size)
{
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr e;
    unsigned char *buf = NULL;
    unsigned long n = 0;
    unsigned table[64];
    jvirt_barray_ptr arrays[1];
    for (int k = 0; k < 64; k++)
        table[k] = q;
    c.err = jpeg_std_error(&e);
    jpeg_create_compress(&c);
    jpeg_mem_dest(&c, &buf, &n);
    c.image_width = c.image_height = 16;
    c.input_components = 1;
    c.in_color_space = JCS_GRAYSCALE;
    jpeg_set_defaults(&c);
    jpeg_add_quant_table(&c, 0, table, 100, FALSE);
    arrays[0] = (*c.mem->request_virt_barray)((j_common_ptr)&c, JPOOL_IMAGE, TRUE, 2, 2, 1);
    jpeg_write_coefficients(&c, arrays);
    for (int by = 0; by < 2; by++) {
        JBLOCKARRAY row =
            (*c.mem->access_virt_barray)((j_common_ptr)&c, arrays[0], (JDIMENSION)by, 1, TRUE);
        for (int bx = 0; bx < 2; bx++)
            row[0][bx][0] = (JCOEF)dc[by * 2 + bx];
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    *size = n;
    return buf;
}

/* A gray JPEG's pixels from djpeg run with JSIMD_FORCENONE=1 (libjpeg-turbo's C code only)
 * equal `ours`. */
static void expect_same_as_c_code(const uint8_t *jpeg, size_t size, const uint8_t *ours)
{
    char path[] = "/tmp/tiledconv-jpeg-device-XXXXXX", cmd[256];
    io_image ref;
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, jpeg, size), (ssize_t)size);
    assert_int_equal(close(fd), 0);
    snprintf(cmd, sizeof cmd, "JSIMD_FORCENONE=1 djpeg -pnm -dct int '%s'", path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    uint8_t pnm[4096];
    const size_t n = fread(pnm, 1, sizeof pnm, p);
    assert_int_equal(pclose(p), 0);
    unlink(path);
    decode_ok(pnm, n, &ref);
    assert_int_equal(ref.channels, 1);
    assert_memory_equal(ours, ref.pixels, (size_t)ref.width * ref.height);
    io_image_free(&ref);
}

static void test_cpu_only_cases(void **state)
{
    char err[512];
    size_t size;
    jpeg_coefs c;
    int exact = 1;
    (void)state;
    /* In bounds: DC 2 x 255 is a block of 192; the device's bytes are TurboJPEG's. */
    const int mild[4] = {2, -2, 1, 0};
    uint8_t *jpeg = from_coefficients(255, mild, &size);
    expect_both(jpeg, size, 0, "DC-only blocks");
    free(jpeg);
    /* 200 x 255 = 51000: TurboJPEG's 16-bit multiply wraps; refused before the device. */
    const int large[4] = {200, 0, 0, 0};
    jpeg = from_coefficients(255, large, &size);
    assert_int_equal(read_rc(jpeg, size, 0, err, sizeof err), 1);
    assert_non_null(strstr(err, "32767"));
    free(jpeg);
    /* 20 x 255 = 5100 passes that check, but the block's value, 637, is past the IDCT's range
     * limit: libjpeg's C table wraps it to 0 where the SIMD code saturates to 255. */
    const int wraps[4] = {0, 20, 0, 0};
    jpeg = from_coefficients(255, wraps, &size);
    assert_int_equal(jpeg_coefs_read(jpeg, size, 0, 0, IO_MAX_PIXELS_PER_BYTE, &c, err,
                                     sizeof err),
                     0);
    uint8_t *ours = device_plane(&c, 1, &exact);
    assert_int_equal(exact, 0);
    /* The kernels keep the C code's semantics even there: djpeg with libjpeg-turbo's SIMD
     * code turned off gives the same bytes. */
    expect_same_as_c_code(jpeg, size, ours);
    free(ours);
    jpeg_coefs_free(&c);
    free(jpeg);
    /* An RGB JPEG (Adobe transform 0): libjpeg copies its components, no YCbCr. */
    recipe r = recipe_of(&samplings[1], 9, 9, 90);
    r.rgb_space = 1;
    jpeg = made(&r, 1, &size);
    assert_int_equal(read_rc(jpeg, size, 0, err, sizeof err), 1);
    assert_non_null(strstr(err, "colour space"));
    free(jpeg);
}

/* The hostile fixtures: refused as the CPU decoder refuses them, in its words; *out untouched. */
static void test_refusals(void **state)
{
    static const char *names[] = {"hostile-huge.jpg", "hostile-bomb.jpg"};
    (void)state;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t size;
        char ours[512] = "", cpu[512] = "";
        io_image img;
        jpeg_coefs c = {.components = -5};
        uint8_t *data = read_fixture(names[i], &size);
        assert_int_equal(jpeg_decode(data, size, 0, IO_MAX_PIXELS_PER_BYTE, &img, cpu,
                                     sizeof cpu),
                         -1);
        assert_int_equal(jpeg_coefs_read(data, size, 0, 0, IO_MAX_PIXELS_PER_BYTE, &c, ours,
                                         sizeof ours),
                         -1);
        assert_int_equal(c.components, -5);
        assert_string_equal(ours, cpu);
        free(data);
    }
    /* A file cut short: libjpeg's warning refused, as TJFLAG_STOPONWARNING refuses it. */
    size_t size;
    char ours[512] = "";
    jpeg_coefs c;
    uint8_t *data = read_fixture("base420.jpg", &size);
    assert_int_equal(jpeg_coefs_read(data, size * 2 / 3, 0, 0, IO_MAX_PIXELS_PER_BYTE, &c, ours,
                                     sizeof ours),
                     -1);
    assert_true(strncmp(ours, "JPEG: ", 6) == 0);
    free(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures),
        cmocka_unit_test(test_samplings_and_sizes),
        cmocka_unit_test(test_narrow_chroma),
        cmocka_unit_test(test_qualities),
        cmocka_unit_test(test_codings),
        cmocka_unit_test(test_photo),
        cmocka_unit_test(test_successive_approximation),
        cmocka_unit_test(test_cpu_only_cases),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
