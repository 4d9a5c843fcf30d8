/*
 * test_files.c - the file layer's C API (<tiledconv_files.h>) as a user meets it, built against
 * the installed headers (tests/api/run.sh), run from the project's root: a run of files writes
 * each output and fills each result, a file that fails fails alone, and every refusal comes
 * before any work with TC_EINVAL and its reason. Prints "ok - ..." per check; exits 1 when one
 * failed.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tiledconv_files.h>

static int failures;

static void check(int ok, const char *what, const char *detail)
{
    printf("%s - %s%s%s\n", ok ? "ok" : "not ok", what, ok ? "" : ": ", ok ? "" : detail);
    failures += !ok;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* A file of these bytes (a hand-made PGM). */
static void put_file(const char *path, const char *bytes, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(bytes, 1, size, f);
        fclose(f);
    }
}

/* image written to DIR/NAME and read back: the samples want, of this format. */
static void round_trip(tc_files *run, const char *dir, const char *name, const tc_image *image,
                       int format, const void *want, size_t size, const char *what)
{
    char path[600], err[512] = "";
    tc_image back = {0};
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int rc = tc_write_image(run, path, image, err, sizeof err);
    if (rc == TC_OK)
        rc = tc_read_image(run, path, &back, err, sizeof err);
    check(rc == TC_OK && (int)back.format == format && memcmp(back.data, want, size) == 0,
          what, err);
    tc_image_free(&back);
}

/* tc_read_image and tc_write_image: a round trip of every sample type, the conversions at
 * their edges, and the refusals (nothing written). */
static void image_files(const char *dir)
{
    char err[512] = "", path[600];
    tc_files *run = NULL;
    tc_image im = {0}, back = {0};
    tc_files_new(&run);
    tc_files_set(run, "no-sync", NULL, err, sizeof err);
    int rc = tc_read_image(run, "images/TiledConv_Input512x512.bmp", &im, err, sizeof err);
    check(rc == TC_OK && im.format == TC_PIXELS_U8 && im.planes == 3 && im.width == 512 &&
              im.height == 512 && im.stride == 1536,
          "tc_read_image: a BMP as 8-bit RGB, rows packed", err);
    snprintf(path, sizeof path, "%s/round.png", dir);
    rc = tc_write_image(run, path, &im, err, sizeof err);
    check(rc == TC_OK, "tc_write_image: a PNG from the extension", err);
    rc = tc_read_image(run, path, &back, err, sizeof err);
    check(rc == TC_OK && back.format == TC_PIXELS_U8 && back.planes == 3 &&
              memcmp(im.data, back.data, 512 * 1536) == 0,
          "the PNG read back: the same samples", err);
    tc_image_free(&back);
    check(back.data == NULL, "tc_image_free: data NULL after", "");

    /* 16 bits kept in a PGM. */
    unsigned short deep[4] = {0, 1, 65535, 30000};
    tc_image d = {.format = TC_PIXELS_U16, .width = 2, .height = 2, .planes = 1, .data = deep,
                  .stride = 4};
    round_trip(run, dir, "deep.pgm", &d, TC_PIXELS_U16, deep, sizeof deep,
               "16-bit samples through a PGM, exactly");

    /* Floats on the 0..255 scale as the tool writes filtered values. */
    float f[4] = {-1.0f, 0.5f, 254.5f, 0.0f / 0.0f};
    const unsigned char want8[4] = {0, 1, 255, 0};
    tc_image fl = {.format = TC_PIXELS_F32, .width = 4, .height = 1, .planes = 1, .data = f,
                   .stride = 16};
    round_trip(run, dir, "float.pgm", &fl, TC_PIXELS_U8, want8, sizeof want8,
               "F32 -1, 0.5, 254.5, NaN written as 0, 1, 255, 0");

    /* Another maxval: floats on the 0..255 scale. */
    snprintf(path, sizeof path, "%s/maxval.pgm", dir);
    put_file(path, "P5 2 1 100\n\x32\x64", 13);
    rc = tc_read_image(run, path, &back, err, sizeof err);
    check(rc == TC_OK && back.format == TC_PIXELS_F32 && ((float *)back.data)[0] == 127.5f &&
              ((float *)back.data)[1] == 255.0f,
          "a PGM of maxval 100: 50 and 100 as 127.5 and 255", err);
    tc_image_free(&back);

    /* Refusals, each before anything is written. */
    snprintf(path, sizeof path, "%s/no.gif", dir);
    rc = tc_write_image(run, path, &im, err, sizeof err);
    check(rc == TC_EINVAL && access(path, F_OK) != 0, "an unknown extension refused", err);
    tc_image four = im;
    four.planes = 4;
    snprintf(path, sizeof path, "%s/four.png", dir);
    rc = tc_write_image(run, path, &four, err, sizeof err);
    check(rc == TC_EINVAL && access(path, F_OK) != 0, "4 channels refused", err);
    rc = tc_read_image(run, "missing.png", &back, err, sizeof err);
    check(rc == TC_EINVAL && strstr(err, "missing.png") && back.data == NULL,
          "a missing file refused, named", err);
    snprintf(path, sizeof path, "%s/round.png", dir);
    chmod(path, 0444);
    rc = tc_write_image(run, path, &im, err, sizeof err);
    check(rc == TC_EINVAL && strstr(err, "read-only"), "a read-only file not replaced", err);
    tc_files_set(run, "force", NULL, err, sizeof err);
    check(tc_write_image(run, path, &im, err, sizeof err) == TC_OK, "... replaced with force",
          err);
    tc_files_set(run, "depth", "16", err, sizeof err);
    snprintf(path, sizeof path, "%s/deep.bmp", dir);
    rc = tc_write_image(run, path, &im, err, sizeof err);
    check(rc == TC_EINVAL && access(path, F_OK) != 0, "16 bits into a BMP refused", err);
    tc_files_set(run, "taps", "8", err, sizeof err);
    rc = tc_write_image(run, path, &im, err, sizeof err);
    check(rc == TC_EINVAL && strstr(err, "odd"), "a setting the parser refuses", err);
    tc_files_set(run, "max-pixels", "1000", err, sizeof err);
    rc = tc_read_image(run, "images/TiledConv_Input512x512.bmp", &back, err, sizeof err);
    check(rc == TC_EINVAL && strstr(err, "exceeds the limit of 1000") && !back.data,
          "max-pixels refuses a larger image before decoding it (the other settings unused)",
          err);
    tc_image_free(&im);
    tc_files_free(run);
}

static void progress(int done, int total, void *user)
{
    int *last = user;
    if (done < last[0] || total != 3)
        last[1] = 1; /* went backwards, or the wrong total */
    last[0] = done;
}

int main(void)
{
    char dir[] = "/tmp/tiledconv-files.XXXXXX", err[512] = "", path[600];
    const char *in[3] = {"images/TiledConv_Input451x300.bmp", "missing.bmp",
                         "images/TiledConv_Input512x512.bmp"};
    tc_file_result res[3];
    tc_files *run = NULL;
    int last[2] = {-1, 0};
    if (!mkdtemp(dir))
        return 1;
    check(tc_files_new(&run) == TC_OK && run, "tc_files_new", "");
    check(tc_files_set(run, "taps", "7", err, sizeof err) == TC_OK, "taps 7", err);
    check(tc_files_set(run, "format", "png", err, sizeof err) == TC_OK, "format png", err);
    check(tc_files_set(run, "output-dir", dir, err, sizeof err) == TC_OK, "output-dir", err);
    check(tc_files_set(run, "no-sync", NULL, err, sizeof err) == TC_OK, "no-sync", err);
    int rc = tc_filter_files(run, in, 3, res, progress, last, err, sizeof err);
    check(rc == TC_OK, "a run of three files", err);
    snprintf(path, sizeof path, "%s/TiledConv_Input451x300.png", dir);
    check(res[0].status == TC_FILE_WRITTEN && res[0].width == 451 && res[0].height == 300 &&
              res[0].output && strcmp(res[0].output, path) == 0 && file_size(path) > 0,
          "the first written, its size and output named", res[0].message);
    check(res[1].status == TC_FILE_REFUSED && strstr(res[1].message, "missing.bmp"),
          "a missing input refused alone, named", res[1].message);
    check(res[2].status == TC_FILE_WRITTEN && res[2].width == 512, "the third written",
          res[2].message);
    check(last[0] == 3 && !last[1], "progress rose to (3, 3)", "");
    tc_file_results_clear(res, 3);
    check(res[0].output == NULL, "tc_file_results_clear", "");
    tc_files_free(run);

    /* Refusals before any work. */
    tc_files_new(&run);
    check(tc_files_set(run, "no-such", "1", err, sizeof err) == TC_EINVAL &&
              strstr(err, "no-such"), "an unknown option", err);
    check(tc_files_set(run, "timing", NULL, err, sizeof err) == TC_EINVAL &&
              strstr(err, "timing"), "a report's option", err);
    check(tc_files_set(run, "color", "1", err, sizeof err) == TC_EINVAL, "a flag with a value",
          err);
    check(tc_files_set(run, "taps", NULL, err, sizeof err) == TC_EINVAL, "a value missing", err);
    check(tc_files_set(NULL, "taps", "3", err, sizeof err) == TC_EINVAL, "no run", err);
    check(tc_filter_files(NULL, in, 1, res, NULL, NULL, err, sizeof err) == TC_EINVAL,
          "tc_filter_files(NULL)", err);
    check(tc_filter_files(run, in, -1, res, NULL, NULL, err, sizeof err) == TC_EINVAL,
          "a count of -1", err);
    check(tc_filter_files(run, NULL, 1, res, NULL, NULL, err, sizeof err) == TC_EINVAL,
          "no inputs", err);
    check(tc_filter_files(run, in, 0, NULL, NULL, NULL, err, sizeof err) == TC_OK,
          "no files: nothing to do", err);
    tc_files_set(run, "taps", "8", err, sizeof err);
    snprintf(path, sizeof path, "%s/refused", dir);
    tc_files_set(run, "output-dir", path, err, sizeof err);
    rc = tc_filter_files(run, in, 1, res, NULL, NULL, err, sizeof err);
    check(rc == TC_EINVAL && strstr(err, "odd") && res[0].status == TC_FILE_NOT_RUN &&
              access(path, F_OK) != 0,
          "an even length refused when the run starts, nothing made", err);
    tc_file_results_clear(res, 1);
    tc_files_free(run);
    tc_files_free(NULL);

    image_files(dir);

    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    if (system(path) != 0)
        return 1;
    printf("files: %s\n", failures ? "FAILED" : "every check passed");
    return failures != 0;
}
