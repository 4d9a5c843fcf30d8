/*
 * batch.h - many images through one process (docs/manual.md, "Many images in one run"): a pipeline
 * of reader threads (read and decode ahead), device lanes (one context each: upload the file's
 * own bytes, form the planes, filter and form the 8-bit output on the device, download bytes)
 * and writer threads (encode, write and sync behind, in parallel). Also the one-image run
 * without the study flags (-t, -e, -a all, ...), which is a batch of one.
 */
#ifndef TILEDCONV_BATCH_H
#define TILEDCONV_BATCH_H

#include "inputs.h"
#include "options.h"

/* Runs every item, each all-or-nothing, and prints the summary line (two or more inputs), the
 * progress line (on a terminal), the per-stage times (-t) and the records (--json, --csv).
 * requests: the contexts to open (cli/devices.c). Returns the tool's exit status: 0 when every
 * image succeeded, else 1 when any failed at run time, else 2. */
int batch_run(const tc_options *o, const batch_list *list, char requests[][64], int n_requests,
              int keep_contexts);

/* keep_contexts: the contexts are left open, for a process that ends at once after the run
 * (cli/main.c): closing them costs the driver time and frees nothing the end of the process
 * would not. */

#endif
