/* test_source.c - an input's bytes (src/files/source.c): files and standard input, the format from
 * the first bytes, refusals before the rest is read, and decoding with the BMP reader's own
 * messages. */
#include "codec_test_util.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "source.h"

static void fixture(const char *name, char *path, size_t size)
{
    snprintf(path, size, "%s/tests/data/formats/%s", test_root(), name);
}

/* Files of each format: the format from the content, the bytes whole. */
static void test_files(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        io_format fmt;
        int width;
    } files[] = {{"g16.png", IO_FORMAT_PNG, 13},
                 {"base420.jpg", IO_FORMAT_JPEG, 37},
                 {"g100.pgm", IO_FORMAT_PNM, 13},
                 {"rgb65535-text.ppm", IO_FORMAT_PNM, 13}};
    char path[1024], err[512];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        {
            source s;
            fixture(files[i].name, path, sizeof path);
            FILE *f = fopen(path, "rb");
            assert_non_null(f);
            fseek(f, 0, SEEK_END);
            const long size = ftell(f);
            fclose(f);
            if (source_read(path, &s, err, sizeof err))
                fail_msg("%s", err);
            assert_int_equal(s.format, files[i].fmt);
            assert_int_equal(s.size, (size_t)size);
            io_image img;
            if (source_decode(&s, path, 0, IO_MAX_PIXELS_PER_BYTE, &img, err, sizeof err))
                fail_msg("%s", err);
            assert_int_equal(img.width, files[i].width);
            io_image_free(&img);
            source_free(&s);
            assert_null(s.data);
        }
    /* A BMP decodes through the BMP reader: 8-bit RGB, and its own messages. */
    source s;
    snprintf(path, sizeof path, "%s/images/TiledConv_Input451x300.bmp", test_root());
    assert_int_equal(source_read(path, &s, err, sizeof err), 0);
    assert_int_equal(s.format, IO_FORMAT_BMP);
    io_image img;
    assert_int_equal(source_decode(&s, "in.bmp", 0, 0, &img, err, sizeof err), 0);
    assert_int_equal(img.channels, 3);
    assert_int_equal(img.depth, 8);
    assert_int_equal(img.maxval, 255);
    io_image_free(&img);
    const size_t whole = s.size;
    s.size = 100; /* as if truncated */
    assert_int_equal(source_decode(&s, "in.bmp", 0, 0, &img, err, sizeof err), -1);
    assert_true(strncmp(err, "in.bmp: ", 8) == 0 && strncmp(err + 8, "BMP:", 4) != 0);
    s.size = whole; /* the mapping's own length, to unmap it */
    source_free(&s);
}

/* What is refused, and that it is refused from the first bytes. */
static void test_refusals(void **state)
{
    (void)state;
    char err[512], dir[] = "/tmp/tiledconv-src.XXXXXX", path[128];
    source s = {NULL, 0, IO_FORMAT_BMP};
    assert_int_equal(source_read("/no/such/file.png", &s, err, sizeof err), -1);
    assert_string_equal(err, "/no/such/file.png: No such file or directory");
    assert_non_null(mkdtemp(dir));
    assert_int_equal(source_read(dir, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "a folder, not an image file"));
    snprintf(path, sizeof path, "%s/empty.png", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(source_read(path, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "empty.png: empty file"));
    assert_int_equal(remove(path), 0);
    assert_int_equal(remove(dir), 0);
    /* An endless device of zeros: refused from its first bytes, at once. */
    const clock_t t0 = clock();
    assert_int_equal(source_read("/dev/zero", &s, err, sizeof err), -1);
    assert_string_equal(err, "/dev/zero: not an image in a format tiledconv reads (BMP, PNG, "
                             "JPEG, PGM/PPM)");
    assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 0.5);
    assert_null(s.data); /* untouched */
}

/* check(arg) in a child whose standard input (descriptor 0) is the file at path: the status
 * it exits with, 0 when its checks held (3: the file could not be opened; 100: a signal). */
static int on_stdin(const char *path, int (*check)(const void *), const void *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        const int fd = open(path, O_RDONLY);
        if (fd < 0 || dup2(fd, STDIN_FILENO) < 0)
            _exit(3);
        _exit(check(arg));
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

/* Standard input ("-") read as a PNG (expect NULL), or refused with the message expect. */
static int read_stdin(const void *expect)
{
    char err[512];
    source s;
    const int rc = source_read("-", &s, err, sizeof err);
    if (!expect)
        return rc == 0 && s.format == IO_FORMAT_PNG ? 0 : 4;
    return rc == -1 && strcmp(err, expect) == 0 ? 0 : 5;
}

static void test_standard_input(void **state)
{
    (void)state;
    char path[1024];
    fixture("rgb16.png", path, sizeof path);
    assert_int_equal(on_stdin(path, read_stdin, NULL), 0); /* read, never mapped */
    assert_int_equal(on_stdin("/dev/zero", read_stdin,
                              "standard input: not an image in a format tiledconv reads "
                              "(BMP, PNG, JPEG, PGM/PPM)"),
                     0);
    assert_int_equal(on_stdin("/dev/null", read_stdin, "standard input: empty file"), 0);
    assert_string_equal(source_name("-"), "standard input");
    assert_true(source_is_stdin("-") && !source_is_stdin("-x") && !source_is_stdin(NULL));
}

/* The reader the tool uses: every format opened on its header (the size and the samples to
 * come, and the bytes held meanwhile), then decoded as source_decode decodes; the caller's
 * limits from the header, with the flags that lift them named. */
static void test_reader(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        io_format fmt;
        int channels, depth, maxval;
    } files[] = {{"g16.png", IO_FORMAT_PNG, 1, 16, 65535},
                 {"rgb8.png", IO_FORMAT_PNG, 3, 8, 255},
                 {"base420.jpg", IO_FORMAT_JPEG, 3, 8, 255},
                 {"g100.pgm", IO_FORMAT_PNM, 1, 8, 100},
                 {"rgb1000.ppm", IO_FORMAT_PNM, 3, 16, 1000}};
    char path[1024], err[512];
    io_limits lim;
    io_limits_default(&lim);
    lim.pixels_hint = "--max-pixels";
    lim.ratio_hint = "--allow-high-ratio";
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        source_reader r;
        source s;
        io_image a, b;
        fixture(files[i].name, path, sizeof path);
        if (source_reader_open(path, &lim, &r, err, sizeof err))
            fail_msg("%s", err);
        assert_int_equal(r.format, files[i].fmt);
        assert_int_equal(r.head.channels, files[i].channels);
        assert_int_equal(r.head.depth, files[i].depth);
        assert_int_equal(r.head.maxval, files[i].maxval);
        assert_int_equal(source_read(path, &s, err, sizeof err), 0);
        assert_int_equal(r.held, s.size);
        assert_int_equal(source_reader_decode(&r, &a, err, sizeof err), 0);
        source_reader_close(&r);
        source_reader_close(&r); /* twice is harmless */
        assert_int_equal(source_decode(&s, path, 0, IO_MAX_PIXELS_PER_BYTE, &b, err, sizeof err),
                         0);
        source_free(&s);
        assert_int_equal(a.width, r.head.width);
        assert_int_equal(a.height, r.head.height);
        assert_memory_equal(a.pixels, b.pixels,
                            (size_t)a.width * a.height * a.channels * (size_t)(a.depth / 8));
        io_image_free(&a);
        io_image_free(&b);
    }
    /* A BMP goes through the BMP reader: 8-bit RGB, only its meaningful bytes held. */
    source_reader r;
    snprintf(path, sizeof path, "%s/images/TiledConv_Input451x300.bmp", test_root());
    assert_int_equal(source_reader_open(path, &lim, &r, err, sizeof err), 0);
    assert_int_equal(r.format, IO_FORMAT_BMP);
    assert_int_equal(r.head.width, 451);
    assert_int_equal(r.head.channels, 3);
    assert_int_equal(r.held, 54 + 1356 * 300); /* rows of 451 * 3 bytes padded to 1356 */
    uint8_t *bytes;
    size_t n;
    const io_allocator *from;
    assert_int_equal(source_reader_bmp_bytes(&r, &bytes, &n, &from, err, sizeof err), 0);
    assert_int_equal(n, r.held);
    assert_null(from);
    source_reader_close(&r);
    /* With an allocator the same bytes land in its memory (the header's copied in first), and
     * go back to it; one that has none leaves them to malloc. */
    for (int refuse = 0; refuse < 2; refuse++) {
        counting pool = {0, 0, refuse};
        const io_allocator a = {counting_alloc, counting_release, &pool};
        uint8_t *again;
        size_t m;
        assert_int_equal(source_reader_open(path, &lim, &r, err, sizeof err), 0);
        source_reader_use_allocator(&r, &a);
        assert_int_equal(source_reader_bmp_bytes(&r, &again, &m, &from, err, sizeof err), 0);
        source_reader_close(&r);
        assert_int_equal(m, n);
        assert_memory_equal(again, bytes, n);
        assert_ptr_equal(from, refuse ? NULL : &a);
        assert_int_equal(pool.given, refuse ? 0 : 1);
        io_pixels_free(again, from);
        assert_int_equal(pool.taken, pool.given);
    }
    free(bytes);

    /* The caller's pixel limit and the bomb guard, from the header, each naming its flag. */
    fixture("g16.png", path, sizeof path);
    lim.max_pixels = 100;
    assert_int_equal(source_reader_open(path, &lim, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "g16.png: image size 13 x 11 (143 pixels) exceeds the limit of "
                                "100 pixels (--max-pixels raises it)"));
    io_limits_default(&lim);
    lim.ratio_hint = "--allow-high-ratio";
    fixture("hostile-bomb.png", path, sizeof path);
    assert_int_equal(source_reader_open(path, &lim, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "a likely decompression bomb (--allow-high-ratio accepts it)"));
    lim.allow_high_ratio = 1;
    assert_int_equal(source_reader_open(path, &lim, &r, err, sizeof err), 0);
    assert_int_equal(r.head.width, 8192);
    source_reader_close(&r);
    /* Devices: /dev/zero by its first bytes, as source_read; a name's control characters
     * escaped. */
    assert_int_equal(source_reader_open("/dev/zero", NULL, &r, err, sizeof err), -1);
    assert_string_equal(err, "/dev/zero: not an image in a format tiledconv reads (BMP, PNG, "
                             "JPEG, PGM/PPM)");
    assert_int_equal(source_reader_open("/no/such\nfile.png", NULL, &r, err, sizeof err), -1);
    assert_string_equal(err, "/no/such\\nfile.png: No such file or directory");
}

/* A BMP on standard input goes through the BMP reader from the bytes already read to tell its
 * format: read as a stream, its size unknown (the offset of a redirected file need not be 0). */
static int read_stdin_bmp(const void *unused)
{
    char err[512];
    source_reader r;
    io_image img;
    (void)unused;
    if (source_reader_open("-", NULL, &r, err, sizeof err) || r.format != IO_FORMAT_BMP ||
        r.bmp.file_size != 0 || source_reader_decode(&r, &img, err, sizeof err))
        return 4;
    source_reader_close(&r);
    /* standard input is still open: the reader never closes it */
    return img.width == 451 && fcntl(STDIN_FILENO, F_GETFD) != -1 ? 0 : 5;
}

static void test_reader_standard_input(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/images/TiledConv_Input451x300.bmp", test_root());
    assert_int_equal(on_stdin(path, read_stdin_bmp, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_standard_input),
        cmocka_unit_test(test_reader),
        cmocka_unit_test(test_reader_standard_input),
    };
    return cmocka_run_group_tests_name("source", tests, NULL, NULL);
}
