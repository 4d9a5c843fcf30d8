/*
 * batch_report.h - what a batch says: each image's outcome counted (its line on failure, -v's
 * line, the --csv/--json record), the progress line, and at the end the summary, -e's verdict,
 * -t's stages and the batch's record.
 */
#ifndef TILEDCONV_BATCH_REPORT_H
#define TILEDCONV_BATCH_REPORT_H

#include "batch_state.h"

/* The job's outcome: its line on failure, the counts, the figures, the record; then the job
 * is freed. Takes the lock. */
void batch_account(batch *b, job *j);

/* commit.h's callback: a waiter has put the job's outputs in place (or failed to); arg is the
 * batch. */
void batch_committed(commit_item *c, void *arg);

/* "done/total, images/s, time left" in place on stderr. */
void batch_show_progress(const batch *b);

/* "N of M images written; R refused; F failed" (two or more inputs). */
void batch_print_summary(const batch *b);

/* -e: one verdict for the batch, after the summary. The images that failed are named by their
 * own lines above. */
void batch_print_verdict(const batch *b);

/* -t: the stages' times, which one bounds the rate, and the time outside the batch's clock. */
void batch_print_stages(const batch *b, double wall_ms);

/* --csv/--json: the batch's own record. */
void batch_print_batch_record(const batch *b, double wall_ms);

/* One image: the lines a plain run prints (the header, the output). */
void batch_print_single(const batch *b);

#endif
