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

#include "atomic_file.h"
#include "bmp.h"
#include "cli.h"
#include "convolve.h"
#include "filter.h"
#include "filters.h"
#include "ocl_util.h"
#include "outfile.h"
#include "reference.h"
#include "report.h"
#include "synth.h"

/* How many mismatches -e prints before it only counts them. */
#define MAX_REPORTED_MISMATCHES 10

/* The planes a run filters: the intensity plane, or with --color the R, G and B planes. */
#define MAX_PLANES 3
typedef struct {
    int count;
    tc_plane p[MAX_PLANES];
} plane_set;

static const char *const plane_names[MAX_PLANES] = {"R", "G", "B"};

static void planes_free(plane_set *s)
{
    for (int i = 0; i < MAX_PLANES; i++)
        tc_plane_free(&s->p[i]);
}

/* count planes of width x height; 0, or -1 (out of memory, the caller reports). */
static int planes_alloc(plane_set *s, int count, int width, int height)
{
    s->count = count;
    for (int i = 0; i < count; i++)
        if (tc_plane_alloc(&s->p[i], width, height))
            return -1;
    return 0;
}

/* The synthetic image of -g. It is gray, so with --color its three planes are equal: that
 * still times and checks three runs, which is what a colour sweep wants. */
static int load_synthetic(const tc_options *o, plane_set *in)
{
    if (planes_alloc(in, o->color ? 3 : 1, o->synth_width, o->synth_height)) {
        fprintf(stderr, "tiledconv: -g %dx%d: out of host memory\n", o->synth_width,
                o->synth_height);
        return 1; /* a run-time failure: the request itself was valid */
    }
    synth_fill(&in->p[0]);
    for (int c = 1; c < in->count; c++)
        memcpy(in->p[c].px, in->p[0].px,
               (size_t)o->synth_width * (size_t)o->synth_height * sizeof(float));
    return 0;
}

/* The input planes from -s or -g. Returns 0, 2 (reported): the input cannot be used, or 1
 * (reported): out of host memory. */
static int load_input(const tc_options *o, plane_set *in)
{
    char err[512];
    bmp_image img;
    if (o->synth_width)
        return load_synthetic(o, in);
    if (bmp_load(o->input, &img, err, sizeof err)) {
        struct stat st;
        if (strcmp(o->input, TC_DEFAULT_INPUT) == 0 && stat(o->input, &st) != 0)
            fprintf(stderr, "tiledconv: %s: the default input is missing here; give one with "
                            "-s FILE, or -g WxH for a synthetic image\n", o->input);
        else
            fprintf(stderr, "tiledconv: %s\n", err);
        return 2;
    }
    if (planes_alloc(in, o->color ? 3 : 1, img.width, img.height)) {
        fprintf(stderr, "tiledconv: %s: out of host memory for %d x %d\n", o->input, img.width,
                img.height);
        bmp_free(&img);
        return 1;
    }
    if (o->color)
        for (int c = 0; c < 3; c++)
            tc_plane_from_channel(&in->p[c], img.rgb, c);
    else
        tc_plane_from_rgb(&in->p[0], img.rgb);
    bmp_free(&img);
    return 0;
}

/* The planes (input, output, the two-pass temporary) must fit the device. */
static int check_device_fits(const tc_options *o, const ocl_env *env, const tc_plane *in)
{
    /* Rows are padded on the device (tc_device_pitch), so count what is really allocated. */
    unsigned long long bytes =
        (unsigned long long)tc_device_pitch(in->width) * (unsigned long long)in->height * 4;
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

/* One row of coefficients, space-separated. */
static void print_coefficients(const float *k, int taps)
{
    for (int i = 0; i < taps; i++)
        printf(" %g", k[i]);
}

static void print_filter(const tc_options *o)
{
    const tc_filter *f = &o->filter;
    printf("filter: ");
    if (o->named_filter >= 0)
        printf("%s, ", tc_named_filter_name((tc_named_filter)o->named_filter));
    printf("%d taps", f->taps);
    if (o->named_filter == TC_NAMED_GAUSS)
        printf(", sigma %g", o->sigma > 0.0 ? o->sigma : tc_gauss_default_sigma(f->taps));
    if (memcmp(f->kx, f->ky, sizeof f->kx) == 0) {
        printf(":");
        print_coefficients(f->kx, f->taps);
        printf(" (rows and columns)");
    } else {
        printf(": rows");
        print_coefficients(f->kx, f->taps);
        printf("; columns");
        print_coefficients(f->ky, f->taps);
    }
    printf("; border %s", tc_border_name(f->border));
    if (f->border == TC_BORDER_CONSTANT)
        printf(" %g", f->border_value);
    printf("\n");
}

static void print_header(const tc_options *o, const ocl_env *env, const plane_set *in,
                         const tc_roi *roi)
{
    const tc_plane *p = &in->p[0];
    printf("device: %s [platform %d: %s]\n", env->device_name, env->platform_index,
           env->platform_name);
    if (o->synth_width)
        printf("input: synthetic %d x %d\n", p->width, p->height);
    else
        printf("input: %s (%d x %d)\n", o->input, p->width, p->height);
    if (in->count == 3)
        printf("planes: R, G and B, each filtered on its own (--color)\n");
    printf("ROI: %d x %d, source at (%d, %d), target at (%d, %d)\n", roi->width, roi->height,
           roi->src_left, roi->src_top, roi->dst_left, roi->dst_top);
    print_filter(o);
    if (o->out_scale != 1.0 || o->out_offset != 0.0)
        printf("image mapping: v * %g + %g inside the target ROI, before the 8-bit conversion "
               "(-e and --raw see v)\n", o->out_scale, o->out_offset);
}

static void print_geometry(const tc_run_stats *st, tc_algorithm alg, int radius,
                           const tc_roi *roi)
{
    printf("launch, %s%s: global %zu x %zu, local %zu x %zu, %zu work-groups\n",
           tc_algorithm_name(alg), alg == TC_ALG_TWOPASS ? " pass 1" : "", st->global[0],
           st->global[1], st->local[0], st->local[1],
           (st->global[0] / st->local[0]) * (st->global[1] / st->local[1]));
    if (alg == TC_ALG_TWOPASS) { /* pass 2 runs over the transposed ROI */
        size_t g0 = (size_t)(roi->height + TC_TWOPASS_TILE - 1) / TC_TWOPASS_TILE * TC_TWOPASS_TILE;
        size_t g1 = (size_t)(roi->width + TC_TWOPASS_TILE - 1) / TC_TWOPASS_TILE * TC_TWOPASS_TILE;
        printf("launch, twopass pass 2: global %zu x %zu, local %zu x %zu, %zu work-groups\n", g0,
               g1, st->local[0], st->local[1], (g0 / st->local[0]) * (g1 / st->local[1]));
    }
    if (alg == TC_ALG_TILED)
        printf("  blocks of %d x %d pixels per work-item; work-group classes (radius %d, %s): "
               "class 1 (free on read) %ld, class 2 (checks reads) %ld, class 3 (free on write) "
               "%ld, class 4 (checks writes) %ld\n",
               st->block[0], st->block[1], radius,
               st->classes_counted ? "counted by the kernel" : "predicted", st->classes[0],
               st->classes[1], st->classes[2], st->classes[3]);
}

/* Adds one plane's run to the running totals: the kernel (and pass) times of iteration i are
 * summed, so that a colour run's "per iteration" is the time to filter all three planes. */
static void add_stats(tc_run_stats *total, const tc_run_stats *one)
{
    for (int i = 0; i < total->iterations; i++) {
        total->kernel_ms[i] += one->kernel_ms[i];
        for (int k = 0; k < 2; k++)
            if (total->pass_ms[k] && one->pass_ms[k])
                total->pass_ms[k][i] += one->pass_ms[k][i];
    }
    total->build_ms += one->build_ms;
    total->h2d_ms += one->h2d_ms;
    total->d2h_ms += one->d2h_ms;
    total->wall_ms_per_iteration += one->wall_ms_per_iteration;
}

/* Runs one algorithm on every plane, one after another with the same filter. Returns the
 * launcher's status; *total holds the summed statistics (freed on failure). */
static int run_planes(tc_session *s, tc_algorithm alg, const plane_set *in, const tc_roi *roi,
                      const tc_filter *f, int iterations, plane_set *out, tc_run_stats *total)
{
    for (int c = 0; c < in->count; c++) {
        tc_run_stats one;
        int status = tc_algorithm_run(alg)(s, &in->p[c], roi, f, iterations, &out->p[c], &one);
        if (status) {
            if (c > 0)
                tc_run_stats_free(total);
            return status;
        }
        if (c == 0) {
            *total = one; /* owns the arrays from here */
        } else {
            add_stats(total, &one);
            tc_run_stats_free(&one);
        }
    }
    return 0;
}

/* -e for one algorithm: every plane against its CPU reference. Fills r's verification fields
 * and returns the number of mismatching pixels over all planes. */
static long verify_planes(const tc_options *o, const plane_set *expected,
                          const plane_set *out, const double *tolerance, const tc_roi *roi,
                          tc_result *r)
{
    const int machine = o->format != TC_FORMAT_TABLE;
    const int chatty = !o->quiet && !machine;
    const int w = out->p[0].width, h = out->p[0].height;
    long total = 0;
    char failed_planes[16] = "";

    r->max_error = 0.0;
    r->tolerance = 0.0;
    if (chatty && out->count == 1)
        printf("verification, %s: every pixel of the %d x %d output against the CPU reference "
               "(tolerance %.3g inside the target ROI, exact outside)\n",
               r->algorithm, w, h, tolerance[0]);
    else if (chatty)
        printf("verification, %s: every pixel of the R, G and B planes of the %d x %d output "
               "against the CPU reference (exact outside the target ROI)\n", r->algorithm, w, h);
    for (int c = 0; c < out->count; c++) {
        /* With --csv/--json stdout carries only records, and stderr one summary line: the
         * individual mismatches are printed in the human-readable mode only. */
        tc_verify_result v = reference_compare(&expected->p[c], &out->p[c], roi, tolerance[c],
                                               machine ? NULL : stdout,
                                               MAX_REPORTED_MISMATCHES);
        if (out->count > 1 && chatty)
            printf("  plane %s: %s, %ld mismatches (tolerance %.3g, largest difference %.3g)\n",
                   plane_names[c], v.mismatches ? "FAILED" : "ok", v.mismatches, tolerance[c],
                   v.max_error);
        if (v.mismatches) {
            if (failed_planes[0])
                strcat(failed_planes, ", ");
            strcat(failed_planes, plane_names[c]);
        }
        total += v.mismatches;
        if (v.max_error > r->max_error)
            r->max_error = v.max_error;
        if (tolerance[c] > r->tolerance)
            r->tolerance = tolerance[c];
    }
    r->verified = total == 0;
    r->mismatches = total;
    if (!machine) {
        if (total == 0)
            printf("PASSED (largest difference %.3g)\n", r->max_error);
        else
            printf("FAILED: %ld of %ld pixels%s differ (largest difference %.3g)\n", total,
                   (long)w * h * out->count, out->count > 1 ? " of the 3 planes" : "",
                   r->max_error);
    }
    if (total) {
        if (out->count > 1)
            fprintf(stderr, "tiledconv: verification FAILED for %s: %ld mismatches (planes %s)\n",
                    r->algorithm, total, failed_planes);
        else
            fprintf(stderr, "tiledconv: verification FAILED for %s: %ld mismatches\n",
                    r->algorithm, total);
    }
    return total;
}

/* Checks, before any work, that -o and --raw may be written. Returns 0, or 2 (reported). */
static int check_outputs(const tc_options *o)
{
    char err[512];
    const char *in_path = o->synth_width ? NULL : o->input;
    if (o->write_output && outfile_check(o->output, in_path, err, sizeof err)) {
        fprintf(stderr, "tiledconv: %s\n", err);
        return 2;
    }
    if (o->raw_output && outfile_check_flag("--raw", o->raw_output, in_path, err, sizeof err)) {
        fprintf(stderr, "tiledconv: %s\n", err);
        return 2;
    }
    if (o->raw_output && o->write_output && outfile_same(o->raw_output, o->output)) {
        fprintf(stderr, "tiledconv: --raw %s: the same file as -o; give each its own name\n",
                o->raw_output);
        return 2;
    }
    return 0;
}

/* The output image, grayscale or (--color) 24-bit, with --scale/--offset applied to the target
 * ROI, written into the staged file af. 0, or -1 with the reason in err. */
static int write_image(const tc_options *o, const plane_set *out, const tc_roi *roi,
                       atomic_file *af, char *err, size_t err_size)
{
    const tc_plane *p = &out->p[0];
    uint8_t *bytes = out->count == 3
                         ? outfile_rgb24(out->p, roi, o->out_scale, o->out_offset)
                         : outfile_gray8(p, roi, o->out_scale, o->out_offset);
    int rc;
    if (!bytes) {
        snprintf(err, err_size, "%s: out of host memory", o->output);
        return -1;
    }
    rc = bmp_write_stream(af->f, bytes, p->width, p->height, out->count == 3 ? 24 : 8,
                          o->output, err, err_size);
    free(bytes);
    return rc;
}

/* Writes what the run produced: the image (-o) and the float planes (--raw). Both are staged
 * in temporary files and renamed into place only when both are complete, so a failure writing
 * either leaves neither. 0, or 1 (a run-time failure: the file system said no). */
static int write_outputs(const tc_options *o, const plane_set *out, const tc_roi *roi)
{
    char err[512] = "";
    const int chatty = !o->quiet && o->format == TC_FORMAT_TABLE;
    const tc_plane *p = &out->p[0];
    atomic_file image = {NULL, NULL, NULL}, raw = {NULL, NULL, NULL};
    const char *flag = "-o";
    int ok = (!o->write_output || (atomic_file_open(&image, o->output, err, sizeof err) == 0 &&
                                   write_image(o, out, roi, &image, err, sizeof err) == 0 &&
                                   atomic_file_close(&image, err, sizeof err) == 0));
    if (ok && o->raw_output) {
        flag = "--raw";
        ok = atomic_file_open(&raw, o->raw_output, err, sizeof err) == 0 &&
             outfile_write_raw_stream(raw.f, out->p, out->count) == 0 &&
             atomic_file_close(&raw, err, sizeof err) == 0;
        if (!ok && !err[0])
            snprintf(err, sizeof err, "%s: write error: %s", o->raw_output, strerror(errno));
    }
    /* Both complete: into place. (A rename failing between the two is the one case left.) */
    if (ok && o->write_output && (flag = "-o", atomic_file_commit(&image, err, sizeof err)))
        ok = 0;
    if (ok && o->raw_output && (flag = "--raw", atomic_file_commit(&raw, err, sizeof err)))
        ok = 0;
    atomic_file_discard(&image);
    atomic_file_discard(&raw);
    if (!ok) {
        fprintf(stderr, "tiledconv: %s %s\n", flag, err);
        return 1;
    }
    if (chatty && o->write_output)
        printf("output: %s (%d x %d, %s)\n", o->output, p->width, p->height,
               out->count == 3 ? "24-bit colour" : "8-bit grayscale");
    if (chatty && o->raw_output)
        printf("raw: %s (%d float32 plane%s of %d x %d, little-endian, row 0 first)\n",
               o->raw_output, out->count, out->count == 1 ? "" : "s (R, G, B)", p->width,
               p->height);
    return 0;
}

int main(int argc, char **argv)
{
    tc_options o;
    plane_set in = {0}, expected = {0}, out = {0};
    plane_set kept = {0}; /* the first algorithm's output, for the files */
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
    const int width = in.p[0].width, height = in.p[0].height;
    if (tc_roi_resolve(&o.roi, width, height, &roi, err, sizeof err)) {
        fprintf(stderr, "tiledconv: %s\n", err);
        status = 2;
        goto cleanup;
    }
    if ((status = check_outputs(&o)) != 0)
        goto cleanup;

    if ((status = ocl_env_open(&env, &o.device)) != 0)
        goto cleanup;
    env_open = 1;
    if ((status = check_device_fits(&o, &env, &in.p[0])) != 0)
        goto cleanup;
    tc_session_init(&session, &env);
    session_open = 1;
    if (tc_session_set_tiled(&session, o.block_x, o.block_y, !o.scalar_io)) {
        fprintf(stderr, "tiledconv: --block %dx%d: not supported\n", o.block_x, o.block_y);
        status = 2;
        goto cleanup;
    }
    /* -v reports the classes the tiled kernel took, counted by the kernel itself. */
    tc_session_count_classes(&session, o.verbose && !machine);
    if (chatty)
        print_header(&o, &env, &in, &roi);

    if (planes_alloc(&out, in.count, width, height) ||
        (o.verify && planes_alloc(&expected, in.count, width, height))) {
        fprintf(stderr, "tiledconv: out of host memory for the output planes\n");
        status = 1;
        goto cleanup;
    }
    double tolerance[MAX_PLANES] = {0.0, 0.0, 0.0};
    for (int c = 0; o.verify && c < in.count; c++) {
        reference_convolve(&in.p[c], &roi, &o.filter, &expected.p[c]);
        tolerance[c] = reference_tolerance(&in.p[c], &o.filter);
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
        r->planes = in.count;
        r->width = width;
        r->height = height;
        r->roi_width = roi.width;
        r->roi_height = roi.height;
        r->iterations = o.iterations;
        r->verified = -1;

        if ((status = run_planes(&session, (tc_algorithm)a, &in, &roi, &o.filter, o.iterations,
                                 &out, &stats)) != 0)
            goto cleanup;
        if (o.verbose && !machine)
            print_geometry(&stats, (tc_algorithm)a, (o.filter.taps - 1) / 2, &roi);
        if (o.timing || machine)
            report_fill_timing(r, &stats, copy_ms);
        tc_run_stats_free(&stats);

        inject_test_fault(&out.p[0]);
        if (o.verify && verify_planes(&o, &expected, &out, tolerance, &roi, r))
            failed_verification = 1;
        if (o.timing && !machine && !o.all_algorithms)
            report_timing(stdout, r);
        if (a == first) { /* the files get the first algorithm's output (tiled for -a all) */
            kept = out;
            memset(&out, 0, sizeof out);
            if (planes_alloc(&out, in.count, width, height)) {
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
        if (chatty && (o.write_output || o.raw_output))
            printf("output: not written, since verification failed\n");
        status = 1;
        goto cleanup;
    }
    status = write_outputs(&o, &kept, &roi);

cleanup:
    if (session_open)
        tc_session_release(&session);
    if (env_open)
        ocl_env_close(&env);
    planes_free(&kept);
    planes_free(&out);
    planes_free(&expected);
    planes_free(&in);
    return status;
}
