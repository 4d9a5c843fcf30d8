/*
 * split.h - the split variant (variants.h's TC_KERNEL_TILED_SPLIT) as two jobs: its rows
 * pass, tiled_rows_conv over the sROI into a plane of the ROI's size, and its columns pass,
 * tiled_long_conv with one tap along rows from that plane into the tROI. Each is a job of its
 * own variant (rows, long), so that its program, geometry and classes are that variant's.
 */
#ifndef TILEDCONV_SPLIT_H
#define TILEDCONV_SPLIT_H

#include "filter_job.h"

/* The two passes of job: rows reads the job's sROI and writes the plane at (0, 0); cols
 * reads the plane (a buffer, at (0, 0)) and writes the job's tROI. A constant border's value
 * in cols is the constant filtered along rows, which the plane's rows outside it would be. */
void tc_split_jobs(const tc_job *job, tc_job *rows, tc_job *cols);

#endif
