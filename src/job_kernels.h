/*
 * job_kernels.h - the kernel objects a job runs: the build options that make its program (the
 * radii, the border rule, config.h's geometry and the variant's own as -D values), the program
 * built or taken from the cache, and each kernel checked against what the device can launch.
 */
#ifndef TILEDCONV_JOB_KERNELS_H
#define TILEDCONV_JOB_KERNELS_H

#include "device.h"
#include "programs.h"
#include "tiled_geometry.h"

/* The job's kernel in kernels[0] and, for twopass and bilinear, the second pass's in
 * kernels[1] (the caller releases both), each checked for work-groups of local[0] x local[1].
 * g: the job's tiled geometry (tc_tiled_geometry_of) when its kernel is tiled; ignored
 * otherwise. *build_ms: the builds' time (0: every program came from the cache). */
int tc_job_kernels(const tc_device *d, tc_program_cache *programs, const tc_job *job,
                   const tc_tiled_geometry *g, const size_t local[2], cl_kernel kernels[2],
                   double *build_ms, tc_msg *m);

/* The registers a work-item of the job's tiled kernel may hold where the compiler takes a
 * budget (NVIDIA's -cl-nv-maxrregcount; the kernel is then built without its required group
 * size): the tuning's, else the variant's, else tiled_long_conv's by the rows' radius
 * (config.h's TC_LONG_BUDGETS, TC_LONG_COLUMNS_BUDGET for short rows with longer columns);
 * 0: the compiler's own choice. */
int tc_register_budget(const tc_job *job);

/* Refuses a launch of `kernel` in work-groups of local[0] x local[1] that the device cannot
 * run (its work-group limits, the kernel's own, its local memory), saying why in words. */
int tc_check_launch(const tc_device *d, cl_kernel kernel, const char *name,
                    const size_t local[2], tc_msg *m);

#endif
