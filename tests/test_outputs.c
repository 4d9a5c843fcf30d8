/* test_outputs.c - the tool's output files (cli/outputs.c): the --raw float32 file. */
#include "test_util.h"

#include <stdio.h>
#include <string.h>

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
    assert_int_equal(outputs_write(&o, planes, 2, &roi, err, sizeof err), 0);
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
    assert_int_equal(outputs_write(&o, planes, 1, &roi, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a regular file"));
    char missing[96];
    snprintf(missing, sizeof missing, "%s/no/such/out.raw", dir);
    raw_options(&o, missing);
    assert_int_equal(outputs_write(&o, planes, 1, &roi, err, sizeof err), -1);
    assert_int_equal(remove(path), 0);
    assert_int_equal(remove(dir), 0); /* fails if anything else is in it */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_raw_file),
    };
    return cmocka_run_group_tests_name("outputs", tests, NULL, NULL);
}
