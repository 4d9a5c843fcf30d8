/* codec_test_util.h - what the codec suites (test_codec.c, test_png.c, test_jpeg.c,
 * test_pnm.c, and test_source.c above them) share: the fixtures of tests/data/formats/ and the
 * formulas that made them, files in memory, the decoder's contract on failure, a counting
 * allocator, and a bound on the memory a call may take. */
#ifndef TILEDCONV_CODEC_TEST_UTIL_H
#define TILEDCONV_CODEC_TEST_UTIL_H

#include "test_util.h"

#include "codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* The fixtures' size and formulas: tests/data/formats/make-fixtures.py, repeated here. */
#define FIX_W 13
#define FIX_H 11

static inline unsigned fix_sample(unsigned x, unsigned y, unsigned c, unsigned maxval)
{
    return (x * 37u + y * 101u + c * 59u + x * y * 7u) % (maxval + 1u);
}

static inline void fix_palette(unsigned i, uint8_t rgb[3])
{
    rgb[0] = (uint8_t)((i * 17u) % 256u);
    rgb[1] = (uint8_t)((i * 91u + 3u) % 256u);
    rgb[2] = (uint8_t)((255u - i * 3u) % 256u);
}

/* An io_allocator's functions that count (test_codec.c, test_source.c): what it gave and
 * took back, and a switch that makes it refuse (as an allocator with nothing to give). */
typedef struct {
    int given, taken, refuse;
} counting;

static inline void *counting_alloc(void *arg, size_t bytes)
{
    counting *c = arg;
    if (c->refuse)
        return NULL;
    c->given++;
    return malloc(bytes);
}

static inline void counting_release(void *arg, void *pixels)
{
    counting *c = arg;
    c->taken++;
    free(pixels);
}

/* A whole file in memory (asserts that it can be read). */
static inline uint8_t *read_whole(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    assert_non_null(buf);
    for (;;) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        cap *= 2;
        buf = realloc(buf, cap);
        assert_non_null(buf);
    }
    assert_int_equal(ferror(f), 0);
    fclose(f);
    *size = n;
    return buf;
}

static inline uint8_t *read_fixture(const char *name, size_t *size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/formats/%s", test_root(), name);
    return read_whole(path, size);
}

/* Decodes with the default limits; fails the test with the decoder's reason if it refuses. */
static inline void decode_ok(const uint8_t *data, size_t size, io_image *img)
{
    char err[512] = "";
    if (io_decode(data, size, 0, IO_MAX_PIXELS_PER_BYTE, img, err, sizeof err) != 0)
        fail_msg("io_decode refused a valid file: %s", err);
}

/* Asserts the decoder's contract on failure: -1, the image untouched, one line that contains
 * `want` (when not NULL). Returns nothing; the message is printed for the log. */
static inline void expect_refused_limits(const uint8_t *data, size_t size, long max_pixels,
                                         long ratio, const char *want)
{
    static int sentinel;
    io_image img = {-7, -9, 5, 6, 7, &sentinel, NULL};
    char err[512] = "";
    int rc = io_decode(data, size, max_pixels, ratio, &img, err, sizeof err);
    if (rc == 0) {
        io_image_free(&img);
        fail_msg("accepted a file that should be refused (expected \"%s\")", want ? want : "");
    }
    assert_int_equal(rc, -1);
    assert_true(img.width == -7 && img.height == -9 && img.channels == 5 && img.depth == 6 &&
                img.maxval == 7 && img.pixels == &sentinel);
    assert_true(err[0] != '\0');
    assert_null(strchr(err, '\n'));
    if (want && !strstr(err, want))
        fail_msg("message \"%s\" does not say \"%s\"", err, want);
}

static inline void expect_refused(const uint8_t *data, size_t size, const char *want)
{
    expect_refused_limits(data, size, 0, IO_MAX_PIXELS_PER_BYTE, want);
}

/* Encodes into memory (open_memstream), asserting success; the caller frees *out. */
static inline void encode_mem(io_format fmt, const io_image *img, int quality, uint8_t **out,
                              size_t *size)
{
    char *buf = NULL, err[512] = "";
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    assert_non_null(f);
    if (io_encode(f, fmt, img, quality, "mem", err, sizeof err) != 0)
        fail_msg("io_encode failed: %s", err);
    assert_int_equal(fclose(f), 0);
    *out = (uint8_t *)buf;
    *size = n;
}

/* Samples of an image, whatever its depth. */
static inline unsigned px(const io_image *img, size_t i)
{
    return img->depth == 16 ? ((const uint16_t *)img->pixels)[i]
                            : ((const uint8_t *)img->pixels)[i];
}

/* Sets sample i of an image, whatever its depth (v cut to the depth's bits). */
static inline void set_px(io_image *img, size_t i, unsigned v)
{
    if (img->depth == 16)
        ((uint16_t *)img->pixels)[i] = (uint16_t)v;
    else
        ((uint8_t *)img->pixels)[i] = (uint8_t)v;
}

/* io_encode of img (into memory, as the file name) refused: -1, and one line that says want,
 * kept in err for the caller's own checks. Returns how many bytes it wrote before it refused. */
static inline size_t expect_encode_refused(io_format fmt, const io_image *img, int quality,
                                         const char *name, const char *want, char *err,
                                         size_t err_size)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    assert_non_null(f);
    err[0] = '\0';
    assert_int_equal(io_encode(f, fmt, img, quality, name, err, err_size), -1);
    assert_int_equal(fclose(f), 0);
    if (!strstr(err, want))
        fail_msg("message \"%s\" does not say \"%s\"", err, want);
    assert_null(strchr(err, '\n'));
    free(buf);
    return n;
}

/* The file decodes to img's width, height, channels and samples, with this depth and maxval
 * (a file's depth can differ from the image written: 8-bit samples held in 16 bits). */
static inline void expect_decodes_to(const uint8_t *file, size_t size, const io_image *img,
                                     int depth, unsigned maxval)
{
    io_image back;
    decode_ok(file, size, &back);
    assert_int_equal(back.width, img->width);
    assert_int_equal(back.height, img->height);
    assert_int_equal(back.channels, img->channels);
    assert_int_equal(back.depth, depth);
    assert_int_equal(back.maxval, maxval);
    const size_t n = (size_t)img->width * (size_t)img->height * (size_t)img->channels;
    for (size_t i = 0; i < n; i++)
        assert_int_equal(px(&back, i), px(img, i));
    io_image_free(&back);
}


/* Two decodes of one file agree: the same width, height, channels, depth, maxval and bytes. */
static inline void expect_same_image(const io_image *got, const io_image *want)
{
    assert_int_equal(got->width, want->width);
    assert_int_equal(got->height, want->height);
    assert_int_equal(got->channels, want->channels);
    assert_int_equal(got->depth, want->depth);
    assert_int_equal(got->maxval, want->maxval);
    assert_memory_equal(got->pixels, want->pixels,
                        io_image_bytes(want->width, want->height, want->channels, want->depth));
}

/* How much the peak resident memory grew while fn(arg) ran, in KiB, measured in a child
 * process so that the test process's own history does not hide the growth. The child exits
 * with status 0 when fn returned 0. */
static inline long peak_growth_kib(int (*fn)(void *), void *arg, int *fn_status)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rusage before, after;
        close(fds[0]);
        getrusage(RUSAGE_SELF, &before);
        int rc = fn(arg);
        getrusage(RUSAGE_SELF, &after);
        long grew = after.ru_maxrss - before.ru_maxrss;
        ssize_t w = write(fds[1], &grew, sizeof grew);
        _exit(w == (ssize_t)sizeof grew ? (rc == 0 ? 0 : 1) : 2);
    }
    close(fds[1]);
    long grew = -1;
    assert_int_equal(read(fds[0], &grew, sizeof grew), (ssize_t)sizeof grew);
    close(fds[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_true(WEXITSTATUS(status) != 2);
    *fn_status = WEXITSTATUS(status);
    return grew;
}

/* A decode for peak_growth_kib: returns io_decode's status. */
typedef struct {
    const uint8_t *data;
    size_t size;
    long ratio;
} decode_job;

static inline int run_decode(void *arg)
{
    const decode_job *j = arg;
    io_image img;
    char err[512];
    int rc = io_decode(j->data, j->size, 0, j->ratio, &img, err, sizeof err);
    if (rc == 0)
        io_image_free(&img);
    return rc;
}

/* The memory a refused hostile file may cost: the bound set for decompression bombs. */
#define HOSTILE_MAX_GROWTH_KIB (64L * 1024)

/* Asserts that decoding is refused and that the refusal cost less than the bound above. */
static inline void expect_refused_bounded(const uint8_t *data, size_t size, const char *want)
{
    decode_job job = {data, size, IO_MAX_PIXELS_PER_BYTE};
    int status = 0;
    expect_refused(data, size, want);
    long kib = peak_growth_kib(run_decode, &job, &status);
    assert_int_equal(status, 1);
    if (kib > HOSTILE_MAX_GROWTH_KIB)
        fail_msg("refusing took %ld KiB of memory (at most %ld)", kib, HOSTILE_MAX_GROWTH_KIB);
}

#endif
