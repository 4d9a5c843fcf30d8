/* compare.c - a device result against the CPU reference, pixel by pixel (compare.h). */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

tc_verify_result verify_compare(const tc_plane *expected, const tc_plane *actual,
                                const tc_roi *roi, double tolerance, FILE *report,
                                int max_report)
{
    tc_verify_result res = {0, tolerance, 0.0};
    for (int y = 0; y < expected->height; y++) {
        for (int x = 0; x < expected->width; x++) {
            size_t i = (size_t)y * (size_t)expected->width + (size_t)x;
            float e = expected->px[i], a = actual->px[i];
            int ok;
            if (tc_roi_in_target(roi, x, y)) {
                /* Equal values agree whatever the tolerance: inf - inf would be NaN, and an
                 * infinity both sides reach (a caller's input beyond the 0..255 the filter
                 * checks assume) is the same result, not a mismatch. NaN still never agrees. */
                double d = e == a ? 0.0 : fabs((double)e - (double)a);
                if (d > res.max_error || d != d)
                    res.max_error = d;
                ok = d <= tolerance; /* false for NaN too */
            } else {
                ok = memcmp(&e, &a, sizeof e) == 0; /* untouched pixels: bit for bit */
            }
            if (!ok) {
                if (report && res.mismatches < max_report)
                    fprintf(report, "  mismatch at (%d, %d): expected %.6f, actual %.6f%s\n", x,
                            y, e, a,
                            tc_roi_in_target(roi, x, y) ? "" : " (outside the target ROI)");
                res.mismatches++;
            }
        }
    }
    return res;
}
