/*
 * study.h - one image studied: every figure of the kernels, the check against the reference,
 * the comparison of the algorithms (study.c).
 */
#ifndef TILEDCONV_STUDY_H
#define TILEDCONV_STUDY_H

#include "option_parse.h"

/* The study of input (NULL with -g) on the device tc_open's request names: -g, or one input
 * with -t, -i, -a all, -e, -v, --raw, --csv, --json, --class-map or --gradient. keep_context:
 * the context is left open for a process that ends at once. Returns the exit status. */
int study(const tc_options *o, const char *input, const char *device, int keep_context);

#endif
