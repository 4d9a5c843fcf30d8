/* pyramid_run.h - --pyramid OxL: a Gaussian scale space of each input (tiledconv.h's
 * tc_pyramid), its levels written as DIR/BASE-oK-lJ.EXT, checked with -e, timed with -t. */
#ifndef TILEDCONV_PYRAMID_RUN_H
#define TILEDCONV_PYRAMID_RUN_H

#include "option_parse.h"

/* Runs --pyramid on every input (-g's image, or -s, the inputs after the options and
 * --files-from's, one after another on one context of the device `device` names). Returns the
 * exit status: 0 when every image succeeded; else 1 when any failed at run time (-e included);
 * else 2. Every failure is one line on stderr; with two or more inputs the batch's summary line
 * ends the run. */
int pyramid_run(const tc_options *o, const char *device);

#endif
