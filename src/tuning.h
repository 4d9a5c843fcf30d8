/*
 * tuning.h - the study and test settings the library reads at each run (tiledconv_internal.h's
 * tc_tuning, set by tc_set_tuning or tc_tune; all zero: the library's own choices).
 */
#ifndef TILEDCONV_TUNING_H
#define TILEDCONV_TUNING_H

#include "tiledconv_internal.h"

/* The settings in force now. */
const tc_tuning *tc_tuning_now(void);

#endif
