/* synth.h - the deterministic synthetic image of -g WxH (formula: synth.c, docs/kernels.md). */
#ifndef TILEDCONV_SYNTH_H
#define TILEDCONV_SYNTH_H

#include <stdint.h>

#include "tiledconv_internal.h"

/* The intensity of pixel (x, y): 0.5 ((x + 2y) mod 256) + 0.5 (H(x, y) mod 256), a diagonal
 * ramp plus hashed noise, in 0 .. 255 in steps of 0.5. H is a 32-bit integer hash, so the image
 * is the same on every machine and every pixel differs from its neighbours. */
float synth_pixel(uint32_t x, uint32_t y);

/* Fills the plane (already allocated) with synth_pixel. */
void synth_fill(tc_plane *p);

#endif
