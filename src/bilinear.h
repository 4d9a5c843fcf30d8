/*
 * bilinear.h - the host's half of the bilinear-tap trick (-a bilinear, Images.cl): pairing a
 * filter's taps so that one linearly filtered texture sample reads two of them, and the error
 * bound that texture interpolation adds. Pure functions, no OpenCL.
 */
#ifndef TILEDCONV_BILINEAR_H
#define TILEDCONV_BILINEAR_H

#include "tiledconv_internal.h"

/* What texture interpolation may add to the error of a result (docs/kernels.md, "The
 * bilinear-tap trick"): each pass's samples take their fraction with an error of at most
 * delta = 2^-TC_TEXTURE_FRACTION_BITS + coordinate * 2^-24 (the fraction's quantum, and the
 * float rounding of a sample coordinate below `coordinate`), each sample's error is delta
 * times its weight times the difference of its two texels, and those differences are at most
 * range (the sROI's largest minus smallest value) in pass 1 and sum|kx| range in pass 2, whose
 * weights sum to sum|ky|: in all 2 delta sum|kx| sum|ky| range. */
double tc_bilinear_bound(double sum_kx, double sum_ky, double range, double coordinate);

#endif
