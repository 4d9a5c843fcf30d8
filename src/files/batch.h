/*
 * batch.h - many images through one process (docs/manual.md, "Many images in one run"): a pipeline
 * of reader threads (read and decode ahead), device lanes (one context each: upload the file's
 * own bytes, form the planes, filter and form the 8-bit output on the device, download bytes)
 * and writer threads (encode, write and sync behind, in parallel). Also the one-image run
 * without the study flags (-t, -e, -a all, ...), which is a batch of one.
 */
#ifndef TILEDCONV_BATCH_H
#define TILEDCONV_BATCH_H

#include "tool_visible.h" /* src/io */

#include "inputs.h"
#include "file_options.h"

struct batch;
struct job;

/* What a batch says, through its caller: the command line prints it (cli/batch_report.c),
 * tc_filter_files fills its results. Any member may be NULL. */
typedef struct {
    /* Before any thread starts (the CSV header). */
    void (*start)(const struct batch *b, void *arg);
    /* As each image ends, counted already, under the batch's lock (keep it short). */
    void (*image)(const struct batch *b, const struct job *j, void *arg);
    /* A line about the run (index -1: no worker thread, out of memory, a device that did not
     * open while others did), or about input index that failed before it had a job (counted
     * as failed). */
    void (*note)(const struct batch *b, int index, const char *line, void *arg);
    /* On the calling thread every 100 ms while images remain (with progress set). */
    void (*progress)(const struct batch *b, void *arg);
    /* After the last image, the output folder synced (no device opened: b->lanes_working is
     * 0, every image failed with JOB_NO_DEVICE). */
    void (*finish)(const struct batch *b, double wall_ms, void *arg);
    /* Before the contexts are closed (or left open): each lane's, for its build log. */
    void (*contexts)(const struct batch *b, void *arg);
    void *arg;
    int progress_wanted; /* the progress callback is to be called (two or more inputs) */
} batch_reporter;

/* What becomes of the contexts and the page-locked blocks after the last image. */
enum {
    BATCH_END_CLOSE = 0,  /* closed and freed before batch_run returns */
    BATCH_END_KEEP = 1,   /* left to a process that ends at once after the run (cli/main.c):
                           * closing them costs the driver time and frees nothing the end of
                           * the process would not */
    BATCH_END_BEHIND = 2  /* closed and freed on a thread of their own, which a process ending
                           * meanwhile waits for at exit (a library's caller, who goes on) */
};

/* Runs every item, each all-or-nothing, saying what happens through r. requests: the contexts
 * to open (tc_open's requests); end: a BATCH_END_ value. Returns the tool's exit status: 0
 * when every image succeeded, else 1 when any failed at run time (or no device opened, or a
 * device request was not valid: 2), else 2. Prints nothing. */
TC_TOOL int batch_run(const tc_options *o, const batch_list *list, char requests[][64], int n_requests,
              int end, const batch_reporter *r);

#endif
