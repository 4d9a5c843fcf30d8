/*
 * params.h - tc_params checked against an image and turned into the job the launchers run.
 */
#ifndef TILEDCONV_PARAMS_H
#define TILEDCONV_PARAMS_H

#include "launch.h"
#include "status.h"
#include "tiledconv.h"

/* p checked against a width x height image and turned into *job: TC_OK, or TC_EINVAL with
 * the reason in m (naming the tc_params field) and *job unspecified. */
int tc_job_from_params(const tc_params *p, int width, int height, tc_job *job, tc_msg *m);

#endif
