/*
 * bilinear.h - the host's half of the bilinear-tap trick (-a bilinear, Images.cl): pairing a
 * filter's taps so that one linearly filtered texture sample reads two of them, and the error
 * bound that texture interpolation adds. Pure functions, no OpenCL.
 */
#ifndef TILEDCONV_BILINEAR_H
#define TILEDCONV_BILINEAR_H

#include "tiledconv.h"

/* Samples per output pixel along one axis: taps / 2 + 1 (the taps in pairs, one alone). */
#define TC_BILINEAR_MAX_FETCHES (TC_MAX_TAPS / 2 + 1)

/* The bits of fraction a texture unit is assumed to interpolate with: NVIDIA's texture units
 * keep the weight in 9-bit fixed point with 8 bits of fraction (CUDA Programming Guide,
 * "Linear Filtering"); OpenCL leaves the precision of CLK_FILTER_LINEAR to the device. */
#define TC_TEXTURE_FRACTION_BITS 8

/* One axis's samples, as Images.cl takes them: sample[s] = (o, 0.5 + f, w, 0) where o is the
 * offset of the sample's first tap from the centre, f = w2 / (w1 + w2) the interpolation
 * weight of its second tap and w = w1 + w2 (for the lone tap: its offset, 0.5, its weight). */
typedef struct {
    int taps;
    int fetches;  /* taps / 2 + 1 */
    int lone;     /* the sample that reads one tap alone: fetches - 1 (the last tap), or 0 */
    float sample[TC_BILINEAR_MAX_FETCHES][4];
} tc_bilinear_axis;

/* Pairs the taps of k (taps odd, 1..TC_MAX_TAPS): taps 0 and 1, 2 and 3, ... with the last
 * tap alone; where a pair's two weights have opposite signs (then no point between the two
 * texels gives their sum), the other pairing, the first tap alone and 1 and 2, 3 and 4, ...
 * Returns 0 with *a filled, or -1 when both pairings mix signs, *bad (may be NULL) then the
 * index of the first tap of the first such pair in the first pairing. A zero weight pairs
 * with either sign. */
int tc_bilinear_pair(const float *k, int taps, tc_bilinear_axis *a, int *bad);

/* What texture interpolation may add to the error of a result (README, "The bilinear-tap
 * trick"): each pass's samples take their fraction with an error of at most
 * delta = 2^-TC_TEXTURE_FRACTION_BITS + coordinate * 2^-24 (the fraction's quantum, and the
 * float rounding of a sample coordinate below `coordinate`), each sample's error is delta
 * times its weight times the difference of its two texels, and those differences are at most
 * range (the sROI's largest minus smallest value) in pass 1 and sum|kx| range in pass 2, whose
 * weights sum to sum|ky|: in all 2 delta sum|kx| sum|ky| range. */
double tc_bilinear_bound(double sum_kx, double sum_ky, double range, double coordinate);

#endif
