/*
 * batch_lanes.h - a batch's device lanes (batch.h): one context each and the thread that
 * drives it, handing the library every image waiting for it in one call.
 */
#ifndef TILEDCONV_BATCH_LANES_H
#define TILEDCONV_BATCH_LANES_H

#include "batch_state.h"

/* The lanes, one per requested context (b->n_lanes of them at most): a lane hands the library
 * every image waiting for it in one call, whose pipeline (three images in flight, each slot on
 * its own queue) overlaps one image's transfers with another's kernels; the copies into and
 * out of pinned memory run on the context's copy crew. A second context on one GPU (-d 0,0)
 * cost the driver about 110 ms to create on the GPU machine, more pinned memory and its
 * teardown, and one lane a GPU ran faster there already before (1.55 s against 1.83 s for
 * 1,000 gray JPEG photos; docs/benchmarks.md). 0, or -1 out of memory. */
int batch_make_lanes(batch *b, int n_requests, char requests[][64]);

/* A lane's thread (arg: its lane): opens its device, then filters the images waiting until
 * none is left to come. */
void *batch_lane_main(void *arg);

#endif
