/*
 * study.c - one image studied: its input planes (study_input.c), every algorithm asked for run
 * on them through the library, checked against the CPU reference, timed and reported, and the
 * first algorithm's output written. The batch pipeline (batch.c) serves plain file-to-file runs
 * and batches; this is the run of -g, -t, -i, -a all, -e, -v, --raw, --csv, --json,
 * --class-map and --gradient on one image.
 */
#include "study.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classmap.h"
#include "gradient_run.h"
#include "outputs.h"
#include "plan.h"
#include "report.h"
#include "sha256.h"
#include "tiledconv_internal.h"
#include "strips_study.h"
#include "study_input.h"
#include "test_hooks.h"
#include "verify.h"

/* The command line's names for the ROI fields, for messages. */
static const tc_roi_names flag_names = {"-sL", "-sT", "-tL", "-tT", "-W", "-H"};

/* The exit status for a library status: 0 for TC_OK, 2 (a usage error) for a bad argument,
 * else 1 (a run-time failure). */
static int exit_status(int tc_status)
{
    return tc_status == TC_OK ? 0 : tc_status == TC_EINVAL ? 2 : 1;
}

/* Adds one plane's run to the totals: the kernel (and pass) times of iteration i are summed,
 * so that a colour run's "per iteration" is the time to filter all three planes. */
static void add_times(report_times *t, const tc_stats *s)
{
    for (int i = 0; i < t->iterations; i++) {
        t->kernel_ms[i] += s->kernel_ms[i];
        for (int k = 0; k < 2 && t->passes == 2; k++)
            t->pass_ms[k][i] += s->pass_ms[k][i];
    }
    t->build_ms += s->build_ms;
    t->h2d_ms += s->upload_ms;
    t->d2h_ms += s->download_ms;
    t->wall_ms_per_iteration += s->wall_ms_per_iteration;
}

static void times_free(report_times *t)
{
    free(t->kernel_ms);
    free(t->pass_ms[0]);
    free(t->pass_ms[1]);
    memset(t, 0, sizeof *t);
}

/* Runs one algorithm on every plane with the same parameters: timed (a warm-up, then
 * o->iterations runs) when figures are wanted, else once. *times holds the summed figures,
 * *first the first plane's (for -v). Returns an exit status (reported). */
static int run_planes(tc_context *ctx, const tc_options *o, const tc_params *p, int timed,
                      const plane_set *in, plane_set *out, report_times *times, tc_stats *first)
{
    const int w = in->p[0].width, h = in->p[0].height;
    const int n = timed ? o->iterations : 1;
    memset(times, 0, sizeof *times);
    times->iterations = n;
    times->passes = p->algorithm == TC_TWOPASS || p->algorithm == TC_BILINEAR ? 2 : 1;
    times->kernel_ms = calloc((size_t)n, sizeof(double));
    times->pass_ms[0] = calloc((size_t)n, sizeof(double));
    times->pass_ms[1] = calloc((size_t)n, sizeof(double));
    if (!times->kernel_ms || !times->pass_ms[0] || !times->pass_ms[1]) {
        fprintf(stderr, "tiledconv: out of host memory for %d iterations\n", n);
        return 1;
    }
    for (int c = 0; c < in->count; c++) {
        tc_stats s;
        const int status = timed ? tc_filter_timed(ctx, in->p[c].px, out->p[c].px, w, h, p, n)
                                 : tc_filter(ctx, in->p[c].px, out->p[c].px, w, h, p);
        if (status != TC_OK) {
            fprintf(stderr, "tiledconv: %s: %s\n", tc_algorithm_name(p->algorithm),
                    tc_error(ctx));
            return exit_status(status);
        }
        tc_last_stats(ctx, &s);
        add_times(times, &s);
        if (c == 0)
            *first = s;
    }
    return 0;
}

/* The CPU reference of every plane and its tolerance, for -e. */
static int reference_planes(const plane_set *in, const tc_params *p, plane_set *expected,
                            double tolerance[MAX_PLANES])
{
    const int w = in->p[0].width, h = in->p[0].height;
    char err[512];
    if (plane_set_alloc(expected, in->count, w, h)) {
        fprintf(stderr, "tiledconv: out of host memory for the reference planes\n");
        return 1;
    }
    for (int c = 0; c < in->count; c++) {
        const int status = tc_reference(in->p[c].px, expected->p[c].px, w, h, p, err, sizeof err);
        if (status != TC_OK) {
            fprintf(stderr, "tiledconv: reference: %s\n", err);
            return exit_status(status);
        }
        tolerance[c] = tc_tolerance(in->p[c].px, w, h, p);
    }
    return 0;
}

/* -e's record: the SHA-256 of the 8-bit pixels the image gets (row 0 first, no padding; R, G, B
 * for colour), so that two runs on two devices can be compared by a script. 0, or 1 (reported). */
static int output_digest(const tc_options *o, const plane_set *out, const tc_roi *roi,
                         char hex[65])
{
    const tc_plane *p = &out->p[0];
    const size_t n = (size_t)p->width * (size_t)p->height * (size_t)(out->count == 3 ? 3 : 1);
    uint8_t *bytes = malloc(n);
    if (!bytes) {
        fprintf(stderr, "tiledconv: out of host memory for the output's digest\n");
        return 1;
    }
    tc_planes_to_samples(out->p, out->count == 3 ? 3 : 1, 8, roi, o->out_scale, o->out_offset,
                         bytes);
    sha256_hex(bytes, n, hex);
    free(bytes);
    return 0;
}

/* One algorithm a run filters with, and where it reads the source plane. */
typedef struct {
    tc_algorithm algorithm;
    tc_storage storage;
} run_variant;

/* The most variants one run compares: -a all with --storage image. */
#define MAX_VARIANTS 6

/* What the run filters with: the one algorithm asked for, or for -a all tiled, twopass and
 * onepass, with --storage image also tiled and onepass reading an image (beside their buffer
 * rows) and bilinear, the other path that reads one, when the filter pairs (a note says why
 * it is left out otherwise). The first variant's output is the one written. */
static int run_variants(const tc_options *o, run_variant v[MAX_VARIANTS])
{
    char why[320];
    int n = 0;
    if (!o->all_algorithms) {
        v[n++] = (run_variant){o->algorithm, o->storage};
        return n;
    }
    const int images = o->storage == TC_STORAGE_IMAGE;
    v[n++] = (run_variant){TC_TILED, TC_STORAGE_BUFFER};
    if (images)
        v[n++] = (run_variant){TC_TILED, TC_STORAGE_IMAGE};
    v[n++] = (run_variant){TC_TWOPASS, TC_STORAGE_BUFFER};
    v[n++] = (run_variant){TC_ONEPASS, TC_STORAGE_BUFFER};
    if (images)
        v[n++] = (run_variant){TC_ONEPASS, TC_STORAGE_IMAGE};
    if (images && !cli_bilinear_refusal(&o->filter, why, sizeof why))
        v[n++] = (run_variant){TC_BILINEAR, TC_STORAGE_IMAGE};
    else if (images && !o->quiet)
        fprintf(stderr, "tiledconv: -a all: bilinear left out: %s\n", why);
    return n;
}

/* Why a variant of -a all does not run on this filter (twopass and a mask that is not rank
 * 1), or NULL when it runs. */
static const char *variant_not_applicable(const tc_options *o, const run_variant *v)
{
    if (v->algorithm == TC_TWOPASS && o->filter.mask_width && !o->filter.mask_separable)
        return "the mask is not separable (not rank 1): no two 1-D passes";
    return NULL;
}

/* "tiled", or "tiled/image" where the storage is not the algorithm's only one. */
static const char *variant_label(const run_variant *v)
{
    if (v->storage != TC_STORAGE_IMAGE || v->algorithm == TC_BILINEAR)
        return tc_algorithm_name(v->algorithm);
    return v->algorithm == TC_TILED ? "tiled/image" : "onepass/image";
}

/* The fields of an algorithm's record that do not depend on its run. */
static void result_begin(tc_result *r, const run_variant *variant, const tc_options *o,
                         const tc_device_info *dev, const plane_set *in, const tc_roi *roi)
{
    const tc_algorithm alg = variant->algorithm;
    memset(r, 0, sizeof *r);
    r->algorithm = tc_algorithm_name(alg);
    r->label = variant_label(variant);
    r->storage = tc_storage_name(tc_reads_image(alg, variant->storage) ? TC_STORAGE_IMAGE
                                                                         : TC_STORAGE_BUFFER);
    r->device = dev->name;
    r->taps = o->filter.taps_x;
    r->taps_y = o->filter.taps_y;
    r->mask = "none";
    if (o->filter.mask_width) {
        static char size[32]; /* one filter per run: every record names the same mask */
        snprintf(size, sizeof size, "%dx%d%s", o->filter.mask_width, o->filter.mask_height,
                 o->filter.mask_separable ? "-separable" : "");
        r->mask = size;
    }
    r->planes = in->count;
    r->width = in->p[0].width;
    r->height = in->p[0].height;
    r->roi_width = roi->width;
    r->roi_height = roi->height;
    r->iterations = o->iterations;
    r->verified = -1;
    r->type = "image";
}

/* What one run of the tool holds: its input, reference and output planes and the context. */
typedef struct {
    tc_options o;
    input_source src;
    plane_set in, expected, out;
    plane_set kept; /* the first algorithm's output, for the files */
    double tolerance[MAX_PLANES];
    tc_roi roi;
    tc_context *ctx;
    tc_device_info dev;
    tc_params params;
    int deep;           /* the input has more than 8 bits per sample */
    run_variant variants[MAX_VARIANTS];
    int n_variants;
    tc_result results[MAX_VARIANTS];
    int n_results;
    gradient_planes gradient; /* --gradient: gx and gy for --raw (the magnitude is kept) */
    const char *device; /* tc_open's request */
    int in_strips;      /* the image went through src/files/strips.c, which did everything */
    struct {
        uint8_t *rgb;   /* --class-map's picture, drawn from the input before the run */
        int width, height;
    } map;
} run_state;

/* keep_context: the context is left open for a process that ends at once (fast_exit). */
static void state_free(run_state *s, int keep_context)
{
    free(s->map.rgb);
    study_input_close(&s->src);
    if (!keep_context)
        tc_close(s->ctx);
    plane_set_free(&s->kept);
    gradient_planes_free(&s->gradient);
    plane_set_free(&s->out);
    plane_set_free(&s->expected);
    plane_set_free(&s->in);
}

/* Input, ROI, output checks, device and parameters: everything before the first kernel.
 * Returns an exit status (reported). */
static int prepare(run_state *s)
{
    const tc_options *o = &s->o;
    char err[512];
    tc_msg msg;
    run_plan plan;
    int status;
    if ((status = study_input_open(o, &s->src)) != 0)
        return status;
    const int width = s->src.width, height = s->src.height;
    s->deep = s->src.from_file && s->src.reader.head.maxval > 255;
    if (tc_roi_resolve(&o->roi, width, height, &flag_names, &s->roi, &msg) != TC_OK) {
        fprintf(stderr, "tiledconv: %s\n", msg.text);
        return 2;
    }
    if (outputs_check_all(o, err, sizeof err) ||
        (o->class_map && outputs_check_flag("--class-map", o->class_map,
                                            s->src.from_file ? o->input : NULL, err,
                                            sizeof err))) {
        fprintf(stderr, "tiledconv: %s\n", err);
        return 2;
    }
    if ((status = tc_open(s->device, &s->ctx, err, sizeof err)) != TC_OK) {
        fprintf(stderr, "tiledconv: %s%s\n", err, status == TC_EINVAL ? ", see -l" : "");
        return exit_status(status);
    }
    tc_context_device(s->ctx, &s->dev);
    /* Each algorithm and storage against the device (image support), before any work. */
    s->n_variants = run_variants(o, s->variants);
    for (int i = 0; i < s->n_variants; i++) {
        tc_params p;
        if (variant_not_applicable(o, &s->variants[i]))
            continue;
        options_params(o, &s->roi, &p);
        p.algorithm = s->variants[i].algorithm;
        p.storage = s->variants[i].storage;
        if ((status = tc_check_params(s->ctx, width, height, &p)) != TC_OK) {
            fprintf(stderr, "tiledconv: %s\n", tc_error(s->ctx));
            return exit_status(status);
        }
    }
    /* Every byte the run will need, against every limit, before the image is read. */
    plan_make(o, width, height, &s->roi, s->src.from_file ? &s->src.reader : NULL,
              outputs_depth(o, s->deep), &s->dev, &plan);
    /* An image that does not fit whole goes in strips (src/files/strips.c), which refuses a run it
     * cannot serve under --max-memory (the plan's refusal says it for the host's memory). */
    if (s->src.from_file && strips_needed(o, &plan, &s->dev) &&
        (!strips_refusal(o, 1) || o->max_memory)) {
        s->in_strips = 1;
        return strips_study(o, s->ctx, &s->dev, &s->src.reader, s->src.what);
    }
    if ((status = plan_check(&plan, &s->dev, s->src.what, err, sizeof err)) != 0) {
        fprintf(stderr, "tiledconv: %s\n", err);
        return status;
    }
    if ((status = study_input_load(o, &s->src, &s->in)) != 0)
        return status;
    options_params(o, &s->roi, &s->params);
    /* Drawn now, from the input, which one algorithm overwrites; written with the outputs. */
    if (o->class_map && classmap_draw(&s->params, s->in.p, s->in.count, &s->map.rgb,
                                      &s->map.width, &s->map.height, err, sizeof err)) {
        fprintf(stderr, "tiledconv: %s\n", err);
        return 1;
    }
    if (!o->quiet && o->format == TC_FORMAT_TABLE)
        report_header(o, &s->dev, width, height, s->in.count, &s->roi);
    /* One algorithm filters its input planes in place; -a all needs them for each. */
    if (o->all_algorithms && plane_set_alloc(&s->out, s->in.count, width, height)) {
        fprintf(stderr, "tiledconv: out of host memory for the output planes\n");
        return 1;
    }
    if (o->verify && !o->gradient) /* --gradient makes its own (cli/gradient_run.c) */
        return reference_planes(&s->in, &s->params, &s->expected, s->tolerance);
    return 0;
}

/* Runs each algorithm asked for (all three for -a all) on every plane, checks and reports
 * it. *failed_verification is set when -e found a mismatch. Returns an exit status. */
static int run_algorithms(run_state *s, int *failed_verification)
{
    const tc_options *o = &s->o;
    const int machine = o->format != TC_FORMAT_TABLE, timed = o->timing || machine;
    double copy_ms = 0.0;
    int status;
    if (timed) {
        const int repeats = o->iterations < 5 ? 5 : o->iterations > 100 ? 100 : o->iterations;
        const size_t bytes = (size_t)s->roi.width * (size_t)s->roi.height * 4;
        if ((status = tc_copy_time(s->ctx, bytes, repeats, &copy_ms)) != TC_OK) {
            fprintf(stderr, "tiledconv: copy floor: %s\n", tc_error(s->ctx));
            return exit_status(status);
        }
    }
    const int last = s->n_variants - 1;
    for (int a = 0; a <= last; a++) {
        const run_variant *variant = &s->variants[a];
        tc_result *r = &s->results[s->n_results++];
        report_times times;
        tc_stats first_plane;
        double tolerance[MAX_PLANES];
        const char *not_applicable = variant_not_applicable(o, variant);
        if (not_applicable) {
            /* Only -a all gets here (option_rules.c refuses -a twopass with such a mask). */
            result_begin(r, variant, o, &s->dev, &s->in, &s->roi);
            r->not_applicable = not_applicable;
            if (!o->quiet && !machine && !o->timing)
                printf("%s: not applicable: %s\n", r->label, r->not_applicable);
            continue;
        }
        /* Filtered in place when only one algorithm runs: the input is not needed after it
         * (the -e reference is made already), and the peak keeps one set of planes less. */
        plane_set *out = o->all_algorithms ? &s->out : &s->in;
        s->params.algorithm = variant->algorithm;
        s->params.storage = variant->storage;
        result_begin(r, variant, o, &s->dev, &s->in, &s->roi);
        /* bilinear's tolerance has texture interpolation's share (tc_tolerance); the input is
         * still there, since bilinear is never the only algorithm of -a all. */
        for (int c = 0; c < s->in.count; c++)
            tolerance[c] = variant->algorithm == TC_BILINEAR && o->all_algorithms
                               ? tc_tolerance(s->in.p[c].px, s->in.p[c].width,
                                              s->in.p[c].height, &s->params)
                               : s->tolerance[c];
        status = run_planes(s->ctx, o, &s->params, timed, &s->in, out, &times, &first_plane);
        if (status == 0 && o->verbose && !machine) {
            report_geometry(&first_plane, &o->filter, o->kernel);
            if (variant->algorithm == TC_BILINEAR)
                report_bilinear(&o->filter);
        }
        if (status == 0 && timed)
            report_fill_timing(r, &times, copy_ms);
        times_free(&times);
        if (status != 0)
            return status;

        test_hook_corrupt(out->p[0].px, out->p[0].width, out->p[0].height);
        if (o->verify && verify_planes(o, s->expected.p, out->p, out->count, tolerance,
                                       &s->roi, r))
            *failed_verification = 1;
        if (o->verify && (status = output_digest(o, out, &s->roi, r->sha256)) != 0)
            return status;
        if (o->timing && !machine && !o->all_algorithms)
            report_timing(stdout, r);
        if (a == 0) { /* the files get the first algorithm's output (tiled for -a all) */
            s->kept = *out;
            memset(out, 0, sizeof *out);
            if (a < last &&
                plane_set_alloc(&s->out, s->kept.count, s->kept.p[0].width, s->kept.p[0].height)) {
                fprintf(stderr, "tiledconv: out of host memory\n");
                return 1;
            }
        }
    }
    return 0;
}

/* --gradient (cli/gradient_run.c): the one-read pass, checked, timed and compared there; the
 * magnitude is kept for the image, gx and gy for --raw. Returns an exit status (reported). */
static int run_gradient(run_state *s, int *failed_verification)
{
    const int status = gradient_run(&s->o, s->ctx, &s->dev, &s->in.p[0], &s->roi, &s->params,
                                    &s->gradient, failed_verification);
    if (status == 0) {
        s->kept.count = 1;
        s->kept.p[0] = s->gradient.magnitude;
        memset(&s->gradient.magnitude, 0, sizeof s->gradient.magnitude);
    }
    return status;
}

/* The comparison table or the machine-readable records. */
static void report_results(const run_state *s)
{
    const tc_options *o = &s->o;
    if (o->all_algorithms && o->timing && o->format == TC_FORMAT_TABLE)
        report_comparison(stdout, s->results, s->n_results);
    if (o->format == TC_FORMAT_CSV)
        report_csv_header(stdout);
    for (int i = 0; o->format != TC_FORMAT_TABLE && i < s->n_results; i++)
        (o->format == TC_FORMAT_CSV ? report_csv : report_json)(stdout, &s->results[i]);
}

/* The image and --raw files of the kept output. Returns an exit status (reported). */
static int write_results(const run_state *s)
{
    const tc_options *o = &s->o;
    const int chatty = !o->quiet && o->format == TC_FORMAT_TABLE;
    const int width = s->kept.p[0].width, height = s->kept.p[0].height;
    const int depth = outputs_depth(o, s->deep);
    char err[768], what[64];
    /* --gradient --raw: gx, gy, then the magnitude; the image is the magnitude. */
    const tc_plane raw3[3] = {s->gradient.gx, s->gradient.gy, s->kept.p[0]};
    const int gradient_raw = s->gradient.gx.px != NULL;
    if (outputs_write_split(o, s->kept.p, s->kept.count, gradient_raw ? raw3 : s->kept.p,
                            gradient_raw ? 3 : s->kept.count, &s->roi, depth, err, sizeof err)) {
        fprintf(stderr, "tiledconv: %s\n", err);
        return 1;
    }
    outputs_describe(o->image_format, depth, s->kept.count, what, sizeof what);
    if (o->class_map) {
        const io_image map = {s->map.width, s->map.height, 3, 8, 255, s->map.rgb, NULL};
        if (outputs_put_image(o->class_map, o->class_map_format, &map, o->quality,
                              o->no_sync ? OUTPUTS_SYNC_NONE : OUTPUTS_SYNC_ALL, err, sizeof err)) {
            fprintf(stderr, "tiledconv: --class-map %s\n", err);
            return 1;
        }
    }
    if (chatty && o->class_map)
        printf("class map: %s (%d x %d)\n", o->class_map, s->map.width, s->map.height);
    if (chatty && o->write_output)
        printf("output: %s (%d x %d, %s)\n", outputs_name(o->output), width, height, what);
    if (chatty && o->raw_output)
        printf("raw: %s (%d float32 plane%s of %d x %d, little-endian, row 0 first)\n",
               o->raw_output, gradient_raw ? 3 : s->kept.count,
               gradient_raw              ? "s (gx, gy, magnitude)"
               : s->kept.count == 1 ? ""
                                    : "s (R, G, B)",
               width, height);
    return 0;
}

/* The study of one image: -g, or one input with -t, -i, -a all, -e, -v, --raw, --csv or
 * --json: every figure of the kernels, the check against the reference, the comparison of
 * the algorithms. Returns the exit status. */
int study(const tc_options *o, const char *input, const char *device, int keep_context)
{
    run_state s;
    int status, failed_verification = 0;
    memset(&s, 0, sizeof s);
    s.o = *o;
    s.o.input = input;
    s.device = device;
    if ((status = prepare(&s)) == 0 && !s.in_strips &&
        (status = s.o.gradient ? run_gradient(&s, &failed_verification)
                               : run_algorithms(&s, &failed_verification)) == 0) {
        if (!s.o.gradient) /* gradient_run reports its own */
            report_results(&s);
        if (failed_verification) {
            /* A result known to be wrong replaces no file. */
            if (!s.o.quiet && s.o.format == TC_FORMAT_TABLE &&
                (s.o.write_output || s.o.raw_output))
                printf("output: not written, since verification failed\n");
            status = 1;
        } else {
            status = write_results(&s);
        }
    }
    report_build_log(&s.o, s.ctx);
    state_free(&s, keep_context);
    return status;
}
