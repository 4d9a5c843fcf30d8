/*
 * pyramid_run.c - --pyramid OxL (docs/kernels.md, "A Gaussian scale space"): for each input, the
 * pyramid tc_pyramid builds (one launch per octave), every level checked against the CPU
 * reference with -e, both launch styles timed with -t (one launch per octave against one per
 * level), and every level written as DIR/BASE-oK-lJ.EXT, all of an image's files or none.
 * A thin layer: the library computes, this file reads, reports and writes.
 */
#include "pyramid_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "inputs.h"
#include "io_limits.h"
#include "outputs.h"
#include "plan.h"
#include "report.h"
#include "sha256.h"
#include "source.h"
#include "synth.h"
#include "test_hooks.h"
#include "text.h"
#include "tiledconv.h"

#define MAX_LEVELS (TC_PYRAMID_MAX_OCTAVES * TC_PYRAMID_MAX_LEVELS)

/* How many mismatches -e prints per level before it only counts them. */
#define MAX_REPORTED 5

/* The levels of one pyramid: their layout and planes. */
typedef struct {
    int count;
    tc_pyramid_level level[MAX_LEVELS];
    float *plane[MAX_LEVELS];
} level_set;

static void levels_free(level_set *s)
{
    for (int i = 0; i < s->count; i++)
        free(s->plane[i]);
    memset(s, 0, sizeof *s);
}

/* Planes for the layout in `like` (0, or -1: out of host memory). */
static int levels_alloc(level_set *s, const level_set *like)
{
    *s = *like;
    memset(s->plane, 0, sizeof s->plane);
    for (int i = 0; i < s->count; i++)
        if (!(s->plane[i] = malloc((size_t)s->level[i].width * (size_t)s->level[i].height *
                                   sizeof(float))))
            return -1;
    return 0;
}

/* One input of the run, and its output names. */
typedef struct {
    const char *input;        /* the file, "-" for standard input, NULL for -g */
    char base[256];           /* BASE: the file's name without folder and extension,
                               * "synthetic" for -g, "stdin" for standard input */
    char *image[MAX_LEVELS];  /* DIR/BASE-oK-lJ.EXT, or NULL (--no-output) */
    char *raw[MAX_LEVELS];    /* DIR/BASE-oK-lJ.f32, or NULL */
} job;

static void job_free(job *j)
{
    for (int i = 0; i < MAX_LEVELS; i++) {
        free(j->image[i]);
        free(j->raw[i]);
    }
}

/* DIR/BASE-oK-lJ.EXT, allocated. */
static char *level_name(const char *dir, const char *base, int k, int l, const char *ext)
{
    const size_t n = strlen(dir) + strlen(base) + strlen(ext) + 32;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s%s-o%d-l%d.%s", dir, dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/",
                 base, k, l, ext);
    return s;
}

/* The job's names, and the checks that need nothing but them (made before any work): each
 * output may be written (a folder that takes files, not a device, not the input, not
 * read-only without --force). 0, 1 (out of memory) or 2, with the reason in err. */
static int job_names(const tc_options *o, job *j, char *err, size_t err_size)
{
    const char *ext = io_format_extension(o->image_format, 1);
    if (!j->input)
        snprintf(j->base, sizeof j->base, "synthetic");
    else if (source_is_stdin(j->input))
        snprintf(j->base, sizeof j->base, "stdin");
    else
        inputs_base_name(j->input, j->base, sizeof j->base);
    if (!o->output_dir)
        return 0;
    for (int k = 0; k < o->pyramid_octaves; k++)
        for (int l = 0; l < o->pyramid_levels; l++) {
            const int i = k * o->pyramid_levels + l;
            if ((o->write_output && !(j->image[i] = level_name(o->output_dir, j->base, k, l, ext))) ||
                (o->raw_flag && !(j->raw[i] = level_name(o->output_dir, j->base, k, l, "f32")))) {
                snprintf(err, err_size, "out of host memory for the output names");
                return 1;
            }
            if ((j->image[i] &&
                 (outputs_check_flag("-O", j->image[i], j->input, err, err_size) ||
                  outputs_check_replaceable("-O", j->image[i], o->force, err, err_size))) ||
                (j->raw[i] &&
                 (outputs_check_flag("--raw", j->raw[i], j->input, err, err_size) ||
                  outputs_check_replaceable("--raw", j->raw[i], o->force, err, err_size))))
                return 2;
        }
    return 0;
}

/* Every level's files of every job are distinct files (existing ones linked to each other)
 * and none is another job's input, which a job before it would otherwise replace. 0, 2 with
 * the reason in err, or 1 out of memory. */
static int check_levels_distinct(const tc_options *o, const job *jobs, int n, char *err,
                                 size_t err_size)
{
    const size_t per_job = 2 * (size_t)o->pyramid_octaves * (size_t)o->pyramid_levels + 1;
    outputs_named *files = malloc((size_t)n * per_job * sizeof *files);
    size_t count = 0;
    if (!files) {
        snprintf(err, err_size, "out of host memory for the output names");
        return 1;
    }
    for (int i = 0; i < n; i++) {
        files[count++] = (outputs_named){NULL, jobs[i].input && !source_is_stdin(jobs[i].input)
                                                   ? jobs[i].input
                                                   : NULL};
        for (int l = 0; l < o->pyramid_octaves * o->pyramid_levels; l++) {
            files[count++] = (outputs_named){"-O", jobs[i].image[l]};
            files[count++] = (outputs_named){"--raw", jobs[i].raw[l]};
        }
    }
    const int rc = outputs_check_distinct(files, count, err, err_size) ? 2 : 0;
    free(files);
    return rc;
}

/* The input as the intensity plane: -g's image, or the file decoded (the intensity of its
 * samples, docs/kernels.md). `what` names it in messages. Returns 0, 2 (reported: the input
 * cannot be used), or 1 (reported: out of host memory). */
static int read_input(const tc_options *o, const job *j, const char *what, tc_plane *plane,
                      int *deep)
{
    char err[768];
    io_limits lim;
    source_reader reader;
    io_image img;
    plan_io_limits(o, &lim);
    *deep = 0;
    if (!j->input) {
        if (io_limits_check_pixels(o->synth_width, o->synth_height, &lim, err, sizeof err)) {
            fprintf(stderr, "tiledconv: %s: %s\n", what, err);
            return 2;
        }
        if (tc_plane_alloc(plane, o->synth_width, o->synth_height)) {
            fprintf(stderr, "tiledconv: %s: out of host memory\n", what);
            return 1;
        }
        synth_fill(plane);
        return 0;
    }
    if (source_reader_open(j->input, &lim, &reader, err, sizeof err)) {
        fprintf(stderr, "tiledconv: %s\n", err);
        return 2;
    }
    source_reader_want_luma(&reader); /* the pyramid is of the intensity: a JPEG's luma */
    const int w = reader.head.width, h = reader.head.height;
    *deep = reader.head.maxval > 255;
    /* The host's memory for the decoding, before any of it is allocated. */
    if (plan_check_host(what, plan_load(&reader, (unsigned long long)w * h * sizeof(float)), err,
                        sizeof err)) {
        fprintf(stderr, "tiledconv: %s\n", err);
        source_reader_close(&reader);
        return 1;
    }
    const int rc = source_reader_decode(&reader, &img, err, sizeof err);
    source_reader_close(&reader);
    if (rc) {
        fprintf(stderr, "tiledconv: %s\n", err);
        return 2;
    }
    if (tc_plane_alloc(plane, img.width, img.height)) {
        io_image_free(&img);
        fprintf(stderr, "tiledconv: %s: out of host memory for %d x %d\n", what, w, h);
        return 1;
    }
    tc_plane_from_samples(plane, img.pixels, img.channels, img.depth, (unsigned)img.maxval, -1);
    io_image_free(&img);
    return 0;
}

/* The input's size without reading its pixels: -g's, or the header's. 0, or 2 (reported). */
static int input_size(const tc_options *o, const job *j, int *w, int *h)
{
    char err[768];
    io_limits lim;
    source_reader reader;
    if (!j->input) {
        *w = o->synth_width;
        *h = o->synth_height;
        return 0;
    }
    /* Standard input is read once: its size comes with its pixels (read_input). */
    if (source_is_stdin(j->input)) {
        *w = *h = 0;
        return 0;
    }
    plan_io_limits(o, &lim);
    if (source_reader_open(j->input, &lim, &reader, err, sizeof err)) {
        fprintf(stderr, "tiledconv: %s\n", err);
        return 2;
    }
    *w = reader.head.width;
    *h = reader.head.height;
    source_reader_close(&reader);
    return 0;
}

/* The layout for a w x h image, or 2 (reported: the image is too small for O octaves). */
static int layout_of(const tc_options *o, const char *what, int w, int h, level_set *s)
{
    const tc_pyramid_params p = options_pyramid_params(o);
    char err[512];
    memset(s, 0, sizeof *s);
    if (tc_pyramid_layout(w, h, &p, s->level, MAX_LEVELS, &s->count, err, sizeof err) !=
        TC_OK) {
        fprintf(stderr, "tiledconv: %s: --pyramid %dx%d: %s\n", what, p.octaves, p.levels, err);
        return 2;
    }
    return 0;
}

/* What one image's run found, for the reports. */
typedef struct {
    int ran[2];                 /* the launch styles that ran: per octave, per level */
    tc_pyramid_stats stats[2];
    double kernel_ms[2][3];     /* min, median, mean (stats' arrays go with the next call) */
    int identical;              /* the per-level levels are the per-octave ones, bit for bit */
    long differing;             /* else the pixels that differ */
    double tolerance[MAX_LEVELS], max_difference[MAX_LEVELS];
    long mismatches[MAX_LEVELS];
    char sha256[MAX_LEVELS][65];
    int checked;
} findings;

static void print_header(const tc_options *o, const tc_device_info *dev, const char *what,
                         const level_set *s)
{
    const tc_pyramid_params p = options_pyramid_params(o);
    printf("device: %s [platform %d: %s]\n", dev->name, dev->platform, dev->platform_name);
    printf("input: %s (%d x %d)\n", what, s->level[0].width, s->level[0].height);
    printf("pyramid: %d octave%s of %d level%s, sigma0 %g, k = 2^(1/%d) = %.6g; octave K is "
           "ceil(W / 2^K) x ceil(H / 2^K), level j has sigma sigma0 k^j in its octave's "
           "pixels; border %s",
           p.octaves, p.octaves == 1 ? "" : "s", p.levels, p.levels == 1 ? "" : "s", p.sigma,
           p.levels, pow(2.0, 1.0 / p.levels), tc_border_name(p.border));
    if (p.border == TC_BORDER_CONSTANT)
        printf(" %g", (double)p.border_value);
    printf("\n");
    for (int i = 0; o->verbose && i < s->count; i++) {
        const tc_pyramid_level *l = &s->level[i];
        if (l->sigma_applied > 0.0)
            printf("  level (%d, %d): %d x %d, sigma %.4f (%.4f input pixels): a Gaussian of "
                   "sigma %.4f, %d taps, on %s\n",
                   l->octave, l->level, l->width, l->height, l->sigma, l->sigma_input,
                   l->sigma_applied, l->taps, l->octave ? "the octave's base" : "the input");
        else
            printf("  level (%d, %d): %d x %d, sigma %.4f (%.4f input pixels): the octave's "
                   "base, the even pixels of octave %d's image at sigma %.4f\n",
                   l->octave, l->level, l->width, l->height, l->sigma, l->sigma_input,
                   l->octave - 1, 2.0 * p.sigma);
    }
}

/* -e: every level of `got` against the reference, a line per level (or, with --csv/--json,
 * only the figures). Returns the number of mismatching pixels over all levels. */
static long verify(const tc_options *o, const level_set *got, const level_set *ref,
                   findings *f)
{
    const int chatty = !o->quiet && o->format == TC_FORMAT_TABLE;
    long total = 0;
    double worst = 0.0;
    f->checked = 1;
    if (chatty)
        printf("verification: every pixel of every level against the CPU reference (double "
               "precision; tolerance: float32 rounding of the level's Gaussian, plus what its "
               "octave's base carries)\n"
               "  octave level      size     sigma  sigma(in)  taps  largest diff   tolerance\n");
    for (int i = 0; i < got->count; i++) {
        const tc_pyramid_level *l = &got->level[i];
        const size_t n = (size_t)l->width * (size_t)l->height;
        long bad = 0;
        double d_max = 0.0;
        for (size_t k = 0; k < n; k++) {
            const float e = ref->plane[i][k], a = got->plane[i][k];
            const double d = e == a ? 0.0 : fabs((double)e - (double)a);
            if (d > d_max || d != d)
                d_max = d;
            if (!(d <= f->tolerance[i])) {
                if (chatty && bad < MAX_REPORTED)
                    printf("  mismatch in level (%d, %d) at (%zu, %zu): expected %.6f, actual "
                           "%.6f\n",
                           l->octave, l->level, k % (size_t)l->width, k / (size_t)l->width, e,
                           a);
                bad++;
            }
        }
        f->max_difference[i] = d_max;
        f->mismatches[i] = bad;
        worst = d_max > worst ? d_max : worst;
        total += bad;
        if (chatty) {
            char size[32];
            snprintf(size, sizeof size, "%dx%d", l->width, l->height);
            printf("  %6d %5d %9s %9.4f %10.4f %5d %13.3g %11.3g  %s\n", l->octave, l->level,
                   size, l->sigma, l->sigma_input, l->taps, d_max, f->tolerance[i],
                   bad ? "FAILED" : "ok");
        }
    }
    if (o->format == TC_FORMAT_TABLE) { /* as -e's verdict elsewhere: with -q too */
        if (total == 0)
            printf("PASSED (%d levels, largest difference %.3g)\n", got->count, worst);
        else
            printf("FAILED: %ld pixels differ beyond the tolerance (largest difference %.3g)\n",
                   total, worst);
    }
    if (total)
        fprintf(stderr, "tiledconv: verification FAILED for --pyramid: %ld mismatches\n", total);
    return total;
}

static void print_timing(const tc_options *o, const findings *f)
{
    static const char *const names[2] = {"one launch per octave", "one launch per level"};
    printf("timing (ms; %d timed pyramid%s after 1 warm-up; each pyramid's kernel time is every "
           "launch's, from profiling events, summed):\n",
           o->iterations, o->iterations == 1 ? "" : "s");
    for (int s = 0; s < 2; s++) {
        if (!f->ran[s])
            continue;
        const tc_pyramid_stats *st = &f->stats[s];
        printf("  %-22s %3d launches  min %10.4f  median %10.4f  mean %10.4f  %7.2f GB/s%s\n",
               names[s], st->launches, f->kernel_ms[s][0], f->kernel_ms[s][1],
               f->kernel_ms[s][2], st->bytes / (f->kernel_ms[s][1] * 1e-3) / 1e9,
               s == 0 ? "  (written)" : "");
    }
    if (f->ran[0] && f->ran[1]) {
        printf("  per level / per octave: %.2fx the median kernel time; wall clock per pyramid "
               "%.4f and %.4f ms (launches included)\n",
               f->kernel_ms[1][1] / f->kernel_ms[0][1], f->stats[0].wall_ms_per_iteration,
               f->stats[1].wall_ms_per_iteration);
        if (f->identical)
            printf("  both launch styles gave the same levels, bit for bit\n");
        else
            printf("  the launch styles' levels DIFFER at %ld pixels\n", f->differing);
    }
    printf("  GB/s counts what the launches must move: each launch's source plane once per "
           "level it makes, each level, 4 bytes a pixel (%.1f MB per octave style pyramid)\n",
           f->stats[0].bytes / 1e6);
    printf("  build %.1f ms, upload %.4f ms, download %.4f ms (the levels)\n",
           f->stats[0].build_ms + (f->ran[1] ? f->stats[1].build_ms : 0.0),
           f->stats[0].upload_ms, f->stats[0].download_ms);
}

static void print_records(const tc_options *o, const tc_device_info *dev, const job *j,
                          const level_set *s, const findings *f, int first)
{
    const tc_pyramid_params p = options_pyramid_params(o);
    const int csv = o->format == TC_FORMAT_CSV;
    if (csv && first)
        report_pyramid_csv_header(stdout);
    for (int st = 0; st < 2; st++) {
        if (!f->ran[st])
            continue;
        report_pyramid_row r;
        memset(&r, 0, sizeof r);
        r.type = "pyramid";
        r.input = j->input ? j->input : "synthetic";
        r.device = dev->name;
        r.launch = tc_pyramid_launch_name((tc_pyramid_launch)st);
        r.octaves = p.octaves;
        r.levels = p.levels;
        r.sigma0 = p.sigma;
        r.border = tc_border_name(p.border);
        r.width = s->level[0].width;
        r.height = s->level[0].height;
        r.iterations = f->stats[st].iterations;
        r.launches = f->stats[st].launches;
        r.kernel_ms_min = f->kernel_ms[st][0];
        r.kernel_ms_median = f->kernel_ms[st][1];
        r.kernel_ms_mean = f->kernel_ms[st][2];
        r.wall_ms_per_iteration = f->stats[st].wall_ms_per_iteration;
        r.bytes = f->stats[st].bytes;
        r.gbytes_per_s = r.bytes / (r.kernel_ms_median * 1e-3) / 1e9;
        r.build_ms = f->stats[st].build_ms;
        r.h2d_ms = f->stats[st].upload_ms;
        r.d2h_ms = f->stats[st].download_ms;
        r.identical = st == 0 ? -1 : f->identical;
        r.verified = -1;
        report_pyramid_print(stdout, &r, !csv);
    }
    for (int i = 0; i < s->count; i++) {
        const tc_pyramid_level *l = &s->level[i];
        report_pyramid_row r;
        memset(&r, 0, sizeof r);
        r.type = "level";
        r.input = j->input ? j->input : "synthetic";
        r.launch = tc_pyramid_launch_name(TC_PYRAMID_PER_OCTAVE);
        r.width = l->width;
        r.height = l->height;
        r.octave = l->octave;
        r.level = l->level;
        r.sigma = l->sigma;
        r.sigma_input = l->sigma_input;
        r.sigma_applied = l->sigma_applied;
        r.taps = l->taps;
        r.output = j->image[i] ? j->image[i] : "";
        r.checked = f->checked;
        r.tolerance = f->tolerance[i];
        r.max_difference = f->max_difference[i];
        r.sha256 = f->sha256[i];
        r.verified = f->checked ? f->mismatches[i] == 0 : -1;
        report_pyramid_print(stdout, &r, !csv);
    }
}

/* Every level's 8-bit pixels digested (-e's records: what the image files hold). */
static int digests(const tc_options *o, const level_set *s, findings *f)
{
    for (int i = 0; i < s->count; i++) {
        const size_t n = (size_t)s->level[i].width * (size_t)s->level[i].height;
        uint8_t *bytes = malloc(n);
        const tc_plane p = {s->level[i].width, s->level[i].height, s->plane[i]};
        if (!bytes) {
            fprintf(stderr, "tiledconv: out of host memory for the levels' digests\n");
            return 1;
        }
        tc_plane_to_gray8(&p, NULL, o->out_scale, o->out_offset, bytes);
        sha256_hex(bytes, n, f->sha256[i]);
        free(bytes);
    }
    return 0;
}

/* One run of the library's pyramid, timed or not, into s; its figures into f. */
static int build(tc_context *ctx, const tc_options *o, const tc_plane *in, tc_pyramid_launch launch,
                 int timed, level_set *s, findings *f)
{
    tc_pyramid_params p = options_pyramid_params(o);
    p.launch = launch;
    const int status = timed ? tc_pyramid_timed(ctx, in->px, in->width, in->height, &p, s->plane,
                                                o->iterations)
                             : tc_pyramid(ctx, in->px, in->width, in->height, &p, s->plane);
    if (status != TC_OK) {
        fprintf(stderr, "tiledconv: --pyramid, %s: %s\n", tc_pyramid_launch_name(launch),
                tc_error(ctx));
        return status == TC_EINVAL ? 2 : 1;
    }
    tc_pyramid_stats *st = &f->stats[launch];
    tc_pyramid_last_stats(ctx, st);
    f->ran[launch] = 1;
    f->kernel_ms[launch][0] = st->kernel_ms_min;
    f->kernel_ms[launch][1] = st->kernel_ms_median;
    f->kernel_ms[launch][2] = st->kernel_ms_mean;
    st->kernel_ms = NULL; /* the context's, valid until its next call */
    return 0;
}

/* One image: read, build, check, report, write. Returns its exit status (reported). */
static int run_image(tc_context *ctx, const tc_device_info *dev, const tc_options *o,
                     const job *j, int first)
{
    const int chatty = !o->quiet && o->format == TC_FORMAT_TABLE;
    const int machine = o->format != TC_FORMAT_TABLE, timed = o->timing || machine;
    char what[TEXT_SHOWN_MAX + 16], err[1024];
    level_set got, other, ref, layout;
    tc_plane in = {0, 0, NULL};
    findings *f = calloc(1, sizeof *f);
    int w = 0, h = 0, deep = 0, rc;
    memset(&got, 0, sizeof got);
    memset(&other, 0, sizeof other);
    memset(&ref, 0, sizeof ref);
    if (!f) {
        fprintf(stderr, "tiledconv: out of host memory\n");
        return 1;
    }
    if (!j->input) {
        snprintf(what, sizeof what, "-g %dx%d", o->synth_width, o->synth_height);
    } else {
        text_shown shown;
        snprintf(what, sizeof what, "%s", text_show(source_name(j->input), &shown));
    }
    /* The layout from the header (standard input's after its pixels), the memory it needs
     * on the host, then the pixels. */
    if ((rc = input_size(o, j, &w, &h)) != 0 ||
        (w && (rc = layout_of(o, what, w, h, &layout)) != 0))
        goto done;
    if ((rc = read_input(o, j, what, &in, &deep)) != 0)
        goto done;
    if ((rc = layout_of(o, what, in.width, in.height, &layout)) != 0)
        goto done;
    unsigned long long level_bytes = 0;
    for (int i = 0; i < layout.count; i++)
        level_bytes += (unsigned long long)layout.level[i].width * layout.level[i].height * 4ULL;
    if (plan_check_host(what, level_bytes * (1ULL + (o->verify != 0) + (timed != 0)) +
                                  (unsigned long long)in.width * in.height * 2ULL,
                        err, sizeof err)) {
        fprintf(stderr, "tiledconv: %s\n", err);
        rc = 1;
        goto done;
    }
    if (levels_alloc(&got, &layout) || (timed && levels_alloc(&other, &layout)) ||
        (o->verify && levels_alloc(&ref, &layout))) {
        fprintf(stderr, "tiledconv: %s: out of host memory for the levels\n", what);
        rc = 1;
        goto done;
    }
    if (chatty)
        print_header(o, dev, what, &layout);

    /* The levels that are written: one launch per octave. With -t both styles run. */
    if ((rc = build(ctx, o, &in, TC_PYRAMID_PER_OCTAVE, timed, &got, f)) != 0 ||
        (timed && (rc = build(ctx, o, &in, TC_PYRAMID_PER_LEVEL, timed, &other, f)) != 0))
        goto done;
    if (timed) {
        f->identical = 1;
        for (int i = 0; i < got.count; i++) {
            const size_t n = (size_t)got.level[i].width * (size_t)got.level[i].height;
            for (size_t k = 0; k < n; k++)
                if (memcmp(&got.plane[i][k], &other.plane[i][k], sizeof(float)) != 0) {
                    f->identical = 0;
                    f->differing++;
                }
        }
    }
    if (chatty && !timed)
        printf("pyramid: %d levels from %d launch%s (one per octave)\n", got.count,
               f->stats[0].launches, f->stats[0].launches == 1 ? "" : "es");

    int failed = 0;
    if (o->verify) {
        char why[512];
        const tc_pyramid_params p = options_pyramid_params(o);
        if (tc_pyramid_reference(in.px, in.width, in.height, &p, ref.plane, why, sizeof why) !=
            TC_OK) {
            fprintf(stderr, "tiledconv: reference: %s\n", why);
            rc = 1;
            goto done;
        }
        tc_pyramid_tolerance(in.px, in.width, in.height, &p, f->tolerance);
        test_hook_corrupt(got.plane[0], in.width, in.height); /* tests: -e must catch it */
        failed = verify(o, &got, &ref, f) != 0;
        if ((rc = digests(o, &got, f)) != 0)
            goto done;
    }
    if (o->timing && !machine)
        print_timing(o, f);
    if (machine)
        print_records(o, dev, j, &got, f, first);
    if (failed) {
        if (chatty && (o->write_output || o->raw_flag))
            printf("output: not written, since verification failed\n");
        rc = 1;
        goto done;
    }
    if (o->output_dir) {
        outputs_item items[MAX_LEVELS];
        tc_plane planes[MAX_LEVELS];
        for (int i = 0; i < got.count; i++) {
            planes[i] = (tc_plane){got.level[i].width, got.level[i].height, got.plane[i]};
            items[i] = (outputs_item){&planes[i], j->image[i], j->raw[i]};
        }
        if (outputs_write_all(o, items, got.count, outputs_depth(o, deep), err, sizeof err)) {
            fprintf(stderr, "tiledconv: %s\n", err);
            rc = 1;
            goto done;
        }
        if (chatty) {
            char kind[64];
            outputs_describe(o->image_format, outputs_depth(o, deep), 1, kind, sizeof kind);
            if (o->write_output)
                printf("output: %d files %s/%s-oK-lJ.%s (%s), K < %d, J < %d\n", got.count,
                       o->output_dir, j->base, io_format_extension(o->image_format, 1), kind,
                       o->pyramid_octaves, o->pyramid_levels);
            if (o->raw_flag)
                printf("raw: %d files %s/%s-oK-lJ.f32 (float32, little-endian, row 0 first)\n",
                       got.count, o->output_dir, j->base);
        }
    }
    rc = 0;
done:
    levels_free(&got);
    levels_free(&other);
    levels_free(&ref);
    tc_plane_free(&in);
    free(f);
    return rc;
}

int pyramid_run(const tc_options *o, const char *device)
{
    batch_list list;
    job *jobs = NULL;
    tc_context *ctx = NULL;
    tc_device_info dev;
    char err[1024];
    int n = 1, rc = 0, written = 0, refused = 0, failed = 0;
    memset(&list, 0, sizeof list);
    if (!o->synth_width) {
        /* The inputs as a batch gathers them, without its output rules: ours are below. */
        tc_options gather = *o;
        gather.output_dir = NULL;
        gather.write_output = 0;
        gather.raw_flag = 0;
        gather.iterations = 1;
        if ((rc = inputs_gather(&gather, &list, err, sizeof err)) != 0) {
            fprintf(stderr, "tiledconv: %s\n", err);
            goto done;
        }
        n = list.count;
    }
    struct stat st;
    if (o->output_dir && (stat(o->output_dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
        text_shown shown;
        fprintf(stderr, "tiledconv: -O %s: not an existing folder\n",
                text_show(o->output_dir, &shown));
        rc = 2;
        goto done;
    }
    if (!(jobs = calloc((size_t)n, sizeof *jobs))) {
        fprintf(stderr, "tiledconv: out of host memory for %d inputs\n", n);
        rc = 1;
        goto done;
    }
    /* Every output name, and the rules about them, before any work. */
    for (int i = 0; i < n; i++) {
        jobs[i].input = o->synth_width ? NULL : list.items[i].input;
        if ((rc = job_names(o, &jobs[i], err, sizeof err)) != 0) {
            fprintf(stderr, "tiledconv: %s\n", err);
            goto done;
        }
        for (int k = 0; k < i && o->output_dir; k++)
            if (strcmp(jobs[k].base, jobs[i].base) == 0) {
                fprintf(stderr, "tiledconv: %s and %s: both would be written to "
                                "%s/%s-oK-lJ.*; rename one\n",
                        jobs[k].input, jobs[i].input, o->output_dir, jobs[i].base);
                rc = 2;
                goto done;
            }
    }
    if ((rc = check_levels_distinct(o, jobs, n, err, sizeof err)) != 0) {
        fprintf(stderr, "tiledconv: %s\n", err);
        goto done;
    }
    if ((rc = tc_open(device, &ctx, err, sizeof err)) != TC_OK) {
        fprintf(stderr, "tiledconv: %s%s\n", err, rc == TC_EINVAL ? ", see -l" : "");
        rc = rc == TC_EINVAL ? 2 : 1;
        goto done;
    }
    tc_context_device(ctx, &dev);
    for (int i = 0; i < n; i++) {
        const int status = run_image(ctx, &dev, o, &jobs[i], i == 0);
        written += status == 0;
        failed += status == 1;
        refused += status == 2;
    }
    if (n > 1 && (!o->quiet || refused + failed > 0))
        fprintf(stderr, "tiledconv: %d of %d images %s; %d refused; %d failed\n", written, n,
                o->write_output || o->raw_flag ? "written" : "processed", refused, failed);
    rc = failed ? 1 : refused ? 2 : 0;
done:
    for (int i = 0; jobs && i < n; i++)
        job_free(&jobs[i]);
    free(jobs);
    report_build_log(o, ctx);
    tc_close(ctx);
    inputs_free(&list);
    return rc;
}
