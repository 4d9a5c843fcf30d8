/*
 * main.c - tiledconv's command line: read the input, open the device, run the chosen
 * algorithm(s), check against the CPU reference, report, write the output. Nothing here
 * computes pixels; see convolve.c (device), reference.c (CPU) and bmp.c (files).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bmp.h"
#include "cli.h"
#include "convolve.h"
#include "filter.h"
#include "ocl_util.h"
#include "outfile.h"
#include "reference.h"
#include "report.h"
#include "synth.h"

/* How many mismatches -e prints before it only counts them. */
#define MAX_REPORTED_MISMATCHES 10

/* The input plane from -s or -g. Returns 0, or 2 (reported): the input cannot be used. */
static int load_input(const tc_options *o, tc_plane *plane)
{
    char err[512];
    bmp_image img;
    if (o->synth_width) {
        if (tc_plane_alloc(plane, o->synth_width, o->synth_height)) {
            fprintf(stderr, "tiledconv: -g %dx%d: out of host memory\n", o->synth_width,
                    o->synth_height);
            return 2;
        }
        synth_fill(plane);
        return 0;
    }
    if (bmp_load(o->input, &img, err, sizeof err)) {
        struct stat st;
        if (strcmp(o->input, TC_DEFAULT_INPUT) == 0 && stat(o->input, &st) != 0)
            fprintf(stderr, "tiledconv: %s: the default input is missing here; give one with "
                            "-s FILE, or -g WxH for a synthetic image\n", o->input);
        else
            fprintf(stderr, "tiledconv: %s\n", err);
        return 2;
    }
    if (tc_plane_alloc(plane, img.width, img.height)) {
        fprintf(stderr, "tiledconv: %s: out of host memory for %d x %d\n", o->input, img.width,
                img.height);
        bmp_free(&img);
        return 2;
    }
    tc_plane_from_rgb(plane, img.rgb);
    bmp_free(&img);
    return 0;
}

/* The planes (input, output, the two-pass temporary) must fit the device. */
static int check_device_fits(const tc_options *o, const ocl_env *env, const tc_plane *in)
{
    unsigned long long bytes = (unsigned long long)in->width * (unsigned long long)in->height * 4;
    if (bytes > env->max_alloc_size || 3 * bytes > env->global_mem_size) {
        fprintf(stderr, "tiledconv: %s: a %d x %d plane needs %.1f MB per buffer (3 buffers); "
                        "%s allows %.1f MB per buffer and %.1f MB in all\n",
                o->synth_width ? "-g" : o->input, in->width, in->height, (double)bytes / 1e6,
                env->device_name, (double)env->max_alloc_size / 1e6,
                (double)env->global_mem_size / 1e6);
        return 2;
    }
    return 0;
}

/* Test-only fault injection, so that the tests can show -e catching a wrong pixel:
 * TILEDCONV_TEST_CORRUPT="x,y" adds 1 to that pixel of the device's result. */
static void inject_test_fault(tc_plane *out)
{
    const char *spec = getenv("TILEDCONV_TEST_CORRUPT");
    int x, y;
    if (spec && sscanf(spec, "%d,%d", &x, &y) == 2 && x >= 0 && y >= 0 && x < out->width &&
        y < out->height)
        out->px[(size_t)y * (size_t)out->width + (size_t)x] += 1.0f;
}

static void print_header(const tc_options *o, const ocl_env *env, const tc_plane *in,
                         const tc_roi *roi)
{
    printf("device: %s [platform %d: %s]\n", env->device_name, env->platform_index,
           env->platform_name);
    if (o->synth_width)
        printf("input: synthetic %d x %d\n", in->width, in->height);
    else
        printf("input: %s (%d x %d)\n", o->input, in->width, in->height);
    printf("ROI: %d x %d, source at (%d, %d), target at (%d, %d)\n", roi->width, roi->height,
           roi->src_left, roi->src_top, roi->dst_left, roi->dst_top);
    printf("filter: %d taps,", o->filter.taps);
    for (int i = 0; i < o->filter.taps; i++)
        printf(" %g", o->filter.kx[i]);
    printf(" (rows and columns)\n");
}

static void print_geometry(const tc_run_stats *st, tc_algorithm alg, int radius)
{
    printf("launch, %s: global %zu x %zu, local %zu x %zu, %zu work-groups\n",
           tc_algorithm_name(alg), st->global[0], st->global[1], st->local[0], st->local[1],
           (st->global[0] / st->local[0]) * (st->global[1] / st->local[1]));
    if (alg == TC_ALG_TILED)
        printf("  work-group classes (radius %d): class 1 (free on read) %ld, class 2 (checks "
               "reads) %ld, class 3 (free on write) %ld, class 4 (checks writes) %ld\n",
               radius, st->classes[0], st->classes[1], st->classes[2], st->classes[3]);
}

/* Writes the output image; 0, or 1 when it cannot be written (a run-time failure: the input
 * and the options were fine, the file system said no). */
static int write_output(const char *path, const tc_plane *out)
{
    char err[512];
    uint8_t *gray = outfile_gray8(out);
    int rc;
    if (!gray) {
        fprintf(stderr, "tiledconv: %s: out of host memory\n", path);
        return 1;
    }
    rc = bmp_write_gray8(path, gray, out->width, out->height, err, sizeof err);
    free(gray);
    if (rc) {
        fprintf(stderr, "tiledconv: %s\n", err);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    tc_options o;
    tc_plane in = {0, 0, NULL}, expected = {0, 0, NULL}, out = {0, 0, NULL};
    tc_plane kept = {0, 0, NULL}; /* the first algorithm's output, for the file */
    tc_roi roi;
    ocl_env env;
    tc_session session;
    int env_open = 0, session_open = 0;
    int status, failed_verification = 0;
    char err[512];
    tc_result results[TC_ALG_COUNT];
    int n_results = 0;

    status = cli_parse(argc, argv, &o, stderr);
    if (status)
        return status;
    if (o.help) {
        cli_usage(stdout);
        return 0;
    }
    if (o.version) {
        printf("tiledconv %s\n", TILEDCONV_VERSION);
        return 0;
    }
    if (o.list_devices)
        return ocl_list_devices(stdout);

    const int machine = o.format != TC_FORMAT_TABLE;
    const int chatty = !o.quiet && !machine;

    if ((status = load_input(&o, &in)) != 0)
        goto cleanup;
    if (tc_roi_resolve(&o.roi, in.width, in.height, &roi, err, sizeof err)) {
        fprintf(stderr, "tiledconv: %s\n", err);
        status = 2;
        goto cleanup;
    }
    if (o.write_output && outfile_check(o.output, o.synth_width ? NULL : o.input, err,
                                        sizeof err)) {
        fprintf(stderr, "tiledconv: %s\n", err);
        status = 2;
        goto cleanup;
    }

    if ((status = ocl_env_open(&env, &o.device)) != 0)
        goto cleanup;
    env_open = 1;
    if ((status = check_device_fits(&o, &env, &in)) != 0)
        goto cleanup;
    tc_session_init(&session, &env);
    session_open = 1;
    if (chatty)
        print_header(&o, &env, &in, &roi);

    if (tc_plane_alloc(&out, in.width, in.height) ||
        (o.verify && tc_plane_alloc(&expected, in.width, in.height))) {
        fprintf(stderr, "tiledconv: out of host memory for the output planes\n");
        status = 1;
        goto cleanup;
    }
    double tolerance = 0.0;
    if (o.verify) {
        reference_convolve(&in, &roi, &o.filter, &expected);
        tolerance = reference_tolerance(&in, &o.filter);
    }
    double copy_ms = 0.0;
    if (o.timing || machine) {
        int repeats = o.iterations < 5 ? 5 : o.iterations > 100 ? 100 : o.iterations;
        if ((status = tc_measure_copy(&session, (size_t)roi.width * (size_t)roi.height * 4,
                                      repeats, &copy_ms)) != 0)
            goto cleanup;
    }

    const int first = o.all_algorithms ? 0 : (int)o.algorithm;
    const int last = o.all_algorithms ? TC_ALG_COUNT - 1 : (int)o.algorithm;
    for (int a = first; a <= last; a++) {
        tc_run_stats stats;
        tc_result *r = &results[n_results++];
        memset(r, 0, sizeof *r);
        r->algorithm = tc_algorithm_name((tc_algorithm)a);
        r->device = env.device_name;
        r->taps = o.filter.taps;
        r->width = in.width;
        r->height = in.height;
        r->roi_width = roi.width;
        r->roi_height = roi.height;
        r->iterations = o.iterations;
        r->verified = -1;

        if ((status = tc_algorithm_run((tc_algorithm)a)(&session, &in, &roi, &o.filter,
                                                        o.iterations, &out, &stats)) != 0)
            goto cleanup;
        if (o.verbose && !machine)
            print_geometry(&stats, (tc_algorithm)a, (o.filter.taps - 1) / 2);
        if (o.timing || machine)
            report_fill_timing(r, &stats, copy_ms);
        tc_run_stats_free(&stats);

        inject_test_fault(&out);
        if (o.verify) {
            if (chatty)
                printf("verification, %s: every pixel of the %d x %d output against the CPU "
                       "reference (tolerance %.3g inside the target ROI, exact outside)\n",
                       r->algorithm, in.width, in.height, tolerance);
            tc_verify_result v = reference_compare(&expected, &out, &roi, tolerance,
                                                   machine ? stderr : stdout,
                                                   MAX_REPORTED_MISMATCHES);
            r->verified = v.mismatches == 0;
            r->mismatches = v.mismatches;
            r->tolerance = tolerance;
            r->max_error = v.max_error;
            if (!machine) {
                if (v.mismatches == 0)
                    printf("PASSED (largest difference %.3g)\n", v.max_error);
                else
                    printf("FAILED: %ld of %ld pixels differ (largest difference %.3g)\n",
                           v.mismatches, (long)in.width * in.height, v.max_error);
            }
            if (v.mismatches) {
                fprintf(stderr, "tiledconv: verification FAILED for %s: %ld mismatches\n",
                        r->algorithm, v.mismatches);
                failed_verification = 1;
            }
        }
        if (o.timing && !machine && !o.all_algorithms)
            report_timing(stdout, r);
        if (a == first) { /* the file gets the first algorithm's output (tiled for -a all) */
            kept = out;
            out.px = NULL;
            if (tc_plane_alloc(&out, in.width, in.height)) {
                fprintf(stderr, "tiledconv: out of host memory\n");
                status = 1;
                goto cleanup;
            }
        }
    }

    if (o.all_algorithms && o.timing && !machine)
        report_comparison(stdout, results, n_results);
    if (o.format == TC_FORMAT_CSV)
        report_csv_header(stdout);
    for (int i = 0; machine && i < n_results; i++)
        (o.format == TC_FORMAT_CSV ? report_csv : report_json)(stdout, &results[i]);

    if (failed_verification) {
        /* A result known to be wrong replaces no file. */
        if (chatty && o.write_output)
            printf("output: not written, since verification failed\n");
        status = 1;
        goto cleanup;
    }
    if (o.write_output) {
        if ((status = write_output(o.output, &kept)) != 0)
            goto cleanup;
        if (chatty)
            printf("output: %s (%d x %d, 8-bit grayscale)\n", o.output, kept.width, kept.height);
    }
    status = 0;

cleanup:
    if (session_open)
        tc_session_release(&session);
    if (env_open)
        ocl_env_close(&env);
    tc_plane_free(&kept);
    tc_plane_free(&out);
    tc_plane_free(&expected);
    tc_plane_free(&in);
    return status;
}
