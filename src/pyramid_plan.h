/*
 * pyramid_plan.h - the plan of a Gaussian scale space (tiledconv.h, tc_pyramid): the octaves'
 * sizes and every Gaussian, from the rule the header states; the CPU reference and its
 * tolerance on a plan.
 */
#ifndef TILEDCONV_PYRAMID_PLAN_H
#define TILEDCONV_PYRAMID_PLAN_H

#include "filter.h"
#include "launch.h"
#include "tiledconv.h"

/* What one octave computes: the slices of its launch, each one Gaussian applied to the
 * octave's base. Levels 0 .. L - 1 of octave 0, levels 1 .. L - 1 of the others (their level
 * 0 is the base itself), and, for every octave but the last, the image at blur 2 sigma0 that
 * makes the next octave's base (the "feed", level L). */
#define TC_PYRAMID_MAX_SLICES (TC_PYRAMID_MAX_LEVELS + 1)

typedef struct {
    int level;            /* j, or L for the feed */
    double sigma;         /* the Gaussian applied to the base */
    int taps;
    float k[TC_MAX_TAPS]; /* tc_gauss_coefficients(taps, sigma), zeros beyond */
    int acc_rows;         /* the per-level path's tiled_conv accumulates each filtered row into
                           * its outputs as it arrives, in blocks of this many rows
                           * (launch.h: tc_tiled_accumulating_rows); 0: rows in order */
} tc_pyramid_slice;

typedef struct {
    int width, height;    /* the octave's size */
    int slices;           /* 0 .. TC_PYRAMID_MAX_SLICES */
    tc_pyramid_slice slice[TC_PYRAMID_MAX_SLICES];
    int feed;             /* the feed's slice index, or -1 (the last octave) */
} tc_pyramid_octave;

typedef struct {
    int octaves, levels;
    double sigma0;
    tc_border border;
    float border_value;
    tc_pyramid_launch launch;
    tc_pyramid_octave octave[TC_PYRAMID_MAX_OCTAVES];
} tc_pyramid_plan;

/* The plan of p for a width x height image, every rule checked (TC_EINVAL with the reason). */
int tc_pyramid_plan_make(int width, int height, const tc_pyramid_params *p,
                         tc_pyramid_plan *plan, tc_msg *m);

/* Level (K, j) as tc_pyramid_layout describes it. */
void tc_pyramid_plan_level(const tc_pyramid_plan *plan, int octave, int level,
                           tc_pyramid_level *out);

/* The job of one slice on its octave (the per-level path runs it with tc_filter's kernels). */
void tc_pyramid_slice_job(const tc_pyramid_plan *plan, int octave, const tc_pyramid_slice *s,
                          tc_job *job);

/* tc_pyramid_reference and tc_pyramid_tolerance on a plan. */
int tc_pyramid_plan_reference(const tc_pyramid_plan *plan, const float *src,
                              float *const *levels, tc_msg *m);
void tc_pyramid_plan_tolerance(const tc_pyramid_plan *plan, const float *src,
                               double *tolerance);

#endif
