/*
 * filter_job.h - one filter run as the launchers see it (tc_job): the filter, the ROIs and the
 * algorithm's choices, everything validated and resolved (params.c makes it from a tc_params).
 */
#ifndef TILEDCONV_FILTER_JOB_H
#define TILEDCONV_FILTER_JOB_H

#include "filter.h"

/* The kernel that runs a job: the algorithm's, and for tiled the variant its filter needs. */
typedef enum {
    TC_KERNEL_TILED,        /* tiled_conv (TiledConv.cl): up to 15 taps an axis, 3+ along y */
    TC_KERNEL_TILED_LONG,   /* tiled_long_conv (Long.cl): longer, or 1 tap along columns */
    TC_KERNEL_TILED_MASK,   /* tiled_mask_conv (Masks.cl): a mask that is not rank 1 */
    TC_KERNEL_TWOPASS,      /* rows_transposed_conv, twice */
    TC_KERNEL_ONEPASS,      /* one_pass_conv */
    TC_KERNEL_ONEPASS_MASK, /* one_pass_mask_conv */
    TC_KERNEL_BILINEAR,     /* bilinear_rows, then bilinear_cols (Images.cl) */
    TC_KERNEL_TILED_SLIDE,  /* tiled_slide_conv (Long.cl): a group walks down a strip */
    TC_KERNEL_TILED_MASK_ROWS, /* tiled_mask_rows_conv (Masks.cl): a loop over source rows */
    TC_KERNEL_TILED_ROWS,   /* tiled_rows_conv (Long.cl): rows only, staged in local memory */
    TC_KERNEL_TILED_SPLIT   /* tiled_rows_conv into a plane, then tiled_long_conv along columns
                             * (split.h) */
} tc_kernel_kind;

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
    tc_kernel_kind kernel; /* which kernel runs it, decided once from the algorithm, the filter
                            * and the variant when the job is made (variants.h's
                            * tc_job_decide) */
} tc_job;

/* The kernel that runs the job (decided when it was made). */
static inline tc_kernel_kind tc_kernel_of(const tc_job *job)
{
    return job->kernel;
}

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
