/* verify.h - -e: every pixel of a device result against the CPU reference, the tolerance and
 * the mismatches stated. */
#ifndef TILEDCONV_VERIFY_H
#define TILEDCONV_VERIFY_H

#include <stdio.h>

#include "tiledconv_internal.h"
#include "options.h"
#include "report.h"

typedef struct {
    long mismatches;
    double tolerance;
    double max_error; /* largest |expected - actual| inside the target ROI */
} tc_verify_result;

/* Compares every pixel: outside the target ROI exactly, inside within the tolerance. Prints
 * up to max_report mismatches (x, y, expected, actual) to report when it is not NULL. */
tc_verify_result verify_compare(const tc_plane *expected, const tc_plane *actual,
                                const tc_roi *roi, double tolerance, FILE *report,
                                int max_report);

/* The verdict of total mismatches into r (verified, mismatches) and, in the human-readable mode
 * (machine 0), its PASSED line when there are none; a failure's line is the caller's, which
 * knows what differed. */
void verify_settle(tc_result *r, long total, int machine);

/* -e for one algorithm: every plane (1, or 3 for R, G, B) against its CPU reference, with
 * the verdict printed (in the human-readable mode, with the first mismatches). Fills r's
 * verification fields and returns the number of mismatching pixels over all planes. */
long verify_planes(const tc_options *o, const tc_plane *expected, const tc_plane *out,
                   int count, const double *tolerance, const tc_roi *roi, tc_result *r);

#endif
