/* report.c - printing the figures. Every derived figure says what it counts. */
#include "report.h"

#include "tiledconv_internal.h"
#include "source.h"

#include <stddef.h>
#include <string.h>

/* Smallest value, median and mean of n values. */
static void summarise(const double *v, int n, double *min, double *median, double *mean)
{
    double lo = v[0], sum = 0.0;
    for (int i = 0; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        sum += v[i];
    }
    *min = lo;
    *median = tc_median(v, n);
    *mean = sum / n;
}

void report_fill_timing(tc_result *r, const report_times *t, double copy_ms)
{
    const double pixels = (double)r->roi_width * (double)r->roi_height;
    /* With --color the kernel times are the three planes' runs summed (main.c), so the bytes
     * and the copy floor count three planes too. */
    const int planes = r->planes > 0 ? r->planes : 1;
    r->iterations = t->iterations;
    summarise(t->kernel_ms, t->iterations, &r->kernel_ms_min, &r->kernel_ms_median,
              &r->kernel_ms_mean);
    r->passes = t->passes;
    for (int p = 0; p < 2 && t->passes == 2; p++)
        summarise(t->pass_ms[p], t->iterations, &r->pass_ms_min[p], &r->pass_ms_median[p],
                  &r->pass_ms_mean[p]);
    r->build_ms = t->build_ms;
    r->h2d_ms = t->h2d_ms;
    r->d2h_ms = t->d2h_ms;
    r->wall_ms_per_iteration = t->wall_ms_per_iteration;
    r->copy_ms = copy_ms * planes;
    r->mpixels_per_s = pixels / (r->kernel_ms_median * 1e-3) / 1e6;
    r->gbytes_per_s = 8.0 * planes * pixels / (r->kernel_ms_median * 1e-3) / 1e9;
    r->copy_gbytes_per_s = 8.0 * planes * pixels / (r->copy_ms * 1e-3) / 1e9;
    r->copy_fraction = r->copy_ms / r->kernel_ms_median;
}

void report_timing(FILE *out, const tc_result *r)
{
    const int colour = r->planes > 1;
    fprintf(out, "timing, %s (ms; %d timed iteration%s after 1 warm-up, from profiling events):\n",
            r->label ? r->label : r->algorithm, r->iterations, r->iterations == 1 ? "" : "s");
    if (colour)
        fprintf(out, "  (--color: each figure is the sum over the %d planes R, G and B, each "
                     "filtered by its own run)\n", r->planes);
    fprintf(out, "  kernel           min %10.4f   median %10.4f   mean %10.4f\n",
            r->kernel_ms_min, r->kernel_ms_median, r->kernel_ms_mean);
    for (int p = 0; r->passes == 2 && p < 2; p++)
        fprintf(out, "  pass %d, %-7s  min %10.4f   median %10.4f   mean %10.4f\n", p + 1,
                p == 0 ? "rows" : "columns", r->pass_ms_min[p], r->pass_ms_median[p],
                r->pass_ms_mean[p]);
    fprintf(out, "  copy floor                  median %10.4f   (%sclEnqueueCopyBuffer of the "
                 "ROI's %.2f MB%s)\n",
            r->copy_ms, colour ? "3 x " : "", 4.0 * r->roi_width * (double)r->roi_height / 1e6,
            colour ? " per plane" : "");
    fprintf(out, "  program build    %10.2f%s\n", r->build_ms,
            r->build_ms == 0.0 ? "   (already built in this process)" : "");
    fprintf(out, "  host to device   %10.4f   (input plane and coefficients)\n", r->h2d_ms);
    fprintf(out, "  device to host   %10.4f   (output plane)\n", r->d2h_ms);
    fprintf(out, "throughput, %s (median kernel time):\n", r->label ? r->label : r->algorithm);
    fprintf(out, "  %10.2f MPixels/s of the target ROI\n", r->mpixels_per_s);
    fprintf(out, "  %10.2f GB/s effective, counting 8 bytes per pixel%s (one float read, one "
                 "written)\n", r->gbytes_per_s, colour ? " and plane" : "");
    fprintf(out, "  %10.1f %% of the device's copy bandwidth (%.2f GB/s for the same bytes)\n",
            100.0 * r->copy_fraction, r->copy_gbytes_per_s);
    /* One line in the form of NVIDIA's convolutionSeparable sample, for scripts that grep. */
    fprintf(out, "Throughput = %.4f MPixels/sec, Time = %.5f s, Size = %ld Pixels\n",
            r->mpixels_per_s, r->kernel_ms_median * 1e-3,
            (long)r->roi_width * (long)r->roi_height);
}

static const char *verdict(const tc_result *r)
{
    return r->verified < 0 ? "not checked" : r->verified ? "PASSED" : "FAILED";
}

void report_comparison(FILE *out, const tc_result *rows, int count)
{
    char size[48];
    if (strcmp(rows[0].mask, "none") != 0)
        snprintf(size, sizeof size, "%d x %d mask%s", rows[0].taps, rows[0].taps_y,
                 strstr(rows[0].mask, "separable") ? " (separable: factored)" : "");
    else if (rows[0].taps != rows[0].taps_y)
        snprintf(size, sizeof size, "%d x %d taps", rows[0].taps, rows[0].taps_y);
    else
        snprintf(size, sizeof size, "%d taps", rows[0].taps);
    fprintf(out, "\n%d x %d image, %d x %d ROI, %s, %d iterations%s; times in ms from "
                 "profiling events; copy floor %.4f ms\n",
            rows[0].width, rows[0].height, rows[0].roi_width, rows[0].roi_height, size,
            rows[0].iterations,
            rows[0].planes > 1 ? ", R, G and B planes (times summed over the planes)" : "",
            rows[0].copy_ms);
    fprintf(out, "%-13s %10s %10s %11s %9s %8s %9s  %s\n", "algorithm", "median", "min",
            "MPixels/s", "GB/s", "% copy", "vs tiled", "verification");
    for (int i = 0; i < count; i++) {
        const tc_result *r = &rows[i];
        if (r->not_applicable) {
            fprintf(out, "%-13s %10s %10s %11s %9s %8s %9s  not applicable: %s\n",
                    r->label ? r->label : r->algorithm, "-", "-", "-", "-", "-", "-",
                    r->not_applicable);
            continue;
        }
        fprintf(out, "%-13s %10.4f %10.4f %11.1f %9.2f %7.1f%% %8.2fx  %s\n",
                r->label ? r->label : r->algorithm,
                r->kernel_ms_median, r->kernel_ms_min, r->mpixels_per_s, r->gbytes_per_s,
                100.0 * r->copy_fraction, r->kernel_ms_median / rows[0].kernel_ms_median,
                verdict(r));
        for (int p = 0; r->passes == 2 && p < 2; p++)
            fprintf(out, "%-13s %10.4f %10.4f %11s %9s %8s %9s  %s\n", p ? "  pass 2" : "  pass 1",
                    r->pass_ms_median[p], r->pass_ms_min[p], "", "", "", "", "");
    }
    fprintf(out, "GB/s counts 8 bytes per target pixel and plane; %% copy is the copy floor's "
                 "time over the median; 'vs tiled' is the median over tiled's median.\n");
}

/* ---- The header and the launch geometry (the human-readable mode) ---------------------- */

static void print_coefficients(const float *k, int taps)
{
    for (int i = 0; i < taps; i++)
        printf(" %g", k[i]);
}

const char *report_filter_size(const tc_filter_spec *f, char *buf, size_t size)
{
    if (f->mask_width)
        snprintf(buf, size, "%d x %d mask", f->mask_width, f->mask_height);
    else if (f->taps_x != f->taps_y)
        snprintf(buf, size, "%d x %d taps", f->taps_x, f->taps_y);
    else
        snprintf(buf, size, "%d taps", f->taps_x);
    return buf;
}

/* A mask's weights, rows separated by ';' (as --mask takes them). */
static void print_mask(const tc_filter_spec *f)
{
    for (int j = 0; j < f->mask_height; j++) {
        printf("%s", j ? ";" : "");
        print_coefficients(f->mask + j * f->mask_width, f->mask_width);
    }
}

static void print_filter(const tc_options *o)
{
    const tc_filter_spec *f = &o->filter;
    char size[48];
    printf("filter: ");
    if (o->named_filter >= 0)
        printf("%s, ", tc_named_name((tc_named)o->named_filter));
    printf("%s", report_filter_size(f, size, sizeof size));
    if (o->named_filter == TC_NAMED_GAUSS) {
        if (o->sigma > 0.0 || f->taps_x == f->taps_y)
            printf(", sigma %g", o->sigma > 0.0 ? o->sigma : tc_gauss_default_sigma(f->taps_x));
        else
            printf(", sigma %g along rows, %g along columns", tc_gauss_default_sigma(f->taps_x),
                   tc_gauss_default_sigma(f->taps_y));
    }
    if (o->named_filter == TC_NAMED_SHARPEN)
        printf(", amount %g", o->amount);
    if (f->mask_width) {
        printf(":");
        print_mask(f);
    } else if (f->taps_x == f->taps_y && memcmp(f->kx, f->ky, sizeof f->kx) == 0) {
        printf(":");
        print_coefficients(f->kx, f->taps_x);
        printf(" (rows and columns)");
    } else {
        printf(": rows");
        print_coefficients(f->kx, f->taps_x);
        printf("; columns");
        print_coefficients(f->ky, f->taps_y);
    }
    printf("; border %s", tc_border_name(f->border));
    if (f->border == TC_BORDER_CONSTANT)
        printf(" %g", f->border_value);
    printf("\n");
    /* -v: whether a mask was found separable, and what runs it. */
    if (o->verbose && f->mask_width && f->mask_separable) {
        printf("mask: rank 1 (separable within float32 rounding), factored into rows (kx)");
        print_coefficients(f->kx, f->taps_x);
        printf(" and columns (ky)");
        print_coefficients(f->ky, f->taps_y);
        printf("; runs on the separable kernels (-e checks against the mask's own weights)\n");
    } else if (o->verbose && f->mask_width) {
        printf("mask: not separable (rank 2 or more): runs on the 2-D kernels %s and %s; twopass "
               "does not apply\n",
               tc_mask_kernel_name(TC_TILED), tc_mask_kernel_name(TC_ONEPASS));
    }
}

void report_header(const tc_options *o, const tc_device_info *dev, int width, int height,
                   int planes, const tc_roi *roi)
{
    printf("device: %s [platform %d: %s]\n", dev->name, dev->platform, dev->platform_name);
    if (o->synth_width)
        printf("input: synthetic %d x %d\n", width, height);
    else
        printf("input: %s (%d x %d)\n", source_name(o->input), width, height);
    if (planes == 3)
        printf("planes: R, G and B, each filtered on its own (--color)\n");
    printf("ROI: %d x %d, source at (%d, %d), target at (%d, %d)\n", roi->width, roi->height,
           roi->src_left, roi->src_top, roi->dst_left, roi->dst_top);
    if (o->gradient) /* cli/gradient_run.c */
        printf("gradient: %s, one read (gx: [-1 0 1] along rows, [%s] down columns; gy the "
               "other way round); magnitude sqrt(gx^2 + gy^2); border %s\n",
               o->gradient == 1 ? "sobel" : "scharr", o->gradient == 1 ? "1 2 1" : "3 10 3",
               tc_border_name(o->filter.border));
    else
        print_filter(o);
    if (!o->all_algorithms && o->algorithm == TC_BILINEAR)
        printf("source: an image2d_t (CL_R, CL_FLOAT) sampled with linear filtering, two taps a "
               "sample (bilinear)\n");
    else if (o->storage == TC_STORAGE_IMAGE)
        printf("source: an image2d_t (CL_R, CL_FLOAT) read through a nearest sampler (--storage "
               "image)%s\n", o->all_algorithms ? ", beside the buffer rows; and bilinear" : "");
    if (o->out_scale != 1.0 || o->out_offset != 0.0)
        printf("image mapping: v * %g + %g inside the target ROI, before the 8-bit conversion "
               "(-e and --raw see v)\n", o->out_scale, o->out_offset);
}

void report_geometry(const tc_stats *st, const tc_filter_spec *f, const char *kernel)
{
    tc_kernel_about k;
    tc_kernel_describe(f, st->algorithm, kernel, &k);
    printf("launch, %s%s (%s%s%s): global %zu x %zu, local %zu x %zu, %zu work-groups\n",
           tc_algorithm_name(st->algorithm),
           st->algorithm == TC_TWOPASS || st->algorithm == TC_BILINEAR ? " pass 1" : "",
           k.name, k.variant ? ", variant " : "", k.variant ? k.variant : "",
           st->global[0], st->global[1], st->local[0], st->local[1],
           (st->global[0] / st->local[0]) * (st->global[1] / st->local[1]));
    if (st->algorithm == TC_TWOPASS) { /* pass 2 runs over the transposed ROI */
        const size_t tile = TC_TWOPASS_TILE;
        const size_t g0 = ((size_t)st->roi_height + tile - 1) / tile * tile;
        const size_t g1 = ((size_t)st->roi_width + tile - 1) / tile * tile;
        printf("launch, twopass pass 2: global %zu x %zu, local %zu x %zu, %zu work-groups\n", g0,
               g1, st->local[0], st->local[1], (g0 / st->local[0]) * (g1 / st->local[1]));
    }
    if (st->algorithm == TC_BILINEAR) /* pass 2 runs over the same ROI */
        printf("launch, bilinear pass 2 (bilinear_cols): global %zu x %zu, local %zu x %zu "
               "(the same)\n",
               st->global[0], st->global[1], st->local[0], st->local[1]);
    if (k.strip_tile_w) /* its classes are per tile, a group walks many */
        printf("  blocks of %d x %d pixels per work-item; tiles of %d x %d, each work-group "
               "walking down a strip of them; tile classes (radii %d x %d, %s): class 1 (free "
               "on read) %ld, class 2 (checks reads) %ld, class 3 (free on write) %ld, class 4 "
               "(checks writes) %ld\n",
               st->block[0], st->block[1], k.strip_tile_w,
               (int)(st->local[0] * (size_t)st->block[0] * (size_t)st->block[1] /
                     (size_t)k.strip_tile_w),
               (f->taps_x - 1) / 2, (f->taps_y - 1) / 2,
               st->classes_counted ? "counted by the kernel" : "predicted", st->classes[0],
               st->classes[1], st->classes[2], st->classes[3]);
    else if (k.tiled)
        printf("  %s %d x %d pixels per work-item; work-group classes (radii %d x %d, %s): "
               "class 1 (free on read) %ld, class 2 (checks reads) %ld, class 3 (free on write) "
               "%ld, class 4 (checks writes) %ld\n",
               k.columns ? "columns of" : "blocks of", st->block[0], st->block[1],
               (f->taps_x - 1) / 2, (f->taps_y - 1) / 2,
               st->classes_counted ? "counted by the kernel" : "predicted", st->classes[0],
               st->classes[1], st->classes[2], st->classes[3]);
}

/* One axis's samples: "3 along rows (taps 0+1, 2+3, 4 alone)". */
static void print_samples(const char *name, const char *along, const float *k, int taps)
{
    tc_bilinear_axis a;
    const int r = (taps - 1) / 2;
    if (tc_bilinear_pair(k, taps, &a, NULL))
        return;
    printf("  %s: %d samples along %s (taps", name, a.fetches, along);
    for (int s = 0; s < a.fetches; s++) {
        const int t = (int)a.sample[s][0] + r;
        if (s == a.lone)
            printf("%s %d alone", s ? "," : "", t);
        else
            printf("%s %d+%d at %.4f", s ? "," : "", t, t + 1, a.sample[s][1] - 0.5f + t);
    }
    printf(") instead of %d\n", taps);
}

void report_bilinear(const tc_filter_spec *f)
{
    printf("bilinear: one linearly filtered sample reads two neighbouring taps (position the "
           "tap index plus w2 / (w1 + w2))\n");
    print_samples("kx", "rows", f->kx, f->taps_x);
    print_samples("ky", "columns", f->ky, f->taps_y);
}

/* ---- Machine-readable records: one table of fields drives the CSV header, the CSV rows and
 * the JSON records, so the three cannot disagree. ------------------------------------------ */

typedef enum {
    FIELD_WORD,      /* a string without commas or quotes: bare in CSV */
    FIELD_TEXT,      /* any string: quoted in CSV */
    FIELD_INT,       /* an int */
    FIELD_REAL,      /* a double, printed with `decimals` */
    FIELD_PASS_REAL, /* a double that exists only for two-pass runs: empty / null otherwise */
    FIELD_VERDICT,   /* verified: 1 true, 0 false, -1 empty / null */
    FIELD_CHECK_REAL,/* a double of -e: empty / null when nothing was checked */
    FIELD_CHECK_HEX, /* a char array of -e (the digest): empty / null when not checked */
    FIELD_ROW_CHECK_REAL, /* the same in a batch's image row (report_row.checked) */
    FIELD_ROW_CHECK_HEX,
    FIELD_PYR_CHECK_REAL, /* the same in a --pyramid level row (report_pyramid_row.checked) */
    FIELD_PYR_CHECK_HEX,
    FIELD_JSON_WORD  /* a word of JSON records alone, absent where NULL: no CSV column, so that
                      * the CSV's columns stay what they were */
} field_kind;

typedef struct {
    const char *name;
    field_kind kind;
    size_t offset; /* into the record: tc_result, or report_row for a batch */
    int decimals;
    unsigned rows; /* batch tables: the kinds of row that have it (ROW_IMAGE, ROW_BATCH) */
} field;

#define WORD(n) {#n, FIELD_WORD, offsetof(tc_result, n), 0, 0}
#define TEXT(n) {#n, FIELD_TEXT, offsetof(tc_result, n), 0, 0}
#define INT(n) {#n, FIELD_INT, offsetof(tc_result, n), 0, 0}
#define REAL(n, d) {#n, FIELD_REAL, offsetof(tc_result, n), d, 0}

static const field fields[] = {
    WORD(algorithm), INT(taps), INT(width), INT(height), INT(roi_width), INT(roi_height),
    INT(iterations), REAL(kernel_ms_min, 6), REAL(kernel_ms_median, 6), REAL(kernel_ms_mean, 6),
    {"pass1_ms_median", FIELD_PASS_REAL, offsetof(tc_result, pass_ms_median[0]), 6, 0},
    {"pass2_ms_median", FIELD_PASS_REAL, offsetof(tc_result, pass_ms_median[1]), 6, 0},
    REAL(wall_ms_per_iteration, 6), REAL(copy_ms, 6), REAL(build_ms, 3), REAL(h2d_ms, 6),
    REAL(d2h_ms, 6), REAL(mpixels_per_s, 3), REAL(gbytes_per_s, 3), REAL(copy_fraction, 4),
    TEXT(device), {"verified", FIELD_VERDICT, offsetof(tc_result, verified), 0, 0},
    INT(planes), WORD(type), INT(taps_y), WORD(mask),
    {"tolerance", FIELD_CHECK_REAL, offsetof(tc_result, tolerance), 9, 0},
    {"max_difference", FIELD_CHECK_REAL, offsetof(tc_result, max_error), 9, 0},
    {"sha256", FIELD_CHECK_HEX, offsetof(tc_result, sha256), 0, 0},
    WORD(storage),
};
#define FIELD_COUNT (sizeof fields / sizeof fields[0])

/* A string in CSV: quoted, with inner quotes doubled. */
static void csv_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

/* One field's value; `json` selects the JSON spelling of strings and missing values. */
static void print_value(FILE *out, const void *record, int passes, const field *f, int json)
{
    const char *base = (const char *)record + f->offset;
    switch (f->kind) {
    case FIELD_JSON_WORD:
    case FIELD_WORD:
    case FIELD_TEXT: {
        const char *s = *(const char *const *)(const void *)base;
        if (f->kind == FIELD_WORD && !json)
            fputs(s ? s : "", out);
        else
            (json ? json_string : csv_string)(out, s ? s : "");
        break;
    }
    case FIELD_INT:
        fprintf(out, "%d", *(const int *)(const void *)base);
        break;
    case FIELD_PASS_REAL:
        if (passes != 2) {
            fputs(json ? "null" : "", out);
            break;
        }
        /* fall through */
    case FIELD_REAL:
        fprintf(out, "%.*f", f->decimals, *(const double *)(const void *)base);
        break;
    case FIELD_VERDICT: {
        const int v = *(const int *)(const void *)base;
        fputs(v < 0 ? (json ? "null" : "") : v ? "true" : "false", out);
        break;
    }
    case FIELD_CHECK_REAL: /* only tc_result records have these: `passes` is unused */
        if (((const tc_result *)record)->verified < 0)
            fputs(json ? "null" : "", out);
        else
            fprintf(out, "%.*g", f->decimals, *(const double *)(const void *)base);
        break;
    case FIELD_CHECK_HEX: /* lowercase hex: bare in CSV */
        if (!base[0])
            fputs(json ? "null" : "", out);
        else if (json)
            json_string(out, base);
        else
            fputs(base, out);
        break;
    case FIELD_ROW_CHECK_REAL:
    case FIELD_ROW_CHECK_HEX:
    case FIELD_PYR_CHECK_REAL:
    case FIELD_PYR_CHECK_HEX: {
        const int pyr = f->kind == FIELD_PYR_CHECK_REAL || f->kind == FIELD_PYR_CHECK_HEX;
        const int checked = pyr ? ((const report_pyramid_row *)record)->checked
                                : ((const report_row *)record)->checked;
        const char *hex = pyr ? ((const report_pyramid_row *)record)->sha256
                              : ((const report_row *)record)->sha256;
        const int real = f->kind == FIELD_ROW_CHECK_REAL || f->kind == FIELD_PYR_CHECK_REAL;
        if (!checked || (!real && (!hex || !hex[0])))
            fputs(json ? "null" : "", out);
        else if (real)
            fprintf(out, "%.*g", f->decimals, *(const double *)(const void *)base);
        else if (json)
            json_string(out, hex);
        else
            fputs(hex, out);
        break;
    }
    }
}

void report_csv_header(FILE *out)
{
    for (size_t i = 0; i < FIELD_COUNT; i++)
        fprintf(out, "%s%s", i ? "," : "", fields[i].name);
    fputc('\n', out);
}

void report_csv(FILE *out, const tc_result *r)
{
    if (r->not_applicable) /* -a all: an algorithm that did not run has no record */
        return;
    for (size_t i = 0; i < FIELD_COUNT; i++) {
        if (i)
            fputc(',', out);
        print_value(out, r, r->passes, &fields[i], 0);
    }
    fputc('\n', out);
}

void report_json(FILE *out, const tc_result *r)
{
    if (r->not_applicable)
        return;
    for (size_t i = 0; i < FIELD_COUNT; i++) {
        fprintf(out, "%s\"%s\": ", i ? ", " : "{", fields[i].name);
        print_value(out, r, r->passes, &fields[i], 1);
    }
    fputs("}\n", out);
}

/* ---- Batch records: one row per image, then one for the batch. ------------------------- */

/* The fields of a table of records of several kinds (the batch's, --pyramid's): member n of
 * RECORD, the struct the table describes (defined just before each table), printed as `kind`
 * with d decimals, in the kinds of row `rows` (bits of the table's own enum). */
#define RFIELD(n, kind, d, rows) {#n, kind, offsetof(RECORD, n), d, rows}
#define RWORD(n, rows) RFIELD(n, FIELD_WORD, 0, rows)
#define RTEXT(n, rows) RFIELD(n, FIELD_TEXT, 0, rows)
#define RINT(n, rows) RFIELD(n, FIELD_INT, 0, rows)
#define RREAL(n, d, rows) RFIELD(n, FIELD_REAL, d, rows)
/* The columns of a check (-e), in every table that has one: the tolerance, the largest
 * difference and the output's SHA-256, as `real` and `hex` (the table's kinds for them). */
#define RCHECK(real, hex, rows) \
    RFIELD(tolerance, real, 9, rows), RFIELD(max_difference, real, 9, rows), \
        RFIELD(sha256, hex, 0, rows)

enum { ROW_IMAGE = 1, ROW_BATCH = 2, ROW_BOTH = 3 };
#define RECORD report_row
static const field batch_fields[] = {
    RWORD(type, ROW_BOTH),          RTEXT(input, ROW_IMAGE),        RTEXT(output, ROW_IMAGE),
    RWORD(status, ROW_IMAGE),       RINT(width, ROW_IMAGE),         RINT(height, ROW_IMAGE),
    RINT(images, ROW_BATCH),        RINT(written, ROW_BATCH),       RINT(refused, ROW_BATCH),
    RINT(failed, ROW_BATCH),        RREAL(seconds, 4, ROW_BATCH),
    RREAL(images_per_s, 2, ROW_BATCH),
    RREAL(startup_ms, 3, ROW_BATCH), RREAL(read_ms, 3, ROW_BOTH),   RREAL(upload_ms, 3, ROW_BOTH),
    RREAL(convert_ms, 3, ROW_BOTH), RREAL(kernel_ms, 4, ROW_BOTH),  RREAL(download_ms, 3, ROW_BOTH),
    RREAL(write_ms, 3, ROW_BOTH),   RINT(readers, ROW_BATCH),       RINT(lanes, ROW_BATCH),
    RINT(writers, ROW_BATCH),       RTEXT(error, ROW_IMAGE),
    RCHECK(FIELD_ROW_CHECK_REAL, FIELD_ROW_CHECK_HEX, ROW_IMAGE),
    RFIELD(jpeg_decode, FIELD_JSON_WORD, 0, ROW_IMAGE),
    RFIELD(jpeg_encode, FIELD_JSON_WORD, 0, ROW_IMAGE),
};
#undef RECORD
#define BATCH_FIELD_COUNT (sizeof batch_fields / sizeof batch_fields[0])

/* The CSV header of a table of records of several kinds. */
static void print_kinds_header(FILE *out, const field *fields, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (fields[i].kind != FIELD_JSON_WORD)
            fprintf(out, "%s%s", i ? "," : "", fields[i].name);
    fputc('\n', out);
}

/* A record of one kind (a bit of field.rows): the columns it does not have are empty in CSV,
 * absent in JSON. */
static void print_kind(FILE *out, const void *record, const field *fields, size_t count,
                       unsigned kind, int json)
{
    int first = 1;
    for (size_t i = 0; i < count; i++) {
        const field *f = &fields[i];
        if (json && !(f->rows & kind))
            continue;
        if (f->kind == FIELD_JSON_WORD &&
            (!json || !*(const char *const *)(const void *)((const char *)record + f->offset)))
            continue;
        if (json)
            fprintf(out, "%s\"%s\": ", first ? "{" : ", ", f->name);
        else if (!first)
            fputc(',', out);
        first = 0;
        if (f->rows & kind)
            print_value(out, record, 1, f, json);
    }
    fputs(json ? "}\n" : "\n", out);
}

void report_row_csv_header(FILE *out)
{
    print_kinds_header(out, batch_fields, BATCH_FIELD_COUNT);
}

void report_row_print(FILE *out, const report_row *r, int json)
{
    print_kind(out, r, batch_fields, BATCH_FIELD_COUNT,
               strcmp(r->type, "batch") == 0 ? ROW_BATCH : ROW_IMAGE, json);
}

/* ---- --pyramid's records: a row per launch style, a row per level. ---------------------- */

enum { ROW_PYRAMID = 1, ROW_LEVEL = 2, ROW_PYRAMID_LEVEL = 3 };
#define RECORD report_pyramid_row
static const field pyramid_fields[] = {
    RWORD(type, ROW_PYRAMID_LEVEL),     RTEXT(input, ROW_PYRAMID_LEVEL),
    RTEXT(device, ROW_PYRAMID),         RWORD(launch, ROW_PYRAMID_LEVEL),
    RINT(octaves, ROW_PYRAMID),         RINT(levels, ROW_PYRAMID),
    RREAL(sigma0, 6, ROW_PYRAMID),      RWORD(border, ROW_PYRAMID),
    RINT(width, ROW_PYRAMID_LEVEL),     RINT(height, ROW_PYRAMID_LEVEL),
    RINT(iterations, ROW_PYRAMID),      RINT(launches, ROW_PYRAMID),
    RREAL(kernel_ms_min, 6, ROW_PYRAMID), RREAL(kernel_ms_median, 6, ROW_PYRAMID),
    RREAL(kernel_ms_mean, 6, ROW_PYRAMID), RREAL(wall_ms_per_iteration, 6, ROW_PYRAMID),
    RREAL(bytes, 0, ROW_PYRAMID),       RREAL(gbytes_per_s, 3, ROW_PYRAMID),
    RREAL(build_ms, 3, ROW_PYRAMID),    RREAL(h2d_ms, 6, ROW_PYRAMID),
    RREAL(d2h_ms, 6, ROW_PYRAMID),
    RFIELD(identical, FIELD_VERDICT, 0, ROW_PYRAMID),
    RINT(octave, ROW_LEVEL),            RINT(level, ROW_LEVEL),
    RREAL(sigma, 6, ROW_LEVEL),         RREAL(sigma_input, 6, ROW_LEVEL),
    RREAL(sigma_applied, 6, ROW_LEVEL), RINT(taps, ROW_LEVEL),
    RTEXT(output, ROW_LEVEL),
    RFIELD(verified, FIELD_VERDICT, 0, ROW_LEVEL),
    RCHECK(FIELD_PYR_CHECK_REAL, FIELD_PYR_CHECK_HEX, ROW_LEVEL),
};
#undef RECORD
#define PYRAMID_FIELD_COUNT (sizeof pyramid_fields / sizeof pyramid_fields[0])

void report_pyramid_csv_header(FILE *out)
{
    print_kinds_header(out, pyramid_fields, PYRAMID_FIELD_COUNT);
}

void report_pyramid_print(FILE *out, const report_pyramid_row *r, int json)
{
    print_kind(out, r, pyramid_fields, PYRAMID_FIELD_COUNT,
               strcmp(r->type, "pyramid") == 0 ? ROW_PYRAMID : ROW_LEVEL, json);
}

void report_device_json(FILE *out, const tc_device_info *d, int is_default)
{
    fprintf(out, "{\"type\": \"device\", \"platform\": %d, \"device\": %d, \"platform_name\": ",
            d->platform, d->device);
    json_string(out, d->platform_name);
    fputs(", \"name\": ", out);
    json_string(out, d->name);
    fprintf(out,
            ", \"device_type\": \"%s\", \"compute_units\": %u, \"global_mem_bytes\": %llu, "
            "\"max_alloc_bytes\": %llu, \"local_mem_bytes\": %llu, \"double\": %s, "
            "\"default\": %s}\n",
            d->is_gpu ? "gpu" : d->is_cpu ? "cpu" : "other", d->compute_units,
            d->global_mem_bytes, d->max_alloc_bytes, d->local_mem_bytes,
            d->has_double ? "true" : "false", is_default ? "true" : "false");
}

void report_build_log(const tc_options *o, const tc_context *ctx)
{
    const char *log = ctx ? tc_build_log(ctx) : "";
    while (o->verbose && *log) {
        const size_t n = strcspn(log, "\n");
        fprintf(stderr, "tiledconv: compiler: %.*s\n", (int)n, log);
        log += n + (log[n] == '\n');
    }
}
