/* compare.h - -e: every pixel of a device result against the CPU reference, within a
 * tolerance inside the target ROI and bit for bit outside it. */
#ifndef TILEDCONV_COMPARE_H
#define TILEDCONV_COMPARE_H

#include "tool_visible.h" /* src/io */

#include <stdio.h>

#include "tiledconv_internal.h"

typedef struct {
    long mismatches;
    double tolerance;
    double max_error; /* largest |expected - actual| inside the target ROI */
} tc_verify_result;

/* Compares every pixel: outside the target ROI exactly, inside within the tolerance. Prints
 * up to max_report mismatches (x, y, expected, actual) to report when it is not NULL. */
TC_TOOL tc_verify_result verify_compare(const tc_plane *expected, const tc_plane *actual,
                                const tc_roi *roi, double tolerance, FILE *report,
                                int max_report);

#endif
