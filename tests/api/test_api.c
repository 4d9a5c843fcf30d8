/*
 * test_api.c - the C API as a user meets it: this program includes only <tiledconv.h> and is
 * built with `pkg-config --cflags --libs tiledconv` against an installed copy (tests/api/run.sh).
 * It checks a filtered plane against a reference computed here, the program cache, a context
 * that survives a failed call, and in-place filtering. Prints "ok - ..." per check and exits 1
 * on the first failure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tiledconv.h>

static int failures;

static void check(int ok, const char *what)
{
    printf("%s - %s\n", ok ? "ok" : "not ok", what);
    if (!ok)
        failures++;
}

/* The formula (docs/kernels.md, "What is computed") for a 3-tap filter and replicate borders,
 * in double, computed here so that the check does not lean on the library's own reference. */
static void reference3(const float *src, float *dst, int w, int h, const float *kx,
                       const float *ky, int sl, int st, int dl, int dt, int rw, int rh)
{
    memcpy(dst, src, (size_t)w * (size_t)h * sizeof *dst);
    for (int y = 0; y < rh; y++)
        for (int x = 0; x < rw; x++) {
            double sum = 0.0;
            for (int j = -1; j <= 1; j++)
                for (int i = -1; i <= 1; i++) {
                    int sx = x + i < 0 ? 0 : x + i >= rw ? rw - 1 : x + i;
                    int sy = y + j < 0 ? 0 : y + j >= rh ? rh - 1 : y + j;
                    sum += (double)ky[j + 1] * kx[i + 1] * src[(st + sy) * w + sl + sx];
                }
            dst[(dt + y) * w + dl + x] = (float)sum;
        }
}

/* Largest difference inside the whole plane. */
static double max_diff(const float *a, const float *b, size_t n)
{
    double d = 0.0;
    for (size_t i = 0; i < n; i++)
        d = fmax(d, fabs((double)a[i] - b[i]));
    return d;
}

int main(void)
{
    enum { W = 53, H = 37 };
    static float src[W * H], dst[W * H], want[W * H], again[W * H];
    const float kx[3] = {0.25f, 0.5f, 0.25f}, ky[3] = {-1.0f, 0.0f, 2.0f};
    char err[512] = "";
    tc_context *ctx = NULL;
    tc_params p;
    tc_stats st;

    for (int i = 0; i < W * H; i++)
        src[i] = (float)((i * 37) % 251) + 0.25f;

    int status = tc_open(NULL, &ctx, err, sizeof err);
    check(status == TC_OK && ctx != NULL, "tc_open(NULL) opens the default device");
    if (status != TC_OK) {
        fprintf(stderr, "test_api: %s\n", err);
        return 1;
    }

    tc_params_init(&p);
    p.kx = kx;
    p.ky = ky;
    p.src_left = 3;
    p.src_top = 2;
    p.dst_left = 1;
    p.dst_top = 4;
    p.roi_width = 45;
    p.roi_height = 30;
    status = tc_filter(ctx, src, dst, W, H, &p);
    check(status == TC_OK, "tc_filter with a moved ROI and unequal kx, ky");
    reference3(src, want, W, H, kx, ky, 3, 2, 1, 4, 45, 30);
    check(max_diff(dst, want, W * H) <= 1e-3, "result equals the reference computed here");
    int outside_equal = 1;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            if (!(x >= 1 && x < 46 && y >= 4 && y < 34) && dst[y * W + x] != src[y * W + x])
                outside_equal = 0;
    check(outside_equal, "outside the target ROI dst equals src bit for bit");

    check(tc_last_stats(ctx, &st) == TC_OK && st.programs_built == 1,
          "the first call built one program");
    status = tc_filter(ctx, src, again, W, H, &p);
    check(status == TC_OK && tc_last_stats(ctx, &st) == TC_OK && st.programs_built == 1,
          "a second call with the same settings builds nothing");
    check(memcmp(dst, again, sizeof dst) == 0, "the second call gives the same plane");
    memset(again, 0, sizeof again);
    check(tc_trim(ctx) == TC_OK && tc_error(ctx)[0] == '\0',
          "tc_trim gives back the buffers the context keeps");
    status = tc_filter(ctx, src, again, W, H, &p);
    check(status == TC_OK && tc_last_stats(ctx, &st) == TC_OK && st.programs_built == 1 &&
              memcmp(dst, again, sizeof dst) == 0,
          "after tc_trim the same plane, its program kept (none built)");

    p.src_left = W; /* outside the image */
    status = tc_filter(ctx, src, again, W, H, &p);
    check(status == TC_EINVAL && strstr(tc_error(ctx), "src_left") != NULL,
          "a bad ROI is TC_EINVAL and tc_error names src_left");
    p.src_left = 3;
    status = tc_filter(ctx, src, again, W, H, &p);
    check(status == TC_OK && tc_error(ctx)[0] == '\0' && memcmp(dst, again, sizeof dst) == 0,
          "the context filters correctly after the failed call");

    memcpy(again, src, sizeof src);
    status = tc_filter(ctx, again, again, W, H, &p);
    check(status == TC_OK && memcmp(dst, again, sizeof dst) == 0, "in place equals out of place");

    p.taps_x = p.taps_y = 5;
    p.kx = p.ky = NULL;
    status = tc_filter(ctx, src, dst, W, H, &p);
    check(status == TC_OK && tc_last_stats(ctx, &st) == TC_OK && st.programs_built == 2,
          "another length builds exactly one more program");

    /* Parameters whose sums could pass float32 on 8-bit input are refused, naming kx and ky
     * (they gave infinities, and NaN, before); so is a gauss sigma whose weights are NaN. */
    const float huge[3] = {1e19f, 1e19f, 1e19f};
    p.taps_x = p.taps_y = 3;
    p.kx = p.ky = huge;
    status = tc_filter(ctx, src, dst, W, H, &p);
    check(status == TC_EINVAL && strstr(tc_error(ctx), "kx and ky: on inputs up to 255") != NULL,
          "kx = ky = 1e19 x 3 is TC_EINVAL and tc_error names kx and ky");
    float nan_k[3] = {0.25f, NAN, 0.25f};
    p.kx = nan_k;
    p.ky = NULL;
    status = tc_filter(ctx, src, dst, W, H, &p);
    check(status == TC_EINVAL && strstr(tc_error(ctx), "kx[1] is not a finite number") != NULL,
          "a NaN coefficient is TC_EINVAL naming kx[1]");
    p.kx = NULL;
    p.border = TC_BORDER_CONSTANT;
    p.border_value = 1e38f;
    const float four[3] = {2.0f, 2.0f, 0.5f};
    p.ky = four; /* sum 4.5: 4.5e38 from the border alone */
    status = tc_filter(ctx, src, dst, W, H, &p);
    check(status == TC_EINVAL && strstr(tc_error(ctx), "border_value") != NULL,
          "a border value that overflows the sums is TC_EINVAL naming border_value");
    float g[5];
    status = tc_named_filter("gauss", 5, 1e-200, g, g, err, sizeof err);
    check(status == TC_EINVAL && strstr(err, "sigma 1e-200: too small") != NULL,
          "gauss with sigma 1e-200 is TC_EINVAL: too small");
    status = tc_named_filter("gauss", 5, 1e-100, g, g, err, sizeof err);
    check(status == TC_OK && g[2] == 1.0f && g[1] == 0.0f,
          "gauss with sigma 1e-100 is the identity");

    /* Masks and a length per axis through the installed header: a mask (laplacian8 from
     * tc_named_mask), checked against the sums computed here; a length per axis; the factors of
     * a rank-1 mask. */
    float lap8[9];
    int mw = 0, mh = 0;
    status = tc_named_mask("laplacian8", 1.0, lap8, 9, &mw, &mh, err, sizeof err);
    check(status == TC_OK && mw == 3 && mh == 3 && lap8[4] == -8.0f && lap8[0] == 1.0f,
          "tc_named_mask(laplacian8) is 1 1 1; 1 -8 1; 1 1 1");
    tc_params_init(&p);
    p.mask = lap8;
    p.mask_width = p.mask_height = 3;
    status = tc_filter(ctx, src, dst, W, H, &p);
    int mask_ok = status == TC_OK;
    for (int y = 1; mask_ok && y < H - 1; y++) /* the interior: no border involved */
        for (int x = 1; x < W - 1; x++) {
            double sum = 0.0;
            for (int j = -1; j <= 1; j++)
                for (int i = -1; i <= 1; i++)
                    sum += (i == 0 && j == 0 ? -8.0 : 1.0) * src[(y + j) * W + x + i];
            if (fabs(sum - dst[y * W + x]) > 1e-2)
                mask_ok = 0;
        }
    check(mask_ok, "a 3 x 3 mask filters as its 2-D sums computed here");
    p.algorithm = TC_TWOPASS;
    status = tc_filter(ctx, src, dst, W, H, &p);
    check(status == TC_EINVAL && strstr(tc_error(ctx), "not separable") != NULL,
          "twopass refuses a mask that is not separable");
    tc_params_init(&p);
    p.taps_x = 31;
    p.taps_y = 1;
    status = tc_filter(ctx, src, dst, W, H, &p);
    check(status == TC_OK, "31 x 1 taps (rows only) filters");
    const float outer[6] = {1, 2, 1, -2, -4, -2}; /* [1 -2]^T x [1 2 1]: 3 wide, 2 high: even */
    float fx[3], fy[3];
    check(tc_mask_factors(outer, 3, 2, fx, fy) == -1, "tc_mask_factors refuses an even height");
    const float outer3[9] = {1, 2, 1, -2, -4, -2, 1, 2, 1};
    check(tc_mask_factors(outer3, 3, 3, fx, fy) == 1 && fx[1] == -4.0f && fy[1] == 1.0f &&
              fy[0] == -0.5f,
          "tc_mask_factors factors a rank-1 mask (kx the largest weight's row)");
    check(tc_mask_factors(lap8, 3, 3, fx, fy) == 0, "laplacian8 is not rank 1");

    /* The one-read gradient (1.2): Sobel of I = 2x is 2 * 2 = 4 along the row times the
     * smoothing's 4 down the column, 16 inside; gy 0; the two filters apart agree. */
    static float ramp[W * H], gx[W * H], mag[W * H], sep[W * H];
    tc_params gp;
    tc_params_init(&gp);
    for (int i = 0; i < W * H; i++)
        ramp[i] = 2.0f * (float)(i % W);
    status = tc_gradient(ctx, ramp, gx, NULL, mag, W, H, TC_GRADIENT_SOBEL, TC_GRADIENT_ONE_READ,
                         &gp);
    check(status == TC_OK && gx[2 * W + 2] == 16.0f && mag[2 * W + 2] == 16.0f &&
              gx[2 * W] == 8.0f,
          "tc_gradient: Sobel of I = 2x is 16 inside, 8 at the replicated left edge");
    status = tc_gradient(ctx, ramp, NULL, NULL, sep, W, H, TC_GRADIENT_SOBEL,
                         TC_GRADIENT_SEPARATE, &gp);
    check(status == TC_OK &&
              max_diff(mag, sep, W * H) <=
                  2 * tc_gradient_tolerance(ramp, W, H, TC_GRADIENT_SOBEL, &gp, NULL),
          "tc_gradient: the two filters apart agree with the one read");
    check(strcmp(tc_gradient_operator_name(TC_GRADIENT_SCHARR), "scharr") == 0 &&
              strcmp(tc_version(), "1.2.0") >= 0,
          "tc_gradient_operator_name and the version");

    tc_close(ctx);
    printf("test_api: %d failed\n", failures);
    return failures ? 1 : 0;
}
