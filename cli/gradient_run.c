/* gradient_run.c - --gradient sobel|scharr on the command line (gradient_run.h): the library's
 * tc_gradient run one read at a time and, for comparison, as the two filters apart; -e's
 * checks, the timings, the records. */
#include "gradient_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "sha256.h"
#include "test_hooks.h"
#include "verify.h"

/* The methods as the reports name them, per operator. */
static const char *const method_names[2][2] = {
    {"gradient-sobel", "gradient-sobel-separate"},
    {"gradient-scharr", "gradient-scharr-separate"},
};

/* Bytes per target pixel the two filters apart move: each filter reads the plane and writes
 * its derivative (8 + 8), the magnitude kernel reads both and writes one (12). */
#define SEPARATE_BYTES_PER_PIXEL 28

/* How many mismatches -e prints before it only counts them (verify.c's number). */
#define MAX_REPORTED_MISMATCHES 10

void gradient_planes_free(gradient_planes *g)
{
    tc_plane_free(&g->gx);
    tc_plane_free(&g->gy);
    tc_plane_free(&g->magnitude);
}

int gradient_bytes_per_pixel(const tc_options *o)
{
    return o->raw_output ? 16 : 8;
}

static int exit_status(int tc_status)
{
    return tc_status == TC_OK ? 0 : tc_status == TC_EINVAL ? 2 : 1;
}

/* The magnitude (unless g has it already), and with --raw gx and gy, of one image size, into
 * g (zeroed by the caller). 0, or -1 (out of memory). */
static int planes_alloc(gradient_planes *g, int derivatives, int width, int height)
{
    return (!g->magnitude.px && tc_plane_alloc(&g->magnitude, width, height)) ||
           (derivatives && (tc_plane_alloc(&g->gx, width, height) ||
                            tc_plane_alloc(&g->gy, width, height)))
               ? -1
               : 0;
}

/* -e for one method: the magnitude (and with --raw gx and gy) against the reference, the
 * verdict printed; r's verification fields filled. Returns the number of mismatches. */
static long verify(const tc_options *o, const gradient_planes *expected,
                   const gradient_planes *actual, double tol_m, double tol_g,
                   const tc_roi *roi, tc_result *r)
{
    const int machine = o->format != TC_FORMAT_TABLE, chatty = !o->quiet && !machine;
    const int count = actual->gx.px ? 3 : 1;
    const tc_plane *exp[3] = {&expected->magnitude, &expected->gx, &expected->gy};
    const tc_plane *act[3] = {&actual->magnitude, &actual->gx, &actual->gy};
    static const char *const names[3] = {"magnitude", "gx", "gy"};
    const int w = actual->magnitude.width, h = actual->magnitude.height;
    long total = 0;
    if (chatty && count == 3)
        printf("verification, %s: every pixel of the %d x %d magnitude, gx and gy against the "
               "CPU reference (tolerance %.3g for the magnitude, %.3g for gx and gy inside the "
               "target ROI, exact outside)\n",
               r->algorithm, w, h, tol_m, tol_g);
    else if (chatty)
        printf("verification, %s: every pixel of the %d x %d magnitude against the CPU "
               "reference (tolerance %.3g inside the target ROI, exact outside)\n",
               r->algorithm, w, h, tol_m);
    r->max_error = 0.0;
    for (int c = 0; c < count; c++) {
        const double tol = c == 0 ? tol_m : tol_g;
        const tc_verify_result v = verify_compare(exp[c], act[c], roi, tol,
                                                  machine ? NULL : stdout,
                                                  MAX_REPORTED_MISMATCHES);
        if (count > 1 && chatty)
            printf("  %s: %s, %ld mismatches (tolerance %.3g, largest difference %.3g)\n",
                   names[c], v.mismatches ? "FAILED" : "ok", v.mismatches, tol, v.max_error);
        total += v.mismatches;
        if (c == 0)
            r->max_error = v.max_error;
    }
    r->tolerance = tol_m;
    verify_settle(r, total, machine);
    if (!machine && total)
        printf("FAILED: %ld of %ld values differ (largest difference of the magnitude %.3g)\n",
               total, (long)w * h * count, r->max_error);
    if (total)
        fprintf(stderr, "tiledconv: verification FAILED for %s: %ld mismatches\n", r->algorithm,
                total);
    return total;
}

/* The timing fields of r for a method's runs: report.c's, with the bytes the one-read pass
 * must move per target pixel (8, or 16 with --raw) instead of a filter's 8, and the copy floor
 * scaled to the same bytes (one copy of a plane moves 8 bytes per pixel). */
static void fill_timing(tc_result *r, const tc_stats *s, double copy_ms, int bytes)
{
    report_times t;
    memset(&t, 0, sizeof t);
    t.iterations = s->iterations;
    t.kernel_ms = (double *)s->kernel_ms;
    t.passes = 1;
    t.build_ms = s->build_ms;
    t.h2d_ms = s->upload_ms;
    t.d2h_ms = s->download_ms;
    t.wall_ms_per_iteration = s->wall_ms_per_iteration;
    report_fill_timing(r, &t, copy_ms);
    r->gbytes_per_s *= bytes / 8.0;
    r->copy_ms *= bytes / 8.0;
    r->copy_fraction = r->copy_ms / r->kernel_ms_median;
}

/* -t for the one-read pass: report.c's block, in words that say what the gradient moves. */
static void print_timing(const tc_options *o, const tc_result *r, int bytes)
{
    const double roi_mb = 4.0 * r->roi_width * (double)r->roi_height / 1e6;
    printf("timing, %s (ms; %d timed iteration%s after 1 warm-up, from profiling events):\n",
           r->algorithm, r->iterations, r->iterations == 1 ? "" : "s");
    printf("  kernel           min %10.4f   median %10.4f   mean %10.4f\n", r->kernel_ms_min,
           r->kernel_ms_median, r->kernel_ms_mean);
    printf("  copy floor                  median %10.4f   (clEnqueueCopyBuffer of the ROI's "
           "%.2f MB%s)\n",
           r->copy_ms, roi_mb, bytes == 16 ? ", twice: the bytes of 1 plane read, 3 written" : "");
    printf("  program build    %10.2f%s\n", r->build_ms,
           r->build_ms == 0.0 ? "   (already built in this process)" : "");
    printf("  host to device   %10.4f   (input plane)\n", r->h2d_ms);
    printf("  device to host   %10.4f   (%s)\n", r->d2h_ms,
           o->raw_output ? "magnitude, gx and gy planes" : "magnitude plane");
    printf("throughput, %s (median kernel time):\n", r->algorithm);
    printf("  %10.2f MPixels/s of the target ROI\n", r->mpixels_per_s);
    printf("  %10.2f GB/s effective, counting %d bytes per pixel (one float read, %s written)\n",
           r->gbytes_per_s, bytes, bytes == 16 ? "gx, gy and the magnitude" : "the magnitude");
    printf("  %10.1f %% of the device's copy bandwidth (%.2f GB/s for the same bytes)\n",
           100.0 * r->copy_fraction, r->copy_gbytes_per_s);
    printf("Throughput = %.4f MPixels/sec, Time = %.5f s, Size = %ld Pixels\n", r->mpixels_per_s,
           r->kernel_ms_median * 1e-3, (long)r->roi_width * (long)r->roi_height);
}

/* -t's last line: what the one read buys against the two filters apart. */
static void print_comparison_line(const tc_result *one, const tc_result *separate, int bytes)
{
    printf("comparison: the two filters apart (%s-x and %s-y on the tiled kernel, then a "
           "magnitude kernel) take %.4f ms (median), %.2fx the one-read pass; they move %d bytes "
           "per pixel, the one read %d\n",
           strstr(one->algorithm, "scharr") ? "scharr" : "sobel",
           strstr(one->algorithm, "scharr") ? "scharr" : "sobel", separate->kernel_ms_median,
           separate->kernel_ms_median / one->kernel_ms_median, SEPARATE_BYTES_PER_PIXEL, bytes);
}

/* -a all -t: the two methods in one table, as the filters' -a all table. */
static void print_table(const tc_result *rows, int count, int bytes)
{
    printf("\n%d x %d image, %d x %d ROI, %s, %d iterations; times in ms from profiling events; "
           "copy floor %.4f ms\n",
           rows[0].width, rows[0].height, rows[0].roi_width, rows[0].roi_height,
           rows[0].algorithm, rows[0].iterations, rows[0].copy_ms);
    printf("%-26s %10s %10s %11s %9s %8s %12s  %s\n", "method", "median", "min", "MPixels/s",
           "GB/s", "% copy", "vs one-read", "verification");
    for (int i = 0; i < count; i++) {
        const tc_result *r = &rows[i];
        printf("%-26s %10.4f %10.4f %11.1f %9.2f %7.1f%% %11.2fx  %s\n", r->algorithm,
               r->kernel_ms_median, r->kernel_ms_min, r->mpixels_per_s, r->gbytes_per_s,
               100.0 * r->copy_fraction, r->kernel_ms_median / rows[0].kernel_ms_median,
               r->verified < 0 ? "not checked" : r->verified ? "PASSED" : "FAILED");
    }
    printf("GB/s and %% copy count the %d bytes per target pixel the result needs (one float "
           "read, %s written); the two filters apart move %d (each filter 8, the magnitude "
           "12).\n",
           bytes, bytes == 16 ? "gx, gy and the magnitude" : "the magnitude",
           SEPARATE_BYTES_PER_PIXEL);
}

/* -v: the one-read launch and its work-groups' classes. */
static void print_geometry(const tc_stats *s)
{
    printf("launch, gradient one-read: global %zu x %zu, local %zu x %zu, %zu work-groups\n",
           s->global[0], s->global[1], s->local[0], s->local[1],
           (s->global[0] / s->local[0]) * (s->global[1] / s->local[1]));
    printf("  blocks of %d x %d pixels per work-item; work-group classes (radius 1, %s): class 1 "
           "(free on read) %ld, class 2 (checks reads) %ld, class 3 (free on write) %ld, class 4 "
           "(checks writes) %ld\n",
           s->block[0], s->block[1], s->classes_counted ? "counted by the kernel" : "predicted",
           s->classes[0], s->classes[1], s->classes[2], s->classes[3]);
}

/* The record's fields that do not depend on the run. */
static void result_begin(tc_result *r, const char *name, const tc_options *o,
                         const tc_device_info *dev, const tc_plane *in, const tc_roi *roi)
{
    memset(r, 0, sizeof *r);
    r->algorithm = name;
    r->device = dev->name;
    r->taps = r->taps_y = 3; /* the operators are 3 x 3 */
    r->mask = "none";
    r->planes = 1;
    r->width = in->width;
    r->height = in->height;
    r->roi_width = roi->width;
    r->roi_height = roi->height;
    r->iterations = o->iterations;
    r->verified = -1;
    r->type = "image";
}

/* -e's digest: the SHA-256 of the 8-bit image the magnitude gives. 0, or 1 (reported). */
static int digest(const tc_options *o, const tc_plane *magnitude, const tc_roi *roi,
                  char hex[65])
{
    const size_t n = (size_t)magnitude->width * (size_t)magnitude->height;
    uint8_t *bytes = malloc(n);
    if (!bytes) {
        fprintf(stderr, "tiledconv: out of host memory for the output's digest\n");
        return 1;
    }
    tc_plane_to_gray8(magnitude, roi, o->out_scale, o->out_offset, bytes);
    sha256_hex(bytes, n, hex);
    free(bytes);
    return 0;
}

int gradient_run(const tc_options *o, tc_context *ctx, const tc_device_info *dev, tc_plane *in,
                 const tc_roi *roi, const tc_params *params, gradient_planes *out,
                 int *failed_verification)
{
    const tc_gradient_operator op = (tc_gradient_operator)(o->gradient - 1);
    const int machine = o->format != TC_FORMAT_TABLE;
    const int timed = o->timing || machine;
    /* The two filters apart run where they are compared: -a all, and any timing (-t's last
     * line, a record of their own). */
    const int methods = o->gradient_compare || timed ? 2 : 1;
    const int derivatives = o->raw_output != NULL, bytes = gradient_bytes_per_pixel(o);
    const int w = in->width, h = in->height;
    gradient_planes expected, separate;
    tc_result results[2];
    double copy_ms = 0.0, tol_m = 0.0, tol_g = 0.0;
    char err[512];
    int status = 0;

    memset(out, 0, sizeof *out);
    memset(&expected, 0, sizeof expected);
    memset(&separate, 0, sizeof separate);
    if (o->verify) {
        if (planes_alloc(&expected, derivatives, w, h)) {
            fprintf(stderr, "tiledconv: out of host memory for the reference planes\n");
            status = 1;
            goto done;
        }
        if ((status = tc_gradient_reference(in->px, expected.gx.px, expected.gy.px,
                                            expected.magnitude.px, w, h, op, params, err,
                                            sizeof err)) != TC_OK) {
            fprintf(stderr, "tiledconv: reference: %s\n", err);
            status = exit_status(status);
            goto done;
        }
        tol_m = tc_gradient_tolerance(in->px, w, h, op, params, &tol_g);
    }
    if (timed) {
        const int repeats = o->iterations < 5 ? 5 : o->iterations > 100 ? 100 : o->iterations;
        if ((status = tc_copy_time(ctx, (size_t)roi->width * (size_t)roi->height * 4, repeats,
                                   &copy_ms)) != TC_OK) {
            fprintf(stderr, "tiledconv: copy floor: %s\n", tc_error(ctx));
            status = exit_status(status);
            goto done;
        }
    }
    /* The one-read magnitude goes into the input plane when nothing reads the input after it
     * (the reference is made): one plane fewer at the peak. */
    if (methods == 1) {
        out->magnitude = *in;
        memset(in, 0, sizeof *in);
    }
    if (planes_alloc(out, derivatives, w, h) ||
        (methods == 2 && planes_alloc(&separate, derivatives, w, h))) {
        fprintf(stderr, "tiledconv: out of host memory for the gradient's planes\n");
        status = 1;
        goto done;
    }
    for (int m = 0; m < methods; m++) {
        gradient_planes *g = m == 0 ? out : &separate;
        const float *src = m == 0 && methods == 1 ? out->magnitude.px : in->px;
        tc_result *r = &results[m];
        tc_stats s;
        result_begin(r, method_names[op][m], o, dev, m == 0 && methods == 1 ? &out->magnitude : in,
                     roi);
        status = timed ? tc_gradient_timed(ctx, src, g->gx.px, g->gy.px, g->magnitude.px, w, h,
                                           op, (tc_gradient_method)m, params, o->iterations)
                       : tc_gradient(ctx, src, g->gx.px, g->gy.px, g->magnitude.px, w, h, op,
                                     (tc_gradient_method)m, params);
        if (status != TC_OK) {
            fprintf(stderr, "tiledconv: %s: %s\n", r->algorithm, tc_error(ctx));
            status = exit_status(status);
            goto done;
        }
        tc_last_stats(ctx, &s);
        if (m == 0 && o->verbose && !machine)
            print_geometry(&s);
        if (timed)
            fill_timing(r, &s, copy_ms, bytes);
        if (m == 0)
            test_hook_corrupt(g->magnitude.px, g->magnitude.width, g->magnitude.height);
        if (o->verify) {
            if (verify(o, &expected, g, tol_m, tol_g, roi, r))
                *failed_verification = 1;
            if ((status = digest(o, &g->magnitude, roi, r->sha256)) != 0)
                goto done;
        }
    }
    if (!machine && o->timing && o->gradient_compare) {
        print_table(results, methods, bytes);
    } else if (!machine && o->timing) {
        print_timing(o, &results[0], bytes);
        print_comparison_line(&results[0], &results[1], bytes);
    }
    if (o->format == TC_FORMAT_CSV)
        report_csv_header(stdout);
    for (int m = 0; machine && m < methods; m++)
        (o->format == TC_FORMAT_CSV ? report_csv : report_json)(stdout, &results[m]);
    status = 0;
done:
    gradient_planes_free(&expected);
    gradient_planes_free(&separate);
    if (status != 0)
        gradient_planes_free(out);
    return status;
}
