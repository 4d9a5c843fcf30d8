/* test_options.c - command-line parsing (src/files/option_parse.c, option_values.c, option_rules.c,
 * option_table.c), ROI defaults and ROI validation. */
#include "test_util.h"
#include "test_cli.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "filter.h"
#include "image.h"
#include "option_table.h"
#include "option_parse.h"

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
    return test_cli_parse(argc, argv, o, msg, msg_size);
}

static void test_defaults(void **state)
{
    (void)state;
    tc_options o;
    char msg[256];
    assert_int_equal(parse(&o, msg, sizeof msg, NULL), 0);
    assert_string_equal(o.input, TC_DEFAULT_INPUT);
    assert_string_equal(o.output, TC_DEFAULT_OUTPUT);
    assert_int_equal(o.filter.taps_x, 3);
    assert_true(o.filter.kx[0] == 0.25f && o.filter.kx[1] == 0.5f && o.filter.kx[2] == 0.25f);
    assert_int_equal(o.algorithm, TC_TILED);
    assert_int_equal(o.iterations, 1);
    assert_int_equal(o.verify, 0);
    assert_int_equal(o.roi.src_left, 0);
    assert_int_equal(o.roi.width, -1);
    assert_string_equal(o.device, ""); /* no --device, -p or -d: tc_open's default */
    /* The filter's flags when not given: no named filter, no -c, replicate borders, no --offset
     * or --scale, intensity (no --color), no --raw (docs/manual.md). */
    assert_int_equal(o.named_filter, -1);
    assert_int_equal(o.filter.border, TC_BORDER_REPLICATE);
    assert_true(o.filter.border_value == 0.0f);
    assert_true(o.out_scale == 1.0 && o.out_offset == 0.0);
    assert_int_equal(o.color, 0);
    assert_null(o.raw_output);
    assert_int_equal(o.coefficients_given, 0);
}

/* Every odd length 3..15, with the default binomial of that length. */
static void test_any_odd_length(void **state)
{
    (void)state;
    static char *lengths[] = {"3", "5", "7", "9", "11", "13", "15"};
    for (int i = 0; i < 7; i++) {
        tc_options o;
        tc_filter_spec want;
        char msg[256];
        assert_int_equal(parse(&o, msg, sizeof msg, "-f", lengths[i], NULL), 0);
        tc_filter_binomial(&want, 3 + 2 * i);
        assert_int_equal(o.filter.taps_x, 3 + 2 * i);
        assert_memory_equal(o.filter.kx, want.kx, sizeof want.kx);
        assert_memory_equal(o.filter.ky, want.ky, sizeof want.ky);
    }
}

/* --cx and --cy set one direction each; the other keeps the binomial. The order of -f and the
 * coefficients does not matter. */
static void test_separate_coefficients(void **state)
{
    (void)state;
    tc_options o;
    char msg[256];
    assert_int_equal(parse(&o, msg, sizeof msg, "--cx", "-1,0,1", "--cy", "1,2,1", NULL), 0);
    assert_true(o.filter.kx[0] == -1.0f && o.filter.kx[1] == 0.0f && o.filter.kx[2] == 1.0f);
    assert_true(o.filter.ky[0] == 1.0f && o.filter.ky[1] == 2.0f && o.filter.ky[2] == 1.0f);
    assert_true(o.coefficients_given);

    assert_int_equal(parse(&o, msg, sizeof msg, "-cy", "1,2,3,4,5", "-f", "5", NULL), 0);
    assert_int_equal(o.filter.taps_x, 5);
    assert_true(o.filter.ky[4] == 5.0f);
    assert_true(o.filter.kx[0] == 1.0f / 16 && o.filter.kx[2] == 6.0f / 16);

    assert_int_equal(parse(&o, msg, sizeof msg, "-c", "0,1,0", NULL), 0);
    assert_true(o.filter.kx[1] == 1.0f && o.filter.ky[1] == 1.0f && o.filter.ky[0] == 0.0f);
}


/* -f WxH, each coefficient list setting its axis's length, lengths up to 63. */
static void test_lengths_per_axis(void **state)
{
    (void)state;
    tc_options o;
    char msg[256];
    tc_filter_spec want;
    assert_int_equal(parse(&o, msg, sizeof msg, "-f", "7x3", NULL), 0);
    tc_filter_binomial_xy(&want, 7, 3);
    assert_int_equal(o.filter.taps_x, 7);
    assert_int_equal(o.filter.taps_y, 3);
    assert_memory_equal(o.filter.kx, want.kx, sizeof want.kx);
    assert_memory_equal(o.filter.ky, want.ky, sizeof want.ky);
    /* 1 leaves an axis unfiltered. */
    assert_int_equal(parse(&o, msg, sizeof msg, "-f", "1x9", NULL), 0);
    assert_int_equal(o.filter.taps_x, 1);
    assert_true(o.filter.kx[0] == 1.0f && o.filter.ky[4] == 70.0f / 256);
    assert_int_equal(parse(&o, msg, sizeof msg, "-f", "63", NULL), 0);
    assert_int_equal(o.filter.taps_x, 63);
    assert_int_equal(o.filter.taps_y, 63);
    /* -c with 5 values needs no -f 5 (it was an error before lengths per axis). */
    assert_int_equal(parse(&o, msg, sizeof msg, "-c", "1,2,3,2,1", NULL), 0);
    assert_int_equal(o.filter.taps_x, 5);
    assert_int_equal(o.filter.taps_y, 5);
    assert_true(o.filter.kx[2] == 3.0f && o.filter.ky[2] == 3.0f);
    /* --cx 7 values and --cy 3: a 7 x 3 filter; with -f they must agree. */
    assert_int_equal(parse(&o, msg, sizeof msg, "--cx", "1,2,3,4,3,2,1", "--cy", "-1,0,1", NULL),
                     0);
    assert_int_equal(o.filter.taps_x, 7);
    assert_int_equal(o.filter.taps_y, 3);
    assert_true(o.filter.kx[3] == 4.0f && o.filter.ky[0] == -1.0f);
    assert_int_equal(parse(&o, msg, sizeof msg, "-f", "7x3", "--cy", "-1,0,1", NULL), 0);
    assert_int_equal(o.filter.taps_x, 7); /* kx: the binomial of 7 */
    assert_true(o.filter.kx[3] == 20.0f / 64);
    /* One list alone: the other axis takes its length, the binomial of it. */
    assert_int_equal(parse(&o, msg, sizeof msg, "--cy", "1,2,3,4,5", NULL), 0);
    assert_int_equal(o.filter.taps_x, 5);
    assert_true(o.filter.kx[2] == 6.0f / 16 && o.filter.ky[4] == 5.0f);
    /* A single coefficient is a 1-tap axis. */
    assert_int_equal(parse(&o, msg, sizeof msg, "--cx", "2", "-f", "1x5", NULL), 0);
    assert_true(o.filter.kx[0] == 2.0f && o.filter.taps_y == 5);
    /* Named filters take a length per axis; gauss's sigma gives up to 63 taps. */
    assert_int_equal(parse(&o, msg, sizeof msg, "--filter", "sobel-x", "-f", "5x3", NULL), 0);
    assert_true(o.filter.kx[0] == -1.0f && o.filter.kx[1] == -2.0f && o.filter.ky[1] == 2.0f);
    assert_int_equal(parse(&o, msg, sizeof msg, "--filter", "gauss", "--sigma", "10", NULL), 0);
    assert_int_equal(o.filter.taps_x, 61);
    assert_int_equal(parse(&o, msg, sizeof msg, "--filter", "box", "-f", "31x1", NULL), 0);
    assert_true(o.filter.kx[30] == (float)(1.0 / 31) && o.filter.ky[0] == 1.0f);
}

/* --mask inline and from a file, the named masks, --amount, the factoring. */
static void test_masks(void **state)
{
    (void)state;
    tc_options o;
    char msg[256];
    assert_int_equal(parse(&o, msg, sizeof msg, "--mask", "1,2,3; 4 5 6 ;7,8,10", NULL), 0);
    assert_int_equal(o.filter.mask_width, 3);
    assert_int_equal(o.filter.mask_height, 3);
    assert_int_equal(o.filter.taps_x, 3);
    assert_true(o.filter.mask[3] == 4.0f && o.filter.mask[8] == 10.0f);
    assert_int_equal(o.filter.mask_separable, 0);
    /* A rank-1 mask is factored here, as the library will. */
    assert_int_equal(parse(&o, msg, sizeof msg, "--mask", "1,2,1;2,4,2;1,2,1", "-f", "3x3",
                           "--border", "wrap", NULL), 0);
    assert_int_equal(o.filter.mask_separable, 1);
    assert_true(o.filter.kx[1] == 4.0f && o.filter.ky[0] == 0.5f);
    assert_int_equal(o.filter.border, TC_BORDER_WRAP);
    /* 5 x 3 and 1 x 3 (a column). */
    assert_int_equal(parse(&o, msg, sizeof msg, "--mask", "1,0,0,0,-1;2,0,0,0,-2;1,0,0,0,-1",
                           NULL), 0);
    assert_int_equal(o.filter.mask_width, 5);
    assert_int_equal(o.filter.mask_height, 3);
    assert_int_equal(parse(&o, msg, sizeof msg, "--mask", "1;-2;1", NULL), 0);
    assert_int_equal(o.filter.mask_width, 1);
    assert_int_equal(o.filter.mask_height, 3);
    /* twopass with a separable mask runs (on the factors). */
    assert_int_equal(parse(&o, msg, sizeof msg, "--mask", "1;-2;1", "-a", "twopass", NULL), 0);
    /* From a file: a row a line, spaces or commas, comments and blank lines. */
    char path[] = "/tmp/tiledconv-mask-XXXXXX";
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs("# a 5 x 3 edge mask\n\n 1 2 0 -2 -1\n2, 4, 0, -4, -2   # the middle row\n"
          "1 2 0 -2 -1\n\n", f);
    fclose(f);
    char arg[64];
    snprintf(arg, sizeof arg, "@%s", path);
    assert_int_equal(parse(&o, msg, sizeof msg, "--mask", arg, NULL), 0);
    assert_int_equal(o.filter.mask_width, 5);
    assert_int_equal(o.filter.mask_height, 3);
    assert_true(o.filter.mask[5] == 2.0f && o.filter.mask[8] == -4.0f && o.filter.mask[14] == -1.0f);
    assert_int_equal(o.filter.mask_separable, 1); /* [1 2 1] x [1 2 0 -2 -1] */
    /* A file that is ragged is refused naming the file. */
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("1 2 3\n4 5\n6 7 8\n", f);
    fclose(f);
    assert_int_equal(parse(&o, msg, sizeof msg, "--mask", arg, NULL), 2);
    assert_non_null(strstr(msg, "row 2 has 2 weights"));
    assert_non_null(strstr(msg, path));
    unlink(path);
    /* The named masks and sharpen's amount. */
    assert_int_equal(parse(&o, msg, sizeof msg, "--filter", "laplacian", NULL), 0);
    assert_int_equal(o.named_filter, TC_NAMED_LAPLACIAN);
    assert_true(o.filter.mask[4] == -4.0f && o.filter.mask[0] == 0.0f);
    assert_int_equal(parse(&o, msg, sizeof msg, "--filter", "laplacian8", "-f", "3", NULL), 0);
    assert_true(o.filter.mask[4] == -8.0f);
    assert_int_equal(parse(&o, msg, sizeof msg, "--filter", "sharpen", NULL), 0);
    assert_true(o.filter.mask[4] == 1.75f && o.filter.mask[1] == -0.125f);
    assert_int_equal(parse(&o, msg, sizeof msg, "--amount", "2", "--filter", "sharpen", NULL), 0);
    assert_true(o.filter.mask[4] == 2.5f && o.filter.mask[0] == -0.125f);
    assert_true(o.amount == 2.0);
    /* All zeros is a mask like any other (rank 0: separable). */
    assert_int_equal(parse(&o, msg, sizeof msg, "--mask", "0,0,0;0,0,0;0,0,0", NULL), 0);
    assert_int_equal(o.filter.mask_separable, 1);
    /* -a all with a mask that is not separable is fine: twopass is listed as not applicable. */
    assert_int_equal(parse(&o, msg, sizeof msg, "--filter", "laplacian", "-a", "all", NULL), 0);
    /* The library's parameters carry the mask. */
    tc_params p;
    const tc_roi roi = {0, 0, 0, 0, 10, 10};
    assert_int_equal(parse(&o, msg, sizeof msg, "--mask", "1,2,3;4,5,6;7,8,10", NULL), 0);
    options_params(&o, &roi, &p);
    assert_true(p.mask == o.filter.mask && p.mask_width == 3 && p.mask_height == 3);
    assert_int_equal(parse(&o, msg, sizeof msg, "-f", "9x5", NULL), 0);
    options_params(&o, &roi, &p);
    assert_null(p.mask);
    assert_int_equal(p.taps_x, 9);
    assert_int_equal(p.taps_y, 5);
}

static void test_named_filters(void **state)
{
    (void)state;
    tc_options o;
    char msg[256];
    assert_int_equal(parse(&o, msg, sizeof msg, "--filter", "sobel-x", NULL), 0);
    assert_int_equal(o.named_filter, TC_NAMED_SOBEL_X);
    assert_int_equal(o.filter.taps_x, 3);
    assert_true(o.filter.kx[0] == -1.0f && o.filter.ky[1] == 2.0f);

    assert_int_equal(parse(&o, msg, sizeof msg, "--filter", "gauss", NULL), 0);
    assert_int_equal(o.filter.taps_x, 5); /* gauss's default length */

    assert_int_equal(parse(&o, msg, sizeof msg, "--filter", "gauss", "--sigma", "1", NULL), 0);
    assert_int_equal(o.filter.taps_x, 7); /* from the sigma, as OpenCV */
    assert_true(o.sigma == 1.0);

    assert_int_equal(parse(&o, msg, sizeof msg, "--sigma", "2", "-f", "9", "--filter", "gauss",
                           NULL), 0);
    assert_int_equal(o.filter.taps_x, 9);
    float k[9];
    tc_gauss_coefficients(9, 2.0, k);
    assert_memory_equal(o.filter.kx, k, sizeof k);

    assert_int_equal(parse(&o, msg, sizeof msg, "-filter", "box", "-f", "15", NULL), 0);
    assert_int_equal(o.filter.taps_x, 15);
    assert_true(o.filter.kx[14] == (float)(1.0 / 15));

    assert_int_equal(parse(&o, msg, sizeof msg, "--filter", "scharr-y", NULL), 0);
    assert_true(o.filter.kx[1] == 10.0f && o.filter.ky[2] == 1.0f);
}

static void test_border_and_output_flags(void **state)
{
    (void)state;
    static const struct {
        const char *arg;
        tc_border mode;
        float value;
    } borders[] = {
        {"replicate", TC_BORDER_REPLICATE, 0.0f}, {"constant", TC_BORDER_CONSTANT, 0.0f},
        {"constant=255", TC_BORDER_CONSTANT, 255.0f}, {"constant=-1.5", TC_BORDER_CONSTANT, -1.5f},
        {"reflect101", TC_BORDER_REFLECT101, 0.0f}, {"reflect", TC_BORDER_REFLECT, 0.0f},
        {"wrap", TC_BORDER_WRAP, 0.0f},
    };
    tc_options o;
    char msg[256];
    for (size_t i = 0; i < sizeof borders / sizeof borders[0]; i++) {
        assert_int_equal(parse(&o, msg, sizeof msg, "--border", (char *)borders[i].arg, "-f",
                               "7", NULL), 0);
        assert_int_equal(o.filter.border, borders[i].mode);
        assert_true(o.filter.border_value == borders[i].value);
        assert_int_equal(o.filter.taps_x, 7);
    }
    /* A named filter keeps the border too, whatever the order. */
    assert_int_equal(parse(&o, msg, sizeof msg, "--border", "wrap", "--filter", "box", NULL), 0);
    assert_int_equal(o.filter.border, TC_BORDER_WRAP);

    assert_int_equal(parse(&o, msg, sizeof msg, "--offset", "128", "--scale", "-0.25",
                           "--color", "--raw", "out.f32", NULL), 0);
    assert_true(o.out_offset == 128.0 && o.out_scale == -0.25);
    assert_true(o.color);
    assert_string_equal(o.raw_output, "out.f32");
    assert_int_equal(parse(&o, msg, sizeof msg, "--colour", NULL), 0);
    assert_true(o.color);
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
    assert_int_equal(o.filter.taps_x, 5);
    assert_true(o.filter.kx[2] == 3.0f && o.filter.ky[4] == 1.0f);
    assert_int_equal(o.algorithm, TC_ONEPASS);
    assert_string_equal(o.device, "cpu");
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
        {{"-f", "65"}, "-f 65"},
        {{"-f", "1"}, "-f 1"},
        {{"-f", "-3"}, "-f -3"},
        {{"-f", "x"}, "-f 'x'"},
        {{"-c", "1,2,3,4,5", "-f", "3"}, "-c: 5 coefficients given, -f needs 3"},
        {{"--cx", "1,2"}, "--cx: 2 coefficients: a filter's length must be odd"},
        {{"--cy", "1,2,3,4,5", "-f", "5x3"}, "--cy: 5 coefficients given, -f needs 3 along "
                                             "columns"},
        {{"--cx", "1,x,1"}, "--cx '1,x,1'"},
        {{"--cy", ""}, "--cy ''"},
        {{"--cx", "1,2,1,2,1", "-f", "3"}, "--cx"},
        {{"-c", "1,2,1", "--cx", "1,2,1"}, "-c and --cx"},
        {{"--cy", "1,2,1", "-c", "1,2,1"}, "-c and --cy"},
        {{"--filter", "sobel"}, "--filter 'sobel'"},
        {{"--filter", ""}, "--filter ''"},
        {{"--filter", "box", "-c", "1,2,1"}, "--filter and -c"},
        {{"--filter", "box", "--cy", "1,2,1"}, "--filter and --cy"},
        {{"--filter", "scharr-x", "-f", "5"}, "-f 5: --filter scharr-x"},
        {{"--filter", "box", "-f", "16"}, "-f 16"},
        {{"--sigma", "1"}, "--sigma"},
        {{"--filter", "box", "--sigma", "1"}, "--sigma"},
        {{"--filter", "gauss", "--sigma", "0"}, "--sigma 0"},
        {{"--filter", "gauss", "--sigma", "-1"}, "--sigma -1"},
        {{"--filter", "gauss", "--sigma", "abc"}, "--sigma 'abc'"},
        {{"--filter", "gauss", "--sigma", "nan"}, "--sigma 'nan'"},
        {{"--filter", "gauss", "--sigma", "1e9"}, "--sigma 1e9"},
        {{"--border", "mirror"}, "--border 'mirror'"},
        {{"--border", ""}, "--border ''"},
        {{"--border", "constant="}, "--border 'constant='"},
        {{"--border", "constant=x"}, "--border 'constant=x'"},
        {{"--border", "constant=inf"}, "--border 'constant=inf'"},
        {{"--border", "wrap=3"}, "--border 'wrap=3'"},
        {{"--border", "Replicate"}, "--border 'Replicate'"},
        {{"--offset", "x"}, "--offset 'x'"},
        {{"--offset", ""}, "--offset ''"},
        {{"--offset", "1e400"}, "--offset '1e400'"},
        {{"--scale", "nan"}, "--scale 'nan'"},
        {{"--scale", "2x"}, "--scale '2x'"},
        {{"--raw"}, "--raw needs a file name"},
        {{"--border"}, "--border needs a value"},
        {{"--filter"}, "--filter needs a value"},
        {{"--cx"}, "--cx needs a value"},
        {{"--color=1"}, "--color=1: this option takes no value"},
        {{"--verbose=yes"}, "--verbose=yes: this option takes no value"},
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
        {{"-g", "10x10", "-s", "a.bmp"}, "-g and -s"},
        {{"--frobnicate"}, "--frobnicate"},
        {{"-z"}, "-z"},
        {{"-i"}, "-i needs a value"},
        {{"-sL"}, "-sL needs a value"},
        {{"--source-top"}, "-sT needs a value"},
        /* Options whose code the message table of names once lacked ("option needs a
         * value"): every name now comes from the one option table. */
        {{"--threads"}, "--threads needs a value"},
        {{"--sampling"}, "--sampling needs a value"},
        {{"--class-map"}, "--class-map needs a value"},
        {{"-d", "0,"}, "-d '0,'"},
        {{"-d", "0,,1"}, "-d '0,,1'"},
        {{"--device", "tpu:all"}, "--device 'tpu:all'"},
        {{"-g", "8x8", "in.bmp"}, "-g and an input file"},
        /* Hardening: names and numbers that used to slip through or be misreported. */
        {{"-s", ""}, "-s: the file name is empty"},
        {{"-f", "4294967299"}, "-f 4294967299: the filter length must be odd"},
        {{"-c", "1e19,1e19,1e19"}, "-c: sum|kx| x sum|ky| is 9e+38"},
        {{"--cx", "1e19,1e19,1e19", "--cy", "1e19,1,1"}, "--cx and --cy: sum|kx| x sum|ky|"},
        {{"-c", "1e10,1e10,1e10", "--border", "constant=1e30"}, "--border constant=1e+30"},
        {{"-c", "1e31,1,1"}, "coefficient 1 is out of range, at most 1e+30"},
        {{"--filter", "gauss", "--sigma", "1e-200"}, "--sigma 1e-200: too small"},
        {{"--filter", "gauss", "--sigma", "1e-310"}, "--sigma 1e-310: too small"},
        {{"--filter", "gauss", "--sigma", "1e-400"}, "--sigma 1e-400: too small"},
        {{"--max-pixels", "0"}, "--max-pixels 0: out of range"},
        {{"--max-pixels", "1073741825"}, "--max-pixels 1073741825: out of range"},
        {{"--max-pixels", "32768x32769"}, "--max-pixels 32768x32769: out of range"},
        {{"--max-pixels", "lots"}, "--max-pixels 'lots'"},
        {{"--max-pixels", "-5"}, "--max-pixels '-5'"},
        {{"--force=1"}, "--force=1: this option takes no value"},
        {{"-sLx"}, "-sL 'x': not a whole number"},
        {{"-tT-1"}, "-tT -1: out of range"},
        {{""}, "input 1 after the options: the file name is empty"},
        {{"a.bmp", ""}, "input 2 after the options: the file name is empty"},
        {{"-O", "", "a.bmp"}, "-O: the folder name is empty"},
        {{"--files-from", ""}, "--files-from: the file name is empty"},
        /* A length per axis, masks. */
        {{"-f", "1"}, "-f 1: the filter length must be odd, 3..63"},
        {{"-f", "1x1"}, "-f 1x1: each length must be odd, 1..63"},
        {{"-f", "4x3"}, "-f 4x3: each length must be odd"},
        {{"-f", "3x65"}, "-f 3x65"},
        {{"-f", "3x"}, "-f '3x'"},
        {{"-f", "x3"}, "-f 'x3'"},
        {{"-f", "3x3x3"}, "-f '3x3'"},
        {{"-c", "2"}, "-c: 1 x 1 taps filter nothing"},
        {{"--mask", "1,2;3,4"}, "--mask: 2 x 2: the width and height must be odd"},
        {{"--mask", "1,2,3;4,5,6"}, "--mask: 3 x 2: the width and height must be odd"},
        {{"--mask", "1,2,3;4,5;7,8,9"}, "--mask: row 2 has 2 weights, row 1 has 3"},
        {{"--mask", "1,2,3;4,5,6,7;7,8,9"}, "--mask: row 2 has more weights than row 1"},
        {{"--mask", "1,a,3;4,5,6;7,8,9"}, "--mask: row 1, weight 2: 'a' is not a finite number"},
        {{"--mask", "1,2,3;4,nan,6;7,8,9"}, "--mask: row 2, weight 2: 'nan' is not a finite"},
        {{"--mask", "1,2,3;4,5,inf;7,8,9"}, "--mask: row 2, weight 3: 'inf' is not a finite"},
        {{"--mask", "1,2,3;4,5,6;7,8,1e999"}, "--mask: row 3, weight 3: '1e999'"},
        {{"--mask", "1,2,3;4,5,6;7,8,1e31"}, "--mask: row 3, weight 3 is out of range"},
        {{"--mask", "1,2,3x;4,5,6;7,8,9"}, "--mask: row 1, weight 3: '3x'"},
        {{"--mask", ""}, "--mask: no weights"},
        {{"--mask", " ; ;"}, "--mask: no weights"},
        {{"--mask", "5"}, "--mask: 1 x 1: a 1 x 1 mask only scales the image"},
        {{"--mask", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16"}, "--mask: more than 15 weights in"},
        {{"--mask", "@"}, "--mask @: cannot read: no file name after '@'"},
        {{"--mask", "@/nonexistent/mask.txt"}, "--mask @/nonexistent/mask.txt: cannot read"},
        {{"--mask", "1,2,3;4,5,6;7,8,9", "-c", "1,2,1"}, "--mask and -c"},
        {{"--mask", "1,2,3;4,5,6;7,8,9", "--filter", "box"}, "--mask and --filter"},
        {{"--mask", "1,2,3;4,5,6;7,8,9", "-f", "5"}, "-f 5 and --mask: the mask is 3 x 3"},
        {{"--mask", "1,2,3;4,5,6;7,8,10", "-a", "twopass"}, "-a twopass: the 3 x 3 mask of "
                                                            "--mask is not separable"},
        {{"--filter", "laplacian", "-a", "twopass"}, "-a twopass: the 3 x 3 mask of --filter"},
        {{"--filter", "laplacian", "-f", "5"}, "-f 5: --filter laplacian is a 3 x 3 mask"},
        {{"--filter", "box", "--amount", "2"}, "--amount: only --filter sharpen"},
        {{"--filter", "sharpen", "--amount", "x"}, "--amount 'x'"},
        {{"--filter", "sobel-x", "-f", "1x3"}, "-f 1x3: --filter sobel-x needs 3 taps or more"},
        {{"--filter", "sobel-y", "-f", "33"}, "-f 33: --filter sobel-y goes up to 31 taps"},
        {{"--mask", "1e10,1,1;1,1,1;1,1,1", "--border", "constant=1e30"},
         "--border constant=1e+30: with this filter (sum|mask| = 1e+10)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *argv[8] = {"tiledconv"};
        int argc = 1;
        for (int j = 0; j < 6 && cases[i].args[j]; j++)
            argv[argc++] = (char *)cases[i].args[j];
        argv[argc] = NULL;
        tc_options o;
        char msg[256];
        const int rc = test_cli_parse(argc, argv, &o, msg, sizeof msg);
        if (rc != 2 || !strstr(msg, cases[i].message_part) || strncmp(msg, "tiledconv: ", 11))
            fail_msg("case %zu (%s %s): rc %d, message '%s'", i, cases[i].args[0],
                     cases[i].args[1] ? cases[i].args[1] : "", rc, msg);
    }
}

/* The AMD sample's flags with the value attached mean what their users meant: -sL3 is -sL 3
 * (getopt alone reads -s L3), -tT12 is -tT 12 (getopt alone reads -t, then an unknown -T). */
static void test_amd_flags_attached(void **state)
{
    (void)state;
    tc_options o;
    char msg[256];
    assert_int_equal(parse(&o, msg, sizeof msg, "-sL3", "-sT5", "-tL2", "-tT12", "-W100",
                           "-H80", NULL),
                     0);
    assert_int_equal(o.roi.src_left, 3);
    assert_int_equal(o.roi.src_top, 5);
    assert_int_equal(o.roi.dst_left, 2);
    assert_int_equal(o.roi.dst_top, 12);
    assert_int_equal(o.roi.width, 100);
    assert_int_equal(o.roi.height, 80);
    assert_string_equal(o.input, TC_DEFAULT_INPUT); /* not a file named "L3" */
    assert_int_equal(o.timing, 0);                  /* -tT12 is not -t */
    /* The = form and the separate word still work; a word that is another option's value is
     * left as it is. */
    assert_int_equal(parse(&o, msg, sizeof msg, "-sL=7", "-tT", "9", "-o", "-sL3", NULL), 0);
    assert_int_equal(o.roi.src_left, 7);
    assert_int_equal(o.roi.dst_top, 9);
    assert_string_equal(o.output, "-sL3");
    assert_int_equal(parse(&o, msg, sizeof msg, "-s", "-tL4", "-tL4", NULL), 0);
    assert_string_equal(o.input, "-tL4");
    assert_int_equal(o.roi.dst_left, 4);
}

/* --max-pixels (a count or WxH), --allow-high-ratio, --force, and their defaults. */
static void test_limit_flags(void **state)
{
    (void)state;
    tc_options o;
    char msg[256];
    assert_int_equal(parse(&o, msg, sizeof msg, NULL), 0);
    assert_true(o.max_pixels == 268435456LL);
    assert_int_equal(o.allow_high_ratio, 0);
    assert_int_equal(o.force, 0);
    assert_int_equal(parse(&o, msg, sizeof msg, "--max-pixels", "32768x32768",
                           "--allow-high-ratio", "--force", NULL),
                     0);
    assert_true(o.max_pixels == 1073741824LL);
    assert_int_equal(o.allow_high_ratio, 1);
    assert_int_equal(o.force, 1);
    assert_int_equal(parse(&o, msg, sizeof msg, "--max-pixels", "1000", NULL), 0);
    assert_true(o.max_pixels == 1000);
}

/* Numbers too small for a double are their nearest double, not "not a finite number"; the
 * smallest gauss sigma is accepted. */
static void test_tiny_numbers(void **state)
{
    (void)state;
    tc_options o;
    char msg[256];
    assert_int_equal(parse(&o, msg, sizeof msg, "-c", "1e-310,1,1e-400", "--offset", "1e-320",
                           NULL),
                     0);
    assert_true(o.filter.kx[0] == 0.0f && o.filter.kx[1] == 1.0f && o.filter.kx[2] == 0.0f);
    assert_true(o.out_offset > 0.0 && o.out_offset < 1e-300);
    assert_int_equal(parse(&o, msg, sizeof msg, "--filter", "gauss", "--sigma", "1e-100", NULL),
                     0);
    /* 3 taps (round(6 sigma + 1), at least 3), the identity: the centre weight 1, the others 0. */
    assert_int_equal(o.filter.taps_x, 3);
    assert_true(o.filter.kx[0] == 0.0f && o.filter.kx[1] == 1.0f && o.filter.kx[2] == 0.0f);
}

/* Every message is one line: a newline or escape in a value is shown escaped, and a long value
 * is cut in its middle with the reason kept. */
static void test_messages_are_one_line(void **state)
{
    (void)state;
    tc_options o;
    char msg[2048], big[5000];
    assert_int_equal(parse(&o, msg, sizeof msg, "-a", "bo\ngus\x1b", NULL), 2);
    assert_string_equal(msg, "tiledconv: -a 'bo\\ngus\\x1b': unknown algorithm; use tiled, "
                             "twopass, onepass, bilinear or all\n");
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    big[2000] = '\n';
    assert_int_equal(parse(&o, msg, sizeof msg, "-a", big, NULL), 2);
    assert_true(strlen(msg) <= 1024); /* at most 1023 bytes and the newline */
    assert_int_equal(strncmp(msg, "tiledconv: -a 'aaa", 18), 0);
    assert_non_null(strstr(msg, "..."));
    assert_non_null(
        strstr(msg, "aaa': unknown algorithm; use tiled, twopass, onepass, bilinear or all\n"));
    assert_ptr_equal(strchr(msg, '\n'), msg + strlen(msg) - 1);
}

/* What the command line calls the ROI fields, for tc_roi_resolve's messages. */
static const tc_roi_names cli_roi_names = {"-sL", "-sT", "-tL", "-tT", "-W", "-H"};

static void resolve_ok(tc_roi_request req, int w, int h, tc_roi expected)
{
    tc_roi roi;
    tc_msg msg = {""};
    assert_int_equal(tc_roi_resolve(&req, w, h, &cli_roi_names, &roi, &msg), TC_OK);
    assert_memory_equal(&roi, &expected, sizeof roi);
}

/* w = M - max(sL, tL), h = N - max(sT, tT) when -W / -H are not given (docs/manual.md). */
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
        tc_msg msg = {""};
        int rc = tc_roi_resolve(&cases[i].req, 512, 512, &cli_roi_names, &roi, &msg);
        if (rc != TC_EINVAL || !strstr(msg.text, cases[i].message_part))
            fail_msg("case %zu: rc %d, message '%s'", i, rc, msg.text);
        assert_memory_equal(&roi, &untouched, sizeof roi);
    }
}

/* Inputs after the options (many images in one run): any number, -s taken first by the caller;
 * a bare --raw names the file for one image, or is a flag with -O. */
static void test_inputs_and_batch_flags(void **state)
{
    char a0[] = "tiledconv", a1[] = "a.bmp", a2[] = "-O", a3[] = "out", a4[] = "--raw",
         a5[] = "b.bmp", a6[] = "--no-sync", a7[] = "--files-from", a8[] = "list.txt";
    char *argv[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, NULL};
    tc_options o;
    (void)state;
    assert_int_equal(cli_parse(9, argv, &o, stderr), 0);
    assert_int_equal(o.n_positional, 2);
    assert_string_equal(o.positional[0], "a.bmp");
    assert_string_equal(o.positional[1], "b.bmp");
    assert_null(o.input); /* no -s and inputs given: no default image */
    assert_string_equal(o.output_dir, "out");
    assert_int_equal(o.raw_flag, 1);
    assert_null(o.raw_output);
    assert_int_equal(o.no_sync, 1);
    assert_string_equal(o.files_from, "list.txt");

    char b0[] = "tiledconv", b1[] = "-s", b2[] = "x.bmp", b3[] = "--raw", b4[] = "x.f32",
         b5[] = "y.bmp", b6[] = "-d", b7[] = "0,0", b8[] = "--device", b9[] = "gpu:all";
    char *argv2[] = {b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, NULL};
    assert_int_equal(cli_parse(10, argv2, &o, stderr), 0);
    assert_string_equal(o.input, "x.bmp");
    assert_string_equal(o.raw_output, "x.f32"); /* no -O: the word after --raw is its file */
    assert_int_equal(o.raw_flag, 0);
    assert_int_equal(o.n_positional, 1);
    assert_string_equal(o.positional[0], "y.bmp");
    assert_int_equal(o.n_device_list, 2);
    assert_int_equal(o.device_list[0], 0);
    assert_int_equal(o.device_list[1], 0);
    assert_string_equal(o.device_type, "gpu:all");

    char c0[] = "tiledconv", c1[] = "--raw=z.f32", c2[] = "-O", c3[] = "d";
    char *argv3[] = {c0, c1, c2, c3, NULL};
    assert_int_equal(cli_parse(4, argv3, &o, stderr), 0);
    assert_string_equal(o.raw_output, "z.f32"); /* attached: always a file */
    assert_int_equal(o.raw_flag, 0);
    assert_string_equal(o.input, TC_DEFAULT_INPUT);
}

/* The output image's format, depth and quality: -o's extension, --format for -o -
 * and -O, and the rules checked before any work. */
static void test_image_formats(void **state)
{
    (void)state;
    tc_options o;
    char msg[256];
    assert_int_equal(parse(&o, msg, sizeof msg, NULL), 0);
    assert_int_equal(o.image_format, IO_FORMAT_BMP);
    assert_int_equal(o.depth, 0);
    assert_int_equal(o.quality, 95);
    static const struct {
        const char *name;
        io_format fmt;
    } names[] = {
        {"out.png", IO_FORMAT_PNG}, {"OUT.PNG", IO_FORMAT_PNG}, {"a/b.jpg", IO_FORMAT_JPEG},
        {"x.JPEG", IO_FORMAT_JPEG}, {"x.pgm", IO_FORMAT_PNM},   {"x.ppm", IO_FORMAT_PNM},
        {"x.pnm", IO_FORMAT_PNM},   {"x.bmp", IO_FORMAT_BMP},   {"noext", IO_FORMAT_BMP},
        {"d.png/out", IO_FORMAT_BMP}, {".png", IO_FORMAT_BMP},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        assert_int_equal(parse(&o, msg, sizeof msg, "-o", (char *)names[i].name, NULL), 0);
        assert_int_equal(o.image_format, names[i].fmt);
    }
    /* --format for standard output and folders; an agreeing or unknown extension is allowed,
     * and without -o the default output gets the format's extension. */
    assert_int_equal(parse(&o, msg, sizeof msg, "-o", "-", "--format", "PNG", NULL), 0);
    assert_int_equal(o.image_format, IO_FORMAT_PNG);
    assert_string_equal(o.output, "-");
    assert_int_equal(parse(&o, msg, sizeof msg, "-o", "-", NULL), 0);
    assert_int_equal(o.image_format, IO_FORMAT_BMP);
    assert_int_equal(parse(&o, msg, sizeof msg, "--format", "jpg", "-o", "x.jpeg", NULL), 0);
    assert_int_equal(o.image_format, IO_FORMAT_JPEG);
    assert_int_equal(parse(&o, msg, sizeof msg, "--format", "png", "-o", "x.img", NULL), 0);
    assert_int_equal(o.image_format, IO_FORMAT_PNG);
    assert_int_equal(parse(&o, msg, sizeof msg, "--format", "pnm", "--color", NULL), 0);
    assert_string_equal(o.output, "TiledConv_Output.ppm");
    assert_int_equal(parse(&o, msg, sizeof msg, "--format", "pgm", NULL), 0);
    assert_string_equal(o.output, "TiledConv_Output.pgm");
    assert_int_equal(parse(&o, msg, sizeof msg, "-O", "d", "--format", "png", NULL), 0);
    assert_int_equal(o.image_format, IO_FORMAT_PNG);
    /* --depth and --quality. */
    assert_int_equal(parse(&o, msg, sizeof msg, "-o", "x.png", "--depth", "16", NULL), 0);
    assert_int_equal(o.depth, 16);
    assert_int_equal(parse(&o, msg, sizeof msg, "-o", "x.pgm", "--depth", "8", NULL), 0);
    assert_int_equal(o.depth, 8);
    assert_int_equal(parse(&o, msg, sizeof msg, "-o", "x.jpg", "--quality", "1", NULL), 0);
    assert_int_equal(o.quality, 1);
    /* 16 bits need no output to have a format that holds them. */
    assert_int_equal(parse(&o, msg, sizeof msg, "--no-output", "--depth", "16", NULL), 0);

    static const struct {
        const char *args[6];
        const char *message_part;
    } bad[] = {
        {{"-o", "x.tif"}, "-o x.tif: unknown image extension; the formats are bmp, png, jpeg"},
        {{"-o", "x.png", "--format", "bmp"}, "-o x.png names a PNG file, but --format says BMP"},
        {{"--format", "tiff"}, "--format 'tiff': unknown format; use bmp, png"},
        {{"--format", ""}, "--format '': unknown format"},
        {{"--depth", "12"}, "--depth 12: use 8 or 16"},
        {{"--depth", "x"}, "--depth 'x'"},
        {{"-o", "x.bmp", "--depth", "16"}, "--depth 16: BMP holds 8-bit samples only"},
        {{"-o", "x.jpg", "--depth", "16"}, "--depth 16: JPEG holds 8-bit samples only"},
        {{"-o", "-", "--depth", "16"}, "--depth 16: BMP holds 8-bit samples only"},
        {{"-O", "d", "--depth", "16"}, "--depth 16: BMP"},
        {{"--quality", "0"}, "--quality 0: out of range, must be 1..100"},
        {{"--quality", "101"}, "--quality 101"},
        {{"--raw", "-"}, "--raw -: the float planes go to a file"},
        {{"--format"}, "--format needs a value"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *const *a = bad[i].args;
        assert_int_equal(parse(&o, msg, sizeof msg, (char *)a[0], (char *)a[1], (char *)a[2],
                               (char *)a[3], (char *)a[4], (char *)a[5], NULL), 2);
        if (!strstr(msg, bad[i].message_part))
            fail_msg("case %zu: message \"%s\" lacks \"%s\"", i, msg, bad[i].message_part);
    }
}

/* The optional value of a bare --pyramid: a word that has the form of a count (digits, or
 * digits x digits) is its value, judged there (exit 2 before any work when it is invalid);
 * any other word is an input. --pyramid=WORD is always the value. */
static void test_optional_pyramid_value(void **state)
{
    (void)state;
    static const struct {
        const char *word;
        int octaves, levels; /* 0: refused */
        const char *msg;
    } counts[] = {
        {"2x3", 2, 3, NULL},
        {"4X4", 4, 4, NULL},
        {"00016x008", 16, 8, NULL},
        {"0x3", 0, 0, "tiledconv: --pyramid 0x3: octaves must be 1..16 and levels 1..8\n"},
        {"3x0", 0, 0, "tiledconv: --pyramid 3x0: octaves must be 1..16 and levels 1..8\n"},
        {"17x1", 0, 0, "tiledconv: --pyramid 17x1: octaves must be 1..16 and levels 1..8\n"},
        {"1x9", 0, 0, "tiledconv: --pyramid 1x9: octaves must be 1..16 and levels 1..8\n"},
        {"99999999x3", 0, 0,
         "tiledconv: --pyramid 99999999x3: octaves must be 1..16 and levels 1..8\n"},
        {"99999999999999999999999x1", 0, 0,
         "tiledconv: --pyramid 99999999999999999999999x1: octaves must be 1..16 and levels "
         "1..8\n"},
        {"1x18446744073709551617", 0, 0,
         "tiledconv: --pyramid 1x18446744073709551617: octaves must be 1..16 and levels 1..8\n"},
        {"5", 0, 0, "tiledconv: --pyramid 5: a pyramid is OCTAVESxLEVELS, for example 4x4 (the "
                    "default); an input file of that name is ./5\n"},
        {"0", 0, 0, "tiledconv: --pyramid 0: a pyramid is OCTAVESxLEVELS, for example 4x4 (the "
                    "default); an input file of that name is ./0\n"},
    };
    tc_options o;
    char msg[256];
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        char word[64];
        snprintf(word, sizeof word, "%s", counts[i].word);
        const int rc = parse(&o, msg, sizeof msg, "--pyramid", word, "a.bmp", "-O", "d", NULL);
        if (counts[i].octaves) {
            assert_int_equal(rc, 0);
            assert_int_equal(o.pyramid_octaves, counts[i].octaves);
            assert_int_equal(o.pyramid_levels, counts[i].levels);
            assert_int_equal(o.n_positional, 1); /* the count is no input */
            assert_string_equal(o.positional[0], "a.bmp");
        } else {
            assert_int_equal(rc, 2);
            assert_string_equal(msg, counts[i].msg);
        }
    }
    /* Words of any other form are inputs; the pyramid is the default 4 x 4. */
    static const char *const inputs[] = {"x", "4x", "x4", "4x4x4", "4x4.png", "-", "./5",
                                         "4 x 4", "+4x4", "4x-4"};
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        char word[64];
        snprintf(word, sizeof word, "%s", inputs[i]);
        assert_int_equal(parse(&o, msg, sizeof msg, "--pyramid", word, "-O", "d", NULL), 0);
        assert_int_equal(o.pyramid_octaves, 4);
        assert_int_equal(o.pyramid_levels, 4);
        assert_int_equal(o.n_positional, 1);
        assert_string_equal(o.positional[0], inputs[i]);
    }
    /* Attached, the word is the value whatever its form. */
    assert_int_equal(parse(&o, msg, sizeof msg, "--pyramid=x", "a.bmp", "-O", "d", NULL), 2);
    assert_string_equal(msg, "tiledconv: --pyramid 'x': expected OCTAVESxLEVELS, for example 4x4 "
                             "(the default)\n");
    assert_int_equal(parse(&o, msg, sizeof msg, "--pyramid=3x2", "5", "-O", "d", NULL), 0);
    assert_int_equal(o.pyramid_octaves, 3);
    assert_string_equal(o.positional[0], "5");
}

/* Every option of the table is what getopt reads: each name is accepted (alone, or with a
 * value for the options that take one, whose absence is then named by the option's flag), the
 * two-letter flags with one dash and their value attached, and no two rows share a name. */
/* --format's help names the words the codec table accepts (the one list of them). */
static void test_format_help_names_the_table(void **state)
{
    char list[64];
    int found = 0;
    (void)state;
    io_format_list(list, sizeof list);
    for (size_t i = 0; i < cli_option_count; i++) {
        if (cli_options[i].long_name && strcmp(cli_options[i].long_name, "format") == 0) {
            assert_non_null(strstr(cli_options[i].help, list));
            found++;
        }
    }
    assert_int_equal(found, 1);
}

static void test_option_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < cli_option_count; i++) {
        const cli_option *opt = &cli_options[i];
        char name[40], want[64], msg[256], flag[32];
        tc_options o;
        if (!opt->long_name)
            continue;
        snprintf(name, sizeof name, "--%s", opt->long_name);
        for (size_t k = i + 1; k < cli_option_count; k++)
            if (cli_options[k].long_name && strcmp(cli_options[k].long_name, opt->long_name) == 0)
                fail_msg("%s is in the table twice", name);
        if (opt->value != CLI_VALUE)
            continue;
        snprintf(want, sizeof want, "tiledconv: %s needs a value (see -h)\n",
                 cli_option_flag(opt->code, flag, sizeof flag));
        assert_int_equal(parse(&o, msg, sizeof msg, name, NULL), 2);
        assert_string_equal(msg, want);
        if (opt->short_name && opt->short_name[1]) {
            char attached[16];
            snprintf(name, sizeof name, "-%s", opt->short_name);
            assert_int_equal(parse(&o, msg, sizeof msg, name, NULL), 2);
            assert_string_equal(msg, want);
            snprintf(attached, sizeof attached, "-%s7", opt->short_name);
            assert_int_equal(parse(&o, msg, sizeof msg, "-g", "64x64", attached, NULL), 0);
        }
    }
    assert_true(cli_option_count <= CLI_OPTION_CAPACITY);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),       cmocka_unit_test(test_amd_flags),
        cmocka_unit_test(test_long_forms),     cmocka_unit_test(test_generate_and_all),
        cmocka_unit_test(test_rejections),
        cmocka_unit_test(test_inputs_and_batch_flags),     cmocka_unit_test(test_roi_defaults),
        cmocka_unit_test(test_roi_validation), cmocka_unit_test(test_any_odd_length),
        cmocka_unit_test(test_separate_coefficients), cmocka_unit_test(test_named_filters),
        cmocka_unit_test(test_lengths_per_axis), cmocka_unit_test(test_masks),
        cmocka_unit_test(test_border_and_output_flags),
        cmocka_unit_test(test_amd_flags_attached),    cmocka_unit_test(test_limit_flags),
        cmocka_unit_test(test_tiny_numbers),          cmocka_unit_test(test_messages_are_one_line),
        cmocka_unit_test(test_image_formats), cmocka_unit_test(test_optional_pyramid_value),
        cmocka_unit_test(test_option_table),
        cmocka_unit_test(test_format_help_names_the_table),
    };
    return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
