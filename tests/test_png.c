/* test_png.c - PNG through libspng (src/io/png.c) via the codec API: every colour type and
 * depth of the fixtures (written by an independent writer, make-fixtures.py) against the
 * formulas, round trips, and hostile files: truncation at and inside every chunk, wrong CRCs,
 * huge dimensions, bombs (pixels and compressed text), palette indices past the palette. */
#include "codec_test_util.h"

#include "png.h"

#include <spng.h>

/* The CRC of the PNG specification (ISO 3309), bit by bit: slow and obviously right. */
static uint32_t crc32_png(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1u ? 0xedb88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xffffffffu;
}

static uint32_t get_u32be(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_u32be(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* The offsets where each chunk starts, then the file's end: n_chunks + 1 entries. */
static size_t chunk_offsets(const uint8_t *d, size_t size, size_t *offs, size_t max)
{
    size_t n = 0, at = 8;
    while (at + 12 <= size && n < max - 1) {
        offs[n++] = at;
        at += 12 + get_u32be(d + at);
    }
    assert_int_equal(at, size); /* a well-formed fixture ends with its last chunk */
    offs[n] = size;
    return n;
}

/* Sets IHDR's width and height and recomputes its CRC, so that only the sizes are wrong. */
static void patch_ihdr(uint8_t *d, uint32_t w, uint32_t h)
{
    assert_memory_equal(d + 12, "IHDR", 4);
    put_u32be(d + 16, w);
    put_u32be(d + 20, h);
    put_u32be(d + 29, crc32_png(d + 12, 17));
}

typedef enum { EXPECT_GRAY_SCALED, EXPECT_SAMPLES, EXPECT_PALETTE } expect_kind;

/* A fixture decodes to what the formula made: `bits` is the file's bit depth, `file_channels`
 * how many samples the file has per pixel (of which we keep 1 or 3). */
static void check_png(const char *name, expect_kind kind, int bits, int channels,
                      unsigned palette_max)
{
    size_t size;
    uint8_t *data = read_fixture(name, &size);
    io_image img;
    io_format fmt;
    assert_int_equal(io_detect(data, size, &fmt), 0);
    assert_int_equal(fmt, IO_FORMAT_PNG);
    decode_ok(data, size, &img);
    assert_int_equal(img.width, FIX_W);
    assert_int_equal(img.height, FIX_H);
    assert_int_equal(img.channels, channels);
    assert_int_equal(img.depth, bits == 16 ? 16 : 8);
    assert_int_equal(img.maxval, bits == 16 ? 65535 : 255);
    for (unsigned y = 0; y < FIX_H; y++)
        for (unsigned x = 0; x < FIX_W; x++)
            for (unsigned c = 0; c < (unsigned)channels; c++) {
                unsigned want;
                if (kind == EXPECT_PALETTE) {
                    uint8_t rgb[3];
                    fix_palette(fix_sample(x, y, 0, palette_max), rgb);
                    want = rgb[c];
                } else if (kind == EXPECT_GRAY_SCALED) { /* 1/2/4 bits to 0..255 */
                    unsigned maxval = (1u << bits) - 1u;
                    want = fix_sample(x, y, 0, maxval) * 255u / maxval;
                } else {
                    want = fix_sample(x, y, c, bits == 16 ? 65535u : 255u);
                }
                size_t i = ((size_t)y * FIX_W + x) * (size_t)channels + c;
                if (px(&img, i) != want)
                    fail_msg("%s: sample (%u, %u, %u) is %u, expected %u", name, x, y, c,
                             px(&img, i), want);
            }
    io_image_free(&img);
    free(data);
}

/* Every fixture against its formula: gray at every depth, alpha dropped, RGB, palettes. */
static void test_fixtures(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        expect_kind kind;
        int bits, channels;
        unsigned palette_max;
    } fixtures[] = {
        {"g1.png", EXPECT_GRAY_SCALED, 1, 1, 0},
        {"g2.png", EXPECT_GRAY_SCALED, 2, 1, 0},
        {"g4.png", EXPECT_GRAY_SCALED, 4, 1, 0},
        {"g8.png", EXPECT_SAMPLES, 8, 1, 0},
        {"g16.png", EXPECT_SAMPLES, 16, 1, 0},
        {"g1i.png", EXPECT_GRAY_SCALED, 1, 1, 0}, /* interlaced */
        {"g16i.png", EXPECT_SAMPLES, 16, 1, 0},
        {"g8anc.png", EXPECT_SAMPLES, 8, 1, 0}, /* gAMA, sBIT, tRNS, texts: ignored */
        /* Alpha dropped. */
        {"ga8.png", EXPECT_SAMPLES, 8, 1, 0},
        {"ga16.png", EXPECT_SAMPLES, 16, 1, 0},
        {"rgba8.png", EXPECT_SAMPLES, 8, 3, 0},
        {"rgba16i.png", EXPECT_SAMPLES, 16, 3, 0},
        /* RGB. */
        {"rgb8.png", EXPECT_SAMPLES, 8, 3, 0}, /* its IDAT split in 40-byte chunks */
        {"rgb8i.png", EXPECT_SAMPLES, 8, 3, 0},
        {"rgb16.png", EXPECT_SAMPLES, 16, 3, 0},
        /* Palettes. */
        {"p1.png", EXPECT_PALETTE, 1, 3, 1},
        {"p2.png", EXPECT_PALETTE, 2, 3, 3},
        {"p4.png", EXPECT_PALETTE, 4, 3, 15},
        {"p2i.png", EXPECT_PALETTE, 2, 3, 3},
        {"p8.png", EXPECT_PALETTE, 8, 3, 199}, /* with a tRNS, ignored */
    };
    for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++)
        check_png(fixtures[i].name, fixtures[i].kind, fixtures[i].bits, fixtures[i].channels,
                  fixtures[i].palette_max);
}

/* A palette index past the palette is refused rather than a colour guessed. */
static void test_palette_index_past_palette(void **state)
{
    size_t size;
    uint8_t *data = read_fixture("bad-p4-index.png", &size);
    (void)state;
    expect_refused(data, size, "PNG: palette index 10 at (");
    free(data);
}

/* Every depth and channel count we write comes back identical, and the encoder leaves the
 * caller's 16-bit samples in host order (libspng swaps a copy). */
static void test_round_trips(void **state)
{
    (void)state;
    for (int channels = 1; channels <= 3; channels += 2) {
        for (int depth = 8; depth <= 16; depth += 8) {
            io_image img = {67, 5, channels, depth, depth == 16 ? 65535 : 255, NULL, NULL};
            size_t n = 67 * 5 * (size_t)channels, size;
            uint8_t *file;
            img.pixels = malloc(n * 2);
            assert_non_null(img.pixels);
            for (size_t i = 0; i < n; i++)
                set_px(&img, i, (unsigned)(depth == 16 ? i * 40503u + 1u : i * 151u + 1u));
            encode_mem(IO_FORMAT_PNG, &img, 0, &file, &size);
            for (size_t i = 0; i < n; i++) /* still host order, unchanged */
                assert_int_equal(px(&img, i),
                                 depth == 16 ? (uint16_t)(i * 40503u + 1u)
                                             : (uint8_t)(i * 151u + 1u));
            assert_int_equal(file[25], channels == 1 ? 0 : 2); /* IHDR colour type */
            assert_int_equal(file[24], depth);                 /* IHDR bit depth */
            expect_decodes_to(file, size, &img, depth, depth == 16 ? 65535 : 255);
            free(file);
            free(img.pixels);
        }
    }
}

/* A file cut at any chunk boundary, or inside any chunk, is refused: up to and including a
 * cut just before IEND, where every pixel is there but the file is not whole. */
static void test_truncated_everywhere(void **state)
{
    const char *names[] = {"rgb8.png", "p8.png", "g8anc.png", "g16i.png"};
    (void)state;
    for (size_t k = 0; k < 4; k++) {
        size_t size, offs[64];
        uint8_t *data = read_fixture(names[k], &size);
        size_t n = chunk_offsets(data, size, offs, 64);
        assert_true(n >= 3);
        for (size_t c = 0; c < n; c++) {
            expect_refused(data, offs[c], NULL);                 /* at the boundary */
            expect_refused(data, offs[c] + 4, NULL);             /* in the length field */
            expect_refused(data, (offs[c] + offs[c + 1]) / 2, NULL); /* in the middle */
            expect_refused(data, offs[c + 1] - 1, NULL);         /* one byte of CRC short */
        }
        for (size_t cut = 0; cut < 8; cut++) /* inside the signature */
            expect_refused(data, cut, NULL);
        free(data);
    }
}

/* A wrong CRC on any critical chunk is refused; on an ancillary chunk we do not use, the
 * chunk is skipped as libspng's default (and libpng's) does, and the pixels are read. */
static void test_wrong_crc(void **state)
{
    size_t size, offs[64];
    (void)state;
    uint8_t *data = read_fixture("p8.png", &size);
    size_t n = chunk_offsets(data, size, offs, 64);
    for (size_t c = 0; c < n; c++) {
        uint8_t *type = data + offs[c] + 4;
        int critical = !(type[0] & 0x20);
        if (!critical)
            continue;
        data[offs[c + 1] - 1] ^= 0x01;
        expect_refused(data, size, "invalid chunk checksum");
        data[offs[c + 1] - 1] ^= 0x01;
    }
    free(data);

    data = read_fixture("g8anc.png", &size);
    n = chunk_offsets(data, size, offs, 64);
    int flipped = 0;
    for (size_t c = 0; c < n; c++) {
        if (memcmp(data + offs[c] + 4, "tEXt", 4) == 0) {
            data[offs[c + 1] - 1] ^= 0x01;
            flipped = 1;
        }
    }
    assert_true(flipped);
    io_image img;
    decode_ok(data, size, &img);
    assert_int_equal(px(&img, 1), fix_sample(1, 0, 0, 255));
    io_image_free(&img);
    free(data);
}

/* Sizes from a hostile IHDR: refused from the header, before any allocation. */
static void test_huge_dimensions(void **state)
{
    size_t size;
    (void)state;
    uint8_t *data = read_fixture("g8.png", &size);
    patch_ihdr(data, 60000, 60000);
    expect_refused_bounded(data, size, "PNG: 60000 x 60000 is 3600000000 pixels, more than");
    patch_ihdr(data, 70000, 1);
    expect_refused_bounded(data, size, "PNG: the image is wider than 65536 pixels");
    patch_ihdr(data, 1, 70000);
    expect_refused_bounded(data, size, "PNG: the image is taller than 65536 pixels");
    patch_ihdr(data, 0, 5);
    expect_refused_bounded(data, size, "PNG: invalid image width");
    /* Within the pixel limit, but 16384 x 16384 8-bit samples cannot come from 191 bytes. */
    patch_ihdr(data, 16384, 16384);
    expect_refused_bounded(data, size, "cannot hold 16384 x 16384 pixels");
    /* ... nor with the bomb guard off, the case a user who allows bombs meets. */
    expect_refused_limits(data, size, 0, 0, "cannot hold 16384 x 16384 pixels");
    /* A lower pixel limit of the caller's is libspng's side limit too. */
    patch_ihdr(data, 300, 300);
    expect_refused_limits(data, size, 200, IO_MAX_PIXELS_PER_BYTE, "wider than 200 pixels");
    free(data);
}

/* A valid PNG from libspng's own encoder: 1-bit gray, all zero (packed rows), the densest
 * kind of file there is: w * h pixels from a few bytes. */
static uint8_t *blank_1bit_png(uint32_t w, uint32_t h, size_t *size)
{
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    struct spng_ihdr ih = {w, h, 1, SPNG_COLOR_TYPE_GRAYSCALE, 0, 0, 0};
    size_t len = (size_t)(w + 7) / 8 * h;
    uint8_t *rows = calloc(len, 1);
    int error = 0;
    assert_non_null(ctx);
    assert_non_null(rows);
    assert_int_equal(spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1), 0);
    assert_int_equal(spng_set_ihdr(ctx, &ih), 0);
    assert_int_equal(spng_encode_image(ctx, rows, len, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE), 0);
    uint8_t *png = spng_get_png_buffer(ctx, size, &error);
    assert_int_equal(error, 0);
    assert_non_null(png);
    spng_ctx_free(ctx);
    free(rows);
    return png;
}

/* A real bomb: a valid 4096 x 4096 PNG of a few kilobytes (16.7 million pixels, 4000 or more
 * per byte). Refused by the guard, cheaply; accepted, and right, with the guard off. An image
 * within the guard's floor is never refused, however dense. */
static void test_bomb_guard(void **state)
{
    size_t size;
    (void)state;
    uint8_t *png = blank_1bit_png(4096, 4096, &size);
    assert_true(size < 4096 * 4096 / IO_MAX_PIXELS_PER_BYTE);
    expect_refused_bounded(png, size, "is refused as a likely decompression bomb");

    io_image img;
    char err[256] = "";
    assert_int_equal(io_decode(png, size, 0, 0, &img, err, sizeof err), 0);
    assert_int_equal(img.width, 4096);
    size_t zeros = 0;
    for (size_t i = 0; i < 4096u * 4096u; i++)
        zeros += ((uint8_t *)img.pixels)[i] == 0;
    assert_int_equal(zeros, 4096u * 4096u);
    io_image_free(&img);
    free(png);

    png = blank_1bit_png(2048, 2048, &size); /* exactly IO_BOMB_FLOOR_PIXELS */
    assert_true((double)(2048 * 2048) / (double)size > IO_MAX_PIXELS_PER_BYTE);
    decode_ok(png, size, &img);
    io_image_free(&img);
    free(png);
}

/* A compressed text chunk that inflates past libspng's text limit, which we set (its default
 * is none): refused within bounded memory, not inflated to the end. */
static void test_text_bomb(void **state)
{
    size_t text_len = PNG_TEXT_LIMIT + 4096, size;
    char *text = malloc(text_len + 1);
    uint8_t pixel = 0;
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    struct spng_ihdr ih = {1, 1, 8, SPNG_COLOR_TYPE_GRAYSCALE, 0, 0, 0};
    struct spng_text t;
    int error = 0;
    (void)state;
    assert_non_null(text);
    assert_non_null(ctx);
    memset(text, 'a', text_len);
    text[text_len] = '\0';
    memset(&t, 0, sizeof t);
    strcpy(t.keyword, "Comment");
    t.type = SPNG_ZTXT;
    t.length = text_len;
    t.text = text;
    assert_int_equal(spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1), 0);
    assert_int_equal(spng_set_ihdr(ctx, &ih), 0);
    assert_int_equal(spng_set_text(ctx, &t, 1), 0);
    assert_int_equal(spng_encode_image(ctx, &pixel, 1, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE), 0);
    uint8_t *png = spng_get_png_buffer(ctx, &size, &error);
    assert_int_equal(error, 0);
    spng_ctx_free(ctx);
    free(text);
    assert_true(size < 64 * 1024);
    expect_refused_bounded(png, size, "PNG: reached chunk/cache limits");
    free(png);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures),
        cmocka_unit_test(test_palette_index_past_palette),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_truncated_everywhere),
        cmocka_unit_test(test_wrong_crc),
        cmocka_unit_test(test_huge_dimensions),
        cmocka_unit_test(test_bomb_guard),
        cmocka_unit_test(test_text_bomb),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
