/*
 * batch_pool.h - a batch's pool of host workers (batch.h): each takes whatever is ready, an
 * image the device has finished (checked, encoded, staged, handed to the waiters) or else the
 * next input (opened, its bytes reserved in the memory budget, decoded, handed to the lanes).
 */
#ifndef TILEDCONV_BATCH_POOL_H
#define TILEDCONV_BATCH_POOL_H

#include "batch_state.h"

/* The page-locked blocks the batch makes at most (pinned_pool.h): an input's and an output's
 * for every image the lanes keep waiting and every image in their calls. */
int batch_pool_blocks(const batch *b);

/* A worker's thread (arg: the batch); returns when every image is done with. */
void *batch_worker_main(void *arg);

#endif
