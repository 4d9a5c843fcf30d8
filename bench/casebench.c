/*
 * bench/casebench.c - many timed tiledconv runs in one process, for kernel studies on the GPU
 * machine: the device is opened once and each image size made once, so a device call can
 * hold hundreds of cases. The public API (tiledconv.h) and the study settings
 * (tiledconv_internal.h's tc_tuning, which the library has had since the environment variables
 * it read before were removed).
 *
 *   cc -std=c11 -O2 -Iinclude bench/casebench.c build/lib/libtiledconv.a -lOpenCL -lm
 *   ./casebench [DEVICE] < cases.txt > results.jsonl
 *
 * One case per input line, key=value words ('#' lines and blank lines are skipped):
 *   label=NAME        a name for the record (required, no spaces)
 *   g=WxH             image size (default 8192x8192)
 *   roi=sL,sT,tL,tT,W,H   the ROIs (default 0,0,0,0 and the largest that fits)
 *   f=TAPS            filter length (default 3; binomial coefficients), along rows and, unless
 *                     fy= says otherwise, columns
 *   fy=TAPS           the length along columns (a length per axis; 1: none)
 *   mask=NAME         a non-separable mask instead: 3x3, 5x5, 7x7 or 15x15, small integers
 *                     over 16 (3x3, 5x5 and 7x7 are bench/peers.py's MASKS), or binomial3x3 (rank
 *                     1: factored unless tune=mask-2d=1)
 *   tune=NAME=VALUE   a study setting of the library for this case (tc_tuning: long-tile-h,
 *                     mask-2d, cl-options, dump-program, ...); repeatable; back to the
 *                     defaults after the case
 *   b=BORDER          replicate|constant|reflect101|reflect|wrap (default replicate)
 *   blk=WxH           tiled block (default 4x4)
 *   a=ALG             tiled|twopass|onepass (default tiled)
 *   i=N               timed iterations after one warm-up (default 30)
 *   e=1               also compare every pixel with tc_reference (slow for big images)
 *   opts=A,B          extra OpenCL build options, commas for spaces (tune=cl-options=...)
 *
 * Output: one JSON object per case on stdout: the case, kernel median and min (ms), the
 * copy of the ROI's bytes measured right after the kernel (clEnqueueCopyBuffer, median of
 * the same number of runs, 5..100), copy_fraction = copy / kernel median, host wall time per
 * iteration, build time, the classes, and the verification when asked for.
 */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tiledconv.h"
#include "tiledconv_internal.h"

static float *image;
static int image_w, image_h;
static float *result, *expected;

/* A deterministic image with a fractional part everywhere (no zeros, no constant rows). */
static int make_image(int w, int h)
{
    if (image && image_w == w && image_h == h)
        return 0;
    free(image);
    free(result);
    free(expected);
    image = malloc((size_t)w * h * sizeof *image);
    result = malloc((size_t)w * h * sizeof *result);
    expected = NULL;
    if (!image || !result)
        return -1;
    for (size_t i = 0; i < (size_t)w * h; i++) {
        unsigned x = (unsigned)i * 2654435761u;
        x ^= x >> 13;
        image[i] = (float)(x % 25600u) / 100.0f + 0.25f;
    }
    image_w = w;
    image_h = h;
    return 0;
}

static int border_of(const char *s, tc_border *b)
{
    static const char *const names[] = {"replicate", "constant", "reflect101", "reflect",
                                        "wrap"};
    for (int i = 0; i < 5; i++)
        if (strcmp(s, names[i]) == 0) {
            *b = (tc_border)i;
            return 0;
        }
    return -1;
}

/* The masks of mask=NAME: bench/peers.py's MASKS (small integers over 16, rank 2 or more), a
 * 15 x 15 of the same kind, and the 3 x 3 binomial (rank 1). 0 and *w = *h = 0 for none. */
static int mask_of(const char *name, float *m, int *w, int *h)
{
    static const int m3[9] = {1, -2, 3, 0, 4, -1, 2, 1, -3};
    static const int m5[25] = {1, 0, -2, 1, 3, 2, -1, 4, 0, -2, -3, 2, 5,
                               1, 0, 0, 1, -1, 2, -2, 1, -3, 0, 2, 1};
    static const int b3[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
    int n = 0;
    if (strcmp(name, "3x3") == 0 || strcmp(name, "binomial3x3") == 0) {
        n = 3;
        for (int k = 0; k < 9; k++)
            m[k] = (float)(name[0] == 'b' ? b3[k] : m3[k]) / 16.0f;
    } else if (strcmp(name, "5x5") == 0) {
        n = 5;
        for (int k = 0; k < 25; k++)
            m[k] = (float)m5[k] / 16.0f;
    } else if (strcmp(name, "7x7") == 0 || strcmp(name, "15x15") == 0) {
        n = name[0] == '7' ? 7 : 15; /* peers.py: (3 i + 5 j) mod 7 - 3 */
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                m[j * n + i] = (float)((3 * i + 5 * j) % 7 - 3) / 16.0f;
    } else {
        return -1;
    }
    *w = *h = n;
    return 0;
}

static int algorithm_of(const char *s, tc_algorithm *a)
{
    if (strcmp(s, "tiled") == 0)
        *a = TC_TILED;
    else if (strcmp(s, "twopass") == 0)
        *a = TC_TWOPASS;
    else if (strcmp(s, "onepass") == 0)
        *a = TC_ONEPASS;
    else
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    char err[512] = "";
    tc_context *ctx = NULL;
    tc_device_info dev;
    char line[2048];
    int failures = 0;
    if (tc_open(argc > 1 ? argv[1] : "gpu", &ctx, err, sizeof err) != TC_OK) {
        fprintf(stderr, "casebench: %s\n", err);
        return 1;
    }
    tc_context_device(ctx, &dev);
    fprintf(stderr, "casebench: %s, library %s\n", dev.name, tc_version());
    while (fgets(line, sizeof line, stdin)) {
        char label[128] = "", opts[1024] = "", border[32] = "replicate", alg[32] = "tiled";
        char mask_name[32] = "";
        int w = 8192, h = 8192, taps = 3, taps_y = 0, bw = 4, bh = 4, iterations = 30;
        int verify = 0, mask_w = 0, mask_h = 0;
        tc_tuning tuning;
        memset(&tuning, 0, sizeof tuning);
        float mask[15 * 15];
        int roi[6] = {0, 0, 0, 0, 0, 0};
        char *save = NULL;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[strspn(line, " \t")] == '\0')
            continue;
        for (char *tok = strtok_r(line, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
            if (sscanf(tok, "label=%127s", label) == 1 || sscanf(tok, "g=%dx%d", &w, &h) == 2 ||
                sscanf(tok, "roi=%d,%d,%d,%d,%d,%d", &roi[0], &roi[1], &roi[2], &roi[3],
                       &roi[4], &roi[5]) == 6 ||
                sscanf(tok, "f=%d", &taps) == 1 || sscanf(tok, "fy=%d", &taps_y) == 1 ||
                sscanf(tok, "mask=%31s", mask_name) == 1 || sscanf(tok, "b=%31s", border) == 1 ||
                sscanf(tok, "blk=%dx%d", &bw, &bh) == 2 || sscanf(tok, "a=%31s", alg) == 1 ||
                sscanf(tok, "i=%d", &iterations) == 1 || sscanf(tok, "e=%d", &verify) == 1)
                continue;
            if (strncmp(tok, "tune=", 5) == 0) {
                if (tc_tuning_parse(&tuning, tok + 5, err, sizeof err) != 0) {
                    fprintf(stderr, "casebench: %s\n", err);
                    return 2;
                }
                continue;
            }
            if (strncmp(tok, "opts=", 5) == 0) {
                snprintf(opts, sizeof opts, "%s", tok + 5);
                for (char *c = opts; *c; c++)
                    if (*c == ',')
                        *c = ' ';
                continue;
            }
            fprintf(stderr, "casebench: unknown word '%s'\n", tok);
            return 2;
        }
        tc_params p;
        tc_params_init(&p);
        p.taps_x = taps;
        p.taps_y = taps_y ? taps_y : taps;
        if (mask_name[0]) {
            if (mask_of(mask_name, mask, &mask_w, &mask_h) != 0) {
                fprintf(stderr, "casebench: unknown mask '%s'\n", mask_name);
                return 2;
            }
            p.mask = mask;
            p.mask_width = mask_w;
            p.mask_height = mask_h;
        }
        p.src_left = roi[0];
        p.src_top = roi[1];
        p.dst_left = roi[2];
        p.dst_top = roi[3];
        p.roi_width = roi[4];
        p.roi_height = roi[5];
        p.block_width = bw;
        p.block_height = bh;
        p.border_value = 7.5f;
        if (border_of(border, &p.border) || algorithm_of(alg, &p.algorithm) || !label[0]) {
            fprintf(stderr, "casebench: bad case '%s'\n", label);
            return 2;
        }
        if (opts[0])
            snprintf(tuning.cl_options, sizeof tuning.cl_options, "%s", opts);
        if (make_image(w, h) != 0) {
            fprintf(stderr, "casebench: out of memory\n");
            return 1;
        }
        tc_set_tuning(&tuning);
        tc_stats st;
        double copy_ms = -1.0;
        if (tc_filter_timed(ctx, image, result, w, h, &p, iterations) != TC_OK ||
            tc_last_stats(ctx, &st) != TC_OK) {
            printf("{\"label\": \"%s\", \"error\": \"%s\"}\n", label, tc_error(ctx));
            fflush(stdout);
            failures++;
            tc_set_tuning(NULL);
            continue;
        }
        const size_t bytes = (size_t)st.roi_width * (size_t)st.roi_height * 4;
        const int repeats = iterations < 5 ? 5 : iterations > 100 ? 100 : iterations;
        if (tc_copy_time(ctx, bytes, repeats, &copy_ms) != TC_OK)
            copy_ms = -1.0;
        const char *verdict = "null";
        double worst = 0.0;
        /* The multiply-adds the filter needs per output pixel (taps_x + taps_y, or a mask's
         * width x height): what "% of the FMA peak" counts, not what a kernel spends on halos. */
        const int fma = mask_w ? mask_w * mask_h : p.taps_x + p.taps_y;
        const double pixels = (double)st.roi_width * (double)st.roi_height;
        if (verify) {
            if (!expected)
                expected = malloc((size_t)w * h * sizeof *expected);
            double tol = tc_tolerance(image, w, h, &p);
            if (!expected || tc_reference(image, expected, w, h, &p, err, sizeof err) != TC_OK) {
                verdict = "\"reference failed\"";
            } else {
                long bad = 0;
                for (size_t i = 0; i < (size_t)w * h; i++) {
                    double d = fabs((double)result[i] - (double)expected[i]);
                    if (!(d <= tol))
                        bad++;
                    if (d > worst)
                        worst = d;
                }
                verdict = bad ? "false" : "true";
                failures += bad != 0;
            }
        }
        printf("{\"label\": \"%s\", \"opts\": \"%s\", \"algorithm\": \"%s\", \"g\": \"%dx%d\", "
               "\"roi\": [%d, %d, %d, %d, %d, %d], \"taps\": %d, \"border\": \"%s\", "
               "\"block\": \"%dx%d\", \"iterations\": %d, \"kernel_ms_median\": %.6f, "
               "\"kernel_ms_min\": %.6f, \"copy_ms\": %.6f, \"copy_fraction\": %.4f, "
               "\"wall_ms_per_iteration\": %.6f, \"build_ms\": %.1f, "
               "\"classes\": [%ld, %ld, %ld, %ld], \"verified\": %s, \"max_diff\": %.3g, "
               "\"taps_y\": %d, \"mask\": \"%s\", \"fma_per_pixel\": %d, "
               "\"gfma_per_s\": %.1f}\n",
               label, opts, alg, w, h, p.src_left, p.src_top, p.dst_left, p.dst_top,
               st.roi_width, st.roi_height, taps, border, st.block[0], st.block[1], iterations,
               st.kernel_ms_median, st.kernel_ms_min, copy_ms,
               copy_ms > 0 ? copy_ms / st.kernel_ms_median : 0.0, st.wall_ms_per_iteration,
               st.build_ms, st.classes[0], st.classes[1], st.classes[2], st.classes[3], verdict,
               worst, p.taps_y, mask_name, fma, fma * pixels / (st.kernel_ms_median * 1e6));
        fflush(stdout);
        tc_set_tuning(NULL);
    }
    tc_close(ctx);
    free(image);
    free(result);
    free(expected);
    return failures ? 1 : 0;
}
