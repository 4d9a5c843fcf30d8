/*
 * job_output.h - one image of a batch checked against the CPU reference (-e) and its outputs
 * encoded and staged for the waiters.
 */
#ifndef TILEDCONV_JOB_OUTPUT_H
#define TILEDCONV_JOB_OUTPUT_H

#include "job.h"

/* -e: every plane against its CPU reference; a mismatch fails the job (its line says how). */
void job_check(const tc_options *o, job *j);

/* The outputs encoded and staged in j->commit (their data flushed to the kernel, not yet
 * durable nor named), or, for standard output, written at once (j->commit left empty). */
void job_stage(const tc_options *o, job *j);

#endif
