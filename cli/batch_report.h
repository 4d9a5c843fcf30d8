/*
 * batch_report.h - what a batch says on the command line: each image's line on failure, -v's
 * line, the --csv/--json record, the progress line, and at the end the summary, -e's verdict,
 * -t's stages and the batch's record (the library's batch counts; this prints).
 */
#ifndef TILEDCONV_BATCH_REPORT_H
#define TILEDCONV_BATCH_REPORT_H

#include "batch_state.h"

/* The command line's reporter for batch_run: each image's line on failure, -v's line and its
 * record; the progress line on a terminal; the summary, -e's verdict, -t's stages and the
 * batch's record at the end; -v's build logs. */
batch_reporter batch_reporter_cli(const tc_options *o);

#endif
