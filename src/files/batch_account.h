/*
 * batch_account.h - each image's outcome counted in the batch's totals, then said through the
 * batch's reporter (batch.h) and freed.
 */
#ifndef TILEDCONV_BATCH_ACCOUNT_H
#define TILEDCONV_BATCH_ACCOUNT_H

#include "batch_state.h"

/* The job's outcome: the counts, the figures, the reporter's image call; then the job is
 * freed. Takes the lock. */
void batch_account(batch *b, job *j);

/* commit.h's callback: a waiter has put the job's outputs in place (or failed to); arg is the
 * batch. */
void batch_committed(commit_item *c, void *arg);

#endif
