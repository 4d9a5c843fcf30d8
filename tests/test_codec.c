/* test_codec.c - the codec layer (src/io/codec.c): detection by content, output formats from
 * names and words, BMP through io_decode/io_encode, the checks io_encode makes before any
 * codec runs, write errors, and round trips through every writable format and depth. */
#include "codec_test_util.h"

#include <errno.h>

static const uint8_t png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

static void expect_detect(const void *head, size_t n, int want_rc, io_format want)
{
    io_format fmt = (io_format)99;
    int rc = io_detect(head, n, &fmt);
    assert_int_equal(rc, want_rc);
    assert_int_equal(fmt, want_rc == 0 ? want : (io_format)99); /* untouched on failure */
}

static void test_detect(void **state)
{
    (void)state;
    expect_detect(png_sig, 8, 0, IO_FORMAT_PNG);
    expect_detect(png_sig, 7, -1, 0);                  /* a signature cut short is no match */
    expect_detect("\x89PNG\r\n\x1a\r", 8, -1, 0);      /* a line-end-mangled PNG */
    expect_detect("\xff\xd8\xff", 3, 0, IO_FORMAT_JPEG);
    expect_detect("\xff\xd8\x00", 3, -1, 0);
    expect_detect("BM", 2, 0, IO_FORMAT_BMP);
    expect_detect("BA", 2, 0, IO_FORMAT_BMP); /* OS/2 arrays: the BMP reader names them */
    expect_detect("P2 ", 3, 0, IO_FORMAT_PNM);
    expect_detect("P3\n", 3, 0, IO_FORMAT_PNM);
    expect_detect("P5\t", 3, 0, IO_FORMAT_PNM);
    expect_detect("P6#", 3, 0, IO_FORMAT_PNM);
    expect_detect("P6", 2, 0, IO_FORMAT_PNM);
    expect_detect("P6x", 3, -1, 0);
    expect_detect("P4 ", 3, -1, 0); /* PBM */
    expect_detect("P7\n", 3, -1, 0); /* PAM */
    expect_detect("B", 1, -1, 0);
    expect_detect("", 0, -1, 0);
    expect_detect("GIF89a", 6, -1, 0);
}

/* Formats we do not read are named, so that the user knows to convert rather than suspect a
 * damaged file; anything else gets the list of what is read. */
static void test_unknown_formats(void **state)
{
    (void)state;
    expect_refused((const uint8_t *)"GIF89a\1\0\1\0", 10, "a GIF file: not a format tiledconv");
    expect_refused((const uint8_t *)"II*\0\x08\0\0\0", 8, "a TIFF file");
    expect_refused((const uint8_t *)"MM\0*\0\0\0\x08", 8, "a TIFF file");
    expect_refused((const uint8_t *)"RIFF\0\0\0\0WEBPVP8 ", 16, "a WebP file");
    expect_refused((const uint8_t *)"P4\n1 1\n\0", 8, "a PBM (bitmap) file");
    expect_refused((const uint8_t *)"P7\nWIDTH 1\n", 11, "a PAM file");
    expect_refused((const uint8_t *)"hello", 5,
                   "not an image in a format tiledconv reads (BMP, PNG, JPEG, PGM/PPM)");
    expect_refused((const uint8_t *)"", 0, "empty file");
    expect_refused((const uint8_t *)"BMxxxx", 6, "BMP: file too short for a BMP header");
}

/* io_identify: io_detect's answer from the first bytes, with io_decode's reason when none. */
static void test_identify(void **state)
{
    (void)state;
    io_format fmt = (io_format)99;
    char err[256] = "";
    assert_int_equal(io_identify(png_sig, 8, &fmt, err, sizeof err), 0);
    assert_int_equal(fmt, IO_FORMAT_PNG);
    assert_int_equal(io_identify((const uint8_t *)"P5\n", 3, &fmt, err, sizeof err), 0);
    assert_int_equal(fmt, IO_FORMAT_PNM);
    fmt = (io_format)99;
    static const uint8_t zeros[IO_IDENTIFY_BYTES] = {0};
    assert_int_equal(io_identify(zeros, sizeof zeros, &fmt, err, sizeof err), -1);
    assert_string_equal(err, "not an image in a format tiledconv reads (BMP, PNG, JPEG, PGM/PPM)");
    assert_int_equal(fmt, (io_format)99);
    assert_int_equal(io_identify((const uint8_t *)"RIFF\0\0\0\0WEBPVP8 ", IO_IDENTIFY_BYTES,
                                 &fmt, err, sizeof err), -1);
    assert_non_null(strstr(err, "a WebP file"));
    assert_int_equal(io_identify((const uint8_t *)"", 0, &fmt, err, sizeof err), -1);
    assert_string_equal(err, "empty file");
}

static void expect_name(const char *name, int want_rc, io_format want)
{
    io_format fmt = (io_format)99;
    int rc = io_format_from_name(name, &fmt);
    if (rc != want_rc)
        fail_msg("io_format_from_name(\"%s\") returned %d", name, rc);
    assert_int_equal(fmt, want_rc == 0 ? want : (io_format)99);
}

static void test_format_from_name(void **state)
{
    (void)state;
    expect_name("out.bmp", 0, IO_FORMAT_BMP);
    expect_name("out.BMP", 0, IO_FORMAT_BMP);
    expect_name("out.png", 0, IO_FORMAT_PNG);
    expect_name("dir/OUT.PnG", 0, IO_FORMAT_PNG);
    expect_name("out.jpg", 0, IO_FORMAT_JPEG);
    expect_name("out.jpeg", 0, IO_FORMAT_JPEG);
    expect_name("out.JPEG", 0, IO_FORMAT_JPEG);
    expect_name("out.pgm", 0, IO_FORMAT_PNM);
    expect_name("out.ppm", 0, IO_FORMAT_PNM);
    expect_name("out.pnm", 0, IO_FORMAT_PNM);
    expect_name("out", 0, IO_FORMAT_BMP);           /* no extension: BMP, as before */
    expect_name("dir.d/out", 0, IO_FORMAT_BMP);     /* a dot in a folder is no extension */
    expect_name(".hidden", 0, IO_FORMAT_BMP);       /* a leading dot belongs to the name */
    expect_name("-", 0, IO_FORMAT_BMP);
    expect_name("out.png.tmp", -1, 0);
    expect_name("out.tif", -1, 0);
    expect_name("out.", -1, 0);
    expect_name("out.gif", -1, 0);
    expect_name("out.pbm", -1, 0);
}

static void test_format_words(void **state)
{
    static const struct {
        const char *word;
        int rc;
        io_format fmt;
    } cases[] = {
        {"bmp", 0, IO_FORMAT_BMP}, {"PNG", 0, IO_FORMAT_PNG},  {"jpeg", 0, IO_FORMAT_JPEG},
        {"Jpg", 0, IO_FORMAT_JPEG}, {"pnm", 0, IO_FORMAT_PNM}, {"pgm", 0, IO_FORMAT_PNM},
        {"ppm", 0, IO_FORMAT_PNM},  {"", -1, 0},               {"png ", -1, 0},
        {"tiff", -1, 0},            {"pn", -1, 0},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        io_format fmt = (io_format)99;
        assert_int_equal(io_format_from_word(cases[i].word, &fmt), cases[i].rc);
        assert_int_equal(fmt, cases[i].rc == 0 ? cases[i].fmt : (io_format)99);
    }
    assert_string_equal(io_format_name(IO_FORMAT_BMP), "BMP");
    assert_string_equal(io_format_name(IO_FORMAT_PNG), "PNG");
    assert_string_equal(io_format_name(IO_FORMAT_JPEG), "JPEG");
    assert_string_equal(io_format_name(IO_FORMAT_PNM), "PNM");
    assert_string_equal(io_format_extension(IO_FORMAT_BMP, 1), "bmp");
    assert_string_equal(io_format_extension(IO_FORMAT_PNG, 3), "png");
    assert_string_equal(io_format_extension(IO_FORMAT_JPEG, 3), "jpg");
    assert_string_equal(io_format_extension(IO_FORMAT_PNM, 1), "pgm");
    assert_string_equal(io_format_extension(IO_FORMAT_PNM, 3), "ppm");
    /* Every extension the tool makes is one it reads back as the same format. */
    for (int f = IO_FORMAT_BMP; f <= IO_FORMAT_PNM; f++) {
        for (int ch = 1; ch <= 3; ch += 2) {
            char name[32];
            io_format back;
            snprintf(name, sizeof name, "x.%s", io_format_extension((io_format)f, ch));
            assert_int_equal(io_format_from_name(name, &back), 0);
            assert_int_equal(back, f);
        }
    }
}

/* A test image with every sample distinct from its neighbours. */
static io_image make_image(int w, int h, int channels, int depth, int maxval)
{
    io_image img = {w, h, channels, depth, maxval, NULL, NULL};
    size_t n = (size_t)w * h * channels;
    img.pixels = malloc(n * 2);
    assert_non_null(img.pixels);
    for (size_t i = 0; i < n; i++) {
        unsigned v = (unsigned)((i * 2654435761u) >> 7) % ((unsigned)maxval + 1u);
        set_px(&img, i, v);
    }
    return img;
}

/* BMP through the codec layer: 8-bit gray comes back as RGB with three equal samples, 24-bit
 * as it was; io_encode writes exactly what bmp_write_stream writes. */
static void test_bmp_through_codec(void **state)
{
    (void)state;
    for (int channels = 1; channels <= 3; channels += 2) {
        io_image img = make_image(31, 7, channels, 8, 255), back;
        uint8_t *file;
        size_t size;
        char *direct = NULL, err[256] = "";
        size_t n_direct = 0;
        encode_mem(IO_FORMAT_BMP, &img, 0, &file, &size);
        FILE *f = open_memstream(&direct, &n_direct);
        assert_non_null(f);
        assert_int_equal(bmp_write_stream(f, img.pixels, 31, 7, channels == 1 ? 8 : 24, "m", err,
                                          sizeof err),
                         0);
        assert_int_equal(fclose(f), 0);
        assert_int_equal(n_direct, size);
        assert_memory_equal(direct, file, size);
        decode_ok(file, size, &back);
        assert_int_equal(back.channels, 3);
        assert_int_equal(back.depth, 8);
        assert_int_equal(back.maxval, 255);
        for (size_t p = 0; p < 31 * 7; p++)
            for (size_t c = 0; c < 3; c++)
                assert_int_equal(px(&back, p * 3 + c),
                                 px(&img, channels == 1 ? p : p * 3 + c));
        io_image_free(&back);
        free(direct);
        free(file);
        free(img.pixels);
    }
}

/* Every writable format and depth round-trips exactly (JPEG, lossy, is test_jpeg.c's). */
static void test_round_trips(void **state)
{
    static const struct {
        io_format fmt;
        int channels, depth, maxval;
    } cases[] = {
        {IO_FORMAT_PNG, 1, 8, 255},   {IO_FORMAT_PNG, 1, 16, 65535}, {IO_FORMAT_PNG, 3, 8, 255},
        {IO_FORMAT_PNG, 3, 16, 65535}, {IO_FORMAT_PNM, 1, 8, 255},   {IO_FORMAT_PNM, 1, 16, 65535},
        {IO_FORMAT_PNM, 3, 8, 255},   {IO_FORMAT_PNM, 3, 16, 65535}, {IO_FORMAT_BMP, 3, 8, 255},
    };
    (void)state;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        io_image img = make_image(19, 13, cases[k].channels, cases[k].depth, cases[k].maxval);
        io_image back;
        uint8_t *file;
        size_t size;
        io_format seen;
        encode_mem(cases[k].fmt, &img, 0, &file, &size);
        assert_int_equal(io_detect(file, size, &seen), 0);
        assert_int_equal(seen, cases[k].fmt);
        decode_ok(file, size, &back);
        assert_int_equal(back.width, 19);
        assert_int_equal(back.height, 13);
        assert_int_equal(back.channels, cases[k].channels);
        assert_int_equal(back.depth, cases[k].depth);
        assert_int_equal(back.maxval, cases[k].maxval);
        for (size_t i = 0; i < 19 * 13 * (size_t)cases[k].channels; i++)
            assert_int_equal(px(&back, i), px(&img, i));
        io_image_free(&back);
        free(file);
        free(img.pixels);
    }
}

/* io_decode_with: the pixels of io_decode (and of io_decode_luma), put where the allocator
 * gives them for JPEG, PGM/PPM and a PNG as stored; malloc's for a BMP and a PNG whose alpha
 * is dropped, or when the allocator has none; io_image_free gives them back to it. */
static void test_decode_with_allocator(void **state)
{
    static const struct {
        io_format fmt;
        int channels, depth, maxval, luma, expect_given;
    } cases[] = {
        {IO_FORMAT_JPEG, 3, 8, 255, 0, 1}, {IO_FORMAT_JPEG, 3, 8, 255, 1, 1},
        {IO_FORMAT_JPEG, 1, 8, 255, 0, 1}, {IO_FORMAT_PNM, 3, 16, 65535, 0, 1},
        {IO_FORMAT_PNM, 1, 8, 255, 1, 1},  {IO_FORMAT_PNG, 3, 8, 255, 0, 1},
        {IO_FORMAT_PNG, 1, 16, 65535, 0, 1}, {IO_FORMAT_BMP, 3, 8, 255, 0, 0},
    };
    counting c = {0, 0, 0};
    const io_allocator a = {counting_alloc, counting_release, &c};
    (void)state;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int refuse = 0; refuse < 2; refuse++) {
            io_image img = make_image(23, 11, cases[k].channels, cases[k].depth, cases[k].maxval);
            io_image want, got;
            uint8_t *file;
            size_t size;
            char err[256] = "";
            encode_mem(cases[k].fmt, &img, 90, &file, &size);
            assert_int_equal((cases[k].luma ? io_decode_luma : io_decode)(
                                 file, size, 0, IO_MAX_PIXELS_PER_BYTE, &want, err, sizeof err),
                             0);
            assert_null(want.allocator);
            c = (counting){0, 0, refuse};
            if (io_decode_with(&a, cases[k].luma, file, size, 0, IO_MAX_PIXELS_PER_BYTE, &got,
                               err, sizeof err) != 0)
                fail_msg("case %zu: %s", k, err);
            const int expect = cases[k].expect_given && !refuse;
            assert_int_equal(c.given, expect);
            assert_true(got.allocator == (expect ? &a : NULL));
            expect_same_image(&got, &want);
            io_image_free(&got);
            assert_int_equal(c.taken, expect);
            assert_null(got.pixels);
            /* The allocator was this decode's alone: the next plain decode uses malloc. */
            assert_int_equal(io_decode(file, size, 0, IO_MAX_PIXELS_PER_BYTE, &got, err,
                                       sizeof err),
                             0);
            assert_null(got.allocator);
            assert_int_equal(c.given, expect);
            io_image_free(&got);
            io_image_free(&want);
            free(file);
            free(img.pixels);
        }
}

/* io_probe says from the header what io_decode gives, and refuses what io_decode refuses from
 * the header, with the same reasons; the hard limit (2^30 pixels) is the most a caller gets. */
static void test_probe(void **state)
{
    static const char *const names[] = {"g1.png",    "g16.png",    "rgba16i.png", "p4.png",
                                        "base420.jpg", "gray-prog.jpg", "g100.pgm",
                                        "rgb1000.ppm", "rgb65535-text.ppm"};
    char err[512], want[512];
    (void)state;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        size_t size;
        uint8_t *file = read_fixture(names[k], &size);
        io_header h;
        io_image img;
        if (io_probe(file, size, 0, IO_MAX_PIXELS_PER_BYTE, &h, err, sizeof err))
            fail_msg("%s: %s", names[k], err);
        decode_ok(file, size, &img);
        assert_int_equal(h.width, img.width);
        assert_int_equal(h.height, img.height);
        assert_int_equal(h.channels, img.channels);
        assert_int_equal(h.depth, img.depth);
        assert_int_equal(h.maxval, img.maxval);
        io_image_free(&img);
        /* A limit below the image: the same refusal from both. */
        io_header untouched = {-1, -1, -1, -1, -1};
        assert_int_equal(io_probe(file, size, 100, 0, &untouched, err, sizeof err), -1);
        assert_int_equal(untouched.width, -1);
        assert_int_equal(io_decode(file, size, 100, 0, &img, want, sizeof want), -1);
        assert_string_equal(err, want);
        free(file);
    }
    /* The bombs are refused from the header, lifted with the ratio 0; io_check_bomb names the
     * caller's flag. */
    size_t size;
    uint8_t *bomb = read_fixture("hostile-bomb.png", &size);
    io_header h;
    assert_int_equal(io_probe(bomb, size, 0, IO_MAX_PIXELS_PER_BYTE, &h, err, sizeof err), -1);
    assert_non_null(strstr(err, "is refused as a likely decompression bomb"));
    assert_int_equal(io_probe(bomb, size, 0, 0, &h, err, sizeof err), 0);
    io_limits lim;
    io_limits_default(&lim);
    lim.ratio_hint = "--allow-high-ratio";
    assert_int_equal(io_check_bomb(IO_FORMAT_PNG, h.width, h.height, size, &lim, err,
                                   sizeof err), -1);
    assert_non_null(strstr(err, "decompression bomb (--allow-high-ratio accepts it)"));
    lim.allow_high_ratio = 1;
    assert_int_equal(io_check_bomb(IO_FORMAT_PNG, h.width, h.height, size, &lim, err,
                                   sizeof err), 0);
    assert_int_equal(io_check_bomb(IO_FORMAT_PNM, 60000, 60000, 10, NULL, err, sizeof err), 0);
    free(bomb);
    /* Up to 2^30 pixels when the caller asks (--max-pixels): a PGM header of 32768 x 32768,
     * refused only for its missing raster; above that, the hard limit holds. */
    static const char big[] = "P5 32768 32768 255\n";
    assert_int_equal(io_probe((const uint8_t *)big, sizeof big - 1, 1L << 30, 0, &h, err,
                              sizeof err), -1);
    assert_non_null(strstr(err, "pixel data truncated"));
    assert_int_equal(io_probe((const uint8_t *)big, sizeof big - 1, 1L << 31, 0, &h, err,
                              sizeof err), -1);
    assert_non_null(strstr(err, "pixel data truncated"));
    static const char bigger[] = "P5 32768 32769 255\n";
    assert_int_equal(io_probe((const uint8_t *)bigger, sizeof bigger - 1, 1L << 31, 0, &h, err,
                              sizeof err), -1);
    assert_non_null(strstr(err, "more than the limit of 1073741824"));
}

/* The format comes from the bytes, never from the name: a PNG saved as .bmp is read as PNG. */
static void test_content_not_name(void **state)
{
    char dir[256], path[512];
    io_image img = make_image(5, 4, 1, 16, 65535), back;
    uint8_t *file, *again;
    size_t size, n_again;
    (void)state;
    snprintf(dir, sizeof dir, "%s/tiledconv-codec.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR")
                                                                                : "/tmp");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/picture.bmp", dir);
    encode_mem(IO_FORMAT_PNG, &img, 0, &file, &size);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(file, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
    again = read_whole(path, &n_again);
    decode_ok(again, n_again, &back);
    assert_int_equal(back.depth, 16); /* a BMP could not have given 16 bits */
    for (size_t i = 0; i < 20; i++)
        assert_int_equal(px(&back, i), px(&img, i));
    io_image_free(&back);
    assert_int_equal(remove(path), 0);
    assert_int_equal(rmdir(dir), 0);
    free(again);
    free(file);
    free(img.pixels);
}

static void encode_refused(io_format fmt, const io_image *img, const char *want)
{
    char err[256];
    /* nothing written before the refusal */
    assert_int_equal(expect_encode_refused(fmt, img, 0, "o.x", want, err, sizeof err), 0);
}

/* What each format holds and is called comes from the codec table alone: the words, the
 * 16-bit rule, the checks the row writer and io_encode share. */
static void test_format_table(void **state)
{
    char list[64], err[256];
    io_format f;
    (void)state;
    io_format_list(list, sizeof list);
    assert_string_equal(list, "bmp, png, jpeg (jpg), pnm (pgm, ppm)");
    io_format_list(list, 12); /* cut short, still a string */
    assert_string_equal(list, "bmp, png, j");
    assert_int_equal(io_format_from_word("JPG", &f), 0);
    assert_int_equal(f, IO_FORMAT_JPEG);
    assert_int_equal(io_format_from_word("ppm", &f), 0);
    assert_int_equal(f, IO_FORMAT_PNM);
    assert_int_equal(io_format_from_word("pn", &f), -1);
    assert_int_equal(io_format_from_word("jpeg jpg", &f), -1);
    assert_int_equal(io_format_holds_16_bits(IO_FORMAT_PNG), 1);
    assert_int_equal(io_format_holds_16_bits(IO_FORMAT_PNM), 1);
    assert_int_equal(io_format_holds_16_bits(IO_FORMAT_BMP), 0);
    assert_int_equal(io_format_holds_16_bits(IO_FORMAT_JPEG), 0);
    assert_int_equal(io_check_writable(IO_FORMAT_PNM, 16, 1000, "p", err, sizeof err), 0);
    assert_int_equal(io_check_writable(IO_FORMAT_PNG, 16, 65535, "p", err, sizeof err), 0);
    assert_int_equal(io_check_writable(IO_FORMAT_PNG, 8, 100, "p", err, sizeof err), -1);
    assert_string_equal(err, "p: PNG holds samples of full scale 255, not maxval 100");
    assert_int_equal(io_check_writable(IO_FORMAT_JPEG, 16, 65535, "p", err, sizeof err), -1);
    assert_string_equal(err, "p: JPEG holds 8-bit samples only, not 16-bit");
    assert_non_null(io_row_reading_of(IO_FORMAT_BMP));
    assert_non_null(io_row_writing_of(IO_FORMAT_PNM));
    assert_null(io_row_writing_of((io_format)99));
    assert_int_equal(io_identify((const uint8_t *)"GIF89a..", 8, &f, err, sizeof err), -1);
    assert_string_equal(err, "a GIF file: not a format tiledconv reads (BMP, PNG, JPEG, PGM/PPM)");
}

/* io_encode says what it cannot write before a byte is written. */
static void test_encode_refusals(void **state)
{
    io_image deep = make_image(4, 4, 3, 16, 65535), low = make_image(4, 4, 1, 8, 100);
    io_image two = make_image(4, 4, 1, 8, 255);
    (void)state;
    encode_refused(IO_FORMAT_BMP, &deep, "o.x: BMP holds 8-bit samples only, not 16");
    encode_refused(IO_FORMAT_JPEG, &deep, "o.x: JPEG holds 8-bit samples only, not 16");
    encode_refused(IO_FORMAT_BMP, &low, "BMP holds samples of full scale 255, not maxval 100");
    encode_refused(IO_FORMAT_JPEG, &low, "JPEG holds samples of full scale 255");
    encode_refused(IO_FORMAT_PNG, &low, "PNG holds samples of full scale 255, not maxval 100");
    deep.maxval = 1000;
    encode_refused(IO_FORMAT_PNG, &deep, "PNG holds samples of full scale 65535");
    two.channels = 2;
    encode_refused(IO_FORMAT_PNG, &two, "cannot write an image of 2 channels");
    two.channels = 1;
    two.depth = 12;
    encode_refused(IO_FORMAT_PNM, &two, "cannot write 12-bit samples");
    two.depth = 8;
    two.maxval = 300;
    encode_refused(IO_FORMAT_PNM, &two, "maxval 300 does not fit 8-bit samples");
    two.maxval = 255;
    two.width = 0;
    encode_refused(IO_FORMAT_PNG, &two, "no image to write");
    free(deep.pixels);
    free(low.pixels);
    free(two.pixels);
    /* low's maxval 100 is fine for PNM, which keeps it. */
    low = make_image(4, 4, 1, 8, 100);
    uint8_t *file;
    size_t size;
    encode_mem(IO_FORMAT_PNM, &low, 0, &file, &size);
    assert_memory_equal(file, "P5\n4 4\n100\n", 11);
    free(file);
    free(low.pixels);
}

/* A full disk is one line naming the file and the reason, for every encoder. */
static void test_write_errors(void **state)
{
    io_image img = make_image(64, 64, 3, 8, 255);
    (void)state;
    FILE *probe = fopen("/dev/full", "wb");
    if (!probe) {
        free(img.pixels);
        skip(); /* no /dev/full on this system: nothing to write to that fails */
    }
    fclose(probe);
    for (int fmt = IO_FORMAT_BMP; fmt <= IO_FORMAT_PNM; fmt++) {
        char err[256] = "";
        FILE *f = fopen("/dev/full", "wb");
        assert_non_null(f);
        setvbuf(f, NULL, _IONBF, 0); /* unbuffered: the first write fails, not a later flush */
        assert_int_equal(io_encode(f, (io_format)fmt, &img, 90, "full.img", err, sizeof err),
                         -1);
        if (!strstr(err, "full.img: write error: No space left on device"))
            fail_msg("%s: \"%s\"", io_format_name((io_format)fmt), err);
        fclose(f);
    }
    free(img.pixels);
}

/* The decoders' contract with NULLs and empty input; io_image_free is safe twice. */
static void test_api_edges(void **state)
{
    io_image img = {0, 0, 0, 0, 0, NULL, NULL};
    char err[128] = "";
    (void)state;
    assert_int_equal(io_decode(NULL, 0, 0, 0, &img, err, sizeof err), -1);
    assert_string_equal(err, "no data to decode");
    assert_int_equal(io_decode(png_sig, 8, 0, 0, NULL, NULL, 0), -1); /* err may be NULL */
    io_image_free(&img);
    io_image_free(&img);
    io_image_free(NULL);
    assert_int_equal(io_encode(NULL, IO_FORMAT_PNG, &img, 0, "p", err, sizeof err), -1);
    assert_string_equal(err, "p: no stream to write to");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detect),
        cmocka_unit_test(test_unknown_formats),
        cmocka_unit_test(test_identify),
        cmocka_unit_test(test_format_from_name),
        cmocka_unit_test(test_format_words),
        cmocka_unit_test(test_bmp_through_codec),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_decode_with_allocator),
        cmocka_unit_test(test_probe),
        cmocka_unit_test(test_content_not_name),
        cmocka_unit_test(test_encode_refusals),
        cmocka_unit_test(test_format_table),
        cmocka_unit_test(test_write_errors),
        cmocka_unit_test(test_api_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
