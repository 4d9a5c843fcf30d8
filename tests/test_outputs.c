/* test_outputs.c - the tool's output files (cli/outputs.c): the --raw float32 file, the image
 * in every format and depth, the depth rule, and standard output (-o -). */
#include "test_util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "image.h"
#include "options.h"
#include "outputs.h"

/* The options of `tiledconv --no-output --raw PATH`: only the raw file is written. */
static void raw_options(tc_options *o, char *path)
{
    char *argv[] = {"tiledconv", "--no-output", "--raw", path, NULL};
    assert_int_equal(cli_parse(4, argv, o, stderr), 0);
    assert_int_equal(o->write_output, 0);
    assert_ptr_equal(o->raw_output, path);
}

/* --raw: width * height little-endian float32 per plane, planes one after another. */
static void test_raw_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/tiledconv-raw.XXXXXX", path[64], err[256];
    float a[6] = {0.0f, 1.0f, -2.5f, 3.25f, 1e10f, 255.0f}, b[6] = {7, 7, 7, 7, 7, 7};
    tc_plane planes[2] = {{3, 2, a}, {3, 2, b}};
    const tc_roi roi = {0, 0, 0, 0, 3, 2};
    tc_options o;
    unsigned char bytes[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/out.raw", dir);
    raw_options(&o, path);
    assert_int_equal(outputs_write(&o, planes, 2, &roi, 8, err, sizeof err), 0);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    assert_int_equal(n, 48);
    /* -2.5f is 0xc0200000: little-endian bytes 00 00 20 c0. */
    assert_int_equal(bytes[8], 0x00);
    assert_int_equal(bytes[10], 0x20);
    assert_int_equal(bytes[11], 0xc0);
    /* 7.0f is 0x40e00000, the first float of the second plane. */
    assert_int_equal(bytes[24 + 2], 0xe0);
    assert_int_equal(bytes[24 + 3], 0x40);
    /* A folder is not replaced, and no temporary file is left behind. */
    raw_options(&o, dir);
    assert_int_equal(outputs_write(&o, planes, 1, &roi, 8, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a regular file"));
    char missing[96];
    snprintf(missing, sizeof missing, "%s/no/such/out.raw", dir);
    raw_options(&o, missing);
    assert_int_equal(outputs_write(&o, planes, 1, &roi, 8, err, sizeof err), -1);
    assert_int_equal(remove(path), 0);
    assert_int_equal(remove(dir), 0); /* fails if anything else is in it */
}

/* The options of `tiledconv ARGS...` (NULL-terminated), asserted to parse. */
static void options_of(tc_options *o, char **args)
{
    char *argv[16] = {"tiledconv"};
    int argc = 1;
    while (args[argc - 1])
        argv[argc] = args[argc - 1], argc++;
    argv[argc] = NULL;
    assert_int_equal(cli_parse(argc, argv, o, stderr), 0);
}

/* A file decoded by the codec layer (asserted to decode). */
static void decode_file(const char *path, io_image *img)
{
    char err[256];
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static uint8_t buf[1 << 16];
    const size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (io_decode(buf, n, 0, IO_MAX_PIXELS_PER_BYTE, img, err, sizeof err))
        fail_msg("%s: %s", path, err);
}

/* 16 bits kept where the format holds them, unless --depth says otherwise. */
static void test_depth_rule(void **state)
{
    (void)state;
    tc_options o;
    options_of(&o, (char *[]){"-o", "x.png", NULL});
    assert_int_equal(outputs_depth(&o, 1), 16);
    assert_int_equal(outputs_depth(&o, 0), 8);
    options_of(&o, (char *[]){"-o", "x.pgm", NULL});
    assert_int_equal(outputs_depth(&o, 1), 16);
    options_of(&o, (char *[]){"-o", "x.bmp", NULL});
    assert_int_equal(outputs_depth(&o, 1), 8);
    options_of(&o, (char *[]){"-o", "x.jpg", NULL});
    assert_int_equal(outputs_depth(&o, 1), 8);
    options_of(&o, (char *[]){"-o", "x.png", "--depth", "8", NULL});
    assert_int_equal(outputs_depth(&o, 1), 8);
    options_of(&o, (char *[]){"-o", "x.ppm", "--depth", "16", NULL});
    assert_int_equal(outputs_depth(&o, 0), 16);
    char what[64];
    outputs_describe(IO_FORMAT_PNG, 16, 1, what, sizeof what);
    assert_string_equal(what, "16-bit grayscale PNG");
    outputs_describe(IO_FORMAT_PNM, 8, 3, what, sizeof what);
    assert_string_equal(what, "8-bit colour PPM");
    assert_string_equal(outputs_name("-"), "standard output");
    assert_string_equal(outputs_name("a.png"), "a.png");
}

/* The image in each format and depth, read back through the codecs: the 8- and 16-bit
 * conversions of image.c, the mapping inside the target ROI only, the staged file renamed. */
static void test_image_formats(void **state)
{
    (void)state;
    char dir[] = "/tmp/tiledconv-img.XXXXXX", path[96], err[256];
    float a[6] = {0.0f, 1.0f, 127.5f, 254.6f, 300.0f, -2.0f}, b[6] = {10, 20, 30, 40, 50, 60};
    const tc_plane gray[1] = {{3, 2, a}}, rgb[3] = {{3, 2, a}, {3, 2, b}, {3, 2, a}};
    const tc_roi roi = {0, 0, 1, 0, 2, 2}; /* target: columns 1 and 2 */
    tc_options o;
    io_image img;
    assert_non_null(mkdtemp(dir));

    /* 16-bit gray PNG, --scale 2 inside the ROI: column 0 only converted. */
    snprintf(path, sizeof path, "%s/g.png", dir);
    options_of(&o, (char *[]){"-o", path, "--scale", "2", NULL});
    assert_int_equal(outputs_write(&o, gray, 1, &roi, 16, err, sizeof err), 0);
    decode_file(path, &img);
    assert_int_equal(img.depth, 16);
    assert_int_equal(img.channels, 1);
    const uint16_t *w = img.pixels;
    /* (0, 1) is outside: 254.6 * 65535 / 255 = 65432.2, unmapped */
    const uint16_t want16[6] = {0, 2 * 257, 65535, 65432, 65535, 0};
    assert_memory_equal(w, want16, sizeof want16);
    io_image_free(&img);

    /* 8-bit RGB PPM, no mapping. */
    snprintf(path, sizeof path, "%s/c.ppm", dir);
    options_of(&o, (char *[]){"-o", path, NULL});
    assert_int_equal(outputs_write(&o, rgb, 3, &roi, 8, err, sizeof err), 0);
    decode_file(path, &img);
    assert_int_equal(img.depth, 8);
    assert_int_equal(img.channels, 3);
    assert_int_equal(img.maxval, 255);
    const uint8_t *p8 = img.pixels;
    const uint8_t want8[9] = {0, 10, 0, 1, 20, 1, 128, 30, 128};
    assert_memory_equal(p8, want8, sizeof want8);
    io_image_free(&img);

    /* 16-bit RGB PGM/PPM keeps maxval 65535; JPEG at a quality; BMP through io_encode. */
    snprintf(path, sizeof path, "%s/c16.pnm", dir);
    options_of(&o, (char *[]){"-o", path, NULL});
    assert_int_equal(outputs_write(&o, rgb, 3, &roi, 16, err, sizeof err), 0);
    decode_file(path, &img);
    assert_int_equal(img.maxval, 65535);
    assert_int_equal(((const uint16_t *)img.pixels)[3 * 2 + 1], 30 * 257);
    io_image_free(&img);
    snprintf(path, sizeof path, "%s/q.jpg", dir);
    options_of(&o, (char *[]){"-o", path, "--quality", "100", NULL});
    assert_int_equal(outputs_write(&o, gray, 1, &roi, 8, err, sizeof err), 0);
    decode_file(path, &img);
    assert_int_equal(img.width, 3);
    assert_int_equal(img.channels, 1);
    io_image_free(&img);
    snprintf(path, sizeof path, "%s/b.bmp", dir);
    options_of(&o, (char *[]){"-o", path, NULL});
    assert_int_equal(outputs_write(&o, gray, 1, &roi, 8, err, sizeof err), 0);
    decode_file(path, &img);
    assert_int_equal(((const uint8_t *)img.pixels)[3 * 3], 255); /* 254.6 -> 255 */
    io_image_free(&img);

    /* outputs_put_image: 8-bit rows as the batch's lanes make them. */
    snprintf(path, sizeof path, "%s/p.png", dir);
    uint8_t rows[6] = {1, 2, 3, 4, 5, 6};
    const io_image mine = {3, 2, 1, 8, 255, rows};
    assert_int_equal(outputs_put_image(path, IO_FORMAT_PNG, &mine, 95, 0, err, sizeof err), 0);
    decode_file(path, &img);
    assert_memory_equal(img.pixels, rows, sizeof rows);
    io_image_free(&img);

    const char *names[] = {"g.png", "c.ppm", "c16.pnm", "q.jpg", "b.bmp", "p.png"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        assert_int_equal(remove(path), 0);
    }
    assert_int_equal(remove(dir), 0); /* fails if a temporary file was left */
}

/* Runs fn in a child process with descriptor 1 on out_fd and 2 on err_fd; its exit status. */
static int in_child(void (*fn)(void), int out_fd, int err_fd)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(out_fd, STDOUT_FILENO);
        dup2(err_fd, STDERR_FILENO);
        fn();
        _exit(99); /* fn exits itself */
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void claim_and_write(void)
{
    char err[256];
    if (outputs_claim_stdout(err, sizeof err))
        _exit(1);
    printf("a report\n"); /* after the claim: to standard error */
    fflush(stdout);
    const uint8_t image[5] = {'I', 'M', 'A', 'G', 'E'};
    _exit(outputs_put_bytes("-", image, sizeof image, 1, err, sizeof err) ? 2 : 0);
}

static void write_to_closed_pipe(void)
{
    char err[256];
    if (outputs_claim_stdout(err, sizeof err))
        _exit(1);
    static uint8_t image[1 << 20]; /* more than a pipe holds */
    const int rc = outputs_put_bytes("-", image, sizeof image, 1, err, sizeof err);
    /* Alive (SIGPIPE ignored), failed, and said why. */
    _exit(rc == -1 && strstr(err, "-o -: broken pipe") ? 0 : 2);
}

static void write_unclaimed(void)
{
    char err[256];
    const uint8_t byte = 0;
    const int rc = outputs_put_bytes("-", &byte, 1, 1, err, sizeof err);
    _exit(rc == -1 && strstr(err, "not claimed") ? 0 : 2);
}

/* -o -: the image alone on standard output, every report on standard error; a reader that
 * has gone away is a failed write with its reason, not a silent death by SIGPIPE. */
static void test_standard_output(void **state)
{
    (void)state;
    FILE *out = tmpfile(), *errs = tmpfile();
    char buf[64] = "";
    assert_non_null(out);
    assert_non_null(errs);
    assert_int_equal(in_child(claim_and_write, fileno(out), fileno(errs)), 0);
    rewind(out);
    assert_int_equal(fread(buf, 1, sizeof buf, out), 5);
    assert_memory_equal(buf, "IMAGE", 5);
    rewind(errs);
    memset(buf, 0, sizeof buf);
    assert_non_null(fgets(buf, sizeof buf, errs));
    assert_string_equal(buf, "a report\n");
    fclose(out);
    fclose(errs);

    int p[2];
    assert_int_equal(pipe(p), 0);
    close(p[0]); /* the reader is gone before anything is written */
    assert_int_equal(in_child(write_to_closed_pipe, p[1], STDERR_FILENO), 0);
    close(p[1]);
    assert_int_equal(in_child(write_unclaimed, STDOUT_FILENO, STDERR_FILENO), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_raw_file),
        cmocka_unit_test(test_depth_rule),
        cmocka_unit_test(test_image_formats),
        cmocka_unit_test(test_standard_output),
    };
    return cmocka_run_group_tests_name("outputs", tests, NULL, NULL);
}
