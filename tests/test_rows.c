/* test_rows.c - images read and written a row at a time (src/io/rows.h) against the whole-image
 * decoders and encoders: every fixture of every format (tests/data/formats, the BMP Suite), valid
 * or hostile, gives the same pixels row by row as whole, or is refused by both; every image the
 * encoders take is written to the same bytes row by row as whole. */
#include "codec_test_util.h"

#include "codec_common.h" /* io_image_bytes */
#include "rows.h"

#include <dirent.h>

/* Every row of a file through a row reader into one buffer, then the checks after the last
 * row: 0 with *img filled (malloc'd pixels), or -1 with the reason. */
static int read_by_rows(const uint8_t *data, size_t size, io_image *img, char *err,
                        size_t err_size)
{
    io_format fmt;
    io_row_reader *r = NULL;
    io_header h;
    size_t held = 0;
    if (io_detect(data, size, &fmt))
        return -1;
    if (io_rows_open(fmt, data, size, NULL, 0, &r, &h, &held, err, err_size))
        return -1;
    const size_t row = io_image_bytes(h.width, 1, h.channels, h.depth);
    uint8_t *px = malloc(row * (size_t)h.height);
    assert_non_null(px);
    int rc = 0;
    for (int y = 0; rc == 0 && y < h.height; y++)
        rc = io_rows_read(r, px + (size_t)y * row, err, err_size);
    if (rc == 0)
        rc = io_rows_finish(r, err, err_size);
    io_rows_close(r);
    if (rc) {
        free(px);
        return -1;
    }
    *img = (io_image){h.width, h.height, h.channels, h.depth, h.maxval, px, NULL};
    return 0;
}

/* One file: whole and by rows agree (both refuse, or the same image). Returns 1 when it
 * decoded. */
static int check_file(const char *path)
{
    size_t size;
    uint8_t *data = read_whole(path, &size);
    io_image whole = {0, 0, 0, 0, 0, NULL, NULL}, rows = {0, 0, 0, 0, 0, NULL, NULL};
    char why_whole[512] = "", why_rows[512] = "";
    const int a = io_decode(data, size, 0, IO_MAX_PIXELS_PER_BYTE, &whole, why_whole,
                            sizeof why_whole);
    const int b = read_by_rows(data, size, &rows, why_rows, sizeof why_rows);
    if (a != b)
        fail_msg("%s: whole %s (%s), by rows %s (%s)", path, a ? "refused" : "decoded",
                 why_whole, b ? "refused" : "decoded", why_rows);
    if (a == 0)
        expect_same_image(&rows, &whole);
    io_image_free(&whole);
    io_image_free(&rows);
    free(data);
    return a == 0;
}

/* Every file of a folder (recursively) through check_file; the count that decoded. */
static int check_folder(const char *dir, int *files)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int decoded = 0;
    assert_non_null(d);
    while ((e = readdir(d)) != NULL) {
        char path[2048];
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        DIR *sub = opendir(path);
        if (sub) {
            closedir(sub);
            decoded += check_folder(path, files);
            continue;
        }
        const char *dot = strrchr(e->d_name, '.');
        if (!dot || strcmp(dot, ".py") == 0 || strcmp(dot, ".txt") == 0 ||
            strcmp(dot, ".tsv") == 0 || strcmp(dot, ".md") == 0)
            continue;
        (*files)++;
        decoded += check_file(path);
    }
    closedir(d);
    return decoded;
}

/* check_folder on tests/data/NAME: at least min_files files, at least min_decoded of them
 * decoded, and some refused (both ways). */
static void check_fixtures(const char *name, int min_files, int min_decoded)
{
    char dir[1024];
    int files = 0;
    snprintf(dir, sizeof dir, "%s/tests/data/%s", test_root(), name);
    const int decoded = check_folder(dir, &files);
    assert_true(files >= min_files);
    assert_true(decoded >= min_decoded);
    assert_true(decoded < files);
}

static void test_formats_fixtures_same_pixels(void **state)
{
    (void)state;
    /* Every colour type, depth, sampling and the hostile files: 42 files, 34 of them valid. */
    check_fixtures("formats", 40, 30);
}

static void test_bmpsuite_same_pixels(void **state)
{
    (void)state;
    check_fixtures("bmpsuite", 90, 50); /* the suite's bad files are refused both ways */
}

/* A file truncated at every length refuses or decodes alike both ways. */
static void test_truncations_agree(void **state)
{
    (void)state;
    static const char *const names[] = {"rgb8.png", "g16.png", "p4.png", "base420.jpg",
                                        "prog420.jpg", "rgb8.ppm", "g15-text.pgm"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t size;
        uint8_t *data = read_fixture(names[i], &size);
        for (size_t n = 1; n < size; n += size > 400 ? 7 : 1) {
            io_image a = {0, 0, 0, 0, 0, NULL, NULL}, b = {0, 0, 0, 0, 0, NULL, NULL};
            char ea[512], eb[512];
            uint8_t *cut = malloc(n);
            assert_non_null(cut);
            memcpy(cut, data, n);
            const int ra = io_decode(cut, n, 0, IO_MAX_PIXELS_PER_BYTE, &a, ea, sizeof ea);
            const int rb = read_by_rows(cut, n, &b, eb, sizeof eb);
            if (ra != rb)
                fail_msg("%s cut to %lu bytes: whole %d (%s), by rows %d (%s)", names[i],
                         (unsigned long)n, ra, ra ? ea : "", rb, rb ? eb : "");
            if (ra == 0)
                assert_memory_equal(a.pixels, b.pixels,
                                    io_image_bytes(a.width, a.height, a.channels, a.depth));
            io_image_free(&a);
            io_image_free(&b);
            free(cut);
        }
        free(data);
    }
}

/* What a stream received, as bytes (the encoders write to a FILE). */
static uint8_t *stream_bytes(FILE *f, size_t *size)
{
    assert_int_equal(fflush(f), 0);
    long n = ftell(f);
    assert_true(n >= 0);
    uint8_t *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    rewind(f);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    *size = (size_t)n;
    return buf;
}

/* img written whole and by rows as fmt: the same bytes. */
static void check_encode(const io_image *img, io_format fmt, int quality)
{
    FILE *a = tmpfile(), *b = tmpfile();
    io_row_writer *w = NULL;
    char err[512] = "";
    size_t na, nb;
    assert_non_null(a);
    assert_non_null(b);
    if (io_encode(a, fmt, img, quality, "whole", err, sizeof err))
        fail_msg("io_encode: %s", err);
    if (io_rows_begin(b, fmt, img->width, img->height, img->channels, img->depth, img->maxval,
                      quality, "rows", &w, err, sizeof err))
        fail_msg("io_rows_begin: %s", err);
    const size_t row = io_image_bytes(img->width, 1, img->channels, img->depth);
    for (int y = 0; y < img->height; y++)
        if (io_rows_write(w, (const uint8_t *)img->pixels + (size_t)y * row, err, sizeof err))
            fail_msg("io_rows_write: %s", err);
    if (io_rows_end(w, err, sizeof err))
        fail_msg("io_rows_end: %s", err);
    io_rows_free(w);
    uint8_t *da = stream_bytes(a, &na), *db = stream_bytes(b, &nb);
    if (na != nb || memcmp(da, db, na) != 0)
        fail_msg("%s of %d x %d x %d, %d bits: %lu bytes whole, %lu by rows, differing",
                 io_format_name(fmt), img->width, img->height, img->channels, img->depth,
                 (unsigned long)na, (unsigned long)nb);
    free(da);
    free(db);
    fclose(a);
    fclose(b);
}

/* A picture with edges and noise (so that every encoder has work), of any size. */
static io_image test_image(int width, int height, int channels, int depth, int maxval)
{
    io_image img = {width, height, channels, depth, maxval, NULL, NULL};
    const size_t n = (size_t)width * (size_t)height * (size_t)channels;
    img.pixels = malloc(io_image_bytes(width, height, channels, depth));
    assert_non_null(img.pixels);
    uint32_t seed = 12345u;
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        const unsigned x = (unsigned)(i / (size_t)channels % (size_t)width);
        const unsigned v = ((x / 7u) % 2u ? (unsigned)maxval * 3u / 4u : (unsigned)maxval / 5u) +
                           (seed >> 16) % 17u;
        const unsigned s = v > (unsigned)maxval ? (unsigned)maxval : v;
        set_px(&img, i, s);
    }
    return img;
}

static void test_encoders_same_bytes(void **state)
{
    (void)state;
    static const int sizes[][2] = {{1, 1}, {13, 11}, {67, 5}, {5, 67}, {301, 203}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const int w = sizes[s][0], h = sizes[s][1];
        for (int channels = 1; channels <= 3; channels += 2) {
            io_image img8 = test_image(w, h, channels, 8, 255);
            io_image img16 = test_image(w, h, channels, 16, 65535);
            io_image odd = test_image(w, h, channels, 16, 1000);
            check_encode(&img8, IO_FORMAT_BMP, 0);
            check_encode(&img8, IO_FORMAT_PNG, 0);
            check_encode(&img16, IO_FORMAT_PNG, 0);
            check_encode(&img8, IO_FORMAT_JPEG, 0);
            check_encode(&img8, IO_FORMAT_JPEG, 50);
            check_encode(&img8, IO_FORMAT_JPEG, 100);
            check_encode(&img8, IO_FORMAT_PNM, 0);
            check_encode(&img16, IO_FORMAT_PNM, 0);
            check_encode(&odd, IO_FORMAT_PNM, 0);
            io_image_free(&img8);
            io_image_free(&img16);
            io_image_free(&odd);
        }
    }
}

/* TurboJPEG reads TJ_OPTIMIZE and TJ_PROGRESSIVE from the environment; the row writer too. */
static void test_jpeg_environment_same_bytes(void **state)
{
    (void)state;
    io_image img = test_image(77, 45, 3, 8, 255);
    setenv("TJ_OPTIMIZE", "1", 1);
    check_encode(&img, IO_FORMAT_JPEG, 90);
    unsetenv("TJ_OPTIMIZE");
    setenv("TJ_PROGRESSIVE", "1", 1);
    check_encode(&img, IO_FORMAT_JPEG, 90);
    unsetenv("TJ_PROGRESSIVE");
    setenv("TJ_RESTART", "2", 1);
    check_encode(&img, IO_FORMAT_JPEG, 90);
    unsetenv("TJ_RESTART");
    io_image_free(&img);
}

/* The writers refuse what the encoders refuse, in the same words. */
static void test_writer_refusals(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    io_row_writer *w = NULL;
    char err[512] = "";
    assert_non_null(f);
    static const struct { /* 4 x 4 images the writer cannot take */
        io_format fmt;
        int channels, depth, maxval, quality;
        const char *name, *want;
    } refused[] = {
        {IO_FORMAT_BMP, 1, 16, 65535, 0, "x.bmp", "x.bmp: BMP holds 8-bit samples"},
        {IO_FORMAT_PNG, 1, 16, 1000, 0, "x.png", "x.png: PNG holds samples of full scale 65535"},
        {IO_FORMAT_JPEG, 3, 8, 255, 101, "x.jpg", "quality 101"},
        {IO_FORMAT_PNM, 2, 8, 255, 0, "x.pgm", "2 channels"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        assert_int_equal(io_rows_begin(f, refused[i].fmt, 4, 4, refused[i].channels,
                                       refused[i].depth, refused[i].maxval, refused[i].quality,
                                       refused[i].name, &w, err, sizeof err),
                         -1);
        if (!strstr(err, refused[i].want))
            fail_msg("%s: \"%s\" does not say \"%s\"", refused[i].name, err, refused[i].want);
    }
    /* A row past the last, and an end before it. */
    assert_int_equal(io_rows_begin(f, IO_FORMAT_PNM, 2, 1, 1, 8, 255, 0, "x.pgm", &w, err,
                                   sizeof err), 0);
    const uint8_t row[2] = {1, 2};
    assert_int_equal(io_rows_write(w, row, err, sizeof err), 0);
    assert_int_equal(io_rows_write(w, row, err, sizeof err), -1);
    assert_non_null(strstr(err, "more rows"));
    io_rows_free(w);
    assert_int_equal(io_rows_begin(f, IO_FORMAT_PNG, 2, 2, 1, 8, 255, 0, "x.png", &w, err,
                                   sizeof err), 0);
    assert_int_equal(io_rows_write(w, row, err, sizeof err), 0);
    assert_int_equal(io_rows_end(w, err, sizeof err), -1);
    assert_non_null(strstr(err, "1 of 2 rows"));
    io_rows_free(w);
    fclose(f);
}

/* What a reader holds is said before anything is decoded: a few rows for a PNG read by rows,
 * the decoded image for an interlaced one, every coefficient for a progressive JPEG. */
static void test_held_bytes(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int whole; /* 1: held is at least the decoded image */
    } cases[] = {{"rgb8.png", 0}, {"rgb8i.png", 1}, {"base420.jpg", 0}, {"prog420.jpg", 1},
                 {"rgb8.ppm", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t size, held = 0;
        io_format fmt;
        io_row_reader *r = NULL;
        io_header h;
        char err[512] = "";
        uint8_t *data = read_fixture(cases[i].name, &size);
        assert_int_equal(io_detect(data, size, &fmt), 0);
        if (io_rows_open(fmt, data, size, NULL, 0, &r, &h, &held, err, sizeof err))
            fail_msg("%s: %s", cases[i].name, err);
        const size_t image = io_image_bytes(h.width, h.height, h.channels, h.depth);
        if (cases[i].whole && held < image)
            fail_msg("%s: holds %lu, less than its %lu decoded bytes", cases[i].name,
                     (unsigned long)held, (unsigned long)image);
        /* Row by row: bounded by a few rows and the codecs' fixed state, not the image. */
        if (!cases[i].whole && held > ((size_t)20 << 20))
            fail_msg("%s: holds %lu bytes", cases[i].name, (unsigned long)held);
        io_rows_close(r);
        free(data);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formats_fixtures_same_pixels),
        cmocka_unit_test(test_bmpsuite_same_pixels),
        cmocka_unit_test(test_truncations_agree),
        cmocka_unit_test(test_encoders_same_bytes),
        cmocka_unit_test(test_jpeg_environment_same_bytes),
        cmocka_unit_test(test_writer_refusals),
        cmocka_unit_test(test_held_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
