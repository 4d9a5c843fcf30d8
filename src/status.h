/*
 * status.h - how the library reports a failure: a status code of tiledconv.h (TC_EINVAL,
 * TC_EDEVICE, TC_ENOMEM) returned, and one line of text saying why, written into a tc_msg.
 * Nothing below the command line prints or exits.
 */
#ifndef TILEDCONV_STATUS_H
#define TILEDCONV_STATUS_H

#include <CL/cl.h>

#include "tiledconv.h"
#include "tiledconv_internal.h"

#if defined(__GNUC__)
#define TC_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define TC_PRINTF(fmt, args)
#endif

/* Writes the formatted reason into m (when not NULL) and returns code, so that a failure is
 * one statement: `return tc_fail(m, TC_EINVAL, "taps_x %d: must be odd", t);`. */
int tc_fail(tc_msg *m, int code, const char *fmt, ...) TC_PRINTF(3, 4);

/* "CL_INVALID_WORK_GROUP_SIZE" for -54; "unknown OpenCL error" for codes we do not know. */
const char *cl_error_name(cl_int err);

/* Writes "WHAT failed: CL_NAME (code)" into m and returns the status for it: TC_ENOMEM for
 * the allocation failures (CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_HOST_MEMORY), else
 * TC_EDEVICE. For a WHAT that is the text of a whole call, only the function's name is kept. */
int cl_fail(tc_msg *m, cl_int err, const char *what);

/* Checks an OpenCL status. On failure it records the reason in MSG, sets STATUS (an int of the
 * caller's) to the status for it and jumps to LABEL, the caller's single exit, where what was
 * made so far is released:
 *     CL_CHECK(status, cleanup, m, err, "clCreateBuffer(input plane)");
 *     CL_CALL(status, cleanup, m, clFinish(queue));   (the call's own text names it)   */
#define CL_CHECK(STATUS, LABEL, MSG, ERR, WHAT)                                                 \
    do {                                                                                        \
        cl_int cl_check_err_ = (ERR);                                                           \
        if (cl_check_err_ != CL_SUCCESS) {                                                      \
            (STATUS) = cl_fail((MSG), cl_check_err_, (WHAT));                                   \
            goto LABEL;                                                                         \
        }                                                                                       \
    } while (0)

#define CL_CALL(STATUS, LABEL, MSG, CALL) CL_CHECK(STATUS, LABEL, MSG, (CALL), #CALL)

/* Host wall clock in ms (CLOCK_MONOTONIC), for build times and the launches of a batch. */
double tc_wall_ms(void);

#endif
