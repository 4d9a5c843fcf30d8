/* verify.h - -e in the single-image reports: the verdict, the tolerance and the mismatches
 * stated (the comparison itself is compare.h's). */
#ifndef TILEDCONV_VERIFY_H
#define TILEDCONV_VERIFY_H

#include <stdio.h>

#include "tiledconv_internal.h"
#include "file_options.h"
#include "compare.h"
#include "report.h"

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
