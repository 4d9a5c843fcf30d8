/* verify.c - -e's verdicts in the reports (verify.h). */
#include "verify.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* How many mismatches -e prints before it only counts them. */
#define MAX_REPORTED_MISMATCHES 10

static const char *const plane_names[3] = {"R", "G", "B"};

void verify_settle(tc_result *r, long total, int machine)
{
    r->verified = total == 0;
    r->mismatches = total;
    if (!machine && total == 0)
        printf("PASSED (largest difference %.3g)\n", r->max_error);
}

long verify_planes(const tc_options *o, const tc_plane *expected, const tc_plane *out,
                   int count, const double *tolerance, const tc_roi *roi, tc_result *r)
{
    const int machine = o->format != TC_FORMAT_TABLE;
    const int chatty = !o->quiet && !machine;
    const int w = out[0].width, h = out[0].height;
    long total = 0;
    char failed_planes[16] = "";
    const char *name = r->label ? r->label : r->algorithm;

    r->max_error = 0.0;
    r->tolerance = 0.0;
    /* bilinear's tolerance is mostly texture interpolation's bound (docs/kernels.md). */
    const char *why = r->algorithm && strcmp(r->algorithm, "bilinear") == 0
                          ? ": float rounding and an 8-bit interpolation fraction"
                          : "";
    if (chatty && count == 1 && o->filter.mask_width)
        /* A mask's reference sums its products directly; its tolerance grows with their
         * number and their absolute weights (reference.h), so the line says both. */
        printf("verification, %s: every pixel of the %d x %d output against the CPU reference "
               "summing the mask's products directly (tolerance %.3g inside the target ROI: "
               "2 x %d products x FLT_EPSILON x max|input| x sum|w| %g%s%s; exact outside)\n",
               name, w, h, tolerance[0], o->filter.mask_width * o->filter.mask_height,
               tc_filter_gain(&o->filter),
               o->filter.mask_separable ? ", plus the factors' own rounding" : "",
               *why ? ", plus an 8-bit interpolation fraction" : "");
    else if (chatty && count == 1)
        printf("verification, %s: every pixel of the %d x %d output against the CPU reference "
               "(tolerance %.3g inside the target ROI%s, exact outside)\n",
               name, w, h, tolerance[0], why);
    else if (chatty)
        printf("verification, %s: every pixel of the R, G and B planes of the %d x %d output "
               "against the CPU reference (exact outside the target ROI)\n", name, w, h);
    for (int c = 0; c < count; c++) {
        /* With --csv/--json stdout carries only records, and stderr one summary line: the
         * individual mismatches are printed in the human-readable mode only. */
        const tc_verify_result v = verify_compare(&expected[c], &out[c], roi, tolerance[c],
                                               machine ? NULL : stdout,
                                               MAX_REPORTED_MISMATCHES);
        if (count > 1 && chatty)
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
    verify_settle(r, total, machine);
    if (!machine && total)
        printf("FAILED: %ld of %ld pixels%s differ (largest difference %.3g)\n", total,
               (long)w * h * count, count > 1 ? " of the 3 planes" : "", r->max_error);
    if (total) {
        if (count > 1)
            fprintf(stderr, "tiledconv: verification FAILED for %s: %ld mismatches (planes %s)\n",
                    name, total, failed_planes);
        else
            fprintf(stderr, "tiledconv: verification FAILED for %s: %ld mismatches\n",
                    name, total);
    }
    return total;
}

