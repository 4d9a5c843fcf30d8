/*
 * percall.c - what one tc_filter_image call costs from C, on a 1920 x 1080 uint8 image (5 x 5
 * binomial): in ordinary memory with the library's copies on 1, 2, 4 and 8 threads (each in a
 * context of its own), by staging chunk, and in the context's page-locked memory
 * (tc_host_alloc), gray and colour; beside it a one-thread memcpy of the gray image's bytes,
 * and each direction's copies alone (one side in ordinary memory, the other page-locked); the
 * host's own copy rate into and out of page-locked memory on 1 to 8 threads; 16 gray
 * images a tc_filter_images call (a batch lane's calls, one image's bytes), per image; and 300
 * distinct ones (a Python batch's, beyond the host's caches); then the copies as plain memcpy
 * (--tune copy-stream=0) against the default's streaming stores; the host's copy rate out of
 * every cache (600 MB on 1 to 16 threads), the bound of a batch's copies. Each line: the wall time
 * of a call (min, median, 90th percentile of 200 after 10 untimed) and the device's own times
 * from tc_last_stats (upload, conversions, kernel, download; means), so that what the host
 * adds shows as the difference. A diagnostic beside bench/python_arrays.py (which times the
 * same from Python with its peers); not a scenario of bench/run.
 *
 *   make lib
 *   cc -std=c11 -O2 -Iinclude bench/percall.c -Lbuild/lib -ltiledconv -pthread \
 *       -Wl,-rpath,"$PWD/build/lib" -o build/percall
 *   build/percall [DEVICE]          DEVICE as tiledconv's --device (default gpu)
 */
#define _GNU_SOURCE /* pthread_barrier_t */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "probe_time.h"
#include "tiledconv.h"
#include "tiledconv_internal.h"

#define WIDTH 1920
#define HEIGHT 1080
#define WARMUP 10
#define CALLS 200
#define BATCH 16

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
        const double t0 = probe_now_ms();
        if (tc_filter_image(ctx, &src, &dst, &p) != TC_OK) {
            fprintf(stderr, "percall: %s: %s\n", what, tc_error(ctx));
            return -1;
        }
        if (i < WARMUP)
            continue;
        wall[i - WARMUP] = probe_now_ms() - t0;
        tc_stats st;
        tc_last_stats(ctx, &st);
        up += st.upload_ms;
        conv += st.convert_ms;
        kernel += st.kernel_ms_median;
        down += st.download_ms;
    }
    qsort(wall, CALLS, sizeof wall[0], probe_ascending);
    printf("%-44s min %.3f  median %.3f  p90 %.3f ms | device: up %.3f  conversions %.3f  "
           "kernel %.3f  down %.3f ms\n",
           what, wall[0], wall[CALLS / 2], wall[CALLS * 9 / 10], up / CALLS, conv / CALLS,
           kernel / CALLS, down / CALLS);
    return 0;
}

/* Threads that copy their part of a buffer when told, for parallel_copy_ms. */
typedef struct {
    pthread_barrier_t *start, *end;
    unsigned char *dst;
    const unsigned char *src;
    size_t n;
    int rounds;
} copier_arg;

static void *copy_parts(void *arg)
{
    copier_arg *a = arg;
    for (int r = 0; r < a->rounds; r++) {
        pthread_barrier_wait(a->start);
        memcpy(a->dst, a->src, a->n);
        pthread_barrier_wait(a->end);
    }
    return NULL;
}

/* The median wall time of copying n bytes from src to dst split among k threads (the caller
 * one of them, k <= 16), `rounds` rounds (at most CALLS). */
static double parallel_copy_rounds(unsigned char *dst, const unsigned char *src, size_t n, int k,
                                   int rounds)
{
    pthread_barrier_t start, end;
    pthread_t threads[16];
    copier_arg args[16];
    double t[CALLS];
    pthread_barrier_init(&start, NULL, (unsigned)k);
    pthread_barrier_init(&end, NULL, (unsigned)k);
    for (int i = 0; i < k; i++) {
        const size_t lo = n * (size_t)i / (size_t)k, hi = n * (size_t)(i + 1) / (size_t)k;
        args[i] = (copier_arg){&start, &end, dst + lo, src + lo, hi - lo, rounds};
        if (i > 0 && pthread_create(&threads[i], NULL, copy_parts, &args[i]) != 0) {
            fprintf(stderr, "percall: no thread for the copies\n");
            exit(1);
        }
    }
    for (int r = 0; r < rounds; r++) {
        const double t0 = probe_now_ms();
        pthread_barrier_wait(&start);
        memcpy(args[0].dst, args[0].src, args[0].n);
        pthread_barrier_wait(&end);
        t[r] = probe_now_ms() - t0;
    }
    for (int i = 1; i < k; i++)
        pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&start);
    pthread_barrier_destroy(&end);
    qsort(t, (size_t)rounds, sizeof t[0], probe_ascending);
    return t[rounds / 2];
}

static double parallel_copy_ms(unsigned char *dst, const unsigned char *src, size_t n, int k)
{
    return parallel_copy_rounds(dst, src, n, k, CALLS);
}

/* BATCH gray images in one tc_filter_images call, all from in (one image's bytes) into out,
 * 50 calls after 3: the median per image. one_thread: the copies on the caller's thread
 * alone (as a batch's lane does where the codecs are the bound). 0, or -1. */
static int time_batch(tc_context *ctx, const char *what, unsigned char *in, unsigned char *out,
                      int one_thread)
{
    tc_image src[BATCH], dst[BATCH];
    tc_params p;
    double t[50];
    tc_params_init(&p);
    p.taps_x = p.taps_y = 5;
    for (int i = 0; i < BATCH; i++) {
        src[i] = (tc_image){TC_PIXELS_U8, WIDTH, HEIGHT, 1, in, WIDTH, NULL, 0};
        dst[i] = (tc_image){TC_PIXELS_U8, WIDTH, HEIGHT, 1, out, WIDTH, NULL, 0};
    }
    tc_copy_threads_here(one_thread ? 1 : 0);
    for (int i = 0; i < 53; i++) {
        const double t0 = probe_now_ms();
        if (tc_filter_images(ctx, src, dst, BATCH, &p) != TC_OK) {
            fprintf(stderr, "percall: %s: %s\n", what, tc_error(ctx));
            return -1;
        }
        if (i >= 3)
            t[i - 3] = (probe_now_ms() - t0) / BATCH;
    }
    tc_copy_threads_here(0);
    qsort(t, 50, sizeof t[0], probe_ascending);
    printf("%-56s median %.3f ms an image\n", what, t[25]);
    return 0;
}

/* MANY distinct gray images in one tc_filter_images call, each with its own input and output
 * in ordinary memory (600 MB each side: out of the host's caches, as a Python batch's list of
 * arrays is, where time_batch's images share one buffer and stay cached), 5 calls after 1:
 * the median per image. 0, or -1. */
#define MANY 300
static int time_many(tc_context *ctx, const char *what)
{
    const size_t n = (size_t)WIDTH * HEIGHT;
    tc_image *src = calloc(MANY, sizeof *src), *dst = calloc(MANY, sizeof *dst);
    unsigned char *in = malloc(n * MANY), *out = malloc(n * MANY);
    tc_params p;
    double t[5];
    int rc = -1;
    if (!src || !dst || !in || !out) {
        fprintf(stderr, "percall: %s: no memory\n", what);
        goto done;
    }
    for (size_t i = 0; i < n * MANY; i++)
        in[i] = (unsigned char)(i * 7 + i / 4093);
    memset(out, 0, n * MANY);
    tc_params_init(&p);
    p.taps_x = p.taps_y = 5;
    for (int i = 0; i < MANY; i++) {
        src[i] = (tc_image){TC_PIXELS_U8, WIDTH, HEIGHT, 1, in + n * i, WIDTH, NULL, 0};
        dst[i] = (tc_image){TC_PIXELS_U8, WIDTH, HEIGHT, 1, out + n * i, WIDTH, NULL, 0};
    }
    for (int i = 0; i < 6; i++) {
        const double t0 = probe_now_ms();
        if (tc_filter_images(ctx, src, dst, MANY, &p) != TC_OK) {
            fprintf(stderr, "percall: %s: %s\n", what, tc_error(ctx));
            goto done;
        }
        if (i >= 1)
            t[i - 1] = (probe_now_ms() - t0) / MANY;
    }
    qsort(t, 5, sizeof t[0], probe_ascending);
    printf("%-56s median %.3f ms an image (min %.3f, max %.3f)\n", what, t[2], t[0], t[4]);
    /* The host's own rate on those bytes, out of every cache: the bound of the batch's copies
     * (each image crosses the memory bus four times on the host: read and written going in,
     * read and written coming out). Once, beside the first such line. */
    static int rates_said;
    for (int k = 1; k <= 16 && !rates_said; k *= 2) {
        const double ms = parallel_copy_rounds(out, in, n * MANY, k, 5);
        printf("memcpy of %d images (%zu MB) on %2d threads: median %.1f ms, %.1f GB/s "
               "(%.3f ms an image)\n", MANY, n * MANY >> 20, k, ms, (double)(n * MANY) / ms * 1e-6,
               ms / MANY);
    }
    rates_said = 1;
    rc = 0;
done:
    free(src);
    free(dst);
    free(in);
    free(out);
    return rc;
}

/* A study setting, said on failure. */
/* The calls in ordinary memory again after a change of tuning, each label ending in `tag`:
 * gray and colour images one a call, 16 gray images a call (where `batch`; into pout,
 * page-locked) and 300 distinct ones. 0, or -1. */
static int time_ordinary(tc_context *ctx, const char *tag, unsigned char *in, unsigned char *out,
                         unsigned char *pout, int batch)
{
    char gray[96], colour[96], sixteen[96], many[96];
    snprintf(gray, sizeof gray, "gray, ordinary%s", tag);
    snprintf(colour, sizeof colour, "colour, ordinary%s", tag);
    snprintf(sixteen, sizeof sixteen, "16 gray images a call, ordinary in%s", tag);
    snprintf(many, sizeof many, "300 distinct gray images a call%s", tag);
    if (time_calls(ctx, gray, in, out, 1) || time_calls(ctx, colour, in, out, 3) ||
        (batch && time_batch(ctx, sixteen, in, pout, 0)) || time_many(ctx, many))
        return -1;
    return 0;
}

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
    /* Each width in a context of its own: a context's copy crew is made once, on its first
     * copies, with the width of that moment, and a narrower setting later only uses fewer of
     * its threads (so a crew made at 2 never copies on 4). */
    static const char *const widths[] = {"1", "2", "4", "8", "12", "15"};
    for (int i = 0; i < 6; i++) {
        tc_context *own;
        snprintf(what, sizeof what, "copy-threads=%s", widths[i]);
        tune(what);
        if (tc_open(argc > 1 ? argv[1] : "gpu", &own, err, sizeof err) != TC_OK) {
            fprintf(stderr, "percall: %s\n", err);
            return 1;
        }
        snprintf(what, sizeof what, "gray, ordinary, copy-threads=%s", widths[i]);
        if (time_calls(own, what, in, out, 1) ||
            (i == 3 && time_calls(own, "colour, ordinary, copy-threads=8", in, out, 3)) ||
            (i == 3 && time_batch(own, "16 gray images a call, ordinary in, copy-threads=8", in,
                                  out, 0)) ||
            (i >= 3 && time_many(own, what)))
            return 1;
        tc_close(own);
    }
    tune("copy-threads="); /* the default crew from here on (half the cores, 2 to 8) */
    static const char *const chunks[] = {"262144", "524288", "1048576"};
    for (int i = 0; i < 3; i++) {
        snprintf(what, sizeof what, "staging-chunk=%s", chunks[i]);
        tune(what);
        snprintf(what, sizeof what, "gray, ordinary, staging-chunk=%s", chunks[i]);
        if (time_calls(ctx, what, in, out, 1))
            return 1;
    }
    tune("staging-chunk="); /* the defaults again */
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
        const double t0 = probe_now_ms();
        memcpy(out, in, n / 3);
        t[i] = probe_now_ms() - t0;
    }
    qsort(t, CALLS, sizeof t[0], probe_ascending);
    printf("one-thread memcpy of the gray image's %zu bytes: median %.3f ms\n", n / 3,
           t[CALLS / 2]);
    /* The host's own bound on the copies: the gray image's bytes into page-locked memory and
     * out of it, split among 1..8 threads started once (what the copy crew does, without the
     * device). */
    for (int k = 1; k <= 8; k *= 2) {
        const double into = parallel_copy_ms(pin, in, n / 3, k);
        const double back = parallel_copy_ms(out, pin, n / 3, k);
        printf("memcpy of %zu bytes on %d threads: into page-locked memory median %.3f ms, "
               "out of it %.3f ms\n",
               n / 3, k, into, back);
    }
    if (time_batch(ctx, "16 gray images a call, page-locked", pin, pout, 0) ||
        time_batch(ctx, "16 gray images a call, ordinary in", in, pout, 0) ||
        time_batch(ctx, "16 gray images a call, ordinary in, copies on 1 thread", in, pout, 1) ||
        time_many(ctx, "300 distinct gray images a call, ordinary in and out"))
        return 1;
    /* The copies as plain memcpy (the caches' way) against the default's streaming stores,
     * then the default again, for the order's sake. */
    tune("copy-stream=0");
    if (time_ordinary(ctx, ", copy-stream=0", in, out, pout, 1))
        return 1;
    tune("copy-stream=");
    if (time_ordinary(ctx, " (default again)", in, out, pout, 0))
        return 1;
    tc_host_free(ctx, pin);
    tc_host_free(ctx, pout);
    tc_close(ctx);
    free(in);
    free(out);
    return 0;
}
