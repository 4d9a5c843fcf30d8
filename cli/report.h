/* report.h - the figures of one run, and how they are printed: an aligned table for people,
 * CSV and JSON records for scripts. */
#ifndef TILEDCONV_REPORT_H
#define TILEDCONV_REPORT_H

#include <stdio.h>

#include "tiledconv_internal.h"
#include "option_parse.h"
#include "tiledconv.h"


typedef struct {
    const char *algorithm;
    const char *label;         /* the algorithm as the table names it: "tiled/image" when it
                                * reads an image (--storage image), else the algorithm */
    const char *storage;       /* "buffer" or "image": where the source plane was read */
    const char *device;
    int taps;                  /* kx's length (a mask's width) */
    int planes;                /* 1, or 3 with --color: the timing figures cover all planes */
    int width, height;         /* the image */
    int roi_width, roi_height; /* the ROI */
    int iterations;
    double kernel_ms_min, kernel_ms_median, kernel_ms_mean;
    int passes;                /* 2 for twopass, whose passes are timed apart; else 1 */
    double pass_ms_min[2], pass_ms_median[2], pass_ms_mean[2]; /* twopass: each pass */
    double copy_ms;            /* clEnqueueCopyBuffer of the ROI's bytes, median */
    double build_ms, h2d_ms, d2h_ms;
    double wall_ms_per_iteration; /* host wall clock per timed iteration, launches included */
    double mpixels_per_s;      /* target ROI pixels per second, millions */
    double gbytes_per_s;       /* 8 bytes per target pixel (one float read, one written) */
    double copy_gbytes_per_s;  /* the same bytes over copy_ms */
    double copy_fraction;      /* copy_ms / kernel_ms_median: 1.0 is the copy's speed */
    int verified;              /* 1 passed, 0 failed, -1 not checked */
    const char *type;          /* "image": the kind of record, as a batch's rows have */
    char sha256[65];           /* -e: SHA-256 of the 8-bit output pixels (row 0 first, no
                                * padding, R G B for colour); "" when not checked */
    long mismatches;
    double tolerance, max_error;
    int taps_y;                /* ky's length (a mask's height) */
    const char *mask;          /* "none"; "WxH" for a mask run on the 2-D kernels; "WxH-separable"
                                * for one factored and run on the separable kernels */
    const char *not_applicable; /* -a all: why this algorithm did not run (twopass and a mask
                                 * that is not separable); NULL when it ran */
} tc_result;

/* The times of one algorithm's runs, over every plane: per timed iteration, the planes'
 * kernel times summed (main.c adds them up from each plane's tc_stats). */
typedef struct {
    int iterations;
    double *kernel_ms;   /* iterations values */
    int passes;          /* 2 for twopass */
    double *pass_ms[2];  /* twopass: each pass per iteration */
    double build_ms, h2d_ms, d2h_ms, wall_ms_per_iteration;
} report_times;

/* Fills the timing fields of r from the runs' times and the measured copy time. */
void report_fill_timing(tc_result *r, const report_times *t, double copy_ms);

/* What the run is about: the device, the input, the planes, the ROI, the filter and the
 * output mapping (the human-readable mode's first lines). */
void report_header(const tc_options *o, const tc_device_info *dev, int width, int height,
                   int planes, const tc_roi *roi);

/* -v: the launch geometry of a run and, for tiled, its kernel (the variant named by --kernel,
 * NULL for the default), blocks and work-group classes. */
void report_geometry(const tc_stats *st, const tc_filter_spec *f, const char *kernel);

/* The filter's size as the records and the comparison table name it: "5 taps", "7 x 3 taps",
 * "3 x 3 mask". */
const char *report_filter_size(const tc_filter_spec *f, char *buf, size_t size);

/* -v for bilinear: the samples per output pixel along each axis, and which taps each reads. */
void report_bilinear(const tc_filter_spec *f);

/* Timing for one algorithm, as aligned lines (the -t output). */
void report_timing(FILE *out, const tc_result *r);

/* With -v, what the device's compiler said while building ctx's programs (tc_build_log), a
 * line of stderr each, "tiledconv: compiler: ...": nothing when the builds were silent. */
void report_build_log(const tc_options *o, const tc_context *ctx);

/* The -a all table: one row per algorithm, times relative to the first row (tiled). */
void report_comparison(FILE *out, const tc_result *rows, int count);

/* Machine-readable records. The CSV header is printed once, before the first record. */
void report_csv_header(FILE *out);
void report_csv(FILE *out, const tc_result *r);
void report_json(FILE *out, const tc_result *r);

/* -l --json: one line a device, its indices, names, type and limits in bytes; is_default marks
 * the device a run opens when none is named. */
void report_device_json(FILE *out, const tc_device_info *d, int is_default);

/* A batch's records (docs/manual.md, --json and --csv): one row of type "image" per input, then
 * one of type "batch" with the counts and the stages' total times. CSV rows share one header (a
 * row leaves empty the columns of the other kind); a JSON record holds only its kind's fields. */
typedef struct {
    const char *type;          /* "image" or "batch" */
    /* image rows */
    const char *input, *output, *status; /* status: written, processed, refused, failed */
    int width, height;
    const char *error;         /* "" when the image succeeded */
    /* batch rows */
    int images, written, refused, failed;
    double seconds, images_per_s, startup_ms;
    int readers, lanes, writers;
    /* both: ms, per image or summed over the batch's images */
    double read_ms, upload_ms, convert_ms, kernel_ms, download_ms, write_ms;
    /* image rows of -e: 0 when not checked (then empty / null) */
    int checked;
    double tolerance, max_difference;
    const char *sha256;
    /* image rows, JSON only: where a JPEG input was decoded and a JPEG output's coefficients
     * made, "device" or "cpu"; NULL (the field absent) for other formats */
    const char *jpeg_decode, *jpeg_encode;
} report_row;

void report_row_csv_header(FILE *out);
/* A record as a CSV row (json 0) or a JSON object (json 1). */
void report_row_print(FILE *out, const report_row *r, int json);

/* --pyramid's records (cli/pyramid.c): one row of type "pyramid" per launch style that ran
 * (both with -t, --csv or --json), then one of type "level" per level. CSV rows share one
 * header (a row leaves the other kind's columns empty); a JSON record holds only its kind's. */
typedef struct {
    const char *type;          /* "pyramid" or "level" */
    const char *input;         /* the input's name, "synthetic" for -g, "-" for stdin */
    const char *device;
    const char *launch;        /* "per-octave" or "per-level"; a level row: the one written */
    int octaves, levels;
    double sigma0;
    const char *border;
    int width, height;         /* the input's (pyramid rows), the level's (level rows) */
    /* pyramid rows */
    int iterations, launches;
    double kernel_ms_min, kernel_ms_median, kernel_ms_mean, wall_ms_per_iteration;
    double bytes, gbytes_per_s, build_ms, h2d_ms, d2h_ms;
    int identical;             /* 1: the same levels as the written ones, bit for bit; 0: not;
                                * -1: the written ones themselves */
    /* level rows */
    int octave, level, taps;
    double sigma, sigma_input, sigma_applied;
    const char *output;        /* the level's file, "" with --no-output */
    int checked;               /* -e: 1, with the three fields below */
    double tolerance, max_difference;
    const char *sha256;        /* of the level's 8-bit pixels (row 0 first, no padding) */
    int verified;              /* 1 passed, 0 failed, -1 not checked */
} report_pyramid_row;

void report_pyramid_csv_header(FILE *out);
/* A record as a CSV row (json 0) or a JSON object (json 1). */
void report_pyramid_print(FILE *out, const report_pyramid_row *r, int json);

#endif
