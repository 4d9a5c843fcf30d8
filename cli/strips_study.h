/*
 * strips_study.h - one image too large to filter whole, run alone (main.c's study): the
 * report's header, the library's run in strips (strips.h), -v's band lines, -e's verdict and
 * the output lines.
 */
#ifndef TILEDCONV_STRIPS_STUDY_H
#define TILEDCONV_STRIPS_STUDY_H

#include "strips.h"

/* Returns the exit status (reported). */
int strips_study(const tc_options *o, tc_context *ctx, const tc_device_info *dev,
                 source_reader *in, const char *name);

#endif
