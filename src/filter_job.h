/*
 * filter_job.h - one filter run as the launchers see it (tc_job): the filter, the ROIs and the
 * algorithm's choices, everything validated and resolved (params.c makes it from a tc_params).
 */
#ifndef TILEDCONV_FILTER_JOB_H
#define TILEDCONV_FILTER_JOB_H

#include "filter.h"

typedef struct {
    tc_algorithm algorithm;
    tc_filter_spec filter;
    tc_roi roi;
    int block_x, block_y; /* tiled: pixels per work-item (block_y before raising to r) */
    int vector_io;        /* tiled: float4 loads and stores where aligned */
    int count_classes;    /* tiled: the kernel counts its groups' classes */
    int strict_times;     /* a kernel without profiling counters fails the run (a timed run,
                           * whose times are its result); else its time counts as 0 */
    tc_storage storage;   /* tiled, onepass: the source plane read from a buffer or an image */
    int variant;          /* tiled: 1 + an index into the variant table (tc_variant_find), 0
                           * for the default of the filter's band (variants.h) */
    int packed_u8;        /* tiled_conv and tiled_long_conv only: the source and target are a
                           * gray 8-bit image's packed rows, read and written as bytes by the
                           * kernel (Common.cl's TC_IO_U8; the row pitch is the width) */
} tc_job;

/* Each axis's radius: the taps either side of the centre. */
static inline int tc_job_radius_x(const tc_job *job)
{
    return (job->filter.taps_x - 1) / 2;
}

static inline int tc_job_radius_y(const tc_job *job)
{
    return (job->filter.taps_y - 1) / 2;
}

#endif
