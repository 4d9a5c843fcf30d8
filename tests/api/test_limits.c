/*
 * test_limits.c - every public function of <tiledconv.h> called with sizes of 0, -1, INT_MAX
 * and mixtures of extremes (and NaN, infinities, tiny sigmas, strides of LONG_MAX): each must
 * refuse with TC_EINVAL (or its function's own refusal: -1, a negative tolerance, "?"), name
 * the numbers it was given, and neither crash nor overflow. Built like test_api.c against the
 * installed header (tests/api/run.sh) and under AddressSanitizer and UBSan
 * (tests/run-sanitized.sh), where any signed overflow or wild access stops the run.
 * Prints "ok - ..." per check; exits 1 when one failed.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <tiledconv.h>

static int failures, checks;

static void check(int ok, const char *what)
{
    checks++;
    printf("%s - %s\n", ok ? "ok" : "not ok", what);
    if (!ok)
        failures++;
}

/* A refusal with TC_EINVAL whose message holds `text`. */
static void refused(int status, const char *message, const char *text, const char *what)
{
    char line[512];
    const int ok = status == TC_EINVAL && strstr(message, text) != NULL;
    snprintf(line, sizeof line, "%s: TC_EINVAL naming \"%s\"%s%s", what, text,
             ok ? "" : "; got: ", ok ? "" : message);
    check(ok, line);
}

/* Sizes that every size-taking function must refuse, with the number each message names. */
static const struct {
    int w, h;
    const char *named;
} bad_sizes[] = {
    {0, 0, "0 x 0"},
    {-1, -1, "-1 x -1"},
    {INT_MAX, INT_MAX, "2147483647 x 2147483647"},
    {INT_MAX, 1, "2147483647 x 1"},
    {1, INT_MAX, "1 x 2147483647"},
    {-1, INT_MAX, "-1 x 2147483647"},
    {INT_MIN, INT_MIN, "-2147483648 x -2147483648"},
    {INT_MAX, 0, "2147483647 x 0"},
    /* Just over the pixel limit, 2^30 + 32768 pixels: within int, beyond the kernels'. */
    {32768, 32769, "1073774592 pixels"},
    {65536, 16385, "1073807360 pixels"},
};
#define N_BAD (sizeof bad_sizes / sizeof bad_sizes[0])

static float small[64], small_out[64], small_out2[64], small_out3[64];

static void filters(tc_context *ctx)
{
    tc_params p;
    char what[160];
    tc_params_init(&p);
    for (size_t i = 0; i < N_BAD; i++) {
        const int w = bad_sizes[i].w, h = bad_sizes[i].h;
        const char *named = bad_sizes[i].named;
        snprintf(what, sizeof what, "tc_filter %d x %d", w, h);
        refused(tc_filter(ctx, small, small_out, w, h, &p), tc_error(ctx), named, what);
        snprintf(what, sizeof what, "tc_check_params %d x %d", w, h);
        refused(tc_check_params(ctx, w, h, &p), tc_error(ctx), named, what);
        snprintf(what, sizeof what, "tc_filter_timed %d x %d", w, h);
        refused(tc_filter_timed(ctx, small, small_out, w, h, &p, 2), tc_error(ctx), named, what);
        char err[512] = "";
        snprintf(what, sizeof what, "tc_reference %d x %d", w, h);
        refused(tc_reference(small, small_out, w, h, &p, err, sizeof err), err, named, what);
        snprintf(what, sizeof what, "tc_tolerance %d x %d is negative", w, h);
        check(tc_tolerance(small, w, h, &p) < 0.0, what);
        /* tc_tiles(INT_MAX, INT_MAX) counted past int and wrote outside the list. */
        tc_tile tiles[4];
        int count = -7;
        snprintf(what, sizeof what, "tc_tiles %d x %d", w, h);
        refused(tc_tiles(&p, w, h, tiles, 4, &count, err, sizeof err), err, named, what);
        check(count == -7, "tc_tiles leaves count alone when it refuses");
        snprintf(what, sizeof what, "tc_gradient %d x %d", w, h);
        refused(tc_gradient(ctx, small, NULL, NULL, small_out, w, h, TC_GRADIENT_SOBEL,
                            TC_GRADIENT_ONE_READ, &p),
                tc_error(ctx), named, what);
        snprintf(what, sizeof what, "tc_gradient_reference %d x %d", w, h);
        refused(tc_gradient_reference(small, NULL, NULL, small_out, w, h, TC_GRADIENT_SOBEL, &p,
                                      err, sizeof err),
                err, named, what);
        snprintf(what, sizeof what, "tc_gradient_tolerance %d x %d is negative", w, h);
        check(tc_gradient_tolerance(small, w, h, TC_GRADIENT_SOBEL, &p, NULL) < 0.0, what);
    }
    /* A narrow image whose rows, padded to 32 floats, pass 2^31 though its pixels do not. */
    refused(tc_filter(ctx, small, small_out, 1, 1 << 27, &p), tc_error(ctx), "1 x 134217728",
            "tc_filter 1 x 2^27 (padded rows past the kernels' indices)");
    const int iterations[] = {0, -1, INT_MAX, INT_MIN, TC_MAX_ITERATIONS + 1};
    for (size_t i = 0; i < sizeof iterations / sizeof iterations[0]; i++) {
        char named[64];
        snprintf(named, sizeof named, "iterations %d", iterations[i]);
        refused(tc_filter_timed(ctx, small, small_out, 8, 8, &p, iterations[i]), tc_error(ctx),
                named, "tc_filter_timed");
        refused(tc_gradient_timed(ctx, small, NULL, NULL, small_out, 8, 8, TC_GRADIENT_SOBEL,
                                  TC_GRADIENT_ONE_READ, &p, iterations[i]),
                tc_error(ctx), named, "tc_gradient_timed");
    }
}

/* ROI fields, lengths, masks, blocks and enumerations at their extremes on an 8 x 8 image. */
static void parameters(tc_context *ctx)
{
    const int extremes[] = {-1, INT_MAX, INT_MIN};
    const char *names[] = {"src_left", "src_top", "dst_left", "dst_top", "roi_width",
                           "roi_height", "taps_x", "taps_y", "block"};
    for (size_t f = 0; f < sizeof names / sizeof names[0]; f++)
        for (size_t e = 0; e < sizeof extremes / sizeof extremes[0]; e++) {
            tc_params p;
            char named[64], what[96];
            tc_params_init(&p);
            int *fields[] = {&p.src_left, &p.src_top,  &p.dst_left,     &p.dst_top, &p.roi_width,
                             &p.roi_height, &p.taps_x, &p.taps_y,       &p.block_width};
            *fields[f] = extremes[e];
            snprintf(named, sizeof named, "%d", extremes[e]);
            snprintf(what, sizeof what, "tc_filter with %s %d", names[f], extremes[e]);
            refused(tc_filter(ctx, small, small_out, 8, 8, &p), tc_error(ctx), named, what);
        }
    /* The largest ROI offset with the largest width: offset + width would overflow. */
    tc_params p;
    tc_params_init(&p);
    p.src_left = 7;
    p.roi_width = INT_MAX;
    refused(tc_filter(ctx, small, small_out, 8, 8, &p), tc_error(ctx), "roi_width 2147483647",
            "tc_filter with src_left 7 and roi_width INT_MAX");
    tc_params_init(&p);
    const float mask[9] = {0, 1, 0, 1, -4, 1, 0, 1, 0};
    p.mask = mask;
    p.mask_width = INT_MAX;
    p.mask_height = 3;
    refused(tc_filter(ctx, small, small_out, 8, 8, &p), tc_error(ctx), "mask_width 2147483647",
            "tc_filter with mask_width INT_MAX");
    tc_params_init(&p);
    p.border = (tc_border)INT_MAX;
    refused(tc_filter(ctx, small, small_out, 8, 8, &p), tc_error(ctx), "border 2147483647",
            "tc_filter with border INT_MAX");
    tc_params_init(&p);
    p.algorithm = (tc_algorithm)-1;
    refused(tc_filter(ctx, small, small_out, 8, 8, &p), tc_error(ctx), "algorithm -1",
            "tc_filter with algorithm -1");
    tc_params_init(&p);
    p.border = TC_BORDER_CONSTANT;
    p.border_value = NAN;
    refused(tc_filter(ctx, small, small_out, 8, 8, &p), tc_error(ctx), "border_value",
            "tc_filter with border_value NaN");
    p.border_value = INFINITY;
    refused(tc_filter(ctx, small, small_out, 8, 8, &p), tc_error(ctx), "border_value",
            "tc_filter with border_value infinite");
    tc_params_init(&p);
    const float inf_k[3] = {0.25f, INFINITY, 0.25f};
    p.ky = inf_k;
    refused(tc_filter(ctx, small, small_out, 8, 8, &p), tc_error(ctx), "ky[1]",
            "tc_filter with an infinite coefficient");
    tc_params_init(&p);
    tc_params_init(NULL); /* nothing to fill, nothing to crash */
    check(1, "tc_params_init(NULL) returns");
}

/* tc_filter_image, tc_filter_images and tc_image_to_planes. */
static void images(tc_context *ctx)
{
    static unsigned char px[4096], out[4096];
    char err[512] = "", what[160];
    tc_params p;
    tc_params_init(&p);
    for (size_t i = 0; i < N_BAD; i++) {
        const int w = bad_sizes[i].w, h = bad_sizes[i].h;
        tc_image src = {TC_PIXELS_U8, w, h, 1, px, 64, NULL, 0};
        tc_image dst = {TC_PIXELS_U8, w, h, 1, out, 64, NULL, 0};
        snprintf(what, sizeof what, "tc_filter_image %d x %d", w, h);
        refused(tc_filter_image(ctx, &src, &dst, &p), tc_error(ctx), bad_sizes[i].named, what);
        snprintf(what, sizeof what, "tc_image_to_planes %d x %d", w, h);
        refused(tc_image_to_planes(&src, 1, small_out, err, sizeof err), err,
                bad_sizes[i].named, what);
        snprintf(what, sizeof what, "tc_filter_images of one %d x %d", w, h);
        refused(tc_filter_images(ctx, &src, &dst, 1, &p), tc_error(ctx), bad_sizes[i].named,
                what);
    }
    /* A stride of LONG_MAX wrapped the block's size and was answered TC_ENOMEM. */
    const long strides[] = {LONG_MAX, LONG_MIN, -1, 0, 63, LONG_MAX / 2 + 1};
    const tc_pixel_format formats[] = {TC_PIXELS_GRAY8, TC_PIXELS_U8};
    for (size_t f = 0; f < 2; f++)
        for (size_t i = 0; i < sizeof strides / sizeof strides[0]; i++) {
            tc_image src = {formats[f], 64, 4, 1, px, strides[i], NULL, 0};
            tc_image dst = {formats[f], 64, 4, 1, out, 64, NULL, 0};
            char named[64];
            snprintf(named, sizeof named, "src->stride %ld", strides[i]);
            snprintf(what, sizeof what, "tc_filter_image (format %d) with stride %ld",
                     (int)formats[f], strides[i]);
            refused(tc_filter_image(ctx, &src, &dst, &p), tc_error(ctx), named, what);
        }
    const int channel_counts[] = {0, 2, 5, -1, INT_MAX};
    for (size_t i = 0; i < sizeof channel_counts / sizeof channel_counts[0]; i++) {
        tc_image src = {TC_PIXELS_U16, 4, 4, channel_counts[i], px, 64, NULL, 0};
        tc_image dst = {TC_PIXELS_U16, 4, 4, channel_counts[i], out, 64, NULL, 0};
        char named[64];
        snprintf(named, sizeof named, "src->planes %d", channel_counts[i]);
        snprintf(what, sizeof what, "tc_filter_image U16 with %d channels", channel_counts[i]);
        refused(tc_filter_image(ctx, &src, &dst, &p), tc_error(ctx), named, what);
    }
    const int formats_bad[] = {-1, INT_MAX, TC_PIXELS_F32 + 1};
    for (size_t i = 0; i < sizeof formats_bad / sizeof formats_bad[0]; i++) {
        tc_image src = {(tc_pixel_format)formats_bad[i], 4, 4, 1, px, 64, NULL, 0};
        tc_image dst = {TC_PIXELS_U8, 4, 4, 1, out, 64, NULL, 0};
        char named[64];
        snprintf(named, sizeof named, "src->format %d", formats_bad[i]);
        refused(tc_filter_image(ctx, &src, &dst, &p), tc_error(ctx), named,
                "tc_filter_image with a format outside the enumeration");
    }
    /* Misaligned 16-bit and float samples. */
    tc_image odd = {TC_PIXELS_U16, 4, 4, 1, px + 1, 64, NULL, 0};
    tc_image fine = {TC_PIXELS_U16, 4, 4, 1, out, 64, NULL, 0};
    refused(tc_filter_image(ctx, &odd, &fine, &p), tc_error(ctx), "aligned to 2 bytes",
            "tc_filter_image with U16 data at an odd address");
    tc_image odd_stride = {TC_PIXELS_F32, 4, 4, 1, px, 66, NULL, 0};
    tc_image fine_f = {TC_PIXELS_F32, 4, 4, 1, out, 64, NULL, 0};
    refused(tc_filter_image(ctx, &odd_stride, &fine_f, &p), tc_error(ctx), "stride 66",
            "tc_filter_image with an F32 stride of 66 bytes");
    /* Output mappings that are not finite. */
    tc_image a = {TC_PIXELS_U8, 8, 8, 1, px, 8, NULL, 0};
    tc_image b = {TC_PIXELS_U8, 8, 8, 1, out, 8, NULL, 0};
    p.out_scale = NAN;
    refused(tc_filter_image(ctx, &a, &b, &p), tc_error(ctx), "out_scale",
            "tc_filter_image with out_scale NaN");
    p.out_scale = 1.0;
    p.out_offset = -INFINITY;
    refused(tc_filter_image(ctx, &a, &b, &p), tc_error(ctx), "out_offset",
            "tc_filter_image with out_offset -inf");
    tc_params_init(&p);
    refused(tc_filter_images(ctx, &a, &b, -1, &p), tc_error(ctx), "count -1",
            "tc_filter_images with count -1");
    refused(tc_filter_images(ctx, NULL, &b, INT_MAX, &p), tc_error(ctx), "src is NULL",
            "tc_filter_images with count INT_MAX and no images");
    check(tc_filter_images(ctx, NULL, NULL, 0, &p) == TC_OK,
          "tc_filter_images with count 0 does nothing");
    tc_image pair[2] = {a, a}, outs[2] = {b, b};
    pair[1].stride = LONG_MAX;
    refused(tc_filter_images(ctx, pair, outs, 2, &p), tc_error(ctx), "images[1]: src->stride",
            "tc_filter_images names the bad pair");
    const int planes[] = {0, -1, 2, INT_MAX};
    for (size_t i = 0; i < sizeof planes / sizeof planes[0]; i++) {
        tc_image g = {TC_PIXELS_GRAY8, 8, 8, 0, px, 8, NULL, 0};
        char named[64];
        snprintf(named, sizeof named, "planes %d", planes[i]);
        refused(tc_image_to_planes(&g, planes[i], small_out, err, sizeof err), err, named,
                "tc_image_to_planes with a bad plane count");
    }
}

static void others(tc_context *ctx)
{
    char err[512] = "";
    double ms = 0.0;
    refused(tc_copy_time(ctx, 0, 1, &ms), tc_error(ctx), "bytes and repeats",
            "tc_copy_time of 0 bytes");
    refused(tc_copy_time(ctx, SIZE_MAX, 1, &ms), tc_error(ctx), "18446744073709551615 bytes",
            "tc_copy_time of SIZE_MAX bytes");
    refused(tc_copy_time(ctx, 64, INT_MAX, &ms), tc_error(ctx), "repeats 2147483647",
            "tc_copy_time with INT_MAX repeats");
    refused(tc_copy_time(ctx, 64, -1, &ms), tc_error(ctx), "bytes and repeats",
            "tc_copy_time with -1 repeats");
    int count = 0;
    check(tc_list_devices(NULL, -1, &count, err, sizeof err) == TC_EINVAL,
          "tc_list_devices with capacity -1");
    check(tc_list_devices(NULL, INT_MAX, &count, err, sizeof err) == TC_EINVAL,
          "tc_list_devices with capacity INT_MAX and no list");
    float k[64];
    const int taps[] = {0, -1, INT_MAX, INT_MIN, 65};
    for (size_t i = 0; i < sizeof taps / sizeof taps[0]; i++) {
        char named[64];
        snprintf(named, sizeof named, "%d-tap", taps[i]);
        refused(tc_named_filter("gauss", taps[i], 0.0, k, k, err, sizeof err), err, named,
                "tc_named_filter with a bad length");
    }
    const double sigmas[] = {NAN, INFINITY, -INFINITY, 1e-300, DBL_MIN, 1e-101};
    for (size_t i = 0; i < sizeof sigmas / sizeof sigmas[0]; i++) {
        char what[96];
        snprintf(what, sizeof what, "tc_named_filter(gauss, sigma %g)", sigmas[i]);
        refused(tc_named_filter("gauss", 5, sigmas[i], k, k, err, sizeof err), err, "sigma",
                what);
    }
    int w = 0, h = 0;
    refused(tc_named_mask("sharpen", 1.0, k, -1, &w, &h, err, sizeof err), err, "capacity -1",
            "tc_named_mask with capacity -1");
    refused(tc_named_mask("sharpen", NAN, k, 9, &w, &h, err, sizeof err), err, "amount",
            "tc_named_mask with amount NaN");
    refused(tc_named_mask("sharpen", 1e300, k, 9, &w, &h, err, sizeof err), err, "amount",
            "tc_named_mask with amount 1e300");
    const float m9[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
    check(tc_mask_factors(m9, INT_MAX, INT_MAX, k, k) == -1 &&
              tc_mask_factors(m9, -1, 3, k, k) == -1 && tc_mask_factors(m9, 0, 0, k, k) == -1,
          "tc_mask_factors refuses INT_MAX, -1 and 0 sizes");
    check(strcmp(tc_border_name((tc_border)INT_MAX), "?") == 0 &&
              strcmp(tc_algorithm_name((tc_algorithm)-1), "?") == 0 &&
              strcmp(tc_storage_name((tc_storage)INT_MIN), "?") == 0 &&
              strcmp(tc_pyramid_launch_name((tc_pyramid_launch)-1), "?") == 0 &&
              strcmp(tc_gradient_operator_name((tc_gradient_operator)INT_MAX), "?") == 0 &&
              strcmp(tc_gradient_method_name((tc_gradient_method)-1), "?") == 0,
          "the name functions answer ? outside their enumerations");
    check(tc_abi_size(NULL) == 0 && tc_abi_size("") == 0, "tc_abi_size of nothing is 0");
    tc_stats st;
    tc_device_info info;
    check(tc_last_stats(ctx, NULL) == TC_EINVAL && tc_last_stats(NULL, &st) == TC_EINVAL &&
              tc_context_device(ctx, NULL) == TC_EINVAL,
          "tc_last_stats and tc_context_device refuse NULL");
    /* The context has built programs by now: they build without a word. */
    check(strcmp(tc_build_log(NULL), "") == 0 && strcmp(tc_build_log(ctx), "") == 0,
          "tc_build_log: \"\" for NULL, and for the silent builds of the kernels");
    check(tc_trim(NULL) == TC_EINVAL, "tc_trim refuses NULL");
    check(tc_set_timing(NULL, 1) == TC_EINVAL && tc_set_timing(ctx, INT_MIN) == TC_OK &&
              tc_set_timing(ctx, 1) == TC_OK,
          "tc_set_timing refuses NULL and takes any int as on or off");
    static unsigned char some[64];
    check(tc_host_alloc(ctx, SIZE_MAX) == NULL && tc_host_alloc(ctx, 0) == NULL &&
              tc_host_register(ctx, some, SIZE_MAX) == TC_EINVAL &&
              tc_host_register(ctx, some + 63, SIZE_MAX - 32) == TC_EINVAL &&
              tc_host_register(ctx, some, 0) == TC_EINVAL &&
              tc_host_register(NULL, some, 64) == TC_EINVAL,
          "tc_host_alloc and tc_host_register refuse 0 and SIZE_MAX bytes and a NULL context");
    (void)info;
    tc_context *none = (tc_context *)1;
    check(tc_open("2147483647:2147483647", &none, err, sizeof err) == TC_EINVAL && !none,
          "tc_open of device 2147483647:2147483647 is TC_EINVAL");
    check(tc_open("-1:-1", &none, err, sizeof err) == TC_EINVAL && !none,
          "tc_open of device -1:-1 is TC_EINVAL");
    check(tc_open("99999999999999999999", &none, err, sizeof err) == TC_EINVAL && !none,
          "tc_open of platform 99999999999999999999 is TC_EINVAL");
}

static void pyramids(tc_context *ctx)
{
    char err[512] = "";
    tc_pyramid_params p;
    tc_pyramid_level levels[4];
    float *outs[16];
    int count = -7;
    for (int i = 0; i < 16; i++)
        outs[i] = small_out3;
    tc_pyramid_params_init(&p);
    tc_pyramid_params_init(NULL);
    for (size_t i = 0; i < N_BAD; i++) {
        const int w = bad_sizes[i].w, h = bad_sizes[i].h;
        char what[96];
        double tol[16];
        snprintf(what, sizeof what, "tc_pyramid_layout %d x %d", w, h);
        refused(tc_pyramid_layout(w, h, &p, levels, 4, &count, err, sizeof err), err,
                bad_sizes[i].named, what);
        snprintf(what, sizeof what, "tc_pyramid %d x %d", w, h);
        refused(tc_pyramid(ctx, small, w, h, &p, outs), tc_error(ctx), bad_sizes[i].named, what);
        snprintf(what, sizeof what, "tc_pyramid_reference %d x %d", w, h);
        refused(tc_pyramid_reference(small, w, h, &p, outs, err, sizeof err), err,
                bad_sizes[i].named, what);
        snprintf(what, sizeof what, "tc_pyramid_tolerance %d x %d", w, h);
        check(tc_pyramid_tolerance(small, w, h, &p, tol) == TC_EINVAL, what);
    }
    check(count == -7, "tc_pyramid_layout leaves count alone when it refuses");
    const int counts[] = {0, -1, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        tc_pyramid_params q = p;
        char named[64];
        q.octaves = counts[i];
        snprintf(named, sizeof named, "%d octaves", counts[i]);
        refused(tc_pyramid_layout(64, 64, &q, NULL, 0, &count, err, sizeof err), err, named,
                "tc_pyramid_layout with a bad octave count");
        q = p;
        q.levels = counts[i];
        snprintf(named, sizeof named, "of %d levels", counts[i]);
        refused(tc_pyramid_layout(64, 64, &q, NULL, 0, &count, err, sizeof err), err, named,
                "tc_pyramid_layout with a bad level count");
        char it[64];
        snprintf(it, sizeof it, "iterations %d", counts[i]);
        refused(tc_pyramid_timed(ctx, small, 8, 8, &p, outs, counts[i]), tc_error(ctx), it,
                "tc_pyramid_timed with bad iterations");
    }
    refused(tc_pyramid_layout(64, 64, &p, NULL, -1, &count, err, sizeof err), err,
            "levels too small", "tc_pyramid_layout with capacity -1");
    /* sigma 1e-300 made every level NaN and was answered TC_OK. */
    const double sigmas[] = {1e-300, DBL_MIN, NAN, INFINITY, -1.0, 0.0, DBL_MAX};
    for (size_t i = 0; i < sizeof sigmas / sizeof sigmas[0]; i++) {
        tc_pyramid_params q = p;
        char what[96];
        q.sigma = sigmas[i];
        q.octaves = 1;
        q.levels = 1;
        snprintf(what, sizeof what, "tc_pyramid with sigma %g", sigmas[i]);
        refused(tc_pyramid(ctx, small, 8, 8, &q, outs), tc_error(ctx), "sigma", what);
        snprintf(what, sizeof what, "tc_pyramid_reference with sigma %g", sigmas[i]);
        refused(tc_pyramid_reference(small, 8, 8, &q, outs, err, sizeof err), err, "sigma",
                what);
    }
    tc_pyramid_params q = p;
    q.border_value = NAN;
    refused(tc_pyramid(ctx, small, 8, 8, &q, outs), tc_error(ctx), "border_value",
            "tc_pyramid with border_value NaN");
}

int main(void)
{
    char err[512] = "";
    tc_context *ctx = NULL;
    if (tc_open(NULL, &ctx, err, sizeof err) != TC_OK) {
        fprintf(stderr, "test_limits: %s\n", err);
        return 1;
    }
    for (int i = 0; i < 64; i++)
        small[i] = (float)i;
    filters(ctx);
    parameters(ctx);
    images(ctx);
    others(ctx);
    pyramids(ctx);
    /* After all of that the context still works. */
    tc_params p;
    tc_params_init(&p);
    check(tc_filter(ctx, small, small_out, 8, 8, &p) == TC_OK &&
              tc_filter(ctx, small, small_out2, 8, 8, &p) == TC_OK &&
              memcmp(small_out, small_out2, sizeof small_out) == 0,
          "the context filters after every refusal");
    tc_close(ctx);
    printf("limits: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
