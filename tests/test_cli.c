/* test_cli.c - command-line parsing, ROI defaults and ROI validation. */
#include "test_util.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "filter.h"

/* Parses a NULL-terminated list of words; the messages go to a scratch stream. */
static int parse(tc_options *o, char *msg, size_t msg_size, ...)
{
    char *argv[64];
    int argc = 0;
    va_list ap;
    argv[argc++] = "tiledconv";
    va_start(ap, msg_size);
    for (char *w = va_arg(ap, char *); w; w = va_arg(ap, char *))
        argv[argc++] = w;
    va_end(ap);
    argv[argc] = NULL;
    FILE *err = tmpfile();
    assert_non_null(err);
    int rc = cli_parse(argc, argv, o, err);
    rewind(err);
    msg[0] = '\0';
    if (!fgets(msg, (int)msg_size, err))
        msg[0] = '\0';
    fclose(err);
    return rc;
}

static void test_defaults(void **state)
{
    (void)state;
    tc_options o;
    char msg[256];
    assert_int_equal(parse(&o, msg, sizeof msg, NULL), 0);
    assert_string_equal(o.input, TC_DEFAULT_INPUT);
    assert_string_equal(o.output, TC_DEFAULT_OUTPUT);
    assert_int_equal(o.filter.taps, 3);
    assert_true(o.filter.kx[0] == 0.25f && o.filter.kx[1] == 0.5f && o.filter.kx[2] == 0.25f);
    assert_int_equal(o.algorithm, TC_ALG_TILED);
    assert_int_equal(o.iterations, 1);
    assert_int_equal(o.verify, 0);
    assert_int_equal(o.roi.src_left, 0);
    assert_int_equal(o.roi.width, -1);
    assert_int_equal(o.device.platform_index, -1);
}

/* The article's command line, with its two-letter flags. */
static void test_amd_flags(void **state)
{
    (void)state;
    tc_options o;
    char msg[256];
    assert_int_equal(parse(&o, msg, sizeof msg, "-e", "-s", "x.bmp", "-t", "-i", "10", "-sL", "3",
                           "-sT", "4", "-tL", "2", "-tT", "1", "-W", "50", "-H", "60", NULL),
                     0);
    assert_true(o.verify && o.timing);
    assert_int_equal(o.iterations, 10);
    assert_string_equal(o.input, "x.bmp");
    assert_int_equal(o.roi.src_left, 3);
    assert_int_equal(o.roi.src_top, 4);
    assert_int_equal(o.roi.dst_left, 2);
    assert_int_equal(o.roi.dst_top, 1);
    assert_int_equal(o.roi.width, 50);
    assert_int_equal(o.roi.height, 60);
}

static void test_long_forms(void **state)
{
    (void)state;
    tc_options o;
    char msg[256];
    assert_int_equal(parse(&o, msg, sizeof msg, "--source-left", "3", "--target-top", "2",
                           "--taps", "5", "--coefficients", "1,2,3,2,1", "--algorithm",
                           "onepass", "--device", "cpu", "--json", "--no-output", NULL),
                     0);
    assert_int_equal(o.roi.src_left, 3);
    assert_int_equal(o.roi.dst_top, 2);
    assert_int_equal(o.filter.taps, 5);
    assert_true(o.filter.kx[2] == 3.0f && o.filter.ky[4] == 1.0f);
    assert_int_equal(o.algorithm, TC_ALG_ONEPASS);
    assert_int_equal(o.device.type, OCL_TYPE_CPU);
    assert_int_equal(o.format, TC_FORMAT_JSON);
    assert_int_equal(o.write_output, 0);
}

static void test_generate_and_all(void **state)
{
    (void)state;
    tc_options o;
    char msg[256];
    assert_int_equal(parse(&o, msg, sizeof msg, "-g", "8191x4097", "-a", "all", NULL), 0);
    assert_int_equal(o.synth_width, 8191);
    assert_int_equal(o.synth_height, 4097);
    assert_null(o.input);
    assert_true(o.all_algorithms);
}

/* Every rejected command line: exit status 2 and a message that names the flag. */
static void test_rejections(void **state)
{
    (void)state;
    static const struct {
        const char *args[6];
        const char *message_part;
    } cases[] = {
        {{"-i", "0"}, "-i"},
        {{"-i", "3x"}, "-i '3x'"},
        {{"-i", "99999999999999999999"}, "-i"},
        {{"-sL", "-1"}, "-sL"},
        {{"-sL", "abc"}, "-sL 'abc'"},
        {{"-W", "0"}, "-W"},
        {{"-W", "10x"}, "-W '10x'"},
        {{"-H", ""}, "-H"},
        {{"-f", "4"}, "-f 4"},
        {{"-f", "7"}, "-f 7"},
        {{"-c", "1,2"}, "-c"},
        {{"-f", "5", "-c", "1,2,3"}, "-c"},
        {{"-c", "1,,2"}, "-c"},
        {{"-c", "a,b,c"}, "-c"},
        {{"-c", "1,2,inf"}, "-c"},
        {{"-a", "bogus"}, "-a 'bogus'"},
        {{"--device", "tpu"}, "--device 'tpu'"},
        {{"-g", "0x0"}, "-g"},
        {{"-g", "junk"}, "-g"},
        {{"-g", "10"}, "-g"},
        {{"-g", "100000x100000"}, "-g"},
        {{"-g", "10x10", "-s", "a.bmp"}, "-s and -g"},
        {{"--frobnicate"}, "--frobnicate"},
        {{"-z"}, "-z"},
        {{"-i"}, "-i needs a value"},
        {{"-sL"}, "-sL needs a value"},
        {{"--source-top"}, "-sT needs a value"},
        {{"extra"}, "unexpected argument 'extra'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *argv[8] = {"tiledconv"};
        int argc = 1;
        for (int j = 0; j < 6 && cases[i].args[j]; j++)
            argv[argc++] = (char *)cases[i].args[j];
        argv[argc] = NULL;
        tc_options o;
        char msg[256] = "";
        FILE *err = tmpfile();
        assert_non_null(err);
        int rc = cli_parse(argc, argv, &o, err);
        rewind(err);
        if (!fgets(msg, sizeof msg, err))
            msg[0] = '\0';
        fclose(err);
        if (rc != 2 || !strstr(msg, cases[i].message_part) || strncmp(msg, "tiledconv: ", 11))
            fail_msg("case %zu (%s %s): rc %d, message '%s'", i, cases[i].args[0],
                     cases[i].args[1] ? cases[i].args[1] : "", rc, msg);
    }
}

static void resolve_ok(tc_roi_request req, int w, int h, tc_roi expected)
{
    tc_roi roi;
    char msg[256];
    assert_int_equal(tc_roi_resolve(&req, w, h, &roi, msg, sizeof msg), 0);
    assert_memory_equal(&roi, &expected, sizeof roi);
}

/* SPEC.md: w = M - max(sL, tL), h = N - max(sT, tT) when -W / -H are not given. */
static void test_roi_defaults(void **state)
{
    (void)state;
    resolve_ok((tc_roi_request){0, 0, 0, 0, -1, -1}, 512, 300, (tc_roi){0, 0, 0, 0, 512, 300});
    resolve_ok((tc_roi_request){3, 3, 2, 2, -1, -1}, 512, 512, (tc_roi){3, 3, 2, 2, 509, 509});
    resolve_ok((tc_roi_request){1, 9, 7, 0, -1, -1}, 40, 30, (tc_roi){1, 9, 7, 0, 33, 21});
    resolve_ok((tc_roi_request){0, 0, 0, 0, 5, -1}, 40, 30, (tc_roi){0, 0, 0, 0, 5, 30});
    resolve_ok((tc_roi_request){39, 29, 39, 29, -1, -1}, 40, 30, (tc_roi){39, 29, 39, 29, 1, 1});
    resolve_ok((tc_roi_request){0, 0, 30, 20, 10, 10}, 40, 30, (tc_roi){0, 0, 30, 20, 10, 10});
}

static void test_roi_validation(void **state)
{
    (void)state;
    static const struct {
        tc_roi_request req;
        const char *message_part;
    } cases[] = {
        {{512, 0, 0, 0, -1, -1}, "-sL 512"},
        {{0, 512, 0, 0, -1, -1}, "-sT 512"},
        {{0, 0, 600, 0, -1, -1}, "-tL 600"},
        {{0, 0, 0, 513, -1, -1}, "-tT 513"},
        {{0, 0, 0, 0, 513, -1}, "-W 513"},
        {{3, 0, 0, 0, 510, -1}, "-W 510"},
        {{0, 0, 511, 0, 2, -1}, "-W 2"},
        {{0, 10, 0, 0, -1, 503}, "-H 503"},
        {{0, 0, 0, 0, 0, -1}, "-W 0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tc_roi roi = {-7, -7, -7, -7, -7, -7}, untouched = roi;
        char msg[256] = "";
        int rc = tc_roi_resolve(&cases[i].req, 512, 512, &roi, msg, sizeof msg);
        if (rc != -1 || !strstr(msg, cases[i].message_part))
            fail_msg("case %zu: rc %d, message '%s'", i, rc, msg);
        assert_memory_equal(&roi, &untouched, sizeof roi);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),       cmocka_unit_test(test_amd_flags),
        cmocka_unit_test(test_long_forms),     cmocka_unit_test(test_generate_and_all),
        cmocka_unit_test(test_rejections),     cmocka_unit_test(test_roi_defaults),
        cmocka_unit_test(test_roi_validation),
    };
    return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
