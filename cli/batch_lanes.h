/*
 * batch_lanes.h - a batch's device lanes (batch.h): one context each and the thread that
 * drives it, handing the library every image waiting for it in one call.
 */
#ifndef TILEDCONV_BATCH_LANES_H
#define TILEDCONV_BATCH_LANES_H

#include "batch_state.h"

/* Lanes (contexts) per GPU: 1 by default. A lane hands the library every image waiting for it
 * in one call, whose pipeline (three images in flight, each slot on its own queue) overlaps
 * one image's transfers with another's kernels, which is what a second lane was for; the
 * copies into and out of pinned memory, which bounded a lane, run on the context's copy
 * crew. A second context cost the driver about 110 ms to create on an H100 machine, more
 * pinned memory and its teardown, and a batch with one lane ran faster there already before
 * (1.55 s against 1.83 s for 1,000 gray JPEG photos). TILEDCONV_LANES overrides it for the
 * measurements in BENCHMARKS.md. */
int batch_lanes_per_gpu(void);

/* The lanes: two per requested device, except one per CPU device (it already uses every
 * core). Whether a default or indexed request is a CPU is known only once it is open: such a
 * request gets two lanes, and the second closes at once on a CPU device (see open_lane). */
int batch_make_lanes(batch *b, int n_requests, char requests[][64]);

/* A lane's thread (arg: its lane): opens its device, then filters the images waiting until
 * none is left to come. */
void *batch_lane_main(void *arg);

#endif
