/*
 * split.c - the split variant's two passes as jobs (split.h).
 */
#include "split.h"

#include <math.h>
#include <string.h>

#include "variants.h"

/* f as a separable filter of taps along rows and columns: one axis's coefficients kept, the
 * other a single 1 (no mask: a rank-1 mask's factors are what the passes run). */
static void one_axis(tc_filter_spec *f, int keep_rows)
{
    f->mask_width = f->mask_height = f->mask_separable = 0;
    float *other = keep_rows ? f->ky : f->kx;
    memset(other, 0, sizeof f->kx);
    other[0] = 1.0f;
    if (keep_rows)
        f->taps_y = 1;
    else
        f->taps_x = 1;
}

void tc_split_jobs(const tc_job *job, tc_job *rows, tc_job *cols)
{
    *rows = *job;
    one_axis(&rows->filter, 1);
    rows->roi.dst_left = rows->roi.dst_top = 0;
    tc_variant_find("rows", &rows->filter, &rows->variant, NULL);
    tc_job_decide(rows);

    *cols = *job;
    float sum = 0.0f;
    for (int i = 0; i < job->filter.taps_x; i++)
        sum = fmaf(job->filter.kx[i], job->filter.border_value, sum); /* as the kernels add */
    one_axis(&cols->filter, 0);
    cols->filter.border_value = sum;
    cols->roi.src_left = cols->roi.src_top = 0;
    cols->storage = TC_STORAGE_BUFFER;
    tc_variant_find("long", &cols->filter, &cols->variant, NULL);
    tc_job_decide(cols);
}
