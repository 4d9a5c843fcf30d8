/*
 * file_hooks.h - what the tests may set inside a run of files. Only a build with
 * -DTILEDCONV_TEST_HOOKS has them: the command line's test build (build/test/tiledconv and the
 * library beside it, whose files that read a hook are compiled again with it) and the
 * sanitizer build. The product's library has neither the settings nor the code that reads them
 * (each reading stands in #ifdef TILEDCONV_TEST_HOOKS). cli/test_hooks.c fills them from its
 * environment before the run; no library code reads the environment for them.
 */
#ifndef TILEDCONV_FILE_HOOKS_H
#define TILEDCONV_FILE_HOOKS_H

#include "tool_visible.h" /* src/io */

typedef struct {
    unsigned long long batch_budget; /* the bytes a batch's images in flight may hold, in
                                      * place of a quarter of the machine's memory; 0: that */
    unsigned open_delay_ms;          /* each lane waits so long before it opens its device */
    unsigned lane_pause_ms;          /* and so long before each call */
    unsigned lane_call_ms;           /* and so long inside each call (the lanes the bound) */
    const char *corrupt_spec;        /* "x,y" or "x,y,v": v (1) added to that pixel of every
                                      * result's first plane, for -e to catch; NULL: none */
    int jpeg_inexact;                /* the JPEG path's lane takes every device decode as not
                                      * TurboJPEG's (tc_filter_jpeg's exact 0), so that the
                                      * tests reach its fallback to the CPU */
    int jpeg_decode_corrupt;         /* -e's comparison of the device's JPEG decode sees one
                                      * sample of it changed, for the tests to see it caught */
} file_test_hooks;

#ifdef TILEDCONV_TEST_HOOKS
TC_TOOL extern file_test_hooks file_hooks;
#endif

#endif
