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

    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    if (system(path) != 0)
        return 1;
    printf("files: %s\n", failures ? "FAILED" : "every check passed");
    return failures != 0;
}
