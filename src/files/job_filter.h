/*
 * job_filter.h - one image of a batch filtered on a lane's context: tc_filter_image (or
 * tc_gradient) whole, several images of the same parameters through one pipelined call, or an
 * image too large for memory in strips.
 */
#ifndef TILEDCONV_JOB_FILTER_H
#define TILEDCONV_JOB_FILTER_H

#include "job.h"

/* The filter on a lane's context, its figures in the job's times (build_ms: the programs built
 * for it, 0 when the context had them). An image in strips is read, filtered, checked and
 * written here, whole. A job of the JPEG path goes from coefficients to coefficients
 * (tc_filter_jpeg), or is decoded on the CPU here first where the device cannot give the CPU
 * path's pixels. */
void job_filter(const tc_options *o, tc_context *ctx, job *j);

/* The most jobs job_filter_many puts in one library call. */
#define JOB_FILTER_MANY 16

/* job_filter for up to n jobs on one lane's context (jobs already failed are passed over):
 * those that run whole with the same parameters go through one tc_filter_images call, whose
 * pipeline overlaps one image's transfers with another's kernels; the others (strips,
 * --gradient, another ROI, the JPEG path's) one by one. At most JOB_FILTER_MANY go in one call; the rest run
 * alone. */
void job_filter_many(const tc_options *o, tc_context *ctx, job **jobs, int n);

#endif
