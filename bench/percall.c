/*
 * percall.c - what one tc_filter_image call costs from C, on a 1920 x 1080 uint8 image (5 x 5
 * binomial): in ordinary memory with the library's copies on 1, 2, 4 and 8 threads, by staging
 * chunk, and in the context's page-locked memory (tc_host_alloc), gray and colour; beside it a
 * one-thread memcpy of the gray image's bytes, and each direction's copies alone (one side in
 * ordinary memory, the other page-locked). Each line: the wall time of a call (min, median,
 * 90th percentile of 200 after 10 untimed) and the device's own times from tc_last_stats
 * (upload, conversions, kernel, download; means), so that what the host adds shows as the
 * difference. A diagnostic beside bench/python_arrays.py (which times the same from Python
 * with its peers); not a scenario of bench/run.
 *
 *   make lib
 *   cc -std=c11 -O2 -Iinclude bench/percall.c -Lbuild/lib -ltiledconv \
 *       -Wl,-rpath,"$PWD/build/lib" -o build/percall
 *   build/percall [DEVICE]          DEVICE as tiledconv's --device (default gpu)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tiledconv.h"
#include "tiledconv_internal.h"

#define WIDTH 1920
#define HEIGHT 1080
#define WARMUP 10
#define CALLS 200

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* CALLS calls of one image of `channels` channels from in to out; one line. 0, or -1. */
static int time_calls(tc_context *ctx, const char *what, unsigned char *in, unsigned char *out,
                      int channels)
{
    tc_params p;
    tc_params_init(&p);
    p.taps_x = p.taps_y = 5;
    const tc_image src = {TC_PIXELS_U8, WIDTH, HEIGHT, channels, in, (long)WIDTH * channels,
                          NULL, 0};
    const tc_image dst = {TC_PIXELS_U8, WIDTH, HEIGHT, channels, out, (long)WIDTH * channels,
                          NULL, 0};
    double wall[CALLS], up = 0.0, conv = 0.0, kernel = 0.0, down = 0.0;
    for (int i = 0; i < WARMUP + CALLS; i++) {
        const double t0 = now_ms();
        if (tc_filter_image(ctx, &src, &dst, &p) != TC_OK) {
            fprintf(stderr, "percall: %s: %s\n", what, tc_error(ctx));
            return -1;
        }
        if (i < WARMUP)
            continue;
        wall[i - WARMUP] = now_ms() - t0;
        tc_stats st;
        tc_last_stats(ctx, &st);
        up += st.upload_ms;
        conv += st.convert_ms;
        kernel += st.kernel_ms_median;
        down += st.download_ms;
    }
    qsort(wall, CALLS, sizeof wall[0], by_value);
    printf("%-44s min %.3f  median %.3f  p90 %.3f ms | device: up %.3f  conversions %.3f  "
           "kernel %.3f  down %.3f ms\n",
           what, wall[0], wall[CALLS / 2], wall[CALLS * 9 / 10], up / CALLS, conv / CALLS,
           kernel / CALLS, down / CALLS);
    return 0;
}

/* A study setting, said on failure. */
static void tune(const char *setting)
{
    char err[256];
    if (tc_tune(setting, err, sizeof err) != TC_OK)
        fprintf(stderr, "percall: %s: %s\n", setting, err);
}

int main(int argc, char **argv)
{
    const size_t n = (size_t)WIDTH * HEIGHT * 3;
    tc_context *ctx;
    char err[512], what[64];
    if (tc_open(argc > 1 ? argv[1] : "gpu", &ctx, err, sizeof err) != TC_OK) {
        fprintf(stderr, "percall: %s\n", err);
        return 1;
    }
    unsigned char *in = malloc(n), *out = calloc(n, 1);
    if (!in || !out)
        return 1;
    for (size_t i = 0; i < n; i++)
        in[i] = (unsigned char)(i * 7 + i / WIDTH);
    static const char *const widths[] = {"1", "2", "4", "8"};
    for (int i = 0; i < 4; i++) {
        snprintf(what, sizeof what, "copy-threads=%s", widths[i]);
        tune(what);
        snprintf(what, sizeof what, "gray, ordinary, copy-threads=%s", widths[i]);
        if (time_calls(ctx, what, in, out, 1))
            return 1;
    }
    tune("copy-threads=4");
    if (time_calls(ctx, "colour, ordinary, copy-threads=4", in, out, 3))
        return 1;
    static const char *const chunks[] = {"262144", "524288", "1048576"};
    for (int i = 0; i < 3; i++) {
        snprintf(what, sizeof what, "staging-chunk=%s", chunks[i]);
        tune(what);
        snprintf(what, sizeof what, "gray, ordinary, staging-chunk=%s", chunks[i]);
        if (time_calls(ctx, what, in, out, 1))
            return 1;
    }
    tune("staging-chunk="); /* the defaults again */
    tune("copy-threads=");
    unsigned char *pin = tc_host_alloc(ctx, n), *pout = tc_host_alloc(ctx, n);
    if (!pin || !pout) {
        fprintf(stderr, "percall: no page-locked memory: %s\n", tc_error(ctx));
        return 1;
    }
    memcpy(pin, in, n);
    if (time_calls(ctx, "gray, page-locked", pin, pout, 1) ||
        time_calls(ctx, "colour, page-locked", pin, pout, 3))
        return 1;
    /* Each direction's copies alone: one side ordinary, the other page-locked. */
    if (time_calls(ctx, "gray, ordinary in, page-locked out", in, pout, 1) ||
        time_calls(ctx, "gray, page-locked in, ordinary out", pin, out, 1))
        return 1;
    double t[CALLS];
    for (int i = 0; i < CALLS; i++) {
        const double t0 = now_ms();
        memcpy(out, in, n / 3);
        t[i] = now_ms() - t0;
    }
    qsort(t, CALLS, sizeof t[0], by_value);
    printf("one-thread memcpy of the gray image's %zu bytes: median %.3f ms\n", n / 3,
           t[CALLS / 2]);
    tc_host_free(ctx, pin);
    tc_host_free(ctx, pout);
    tc_close(ctx);
    free(in);
    free(out);
    return 0;
}
