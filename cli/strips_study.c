/* strips_study.c - one image in strips as the single-image run reports it (strips_study.h). */
#define _GNU_SOURCE /* open_memstream */
#include "strips_study.h"

#include <stdio.h>
#include <stdlib.h>

#include "outputs.h"
#include "report.h"
#include "tiledconv.h"

/* -e's verdict in the human-readable report, as verify.c words it for a whole image. */
static void print_verdict(const tc_options *o, const strips_result *res)
{
    static const char *const names[3] = {"R", "G", "B"};
    const char *name = tc_algorithm_name(o->algorithm);
    printf("verification, %s: every pixel of the %d x %d output against the CPU reference, "
           "band by band (tolerance %.3g inside the target ROI, each band's from its own rows; "
           "exact outside)\n",
           name, res->width, res->height, res->tolerance);
    for (int c = 0; res->planes > 1 && c < res->planes; c++)
        printf("  plane %s: %s, %ld mismatches (tolerance %.3g, largest difference %.3g)\n",
               names[c], res->plane_mismatches[c] ? "FAILED" : "ok", res->plane_mismatches[c],
               res->plane_tolerance[c], res->plane_max_error[c]);
    if (res->mismatches == 0)
        printf("PASSED (largest difference %.3g)\n", res->max_error);
    else
        printf("FAILED: %ld of %ld pixels%s differ (largest difference %.3g)\n", res->mismatches,
               (long)res->width * res->height * res->planes,
               res->planes > 1 ? " of the 3 planes" : "", res->max_error);
}

int strips_study(const tc_options *o, tc_context *ctx, const tc_device_info *dev,
                 source_reader *in, const char *name)
{
    const int chatty = !o->quiet && o->format == TC_FORMAT_TABLE;
    char err[1024] = "", *mismatches = NULL, what[64];
    size_t mismatches_size = 0;
    strips_result res;
    /* -e's first mismatches, printed after the header like a whole run's. */
    FILE *report = chatty && o->verify ? open_memstream(&mismatches, &mismatches_size) : NULL;
    const strips_output out = {o->write_output ? o->output : NULL, o->image_format, 0,
                               o->raw_output, 0};
    const int status = strips_run_reported(o, ctx, dev, in, name, &out, report, &res, err,
                                           sizeof err);
    if (report)
        fclose(report);
    const int ran = res.bands > 0 && (status == 0 || res.checked);
    if (chatty && ran) {
        report_header(o, dev, res.width, res.height, res.planes, &res.roi);
        if (o->verbose)
            printf("strips: %d band%s of %d rows of the target ROI (the whole image does not "
                   "fit %s, %.1f MiB; a band's buffers and the platform's reserve take %.1f "
                   "MiB)\n",
                   res.bands, res.bands == 1 ? "" : "s", res.rows,
                   o->max_memory ? "--max-memory" : "the memory available",
                   (double)res.budget / 1048576.0, (double)res.need / 1048576.0);
        if (mismatches && mismatches_size)
            fputs(mismatches, stdout);
        if (o->verify && res.checked)
            print_verdict(o, &res);
    }
    free(mismatches);
    if (status == 0 && chatty) {
        outputs_describe(o->image_format, res.depth, res.planes, what, sizeof what);
        if (o->write_output)
            printf("output: %s (%d x %d, %s)\n", outputs_name(o->output), res.width,
                   res.height, what);
        if (o->raw_output)
            printf("raw: %s (%d float32 plane%s of %d x %d, little-endian, row 0 first)\n",
                   o->raw_output, res.planes, res.planes == 1 ? "" : "s (R, G, B)", res.width,
                   res.height);
    } else if (status != 0 && chatty && res.checked && res.mismatches &&
               (o->write_output || o->raw_output)) {
        printf("output: not written, since verification failed\n");
    }
    if (status != 0)
        fprintf(stderr, "tiledconv: %s\n", err);
    return status;
}
